/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy in memory, shared by the policy files of the library (not
 * installed):
 *
 *   policy.c          loading (file, memory), defaults for left-out sections, the
 *                     built-in policy object, tg_policy_free()
 *   policy_schema.c   the YAML tree checked against the schema, section by section;
 *                     the words of a policy file (actions, taint letters)
 *   policy_free.c     freeing a policy object's sections
 *   policy_builtin.c  the built-in policy's YAML bytes (the default policy compiled in)
 *   policy_query.c    the questions the predictor asks, and the rules' decision
 *   policy_dump.c     the effective policy printed as YAML
 */
#ifndef TG_POLICY_INTERNAL_H
#define TG_POLICY_INTERNAL_H

#include "internal.h"
#include "policy_yaml.h"

#define TG_POLICY_VERSION "1"

/* Taint letters a rule may test: the ones taintguard predicts, in bit order. */
struct tg_policy_taint_letter {
	char letter;
	int bit;
};
extern const struct tg_policy_taint_letter tg_policy_taint_letters[];
extern const size_t tg_policy_n_taint_letters;

struct lic_set {
	char *kernels;		/* NULL: any */
	struct strv strings;
};

struct forced {
	struct tg_forced_taint pub;	/* strings below point into it */
	char *name, *reason, *kernels;
};

struct advisory {
	struct strv names;
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
	int modprobe_refused;
};

struct rule {
	char *name;
	struct cond when;
	enum tg_action action;
};

struct exception {
	/* @file set: applies to guard findings only; else to modules only */
	char *name, *package, *module, *kernels, *file, *justification;
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
	struct strv keys;
	struct strv certpaths;	/* trusted_certificates: as written */
	struct tg_keyring *certs;	/* ... and read (NULL when none) */
	struct rule *rules;
	size_t n_rules, cap_rules;
	struct exception *exc;
	size_t n_exc, cap_exc;
	enum tg_action def;
	/* guard: what a package shipping a file that decides whether taintguard runs gets */
	enum tg_action guard_action;
	enum tg_refuse_scope scope;	/* refuse_scope: */
	/* sections present in the file; absent ones come from builtin_yaml */
	bool has_lic, has_ft, has_adv, has_keys, has_certs, has_rules, has_def, has_exc, has_guard,
	     has_scope;
};

/*
 * policy_schema.c: check @doc against the schema and build the policy with
 * the sections the document has (has_* say which); no defaults filled in.
 * Every complaint names LABEL:LINE:COLUMN.
 */
int tg_policy_from_doc(const struct tg_ydoc *doc, const char *label, struct tg_policy **out,
		       struct tg_error *err);

/* policy_free.c: free @p and everything it holds (NULL: nothing). */
void tg_policy_destroy(struct tg_policy *p);

/* policy_builtin.c: the built-in policy's YAML (kept equal to policy/default.yaml). */
extern const char tg_policy_builtin_yaml[];
extern const size_t tg_policy_builtin_yaml_len;

/* policy.c: the built-in policy object (tg_policy_builtin()). */
/* @p, or the built-in policy for NULL (NULL only when it cannot be built: ENOMEM). */
const struct tg_policy *tg_policy_or_builtin(const struct tg_policy *p);
/* Is @p the process-wide built-in object (never freed)? */
bool tg_policy_is_builtin(const struct tg_policy *p);

#endif
