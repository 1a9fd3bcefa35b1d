// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of the login path of srpt_iu.h: srpt_parse_login_req() and
 * srpt_parse_login_req_rdma(), srpt_check_login(), srpt_build_login_rsp()
 * and srpt_build_login_rej().
 *
 * Input: a 32-byte header, then the login request as it arrived.
 *
 *   0      mode: bit 0 the request is in the RDMA/CM form, bit 1 the
 *          target requires the port id at 16..31
 *   1      size of the buffer the response and reject are built into
 *   2..3   reserved
 *   4..7   max_req_size (be32)
 *   8..11  max_rsp_size (be32)
 *   12..15 req_lim_delta (be32)
 *   16..31 target port id the target requires
 *
 * Checked: parsers read the fields the SRP r16a layouts (and ib_srp's
 * RDMA/CM form) put where they are, refuse exactly what is too short or not
 * a login, and both forms of one request parse to the same thing; the
 * login decision is the documented one; a grant of immediate data is one an
 * SRP_CMD can use; builders write exactly their IU and nothing past the
 * buffer.
 */
#include "fuzz.h"
#include "../../srpt_iu.h"

enum {
	MODE_RDMA	= 1 << 0,
	MODE_TARGET_ID	= 1 << 1,
	HDR_LEN		= 32,
};

static void check_fields(const struct srpt_login_req *r, const u8 *p,
			 bool rdma)
{
	if (rdma) {
		FUZZ_CHECK(memcmp(&r->tag, p, 8) == 0);
		FUZZ_CHECK(r->req_buf_fmt == srpt_get_be16(p + 8));
		FUZZ_CHECK(r->req_flags == p[10]);
		FUZZ_CHECK(r->req_it_iu_len == srpt_get_be32(p + 12));
		FUZZ_CHECK(memcmp(r->initiator_port_id, p + 16, 16) == 0);
		FUZZ_CHECK(memcmp(r->target_port_id, p + 32, 16) == 0);
		FUZZ_CHECK(r->imm_data_offset == srpt_get_be16(p + 48));
	} else {
		FUZZ_CHECK(memcmp(&r->tag, p + 8, 8) == 0);
		FUZZ_CHECK(r->req_it_iu_len == srpt_get_be32(p + 16));
		FUZZ_CHECK(r->req_buf_fmt == srpt_get_be16(p + 24));
		FUZZ_CHECK(r->req_flags == p[26]);
		FUZZ_CHECK(r->imm_data_offset == srpt_get_be16(p + 28));
		FUZZ_CHECK(memcmp(r->initiator_port_id, p + 32, 16) == 0);
		FUZZ_CHECK(memcmp(r->target_port_id, p + 48, 16) == 0);
	}
}

static bool req_equal(const struct srpt_login_req *a,
		      const struct srpt_login_req *b)
{
	return a->tag == b->tag && a->req_it_iu_len == b->req_it_iu_len &&
	       a->req_buf_fmt == b->req_buf_fmt &&
	       a->req_flags == b->req_flags &&
	       a->imm_data_offset == b->imm_data_offset &&
	       !memcmp(a->initiator_port_id, b->initiator_port_id, 16) &&
	       !memcmp(a->target_port_id, b->target_port_id, 16);
}

static bool req_zero(const struct srpt_login_req *r)
{
	struct srpt_login_req z;

	memset(&z, 0, sizeof(z));
	return req_equal(r, &z);
}

/* Re-encode @r in the other transport's layout (reserved bytes zero). */
static void encode(const struct srpt_login_req *r, u8 *p, bool rdma)
{
	if (rdma) {
		memset(p, 0, SRPT_LOGIN_REQ_RDMA_LEN);
		memcpy(p, &r->tag, 8);
		srpt_put_be16(p + 8, r->req_buf_fmt);
		p[10] = r->req_flags;
		p[11] = SRPT_OP_LOGIN_REQ;
		srpt_put_be32(p + 12, r->req_it_iu_len);
		memcpy(p + 16, r->initiator_port_id, 16);
		memcpy(p + 32, r->target_port_id, 16);
		srpt_put_be16(p + 48, r->imm_data_offset);
	} else {
		memset(p, 0, SRPT_LOGIN_REQ_LEN);
		p[0] = SRPT_OP_LOGIN_REQ;
		memcpy(p + 8, &r->tag, 8);
		srpt_put_be32(p + 16, r->req_it_iu_len);
		srpt_put_be16(p + 24, r->req_buf_fmt);
		p[26] = r->req_flags;
		srpt_put_be16(p + 28, r->imm_data_offset);
		memcpy(p + 32, r->initiator_port_id, 16);
		memcpy(p + 48, r->target_port_id, 16);
	}
}

/* The documented decision of srpt_check_login(), written out. */
static u32 expected_reason(const struct srpt_login_req *r,
			   const struct srpt_login_params *lp)
{
	if (r->req_it_iu_len < SRPT_MIN_IT_IU_LEN)
		return SRPT_REJ_UNABLE_ESTABLISH;
	if (r->req_it_iu_len > lp->max_req_size)
		return SRPT_REJ_IT_IU_LEN_TOO_LARGE;
	if (lp->target_port_id &&
	    memcmp(r->target_port_id, lp->target_port_id, 16))
		return SRPT_REJ_UNABLE_ASSOCIATE;
	if (!(r->req_buf_fmt & (SRPT_BUF_FMT_DIRECT | SRPT_BUF_FMT_INDIRECT)))
		return SRPT_REJ_UNSUPPORTED_FMT;
	if ((r->req_flags & SRPT_LOGIN_MULTICHAN_MASK) >
	    SRPT_LOGIN_MULTICHAN_MULTI)
		return SRPT_REJ_UNABLE_ESTABLISH;
	return 0;
}

static void check_grant(const struct srpt_login_req *r,
			const struct srpt_login_params *lp)
{
	struct srpt_login_grant g;
	u32 reason;

	memset(&g, 0x5a, sizeof(g));
	reason = srpt_check_login(r, lp, &g);
	FUZZ_CHECK(reason == expected_reason(r, lp));
	if (reason) {
		FUZZ_CHECK(g.max_it_iu_len == 0 && g.max_ti_iu_len == 0 &&
			   g.buf_fmt == 0 && g.rsp_flags == 0 &&
			   g.imm_data_offset == 0 && g.multichannel == 0);
		return;
	}
	FUZZ_CHECK(g.max_it_iu_len == r->req_it_iu_len);
	FUZZ_CHECK(g.max_it_iu_len >= SRPT_MIN_IT_IU_LEN &&
		   g.max_it_iu_len <= lp->max_req_size);
	FUZZ_CHECK(g.max_ti_iu_len == lp->max_rsp_size);
	FUZZ_CHECK(g.buf_fmt == (r->req_buf_fmt &
				 (SRPT_BUF_FMT_DIRECT | SRPT_BUF_FMT_INDIRECT)));
	FUZZ_CHECK(g.buf_fmt != 0);
	FUZZ_CHECK(g.multichannel == (r->req_flags & SRPT_LOGIN_MULTICHAN_MASK));
	FUZZ_CHECK(g.multichannel <= SRPT_LOGIN_MULTICHAN_MULTI);

	if (g.rsp_flags) {
		FUZZ_CHECK(g.rsp_flags == SRPT_LOGIN_RSP_IMMED_SUPP);
		FUZZ_CHECK(r->req_flags & SRPT_LOGIN_IMMED_REQUESTED);
		FUZZ_CHECK(g.imm_data_offset == r->imm_data_offset);
		FUZZ_CHECK(g.imm_data_offset >=
			   SRPT_CMD_LEN + SRPT_IMM_DESC_LEN);
		FUZZ_CHECK(g.imm_data_offset < g.max_it_iu_len);
	} else {
		FUZZ_CHECK(g.imm_data_offset == 0);
		FUZZ_CHECK(!(r->req_flags & SRPT_LOGIN_IMMED_REQUESTED) ||
			   r->imm_data_offset <
			   SRPT_CMD_LEN + SRPT_IMM_DESC_LEN ||
			   r->imm_data_offset >= r->req_it_iu_len);
	}

	/*
	 * What the login granted, the command path accepts: a largest
	 * SRP_CMD with immediate data, its data filling the rest of the IU.
	 */
	if (g.imm_data_offset && g.max_it_iu_len <= 65536) {
		u32 imm_len = g.max_it_iu_len - g.imm_data_offset;
		struct srpt_cmd_info ci;
		u8 *cmd = fuzz_alloc(g.max_it_iu_len);
		int ret;

		memset(cmd, 0, g.max_it_iu_len);
		cmd[0] = SRPT_OP_CMD;
		cmd[5] = SRPT_DESC_IMM << 4;
		srpt_put_be32(cmd + SRPT_CMD_LEN, imm_len);
		ret = srpt_parse_cmd(cmd, g.max_it_iu_len, g.imm_data_offset,
				     0, &ci);
		FUZZ_CHECK(ret == 0);
		FUZZ_CHECK(ci.fmt == SRPT_DESC_IMM && ci.data_len == imm_len);
		FUZZ_CHECK(ci.imm == cmd + g.imm_data_offset);
		free(cmd);
	}
}

static void check_rsp(size_t len, u64 tag, u32 delta,
		      const struct srpt_login_grant *g, u8 flags)
{
	u8 *b = fuzz_guarded(len);
	size_t ret = srpt_build_login_rsp(b, len, tag, delta, g, flags);

	if (len < SRPT_LOGIN_RSP_LEN) {
		FUZZ_CHECK(ret == 0);
		FUZZ_CHECK(fuzz_untouched_from(b, 0, len));
		free(b);
		return;
	}
	FUZZ_CHECK(ret == SRPT_LOGIN_RSP_LEN);
	FUZZ_CHECK(fuzz_untouched_from(b, ret, len));
	FUZZ_CHECK(b[0] == SRPT_OP_LOGIN_RSP);
	FUZZ_CHECK(fuzz_all(b + 1, 3, 0));
	FUZZ_CHECK(srpt_get_be32(b + 4) == delta);
	FUZZ_CHECK(memcmp(b + 8, &tag, 8) == 0);
	FUZZ_CHECK(srpt_get_be32(b + 16) == g->max_it_iu_len);
	FUZZ_CHECK(srpt_get_be32(b + 20) == g->max_ti_iu_len);
	FUZZ_CHECK(srpt_get_be16(b + 24) == g->buf_fmt);
	FUZZ_CHECK(b[26] == flags);
	FUZZ_CHECK(fuzz_all(b + 27, SRPT_LOGIN_RSP_LEN - 27, 0));
	free(b);
}

static void check_rej(size_t len, u64 tag, u32 reason)
{
	u8 *b = fuzz_guarded(len);
	size_t ret = srpt_build_login_rej(b, len, tag, reason);

	if (len < SRPT_LOGIN_REJ_LEN) {
		FUZZ_CHECK(ret == 0);
		FUZZ_CHECK(fuzz_untouched_from(b, 0, len));
		free(b);
		return;
	}
	FUZZ_CHECK(ret == SRPT_LOGIN_REJ_LEN);
	FUZZ_CHECK(fuzz_untouched_from(b, ret, len));
	FUZZ_CHECK(b[0] == SRPT_OP_LOGIN_REJ);
	FUZZ_CHECK(fuzz_all(b + 1, 3, 0));
	FUZZ_CHECK(srpt_get_be32(b + 4) == reason);
	FUZZ_CHECK(memcmp(b + 8, &tag, 8) == 0);
	FUZZ_CHECK(fuzz_all(b + 16, 8, 0));
	FUZZ_CHECK(srpt_get_be16(b + 24) ==
		   (SRPT_BUF_FMT_DIRECT | SRPT_BUF_FMT_INDIRECT));
	FUZZ_CHECK(fuzz_all(b + 26, SRPT_LOGIN_REJ_LEN - 26, 0));
	free(b);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct srpt_login_params lp;
	struct srpt_login_req req, other;
	struct srpt_login_grant g;
	u8 target_id[16], enc[SRPT_LOGIN_REQ_LEN];
	size_t buf_len, min_len;
	u32 delta, reason;
	bool rdma;
	u8 mode, *iu;
	int ret;

	if (size < HDR_LEN)
		return 0;
	mode = fuzz_get_u8(&in);
	buf_len = fuzz_get_u8(&in);
	fuzz_get_be16(&in);
	lp.max_req_size = fuzz_get_be32(&in);
	lp.max_rsp_size = fuzz_get_be32(&in);
	delta = fuzz_get_be32(&in);
	fuzz_get_bytes(&in, target_id, sizeof(target_id));
	lp.target_port_id = mode & MODE_TARGET_ID ? target_id : NULL;
	rdma = mode & MODE_RDMA;

	iu = fuzz_dup(in.p, in.n);
	memset(&req, 0x5a, sizeof(req));
	if (rdma) {
		ret = srpt_parse_login_req_rdma(iu, in.n, &req);
		min_len = SRPT_LOGIN_REQ_RDMA_LEN;
		FUZZ_CHECK(!ret == (in.n >= min_len &&
				    iu[11] == SRPT_OP_LOGIN_REQ));
	} else {
		ret = srpt_parse_login_req(iu, in.n, &req);
		min_len = SRPT_LOGIN_REQ_LEN;
		FUZZ_CHECK(!ret == (in.n >= min_len &&
				    iu[0] == SRPT_OP_LOGIN_REQ));
	}
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(req_zero(&req));
		free(iu);
		check_rej(buf_len, 0, SRPT_REJ_UNABLE_ESTABLISH);
		return 0;
	}
	check_fields(&req, iu, rdma);

	/* Bytes past the IU are not looked at: the exact IU parses alike. */
	if (in.n > min_len) {
		u8 *exact = fuzz_dup(iu, min_len);

		ret = rdma ? srpt_parse_login_req_rdma(exact, min_len, &other) :
			     srpt_parse_login_req(exact, min_len, &other);
		FUZZ_CHECK(ret == 0 && req_equal(&req, &other));
		free(exact);
	}
	free(iu);

	/* The same request carried by the other transport. */
	encode(&req, enc, !rdma);
	iu = fuzz_dup(enc, rdma ? SRPT_LOGIN_REQ_LEN : SRPT_LOGIN_REQ_RDMA_LEN);
	ret = rdma ? srpt_parse_login_req(iu, SRPT_LOGIN_REQ_LEN, &other) :
		     srpt_parse_login_req_rdma(iu, SRPT_LOGIN_REQ_RDMA_LEN,
					       &other);
	FUZZ_CHECK(ret == 0 && req_equal(&req, &other));
	free(iu);

	check_grant(&req, &lp);
	reason = srpt_check_login(&req, &lp, &g);
	if (reason) {
		check_rej(buf_len, req.tag, reason);
	} else {
		check_rsp(buf_len, req.tag, delta, &g,
			  g.rsp_flags | SRPT_LOGIN_RSP_TERMINATED);
		check_rej(buf_len, req.tag, SRPT_REJ_CHANNEL_LIMIT);
	}
	return 0;
}
