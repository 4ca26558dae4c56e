/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard-dkms: DKMS integration of taintguard.  Shared declarations of
 * the small files in hooks/ (one concern each):
 *
 *   taintguard-dkms.c  main: dispatch on mode (argv[0] name or first argument)
 *   settings.c         /etc/taintguard/dkms.conf and dkms's framework.conf
 *   dkms_env.c         what dkms tells us: env, cwd, parent command line, tree
 *   files.c            module files in a directory
 *   dkms_check.c       judging a set of module files, dkms-style messages
 *   modprobe_rule.c    /etc/modprobe.d/taintguard-NAME.conf
 *   mark_record.c      /var/lib/taintguard/marks/dkms-*.json (lib's tg_record_*)
 *   run.c              running other programs
 *   mode_sign.c        sign-file: the framework.conf.d sign_file callback
 *   mode_preinstall.c  pre-install: the PRE_INSTALL veto
 *   mode_audit.c       kernel-postinst, after-dkms, sync: the safety net
 *   guard.c            packages whose dkms.conf could switch our check off
 */
#ifndef TG_HOOK_H
#define TG_HOOK_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "paths.h"
#include "strv.h"
#include "taintguard.h"

#define PROG "taintguard-dkms"

/* argv[0] names under which dkms runs us (symlinks to taintguard-dkms). */
#define SIGN_NAME "taintguard-dkms-sign"
#define PREINSTALL_NAME "taintguard-dkms-pre-install"

/* Name of the environment variable the dkms wrapper exports. */
#define DIRECTIVE_ENV "DKMS_DIRECTIVE_TG"

/* ------------------------------------------------------------ settings */

enum hook_mode { HOOK_ENFORCE, HOOK_WARN };
enum sign_deny { SIGN_DENY_AUTO, SIGN_DENY_UNLINK, SIGN_DENY_KEEP };

struct settings {
	char path[PATH_MAX];		/* the file read ("" when none) */
	enum hook_mode mode;		/* mode=enforce|warn */
	bool fail_kernel_upgrade;	/* fail_kernel_upgrade=no|yes */
	enum sign_deny sign_file_deny;	/* sign_file_deny=auto|unlink|keep */
	char policy[PATH_MAX];		/* policy=FILE ("" = tg_policy_default_path()) */
	char sign_file[PATH_MAX];	/* sign_file=PROG: the real signer ("" = detect) */
	char dkms[PATH_MAX];		/* dkms=PROG used for "dkms uninstall" */
	char dkms_tree[PATH_MAX];	/* dkms_tree=DIR ("" = dkms's framework.conf, /var/lib/dkms) */
	char install_tree[PATH_MAX];	/* install_tree=DIR (/lib/modules) */
	char root[PATH_MAX];		/* root=DIR: where kernels' files are looked for ("" = /) */
	char modprobe_dir[PATH_MAX];	/* modprobe_dir=DIR (/etc/modprobe.d) */
	char marks_dir[PATH_MAX];	/* marks_dir=DIR (/var/lib/taintguard/marks) */
	char framework_conf[PATH_MAX];	/* framework_conf=FILE (/etc/dkms/framework.conf) */
	char own_snippet[PATH_MAX];	/* our framework.conf.d file, skipped when chaining */
	struct tg_limits limits;	/* limits=NAME=VALUE ... (as taintguard --limit) */
};

/* Defaults, then $TAINTGUARD_DKMS_CONF or /etc/taintguard/dkms.conf.  <0 on a bad file. */
int hk_settings_load(struct settings *s);
/*
 * Value of dkms framework variable @var for @kernelver, as dkms computes it:
 * framework.conf then framework.conf.d/ *.conf in glob order (skipping our
 * own snippet), sourced by bash.  "" when unset.
 */
int hk_framework_get(const struct settings *s, const char *var, const char *kernelver, char *buf,
		     size_t len);
/* The dkms tree: settings, else framework.conf, else /var/lib/dkms. */
const char *hk_settings_dkms_tree(struct settings *s);

/* ------------------------------------------------------------ dkms env */

/* dkms exports these (as a side effect) to its hooks and to sign_file. */
struct dkms_ctx {
	const char *kernelver, *arch, *module, *module_version;
	bool autoinstall;	/* an ancestor is "dkms autoinstall" / "dkms kernel_postinst" */
	bool wrapped;		/* our PRE_INSTALL directive is active (the dkms wrapper ran) */
};
void hk_dkms_ctx_get(struct dkms_ctx *c);
/* Logical current directory ($PWD when it is "."), else getcwd(). */
int hk_logical_cwd(char *buf, size_t len);
/* true for names dkms and the kernel accept: [A-Za-z0-9_.+-]+, no "..". */
bool hk_safe_name(const char *s);
/* KVER-ARCH -> is <tree>/<m>/kernel-<k>-<a> a link to <v>/<k>/<a>?  (dkms "installed") */
bool hk_dkms_is_installed(const char *tree, const char *m, const char *v, const char *k,
			  const char *a);

/* ------------------------------------------------------------ files */

/* Do two module files hold the same module name (lve.ko.xz and lve.ko: yes)? */
bool hk_same_module_file(const char *a, const char *b);
/*
 * Module files (.ko, .ko.gz, .ko.xz, .ko.zst) below @dir, sorted, each file
 * once by device and inode (also against those already in @out); missing
 * dir = none.
 */
int hk_collect_modules(struct strv *out, const char *dir, bool recursive);
/*
 * Modules already installed under @dir (updates/dkms of the kernel) that are
 * not one of @files (same stem): judged alongside them, as the kernel would
 * find them at load time.  Appended to @ctx.
 */
void hk_installed_context(const char *dir, const struct strv *files, struct strv *ctx);

/* ------------------------------------------------------------ judging */

struct target {
	const char *path;
	const char *package;	/* "module/version" */
};

struct judgement {
	struct tg_ctx *ctx;		/* owned: limits, policy, the kernels */
	const struct tg_policy *policy;	/* the ctx's: the configured one, else the built-in one */
	char policy_error[TG_ERRMAX];	/* why the configured policy was not used, "" if it was */
	char *release;
	struct tg_verdict *v;		/* one per target */
	size_t n;
	enum tg_action worst;
	/* a package's dkms.conf can drop our PRE_INSTALL directive: do not rely on it */
	bool guard;
};

/*
 * Judge @targets against kernel @release (NULL: the first target's vermagic)
 * under the configured policy.  @context files are judged with them (their
 * exports resolve the targets' imports: sibling modules, other installed DKMS
 * modules) but get no verdict.  Returns 0 or a negative errno.
 */
int hk_judge(const struct settings *s, const char *release, const struct target *targets, size_t n,
	     const struct strv *context, struct judgement *j);
void hk_judgement_free(struct judgement *j);
/*
 * guard.c: the targets' packages whose dkms.conf (or /etc/dkms/MODULE*.conf)
 * could switch our PRE_INSTALL check off get the policy's guard action on
 * their modules (called by hk_judge()).
 */
void hk_guard_judge(const struct settings *s, const struct target *targets, size_t n,
		    struct judgement *j);

/* Kernel module name of a verdict, safe for file names; NULL if none. */
const char *hk_verdict_name(const struct tg_verdict *v, char *buf, size_t len);

/*
 * taintguard's own words on @v, to stderr (and syslog for mark/deny):
 * module, package, kernel, taint flags, reasons, rule, what happens now
 * (@outcome) and, for deny, how to add a policy exception.
 */
void hk_report_verdict(const struct judgement *j, const struct tg_verdict *v, const char *package,
		       const char *outcome, const char *retry);

/* ------------------------------------------------------------ modprobe.d */

/*
 * /etc/modprobe.d/taintguard-NAME.conf: "install NAME /bin/false" and
 * "blacklist NAME", plus one "# taintguard-dkms-entry: M/V KVER ARCH" line
 * per DKMS build the policy denied.  The file goes when its last entry goes.
 */
int hk_rule_add(const struct settings *s, const char *name, const char *package, const char *kernel,
		const char *arch, const char *reason);
/* Drop the entry (a verdict is no longer deny); removes the file when empty. */
int hk_rule_drop(const struct settings *s, const char *name, const char *package,
		 const char *kernel, const char *arch);
/* Path of the rule file for @name. */
void hk_rule_path(const struct settings *s, const char *name, char *buf, size_t len);
/* Drop entries whose build is gone from the dkms tree; returns files removed. */
int hk_rule_sync(struct settings *s, bool verbose);

/* ------------------------------------------------------------ records */

/*
 * /var/lib/taintguard/marks/dkms-<module>-<version>-<kver>.json, written by
 * the library (tg_record_write, docs/records.md) with the verdicts of @v
 * whose action is not allow, the settings' mode and @j's policy; removed
 * instead when all are allowed.
 */
int hk_record_write(const struct settings *s, const struct judgement *j, const char *module,
		    const char *version, const char *kernel, const char *arch,
		    const struct tg_verdict *const *v, size_t n);
/* The same, staged: written before dkms installs the module (mark_record.c). */
int hk_record_stage(const struct settings *s, const struct judgement *j, const char *module,
		    const char *version, const char *kernel, const char *arch,
		    const struct tg_verdict *const *v, size_t n);
int hk_record_remove(const struct settings *s, const char *module, const char *version,
		     const char *kernel);
/* Drop records whose module/version is no longer installed for their kernel. */
int hk_record_sync(struct settings *s, bool verbose);

/* ------------------------------------------------------------ running */

/* fork+exec @argv (PATH search), wait; exit status, 128+sig, or -errno. */
int hk_run_wait(char *const argv[]);
/* Same, capturing up to @len-1 bytes of stdout (NUL-terminated, trailing newline cut). */
int hk_run_capture(char *const argv[], char *buf, size_t len);

/* ------------------------------------------------------------ modes */

int hk_mode_sign(int argc, char **argv);
int hk_mode_preinstall(int argc, char **argv);
int hk_mode_kernel_postinst(int argc, char **argv);
int hk_mode_after_dkms(int argc, char **argv);
int hk_mode_sync(int argc, char **argv);

/* snprintf that returns 0, or -ENAMETOOLONG when @buf was too small (output cut). */
int hk_bfmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Where messages go: stderr, or stdout after hk_msg_stderr_fallback() found stderr on /dev/null. */
FILE *hk_msg_stream(void);
void hk_msg_stderr_fallback(void);

/* "taintguard-dkms: " + message on hk_msg_stream(). */
void hk_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Audit installed DKMS modules of @kver; deny -> uninstall + rule.  Returns #denied or <0. */
int hk_audit_kernel(struct settings *s, const char *kver, bool verbose);
/*
 * mode_kupdate.c: the modules of @kver's extra/ and updates/ that are not
 * DKMS's (@dkms: the DKMS files found, may be empty), judged against @kver;
 * one message per affected one.  Returns how many.  Never deletes.
 */
int hk_kupdate_others(struct settings *s, const char *kver, const struct strv *dkms);
/*
 * mode_kupdate.c: the DKMS modules installed for another kernel and not for
 * @kver, each named with why; their number.
 */
int hk_kupdate_missing(struct settings *s, const char *kver);

#endif
