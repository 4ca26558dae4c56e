/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz the Module.symvers parser (plain and compressed, detected by magic). */
#include <stddef.h>
#include <stdint.h>

#include "taintguard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tg_symvers *sv = NULL;

	if (tg_symvers_load_mem(data, size, "fuzz.symvers", NULL, &sv, NULL) == 0) {
		(void)tg_symvers_lookup(sv, "ktime_get");
		tg_symvers_free(sv);
	}
	return 0;
}
