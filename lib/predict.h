/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal interface between the per-module rules and the set logic. */
#ifndef TG_PREDICT_H
#define TG_PREDICT_H

#include "internal.h"

/* Where an import resolved, as the kernel's find_symbol() would see it. */
struct tg_resolved {
	bool found;
	bool gpl_only;
	bool has_crc;
	uint32_t crc;
	const char *ns;		/* NULL or "" when none */
	const char *owner;	/* "vmlinux" or module name */
	bool owner_proprietary;	/* provider carries P in its own taint bits */
	bool owner_loads;	/* false: provider is refused, its exports never appear */
};

/*
 * Resolver callback: fills @r for @sym on behalf of module @self.  Returns
 * false when nothing is known about the kernel's exports at all (no symbol
 * table): then imports are "unknown", never "clean".
 */
typedef bool (*tg_resolve_fn)(void *ctx, const char *sym, struct tg_resolved *r);

/* Does another provider than @self already export @sym?  Sets *owner. */
typedef bool (*tg_duplicate_fn)(void *ctx, const char *sym, const char **owner);

struct tg_predict_ctx {
	tg_resolve_fn resolve;
	tg_duplicate_fn duplicate;
	void *data;
};

/* Rules of load_module() for one module; fills @v (prediction only, no policy). */
int tg_predict_module(const char *path, const struct tg_module *m,
		      const struct tg_kernel *k, const struct tg_policy *p,
		      const struct tg_predict_ctx *ctx, struct tg_verdict *v);

/*
 * An installed (absolute) path neither named as a module nor inside a
 * kernel's module directory: a module there is hidden (only insmod loads it).
 */
bool tg_path_hidden(const char *path);

/* Apply the policy to a finished prediction (fills action/rule/reasons). */
int tg_verdict_decide(struct tg_verdict *v, const struct tg_policy *p,
		      const struct tg_kernel *k);

/* Building blocks for verdicts (verdict.c). */
int tg_verdict_add_refusal(struct tg_verdict *v, int step, int err, const char *code,
			   const char *remedy, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
int tg_refusal_add_symbol(struct tg_refusal *r, const char *sym);
int tg_verdict_add_flag(struct tg_verdict *v, char letter, bool module,
			const char *remedy, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int tg_verdict_add_note(struct tg_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* tg_taint_string() with the letters of the verdict's kernel (a vendor's own bits) */
char *tg_verdict_taint_string(const struct tg_verdict *v, unsigned mask, char *buf, size_t len);
int tg_verdict_add_reason(struct tg_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int tg_verdict_add_gpl_import(struct tg_verdict *v, const char *sym);
struct tg_refusal *tg_verdict_find_refusal(struct tg_verdict *v, const char *code);

#endif
