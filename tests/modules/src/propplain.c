// SPDX-License-Identifier: GPL-2.0
/* Proprietary licence, no GPL-only imports */
#include "tg.h"

MODULE_LICENSE("Proprietary");
MODULE_DESCRIPTION("taintguard test: Proprietary licence, no GPL-only imports");
