// SPDX-License-Identifier: GPL-2.0
/* Proprietary module that exports a plain (EXPORT_SYMBOL) function */
#include "tg.h"

/* exported, so not static; declared for -Wmissing-prototypes (6.8+) */
int tg_prop_fn(void);
int tg_prop_fn(void)
{
	return 1;
}
EXPORT_SYMBOL(tg_prop_fn);

MODULE_LICENSE("Proprietary");
MODULE_DESCRIPTION("taintguard test: Proprietary module exporting tg_prop_fn with EXPORT_SYMBOL");
