// SPDX-License-Identifier: GPL-2.0
/* imports tg_strns_fn from the string namespace "TG.str-ns" and declares the import */
#define TG_USE_STRNS
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: imports tg_strns_fn and declares namespace TG.str-ns");
MODULE_IMPORT_NS("TG.str-ns");
