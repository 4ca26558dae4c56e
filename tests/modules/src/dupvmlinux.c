// SPDX-License-Identifier: GPL-2.0
/*
 * GPL module exporting tg_dup_ab; after the build every "tg_dup_ab" in its
 * string tables becomes "ktime_get" (same length), so it exports a symbol
 * vmlinux exports: "exports duplicate symbol ktime_get (owned by kernel)",
 * -ENOEXEC
 */
#include "tg.h"

/* exported, so not static; declared for -Wmissing-prototypes (6.8+) */
int tg_dup_ab(void);
int tg_dup_ab(void)
{
	return 7;
}
EXPORT_SYMBOL_GPL(tg_dup_ab);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: exports a symbol named like one of vmlinux's");
