// SPDX-License-Identifier: GPL-2.0
/* named driverloader (forced P taint), no GPL-only imports */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: named driverloader (forced P taint), no GPL-only imports");
