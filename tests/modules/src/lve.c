// SPDX-License-Identifier: GPL-2.0
/* named lve (forced P taint) with GPL-only imports */
#define TG_USE_KTIME
#define TG_USE_BINFILE
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: named lve (forced P taint) with GPL-only imports");
