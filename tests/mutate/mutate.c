/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Mutation test of the module reader and predictor: every test module,
 * truncated at many offsets and with random byte flips (fixed seed), read
 * in-process.  Each mutant must give a verdict or an error naming the file,
 * within a time bound, and a module cut anywhere inside its ELF part must
 * never come out "allow" (what could not be read is never clean).  A module
 * whose signature verifies with the kernel's key must never come out "allow"
 * with a byte of its signed part changed: the kernel rejects the signature.
 *
 *   mutate KVER POLICY FILE...     prints TAP-style lines, "N passed, N failed"
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "taintguard.h"
#include "internal.h"

#define CUTS 256	/* truncation points per module */
#define FLIPS 600	/* mutants with 1-8 flipped bytes per module */
#define SECONDS_PER_MUTANT 10

static const struct tg_kernel *kern;
static const struct tg_policy *pol;
static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static unsigned long long next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void on_alarm(int sig)
{
	static const char msg[] = "not ok - a mutant hung (time bound exceeded)\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/* -1 error (message checked), else the action; *verified: the signature verified. */
static int judge(const void *buf, size_t len, const char *label, char *why, size_t whylen,
		 bool *verified)
{
	struct tg_error err = { 0 };
	struct tg_module *m = NULL;
	struct tg_verdict v;
	int r, action;

	alarm(SECONDS_PER_MUTANT);
	r = tg_module_open_mem(buf, len, label, NULL, &m, &err);
	if (r < 0) {
		alarm(0);
		if (strncmp(err.msg, label, strlen(label)) != 0)
			snprintf(why, whylen, "error does not name the file: '%s'", err.msg);
		return -1;
	}
	r = tg_predict(label, m, kern, pol, &v);
	alarm(0);
	if (r < 0) {
		snprintf(why, whylen, "predict failed: %d", r);
		tg_module_free(m);
		return -1;
	}
	action = (int)v.action;
	if (verified)
		*verified = v.signature && !strcmp(v.signature, "verified");
	tg_verdict_free_contents(&v);
	tg_module_free(m);
	return action;
}

static int run_file(const char *path)
{
	struct tg_module *m = NULL;
	unsigned char *buf = NULL, *mut;
	size_t len = 0, elf_len;
	char why[600] = "";
	bool verified = false;
	int bad = 0;

	if (tg_read_path(path, 64u << 20, (void **)&buf, &len, NULL) < 0 ||
	    tg_module_open_mem(buf, len, path, NULL, &m, NULL) < 0) {
		printf("not ok - %s: the unmutated module does not read\n", path);
		free(buf);
		return 1;
	}
	/* bytes before an appended signature (cutting into the signature leaves a valid unsigned module) */
	elf_len = m->sig.present && !m->sig.malformed && m->compression == TG_COMP_NONE ?
		  len - 40 - m->sig.sig_len : len;
	tg_module_free(m);
	judge(buf, len, path, why, sizeof(why), &verified);
	mut = malloc(len + 1);
	for (unsigned i = 0; i < CUTS && !bad; i++) {
		size_t cut = (size_t)((unsigned long long)elf_len * i / CUTS);
		int a;

		why[0] = 0;
		a = judge(buf, cut, path, why, sizeof(why), NULL);
		if (why[0] || a == TG_ACTION_ALLOW) {
			printf("not ok - %s cut at %zu of %zu: %s\n", path, cut, len,
			       why[0] ? why : "allowed although truncated");
			bad = 1;
		}
	}
	for (unsigned i = 0; i < FLIPS && !bad; i++) {
		unsigned n = 1 + (unsigned)(next_rand() % 8);
		bool signed_part = true;
		int a;

		memcpy(mut, buf, len);
		for (unsigned j = 0; j < n; j++) {
			size_t at = next_rand() % len;

			mut[at] ^= (unsigned char)(1 + next_rand() % 255);
			signed_part = signed_part && at < elf_len;
		}
		why[0] = 0;
		a = judge(mut, len, path, why, sizeof(why), NULL);
		if (!why[0] && verified && signed_part && a == TG_ACTION_ALLOW)
			snprintf(why, sizeof(why), "allowed although its signed bytes changed");
		if (why[0]) {
			printf("not ok - %s with %u flipped bytes (mutant %u): %s\n", path, n, i, why);
			bad = 1;
		}
	}
	if (!bad)
		printf("ok - %s: %u truncations, %u flip mutants%s\n", path, CUTS, FLIPS,
		       verified ? " (signature verified: no changed signed byte allowed)" : "");
	free(mut);
	free(buf);
	return bad;
}

int main(int argc, char **argv)
{
	struct tg_kernel_opts ko = { .release = argv[1] };
	struct tg_kernel *k = NULL;
	struct tg_policy *p = NULL;
	struct tg_error err = { 0 };
	int pass = 0, fail = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: mutate KVER POLICY FILE...\n");
		return 2;
	}
	signal(SIGALRM, on_alarm);
	if (tg_kernel_load(&ko, &k, &err) < 0 || tg_policy_load_path(argv[2], NULL, &p, &err) < 0) {
		printf("not ok - setup: %s\n0 passed, 1 failed\n", err.msg);
		return 1;
	}
	kern = k;
	pol = p;
	for (int i = 3; i < argc; i++) {
		if (run_file(argv[i]))
			fail++;
		else
			pass++;
	}
	printf("%d passed, %d failed\n", pass, fail);
	tg_kernel_free(k);
	tg_policy_free(p);
	return fail ? 1 : 0;
}
