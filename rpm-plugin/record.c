/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Mark records: STATEDIR/marks/NEVRA.json, one per installed package that
 * was marked (or installed in warn mode although denied).  Staged in the
 * first psm_pre, before any file, scriptlet or rpmdb entry of the package
 * exists (the backstop: when its judgement comes, before the file is put in
 * place); made final in psm_post once the package is in the rpmdb, or in
 * tsm_post; a staged record of an element that failed goes in tsm_post.
 * rpm killed in between leaves the staged record, which "taintguard status"
 * resolves against the rpmdb.  Records of erased packages go in tsm_post,
 * after the erasure.  psm hooks run inside the root, tsm hooks outside
 * (st->chrooted says which), hence the --root prefix only in the latter.
 * The file itself is the library's (tg_record_stage/write, format in
 * docs/records.md); this file says what an rpm package puts in it and
 * tells rpm's log what happened.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpm/rpmlog.h>
#include <rpm/rpmstring.h>

#include "tgp.h"

static char *marks_dir(struct tgp_state *st)
{
	const char *pfx = st->chrooted || !st->rootpfx ? "" : st->rootpfx;

	return rstrscat(NULL, pfx, st->statedir, "/marks", NULL);
}

char *tgp_record_path(struct tgp_state *st, const char *nevra)
{
	struct tg_record rec = { .source = TG_RECORD_RPM, .package = nevra };
	char *dir = marks_dir(st), *path = NULL;

	(void)tg_record_path(dir, &rec, &path, NULL);
	free(dir);
	return path;
}

/* Is @pkg one that gets a record (if rpm installs it)? */
static bool wanted(const struct tgp_pkg *pkg)
{
	return (pkg->action != TG_ACTION_ALLOW || pkg->nkv) && !pkg->refused;
}

/*
 * A package marked (or denied, in warn mode) goes in only with its record in
 * enforce mode: the record is what keeps a module status cannot find by
 * itself (one outside /lib/modules, found by its file class) on the list.
 * Staging comes before anything of the package exists, so a record that
 * cannot be written refuses it cleanly.  A kernel package gets a record for
 * the installed modules it affects, which are not refused by default
 * (%_taintguard_kernel_update): its record failing only warns, as in warn mode.
 */
static bool record_required(const struct tgp_state *st, const struct tgp_pkg *pkg)
{
	return st->mode == TGP_ENFORCE && pkg->action != TG_ACTION_ALLOW;
}

/* Staged or final: the record of @pkg as the library writes it. */
static int record_write(struct tgp_state *st, struct tgp_pkg *pkg, bool staged)
{
	char *dir = marks_dir(st);
	/* a kernel package: its own modules' verdicts, then the installed modules it affects */
	const struct tg_verdict **v = calloc(pkg->nv + pkg->nkv + 1, sizeof(*v));
	rpmte te = pkg->te;
	struct tg_record rec = {
		.source = TG_RECORD_RPM,
		.package = pkg->nevra,
		.name = rpmteN(te),
		.epoch = rpmteE(te),
		.version = rpmteV(te),
		.release = rpmteR(te),
		.arch = rpmteA(te),
		.action = pkg->action,
		.kernel = pkg->nkv ? pkg->krel : NULL,
		.mode = st->mode == TGP_WARN ? "warn" : "enforce",
		.policy = st->policy_fallback ? "<built-in policy>" : st->policy_path,
	};
	struct tg_error err = { 0 };
	int r;

	if (!v || !dir) {
		rpmlog(RPMLOG_WARNING, "taintguard: %s: cannot write the mark record: out of memory\n",
		       pkg->nevra);
		free(v);
		free(dir);
		return -ENOMEM;
	}
	size_t nv = 0;
	for (size_t i = 0; i < pkg->nv; i++)
		if (!pkg->nkv || pkg->v[i].action != TG_ACTION_ALLOW)
			v[nv++] = &pkg->v[i];
	for (size_t i = 0; i < pkg->nkv; i++) {
		v[nv++] = &pkg->kv[i];
		if (pkg->kv[i].action > rec.action)
			rec.action = pkg->kv[i].action;
	}
	if (rec.action == TG_ACTION_ALLOW)
		rec.action = TG_ACTION_MARK;
	if (staged)
		r = tg_record_stage(dir, &rec, v, nv, &err);
	else
		r = tg_record_write(dir, &rec, v, nv, &err);
	if (r < 0 && staged && record_required(st, pkg))
		tgp_say(st, RPMLOG_ERR, true, "taintguard: refusing to install %s: its mark record "
			"cannot be written: %s (in warn mode it installs without one)\n",
			pkg->nevra, err.msg);
	else if (r < 0)
		rpmlog(RPMLOG_WARNING, "taintguard: %s: cannot write the mark record: %s; "
		       "'taintguard status' will list this package as unrecorded\n",
		       pkg->nevra, err.msg);
	else
		rpmlog(RPMLOG_DEBUG, "taintguard: %s %s in %s\n", r == 1 ? "kept the record of" :
		       staged ? "staged" : "recorded", pkg->nevra, dir);
	free(v);
	free(dir);
	return r;
}

int tgp_record_stage(struct tgp_state *st, struct tgp_pkg *pkg)
{
	int r;

	if (!wanted(pkg) || pkg->staged || pkg->recorded)
		return 0;
	/* 1: a final record of an installed copy (a reinstall) stays as it is */
	r = record_write(st, pkg, true);
	pkg->staged = r == 0;
	if (r < 0 && record_required(st, pkg)) {
		pkg->refused = true;
		return r;
	}
	return 0;
}

void tgp_record_finish(struct tgp_state *st, struct tgp_pkg *pkg, bool installed)
{
	if (pkg->recorded)
		return;
	if (installed && wanted(pkg)) {
		pkg->recorded = record_write(st, pkg, false) == 0;
		pkg->staged = false;
	} else if (pkg->staged) {
		/* it failed before the rpmdb knew it: nothing of it is installed */
		pkg->staged = false;
		tgp_record_remove(st, pkg->nevra);
	}
}

void tgp_record_remove(struct tgp_state *st, const char *nevra)
{
	char *path = tgp_record_path(st, nevra);
	struct tg_error err = { 0 };
	int r;

	if (!path)	/* a name no record can have (the writer said so), or ENOMEM */
		return;
	/* a reinstall: the record is the new copy's now */
	for (size_t i = 0; i < st->n_pkgs; i++)
		if ((st->pkgs[i].recorded || st->pkgs[i].staged) && !strcmp(st->pkgs[i].nevra, nevra)) {
			free(path);
			return;
		}
	r = tg_record_remove(path, &err);
	if (r == 0)
		rpmlog(RPMLOG_DEBUG, "taintguard: removed %s\n", path);
	else if (r != -ENOENT)
		rpmlog(RPMLOG_WARNING, "taintguard: cannot remove the mark record: %s\n", err.msg);
	free(path);
}
