/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rpm macro files as rpm's loader reads them (rpmio/macro.c: loadMacroFile(),
 * rdcl(), doDefine(); the same from 4.14 to 6.x).  What matters for a guard
 * is which logical lines define which names: a line rpm joins to the one
 * before is no definition, and a chunk rpm splits off a long line is a line
 * of its own.  So the line reading below follows rdcl() step by step, with
 * fgets()'s limits, instead of splitting at newlines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

/* rpm's line buffer: MACROBUFSIZ = BUFSIZ * 2 (glibc: 16 KiB) */
#define LINEBUF 16384

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_eol(char c)
{
	return c == '\n' || c == '\r';
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* A file read with fgets(): the bytes not consumed yet. */
struct reader {
	const char *p, *end;
};

/*
 * fgets(buf, size, f): at most size - 1 bytes, up to and including a
 * newline.  Returns the bytes copied (0 at the end of the file, where
 * fgets returns NULL).
 */
static size_t read_line(struct reader *r, char *buf, size_t size)
{
	size_t n = 0;

	if (size == 0)
		return 0;
	while (n + 1 < size && r->p < r->end) {
		char c = *r->p++;

		buf[n++] = c;
		if (c == '\n')
			break;
	}
	buf[n] = '\0';
	return n;
}

/*
 * rdcl(): one logical line into @buf (LINEBUF bytes); returns the physical
 * lines it took, 0 at the end.  As in rpm, a NUL byte ends what strlen()
 * sees, a line with no newline at its end (the last one, or one longer than
 * the buffer) ends the logical line, and only a line whose first non-blank
 * is '%' can continue.
 */
static int logical_line(struct reader *r, char *buf)
{
	size_t size = LINEBUF, nb = 0;
	int pc = 0, bc = 0, xc = 0, nlines = 0;
	char *p = buf, *q = buf;

	do {
		*q = '\0';
		if (read_line(r, q, size) == 0 && r->p >= r->end && !*q)
			break;	/* fgets returned NULL */
		nlines++;
		nb = strlen(q);
		for (q += nb; nb > 0 && is_eol(q[-1]); q--)
			nb--;
		if (*q == '\0')
			break;	/* no newline found */
		if (p == buf) {
			while (*p && is_blank(*p))
				p++;
			if (*p != '%') {
				*q = '\0';
				break;
			}
		}
		for (; p < q; p++) {
			switch (*p) {
			case '\\':
				if (p[1] != '\0')
					p++;
				break;
			case '%':
				switch (p[1]) {
				case '{': p++; bc++; break;
				case '(': p++; pc++; break;
				case '[': p++; xc++; break;
				case '%': p++; break;
				}
				break;
			case '{': if (bc > 0) bc++; break;
			case '}': if (bc > 0) bc--; break;
			case '(': if (pc > 0) pc++; break;
			case ')': if (pc > 0) pc--; break;
			case '[': if (xc > 0) xc++; break;
			case ']': if (xc > 0) xc--; break;
			}
		}
		if ((nb == 0 || q[-1] != '\\') && !bc && !pc && !xc) {
			*q = '\0';
			break;
		}
		q++;
		nb++;
		size -= nb;
		if (q[-1] == '\r')
			q[-1] = '\n';
	} while (size > 0);
	return nlines;
}

/* doDefine()'s reading of "%name(opts) body": the name and the body's text. */
static bool split_definition(const char *s, struct guard_macro_def *d)
{
	const char *e;

	while (is_blank(*s))
		s++;
	if (*s != '%')
		return false;
	s++;
	while (is_blank(*s))	/* COPYNAME skips blanks too */
		s++;
	for (e = s; is_name_char(*e); e++)
		;
	if (e == s)
		return false;	/* "%{...}" or "%%": rpm rejects it, nothing is defined */
	d->name = s;
	d->name_len = (size_t)(e - s);
	s = e;
	if (*s == '(') {
		const char *close = strchr(s, ')');

		if (!close)
			return false;	/* "unterminated opts": not defined */
		s = close + 1;
	}
	while (is_blank(*s))
		s++;
	for (e = s + strlen(s); e > s && (is_blank(e[-1]) || is_eol(e[-1])); e--)
		;
	d->body = s;
	d->body_len = (size_t)(e - s);
	return true;
}

int guard_macro_each(const char *text, size_t len, guard_macro_fn fn, void *ctx)
{
	struct reader r = { text, text + len };
	char *buf = malloc(LINEBUF + 1);
	unsigned lineno = 0;
	int n, ret = 0;

	if (!buf)
		return -ENOMEM;
	while (ret >= 0 && (n = logical_line(&r, buf)) > 0) {
		struct guard_macro_def d;
		unsigned first = lineno + 1;

		lineno += (unsigned)n;
		if (!split_definition(buf, &d))
			continue;
		d.line = first;
		ret = fn(ctx, &d);
	}
	free(buf);
	return ret < 0 ? ret : 0;
}

int guard_macro_refs(const char *body, size_t len,
		     int (*fn)(void *ctx, const char *name, size_t len), void *ctx)
{
	const char *p = body, *end = body + len;
	int r;

	while (p < end) {
		const char *s;

		if (*p++ != '%' || p >= end)
			continue;
		if (*p == '%') {	/* "%%": a literal percent */
			p++;
			continue;
		}
		if (*p == '{')
			p++;
		while (p < end && (*p == '?' || *p == '!'))
			p++;
		for (s = p; p < end && is_name_char(*p); p++)
			;
		if (p > s && (r = fn(ctx, s, (size_t)(p - s))) < 0)
			return r;
	}
	return 0;
}
