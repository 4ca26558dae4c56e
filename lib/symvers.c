/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Module.symvers: the kernel's export table as modpost writes it.
 *
 * One line per export, TAB-separated.  The column layout changed over time
 * (docs/module-formats.md#modulesymvers):
 *
 *   crc sym module                        early 2.6, GPL-ness not recorded
 *   crc sym module type                   2.6.x - 5.3
 *   crc sym ns module type                5.4 before "move the namespace last"
 *   crc sym module type ns                5.4.y/5.6+ (ns empty: trailing TAB)
 *
 * A distro table has ~25k lines and we load it on every run, so the parser
 * works in place: the (decompressed) text is copied once into a buffer we
 * own, TABs and newlines become NULs, and every tg_ksym points into it.  An
 * open-addressing hash table of indices gives the lookups.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* More exports than any kernel has by two orders of magnitude. */
#define SYMVERS_MAX_LINES (4u << 20)

struct tg_symvers {
	char *text;		/* owned; every string below points into it */
	struct tg_ksym *syms;
	size_t n;
	uint32_t *slots;	/* index + 1 into syms, 0 = empty */
	size_t mask;		/* number of slots - 1 (a power of two) */
	unsigned columns;	/* the most fields a line had */
};

static const struct {
	const char *name;
	enum tg_export_type type;
} export_types[] = {
	{ "EXPORT_SYMBOL", TG_EXPORT_PLAIN },
	{ "EXPORT_SYMBOL_GPL", TG_EXPORT_GPL },
	{ "EXPORT_SYMBOL_GPL_FUTURE", TG_EXPORT_GPL_FUTURE },
	{ "EXPORT_UNUSED_SYMBOL", TG_EXPORT_UNUSED },
	{ "EXPORT_UNUSED_SYMBOL_GPL", TG_EXPORT_UNUSED_GPL },
};

const char *tg_export_type_name(enum tg_export_type t)
{
	for (size_t i = 0; i < TG_ARRAY_SIZE(export_types); i++)
		if (export_types[i].type == t)
			return export_types[i].name;
	return "unknown";
}

/*
 * GPL_FUTURE was a warning only and UNUSED exports resolved like plain ones;
 * only _GPL and UNUSED_GPL restrict the importer (docs/loader-rules.md, R13a).
 */
bool tg_export_type_is_gpl(enum tg_export_type t)
{
	return t == TG_EXPORT_GPL || t == TG_EXPORT_UNUSED_GPL;
}

static int export_type_parse(const char *s, enum tg_export_type *t)
{
	for (size_t i = 0; i < TG_ARRAY_SIZE(export_types); i++) {
		if (!strcmp(s, export_types[i].name)) {
			*t = export_types[i].type;
			return 0;
		}
	}
	return -EINVAL;
}

static bool is_export_word(const char *s)
{
	return strncmp(s, "EXPORT_", 7) == 0;
}

/*
 * modpost writes "0x%08x"; it reads the column back with strtoul(.., 16),
 * so the prefix is optional there, and so it is here.  Anything past 32 bits
 * or trailing garbage is a malformed line (modpost: "parse error").
 */
static int crc_parse(const char *s, uint32_t *crc)
{
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -EINVAL;
		v = v * 16 + d;
		if (v > UINT32_MAX)
			return -EINVAL;
	}
	*crc = (uint32_t)v;
	return 0;
}

static const char *ns_or_null(const char *s)
{
	return *s ? s : NULL;
}

/*
 * Fill @ks from the NUL-separated fields of one line.  Returns NULL on
 * success, else a description of what is wrong (for "FILE:LINE: ...").
 */
static const char *line_parse(char **f, int nf, struct tg_ksym *ks)
{
	const char *type;

	if (nf < 3 || nf > 5)
		return "expected 3 to 5 tab-separated fields";
	if (crc_parse(f[0], &ks->crc) < 0)
		return "bad CRC";
	ks->name = f[1];
	if (nf == 3) {
		ks->owner = f[2];
		ks->ns = NULL;
		ks->type = TG_EXPORT_UNKNOWN;
		type = NULL;
	} else if (is_export_word(f[3])) {
		ks->owner = f[2];
		ks->ns = nf == 5 ? ns_or_null(f[4]) : NULL;
		type = f[3];
	} else if (nf == 5 && is_export_word(f[4])) {
		/* early 5.4: the namespace was the third column */
		ks->ns = ns_or_null(f[2]);
		ks->owner = f[3];
		type = f[4];
	} else {
		return "no EXPORT_* type in field 4 or 5";
	}
	if (type && export_type_parse(type, &ks->type) < 0)
		return "unknown export type";
	if (!*ks->name)
		return "empty symbol name";
	if (!*ks->owner)
		return "empty module name";
	return NULL;
}

/*
 * Split the @len bytes at @line in place at TABs; at most 6 fields are
 * recorded (6 = too many).  memchr, not a byte loop: this is the hot path.
 */
static int split_fields(char *line, size_t len, char **f)
{
	char *end = line + len, *tab;
	int nf = 0;

	f[nf++] = line;
	while (nf < 6 && (tab = memchr(line, '\t', (size_t)(end - line)))) {
		*tab = '\0';
		line = tab + 1;
		f[nf++] = line;
	}
	return nf;
}

static size_t count_lines(const char *s, size_t len)
{
	const char *end = s + len, *p;
	size_t n = 0;

	while ((p = memchr(s, '\n', (size_t)(end - s)))) {
		n++;
		s = p + 1;
	}
	return n + (s < end);
}

/* false if the name is already there */
static bool table_insert(struct tg_symvers *sv, uint32_t idx, uint32_t h)
{
	size_t i = h & sv->mask;

	for (;;) {
		uint32_t cur = sv->slots[i];

		if (!cur) {
			sv->slots[i] = idx + 1;
			return true;
		}
		/*
		 * A name twice (concatenated dumps, KBUILD_EXTRA_SYMBOLS):
		 * the first line wins, as the kernel would find one owner.
		 */
		if (!strcmp(sv->syms[cur - 1].name, sv->syms[idx].name))
			return false;
		i = (i + 1) & sv->mask;
	}
}

/* Parse sv->text (@len bytes, NUL-terminated) into sv->syms and the table. */
static int symvers_parse(struct tg_symvers *sv, size_t len, const char *label,
			 struct tg_error *err)
{
	size_t nlines = count_lines(sv->text, len), nslots = 16, lineno = 0;
	char *p = sv->text, *end = sv->text + len;

	if (nlines > SYMVERS_MAX_LINES)
		return tg_fail(err, -E2BIG, "%s: %zu lines, more than the limit of %u",
			       label, nlines, SYMVERS_MAX_LINES);
	while (nslots < nlines * 2)
		nslots *= 2;
	sv->syms = tg_alloc_big((nlines ? nlines : 1) * sizeof(*sv->syms));
	sv->slots = calloc(nslots, sizeof(*sv->slots));
	if (!sv->syms || !sv->slots)
		return tg_fail(err, -ENOMEM, "%s: out of memory", label);
	sv->mask = nslots - 1;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *f[6];
		struct tg_ksym *ks = &sv->syms[sv->n];
		const char *why;
		uint32_t h;
		size_t l;
		int nf;

		lineno++;
		if (nl)
			*nl = '\0';
		l = (size_t)((nl ? nl : end) - p);
		/* a NUL would silently cut a field short */
		if (memchr(p, '\0', l))
			return tg_fail(err, -EINVAL, "%s:%zu: NUL byte in line", label, lineno);
		if (l && p[l - 1] == '\r')	/* tolerate CRLF from a copy made elsewhere */
			p[--l] = '\0';
		if (l) {
			nf = split_fields(p, l, f);
			if (nf > 0 && (unsigned)nf > sv->columns)
				sv->columns = (unsigned)nf;
			why = line_parse(f, nf, ks);
			if (why)
				return tg_fail(err, -EINVAL, "%s:%zu: %s", label, lineno, why);
			/* the name is f[1], ended where f[2] begins */
			h = tg_name_hash(ks->name, (size_t)(f[2] - f[1] - 1));
			if (table_insert(sv, (uint32_t)sv->n, h))
				sv->n++;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

void tg_symvers_free(struct tg_symvers *sv)
{
	if (!sv)
		return;
	free(sv->text);
	free(sv->syms);
	free(sv->slots);
	free(sv);
}

/* Takes ownership of @text (@len bytes plus a NUL) whatever happens. */
static int symvers_from_text(char *text, size_t len, const char *label,
			     struct tg_symvers **out, struct tg_error *err)
{
	struct tg_symvers *sv = calloc(1, sizeof(*sv));
	int r;

	if (!sv) {
		free(text);
		return tg_fail(err, -ENOMEM, "%s: out of memory", label);
	}
	sv->text = text;
	r = symvers_parse(sv, len, label, err);
	if (r < 0) {
		tg_symvers_free(sv);
		return r;
	}
	*out = sv;
	return 0;
}

/*
 * Decompress (or copy) @data into a NUL-terminated buffer of our own: the
 * parser writes into it.  The cap applies to the decoded text.
 */
static int symvers_text(const void *data, size_t len, const char *label, uint64_t cap,
			char **text, size_t *tlen, struct tg_error *err)
{
	enum tg_compression kind = tg_compression_detect(data, len);
	void *out = NULL;
	size_t olen = 0;
	char *t;
	int r;

	if (kind == TG_COMP_NONE) {
		if ((uint64_t)len > cap)
			return tg_fail(err, -EFBIG, "%s: %zu bytes, larger than the limit of %llu",
				       label, len, (unsigned long long)cap);
		t = malloc(len + 1);
		if (!t)
			return tg_fail(err, -ENOMEM, "%s: out of memory", label);
		memcpy(t, data, len);
		t[len] = '\0';
		*text = t;
		*tlen = len;
		return 0;
	}
	r = tg_decompress(kind, data, len, cap, &out, &olen, label, err);
	if (r < 0)
		return r;
	t = realloc(out, olen + 1);
	if (!t) {
		free(out);
		return tg_fail(err, -ENOMEM, "%s: out of memory", label);
	}
	t[olen] = '\0';
	*text = t;
	*tlen = olen;
	return 0;
}

static uint64_t symvers_cap(const struct tg_limits *lim)
{
	struct tg_limits def;

	if (!lim) {
		tg_limits_default(&def);
		lim = &def;
	}
	return lim->max_symvers_size;
}

int tg_symvers_load_mem(const void *data, size_t len, const char *label,
			const struct tg_limits *lim, struct tg_symvers **out,
			struct tg_error *err)
{
	char *text = NULL;
	size_t tlen = 0;
	int r;

	*out = NULL;
	if (!label)
		label = "Module.symvers";
	if (!data && len)
		return tg_fail(err, -EINVAL, "%s: no data", label);
	r = symvers_text(data ? data : "", len, label, symvers_cap(lim), &text, &tlen, err);
	if (r < 0)
		return r;
	return symvers_from_text(text, tlen, label, out, err);
}

int tg_symvers_load_path(const char *path, const struct tg_limits *lim,
			 struct tg_symvers **out, struct tg_error *err)
{
	uint64_t cap = symvers_cap(lim);
	char *text = NULL;
	size_t len = 0, tlen = 0;
	void *raw = NULL;
	enum tg_compression kind;
	int r;

	*out = NULL;
	/* A compressed table is smaller than the decoded one: one cap serves both. */
	r = tg_read_path(path, cap, &raw, &len, err);
	if (r < 0)
		return r;
	kind = tg_compression_detect(raw, len);
	if (kind == TG_COMP_NONE)	/* tg_read_path NUL-terminates: parse in place */
		return symvers_from_text(raw, len, path, out, err);
	r = symvers_text(raw, len, path, cap, &text, &tlen, err);
	free(raw);
	if (r < 0)
		return r;
	return symvers_from_text(text, tlen, path, out, err);
}

const struct tg_ksym *tg_symvers_lookup(const struct tg_symvers *sv, const char *name)
{
	size_t i;

	if (!sv || !name)
		return NULL;
	for (i = tg_name_hash(name, strlen(name)) & sv->mask; sv->slots[i]; i = (i + 1) & sv->mask) {
		const struct tg_ksym *ks = &sv->syms[sv->slots[i] - 1];

		if (!strcmp(ks->name, name))
			return ks;
	}
	return NULL;
}

/* Distinct symbols (a clean file: its line count). */
size_t tg_symvers_count(const struct tg_symvers *sv)
{
	return sv ? sv->n : 0;
}

unsigned tg_symvers_columns(const struct tg_symvers *sv)
{
	return sv ? sv->columns : 0;
}
