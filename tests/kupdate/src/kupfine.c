// SPDX-License-Identifier: GPL-2.0
/*
 * A kmod that stays loadable across Debian's 6.1 -> 6.12: it imports only
 * kfree, whose CRC both kernels share (tests/kupdate/run.sh zeroes its
 * module_layout version record, which differs; both kernels then load it
 * with "no symbol version for module_layout").
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
MODULE_DESCRIPTION("taintguard kernel-update test: stays fine");
