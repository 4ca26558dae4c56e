// SPDX-License-Identifier: GPL-2.0
/* licence "gpl" (wrong case: not GPL-compatible to the kernel) */
#include "tg.h"

MODULE_LICENSE("gpl");
MODULE_DESCRIPTION("taintguard test: licence \"gpl\" (wrong case: not GPL-compatible to the kernel)");
