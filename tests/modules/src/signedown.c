// SPDX-License-Identifier: GPL-2.0
/* signed with a key generated at test time (not trusted by the kernel) */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: signed with a key generated at test time (not trusted by the kernel)");
