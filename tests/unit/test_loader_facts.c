/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loader facts: images with and without each loader message the rules are
 * read from, System.map with and without the vendors' symbols, and the
 * release deciding (and saying so) only when no image answers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "loader_facts.h"

static const struct {
	enum tg_lf id;
	const char *msg;
} messages[] = {
	{ TG_LF_TEST_TAINT, "%s: loading test module taints kernel.\n" },
	{ TG_LF_ELF_UNIQUE, "Only one .modinfo section must exist.\n" },
	{ TG_LF_MODSTRUCT_CHECK, ".gnu.linkonce.this_module section size must match the kernel's "
				 "built struct module size at run time\n" },
	{ TG_LF_STRTAB_TYPED, "Invalid ELF section name table type: %u\n" },
	{ TG_LF_INHERIT_TAINT, "%s: module uses symbols %s from proprietary module %s, inheriting taint.\n" },
	{ TG_LF_MODULE_NS, "%s: module tries to import module namespace: %s\n" },
	{ TG_LF_SUSE_SUPPORTED, "module not supported by SUSE, refusing to load.\n" },
};

/* An "image": filler bytes with the message @with (or none) inside. */
static unsigned scan_with(const char *with)
{
	unsigned char img[8192];
	size_t n = with ? strlen(with) : 0;

	memset(img, 0xcc, sizeof(img));
	if (with)
		memcpy(img + 4000, with, n);
	return tg_lf_scan_image(img, sizeof(img));
}

static void test_image_messages(void **state)
{
	unsigned none = scan_with(NULL);

	(void)state;
	assert_int_equal(none, TG_LF_SCANNED);
	for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++) {
		unsigned bits = scan_with(messages[i].msg);

		assert_true(bits & TG_LF_SCANNED);
		assert_true(bits & (1u << messages[i].id));
		/* the 6.4 ELF message also stands for the 6.4 taint order */
		assert_int_equal(!!(bits & (1u << TG_LF_LATE_TAINTS)), messages[i].id == TG_LF_ELF_UNIQUE);
		for (size_t j = 0; j < sizeof(messages) / sizeof(messages[0]); j++)
			if (j != i)
				assert_false(bits & (1u << messages[j].id));
	}
	/* a message cut short is not the message */
	assert_false(scan_with("loading test module taints kernel") & (1u << TG_LF_TEST_TAINT));
}

static void test_sysmap(void **state)
{
	const char *rhel = "ffffffff81000000 T _text\nffffffff81234560 T module_rh_check_status\n"
			   "ffffffff81234570 t mark_partner_supported_x\n";
	const char *placeholder = "ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg package\n";
	unsigned b = tg_lf_scan_sysmap(rhel, strlen(rhel));

	(void)state;
	assert_true(b & TG_LF_SYSMAP_REAL);
	assert_true(b & (1u << TG_LF_RHEL_CHECK_STATUS));
	assert_false(b & (1u << TG_LF_RHEL_PARTNER));	/* a longer name is another symbol */
	assert_int_equal(tg_lf_scan_sysmap(placeholder, strlen(placeholder)), 0);
}

/* No image: the release decides, and says so. */
static void test_release_fallback(void **state)
{
	struct tg_kernel k = { .release = (char *)"5.14.0-503.40.1.el9_5.x86_64",
			       .modversions = TG_YES, .force_load = TG_UNKNOWN };
	struct tg_loader_facts lf;
	char *why;

	(void)state;
	k.version = tg_kernel_version_parse(k.release);
	tg_loader_facts_get(&k, &lf);
	assert_int_equal(lf.f[TG_LF_TEST_TAINT].source, TG_LFS_RELEASE);
	assert_false(tg_lf_on(&lf, TG_LF_TEST_TAINT));
	assert_false(tg_lf_on(&lf, TG_LF_MODSTRUCT_CHECK));
	assert_true(tg_lf_on(&lf, TG_LF_INHERIT_TAINT));
	why = tg_lf_assumed(&lf, TG_LF_TEST_TAINT);
	assert_non_null(why);
	assert_string_equal(why, "rule test-module-taint assumed from release 5.14: no image");
	free(why);
	assert_int_equal(lf.f[TG_LF_MODVERSIONS].source, TG_LFS_CONFIG);
	assert_null(tg_lf_assumed(&lf, TG_LF_MODVERSIONS));
	assert_int_equal(lf.f[TG_LF_FORCE_LOAD].value, TG_UNKNOWN);
	assert_int_equal(lf.f[TG_LF_STRUCT_MODULE_SIZE].source, TG_LFS_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_image_messages),
		cmocka_unit_test(test_sysmap),
		cmocka_unit_test(test_release_fallback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
