/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* From a prediction to the policy's action, with reasons a sysadmin reads. */
#include <errno.h>
#include <string.h>

#include "predict.h"

static void fill_facts(const struct tg_verdict *v, const struct tg_kernel *k,
		       struct tg_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->package = v->package;
	f->module = v->module;
	f->kversion = k ? k->version : 0;
	f->error = v->error != NULL;
	f->refused = !v->error && !v->loads;
	f->forced_taint = v->forced_taint;
	f->incomplete = v->incomplete;
	f->taint = v->taint_kernel | v->taint_module;
	f->advisory = v->advisory;
	f->modprobe_refused = v->modprobe_refused;
}

static int explain(struct tg_verdict *v)
{
	char letters[32];
	int r = 0;

	if (v->error)
		return tg_verdict_add_reason(v, "could not be read: %s", v->error);
	for (size_t i = 0; i < v->n_refusals && r == 0; i++) {
		const struct tg_refusal *rf = &v->refusals[i];

		if (rf->n_symbols)
			r = tg_verdict_add_reason(v, "refused: %s: %s%s", rf->reason, rf->symbols[0],
						  rf->n_symbols > 1 ? " ..." : "");
		else
			r = tg_verdict_add_reason(v, "refused: %s", rf->reason);
	}
	/* what could not be checked comes before the flags: it is why "mark" is not "allow" */
	for (size_t i = 0; v->incomplete && i < v->n_notes && r == 0; i++)
		if (strstr(v->notes[i], "unknown"))
			r = tg_verdict_add_reason(v, "not fully checked: %s", v->notes[i]);
	for (size_t i = 0; i < v->n_flags && r == 0; i++)
		r = tg_verdict_add_reason(v, "%c: %s", v->flags[i].letter, v->flags[i].reason);
	if (r == 0 && !v->loads && v->taint_kernel)
		r = tg_verdict_add_reason(v, "the kernel is tainted %s even though it refuses the module",
					  tg_verdict_taint_string(v, v->taint_kernel, letters, sizeof(letters)));
	/* last: the first reason stays the deciding one; records and JUnit keep where it lives */
	if (r == 0 && v->hidden)
		r = tg_verdict_add_reason(v, "hidden: installed as %s, outside the module directories: "
					  "modprobe never finds it, only an explicit insmod of that "
					  "path loads it", v->path);
	return r;
}

int tg_verdict_decide(struct tg_verdict *v, const struct tg_policy *p,
		      const struct tg_kernel *k)
{
	struct tg_facts f;
	struct tg_decision d = { TG_ACTION_DENY, "no-policy", NULL };
	int r;

	fill_facts(v, k, &f);
	if (p)
		tg_policy_decide(p, &f, &d);
	v->action = d.action;
	v->rule = tg_strdup0(d.rule);
	v->justification = tg_strdup0(d.justification);
	if ((d.rule && !v->rule) || (d.justification && !v->justification))
		return -ENOMEM;
	r = explain(v);
	if (r == 0 && d.justification)
		r = tg_verdict_add_reason(v, "policy exception: %s", d.justification);
	return r;
}
