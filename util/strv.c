/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A growable vector of owned strings, NULL-terminated once it holds one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "strv.h"
#include "strf.h"

int strv_push_owned(struct strv *sv, char *s)
{
	if (!s)
		return -ENOMEM;
	/* room for @s and the NULL after it */
	if (grow_array(&sv->v, &sv->cap, sv->n + 1, sizeof(char *)) < 0) {
		free(s);
		return -ENOMEM;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
	return 0;
}

int strv_push(struct strv *sv, const char *s)
{
	return strv_push_owned(sv, strdup(s ? s : ""));
}

int strv_vpushf(struct strv *sv, const char *fmt, va_list ap)
{
	return strv_push_owned(sv, vstrf(fmt, ap));
}

int strv_pushf(struct strv *sv, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strv_vpushf(sv, fmt, ap);
	va_end(ap);
	return r;
}

bool strv_has(const struct strv *sv, const char *s)
{
	for (size_t i = 0; s && i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

void strv_free_array(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void strv_free(struct strv *sv)
{
	strv_free_array(sv->v, sv->n);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}
