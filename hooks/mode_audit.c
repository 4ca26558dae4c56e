/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The safety net.  The two install-time checks (sign-file, pre-install) can be
 * bypassed: signing switched off, "dkms install --force", modules installed
 * before taintguard, a dkms run without the wrapper, and -- on purpose --
 * "dkms autoinstall" during a kernel upgrade, which must not fail.  So:
 *
 *   kernel-postinst KVER [IMAGE]   /etc/kernel/postinst.d/dkms-taintguard
 *   after-dkms DKMS-ARGS...        the dkms wrapper, after every dkms command
 *   sync                           by hand, or from dkms >= 3.2 post_transaction
 *
 * audit the DKMS modules installed for a kernel: denied ones are uninstalled
 * ("dkms uninstall") and blocked in modprobe.d, marked ones get a record; then
 * records and modprobe.d rules whose DKMS module is gone are dropped.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hook.h"

struct owner {
	char m[128], v[128], a[64];	/* m[0] == 0: not from a dkms package */
};

struct pkg_seen {
	char m[128], v[128], a[64];
	size_t first;	/* index of its first target */
};

/* Installed packages of @k: <tree>/<m>/kernel-<k>-<arch> -> <v>/<k>/<arch>. */
static int installed_packages(const char *tree, const char *k, struct pkg_seen **out, size_t *n)
{
	DIR *d = opendir(tree);
	struct dirent *e;
	size_t cap = 0;
	char prefix[300];

	*out = NULL;
	*n = 0;
	if (!d)
		return 0;
	hk_bfmt(prefix, sizeof(prefix), "kernel-%s-", k);
	while ((e = readdir(d))) {
		char mdir[PATH_MAX];
		DIR *md;
		struct dirent *f;

		if (e->d_name[0] == '.' || !hk_safe_name(e->d_name) || strlen(e->d_name) >= 128)
			continue;
		hk_bfmt(mdir, sizeof(mdir), "%s/%s", tree, e->d_name);
		md = opendir(mdir);
		if (!md)
			continue;
		while ((f = readdir(md))) {
			char link[PATH_MAX], target[PATH_MAX], *sl;
			const char *arch;
			ssize_t len;

			if (strncmp(f->d_name, prefix, strlen(prefix)))
				continue;
			arch = f->d_name + strlen(prefix);
			if (!hk_safe_name(arch) || strlen(arch) >= 64)
				continue;
			hk_bfmt(link, sizeof(link), "%s/%s", mdir, f->d_name);
			len = readlink(link, target, sizeof(target) - 1);
			if (len <= 0)
				continue;
			target[len] = '\0';
			sl = strchr(target, '/');
			if (!sl)
				continue;
			*sl = '\0';
			if (!hk_safe_name(target) || strlen(target) >= 128 ||
			    !hk_dkms_is_installed(tree, e->d_name, target, k, arch))
				continue;
			if (*n == cap) {
				size_t ncap = cap ? cap * 2 : 8;
				struct pkg_seen *np = realloc(*out, ncap * sizeof(*np));

				if (!np)
					break;
				*out = np;
				cap = ncap;
			}
			memset(&(*out)[*n], 0, sizeof(**out));
			hk_bfmt((*out)[*n].m, 128, "%s", e->d_name);
			hk_bfmt((*out)[*n].v, 128, "%s", target);
			hk_bfmt((*out)[*n].a, 64, "%s", arch);
			(*n)++;
		}
		closedir(md);
	}
	closedir(d);
	return 0;
}

static int run_depmod(const char *k)
{
	char *argv[] = { "depmod", "-a", (char *)k, NULL };

	return hk_run_wait(argv);
}

static int dkms_uninstall(const struct settings *s, const struct owner *o, const char *k)
{
	char mv[300];
	char *argv[] = { (char *)s->dkms, "uninstall", mv, "-k", (char *)k, "-a", (char *)o->a,
			 NULL };

	hk_bfmt(mv, sizeof(mv), "%s/%s", o->m, o->v);
	return hk_run_wait(argv);
}

/* kernel-postinst: the modules not from DKMS are judged too (mode_kupdate.c) */
static bool audit_others;

int hk_audit_kernel(struct settings *s, const char *k, bool verbose)
{
	const char *tree = hk_settings_dkms_tree(s);
	struct pkg_seen *pk = NULL;
	size_t npk = 0;
	struct strv files = { 0 };
	struct owner *own = NULL;
	struct target *targets = NULL;
	char (*pkgs)[300] = NULL;
	struct judgement j = { 0 };
	char dir[PATH_MAX];
	int denied = 0, stray_removed = 0;

	if (!hk_safe_name(k)) {
		hk_msg("'%s' is not a kernel release", k);
		return -EINVAL;
	}
	installed_packages(tree, k, &pk, &npk);
	/* What modprobe would load: the files in the install tree ... */
	hk_bfmt(dir, sizeof(dir), "%s/%s/updates/dkms", s->install_tree, k);
	hk_collect_modules(&files, dir, true);
	own = calloc(files.n + 1, sizeof(*own));
	/* ... and, for packages installed elsewhere (/extra, /updates), their tree copies. */
	for (size_t p = 0; own && p < npk; p++) {
		struct strv mods = { 0 };

		hk_bfmt(dir, sizeof(dir), "%s/%s/%s/%s/%s/module", tree, pk[p].m, pk[p].v, k, pk[p].a);
		hk_collect_modules(&mods, dir, true);
		for (size_t i = 0; i < mods.n; i++) {
			bool found = false;

			for (size_t f = 0; f < files.n; f++) {
				if (hk_same_module_file(mods.v[i], files.v[f]) && !own[f].m[0]) {
					hk_bfmt(own[f].m, 128, "%s", pk[p].m);
					hk_bfmt(own[f].v, 128, "%s", pk[p].v);
					hk_bfmt(own[f].a, 64, "%s", pk[p].a);
					found = true;
					break;
				}
			}
			if (!found && strv_push(&files, mods.v[i]) == 0) {
				struct owner *no = realloc(own, (files.n + 1) * sizeof(*no));

				if (!no)
					break;
				own = no;
				memset(&own[files.n - 1], 0, sizeof(*own));
				hk_bfmt(own[files.n - 1].m, 128, "%s", pk[p].m);
				hk_bfmt(own[files.n - 1].v, 128, "%s", pk[p].v);
				hk_bfmt(own[files.n - 1].a, 64, "%s", pk[p].a);
			}
		}
		strv_free(&mods);
	}
	if (!own) {
		hk_msg("out of memory");
		goto out;
	}
	if (files.n == 0)
		goto out;
	targets = calloc(files.n, sizeof(*targets));
	pkgs = calloc(files.n, sizeof(*pkgs));
	if (!targets || !pkgs)
		goto out;
	for (size_t i = 0; i < files.n; i++) {
		targets[i].path = files.v[i];
		if (own[i].m[0]) {
			hk_bfmt(pkgs[i], sizeof(pkgs[i]), "%s/%s", own[i].m, own[i].v);
			targets[i].package = pkgs[i];
		}
	}
	if (hk_judge(s, k, targets, files.n, NULL, &j) < 0 || j.n != files.n)
		goto out;
	if (verbose)
		hk_msg("audited %zu DKMS module file(s) of kernel %s", files.n, k);

	/* Strays: denied files no dkms package owns are deleted. */
	for (size_t i = 0; i < j.n; i++) {
		char out[PATH_MAX + 200];

		if (own[i].m[0] || j.v[i].action == TG_ACTION_ALLOW)
			continue;
		if (j.v[i].action == TG_ACTION_MARK || s->mode == HOOK_WARN) {
			hk_report_verdict(&j, &j.v[i], NULL,
					  "no dkms package owns this file; left in place", NULL);
			continue;
		}
		denied++;
		if (unlink(files.v[i]) == 0) {
			stray_removed++;
			hk_bfmt(out, sizeof(out), "outcome: deleted %s (no dkms package owns it)",
				files.v[i]);
		} else {
			hk_bfmt(out, sizeof(out), "outcome: could not delete %s: %s", files.v[i],
				strerror(errno));
		}
		hk_report_verdict(&j, &j.v[i], NULL, out, NULL);
	}
	if (stray_removed)
		run_depmod(k);

	/* Packages: all their files together. */
	for (size_t p = 0; p < npk; p++) {
		const struct tg_verdict **vp = calloc(j.n, sizeof(*vp));
		struct owner o;
		size_t nv = 0;
		bool deny = false;
		char pkg[300], nbuf[128], rule[PATH_MAX], out[1024], retry[600];

		if (!vp)
			break;
		memset(&o, 0, sizeof(o));
		hk_bfmt(o.m, sizeof(o.m), "%s", pk[p].m);
		hk_bfmt(o.v, sizeof(o.v), "%s", pk[p].v);
		hk_bfmt(o.a, sizeof(o.a), "%s", pk[p].a);
		hk_bfmt(pkg, sizeof(pkg), "%s/%s", o.m, o.v);
		for (size_t i = 0; i < j.n; i++)
			if (!strcmp(own[i].m, o.m) && !strcmp(own[i].v, o.v) && !strcmp(own[i].a, o.a)) {
				vp[nv++] = &j.v[i];
				if (j.v[i].action == TG_ACTION_DENY && s->mode == HOOK_ENFORCE)
					deny = true;
			}
		if (!deny) {
			for (size_t i = 0; i < nv; i++) {
				const char *name = hk_verdict_name(vp[i], nbuf, sizeof(nbuf));

				if (name)
					hk_rule_drop(s, name, pkg, k, o.a);
			}
			hk_record_write(s, &j, o.m, o.v, k, o.a, vp, nv);
			free(vp);
			continue;
		}
		for (size_t i = 0; i < nv; i++) {
			const char *name = hk_verdict_name(vp[i], nbuf, sizeof(nbuf));

			if (vp[i]->action != TG_ACTION_DENY)
				continue;
			denied++;
			if (name) {
				hk_rule_add(s, name, pkg, k, o.a,
					    vp[i]->n_reasons ? vp[i]->reasons[0] : NULL);
				hk_rule_path(s, name, rule, sizeof(rule));
			} else {
				hk_bfmt(rule, sizeof(rule), "(no rule: unusable module name)");
			}
			hk_bfmt(out, sizeof(out),
				"outcome: it was installed for %s; taintguard uninstalls %s (dkms "
				"uninstall) and \"modprobe %s\" is blocked by %s",
				k, pkg, name ? name : "?", rule);
			hk_bfmt(retry, sizeof(retry), "dkms install %s -k %s", pkg, k);
			hk_report_verdict(&j, vp[i], pkg, out, retry);
		}
		if (dkms_uninstall(s, &o, k) != 0 || hk_dkms_is_installed(tree, o.m, o.v, k, o.a)) {
			bool gone = false;

			hk_msg("\"dkms uninstall %s -k %s\" failed; deleting the denied files instead",
			       pkg, k);
			for (size_t i = 0; i < j.n; i++)
				if (own[i].m[0] && !strcmp(own[i].m, o.m) &&
				    !strcmp(own[i].v, o.v) && j.v[i].action == TG_ACTION_DENY &&
				    !strncmp(files.v[i], s->install_tree, strlen(s->install_tree)) &&
				    unlink(files.v[i]) == 0)
					gone = true;
			if (gone)
				run_depmod(k);
		}
		hk_record_remove(s, o.m, o.v, k);
		free(vp);
	}
out:
	if (audit_others) {
		hk_kupdate_others(s, k, &files);
		hk_kupdate_missing(s, k);
	}
	hk_judgement_free(&j);
	free(targets);
	free(pkgs);
	free(own);
	free(pk);
	strv_free(&files);
	return denied;
}

static void sync_all(struct settings *s, bool verbose)
{
	hk_rule_sync(s, verbose);
	hk_record_sync(s, verbose);
}

int hk_mode_kernel_postinst(int argc, char **argv)
{
	struct settings s;
	int denied;

	if (argc < 2 || !argv[1][0]) {
		hk_msg("kernel-postinst: needs the kernel release (KVER [IMAGE])");
		return 0;
	}
	hk_settings_load(&s);
	audit_others = true;
	denied = hk_audit_kernel(&s, argv[1], false);
	sync_all(&s, true);
	if (denied > 0) {
		hk_msg("%d DKMS module(s) for kernel %s denied by the taintguard policy; they are not "
		       "installed%s",
		       denied, argv[1],
		       s.fail_kernel_upgrade ? " (fail_kernel_upgrade=yes: failing this kernel hook)" :
					       " (the kernel upgrade goes on)");
		return s.fail_kernel_upgrade ? 1 : 0;
	}
	return 0;
}

/* dkms's command line: which action, which kernels. */
int hk_mode_after_dkms(int argc, char **argv)
{
	static const char *const installing[] = { "install", "autoinstall", "kernel_postinst" };
	struct strv kernels = { 0 };
	struct settings s;
	bool audit = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;

		if ((!strcmp(a, "-k") || !strcmp(a, "--kernelver")) && i + 1 < argc)
			val = argv[++i];
		else if (!strncmp(a, "--kernelver=", 12))
			val = a + 12;
		else if (!strncmp(a, "-k", 2) && a[2])
			val = a + 2;
		else
			for (size_t w = 0; w < sizeof(installing) / sizeof(installing[0]); w++)
				if (!strcmp(a, installing[w]))
					audit = true;
		if (val) {
			char kv[256], *sl;

			hk_bfmt(kv, sizeof(kv), "%s", val);
			sl = strchr(kv, '/');	/* -k KVER/ARCH */
			if (sl)
				*sl = '\0';
			if (hk_safe_name(kv) && !strv_has(&kernels, kv))
				strv_push(&kernels, kv);
		}
	}
	hk_settings_load(&s);
	if (audit) {
		struct utsname u;

		/* dkms without -k acts on the running kernel (its own uname -r): follow it */
		if (kernels.n == 0 && uname(&u) == 0)
			strv_push(&kernels, u.release);
		for (size_t i = 0; i < kernels.n; i++)
			hk_audit_kernel(&s, kernels.v[i], false);
	}
	sync_all(&s, true);
	strv_free(&kernels);
	return 0;
}

int hk_mode_sync(int argc, char **argv)
{
	struct settings s;

	(void)argc;
	(void)argv;
	hk_settings_load(&s);
	sync_all(&s, true);
	return 0;
}
