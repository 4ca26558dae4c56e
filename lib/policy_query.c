/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The questions the predictor asks a policy, and the rules' decision. */
#include <string.h>
#include <unistd.h>

#include "policy_internal.h"
#include "paths.h"

const char *tg_policy_source(const struct tg_policy *p)
{
	return p ? p->source : "<built-in policy>";
}

enum tg_refuse_scope tg_policy_refuse_scope(const struct tg_policy *p)
{
	return p ? p->scope : TG_SCOPE_PACKAGE;
}

const char *tg_refuse_scope_name(enum tg_refuse_scope s)
{
	return s == TG_SCOPE_TRANSACTION ? "transaction" : "package";
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
	p = tg_policy_or_builtin(p);
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
	p = tg_policy_or_builtin(p);
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

	p = tg_policy_or_builtin(p);
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

	p = tg_policy_or_builtin(p);
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
	p = tg_policy_or_builtin(p);
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
	p = tg_policy_or_builtin(p);
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
	    !bool_match(w->incomplete, f->incomplete) ||
	    !bool_match(w->modprobe_refused, f->modprobe_refused))
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
	if (e->file)
		return false;	/* for guard findings (tg_policy_decide_file) */
	if (e->module && !tg_glob_match(e->module, f->module))
		return false;
	if (e->package && !tg_glob_match(e->package, f->package))
		return false;
	return !e->kernels || tg_version_in_range(f->kversion, e->kernels);
}

void tg_policy_decide(const struct tg_policy *p, const struct tg_facts *f,
		      struct tg_decision *d)
{
	p = tg_policy_or_builtin(p);
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

void tg_policy_decide_file(const struct tg_policy *p, const char *package, const char *path,
			   struct tg_decision *d)
{
	p = tg_policy_or_builtin(p);
	d->justification = NULL;
	d->rule = "guard";
	if (!p) {
		d->action = TG_ACTION_DENY;	/* out of memory: fail closed */
		return;
	}
	/* only exceptions naming a file: one written for a module never lets a package tamper */
	for (size_t i = 0; i < p->n_exc; i++) {
		const struct exception *e = &p->exc[i];

		if (!e->file || !tg_glob_match(e->file, path) ||
		    (e->package && !tg_glob_match(e->package, package)))
			continue;
		d->action = e->action;
		d->rule = e->label;
		d->justification = e->justification;
		return;
	}
	d->action = p->guard_action;
}
