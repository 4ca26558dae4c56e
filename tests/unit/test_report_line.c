/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one line every front end prints (lib/report_line.c): which reason
 * decides, how a long one is cut, the file named only when it is not
 * MODULE.ko, about 120 characters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "taintguard.h"
#include "predict.h"

static struct tg_verdict base(const char *path, const char *module, enum tg_action a)
{
	struct tg_verdict v = { 0 };

	v.path = strdup(path);
	v.module = module ? strdup(module) : NULL;
	v.package = strdup("kmod-x-1.0-1.x86_64");
	v.action = a;
	v.loads = true;
	return v;
}

static void line_of(struct tg_verdict *v, char *buf, size_t len)
{
	tg_verdict_headline(v, NULL, buf, len);
	tg_verdict_free_contents(v);
}

/* The kernel's refusal decides over the taint, with its first symbol. */
static void test_refusal(void **state)
{
	struct tg_verdict v = base("/lib/modules/6.1.0-1-amd64/extra/lve.ko", "lve", TG_ACTION_DENY);
	struct tg_refusal *r;
	char buf[512];

	(void)state;
	v.loads = false;
	v.forced_taint = true;
	v.taint_kernel = TG_TAINT_BIT(TG_TAINT_PROPRIETARY);
	assert_int_equal(tg_verdict_add_flag(&v, 'P', true, NULL, "lve is on the kernel's "
		"forced-taint list: lve claims to be GPL but upstream won't provide source; the "
		"kernel taints it"), 0);
	assert_int_equal(tg_verdict_add_refusal(&v, 0, -2, "gpl-only-denied", NULL,
		"GPL-only symbols denied: lve is on the kernel's forced-taint list, so the kernel "
		"withholds them and refuses the load (\"Unknown symbol\")"), 0);
	r = &v.refusals[0];
	assert_int_equal(tg_refusal_add_symbol(r, "ktime_get"), 0);
	assert_int_equal(tg_refusal_add_symbol(r, "sysfs_create_bin_file"), 0);
	line_of(&v, buf, sizeof(buf));
	assert_string_equal(buf, "refused kmod-x-1.0-1.x86_64: module lve: the kernel would refuse "
			    "it: GPL-only symbols denied (ktime_get ...)");
	assert_true(strlen(buf) <= 120);
}

/* A long reason is never cut inside brackets (a CRC without its pair or ")"). */
static void test_cut_outside_brackets(void **state)
{
	struct tg_verdict v = base("/lib/modules/6.1.0-1-amd64/extra/tgkup.ko", "gplok", TG_ACTION_DENY);
	char buf[512];

	(void)state;
	v.loads = false;
	assert_int_equal(tg_verdict_add_refusal(&v, 0, -8, "crc-mismatch", NULL,
		"disagrees about version of symbol module_layout (0x5002fa32, kernel 0x1a2b3c4d): "
		"built for another kernel"), 0);
	line_of(&v, buf, sizeof(buf));
	assert_string_equal(buf, "refused kmod-x-1.0-1.x86_64: module gplok (tgkup.ko): the kernel "
			    "would refuse it: disagrees about version of symbol module_layout");
}

/* P decides over what could not be checked; the file is named when renamed. */
static void test_taint_and_file(void **state)
{
	struct tg_verdict v = base("/opt/vendor/engine.bin", "prop", TG_ACTION_MARK);
	char buf[512];

	(void)state;
	v.incomplete = true;
	v.taint_kernel = TG_TAINT_BIT(TG_TAINT_PROPRIETARY);
	assert_int_equal(tg_verdict_add_note(&v, "the target kernel's vermagic is unknown"), 0);
	assert_int_equal(tg_verdict_add_flag(&v, 'P', true, NULL, "license 'Proprietary' is not "
		"GPL-compatible for the kernel (exact match against include/linux/license.h): "
		"proprietary, denied GPL-only symbols"), 0);
	line_of(&v, buf, sizeof(buf));
	assert_string_equal(buf, "marked kmod-x-1.0-1.x86_64: module prop (engine.bin): taints P: "
			    "license 'Proprietary' is not GPL-compatible for the kernel");
}

/* Only E: what could not be checked is the reason (the default policy's order). */
static void test_incomplete_before_other_taint(void **state)
{
	struct tg_verdict v = base("/lib/modules/k/extra/dummy.ko", "dummy", TG_ACTION_MARK);
	char buf[512];

	(void)state;
	v.incomplete = true;
	v.taint_kernel = TG_TAINT_BIT(13);	/* E */
	assert_int_equal(tg_verdict_add_flag(&v, 'E', true, NULL, "signed by 'x'"), 0);
	assert_int_equal(tg_verdict_add_note(&v, "signature not verified: the target kernel's "
		"trusted keys are unknown (no /boot/vmlinuz-k)"), 0);
	line_of(&v, buf, sizeof(buf));
	assert_string_equal(buf, "marked kmod-x-1.0-1.x86_64: module dummy: not fully checked: "
			    "signature not verified");
}

/* Unreadable: the file, and the error without the path it repeats. */
static void test_unreadable(void **state)
{
	struct tg_verdict v = base("/lib/modules/k/extra/m2.ko.xz", NULL, TG_ACTION_DENY);
	char buf[512];

	(void)state;
	v.error = strdup("/lib/modules/k/extra/m2.ko.xz: corrupt or truncated xz data");
	line_of(&v, buf, sizeof(buf));
	assert_string_equal(buf, "refused kmod-x-1.0-1.x86_64: file m2.ko.xz: cannot be read: "
			    "corrupt or truncated xz data");
}

/*
 * A module outside the module directories under another name: the line names
 * where it lives and that modprobe will not find it (docs/candidates.md).
 */
static void test_hidden(void **state)
{
	struct tg_verdict v = base("/opt/vendor/engine.bin", "lve", TG_ACTION_MARK);
	struct tg_verdict u = base("/opt/vendor/engine.xz", NULL, TG_ACTION_DENY);
	char buf[512];

	(void)state;
	assert_true(tg_path_hidden("/opt/vendor/engine.bin"));
	assert_true(tg_path_hidden("/usr/lib/debug/opt/vendor/engine.bin.debug"));
	assert_false(tg_path_hidden("/opt/vendor/lve.ko"));		/* named */
	assert_false(tg_path_hidden("/lib/modules/6.1.0-1-amd64/extra/x.bin"));	/* placed */
	assert_false(tg_path_hidden("/usr/lib/modules/6.1.0-1-amd64/extra/x.bin"));
	assert_false(tg_path_hidden("engine.bin"));	/* not an installed path */
	assert_false(tg_path_hidden(NULL));
	v.hidden = true;
	v.taint_kernel = TG_TAINT_BIT(TG_TAINT_PROPRIETARY);
	assert_int_equal(tg_verdict_add_flag(&v, 'P', true, NULL, "license 'Proprietary' is "
		"not GPL-compatible for the kernel"), 0);
	line_of(&v, buf, sizeof(buf));
	assert_string_equal(buf, "marked kmod-x-1.0-1.x86_64: module lve hidden as "
			    "/opt/vendor/engine.bin (modprobe won't find it, only insmod): taints P: "
			    "license 'Proprietary' is not GPL-compatible for the kernel");
	u.hidden = true;
	u.error = strdup("/opt/vendor/engine.xz: xz data decompresses past the size limit");
	line_of(&u, buf, sizeof(buf));
	assert_string_equal(buf, "refused kmod-x-1.0-1.x86_64: file hidden as /opt/vendor/engine.xz "
			    "(modprobe won't find it, only insmod): cannot be read: xz data "
			    "decompresses past the size limit");
}

/* An exception decides before anything the module does. */
static void test_exception(void **state)
{
	struct tg_verdict v = base("/lib/modules/k/extra/zfs.ko", "zfs", TG_ACTION_MARK);
	char buf[512];

	(void)state;
	v.taint_kernel = TG_TAINT_BIT(TG_TAINT_PROPRIETARY);
	v.justification = strdup("CDDL, known and accepted");
	line_of(&v, buf, sizeof(buf));
	assert_string_equal(buf, "marked kmod-x-1.0-1.x86_64: module zfs: policy exception: CDDL, "
			    "known and accepted");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusal),
		cmocka_unit_test(test_cut_outside_brackets),
		cmocka_unit_test(test_taint_and_file),
		cmocka_unit_test(test_incomplete_before_other_taint),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_exception),
		cmocka_unit_test(test_hidden),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
