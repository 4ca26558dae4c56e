// SPDX-License-Identifier: GPL-2.0
/* SHF_ALLOC of __versions cleared after build */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: SHF_ALLOC of __versions cleared after build");
