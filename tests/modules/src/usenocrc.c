// SPDX-License-Identifier: GPL-2.0
/*
 * GPL module calling tg_nocrc_gpl_fn of nocrcexp.ko, whose CRCs are removed
 * after the build: check_version() accepts an import whose exporter has no
 * CRC ("we're already tainted"), so it loads without an F of its own
 */
#define TG_USE_NOCRC
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: imports from a module whose exports have no CRCs");
