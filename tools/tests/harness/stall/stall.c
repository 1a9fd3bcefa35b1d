// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU stall on purpose, for the VM harness's own test (t-vmkill.t): the
 * module's init keeps interrupts off on its CPU for stall_seconds, so RCU
 * reports a stall on that CPU (its backtrace through an NMI) and a guest
 * booted with kernel.panic_on_rcu_stall=1 panics.  Nothing else: it is
 * never loaded outside that test's guest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/module.h>

static unsigned int stall_seconds = 40;
module_param(stall_seconds, uint, 0444);
MODULE_PARM_DESC(stall_seconds, "Seconds to keep interrupts off (default 40)");

/**
 * srpt_harness_stall() - spin with interrupts off
 * @ms: milliseconds to spin
 *
 * Not inlined, so that the stalled CPU's backtrace names it.
 */
static noinline void srpt_harness_stall(unsigned int ms)
{
	unsigned long flags;

	local_irq_save(flags);
	while (ms--)
		mdelay(1);
	local_irq_restore(flags);
}

static int __init stall_init(void)
{
	pr_info("interrupts off for %u s\n", stall_seconds);
	srpt_harness_stall(stall_seconds * 1000);
	pr_info("interrupts on again\n");
	return 0;
}

static void __exit stall_exit(void)
{
}

module_init(stall_init);
module_exit(stall_exit);
MODULE_DESCRIPTION("CPU stall for the ib_srpt VM harness's own test");
MODULE_LICENSE("GPL");
