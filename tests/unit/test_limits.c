/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Resource limits by name (--limit, %_taintguard_limits) and size parsing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "taintguard.h"

static void test_parse_size(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(tg_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(tg_parse_size("64K", &v), 0);
	assert_int_equal(v, 64 << 10);
	assert_int_equal(tg_parse_size("256m", &v), 0);
	assert_int_equal(v, 256ull << 20);
	assert_int_equal(tg_parse_size("1G", &v), 0);
	assert_int_equal(v, 1ull << 30);
	/* no sign, no space, no unknown suffix, no overflow */
	assert_int_equal(tg_parse_size("-1", &v), -EINVAL);
	assert_int_equal(tg_parse_size(" 1", &v), -EINVAL);
	assert_int_equal(tg_parse_size("1T", &v), -EINVAL);
	assert_int_equal(tg_parse_size("1KB", &v), -EINVAL);
	assert_int_equal(tg_parse_size("", &v), -EINVAL);
	assert_int_equal(tg_parse_size("17179869184G", &v), -EINVAL);
	assert_int_equal(tg_parse_size("99999999999999999999", &v), -EINVAL);
}

/* Field by field: the struct has padding that memcmp would see. */
static bool same_limits(const struct tg_limits *a, const struct tg_limits *b)
{
	return a->max_input_size == b->max_input_size && a->max_module_size == b->max_module_size &&
	       a->max_sections == b->max_sections && a->max_symbols == b->max_symbols &&
	       a->max_modinfo == b->max_modinfo && a->max_symvers_size == b->max_symvers_size &&
	       a->max_policy_size == b->max_policy_size &&
	       a->max_policy_depth == b->max_policy_depth;
}

static void test_limits_set(void **state)
{
	struct tg_limits lim, def;
	struct tg_error err = { 0 };

	(void)state;
	tg_limits_default(&lim);
	tg_limits_default(&def);
	assert_int_equal(tg_limits_set(&lim, "sections=100", &err), 0);
	assert_int_equal(lim.max_sections, 100);
	assert_int_equal(tg_limits_set(&lim, "module-size=8M", &err), 0);
	assert_int_equal(lim.max_module_size, 8ull << 20);
	assert_int_equal(tg_limits_set(&lim, "input-size=1G", &err), 0);
	assert_int_equal(lim.max_input_size, 1ull << 30);
	assert_int_equal(tg_limits_set(&lim, "symbols=5", &err), 0);
	assert_int_equal(tg_limits_set(&lim, "modinfo=6", &err), 0);
	assert_int_equal(tg_limits_set(&lim, "symvers-size=7", &err), 0);
	assert_int_equal(tg_limits_set(&lim, "policy-size=8", &err), 0);
	assert_int_equal(tg_limits_set(&lim, "policy-depth=9", &err), 0);
	assert_int_equal(lim.max_symbols, 5);
	assert_int_equal(lim.max_modinfo, 6);
	assert_int_equal(lim.max_symvers_size, 7);
	assert_int_equal(lim.max_policy_size, 8);
	assert_int_equal(lim.max_policy_depth, 9);

	/* errors leave the limits alone and name the assignment */
	tg_limits_default(&lim);
	assert_int_equal(tg_limits_set(&lim, "sections", &err), -EINVAL);
	assert_string_equal(err.msg, "limit 'sections': expected NAME=VALUE");
	assert_int_equal(tg_limits_set(&lim, "sections=0", &err), -EINVAL);
	assert_string_equal(err.msg, "limit 'sections=0': not a positive number below 2^32");
	assert_int_equal(tg_limits_set(&lim, "symbols=4294967296", &err), -EINVAL);
	assert_int_equal(tg_limits_set(&lim, "module-size=x", &err), -EINVAL);
	assert_string_equal(err.msg, "limit 'module-size=x': not a positive number (suffixes K, M, G)");
	assert_int_equal(tg_limits_set(&lim, "section=1", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "limit 'section=1': unknown name (known: input-size,"));
	assert_int_equal(tg_limits_set(&lim, "=1", &err), -EINVAL);
	assert_true(same_limits(&lim, &def));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_limits_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
