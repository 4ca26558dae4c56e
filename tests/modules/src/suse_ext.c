// SPDX-License-Identifier: GPL-2.0
/* supported=external: SUSE's TAINT_EXTERNAL_SUPPORT (a SUSE kernel), nothing elsewhere */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: supported=external (SUSE's supported flag)");
MODULE_INFO(supported, "external");
