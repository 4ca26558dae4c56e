// SPDX-License-Identifier: GPL-2.0
/*
 * taintguard test module "lve": claims GPL and imports a GPL-only symbol
 * (ktime_get is EXPORT_SYMBOL_GPL).  The name is on the kernel's
 * module_license_offenders[] list (kernel/module/main.c, since 3.5), so the
 * loader taints P, takes away GPL-only symbols, and refuses this module.
 */
#include <linux/module.h>
#include <linux/ktime.h>

static int __init lve_init(void)
{
	pr_info("lve test module: %lld\n", (long long)ktime_get());
	return 0;
}

static void __exit lve_exit(void)
{
}

module_init(lve_init);
module_exit(lve_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: forced-taint name with a GPL-only import");
