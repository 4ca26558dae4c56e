// SPDX-License-Identifier: GPL-2.0
/* GPL module importing sysfs_create_bin_file (GPL-only) and tg_prop_fn from the proprietary propexp; the GPL-only symbol comes first in .symtab */
#define TG_USE_BINFILE
#define TG_USE_PROP
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: GPL module importing sysfs_create_bin_file (GPL-only, first in .symtab) and tg_prop_fn from the proprietary propexp");
