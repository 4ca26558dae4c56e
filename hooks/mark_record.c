/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Records of marked DKMS modules, next to the rpm plugin's:
 * /var/lib/taintguard/marks/dkms-<module>-<version>-<kver>.json, listed by
 * "taintguard status".  A record exists while the DKMS module/version is
 * installed for that kernel; "taintguard-dkms sync" drops the others.  The
 * pre-install hook stages it (before the module is in the tree), the
 * wrapper's after-dkms audit makes it final.  The
 * files are the library's (tg_record_*, format in docs/records.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook.h"

static void record_of(struct tg_record *rec, char *pkg, size_t len, const char *module,
		      const char *version, const char *kernel)
{
	hk_bfmt(pkg, len, "%s/%s", module, version);
	memset(rec, 0, sizeof(*rec));
	rec->source = TG_RECORD_DKMS;
	rec->package = pkg;
	rec->name = module;
	rec->version = version;
	rec->kernel = kernel;
}

static int record_put(const struct settings *s, const struct judgement *j, const char *module,
		      const char *version, const char *kernel, const char *arch,
		      const struct tg_verdict *const *v, size_t n, bool staged)
{
	const struct tg_verdict **shown;
	struct tg_error err = { 0 };
	struct tg_record rec;
	char pkg[512];
	size_t ns = 0;
	int r;

	if (!hk_safe_name(module) || !hk_safe_name(version) || !hk_safe_name(kernel))
		return -EINVAL;
	record_of(&rec, pkg, sizeof(pkg), module, version, kernel);
	rec.arch = arch && *arch ? arch : NULL;
	rec.mode = s->mode == HOOK_WARN ? "warn" : "enforce";
	rec.policy = j->policy_error[0] ? "<built-in policy>" : tg_policy_source(j->policy);
	rec.action = TG_ACTION_ALLOW;
	for (size_t i = 0; i < n; i++)
		if (v[i]->action > rec.action)
			rec.action = v[i]->action;
	if (rec.action == TG_ACTION_ALLOW)
		return hk_record_remove(s, module, version, kernel);
	/* the modules the record is about: those not allowed */
	shown = calloc(n, sizeof(*shown));
	if (!shown)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (v[i]->action != TG_ACTION_ALLOW)
			shown[ns++] = v[i];
	r = staged ? tg_record_stage(s->marks_dir, &rec, shown, ns, &err)
		   : tg_record_write(s->marks_dir, &rec, shown, ns, &err);
	if (r < 0)
		hk_msg("cannot write the mark record: %s", err.msg);
	free(shown);
	return r;
}

int hk_record_write(const struct settings *s, const struct judgement *j, const char *module,
		    const char *version, const char *kernel, const char *arch,
		    const struct tg_verdict *const *v, size_t n)
{
	return record_put(s, j, module, version, kernel, arch, v, n, false);
}

/*
 * Before dkms copies the module into the kernel's tree: a staged record,
 * made final by the wrapper's after-dkms audit once dkms has installed it.
 * dkms killed in between leaves it staged, and "taintguard status" counts
 * it as a mark only if dkms had installed the module (its kernel-KVER-ARCH
 * link), so a kill never loses a mark nor invents one.
 */
int hk_record_stage(const struct settings *s, const struct judgement *j, const char *module,
		    const char *version, const char *kernel, const char *arch,
		    const struct tg_verdict *const *v, size_t n)
{
	return record_put(s, j, module, version, kernel, arch, v, n, true);
}

int hk_record_remove(const struct settings *s, const char *module, const char *version,
		     const char *kernel)
{
	struct tg_error err = { 0 };
	struct tg_record rec;
	char pkg[512], *path;
	int r;

	if (!hk_safe_name(module) || !hk_safe_name(version) || !hk_safe_name(kernel))
		return -EINVAL;
	record_of(&rec, pkg, sizeof(pkg), module, version, kernel);
	r = tg_record_path(s->marks_dir, &rec, &path, &err);
	if (r < 0)
		return r;
	r = tg_record_remove(path, &err);
	free(path);
	return r == -ENOENT ? 0 : r;
}

/* Should this record go?  Only a DKMS record whose build is gone from the tree. */
static bool record_gone(const char *tree, const struct tg_record *rec)
{
	const char *m = rec->name, *v = rec->version, *k = rec->kernel, *a = rec->arch;

	if (rec->source != TG_RECORD_DKMS || !m || !v || !k || !a)
		return false;
	if (!hk_safe_name(m) || !hk_safe_name(v) || !hk_safe_name(k) || !hk_safe_name(a))
		return false;
	return !hk_dkms_is_installed(tree, m, v, k, a);
}

int hk_record_sync(struct settings *s, bool verbose)
{
	const char *tree = hk_settings_dkms_tree(s);
	struct tg_error err = { 0 };
	char **paths;
	size_t n;
	int removed = 0;

	if (tg_record_list(s->marks_dir, &paths, &n, &err) < 0) {
		if (verbose)
			hk_msg("cannot list the mark records: %s", err.msg);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct tg_record *rec = NULL;

		if (tg_record_read(paths[i], &rec, &err) < 0) {
			/* not ours to judge: "taintguard status" reports it */
			if (verbose)
				hk_msg("%s; left alone", err.msg);
			continue;
		}
		if (record_gone(tree, rec) && tg_record_remove(paths[i], &err) == 0) {
			removed++;
			if (verbose)
				hk_msg("removed %s: %s is no longer installed for %s", paths[i],
				       rec->package, rec->kernel);
		}
		tg_record_free(rec);
	}
	tg_record_list_free(paths, n);
	return removed;
}
