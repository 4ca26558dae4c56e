// SPDX-License-Identifier: GPL-2.0
/*
 * A kmod built for 6.1 that 6.12 refuses: _printk (and module_layout) have
 * other CRCs in 6.12, so weak-modules does not link it and a forced link
 * fails with "disagrees about version of symbol".
 */
#include <linux/module.h>
#include <linux/printk.h>

static int __init kup_init(void)
{
	pr_info("kupcrc loaded\n");
	return 0;
}

static void __exit kup_exit(void)
{
}

module_init(kup_init);
module_exit(kup_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard kernel-update test: a CRC change under 6.12");
