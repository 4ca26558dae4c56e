/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the module facts record (lib/module_facts.c: what the audit cache
 * keeps of a module).  The first byte says what follows:
 *
 *   'F'  a facts record: read it; when it is accepted, write it again and
 *        read that back (the same bytes must come out), and predict it as
 *        the audit would (a record the reader accepts must never crash a
 *        prediction);
 *   'M'  a module image: read it, write its facts, read them back, and
 *        require the same facts and the same verdict, byte for byte, as the
 *        module itself gives.
 *
 * Any mismatch aborts.  TG_FACTS_EMIT=FILE writes the facts of the first
 * 'M' input to FILE (tests/fuzz/seeds.sh makes the 'F' seeds that way).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taintguard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *verdict_json(const struct tg_module *m)
{
	struct tg_verdict v = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (tg_predict(m->label, m, NULL, NULL, &v) < 0)
		return strdup("(error)");
	f = open_memstream(&buf, &len);
	if (f) {
		tg_verdict_write_json(&v, f);
		fclose(f);
	}
	tg_verdict_free_contents(&v);
	return buf;
}

static void same_or_abort(const void *a, size_t la, const void *b, size_t lb, const char *what)
{
	if (la != lb || memcmp(a, b, la)) {
		fprintf(stderr, "fuzz_facts: %s differ\n", what);
		abort();
	}
}

/* @m's facts, written, read back and compared; returns the written bytes. */
static void round_trip(const struct tg_module *m, const struct tg_limits *lim, bool verdicts)
{
	struct tg_module *back = NULL;
	struct tg_error err = { 0 };
	void *w1 = NULL, *w2 = NULL;
	size_t l1 = 0, l2 = 0;

	if (tg_module_facts_write(m, &w1, &l1) < 0)
		return;
	if (tg_module_facts_read(w1, l1, lim, &back, &err) < 0) {
		fprintf(stderr, "fuzz_facts: written facts do not read back: %s\n", err.msg);
		abort();
	}
	if (tg_module_facts_write(back, &w2, &l2) == 0)
		same_or_abort(w1, l1, w2, l2, "facts written twice");
	if (verdicts) {
		char *j1 = verdict_json(m), *j2 = verdict_json(back);

		if (j1 && j2)
			same_or_abort(j1, strlen(j1), j2, strlen(j2), "verdicts of a module and its facts");
		free(j1);
		free(j2);
	}
	{
		const char *emit = getenv("TG_FACTS_EMIT");
		FILE *f;

		if (emit && *emit && (f = fopen(emit, "wb"))) {
			fputc('F', f);
			fwrite(w1, 1, l1, f);
			fclose(f);
			unsetenv("TG_FACTS_EMIT");
		}
	}
	tg_module_free(back);
	free(w1);
	free(w2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tg_limits lim;
	static bool init;
	struct tg_module *m = NULL;
	struct tg_error err = { 0 };

	if (!init) {
		tg_limits_default(&lim);
		lim.max_module_size = 16u << 20;
		init = true;
	}
	if (size < 1)
		return 0;
	if (data[0] == 'F') {
		if (tg_module_facts_read(data + 1, size - 1, &lim, &m, &err) == 0) {
			char *j = verdict_json(m);

			free(j);
			round_trip(m, &lim, false);
		}
	} else if (data[0] == 'M') {
		if (tg_module_open_mem(data + 1, size - 1, "fuzz.ko", &lim, &m, &err) == 0)
			round_trip(m, &lim, true);
	}
	tg_module_free(m);
	return 0;
}
