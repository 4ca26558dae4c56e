# Sourced by tests/rpm/run.sh (its pkg, mkroot, rpmx, check): a full,
# read-only or failing disk under the mark records and under the image cache
# (issue 26), on real filesystems: a 2 MiB ext4 on a loop device, filled up,
# remounted read-only, or failing: the loop device shrunk to nothing under the
# mounted filesystem (backing file truncated, losetup -c), so every write that
# reaches the disk fails with EIO from the block layer, as with
# device-mapper's error target swapped in (which needs a kernel with dm).
# Everything is mounted in a private mount namespace that only the commands
# run through "ns" see; nothing reaches the host's mount table.

TG=$REPO/$B/taintguard
disk_skip=""
for t in unshare nsenter losetup mkfs.ext4 truncate; do
	command -v $t >/dev/null || disk_skip="no $t"
done
[ -n "$disk_skip" ] || [ -e /dev/loop-control ] || disk_skip="no /dev/loop-control"
if [ -z "$disk_skip" ]; then
	unshare -m --propagation private sleep 300 &	# the namespace ends with it, even if the suite bails
	DISK_NS=$!
	for i in $(seq 50); do
		[ "$(readlink "/proc/$DISK_NS/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] && break
		sleep 0.05
	done
	[ "$(readlink "/proc/$DISK_NS/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] ||
		disk_skip="unshare -m did not make a mount namespace"
fi
ns() { nsenter -t "$DISK_NS" -m -- "$@"; }
DISK_MOUNTS=()
DISK_N=0
# tinyfs DIR full|ro|eio|ok: a 2 MiB ext4 on a loop device, mounted on DIR in
# the namespace, with SUBDIR (the records' or the cache's directory) in it
tinyfs() {
	local dir=$1 kind=$2 sub=$3 back dev
	DISK_N=$((DISK_N + 1))
	back=$W/disk-$DISK_N
	mkdir -p "$back" "$dir"
	ns truncate -s 2M "$back/img" &&
		ns mkfs.ext4 -q -F -m 0 -b 1024 -E nodiscard "$back/img" &&
		ns mount -o loop "$back/img" "$dir" || return 1
	DISK_MOUNTS+=("$dir")
	ns mkdir -m 755 -p "$dir/$sub"
	case $kind in
	full) ns dd if=/dev/zero of="$dir/fill" bs=1k 2>/dev/null || true ;;
	ro) ns mount -o remount,ro "$dir" ;;
	eio) ns sync -f "$dir"
		dev=$(ns losetup -j "$back/img" | cut -d: -f1)
		ns truncate -s 0 "$back/img" && ns losetup -c "$dev" ;;
	esac
}
# unmount in reverse order; mount -o loop frees its loop device on umount
untinyfs() {
	local i
	for ((i = ${#DISK_MOUNTS[@]} - 1; i >= 0; i--)); do
		ns umount "${DISK_MOUNTS[i]}" || ns umount -l "${DISK_MOUNTS[i]}"
	done
	DISK_MOUNTS=()
}
# rpm and status see the namespace's mounts
rpm() { nsenter -t "$DISK_NS" -m -- rpm "$@"; }
cause() {
	case $1 in
	full) echo "No space left on device" ;;
	ro) echo "Read-only file system" ;;
	eio) echo "Input/output error" ;;
	esac
}

disk_records() {	# disk_records KIND: the records directory on a broken disk
	local kind=$1 c marks st src
	c=$(cause "$kind")
	mkroot
	marks=$R/var/lib/taintguard/marks
	tinyfs "$R/var/lib/taintguard" "$kind" marks || { nok "records, $kind: cannot make the filesystem"; untinyfs; return; }
	rpmx -ivh "$(P tg-lve)"
	check "records disk $kind: a refusal still refuses (exit $RC)" \
		bash -c "test $RC != 0 && grep -q 'refusing to install tg-lve-1.0-1.noarch' <<<\"\$0\"" "$OUT"
	check "records disk $kind: the refused package is not installed" ! installed tg-lve
	rpmx -ivh "$(P tg-prop)"
	check "records disk $kind: a mark that cannot be recorded is refused, naming the directory and '$c' (exit $RC)" \
		bash -c "test $RC != 0 && grep -qF 'refusing to install tg-prop-1.0-1.noarch: its mark record cannot be written: /var/lib/taintguard/marks/' <<<\"\$0\" && grep -qF '$c' <<<\"\$0\"" "$OUT"
	[ "$RC" != 0 ] || show
	check "records disk $kind: not installed, no file of it" \
		bash -c "! rpm --root '$R' --dbpath /var/lib/rpm -q tg-prop && test ! -e '$R$MD/propplain.ko'"
	check "records disk $kind: no partial record" test -z "$(ns ls -A "$marks")"
	rpmx -ivh --define '_taintguard_mode warn' "$(P tg-prop)"
	[ "$RC" = 0 ] || show
	check "records disk $kind: warn mode installs it, warning with '$c' (exit $RC)" \
		bash -c "test $RC = 0 && rpm --root '$R' --dbpath /var/lib/rpm -q tg-prop && grep -qF 'tg-prop-1.0-1.noarch: cannot write the mark record: /var/lib/taintguard/marks/' <<<\"\$0\" && grep -qF '$c' <<<\"\$0\"" "$OUT"
	set +e
	st=$(ns "$TG" status --root "$R" --dbpath /var/lib/rpm 2>&1); src=$?
	set -e
	check "records disk $kind: status lists it as unrecorded (exit $src = 5)" \
		bash -c "test $src = 5 && grep -q '^tg-prop-1.0-1.noarch (rpm): mark \[unrecorded: judged now\]' <<<\"\$0\"" "$st"
	untinyfs
}

# check's JSON and rpm's taintguard lines with the image cache at $1
cache_run() {
	local c=$1 tag=$2 p
	set +e
	TAINTGUARD_IMAGE_CACHE=$c ns "$TG" check --root "$R" --kernel "$K" -f json \
		"$MODS/dist/dummy.ko" "$MODS/sig/dummy_modified.ko" >"$W/check-$tag.json" 2>"$W/check-$tag.err"
	echo "rc $?" >>"$W/check-$tag.json"
	set -e
	: >"$W/rpm-$tag.txt"
	for p in tg-badsig tg-distsig; do	# one file each: two transactions
		TAINTGUARD_IMAGE_CACHE=$c rpmx -ivh "$(P $p)"
		{ echo "rc $RC"; grep taintguard <<<"$OUT" || true
		  rpm --root "$R" --dbpath /var/lib/rpm -q $p || true; } >>"$W/rpm-$tag.txt"
	done
	rpmx -e tg-distsig
}

disk_cache() {	# disk_cache KIND: the image cache on a broken disk
	local kind=$1
	tinyfs "$W/icache" "$kind" images || { nok "image cache, $kind: cannot make the filesystem"; untinyfs; return; }
	cache_run "$W/icache/images" "$kind"
	check "image cache disk $kind: check's output is the one without a cache" cmp "$W/check-off.json" "$W/check-$kind.json"
	check "image cache disk $kind: rpm's verdicts and messages are the ones without a cache" cmp "$W/rpm-off.txt" "$W/rpm-$kind.txt"
	[ "$fail" -eq 0 ] || diff "$W/rpm-off.txt" "$W/rpm-$kind.txt" | sed 's/^/#   /'
	untinyfs
}

if [ -n "$disk_skip" ]; then
	echo "# disk cases not run: $disk_skip"
else
	# device-mapper's error target would be the other way to EIO
	[ -e /dev/mapper/control ] || echo "# no /dev/mapper/control here: EIO comes from an exhausted loop backing store"
	for kind in full ro eio; do
		disk_records "$kind"
	done

	mkroot
	mkdir -p "$R/boot"
	cp "/boot/vmlinuz-$K" "$R/boot/"
	cache_run off off
	check "image cache off: the changed signed module refused, the distribution's installed" \
		bash -c "grep -qx 'rc 1' '$W/rpm-off.txt' && grep -qx 'rc 0' '$W/rpm-off.txt' && grep -q 'refused tg-badsig' '$W/rpm-off.txt' && grep -qx 'tg-distsig-1.0-1.noarch' '$W/rpm-off.txt'"
	for kind in full eio; do
		disk_cache "$kind"
	done
	# read-only after a first run filled it: read, never rewritten
	tinyfs "$W/icache" ok images
	TAINTGUARD_IMAGE_CACHE=$W/icache/images ns "$TG" check --root "$R" --kernel "$K" "$MODS/dist/dummy.ko" >/dev/null 2>&1 || true
	check "image cache: the first run wrote an entry" test -n "$(ns ls -A "$W/icache/images")"
	ns mount -o remount,ro "$W/icache"
	cache_run "$W/icache/images" ro
	check "image cache disk ro (warm): check's output is the one without a cache" cmp "$W/check-off.json" "$W/check-ro.json"
	check "image cache disk ro (warm): rpm's verdicts and messages are the ones without a cache" cmp "$W/rpm-off.txt" "$W/rpm-ro.txt"
	check "image cache disk ro (warm): kernel show reads the entry" \
		bash -c "TAINTGUARD_IMAGE_CACHE='$W/icache/images' nsenter -t $DISK_NS -m -- '$TG' kernel show --root '$R' '$K' 2>&1 | grep -qF '(cache $W/icache/images/'"
	untinyfs
	kill "$DISK_NS" 2>/dev/null || true
	wait "$DISK_NS" 2>/dev/null || true
fi
unset -f rpm
