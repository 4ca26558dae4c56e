// SPDX-License-Identifier: GPL-2.0
/* no supported=: SUSE's TAINT_NO_SUPPORT, or a refusal when kernel.unsupported is 0 */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: no supported= (SUSE's supported flag)");
