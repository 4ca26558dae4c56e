/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy schema (documented in policy/README.md and taintguard-policy(5)):
 * the YAML tree from policy_yaml.c is checked section by section and turned
 * into struct tg_policy.  Every complaint names FILE:LINE:COLUMN of the
 * offending node.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "policy_internal.h"

/* Taint letters a rule may test: the ones taintguard predicts. */
const struct tg_policy_taint_letter tg_policy_taint_letters[] = {
	{ 'P', TG_TAINT_PROPRIETARY }, { 'F', TG_TAINT_FORCED_MODULE },
	{ 'C', TG_TAINT_CRAP }, { 'O', TG_TAINT_OOT }, { 'E', TG_TAINT_UNSIGNED },
	{ 'K', TG_TAINT_LIVEPATCH }, { 'N', TG_TAINT_TEST },
};
const size_t tg_policy_n_taint_letters = TG_ARRAY_SIZE(tg_policy_taint_letters);

/* ------------------------------------------------------------ helpers */

struct ctx {
	const char *label;
	struct tg_error *err;
	struct tg_policy *p;
};

__attribute__((format(printf, 3, 0)))
static int failv(struct ctx *c, const struct tg_ynode *n, const char *fmt, va_list ap)
{
	char what[TG_ERRMAX];

	vsnprintf(what, sizeof(what), fmt, ap);
	return tg_fail(c->err, -EINVAL, "%s:%u:%u: %s", c->label, n->line, n->col, what);
}

static int fail_at(struct ctx *c, const struct tg_ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail_at(struct ctx *c, const struct tg_ynode *n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = failv(c, n, fmt, ap);
	va_end(ap);
	return r;
}

static int oom(struct ctx *c)
{
	return tg_fail(c->err, -ENOMEM, "%s: out of memory", c->label);
}

static const char *kind_name(const struct tg_ynode *n)
{
	switch (n->kind) {
	case TG_Y_MAP:
		return "a mapping";
	case TG_Y_SEQ:
		return "a list";
	default:
		return "a scalar";
	}
}

/* What YAML 1.1 would resolve to null; never a valid string in a policy. */
static bool is_null(const struct tg_ynode *n)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };

	if (n->kind != TG_Y_SCALAR || !n->plain)
		return false;
	for (size_t i = 0; i < TG_ARRAY_SIZE(nulls); i++)
		if (!strcmp(n->str, nulls[i]))
			return true;
	return false;
}

static int want_kind(struct ctx *c, const struct tg_ynode *n, enum tg_ykind kind,
		     const char *what)
{
	static const char *const names[] = { "a string", "a list", "a mapping" };

	if (n->kind == kind && !(kind == TG_Y_SCALAR && is_null(n)))
		return 0;
	return fail_at(c, n, "%s must be %s, not %s", what, names[kind],
		       is_null(n) ? "empty" : kind_name(n));
}

/* A non-empty string; @out borrows the node's text. */
static int get_str(struct ctx *c, const struct tg_ynode *n, const char *what,
		   const char **out)
{
	int r = want_kind(c, n, TG_Y_SCALAR, what);

	*out = NULL;
	if (r < 0)
		return r;
	if (!n->str[0])
		return fail_at(c, n, "%s must not be empty", what);
	*out = n->str;
	return 0;
}

static int dup_str(struct ctx *c, const struct tg_ynode *n, const char *what,
		   char **out)
{
	const char *s;
	int r = get_str(c, n, what, &s);

	if (r < 0)
		return r;
	free(*out);
	*out = strdup(s);
	return *out ? 0 : oom(c);
}

/* Only the plain words true/false: YAML 1.1's yes/no/on/off are too easy to
 * write by accident, and a quoted "true" is a string. */
static int get_bool(struct ctx *c, const struct tg_ynode *n, const char *what, int *out)
{
	if (n->kind == TG_Y_SCALAR && n->plain && !strcmp(n->str, "true"))
		*out = 1;
	else if (n->kind == TG_Y_SCALAR && n->plain && !strcmp(n->str, "false"))
		*out = 0;
	else
		return fail_at(c, n, "%s must be true or false", what);
	return 0;
}

static int get_range(struct ctx *c, const struct tg_ynode *n, const char *what,
		     char **out)
{
	int r = dup_str(c, n, what, out);

	if (r < 0)
		return r;
	if (tg_version_range_check(*out) < 0)
		return fail_at(c, n, "invalid kernel version range '%s' (expected e.g. \">= 5.4, < 6.8\")",
			       n->str);
	return 0;
}

/* The action words of a policy file (also those of records and reports). */
const char *tg_action_name(enum tg_action a)
{
	switch (a) {
	case TG_ACTION_ALLOW:
		return "allow";
	case TG_ACTION_MARK:
		return "mark";
	case TG_ACTION_DENY:
		return "deny";
	}
	return "unknown";
}

static int get_action(struct ctx *c, const struct tg_ynode *n, enum tg_action *out)
{
	static const enum tg_action all[] = { TG_ACTION_ALLOW, TG_ACTION_MARK, TG_ACTION_DENY };
	const char *s;
	int r = get_str(c, n, "action", &s);

	if (r < 0)
		return r;
	for (size_t i = 0; i < TG_ARRAY_SIZE(all); i++)
		if (!strcmp(s, tg_action_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	return fail_at(c, n, "invalid action '%s' (expected allow, mark or deny)", s);
}

static int letter_bit(char l)
{
	for (size_t i = 0; i < tg_policy_n_taint_letters; i++)
		if (tg_policy_taint_letters[i].letter == l)
			return tg_policy_taint_letters[i].bit;
	return -1;
}

static int get_taint_mask(struct ctx *c, const struct tg_ynode *n, unsigned *mask)
{
	const char *s;
	int r = get_str(c, n, "taint", &s);

	if (r < 0)
		return r;
	*mask = 0;
	for (; *s; s++) {
		int bit = letter_bit(*s);

		if (bit < 0)
			return fail_at(c, n, "invalid taint letter '%c' (expected some of PFCOEKN)", *s);
		*mask |= TG_TAINT_BIT(bit);
	}
	return 0;
}

static int get_flag(struct ctx *c, const struct tg_ynode *n, char *flag)
{
	const char *s;
	int r = get_str(c, n, "flag", &s);

	if (r < 0)
		return r;
	if (s[1] || letter_bit(s[0]) < 0)
		return fail_at(c, n, "invalid taint flag '%s' (expected one of PFCOEKN)", s);
	*flag = s[0];
	return 0;
}

static int get_scope(struct ctx *c, const struct tg_ynode *n, bool *module_scope)
{
	const char *s;
	int r = get_str(c, n, "scope", &s);

	if (r < 0)
		return r;
	if (!strcmp(s, "module"))
		*module_scope = true;
	else if (!strcmp(s, "kernel"))
		*module_scope = false;
	else
		return fail_at(c, n, "invalid scope '%s' (expected module or kernel)", s);
	return 0;
}

static int get_strlist(struct ctx *c, const struct tg_ynode *n, const char *what,
		       struct strv *out)
{
	int r = want_kind(c, n, TG_Y_SEQ, what);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n->n; i++) {
		const char *s;

		r = get_str(c, n->kids[i], what, &s);
		if (r < 0)
			return r;
		if (strv_push(out, s) < 0)
			return oom(c);
	}
	return 0;
}

/*
 * Mapping walker: every key must be known, none may repeat, the required
 * ones must be there.  @fn gets the index into @keys of each key found.
 */
typedef int (*field_fn)(struct ctx *c, size_t key, const struct tg_ynode *val, void *obj);

struct field {
	const char *key;
	bool required;
};

#define MAX_FIELDS 16

static int walk_map(struct ctx *c, const struct tg_ynode *map, const char *what,
		    const struct field *keys, size_t n_keys, field_fn fn, void *obj)
{
	const struct tg_ynode *seen[MAX_FIELDS] = { NULL };
	int r = want_kind(c, map, TG_Y_MAP, what);

	if (r < 0)
		return r;
	for (size_t i = 0; i + 1 < map->n; i += 2) {
		const struct tg_ynode *k = map->kids[i];
		size_t f;

		for (f = 0; f < n_keys; f++)
			if (!strcmp(k->str, keys[f].key))
				break;
		if (f == n_keys)
			return fail_at(c, k, "unknown key '%s' in %s", k->str, what);
		if (seen[f])
			return fail_at(c, k, "duplicate key '%s' (first at line %u)",
				       k->str, seen[f]->line);
		seen[f] = k;
		r = fn(c, f, map->kids[i + 1], obj);
		if (r < 0)
			return r;
	}
	for (size_t f = 0; f < n_keys; f++)
		if (keys[f].required && !seen[f])
			return fail_at(c, map, "%s: missing required key '%s'", what, keys[f].key);
	return 0;
}

/* Append a zeroed element to a growable array. */
#define PUSH(c, arr, n, cap)                                                   \
	(grow_array(&(arr), &(cap), (n), sizeof(*(arr))) < 0 ? oom(c)             \
	 : (memset(&(arr)[(n)], 0, sizeof(*(arr))), (n)++, 0))

/* ------------------------------------------------------------ kernel: */

enum { LIC_KERNELS, LIC_STRINGS };
static const struct field lic_fields[] = {
	[LIC_KERNELS] = { "kernels", false },
	[LIC_STRINGS] = { "strings", true },
};

static int lic_field(struct ctx *c, size_t key, const struct tg_ynode *v, void *obj)
{
	struct lic_set *l = obj;

	if (key == LIC_KERNELS)
		return get_range(c, v, "kernels", &l->kernels);
	return get_strlist(c, v, "strings", &l->strings);
}

static int parse_licenses(struct ctx *c, const struct tg_ynode *v)
{
	struct tg_policy *p = c->p;
	int r = want_kind(c, v, TG_Y_SEQ, "gpl_compatible_licenses");

	for (size_t i = 0; r == 0 && i < v->n; i++) {
		r = PUSH(c, p->lic, p->n_lic, p->cap_lic);
		if (r == 0)
			r = walk_map(c, v->kids[i], "a gpl_compatible_licenses entry", lic_fields,
				     TG_ARRAY_SIZE(lic_fields), lic_field, &p->lic[p->n_lic - 1]);
	}
	p->has_lic = true;
	return r;
}

enum { FT_NAME, FT_FLAG, FT_SCOPE, FT_KERNELS, FT_REASON };
static const struct field ft_fields[] = {
	[FT_NAME] = { "name", true },
	[FT_FLAG] = { "flag", false },
	[FT_SCOPE] = { "scope", true },
	[FT_KERNELS] = { "kernels", false },
	[FT_REASON] = { "reason", true },
};

static int ft_field(struct ctx *c, size_t key, const struct tg_ynode *v, void *obj)
{
	struct forced *f = obj;

	switch (key) {
	case FT_NAME:
		return dup_str(c, v, "name", &f->name);
	case FT_FLAG:
		return get_flag(c, v, &f->pub.flag);
	case FT_SCOPE:
		return get_scope(c, v, &f->pub.module_scope);
	case FT_KERNELS:
		return get_range(c, v, "kernels", &f->kernels);
	default:
		return dup_str(c, v, "reason", &f->reason);
	}
}

static void forced_publish(struct forced *f)
{
	f->pub.name = f->name;
	f->pub.reason = f->reason;
	f->pub.kernels = f->kernels ? f->kernels : "any";
	f->pub.advisory = false;
}

static int parse_forced(struct ctx *c, const struct tg_ynode *v)
{
	struct tg_policy *p = c->p;
	int r = want_kind(c, v, TG_Y_SEQ, "forced_taint");

	for (size_t i = 0; r == 0 && i < v->n; i++) {
		r = PUSH(c, p->ft, p->n_ft, p->cap_ft);
		if (r < 0)
			break;
		p->ft[p->n_ft - 1].pub.flag = 'P';	/* the only flag the kernel forces */
		r = walk_map(c, v->kids[i], "a forced_taint entry", ft_fields,
			     TG_ARRAY_SIZE(ft_fields), ft_field, &p->ft[p->n_ft - 1]);
	}
	p->has_ft = true;
	return r;
}

enum { ADV_NAMES, ADV_STATUS, ADV_FLAG, ADV_SCOPE, ADV_KERNELS, ADV_REASON };
static const struct field adv_fields[] = {
	[ADV_NAMES] = { "names", true },
	[ADV_STATUS] = { "status", false },
	[ADV_FLAG] = { "flag", false },
	[ADV_SCOPE] = { "scope", false },
	[ADV_KERNELS] = { "kernels", false },
	[ADV_REASON] = { "reason", true },
};

static int adv_field(struct ctx *c, size_t key, const struct tg_ynode *v, void *obj)
{
	struct advisory *a = obj;

	switch (key) {
	case ADV_NAMES:
		return get_strlist(c, v, "names", &a->names);
	case ADV_STATUS:
		return dup_str(c, v, "status", &a->status);
	case ADV_FLAG:
		return get_flag(c, v, &a->flag);
	case ADV_SCOPE:
		return get_scope(c, v, &a->module_scope);
	case ADV_KERNELS:
		return get_range(c, v, "kernels", &a->kernels);
	default:
		return dup_str(c, v, "reason", &a->reason);
	}
}

/* tg_policy_forced_taint hands out one struct per name. */
static int advisory_publish(struct ctx *c, struct advisory *a)
{
	a->pubs = calloc(a->names.n ? a->names.n : 1, sizeof(*a->pubs));
	if (!a->pubs)
		return oom(c);
	for (size_t i = 0; i < a->names.n; i++) {
		a->pubs[i] = (struct tg_forced_taint){
			.name = a->names.v[i],
			.flag = a->flag,
			.module_scope = a->module_scope,
			.reason = a->reason,
			.kernels = a->kernels ? a->kernels : "any",
			.advisory = true,
		};
	}
	return 0;
}

static int parse_advisory(struct ctx *c, const struct tg_ynode *v)
{
	struct tg_policy *p = c->p;
	int r = want_kind(c, v, TG_Y_SEQ, "advisory");

	for (size_t i = 0; r == 0 && i < v->n; i++) {
		struct advisory *a;

		r = PUSH(c, p->adv, p->n_adv, p->cap_adv);
		if (r < 0)
			break;
		a = &p->adv[p->n_adv - 1];
		a->flag = 'P';
		a->module_scope = true;	/* proposals so far were for the offenders array */
		r = walk_map(c, v->kids[i], "an advisory entry", adv_fields,
			     TG_ARRAY_SIZE(adv_fields), adv_field, a);
		if (r == 0 && !a->names.n)
			r = fail_at(c, v->kids[i], "an advisory entry needs at least one name");
		if (r == 0)
			r = advisory_publish(c, a);
	}
	p->has_adv = true;
	return r;
}

enum { K_LIC, K_FT, K_ADV };
static const struct field kernel_fields[] = {
	[K_LIC] = { "gpl_compatible_licenses", false },
	[K_FT] = { "forced_taint", false },
	[K_ADV] = { "advisory", false },
};

static int kernel_field(struct ctx *c, size_t key, const struct tg_ynode *v, void *obj)
{
	switch (key) {
	case K_LIC:
		return parse_licenses(c, v);
	case K_FT:
		return parse_forced(c, v);
	default:
		return parse_advisory(c, v);
	}
}

/* ------------------------------------------------------- trusted_keys: */

static bool is_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* "AA:BB:...": the form modinfo prints as sig_key (case is kept as written). */
static bool key_id_valid(const char *s)
{
	for (;;) {
		if (!is_hex(s[0]) || !is_hex(s[1]))
			return false;
		s += 2;
		if (!*s)
			return true;
		if (*s++ != ':')
			return false;
	}
}

static int parse_keys(struct ctx *c, const struct tg_ynode *v)
{
	int r = get_strlist(c, v, "trusted_keys", &c->p->keys);

	for (size_t i = 0; r == 0 && i < v->n; i++) {
		const char *s = v->kids[i]->str, *slash = strrchr(s, '/');

		/* "SIGNER/KEYID", or a bare KEYID (any signer) */
		if (slash == s || !key_id_valid(slash ? slash + 1 : s))
			r = fail_at(c, v->kids[i],
				    "trusted key '%s' must be \"SIGNER/KEYID\" or \"KEYID\", KEYID as hex bytes \"AA:BB:...\"",
				    s);
	}
	c->p->has_keys = true;
	return r;
}

/* ----------------------------------------------- trusted_certificates: */

/*
 * Certificate files of keys the target kernel trusts besides its built-in
 * ones (an enrolled MOK): read now, so that a missing or broken file is a
 * policy error with its line, and checked like the policy file itself.
 */
static int parse_certs(struct ctx *c, const struct tg_ynode *v)
{
	int r = get_strlist(c, v, "trusted_certificates", &c->p->certpaths);

	c->p->has_certs = true;
	if (r == 0 && v->n && tg_keyring_new(&c->p->certs) < 0)
		r = oom(c);
	for (size_t i = 0; r == 0 && i < v->n; i++) {
		struct tg_error e = { 0 };

		if (v->kids[i]->str[0] != '/')
			r = fail_at(c, v->kids[i], "trusted certificate '%s' must be an absolute path",
				    v->kids[i]->str);
		else if (tg_keyring_add_trusted_file(c->p->certs, v->kids[i]->str, &e) < 0)
			r = fail_at(c, v->kids[i], "trusted certificate %s", e.msg);
	}
	return r;
}

/* ------------------------------------------------------------- rules: */

enum { W_ERROR, W_REFUSED, W_FORCED, W_ADVISORY, W_INCOMPLETE, W_TAINT,
       W_MODULE, W_PACKAGE, W_KERNELS, W_MODPROBE };
static const struct field when_fields[] = {
	[W_ERROR] = { "error", false },
	[W_REFUSED] = { "refused", false },
	[W_FORCED] = { "forced_taint", false },
	[W_ADVISORY] = { "advisory", false },
	[W_INCOMPLETE] = { "incomplete", false },
	[W_TAINT] = { "taint", false },
	[W_MODULE] = { "module", false },
	[W_PACKAGE] = { "package", false },
	[W_KERNELS] = { "kernels", false },
	[W_MODPROBE] = { "modprobe_refused", false },
};

static int when_field(struct ctx *c, size_t key, const struct tg_ynode *v, void *obj)
{
	struct cond *w = obj;

	switch (key) {
	case W_ERROR:
		return get_bool(c, v, "error", &w->error);
	case W_REFUSED:
		return get_bool(c, v, "refused", &w->refused);
	case W_FORCED:
		return get_bool(c, v, "forced_taint", &w->forced_taint);
	case W_ADVISORY:
		return get_bool(c, v, "advisory", &w->advisory);
	case W_INCOMPLETE:
		return get_bool(c, v, "incomplete", &w->incomplete);
	case W_TAINT:
		return get_taint_mask(c, v, &w->taint);
	case W_MODULE:
		return dup_str(c, v, "module", &w->module);
	case W_PACKAGE:
		return dup_str(c, v, "package", &w->package);
	case W_MODPROBE:
		return get_bool(c, v, "modprobe_refused", &w->modprobe_refused);
	default:
		return get_range(c, v, "kernels", &w->kernels);
	}
}

enum { R_NAME, R_WHEN, R_ACTION };
static const struct field rule_fields[] = {
	[R_NAME] = { "name", true },
	[R_WHEN] = { "when", false },
	[R_ACTION] = { "action", true },
};

static int rule_field(struct ctx *c, size_t key, const struct tg_ynode *v, void *obj)
{
	struct rule *ru = obj;

	switch (key) {
	case R_NAME:
		return dup_str(c, v, "name", &ru->name);
	case R_WHEN:
		return walk_map(c, v, "when", when_fields, TG_ARRAY_SIZE(when_fields),
				when_field, &ru->when);
	default:
		return get_action(c, v, &ru->action);
	}
}

/* Rule names end up in verdicts and logs; two with one name would lie. */
static int rule_name_check(struct ctx *c, const struct tg_ynode *n)
{
	struct tg_policy *p = c->p;
	const char *name = p->rules[p->n_rules - 1].name;

	if (!strcmp(name, "default") || !strcmp(name, "guard") || !strncmp(name, "exception:", 10))
		return fail_at(c, n, "rule name '%s' is reserved", name);
	for (size_t i = 0; i + 1 < p->n_rules; i++)
		if (!strcmp(p->rules[i].name, name))
			return fail_at(c, n, "duplicate rule name '%s'", name);
	return 0;
}

static int parse_rules(struct ctx *c, const struct tg_ynode *v)
{
	struct tg_policy *p = c->p;
	int r = want_kind(c, v, TG_Y_SEQ, "rules");

	for (size_t i = 0; r == 0 && i < v->n; i++) {
		struct rule *ru;

		r = PUSH(c, p->rules, p->n_rules, p->cap_rules);
		if (r < 0)
			break;
		ru = &p->rules[p->n_rules - 1];
		ru->when = (struct cond){ -1, -1, -1, -1, -1, 0, NULL, NULL, NULL, -1 };
		r = walk_map(c, v->kids[i], "a rule", rule_fields,
			     TG_ARRAY_SIZE(rule_fields), rule_field, ru);
		if (r == 0)
			r = rule_name_check(c, v->kids[i]);
	}
	p->has_rules = true;
	return r;
}

/* -------------------------------------------------------- exceptions: */

enum { E_NAME, E_PACKAGE, E_MODULE, E_KERNELS, E_FILE, E_ACTION, E_JUSTIFICATION };
static const struct field exc_fields[] = {
	[E_NAME] = { "name", false },
	[E_PACKAGE] = { "package", false },
	[E_MODULE] = { "module", false },
	[E_KERNELS] = { "kernels", false },
	[E_FILE] = { "file", false },
	[E_ACTION] = { "action", true },
	[E_JUSTIFICATION] = { "justification", true },
};

static int exc_field(struct ctx *c, size_t key, const struct tg_ynode *v, void *obj)
{
	struct exception *e = obj;

	switch (key) {
	case E_NAME:
		return dup_str(c, v, "name", &e->name);
	case E_PACKAGE:
		return dup_str(c, v, "package", &e->package);
	case E_MODULE:
		return dup_str(c, v, "module", &e->module);
	case E_KERNELS:
		return get_range(c, v, "kernels", &e->kernels);
	case E_FILE:
		return dup_str(c, v, "file", &e->file);
	case E_ACTION:
		return get_action(c, v, &e->action);
	default:
		return dup_str(c, v, "justification", &e->justification);
	}
}

static int parse_exceptions(struct ctx *c, const struct tg_ynode *v)
{
	struct tg_policy *p = c->p;
	int r = want_kind(c, v, TG_Y_SEQ, "exceptions");

	for (size_t i = 0; r == 0 && i < v->n; i++) {
		struct exception *e;

		r = PUSH(c, p->exc, p->n_exc, p->cap_exc);
		if (r < 0)
			break;
		e = &p->exc[p->n_exc - 1];
		r = walk_map(c, v->kids[i], "an exception", exc_fields,
			     TG_ARRAY_SIZE(exc_fields), exc_field, e);
		if (r < 0)
			break;
		/* An exception for everything would silently disable the rules. */
		if (!e->package && !e->module && !e->file)
			r = fail_at(c, v->kids[i], "an exception needs 'package', 'module' or 'file'");
		/* a file is not a module: one exception is for one kind of finding */
		else if (e->file && (e->module || e->kernels))
			r = fail_at(c, v->kids[i], "an exception with 'file' (a guard finding) cannot "
				    "have 'module' or 'kernels'");
		else if (e->name)
			e->label = strf("exception:%s", e->name);
		else if (e->module)
			e->label = strf("exception:%s", e->module);
		else if (e->file)
			e->label = strf("exception:%s", e->file);
		else
			e->label = strf("exception:%zu", i + 1);
		if (r == 0 && !e->label)
			r = oom(c);
	}
	p->has_exc = true;
	return r;
}

/* ------------------------------------------------------------- guard: */

enum { G_ACTION };
static const struct field guard_fields[] = {
	[G_ACTION] = { "action", true },
};

static int guard_field(struct ctx *c, size_t key, const struct tg_ynode *v, void *obj)
{
	c->p->has_guard = true;
	return get_action(c, v, &c->p->guard_action);
}

/* ------------------------------------------------------ refuse_scope: */

static int get_refuse_scope(struct ctx *c, const struct tg_ynode *v)
{
	if (v->kind == TG_Y_SCALAR && !strcmp(v->str, "package"))
		c->p->scope = TG_SCOPE_PACKAGE;
	else if (v->kind == TG_Y_SCALAR && !strcmp(v->str, "transaction"))
		c->p->scope = TG_SCOPE_TRANSACTION;
	else
		return fail_at(c, v, "refuse_scope must be package or transaction, not '%s'",
			       v->kind == TG_Y_SCALAR ? v->str : kind_name(v));
	c->p->has_scope = true;
	return 0;
}

/* ---------------------------------------------------------- top level */

enum { T_VERSION, T_KERNEL, T_KEYS, T_CERTS, T_RULES, T_DEFAULT, T_GUARD, T_SCOPE,
       T_EXCEPTIONS };
static const struct field top_fields[] = {
	[T_VERSION] = { "taintguard-policy", true },
	[T_KERNEL] = { "kernel", false },
	[T_KEYS] = { "trusted_keys", false },
	[T_CERTS] = { "trusted_certificates", false },
	[T_RULES] = { "rules", false },
	[T_DEFAULT] = { "default", false },
	[T_GUARD] = { "guard", false },
	[T_SCOPE] = { "refuse_scope", false },
	[T_EXCEPTIONS] = { "exceptions", false },
};

static int top_field(struct ctx *c, size_t key, const struct tg_ynode *v, void *obj)
{
	switch (key) {
	case T_VERSION:
		if (v->kind != TG_Y_SCALAR || !v->plain || strcmp(v->str, TG_POLICY_VERSION))
			return fail_at(c, v, "unsupported policy version '%s' (expected %s)",
				       v->kind == TG_Y_SCALAR ? v->str : kind_name(v),
				       TG_POLICY_VERSION);
		return 0;
	case T_KERNEL:
		return walk_map(c, v, "kernel", kernel_fields, TG_ARRAY_SIZE(kernel_fields),
				kernel_field, NULL);
	case T_KEYS:
		return parse_keys(c, v);
	case T_CERTS:
		return parse_certs(c, v);
	case T_RULES:
		return parse_rules(c, v);
	case T_DEFAULT:
		c->p->has_def = true;
		return get_action(c, v, &c->p->def);
	case T_GUARD:
		return walk_map(c, v, "guard", guard_fields, TG_ARRAY_SIZE(guard_fields),
				guard_field, NULL);
	case T_SCOPE:
		return get_refuse_scope(c, v);
	default:
		return parse_exceptions(c, v);
	}
}

int tg_policy_from_doc(const struct tg_ydoc *doc, const char *label, struct tg_policy **out,
		       struct tg_error *err)
{
	struct ctx c = { .label = label, .err = err };
	int r;

	*out = NULL;
	c.p = calloc(1, sizeof(*c.p));
	if (!c.p || !(c.p->source = strdup(label))) {
		r = oom(&c);
		goto out;
	}
	c.p->def = TG_ACTION_ALLOW;
	c.p->guard_action = TG_ACTION_DENY;
	r = walk_map(&c, doc->root, "the policy", top_fields, TG_ARRAY_SIZE(top_fields),
		     top_field, NULL);
	for (size_t i = 0; r == 0 && i < c.p->n_ft; i++)
		forced_publish(&c.p->ft[i]);
out:
	if (r < 0) {
		tg_policy_destroy(c.p);
		return r;
	}
	*out = c.p;
	return 0;
}
