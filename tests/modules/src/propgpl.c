// SPDX-License-Identifier: GPL-2.0
/* licence edited to "MIT" after build, imports ktime_get */
#define TG_USE_KTIME
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: licence edited to \"MIT\" after build, imports ktime_get");
