/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_srpt: what differs between the kernels the driver builds for, from
 * Debian 12's 6.1 to the 7.x of trixie-backports, in one place.
 *
 * Each entry is keyed on a feature, never on the kernel version: the kbuild
 * part of the Makefile greps the kernel's own header for the symbol and
 * defines SRPT_HAVE_<feature> when it is there.  Each is named for what it
 * provides and says which kernel brought the change.  Nothing here costs
 * the I/O path anything: constants and initializers only.
 */
#ifndef SRPT_COMPAT_H
#define SRPT_COMPAT_H

#include <linux/workqueue.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

/*
 * SRPT_WQ_PERCPU - alloc_workqueue() flag of a per-CPU workqueue.
 *
 * WQ_PERCPU came in 6.17 (Debian's 6.12.118 has it backported, 6.12.95 not)
 * as the first step of making unbound the default.  Since 7.x
 * alloc_workqueue() warns once (WARN_ONCE, a splat at module load) when
 * neither WQ_PERCPU nor WQ_UNBOUND is given, and sets WQ_PERCPU.  Before
 * WQ_PERCPU existed, a workqueue without WQ_UNBOUND was per-CPU: 0 there
 * means the same.
 */
#ifdef SRPT_HAVE_WQ_PERCPU
#define SRPT_WQ_PERCPU		WQ_PERCPU
#else
#define SRPT_WQ_PERCPU		0
#endif

/*
 * SRPT_FABRIC_OPS_SUBMIT - how LIO submits a new command, as the in-tree
 * ib_srpt of the same kernel sets it: directly, in the context of
 * target_submit() (srpt's receive completion work, IB_POLL_WORKQUEUE).
 *
 * target_core_fabric_ops.default_submit_type and .direct_submit_supp came
 * with LIO's selectable submission in 6.9 (in Debian's 6.12): left at 0,
 * every command would go through LIO's submission workqueue, and the
 * wwn's param/default_submit_type and param/direct_submit_supported would
 * read 0 where the in-tree driver reads 1 and 1.  Before that, LIO
 * submitted in the caller's context, as with TARGET_DIRECT_SUBMIT.
 */
#ifdef SRPT_HAVE_FABRIC_SUBMIT_TYPE
#define SRPT_FABRIC_OPS_SUBMIT					\
	.default_submit_type = TARGET_DIRECT_SUBMIT,		\
	.direct_submit_supp = 1,
#else
#define SRPT_FABRIC_OPS_SUBMIT
#endif

/*
 * SRPT_FABRIC_OPS_COMPL - how LIO completes a command, as the in-tree
 * ib_srpt of the same kernel sets it: through LIO's completion workqueue,
 * with direct completion not offered (direct_compl_supp left 0).
 *
 * target_core_fabric_ops.default_compl_type and .direct_compl_supp came
 * after 6.12 (Debian's 7.2 and 7.3 have them); the in-tree driver sets
 * TARGET_QUEUE_COMPL, which param/default_complete_type shows (2).  Before
 * that, LIO always queued completions.
 */
#ifdef SRPT_HAVE_FABRIC_COMPL_TYPE
#define SRPT_FABRIC_OPS_COMPL					\
	.default_compl_type = TARGET_QUEUE_COMPL,
#else
#define SRPT_FABRIC_OPS_COMPL
#endif

#endif /* SRPT_COMPAT_H */
