// SPDX-License-Identifier: GPL-2.0
/*
 * kupfine.c under another name: the policy of tests/kupdate/run.sh has a
 * forced-taint entry for it with kernels ">= 6.12" (as lve's arrived with
 * 3.5), so it is fine under 6.1 and force-tainted once 6.12 is installed.
 */
#include <linux/module.h>
#include <linux/slab.h>

static void *kup_nothing;

static int __init kup_init(void)
{
	kfree(kup_nothing);
	return 0;
}

static void __exit kup_exit(void)
{
}

module_init(kup_init);
module_exit(kup_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("taintguard kernel-update test: forced taint from 6.12 on");
