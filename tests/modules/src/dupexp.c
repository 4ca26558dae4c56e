// SPDX-License-Identifier: GPL-2.0
/*
 * GPL module exporting tg_plain_fn, which exporter.ko exports too: loaded
 * after exporter, the loader refuses it ("exports duplicate symbol
 * tg_plain_fn (owned by exporter)", -ENOEXEC)
 */
#include "tg.h"

/* exported, so not static; declared for -Wmissing-prototypes (6.8+) */
int tg_plain_fn(void);
int tg_plain_fn(void)
{
	return 6;
}
EXPORT_SYMBOL(tg_plain_fn);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: exports tg_plain_fn a second time (after exporter.ko)");
