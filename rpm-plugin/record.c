/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Mark records: STATEDIR/marks/NEVRA.json, one per installed package that
 * was marked (or installed in warn mode although denied).  Written and
 * removed in tsm_post, once rpm knows which elements really succeeded; that
 * hook is not chrooted, so paths get the --root prefix.  The file itself is
 * the library's (tg_record_write, format in docs/records.md); this file
 * says what an rpm package puts in it and tells rpm's log what happened.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpm/rpmlog.h>
#include <rpm/rpmstring.h>

#include "tgp.h"

static char *marks_dir(struct tgp_state *st)
{
	return rstrscat(NULL, st->rootpfx ? st->rootpfx : "", st->statedir, "/marks", NULL);
}

char *tgp_record_path(struct tgp_state *st, const char *nevra)
{
	struct tg_record rec = { .source = TG_RECORD_RPM, .package = nevra };
	char *dir = marks_dir(st), *path = NULL;

	(void)tg_record_path(dir, &rec, &path, NULL);
	free(dir);
	return path;
}

int tgp_record_write(struct tgp_state *st, struct tgp_pkg *pkg)
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

	if (!v) {
		rpmlog(RPMLOG_WARNING, "taintguard: %s: cannot write the mark record: out of memory\n",
		       pkg->nevra);
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
	r = tg_record_write(dir, &rec, v, nv, &err);
	if (r < 0)
		/* The package is on disk by now; failing would not undo that. */
		rpmlog(RPMLOG_WARNING, "taintguard: %s: cannot write the mark record: %s; "
		       "'taintguard status' will not list this package, "
		       "'taintguard audit --installed' still finds it\n", pkg->nevra, err.msg);
	else
		rpmlog(RPMLOG_DEBUG, "taintguard: recorded %s in %s\n", pkg->nevra, dir);
	free(v);
	free(dir);
	return r;
}

void tgp_record_remove(struct tgp_state *st, const char *nevra)
{
	char *path = tgp_record_path(st, nevra);
	struct tg_error err = { 0 };
	int r;

	if (!path)	/* a name no record can have (tgp_record_write said so), or ENOMEM */
		return;
	r = tg_record_remove(path, &err);
	if (r == 0)
		rpmlog(RPMLOG_DEBUG, "taintguard: removed %s\n", path);
	else if (r != -ENOENT)
		rpmlog(RPMLOG_WARNING, "taintguard: cannot remove the mark record: %s\n", err.msg);
	free(path);
}
