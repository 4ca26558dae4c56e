/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Facts learned from the kernel's own (in-tree) modules: they were built by
 * the very kernel build, so their vermagic is VERMAGIC_STRING byte for byte,
 * their .gnu.linkonce.this_module has sizeof(struct module), and their
 * signatures name the kernel's signing key.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel_internal.h"

/* In-tree modules opened for vermagic / struct module size / signing keys. */
#define INTREE_MAX 8
/* How deep below ROOT/lib/modules/KVER/kernel the fallback walk goes. */
#define INTREE_DEPTH 6

struct cand {
	char *path;
	off_t size;
};

struct candv {
	struct cand *v;
	size_t n, cap;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return strcmp(x->path, y->path);
}

static bool candv_has(const struct candv *cv, const char *path)
{
	for (size_t i = 0; i < cv->n; i++)
		if (!strcmp(cv->v[i].path, path))
			return true;
	return false;
}

static void candv_free(struct candv *cv)
{
	for (size_t i = 0; i < cv->n; i++)
		free(cv->v[i].path);
	free(cv->v);
}

/*
 * Add the modules directly in @dir, smallest first (quick to read), ties by
 * name; then walk the subdirectories in name order while @depth allows.
 * Stops once @cv holds @max.  Errors just mean fewer candidates.
 */
static void collect_modules(const char *dir, int depth, struct candv *cv, size_t max)
{
	struct dirent **ents = NULL;
	struct candv here = { 0 };
	int n = scandir(dir, &ents, NULL, alphasort);

	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		struct stat st;
		char *p;

		if (name[0] == '.' || !tg_module_file_name(name))
			continue;
		p = strf("%s/%s", dir, name);
		if (!p || lstat(p, &st) < 0 || !S_ISREG(st.st_mode) ||
		    grow_array(&here.v, &here.cap, here.n, sizeof(*here.v)) < 0) {
			free(p);
			continue;
		}
		here.v[here.n++] = (struct cand){ .path = p, .size = st.st_size };
	}
	if (here.n)
		qsort(here.v, here.n, sizeof(*here.v), cand_cmp);
	for (size_t i = 0; i < here.n; i++) {
		if (cv->n < max && !candv_has(cv, here.v[i].path) &&
		    grow_array(&cv->v, &cv->cap, cv->n, sizeof(*cv->v)) == 0) {
			cv->v[cv->n++] = here.v[i];
			here.v[i].path = NULL;
		}
		free(here.v[i].path);
	}
	free(here.v);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		struct stat st;
		char *p;

		if (depth > 0 && cv->n < max && name[0] != '.' && !tg_module_file_name(name)) {
			p = strf("%s/%s", dir, name);
			if (p && lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
				collect_modules(p, depth - 1, cv, max);
			free(p);
		}
		free(ents[i]);
	}
	free(ents);
}

/*
 * Known small, always-built modules first (drivers/net has dummy.ko), so
 * that the choice is cheap and the same from run to run; then anything.
 */
static void intree_candidates(const char *kdir, struct candv *cv)
{
	static const char *const known[] = { "drivers/net", "fs", "lib", "crypto" };

	for (size_t i = 0; i < TG_ARRAY_SIZE(known) && cv->n < INTREE_MAX; i++) {
		char *d = strf("%s/%s", kdir, known[i]);

		if (d)
			collect_modules(d, 0, cv, INTREE_MAX);
		free(d);
	}
	if (cv->n < INTREE_MAX)
		collect_modules(kdir, INTREE_DEPTH, cv, INTREE_MAX);
}

static int strv_push_unique(struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 0;
	return strv_push(sv, s);
}

/*
 * Learn from one in-tree module.  Only modules that say "intree" count: an
 * out-of-tree build dropped into kernel/ (old DKMS DEST_MODULE_LOCATION)
 * carries its builder's vermagic and key, not the kernel's.
 */
static int learn_from_module(struct tg_kernel *k, const char *path, const struct tg_module *m,
			     struct strv *keys)
{
	const char *vm = tg_module_get(m, "vermagic");
	const struct tg_signature *sig = &m->sig;

	if (!tg_module_has(m, "intree"))
		return 0;
	if (!k->vermagic && vm) {
		k->vermagic = strdup(vm);
		k->vermagic_source = strdup(path);
		if (!k->vermagic || !k->vermagic_source)
			return -ENOMEM;
	}
	if (!k->this_module_size && m->this_module_size) {
		k->this_module_size = m->this_module_size;
		k->this_module_size_source = strdup(path);
		if (!k->this_module_size_source)
			return -ENOMEM;
	}
	if (sig->present && !sig->malformed && sig->signer && sig->key_id) {
		char *id = strf("%s/%s", sig->signer, sig->key_id);
		int r = id ? strv_push_unique(keys, id) : -ENOMEM;

		free(id);
		return r;
	}
	return 0;
}

/* Open up to INTREE_MAX modules of @kdir; 1 if one was usable, 0 if none. */
static int learn_from_dir(struct tg_kernel *k, const char *kdir, const struct tg_limits *lim)
{
	struct candv cv = { 0 };
	struct strv keys = { 0 };
	bool used = false;
	int r = 0;

	intree_candidates(kdir, &cv);
	for (size_t i = 0; i < cv.n && r == 0; i++) {
		struct tg_module *m = NULL;
		struct tg_error e = { 0 };

		if (tg_module_open_path(cv.v[i].path, lim, &m, &e) < 0)
			continue;
		used = used || tg_module_has(m, "intree");
		r = learn_from_module(k, cv.v[i].path, m, &keys);
		tg_module_free(m);
	}
	candv_free(&cv);
	if (r == 0 && keys.n) {
		k->trusted_keys_source = strdup(kdir);
		if (!k->trusted_keys_source)
			r = -ENOMEM;
	}
	if (r < 0) {
		strv_free(&keys);
		return r;
	}
	k->trusted_keys = keys.v;
	k->n_trusted_keys = keys.n;
	return used;
}

static bool same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * The in-tree directories of the release, already resolved below the root
 * (NULL: absent there): ROOT/lib/modules/KVER/kernel, else
 * ROOT/usr/lib/modules/KVER/kernel when it is not the same directory.
 */
int tg_kernel_learn_from_intree(struct tg_kernel *k, const char *d1, const char *d2,
				const struct tg_limits *lim)
{
	int r = d1 ? learn_from_dir(k, d1, lim) : 0;

	if (r == 0 && d2 && !(d1 && same_dir(d1, d2)))
		r = learn_from_dir(k, d2, lim);
	return r < 0 ? r : 0;
}
