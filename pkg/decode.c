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

struct pkg_decode {
	struct tg_workq *q;
	const struct tg_limits *lim;
	struct item **v;
	size_t n, cap;
	bool oom;	/* an entry could not be kept: the package gets an error */
};

struct pkg_decode *pkg_decode_new(struct tg_workq *q, const struct tg_limits *lim)
{
	struct pkg_decode *d = calloc(1, sizeof(*d));

	if (d) {
		d->q = q;
		d->lim = lim;
	}
	return d;
}

static void decode_run(void *arg)
{
	struct item *it = arg;

	it->e.r = pkg_module_from_mem(it->buf, it->len, it->e.path, it->lim, &it->e.m, &it->e.error);
	free(it->buf);
	it->buf = NULL;
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
	tg_workq_push(d->q, decode_run, it, len);
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
	struct pkg_decoded *v = calloc(d->n + 1, sizeof(*v));
	size_t k = 0;

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
