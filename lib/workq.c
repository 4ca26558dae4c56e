/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A bounded work queue for reading many modules on several threads while the
 * caller streams their bytes in on its own (an rpm payload can only be read
 * sequentially).  Items belong to the caller; workers run the item's function,
 * which writes its results into the item.  A full queue (items or bytes) makes
 * the caller run one item itself instead of waiting, so memory stays bounded
 * and nothing can deadlock; with one job no thread is started at all.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

#define WORKQ_MAX_ITEMS 64
#define WORKQ_MAX_THREADS 16

struct work {
	tg_work_fn fn;
	void *item;
	size_t bytes;
};

struct tg_workq {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct work q[WORKQ_MAX_ITEMS];
	size_t head, n, bytes, max_bytes;
	bool closing;
	pthread_t th[WORKQ_MAX_THREADS];
	unsigned n_th;
};

/* Called with q->mu held; runs the oldest item unlocked. */
static void run_one(struct tg_workq *q)
{
	struct work w = q->q[q->head];

	q->head = (q->head + 1) % WORKQ_MAX_ITEMS;
	q->n--;
	q->bytes -= w.bytes;
	pthread_cond_broadcast(&q->cv);	/* room for the producer */
	pthread_mutex_unlock(&q->mu);
	w.fn(w.item);
	pthread_mutex_lock(&q->mu);
}

static void *worker(void *arg)
{
	struct tg_workq *q = arg;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		if (q->n)
			run_one(q);
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
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 && n < 256 ? (unsigned)n : 1;
}

struct tg_workq *tg_workq_new(unsigned jobs, size_t max_bytes)
{
	struct tg_workq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->max_bytes = max_bytes;
	/* the caller's thread works too: jobs - 1 more */
	for (unsigned i = 1; i < jobs && q->n_th < WORKQ_MAX_THREADS; i++)
		if (pthread_create(&q->th[q->n_th], NULL, worker, q) == 0)
			q->n_th++;	/* fewer threads: slower, same results */
	return q;
}

void tg_workq_push(struct tg_workq *q, tg_work_fn fn, void *item, size_t bytes)
{
	if (!q->n_th) {		/* one job: run it now, in order */
		fn(item);
		return;
	}
	pthread_mutex_lock(&q->mu);
	while (q->n == WORKQ_MAX_ITEMS || (q->n && q->bytes + bytes > q->max_bytes))
		run_one(q);
	q->q[(q->head + q->n) % WORKQ_MAX_ITEMS] = (struct work){ fn, item, bytes };
	q->n++;
	q->bytes += bytes;
	pthread_cond_signal(&q->cv);
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
		run_one(q);
	pthread_mutex_unlock(&q->mu);
	for (unsigned i = 0; i < q->n_th; i++)
		pthread_join(q->th[i], NULL);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
	free(q);
}
