/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Installed module files beyond the rpmdb (owners.h): file identities, the
 * module tops of a root, dpkg's database and DKMS's tree (who owns what is
 * installed; what DKMS did not install for a kernel, and why).  No librpm.
 *
 * dpkg's database is read as dpkg-query reads it (lib/dpkg/parse.c,
 * lib/dpkg/db-fsys.c): var/lib/dpkg/status, a stanza per package
 * ("Package:", "Status: WANT FLAG STATE", "Version:", "Architecture:",
 * "Multi-Arch:"), and for each package with files the list of its paths,
 * var/lib/dpkg/info/NAME.list, or NAME:ARCH.list for Multi-Arch: same.  A
 * .list names the paths as the .deb shipped them: /lib/modules/... on a
 * usrmerged system is reached as /usr/lib/modules/..., so files are compared
 * by device and inode, never by name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "taintguard.h"
#include "owners.h"
#include "strf.h"

const char *const pkg_module_tops[2] = { "/lib/modules", "/usr/lib/modules" };

/* ------------------------------------------------------------ file identities */

static size_t slot_of(const struct pkg_fileset *s, const struct stat *st, const char *release)
{
	uint64_t h = (uint64_t)st->st_ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)st->st_dev;
	size_t i;

	for (const char *c = release ? release : ""; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	for (i = (size_t)(h & (s->cap - 1));; i = (i + 1) & (s->cap - 1)) {
		const struct pkg_fileset_ent *e = &s->v[i];

		if (!e->used || (e->dev == st->st_dev && e->ino == st->st_ino &&
				 !strcmp(e->release ? e->release : "", release ? release : "")))
			return i;
	}
}

static int grow(struct pkg_fileset *s)
{
	struct pkg_fileset old = *s;
	size_t cap = s->cap ? s->cap * 2 : 64;

	s->v = calloc(cap, sizeof(*s->v));
	if (!s->v) {
		*s = old;
		return -ENOMEM;
	}
	s->cap = cap;
	for (size_t i = 0; i < old.cap; i++)
		if (old.v[i].used) {
			struct stat st = { .st_dev = old.v[i].dev, .st_ino = old.v[i].ino };

			s->v[slot_of(s, &st, old.v[i].release)] = old.v[i];
		}
	free(old.v);
	return 0;
}

int pkg_fileset_add(struct pkg_fileset *s, const struct stat *st, const char *release, size_t val)
{
	struct pkg_fileset_ent *e;

	/* at most half full: probing stays short */
	if ((s->n + 1) * 2 > s->cap && grow(s) < 0)
		return -ENOMEM;
	e = &s->v[slot_of(s, st, release)];
	if (e->used)
		return 0;
	if (release && !(e->release = strdup(release)))
		return -ENOMEM;
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->val = val;
	e->used = true;
	s->n++;
	return 1;
}

bool pkg_fileset_find(const struct pkg_fileset *s, const struct stat *st, const char *release,
		      size_t *val)
{
	const struct pkg_fileset_ent *e;

	if (!s->cap)
		return false;
	e = &s->v[slot_of(s, st, release)];
	if (e->used && val)
		*val = e->val;
	return e->used;
}

void pkg_fileset_free(struct pkg_fileset *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->v[i].release);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int pkg_root_stat(const char *root, const char *path, struct stat *st)
{
	char *host = tg_root_resolve(root, path);
	int r = host && stat(host, st) == 0 ? 0 : host ? -errno : -ENOMEM;

	free(host);
	return r;
}

bool pkg_module_path_release(const char *path, char *buf, size_t len)
{
	const char *p = !strncmp(path, "/usr/lib/modules/", 17) ? path + 17 :
			!strncmp(path, "/lib/modules/", 13) ? path + 13 : NULL;
	size_t n = p ? strcspn(p, "/") : 0;

	if (!n || p[n] != '/' || n >= len)
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}

size_t pkg_module_tops_distinct(const char *root, const char *out[2])
{
	struct stat st[2];
	size_t n = 0;

	for (size_t t = 0; t < 2; t++) {
		if (pkg_root_stat(root, pkg_module_tops[t], &st[t]) < 0 || !S_ISDIR(st[t].st_mode))
			continue;
		/* usrmerge: /lib -> usr/lib; the host's own root is not resolved by name */
		if (n == 1 && t == 1 && st[0].st_dev == st[1].st_dev && st[0].st_ino == st[1].st_ino)
			continue;
		out[n++] = pkg_module_tops[t];
	}
	return n;
}

/* ---------------------------------------------------------------- owners */

static struct pkg_owned *owned_new(struct pkg_owners *o, enum pkg_owner_kind kind, char *name,
				   char *label)
{
	struct pkg_owned *nv = realloc(o->v, (o->n + 1) * sizeof(*nv));

	if (!nv || !name || !label) {
		if (nv)
			o->v = nv;
		free(name), free(label);
		return NULL;
	}
	o->v = nv;
	nv = &o->v[o->n++];
	memset(nv, 0, sizeof(*nv));
	nv->kind = kind;
	nv->name = name;
	nv->label = label;
	return nv;
}

/* @path (as @ow names it) is @ow's when it exists in the root; the first owner of a file keeps it. */
static int own_file(struct pkg_owners *o, const char *root, size_t ow, const char *path)
{
	struct stat st;
	int r;

	if (pkg_root_stat(root, path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	r = pkg_fileset_add(&o->ids, &st, NULL, ow);
	if (r <= 0)
		return r;
	return strv_push(&o->v[ow].files, path);
}

/* ------------------------------------------------------------ dpkg */

struct dpkg_pkg {
	char *name, *version, *arch, *state;
	bool ma_same;
};

static void dpkg_pkg_clear(struct dpkg_pkg *p)
{
	free(p->name), free(p->version), free(p->arch), free(p->state);
	memset(p, 0, sizeof(*p));
}

/* A package whose files are on disk: every state but not-installed and config-files. */
static bool dpkg_has_files(const struct dpkg_pkg *p)
{
	return p->name && p->state && strcmp(p->state, "not-installed") &&
	       strcmp(p->state, "config-files");
}

typedef int (*dpkg_fn)(void *ctx, const struct dpkg_pkg *p, const char *list);

static char *field_value(const char *line, const char *name)
{
	size_t n = strlen(name);
	const char *v;

	if (strncasecmp(line, name, n) || line[n] != ':')
		return NULL;
	for (v = line + n + 1; *v == ' ' || *v == '\t'; v++)
		;
	return strndup(v, strcspn(v, "\n"));
}

/* The .list of @p: NAME:ARCH.list for Multi-Arch: same (and as dpkg names it since 1.16), else NAME.list. */
static char *dpkg_list_path(const char *info, const struct dpkg_pkg *p)
{
	char *l = p->arch ? strf("%s/%s:%s.list", info, p->name, p->arch) : NULL;
	struct stat st;

	if (l && stat(l, &st) == 0)
		return l;
	free(l);
	return strf("%s/%s.list", info, p->name);
}

/*
 * Every package of @root's dpkg database that has files: @fn with its
 * fields and the host path of its .list.  1 when there is no database.
 */
static int dpkg_each(const char *root, dpkg_fn fn, void *ctx)
{
	char *admin = tg_root_resolve(root, "/var/lib/dpkg");
	char *status = admin ? strf("%s/status", admin) : NULL;
	char *info = admin ? strf("%s/info", admin) : NULL;
	FILE *f = status ? fopen(status, "re") : NULL;
	struct dpkg_pkg p = { 0 };
	char *line = NULL;
	size_t cap = 0;
	int r = 0;
	bool eof = false;

	if (!admin || !status || !info) {
		r = -ENOMEM;
		goto out;
	}
	if (!f) {
		r = 1;
		goto out;
	}
	while (r >= 0 && !eof) {
		ssize_t len = getline(&line, &cap, f);
		char *v;

		eof = len < 0;
		if (eof || len <= 1) {	/* the end of a stanza */
			if (dpkg_has_files(&p)) {
				char *list = dpkg_list_path(info, &p);

				r = list ? fn(ctx, &p, list) : -ENOMEM;
				free(list);
			}
			dpkg_pkg_clear(&p);
			continue;
		}
		if (line[0] == ' ' || line[0] == '\t')	/* a continuation line */
			continue;
		if ((v = field_value(line, "Package"))) {
			free(p.name);
			p.name = v;
		} else if ((v = field_value(line, "Version"))) {
			free(p.version);
			p.version = v;
		} else if ((v = field_value(line, "Architecture"))) {
			free(p.arch);
			p.arch = v;
		} else if ((v = field_value(line, "Multi-Arch"))) {
			p.ma_same = !strcmp(v, "same");
			free(v);
		} else if ((v = field_value(line, "Status"))) {
			const char *s = strrchr(v, ' ');

			free(p.state);
			p.state = strdup(s ? s + 1 : v);
			free(v);
		}
	}
out:
	dpkg_pkg_clear(&p);
	free(line);
	if (f)
		fclose(f);
	free(admin), free(status), free(info);
	return r;
}

/* dpkg-query's name of a package: NAME, NAME:ARCH when several architectures may hold it. */
static char *dpkg_name(const struct dpkg_pkg *p)
{
	return p->ma_same && p->arch ? strf("%s:%s", p->name, p->arch) : strdup(p->name);
}

/* The lines of a .list, each @fn'ed; a missing list is a package without files. */
static int each_list_line(const char *list, int (*fn)(void *ctx, const char *path), void *ctx)
{
	FILE *f = fopen(list, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int r = 0;

	if (!f)
		return 0;
	while (r >= 0 && (len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (line[0] == '/')
			r = fn(ctx, line);
	}
	free(line);
	fclose(f);
	return r;
}

struct dpkg_load {
	struct pkg_owners *o;
	const char *root;
	size_t ow;
	bool made;
	const struct dpkg_pkg *p;
};

static int load_line(void *ctx, const char *path)
{
	struct dpkg_load *l = ctx;
	const char *base = strrchr(path, '/');

	if (!tg_module_file_name(base ? base + 1 : path))
		return 0;
	if (!l->made) {
		const struct dpkg_pkg *p = l->p;
		struct pkg_owned *ow = owned_new(l->o, PKG_OWNER_DPKG, dpkg_name(p),
						 strf("%s_%s_%s", p->name, p->version ? p->version : "",
						      p->arch ? p->arch : ""));

		if (!ow)
			return -ENOMEM;
		l->ow = l->o->n - 1;
		l->made = true;
	}
	return own_file(l->o, l->root, l->ow, path);
}

static int load_pkg(void *ctx, const struct dpkg_pkg *p, const char *list)
{
	struct dpkg_load *l = ctx;

	l->made = false;
	l->p = p;
	return each_list_line(list, load_line, l);
}

/* ------------------------------------------------------------ DKMS */

static bool plain_name(const char *s)
{
	return *s && *s != '.' && !strchr(s, '/');
}

static bool same_content(const char *a, const char *b)
{
	int fa = open(a, O_RDONLY | O_CLOEXEC), fb = open(b, O_RDONLY | O_CLOEXEC);
	struct stat sa, sb;
	bool same = fa >= 0 && fb >= 0 && fstat(fa, &sa) == 0 && fstat(fb, &sb) == 0 &&
		    sa.st_size == sb.st_size;
	char x[16384], y[16384];

	while (same) {
		ssize_t n = read(fa, x, sizeof(x));

		if (n <= 0) {
			same = n == 0;
			break;
		}
		same = read(fb, y, (size_t)n) == n && !memcmp(x, y, (size_t)n);
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/*
 * Where dkms puts a module for a kernel: updates/dkms/ (dkms 3 on Debian and
 * Ubuntu), else DEST_MODULE_LOCATION's usual extra/ and updates/.
 */
static const char *const dkms_dests[] = { "updates/dkms", "updates", "extra" };

/* The files of one installed NAME/VERSION for KVER/ARCH, matched to their installed copies. */
static int dkms_package(struct pkg_owners *o, const char *root, const char *tree, const char *m,
			const char *v, const char *k, const char *arch)
{
	char *mdir = strf("%s/%s/%s/%s/%s/module", tree, m, v, k, arch);
	DIR *d = mdir ? opendir(mdir) : NULL;
	struct dirent *e;
	size_t ow = 0;
	bool made = false;
	int r = mdir ? 0 : -ENOMEM;

	while (r >= 0 && d && (e = readdir(d))) {
		char *built;

		if (!plain_name(e->d_name) || !tg_module_file_name(e->d_name))
			continue;
		built = strf("%s/%s", mdir, e->d_name);
		for (size_t i = 0; built && r >= 0 && i < sizeof(dkms_dests) / sizeof(*dkms_dests); i++) {
			char *inst = strf("/lib/modules/%s/%s/%s", k, dkms_dests[i], e->d_name);
			char *host = inst ? tg_root_resolve(root, inst) : NULL;

			if (host && same_content(built, host)) {
				if (!made) {
					if (!owned_new(o, PKG_OWNER_DKMS, strf("%s/%s (dkms)", m, v),
						       strf("%s/%s (dkms)", m, v))) {
						r = -ENOMEM;
					} else {
						ow = o->n - 1;
						made = true;
					}
				}
				if (r >= 0)
					r = own_file(o, root, ow, inst);
				i = sizeof(dkms_dests);	/* found */
			}
			free(inst), free(host);
		}
		if (!built)
			r = -ENOMEM;
		free(built);
	}
	if (d)
		closedir(d);
	free(mdir);
	return r;
}

/*
 * The kernel-KVER-ARCH links of one module directory: VERSION, KVER, ARCH of each
 * (a plain name each), three strings per link into @vka.
 */
static int installed_for(const char *mdir, struct strv *vka)
{
	DIR *d = opendir(mdir);
	struct dirent *e;
	int r = 0;

	while (r == 0 && d && (e = readdir(d))) {
		char *link, target[512], *k, *arch;
		ssize_t n;

		if (strncmp(e->d_name, "kernel-", 7) || !(link = strf("%s/%s", mdir, e->d_name)))
			continue;
		n = readlink(link, target, sizeof(target) - 1);
		free(link);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (!(k = strchr(target, '/')) || !(arch = strchr(k + 1, '/')))
			continue;
		*k++ = '\0';
		*arch++ = '\0';
		if (plain_name(target) && plain_name(k) && plain_name(arch))
			r = strv_push(vka, target) < 0 || strv_push(vka, k) < 0 ||
			    strv_push(vka, arch) < 0 ? -ENOMEM : 0;
	}
	if (d)
		closedir(d);
	return r;
}

/* dkms's own record: <tree>/NAME/kernel-KVER-ARCH -> VERSION/KVER/ARCH while installed. */
static int dkms_load(struct pkg_owners *o, const char *root)
{
	char *tree = tg_root_resolve(root, "/var/lib/dkms");
	DIR *d = tree ? opendir(tree) : NULL;
	struct dirent *e;
	int r = tree ? 0 : -ENOMEM;

	while (r >= 0 && d && (e = readdir(d))) {
		struct strv vka = { 0 };
		char *mdir;

		if (!plain_name(e->d_name) || !(mdir = strf("%s/%s", tree, e->d_name)))
			continue;
		r = installed_for(mdir, &vka);
		for (size_t i = 0; r >= 0 && i < vka.n; i += 3)
			r = dkms_package(o, root, tree, e->d_name, vka.v[i], vka.v[i + 1], vka.v[i + 2]);
		strv_free(&vka);
		free(mdir);
	}
	if (d)
		closedir(d);
	free(tree);
	return r;
}

/* ------------------------------------------------- what a kernel will miss */

/*
 * The value of @key=... in a dkms.conf (a shell fragment dkms sources: one
 * level of quotes dropped, the last assignment wins); NULL when absent.
 */
static char *conf_value(const char *host, const char *key)
{
	FILE *f = fopen(host, "re");
	char *line = NULL, *val = NULL;
	size_t cap = 0, kl = strlen(key);

	while (f && getline(&line, &cap, f) > 0) {
		char *v = line + strspn(line, " \t");
		size_t n;

		if (strncmp(v, key, kl) || v[kl] != '=')
			continue;
		v += kl + 1;
		for (n = strcspn(v, "\n"); n && (v[n - 1] == ' ' || v[n - 1] == '\t'); n--)
			;
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
			v++, n -= 2;
		free(val);
		val = strndup(v, n);
	}
	free(line);
	if (f)
		fclose(f);
	return val;
}

/*
 * dkms.conf's BUILD_EXCLUSIVE_KERNEL, when it excludes @release: dkms tests
 * [[ ! $kernelver =~ $BUILD_EXCLUSIVE_KERNEL ]], a POSIX ERE search.  The
 * path of the dkms.conf read in *@conf (malloc'ed) when it excludes.
 */
static char *excluded_by(const char *root, const char *tree, const char *m, const char *v,
			 const char *release, char **conf)
{
	char *paths[2] = { strf("%s/%s/%s/source/dkms.conf", tree, m, v),
			   strf("/usr/src/%s-%s/dkms.conf", m, v) };
	char *re = NULL;

	*conf = NULL;
	for (size_t i = 0; i < 2 && !*conf; i++) {
		char *host = paths[i] ? tg_root_resolve(root, paths[i]) : NULL;

		if (host && access(host, R_OK) == 0) {
			re = conf_value(host, "BUILD_EXCLUSIVE_KERNEL");
			*conf = paths[i];
			paths[i] = NULL;
		}
		free(host);
	}
	free(paths[0]), free(paths[1]);
	if (re && *re) {
		regex_t rx;
		bool excl = false;

		if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) == 0) {
			excl = regexec(&rx, release, 0, NULL, 0) != 0;
			regfree(&rx);
		}
		if (excl)
			return re;
	}
	free(re);
	free(*conf);
	*conf = NULL;
	return NULL;
}

/*
 * Did dkms's last build of the tree's build/ fail for @release?  A failed
 * build leaves build/make.log, whose header line says "... make.log for
 * NAME-VERSION for kernel KVER (ARCH)" (dkms 3.0; 3.1 writes NAME/VERSION):
 * the last such line names the kernel of the last attempt.
 */
static bool failed_for(const char *host_log, const char *release)
{
	FILE *f = fopen(host_log, "re");
	char *line = NULL;
	size_t cap = 0, rl = strlen(release);
	bool hit = false;

	while (f && getline(&line, &cap, f) > 0) {
		const char *k = strstr(line, " for kernel ");

		if (!strstr(line, "make.log for ") || !k)
			continue;
		k += 12;
		hit = !strncmp(k, release, rl) && k[rl] == ' ';
	}
	free(line);
	if (f)
		fclose(f);
	return hit;
}

/* Why NAME/VERSION @m/@v is not installed for @release, as every front end says it. */
static char *missing_why(const char *root, const char *tree, const char *m, const char *v,
			 const char *release)
{
	char *conf, *re = excluded_by(root, tree, m, v, release, &conf);
	char *kdir, *log, *host, *why;
	struct stat st;

	if (re) {
		why = strf("not built for this kernel: BUILD_EXCLUSIVE_KERNEL=\"%s\" in %s excludes it",
			   re, conf);
		free(re), free(conf);
		return why;
	}
	kdir = strf("%s/%s/%s/%s", tree, m, v, release);
	if (kdir && pkg_root_stat(root, kdir, &st) == 0 && S_ISDIR(st.st_mode)) {
		free(kdir);
		return strf("built for this kernel, not installed (dkms install %s/%s -k %s)", m, v,
			    release);
	}
	free(kdir);
	log = strf("%s/%s/%s/build/make.log", tree, m, v);
	host = log ? tg_root_resolve(root, log) : NULL;
	if (host && failed_for(host, release))
		why = strf("not built for this kernel: build failed, see %s", log);
	else
		why = strdup("not built for this kernel yet");
	free(log), free(host);
	return why;
}

void pkg_dkms_missing_free(struct pkg_dkms_missing *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name), free(v[i].module), free(v[i].path), free(v[i].why);
	free(v);
}

struct missing {
	const char *root, *tree, *install_tree, *release;
	struct pkg_dkms_missing *v;
	size_t n;
};

/* The modules built for kernel @k/@arch of @m/@v, each missing for m->release. */
static int missing_add(struct missing *ms, const char *m, const char *v, const char *k,
		       const char *arch)
{
	char *mdir = strf("%s/%s/%s/%s/%s/module", ms->tree, m, v, k, arch);
	char *host = mdir ? tg_root_resolve(ms->root, mdir) : NULL;
	char *why = host ? missing_why(ms->root, ms->tree, m, v, ms->release) : NULL;
	DIR *d = why ? opendir(host) : NULL;
	struct dirent *e;
	int r = why ? 0 : -ENOMEM;

	while (r == 0 && d && (e = readdir(d))) {
		struct pkg_dkms_missing *nv, *x;

		if (!plain_name(e->d_name) || !tg_module_file_name(e->d_name))
			continue;
		nv = realloc(ms->v, (ms->n + 1) * sizeof(*nv));
		if (!nv) {
			r = -ENOMEM;
			break;
		}
		ms->v = nv;
		x = &nv[ms->n++];
		x->name = strf("%s/%s (dkms)", m, v);
		x->module = strndup(e->d_name, strstr(e->d_name, ".ko") - e->d_name);
		x->path = strf("%s/%s/updates/dkms/%s", ms->install_tree, ms->release, e->d_name);
		x->why = strdup(why);
		if (!x->name || !x->module || !x->path || !x->why)
			r = -ENOMEM;
	}
	if (d)
		closedir(d);
	free(mdir), free(host), free(why);
	return r;
}

int pkg_dkms_missing(const char *root, const char *tree, const char *install_tree,
		     const char *release, struct pkg_dkms_missing **out, size_t *n)
{
	struct missing ms = { .root = root, .tree = tree ? tree : "/var/lib/dkms",
			      .install_tree = install_tree ? install_tree : "/lib/modules",
			      .release = release };
	char *host = tg_root_resolve(root, ms.tree);
	DIR *d = host ? opendir(host) : NULL;
	struct dirent *e;
	int r = host ? 0 : -ENOMEM;

	*out = NULL;
	*n = 0;
	while (r == 0 && d && (e = readdir(d))) {
		struct strv vka = { 0 }, done = { 0 };
		char *mdir;
		bool here = false;

		if (!plain_name(e->d_name) || !(mdir = strf("%s/%s", host, e->d_name)))
			continue;
		r = installed_for(mdir, &vka);
		for (size_t i = 1; i < vka.n; i += 3)
			here |= !strcmp(vka.v[i], release);
		/* each version installed elsewhere once, from the first kernel it is installed for */
		for (size_t i = 0; r == 0 && !here && i < vka.n; i += 3) {
			if (strv_has(&done, vka.v[i]))
				continue;
			r = strv_push(&done, vka.v[i]);
			if (r == 0)
				r = missing_add(&ms, e->d_name, vka.v[i], vka.v[i + 1], vka.v[i + 2]);
		}
		strv_free(&vka), strv_free(&done);
		free(mdir);
	}
	if (d)
		closedir(d);
	free(host);
	if (r < 0) {
		pkg_dkms_missing_free(ms.v, ms.n);
		return r;
	}
	*out = ms.v;
	*n = ms.n;
	return 0;
}

int pkg_owners_load(const char *root, struct pkg_owners *o)
{
	struct dpkg_load l = { .o = o, .root = root };
	int r;

	memset(o, 0, sizeof(*o));
	/* DKMS first: its copies are its own even where a package also lists the path */
	r = dkms_load(o, root);
	if (r >= 0)
		r = dpkg_each(root, load_pkg, &l);
	if (r == 0)
		o->dpkg = true;
	if (r < 0) {
		pkg_owners_free(o);
		return r;
	}
	return 0;
}

const struct pkg_owned *pkg_owners_find(const struct pkg_owners *o, const char *root,
					const char *path)
{
	struct stat st;
	size_t i;

	if (!o->n || pkg_root_stat(root, path, &st) < 0 || !pkg_fileset_find(&o->ids, &st, NULL, &i))
		return NULL;
	return &o->v[i];
}

void pkg_owners_free(struct pkg_owners *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->v[i].name);
		free(o->v[i].label);
		strv_free(&o->v[i].files);
	}
	free(o->v);
	pkg_fileset_free(&o->ids);
	memset(o, 0, sizeof(*o));
}

/* ------------------------------------------------------ dpkg-query -S */

struct dpkg_query {
	const char *root;
	const char *base;	/* only lines of this file name are looked at */
	struct stat want;
	bool hit;
	struct strv names;
};

static int query_line(void *ctx, const char *path)
{
	struct dpkg_query *q = ctx;
	const char *b = strrchr(path, '/');
	struct stat st;

	if (!q->hit && b && !strcmp(b, q->base) && pkg_root_stat(q->root, path, &st) == 0 && st.st_dev == q->want.st_dev &&
	    st.st_ino == q->want.st_ino)
		q->hit = true;
	return 0;
}

static int query_pkg(void *ctx, const struct dpkg_pkg *p, const char *list)
{
	struct dpkg_query *q = ctx;
	char *name;
	int r;

	q->hit = false;
	each_list_line(list, query_line, q);
	if (!q->hit)
		return 0;
	if (!(name = dpkg_name(p)))
		return -ENOMEM;
	r = strv_has(&q->names, name) ? 0 : strv_push(&q->names, name);
	free(name);
	return r;
}

char *pkg_dpkg_owner(const char *root, const char *path)
{
	struct dpkg_query q = { .root = root, .base = strrchr(path, '/') };
	char *res = NULL;
	int r;

	if (!q.base)
		return NULL;

	if (pkg_root_stat(root, path, &q.want) < 0)
		memset(&q.want, 0xff, sizeof(q.want));	/* a file that is gone matches nothing */
	r = dpkg_each(root, query_pkg, &q);
	if (r == 0) {
		res = strdup("");
		for (size_t i = 0; res && i < q.names.n; i++) {
			char *n = *res ? strf("%s, %s", res, q.names.v[i]) : strdup(q.names.v[i]);

			free(res);
			res = n;
		}
	}
	strv_free(&q.names);
	return res;
}
