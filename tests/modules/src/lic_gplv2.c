// SPDX-License-Identifier: GPL-2.0
/* licence "GPL v2" (GPL-compatible) with ktime_get */
#define TG_USE_KTIME
#include "tg.h"

MODULE_LICENSE("GPL v2");
MODULE_DESCRIPTION("taintguard test: licence \"GPL v2\" (GPL-compatible) with ktime_get");
