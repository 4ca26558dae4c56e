/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The library's thread pool (lib/workq.c): queued items, tasks, and both together. */
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

/*
 * Tasks that push items, as an audit reads packages and queues their
 * modules: every task and every item runs once, tg_workq_run() returns only
 * when all are done, worker indices stay below the pool's size, and the
 * pool serves a second run.
 */
struct pkg {
	struct item items[40];
	unsigned worker;
	int runs;
};

struct run_ctx {
	struct tg_workq *q;
	struct pkg *pkgs;
};

static void read_pkg(size_t i, unsigned worker, void *data)
{
	struct run_ctx *c = data;
	struct pkg *p = &c->pkgs[i];

	p->runs++;
	p->worker = worker;
	for (unsigned j = 0; j < 40; j++) {
		p->items[j].in = (unsigned)(i * 40 + j);
		p->items[j].data = malloc(1);
		p->items[j].data[0] = (unsigned char)(j & 7);
		tg_workq_push(c->q, square, &p->items[j], 1000);
	}
}

static void run_tasks(unsigned jobs)
{
	enum { N = 300 };
	struct pkg *pkgs = calloc(N, sizeof(*pkgs));
	struct run_ctx c = { tg_workq_new(jobs, 4096), pkgs };

	assert_non_null(c.q);
	assert_true(tg_workq_jobs(c.q) >= 1 && tg_workq_jobs(c.q) <= jobs);
	for (int pass = 1; pass <= 2; pass++) {
		tg_workq_run(c.q, N, read_pkg, &c);
		/* checked before finish: run must have waited for every item */
		for (unsigned i = 0; i < N; i++) {
			assert_int_equal(pkgs[i].runs, pass);
			assert_true(pkgs[i].worker < tg_workq_jobs(c.q));
			for (unsigned j = 0; j < 40; j++) {
				unsigned in = i * 40 + j;

				assert_int_equal(pkgs[i].items[j].runs, pass);
				assert_int_equal(pkgs[i].items[j].out, in * in + (j & 7));
				assert_null(pkgs[i].items[j].data);
			}
		}
	}
	tg_workq_finish(c.q);
	free(pkgs);
}

static void test_tasks_one_job(void **state) { (void)state; run_tasks(1); }
static void test_tasks_two_jobs(void **state) { (void)state; run_tasks(2); }
static void test_tasks_many_jobs(void **state) { (void)state; run_tasks(16); }

static void count(size_t i, unsigned worker, void *data)
{
	(void)worker;
	__atomic_fetch_add(&((int *)data)[i], 1, __ATOMIC_RELAXED);
}

static void test_parallel(void **state)
{
	int hits[1000] = { 0 };

	(void)state;
	assert_int_equal(tg_parallel(1000, 8, count, hits), 0);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(hits[i], 1);
	assert_int_equal(tg_parallel(0, 8, count, hits), 0);
	assert_true(tg_default_jobs() >= 1 && tg_default_jobs() <= 256);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_job),
		cmocka_unit_test(test_two_jobs),
		cmocka_unit_test(test_many_jobs),
		cmocka_unit_test(test_tiny_queue),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_tasks_one_job),
		cmocka_unit_test(test_tasks_two_jobs),
		cmocka_unit_test(test_tasks_many_jobs),
		cmocka_unit_test(test_parallel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
