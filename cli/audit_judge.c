/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: the kernels the modules target and the judgement.  Each
 * module targets --kernel, else the KVER of its /lib/modules/KVER/ path,
 * else its vermagic.  That kernel's facts come from the audited set first
 * (kernel-devel's Module.symvers, kernel-core's symvers.gz and .config: the
 * packages describe the target), then from the host or --root, and the
 * export table last from --symvers.  All modules of all packages are judged
 * as one set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"

/* ----------------------------------------------------- kernel carriers */

static bool release_needed(const struct audit *a, const char *rel)
{
	for (size_t i = 0; i < a->n_pkgs; i++) {
		if (a->pkgs[i]->krel && !strcmp(a->pkgs[i]->krel, rel))
			return true;	/* a kernel update: judged against the root's modules */
		for (size_t j = 0; j < a->pkgs[i]->n_mods; j++) {
			const char *r = a->pkgs[i]->mods[j]->release;

			if (r && !strcmp(r, rel))
				return true;
		}
	}
	return false;
}

size_t audit_kernel_carriers(struct audit *a, struct audit_pkg **todo)
{
	const struct pkg_kfile *const *kf;
	size_t n_kf, n = 0;

	for (size_t i = 0; i < a->n_pkgs; i++)
		for (size_t j = 0; j < a->pkgs[i]->n_mods; j++) {
			struct audit_module *m = a->pkgs[i]->mods[j];
			char buf[256];
			const char *rel = tg_target_release(a->o.kernel, m->path, m->m, buf,
							   sizeof(buf));

			m->release = rel ? strdup(rel) : NULL;
		}
	if (a->installed)
		return 0;
	/* sorted best first: read one package per needed release that has no table yet */
	n_kf = pkg_kernelset_files(a->ks, &kf);
	for (size_t i = 0; i < n_kf; i++) {
		struct audit_pkg *p = kf[i]->owner;
		bool taken = false;

		if (p->error || !release_needed(a, kf[i]->release) ||
		    pkg_kernelset_best(a->ks, kf[i]->release, PKG_SYMVERS))
			continue;
		for (size_t j = 0; j < n_kf && !taken; j++)
			taken = !strcmp(kf[j]->release, kf[i]->release) &&
				((struct audit_pkg *)kf[j]->owner)->read_payload;
		if (taken)
			continue;
		p->read_payload = true;
		todo[n++] = p;
	}
	return n;
}

/* ------------------------------------------------------------ kernels */

/* Where each release's export table came from (the context keeps the kernels). */
struct source {
	char *release;
	enum sv_source src;
};

struct loader {
	struct audit *a;
	struct source *v;
	size_t n;
};

static int note_source(struct loader *l, const char *release, enum sv_source src)
{
	struct source *nv = realloc(l->v, (l->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	l->v = nv;
	l->v[l->n] = (struct source){ release ? strdup(release) : NULL, src };
	if (release && !l->v[l->n].release)
		return -ENOMEM;
	l->n++;
	return 0;
}

static enum sv_source source_of(const struct loader *l, const char *release)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].release == release ||
		    (release && l->v[i].release && !strcmp(l->v[i].release, release)))
			return l->v[i].src;
	return SV_NONE;
}

/* A kernel package of the set: its in-tree modules say what the root cannot yet. */
static void learn_from_set(const struct audit *a, const char *release, struct tg_kernel *k)
{
	for (size_t i = 0; i < a->n_pkgs && (!k->this_module_size || !k->vermagic); i++) {
		const struct audit_pkg *p = a->pkgs[i];

		for (size_t j = 0; !p->oot_modules && j < p->n_mods; j++)
			if (pkg_kernel_learn(k, release, p->nevra, p->mods[j]->path, p->mods[j]->m))
				break;
	}
}

/* The context's kernel loader: the set, the host (or --root), then --symvers. */
static int load_kernel(void *data, const char *release, struct tg_kernel **out,
		       struct tg_error *err)
{
	struct loader *l = data;
	const struct cli_opts *o = &l->a->o;
	struct tg_kernel_opts ko = { .root = o->root, .release = release, .config_path = o->config,
				     .limits = &o->limits };
	enum sv_source src = SV_NONE;
	int r = 0;

	*out = NULL;
	if (release) {
		r = pkg_kernelset_kernel(l->a->ks, &ko, release, PKG_SET_FIRST, out, err);
		if (r < 0)
			cli_error("%s", err->msg);	/* judged as an unknown kernel */
		else if (*out && (*out)->symvers)
			src = r == 1 ? SV_PACKAGE : SV_HOST;
	}
	if (*out)
		learn_from_set(l->a, release, *out);
	if (src == SV_NONE && o->symvers) {
		tg_kernel_free(*out);
		*out = NULL;
		ko.symvers_path = o->symvers;
		r = tg_kernel_load(&ko, out, err);
		if (r < 0)
			return r;	/* an explicit file that cannot be read */
		src = SV_OPTION;
	}
	return note_source(l, release, src) < 0 ? -ENOMEM : 0;
}

/* ------------------------------------------------------------ judging */

static void add_target(struct audit_pkg *p, const char *rel, const struct tg_kernel *k,
		       enum sv_source src)
{
	struct target *nt;

	for (size_t i = 0; i < p->n_targets; i++)
		if (p->targets[i].release == rel ||
		    (rel && p->targets[i].release && !strcmp(p->targets[i].release, rel)))
			return;
	nt = realloc(p->targets, (p->n_targets + 1) * sizeof(*nt));
	if (!nt)
		return;
	p->targets = nt;
	p->targets[p->n_targets++] = (struct target){
		k ? k->release : rel, k && k->symvers ? k->symvers_path : NULL,
		k && k->symvers ? src : SV_NONE, k ? k->config_path : NULL };
}

static int cmp_target(const void *x, const void *y)
{
	const struct target *a = x, *b = y;

	if (!a->release || !b->release)
		return !a->release - !b->release;
	return strcmp(a->release, b->release);
}

/*
 * Each module as an item to judge, and the packages' target lists (which
 * kernel each package was judged against and where its exports came from).
 * A target kernel that cannot be gathered stops the audit: its modules
 * would be judged against nothing.
 */
static int fill_items(struct audit *a, struct tg_ctx *ctx, struct loader *l,
		      struct tg_judge_item *items)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_pkgs; i++) {
		struct audit_pkg *p = a->pkgs[i];

		for (size_t j = 0; j < p->n_mods; j++) {
			struct audit_module *m = p->mods[j];
			const struct tg_kernel *k = NULL;
			struct tg_error err = { 0 };

			if (tg_ctx_kernel(ctx, m->release, &k, &err) < 0) {
				cli_error("%s", err.msg);
				return -EINVAL;
			}
			add_target(p, m->release, k, source_of(l, m->release));
			items[n++] = (struct tg_judge_item){ .path = m->path, .m = m->m,
							     .error = m->error,
							     .release = m->release,
							     .package = p->unowned ? NULL : p->name };
		}
		if (p->n_targets > 1)
			qsort(p->targets, p->n_targets, sizeof(*p->targets), cmp_target);
	}
	return 0;
}

/* Verdicts to modules (in the order added), and each package's summary. */
static void distribute(struct audit *a, struct tg_verdict *v)
{
	size_t k = 0;

	for (size_t i = 0; i < a->n_pkgs; i++) {
		struct audit_pkg *p = a->pkgs[i];

		p->action = TG_ACTION_ALLOW;
		p->had_error = p->error != NULL;
		for (size_t j = 0; j < p->n_mods; j++) {
			struct audit_module *m = p->mods[j];

			m->v = v[k++];
			if (m->v.error)
				p->had_error = true;
			if (m->v.action > p->action)
				p->action = m->v.action;
			if (m->v.action == TG_ACTION_DENY)
				p->n_deny++;
			else if (m->v.action == TG_ACTION_MARK)
				p->n_mark++;
			if (!m->v.error && !m->v.loads)
				p->n_refused++;
			p->taint |= m->v.taint_kernel;
			if (!p->taint_letters)
				p->taint_letters = m->v.taint_letters;
		}
	}
}

int audit_judge(struct audit *a, struct tg_ctx *ctx)
{
	struct loader l = { a, NULL, 0 };
	struct tg_judge_item *items = NULL;
	struct tg_verdict *v = NULL;
	struct tg_error err = { 0 };
	size_t n = 0;
	int r = -ENOMEM;

	for (size_t i = 0; i < a->n_pkgs; i++)
		n += a->pkgs[i]->n_mods;
	tg_ctx_set_kernel_loader(ctx, load_kernel, &l);
	if (!(items = calloc(n ? n : 1, sizeof(*items))) || !(v = calloc(n ? n : 1, sizeof(*v))))
		goto out;
	r = fill_items(a, ctx, &l, items);
	if (r < 0)
		goto out;
	r = tg_judge(ctx, NULL, items, n, TG_JUDGE_KERNEL_STRICT, v, &err);
	if (r == 0)
		distribute(a, v);
	if (r == 0 && !a->installed)
		r = audit_kernel_updates(a, ctx);	/* its kernels from the same loader */
	else if (r == -EINVAL)
		cli_error("%s", err.msg);
out:
	tg_ctx_set_kernel_loader(ctx, NULL, NULL);	/* @l ends here; the kernels stay */
	free(v);
	free(items);
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i].release);
	free(l.v);
	return r;
}
