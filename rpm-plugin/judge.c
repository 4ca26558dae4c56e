/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Judging: the target kernel of each module (from its path, with exports
 * found in the target root or in a kernel-devel of the same transaction),
 * all modules of the transaction in one tg_set so that siblings resolve,
 * and the rpmlog lines that explain a refusal or a mark.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpm/rpmlog.h>
#include <rpm/rpmstring.h>

#include "tgp.h"

struct tgp_pkg *tgp_pkg_find(struct tgp_state *st, rpmte te)
{
	for (size_t i = 0; i < st->n_pkgs; i++)
		if (st->pkgs[i].te == te)
			return &st->pkgs[i];
	return NULL;
}

struct tgp_pkg *tgp_pkg_add(struct tgp_state *st, rpmte te)
{
	struct tgp_pkg *n = realloc(st->pkgs, (st->n_pkgs + 1) * sizeof(*n));

	if (!n)
		return NULL;
	st->pkgs = n;
	n = &st->pkgs[st->n_pkgs++];
	memset(n, 0, sizeof(*n));
	n->te = te;
	n->nevra = strdup(rpmteNEVRA(te) ? rpmteNEVRA(te) : "?");
	n->name = strdup(rpmteN(te) ? rpmteN(te) : "?");
	return n;
}

int tgp_mod_add(struct tgp_mod **mods, size_t *n, const char *path, struct tg_module *m,
		const char *error)
{
	struct tgp_mod *a = realloc(*mods, (*n + 1) * sizeof(*a));

	if (!a) {
		tg_module_free(m);
		return -ENOMEM;
	}
	*mods = a;
	a[*n] = (struct tgp_mod){ .path = strdup(path), .m = m,
				  .error = error ? strdup(error) : NULL };
	if (!m && !error)
		a[*n].error = strdup("unreadable");
	(*n)++;
	return 0;
}

void tgp_mods_free(struct tgp_mod *mods, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(mods[i].path);
		tg_module_free(mods[i].m);
		free(mods[i].error);
	}
	free(mods);
}

static void verdicts_free(struct tg_verdict *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tg_verdict_free_contents(&v[i]);
	free(v);
}

void tgp_reset(struct tgp_state *st)
{
	for (size_t i = 0; i < st->n_pkgs; i++) {
		struct tgp_pkg *p = &st->pkgs[i];
		free(p->nevra);
		free(p->name);
		tgp_mods_free(p->mods, p->n_mods);
		verdicts_free(p->v, p->nv);
		verdicts_free(p->kv, p->nkv);
		free(p->krel);
		pkg_ftypes_free(p->types);
	}
	free(st->pkgs);
	st->pkgs = NULL;
	st->n_pkgs = 0;
	st->cur = NULL;
	tgp_prefetch_end(st);	/* its thread reads st->root */
	pkg_kernelset_free(st->ks);
	st->ks = NULL;
	if (st->ctx)
		tg_ctx_forget_kernels(st->ctx);
	free(st->root);
	st->root = NULL;
	free(st->rootpfx);
	st->rootpfx = NULL;
	st->chrooted = false;
	st->unchecked_said = false;
}

static void warn_kernel_file(void *ctx, const char *msg)
{
	(void)ctx;
	rpmlog(RPMLOG_WARNING, "taintguard: %s\n", msg);
}

/*
 * A kernel being installed has its own modules in this transaction, not yet
 * in the root: what the library learns from in-tree modules on disk
 * (vermagic, sizeof(struct module)) comes from them instead.  Only a package
 * without out-of-tree modules vouches, and only for modules that say
 * "intree", as the library's own rule is.
 */
static void learn_from_transaction(struct tgp_state *st, const char *release, struct tg_kernel *k)
{
	for (size_t i = 0; i < st->n_pkgs && (!k->this_module_size || !k->vermagic); i++) {
		const struct tgp_pkg *p = &st->pkgs[i];

		for (size_t j = 0; !p->oot && j < p->n_mods; j++)
			if (pkg_kernel_learn(k, release, p->nevra, p->mods[j].path, p->mods[j].m))
				break;
	}
}

/*
 * The context's kernel loader: the target root's kernel, completed by the
 * kernel files of this transaction only where the root lacks them (a kernel
 * being installed).  Any package could carry a Module.symvers or .config,
 * and must not rewrite an installed kernel's exports or settings to get its
 * own modules through.  A kernel that cannot be gathered is unknown.
 */
static int load_kernel(void *data, const char *release, struct tg_kernel **out,
		       struct tg_error *err)
{
	struct tgp_state *st = data;
	/* psm/fsm hooks run chrooted: the target root is "/" there */
	struct tg_kernel_opts o = { .root = st->chrooted || !st->root ? "/" : st->root,
				    .limits = &st->lim };
	int r;

	*out = NULL;
	if (!release || !*release)
		return 0;
	if (!tgp_prefetch_take(st, release, out, &r, err))
		r = pkg_kernelset_kernel(st->ks, &o, release, PKG_ROOT_FIRST, out, err);
	if (r < 0) {
		rpmlog(RPMLOG_WARNING, "taintguard: kernel %s: %s\n", release, err->msg);
		*out = NULL;
	}
	if (*out && !st->chrooted)	/* tsm_pre: the transaction's modules are at hand */
		learn_from_transaction(st, release, *out);
	return 0;
}

int tgp_begin(struct tgp_state *st)
{
	tg_ctx_set_kernel_loader(st->ctx, load_kernel, st);
	st->ks = pkg_kernelset_new(warn_kernel_file, NULL);
	return st->ks ? 0 : -ENOMEM;	/* a NULL set holds no file */
}

/* Verdicts back to their packages, in the order their modules were given. */
static void distribute(struct tgp_pkg **pkgs, size_t n, struct tg_verdict *v)
{
	size_t off = 0;

	for (size_t i = 0; i < n; i++) {
		struct tgp_pkg *p = pkgs[i];

		verdicts_free(p->v, p->nv);
		p->nv = p->n_mods;
		p->v = calloc(p->nv ? p->nv : 1, sizeof(*p->v));
		p->action = TG_ACTION_ALLOW;
		if (!p->v) {	/* cannot keep the verdicts: refuse, never "clean" */
			p->nv = 0;
			p->action = TG_ACTION_DENY;
			off += p->n_mods;
			continue;
		}
		for (size_t j = 0; j < p->nv; j++) {
			p->v[j] = v[off];
			memset(&v[off], 0, sizeof(v[off]));
			off++;
			if (!p->v[j].package)
				p->v[j].package = strdup(p->nevra);
			if (p->v[j].action > p->action)
				p->action = p->v[j].action;
		}
	}
}

/*
 * All modules of @pkgs as one set, each against the kernel of its
 * /lib/modules/R/ path or, outside it, of its vermagic (tg_judge()).
 */
int tgp_judge(struct tgp_state *st, struct tgp_pkg **pkgs, size_t n)
{
	struct tg_judge_item *items = NULL;
	struct tg_verdict *v = NULL;
	size_t total = 0, k = 0;
	int r = -ENOMEM;

	for (size_t i = 0; i < n; i++)
		total += pkgs[i]->n_mods;
	if (!(items = calloc(total ? total : 1, sizeof(*items))) ||
	    !(v = calloc(total ? total : 1, sizeof(*v))))
		goto exit;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < pkgs[i]->n_mods; j++) {
			const struct tgp_mod *md = &pkgs[i]->mods[j];

			items[k++] = (struct tg_judge_item){ .path = md->path, .m = md->m,
							     .error = md->error,
							     .package = pkgs[i]->name };
		}
	/* a kernel that cannot be gathered was said by load_kernel(): judged as unknown */
	r = tg_judge(st->ctx, NULL, items, total, 0, v, NULL);
	if (r >= 0) {
		distribute(pkgs, n, v);
		r = 0;
	}
exit:
	if (v)
		verdicts_free(v, total);
	free(items);
	if (r < 0) {
		rpmlog(RPMLOG_ERR, "taintguard: cannot judge the kernel modules: %s\n",
		       strerror(-r));
		for (size_t i = 0; i < n; i++)
			pkgs[i]->action = pkgs[i]->n_mods ? TG_ACTION_DENY : TG_ACTION_ALLOW;
	}
	return r;
}

/* A deny that no module still to come could change (backstop). */
bool tgp_deny_definite(const struct tg_verdict *v)
{
	if (v->action != TG_ACTION_DENY)
		return false;
	for (size_t i = 0; i < v->n_refusals; i++)
		if (v->refusals[i].code && strcmp(v->refusals[i].code, "unknown-symbol") == 0)
			return false;	/* maybe a sibling not unpacked yet */
	return true;
}

/*
 * Once per transaction: the target root has no kernel to judge against (no
 * Module.symvers, no vermagic).  Every verdict then lacks the same facts;
 * saying so on each module's line would bury the reason that decided it.
 * Said with the first report (psm_pre), where dnf5 shows it, not in tsm_pre.
 */
static void report_unchecked(struct tgp_state *st, bool echo)
{
	const char *kernel = NULL;
	bool none = false;

	if (st->unchecked_said)
		return;
	st->unchecked_said = true;
	for (size_t i = 0; i < st->n_pkgs && !none; i++)
		for (size_t j = 0; j < st->pkgs[i].nv && !none; j++) {
			const struct tg_verdict *v = &st->pkgs[i].v[j];

			for (size_t k = 0; v->incomplete && k < v->n_notes; k++)
				if (strstr(v->notes[k], "Module.symvers") ||
				    strstr(v->notes[k], "target kernel unknown")) {
					kernel = v->kernel;
					none = true;
					break;
				}
		}
	if (none)
		tgp_say(st, RPMLOG_WARNING, echo, "taintguard: not fully checked: the target root has "
			"no kernel%s%s to judge against (no Module.symvers): GPL-only symbols, CRCs "
			"and version magic are unknown\n", kernel ? " " : "", kernel ? kernel : "");
}

/*
 * One line per judged module (action, package, module, the reason that
 * decided), then once per package what to do: for a refusal how to
 * override, and where the full explanation is.
 */
void tgp_report(struct tgp_state *st, struct tgp_pkg *pkg, bool refuse)
{
	const char *pol = st->policy_path ? st->policy_path : TG_SYSCONFDIR "/policy.yaml";
	const char *firstmod = NULL;
	bool echo = refuse && !st->test;	/* a refused element gets no callback of its own */
	char line[512];

	report_unchecked(st, echo);
	for (size_t i = 0; i < pkg->nv; i++) {
		const struct tg_verdict *v = &pkg->v[i];
		struct tg_verdict shown;
		const char *what;
		int lvl;

		if (v->action == TG_ACTION_ALLOW) {
			rpmlog(RPMLOG_DEBUG, "taintguard: %s: %s: allowed\n", pkg->nevra, v->path);
			continue;
		}
		if (v->action == TG_ACTION_DENY) {
			lvl = refuse ? RPMLOG_ERR : RPMLOG_WARNING;
			what = refuse ? (st->test ? "would refuse" : "refused")
				      : "warn mode, installed although denied:";
			if (!firstmod && v->module)
				firstmod = v->module;
		} else {
			lvl = RPMLOG_WARNING;
			what = "marked";
		}
		shown = *v;	/* shallow: the line names the package by its NEVRA */
		shown.package = pkg->nevra;
		tg_verdict_headline(&shown, what, line, sizeof(line));
		tgp_say(st, lvl, echo, "taintguard: %s\n", line);
	}
	if (st->policy_fallback && pkg->action != TG_ACTION_ALLOW)
		tgp_say(st, refuse ? RPMLOG_ERR : RPMLOG_WARNING, echo,
			"taintguard: judged with the built-in policy: %s could not be loaded\n",
			st->policy_path);
	if (refuse && pkg->action == TG_ACTION_DENY)
	{
		/* two lines: each fits a terminal (at most 160 columns with rpm's prefix) */
		tgp_say(st, RPMLOG_ERR, echo, "taintguard: to install %s anyway, add an exception "
			"(package: \"%s\", module: \"%s\", action: mark, justification: ...)\n",
			pkg->nevra, pkg->name, firstmod ? firstmod : "*");
		tgp_say(st, RPMLOG_ERR, echo, "taintguard: to %s, or use --define "
			"'_taintguard_mode warn'; details: taintguard explain %s.rpm\n", pol, pkg->nevra);
	}
	else if (pkg->action != TG_ACTION_ALLOW && !st->test)
		rpmlog(RPMLOG_WARNING, "taintguard: details: taintguard explain %s\n", pkg->name);
}
