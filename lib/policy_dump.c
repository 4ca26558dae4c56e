/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The effective policy printed as YAML (taintguard policy show). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "policy_internal.h"

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
		      const char *key, const struct strv *sv)
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
					     "advisory", "incomplete", "modprobe_refused" };
	const int vals[] = { w->error, w->refused, w->forced_taint, w->advisory,
			     w->incomplete, w->modprobe_refused };
	bool any = w->taint || w->module || w->package || w->kernels;

	for (size_t i = 0; i < TG_ARRAY_SIZE(vals); i++)
		any = any || vals[i] >= 0;
	fputs("    when:", out);
	for (size_t i = 0; i < TG_ARRAY_SIZE(names); i++)
		if (vals[i] >= 0)
			fprintf(out, "\n      %s: %s", names[i], vals[i] ? "true" : "false");
	if (w->taint) {
		fputs("\n      taint: \"", out);
		for (size_t i = 0; i < tg_policy_n_taint_letters; i++)
			if (w->taint & TG_TAINT_BIT(tg_policy_taint_letters[i].bit))
				fputc(tg_policy_taint_letters[i].letter, out);
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
		dump_kv(out, "    ", "file", e->file);
		dump_kv(out, "    ", "justification", e->justification);
	}
}

int tg_policy_dump(const struct tg_policy *p, FILE *out)
{
	p = tg_policy_or_builtin(p);
	if (!p)
		return -ENOMEM;
	fputs("# effective policy, from ", out);
	yq(out, p->source);
	fputs("\ntaintguard-policy: " TG_POLICY_VERSION "\n", out);
	dump_kernel(p, out);
	dump_strv(out, "", "  ", "trusted_keys", &p->keys);
	dump_strv(out, "", "  ", "trusted_certificates", &p->certpaths);
	dump_rules(p, out);
	fprintf(out, "default: %s\n", tg_action_name(p->def));
	fprintf(out, "guard:\n  action: %s\n", tg_action_name(p->guard_action));
	fprintf(out, "refuse_scope: %s\n", tg_refuse_scope_name(p->scope));
	dump_exceptions(p, out);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}
