// SPDX-License-Identifier: GPL-2.0
/*
 * licence edited to "MIT" and .strtab retyped SHT_PROGBITS after build,
 * imports ktime_get: the loader still reads the symbol names, so the
 * GPL-only import is still denied
 */
#define TG_USE_KTIME
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: proprietary, symbol names in a string table typed PROGBITS");
