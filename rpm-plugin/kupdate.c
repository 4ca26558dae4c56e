/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A kernel in the transaction (a package shipping a kernel image with that
 * kernel's export table and .config): the out-of-tree modules already in
 * the root that will be loadable under it (pkg/kupdate.c: its extra/,
 * updates/, weak-updates/ and what weak-modules would link there), with the
 * modules this transaction adds for it, judged as one set against the new
 * kernel.  One warning per module the new kernel will refuse or taint;
 * nothing for the others.  A kernel is never refused for this unless
 * %_taintguard_kernel_update is "deny": blocking a security update is worse
 * than a module that stops loading.  docs/kernel-update.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpm/rpmlog.h>
#include <rpm/rpmstring.h>

#include "tgp.h"

/*
 * One line per affected module: the same one reason as every front end.
 * Said in tsm_pre, which dnf5 never shows on its terminal (docs/clients.md):
 * echoed on stderr where the client hides rpmlog lines.
 */
static void say(struct tgp_state *st, const struct tgp_pkg *kp, const struct pkg_kmod *km,
		const struct tg_verdict *v)
{
	const char *owner = km->owner ? km->owner : "(no package)";
	const char *mod = v->module ? v->module : "?";
	char why[160];	/* the one reason every front end's line gives */

	if (km->place == PKG_KMOD_WEAK_NOT) {
		tgp_say(st, RPMLOG_WARNING, true, "taintguard: kernel %s: %s: module %s (%s): will "
			"be missing: weak-modules will not link it: %s\n", kp->krel, owner, mod,
			km->file, km->why);
		return;
	}
	tg_verdict_reason(v, why, sizeof(why));
	tgp_say(st, RPMLOG_WARNING, true, "taintguard: kernel %s: %s: module %s (%s): %s%s\n",
		kp->krel, owner, mod, km->path, why,
		v->loads && v->action == TG_ACTION_DENY ? "; policy: deny" : "");
}

/* Modules other packages of this transaction add for @rel: siblings in the set. */
static int add_siblings(struct tgp_state *st, struct tg_set *set, const char *rel,
			const struct tg_kernel *k)
{
	char r[256];

	for (size_t i = 0; i < st->n_pkgs; i++) {
		struct tgp_pkg *p = &st->pkgs[i];

		if (p->krel || !p->oot)
			continue;
		for (size_t j = 0; j < p->n_mods; j++) {
			struct tgp_mod *md = &p->mods[j];
			int e;

			if (!md->m || tg_kernel_release_from_path(md->path, r, sizeof(r)) < 0 ||
			    strcmp(r, rel))
				continue;
			if ((e = tg_set_add(set, md->path, md->m, k, p->name, NULL)) < 0)
				return e;
		}
	}
	return 0;
}

/* Judge @kp's kernel against the root's modules; keep the affected verdicts. */
static int judge_kernel(struct tgp_state *st, rpmts ts, struct tgp_pkg *kp)
{
	const struct tg_kernel *k = NULL;
	struct pkg_kmod *km = NULL;
	struct tg_verdict *v = NULL;
	struct tg_set *set = NULL;
	size_t n = 0, total;
	int r;

	tg_ctx_kernel(st->ctx, kp->krel, &k, NULL);
	if (!k || !k->symvers) {
		tgp_say(st, RPMLOG_WARNING, true, "taintguard: kernel %s (%s): its export table "
			"could not be read; the installed modules are not checked against it\n",
			kp->krel, kp->nevra);
		return 0;
	}
	r = pkg_kupdate_modules(st->root, kp->krel, k->symvers, ts, &st->lim, &km, &n);
	if (r < 0)
		return r;
	r = -ENOMEM;
	if (!(set = tg_set_new(st->ctx)))
		goto exit;
	for (size_t i = 0; i < n; i++)
		if ((r = tg_set_add(set, km[i].path, km[i].m, k, km[i].owner, km[i].error)) < 0)
			goto exit;
	if ((r = add_siblings(st, set, kp->krel, k)) < 0)
		goto exit;
	total = tg_set_count(set);
	r = -ENOMEM;
	if (!(v = calloc(total ? total : 1, sizeof(*v))) ||
	    !(kp->kv = calloc(n ? n : 1, sizeof(*kp->kv))))
		goto exit;
	if ((r = tg_set_predict(set, v)) < 0)
		goto exit;
	for (size_t i = 0; i < n; i++) {
		if (km[i].place != PKG_KMOD_WEAK_NOT && v[i].action == TG_ACTION_ALLOW) {
			rpmlog(RPMLOG_DEBUG, "taintguard: kernel %s: %s: fine\n", kp->krel, km[i].path);
			continue;
		}
		say(st, kp, &km[i], &v[i]);
		if (km[i].place == PKG_KMOD_WEAK_NOT && v[i].action == TG_ACTION_ALLOW)
			v[i].action = TG_ACTION_MARK;	/* missing is worth recording */
		kp->kv[kp->nkv] = v[i];
		memset(&v[i], 0, sizeof(v[i]));
		if (!kp->kv[kp->nkv].package && km[i].owner)
			kp->kv[kp->nkv].package = strdup(km[i].owner);
		kp->nkv++;
	}
	r = 0;
exit:
	for (size_t i = 0; v && set && i < tg_set_count(set); i++)
		tg_verdict_free_contents(&v[i]);
	free(v);
	tg_set_free(set);
	pkg_kmods_free(km, n);
	return r;
}

void tgp_kupdate(struct tgp_state *st, rpmts ts)
{
	for (size_t i = 0; i < st->n_pkgs; i++) {
		struct tgp_pkg *p = &st->pkgs[i];
		rpmfiles files = rpmteFiles(p->te);
		char rel[256];

		if (files && !p->oot && pkg_files_kernel_release(files, rel, sizeof(rel)))
			p->krel = strdup(rel);
		rpmfilesFree(files);
	}
	for (size_t i = 0; i < st->n_pkgs; i++) {
		struct tgp_pkg *p = &st->pkgs[i];
		int r;

		if (!p->krel)
			continue;
		r = judge_kernel(st, ts, p);
		if (r < 0)	/* never a reason to refuse the kernel */
			tgp_say(st, RPMLOG_WARNING, true, "taintguard: kernel %s (%s): cannot check "
				"the installed modules: %s\n", p->krel, p->nevra, strerror(-r));
		else if (p->nkv)
			tgp_say(st, RPMLOG_WARNING, true, "taintguard: kernel %s (%s): %zu installed "
				"module%s will not load cleanly under it%s\n", p->krel, p->nevra, p->nkv,
				p->nkv == 1 ? "" : "s", st->kernel_deny ?
				"" : " (installing it anyway; %_taintguard_kernel_update deny stops "
				"such a transaction)");
		p->kdeny = st->kernel_deny && p->nkv > 0;
	}
}

rpmRC tgp_kupdate_psm_pre(struct tgp_state *st, struct tgp_pkg *pkg)
{
	if (!pkg->kdeny || st->mode != TGP_ENFORCE)
		return RPMRC_OK;
	/* an error dnf5 would keep in its log file only: tgp_say echoes it there */
	tgp_say(st, RPMLOG_ERR, true, "taintguard: refusing to install %s: %zu installed module%s "
		"would not load cleanly under kernel %s (%%_taintguard_kernel_update is deny)\n",
		pkg->nevra, pkg->nkv, pkg->nkv == 1 ? "" : "s", pkg->krel);
	pkg->refused = true;
	return RPMRC_FAIL;
}
