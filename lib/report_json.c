/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-module JSON contract (documented in man/taintguard.1 and README):
 * field names and meanings are stable; new fields may be added.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "predict.h"

/* Printable ASCII other than '"' and '\\': copied as is. */
static bool json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

void tg_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	while (*p) {
		size_t run = 0;

		/* whole runs of plain characters at once: reports hold thousands of strings */
		while (json_plain(p[run]))
			run++;
		if (run) {
			fwrite(p, 1, run, out);
			p += run;
			continue;
		}
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		default:
			/* Module strings are untrusted bytes: escape controls and non-ASCII. */
			fprintf(out, "\\u%04x", *p);
		}
		p++;
	}
	fputc('"', out);
}

static void json_strings(FILE *out, char *const *v, size_t n)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", out);
		tg_json_string(out, v[i]);
	}
	fputc(']', out);
}

static void json_key(FILE *out, const char *key, bool first)
{
	fprintf(out, "%s\"%s\": ", first ? "" : ", ", key);
}

static void json_refusals(FILE *out, const struct tg_verdict *v)
{
	fputc('[', out);
	for (size_t i = 0; i < v->n_refusals; i++) {
		const struct tg_refusal *r = &v->refusals[i];

		fprintf(out, "%s{\"code\": ", i ? ", " : "");
		tg_json_string(out, r->code);
		fprintf(out, ", \"err\": %d, \"step\": %d, \"reason\": ", r->err, r->step);
		tg_json_string(out, r->reason);
		fputs(", \"remedy\": ", out);
		tg_json_string(out, r->remedy);
		fputs(", \"symbols\": ", out);
		json_strings(out, r->symbols, r->n_symbols);
		fputc('}', out);
	}
	fputc(']', out);
}

static void json_flags(FILE *out, const struct tg_verdict *v)
{
	fputc('[', out);
	for (size_t i = 0; i < v->n_flags; i++) {
		const struct tg_flag *f = &v->flags[i];
		char l[2] = { f->letter, 0 };

		fprintf(out, "%s{\"flag\": ", i ? ", " : "");
		tg_json_string(out, l);
		fprintf(out, ", \"scope\": \"%s\", \"reason\": ", f->module ? "module" : "kernel");
		tg_json_string(out, f->reason);
		fputs(", \"remedy\": ", out);
		tg_json_string(out, f->remedy);
		fputc('}', out);
	}
	fputc(']', out);
}

static void json_str_field(FILE *out, const char *key, const char *val, bool first)
{
	json_key(out, key, first);
	tg_json_string(out, val);
}

int tg_verdict_write_json(const struct tg_verdict *v, FILE *out)
{
	char t[32], mt[32];

	fputc('{', out);
	json_str_field(out, "path", v->path, true);
	if (v->package)
		json_str_field(out, "package", v->package, false);
	json_str_field(out, "module", v->module, false);
	json_str_field(out, "file_module", v->file_module, false);
	json_str_field(out, "license", v->license, false);
	json_str_field(out, "kernel", v->kernel, false);
	json_str_field(out, "error", v->error, false);
	json_key(out, "loads", false);
	fputs(v->error ? "null" : v->loads ? "true" : "false", out);
	json_str_field(out, "taint", tg_verdict_taint_string(v, v->taint_kernel, t, sizeof(t)), false);
	json_str_field(out, "module_taint", tg_verdict_taint_string(v, v->taint_module, mt, sizeof(mt)), false);
	json_key(out, "errno", false);
	fprintf(out, "%d", v->err);
	json_key(out, "refusal", false);
	json_refusals(out, v);
	json_key(out, "gpl_only_imports", false);
	json_strings(out, v->gpl_only_imports, v->n_gpl_only_imports);
	json_key(out, "gpl_only_known", false);
	fputs(v->gpl_only_known ? "true" : "false", out);
	json_key(out, "forced_taint", false);
	fputs(v->forced_taint ? "true" : "false", out);
	json_key(out, "advisory", false);
	fputs(v->advisory ? "true" : "false", out);
	json_key(out, "hidden", false);
	fputs(v->hidden ? "true" : "false", out);
	json_key(out, "incomplete", false);
	fputs(v->incomplete ? "true" : "false", out);
	json_key(out, "flags", false);
	json_flags(out, v);
	json_key(out, "notes", false);
	json_strings(out, v->notes, v->n_notes);
	json_str_field(out, "action", tg_action_name(v->action), false);
	json_str_field(out, "rule", v->rule, false);
	json_str_field(out, "justification", v->justification, false);
	json_key(out, "reasons", false);
	json_strings(out, v->reasons, v->n_reasons);
	json_str_field(out, "vermagic", v->vermagic, false);
	json_str_field(out, "depends", v->depends, false);
	json_str_field(out, "arch", v->arch, false);
	json_str_field(out, "compression", v->compression, false);
	json_key(out, "signed", false);
	fputs(v->signed_ ? "true" : "false", out);
	json_str_field(out, "signer", v->signer, false);
	json_str_field(out, "key_id", v->key_id, false);
	json_str_field(out, "signature", v->signature, false);
	json_str_field(out, "signature_detail", v->signature_detail, false);
	fputc('}', out);
	return ferror(out) ? -EIO : 0;
}
