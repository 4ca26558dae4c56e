/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz the module reader (decompression, ELF, .modinfo, symbols, __versions,
 * signature) and the predictor on what it read, from raw bytes.
 */
#include <stddef.h>
#include <stdint.h>

#include "taintguard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tg_limits lim;
	struct tg_module *m = NULL;
	struct tg_verdict v;

	tg_limits_default(&lim);
	lim.max_module_size = 8u << 20;	/* keep each run fast */
	if (tg_module_open_mem(data, size, "fuzz.ko", &lim, &m, NULL) < 0)
		return 0;
	if (tg_predict("fuzz.ko", m, NULL, NULL, &v) == 0)
		tg_verdict_free_contents(&v);
	tg_module_free(m);
	return 0;
}
