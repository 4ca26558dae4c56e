# shellcheck shell=bash
# A second kernel beside the target, for the tests of a kernel update (a
# kernel package whose kernel would refuse a module of the root): its image,
# .config, Module.symvers and in-tree dummy.ko are all these tests need.
# One the host has installed when there is one; else one unpacked from
# Debian's packages by tests/kernel/target.sh (bookworm-backports' 6.12, or
# trixie-backports' newest 7.x when the target is a 6.12), never installed
# on the host: a fresh Debian 12 has only the kernel linux-image-amd64 gave it.
# Source from the top of the tree.
#
# tg_second_kernel TARGET: sets K2 (its release) and K2R (the directory its
# files are under: empty for the host's own); returns 1 when there is none
# (no second kernel installed and no network).
tg_second_kernel() {
	local target=$1 d k spec out
	K2= K2R=
	for d in /lib/modules/*; do
		k=${d##*/}
		if [ "$k" != "$target" ] && [ -f "/boot/vmlinuz-$k" ] && [ -f "/boot/config-$k" ] &&
			[ -f "/usr/src/linux-headers-$k/Module.symvers" ]; then
			K2=$k
			return 0
		fi
	done
	case $target in 6.12.*) spec=7 ;; *) spec=6.12 ;; esac
	out=$(tests/kernel/target.sh "$spec" 2>/dev/null) || return 1
	# shellcheck disable=SC2086
	set -- $out
	[ -f "$1/boot/vmlinuz-$2" ] && [ -f "$1/boot/config-$2" ] &&
		[ -f "$1/usr/src/linux-headers-$2/Module.symvers" ] || return 1
	K2=$2 K2R=$1
	echo "# second kernel: $K2, unpacked from its packages under $K2R (none installed beside $target)"
}
