#!/bin/bash
# Debian chroots for the suites that need another Debian release than the
# host's (rpm 4.20 and 6.1, dnf5, newer kernels' kbuild): made once with
# mmdebstrap from a description in tests/lib/chroots/NAME.conf, kept under
# $TG_CHROOT_DIR (default /var/tmp/taintguard-chroots) and remade when the
# description changes.  Never touches the host's apt sources.
#
# Usage: tests/lib/chroot.sh path NAME          make it if needed; print its directory
#        tests/lib/chroot.sh run NAME [--bind DIR]... -- CMD [ARG...]
#                                               run CMD inside (as root), with /dev,
#                                               /proc and each DIR (same path inside)
#                                               mounted in a private mount namespace
#                                               that vanishes with the command
#        tests/lib/chroot.sh run NAME --scratch ... the same over a tmpfs overlay:
#                                               what CMD writes vanishes with it, the
#                                               cached chroot stays as it was made
#
# NAME.conf is sourced by bash and sets:
#   suite=SUITE          Debian suite (trixie, sid, ...)
#   sources="LINE..."    apt source lines (default: deb.debian.org SUITE main)
#   packages="PKG..."    packages to install (apt syntax, pkg/release allowed)
#
# The archive's release files here are past their Valid-Until date, hence
# Acquire::Check-Valid-Until "false".  Needs root and mmdebstrap.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${TG_CHROOT_DIR:-/var/tmp/taintguard-chroots}

die() { echo "chroot.sh: error: $*" >&2; exit 1; }

conf_of() {
	local f=$here/chroots/$1.conf
	[ -f "$f" ] || die "no chroot description $f"
	echo "$f"
}

# Make chroot NAME unless an up-to-date one exists; print its directory.
make_chroot() {
	local name=$1 conf dir stamp want suite sources packages line
	conf=$(conf_of "$name")
	dir=$CACHE/$name
	stamp=$dir.stamp
	want=$(sha256sum "$conf" | cut -d' ' -f1)
	mkdir -p "$CACHE"
	exec 9>"$dir.lock"
	flock 9		# two suites may ask for the same chroot at once
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d "$dir/usr" ]; then
		echo "$dir"
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || die "making chroot $name needs root"
	command -v mmdebstrap >/dev/null || die "mmdebstrap not found (apt-get install mmdebstrap)"
	suite=; sources=; packages=
	# shellcheck disable=SC1090
	. "$conf"
	[ -n "$suite" ] || die "$conf: suite= is empty"
	[ -n "$sources" ] || sources="deb http://deb.debian.org/debian $suite main"
	rm -rf "$dir" "$stamp"
	local args=(--variant=apt --aptopt='Acquire::Check-Valid-Until "false"'
		--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
		--dpkgopt='path-include=/usr/share/doc/*/copyright')
	# shellcheck disable=SC2086
	[ -z "$(echo $packages)" ] || args+=(--include="$(echo $packages | tr ' ' ',')")
	local srcargs=()
	while IFS= read -r line; do
		[ -n "$line" ] && srcargs+=("$line")
	done <<<"$sources"
	echo "chroot.sh: making $name ($suite) in $dir" >&2
	local t0=$SECONDS
	if ! mmdebstrap "${args[@]}" "$suite" "$dir" "${srcargs[@]}" >"$dir.log" 2>&1; then
		tail -n 30 "$dir.log" >&2
		rm -rf "$dir"
		die "mmdebstrap failed for $name (log: $dir.log)"
	fi
	echo "$want" >"$stamp"
	echo "chroot.sh: $name ready in $((SECONDS - t0)) s" >&2
	echo "$dir"
}

run_in() {
	local name=$1; shift
	local binds=() dir scratch= rc=0
	while [ $# -gt 0 ]; do
		case $1 in
		--bind) binds+=("$2"); shift 2 ;;
		--scratch) scratch=$(mktemp -d /tmp/tg-scratch.XXXXXX); shift ;;
		--) shift; break ;;
		*) die "run: expected --bind DIR, --scratch or --, got '$1'" ;;
		esac
	done
	[ $# -gt 0 ] || die "run: no command"
	dir=$(make_chroot "$name")
	# A private mount namespace: the mounts go away with the command, even
	# when it is killed.
	unshare --mount --propagation private -- bash -euc '
		dir=$1; shift; scratch=$1; shift; n=$1; shift
		if [ -n "$scratch" ]; then
			# the overlay'"'"'s layers in a tmpfs: gone with the namespace
			mount -t tmpfs -o mode=700 tg-scratch "$scratch"
			mkdir "$scratch/upper" "$scratch/work" "$scratch/root"
			mount -t overlay tg-scratch -o "lowerdir=$dir,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root"
			dir=$scratch/root
		fi
		mount --rbind /dev "$dir/dev"
		mount -t proc proc "$dir/proc"
		for ((i = 0; i < n; i++)); do
			mkdir -p "$dir$1"; mount --bind "$1" "$dir$1"; shift
		done
		exec chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LANG=C.UTF-8 TERM="${TERM:-dumb}" "$@"
	' _ "$dir" "$scratch" "${#binds[@]}" "${binds[@]}" "$@" || rc=$?
	[ -z "$scratch" ] || rmdir "$scratch"
	return "$rc"
}

case ${1:-} in
path) [ $# -eq 2 ] || die "usage: chroot.sh path NAME"; make_chroot "$2" ;;
run) [ $# -ge 2 ] || die "usage: chroot.sh run NAME [--scratch] [--bind DIR]... -- CMD"; shift; run_in "$@" ;;
*) die "usage: chroot.sh path NAME | run NAME [--scratch] [--bind DIR]... -- CMD [ARG...]" ;;
esac
