/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel files a set of packages carries (kernel-devel's Module.symvers,
 * kernel-core's symvers.gz and config, /boot/config-KVER ...) and the
 * kernels completed from them.  Two rules hold for every front end:
 *
 *  - a package that ships out-of-tree modules never supplies a kernel file:
 *    with a forged Module.symvers it could vouch for its own modules;
 *  - the best file of a release is chosen by the library's search order
 *    (rank), then NEVRA, path and where the package was found, so the
 *    choice never depends on the order packages were read in.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg.h"

struct entry {
	struct pkg_kfile f;
	char *where;		/* last sort key */
};

struct pkg_kernelset {
	pthread_mutex_t mu;
	struct entry *v;
	size_t n, cap;
	bool sorted;
	const struct pkg_kfile **view;	/* sorted pointers handed out */
	pkg_warn_fn warn;
	void *warn_ctx;
};

struct pkg_kernelset *pkg_kernelset_new(pkg_warn_fn warn, void *warn_ctx)
{
	struct pkg_kernelset *ks = calloc(1, sizeof(*ks));

	if (!ks)
		return NULL;
	pthread_mutex_init(&ks->mu, NULL);
	ks->warn = warn;
	ks->warn_ctx = warn_ctx;
	return ks;
}

void pkg_kernelset_free(struct pkg_kernelset *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->n; i++) {
		free(ks->v[i].f.release);
		free(ks->v[i].f.path);
		free(ks->v[i].f.label);
		free(ks->v[i].f.data);
		free(ks->v[i].where);
	}
	free(ks->v);
	free(ks->view);
	pthread_mutex_destroy(&ks->mu);
	free(ks);
}

static void warnf(const struct pkg_kernelset *ks, const char *msg)
{
	if (ks->warn && msg)
		ks->warn(ks->warn_ctx, msg);
}

/* Called with ks->mu held. */
static int add_locked(struct pkg_kernelset *ks, const char *path, const struct pkg_class *c,
		      const char *nevra, const char *where, void *owner, void **data, size_t len)
{
	struct entry *e;

	for (size_t i = 0; i < ks->n; i++) {
		e = &ks->v[i];
		if (e->f.owner != owner || strcmp(e->f.path, path))
			continue;
		if (!e->f.data && *data) {	/* known from the file list, now read */
			e->f.data = *data;
			e->f.len = len;
			*data = NULL;
		}
		/* repository metadata named the file before the header named the package */
		if (nevra && (e->f.nevra_len != strlen(nevra) ||
			      strncmp(e->f.label, nevra, e->f.nevra_len))) {
			char *l = strf("%s:%s", nevra, path);

			if (!l)
				return -ENOMEM;
			free(e->f.label);
			e->f.label = l;
			e->f.nevra_len = strlen(nevra);
			ks->sorted = false;
		}
		return 0;
	}
	if (ks->n == ks->cap) {
		size_t nc = ks->cap ? ks->cap * 2 : 8;
		struct entry *nv = realloc(ks->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		ks->v = nv;
		ks->cap = nc;
	}
	e = &ks->v[ks->n];
	memset(e, 0, sizeof(*e));
	e->f.kind = c->kind;
	e->f.rank = c->rank;
	e->f.owner = owner;
	e->f.release = strdup(c->release);
	e->f.path = strdup(path);
	e->f.label = strf("%s:%s", nevra ? nevra : "?", path);
	e->where = strdup(where ? where : "");
	if (!e->f.release || !e->f.path || !e->f.label || !e->where) {
		free(e->f.release), free(e->f.path), free(e->f.label), free(e->where);
		return -ENOMEM;
	}
	/* the label starts with the NEVRA: sort on it without another copy */
	e->f.nevra_len = nevra ? strlen(nevra) : 1;
	e->f.data = *data;
	e->f.len = len;
	*data = NULL;
	ks->n++;
	ks->sorted = false;
	return 0;
}

int pkg_kernelset_add(struct pkg_kernelset *ks, const char *path, const struct pkg_class *c,
		      const char *nevra, const char *where, void *owner, bool oot, void *data,
		      size_t len)
{
	int r;

	if (!ks) {
		free(data);
		return -ENOMEM;
	}
	if (c->kind != PKG_SYMVERS && c->kind != PKG_CONFIG && c->kind != PKG_IMAGE &&
	    c->kind != PKG_SYSMAP) {
		free(data);
		return -EINVAL;
	}
	if (oot) {
		free(data);
		return -EPERM;
	}
	pthread_mutex_lock(&ks->mu);
	r = add_locked(ks, path, c, nevra, where, owner, &data, len);
	pthread_mutex_unlock(&ks->mu);
	free(data);	/* a second copy of a file already read */
	return r;
}

static int cmp_entry(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	size_t la = a->f.nevra_len, lb = b->f.nevra_len;
	int c = strcmp(a->f.release, b->f.release);

	if (c)
		return c;
	if (a->f.rank != b->f.rank)
		return a->f.rank < b->f.rank ? -1 : 1;
	if ((c = strncmp(a->f.label, b->f.label, la < lb ? la : lb)) || la != lb)
		return c ? c : la < lb ? -1 : 1;
	if ((c = strcmp(a->f.path, b->f.path)))
		return c;
	return strcmp(a->where, b->where);
}

/* Called with ks->mu held. */
static int sort_locked(struct pkg_kernelset *ks)
{
	const struct pkg_kfile **view;

	if (ks->sorted)
		return 0;
	if (ks->n)
		qsort(ks->v, ks->n, sizeof(*ks->v), cmp_entry);
	view = realloc(ks->view, (ks->n ? ks->n : 1) * sizeof(*view));
	if (!view)
		return -ENOMEM;
	for (size_t i = 0; i < ks->n; i++)
		view[i] = &ks->v[i].f;
	ks->view = view;
	ks->sorted = true;
	return 0;
}

size_t pkg_kernelset_files(struct pkg_kernelset *ks, const struct pkg_kfile *const **out)
{
	size_t n;

	*out = NULL;
	if (!ks)
		return 0;
	pthread_mutex_lock(&ks->mu);
	n = sort_locked(ks) == 0 ? ks->n : 0;
	*out = ks->view;
	pthread_mutex_unlock(&ks->mu);
	return n;
}

bool pkg_kernelset_has(struct pkg_kernelset *ks, const char *release)
{
	bool has = false;

	if (!ks)
		return false;
	pthread_mutex_lock(&ks->mu);
	for (size_t i = 0; i < ks->n && !has; i++)
		has = !strcmp(ks->v[i].f.release, release);
	pthread_mutex_unlock(&ks->mu);
	return has;
}

const struct pkg_kfile *pkg_kernelset_best(struct pkg_kernelset *ks, const char *release,
					   enum pkg_kind kind)
{
	const struct pkg_kfile *best = NULL;

	if (!ks)
		return NULL;
	pthread_mutex_lock(&ks->mu);
	if (sort_locked(ks) == 0)
		for (size_t i = 0; i < ks->n && !best; i++) {
			const struct pkg_kfile *f = &ks->v[i].f;

			if (f->kind == kind && f->data && !strcmp(f->release, release))
				best = f;
		}
	pthread_mutex_unlock(&ks->mu);
	return best;
}

/* The set's export table of @release, first that parses; NULL if none. */
static struct tg_symvers *set_symvers(struct pkg_kernelset *ks, const char *release,
				      const struct tg_limits *lim, const char **label)
{
	const struct pkg_kfile *const *v;
	size_t n = pkg_kernelset_files(ks, &v);

	for (size_t i = 0; i < n; i++) {
		struct tg_symvers *sv = NULL;
		struct tg_error err = { 0 };

		if (v[i]->kind != PKG_SYMVERS || !v[i]->data || strcmp(v[i]->release, release))
			continue;
		if (tg_symvers_load_mem(v[i]->data, v[i]->len, v[i]->label, lim, &sv, &err) == 0) {
			*label = v[i]->label;
			return sv;
		}
		warnf(ks, err.msg);
	}
	return NULL;
}

/* Give @k the export table @sv (taken) labelled @label. */
static int attach_symvers(struct tg_kernel *k, struct tg_symvers *sv, const char *label)
{
	char *l = strdup(label);

	if (!l) {
		tg_symvers_free(sv);
		return -ENOMEM;
	}
	tg_symvers_free(k->symvers);
	free(k->symvers_path);
	k->symvers = sv;
	k->symvers_path = l;
	return 0;
}

static void use_config(struct tg_kernel_opts *o, const struct pkg_kfile *cfg)
{
	o->config_data = cfg->data;
	o->config_len = cfg->len;
	o->config_label = cfg->label;
}

/* A kernel file of the set as a path the library can open: a sealed memfd's. */
static int memfd_of(const struct pkg_kfile *f, char *path, size_t len)
{
	int fd = memfd_create("taintguard-kernel-file", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t off = 0;

	if (fd < 0)
		return -errno;
	while (off < f->len) {
		ssize_t w = write(fd, (const char *)f->data + off, f->len - off);

		if (w <= 0) {
			close(fd);
			return w < 0 ? -errno : -EIO;
		}
		off += (size_t)w;
	}
	(void)fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/*
 * A kernel being installed: its image (whose built-in keys verify module
 * signatures) is in the set, not yet in the root.  The library opens the
 * image when the kernel is gathered and keeps that descriptor, so the memfd
 * is closed again at once; the kernel names the package's file instead.
 */
static int with_set_image(struct pkg_kernelset *ks, struct tg_kernel_opts *o,
			  struct tg_kernel **out, struct tg_error *err)
{
	const struct pkg_kfile *img = pkg_kernelset_best(ks, o->release, PKG_IMAGE);
	const struct pkg_kfile *map = pkg_kernelset_best(ks, o->release, PKG_SYSMAP);
	char ipath[64], mpath[64];
	struct tg_kernel *k = NULL;
	int ifd, mfd = -1, r;
	char *label;

	if (!img || (*out)->image_path || o->image_path)
		return 0;
	if ((ifd = memfd_of(img, ipath, sizeof(ipath))) < 0)
		return 0;	/* the keys stay unknown: signed modules "not verified" */
	if (map)
		mfd = memfd_of(map, mpath, sizeof(mpath));
	o->image_path = ipath;
	o->sysmap_path = mfd >= 0 ? mpath : NULL;
	r = tg_kernel_load(o, &k, err);
	o->image_path = o->sysmap_path = NULL;
	close(ifd);
	if (mfd >= 0)
		close(mfd);
	if (r < 0)
		return 0;
	label = strdup(img->label);
	if (label) {
		free(k->image_path);
		k->image_path = label;
	}
	tg_kernel_free(*out);
	*out = k;
	return 1;
}

int pkg_kernelset_kernel(struct pkg_kernelset *ks, const struct tg_kernel_opts *base,
			 const char *release, enum pkg_kernel_mode mode, struct tg_kernel **out,
			 struct tg_error *err)
{
	struct tg_kernel_opts o = *base;
	const struct pkg_kfile *cfg = release ? pkg_kernelset_best(ks, release, PKG_CONFIG) : NULL;
	struct tg_symvers *sv;
	const char *label = NULL;
	int r;

	*out = NULL;
	o.release = release;
	/* the set's .config: first when it describes the target, else only when the root has none */
	if (cfg && mode == PKG_SET_FIRST && !o.config_path)
		use_config(&o, cfg);
	r = tg_kernel_load(&o, out, err);
	if (r < 0)
		return r;
	if (cfg && mode == PKG_ROOT_FIRST && !(*out)->config_path && !o.config_path) {
		tg_kernel_free(*out);
		use_config(&o, cfg);
		r = tg_kernel_load(&o, out, err);
		if (r < 0)
			return r;
	}
	if (release)
		with_set_image(ks, &o, out, err);
	if (!release || (mode == PKG_ROOT_FIRST && (*out)->symvers) || o.symvers_path)
		return 0;
	sv = set_symvers(ks, release, o.limits, &label);
	if (!sv)
		return 0;
	if (attach_symvers(*out, sv, label) < 0) {
		tg_kernel_free(*out);
		*out = NULL;
		if (err) {
			err->code = -ENOMEM;
			snprintf(err->msg, sizeof(err->msg), "kernel %s: out of memory", release);
		}
		return -ENOMEM;
	}
	return 1;
}
