/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz the kernel image reader: container headers (bzImage, EFI zboot), the
 * five decompressors, ELF and Image headers, System.map, the certificate
 * list search and the certificates themselves.  An input that starts with
 * "SYSMAP\n" carries a System.map up to the first empty line, then the image.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "taintguard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tg_limits lim;
	struct tg_keyring *kr = NULL;
	struct tg_cert_info ci;
	const char *map = NULL;
	size_t maplen = 0;

	/* the image reader is fuzzed, not the cache: every input decoded, none kept */
	setenv("TAINTGUARD_IMAGE_CACHE", "off", 1);
	tg_limits_default(&lim);
	lim.max_kernel_image_size = 8u << 20;	/* keep each run fast */
	if (size >= 7 && !memcmp(data, "SYSMAP\n", 7)) {
		const uint8_t *end = memmem(data + 7, size - 7, "\n\n", 2);

		if (end) {
			map = (const char *)data + 7;
			maplen = (size_t)(end - data) - 7;
			size -= (size_t)(end + 2 - data);
			data = end + 2;
		}
	}
	if (tg_keyring_load_image_mem(data, size, "fuzz.vmlinuz", map, maplen, &lim, &kr, NULL) < 0)
		return 0;
	for (size_t i = 0; i < tg_keyring_count(kr); i++)
		(void)tg_keyring_cert(kr, i, &ci);
	tg_keyring_free(kr);
	return 0;
}
