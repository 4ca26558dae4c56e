// SPDX-License-Identifier: GPL-2.0
/*
 * GPL, built with -fcommon and one uninitialised global that is never
 * defined elsewhere: it stays a common (SHN_COMMON) symbol in the .ko, which
 * the loader refuses ("Please compile with -fno-common", -ENOEXEC)
 */
#define TG_USE_KTIME
#include "tg.h"

int tg_common_var;

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: a common symbol (built with -fcommon)");
