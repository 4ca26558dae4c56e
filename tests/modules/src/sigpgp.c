// SPDX-License-Identifier: GPL-2.0
/* signature trailer with id_type 0 (PGP) appended: -ENOPKG, counted as unsigned */
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: signature trailer of an unsupported type (PGP) appended");
