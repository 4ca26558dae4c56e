// SPDX-License-Identifier: GPL-2.0
/* release part of vermagic changed after build, __versions kept */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: release part of vermagic changed after build, __versions kept");
