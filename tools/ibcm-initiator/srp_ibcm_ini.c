// SPDX-License-Identifier: GPL-2.0
/*
 * srp_ibcm_ini: a test initiator for the IB CM login path of an SRP target.
 *
 * The kernel's ib_srp cannot use IB CM over RoCE (its IB CM path needs an
 * SA path query) and userspace has had no raw IB CM access since ib_ucm
 * was removed, so the VM tests drive the IB CM front end of ib_srpt through
 * this module.  It uses the RDMA/CM only to resolve a RoCE route to the
 * target's address, for a path record and its source GID attribute; the
 * rest is the IB CM API itself: its own RC queue pair, ib_send_cm_req() to
 * service id srpt_service_guid with a 64-byte SRP_LOGIN_REQ as private data
 * and a random starting PSN (as ib_srp does), the QP moved to INIT, RTR and
 * RTS with ib_cm_init_qp_attr() once the REP arrives, then the RTU.
 *
 * Every IU is built and parsed by srpt_iu.h, the target's own wire code
 * (its initiator-side half), so nothing of the protocol is copied here.
 * Data buffers are reached through the PD's global rkey: this is a test
 * tool for a VM, not an initiator for real use.
 *
 * Interface (debugfs, /sys/kernel/debug/srp_ibcm_ini/): write one command
 * line to "ctl"; the write returns when the command is done, and "out"
 * then holds its results, one TAP line each ("ok - ...", "not ok - ...")
 * and "# " diagnostics.  Commands (key=value arguments):
 *
 *   connect dst=ADDR sid=GUID ini=ID [tpid=ID] [flags=N] [rtu=hold]
 *	log in and stay connected (the "main" session); with rtu=hold the
 *	QP is taken to RTS but the RTU is held back until the rtu command
 *   rtu [expect=up|closed]
 *	send the held RTU of the main session.  up: the session is then
 *	established.  closed: the target closed the channel meanwhile; the
 *	RTU may go out or be refused for the target's REJ, which must come
 *	(or a DREQ), and the session ends
 *   io [lun=N] [lba=N] [blocks=N]
 *	INQUIRY, READ CAPACITY(16) and a write, read back and compare with
 *	direct, indirect and external-table descriptors on the main session
 *   tmf [lun=N]	LUN RESET and ABORT TASK of an unknown tag
 *   logout		SRP_I_LOGOUT; the target must disconnect
 *   dreq		disconnect by DREQ
 *   inflight [n=N]	N commands in flight at the target, then a DREQ
 *   stale		a REQ reusing the main session's QP number
 *   second flags=N expect=terminated|maintained
 *			a second login of the same initiator
 *   login dst=ADDR sid=GUID ini=ID [tpid=ID] [it_iu_len=N] [buf_fmt=N]
 *	[flags=N] [opcode=N] expect=rsp|rej:REASON|cmrej:N [tag=zero]
 *			one login attempt and its decoded outcome
 *   close		end whatever session is left
 *
 * ADDR is an IPv4 or IPv6 address (with %scope), GUID 16 hex digits, ID 32
 * hex digits, all with or without 0x.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#ifdef SRPT_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>	/* 6.12 */
#else
#include <asm/unaligned.h>
#endif
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "srpt_iu.h"

enum {
	INI_QUEUE	= 64,		/* send and receive entries */
	INI_IU_SIZE	= 1024,		/* largest IU sent or received */
	INI_CHUNK	= 64 * 1024,	/* one piece of the data buffer */
	INI_NCHUNK	= 16,		/* pieces: 1 MiB in all */
	INI_TABLE_CHUNK	= INI_NCHUNK - 1, /* holds external tables */
	INI_NDESC	= 4,		/* descriptors of indirect commands */
	INI_TMO_MS	= 30000,	/* per step */
	INI_CM_TMO_MS	= 90000,	/* for a REP or REJ (CM retries) */
	INI_OUT_SIZE	= 32768,
	INI_IT_IU_LEN	= 4096,		/* default request IU size asked */
};

/**
 * struct ini_iu - a received IU waiting for the test thread
 * @entry: link in ini_sess.rsps.
 * @len: bytes received.
 * @iu: the bytes.
 */
struct ini_iu {
	struct list_head	entry;
	u32			len;
	u8			iu[INI_IU_SIZE];
};

struct ini_sess;

/**
 * struct ini_buf - one send or receive buffer
 * @cqe: completion of the posted work request.
 * @s: its session.
 * @buf: INI_IU_SIZE bytes.
 * @dma: their DMA address.
 * @busy: send buffer posted and not completed (under ini_sess.lock).
 */
struct ini_buf {
	struct ib_cqe		cqe;
	struct ini_sess		*s;
	void			*buf;
	u64			dma;
	bool			busy;
};

/**
 * struct ini_sess - one login: its route, verbs objects and CM state
 * @name: "main", "second" or "stale", for result lines.
 * @rcm: RDMA/CM id that resolved the route (only for the path record).
 * @own_rcm: @rcm belongs to this session (else it is borrowed).
 * @dev: the RDMA device of the route.
 * @port: its port.
 * @pd: protection domain, with a global rkey for the data buffers.
 * @cq: completion queue of both work queues.
 * @qp: the RC queue pair.
 * @cm: IB CM id of the connection.
 * @lock: protects the fields from @rcm_event through @flushed, which the
 *	CM and RDMA/CM callbacks and the completion handlers set.
 * @wq: woken whenever one of those changes.
 * @rcm_event: last RDMA/CM event, -1 before the first.
 * @rcm_status: its status.
 * @rep: a REP arrived; @rep_param and @rep_data hold it.
 * @rej: a REJ arrived; @rej_reason and @rej_data hold it.
 * @req_err: the REQ went unanswered (IB_CM_REQ_ERROR).
 * @dreq_rcvd: the target sent a DREQ (answered with a DREP).
 * @drep_rcvd: our DREQ was answered.
 * @dreq_err: our DREQ went unanswered.
 * @rep_param: the REP's parameters.
 * @rep_data: the REP's private data.
 * @rej_reason: the REJ's reason (enum ib_cm_rej_reason).
 * @rej_data: the REJ's private data.
 * @rsps: received IUs (struct ini_iu) not yet taken.
 * @lost: received IUs dropped for lack of memory.
 * @wc_error: status of the first failed completion other than a flush.
 * @wc_error_op: "send" or "receive".
 * @flushed: completions flushed by the QP's error state.
 * @draining: no more receives are reposted.
 * @req_psn: starting PSN of our REQ.
 * @req_tag: tag of our SRP_LOGIN_REQ.
 * @login: the SRP_LOGIN_RSP.
 * @credits: requests we may still send.
 * @next_tag: tag of the next request.
 * @established: the RTU went out.
 * @rtu_held: the QP is in RTS and the RTU waits for the rtu command.
 * @dreq_sent: we sent a DREQ.
 * @posted: work requests were posted (the QP must be drained).
 * @recvs: receive buffers.
 * @sends: send buffers.
 * @chunk: the data buffer, INI_NCHUNK pieces of INI_CHUNK bytes.
 * @chunk_dma: their DMA addresses (and remote addresses).
 */
struct ini_sess {
	const char		*name;
	struct rdma_cm_id	*rcm;
	bool			own_rcm;
	struct ib_device	*dev;
	u32			port;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	struct ib_cm_id		*cm;

	spinlock_t		lock;	/* see above */
	wait_queue_head_t	wq;
	int			rcm_event;
	int			rcm_status;
	bool			rep, rej, req_err;
	bool			dreq_rcvd, drep_rcvd, dreq_err;
	struct ib_cm_rep_event_param rep_param;
	u8			rep_data[IB_CM_REP_PRIVATE_DATA_SIZE];
	int			rej_reason;
	u8			rej_data[IB_CM_REJ_PRIVATE_DATA_SIZE];
	struct list_head	rsps;
	unsigned int		lost;
	int			wc_error;
	const char		*wc_error_op;
	unsigned int		flushed;
	bool			draining;

	u32			req_psn;
	u64			req_tag;
	struct srpt_login_rsp_info login;
	s32			credits;
	u64			next_tag;
	bool			established;
	bool			rtu_held;
	bool			dreq_sent;
	bool			posted;
	struct ini_buf		recvs[INI_QUEUE];
	struct ini_buf		sends[INI_QUEUE];
	void			*chunk[INI_NCHUNK];
	u64			chunk_dma[INI_NCHUNK];
};

/**
 * struct ini_args - a parsed command line
 * @cmd: the command.
 * @dst: target address.
 * @sid: IB CM service id.
 * @tpid: target port id (default: @sid twice).
 * @have_tpid: @tpid was given.
 * @ini: initiator port id.
 * @have_ini: @ini was given.
 * @it_iu_len: requested IU length of a login.
 * @buf_fmt: requested buffer formats.
 * @flags: login request flags.
 * @opcode: opcode byte of the login request.
 * @expect: what a login should get: "rsp", "rej:REASON", "cmrej:N",
 *	"terminated" or "maintained"; of the rtu command, "closed" or not.
 * @tag_zero: the reject is expected to carry tag 0 (request not parsed).
 * @lun: LUN for io and tmf.
 * @lba: first block of the io command's writes.
 * @blocks: blocks per write of the io command.
 * @n: commands of the inflight command.
 * @rtu_hold: connect: hold the RTU back (rtu=hold).
 */
struct ini_args {
	char	cmd[16];
	char	dst[64];
	u64	sid;
	u8	tpid[16];
	bool	have_tpid;
	u8	ini[16];
	bool	have_ini;
	u32	it_iu_len;
	u16	buf_fmt;
	u8	flags;
	u8	opcode;
	char	expect[32];
	bool	tag_zero;
	u32	lun;
	u64	lba;
	u32	blocks;
	u32	n;
	bool	rtu_hold;
};

/* ini_mutex serializes commands and protects everything below. */
static DEFINE_MUTEX(ini_mutex);
static char *ini_out;
static size_t ini_out_len;
static struct ini_sess *ini_main;
static struct ini_args ini_main_args;
static struct dentry *ini_dir;

/* ---- Results ------------------------------------------------------------ */

static __printf(2, 0) void ini_vline(const char *pfx, const char *fmt,
				     va_list ap)
{
	size_t start = ini_out_len, room = INI_OUT_SIZE - ini_out_len;

	if (room < 2)
		return;
	ini_out_len += scnprintf(ini_out + ini_out_len, room, "%s", pfx);
	ini_out_len += vscnprintf(ini_out + ini_out_len,
				  INI_OUT_SIZE - ini_out_len, fmt, ap);
	if (ini_out_len < INI_OUT_SIZE - 1)
		ini_out[ini_out_len++] = '\n';
	ini_out[ini_out_len] = '\0';
	pr_info("%s", ini_out + start);
}

/**
 * ini_check() - one TAP result line
 * @cond: whether the check passed.
 * @fmt: what was checked and seen.
 *
 * Return: @cond.
 */
static __printf(2, 3) bool ini_check(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ini_vline(cond ? "ok - " : "not ok - ", fmt, ap);
	va_end(ap);
	return cond;
}

static __printf(1, 2) void ini_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ini_vline("# ", fmt, ap);
	va_end(ap);
}

static const char *ini_rej_msg(u32 reason)
{
	switch (reason) {
	case SRPT_REJ_UNABLE_ESTABLISH:
		return "unable to establish the channel";
	case SRPT_REJ_NO_RESOURCES:
		return "insufficient resources";
	case SRPT_REJ_IT_IU_LEN_TOO_LARGE:
		return "requested IU length too large";
	case SRPT_REJ_UNABLE_ASSOCIATE:
		return "unable to associate the channel with the I_T nexus";
	case SRPT_REJ_UNSUPPORTED_FMT:
		return "unsupported descriptor format";
	case SRPT_REJ_NO_MULTICHANNEL:
		return "multichannel not supported";
	case SRPT_REJ_CHANNEL_LIMIT:
		return "channel limit reached";
	default:
		return "unknown reason";
	}
}

static const char *ini_state_name(enum ib_qp_state st)
{
	static const char * const names[] = {
		[IB_QPS_RESET] = "RESET", [IB_QPS_INIT] = "INIT",
		[IB_QPS_RTR] = "RTR", [IB_QPS_RTS] = "RTS",
		[IB_QPS_SQD] = "SQD", [IB_QPS_SQE] = "SQE",
		[IB_QPS_ERR] = "ERR",
	};

	return st < ARRAY_SIZE(names) && names[st] ? names[st] : "?";
}

/* ---- Callbacks ---------------------------------------------------------- */

static int ini_rcm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct ini_sess *s = id->context;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	s->rcm_event = ev->event;
	s->rcm_status = ev->status;
	spin_unlock_irqrestore(&s->lock, flags);
	wake_up(&s->wq);
	return 0;
}

/**
 * ini_cm_handler() - IB CM events of a session's connection
 * @cm: the CM id; its context is the session.
 * @ev: the event.
 *
 * Records what arrived for the test thread; answers a DREQ with a DREP.
 *
 * Return: 0; the test thread destroys the id.
 */
static int ini_cm_handler(struct ib_cm_id *cm, const struct ib_cm_event *ev)
{
	struct ini_sess *s = cm->context;
	unsigned long flags;
	bool drep = false;

	spin_lock_irqsave(&s->lock, flags);
	switch (ev->event) {
	case IB_CM_REP_RECEIVED:
		s->rep_param = ev->param.rep_rcvd;
		memcpy(s->rep_data, ev->private_data, sizeof(s->rep_data));
		s->rep = true;
		break;
	case IB_CM_REJ_RECEIVED:
		s->rej_reason = ev->param.rej_rcvd.reason;
		if (ev->private_data)
			memcpy(s->rej_data, ev->private_data,
			       sizeof(s->rej_data));
		s->rej = true;
		break;
	case IB_CM_REQ_ERROR:
		s->req_err = true;
		break;
	case IB_CM_DREQ_RECEIVED:
		s->dreq_rcvd = true;
		drep = true;
		break;
	case IB_CM_DREP_RECEIVED:
		s->drep_rcvd = true;
		break;
	case IB_CM_DREQ_ERROR:
		s->dreq_err = true;
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (drep)
		ib_send_cm_drep(cm, NULL, 0);
	wake_up(&s->wq);
	return 0;
}

static void ini_wc_failed(struct ini_sess *s, struct ib_wc *wc, const char *op)
{
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (wc->status == IB_WC_WR_FLUSH_ERR) {
		s->flushed++;
	} else if (!s->wc_error) {
		s->wc_error = wc->status;
		s->wc_error_op = op;
	}
	spin_unlock_irqrestore(&s->lock, flags);
	wake_up(&s->wq);
}

static int ini_post_recv(struct ini_sess *s, struct ini_buf *b)
{
	struct ib_sge sge = {
		.addr = b->dma,
		.length = INI_IU_SIZE,
		.lkey = s->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &b->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(s->qp, &wr, NULL);
}

static void ini_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ini_buf *b = container_of(wc->wr_cqe, struct ini_buf, cqe);
	struct ini_sess *s = b->s;
	unsigned long flags;
	struct ini_iu *iu;

	if (wc->status != IB_WC_SUCCESS) {
		ini_wc_failed(s, wc, "receive");
		return;
	}
	ib_dma_sync_single_for_cpu(s->dev, b->dma, INI_IU_SIZE,
				   DMA_FROM_DEVICE);
	iu = kmalloc(sizeof(*iu), GFP_ATOMIC);
	if (iu) {
		iu->len = min_t(u32, wc->byte_len, INI_IU_SIZE);
		memcpy(iu->iu, b->buf, iu->len);
	}
	ib_dma_sync_single_for_device(s->dev, b->dma, INI_IU_SIZE,
				      DMA_FROM_DEVICE);
	spin_lock_irqsave(&s->lock, flags);
	if (iu)
		list_add_tail(&iu->entry, &s->rsps);
	else
		s->lost++;
	if (!s->draining)
		ini_post_recv(s, b);
	spin_unlock_irqrestore(&s->lock, flags);
	wake_up(&s->wq);
}

static void ini_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ini_buf *b = container_of(wc->wr_cqe, struct ini_buf, cqe);
	struct ini_sess *s = b->s;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	b->busy = false;
	spin_unlock_irqrestore(&s->lock, flags);
	if (wc->status != IB_WC_SUCCESS)
		ini_wc_failed(s, wc, "send");
	wake_up(&s->wq);
}

static void ini_qp_event(struct ib_event *ev, void *ctx)
{
	pr_debug("QP event %s\n", ib_event_msg(ev->event));
}

/* ---- Session objects ---------------------------------------------------- */

static struct ini_sess *ini_sess_alloc(const char *name)
{
	struct ini_sess *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->name = name;
	spin_lock_init(&s->lock);
	init_waitqueue_head(&s->wq);
	INIT_LIST_HEAD(&s->rsps);
	s->rcm_event = -1;
	s->next_tag = 1;
	return s;
}

/* Wait for the next RDMA/CM event; > 0 when one came. */
static long ini_wait_rcm(struct ini_sess *s)
{
	return wait_event_interruptible_timeout(s->wq,
						READ_ONCE(s->rcm_event) >= 0,
						msecs_to_jiffies(INI_TMO_MS));
}

/**
 * ini_resolve() - resolve a route to the target with the RDMA/CM
 * @s: new session.
 * @dst: target address.
 *
 * Return: 0, with @s->rcm holding the path record and the source GID
 * attribute, or a negative errno (reported).
 */
static int ini_resolve(struct ini_sess *s, const char *dst)
{
	struct sockaddr_storage ss;
	long left;
	int ret, ev;

	ret = inet_pton_with_scope(&init_net, AF_UNSPEC, dst, NULL, &ss);
	if (ret) {
		ini_check(false, "%s: target address '%s' parsed", s->name, dst);
		return ret;
	}
	s->rcm = rdma_create_id(&init_net, ini_rcm_handler, s, RDMA_PS_TCP,
				IB_QPT_RC);
	if (IS_ERR(s->rcm)) {
		ret = PTR_ERR(s->rcm);
		s->rcm = NULL;
		ini_check(false, "%s: RDMA/CM id created (%d)", s->name, ret);
		return ret;
	}
	s->own_rcm = true;
	ret = rdma_resolve_addr(s->rcm, NULL, (struct sockaddr *)&ss, 5000);
	if (!ret) {
		left = ini_wait_rcm(s);
		ev = READ_ONCE(s->rcm_event);
		ret = left > 0 && ev == RDMA_CM_EVENT_ADDR_RESOLVED ? 0 : -EIO;
	}
	if (!ret) {
		WRITE_ONCE(s->rcm_event, -1);
		ret = rdma_resolve_route(s->rcm, 5000);
	}
	if (!ret) {
		left = ini_wait_rcm(s);
		ev = READ_ONCE(s->rcm_event);
		ret = left > 0 && ev == RDMA_CM_EVENT_ROUTE_RESOLVED ? 0 : -EIO;
	}
	if (ret) {
		ini_check(false, "%s: route to %s resolved (%d, last RDMA/CM event %d, status %d)",
			  s->name, dst, ret, READ_ONCE(s->rcm_event),
			  READ_ONCE(s->rcm_status));
		return ret;
	}
	s->dev = s->rcm->device;
	s->port = s->rcm->port_num;
	ini_diag("%s: route to %s on %s port %u, GID %pI6 to %pI6", s->name,
		 dst, dev_name(&s->dev->dev), s->port,
		 s->rcm->route.path_rec[0].sgid.raw,
		 s->rcm->route.path_rec[0].dgid.raw);
	return 0;
}

static void ini_free_bufs(struct ini_sess *s, struct ini_buf *bufs,
			  enum dma_data_direction dir)
{
	int i;

	for (i = 0; i < INI_QUEUE; i++) {
		if (!bufs[i].buf)
			continue;
		ib_dma_unmap_single(s->dev, bufs[i].dma, INI_IU_SIZE, dir);
		kfree(bufs[i].buf);
		bufs[i].buf = NULL;
	}
}

static int ini_alloc_bufs(struct ini_sess *s, struct ini_buf *bufs,
			  enum dma_data_direction dir,
			  void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	int i;

	for (i = 0; i < INI_QUEUE; i++) {
		struct ini_buf *b = &bufs[i];

		b->s = s;
		b->cqe.done = done;
		b->buf = kzalloc(INI_IU_SIZE, GFP_KERNEL);
		if (!b->buf)
			return -ENOMEM;
		b->dma = ib_dma_map_single(s->dev, b->buf, INI_IU_SIZE, dir);
		if (ib_dma_mapping_error(s->dev, b->dma)) {
			kfree(b->buf);
			b->buf = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * ini_setup_verbs() - PD, CQ, QP (left in RESET) and buffers of a session
 * @s: session with a resolved route.
 *
 * Return: 0 or a negative errno (reported).
 */
static int ini_setup_verbs(struct ini_sess *s)
{
	struct ib_qp_init_attr qa = { };
	struct ib_qp_attr attr;
	int i, ret;

	s->pd = ib_alloc_pd(s->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(s->pd)) {
		ret = PTR_ERR(s->pd);
		s->pd = NULL;
		goto fail;
	}
	s->cq = ib_alloc_cq(s->dev, s, 2 * INI_QUEUE + 4, 0,
			    IB_POLL_SOFTIRQ);
	if (IS_ERR(s->cq)) {
		ret = PTR_ERR(s->cq);
		s->cq = NULL;
		goto fail;
	}
	qa.event_handler = ini_qp_event;
	qa.qp_context = s;
	qa.send_cq = s->cq;
	qa.recv_cq = s->cq;
	qa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qa.qp_type = IB_QPT_RC;
	qa.cap.max_send_wr = INI_QUEUE + 1;
	qa.cap.max_recv_wr = INI_QUEUE + 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.port_num = s->port;
	s->qp = ib_create_qp(s->pd, &qa);
	if (IS_ERR(s->qp)) {
		ret = PTR_ERR(s->qp);
		s->qp = NULL;
		goto fail;
	}
	ret = ini_alloc_bufs(s, s->recvs, DMA_FROM_DEVICE, ini_recv_done);
	if (!ret)
		ret = ini_alloc_bufs(s, s->sends, DMA_TO_DEVICE, ini_send_done);
	for (i = 0; !ret && i < INI_NCHUNK; i++) {
		s->chunk[i] = kzalloc(INI_CHUNK, GFP_KERNEL);
		if (!s->chunk[i]) {
			ret = -ENOMEM;
			break;
		}
		s->chunk_dma[i] = ib_dma_map_single(s->dev, s->chunk[i],
						    INI_CHUNK,
						    DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(s->dev, s->chunk_dma[i])) {
			kfree(s->chunk[i]);
			s->chunk[i] = NULL;
			ret = -ENOMEM;
		}
	}
	if (ret)
		goto fail;
	memset(&attr, 0, sizeof(attr));
	ret = ib_query_qp(s->qp, &attr, IB_QP_STATE, &qa);
	ini_check(!ret && attr.qp_state == IB_QPS_RESET,
		  "%s: initiator QP %u created, state %s", s->name,
		  s->qp->qp_num, ret ? "unknown" : ini_state_name(attr.qp_state));
	return 0;

fail:
	ini_check(false, "%s: PD, CQ, QP and buffers set up (%d)", s->name,
		  ret);
	return ret;
}

static bool ini_gone(struct ini_sess *s)
{
	return READ_ONCE(s->dreq_rcvd) || READ_ONCE(s->wc_error) ||
	       READ_ONCE(s->drep_rcvd) || READ_ONCE(s->dreq_err);
}

/**
 * ini_disconnect() - end a session's connection by DREQ
 * @s: session.
 *
 * Return: whether the DREQ was answered with a DREP (or crossed the
 * target's own DREQ).
 */
static bool ini_disconnect(struct ini_sess *s)
{
	if (ib_send_cm_dreq(s->cm, NULL, 0))
		return false;
	s->dreq_sent = true;
	wait_event_interruptible_timeout(s->wq, READ_ONCE(s->drep_rcvd) ||
					 READ_ONCE(s->dreq_err) ||
					 READ_ONCE(s->dreq_rcvd),
					 msecs_to_jiffies(INI_TMO_MS));
	return READ_ONCE(s->drep_rcvd) || READ_ONCE(s->dreq_rcvd);
}

/**
 * ini_sess_free() - end a session and free everything it holds
 * @s: session, or NULL.
 *
 * A connection still up is ended with a DREQ; the QP is drained before its
 * buffers go away.
 */
static void ini_sess_free(struct ini_sess *s)
{
	struct ini_iu *iu, *tmp;
	unsigned long flags;
	int i;

	if (!s)
		return;
	if (s->cm && s->established && !s->dreq_sent && !s->dreq_rcvd)
		ini_disconnect(s);
	if (s->qp && s->posted) {
		spin_lock_irqsave(&s->lock, flags);
		s->draining = true;
		spin_unlock_irqrestore(&s->lock, flags);
		ib_drain_qp(s->qp);
	}
	if (s->cm)
		ib_destroy_cm_id(s->cm);
	if (s->qp)
		ib_destroy_qp(s->qp);
	if (s->cq)
		ib_free_cq(s->cq);
	list_for_each_entry_safe(iu, tmp, &s->rsps, entry) {
		list_del(&iu->entry);
		kfree(iu);
	}
	if (s->dev) {
		ini_free_bufs(s, s->recvs, DMA_FROM_DEVICE);
		ini_free_bufs(s, s->sends, DMA_TO_DEVICE);
		for (i = 0; i < INI_NCHUNK; i++) {
			if (!s->chunk[i])
				continue;
			ib_dma_unmap_single(s->dev, s->chunk_dma[i], INI_CHUNK,
					    DMA_BIDIRECTIONAL);
			kfree(s->chunk[i]);
		}
	}
	if (s->pd)
		ib_dealloc_pd(s->pd);
	if (s->rcm && s->own_rcm)
		rdma_destroy_id(s->rcm);
	kfree(s);
}

/* ---- Login -------------------------------------------------------------- */

/**
 * ini_send_req() - send the REQ of a login
 * @s: session with a CM id and (unless @qpn is given) a QP.
 * @route: RDMA/CM id whose route the REQ takes.
 * @a: login parameters.
 * @qpn: QP number to announce.
 *
 * The starting PSN is random, as ib_srp's (through the RDMA/CM) is.
 *
 * Return: 0 or the error of ib_send_cm_req() (reported).
 */
static int ini_send_req(struct ini_sess *s, struct rdma_cm_id *route,
			const struct ini_args *a, u32 qpn)
{
	struct srpt_login_req lr = {
		.req_it_iu_len = a->it_iu_len,
		.req_buf_fmt = a->buf_fmt,
		.req_flags = a->flags,
	};
	struct ib_cm_req_param req = { };
	u8 priv[SRPT_LOGIN_REQ_LEN];
	int ret;

	get_random_bytes(&s->req_tag, sizeof(s->req_tag));
	lr.tag = s->req_tag;
	memcpy(lr.initiator_port_id, a->ini, 16);
	memcpy(lr.target_port_id, a->tpid, 16);
	srpt_build_login_req(priv, sizeof(priv), &lr);
	priv[0] = a->opcode;
	s->req_psn = get_random_u32() & 0xffffff;

	req.primary_path = &route->route.path_rec[0];
	req.ppath_sgid_attr = route->route.addr.dev_addr.sgid_attr;
	req.service_id = cpu_to_be64(a->sid);
	req.qp_num = qpn;
	req.qp_type = IB_QPT_RC;
	req.starting_psn = s->req_psn;
	req.private_data = priv;
	req.private_data_len = sizeof(priv);
	req.responder_resources = 4;
	req.initiator_depth = 4;
	req.remote_cm_response_timeout = 20;
	req.local_cm_response_timeout = 20;
	req.flow_control = 1;
	req.retry_count = 7;
	req.rnr_retry_count = 7;
	req.max_cm_retries = 15;
	ret = ib_send_cm_req(s->cm, &req);
	if (ret)
		ini_check(false, "%s: REQ sent (%d)", s->name, ret);
	return ret;
}

/**
 * ini_wait_answer() - wait for the REP, REJ or the REQ's timeout
 * @s: session whose REQ went out.
 *
 * Return: true when something arrived.
 */
static bool ini_wait_answer(struct ini_sess *s)
{
	wait_event_interruptible_timeout(s->wq, READ_ONCE(s->rep) ||
					 READ_ONCE(s->rej) ||
					 READ_ONCE(s->req_err),
					 msecs_to_jiffies(INI_CM_TMO_MS));
	return READ_ONCE(s->rep) || READ_ONCE(s->rej) || READ_ONCE(s->req_err);
}

/**
 * ini_describe_rej() - the REJ as text, and its SRP_LOGIN_REJ if any
 * @s: session that got a REJ.
 * @buf: text.
 * @len: size of @buf.
 * @reason: the SRP_LOGIN_REJ reason, 0 when there is none.
 * @tag: its tag.
 */
static void ini_describe_rej(struct ini_sess *s, char *buf, size_t len,
			     u32 *reason, u64 *tag)
{
	int n;

	n = scnprintf(buf, len, "REJ reason %d (%s)", s->rej_reason,
		      ibcm_reject_msg(s->rej_reason));
	if (srpt_parse_login_rej(s->rej_data, sizeof(s->rej_data), reason,
				 tag))
		scnprintf(buf + n, len - n, ", no SRP_LOGIN_REJ");
	else
		scnprintf(buf + n, len - n,
			  ", SRP_LOGIN_REJ reason 0x%08x (%s), tag %s", *reason,
			  ini_rej_msg(*reason),
			  *tag == s->req_tag ? "echoed" : *tag ? "wrong" : "0");
}

/**
 * ini_qp_report() - query the initiator QP after a transition
 * @s: session.
 * @attr: the QP's attributes, out.
 *
 * Return: 0 or the error of ib_query_qp().
 */
static int ini_qp_report(struct ini_sess *s, struct ib_qp_attr *attr)
{
	struct ib_qp_init_attr ia;

	memset(attr, 0, sizeof(*attr));
	return ib_query_qp(s->qp, attr, IB_QP_STATE | IB_QP_ACCESS_FLAGS |
			   IB_QP_PKEY_INDEX | IB_QP_RQ_PSN | IB_QP_SQ_PSN |
			   IB_QP_DEST_QPN, &ia);
}

static int ini_qp_to(struct ini_sess *s, enum ib_qp_state st)
{
	struct ib_qp_attr attr = { .qp_state = st };
	int mask, ret;

	ret = ib_cm_init_qp_attr(s->cm, &attr, &mask);
	if (!ret)
		ret = ib_modify_qp(s->qp, &attr, mask);
	return ret;
}

/**
 * ini_establish() - what an initiator does with a REP
 * @s: session that got a REP.
 * @hold_rtu: stop short of the RTU (ini_cmd_rtu() sends it later).
 *
 * Checks the SRP_LOGIN_RSP, moves the QP to INIT, RTR and RTS with the CM's
 * attributes (posting the receives in between), checks each state and the
 * PSNs against the REQ and REP, and sends the RTU unless told to hold it.
 *
 * Return: true when the session is established, or in RTS with its RTU
 * held.
 */
static bool ini_establish(struct ini_sess *s, bool hold_rtu)
{
	const struct ib_cm_rep_event_param *rp = &s->rep_param;
	struct ib_qp_attr qa;
	int i, ret;
	int bad = srpt_parse_login_rsp(s->rep_data, sizeof(s->rep_data),
				       &s->login);

	if (!ini_check(!bad && s->login.tag == s->req_tag,
		       "%s: REP carries an SRP_LOGIN_RSP with the request's tag: %u credits, IU %u/%u bytes, formats 0x%x, flags 0x%02x",
		       s->name, s->login.req_lim_delta, s->login.max_it_iu_len,
		       s->login.max_ti_iu_len, s->login.buf_fmt,
		       s->login.rsp_flags))
		return false;
	s->credits = s->login.req_lim_delta;
	ini_diag("%s: psn: initiator QP %u, target QP %u, REQ PSN 0x%06x, REP PSN 0x%06x",
		 s->name, s->qp->qp_num, rp->remote_qpn, s->req_psn,
		 rp->starting_psn);

	ret = ini_qp_to(s, IB_QPS_INIT);
	if (!ret)
		ret = ini_qp_report(s, &qa);
	if (!ini_check(!ret && qa.qp_state == IB_QPS_INIT &&
		       (qa.qp_access_flags & IB_ACCESS_REMOTE_READ) &&
		       (qa.qp_access_flags & IB_ACCESS_REMOTE_WRITE),
		       "%s: initiator QP reached INIT (%d, state %s, access flags 0x%x, P_Key index %u)",
		       s->name, ret, ini_state_name(qa.qp_state),
		       qa.qp_access_flags, qa.pkey_index))
		return false;
	for (i = 0; i < INI_QUEUE; i++) {
		ret = ini_post_recv(s, &s->recvs[i]);
		if (ret)
			break;
		s->posted = true;
	}
	if (!ini_check(!ret, "%s: %d receives posted (%d)", s->name,
		       INI_QUEUE, ret))
		return false;

	ret = ini_qp_to(s, IB_QPS_RTR);
	if (!ret)
		ret = ini_qp_report(s, &qa);
	if (!ini_check(!ret && qa.qp_state == IB_QPS_RTR &&
		       qa.rq_psn == s->req_psn &&
		       qa.dest_qp_num == rp->remote_qpn,
		       "%s: initiator QP reached RTR (%d, state %s, receive PSN 0x%06x, destination QP %u)",
		       s->name, ret, ini_state_name(qa.qp_state), qa.rq_psn,
		       qa.dest_qp_num))
		return false;

	ret = ini_qp_to(s, IB_QPS_RTS);
	if (!ret)
		ret = ini_qp_report(s, &qa);
	if (!ini_check(!ret && qa.qp_state == IB_QPS_RTS &&
		       qa.sq_psn == rp->starting_psn,
		       "%s: initiator QP reached RTS (%d, state %s, send PSN 0x%06x, the REP's 0x%06x)",
		       s->name, ret, ini_state_name(qa.qp_state), qa.sq_psn,
		       rp->starting_psn))
		return false;

	if (hold_rtu) {
		s->rtu_held = true;
		ini_check(true, "%s: RTU held back until the rtu command", s->name);
		return true;
	}
	ret = ib_send_cm_rtu(s->cm, NULL, 0);
	if (!ini_check(!ret, "%s: RTU sent (%d)", s->name, ret))
		return false;
	s->established = true;
	return true;
}

/**
 * ini_login() - a login up to the REP or REJ
 * @s: new session.
 * @a: login parameters.
 *
 * Resolves the route, sets up the verbs objects, sends the REQ and waits
 * for the answer.
 *
 * Return: 0 when an answer arrived (s->rep or s->rej), else a negative
 * errno (reported).
 */
static int ini_login(struct ini_sess *s, const struct ini_args *a)
{
	int ret;

	ret = ini_resolve(s, a->dst);
	if (!ret)
		ret = ini_setup_verbs(s);
	if (ret)
		return ret;
	s->cm = ib_create_cm_id(s->dev, ini_cm_handler, s);
	if (IS_ERR(s->cm)) {
		ret = PTR_ERR(s->cm);
		s->cm = NULL;
		ini_check(false, "%s: IB CM id created (%d)", s->name, ret);
		return ret;
	}
	ret = ini_send_req(s, s->rcm, a, s->qp->qp_num);
	if (ret)
		return ret;
	if (!ini_wait_answer(s) || READ_ONCE(s->req_err)) {
		ini_check(false, "%s: REQ to service id 0x%016llx answered",
			  s->name, a->sid);
		return -ETIMEDOUT;
	}
	return 0;
}

/* ---- Requests ----------------------------------------------------------- */

/**
 * ini_send_iu() - send one IU
 * @s: established session.
 * @iu: the IU.
 * @len: its length, at most INI_IU_SIZE.
 *
 * Return: 0, -EBUSY when every send buffer is in use, or the error of
 * ib_post_send().
 */
static int ini_send_iu(struct ini_sess *s, const void *iu, size_t len)
{
	struct ini_buf *b = NULL;
	struct ib_sge sge;
	struct ib_send_wr wr = { };
	unsigned long flags;
	int i, ret;

	spin_lock_irqsave(&s->lock, flags);
	for (i = 0; i < INI_QUEUE; i++) {
		if (!s->sends[i].busy) {
			b = &s->sends[i];
			b->busy = true;
			break;
		}
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (!b)
		return -EBUSY;
	memcpy(b->buf, iu, len);
	ib_dma_sync_single_for_device(s->dev, b->dma, len, DMA_TO_DEVICE);
	sge.addr = b->dma;
	sge.length = len;
	sge.lkey = s->pd->local_dma_lkey;
	wr.wr_cqe = &b->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	ret = ib_post_send(s->qp, &wr, NULL);
	if (ret) {
		spin_lock_irqsave(&s->lock, flags);
		b->busy = false;
		spin_unlock_irqrestore(&s->lock, flags);
	}
	return ret;
}

/* Takes the SRP_RSP with @tag off the list, or NULL. */
static struct ini_iu *ini_take_rsp(struct ini_sess *s, u64 tag)
{
	struct ini_iu *iu, *found = NULL;
	unsigned long flags;
	u64 t;

	spin_lock_irqsave(&s->lock, flags);
	list_for_each_entry(iu, &s->rsps, entry) {
		if (iu->len < SRPT_RSP_LEN || iu->iu[0] != SRPT_OP_RSP)
			continue;
		memcpy(&t, iu->iu + 8, 8);
		if (t == tag) {
			list_del(&iu->entry);
			found = iu;
			break;
		}
	}
	spin_unlock_irqrestore(&s->lock, flags);
	return found;
}

/* Wait condition of ini_wait_rsp(): the response arrived or never will. */
static bool ini_rsp_or_gone(struct ini_sess *s, u64 tag, struct ini_iu **iu)
{
	*iu = ini_take_rsp(s, tag);
	return *iu || ini_gone(s);
}

/**
 * ini_wait_rsp() - wait for the response to a request
 * @s: session.
 * @tag: the request's tag.
 * @r: the parsed response, pointing into the returned IU.
 *
 * Credits the response returns are added to the session's.
 *
 * Return: the IU (kfree() it), or NULL when none came before the timeout
 * or the end of the channel, or it did not parse.
 */
static struct ini_iu *ini_wait_rsp(struct ini_sess *s, u64 tag,
				   struct srpt_rsp_parsed *r)
{
	struct ini_iu *iu = NULL;

	wait_event_interruptible_timeout(s->wq, ini_rsp_or_gone(s, tag, &iu),
					 msecs_to_jiffies(INI_TMO_MS));
	if (!iu)
		iu = ini_take_rsp(s, tag);
	if (!iu)
		return NULL;
	if (srpt_parse_rsp(iu->iu, iu->len, r)) {
		kfree(iu);
		return NULL;
	}
	s->credits += r->req_lim_delta;
	return iu;
}

static void ini_why_no_rsp(struct ini_sess *s, const char *what)
{
	ini_diag("%s: %s: no response (%s%s%s, %u flushed, %d credits)",
		 s->name, what,
		 READ_ONCE(s->wc_error) ? s->wc_error_op : "no completion error",
		 READ_ONCE(s->wc_error) ?
		 ib_wc_status_msg(READ_ONCE(s->wc_error)) : "",
		 READ_ONCE(s->dreq_rcvd) ? ", the target disconnected" : "",
		 READ_ONCE(s->flushed), s->credits);
}

static void ini_lun(u8 *lun, u32 n)
{
	memset(lun, 0, 8);
	lun[0] = (n >> 8) & 0x3f;
	lun[1] = n & 0xff;
}

static struct srpt_desc ini_desc(struct ini_sess *s, int chunk, u32 off,
				 u32 len)
{
	struct srpt_desc d = {
		.va = s->chunk_dma[chunk] + off,
		.key = s->pd->unsafe_global_rkey,
		.len = len,
	};

	return d;
}

/**
 * ini_post_cmd() - send an SRP_CMD
 * @s: established session.
 * @c: the command; its tag is set here.
 *
 * An external descriptor table (fewer entries in the IU than in the
 * table) is written to the INI_TABLE_CHUNK first.
 *
 * Return: 0 or a negative errno.
 */
static int ini_post_cmd(struct ini_sess *s, struct srpt_cmd_build *c)
{
	u8 iu[INI_IU_SIZE];
	size_t len;
	u32 i;

	if (s->credits <= 0)
		return -ENOSPC;
	c->tag = s->next_tag++;
	if (c->fmt == SRPT_DESC_INDIRECT && c->ndesc_in_iu < c->ndesc) {
		u8 *t = s->chunk[INI_TABLE_CHUNK];

		for (i = 0; i < c->ndesc; i++)
			srpt_encode_desc(t + i * SRPT_DIRECT_DESC_LEN,
					 &c->desc[i]);
		ib_dma_sync_single_for_device(s->dev,
					      s->chunk_dma[INI_TABLE_CHUNK],
					      INI_CHUNK, DMA_BIDIRECTIONAL);
	}
	if (c->fmt == SRPT_DESC_INDIRECT)
		c->table = ini_desc(s, INI_TABLE_CHUNK, 0, 0);
	len = srpt_build_cmd(iu, sizeof(iu), c);
	if (!len)
		return -EINVAL;
	s->credits--;
	return ini_send_iu(s, iu, len);
}

/**
 * ini_scsi() - run one SCSI command and wait for its response
 * @s: established session.
 * @what: name of the command, for diagnostics.
 * @c: the command.
 * @resid: DATA-IN residual of the response, or NULL.
 *
 * Return: 0 for status GOOD, else a negative errno or the SCSI status
 * (described in a diagnostic).
 */
static int ini_scsi(struct ini_sess *s, const char *what,
		    struct srpt_cmd_build *c, u32 *resid)
{
	struct srpt_rsp_parsed r;
	struct ini_iu *iu;
	int ret;

	ret = ini_post_cmd(s, c);
	if (ret) {
		ini_diag("%s: %s: not sent (%d)", s->name, what, ret);
		return ret;
	}
	iu = ini_wait_rsp(s, c->tag, &r);
	if (!iu) {
		ini_why_no_rsp(s, what);
		return -ETIMEDOUT;
	}
	ret = r.status;
	if (ret)
		ini_diag("%s: %s: SCSI status 0x%02x, sense key 0x%x, ASC/ASCQ 0x%02x/0x%02x",
			 s->name, what, r.status,
			 r.sense_len > 2 ? r.sense[2] & 0xf : 0,
			 r.sense_len > 12 ? r.sense[12] : 0,
			 r.sense_len > 13 ? r.sense[13] : 0);
	if (resid)
		*resid = r.flags & (SRPT_RSP_FLAG_DIUNDER |
				    SRPT_RSP_FLAG_DIOVER) ? r.data_in_res : 0;
	kfree(iu);
	return ret;
}

/* ---- Commands ----------------------------------------------------------- */

static bool ini_need_main(void)
{
	return ini_check(ini_main && ini_main->established &&
			 !ini_gone(ini_main),
			 "a connected session (connect first)");
}

/**
 * ini_cmd_connect() - log in and stay connected
 * @a: the command's arguments.
 */
static void ini_cmd_connect(const struct ini_args *a)
{
	struct ini_sess *s;
	char why[200];
	u32 reason;
	u64 tag;

	ini_sess_free(ini_main);
	ini_main = NULL;
	s = ini_sess_alloc("main");
	if (!s)
		return;
	if (!ini_login(s, a)) {
		if (READ_ONCE(s->rej)) {
			ini_describe_rej(s, why, sizeof(why), &reason, &tag);
			ini_check(false, "main: login accepted (%s)", why);
		} else if (ini_establish(s, a->rtu_hold)) {
			ini_main = s;
			ini_main_args = *a;
			return;
		}
	}
	ini_sess_free(s);
}

/**
 * ini_cmd_login() - one login attempt, its outcome checked
 * @a: the command's arguments, with the expected outcome.
 *
 * An accepted login is taken to RTS and RTU, then ended by DREQ.
 */
static void ini_cmd_login(const struct ini_args *a)
{
	struct ini_sess *s = ini_sess_alloc("login");
	u32 want = 0, reason = 0;
	char why[200];
	u64 tag = 0;
	int cmrej = -1;

	if (!s)
		return;
	if (!strncmp(a->expect, "rej:", 4) && kstrtou32(a->expect + 4, 0, &want))
		want = 0;
	if (!strncmp(a->expect, "cmrej:", 6) && kstrtoint(a->expect + 6, 0,
							  &cmrej))
		cmrej = -1;
	if (ini_login(s, a))
		goto out;
	if (READ_ONCE(s->rep)) {
		ini_check(!strcmp(a->expect, "rsp"),
			  "login: accepted (expected %s)", a->expect);
		if (ini_establish(s, false))
			ini_check(ini_disconnect(s),
				  "login: ended by DREQ, answered by DREP");
		goto out;
	}
	ini_describe_rej(s, why, sizeof(why), &reason, &tag);
	if (cmrej >= 0)
		ini_check(s->rej_reason == cmrej, "login: %s (expected CM reason %d)",
			  why, cmrej);
	else if (want)
		ini_check(s->rej_reason == IB_CM_REJ_CONSUMER_DEFINED &&
			  reason == want &&
			  (a->tag_zero ? tag == 0 : tag == s->req_tag),
			  "login: %s (expected SRP_LOGIN_REJ 0x%08x, tag %s)",
			  why, want, a->tag_zero ? "0" : "echoed");
	else
		ini_check(false, "login: %s (expected %s)", why, a->expect);
out:
	ini_sess_free(s);
}

/**
 * ini_rw_check() - write, read back and compare with one descriptor format
 * @s: established session.
 * @lun: LUN field.
 * @lba: first block.
 * @blocks: number of blocks.
 * @bs: block size.
 * @fmt: SRPT_DESC_DIRECT or SRPT_DESC_INDIRECT.
 * @in_iu: indirect: descriptors in the IU (INI_NDESC, or 0 for an
 *	external table).
 * @label: the format's name.
 */
static void ini_rw_check(struct ini_sess *s, const u8 *lun, u64 lba,
			 u32 blocks, u32 bs, enum srpt_desc_fmt fmt,
			 u32 in_iu, const char *label)
{
	struct srpt_desc src[INI_NDESC], dst[INI_NDESC];
	u32 len = blocks * bs, ndesc, piece, i, k, resid = 0;
	struct srpt_cmd_build c = { };
	bool same = true;
	u32 first_bad = 0;
	int ret;

	ndesc = fmt == SRPT_DESC_DIRECT ? 1 : INI_NDESC;
	piece = len / ndesc;
	if (!ini_check(len && len % ndesc == 0 && piece + 512 <= INI_CHUNK &&
		       lba <= 0xffffffff - blocks && blocks <= 0xffff,
		       "%s: %u blocks of %u bytes fit the test buffers",
		       label, blocks, bs))
		return;
	/* Pieces at odd offsets of separate chunks: 1..4 out, 5..8 in. */
	for (i = 0; i < ndesc; i++) {
		src[i] = ini_desc(s, 1 + i, 8 * i + 100, piece);
		dst[i] = ini_desc(s, 5 + i, 8 * i + 300, piece);
		for (k = 0; k < piece; k++) {
			u32 pos = i * piece + k;

			((u8 *)s->chunk[1 + i])[8 * i + 100 + k] =
				(u8)(pos * 31 + (pos >> 8) + lba + fmt * 7 +
				     in_iu);
			((u8 *)s->chunk[5 + i])[8 * i + 300 + k] = 0xa5;
		}
		ib_dma_sync_single_for_device(s->dev, s->chunk_dma[1 + i],
					      INI_CHUNK, DMA_BIDIRECTIONAL);
		ib_dma_sync_single_for_device(s->dev, s->chunk_dma[5 + i],
					      INI_CHUNK, DMA_BIDIRECTIONAL);
	}

	memcpy(c.lun, lun, 8);
	c.cdb[0] = 0x2a;	/* WRITE(10) */
	put_unaligned_be32((u32)lba, &c.cdb[2]);
	put_unaligned_be16((u16)blocks, &c.cdb[7]);
	c.dir = SRPT_DIR_OUT;
	c.fmt = fmt;
	c.desc = src;
	c.ndesc = ndesc;
	c.ndesc_in_iu = in_iu;
	ret = ini_scsi(s, "WRITE(10)", &c, NULL);
	if (!ini_check(!ret, "%s: WRITE(10) of %u bytes at LBA %llu: status GOOD (%d)",
		       label, len, lba, ret))
		return;

	c.cdb[0] = 0x28;	/* READ(10) */
	c.dir = SRPT_DIR_IN;
	c.desc = dst;
	ret = ini_scsi(s, "READ(10)", &c, &resid);
	if (!ini_check(!ret && !resid,
		       "%s: READ(10) of %u bytes: status GOOD, no residual (%d, %u)",
		       label, len, ret, resid))
		return;
	for (i = 0; i < ndesc; i++) {
		ib_dma_sync_single_for_cpu(s->dev, s->chunk_dma[5 + i],
					   INI_CHUNK, DMA_BIDIRECTIONAL);
		for (k = 0; k < piece && same; k++) {
			if (((u8 *)s->chunk[1 + i])[8 * i + 100 + k] !=
			    ((u8 *)s->chunk[5 + i])[8 * i + 300 + k]) {
				same = false;
				first_bad = i * piece + k;
			}
		}
	}
	ini_check(same, "%s: the %u bytes read back are those written%s",
		  label, len, same ? "" : " (they differ)");
	if (!same)
		ini_diag("%s: first difference at byte %u", label, first_bad);
}

/**
 * ini_cmd_io() - SCSI commands and data checks on the main session
 * @a: the command's arguments.
 */
static void ini_cmd_io(const struct ini_args *a)
{
	struct ini_sess *s = ini_main;
	struct srpt_cmd_build c = { };
	struct srpt_desc d;
	u8 lun[8], *p;
	u64 blocks;
	u32 bs;
	int ret;

	if (!ini_need_main())
		return;
	ini_lun(lun, a->lun);
	memcpy(c.lun, lun, 8);

	p = s->chunk[0];
	memset(p, 0, 128);
	ib_dma_sync_single_for_device(s->dev, s->chunk_dma[0], INI_CHUNK,
				      DMA_BIDIRECTIONAL);
	d = ini_desc(s, 0, 0, 96);
	c.cdb[0] = 0x12;	/* INQUIRY */
	c.cdb[4] = 96;
	c.dir = SRPT_DIR_IN;
	c.fmt = SRPT_DESC_DIRECT;
	c.desc = &d;
	c.ndesc = 1;
	ret = ini_scsi(s, "INQUIRY", &c, NULL);
	ib_dma_sync_single_for_cpu(s->dev, s->chunk_dma[0], INI_CHUNK,
				   DMA_BIDIRECTIONAL);
	if (!ini_check(!ret,
		       "INQUIRY answered: status %d, type 0x%02x, vendor '%.8s', product '%.16s'",
		       ret, p[0] & 0x1f, p + 8, p + 16))
		return;

	memset(&c.cdb, 0, sizeof(c.cdb));
	memset(p, 0, 128);
	ib_dma_sync_single_for_device(s->dev, s->chunk_dma[0], INI_CHUNK,
				      DMA_BIDIRECTIONAL);
	c.cdb[0] = 0x9e;	/* SERVICE ACTION IN(16) */
	c.cdb[1] = 0x10;	/* READ CAPACITY(16) */
	c.cdb[13] = 32;
	d = ini_desc(s, 0, 0, 32);
	ret = ini_scsi(s, "READ CAPACITY(16)", &c, NULL);
	ib_dma_sync_single_for_cpu(s->dev, s->chunk_dma[0], INI_CHUNK,
				   DMA_BIDIRECTIONAL);
	blocks = get_unaligned_be64(p) + 1;
	bs = get_unaligned_be32(p + 8);
	if (!ini_check(!ret && bs >= 512 && bs <= 4096,
		       "READ CAPACITY(16) answered: %llu blocks of %u bytes",
		       blocks, bs))
		return;
	if (!ini_check(a->lba + 3ULL * a->blocks <= blocks,
		       "LBA %llu + 3 * %u blocks inside the LUN", a->lba,
		       a->blocks))
		return;
	ini_rw_check(s, lun, a->lba, a->blocks, bs, SRPT_DESC_DIRECT, 0,
		     "direct descriptor");
	ini_rw_check(s, lun, a->lba + a->blocks, a->blocks, bs,
		     SRPT_DESC_INDIRECT, INI_NDESC,
		     "indirect descriptors (4 in the IU)");
	ini_rw_check(s, lun, a->lba + 2ULL * a->blocks, a->blocks, bs,
		     SRPT_DESC_INDIRECT, 0,
		     "indirect descriptors (external table of 4)");
	ini_diag("credits left %d", s->credits);
}

/**
 * ini_tmf() - one task management request and its response code
 * @s: established session.
 * @lun: LUN field.
 * @func: SRPT_TMF_*.
 * @task: the task tag it names.
 *
 * Return: the response code, or -1 when none came.
 */
static int ini_tmf(struct ini_sess *s, const u8 *lun, u8 func, u64 task)
{
	struct srpt_rsp_parsed r;
	u8 iu[SRPT_TSK_MGMT_LEN];
	struct ini_iu *rsp;
	u64 tag;
	int code;

	if (s->credits <= 0)
		return -1;
	tag = s->next_tag++;
	srpt_build_tsk_mgmt(iu, sizeof(iu), tag, lun, func, task);
	s->credits--;
	if (ini_send_iu(s, iu, sizeof(iu)))
		return -1;
	rsp = ini_wait_rsp(s, tag, &r);
	if (!rsp) {
		ini_why_no_rsp(s, "task management");
		return -1;
	}
	code = r.resp_len >= 4 ? r.resp_data[3] : -1;
	kfree(rsp);
	return code;
}

static void ini_cmd_tmf(const struct ini_args *a)
{
	u8 lun[8];
	int code;

	if (!ini_need_main())
		return;
	ini_lun(lun, a->lun);
	code = ini_tmf(ini_main, lun, SRPT_TMF_LUN_RESET, 0);
	ini_check(code == SRPT_TMF_RSP_COMPLETE,
		  "LUN RESET: response code %d (0 is FUNCTION COMPLETE)", code);
	code = ini_tmf(ini_main, lun, SRPT_TMF_ABORT_TASK, 0x7e57);
	ini_check(code == SRPT_TMF_RSP_COMPLETE,
		  "ABORT TASK of an unknown tag: response code %d (0 is FUNCTION COMPLETE)",
		  code);
}

static void ini_cmd_logout(void)
{
	struct ini_sess *s = ini_main;
	u8 iu[SRPT_I_LOGOUT_LEN];
	int ret;

	if (!ini_need_main())
		return;
	srpt_build_i_logout(iu, sizeof(iu), s->next_tag++);
	ret = ini_send_iu(s, iu, sizeof(iu));
	if (ini_check(!ret, "SRP_I_LOGOUT sent (%d)", ret)) {
		wait_event_interruptible_timeout(s->wq,
						 READ_ONCE(s->dreq_rcvd),
						 msecs_to_jiffies(INI_TMO_MS));
		ini_check(READ_ONCE(s->dreq_rcvd),
			  "SRP_I_LOGOUT: the target disconnected (DREQ received, DREP sent)");
	}
	ini_sess_free(s);
	ini_main = NULL;
}

static void ini_cmd_dreq(void)
{
	if (!ini_need_main())
		return;
	ini_check(ini_disconnect(ini_main), "DREQ answered by a DREP");
	ini_sess_free(ini_main);
	ini_main = NULL;
}

/* Whether no send is outstanding (or a completion failed). */
static bool ini_sends_idle(struct ini_sess *s)
{
	unsigned long flags;
	bool idle = true;
	int i;

	spin_lock_irqsave(&s->lock, flags);
	for (i = 0; i < INI_QUEUE; i++)
		idle &= !s->sends[i].busy;
	spin_unlock_irqrestore(&s->lock, flags);
	return idle || READ_ONCE(s->wc_error);
}

/**
 * ini_cmd_inflight() - disconnect while the target works on commands
 * @a: the command's arguments.
 *
 * Sends @a->n WRITE(10) and READ(10) commands of INI_CHUNK bytes, waits
 * until every one of them was delivered (its send completed), and sends a
 * DREQ at once, without waiting for their responses.
 */
static void ini_cmd_inflight(const struct ini_args *a)
{
	struct ini_sess *s = ini_main;
	u32 i, sent = 0, nrsp = 0, blocks = INI_CHUNK / 512;
	struct srpt_desc d[INI_NCHUNK - 1];
	struct srpt_cmd_build c = { };
	struct ini_iu *iu, *tmp;
	unsigned long flags;
	bool drep;

	if (!ini_need_main())
		return;
	for (i = 0; i < INI_NCHUNK - 1; i++)
		d[i] = ini_desc(s, i, 0, INI_CHUNK);
	ini_lun(c.lun, a->lun);
	c.fmt = SRPT_DESC_DIRECT;
	c.ndesc = 1;
	for (i = 0; i < a->n && i < INI_QUEUE - 1; i++) {
		memset(c.cdb, 0, sizeof(c.cdb));
		c.cdb[0] = i & 1 ? 0x28 : 0x2a;
		c.dir = i & 1 ? SRPT_DIR_IN : SRPT_DIR_OUT;
		put_unaligned_be32((u32)(a->lba + (u64)(i % 8) * blocks),
				   &c.cdb[2]);
		put_unaligned_be16(blocks, &c.cdb[7]);
		c.desc = &d[i % (INI_NCHUNK - 1)];
		if (ini_post_cmd(s, &c))
			break;
		sent++;
	}
	/* Every request delivered: all send buffers completed. */
	wait_event_interruptible_timeout(s->wq, ini_sends_idle(s),
					 msecs_to_jiffies(INI_TMO_MS));
	spin_lock_irqsave(&s->lock, flags);
	list_for_each_entry(iu, &s->rsps, entry)
		nrsp++;
	spin_unlock_irqrestore(&s->lock, flags);
	ini_check(sent == a->n && !READ_ONCE(s->wc_error),
		  "%u of %u commands delivered, %u answered before the DREQ",
		  sent, a->n, nrsp);
	drep = ini_disconnect(s);
	ini_check(drep,
		  "DREQ with %u commands outstanding answered (DREP %d, target DREQ %d, DREQ error %d)",
		  sent - nrsp, READ_ONCE(s->drep_rcvd), READ_ONCE(s->dreq_rcvd),
		  READ_ONCE(s->dreq_err));
	spin_lock_irqsave(&s->lock, flags);
	s->draining = true;
	spin_unlock_irqrestore(&s->lock, flags);
	ib_drain_qp(s->qp);
	nrsp = 0;
	spin_lock_irqsave(&s->lock, flags);
	list_for_each_entry_safe(iu, tmp, &s->rsps, entry) {
		nrsp++;
		list_del(&iu->entry);
		kfree(iu);
	}
	spin_unlock_irqrestore(&s->lock, flags);
	ini_check(!READ_ONCE(s->wc_error),
		  "after the drain: %u responses in all, %u work requests flushed, no other completion error (%s)",
		  nrsp, READ_ONCE(s->flushed),
		  READ_ONCE(s->wc_error) ?
		  ib_wc_status_msg(READ_ONCE(s->wc_error)) : "none");
	s->posted = false;
	ini_sess_free(s);
	ini_main = NULL;
}

/**
 * ini_cmd_stale() - a REQ that reuses the QP number of a live connection
 *
 * The target's CM must reject it as a stale connection and disconnect the
 * live one (cm_match_req() in drivers/infiniband/core/cm.c); the target
 * must then release that channel.
 */
static void ini_cmd_stale(void)
{
	struct ini_sess *a = ini_main, *b;
	char why[200];
	u32 reason;
	u64 tag;

	if (!ini_need_main())
		return;
	b = ini_sess_alloc("stale");
	if (!b)
		return;
	b->cm = ib_create_cm_id(a->dev, ini_cm_handler, b);
	if (IS_ERR(b->cm)) {
		b->cm = NULL;
		ini_check(false, "stale: IB CM id created");
		goto out;
	}
	if (ini_send_req(b, a->rcm, &ini_main_args, a->qp->qp_num))
		goto out;
	if (!ini_wait_answer(b) || READ_ONCE(b->req_err)) {
		ini_check(false, "stale: REQ reusing QP %u answered",
			  a->qp->qp_num);
		goto out;
	}
	if (READ_ONCE(b->rep)) {
		ini_check(false, "stale: REQ reusing QP %u rejected (it was accepted)",
			  a->qp->qp_num);
		goto out;
	}
	ini_describe_rej(b, why, sizeof(why), &reason, &tag);
	ini_check(b->rej_reason == IB_CM_REJ_STALE_CONN,
		  "stale: REQ reusing QP %u: %s", a->qp->qp_num, why);
	wait_event_interruptible_timeout(a->wq, READ_ONCE(a->dreq_rcvd),
					 msecs_to_jiffies(INI_TMO_MS));
	ini_check(READ_ONCE(a->dreq_rcvd),
		  "stale: the live connection got a DREQ from the target");
out:
	ini_sess_free(b);
	ini_sess_free(ini_main);
	ini_main = NULL;
}

/**
 * ini_cmd_second() - a second login of the main session's initiator
 * @a: the command's arguments: multichannel flags and the expected result.
 *
 * SINGLE must end the main session's channel (the target sends it a DREQ)
 * and say so in the response; MULTI must keep it.  The second session is
 * ended by DREQ afterwards.
 */
static void ini_cmd_second(const struct ini_args *a)
{
	bool single = !strcmp(a->expect, "terminated");
	struct ini_args sa = ini_main_args;
	u8 want = single ? SRPT_LOGIN_RSP_TERMINATED :
		  SRPT_LOGIN_RSP_MAINTAINED;
	struct ini_sess *s;

	if (!ini_need_main())
		return;
	s = ini_sess_alloc("second");
	if (!s)
		return;
	sa.flags = a->flags;
	if (ini_login(s, &sa))
		goto out;
	if (!ini_check(READ_ONCE(s->rep), "second: login accepted"))
		goto out;
	if (!ini_establish(s, false))
		goto out;
	ini_check((s->login.rsp_flags & SRPT_LOGIN_MULTICHAN_MASK) == want,
		  "second: login response says %s (flags 0x%02x)",
		  single ? "other channels terminated" : "other channels maintained",
		  s->login.rsp_flags);
	if (single) {
		wait_event_interruptible_timeout(ini_main->wq,
						 READ_ONCE(ini_main->dreq_rcvd),
						 msecs_to_jiffies(INI_TMO_MS));
		ini_check(READ_ONCE(ini_main->dreq_rcvd),
			  "second: the first channel got a DREQ from the target");
	} else {
		ini_check(!ini_gone(ini_main),
			  "second: the first channel is still up");
	}
	ini_check(ini_disconnect(s), "second: ended by DREQ, answered by DREP");
out:
	ini_sess_free(s);
	if (single) {
		ini_sess_free(ini_main);
		ini_main = NULL;
	}
}

/**
 * ini_cmd_rtu() - send the RTU the main session held back
 * @a: the command's arguments: expect=closed when the target closed the
 *	channel while the RTU was held, else the channel must come up.
 *
 * A target that closes a channel before its RTU destroys the CM id, which
 * sends a REJ (a DREQ if the RTU got there first).  With expect=closed the
 * RTU may go out, or be refused by our CM because the REJ came first;
 * either way the REJ or DREQ must arrive, and the session ends.
 */
static void ini_cmd_rtu(const struct ini_args *a)
{
	bool closed = !strcmp(a->expect, "closed");
	struct ini_sess *s = ini_main;
	char why[200] = "";
	bool rej, dreq;
	u32 reason;
	u64 tag;
	int ret;

	if (!ini_check(s && s->rtu_held,
		       "a session with its RTU held (connect rtu=hold first)"))
		return;
	s->rtu_held = false;
	ret = ib_send_cm_rtu(s->cm, NULL, 0);
	if (!ret)
		s->established = true;
	if (!closed) {
		if (!ini_check(!ret, "%s: held RTU sent (%d)", s->name, ret)) {
			ini_sess_free(s);
			ini_main = NULL;
		}
		return;
	}
	wait_event_interruptible_timeout(s->wq, READ_ONCE(s->rej) ||
					 READ_ONCE(s->dreq_rcvd),
					 msecs_to_jiffies(INI_TMO_MS));
	rej = READ_ONCE(s->rej);
	dreq = READ_ONCE(s->dreq_rcvd);
	if (rej)
		ini_describe_rej(s, why, sizeof(why), &reason, &tag);
	ini_check(!ret || rej, "%s: held RTU %s (%d)", s->name,
		  !ret ? "sent" : rej ?
		  "refused by the CM: the target's REJ came first" :
		  "refused by the CM without a REJ", ret);
	ini_check(rej || dreq, "%s: the target ended the connection (%s)",
		  s->name, rej ? why : dreq ? "DREQ received, DREP sent" :
		  "no REJ or DREQ came");
	ini_sess_free(s);
	ini_main = NULL;
}

static void ini_cmd_close(void)
{
	ini_sess_free(ini_main);
	ini_main = NULL;
}

/* ---- Command line ------------------------------------------------------- */

static int ini_parse_id(const char *v, u8 *out, size_t n)
{
	size_t len = strlen(v);

	if (srpt_has_hex_prefix(v, len)) {
		v += 2;
		len -= 2;
	}
	return srpt_parse_hex(v, len, out, n);
}

/**
 * ini_parse() - parse a command line
 * @line: "COMMAND key=value ...", modified.
 * @a: the result, with defaults for what is not given.
 *
 * Return: 0 or -EINVAL.
 */
static int ini_parse(char *line, struct ini_args *a)
{
	char *tok, *val;
	u8 sid[8];
	int ret = 0;

	memset(a, 0, sizeof(*a));
	a->it_iu_len = INI_IT_IU_LEN;
	a->buf_fmt = SRPT_BUF_FMT_DIRECT | SRPT_BUF_FMT_INDIRECT;
	a->flags = SRPT_LOGIN_MULTICHAN_MULTI;
	a->blocks = 64;
	a->n = 32;
	strscpy(a->expect, "rsp", sizeof(a->expect));
	tok = strsep(&line, " \t\n");
	if (!tok || !*tok)
		return -EINVAL;
	strscpy(a->cmd, tok, sizeof(a->cmd));
	while (!ret && (tok = strsep(&line, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "dst")) {
			strscpy(a->dst, val, sizeof(a->dst));
		} else if (!strcmp(tok, "sid")) {
			ret = ini_parse_id(val, sid, sizeof(sid));
			a->sid = get_unaligned_be64(sid);
		} else if (!strcmp(tok, "tpid")) {
			ret = ini_parse_id(val, a->tpid, 16);
			a->have_tpid = true;
		} else if (!strcmp(tok, "ini")) {
			ret = ini_parse_id(val, a->ini, 16);
			a->have_ini = true;
		} else if (!strcmp(tok, "it_iu_len")) {
			ret = kstrtou32(val, 0, &a->it_iu_len);
		} else if (!strcmp(tok, "buf_fmt")) {
			ret = kstrtou16(val, 0, &a->buf_fmt);
		} else if (!strcmp(tok, "flags")) {
			ret = kstrtou8(val, 0, &a->flags);
		} else if (!strcmp(tok, "opcode")) {
			ret = kstrtou8(val, 0, &a->opcode);
		} else if (!strcmp(tok, "expect")) {
			strscpy(a->expect, val, sizeof(a->expect));
		} else if (!strcmp(tok, "tag")) {
			a->tag_zero = !strcmp(val, "zero");
		} else if (!strcmp(tok, "lun")) {
			ret = kstrtou32(val, 0, &a->lun);
		} else if (!strcmp(tok, "lba")) {
			ret = kstrtou64(val, 0, &a->lba);
		} else if (!strcmp(tok, "blocks")) {
			ret = kstrtou32(val, 0, &a->blocks);
		} else if (!strcmp(tok, "n")) {
			ret = kstrtou32(val, 0, &a->n);
		} else if (!strcmp(tok, "rtu")) {
			a->rtu_hold = !strcmp(val, "hold");
			ret = a->rtu_hold ? 0 : -EINVAL;
		} else {
			ret = -EINVAL;
		}
	}
	if (ret)
		return -EINVAL;
	if (!a->have_tpid) {
		put_unaligned_be64(a->sid, a->tpid);
		put_unaligned_be64(a->sid, a->tpid + 8);
	}
	return 0;
}

/**
 * ini_run() - run one command
 * @line: the command line, modified.
 *
 * Return: 0, or -EINVAL for a line that does not parse or lacks what its
 * command needs.
 */
static int ini_run(char *line)
{
	struct ini_args a;

	if (ini_parse(line, &a))
		return -EINVAL;
	if ((!strcmp(a.cmd, "connect") || !strcmp(a.cmd, "login")) &&
	    (!a.dst[0] || !a.sid || !a.have_ini))
		return -EINVAL;
	if (!strcmp(a.cmd, "connect"))
		ini_cmd_connect(&a);
	else if (!strcmp(a.cmd, "login"))
		ini_cmd_login(&a);
	else if (!strcmp(a.cmd, "io"))
		ini_cmd_io(&a);
	else if (!strcmp(a.cmd, "tmf"))
		ini_cmd_tmf(&a);
	else if (!strcmp(a.cmd, "logout"))
		ini_cmd_logout();
	else if (!strcmp(a.cmd, "dreq"))
		ini_cmd_dreq();
	else if (!strcmp(a.cmd, "inflight"))
		ini_cmd_inflight(&a);
	else if (!strcmp(a.cmd, "stale"))
		ini_cmd_stale();
	else if (!strcmp(a.cmd, "second"))
		ini_cmd_second(&a);
	else if (!strcmp(a.cmd, "rtu"))
		ini_cmd_rtu(&a);
	else if (!strcmp(a.cmd, "close"))
		ini_cmd_close();
	else
		return -EINVAL;
	return 0;
}

static ssize_t ini_ctl_write(struct file *f, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char *line;
	int ret;

	if (len >= 512)
		return -EINVAL;
	line = memdup_user_nul(ubuf, len);
	if (IS_ERR(line))
		return PTR_ERR(line);
	mutex_lock(&ini_mutex);
	ini_out_len = 0;
	ini_out[0] = '\0';
	ret = ini_run(line);
	mutex_unlock(&ini_mutex);
	kfree(line);
	return ret ? ret : len;
}

static ssize_t ini_out_read(struct file *f, char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&ini_mutex);
	ret = simple_read_from_buffer(ubuf, len, ppos, ini_out, ini_out_len);
	mutex_unlock(&ini_mutex);
	return ret;
}

static const struct file_operations ini_ctl_fops = {
	.owner = THIS_MODULE,
	.write = ini_ctl_write,
	.llseek = noop_llseek,
};

static const struct file_operations ini_out_fops = {
	.owner = THIS_MODULE,
	.read = ini_out_read,
	.llseek = default_llseek,
};

static int __init ini_init(void)
{
	ini_out = kzalloc(INI_OUT_SIZE, GFP_KERNEL);
	if (!ini_out)
		return -ENOMEM;
	ini_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("ctl", 0200, ini_dir, NULL, &ini_ctl_fops);
	debugfs_create_file("out", 0400, ini_dir, NULL, &ini_out_fops);
	return 0;
}

static void __exit ini_exit(void)
{
	debugfs_remove_recursive(ini_dir);
	mutex_lock(&ini_mutex);
	ini_sess_free(ini_main);
	ini_main = NULL;
	mutex_unlock(&ini_mutex);
	kfree(ini_out);
}

module_init(ini_init);
module_exit(ini_exit);
MODULE_DESCRIPTION("IB CM test initiator for SRP targets (VM tests only)");
MODULE_LICENSE("GPL");
