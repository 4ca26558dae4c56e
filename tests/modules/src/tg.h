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
 *   TG_USE_CIPHER   reference crypto_cipher_setkey() (GPL, namespace CRYPTO_INTERNAL, 5.12+)
 *   TG_USE_FWNS     reference fw_fallback_config (GPL, namespace FIRMWARE_LOADER_PRIVATE,
 *                   vmlinux; before 5.12 the one namespaced export of Debian's vmlinux)
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
/* two steps, so that a namespace given by a macro (nsmiss.c's) is expanded first */
#define TG_NS_STR(ns) #ns
#define TG_NS(ns) TG_NS_STR(ns)
#else
#define TG_NS(ns) ns
#endif
/*
 * 5.10's namespace macros stringify their argument as written (#ns), which
 * would make TG_NS(NS) the namespace: give them 6.1's __stringify() form (the
 * same three-argument __EXPORT_SYMBOL() from 5.4 to 6.4).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#undef EXPORT_SYMBOL_NS
#undef EXPORT_SYMBOL_NS_GPL
#undef MODULE_IMPORT_NS
#define EXPORT_SYMBOL_NS(sym, ns) __EXPORT_SYMBOL(sym, "", __stringify(ns))
#define EXPORT_SYMBOL_NS_GPL(sym, ns) __EXPORT_SYMBOL(sym, "_gpl", __stringify(ns))
#define MODULE_IMPORT_NS(ns) MODULE_INFO(import_ns, __stringify(ns))
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
#if defined(TG_USE_FWNS)
extern char fw_fallback_config[];	/* a struct; only its address is taken */
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
#if defined(TG_USE_FWNS)
		v += (long)fw_fallback_config;
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
