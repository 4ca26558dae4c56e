/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Common body of the taintguard test modules (tests/modules/README.md).
 * A case file sets a few TG_* macros, includes this header and declares
 * its MODULE_LICENSE / MODULE_INFO.  init and exit only log one line.
 *
 *   TG_USE_KTIME    call ktime_get()            (EXPORT_SYMBOL_GPL, vmlinux)
 *   TG_USE_BINFILE  reference sysfs_create_bin_file() (EXPORT_SYMBOL_GPL)
 *   TG_USE_PROP     call tg_prop_fn()           (EXPORT_SYMBOL of propexp.ko)
 *   TG_USE_NS       call tg_ns_fn()             (EXPORT_SYMBOL_NS_GPL, TGNS, exporter.ko)
 *   TG_USE_CIPHER   reference crypto_cipher_setkey() (GPL, namespace CRYPTO_INTERNAL)
 *   TG_USE_NOCRC    call tg_nocrc_gpl_fn()      (EXPORT_SYMBOL_GPL of nocrcexp.ko, no CRCs)
 *   TG_USE_STRNS    call tg_strns_fn()          (namespace "TG.str-ns" of strnsexp.ko, 6.13+)
 *   TG_USE_MODNS    call tg_modns_fn()          (exported for module modnsok only, modnsexp.ko, 6.16+)
 *
 * References that must never run sit behind a volatile flag that is always 0,
 * so the compiler keeps the undefined symbol but the call never happens.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/version.h>

/*
 * Symbol namespaces became string literals in 6.13 (EXPORT_SYMBOL_NS*,
 * MODULE_IMPORT_NS take "NS"); before, a bare identifier was stringified.
 * TG_NS(NS) gives what the kernel being built against expects.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define TG_NS(ns) #ns
#else
#define TG_NS(ns) ns
#endif
#if defined(TG_USE_KTIME)
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#endif
#if defined(TG_USE_BINFILE)
#include <linux/sysfs.h>
#endif
#if defined(TG_USE_CIPHER)
#include <crypto/internal/cipher.h>
#endif

#if defined(TG_USE_PROP)
int tg_prop_fn(void);
#endif
#if defined(TG_USE_NS)
int tg_ns_fn(void);
#endif
#if defined(TG_USE_NOCRC)
int tg_nocrc_gpl_fn(void);
#endif
#if defined(TG_USE_STRNS)
int tg_strns_fn(void);
#endif
#if defined(TG_USE_MODNS)
int tg_modns_fn(void);
#endif

static volatile int tg_never;

static int __init tg_init(void)
{
	long long v = 0;

#if defined(TG_USE_KTIME)
	v += ktime_get();
#endif
#if defined(TG_USE_PROP)
	v += tg_prop_fn();
#endif
#if defined(TG_USE_NS)
	v += tg_ns_fn();
#endif
#if defined(TG_USE_NOCRC)
	v += tg_nocrc_gpl_fn();
#endif
#if defined(TG_USE_STRNS)
	v += tg_strns_fn();
#endif
#if defined(TG_USE_MODNS)
	v += tg_modns_fn();
#endif
	if (tg_never) {
#if defined(TG_USE_BINFILE)
		v += sysfs_create_bin_file(NULL, NULL);
#endif
#if defined(TG_USE_CIPHER)
		v += crypto_cipher_setkey(NULL, NULL, 0);
#endif
	}
	pr_info("%s: taintguard test module loaded (%lld)\n", KBUILD_MODNAME, v);
	return 0;
}

static void __exit tg_exit(void)
{
	pr_info("%s: taintguard test module unloaded\n", KBUILD_MODNAME);
}

module_init(tg_init);
module_exit(tg_exit);
