/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal state of the taintguard rpm plugin; see taintguard.c. */
#ifndef TGP_H
#define TGP_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <rpm/rpmds.h>
#include <rpm/rpmts.h>
#include <rpm/rpmte.h>

#include "paths.h"
#include "pkg.h"
#include "taintguard.h"

/* Only the hook table is exported from the .so. */
#pragma GCC visibility push(hidden)

enum tgp_mode { TGP_ENFORCE, TGP_WARN, TGP_OFF };

/* A module file of a package, read from the payload or from disk. */
struct tgp_mod {
	char *path;			/* final path inside the root */
	struct tg_module *m;		/* NULL: unreadable, see error */
	char *error;
};

/* One added package (transaction element) that carries module candidates. */
struct tgp_pkg {
	rpmte te;
	char *nevra;
	char *name;
	bool scanned;		/* payload read in tsm_pre */
	bool psm_seen;		/* first psm_pre done */
	bool refused;		/* we failed it */
	bool staged;		/* we staged its mark record (psm_pre, the backstop) */
	bool recorded;		/* its final mark record is written */
	bool oot;		/* ships modules outside a kernel's own tree: its
				   Module.symvers/.config are not used */
	struct tgp_mod *mods;	/* modules read so far (freed after a prescan) */
	size_t n_mods;
	size_t bs_expected, bs_seen;
	/*
	 * The header's file types (rpm drops them from the element's file
	 * list): a module hidden as /opt/vendor/engine.bin is a candidate only
	 * by its type.  Pending when tsm_pre had no package file: psm_pre takes
	 * them from rpmteHeader() for the backstop.
	 */
	struct pkg_ftypes *types;
	bool types_pending;
	struct tg_verdict *v;	/* verdicts for its modules */
	size_t nv;
	enum tg_action action;	/* worst of v[] */
	/* a kernel package (image, export table, .config): kupdate.c */
	char *krel;		/* the release it installs, NULL for other packages */
	struct tg_verdict *kv;	/* the installed modules it will refuse or taint */
	size_t nkv;
	bool kdeny;		/* %_taintguard_kernel_update deny and nkv > 0 */
};

struct tgp_state {
	enum tgp_mode mode;
	struct tg_limits lim;
	size_t max_modules;	/* module files per package (%_taintguard_max_modules) */
	unsigned jobs;		/* threads reading modules and judging (%_taintguard_jobs) */
	unsigned max_seconds;	/* payload reading per package (%_taintguard_max_seconds) */
	struct tg_ctx *ctx;		/* limits, jobs and the policy below (owned by it) */
	struct tg_policy *policy;
	char *policy_path;	/* the file we tried */
	bool policy_fallback;	/* it failed: built-in policy in use */
	char *statedir;
	bool kernel_deny;	/* %_taintguard_kernel_update deny */
	enum tg_refuse_scope scope;	/* %_taintguard_refuse_scope, else the policy's */
	bool scope_macro;	/* ... the macro is defined */

	bool test;		/* RPMTRANS_FLAG_TEST: report only */
	char *root;		/* rpmtsRootDir at tsm_pre */
	char *rootpfx;		/* the same without trailing '/' ("" for "/") */
	bool chrooted;		/* psm/fsm hooks: paths are inside the root */
	struct tgp_pkg *pkgs;
	size_t n_pkgs;
	struct tgp_pkg *cur;	/* element being processed (psm_pre .. psm_post) */
	/*
	 * Kernel files (Module.symvers, .config) of this transaction's packages:
	 * they only fill in what the target root lacks (a kernel installed now).
	 */
	struct pkg_kernelset *ks;
	bool hidden_log;	/* the application shows rpmlog lines late or never (client.c) */
	bool unchecked_said;	/* "not fully checked" said for this transaction */
	/* files that would switch taintguard off, per added package (guard.c) */
	struct tgp_guard *guard;
	/* the added packages a refusal leaves without a requirement (closure.c) */
	struct tgp_closure *closure;
	rpmte first_refused;	/* known in tsm_pre: %_taintguard_refuse_scope transaction */
	unsigned long memory;	/* %_taintguard_refusal_memory: seconds a refusal is remembered */
	bool memory_seen;	/* tsm_pre found records: tsm_post removes those installed now */
	struct tgp_prefetch *prefetch;	/* the root's target kernels, gathered early (prefetch.c) */
};

/* scan.c: the payloads of the transaction's added packages, read in tsm_pre */
void tgp_prescan(struct tgp_state *st, rpmts ts);
/* CLOCK_MONOTONIC in seconds: the payload time limit, tsm_pre's timing line */
double tgp_now_seconds(void);

/*
 * prefetch.c: the root's kernels of the releases the added packages' modules
 * name, gathered on a thread while the payloads are read.  take: the one of
 * @release when it is what load_kernel() would gather (true, with *@out and
 * *@r as pkg_kernelset_kernel() gave them), else false.
 */
void tgp_prefetch_start(struct tgp_state *st, rpmts ts);
bool tgp_prefetch_take(struct tgp_state *st, const char *release, struct tg_kernel **out, int *r,
		       struct tg_error *err);
void tgp_prefetch_end(struct tgp_state *st);

/* judge.c: kernels, predictions, messages */
struct tgp_pkg *tgp_pkg_add(struct tgp_state *st, rpmte te);
struct tgp_pkg *tgp_pkg_find(struct tgp_state *st, rpmte te);
int tgp_mod_add(struct tgp_mod **mods, size_t *n, const char *path, struct tg_module *m,
		const char *error);
void tgp_mods_free(struct tgp_mod *mods, size_t n);
void tgp_reset(struct tgp_state *st);
/* Start a transaction's judging state: kernel files, the context's kernels forgotten. */
int tgp_begin(struct tgp_state *st);
/* Judge all modules of @n packages together; verdicts go to each pkg. */
int tgp_judge(struct tgp_state *st, struct tgp_pkg **pkgs, size_t n);
/* Log the verdicts of @pkg; @refuse: rpmlog errors + how to override. */
void tgp_report(struct tgp_state *st, struct tgp_pkg *pkg, bool refuse);
bool tgp_deny_definite(const struct tg_verdict *v);

/*
 * guard.c: added packages that ship files deciding whether taintguard runs
 * (rpm macro files, files in the plugin directory, dkms framework files, our
 * own directories): judged in tsm_pre, refused in psm_pre.
 */
void tgp_guard_check(struct tgp_state *st, rpmts ts);
/* RPMRC_FAIL for an added element the guard refuses (first call only). */
rpmRC tgp_guard_psm_pre(struct tgp_state *st, rpmte te);
/* rpm >= 6.1: the %pretrans of package @nevra (@len bytes), run before its psm_pre. */
rpmRC tgp_guard_scriptlet_pre(struct tgp_state *st, const char *nevra, size_t len);
void tgp_guard_reset(struct tgp_state *st);

/*
 * kupdate.c: a kernel package in the transaction: judge the root's
 * out-of-tree modules loadable under its release, one line per affected one.
 */
void tgp_kupdate(struct tgp_state *st, rpmts ts);
/* psm_pre of a kernel package that %_taintguard_kernel_update deny stops. */
rpmRC tgp_kupdate_psm_pre(struct tgp_state *st, struct tgp_pkg *pkg);

/*
 * closure.c: the added elements that need what taintguard refused.  Refuse
 * with tgp_closure_refuse(), then tgp_closure_run() leaves out, transitively,
 * every element with a requirement nothing that stays provides.
 */
struct tgp_closure *tgp_closure_new(rpmts ts);
void tgp_closure_free(struct tgp_closure *cl);
/* @te's header (tsm_pre): rpm no longer holds the element's dependency sets */
void tgp_closure_header(struct tgp_closure *cl, rpmte te, Header h);
/* false: not an added element, or refused already */
bool tgp_closure_refuse(struct tgp_closure *cl, rpmte te);
/* the number of elements newly left out */
size_t tgp_closure_run(struct tgp_closure *cl);
bool tgp_closure_left_out(struct tgp_closure *cl, rpmte te);
const char *tgp_closure_say(struct tgp_closure *cl, rpmte te);
rpmte tgp_closure_find(struct tgp_closure *cl, const char *nevra, size_t len);
size_t tgp_closure_say_all(struct tgp_closure *cl, struct tgp_state *st, int lvl);
/* %_taintguard_mode warn: the lines say "installed anyway", nothing is left out */
void tgp_closure_warn_only(struct tgp_closure *cl);

/* A provide of a package an earlier transaction refused (memory.c). */
struct tgp_provide {
	const char *name, *evr;
	rpmsenseFlags flags;
};
int tgp_closure_earlier(struct tgp_closure *cl, const char *nevra, bool left_out, time_t when,
			const struct tgp_provide *p, size_t n);
/* tsm_post: each element refused or left out that rpm did not install, for memory.c */
rpmte tgp_closure_next_out(struct tgp_closure *cl, size_t *i, bool *left_out,
			   struct tgp_provide **p, size_t *n);

/*
 * memory.c: ROOT/STATEDIR/refused/NAME: a package refused or left out, for
 * %_taintguard_refusal_memory seconds, so that a later transaction (zypper's
 * one rpm call per package) leaves out what needs it.
 */
/* tsm_pre: the records into @cl; false: none (the common case, one opendir) */
bool tgp_memory_load(struct tgp_state *st, struct tgp_closure *cl);
/* tsm_post: remember what @cl refused or left out */
void tgp_memory_save(struct tgp_state *st, struct tgp_closure *cl);
/* a package named @name was installed: its record goes */
void tgp_memory_forget(struct tgp_state *st, const char *name);

/* guard.c: @te is an added element the guard refuses (enforce mode) */
bool tgp_guard_denies(struct tgp_state *st, rpmte te);
/* the findings of every package the guard refuses (tsm_pre, all or nothing) */
void tgp_guard_report_denied(struct tgp_state *st);

/* client.c: an application (dnf5) that keeps rpmlog lines from the terminal */
bool tgp_client_hides_log(void);
/* rpmlog(@lvl, ...) and, when @echo and the application hides rpmlog lines, stderr too. */
void tgp_say(struct tgp_state *st, int lvl, bool echo, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* record.c: mark records under [ROOT]/STATEDIR/marks/ (ROOT outside the chroot) */
/*
 * before anything of @pkg exists: a staged record, if it gets one; < 0 when
 * it cannot be written and @pkg must not go in without it (refused, said)
 */
int tgp_record_stage(struct tgp_state *st, struct tgp_pkg *pkg);
/* @pkg is in the rpmdb (@installed): its final record; else its staged one goes */
void tgp_record_finish(struct tgp_state *st, struct tgp_pkg *pkg, bool installed);
void tgp_record_remove(struct tgp_state *st, const char *nevra);
char *tgp_record_path(struct tgp_state *st, const char *nevra);

#pragma GCC visibility pop

#endif
