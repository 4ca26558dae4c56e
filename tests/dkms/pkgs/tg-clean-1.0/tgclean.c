// SPDX-License-Identifier: GPL-2.0
/* taintguard test module: GPL, only EXPORT_SYMBOL imports. */
#include <linux/module.h>

static int __init tgclean_init(void)
{
	pr_info("tgclean test module\n");
	return 0;
}

static void __exit tgclean_exit(void)
{
}

module_init(tgclean_init);
module_exit(tgclean_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard test: GPL, no GPL-only imports");
