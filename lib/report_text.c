/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Human-readable verdicts: the verdict first, then why, then what to do. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "predict.h"

static const char *headline(const struct tg_verdict *v)
{
	if (v->error)
		return "cannot be read";
	if (!v->loads)
		return "the kernel would refuse to load it";
	if (v->taint_kernel)
		return "loads and taints the kernel";
	return "loads cleanly";
}

static void print_symbols(FILE *out, const struct tg_refusal *r, bool verbose)
{
	size_t shown = verbose || r->n_symbols <= 8 ? r->n_symbols : 8;

	if (!r->n_symbols)
		return;
	fputs(" (", out);
	for (size_t i = 0; i < shown; i++)
		fprintf(out, "%s%s", i ? ", " : "", r->symbols[i]);
	if (shown < r->n_symbols)
		fprintf(out, ", ... %zu more", r->n_symbols - shown);
	fputc(')', out);
}

static void print_details(const struct tg_verdict *v, FILE *out, bool verbose)
{
	for (size_t i = 0; i < v->n_refusals; i++) {
		const struct tg_refusal *r = &v->refusals[i];

		fprintf(out, "  refused: %s", r->reason);
		print_symbols(out, r, verbose);
		fputc('\n', out);
		if (r->remedy)
			fprintf(out, "    remedy: %s\n", r->remedy);
	}
	for (size_t i = 0; i < v->n_flags; i++) {
		const struct tg_flag *f = &v->flags[i];

		fprintf(out, "  %c: %s\n", f->letter, f->reason);
		if (f->remedy && verbose)
			fprintf(out, "    remedy: %s\n", f->remedy);
	}
	if (v->n_gpl_only_imports && verbose) {
		fputs("  GPL-only imports:", out);
		for (size_t i = 0; i < v->n_gpl_only_imports; i++)
			fprintf(out, " %s", v->gpl_only_imports[i]);
		fputc('\n', out);
	} else if (!v->gpl_only_known && !v->n_refusals) {	/* refused early: never looked */
		fputs("  GPL-only imports: unknown (no export table for the target kernel)\n", out);
	}
	/* otherwise the refusal, the E flag or a note already says it */
	if (v->signature_detail && verbose)
		fprintf(out, "  signature %s: %s\n", v->signature, v->signature_detail);
	for (size_t i = 0; i < v->n_notes; i++)
		fprintf(out, "  note: %s\n", v->notes[i]);
}

int tg_verdict_write_text(const struct tg_verdict *v, FILE *out, bool verbose)
{
	char t[32], mt[32];

	fprintf(out, "%s: %s: %s", v->path ? v->path : "?", tg_action_name(v->action), headline(v));
	if (v->taint_kernel)
		fprintf(out, ", taint %s", tg_verdict_taint_string(v, v->taint_kernel, t, sizeof(t)));
	fputc('\n', out);
	if (v->error) {
		fprintf(out, "  error: %s\n", v->error);
	} else {
		fprintf(out, "  module %s, license %s%s%s, kernel %s", v->module ? v->module : "?",
			v->license ? "'" : "", v->license ? v->license : "none",
			v->license ? "'" : "", v->kernel ? v->kernel : "unknown");
		if (v->loads)
			fprintf(out, ", module taint %s",
				v->taint_module ? tg_verdict_taint_string(v, v->taint_module, mt, sizeof(mt)) : "none");
		fputc('\n', out);
		print_details(v, out, verbose);
	}
	fprintf(out, "  policy: %s -> %s", v->rule ? v->rule : "?", tg_action_name(v->action));
	if (v->justification)
		fprintf(out, " (%s)", v->justification);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}
