// SPDX-License-Identifier: GPL-2.0
/* licence "Dual BSD/GPL" with ktime_get */
#define TG_USE_KTIME
#include "tg.h"

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("taintguard test: licence \"Dual BSD/GPL\" with ktime_get");
