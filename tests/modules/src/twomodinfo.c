// SPDX-License-Identifier: GPL-2.0
/* GPL; after the build its .comment section is renamed .modinfo: two sections of that name */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: a second section named .modinfo");
