/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one judging entry point (lib/judge.c): which release each module
 * targets, what reaches the kernel loader, context items, kernels that cannot
 * be gathered (strict and not), and the policy fallback.  A front-end kernel
 * loader stands in for the kernel files: it records the releases it is asked
 * for, so the release rule is seen where it matters.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "taintguard.h"

/* The loader: remembers what it was asked; refuses release "broken". */
struct asked {
	char rel[8][64];
	size_t n;
};

static int loader(void *data, const char *release, struct tg_kernel **out, struct tg_error *err)
{
	struct asked *a = data;

	*out = NULL;
	if (a->n < 8)
		snprintf(a->rel[a->n++], sizeof(a->rel[0]), "%s", release ? release : "(null)");
	if (release && strstr(release, "broken")) {
		snprintf(err->msg, sizeof(err->msg), "no export table for broken");
		err->code = -EIO;
		return -EIO;
	}
	return 0;
}

static bool was_asked(const struct asked *a, const char *rel)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->rel[i], rel))
			return true;
	return false;
}

static struct tg_ctx *new_ctx(struct asked *a)
{
	struct tg_ctx *ctx = NULL;

	assert_int_equal(tg_ctx_new(&ctx), 0);
	tg_ctx_set_jobs(ctx, 1);
	tg_ctx_set_kernel_loader(ctx, loader, a);
	return ctx;
}

static void free_verdicts(struct tg_verdict *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tg_verdict_free_contents(&v[i]);
}

/* ------------------------------------------------------- the release rule */

static void test_release_override_wins(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(tg_target_release("6.12.0-1-amd64", "/lib/modules/6.1.0-57-amd64/x.ko",
					      NULL, buf, sizeof(buf)),
			    "6.12.0-1-amd64");
}

static void test_release_from_path(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(tg_target_release(NULL, "/lib/modules/6.1.0-57-amd64/extra/x.ko", NULL,
					      buf, sizeof(buf)),
			    "6.1.0-57-amd64");
	/* an empty override is no override */
	assert_string_equal(tg_target_release("", "/usr/lib/modules/5.14.0-503.el9/x.ko.xz", NULL,
					      buf, sizeof(buf)),
			    "5.14.0-503.el9");
}

static void test_release_none(void **state)
{
	char buf[64];

	(void)state;
	assert_null(tg_target_release(NULL, "/home/u/build/x.ko", NULL, buf, sizeof(buf)));
	assert_null(tg_target_release(NULL, NULL, NULL, buf, sizeof(buf)));
}

/* ---------------------------------------------------------------- judging */

/* Each item's release reaches the loader: the override for all, else each its own. */
static void test_judge_asks_each_release(void **state)
{
	struct asked a = { 0 };
	struct tg_ctx *ctx = new_ctx(&a);
	struct tg_judge_item it[2] = {
		{ .path = "/lib/modules/6.1.0-57-amd64/extra/a.ko", .error = "truncated" },
		{ .path = "/lib/modules/6.12.9-amd64/extra/b.ko", .error = "truncated",
		  .package = "kmod-b" },
	};
	struct tg_verdict v[2];
	struct tg_error err = { 0 };

	(void)state;
	assert_int_equal(tg_judge(ctx, NULL, it, 2, 0, v, &err), 0);
	assert_true(was_asked(&a, "6.1.0-57-amd64"));
	assert_true(was_asked(&a, "6.12.9-amd64"));
	assert_string_equal(v[0].error, "truncated");
	assert_string_equal(v[1].package, "kmod-b");
	free_verdicts(v, 2);
	tg_ctx_free(ctx);

	memset(&a, 0, sizeof(a));
	ctx = new_ctx(&a);
	assert_int_equal(tg_judge(ctx, "7.3.4-amd64", it, 2, 0, v, &err), 0);
	assert_true(was_asked(&a, "7.3.4-amd64"));
	assert_false(was_asked(&a, "6.1.0-57-amd64"));
	free_verdicts(v, 2);
	tg_ctx_free(ctx);
}

/* An unreadable module is judged as an error, never as clean. */
static void test_judge_unreadable_is_error(void **state)
{
	struct asked a = { 0 };
	struct tg_ctx *ctx = new_ctx(&a);
	struct tg_judge_item it = { .path = "x.ko" };	/* no module, no message */
	struct tg_verdict v;

	(void)state;
	assert_int_equal(tg_judge(ctx, NULL, &it, 1, 0, &v, NULL), 0);
	assert_non_null(v.error);
	assert_string_equal(v.error, "cannot read module");
	free_verdicts(&v, 1);
	tg_ctx_free(ctx);
}

/* Context items get no verdict; an unreadable one is left out altogether. */
static void test_judge_context_has_no_verdict(void **state)
{
	struct asked a = { 0 };
	struct tg_ctx *ctx = new_ctx(&a);
	struct tg_judge_item it[2] = {
		{ .path = "/lib/modules/6.1.0-57-amd64/a.ko", .error = "bad" },
		{ .path = "/lib/modules/9.9.9/ctx.ko", .context = true },
	};
	struct tg_verdict v[2];

	(void)state;
	assert_int_equal(tg_judge(ctx, NULL, it, 2, 0, v, NULL), 0);
	assert_non_null(v[0].path);
	assert_null(v[1].path);
	assert_null(v[1].error);
	assert_false(was_asked(&a, "9.9.9"));	/* skipped before its kernel was needed */
	free_verdicts(v, 2);
	tg_ctx_free(ctx);
}

/* A kernel that cannot be gathered: strict fails naming it, lenient judges and says so. */
static void test_judge_kernel_failure(void **state)
{
	struct asked a = { 0 };
	struct tg_ctx *ctx = new_ctx(&a);
	struct tg_judge_item it = { .path = "/lib/modules/6.6.6-broken/a.ko", .error = "bad" };
	struct tg_verdict v;
	struct tg_error err = { 0 };

	(void)state;
	assert_int_equal(tg_judge(ctx, NULL, &it, 1, TG_JUDGE_KERNEL_STRICT, &v, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no export table for broken"));
	assert_null(v.path);	/* nothing half-filled */

	memset(&err, 0, sizeof(err));
	assert_int_equal(tg_judge(ctx, NULL, &it, 1, 0, &v, &err), 1);
	assert_non_null(strstr(err.msg, "kernel 6.6.6-broken: "));
	assert_string_equal(v.path, "/lib/modules/6.6.6-broken/a.ko");
	free_verdicts(&v, 1);
	tg_ctx_free(ctx);
}

/* ----------------------------------------------------------------- policy */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_policy_open_named_broken(void **state)
{
	char path[] = "/tmp/tg-test-judge-XXXXXX";
	struct tg_policy *p = (struct tg_policy *)1;
	struct tg_error err = { 0 };
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_file(path, "version: [unclosed\n");
	/* the CLI's way: an error naming the file */
	assert_true(tg_policy_open(path, NULL, TG_POLICY_BUILTIN_IF_ABSENT, &p, &err) < 0);
	assert_null(p);
	assert_non_null(strstr(err.msg, path));
	/* a transaction's way: the built-in policy, and why */
	memset(&err, 0, sizeof(err));
	assert_int_equal(tg_policy_open(path, NULL, TG_POLICY_FALLBACK, &p, &err), 1);
	assert_null(p);
	assert_non_null(strstr(err.msg, path));
	unlink(path);
}

static void test_policy_open_named_missing(void **state)
{
	struct tg_policy *p = NULL;
	struct tg_error err = { 0 };

	(void)state;
	/* named and absent is an error even where an absent default is not */
	assert_true(tg_policy_open("/nonexistent/policy.yaml", NULL, TG_POLICY_BUILTIN_IF_ABSENT,
				   &p, &err) < 0);
	assert_null(p);
}

static void test_policy_open_named_good(void **state)
{
	char path[] = "/tmp/tg-test-judge-XXXXXX";
	struct tg_policy *p = NULL;
	struct tg_error err = { 0 };
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	/* the built-in policy's own text is a good policy file */
	assert_int_equal(tg_policy_dump(tg_policy_builtin(), (f = fdopen(fd, "w"))), 0);
	fclose(f);
	assert_int_equal(tg_policy_open(path, NULL, TG_POLICY_FALLBACK, &p, &err), 0);
	assert_non_null(p);
	assert_string_equal(tg_policy_source(p), path);
	tg_policy_free(p);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release_override_wins),
		cmocka_unit_test(test_release_from_path),
		cmocka_unit_test(test_release_none),
		cmocka_unit_test(test_judge_asks_each_release),
		cmocka_unit_test(test_judge_unreadable_is_error),
		cmocka_unit_test(test_judge_context_has_no_verdict),
		cmocka_unit_test(test_judge_kernel_failure),
		cmocka_unit_test(test_policy_open_named_broken),
		cmocka_unit_test(test_policy_open_named_missing),
		cmocka_unit_test(test_policy_open_named_good),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
