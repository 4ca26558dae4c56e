// SPDX-License-Identifier: GPL-2.0
/* licence "Dual MPL/GPL" with ktime_get */
#define TG_USE_KTIME
#include "tg.h"

MODULE_LICENSE("Dual MPL/GPL");
MODULE_DESCRIPTION("taintguard test: licence \"Dual MPL/GPL\" with ktime_get");
