/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Building and releasing struct tg_verdict; taint letters. */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "predict.h"

/* include/linux/panic.h + kernel/panic.c taint_flags[]: bit -> letter. */
static const char taint_letters[] = "PFSRMBUDAWCIOELKXTNJ";

static char *taint_string(const char *letters, unsigned mask, char *buf, size_t len)
{
	size_t n = 0;

	for (unsigned b = 0; b < 32 && letters[b] && n + 1 < len; b++)
		if ((mask & TG_TAINT_BIT(b)) && letters[b] != ' ')
			buf[n++] = letters[b];
	if (len)
		buf[n < len ? n : len - 1] = '\0';
	return buf;
}

char *tg_taint_string(unsigned mask, char *buf, size_t len)
{
	return taint_string(taint_letters, mask, buf, len);
}

char *tg_verdict_taint_string(const struct tg_verdict *v, unsigned mask, char *buf, size_t len)
{
	return taint_string(v->taint_letters ? v->taint_letters : taint_letters, mask, buf, len);
}

int tg_taint_bit_from_letter(char c)
{
	const char *p = c ? strchr(taint_letters, c) : NULL;

	return p ? (int)(p - taint_letters) : -1;
}

int tg_verdict_add_refusal(struct tg_verdict *v, int step, int err, const char *code,
			   const char *remedy, const char *fmt, ...)
{
	size_t cap = v->n_refusals;	/* exact-size growth: refusals are few */
	struct tg_refusal *r, *nr;
	va_list ap;

	nr = realloc(v->refusals, (cap + 1) * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	v->refusals = nr;
	r = &nr[v->n_refusals];
	memset(r, 0, sizeof(*r));
	r->step = step;
	r->err = err;
	r->code = strdup(code);
	r->remedy = tg_strdup0(remedy);
	va_start(ap, fmt);
	r->reason = vstrf(fmt, ap);
	va_end(ap);
	v->n_refusals++;
	if (!r->code || !r->reason || (remedy && !r->remedy))
		return -ENOMEM;
	return 0;
}

int tg_refusal_add_symbol(struct tg_refusal *r, const char *sym)
{
	char **nv = realloc(r->symbols, (r->n_symbols + 1) * sizeof(char *));

	if (!nv)
		return -ENOMEM;
	r->symbols = nv;
	nv[r->n_symbols] = strdup(sym);
	if (!nv[r->n_symbols])
		return -ENOMEM;
	r->n_symbols++;
	return 0;
}

struct tg_refusal *tg_verdict_find_refusal(struct tg_verdict *v, const char *code)
{
	for (size_t i = 0; i < v->n_refusals; i++)
		if (!strcmp(v->refusals[i].code, code))
			return &v->refusals[i];
	return NULL;
}

int tg_verdict_add_flag(struct tg_verdict *v, char letter, bool module,
			const char *remedy, const char *fmt, ...)
{
	struct tg_flag *nf = realloc(v->flags, (v->n_flags + 1) * sizeof(*nf));
	struct tg_flag *f;
	va_list ap;

	if (!nf)
		return -ENOMEM;
	v->flags = nf;
	f = &nf[v->n_flags++];
	memset(f, 0, sizeof(*f));
	f->letter = letter;
	f->module = module;
	f->remedy = tg_strdup0(remedy);
	va_start(ap, fmt);
	f->reason = vstrf(fmt, ap);
	va_end(ap);
	return f->reason ? 0 : -ENOMEM;
}

__attribute__((format(printf, 3, 0)))
static int push_vstr(char ***arr, size_t *n, const char *fmt, va_list ap)
{
	char **nv = realloc(*arr, (*n + 1) * sizeof(char *));

	if (!nv)
		return -ENOMEM;
	*arr = nv;
	nv[*n] = vstrf(fmt, ap);
	if (!nv[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

int tg_verdict_add_note(struct tg_verdict *v, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = push_vstr(&v->notes, &v->n_notes, fmt, ap);
	va_end(ap);
	return r;
}

int tg_verdict_add_reason(struct tg_verdict *v, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = push_vstr(&v->reasons, &v->n_reasons, fmt, ap);
	va_end(ap);
	return r;
}

/*
 * The GPL-only import names of a verdict: the pointer array the caller sees
 * is the tail of one allocation whose head holds the string pool of the
 * names, so that struct tg_verdict needs no field of the library's own.
 */
struct gpl_names {
	struct tg_strpool *pool;
	char *names[];
};

static struct gpl_names *gpl_names_of(char **names)
{
	return (struct gpl_names *)((char *)names - offsetof(struct gpl_names, names));
}

/*
 * A module may import thousands of GPL-only symbols: the list grows by
 * doubling (capacity 4, then the count when it reaches a power of two) and the
 * names share the verdict's string pool.
 */
int tg_verdict_add_gpl_import(struct tg_verdict *v, const char *sym)
{
	size_t n = v->n_gpl_only_imports;
	struct gpl_names *g = v->gpl_only_imports ? gpl_names_of(v->gpl_only_imports) : NULL;

	if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
		struct gpl_names *ng = realloc(g, sizeof(*g) + (n ? n * 2 : 4) * sizeof(char *));

		if (!ng)
			return -ENOMEM;
		if (!g)
			ng->pool = NULL;
		g = ng;
		v->gpl_only_imports = g->names;
	}
	v->gpl_only_imports[n] = tg_strpool_dup(&g->pool, sym, strlen(sym));
	if (!v->gpl_only_imports[n])
		return -ENOMEM;
	v->n_gpl_only_imports++;
	return 0;
}

void tg_verdict_free_contents(struct tg_verdict *v)
{
	if (!v)
		return;
	free(v->path);
	free(v->module);
	free(v->license);
	free(v->kernel);
	free(v->package);
	free(v->file_module);
	free(v->vermagic);
	free(v->depends);
	free(v->arch);
	free(v->compression);
	free(v->signer);
	free(v->key_id);
	free(v->signature_detail);
	free(v->error);
	for (size_t i = 0; i < v->n_refusals; i++) {
		free(v->refusals[i].code);
		free(v->refusals[i].reason);
		free(v->refusals[i].remedy);
		strv_free_array(v->refusals[i].symbols, v->refusals[i].n_symbols);
	}
	free(v->refusals);
	for (size_t i = 0; i < v->n_flags; i++) {
		free(v->flags[i].reason);
		free(v->flags[i].remedy);
	}
	free(v->flags);
	if (v->gpl_only_imports) {
		struct gpl_names *g = gpl_names_of(v->gpl_only_imports);

		tg_strpool_free(g->pool);
		free(g);
	}
	strv_free_array(v->notes, v->n_notes);
	free(v->rule);
	free(v->justification);
	strv_free_array(v->reasons, v->n_reasons);
	free(v->rhelversion);
	free(v->kabi_stablelist);
	strv_free_array(v->kabi_on, v->n_kabi_on);
	strv_free_array(v->kabi_off, v->n_kabi_off);
	memset(v, 0, sizeof(*v));
}
