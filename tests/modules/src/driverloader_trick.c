// SPDX-License-Identifier: GPL-2.0
/* Linuxant licence string with an embedded NUL, imports ktime_get */
#define TG_USE_KTIME
#include "tg.h"

MODULE_LICENSE("GPL\0for files in the \"GPL\" directory; for others, only LICENSE file applies");
MODULE_DESCRIPTION("taintguard test: Linuxant licence string with an embedded NUL, imports ktime_get");
