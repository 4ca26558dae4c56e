// SPDX-License-Identifier: GPL-2.0
/* imports tg_ns_fn from namespace TGNS and declares the import */
#define TG_USE_NS
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: imports tg_ns_fn from namespace TGNS and declares the import");
MODULE_IMPORT_NS(TG_NS(TGNS));
