// SPDX-License-Identifier: GPL-2.0
/*
 * GPL module exporting one plain and one GPL-only symbol; after the build its
 * CRC sections (__kcrctab, __kcrctab_gpl) are renamed, so a modversions kernel
 * finds exports without versions: try_to_force_load() ("no versions for
 * exported symbols"), F with CONFIG_MODULE_FORCE_LOAD
 */
#include "tg.h"

/* exported, so not static; declared for -Wmissing-prototypes (6.8+) */
int tg_nocrc_fn(void);
int tg_nocrc_fn(void)
{
	return 4;
}
EXPORT_SYMBOL(tg_nocrc_fn);

/* exported, so not static; declared for -Wmissing-prototypes (6.8+) */
int tg_nocrc_gpl_fn(void);
int tg_nocrc_gpl_fn(void)
{
	return 5;
}
EXPORT_SYMBOL_GPL(tg_nocrc_gpl_fn);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: exports whose CRC sections were renamed after the build");
