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
#include <rpm/rpmmacro.h>
#include <rpm/rpmstring.h>

#include "tgp.h"

/*
 * One line per affected module: the same one reason as every front end
 * (pkg_kupdate_line()).  Said in tsm_pre, which dnf5 never shows on its
 * terminal (docs/clients.md): echoed on stderr where the client hides rpmlog
 * lines.  A dnf plugin that said these lines before rpm ran (it defines
 * %_taintguard_kernel_update_said) has them on the terminal once already:
 * here they go to the debug log only.
 */
static bool client_said(void)
{
	return rpmExpandNumeric("%{?_taintguard_kernel_update_said}") > 0;
}

static void say(struct tgp_state *st, const struct tgp_pkg *kp, const struct pkg_kmod *km,
		const struct tg_verdict *v)
{
	char *line = pkg_kupdate_line(kp->krel, km, v);
	bool said = client_said();

	if (line)
		tgp_say(st, said ? RPMLOG_DEBUG : RPMLOG_WARNING, !said, "taintguard: %s\n", line);
	free(line);
}

/*
 * The modules other packages of this transaction add for @rel, judged beside
 * the root's so that imports resolve: their number, and with @items (room
 * for that number) the items themselves.
 */
static size_t siblings(const struct tgp_state *st, const char *rel, struct tg_judge_item *items)
{
	size_t n = 0;
	char r[256];

	for (size_t i = 0; i < st->n_pkgs; i++) {
		const struct tgp_pkg *p = &st->pkgs[i];

		for (size_t j = 0; !p->krel && p->oot && j < p->n_mods; j++) {
			const struct tgp_mod *md = &p->mods[j];

			if (!md->m || tg_kernel_release_from_path(md->path, r, sizeof(r)) < 0 ||
			    strcmp(r, rel))
				continue;
			if (items)
				items[n] = (struct tg_judge_item){ .path = md->path, .m = md->m,
								   .package = p->name,
								   .context = true };
			n++;
		}
	}
	return n;
}

/* Keep the verdict of the root's module @km if the new kernel will not load it cleanly. */
static void keep(struct tgp_state *st, struct tgp_pkg *kp, const struct pkg_kmod *km,
		 struct tg_verdict *v)
{
	if (!pkg_kupdate_affected(km, v)) {
		rpmlog(RPMLOG_DEBUG, "taintguard: kernel %s: %s: fine\n", kp->krel, km->path);
		return;
	}
	say(st, kp, km, v);
	if (km->place == PKG_KMOD_WEAK_NOT && v->action == TG_ACTION_ALLOW)
		v->action = TG_ACTION_MARK;	/* missing is worth recording */
	kp->kv[kp->nkv] = *v;
	memset(v, 0, sizeof(*v));
	if (!kp->kv[kp->nkv].package && km->owner)
		kp->kv[kp->nkv].package = strdup(km->owner);
	kp->nkv++;
}

/* Judge @kp's kernel against the root's modules; keep the affected verdicts. */
static int judge_kernel(struct tgp_state *st, rpmts ts, struct tgp_pkg *kp)
{
	const struct tg_kernel *k = NULL;
	struct tg_judge_item *sib = NULL;
	struct pkg_kmod *km = NULL;
	struct tg_verdict *v = NULL;
	size_t n = 0, n_sib;
	int r;

	tg_ctx_kernel(st->ctx, kp->krel, &k, NULL);
	if (!k || !k->symvers) {
		tgp_say(st, RPMLOG_WARNING, true, "taintguard: kernel %s (%s): its export table "
			"could not be read; the installed modules are not checked against it\n",
			kp->krel, kp->nevra);
		return 0;
	}
	n_sib = siblings(st, kp->krel, NULL);
	if (n_sib && !(sib = calloc(n_sib, sizeof(*sib))))
		return -ENOMEM;
	siblings(st, kp->krel, sib);
	r = pkg_kupdate_judge(st->ctx, st->root, kp->krel, k->symvers, ts, &st->lim, sib, n_sib,
			      &km, &v, &n);
	free(sib);
	if (r == 0 && !(kp->kv = calloc(n ? n : 1, sizeof(*kp->kv))))
		r = -ENOMEM;
	for (size_t i = 0; i < n && r == 0; i++)
		keep(st, kp, &km[i], &v[i]);
	pkg_kupdate_free(km, v, n);
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
			tgp_say(st, client_said() ? RPMLOG_DEBUG : RPMLOG_WARNING, !client_said(),
				"taintguard: kernel %s (%s): %zu installed "
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
