#!/bin/bash
# Debian 12's s390x and ppc64el kernels read from their packages (not
# installed, not booted): their image package is fetched from the Debian
# pool with curl (checked against the archive's SHA256), unpacked with
# dpkg-deb -x into TG_KERNELS_DIR (default /var/tmp/taintguard-kernels,
# beside tests/kernel/target.sh's kernels) and kept there: a second run
# downloads nothing.  Then, per kernel:
#   - in-tree modules (signed by Debian's build key) verify against the
#     certificates found in the image: "verified", not "unknown-key";
#   - modules of the other architectures are refused as elf_validity_check()
#     (kernel/module/main.c) refuses them: the other byte order fails the
#     e_type check (read natively, ET_REL is 256), the same byte order but
#     another machine fails elf_check_arch().  The host's amd64 kernel and
#     modules take part when /lib/modules has a kernel with its .config.
# Without network and without a cached copy the cases are skipped, with the reason.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${B:-build}
TG=$PWD/$B/taintguard
TOPDIR=${TG_KERNELS_DIR:-/var/tmp/taintguard-kernels}
MIRROR=${TG_DEBIAN_MIRROR:-http://deb.debian.org/debian}
pass=0 fail=0 skipped=0

ok() { echo "ok - $*"; pass=$((pass + 1)); }
no() { echo "not ok - $*"; fail=$((fail + 1)); }
skip() { echo "ok - # SKIP $*"; skipped=$((skipped + 1)); }

# Print the root of Debian 12's newest linux-image-6.1.0-N-FLAVOUR for
# Debian architecture ARCH, unpacked (cached); nothing when it cannot be had.
image_root() {
	local arch=$1 flavour=$2 idx stanza kver="" file sum d
	idx=$TOPDIR/bookworm-$arch.Packages
	mkdir -p "$TOPDIR" || return 1
	# the archive moves on (point releases drop old ABIs): the index is
	# read again after 12 hours, the unpacked kernel it names is kept
	if [ -z "$(find "$idx" -mmin -720 2>/dev/null)" ]; then
		curl -fsS --max-time 60 "$MIRROR/dists/bookworm/main/binary-$arch/Packages.xz" |
			xz -dc >"$idx.new" 2>/dev/null && mv "$idx.new" "$idx"
		rm -f "$idx.new"
	fi
	if [ -s "$idx" ]; then
		kver=$(grep -E "^Package: linux-image-6\.1\.0-[0-9]+-$flavour\$" "$idx" |
			sed 's/^Package: linux-image-//' | sort -V | tail -n 1)
	fi
	if [ -z "$kver" ]; then
		# no index: the newest kernel unpacked earlier, if any
		d=$(find "$TOPDIR" -maxdepth 1 -name "6.1.0-*-$flavour-image" | sort -V | tail -n 1)
		[ -n "$d" ] && [ -f "$d/.done" ] && echo "$d/root $(basename "${d%-image}")"
		return 0
	fi
	d=$TOPDIR/$kver-image
	if [ -f "$d/.done" ]; then echo "$d/root $kver"; return 0; fi
	stanza=$(awk -v RS= -v p="Package: linux-image-$kver\n" 'index($0, p) == 1' "$idx")
	file=$(sed -n 's/^Filename: //p' <<<"$stanza")
	sum=$(sed -n 's/^SHA256: //p' <<<"$stanza")
	[ -n "$file" ] && [ -n "$sum" ] || return 0
	rm -rf "$d"
	mkdir -p "$d/root"
	curl -fsS --max-time 600 -o "$d/image.deb" "$MIRROR/$file" || { rm -rf "$d"; return 0; }
	if [ "$(sha256sum <"$d/image.deb" | cut -d' ' -f1)" != "$sum" ]; then
		echo "# $file: SHA256 does not match the archive's index" >&2
		rm -rf "$d"
		return 0
	fi
	if ! dpkg-deb -x "$d/image.deb" "$d/root" || ! depmod -b "$d/root" "$kver"; then
		rm -rf "$d"
		return 0
	fi
	rm -f "$d/image.deb"
	echo "$file" >"$d/.done"
	echo "$d/root $kver"
}

# One field of each module judged: "check ROOT KVER FIELD MODULE..."
judge() {
	local root=$1 kver=$2 field=$3
	shift 3
	"$TG" check --root "$root" --kernel "$kver" -f json "$@" 2>/dev/null | jq -r ".[] | .$field"
}

# In-tree modules verify against the image's certificates.
expect_verified() {
	local root=$1 kver=$2 m got mods=()
	for m in drivers/net/dummy.ko drivers/net/vsockmon.ko fs/fat/vfat.ko net/ipv6/ah6.ko; do
		[ -f "$root/lib/modules/$kver/kernel/$m" ] && mods+=("$root/lib/modules/$kver/kernel/$m")
	done
	if [ ${#mods[@]} -lt 2 ]; then no "$kver: fewer than 2 of the in-tree modules looked for"; return; fi
	got=$(judge "$root" "$kver" signature "${mods[@]}" | sort | uniq -c | sed 's/^ *//')
	if [ "$got" = "${#mods[@]} verified" ]; then
		ok "$kver: ${#mods[@]} in-tree modules' signatures verified with the image's certificates"
	else
		no "$kver: in-tree signatures: ${got//$'\n'/, } (want ${#mods[@]} verified)"
		"$TG" check --root "$root" --kernel "$kver" "${mods[0]}" 2>&1 | sed 's/^/#   /'
	fi
}

# MODULE judged against KVER is refused with the kernel's message TEXT.
expect_refused() {
	local root=$1 kver=$2 mod=$3 what=$4 text=$5 got
	got=$(judge "$root" "$kver" 'refusal[0].reason // "loads"' "$mod")
	case $got in
	*"$text"*) ok "$kver: $what refused: ($text)" ;;
	*) no "$kver: $what: got '$got', want '$text'" ;;
	esac
}

if [ ! -x "$TG" ]; then echo "0 passed, 1 failed ($TG not built)"; exit 1; fi
mkdir -p "$TOPDIR" && exec 9>>"$TOPDIR/.lock" && flock 9

read -r S390_ROOT S390_KVER < <(image_root s390x s390x)
read -r PPC_ROOT PPC_KVER < <(image_root ppc64el powerpc64le)
# the host's amd64 kernel, when its .config and in-tree modules are there
HOST_KVER=
for c in /boot/config-*-amd64; do
	r=${c#/boot/config-}
	[ -e "$c" ] && [ -d "/lib/modules/$r/kernel/drivers/net" ] && HOST_KVER=$r
done
host_mod() { find "/lib/modules/$HOST_KVER/kernel/drivers/net" -maxdepth 1 -name 'dummy.ko*' | head -n 1; }

BYTE_ORDER='Invalid ELF header type: 256 != 1'
MACHINE='Invalid architecture in ELF header'
if [ -n "${S390_ROOT:-}" ]; then
	S390_MOD=$S390_ROOT/lib/modules/$S390_KVER/kernel/drivers/net/dummy.ko
	expect_verified "$S390_ROOT" "$S390_KVER"
else
	skip "s390x: no Debian 12 s390x kernel (no network, none unpacked in $TOPDIR)"
fi
if [ -n "${PPC_ROOT:-}" ]; then
	PPC_MOD=$PPC_ROOT/lib/modules/$PPC_KVER/kernel/drivers/net/dummy.ko
	expect_verified "$PPC_ROOT" "$PPC_KVER"
else
	skip "ppc64el: no Debian 12 ppc64el kernel (no network, none unpacked in $TOPDIR)"
fi
if [ -n "${S390_ROOT:-}" ] && [ -n "${PPC_ROOT:-}" ]; then
	expect_refused "$S390_ROOT" "$S390_KVER" "$PPC_MOD" "ppc64le module (little-endian)" "$BYTE_ORDER"
	expect_refused "$PPC_ROOT" "$PPC_KVER" "$S390_MOD" "s390x module (big-endian)" "$BYTE_ORDER"
else
	skip "s390x against ppc64el: one of the two kernels is missing"
fi
if [ -n "$HOST_KVER" ] && [ -n "$(host_mod)" ]; then
	[ -z "${S390_ROOT:-}" ] || {
		expect_refused "$S390_ROOT" "$S390_KVER" "$(host_mod)" "x86_64 module (little-endian)" "$BYTE_ORDER"
		expect_refused / "$HOST_KVER" "$S390_MOD" "s390x module (big-endian)" "$BYTE_ORDER"
	}
	[ -z "${PPC_ROOT:-}" ] || {
		expect_refused "$PPC_ROOT" "$PPC_KVER" "$(host_mod)" "x86_64 module (same byte order)" "$MACHINE"
		expect_refused / "$HOST_KVER" "$PPC_MOD" "ppc64le module (same byte order)" "$MACHINE"
	}
else
	skip "amd64: no host kernel with a .config and in-tree modules"
fi

echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
