// SPDX-License-Identifier: GPL-2.0
/*
 * srpi: a small userspace SRP initiator over RDMA/CM.  See srpi.h.
 *
 * One connection is one RC queue pair with a completion channel; every wait
 * is poll(2) on the completion channel and the CM event channel with a
 * deadline, so nothing here blocks forever on a silent target.
 */
#include "srpi.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

struct srpi_conn {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *send_mr, *recv_mr, *data_mr;
	uint8_t *send_buf, *recv_buf, *data;
	size_t data_size;
	int depth;
	int *slot_busy;		/* per send slot: posted and not completed */
	int credits;
	int granted;		/* credits of the login response */
	int recv_hold;		/* receives posted once, never reposted */
	int gone;
	char gone_why[96];
	int t_logout_seen;
	uint32_t t_logout_reason;
	unsigned int unexpected;
	struct srpi_rsp *pending;	/* responses not yet collected */
	int npending, cap_pending;
	uint64_t tag_seq;
	uint16_t imm_offset;
	int verbose;
	int qp_created;
};

/* ---- byte helpers ------------------------------------------------------- */

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, (uint32_t)v);
}

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* Tags travel as raw bytes: the target echoes them unchanged. */
static void put_tag(uint8_t *p, uint64_t tag)
{
	memcpy(p, &tag, 8);
}

static uint64_t get_tag(const uint8_t *p)
{
	uint64_t t;

	memcpy(&t, p, 8);
	return t;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int srpi_parse_hex(const char *s, uint8_t *out, size_t n)
{
	size_t i, len;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	len = strlen(s);
	if (len == 0 || len > 2 * n)
		return -1;
	memset(out, 0, n);
	/* Right-aligned: "1234" is the number 0x1234. */
	for (i = 0; i < len; i++) {
		char ch = s[len - 1 - i];
		int v;

		if (ch >= '0' && ch <= '9')
			v = ch - '0';
		else if (ch >= 'a' && ch <= 'f')
			v = ch - 'a' + 10;
		else if (ch >= 'A' && ch <= 'F')
			v = ch - 'A' + 10;
		else
			return -1;
		out[n - 1 - i / 2] |= (uint8_t)(i % 2 ? v << 4 : v);
	}
	return 0;
}

/* ---- names -------------------------------------------------------------- */

const char *srpi_result_str(enum srpi_result r)
{
	switch (r) {
	case SRPI_OK:
		return "logged in";
	case SRPI_E_ADDR:
		return "address resolution failed";
	case SRPI_E_ROUTE:
		return "route resolution failed";
	case SRPI_E_REJECTED:
		return "login rejected";
	case SRPI_E_UNREACHABLE:
		return "target unreachable";
	case SRPI_E_CONNECT:
		return "connection error";
	case SRPI_E_TIMEOUT:
		return "timed out";
	case SRPI_E_SYSTEM:
		return "local error";
	case SRPI_E_BADRSP:
		return "invalid login response";
	}
	return "?";
}

const char *srpi_rej_str(uint32_t reason)
{
	switch (reason) {
	case 0x00010000:
		return "unable to establish RDMA channel, no reason given";
	case 0x00010001:
		return "insufficient RDMA channel resources";
	case 0x00010002:
		return "requested maximum initiator to target IU length too large";
	case 0x00010003:
		return "unable to associate RDMA channel with I_T nexus";
	case 0x00010004:
		return "requested descriptor formats not supported";
	case 0x00010005:
		return "multiple RDMA channels not supported";
	case 0x00010006:
		return "RDMA channel limit reached for this initiator";
	case 0x00010007:
		return "SCSI port already associated with this initiator";
	}
	return "unknown reason";
}

const char *srpi_cm_rej_str(int status)
{
	switch (status) {
	case 1:
		return "no QP";
	case 8:
		return "invalid service id";
	case 10:
		return "stale connection";
	case 13:
		return "invalid communication instance";
	case 26:
		return "timeout";
	case 28:
		return "consumer defined (the SRP target's reject)";
	case 30:
		return "duplicate local communication id";
	}
	return "other CM reject reason";
}

/* ---- IU builders -------------------------------------------------------- */

void srpi_put_lun(uint8_t *p, uint64_t lun)
{
	memset(p, 0, 8);
	if (lun < 256) {
		p[1] = (uint8_t)lun;
	} else {
		p[0] = 0x40 | ((lun >> 8) & 0x3f);
		p[1] = (uint8_t)lun;
	}
}

/*
 * The RDMA/CM form of SRP_LOGIN_REQ: the reserved fields are dropped so that
 * it fits the 56 bytes of private data RDMA/CM leaves over InfiniBand.
 */
size_t srpi_build_login(uint8_t *p, const struct srpi_login *l)
{
	memset(p, 0, SRPI_LOGIN_RDMA_LEN);
	put_tag(p, l->tag);
	put_be16(p + 8, l->buf_fmt);
	p[10] = l->flags;
	p[11] = SRPI_LOGIN_REQ;
	put_be32(p + 12, l->it_iu_len);
	memcpy(p + 16, l->initiator_id, 16);
	memcpy(p + 32, l->target_id, 16);
	put_be16(p + 48, l->imm_offset);
	return SRPI_LOGIN_RDMA_LEN;
}

static void put_desc(uint8_t *p, uint64_t va, uint32_t key, uint32_t len)
{
	put_be64(p, va);
	put_be32(p + 8, key);
	put_be32(p + 12, len);
}

size_t srpi_build_cmd(struct srpi_conn *c, uint8_t *iu, size_t max,
		      const struct srpi_cmd *cmd)
{
	uint32_t add = cmd->cdb_len > 16 ? (cmd->cdb_len - 16 + 3) & ~3u : 0;
	size_t off = SRPI_CMD_LEN + add, need;
	uint32_t n = cmd->ndesc ? cmd->ndesc : 1, i, chunk, done = 0;
	uint8_t fmt = 0, cnt = 0;
	uint8_t *tbl;

	if (add > 252 || max < off)
		return 0;
	memset(iu, 0, off);
	iu[0] = SRPI_CMD;
	put_tag(iu + 8, cmd->tag);
	srpi_put_lun(iu + 20, cmd->lun);
	iu[29] = cmd->task_attr;
	iu[31] = (uint8_t)add;
	memcpy(iu + 32, cmd->cdb, cmd->cdb_len < 16 + add ? cmd->cdb_len :
	       16 + add);
	if (cmd->dir == SRPI_DIR_NONE || cmd->fmt == SRPI_DESC_NONE)
		return off;

	switch (cmd->fmt) {
	case SRPI_DESC_DIRECT:
		need = off + 16;
		if (max < need)
			return 0;
		put_desc(iu + off, srpi_data_addr(c, cmd->data_off),
			 srpi_data_rkey(c), cmd->data_len);
		fmt = SRPI_DESC_DIRECT;
		off = need;
		break;
	case SRPI_DESC_INDIRECT:
	case SRPI_DESC_EXTERNAL:
		if (cmd->table_off + (size_t)n * 16 > c->data_size)
			return 0;
		need = off + 20 + (cmd->fmt == SRPI_DESC_INDIRECT ? n * 16 : 0);
		if (max < need || (n > 255 && cmd->fmt == SRPI_DESC_INDIRECT))
			return 0;
		/* The whole table lives in the data buffer... */
		tbl = c->data + cmd->table_off;
		chunk = cmd->data_len / n;
		for (i = 0; i < n; i++) {
			uint32_t len = i == n - 1 ? cmd->data_len - done : chunk;

			put_desc(tbl + (size_t)i * 16,
				 srpi_data_addr(c, cmd->data_off + done),
				 srpi_data_rkey(c), len);
			done += len;
		}
		put_desc(iu + off, srpi_data_addr(c, cmd->table_off),
			 srpi_data_rkey(c), n * 16);
		put_be32(iu + off + 16, cmd->data_len);
		/* ... and in the IU too when it is not external. */
		if (cmd->fmt == SRPI_DESC_INDIRECT) {
			memcpy(iu + off + 20, tbl, (size_t)n * 16);
			cnt = (uint8_t)n;
		}
		fmt = SRPI_DESC_INDIRECT;
		off = need;
		break;
	case SRPI_DESC_IMM:
		if (!c->imm_offset || c->imm_offset < off + 4 ||
		    max < (size_t)c->imm_offset + cmd->data_len)
			return 0;
		memset(iu + off, 0, c->imm_offset - off);
		put_be32(iu + off, cmd->data_len);
		if (cmd->imm)
			memcpy(iu + c->imm_offset, cmd->imm, cmd->data_len);
		fmt = SRPI_DESC_IMM;
		off = (size_t)c->imm_offset + cmd->data_len;
		break;
	default:
		return 0;
	}
	if (cmd->dir == SRPI_DIR_OUT) {
		iu[5] = (uint8_t)(fmt << 4);
		iu[6] = cnt;
	} else {
		iu[5] = fmt;
		iu[7] = cnt;
	}
	return off;
}

size_t srpi_build_tmf(uint8_t *iu, uint64_t tag, uint64_t lun, uint8_t func,
		      uint64_t task_tag)
{
	memset(iu, 0, SRPI_TMF_LEN);
	iu[0] = SRPI_TSK_MGMT;
	put_tag(iu + 8, tag);
	srpi_put_lun(iu + 20, lun);
	iu[30] = func;
	put_tag(iu + 32, task_tag);
	return SRPI_TMF_LEN;
}

size_t srpi_build_i_logout(uint8_t *iu, uint64_t tag)
{
	memset(iu, 0, 16);
	iu[0] = SRPI_I_LOGOUT;
	put_tag(iu + 8, tag);
	return 16;
}

/* ---- connection --------------------------------------------------------- */

uint8_t *srpi_data(struct srpi_conn *c)
{
	return c->data;
}

uint64_t srpi_data_addr(const struct srpi_conn *c, size_t off)
{
	return (uint64_t)(uintptr_t)(c->data + off);
}

uint32_t srpi_data_rkey(const struct srpi_conn *c)
{
	return c->data_mr->rkey;
}

uint64_t srpi_next_tag(struct srpi_conn *c)
{
	return ++c->tag_seq;
}

int srpi_credits(const struct srpi_conn *c)
{
	return c->credits;
}

int srpi_granted(const struct srpi_conn *c)
{
	return c->granted;
}

int srpi_gone(const struct srpi_conn *c)
{
	return c->gone;
}

const char *srpi_gone_why(const struct srpi_conn *c)
{
	return c->gone ? c->gone_why : "connected";
}

uint32_t srpi_t_logout_reason(const struct srpi_conn *c, int *seen)
{
	*seen = c->t_logout_seen;
	return c->t_logout_reason;
}

unsigned int srpi_unexpected(const struct srpi_conn *c)
{
	return c->unexpected;
}

uint16_t srpi_imm_offset(const struct srpi_conn *c)
{
	return c->imm_offset;
}

void srpi_set_imm_offset(struct srpi_conn *c, uint16_t off)
{
	c->imm_offset = off;
}

int srpi_local_port_guid(const struct srpi_conn *c, uint8_t guid[8])
{
	union ibv_gid gid;

	if (ibv_query_gid(c->id->verbs, c->id->port_num, 0, &gid))
		return -1;
	memcpy(guid, gid.raw + 8, 8);
	return 0;
}

static void set_gone(struct srpi_conn *c, const char *why)
{
	if (c->gone)
		return;
	c->gone = 1;
	snprintf(c->gone_why, sizeof(c->gone_why), "%s", why);
}

/* Wait for the next CM event on the connection's id, with a deadline. */
static struct rdma_cm_event *wait_cm(struct srpi_conn *c, int timeout_ms)
{
	struct rdma_cm_event *ev;
	struct pollfd pfd = { .fd = c->ec->fd, .events = POLLIN };
	long long end = now_ms() + timeout_ms;

	for (;;) {
		if (rdma_get_cm_event(c->ec, &ev) == 0)
			return ev;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return NULL;
		if (now_ms() >= end)
			return NULL;
		if (poll(&pfd, 1, (int)(end - now_ms())) < 0 && errno != EINTR)
			return NULL;
	}
}

static int post_recv(struct srpi_conn *c, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->recv_buf + (size_t)i * SRPI_RECV_SIZE),
		.length = SRPI_RECV_SIZE,
		.lkey = c->recv_mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = (uint64_t)i,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

static int setup_qp(struct srpi_conn *c, size_t data_size)
{
	struct ibv_qp_init_attr attr = { 0 };
	int i, flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		       IBV_ACCESS_REMOTE_WRITE;

	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cc = c->pd ? ibv_create_comp_channel(c->id->verbs) : NULL;
	c->cq = c->cc ? ibv_create_cq(c->id->verbs, 2 * c->depth + 4, c, c->cc,
				      0) : NULL;
	if (!c->cq || ibv_req_notify_cq(c->cq, 0))
		return -1;
	if (fcntl(c->cc->fd, F_SETFL, fcntl(c->cc->fd, F_GETFL) | O_NONBLOCK))
		return -1;
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 1;
	attr.cap.max_send_wr = c->depth;
	attr.cap.max_recv_wr = c->depth;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &attr))
		return -1;
	c->qp_created = 1;
	c->send_buf = calloc(c->depth, SRPI_SLOT_SIZE);
	c->recv_buf = calloc(c->depth, SRPI_RECV_SIZE);
	c->data = calloc(1, data_size);
	c->slot_busy = calloc(c->depth, sizeof(int));
	if (!c->send_buf || !c->recv_buf || !c->data || !c->slot_busy)
		return -1;
	c->data_size = data_size;
	c->send_mr = ibv_reg_mr(c->pd, c->send_buf,
				(size_t)c->depth * SRPI_SLOT_SIZE, 0);
	c->recv_mr = ibv_reg_mr(c->pd, c->recv_buf,
				(size_t)c->depth * SRPI_RECV_SIZE,
				IBV_ACCESS_LOCAL_WRITE);
	c->data_mr = ibv_reg_mr(c->pd, c->data, data_size, flags);
	if (!c->send_mr || !c->recv_mr || !c->data_mr)
		return -1;
	for (i = 0; i < (c->recv_hold ? c->recv_hold : c->depth); i++)
		if (post_recv(c, i))
			return -1;
	return 0;
}

void srpi_close(struct srpi_conn *c)
{
	if (!c)
		return;
	if (c->qp_created)
		rdma_destroy_qp(c->id);
	if (c->data_mr)
		ibv_dereg_mr(c->data_mr);
	if (c->recv_mr)
		ibv_dereg_mr(c->recv_mr);
	if (c->send_mr)
		ibv_dereg_mr(c->send_mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ec)
		rdma_destroy_event_channel(c->ec);
	free(c->send_buf);
	free(c->recv_buf);
	free(c->data);
	free(c->slot_busy);
	free(c->pending);
	free(c);
}

static void fail(struct srpi_outcome *out, enum srpi_result r, const char *fmt,
		 const char *detail)
{
	out->result = r;
	snprintf(out->msg, sizeof(out->msg), fmt, detail);
}

/* Decode the event that ended a connect attempt. */
static void connect_event(struct srpi_conn *c, struct rdma_cm_event *ev,
			  const uint8_t *login, size_t login_len,
			  struct srpi_outcome *out)
{
	static const uint8_t zero[8];

	/* The tag is the first 8 bytes; missing bytes travel as zeros. */
	if (!login || login_len < 8)
		login = zero;
	const uint8_t *pd = ev->param.conn.private_data;
	uint8_t len = ev->param.conn.private_data_len;

	out->cm_status = ev->status;
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		if (!pd || len < 52 || pd[0] != SRPI_LOGIN_RSP) {
			fail(out, SRPI_E_BADRSP, "%s",
			     "the connection was accepted without an SRP_LOGIN_RSP");
			return;
		}
		out->result = SRPI_OK;
		out->req_lim = get_be32(pd + 4);
		out->tag_ok = memcmp(pd + 8, login, 8) == 0;
		out->max_it_iu_len = get_be32(pd + 16);
		out->max_ti_iu_len = get_be32(pd + 20);
		out->buf_fmt = get_be16(pd + 24);
		out->rsp_flags = pd[26];
		c->credits = (int)out->req_lim;
		c->granted = c->credits;
		return;
	case RDMA_CM_EVENT_REJECTED:
		out->result = SRPI_E_REJECTED;
		if (pd && len >= 32 && pd[0] == SRPI_LOGIN_REJ) {
			out->has_rej = 1;
			out->rej_reason = get_be32(pd + 4);
			out->tag_ok = memcmp(pd + 8, login, 8) == 0;
			out->rej_buf_fmt = get_be16(pd + 24);
			snprintf(out->msg, sizeof(out->msg),
				 "SRP_LOGIN_REJ reason 0x%08x: %s",
				 out->rej_reason, srpi_rej_str(out->rej_reason));
		} else if (ev->status == 8) {
			/* No listener bound to that port (service id). */
			fail(out, SRPI_E_UNREACHABLE, "%s",
			     "CM reject 8 (invalid service id): nothing listens on that port");
		} else {
			snprintf(out->msg, sizeof(out->msg),
				 "CM reject %d (%s) without SRP_LOGIN_REJ",
				 ev->status, srpi_cm_rej_str(ev->status));
		}
		return;
	case RDMA_CM_EVENT_UNREACHABLE:
		fail(out, SRPI_E_UNREACHABLE, "%s",
		     "no answer to the connect request (is the target listening on that port?)");
		return;
	default:
		fail(out, SRPI_E_CONNECT, "unexpected CM event %s",
		     rdma_event_str(ev->event));
		return;
	}
}

/* Resolve, create the QP and connect; @out says how far it got. */
static int do_connect(struct srpi_conn *c, const struct srpi_opts *o,
		      const void *login, size_t login_len,
		      struct srpi_outcome *out)
{
	struct rdma_conn_param param = { 0 };
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	struct ibv_device_attr da;
	struct rdma_cm_event *ev;
	uint8_t pd[SRPI_LOGIN_RDMA_LEN + 200];
	enum rdma_cm_event_type want[2] = { RDMA_CM_EVENT_ADDR_RESOLVED,
					    RDMA_CM_EVENT_ROUTE_RESOLVED };
	int step, rc;

	if (login_len > sizeof(pd)) {
		fail(out, SRPI_E_SYSTEM, "%s", "login private data too long");
		return -1;
	}
	rc = getaddrinfo(o->host, o->port, &hints, &ai);
	if (rc) {
		fail(out, SRPI_E_ADDR, "%s", gai_strerror(rc));
		return -1;
	}
	rc = rdma_resolve_addr(c->id, NULL, ai->ai_addr, o->timeout_ms);
	freeaddrinfo(ai);
	if (rc) {
		fail(out, SRPI_E_ADDR, "rdma_resolve_addr: %s", strerror(errno));
		return -1;
	}
	for (step = 0; step < 2; step++) {
		if (step == 1 && rdma_resolve_route(c->id, o->timeout_ms)) {
			fail(out, SRPI_E_ROUTE, "rdma_resolve_route: %s",
			     strerror(errno));
			return -1;
		}
		ev = wait_cm(c, o->timeout_ms + 1000);
		if (!ev) {
			fail(out, SRPI_E_TIMEOUT, "%s",
			     step ? "no route resolution event" :
				    "no address resolution event");
			return -1;
		}
		if (ev->event != want[step]) {
			out->cm_status = ev->status;
			fail(out, step ? SRPI_E_ROUTE : SRPI_E_ADDR,
			     "%s (no RDMA device reaches that address?)",
			     rdma_event_str(ev->event));
			rdma_ack_cm_event(ev);
			return -1;
		}
		rdma_ack_cm_event(ev);
	}
	if (setup_qp(c, o->data_size)) {
		fail(out, SRPI_E_SYSTEM, "creating the queue pair and buffers: %s",
		     strerror(errno));
		return -1;
	}
	if (ibv_query_device(c->id->verbs, &da))
		memset(&da, 0, sizeof(da));
	if (o->ini_port_guid && login_len >= 32) {
		memcpy(pd, login, login_len);
		if (srpi_local_port_guid(c, pd + 24)) {
			fail(out, SRPI_E_SYSTEM, "%s", "reading the local port GUID");
			return -1;
		}
		login = pd;
	}
	param.private_data = login;
	param.private_data_len = (uint8_t)login_len;
	/* The target RDMA READs our buffers: we are its responder. */
	param.responder_resources = da.max_qp_rd_atom ? da.max_qp_rd_atom : 1;
	param.initiator_depth = da.max_qp_init_rd_atom ? 1 : 0;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	param.flow_control = 1;
	if (c->verbose)
		fprintf(stderr, "srpi: sending the login request\n");
	if (rdma_connect(c->id, &param)) {
		fail(out, SRPI_E_CONNECT, "rdma_connect: %s", strerror(errno));
		return -1;
	}
	ev = wait_cm(c, o->timeout_ms + 2000);
	if (!ev) {
		fail(out, SRPI_E_TIMEOUT, "%s",
		     "no answer to the login within the timeout");
		return -1;
	}
	connect_event(c, ev, login, login_len, out);
	rdma_ack_cm_event(ev);
	return out->result == SRPI_OK ? 0 : -1;
}

struct srpi_conn *srpi_connect(const struct srpi_opts *o,
			       const void *login, size_t login_len,
			       struct srpi_outcome *out)
{
	struct srpi_conn *c = calloc(1, sizeof(*c));

	memset(out, 0, sizeof(*out));
	if (!c) {
		fail(out, SRPI_E_SYSTEM, "%s", strerror(ENOMEM));
		return NULL;
	}
	c->depth = o->queue_depth > 0 ? o->queue_depth : 64;
	if (o->recv_hold > 0 && o->recv_hold < c->depth)
		c->recv_hold = o->recv_hold;
	c->verbose = o->verbose;
	c->tag_seq = 0x1000;
	c->ec = rdma_create_event_channel();
	if (!c->ec || rdma_create_id(c->ec, &c->id, c, RDMA_PS_TCP)) {
		fail(out, SRPI_E_SYSTEM, "RDMA/CM: %s (is rdma_ucm loaded?)",
		     strerror(errno));
		srpi_close(c);
		return NULL;
	}
	if (fcntl(c->ec->fd, F_SETFL, fcntl(c->ec->fd, F_GETFL) | O_NONBLOCK)) {
		fail(out, SRPI_E_SYSTEM, "%s", strerror(errno));
		srpi_close(c);
		return NULL;
	}
	if (do_connect(c, o, login, login_len, out)) {
		srpi_close(c);
		return NULL;
	}
	return c;
}

/* ---- completions -------------------------------------------------------- */

static int add_pending(struct srpi_conn *c, const struct srpi_rsp *r)
{
	if (c->npending == c->cap_pending) {
		int cap = c->cap_pending ? 2 * c->cap_pending : 64;
		struct srpi_rsp *p = realloc(c->pending, cap * sizeof(*p));

		if (!p)
			return -1;
		c->pending = p;
		c->cap_pending = cap;
	}
	c->pending[c->npending++] = *r;
	return 0;
}

static int send_slot(struct srpi_conn *c, const void *iu, size_t len);

static void answer(struct srpi_conn *c, uint8_t op, const uint8_t *req)
{
	uint8_t rsp[16] = { op };

	memcpy(rsp + 8, req + 8, 8);
	send_slot(c, rsp, sizeof(rsp));
}

static void decode_rsp(const uint8_t *p, uint32_t len, struct srpi_rsp *r)
{
	uint32_t off;

	memset(r, 0, sizeof(*r));
	r->req_lim_delta = get_be32(p + 4);
	r->tag = get_tag(p + 8);
	r->flags = p[18];
	r->status = p[19];
	r->do_resid = get_be32(p + 20);
	r->di_resid = get_be32(p + 24);
	r->sense_len = (r->flags & SRPI_SNSVALID) ? get_be32(p + 28) : 0;
	r->iu_len = len;
	r->resp_len = (r->flags & SRPI_RSPVALID) ? get_be32(p + 32) : 0;
	off = SRPI_RSP_LEN;
	if (r->resp_len && r->resp_len <= len - off)
		memcpy(r->resp, p + off, r->resp_len < 8 ? r->resp_len : 8);
	if (r->resp_len <= len - off)
		off += r->resp_len;
	if (r->sense_len && off < len) {
		uint32_t n = len - off < r->sense_len ? len - off : r->sense_len;

		r->sense_got = n;
		memcpy(r->sense, p + off, n < 96 ? n : 96);
		if ((r->sense[0] & 0x7f) >= 0x72) {
			r->key = r->sense[1] & 0xf;
			r->asc = r->sense[2];
			r->ascq = r->sense[3];
		} else {
			r->key = r->sense[2] & 0xf;
			r->asc = r->sense[12];
			r->ascq = r->sense[13];
		}
	}
}

static void handle_recv(struct srpi_conn *c, const uint8_t *p, uint32_t len)
{
	struct srpi_rsp r;

	if (c->verbose)
		fprintf(stderr, "srpi: received IU opcode 0x%02x, %u bytes\n",
			len ? p[0] : 0, len);
	if (len < 16) {
		c->unexpected++;
		return;
	}
	switch (p[0]) {
	case SRPI_RSP:
		if (len < SRPI_RSP_LEN) {
			c->unexpected++;
			return;
		}
		decode_rsp(p, len, &r);
		c->credits += (int)r.req_lim_delta;
		if (add_pending(c, &r))
			set_gone(c, "out of memory");
		return;
	case SRPI_CRED_REQ:
		c->credits += (int)get_be32(p + 4);
		answer(c, SRPI_CRED_RSP, p);
		return;
	case SRPI_AER_REQ:
		c->credits += (int)get_be32(p + 4);
		answer(c, SRPI_AER_RSP, p);
		return;
	case SRPI_T_LOGOUT:
		c->t_logout_seen = 1;
		c->t_logout_reason = get_be32(p + 4);
		return;
	default:
		c->unexpected++;
		return;
	}
}

static int drain_cq(struct srpi_conn *c)
{
	struct ibv_wc wc[16];
	int n, i, total = 0;
	char why[96];

	while ((n = ibv_poll_cq(c->cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			total++;
			if (wc[i].status != IBV_WC_SUCCESS) {
				snprintf(why, sizeof(why), "%s completion: %s",
					 wc[i].opcode & IBV_WC_RECV ? "receive" :
					 "send", ibv_wc_status_str(wc[i].status));
				if (!(wc[i].opcode & IBV_WC_RECV) &&
				    wc[i].wr_id < (uint64_t)c->depth)
					c->slot_busy[wc[i].wr_id] = 0;
				set_gone(c, why);
				continue;
			}
			if (wc[i].opcode & IBV_WC_RECV) {
				int s = (int)wc[i].wr_id;

				handle_recv(c, c->recv_buf +
					    (size_t)s * SRPI_RECV_SIZE,
					    wc[i].byte_len);
				if (!c->gone && !c->recv_hold && post_recv(c, s))
					set_gone(c, "reposting a receive failed");
			} else if (wc[i].wr_id < (uint64_t)c->depth) {
				c->slot_busy[wc[i].wr_id] = 0;
			}
		}
	}
	return total;
}

static void drain_cm(struct srpi_conn *c)
{
	struct rdma_cm_event *ev;
	char why[96];

	while (rdma_get_cm_event(c->ec, &ev) == 0) {
		switch (ev->event) {
		case RDMA_CM_EVENT_DISCONNECTED:
			set_gone(c, "the target disconnected");
			break;
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			set_gone(c, "the RDMA device went away");
			break;
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			break;
		default:
			snprintf(why, sizeof(why), "CM event %s",
				 rdma_event_str(ev->event));
			set_gone(c, why);
			break;
		}
		rdma_ack_cm_event(ev);
	}
}

int srpi_poll(struct srpi_conn *c, int timeout_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = c->cc->fd, .events = POLLIN },
		{ .fd = c->ec->fd, .events = POLLIN },
	};
	struct ibv_cq *cq;
	void *ctx;
	int n;

	drain_cm(c);
	n = drain_cq(c);
	if (n)
		return n;
	if (ibv_req_notify_cq(c->cq, 0))
		set_gone(c, "arming the completion queue failed");
	n = drain_cq(c);
	if (n)
		return n;
	if (poll(pfd, 2, timeout_ms) > 0 && (pfd[0].revents & POLLIN) &&
	    ibv_get_cq_event(c->cc, &cq, &ctx) == 0)
		ibv_ack_cq_events(cq, 1);
	drain_cm(c);
	return drain_cq(c);
}

static int send_slot(struct srpi_conn *c, const void *iu, size_t len)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = { 0 }, *bad;
	int i;

	if (len > SRPI_SLOT_SIZE)
		return -EINVAL;
	for (i = 0; i < c->depth && c->slot_busy[i]; i++)
		;
	if (i == c->depth)
		return -EAGAIN;
	memcpy(c->send_buf + (size_t)i * SRPI_SLOT_SIZE, iu, len);
	sge.addr = (uintptr_t)(c->send_buf + (size_t)i * SRPI_SLOT_SIZE);
	sge.length = (uint32_t)len;
	sge.lkey = c->send_mr->lkey;
	wr.wr_id = (uint64_t)i;
	wr.sg_list = &sge;
	wr.num_sge = len ? 1 : 0;
	wr.opcode = IBV_WR_SEND;
	if (ibv_post_send(c->id->qp, &wr, &bad))
		return -EIO;
	c->slot_busy[i] = 1;
	if (c->verbose)
		fprintf(stderr, "srpi: sent IU opcode 0x%02x, %zu bytes\n",
			len ? ((const uint8_t *)iu)[0] : 0, len);
	return 0;
}

int srpi_send(struct srpi_conn *c, const void *iu, size_t len)
{
	long long end = now_ms() + 10000;
	int ret;

	for (;;) {
		if (c->gone)
			return SRPI_GONE;
		ret = send_slot(c, iu, len);
		if (ret != -EAGAIN)
			return ret ? SRPI_GONE : 0;
		if (now_ms() >= end)
			return SRPI_TIMEDOUT;
		srpi_poll(c, 100);
	}
}

int srpi_recv_release(struct srpi_conn *c)
{
	int i, first = c->recv_hold;

	if (!first)
		return 0;
	c->recv_hold = 0;
	for (i = first; i < c->depth; i++)
		if (post_recv(c, i))
			return SRPI_GONE;
	return 0;
}

int srpi_send_credit(struct srpi_conn *c, const void *iu, size_t len)
{
	long long end = now_ms() + 30000;
	int ret;

	while (c->credits <= 0) {
		if (c->gone)
			return SRPI_GONE;
		if (now_ms() >= end)
			return SRPI_TIMEDOUT;
		srpi_poll(c, 100);
	}
	ret = srpi_send(c, iu, len);
	if (!ret)
		c->credits--;
	return ret;
}

int srpi_wait_rsp(struct srpi_conn *c, uint64_t tag, int timeout_ms,
		  struct srpi_rsp *rsp)
{
	long long end = now_ms() + timeout_ms;
	int i;

	for (;;) {
		for (i = 0; i < c->npending; i++) {
			if (tag != UINT64_MAX && c->pending[i].tag != tag)
				continue;
			*rsp = c->pending[i];
			memmove(c->pending + i, c->pending + i + 1,
				(c->npending - i - 1) * sizeof(*rsp));
			c->npending--;
			return 0;
		}
		if (c->gone)
			return SRPI_GONE;
		if (now_ms() >= end)
			return SRPI_TIMEDOUT;
		srpi_poll(c, (int)(end - now_ms()));
	}
}

int srpi_wait_gone(struct srpi_conn *c, int timeout_ms)
{
	long long end = now_ms() + timeout_ms;

	while (!c->gone && now_ms() < end)
		srpi_poll(c, (int)(end - now_ms()));
	return c->gone ? 0 : SRPI_TIMEDOUT;
}

void srpi_disconnect(struct srpi_conn *c)
{
	rdma_disconnect(c->id);
	srpi_wait_gone(c, 2000);
}

int srpi_scsi(struct srpi_conn *c, struct srpi_cmd *cmd, int timeout_ms,
	      struct srpi_rsp *rsp)
{
	static uint8_t iu[SRPI_SLOT_SIZE];
	size_t len;
	int ret;

	if (!cmd->tag)
		cmd->tag = srpi_next_tag(c);
	len = srpi_build_cmd(c, iu, sizeof(iu), cmd);
	if (!len)
		return -EINVAL;
	ret = srpi_send_credit(c, iu, len);
	if (ret)
		return ret;
	return srpi_wait_rsp(c, cmd->tag, timeout_ms, rsp);
}
