// SPDX-License-Identifier: GPL-2.0
/* intree=N: key present, so no out-of-tree taint */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: intree=N: key present, so no out-of-tree taint");
MODULE_INFO(intree, "N");
