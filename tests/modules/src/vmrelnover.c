// SPDX-License-Identifier: GPL-2.0
/* vermagic release changed and __versions SHF_ALLOC cleared after build */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: vermagic release changed and __versions SHF_ALLOC cleared after build");
