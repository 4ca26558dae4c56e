/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Freeing a policy object, section by section: for the schema's builder
 * (a policy it cannot finish) and for tg_policy_free() (which spares the
 * built-in object).
 */
#include "policy_internal.h"

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
		strv_free(&p->lic[i].strings);
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
		strv_free(&p->adv[i].names);
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
		free(e->file);
		free(e->justification);
		free(e->label);
	}
	free(p->exc);
}

void tg_policy_destroy(struct tg_policy *p)
{
	if (!p)
		return;
	free_lic(p);
	free_ft(p);
	free_adv(p);
	strv_free(&p->keys);
	strv_free(&p->certpaths);
	tg_keyring_free(p->certs);
	free_rules(p);
	free_exc(p);
	free(p->source);
	free(p);
}
