/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's one thread pool.  Two kinds of work share its threads:
 *
 *  - tasks: tg_workq_run() runs fn(i) for i in [0, n) (packages of an audit,
 *    members of a prediction round), the caller's thread included;
 *  - items: tg_workq_push() queues the reading of one module while its bytes
 *    stream in on the pushing thread (an rpm payload can only be read
 *    sequentially).  Items belong to the caller; the item's function writes
 *    its results into it.
 *
 * Idle threads take queued items before new tasks, so a task that streams a
 * large package keeps every core busy.  A full queue (items or bytes) makes
 * the pusher run one item itself instead of waiting: memory stays bounded
 * and nothing can deadlock.  With one job no thread is started at all and
 * everything runs in order on the caller's thread.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

#define WORKQ_MAX_ITEMS 64
/* More threads than this never helped: reading is bound by memory bandwidth. */
#define WORKQ_MAX_JOBS 256

struct work {
	tg_work_fn fn;
	void *item;
	size_t bytes;
};

struct worker {
	struct tg_workq *q;
	unsigned index;
	pthread_t th;
};

struct tg_workq {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct work q[WORKQ_MAX_ITEMS];
	size_t head, n, bytes, max_bytes;
	unsigned busy;			/* items and tasks running right now */
	bool closing;
	/* the tasks of the tg_workq_run() in progress */
	tg_task_fn task_fn;
	void *task_data;
	size_t task_next, task_n;
	struct worker *w;
	unsigned n_th;			/* threads started (jobs - 1 at most) */
};

/* Called with q->mu held; runs the oldest item unlocked. */
static void run_item(struct tg_workq *q)
{
	struct work w = q->q[q->head];

	q->head = (q->head + 1) % WORKQ_MAX_ITEMS;
	q->n--;
	q->bytes -= w.bytes;
	q->busy++;
	pthread_cond_broadcast(&q->cv);	/* room for the pusher */
	pthread_mutex_unlock(&q->mu);
	w.fn(w.item);
	pthread_mutex_lock(&q->mu);
	q->busy--;
	pthread_cond_broadcast(&q->cv);
}

/* Called with q->mu held; runs the next task unlocked. */
static void run_task(struct tg_workq *q, unsigned index)
{
	size_t i = q->task_next++;

	q->busy++;
	pthread_mutex_unlock(&q->mu);
	q->task_fn(i, index, q->task_data);
	pthread_mutex_lock(&q->mu);
	q->busy--;
	pthread_cond_broadcast(&q->cv);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct tg_workq *q = w->q;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		if (q->n)
			run_item(q);
		else if (q->task_next < q->task_n)
			run_task(q, w->index);
		else if (q->closing)
			break;
		else
			pthread_cond_wait(&q->cv, &q->mu);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

unsigned tg_default_jobs(void)
{
	/* the CPUs this process may run on (taskset, cgroups cpusets), any count */
	for (int ncpu = 1024; ncpu <= 1 << 20; ncpu *= 2) {
		cpu_set_t *set = CPU_ALLOC(ncpu);
		size_t size = CPU_ALLOC_SIZE(ncpu);
		int n = 0;

		if (!set)
			break;
		CPU_ZERO_S(size, set);
		if (sched_getaffinity(0, size, set) == 0)
			n = CPU_COUNT_S(size, set);
		CPU_FREE(set);
		if (n > 0)
			return n < WORKQ_MAX_JOBS ? (unsigned)n : WORKQ_MAX_JOBS;
		if (errno != EINVAL)	/* EINVAL: the mask is larger than ncpu */
			break;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n <= 0 ? 1 : n < WORKQ_MAX_JOBS ? (unsigned)n : WORKQ_MAX_JOBS;
}

struct tg_workq *tg_workq_new(unsigned jobs, size_t max_bytes)
{
	struct tg_workq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->max_bytes = max_bytes;
	if (jobs > WORKQ_MAX_JOBS)
		jobs = WORKQ_MAX_JOBS;
	/* the caller's thread works too: jobs - 1 more */
	if (jobs > 1 && (q->w = calloc(jobs - 1, sizeof(*q->w))) != NULL) {
		for (unsigned i = 0; i + 1 < jobs; i++) {
			q->w[q->n_th] = (struct worker){ .q = q, .index = q->n_th + 1 };
			if (pthread_create(&q->w[q->n_th].th, NULL, worker_main, &q->w[q->n_th]) != 0)
				break;	/* fewer threads: slower, same results */
			q->n_th++;
		}
	}
	return q;
}

unsigned tg_workq_jobs(const struct tg_workq *q)
{
	return q->n_th + 1;
}

void tg_workq_push(struct tg_workq *q, tg_work_fn fn, void *item, size_t bytes)
{
	if (!q->n_th) {		/* one job: run it now, in order */
		fn(item);
		return;
	}
	pthread_mutex_lock(&q->mu);
	while (q->n == WORKQ_MAX_ITEMS || (q->n && q->bytes + bytes > q->max_bytes))
		run_item(q);
	q->q[(q->head + q->n) % WORKQ_MAX_ITEMS] = (struct work){ fn, item, bytes };
	q->n++;
	q->bytes += bytes;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void tg_workq_run(struct tg_workq *q, size_t n, tg_task_fn fn, void *data)
{
	if (!q->n_th) {
		for (size_t i = 0; i < n; i++)
			fn(i, 0, data);
		return;
	}
	pthread_mutex_lock(&q->mu);
	q->task_fn = fn;
	q->task_data = data;
	q->task_next = 0;
	q->task_n = n;
	pthread_cond_broadcast(&q->cv);
	/* the caller works as worker 0 until nothing is queued, left or running */
	for (;;) {
		if (q->n)
			run_item(q);
		else if (q->task_next < q->task_n)
			run_task(q, 0);
		else if (!q->busy)
			break;
		else
			pthread_cond_wait(&q->cv, &q->mu);
	}
	q->task_fn = NULL;
	q->task_data = NULL;
	q->task_next = q->task_n = 0;
	pthread_mutex_unlock(&q->mu);
}

void tg_workq_finish(struct tg_workq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->closing = true;
	pthread_cond_broadcast(&q->cv);
	while (q->n)
		run_item(q);
	pthread_mutex_unlock(&q->mu);
	for (unsigned i = 0; i < q->n_th; i++)
		pthread_join(q->w[i].th, NULL);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
	free(q->w);
	free(q);
}

int tg_parallel(size_t n, unsigned jobs, tg_task_fn fn, void *data)
{
	struct tg_workq *q;

	if (jobs > n)
		jobs = n ? (unsigned)n : 1;
	q = tg_workq_new(jobs, 0);
	if (!q)
		return -ENOMEM;
	tg_workq_run(q, n, fn, data);
	tg_workq_finish(q);
	return 0;
}
