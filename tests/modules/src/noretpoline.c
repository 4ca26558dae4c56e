// SPDX-License-Identifier: GPL-2.0
/* retpoline entry blanked after build */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: retpoline entry blanked after build");
