/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A new kernel on a Debian (or any DKMS) host: the modules that are not
 * DKMS's in INSTALL_TREE/KVER/extra and updates (a vendor's .deb, a copy
 * made by hand, a module built for the old kernel and copied over) are
 * judged as one set against the new kernel and each affected one is named,
 * from the kernel postinst.d hook, before the boot loader's entry for the
 * new kernel becomes the default (docs/kernel-update.md).  They are not
 * taintguard's to delete: this only says it.  DKMS builds are judged by
 * hk_audit_kernel() already; the DKMS modules installed for another kernel
 * and not for this one are named with why (pkg_dkms_missing()), in the
 * words of audit's kernel table and the rpm plugin: "will be missing".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "hook.h"
#include "owners.h"

/*
 * Not one of the DKMS files of this kernel: dkms's own directory, or the
 * same file as one of them, by device and inode (another path to it).
 */
static bool from_dkms(const char *path, const char *dkms_dir, const struct pkg_fileset *dkms)
{
	struct stat st;

	if (!strncmp(path, dkms_dir, strlen(dkms_dir)))
		return true;
	return stat(path, &st) == 0 && pkg_fileset_find(dkms, &st, NULL, NULL);
}

int hk_kupdate_others(struct settings *s, const char *k, const struct strv *dkms)
{
	static const char *const subs[] = { "extra", "updates" };
	struct strv files = { 0 };
	struct pkg_fileset ids = { 0 };
	struct target *t = NULL;
	struct judgement j = { 0 };
	char dir[PATH_MAX], dkms_dir[PATH_MAX];
	int affected = 0;

	hk_bfmt(dkms_dir, sizeof(dkms_dir), "%s/%s/updates/dkms/", s->install_tree, k);
	for (size_t i = 0; i < dkms->n; i++) {
		struct stat st;

		if (stat(dkms->v[i], &st) == 0 && pkg_fileset_add(&ids, &st, NULL, 0) < 0)
			goto out;
	}
	for (size_t i = 0; i < 2; i++) {
		struct strv all = { 0 };

		hk_bfmt(dir, sizeof(dir), "%s/%s/%s", s->install_tree, k, subs[i]);
		hk_collect_modules(&all, dir, true);
		for (size_t f = 0; f < all.n; f++)
			if (!from_dkms(all.v[f], dkms_dir, &ids))
				strv_push(&files, all.v[f]);
		strv_free(&all);
	}
	if (!files.n)
		goto out;
	t = calloc(files.n, sizeof(*t));
	if (!t)
		goto out;
	for (size_t i = 0; i < files.n; i++)
		t[i].path = files.v[i];
	if (hk_judge(s, k, t, files.n, NULL, &j) < 0 || j.n != files.n)
		goto out;
	for (size_t i = 0; i < j.n; i++) {
		const struct tg_verdict *v = &j.v[i];
		char why[160];	/* the one reason every front end's line gives */

		if (v->action == TG_ACTION_ALLOW)
			continue;
		affected++;
		tg_verdict_reason(v, why, sizeof(why));
		hk_msg("kernel %s: module %s (%s, not from DKMS): %s%s", k,
		       v->module ? v->module : "?", v->path, why,
		       v->loads && v->action == TG_ACTION_DENY ? "; policy: deny" : "");
	}
	if (affected)
		hk_msg("kernel %s: %d module(s) not from DKMS will not load cleanly under it; they are "
		       "left in place (the kernel upgrade goes on)",
		       k, affected);
out:
	pkg_fileset_free(&ids);
	hk_judgement_free(&j);
	free(t);
	strv_free(&files);
	return affected;
}

int hk_kupdate_missing(struct settings *s, const char *k)
{
	struct pkg_dkms_missing *ms = NULL;
	size_t n = 0;

	if (pkg_dkms_missing(NULL, hk_settings_dkms_tree(s), s->install_tree, k, &ms, &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		hk_msg("kernel %s: %s: module %s (%s): will be missing: %s", k, ms[i].name,
		       ms[i].module, ms[i].path, ms[i].why);
	if (n)
		hk_msg("kernel %s: %zu DKMS module(s) installed for another kernel will be missing "
		       "under it (the kernel upgrade goes on)",
		       k, n);
	pkg_dkms_missing_free(ms, n);
	return (int)n;
}
