// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU stall on purpose, for the VM harness's own test (t-vmkill.t): the
 * module's init spins with preemption off for stall_seconds, so the CPU
 * passes no RCU quiescent state, RCU reports the stall with that CPU's
 * backtrace and a guest booted with kernel.panic_on_rcu_stall=1 panics.
 *
 * Interrupts stay on: the spinning CPU keeps taking its scheduler tick,
 * so jiffies go on even when it is the CPU that updates them, RCU's stall
 * check runs on it (a self-detected stall) and the spin's end is measured
 * in jiffies rather than in delay loops, whose calibration under TCG on a
 * loaded host is not to be trusted.  Nothing else: it is never loaded
 * outside that test's guest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/preempt.h>

static unsigned int stall_seconds = 40;
module_param(stall_seconds, uint, 0444);
MODULE_PARM_DESC(stall_seconds, "Seconds to spin with preemption off (default 40)");

/**
 * srpt_harness_stall() - spin with preemption off
 * @seconds: how long, in jiffies' seconds
 *
 * Not inlined, so that the stalled CPU's backtrace names it.
 */
static noinline void srpt_harness_stall(unsigned int seconds)
{
	unsigned long end = jiffies + seconds * HZ;

	preempt_disable();
	while (time_before(jiffies, end))
		cpu_relax();
	preempt_enable();
}

static int __init stall_init(void)
{
	pr_info("preemption off for %u s on CPU %d\n", stall_seconds,
		raw_smp_processor_id());
	srpt_harness_stall(stall_seconds);
	pr_info("preemption on again\n");
	return 0;
}

static void __exit stall_exit(void)
{
}

module_init(stall_init);
module_exit(stall_exit);
MODULE_DESCRIPTION("CPU stall for the ib_srpt VM harness's own test");
MODULE_LICENSE("GPL");
