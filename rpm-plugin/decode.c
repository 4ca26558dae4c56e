/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a payload's modules on several threads (%_taintguard_jobs): rpm
 * streams the payload on its own thread, each module's bytes go to the
 * library's work queue, and the entries (modules read, errors) are added to
 * the package in payload order once all are done, so verdicts and messages do
 * not depend on the number of threads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tgp.h"

/* One module file of the payload, read on a worker thread, or an error entry. */
struct decode_item {
	struct tgp_state *st;
	char *path;
	void *buf;
	size_t len;
	int r;
	struct tg_module *m;
	char *error;
};

static void decode_run(void *arg)
{
	struct decode_item *it = arg;

	it->r = tgp_module_from_mem(it->st, it->buf, it->len, it->path, &it->m, &it->error);
	free(it->buf);
	it->buf = NULL;
}

static struct decode_item *decode_add(struct tgp_decode_list *l, struct tgp_state *st,
				      const char *path)
{
	struct decode_item *it = calloc(1, sizeof(*it));
	struct decode_item **a = it ? realloc(l->v, (l->n + 1) * sizeof(*a)) : NULL;

	if (a)
		l->v = a;
	if (!a || !(it->path = strdup(path))) {
		free(it);
		return NULL;
	}
	it->st = st;
	l->v[l->n++] = it;
	return it;
}

void tgp_decode_push(struct tgp_state *st, struct tg_workq *q, struct tgp_decode_list *l,
			const char *path, void *buf, size_t len)
{
	struct decode_item *it = decode_add(l, st, path);

	if (!it) {
		free(buf);
		l->oom = true;
		return;
	}
	it->buf = buf;
	it->len = len;
	tg_workq_push(q, decode_run, it, len);
}

void tgp_decode_error(struct tgp_decode_list *l, struct tgp_state *st, const char *path,
			 const char *msg)
{
	struct decode_item *it = decode_add(l, st, path);

	if (!it) {
		l->oom = true;
		return;
	}
	it->r = -1;
	it->error = strdup(msg);
}

void tgp_decode_finish(struct tgp_pkg *pkg, struct tg_workq *q, struct tgp_decode_list *l)
{
	tg_workq_finish(q);
	for (size_t i = 0; i < l->n; i++) {
		struct decode_item *it = l->v[i];

		if (it->r != 0)
			tgp_mod_add(&pkg->mods, &pkg->n_mods, it->path, it->m, it->error);
		free(it->error);
		free(it->path);
		free(it);
	}
	if (l->oom)
		tgp_mod_add(&pkg->mods, &pkg->n_mods, "(package)", NULL,
			    "out of memory while reading the payload");
	free(l->v);
	*l = (struct tgp_decode_list){ 0 };
}
