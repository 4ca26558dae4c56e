/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The string pool that holds a module's symbol names (lib/strpool.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "taintguard.h"
#include "internal.h"

/* Every copy stays intact and NUL-terminated while blocks are added around it. */
static void test_many_and_long(void **state)
{
	enum { N = 20000 };
	struct tg_strpool *pool = NULL;
	char **v = calloc(N, sizeof(*v)), name[64];
	size_t longlen = 300000;
	char *big = malloc(longlen), *bigcopy;

	(void)state;
	memset(big, 'x', longlen);
	for (size_t i = 0; i < N; i++) {
		int n = snprintf(name, sizeof(name), "symbol_%zu", i);

		v[i] = tg_strpool_dup(&pool, name, (size_t)n);
		assert_non_null(v[i]);
		if (i == N / 2) {	/* a string larger than any block, in the middle */
			bigcopy = tg_strpool_dup(&pool, big, longlen);
			assert_non_null(bigcopy);
		}
	}
	for (size_t i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "symbol_%zu", i);
		assert_string_equal(v[i], name);
	}
	assert_int_equal(strlen(bigcopy), longlen);
	assert_memory_equal(bigcopy, big, longlen);
	/* only @len bytes are copied, even from a longer string */
	assert_string_equal(tg_strpool_dup(&pool, "abcdef", 3), "abc");
	assert_string_equal(tg_strpool_dup(&pool, "", 0), "");
	tg_strpool_free(pool);
	tg_strpool_free(NULL);
	free(big);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_and_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
