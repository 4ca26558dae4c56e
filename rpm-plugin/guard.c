/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The guard: packages that ship files deciding whether taintguard runs at
 * all.  A macro file that makes %__transaction_taintguard empty switches the
 * plugin off from the next transaction on; one that moves %__plugindir hides
 * it; a DKMS framework file can replace the sign_file our DKMS hook is
 * (guard/guard.h lists them, docs/rpm.md says why).  Packages other than
 * taintguard's own get the policy's guard action for each such file
 * (tg_policy_decide_file), refused in psm_pre like a denied module.
 *
 * The cost stays with the rare packages that ship such a file: every added
 * package costs one pass over its file names; only a package with a macro,
 * rpmrc or dkms file has those files read from its payload, and only then
 * is rpm's macro path read from the target root to see whether the new file
 * would change what rpm ends up with.
 */
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rpm/header.h>
#include <rpm/rpmlog.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmstring.h>
#include <rpm/rpmts.h>

#include "guard.h"
#include "tgp.h"

/* Packages built from taintguard.spec: ours while no installed package owns our files. */
static const char *const spec_names[] = {
	"taintguard", "taintguard-libs", "taintguard-devel", "taintguard-rpm-plugin",
	"taintguard-dkms",
};

/* A file of a package whose content decides. */
struct gfile {
	char *path;
	enum guard_kind kind;
	char *text;		/* NULL: not read */
	size_t len;
};

struct gfinding {
	char *path;
	char *why;
	enum tg_action action;
	char *rule, *justification;
};

struct gpkg {
	rpmte te;
	char *nevra, *name;
	bool own_name;		/* one of the spec's names while nothing is installed */
	struct gfile *files;
	size_t n_files;
	struct gfinding *f;
	size_t n_f;
	enum tg_action action;
	bool seen;
	bool refused;
};

struct tgp_guard {
	struct guard_places pl;
	const char *root;	/* the root prefix, "" for / */
	struct strv own;	/* taintguard's own package names */
	bool own_installed;	/* an installed package owns taintguard's files */
	struct gpkg *pkgs;
	size_t n_pkgs;
	/* rpm's macro files in the target root today, in load order */
	struct guard_mfile *cur;
	size_t *cur_glob;	/* which macro path entry found each */
	size_t n_cur;
	bool cur_loaded;
	struct guard_names names;
	struct guard_wins wcur;
};

static void tgp_guard_report(struct tgp_state *st, struct gpkg *p, bool refuse);

/* ------------------------------------------------------------ helpers */

static void finding(struct gpkg *p, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void finding(struct gpkg *p, const char *path, const char *fmt, ...)
{
	struct gfinding *n;
	va_list ap;
	char *why = NULL;

	for (size_t i = 0; i < p->n_f; i++)
		if (!strcmp(p->f[i].path, path))
			return;	/* one reason per file is enough */
	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	n = realloc(p->f, (p->n_f + 1) * sizeof(*n));
	if (!n) {
		free(why);
		p->action = TG_ACTION_DENY;	/* cannot keep it: fail closed */
		return;
	}
	p->f = n;
	n = &p->f[p->n_f];
	memset(n, 0, sizeof(*n));
	n->path = strdup(path);
	n->why = why ? why : strdup("?");
	n->action = TG_ACTION_DENY;
	if (n->path && n->why)
		p->n_f++;
	else {
		free(n->path);
		free(n->why);
		p->action = TG_ACTION_DENY;
	}
}

static void gpkg_free(struct gpkg *p)
{
	free(p->nevra);
	free(p->name);
	for (size_t i = 0; i < p->n_files; i++) {
		free(p->files[i].path);
		free(p->files[i].text);
	}
	free(p->files);
	for (size_t i = 0; i < p->n_f; i++) {
		free(p->f[i].path);
		free(p->f[i].why);
		free(p->f[i].rule);
		free(p->f[i].justification);
	}
	free(p->f);
}

void tgp_guard_reset(struct tgp_state *st)
{
	struct tgp_guard *g = st->guard;

	if (!g)
		return;
	for (size_t i = 0; i < g->n_pkgs; i++)
		gpkg_free(&g->pkgs[i]);
	free(g->pkgs);
	for (size_t i = 0; i < g->n_cur; i++) {
		free(g->cur[i].path);
		free(g->cur[i].text);
	}
	free(g->cur);
	free(g->cur_glob);
	guard_wins_free(&g->wcur);
	guard_names_free(&g->names);
	strv_free(&g->own);
	guard_places_free(&g->pl);
	free(g);
	st->guard = NULL;
}

/* ------------------------------------------------------------ taintguard's own */

/*
 * Taintguard's own packages: those that own its files in the target's rpmdb
 * today.  While none does (a make install, or the first install of our
 * packages), the spec's names, but then only for our own files: a name
 * alone is something any package can take.
 */
static int own_packages(struct tgp_guard *g, rpmts ts)
{
	char *anchors[8] = { NULL };
	size_t na = 0;
	int r = 0;

	anchors[na++] = rstrscat(NULL, TG_SYSCONFDIR, "/policy.yaml", NULL);
	anchors[na++] = rstrscat(NULL, TG_DATADIR, "/default.yaml", NULL);
	anchors[na++] = rstrscat(NULL, TG_BINDIR, "/taintguard", NULL);
	anchors[na++] = rstrscat(NULL, TG_LIBEXECDIR, "/taintguard-dkms", NULL);
	anchors[na++] = rpmExpand("%{?__plugindir}/taintguard.so", NULL);
	anchors[na++] = rpmExpand("%{?_rpmmacrodir}/macros.transaction_taintguard", NULL);
	anchors[na++] = rstrscat(NULL, rpmConfigDir(), "/macros.d/macros.transaction_taintguard",
				 NULL);
	for (size_t i = 0; i < na && r == 0; i++)
		if (anchors[i] && anchors[i][0] == '/')
			r = pkg_rpmdb_owners(ts, anchors[i], &g->own);
	for (size_t i = 0; i < na; i++)
		free(anchors[i]);
	g->own_installed = g->own.n > 0;
	for (size_t i = 0; r == 0 && !g->own_installed && i < sizeof(spec_names) / sizeof(*spec_names);
	     i++)
		r = strv_push(&g->own, spec_names[i]);
	return r;
}

/* Is the installed file @path owned by one of taintguard's installed packages? */
static bool owned_by_us(struct tgp_guard *g, rpmts ts, const char *path)
{
	struct strv names = { 0 };
	bool ours = false;

	if (!g->own_installed)
		return false;
	pkg_rpmdb_owners(ts, path, &names);
	for (size_t i = 0; i < names.n; i++)
		ours = ours || strv_has(&g->own, names.v[i]);
	strv_free(&names);
	return ours;
}

/* ------------------------------------------------------------ the file list */

static const char *own_reason(enum guard_kind k)
{
	if (k == GUARD_PLUGIN)
		return "it is in rpm's plugin directory and named like the taintguard plugin, which "
		       "rpm would load in its place";
	return "it is in taintguard's own directories, or one of taintguard's own files (its "
	       "policy, programs, DKMS hook or records)";
}

static int add_file(struct gpkg *p, const char *path, enum guard_kind kind)
{
	struct gfile *n = realloc(p->files, (p->n_files + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	p->files = n;
	n = &p->files[p->n_files];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	if (!(n->path = strdup(path)))
		return -ENOMEM;
	p->n_files++;
	return 0;
}

/* One file of an added package: a finding by name, or a file to read. */
static void look_at(struct tgp_guard *g, struct gpkg *p, rpmfiles files, int i)
{
	rpm_mode_t mode = rpmfilesFMode(files, i);
	char *path = rpmfilesFN(files, i);
	enum guard_kind k;

	if (!path)
		return;
	k = guard_classify(&g->pl, path);
	switch (k) {
	case GUARD_NONE:
		break;
	case GUARD_OWN:
	case GUARD_PLUGIN:
		if (!p->own_name)
			finding(p, path, "%s", own_reason(k));
		break;
	default:
		if (k == GUARD_MACRO && guard_named_like_macros(path) && !p->own_name) {
			finding(p, path, "it is named like taintguard's macro file, which it would "
				"replace or override");
		} else if (S_ISLNK(mode)) {
			finding(p, path, "a symbolic link to '%s' where rpm or dkms reads a %s: what "
				"it points to cannot be checked", rpmfilesFLink(files, i) ?: "?",
				guard_kind_name(k));
		} else if (S_ISREG(mode) && add_file(p, path, k) < 0) {
			finding(p, path, "out of memory");
		}
		break;
	}
	free(path);
}

/* ------------------------------------------------------------ the payload */

static bool want_member(void *ctx, const char *path)
{
	struct gpkg *p = ctx;

	for (size_t i = 0; i < p->n_files; i++)
		if (!strcmp(p->files[i].path, path))
			return true;
	return false;
}

static int on_member(void *ctx, struct pkg_member *m)
{
	struct gpkg *p = ctx;

	for (size_t i = 0; i < p->n_files; i++) {
		struct gfile *f = &p->files[i];

		if (strcmp(f->path, m->path))
			continue;
		if (!m->data) {
			finding(p, f->path, "a %s that cannot be read from the package: %s",
				guard_kind_name(f->kind), m->error ? m->error : "?");
			return 0;
		}
		free(f->text);
		f->text = m->data;
		f->len = m->len;
		return 0;
	}
	free(m->data);
	return 0;
}

/* The package's files of interest, from its payload (the fd rpm's verify step used). */
static void read_files(rpmts ts, struct gpkg *p)
{
	struct pkg_payload_opts po = {
		.want = want_member, .want_ctx = p, .want_max = GUARD_MAX_FILE,
	};
	rpmfiles files = NULL;
	Header h = NULL;
	char *error = NULL;
	FD_t fd = rpmtsNotify(ts, p->te, RPMCALLBACK_INST_OPEN_FILE, 0, 0);

	if (!fd) {
		error = strdup("the application gave no package file to read it from before "
			       "installing");
	} else if (pkg_header_reread(ts, fd, p->nevra, &h) < 0) {
		error = strdup("cannot read the package header");
	} else if (!(files = rpmteFiles(p->te))) {
		error = strdup("cannot read the file list");
	} else if (pkg_payload_read(fd, h, files, &po, on_member, p, &error) < 0 && !error) {
		error = strdup("cannot read the payload");
	}
	if (fd)
		rpmtsNotify(ts, p->te, RPMCALLBACK_INST_CLOSE_FILE, 0, 0);
	for (size_t i = 0; i < p->n_files; i++)
		if (!p->files[i].text)
			finding(p, p->files[i].path, "a %s whose content cannot be checked: %s",
				guard_kind_name(p->files[i].kind), error ? error : "not in the payload");
	free(error);
	rpmfilesFree(files);
	headerFree(h);
}

/* ------------------------------------------------------------ rpmrc, dkms */

/* The first line of @a not in @b, for the message. */
static char *first_new_line(const char *a, const char *b)
{
	for (const char *l = a; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		const char *f = b;
		bool found = false;

		for (; *f && !found;) {
			const char *fe = strchr(f, '\n');
			size_t fn = fe ? (size_t)(fe - f) : strlen(f);

			found = fn == n && !memcmp(f, l, n);
			f += fn + (fe ? 1 : 0);
		}
		if (!found)
			return strndup(l, n > 200 ? 200 : n);
		l += n + (e ? 1 : 0);
	}
	return strdup("(a line removed)");
}

static void check_rpmrc(struct tgp_guard *g, struct gpkg *p, struct gfile *f)
{
	char *path = rstrscat(NULL, g->root, f->path, NULL), *old = NULL, *a, *b = NULL;
	size_t oldlen = 0;

	a = guard_rpmrc_significant(f->text, f->len);
	if (path && guard_read_file(path, &old, &oldlen) == 0)
		b = guard_rpmrc_significant(old, oldlen);
	else
		b = strdup("");
	if (!a || !b)
		finding(p, f->path, "out of memory");
	else if (strcmp(a, b)) {
		char *line = first_new_line(a, b);

		finding(p, f->path, "an rpmrc file that changes more than optflags, which can change "
			"the platform and so which macro files rpm reads: '%s'", line ? line : "?");
		free(line);
	}
	free(a);
	free(b);
	free(old);
	free(path);
}

static void check_dkms(struct gpkg *p, struct gfile *f)
{
	char buf[512];
	const char *why = f->kind == GUARD_DKMS_FRAMEWORK
			  ? guard_dkms_framework_reason(f->text, f->len, buf, sizeof(buf))
			  : guard_dkms_conf_reason(f->text, f->len, buf, sizeof(buf));

	if (why)
		finding(p, f->path, "a %s: %s", guard_kind_name(f->kind), why);
}

/* ------------------------------------------------------------ macro files */

static int path_cmp(const void *a, const void *b)
{
	return strcmp(((const struct guard_mfile *)a)->path, ((const struct guard_mfile *)b)->path);
}

/* rpm's macro path in the target root as it is, read once per transaction. */
static int load_current(struct tgp_guard *g)
{
	size_t cap = 0;
	int r = 0;

	if (g->cur_loaded)
		return 0;
	g->cur_loaded = true;
	for (size_t i = 0; i < g->pl.macro.n && r == 0; i++) {
		char *pat = rstrscat(NULL, g->root, g->pl.macro.v[i], NULL);
		glob_t gl;

		if (!pat)
			return -ENOMEM;
		memset(&gl, 0, sizeof(gl));
		if (glob(pat, 0, NULL, &gl) == 0) {
			for (size_t j = 0; j < gl.gl_pathc && r == 0; j++) {
				const char *full = gl.gl_pathv[j], *path = full + strlen(g->root);
				struct guard_mfile *f;

				if (guard_macro_skipped(path))
					continue;
				if (g->n_cur == cap) {
					size_t nc = cap ? cap * 2 : 32;
					struct guard_mfile *nv = realloc(g->cur, nc * sizeof(*nv));
					size_t *ng = realloc(g->cur_glob, nc * sizeof(*ng));

					if (nv)
						g->cur = nv;
					if (ng)
						g->cur_glob = ng;
					if (!nv || !ng) {
						r = -ENOMEM;
						break;
					}
					cap = nc;
				}
				f = &g->cur[g->n_cur];
				memset(f, 0, sizeof(*f));
				if (!(f->path = strdup(path))) {
					r = -ENOMEM;
					break;
				}
				/* unreadable now: rpm skips it too */
				guard_read_file(full, &f->text, &f->len);
				g->cur_glob[g->n_cur++] = i;
			}
		}
		globfree(&gl);
		free(pat);
	}
	if (r == 0)
		r = guard_names_init(&g->names);
	if (r == 0)
		r = guard_names_close(&g->names, g->cur, g->n_cur);
	if (r == 0)
		r = guard_wins_get(g->cur, g->n_cur, &g->names, &g->wcur);
	return r;
}

/* Would the upgrade that @p is remove @path (a file of the version it replaces)? */
static bool removed_by(rpmts ts, struct gpkg *p, const char *path)
{
	rpmtsi pi = rpmtsiInit(ts);
	bool gone = false;
	rpmte te;

	if (want_member(p, path))
		return false;	/* shipped again */
	while (!gone && (te = rpmtsiNext(pi, TR_REMOVED)) != NULL) {
		rpmfiles files;

		if (rpmteDependsOn(te) != p->te || !(files = rpmteFiles(te)))
			continue;
		gone = rpmfilesFindFN(files, path) >= 0;
		rpmfilesFree(files);
	}
	rpmtsiFree(pi);
	return gone;
}

/*
 * Our own package, while none is installed, laying down our macro file
 * where none is: what "its name when it is not installed yet" allows.  Over
 * an existing file (a make install) its content is judged like any other,
 * so a package taking our name cannot switch the plugin off with it.
 */
static bool own_first_install(struct tgp_guard *g, const struct gpkg *p, const struct gfile *f)
{
	struct stat st;
	char *full;
	bool fresh;

	if (!p->own_name || !guard_named_like_macros(f->path))
		return false;
	full = rstrscat(NULL, g->root, f->path, NULL);
	fresh = full && lstat(full, &st) < 0 && errno == ENOENT;
	free(full);
	return fresh;
}

/* The macro files as they would be once @p is installed. */
static int state_with(struct tgp_guard *g, rpmts ts, struct gpkg *p, struct guard_mfile **out,
		      size_t *n_out)
{
	struct guard_mfile *v = calloc(g->n_cur + p->n_files + 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < g->pl.macro.n; i++) {
		size_t start = n;

		for (size_t j = 0; j < g->n_cur; j++) {
			if (g->cur_glob[j] != i || removed_by(ts, p, g->cur[j].path))
				continue;
			v[n] = g->cur[j];
			v[n].tag = NULL;
			for (size_t k = 0; k < p->n_files; k++)
				if (p->files[k].kind == GUARD_MACRO && !strcmp(p->files[k].path, v[n].path)) {
					v[n].text = p->files[k].text;
					v[n].len = p->files[k].len;
					v[n].tag = p;
				}
			n++;
		}
		for (size_t k = 0; k < p->n_files; k++) {
			struct gfile *f = &p->files[k];
			bool there = false;

			if (f->kind != GUARD_MACRO || !f->text || !guard_glob_match(g->pl.macro.v[i], f->path) ||
			    own_first_install(g, p, f))
				continue;
			for (size_t j = start; j < n && !there; j++)
				there = !strcmp(v[j].path, f->path);
			if (!there)
				v[n++] = (struct guard_mfile){ .path = f->path, .text = f->text,
							       .len = f->len, .tag = p };
		}
		qsort(v + start, n - start, sizeof(*v), path_cmp);	/* glob(3) order */
	}
	*out = v;
	*n_out = n;
	return 0;
}

static const char *role(const char *name)
{
	if (!strcmp(name, "__transaction_taintguard"))
		return "the plugin rpm loads as taintguard (empty: none)";
	if (!strcmp(name, "__plugindir"))
		return "rpm's plugin directory";
	if (!strncmp(name, "_taintguard_", 12))
		return "a setting of the taintguard plugin";
	return "a macro the plugin's path is built from";
}

/* What installing @p would change in the macros that decide how rpm runs taintguard. */
static void check_macros(struct tgp_guard *g, rpmts ts, struct gpkg *p)
{
	struct guard_mfile *nv = NULL;
	struct guard_wins wnew = { 0 };
	size_t nn = 0;
	bool any = false;

	for (size_t i = 0; i < p->n_files; i++)
		any = any || (p->files[i].kind == GUARD_MACRO && p->files[i].text);
	if (!any)
		return;
	if (load_current(g) < 0 || state_with(g, ts, p, &nv, &nn) < 0 ||
	    guard_wins_get(nv, nn, &g->names, &wnew) < 0) {
		for (size_t i = 0; i < p->n_files; i++)
			if (p->files[i].kind == GUARD_MACRO)
				finding(p, p->files[i].path, "an rpm macro file that cannot be "
					"checked: out of memory");
		goto out;
	}
	for (size_t pass = 0; pass < 2; pass++) {
		const struct guard_wins *w = pass ? &g->wcur : &wnew;

		for (size_t i = 0; i < w->n; i++) {
			const char *name = w->v[i].name;
			const struct guard_win *a = guard_wins_find(&g->wcur, name);
			const struct guard_win *b = guard_wins_find(&wnew, name);
			const char *path;

			if (pass && b)
				continue;	/* seen in the first pass */
			if (a && b && !strcmp(a->body, b->body))
				continue;
			if (!b && !strncmp(name, "_taintguard_", 12))
				continue;	/* unset: the plugin's default */
			if (b && nv[b->file].tag != p) {
				/* an older definition shows again: fine if it is ours */
				if (owned_by_us(g, ts, nv[b->file].path))
					continue;
				path = a ? g->cur[a->file].path : nv[b->file].path;
			} else {
				path = b ? nv[b->file].path : g->cur[a->file].path;
			}
			if (b && nv[b->file].tag == p && a)
				finding(p, path, "an rpm macro file that sets %%%s, %s, to '%s' "
					"(line %u) where rpm now has '%s' from %s", name, role(name),
					b->body, b->line, a->body, g->cur[a->file].path);
			else if (b && nv[b->file].tag == p)
				finding(p, path, "an rpm macro file that sets %%%s, %s, to '%s' "
					"(line %u), which no macro file sets now", name, role(name),
					b->body, b->line);
			else if (b)
				finding(p, path, "replacing or removing it makes rpm take %%%s, %s, "
					"from %s: '%s' instead of '%s'", name, role(name),
					nv[b->file].path, b->body, a ? a->body : "");
			else
				finding(p, path, "replacing or removing it unsets %%%s, %s ('%s' "
					"now)", name, role(name), a->body);
		}
	}
out:
	guard_wins_free(&wnew);
	free(nv);
}

/* ------------------------------------------------------------ the transaction */

static void decide(struct tgp_state *st, struct gpkg *p)
{
	const struct tg_policy *pol = tg_ctx_policy(st->ctx);

	for (size_t i = 0; i < p->n_f; i++) {
		struct gfinding *f = &p->f[i];
		struct tg_decision d;

		tg_policy_decide_file(pol, p->name, f->path, &d);
		f->action = d.action;
		f->rule = strdup(d.rule ? d.rule : "guard");
		f->justification = d.justification ? strdup(d.justification) : NULL;
		if (f->action > p->action)
			p->action = f->action;
	}
}

static struct gpkg *pkg_new(struct tgp_guard *g, rpmte te)
{
	struct gpkg *n = realloc(g->pkgs, (g->n_pkgs + 1) * sizeof(*n));

	if (!n)
		return NULL;
	g->pkgs = n;
	n = &g->pkgs[g->n_pkgs];
	memset(n, 0, sizeof(*n));
	n->te = te;
	n->nevra = strdup(rpmteNEVRA(te) ? rpmteNEVRA(te) : "?");
	n->name = strdup(rpmteN(te) ? rpmteN(te) : "?");
	if (!n->nevra || !n->name) {
		gpkg_free(n);
		return NULL;
	}
	g->n_pkgs++;
	return n;
}

/* One added package: its file names, then (rarely) the files' content. */
static void check_package(struct tgp_state *st, struct tgp_guard *g, rpmts ts, rpmte te)
{
	const char *name = rpmteN(te);
	rpmfiles files = rpmteFiles(te);
	struct gpkg *p;
	int fc;

	if (!files)
		return;
	if (g->own_installed && strv_has(&g->own, name)) {
		rpmfilesFree(files);
		return;	/* an upgrade of taintguard itself */
	}
	if (!(p = pkg_new(g, te))) {
		rpmfilesFree(files);
		return;
	}
	p->own_name = strv_has(&g->own, name);
	fc = (int)rpmfilesFC(files);
	for (int i = 0; i < fc; i++)
		if (!(rpmfilesFFlags(files, i) & RPMFILE_GHOST))	/* never written */
			look_at(g, p, files, i);
	rpmfilesFree(files);
	if (p->n_files) {
		read_files(ts, p);
		for (size_t i = 0; i < p->n_files; i++) {
			struct gfile *f = &p->files[i];

			if (!f->text)
				continue;
			if (f->kind == GUARD_RPMRC)
				check_rpmrc(g, p, f);
			else if (f->kind == GUARD_DKMS_FRAMEWORK || f->kind == GUARD_DKMS_CONF)
				check_dkms(p, f);
		}
		check_macros(g, ts, p);
	}
	if (!p->n_f) {	/* nothing to say or refuse: psm_pre need not look for it */
		gpkg_free(p);
		g->n_pkgs--;
		return;
	}
	decide(st, p);
}

void tgp_guard_check(struct tgp_state *st, rpmts ts)
{
	struct tgp_guard *g = calloc(1, sizeof(*g));
	rpmtsi pi;
	rpmte te;

	tgp_guard_reset(st);
	if (!g || pkg_guard_places(&g->pl, st->policy_path) < 0 || own_packages(g, ts) < 0) {
		rpmlog(RPMLOG_ERR, "taintguard: out of memory; packages are not checked for files "
		       "that would switch taintguard off\n");
		if (g)
			guard_places_free(&g->pl);
		free(g);
		return;
	}
	g->root = st->rootpfx ? st->rootpfx : "";
	st->guard = g;
	pi = rpmtsiInit(ts);
	while ((te = rpmtsiNext(pi, TR_ADDED)) != NULL)
		check_package(st, g, ts, te);
	rpmtsiFree(pi);
	if (st->test)	/* psm hooks never run */
		for (size_t i = 0; i < g->n_pkgs; i++)
			if (g->pkgs[i].action != TG_ACTION_ALLOW)
				tgp_guard_report(st, &g->pkgs[i], st->mode == TGP_ENFORCE);
}

/* ------------------------------------------------------------ messages and the veto */

static void tgp_guard_report(struct tgp_state *st, struct gpkg *p, bool refuse)
{
	const char *pol = st->policy_path ? st->policy_path : TG_SYSCONFDIR "/policy.yaml";
	const char *first = NULL;

	for (size_t i = 0; i < p->n_f; i++) {
		const struct gfinding *f = &p->f[i];
		const char *what;
		int lvl;

		if (f->action == TG_ACTION_ALLOW) {
			rpmlog(RPMLOG_DEBUG, "taintguard: %s: %s: allowed [policy rule %s]\n", p->nevra,
			       f->path, f->rule ? f->rule : "?");
			continue;
		}
		if (f->action == TG_ACTION_DENY) {
			lvl = refuse ? RPMLOG_ERR : RPMLOG_WARNING;
			what = refuse ? (st->test ? "would be refused" : "refused")
				      : "would be refused (warn mode: installing anyway)";
			if (!first)
				first = f->path;
		} else {
			lvl = RPMLOG_WARNING;
			what = "marked";
		}
		tgp_say(st, lvl, refuse, "taintguard: %s: %s: %s: it could switch taintguard off: %s "
			"[policy rule %s]\n", p->nevra, f->path, what, f->why, f->rule ? f->rule : "?");
	}
	if (refuse && p->action == TG_ACTION_DENY)
		tgp_say(st, RPMLOG_ERR, true, "taintguard: to install %s anyway, add an exception "
			"(package: \"%s\", file: \"%s\", action: allow, justification: ...) to %s, "
			"or run rpm with --define '_taintguard_mode warn'\n", p->nevra, p->name,
			first ? first : "*", pol);
}

/* Refuse @p (enforce mode, deny) or warn about it, once. */
static rpmRC veto(struct tgp_state *st, struct gpkg *p)
{
	p->seen = true;
	if (p->action == TG_ACTION_DENY && st->mode == TGP_ENFORCE) {
		tgp_guard_report(st, p, true);
		tgp_say(st, RPMLOG_ERR, true, "taintguard: refusing to install %s\n", p->nevra);
		p->refused = true;
		return RPMRC_FAIL;
	}
	tgp_guard_report(st, p, false);
	return RPMRC_OK;
}

bool tgp_guard_denies(struct tgp_state *st, rpmte te)
{
	struct tgp_guard *g = st->guard;

	for (size_t i = 0; g && i < g->n_pkgs; i++)
		if (g->pkgs[i].te == te)
			return g->pkgs[i].action == TG_ACTION_DENY && st->mode == TGP_ENFORCE;
	return false;
}

void tgp_guard_report_denied(struct tgp_state *st)
{
	struct tgp_guard *g = st->guard;

	for (size_t i = 0; g && i < g->n_pkgs; i++)
		if (g->pkgs[i].action == TG_ACTION_DENY && !st->test)
			tgp_guard_report(st, &g->pkgs[i], true);
}

rpmRC tgp_guard_psm_pre(struct tgp_state *st, rpmte te)
{
	struct tgp_guard *g = st->guard;
	struct gpkg *p = NULL;

	if (!g || rpmteType(te) != TR_ADDED)
		return RPMRC_OK;
	for (size_t i = 0; i < g->n_pkgs && !p; i++)
		if (g->pkgs[i].te == te)
			p = &g->pkgs[i];
	if (p && p->refused)
		return RPMRC_FAIL;
	/* the first call precedes every scriptlet and file (docs/rpm.md) */
	if (!p || p->seen || p->action == TG_ACTION_ALLOW)
		return RPMRC_OK;
	return veto(st, p);
}

rpmRC tgp_guard_scriptlet_pre(struct tgp_state *st, const char *nevra, size_t len)
{
	struct tgp_guard *g = st->guard;

	for (size_t i = 0; g && i < g->n_pkgs; i++) {
		struct gpkg *p = &g->pkgs[i];

		if (!p->seen && p->action == TG_ACTION_DENY && st->mode == TGP_ENFORCE &&
		    strlen(p->nevra) == len && !strncmp(p->nevra, nevra, len))
			return veto(st, p);
	}
	return RPMRC_OK;
}
