// SPDX-License-Identifier: GPL-2.0
/* test=Y (TAINT_TEST) */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: test=Y (TAINT_TEST)");
MODULE_INFO(test, "Y");
