// SPDX-License-Identifier: GPL-2.0
/*
 * GPL; after the build its .gnu.linkonce.this_module section is declared
 * 32 bytes shorter than the kernel's struct module (as if built against other
 * headers): 6.4+ loaders refuse it, 6.1 has no such check
 */
#define TG_USE_KTIME
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: struct module section of another size");
