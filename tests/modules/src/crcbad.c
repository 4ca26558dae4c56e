// SPDX-License-Identifier: GPL-2.0
/* CRC of _printk in __versions flipped after build */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: CRC of _printk in __versions flipped after build");
