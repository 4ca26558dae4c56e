/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Module.symvers parsing: layouts, malformed lines, compression, the real table. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "taintguard.h"
#include "internal.h"
#include "target.h"

/* The suite's target kernel's export table (target.h) */
#define DEBIAN_SYMVERS target_path("/usr/src/linux-headers-%s/Module.symvers")
/* what is known of Debian's 6.1.0-57-amd64 */
#define DEB_RELEASE "6.1.0-57-amd64"

static struct tg_symvers *load_text(const char *text)
{
	struct tg_error err = { 0 };
	struct tg_symvers *sv = NULL;
	int r = tg_symvers_load_mem(text, strlen(text), "t.symvers", NULL, &sv, &err);

	if (r < 0)
		fail_msg("load failed: %d %s", r, err.msg);
	assert_non_null(sv);
	return sv;
}

static void expect_error(const char *text, int code, const char *msg)
{
	struct tg_error err = { 0 };
	struct tg_symvers *sv = (struct tg_symvers *)1;
	int r = tg_symvers_load_mem(text, strlen(text), "t.symvers", NULL, &sv, &err);

	assert_null(sv);
	assert_int_equal(r, code);
	assert_int_equal(err.code, code);
	assert_string_equal(err.msg, msg);
}

static void expect_sym(const struct tg_symvers *sv, const char *name, uint32_t crc,
		       const char *owner, enum tg_export_type type, const char *ns)
{
	const struct tg_ksym *ks = tg_symvers_lookup(sv, name);

	if (!ks)
		fail_msg("%s not found", name);
	assert_string_equal(ks->name, name);
	assert_int_equal(ks->crc, crc);
	assert_string_equal(ks->owner, owner);
	assert_int_equal(ks->type, type);
	if (ns)
		assert_string_equal(ks->ns, ns);
	else
		assert_null(ks->ns);
}

static void test_modern(void **state)
{
	struct tg_symvers *sv = load_text(
		"0xb43f9365\tktime_get\tvmlinux\tEXPORT_SYMBOL_GPL\t\n"
		"0x669aff23\tcrypto_cipher_setkey\tvmlinux\tEXPORT_SYMBOL_GPL\tCRYPTO_INTERNAL\n"
		"0x7c7bf6e0\ttwofish_enc_blk\tarch/x86/crypto/twofish-x86_64\tEXPORT_SYMBOL_GPL\t\n"
		"0x9060323f\tmodule_layout\tvmlinux\tEXPORT_SYMBOL\t\n"
		"0x00000000\tnocrc\t/tmp/a/exporter\tEXPORT_SYMBOL\tTGNS\n");

	assert_int_equal(tg_symvers_count(sv), 5);
	expect_sym(sv, "ktime_get", 0xb43f9365, "vmlinux", TG_EXPORT_GPL, NULL);
	expect_sym(sv, "crypto_cipher_setkey", 0x669aff23, "vmlinux", TG_EXPORT_GPL, "CRYPTO_INTERNAL");
	expect_sym(sv, "twofish_enc_blk", 0x7c7bf6e0, "arch/x86/crypto/twofish-x86_64",
		   TG_EXPORT_GPL, NULL);
	expect_sym(sv, "module_layout", 0x9060323f, "vmlinux", TG_EXPORT_PLAIN, NULL);
	expect_sym(sv, "nocrc", 0, "/tmp/a/exporter", TG_EXPORT_PLAIN, "TGNS");
	assert_null(tg_symvers_lookup(sv, "ktime_ge"));
	assert_null(tg_symvers_lookup(sv, "ktime_get2"));
	assert_null(tg_symvers_lookup(sv, ""));
	assert_null(tg_symvers_lookup(sv, NULL));
	tg_symvers_free(sv);
}

/* 5.4.y before "move the namespace field last": crc sym ns module type */
static void test_early_54(void **state)
{
	struct tg_symvers *sv = load_text(
		"0x12345678\tusb_stor_a\tUSB_STORAGE\tdrivers/usb/storage/usb-storage\tEXPORT_SYMBOL_GPL\n"
		"0x00000001\tplain_one\t\tvmlinux\tEXPORT_SYMBOL\n");

	expect_sym(sv, "usb_stor_a", 0x12345678, "drivers/usb/storage/usb-storage",
		   TG_EXPORT_GPL, "USB_STORAGE");
	expect_sym(sv, "plain_one", 1, "vmlinux", TG_EXPORT_PLAIN, NULL);
	tg_symvers_free(sv);
}

/* 2.6.x - 5.3: four columns, including the types removed in 5.12 */
static void test_four_columns(void **state)
{
	struct tg_symvers *sv = load_text(
		"0xdeadbeef\ta\tvmlinux\tEXPORT_SYMBOL\n"
		"0xDEADBEEF\tb\tvmlinux\tEXPORT_SYMBOL_GPL\n"
		"0x1\tc\tvmlinux\tEXPORT_SYMBOL_GPL_FUTURE\n"
		"0x2\td\tfs/x\tEXPORT_UNUSED_SYMBOL\n"
		"3\te\tfs/x\tEXPORT_UNUSED_SYMBOL_GPL\n");

	assert_int_equal(tg_symvers_count(sv), 5);
	expect_sym(sv, "a", 0xdeadbeef, "vmlinux", TG_EXPORT_PLAIN, NULL);
	expect_sym(sv, "b", 0xdeadbeef, "vmlinux", TG_EXPORT_GPL, NULL);
	expect_sym(sv, "c", 1, "vmlinux", TG_EXPORT_GPL_FUTURE, NULL);
	expect_sym(sv, "d", 2, "fs/x", TG_EXPORT_UNUSED, NULL);
	expect_sym(sv, "e", 3, "fs/x", TG_EXPORT_UNUSED_GPL, NULL);
	tg_symvers_free(sv);
}

static void test_three_columns(void **state)
{
	/* no trailing newline, CRLF on the first line */
	struct tg_symvers *sv = load_text("0x0000abcd\told_sym\tvmlinux\r\n0x1\tother\tdrivers/x");

	expect_sym(sv, "old_sym", 0xabcd, "vmlinux", TG_EXPORT_UNKNOWN, NULL);
	expect_sym(sv, "other", 1, "drivers/x", TG_EXPORT_UNKNOWN, NULL);
	tg_symvers_free(sv);
}

static void test_types(void **state)
{
	assert_false(tg_export_type_is_gpl(TG_EXPORT_PLAIN));
	assert_true(tg_export_type_is_gpl(TG_EXPORT_GPL));
	assert_false(tg_export_type_is_gpl(TG_EXPORT_GPL_FUTURE));
	assert_false(tg_export_type_is_gpl(TG_EXPORT_UNUSED));
	assert_true(tg_export_type_is_gpl(TG_EXPORT_UNUSED_GPL));
	assert_false(tg_export_type_is_gpl(TG_EXPORT_UNKNOWN));
	assert_string_equal(tg_export_type_name(TG_EXPORT_PLAIN), "EXPORT_SYMBOL");
	assert_string_equal(tg_export_type_name(TG_EXPORT_GPL), "EXPORT_SYMBOL_GPL");
	assert_string_equal(tg_export_type_name(TG_EXPORT_GPL_FUTURE), "EXPORT_SYMBOL_GPL_FUTURE");
	assert_string_equal(tg_export_type_name(TG_EXPORT_UNUSED), "EXPORT_UNUSED_SYMBOL");
	assert_string_equal(tg_export_type_name(TG_EXPORT_UNUSED_GPL), "EXPORT_UNUSED_SYMBOL_GPL");
	assert_string_equal(tg_export_type_name(TG_EXPORT_UNKNOWN), "unknown");
	assert_string_equal(tg_export_type_name((enum tg_export_type)99), "unknown");
}

static void test_empty_and_blank(void **state)
{
	struct tg_symvers *sv = load_text("");

	assert_int_equal(tg_symvers_count(sv), 0);
	assert_null(tg_symvers_lookup(sv, "x"));
	tg_symvers_free(sv);

	sv = load_text("\n\n0x1\ta\tvmlinux\tEXPORT_SYMBOL\t\n\n");
	assert_int_equal(tg_symvers_count(sv), 1);
	tg_symvers_free(sv);

	assert_int_equal(tg_symvers_count(NULL), 0);
	assert_null(tg_symvers_lookup(NULL, "x"));
	tg_symvers_free(NULL);
}

/* concatenated dumps: the first owner is kept, the count is of names */
static void test_duplicates(void **state)
{
	struct tg_symvers *sv = load_text(
		"0x1\tdup\tvmlinux\tEXPORT_SYMBOL\t\n"
		"0x2\tdup\tdrivers/x\tEXPORT_SYMBOL_GPL\t\n"
		"0x3\tother\tvmlinux\tEXPORT_SYMBOL\t\n");

	assert_int_equal(tg_symvers_count(sv), 2);
	expect_sym(sv, "dup", 1, "vmlinux", TG_EXPORT_PLAIN, NULL);
	expect_sym(sv, "other", 3, "vmlinux", TG_EXPORT_PLAIN, NULL);
	tg_symvers_free(sv);
}

static void test_malformed(void **state)
{
	const char *ok = "0x1\ta\tvmlinux\tEXPORT_SYMBOL\t\n";
	char buf[256];

	expect_error("0x1\ta\n", -EINVAL, "t.symvers:1: expected 3 to 5 tab-separated fields");
	snprintf(buf, sizeof(buf), "%s0x1\tb\tvmlinux\tEXPORT_SYMBOL\tNS\textra\n", ok);
	expect_error(buf, -EINVAL, "t.symvers:2: expected 3 to 5 tab-separated fields");
	snprintf(buf, sizeof(buf), "%s\n%szz\tb\tvmlinux\tEXPORT_SYMBOL\t\n", ok, ok);
	expect_error(buf, -EINVAL, "t.symvers:4: bad CRC");
	expect_error("0x\ta\tvmlinux\n", -EINVAL, "t.symvers:1: bad CRC");
	expect_error("0x123456789\ta\tvmlinux\n", -EINVAL, "t.symvers:1: bad CRC");
	expect_error("0x1 \ta\tvmlinux\n", -EINVAL, "t.symvers:1: bad CRC");
	expect_error("0x1\ta\tvmlinux\tGPL\n", -EINVAL,
		     "t.symvers:1: no EXPORT_* type in field 4 or 5");
	expect_error("0x1\ta\tNS\tvmlinux\tSOMETHING\n", -EINVAL,
		     "t.symvers:1: no EXPORT_* type in field 4 or 5");
	expect_error("0x1\ta\tvmlinux\tEXPORT_SYMBOL_NS\t\n", -EINVAL,
		     "t.symvers:1: unknown export type");
	expect_error("0x1\t\tvmlinux\tEXPORT_SYMBOL\t\n", -EINVAL, "t.symvers:1: empty symbol name");
	expect_error("0x1\ta\t\tEXPORT_SYMBOL\t\n", -EINVAL, "t.symvers:1: empty module name");
	expect_error("\t\t\t\t\n", -EINVAL, "t.symvers:1: bad CRC");
	{
		static const char nul[] = "0x1\ta\tvm\0linux\tEXPORT_SYMBOL\t\n";
		struct tg_error err = { 0 };
		struct tg_symvers *sv = NULL;

		assert_int_equal(tg_symvers_load_mem(nul, sizeof(nul) - 1, "t.symvers", NULL, &sv, &err),
				 -EINVAL);
		assert_string_equal(err.msg, "t.symvers:1: NUL byte in line");
	}
}

static void test_limits(void **state)
{
	const char *text = "0x1\ta\tvmlinux\tEXPORT_SYMBOL\t\n0x2\tb\tvmlinux\tEXPORT_SYMBOL\t\n";
	struct tg_error err = { 0 };
	struct tg_symvers *sv = NULL;
	struct tg_limits lim;

	tg_limits_default(&lim);
	lim.max_symvers_size = 10;
	assert_int_equal(tg_symvers_load_mem(text, strlen(text), "t.symvers", &lim, &sv, &err), -EFBIG);
	assert_null(sv);
	assert_non_null(strstr(err.msg, "t.symvers: "));
	lim.max_symvers_size = strlen(text);
	assert_int_equal(tg_symvers_load_mem(text, strlen(text), "t.symvers", &lim, &sv, &err), 0);
	tg_symvers_free(sv);
}

/* ------------------------------------------------------------ compression */

static const char sample[] =
	"0xb43f9365\tktime_get\tvmlinux\tEXPORT_SYMBOL_GPL\t\n"
	"0x669aff23\tcrypto_cipher_setkey\tvmlinux\tEXPORT_SYMBOL_GPL\tCRYPTO_INTERNAL\n"
	"0x9060323f\tmodule_layout\tvmlinux\tEXPORT_SYMBOL\t\n";

static void *gz(const char *in, size_t len, size_t *olen)
{
	z_stream zs = { 0 };
	size_t cap = len + 256;
	unsigned char *out = malloc(cap);

	assert_non_null(out);
	/* 16 + MAX_WBITS: a gzip wrapper, as `gzip -c9` writes */
	assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*olen = zs.total_out;
	deflateEnd(&zs);
	return out;
}

static void *xz(const char *in, size_t len, size_t *olen)
{
	size_t cap = lzma_stream_buffer_bound(len), pos = 0;
	uint8_t *out = malloc(cap);

	assert_non_null(out);
	assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, NULL, (const uint8_t *)in, len,
						 out, &pos, cap), LZMA_OK);
	*olen = pos;
	return out;
}

static void *zst(const char *in, size_t len, size_t *olen)
{
	size_t cap = ZSTD_compressBound(len);
	void *out = malloc(cap);

	assert_non_null(out);
	*olen = ZSTD_compress(out, cap, in, len, 19);
	assert_false(ZSTD_isError(*olen));
	return out;
}

static void check_sample(const struct tg_symvers *sv)
{
	assert_int_equal(tg_symvers_count(sv), 3);
	expect_sym(sv, "ktime_get", 0xb43f9365, "vmlinux", TG_EXPORT_GPL, NULL);
	expect_sym(sv, "crypto_cipher_setkey", 0x669aff23, "vmlinux", TG_EXPORT_GPL, "CRYPTO_INTERNAL");
	expect_sym(sv, "module_layout", 0x9060323f, "vmlinux", TG_EXPORT_PLAIN, NULL);
}

static void check_compressed(void *(*enc)(const char *, size_t, size_t *), enum tg_compression kind)
{
	char path[] = "/tmp/tg-symvers-XXXXXX";
	struct tg_error err = { 0 };
	struct tg_symvers *sv = NULL;
	struct tg_limits lim;
	size_t len = 0;
	void *data = enc(sample, sizeof(sample) - 1, &len);
	int fd;

	assert_int_equal(tg_compression_detect(data, len), kind);
	/* in memory */
	assert_int_equal(tg_symvers_load_mem(data, len, "symvers.gz", NULL, &sv, &err), 0);
	check_sample(sv);
	tg_symvers_free(sv);
	/* from a file */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	assert_int_equal(tg_symvers_load_path(path, NULL, &sv, &err), 0);
	check_sample(sv);
	tg_symvers_free(sv);
	/* the cap applies to the decompressed text */
	tg_limits_default(&lim);
	lim.max_symvers_size = sizeof(sample) - 10;
	sv = NULL;
	assert_int_equal(tg_symvers_load_path(path, &lim, &sv, &err), -EFBIG);
	assert_null(sv);
	/* a truncated stream is an error, not a short table */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len / 2), (ssize_t)(len / 2));
	close(fd);
	memset(&err, 0, sizeof(err));
	assert_true(tg_symvers_load_path(path, NULL, &sv, &err) < 0);
	assert_null(sv);
	assert_non_null(strstr(err.msg, path));
	unlink(path);
	free(data);
}

static void test_gzip(void **state)
{
	check_compressed(gz, TG_COMP_GZIP);
}

static void test_xz(void **state)
{
	check_compressed(xz, TG_COMP_XZ);
}

static void test_zstd(void **state)
{
	check_compressed(zst, TG_COMP_ZSTD);
}

static void test_missing_file(void **state)
{
	struct tg_error err = { 0 };
	struct tg_symvers *sv = NULL;

	assert_int_equal(tg_symvers_load_path("/nonexistent/Module.symvers", NULL, &sv, &err), -ENOENT);
	assert_null(sv);
	assert_string_equal(err.msg, "/nonexistent/Module.symvers: No such file or directory");
}

/* ---------------------------------------------------- the real Debian table */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_debian(void **state)
{
	struct tg_error err = { 0 };
	struct tg_symvers *sv = NULL;
	size_t gpl = 0, plain = 0;
	double best = 1e9;

	if (!target_has("/usr/src/linux-headers-%s/Module.symvers"))
		skip();
	for (int i = 0; i < 5; i++) {
		double t0 = now_ms(), dt;

		tg_symvers_free(sv);
		sv = NULL;
		assert_int_equal(tg_symvers_load_path(DEBIAN_SYMVERS, NULL, &sv, &err), 0);
		dt = now_ms() - t0;
		if (dt < best)
			best = dt;
	}
	print_message("load %s: best of 5 %.2f ms\n", DEBIAN_SYMVERS, best);
	if (!strcmp(target_release(), DEB_RELEASE)) {
		assert_int_equal(tg_symvers_count(sv), 24683);
		expect_sym(sv, "ktime_get", 0xb43f9365, "vmlinux", TG_EXPORT_GPL, NULL);
		expect_sym(sv, "module_layout", 0x9060323f, "vmlinux", TG_EXPORT_PLAIN, NULL);
	}
	assert_int_equal(tg_symvers_lookup(sv, "ktime_get")->type, TG_EXPORT_GPL);
	assert_string_equal(tg_symvers_lookup(sv, "ktime_get")->owner, "vmlinux");
	{
		const struct tg_ksym *ks = tg_symvers_lookup(sv, "crypto_cipher_setkey");

		assert_non_null(ks);
		assert_string_equal(ks->ns, "CRYPTO_INTERNAL");
		assert_true(tg_export_type_is_gpl(ks->type));
	}
	/* every line is found again by its name (the table has no duplicates) */
	{
		FILE *f = fopen(DEBIAN_SYMVERS, "r");
		char line[1024];

		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			char *name = strchr(line, '\t') + 1;
			const struct tg_ksym *ks;

			*strchr(name, '\t') = '\0';
			ks = tg_symvers_lookup(sv, name);
			assert_non_null(ks);
			if (ks->type == TG_EXPORT_GPL)
				gpl++;
			else if (ks->type == TG_EXPORT_PLAIN)
				plain++;
		}
		fclose(f);
	}
	if (!strcmp(target_release(), DEB_RELEASE)) {
		assert_int_equal(gpl, 13559);
		assert_int_equal(plain, 11124);
	}
	assert_int_equal(gpl + plain, tg_symvers_count(sv));
	tg_symvers_free(sv);
	if (best > 15.0 && !getenv("TG_SANITIZE"))
		print_message("warning: load took %.2f ms (target < 15 ms)\n", best);
}

/* ----------------------------------------------- version ranges (util.c) */

static void test_version_ranges(void **state)
{
	unsigned v61 = TG_KVER(6, 1, 0), v54 = TG_KVER(5, 4, 0), v3 = TG_KVER(3, 5, 0);

	assert_true(tg_version_in_range(v61, ">= 3.5"));
	assert_true(tg_version_in_range(v3, ">= 3.5"));
	assert_false(tg_version_in_range(TG_KVER(3, 4, 99), ">= 3.5"));
	assert_true(tg_version_in_range(v54, ">= 3.5, < 6.4"));
	assert_false(tg_version_in_range(TG_KVER(6, 4, 0), ">= 3.5, < 6.4"));
	assert_true(tg_version_in_range(TG_KVER(6, 3, 255), "<6.4"));
	assert_true(tg_version_in_range(v61, "6.1"));
	assert_true(tg_version_in_range(v61, "== 6.1.0"));
	assert_false(tg_version_in_range(v61, "!= 6.1"));
	assert_true(tg_version_in_range(v61, "> 5.9"));
	assert_true(tg_version_in_range(v61, "<= 6.1"));
	assert_true(tg_version_in_range(v61, NULL));
	assert_true(tg_version_in_range(v61, ""));
	assert_true(tg_version_in_range(v61, "any"));
	assert_true(tg_version_in_range(v61, "*"));
	/* unknown kernel: every range applies */
	assert_true(tg_version_in_range(0, "< 2.0"));
	/* a syntax error never matches */
	assert_false(tg_version_in_range(v61, ">= x"));
	assert_false(tg_version_in_range(v61, ">= 3.5 junk"));
	assert_int_equal(tg_version_range_check(">= 3.5, < 6.4"), 0);
	assert_int_equal(tg_version_range_check("any"), 0);
	assert_int_equal(tg_version_range_check(">= x"), -EINVAL);
	assert_int_equal(tg_version_range_check(">= 3.5;"), -EINVAL);
	assert_int_equal(tg_version_range_check("=> 3.5"), -EINVAL);
	/* parts are 8 bits, saturated like the kernel's KERNEL_VERSION */
	assert_true(tg_version_in_range(TG_KVER(4, 9, 255), ">= 4.9.337"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modern),
		cmocka_unit_test(test_early_54),
		cmocka_unit_test(test_four_columns),
		cmocka_unit_test(test_three_columns),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_empty_and_blank),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_xz),
		cmocka_unit_test(test_zstd),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_debian),
		cmocka_unit_test(test_version_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
