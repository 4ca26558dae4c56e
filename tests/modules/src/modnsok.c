// SPDX-License-Identifier: GPL-2.0
/*
 * the module modnsexp exports tg_modns_fn for: uses it without importing any
 * namespace; build.sh also makes modnsno.ko, the same module named modnsno
 */
#define TG_USE_MODNS
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: uses tg_modns_fn, exported for this module only");
