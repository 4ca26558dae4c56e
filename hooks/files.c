/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Module files in a directory. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hook.h"
#include "owners.h"

bool hk_same_module_file(const char *a, const char *b)
{
	char *na = tg_module_name_from_file(a), *nb = tg_module_name_from_file(b);
	bool same = na && nb && !strcmp(na, nb);

	free(na);
	free(nb);
	return same;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(struct strv *out, const char *dir, bool recursive, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while (r == 0 && (e = readdir(d))) {
		char p[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		if (hk_bfmt(p, sizeof(p), "%s/%s", dir, e->d_name) < 0)
			continue;
		if (lstat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (recursive && depth < 16)
				r = walk(out, p, recursive, depth + 1);
		} else if (S_ISREG(st.st_mode) && tg_module_file_name(e->d_name)) {
			r = strv_push(out, p);
		}
	}
	closedir(d);
	return r;
}

void hk_installed_context(const char *dir, const struct strv *files, struct strv *ctx)
{
	struct strv inst = { 0 };

	hk_collect_modules(&inst, dir, true);
	for (size_t i = 0; i < inst.n; i++) {
		bool same = false;

		for (size_t t = 0; t < files->n && !same; t++)
			same = hk_same_module_file(inst.v[i], files->v[t]);
		if (!same)
			strv_push(ctx, inst.v[i]);
	}
	strv_free(&inst);
}

/*
 * Each file once, by device and inode, the first path in name order kept: a
 * hard link (or a bind mount) is one module to the loader, judged once.
 */
static int once(struct strv *out, size_t first)
{
	struct pkg_fileset seen = { 0 };
	size_t w = first;
	int r = 0;

	for (size_t i = 0; i < out->n; i++) {
		struct stat st;
		int added = 1;

		if (r == 0 && stat(out->v[i], &st) == 0)
			added = pkg_fileset_add(&seen, &st, NULL, 0);
		if (added < 0)
			r = added;
		if (i < first)
			continue;
		if (added == 0) {
			free(out->v[i]);
			continue;
		}
		out->v[w++] = out->v[i];
	}
	out->n = w;
	pkg_fileset_free(&seen);
	return r;
}

int hk_collect_modules(struct strv *out, const char *dir, bool recursive)
{
	size_t first = out->n;
	int r = walk(out, dir, recursive, 0);

	if (r == 0 && out->n > first) {
		qsort(out->v + first, out->n - first, sizeof(char *), cmp_str);
		r = once(out, first);
	}
	return r;
}
