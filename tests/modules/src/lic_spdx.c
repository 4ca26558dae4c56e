// SPDX-License-Identifier: GPL-2.0
/* licence "GPL-2.0" (SPDX id: not GPL-compatible) */
#include "tg.h"

MODULE_LICENSE("GPL-2.0");
MODULE_DESCRIPTION("taintguard test: licence \"GPL-2.0\" (SPDX id: not GPL-compatible)");
