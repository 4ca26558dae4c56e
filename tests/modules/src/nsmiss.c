// SPDX-License-Identifier: GPL-2.0
/* uses crypto_cipher_setkey (namespace CRYPTO_INTERNAL); import_ns blanked after build */
#define TG_USE_CIPHER
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: uses crypto_cipher_setkey (namespace CRYPTO_INTERNAL); import_ns blanked after build");
MODULE_IMPORT_NS(TG_NS(CRYPTO_INTERNAL));
