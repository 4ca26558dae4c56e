// SPDX-License-Identifier: GPL-2.0
/*
 * as strnsok; build.sh rewrites the import to "TG.STR-NS" (modpost would
 * refuse it): the loader compares namespaces with strcmp(), so it is refused
 */
#define TG_USE_STRNS
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: imports tg_strns_fn, declares the namespace in another case");
MODULE_IMPORT_NS("TG.str-ns");
