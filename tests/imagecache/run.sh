#!/bin/bash
# The image cache (lib/image_cache.c, docs/cache.md) through the CLI, with two
# real kernels' files (the target's, and a second one installed or unpacked
# from its packages) copied into a scratch root (the in-tree modules
# bind-mounted read-only, in a private mount namespace) and scratch caches:
# `kernel show` and `check` of a signed in-tree module give, cold and warm,
# exactly what they give with the cache off, `kernel show` saying where the
# image's facts came from; a changed image, a planted entry with the wrong
# owner or mode, a directory others can write, a truncated entry and one with
# a bad checksum are not believed (entries are rewritten, the directory is
# not); a read-only cache, empty or full, changes no output; an unprivileged
# user reads root's cache and writes none.  Needs root.
set -u
cd "$(dirname "$0")/../.."
B=${B:-build}
TG=$PWD/$B/taintguard
pass=0 fail=0 skipped=0

if [ "$(id -u)" -ne 0 ]; then echo "0 passed, 0 failed, 1 skipped (needs root)"; exit 0; fi
if [ -z "${TG_IMAGECACHE_NS:-}" ]; then
	TG_IMAGECACHE_NS=1 exec unshare -m --propagation private "$0" "$@"
fi

ok() { echo "ok - $*"; pass=$((pass + 1)); }
no() { echo "not ok - $*"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else no "$what"; fi; }

T=$(mktemp -d /tmp/tg-imagecache.XXXXXX)
chmod 755 "$T"
cleanup() {
	grep -o " $T[^ ]*" /proc/self/mounts | sort -r | while read -r m; do umount "$m"; done
	rm -rf "$T"
}
trap cleanup EXIT

# A root for kernel $1, whose files are under $2 (empty: the host's): image,
# System.map and .config copied (they are changed below), Module.symvers
# copied, the in-tree modules bind-mounted read-only.
make_root() {
	local r=$1 src=$2 root=$T/root-$1
	mkdir -p "$root/boot" "$root/lib/modules/$r/kernel" "$root/lib/modules/$r/build"
	cp "$src/boot/vmlinuz-$r" "$src/boot/config-$r" "$root/boot/"
	[ ! -f "$src/boot/System.map-$r" ] || cp "$src/boot/System.map-$r" "$root/boot/"
	cp "$src/lib/modules/$r/build/Module.symvers" "$root/lib/modules/$r/build/"
	mount --bind "$src/lib/modules/$r/kernel" "$root/lib/modules/$r/kernel"
	mount -o remount,bind,ro "$root/lib/modules/$r/kernel"
	echo "$root"
}

# What the CLI says about kernel $1 in root $2 with cache $3 ("off" for none).
show() { TAINTGUARD_IMAGE_CACHE=$3 "$TG" kernel show --root "$2" "$1"; }
judge() {
	TAINTGUARD_IMAGE_CACHE=$3 "$TG" check --root "$2" --kernel "$1" -f json \
		"$2"/lib/modules/"$1"/kernel/drivers/net/dummy.ko*
}
uncached() { sed -e 's| (cache [^)]*)||'; }
entries() { find "$1" -maxdepth 1 -type f -name '[0-9a-f]*' | wc -l; }
sha() { sha256sum "$1" | cut -c1-64; }

# Two kernels, so that both an xz image (Debian 12's 6.1) and a zstd one (6.12)
# are cached: the target and a second one, the host's or unpacked from
# Debian's packages (tests/lib/second_kernel.sh).
. tests/lib/kernel.sh
. tests/lib/second_kernel.sh
KERNELS="$TG_KERNEL:"
if tg_second_kernel "$TG_KERNEL"; then
	KERNELS="$KERNELS $K2:$K2R"
else
	echo "skip - a second kernel: none installed beside $TG_KERNEL, and none could be fetched"
	skipped=$((skipped + 1))
fi
for rs in $KERNELS; do
	r=${rs%%:*} src=${rs#*:}
	if [ ! -r "$src/boot/vmlinuz-$r" ] || [ ! -r "$src/lib/modules/$r/build/Module.symvers" ] ||
	   ! compgen -G "$src/lib/modules/$r/kernel/drivers/net/dummy.ko*" > /dev/null; then
		echo "skip - $r: its image, Module.symvers or dummy.ko is not there${src:+ (under $src)}"
		skipped=$((skipped + 1))
		continue
	fi
	root=$(make_root "$r" "$src")
	img=$root/boot/vmlinuz-$r
	C=$T/cache-$r/images	# made by the first run: its parent exists
	mkdir "$T/cache-$r"
	E=$C/$(sha "$img")
	base_show=$(show "$r" "$root" off)
	base_judge=$(judge "$r" "$root" off)
	check "$r: the baseline verifies dummy.ko's signature with the image's keys" \
		grep -q '"signature": "verified"' <<< "$base_judge"

	cold=$(show "$r" "$root" "$C")
	check "$r: cold kernel show equals the uncached one" test "$cold" = "$base_show"
	check "$r: the cold run wrote one entry, root's, 0644" \
		test "$(entries "$C"):$(stat -c %u:%a "$E" 2>/dev/null)" = "1:0:644"
	warm=$(show "$r" "$root" "$C")
	check "$r: warm kernel show says the cache entry" grep -q "found in $img (cache $E" <<< "$warm"
	check "$r: warm kernel show equals the uncached one but for the cache" \
		test "$(uncached <<< "$warm")" = "$base_show"
	check "$r: warm check equals the uncached one" test "$(judge "$r" "$root" "$C")" = "$base_judge"

	# a second after the files last changed: a memo of their identity
	# (lib/image_memo.c), then the entry is found without reading them
	sleep 1.1
	show "$r" "$root" "$C" > /dev/null
	M=$(find "$C" -maxdepth 1 -name 'id-*' | head -n 1)
	check "$r: a run a second after the files changed writes a memo of them, root's, 0644" \
		test "${M:+$(stat -c %u:%a:%s "$M")}" = "0:644:248"
	memo() {	# what kernel show says, with the memo $M
		out=$(show "$r" "$root" "$C")
		check "$r: $1: kernel show unchanged" test "$(uncached <<< "$out")" = "$base_show"
		check "$r: $1: check unchanged" test "$(judge "$r" "$root" "$C")" = "$base_judge"
	}
	memo "the memo"
	check "$r: ... found the entry by the memo" grep -q "found in $img (cache $E by memo $M)" <<< "$out"
	if command -v strace > /dev/null; then
		TAINTGUARD_IMAGE_CACHE=$C strace -f -y -e trace=read,pread64,mmap -o "$T/strace" \
			"$TG" kernel show --root "$root" "$r" > /dev/null
		check "$r: ... and read neither the image nor System.map" \
			test "$(grep -cE "<$root/boot/(vmlinuz|System\.map)-" "$T/strace")" = 0
	else
		echo "skip - $r: strace is not installed (the memo's run reading neither file)"
		skipped=$((skipped + 1))
	fi
	chown nobody "$M"
	memo "a memo owned by nobody"
	check "$r: ... is not believed (the entry is found by the files' digest)" \
		grep -q "found in $img (cache $E)" <<< "$out"
	check "$r: ... and is rewritten, root's" test "$(stat -c %u "$M")" = 0
	truncate -s -1 "$M"
	memo "a truncated memo"
	check "$r: ... is not believed" grep -q "found in $img (cache $E)" <<< "$out"
	dd if=/dev/zero of="$M" bs=1 seek=160 count=4 conv=notrunc status=none
	memo "a memo naming another entry (bad checksum)"
	check "$r: ... is not believed" grep -q "found in $img (cache $E)" <<< "$out"
	changed=$img
	[ ! -f "$root/boot/System.map-$r" ] || changed=$root/boot/System.map-$r
	touch "$changed"
	out=$(show "$r" "$root" "$C")
	# the memo rule counts whole seconds (lib/image_memo.c settled()): a memo is
	# due once the clock's second is past the file's ctime's, however close
	n=$(find "$C" -maxdepth 1 -name 'id-*' | wc -l) t1=$(date +%s)
	check "$r: files changed this second (a new ctime): kernel show unchanged" \
		test "$(uncached <<< "$out")" = "$base_show"
	check "$r: ... read again (the old identity's memo is not theirs)" \
		grep -q "found in $img (cache $E)" <<< "$out"
	if [ "$t1" -le "$(stat -c %Z "$changed")" ]; then
		check "$r: ... and no memo for them yet (id- files: $n)" test "$n" = 1
	else
		echo "skip - $r: no memo for files changed this second (the run ended in the next second: they settled)"
		skipped=$((skipped + 1))
	fi

	# one byte changed at the end of the image: not this entry's image
	cp "$img" "$T/saved"
	printf '\x5a' | dd of="$img" bs=1 seek=$(($(stat -c %s "$img") - 1)) conv=notrunc status=none
	out=$(show "$r" "$root" "$C")
	check "$r: a changed image is not served from the cache" test "$(uncached <<< "$out")" = "$out"
	check "$r: ... gets an entry of its own" test "$(entries "$C")" = 2
	check "$r: ... and is warm next time" grep -q "(cache $C/$(sha "$img")" <<< "$(show "$r" "$root" "$C")"
	cp "$T/saved" "$img"

	# spoilt entries: not believed, the same output, rewritten
	spoil() {
		local what=$1; shift
		"$@"
		out=$(show "$r" "$root" "$C")
		check "$r: $what: not believed" test "$out" = "$base_show"
		check "$r: $what: check unchanged" test "$(judge "$r" "$root" "$C")" = "$base_judge"
		check "$r: $what: rewritten (root's, 0644, believed again)" \
			test "$(stat -c %u:%a "$E"):$(show "$r" "$root" "$C" | grep -c "(cache $E")" = "0:644:$(grep -c "(cache $E" <<< "$warm")"
	}
	spoil "entry owned by nobody" chown nobody "$E"
	spoil "entry mode 0666" chmod 0666 "$E"
	spoil "truncated entry" truncate -s -7 "$E"
	spoil "entry with a bad checksum" \
		dd if=/dev/zero of="$E" bs=1 seek=150 count=4 conv=notrunc status=none

	chmod 0777 "$C"
	ino=$(stat -c %i "$E")
	check "$r: a directory others can write is not used" test "$(show "$r" "$root" "$C")" = "$base_show"
	check "$r: ... nor written" test "$(stat -c %i "$E")" = "$ino"
	chmod 0755 "$C"

	# read-only: an empty tmpfs, then one holding the entry
	ro=$T/ro-$r
	mkdir -p "$ro"
	mount -t tmpfs -o ro,mode=0755 tmpfs "$ro"
	check "$r: an empty read-only cache: kernel show unchanged" test "$(show "$r" "$root" "$ro")" = "$base_show"
	check "$r: ... check unchanged" test "$(judge "$r" "$root" "$ro")" = "$base_judge"
	mount -o remount,rw "$ro"
	cp -p "$E" "$ro/"
	mount -o remount,ro "$ro"
	out=$(show "$r" "$root" "$ro")
	check "$r: a full read-only cache is read" grep -q "(cache $ro/" <<< "$out"
	check "$r: ... kernel show unchanged but for the cache" test "$(uncached <<< "$out")" = "$base_show"
	check "$r: ... check unchanged" test "$(judge "$r" "$root" "$ro")" = "$base_judge"

	# an unprivileged user: reads root's cache, writes no entry to it
	if setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$TG"; then
		U=$T/cache-user-$r
		mkdir -m 0755 "$U"
		out=$(TAINTGUARD_IMAGE_CACHE=$C setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$TG" kernel show --root "$root" "$r")
		check "$r: nobody reads root's cache" grep -q "(cache $E" <<< "$out"
		TAINTGUARD_IMAGE_CACHE=$U setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$TG" kernel show --root "$root" "$r" > /dev/null
		check "$r: ... and writes nothing into a root-owned one" test "$(entries "$U")" = 0
	else
		echo "skip - $r: nobody cannot run $TG (its directories are closed)"
		skipped=$((skipped + 1))
	fi
done
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
