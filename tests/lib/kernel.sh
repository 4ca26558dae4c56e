# Sourced by every suite (bash): picks the one target kernel all suites build
# against and judge for, exports it as TG_KERNEL and says on stderr which
# kernel and why.  Order:
#   1. TG_KERNEL, as set by the caller;
#   2. TG_KVER, its deprecated alias (tests/kernel/run.sh used it);
#   2b. when the suite needs a kind of kernel (TG_KERNEL_NEED, a glob of
#      releases such as 6.1.0-*-amd64, set before sourcing): the newest
#      installed one with headers, or none (the suite then says so);
#   3. the kernel linux-headers-ARCH (the metapackage) depends on, when its
#      headers are there — what an admin who installs "the kernel" runs next;
#   4. the kernel linux-image-ARCH depends on, when /lib/modules has it;
#   5. the newest /lib/modules/* with a build/ link, then the newest at all.
# Never `uname -r`: the machine running the tests need not run the target
# kernel (CI containers, a host with 6.1 and 6.12 side by side).

# Version of the linux-headers-* / linux-image-* a Debian metapackage depends on.
tg_kernel_of_meta() { # PKG PREFIX
	dpkg-query -W -f='${Depends}' "$1" 2>/dev/null | tr ',' '\n' |
		sed -n "s/^ *$2\([^ (|]*\).*/\1/p" | head -n 1
}

# Newest installed release matching GLOB with its headers (build/Makefile)
# and its image in /boot; empty when there is none.
tg_kernel_installed() { # GLOB
	local d k
	for d in /lib/modules/$1/build/Makefile; do
		[ -e "$d" ] || continue
		k=$(basename "$(dirname "$(dirname "$d")")")
		[ -f "/boot/vmlinuz-$k" ] && echo "$k"
	done | sort -V | tail -n 1
}

tg_kernel_pick() {
	local arch k
	if [ -n "${TG_KERNEL:-}" ]; then
		TG_KERNEL_WHY=${TG_KERNEL_WHY:-"TG_KERNEL set"}
		return 0
	fi
	if [ -n "${TG_KVER:-}" ]; then
		TG_KERNEL=$TG_KVER
		TG_KERNEL_WHY="TG_KVER set (deprecated: use TG_KERNEL)"
		return 0
	fi
	if [ -n "${TG_KERNEL_NEED:-}" ]; then
		TG_KERNEL=$(tg_kernel_installed "$TG_KERNEL_NEED")
		TG_KERNEL_WHY="the newest installed $TG_KERNEL_NEED with headers: what this suite needs"
		return 0
	fi
	arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
	k=$(tg_kernel_of_meta "linux-headers-$arch" linux-headers-)
	if [ -n "$k" ] && [ -e "/lib/modules/$k/build/Makefile" ]; then
		TG_KERNEL=$k TG_KERNEL_WHY="the kernel linux-headers-$arch installs"
		return 0
	fi
	k=$(tg_kernel_of_meta "linux-image-$arch" linux-image-)
	if [ -n "$k" ] && [ -d "/lib/modules/$k" ]; then
		TG_KERNEL=$k TG_KERNEL_WHY="the kernel linux-image-$arch installs"
		return 0
	fi
	k=$(for d in /lib/modules/*/build/Makefile; do
		[ -e "$d" ] && basename "$(dirname "$(dirname "$d")")"
	done | sort -V | tail -n 1)
	if [ -n "$k" ]; then
		TG_KERNEL=$k TG_KERNEL_WHY="newest /lib/modules/* with headers (no linux-headers-$arch)"
		return 0
	fi
	k=$(ls -1 /lib/modules 2>/dev/null | sort -V | tail -n 1)
	TG_KERNEL=$k TG_KERNEL_WHY="newest /lib/modules/* (no headers installed)"
}

tg_kernel_pick
if [ -z "$TG_KERNEL" ]; then
	echo "kernel.sh: no target kernel${TG_KERNEL_NEED:+ $TG_KERNEL_NEED}: install linux-headers-amd64 (or set TG_KERNEL)" >&2
elif [ "${TG_KERNEL_SAID:-}" != "$TG_KERNEL" ]; then
	# Said once per run: nested suites inherit the choice silently.
	echo "# target kernel $TG_KERNEL ($TG_KERNEL_WHY)" >&2
fi
TG_KVER=$TG_KERNEL
TG_KERNEL_SAID=$TG_KERNEL
export TG_KERNEL TG_KVER TG_KERNEL_WHY TG_KERNEL_SAID
