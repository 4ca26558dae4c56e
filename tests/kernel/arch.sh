# The architectures the real-kernel harness boots, one row each: sourced by
# tests/kernel/target.sh (which Debian packages), tests/modules/build.sh (how
# kbuild cross-compiles) and tests/kernel/run.sh (how QEMU boots the guest).
#
# tg_arch_by KEY VALUE sets the row's fields for the architecture whose KEY
# (debarch, flavour or config) is VALUE; returns 1 if there is none:
#   TGA_DEBARCH  Debian architecture (dpkg --print-architecture)
#   TGA_FLAVOUR  Debian kernel flavour, the release's suffix (6.1.0-57-FLAVOUR)
#   TGA_CONFIG   the option the kernel's .config sets for it
#   TGA_UNAME    uname -m of a guest (and the host, when they agree)
#   TGA_KARCH    kbuild's ARCH=
#   TGA_CROSS    cross compiler prefix (CROSS_COMPILE=) and its Debian package
#   TGA_QEMU     qemu-system binary and its Debian package
#   TGA_QOPT     QEMU machine and CPU options ("-": none)
#   TGA_CONSOLE  the guest's console= device
#   TGA_IMAGE    the file Debian's image package ships in /boot, which QEMU boots
#                (vmlinuz-KVER; ppc64el ships the ELF vmlinux-KVER)
# Guests other than the host's run under TCG: these are its cheapest options.
#   arm64: QEMU's virt board; pauth-impdef: cheap pointer authentication.
#   s390x: the virtio-ccw machine; the SCLP line console.
#   ppc64el: pseries (the firmware SLOF loads the ELF vmlinux); hypervisor console.
TG_ARCHES='
#debarch flavour     config        uname   karch   cross                  crosspkg                   qemu                qemupkg          qopt                             console  image
amd64     amd64       CONFIG_X86_64 x86_64  x86     x86_64-linux-gnu-      gcc-x86-64-linux-gnu       qemu-system-x86_64  qemu-system-x86  -                                ttyS0    vmlinuz
arm64     arm64       CONFIG_ARM64  aarch64 arm64   aarch64-linux-gnu-     gcc-aarch64-linux-gnu      qemu-system-aarch64 qemu-system-arm  -M|virt|-cpu|max,pauth-impdef=on ttyAMA0  vmlinuz
s390x     s390x       CONFIG_S390   s390x   s390    s390x-linux-gnu-       gcc-s390x-linux-gnu        qemu-system-s390x   qemu-system-misc -M|s390-ccw-virtio               ttysclp0 vmlinuz
ppc64el   powerpc64le CONFIG_PPC64  ppc64le powerpc powerpc64le-linux-gnu- gcc-powerpc64le-linux-gnu  qemu-system-ppc64   qemu-system-ppc  -M|pseries                       hvc0     vmlinux
'

tg_arch_by() { # KEY VALUE
	local col row
	case $1 in debarch) col=1 ;; flavour) col=2 ;; config) col=3 ;; *) return 2 ;; esac
	row=$(awk -v c="$col" -v v="$2" '!/^#/ && NF && $c == v { print; exit }' <<<"$TG_ARCHES")
	[ -n "$row" ] || return 1
	read -r TGA_DEBARCH TGA_FLAVOUR TGA_CONFIG TGA_UNAME TGA_KARCH TGA_CROSS TGA_CROSSPKG \
		TGA_QEMU TGA_QEMUPKG TGA_QOPT TGA_CONSOLE TGA_IMAGE <<<"$row"
	TGA_QOPT=${TGA_QOPT//|/ }
	[ "$TGA_QOPT" != - ] || TGA_QOPT=
}

# tg_arch_of_config FILE: the row of the kernel whose .config is FILE
# (amd64 when it names none of them).
tg_arch_of_config() {
	local c
	for c in $(awk '!/^#/ && NF { print $3 }' <<<"$TG_ARCHES"); do
		if grep -q "^$c=y" "$1" 2>/dev/null; then tg_arch_by config "$c"; return; fi
	done
	tg_arch_by debarch amd64
}
