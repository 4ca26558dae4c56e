/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A program of a library user, built against the installed libtaintguard
 * (pkg-config taintguard) by tests/library/run.sh: judge module files with
 * the built-in policy against kernel KVER, on a context's threads, and print
 * "ACTION TAINT LOADS PATH" per module.
 *
 * Usage: example KVER MODULE...
 */
#include <stdio.h>
#include <stdlib.h>

#include <taintguard.h>

struct item {
	const char *path;
	struct tg_module *m;
	char error[TG_ERRMAX];
};

/* Opening modules is thread-safe (the header's thread contract): one per task. */
static void open_one(size_t i, unsigned worker, void *data)
{
	struct item *it = &((struct item *)data)[i];
	struct tg_error err = { 0 };

	(void)worker;
	if (tg_module_open_path(it->path, NULL, &it->m, &err) < 0)
		snprintf(it->error, sizeof(it->error), "%s", err.msg);
}

int main(int argc, char **argv)
{
	struct tg_ctx *ctx = NULL;
	const struct tg_kernel *k = NULL;
	struct tg_error err = { 0 };
	struct tg_set *set = NULL;
	struct tg_verdict *v = NULL;
	struct item *items;
	size_t n = argc > 2 ? (size_t)argc - 2 : 0;
	int rc = 3;

	if (argc < 3) {
		fprintf(stderr, "usage: %s KVER MODULE...\n", argv[0]);
		return 3;
	}
	items = calloc(n, sizeof(*items));
	v = calloc(n, sizeof(*v));
	if (!items || !v || tg_ctx_new(&ctx) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		items[i].path = argv[i + 2];
	if (tg_parallel(n, tg_ctx_jobs(ctx), open_one, items) < 0)
		goto out;
	if (tg_ctx_kernel(ctx, argv[1], &k, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		goto out;
	}
	set = tg_set_new(ctx);
	for (size_t i = 0; set && i < n; i++)
		if (tg_set_add(set, items[i].path, items[i].m, k, NULL,
			       items[i].m ? NULL : items[i].error) < 0)
			goto out;
	if (!set || tg_set_predict(set, v) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		char taint[32];

		printf("%s %s %s %s\n", tg_action_name(v[i].action),
		       tg_taint_string(v[i].taint_kernel, taint, sizeof(taint))[0] ? taint : "-",
		       v[i].error ? "error" : v[i].loads ? "loads" : "refused", v[i].path);
	}
	rc = 0;
out:
	for (size_t i = 0; v && i < n; i++)
		tg_verdict_free_contents(&v[i]);
	for (size_t i = 0; items && i < n; i++)
		tg_module_free(items[i].m);
	free(v);
	free(items);
	tg_set_free(set);
	tg_ctx_free(ctx);
	return rc;
}
