/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz each decompressor: the first byte picks xz, zstd or gzip. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "taintguard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum tg_compression kinds[] = { TG_COMP_XZ, TG_COMP_ZSTD, TG_COMP_GZIP };
	void *out = NULL;
	size_t outlen = 0;

	if (size < 1)
		return 0;
	if (tg_decompress(kinds[data[0] % 3], data + 1, size - 1, 1u << 20, &out, &outlen,
			  "fuzz", NULL) == 0)
		free(out);
	return 0;
}
