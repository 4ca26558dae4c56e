/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A kernel update: which out-of-tree modules of a root will be loadable under
 * the kernel release R being installed (docs/kernel-update.md).  The loader
 * of R finds modules anywhere in ROOT/lib/modules/R/; the kernel's own tree
 * (kernel/) is the kernel package's, so what is left to judge is extra/,
 * updates/ and weak-updates/.  RHEL's weak-modules links a kmod built for an
 * older kernel (in that kernel's extra/) into R's weak-updates/ when R
 * exports every symbol the module imports with the CRC the module recorded;
 * that check is reproduced here so that a kmod is judged as R would meet it
 * before the script has run (it runs in the kernel's %posttrans).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rpm/rpmts.h>

#include "pkg.h"

static const char *const mod_subs[] = { "extra", "updates", "weak-updates" };

/* Depth of directories below extra/ ... walked: a bound, not a limit kmods meet. */
#define WALK_DEPTH 8

struct walk {
	const char *root;
	rpmts ts;
	const struct tg_limits *lim;
	struct pkg_kmod *v;
	size_t n, cap;
	struct pkg_fileset seen;	/* R's own files by device and inode: each judged once */
	int err;
};

bool pkg_weak_modules_present(const char *root)
{
	static const char *const where[] = { "/usr/sbin/weak-modules", "/sbin/weak-modules" };
	bool found = false;

	for (size_t i = 0; i < 2 && !found; i++) {
		char *p = tg_root_resolve(root, where[i]);
		struct stat sb;

		found = p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
		free(p);
	}
	return found;
}

static char *owner_of(rpmts ts, const char *file)
{
	struct strv names = { 0 };
	char *o = NULL;

	if (ts && pkg_rpmdb_owners(ts, file, &names) == 0 && names.n)
		o = strdup(names.v[0]);
	strv_free(&names);
	return o;
}

/* Read @file (inside the root) as a module into a new entry found at @path. */
static struct pkg_kmod *add(struct walk *w, const char *path, const char *file,
			    enum pkg_kmod_place place)
{
	struct tg_error err = { 0 };
	struct pkg_kmod *e;
	char *host;

	if (w->n == w->cap) {
		size_t nc = w->cap ? w->cap * 2 : 16;
		struct pkg_kmod *nv = realloc(w->v, nc * sizeof(*nv));

		if (!nv) {
			w->err = -ENOMEM;
			return NULL;
		}
		w->v = nv;
		w->cap = nc;
	}
	e = &w->v[w->n];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	e->file = strdup(file);
	e->place = place;
	if (!e->path || !e->file) {
		free(e->path), free(e->file);
		w->err = -ENOMEM;
		return NULL;
	}
	w->n++;
	/* every link resolved inside the root: weak-updates/ links are absolute */
	host = tg_root_resolve(w->root, file);
	if (!host || tg_module_open_path(host, w->lim, &e->m, &err) < 0)
		e->error = strdup(host ? err.msg : "cannot resolve the path in the root");
	free(host);
	e->owner = owner_of(w->ts, file);
	return e;
}

/* Is this root-relative path already an entry (a link and its target, /lib = /usr/lib)? */
static bool have_file(const struct walk *w, const char *file)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->v[i].path, file))
			return true;
	return false;
}

typedef void (*found_fn)(struct walk *w, const char *path, const char *rel, void *arg);

/* Every module file below @dir (inside the root), in name order; @rel is below the base. */
static void walk_dir(struct walk *w, const char *dir, const char *rel, int depth, found_fn fn,
		     void *arg)
{
	char *host = tg_root_resolve(w->root, dir);
	struct dirent **ents = NULL;
	int n = host ? scandir(host, &ents, NULL, alphasort) : -1;

	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		char *p = NULL, *r = NULL, *hp = NULL;
		struct stat sb;

		if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
			goto next;
		p = strf("%s/%s", dir, name);
		r = strf("%s%s%s", rel, *rel ? "/" : "", name);
		hp = p ? strf("%s/%s", host, name) : NULL;
		if (!p || !r || !hp) {
			w->err = -ENOMEM;
			goto next;
		}
		if (lstat(hp, &sb) < 0)
			goto next;
		if (S_ISDIR(sb.st_mode) && depth < WALK_DEPTH)
			walk_dir(w, p, r, depth + 1, fn, arg);
		else if ((S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode)) && tg_module_file_name(name))
			fn(w, p, r, arg);
next:
		free(p), free(r), free(hp);
		free(ents[i]);
	}
	free(ents);
	free(host);
}

/*
 * A file of R's own: once, however many paths reach it (a link in updates/
 * to a file in extra/, a hard link); a path that does not resolve is an
 * entry of its own, with its error.
 */
static void found_own(struct walk *w, const char *path, const char *rel, void *arg)
{
	struct stat st;
	int r;

	(void)rel, (void)arg;
	if (have_file(w, path))
		return;
	if (pkg_root_stat(w->root, path, &st) == 0) {
		r = pkg_fileset_add(&w->seen, &st, NULL, 0);
		if (r < 0)
			w->err = r;
		if (r <= 0)
			return;
	}
	add(w, path, path, PKG_KMOD_OWN);
}

/*
 * weak-modules' check, as the script does it with depmod -E against R's
 * symvers: every symbol the module imports (undefined in its symbol table)
 * is exported by R, with the CRC the module's version table records for it.
 * Version records of symbols it does not import (module_layout) are not
 * looked at, as depmod does not; an import without a record is not either.
 * A weak import R lacks does not fail the load, nor the check.  NULL when
 * the module passes, else why not (malloc'ed).
 */
static char *weak_incompatible(const struct tg_module *m, const struct tg_symvers *sv)
{
	if (!m)
		return strdup("the module cannot be read");
	if (!m->n_versions)
		return strdup("it has no symbol versions");
	for (size_t i = 0; i < m->n_imports; i++) {
		const struct tg_import *im = &m->imports[i];
		const struct tg_ksym *k;
		uint32_t crc;

		if (!im->name || !*im->name)
			continue;
		k = tg_symvers_lookup(sv, im->name);
		if (!k) {
			if (im->weak)
				continue;
			return strf("the kernel does not export %s", im->name);
		}
		if (tg_module_version_crc(m, im->name, &crc) && crc != k->crc)
			return strf("symbol %s has CRC 0x%08x in the module, 0x%08x in the kernel",
					im->name, (unsigned)crc, (unsigned)k->crc);
	}
	return NULL;
}

struct weak_arg {
	const char *rdir;	/* /lib/modules/R */
	const struct tg_symvers *sv;
};

/* A module in another kernel's extra/: what weak-modules would do with it for R. */
static void found_weak(struct walk *w, const char *path, const char *rel, void *arg)
{
	struct weak_arg *a = arg;
	char *link = strf("%s/weak-updates/%s", a->rdir, rel);
	char *base = strrchr(path, '/');
	struct pkg_kmod *e;

	if (!link) {
		w->err = -ENOMEM;
		return;
	}
	/* R has a module of that file name in its own extra/ or updates/: no link */
	for (size_t i = 0; i < w->n; i++) {
		const char *b = strrchr(w->v[i].path, '/');

		if (w->v[i].place == PKG_KMOD_OWN && b && base && !strcmp(b, base)) {
			free(link);
			return;
		}
	}
	if (!have_file(w, link) && (e = add(w, link, path, PKG_KMOD_WEAK)) != NULL &&
	    (e->why = weak_incompatible(e->m, a->sv)) != NULL)
		e->place = PKG_KMOD_WEAK_NOT;
	free(link);
}

/* Other installed kernels' extra/ modules that weak-modules considers for R. */
static void weak_candidates(struct walk *w, const char *release, const struct tg_symvers *sv)
{
	const char *tops[2];
	size_t nt = pkg_module_tops_distinct(w->root, tops);

	for (size_t t = 0; t < nt; t++) {
		char *host, *rdir;
		struct dirent **ents = NULL;
		int n;

		host = tg_root_resolve(w->root, tops[t]);
		rdir = strf("%s/%s", tops[t], release);
		n = host && rdir ? scandir(host, &ents, NULL, alphasort) : -1;
		for (int i = 0; i < n; i++) {
			const char *k = ents[i]->d_name;
			char *extra = strf("%s/%s/extra", tops[t], k);
			struct weak_arg a = { rdir, sv };

			if (extra && k[0] != '.' && strcmp(k, release) != 0)
				walk_dir(w, extra, "", 0, found_weak, &a);
			free(extra);
			free(ents[i]);
		}
		free(ents);
		free(host);
		free(rdir);
	}
}

int pkg_kupdate_modules(const char *root, const char *release, const struct tg_symvers *symvers,
			rpmts ts, const struct tg_limits *lim, struct pkg_kmod **out, size_t *n)
{
	struct walk w = { .root = root && *root ? root : "/", .ts = ts, .lim = lim };
	const char *tops[2];
	size_t nt;

	*out = NULL;
	*n = 0;
	if (!release || !*release || strchr(release, '/'))
		return -EINVAL;
	nt = pkg_module_tops_distinct(w.root, tops);
	for (size_t t = 0; t < nt && w.err == 0; t++) {
		for (size_t s = 0; s < 3; s++) {
			char *d = strf("%s/%s/%s", tops[t], release, mod_subs[s]);

			if (!d) {
				w.err = -ENOMEM;
				break;
			}
			walk_dir(&w, d, "", 0, found_own, NULL);
			free(d);
		}
	}
	if (w.err == 0 && symvers && pkg_weak_modules_present(w.root))
		weak_candidates(&w, release, symvers);
	pkg_fileset_free(&w.seen);
	if (w.err < 0) {
		pkg_kmods_free(w.v, w.n);
		return w.err;
	}
	*out = w.v;
	*n = w.n;
	return 0;
}

int pkg_kupdate_judge(struct tg_ctx *ctx, const char *root, const char *release,
		      const struct tg_symvers *symvers, rpmts ts, const struct tg_limits *lim,
		      const struct tg_judge_item *extra, size_t n_extra, struct pkg_kmod **km,
		      struct tg_verdict **v, size_t *n)
{
	struct tg_judge_item *items = NULL;
	struct tg_verdict *all = NULL;
	size_t total = 0;
	int r;

	*v = NULL;
	r = pkg_kupdate_modules(root, release, symvers, ts, lim, km, n);
	if (r < 0)
		return r;
	total = *n + n_extra;
	r = -ENOMEM;
	if (!(items = calloc(total ? total : 1, sizeof(*items))) ||
	    !(all = calloc(total ? total : 1, sizeof(*all))))
		goto out;
	for (size_t i = 0; i < *n; i++)
		items[i] = (struct tg_judge_item){ .path = (*km)[i].path, .m = (*km)[i].m,
						   .error = (*km)[i].error, .package = (*km)[i].owner };
	if (n_extra)
		memcpy(items + *n, extra, n_extra * sizeof(*extra));
	r = tg_judge(ctx, release, items, total, 0, all, NULL);
out:
	/* the set's own modules were context: only the root's verdicts are the caller's */
	for (size_t i = r < 0 ? 0 : *n; all && i < total; i++)
		tg_verdict_free_contents(&all[i]);
	free(items);
	if (r < 0) {
		free(all);
		pkg_kmods_free(*km, *n);
		*km = NULL;
		*n = 0;
		return r;
	}
	*v = all;
	return 0;
}

void pkg_kupdate_free(struct pkg_kmod *km, struct tg_verdict *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		tg_verdict_free_contents(&v[i]);
	free(v);
	pkg_kmods_free(km, n);
}

void pkg_kmods_free(struct pkg_kmod *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].file);
		free(v[i].owner);
		free(v[i].why);
		tg_module_free(v[i].m);
		free(v[i].error);
	}
	free(v);
}

bool pkg_kernel_learn(struct tg_kernel *k, const char *release, const char *nevra,
		      const char *path, const struct tg_module *m)
{
	const char *vm = m ? tg_module_get(m, "vermagic") : NULL;
	char rel[256];

	if (!m || !tg_module_has(m, "intree") || !tg_kernel_path_in_tree(path) ||
	    tg_kernel_release_from_path(path, rel, sizeof(rel)) < 0 || strcmp(rel, release))
		return false;
	if (!k->this_module_size)
		k->this_module_size = m->this_module_size;
	if (!k->vermagic && vm && (k->vermagic = strdup(vm)) != NULL)
		k->vermagic_source = strf("%s:%s", nevra, path);
	return true;
}

bool pkg_kupdate_affected(const struct pkg_kmod *km, const struct tg_verdict *v)
{
	return km->place == PKG_KMOD_WEAK_NOT || km->place == PKG_KMOD_DKMS_NOT ||
	       v->action != TG_ACTION_ALLOW;
}

/*
 * One line per affected module, the same in every front end that says what a
 * kernel update does (the rpm plugin, audit and the dnf plugins through it):
 * the one reason of tg_verdict_reason(), or why the module will be missing.
 */
char *pkg_kupdate_line(const char *release, const struct pkg_kmod *km, const struct tg_verdict *v)
{
	const char *owner = km->owner ? km->owner : "(no package)";
	const char *mod = v->module ? v->module : "?";
	char why[160];

	if (km->place == PKG_KMOD_WEAK_NOT)
		return strf("kernel %s: %s: module %s (%s): will be missing: weak-modules will not "
			    "link it: %s", release, owner, mod, km->file, km->why);
	tg_verdict_reason(v, why, sizeof(why));
	return strf("kernel %s: %s: module %s (%s): %s%s", release, owner, mod, km->path, why,
		    v->loads && v->action == TG_ACTION_DENY ? "; policy: deny" : "");
}

bool pkg_files_kernel_release(rpmfiles files, char *buf, size_t len)
{
	int fc = (int)rpmfilesFC(files);
	char imgs[4][256];
	size_t ni = 0;
	bool ok = false;

	/* images first: a package has one or two; then their symvers and .config */
	for (int i = 0; i < fc && ni < 4; i++) {
		struct pkg_class c;
		char *fn = rpmfilesFN(files, i);

		/* /boot/vmlinuz-R, (usr/)lib/modules/R/vmlinuz (classify.c) */
		if (fn && S_ISREG(rpmfilesFMode(files, i)) && pkg_classify(fn, &c) == PKG_IMAGE &&
		    snprintf(imgs[ni], sizeof(imgs[ni]), "%s", c.release) < (int)sizeof(imgs[ni]))
			ni++;
		free(fn);
	}
	for (size_t k = 0; k < ni && !ok; k++) {
		bool sv = false, cfg = false;

		for (int i = 0; i < fc && !(sv && cfg); i++) {
			struct pkg_class c;
			char *fn = rpmfilesFN(files, i);
			enum pkg_kind kind = fn ? pkg_classify(fn, &c) : PKG_OTHER;

			if (kind != PKG_OTHER && kind != PKG_MODULE && !strcmp(c.release, imgs[k])) {
				sv |= kind == PKG_SYMVERS;
				cfg |= kind == PKG_CONFIG;
			}
			free(fn);
		}
		if (sv && cfg)
			ok = snprintf(buf, len, "%s", imgs[k]) < (int)len;
	}
	return ok;
}
