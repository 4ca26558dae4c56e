/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pre-install: a dkms PRE_INSTALL script.  Two ways in:
 *  - system-wide: the dkms wrapper exports
 *    DKMS_DIRECTIVE_TG=PRE_INSTALL=../../(...)/taintguard-dkms-pre-install,
 *    which REPLACES the package's own PRE_INSTALL, so we run that one after;
 *  - per package: PRE_INSTALL="<path to taintguard-dkms-pre-install>" in a
 *    package's dkms.conf (relative to its source dir).
 * dkms gives us kernelver, arch, module, module_version in the environment and
 * runs us in <dkms_tree>/<module>/<version>/source.  A non-zero exit makes dkms
 * say "pre_install failed, aborting install." (rc 101) and install nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook.h"

/* Re-read the package's dkms.conf (+ /etc/dkms overrides) and exec its own PRE_INSTALL. */
static int exec_own_pre_install(const char *src, const struct dkms_ctx *c, const char *tree)
{
	static const char script[] =
		"src=$1 me=$2 kernelver=$3 arch=$4 module=$5 module_version=$6 dkms_tree=$7\n"
		"source_tree=${source_tree:-/usr/src}\n"
		"kernel_source_dir=${kernel_source_dir:-/lib/modules/$kernelver/build}\n"
		"unset PRE_INSTALL ${!DKMS_DIRECTIVE_@}\n"
		"for f in \"$src/dkms.conf\" \"/etc/dkms/$module.conf\" \"/etc/dkms/$module-$module_version.conf\" \\\n"
		"    \"/etc/dkms/$module-$module_version-$kernelver.conf\" \\\n"
		"    \"/etc/dkms/$module-$module_version-$kernelver-$arch.conf\"; do\n"
		"  [ -e \"$f\" ] && . \"$f\" >/dev/null 2>&1 </dev/null\n"
		"done\n"
		"[ -n \"$PRE_INSTALL\" ] || exit 0\n"
		"run=\"$src/$PRE_INSTALL\"\n"
		"first=${run%% *}\n"
		"[ \"$first\" -ef \"$me\" ] && exit 0\n"
		"if [[ -x $first ]]; then\n"
		"  echo \"Running the package's own pre_install script ($PRE_INSTALL):\"\n"
		"  cd \"$src\" && exec $run\n"
		"fi\n"
		"echo \"taintguard-dkms: the package's pre_install script is not executable: $first\" >&2\n"
		"exit 0\n";
	char me[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", me, sizeof(me) - 1);
	char *argv[] = { "bash", "-c", (char *)script, "taintguard-dkms", (char *)src, me,
			 (char *)c->kernelver, (char *)c->arch, (char *)c->module,
			 (char *)c->module_version, (char *)tree, NULL };

	me[n > 0 ? n : 0] = '\0';
	fflush(stdout);
	fflush(stderr);
	execv("/bin/bash", argv);
	hk_msg("cannot run /bin/bash to find the package's own PRE_INSTALL: %s", strerror(errno));
	return 1;
}

/*
 * Per-package use with arguments: PRE_INSTALL="<rel>/taintguard-dkms-pre-install
 * own_script.sh ARGS": after the check, run own_script.sh (relative to the
 * source dir, as dkms would) with ARGS.
 */
static int exec_chained(const char *src, int argc, char **argv)
{
	char path[PATH_MAX];

	if (argv[0][0] != '/') {
		hk_bfmt(path, sizeof(path), "%s/%s", src, argv[0]);
		argv[0] = path;
	}
	(void)argc;
	if (access(argv[0], X_OK) != 0) {
		hk_msg("the package's pre_install script is not executable: %s", argv[0]);
		return 0;
	}
	printf("Running the package's own pre_install script (%s):\n", argv[0]);
	fflush(stdout);
	fflush(stderr);
	execv(argv[0], argv);
	hk_msg("cannot run %s: %s", argv[0], strerror(errno));
	return 1;
}

static void parent_dir(char *p)
{
	char *sl = strrchr(p, '/');

	if (sl && sl != p)
		*sl = '\0';
	else if (sl)
		sl[1] = '\0';
}

int hk_mode_preinstall(int argc, char **argv)
{
	char src[PATH_MAX], mv[PATH_MAX], tree[PATH_MAX], dir[PATH_MAX], pkg[600], out[1024];
	char retry[1024], nbuf[128], rule[PATH_MAX];
	struct strv files = { 0 }, ctx_files = { 0 };
	struct target *targets = NULL;
	struct judgement j = { 0 };
	struct settings s;
	struct dkms_ctx c;
	bool refuse = false;
	int rc = 0;

	hk_settings_load(&s);
	hk_dkms_ctx_get(&c);
	if (!c.kernelver || !c.arch || !c.module || !c.module_version || !hk_safe_name(c.kernelver) ||
	    !hk_safe_name(c.arch) || !hk_safe_name(c.module) || !hk_safe_name(c.module_version)) {
		hk_msg("pre-install: run by dkms as PRE_INSTALL: needs kernelver, arch, module and "
		       "module_version in the environment");
		return 1;
	}
	if (hk_logical_cwd(src, sizeof(src)) < 0) {
		hk_msg("pre-install: cannot tell the current directory: %s", strerror(errno));
		return 1;
	}
	/* cwd = <tree>/<module>/<version>/source (a link to /usr/src/<m>-<v>): go up logically. */
	hk_bfmt(mv, sizeof(mv), "%s", src);
	parent_dir(mv);
	hk_bfmt(tree, sizeof(tree), "%s", mv);
	parent_dir(tree);
	parent_dir(tree);
	hk_bfmt(pkg, sizeof(pkg), "%s/%s", c.module, c.module_version);
	hk_bfmt(dir, sizeof(dir), "%s/%s/%s/module", mv, c.kernelver, c.arch);

	hk_collect_modules(&files, dir, true);
	if (files.n == 0) {
		hk_msg("pre-install: no built module in %s; nothing to check", dir);
		goto own;
	}
	targets = calloc(files.n, sizeof(*targets));
	if (!targets) {
		hk_msg("out of memory");
		return 1;
	}
	for (size_t i = 0; i < files.n; i++) {
		targets[i].path = files.v[i];
		targets[i].package = pkg;
	}
	hk_bfmt(dir, sizeof(dir), "%s/%s/updates/dkms", s.install_tree, c.kernelver);
	hk_installed_context(dir, &files, &ctx_files);
	if (hk_judge(&s, c.kernelver, targets, files.n, &ctx_files, &j) < 0) {
		hk_msg("pre-install: could not judge the modules of %s; refusing", pkg);
		rc = 1;
		goto out;
	}
	refuse = j.worst == TG_ACTION_DENY && s.mode == HOOK_ENFORCE &&
		 (!c.autoinstall || s.fail_kernel_upgrade);
	for (size_t i = 0; i < j.n; i++) {
		struct tg_verdict *v = &j.v[i];
		const char *name = hk_verdict_name(v, nbuf, sizeof(nbuf));

		if (v->action != TG_ACTION_DENY || s.mode == HOOK_WARN) {
			if (name)
				hk_rule_drop(&s, name, pkg, c.kernelver, c.arch);
			if (v->action == TG_ACTION_DENY)
				hk_report_verdict(&j, v, pkg,
						  "mode=warn: installed anyway; recorded for "
						  "\"taintguard status\"",
						  NULL);
			else if (v->action == TG_ACTION_MARK)
				hk_report_verdict(&j, v, pkg,
						  "installed as usual; recorded for "
						  "\"taintguard status\"",
						  NULL);
			continue;
		}
		if (name) {
			hk_rule_add(&s, name, pkg, c.kernelver, c.arch,
				    v->n_reasons ? v->reasons[0] : NULL);
			hk_rule_path(&s, name, rule, sizeof(rule));
		} else {
			hk_bfmt(rule, sizeof(rule), "(no rule: unusable module name)");
		}
		hk_bfmt(retry, sizeof(retry), "dkms install %s -k %s", pkg, c.kernelver);
		if (refuse)
			hk_bfmt(out, sizeof(out),
				"outcome: taintguard refuses to install %s for %s (dkms: \"pre_install "
				"failed\"); it stays built in the dkms tree; \"modprobe %s\" is blocked by %s",
				pkg, c.kernelver, name ? name : "?", rule);
		else
			hk_bfmt(out, sizeof(out),
				"outcome: autoinstall (kernel upgrade) goes on; taintguard uninstalls %s "
				"right after it; \"modprobe %s\" is blocked by %s",
				pkg, name ? name : "?", rule);
		hk_report_verdict(&j, v, pkg, out, retry);
	}
	if (refuse) {
		rc = 1;
		goto out;
	}
	if (j.worst == TG_ACTION_DENY && s.mode == HOOK_ENFORCE) {
		/* autoinstall pass-through: the audit after it uninstalls; no record. */
	} else if (j.worst != TG_ACTION_ALLOW) {
		const struct tg_verdict **vp = calloc(j.n, sizeof(*vp));

		for (size_t i = 0; vp && i < j.n; i++)
			vp[i] = &j.v[i];
		if (vp)
			hk_record_stage(&s, &j, c.module, c.module_version, c.kernelver, c.arch, vp,
					j.n);
		free(vp);
	} else {
		hk_record_remove(&s, c.module, c.module_version, c.kernelver);
	}
own:
	hk_judgement_free(&j);
	free(targets);
	strv_free(&files);
	strv_free(&ctx_files);
	if (argc > 1)
		return exec_chained(src, argc - 1, argv + 1);
	return exec_own_pre_install(src, &c, tree);
out:
	hk_judgement_free(&j);
	free(targets);
	strv_free(&files);
	strv_free(&ctx_files);
	return rc;
}
