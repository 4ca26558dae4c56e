// SPDX-License-Identifier: GPL-2.0
/*
 * GPL module whose .modinfo entry tgimp_pad=module:modnsok build.sh renames
 * to import_ns=: an explicit import of a module namespace, which 6.16+
 * loaders refuse with -EPERM (modpost would not build it)
 */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: imports the namespace module:modnsok explicitly");
MODULE_INFO(tgimp_pad, "module:modnsok");
