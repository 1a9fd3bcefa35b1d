// SPDX-License-Identifier: GPL-2.0
/*
 * ib_srpt: SCSI RDMA Protocol (SRP) target driver for the LIO target core.
 *
 * The file reads in the order of an object's life:
 *   1. module parameters
 *   2. RDMA devices and ports (IB client, port events)
 *   3. channels: allocation, queue pair, receive ring
 *   4. the command path: request IUs, data transfer, responses
 *   5. teardown of channels
 *   6. logins: the shared login core and the RDMA/CM front end
 *   7. configfs / LIO glue (target ports, TPGs, node ACLs, sessions)
 *   8. module init and exit
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/if_arp.h>
#include <linux/if_infiniband.h>
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ipv6.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "ib_srpt.h"
#include "srpt_compat.h"
#include "srpt_login_info.h"
#include "srpt_mad.h"

#define CREATE_TRACE_POINTS
#include "srpt_trace.h"

MODULE_AUTHOR("The ib_srpt authors");
MODULE_DESCRIPTION("SCSI RDMA Protocol target driver");
MODULE_LICENSE("GPL");
MODULE_VERSION(SRPT_DRV_VERSION);

/*
 * srpt_dev_mutex protects srpt_dev_list, srpt_tport_list, the port
 * attributes in every srpt_port and the binding srpt_tport.sport.
 */
static DEFINE_MUTEX(srpt_dev_mutex);
static LIST_HEAD(srpt_dev_list);	/* struct srpt_device, by .entry */
static LIST_HEAD(srpt_tport_list);	/* struct srpt_tport, by .entry */

static const struct target_core_fabric_ops srpt_template;
static struct ib_client srpt_client;

/* ======================================================================== */
/* 1. Module parameters                                                     */
/* ======================================================================== */

/*
 * srp_max_req_size and srpt_srq_size are int parameters, parsed (kstrtoint:
 * decimal, 0x hex or 0 octal, optional sign) and read back as the in-tree
 * driver does, so that every value it loads with loads here and reads back
 * alike.  srp_max_req_size is compared with its minimum as an unsigned
 * number, as in-tree, so a negative value stands for a huge size; what the
 * driver uses is srp_max_req_size, at most SRPT_MAX_MAX_REQ_SIZE
 * (srpt_init_module() sets it).
 */
static int srp_max_req_size_param = SRPT_DEF_MAX_REQ_SIZE;
static u32 srp_max_req_size = SRPT_DEF_MAX_REQ_SIZE;
static int srpt_srq_size = SRPT_DEF_SRQ_SIZE;
static u64 srpt_service_guid;

/**
 * srpt_param_set_int_range() - set an int parameter within bounds
 * @val: text given at load time.
 * @kp: the parameter; kp->arg points at the int.
 * @min: smallest accepted value.
 * @max: largest accepted value.
 * @as_unsigned: compare the value as an unsigned number.
 *
 * Return: 0, the error of kstrtoint() for text that is no int, or -EINVAL
 * with a log line naming the parameter and its range.
 */
static int srpt_param_set_int_range(const char *val,
				    const struct kernel_param *kp,
				    unsigned int min, unsigned int max,
				    bool as_unsigned)
{
	int v, ret;

	ret = kstrtoint(val, 0, &v);
	if (ret) {
		pr_err("invalid value '%s' for parameter %s: not an integer\n",
		       val, kp->name);
		return ret;
	}
	if ((as_unsigned || v >= 0) &&
	    (unsigned int)v >= min && (unsigned int)v <= max) {
		*(int *)kp->arg = v;
		return 0;
	}
	pr_err("invalid value '%s' for parameter %s: must be an integer in [%u..%u]\n",
	       val, kp->name, min, max);
	return -EINVAL;
}

static int srpt_param_set_max_req_size(const char *val,
				       const struct kernel_param *kp)
{
	return srpt_param_set_int_range(val, kp, SRPT_MIN_MAX_REQ_SIZE,
					UINT_MAX, true);
}

static const struct kernel_param_ops srpt_max_req_size_ops = {
	.set = srpt_param_set_max_req_size,
	.get = param_get_int,
};
module_param_cb(srp_max_req_size, &srpt_max_req_size_ops,
		&srp_max_req_size_param, 0444);
MODULE_PARM_DESC(srp_max_req_size,
		 "Maximum size of SRP request messages in bytes (at least 996, default 8276; more than 65536 is used as 65536).");

static int srpt_param_set_srq_size(const char *val,
				   const struct kernel_param *kp)
{
	return srpt_param_set_int_range(val, kp, SRPT_MIN_SRQ_SIZE,
					SRPT_MAX_SRQ_SIZE, false);
}

static const struct kernel_param_ops srpt_srq_size_ops = {
	.set = srpt_param_set_srq_size,
	.get = param_get_int,
};
module_param_cb(srpt_srq_size, &srpt_srq_size_ops, &srpt_srq_size, 0444);
MODULE_PARM_DESC(srpt_srq_size,
		 "Shared receive queue (SRQ) size (4..65535, default 4095).");

/**
 * srpt_param_set_guid() - parse srpt_service_guid
 * @val: hexadecimal text, with or without "0x".
 * @kp: the parameter.
 *
 * Return: 0 or the error of kstrtou64().
 */
static int srpt_param_set_guid(const char *val, const struct kernel_param *kp)
{
	u64 v;
	int ret;

	ret = kstrtou64(val, 16, &v);
	if (ret) {
		pr_err("invalid value '%s' for parameter %s: must be a 64-bit hexadecimal number\n",
		       val, kp->name);
		return ret;
	}
	*(u64 *)kp->arg = v;
	return 0;
}

static int srpt_param_get_guid(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "0x%016llx\n", *(u64 *)kp->arg);
}

static const struct kernel_param_ops srpt_guid_ops = {
	.set = srpt_param_set_guid,
	.get = srpt_param_get_guid,
};
module_param_cb(srpt_service_guid, &srpt_guid_ops, &srpt_service_guid, 0444);
MODULE_PARM_DESC(srpt_service_guid,
		 "Service GUID used as ioc_guid, id_ext and IB CM service id (default: node GUID of the first RDMA device).");

/*
 * RDMA/CM port to listen on from load time, so that the listener survives a
 * reboot through /etc/modprobe.d (rtslib-fb's saveconfig does not save
 * discovery_auth/rdma_cm_port for srpt).  Reading it shows the port listened
 * on now, whichever way it was set.  The in-tree driver has no such
 * parameter and loads whatever its value (it ignores it), so a value that
 * is no port number, or a port that cannot be bound, is logged and the
 * module loads without a listener.
 */
static u16 srpt_rdma_cm_port_param;

/**
 * srpt_param_set_cm_port() - parse rdma_cm_port
 * @val: text given at load time.
 * @kp: the parameter.
 *
 * Return: 0; text that is no port number is logged and leaves 0 (no
 * listener).
 */
static int srpt_param_set_cm_port(const char *val,
				  const struct kernel_param *kp)
{
	if (kstrtou16(val, 0, kp->arg)) {
		pr_err("invalid value '%s' for parameter %s ignored: not a port number 0..65535; no RDMA/CM listener until discovery_auth/rdma_cm_port is written\n",
		       val, kp->name);
		*(u16 *)kp->arg = 0;
	}
	return 0;
}

static int srpt_param_get_cm_port(char *buf, const struct kernel_param *kp);

static const struct kernel_param_ops srpt_cm_port_ops = {
	.set = srpt_param_set_cm_port,
	.get = srpt_param_get_cm_port,
};
module_param_cb(rdma_cm_port, &srpt_cm_port_ops, &srpt_rdma_cm_port_param,
		0444);
MODULE_PARM_DESC(rdma_cm_port,
		 "RDMA/CM port to listen on from load time (0..65535, default 0: none until discovery_auth/rdma_cm_port is written; a value that is no port, or a port that cannot be bound, is logged and ignored).");

/* ---- Fault injection ---------------------------------------------------- */

/*
 * On kernels built with CONFIG_FAULT_INJECTION_DEBUG_FS every call of the
 * driver that can fail can be made to fail on purpose, so that the error
 * path behind it runs in a test (make check-faults).  Each site is written
 *
 *	x = srpt_fail(SRPT_FAULT_SITE) ? <what the call returns on failure> :
 *	    real_call(...);
 *
 * so the injected error is one the real call returns (NULL, ERR_PTR(),
 * -ENOMEM, ...) and takes the same error path; where only failure counts,
 * "if (srpt_fail(SRPT_FAULT_SITE) || real_call(...))".  Not sites: DMA
 * mapping errors (rdma_rxe's virtual DMA never reports one, so an injected
 * one could not be told apart from a mapping to undo), calls whose failure
 * is ignored (DREQ, DREP, notify) and target_submit_prep(), whose failure
 * LIO answers itself.  The debugfs files:
 *
 *   /sys/kernel/debug/ib_srpt/fail/	a standard fault_attr (probability,
 *					interval, times, space, verbose; see
 *					Documentation/fault-injection/)
 *   /sys/kernel/debug/ib_srpt/fail_sites	bit mask of the armed sites
 *					(bit N: site N of enum srpt_fault_site)
 *   /sys/kernel/debug/ib_srpt/sites	"N name calls" per site: the calls
 *					each site has seen since load
 *
 * Only calls of armed sites consume the fault_attr's space, so with one
 * site armed, probability=100, interval=1, times=1 and space=N (N >= 1)
 * the Nth call of that site after arming fails, once.  The load path
 * runs before debugfs exists: the load-time parameter fail_at=NAME:N arms
 * site NAME the same way from the first call on.  Elsewhere srpt_fail() is
 * false at compile time.
 */

/**
 * enum srpt_fault_site - calls whose failure can be injected
 * @SRPT_FAULT_IMM_COPY: the aligned copy of immediate data that arrived
 *	through an SRQ at an offset its buffers were not placed for.
 * @SRPT_FAULT_DATA_BUF: the local buffer of one remote data buffer.
 * @SRPT_FAULT_RW_CTX: the RDMA R/W context of one remote data buffer.
 * @SRPT_FAULT_TABLE: the buffer of an external descriptor table.
 * @SRPT_FAULT_RW_ARRAY: the RDMA R/W context array of a command with more
 *	than one remote buffer.
 * @SRPT_FAULT_TABLE_RW: the RDMA R/W context that reads an external
 *	descriptor table.
 * @SRPT_FAULT_TRIM_RW: an RDMA R/W context remapped for DATA-IN shorter
 *	than the initiator's buffers.
 * @SRPT_FAULT_INIT_CMD: target_init_cmd() of an SRP_CMD.
 * @SRPT_FAULT_SUBMIT_TMR: target_submit_tmr() of an SRP_TSK_MGMT.
 * @SRPT_FAULT_POST_SEND: ib_post_send() of a response, of DATA-IN/DATA-OUT
 *	transfers or of a descriptor table read.
 * @SRPT_FAULT_POST_RECV: ib_post_recv() of a channel's receive buffer.
 * @SRPT_FAULT_POST_SRQ_RECV: ib_post_srq_recv() of an SRQ buffer.
 * @SRPT_FAULT_QP_ERR: ib_modify_qp() to ERR of a channel closed for credit
 *	abuse.
 * @SRPT_FAULT_CH: a channel.
 * @SRPT_FAULT_CH_STATS: its per-CPU counters.
 * @SRPT_FAULT_RECV_RING: a channel's receive ring.
 * @SRPT_FAULT_CMD_RING: a channel's command contexts.
 * @SRPT_FAULT_RECV_BUFS: a block of receive buffers, of a channel's ring or
 *	of the SRQ.
 * @SRPT_FAULT_RSP_BUF: the response buffer of a command context.
 * @SRPT_FAULT_CQ: a channel's completion queue.
 * @SRPT_FAULT_IB_CM_QP: the QP of an IB CM login (ib_create_qp()).
 * @SRPT_FAULT_RDMA_CM_QP: the QP of an RDMA/CM login (rdma_create_qp()).
 * @SRPT_FAULT_PKEY: the P_Key index of an IB CM login's path.
 * @SRPT_FAULT_QP_INIT: ib_modify_qp() to INIT of an IB CM login.
 * @SRPT_FAULT_CM_QP_ATTR: ib_cm_init_qp_attr() for RTR and for RTS.
 * @SRPT_FAULT_QP_RTR_RTS: ib_modify_qp() to RTR and to RTS of an IB CM
 *	login.
 * @SRPT_FAULT_SRQ: a device's SRQ descriptor.
 * @SRPT_FAULT_SRQ_RECVS: its array of receive buffers.
 * @SRPT_FAULT_CREATE_SRQ: ib_create_srq().
 * @SRPT_FAULT_SESSION: target_setup_session() of a login.
 * @SRPT_FAULT_IB_CM_LOGIN: the login context of an IB CM REQ.
 * @SRPT_FAULT_IB_CM_REP: ib_send_cm_rep().
 * @SRPT_FAULT_IB_CM_REJ: ib_send_cm_rej() of a refused IB CM login.
 * @SRPT_FAULT_RDMA_CM_LOGIN: the login context of an RDMA/CM connect
 *	request.
 * @SRPT_FAULT_RDMA_ACCEPT: rdma_accept().
 * @SRPT_FAULT_RDMA_REJECT: rdma_reject() of a refused RDMA/CM login.
 * @SRPT_FAULT_IB_CM_ID: a device's IB CM listener (ib_create_cm_id()).
 * @SRPT_FAULT_IB_CM_LISTEN: ib_cm_listen().
 * @SRPT_FAULT_RDMA_CM_ID: the RDMA/CM listener (rdma_create_id()).
 * @SRPT_FAULT_RDMA_BIND: rdma_bind_addr() of the listener (IPv6, then
 *	IPv4).
 * @SRPT_FAULT_RDMA_LISTEN: rdma_listen().
 * @SRPT_FAULT_SDEV: a device's srpt_device.
 * @SRPT_FAULT_PD: its protection domain.
 * @SRPT_FAULT_QUERY_PORT: ib_query_port() of a port refresh.
 * @SRPT_FAULT_DM_CAP: ib_modify_port() that advertises device management.
 * @SRPT_FAULT_MAD_AGENT: ib_register_mad_agent() of a port.
 * @SRPT_FAULT_DM_AH: the address handle of a Device Management response.
 * @SRPT_FAULT_DM_MAD: the Device Management response (ib_create_send_mad()).
 * @SRPT_FAULT_DM_SEND: ib_post_send_mad() of that response.
 * @SRPT_FAULT_TPORT: a target port (configfs mkdir).
 * @SRPT_FAULT_TPG: a TPG (configfs mkdir).
 * @SRPT_FAULT_TPG_REGISTER: core_tpg_register() of a TPG.
 * @SRPT_FAULT_STATS: the buffer a statistics file read sums into.
 * @SRPT_FAULT_WQ: the srpt workqueue (module load).
 * @SRPT_FAULT_RELEASE_WQ: the srpt_release workqueue (module load).
 * @SRPT_FAULT_TEMPLATE: target_register_template() (module load).
 * @SRPT_FAULT_IB_CLIENT: ib_register_client() (module load).
 * @SRPT_FAULT_QUERY_GID: rdma_query_gid() of GID index 0 in a port refresh.
 * @SRPT_FAULT_NR: number of sites (at most 64: fail_sites is a u64).
 *
 * Numbers are fixed once given (tests arm sites by number): new sites go
 * at the end.
 */
enum srpt_fault_site {
	SRPT_FAULT_IMM_COPY,
	SRPT_FAULT_DATA_BUF,
	SRPT_FAULT_RW_CTX,
	SRPT_FAULT_TABLE,
	SRPT_FAULT_RW_ARRAY,
	SRPT_FAULT_TABLE_RW,
	SRPT_FAULT_TRIM_RW,
	SRPT_FAULT_INIT_CMD,
	SRPT_FAULT_SUBMIT_TMR,
	SRPT_FAULT_POST_SEND,
	SRPT_FAULT_POST_RECV,
	SRPT_FAULT_POST_SRQ_RECV,
	SRPT_FAULT_QP_ERR,
	SRPT_FAULT_CH,
	SRPT_FAULT_CH_STATS,
	SRPT_FAULT_RECV_RING,
	SRPT_FAULT_CMD_RING,
	SRPT_FAULT_RECV_BUFS,
	SRPT_FAULT_RSP_BUF,
	SRPT_FAULT_CQ,
	SRPT_FAULT_IB_CM_QP,
	SRPT_FAULT_RDMA_CM_QP,
	SRPT_FAULT_PKEY,
	SRPT_FAULT_QP_INIT,
	SRPT_FAULT_CM_QP_ATTR,
	SRPT_FAULT_QP_RTR_RTS,
	SRPT_FAULT_SRQ,
	SRPT_FAULT_SRQ_RECVS,
	SRPT_FAULT_CREATE_SRQ,
	SRPT_FAULT_SESSION,
	SRPT_FAULT_IB_CM_LOGIN,
	SRPT_FAULT_IB_CM_REP,
	SRPT_FAULT_IB_CM_REJ,
	SRPT_FAULT_RDMA_CM_LOGIN,
	SRPT_FAULT_RDMA_ACCEPT,
	SRPT_FAULT_RDMA_REJECT,
	SRPT_FAULT_IB_CM_ID,
	SRPT_FAULT_IB_CM_LISTEN,
	SRPT_FAULT_RDMA_CM_ID,
	SRPT_FAULT_RDMA_BIND,
	SRPT_FAULT_RDMA_LISTEN,
	SRPT_FAULT_SDEV,
	SRPT_FAULT_PD,
	SRPT_FAULT_QUERY_PORT,
	SRPT_FAULT_DM_CAP,
	SRPT_FAULT_MAD_AGENT,
	SRPT_FAULT_DM_AH,
	SRPT_FAULT_DM_MAD,
	SRPT_FAULT_DM_SEND,
	SRPT_FAULT_TPORT,
	SRPT_FAULT_TPG,
	SRPT_FAULT_TPG_REGISTER,
	SRPT_FAULT_STATS,
	SRPT_FAULT_WQ,
	SRPT_FAULT_RELEASE_WQ,
	SRPT_FAULT_TEMPLATE,
	SRPT_FAULT_IB_CLIENT,
	SRPT_FAULT_QUERY_GID,
	SRPT_FAULT_NR,
};

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
/* Names as "sites" lists them and fail_at takes them. */
static const char * const srpt_fault_names[SRPT_FAULT_NR] = {
	[SRPT_FAULT_IMM_COPY]		= "imm_copy",
	[SRPT_FAULT_DATA_BUF]		= "data_buf",
	[SRPT_FAULT_RW_CTX]		= "rw_ctx",
	[SRPT_FAULT_TABLE]		= "table",
	[SRPT_FAULT_RW_ARRAY]		= "rw_array",
	[SRPT_FAULT_TABLE_RW]		= "table_rw",
	[SRPT_FAULT_TRIM_RW]		= "trim_rw",
	[SRPT_FAULT_INIT_CMD]		= "init_cmd",
	[SRPT_FAULT_SUBMIT_TMR]		= "submit_tmr",
	[SRPT_FAULT_POST_SEND]		= "post_send",
	[SRPT_FAULT_POST_RECV]		= "post_recv",
	[SRPT_FAULT_POST_SRQ_RECV]	= "post_srq_recv",
	[SRPT_FAULT_QP_ERR]		= "qp_err",
	[SRPT_FAULT_CH]			= "ch",
	[SRPT_FAULT_CH_STATS]		= "ch_stats",
	[SRPT_FAULT_RECV_RING]		= "recv_ring",
	[SRPT_FAULT_CMD_RING]		= "cmd_ring",
	[SRPT_FAULT_RECV_BUFS]		= "recv_bufs",
	[SRPT_FAULT_RSP_BUF]		= "rsp_buf",
	[SRPT_FAULT_CQ]			= "cq",
	[SRPT_FAULT_IB_CM_QP]		= "ib_cm_qp",
	[SRPT_FAULT_RDMA_CM_QP]		= "rdma_cm_qp",
	[SRPT_FAULT_PKEY]		= "pkey",
	[SRPT_FAULT_QP_INIT]		= "qp_init",
	[SRPT_FAULT_CM_QP_ATTR]		= "cm_qp_attr",
	[SRPT_FAULT_QP_RTR_RTS]		= "qp_rtr_rts",
	[SRPT_FAULT_SRQ]		= "srq",
	[SRPT_FAULT_SRQ_RECVS]		= "srq_recvs",
	[SRPT_FAULT_CREATE_SRQ]		= "create_srq",
	[SRPT_FAULT_SESSION]		= "session",
	[SRPT_FAULT_IB_CM_LOGIN]	= "ib_cm_login",
	[SRPT_FAULT_IB_CM_REP]		= "ib_cm_rep",
	[SRPT_FAULT_IB_CM_REJ]		= "ib_cm_rej",
	[SRPT_FAULT_RDMA_CM_LOGIN]	= "rdma_cm_login",
	[SRPT_FAULT_RDMA_ACCEPT]	= "rdma_accept",
	[SRPT_FAULT_RDMA_REJECT]	= "rdma_reject",
	[SRPT_FAULT_IB_CM_ID]		= "ib_cm_id",
	[SRPT_FAULT_IB_CM_LISTEN]	= "ib_cm_listen",
	[SRPT_FAULT_RDMA_CM_ID]		= "rdma_cm_id",
	[SRPT_FAULT_RDMA_BIND]		= "rdma_bind",
	[SRPT_FAULT_RDMA_LISTEN]	= "rdma_listen",
	[SRPT_FAULT_SDEV]		= "sdev",
	[SRPT_FAULT_PD]			= "pd",
	[SRPT_FAULT_QUERY_PORT]		= "query_port",
	[SRPT_FAULT_DM_CAP]		= "dm_cap",
	[SRPT_FAULT_MAD_AGENT]		= "mad_agent",
	[SRPT_FAULT_DM_AH]		= "dm_ah",
	[SRPT_FAULT_DM_MAD]		= "dm_mad",
	[SRPT_FAULT_DM_SEND]		= "dm_send",
	[SRPT_FAULT_TPORT]		= "tport",
	[SRPT_FAULT_TPG]		= "tpg",
	[SRPT_FAULT_TPG_REGISTER]	= "tpg_register",
	[SRPT_FAULT_STATS]		= "stats",
	[SRPT_FAULT_WQ]			= "wq",
	[SRPT_FAULT_RELEASE_WQ]		= "release_wq",
	[SRPT_FAULT_TEMPLATE]		= "template",
	[SRPT_FAULT_IB_CLIENT]		= "ib_client",
	[SRPT_FAULT_QUERY_GID]		= "query_gid",
};

static DECLARE_FAULT_ATTR(srpt_fault_attr);
static u64 srpt_fault_sites;	/* armed sites, bit per enum srpt_fault_site */
static atomic64_t srpt_fault_calls[SRPT_FAULT_NR];
static struct dentry *srpt_debugfs_dir;

/**
 * srpt_fail() - whether to fail a call on purpose
 * @site: the call.
 *
 * Counts the call; callable in any context.
 *
 * Return: true when @site is armed and the fault_attr says this call fails.
 */
static bool srpt_fail(enum srpt_fault_site site)
{
	s64 n = atomic64_inc_return(&srpt_fault_calls[site]);

	if (!(READ_ONCE(srpt_fault_sites) & BIT_ULL(site)))
		return false;
	if (!should_fail(&srpt_fault_attr, 1))
		return false;
	pr_info("fault injected at %s (call %lld since load)\n",
		srpt_fault_names[site], (long long)n);
	return true;
}

/**
 * srpt_fail_at_set() - the load-time parameter fail_at=NAME:N
 * @val: site name, a colon and N (at least 1).
 * @kp: unused.
 *
 * Arms site NAME alone to fail its Nth call, once, from the first call of
 * the load on: what the debugfs files would do, for the calls made before
 * they exist.
 *
 * Return: 0, or -EINVAL for an unknown site or a malformed value.
 */
static int srpt_fail_at_set(const char *val, const struct kernel_param *kp)
{
	const char *colon = strchr(val, ':');
	unsigned int n;
	size_t len;
	int i;

	if (!colon || kstrtouint(colon + 1, 10, &n) || !n)
		goto invalid;
	len = colon - val;
	for (i = 0; i < SRPT_FAULT_NR; i++)
		if (strlen(srpt_fault_names[i]) == len &&
		    !strncmp(val, srpt_fault_names[i], len))
			break;
	if (i == SRPT_FAULT_NR)
		goto invalid;
	srpt_fault_attr.probability = 100;
	srpt_fault_attr.interval = 1;
	srpt_fault_attr.verbose = 0;
	atomic_set(&srpt_fault_attr.times, 1);
	atomic_set(&srpt_fault_attr.space, n);
	WRITE_ONCE(srpt_fault_sites, BIT_ULL(i));
	return 0;

invalid:
	pr_err("invalid value '%s' for parameter fail_at: must be SITE:N, N >= 1, SITE a name /sys/kernel/debug/ib_srpt/sites lists\n",
	       val);
	return -EINVAL;
}

static const struct kernel_param_ops srpt_fail_at_ops = {
	.set = srpt_fail_at_set,
};

/* Permission 0: no sysfs file, the parameter list stays the in-tree one. */
module_param_cb(fail_at, &srpt_fail_at_ops, NULL, 0);
MODULE_PARM_DESC(fail_at,
		 "Fault injection at load: SITE:N fails the Nth call of SITE once (kernels with CONFIG_FAULT_INJECTION_DEBUG_FS only).");

static int srpt_fault_sites_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < SRPT_FAULT_NR; i++)
		seq_printf(m, "%d %s %lld\n", i, srpt_fault_names[i],
			   (long long)atomic64_read(&srpt_fault_calls[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(srpt_fault_sites);

/**
 * srpt_debugfs_init() - /sys/kernel/debug/ib_srpt/ and its fault injection
 *
 * Failure is not fatal: the driver works without it.
 */
static void srpt_debugfs_init(void)
{
	struct dentry *fail;

	BUILD_BUG_ON(SRPT_FAULT_NR > 64);
	srpt_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	fail = fault_create_debugfs_attr("fail", srpt_debugfs_dir,
					 &srpt_fault_attr);
	if (IS_ERR(fail))
		pr_warn("fault injection not available (%ld)\n", PTR_ERR(fail));
	debugfs_create_x64("fail_sites", 0600, srpt_debugfs_dir,
			   &srpt_fault_sites);
	debugfs_create_file("sites", 0400, srpt_debugfs_dir, NULL,
			    &srpt_fault_sites_fops);
}

static void srpt_debugfs_exit(void)
{
	debugfs_remove_recursive(srpt_debugfs_dir);
}
#else
static inline bool srpt_fail(enum srpt_fault_site site)
{
	return false;
}

static inline void srpt_debugfs_init(void)
{
}

static inline void srpt_debugfs_exit(void)
{
}
#endif

/* ======================================================================== */
/* 2. RDMA devices and ports                                                */
/* ======================================================================== */

/**
 * srpt_port_matches() - whether a target port name stands for this port
 * @sport: RDMA port.
 * @id: parsed target port name.
 *
 * A GUID-form name matches the interface id of GID 0, a GID-form name the
 * whole GID 0.  A port without a GID matches nothing.
 *
 * Return: true when @id names @sport.
 */
static bool srpt_port_matches(const struct srpt_port *sport,
			      const struct srpt_name *id)
{
	static const u8 zero[16];

	lockdep_assert_held(&srpt_dev_mutex);
	if (!memcmp(sport->gid, zero, sizeof(zero)))
		return false;
	switch (id->kind) {
	case SRPT_NAME_GUID:
		return !memcmp(sport->gid + 8, id->id + 8, 8);
	case SRPT_NAME_GID:
		return !memcmp(sport->gid, id->id, 16);
	default:
		return false;
	}
}

/**
 * srpt_find_port() - the RDMA port that carries a target port name
 * @id: parsed target port name.
 *
 * Return: the first matching port, or NULL.
 */
static struct srpt_port *srpt_find_port(const struct srpt_name *id)
{
	struct srpt_device *sdev;
	u32 i;

	lockdep_assert_held(&srpt_dev_mutex);
	list_for_each_entry(sdev, &srpt_dev_list, entry) {
		for (i = 0; i < sdev->port_cnt; i++)
			if (srpt_port_matches(&sdev->ports[i], id))
				return &sdev->ports[i];
	}
	return NULL;
}

/**
 * srpt_rebind_tports() - bind every configured target port to its RDMA port
 *
 * Called whenever the set of devices or a port's GID changed.  A target port
 * whose GUID or GID no RDMA port carries (any more, or yet: one created
 * before its device, by a configuration restored at boot) stays configured,
 * unbound and waiting, and is bound as soon as a port with that identity
 * appears (e.g. after "rdma link del" and "rdma link add" of a soft-RoCE
 * device).  An unbound target port admits no login: srpt_admit_login()
 * looks only at the target ports bound to the login's port.
 */
static void srpt_rebind_tports(void)
{
	struct srpt_tport *tport;
	struct srpt_port *sport;

	lockdep_assert_held(&srpt_dev_mutex);
	list_for_each_entry(tport, &srpt_tport_list, entry) {
		sport = srpt_find_port(&tport->id);
		if (sport == tport->sport)
			continue;
		if (sport)
			pr_info("target port %s: bound to %s port %u\n",
				tport->name, dev_name(&sport->sdev->device->dev),
				sport->port_num);
		else
			pr_info("target port %s: no RDMA port carries it any more; it waits for one that does\n",
				tport->name);
		tport->sport = sport;
	}
}

static const char *srpt_port_state_name(enum ib_port_state state)
{
	switch (state) {
	case IB_PORT_DOWN:
		return "down";
	case IB_PORT_INIT:
		return "init";
	case IB_PORT_ARMED:
		return "armed";
	case IB_PORT_ACTIVE:
		return "active";
	case IB_PORT_ACTIVE_DEFER:
		return "active, deferred";
	default:
		return "no state";
	}
}

/* ---- Device Management agent (InfiniBand and RoCE) -------------------- */

/*
 * Initiators find SRP targets on an InfiniBand fabric with Device
 * Management MADs (srp_daemon, ibsrpdm): each port advertises
 * IB_PORT_DEVICE_MGMT_SUP and answers GETs of ClassPortInfo, IOUnitInfo,
 * IOControllerProfile and ServiceEntries.  As in-tree, every port that is
 * not iWARP has the agent, RoCE included: there the GMPs travel with a GRH
 * on QP1 (a DM client addresses the port by GID; no subnet manager reads
 * the capability bit).  The MAD payloads are built by
 * srpt_dm_build_response() (srpt_mad.h, unit tested); this is the glue to
 * the MAD layer.
 */

/**
 * srpt_dm_fill_info() - what the IOC profile says about a port's target
 * @sport: port.
 * @info: filled in.
 *
 * The queue depth and RDMA size come from the first TPG of a target port
 * bound to @sport (the in-tree driver keeps them per port), defaults when
 * none is configured.
 */
static void srpt_dm_fill_info(struct srpt_port *sport,
			      struct srpt_dm_info *info)
{
	const struct ib_device_attr *a = &sport->sdev->device->attrs;
	struct srpt_tpg_attrs attrs = {
		.max_rdma_size = SRPT_DEF_MAX_RDMA_SIZE,
		.use_srq = false,
	};
	struct srpt_tport *tport;
	struct srpt_tpg *stpg;
	bool found = false;

	mutex_lock(&srpt_dev_mutex);
	list_for_each_entry(tport, &srpt_tport_list, entry) {
		if (tport->sport != sport)
			continue;
		mutex_lock(&tport->tpg_mutex);
		stpg = list_first_entry_or_null(&tport->tpg_list,
						struct srpt_tpg, entry);
		if (stpg) {
			attrs = stpg->attrs;
			found = true;
		}
		mutex_unlock(&tport->tpg_mutex);
		if (found)
			break;
	}
	mutex_unlock(&srpt_dev_mutex);

	memset(info, 0, sizeof(*info));
	info->ioc_guid = srpt_service_guid;
	info->vendor_id = a->vendor_id;
	info->device_id = a->vendor_part_id;
	info->device_version = a->hw_ver;
	info->subsys_vendor_id = a->vendor_id;
	info->subsys_device_id = 0;
	info->send_queue_depth = attrs.use_srq ?
		min_t(u32, srpt_srq_size, U16_MAX) :
		SRPT_RQ_SIZE - SRPT_RSVD_RECVS;
	info->rdma_read_depth = 4;
	info->send_size = srp_max_req_size;
	info->rdma_size = attrs.max_rdma_size;
	info->id_string = "Linux SRP target";
}

/**
 * srpt_dm_send_done() - a DM response went out (or failed to)
 * @agent: the port's agent.
 * @wc: completion of the send.
 */
static void srpt_dm_send_done(struct ib_mad_agent *agent,
			      struct ib_mad_send_wc *wc)
{
	rdma_destroy_ah(wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(wc->send_buf);
}

/**
 * srpt_dm_recv() - answer a Device Management MAD
 * @agent: the port's agent.
 * @send_buf: unused (no request of ours is outstanding).
 * @recv: the received MAD.
 *
 * Runs in process context.  A MAD srpt_dm_build_response() refuses (a
 * response, another class, too short) is dropped.
 */
static void srpt_dm_recv(struct ib_mad_agent *agent,
			 struct ib_mad_send_buf *send_buf,
			 struct ib_mad_recv_wc *recv)
{
	struct srpt_port *sport = agent->context;
	struct ib_mad_send_buf *rsp;
	struct srpt_dm_info info;
	struct ib_ah *ah;

	if (!recv->wc || !recv->recv_buf.mad)
		goto free;
	ah = srpt_fail(SRPT_FAULT_DM_AH) ? ERR_PTR(-ENOMEM) :
	     ib_create_ah_from_wc(agent->qp->pd, recv->wc,
				  recv->recv_buf.grh, agent->port_num);
	if (IS_ERR(ah))
		goto free;
	rsp = srpt_fail(SRPT_FAULT_DM_MAD) ? ERR_PTR(-ENOMEM) :
	      ib_create_send_mad(agent, recv->wc->src_qp,
				 recv->wc->pkey_index, 0, IB_MGMT_DEVICE_HDR,
				 IB_MGMT_DEVICE_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(rsp))
		goto destroy_ah;
	srpt_dm_fill_info(sport, &info);
	if (srpt_dm_build_response((const u8 *)recv->recv_buf.mad,
				   sizeof(struct ib_mad), rsp->mad,
				   IB_MGMT_DEVICE_HDR + IB_MGMT_DEVICE_DATA,
				   &info))
		goto free_rsp;
	rsp->ah = ah;
	if (srpt_fail(SRPT_FAULT_DM_SEND) || ib_post_send_mad(rsp, NULL))
		goto free_rsp;
	goto free;

free_rsp:
	ib_free_send_mad(rsp);
destroy_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
free:
	ib_free_recv_mad(recv);
}

/**
 * srpt_dm_register() - advertise device management and start the agent
 * @sport: port; nothing happens on iWARP, which has no MADs.
 *
 * Both steps may fail without harm (an SR-IOV virtual function may not
 * change the capability mask): the failure is logged, logins still work,
 * but srp_daemon cannot discover the target through this port.  On RoCE
 * the capability bit has no reader (there is no subnet manager), and the
 * core refuses to set it for a device without a modify_port operation
 * (ib_modify_port() in drivers/infiniband/core/device.c): that is only
 * logged with pr_debug, and the agent registers all the same.  (The
 * in-tree driver skips the agent when the bit cannot be set.)
 */
static void srpt_dm_register(struct srpt_port *sport)
{
	struct ib_device *dev = sport->sdev->device;
	struct ib_port_modify mod = {
		.set_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP,
	};
	struct ib_mad_reg_req reg = {
		.mgmt_class = IB_MGMT_CLASS_DEVICE_MGMT,
		.mgmt_class_version = IB_MGMT_BASE_VERSION,
	};
	struct ib_mad_agent *agent;
	int ret;

	if (rdma_protocol_iwarp(dev, sport->port_num))
		return;
	mutex_lock(&sport->dm_mutex);
	if (!sport->dm_cap) {
		ret = srpt_fail(SRPT_FAULT_DM_CAP) ? -EOPNOTSUPP :
		      ib_modify_port(dev, sport->port_num, 0, &mod);
		if (ret && rdma_protocol_roce(dev, sport->port_num))
			pr_debug("%s port %u: the RoCE port's capability mask cannot advertise device management (%d); the agent answers all the same\n",
				 dev_name(&dev->dev), sport->port_num, ret);
		else if (ret)
			pr_warn("%s port %u: advertising device management failed (%d); srp_daemon will not find the target through this port (expected on SR-IOV virtual functions)\n",
				dev_name(&dev->dev), sport->port_num, ret);
		else
			sport->dm_cap = true;
	}
	if (!sport->mad_agent) {
		set_bit(IB_MGMT_METHOD_GET, reg.method_mask);
		set_bit(IB_MGMT_METHOD_SET, reg.method_mask);
		agent = srpt_fail(SRPT_FAULT_MAD_AGENT) ? ERR_PTR(-ENOMEM) :
			ib_register_mad_agent(dev, sport->port_num,
					      IB_QPT_GSI, &reg, 0,
					      srpt_dm_send_done, srpt_dm_recv,
					      sport, 0);
		if (IS_ERR(agent))
			pr_warn("%s port %u: registering the device management agent failed (%ld)\n",
				dev_name(&dev->dev), sport->port_num,
				PTR_ERR(agent));
		else
			sport->mad_agent = agent;
	}
	mutex_unlock(&sport->dm_mutex);
}

/**
 * srpt_dm_unregister() - stop the agent and withdraw the capability
 * @sport: port; no refresh of it runs or can be scheduled any more.
 *
 * Called without srpt_dev_mutex: unregistering waits for srpt_dm_recv(),
 * which takes it.
 */
static void srpt_dm_unregister(struct srpt_port *sport)
{
	struct ib_port_modify mod = {
		.clr_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP,
	};

	mutex_lock(&sport->dm_mutex);
	if (sport->mad_agent)
		ib_unregister_mad_agent(sport->mad_agent);
	sport->mad_agent = NULL;
	if (sport->dm_cap)
		ib_modify_port(sport->sdev->device, sport->port_num, 0, &mod);
	sport->dm_cap = false;
	mutex_unlock(&sport->dm_mutex);
}

/**
 * srpt_device_release() - the last reference to a device was dropped
 * @kref: srpt_device.refs.
 *
 * srpt_remove_one(), waiting for this, frees the device.
 */
static void srpt_device_release(struct kref *kref)
{
	complete(&container_of(kref, struct srpt_device, refs)->released);
}

static void srpt_device_put(struct srpt_device *sdev)
{
	kref_put(&sdev->refs, srpt_device_release);
}

/**
 * srpt_login_port_get() - the port a connection request arrived on
 * @device: RDMA device of the request.
 * @port_num: its port number.
 *
 * The connection managers call their handlers without any reference on
 * our device: the RDMA/CM keeps its listener until after our remove
 * callback, so a request can arrive while srpt_remove_one() is freeing the
 * device.  The port is therefore found and a device reference taken under
 * srpt_dev_mutex, unless the device is going away; the login path works on
 * it with that reference and drops it with srpt_device_put().
 *
 * Return: the port with a reference on its device, or NULL when the device
 * is not (or no longer) ours.
 */
static struct srpt_port *srpt_login_port_get(struct ib_device *device,
					     u32 port_num)
{
	struct srpt_port *sport = NULL;
	struct srpt_device *sdev;

	mutex_lock(&srpt_dev_mutex);
	list_for_each_entry(sdev, &srpt_dev_list, entry) {
		if (sdev->device != device)
			continue;
		if (!sdev->removing && port_num >= 1 &&
		    port_num <= sdev->port_cnt) {
			sport = &sdev->ports[port_num - 1];
			kref_get(&sdev->refs);
		}
		break;
	}
	mutex_unlock(&srpt_dev_mutex);
	return sport;
}

/* ======================================================================== */
/* 3. Channels: lifetimes, receive buffers                                  */
/* ======================================================================== */

/*
 * Lifetimes: who holds what, and until when.
 *
 * srpt_device.  srpt_add_one() creates it holding one reference for the IB
 * client; every channel on the device holds one more, taken when its login
 * is admitted and dropped by srpt_ch_free() after the channel's QP, CQ, CM
 * id and rings are gone.  srpt_remove_one() stops new logins
 * (sdev->removing), closes the device's channels, drops the client's
 * reference and waits for the last one (sdev->released); only then does it
 * free the SRQ, the PD and the structure.
 *
 * srpt_rdma_ch.  The login core creates it and lists it on srpt_ch_list at
 * once, before its session, rings and QP exist; it stays listed until
 * srpt_ch_free() has freed everything it owns.  Every closer (ACL removal,
 * TPG disable and removal, use_srq changes, port down, device removal, a
 * SINGLE login of the same nexus) finds it there, and every waiter waits
 * for all of it.  While the login path still owns it (ch->login_busy, until
 * its REP or accept is out), srpt_ch_close() only marks it closing, and
 * srpt_login_done() disconnects it and queues the release afterwards.
 * Exactly one srpt_ch_release_work() then tears it down: drain the QP, end
 * the LIO session, srpt_ch_free().  A login that fails before its accept is
 * undone by the login path itself (srpt_login_abort()), and the CM
 * destroys its CM id.
 *
 * srpt_tpg.  LIO removes a TPG's node ACLs, and with them its sessions,
 * before srpt_drop_tpg(); srpt_drop_tpg() also closes and waits for every
 * channel still naming the TPG (logins in progress included) before the
 * TPG goes.
 *
 * Lock order, outermost first:
 *   the CM's per-id handler lock (IB CM and RDMA/CM callbacks run under it,
 *	so nothing that holds one of our locks destroys a CM id or waits for
 *	a CM callback);
 *   srpt_port.dm_mutex (unregistering the MAD agent under it waits for
 *	srpt_dm_recv(), which takes srpt_dev_mutex);
 *   srpt_dev_mutex -> srpt_tport.tpg_mutex -> se_portal_group.acl_node_mutex
 *	-> srpt_ch_mutex -> srpt_rdma_ch.lock.
 * srpt_listen_mutex is taken alone.
 *
 * srpt_ch_mutex protects srpt_ch_list and, for its readers, every listed
 * channel's ->sess and ->name.  srpt_ch_released is woken, and srpt_ch_gen
 * incremented, whenever a channel leaves the list.
 */
static DEFINE_MUTEX(srpt_ch_mutex);
static LIST_HEAD(srpt_ch_list);		/* struct srpt_rdma_ch, by .entry */
static DECLARE_WAIT_QUEUE_HEAD(srpt_ch_released);
static atomic_t srpt_ch_gen = ATOMIC_INIT(0);	/* channels released so far */
static atomic_t srpt_ch_next_id = ATOMIC_INIT(0); /* ids of new channels */

/*
 * srpt_wq runs the command path's work: requests that waited for a command
 * context.  I/O progress depends on it, so it has a rescuer thread
 * (WQ_MEM_RECLAIM).  Per-CPU, which 7.x wants said (SRPT_WQ_PERCPU in
 * srpt_compat.h).
 *
 * srpt_release_wq runs the channel release works.  No rescuer: a release
 * sleeps for tens of milliseconds (LIO's session drain waits for an RCU
 * grace period, the CM for the connection's references), and when kworkers
 * are slow to appear a rescuer runs a workqueue's backlog one item at a
 * time (closing 256 channels took 1.6-4.1 s that way, 0.6-0.8 s in
 * parallel).  Unbound: these works sleep more than they compute.
 *
 * Device removal flushes neither: it waits for the device's last
 * reference, which each release work drops as its last access to the
 * device.  Module exit destroys (and so flushes) both.
 */
static struct workqueue_struct *srpt_wq;
static struct workqueue_struct *srpt_release_wq;

/*
 * The one forward declaration of the channel code: the command path
 * (section 4) closes channels, and the channel's constructors (section 5)
 * install the command path's completion handlers.
 */
static bool srpt_ch_close(struct srpt_rdma_ch *ch);

static inline struct ib_device *srpt_ch_dev(const struct srpt_rdma_ch *ch)
{
	return ch->sport->sdev->device;
}

/**
 * srpt_ch_set_state() - move a channel to its next state
 * @ch: channel.
 * @state: new state, past the current one (channels only move forward).
 *
 * Every change of ch->state after srpt_ch_new() goes through here, so that
 * the srpt_ch_state trace event sees each one.
 */
static void srpt_ch_set_state(struct srpt_rdma_ch *ch,
			      enum srpt_ch_state state)
{
	lockdep_assert_held(&ch->lock);
	trace_srpt_ch_state(ch, ch->state, state);
	WRITE_ONCE(ch->state, state);
}

/*
 * Statistics.  A channel counts its I/O in per-CPU counters (ch->stats):
 * the CPU that completes a command adds to its own copy, with no lock and
 * no shared cache line (u64_stats_sync makes the values whole for 32-bit
 * readers, and costs nothing on 64-bit).  Send queue waits are counted
 * under ch->lock, which their path holds anyway (ch->sq_waits).  Login
 * outcomes are counted where logins are decided, in the totals of the node
 * ACL and target port, under srpt_ch_mutex.  When a channel's session
 * ends, its counters are folded into those totals under srpt_ch_mutex, in
 * the same section that clears ch->sess: a reader (srpt_stats_collect())
 * adds the totals and the channels that still have a session, under that
 * mutex, and so counts every value exactly once.
 */

/**
 * srpt_ch_stats_begin() - this CPU's counters of a channel, for writing
 * @ch: channel.
 * @flags: out: for srpt_ch_stats_end().
 *
 * Disables preemption until srpt_ch_stats_end().
 *
 * Return: the counters.
 */
static inline struct srpt_ch_stats *
srpt_ch_stats_begin(struct srpt_rdma_ch *ch, unsigned long *flags)
{
	struct srpt_ch_stats *s = get_cpu_ptr(ch->stats);

	*flags = u64_stats_update_begin_irqsave(&s->syncp);
	return s;
}

static inline void srpt_ch_stats_end(struct srpt_rdma_ch *ch,
				     struct srpt_ch_stats *s,
				     unsigned long flags)
{
	u64_stats_update_end_irqrestore(&s->syncp, flags);
	put_cpu_ptr(ch->stats);
}

/**
 * srpt_ch_count() - add to one per-CPU counter of a channel
 * @ch: channel.
 * @idx: enum srpt_stat, below SRPT_STAT_PERCPU_NR.
 * @n: amount.
 */
static void srpt_ch_count(struct srpt_rdma_ch *ch, unsigned int idx, u64 n)
{
	struct srpt_ch_stats *s;
	unsigned long flags;

	s = srpt_ch_stats_begin(ch, &flags);
	u64_stats_add(&s->v[idx], n);
	srpt_ch_stats_end(ch, s, flags);
}

/**
 * srpt_ch_stats_add() - add a channel's counters to a set of values
 * @ch: channel, listed (its counters are freed after it leaves the list).
 * @sum: the values to add to.
 */
static void srpt_ch_stats_add(struct srpt_rdma_ch *ch, struct srpt_stats *sum)
{
	u64 v[SRPT_STAT_PERCPU_NR];
	unsigned int start, i;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct srpt_ch_stats *s = per_cpu_ptr(ch->stats, cpu);

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			for (i = 0; i < SRPT_STAT_PERCPU_NR; i++)
				v[i] = u64_stats_read(&s->v[i]);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		for (i = 0; i < SRPT_STAT_PERCPU_NR; i++)
			sum->v[i] += v[i];
	}
	sum->v[SRPT_STAT_SQ_WAITS] += READ_ONCE(ch->sq_waits);
}

/**
 * srpt_ch_nacl() - the node ACL of a channel's session
 * @ch: channel with a session.
 *
 * Return: the srpt_nacl that embeds the session's node ACL.
 */
static inline struct srpt_nacl *srpt_ch_nacl(const struct srpt_rdma_ch *ch)
{
	return container_of(ch->sess->se_node_acl, struct srpt_nacl, nacl);
}

/**
 * srpt_ch_stats_fold() - move a channel's counters into its owners' totals
 * @ch: channel whose session is ending; nothing counts on it any more.
 *
 * Called with srpt_ch_mutex held, right before ch->sess is cleared.
 */
static void srpt_ch_stats_fold(struct srpt_rdma_ch *ch)
{
	lockdep_assert_held(&srpt_ch_mutex);
	srpt_ch_stats_add(ch, &ch->tport->totals);
	srpt_ch_stats_add(ch, &srpt_ch_nacl(ch)->totals);
}

/**
 * srpt_lat_bucket() - the latency histogram bucket of a duration
 * @ns: nanoseconds.
 *
 * Return: 0 under 1 us, else 1 + log2 of the microseconds, at most
 * SRPT_LAT_BUCKETS - 1.
 */
static inline unsigned int srpt_lat_bucket(u64 ns)
{
	return min_t(unsigned int, fls64(div_u64(ns, NSEC_PER_USEC)),
		     SRPT_LAT_BUCKETS - 1);
}

/**
 * srpt_tmf_kind() - the TMF counter of an SRP task management function
 * @func: SRPT_TMF_*.
 *
 * Return: 0..4 for ABORT_TASK, ABORT_TASK_SET, CLEAR_TASK_SET, LUN_RESET,
 * CLEAR_ACA; 5 for any other function code.
 */
static unsigned int srpt_tmf_kind(u8 func)
{
	switch (func) {
	case SRPT_TMF_ABORT_TASK:
		return 0;
	case SRPT_TMF_ABORT_TASK_SET:
		return 1;
	case SRPT_TMF_CLEAR_TASK_SET:
		return 2;
	case SRPT_TMF_LUN_RESET:
		return 3;
	case SRPT_TMF_CLEAR_ACA:
		return 4;
	default:
		return 5;
	}
}

/**
 * srpt_post_recv() - post one receive buffer
 * @ch: channel.
 * @r: receive buffer.
 *
 * Return: 0 or the error of ib_post_recv().
 */
static int srpt_post_recv(struct srpt_rdma_ch *ch, struct srpt_recv *r)
{
	return srpt_fail(SRPT_FAULT_POST_RECV) ? -ENOMEM :
	       ib_post_recv(ch->qp, &r->wr, NULL);
}

/**
 * srpt_srq_post() - post one buffer to a device's SRQ
 * @srq: the SRQ.
 * @r: one of its buffers.
 *
 * Return: 0 or the error of ib_post_srq_recv().
 */
static int srpt_srq_post(struct srpt_srq *srq, struct srpt_recv *r)
{
	return srpt_fail(SRPT_FAULT_POST_SRQ_RECV) ? -ENOMEM :
	       ib_post_srq_recv(srq->srq, &r->wr, NULL);
}

/**
 * srpt_recv_repost() - give a receive buffer back to the initiator
 * @ch: channel.
 * @r: the buffer; the IU in it is not looked at any more.
 *
 * When the IU was a request, the channel holds one request less, and the
 * credit it consumed is owed to the initiator from now on and goes out
 * with the next response.  Nothing is posted to the channel's own ring
 * once it drains; a buffer of the device's SRQ is always posted back to
 * the SRQ.
 */
static void srpt_recv_repost(struct srpt_rdma_ch *ch, struct srpt_recv *r)
{
	unsigned long flags;
	int ret = -ESHUTDOWN;

	/* Before the credit can reach the initiator. */
	if (r->credit)
		atomic_dec(&ch->reqs_held);
	if (r->srq) {
		/* The SRQ outlives the channel: its buffers always go back. */
		ret = srpt_srq_post(r->srq, r);
		if (ret)
			pr_warn("%s: SRQ receive buffer not reposted (%d)\n",
				ch->name, ret);
		else if (r->credit && ch->state < SRPT_CH_DRAINING)
			atomic_inc(&ch->credits);
		return;
	}
	spin_lock_irqsave(&ch->lock, flags);
	if (ch->state < SRPT_CH_DRAINING)
		ret = srpt_post_recv(ch, r);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (ret) {
		/*
		 * Its credit stays with it: the initiator is never granted
		 * a request the ring has no buffer for.
		 */
		if (ret != -ESHUTDOWN)
			pr_warn_ratelimited("%s: receive buffer not reposted (%d); one credit less\n",
					    ch->name, ret);
		return;
	}
	if (r->credit)
		atomic_inc(&ch->credits);
}

/* ======================================================================== */
/* 4. The command path                                                      */
/* ======================================================================== */

/*
 * A request IU is received into a srpt_recv, paired with a free srpt_cmd,
 * parsed (srpt_parse_cmd() / srpt_parse_tsk_mgmt()) and handed to LIO.
 * DATA-OUT is fetched with RDMA READ before LIO executes the command;
 * DATA-IN goes out with RDMA WRITE chained in front of the SRP_RSP.  Every
 * post to the send queue goes through srpt_sq_post(): when the queue is
 * full the command waits on ch->sq_wait, in order, until completions free
 * room.  Nothing is ever dropped for lack of room.
 *
 * The receive buffer of a request is reposted when its response is posted,
 * under the same lock (its immediate data is no longer needed then), and
 * the credit it returns rides in that response.
 */

static inline struct srpt_cmd *srpt_se_cmd_to_cmd(struct se_cmd *se_cmd)
{
	return container_of(se_cmd, struct srpt_cmd, se_cmd);
}

/**
 * srpt_iu_tag() - the tag of an IU of at least 16 bytes
 * @buf: the IU.
 *
 * Return: the tag (bytes 8 to 15), as the initiator wrote it.
 */
static u64 srpt_iu_tag(const void *buf)
{
	u64 tag;

	memcpy(&tag, (const u8 *)buf + 8, sizeof(tag));
	return tag;
}

/**
 * srpt_cmd_release_recv() - repost the receive buffer a command holds
 * @cmd: command; does nothing when the buffer was reposted already.
 */
static void srpt_cmd_release_recv(struct srpt_cmd *cmd)
{
	struct srpt_recv *r = cmd->recv;

	if (!r)
		return;
	cmd->recv = NULL;
	srpt_recv_repost(cmd->ch, r);
}

/**
 * srpt_free_rw() - free the RDMA contexts and data buffers of a command
 * @cmd: command.
 */
static void srpt_free_rw(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	enum dma_data_direction dir = cmd->dir == SRPT_DIR_OUT ?
		DMA_FROM_DEVICE : DMA_TO_DEVICE;
	u32 i;

	for (i = 0; i < cmd->nrw; i++) {
		struct srpt_rw *rw = &cmd->rw[i];

		if (!rw->sg)
			continue;
		if (rw->map_nents)
			rdma_rw_ctx_destroy(&rw->rw, ch->qp,
					    ch->sport->port_num, rw->sg,
					    rw->map_nents, dir);
		target_free_sgl(rw->sg, rw->nents);
	}
	if (cmd->rw != &cmd->rw_one)
		kvfree(cmd->rw);
	cmd->rw = NULL;
	cmd->nrw = 0;
	cmd->data_wrs = 0;

	if (cmd->table) {
		if (cmd->table_mapped)
			rdma_rw_ctx_destroy(&cmd->table_rw.rw, ch->qp,
					    ch->sport->port_num,
					    cmd->table_rw.sg, 1,
					    DMA_FROM_DEVICE);
		kfree(cmd->table);
		cmd->table = NULL;
		cmd->table_mapped = false;
	}
	if (cmd->imm_copy) {
		target_free_sgl(cmd->imm_copy, cmd->imm_copy_nents);
		cmd->imm_copy = NULL;
		cmd->imm_copy_nents = 0;
	}
}

/**
 * srpt_put_cmd() - return a command context to its channel
 * @cmd: command; LIO is done with it, or never saw it.
 *
 * Requests that waited for a free context are served from a work item, not
 * from here: this runs inside LIO's release path.
 */
static void srpt_put_cmd(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	unsigned long flags;
	bool last;

	/* Immediate data in place holds nothing to free. */
	if (cmd->nrw || cmd->table || cmd->imm_copy)
		srpt_free_rw(cmd);
	srpt_cmd_release_recv(cmd);

	spin_lock_irqsave(&ch->lock, flags);
	WRITE_ONCE(cmd->state, SRPT_CMD_FREE);
	list_add_tail(&cmd->sq_entry, &ch->free_cmds);
	last = atomic_dec_and_test(&ch->cmds_in_use) &&
	       ch->state >= SRPT_CH_DRAINING;
	if (!list_empty(&ch->recv_wait) && ch->state < SRPT_CH_DRAINING)
		queue_work(srpt_wq, &ch->wait_work);
	spin_unlock_irqrestore(&ch->lock, flags);
	/* The release work waits for the last one (srpt_ch_wait_cmds()). */
	if (last)
		wake_up_var(&ch->cmds_in_use);
}

/**
 * srpt_set_cmd_state() - move a command forward
 * @cmd: command.
 * @state: new state; a command never moves back.
 *
 * Lock-free: a compare-and-swap that only ever raises the state, so a
 * late caller (say, LIO aborting a command whose response completed)
 * cannot move it back.  The command path calls this three times per
 * I/O; ch->lock stays for what it guards besides.
 *
 * Return: whether the state changed.
 */
static inline bool srpt_set_cmd_state(struct srpt_cmd *cmd,
				      enum srpt_cmd_state state)
{
	enum srpt_cmd_state old = READ_ONCE(cmd->state);

	do {
		if (old >= state)
			return false;
	} while (!try_cmpxchg(&cmd->state, &old, state));
	return true;
}

/**
 * srpt_sq_issue() - post what a command has reserved send queue room for
 * @cmd: command.
 * @op: what to post.
 *
 * Called with ch->lock held and the room reserved.  Inline: every I/O
 * posts through srpt_sq_post().
 *
 * Return: the result of ib_post_send().
 */
static __always_inline int srpt_sq_issue(struct srpt_cmd *cmd,
					 enum srpt_sq_op op)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 port = ch->sport->port_num;
	struct ib_send_wr *first = NULL;
	u32 i;

	lockdep_assert_held(&ch->lock);
	switch (op) {
	case SRPT_SQ_TABLE:
		first = rdma_rw_ctx_wrs(&cmd->table_rw.rw, ch->qp, port,
					&cmd->rdma_cqe, NULL);
		break;
	case SRPT_SQ_DATA_OUT:
		for (i = cmd->nrw; i-- > 0; ) {
			if (!cmd->rw[i].map_nents)
				continue;
			first = rdma_rw_ctx_wrs(&cmd->rw[i].rw, ch->qp, port,
						first ? NULL : &cmd->rdma_cqe,
						first);
		}
		break;
	case SRPT_SQ_RSP:
		cmd->rsp_sge.length = cmd->rsp_len;
		ib_dma_sync_single_for_device(srpt_ch_dev(ch), cmd->rsp_dma,
					      cmd->rsp_len, DMA_TO_DEVICE);
		first = &cmd->rsp_wr;
		if (cmd->rsp_with_data) {
			for (i = cmd->nrw; i-- > 0; ) {
				if (!cmd->rw[i].map_nents)
					continue;
				first = rdma_rw_ctx_wrs(&cmd->rw[i].rw, ch->qp,
							port, NULL, first);
			}
		}
		break;
	}
	if (WARN_ON_ONCE(!first))
		return -EINVAL;
	return srpt_fail(SRPT_FAULT_POST_SEND) ? -ENOMEM :
	       ib_post_send(ch->qp, first, NULL);
}

/**
 * srpt_finish_rsp() - a response went out, or never will
 * @cmd: command.
 */
static void srpt_finish_rsp(struct srpt_cmd *cmd)
{
	srpt_set_cmd_state(cmd, SRPT_CMD_DONE);
	if (cmd->lio)
		transport_generic_free_cmd(&cmd->se_cmd, 0);
	else
		srpt_put_cmd(cmd);
}

/**
 * srpt_sq_fail() - finish a command whose work request cannot be posted
 * @cmd: command.
 * @op: what could not be posted.
 *
 * The channel is going away (or its QP broke): a command waiting for its
 * DATA-OUT fails through LIO, which then asks for a response that is
 * dropped here in turn.  The credits a dropped response granted are owed
 * again: they go out with the next response, so that a post that failed
 * on a channel that lives on does not shrink the initiator's window.
 */
static void srpt_sq_fail(struct srpt_cmd *cmd, enum srpt_sq_op op)
{
	if (op == SRPT_SQ_RSP && cmd->rsp_credits)
		atomic_add(cmd->rsp_credits, &cmd->ch->credits);
	switch (op) {
	case SRPT_SQ_TABLE:
		srpt_finish_rsp(cmd);
		break;
	case SRPT_SQ_DATA_OUT:
		transport_generic_request_failure(&cmd->se_cmd,
						  TCM_CHECK_CONDITION_ABORT_CMD);
		break;
	case SRPT_SQ_RSP:
		srpt_finish_rsp(cmd);
		break;
	}
}

/**
 * srpt_sq_resume() - post what waited for send queue room
 * @ch: channel.
 * @flags: what spin_lock_irqsave() of ch->lock saved; the lock is held on
 *	entry and released here.
 *
 * Out of line: commands wait only while the send queue is full.  Room is
 * taken from ch->sq_avail only under ch->lock, so what is read here can
 * only grow (completions give room back without the lock) until it is
 * taken.
 */
static noinline void srpt_sq_resume(struct srpt_rdma_ch *ch,
				    unsigned long flags)
	__releases(&ch->lock)
{
	struct srpt_cmd *cmd, *tmp;
	LIST_HEAD(failed);

	lockdep_assert_held(&ch->lock);
	list_for_each_entry_safe(cmd, tmp, &ch->sq_wait, sq_entry) {
		if (ch->state >= SRPT_CH_DRAINING ||
		    cmd->sq_wrs > atomic_read(&ch->sq_avail))
			break;
		list_del(&cmd->sq_entry);
		atomic_sub(cmd->sq_wrs, &ch->sq_avail);
		trace_srpt_sq_resume(cmd, cmd->sq_op, cmd->sq_wrs,
				     atomic_read(&ch->sq_avail));
		if (srpt_sq_issue(cmd, cmd->sq_op)) {
			atomic_add(cmd->sq_wrs, &ch->sq_avail);
			list_add_tail(&cmd->sq_entry, &failed);
		}
	}
	spin_unlock_irqrestore(&ch->lock, flags);

	list_for_each_entry_safe(cmd, tmp, &failed, sq_entry) {
		list_del(&cmd->sq_entry);
		srpt_sq_fail(cmd, cmd->sq_op);
	}
}

/**
 * srpt_rsp_grant() - repost a response's receive buffer, and fill in the
 *	credits the response grants
 * @cmd: command whose response is built (SRPT_SQ_RSP).
 * @r: its receive buffer of the channel's own ring, the IU in it not looked
 *	at any more, or NULL (none, or an SRQ buffer, reposted already).
 *
 * Called with ch->lock held and the channel not draining: the section that
 * posts the response posts the receive too, one lock round trip for both.
 * The credit @r returns is in this very response; when @r cannot be
 * posted, its credit stays with it (the initiator is never granted a
 * request the ring has no buffer for).
 *
 * Return: 0 or the error of ib_post_recv().
 */
static inline int srpt_rsp_grant(struct srpt_cmd *cmd, struct srpt_recv *r)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 own = 0;
	int ret = 0;

	lockdep_assert_held(&ch->lock);
	if (r) {
		ret = srpt_post_recv(ch, r);
		own = !ret && r->credit;
	}
	cmd->rsp_credits = atomic_xchg(&ch->credits, 0) + own;
	if (cmd->rsp_len)
		srpt_rsp_set_credits(cmd->rsp, cmd->rsp_credits);
	return ret;
}

/**
 * srpt_sq_post() - post now, or queue until the send queue has room
 * @cmd: command.
 * @op: what to post.
 * @nwrs: send queue entries it takes (at most ch->sq_size).
 * @r: for SRPT_SQ_RSP, the receive buffer to repost in the same lock
 *	section (srpt_rsp_grant()), or NULL; NULL for the other ops.
 *
 * Commands go out in the order they asked.  Once the channel drains,
 * nothing is posted (@r neither) and the command is finished locally.
 */
static void srpt_sq_post(struct srpt_cmd *cmd, enum srpt_sq_op op, u32 nwrs,
			 struct srpt_recv *r)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	struct srpt_cmd *first;
	bool resume = false;
	unsigned long flags;
	int rret = 0;
	int ret = 0;

	spin_lock_irqsave(&ch->lock, flags);
	if (ch->state >= SRPT_CH_DRAINING) {
		ret = -ESHUTDOWN;
		goto unlock;
	}
	if (op == SRPT_SQ_RSP)
		rret = srpt_rsp_grant(cmd, r);
	if (!list_empty(&ch->sq_wait) ||
	    atomic_read(&ch->sq_avail) < nwrs) {
		cmd->sq_op = op;
		cmd->sq_wrs = nwrs;
		list_add_tail(&cmd->sq_entry, &ch->sq_wait);
		WRITE_ONCE(ch->sq_waits, ch->sq_waits + 1);
		trace_srpt_sq_full(cmd, op, nwrs, atomic_read(&ch->sq_avail));
		/*
		 * Pairs with srpt_sq_complete(): it gives room back, then
		 * looks for waiters without ch->lock.  Either it sees this
		 * one, or the room it gave is seen here, and posted.
		 */
		smp_mb();
		first = list_first_entry(&ch->sq_wait, struct srpt_cmd,
					 sq_entry);
		resume = atomic_read(&ch->sq_avail) >= first->sq_wrs;
	} else {
		atomic_sub(nwrs, &ch->sq_avail);
		cmd->sq_wrs = nwrs;
		ret = srpt_sq_issue(cmd, op);
		if (ret)
			atomic_add(nwrs, &ch->sq_avail);
	}
unlock:
	if (unlikely(resume))
		srpt_sq_resume(ch, flags);
	else
		spin_unlock_irqrestore(&ch->lock, flags);
	if (unlikely(rret))
		pr_warn_ratelimited("%s: receive buffer not reposted (%d); one credit less\n",
				    ch->name, rret);
	if (ret) {
		if (ret != -ESHUTDOWN)
			pr_warn_ratelimited("%s: posting a work request for tag 0x%llx failed (%d)\n",
					    ch->name, cmd->tag, ret);
		srpt_sq_fail(cmd, op);
	}
}

/**
 * srpt_sq_complete() - give back send queue room and post what waited for it
 * @ch: channel.
 * @nwrs: entries a completed post had reserved.
 */
static void srpt_sq_complete(struct srpt_rdma_ch *ch, u32 nwrs)
{
	unsigned long flags;

	atomic_add(nwrs, &ch->sq_avail);
	/*
	 * Room given back, then waiters looked for, without ch->lock while
	 * nothing waits: pairs with the barrier of srpt_sq_post() between
	 * queueing a command and reading the room.
	 */
	smp_mb__after_atomic();
	if (likely(list_empty(&ch->sq_wait)))
		return;
	spin_lock_irqsave(&ch->lock, flags);
	srpt_sq_resume(ch, flags);
}

/**
 * srpt_build_sense() - fixed-format sense data
 * @buf: SRPT_SENSE_LEN bytes.
 * @key: sense key.
 * @asc: additional sense code.
 * @ascq: additional sense code qualifier.
 */
static void srpt_build_sense(u8 *buf, u8 key, u8 asc, u8 ascq)
{
	memset(buf, 0, SRPT_SENSE_LEN);
	buf[0] = 0x70;
	buf[2] = key;
	buf[7] = SRPT_SENSE_LEN - 8;
	buf[12] = asc;
	buf[13] = ascq;
}

/**
 * srpt_send_rsp() - build a response into the command's buffer and post it
 * @cmd: command.
 * @info: response fields; its credits are not used: srpt_rsp_grant()
 *	writes them into the built response when it is posted.
 * @with_data: whether the DATA-IN RDMA WRITEs go in front of it.
 *
 * The receive buffer is reposted in the lock section that posts the
 * response (an SRQ buffer first, without that lock), so the credit it
 * returns is in this very response.
 */
static void srpt_send_rsp(struct srpt_cmd *cmd, struct srpt_rsp_info *info,
			  bool with_data)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	struct srpt_recv *r = cmd->recv;
	u32 nwrs = 1;

	/* While the IU (and the CDB in it) is still ours. */
	trace_srpt_rsp_send(cmd, info, with_data);
	srpt_set_cmd_state(cmd, SRPT_CMD_RSP);
	if (r) {
		cmd->recv = NULL;
		if (r->srq) {
			/* Not under ch->lock: its credit is counted now. */
			srpt_recv_repost(ch, r);
			r = NULL;
		} else if (r->credit) {
			/* Before the credit can reach the initiator. */
			atomic_dec(&ch->reqs_held);
		}
	}
	info->tag = cmd->tag;
	/* srpt_rsp_grant() sets them, when the response is posted. */
	info->req_lim_delta = 0;
	cmd->rsp_credits = 0;
	cmd->rsp_len = srpt_build_rsp(cmd->rsp, ch->max_ti_iu_len, info);
	cmd->rsp_with_data = with_data && cmd->nrw;
	if (cmd->rsp_with_data)
		nwrs += cmd->data_wrs;
	pr_debug("%s: tag 0x%llx: response status 0x%x, %u bytes%s\n",
		 ch->name, cmd->tag, info->status, cmd->rsp_len,
		 cmd->rsp_with_data ? " after DATA-IN" : "");
	srpt_sq_post(cmd, SRPT_SQ_RSP, nwrs, r);
}

/**
 * srpt_send_local_rsp() - answer a request LIO never saw
 * @cmd: command (cmd->lio false).
 * @status: SCSI status.
 * @asc: additional sense code of ILLEGAL REQUEST sense data, or 0 for none.
 * @ascq: its qualifier.
 */
static void srpt_send_local_rsp(struct srpt_cmd *cmd, u8 status, u8 asc,
				u8 ascq)
{
	struct srpt_rsp_info info = { .status = status };
	u8 sense[SRPT_SENSE_LEN];

	if (asc) {
		srpt_build_sense(sense, ILLEGAL_REQUEST, asc, ascq);
		info.sense = sense;
		info.sense_len = sizeof(sense);
	}
	srpt_send_rsp(cmd, &info, false);
}

/**
 * srpt_send_tmf_rsp() - answer a task management request
 * @cmd: command.
 * @code: SRPT_TMF_RSP_* response code.
 */
static void srpt_send_tmf_rsp(struct srpt_cmd *cmd, u8 code)
{
	u8 data[4] = { 0, 0, 0, code };
	struct srpt_rsp_info info = {
		.resp_data = data,
		.resp_len = sizeof(data),
	};

	srpt_send_rsp(cmd, &info, false);
}

/**
 * srpt_alloc_rw() - local buffers and RDMA contexts for a command's data
 * @cmd: command with a parsed descriptor list (cmd->ci.desc).
 * @sgl: out: the chained scatterlist of all buffers, for LIO.
 * @sg_cnt: out: its entries.
 *
 * One chainable scatterlist per remote buffer, chained into one list.
 *
 * Return: 0, -ENOMEM, or -E2BIG when the transfer needs more send queue
 * entries than the channel has.
 */
static int srpt_alloc_rw(struct srpt_cmd *cmd, struct scatterlist **sgl,
			 u32 *sg_cnt)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	enum dma_data_direction dir = cmd->dir == SRPT_DIR_OUT ?
		DMA_FROM_DEVICE : DMA_TO_DEVICE;
	struct srpt_rw *prev = NULL;
	u32 i, n = cmd->ci.ndesc;
	int ret;

	*sgl = NULL;
	*sg_cnt = 0;
	if (n == 1) {
		/* Each field srpt_free_rw() looks at is set below. */
		cmd->rw = &cmd->rw_one;
	} else {
		cmd->rw = srpt_fail(SRPT_FAULT_RW_ARRAY) ? NULL :
			  kvcalloc(n, sizeof(*cmd->rw), GFP_KERNEL);
		if (!cmd->rw)
			return -ENOMEM;
	}
	cmd->nrw = n;

	for (i = 0; i < n; i++) {
		struct srpt_rw *rw = &cmd->rw[i];

		rw->sg = NULL;
		rw->map_nents = 0;
		rw->wrs = 0;
		srpt_decode_desc(cmd->ci.desc + i * SRPT_DIRECT_DESC_LEN,
				 &rw->desc);
		if (!rw->desc.len)
			continue;
		ret = srpt_fail(SRPT_FAULT_DATA_BUF) ? -ENOMEM :
		      target_alloc_sgl(&rw->sg, &rw->nents, rw->desc.len,
				       false, i < n - 1);
		if (ret) {
			rw->sg = NULL;
			goto fail;
		}
		ret = srpt_fail(SRPT_FAULT_RW_CTX) ? -EAGAIN :
		      rdma_rw_ctx_init(&rw->rw, ch->qp, ch->sport->port_num,
				       rw->sg, rw->nents, 0, rw->desc.va,
				       rw->desc.key, dir);
		if (ret < 0) {
			target_free_sgl(rw->sg, rw->nents);
			rw->sg = NULL;
			goto fail;
		}
		rw->map_nents = rw->nents;
		rw->wrs = ret;
		cmd->data_wrs += ret;
		if (prev)
			sg_chain(prev->sg, prev->nents + 1, rw->sg);
		else
			*sgl = rw->sg;
		prev = rw;
		*sg_cnt += rw->nents;
	}
	/* The response follows the DATA-IN writes in the same post. */
	if (cmd->data_wrs + 1 > ch->sq_size) {
		ret = -E2BIG;
		goto fail;
	}
	return 0;

fail:
	srpt_free_rw(cmd);
	return ret;
}

/**
 * srpt_task_attr() - LIO task attribute of an SRP task attribute
 * @attr: SRPT_TASK_* (validated by srpt_parse_cmd()).
 *
 * Return: the TCM_*_TAG LIO queues the command with.
 */
static int srpt_task_attr(u8 attr)
{
	switch (attr) {
	case SRPT_TASK_HEAD_OF_QUEUE:
		return TCM_HEAD_TAG;
	case SRPT_TASK_ORDERED:
		return TCM_ORDERED_TAG;
	case SRPT_TASK_ACA:
		return TCM_ACA_TAG;
	default:
		return TCM_SIMPLE_TAG;
	}
}

/**
 * srpt_map_data() - local memory for a command's data, before LIO sees it
 * @cmd: parsed SRP_CMD; cmd->ci.desc points at all its descriptors.
 * @sgl: out: scatterlist of the data for LIO, or NULL for none.
 * @sg_cnt: out: its entries.
 *
 * Immediate data is used in place, or copied when an SRQ buffer has it at
 * an offset the buffer was not placed for; remote buffers get local pages
 * and RDMA R/W contexts (srpt_alloc_rw()).  Everything is set up before
 * the command is handed to LIO, so a failure here is answered without
 * LIO ever holding a reference to it; srpt_put_cmd() frees what was
 * allocated.
 *
 * Return: 0; -E2BIG when the transfer needs more send queue entries than
 * the channel has; -ENOMEM or -EAGAIN (the QP's memory regions ran out)
 * when resources are short.
 */
static int srpt_map_data(struct srpt_cmd *cmd, struct scatterlist **sgl,
			 u32 *sg_cnt)
{
	struct srpt_cmd_info *ci = &cmd->ci;

	*sgl = NULL;
	*sg_cnt = 0;
	if (ci->fmt == SRPT_DESC_IMM &&
	    IS_ALIGNED((unsigned long)ci->imm, SRPT_IMM_ALIGN)) {
		/* In place: the receive buffers are placed for this. */
		sg_init_one(&cmd->imm_sg, ci->imm, ci->data_len);
		*sgl = &cmd->imm_sg;
		*sg_cnt = 1;
		return 0;
	}
	if (ci->fmt == SRPT_DESC_IMM) {
		/* An SRQ buffer and an offset it was not placed for. */
		if (srpt_fail(SRPT_FAULT_IMM_COPY) ||
		    target_alloc_sgl(&cmd->imm_copy, &cmd->imm_copy_nents,
				     ci->data_len, false, false)) {
			cmd->imm_copy = NULL;
			cmd->imm_copy_nents = 0;
			return -ENOMEM;
		}
		sg_copy_from_buffer(cmd->imm_copy, cmd->imm_copy_nents,
				    ci->imm, ci->data_len);
		*sgl = cmd->imm_copy;
		*sg_cnt = cmd->imm_copy_nents;
		return 0;
	}
	if (!ci->data_len)
		return 0;
	return srpt_alloc_rw(cmd, sgl, sg_cnt);
}

/**
 * srpt_submit_cmd() - hand a parsed SRP_CMD with its descriptors to LIO
 * @cmd: command; cmd->ci.desc points at all its descriptors.
 *
 * A command whose data cannot be set up is answered here, without LIO:
 * CHECK CONDITION when it can never fit the channel's send queue, BUSY
 * (the initiator retries) when resources are short for now.
 */
static void srpt_submit_cmd(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	struct srpt_cmd_info *ci = &cmd->ci;
	struct se_cmd *se_cmd = &cmd->se_cmd;
	struct scatterlist *sgl;
	u32 sg_cnt;
	int dir, ret;

	ret = srpt_map_data(cmd, &sgl, &sg_cnt);
	if (ret == -E2BIG) {
		pr_warn_ratelimited("%s: tag 0x%llx: %u descriptors of %u bytes need more than the %u send queue entries of the channel\n",
				    ch->name, cmd->tag, ci->ndesc,
				    ci->data_len, ch->sq_size);
		srpt_send_local_rsp(cmd, SAM_STAT_CHECK_CONDITION, 0x0e, 0x03);
		return;
	}
	if (ret) {
		pr_info_ratelimited("%s: tag 0x%llx: no resources for %u bytes in %u buffer(s) (%d); BUSY, the initiator retries\n",
				    ch->name, cmd->tag, ci->data_len,
				    ci->ndesc, ret);
		srpt_send_local_rsp(cmd, SAM_STAT_BUSY, 0, 0);
		return;
	}

	dir = ci->dir == SRPT_DIR_OUT ? DMA_TO_DEVICE :
	      ci->dir == SRPT_DIR_IN ? DMA_FROM_DEVICE : DMA_NONE;
	se_cmd->tag = cmd->tag;
	ret = srpt_fail(SRPT_FAULT_INIT_CMD) ? -ESHUTDOWN :
	      target_init_cmd(se_cmd, ch->sess, cmd->sense,
			      scsilun_to_int((struct scsi_lun *)ci->lun),
			      ci->data_len, srpt_task_attr(ci->task_attr),
			      dir, TARGET_SCF_ACK_KREF);
	if (ret) {
		/*
		 * The session is being torn down; should the channel still
		 * be up, the initiator retries (else the response is dropped
		 * as the channel drains).
		 */
		srpt_send_local_rsp(cmd, SAM_STAT_BUSY, 0, 0);
		return;
	}
	/*
	 * LIO holds two references now; from here on every answer goes
	 * through LIO (which drops both), never around it.
	 */
	cmd->lio = true;
	srpt_set_cmd_state(cmd, SRPT_CMD_EXEC);
	if (target_submit_prep(se_cmd, (unsigned char *)ci->cdb, sgl, sg_cnt,
			       NULL, 0, NULL, 0, GFP_KERNEL))
		return;	/* LIO has sent the failure response. */
	target_submit(se_cmd);
}

/**
 * srpt_fetch_table() - RDMA READ an external descriptor table
 * @cmd: command whose descriptors did not fit in its IU.
 *
 * srpt_rdma_done() continues with srpt_submit_cmd() once it arrived.
 */
static void srpt_fetch_table(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 len = cmd->ci.ext_table.len;
	int ret;

	cmd->table = srpt_fail(SRPT_FAULT_TABLE) ? NULL :
		     kmalloc(len, GFP_KERNEL);
	if (!cmd->table) {
		srpt_send_local_rsp(cmd, SAM_STAT_BUSY, 0, 0);
		return;
	}
	sg_init_one(&cmd->imm_sg, cmd->table, len);
	cmd->table_rw.sg = &cmd->imm_sg;
	ret = srpt_fail(SRPT_FAULT_TABLE_RW) ? -EAGAIN :
	      rdma_rw_ctx_init(&cmd->table_rw.rw, ch->qp, ch->sport->port_num,
			       &cmd->imm_sg, 1, 0, cmd->ci.ext_table.va,
			       cmd->ci.ext_table.key, DMA_FROM_DEVICE);
	if (ret < 0) {
		kfree(cmd->table);
		cmd->table = NULL;
		srpt_send_local_rsp(cmd, SAM_STAT_BUSY, 0, 0);
		return;
	}
	cmd->table_mapped = true;
	srpt_sq_post(cmd, SRPT_SQ_TABLE, ret, NULL);
}

/**
 * srpt_fmt_name() - how a command's data is described, for log lines
 * @ci: parsed SRP_CMD.
 *
 * Return: a static string naming the descriptor format (tests count them).
 */
static const char *srpt_fmt_name(const struct srpt_cmd_info *ci)
{
	switch (ci->fmt) {
	case SRPT_DESC_DIRECT:
		return "direct";
	case SRPT_DESC_INDIRECT:
		return ci->desc || !ci->ndesc ? "indirect" : "indirect external";
	case SRPT_DESC_IMM:
		return "immediate";
	default:
		return "no data";
	}
}

/**
 * srpt_handle_cmd() - an SRP_CMD arrived
 * @cmd: command holding the receive buffer.
 *
 * Malformed requests are answered with CHECK CONDITION, ILLEGAL REQUEST,
 * INVALID FIELD IN INFORMATION UNIT without LIO ever seeing them.
 */
static void srpt_handle_cmd(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	struct srpt_recv *r = cmd->recv;
	struct srpt_cmd_info *ci = &cmd->ci;
	int ret;

	cmd->tag = srpt_iu_tag(r->buf);
	ret = srpt_parse_cmd(r->buf, r->byte_len, ch->imm_data_offset,
			     SRPT_MAX_DESC, ci);
	if (!ret && ci->data_len > SRPT_MAX_DATA_LEN)
		ret = -EFBIG;
	if (!ret && scsi_command_size(ci->cdb) > ci->cdb_len)
		ret = -EMSGSIZE;
	trace_srpt_cmd_recv(cmd, ret);
	if (ret) {
		pr_warn_ratelimited("%s: rejected SRP_CMD with tag 0x%llx (%u bytes): %s\n",
				    ch->name, cmd->tag, r->byte_len,
				    ret == -EOPNOTSUPP ? "unsupported data descriptors" :
				    ret == -E2BIG ? "too many data descriptors" :
				    ret == -EFBIG ? "data length too large" :
				    ret == -EMSGSIZE ? "CDB longer than the IU holds" :
				    "malformed IU");
		srpt_send_local_rsp(cmd, SAM_STAT_CHECK_CONDITION, 0x0e, 0x03);
		return;
	}
	cmd->tag = ci->tag;
	cmd->dir = ci->dir;
	cmd->data_len = ci->data_len;
	pr_debug("%s: tag 0x%llx: SRP_CMD opcode 0x%02x, %u bytes %s, %s, %u descriptor(s)\n",
		 ch->name, cmd->tag, ci->cdb[0], ci->data_len,
		 ci->dir == SRPT_DIR_OUT ? "out" : "in", srpt_fmt_name(ci),
		 ci->ndesc);
	if (ci->fmt == SRPT_DESC_INDIRECT && !ci->desc && ci->ndesc) {
		srpt_fetch_table(cmd);
		return;
	}
	srpt_submit_cmd(cmd);
}

/**
 * srpt_tmf_to_tcm() - LIO task management function of an SRP one
 * @func: SRPT_TMF_*.
 *
 * Return: TMR_* or -1 for a function SRP does not define.
 */
static int srpt_tmf_to_tcm(u8 func)
{
	switch (func) {
	case SRPT_TMF_ABORT_TASK:
		return TMR_ABORT_TASK;
	case SRPT_TMF_ABORT_TASK_SET:
		return TMR_ABORT_TASK_SET;
	case SRPT_TMF_CLEAR_TASK_SET:
		return TMR_CLEAR_TASK_SET;
	case SRPT_TMF_LUN_RESET:
		return TMR_LUN_RESET;
	case SRPT_TMF_CLEAR_ACA:
		return TMR_CLEAR_ACA;
	default:
		return -1;
	}
}

/**
 * srpt_handle_tmf() - an SRP_TSK_MGMT arrived
 * @cmd: command holding the receive buffer.
 */
static void srpt_handle_tmf(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	struct srpt_recv *r = cmd->recv;
	struct srpt_tmf_info t;
	int tcm, ret;

	/* No SRP_CMD fields: the trace events read none from an old one. */
	memset(&cmd->ci, 0, sizeof(cmd->ci));
	cmd->tag = srpt_iu_tag(r->buf);
	ret = srpt_parse_tsk_mgmt(r->buf, r->byte_len, &t);
	trace_srpt_tmf_recv(cmd, &t, ret);
	srpt_ch_count(ch, SRPT_STAT_TMFS + srpt_tmf_kind(ret ? 0xff : t.func),
		      1);
	if (ret) {
		pr_warn_ratelimited("%s: malformed SRP_TSK_MGMT with tag 0x%llx (%u bytes)\n",
				    ch->name, cmd->tag, r->byte_len);
		srpt_send_tmf_rsp(cmd, SRPT_TMF_RSP_INVALID_IU);
		return;
	}
	cmd->tmf_func = t.func;
	tcm = srpt_tmf_to_tcm(t.func);
	if (tcm < 0) {
		pr_info_ratelimited("%s: task management function 0x%02x not supported\n",
				    ch->name, t.func);
		srpt_send_tmf_rsp(cmd, SRPT_TMF_RSP_NOT_SUPP);
		return;
	}
	cmd->se_cmd.tag = cmd->tag;
	srpt_set_cmd_state(cmd, SRPT_CMD_EXEC);
	/*
	 * Once target_submit_tmr() took the request, LIO may run it, queue
	 * its response and have the response complete before the call
	 * returns: the context must say "LIO's" before, not after.
	 */
	cmd->lio = true;
	ret = srpt_fail(SRPT_FAULT_SUBMIT_TMR) ? -ENOMEM :
	      target_submit_tmr(&cmd->se_cmd, ch->sess, NULL,
				scsilun_to_int((struct scsi_lun *)t.lun), NULL,
				tcm, GFP_KERNEL, t.task_tag,
				TARGET_SCF_ACK_KREF);
	if (ret) {
		/* LIO did not take it: the session is being torn down. */
		cmd->lio = false;
		srpt_send_tmf_rsp(cmd, SRPT_TMF_RSP_FAILED);
	}
}

/**
 * srpt_handle_request() - serve a request IU with a command context
 * @cmd: free command context, now owned.
 * @r: receive buffer with an SRP_CMD or SRP_TSK_MGMT.
 */
static void srpt_handle_request(struct srpt_cmd *cmd, struct srpt_recv *r)
{
	/* LIO insists on a zeroed se_cmd for every new command. */
	memset(&cmd->se_cmd, 0, sizeof(cmd->se_cmd));
	/*
	 * A free context holds no data resources: srpt_free_rw() cleared
	 * them (and kvcalloc() for a context never used); cmd->ci is zeroed
	 * by srpt_parse_cmd() or srpt_handle_tmf().
	 */
	cmd->recv = r;
	cmd->lio = false;
	cmd->dir = SRPT_DIR_NONE;
	cmd->data_len = 0;
	cmd->rsp_with_data = false;
	cmd->tmf = srpt_iu_opcode(r->buf, r->byte_len) != SRPT_OP_CMD;
	cmd->t_recv = r->t_recv;
	cmd->xfer_len = 0;

	if (!cmd->tmf)
		srpt_handle_cmd(cmd);
	else
		srpt_handle_tmf(cmd);
}

/**
 * srpt_get_cmd() - a free command context for a request, in arrival order
 * @ch: channel.
 * @r: receive buffer with the request.
 *
 * Return: the context (state SRPT_CMD_NEW), or NULL when @r was queued on
 * ch->recv_wait instead.
 */
static struct srpt_cmd *srpt_get_cmd(struct srpt_rdma_ch *ch,
				     struct srpt_recv *r)
{
	struct srpt_cmd *cmd = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	if (list_empty(&ch->recv_wait) && !list_empty(&ch->free_cmds)) {
		cmd = list_first_entry(&ch->free_cmds, struct srpt_cmd,
				       sq_entry);
		list_del(&cmd->sq_entry);
		WRITE_ONCE(cmd->state, SRPT_CMD_NEW);
		atomic_inc(&ch->cmds_in_use);
	} else {
		list_add_tail(&r->wait_entry, &ch->recv_wait);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!cmd)
		pr_debug("%s: no free command context; a request waits\n",
			 ch->name);
	return cmd;
}

/**
 * srpt_recv_wait_work() - serve requests that waited for a command context
 * @work: ch->wait_work.
 */
static void srpt_recv_wait_work(struct work_struct *work)
{
	struct srpt_rdma_ch *ch = container_of(work, struct srpt_rdma_ch,
					       wait_work);
	struct srpt_recv *r;
	struct srpt_cmd *cmd;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ch->lock, flags);
		if (ch->state >= SRPT_CH_DRAINING ||
		    list_empty(&ch->recv_wait) || list_empty(&ch->free_cmds)) {
			spin_unlock_irqrestore(&ch->lock, flags);
			return;
		}
		r = list_first_entry(&ch->recv_wait, struct srpt_recv,
				     wait_entry);
		list_del_init(&r->wait_entry);
		cmd = list_first_entry(&ch->free_cmds, struct srpt_cmd,
				       sq_entry);
		list_del(&cmd->sq_entry);
		WRITE_ONCE(cmd->state, SRPT_CMD_NEW);
		atomic_inc(&ch->cmds_in_use);
		spin_unlock_irqrestore(&ch->lock, flags);
		srpt_handle_request(cmd, r);
	}
}

/**
 * srpt_ch_stop_recv() - stop a channel's QP from taking more receives
 * @ch: channel just closed for credit abuse.
 *
 * Its initiator ignores its credits: until the QP leaves RTS every IU it
 * sends takes a receive buffer (of the SRQ, which other channels share)
 * and a CQ entry.  In the error state the QP takes none; the release work
 * drains it as usual.
 */
static void srpt_ch_stop_recv(struct srpt_rdma_ch *ch)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret;

	ret = srpt_fail(SRPT_FAULT_QP_ERR) ? -EINVAL :
	      ib_modify_qp(ch->qp, &attr, IB_QP_STATE);
	if (ret)
		pr_warn("%s: moving the QP to the error state failed (%d)\n",
			ch->name, ret);
}

/**
 * srpt_handle_iu() - dispatch a received IU by its opcode
 * @ch: channel.
 * @r: receive buffer, r->byte_len bytes valid.
 */
static void srpt_handle_iu(struct srpt_rdma_ch *ch, struct srpt_recv *r)
{
	struct srpt_cmd *cmd;
	u64 tag;
	int op;

	op = srpt_iu_opcode(r->buf, r->byte_len);
	switch (op) {
	case SRPT_OP_CMD:
	case SRPT_OP_TSK_MGMT:
		if (atomic_inc_return(&ch->reqs_held) >
		    ch->rq_size - SRPT_RSVD_RECVS) {
			/* Not served, and no credit is owed for it. */
			atomic_dec(&ch->reqs_held);
			r->credit = false;
			pr_warn_ratelimited("%s: initiator sent more requests than the %u credits it was granted; closing the channel\n",
					    ch->name,
					    ch->rq_size - SRPT_RSVD_RECVS);
			srpt_recv_repost(ch, r);
			if (srpt_ch_close(ch)) {
				srpt_ch_count(ch, SRPT_STAT_CREDIT_CLOSURES, 1);
				srpt_ch_stop_recv(ch);
			}
			break;
		}
		r->credit = true;
		cmd = srpt_get_cmd(ch, r);
		if (cmd)
			srpt_handle_request(cmd, r);
		break;
	case SRPT_OP_I_LOGOUT:
		r->credit = false;
		if (!srpt_parse_i_logout(r->buf, r->byte_len, &tag))
			pr_info("%s: initiator logged out (SRP_I_LOGOUT)\n",
				ch->name);
		srpt_recv_repost(ch, r);
		srpt_ch_close(ch);
		break;
	case SRPT_OP_CRED_RSP:
	case SRPT_OP_AER_RSP:
		r->credit = false;
		srpt_recv_repost(ch, r);
		break;
	default:
		/* It may have taken a credit: give that back. */
		r->credit = true;
		atomic_inc(&ch->reqs_held);
		pr_warn_ratelimited("%s: dropped an IU of %u bytes with unknown opcode %d\n",
				    ch->name, r->byte_len, op);
		srpt_recv_repost(ch, r);
		break;
	}
}

/**
 * srpt_recv_done() - receive completion
 * @cq: the channel's CQ.
 * @wc: work completion.
 */
static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = cq->cq_context;
	struct srpt_recv *r = container_of(wc->wr_cqe, struct srpt_recv, cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			trace_srpt_wc_error(ch, wc, SRPT_TRACE_WC_RECV, 0);
			srpt_ch_count(ch, SRPT_STAT_RDMA_ERRORS, 1);
			pr_info("%s: receive failed: %s\n", ch->name,
				ib_wc_status_msg(wc->status));
		}
		if (r->srq) {
			r->credit = false;
			srpt_recv_repost(ch, r);
		}
		srpt_ch_close(ch);
		return;
	}
	r->byte_len = min(wc->byte_len, ch->max_it_iu_len);
	r->t_recv = ktime_get_ns();
	ib_dma_sync_single_for_cpu(srpt_ch_dev(ch), r->dma, r->byte_len,
				   DMA_FROM_DEVICE);
	srpt_handle_iu(ch, r);
}

/**
 * srpt_rdma_done() - completion of the last RDMA READ of a command
 * @cq: the channel's CQ.
 * @wc: work completion.
 *
 * Either the external descriptor table or the DATA-OUT arrived.
 */
static void srpt_rdma_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = cq->cq_context;
	struct srpt_cmd *cmd = container_of(wc->wr_cqe, struct srpt_cmd,
					    rdma_cqe);
	bool table = READ_ONCE(cmd->state) == SRPT_CMD_NEW;

	srpt_sq_complete(ch, cmd->sq_wrs);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			trace_srpt_wc_error(ch, wc, SRPT_TRACE_WC_RDMA,
					    cmd->tag);
			srpt_ch_count(ch, SRPT_STAT_RDMA_ERRORS, 1);
			pr_info("%s: RDMA READ of %s for tag 0x%llx failed: %s\n",
				ch->name, table ? "a descriptor table" : "data",
				cmd->tag, ib_wc_status_msg(wc->status));
		}
		srpt_ch_close(ch);
		if (table)
			srpt_finish_rsp(cmd);
		else
			transport_generic_request_failure
				(&cmd->se_cmd, TCM_CHECK_CONDITION_ABORT_CMD);
		return;
	}
	if (!table) {
		pr_debug("%s: tag 0x%llx: DATA-OUT arrived\n", ch->name,
			 cmd->tag);
		cmd->xfer_len = cmd->data_len;
		target_execute_cmd(&cmd->se_cmd);
		return;
	}

	rdma_rw_ctx_destroy(&cmd->table_rw.rw, ch->qp, ch->sport->port_num,
			    cmd->table_rw.sg, 1, DMA_FROM_DEVICE);
	cmd->table_mapped = false;
	if (srpt_check_desc_table(cmd->table, cmd->ci.ndesc,
				  cmd->ci.data_len)) {
		pr_warn_ratelimited("%s: rejected SRP_CMD with tag 0x%llx: external descriptor lengths do not add up to %u bytes\n",
				    ch->name, cmd->tag, cmd->ci.data_len);
		srpt_send_local_rsp(cmd, SAM_STAT_CHECK_CONDITION, 0x0e, 0x03);
		return;
	}
	cmd->ci.desc = cmd->table;
	srpt_submit_cmd(cmd);
}

/**
 * srpt_count_rsp() - count a command whose response went out
 * @ch: channel.
 * @cmd: SRP_CMD (not a TMF) whose response completed.
 *
 * The command by direction, its data bytes, and for reads and writes the
 * time from the request's arrival to its response's completion.
 */
static void srpt_count_rsp(struct srpt_rdma_ch *ch, struct srpt_cmd *cmd)
{
	u64 ns = ktime_get_ns() - cmd->t_recv;
	struct srpt_ch_stats *s;
	unsigned long flags;

	s = srpt_ch_stats_begin(ch, &flags);
	u64_stats_inc(&s->v[SRPT_STAT_CMDS + cmd->dir]);
	if (cmd->dir == SRPT_DIR_OUT) {
		u64_stats_add(&s->v[SRPT_STAT_BYTES_IN], cmd->xfer_len);
		u64_stats_inc(&s->v[SRPT_STAT_LAT_WRITE +
				    srpt_lat_bucket(ns)]);
	} else if (cmd->dir == SRPT_DIR_IN) {
		if (cmd->rsp_with_data)
			u64_stats_add(&s->v[SRPT_STAT_BYTES_OUT],
				      cmd->xfer_len);
		u64_stats_inc(&s->v[SRPT_STAT_LAT_READ + srpt_lat_bucket(ns)]);
	}
	srpt_ch_stats_end(ch, s, flags);
}

/**
 * srpt_send_done() - completion of a response (and of the DATA-IN before it)
 * @cq: the channel's CQ.
 * @wc: work completion.
 */
static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = cq->cq_context;
	struct srpt_cmd *cmd = container_of(wc->wr_cqe, struct srpt_cmd,
					    send_cqe);

	srpt_sq_complete(ch, cmd->sq_wrs);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			trace_srpt_wc_error(ch, wc, SRPT_TRACE_WC_SEND,
					    cmd->tag);
			srpt_ch_count(ch, SRPT_STAT_RDMA_ERRORS, 1);
			pr_info("%s: sending the response for tag 0x%llx failed: %s\n",
				ch->name, cmd->tag,
				ib_wc_status_msg(wc->status));
		}
		srpt_ch_close(ch);
	} else if (!cmd->tmf) {
		srpt_count_rsp(ch, cmd);
	}
	srpt_finish_rsp(cmd);
}

/* ---- LIO callbacks of the command path ---------------------------------- */

/**
 * srpt_write_pending() - LIO wants the DATA-OUT of a command
 * @se_cmd: command.
 *
 * Return: 0; failures complete the command through LIO.
 */
static int srpt_write_pending(struct se_cmd *se_cmd)
{
	struct srpt_cmd *cmd = srpt_se_cmd_to_cmd(se_cmd);

	if (cmd->ci.fmt == SRPT_DESC_IMM || !cmd->nrw) {
		if (cmd->ci.fmt == SRPT_DESC_IMM)
			cmd->xfer_len = cmd->data_len;
		target_execute_cmd(se_cmd);
		return 0;
	}
	srpt_set_cmd_state(cmd, SRPT_CMD_DATA_OUT);
	pr_debug("%s: tag 0x%llx: fetching %u bytes of DATA-OUT in %u buffer(s), %u work requests\n",
		 cmd->ch->name, cmd->tag, cmd->data_len, cmd->nrw,
		 cmd->data_wrs);
	srpt_sq_post(cmd, SRPT_SQ_DATA_OUT, cmd->data_wrs, NULL);
	return 0;
}

/**
 * srpt_trim_data_in() - RDMA WRITE only the DATA-IN that LIO produced
 * @cmd: DATA-IN command whose buffers were mapped for the whole length the
 *	descriptors describe.
 * @len: bytes LIO produced (se_cmd->data_length, less than that length).
 *
 * The pages past @len were never written (target_alloc_sgl() does not
 * zero them): sending them would hand kernel memory to the initiator, and
 * overwrite its buffer past the data it was told about.  Every context
 * past @len is remapped for the bytes it still carries, or dropped.
 *
 * Return: 0 or the error of rdma_rw_ctx_init(); on error the command has
 * no live context left past @len.
 */
static int srpt_trim_data_in(struct srpt_cmd *cmd, u32 len)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 port = ch->sport->port_num;
	struct scatterlist *sg;
	u32 i, j, left;
	int ret;

	for (i = 0; i < cmd->nrw; i++) {
		struct srpt_rw *rw = &cmd->rw[i];

		if (!rw->map_nents)
			continue;
		if (len >= rw->desc.len) {
			len -= rw->desc.len;
			continue;
		}
		rdma_rw_ctx_destroy(&rw->rw, ch->qp, port, rw->sg,
				    rw->map_nents, DMA_TO_DEVICE);
		rw->map_nents = 0;
		cmd->data_wrs -= rw->wrs;
		rw->wrs = 0;
		if (!len)
			continue;
		/* The entries that hold @len bytes, the last one cut. */
		left = len;
		for_each_sg(rw->sg, sg, rw->nents, j) {
			if (left <= sg->length) {
				sg->length = left;
				break;
			}
			left -= sg->length;
		}
		ret = srpt_fail(SRPT_FAULT_TRIM_RW) ? -EAGAIN :
		      rdma_rw_ctx_init(&rw->rw, ch->qp, port, rw->sg, j + 1,
				       0, rw->desc.va, rw->desc.key,
				       DMA_TO_DEVICE);
		if (ret < 0)
			return ret;
		rw->map_nents = j + 1;
		rw->wrs = ret;
		cmd->data_wrs += ret;
		len = 0;
	}
	return 0;
}

/**
 * srpt_lio_rsp() - send LIO's status for a command
 * @cmd: command.
 * @with_data: whether to RDMA WRITE the DATA-IN first.
 */
static void srpt_lio_rsp(struct srpt_cmd *cmd, bool with_data)
{
	struct se_cmd *se_cmd = &cmd->se_cmd;
	struct srpt_rsp_info info = { .status = se_cmd->scsi_status };
	bool in = cmd->dir == SRPT_DIR_IN;

	if (se_cmd->se_cmd_flags & SCF_UNDERFLOW_BIT)
		info.flags = in ? SRPT_RSP_FLAG_DIUNDER : SRPT_RSP_FLAG_DOUNDER;
	else if (se_cmd->se_cmd_flags & SCF_OVERFLOW_BIT)
		info.flags = in ? SRPT_RSP_FLAG_DIOVER : SRPT_RSP_FLAG_DOOVER;
	if (info.flags && cmd->dir != SRPT_DIR_NONE) {
		if (in)
			info.data_in_res = se_cmd->residual_count;
		else
			info.data_out_res = se_cmd->residual_count;
	} else {
		info.flags = 0;
	}
	if (se_cmd->scsi_sense_length && se_cmd->sense_buffer) {
		info.sense = se_cmd->sense_buffer;
		info.sense_len = se_cmd->scsi_sense_length;
	}
	if (with_data && in && cmd->nrw &&
	    se_cmd->data_length < cmd->data_len &&
	    srpt_trim_data_in(cmd, se_cmd->data_length)) {
		/* The data cannot go out as produced: none goes, retry. */
		pr_warn_ratelimited("%s: tag 0x%llx: mapping %u bytes of DATA-IN failed; BUSY\n",
				    cmd->ch->name, cmd->tag,
				    se_cmd->data_length);
		memset(&info, 0, sizeof(info));
		info.status = SAM_STAT_BUSY;
		with_data = false;
	}
	if (with_data && in)
		cmd->xfer_len = min(se_cmd->data_length, cmd->data_len);
	srpt_send_rsp(cmd, &info, with_data);
}

static int srpt_queue_data_in(struct se_cmd *se_cmd)
{
	srpt_lio_rsp(srpt_se_cmd_to_cmd(se_cmd), true);
	return 0;
}

static int srpt_queue_status(struct se_cmd *se_cmd)
{
	srpt_lio_rsp(srpt_se_cmd_to_cmd(se_cmd), false);
	return 0;
}

/**
 * srpt_queue_tm_rsp() - LIO finished a task management function
 * @se_cmd: the TMF command.
 */
static void srpt_queue_tm_rsp(struct se_cmd *se_cmd)
{
	struct srpt_cmd *cmd = srpt_se_cmd_to_cmd(se_cmd);
	u8 code;

	switch (se_cmd->se_tmr_req->response) {
	case TMR_FUNCTION_COMPLETE:
	case TMR_TASK_DOES_NOT_EXIST:
		code = SRPT_TMF_RSP_COMPLETE;
		break;
	case TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED:
		code = SRPT_TMF_RSP_NOT_SUPP;
		break;
	default:
		code = SRPT_TMF_RSP_FAILED;
		break;
	}
	srpt_send_tmf_rsp(cmd, code);
}

/**
 * srpt_aborted_task() - LIO aborted a command and sends no status for it
 * @se_cmd: command; LIO releases it next.
 */
static void srpt_aborted_task(struct se_cmd *se_cmd)
{
	struct srpt_cmd *cmd = srpt_se_cmd_to_cmd(se_cmd);

	srpt_ch_count(cmd->ch, SRPT_STAT_ABORTED, 1);
	srpt_set_cmd_state(cmd, SRPT_CMD_DONE);
}

static int srpt_check_stop_free(struct se_cmd *se_cmd)
{
	return target_put_sess_cmd(se_cmd);
}

static void srpt_release_cmd(struct se_cmd *se_cmd)
{
	srpt_put_cmd(srpt_se_cmd_to_cmd(se_cmd));
}

static int srpt_get_cmd_state(struct se_cmd *se_cmd)
{
	return READ_ONCE(srpt_se_cmd_to_cmd(se_cmd)->state);
}

/* ======================================================================== */
/* 5. Channel lifetime: resources, close, release, wait                     */
/* ======================================================================== */

/**
 * srpt_free_recv_bufs() - free what srpt_alloc_recv_bufs() allocated
 * @dev: device the blocks are mapped for.
 * @recvs: the receive slots.
 * @n: number of slots; those without a buffer are skipped.
 */
static void srpt_free_recv_bufs(struct ib_device *dev, struct srpt_recv *recvs,
				u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		struct srpt_recv *r = &recvs[i];

		if (!r->mem)
			continue;
		ib_dma_unmap_single(dev, r->dma - (r->buf - r->mem),
				    r->mem_len, DMA_FROM_DEVICE);
		free_pages_exact(r->mem, r->mem_len);
		r->mem = NULL;
	}
}

/**
 * srpt_alloc_recv_bufs() - receive buffers, several to a block of pages
 * @dev: device to map the blocks for.
 * @recvs: @n receive slots, each to get @buf and @dma.
 * @n: number of slots.
 * @len: bytes the device may write into each buffer (the largest IU).
 * @pad: bytes in front of each IU that align its immediate data to
 *	SRPT_IMM_ALIGN (less than SRPT_IMM_ALIGN).
 * @lkey: local key of the device's PD, for the receive work request each
 *	slot gets (the slot's @cqe must be set up).
 *
 * One kmalloc() per buffer would round a default request buffer (8 KiB
 * plus its padding) up to a 16 KiB object.  Buffers are laid out instead at
 * a stride of @pad + @len rounded up to SRPT_IMM_ALIGN in page blocks of up
 * to SRPT_RECV_BLOCK bytes, each mapped once; the first buffer of a block
 * owns it.  Under memory fragmentation a failed block allocation is retried
 * one buffer to a block.
 *
 * Return: 0 or -ENOMEM; on failure nothing stays allocated.
 */
static int srpt_alloc_recv_bufs(struct ib_device *dev, struct srpt_recv *recvs,
				u32 n, u32 len, u32 pad, u32 lkey)
{
	size_t stride = ALIGN(pad + len, SRPT_IMM_ALIGN);
	u32 per = max_t(u32, SRPT_RECV_BLOCK / stride, 1);
	u32 i = 0, j;

	while (i < n) {
		u32 k = min(per, n - i);
		size_t bytes = k * stride;
		dma_addr_t dma;
		void *mem;

		mem = srpt_fail(SRPT_FAULT_RECV_BUFS) ? NULL :
		      alloc_pages_exact(bytes, GFP_KERNEL |
					(k > 1 ? __GFP_NOWARN : 0));
		if (!mem && k > 1) {
			per = 1;
			continue;
		}
		if (!mem)
			goto fail;
		dma = ib_dma_map_single(dev, mem, bytes, DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(dev, dma)) {
			free_pages_exact(mem, bytes);
			goto fail;
		}
		recvs[i].mem = mem;
		recvs[i].mem_len = bytes;
		for (j = 0; j < k; j++) {
			struct srpt_recv *r = &recvs[i + j];

			r->buf = mem + j * stride + pad;
			r->dma = dma + j * stride + pad;
			r->sge.addr = r->dma;
			r->sge.length = len;
			r->sge.lkey = lkey;
			r->wr.wr_cqe = &r->cqe;
			r->wr.sg_list = &r->sge;
			r->wr.num_sge = 1;
		}
		i += k;
	}
	return 0;

fail:
	srpt_free_recv_bufs(dev, recvs, i);
	return -ENOMEM;
}

/**
 * srpt_free_rings() - free the receive ring and the command contexts
 * @ch: channel; its QP is gone or never had these buffers posted.
 */
static void srpt_free_rings(struct srpt_rdma_ch *ch)
{
	struct ib_device *dev = srpt_ch_dev(ch);
	u32 i;

	for (i = 0; ch->cmds && i < ch->rq_size; i++) {
		struct srpt_cmd *cmd = &ch->cmds[i];

		if (!cmd->rsp)
			continue;
		ib_dma_unmap_single(dev, cmd->rsp_dma, ch->max_ti_iu_len,
				    DMA_TO_DEVICE);
		kfree(cmd->rsp);
	}
	kvfree(ch->cmds);
	ch->cmds = NULL;
	/* The free list linked the contexts just freed. */
	INIT_LIST_HEAD(&ch->free_cmds);

	if (ch->recvs)
		srpt_free_recv_bufs(dev, ch->recvs, ch->rq_size);
	kvfree(ch->recvs);
	ch->recvs = NULL;
}

/**
 * srpt_alloc_rings() - allocate the receive ring and the command contexts
 * @ch: channel with rq_size, max_it_iu_len, max_ti_iu_len and
 *	imm_data_offset set.
 *
 * Every receive buffer holds one request IU of the granted size, placed so
 * that immediate data starts SRPT_IMM_ALIGN-aligned; every command context
 * owns a response buffer of the granted response size.  A channel that
 * receives through its device's SRQ (ch->srq) has no receive ring.
 *
 * Return: 0 or -ENOMEM; on failure nothing stays allocated.
 */
static int srpt_alloc_rings(struct srpt_rdma_ch *ch)
{
	struct ib_device *dev = srpt_ch_dev(ch);
	/* bytes in front of the IU that align its immediate data */
	u32 pad = (SRPT_IMM_ALIGN - ch->imm_data_offset % SRPT_IMM_ALIGN) %
		  SRPT_IMM_ALIGN;
	u32 i;

	if (!ch->srq) {
		ch->recvs = srpt_fail(SRPT_FAULT_RECV_RING) ? NULL :
			    kvcalloc(ch->rq_size, sizeof(*ch->recvs),
				     GFP_KERNEL);
		if (!ch->recvs)
			goto fail;
	}
	ch->cmds = srpt_fail(SRPT_FAULT_CMD_RING) ? NULL :
		   kvcalloc(ch->rq_size, sizeof(*ch->cmds), GFP_KERNEL);
	if (!ch->cmds)
		goto fail;

	for (i = 0; ch->recvs && i < ch->rq_size; i++) {
		struct srpt_recv *r = &ch->recvs[i];

		r->ch = ch;
		r->cqe.done = srpt_recv_done;
		INIT_LIST_HEAD(&r->wait_entry);
	}
	if (ch->recvs &&
	    srpt_alloc_recv_bufs(dev, ch->recvs, ch->rq_size,
				 ch->max_it_iu_len, pad,
				 ch->sport->sdev->pd->local_dma_lkey))
		goto fail;
	for (i = 0; i < ch->rq_size; i++) {
		struct srpt_cmd *cmd = &ch->cmds[i];

		cmd->ch = ch;
		cmd->rdma_cqe.done = srpt_rdma_done;
		cmd->send_cqe.done = srpt_send_done;
		cmd->rsp = srpt_fail(SRPT_FAULT_RSP_BUF) ? NULL :
			   kzalloc(ch->max_ti_iu_len, GFP_KERNEL);
		if (!cmd->rsp)
			goto fail;
		cmd->rsp_dma = ib_dma_map_single(dev, cmd->rsp,
						 ch->max_ti_iu_len,
						 DMA_TO_DEVICE);
		if (ib_dma_mapping_error(dev, cmd->rsp_dma)) {
			kfree(cmd->rsp);
			cmd->rsp = NULL;
			goto fail;
		}
		cmd->rsp_sge.addr = cmd->rsp_dma;
		cmd->rsp_sge.lkey = ch->sport->sdev->pd->local_dma_lkey;
		cmd->rsp_wr.wr_cqe = &cmd->send_cqe;
		cmd->rsp_wr.sg_list = &cmd->rsp_sge;
		cmd->rsp_wr.num_sge = 1;
		cmd->rsp_wr.opcode = IB_WR_SEND;
		cmd->rsp_wr.send_flags = IB_SEND_SIGNALED;
		list_add_tail(&cmd->sq_entry, &ch->free_cmds);
	}
	return 0;

fail:
	srpt_free_rings(ch);
	return -ENOMEM;
}

/**
 * srpt_qp_event() - asynchronous event of a channel's queue pair
 * @event: the event.
 * @ptr: the channel.
 */
static void srpt_qp_event(struct ib_event *event, void *ptr)
{
	struct srpt_rdma_ch *ch = ptr;

	switch (event->event) {
	case IB_EVENT_COMM_EST:
		/*
		 * A request arrived before the CM saw the RTU.  Not once the
		 * release work drains: it destroys the CM id before the QP.
		 */
		if (READ_ONCE(ch->state) < SRPT_CH_DRAINING)
			ch->cm_ops->comm_est(ch);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		break;
	default:
		pr_info("%s: QP event %s\n", ch->name,
			ib_event_msg(event->event));
		break;
	}
}

/**
 * srpt_ch_create_qp() - create the channel's completion queue and queue pair
 * @ch: channel with its CM id and ring sizes set.
 *
 * One CQ serves both work queues, with room for every completion that can
 * be outstanding (on an SRQ channel, one per SRQ buffer).  Channels take the
 * device's completion vectors in turn.  The send queue starts at ch->sq_size (the TPG's
 * srp_sq_size) and is halved down to SRPT_MIN_SQ_SIZE while the device
 * refuses it.  Both queues get one entry more than the driver ever uses,
 * for ib_drain_qp().  What the send queue really got (the RDMA R/W API
 * sizes it for its contexts, then clamps it to the device's limit) bounds
 * what the channel posts: ch->sq_size is never more than that, less the
 * entry of the drain.
 *
 * RDMA R/W contexts: a command holds one per remote buffer until its data
 * moved, commands in flight are bounded by the receive ring, and nearly
 * all name one buffer; twice ch->rq_size leaves room for descriptor table
 * fetches and multi-buffer commands.  The RDMA R/W API adds send queue
 * entries for each context (and, where it registers memory, a memory
 * region): sized by the send queue, as before, they doubled it (rdma_rxe
 * made 16384 entries at srp_sq_size 4096; a login took 12 MiB of memory,
 * 7 MiB now), while the channel's own count of send queue entries already
 * covers every work request its contexts post.  Where the contexts' memory regions run out,
 * a command gets BUSY and the initiator retries it.
 *
 * Return: 0 or a negative errno.
 */
static int srpt_ch_create_qp(struct srpt_rdma_ch *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;
	struct ib_device *dev = sdev->device;
	struct ib_qp_init_attr attr;
	u32 sq_size = ch->sq_size;
	/*
	 * Receive completions the CQ must hold: as many as receives can be
	 * posted for this QP.  With an SRQ that is every buffer of the SRQ,
	 * not the channel's credits: an initiator that ignores its credits
	 * can have them all land here before the channel is closed for it.
	 */
	u32 rcqe = ch->srq ? ch->srq->size : ch->rq_size;
	int vector, ret;

	vector = (u32)atomic_inc_return(&sdev->next_comp_vector) %
		 max(dev->num_comp_vectors, 1);
	for (;;) {
		ch->cq = srpt_fail(SRPT_FAULT_CQ) ? ERR_PTR(-ENOMEM) :
			 ib_alloc_cq(dev, ch, rcqe + sq_size + 2, vector,
				     IB_POLL_WORKQUEUE);
		if (IS_ERR(ch->cq)) {
			ret = PTR_ERR(ch->cq);
			ch->cq = NULL;
		} else {
			memset(&attr, 0, sizeof(attr));
			attr.event_handler = srpt_qp_event;
			attr.qp_context = ch;
			attr.send_cq = ch->cq;
			attr.recv_cq = ch->cq;
			attr.sq_sig_type = IB_SIGNAL_REQ_WR;
			attr.qp_type = IB_QPT_RC;
			attr.cap.max_send_wr = sq_size + 1;
			if (ch->srq)
				attr.srq = ch->srq->srq;
			else
				attr.cap.max_recv_wr = ch->rq_size + 1;
			attr.cap.max_send_sge = min(dev->attrs.max_send_sge, 16);
			attr.cap.max_recv_sge = 1;
			attr.cap.max_rdma_ctxs = min(sq_size, 2 * ch->rq_size);
			attr.port_num = ch->sport->port_num;
			ret = ch->cm_ops->create_qp(ch, &attr);
			if (!ret)
				break;
			ib_free_cq(ch->cq);
			ch->cq = NULL;
		}
		if (sq_size / 2 < SRPT_MIN_SQ_SIZE) {
			pr_err("%s: creating a queue pair failed (%d)\n",
			       ch->name, ret);
			return ret;
		}
		sq_size /= 2;
		pr_info("%s: retrying with a send queue of %u entries (%d)\n",
			ch->name, sq_size, ret);
	}
	/* The create call wrote back the send queue it really made. */
	if (attr.cap.max_send_wr - 1 < sq_size) {
		pr_info("%s: the device gave a send queue of %u entries; %u used\n",
			ch->name, attr.cap.max_send_wr,
			attr.cap.max_send_wr - 1);
		sq_size = attr.cap.max_send_wr - 1;
	}
	ch->sq_size = sq_size;
	atomic_set(&ch->sq_avail, sq_size);
	ch->qp_num = ch->qp->qp_num;
	return 0;
}

/**
 * srpt_ch_destroy_qp() - destroy what srpt_ch_create_qp() created
 * @ch: channel whose CM id still exists (or whose QP is gone already).
 */
static void srpt_ch_destroy_qp(struct srpt_rdma_ch *ch)
{
	if (ch->qp)
		ch->cm_ops->destroy_qp(ch);
	ch->qp = NULL;
	if (ch->cq)
		ib_free_cq(ch->cq);
	ch->cq = NULL;
}

/**
 * srpt_srq_free() - destroy a device's SRQ and free its buffers
 * @sdev: device; no channel uses the SRQ any more.
 */
static void srpt_srq_free(struct srpt_device *sdev)
{
	struct srpt_srq *srq = sdev->srq;

	if (!srq)
		return;
	sdev->srq = NULL;
	if (srq->srq)
		ib_destroy_srq(srq->srq);
	if (srq->recvs)
		srpt_free_recv_bufs(sdev->device, srq->recvs, srq->size);
	kvfree(srq->recvs);
	kfree(srq);
}

/**
 * srpt_srq_get() - the device's SRQ, created on first use
 * @sdev: device; the caller holds its srq_mutex.
 *
 * srpt_srq_size buffers of srp_max_req_size bytes, placed so that
 * immediate data at SRPT_SRQ_IMM_OFFSET starts SRPT_IMM_ALIGN-aligned.
 * A device that cannot give an SRQ that large gets one as large as it can.
 *
 * Return: the SRQ or an ERR_PTR().
 */
static struct srpt_srq *srpt_srq_get(struct srpt_device *sdev)
{
	struct ib_device *dev = sdev->device;
	u32 pad = SRPT_IMM_ALIGN - SRPT_SRQ_IMM_OFFSET % SRPT_IMM_ALIGN;
	struct ib_srq_init_attr attr = { };
	struct srpt_srq *srq;
	u32 i;
	int ret;

	lockdep_assert_held(&sdev->srq_mutex);
	if (sdev->srq)
		return sdev->srq;
	srq = srpt_fail(SRPT_FAULT_SRQ) ? NULL :
	      kzalloc(sizeof(*srq), GFP_KERNEL);
	if (!srq)
		return ERR_PTR(-ENOMEM);
	sdev->srq = srq;
	/*
	 * The CQ of every channel on the SRQ holds a completion per SRQ
	 * buffer (srpt_ch_create_qp()) and its send queue's besides.
	 */
	srq->size = min3((u32)srpt_srq_size, (u32)dev->attrs.max_srq_wr,
			 (u32)dev->attrs.max_cqe - SRPT_MIN_SQ_SIZE - 2);
	srq->buf_len = srp_max_req_size;
	srq->lkey = sdev->pd->local_dma_lkey;
	srq->recvs = srpt_fail(SRPT_FAULT_SRQ_RECVS) ? NULL :
		     kvcalloc(srq->size, sizeof(*srq->recvs), GFP_KERNEL);
	if (!srq->recvs) {
		ret = -ENOMEM;
		goto fail;
	}
	attr.attr.max_wr = srq->size;
	attr.attr.max_sge = 1;
	attr.srq_type = IB_SRQT_BASIC;
	srq->srq = srpt_fail(SRPT_FAULT_CREATE_SRQ) ? ERR_PTR(-ENOMEM) :
		   ib_create_srq(sdev->pd, &attr);
	if (IS_ERR(srq->srq)) {
		ret = PTR_ERR(srq->srq);
		srq->srq = NULL;
		pr_err("%s: creating an SRQ of %u entries failed (%d)\n",
		       dev_name(&dev->dev), srq->size, ret);
		goto fail;
	}
	for (i = 0; i < srq->size; i++) {
		struct srpt_recv *r = &srq->recvs[i];

		r->srq = srq;
		r->cqe.done = srpt_recv_done;
		INIT_LIST_HEAD(&r->wait_entry);
	}
	ret = srpt_alloc_recv_bufs(dev, srq->recvs, srq->size, srq->buf_len,
				   pad % SRPT_IMM_ALIGN, srq->lkey);
	if (ret)
		goto fail;
	for (i = 0; i < srq->size; i++) {
		ret = srpt_srq_post(srq, &srq->recvs[i]);
		if (ret)
			goto fail;
	}
	pr_info("%s: shared receive queue of %u buffers of %u bytes\n",
		dev_name(&dev->dev), srq->size, srq->buf_len);
	return srq;

fail:
	srpt_srq_free(sdev);
	return ERR_PTR(ret);
}

/**
 * srpt_ch_close() - decide that a channel ends
 * @ch: channel.
 *
 * Callable from any context that may sleep, any number of times: the first
 * call disconnects and queues the release work, later calls do nothing.
 * While the login path still owns the channel, the first call only marks
 * it closing; srpt_login_done() disconnects and releases it.
 *
 * Return: whether this call closed the channel.
 */
static bool srpt_ch_close(struct srpt_rdma_ch *ch)
{
	unsigned long flags;
	bool in_login;

	spin_lock_irqsave(&ch->lock, flags);
	if (ch->state >= SRPT_CH_DISCONNECTING) {
		spin_unlock_irqrestore(&ch->lock, flags);
		return false;
	}
	srpt_ch_set_state(ch, SRPT_CH_DISCONNECTING);
	in_login = ch->login_busy;
	spin_unlock_irqrestore(&ch->lock, flags);

	pr_info("%s: closing%s\n", ch->name,
		in_login ? " once its login is answered" : "");
	if (!in_login) {
		ch->cm_ops->disconnect(ch);
		queue_work(srpt_release_wq, &ch->release_work);
	}
	return true;
}

/**
 * srpt_cmd_state_name() - name of a command state, for log lines
 * @state: enum srpt_cmd_state.
 *
 * Return: a constant string, "?" for a value out of range.
 */
static const char *srpt_cmd_state_name(enum srpt_cmd_state state)
{
	switch (state) {
	case SRPT_CMD_FREE:
		return "free";
	case SRPT_CMD_NEW:
		return "new";
	case SRPT_CMD_EXEC:
		return "with LIO";
	case SRPT_CMD_DATA_OUT:
		return "with LIO, DATA-OUT requested";
	case SRPT_CMD_RSP:
		return "responding";
	case SRPT_CMD_DONE:
		return "done, waiting for LIO's release";
	default:
		return "?";
	}
}

/**
 * srpt_ch_log_stuck_cmds() - name the commands a release is waiting for
 * @ch: channel being released.
 */
static void srpt_ch_log_stuck_cmds(struct srpt_rdma_ch *ch)
{
	u32 i, shown = 0;

	pr_warn("%s: release waiting for %d command context(s):\n", ch->name,
		atomic_read(&ch->cmds_in_use));
	for (i = 0; i < ch->rq_size && shown < 16; i++) {
		struct srpt_cmd *cmd = &ch->cmds[i];
		enum srpt_cmd_state state = READ_ONCE(cmd->state);

		if (state == SRPT_CMD_FREE)
			continue;
		pr_warn("%s: tag 0x%llx: %s%s\n", ch->name, cmd->tag,
			srpt_cmd_state_name(state),
			cmd->lio ? "" : " (never handed to LIO)");
		shown++;
	}
}

/**
 * srpt_ch_wait_cmds() - wait until every command context came back
 * @ch: channel in SRPT_CH_DRAINING with its QP drained: what is still in
 *	use is held by LIO, and LIO finishes it without the fabric.
 *
 * A context that never comes back is a bug (a reference LIO never drops):
 * the channel cannot be freed under it, so this waits, naming the stuck
 * tags every 30 seconds, rather than freeing memory LIO may still touch.
 */
static void srpt_ch_wait_cmds(struct srpt_rdma_ch *ch)
{
	while (!wait_var_event_timeout(&ch->cmds_in_use,
				       !atomic_read(&ch->cmds_in_use),
				       30 * HZ))
		srpt_ch_log_stuck_cmds(ch);
}

/**
 * srpt_ch_end_session() - end a channel's LIO session
 * @ch: channel; nothing reaches LIO through it any more (its QP is
 *	drained, or no request was ever received).
 *
 * Waits for LIO to finish the commands it still holds (their responses are
 * dropped), then removes the session.  ch->sess is cleared under
 * srpt_ch_mutex first, so srpt_ch_list readers never see a freed session;
 * the channel's counters are folded into its node ACL's and target port's
 * totals in the same section (its node ACL lives as long as the session).
 */
static void srpt_ch_end_session(struct srpt_rdma_ch *ch)
{
	struct se_session *sess = ch->sess;

	if (!sess)
		return;
	target_stop_session(sess);
	srpt_ch_wait_cmds(ch);
	target_wait_for_sess_cmds(sess);
	mutex_lock(&srpt_ch_mutex);
	srpt_ch_stats_fold(ch);
	ch->sess = NULL;
	mutex_unlock(&srpt_ch_mutex);
	target_remove_session(sess);
}

/**
 * srpt_ch_free() - free a channel whose session is gone
 * @ch: channel; nothing is posted on its QP any more.
 * @own_id: whether its CM id is ours to destroy (not when the login failed:
 *	the CM destroys the id of a rejected request itself, and the QP
 *	goes through the transport's destroy_qp so that the id forgets it).
 *
 * The channel leaves srpt_ch_list only after its QP, CQ, CM id and rings
 * are gone, and its device reference is the last thing it drops.
 */
static void srpt_ch_free(struct srpt_rdma_ch *ch, bool own_id)
{
	struct srpt_device *sdev = ch->sport->sdev;

	if (own_id) {
		/*
		 * The CM id first: once it is destroyed no CM callback runs
		 * for this channel, so none can find its QP gone (an RTU
		 * that arrives after a close between REP and RTU).  The QP
		 * is drained; the CM only needed it to be there.
		 */
		ch->cm_ops->destroy_id(ch);
		if (ch->qp)
			ib_destroy_qp(ch->qp);
		ch->qp = NULL;
	}
	srpt_ch_destroy_qp(ch);
	srpt_free_rings(ch);

	mutex_lock(&srpt_ch_mutex);
	list_del(&ch->entry);
	mutex_unlock(&srpt_ch_mutex);
	atomic_inc(&srpt_ch_gen);
	wake_up_all(&srpt_ch_released);

	free_percpu(ch->stats);
	kfree(ch);
	srpt_device_put(sdev);
}

/**
 * srpt_ch_release_work() - tear a closed channel down
 * @work: ch->release_work.
 *
 * Order: stop posting (SRPT_CH_DRAINING) and fail what waited for the send
 * queue; drain the QP, which completes every posted work request; give
 * requests that never got a command context back; end the LIO session;
 * free the QP, CQ, CM id and rings (srpt_ch_free()).
 */
static void srpt_ch_release_work(struct work_struct *work)
{
	struct srpt_rdma_ch *ch = container_of(work, struct srpt_rdma_ch,
					       release_work);
	struct srpt_cmd *cmd, *tmp;
	struct srpt_recv *r, *rtmp;
	unsigned long flags;
	LIST_HEAD(waiting);
	LIST_HEAD(unserved);

	spin_lock_irqsave(&ch->lock, flags);
	srpt_ch_set_state(ch, SRPT_CH_DRAINING);
	list_splice_init(&ch->sq_wait, &waiting);
	spin_unlock_irqrestore(&ch->lock, flags);

	list_for_each_entry_safe(cmd, tmp, &waiting, sq_entry) {
		list_del(&cmd->sq_entry);
		srpt_sq_fail(cmd, cmd->sq_op);
	}

	ib_drain_qp(ch->qp);
	cancel_work_sync(&ch->wait_work);
	spin_lock_irqsave(&ch->lock, flags);
	list_splice_init(&ch->recv_wait, &unserved);
	spin_unlock_irqrestore(&ch->lock, flags);
	/* Requests never served: SRQ buffers go back to the SRQ. */
	list_for_each_entry_safe(r, rtmp, &unserved, wait_entry) {
		list_del_init(&r->wait_entry);
		if (r->srq) {
			r->credit = false;
			srpt_recv_repost(ch, r);
		}
	}

	srpt_ch_end_session(ch);
	trace_srpt_ch_released(ch);
	pr_info("%s: released\n", ch->name);
	srpt_ch_free(ch, true);
}

/**
 * srpt_ch_new() - a new channel object, without rings or queue pair
 * @sport: port of the login.
 * @cm_ops: transport of the login.
 * @cm_id: CM id of the connection request.
 * @pkey: P_Key of the login's path (IB CM only).
 * @peer_name: initiator, for log lines until the channel has its name.
 *
 * Return: the channel (state SRPT_CH_CONNECTING, owned by the login path)
 * or NULL.
 */
static struct srpt_rdma_ch *srpt_ch_new(struct srpt_port *sport,
					const struct srpt_cm_ops *cm_ops,
					void *cm_id, u16 pkey,
					const char *peer_name)
{
	struct srpt_rdma_ch *ch;
	int cpu;

	ch = srpt_fail(SRPT_FAULT_CH) ? NULL : kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch)
		return NULL;
	ch->stats = srpt_fail(SRPT_FAULT_CH_STATS) ? NULL :
		    alloc_percpu(struct srpt_ch_stats);
	if (!ch->stats) {
		kfree(ch);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(ch->stats, cpu)->syncp);
	ch->sport = sport;
	ch->cm_ops = cm_ops;
	ch->cm_id = cm_id;
	ch->pkey = pkey;
	spin_lock_init(&ch->lock);
	ch->state = SRPT_CH_CONNECTING;
	ch->login_busy = true;
	INIT_LIST_HEAD(&ch->entry);
	INIT_LIST_HEAD(&ch->sq_wait);
	INIT_LIST_HEAD(&ch->free_cmds);
	INIT_LIST_HEAD(&ch->recv_wait);
	INIT_WORK(&ch->release_work, srpt_ch_release_work);
	INIT_WORK(&ch->wait_work, srpt_recv_wait_work);
	scnprintf(ch->name, sizeof(ch->name), "login-%s", peer_name);
	return ch;
}

/**
 * srpt_ch_setup() - allocate a channel's rings and create its queue pair
 * @ch: channel of an admitted login.
 * @g: what the login was granted.
 * @a: attributes of the admitting TPG.
 * @srq: the device's SRQ if @a says to use it, else NULL.
 *
 * The receive ring (or the SRQ) is posted before the login response is
 * sent, so the initiator never finds it empty.
 *
 * Return: 0, or a negative errno with nothing of this call left allocated.
 */
static int srpt_ch_setup(struct srpt_rdma_ch *ch,
			 const struct srpt_login_grant *g,
			 const struct srpt_tpg_attrs *a, struct srpt_srq *srq)
{
	struct ib_device *dev = srpt_ch_dev(ch);
	u32 i;
	int ret;

	ch->max_it_iu_len = g->max_it_iu_len;
	ch->max_ti_iu_len = g->max_ti_iu_len;
	ch->imm_data_offset = g->imm_data_offset;
	ch->srq = srq;
	ch->sq_size = max_t(u32, a->sq_size, SRPT_MIN_SQ_SIZE);
	ch->rq_size = min_t(u32, SRPT_RQ_SIZE, dev->attrs.max_qp_wr - 1);

	ret = srpt_alloc_rings(ch);
	if (ret)
		return ret;
	ret = srpt_ch_create_qp(ch);
	if (ret)
		goto free_rings;
	for (i = 0; ch->recvs && i < ch->rq_size; i++) {
		ret = srpt_post_recv(ch, &ch->recvs[i]);
		if (ret) {
			pr_err("%s: posting receive buffers failed (%d)\n",
			       ch->name, ret);
			goto destroy_qp;
		}
	}
	return 0;

destroy_qp:
	srpt_ch_destroy_qp(ch);
free_rings:
	srpt_free_rings(ch);
	return ret;
}

/**
 * srpt_close_channels() - close every channel that matches
 * @match: predicate.
 * @arg: its argument.
 *
 * Return: how many channels this call closed.
 */
static int srpt_close_channels(bool (*match)(struct srpt_rdma_ch *ch,
					     const void *arg),
			       const void *arg)
{
	struct srpt_rdma_ch *ch;
	int n = 0;

	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, entry)
		if (match(ch, arg) && srpt_ch_close(ch))
			n++;
	mutex_unlock(&srpt_ch_mutex);
	return n;
}

static bool srpt_ch_on_device(struct srpt_rdma_ch *ch, const void *sdev)
{
	return ch->sport->sdev == sdev;
}

static bool srpt_ch_on_port(struct srpt_rdma_ch *ch, const void *sport)
{
	return ch->sport == sport;
}

static bool srpt_ch_in_tpg(struct srpt_rdma_ch *ch, const void *stpg)
{
	return ch->stpg == stpg;
}

static bool srpt_ch_of_session(struct srpt_rdma_ch *ch, const void *sess)
{
	return ch->sess == sess;
}

/**
 * srpt_log_waiting() - log the channels a teardown is still waiting for
 * @match: predicate.
 * @arg: its argument.
 * @what: what waits, for the log line.
 */
static void srpt_log_waiting(bool (*match)(struct srpt_rdma_ch *ch,
					   const void *arg),
			     const void *arg, const char *what)
{
	struct srpt_rdma_ch *ch;

	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, entry)
		if (match(ch, arg))
			pr_info("%s: still waiting for %s to be released (%d commands in use)\n",
				what, ch->name,
				atomic_read(&ch->cmds_in_use));
	mutex_unlock(&srpt_ch_mutex);
}

/**
 * srpt_wait_channels_gone() - wait until no channel matches any more
 * @match: predicate.
 * @arg: its argument.
 * @what: for the progress log line.
 *
 * A channel counts until srpt_ch_free() unlisted it, with its QP, CM id and
 * rings gone.  Logs every 10 seconds which channels it is still waiting
 * for.
 */
static void srpt_wait_channels_gone(bool (*match)(struct srpt_rdma_ch *ch,
						  const void *arg),
				    const void *arg, const char *what)
{
	struct srpt_rdma_ch *ch;
	bool any;
	int gen;

	for (;;) {
		gen = atomic_read(&srpt_ch_gen);
		any = false;
		mutex_lock(&srpt_ch_mutex);
		list_for_each_entry(ch, &srpt_ch_list, entry)
			any |= match(ch, arg);
		mutex_unlock(&srpt_ch_mutex);
		if (!any)
			return;
		if (!wait_event_timeout(srpt_ch_released,
					atomic_read(&srpt_ch_gen) != gen,
					10 * HZ))
			srpt_log_waiting(match, arg, what);
	}
}

/* ======================================================================== */
/* 6. Logins                                                                */
/* ======================================================================== */

/*
 * The login core (srpt_login()) is shared by the transports: it checks the
 * request, finds the TPG and node ACL that admit it, applies the
 * multichannel action, and creates the channel with its session, rings and
 * QP.  The front ends below turn connection requests into calls of it, send
 * the REP or accept, and end with srpt_login_done().  srpt_dev_mutex is held
 * only while the login is admitted (ACL lookup, listing the channel, taking
 * a device reference): allocating rings, creating the QP and registering
 * the session run without it, so a slow login stalls no other login, DM
 * answer or port refresh.
 */

/**
 * enum srpt_acl_match - why a node ACL admitted a login
 * @SRPT_ACL_NO_MATCH: it did not.
 * @SRPT_ACL_BY_ID: its name is the initiator port id or port GUID.
 * @SRPT_ACL_BY_PEER: its name is the address the initiator connected from.
 * @SRPT_ACL_BY_LOCAL: its name is the address of this target that the
 *	initiator connected to, which is how the in-tree driver matches
 *	address ACLs (it compares them with the local address of the RDMA/CM
 *	connection).
 */
enum srpt_acl_match {
	SRPT_ACL_NO_MATCH,
	SRPT_ACL_BY_ID,
	SRPT_ACL_BY_PEER,
	SRPT_ACL_BY_LOCAL,
};

/**
 * struct srpt_login_ctx - one login request being decided
 * @req: the parsed request.
 * @peer: initiator's address (RDMA/CM), or family AF_UNSPEC.
 * @local: address the initiator connected to (RDMA/CM), or AF_UNSPEC.
 * @peer_name: initiator's address or GID as text, for log lines.
 * @pkey: P_Key of the request's path (IB CM).
 * @acl_name: name of the node ACL that admitted it.
 * @acl_match: why that ACL admitted it.
 * @rsp_flags: multichannel result for the login response.
 * @why: what made the login path refuse the login, for the
 *	srpt_login_rejected trace event.
 * @counted: the refusal was counted on the target port that admitted it.
 */
struct srpt_login_ctx {
	struct srpt_login_req	req;
	struct sockaddr_storage	peer;
	struct sockaddr_storage	local;
	char			peer_name[64];
	u16			pkey;
	char			acl_name[TRANSPORT_IQN_LEN];
	enum srpt_acl_match	acl_match;
	u8			rsp_flags;
	const char		*why;
	bool			counted;
};

/**
 * srpt_addr_is() - whether a socket address is the address of a name
 * @id: parsed IPv4 or IPv6 name.
 * @ss: socket address, of any family; an IPv4 address may come
 *	IPv4-mapped in an IPv6 one.
 *
 * Return: true when @ss holds the address @id names.
 */
static bool srpt_addr_is(const struct srpt_name *id,
			 const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

	if (id->kind == SRPT_NAME_IPV4) {
		if (ss->ss_family == AF_INET)
			return !memcmp(id->id + 12, &sin->sin_addr, 4);
		return ss->ss_family == AF_INET6 &&
		       ipv6_addr_v4mapped(&sin6->sin6_addr) &&
		       !memcmp(id->id + 12, &sin6->sin6_addr.s6_addr32[3], 4);
	}
	return id->kind == SRPT_NAME_IPV6 && ss->ss_family == AF_INET6 &&
	       !memcmp(id->id, &sin6->sin6_addr, 16);
}

/**
 * srpt_acl_admits() - whether a node ACL name stands for this initiator
 * @name: node ACL name as the administrator spelled it.
 * @lc: login request.
 *
 * A 128-bit id must equal the initiator port id; a GUID, its port GUID
 * half (bytes 8..15, as SRP r16a lays it out); an address, the address the
 * connection came from or, as in the in-tree driver, the address of this
 * target it went to.  Spelling (case, 0x, leading zeros, compressed or
 * not) is irrelevant.  Names that srpt_parse_initiator_name() does not
 * take (accepted only because the in-tree driver accepts them) admit
 * nobody.
 *
 * Return: why it admits the initiator, or SRPT_ACL_NO_MATCH.
 */
static enum srpt_acl_match srpt_acl_admits(const char *name,
					   const struct srpt_login_ctx *lc)
{
	struct srpt_name id;

	if (srpt_parse_initiator_name(name, &id))
		return SRPT_ACL_NO_MATCH;
	switch (id.kind) {
	case SRPT_NAME_PORT_ID:
		return memcmp(id.id, lc->req.initiator_port_id, 16) ?
		       SRPT_ACL_NO_MATCH : SRPT_ACL_BY_ID;
	case SRPT_NAME_GUID:
		return memcmp(id.id + 8, lc->req.initiator_port_id + 8, 8) ?
		       SRPT_ACL_NO_MATCH : SRPT_ACL_BY_ID;
	case SRPT_NAME_IPV4:
	case SRPT_NAME_IPV6:
		if (srpt_addr_is(&id, &lc->peer))
			return SRPT_ACL_BY_PEER;
		if (srpt_addr_is(&id, &lc->local))
			return SRPT_ACL_BY_LOCAL;
		return SRPT_ACL_NO_MATCH;
	default:
		return SRPT_ACL_NO_MATCH;
	}
}

/**
 * srpt_apply_multichannel() - SINGLE ends the nexus's other channels
 * @new: the new channel, with its target port and port ids set.
 * @lc: login request; lc->rsp_flags gets the multichannel result.
 *
 * The I_T nexus is (initiator port id, target port id) on one target port.
 * Called with srpt_ch_mutex held.
 */
static void srpt_apply_multichannel(struct srpt_rdma_ch *new,
				    struct srpt_login_ctx *lc)
{
	bool single = (lc->req.req_flags & SRPT_LOGIN_MULTICHAN_MASK) ==
		      SRPT_LOGIN_MULTICHAN_SINGLE;
	struct srpt_rdma_ch *ch;
	int others = 0;

	lockdep_assert_held(&srpt_ch_mutex);
	lc->rsp_flags = SRPT_LOGIN_RSP_NO_CHAN;
	list_for_each_entry(ch, &srpt_ch_list, entry) {
		if (ch == new || ch->tport != new->tport ||
		    memcmp(ch->i_port_id, new->i_port_id, 16) ||
		    memcmp(ch->t_port_id, new->t_port_id, 16))
			continue;
		if (single) {
			if (srpt_ch_close(ch))
				others++;
		} else if (READ_ONCE(ch->state) < SRPT_CH_DISCONNECTING) {
			others++;
		}
	}
	if (others)
		lc->rsp_flags = single ? SRPT_LOGIN_RSP_TERMINATED :
					 SRPT_LOGIN_RSP_MAINTAINED;
}

/**
 * srpt_admit_login() - find the TPG and node ACL that admit a login, and
 *	list its channel
 * @ch: the new channel; gets its target port, TPG and port ids.
 * @lc: login request; the ACL's name is copied into lc->acl_name.
 * @attrs: out: the TPG's attributes.
 *
 * Looks through every enabled TPG of every target port bound to the
 * channel's port.  The channel is listed while the TPG's tpg_mutex is
 * held, so a TPG disable, a use_srq change or a TPG removal either comes
 * first (and the login is not admitted, or sees the new attributes) or
 * finds the channel.  Called with srpt_dev_mutex held.
 *
 * Return: whether the login was admitted.
 */
static bool srpt_admit_login(struct srpt_rdma_ch *ch,
			     struct srpt_login_ctx *lc,
			     struct srpt_tpg_attrs *attrs)
{
	struct srpt_tport *tport;
	struct srpt_tpg *stpg;
	struct se_node_acl *nacl;
	bool found = false;

	lockdep_assert_held(&srpt_dev_mutex);
	list_for_each_entry(tport, &srpt_tport_list, entry) {
		if (tport->sport != ch->sport)
			continue;
		mutex_lock(&tport->tpg_mutex);
		list_for_each_entry(stpg, &tport->tpg_list, entry) {
			if (!stpg->enabled)
				continue;
			mutex_lock(&stpg->tpg.acl_node_mutex);
			list_for_each_entry(nacl, &stpg->tpg.acl_node_list,
					    acl_list) {
				lc->acl_match = srpt_acl_admits(nacl->initiatorname,
								lc);
				if (lc->acl_match != SRPT_ACL_NO_MATCH) {
					strscpy(lc->acl_name,
						nacl->initiatorname,
						sizeof(lc->acl_name));
					found = true;
					break;
				}
			}
			mutex_unlock(&stpg->tpg.acl_node_mutex);
			if (found)
				break;
		}
		if (found) {
			*attrs = stpg->attrs;
			ch->tport = tport;
			ch->stpg = stpg;
			memcpy(ch->i_port_id, lc->req.initiator_port_id, 16);
			memcpy(ch->t_port_id, lc->req.target_port_id, 16);
			mutex_lock(&srpt_ch_mutex);
			srpt_apply_multichannel(ch, lc);
			list_add_tail(&ch->entry, &srpt_ch_list);
			mutex_unlock(&srpt_ch_mutex);
		}
		mutex_unlock(&tport->tpg_mutex);
		if (found)
			return true;
	}
	return false;
}

/**
 * srpt_login_rej_msg() - what a login reject reason means, for log lines
 * @reason: SRPT_REJ_*.
 *
 * Return: a constant string.
 */
static const char *srpt_login_rej_msg(u32 reason)
{
	switch (reason) {
	case SRPT_REJ_NO_RESOURCES:
		return "insufficient resources";
	case SRPT_REJ_IT_IU_LEN_TOO_LARGE:
		return "requested IU length too large";
	case SRPT_REJ_UNABLE_ASSOCIATE:
		return "wrong target port id";
	case SRPT_REJ_UNSUPPORTED_FMT:
		return "no supported buffer format requested";
	case SRPT_REJ_NO_MULTICHANNEL:
		return "multichannel not supported";
	case SRPT_REJ_CHANNEL_LIMIT:
		return "channel limit reached";
	default:
		return "unable to establish the channel";
	}
}

/**
 * srpt_rej_kind() - the refusal counter of a login reject reason
 * @reason: SRPT_REJ_*.
 *
 * Return: 0..SRPT_REJ_KINDS - 1, in the order of the reason codes;
 * UNABLE_ESTABLISH (0) for a code out of that range.
 */
static unsigned int srpt_rej_kind(u32 reason)
{
	u32 k = reason - SRPT_REJ_UNABLE_ESTABLISH;

	return k < SRPT_REJ_KINDS ? k : 0;
}

/**
 * srpt_count_refused() - count a login refused before a target port took it
 * @dev: RDMA device the request arrived on.
 * @port_num: its port.
 * @reason: SRPT_REJ_* sent.
 *
 * Counted on every target port bound to that port (normally one; both
 * when its GUID and its GID name are configured).
 */
static void srpt_count_refused(struct ib_device *dev, u32 port_num,
			       u32 reason)
{
	struct srpt_tport *tport;

	mutex_lock(&srpt_dev_mutex);
	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(tport, &srpt_tport_list, entry) {
		if (tport->sport && tport->sport->sdev->device == dev &&
		    tport->sport->port_num == port_num)
			tport->totals.v[SRPT_STAT_LOGINS_REFUSED +
					srpt_rej_kind(reason)]++;
	}
	mutex_unlock(&srpt_ch_mutex);
	mutex_unlock(&srpt_dev_mutex);
}

/**
 * srpt_ch_count_refused() - count a login refused after a target port took it
 * @ch: the login's channel, listed still: its target port cannot go away.
 * @reason: SRPT_REJ_* sent.
 *
 * Counted on the channel's own target port only, as its acceptance would
 * have been (srpt_count_refused() counts on every port name bound).
 */
static void srpt_ch_count_refused(struct srpt_rdma_ch *ch, u32 reason)
{
	mutex_lock(&srpt_ch_mutex);
	ch->tport->totals.v[SRPT_STAT_LOGINS_REFUSED + srpt_rej_kind(reason)]++;
	mutex_unlock(&srpt_ch_mutex);
}

/**
 * srpt_login_abort() - undo a login that will not be accepted
 * @ch: channel the login path still owns; no request reached it (the
 *	initiator has no REP or accept yet).
 *
 * The CM id stays: the front end's reject makes the CM destroy it.
 */
static void srpt_login_abort(struct srpt_rdma_ch *ch)
{
	srpt_ch_end_session(ch);
	srpt_ch_free(ch, false);
}

/**
 * srpt_login_done() - the login path lets go of a channel
 * @ch: channel srpt_login() returned.
 * @accepted: whether the REP or accept went out.
 *
 * From here on srpt_ch_close() works on its own; a close that came while
 * the login was being answered (or a failed accept) happens now.
 */
static void srpt_login_done(struct srpt_rdma_ch *ch, bool accepted)
{
	unsigned long flags;
	bool closed;

	if (accepted) {
		trace_srpt_login_accepted(ch);
		mutex_lock(&srpt_ch_mutex);
		ch->tport->totals.v[SRPT_STAT_LOGINS_ACCEPTED]++;
		srpt_ch_nacl(ch)->totals.v[SRPT_STAT_LOGINS_ACCEPTED]++;
		mutex_unlock(&srpt_ch_mutex);
	}
	spin_lock_irqsave(&ch->lock, flags);
	WRITE_ONCE(ch->login_busy, false);
	if (!accepted && ch->state < SRPT_CH_DISCONNECTING)
		srpt_ch_set_state(ch, SRPT_CH_DISCONNECTING);
	closed = ch->state >= SRPT_CH_DISCONNECTING;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (closed) {
		ch->cm_ops->disconnect(ch);
		queue_work(srpt_release_wq, &ch->release_work);
	}
}

/**
 * srpt_ch_closing() - whether a channel was closed
 * @ch: channel.
 *
 * Return: true once @ch is disconnecting or later.
 */
static bool srpt_ch_closing(struct srpt_rdma_ch *ch)
{
	unsigned long flags;
	bool closing;

	spin_lock_irqsave(&ch->lock, flags);
	closing = ch->state >= SRPT_CH_DISCONNECTING;
	spin_unlock_irqrestore(&ch->lock, flags);
	return closing;
}

/**
 * srpt_acl_removed() - whether a session's node ACL is on its way out
 * @sess: a session just registered.
 *
 * LIO's node ACL removal unlists the ACL, then closes the sessions it has
 * then; a session registered in between would keep the removal waiting
 * until the initiator logs out.  Such a login is refused instead.
 *
 * Return: true when the ACL is no longer listed in its TPG.
 */
static bool srpt_acl_removed(struct se_session *sess)
{
	struct se_node_acl *nacl = sess->se_node_acl;
	struct se_portal_group *tpg = sess->se_tpg;
	bool removed;

	mutex_lock(&tpg->acl_node_mutex);
	removed = list_empty(&nacl->acl_list);
	mutex_unlock(&tpg->acl_node_mutex);
	return removed;
}

/**
 * srpt_login() - decide a login request and create its channel
 * @sport: port the request arrived on; the caller holds a reference on its
 *	device (srpt_login_port_get()).  An admitted channel takes one of
 *	its own.
 * @cm_ops: transport it arrived through.
 * @cm_id: its CM id.
 * @lc: the request.
 * @rsp: out: SRPT_LOGIN_RSP_LEN bytes of login response, on success.
 * @reason: out: SRPT_REJ_* reason, on failure.
 *
 * Return: the new channel, listed, with its session, rings and QP, still
 * owned by the login path (the caller answers the login, then calls
 * srpt_login_done()); or NULL, with nothing left behind.
 */
static struct srpt_rdma_ch *srpt_login(struct srpt_port *sport,
				       const struct srpt_cm_ops *cm_ops,
				       void *cm_id, struct srpt_login_ctx *lc,
				       u8 *rsp, u32 *reason)
{
	const struct srpt_login_req *req = &lc->req;
	struct srpt_device *sdev = sport->sdev;
	struct srpt_login_params params;
	struct srpt_tpg_attrs attrs;
	struct srpt_srq *srq = NULL;
	struct srpt_login_grant g;
	struct se_session *sess;
	struct srpt_rdma_ch *ch;
	u8 tpid[16];
	char ini[40];
	int ret;

	snprintf(ini, sizeof(ini), "0x%016llx%016llx",
		 srpt_get_be64(req->initiator_port_id),
		 srpt_get_be64(req->initiator_port_id + 8));
	srpt_put_be64(tpid, srpt_service_guid);
	srpt_put_be64(tpid + 8, srpt_service_guid);
	params.max_req_size = srp_max_req_size;
	/* Replaced by the TPG's srp_max_rsp_size once the TPG is known. */
	params.max_rsp_size = SRPT_DEF_MAX_RSP_SIZE;
	params.target_port_id = tpid;

	*reason = srpt_check_login(req, &params, &g);
	if (*reason) {
		lc->why = *reason == SRPT_REJ_UNABLE_ESTABLISH ?
			  "invalid login request" :
			  srpt_login_rej_msg(*reason);
		pr_warn_ratelimited("login of initiator %s (%s) on %s port %u rejected: %s (IU length %u, max %u; target port id 0x%016llx%016llx, expected 0x%016llx%016llx; buffer formats 0x%x; flags 0x%x)\n",
				    ini, lc->peer_name,
				    dev_name(&sdev->device->dev),
				    sport->port_num,
				    srpt_login_rej_msg(*reason),
				    req->req_it_iu_len, srp_max_req_size,
				    srpt_get_be64(req->target_port_id),
				    srpt_get_be64(req->target_port_id + 8),
				    srpt_service_guid, srpt_service_guid,
				    req->req_buf_fmt, req->req_flags);
		return NULL;
	}
	*reason = SRPT_REJ_NO_RESOURCES;
	lc->why = "out of memory";
	ch = srpt_ch_new(sport, cm_ops, cm_id, lc->pkey, lc->peer_name);
	if (!ch)
		return NULL;
	ch->peer = lc->peer;

	/* Admission: the only part under srpt_dev_mutex. */
	mutex_lock(&srpt_dev_mutex);
	if (sdev->removing) {
		mutex_unlock(&srpt_dev_mutex);
		*reason = SRPT_REJ_UNABLE_ESTABLISH;
		lc->why = "device being removed";
		free_percpu(ch->stats);
		kfree(ch);
		return NULL;
	}
	if (!srpt_admit_login(ch, lc, &attrs)) {
		mutex_unlock(&srpt_dev_mutex);
		pr_warn_ratelimited("login of initiator %s (%s) on %s port %u rejected: no node ACL admits it in an enabled TPG of target port %s; create acls/%s (targetcli: acls/ create ib.%s) to admit it\n",
				    ini, lc->peer_name,
				    dev_name(&sdev->device->dev),
				    sport->port_num,
				    sport->gid_name[0] ? sport->gid_name :
				    "(none)", ini, ini + 2);
		*reason = SRPT_REJ_UNABLE_ESTABLISH;
		lc->why = "no node ACL admits it in an enabled TPG";
		free_percpu(ch->stats);
		kfree(ch);
		return NULL;
	}
	/* Listed now: from here on srpt_login_abort() undoes the login. */
	kref_get(&sdev->refs);
	mutex_unlock(&srpt_dev_mutex);
	if (attrs.use_srq) {
		/* Its first use allocates and posts every SRQ buffer. */
		mutex_lock(&sdev->srq_mutex);
		srq = srpt_srq_get(sdev);
		mutex_unlock(&sdev->srq_mutex);
		if (IS_ERR(srq)) {
			lc->why = "creating the SRQ failed";
			goto abort;
		}
	}
	ch->id = (u32)atomic_inc_return(&srpt_ch_next_id);

	sess = srpt_fail(SRPT_FAULT_SESSION) ? ERR_PTR(-ENOMEM) :
	       target_setup_session(&ch->stpg->tpg, 0, 0, TARGET_PROT_NORMAL,
				    lc->acl_name, ch, NULL);
	if (IS_ERR(sess)) {
		pr_warn_ratelimited("%s: creating the session failed (%ld)\n",
				    ch->name, PTR_ERR(sess));
		lc->why = "creating the session failed";
		goto abort;
	}
	mutex_lock(&srpt_ch_mutex);
	ch->sess = sess;
	mutex_unlock(&srpt_ch_mutex);
	if (srpt_acl_removed(sess)) {
		pr_info("%s: node ACL %s is being removed; login refused\n",
			ch->name, lc->acl_name);
		*reason = SRPT_REJ_UNABLE_ESTABLISH;
		lc->why = "node ACL being removed";
		goto abort;
	}

	/* The response IU size is the TPG's to choose. */
	g.max_ti_iu_len = attrs.max_rsp_size;
	lc->why = "creating the QP or receive ring failed";
	ret = srpt_ch_setup(ch, &g, &attrs, srq);
	if (ret)
		goto abort;
	mutex_lock(&srpt_ch_mutex);
	scnprintf(ch->name, sizeof(ch->name), "%s-%u", lc->acl_name,
		  ch->qp_num);
	mutex_unlock(&srpt_ch_mutex);

	if (srpt_ch_closing(ch)) {
		pr_info("%s: closed while logging in; login refused\n",
			ch->name);
		*reason = SRPT_REJ_UNABLE_ESTABLISH;
		lc->why = "closed while logging in";
		goto abort;
	}
	srpt_build_login_rsp(rsp, SRPT_LOGIN_RSP_LEN, req->tag,
			     ch->rq_size - SRPT_RSVD_RECVS, &g,
			     g.rsp_flags | lc->rsp_flags);
	pr_info("%s: logged in from %s to target port %s over %s (IU %u/%u bytes, %u credits, send queue %u%s%s%s)\n",
		ch->name, lc->peer_name, ch->tport->name, cm_ops->name,
		g.max_it_iu_len,
		g.max_ti_iu_len, ch->rq_size - SRPT_RSVD_RECVS, ch->sq_size,
		ch->srq ? ", shared receive queue" : "",
		g.imm_data_offset ? ", immediate data" : "",
		lc->rsp_flags == SRPT_LOGIN_RSP_TERMINATED ?
		", other channels of the nexus terminated" : "");
	if (lc->acl_match == SRPT_ACL_BY_LOCAL)
		pr_info("%s: admitted by node ACL %s, which is this target's own address (%pISc): the in-tree driver's meaning of an address ACL, which admits any initiator connecting to it; an ACL named after the initiator's address (%s) admits only it\n",
			ch->name, lc->acl_name, &lc->local, lc->peer_name);
	return ch;

abort:
	/* Listed still: its target port cannot go away before the abort. */
	srpt_ch_count_refused(ch, *reason);
	lc->counted = true;
	srpt_login_abort(ch);
	return NULL;
}

/* ---- IB CM front end ---------------------------------------------------- */

/**
 * srpt_init_ch_qp() - bring a new channel QP of an IB CM login to INIT
 * @ch: channel; ch->pkey is the P_Key of the login's path.
 * @qp: the new QP.
 *
 * Access flags allow local write, remote read and remote write, with the
 * channel's port and P_Key index.  The remote flags give the initiator no
 * access to target memory: a remote access needs an rkey, and the target
 * never hands one out.  Its buffers are reachable only through the PD's
 * local DMA lkey (the PD has no global rkey) and the RDMA R/W API contexts
 * the target posts itself; the initiator's rkeys are the only ones on the
 * wire.
 *
 * Return: 0 or a negative errno.
 */
static int srpt_init_ch_qp(struct srpt_rdma_ch *ch, struct ib_qp *qp)
{
	struct ib_qp_attr attr = { };
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			       IB_ACCESS_REMOTE_WRITE;
	attr.port_num = ch->sport->port_num;
	ret = srpt_fail(SRPT_FAULT_PKEY) ? -ENOENT :
	      ib_find_cached_pkey(srpt_ch_dev(ch), ch->sport->port_num,
				  ch->pkey, &attr.pkey_index);
	if (ret) {
		pr_err("%s: P_Key 0x%04x is not in the port's table (%d)\n",
		       ch->name, ch->pkey, ret);
		return ret;
	}
	ret = srpt_fail(SRPT_FAULT_QP_INIT) ? -EINVAL :
	      ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_ACCESS_FLAGS |
			   IB_QP_PORT | IB_QP_PKEY_INDEX);
	if (ret)
		pr_err("%s: moving the QP to INIT failed (%d)\n", ch->name,
		       ret);
	return ret;
}

/*
 * srpt_dyndbg_enabled() - whether dynamic debug output is enabled for the
 * function it is used in (a descriptor of its own, matched by module,
 * function and file as any pr_debug() there), to skip work done only for
 * debug output.  Without dynamic debug: whether DEBUG is defined.
 */
#if defined(CONFIG_DYNAMIC_DEBUG) || \
	(defined(CONFIG_DYNAMIC_DEBUG_CORE) && defined(DYNAMIC_DEBUG_MODULE))
#define srpt_dyndbg_enabled() ({					\
	DEFINE_DYNAMIC_DEBUG_METADATA(srpt_dd, "srpt_dyndbg_enabled");	\
	DYNAMIC_DEBUG_BRANCH(srpt_dd);					\
})
#elif defined(DEBUG)
#define srpt_dyndbg_enabled() true
#else
#define srpt_dyndbg_enabled() false
#endif

/**
 * srpt_ib_cm_report_qp() - log (dyndbg) a channel QP's state after a step
 * @ch: channel of an IB CM login.
 * @qp: its QP.
 * @step: the step just taken ("INIT", "RTR", "RTS", "RTU").
 *
 * Reads back with ib_query_qp() what the QP really holds: state, access
 * flags, P_Key index and PSNs, so that a test can check each transition.
 * Only when this function's debug output is enabled (dynamic debug, e.g.
 * "func srpt_ib_cm_report_qp +p"): a login does not pay for the queries.
 */
static void srpt_ib_cm_report_qp(struct srpt_rdma_ch *ch, struct ib_qp *qp,
				 const char *step)
{
	static const char * const states[] = {
		[IB_QPS_RESET] = "RESET", [IB_QPS_INIT] = "INIT",
		[IB_QPS_RTR] = "RTR", [IB_QPS_RTS] = "RTS",
		[IB_QPS_SQD] = "SQD", [IB_QPS_SQE] = "SQE",
		[IB_QPS_ERR] = "ERR",
	};
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	int ret;

	if (!srpt_dyndbg_enabled())
		return;
	memset(&attr, 0, sizeof(attr));
	ret = ib_query_qp(qp, &attr, IB_QP_STATE | IB_QP_ACCESS_FLAGS |
			  IB_QP_PKEY_INDEX | IB_QP_RQ_PSN | IB_QP_SQ_PSN |
			  IB_QP_DEST_QPN, &init);
	if (ret) {
		pr_debug("%s: QP %u after %s: query failed (%d)\n", ch->name,
			 qp->qp_num, step, ret);
		return;
	}
	pr_debug("%s: QP %u after %s: state %s, access flags 0x%x (local write %s, remote read %s, remote write %s), P_Key index %u, receive PSN 0x%06x, send PSN 0x%06x, destination QP %u\n",
		 ch->name, qp->qp_num, step,
		 attr.qp_state < ARRAY_SIZE(states) && states[attr.qp_state] ?
		 states[attr.qp_state] : "?", attr.qp_access_flags,
		 str_yes_no(attr.qp_access_flags & IB_ACCESS_LOCAL_WRITE),
		 str_yes_no(attr.qp_access_flags & IB_ACCESS_REMOTE_READ),
		 str_yes_no(attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE),
		 attr.pkey_index, attr.rq_psn, attr.sq_psn, attr.dest_qp_num);
}

/**
 * srpt_ib_cm_qp_to() - move a QP to RTR or RTS with the CM's attributes
 * @ch: channel with its IB CM id and its receive PSN (ch->rq_psn).
 * @qp: the QP.
 * @state: IB_QPS_RTR or IB_QPS_RTS.
 *
 * The RDMA READ depths the CM negotiated are clamped to what the device
 * supports.  RTR takes ch->rq_psn as receive PSN: before the REP is sent,
 * the passive CM id has none to give (ib_send_cm_rep() sets it from the
 * REP), so the value the CM would put there is 0, not what the REP
 * announces.  The send PSN of RTS is the REQ's starting PSN, which the CM
 * has from the start.
 *
 * Return: 0 or a negative errno.
 */
static int srpt_ib_cm_qp_to(struct srpt_rdma_ch *ch, struct ib_qp *qp,
			    enum ib_qp_state state)
{
	const struct ib_device_attr *da = &srpt_ch_dev(ch)->attrs;
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = srpt_fail(SRPT_FAULT_CM_QP_ATTR) ? -EINVAL :
	      ib_cm_init_qp_attr(ch->ib_cm_id, &attr, &mask);
	if (!ret) {
		if (state == IB_QPS_RTR) {
			attr.max_dest_rd_atomic = min_t(int,
							attr.max_dest_rd_atomic,
							da->max_qp_rd_atom);
			attr.rq_psn = ch->rq_psn;
			mask |= IB_QP_RQ_PSN;
		} else {
			attr.max_rd_atomic = min_t(int, attr.max_rd_atomic,
						   da->max_qp_init_rd_atom);
		}
		ret = srpt_fail(SRPT_FAULT_QP_RTR_RTS) ? -EINVAL :
		      ib_modify_qp(qp, &attr, mask);
	}
	if (ret)
		pr_err("%s: moving the QP to %s failed (%d)\n", ch->name,
		       state == IB_QPS_RTR ? "RTR" : "RTS", ret);
	return ret;
}

/**
 * srpt_ib_cm_create_qp() - create a channel QP and bring it to RTS
 * @ch: channel.
 * @attr: QP attributes.
 *
 * INIT through srpt_init_ch_qp(), then RTR and RTS with the CM's
 * attributes, before the REP goes out (as the RDMA/CM does): the QP is
 * ready when the first request arrives.  The receive PSN is chosen here, at
 * random as the RDMA/CM chooses its own, and the REP announces it
 * (srpt_ib_cm_req()).
 *
 * Return: 0 or a negative errno.
 */
static int srpt_ib_cm_create_qp(struct srpt_rdma_ch *ch,
				struct ib_qp_init_attr *attr)
{
	struct ib_qp *qp;
	int ret;

	qp = srpt_fail(SRPT_FAULT_IB_CM_QP) ? ERR_PTR(-ENOMEM) :
	     ib_create_qp(ch->sport->sdev->pd, attr);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ch->rq_psn = get_random_u32() & 0xffffff;
	ret = srpt_init_ch_qp(ch, qp);
	if (!ret) {
		srpt_ib_cm_report_qp(ch, qp, "INIT");
		ret = srpt_ib_cm_qp_to(ch, qp, IB_QPS_RTR);
	}
	if (!ret) {
		srpt_ib_cm_report_qp(ch, qp, "RTR");
		ret = srpt_ib_cm_qp_to(ch, qp, IB_QPS_RTS);
	}
	if (!ret)
		srpt_ib_cm_report_qp(ch, qp, "RTS");
	if (ret) {
		ib_destroy_qp(qp);
		return ret;
	}
	ch->qp = qp;
	return 0;
}

static void srpt_ib_cm_destroy_qp(struct srpt_rdma_ch *ch)
{
	ib_destroy_qp(ch->qp);
}

static void srpt_ib_cm_disconnect(struct srpt_rdma_ch *ch)
{
	ib_send_cm_dreq(ch->ib_cm_id, NULL, 0);
}

static void srpt_ib_cm_destroy_id(struct srpt_rdma_ch *ch)
{
	ib_destroy_cm_id(ch->ib_cm_id);
}

static void srpt_ib_cm_comm_est(struct srpt_rdma_ch *ch)
{
	ib_cm_notify(ch->ib_cm_id, IB_EVENT_COMM_EST);
}

static const struct srpt_cm_ops srpt_ib_cm_ops = {
	.name		= "IB CM",
	.create_qp	= srpt_ib_cm_create_qp,
	.destroy_qp	= srpt_ib_cm_destroy_qp,
	.disconnect	= srpt_ib_cm_disconnect,
	.destroy_id	= srpt_ib_cm_destroy_id,
	.comm_est	= srpt_ib_cm_comm_est,
};

/**
 * srpt_ib_cm_req() - an SRP login arrived as an IB CM REQ
 * @cm_id: new CM id of the connection; its context is our srpt_device.
 * @event: the REQ, with the SRP_LOGIN_REQ as private data.
 *
 * Return: 0 when accepted (or handed to the release work), non-zero to have
 * the IB CM destroy @cm_id after a REJ.
 */
static int srpt_ib_cm_req(struct ib_cm_id *cm_id,
			  const struct ib_cm_event *event)
{
	const struct ib_cm_req_event_param *req = &event->param.req_rcvd;
	struct srpt_device *sdev = cm_id->context;
	const struct ib_device_attr *da = &sdev->device->attrs;
	struct ib_cm_rep_param rep = { };
	struct srpt_port *sport;
	struct srpt_rdma_ch *ch;
	struct srpt_login_ctx *lc;
	u8 rsp[SRPT_LOGIN_RSP_LEN];
	u8 rej[SRPT_LOGIN_REJ_LEN];
	u32 reason = SRPT_REJ_UNABLE_ESTABLISH;
	int ret, rej_ret;

	lc = srpt_fail(SRPT_FAULT_IB_CM_LOGIN) ? NULL :
	     kzalloc(sizeof(*lc), GFP_KERNEL);
	if (!lc) {
		reason = SRPT_REJ_NO_RESOURCES;
		goto reject;
	}
	lc->peer.ss_family = AF_UNSPEC;
	snprintf(lc->peer_name, sizeof(lc->peer_name), "GID %pI6",
		 req->primary_path->dgid.raw);
	lc->pkey = be16_to_cpu(req->primary_path->pkey);
	lc->why = "malformed login request";
	if (srpt_parse_login_req(event->private_data,
				 IB_CM_REQ_PRIVATE_DATA_SIZE, &lc->req)) {
		pr_warn_ratelimited("IB CM REQ from %s without a valid SRP_LOGIN_REQ rejected\n",
				    lc->peer_name);
		goto reject;
	}

	lc->why = "device or port not served";
	sport = srpt_login_port_get(sdev->device, req->port);
	if (!sport)
		goto reject;
	ch = srpt_login(sport, &srpt_ib_cm_ops, cm_id, lc, rsp, &reason);
	srpt_device_put(sdev);
	if (!ch)
		goto reject;
	cm_id->context = ch;

	rep.qp_num = ch->qp->qp_num;
	rep.starting_psn = ch->rq_psn;
	rep.private_data = rsp;
	rep.private_data_len = sizeof(rsp);
	rep.responder_resources = min_t(u32, req->responder_resources,
					da->max_qp_rd_atom);
	rep.initiator_depth = min_t(u32, req->initiator_depth,
				    da->max_qp_init_rd_atom);
	rep.rnr_retry_count = 7;
	rep.flow_control = 1;
	rep.srq = !!ch->srq;
	ret = srpt_fail(SRPT_FAULT_IB_CM_REP) ? -ENOMEM :
	      ib_send_cm_rep(cm_id, &rep);
	if (ret) {
		/*
		 * The initiator learns why: unsent, the IB CM sends a REJ
		 * without an SRP_LOGIN_REJ when the release destroys the id.
		 */
		pr_warn("%s: sending the REP failed (%d); login rejected (%s)\n",
			ch->name, ret,
			srpt_login_rej_msg(SRPT_REJ_NO_RESOURCES));
		srpt_ch_count_refused(ch, SRPT_REJ_NO_RESOURCES);
		srpt_build_login_rej(rej, sizeof(rej), lc->req.tag,
				     SRPT_REJ_NO_RESOURCES);
		rej_ret = ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED,
					 NULL, 0, rej, sizeof(rej));
		if (rej_ret)
			pr_warn("%s: sending the REJ failed too (%d)\n",
				ch->name, rej_ret);
	}
	srpt_login_done(ch, !ret);
	kfree(lc);
	return 0;

reject:
	trace_srpt_login_rejected(srpt_ib_cm_ops.name, sdev->device, req->port,
				  lc ? lc->peer_name : NULL,
				  lc ? lc->req.initiator_port_id : NULL,
				  lc ? lc->req.target_port_id : NULL, reason,
				  lc ? lc->why : "out of memory");
	if (!lc || !lc->counted)
		srpt_count_refused(sdev->device, req->port, reason);
	srpt_build_login_rej(rej, sizeof(rej), lc ? lc->req.tag : 0, reason);
	/* Unsent, the IB CM sends a REJ of its own as it destroys the id. */
	ret = srpt_fail(SRPT_FAULT_IB_CM_REJ) ? -ENOMEM :
	      ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, rej,
			     sizeof(rej));
	if (ret)
		pr_warn_ratelimited("sending the REJ to %s failed (%d)\n",
				    lc ? lc->peer_name : "an initiator", ret);
	kfree(lc);
	return -ECONNREFUSED;
}

/**
 * srpt_ib_cm_handler() - IB CM event callback of listeners and channels
 * @cm_id: the CM id; its context is an srpt_device for the listener and for
 *	a REQ, an srpt_rdma_ch once a login was accepted.
 * @event: the event.
 *
 * Return: non-zero only to have the IB CM destroy a rejected @cm_id.
 */
static int srpt_ib_cm_handler(struct ib_cm_id *cm_id,
			      const struct ib_cm_event *event)
{
	struct srpt_rdma_ch *ch = cm_id->context;
	unsigned long flags;

	if (event->event == IB_CM_REQ_RECEIVED)
		return srpt_ib_cm_req(cm_id, event);

	switch (event->event) {
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		spin_lock_irqsave(&ch->lock, flags);
		if (ch->state == SRPT_CH_CONNECTING)
			srpt_ch_set_state(ch, SRPT_CH_LIVE);
		spin_unlock_irqrestore(&ch->lock, flags);
		srpt_ib_cm_report_qp(ch, ch->qp,
				     event->event == IB_CM_RTU_RECEIVED ?
				     "RTU" : "the first request");
		break;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(cm_id, NULL, 0);
		srpt_ch_close(ch);
		break;
	case IB_CM_REJ_RECEIVED:
	case IB_CM_REP_ERROR:
	case IB_CM_DREQ_ERROR:
	case IB_CM_DREP_RECEIVED:
	case IB_CM_TIMEWAIT_EXIT:
		pr_debug("%s: IB CM event %d\n", ch->name, event->event);
		srpt_ch_close(ch);
		break;
	default:
		break;
	}
	return 0;
}

/**
 * srpt_ib_cm_listen() - the IB CM listener of a device
 * @sdev: device; listens only when one of its ports has the IB CM
 *	capability (InfiniBand and RoCE ports; RoCE REQs carry a GRH).
 *
 * Failure is logged and tolerated: RDMA/CM logins still work.
 */
static void srpt_ib_cm_listen(struct srpt_device *sdev)
{
	struct ib_cm_id *id;
	bool ib = false;
	u32 i;
	int ret;

	for (i = 1; i <= sdev->port_cnt; i++)
		ib |= rdma_cap_ib_cm(sdev->device, i);
	if (!ib)
		return;
	id = srpt_fail(SRPT_FAULT_IB_CM_ID) ? ERR_PTR(-ENOMEM) :
	     ib_create_cm_id(sdev->device, srpt_ib_cm_handler, sdev);
	if (IS_ERR(id)) {
		pr_warn("%s: creating the IB CM listener failed (%ld)\n",
			dev_name(&sdev->device->dev), PTR_ERR(id));
		return;
	}
	ret = srpt_fail(SRPT_FAULT_IB_CM_LISTEN) ? -ENOMEM :
	      ib_cm_listen(id, cpu_to_be64(srpt_service_guid));
	if (ret) {
		pr_warn("%s: listening on IB CM service id 0x%016llx failed (%d)\n",
			dev_name(&sdev->device->dev), srpt_service_guid, ret);
		ib_destroy_cm_id(id);
		return;
	}
	sdev->cm_id = id;
	pr_info("%s: listening for IB CM logins on service id 0x%016llx\n",
		dev_name(&sdev->device->dev), srpt_service_guid);
}

/* ---- RDMA/CM front end -------------------------------------------------- */

/*
 * srpt_listen_mutex protects srpt_listen_id and srpt_listen_port: the
 * RDMA/CM listener configured through discovery_auth/rdma_cm_port.
 */
static DEFINE_MUTEX(srpt_listen_mutex);
static struct rdma_cm_id *srpt_listen_id;
static u16 srpt_listen_port;

static int srpt_rdma_cm_create_qp(struct srpt_rdma_ch *ch,
				  struct ib_qp_init_attr *attr)
{
	int ret = srpt_fail(SRPT_FAULT_RDMA_CM_QP) ? -ENOMEM :
		  rdma_create_qp(ch->rdma_cm_id, ch->sport->sdev->pd, attr);

	if (!ret)
		ch->qp = ch->rdma_cm_id->qp;
	return ret;
}

static void srpt_rdma_cm_destroy_qp(struct srpt_rdma_ch *ch)
{
	rdma_destroy_qp(ch->rdma_cm_id);
}

static void srpt_rdma_cm_disconnect(struct srpt_rdma_ch *ch)
{
	rdma_disconnect(ch->rdma_cm_id);
}

static void srpt_rdma_cm_destroy_id(struct srpt_rdma_ch *ch)
{
	rdma_destroy_id(ch->rdma_cm_id);
}

static void srpt_rdma_cm_comm_est(struct srpt_rdma_ch *ch)
{
	rdma_notify(ch->rdma_cm_id, IB_EVENT_COMM_EST);
}

/* On RDMA/CM, rdma_create_qp() and rdma_accept() do the QP transitions. */
static const struct srpt_cm_ops srpt_rdma_cm_ops = {
	.name		= "RDMA/CM",
	.create_qp	= srpt_rdma_cm_create_qp,
	.destroy_qp	= srpt_rdma_cm_destroy_qp,
	.disconnect	= srpt_rdma_cm_disconnect,
	.destroy_id	= srpt_rdma_cm_destroy_id,
	.comm_est	= srpt_rdma_cm_comm_est,
};

/**
 * srpt_rdma_cm_req() - an SRP login arrived as an RDMA/CM connect request
 * @cm_id: new id of the connection.
 * @event: the request, with the login request as private data.
 *
 * Return: 0 when accepted (or handed to the release work), non-zero to have
 * the RDMA/CM destroy @cm_id after a reject.
 */
static int srpt_rdma_cm_req(struct rdma_cm_id *cm_id,
			    struct rdma_cm_event *event)
{
	const struct rdma_conn_param *peer = &event->param.conn;
	struct ib_device *dev = cm_id->device;
	struct rdma_conn_param param = { };
	struct srpt_login_ctx *lc;
	u8 rsp[SRPT_LOGIN_RSP_LEN];
	u8 rej[SRPT_LOGIN_REJ_LEN];
	struct srpt_rdma_ch *ch = NULL;
	struct srpt_port *sport;
	u32 reason = SRPT_REJ_UNABLE_ESTABLISH;
	int ret;

	lc = srpt_fail(SRPT_FAULT_RDMA_CM_LOGIN) ? NULL :
	     kzalloc(sizeof(*lc), GFP_KERNEL);
	if (!lc) {
		reason = SRPT_REJ_NO_RESOURCES;
		goto reject;
	}
	memcpy(&lc->peer, &cm_id->route.addr.dst_addr, sizeof(lc->peer));
	memcpy(&lc->local, &cm_id->route.addr.src_addr, sizeof(lc->local));
	snprintf(lc->peer_name, sizeof(lc->peer_name), "%pISc", &lc->peer);
	lc->why = "malformed login request";
	if (srpt_parse_login_req_rdma(peer->private_data,
				      peer->private_data_len, &lc->req)) {
		pr_warn_ratelimited("RDMA/CM connect request from %s without a valid SRP_LOGIN_REQ (%u bytes of private data) rejected\n",
				    lc->peer_name, peer->private_data_len);
		goto reject;
	}

	lc->why = "device or port not served";
	sport = srpt_login_port_get(dev, cm_id->port_num);
	if (!sport) {
		pr_warn_ratelimited("RDMA/CM connect request from %s on an unknown device rejected\n",
				    lc->peer_name);
		goto reject;
	}
	ch = srpt_login(sport, &srpt_rdma_cm_ops, cm_id, lc, rsp, &reason);
	srpt_device_put(sport->sdev);
	if (!ch)
		goto reject;
	cm_id->context = ch;

	param.private_data = rsp;
	param.private_data_len = sizeof(rsp);
	/*
	 * The CM reports the request's depths from our side already: its
	 * initiator_depth is how many RDMA READs the initiator will serve.
	 */
	param.initiator_depth = min_t(u32, peer->initiator_depth,
				      dev->attrs.max_qp_init_rd_atom);
	param.responder_resources = min_t(u32, peer->responder_resources,
					  dev->attrs.max_qp_rd_atom);
	param.rnr_retry_count = 7;
	param.flow_control = 1;
	param.srq = !!ch->srq;
	ret = srpt_fail(SRPT_FAULT_RDMA_ACCEPT) ? -ENOMEM :
	      rdma_accept(cm_id, &param);
	if (ret)
		pr_warn("%s: accepting the connection failed (%d)\n", ch->name,
			ret);
	srpt_login_done(ch, !ret);
	kfree(lc);
	return 0;

reject:
	trace_srpt_login_rejected(srpt_rdma_cm_ops.name, dev, cm_id->port_num,
				  lc ? lc->peer_name : NULL,
				  lc ? lc->req.initiator_port_id : NULL,
				  lc ? lc->req.target_port_id : NULL, reason,
				  lc ? lc->why : "out of memory");
	if (!lc || !lc->counted)
		srpt_count_refused(dev, cm_id->port_num, reason);
	srpt_build_login_rej(rej, sizeof(rej), lc ? lc->req.tag : 0, reason);
	/* Unsent, the RDMA/CM rejects as it destroys the id. */
	ret = srpt_fail(SRPT_FAULT_RDMA_REJECT) ? -ENOMEM :
	      rdma_reject(cm_id, rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	if (ret)
		pr_warn_ratelimited("sending the reject to %s failed (%d)\n",
				    lc ? lc->peer_name : "an initiator", ret);
	kfree(lc);
	return -ECONNREFUSED;
}

/**
 * srpt_rdma_cm_handler() - RDMA/CM event callback of listener and channels
 * @cm_id: the id.
 * @event: the event.
 *
 * Return: non-zero only to have the RDMA/CM destroy a rejected @cm_id.
 */
static int srpt_rdma_cm_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *event)
{
	struct srpt_rdma_ch *ch = cm_id->context;
	unsigned long flags;

	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return srpt_rdma_cm_req(cm_id, event);
	if (!ch) {
		if (cm_id == srpt_listen_id)
			pr_info("RDMA/CM listener: %s\n",
				rdma_event_msg(event->event));
		return 0;
	}

	switch (event->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		spin_lock_irqsave(&ch->lock, flags);
		if (ch->state == SRPT_CH_CONNECTING)
			srpt_ch_set_state(ch, SRPT_CH_LIVE);
		spin_unlock_irqrestore(&ch->lock, flags);
		pr_debug("%s: connection established\n", ch->name);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		pr_debug("%s: %s\n", ch->name, rdma_event_msg(event->event));
		srpt_ch_close(ch);
		break;
	default:
		pr_debug("%s: RDMA/CM event %s ignored\n", ch->name,
			 rdma_event_msg(event->event));
		break;
	}
	return 0;
}

/**
 * srpt_rdma_cm_listen() - listen for RDMA/CM logins on a TCP port number
 * @port: port number.
 *
 * Binds the IPv6 wildcard address (which takes IPv4 too); where IPv6 is not
 * available, the IPv4 one.
 *
 * Return: the listening id or an ERR_PTR().
 */
static struct rdma_cm_id *srpt_rdma_cm_listen(u16 port)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
	};
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	struct rdma_cm_id *id;
	int ret;

	id = srpt_fail(SRPT_FAULT_RDMA_CM_ID) ? ERR_PTR(-ENOMEM) :
	     rdma_create_id(&init_net, srpt_rdma_cm_handler, NULL,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	ret = srpt_fail(SRPT_FAULT_RDMA_BIND) ? -EADDRINUSE :
	      rdma_bind_addr(id, (struct sockaddr *)&sin6);
	if (ret)
		ret = srpt_fail(SRPT_FAULT_RDMA_BIND) ? -EADDRINUSE :
		      rdma_bind_addr(id, (struct sockaddr *)&sin);
	if (!ret)
		ret = srpt_fail(SRPT_FAULT_RDMA_LISTEN) ? -ENOMEM :
		      rdma_listen(id, 128);
	if (ret) {
		rdma_destroy_id(id);
		return ERR_PTR(ret);
	}
	return id;
}

/* ======================================================================== */
/* 7. Devices: added, port events, removed                                  */
/* ======================================================================== */

/**
 * srpt_port_refresh() - re-read the attributes and GID 0 of a port
 * @sport: port to refresh.
 *
 * Updates the port's names and rebinds target ports when the GID changed,
 * makes sure the Device Management agent runs (InfiniBand and RoCE);
 * closes the port's channels when it is not active (an initiator logs in
 * again once the link is back).  A failed query changes nothing: the port
 * keeps its state and its channels.
 */
static void srpt_port_refresh(struct srpt_port *sport)
{
	struct ib_device *dev = sport->sdev->device;
	struct ib_port_attr attr;
	bool was_active;
	union ib_gid gid;
	int ret, n;

	ret = srpt_fail(SRPT_FAULT_QUERY_PORT) ? -ENOMEM :
	      ib_query_port(dev, sport->port_num, &attr);
	if (ret) {
		/*
		 * Not news about the port: it keeps the state it had, and
		 * its channels; the next event queries it again.
		 */
		pr_warn("%s port %u: querying port attributes failed (%d); its state is kept\n",
			dev_name(&dev->dev), sport->port_num, ret);
		memset(&attr, 0, sizeof(attr));
	}
	/*
	 * rdma_query_gid() of a valid port fails only when GID 0 is not a
	 * valid entry of the GID table now (a RoCE port whose netdev went
	 * away): the port has no GID, its names match nothing and its target
	 * ports are unbound until it has one again.
	 */
	if (srpt_fail(SRPT_FAULT_QUERY_GID) ||
	    rdma_query_gid(dev, sport->port_num, 0, &gid))
		memset(&gid, 0, sizeof(gid));

	mutex_lock(&srpt_dev_mutex);
	if (ret)
		attr.state = sport->state;
	was_active = sport->state == IB_PORT_ACTIVE;
	sport->state = attr.state;
	if (memcmp(sport->gid, gid.raw, sizeof(sport->gid))) {
		memcpy(sport->gid, gid.raw, sizeof(sport->gid));
		srpt_format_guid_name(sport->guid_name, sport->gid + 8);
		srpt_format_gid_name(sport->gid_name, sport->gid);
		pr_info("%s port %u: target port names %s and %s\n",
			dev_name(&dev->dev), sport->port_num,
			sport->guid_name, sport->gid_name);
		srpt_rebind_tports();
	}
	mutex_unlock(&srpt_dev_mutex);

	/* The agent answers on every change: SM, LID, P_Key, port up. */
	srpt_dm_register(sport);
	/*
	 * A port known not to be active has no channels: also those that
	 * logged in while a failed query left its state as it was.
	 */
	if (!ret && attr.state != IB_PORT_ACTIVE) {
		n = srpt_close_channels(srpt_ch_on_port, sport);
		if (was_active || n)
			pr_info("%s port %u: no longer active (%s)%s\n",
				dev_name(&dev->dev), sport->port_num,
				srpt_port_state_name(attr.state),
				n ? ", its channels are being closed" : "");
	}
}

static void srpt_port_refresh_work(struct work_struct *work)
{
	srpt_port_refresh(container_of(work, struct srpt_port, refresh_work));
}

/**
 * srpt_event_handler() - asynchronous RDMA device event callback
 * @handler: our handler, embedded in struct srpt_device.
 * @event: the event.
 *
 * May run in atomic context, so port changes are handled in a work item.
 */
static void srpt_event_handler(struct ib_event_handler *handler,
			       struct ib_event *event)
{
	struct srpt_device *sdev =
		container_of(handler, struct srpt_device, event_handler);
	u32 port_num = event->element.port_num;

	switch (event->event) {
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		if (port_num < 1 || port_num > sdev->port_cnt) {
			pr_warn("%s: event %s for invalid port %u\n",
				dev_name(&sdev->device->dev),
				ib_event_msg(event->event), port_num);
			return;
		}
		pr_debug("%s port %u: %s\n", dev_name(&sdev->device->dev),
			 port_num, ib_event_msg(event->event));
		schedule_work(&sdev->ports[port_num - 1].refresh_work);
		break;
	default:
		break;
	}
}

/**
 * srpt_add_one() - IB client callback for a new RDMA device
 * @device: the device.
 *
 * Return: 0 or a negative errno; -EOPNOTSUPP tells the RDMA core that this
 * client does not use the device.
 */
static int srpt_add_one(struct ib_device *device)
{
	struct srpt_device *sdev;
	u32 i;

	sdev = srpt_fail(SRPT_FAULT_SDEV) ? NULL :
	       kzalloc(struct_size(sdev, ports, device->phys_port_cnt),
		       GFP_KERNEL);
	if (!sdev) {
		pr_err("%s: out of memory; the device is not used\n",
		       dev_name(&device->dev));
		return -ENOMEM;
	}
	sdev->device = device;
	kref_init(&sdev->refs);
	init_completion(&sdev->released);
	mutex_init(&sdev->srq_mutex);
	sdev->port_cnt = device->phys_port_cnt;
	sdev->pd = srpt_fail(SRPT_FAULT_PD) ? ERR_PTR(-ENOMEM) :
		   ib_alloc_pd(device, 0);
	if (IS_ERR(sdev->pd)) {
		int ret = PTR_ERR(sdev->pd);

		pr_err("%s: allocating a protection domain failed (%d)\n",
		       dev_name(&device->dev), ret);
		kfree(sdev);
		return ret;
	}
	for (i = 0; i < sdev->port_cnt; i++) {
		sdev->ports[i].sdev = sdev;
		sdev->ports[i].port_num = i + 1;
		INIT_WORK(&sdev->ports[i].refresh_work, srpt_port_refresh_work);
		mutex_init(&sdev->ports[i].dm_mutex);
	}

	mutex_lock(&srpt_dev_mutex);
	if (!srpt_service_guid)
		srpt_service_guid = be64_to_cpu(device->node_guid);
	list_add_tail(&sdev->entry, &srpt_dev_list);
	mutex_unlock(&srpt_dev_mutex);

	INIT_IB_EVENT_HANDLER(&sdev->event_handler, device, srpt_event_handler);
	ib_register_event_handler(&sdev->event_handler);

	for (i = 0; i < sdev->port_cnt; i++)
		srpt_port_refresh(&sdev->ports[i]);
	srpt_ib_cm_listen(sdev);

	ib_set_client_data(device, &srpt_client, sdev);
	pr_info("added %s with %u port(s)\n", dev_name(&device->dev),
		sdev->port_cnt);
	return 0;
}

/**
 * srpt_remove_one() - IB client callback for a device going away
 * @device: the device.
 * @client_data: our srpt_device.
 *
 * No new login is accepted on the device; its channels are closed, and
 * everything that uses the device's SRQ and PD is gone once its last
 * reference is (the RDMA core removes this client before the RDMA/CM, so
 * all channels still have their CM ids).  Target ports bound to the
 * device's ports become unbound; they stay in configfs until the
 * administrator removes them.
 */
static void srpt_remove_one(struct ib_device *device, void *client_data)
{
	struct srpt_device *sdev = client_data;
	int n;
	u32 i;

	mutex_lock(&srpt_dev_mutex);
	sdev->removing = true;
	mutex_unlock(&srpt_dev_mutex);
	if (sdev->cm_id)
		ib_destroy_cm_id(sdev->cm_id);
	sdev->cm_id = NULL;
	n = srpt_close_channels(srpt_ch_on_device, sdev);
	if (n)
		pr_info("%s: removing the device closed %d channel(s)\n",
			dev_name(&device->dev), n);
	/* The IB client's reference; each channel holds its own. */
	srpt_device_put(sdev);
	while (!wait_for_completion_timeout(&sdev->released, 10 * HZ))
		srpt_log_waiting(srpt_ch_on_device, sdev,
				 dev_name(&device->dev));
	srpt_srq_free(sdev);

	ib_unregister_event_handler(&sdev->event_handler);
	for (i = 0; i < sdev->port_cnt; i++) {
		cancel_work_sync(&sdev->ports[i].refresh_work);
		srpt_dm_unregister(&sdev->ports[i]);
	}

	mutex_lock(&srpt_dev_mutex);
	list_del(&sdev->entry);
	srpt_rebind_tports();
	mutex_unlock(&srpt_dev_mutex);

	pr_info("removed %s\n", dev_name(&device->dev));
	ib_dealloc_pd(sdev->pd);
	kfree(sdev);
}

static struct ib_client srpt_client = {
	.name = "srpt",
	.add = srpt_add_one,
	.remove = srpt_remove_one,
};

/* ======================================================================== */
/* 8. configfs / LIO glue                                                   */
/* ======================================================================== */

static inline struct srpt_tport *srpt_wwn_to_tport(struct se_wwn *wwn)
{
	return container_of(wwn, struct srpt_tport, wwn);
}

static inline struct srpt_tpg *srpt_se_tpg_to_tpg(struct se_portal_group *tpg)
{
	return container_of(tpg, struct srpt_tpg, tpg);
}

/**
 * srpt_make_tport() - mkdir /sys/kernel/config/target/srpt/$name
 * @tf: unused.
 * @group: unused.
 * @name: GUID or GID form name of an RDMA port (see srpt_parse_target_name()).
 *
 * A well-formed name that no RDMA port carries now is accepted (the in-tree
 * driver refuses it): the target port waits, unbound, until a port with
 * that GUID or GID appears (srpt_rebind_tports()), so that a configuration
 * restored at boot before the RDMA device exists is not lost.
 *
 * Return: the new target port or an ERR_PTR(): -EINVAL for a malformed
 * name, -EEXIST when another spelling of the same name exists already.
 */
static struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
				      struct config_group *group,
				      const char *name)
{
	struct srpt_tport *tport, *t;
	struct srpt_name id;
	int ret;

	if (srpt_parse_target_name(name, &id)) {
		pr_err("invalid target port name '%s': use the port GUID (xxxx:xxxx:xxxx:xxxx) or GID (0x followed by 32 hex digits) of GID index 0 of an RDMA port\n",
		       name);
		return ERR_PTR(-EINVAL);
	}

	tport = srpt_fail(SRPT_FAULT_TPORT) ? NULL :
		kzalloc(sizeof(*tport), GFP_KERNEL);
	if (!tport)
		return ERR_PTR(-ENOMEM);
	tport->id = id;
	if (id.kind == SRPT_NAME_GUID)
		srpt_format_guid_name(tport->name, id.id + 8);
	else
		srpt_format_gid_name(tport->name, id.id);
	mutex_init(&tport->tpg_mutex);
	INIT_LIST_HEAD(&tport->tpg_list);

	mutex_lock(&srpt_dev_mutex);
	list_for_each_entry(t, &srpt_tport_list, entry) {
		if (t->id.kind == id.kind && !memcmp(t->id.id, id.id, 16)) {
			pr_err("target port %s exists already (as another spelling of '%s')\n",
			       t->name, name);
			ret = -EEXIST;
			goto unlock;
		}
	}
	tport->sport = srpt_find_port(&id);
	list_add_tail(&tport->entry, &srpt_tport_list);
	if (tport->sport)
		pr_info("target port %s: created on %s port %u\n", tport->name,
			dev_name(&tport->sport->sdev->device->dev),
			tport->sport->port_num);
	else
		pr_info("target port %s: created; no RDMA port has that %s at GID index 0 yet, it waits for one that does\n",
			tport->name,
			id.kind == SRPT_NAME_GUID ? "port GUID" : "GID");
	mutex_unlock(&srpt_dev_mutex);
	return &tport->wwn;

unlock:
	mutex_unlock(&srpt_dev_mutex);
	mutex_destroy(&tport->tpg_mutex);
	kfree(tport);
	return ERR_PTR(ret);
}

/**
 * srpt_drop_tport() - rmdir /sys/kernel/config/target/srpt/$name
 * @wwn: the target port; configfs has removed its TPGs already.
 */
static void srpt_drop_tport(struct se_wwn *wwn)
{
	struct srpt_tport *tport = srpt_wwn_to_tport(wwn);

	mutex_lock(&srpt_dev_mutex);
	list_del(&tport->entry);
	mutex_unlock(&srpt_dev_mutex);

	WARN_ON_ONCE(!list_empty(&tport->tpg_list));
	pr_info("target port %s: removed\n", tport->name);
	mutex_destroy(&tport->tpg_mutex);
	kfree(tport);
}

/**
 * srpt_make_tpg() - mkdir /sys/kernel/config/target/srpt/$port/$tpg
 * @wwn: the target port.
 * @name: any name; every srpt TPG has tag 1.
 *
 * Return: the new TPG or an ERR_PTR().
 */
static struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn,
					     const char *name)
{
	struct srpt_tport *tport = srpt_wwn_to_tport(wwn);
	struct srpt_tpg *stpg;
	int ret;

	stpg = srpt_fail(SRPT_FAULT_TPG) ? NULL :
	       kzalloc(sizeof(*stpg), GFP_KERNEL);
	if (!stpg)
		return ERR_PTR(-ENOMEM);
	stpg->tport = tport;
	stpg->attrs.max_rsp_size = SRPT_DEF_MAX_RSP_SIZE;
	stpg->attrs.max_rdma_size = SRPT_DEF_MAX_RDMA_SIZE;
	stpg->attrs.sq_size = SRPT_DEF_SQ_SIZE;
	stpg->attrs.use_srq = false;
	ret = srpt_fail(SRPT_FAULT_TPG_REGISTER) ? -ENOMEM :
	      core_tpg_register(wwn, &stpg->tpg, SCSI_PROTOCOL_SRP);
	if (ret) {
		kfree(stpg);
		return ERR_PTR(ret);
	}

	mutex_lock(&tport->tpg_mutex);
	list_add_tail(&stpg->entry, &tport->tpg_list);
	mutex_unlock(&tport->tpg_mutex);
	return &stpg->tpg;
}

/**
 * srpt_drop_tpg() - rmdir /sys/kernel/config/target/srpt/$port/$tpg
 * @tpg: the TPG; configfs has removed its LUNs and ACLs already.
 *
 * Once the TPG is unlisted no login can name it; a login that named it
 * before (its channel is listed) is closed and waited for, so nothing uses
 * the TPG after it is deregistered.
 */
static void srpt_drop_tpg(struct se_portal_group *tpg)
{
	struct srpt_tpg *stpg = srpt_se_tpg_to_tpg(tpg);
	struct srpt_tport *tport = stpg->tport;

	mutex_lock(&tport->tpg_mutex);
	stpg->enabled = false;
	list_del(&stpg->entry);
	srpt_close_channels(srpt_ch_in_tpg, stpg);
	mutex_unlock(&tport->tpg_mutex);
	srpt_wait_channels_gone(srpt_ch_in_tpg, stpg, tport->name);

	core_tpg_deregister(tpg);
	kfree(stpg);
}

/**
 * srpt_enable_tpg() - write 0 or 1 to .../$tpg/enable
 * @tpg: the TPG.
 * @enable: whether new logins may be accepted through it.
 *
 * Disabling closes the TPG's channels; they are released in the
 * background.
 *
 * Return: 0.
 */
static int srpt_enable_tpg(struct se_portal_group *tpg, bool enable)
{
	struct srpt_tpg *stpg = srpt_se_tpg_to_tpg(tpg);

	int n = 0;

	mutex_lock(&stpg->tport->tpg_mutex);
	stpg->enabled = enable;
	if (!enable)
		n = srpt_close_channels(srpt_ch_in_tpg, stpg);
	mutex_unlock(&stpg->tport->tpg_mutex);
	pr_info("target port %s: TPG %s %s%s\n", stpg->tport->name,
		config_item_name(&tpg->tpg_group.cg_item),
		enable ? "enabled" : "disabled",
		n ? ", its channels are being closed" : "");
	return 0;
}

/* ---- fabric_statistics/srpt of node ACLs and target ports --------------- */

static inline struct srpt_stats_dir *srpt_item_to_stats_dir(struct config_item *item)
{
	return container_of(to_config_group(item), struct srpt_stats_dir,
			    group);
}

/**
 * srpt_stats_dir_has() - whether a channel counts in a statistics directory
 * @dir: a node ACL's or target port's directory.
 * @ch: listed channel; called with srpt_ch_mutex held.
 *
 * Return: true while the channel has a session (its counters are not yet
 * folded into the totals) of that ACL or target port.
 */
static bool srpt_stats_dir_has(const struct srpt_stats_dir *dir,
			       const struct srpt_rdma_ch *ch)
{
	lockdep_assert_held(&srpt_ch_mutex);
	if (!ch->sess)
		return false;
	if (dir->nacl)
		return ch->sess->se_node_acl == &dir->nacl->nacl;
	return ch->tport == dir->tport;
}

/**
 * srpt_stats_collect() - the counters a statistics directory shows
 * @dir: a node ACL's or target port's directory.
 * @sum: out: its totals plus the counters of its live channels.
 */
static void srpt_stats_collect(struct srpt_stats_dir *dir,
			       struct srpt_stats *sum)
{
	struct srpt_rdma_ch *ch;

	mutex_lock(&srpt_ch_mutex);
	*sum = dir->nacl ? dir->nacl->totals : dir->tport->totals;
	list_for_each_entry(ch, &srpt_ch_list, entry)
		if (srpt_stats_dir_has(dir, ch))
			srpt_ch_stats_add(ch, sum);
	mutex_unlock(&srpt_ch_mutex);
}

/**
 * srpt_stat_show() - one counter, as a decimal number
 * @item: the directory's item.
 * @page: output.
 * @idx: enum srpt_stat.
 *
 * Return: bytes written, or -ENOMEM.
 */
static ssize_t srpt_stat_show(struct config_item *item, char *page,
			      unsigned int idx)
{
	struct srpt_stats *sum;
	ssize_t len;

	sum = srpt_fail(SRPT_FAULT_STATS) ? NULL :
	      kmalloc(sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	srpt_stats_collect(srpt_item_to_stats_dir(item), sum);
	len = sysfs_emit(page, "%llu\n", sum->v[idx]);
	kfree(sum);
	return len;
}

/**
 * srpt_stat_show_table() - counters with names, one "name count" a line
 * @item: the directory's item.
 * @page: output.
 * @idx: enum srpt_stat of the first counter.
 * @names: names of the counters from @idx on, NULL-terminated; NULL for a
 *	latency histogram, whose lines are named by the bucket's lower bound
 *	in microseconds.
 *
 * Return: bytes written, or -ENOMEM.
 */
static ssize_t srpt_stat_show_table(struct config_item *item, char *page,
				    unsigned int idx,
				    const char * const *names)
{
	struct srpt_stats *sum;
	ssize_t len = 0;
	unsigned int i;

	sum = srpt_fail(SRPT_FAULT_STATS) ? NULL :
	      kmalloc(sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	srpt_stats_collect(srpt_item_to_stats_dir(item), sum);
	if (names) {
		for (i = 0; names[i]; i++)
			len += sysfs_emit_at(page, len, "%s %llu\n", names[i],
					     sum->v[idx + i]);
	} else {
		for (i = 0; i < SRPT_LAT_BUCKETS; i++)
			len += sysfs_emit_at(page, len, "%llu %llu\n",
					     i ? 1ULL << (i - 1) : 0ULL,
					     sum->v[idx + i]);
	}
	kfree(sum);
	return len;
}

#define SRPT_STAT_ATTR(name, idx)					\
static ssize_t srpt_stat_##name##_show(struct config_item *item,	\
				       char *page)			\
{									\
	return srpt_stat_show(item, page, idx);				\
}									\
CONFIGFS_ATTR_RO(srpt_stat_, name)

SRPT_STAT_ATTR(logins_accepted, SRPT_STAT_LOGINS_ACCEPTED);
SRPT_STAT_ATTR(cmds_none, SRPT_STAT_CMDS + SRPT_DIR_NONE);
SRPT_STAT_ATTR(cmds_write, SRPT_STAT_CMDS + SRPT_DIR_OUT);
SRPT_STAT_ATTR(cmds_read, SRPT_STAT_CMDS + SRPT_DIR_IN);
SRPT_STAT_ATTR(bytes_in, SRPT_STAT_BYTES_IN);
SRPT_STAT_ATTR(bytes_out, SRPT_STAT_BYTES_OUT);
SRPT_STAT_ATTR(aborted, SRPT_STAT_ABORTED);
SRPT_STAT_ATTR(rdma_errors, SRPT_STAT_RDMA_ERRORS);
SRPT_STAT_ATTR(sq_waits, SRPT_STAT_SQ_WAITS);
SRPT_STAT_ATTR(credit_closures, SRPT_STAT_CREDIT_CLOSURES);

/* The names of the counters by reason, function: those of the trace events. */
static const char * const srpt_rej_names[SRPT_REJ_KINDS + 1] = {
	"UNABLE_ESTABLISH", "NO_RESOURCES", "IT_IU_LEN_TOO_LARGE",
	"UNABLE_ASSOCIATE", "UNSUPPORTED_FMT", "NO_MULTICHANNEL",
	"CHANNEL_LIMIT", NULL,
};

static const char * const srpt_tmf_names[SRPT_TMF_KINDS + 1] = {
	"ABORT_TASK", "ABORT_TASK_SET", "CLEAR_TASK_SET", "LUN_RESET",
	"CLEAR_ACA", "OTHER", NULL,
};

static ssize_t srpt_stat_logins_refused_show(struct config_item *item,
					     char *page)
{
	return srpt_stat_show_table(item, page, SRPT_STAT_LOGINS_REFUSED,
				    srpt_rej_names);
}
CONFIGFS_ATTR_RO(srpt_stat_, logins_refused);

static ssize_t srpt_stat_tmfs_show(struct config_item *item, char *page)
{
	return srpt_stat_show_table(item, page, SRPT_STAT_TMFS,
				    srpt_tmf_names);
}
CONFIGFS_ATTR_RO(srpt_stat_, tmfs);

static ssize_t srpt_stat_latency_read_us_show(struct config_item *item,
					      char *page)
{
	return srpt_stat_show_table(item, page, SRPT_STAT_LAT_READ, NULL);
}
CONFIGFS_ATTR_RO(srpt_stat_, latency_read_us);

static ssize_t srpt_stat_latency_write_us_show(struct config_item *item,
					       char *page)
{
	return srpt_stat_show_table(item, page, SRPT_STAT_LAT_WRITE, NULL);
}
CONFIGFS_ATTR_RO(srpt_stat_, latency_write_us);

/*
 * The per-channel files ("channels", "channels_latency_*_us") hold a line
 * per live channel, more than one page with a few dozen channels: they are
 * configfs binary attributes, which have no page limit.  configfs reads one
 * in two calls, the first (no buffer) for its size, the second to fill a
 * buffer of exactly that size, which the reader then sees whole, so the
 * text is measured the same way it is written (struct srpt_stat_text).
 */

/* The longest line of a per-channel file: the name and 26 bucket pairs. */
#define SRPT_STAT_LINE_MAX	2048
/* The most a per-channel file holds (at least 19,000 channels). */
#define SRPT_STAT_FILE_MAX	SZ_16M

/**
 * struct srpt_stat_text - a per-channel file, written or measured
 * @buf: where whole lines go, or NULL: only measured.
 * @size: bytes @buf holds.
 * @len: bytes of whole lines in @buf (measured, without @buf).
 * @full: a line did not fit in @buf: it and those after it are left out.
 * @n: bytes in @line.
 * @line: the line under way.
 * @c: one channel's counters, summed for its line.
 */
struct srpt_stat_text {
	char			*buf;
	size_t			size;
	size_t			len;
	bool			full;
	size_t			n;
	char			line[SRPT_STAT_LINE_MAX];
	struct srpt_stats	c;
};

/**
 * srpt_stat_text_add() - add to the line under way
 * @t: the file's text.
 * @fmt: printf format.
 */
static __printf(2, 3) void srpt_stat_text_add(struct srpt_stat_text *t,
					      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	t->n += vscnprintf(t->line + t->n, sizeof(t->line) - t->n, fmt, ap);
	va_end(ap);
}

/**
 * srpt_stat_text_end_line() - end the line under way and keep it whole
 * @t: the file's text.
 *
 * The line goes into the buffer if all of it fits, else it and every line
 * after it are left out: the text grew between configfs's two calls (a
 * channel logged in, or a counter gained a digit).
 */
static void srpt_stat_text_end_line(struct srpt_stat_text *t)
{
	srpt_stat_text_add(t, "\n");
	/* Were it cut short at SRPT_STAT_LINE_MAX: still a whole line. */
	t->line[t->n - 1] = '\n';
	if (!t->full) {
		if (!t->buf) {
			t->len += t->n;
		} else if (t->n <= t->size - t->len) {
			memcpy(t->buf + t->len, t->line, t->n);
			t->len += t->n;
		} else {
			t->full = true;
		}
	}
	t->n = 0;
}

/**
 * srpt_stat_text_done() - the size of the text, or of the buffer filled
 * @t: the file's text.
 *
 * A text shorter than its buffer (a channel left between configfs's two
 * calls) fills the rest with blanks before its last newline, so that the
 * reader never sees bytes that were not written.
 *
 * Return: bytes of text (measured) or @t->size (written).
 */
static ssize_t srpt_stat_text_done(struct srpt_stat_text *t)
{
	size_t from;

	if (!t->buf)
		return t->len;
	if (t->len < t->size) {
		from = t->len ? t->len - 1 : 0;
		memset(t->buf + from, ' ', t->size - from);
		t->buf[t->size - 1] = '\n';
	}
	return t->size;
}

/**
 * srpt_stat_text_new() - start a per-channel file's text
 * @buf: configfs's buffer, or NULL when it asks for the size.
 * @size: bytes @buf holds.
 *
 * Return: the text, or NULL (out of memory).
 */
static struct srpt_stat_text *srpt_stat_text_new(void *buf, size_t size)
{
	struct srpt_stat_text *t;

	t = srpt_fail(SRPT_FAULT_STATS) ? NULL : kmalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	t->buf = buf;
	t->size = buf ? size : 0;
	t->len = 0;
	t->full = false;
	t->n = 0;
	return t;
}

/**
 * srpt_stat_channels_read() - read .../fabric_statistics/srpt/channels
 * @item: the directory's item.
 * @buf: output, or NULL to measure.
 * @size: bytes @buf holds.
 *
 * One line per live channel of the ACL or target port: its id and name,
 * then its counters as "name value" pairs (TMFs summed).
 *
 * Return: the text's size, or -ENOMEM.
 */
static ssize_t srpt_stat_channels_read(struct config_item *item, void *buf,
				       size_t size)
{
	struct srpt_stats_dir *dir = srpt_item_to_stats_dir(item);
	struct srpt_stat_text *t = srpt_stat_text_new(buf, size);
	struct srpt_stats *c;
	struct srpt_rdma_ch *ch;
	ssize_t ret;
	u64 tmfs;
	int i;

	if (!t)
		return -ENOMEM;
	c = &t->c;
	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, entry) {
		if (!srpt_stats_dir_has(dir, ch))
			continue;
		memset(c, 0, sizeof(*c));
		srpt_ch_stats_add(ch, c);
		for (tmfs = 0, i = 0; i < SRPT_TMF_KINDS; i++)
			tmfs += c->v[SRPT_STAT_TMFS + i];
		srpt_stat_text_add(t,
				   "ch %u name %s cmds_none %llu cmds_write %llu cmds_read %llu bytes_in %llu bytes_out %llu tmfs %llu aborted %llu rdma_errors %llu sq_waits %llu credit_closures %llu",
				   ch->id, ch->name,
				   c->v[SRPT_STAT_CMDS + SRPT_DIR_NONE],
				   c->v[SRPT_STAT_CMDS + SRPT_DIR_OUT],
				   c->v[SRPT_STAT_CMDS + SRPT_DIR_IN],
				   c->v[SRPT_STAT_BYTES_IN],
				   c->v[SRPT_STAT_BYTES_OUT], tmfs,
				   c->v[SRPT_STAT_ABORTED],
				   c->v[SRPT_STAT_RDMA_ERRORS],
				   c->v[SRPT_STAT_SQ_WAITS],
				   c->v[SRPT_STAT_CREDIT_CLOSURES]);
		srpt_stat_text_end_line(t);
	}
	mutex_unlock(&srpt_ch_mutex);
	ret = srpt_stat_text_done(t);
	kfree(t);
	return ret;
}
CONFIGFS_BIN_ATTR_RO(srpt_stat_, channels, NULL, SRPT_STAT_FILE_MAX);

/**
 * srpt_stat_channels_lat_read() - per-channel latency histograms
 * @item: the directory's item.
 * @buf: output, or NULL to measure.
 * @size: bytes @buf holds.
 * @idx: SRPT_STAT_LAT_READ or SRPT_STAT_LAT_WRITE.
 *
 * One line per live channel of the ACL or target port, in the order of
 * "channels": "ch <number> name <name>", then "B N" for each bucket of the
 * channel's histogram that holds commands, B being the bucket's lower
 * bound in microseconds as in latency_read_us.
 *
 * Return: the text's size, or -ENOMEM.
 */
static ssize_t srpt_stat_channels_lat_read(struct config_item *item,
					   void *buf, size_t size,
					   unsigned int idx)
{
	struct srpt_stats_dir *dir = srpt_item_to_stats_dir(item);
	struct srpt_stat_text *t = srpt_stat_text_new(buf, size);
	struct srpt_stats *c;
	struct srpt_rdma_ch *ch;
	unsigned int i;
	ssize_t ret;

	if (!t)
		return -ENOMEM;
	c = &t->c;
	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, entry) {
		if (!srpt_stats_dir_has(dir, ch))
			continue;
		memset(c, 0, sizeof(*c));
		srpt_ch_stats_add(ch, c);
		srpt_stat_text_add(t, "ch %u name %s", ch->id, ch->name);
		for (i = 0; i < SRPT_LAT_BUCKETS; i++)
			if (c->v[idx + i])
				srpt_stat_text_add(t, " %llu %llu",
						   i ? 1ULL << (i - 1) : 0ULL,
						   c->v[idx + i]);
		srpt_stat_text_end_line(t);
	}
	mutex_unlock(&srpt_ch_mutex);
	ret = srpt_stat_text_done(t);
	kfree(t);
	return ret;
}

static ssize_t srpt_stat_channels_latency_read_us_read(struct config_item *item,
						       void *buf, size_t size)
{
	return srpt_stat_channels_lat_read(item, buf, size,
					   SRPT_STAT_LAT_READ);
}
CONFIGFS_BIN_ATTR_RO(srpt_stat_, channels_latency_read_us, NULL,
		     SRPT_STAT_FILE_MAX);

static ssize_t srpt_stat_channels_latency_write_us_read(struct config_item *item,
							void *buf, size_t size)
{
	return srpt_stat_channels_lat_read(item, buf, size,
					   SRPT_STAT_LAT_WRITE);
}
CONFIGFS_BIN_ATTR_RO(srpt_stat_, channels_latency_write_us, NULL,
		     SRPT_STAT_FILE_MAX);

static struct configfs_bin_attribute *srpt_stat_bin_attrs[] = {
	&srpt_stat_attr_channels,
	&srpt_stat_attr_channels_latency_read_us,
	&srpt_stat_attr_channels_latency_write_us,
	NULL,
};

static struct configfs_attribute *srpt_nacl_stat_attrs[] = {
	&srpt_stat_attr_logins_accepted,
	&srpt_stat_attr_cmds_none,
	&srpt_stat_attr_cmds_write,
	&srpt_stat_attr_cmds_read,
	&srpt_stat_attr_bytes_in,
	&srpt_stat_attr_bytes_out,
	&srpt_stat_attr_tmfs,
	&srpt_stat_attr_aborted,
	&srpt_stat_attr_rdma_errors,
	&srpt_stat_attr_sq_waits,
	&srpt_stat_attr_credit_closures,
	&srpt_stat_attr_latency_read_us,
	&srpt_stat_attr_latency_write_us,
	NULL,
};

static struct configfs_attribute *srpt_tport_stat_attrs[] = {
	&srpt_stat_attr_logins_accepted,
	&srpt_stat_attr_cmds_none,
	&srpt_stat_attr_cmds_write,
	&srpt_stat_attr_cmds_read,
	&srpt_stat_attr_bytes_in,
	&srpt_stat_attr_bytes_out,
	&srpt_stat_attr_tmfs,
	&srpt_stat_attr_aborted,
	&srpt_stat_attr_rdma_errors,
	&srpt_stat_attr_sq_waits,
	&srpt_stat_attr_credit_closures,
	&srpt_stat_attr_latency_read_us,
	&srpt_stat_attr_latency_write_us,
	&srpt_stat_attr_logins_refused,
	NULL,
};

static const struct config_item_type srpt_nacl_stats_cit = {
	.ct_attrs	= srpt_nacl_stat_attrs,
	.ct_bin_attrs	= srpt_stat_bin_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type srpt_tport_stats_cit = {
	.ct_attrs	= srpt_tport_stat_attrs,
	.ct_bin_attrs	= srpt_stat_bin_attrs,
	.ct_owner	= THIS_MODULE,
};

/**
 * srpt_add_tport_stats() - a new target port's fabric_statistics/srpt
 * @tport: the target port, just created.
 */
static void srpt_add_tport_stats(struct srpt_tport *tport)
{
	tport->stats_dir.tport = tport;
	config_group_init_type_name(&tport->stats_dir.group, "srpt",
				    &srpt_tport_stats_cit);
	configfs_add_default_group(&tport->stats_dir.group,
				   &tport->wwn.fabric_stat_group);
}

/**
 * srpt_init_nodeacl() - mkdir .../$tpg/acls/$name
 * @se_nacl: the new node ACL.
 * @name: initiator name (see srpt_parse_initiator_name()).
 *
 * A name in one of the documented forms admits the initiator it stands
 * for.  A name the in-tree driver accepts in none of them (trailing text
 * after a GUID, more than 32 hex digits, two addresses run together, ...)
 * is accepted too, since scripts written for the in-tree driver create
 * such ACLs, but it can admit no login there, nor here: one log line says
 * so and which spelling would admit the initiator it seems to mean.
 * Either way the ACL gets its fabric_statistics/srpt directory.
 *
 * Return: 0 or -EINVAL.
 */
static int srpt_init_nodeacl(struct se_node_acl *se_nacl, const char *name)
{
	struct srpt_nacl *nacl = container_of(se_nacl, struct srpt_nacl, nacl);
	struct srpt_name id;
	const char *what;
	char spelling[48];

	nacl->stats_dir.nacl = nacl;
	config_group_init_type_name(&nacl->stats_dir.group, "srpt",
				    &srpt_nacl_stats_cit);
	configfs_add_default_group(&nacl->stats_dir.group,
				   &se_nacl->acl_fabric_stat_group);

	if (!srpt_parse_initiator_name(name, &id))
		return 0;
	if (srpt_parse_intree_acl_name(name, &id)) {
		pr_err("invalid initiator name '%*pE': use the initiator port GUID (xxxx:xxxx:xxxx:xxxx), the 128-bit initiator port id as 32 hex digits with or without 0x, or an IPv4 or IPv6 address\n",
		       (int)strlen(name), name);
		return -EINVAL;
	}
	switch (id.kind) {
	case SRPT_NAME_GUID:
		what = "port GUID";
		srpt_format_guid_name(spelling, id.id + 8);
		break;
	case SRPT_NAME_PORT_ID:
		what = "initiator port id";
		srpt_format_gid_name(spelling, id.id);
		break;
	case SRPT_NAME_IPV4:
		what = "IPv4 address";
		snprintf(spelling, sizeof(spelling), "%pI4", id.id + 12);
		break;
	default:
		what = "IPv6 address";
		snprintf(spelling, sizeof(spelling), "%pI6c", id.id);
		break;
	}
	pr_warn("node ACL '%*pE' accepted as the in-tree driver accepts it, but no login can match this spelling; it reads as %s %s, which an ACL named %s admits\n",
		(int)strlen(name), name, what, spelling, spelling);
	return 0;
}

static char *srpt_get_fabric_wwn(struct se_portal_group *tpg)
{
	return srpt_se_tpg_to_tpg(tpg)->tport->name;
}

static u16 srpt_get_tag(struct se_portal_group *tpg)
{
	return 1;
}

static u32 srpt_tpg_get_inst_index(struct se_portal_group *tpg)
{
	return 1;
}

static int srpt_check_false(struct se_portal_group *tpg)
{
	return 0;
}

static int srpt_check_true(struct se_portal_group *tpg)
{
	return 1;
}

static u32 srpt_sess_get_index(struct se_session *se_sess)
{
	return 0;
}

static void srpt_set_default_node_attrs(struct se_node_acl *nacl)
{
}

/**
 * srpt_close_session() - LIO ends a session (its node ACL is being removed)
 * @se_sess: the session.
 *
 * The channel is looked up rather than taken from @se_sess, since it may be
 * in its release already.
 */
static void srpt_close_session(struct se_session *se_sess)
{
	srpt_close_channels(srpt_ch_of_session, se_sess);
}

/**
 * srpt_rdma_cm_port_show() - read discovery_auth/rdma_cm_port
 * @item: unused.
 * @page: output.
 *
 * Return: bytes written; 0 means no RDMA/CM listener.
 */
static ssize_t srpt_rdma_cm_port_show(struct config_item *item, char *page)
{
	ssize_t ret;

	mutex_lock(&srpt_listen_mutex);
	ret = sysfs_emit(page, "%u\n", srpt_listen_port);
	mutex_unlock(&srpt_listen_mutex);
	return ret;
}

/**
 * srpt_set_listen_port() - start, move or stop the RDMA/CM listener
 * @port: new port; 0 stops listening.
 *
 * The new listener is created before the old one is destroyed, so a failure
 * leaves the old one working.  Channels of the old listener stay.
 *
 * Return: 0 or a negative errno.
 */
static int srpt_set_listen_port(u16 port)
{
	struct rdma_cm_id *id = NULL, *old;

	mutex_lock(&srpt_listen_mutex);
	if (port && port == srpt_listen_port) {
		mutex_unlock(&srpt_listen_mutex);
		return 0;
	}
	if (port) {
		id = srpt_rdma_cm_listen(port);
		if (IS_ERR(id)) {
			mutex_unlock(&srpt_listen_mutex);
			pr_err("listening for RDMA/CM logins on port %u failed (%ld)\n",
			       port, PTR_ERR(id));
			return PTR_ERR(id);
		}
	}
	old = srpt_listen_id;
	srpt_listen_id = id;
	srpt_listen_port = port;
	mutex_unlock(&srpt_listen_mutex);
	if (old)
		rdma_destroy_id(old);
	if (port)
		pr_info("listening for RDMA/CM logins on port %u\n", port);
	else if (old)
		pr_info("no longer listening for RDMA/CM logins\n");
	return 0;
}

/**
 * srpt_rdma_cm_port_store() - write discovery_auth/rdma_cm_port
 * @item: unused.
 * @page: a port number; 0 stops listening.
 * @count: length of @page.
 *
 * Return: @count or a negative errno.
 */
static ssize_t srpt_rdma_cm_port_store(struct config_item *item,
				       const char *page, size_t count)
{
	u16 port;
	int ret;

	ret = kstrtou16(page, 0, &port);
	if (ret) {
		pr_err("invalid rdma_cm_port '%.*s': must be a port number 0..65535 (0: no listener)\n",
		       (int)min_t(size_t, count, 16), page);
		return ret;
	}
	ret = srpt_set_listen_port(port);
	return ret ? ret : count;
}
CONFIGFS_ATTR(srpt_, rdma_cm_port);

/* The rdma_cm_port module parameter reads the live listener port. */
static int srpt_param_get_cm_port(char *buf, const struct kernel_param *kp)
{
	return srpt_rdma_cm_port_show(NULL, buf);
}

static struct configfs_attribute *srpt_da_attrs[] = {
	&srpt_attr_rdma_cm_port,
	NULL,
};

/*
 * TPG attributes (.../$tpg/attrib/): names, bounds and defaults as in-tree,
 * and parsed as in-tree (kstrtoul: decimal, 0x hex or 0 octal, an optional
 * '+' and one trailing newline).  Sizes apply to logins after the write;
 * use_srq logs out the TPG's channels so that the initiators log back in
 * with the new setting.
 */

/**
 * srpt_tpg_attr_store_u32() - parse and store a bounded TPG attribute
 * @item: the attribute's configfs item.
 * @page: what was written.
 * @count: its length.
 * @name: attribute name, for the log line.
 * @min: smallest accepted value.
 * @max: largest accepted value.
 * @field: selects the attribute inside struct srpt_tpg_attrs.
 *
 * Return: @count or -EINVAL.
 */
static ssize_t srpt_tpg_attr_store_u32(struct config_item *item,
				       const char *page, size_t count,
				       const char *name, u32 min, u32 max,
				       size_t field)
{
	struct srpt_tpg *stpg = srpt_se_tpg_to_tpg(attrib_to_tpg(item));
	unsigned long val;

	if (kstrtoul(page, 0, &val) || val < min || val > max) {
		pr_err("target port %s: invalid %s '%.*s': must be an integer in [%u..%u]\n",
		       stpg->tport->name, name, (int)strcspn(page, "\n"), page,
		       min, max);
		return -EINVAL;
	}
	mutex_lock(&stpg->tport->tpg_mutex);
	*(u32 *)((u8 *)&stpg->attrs + field) = (u32)val;
	mutex_unlock(&stpg->tport->tpg_mutex);
	return count;
}

/**
 * srpt_tpg_attr_show_u32() - show a TPG attribute
 * @item: the attribute's configfs item.
 * @page: output.
 * @field: selects the attribute inside struct srpt_tpg_attrs.
 *
 * Return: bytes written.
 */
static ssize_t srpt_tpg_attr_show_u32(struct config_item *item, char *page,
				      size_t field)
{
	struct srpt_tpg *stpg = srpt_se_tpg_to_tpg(attrib_to_tpg(item));
	u32 val;

	mutex_lock(&stpg->tport->tpg_mutex);
	val = *(u32 *)((u8 *)&stpg->attrs + field);
	mutex_unlock(&stpg->tport->tpg_mutex);
	return sysfs_emit(page, "%u\n", val);
}

static ssize_t srpt_tpg_attrib_srp_max_rdma_size_show(struct config_item *item,
						      char *page)
{
	return srpt_tpg_attr_show_u32(item, page,
				      offsetof(struct srpt_tpg_attrs, max_rdma_size));
}

static ssize_t srpt_tpg_attrib_srp_max_rdma_size_store(struct config_item *item,
						       const char *page, size_t count)
{
	return srpt_tpg_attr_store_u32(item, page, count, "srp_max_rdma_size",
				       SRPT_MIN_MAX_RDMA_SIZE, SRPT_MAX_MAX_RDMA_SIZE,
				       offsetof(struct srpt_tpg_attrs, max_rdma_size));
}
CONFIGFS_ATTR(srpt_tpg_attrib_, srp_max_rdma_size);

static ssize_t srpt_tpg_attrib_srp_max_rsp_size_show(struct config_item *item,
						     char *page)
{
	return srpt_tpg_attr_show_u32(item, page,
				      offsetof(struct srpt_tpg_attrs, max_rsp_size));
}

static ssize_t srpt_tpg_attrib_srp_max_rsp_size_store(struct config_item *item,
						      const char *page, size_t count)
{
	return srpt_tpg_attr_store_u32(item, page, count, "srp_max_rsp_size",
				       SRPT_MIN_MAX_RSP_SIZE, SRPT_MAX_MAX_RSP_SIZE,
				       offsetof(struct srpt_tpg_attrs, max_rsp_size));
}
CONFIGFS_ATTR(srpt_tpg_attrib_, srp_max_rsp_size);

static ssize_t srpt_tpg_attrib_srp_sq_size_show(struct config_item *item,
						char *page)
{
	return srpt_tpg_attr_show_u32(item, page,
				      offsetof(struct srpt_tpg_attrs, sq_size));
}

static ssize_t srpt_tpg_attrib_srp_sq_size_store(struct config_item *item,
						 const char *page, size_t count)
{
	return srpt_tpg_attr_store_u32(item, page, count, "srp_sq_size",
				       SRPT_MIN_SQ_ATTR, SRPT_MAX_SQ_SIZE,
				       offsetof(struct srpt_tpg_attrs, sq_size));
}
CONFIGFS_ATTR(srpt_tpg_attrib_, srp_sq_size);

static ssize_t srpt_tpg_attrib_use_srq_show(struct config_item *item,
					    char *page)
{
	struct srpt_tpg *stpg = srpt_se_tpg_to_tpg(attrib_to_tpg(item));
	bool val;

	mutex_lock(&stpg->tport->tpg_mutex);
	val = stpg->attrs.use_srq;
	mutex_unlock(&stpg->tport->tpg_mutex);
	return sysfs_emit(page, "%d\n", val);
}

/**
 * srpt_tpg_attrib_use_srq_store() - write 0 or 1 to .../attrib/use_srq
 * @item: the attribute's configfs item.
 * @page: what was written.
 * @count: its length.
 *
 * A change closes the TPG's channels: each initiator logs in again and its
 * new channels receive as the attribute now says.
 *
 * Return: @count, the error of kstrtoul() for text that is no number (as
 * in-tree), or -EINVAL for a number other than 0 and 1.
 */
static ssize_t srpt_tpg_attrib_use_srq_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct srpt_tpg *stpg = srpt_se_tpg_to_tpg(attrib_to_tpg(item));
	unsigned long val;
	bool changed;
	int n = 0;
	int ret;

	ret = kstrtoul(page, 0, &val);
	if (ret || val > 1) {
		pr_err("target port %s: invalid use_srq '%.*s': must be 0 or 1\n",
		       stpg->tport->name, (int)strcspn(page, "\n"), page);
		return ret ? ret : -EINVAL;
	}
	mutex_lock(&stpg->tport->tpg_mutex);
	changed = stpg->attrs.use_srq != val;
	stpg->attrs.use_srq = val;
	if (changed)
		n = srpt_close_channels(srpt_ch_in_tpg, stpg);
	mutex_unlock(&stpg->tport->tpg_mutex);
	if (changed)
		pr_info("target port %s: TPG %s: use_srq %lu%s\n",
			stpg->tport->name,
			config_item_name(&stpg->tpg.tpg_group.cg_item), val,
			n ? ", its channels are being closed" : "");
	return count;
}
CONFIGFS_ATTR(srpt_tpg_attrib_, use_srq);

static struct configfs_attribute *srpt_tpg_attrib_attrs[] = {
	&srpt_tpg_attrib_attr_srp_max_rdma_size,
	&srpt_tpg_attrib_attr_srp_max_rsp_size,
	&srpt_tpg_attrib_attr_srp_sq_size,
	&srpt_tpg_attrib_attr_use_srq,
	NULL,
};

/*
 * .../$tpg/login_info: what an initiator writes to ib_srp's add_target to
 * log in to the TPG's target port, one line per way in (srpt_login_info.h
 * has the formats).  LIO gives the target port directory itself no
 * attributes of a fabric's own, so the file is in each TPG; the strings
 * are those of the port and the same in each.
 */

/**
 * srpt_login_info_ib_cm() - the IB CM login string of a port
 * @li: page being written.
 * @sport: the port.
 *
 * One line when the device listens for IB CM logins (InfiniBand and RoCE)
 * and the port has a GID: dgid is GID 0, pkey the P_Key at index 0, and
 * id_ext, ioc_guid and service_id are srpt_service_guid, as the Device
 * Management agent reports them.  Caller holds srpt_dev_mutex.
 */
static void srpt_login_info_ib_cm(struct srpt_login_info *li,
				  struct srpt_port *sport)
{
	struct ib_device *dev = sport->sdev->device;
	u16 pkey;

	lockdep_assert_held(&srpt_dev_mutex);
	if (!READ_ONCE(sport->sdev->cm_id) ||
	    !rdma_cap_ib_cm(dev, sport->port_num) ||
	    !memchr_inv(sport->gid, 0, sizeof(sport->gid)) ||
	    ib_get_cached_pkey(dev, sport->port_num, 0, &pkey))
		return;
	srpt_login_add_ib_cm(li, srpt_service_guid, srpt_service_guid,
			     sport->gid, pkey, srpt_service_guid);
}

/**
 * srpt_port_netdev_rcu() - the network interface of a port's IP addresses
 * @sport: the port.
 * @gid_ndev: netdev of the port's GID 0 (RoCE), or NULL.
 *
 * RoCE: the netdev of GID 0.  InfiniBand: the IPoIB interface whose
 * hardware address holds the port's GID (bytes 4..19), as the RDMA/CM
 * resolves an address to a port.  Only interfaces of the initial network
 * namespace count: the RDMA/CM listener is there.  Caller holds
 * rcu_read_lock() and srpt_dev_mutex.
 *
 * Return: the netdev (valid until rcu_read_unlock()), or NULL.
 */
static struct net_device *srpt_port_netdev_rcu(struct srpt_port *sport,
					       struct net_device *gid_ndev)
{
	struct net_device *ndev = gid_ndev;

	if (!ndev && rdma_protocol_ib(sport->sdev->device, sport->port_num)) {
		for_each_netdev_rcu(&init_net, ndev) {
			if (ndev->type == ARPHRD_INFINIBAND &&
			    ndev->addr_len == INFINIBAND_ALEN &&
			    !memcmp(ndev->dev_addr + 4, sport->gid, 16))
				return ndev;
		}
		return NULL;
	}
	if (ndev && !net_eq(dev_net(ndev), &init_net))
		return NULL;
	return ndev;
}

/**
 * srpt_login_info_rdma_cm() - the RDMA/CM login strings of a port
 * @li: page being written.
 * @sport: the port.
 * @cm_port: the port the RDMA/CM listener is on (not 0).
 *
 * One line per IPv4 address, then one per IPv6 address of the port's
 * network interface (srpt_port_netdev_rcu()), in the interface's order.
 * IPv6 link-local addresses are left out: their zone is an interface of
 * the initiator's, which the target cannot know.  So are IPv6 addresses
 * still tentative or that failed duplicate address detection.  id_ext and
 * ioc_guid are srpt_service_guid.  Caller holds srpt_dev_mutex.
 */
static void srpt_login_info_rdma_cm(struct srpt_login_info *li,
				    struct srpt_port *sport, u16 cm_port)
{
	const struct ib_gid_attr *attr;
	struct net_device *gid_ndev = NULL, *ndev;
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	char addr[INET6_ADDRSTRLEN];

	lockdep_assert_held(&srpt_dev_mutex);
	attr = rdma_get_gid_attr(sport->sdev->device, sport->port_num, 0);
	rcu_read_lock();
	if (!IS_ERR(attr)) {
		gid_ndev = rdma_read_gid_attr_ndev_rcu(attr);
		if (IS_ERR(gid_ndev))
			gid_ndev = NULL;
	}
	ndev = srpt_port_netdev_rcu(sport, gid_ndev);
	if (!ndev)
		goto unlock;
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			snprintf(addr, sizeof(addr), "%pI4", &ifa->ifa_local);
			srpt_login_add_rdma_cm(li, srpt_service_guid,
					       srpt_service_guid, addr, false,
					       cm_port);
		}
	}
#if IS_ENABLED(CONFIG_IPV6)
	{
		const struct inet6_ifaddr *ifp;
		struct inet6_dev *in6_dev = __in6_dev_get(ndev);

		if (!in6_dev)
			goto unlock;
		list_for_each_entry_rcu(ifp, &in6_dev->addr_list, if_list) {
			if ((ipv6_addr_type(&ifp->addr) &
			     IPV6_ADDR_LINKLOCAL) ||
			    (READ_ONCE(ifp->flags) &
			     (IFA_F_TENTATIVE | IFA_F_DADFAILED)))
				continue;
			snprintf(addr, sizeof(addr), "%pI6c", &ifp->addr);
			srpt_login_add_rdma_cm(li, srpt_service_guid,
					       srpt_service_guid, addr, true,
					       cm_port);
		}
	}
#endif
unlock:
	rcu_read_unlock();
	if (!IS_ERR(attr))
		rdma_put_gid_attr(attr);
}

/**
 * srpt_tpg_login_info_show() - read .../$tpg/login_info
 * @item: the TPG's configfs item.
 * @page: output, one page.
 *
 * The login strings of the target port, one per line, nothing else: the
 * IB CM string (srpt_login_info_ib_cm()), then one RDMA/CM string per
 * address (srpt_login_info_rdma_cm()) while an RDMA/CM listener runs
 * (discovery_auth/rdma_cm_port not 0).  Empty while the target port is
 * not bound to an RDMA port.  Only whole lines: those that do not fit in
 * the page are left out, and a warning says how many.
 *
 * Return: bytes written.
 */
static ssize_t srpt_tpg_login_info_show(struct config_item *item, char *page)
{
	struct se_portal_group *se_tpg = container_of(to_config_group(item),
						      struct se_portal_group,
						      tpg_group);
	struct srpt_tport *tport = srpt_se_tpg_to_tpg(se_tpg)->tport;
	struct srpt_login_info li;
	struct srpt_port *sport;
	u16 cm_port;

	srpt_login_info_init(&li, page, PAGE_SIZE);

	mutex_lock(&srpt_listen_mutex);
	cm_port = srpt_listen_port;
	mutex_unlock(&srpt_listen_mutex);

	mutex_lock(&srpt_dev_mutex);
	sport = tport->sport;
	if (sport) {
		srpt_login_info_ib_cm(&li, sport);
		if (cm_port)
			srpt_login_info_rdma_cm(&li, sport, cm_port);
	}
	mutex_unlock(&srpt_dev_mutex);

	if (li.left_out)
		pr_warn_ratelimited("target port %s: login_info left out %u login strings that did not fit in a page\n",
				    tport->name, li.left_out);
	return li.len;
}
CONFIGFS_ATTR_RO(srpt_tpg_, login_info);

static struct configfs_attribute *srpt_tpg_base_attrs[] = {
	&srpt_tpg_attr_login_info,
	NULL,
};

/**
 * srpt_ch_state_name() - a channel state as LIO's connection states name it
 * @state: enum srpt_ch_state.
 *
 * rtslib-fb (targetcli "sessions") parses TARG_CONN_STATE_* words.
 *
 * Return: a constant string.
 */
static const char *srpt_ch_state_name(enum srpt_ch_state state)
{
	switch (state) {
	case SRPT_CH_CONNECTING:
		return "TARG_CONN_STATE_IN_LOGIN";
	case SRPT_CH_LIVE:
		return "TARG_CONN_STATE_LOGGED_IN";
	case SRPT_CH_DISCONNECTING:
		return "TARG_CONN_STATE_IN_LOGOUT";
	default:
		return "TARG_CONN_STATE_CLEANUP_WAIT";
	}
}

/**
 * srpt_nacl_info_show() - read .../acls/$name/info: the ACL's live channels
 * @item: the node ACL's configfs item.
 * @page: output, one page.
 *
 * The layout is the one iSCSI's node ACLs have, which rtslib-fb parses for
 * targetcli's "sessions" command: the channels of the ACL form one session
 * (its id is that of the oldest channel), each channel a connection with
 * its id (the QP number), state and address; a line per channel adds
 * the SRP details.  "No active SRP session" when there is no channel.
 *
 * Return: bytes written.
 */
static ssize_t srpt_nacl_info_show(struct config_item *item, char *page)
{
	struct se_node_acl *nacl = container_of(to_config_group(item),
						struct se_node_acl, acl_group);
	struct srpt_rdma_ch *ch;
	bool first = true;
	ssize_t len = 0;

	mutex_lock(&srpt_ch_mutex);
	list_for_each_entry(ch, &srpt_ch_list, entry) {
		bool ib = ch->cm_ops == &srpt_ib_cm_ops;

		/* Logins not yet answered are not sessions yet. */
		if (!ch->sess || ch->sess->se_node_acl != nacl ||
		    READ_ONCE(ch->login_busy))
			continue;
		if (first) {
			len += sysfs_emit_at(page, len,
					     "InitiatorName: %s\nInitiatorAlias: %016llx%016llx\nLIO Session ID: %u  SessionType: Normal\nSession State: TARG_SESS_STATE_LOGGED_IN\n---------------------[SRP Channels]---------------------\n",
					     nacl->initiatorname,
					     srpt_get_be64(ch->i_port_id),
					     srpt_get_be64(ch->i_port_id + 8),
					     ch->id);
			first = false;
		}
		len += sysfs_emit_at(page, len,
				     "CID: %u  Connection State: %s\n",
				     ch->qp_num,
				     srpt_ch_state_name(READ_ONCE(ch->state)));
		if (ib)
			len += sysfs_emit_at(page, len,
					     "   Address %016llx%016llx IB_CM\n",
					     srpt_get_be64(ch->i_port_id),
					     srpt_get_be64(ch->i_port_id + 8));
		else
			len += sysfs_emit_at(page, len,
					     "   Address %pISc RDMA_CM\n",
					     &ch->peer);
		len += sysfs_emit_at(page, len,
				     "   channel %s on %s port %u, target port %s: %u credits owed, %d commands in progress, IU %u/%u bytes, send queue %u (full %u times), %s\n",
				     ch->name,
				     dev_name(&ch->sport->sdev->device->dev),
				     ch->sport->port_num, ch->tport->name,
				     atomic_read(&ch->credits),
				     atomic_read(&ch->cmds_in_use),
				     ch->max_it_iu_len, ch->max_ti_iu_len,
				     ch->sq_size, READ_ONCE(ch->sq_waits),
				     ch->srq ? "shared receive queue" :
				     "own receive ring");
	}
	mutex_unlock(&srpt_ch_mutex);
	if (first)
		len = sysfs_emit(page, "No active SRP session\n");
	return len;
}
CONFIGFS_ATTR_RO(srpt_nacl_, info);

static struct configfs_attribute *srpt_nacl_attrs[] = {
	&srpt_nacl_attr_info,
	NULL,
};

/*
 * .../acls/$name/auth/authenticate_target: SRP logins carry no
 * authentication, so always 0.  targetcli-fb's "sessions detail" reads it
 * (and fails without it).
 */
static ssize_t srpt_nacl_auth_authenticate_target_show(struct config_item *item,
						       char *page)
{
	return sysfs_emit(page, "0\n");
}
CONFIGFS_ATTR_RO(srpt_nacl_auth_, authenticate_target);

static struct configfs_attribute *srpt_nacl_auth_attrs[] = {
	&srpt_nacl_auth_attr_authenticate_target,
	NULL,
};

/**
 * srpt_tport_info_status_show() - read .../$name/info/status
 * @item: the target port's info group.
 * @page: output, one page.
 *
 * "bound to DEVICE port N" while an RDMA port carries the target port's
 * name; "waiting for an RDMA port with GID|port GUID NAME" while none does
 * (a configuration restored before its RDMA device exists, a device
 * removed, a GID changed): logins are refused then, and the target port
 * is bound as soon as such a port appears.
 *
 * Return: bytes written.
 */
static ssize_t srpt_tport_info_status_show(struct config_item *item,
					   char *page)
{
	struct srpt_tport *tport = container_of(to_config_group(item),
						struct srpt_tport, info_group);
	struct srpt_port *sport;
	ssize_t len;

	mutex_lock(&srpt_dev_mutex);
	sport = tport->sport;
	if (sport)
		len = sysfs_emit(page, "bound to %s port %u\n",
				 dev_name(&sport->sdev->device->dev),
				 sport->port_num);
	else
		len = sysfs_emit(page, "waiting for an RDMA port with %s %s\n",
				 tport->id.kind == SRPT_NAME_GUID ?
				 "port GUID" : "GID", tport->name);
	mutex_unlock(&srpt_dev_mutex);
	return len;
}
CONFIGFS_ATTR_RO(srpt_tport_info_, status);

static struct configfs_attribute *srpt_tport_info_attrs[] = {
	&srpt_tport_info_attr_status,
	NULL,
};

static const struct config_item_type srpt_tport_info_type = {
	.ct_attrs	= srpt_tport_info_attrs,
	.ct_owner	= THIS_MODULE,
};

/**
 * srpt_add_tport_groups() - the driver's directories below a target port
 * @wwn: the target port LIO just set up.
 *
 * Adds .../$name/info, whose status says whether the target port is bound
 * to an RDMA port or waits for one, and .../$name/fabric_statistics/srpt,
 * the transport counters.  LIO removes both with the target port's other
 * default groups.
 */
static void srpt_add_tport_groups(struct se_wwn *wwn)
{
	struct srpt_tport *tport = srpt_wwn_to_tport(wwn);

	config_group_init_type_name(&tport->info_group, "info",
				    &srpt_tport_info_type);
	configfs_add_default_group(&tport->info_group, &wwn->wwn_group);
	srpt_add_tport_stats(tport);
}

static ssize_t srpt_wwn_version_show(struct config_item *item, char *buf)
{
	return sysfs_emit(buf, "%s\n", SRPT_DRV_VERSION);
}
CONFIGFS_ATTR_RO(srpt_wwn_, version);

static struct configfs_attribute *srpt_wwn_attrs[] = {
	&srpt_wwn_attr_version,
	NULL,
};

static const struct target_core_fabric_ops srpt_template = {
	.module				= THIS_MODULE,
	.fabric_name			= "srpt",
	.node_acl_size			= sizeof(struct srpt_nacl),
	.tpg_get_wwn			= srpt_get_fabric_wwn,
	.tpg_get_tag			= srpt_get_tag,
	.tpg_check_demo_mode		= srpt_check_false,
	.tpg_check_demo_mode_cache	= srpt_check_true,
	.tpg_check_demo_mode_write_protect = srpt_check_true,
	.tpg_check_prod_mode_write_protect = srpt_check_false,
	.tpg_get_inst_index		= srpt_tpg_get_inst_index,
	.release_cmd			= srpt_release_cmd,
	.check_stop_free		= srpt_check_stop_free,
	.close_session			= srpt_close_session,
	.sess_get_index			= srpt_sess_get_index,
	.write_pending			= srpt_write_pending,
	.set_default_node_attributes	= srpt_set_default_node_attrs,
	.get_cmd_state			= srpt_get_cmd_state,
	.queue_data_in			= srpt_queue_data_in,
	.queue_status			= srpt_queue_status,
	.queue_tm_rsp			= srpt_queue_tm_rsp,
	.aborted_task			= srpt_aborted_task,
	.fabric_make_wwn		= srpt_make_tport,
	.fabric_drop_wwn		= srpt_drop_tport,
	.add_wwn_groups			= srpt_add_tport_groups,
	.fabric_make_tpg		= srpt_make_tpg,
	.fabric_enable_tpg		= srpt_enable_tpg,
	.fabric_drop_tpg		= srpt_drop_tpg,
	.fabric_init_nodeacl		= srpt_init_nodeacl,
	.tfc_discovery_attrs		= srpt_da_attrs,
	.tfc_wwn_attrs			= srpt_wwn_attrs,
	.tfc_tpg_base_attrs		= srpt_tpg_base_attrs,
	.tfc_tpg_attrib_attrs		= srpt_tpg_attrib_attrs,
	.tfc_tpg_nacl_base_attrs	= srpt_nacl_attrs,
	.tfc_tpg_nacl_auth_attrs	= srpt_nacl_auth_attrs,
	SRPT_FABRIC_OPS_SUBMIT
	SRPT_FABRIC_OPS_COMPL
};

/* ======================================================================== */
/* 9. Module init and exit                                                  */
/* ======================================================================== */

/**
 * srpt_init_module() - register with the LIO core, then with the RDMA core
 *
 * LIO first: srpt_add_one() may bind configured target ports, so the fabric
 * must exist before the first device is added.
 *
 * Return: 0 or a negative errno.
 */
static int __init srpt_init_module(void)
{
	int ret;

	srp_max_req_size = min_t(u32, (u32)srp_max_req_size_param,
				 SRPT_MAX_MAX_REQ_SIZE);
	if (srp_max_req_size != (u32)srp_max_req_size_param)
		pr_warn("srp_max_req_size %d (%u bytes) is more than this driver supports: requests of up to %u bytes are accepted\n",
			srp_max_req_size_param, (u32)srp_max_req_size_param,
			srp_max_req_size);

	srpt_wq = srpt_fail(SRPT_FAULT_WQ) ? NULL :
		  alloc_workqueue("srpt", WQ_MEM_RECLAIM | SRPT_WQ_PERCPU, 0);
	if (!srpt_wq)
		return -ENOMEM;
	srpt_release_wq = srpt_fail(SRPT_FAULT_RELEASE_WQ) ? NULL :
			  alloc_workqueue("srpt_release", WQ_UNBOUND, 0);
	if (!srpt_release_wq) {
		ret = -ENOMEM;
		goto destroy_wq;
	}

	ret = srpt_fail(SRPT_FAULT_TEMPLATE) ? -ENOMEM :
	      target_register_template(&srpt_template);
	if (ret) {
		pr_err("registering the srpt fabric with LIO failed (%d)\n",
		       ret);
		goto destroy_release_wq;
	}

	srpt_debugfs_init();
	ret = srpt_fail(SRPT_FAULT_IB_CLIENT) ? -ENOMEM :
	      ib_register_client(&srpt_client);
	if (ret) {
		pr_err("registering the IB client failed (%d)\n", ret);
		goto remove_debugfs;
	}

	if (srpt_set_listen_port(srpt_rdma_cm_port_param))
		pr_err("rdma_cm_port %u ignored: loaded without an RDMA/CM listener\n",
		       srpt_rdma_cm_port_param);

	pr_info("version %s loaded (srp_max_req_size %u, srpt_srq_size %d)\n",
		SRPT_DRV_VERSION, srp_max_req_size, srpt_srq_size);
	return 0;

remove_debugfs:
	srpt_debugfs_exit();
	target_unregister_template(&srpt_template);
destroy_release_wq:
	destroy_workqueue(srpt_release_wq);
destroy_wq:
	destroy_workqueue(srpt_wq);
	return ret;
}

/**
 * srpt_cleanup_module() - undo srpt_init_module()
 *
 * configfs holds a module reference while any srpt object exists, so no
 * session is left; the RDMA/CM listener may be.
 */
static void __exit srpt_cleanup_module(void)
{
	mutex_lock(&srpt_listen_mutex);
	if (srpt_listen_id)
		rdma_destroy_id(srpt_listen_id);
	srpt_listen_id = NULL;
	srpt_listen_port = 0;
	mutex_unlock(&srpt_listen_mutex);
	ib_unregister_client(&srpt_client);
	srpt_debugfs_exit();
	target_unregister_template(&srpt_template);
	destroy_workqueue(srpt_release_wq);
	destroy_workqueue(srpt_wq);
	WARN_ON_ONCE(!list_empty(&srpt_tport_list));
	WARN_ON_ONCE(!list_empty(&srpt_ch_list));
	pr_info("unloaded\n");
}

module_init(srpt_init_module);
module_exit(srpt_cleanup_module);
