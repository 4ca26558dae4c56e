/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a package's header says each file is, as rpmbuild recorded it with
 * libmagic: a v4 package its class (RPMTAG_FILECLASS into RPMTAG_CLASSDICT,
 * "ELF 64-bit LSB relocatable, x86-64, ..."), a v6 package (rpm >= 6.0) its
 * MIME type (RPMTAG_FILEMIMEINDEX into RPMTAG_MIMEDICT, "application/x-object")
 * and no class.  Read from the header's tags by number, so that every librpm
 * we build against (4.16 has no MIME API) reads both kinds of package.  Only
 * what makes a module hide is asked of it (classify.c).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpm/header.h>
#include <rpm/rpmtag.h>
#include <rpm/rpmtd.h>

#include "pkg.h"

/* rpm >= 6.0's tags (rpmtag.h), by number for older headers */
#define TAG_FILEMIMEINDEX 5115
#define TAG_MIMEDICT 5116

struct pkg_ftypes {
	uint32_t *index;	/* per file: an entry of dict */
	char **dict;
	uint32_t n_files, n_dict;
};

/* A tag's values copied (count in *n): uint32 for an index, strings for a dictionary. */
static void *get_array(Header h, rpmTagVal tag, rpmTagType want, uint32_t *n)
{
	struct rpmtd_s td;
	void *out = NULL;

	*n = 0;
	if (!headerGet(h, tag, &td, HEADERGET_MINMEM))
		return NULL;
	if (rpmtdType(&td) == want && td.count > 0) {
		if (want == RPM_INT32_TYPE && (out = calloc(td.count, sizeof(uint32_t)))) {
			for (uint32_t i = 0; i < td.count; i++)
				((uint32_t *)out)[i] = ((const uint32_t *)td.data)[i];
		} else if (want == RPM_STRING_ARRAY_TYPE && (out = calloc(td.count, sizeof(char *)))) {
			for (uint32_t i = 0; i < td.count; i++)
				((char **)out)[i] = (char *)((const char **)td.data)[i];
		}
		if (out)
			*n = td.count;
	}
	rpmtdFreeData(&td);
	return out;
}

/* The strings of @dict point into the header's memory: copy them before @h goes. */
static int own_strings(struct pkg_ftypes *t)
{
	for (uint32_t i = 0; i < t->n_dict; i++) {
		if (!(t->dict[i] = strdup(t->dict[i] ? t->dict[i] : ""))) {
			while (++i < t->n_dict)
				t->dict[i] = NULL;	/* not ours to free */
			return -1;
		}
	}
	return 0;
}

/* Drop what get_array() gave (the strings are still the header's). */
static void reset(struct pkg_ftypes *t)
{
	free(t->dict);
	free(t->index);
	t->dict = NULL;
	t->index = NULL;
	t->n_files = t->n_dict = 0;
}

/* Says more than "directory" of some file (a v6 header may carry only those). */
static bool informative(const struct pkg_ftypes *t)
{
	for (uint32_t i = 0; i < t->n_dict; i++)
		if (t->dict[i] && *t->dict[i] && strcmp(t->dict[i], "directory") != 0)
			return true;
	return false;
}

struct pkg_ftypes *pkg_ftypes_new(Header h)
{
	static const struct { rpmTagVal index, dict; } kinds[] = {
		{ RPMTAG_FILECLASS, RPMTAG_CLASSDICT },	/* v4 */
		{ TAG_FILEMIMEINDEX, TAG_MIMEDICT },	/* v6 */
	};
	struct pkg_ftypes *t;

	if (!h || !(t = calloc(1, sizeof(*t))))
		return NULL;
	for (size_t k = 0; k < 2 && !t->n_files; k++) {
		t->index = get_array(h, kinds[k].index, RPM_INT32_TYPE, &t->n_files);
		t->dict = get_array(h, kinds[k].dict, RPM_STRING_ARRAY_TYPE, &t->n_dict);
		if (!t->index || !t->dict || !informative(t))
			reset(t);
	}
	if (!t->n_files || own_strings(t) < 0) {
		pkg_ftypes_free(t);
		return NULL;
	}
	return t;
}

void pkg_ftypes_free(struct pkg_ftypes *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; t->dict && i < t->n_dict; i++)
		free(t->dict[i]);
	free(t->dict);
	free(t->index);
	free(t);
}

const char *pkg_ftype(const struct pkg_ftypes *t, int i)
{
	uint32_t d;

	if (!t || i < 0 || (uint32_t)i >= t->n_files)
		return NULL;
	d = t->index[i];
	return d < t->n_dict ? t->dict[d] : NULL;
}

size_t pkg_ftypes_count(const struct pkg_ftypes *t)
{
	return t ? t->n_files : 0;
}
