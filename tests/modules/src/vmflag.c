// SPDX-License-Identifier: GPL-2.0
/* vermagic flag mod_unload changed to mod_unloaX after build */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: vermagic flag mod_unload changed to mod_unloaX after build");
