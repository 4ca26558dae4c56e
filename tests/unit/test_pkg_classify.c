/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pkg/: what a packaged path is (classify.c) and what the package header
 * says each file is (ftype.c), on paths and headers made here: modules by
 * name and by place, hidden modules by their libmagic class or MIME type,
 * a kernel's image, System.map, export table and .config with their release
 * and search rank, and the files that are none of these.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rpm/header.h>
#include <rpm/rpmtag.h>
#include <rpm/rpmtd.h>

#include "pkg.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define R "6.1.0-57-amd64"
#define ELF_REL "ELF 64-bit LSB relocatable, x86-64, version 1 (SYSV), " \
		"BuildID[sha1]=0123456789abcdef, not stripped"
#define ELF_DYN "ELF 64-bit LSB shared object, x86-64, version 1 (SYSV), dynamically linked"

static const struct pkg_class *classify(const char *path, const char *ftype)
{
	static struct pkg_class c;

	enum pkg_kind kind;

	memset(&c, 0x5a, sizeof(c));	/* every field must be set by the call */
	kind = pkg_classify_file(path, ftype, &c);
	assert_int_equal(kind, c.kind);
	return &c;
}

static void expect_module(const char *path, const char *ftype, bool named, bool in_tree, bool hidden)
{
	const struct pkg_class *c = classify(path, ftype);

	if (c->kind != PKG_MODULE)
		fail_msg("%s: kind %d, not a module", path, c->kind);
	assert_int_equal(c->named, named);
	assert_int_equal(c->in_tree, in_tree);
	assert_int_equal(c->hidden, hidden);
}

static void expect_other(const char *path, const char *ftype)
{
	const struct pkg_class *c = classify(path, ftype);

	if (c->kind != PKG_OTHER)
		fail_msg("%s: kind %d, not other", path, c->kind);
}

/* A kernel file: its kind, its release; returns its rank. */
static int expect_kernel_file(const char *path, enum pkg_kind kind, const char *release)
{
	const struct pkg_class *c = classify(path, NULL);

	if (c->kind != kind)
		fail_msg("%s: kind %d, want %d", path, c->kind, kind);
	assert_string_equal(c->release, release);
	assert_false(c->named);
	return c->rank;
}

/* ----------------------------------------------------------- classify.c */

static void test_modules_by_name_and_place(void **state)
{
	expect_module("/lib/modules/" R "/extra/lve.ko", NULL, true, false, false);
	expect_module("/lib/modules/" R "/updates/dkms/tg.ko.xz", NULL, true, false, false);
	expect_module("/lib/modules/" R "/kernel/fs/ext4/ext4.ko", NULL, true, true, false);
	expect_module("/usr/lib/modules/5.14.0-362.el9.x86_64/kernel/drivers/net/dummy.ko.zst",
		      NULL, true, true, false);
	expect_module("/usr/lib/modules/5.14.0-362.el9.x86_64/extra/a.ko.gz", NULL, true, false, false);
	/* a module name anywhere: insmod loads it; the place makes it hidden, not the kind */
	expect_module("/opt/vendor/engine.ko", NULL, true, false, false);
	/* any file in a module directory is a candidate: its content decides */
	expect_module("/lib/modules/" R "/extra/engine.bin", NULL, false, false, false);
	expect_module("/lib/modules/" R "/modules.dep", NULL, false, false, false);
	/* a module name wins over "symvers" or "config" in it */
	expect_module("/lib/modules/" R "/extra/symvers_config.ko", NULL, true, false, false);
	/* the named ones stay what they are whatever the header says */
	expect_module("/lib/modules/" R "/extra/lve.ko", ELF_DYN, true, false, false);
	expect_module("/lib/modules/" R "/extra/lve.ko", ELF_REL, true, false, false);
}

/* Anything ELF relocatable is a module candidate, wherever it lies: hidden. */
static void test_hidden_modules(void **state)
{
	expect_module("/opt/vendor/engine.bin", ELF_REL, false, false, true);
	expect_module("/usr/libexec/vendor/x", "application/x-object", false, false, true);
	/* libmagic looking inside a compressed file (MAGIC_COMPRESS) says the same */
	expect_module("/opt/vendor/engine.xz", "ELF 64-bit LSB relocatable, x86-64 "
		      "(XZ compressed data)", false, false, true);
	expect_other("/opt/vendor/engine.bin", NULL);
	expect_other("/opt/vendor/engine.bin", ELF_DYN);
	expect_other("/opt/vendor/engine.bin", "ELF 64-bit LSB executable, x86-64");
	expect_other("/opt/vendor/engine.bin", "application/x-sharedlib");
	expect_other("/opt/vendor/engine.bin", "relocatable");
	expect_other("/usr/share/doc/vendor/README", "ASCII text");
	expect_other("/opt/vendor/lve.ko.debug", NULL);
}

/*
 * debuginfo: a module's separate debug file is ELF relocatable too, so the
 * header makes it a (hidden) candidate; only its content (pkg/module.c: the
 * .modinfo is NOBITS) keeps it from being judged.  By name it is nothing.
 */
static void test_debuginfo(void **state)
{
	const char *dbg = "/usr/lib/debug/lib/modules/" R "/kernel/drivers/net/dummy.ko.debug";
	const char *bid = "/usr/lib/debug/.build-id/ab/cdef0123456789.debug";

	expect_other(dbg, NULL);
	expect_other(bid, NULL);
	/* libmagic's ELF relocatable, but a debug file: its sections are NOBITS (issue 28) */
	expect_other(dbg, ELF_REL ", with debug_info");
	expect_other(bid, ELF_REL ", with debug_info");
	/* the same type elsewhere, or a name the module loader takes, stays a candidate */
	expect_module("/opt/vendor/dummy.ko.debug", ELF_REL ", with debug_info", false, false, true);
	expect_module("/usr/lib/debug/lib/modules/" R "/extra/lve.ko", NULL, true, false, false);
	expect_other("/usr/lib/debug/boot/vmlinux-" R, NULL);
	expect_other("/usr/src/debug/lve-1.0/lve.c", "C source, ASCII text");
}

static void test_kernel_images(void **state)
{
	expect_kernel_file("/boot/vmlinuz-" R, PKG_IMAGE, R);
	expect_kernel_file("/boot/System.map-" R, PKG_SYSMAP, R);
	expect_kernel_file("/lib/modules/" R "/vmlinuz", PKG_IMAGE, R);
	expect_kernel_file("/usr/lib/modules/5.14.0-362.el9.x86_64/vmlinuz", PKG_IMAGE,
			   "5.14.0-362.el9.x86_64");
	expect_kernel_file("/usr/lib/modules/5.14.0-362.el9.x86_64/System.map", PKG_SYSMAP,
			   "5.14.0-362.el9.x86_64");
	/* not directly in lib/modules/R/: a module candidate like any file there */
	expect_module("/lib/modules/" R "/kernel/vmlinuz", NULL, false, true, false);
	/* no release, or a directory of that name */
	expect_other("/boot/vmlinuz-", NULL);
	expect_other("/boot/vmlinuz-" R "/x", NULL);
	expect_other("/boot/vmlinuz", NULL);
	expect_other("/usr/share/vendor/vmlinuz", NULL);
	/* the header's type does not make an image a module */
	assert_int_equal(classify("/boot/vmlinuz-" R, ELF_REL)->kind, PKG_IMAGE);
}

/* Export tables and .configs: the release, and every .config ranked after every table. */
static void test_symvers_and_config(void **state)
{
	static const char *const symvers[] = {
		"/lib/modules/" R "/build/Module.symvers",
		"/usr/src/linux-headers-" R "/Module.symvers",
		"/usr/src/kernels/" R "/Module.symvers",
		"/boot/symvers-" R ".gz",
		"/usr/lib/modules/" R "/symvers.gz",
	};
	static const char *const configs[] = {
		"/boot/config-" R,
		"/usr/src/kernels/" R "/.config",
		"/lib/modules/" R "/build/.config",
	};
	int max_symvers = -1, min_config = 1 << 30, rank;

	for (size_t i = 0; i < ARRAY_SIZE(symvers); i++) {
		rank = expect_kernel_file(symvers[i], PKG_SYMVERS, R);
		assert_true(rank >= 0);
		if (rank > max_symvers)
			max_symvers = rank;
	}
	for (size_t i = 0; i < ARRAY_SIZE(configs); i++) {
		rank = expect_kernel_file(configs[i], PKG_CONFIG, R);
		if (rank < min_config)
			min_config = rank;
	}
	assert_true(max_symvers < min_config);
	/* the library's own order between two places of the same kind */
	assert_true(classify(symvers[0], NULL)->rank != classify(symvers[4], NULL)->rank);

	/* names that only look like one */
	expect_other("/usr/share/doc/kernel/symvers.txt", NULL);
	expect_other("/etc/vendor/config", NULL);
	expect_other("/boot/config", NULL);
	expect_module("/lib/modules/" R "/extra/config.txt", NULL, false, false, false);
}

static void test_in_module_dir(void **state)
{
	assert_true(pkg_in_module_dir("/lib/modules/" R "/extra/a.ko"));
	assert_true(pkg_in_module_dir("/usr/lib/modules/x"));
	assert_false(pkg_in_module_dir("/usr/lib/debug/lib/modules/" R "/a.ko.debug"));
	assert_false(pkg_in_module_dir("lib/modules/" R "/a.ko"));
	assert_false(pkg_in_module_dir("/lib/modulesX/a.ko"));
}

/* -------------------------------------------------------------- ftype.c */

static void put_u32(Header h, rpmTagVal tag, const uint32_t *v, uint32_t n)
{
	struct rpmtd_s td = { .tag = tag, .type = RPM_INT32_TYPE, .count = n, .data = (void *)v };

	assert_int_equal(headerPut(h, &td, HEADERPUT_DEFAULT), 1);
}

static void put_strings(Header h, rpmTagVal tag, const char **v, uint32_t n)
{
	struct rpmtd_s td = { .tag = tag, .type = RPM_STRING_ARRAY_TYPE, .count = n, .data = v };

	assert_int_equal(headerPut(h, &td, HEADERPUT_DEFAULT), 1);
}

/* A v4 header: the class of each file, by index into the class dictionary. */
static void test_ftypes_v4(void **state)
{
	static const uint32_t idx[] = { 1, 0, 2, 7 };
	static const char *dict[] = { "directory", ELF_REL, "ASCII text" };
	Header h = headerNew();
	struct pkg_ftypes *t;

	put_u32(h, RPMTAG_FILECLASS, idx, 4);
	put_strings(h, RPMTAG_CLASSDICT, dict, 3);
	t = pkg_ftypes_new(h);
	headerFree(h);	/* the types are copied out of the header */
	assert_non_null(t);
	assert_int_equal(pkg_ftypes_count(t), 4);
	assert_string_equal(pkg_ftype(t, 0), ELF_REL);
	assert_string_equal(pkg_ftype(t, 1), "directory");
	assert_string_equal(pkg_ftype(t, 2), "ASCII text");
	assert_null(pkg_ftype(t, 3));	/* index past the dictionary */
	assert_null(pkg_ftype(t, 4));
	assert_null(pkg_ftype(t, -1));
	/* what classify makes of it */
	assert_int_equal(classify("/opt/vendor/engine.bin", pkg_ftype(t, 0))->kind, PKG_MODULE);
	assert_int_equal(classify("/opt/vendor/README", pkg_ftype(t, 2))->kind, PKG_OTHER);
	pkg_ftypes_free(t);
}

/* A v6 header (rpm >= 6.0): MIME types by tag number, no classes. */
static void test_ftypes_v6(void **state)
{
	static const uint32_t idx[] = { 0, 1 };
	static const char *dict[] = { "application/x-object", "text/plain" };
	Header h = headerNew();
	struct pkg_ftypes *t;

	put_u32(h, 5115, idx, 2);	/* RPMTAG_FILEMIMEINDEX */
	put_strings(h, 5116, dict, 2);	/* RPMTAG_MIMEDICT */
	t = pkg_ftypes_new(h);
	headerFree(h);
	assert_non_null(t);
	assert_int_equal(pkg_ftypes_count(t), 2);
	assert_string_equal(pkg_ftype(t, 0), "application/x-object");
	assert_true(classify("/opt/vendor/engine.bin", pkg_ftype(t, 0))->hidden);
	pkg_ftypes_free(t);
}

/* Classes that say nothing but "directory" give way to the MIME types. */
static void test_ftypes_uninformative(void **state)
{
	static const uint32_t cls[] = { 0, 0 }, mime[] = { 1, 0 };
	static const char *cdict[] = { "directory" }, *mdict[] = { "text/plain", "application/x-object" };
	Header h = headerNew();
	struct pkg_ftypes *t;

	put_u32(h, RPMTAG_FILECLASS, cls, 2);
	put_strings(h, RPMTAG_CLASSDICT, cdict, 1);
	t = pkg_ftypes_new(h);
	assert_null(t);		/* nothing informative, nothing else */
	put_u32(h, 5115, mime, 2);
	put_strings(h, 5116, mdict, 2);
	t = pkg_ftypes_new(h);
	headerFree(h);
	assert_non_null(t);
	assert_string_equal(pkg_ftype(t, 0), "application/x-object");
	assert_string_equal(pkg_ftype(t, 1), "text/plain");
	pkg_ftypes_free(t);
}

/* No types at all, or of the wrong tag type: NULL, and every query says unknown. */
static void test_ftypes_none(void **state)
{
	static const char *dict[] = { ELF_REL };
	static const char *notidx[] = { "0" };
	Header h = headerNew();

	assert_null(pkg_ftypes_new(NULL));
	assert_null(pkg_ftypes_new(h));
	put_strings(h, RPMTAG_CLASSDICT, dict, 1);
	assert_null(pkg_ftypes_new(h));		/* a dictionary without an index */
	headerFree(h);
	h = headerNew();
	put_strings(h, 5115, notidx, 1);	/* an index of strings */
	put_strings(h, 5116, dict, 1);
	assert_null(pkg_ftypes_new(h));
	headerFree(h);
	assert_null(pkg_ftype(NULL, 0));
	assert_int_equal(pkg_ftypes_count(NULL), 0);
	pkg_ftypes_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules_by_name_and_place),
		cmocka_unit_test(test_hidden_modules),
		cmocka_unit_test(test_debuginfo),
		cmocka_unit_test(test_kernel_images),
		cmocka_unit_test(test_symvers_and_config),
		cmocka_unit_test(test_in_module_dir),
		cmocka_unit_test(test_ftypes_v4),
		cmocka_unit_test(test_ftypes_v6),
		cmocka_unit_test(test_ftypes_uninformative),
		cmocka_unit_test(test_ftypes_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
