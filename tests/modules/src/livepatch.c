// SPDX-License-Identifier: GPL-2.0
/* livepatch=Y (TAINT_LIVEPATCH) */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: livepatch=Y (TAINT_LIVEPATCH)");
MODULE_INFO(livepatch, "Y");
