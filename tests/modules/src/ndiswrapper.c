// SPDX-License-Identifier: GPL-2.0
/* named ndiswrapper (kernel-only P taint) with ktime_get */
#define TG_USE_KTIME
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: named ndiswrapper (kernel-only P taint) with ktime_get");
