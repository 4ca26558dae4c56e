/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: reports.  Text, JSON, JUnit XML, SARIF 2.1.0 and the
 * dnf excludepkgs line.  Everything is printed from sorted data: packages by
 * NEVRA (then file), modules by path; unowned modules last.  Only packages
 * that carry modules (or could not be read) are listed; packages without
 * modules are counted as skipped.
 *
 * JSON ("format": "audit/1"):
 *   {"taintguard": VERSION, "format": "audit/1",
 *    "packages": [{
 *       "package": NAME|null (null: unowned modules), "nevra", "file" (.rpm or null),
 *       "url": where its repository keeps it (remote repositories) or null,
 *       "checksum": "TYPE:HEX" from repository metadata (verified when read) or null,
 *       "owned": bool, "installed": bool, "license_tag": RPM License:,
 *       "action": allow|mark|deny (worst module), "status": action or "error",
 *       "error": package-level error or null (header digest, payload corruption, ...),
 *       "taint": union of the modules' kernel taint letters, "refused": N,
 *       "deny": N, "mark": N,
 *       "signature": {"status": ok|nokey|nottrusted|unsigned|bad|installed|unknown,
 *                     "info": "RSA/SHA256, DATE, Key ID ..."|null},
 *       "targets": [{"kernel": KVER|null, "symvers": LABEL|null,
 *                    "symvers_source": package|host|option|null,
 *                    "config": the kernel .config used ("NEVRA:/path" from
 *                              the set, a host path) or null}],
 *       "modules": [ the per-module object of `check --format json`, plus
 *                    "package", "nevra", "license_tag", "owned", "link_target",
 *                    "headline" (the one line every front end prints) ]}],
 *    "summary": {"packages", "modules", "deny", "mark", "allow", "error",
 *                "skipped_without_modules"}}
 *   A symvers LABEL from the audited set is "NEVRA:/path/in/package".
 *
 * JSON lines (--format jsonl): one package object as above per line, with
 *   "record": "package" first, then {"record": "summary", "taintguard",
 *   "format": "audit-jsonl/1", and the summary's counts}.  Lines of packages
 *   that failed with nothing to judge come as soon as they fail (cmd_audit.c).
 *
 * JUnit: <testsuites><testsuite>, one <testcase name=NEVRA file=RPM> per
 *   package with <properties> (package, nevra, action, status, license_tag,
 *   signature, signature_info, taint, modules, kernel "KVER SYMVERS"), a
 *   <failure type="deny"> for denied packages, an <error> for packages that
 *   could not be read, and per-module lines in <system-out>.
 *
 * SARIF 2.1.0: one run; driver "taintguard" with one rule per policy rule that
 *   fired (plus "read-error"); one result per denied (level error) or marked
 *   (level warning) module and per unreadable package: ruleId, ruleIndex,
 *   message.text, locations[0].physicalLocation.artifactLocation.uri (the
 *   .rpm, or the module path for --installed), logicalLocations (module
 *   name, "NEVRA:path"), properties (package, nevra, path, action, taint,
 *   kernel, license, license_tag).
 *
 * --excludes: "excludepkgs=NEVRA,NEVRA" of denied packages (dnf accepts NEVRA
 *   globs there), nothing else on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"

static const char *source_name(enum sv_source s)
{
	switch (s) {
	case SV_PACKAGE: return "package";
	case SV_HOST: return "host";
	case SV_OPTION: return "option";
	default: return NULL;
	}
}

static const char *pkg_label(const struct audit_pkg *p)
{
	if (p->unowned)
		return "(modules owned by no package)";
	if (p->nevra)
		return p->nevra;
	return p->file ? p->file : p->location ? p->location : "?";
}

static const char *pkg_status(const struct audit_pkg *p)
{
	return p->had_error ? "error" : tg_action_name(p->action);
}

/* The package's taint in its kernel's letters (SUSE's and RHEL's bits differ). */
static char *pkg_taint(const struct audit_pkg *p, char *buf, size_t len)
{
	const struct tg_verdict letters = { .taint_letters = p->taint_letters };

	return tg_verdict_taint_string(&letters, p->taint, buf, len);
}

struct counts {
	size_t pkgs, allow, mark, deny, error, modules;
};

static void count(const struct audit *a, struct counts *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < a->n_pkgs; i++) {
		const struct audit_pkg *p = a->pkgs[i];

		if (!audit_pkg_listed(p))
			continue;
		c->pkgs++;
		c->modules += p->n_mods;
		if (p->had_error)
			c->error++;
		else if (p->action == TG_ACTION_DENY)
			c->deny++;
		else if (p->action == TG_ACTION_MARK)
			c->mark++;
		else
			c->allow++;
	}
}

/* -------------------------------------------------------------- text */

/* The one line rpm, dnf, zypper and dkms print for a module, naming its package by NEVRA. */
static void headline(const struct audit_pkg *p, const struct audit_module *m, char *line, size_t len)
{
	struct tg_verdict v = m->v;	/* shallow: only the package differs */

	if (p->nevra)
		v.package = p->nevra;
	tg_verdict_headline(&v, NULL, line, len);
}

static void print_headlines(const struct audit_pkg *p, FILE *out)
{
	char line[512];

	for (size_t j = 0; j < p->n_mods; j++) {
		if (p->mods[j]->v.action == TG_ACTION_ALLOW)
			continue;
		headline(p, p->mods[j], line, sizeof(line));
		fprintf(out, "  %s\n", line);
	}
}

/* Problems first: what the default text lists (--all and -v: everything). */
static bool module_shown(const struct audit *a, const struct audit_module *m)
{
	return a->all || m->v.error || m->v.action != TG_ACTION_ALLOW;
}

static bool pkg_shown(const struct audit *a, const struct audit_pkg *p)
{
	return a->all || p->had_error || p->error || p->action != TG_ACTION_ALLOW;
}

int report_text(const struct audit *a, FILE *out)
{
	size_t hidden_mods = 0, hidden_pkgs = 0;
	struct counts c;

	for (size_t i = 0; i < a->n_pkgs; i++) {
		const struct audit_pkg *p = a->pkgs[i];
		char t[32];

		if (!audit_pkg_listed(p))
			continue;
		if (!pkg_shown(a, p)) {
			hidden_pkgs++;
			continue;
		}
		fprintf(out, "%s: %s", pkg_label(p), pkg_status(p));
		if (p->had_error && p->action != TG_ACTION_ALLOW)
			fprintf(out, " (and %s)", tg_action_name(p->action));
		fprintf(out, ", %zu module%s", p->n_mods, p->n_mods == 1 ? "" : "s");
		if (p->n_deny || p->n_mark)
			fprintf(out, " (%zu deny, %zu mark)", p->n_deny, p->n_mark);
		if (p->taint)
			fprintf(out, ", taint %s", pkg_taint(p, t, sizeof(t)));
		if (p->n_refused)
			fprintf(out, ", %zu refused by the kernel", p->n_refused);
		fputc('\n', out);
		if (p->error)
			fprintf(out, "  error: %s\n", p->error);
		if (p->file)
			fprintf(out, "  file: %s\n", p->file);
		if (p->url)
			fprintf(out, "  url: %s\n", p->url);
		if (!p->unowned && !p->not_rpm) {
			fputs("  license tag: ", out);
			fputs(p->license ? p->license : "(none)", out);
			fprintf(out, "; signature: %s", pkg_sig_name(p->sig));
			if (p->sig_info)
				fprintf(out, " (%s)", p->sig_info);
			fputc('\n', out);
		}
		for (size_t k = 0; k < p->n_targets; k++) {
			const struct target *tg = &p->targets[k];

			fprintf(out, "  kernel %s: ", tg->release ? tg->release : "unknown");
			if (tg->symvers)
				fprintf(out, "exports from %s (%s)\n", tg->symvers,
					tg->source == SV_PACKAGE ? "audited set" :
					tg->source == SV_HOST ? "host" : "--symvers");
			else
				fputs("no export table found (GPL-only imports unknown)\n", out);
		}
		print_headlines(p, out);
	}
	count(a, &c);
	fprintf(out, "\n%zu package%s with kernel modules: %zu deny, %zu mark, %zu allow, %zu error; "
		"%zu module%s; %zu package%s without modules skipped\n",
		c.pkgs, c.pkgs == 1 ? "" : "s", c.deny, c.mark, c.allow, c.error,
		c.modules, c.modules == 1 ? "" : "s", a->n_skipped, a->n_skipped == 1 ? "" : "s");
	if (a->n_skipped_meta)	/* docs/candidates.md: what repository metadata cannot tell */
		fprintf(out, "note: %zu of them by repository file lists, which carry no file classes: "
			"a module hidden under another name (not .ko, outside /lib/modules) is not seen "
			"there; audit the .rpm files to have every header read\n", a->n_skipped_meta);
	for (size_t i = 0; i < a->n_pkgs; i++) {
		const struct audit_pkg *p = a->pkgs[i];
		bool head = false;

		if (!audit_pkg_listed(p))
			continue;
		for (size_t j = 0; j < p->n_mods; j++) {
			if (!module_shown(a, p->mods[j])) {
				hidden_mods++;
				continue;
			}
			if (!head)
				fprintf(out, "\n== %s\n", pkg_label(p));
			head = true;
			tg_verdict_write_text(&p->mods[j]->v, out, a->o.verbose);
			if (p->mods[j]->link_target)
				fprintf(out, "  link to %s\n", p->mods[j]->link_target);
		}
	}
	if (hidden_mods || hidden_pkgs) {
		fprintf(out, "\n%zu allowed module%s not listed", hidden_mods, hidden_mods == 1 ? "" : "s");
		if (hidden_pkgs)
			fprintf(out, " (%zu package%s with nothing else)", hidden_pkgs,
				hidden_pkgs == 1 ? "" : "s");
		fputs("; --all lists every module\n", out);
	}
	if (a->n_kups)
		report_kups_text(a, out);
	return ferror(out) ? -1 : 0;
}

/* -------------------------------------------------------------- JSON */

static void jstr(FILE *out, const char *s)
{
	tg_json_string(out, s);
}

/* The per-module contract of `check`, plus the package fields. */
static void module_json(const struct audit_pkg *p, const struct audit_module *m, FILE *out)
{
	char *buf = NULL, line[512];
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (mem) {
		tg_verdict_write_json(&m->v, mem);
		fclose(mem);
	}
	if (!buf || len < 2 || buf[len - 1] != '}') {
		fputs("{\"error\": \"cannot format verdict\"}", out);
		free(buf);
		return;
	}
	fwrite(buf, 1, len - 1, out);
	free(buf);
	if (!m->v.package) {
		fputs(", \"package\": ", out);
		jstr(out, p->unowned ? NULL : p->name);
	}
	fputs(", \"nevra\": ", out);
	jstr(out, p->unowned ? NULL : p->nevra);
	fputs(", \"license_tag\": ", out);
	jstr(out, p->unowned ? NULL : p->license);
	fputs(", \"owned\": ", out);
	fputs(p->unowned ? "false" : "true", out);
	fputs(", \"link_target\": ", out);
	jstr(out, m->link_target);
	headline(p, m, line, sizeof(line));	/* what the dnf plugins print */
	fputs(", \"headline\": ", out);
	jstr(out, line);
	fputc('}', out);
}

/* One package's object; @nl separates its modules ("" keeps it on one line). */
static void package_json(const struct audit_pkg *p, FILE *out, const char *nl)
{
	char t[32];

	fputs("{\"package\": ", out);
	jstr(out, p->unowned ? NULL : p->name);
	fputs(", \"nevra\": ", out);
	jstr(out, p->unowned ? NULL : p->nevra);
	fputs(", \"file\": ", out);
	jstr(out, p->file);
	fputs(", \"url\": ", out);
	jstr(out, p->url);
	fputs(", \"checksum\": ", out);
	jstr(out, p->checksum);
	fputs(", \"owned\": ", out);
	fputs(p->unowned ? "false" : "true", out);
	fputs(", \"installed\": ", out);
	fputs(p->installed ? "true" : "false", out);
	fputs(", \"license_tag\": ", out);
	jstr(out, p->license);
	fputs(", \"action\": ", out);
	jstr(out, tg_action_name(p->action));
	fputs(", \"status\": ", out);
	jstr(out, pkg_status(p));
	fputs(", \"error\": ", out);
	jstr(out, p->error);
	fputs(", \"taint\": ", out);
	jstr(out, pkg_taint(p, t, sizeof(t)));
	fprintf(out, ", \"refused\": %zu, \"deny\": %zu, \"mark\": %zu", p->n_refused, p->n_deny,
		p->n_mark);
	fputs(", \"signature\": {\"status\": ", out);
	jstr(out, p->unowned ? NULL : pkg_sig_name(p->sig));
	fputs(", \"info\": ", out);
	jstr(out, p->sig_info);
	fputs("}, \"targets\": [", out);
	for (size_t k = 0; k < p->n_targets; k++) {
		fputs(k ? ", {\"kernel\": " : "{\"kernel\": ", out);
		jstr(out, p->targets[k].release);
		fputs(", \"symvers\": ", out);
		jstr(out, p->targets[k].symvers);
		fputs(", \"symvers_source\": ", out);
		jstr(out, source_name(p->targets[k].source));
		fputs(", \"config\": ", out);
		jstr(out, p->targets[k].config);
		fputc('}', out);
	}
	fprintf(out, "],%s \"modules\": [", *nl ? "\n  " : "");
	for (size_t j = 0; j < p->n_mods; j++) {
		fputs(j ? "," : "", out);
		fprintf(out, "%s%s", nl, *nl ? "  " : (j ? " " : ""));
		module_json(p, p->mods[j], out);
	}
	fprintf(out, "%s]}", p->n_mods && *nl ? "\n  " : "");
}

int report_json(const struct audit *a, FILE *out)
{
	struct counts c;
	bool first = true;

	fprintf(out, "{\"taintguard\": \"%s\", \"format\": \"audit/1\",\n \"packages\": [", TG_VERSION_STRING);
	for (size_t i = 0; i < a->n_pkgs; i++) {
		const struct audit_pkg *p = a->pkgs[i];

		if (!audit_pkg_listed(p))
			continue;
		fputs(first ? "\n  " : ",\n  ", out);
		first = false;
		package_json(p, out, "\n  ");
	}
	count(a, &c);
	fputs(first ? "]" : "\n ]", out);
	if (a->installed)
		report_kernels_json(a, out);
	else
		report_kups_json(a, out);
	fprintf(out, ",\n \"summary\": {\"packages\": %zu, \"modules\": %zu, \"deny\": %zu, \"mark\": %zu, "
		"\"allow\": %zu, \"error\": %zu, \"skipped_without_modules\": %zu}}\n",
		c.pkgs, c.modules, c.deny, c.mark, c.allow, c.error, a->n_skipped);
	return ferror(out) ? -1 : 0;
}

/* ------------------------------------------------------- JSON lines */

int report_jsonl_package(const struct audit *a, const struct audit_pkg *p, FILE *out)
{
	(void)a;
	fputs("{\"record\": \"package\", ", out);
	/* the package object without its opening brace */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);

		if (!mem)
			return -1;
		package_json(p, mem, "");
		fclose(mem);
		if (!buf || len < 2) {
			free(buf);
			return -1;
		}
		fwrite(buf + 1, 1, len - 1, out);
		free(buf);
	}
	fputc('\n', out);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

int report_jsonl_summary(const struct audit *a, FILE *out)
{
	struct counts c;

	count(a, &c);
	fprintf(out, "{\"record\": \"summary\", \"taintguard\": \"%s\", \"format\": \"audit-jsonl/1\", "
		"\"packages\": %zu, \"modules\": %zu, \"deny\": %zu, \"mark\": %zu, \"allow\": %zu, "
		"\"error\": %zu, \"skipped_without_modules\": %zu}\n", TG_VERSION_STRING, c.pkgs,
		c.modules, c.deny, c.mark, c.allow, c.error, a->n_skipped);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* ------------------------------------------------------------- JUnit */

static void prop(FILE *out, const char *name, const char *value)
{
	fprintf(out, "        <property name=\"%s\" value=\"", name);
	report_xml_text(out, value ? value : "");
	fputs("\"/>\n", out);
}

/* One line per module: "path: action (rule): first reason". */
static void module_lines(FILE *out, const struct audit_pkg *p, bool only_bad)
{
	for (size_t j = 0; j < p->n_mods; j++) {
		const struct tg_verdict *v = &p->mods[j]->v;
		char t[32];

		if (only_bad && !v->error && v->action == TG_ACTION_ALLOW)
			continue;
		report_xml_text(out, v->path);
		fputs(": ", out);
		if (v->error) {
			fputs("error: ", out);
			report_xml_text(out, v->error);
		} else {
			report_xml_text(out, tg_action_name(v->action));
			if (v->rule) {
				fputs(" (rule ", out);
				report_xml_text(out, v->rule);
				fputc(')', out);
			}
			fputs(", taint ", out);
			report_xml_text(out, tg_verdict_taint_string(v, v->taint_kernel, t, sizeof(t)));
			fputs(v->loads ? ", loads" : ", refused", out);
			for (size_t r = 0; r < v->n_reasons; r++) {
				fputs("\n    ", out);
				report_xml_text(out, v->reasons[r]);
			}
		}
		fputc('\n', out);
	}
}

int report_junit(const struct audit *a, FILE *out)
{
	struct counts c;

	count(a, &c);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out, "<testsuites name=\"taintguard audit\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
		c.pkgs, c.deny, c.error);
	fprintf(out, "  <testsuite name=\"taintguard audit\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
		"skipped=\"0\">\n", c.pkgs, c.deny, c.error);
	fputs("    <properties>\n", out);
	{
		char n[32];

		snprintf(n, sizeof(n), "%zu", a->n_skipped);
		prop(out, "taintguard.version", TG_VERSION_STRING);
		prop(out, "packages_without_modules_skipped", n);
	}
	fputs("    </properties>\n", out);
	for (size_t i = 0; i < a->n_pkgs; i++) {
		const struct audit_pkg *p = a->pkgs[i];
		char t[32], n[32];

		if (!audit_pkg_listed(p))
			continue;
		fputs("    <testcase classname=\"taintguard.audit\" name=\"", out);
		report_xml_text(out, pkg_label(p));
		fputc('"', out);
		if (p->file) {
			fputs(" file=\"", out);
			report_xml_text(out, p->file);
			fputc('"', out);
		}
		fputs(">\n      <properties>\n", out);
		prop(out, "package", p->name);
		prop(out, "nevra", p->nevra);
		prop(out, "action", tg_action_name(p->action));
		prop(out, "status", pkg_status(p));
		prop(out, "license_tag", p->license);
		prop(out, "signature", p->unowned ? "" : pkg_sig_name(p->sig));
		if (p->sig_info)
			prop(out, "signature_info", p->sig_info);
		prop(out, "taint", pkg_taint(p, t, sizeof(t)));
		snprintf(n, sizeof(n), "%zu", p->n_mods);
		prop(out, "modules", n);
		for (size_t k = 0; k < p->n_targets; k++) {
			char *v = strf("%s %s", p->targets[k].release ? p->targets[k].release : "unknown",
					    p->targets[k].symvers ? p->targets[k].symvers : "(no symvers)");

			prop(out, "kernel", v);
			free(v);
		}
		fputs("      </properties>\n", out);
		if (p->had_error) {
			fputs("      <error type=\"error\" message=\"", out);
			report_xml_text(out, p->error ? p->error : "a module could not be read");
			fputs("\">", out);
			module_lines(out, p, true);
			fputs("</error>\n", out);
		} else if (p->action == TG_ACTION_DENY) {
			fputs("      <failure type=\"deny\" message=\"", out);
			fprintf(out, "%zu module%s denied by the policy", p->n_deny, p->n_deny == 1 ? "" : "s");
			fputs("\">", out);
			module_lines(out, p, true);
			fputs("</failure>\n", out);
		}
		fputs("      <system-out>", out);
		module_lines(out, p, false);
		fputs("</system-out>\n    </testcase>\n", out);
	}
	fputs("  </testsuite>\n", out);
	if (a->installed)
		report_kernels_junit(a, out);
	fputs("</testsuites>\n", out);
	return ferror(out) ? -1 : 0;
}

/* ------------------------------------------------------------- SARIF */

/* RFC 3986 reference: keep unreserved and '/', percent-encode the rest. */
static void uri(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			fputc(*p, out);
		else
			fprintf(out, "%%%02X", *p);
	}
	fputc('"', out);
}

struct rule {
	const char *id;
	const char *level;
};

static int cmp_rule(const void *x, const void *y)
{
	return strcmp(((const struct rule *)x)->id, ((const struct rule *)y)->id);
}

static const char *result_rule(const struct tg_verdict *v)
{
	if (v->error)
		return "read-error";
	return v->rule ? v->rule : tg_action_name(v->action);
}

static bool reportable(const struct audit_module *m)
{
	return m->v.error || m->v.action != TG_ACTION_ALLOW;
}

/* Add @id to the distinct rule ids of the SARIF run; -1 on allocation failure. */
static int rule_add(struct rule **rules, size_t *n, size_t *cap, const char *id)
{
	for (size_t k = 0; k < *n; k++)
		if (!strcmp((*rules)[k].id, id))
			return 0;
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct rule *nr = realloc(*rules, ncap * sizeof(*nr));

		if (!nr)
			return -1;
		*rules = nr;
		*cap = ncap;
	}
	(*rules)[(*n)++] = (struct rule){ id, NULL };
	return 0;
}

int report_sarif(const struct audit *a, FILE *out)
{
	struct rule *rules = NULL;
	size_t n_rules = 0, cap = 0;
	bool first = true;

	/* rules: every distinct ruleId, sorted */
	for (size_t i = 0; i < a->n_pkgs; i++) {
		int r = 0;

		for (size_t j = 0; j < a->pkgs[i]->n_mods && r == 0; j++) {
			const struct audit_module *m = a->pkgs[i]->mods[j];

			if (reportable(m))
				r = rule_add(&rules, &n_rules, &cap, result_rule(&m->v));
		}
		if (r == 0 && audit_pkg_listed(a->pkgs[i]) && a->pkgs[i]->error)
			r = rule_add(&rules, &n_rules, &cap, "read-error");
		if (r < 0) {
			free(rules);
			return -1;
		}
	}
	if (n_rules)
		qsort(rules, n_rules, sizeof(*rules), cmp_rule);

	fputs("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
	      "  \"version\": \"2.1.0\",\n  \"runs\": [{\n    \"tool\": {\"driver\": {"
	      "\"name\": \"taintguard\", \"version\": \"" TG_VERSION_STRING "\", "
	      "\"informationUri\": \"https://github.com/taintguard/taintguard\", \"rules\": [", out);
	for (size_t k = 0; k < n_rules; k++) {
		fputs(k ? ",\n      " : "\n      ", out);
		fputs("{\"id\": ", out);
		jstr(out, rules[k].id);
		fputs(", \"name\": ", out);
		jstr(out, rules[k].id);
		fputs(", \"shortDescription\": {\"text\": ", out);
		if (!strcmp(rules[k].id, "read-error"))
			jstr(out, "a package or module could not be read (integrity or format error)");
		else {
			char *d = strf("taintguard policy rule '%s'", rules[k].id);

			jstr(out, d ? d : rules[k].id);
			free(d);
		}
		fputs("}}", out);
	}
	fputs("]}},\n    \"results\": [", out);
	for (size_t i = 0; i < a->n_pkgs; i++) {
		const struct audit_pkg *p = a->pkgs[i];
		const char *art = p->file ? p->file : p->url;

		if (!audit_pkg_listed(p))
			continue;
		/* a package-level error without a module to hang it on */
		if (p->error) {
			fputs(first ? "\n      {" : ",\n      {", out);
			first = false;
			size_t ri = 0;

			for (size_t k = 0; k < n_rules; k++)
				if (!strcmp(rules[k].id, "read-error"))
					ri = k;
			fprintf(out, "\"ruleId\": \"read-error\", \"ruleIndex\": %zu, \"level\": \"error\", "
				"\"message\": {\"text\": ", ri);
			{
				char *msg = strf("%s: %s", pkg_label(p), p->error);

				jstr(out, msg ? msg : p->error);
				free(msg);
			}
			fputs("}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ", out);
			uri(out, art ? art : pkg_label(p));
			fputs("}}}], \"properties\": {\"package\": ", out);
			jstr(out, p->name);
			fputs(", \"nevra\": ", out);
			jstr(out, p->nevra);
			fputs("}}", out);
		}
		for (size_t j = 0; j < p->n_mods; j++) {
			const struct audit_module *m = p->mods[j];
			const struct tg_verdict *v = &m->v;
			size_t ri = 0;
			char t[32];
			char *msg;

			if (!reportable(m))
				continue;
			for (size_t k = 0; k < n_rules; k++)
				if (!strcmp(rules[k].id, result_rule(v)))
					ri = k;
			fputs(first ? "\n      {" : ",\n      {", out);
			first = false;
			fputs("\"ruleId\": ", out);
			jstr(out, result_rule(v));
			fprintf(out, ", \"ruleIndex\": %zu, \"level\": \"%s\", \"message\": {\"text\": ", ri,
				v->error || v->action == TG_ACTION_DENY ? "error" : "warning");
			if (v->error)
				msg = strf("%s (%s): cannot be read: %s", v->path, pkg_label(p), v->error);
			else
				msg = strf("%s (%s): %s, taint %s%s%s%s", v->path, pkg_label(p),
						tg_action_name(v->action),
						tg_verdict_taint_string(v, v->taint_kernel, t, sizeof(t)),
						v->loads ? "" : ", refused by the kernel",
						v->n_reasons ? ": " : "", v->n_reasons ? v->reasons[0] : "");
			jstr(out, msg ? msg : v->path);
			free(msg);
			fputs("}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ", out);
			uri(out, art ? art : v->path);
			fputs("}}, \"logicalLocations\": [{\"kind\": \"module\", \"name\": ", out);
			jstr(out, v->module ? v->module : v->path);
			fputs(", \"fullyQualifiedName\": ", out);
			{
				char *fq = strf("%s:%s", p->nevra ? p->nevra : "", v->path);

				jstr(out, fq ? fq : v->path);
				free(fq);
			}
			fputs("}]}], \"properties\": {\"package\": ", out);
			jstr(out, p->unowned ? NULL : p->name);
			fputs(", \"nevra\": ", out);
			jstr(out, p->nevra);
			fputs(", \"path\": ", out);
			jstr(out, v->path);
			fputs(", \"action\": ", out);
			jstr(out, tg_action_name(v->action));
			fputs(", \"taint\": ", out);
			jstr(out, tg_verdict_taint_string(v, v->taint_kernel, t, sizeof(t)));
			fputs(", \"kernel\": ", out);
			jstr(out, v->kernel);
			fputs(", \"license\": ", out);
			jstr(out, v->license);
			fputs(", \"license_tag\": ", out);
			jstr(out, p->license);
			fputs("}}", out);
		}
	}
	fputs(first ? "]\n  }]\n}\n" : "\n    ]\n  }]\n}\n", out);
	free(rules);
	return ferror(out) ? -1 : 0;
}

/* ----------------------------------------------------------- excludes */

int report_excludes(const struct audit *a, FILE *out)
{
	bool first = true;

	fputs("excludepkgs=", out);
	for (size_t i = 0; i < a->n_pkgs; i++) {
		const struct audit_pkg *p = a->pkgs[i];

		if (!audit_pkg_listed(p) || p->unowned || p->action != TG_ACTION_DENY || !p->nevra)
			continue;
		fprintf(out, "%s%s", first ? "" : ",", p->nevra);
		first = false;
	}
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}
