/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The image cache (lib/image_cache.c) with the target kernel's real image,
 * copied into a scratch directory with a scratch cache beside it: a warm
 * read decodes nothing and gives exactly the cold read's keys and loader
 * facts; a changed image, an entry of another image, an entry with the wrong
 * owner or mode, a directory others can write, a truncated entry and one
 * with a bad checksum are never believed (the last ones are rewritten); a
 * smaller image limit fails as a decoding would.  The decoding counter is
 * the library's own (tg_image_cache_decodes()).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "image_cache.h"
#include "keyring.h"
#include "loader_facts.h"
#include "target.h"

#define IMAGE_FMT "/boot/vmlinuz-%s"

struct scratch {
	char dir[64];		/* mkdtemp: DIR/vmlinuz, DIR/images/ */
	char image[96], cache[96], entry[192];
};

/* What a read of the image gave, to compare cold and warm reads. */
struct seen {
	int r;
	size_t n;
	char source[512], first_id[256], why[TG_ERRMAX];
	unsigned bits;
	bool cached;
	unsigned long decoded;	/* decodings the read made */
};

static void copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

/* The entry's name: the SHA-256 of the file. */
static void entry_of(const char *image, const char *cache, char *out, size_t len)
{
	unsigned char md[32];
	char hex[65];
	void *buf;
	size_t n;

	assert_int_equal(tg_read_path(image, 1u << 30, &buf, &n, NULL), 0);
	EVP_Digest(buf, n, md, NULL, EVP_sha256(), NULL);
	free(buf);
	for (int i = 0; i < 32; i++)
		sprintf(hex + 2 * i, "%02x", md[i]);
	snprintf(out, len, "%s/%s", cache, hex);
}

static int setup(void **state)
{
	struct scratch *s;

	if (!target_has(IMAGE_FMT))
		return 0;
	s = calloc(1, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "/tmp/tg-image-cache.XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	snprintf(s->image, sizeof(s->image), "%s/vmlinuz", s->dir);
	snprintf(s->cache, sizeof(s->cache), "%s/images", s->dir);
	copy_file(target_path(IMAGE_FMT), s->image);
	entry_of(s->image, s->cache, s->entry, sizeof(s->entry));
	setenv(TG_IMAGE_CACHE_ENV, s->cache, 1);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct scratch *s = *state;
	char cmd[128];

	if (!s)
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	assert_int_equal(system(cmd), 0);
	free(s);
	unsetenv(TG_IMAGE_CACHE_ENV);
	return 0;
}

#define SCRATCH(state) \
	struct scratch *s = *(state); \
	if (!s) \
		skip()

/* Read @image as a kernel's lazy keyring does, under an image limit of @cap (0: default). */
static void read_image(const char *image, uint64_t cap, struct seen *o)
{
	struct tg_limits lim;
	struct tg_error e = { 0 };
	struct tg_cert_info ci;
	struct tg_keyring *kr;
	unsigned long before = tg_image_cache_decodes();

	tg_limits_default(&lim);
	if (cap)
		lim.max_kernel_image_size = cap;
	memset(o, 0, sizeof(*o));
	kr = tg_keyring_lazy(image, NULL, &lim);
	assert_non_null(kr);
	o->r = tg_keyring_ensure(kr, &e);
	snprintf(o->why, sizeof(o->why), "%s", e.msg);
	o->n = tg_keyring_count(kr);
	snprintf(o->source, sizeof(o->source), "%s", tg_keyring_source(kr));
	if (tg_keyring_cert(kr, 0, &ci) == 0)
		snprintf(o->first_id, sizeof(o->first_id), "%s", ci.id);
	o->bits = tg_keyring_loader_bits(kr, o->why + strlen(o->why), 1);
	o->cached = tg_keyring_cache_entry(kr) != NULL;
	o->decoded = tg_image_cache_decodes() - before;
	tg_keyring_free(kr);
}

static void assert_same(const struct seen *a, const struct seen *b)
{
	assert_int_equal(a->r, b->r);
	assert_int_equal(a->n, b->n);
	assert_string_equal(a->source, b->source);
	assert_string_equal(a->first_id, b->first_id);
	assert_int_equal(a->bits, b->bits);
	assert_string_equal(a->why, b->why);
}

/* A cold read that decodes, then a warm one that does not: the same keys and facts. */
static void warm_up(const struct scratch *s, struct seen *cold)
{
	struct seen warm;

	read_image(s->image, 0, cold);
	assert_int_equal(cold->r, 0);
	assert_int_equal(cold->decoded, 1);
	assert_false(cold->cached);
	assert_true(cold->n > 0);
	assert_true(cold->bits & TG_LF_SCANNED);
	assert_int_equal(access(s->entry, F_OK), 0);
	read_image(s->image, 0, &warm);
	assert_int_equal(warm.decoded, 0);
	assert_true(warm.cached);
	assert_same(cold, &warm);
}

/* After @s's entry was spoilt: the next read decodes and is right, and rewrites it or not. */
static void not_believed(const struct scratch *s, const struct seen *cold, bool rewritten)
{
	struct seen again;

	read_image(s->image, 0, &again);
	assert_int_equal(again.decoded, 1);
	assert_false(again.cached);
	assert_same(cold, &again);
	read_image(s->image, 0, &again);
	assert_int_equal(again.decoded, rewritten ? 0 : 1);
	assert_same(cold, &again);
}

static void test_cold_warm(void **state)
{
	SCRATCH(state);
	struct seen cold;
	struct stat st;

	warm_up(s, &cold);
	assert_int_equal(stat(s->entry, &st), 0);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(stat(s->cache, &st), 0);
	assert_int_equal(st.st_mode & 07777, geteuid() == 0 ? 0755 : 0700);
}

static void test_changed_image(void **state)
{
	SCRATCH(state);
	char other[128], other_entry[192];
	struct seen cold, changed;
	unsigned char last;
	int fd;

	warm_up(s, &cold);
	/* one byte changed at the end, after the compressed kernel: the same facts, another image */
	snprintf(other, sizeof(other), "%s/vmlinuz-changed", s->dir);
	copy_file(s->image, other);
	fd = open(other, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &last, 1, lseek(fd, 0, SEEK_END) - 1), 1);
	last ^= 0xff;
	assert_int_equal(pwrite(fd, &last, 1, lseek(fd, 0, SEEK_END) - 1), 1);
	close(fd);
	entry_of(other, s->cache, other_entry, sizeof(other_entry));
	assert_int_equal(access(other_entry, F_OK), -1);
	read_image(other, 0, &changed);
	assert_int_equal(changed.decoded, 1);
	assert_false(changed.cached);
	assert_int_equal(changed.n, cold.n);
	assert_int_equal(changed.bits, cold.bits);
	assert_int_equal(access(other_entry, F_OK), 0);
	/* the first image's entry under the changed image's name: names another image */
	copy_file(s->entry, other_entry);
	read_image(other, 0, &changed);
	assert_int_equal(changed.decoded, 1);
	assert_false(changed.cached);
}

static void test_wrong_owner(void **state)
{
	SCRATCH(state);
	struct seen cold;
	struct stat st;

	if (geteuid() != 0) {
		print_message("skip: giving an entry to another user needs root\n");
		skip();
	}
	warm_up(s, &cold);
	assert_int_equal(chown(s->entry, 65534, 65534), 0);
	not_believed(s, &cold, true);
	assert_int_equal(stat(s->entry, &st), 0);
	assert_int_equal(st.st_uid, 0);
}

static void test_wrong_mode(void **state)
{
	SCRATCH(state);
	struct seen cold;
	struct stat st;

	warm_up(s, &cold);
	assert_int_equal(chmod(s->entry, 0666), 0);
	not_believed(s, &cold, true);
	assert_int_equal(stat(s->entry, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
}

static void test_open_directory(void **state)
{
	SCRATCH(state);
	struct seen cold;
	struct stat before, after;

	warm_up(s, &cold);
	assert_int_equal(chmod(s->cache, 0777), 0);
	assert_int_equal(stat(s->entry, &before), 0);
	not_believed(s, &cold, false);	/* neither read nor written */
	assert_int_equal(stat(s->entry, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
}

static void test_truncated(void **state)
{
	SCRATCH(state);
	struct seen cold;
	struct stat st;

	warm_up(s, &cold);
	assert_int_equal(stat(s->entry, &st), 0);
	assert_int_equal(truncate(s->entry, st.st_size - 1), 0);
	not_believed(s, &cold, true);
	assert_int_equal(truncate(s->entry, 100), 0);	/* inside the header */
	not_believed(s, &cold, true);
}

static void test_bad_checksum(void **state)
{
	SCRATCH(state);
	struct seen cold;
	unsigned char c;
	struct stat st;
	int fd;

	warm_up(s, &cold);
	assert_int_equal(stat(s->entry, &st), 0);
	/* a byte of the certificate list, near the end of the body */
	fd = open(s->entry, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &c, 1, st.st_size - 20), 1);
	c ^= 0x01;
	assert_int_equal(pwrite(fd, &c, 1, st.st_size - 20), 1);
	close(fd);
	not_believed(s, &cold, true);
}

/* A smaller image limit: the warm read fails exactly as a decoding under it does. */
static void test_smaller_limit(void **state)
{
	SCRATCH(state);
	struct seen cold, small_cold, small_warm;

	warm_up(s, &cold);
	read_image(s->image, 1u << 20, &small_cold);
	assert_int_equal(small_cold.r, -EFBIG);
	assert_int_equal(small_cold.decoded, 1);
	read_image(s->image, 1u << 20, &small_warm);
	assert_int_equal(small_warm.decoded, 1);	/* a cap's failure is not kept */
	assert_same(&small_cold, &small_warm);
}

/* Switched off: nothing is read or written. */
static void test_off(void **state)
{
	SCRATCH(state);
	struct seen a;

	setenv(TG_IMAGE_CACHE_ENV, "off", 1);
	read_image(s->image, 0, &a);
	assert_int_equal(a.decoded, 1);
	read_image(s->image, 0, &a);
	assert_int_equal(a.decoded, 1);
	assert_int_equal(access(s->cache, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cold_warm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_checksum, setup, teardown),
		cmocka_unit_test_setup_teardown(test_smaller_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
