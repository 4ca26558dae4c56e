// SPDX-License-Identifier: GPL-2.0
/*
 * uses a vmlinux export of a namespace; import_ns blanked after build.
 * crypto_cipher_setkey (CRYPTO_INTERNAL) from 5.12, when crypto_cipher_* went
 * into that namespace; before, fw_fallback_config (FIRMWARE_LOADER_PRIVATE).
 */
#include <linux/version.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 12, 0)
#define TG_USE_CIPHER
#define TG_NSMISS_NS CRYPTO_INTERNAL
#else
#define TG_USE_FWNS
#define TG_NSMISS_NS FIRMWARE_LOADER_PRIVATE
#endif
#include "tg.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: uses a namespaced vmlinux export (crypto_cipher_setkey; before 5.12 fw_fallback_config); import_ns blanked after build");
MODULE_IMPORT_NS(TG_NS(TG_NSMISS_NS));
