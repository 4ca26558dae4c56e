// SPDX-License-Identifier: GPL-2.0
/* GPL module using the GPL-only ktime_get */
#define TG_USE_KTIME
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: GPL module using the GPL-only ktime_get");
