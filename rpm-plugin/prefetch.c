/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The target kernels gathered while the payloads are read.
 *
 * Judging needs each target kernel's export table, .config and kmod, read
 * and parsed from the root: 15-25 ms for a distribution kernel, which a
 * transaction used to pay after its last module was decompressed.  The
 * releases are known before any payload is read, from the file lists
 * (modules under /lib/modules/R/), so a thread gathers the root's kernels
 * while tgp_prescan() reads the payloads, and load_kernel() takes them.
 *
 * Same result, not a guess: what load_kernel() gathers depends on the root
 * and on this transaction's own kernel files of R (they fill in what the
 * root lacks).  The thread reads the root alone, so its kernel is taken only
 * when the transaction carries no kernel file of R at all; otherwise it is
 * dropped and R is gathered again as before.  Releases whose kernel files
 * the file lists show are not gathered ahead at all.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rpm/rpmfiles.h>
#include <rpm/rpmte.h>
#include <rpm/rpmts.h>

#include "tgp.h"

/* More target kernels than this in one transaction are gathered when judged. */
#define PREFETCH_MAX 4

struct tgp_prefetch {
	pthread_t th;
	bool joined;
	char *root;
	const struct tg_limits *lim;
	size_t n;
	struct {
		char *release;
		struct tg_kernel *k;
		int r;
		struct tg_error err;
	} v[PREFETCH_MAX];
};

static bool listed(char *const *rel, size_t n, const char *release)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rel[i], release))
			return true;
	return false;
}

/* What the file lists name: modules' releases, and releases whose kernel files come along. */
struct releases {
	char *rel[PREFETCH_MAX], *no[PREFETCH_MAX * 4];
	size_t n, nno;
};

/* pkg_files_each(): remember a module's release, or a kernel file's. */
static int note_release(void *ctx, const char *path, const struct pkg_class *c)
{
	struct releases *s = ctx;
	char r[256];

	if (c->kind != PKG_MODULE) {
		if (s->nno < PREFETCH_MAX * 4 && !listed(s->no, s->nno, c->release) &&
		    (s->no[s->nno] = strdup(c->release)))
			s->nno++;
	} else if (tg_kernel_release_from_path(path, r, sizeof(r)) == 0 && s->n < PREFETCH_MAX &&
		   !listed(s->rel, s->n, r) && (s->rel[s->n] = strdup(r))) {
		s->n++;
	}
	return 0;
}

/* The releases the added packages' modules name, without those whose kernel files come along. */
static size_t target_releases(rpmts ts, char **rel)
{
	const unsigned kinds = PKG_KIND_BIT(PKG_MODULE) | PKG_KIND_BIT(PKG_SYMVERS) |
			       PKG_KIND_BIT(PKG_CONFIG) | PKG_KIND_BIT(PKG_IMAGE) |
			       PKG_KIND_BIT(PKG_SYSMAP);
	struct releases s = { 0 };
	size_t kept = 0;
	rpmtsi pi = rpmtsiInit(ts);
	rpmte te;

	while ((te = rpmtsiNext(pi, TR_ADDED)) != NULL) {
		rpmfiles files = rpmteFiles(te);

		if (files)
			pkg_files_each(files, NULL, kinds, note_release, &s);
		rpmfilesFree(files);
	}
	rpmtsiFree(pi);
	for (size_t i = 0; i < s.n; i++) {
		if (listed(s.no, s.nno, s.rel[i]))
			free(s.rel[i]);
		else
			rel[kept++] = s.rel[i];
	}
	for (size_t i = 0; i < s.nno; i++)
		free(s.no[i]);
	return kept;
}

static void *gather(void *arg)
{
	struct tgp_prefetch *p = arg;
	struct tg_kernel_opts o = { .root = p->root, .limits = p->lim };

	/* no set: the root's kernel alone (see above) */
	for (size_t i = 0; i < p->n; i++)
		p->v[i].r = pkg_kernelset_kernel(NULL, &o, p->v[i].release, PKG_ROOT_FIRST,
						 &p->v[i].k, &p->v[i].err);
	return NULL;
}

static void prefetch_free(struct tgp_prefetch *p)
{
	if (!p)
		return;
	if (!p->joined)
		pthread_join(p->th, NULL);
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].release);
		tg_kernel_free(p->v[i].k);
	}
	free(p->root);
	free(p);
}

void tgp_prefetch_start(struct tgp_state *st, rpmts ts)
{
	char *rel[PREFETCH_MAX];
	size_t n = target_releases(ts, rel);
	struct tgp_prefetch *p = n ? calloc(1, sizeof(*p)) : NULL;

	tgp_prefetch_end(st);
	if (!p || !st->root || !(p->root = strdup(st->root))) {
		for (size_t i = 0; i < n; i++)
			free(rel[i]);
		free(p);
		return;		/* gathered when judged, as without this */
	}
	p->lim = &st->lim;
	p->n = n;
	for (size_t i = 0; i < n; i++)
		p->v[i].release = rel[i];
	/*
	 * Reading a kernel may read one of its in-tree modules, which starts a
	 * parser: its spawner must be forked now, while rpm has one thread.
	 */
	tg_reader_init();
	if (pthread_create(&p->th, NULL, gather, p) != 0) {
		p->joined = true;
		prefetch_free(p);
		return;
	}
	st->prefetch = p;
}

bool tgp_prefetch_take(struct tgp_state *st, const char *release, struct tg_kernel **out, int *r,
		       struct tg_error *err)
{
	struct tgp_prefetch *p = st->prefetch;

	if (!p || st->chrooted)
		return false;
	if (!p->joined) {
		pthread_join(p->th, NULL);
		p->joined = true;
	}
	for (size_t i = 0; i < p->n; i++) {
		if (!p->v[i].release || strcmp(p->v[i].release, release))
			continue;
		free(p->v[i].release);
		p->v[i].release = NULL;
		if (pkg_kernelset_has(st->ks, release)) {
			tg_kernel_free(p->v[i].k);	/* the set completes it: gathered again */
			p->v[i].k = NULL;
			return false;
		}
		*out = p->v[i].k;
		p->v[i].k = NULL;
		*r = p->v[i].r;
		if (err)
			*err = p->v[i].err;
		return true;
	}
	return false;
}

void tgp_prefetch_end(struct tgp_state *st)
{
	prefetch_free(st->prefetch);
	st->prefetch = NULL;
}
