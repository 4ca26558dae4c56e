// SPDX-License-Identifier: GPL-2.0
/* licence "Dual MIT/GPL" with ktime_get */
#define TG_USE_KTIME
#include "tg.h"

MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("taintguard test: licence \"Dual MIT/GPL\" with ktime_get");
