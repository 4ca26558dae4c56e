/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Module file names: which files are kernel modules by name, and the module
 * name a file name suggests.  Every front end asks these questions; they are
 * answered here once.
 */
#include <string.h>

#include "internal.h"

/* What kmod and the kernel's module tree use: plain and the compressions kmod knows. */
static const char *const suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };

bool tg_module_file_name(const char *path)
{
	const char *base;
	size_t n;

	if (!path)
		return false;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	n = strlen(base);
	for (size_t i = 0; i < TG_ARRAY_SIZE(suffixes); i++) {
		size_t l = strlen(suffixes[i]);

		if (n > l && !strcmp(base + n - l, suffixes[i]))
			return true;
	}
	return false;
}

/* "/x/lve-foo.ko.xz" -> "lve_foo", as kmod derives a module name from a file name. */
char *tg_module_name_from_file(const char *path)
{
	const char *base, *ko;
	char *s;

	if (!path)
		return NULL;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	ko = strstr(base, ".ko");
	/* accept ".ko" only as the last suffix or before a compression suffix */
	while (ko && ko[3] != '\0' && ko[3] != '.')
		ko = strstr(ko + 1, ".ko");
	if (!ko || ko == base)
		return NULL;
	s = strndup(base, (size_t)(ko - base));
	for (char *p = s; p && *p; p++)
		if (*p == '-')
			*p = '_';
	return s;
}
