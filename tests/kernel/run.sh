#!/bin/bash
# Make the real kernel the judge: boot the distribution kernel under QEMU once
# per test case, insmod the case's module (after its preloads), record what the
# kernel did, and compare it with tests/modules/cases.tsv and with
# `taintguard check --format json`.  See tests/kernel/README.md.
#
# Usage: tests/kernel/run.sh [--target KVER] [--cases FILE] [--enforce-cases FILE] [--subset FILE]
#          [--modules DIR] [--out DIR]
#   (--enforce-cases "" skips the boots with module.sig_enforce=1; --target KVER: a kernel
#   unpacked from its Debian packages by tests/kernel/target.sh, not installed;
#   --subset FILE: boot only the cases FILE names, one name or pattern per line)
# Environment: B (build dir, default build), TG_KERNEL (target kernel, tests/lib/kernel.sh;
#   TG_KVER is its deprecated alias),
#   TG_ACCEL (kvm|tcg: skip the probe), TG_JOBS (parallel boots, default nproc),
#   TG_BOOT (pvh|bzimage, default pvh when the kernel supports it),
#   TG_BOOT_TIMEOUT (seconds per boot, default 90).
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
B=${B:-build}
CASES=tests/modules/cases.tsv
ENFORCE_CASES=tests/kernel/cases-sig-enforce.tsv
MODS=
OUT=
TARGET=
while [ $# -gt 0 ]; do
	case $1 in
	--target) TARGET=$2; shift 2 ;;
	--cases) CASES=$2; shift 2 ;;
	--enforce-cases) ENFORCE_CASES=$2; shift 2 ;;
	--subset) case $2 in /*) TG_SUBSET=$2 ;; *) TG_SUBSET=$OLDPWD/$2 ;; esac
		export TG_SUBSET; shift 2 ;;
	--modules) MODS=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
	*) echo "usage: $0 [--target KVER] [--cases FILE] [--enforce-cases FILE] [--subset FILE] [--modules DIR] [--out DIR]" >&2; exit 2 ;;
	esac
done
# --target KVER: a kernel not installed on the host, unpacked from its Debian
# packages (tests/kernel/target.sh); its test modules and results get their own
# directories.
KROOT=
KCHROOT=-
if [ -n "$TARGET" ]; then
	t=$(tests/kernel/target.sh "$TARGET") || { echo "not ok - kernel test setup: tests/kernel/target.sh $TARGET failed"; echo "0 passed, 1 failed"; exit 1; }
	spec=$TARGET
	read -r KROOT TARGET KCHROOT <<<"$t"
	TG_KERNEL=$TARGET TG_KERNEL_WHY="--target $spec, unpacked in $KROOT"
	export TG_KROOT=$KROOT
	MODS=${MODS:-tests/out/kernel-$TARGET/modules}
	OUT=${OUT:-tests/out/kernel-$TARGET}
fi
. tests/lib/kernel.sh
KVER=$TG_KERNEL
MODS=${MODS:-tests/modules/out}
OUT=${OUT:-tests/out/kernel}
MODS_BUILT=
[ "$MODS" = tests/modules/out ] || [ -n "$TARGET" ] && MODS_BUILT=1
JOBS=${TG_JOBS:-$(nproc)}
TMO=${TG_BOOT_TIMEOUT:-90}
start=$(date +%s)

bail() { echo "not ok - kernel test setup: $*"; echo "0 passed, 1 failed"; exit 1; }

# Every QEMU we start runs under `setsid timeout`, in its own process group,
# listed in $PIDDIR; on exit stop the boot loops first, then those groups.
PIDDIR=
cleanup() {
	local p f
	for p in $(jobs -p); do kill -TERM "$p" 2>/dev/null; done
	if [ -n "$PIDDIR" ] && [ -d "$PIDDIR" ]; then
		for f in "$PIDDIR"/*; do
			[ -e "$f" ] || continue
			p=${f##*/}
			kill -TERM -- "-$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null
		done
	fi
	wait 2>/dev/null
	[ -n "$PIDDIR" ] && rm -rf "$PIDDIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The guest's architecture is the kernel's (.config): its row of
# tests/kernel/arch.sh says which QEMU boots which image how; a foreign guest
# (TCG) runs the busybox and kmod target.sh unpacked for it.
. tests/kernel/arch.sh
tg_arch_of_config "$KROOT/boot/config-$KVER"
GARCH=$TGA_UNAME
KIMG=$KROOT/boot/$TGA_IMAGE-$KVER
[ -r "$KIMG" ] || bail "$KIMG missing (apt-get install linux-image-$KVER)"
[ -d "$KROOT/lib/modules/$KVER" ] || bail "$KROOT/lib/modules/$KVER missing"
command -v "$TGA_QEMU" >/dev/null || bail "$TGA_QEMU missing (apt-get install $TGA_QEMUPKG)"
BUSYBOX=
HOSTBB=
for b in /bin/busybox /usr/bin/busybox; do
	if [ -x "$b" ] && file -L "$b" | grep -q 'statically linked'; then HOSTBB=$b; break; fi
done
BUSYBOX=$HOSTBB
[ "$GARCH" = x86_64 ] || BUSYBOX=$KROOT/bin/busybox
[ -n "$BUSYBOX" ] && [ -x "$BUSYBOX" ] && [ -n "$HOSTBB" ] || bail "static busybox missing (apt-get install busybox-static)"
KMOD=$(command -v kmod) || bail "kmod missing"
if [ "$GARCH" != x86_64 ]; then
	KMOD=$KROOT/bin/kmod	# the target's own (target.sh), as the guest runs it
	[ -x "$KMOD" ] || bail "$KMOD missing (tests/kernel/target.sh)"
# The guest runs the host's kmod (copied into the initramfs below); an unpacked
# target root has none, and taintguard reads the root's kmod to know which
# compressed modules userspace decompresses: give it the one the guest runs.
elif [ -n "$KROOT" ]; then
	install -D -m 755 "$KMOD" "$KROOT/usr/bin/kmod" || bail "cannot copy kmod into $KROOT"
fi
command -v cpio >/dev/null || bail "cpio missing"
[ -x "$B/taintguard" ] || bail "$B/taintguard missing (run make)"

# Test modules (tests/modules/build.sh, as tests/modules/check.sh does it).
if [ -n "$MODS_BUILT" ] && [ "$KCHROOT" != - ]; then
	# The target's kbuild needs that chroot's gcc and glibc: build there, with
	# the work tree and the unpacked kernel mounted at the same paths.
	mkdir -p "$MODS"
	tests/lib/chroot.sh run "$KCHROOT" --bind "$TOP" --bind "$KROOT" -- \
		env TG_KERNEL="$KVER" TG_KROOT="$KROOT" TG_JOBS="$JOBS" "$TOP/tests/modules/build.sh" "$(cd "$MODS" && pwd)" \
		>"$OUT.kbuild.log" 2>&1 || { tail -n 20 "$OUT.kbuild.log"; bail "tests/modules/build.sh failed in chroot $KCHROOT ($OUT.kbuild.log)"; }
elif [ -n "$MODS_BUILT" ] && [ -x tests/modules/build.sh ]; then
	tests/modules/build.sh "$MODS" >/dev/null || bail "tests/modules/build.sh failed"
fi
[ -f "$CASES" ] || bail "$CASES missing"
[ -d "$MODS" ] || bail "$MODS missing"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
MODS=$(cd "$MODS" && pwd)
LOGS=$OUT/logs
rm -rf "$LOGS" "$OUT/root"
mkdir -p "$LOGS"
ROOT=$OUT/root

# ---- initramfs: busybox, kmod's insmod (+ its shared libraries), /init, modules
mkdir -p "$ROOT"/{bin,sbin,proc,sys,dev,tmp,lib,lib64}
python3 tests/kernel/harness.py plan "$CASES" "$MODS" "$ROOT" "$OUT/plan.json" "$KVER" $ENFORCE_CASES ||
	bail "cannot plan the cases"
cp "$BUSYBOX" "$ROOT/bin/busybox"
# (the host's busybox names the applets: the target's may not run here)
for a in $("$HOSTBB" --list); do
	case $a in busybox|insmod|rmmod|lsmod|modinfo|modprobe|depmod) ;;
	*) ln -s busybox "$ROOT/bin/$a" ;; esac
done
# kmod's insmod, as the research used (kmod 30): it decompresses .xz/.zst in
# userspace; Debian's kmod has no zlib, so .gz reaches the kernel as is.
cp "$KMOD" "$ROOT/bin/kmod"
for a in insmod rmmod lsmod modinfo; do ln -s ../bin/kmod "$ROOT/sbin/$a"; done
if [ "$GARCH" = x86_64 ]; then
	for l in $(ldd "$KMOD" | grep -o '/[^ ]*'); do
		mkdir -p "$ROOT$(dirname "$l")"
		cp -L "$l" "$ROOT$l"
	done
else
	# ldd cannot run a foreign binary: follow DT_NEEDED in the target root.
	need() { readelf -dW "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
	interp=$(readelf -lW "$KMOD" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
	todo="$(need "$KMOD")" done_=
	mkdir -p "$ROOT$(dirname "$interp")" && cp -L "$KROOT$interp" "$ROOT$interp" || bail "no $KROOT$interp"
	while [ -n "$todo" ]; do
		set -- $todo; [ $# -gt 0 ] || break
		l=$1; shift; todo="$*"
		# (the dynamic loader itself, copied above: s390x's is /lib/ld64.so.1)
		case " $done_ ${interp##*/} " in *" $l "*) continue ;; esac
		done_="$done_ $l"
		f=$(ls "$KROOT"/lib/*-linux-gnu/"$l" "$KROOT"/usr/lib/*-linux-gnu/"$l" 2>/dev/null | head -n 1)
		[ -n "$f" ] || bail "$l (needed by kmod) not in $KROOT"
		mkdir -p "$ROOT/lib/$(basename "$(dirname "$f")")"
		cp -L "$f" "$ROOT/lib/$(basename "$(dirname "$f")")/$l"
		todo="$todo $(need "$f")"
	done
fi
install -m 755 tests/kernel/init.sh "$ROOT/init"
# Uncompressed cpio: it is ~15 MB, and the guest unpacks it faster than it
# would decompress it under TCG.
(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$OUT/initrd.cpio" ||
	bail "cpio failed"
NBOOT=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$OUT/plan.json")

# ---- kernel image: PVH direct boot of the uncompressed vmlinux when the kernel
# has CONFIG_PVH (same kernel, skips ~6 s of in-guest decompression under TCG).
BOOT=${TG_BOOT:-pvh}
KERNEL=$KIMG
if [ "$GARCH" != x86_64 ]; then
	BOOT=image	# QEMU boots the image the package ships directly
elif [ "$BOOT" = pvh ] && grep -q '^CONFIG_PVH=y' "$KROOT/boot/config-$KVER" 2>/dev/null; then
	if [ ! -s "$OUT/vmlinux-$KVER" ] || [ "$KIMG" -nt "$OUT/vmlinux-$KVER" ]; then
		python3 tests/kernel/harness.py vmlinux "$KIMG" "$OUT/vmlinux-$KVER" || BOOT=bzimage
	fi
	[ "$BOOT" = pvh ] && KERNEL=$OUT/vmlinux-$KVER
else
	BOOT=bzimage
fi

# boot ACCEL IDX LOG TIMEOUT: one guest running case IDX; serial log to LOG.
# ACCEL: tcg, kvm (-cpu host) or kvm-default (QEMU's default CPU model).
# The plan may add kernel arguments for the boot (module.sig_enforce=1).
boot() {
	local accel=$1 idx=$2 log=$3 tmo=$4 opt p rc extra=
	[ -f "$OUT/append/$idx" ] && extra=$(cat "$OUT/append/$idx")
	local con=$TGA_CONSOLE
	case $accel in
	kvm) opt="-accel kvm -cpu host" ;;
	kvm-default) opt="-accel kvm" ;;
	*) opt="-accel tcg" ;;
	esac
	opt="$opt $TGA_QOPT"
	setsid timeout -k 5 "$tmo" "$TGA_QEMU" $opt -m 512 -smp 1 \
		-nographic -no-reboot -net none -kernel "$KERNEL" -initrd "$OUT/initrd.cpio" \
		-append "console=$con quiet panic=-1 tgcase=$idx${extra:+ $extra}" </dev/null >"$log" 2>&1 &
	p=$!
	: >"$PIDDIR/$p"
	wait "$p" 2>/dev/null; rc=$?
	rm -f "$PIDDIR/$p"
	return "$rc"
}
booted() { grep -q 'TGEND tainted=' "$1"; }

# ---- accelerator: KVM if it can really boot this kernel (a guest with no case
# prints TGEND and powers off), else TCG.
PIDDIR=$(mktemp -d /tmp/tg-kernel-pids.XXXXXX)
ACCEL=${TG_ACCEL:-}
if [ -z "$ACCEL" ]; then
	ACCEL=tcg
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ "$GARCH" = "$(uname -m)" ]; then
		# e.g. kvm_pvm: "-cpu host" aborts on an MSR write, the default CPU hangs.
		for a in kvm kvm-default; do
			boot "$a" probe "$OUT/probe-$a.log" 12
			if booted "$OUT/probe-$a.log"; then ACCEL=$a; break; fi
		done
	fi
fi
# A PVH boot that fails falls back to the bzImage.
if [ "$BOOT" = pvh ]; then
	boot "$ACCEL" probe "$OUT/probe-pvh.log" "$TMO"
	if ! booted "$OUT/probe-pvh.log"; then BOOT=bzimage; KERNEL=$KIMG; fi
fi
if [ "$ACCEL" = tcg ]; then
	if [ -n "${TG_ACCEL:-}" ]; then why="TCG (TG_ACCEL=tcg)"
	elif [ "$GARCH" != "$(uname -m)" ]; then why="TCG ($GARCH guest on $(uname -m))"
	elif [ -e /dev/kvm ]; then why="TCG (/dev/kvm present but KVM cannot boot this kernel)"
	else why="TCG (no /dev/kvm)"; fi
else
	why="KVM ($ACCEL)"
fi
echo "# kernel $KVER, accelerator: $why, boot: $BOOT, $NBOOT boots, $JOBS parallel"

# ---- one fresh boot per case, JOBS at a time; a boot without result is retried once.
run_one() {
	local i=$1 log=$LOGS/$(printf %03d "$1").log
	boot "$ACCEL" "$i" "$log" "$TMO"
	booted "$log" || { mv "$log" "$log.try1"; boot "$ACCEL" "$i" "$log" "$TMO"; }
}
i=0
while [ "$i" -lt "$NBOOT" ]; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
	run_one "$i" &
	i=$((i + 1))
done
wait

python3 tests/kernel/harness.py compare "$OUT/plan.json" "$LOGS" "$B/taintguard" "$KVER" "$MODS" |
	tee "$OUT/result.txt"
rc=${PIPESTATUS[0]}
echo "# $(($(date +%s) - start)) s; serial logs in $LOGS" >&2
exit "$rc"
