// SPDX-License-Identifier: GPL-2.0
/* licence "GPL and additional rights" with ktime_get */
#define TG_USE_KTIME
#include "tg.h"

MODULE_LICENSE("GPL and additional rights");
MODULE_DESCRIPTION("taintguard test: licence \"GPL and additional rights\" with ktime_get");
