// SPDX-License-Identifier: GPL-2.0
/* bogus module signature trailer appended */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: bogus module signature trailer appended");
