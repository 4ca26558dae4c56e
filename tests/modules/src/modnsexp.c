// SPDX-License-Identifier: GPL-2.0
/*
 * GPL module exporting tg_modns_fn for module modnsok only (namespace
 * "module:modnsok"): EXPORT_SYMBOL_GPL_FOR_MODULES in 6.16, renamed
 * EXPORT_SYMBOL_FOR_MODULES in 6.17
 */
#include "tg.h"

/* exported, so not static; declared for -Wmissing-prototypes (6.8+) */
int tg_modns_fn(void);
int tg_modns_fn(void)
{
	return 8;
}
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
EXPORT_SYMBOL_FOR_MODULES(tg_modns_fn, "modnsok");
#else
EXPORT_SYMBOL_GPL_FOR_MODULES(tg_modns_fn, "modnsok");
#endif

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: exports tg_modns_fn for module modnsok only");
