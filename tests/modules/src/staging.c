// SPDX-License-Identifier: GPL-2.0
/* staging=Y (TAINT_CRAP) */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: staging=Y (TAINT_CRAP)");
MODULE_INFO(staging, "Y");
