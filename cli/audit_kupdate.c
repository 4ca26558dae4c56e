/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: a kernel in the audited set (a package shipping a
 * kernel image with that kernel's export table and .config:
 * pkg_files_kernel_release()) is a kernel update of the root (--root, else
 * /).  As the rpm plugin does in tsm_pre (rpm-plugin/kupdate.c), the root's
 * out-of-tree modules loadable under it (pkg_kupdate_modules(): its extra/,
 * updates/, weak-updates/ and what weak-modules would link there) and the
 * set's own modules for that release are judged as one set against it, and
 * each module it will not load cleanly or will miss gets the one line every
 * front end says (pkg_kupdate_line()).  The dnf plugins print these lines
 * before rpm runs (client-plugins/, docs/clients.md); the audit's exit code
 * does not change for them: a kernel is never refused by default.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpm/rpmts.h>

#include "audit.h"

/*
 * The modules of the set's other packages for @rel, judged beside the
 * root's so that imports between them resolve (context items): counted,
 * then filled into *@out (malloc'ed; NULL when there are none).
 */
static int siblings(const struct audit *a, const struct audit_pkg *kp, const char *rel,
		    struct tg_judge_item **out, size_t *n)
{
	*out = NULL;
	for (int pass = 0; pass < 2; pass++) {
		*n = 0;
		for (size_t i = 0; i < a->n_pkgs; i++) {
			const struct audit_pkg *p = a->pkgs[i];

			for (size_t j = 0; p != kp && !p->krel && j < p->n_mods; j++) {
				const struct audit_module *m = p->mods[j];

				if (!m->m || !m->release || strcmp(m->release, rel))
					continue;
				if (*out)
					(*out)[*n] = (struct tg_judge_item){
						.path = m->path, .m = m->m, .package = p->name,
						.context = true };
				++*n;
			}
		}
		if (!pass && (!*n || !(*out = calloc(*n, sizeof(**out)))))
			return *n ? -ENOMEM : 0;
	}
	return 0;
}

static int add_line(struct audit_kup *u, char *line)
{
	char **nv;

	if (!line)
		return -ENOMEM;
	nv = realloc(u->lines, (u->n_lines + 1) * sizeof(*nv));
	if (!nv) {
		free(line);
		return -ENOMEM;
	}
	u->lines = nv;
	u->lines[u->n_lines++] = line;
	return 0;
}

static int judge_update(struct audit *a, struct tg_ctx *ctx, rpmts ts, struct audit_kup *u)
{
	const struct tg_kernel *k = NULL;
	struct tg_judge_item *sib;
	struct pkg_kmod *km = NULL;
	struct tg_verdict *v = NULL;
	size_t n = 0, n_sib = 0;
	int r;

	tg_ctx_kernel(ctx, u->p->krel, &k, NULL);
	if (!k || !k->symvers) {
		u->error = strdup("its export table could not be read; the installed modules are "
				  "not checked against it");
		return u->error ? 0 : -ENOMEM;
	}
	if ((r = siblings(a, u->p, u->p->krel, &sib, &n_sib)) < 0)
		return r;
	r = pkg_kupdate_judge(ctx, a->o.root, u->p->krel, k->symvers, ts, &a->o.limits, sib, n_sib,
			      &km, &v, &n);
	free(sib);
	u->n_modules = n;
	for (size_t i = 0; i < n && r == 0; i++)
		if (pkg_kupdate_affected(&km[i], &v[i]))
			r = add_line(u, pkg_kupdate_line(u->p->krel, &km[i], &v[i]));
	pkg_kupdate_free(km, v, n);
	return r;
}

int audit_kernel_updates(struct audit *a, struct tg_ctx *ctx)
{
	rpmts ts = NULL;
	size_t n = 0;
	int r = 0;

	for (size_t i = 0; i < a->n_pkgs; i++)
		n += a->pkgs[i]->krel && !a->pkgs[i]->error;
	if (!n)
		return 0;
	if (!(a->kups = calloc(n, sizeof(*a->kups))))
		return -ENOMEM;
	ts = a->no_rpmdb ? NULL : pkg_ts_new(a->o.root);	/* the owners, by the rpmdb */
	for (size_t i = 0; i < a->n_pkgs && r == 0; i++) {
		struct audit_kup *u = &a->kups[a->n_kups];

		if (!a->pkgs[i]->krel || a->pkgs[i]->error)
			continue;
		u->p = a->pkgs[i];
		a->n_kups++;
		r = judge_update(a, ctx, ts, u);
	}
	if (ts)
		rpmtsFree(ts);
	return r;
}

void audit_kups_free(struct audit *a)
{
	for (size_t i = 0; i < a->n_kups; i++) {
		for (size_t j = 0; j < a->kups[i].n_lines; j++)
			free(a->kups[i].lines[j]);
		free(a->kups[i].lines);
		free(a->kups[i].error);
	}
	free(a->kups);
	a->kups = NULL;
	a->n_kups = 0;
}

int report_kups_text(const struct audit *a, FILE *out)
{
	for (size_t i = 0; i < a->n_kups; i++) {
		const struct audit_kup *u = &a->kups[i];

		fprintf(out, "\nkernel %s (%s): ", u->p->krel, u->p->nevra ? u->p->nevra : "?");
		if (u->error)
			fprintf(out, "%s\n", u->error);
		else if (!u->n_lines)
			fprintf(out, "the %zu installed module%s for it load cleanly\n", u->n_modules,
				u->n_modules == 1 ? "" : "s");
		else
			fprintf(out, "%zu installed module%s will not load cleanly under it\n",
				u->n_lines, u->n_lines == 1 ? "" : "s");
		for (size_t j = 0; j < u->n_lines; j++)
			fprintf(out, "  %s\n", u->lines[j]);
	}
	return ferror(out) ? -1 : 0;
}

int report_kups_json(const struct audit *a, FILE *out)
{
	fputs(",\n \"kernel_updates\": [", out);
	for (size_t i = 0; i < a->n_kups; i++) {
		const struct audit_kup *u = &a->kups[i];

		fputs(i ? ",\n  {\"release\": " : "\n  {\"release\": ", out);
		tg_json_string(out, u->p->krel);
		fputs(", \"nevra\": ", out);
		tg_json_string(out, u->p->nevra);
		fputs(", \"file\": ", out);
		tg_json_string(out, u->p->file);
		fputs(", \"checksum\": ", out);
		tg_json_string(out, u->p->checksum);
		fprintf(out, ", \"modules\": %zu, \"error\": ", u->n_modules);
		tg_json_string(out, u->error);
		fputs(", \"lines\": [", out);
		for (size_t j = 0; j < u->n_lines; j++) {
			fputs(j ? ", " : "", out);
			tg_json_string(out, u->lines[j]);
		}
		fputs("]}", out);
	}
	fputs(a->n_kups ? "\n ]" : "]", out);
	return ferror(out) ? -1 : 0;
}
