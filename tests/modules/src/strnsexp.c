// SPDX-License-Identifier: GPL-2.0
/*
 * GPL module exporting tg_strns_fn in namespace "TG.str-ns": since 6.13
 * namespaces are string literals, so a namespace need not be a C identifier
 */
#include "tg.h"

/* exported, so not static; declared for -Wmissing-prototypes (6.8+) */
int tg_strns_fn(void);
int tg_strns_fn(void)
{
	return 7;
}
EXPORT_SYMBOL_NS_GPL(tg_strns_fn, "TG.str-ns");

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: exports tg_strns_fn in the string namespace TG.str-ns");
