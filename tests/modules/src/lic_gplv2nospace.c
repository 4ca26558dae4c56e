// SPDX-License-Identifier: GPL-2.0
/* licence "GPLv2" (no space: not GPL-compatible) */
#include "tg.h"

MODULE_LICENSE("GPLv2");
MODULE_DESCRIPTION("taintguard test: licence \"GPLv2\" (no space: not GPL-compatible)");
