/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sets of modules judged together.
 *
 * modprobe loads a module's providers first, so when a set is checked its
 * members' exports are visible to each other, with the provider's own state:
 * a refused provider exports nothing, a proprietary one passes its taint on
 * (5.9+).  Those states depend on each other, so predictions are repeated
 * until nothing changes (bounded: each round can only flip a provider from
 * loading to refused or from clean to proprietary).
 */
#include <errno.h>
#include <string.h>

#include "predict.h"
#include "policy_internal.h"

struct member {
	char *path;
	char *package;
	char *error;
	const struct tg_module *m;
	const struct tg_kernel *k;
	bool loads;		/* from the previous round */
	bool proprietary;	/* module P bit from the previous round */
};

struct set_export {		/* one export of one member, sorted by name */
	const char *name;
	size_t member;
	size_t index;
};

struct tg_set {
	struct member *mem;
	size_t n, cap;
	struct set_export *exp;
	size_t n_exp;
	unsigned jobs;
	const struct tg_policy *policy;
};

struct resolve_ctx {
	struct tg_set *s;
	size_t self;
};

struct tg_set *tg_set_new(const struct tg_ctx *ctx)
{
	struct tg_set *s = calloc(1, sizeof(struct tg_set));

	if (s) {
		s->jobs = tg_ctx_jobs(ctx);
		s->policy = tg_ctx_policy(ctx);
	}
	return s;
}

void tg_set_free(struct tg_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->mem[i].path);
		free(s->mem[i].package);
		free(s->mem[i].error);
	}
	free(s->mem);
	free(s->exp);
	free(s);
}

size_t tg_set_count(const struct tg_set *s)
{
	return s ? s->n : 0;
}

int tg_set_add(struct tg_set *s, const char *path, const struct tg_module *m,
	       const struct tg_kernel *k, const char *package, const char *error)
{
	struct member *e;

	if (!m && !error)
		return -EINVAL;
	if (grow_array(&s->mem, &s->cap, s->n, sizeof(*s->mem)) < 0)
		return -ENOMEM;
	e = &s->mem[s->n];
	memset(e, 0, sizeof(*e));
	e->path = tg_strdup0(path);
	e->package = tg_strdup0(package);
	e->error = tg_strdup0(error);
	e->m = m;
	e->k = k;
	e->loads = m != NULL;
	if ((path && !e->path) || (package && !e->package) || (error && !e->error)) {
		free(e->path);
		free(e->package);
		free(e->error);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

static int cmp_export(const void *a, const void *b)
{
	const struct set_export *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->member < y->member ? -1 : x->member > y->member;
}

static int build_index(struct tg_set *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->mem[i].m)
			n += s->mem[i].m->n_exports;
	free(s->exp);
	s->exp = n ? calloc(n, sizeof(*s->exp)) : NULL;
	if (n && !s->exp)
		return -ENOMEM;
	s->n_exp = 0;
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; s->mem[i].m && j < s->mem[i].m->n_exports; j++)
			s->exp[s->n_exp++] = (struct set_export){ s->mem[i].m->exports[j].name, i, j };
	if (s->n_exp)
		qsort(s->exp, s->n_exp, sizeof(*s->exp), cmp_export);
	return 0;
}

static bool same_kernel(const struct tg_kernel *a, const struct tg_kernel *b)
{
	if (a == b)
		return true;
	if (!a || !b || !a->release || !b->release)
		return false;
	return strcmp(a->release, b->release) == 0;
}

/* Index of the first export named @sym in the sorted index (n_exp if none). */
static size_t first_export(const struct tg_set *s, const char *sym)
{
	size_t lo = 0, hi = s->n_exp;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(s->exp[mid].name, sym) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First member (other than @self, same kernel) exporting @sym, or -1. */
static long find_member_export(const struct tg_set *s, size_t self, const char *sym, size_t *index)
{
	for (size_t lo = first_export(s, sym); lo < s->n_exp && !strcmp(s->exp[lo].name, sym); lo++) {
		const struct set_export *e = &s->exp[lo];

		if (e->member != self && same_kernel(s->mem[e->member].k, s->mem[self].k)) {
			*index = e->index;
			return (long)e->member;
		}
	}
	return -1;
}

static void from_ksym(const struct tg_ksym *ks, struct tg_resolved *r)
{
	const char *slash = strrchr(ks->owner, '/');

	r->found = true;
	r->gpl_only = tg_export_type_is_gpl(ks->type);
	r->has_crc = true;
	r->crc = ks->crc;
	r->ns = ks->ns;
	r->owner = slash ? slash + 1 : ks->owner;
	/* In-tree providers carry GPL-compatible licenses (none in Debian 6.1 do not). */
	r->owner_proprietary = false;
	r->owner_loads = true;
}

/*
 * find_symbol() order: vmlinux first, then loaded modules.  Set members
 * stand for the loaded modules; the kernel's own modules come after them.
 */
static bool resolve(void *data, const char *sym, struct tg_resolved *r)
{
	struct resolve_ctx *c = data;
	const struct member *self = &c->s->mem[c->self];
	const struct tg_symvers *sv = self->k ? self->k->symvers : NULL;
	const struct tg_ksym *ks = sv ? tg_symvers_lookup(sv, sym) : NULL;
	size_t idx;
	long who;

	memset(r, 0, sizeof(*r));
	if (ks && !strcmp(ks->owner, "vmlinux")) {
		from_ksym(ks, r);
		return true;
	}
	who = find_member_export(c->s, c->self, sym, &idx);
	if (who >= 0) {
		const struct member *p = &c->s->mem[who];
		const struct tg_export *x = &p->m->exports[idx];

		r->found = true;
		r->gpl_only = x->gpl_only;
		r->has_crc = x->has_crc;
		r->crc = x->crc;
		r->ns = x->ns;
		r->owner = p->m->name ? p->m->name : p->m->file_modname;
		r->owner_proprietary = p->proprietary;
		r->owner_loads = p->loads;
		return true;
	}
	if (ks) {
		from_ksym(ks, r);
		return true;
	}
	return sv != NULL;
}

static bool same_name(const struct tg_module *a, const struct tg_module *b)
{
	return a->name && b->name && !strcmp(a->name, b->name);
}

/*
 * A member given before @self (the set's order is the load order: modprobe
 * loads providers first, the caller lists the rest in order) that loads and
 * exports @sym: the kernel refuses the second exporter of a name.  A member
 * of the same module name is an alternative (an updated driver next to the
 * in-tree one), never loaded together with @self.
 */
static long earlier_member_export(const struct tg_set *s, size_t self, const char *sym)
{
	for (size_t lo = first_export(s, sym); lo < s->n_exp && !strcmp(s->exp[lo].name, sym); lo++) {
		const struct set_export *e = &s->exp[lo];

		if (e->member < self && s->mem[e->member].loads &&
		    same_kernel(s->mem[e->member].k, s->mem[self].k) &&
		    !same_name(s->mem[e->member].m, s->mem[self].m))
			return (long)e->member;
	}
	return -1;
}

/* Module.symvers names the owner by path; '-' in file names is '_' in module names. */
static bool owned_by(const char *owner, const char *name)
{
	const char *base = strrchr(owner, '/');

	base = base ? base + 1 : owner;
	for (size_t i = 0;; i++) {
		char a = base[i] == '-' ? '_' : base[i];

		if (a != name[i])
			return false;
		if (!a)
			return true;
	}
}

/* The kernel's own exports owned by someone else, or an earlier member's (verify_exported_symbols()). */
static bool duplicate(void *data, const char *sym, const char **owner)
{
	struct resolve_ctx *c = data;
	const struct member *self = &c->s->mem[c->self];
	const struct tg_symvers *sv = self->k ? self->k->symvers : NULL;
	const struct tg_ksym *ks = sv ? tg_symvers_lookup(sv, sym) : NULL;
	const char *me = self->m->name ? self->m->name : "";
	long who;

	if (ks && !owned_by(ks->owner, me)) {
		*owner = ks->owner;
		return true;
	}
	who = earlier_member_export(c->s, c->self, sym);
	if (who < 0)
		return false;
	*owner = c->s->mem[who].m->name ? c->s->mem[who].m->name : c->s->mem[who].m->file_modname;
	return *owner != NULL;
}

static int predict_member(struct tg_set *s, size_t i, const struct tg_policy *p,
			  struct tg_verdict *v)
{
	struct resolve_ctx rc = { s, i };
	struct tg_predict_ctx ctx = { resolve, duplicate, &rc };
	const struct member *e = &s->mem[i];

	memset(v, 0, sizeof(*v));
	if (!e->m) {
		v->path = tg_strdup0(e->path);
		v->error = tg_strdup0(e->error);
		v->hidden = tg_path_hidden(e->path);
		v->kernel = tg_strdup0(e->k ? e->k->release : NULL);
		v->incomplete = true;
		return 0;
	}
	return tg_predict_module(e->path, e->m, e->k, p, &ctx, v);
}

/* Members of one round, handed out in batches of ROUND_BATCH to the pool's threads. */
struct round_work {
	struct tg_set *s;
	const struct tg_policy *p;
	struct tg_verdict *out;
	int error;		/* atomic: first negative errno, else 0 */
};

#define ROUND_BATCH 16
/* Below this many members a round is not worth a thread. */
#define ROUND_MIN_PARALLEL 128

static void round_batch(size_t b, unsigned worker, void *arg)
{
	struct round_work *w = arg;
	size_t i = b * ROUND_BATCH, end = i + ROUND_BATCH < w->s->n ? i + ROUND_BATCH : w->s->n;

	(void)worker;
	for (; i < end && !__atomic_load_n(&w->error, __ATOMIC_RELAXED); i++) {
		/* reads only the previous round's member states: threads never race */
		int r;

		tg_verdict_free_contents(&w->out[i]);
		r = predict_member(w->s, i, w->p, &w->out[i]);
		if (r < 0) {
			int zero = 0;

			__atomic_compare_exchange_n(&w->error, &zero, r, false, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
		}
	}
}

/* Predict every member once, on the pool @q (NULL: the caller's thread alone). */
static int predict_all(struct tg_set *s, struct tg_workq *q, const struct tg_policy *p,
		       struct tg_verdict *out)
{
	struct round_work w = { s, p, out, 0 };
	size_t batches = (s->n + ROUND_BATCH - 1) / ROUND_BATCH;

	if (q)
		tg_workq_run(q, batches, round_batch, &w);
	else
		for (size_t b = 0; b < batches; b++)
			round_batch(b, 0, &w);
	return w.error;
}

/* One round; returns 1 if any member's load/proprietary state changed. */
static int round_once(struct tg_set *s, struct tg_workq *q, const struct tg_policy *p,
		      struct tg_verdict *out)
{
	int changed = 0;
	int r = predict_all(s, q, p, out);

	if (r < 0)
		return r;
	for (size_t i = 0; i < s->n; i++) {
		bool loads = s->mem[i].m && out[i].loads;
		/* taint_module is empty for a refused module: it exports nothing. */
		bool prop = (out[i].taint_module & TG_TAINT_BIT(TG_TAINT_PROPRIETARY)) != 0;

		if (loads != s->mem[i].loads || prop != s->mem[i].proprietary)
			changed = 1;
		s->mem[i].loads = loads;
		s->mem[i].proprietary = prop;
	}
	return changed;
}

int tg_set_predict(struct tg_set *s, struct tg_verdict *out)
{
	const struct tg_policy *p = s->policy;
	struct tg_workq *q = NULL;
	int r;

	memset(out, 0, s->n * sizeof(*out));
	if ((r = build_index(s)) < 0)
		return r;
	for (size_t i = 0; i < s->n; i++) {
		s->mem[i].loads = s->mem[i].m != NULL;
		s->mem[i].proprietary = false;
	}
	/* One pool for every round; a small set is not worth a thread. */
	if (s->jobs > 1 && s->n >= ROUND_MIN_PARALLEL && !(q = tg_workq_new(s->jobs, 0)))
		return -ENOMEM;
	/* Each round can only make more providers refused or proprietary. */
	for (size_t round = 0; round <= s->n + 1; round++) {
		r = round_once(s, q, p, out);
		if (r <= 0)
			break;
	}
	tg_workq_finish(q);
	if (r < 0)
		return r;
	for (size_t i = 0; i < s->n; i++) {
		if (s->mem[i].package && !out[i].package)
			out[i].package = strdup(s->mem[i].package);
		r = tg_verdict_decide(&out[i], p, s->mem[i].k);
		if (r < 0)
			return r;
	}
	return 0;
}

int tg_predict(const char *path, const struct tg_module *m, const struct tg_kernel *k,
	       const struct tg_policy *p, struct tg_verdict *out)
{
	struct tg_set *s = tg_set_new(NULL);
	int r;

	if (!s)
		return -ENOMEM;
	s->policy = tg_policy_or_builtin(p);
	r = tg_set_add(s, path, m, k, NULL, NULL);
	if (r == 0)
		r = tg_set_predict(s, out);
	tg_set_free(s);
	return r;
}
