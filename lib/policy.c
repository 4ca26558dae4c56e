/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Policy: what the kernel's module loader is known to do by name or licence
 * string (the "kernel:" mirror used for prediction), which signing keys the
 * target trusts, and the site's rules (allow | mark | deny).
 *
 * The YAML tree comes from policy_yaml.c; this file checks it against the
 * schema (documented in policy/README.md and taintguard-policy(5)) and
 * answers the questions the predictor asks.  Every complaint names
 * FILE:LINE:COLUMN of the offending node.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "policy_yaml.h"

#ifndef TG_DATADIR
#define TG_DATADIR "/usr/local/share/taintguard"
#endif
#ifndef TG_SYSCONFDIR
#define TG_SYSCONFDIR "/etc/taintguard"
#endif

#define POLICY_VERSION "1"

/*
 * Built-in kernel knowledge and rules: what a policy file gets for every
 * section it leaves out, and what a NULL policy means.  Kept equal to
 * policy/default.yaml (the unit test compares the two dumps).
 */
static const char builtin_yaml[] =
	"taintguard-policy: 1\n"
	"kernel:\n"
	"  gpl_compatible_licenses:\n"
	"    - kernels: \">= 2.6.0\"\n"
	"      strings: [\"GPL\", \"GPL v2\", \"GPL and additional rights\",\n"
	"                \"Dual BSD/GPL\", \"Dual MIT/GPL\", \"Dual MPL/GPL\"]\n"
	"  forced_taint:\n"
	"    - name: ndiswrapper\n"
	"      flag: P\n"
	"      scope: kernel\n"
	"      kernels: \">= 2.6.16\"\n"
	"      reason: \"ndiswrapper is under GPL by itself, but loads proprietary modules\"\n"
	"    - name: driverloader\n"
	"      flag: P\n"
	"      scope: module\n"
	"      kernels: \">= 2.6.16\"\n"
	"      reason: \"driverloader was caught wrongly pretending to be under GPL\"\n"
	"    - name: lve\n"
	"      flag: P\n"
	"      scope: module\n"
	"      kernels: \">= 3.5\"\n"
	"      reason: \"lve claims to be GPL but upstream won't provide source\"\n"
	"  advisory:\n"
	"    - names: [gxtp7380, ite_8291, ite_8291_lb, ite_8297, ite_829x, stk8321,\n"
	"              tuxedo_compatibility_check, tuxedo_io, tuxedo_nb02_nvidia_power_ctrl,\n"
	"              tuxedo_nb04_keyboard, tuxedo_nb04_wmi_ab, tuxedo_nb04_wmi_bs,\n"
	"              tuxedo_nb04_sensors, tuxedo_nb04_power_profiles,\n"
	"              tuxedo_nb04_kbd_backlight, tuxedo_nb05_keyboard,\n"
	"              tuxedo_nb05_kbd_backlight, tuxedo_nb05_power_profiles,\n"
	"              tuxedo_nb05_ec, tuxedo_nb05_sensors, tuxedo_nb05_fan_control,\n"
	"              tuxi_acpi, tuxedo_tuxi_fan_control, clevo_wmi, tuxedo_keyboard,\n"
	"              clevo_acpi, uniwill_wmi]\n"
	"      status: resolved\n"
	"      flag: P\n"
	"      scope: module\n"
	"      reason: \"proposed for module_license_offenders[] in 2024-11 (GPLv3 code declared as GPL); never merged, TUXEDO relicensed\"\n"
	"trusted_keys: []\n"
	"trusted_certificates: []\n"
	"rules:\n"
	"  - name: unreadable\n"
	"    when: {error: true}\n"
	"    action: deny\n"
	"  - name: refused-by-kernel\n"
	"    when: {refused: true}\n"
	"    action: deny\n"
	"  - name: forced-taint-list\n"
	"    when: {forced_taint: true}\n"
	"    action: deny\n"
	"  - name: proprietary\n"
	"    when: {taint: P}\n"
	"    action: mark\n"
	"  - name: incomplete-check\n"
	"    when: {incomplete: true}\n"
	"    action: mark\n"
	"default: allow\n"
	"exceptions: []\n";

/* Taint letters a rule may test: the ones taintguard predicts. */
static const struct {
	char letter;
	int bit;
} taint_letters[] = {
	{ 'P', TG_TAINT_PROPRIETARY }, { 'F', TG_TAINT_FORCED_MODULE },
	{ 'C', TG_TAINT_CRAP }, { 'O', TG_TAINT_OOT }, { 'E', TG_TAINT_UNSIGNED },
	{ 'K', TG_TAINT_LIVEPATCH }, { 'N', TG_TAINT_TEST },
};

struct lic_set {
	char *kernels;		/* NULL: any */
	struct tg_strv strings;
};

struct forced {
	struct tg_forced_taint pub;	/* strings below point into it */
	char *name, *reason, *kernels;
};

struct advisory {
	struct tg_strv names;
	char *status, *reason, *kernels;
	char flag;
	bool module_scope;
	struct tg_forced_taint *pubs;	/* one per name, for tg_policy_forced_taint */
};

/* A "when:" block; -1 = condition not given. */
struct cond {
	int error, refused, forced_taint, advisory, incomplete;
	unsigned taint;
	char *module, *package, *kernels;
};

struct rule {
	char *name;
	struct cond when;
	enum tg_action action;
};

struct exception {
	char *name, *package, *module, *kernels, *justification;
	char *label;		/* "exception:..." for tg_decision.rule */
	enum tg_action action;
};

struct tg_policy {
	char *source;
	struct lic_set *lic;
	size_t n_lic, cap_lic;
	struct forced *ft;
	size_t n_ft, cap_ft;
	struct advisory *adv;
	size_t n_adv, cap_adv;
	struct tg_strv keys;
	struct tg_strv certpaths;	/* trusted_certificates: as written */
	struct tg_keyring *certs;	/* ... and read (NULL when none) */
	struct rule *rules;
	size_t n_rules, cap_rules;
	struct exception *exc;
	size_t n_exc, cap_exc;
	enum tg_action def;
	/* sections present in the file; absent ones come from builtin_yaml */
	bool has_lic, has_ft, has_adv, has_keys, has_certs, has_rules, has_def, has_exc;
};

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
	for (size_t i = 0; i < TG_ARRAY_SIZE(taint_letters); i++)
		if (taint_letters[i].letter == l)
			return taint_letters[i].bit;
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
		       struct tg_strv *out)
{
	int r = want_kind(c, n, TG_Y_SEQ, what);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n->n; i++) {
		const char *s;

		r = get_str(c, n->kids[i], what, &s);
		if (r < 0)
			return r;
		if (tg_strv_push(out, s) < 0)
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
	(tg_grow(&(arr), &(cap), (n), sizeof(*(arr))) < 0 ? oom(c)             \
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
       W_MODULE, W_PACKAGE, W_KERNELS };
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

	if (!strcmp(name, "default") || !strncmp(name, "exception:", 10))
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
		ru->when = (struct cond){ -1, -1, -1, -1, -1, 0, NULL, NULL, NULL };
		r = walk_map(c, v->kids[i], "a rule", rule_fields,
			     TG_ARRAY_SIZE(rule_fields), rule_field, ru);
		if (r == 0)
			r = rule_name_check(c, v->kids[i]);
	}
	p->has_rules = true;
	return r;
}

/* -------------------------------------------------------- exceptions: */

enum { E_NAME, E_PACKAGE, E_MODULE, E_KERNELS, E_ACTION, E_JUSTIFICATION };
static const struct field exc_fields[] = {
	[E_NAME] = { "name", false },
	[E_PACKAGE] = { "package", false },
	[E_MODULE] = { "module", false },
	[E_KERNELS] = { "kernels", false },
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
		if (!e->package && !e->module)
			r = fail_at(c, v->kids[i], "an exception needs 'package' or 'module'");
		else if (e->name)
			e->label = tg_asprintf("exception:%s", e->name);
		else if (e->module)
			e->label = tg_asprintf("exception:%s", e->module);
		else
			e->label = tg_asprintf("exception:%zu", i + 1);
		if (r == 0 && !e->label)
			r = oom(c);
	}
	p->has_exc = true;
	return r;
}

/* ---------------------------------------------------------- top level */

enum { T_VERSION, T_KERNEL, T_KEYS, T_CERTS, T_RULES, T_DEFAULT, T_EXCEPTIONS };
static const struct field top_fields[] = {
	[T_VERSION] = { "taintguard-policy", true },
	[T_KERNEL] = { "kernel", false },
	[T_KEYS] = { "trusted_keys", false },
	[T_CERTS] = { "trusted_certificates", false },
	[T_RULES] = { "rules", false },
	[T_DEFAULT] = { "default", false },
	[T_EXCEPTIONS] = { "exceptions", false },
};

static int top_field(struct ctx *c, size_t key, const struct tg_ynode *v, void *obj)
{
	switch (key) {
	case T_VERSION:
		if (v->kind != TG_Y_SCALAR || !v->plain || strcmp(v->str, POLICY_VERSION))
			return fail_at(c, v, "unsupported policy version '%s' (expected %s)",
				       v->kind == TG_Y_SCALAR ? v->str : kind_name(v),
				       POLICY_VERSION);
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
	default:
		return parse_exceptions(c, v);
	}
}

/* ------------------------------------------------------- load and free */

static void cond_free(struct cond *w)
{
	free(w->module);
	free(w->package);
	free(w->kernels);
}

static void free_lic(struct tg_policy *p)
{
	for (size_t i = 0; i < p->n_lic; i++) {
		free(p->lic[i].kernels);
		tg_strv_free(&p->lic[i].strings);
	}
	free(p->lic);
}

static void free_ft(struct tg_policy *p)
{
	for (size_t i = 0; i < p->n_ft; i++) {
		free(p->ft[i].name);
		free(p->ft[i].reason);
		free(p->ft[i].kernels);
	}
	free(p->ft);
}

static void free_adv(struct tg_policy *p)
{
	for (size_t i = 0; i < p->n_adv; i++) {
		tg_strv_free(&p->adv[i].names);
		free(p->adv[i].status);
		free(p->adv[i].reason);
		free(p->adv[i].kernels);
		free(p->adv[i].pubs);
	}
	free(p->adv);
}

static void free_rules(struct tg_policy *p)
{
	for (size_t i = 0; i < p->n_rules; i++) {
		free(p->rules[i].name);
		cond_free(&p->rules[i].when);
	}
	free(p->rules);
}

static void free_exc(struct tg_policy *p)
{
	for (size_t i = 0; i < p->n_exc; i++) {
		struct exception *e = &p->exc[i];

		free(e->name);
		free(e->package);
		free(e->module);
		free(e->kernels);
		free(e->justification);
		free(e->label);
	}
	free(p->exc);
}

void tg_policy_free(struct tg_policy *p)
{
	if (!p)
		return;
	free_lic(p);
	free_ft(p);
	free_adv(p);
	tg_strv_free(&p->keys);
	tg_strv_free(&p->certpaths);
	tg_keyring_free(p->certs);
	free_rules(p);
	free_exc(p);
	free(p->source);
	free(p);
}

/* Move section @field (array + counters) from @from to @to. */
#define TAKE(to, from, arr, n, cap)                                            \
	do {                                                                   \
		(to)->arr = (from)->arr; (to)->n = (from)->n; (to)->cap = (from)->cap; \
		(from)->arr = NULL; (from)->n = (from)->cap = 0;               \
	} while (0)

/* Sections the file left out are taken from the built-in policy. */
static void take_missing(struct tg_policy *p, struct tg_policy *b)
{
	if (!p->has_lic)
		TAKE(p, b, lic, n_lic, cap_lic);
	if (!p->has_ft)
		TAKE(p, b, ft, n_ft, cap_ft);
	if (!p->has_adv)
		TAKE(p, b, adv, n_adv, cap_adv);
	if (!p->has_keys) {
		p->keys = b->keys;
		b->keys = (struct tg_strv){ NULL, 0, 0 };
	}
	if (!p->has_certs) {	/* the built-in list is empty */
		p->certpaths = b->certpaths;
		b->certpaths = (struct tg_strv){ NULL, 0, 0 };
	}
	if (!p->has_rules)
		TAKE(p, b, rules, n_rules, cap_rules);
	if (!p->has_exc)
		TAKE(p, b, exc, n_exc, cap_exc);
	if (!p->has_def)
		p->def = b->def;
}

static int policy_parse(const void *data, size_t len, const char *label,
			const struct tg_limits *lim, bool builtin,
			struct tg_policy **out, struct tg_error *err);

static int fill_defaults(struct tg_policy *p, struct tg_error *err)
{
	struct tg_policy *b = NULL;
	struct tg_limits lim;
	int r;

	if (p->has_lic && p->has_ft && p->has_adv && p->has_keys && p->has_certs && p->has_rules &&
	    p->has_def && p->has_exc)
		return 0;
	tg_limits_default(&lim);
	r = policy_parse(builtin_yaml, sizeof(builtin_yaml) - 1, "<built-in policy>",
			 &lim, true, &b, err);
	if (r < 0)
		return r;
	take_missing(p, b);
	tg_policy_free(b);
	return 0;
}

static int policy_parse(const void *data, size_t len, const char *label,
			const struct tg_limits *lim, bool builtin,
			struct tg_policy **out, struct tg_error *err)
{
	struct tg_ydoc doc;
	struct ctx c = { .label = label, .err = err };
	int r;

	*out = NULL;
	if ((uint64_t)len > lim->max_policy_size)
		return tg_fail(err, -EFBIG, "%s: policy is %zu bytes, larger than the limit of %llu",
			       label, len, (unsigned long long)lim->max_policy_size);
	r = tg_ydoc_parse(&doc, data, len, label, lim->max_policy_depth, err);
	if (r < 0)
		return r;
	c.p = calloc(1, sizeof(*c.p));
	if (!c.p || !(c.p->source = strdup(label))) {
		r = oom(&c);
		goto out;
	}
	c.p->def = TG_ACTION_ALLOW;
	r = walk_map(&c, doc.root, "the policy", top_fields, TG_ARRAY_SIZE(top_fields),
		     top_field, NULL);
	for (size_t i = 0; r == 0 && i < c.p->n_ft; i++)
		forced_publish(&c.p->ft[i]);
	if (r == 0 && !builtin)
		r = fill_defaults(c.p, err);
out:
	tg_ydoc_free(&doc);
	if (r < 0) {
		tg_policy_free(c.p);
		return r;
	}
	*out = c.p;
	return 0;
}

int tg_policy_load_mem(const void *data, size_t len, const char *label,
		       const struct tg_limits *lim, struct tg_policy **out,
		       struct tg_error *err)
{
	struct tg_limits def;

	if (!lim) {
		tg_limits_default(&def);
		lim = &def;
	}
	return policy_parse(data, len, label ? label : "<policy>", lim, false, out, err);
}

int tg_policy_load_path(const char *path, const struct tg_limits *lim,
			struct tg_policy **out, struct tg_error *err)
{
	struct tg_limits def;
	void *buf;
	size_t len;
	int r, fd;

	*out = NULL;
	if (!lim) {
		tg_limits_default(&def);
		lim = &def;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tg_fail(err, -errno, "%s: %s", path, strerror(errno));
	/* checked on the open file: what is trusted is what is read */
	r = tg_policy_trust_check(fd, path, err);
	if (r == 0)
		r = tg_read_fd(fd, path, lim->max_policy_size, &buf, &len, err);
	close(fd);
	if (r < 0)
		return r;
	r = policy_parse(buf, len, path, lim, false, out, err);
	free(buf);
	return r;
}

/*
 * A NULL policy means the built-in one.  Parsed once and kept for the life
 * of the process; pthread_once keeps this safe for threaded callers.
 */
static struct tg_policy *builtin_policy;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void builtin_init(void)
{
	if (tg_policy_load_mem(builtin_yaml, sizeof(builtin_yaml) - 1, "<built-in policy>",
			       NULL, &builtin_policy, NULL) < 0)
		builtin_policy = NULL;
}

static const struct tg_policy *or_builtin(const struct tg_policy *p)
{
	if (p)
		return p;
	pthread_once(&builtin_once, builtin_init);
	return builtin_policy;
}

/* ------------------------------------------------------------ queries */

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

const char *tg_policy_source(const struct tg_policy *p)
{
	return p ? p->source : "<built-in policy>";
}

const char *tg_policy_default_path(void)
{
	static const char site[] = TG_SYSCONFDIR "/policy.yaml";

	if (access(site, F_OK) == 0)
		return site;
	return TG_DATADIR "/default.yaml";
}

/* include/linux/license.h license_is_gpl_compatible(): strcmp, nothing more. */
bool tg_policy_license_gpl_compatible(const struct tg_policy *p, unsigned kversion,
				      const char *license)
{
	p = or_builtin(p);
	if (!p || !license)
		return false;
	for (size_t i = 0; i < p->n_lic; i++) {
		const struct lic_set *l = &p->lic[i];

		if (!tg_version_in_range(kversion, l->kernels))
			continue;
		for (size_t j = 0; j < l->strings.n; j++)
			if (!strcmp(l->strings.v[j], license))
				return true;
	}
	return false;
}

/* The kernel compares mod->name with strcmp: exact and case-sensitive. */
const struct tg_forced_taint *tg_policy_forced_taint(const struct tg_policy *p,
						     unsigned kversion,
						     const char *name)
{
	p = or_builtin(p);
	if (!p || !name)
		return NULL;
	for (size_t i = 0; i < p->n_ft; i++)
		if (!strcmp(p->ft[i].name, name) &&
		    tg_version_in_range(kversion, p->ft[i].kernels))
			return &p->ft[i].pub;
	for (size_t i = 0; i < p->n_adv; i++) {
		const struct advisory *a = &p->adv[i];

		if (!tg_version_in_range(kversion, a->kernels))
			continue;
		for (size_t j = 0; j < a->names.n; j++)
			if (!strcmp(a->names.v[j], name))
				return &a->pubs[j];
	}
	return NULL;
}

size_t tg_policy_forced_taint_list(const struct tg_policy *p, unsigned kversion,
				   const struct tg_forced_taint **out, size_t max)
{
	size_t n = 0;

	p = or_builtin(p);
	for (size_t i = 0; p && i < p->n_ft; i++)
		if (tg_version_in_range(kversion, p->ft[i].kernels)) {
			if (n < max)
				out[n] = &p->ft[i].pub;
			n++;
		}
	return n;
}

size_t tg_policy_license_list(const struct tg_policy *p, unsigned kversion,
			      const char **out, size_t max)
{
	size_t n = 0;

	p = or_builtin(p);
	for (size_t i = 0; p && i < p->n_lic; i++) {
		if (!tg_version_in_range(kversion, p->lic[i].kernels))
			continue;
		for (size_t j = 0; j < p->lic[i].strings.n; j++) {
			if (n < max)
				out[n] = p->lic[i].strings.v[j];
			n++;
		}
	}
	return n;
}

size_t tg_policy_trusted_keys(const struct tg_policy *p, const char *const **keys)
{
	p = or_builtin(p);
	if (!p || !p->keys.n) {
		if (keys)
			*keys = NULL;
		return 0;
	}
	if (keys)
		*keys = (const char *const *)p->keys.v;
	return p->keys.n;
}

const struct tg_keyring *tg_policy_trusted_certificates(const struct tg_policy *p)
{
	p = or_builtin(p);
	return p ? p->certs : NULL;
}

static bool bool_match(int want, bool have)
{
	return want < 0 || (bool)want == have;
}

static bool cond_match(const struct cond *w, const struct tg_facts *f)
{
	if (!bool_match(w->error, f->error) || !bool_match(w->refused, f->refused) ||
	    !bool_match(w->forced_taint, f->forced_taint) ||
	    !bool_match(w->advisory, f->advisory) ||
	    !bool_match(w->incomplete, f->incomplete))
		return false;
	if (w->taint && !(w->taint & f->taint))
		return false;
	if (w->module && !tg_glob_match(w->module, f->module))
		return false;
	if (w->package && !tg_glob_match(w->package, f->package))
		return false;
	return !w->kernels || tg_version_in_range(f->kversion, w->kernels);
}

static bool exception_match(const struct exception *e, const struct tg_facts *f)
{
	if (e->module && !tg_glob_match(e->module, f->module))
		return false;
	if (e->package && !tg_glob_match(e->package, f->package))
		return false;
	return !e->kernels || tg_version_in_range(f->kversion, e->kernels);
}

void tg_policy_decide(const struct tg_policy *p, const struct tg_facts *f,
		      struct tg_decision *d)
{
	p = or_builtin(p);
	d->justification = NULL;
	if (!p) {
		/* built-in policy unavailable (out of memory): fail closed */
		d->action = TG_ACTION_DENY;
		d->rule = "default";
		return;
	}
	for (size_t i = 0; i < p->n_exc; i++)
		if (exception_match(&p->exc[i], f)) {
			d->action = p->exc[i].action;
			d->rule = p->exc[i].label;
			d->justification = p->exc[i].justification;
			return;
		}
	for (size_t i = 0; i < p->n_rules; i++)
		if (cond_match(&p->rules[i].when, f)) {
			d->action = p->rules[i].action;
			d->rule = p->rules[i].name;
			return;
		}
	d->action = p->def;
	d->rule = "default";
}

/* --------------------------------------------------------------- dump */

/* Double-quoted YAML scalar: always safe, whatever the text looks like. */
static void yq(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
		if (*u == '"' || *u == '\\')
			fprintf(out, "\\%c", *u);
		else if (*u < 0x20 || *u == 0x7f)
			fprintf(out, "\\x%02x", *u);
		else
			fputc(*u, out);
	}
	fputc('"', out);
}

static void dump_kv(FILE *out, const char *indent, const char *key, const char *val)
{
	if (!val)
		return;
	fprintf(out, "%s%s: ", indent, key);
	yq(out, val);
	fputc('\n', out);
}

/* "KEY:" after @first, then one "- item" line per string at @indent. */
static void dump_strv(FILE *out, const char *first, const char *indent,
		      const char *key, const struct tg_strv *sv)
{
	fprintf(out, "%s%s:%s\n", first, key, sv->n ? "" : " []");
	for (size_t i = 0; i < sv->n; i++) {
		fprintf(out, "%s- ", indent);
		yq(out, sv->v[i]);
		fputc('\n', out);
	}
}

static void dump_kernel(const struct tg_policy *p, FILE *out)
{
	fputs("kernel:\n", out);
	fprintf(out, "  gpl_compatible_licenses:%s\n", p->n_lic ? "" : " []");
	for (size_t i = 0; i < p->n_lic; i++) {
		dump_strv(out, "    - ", "        ", "strings", &p->lic[i].strings);
		dump_kv(out, "      ", "kernels", p->lic[i].kernels);
	}
	fprintf(out, "  forced_taint:%s\n", p->n_ft ? "" : " []");
	for (size_t i = 0; i < p->n_ft; i++) {
		const struct forced *f = &p->ft[i];

		dump_kv(out, "    - ", "name", f->name);
		fprintf(out, "      flag: %c\n", f->pub.flag);
		fprintf(out, "      scope: %s\n", f->pub.module_scope ? "module" : "kernel");
		dump_kv(out, "      ", "kernels", f->kernels);
		dump_kv(out, "      ", "reason", f->reason);
	}
	fprintf(out, "  advisory:%s\n", p->n_adv ? "" : " []");
	for (size_t i = 0; i < p->n_adv; i++) {
		const struct advisory *a = &p->adv[i];

		dump_strv(out, "    - ", "        ", "names", &a->names);
		dump_kv(out, "      ", "status", a->status);
		fprintf(out, "      flag: %c\n", a->flag);
		fprintf(out, "      scope: %s\n", a->module_scope ? "module" : "kernel");
		dump_kv(out, "      ", "kernels", a->kernels);
		dump_kv(out, "      ", "reason", a->reason);
	}
}

static void dump_when(const struct cond *w, FILE *out)
{
	static const char *const names[] = { "error", "refused", "forced_taint",
					     "advisory", "incomplete" };
	const int vals[] = { w->error, w->refused, w->forced_taint, w->advisory,
			     w->incomplete };
	bool any = w->taint || w->module || w->package || w->kernels;

	for (size_t i = 0; i < TG_ARRAY_SIZE(vals); i++)
		any = any || vals[i] >= 0;
	fputs("    when:", out);
	for (size_t i = 0; i < TG_ARRAY_SIZE(names); i++)
		if (vals[i] >= 0)
			fprintf(out, "\n      %s: %s", names[i], vals[i] ? "true" : "false");
	if (w->taint) {
		fputs("\n      taint: \"", out);
		for (size_t i = 0; i < TG_ARRAY_SIZE(taint_letters); i++)
			if (w->taint & TG_TAINT_BIT(taint_letters[i].bit))
				fputc(taint_letters[i].letter, out);
		fputc('"', out);
	}
	fputs(any ? "\n" : " {}\n", out);
	dump_kv(out, "      ", "module", w->module);
	dump_kv(out, "      ", "package", w->package);
	dump_kv(out, "      ", "kernels", w->kernels);
}

static void dump_rules(const struct tg_policy *p, FILE *out)
{
	fprintf(out, "rules:%s\n", p->n_rules ? "" : " []");
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct rule *ru = &p->rules[i];

		dump_kv(out, "  - ", "name", ru->name);
		dump_when(&ru->when, out);
		fprintf(out, "    action: %s\n", tg_action_name(ru->action));
	}
}

static void dump_exceptions(const struct tg_policy *p, FILE *out)
{
	fprintf(out, "exceptions:%s\n", p->n_exc ? "" : " []");
	for (size_t i = 0; i < p->n_exc; i++) {
		const struct exception *e = &p->exc[i];

		fprintf(out, "  - action: %s\n", tg_action_name(e->action));
		dump_kv(out, "    ", "name", e->name);
		dump_kv(out, "    ", "package", e->package);
		dump_kv(out, "    ", "module", e->module);
		dump_kv(out, "    ", "kernels", e->kernels);
		dump_kv(out, "    ", "justification", e->justification);
	}
}

int tg_policy_dump(const struct tg_policy *p, FILE *out)
{
	p = or_builtin(p);
	if (!p)
		return -ENOMEM;
	fputs("# effective policy, from ", out);
	yq(out, p->source);
	fputs("\ntaintguard-policy: " POLICY_VERSION "\n", out);
	dump_kernel(p, out);
	dump_strv(out, "", "  ", "trusted_keys", &p->keys);
	dump_strv(out, "", "  ", "trusted_certificates", &p->certpaths);
	dump_rules(p, out);
	fprintf(out, "default: %s\n", tg_action_name(p->def));
	dump_exceptions(p, out);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}
