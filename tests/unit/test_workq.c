/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bounded work queue the rpm plugin reads a payload's modules with (lib/workq.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "taintguard.h"

struct item {
	unsigned in;
	unsigned out;
	int runs;
	unsigned char *data;	/* owned until run, like a module's bytes */
};

static void square(void *arg)
{
	struct item *it = arg;

	it->out = it->in * it->in + it->data[0];
	it->runs++;
	free(it->data);
	it->data = NULL;
}

/* Every item runs exactly once, whatever the jobs and however small the queue. */
static void run_items(unsigned jobs, size_t max_bytes)
{
	enum { N = 5000 };
	struct item *items = calloc(N, sizeof(*items));
	struct tg_workq *q = tg_workq_new(jobs, max_bytes);

	assert_non_null(q);
	for (unsigned i = 0; i < N; i++) {
		items[i].in = i;
		items[i].data = malloc(1);
		items[i].data[0] = (unsigned char)(i & 7);
		tg_workq_push(q, square, &items[i], 1 + i % 100);
	}
	tg_workq_finish(q);
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(items[i].runs, 1);
		assert_int_equal(items[i].out, i * i + (i & 7));
		assert_null(items[i].data);
	}
	free(items);
}

static void test_one_job(void **state) { (void)state; run_items(1, 1 << 20); }
static void test_two_jobs(void **state) { (void)state; run_items(2, 1 << 20); }
static void test_many_jobs(void **state) { (void)state; run_items(64, 1 << 20); }
/* a byte bound below one item: the caller runs queued work before each push */
static void test_tiny_queue(void **state) { (void)state; run_items(2, 1); }

static void test_empty(void **state)
{
	(void)state;
	tg_workq_finish(tg_workq_new(4, 1024));
	tg_workq_finish(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_job),
		cmocka_unit_test(test_two_jobs),
		cmocka_unit_test(test_many_jobs),
		cmocka_unit_test(test_tiny_queue),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
