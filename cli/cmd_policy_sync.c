/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard policy sync --kernel-source DIR [--policy FILE] [--write]
 *
 * Keeps the policy a mirror of the kernel: compares the forced-taint names
 * and GPL-compatible license strings of a kernel source tree with the ones
 * the policy gives for that kernel version, and with --write edits the
 * policy file in place (text edits, so comments survive): new names and
 * strings are added for ">= VERSION", names the kernel dropped get
 * "< VERSION" added to their range.  A license string the kernel dropped is
 * only reported: license sets are shared by versions and need a human.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "strv.h"

#define MAX_LIST 256

struct diff {
	struct strv add_ft, drop_ft, scope_ft, add_lic, drop_lic;
};

static void sync_usage(FILE *out)
{
	fputs("Usage: taintguard policy sync --kernel-source DIR [--policy FILE] [--write]\n\n"
	      "Compare the policy's mirror of the kernel (forced-taint names, GPL-compatible\n"
	      "license strings) with a kernel source tree: kernel/module/main.c (or\n"
	      "kernel/module.c) and include/linux/license.h, for the version in its Makefile.\n"
	      "--write updates the policy file: adds what the kernel has, closes the version\n"
	      "range of forced-taint names the kernel dropped.\n\n"
	      "Exit codes: 0 the policy matches, 1 it differs (after --write: something is\n"
	      "left for a human), 3 error.\n", out);
}

static void diff_free(struct diff *d)
{
	strv_free(&d->add_ft), strv_free(&d->drop_ft), strv_free(&d->scope_ft);
	strv_free(&d->add_lic), strv_free(&d->drop_lic);
}

static const struct tg_kernel_source_taint *ks_find(const struct tg_kernel_source *ks, const char *n)
{
	for (size_t i = 0; i < ks->n_forced; i++)
		if (!strcmp(ks->forced[i].name, n))
			return &ks->forced[i];
	return NULL;
}

static bool ks_has_license(const struct tg_kernel_source *ks, const char *s)
{
	for (size_t i = 0; i < ks->n_licenses; i++)
		if (!strcmp(ks->licenses[i], s))
			return true;
	return false;
}

static void compare(const struct tg_policy *p, const struct tg_kernel_source *ks, unsigned kv,
		    struct diff *d)
{
	const struct tg_forced_taint *ft[MAX_LIST];
	const char *lic[MAX_LIST];
	size_t nft = tg_policy_forced_taint_list(p, kv, ft, MAX_LIST);
	size_t nlic = tg_policy_license_list(p, kv, lic, MAX_LIST);

	nft = nft < MAX_LIST ? nft : MAX_LIST;
	nlic = nlic < MAX_LIST ? nlic : MAX_LIST;
	for (size_t i = 0; i < ks->n_forced; i++) {
		const struct tg_forced_taint *pe = tg_policy_forced_taint(p, kv, ks->forced[i].name);

		if (!pe || pe->advisory)
			strv_push(&d->add_ft, ks->forced[i].name);
		else if (pe->module_scope != ks->forced[i].module_scope)
			strv_push(&d->scope_ft, ks->forced[i].name);
	}
	for (size_t i = 0; i < nft; i++)
		if (!ks_find(ks, ft[i]->name))
			strv_push(&d->drop_ft, ft[i]->name);
	for (size_t i = 0; i < ks->n_licenses; i++)
		if (!tg_policy_license_gpl_compatible(p, kv, ks->licenses[i]))
			strv_push(&d->add_lic, ks->licenses[i]);
	for (size_t i = 0; i < nlic; i++)
		if (!ks_has_license(ks, lic[i]))
			strv_push(&d->drop_lic, lic[i]);
}

/* ------------------------------------------------------------- writing */

/* Insert @add after the line that equals @line; false when there is none. */
static bool insert_after_line(char **text, const char *line, const char *add)
{
	char *p = strstr(*text, line), *nt;
	size_t off;

	if (!p)
		return false;
	off = (size_t)(p - *text) + strlen(line);
	if (asprintf(&nt, "%.*s%s%s", (int)off, *text, add, *text + off) < 0)
		return false;
	free(*text);
	*text = nt;
	return true;
}

/* "- name: NAME" entry: append ", < VER" inside its kernels: "..." value. */
static bool close_kernels_range(char **text, const char *name, const char *ver)
{
	char *pat, *p, *next, *k, *q, *nt;
	bool ok = false;

	if (asprintf(&pat, "- name: %s\n", name) < 0)
		return false;
	p = strstr(*text, pat);
	if (p) {
		next = strstr(p + strlen(pat), "- name:");
		k = strstr(p, "kernels: \"");
		q = k ? strchr(k + 10, '"') : NULL;
		if (k && q && (!next || k < next) &&
		    asprintf(&nt, "%.*s, < %s%s", (int)(q - *text), *text, ver, q) >= 0) {
			free(*text);
			*text = nt;
			ok = true;
		}
	}
	free(pat);
	return ok;
}

static char *yaml_quote_safe(const char *s)
{
	char *c = strdup(s ? s : "");

	for (char *p = c; p && *p; p++)
		if (*p == '"' || *p == '\\' || *p == '\n')
			*p = '\'';
	return c;
}

static char *read_text(const char *path, uint64_t cap)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t n = 0;

	if (!f) {
		cli_error("%s: %s", path, strerror(errno));
		return NULL;
	}
	text = calloc(1, (size_t)cap + 1);
	if (text)
		n = fread(text, 1, (size_t)cap, f);
	if (text && (ferror(f) || n == cap)) {
		cli_error("%s: unreadable or larger than the policy size limit", path);
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

static int write_policy(const char *path, const char *text, const struct tg_limits *lim)
{
	struct tg_policy *p = NULL;
	struct tg_error err = { 0 };
	char *tmp;
	FILE *f;

	/* never write what would not load */
	if (tg_policy_load_mem(text, strlen(text), path, lim, &p, &err) < 0) {
		cli_error("%s: the updated policy would not load: %s", path, err.msg);
		return -EINVAL;
	}
	tg_policy_free(p);
	if (asprintf(&tmp, "%s.sync-tmp", path) < 0)
		return -ENOMEM;
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fflush(f) != 0 || fsync(fileno(f)) != 0) {
		cli_error("%s: %s", tmp, strerror(errno));
		if (f)
			fclose(f);
		unlink(tmp);
		free(tmp);
		return -EIO;
	}
	fclose(f);
	if (rename(tmp, path) < 0) {
		cli_error("%s: %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -EIO;
	}
	free(tmp);
	return 0;
}

/* Returns how many differences are left for a human, or -1. */
static int apply(const char *path, const struct tg_kernel_source *ks, const struct diff *d,
		 const char *ver, const struct tg_limits *lim)
{
	char *text = read_text(path, lim->max_policy_size);
	int left = (int)(d->drop_lic.n + d->scope_ft.n);

	if (!text)
		return -1;
	for (size_t i = 0; i < d->add_ft.n; i++) {
		const struct tg_kernel_source_taint *t = ks_find(ks, d->add_ft.v[i]);
		char *reason = yaml_quote_safe(t->reason ? t->reason : "on the kernel's forced-taint list");
		char *add = NULL;

		if (asprintf(&add, "    # added by taintguard policy sync (kernel %s, %s)\n"
			     "    - name: %s\n      flag: P\n      scope: %s\n      kernels: \">= %s\"\n"
			     "      reason: \"%s\"\n", ver, ks->loader_file, t->name,
			     t->module_scope ? "module" : "kernel", ver, reason) < 0 ||
		    !insert_after_line(&text, "\n  forced_taint:\n", add)) {
			cli_error("%s: no kernel: forced_taint: list to update (start from the default policy)", path);
			free(add), free(reason), free(text);
			return -1;
		}
		free(add), free(reason);
	}
	for (size_t i = 0; i < d->drop_ft.n; i++)
		if (!close_kernels_range(&text, d->drop_ft.v[i], ver)) {
			cli_error("%s: cannot find the kernels: range of '%s'; edit it by hand", path,
				  d->drop_ft.v[i]);
			left++;
		}
	for (size_t i = 0; i < d->add_lic.n; i++) {
		char *s = yaml_quote_safe(d->add_lic.v[i]), *add = NULL;

		if (asprintf(&add, "    # added by taintguard policy sync (kernel %s)\n"
			     "    - kernels: \">= %s\"\n      strings: [\"%s\"]\n", ver, ver, s) < 0 ||
		    !insert_after_line(&text, "\n  gpl_compatible_licenses:\n", add)) {
			cli_error("%s: no kernel: gpl_compatible_licenses: list to update", path);
			free(add), free(s), free(text);
			return -1;
		}
		free(add), free(s);
	}
	if (write_policy(path, text, lim) < 0)
		left = -1;
	free(text);
	return left;
}

/* ------------------------------------------------------------- report */

static void report(const struct diff *d, const char *ver, const char *loader)
{
	for (size_t i = 0; i < d->add_ft.n; i++)
		printf("+ forced-taint %s: in kernel %s (%s), missing from the policy\n",
		       d->add_ft.v[i], ver, loader);
	for (size_t i = 0; i < d->drop_ft.n; i++)
		printf("- forced-taint %s: in the policy for %s, no longer in the kernel\n",
		       d->drop_ft.v[i], ver);
	for (size_t i = 0; i < d->scope_ft.n; i++)
		printf("~ forced-taint %s: scope (module/kernel) differs from the kernel's\n",
		       d->scope_ft.v[i]);
	for (size_t i = 0; i < d->add_lic.n; i++)
		printf("+ license \"%s\": GPL-compatible in kernel %s, missing from the policy\n",
		       d->add_lic.v[i], ver);
	for (size_t i = 0; i < d->drop_lic.n; i++)
		printf("- license \"%s\": in the policy for %s, not in include/linux/license.h\n",
		       d->drop_lic.v[i], ver);
}

int cmd_policy_sync(int argc, char **argv, const struct tg_limits *lim)
{
	static const struct option longopts[] = {
		{ "kernel-source", required_argument, NULL, 'k' },
		{ "policy", required_argument, NULL, 'p' },
		{ "write", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *src = NULL, *path = NULL;
	struct tg_kernel_source *ks = NULL;
	struct tg_policy *p = NULL;
	struct tg_error err = { 0 };
	struct diff d = { 0 };
	bool write = false;
	char ver[32];
	unsigned kv;
	int opt, rc = TG_EXIT_ERROR, left;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "k:p:wh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'k': src = optarg; break;
		case 'p': path = optarg; break;
		case 'w': write = true; break;
		case 'h': sync_usage(stdout); return 0;
		default: sync_usage(stderr); return TG_EXIT_ERROR;
		}
	}
	if (!src) {
		cli_error("policy sync needs --kernel-source DIR");
		return TG_EXIT_ERROR;
	}
	path = path ? path : tg_policy_default_path();
	if (tg_kernel_source_read(src, &ks, &err) < 0 || tg_policy_load_path(path, lim, &p, &err) < 0) {
		cli_error("%s", err.msg);
		goto out;
	}
	/* a tree without a readable Makefile version is judged as the newest kernel */
	kv = ks->version ? ks->version : TG_KVER(255, 255, 255);
	snprintf(ver, sizeof(ver), "%u.%u.%u", kv >> 16, (kv >> 8) & 0xff, kv & 0xff);
	compare(p, ks, kv, &d);
	left = (int)(d.add_ft.n + d.drop_ft.n + d.scope_ft.n + d.add_lic.n + d.drop_lic.n);
	report(&d, ver, ks->loader_file);
	if (left == 0) {
		printf("%s matches kernel %s (%s): %zu forced-taint names, %zu license strings\n",
		       path, ver, ks->loader_file, ks->n_forced, ks->n_licenses);
		rc = 0;
		goto out;
	}
	if (!write) {
		rc = TG_EXIT_MARK;
		goto out;
	}
	left = apply(path, ks, &d, ver, lim);
	if (left < 0)
		goto out;
	printf("%s updated%s\n", path, left ? "; the differences marked ~ or - license need a human" : "");
	rc = left ? TG_EXIT_MARK : 0;
out:
	diff_free(&d);
	tg_policy_free(p);
	tg_kernel_source_free(ks);
	return rc;
}
