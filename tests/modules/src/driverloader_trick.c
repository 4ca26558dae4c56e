// SPDX-License-Identifier: GPL-2.0
/* Linuxant licence string with an embedded NUL, imports ktime_get */
#define TG_USE_KTIME
#include "tg.h"

/*
 * What MODULE_LICENSE() puts into .modinfo, written out by hand: newer
 * kernels' MODULE_INFO() refuses an embedded NUL at compile time (a
 * static_assert), but the loader still reads what a module carries.
 */
static const char tg_trick_license[] __used __section(".modinfo") __aligned(1) =
	"license=GPL\0for files in the \"GPL\" directory; for others, only LICENSE file applies";
MODULE_DESCRIPTION("taintguard test: Linuxant licence string with an embedded NUL, imports ktime_get");
