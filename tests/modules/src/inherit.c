// SPDX-License-Identifier: GPL-2.0
/* GPL module importing only tg_prop_fn from the proprietary propexp */
#define TG_USE_PROP
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: GPL module importing only tg_prop_fn from the proprietary propexp");
