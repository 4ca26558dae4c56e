// SPDX-License-Identifier: GPL-2.0
/* GPL module exporting one symbol in namespace TGNS and one plain symbol */
#include "tg.h"

/* exported, so not static; declared for -Wmissing-prototypes (6.8+) */
int tg_ns_fn(void);
int tg_ns_fn(void)
{
	return 2;
}
EXPORT_SYMBOL_NS_GPL(tg_ns_fn, TG_NS(TGNS));

/* exported, so not static; declared for -Wmissing-prototypes (6.8+) */
int tg_plain_fn(void);
int tg_plain_fn(void)
{
	return 3;
}
EXPORT_SYMBOL(tg_plain_fn);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: exports tg_ns_fn (GPL, namespace TGNS) and tg_plain_fn (plain)");
