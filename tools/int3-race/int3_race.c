// SPDX-License-Identifier: GPL-2.0
/*
 * int3_race: does a vCPU execute an INT3 that text_poke_bp() already
 * replaced?  (issue 25: "Oops: int3" at sched_clock_cpu+0x9 under QEMU's
 * multi-threaded TCG).  A reproducer, not a test of the driver.
 *
 * One static key guards IR_NSITES small functions, each a straight run of
 * IR_PAD instructions followed by the static branch, so that the
 * translation block holding the branch is long to translate.  A thread on
 * CPU 0 flips the key (static_branch_enable() and _disable() alternately:
 * text_poke_bp_batch(), INT3 first, then the tail, then the first byte,
 * with a core sync after each step).  A thread on CPU 1 does not run the
 * sites until, by reading their bytes, it sees the last site's INT3 and
 * new tail (the batch is in its last step, writing first bytes in
 * ascending order), then calls the sites in descending order: each call
 * is the first execution of that site since its INT3 was written, so QEMU
 * translates it while CPU 0 may be writing that very byte.
 *
 * After each flip (text_poke_bp_batch() returned: the last core sync is
 * done, no INT3 is left in memory) both threads call every site.  An INT3
 * executed then is one that is no longer in memory: the kernel's own
 * poke_int3_handler() declines it (no patch in progress) and it would be
 * the "Oops: int3" of issue 25.  Here a die notifier counts it per CPU and
 * emulates the instruction memory now holds, so the guest lives on and the
 * counts are read from the module's parameters.  On hardware, or on an
 * emulator whose translations are coherent with stores, the counts are 0.
 *
 * With catch_stale=N there is no notifier: a stale INT3 oopses ("Oops:
 * int3", a panic: the handler runs in NMI context) as sched_clock_cpu's did.
 *
 * Parameters in: rounds, seconds (a bound on the run), jitter_us.  Out
 * (read-only): sites, flips, swept, stale_cpu0, stale_cpu1, stale_rounds,
 * wrong, unknown, error.  The run happens in module_init; it needs CPUs 0
 * and 1 online.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/jump_label.h>
#include <linux/kthread.h>
#include <linux/kdebug.h>
#include <linux/delay.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/percpu.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <asm/ptrace.h>

#define IR_NSITES 64
#define IR_PAD 128
#define IR_WAIT (2 * HZ)

static unsigned int rounds = 400;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "key flips (default 400)");
static unsigned int seconds = 60;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "stop flipping after this many seconds (default 60)");
static unsigned int jitter_us = 10;
module_param(jitter_us, uint, 0444);
MODULE_PARM_DESC(jitter_us, "random delay, 0 to this, before CPU 1's sweep (default 10)");
static bool catch_stale = true;
module_param(catch_stale, bool, 0444);
MODULE_PARM_DESC(catch_stale, "count and emulate a stale INT3 (default); N: let it oops, as in issue 25");

static unsigned int sites, flips, swept, stale_cpu0, stale_cpu1, stale_rounds;
static unsigned int wrong, unknown;
static int error;
module_param(sites, uint, 0444);
MODULE_PARM_DESC(sites, "out: static branch sites of the key found");
module_param(flips, uint, 0444);
MODULE_PARM_DESC(flips, "out: flips completed");
module_param(swept, uint, 0444);
MODULE_PARM_DESC(swept, "out: flips CPU 1 ran the sites during (INT3 and new tail seen)");
module_param(stale_cpu0, uint, 0444);
MODULE_PARM_DESC(stale_cpu0, "out: calls on CPU 0 after a flip that executed an INT3 no longer in memory");
module_param(stale_cpu1, uint, 0444);
MODULE_PARM_DESC(stale_cpu1, "out: the same on CPU 1");
module_param(stale_rounds, uint, 0444);
MODULE_PARM_DESC(stale_rounds, "out: flips after which any call did");
module_param(wrong, uint, 0444);
MODULE_PARM_DESC(wrong, "out: calls after a flip that returned the other branch's value");
module_param(unknown, uint, 0444);
MODULE_PARM_DESC(unknown, "out: INT3s at a site holding an instruction not emulated here");
module_param(error, int, 0444);
MODULE_PARM_DESC(error, "out: 0, or why the run stopped early (-errno)");

static DEFINE_STATIC_KEY_FALSE(ir_key);

/* IR_PAD one-instruction adds, then the site: one long translation block. */
#define IR_SITE(n)							\
static noinline unsigned long ir_site_##n(void)				\
{									\
	unsigned long x = (n);						\
									\
	asm volatile(".rept " __stringify(IR_PAD) "\n\taddq $1, %0\n\t.endr" \
		     : "+r" (x));					\
	if (static_branch_likely(&ir_key))				\
		return x;						\
	return 0;							\
}

IR_SITE(0)
IR_SITE(1)
IR_SITE(2)
IR_SITE(3)
IR_SITE(4)
IR_SITE(5)
IR_SITE(6)
IR_SITE(7)
IR_SITE(8)
IR_SITE(9)
IR_SITE(10)
IR_SITE(11)
IR_SITE(12)
IR_SITE(13)
IR_SITE(14)
IR_SITE(15)
IR_SITE(16)
IR_SITE(17)
IR_SITE(18)
IR_SITE(19)
IR_SITE(20)
IR_SITE(21)
IR_SITE(22)
IR_SITE(23)
IR_SITE(24)
IR_SITE(25)
IR_SITE(26)
IR_SITE(27)
IR_SITE(28)
IR_SITE(29)
IR_SITE(30)
IR_SITE(31)
IR_SITE(32)
IR_SITE(33)
IR_SITE(34)
IR_SITE(35)
IR_SITE(36)
IR_SITE(37)
IR_SITE(38)
IR_SITE(39)
IR_SITE(40)
IR_SITE(41)
IR_SITE(42)
IR_SITE(43)
IR_SITE(44)
IR_SITE(45)
IR_SITE(46)
IR_SITE(47)
IR_SITE(48)
IR_SITE(49)
IR_SITE(50)
IR_SITE(51)
IR_SITE(52)
IR_SITE(53)
IR_SITE(54)
IR_SITE(55)
IR_SITE(56)
IR_SITE(57)
IR_SITE(58)
IR_SITE(59)
IR_SITE(60)
IR_SITE(61)
IR_SITE(62)
IR_SITE(63)

typedef unsigned long (*ir_fn_t)(void);

/* ir_site_N returns N + IR_PAD when the key is on, 0 when it is off */
static const ir_fn_t ir_fns[IR_NSITES] = {
	ir_site_0, ir_site_1, ir_site_2, ir_site_3,
	ir_site_4, ir_site_5, ir_site_6, ir_site_7,
	ir_site_8, ir_site_9, ir_site_10, ir_site_11,
	ir_site_12, ir_site_13, ir_site_14, ir_site_15,
	ir_site_16, ir_site_17, ir_site_18, ir_site_19,
	ir_site_20, ir_site_21, ir_site_22, ir_site_23,
	ir_site_24, ir_site_25, ir_site_26, ir_site_27,
	ir_site_28, ir_site_29, ir_site_30, ir_site_31,
	ir_site_32, ir_site_33, ir_site_34, ir_site_35,
	ir_site_36, ir_site_37, ir_site_38, ir_site_39,
	ir_site_40, ir_site_41, ir_site_42, ir_site_43,
	ir_site_44, ir_site_45, ir_site_46, ir_site_47,
	ir_site_48, ir_site_49, ir_site_50, ir_site_51,
	ir_site_52, ir_site_53, ir_site_54, ir_site_55,
	ir_site_56, ir_site_57, ir_site_58, ir_site_59,
	ir_site_60, ir_site_61, ir_site_62, ir_site_63,
};

/* ir_fns by ascending address, with what each returns when the key is on */
static struct ir_call {
	ir_fn_t fn;
	unsigned long on;
} ir_calls[IR_NSITES];

static unsigned long ir_sites[IR_NSITES];	/* ascending */

static DEFINE_PER_CPU(unsigned int, ir_traps);

/* the threads' handshake: round numbers, written by one side each */
static unsigned int ir_ready;		/* CPU 1: snapshot taken for round */
static unsigned int ir_flipped;		/* CPU 0: static_branch_*() returned */
static unsigned int ir_checked;		/* CPU 0: its check sweep is done */
static unsigned int ir_ack;		/* CPU 1: its check sweep is done */
static bool ir_stop;
static DECLARE_COMPLETION(ir_cpu0_done);
static DECLARE_COMPLETION(ir_cpu1_done);

static const u8 ir_nop2[2] = { 0x66, 0x90 };
static const u8 ir_nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

static bool ir_is_site(unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < sites; i++)
		if (ir_sites[i] == addr)
			return true;
	return false;
}

/**
 * ir_die() - count and emulate an INT3 at a site that no patch explains
 * @nb: the notifier block
 * @val: the die event
 * @data: its &struct die_args
 *
 * Called from exc_int3() after poke_int3_handler() declined the INT3 (no
 * text_poke_bp() in progress, or the address not in it).  The INT3 is not
 * in memory any more: emulate the instruction that is, as the kernel's
 * handler would have during the patch.
 *
 * Return: NOTIFY_STOP when emulated, NOTIFY_DONE otherwise.
 */
static int ir_die(struct notifier_block *nb, unsigned long val, void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	unsigned long site;
	const u8 *b;
	s32 rel;

	if (val != DIE_INT3 || !regs || user_mode(regs))
		return NOTIFY_DONE;
	site = regs->ip - 1;
	if (!ir_is_site(site))
		return NOTIFY_DONE;
	b = (const u8 *)site;
	if (!memcmp(b, ir_nop2, sizeof(ir_nop2))) {
		regs->ip = site + 2;
	} else if (b[0] == 0xeb) {
		regs->ip = site + 2 + (s8)b[1];
	} else if (!memcmp(b, ir_nop5, sizeof(ir_nop5))) {
		regs->ip = site + 5;
	} else if (b[0] == 0xe9) {
		memcpy(&rel, b + 1, sizeof(rel));
		regs->ip = site + 5 + rel;
	} else {
		WRITE_ONCE(unknown, unknown + 1);
		return NOTIFY_DONE;
	}
	this_cpu_inc(ir_traps);
	return NOTIFY_STOP;
}

static struct notifier_block ir_die_nb = {
	.notifier_call = ir_die,
};

/*
 * ir_check(): call every site once on this CPU; returns the calls that
 * executed a stale INT3 and adds the calls with a wrong result to *bad.
 */
static unsigned int ir_check(bool on, unsigned int *bad)
{
	unsigned int i, before, hits = 0;
	unsigned long v;

	for (i = 0; i < sites; i++) {
		preempt_disable();
		before = __this_cpu_read(ir_traps);
		v = ir_calls[i].fn();
		if (__this_cpu_read(ir_traps) != before)
			hits++;
		preempt_enable();
		if (v != (on ? ir_calls[i].on : 0))
			(*bad)++;
	}
	return hits;
}

/* ir_wait(): spin until *p >= r or the run stops; false on stop or timeout */
static bool ir_wait(unsigned int *p, unsigned int r)
{
	unsigned long end = jiffies + IR_WAIT;

	/* pairs with the other side's smp_store_release() of *p */
	while (smp_load_acquire(p) < r) {
		if (READ_ONCE(ir_stop) || kthread_should_stop())
			return false;
		if (time_after(jiffies, end)) {
			WRITE_ONCE(error, -ETIMEDOUT);
			WRITE_ONCE(ir_stop, true);
			return false;
		}
		cpu_relax();
	}
	return true;
}

static int ir_site_len(const u8 *b)
{
	return b[0] == 0xeb || b[0] == 0x66 ? 2 : 5;
}

/* CPU 1: run the sites in the flip's last step, then check after it */
static int ir_cpu1(void *unused)
{
	const u8 *last = (const u8 *)ir_sites[sites - 1];
	unsigned int r, bad = 0;
	unsigned long end;
	u8 tail[4];
	bool seen;
	int len, i;

	for (r = 1; !READ_ONCE(ir_stop) && !kthread_should_stop(); r++) {
		cond_resched();
		len = ir_site_len(last);
		memcpy(tail, last + 1, len - 1);
		/* ir_wait(&ir_ready) on CPU 0: the snapshot is taken */
		smp_store_release(&ir_ready, r);
		end = jiffies + IR_WAIT;
		seen = false;
		/*
		 * The flip's INT3 at the last site, then its new tail; the
		 * acquire pairs with CPU 0's release of ir_flipped.
		 */
		while (smp_load_acquire(&ir_flipped) < r && !READ_ONCE(ir_stop)) {
			if (READ_ONCE(last[0]) == 0xcc &&
			    memcmp((const void *)(last + 1), tail, len - 1)) {
				seen = true;
				break;
			}
			if (time_after(jiffies, end)) {
				WRITE_ONCE(error, -ETIMEDOUT);
				WRITE_ONCE(ir_stop, true);
				break;
			}
			cpu_relax();
		}
		if (seen) {
			if (jitter_us)
				udelay(get_random_u32() % (jitter_us + 1));
			for (i = sites - 1; i >= 0; i--)
				ir_calls[i].fn();
			swept++;
		}
		if (!ir_wait(&ir_checked, r))
			break;
		stale_cpu1 += ir_check(r & 1, &bad);
		/* ir_wait(&ir_ack) on CPU 0: stale_cpu1 is up to date */
		smp_store_release(&ir_ack, r);
	}
	WRITE_ONCE(wrong, READ_ONCE(wrong) + bad);
	complete(&ir_cpu1_done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* CPU 0: flip the key, check every site after each flip */
static int ir_cpu0(void *unused)
{
	unsigned long end = jiffies + seconds * HZ;
	unsigned int r, hits, bad = 0, s1 = 0;

	for (r = 1; r <= rounds && !READ_ONCE(ir_stop); r++) {
		if (time_after(jiffies, end) || !ir_wait(&ir_ready, r))
			break;
		if (r & 1)
			static_branch_enable(&ir_key);
		else
			static_branch_disable(&ir_key);
		/* read by CPU 1 while it waits for the flip's last step */
		smp_store_release(&ir_flipped, r);
		hits = ir_check(r & 1, &bad);
		stale_cpu0 += hits;
		/* ir_wait(&ir_checked) on CPU 1: the flip is over */
		smp_store_release(&ir_checked, r);
		if (!ir_wait(&ir_ack, r))
			break;
		if (hits || READ_ONCE(stale_cpu1) != s1)
			stale_rounds++;
		s1 = READ_ONCE(stale_cpu1);
		flips = r;
		cond_resched();
	}
	WRITE_ONCE(ir_stop, true);
	WRITE_ONCE(wrong, READ_ONCE(wrong) + bad);
	complete(&ir_cpu0_done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int ir_cmp_call(const void *a, const void *b)
{
	unsigned long x = (unsigned long)((const struct ir_call *)a)->fn;
	unsigned long y = (unsigned long)((const struct ir_call *)b)->fn;

	return x < y ? -1 : x > y;
}

static int ir_cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* ir_find_sites(): the key's sites, from this module's jump table */
static int ir_find_sites(void)
{
#ifdef CONFIG_JUMP_LABEL
	struct jump_entry *e = THIS_MODULE->jump_entries;
	unsigned int i;

	for (i = 0; i < THIS_MODULE->num_jump_entries; i++) {
		if (jump_entry_key(&e[i]) != &ir_key.key)
			continue;
		if (sites == IR_NSITES)
			return -E2BIG;
		ir_sites[sites++] = jump_entry_code(&e[i]);
	}
	sort(ir_sites, sites, sizeof(ir_sites[0]), ir_cmp_ulong, NULL);
	return sites == IR_NSITES ? 0 : -ENOENT;
#else
	return -EOPNOTSUPP;
#endif
}

static int __init ir_init(void)
{
	struct task_struct *t0, *t1;
	unsigned int i;
	int ret;

	if (!cpu_online(0) || !cpu_online(1))
		return -ENODEV;
	for (i = 0; i < IR_NSITES; i++) {
		ir_calls[i].fn = ir_fns[i];
		ir_calls[i].on = i + IR_PAD;
	}
	sort(ir_calls, IR_NSITES, sizeof(ir_calls[0]), ir_cmp_call, NULL);
	ret = ir_find_sites();
	if (ret) {
		pr_err("%u sites of the key found, %d expected: %d\n", sites, IR_NSITES, ret);
		return ret;
	}
	ret = catch_stale ? register_die_notifier(&ir_die_nb) : 0;
	if (ret)
		return ret;
	t0 = kthread_create_on_cpu(ir_cpu0, NULL, 0, "int3_race/%u");
	if (IS_ERR(t0)) {
		ret = PTR_ERR(t0);
		goto unregister;
	}
	t1 = kthread_create_on_cpu(ir_cpu1, NULL, 1, "int3_race/%u");
	if (IS_ERR(t1)) {
		kthread_stop(t0);
		ret = PTR_ERR(t1);
		goto unregister;
	}
	wake_up_process(t1);
	wake_up_process(t0);
	if (!wait_for_completion_timeout(&ir_cpu0_done, (seconds + 30) * HZ) ||
	    !wait_for_completion_timeout(&ir_cpu1_done, 30 * HZ)) {
		/* a thread died or hangs: keep its code, never unload */
		error = -ETIMEDOUT;
		__module_get(THIS_MODULE);
		pr_err("a thread did not finish; the module stays loaded\n");
		return 0;
	}
	kthread_stop(t0);
	kthread_stop(t1);
	pr_info("%u sites, %u flips (%u swept by CPU 1): stale INT3 executed %u times on CPU 0, %u on CPU 1, after %u flips; %u wrong results, %u unknown, error %d\n",
		sites, flips, swept, stale_cpu0, stale_cpu1, stale_rounds, wrong, unknown, error);
	return 0;
unregister:
	if (catch_stale)
		unregister_die_notifier(&ir_die_nb);
	return ret;
}

static void __exit ir_exit(void)
{
	if (catch_stale)
		unregister_die_notifier(&ir_die_nb);
}

module_init(ir_init);
module_exit(ir_exit);
MODULE_DESCRIPTION("Reproducer: INT3 executed after text_poke_bp() replaced it (issue 25)");
MODULE_LICENSE("GPL");
