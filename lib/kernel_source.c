/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Read the loader's policy out of a kernel source tree, so the policy's
 * mirror of it can be checked (taintguard policy sync):
 *
 *  - forced-taint names from kernel/module/main.c (kernel/module.c before
 *    5.19), in both historical layouts: the chain of
 *    `if (strcmp(mod->name, "lve") == 0) add_taint_module(...)` and the
 *    newer `module_license_offenders[]` array; add_taint() (kernel only, as
 *    for ndiswrapper) vs add_taint_module() (the module too) gives the scope;
 *  - GPL-compatible license strings from include/linux/license.h
 *    (`strcmp(license, "GPL") == 0 || ...`);
 *  - the version from the top Makefile.
 *
 * A plain text scan, not a C parser: the code in question has kept this
 * shape since 2.6; anything unexpected is reported as "not found".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define SRC_MAX (8u << 20)

static int read_src(const char *dir, const char *rel, char **buf, struct tg_error *err)
{
	char *path = strf("%s/%s", dir, rel);
	size_t len;
	int r;

	if (!path)
		return -ENOMEM;
	r = tg_read_path(path, SRC_MAX, (void **)buf, &len, err);
	free(path);
	return r;
}

static unsigned makefile_version(const char *dir)
{
	char *mk = NULL;
	unsigned v[3] = { 0, 0, 0 };
	static const char *const keys[3] = { "\nVERSION = ", "\nPATCHLEVEL = ", "\nSUBLEVEL = " };

	if (read_src(dir, "Makefile", &mk, NULL) < 0)
		return 0;
	for (int i = 0; i < 3; i++) {
		char *p = strstr(mk, keys[i]);

		if (p)
			v[i] = (unsigned)strtoul(p + strlen(keys[i]), NULL, 10);
	}
	free(mk);
	return v[0] ? TG_KVER(v[0], v[1], v[2]) : 0;
}

/* The comment text right before @pos ("/ * lve claims ... * /"), or NULL. */
static char *comment_before(const char *start, const char *pos)
{
	const char *end, *open;

	while (pos > start && (pos[-1] == ' ' || pos[-1] == '\t' || pos[-1] == '\n'))
		pos--;
	if (pos - start < 4 || pos[-1] != '/' || pos[-2] != '*')
		return NULL;
	end = pos - 2;
	for (open = end; open > start + 1 && !(open[-2] == '/' && open[-1] == '*'); open--)
		;
	if (open <= start + 1)
		return NULL;
	while (open < end && (*open == ' ' || *open == '\n' || *open == '\t' || *open == '*'))
		open++;
	while (end > open && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\t'))
		end--;
	return strndup(open, (size_t)(end - open));
}

static int add_name(struct tg_kernel_source *ks, const char *name, size_t len, bool module_scope,
		    char *reason)
{
	struct tg_kernel_source_taint *t;

	for (size_t i = 0; i < ks->n_forced; i++)
		if (strlen(ks->forced[i].name) == len && !strncmp(ks->forced[i].name, name, len)) {
			free(reason);
			return 0;
		}
	t = realloc(ks->forced, (ks->n_forced + 1) * sizeof(*t));
	if (!t) {
		free(reason);
		return -ENOMEM;
	}
	ks->forced = t;
	t = &ks->forced[ks->n_forced];
	t->name = strndup(name, len);
	t->module_scope = module_scope;
	t->reason = reason;
	if (!t->name)
		return -ENOMEM;
	ks->n_forced++;
	return 0;
}

/*
 * if (strcmp(mod->name, "X") == 0) add_taint[_module](...); newer trees
 * spell it strcmp(info->mod->name, "ndiswrapper").
 */
static int scan_strcmp_chain(struct tg_kernel_source *ks, const char *src)
{
	static const char pat[] = "mod->name, \"";
	int r = 0;

	for (const char *p = strstr(src, pat); p && r == 0; p = strstr(p + 1, pat)) {
		const char *name = p + sizeof(pat) - 1, *q = strchr(name, '"');
		const char *stmt = p, *am, *at, *cmp;

		if (!q)
			break;
		while (stmt > src && stmt[-1] != '\n')
			stmt--;
		cmp = strstr(stmt, "strcmp(");
		if (!cmp || cmp > p)
			continue;
		am = strstr(q, "add_taint_module(");
		at = strstr(q, "add_taint(");
		if (!am && !at)
			continue;
		r = add_name(ks, name, (size_t)(q - name), am && (!at || am < at),
			     comment_before(src, stmt));
	}
	return r;
}

/* static const char *const module_license_offenders[] = { "driverloader", "lve", }; */
static int scan_offenders(struct tg_kernel_source *ks, const char *src)
{
	const char *p = strstr(src, "module_license_offenders[]"), *end;
	int r = 0;

	if (!p || !(p = strchr(p, '{')) || !(end = strstr(p, "};")))
		return 0;
	for (const char *s = strchr(p, '"'); s && s < end && r == 0; s = strchr(s + 1, '"')) {
		const char *q = strchr(s + 1, '"'), *line = s;

		if (!q || q > end)
			break;
		while (line > p && line[-1] != '\n')
			line--;
		r = add_name(ks, s + 1, (size_t)(q - s - 1), true, comment_before(p + 1, line));
		s = q;
	}
	return r;
}

static int scan_licenses(struct tg_kernel_source *ks, const char *src)
{
	static const char pat[] = "strcmp(license, \"";

	for (const char *p = strstr(src, pat); p; p = strstr(p + 1, pat)) {
		const char *s = p + sizeof(pat) - 1, *q = strchr(s, '"');

		if (!q)
			break;
		char **nv = realloc(ks->licenses, (ks->n_licenses + 1) * sizeof(char *));

		if (!nv)
			return -ENOMEM;
		ks->licenses = nv;
		if (!(nv[ks->n_licenses] = strndup(s, (size_t)(q - s))))
			return -ENOMEM;
		ks->n_licenses++;
	}
	return 0;
}

void tg_kernel_source_free(struct tg_kernel_source *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->n_forced; i++) {
		free(ks->forced[i].name);
		free(ks->forced[i].reason);
	}
	free(ks->forced);
	strv_free_array(ks->licenses, ks->n_licenses);
	free(ks->loader_file);
	free(ks);
}

int tg_kernel_source_read(const char *dir, struct tg_kernel_source **out, struct tg_error *err)
{
	static const char *const loaders[] = { "kernel/module/main.c", "kernel/module.c" };
	struct tg_kernel_source *ks = calloc(1, sizeof(*ks));
	char *src = NULL, *lic = NULL;
	int r = -ENOENT;

	*out = NULL;
	if (!ks)
		return tg_fail(err, -ENOMEM, "%s: out of memory", dir);
	for (size_t i = 0; i < TG_ARRAY_SIZE(loaders) && r < 0; i++) {
		r = read_src(dir, loaders[i], &src, NULL);
		if (r == 0)
			ks->loader_file = strdup(loaders[i]);
	}
	if (r < 0) {
		r = tg_fail(err, -ENOENT, "%s: no kernel/module/main.c or kernel/module.c: "
			    "not a kernel source tree", dir);
		goto fail;
	}
	r = read_src(dir, "include/linux/license.h", &lic, err);
	if (r < 0)
		goto fail;
	ks->version = makefile_version(dir);
	if ((r = scan_strcmp_chain(ks, src)) < 0 || (r = scan_offenders(ks, src)) < 0 ||
	    (r = scan_licenses(ks, lic)) < 0) {
		r = tg_fail(err, r, "%s: out of memory", dir);
		goto fail;
	}
	if (!ks->n_licenses) {
		r = tg_fail(err, -EBADMSG, "%s/include/linux/license.h: no strcmp(license, \"...\") "
			    "found: layout not understood", dir);
		goto fail;
	}
	free(src);
	free(lic);
	*out = ks;
	return 0;
fail:
	free(src);
	free(lic);
	tg_kernel_source_free(ks);
	return r;
}
