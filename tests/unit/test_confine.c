/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The confined module reader (lib/confine.c): a module read confined has the
 * same facts as one read in this process; a reader that attempts a
 * forbidden system call (openat, execve), crashes, hangs or eats memory
 * makes the module unreadable, judged as any unreadable module, and the
 * next module is read normally.  Linked with the reader built with
 * TG_TEST_HOOKS (Makefile): a module carrying "TG_TEST_HOOK=<what>" makes
 * the reader do <what>.  The module is the target kernel's own dummy.ko.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <pthread.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <seccomp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "taintguard.h"
#include "target.h"
#include "confine.h"

#define DUMMY target_module("/lib/modules/%s/kernel/drivers/net/dummy.ko")

static unsigned char *raw;	/* the module file as installed (compressed, signed) */
static size_t raw_len;
static unsigned char *plain;	/* its ELF alone, with room for a marker after it */
static size_t plain_len;

static int setup(void **state)
{
	struct tg_module *m = NULL;
	struct tg_error err = { 0 };
	void *img = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	/* a hung reader is the test's: do not wait the default minute for it */
	setenv("TG_CONFINE_TIMEOUT", "10", 1);
	/* as the front ends do, while this program has one thread */
	if (tg_reader_init() < 0)
		return -1;
	if (!target_release() || !(f = fopen(DUMMY, "r"))) {
		printf("skip: no %s\n", target_release() ? DUMMY : "target kernel (TG_KERNEL)");
		return 0;
	}
	fseek(f, 0, SEEK_END);
	raw_len = (size_t)ftell(f);
	rewind(f);
	raw = malloc(raw_len);
	if (!raw || fread(raw, 1, raw_len, f) != raw_len)
		return -1;
	fclose(f);
	if (tg_decompress(tg_compression_detect(raw, raw_len), raw, raw_len, 1u << 30, &img, &len,
			  "dummy.ko", &err) < 0 ||
	    tg_module_parse_mem(raw, raw_len, "dummy.ko", NULL, &m, &err) < 0)
		return -1;
	/* the signature is dropped, so that bytes after the ELF are only a marker */
	plain_len = len;
	if (m->sig.present && !m->sig.malformed)
		plain_len = len - 28 - 12 - m->sig.sig_len;
	plain = malloc(plain_len + 64);
	if (!plain)
		return -1;
	memcpy(plain, img, plain_len);
	free(img);
	tg_module_free(m);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(raw);
	free(plain);
	return 0;
}

#define NEED_MODULE() do { if (!raw) skip(); } while (0)

/* plain + "TG_TEST_HOOK=<what>" */
static size_t hooked(const char *what)
{
	int n = snprintf((char *)plain + plain_len, 64, "TG_TEST_HOOK=%s", what);

	return plain_len + (size_t)n;
}

static void facts_equal(const struct tg_module *a, const struct tg_module *b)
{
	void *fa, *fb;
	size_t la, lb;

	assert_int_equal(tg_module_facts_write(a, &fa, &la), 0);
	assert_int_equal(tg_module_facts_write(b, &fb, &lb), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(fa, fb, la);
	free(fa);
	free(fb);
}

/* Confined or not, the same facts: the signed, compressed file as installed, and its ELF. */
static void test_same_facts(void **state)
{
	struct tg_module *here = NULL, *conf = NULL;
	struct tg_error err = { 0 };

	(void)state;
	NEED_MODULE();
	assert_true(tg_confine_enabled());
	assert_int_equal(tg_module_parse_mem(raw, raw_len, "dummy.ko", NULL, &here, &err), 0);
	assert_int_equal(tg_module_open_mem(raw, raw_len, "dummy.ko", NULL, &conf, &err), 0);
	facts_equal(here, conf);
	assert_string_equal(conf->name, "dummy");
	assert_true(conf->sig.present);
	tg_module_free(here);
	tg_module_free(conf);
	assert_int_equal(tg_module_parse_mem(plain, plain_len, "dummy.ko", NULL, &here, &err), 0);
	assert_int_equal(tg_module_open_mem(plain, plain_len, "dummy.ko", NULL, &conf, &err), 0);
	facts_equal(here, conf);
	tg_module_free(here);
	tg_module_free(conf);
}

/* The reader's own errors come back as they are. */
static void test_errors_pass_through(void **state)
{
	struct tg_module *m = NULL;
	struct tg_error err = { 0 };

	(void)state;
	assert_int_equal(tg_module_open_mem("hello", 5, "text.ko", NULL, &m, &err), -ENOEXEC);
	assert_non_null(strstr(err.msg, "text.ko: not an ELF file"));
	assert_null(m);
}

/*
 * A caller that wants no message passes no error struct (the fuzz harnesses
 * do): a failed read, decompression or batch still only returns its error.
 */
static void test_errors_without_struct(void **state)
{
	const void *data[2] = { "hello", "world" };
	const size_t len[2] = { 5, 5 };
	const char *label[2] = { "a.ko", "b.ko" };
	struct tg_module *m = NULL, *ms[2];
	void *out = NULL;
	size_t olen = 0;
	int r[2];

	(void)state;
	assert_int_equal(tg_module_open_mem("hello", 5, "text.ko", NULL, &m, NULL), -ENOEXEC);
	assert_null(m);
	assert_int_equal(tg_module_open_mem_many(2, data, len, label, NULL, ms, NULL, r), 0);
	assert_int_equal(r[0], -ENOEXEC);
	assert_int_equal(r[1], -ENOEXEC);
	assert_int_equal(tg_decompress(TG_COMP_XZ, "\xfd" "7zXZ", 6, 1u << 20, &out, &olen, "bad.xz",
				       NULL), -EBADMSG);
	free(out);
}

/* The verdict of @len bytes of plain (NULL module: the open's error) with the target's kernel. */
static void judge(size_t len, struct tg_verdict *v, char *why, size_t wlen)
{
	struct tg_ctx *ctx = NULL;
	struct tg_module *m = NULL;
	struct tg_error err = { 0 };
	struct tg_judge_item it = { .path = "dummy.ko" };

	if (tg_module_open_mem(plain, len, "dummy.ko", NULL, &m, &err) < 0)
		it.error = err.msg;
	it.m = m;
	snprintf(why, wlen, "%s", err.msg);
	assert_int_equal(tg_ctx_new(&ctx), 0);
	tg_ctx_set_jobs(ctx, 1);
	assert_true(tg_judge(ctx, target_release(), &it, 1, 0, v, NULL) >= 0);
	tg_ctx_free(ctx);
	tg_module_free(m);
}

/*
 * A reader that tries @what is killed and the module is refused as an
 * unreadable one (the action of "cannot read module"); the module without
 * the marker is judged normally, by the worker that replaces the dead one.
 */
static void expect_unreadable(const char *what, const char *reason)
{
	struct tg_verdict v, base, ok;
	struct tg_ctx *ctx = NULL;
	struct tg_judge_item none = { .path = "dummy.ko" };
	char why[TG_ERRMAX];

	judge(hooked(what), &v, why, sizeof(why));
	assert_non_null(v.error);
	if (!strstr(v.error, reason))
		fail_msg("%s: reason \"%s\", expected \"%s\"", what, v.error, reason);
	assert_null(v.module);
	assert_int_equal(tg_ctx_new(&ctx), 0);
	assert_true(tg_judge(ctx, target_release(), &none, 1, 0, &base, NULL) >= 0);
	assert_int_equal(v.action, base.action);
	assert_int_not_equal(v.action, TG_ACTION_ALLOW);
	judge(plain_len, &ok, why, sizeof(why));
	assert_null(ok.error);
	assert_string_equal(ok.module, "dummy");
	tg_verdict_free_contents(&v);
	tg_verdict_free_contents(&base);
	tg_verdict_free_contents(&ok);
	tg_ctx_free(ctx);
}

static void test_openat_refused(void **state)
{
	(void)state;
	NEED_MODULE();
	expect_unreadable("openat", "confined parser was killed for a forbidden system call (seccomp)");
}

static void test_execve_refused(void **state)
{
	(void)state;
	NEED_MODULE();
	expect_unreadable("execve", "confined parser was killed for a forbidden system call (seccomp)");
}

static void test_crash_unreadable(void **state)
{
	(void)state;
	NEED_MODULE();
#ifdef __SANITIZE_ADDRESS__
	/* ASan's own abort path makes system calls the filter refuses: killed first */
	expect_unreadable("abort", "confined parser was killed for a forbidden system call (seccomp)");
#else
	expect_unreadable("abort", "confined parser died of signal 6");
#endif
}

static void test_hang_unreadable(void **state)
{
	(void)state;
	NEED_MODULE();
	expect_unreadable("hang", "confined parser took more than 10 s");
}

/* The worker's address space is limited to what the limits need: 2 GiB cannot be had. */
static void test_memory_limit(void **state)
{
	struct tg_limits lim;
	struct tg_module *m = NULL;
	struct tg_error err = { 0 };

	(void)state;
	NEED_MODULE();
#ifdef __SANITIZE_ADDRESS__
	skip();		/* no address space limit beside ASan's shadow */
#endif
	tg_limits_default(&lim);
	lim.max_input_size = 16u << 20;
	lim.max_module_size = 16u << 20;
	assert_int_equal(tg_module_open_mem(plain, hooked("eatmem"), "dummy.ko", &lim, &m, &err),
			 TG_CONFINE_FAILED);
	if (!strstr(err.msg, "confined parser died of signal 6"))
		fail_msg("eatmem: \"%s\"", err.msg);
}

/* The hooks are live: read in this process, the forbidden call succeeds and reading goes on. */
static void test_hook_works_unconfined(void **state)
{
	struct tg_module *m = NULL;
	struct tg_error err = { 0 };

	(void)state;
	NEED_MODULE();
	assert_int_equal(tg_module_parse_mem(plain, hooked("openat"), "dummy.ko", NULL, &m, &err), 0);
	assert_string_equal(m->name, "dummy");
	tg_module_free(m);
}

/* tg_decompress() is confined too: the same bytes as in this process. */
static void test_decompress_confined(void **state)
{
	struct tg_error err = { 0 };
	void *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	enum tg_compression c;

	(void)state;
	NEED_MODULE();
	c = tg_compression_detect(raw, raw_len);
	assert_int_equal(tg_decompress(c, raw, raw_len, 1u << 30, &a, &la, "dummy.ko", &err), 0);
	assert_int_equal(tg_decompress_here(c, raw, raw_len, 1u << 30, &b, &lb, "dummy.ko", &err), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	assert_int_equal(((unsigned char *)a)[la], 0);
	free(a);
	free(b);
	if (c != TG_COMP_NONE) {
		assert_int_equal(tg_decompress(c, raw, raw_len / 2, 1u << 30, &a, &la, "half.ko", &err),
				 -EBADMSG);
		free(a);
	}
}

/*
 * A worker is never forked from a thread that may share a lock with
 * another: while a thread of the caller loads providers and fetches digests
 * (OpenSSL's store locks taken for writing, over and over), modules read
 * with limits that change each time (each read starts a new worker) are
 * all read.  A worker forked by the caller itself while that thread held
 * a lock would wait for it for ever (an audit hung under load in CI).
 */
static volatile int busy_stop;

static void *openssl_busy(void *arg)
{
	char propq[64];

	(void)arg;
	for (unsigned i = 0; !busy_stop; i++) {
		OSSL_PROVIDER *p = OSSL_PROVIDER_load(NULL, "default");
		EVP_MD *md;

		snprintf(propq, sizeof(propq), "provider=default,tg%u=%u", i % 7, i);
		md = EVP_MD_fetch(NULL, "SHA2-256", propq);
		EVP_MD_free(md);
		if (p)
			OSSL_PROVIDER_unload(p);
	}
	return NULL;
}

static void test_fork_beside_locking_thread(void **state)
{
	pthread_t th;
	int bad = 0;

	(void)state;
	NEED_MODULE();
	busy_stop = 0;
	assert_int_equal(pthread_create(&th, NULL, openssl_busy, NULL), 0);
	for (int i = 0; i < 200; i++) {
		struct tg_limits lim;
		struct tg_module *m = NULL;
		struct tg_error err = { 0 };

		tg_limits_default(&lim);
		lim.max_module_size += (uint64_t)(i % 2) << 20;	/* another budget: a new worker */
		if (tg_module_open_mem(raw, raw_len, "dummy.ko", &lim, &m, &err) < 0) {
			printf("# read %d: %s\n", i, err.msg);
			bad++;
		}
		tg_module_free(m);
		if (bad)
			break;
	}
	busy_stop = 1;
	pthread_join(th, NULL);
	assert_int_equal(bad, 0);
}

/*
 * Several modules at once (batches to one worker): the same facts as one by
 * one; a module that kills its worker in the middle of a batch is the only
 * unreadable one, those behind it are read by the next worker.
 */
static void test_many(void **state)
{
	enum { N = 7, BAD = 3 };
	const void *data[N];
	size_t len[N];
	const char *label[N] = { "a.ko", "b.ko", "c.ko", "d.ko", "e.ko", "f.ko", "g.ko" };
	struct tg_module *m[N] = { 0 }, *one = NULL;
	struct tg_error err[N] = { 0 }, e1 = { 0 };
	unsigned char *bad;
	size_t blen;
	int r[N];

	(void)state;
	NEED_MODULE();
	blen = hooked("abort");
	bad = malloc(blen);
	assert_non_null(bad);
	memcpy(bad, plain, blen);
	for (int i = 0; i < N; i++) {
		data[i] = i == BAD ? (const void *)bad : i % 2 ? (const void *)raw : (const void *)plain;
		len[i] = i == BAD ? blen : i % 2 ? raw_len : plain_len;
	}
	assert_int_equal(tg_module_open_mem_many(N, data, len, label, NULL, m, err, r), 0);
	for (int i = 0; i < N; i++) {
		if (i == BAD) {
			assert_int_equal(r[i], TG_CONFINE_FAILED);
#ifdef __SANITIZE_ADDRESS__	/* ASan's abort path: killed by the filter first */
			assert_non_null(strstr(err[i].msg, "d.ko: the confined parser was killed for a forbidden"));
#else
			assert_non_null(strstr(err[i].msg, "d.ko: the confined parser died of signal 6"));
#endif
			assert_null(m[i]);
			continue;
		}
		assert_int_equal(r[i], 0);
		assert_int_equal(tg_module_open_mem(data[i], len[i], label[i], NULL, &one, &e1), 0);
		facts_equal(one, m[i]);
		assert_string_equal(m[i]->label, label[i]);
		tg_module_free(one);
		tg_module_free(m[i]);
	}
	free(bad);
}

/*
 * Modules of every size in one call: the small ones share one batch, and
 * one larger than the memory the worker shares with this process (4 MiB)
 * goes through the socket.  Returns how many were not read as in this
 * process (plain checks, no cmocka: a forked child runs it too).
 */
static int mixed_sizes_differ(void)
{
	enum { N = 20, BIG = 11, BIG_LEN = 6 << 20 };
	const void *data[N];
	size_t len[N];
	char names[N][16];
	const char *label[N];
	struct tg_module *m[N] = { 0 };
	struct tg_error err[N] = { 0 };
	unsigned char *big = calloc(1, BIG_LEN);
	int r[N], bad = 0;

	if (!big)
		return N;
	memcpy(big, plain, plain_len);	/* its ELF, then zeros: read as the ELF alone */
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "m%d.ko", i);
		label[i] = names[i];
		data[i] = i == BIG ? (const void *)big : i % 2 ? (const void *)raw : (const void *)plain;
		len[i] = i == BIG ? BIG_LEN : i % 2 ? raw_len : plain_len;
	}
	if (tg_module_open_mem_many(N, data, len, label, NULL, m, err, r) < 0)
		bad = N;
	for (int i = 0; i < N; i++) {
		struct tg_module *here = NULL;
		struct tg_error e = { 0 };
		void *fa = NULL, *fb = NULL;
		size_t la = 0, lb = 0;

		if (r[i] < 0 || tg_module_parse_mem(data[i], len[i], label[i], NULL, &here, &e) < 0 ||
		    tg_module_facts_write(here, &fa, &la) < 0 || tg_module_facts_write(m[i], &fb, &lb) < 0 ||
		    la != lb || memcmp(fa, fb, la) || strcmp(m[i]->label, label[i])) {
			printf("# %s: %s\n", label[i], r[i] < 0 ? err[i].msg : "other facts than in-process");
			bad++;
		}
		free(fa);
		free(fb);
		tg_module_free(here);
		tg_module_free(m[i]);
	}
	free(big);
	return bad;
}

static void test_many_sizes(void **state)
{
	(void)state;
	NEED_MODULE();
	assert_int_equal(mixed_sizes_differ(), 0);
}

/*
 * Where there is no memfd (an old kernel, a container's filter refusing
 * memfd_create()), every module's bytes go through the socket, a batch cut
 * where the socket's buffers could not take it: the same facts.  The child
 * is a fork of this process, so it also shows that a forked child does not
 * use its parent's worker.
 */
static void test_without_shared_memory(void **state)
{
	struct tg_module *m = NULL;
	struct tg_error err = { 0 };
	int st = -1;
	pid_t pid;

	(void)state;
	NEED_MODULE();
	/* the parent's worker exists (and its shared memory) before the fork */
	assert_int_equal(tg_module_open_mem(raw, raw_len, "dummy.ko", NULL, &m, &err), 0);
	tg_module_free(m);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		scmp_filter_ctx c = seccomp_init(SCMP_ACT_ALLOW);

		if (!c || seccomp_rule_add(c, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(memfd_create), 0) < 0 ||
		    seccomp_load(c) < 0)
			_exit(2);
		seccomp_release(c);
		_exit(mixed_sizes_differ() ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* and the parent's worker still serves the parent */
	assert_int_equal(mixed_sizes_differ(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_facts),
		cmocka_unit_test(test_errors_pass_through),
		cmocka_unit_test(test_errors_without_struct),
		cmocka_unit_test(test_openat_refused),
		cmocka_unit_test(test_execve_refused),
		cmocka_unit_test(test_crash_unreadable),
		cmocka_unit_test(test_hang_unreadable),
		cmocka_unit_test(test_memory_limit),
		cmocka_unit_test(test_hook_works_unconfined),
		cmocka_unit_test(test_decompress_confined),
		cmocka_unit_test(test_fork_beside_locking_thread),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_many_sizes),
		cmocka_unit_test(test_without_shared_memory),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
