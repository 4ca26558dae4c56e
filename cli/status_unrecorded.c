/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard status: installed packages that own kernel modules and have no
 * mark record (installed with rpm --noplugins, before taintguard was, or
 * their record could not be written), judged now.
 *
 * The candidates are the module files (*.ko, .ko.xz, .ko.zst, .ko.gz) below
 * ROOT/lib/modules/R/ and /usr/lib/modules/R/ other than R's kernel/ tree,
 * which is the kernel package's own (judging some 4,000 in-tree modules at
 * every status run would cost seconds and find what the kernel's builders
 * signed).  Their owners come from the rpm command (rpm -qf, then each
 * owner's file list: no librpm, as for the records) and from dpkg's database
 * (pkg/owners.c); a DKMS build is the DKMS hook's to record and is left out.
 * Each package's module files are judged as one set, each for the kernel of
 * its /lib/modules/R/ path, with the policy "taintguard check" uses; those
 * whose modules are all allowed are not listed (they never get a record).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cli.h"
#include "owners.h"
#include "status_unrecorded.h"

#define RPM_BATCH 200
#define OWNER_MARK "taintguard-owner "
#define FILE_MARK "taintguard-file "

/* Module files below @rel (a path inside @root), recursively, into @out. */
static int walk(const char *root, const char *rel, int depth, struct strv *out)
{
	char *dir = NULL;
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (depth > 16 || asprintf(&dir, "%s%s", root, rel) < 0)
		return depth > 16 ? 0 : -ENOMEM;
	d = opendir(dir);
	free(dir);
	if (!d)
		return 0;
	while (r == 0 && (de = readdir(d)) != NULL) {
		char *p = NULL;
		struct stat st;

		if (de->d_name[0] == '.' || (depth == 1 && !strcmp(de->d_name, "kernel")))
			continue;
		if (asprintf(&p, "%s/%s", rel, de->d_name) < 0)
			return closedir(d), -ENOMEM;
		if (pkg_root_stat(root, p, &st) == 0 && S_ISDIR(st.st_mode) &&
		    de->d_type != DT_LNK)
			r = walk(root, p, depth + 1, out);
		else if (S_ISREG(st.st_mode) && tg_module_file_name(de->d_name))
			r = strv_push(out, p);
		free(p);
	}
	closedir(d);
	return r;
}

static int candidates(const char *root, struct strv *out)
{
	const char *tops[2];
	size_t nt = pkg_module_tops_distinct(root, tops);
	int r = 0;

	for (size_t t = 0; r == 0 && t < nt; t++)
		r = walk(root, tops[t], 0, out);
	return r;
}

char **status_rpm_argv(const char *rpm, const char *root, const char *dbpath, const char *mode,
		       const char *qf, char **args, size_t n)
{
	char **argv = calloc(n + 12, sizeof(char *));
	size_t a = 0;

	if (!argv)
		return NULL;
	argv[a++] = (char *)rpm;
	argv[a++] = "--root";
	argv[a++] = (char *)(*root ? root : "/");
	if (dbpath) {
		argv[a++] = "--dbpath";
		argv[a++] = (char *)dbpath;
	}
	argv[a++] = "-q";
	if (mode)
		argv[a++] = (char *)mode;
	argv[a++] = "--qf";
	argv[a++] = (char *)qf;
	argv[a++] = "--";	/* names never become options */
	for (size_t i = 0; i < n; i++)
		argv[a++] = args[i];
	return argv;
}

/*
 * rpm --root ROOT -q @mode --qf @qf -- @args[0..n): the lines that start
 * with @mark (without it) into @got.  NULL, or why the answer is not to be
 * trusted ("file X is not owned by any package" is an answer).
 */
static const char *rpm_lines(const char *rpm, const char *root, const char *dbpath,
			     const char *mode, const char *qf, const char *mark, char **args,
			     size_t n, struct strv *got)
{
	char **argv = status_rpm_argv(rpm, root, dbpath, mode, qf, args, n);
	char *out = NULL, *line, *next;
	size_t len;
	const char *why = NULL;
	int st;

	if (!argv)
		return "out of memory";
	st = cli_run_capture(argv, &out, &len);
	free(argv);
	if (st < 0 || !WIFEXITED(st))
		why = st < 0 ? "rpm -q could not be run" : "rpm -q was killed by a signal";
	for (line = out; !why && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (!strncmp(line, mark, strlen(mark))) {
			if (strv_push(got, line + strlen(mark)) < 0)
				why = "out of memory";
		} else if (strncmp(line, "file ", 5) && strncmp(line, "error: file ", 12) &&
			   strncmp(line, "package ", 8) && strncmp(line, "warning:", 8) && *line) {
			/*
			 * rpm -qf says "file X is not owned by any package", or,
			 * when X is not on the host, "error: file X: ..." (it
			 * looks at the host's X, not the root's, once the rpmdb
			 * named no owner): both are answers.  So is "package X
			 * is not installed" for an owner that a transaction
			 * erased after rpm -qf named it: it owns nothing now.
			 */
			why = "rpm -q printed an error";
			cli_error("rpm -q: %.200s", line);
		}
	}
	free(out);
	return why;
}

static struct unrecorded *add_pkg(struct unrecorded_list *l, const char *name, const char *source)
{
	struct unrecorded *u;

	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].package, name))
			return &l->v[i];
	u = realloc(l->v, (l->n + 1) * sizeof(*u));
	if (!u)
		return NULL;
	l->v = u;
	u = &l->v[l->n];
	memset(u, 0, sizeof(*u));
	if (!(u->package = strdup(name)))
		return NULL;
	u->source = source;
	l->n++;
	return u;
}

/*
 * Has @nevra a record now?  The records were listed before rpm was asked;
 * a package rpm installed in between has its record (staged before its
 * files), which is not "unrecorded".
 */
static bool recorded_now(const char *root, const char *nevra)
{
	struct tg_record rec = { .source = TG_RECORD_RPM, .package = nevra };
	char *dir = NULL, *path = NULL;
	struct stat st;
	bool r = false;

	if (asprintf(&dir, "%s" STATUS_MARKS_DIR, root) >= 0 &&
	    tg_record_path(dir, &rec, &path, NULL) == 0)
		r = lstat(path, &st) == 0;
	free(path);
	free(dir);
	return r;
}

/* The rpm packages owning @cand without a record in @recorded, with their module files. */
static const char *rpm_owners(const char *root, const char *dbpath, struct strv *cand,
			      const struct strv *recorded, struct unrecorded_list *l)
{
	struct strv owners = { 0 }, files = { 0 }, todo = { 0 };
	const char *why = NULL;
	char *rpm = cli_find_rpm();

	if (!rpm)
		return NULL;	/* no rpm here: dpkg's packages only */
	for (size_t i = 0; !why && i < cand->n; i += RPM_BATCH)
		why = rpm_lines(rpm, root, dbpath, "-f", OWNER_MARK "%{NEVRA}\\n", OWNER_MARK,
				cand->v + i, cand->n - i < RPM_BATCH ? cand->n - i : RPM_BATCH,
				&owners);
	for (size_t i = 0; !why && i < owners.n; i++)
		if (!strv_has(recorded, owners.v[i]) && !strv_has(&todo, owners.v[i]) &&
		    !recorded_now(root, owners.v[i]) && strv_push(&todo, owners.v[i]) < 0)
			why = "out of memory";
	for (size_t i = 0; !why && i < todo.n; i += RPM_BATCH)
		why = rpm_lines(rpm, root, dbpath, NULL, "[" FILE_MARK "%{=NEVRA}\\t%{FILENAMES}\\n]",
				FILE_MARK, todo.v + i,
				todo.n - i < RPM_BATCH ? todo.n - i : RPM_BATCH, &files);
	for (size_t i = 0; !why && i < files.n; i++) {
		char *tab = strchr(files.v[i], '\t'), rel[256];
		struct unrecorded *u;
		struct stat st;

		if (!tab)
			continue;
		*tab++ = '\0';
		if (!tg_module_file_name(tab) || !pkg_module_path_release(tab, rel, sizeof(rel)) ||
		    pkg_root_stat(root, tab, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (!(u = add_pkg(l, files.v[i], "rpm")) || strv_push(&u->files, tab) < 0)
			why = "out of memory";
	}
	strv_free(&owners);
	strv_free(&files);
	strv_free(&todo);
	free(rpm);
	return why;
}

/* dpkg's packages owning @cand (DKMS's copies are the DKMS hook's). */
static const char *dpkg_owners(const char *root, const struct strv *cand, struct unrecorded_list *l)
{
	struct pkg_owners o = { 0 };
	const char *why = NULL;

	if (pkg_owners_load(root, &o) < 0)
		return "out of memory";
	for (size_t i = 0; !why && i < cand->n; i++) {
		const struct pkg_owned *p = pkg_owners_find(&o, root, cand->v[i]);
		struct unrecorded *u;

		if (!p || p->kind != PKG_OWNER_DPKG)
			continue;
		if (!(u = add_pkg(l, p->label, "dpkg")) || strv_push(&u->files, cand->v[i]) < 0)
			why = "out of memory";
	}
	pkg_owners_free(&o);
	return why;
}

/* One package's modules as one set; its action is the worst of them. */
static int judge_pkg(struct tg_ctx *ctx, const char *root, struct unrecorded *u)
{
	struct tg_judge_item *it = calloc(u->files.n + 1, sizeof(*it));
	struct tg_module **m = calloc(u->files.n + 1, sizeof(*m));
	char **errs = calloc(u->files.n + 1, sizeof(*errs));
	struct tg_error err = { 0 };
	int r = -ENOMEM;

	u->v = calloc(u->files.n + 1, sizeof(*u->v));
	if (!it || !m || !errs || !u->v)
		goto out;
	for (size_t i = 0; i < u->files.n; i++) {
		char *host = NULL;

		if (asprintf(&host, "%s%s", root, u->files.v[i]) < 0)
			goto out;
		if (tg_module_open_path(host, tg_ctx_limits(ctx), &m[i], &err) < 0)
			errs[i] = strdup(err.msg[0] ? err.msg : "cannot read module");
		free(host);
		it[i] = (struct tg_judge_item){ .path = u->files.v[i], .m = m[i], .error = errs[i],
						.package = u->package };
	}
	r = tg_judge(ctx, NULL, it, u->files.n, 0, u->v, &err);
	if (r >= 0) {
		u->nv = u->files.n;
		for (size_t i = 0; i < u->nv; i++)
			if (u->v[i].action > u->action)
				u->action = u->v[i].action;
		r = 0;
	}
out:
	for (size_t i = 0; i < u->files.n; i++) {
		tg_module_free(m ? m[i] : NULL);
		free(errs ? errs[i] : NULL);
	}
	free(it);
	free(m);
	free(errs);
	return r;
}

/*
 * A package whose modules are all allowed never gets a record: only the
 * others are unrecorded.
 */
static void drop_allowed(struct unrecorded_list *l)
{
	size_t k = 0;

	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].action != TG_ACTION_ALLOW) {
			l->v[k++] = l->v[i];
			continue;
		}
		for (size_t j = 0; j < l->v[i].nv; j++)
			tg_verdict_free_contents(&l->v[i].v[j]);
		free(l->v[i].v);
		free(l->v[i].package);
		strv_free(&l->v[i].files);
	}
	l->n = k;
}

int status_unrecorded(const char *root, const char *dbpath, const struct strv *recorded,
		      struct unrecorded_list *l)
{
	struct strv cand = { 0 };
	struct cli_opts o;
	struct tg_ctx *ctx = NULL;
	const char *why = NULL;
	int r;

	memset(l, 0, sizeof(*l));
	if (candidates(root, &cand) < 0)
		why = "out of memory";
	if (!why && cand.n && (why = rpm_owners(root, dbpath, &cand, recorded, l)) != NULL) {
		/* as for the records: rpm not answering is said, not an error of ours */
		cli_error("cannot tell which rpm packages own kernel modules: %s; packages without "
			  "a record are not checked", why);
		why = NULL;
	}
	if (!why && cand.n)
		why = dpkg_owners(root, &cand, l);
	strv_free(&cand);
	if (why) {
		cli_error("cannot tell which packages own kernel modules: %s", why);
		return -EIO;
	}
	if (l->n == 0)
		return 0;
	cli_opts_init(&o);
	o.root = *root ? root : "/";
	if (!(ctx = cli_ctx_new(&o)))
		return -EINVAL;
	r = 0;
	for (size_t i = 0; r == 0 && i < l->n; i++)
		r = judge_pkg(ctx, root, &l->v[i]);
	tg_ctx_free(ctx);
	if (r < 0) {
		cli_error("cannot judge the modules of %s: out of memory", l->v[0].package);
		return r;
	}
	drop_allowed(l);
	return 0;
}

void unrecorded_list_free(struct unrecorded_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		for (size_t k = 0; k < l->v[i].nv; k++)
			tg_verdict_free_contents(&l->v[i].v[k]);
		free(l->v[i].v);
		free(l->v[i].package);
		strv_free(&l->v[i].files);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}
