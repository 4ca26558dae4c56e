// SPDX-License-Identifier: GPL-2.0
/* .shstrtab retyped SHT_PROGBITS after build: the loader still finds its sections by name */
#define TG_USE_KTIME
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: GPL module, section names in a table typed PROGBITS");
