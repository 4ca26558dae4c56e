// SPDX-License-Identifier: GPL-2.0
/* A second module named lve (built in its own directory): GPL, no GPL-only imports */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: named lve (forced P taint), no GPL-only imports");
