/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * taintguard rpm transaction plugin: refuse (policy "deny") or mark (policy
 * "mark") packages whose kernel modules would taint the kernel or be refused
 * by it.  See rpm-plugin-taintguard(8) and docs/rpm.md.
 *
 *   init      read %_taintguard_* once; never fails (broken policy: built-in)
 *   tsm_pre   read the payloads of added packages with module candidates
 *             (fd from the application's callback) and judge them together
 *   psm_pre   first call per added element: refuse a denied one cleanly
 *             (no scriptlet, file, directory or rpmdb entry), warn on marks
 *   scriptlet_pre  the same for a denied package's %pretrans (rpm >= 6.1)
 *   fsm_file_prepare  backstop when no fd was given in tsm_pre
 *   psm_post  make the mark record final once the element is in the rpmdb
 *   tsm_post  write/remove the mark records of elements that succeeded
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rpm/rpmlib.h>
#include <rpm/rpmlog.h>
#include <rpm/rpmstring.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmts.h>
#include <rpm/rpmte.h>

#include "plugin_abi.h"
#include "tgp.h"

static char *macro(const char *name)
{
	char *m = rstrscat(NULL, "%{?", name, "}", NULL);
	char *v = rpmExpand(m, NULL);
	free(m);
	if (v && !*v) {
		free(v);
		v = NULL;
	}
	return v;
}

/* A positive count from macro @name into *@val; a bad value keeps the default. */
static void read_count(const char *name, unsigned long long maxval, unsigned long long *val)
{
	char *v = macro(name), *end;
	unsigned long long n;

	if (!v)
		return;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (end == v || *end || errno || n == 0 || n > maxval)
		rpmlog(RPMLOG_ERR, "taintguard: %%%s '%s' is not a count between 1 and %llu; "
		       "using %llu\n", name, v, maxval, *val);
	else
		*val = n;
	free(v);
}

/* %_taintguard_limits: "NAME=VALUE ..." as taintguard --limit; a bad one is skipped. */
static void read_limits(struct tgp_state *st)
{
	char *all = macro("_taintguard_limits"), *save = NULL;

	for (char *a = all ? strtok_r(all, " \t\n", &save) : NULL; a;
	     a = strtok_r(NULL, " \t\n", &save)) {
		struct tg_error err = { 0 };

		if (tg_limits_set(&st->lim, a, &err) < 0)
			rpmlog(RPMLOG_ERR, "taintguard: %%_taintguard_limits: %s; keeping the "
			       "default\n", err.msg);
	}
	free(all);
}

/* %_taintguard_kernel_update: "warn" (default: a kernel is never refused) or "deny". */
static void read_kernel_update(struct tgp_state *st)
{
	char *v = macro("_taintguard_kernel_update");

	if (v && strcmp(v, "deny") && strcmp(v, "warn"))
		rpmlog(RPMLOG_ERR, "taintguard: %%_taintguard_kernel_update '%s' is not warn or "
		       "deny; using warn\n", v);
	st->kernel_deny = v && !strcmp(v, "deny");
	free(v);
}

/*
 * %_taintguard_refuse_scope: "package" or "transaction" (all or nothing);
 * undefined, the policy's refuse_scope decides (load_policy()).
 */
static void read_scope(struct tgp_state *st)
{
	char *v = macro("_taintguard_refuse_scope");

	if (v && strcmp(v, "package") && strcmp(v, "transaction"))
		rpmlog(RPMLOG_ERR, "taintguard: %%_taintguard_refuse_scope '%s' is not package or "
		       "transaction; using transaction\n", v);
	/* a typo must not weaken an all-or-nothing setting */
	st->scope = v && strcmp(v, "package") ? TG_SCOPE_TRANSACTION : TG_SCOPE_PACKAGE;
	st->scope_macro = v != NULL;
	free(v);
}

static void read_config(rpmPlugin plugin, struct tgp_state *st)
{
	/* distribution kernel packages carry up to ~6,000 modules */
	unsigned long long maxmods = 16384, maxsecs = 300, jobs = tg_default_jobs();
	/* one zypper or dnf run: long enough for the packages after a refused one */
	unsigned long long memory = 3600;
	char *mode = macro("_taintguard_mode");
	char *size = macro("_taintguard_max_module_size");
	const char *opts = rpmPluginOpts(plugin);

	if (!mode && opts && *opts)	/* "%__transaction_taintguard .../taintguard.so warn" */
		mode = strdup(opts);
	if (!mode || strcmp(mode, "enforce") == 0)
		st->mode = TGP_ENFORCE;
	else if (strcmp(mode, "warn") == 0)
		st->mode = TGP_WARN;
	else if (strcmp(mode, "off") == 0)
		st->mode = TGP_OFF;
	else {
		rpmlog(RPMLOG_ERR, "taintguard: %%_taintguard_mode '%s' is not enforce, warn or "
		       "off; enforcing\n", mode);
		st->mode = TGP_ENFORCE;
	}
	if (size) {
		uint64_t v;

		if (tg_parse_size(size, &v) < 0 || v == 0)
			rpmlog(RPMLOG_ERR, "taintguard: %%_taintguard_max_module_size '%s' is not a "
			       "size; using %llu\n", size,
			       (unsigned long long)st->lim.max_module_size);
		else
			st->lim.max_module_size = st->lim.max_input_size = v;
	}
	read_limits(st);
	/* Bound one hostile package's cost: a refusal, never a hung transaction. */
	read_count("_taintguard_max_modules", 1000000, &maxmods);
	read_count("_taintguard_max_seconds", 86400, &maxsecs);
	st->max_modules = (size_t)maxmods;
	st->max_seconds = (unsigned)maxsecs;
	/* default: every CPU, at most 16 (a kernel package's modules decode in parallel) */
	if (jobs > 16)
		jobs = 16;
	read_count("_taintguard_jobs", 16, &jobs);
	st->jobs = (unsigned)jobs;
	read_count("_taintguard_refusal_memory", 366ULL * 86400, &memory);
	st->memory = (unsigned long)memory;
	read_kernel_update(st);
	read_scope(st);
	st->statedir = macro("_taintguard_statedir");
	if (!st->statedir)
		st->statedir = strdup(TG_LOCALSTATEDIR);
	free(mode);
	free(size);
}

static void load_policy(struct tgp_state *st)
{
	struct tg_error err = { 0 };

	st->policy_path = macro("_taintguard_policy");
	if (!st->policy_path)
		st->policy_path = strdup(tg_policy_default_path());
	/*
	 * Fail closed, but only as far as the kernel goes (tg_policy_open()):
	 * packages without modules and erasures are not affected.
	 */
	if (tg_policy_open(st->policy_path, &st->lim, TG_POLICY_FALLBACK, &st->policy, &err) == 0) {
		if (!st->scope_macro)
			st->scope = tg_policy_refuse_scope(st->policy);
		return;
	}
	rpmlog(RPMLOG_ERR, "taintguard: cannot load policy: %s; judging kernel modules with the "
	       "built-in policy until this is fixed (exceptions do not apply)\n", err.msg);
	st->policy_fallback = true;
}

struct rpmPluginHooks_s taintguard_hooks;

/*
 * fsm_file_prepare gained an fd argument in rpm 4.18 while librpm kept its
 * soname (librpm.so.9 in 4.16 and 4.18), so a build for one hook table loads
 * into the other and would read the backstop's arguments shifted (a 4.18
 * build in rpm 4.16 let a denied package through).  The other hooks are the
 * same: on a mismatch only the backstop is switched off, and packages that
 * would need it are refused in psm_pre.
 */
static bool backstop_off;

static void check_hook_table(void)
{
	unsigned int major = 0, minor = 0;
	bool has_fd;

	if (sscanf(RPMVERSION, "%u.%u", &major, &minor) != 2)
		return;
	has_fd = major > 4 || (major == 4 && minor >= 18);
	if (has_fd == TG_PREPARE_HAS_FD)
		return;
	rpmlog(RPMLOG_ERR, "taintguard: built for rpm %s but running in rpm %s, whose file hook "
	       "differs: kernel modules are checked only in package files the application "
	       "hands over before the transaction; rebuild the plugin for this rpm\n",
	       TG_RPM_VERSION, RPMVERSION);
	taintguard_hooks.fsm_file_prepare = NULL;	/* rpm reads the table at each call */
	backstop_off = true;
}

/* rpmPluginSetData/GetData: librpm exports them since 4.12 (4.16's librpm.so.9 has them). */
#define state_get(p) ((struct tgp_state *)rpmPluginGetData(p))
#define state_set(p, s) rpmPluginSetData((p), (s))

static rpmRC taintguard_init(rpmPlugin plugin, rpmts ts)
{
	struct tgp_state *st = calloc(1, sizeof(*st));

	if (!st) {
		/* A failing init blocks every install and erase: disable instead. */
		rpmlog(RPMLOG_ERR, "taintguard: out of memory; plugin disabled\n");
		return RPMRC_NOTFOUND;
	}
	tg_limits_default(&st->lim);
	read_config(plugin, st);
	check_hook_table();
	if (tg_ctx_new(&st->ctx) < 0) {
		rpmlog(RPMLOG_ERR, "taintguard: out of memory; plugin disabled\n");
		free(st->statedir);
		free(st);
		return RPMRC_NOTFOUND;
	}
	if (st->mode != TGP_OFF)
		load_policy(st);
	*tg_ctx_limits(st->ctx) = st->lim;
	tg_ctx_set_jobs(st->ctx, st->jobs);
	tg_ctx_set_policy(st->ctx, st->policy);
	state_set(plugin, st);
	return RPMRC_OK;
}

static void taintguard_cleanup(rpmPlugin plugin)
{
	struct tgp_state *st = state_get(plugin);

	if (!st)
		return;
	tgp_reset(st);
	tgp_guard_reset(st);
	tgp_closure_free(st->closure);
	tg_ctx_free(st->ctx);	/* and the policy */
	free(st->policy_path);
	free(st->statedir);
	free(st);
	state_set(plugin, NULL);
}

/* Refused by its own verdict, judged in tsm_pre (a backstop refusal comes later). */
static bool denied_now(const struct tgp_state *st, const struct tgp_pkg *p)
{
	return st->mode == TGP_ENFORCE &&
	       ((p->scanned && p->action == TG_ACTION_DENY) || p->kdeny);
}

/*
 * Every refusal known before the first element is processed, and the added
 * elements that need what they provide: rpm orders providers first, but in
 * a dependency loop a requirer can come first, so all of it is decided here.
 */
static void refusals_known(struct tgp_state *st, rpmts ts)
{
	rpmtsi pi;
	rpmte te;

	st->first_refused = NULL;
	if (st->mode != TGP_ENFORCE)
		return;
	pi = rpmtsiInit(ts);
	while ((te = rpmtsiNext(pi, TR_ADDED)) != NULL) {
		struct tgp_pkg *p = tgp_pkg_find(st, te);

		if (!(p && denied_now(st, p)) && !tgp_guard_denies(st, te))
			continue;
		tgp_closure_refuse(st->closure, te);
		if (!st->first_refused)
			st->first_refused = te;
	}
	rpmtsiFree(pi);
	/* what earlier transactions into this root refused (zypper: one rpm call each) */
	tgp_memory_load(st, st->closure);
	tgp_closure_run(st->closure);
}

/* warn mode: what an earlier refusal would leave out is only said (as a warning) */
static void earlier_warned(struct tgp_state *st)
{
	if (st->mode != TGP_WARN || !st->closure)
		return;
	tgp_memory_load(st, st->closure);
	tgp_closure_run(st->closure);
	tgp_closure_say_all(st->closure, st, RPMLOG_WARNING);
	tgp_closure_free(st->closure);
	st->closure = NULL;
}

/* A refusal that came later (the backstop, psm_pre): its dependents not yet processed. */
static void refusals_late(struct tgp_state *st)
{
	bool more = false;

	for (size_t i = 0; i < st->n_pkgs; i++)
		if (st->pkgs[i].refused)
			more |= tgp_closure_refuse(st->closure, st->pkgs[i].te);
	if (more)
		tgp_closure_run(st->closure);
}

/*
 * %_taintguard_refuse_scope transaction: the refused packages' reasons, then
 * one line that says nothing is installed and why.  tsm_pre fails before any
 * scriptlet, file or rpmdb change, in a test transaction too.
 */
static rpmRC refuse_transaction(struct tgp_state *st)
{
	rpmte first = st->first_refused;
	struct tgp_pkg *p = tgp_pkg_find(st, first);
	size_t more = tgp_closure_say_all(st->closure, st, RPMLOG_ERR);

	for (size_t i = 0; i < st->n_pkgs; i++)
		if (denied_now(st, &st->pkgs[i]) && st->pkgs[i].scanned)
			tgp_report(st, &st->pkgs[i], true);
	tgp_guard_report_denied(st);
	tgp_say(st, RPMLOG_ERR, true, "taintguard: nothing installed: %s is refused%s and "
		"%s is transaction%s\n", rpmteNEVRA(first), p && p->kdeny ? " (kernel update)" : "",
		st->scope_macro ? "%_taintguard_refuse_scope" : "the policy's refuse_scope",
		more ? " (and the packages above that need it)" : "");
	return RPMRC_FAIL;
}

static rpmRC taintguard_tsm_pre(rpmPlugin plugin, rpmts ts)
{
	struct tgp_state *st = state_get(plugin);
	const char *root = rpmtsRootDir(ts);
	struct tgp_pkg **judge;
	double t[4];
	size_t n = 0;

	tgp_reset(st);
	tgp_closure_free(st->closure);	/* its elements were another transaction's */
	st->closure = NULL;
	if (rpmtsFlags(ts) & RPMTRANS_FLAG_BUILD_PROBS)
		return RPMRC_OK;
	if (tgp_begin(st) < 0)
		rpmlog(RPMLOG_ERR, "taintguard: out of memory; the kernel files of this "
		       "transaction's packages are not used\n");
	st->test = rpmtsFlags(ts) & RPMTRANS_FLAG_TEST;
	st->hidden_log = tgp_client_hides_log();	/* dnf 4 sets its log file per transaction */
	st->root = strdup(root ? root : "/");
	st->rootpfx = strdup(st->root);
	for (size_t l = strlen(st->rootpfx); l > 0 && st->rootpfx[l - 1] == '/'; l--)
		st->rootpfx[l - 1] = '\0';
	if (st->mode == TGP_OFF)
		return RPMRC_OK;	/* records of erased packages still go */
	/*
	 * Before the prescan, which hands it the headers it reads.  In warn mode
	 * only when an earlier refusal is remembered: then it says what needs it.
	 */
	if ((st->mode == TGP_ENFORCE || tgp_memory_load(st, NULL)) &&
	    !(st->closure = tgp_closure_new(ts)))
		rpmlog(RPMLOG_ERR, "taintguard: out of memory; packages that need a refused "
		       "package are not left out\n");
	if (st->mode == TGP_WARN)
		tgp_closure_warn_only(st->closure);
	t[0] = tgp_now_seconds();
	tgp_prefetch_start(st, ts);
	tgp_prescan(st, ts);
	t[1] = tgp_now_seconds();
	judge = calloc(st->n_pkgs ? st->n_pkgs : 1, sizeof(*judge));
	for (size_t i = 0; judge && i < st->n_pkgs; i++)
		if (st->pkgs[i].scanned)
			judge[n++] = &st->pkgs[i];
	if (!judge) {
		for (size_t i = 0; i < st->n_pkgs; i++)
			st->pkgs[i].action = TG_ACTION_DENY;
	} else if (n) {
		tgp_judge(st, judge, n);
	}
	t[2] = tgp_now_seconds();
	tgp_kupdate(st, ts);	/* needs the modules of this transaction: before they go */
	tgp_prefetch_end(st);	/* what was not taken */
	t[3] = tgp_now_seconds();
	/* where a transaction's time goes (rpm -vv; bench/rpm-bench.sh reads it) */
	rpmlog(RPMLOG_DEBUG, "taintguard: tsm_pre: %zu package(s) with modules or kernel files: "
	       "payloads read and modules parsed in %.1f ms, judged in %.1f ms, kernel updates "
	       "checked in %.1f ms\n", st->n_pkgs, (t[1] - t[0]) * 1e3, (t[2] - t[1]) * 1e3,
	       (t[3] - t[2]) * 1e3);
	for (size_t i = 0; i < n; i++) {	/* verdicts kept, modules no longer needed */
		tgp_mods_free(judge[i]->mods, judge[i]->n_mods);
		judge[i]->mods = NULL;
		judge[i]->n_mods = 0;
	}
	free(judge);
	tgp_guard_check(st, ts);
	refusals_known(st, ts);
	earlier_warned(st);
	if (st->scope == TG_SCOPE_TRANSACTION && st->mode == TGP_ENFORCE && st->first_refused)
		return refuse_transaction(st);
	if (st->test) {	/* psm/fsm hooks never run: report here */
		for (size_t i = 0; i < st->n_pkgs; i++)
			if (st->pkgs[i].scanned && st->pkgs[i].action != TG_ACTION_ALLOW)
				tgp_report(st, &st->pkgs[i], st->mode == TGP_ENFORCE);
		tgp_closure_say_all(st->closure, st, RPMLOG_ERR);
	}
	return RPMRC_OK;
}

/* Fail a denied element: its verdicts and one line saying so. */
static rpmRC refuse(struct tgp_state *st, struct tgp_pkg *pkg)
{
	tgp_report(st, pkg, true);
	tgp_say(st, RPMLOG_ERR, true, "taintguard: refusing to install %s\n", pkg->nevra);
	pkg->refused = true;
	return RPMRC_FAIL;
}

/*
 * No package file in tsm_pre: the file types come from the header rpm holds
 * now (rpmteHeader() is NULL in tsm_pre), for the backstop.
 */
static void types_now(struct tgp_pkg *pkg, rpmte te)
{
	Header h = rpmteHeader(te);
	rpmfiles files = rpmteFiles(te);
	struct pkg_files_facts f;

	pkg->types_pending = false;
	if (files && (pkg->types = pkg_ftypes_new(h)) != NULL) {
		pkg_files_scan(files, pkg->types, &f);
		pkg->bs_expected = f.n_prepared;
		pkg->oot = f.oot;
	} else {
		rpmlog(RPMLOG_DEBUG, "taintguard: %s: no file types: only files named or placed "
		       "as modules are checked\n", pkg->nevra);
	}
	rpmfilesFree(files);
	headerFree(h);
}

/* @te needs what taintguard refused: said once, failed at every call. */
static bool left_out(struct tgp_state *st, rpmte te)
{
	const char *why;

	refusals_late(st);
	if (!tgp_closure_left_out(st->closure, te))
		return false;
	if ((why = tgp_closure_say(st->closure, te)) != NULL)
		tgp_say(st, RPMLOG_ERR, true, "%s\n", why);
	return true;
}

static rpmRC taintguard_psm_pre(rpmPlugin plugin, rpmte te)
{
	struct tgp_state *st = state_get(plugin);
	/* files that would switch taintguard off (guard.c): reported first */
	rpmRC guard = tgp_guard_psm_pre(st, te);
	struct tgp_pkg *pkg;

	st->chrooted = true;	/* psm, scriptlet and fsm hooks run inside the root */
	st->cur = NULL;
	if (rpmteType(te) == TR_ADDED && guard != RPMRC_FAIL && left_out(st, te))
		return RPMRC_FAIL;
	if (rpmteType(te) != TR_ADDED || (pkg = tgp_pkg_find(st, te)) == NULL)
		return guard;
	st->cur = pkg;		/* for the backstop: fsm hooks run in the install stage only */
	/*
	 * rpm < 6.1 also calls psm_pre for %pretrans and trigger stages; the
	 * first call precedes every scriptlet, file and the rpmdb entry.
	 */
	if (pkg->refused)	/* by scriptlet_pre */
		return RPMRC_FAIL;
	if (pkg->psm_seen)
		return guard;
	pkg->psm_seen = true;
	if (pkg->types_pending)
		types_now(pkg, te);
	if (guard == RPMRC_FAIL)
		pkg->refused = true;
	if (!pkg->scanned && backstop_off && pkg->bs_expected > 0 && st->mode != TGP_OFF) {
		rpmlog(st->mode == TGP_ENFORCE ? RPMLOG_ERR : RPMLOG_WARNING,
		       "taintguard: %s: its kernel modules cannot be checked: no package file "
		       "from the application and no file hook (plugin built for another rpm)\n",
		       pkg->nevra);
		if (st->mode == TGP_ENFORCE) {
			pkg->refused = true;
			return RPMRC_FAIL;
		}
	}
	if (guard != RPMRC_FAIL && tgp_kupdate_psm_pre(st, pkg) == RPMRC_FAIL)
		return RPMRC_FAIL;	/* a kernel %_taintguard_kernel_update deny stops */
	if (!pkg->scanned)
		return guard;	/* checked file by file in fsm_file_prepare */
	if (pkg->action == TG_ACTION_DENY && st->mode == TGP_ENFORCE)
		return refuse(st, pkg);
	if (pkg->action != TG_ACTION_ALLOW && guard != RPMRC_FAIL)
		tgp_report(st, pkg, false);
	/* before any file, scriptlet or rpmdb entry; without it a marked one is refused */
	if (guard != RPMRC_FAIL && tgp_record_stage(st, pkg) < 0)
		return RPMRC_FAIL;
	return guard;
}

/*
 * rpm >= 6.1 calls psm_pre for the install only, after the transaction's
 * %pretrans scriptlets (rpm commit 0a45aefa0): a denied package's own
 * %pretrans ("%pretrans(NEVRA)") is refused here, which fails the element
 * before anything of it has run.  Older rpm calls psm_pre for the %pretrans
 * stage first and never gets here with a denied package.
 */
static rpmRC taintguard_scriptlet_pre(rpmPlugin plugin, const char *s_name, int type)
{
	static const char pfx[] = "%pretrans(";
	const size_t plen = sizeof(pfx) - 1;
	struct tgp_state *st = state_get(plugin);
	size_t len = s_name ? strlen(s_name) : 0;
	rpmte te;

	if (!st || st->mode != TGP_ENFORCE || len <= plen + 1 ||
	    strncmp(s_name, pfx, plen) != 0 || s_name[len - 1] != ')')
		return RPMRC_OK;
	for (size_t i = 0; i < st->n_pkgs; i++) {
		struct tgp_pkg *p = &st->pkgs[i];

		if (!p->scanned || p->psm_seen || p->refused || strlen(p->nevra) != len - plen - 1 ||
		    strncmp(p->nevra, s_name + plen, len - plen - 1) != 0)
			continue;
		if (p->action == TG_ACTION_DENY)
			return refuse(st, p);
		if (p->kdeny)	/* a kernel %_taintguard_kernel_update deny stops */
			return tgp_kupdate_psm_pre(st, p);
	}
	/* one that needs a refused package: its %pretrans must not run either */
	if ((te = tgp_closure_find(st->closure, s_name + plen, len - plen - 1)) != NULL &&
	    left_out(st, te))
		return RPMRC_FAIL;
	/* a package the guard refuses (guard.c) */
	return tgp_guard_scriptlet_pre(st, s_name + plen, len - plen - 1);
}

static rpmRC taintguard_psm_post(rpmPlugin plugin, rpmte te, int res)
{
	struct tgp_state *st = state_get(plugin);
	struct tgp_pkg *pkg = st->cur;

	/* Backstop that never saw all the module files it expected: judge what it saw. */
	if (pkg && pkg->te == te && !pkg->scanned && pkg->n_mods &&
	    pkg->bs_seen < pkg->bs_expected) {
		tgp_judge(st, &pkg, 1);
		pkg->bs_seen = pkg->bs_expected;
		if (pkg->action != TG_ACTION_ALLOW)
			tgp_report(st, pkg, false);
	}
	st->cur = NULL;
	/*
	 * In the rpmdb now (rpm < 6.1 also calls this after %pretrans, before
	 * the install: no instance yet), even when %post failed.
	 */
	if (rpmteType(te) == TR_ADDED && rpmteDBInstance(te) != 0 &&
	    (pkg = tgp_pkg_find(st, te)) != NULL)
		tgp_record_finish(st, pkg, true);
	return RPMRC_OK;
}

/* By name, place, or the type the header gives the file (the element's list has none). */
static bool is_candidate(const struct tgp_pkg *pkg, rpmfi fi, const char *path)
{
	struct pkg_class c;

	return pkg_classify_file(path, pkg_ftype(pkg->types, rpmfiFX(fi)), &c) == PKG_MODULE;
}

/* Backstop: read the unpacked file (rpm's fd is write-only) and judge it. */
static rpmRC backstop(struct tgp_state *st, rpmfi fi, const char *path, const char *dest,
		      mode_t file_mode, rpmFsmOp op)
{
	struct tgp_pkg *pkg = st->cur;
	rpmFileAction action = XFO_ACTION(op);
	struct tg_module *m = NULL;
	char *error = NULL;
	rpmRC rc = RPMRC_OK;
	int fd, r = -1;

	if (!pkg || pkg->scanned || pkg->refused || st->mode == TGP_OFF)
		return RPMRC_OK;
	if (fi == NULL || XFA_SKIPPING(action) || (op & TG_FAF_UNOWNED) ||
	    !S_ISREG(file_mode) || !is_candidate(pkg, fi, dest))
		return RPMRC_OK;
	pkg->bs_seen++;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (pkg->bs_seen > st->max_modules)
		error = strdup("more kernel module files than %_taintguard_max_modules");
	else if (fd < 0)
		error = rstrscat(NULL, "cannot reopen the unpacked file: ", strerror(errno), NULL);
	else
		r = pkg_module_from_fd(fd, dest, &st->lim, &m, &error);
	if (fd >= 0)
		close(fd);
	if (r != 0)
		tgp_mod_add(&pkg->mods, &pkg->n_mods, dest, m, error);
	free(error);
	if (r == 0 && pkg->bs_seen < pkg->bs_expected)
		return RPMRC_OK;
	tgp_judge(st, &pkg, 1);
	bool last = pkg->bs_seen >= pkg->bs_expected;
	for (size_t i = 0; i < pkg->nv; i++) {
		if (pkg->v[i].action == TG_ACTION_DENY && (last || tgp_deny_definite(&pkg->v[i])) &&
		    st->mode == TGP_ENFORCE) {
			tgp_report(st, pkg, true);
			tgp_say(st, RPMLOG_ERR, true, "taintguard: refusing to install %s\n",
				pkg->nevra);
			pkg->refused = true;
			rc = RPMRC_FAIL;
			break;
		}
	}
	if (rc == RPMRC_OK && last && pkg->action != TG_ACTION_ALLOW)
		tgp_report(st, pkg, false);
	if (rc == RPMRC_OK && tgp_record_stage(st, pkg) < 0)
		rc = RPMRC_FAIL;	/* before rpm puts the file in place */
	return rc;
}

#if TG_PREPARE_HAS_FD
static rpmRC taintguard_fsm_file_prepare(rpmPlugin plugin, rpmfi fi, int fd, const char *path,
					 const char *dest, mode_t file_mode, rpmFsmOp op)
#else
static rpmRC taintguard_fsm_file_prepare(rpmPlugin plugin, rpmfi fi, const char *path,
					 const char *dest, mode_t file_mode, rpmFsmOp op)
#endif
{
	return backstop(state_get(plugin), fi, path, dest, file_mode, op);
}

/* Mark records follow what rpm really did with each element. */
static rpmRC taintguard_tsm_post(rpmPlugin plugin, rpmts ts, int res)
{
	struct tgp_state *st = state_get(plugin);
	rpmtsi pi;
	rpmte te;

	st->chrooted = false;	/* out of the root again: paths get its prefix */
	tgp_guard_reset(st);
	if (st->root && !st->test && st->closure) {
		refusals_late(st);	/* a backstop refusal in the last element */
		tgp_memory_save(st, st->closure);
	}
	tgp_closure_free(st->closure);
	st->closure = NULL;
	if (!st->root || st->test) {
		tgp_reset(st);
		return RPMRC_OK;
	}
	/* a package installed now: what needs it no longer waits for it */
	pi = rpmtsiInit(ts);
	while (st->memory_seen && (te = rpmtsiNext(pi, TR_ADDED)) != NULL)
		if (!rpmteFailed(te))
			tgp_memory_forget(st, rpmteN(te));
	rpmtsiFree(pi);
	pi = rpmtsiInit(ts);
	while ((te = rpmtsiNext(pi, TR_REMOVED)) != NULL)
		if (!rpmteFailed(te) && rpmteNEVRA(te))
			tgp_record_remove(st, rpmteNEVRA(te));
	rpmtsiFree(pi);
	for (size_t i = 0; i < st->n_pkgs; i++) {
		struct tgp_pkg *p = &st->pkgs[i];
		if (p->psm_seen)
			tgp_record_finish(st, p, !p->refused && (!rpmteFailed(p->te) ||
							      rpmteDBInstance(p->te) != 0));
	}
	tgp_reset(st);
	return RPMRC_OK;
}

struct rpmPluginHooks_s taintguard_hooks = {
	.init = taintguard_init,
	.cleanup = taintguard_cleanup,
	.tsm_pre = taintguard_tsm_pre,
	.tsm_post = taintguard_tsm_post,
	.psm_pre = taintguard_psm_pre,
	.psm_post = taintguard_psm_post,
	.scriptlet_pre = taintguard_scriptlet_pre,
	.fsm_file_prepare = taintguard_fsm_file_prepare,
};
