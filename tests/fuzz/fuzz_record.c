/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz the mark record reader (taintguard-mark/1 and /2, docs/records.md). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "taintguard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tg_record *rec = NULL;
	size_t sum = 0;

	if (tg_record_parse(data, size, "fuzz.json", &rec, NULL) == 0) {
		/* touch what a reader of the record uses */
		sum += strlen(rec->package) + strlen(rec->format);
		for (size_t i = 0; i < rec->n_modules; i++) {
			const struct tg_record_module *m = &rec->modules[i];

			sum += strlen(m->taint) + strlen(m->json);
			for (size_t k = 0; k < m->n_reasons; k++)
				sum += strlen(m->reasons[k]);
		}
		tg_record_free(rec);
	}
	return sum == 1;	/* never: keeps the loop from being optimized away */
}
