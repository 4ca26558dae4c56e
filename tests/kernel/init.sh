#!/bin/sh
# /init of the taintguard kernel-test initramfs (runs as PID 1 in the guest).
# The host picks one case with "tgcase=N" on the kernel command line; /tg/cases/N
# lists what to load: lines "pre FILE" (loaded first, e.g. providers) then one
# "load FILE".  Everything is reported on the serial console as TG* lines; the
# host (tests/kernel/compare.py) parses them.  Then the guest powers off.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /tmp /lib/modules/"$(uname -r)"

# printk to the console only for emergencies; the kernel log is read with dmesg.
echo 1 >/proc/sys/kernel/printk

idx=
for w in $(cat /proc/cmdline); do
	case $w in tgcase=*) idx=${w#tgcase=} ;; esac
done

mods() { echo "-"; cut -d" " -f1 /proc/modules; }
taint() { cat /proc/sys/kernel/tainted; }

echo "TGBEGIN idx=$idx kernel=$(uname -r)"
echo "TGBOOT tainted=$(taint)"
if [ -z "$idx" ] || [ ! -f "/tg/cases/$idx" ]; then
	echo "TGERROR no case $idx"
else
	dmesg -c >/tmp/boot.log
	while read -r kind file; do
		[ -n "$kind" ] || continue
		mods >/tmp/m0
		before=$(taint)
		dmesg -c >/dev/null
		/sbin/insmod "/tg/m/$file" >/tmp/out 2>&1
		rc=$?
		after=$(taint)
		mods >/tmp/m1
		echo "TGLOAD kind=$kind file=$file rc=$rc tainted_before=$before tainted_after=$after"
		while IFS= read -r l; do echo "TGMSG $l"; done </tmp/out
		for m in $(grep -vxF -f /tmp/m0 /tmp/m1); do
			t=$(cat "/sys/module/$m/taint" 2>/dev/null)
			echo "TGMOD name=$m taint=${t:-none} proc=$(grep "^$m " /proc/modules | sed -n 's/.*(\([A-Z]*\)).*/\1/p')"
		done
		dmesg -c >/tmp/k
		while IFS= read -r l; do echo "TGDMESG $l"; done </tmp/k
	done <"/tg/cases/$idx"
fi
echo "TGEND tainted=$(taint)"
sync
poweroff -f
# poweroff failed: panic (panic=-1 reboots; qemu -no-reboot exits)
echo o >/proc/sysrq-trigger
