// SPDX-License-Identifier: GPL-2.0
/* vermagic entry blanked after build */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: vermagic entry blanked after build");
