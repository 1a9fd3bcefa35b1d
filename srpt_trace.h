/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_srpt: trace events (system "ib_srpt"), for tracefs, trace-cmd, perf
 * and bpftrace.  Documentation/srpt.rst ("Tracing") lists them with their
 * fields.
 *
 * Every event records values: ids and names are copied into fixed arrays
 * (a channel's name may be rewritten while its login runs, and
 * __assign_str() changed its arguments in 6.10), never pointers a reader
 * would follow later.  Whatever an event derives (the LUN number, the
 * sense key, a status text) is derived in TP_fast_assign(), so a disabled
 * event costs its static branch and nothing else.
 *
 * Included once with CREATE_TRACE_POINTS from ib_srpt.c; the Makefile adds
 * -I$(src), so that define_trace.h finds this file in and out of tree.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ib_srpt

#if !defined(SRPT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SRPT_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>
#include <scsi/scsi_common.h>

#include "ib_srpt.h"

/* Longest ib_wc_status_msg() text ("transport retry counter exceeded"). */
#define SRPT_TRACE_WC_MSG_LEN	40
/* Longest login reject cause the login path names. */
#define SRPT_TRACE_WHY_LEN	64

TRACE_DEFINE_ENUM(SRPT_CH_CONNECTING);
TRACE_DEFINE_ENUM(SRPT_CH_LIVE);
TRACE_DEFINE_ENUM(SRPT_CH_DISCONNECTING);
TRACE_DEFINE_ENUM(SRPT_CH_DRAINING);
#define show_srpt_ch_state(s)					\
	__print_symbolic(s,					\
		{ SRPT_CH_CONNECTING,		"connecting" },	\
		{ SRPT_CH_LIVE,			"live" },	\
		{ SRPT_CH_DISCONNECTING,	"disconnecting" }, \
		{ SRPT_CH_DRAINING,		"draining" })

TRACE_DEFINE_ENUM(SRPT_DIR_NONE);
TRACE_DEFINE_ENUM(SRPT_DIR_OUT);
TRACE_DEFINE_ENUM(SRPT_DIR_IN);
#define show_srpt_dir(d)					\
	__print_symbolic(d,					\
		{ SRPT_DIR_NONE,	"none" },		\
		{ SRPT_DIR_OUT,		"write" },		\
		{ SRPT_DIR_IN,		"read" })

TRACE_DEFINE_ENUM(SRPT_DESC_NONE);
TRACE_DEFINE_ENUM(SRPT_DESC_DIRECT);
TRACE_DEFINE_ENUM(SRPT_DESC_INDIRECT);
TRACE_DEFINE_ENUM(SRPT_DESC_IMM);
#define show_srpt_fmt(f)					\
	__print_symbolic(f,					\
		{ SRPT_DESC_NONE,	"none" },		\
		{ SRPT_DESC_DIRECT,	"direct" },		\
		{ SRPT_DESC_INDIRECT,	"indirect" },		\
		{ SRPT_DESC_IMM,	"immediate" })

TRACE_DEFINE_ENUM(SRPT_TMF_ABORT_TASK);
TRACE_DEFINE_ENUM(SRPT_TMF_ABORT_TASK_SET);
TRACE_DEFINE_ENUM(SRPT_TMF_CLEAR_TASK_SET);
TRACE_DEFINE_ENUM(SRPT_TMF_LUN_RESET);
TRACE_DEFINE_ENUM(SRPT_TMF_CLEAR_ACA);
#define show_srpt_tmf(f)					\
	__print_symbolic(f,					\
		{ SRPT_TMF_ABORT_TASK,		"ABORT_TASK" },	\
		{ SRPT_TMF_ABORT_TASK_SET,	"ABORT_TASK_SET" }, \
		{ SRPT_TMF_CLEAR_TASK_SET,	"CLEAR_TASK_SET" }, \
		{ SRPT_TMF_LUN_RESET,		"LUN_RESET" },	\
		{ SRPT_TMF_CLEAR_ACA,		"CLEAR_ACA" })

TRACE_DEFINE_ENUM(SRPT_REJ_UNABLE_ESTABLISH);
TRACE_DEFINE_ENUM(SRPT_REJ_NO_RESOURCES);
TRACE_DEFINE_ENUM(SRPT_REJ_IT_IU_LEN_TOO_LARGE);
TRACE_DEFINE_ENUM(SRPT_REJ_UNABLE_ASSOCIATE);
TRACE_DEFINE_ENUM(SRPT_REJ_UNSUPPORTED_FMT);
TRACE_DEFINE_ENUM(SRPT_REJ_NO_MULTICHANNEL);
TRACE_DEFINE_ENUM(SRPT_REJ_CHANNEL_LIMIT);
#define show_srpt_rej(r)					\
	__print_symbolic(r,					\
		{ SRPT_REJ_UNABLE_ESTABLISH,	"UNABLE_ESTABLISH" }, \
		{ SRPT_REJ_NO_RESOURCES,	"NO_RESOURCES" }, \
		{ SRPT_REJ_IT_IU_LEN_TOO_LARGE,	"IT_IU_LEN_TOO_LARGE" }, \
		{ SRPT_REJ_UNABLE_ASSOCIATE,	"UNABLE_ASSOCIATE" }, \
		{ SRPT_REJ_UNSUPPORTED_FMT,	"UNSUPPORTED_FMT" }, \
		{ SRPT_REJ_NO_MULTICHANNEL,	"NO_MULTICHANNEL" }, \
		{ SRPT_REJ_CHANNEL_LIMIT,	"CHANNEL_LIMIT" })

TRACE_DEFINE_ENUM(SRPT_SQ_TABLE);
TRACE_DEFINE_ENUM(SRPT_SQ_DATA_OUT);
TRACE_DEFINE_ENUM(SRPT_SQ_RSP);
#define show_srpt_sq_op(o)					\
	__print_symbolic(o,					\
		{ SRPT_SQ_TABLE,	"table" },		\
		{ SRPT_SQ_DATA_OUT,	"data-out" },		\
		{ SRPT_SQ_RSP,		"response" })

/* What a failed work completion was for (srpt_wc_error). */
#define SRPT_TRACE_WC_RECV	0
#define SRPT_TRACE_WC_RDMA	1
#define SRPT_TRACE_WC_SEND	2
#define show_srpt_wc_kind(k)					\
	__print_symbolic(k,					\
		{ SRPT_TRACE_WC_RECV,	"receive" },		\
		{ SRPT_TRACE_WC_RDMA,	"rdma-read" },		\
		{ SRPT_TRACE_WC_SEND,	"send" })

#define show_scsi_status(s)					\
	__print_symbolic(s,					\
		{ 0x00,	"GOOD" },				\
		{ 0x02,	"CHECK_CONDITION" },			\
		{ 0x04,	"CONDITION_MET" },			\
		{ 0x08,	"BUSY" },				\
		{ 0x18,	"RESERVATION_CONFLICT" },		\
		{ 0x28,	"TASK_SET_FULL" },			\
		{ 0x30,	"ACA_ACTIVE" },				\
		{ 0x40,	"TASK_ABORTED" })

/*
 * srpt_login_accepted: a login was answered with SRP_LOGIN_RSP
 *
 * Traced once the REP (IB CM) or the accept (RDMA/CM) went out.  The ids
 * are the 16-byte initiator and target port ids of the request.
 */
TRACE_EVENT(srpt_login_accepted,
	TP_PROTO(const struct srpt_rdma_ch *ch),
	TP_ARGS(ch),
	TP_STRUCT__entry(
		__field(u32, ch_id)
		__field(u32, qp_num)
		__array(char, name, sizeof_field(struct srpt_rdma_ch, name))
		__array(char, tport, SRPT_GID_NAME_LEN)
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__field(u32, port)
		__array(char, transport, 8)
		__array(u8, i_port_id, 16)
		__array(u8, t_port_id, 16)
		__field(u32, max_it_iu_len)
		__field(u32, max_ti_iu_len)
		__field(u32, credits)
		__field(u32, sq_size)
		__field(u16, imm_data_offset)
		__field(bool, srq)
	),
	TP_fast_assign(
		__entry->ch_id = ch->id;
		__entry->qp_num = ch->qp_num;
		strscpy(__entry->name, ch->name, sizeof(__entry->name));
		strscpy(__entry->tport, ch->tport ? ch->tport->name : "",
			sizeof(__entry->tport));
		strscpy(__entry->dev, dev_name(&ch->sport->sdev->device->dev),
			sizeof(__entry->dev));
		__entry->port = ch->sport->port_num;
		strscpy(__entry->transport, ch->cm_ops->name,
			sizeof(__entry->transport));
		memcpy(__entry->i_port_id, ch->i_port_id, 16);
		memcpy(__entry->t_port_id, ch->t_port_id, 16);
		__entry->max_it_iu_len = ch->max_it_iu_len;
		__entry->max_ti_iu_len = ch->max_ti_iu_len;
		__entry->credits = ch->rq_size - SRPT_RSVD_RECVS;
		__entry->sq_size = ch->sq_size;
		__entry->imm_data_offset = ch->imm_data_offset;
		__entry->srq = !!ch->srq;
	),
	TP_printk("ch %u %s qp %u: %s login on %s port %u to %s: initiator 0x%s target 0x%s; IU %u/%u, %u credits, sq %u, imm %u, srq %d",
		  __entry->ch_id, __entry->name, __entry->qp_num,
		  __entry->transport, __entry->dev, __entry->port,
		  __entry->tport,
		  __print_hex_str(__entry->i_port_id, 16),
		  __print_hex_str(__entry->t_port_id, 16),
		  __entry->max_it_iu_len, __entry->max_ti_iu_len,
		  __entry->credits, __entry->sq_size,
		  __entry->imm_data_offset, __entry->srq)
);

/*
 * srpt_login_rejected: a login was answered with SRP_LOGIN_REJ
 *
 * @reason is the SRP reason code sent (SRPT_REJ_*), @why what made the
 * driver send it.  The port ids are zero when the request could not be
 * parsed.
 */
TRACE_EVENT(srpt_login_rejected,
	TP_PROTO(const char *transport, const struct ib_device *dev, u32 port,
		 const char *peer, const u8 *i_port_id, const u8 *t_port_id,
		 u32 reason, const char *why),
	TP_ARGS(transport, dev, port, peer, i_port_id, t_port_id, reason, why),
	TP_STRUCT__entry(
		__array(char, transport, 8)
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__field(u32, port)
		__array(char, peer, 64)
		__array(u8, i_port_id, 16)
		__array(u8, t_port_id, 16)
		__field(u32, reason)
		__array(char, why, SRPT_TRACE_WHY_LEN)
	),
	TP_fast_assign(
		strscpy(__entry->transport, transport,
			sizeof(__entry->transport));
		strscpy(__entry->dev, dev ? dev_name(&dev->dev) : "",
			sizeof(__entry->dev));
		__entry->port = port;
		strscpy(__entry->peer, peer ? peer : "", sizeof(__entry->peer));
		if (i_port_id)
			memcpy(__entry->i_port_id, i_port_id, 16);
		else
			memset(__entry->i_port_id, 0, 16);
		if (t_port_id)
			memcpy(__entry->t_port_id, t_port_id, 16);
		else
			memset(__entry->t_port_id, 0, 16);
		__entry->reason = reason;
		strscpy(__entry->why, why, sizeof(__entry->why));
	),
	TP_printk("%s login on %s port %u from %s rejected: reason 0x%08x %s (%s); initiator 0x%s target 0x%s",
		  __entry->transport, __entry->dev, __entry->port,
		  __entry->peer, __entry->reason,
		  show_srpt_rej(__entry->reason), __entry->why,
		  __print_hex_str(__entry->i_port_id, 16),
		  __print_hex_str(__entry->t_port_id, 16))
);

/*
 * srpt_ch_state: a channel moved from one state to the next
 *
 * States: connecting (login accepted), live (connection established),
 * disconnecting (closing decided), draining (the release work drains the
 * QP).  srpt_ch_released follows the last one.
 */
TRACE_EVENT(srpt_ch_state,
	TP_PROTO(const struct srpt_rdma_ch *ch, enum srpt_ch_state old,
		 enum srpt_ch_state new),
	TP_ARGS(ch, old, new),
	TP_STRUCT__entry(
		__field(u32, ch_id)
		__field(u32, qp_num)
		__array(char, name, sizeof_field(struct srpt_rdma_ch, name))
		__field(u32, old)
		__field(u32, new)
	),
	TP_fast_assign(
		__entry->ch_id = ch->id;
		__entry->qp_num = ch->qp_num;
		strscpy(__entry->name, ch->name, sizeof(__entry->name));
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("ch %u %s qp %u: %s -> %s", __entry->ch_id, __entry->name,
		  __entry->qp_num, show_srpt_ch_state(__entry->old),
		  show_srpt_ch_state(__entry->new))
);

/*
 * srpt_ch_released: a closed channel's QP, session and memory are gone
 *
 * @sq_waits: how many of its commands waited for send queue room.
 */
TRACE_EVENT(srpt_ch_released,
	TP_PROTO(const struct srpt_rdma_ch *ch),
	TP_ARGS(ch),
	TP_STRUCT__entry(
		__field(u32, ch_id)
		__field(u32, qp_num)
		__array(char, name, sizeof_field(struct srpt_rdma_ch, name))
		__field(u32, sq_waits)
	),
	TP_fast_assign(
		__entry->ch_id = ch->id;
		__entry->qp_num = ch->qp_num;
		strscpy(__entry->name, ch->name, sizeof(__entry->name));
		__entry->sq_waits = READ_ONCE(ch->sq_waits);
	),
	TP_printk("ch %u %s qp %u: released, send queue full %u times",
		  __entry->ch_id, __entry->name, __entry->qp_num,
		  __entry->sq_waits)
);

/*
 * srpt_cmd_recv: an SRP_CMD arrived and was parsed
 *
 * @err is 0, or the negative errno of a request answered with CHECK
 * CONDITION without LIO (the fields parsed so far are zero then).
 * @data_len is what the data descriptors describe; @fmt their format.
 */
TRACE_EVENT(srpt_cmd_recv,
	TP_PROTO(const struct srpt_cmd *cmd, int err),
	TP_ARGS(cmd, err),
	TP_STRUCT__entry(
		__field(u32, ch_id)
		__field(u64, tag)
		__field(u64, lun)
		__field(u8, opcode)
		__field(u8, task_attr)
		__field(u32, dir)
		__field(u32, fmt)
		__field(u32, data_len)
		__field(u32, ndesc)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->ch_id = cmd->ch->id;
		__entry->tag = cmd->tag;
		__entry->lun = scsilun_to_int((struct scsi_lun *)cmd->ci.lun);
		__entry->opcode = cmd->ci.cdb ? cmd->ci.cdb[0] : 0;
		__entry->task_attr = cmd->ci.task_attr;
		__entry->dir = cmd->ci.dir;
		__entry->fmt = cmd->ci.fmt;
		__entry->data_len = cmd->ci.data_len;
		__entry->ndesc = cmd->ci.ndesc;
		__entry->err = err;
	),
	TP_printk("ch %u tag 0x%llx lun %llu opcode 0x%02x %s %u bytes, %s x%u, attr %u, err %d",
		  __entry->ch_id, __entry->tag, __entry->lun, __entry->opcode,
		  show_srpt_dir(__entry->dir), __entry->data_len,
		  show_srpt_fmt(__entry->fmt), __entry->ndesc,
		  __entry->task_attr, __entry->err)
);

/*
 * srpt_tmf_recv: an SRP_TSK_MGMT arrived
 *
 * @err is 0, or -EINVAL for a malformed request (answered with response
 * code 0x02); @task_tag is the tag of the task an ABORT TASK names.
 */
TRACE_EVENT(srpt_tmf_recv,
	TP_PROTO(const struct srpt_cmd *cmd, const struct srpt_tmf_info *t,
		 int err),
	TP_ARGS(cmd, t, err),
	TP_STRUCT__entry(
		__field(u32, ch_id)
		__field(u64, tag)
		__field(u64, lun)
		__field(u8, func)
		__field(u64, task_tag)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->ch_id = cmd->ch->id;
		__entry->tag = cmd->tag;
		__entry->lun = scsilun_to_int((struct scsi_lun *)t->lun);
		__entry->func = t->func;
		__entry->task_tag = t->task_tag;
		__entry->err = err;
	),
	TP_printk("ch %u tag 0x%llx lun %llu %s task_tag 0x%llx err %d",
		  __entry->ch_id, __entry->tag, __entry->lun,
		  show_srpt_tmf(__entry->func), __entry->task_tag,
		  __entry->err)
);

/*
 * srpt_rsp_send: an SRP_RSP is built and posted (or queued)
 *
 * For an SRP_CMD: @status, the sense key, ASC and ASCQ of its sense data
 * (fixed or descriptor format; 0 without sense), the residual flags and
 * count, and whether DATA-IN goes out in front of it.  For a task
 * management response @tmf is set, @resp_code is its response code and
 * @lun and @opcode are 0 (srpt_tmf_recv has the LUN).
 */
TRACE_EVENT(srpt_rsp_send,
	TP_PROTO(const struct srpt_cmd *cmd, const struct srpt_rsp_info *info,
		 bool with_data),
	TP_ARGS(cmd, info, with_data),
	TP_STRUCT__entry(
		__field(u32, ch_id)
		__field(u64, tag)
		__field(u64, lun)
		__field(u8, opcode)
		__field(u32, dir)
		__field(u32, data_len)
		__field(u8, status)
		__field(u8, sense_key)
		__field(u8, asc)
		__field(u8, ascq)
		__field(u8, flags)
		__field(u32, resid)
		__field(bool, with_data)
		__field(bool, tmf)
		__field(u8, resp_code)
	),
	TP_fast_assign(
		const u8 *s = info->sense;
		u32 sl = s ? info->sense_len : 0;
		bool desc = sl && (s[0] & 0x7f) >= 0x72;

		__entry->ch_id = cmd->ch->id;
		__entry->tag = cmd->tag;
		__entry->lun = scsilun_to_int((struct scsi_lun *)cmd->ci.lun);
		__entry->opcode = cmd->ci.cdb ? cmd->ci.cdb[0] : 0;
		__entry->dir = cmd->dir;
		__entry->data_len = cmd->data_len;
		__entry->status = info->status;
		__entry->sense_key = desc ? (sl > 1 ? s[1] & 0xf : 0) :
				     (sl > 2 ? s[2] & 0xf : 0);
		__entry->asc = desc ? (sl > 2 ? s[2] : 0) :
			       (sl > 12 ? s[12] : 0);
		__entry->ascq = desc ? (sl > 3 ? s[3] : 0) :
				(sl > 13 ? s[13] : 0);
		__entry->flags = info->flags;
		__entry->resid = info->data_in_res ? info->data_in_res :
				 info->data_out_res;
		__entry->with_data = with_data && cmd->nrw;
		__entry->tmf = info->resp_len > 0;
		__entry->resp_code = info->resp_data && info->resp_len >= 4 ?
				     info->resp_data[3] : 0;
	),
	TP_printk("ch %u tag 0x%llx lun %llu opcode 0x%02x %s %u bytes%s: status %s sense %x/%02x/%02x resid %u flags 0x%02x tmf %d resp 0x%02x",
		  __entry->ch_id, __entry->tag, __entry->lun, __entry->opcode,
		  show_srpt_dir(__entry->dir), __entry->data_len,
		  __entry->with_data ? " after DATA-IN" : "",
		  show_scsi_status(__entry->status), __entry->sense_key,
		  __entry->asc, __entry->ascq, __entry->resid, __entry->flags,
		  __entry->tmf, __entry->resp_code)
);

/*
 * srpt_wc_error: a work completion failed (not a flush)
 *
 * @kind says which work request: a receive (@tag 0), the last RDMA READ
 * of a command (its DATA-OUT or descriptor table) or a response with the
 * RDMA WRITEs of its DATA-IN.  The channel is closed next.
 */
TRACE_EVENT(srpt_wc_error,
	TP_PROTO(const struct srpt_rdma_ch *ch, const struct ib_wc *wc,
		 int kind, u64 tag),
	TP_ARGS(ch, wc, kind, tag),
	TP_STRUCT__entry(
		__field(u32, ch_id)
		__field(u32, qp_num)
		__field(int, kind)
		__field(u64, tag)
		__field(u32, status)
		__field(u32, vendor_err)
		__array(char, msg, SRPT_TRACE_WC_MSG_LEN)
	),
	TP_fast_assign(
		__entry->ch_id = ch->id;
		__entry->qp_num = ch->qp_num;
		__entry->kind = kind;
		__entry->tag = tag;
		__entry->status = wc->status;
		__entry->vendor_err = wc->vendor_err;
		strscpy(__entry->msg, ib_wc_status_msg(wc->status),
			sizeof(__entry->msg));
	),
	TP_printk("ch %u qp %u: %s tag 0x%llx failed: status %u (%s), vendor error 0x%x",
		  __entry->ch_id, __entry->qp_num,
		  show_srpt_wc_kind(__entry->kind), __entry->tag,
		  __entry->status, __entry->msg, __entry->vendor_err)
);

DECLARE_EVENT_CLASS(srpt_sq_class,
	TP_PROTO(const struct srpt_cmd *cmd, enum srpt_sq_op op, u32 nwrs,
		 u32 sq_avail),
	TP_ARGS(cmd, op, nwrs, sq_avail),
	TP_STRUCT__entry(
		__field(u32, ch_id)
		__field(u64, tag)
		__field(u32, op)
		__field(u32, nwrs)
		__field(u32, sq_avail)
	),
	TP_fast_assign(
		__entry->ch_id = cmd->ch->id;
		__entry->tag = cmd->tag;
		__entry->op = op;
		__entry->nwrs = nwrs;
		__entry->sq_avail = sq_avail;
	),
	TP_printk("ch %u tag 0x%llx: %s, %u work requests, %u free",
		  __entry->ch_id, __entry->tag, show_srpt_sq_op(__entry->op),
		  __entry->nwrs, __entry->sq_avail)
);

/*
 * srpt_sq_full: a command waits for send queue room
 *
 * @nwrs entries are needed, @sq_avail are free (or commands queued before
 * it still wait).  srpt_sq_resume follows when it is posted.
 */
DEFINE_EVENT(srpt_sq_class, srpt_sq_full,
	TP_PROTO(const struct srpt_cmd *cmd, enum srpt_sq_op op, u32 nwrs,
		 u32 sq_avail),
	TP_ARGS(cmd, op, nwrs, sq_avail)
);

/*
 * srpt_sq_resume: a command that waited for send queue room is posted
 *
 * @sq_avail is what is left free after it.
 */
DEFINE_EVENT(srpt_sq_class, srpt_sq_resume,
	TP_PROTO(const struct srpt_cmd *cmd, enum srpt_sq_op op, u32 nwrs,
		 u32 sq_avail),
	TP_ARGS(cmd, op, nwrs, sq_avail)
);

#endif /* SRPT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE srpt_trace
#include <trace/define_trace.h>
