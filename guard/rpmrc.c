/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rpmrc files (lib/rpmrc.c: doReadRC()): "keyword: value" lines, '#'
 * comments at the start of a line.  Besides optflags (only %optflags) and
 * archcolor (file colors), every line can change what rpm loads: the arch
 * and os tables decide %{_target}, hence which platform macro file rpm
 * reads (and so %_lib and %__plugindir); "include:" reads another file.
 */
#include <stdlib.h>
#include <string.h>

#include "guard.h"

static bool harmless(const char *kw, size_t len)
{
	return (len == 8 && !memcmp(kw, "optflags", 8)) || (len == 9 && !memcmp(kw, "archcolor", 9));
}

char *guard_rpmrc_significant(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	/* every kept line gets a newline, also a last one without: len + 1 and the NUL */
	char *out = malloc(len + 2), *o = out;

	if (!out)
		return NULL;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *s = p, *e, *kw;

		if (!eol)
			eol = end;
		p = eol < end ? eol + 1 : end;
		while (s < eol && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f'))
			s++;
		for (e = eol; e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'); e--)
			;
		if (s == e || *s == '#')
			continue;
		for (kw = s; kw < e && *kw != ':' && *kw != ' ' && *kw != '\t'; kw++)
			;
		if (harmless(s, (size_t)(kw - s)))
			continue;
		memcpy(o, s, (size_t)(e - s));
		o += e - s;
		*o++ = '\n';
	}
	*o = '\0';
	return out;
}
