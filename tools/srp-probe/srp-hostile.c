// SPDX-License-Identifier: GPL-2.0
/*
 * srp-hostile: send an SRP target what a broken or malicious initiator
 * could, and check the target's exact answer to each: the SRP_LOGIN_REJ
 * reason, the SRP_RSP status and sense data, the task management response
 * code, or a clean disconnect, and that the target still serves a
 * well-behaved channel afterwards.  Prints TAP.
 *
 * The expected answers are those of the SRP r16a specification where it
 * fixes them, and otherwise those ib_srpt documents (Documentation/srpt.rst,
 * "Malformed requests").  The LUN given with --lun must be one this
 * initiator may overwrite.
 */
#include "srpi.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REJ_UNABLE	0x00010000
#define REJ_IU_LEN	0x00010002
#define REJ_ASSOCIATE	0x00010003
#define REJ_FMT		0x00010004
#define IMM_OFFSET	80
#define MB		(1u << 20)

struct ctx {
	struct srpi_opts o;
	struct srpi_login l;	/* a login the target accepts */
	uint32_t max_req;	/* the target's srp_max_req_size */
	uint64_t lun;
	int srq;
	uint32_t sq_size;	/* --sq-size: the target's srp_sq_size */
	int mr_pool;		/* --mr-pool: its RDMA R/W registers memory */
	const char *fault_dir;	/* --fault-dir: the driver's debugfs */
	int burst;		/* --credit-burst: WRITEs of the credit case */
	const char *channels_cmd;	/* --channels-cmd: counts our channels */
	char count_err[160];	/* why the last count failed */
	const char *only;
	int n, failed;
};

static uint8_t iu[SRPI_SLOT_SIZE];

static int want(struct ctx *x, const char *name)
{
	return !x->only || strstr(name, x->only);
}

static void result(struct ctx *x, int pass, const char *name,
		   const char *fmt, ...)
{
	va_list ap;

	x->n++;
	printf("%sok %d - %s\n", pass ? "" : "not ", x->n, name);
	if (!pass) {
		x->failed++;
		if (fmt) {
			printf("# ");
			va_start(ap, fmt);
			vprintf(fmt, ap);
			va_end(ap);
			printf("\n");
		}
	}
	fflush(stdout);
}

/* ---- logins ------------------------------------------------------------- */

static struct srpi_conn *login_raw(struct ctx *x, const uint8_t *pd,
				   size_t len, struct srpi_outcome *out)
{
	struct srpi_opts o = x->o;

	return srpi_connect(&o, pd, len, out);
}

static struct srpi_conn *login(struct ctx *x, const struct srpi_login *l,
			       struct srpi_outcome *out)
{
	uint8_t pd[SRPI_LOGIN_RDMA_LEN];
	struct srpi_conn *c;

	srpi_build_login(pd, l);
	c = login_raw(x, pd, sizeof(pd), out);
	if (c && (out->rsp_flags & SRPI_RSP_IMMED_SUPP))
		srpi_set_imm_offset(c, l->imm_offset);
	return c;
}

/* A channel that must open; NULL after reporting the failure. */
static struct srpi_conn *open_ch(struct ctx *x, const char *name)
{
	struct srpi_outcome out;
	struct srpi_conn *c = login(x, &x->l, &out);

	if (!c)
		result(x, 0, name, "login failed: %s: %s",
		       srpi_result_str(out.result), out.msg);
	return c;
}

static void expect_rej(struct ctx *x, const char *name,
		       const struct srpi_login *l, uint32_t reason)
{
	struct srpi_outcome out;
	struct srpi_conn *c;

	if (!want(x, name))
		return;
	c = login(x, l, &out);
	if (c) {
		result(x, 0, name, "login accepted, expected reject 0x%08x",
		       reason);
		srpi_disconnect(c);
		srpi_close(c);
		return;
	}
	result(x, out.result == SRPI_E_REJECTED && out.has_rej &&
	       out.rej_reason == reason && out.tag_ok, name,
	       "%s: %s (expected SRP_LOGIN_REJ 0x%08x with the request's tag)",
	       srpi_result_str(out.result), out.msg, reason);
}

static void expect_rej_raw(struct ctx *x, const char *name, const uint8_t *pd,
			   size_t len, uint32_t reason)
{
	struct srpi_outcome out;
	struct srpi_conn *c;

	if (!want(x, name))
		return;
	c = login_raw(x, pd, len, &out);
	if (c) {
		result(x, 0, name, "login accepted, expected reject");
		srpi_disconnect(c);
		srpi_close(c);
		return;
	}
	result(x, out.result == SRPI_E_REJECTED && out.has_rej &&
	       out.rej_reason == reason, name, "%s: %s (expected 0x%08x)",
	       srpi_result_str(out.result), out.msg, reason);
}

/* TEST UNIT READY until GOOD (a reset leaves a unit attention first). */
static int tur(struct srpi_conn *c, uint64_t lun, struct srpi_rsp *r)
{
	struct srpi_cmd cmd = { .lun = lun, .cdb_len = 6 };
	int i, ret = -1;

	for (i = 0; i < 3; i++) {
		cmd.tag = 0;
		ret = srpi_scsi(c, &cmd, 10000, r);
		if (ret || r->status != 0x02 || r->key != 0x6)
			break;
	}
	return ret ? ret : r->status;
}

static void expect_alive(struct ctx *x, struct srpi_conn *c, const char *name)
{
	struct srpi_rsp r;
	int ret = tur(c, x->lun, &r);

	result(x, ret == 0, name, "TEST UNIT READY: %s",
	       ret == SRPI_GONE ? srpi_gone_why(c) :
	       ret == SRPI_TIMEDOUT ? "no response" : "error status");
}

/*
 * Every credit the login granted is back once everything is answered: a
 * response carries all the credits the target owes at that moment, and
 * those of requests finished without a response (dropped IUs, aborted
 * commands) come with a later one.  TEST UNIT READY until the initiator
 * holds the login's grant again (at most 10 s); more or fewer fail.
 */
static void credits_back(struct ctx *x, struct srpi_conn *c, const char *name)
{
	char n2[224];
	struct timespec t0, t;
	struct srpi_rsp r;
	int ret = 0, ms = 0;

	snprintf(n2, sizeof(n2), "%s: every credit granted is back", name);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ret >= 0 && srpi_credits(c) < srpi_granted(c) && ms < 10000) {
		ret = tur(c, x->lun, &r);
		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = (int)((t.tv_sec - t0.tv_sec) * 1000 +
			   (t.tv_nsec - t0.tv_nsec) / 1000000);
	}
	result(x, ret >= 0 && srpi_credits(c) == srpi_granted(c), n2,
	       "%d of the %d credits granted back (%s)", srpi_credits(c),
	       srpi_granted(c), ret == SRPI_TIMEDOUT ? "no response" :
	       srpi_gone_why(c));
}

/*
 * How many channels the target has for this initiator now, from
 * --channels-cmd; -1 when there is no command or it printed no number
 * (@x->count_err then says what it printed).
 */
static int target_channels(struct ctx *x)
{
	char line[128] = "";
	FILE *f;
	int n = -1;

	snprintf(x->count_err, sizeof(x->count_err), "%s",
		 x->channels_cmd ? "" : "no --channels-cmd");
	if (!x->channels_cmd)
		return -1;
	f = popen(x->channels_cmd, "r");
	if (!f) {
		snprintf(x->count_err, sizeof(x->count_err), "popen: %s",
			 strerror(errno));
		return -1;
	}
	if (!fgets(line, sizeof(line), f) || sscanf(line, "%d", &n) != 1) {
		line[strcspn(line, "\n")] = 0;
		snprintf(x->count_err, sizeof(x->count_err),
			 "--channels-cmd printed '%s'", line);
		n = -1;
	}
	pclose(f);
	return n;
}

/*
 * Wait until the target has at most @max channels of this initiator
 * (--channels-cmd); 0 when it did within @ms.  Without a way to count
 * them (@left is -1) that cannot be known: not 0.
 */
static int target_down_to(struct ctx *x, int max, int ms, int *left)
{
	struct timespec t0, t;
	int n = target_channels(x);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (n > max) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 >= ms)
			break;
		usleep(100000);
		n = target_channels(x);
	}
	*left = n;
	return n >= 0 && n <= max ? 0 : -1;
}

/* target_down_to() 0: every channel of this initiator released. */
static int target_released(struct ctx *x, int ms, int *left)
{
	return target_down_to(x, 0, ms, left);
}

/* Why target_released() failed, for a result line. */
static const char *left_why(struct ctx *x, int left)
{
	static char buf[200];

	if (left < 0)
		snprintf(buf, sizeof(buf), "channels not countable: %s",
			 x->count_err);
	else
		snprintf(buf, sizeof(buf),
			 "the target still has %d channel(s) of this initiator",
			 left);
	return buf;
}

/*
 * Wait until the target counts the channel just opened: this initiator's
 * channels one more than @before (the count before it was opened, after
 * earlier cases' channels were released), within 10 s.  A count blind to
 * channels (0 whatever is open: an info file whose format changed, a
 * wrong ACL) would pass every "released by the target" for nothing; this
 * is what makes those able to fail.  0 when it does; *@seen the last count.
 */
static int target_counts_open(struct ctx *x, int before, int *seen)
{
	int ms = 0;

	*seen = target_channels(x);
	while (before >= 0 && *seen != before + 1 && ms < 10000) {
		usleep(100000);
		ms += 100;
		*seen = target_channels(x);
	}
	return before >= 0 && *seen == before + 1 ? 0 : -1;
}

/* Why target_counts_open() failed, for a result line. */
static const char *seen_why(struct ctx *x, int before, int seen)
{
	static char buf[240];

	if (before < 0 || seen < 0)
		snprintf(buf, sizeof(buf), "channels not countable: %s",
			 x->count_err);
	else
		snprintf(buf, sizeof(buf),
			 "with this channel open the target counted %d channel(s) of this initiator, not %d",
			 seen, before + 1);
	return buf;
}

static void close_ch(struct srpi_conn *c)
{
	if (!c)
		return;
	if (!srpi_gone(c))
		srpi_disconnect(c);
	srpi_close(c);
}

static void login_cases(struct ctx *x)
{
	struct srpi_login l;
	struct srpi_outcome out;
	struct srpi_conn *c;
	uint8_t pd[SRPI_LOGIN_RDMA_LEN];

	if (want(x, "login: accepted")) {
		c = login(x, &x->l, &out);
		result(x, c && out.tag_ok && out.max_it_iu_len == x->l.it_iu_len &&
		       out.buf_fmt == (SRPI_FMT_DIRECT | SRPI_FMT_INDIRECT) &&
		       (out.rsp_flags & SRPI_RSP_IMMED_SUPP) && out.req_lim > 0,
		       "login: accepted, tag echoed, IU length, formats, immediate data granted",
		       "%s: %s; tag_ok %d it_iu %u fmt 0x%x flags 0x%x credits %u",
		       srpi_result_str(out.result), out.msg, out.tag_ok,
		       out.max_it_iu_len, out.buf_fmt, out.rsp_flags,
		       out.req_lim);
		close_ch(c);
	}
	l = x->l; l.it_iu_len = 0;
	expect_rej(x, "login: request IU length 0", &l, REJ_UNABLE);
	l = x->l; l.it_iu_len = 63;
	expect_rej(x, "login: request IU length 63 (below 64)", &l, REJ_UNABLE);
	l = x->l; l.it_iu_len = x->max_req + 1;
	expect_rej(x, "login: request IU length srp_max_req_size + 1", &l,
		   REJ_IU_LEN);
	l = x->l; l.it_iu_len = 0xffffffff;
	expect_rej(x, "login: request IU length 2^32 - 1", &l, REJ_IU_LEN);
	l = x->l; memset(l.target_id, 0x5a, 16);
	expect_rej(x, "login: wrong target port id", &l, REJ_ASSOCIATE);
	l = x->l; l.target_id[15] ^= 1;
	expect_rej(x, "login: target port id with a wrong ioc_guid", &l,
		   REJ_ASSOCIATE);
	l = x->l; l.buf_fmt = 0;
	expect_rej(x, "login: no buffer format", &l, REJ_FMT);
	l = x->l; l.buf_fmt = 0xfff9;
	expect_rej(x, "login: only reserved buffer format bits", &l, REJ_FMT);
	l = x->l; l.flags = (l.flags & ~3) | 2;
	expect_rej(x, "login: reserved multichannel action 2", &l, REJ_UNABLE);
	l = x->l; l.flags |= 3;
	expect_rej(x, "login: reserved multichannel action 3", &l, REJ_UNABLE);
	l = x->l; l.initiator_id[0] ^= 0x80;
	expect_rej(x, "login: initiator without an ACL", &l, REJ_UNABLE);
	srpi_build_login(pd, &x->l);
	pd[11] = SRPI_CMD;
	expect_rej_raw(x, "login: wrong opcode in the login request", pd,
		       sizeof(pd), REJ_UNABLE);
	expect_rej_raw(x, "login: no private data", NULL, 0, REJ_UNABLE);
	expect_rej_raw(x, "login: 12 bytes of private data", pd, 12,
		       REJ_UNABLE);

	if (want(x, "login: immediate data offset too small")) {
		l = x->l; l.imm_offset = 16;
		c = login(x, &l, &out);
		result(x, c && !(out.rsp_flags & SRPI_RSP_IMMED_SUPP),
		       "login: immediate data offset too small: accepted without immediate data",
		       "%s, flags 0x%x", c ? "accepted" : out.msg, out.rsp_flags);
		close_ch(c);
	}
	if (want(x, "login: immediate data offset beyond")) {
		l = x->l; l.imm_offset = (uint16_t)x->l.it_iu_len;
		c = login(x, &l, &out);
		result(x, c && !(out.rsp_flags & SRPI_RSP_IMMED_SUPP),
		       "login: immediate data offset beyond the IU: accepted without immediate data",
		       "%s, flags 0x%x", c ? "accepted" : out.msg, out.rsp_flags);
		close_ch(c);
	}
	if (want(x, "login: 40 logins")) {
		int i, bad = 0;

		for (i = 0; i < 40; i++) {
			c = login(x, &x->l, &out);
			if (!c) {
				bad++;
				continue;
			}
			srpi_close(c);	/* no logout, no wait */
		}
		result(x, bad == 0,
		       "login: 40 logins in a row, each dropped without logout",
		       "%d refused", bad);
	}
	if (want(x, "login: 16 channels")) {
		struct srpi_conn *cs[16];
		int i, bad = 0;

		for (i = 0; i < 16; i++) {
			cs[i] = login(x, &x->l, &out);
			if (!cs[i] || (i && (out.rsp_flags & 3) != 2))
				bad++;
		}
		for (i = 0; i < 16; i++) {
			if (cs[i] && tur(cs[i], x->lun, &(struct srpi_rsp){ 0 }))
				bad++;
			close_ch(cs[i]);
		}
		result(x, bad == 0,
		       "login: 16 channels of one nexus at once, MULTI reports them maintained, all serve",
		       "%d failures", bad);
	}
	if (want(x, "login: SINGLE")) {
		struct srpi_conn *a = open_ch(x, "login: SINGLE");

		if (a) {
			l = x->l; l.flags &= ~3;
			c = login(x, &l, &out);
			result(x, c && (out.rsp_flags & 3) == 1 &&
			       srpi_wait_gone(a, 10000) == 0,
			       "login: SINGLE ends the nexus's other channel and says so",
			       "%s, rsp_flags 0x%x, other channel %s",
			       c ? "accepted" : out.msg, out.rsp_flags,
			       srpi_gone_why(a));
			close_ch(c);
			close_ch(a);
		}
	}
}

/* ---- IUs that are not SRP_CMDs ------------------------------------------ */

/*
 * Send @len bytes of @iu; the target must drop it and give back the credit
 * it took, so the next response returns two.  @credit: whether the IU takes
 * a credit (requests do, CRED_RSP and AER_RSP do not).
 */
static void expect_dropped(struct ctx *x, const char *name, const void *buf,
			   size_t len, int credit)
{
	struct srpi_conn *c;
	struct srpi_rsp r;
	int ret;

	if (!want(x, name))
		return;
	c = open_ch(x, name);
	if (!c)
		return;
	ret = credit ? srpi_send_credit(c, buf, len) : srpi_send(c, buf, len);
	if (!ret)
		ret = srpi_wait_rsp(c, UINT64_MAX, 1000, &r);
	if (ret != SRPI_TIMEDOUT) {
		result(x, 0, name, ret ? "channel lost: %s" :
		       "the target answered (tag 0x%llx)",
		       ret ? srpi_gone_why(c) : "", (unsigned long long)r.tag);
		close_ch(c);
		return;
	}
	ret = tur(c, x->lun, &r);
	result(x, ret == 0 && r.req_lim_delta == (credit ? 2u : 1u), name,
	       "next TEST UNIT READY: %d, %u credits returned (expected %u)",
	       ret, r.req_lim_delta, credit ? 2 : 1);
	credits_back(x, c, name);
	close_ch(c);
}

static void iu_cases(struct ctx *x)
{
	uint8_t b[256] = { 0 };
	struct srpi_login l;
	struct srpi_outcome out;
	struct srpi_conn *c;
	struct srpi_rsp r;
	int ret;

	expect_dropped(x, "IU: empty send, dropped, credit returned", b, 0, 1);
	memset(b, 0, sizeof(b));
	b[0] = SRPI_CMD;
	expect_dropped(x, "IU: 8 bytes, shorter than any IU header, dropped, credit returned",
		       b, 8, 1);
	b[0] = 0x7f;
	expect_dropped(x, "IU: unknown opcode 0x7f, dropped, credit returned",
		       b, 64, 1);
	b[0] = SRPI_RSP;
	expect_dropped(x, "IU: target-to-initiator opcode SRP_RSP, dropped, credit returned",
		       b, 64, 1);
	b[0] = SRPI_LOGIN_REQ;
	expect_dropped(x, "IU: SRP_LOGIN_REQ on a channel, dropped, credit returned",
		       b, 64, 1);
	b[0] = SRPI_CRED_RSP;
	expect_dropped(x, "IU: unsolicited SRP_CRED_RSP, no credit counted",
		       b, 16, 0);

	if (want(x, "IU: longer than the negotiated")) {
		struct srpi_cmd cmd = { .lun = x->lun, .cdb_len = 6 };
		size_t len;

		l = x->l; l.it_iu_len = 128; l.flags &= ~SRPI_IMMED_REQUESTED;
		c = login(x, &l, &out);
		if (!c) {
			result(x, 0, "IU: longer than the negotiated request IU length",
			       "login: %s", out.msg);
		} else {
			cmd.tag = srpi_next_tag(c);
			len = srpi_build_cmd(c, iu, sizeof(iu), &cmd);
			memset(iu + len, 0, 1024 - len);
			ret = srpi_send_credit(c, iu, 1024);
			if (!ret)
				ret = srpi_wait_rsp(c, cmd.tag, 5000, &r);
			if (x->srq)
				result(x, ret == 0 && r.status == 0,
				       "IU: longer than the negotiated request IU length: served (shared receive queue buffers are srp_max_req_size)",
				       "%d", ret);
			else
				result(x, ret == SRPI_GONE,
				       "IU: longer than the negotiated request IU length: the channel is closed",
				       "%d (%s)", ret, srpi_gone_why(c));
			close_ch(c);
		}
	}
}

/* ---- malformed SRP_CMDs ------------------------------------------------- */

enum mut {
	M_SHORT, M_TASK_ATTR, M_BIDI, M_FMT_RSVD_IN, M_FMT_RSVD_OUT,
	M_IMM_IN, M_ADD_CDB, M_NO_DESC, M_TBL_ZERO, M_TBL_ODD, M_CNT_GT,
	M_CNT_IU, M_TOTAL, M_TOTAL_ZERO, M_MANY_EXT, M_HUGE, M_16M1,
	M_IMM_LONG, M_VARLEN, M_CDB32_CUT,
};

static const struct {
	enum mut m;
	const char *name;
} muts[] = {
	{ M_SHORT, "47 bytes, shorter than an SRP_CMD" },
	{ M_TASK_ATTR, "reserved task attribute 3" },
	{ M_BIDI, "bidirectional descriptors" },
	{ M_FMT_RSVD_IN, "reserved DATA-IN descriptor format 4" },
	{ M_FMT_RSVD_OUT, "reserved DATA-OUT descriptor format 15" },
	{ M_IMM_IN, "immediate data as DATA-IN" },
	{ M_ADD_CDB, "additional CDB length beyond the IU" },
	{ M_NO_DESC, "direct format, the IU ends before the descriptor" },
	{ M_TBL_ZERO, "indirect table of length 0" },
	{ M_TBL_ODD, "indirect table length 24, not a multiple of 16" },
	{ M_CNT_GT, "descriptor count larger than the table" },
	{ M_CNT_IU, "descriptor count 255, more than the IU holds" },
	{ M_TOTAL, "table total length disagrees with the descriptors" },
	{ M_TOTAL_ZERO, "table total length 0 with non-empty descriptors" },
	{ M_MANY_EXT, "external table of 4097 descriptors" },
	{ M_HUGE, "direct descriptor length 2^32 - 1" },
	{ M_16M1, "data length 16 MiB + 1" },
	{ M_IMM_LONG, "immediate data length beyond the IU" },
	{ M_VARLEN, "variable-length CDB longer than the IU's CDB field" },
	{ M_CDB32_CUT, "32-byte CDB, IU cut inside the additional CDB" },
};

/* Build the SRP_CMD of mutation @m; returns its length. */
static size_t build_bad(struct ctx *x, struct srpi_conn *c, enum mut m,
			uint64_t tag)
{
	struct srpi_cmd cmd = {
		.tag = tag, .lun = x->lun, .cdb = { 0x28, 0, 0, 0, 0, 8, 0, 0, 1 },
		.cdb_len = 10, .dir = SRPI_DIR_IN, .fmt = SRPI_DESC_DIRECT,
		.data_len = 512, .ndesc = 4, .table_off = MB,
	};
	size_t len;

	switch (m) {
	case M_FMT_RSVD_OUT:
	case M_IMM_LONG:
		cmd.cdb[0] = 0x2a;
		cmd.dir = SRPI_DIR_OUT;
		cmd.fmt = m == M_IMM_LONG ? SRPI_DESC_IMM : SRPI_DESC_DIRECT;
		break;
	case M_TBL_ZERO:
	case M_TBL_ODD:
	case M_CNT_GT:
	case M_CNT_IU:
	case M_TOTAL:
	case M_TOTAL_ZERO:
		cmd.fmt = SRPI_DESC_INDIRECT;
		break;
	case M_MANY_EXT:
		cmd.fmt = SRPI_DESC_EXTERNAL;
		cmd.ndesc = 4097;
		cmd.data_len = 4097 * 512;
		cmd.cdb[7] = (4097 >> 8) & 0xff;
		cmd.cdb[8] = 4097 & 0xff;
		break;
	case M_CDB32_CUT:
		cmd.cdb_len = 32;
		break;
	default:
		break;
	}
	len = srpi_build_cmd(c, iu, sizeof(iu), &cmd);
	switch (m) {
	case M_SHORT:
		len = 47;
		break;
	case M_TASK_ATTR:
		iu[29] = 3;
		break;
	case M_BIDI:
		iu[5] = 0x11;
		break;
	case M_FMT_RSVD_IN:
		iu[5] = 0x04;
		break;
	case M_FMT_RSVD_OUT:
		iu[5] = 0xf0;
		break;
	case M_IMM_IN:
		iu[5] = 0x03;
		break;
	case M_ADD_CDB:
		iu[31] = 0xfc;
		break;
	case M_NO_DESC:
		len = SRPI_CMD_LEN;
		break;
	case M_TBL_ZERO:
		memset(iu + 48 + 12, 0, 4);
		break;
	case M_TBL_ODD:
		iu[48 + 15] = 24;
		break;
	case M_CNT_GT:
		iu[7] = 5;
		break;
	case M_CNT_IU:
		iu[7] = 255;
		iu[48 + 14] = (255 * 16) >> 8;
		iu[48 + 15] = (255 * 16) & 0xff;
		len = 48 + 20 + 16;
		break;
	case M_TOTAL:
		iu[48 + 19]++;
		break;
	case M_TOTAL_ZERO:
		memset(iu + 48 + 16, 0, 4);
		break;
	case M_HUGE:
		memset(iu + 48 + 12, 0xff, 4);
		break;
	case M_16M1:
		iu[48 + 12] = 0x01;
		iu[48 + 13] = 0;
		iu[48 + 14] = 0;
		iu[48 + 15] = 0x01;
		break;
	case M_IMM_LONG:
		iu[48 + 2] = 0x7f;	/* 8 MiB-ish, far beyond the IU */
		break;
	case M_VARLEN:
		memset(iu + 32, 0, 16);
		iu[32] = 0x7f;
		iu[32 + 7] = 24;	/* additional CDB length: 32 bytes */
		break;
	case M_CDB32_CUT:
		len = 56;
		break;
	default:
		break;
	}
	return len;
}

/* Whether @r is CHECK CONDITION with sense @key/@asc/@ascq. */
static int is_check(const struct srpi_rsp *r, uint8_t key, uint8_t asc,
		    uint8_t ascq)
{
	return r->status == 0x02 && r->key == key && r->asc == asc &&
	       r->ascq == ascq;
}

/* Report @name: @r must be CHECK CONDITION with sense @key/@asc/@ascq. */
static void result_check(struct ctx *x, const struct srpi_rsp *r,
			 const char *name, uint8_t key, uint8_t asc,
			 uint8_t ascq)
{
	result(x, is_check(r, key, asc, ascq), name,
	       "status 0x%02x sense %x/%02x/%02x, expected CHECK CONDITION %x/%02x/%02x",
	       r->status, r->key, r->asc, r->ascq, key, asc, ascq);
}

/* Report the failure of a command that got no response under @name. */
static void no_response(struct ctx *x, struct srpi_conn *c, const char *name,
			int ret)
{
	result(x, 0, name, "%s", ret == SRPI_GONE ? srpi_gone_why(c) :
	       "no response");
}

static void expect_sense(struct ctx *x, struct srpi_conn *c, const char *name,
			 const void *buf, size_t len, uint64_t tag, uint8_t key,
			 uint8_t asc, uint8_t ascq)
{
	struct srpi_rsp r;
	int ret = srpi_send_credit(c, buf, len);

	if (!ret)
		ret = srpi_wait_rsp(c, tag, 10000, &r);
	if (ret)
		no_response(x, c, name, ret);
	else
		result_check(x, &r, name, key, asc, ascq);
}

static void cmd_cases(struct ctx *x)
{
	char name[160];
	struct srpi_conn *c = NULL;
	struct srpi_outcome out;
	struct srpi_login l;
	size_t i, len;
	uint64_t tag;
	int any = 0;

	for (i = 0; i < sizeof(muts) / sizeof(muts[0]); i++) {
		snprintf(name, sizeof(name),
			 "SRP_CMD: %s: CHECK CONDITION, INVALID FIELD IN COMMAND IU",
			 muts[i].name);
		if (!want(x, name))
			continue;
		if (!c || srpi_gone(c)) {
			close_ch(c);
			c = open_ch(x, name);
			if (!c)
				continue;
		}
		any = 1;
		tag = srpi_next_tag(c);
		len = build_bad(x, c, muts[i].m, tag);
		expect_sense(x, c, name, iu, len, tag, 0x5, 0x0e, 0x03);
	}
	if (c && any) {
		expect_alive(x, c, "SRP_CMD: the channel serves after all malformed commands");
		credits_back(x, c, "SRP_CMD: after all malformed commands");
	}
	close_ch(c);

	snprintf(name, sizeof(name),
		 "SRP_CMD: immediate data on a channel that was not granted it: INVALID FIELD IN COMMAND IU");
	if (want(x, name)) {
		l = x->l; l.flags &= ~SRPI_IMMED_REQUESTED;
		c = login(x, &l, &out);
		if (!c) {
			result(x, 0, name, "login: %s", out.msg);
		} else {
			struct srpi_cmd cmd = {
				.lun = x->lun, .cdb = { 0x2a, 0, 0, 0, 0, 8, 0, 0, 1 },
				.cdb_len = 10, .dir = SRPI_DIR_OUT,
				.fmt = SRPI_DESC_IMM, .data_len = 512,
			};

			cmd.tag = srpi_next_tag(c);
			srpi_set_imm_offset(c, IMM_OFFSET);	/* not granted */
			len = srpi_build_cmd(c, iu, sizeof(iu), &cmd);
			expect_sense(x, c, name, iu, len, cmd.tag, 0x5, 0x0e,
				     0x03);
			credits_back(x, c, name);
			close_ch(c);
		}
	}
}

/* ---- data length and addressing the target core judges ------------------ */

/*
 * One command to @lun on channel @c with its data at offset 0 of the
 * channel's buffer, one direct descriptor of @data_len, task attribute
 * @attr; the response in @r.  Returns 0, or reports the failure under @name.
 */
static int send_one(struct ctx *x, struct srpi_conn *c, const char *name,
		    uint64_t lun, const uint8_t *cdb, int cdb_len,
		    enum srpi_dir dir, uint32_t data_len, uint8_t attr,
		    struct srpi_rsp *r)
{
	struct srpi_cmd cmd = {
		.lun = lun, .cdb_len = (uint32_t)cdb_len, .dir = dir,
		.fmt = SRPI_DESC_DIRECT, .data_len = data_len,
		.task_attr = attr,
	};
	int ret;

	memcpy(cmd.cdb, cdb, cdb_len);
	ret = srpi_scsi(c, &cmd, 10000, r);
	if (ret)
		no_response(x, c, name, ret);
	return ret;
}

static void run_cmd(struct ctx *x, const char *name, uint64_t lun,
		    const uint8_t *cdb, int cdb_len, enum srpi_dir dir,
		    uint32_t data_len, int (*check)(const struct srpi_rsp *r,
						    char *why, size_t n))
{
	struct srpi_conn *c;
	struct srpi_rsp r;
	char why[160] = "";

	if (!want(x, name))
		return;
	c = open_ch(x, name);
	if (!c)
		return;
	if (!send_one(x, c, name, lun, cdb, cdb_len, dir, data_len,
		      SRPI_TASK_SIMPLE, &r))
		result(x, check(&r, why, sizeof(why)), name,
		       "status 0x%02x flags 0x%02x resid out %u in %u sense %x/%02x/%02x %s",
		       r.status, r.flags, r.do_resid, r.di_resid, r.key, r.asc,
		       r.ascq, why);
	credits_back(x, c, name);
	close_ch(c);
}

static int chk_write_short(const struct srpi_rsp *r, char *why, size_t n)
{
	(void)why; (void)n;
	return is_check(r, 0x5, 0x0e, 0x03);
}

static int chk_read_under(const struct srpi_rsp *r, char *why, size_t n)
{
	(void)why; (void)n;
	return r->status == 0 && (r->flags & SRPI_DIUNDER) &&
	       r->di_resid == 512;
}

static int chk_read_over(const struct srpi_rsp *r, char *why, size_t n)
{
	(void)why; (void)n;
	/*
	 * LIO refuses a DATA-IN overflow when the fabric hands it the data
	 * buffer (SCF_PASSTHROUGH_SG_TO_MEM_NOALLOC semantics, as the RDMA
	 * R/W path does): INVALID FIELD IN CDB, with the overflow reported.
	 */
	return is_check(r, 0x5, 0x24, 0x00) && (r->flags & SRPI_DIOVER) &&
	       r->di_resid == 512;
}

static int chk_lba(const struct srpi_rsp *r, char *why, size_t n)
{
	(void)why; (void)n;
	return is_check(r, 0x5, 0x21, 0x00);
}

static int chk_lun(const struct srpi_rsp *r, char *why, size_t n)
{
	(void)why; (void)n;
	return is_check(r, 0x5, 0x25, 0x00);
}

static int chk_opcode(const struct srpi_rsp *r, char *why, size_t n)
{
	(void)why; (void)n;
	return is_check(r, 0x5, 0x20, 0x00);
}

/*
 * A DATA-IN that comes out shorter than the buffer its descriptor names
 * (INQUIRY's 36 bytes into 4 MiB): only the bytes produced may be written
 * to the initiator, never the rest of the target's buffer, which it did
 * not write (kernel memory).  The buffer is filled with a pattern first;
 * everything past the 36 bytes must still hold it.
 */
static void short_data_in_case(struct ctx *x)
{
	const char *name = "length: INQUIRY of 36 bytes into a 4 MiB buffer: GOOD, DATA-IN underflow, only 36 bytes written";
	uint8_t inq[6] = { 0x12, 0, 0, 0, 36, 0 };
	const uint32_t len = 4 * MB;
	struct srpi_conn *c;
	struct srpi_rsp r;
	uint32_t i, bad = 0, first = 0;
	uint8_t *d;

	if (!want(x, name))
		return;
	c = open_ch(x, name);
	if (!c)
		return;
	d = srpi_data(c);
	memset(d, 0x5a, len);
	if (!send_one(x, c, name, x->lun, inq, 6, SRPI_DIR_IN, len,
		      SRPI_TASK_SIMPLE, &r)) {
		for (i = 36; i < len; i++) {
			if (d[i] != 0x5a && !bad++)
				first = i;
		}
		result(x, r.status == 0 && (r.flags & SRPI_DIUNDER) &&
		       r.di_resid == len - 36 && !bad, name,
		       "status 0x%02x flags 0x%02x resid in %u; %u of the bytes past 36 overwritten (the first at %u)",
		       r.status, r.flags, r.di_resid, bad, first);
	}
	close_ch(c);
}

static void core_cases(struct ctx *x)
{
	uint8_t w1[10] = { 0x2a, 0, 0, 0, 0, 8, 0, 0, 1 };
	uint8_t r1[10] = { 0x28, 0, 0, 0, 0, 8, 0, 0, 1 };
	uint8_t r2[10] = { 0x28, 0, 0, 0, 0, 8, 0, 0, 2 };
	uint8_t rfar[16] = { 0x88, 0, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1 };
	uint8_t bad[6] = { 0xff };

	run_cmd(x, "length: WRITE of 1 block with a 256-byte descriptor: CHECK CONDITION, INVALID FIELD IN COMMAND IU",
		x->lun, w1, 10, SRPI_DIR_OUT, 256, chk_write_short);
	run_cmd(x, "length: READ of 1 block into 1024 bytes: GOOD, DATA-IN underflow of 512",
		x->lun, r1, 10, SRPI_DIR_IN, 1024, chk_read_under);
	run_cmd(x, "length: READ of 2 blocks into 512 bytes: INVALID FIELD IN CDB, DATA-IN overflow of 512",
		x->lun, r2, 10, SRPI_DIR_IN, 512, chk_read_over);
	run_cmd(x, "addressing: READ beyond the last block: LBA OUT OF RANGE",
		x->lun, rfar, 16, SRPI_DIR_IN, 512, chk_lba);
	run_cmd(x, "addressing: LUN 200, not mapped: LOGICAL UNIT NOT SUPPORTED",
		200, r1, 10, SRPI_DIR_IN, 512, chk_lun);
	run_cmd(x, "addressing: unknown SCSI opcode 0xff: INVALID COMMAND OPERATION CODE",
		x->lun, bad, 6, SRPI_DIR_NONE, 0, chk_opcode);
	short_data_in_case(x);
}

/* ---- DATA-OUT residuals and task attributes LIO judges ------------------ */

/*
 * MODE SELECT(10) is a DATA-OUT command that is not a data CDB, so LIO
 * (target_cmd_size_check) takes a descriptor longer than the parameter
 * list (underflow, the command runs) and refuses one shorter (overflow,
 * INVALID FIELD IN CDB), both with the residual reported.  The parameter
 * list is the LUN's own control mode page as MODE SENSE(10) reads it, so
 * the MODE SELECT changes nothing and LIO accepts it.
 */
static void resid_cases(struct ctx *x)
{
	const char *under = "residual: MODE SELECT(10) of 20 bytes from a 512-byte descriptor: GOOD, DATA-OUT underflow of 492";
	const char *over = "residual: MODE SELECT(10) of 1024 bytes from a 512-byte descriptor: INVALID FIELD IN CDB, DATA-OUT overflow of 512";
	const char *aca = "task attribute ACA reaches LIO: INVALID FIELD IN CDB";
	uint8_t sense[10] = { 0x5a, 0x08, 0x0a, 0, 0, 0, 0, 0x01, 0, 0 };
	uint8_t sel[10] = { 0x55, 0x10, 0, 0, 0, 0, 0, 0, 0, 0 };
	uint8_t tur6[6] = { 0 };
	struct srpi_conn *c;
	struct srpi_rsp r;
	uint8_t *d, page[12];
	uint32_t plen;

	if (want(x, under) || want(x, over)) {
		c = open_ch(x, want(x, under) ? under : over);
		if (!c)
			return;
		d = srpi_data(c);
		memset(d, 0, 512);
		/* DBD: no block descriptors; the control page, 12 bytes */
		if (send_one(x, c, want(x, under) ? under : over, x->lun,
			     sense, 10, SRPI_DIR_IN, 256, SRPI_TASK_SIMPLE,
			     &r)) {
			close_ch(c);
			return;
		}
		memcpy(page, d + 8, sizeof(page));
		plen = 8 + sizeof(page);
		if (want(x, under)) {
			if (r.status || d[8] != 0x0a || d[9] != 0x0a ||
			    d[6] || d[7]) {
				result(x, 0, under,
				       "MODE SENSE(10) of the control page: status 0x%02x page %02x/%02x block descriptors %u",
				       r.status, d[8], d[9], d[6] << 8 | d[7]);
			} else {
				memset(d, 0, 512);
				memcpy(d + 8, page, sizeof(page));
				sel[7] = (uint8_t)(plen >> 8);
				sel[8] = (uint8_t)plen;
				if (!send_one(x, c, under, x->lun, sel, 10,
					      SRPI_DIR_OUT, 512,
					      SRPI_TASK_SIMPLE, &r))
					result(x, r.status == 0 &&
					       (r.flags & SRPI_DOUNDER) &&
					       !(r.flags & SRPI_DOOVER) &&
					       r.do_resid == 512 - plen, under,
					       "status 0x%02x flags 0x%02x resid out %u sense %x/%02x/%02x",
					       r.status, r.flags, r.do_resid,
					       r.key, r.asc, r.ascq);
			}
		}
		if (want(x, over) && !srpi_gone(c)) {
			sel[7] = 1024 >> 8;
			sel[8] = 0;
			if (!send_one(x, c, over, x->lun, sel, 10,
				      SRPI_DIR_OUT, 512, SRPI_TASK_SIMPLE, &r))
				result(x, is_check(&r, 0x5, 0x24, 0x00) &&
				       (r.flags & SRPI_DOOVER) &&
				       !(r.flags & SRPI_DOUNDER) &&
				       r.do_resid == 512, over,
				       "status 0x%02x flags 0x%02x resid out %u sense %x/%02x/%02x",
				       r.status, r.flags, r.do_resid, r.key,
				       r.asc, r.ascq);
		}
		credits_back(x, c, "residual: after the MODE SELECTs");
		close_ch(c);
	}

	if (want(x, aca)) {
		/*
		 * LIO refuses ACA (target_cmd_init_cdb) with 5/24/00; our
		 * own parser's refusal would be 5/0e/03, a SIMPLE mapping
		 * GOOD.
		 */
		c = open_ch(x, aca);
		if (!c)
			return;
		if (!send_one(x, c, aca, x->lun, tur6, 6, SRPI_DIR_NONE, 0,
			      SRPI_TASK_ACA, &r))
			result_check(x, &r, aca, 0x5, 0x24, 0x00);
		expect_alive(x, c, "task attribute ACA: the channel serves after it");
		close_ch(c);
	}
}

/* ---- RDMA transfers the initiator's memory keys refuse ------------------ */

enum rfault { RF_WRITE_KEY, RF_READ_ADDR, RF_TABLE_KEY, RF_TABLE_ADDR };

static void rdma_fault(struct ctx *x, const char *name, enum rfault f)
{
	struct srpi_cmd cmd = {
		.lun = x->lun, .cdb = { 0x28, 0, 0, 0, 0, 8, 0, 0, 8 },
		.cdb_len = 10, .dir = SRPI_DIR_IN, .fmt = SRPI_DESC_DIRECT,
		.data_len = 4096, .ndesc = 4, .table_off = MB,
	};
	struct srpi_conn *c;
	struct srpi_rsp r;
	size_t len;
	int ret, before = -1, seen = -1, counted;

	if (!want(x, name))
		return;
	/* Channels of earlier cases first gone, this one counted. */
	target_released(x, 30000, &before);
	c = open_ch(x, name);
	if (!c)
		return;
	counted = target_counts_open(x, before, &seen) == 0;
	if (f == RF_WRITE_KEY) {
		cmd.cdb[0] = 0x2a;
		cmd.dir = SRPI_DIR_OUT;
	}
	if (f == RF_TABLE_KEY || f == RF_TABLE_ADDR)
		cmd.fmt = SRPI_DESC_EXTERNAL;
	cmd.tag = srpi_next_tag(c);
	len = srpi_build_cmd(c, iu, sizeof(iu), &cmd);
	switch (f) {
	case RF_WRITE_KEY:
	case RF_TABLE_KEY:
		iu[48 + 8] ^= 0x5a;	/* rkey */
		iu[48 + 11] ^= 0xa5;
		break;
	case RF_READ_ADDR:
	case RF_TABLE_ADDR:
		iu[48 + 0] ^= 0x40;	/* far outside the region */
		break;
	}
	/*
	 * The transfer fails on the target's queue pair: the command gets no
	 * response (nothing more can be sent on that queue pair), the
	 * target disconnects and releases the channel.
	 */
	ret = srpi_send_credit(c, iu, len);
	if (!ret)
		ret = srpi_wait_rsp(c, cmd.tag, 15000, &r);
	if (ret == 0) {
		result(x, 0, name, "answered: status 0x%02x sense %x/%02x/%02x",
		       r.status, r.key, r.asc, r.ascq);
	} else {
		int gone = srpi_wait_gone(c, 15000) == 0, left = -1;
		int released = target_released(x, 30000, &left) == 0;

		result(x, gone && counted && released, name, "%s; %s",
		       gone ? srpi_gone_why(c) :
		       "the channel stayed up after a failed transfer",
		       !counted ? seen_why(x, before, seen) :
		       released ? "released by the target" : left_why(x, left));
	}
	close_ch(c);
}

static void rdma_cases(struct ctx *x)
{
	rdma_fault(x, "RDMA: WRITE whose descriptor has a wrong key: the channel ends", RF_WRITE_KEY);
	rdma_fault(x, "RDMA: READ into an address outside the initiator's region: the channel ends", RF_READ_ADDR);
	rdma_fault(x, "RDMA: external descriptor table with a wrong key: the channel ends", RF_TABLE_KEY);
	rdma_fault(x, "RDMA: external descriptor table at a bad address: the channel ends", RF_TABLE_ADDR);
	if (want(x, "RDMA: a new channel")) {
		struct srpi_conn *c = open_ch(x, "RDMA: a new channel serves after the faults");

		if (c)
			expect_alive(x, c, "RDMA: a new channel serves after the faults");
		close_ch(c);
	}
}

/* ---- credits, tags and task management ---------------------------------- */

static size_t build_rw(struct srpi_conn *c, struct ctx *x, uint8_t *buf,
		       uint64_t tag, int write, uint32_t blocks, size_t off)
{
	struct srpi_cmd cmd = {
		.tag = tag, .lun = x->lun, .cdb = { write ? 0x2a : 0x28 },
		.cdb_len = 10, .dir = write ? SRPI_DIR_OUT : SRPI_DIR_IN,
		.fmt = SRPI_DESC_DIRECT, .data_off = off,
		.data_len = blocks * 512,
	};

	cmd.cdb[7] = (uint8_t)(blocks >> 8);
	cmd.cdb[8] = (uint8_t)blocks;
	return srpi_build_cmd(c, buf, SRPI_SLOT_SIZE, &cmd);
}

static int tmf(struct srpi_conn *c, uint64_t lun, uint8_t func,
	       uint64_t task_tag, size_t len, uint8_t *code)
{
	uint8_t b[SRPI_TMF_LEN];
	uint64_t tag = srpi_next_tag(c);
	struct srpi_rsp r;
	int ret;

	srpi_build_tmf(b, tag, lun, func, task_tag);
	ret = srpi_send_credit(c, b, len);
	if (!ret)
		ret = srpi_wait_rsp(c, tag, 15000, &r);
	*code = !ret && r.resp_len >= 4 ? r.resp[3] : 0xff;
	return ret;
}

static void expect_tmf(struct ctx *x, const char *name, uint64_t lun,
		       uint8_t func, uint64_t task_tag, size_t len, uint8_t want_code)
{
	struct srpi_conn *c;
	uint8_t code;
	int ret;

	if (!want(x, name))
		return;
	c = open_ch(x, name);
	if (!c)
		return;
	ret = tmf(c, lun, func, task_tag, len, &code);
	result(x, ret == 0 && code == want_code, name,
	       "%d, response code 0x%02x, expected 0x%02x", ret, code,
	       want_code);
	credits_back(x, c, name);
	close_ch(c);
}

/* Commands in flight, then @what: TMF, logout, disconnect or close. */
enum race { RACE_ABORT_WRITE, RACE_ABORT_READ, RACE_LUN_RESET, RACE_LOGOUT,
	    RACE_DISCONNECT, RACE_CLOSE };

static void race(struct ctx *x, const char *name, enum race what)
{
	struct srpi_conn *c;
	struct srpi_rsp r;
	uint64_t tags[8];
	int i, n = what == RACE_ABORT_WRITE || what == RACE_ABORT_READ ? 1 : 8;
	int ret = 0, bad = 0, left = -1, before = -1, seen = -1, counted = 1;
	uint8_t code = 0xff;
	size_t len;

	if (!want(x, name))
		return;
	/* RACE_CLOSE: channels of earlier cases first gone, this one counted. */
	if (what == RACE_CLOSE)
		target_released(x, 30000, &before);
	c = open_ch(x, name);
	if (!c)
		return;
	if (what == RACE_CLOSE)
		counted = target_counts_open(x, before, &seen) == 0;
	for (i = 0; i < n && !ret; i++) {
		int write = what == RACE_ABORT_WRITE || (what != RACE_ABORT_READ && i % 2);

		tags[i] = srpi_next_tag(c);
		len = build_rw(c, x, iu, tags[i], write, 2048,
			       (size_t)(i % 4) * MB);
		ret = srpi_send_credit(c, iu, len);
	}
	if (ret) {
		result(x, 0, name, "sending: %s", srpi_gone_why(c));
		close_ch(c);
		return;
	}
	switch (what) {
	case RACE_ABORT_WRITE:
	case RACE_ABORT_READ:
	case RACE_LUN_RESET:
		ret = tmf(c, x->lun, what == RACE_LUN_RESET ? SRPI_TMF_LUN_RESET :
			  SRPI_TMF_ABORT_TASK, tags[0], SRPI_TMF_LEN, &code);
		/* Each command: GOOD, TASK ABORTED, or no response at all. */
		for (i = 0; i < n && !ret; i++) {
			int w = srpi_wait_rsp(c, tags[i], 3000, &r);

			if (w == 0 && r.status != 0 && r.status != 0x40)
				bad++;
			if (w == SRPI_GONE)
				bad++;
		}
		result(x, ret == 0 && code == 0 && !bad, name,
		       "%d, response code 0x%02x, %d commands with a bad answer",
		       ret, code, bad);
		if (ret == 0) {
			expect_alive(x, c, "TMF: the channel serves after the race");
			/* Aborted commands without a response too. */
			credits_back(x, c, name);
		}
		break;
	case RACE_LOGOUT:
		srpi_build_i_logout(iu, srpi_next_tag(c));
		ret = srpi_send(c, iu, 16);
		result(x, ret == 0 && srpi_wait_gone(c, 20000) == 0, name,
		       "%d, the target %s", ret,
		       srpi_gone(c) ? "closed" : "did not close the channel");
		break;
	case RACE_DISCONNECT:
		srpi_disconnect(c);
		result(x, srpi_gone(c), name, "no disconnect event");
		break;
	case RACE_CLOSE:
		/* The target sees its queue pair fail and releases the channel. */
		srpi_close(c);
		c = NULL;
		ret = target_released(x, 30000, &left);
		result(x, counted && ret == 0, name, "%s",
		       !counted ? seen_why(x, before, seen) : left_why(x, left));
		break;
	}
	close_ch(c);
}

static void flow_cases(struct ctx *x)
{
	struct srpi_conn *c;
	struct srpi_rsp r;

	if (want(x, "credits: more requests")) {
		const char *name = "credits: more requests held than credits granted: the target ends the channel";
		int n, i, ret, gone, left = -1, released, counted;
		int before = -1, seen = -1;

		/*
		 * One receive buffer, used by the first response and never
		 * reposted: from then on every response waits (receiver not
		 * ready), and so does every RDMA READ behind it on the
		 * target's send queue.  Each WRITE sent after that holds its
		 * receive buffer on the target, so 4 x the grant of them must
		 * take the target past its rule (more requests held than
		 * credits granted) however many got through before the stall.
		 */
		x->o.queue_depth = 512;
		x->o.recv_hold = 1;
		/* Channels of earlier cases first gone, this one counted. */
		target_released(x, 30000, &before);
		c = open_ch(x, name);
		x->o.queue_depth = 64;
		x->o.recv_hold = 0;
		if (c) {
			struct srpi_cmd t = { .lun = x->lun, .cdb_len = 6 };

			counted = target_counts_open(x, before, &seen) == 0;

			n = x->burst ? x->burst : 4 * srpi_granted(c);
			/* Takes the one receive buffer, whatever the status. */
			ret = srpi_scsi(c, &t, 10000, &r) != 0;
			for (i = 0; i < n && !ret; i++)
				ret = srpi_send(c, iu, build_rw(c, x, iu,
								srpi_next_tag(c),
								1, 1, 0));
			gone = srpi_wait_gone(c, 20000) == 0;
			released = target_released(x, 30000, &left) == 0;
			result(x, gone && counted && released, name,
			       "%d of %d WRITEs sent; %s; %s", i, n,
			       gone ? srpi_gone_why(c) : "the channel stayed up",
			       !counted ? seen_why(x, before, seen) :
			       released ? "released by the target" :
			       left_why(x, left));
			close_ch(c);
		}
	}
	if (want(x, "tags: duplicate")) {
		c = open_ch(x, "tags: duplicate");
		if (c) {
			uint64_t tag = srpi_next_tag(c);
			int ret, got = 0, i;

			ret = srpi_send_credit(c, iu, build_rw(c, x, iu, tag, 0, 64, 0));
			if (!ret)
				ret = srpi_send_credit(c, iu,
						       build_rw(c, x, iu, tag, 0, 64, MB));
			for (i = 0; i < 2 && !ret; i++)
				if (srpi_wait_rsp(c, tag, 10000, &r) == 0 &&
				    r.status == 0)
					got++;
			result(x, got == 2,
			       "tags: duplicate tags in flight: both commands answered",
			       "%d answered (%s)", got, srpi_gone_why(c));
			credits_back(x, c, "tags: duplicate tags in flight");
			close_ch(c);
		}
	}
	expect_tmf(x, "TMF: ABORT TASK of an unknown tag: FUNCTION COMPLETE",
		   x->lun, SRPI_TMF_ABORT_TASK, 0xdeadbeef, SRPI_TMF_LEN, 0);
	expect_tmf(x, "TMF: LUN RESET of LUN 200, not mapped: FUNCTION FAILED",
		   200, SRPI_TMF_LUN_RESET, 0, SRPI_TMF_LEN, 5);
	expect_tmf(x, "TMF: ABORT TASK SET of LUN 200: FUNCTION FAILED",
		   200, SRPI_TMF_ABORT_TASK_SET, 0, SRPI_TMF_LEN, 5);
	expect_tmf(x, "TMF: undefined function 0x10: FUNCTION NOT SUPPORTED",
		   x->lun, 0x10, 0, SRPI_TMF_LEN, 4);
	expect_tmf(x, "TMF: function 0: FUNCTION NOT SUPPORTED",
		   x->lun, 0, 0, SRPI_TMF_LEN, 4);
	expect_tmf(x, "TMF: IU of 30 bytes: INVALID IU",
		   x->lun, SRPI_TMF_ABORT_TASK, 0, 30, 2);
	race(x, "TMF: ABORT TASK racing a 1 MiB WRITE", RACE_ABORT_WRITE);
	race(x, "TMF: ABORT TASK racing a 1 MiB READ", RACE_ABORT_READ);
	race(x, "TMF: LUN RESET with 8 transfers in flight", RACE_LUN_RESET);
	race(x, "teardown: SRP_I_LOGOUT with 8 transfers in flight: the target closes", RACE_LOGOUT);
	race(x, "teardown: disconnect with 8 transfers in flight", RACE_DISCONNECT);
	race(x, "teardown: queue pair destroyed with 8 transfers in flight: the target releases the channel", RACE_CLOSE);
}

/* ---- refused data transfers: the channel must still be released ------- */

/*
 * A command the target refuses after LIO took it (issue 24): its data
 * descriptors need more send queue entries than the channel has (CHECK
 * CONDITION, INVALID FIELD IN COMMAND IU), or more memory regions than the
 * queue pair's pool holds (BUSY, no sense data).  Either way the target
 * must give the command back to LIO whole: the channel serves on, and once
 * the initiator disconnects, the target releases it (a command LIO still
 * counts would hold the release, and with it TPG disable and rmmod, for
 * ever).
 */
/*
 * Close @c and report "BASE: the target releases the channel once
 * disconnected": the target counted @c while it was open (one more than
 * @before, what it was before the case; -1: not countable), and this
 * initiator's channel count is back to @before within 30 s.
 */
static void close_released(struct ctx *x, struct srpi_conn *c,
			   const char *base, int before)
{
	char name[280];
	int ret, left = -1, seen = -1;
	int counted = target_counts_open(x, before, &seen) == 0;

	snprintf(name, sizeof(name),
		 "%s: the target releases the channel once disconnected", base);
	close_ch(c);
	ret = before < 0 ? -1 : target_down_to(x, before, 30000, &left);
	result(x, counted && ret == 0, name, "%s (%d before the case)",
	       !counted ? seen_why(x, before, seen) :
	       before < 0 ? left_why(x, before) : left_why(x, left), before);
}

enum refusal { REF_SQ, REF_POOL };

static void refused(struct ctx *x, enum refusal why, int write)
{
	const char *op = write ? "WRITE" : "READ";
	uint32_t n;
	struct srpi_cmd cmd = {
		.lun = x->lun, .cdb = { write ? 0x2a : 0x28 }, .cdb_len = 10,
		.dir = write ? SRPI_DIR_OUT : SRPI_DIR_IN,
		.fmt = SRPI_DESC_EXTERNAL, .table_off = 4 * MB,
	};
	char base[160], name[224];
	struct srpi_conn *c;
	struct srpi_rsp r;
	size_t len;
	int ret, before = -1;

	if (why == REF_SQ)
		/*
		 * Each non-empty descriptor takes at least one RDMA work
		 * request (two where memory is registered: a registration
		 * and the transfer), the response one more.
		 */
		n = x->mr_pool ? x->sq_size / 2 + 1 : x->sq_size;
	else
		n = 300;	/* the pool: min(srp_sq_size, 2 x 128) */
	snprintf(base, sizeof(base),
		 "teardown: %s of %u one-block descriptors in an external table, more than the %s",
		 op, n, why == REF_SQ ? "send queue" : "MR pool");
	snprintf(name, sizeof(name), "%s: %s", base,
		 why == REF_SQ ? "CHECK CONDITION, INVALID FIELD IN COMMAND IU" :
		 "BUSY");
	if (!want(x, name))
		return;
	/* Channels of earlier cases first gone (a leaked one stays). */
	target_released(x, 30000, &before);
	c = open_ch(x, name);
	if (!c)
		return;
	cmd.ndesc = n;
	cmd.data_len = n * 512;
	cmd.cdb[7] = (uint8_t)(n >> 8);
	cmd.cdb[8] = (uint8_t)n;
	cmd.tag = srpi_next_tag(c);
	len = srpi_build_cmd(c, iu, sizeof(iu), &cmd);
	ret = len ? srpi_send_credit(c, iu, len) : -EINVAL;
	if (!ret)
		ret = srpi_wait_rsp(c, cmd.tag, 30000, &r);
	if (ret)
		no_response(x, c, name, ret);
	else if (why == REF_SQ)
		result_check(x, &r, name, 0x5, 0x0e, 0x03);
	else
		result(x, r.status == 0x08 && !(r.flags & SRPI_SNSVALID), name,
		       "status 0x%02x flags 0x%02x sense %x/%02x/%02x, expected BUSY without sense%s",
		       r.status, r.flags, r.key, r.asc, r.ascq,
		       r.status == 0 ? " (GOOD: no memory registration; ib_core force_mr=1?)" : "");

	/* One block with one descriptor: served as ever. */
	snprintf(name, sizeof(name), "%s: the channel serves a %s of one block after it",
		 base, op);
	cmd.fmt = SRPI_DESC_DIRECT;
	cmd.ndesc = 1;
	cmd.data_len = 512;
	cmd.cdb[7] = 0;
	cmd.cdb[8] = 1;
	cmd.tag = 0;
	ret = srpi_scsi(c, &cmd, 10000, &r);
	if (ret)
		no_response(x, c, name, ret);
	else
		result(x, r.status == 0, name, "status 0x%02x sense %x/%02x/%02x",
		       r.status, r.key, r.asc, r.ascq);

	close_released(x, c, base, before);
}

static void teardown_cases(struct ctx *x)
{
	refused(x, REF_SQ, 0);
	refused(x, REF_SQ, 1);
	if (!x->mr_pool)
		return;
	refused(x, REF_POOL, 0);
	refused(x, REF_POOL, 1);
}

/* ---- injected failures (--fault-dir) ---------------------------------- */

/*
 * On a kernel with CONFIG_FAULT_INJECTION_DEBUG_FS the driver's debugfs
 * directory (--fault-dir, /sys/kernel/debug/ib_srpt) makes one call of a
 * chosen site fail: fail_sites is the bit mask of the sites armed, fail/
 * the kernel's fault_attr.  Each case arms one site to fail once, sends a
 * command that reaches it and expects BUSY without sense (the driver
 * answers before LIO sees the command), then disarms it: the same command
 * is served, and once disconnected the target releases the channel.  No
 * other initiator may use the site meanwhile (the test runs these alone).
 */
static int write_file(const char *dir, const char *file, const char *val)
{
	char path[512];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ret = fputs(val, f) < 0 ? -EIO : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* Arm the sites of @mask to fail once each (0: disarm); 0 or -errno. */
static int arm_fault(struct ctx *x, unsigned int mask)
{
	static const char * const attr[][2] = {
		{ "fail/probability", "100" }, { "fail/interval", "1" },
		{ "fail/times", "1" }, { "fail/space", "0" },
		{ "fail/verbose", "0" },
	};
	char val[32];
	size_t i;
	int ret;

	for (i = 0; mask && i < sizeof(attr) / sizeof(attr[0]); i++) {
		ret = write_file(x->fault_dir, attr[i][0], attr[i][1]);
		if (ret)
			return ret;
	}
	snprintf(val, sizeof(val), "%u", mask);
	return write_file(x->fault_dir, "fail_sites", val);
}

enum fsite { FS_IMM_COPY, FS_DATA_BUF, FS_RW_CTX, FS_TABLE };

static void fault_case(struct ctx *x, enum fsite site)
{
	static const char * const what[] = {
		[FS_IMM_COPY] = "the copy of immediate data an SRQ buffer holds at offset 96",
		[FS_DATA_BUF] = "the data buffer of a READ",
		[FS_RW_CTX] = "the RDMA context of a READ",
		[FS_TABLE] = "the buffer of an external descriptor table",
	};
	struct srpi_cmd cmd = {
		.lun = x->lun, .cdb = { 0x28, 0, 0, 0, 0, 0, 0, 0, 1 },
		.cdb_len = 10, .dir = SRPI_DIR_IN, .fmt = SRPI_DESC_DIRECT,
		.data_len = 512, .ndesc = 1, .table_off = 4 * MB,
	};
	struct srpi_login l = x->l;
	char base[200], name[280];
	struct srpi_outcome out;
	struct srpi_conn *c;
	struct srpi_rsp r;
	int ret, before = -1;

	snprintf(base, sizeof(base), "fault: %s fails once", what[site]);
	snprintf(name, sizeof(name), "%s: BUSY without sense", base);
	if (!want(x, name))
		return;
	if (site == FS_IMM_COPY) {
		/* The SRQ's buffers are placed for offset 80: 96 is copied. */
		l.imm_offset = 96;
		cmd.cdb[0] = 0x2a;
		cmd.dir = SRPI_DIR_OUT;
		cmd.fmt = SRPI_DESC_IMM;
	} else if (site == FS_TABLE) {
		cmd.fmt = SRPI_DESC_EXTERNAL;
		cmd.ndesc = 2;
		cmd.data_len = 1024;
		cmd.cdb[8] = 2;
	}
	target_released(x, 30000, &before);
	c = login(x, &l, &out);
	if (!c) {
		result(x, 0, name, "login failed: %s: %s",
		       srpi_result_str(out.result), out.msg);
		return;
	}
	if (site == FS_IMM_COPY && !(out.rsp_flags & SRPI_RSP_IMMED_SUPP)) {
		result(x, 0, name, "immediate data at offset 96 not granted");
		close_ch(c);
		return;
	}
	/* A unit attention pending for this initiator goes first. */
	tur(c, x->lun, &r);
	ret = arm_fault(x, 1u << site);
	if (ret) {
		result(x, 0, name, "arming the fault in %s: %s", x->fault_dir,
		       strerror(-ret));
	} else {
		cmd.tag = 0;
		ret = srpi_scsi(c, &cmd, 10000, &r);
		if (ret)
			no_response(x, c, name, ret);
		else
			result(x, r.status == 0x08 &&
			       !(r.flags & SRPI_SNSVALID), name,
			       "status 0x%02x flags 0x%02x sense %x/%02x/%02x, expected BUSY without sense",
			       r.status, r.flags, r.key, r.asc, r.ascq);
	}
	ret = arm_fault(x, 0);
	snprintf(name, sizeof(name), "%s: the same command is served next",
		 base);
	if (ret) {
		result(x, 0, name, "disarming the fault: %s", strerror(-ret));
	} else {
		cmd.tag = 0;
		ret = srpi_scsi(c, &cmd, 10000, &r);
		if (ret)
			no_response(x, c, name, ret);
		else
			result(x, r.status == 0, name,
			       "status 0x%02x sense %x/%02x/%02x", r.status,
			       r.key, r.asc, r.ascq);
	}
	close_released(x, c, base, before);
}

static void fault_cases(struct ctx *x)
{
	if (!x->fault_dir)
		return;
	if (x->srq) {
		fault_case(x, FS_IMM_COPY);
		return;
	}
	fault_case(x, FS_DATA_BUF);
	fault_case(x, FS_RW_CTX);
	fault_case(x, FS_TABLE);
}

static void final_case(struct ctx *x)
{
	const char *name = "after all: a new channel writes, reads back and compares 1 MiB";
	struct srpi_cmd cmd = {
		.lun = x->lun, .cdb = { 0x2a, 0, 0, 0, 0, 0, 0, 0x08, 0 },
		.cdb_len = 10, .dir = SRPI_DIR_OUT, .fmt = SRPI_DESC_INDIRECT,
		.data_len = MB, .ndesc = 16, .table_off = 3 * MB,
	};
	struct srpi_conn *c;
	struct srpi_rsp r;
	uint8_t *d;
	int ret;
	size_t i;

	if (!want(x, name))
		return;
	c = open_ch(x, name);
	if (!c)
		return;
	d = srpi_data(c);
	for (i = 0; i < MB; i++)
		d[i] = (uint8_t)(i * 13 + (i >> 12));
	memset(d + MB, 0, MB);
	ret = srpi_scsi(c, &cmd, 20000, &r);
	if (!ret && !r.status) {
		cmd.tag = 0;
		cmd.cdb[0] = 0x28;
		cmd.dir = SRPI_DIR_IN;
		cmd.data_off = MB;
		ret = srpi_scsi(c, &cmd, 20000, &r);
	}
	result(x, !ret && !r.status && !memcmp(d, d + MB, MB), name,
	       "%d status 0x%02x, data %s", ret, r.status,
	       memcmp(d, d + MB, MB) ? "differs" : "equal");
	close_ch(c);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: srp-hostile [options] --id-ext HEX HOST PORT\n"
"  -e, --id-ext HEX         target port id_ext (srpt_service_guid); ioc_guid the same\n"
"  -I, --initiator-id HEX32 initiator port id of the hostile initiator; it needs\n"
"                           an ACL whose LUN --lun it may overwrite\n"
"  -l, --lun N              that LUN (default 0)\n"
"  -M, --max-req-size N     the target's srp_max_req_size (default 8276)\n"
"  -Q, --srq                the target runs with use_srq=1\n"
"  -q, --sq-size N          the target's srp_sq_size, 16 to 4096 (default 4096):\n"
"                           the send queue cases use N one-block descriptors\n"
"                           (N / 2 + 1 with --mr-pool)\n"
"  -P, --mr-pool            the target registers memory for RDMA (ib_core\n"
"                           force_mr=1), with a pool of min(srp_sq_size, 256)\n"
"                           memory regions a channel: adds the cases of 300\n"
"                           descriptors, more than the pool (BUSY)\n"
"  -F, --fault-dir DIR      the driver's debugfs directory with fault injection\n"
"                           (/sys/kernel/debug/ib_srpt): adds the cases that\n"
"                           make one allocation fail (with --srq, only the one\n"
"                           of the immediate data copy); no other initiator\n"
"                           may send meanwhile\n"
"  -B, --credit-burst N     WRITEs the credit overrun case sends (default 4 x\n"
"                           the credits granted)\n"
"  -C, --channels-cmd CMD   shell command printing how many channels the target\n"
"                           has for this initiator (the case that checks the\n"
"                           target releases a channel fails without it)\n"
"  -c, --case TEXT          only the cases whose name contains TEXT\n"
"  -v, --verbose            trace every IU\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "id-ext", 1, NULL, 'e' }, { "initiator-id", 1, NULL, 'I' },
		{ "lun", 1, NULL, 'l' }, { "max-req-size", 1, NULL, 'M' },
		{ "srq", 0, NULL, 'Q' }, { "case", 1, NULL, 'c' },
		{ "channels-cmd", 1, NULL, 'C' }, { "sq-size", 1, NULL, 'q' },
		{ "mr-pool", 0, NULL, 'P' }, { "fault-dir", 1, NULL, 'F' },
		{ "credit-burst", 1, NULL, 'B' },
		{ "verbose", 0, NULL, 'v' }, { "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctx x = {
		.o = { .timeout_ms = 10000, .data_size = 8 * MB,
		       .queue_depth = 64 },
		.l = { .tag = 0x686f7374696c6521ULL, .it_iu_len = 8260,
		       .buf_fmt = SRPI_FMT_DIRECT | SRPI_FMT_INDIRECT,
		       .flags = SRPI_MULTICHAN_MULTI | SRPI_IMMED_REQUESTED,
		       .imm_offset = IMM_OFFSET },
		.max_req = 8276, .sq_size = 4096,
	};
	int opt, have_id = 0, have_ini = 0;

	while ((opt = getopt_long(argc, argv, "e:I:l:M:Qq:PF:B:C:c:vh", lo, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (srpi_parse_hex(optarg, x.l.target_id, 8))
				goto bad;
			memcpy(x.l.target_id + 8, x.l.target_id, 8);
			have_id = 1;
			break;
		case 'I':
			if (srpi_parse_hex(optarg, x.l.initiator_id, 16))
				goto bad;
			have_ini = 1;
			break;
		case 'l':
			x.lun = strtoull(optarg, NULL, 0);
			break;
		case 'M':
			x.max_req = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'Q':
			x.srq = 1;
			break;
		case 'q':
			x.sq_size = (uint32_t)strtoul(optarg, NULL, 0);
			if (x.sq_size < 16 || x.sq_size > 4096)
				goto bad;
			break;
		case 'P':
			x.mr_pool = 1;
			break;
		case 'F':
			x.fault_dir = optarg;
			break;
		case 'B':
			x.burst = atoi(optarg);
			if (x.burst < 1)
				goto bad;
			break;
		case 'C':
			x.channels_cmd = optarg;
			break;
		case 'c':
			x.only = optarg;
			break;
		case 'v':
			x.o.verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (argc - optind != 2 || !have_id || !have_ini)
		goto bad;
	x.o.host = argv[optind];
	x.o.port = argv[optind + 1];

	login_cases(&x);
	iu_cases(&x);
	cmd_cases(&x);
	core_cases(&x);
	resid_cases(&x);
	rdma_cases(&x);
	flow_cases(&x);
	teardown_cases(&x);
	fault_cases(&x);
	final_case(&x);
	printf("1..%d\n", x.n);
	fprintf(stderr, "srp-hostile: %d passed, %d failed\n", x.n - x.failed,
		x.failed);
	return x.failed ? 1 : 0;
bad:
	usage(stderr);
	return 2;
}
