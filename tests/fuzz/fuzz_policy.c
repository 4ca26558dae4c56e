/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz the YAML policy reader, and use what it accepts. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "taintguard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tg_policy *p = NULL;
	struct tg_facts f = { .module = "lve", .kversion = TG_KVER(6, 1, 0), .taint = 1 };
	struct tg_decision d;
	FILE *null;

	if (tg_policy_load_mem(data, size, "fuzz.yaml", NULL, &p, NULL) < 0)
		return 0;
	tg_policy_decide(p, &f, &d);
	(void)tg_policy_forced_taint(p, TG_KVER(6, 1, 0), "lve");
	(void)tg_policy_license_gpl_compatible(p, TG_KVER(6, 1, 0), "GPL");
	null = fopen("/dev/null", "w");
	if (null) {
		tg_policy_dump(p, null);
		fclose(null);
	}
	tg_policy_free(p);
	return 0;
}
