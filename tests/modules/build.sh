#!/bin/bash
# Build taintguard's test-module corpus (tests/modules/README.md, cases.tsv)
# from the sources in tests/modules/src against the installed kernel headers.
#
# Usage: tests/modules/build.sh [OUTDIR]      (default tests/modules/out)
# Env:   TG_KERNEL=KVER   target kernel (default: tests/lib/kernel.sh's choice,
#                         the kernel linux-headers-amd64 installs)
#        TG_KROOT=DIR     the kernel's files are below DIR, not / (a kernel
#                         unpacked from its packages: tests/kernel/target.sh)
#        TG_KDIR=DIR      its kbuild tree (default TG_KROOT/lib/modules/KVER/build)
#        TG_JOBS=N        make -j (default: nproc)
#
# Layout of OUTDIR (file names are the "file" column of cases.tsv):
#   *.ko, *.ko.{xz,zst,gz}   the cases (some edited after the build)
#   lve_nogpl/lve.ko         the second module named lve
#   dist/*.ko                copies of the distribution's own signed modules
#   sig/*.ko                 signatures the kernel verifies with its keys: dist/dummy.ko
#                            changed or stripped after signing, signedown.ko in the
#                            forms sign-file -k and openssl cms write
#   .kbuild/                 kbuild trees (copies of src/, objects, pristine .ko)
#   .tools/modedit           tests/tools/modedit.c, compiled
#   .keys/                   the throw-away signing key (made at build time)
# Dot-directories are skipped by tests/kernel's initramfs copy.
#
# Skipped when OUTDIR/.built is newer than the sources (TG_REBUILD=1 forces).
# Idempotent: kbuild only rebuilds what changed; every case file is recopied
# from the pristine kbuild output and edited again on each run.  Fails loudly
# (exit 1, message on stderr) when anything does not come out as expected.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
SRC=$here/src
OUT=${1:-$here/out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
JOBS=${TG_JOBS:-$(nproc 2>/dev/null || echo 2)}
start=$(date +%s)

die() { echo "build.sh: error: $*" >&2; exit 1; }
note() { echo "build.sh: $*"; }

# ---------------------------------------------------------------- kernel
. "$repo/tests/lib/kernel.sh"
K=$TG_KERNEL
[ -n "$K" ] || die "no /lib/modules/*/build found: install linux-headers for the target kernel (or set TG_KERNEL)"
KROOT=${TG_KROOT:-}
KDIR=${TG_KDIR:-$KROOT/lib/modules/$K/build}
[ -e "$KDIR/Makefile" ] || die "$KDIR/Makefile missing: install linux-headers-$K"
# Another architecture's kernel (tests/kernel/target.sh 6.1-arm64, 6.1-s390x,
# 6.1-ppc64el): kbuild cross-compiles with the compiler tests/kernel/arch.sh
# names, and the objects are stripped with that target's binutils.
. "$repo/tests/kernel/arch.sh"
tg_arch_of_config "$KDIR/.config"
KARCH=() STRIP=strip
if [ "$(uname -m)" != "$TGA_UNAME" ]; then
	KARCH=(ARCH="$TGA_KARCH" CROSS_COMPILE="$TGA_CROSS") STRIP=${TGA_CROSS}strip
	command -v "${TGA_CROSS}gcc" >/dev/null || die "${TGA_CROSS}gcc missing (apt-get install $TGA_CROSSPKG)"
fi
# Kernels without retpolines (arm64) write no retpoline= into modules.
RETPOLINE=
grep -qE '^CONFIG_(MITIGATION_)?RETPOLINE=y' "$KDIR/.config" 2>/dev/null && RETPOLINE=1
SIGN_FILE=$KDIR/scripts/sign-file
[ -x "$SIGN_FILE" ] || SIGN_FILE=$(ls -1 /usr/lib/linux-kbuild-*/scripts/sign-file 2>/dev/null | sort -V | tail -n 1 || true)
[ -n "$SIGN_FILE" ] && [ -x "$SIGN_FILE" ] || die "scripts/sign-file not found (linux-kbuild / linux-headers-$K)"
# A kernel built without CONFIG_MODVERSIONS (Debian's 7.x) gives modules no
# __versions and exports no CRCs: the cases made by editing CRCs cannot be made
# (cases.tsv has CASE@!CONFIG_MODVERSIONS rows for them, tests/modules/caseset.py).
[ -f "$KDIR/.config" ] || die "$KDIR/.config missing: the cases depend on the kernel's configuration"
MODVERSIONS=y
grep -q '^CONFIG_MODVERSIONS=y' "$KDIR/.config" || MODVERSIONS=n
for t in cc make readelf "$STRIP" modinfo modprobe openssl xz zstd gzip strip od; do
	command -v "$t" >/dev/null 2>&1 || die "$t not found (apt-get install build-essential kmod openssl xz-utils zstd gzip)"
done

# Up to date (same kernel, nothing newer than the stamp): nothing to do.  Every
# suite calls this script; only the first one of a run builds.
STAMP=$OUT/.built
if [ -z "${TG_REBUILD:-}" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$K" ] &&
	[ -z "$(find "$here/build.sh" "$here/cases.tsv" "$SRC" "$repo/tests/tools/modedit.c" -newer "$STAMP" 2>/dev/null | head -n 1)" ]; then
	note "kernel $K: $OUT is up to date"
	exit 0
fi
rm -f "$STAMP"

# ---------------------------------------------------------------- modedit
MODEDIT=$OUT/.tools/modedit
mkdir -p "$OUT/.tools"
if [ ! -x "$MODEDIT" ] || [ "$repo/tests/tools/modedit.c" -nt "$MODEDIT" ]; then
	cc -O2 -Wall -Wextra -Werror -o "$MODEDIT.tmp" "$repo/tests/tools/modedit.c" -lelf \
		|| die "cannot compile tests/tools/modedit.c (apt-get install libelf-dev)"
	mv -f "$MODEDIT.tmp" "$MODEDIT"
fi
me() { "$MODEDIT" "$@" || die "modedit $*"; }

# ---------------------------------------------------------------- kbuild
# Copy the sources (cp -p keeps their times, so kbuild rebuilds only what
# changed); the source tree itself stays clean.
KB=$OUT/.kbuild
mkdir -p "$KB/main" "$KB/lve_nogpl"
cp -p "$SRC/Kbuild" "$SRC/Makefile" "$SRC/tg.h" "$SRC"/*.c "$KB/main/"
cp -p "$SRC/lve_nogpl/Kbuild" "$SRC/lve_nogpl/lve.c" "$SRC/tg.h" "$KB/lve_nogpl/"

kbuild() { # dir log
	# Not a sub-make of whatever ran us (`make -j2 check-fast`): its jobserver
	# flags make kbuild print "-jN forced in submake" warnings.
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$KDIR" M="$1" "${KARCH[@]}" -j"$JOBS" modules >"$2" 2>&1
}
note "kernel $K, kbuild in $KB (make -j$JOBS)"
# The second lve has to be a separate kbuild run (module name = file name,
# and one run refuses two modules with the same name); it is small, so it
# runs next to the main one.
kbuild "$KB/lve_nogpl" "$KB/lve_nogpl.log" & lvepid=$!
rc=0; kbuild "$KB/main" "$KB/main.log" || rc=$?
lverc=0; wait "$lvepid" || lverc=$?
if [ "$rc" -ne 0 ]; then tail -n 40 "$KB/main.log" >&2; die "kbuild failed in $KB/main (log: $KB/main.log)"; fi
if [ "$lverc" -ne 0 ]; then tail -n 40 "$KB/lve_nogpl.log" >&2; die "kbuild failed in $KB/lve_nogpl (log: $KB/lve_nogpl.log)"; fi
# modpost warnings would mean a case is not what it claims to be (except the
# one tgcommon exists for: 6.x says '"tg_common_var" [...] is COMMON symbol',
# 7.x "tgcommon.ko: 'tg_common_var' is COMMON symbol").
if grep -hE 'WARNING|ERROR|warning:|error:' "$KB/main.log" "$KB/lve_nogpl.log" |
	grep -vE "[\"']tg_common_var[\"'] .*is COMMON symbol" >&2; then
	die "kbuild printed warnings (see above)"
fi

# ---------------------------------------------------------------- cases
# Fresh copies of the pristine .ko for every case, then the edits.
rm -f "$OUT"/*.ko "$OUT"/*.ko.xz "$OUT"/*.ko.zst "$OUT"/*.ko.gz
rm -rf "$OUT/lve_nogpl" "$OUT/dist" "$OUT/sig"
mkdir -p "$OUT/lve_nogpl" "$OUT/dist" "$OUT/sig"
for ko in "$KB/main"/*.ko; do
	cp -f "$ko" "$OUT/"
done
cp -f "$KB/lve_nogpl/lve.ko" "$OUT/lve_nogpl/lve.ko"
cp -f "$OUT/lve.ko" "$OUT/notlve.ko"     # struct module name stays "lve"
# gplok for another architecture of the same byte order and class, so that
# only the loader's elf_check_arch() refuses it: e_machine (ELF header offset
# 18, 16 bits in the file's byte order, EI_DATA at offset 5: 1 little, 2 big)
# x86_64 (62) <-> aarch64 (183), ppc64 (21) -> x86_64, s390 (22) -> ppc64
# (big-endian, as ppc64 was before ppc64le).
em() { od -An -tu1 -j5 -N1 "$1" | tr -d ' ' | { read -r d; od -An -tu1 -j18 -N2 "$1" |
	awk -v d="$d" '{ print d == 2 ? $1 * 256 + $2 : $2 * 256 + $1 }'; }; }
cp -f "$OUT/gplok.ko" "$OUT/wrongarch.ko"
case $(em "$OUT/gplok.ko") in
62) printf '\267\000' ;; 183) printf '\076\000' ;; 21) printf '\076\000' ;; 22) printf '\000\025' ;;
*) die "gplok.ko: unexpected e_machine $(em "$OUT/gplok.ko")" ;;
esac | dd of="$OUT/wrongarch.ko" bs=1 seek=18 conv=notrunc status=none
# ppc64: gplok of the other ELF ABI version, ELFv1 (e_flags & 3 == 1) for an
# ELFv2 kernel (module_elf_check_arch(), arch/powerpc/kernel/module_64.c).
# e_flags: offset 48 of the 64-bit header, its low byte first when little-endian.
EFLAGS_OFF=48
[ "$(od -An -tu1 -j5 -N1 "$OUT/gplok.ko" | tr -d ' ')" = 1 ] || EFLAGS_OFF=51
if [ "$(em "$OUT/gplok.ko")" = 21 ]; then
	cp -f "$OUT/gplok.ko" "$OUT/ppc_abiv1.ko"
	printf '\001' | dd of="$OUT/ppc_abiv1.ko" bs=1 seek=$EFLAGS_OFF conv=notrunc status=none
fi

# Symbols of vmlinux the cases name that a release renamed or moved: printk
# became _printk in 5.15; crypto_cipher_* went into namespace CRYPTO_INTERNAL
# in 5.12 (before, nsmiss.c takes fw_fallback_config of FIRMWARE_LOADER_PRIVATE).
KV=$(echo "$K" | awk -F'[.+-]' '{ print $1 * 1000 + $2 }')
PRINTK=_printk NSSYM=crypto_cipher_setkey
[ "$KV" -ge 5015 ] || PRINTK=printk
[ "$KV" -ge 5012 ] || NSSYM=fw_fallback_config

VM=$(me "$OUT/vmrel.ko" get-modinfo vermagic)
REL=${VM%% *}
FAKE_REL=9.9.9-tg
[ ${#FAKE_REL} -le ${#REL} ] || FAKE_REL=9.9.9
[ ${#FAKE_REL} -le ${#REL} ] || die "vermagic release '$REL' too short to replace"
[[ $VM == *" mod_unload "* ]] || die "vermagic '$VM' has no mod_unload flag"

# Licence edits (modpost refuses these forms at build time).
me "$OUT/propgpl.ko" set-modinfo license MIT
me "$OUT/nolic.ko" del-modinfo license
# String tables retyped SHT_PROGBITS: the loader reads names through sh_link and
# e_shstrndx whatever the type (libelf's elf_strptr() would not).
me "$OUT/strtabprog.ko" set-modinfo license MIT
me "$OUT/strtabprog.ko" set-progbits .strtab
me "$OUT/shstrprog.ko" set-progbits .shstrtab
# struct module section 32 bytes shorter than the kernel's struct module (the relocation
# of cleanup_module still lands inside it).
me "$OUT/modsize.ko" set-size .gnu.linkonce.this_module $(( $(readelf -SW "$OUT/modsize.ko" |
	awk '$2 == ".gnu.linkonce.this_module" { print "0x" $6 }') - 32 ))
# Exports without CRCs: the CRC sections renamed (same length); without
# MODVERSIONS modpost wrote none.
if [ "$MODVERSIONS" = y ]; then
	me "$OUT/nocrcexp.ko" rename-section __kcrctab __kcrctaX
	me "$OUT/nocrcexp.ko" rename-section __kcrctab_gpl __kcrctaX_gpl
fi
# An export named like one of vmlinux's (modpost refuses that at build time).
me "$OUT/dupvmlinux.ko" replace-string .strtab tg_dup_ab ktime_get
me "$OUT/dupvmlinux.ko" replace-string __ksymtab_strings tg_dup_ab ktime_get
# A second section named .modinfo (the compiler's .comment, renamed).
me "$OUT/twomodinfo.ko" rename-section .comment .modinfo
# Namespace import removed (modpost refuses a missing import).
me "$OUT/nsmiss.ko" del-modinfo import_ns
# String namespace imported in another case (6.13+ builds only).
[ ! -f "$OUT/strnscase.ko" ] || me "$OUT/strnscase.ko" set-modinfo import_ns TG.STR-NS
# The module tg_modns_fn is exported for, renamed (6.16+ builds only): struct
# module's name is what the loader matches, .modinfo's for kmod and messages.
if [ -f "$OUT/modnsok.ko" ]; then
	cp -f "$OUT/modnsok.ko" "$OUT/modnsno.ko"
	me "$OUT/modnsno.ko" replace-string .gnu.linkonce.this_module modnsok modnsno
	me "$OUT/modnsno.ko" set-modinfo name modnsno
fi
# An explicit import of a module namespace (modpost would refuse it).
me "$OUT/modnsimp.ko" replace-string .modinfo tgimp_pad= import_ns=
# modversions / vermagic edits.  Without MODVERSIONS there is no __versions:
# nover and vmrelnover have none as built, crcbad has no CRC to change (removed:
# its rows say why it is skipped).
if [ "$MODVERSIONS" = y ]; then
	me "$OUT/crcbad.ko" flip-crc "$PRINTK"
	me "$OUT/nover.ko" clear-alloc __versions
	me "$OUT/vmrelnover.ko" clear-alloc __versions
else
	rm -f "$OUT/crcbad.ko"
	note "kernel without CONFIG_MODVERSIONS: crcbad not made (no CRCs to change); nover, nocrcexp, vmrelnover unedited in their CRCs (there are none)"
fi
me "$OUT/vmrel.ko" set-modinfo vermagic "$FAKE_REL ${VM#* }"
me "$OUT/vmflag.ko" set-modinfo vermagic "${VM/ mod_unload / mod_unloaX }"
me "$OUT/vmrelnover.ko" set-modinfo vermagic "$FAKE_REL ${VM#* }"
me "$OUT/novermagic.ko" del-modinfo vermagic
[ -z "$RETPOLINE" ] || me "$OUT/noretpoline.ko" del-modinfo retpoline
# Signatures.
me "$OUT/badsig.ko" append-bogus-sig
me "$OUT/sigpgp.ko" append-bogus-sig 0
KEYS=$OUT/.keys
mkdir -p "$KEYS"
if [ ! -s "$KEYS/signing_key.pem" ]; then
	cat >"$KEYS/x509.genkey" <<'EOF'
[ req ]
default_bits = 2048
distinguished_name = req_distinguished_name
prompt = no
string_mask = utf8only
x509_extensions = myexts

[ req_distinguished_name ]
O = taintguard tests
CN = taintguard test signing key (untrusted)

[ myexts ]
basicConstraints=critical,CA:FALSE
keyUsage=digitalSignature
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EOF
	openssl req -new -nodes -utf8 -sha256 -days 36500 -batch -x509 \
		-config "$KEYS/x509.genkey" -outform PEM \
		-out "$KEYS/signing_key.pem.tmp" -keyout "$KEYS/signing_key.pem.tmp" >/dev/null 2>&1 \
		|| die "openssl could not generate the signing key"
	mv -f "$KEYS/signing_key.pem.tmp" "$KEYS/signing_key.pem"
fi
"$SIGN_FILE" sha256 "$KEYS/signing_key.pem" "$KEYS/signing_key.pem" "$OUT/signedown.ko" \
	|| die "sign-file failed"
# Compressed copies of gplok, made the way kbuild's modules_install makes them.
xz --check=crc32 --lzma2=dict=1MiB -c "$OUT/gplok.ko" >"$OUT/gplok.ko.xz"
zstd -q -f -o "$OUT/gplok.ko.zst" "$OUT/gplok.ko"
gzip -n -9 -c "$OUT/gplok.ko" >"$OUT/gplok.ko.gz"
# The distribution's own modules (in-tree, signed with the distribution key).
for m in dummy veth nls_cp437; do
	rel=$(grep -E "(^|/)$m\.ko(\.[a-z]+)?:" "$KROOT/lib/modules/$K/modules.dep" | head -n 1 | cut -d: -f1 || true)
	[ -n "$rel" ] && [ -f "$KROOT/lib/modules/$K/$rel" ] \
		|| die "$KROOT/lib/modules/$K has no $m.ko (install linux-image-$K)"
	case $rel in
	*.ko) cp -f "$KROOT/lib/modules/$K/$rel" "$OUT/dist/$m.ko" ;;
	*.ko.xz) xz -dc "$KROOT/lib/modules/$K/$rel" >"$OUT/dist/$m.ko" ;;
	*.ko.zst) zstd -q -dc "$KROOT/lib/modules/$K/$rel" >"$OUT/dist/$m.ko" ;;
	*.ko.gz) gzip -dc "$KROOT/lib/modules/$K/$rel" >"$OUT/dist/$m.ko" ;;
	*) die "unexpected module file $rel" ;;
	esac
done

# Signatures the kernel verifies with its own keys (sig/).  The
# distribution's dummy.ko is signed with a key built into the kernel image:
# one signed byte changed (intree=Y -> intree=N; the loader only asks whether
# the key exists) -> EKEYREJECTED; stripped as packaging does (strip drops
# the appended signature) -> unsigned, E; stripped harder (--strip-unneeded
# changes the ELF) with the old signature put back -> EKEYREJECTED.
SIG=$OUT/sig
sig_bytes() { # file -> bytes of PKCS#7 + struct module_signature + magic
	tail -c 40 "$1" | head -c 12 | tail -c 4 | od -An -tu1 |
		awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 + 40 }'
}
cp -f "$OUT/dist/dummy.ko" "$SIG/dummy_modified.ko"
me "$SIG/dummy_modified.ko" set-modinfo intree N
cp -f "$OUT/dist/dummy.ko" "$SIG/dummy_stripped.ko"
"$STRIP" --strip-debug "$SIG/dummy_stripped.ko" || die "strip failed"
cp -f "$OUT/dist/dummy.ko" "$SIG/dummy_stripped_sigkept.ko"
"$STRIP" --strip-unneeded "$SIG/dummy_stripped_sigkept.ko" || die "strip failed"
tail -c "$(sig_bytes "$OUT/dist/dummy.ko")" "$OUT/dist/dummy.ko" >>"$SIG/dummy_stripped_sigkept.ko"
# Our key, which no kernel has: changed after signing -> still only ENOKEY
# (the kernel never gets to the digest), OE; signer named by its subject key
# identifier (sign-file -k; kmod's modinfo does not show it) -> OE; with
# authenticated attributes (openssl cms without -noattr) -> EKEYREJECTED
# whatever the key; carrying its certificate (no -nocerts) -> verified with
# that certificate first: OE intact, EKEYREJECTED when changed.
SIGNED_DESC=$(me "$OUT/signedown.ko" get-modinfo description)
cp -f "$OUT/signedown.ko" "$SIG/signedown_modified.ko"
me "$SIG/signedown_modified.ko" set-modinfo description "${SIGNED_DESC%)}]"
cp -f "$KB/main/signedown.ko" "$SIG/signedown_keyid.ko"
"$SIGN_FILE" -k sha256 "$KEYS/signing_key.pem" "$KEYS/signing_key.pem" "$SIG/signedown_keyid.ko" \
	|| die "sign-file -k failed"
cms_sign() { # out.p7 openssl-options...
	local out=$1; shift
	openssl cms -sign -binary -outform DER -md sha256 -in "$KB/main/signedown.ko" \
		-signer "$KEYS/signing_key.pem" -inkey "$KEYS/signing_key.pem" -out "$out" "$@" \
		|| die "openssl cms -sign $* failed"
}
cms_sign "$KEYS/attrs.p7" -nocerts
cms_sign "$KEYS/certs.p7" -noattr
cp -f "$KB/main/signedown.ko" "$SIG/signedown_attrs.ko"
me "$SIG/signedown_attrs.ko" append-sig "$KEYS/attrs.p7"
cp -f "$KB/main/signedown.ko" "$SIG/signedown_certs.ko"
me "$SIG/signedown_certs.ko" append-sig "$KEYS/certs.p7"
cp -f "$SIG/signedown_certs.ko" "$SIG/signedown_certs_modified.ko"
me "$SIG/signedown_certs_modified.ko" set-modinfo description "${SIGNED_DESC%)}]"

# ---------------------------------------------------------------- verify
# (no pipefail here: "cmd | grep -q" may end cmd with SIGPIPE)
set +o pipefail
fails=0
bad() { echo "build.sh: verify: $*" >&2; fails=$((fails + 1)); }
modinfo_keys() { readelf -p .modinfo "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9a-f]*\] *//p'; }
has_entry() { modinfo_keys "$1" | grep -qxF -- "$2"; }
has_key() { modinfo_keys "$1" | grep -q -- "^$2="; }
name_of() { modinfo -F name "$1" 2>/dev/null; }
alloc_flag() { # file section -> "A" or ""
	readelf -SW "$1" | awk -v s="$2" '{ for (i = 1; i <= NF; i++) if ($i == s) { f = $(i + 6); print (f ~ /A/ ? "A" : "-"); exit } }'
}
und() { readelf -sW "$1" | awk '$7 == "UND" && $8 != "" { print $8 }'; }
# First of two symbols in .symtab order (the order the kernel resolves them).
first_of() { und "$1" | grep -m1 -xE "$2|$3"; }
crc_of() { modprobe --dump-modversions "$1" 2>/dev/null | awk -v s="$2" '$2 == s { print $1 }'; }

# Every case file is there and is the module it claims to be.
# (The row of each case that holds for this kernel: tests/modules/caseset.py's
# rules, in awk for the build chroots that have no python.)
effective_rows() {
	awk -F'\t' -v k="$K" '
	function vnum(s,  a, n) { n = split(s, a, "."); return a[1] * 1000000 + a[2] * 1000 + (n > 2 ? a[3] + 0 : 0) }
	function holds_one(c) {
		if (c ~ /^(x86_64|arm64|riscv|s390|ppc64)$/) return ("CONFIG_" toupper(c)) in on
		if (c ~ /^!CONFIG_/) return !(substr(c, 2) in on)
		if (c ~ /^CONFIG_/) return c in on
		if (c ~ /^>=/) return vnum(k) >= vnum(substr(c, 3))
		if (c ~ /^</) return vnum(k) < vnum(substr(c, 2))
		print "build.sh: cases.tsv: bad condition " c > "/dev/stderr"; exit 1
	}
	function holds(c,  a, n, i) { n = split(c, a, ","); for (i = 1; i <= n; i++) if (!holds_one(a[i])) return 0; return 1 }
	FNR == NR { if (split($0, kv, "=") == 2 && kv[2] ~ /^[ym]$/) on[kv[1]] = 1; next }
	/^#/ || $1 == "case" || NF == 0 { next }
	{	n = $1; c = ""; i = index(n, "@")
		if (i) { c = substr(n, i + 1); n = substr(n, 1, i - 1) }
		if (c != "" && !holds(c)) next
		if (!(n in file)) order[++cnt] = n
		else if (c == "") next
		file[n] = $2; pre[n] = $3; loads[n] = $4
	}
	END { for (i = 1; i <= cnt; i++) print order[i] "\t" file[order[i]] "\t" pre[order[i]] "\t" loads[order[i]] }
	' "$KDIR/.config" "$here/cases.tsv"
}
while IFS=$'\t' read -r case file pre loads; do
	[ "$loads" = skip ] && continue
	for f in $file ${pre//,/ }; do
		[ "$f" = - ] || [ -f "$OUT/$f" ] || bad "$case: $f missing"
	done
done < <(effective_rows)

for f in "$OUT"/*.ko "$OUT/lve_nogpl/lve.ko"; do
	n=$(basename "$f" .ko)
	want=$n
	case $n in notlve) want=lve ;; wrongarch | ppc_abiv1) want=gplok ;; esac
	[ "$(name_of "$f")" = "$want" ] || bad "$f: modinfo name '$(name_of "$f")', want '$want'"
	[ "$(me "$f" get-name)" = "$want" ] || bad "$f: struct module name '$(me "$f" get-name)', want '$want'"
done
# struct module name (.gnu.linkonce.this_module + 24) of the renamed copy.
[ "$(me "$OUT/notlve.ko" get-name)" = lve ] || bad "notlve.ko: struct module name is not lve"

[ "$(em "$OUT/wrongarch.ko")" != "$(em "$OUT/gplok.ko")" ] || bad "wrongarch: e_machine unchanged"
eflags_low() { od -An -tu1 -j"$EFLAGS_OFF" -N1 "$1" | tr -d ' '; }
if [ -f "$OUT/ppc_abiv1.ko" ]; then
	[ "$(eflags_low "$OUT/gplok.ko")" = 2 ] || bad "gplok: ppc64 module not ELFv2 (e_flags $(eflags_low "$OUT/gplok.ko"))"
	[ "$(eflags_low "$OUT/ppc_abiv1.ko")" = 1 ] || bad "ppc_abiv1: e_flags ABI version is not 1"
fi
# Licences.
has_entry "$OUT/gplok.ko" "license=GPL" || bad "gplok: license"
has_entry "$OUT/lic_gpl_addl.ko" "license=GPL and additional rights" || bad "lic_gpl_addl: license"
has_entry "$OUT/lic_spdx.ko" "license=GPL-2.0" || bad "lic_spdx: license"
has_entry "$OUT/propgpl.ko" "license=MIT" || bad "propgpl: license not MIT"
has_key "$OUT/nolic.ko" license && bad "nolic: still has a license entry"
[ "$(modinfo_keys "$OUT/driverloader_trick.ko" | grep -m1 '^license=')" = "license=GPL" ] \
	|| bad "driverloader_trick: first license entry is not exactly GPL"
modinfo_keys "$OUT/driverloader_trick.ko" | grep -qx 'for files in the "GPL" directory; for others, only LICENSE file applies' \
	|| bad "driverloader_trick: no '=-less' .modinfo entry after the embedded NUL"
# GPL-only imports where the case needs them (modpost would have stopped the
# non-GPL ones, so these were built as GPL).
for c in gplok lic_gplv2 lic_gpl_addl lic_dualbsd lic_dualmit lic_dualmpl propgpl nolic lve \
	 ndiswrapper driverloader_trick gplimp; do
	und "$OUT/$c.ko" | grep -qx ktime_get || bad "$c: does not import ktime_get"
done
und "$OUT/lve.ko" | grep -qx sysfs_create_bin_file || bad "lve: does not import sysfs_create_bin_file"
for c in propplain lic_lower lic_gplv2nospace lic_spdx driverloader lve_nogpl/lve inherit; do
	und "$OUT/$c.ko" | grep -qxE 'ktime_get|sysfs_create_bin_file' && bad "$c: imports a GPL-only symbol"
done
# .symtab order decides which symbol the kernel names first (cases.tsv).
[ "$(first_of "$OUT/lve.ko" sysfs_create_bin_file ktime_get)" = sysfs_create_bin_file ] \
	|| bad "lve: ktime_get precedes sysfs_create_bin_file in .symtab (fix refusal_symbol in cases.tsv)"
[ "$(first_of "$OUT/gplimp.ko" tg_prop_fn ktime_get)" = tg_prop_fn ] \
	|| bad "gplimp: ktime_get precedes tg_prop_fn in .symtab (cases.tsv expects the proprietary symbol first)"
[ "$(first_of "$OUT/gplimp_gplfirst.ko" tg_prop_fn sysfs_create_bin_file)" = sysfs_create_bin_file ] \
	|| bad "gplimp_gplfirst: tg_prop_fn precedes sysfs_create_bin_file in .symtab"
# Exports and namespaces.
readelf -p __ksymtab_strings "$OUT/exporter.ko" | grep -q 'TGNS' || bad "exporter: no TGNS namespace string"
readelf -SW "$OUT/propexp.ko" | grep -q ' __ksymtab ' || bad "propexp: no __ksymtab"
[ "$MODVERSIONS" = n ] || readelf -SW "$OUT/propexp.ko" | grep -q '__kcrctab' || bad "propexp: no __kcrctab"
has_entry "$OUT/nsok.ko" "import_ns=TGNS" || bad "nsok: no import_ns=TGNS"
has_key "$OUT/nsmiss.ko" import_ns && bad "nsmiss: import_ns still present"
has_entry "$OUT/modnsimp.ko" "import_ns=module:modnsok" || bad "modnsimp: no import_ns=module:modnsok"
if [ -f "$OUT/strnsexp.ko" ]; then
	readelf -p __ksymtab_strings "$OUT/strnsexp.ko" | grep -q 'TG\.str-ns' || bad "strnsexp: no TG.str-ns namespace string"
	has_entry "$OUT/strnsok.ko" "import_ns=TG.str-ns" || bad "strnsok: no import_ns=TG.str-ns"
	has_entry "$OUT/strnscase.ko" "import_ns=TG.STR-NS" || bad "strnscase: import_ns is not TG.STR-NS"
fi
if [ -f "$OUT/modnsexp.ko" ]; then
	readelf -p __ksymtab_strings "$OUT/modnsexp.ko" | grep -q 'module:modnsok' || bad "modnsexp: no module:modnsok namespace"
	has_key "$OUT/modnsok.ko" import_ns && bad "modnsok: imports a namespace"
	und "$OUT/modnsno.ko" | grep -qx tg_modns_fn || bad "modnsno: does not import tg_modns_fn"
fi
und "$OUT/nsmiss.ko" | grep -qx "$NSSYM" || bad "nsmiss: does not import $NSSYM"
# Taint keys.
has_entry "$OUT/staging.ko" "staging=Y" || bad "staging: no staging=Y"
has_entry "$OUT/testmod.ko" "test=Y" || bad "testmod: no test=Y"
has_entry "$OUT/suse_ext.ko" "supported=external" || bad "suse_ext: no supported=external"
has_entry "$OUT/livepatch.ko" "livepatch=Y" || bad "livepatch: no livepatch=Y"
has_entry "$OUT/intreeN.ko" "intree=N" || bad "intreeN: no intree=N"
for f in "$OUT"/*.ko "$OUT/lve_nogpl/lve.ko"; do
	case $(basename "$f") in intreeN.ko) continue ;; esac
	has_key "$f" intree && bad "$f: has an intree entry (out-of-tree build expected)"
done
# modversions and vermagic.
if [ "$MODVERSIONS" = y ]; then
	[ "$(crc_of "$OUT/crcbad.ko" "$PRINTK")" != "$(crc_of "$KB/main/crcbad.ko" "$PRINTK")" ] || bad "crcbad: $PRINTK CRC unchanged"
	[ -n "$(crc_of "$OUT/crcbad.ko" "$PRINTK")" ] || bad "crcbad: no $PRINTK record"
	[ "$(crc_of "$OUT/crcbad.ko" module_layout)" = "$(crc_of "$KB/main/crcbad.ko" module_layout)" ] || bad "crcbad: module_layout changed"
	[ "$(alloc_flag "$OUT/nover.ko" __versions)" = "-" ] || bad "nover: __versions still SHF_ALLOC"
	[ "$(alloc_flag "$OUT/vmrelnover.ko" __versions)" = "-" ] || bad "vmrelnover: __versions still SHF_ALLOC"
	for c in gplok vmrel vmflag novermagic noretpoline crcbad; do
		[ "$(alloc_flag "$OUT/$c.ko" __versions)" = "A" ] || bad "$c: __versions is not SHF_ALLOC"
	done
else
	[ ! -e "$OUT/crcbad.ko" ] || bad "crcbad.ko made without CRCs"
	for f in "$OUT"/*.ko; do
		[ -z "$(alloc_flag "$f" __versions)" ] || bad "$f: has __versions on a kernel without MODVERSIONS"
		readelf -SW "$f" | grep -q '__kcrctab' && bad "$f: has CRCs on a kernel without MODVERSIONS"
	done
fi
[ "$(me "$OUT/vmrel.ko" get-modinfo vermagic)" = "$FAKE_REL ${VM#* }" ] || bad "vmrel: vermagic"
[ "$(me "$OUT/vmrelnover.ko" get-modinfo vermagic)" = "$FAKE_REL ${VM#* }" ] || bad "vmrelnover: vermagic"
[ "$(me "$OUT/vmflag.ko" get-modinfo vermagic)" = "${VM/ mod_unload / mod_unloaX }" ] || bad "vmflag: vermagic"
[ "$(me "$OUT/gplok.ko" get-modinfo vermagic)" = "$VM" ] || bad "gplok: vermagic differs from the others"
[ "$(modinfo -F vermagic "$OUT/dist/dummy.ko")" = "$VM" ] || bad "our vermagic '$VM' is not the kernel's"
has_key "$OUT/novermagic.ko" vermagic && bad "novermagic: vermagic still present"
has_key "$OUT/noretpoline.ko" retpoline && bad "noretpoline: retpoline still present"
[ -z "$RETPOLINE" ] || has_key "$OUT/gplok.ko" retpoline || bad "gplok: no retpoline entry"
# struct module size equals the kernel's (else every case is refused).
tm_size() { readelf -SW "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i == ".gnu.linkonce.this_module") { print $(i + 4); exit } }'; }
[ "$(tm_size "$OUT/gplok.ko")" = "$(tm_size "$OUT/dist/dummy.ko")" ] || bad "struct module size differs from the kernel's"
# Signatures.
tail -c 28 "$OUT/signedown.ko" | grep -q 'Module signature appended' || bad "signedown: no signature trailer"
modinfo -F signer "$OUT/signedown.ko" | grep -q 'taintguard test signing key' || bad "signedown: signer not our key"
tail -c 28 "$OUT/badsig.ko" | grep -q 'Module signature appended' || bad "badsig: no trailer"
[ -z "$(modinfo -F signer "$OUT/badsig.ko" 2>/dev/null)" ] || bad "badsig: kmod parsed the bogus signature"
for m in dummy veth nls_cp437; do
	[ -n "$(modinfo -F signer "$OUT/dist/$m.ko")" ] || bad "dist/$m.ko is not signed"
	has_entry "$OUT/dist/$m.ko" "intree=Y" || bad "dist/$m.ko has no intree=Y"
done
# sig/: each file is what its name says.
has_trailer() { tail -c 28 "$1" | grep -q 'Module signature appended'; }
ndiff() { cmp -l "$1" "$2" 2>/dev/null | wc -l; }
[ "$(ndiff "$OUT/dist/dummy.ko" "$SIG/dummy_modified.ko")" -eq 1 ] || bad "sig/dummy_modified.ko: not one byte away from dist/dummy.ko"
has_entry "$SIG/dummy_modified.ko" "intree=N" || bad "sig/dummy_modified.ko: intree=N missing"
has_trailer "$SIG/dummy_stripped.ko" && bad "sig/dummy_stripped.ko: strip kept the signature"
has_trailer "$SIG/dummy_stripped_sigkept.ko" || bad "sig/dummy_stripped_sigkept.ko: no signature"
cmp -s <(head -c "$(($(stat -c %s "$OUT/dist/dummy.ko") - $(sig_bytes "$OUT/dist/dummy.ko")))" "$OUT/dist/dummy.ko") \
	<(head -c "$(($(stat -c %s "$SIG/dummy_stripped_sigkept.ko") - $(sig_bytes "$OUT/dist/dummy.ko")))" "$SIG/dummy_stripped_sigkept.ko") &&
	bad "sig/dummy_stripped_sigkept.ko: strip --strip-unneeded changed nothing"
cmp -s <(tail -c 40 "$OUT/dist/dummy.ko") <(tail -c 40 "$SIG/dummy_stripped_sigkept.ko") || bad "sig/dummy_stripped_sigkept.ko: not dummy's signature"
[ "$(ndiff "$OUT/signedown.ko" "$SIG/signedown_modified.ko")" -eq 1 ] || bad "sig/signedown_modified.ko: not one byte away from signedown.ko"
has_trailer "$SIG/signedown_keyid.ko" || bad "sig/signedown_keyid.ko: not signed"
[ -z "$(modinfo -F signer "$SIG/signedown_keyid.ko" 2>/dev/null)" ] || bad "sig/signedown_keyid.ko: kmod names a signer (issuer+serial, not -k?)"
cms_field() { # p7 field -> present/absent
	openssl cms -cmsout -print -inform DER -in "$1" |
		awk -v f="$2:" '$1 == f { getline; print ($1 == "<ABSENT>" ? "absent" : "present"); exit }'
}
[ "$(cms_field "$KEYS/attrs.p7" signedAttrs)" = present ] || bad "attrs.p7 has no signed attributes"
[ "$(cms_field "$KEYS/attrs.p7" certificates)" = absent ] || bad "attrs.p7 carries certificates"
[ "$(cms_field "$KEYS/certs.p7" certificates)" = present ] || bad "certs.p7 carries no certificate"
[ "$(cms_field "$KEYS/certs.p7" signedAttrs)" = absent ] || bad "certs.p7 has signed attributes"
[ "$(ndiff "$SIG/signedown_certs.ko" "$SIG/signedown_certs_modified.ko")" -eq 1 ] || bad "sig/signedown_certs_modified.ko: not one byte away"

# Compressed copies decompress to gplok.ko.
cmp -s <(xz -dc "$OUT/gplok.ko.xz") "$OUT/gplok.ko" || bad "gplok.ko.xz"
cmp -s <(zstd -q -dc "$OUT/gplok.ko.zst") "$OUT/gplok.ko" || bad "gplok.ko.zst"
cmp -s <(gzip -dc "$OUT/gplok.ko.gz") "$OUT/gplok.ko" || bad "gplok.ko.gz"
xz --robot --list "$OUT/gplok.ko.xz" | grep -q CRC32 || bad "gplok.ko.xz: check is not CRC32"

[ "$fails" -eq 0 ] || die "$fails verification(s) failed in $OUT"
echo "$K" >"$STAMP"

# ---------------------------------------------------------------- summary
ncase=$(grep -v '^#' "$here/cases.tsv" | tail -n +2 | cut -f1 | grep -v @ | grep -c . || true)
nfile=$(cd "$OUT" && find . -path ./.kbuild -prune -o -path ./.tools -prune -o -path ./.keys -prune \
	-o -type f \( -name '*.ko' -o -name '*.ko.*' \) -print | wc -l)
note "kernel $K: $nfile module files for $ncase cases in $OUT ($(($(date +%s) - start)) s)"
note "edited: propgpl nolic strtabprog shstrprog modsize nocrcexp dupvmlinux twomodinfo nsmiss strnscase modnsimp crcbad nover vmrel vmflag vmrelnover novermagic noretpoline badsig sigpgp wrongarch; signed: signedown; renamed: notlve.ko, modnsno.ko"
note "signatures (sig/): dummy_modified dummy_stripped dummy_stripped_sigkept signedown_modified signedown_keyid signedown_attrs signedown_certs signedown_certs_modified"
