/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* util/: the string vector, the byte buffer, strf and the hex formatters. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"
#include "grow.h"
#include "hex.h"
#include "strf.h"
#include "strv.h"

/* Copies, order, the NULL after the last one, growth past the first allocation. */
static void test_strv(void **state)
{
	struct strv sv = { 0 };
	char word[] = "alpha";
	char name[32];

	(void)state;
	assert_int_equal(strv_push(&sv, word), 0);
	word[0] = 'A';				/* the vector holds a copy */
	assert_string_equal(sv.v[0], "alpha");
	assert_null(sv.v[1]);
	assert_int_equal(strv_push(&sv, NULL), 0);	/* NULL is pushed as "" */
	assert_string_equal(sv.v[1], "");
	assert_int_equal(strv_pushf(&sv, "%s-%d", "beta", 7), 0);
	assert_string_equal(sv.v[2], "beta-7");
	assert_int_equal(strv_push_owned(&sv, strdup("gamma")), 0);
	assert_int_equal(strv_push_owned(&sv, NULL), -ENOMEM);
	assert_int_equal(sv.n, 4);
	for (int i = 0; i < 100; i++)
		assert_int_equal(strv_pushf(&sv, "n%d", i), 0);
	assert_int_equal(sv.n, 104);
	assert_true(sv.cap > sv.n);
	assert_null(sv.v[sv.n]);
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		assert_string_equal(sv.v[4 + i], name);
	}

	assert_true(strv_has(&sv, "alpha"));
	assert_true(strv_has(&sv, "beta-7"));
	assert_true(strv_has(&sv, ""));
	assert_true(strv_has(&sv, "n99"));
	assert_false(strv_has(&sv, "Alpha"));
	assert_false(strv_has(&sv, "n100"));
	assert_false(strv_has(&sv, NULL));

	strv_free(&sv);
	assert_null(sv.v);
	assert_int_equal(sv.n, 0);
	assert_int_equal(sv.cap, 0);
	assert_false(strv_has(&sv, "alpha"));
	strv_free(&sv);				/* twice is harmless */
}

/* Index @n fits afterwards; a size that would overflow is refused and changes nothing. */
static void test_grow(void **state)
{
	uint32_t *a = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(grow_array(&a, &cap, 0, sizeof(*a)), 0);
	assert_int_equal(cap, 8);
	assert_int_equal(grow_array(&a, &cap, 7, sizeof(*a)), 0);
	assert_int_equal(cap, 8);			/* fits: nothing done */
	assert_int_equal(grow_array(&a, &cap, 8, sizeof(*a)), 0);
	assert_int_equal(cap, 16);
	assert_int_equal(grow_array(&a, &cap, 1000, sizeof(*a)), 0);
	assert_int_equal(cap, 1024);
	a[1000] = 42;
	assert_int_equal(grow_array(&a, &cap, SIZE_MAX / 2, sizeof(*a)), -ENOMEM);
	assert_int_equal(grow_array(&a, &cap, SIZE_MAX, 1), -ENOMEM);
	assert_int_equal(cap, 1024);
	assert_int_equal(a[1000], 42);
	free(a);
}

/* Little-endian fields, strings with NULL apart from "", growth keeps the bytes. */
static void test_buf(void **state)
{
	static const unsigned char want[] = {
		0x7f,
		0x04, 0x03, 0x02, 0x01,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0x00, 0x00, 0x00, 0x00,			/* NULL */
		0x01, 0x00, 0x00, 0x00,			/* "" */
		0x03, 0x00, 0x00, 0x00, 'a', 'b',	/* "ab" */
		0x02, 0, 0, 0, 0, 0, 0, 0, 'x', 'y',	/* blob */
	};
	struct buf b = { 0 };

	(void)state;
	buf_put_u8(&b, 0x7f);
	buf_put_u32(&b, 0x01020304);
	buf_put_u64(&b, 0x0102030405060708ull);
	buf_put_str(&b, NULL);
	buf_put_str(&b, "");
	buf_put_str(&b, "ab");
	buf_put_blob(&b, "xy", 2);
	buf_put(&b, NULL, 0);
	assert_false(b.oom);
	assert_int_equal(b.n, sizeof(want));
	assert_memory_equal(b.p, want, sizeof(want));

	for (unsigned i = 0; i < 100000; i++)
		buf_put_u32(&b, i);
	assert_false(b.oom);
	assert_int_equal(b.n, sizeof(want) + 400000);
	assert_true(b.cap >= b.n);
	assert_memory_equal(b.p, want, sizeof(want));
	assert_int_equal(b.p[sizeof(want) + 4 * 99999 + 1], (99999 >> 8) & 0xff);
	buf_free(&b);
	assert_null(b.p);
	assert_int_equal(b.n, 0);
}

/* A size that would overflow sets oom, keeps the bytes, and every later write is dropped. */
static void test_buf_overflow(void **state)
{
	struct buf b = { 0 };

	(void)state;
	buf_put(&b, "abc", 3);
	buf_put(&b, "x", SIZE_MAX - 1);		/* b.n + n overflows: refused before any copy */
	assert_true(b.oom);
	assert_int_equal(b.n, 3);
	assert_memory_equal(b.p, "abc", 3);
	buf_put_u32(&b, 1);
	buf_put_str(&b, "later");
	assert_int_equal(b.n, 3);
	buf_free(&b);
	assert_false(b.oom);

	buf_put(&b, "y", SIZE_MAX);		/* too large for any buffer */
	assert_true(b.oom);
	assert_int_equal(b.n, 0);
	buf_free(&b);
}

static void test_strf(void **state)
{
	char *s, *big;

	(void)state;
	s = strf("%s/%s-%u", "/lib/modules", "6.1.0", 57u);
	assert_string_equal(s, "/lib/modules/6.1.0-57");
	free(s);
	s = strf("%s", "");
	assert_string_equal(s, "");
	free(s);
	/* vstrf: through strf and strv_pushf (test_strv) */
	/* longer than any stack buffer a caller would have used */
	big = malloc(100001);
	memset(big, 'k', 100000);
	big[100000] = '\0';
	s = strf("<%s>", big);
	assert_int_equal(strlen(s), 100002);
	assert_int_equal(s[0], '<');
	assert_int_equal(s[100001], '>');
	free(s);
	free(big);
}

static void test_hex(void **state)
{
	static const unsigned char key[] = { 0x00, 0x0a, 0xb1, 0xff };
	char out[2 * sizeof(key) + 1];
	char *s;

	(void)state;
	s = hex_colon(key, sizeof(key));
	assert_string_equal(s, "00:0A:B1:FF");
	free(s);
	s = hex_colon(key + 3, 1);
	assert_string_equal(s, "FF");
	free(s);
	s = hex_colon(key, 0);
	assert_string_equal(s, "");
	free(s);
	assert_null(hex_colon(key, SIZE_MAX / 2));	/* 3 chars a byte would overflow */

	memset(out, '#', sizeof(out));
	assert_ptr_equal(hex_lower(out, key, sizeof(key)), out);
	assert_string_equal(out, "000ab1ff");
	assert_string_equal(hex_lower(out, key, 0), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strv),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_buf),
		cmocka_unit_test(test_buf_overflow),
		cmocka_unit_test(test_strf),
		cmocka_unit_test(test_hex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
