// SPDX-License-Identifier: GPL-2.0
/*
 * taintguard test module: a non-GPL license and only EXPORT_SYMBOL imports.
 * modpost accepts it; the loader taints the kernel P (and E when unsigned).
 */
#include <linux/module.h>

static int __init tgprop_init(void)
{
	pr_info("tgprop test module\n");
	return 0;
}

static void __exit tgprop_exit(void)
{
}

module_init(tgprop_init);
module_exit(tgprop_exit);
MODULE_LICENSE("Proprietary");
MODULE_DESCRIPTION("taintguard test: proprietary license, no GPL-only imports");
