/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit --installed: the module x installed-kernel table.  For
 * every installed kernel (a directory in ROOT/(usr/)lib/modules; --kernel
 * KVER: that one), the out-of-tree modules loadable under it
 * (pkg_kupdate_modules(): its extra/, updates/, weak-updates/ and what
 * weak-modules would link there) judged as one set against it, so that
 * "what breaks if I boot 6.12?" has an answer before the reboot
 * (docs/kernel-update.md).  Each file is judged once (pkg/kupdate.c compares
 * device and inode); a module no rpm package owns is named by its dpkg
 * package or as DKMS's NAME/VERSION (dkms) (pkg/owners.c).  The text table
 * lists what is not plainly allowed and counts the rest (--all: every row).
 * A kernel also lists what it will miss: a module weak-modules will not
 * link into it, and a DKMS module installed for another kernel and not for
 * it, with why (pkg_dkms_missing()), in one wording: "missing", the path it
 * would have, and "weak-modules will not link it: ..." or "not built for
 * this kernel: ...".
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rpm/rpmts.h>

#include "audit.h"

static int add_release(struct audit *a, const char *rel)
{
	struct audit_krow *nv;

	for (size_t i = 0; i < a->n_krows; i++)
		if (!strcmp(a->krows[i].release, rel))
			return 0;
	nv = realloc(a->krows, (a->n_krows + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	a->krows = nv;
	memset(&nv[a->n_krows], 0, sizeof(*nv));
	if (!(nv[a->n_krows].release = strdup(rel)))
		return -ENOMEM;
	a->n_krows++;
	return 0;
}

static int cmp_row(const void *x, const void *y)
{
	const struct audit_krow *a = x, *b = y;

	return strverscmp(a->release, b->release);
}

/* The installed kernels: names of directories in (usr/)lib/modules. */
static int find_kernels(struct audit *a)
{
	int r = 0;

	const char *tops[2];
	size_t nt;

	if (a->o.kernel)
		return add_release(a, a->o.kernel);
	nt = pkg_module_tops_distinct(a->o.root, tops);
	for (size_t t = 0; t < nt && r == 0; t++) {
		char *dir = tg_root_resolve(a->o.root, tops[t]);
		DIR *d = dir ? opendir(dir) : NULL;
		struct dirent *e;

		while (d && r == 0 && (e = readdir(d)) != NULL) {
			char *p = strf("%s/%s", dir, e->d_name);
			struct stat sb;

			if (e->d_name[0] != '.' && p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode) &&
			    tg_kernel_version_parse(e->d_name))
				r = add_release(a, e->d_name);
			free(p);
		}
		if (d)
			closedir(d);
		free(dir);
	}
	if (a->n_krows > 1)
		qsort(a->krows, a->n_krows, sizeof(*a->krows), cmp_row);
	return r;
}

/*
 * The DKMS modules installed for another kernel and not for this one,
 * after the judged rows: a missing entry each, nothing judged (no file).
 */
static int add_dkms_missing(struct audit *a, struct audit_krow *row)
{
	struct pkg_dkms_missing *ms;
	struct pkg_kmod *km;
	struct tg_verdict *v;
	size_t n;
	int r = pkg_dkms_missing(a->o.root, NULL, NULL, row->release, &ms, &n);

	if (r < 0 || !n)
		return r;
	km = realloc(row->km, (row->n + n) * sizeof(*km));
	if (km)
		row->km = km;
	v = km ? realloc(row->v, (row->n + n) * sizeof(*v)) : NULL;
	if (v)
		row->v = v;
	for (size_t i = 0; v && i < n; i++, row->n++) {
		km[row->n] = (struct pkg_kmod){ .path = ms[i].path, .file = strdup(ms[i].path),
						.owner = ms[i].name, .place = PKG_KMOD_DKMS_NOT,
						.why = ms[i].why };
		v[row->n] = (struct tg_verdict){ .module = ms[i].module, .action = TG_ACTION_MARK };
		memset(&ms[i], 0, sizeof(ms[i]));
		if (!km[row->n].file)
			r = -ENOMEM;
	}
	pkg_dkms_missing_free(ms, n);
	return v ? r : -ENOMEM;
}

static int judge_row(struct audit *a, struct tg_ctx *ctx, rpmts ts, struct audit_krow *row)
{
	const struct tg_kernel *k = NULL;
	struct tg_judge_item *items;
	struct tg_error err = { 0 };
	int r;

	/* said once here; tg_judge() below meets the same failure and judges without it */
	if (tg_ctx_kernel(ctx, row->release, &k, &err) < 0)
		cli_error("kernel %s: %s", row->release, err.msg);
	r = pkg_kupdate_modules(a->o.root, row->release, k ? k->symvers : NULL, ts, &a->o.limits,
				&row->km, &row->n);
	if (r < 0 || !row->n)
		return r < 0 ? r : add_dkms_missing(a, row);
	for (size_t i = 0; i < row->n; i++) {
		const struct pkg_owned *ow = row->km[i].owner ? NULL :
			pkg_owners_find(&a->owners, a->o.root, row->km[i].file);

		if (ow && !(row->km[i].owner = strdup(ow->name)))
			return -ENOMEM;
	}
	for (size_t i = 0; i < row->n; i++) {
		char *w = row->km[i].place == PKG_KMOD_WEAK_NOT ?
			strf("weak-modules will not link it: %s", row->km[i].why) : NULL;

		if (row->km[i].place == PKG_KMOD_WEAK_NOT && !w)
			return -ENOMEM;
		if (w) {
			free(row->km[i].why);
			row->km[i].why = w;
		}
	}
	items = calloc(row->n, sizeof(*items));
	if (!items || !(row->v = calloc(row->n, sizeof(*row->v)))) {
		free(items);
		return -ENOMEM;
	}
	for (size_t i = 0; i < row->n; i++)
		items[i] = (struct tg_judge_item){ .path = row->km[i].path, .m = row->km[i].m,
						   .error = row->km[i].error,
						   .package = row->km[i].owner };
	r = tg_judge(ctx, row->release, items, row->n, 0, row->v, NULL);
	free(items);
	return r < 0 ? r : add_dkms_missing(a, row);
}

int audit_installed_kernels(struct audit *a, struct tg_ctx *ctx)
{
	rpmts ts = pkg_ts_new(a->o.root);
	int r = find_kernels(a);

	for (size_t i = 0; r == 0 && i < a->n_krows; i++)
		r = judge_row(a, ctx, ts, &a->krows[i]);
	rpmtsFree(ts);
	return r;
}

void audit_kernels_free(struct audit *a)
{
	for (size_t i = 0; i < a->n_krows; i++) {
		struct audit_krow *row = &a->krows[i];

		for (size_t j = 0; row->v && j < row->n; j++)
			tg_verdict_free_contents(&row->v[j]);
		free(row->v);
		pkg_kmods_free(row->km, row->n);
		free(row->release);
	}
	free(a->krows);
	a->krows = NULL;
	a->n_krows = 0;
}

/* ------------------------------------------------------------ the cell */

/* A module @row's kernel will not have: weak-modules will not link it, DKMS did not install it. */
static bool missing(const struct audit_krow *row, size_t j)
{
	return row->km[j].place == PKG_KMOD_WEAK_NOT || row->km[j].place == PKG_KMOD_DKMS_NOT;
}

/* What kernel @row will do with its module @j, in a word or two. */
const char *audit_kcell(const struct audit_krow *row, size_t j, char *buf, size_t len)
{
	const struct tg_verdict *v = &row->v[j];
	char t[32];

	if (missing(row, j))
		return "missing";
	if (v->error)
		return "error";
	if (!v->loads)
		snprintf(buf, len, "refused");
	else
		snprintf(buf, len, "%s %s", tg_action_name(v->action),
			 tg_verdict_taint_string(v, v->taint_kernel, t, sizeof(t)));
	return buf;
}

/* The one reason of a cell that is not a plain allow, else NULL. */
const char *audit_kreason(const struct audit_krow *row, size_t j)
{
	const struct tg_verdict *v = &row->v[j];

	if (missing(row, j))
		return row->km[j].why;
	if (v->error)
		return v->error;
	if (!v->loads && v->n_refusals && v->refusals[0].reason)
		return v->refusals[0].reason;
	if (v->action == TG_ACTION_ALLOW)
		return NULL;
	for (size_t i = 0; i < v->n_flags; i++)
		if (v->flags[i].letter == 'P' && v->flags[i].reason)
			return v->flags[i].reason;
	return v->n_reasons ? v->reasons[0] : NULL;
}

/* A cell that breaks something: refused, missing, error, or a deny. */
bool audit_kbad(const struct audit_krow *row, size_t j)
{
	const struct tg_verdict *v = &row->v[j];

	return missing(row, j) || v->error || !v->loads ||
	       v->action == TG_ACTION_DENY;
}

/* -------------------------------------------------------------- output */

/* A cell that needs no word: loads, allowed, nothing to say (the default text leaves it out). */
static bool fine(const struct audit_krow *row, size_t j)
{
	return !audit_kbad(row, j) && row->v[j].action == TG_ACTION_ALLOW && !audit_kreason(row, j);
}

int report_kernels_text(const struct audit *a, FILE *out)
{
	fprintf(out, "\nInstalled kernels and the out-of-tree modules each would load:\n");
	for (size_t i = 0; i < a->n_krows; i++) {
		const struct audit_krow *row = &a->krows[i];
		size_t n_fine = 0, n_missing = 0;

		for (size_t j = 0; j < row->n; j++)
			n_missing += missing(row, j);
		/* the modules it has, then the ones it will miss (not counted twice) */
		fprintf(out, "kernel %s: %zu module%s", row->release, row->n - n_missing,
			row->n - n_missing == 1 ? "" : "s");
		if (n_missing)
			fprintf(out, ", %zu missing", n_missing);
		fputc('\n', out);
		for (size_t j = 0; j < row->n; j++) {
			char buf[64];
			const char *why = audit_kreason(row, j);

			if (!a->all && fine(row, j)) {
				n_fine++;
				continue;
			}
			fprintf(out, "  %-20s %-24s %-14s %s%s%s\n",
				row->v[j].module ? row->v[j].module : "?",
				row->km[j].owner ? row->km[j].owner : "(no package)",
				audit_kcell(row, j, buf, sizeof(buf)), row->km[j].path,
				why ? ": " : "", why ? why : "");
		}
		if (n_fine)
			fprintf(out, "  (%zu more load%s cleanly, allowed: not listed; --all lists them)\n",
				n_fine, n_fine == 1 ? "s" : "");
	}
	return ferror(out) ? -1 : 0;
}

int report_kernels_json(const struct audit *a, FILE *out)
{
	static const char *const places[] = { "own", "weak", "weak-not-linked", "dkms-not-built" };

	fputs(",\n \"kernels\": [", out);
	for (size_t i = 0; i < a->n_krows; i++) {
		const struct audit_krow *row = &a->krows[i];

		fputs(i ? ",\n  {\"release\": " : "\n  {\"release\": ", out);
		tg_json_string(out, row->release);
		fputs(", \"modules\": [", out);
		for (size_t j = 0; j < row->n; j++) {
			char buf[64], t[32];

			fputs(j ? ",\n    {\"path\": " : "\n    {\"path\": ", out);
			tg_json_string(out, row->km[j].path);
			fputs(", \"file\": ", out);
			tg_json_string(out, row->km[j].file);
			fputs(", \"module\": ", out);
			tg_json_string(out, row->v[j].module);
			fputs(", \"package\": ", out);
			tg_json_string(out, row->km[j].owner);
			fprintf(out, ", \"place\": \"%s\", \"outcome\": ", places[row->km[j].place]);
			tg_json_string(out, audit_kcell(row, j, buf, sizeof(buf)));
			fprintf(out, ", \"action\": \"%s\", \"loads\": %s, \"taint\": ",
				tg_action_name(row->v[j].action), row->v[j].loads ? "true" : "false");
			tg_json_string(out, tg_verdict_taint_string(&row->v[j], row->v[j].taint_kernel, t, sizeof(t)));
			fputs(", \"reason\": ", out);
			tg_json_string(out, audit_kreason(row, j));
			fputc('}', out);
		}
		fputs(row->n ? "\n  ]}" : "]}", out);
	}
	fputs(a->n_krows ? "\n ]" : "]", out);
	return ferror(out) ? -1 : 0;
}

int report_kernels_junit(const struct audit *a, FILE *out)
{
	size_t tests = 0, bad = 0;

	for (size_t i = 0; i < a->n_krows; i++)
		for (size_t j = 0; j < a->krows[i].n; j++) {
			tests++;
			bad += audit_kbad(&a->krows[i], j);
		}
	fprintf(out, "  <testsuite name=\"taintguard installed kernels\" tests=\"%zu\" failures=\"%zu\" "
		"errors=\"0\" skipped=\"0\">\n", tests, bad);
	for (size_t i = 0; i < a->n_krows; i++) {
		const struct audit_krow *row = &a->krows[i];

		for (size_t j = 0; j < row->n; j++) {
			char buf[64];
			const char *why = audit_kreason(row, j);

			fputs("    <testcase classname=\"taintguard.kernel.", out);
			report_xml_text(out, row->release);
			fputs("\" name=\"", out);
			report_xml_text(out, row->km[j].path);
			fputs("\">\n", out);
			if (audit_kbad(row, j)) {
				fputs("      <failure type=\"", out);
				report_xml_text(out, audit_kcell(row, j, buf, sizeof(buf)));
				fputs("\" message=\"", out);
				report_xml_text(out, why ? why : "");
				fputs("\"/>\n", out);
			}
			fputs("      <system-out>", out);
			report_xml_text(out, row->km[j].owner ? row->km[j].owner : "(no package)");
			fputs(": ", out);
			report_xml_text(out, audit_kcell(row, j, buf, sizeof(buf)));
			fputs("</system-out>\n    </testcase>\n", out);
		}
	}
	fputs("  </testsuite>\n", out);
	return ferror(out) ? -1 : 0;
}
