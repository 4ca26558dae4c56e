/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A package's module candidates read on the thread pool: the payload streams
 * on the caller's thread, each candidate's bytes become an item of the
 * library's work queue (decompression and ELF reading are the expensive
 * part), and the entries keep payload order, so verdicts and messages never
 * depend on the number of threads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pkg.h"

static void decoded_clear(struct pkg_decoded *e);

struct item {
	struct pkg_decoded e;
	const struct tg_limits *lim;
	void *buf;
	size_t len;
};

/*
 * Small candidates go to the pool in batches: the module reader sends a
 * batch to its confined parser in one round trip (lib/confine.c), and the
 * round trips, not the bytes, are what confinement costs.
 */
#define BATCH_MAX TG_MODULE_BATCH_MAX
#define BATCH_BYTES TG_MODULE_BATCH_BYTES

struct batch {
	struct item *it[BATCH_MAX];
	size_t n, bytes;
};

struct pkg_decode {
	struct tg_workq *q;
	const struct tg_limits *lim;
	struct item **v;
	size_t n, cap;
	struct batch *pending;	/* pushed, not yet handed to the pool */
	bool oom;	/* an entry could not be kept: the package gets an error */
};

/* A pool thread's parser started (a process forked) while the payload streams in. */
static void warm(void *lim)
{
	tg_reader_warm(lim);	/* a failure is said by the first read */
}

struct pkg_decode *pkg_decode_new(struct tg_workq *q, const struct tg_limits *lim)
{
	struct pkg_decode *d = calloc(1, sizeof(*d));

	if (d) {
		d->q = q;
		d->lim = lim;
		/* with one job the caller reads: its parser starts with the first module */
		if (tg_workq_jobs(q) > 1)
			tg_workq_push(q, warm, (void *)lim, 0);
	}
	return d;
}

static void decode_run(void *arg)
{
	struct batch *b = arg;
	const void *buf[BATCH_MAX];
	const char *path[BATCH_MAX];
	size_t len[BATCH_MAX];
	struct tg_module *m[BATCH_MAX];
	char *error[BATCH_MAX];
	int r[BATCH_MAX];

	for (size_t i = 0; i < b->n; i++) {
		buf[i] = b->it[i]->buf;
		len[i] = b->it[i]->len;
		path[i] = b->it[i]->e.path;
	}
	pkg_modules_from_mem(b->n, buf, len, path, b->it[0]->lim, m, error, r);
	for (size_t i = 0; i < b->n; i++) {
		struct item *it = b->it[i];

		it->e.r = r[i];
		it->e.m = m[i];
		it->e.error = error[i];
		free(it->buf);
		it->buf = NULL;
	}
	free(b);
}

/* The pending batch to the pool. */
static void flush(struct pkg_decode *d)
{
	struct batch *b = d->pending;

	d->pending = NULL;
	if (b)
		tg_workq_push(d->q, decode_run, b, b->bytes);
}

static struct item *add(struct pkg_decode *d, const char *path)
{
	struct item *it;

	if (d->n == d->cap) {
		size_t nc = d->cap ? d->cap * 2 : 16;
		struct item **nv = realloc(d->v, nc * sizeof(*nv));

		if (!nv)
			goto oom;
		d->v = nv;
		d->cap = nc;
	}
	it = calloc(1, sizeof(*it));
	if (!it || !(it->e.path = strdup(path))) {
		free(it);
		goto oom;
	}
	it->lim = d->lim;
	d->v[d->n++] = it;
	return it;
oom:
	d->oom = true;
	return NULL;
}

void pkg_decode_push(struct pkg_decode *d, const char *path, void *buf, size_t len)
{
	struct item *it = add(d, path);

	if (!it) {
		free(buf);
		return;
	}
	it->buf = buf;
	it->len = len;
	if (!d->pending && !(d->pending = calloc(1, sizeof(*d->pending)))) {
		/* no memory for a batch: read here and now */
		it->e.r = pkg_module_from_mem(buf, len, path, d->lim, &it->e.m, &it->e.error);
		free(buf);
		it->buf = NULL;
		return;
	}
	d->pending->it[d->pending->n++] = it;
	d->pending->bytes += len;
	if (d->pending->n == BATCH_MAX || d->pending->bytes >= BATCH_BYTES)
		flush(d);
}

void pkg_decode_flush(struct pkg_decode *d)
{
	flush(d);
}

void pkg_decode_error(struct pkg_decode *d, const char *path, const char *msg)
{
	struct item *it = add(d, path);

	if (!it)
		return;
	it->e.r = -1;
	it->e.error = strdup(msg);
	if (!it->e.error)
		d->oom = true;
}

int pkg_decode_take(struct pkg_decode *d, struct pkg_decoded **out, size_t *n)
{
	struct pkg_decoded *v;
	size_t k = 0;

	/* never handed to the pool (no pkg_decode_flush): read here, never dropped */
	if (d->pending) {
		struct batch *left = d->pending;

		d->pending = NULL;
		decode_run(left);
	}
	v = calloc(d->n + 1, sizeof(*v));
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < d->n; i++) {
		struct item *it = d->v[i];

		if (v && it->e.r != 0)
			v[k++] = it->e;	/* not a module: dropped */
		else
			decoded_clear(&it->e);
		free(it);
	}
	if (v && d->oom)
		v[k++] = (struct pkg_decoded){ .path = strdup("(package)"), .r = -1,
			.error = strdup("out of memory while reading the payload") };
	free(d->v);
	free(d);
	if (!v)
		return -ENOMEM;
	*out = v;
	*n = k;
	return 0;
}

static void decoded_clear(struct pkg_decoded *e)
{
	free(e->path);
	tg_module_free(e->m);
	free(e->error);
	memset(e, 0, sizeof(*e));
}

void pkg_decoded_free(struct pkg_decoded *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		decoded_clear(&v[i]);
	free(v);
}
