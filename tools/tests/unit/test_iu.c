// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the SRP information unit parsers and builders in srpt_iu.h.
 *
 * Every parser is handed a heap copy of exactly the bytes that "arrived", so
 * that AddressSanitizer catches any read past the length it was given.
 */
#include <stdlib.h>

#include "srpt_kcompat.h"
#include "../../../srpt_iu.h"
#include "tap.h"

static const u8 tag_bytes[8] = { 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04 };
static const u8 lun_bytes[8] = { 0x40, 0x01, 0, 0, 0, 0, 0, 0 };

/* Port ids as ib_srp fills them: id extension, then GUID. */
static const u8 ipi[16] = { 0, 0, 0, 0, 0, 0, 0, 0,
			    0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56 };
static const u8 tpi[16] = { 0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b,
			    0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b };

/*
 * The IB CM REQ private data (92 bytes) of ib_srp's first channel with its
 * defaults: cmd_sg_entries 12 and use_imm_data 1, hence max_it_iu_len
 * 68 + 8192 = 8260, direct and indirect descriptors, single channel,
 * immediate data requested at offset 48 + 16 + 4 = 68.
 */
static const u8 login_ib[92] = {
	0x00, 0, 0, 0, 0, 0, 0, 0,			/* opcode */
	0, 0, 0, 0, 0, 0, 0, 0,				/* tag */
	0x00, 0x00, 0x20, 0x44, 0, 0, 0, 0,		/* req_it_iu_len */
	0x00, 0x06, 0x80, 0x00, 0x00, 0x44, 0, 0,	/* fmt, flags, imm */
	0, 0, 0, 0, 0, 0, 0, 0,
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56,	/* initiator port */
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b,
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b,	/* target port */
	/* 28 bytes of REQ private data beyond the IU, zero */
};

/* The same login as ib_srp sends it through RDMA/CM (struct srp_login_req_rdma). */
static const u8 login_rdma[56] = {
	0, 0, 0, 0, 0, 0, 0, 0,				/* tag */
	0x00, 0x06, 0x80, 0x00, 0x00, 0x00, 0x20, 0x44,	/* fmt, flags, op, len */
	0, 0, 0, 0, 0, 0, 0, 0,
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56,	/* initiator port */
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b,
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b,	/* target port */
	0x00, 0x44, 0, 0, 0, 0, 0, 0,			/* imm offset, reserved */
};

static u8 *heap;

/* A heap copy of exactly @len bytes of @src, valid until the next call. */
static const u8 *in_heap(const u8 *src, size_t len)
{
	free(heap);
	heap = malloc(len ? len : 1);
	if (!heap)
		abort();
	memcpy(heap, src, len);
	return heap;
}

static bool all_bytes(const void *buf, size_t len, u8 v)
{
	const u8 *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != v)
			return false;
	return true;
}

static void put_desc(u8 *p, u64 va, u32 key, u32 len)
{
	srpt_put_be64(p, va);
	srpt_put_be32(p + 8, key);
	srpt_put_be32(p + 12, len);
}

/* ------------------------------------------------------------------------ */
/* Login request parsing.                                                   */
/* ------------------------------------------------------------------------ */

static bool req_is_sample(const struct srpt_login_req *r)
{
	return r->tag == 0 && r->req_it_iu_len == 8260 &&
	       r->req_buf_fmt == (SRPT_BUF_FMT_DIRECT | SRPT_BUF_FMT_INDIRECT) &&
	       r->req_flags == SRPT_LOGIN_IMMED_REQUESTED &&
	       r->imm_data_offset == 68 &&
	       memcmp(r->initiator_port_id, ipi, 16) == 0 &&
	       memcmp(r->target_port_id, tpi, 16) == 0;
}

static void test_login_parse(void)
{
	struct srpt_login_req r;
	u8 b[92];
	u64 tag;
	int ret;

	ret = srpt_parse_login_req(in_heap(login_ib, 92), 92, &r);
	tap_ok(ret == 0 && req_is_sample(&r),
	       "login_req: ib_srp's 92-byte IB CM private data");
	ret = srpt_parse_login_req(in_heap(login_ib, 64), 64, &r);
	tap_ok(ret == 0 && req_is_sample(&r), "login_req: exactly 64 bytes");
	memset(&r, 0xa5, sizeof(r));
	ret = srpt_parse_login_req(in_heap(login_ib, 63), 63, &r);
	tap_ok(ret == -EINVAL && all_bytes(&r, sizeof(r), 0),
	       "login_req: 63 bytes refused, request zeroed");
	ret = srpt_parse_login_req(NULL, 0, &r);
	tap_ok(ret == -EINVAL, "login_req: empty buffer refused");
	memcpy(b, login_ib, 92);
	b[0] = SRPT_OP_CMD;
	ret = srpt_parse_login_req(in_heap(b, 92), 92, &r);
	tap_ok(ret == -EINVAL && all_bytes(&r, sizeof(r), 0),
	       "login_req: wrong opcode refused");

	memcpy(b, login_ib, 92);
	memcpy(b + 8, tag_bytes, 8);
	b[26] = SRPT_LOGIN_MULTICHAN_MULTI;	/* no IMMED_REQUESTED */
	srpt_put_be32(b + 16, 0xffffffff);
	srpt_put_be16(b + 24, 0xffff);
	srpt_put_be16(b + 28, 0xfffe);
	ret = srpt_parse_login_req(in_heap(b, 64), 64, &r);
	memcpy(&tag, tag_bytes, 8);
	tap_ok(ret == 0 && r.tag == tag && r.req_it_iu_len == 0xffffffff &&
	       r.req_buf_fmt == 0xffff && r.req_flags == 1 &&
	       r.imm_data_offset == 0xfffe,
	       "login_req: tag opaque, fields at their maximum, imm offset kept without the flag");

	ret = srpt_parse_login_req_rdma(in_heap(login_rdma, 56), 56, &r);
	tap_ok(ret == 0 && req_is_sample(&r),
	       "login_req_rdma: ib_srp's 56-byte RDMA/CM private data");
	memset(&r, 0xa5, sizeof(r));
	ret = srpt_parse_login_req_rdma(in_heap(login_rdma, 55), 55, &r);
	tap_ok(ret == -EINVAL && all_bytes(&r, sizeof(r), 0),
	       "login_req_rdma: 55 bytes refused, request zeroed");
	ret = srpt_parse_login_req_rdma(NULL, 0, &r);
	tap_ok(ret == -EINVAL, "login_req_rdma: empty buffer refused");
	memcpy(b, login_rdma, 56);
	b[11] = SRPT_OP_LOGIN_RSP;
	ret = srpt_parse_login_req_rdma(in_heap(b, 56), 56, &r);
	tap_ok(ret == -EINVAL, "login_req_rdma: wrong opcode (byte 11) refused");
	memcpy(b, login_rdma, 56);
	memcpy(b, tag_bytes, 8);
	b[0] = SRPT_OP_LOGIN_RSP;	/* part of the tag, not an opcode */
	memcpy(b + 56, "more", 4);
	ret = srpt_parse_login_req_rdma(in_heap(b, 60), 60, &r);
	tap_ok(ret == 0 && memcmp(&r.tag, b, 8) == 0 && r.imm_data_offset == 68,
	       "login_req_rdma: tag is bytes 0..7, longer private data accepted");
}

/* ------------------------------------------------------------------------ */
/* Login decision.                                                          */
/* ------------------------------------------------------------------------ */

static const struct srpt_login_params lparams = {
	.max_req_size = 8276,
	.max_rsp_size = 256,
	.target_port_id = tpi,
};

static struct srpt_login_req sample_req(void)
{
	struct srpt_login_req r;

	srpt_parse_login_req(login_ib, sizeof(login_ib), &r);
	return r;
}

static void login_rejected(const struct srpt_login_req *r,
			   const struct srpt_login_params *p, u32 want,
			   const char *what)
{
	struct srpt_login_grant g;
	u32 ret;

	memset(&g, 0xa5, sizeof(g));
	ret = srpt_check_login(r, p, &g);
	tap_ok(ret == want && all_bytes(&g, sizeof(g), 0),
	       "check_login: %s rejected with 0x%x (got 0x%x)", what, want, ret);
}

/* Login is accepted; whether immediate data at @off is granted. */
static void login_imm(u8 flags, u16 off, u32 it_iu_len, bool granted,
		      const char *what)
{
	struct srpt_login_req r = sample_req();
	struct srpt_login_grant g;
	u32 ret;

	r.req_flags = flags;
	r.imm_data_offset = off;
	r.req_it_iu_len = it_iu_len;
	ret = srpt_check_login(&r, &lparams, &g);
	if (granted)
		tap_ok(ret == 0 && g.rsp_flags == SRPT_LOGIN_RSP_IMMED_SUPP &&
		       g.imm_data_offset == off,
		       "check_login: immediate data granted: %s", what);
	else
		tap_ok(ret == 0 && g.rsp_flags == 0 && g.imm_data_offset == 0,
		       "check_login: immediate data not granted: %s", what);
}

static void test_login_check(void)
{
	struct srpt_login_params p = lparams;
	struct srpt_login_req r = sample_req();
	struct srpt_login_grant g;
	u8 other[16];
	u32 ret;

	ret = srpt_check_login(&r, &lparams, &g);
	tap_ok(ret == 0 && g.max_it_iu_len == 8260 && g.max_ti_iu_len == 256 &&
	       g.buf_fmt == (SRPT_BUF_FMT_DIRECT | SRPT_BUF_FMT_INDIRECT) &&
	       g.rsp_flags == SRPT_LOGIN_RSP_IMMED_SUPP &&
	       g.imm_data_offset == 68 &&
	       g.multichannel == SRPT_LOGIN_MULTICHAN_SINGLE,
	       "check_login: ib_srp's login granted with immediate data at 68");

	r.req_it_iu_len = SRPT_MIN_IT_IU_LEN - 1;
	login_rejected(&r, &lparams, SRPT_REJ_UNABLE_ESTABLISH,
		       "req_it_iu_len 63");
	r.req_it_iu_len = 0;
	login_rejected(&r, &lparams, SRPT_REJ_UNABLE_ESTABLISH,
		       "req_it_iu_len 0");
	r.req_it_iu_len = SRPT_MIN_IT_IU_LEN;
	ret = srpt_check_login(&r, &lparams, &g);
	tap_ok(ret == 0 && g.max_it_iu_len == 64 && g.rsp_flags == 0,
	       "check_login: req_it_iu_len 64 accepted (too small for imm at 68)");
	r.req_it_iu_len = 8276;
	ret = srpt_check_login(&r, &lparams, &g);
	tap_ok(ret == 0 && g.max_it_iu_len == 8276,
	       "check_login: req_it_iu_len == max_req_size accepted");
	r.req_it_iu_len = 8277;
	login_rejected(&r, &lparams, SRPT_REJ_IT_IU_LEN_TOO_LARGE,
		       "req_it_iu_len max_req_size + 1");
	r.req_it_iu_len = 0xffffffff;
	login_rejected(&r, &lparams, SRPT_REJ_IT_IU_LEN_TOO_LARGE,
		       "req_it_iu_len 0xffffffff");

	r = sample_req();
	r.target_port_id[15] ^= 1;
	login_rejected(&r, &lparams, SRPT_REJ_UNABLE_ASSOCIATE,
		       "other target port id");
	p.target_port_id = NULL;
	ret = srpt_check_login(&r, &p, &g);
	tap_ok(ret == 0, "check_login: any target port id when none is required");
	memcpy(other, tpi, 16);
	other[0] ^= 0x80;
	p.target_port_id = other;
	r = sample_req();
	login_rejected(&r, &p, SRPT_REJ_UNABLE_ASSOCIATE,
		       "target port id differing in its first byte");

	r = sample_req();
	r.req_it_iu_len = 10;
	r.target_port_id[0] ^= 1;
	r.req_buf_fmt = 0;
	login_rejected(&r, &lparams, SRPT_REJ_UNABLE_ESTABLISH,
		       "several faults: the IU length is checked first");
	r.req_it_iu_len = 8260;
	login_rejected(&r, &lparams, SRPT_REJ_UNABLE_ASSOCIATE,
		       "bad port and format: the port is checked before the format");

	r = sample_req();
	r.req_buf_fmt = 0;
	login_rejected(&r, &lparams, SRPT_REJ_UNSUPPORTED_FMT, "no buffer format");
	r.req_buf_fmt = 0xfff9;
	login_rejected(&r, &lparams, SRPT_REJ_UNSUPPORTED_FMT,
		       "only formats other than direct and indirect");
	r.req_buf_fmt = SRPT_BUF_FMT_DIRECT;
	ret = srpt_check_login(&r, &lparams, &g);
	tap_ok(ret == 0 && g.buf_fmt == SRPT_BUF_FMT_DIRECT,
	       "check_login: direct only granted as direct only");
	r.req_buf_fmt = 0xffff;
	ret = srpt_check_login(&r, &lparams, &g);
	tap_ok(ret == 0 &&
	       g.buf_fmt == (SRPT_BUF_FMT_DIRECT | SRPT_BUF_FMT_INDIRECT),
	       "check_login: all format bits granted as direct | indirect");

	r = sample_req();
	r.req_flags = SRPT_LOGIN_IMMED_REQUESTED | 2;
	login_rejected(&r, &lparams, SRPT_REJ_UNABLE_ESTABLISH,
		       "reserved multichannel action 2");
	r.req_flags = 3;
	login_rejected(&r, &lparams, SRPT_REJ_UNABLE_ESTABLISH,
		       "reserved multichannel action 3");
	r.req_flags = SRPT_LOGIN_IMMED_REQUESTED | SRPT_LOGIN_MULTICHAN_MULTI;
	ret = srpt_check_login(&r, &lparams, &g);
	tap_ok(ret == 0 && g.multichannel == SRPT_LOGIN_MULTICHAN_MULTI &&
	       g.rsp_flags == SRPT_LOGIN_RSP_IMMED_SUPP,
	       "check_login: multichannel action 1 passed on");

	login_imm(SRPT_LOGIN_IMMED_REQUESTED, 52, 8260, true,
		  "offset 52, the smallest");
	login_imm(SRPT_LOGIN_IMMED_REQUESTED, 51, 8260, false,
		  "offset 51 overlaps the descriptor");
	login_imm(SRPT_LOGIN_IMMED_REQUESTED, 0, 8260, false, "offset 0");
	login_imm(SRPT_LOGIN_IMMED_REQUESTED, 8259, 8260, true,
		  "offset req_it_iu_len - 1");
	login_imm(SRPT_LOGIN_IMMED_REQUESTED, 8260, 8260, false,
		  "offset == req_it_iu_len");
	login_imm(SRPT_LOGIN_IMMED_REQUESTED, 0xffff, 8276, false,
		  "offset 0xffff beyond the IU");
	login_imm(0, 68, 8260, false, "offset 68 but not requested");
	p = lparams;
	p.max_req_size = 0x20000;
	r = sample_req();
	r.req_it_iu_len = 0x10000;
	r.imm_data_offset = 0xffff;
	ret = srpt_check_login(&r, &p, &g);
	tap_ok(ret == 0 && g.imm_data_offset == 0xffff,
	       "check_login: offset 0xffff granted in a 64 KiB IU");
}

/* ------------------------------------------------------------------------ */
/* Login response, reject and target logout.                                */
/* ------------------------------------------------------------------------ */

static void test_login_build(void)
{
	static const u8 want_rsp[52] = {
		0xc0, 0, 0, 0, 0x00, 0x00, 0x00, 0x40,	/* opcode, credits */
		0, 0, 0, 0, 0, 0, 0, 0,			/* tag */
		0x00, 0x00, 0x20, 0x44,			/* max_it_iu_len */
		0x00, 0x00, 0x01, 0x00,			/* max_ti_iu_len */
		0x00, 0x06, 0x82,			/* fmt, flags */
	};
	static const u8 want_rej[32] = {
		0xc2, 0, 0, 0, 0x00, 0x01, 0x00, 0x03,	/* opcode, reason */
		0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04,
		0, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x06,				/* buf_fmt */
	};
	struct srpt_login_req r = sample_req();
	struct srpt_login_grant g;
	u8 b[128], in[64];
	size_t n;
	u64 tag;

	srpt_check_login(&r, &lparams, &g);
	memset(b, 0xee, sizeof(b));
	n = srpt_build_login_rsp(b, 51, r.tag, 64, &g, g.rsp_flags);
	tap_ok(n == 0 && all_bytes(b, sizeof(b), 0xee),
	       "login_rsp: 51-byte buffer refused, nothing written");
	n = srpt_build_login_rsp(b, 52, r.tag, 64, &g,
				 g.rsp_flags | SRPT_LOGIN_RSP_MAINTAINED);
	tap_ok(n == 52 && memcmp(b, want_rsp, 52) == 0 &&
	       all_bytes(b + 52, sizeof(b) - 52, 0xee),
	       "login_rsp: byte for byte, exact fit, nothing beyond 52 bytes");
	g.max_it_iu_len = 0xffffffff;
	g.max_ti_iu_len = 0xfffffffe;
	g.buf_fmt = 0xffff;
	n = srpt_build_login_rsp(b, sizeof(b), ~0ULL, 0xffffffff, &g, 0xff);
	tap_ok(n == 52 && all_bytes(b, 1, 0xc0) && all_bytes(b + 1, 3, 0) &&
	       all_bytes(b + 4, 12, 0xff) && srpt_get_be32(b + 20) == 0xfffffffe &&
	       all_bytes(b + 27, 25, 0),
	       "login_rsp: maximum values, reserved bytes zero");

	/* Round trip: the tag goes back as the very bytes that came in. */
	memcpy(in, login_ib, 64);
	memcpy(in + 8, tag_bytes, 8);
	srpt_parse_login_req(in_heap(in, 64), 64, &r);
	srpt_check_login(&r, &lparams, &g);
	n = srpt_build_login_rsp(b, sizeof(b), r.tag, 1, &g, g.rsp_flags);
	tap_ok(n == 52 && memcmp(b + 8, tag_bytes, 8) == 0 && b[26] == 0x80,
	       "login_rsp: IB CM tag echoed byte for byte");
	memcpy(in, login_rdma, 56);
	memcpy(in, tag_bytes, 8);
	srpt_parse_login_req_rdma(in_heap(in, 56), 56, &r);
	n = srpt_build_login_rej(b, sizeof(b), r.tag, SRPT_REJ_NO_RESOURCES);
	tap_ok(n == 32 && memcmp(b + 8, tag_bytes, 8) == 0 &&
	       srpt_get_be32(b + 4) == SRPT_REJ_NO_RESOURCES,
	       "login_rej: RDMA/CM tag echoed byte for byte");

	memcpy(&tag, tag_bytes, 8);
	memset(b, 0xee, sizeof(b));
	n = srpt_build_login_rej(b, 31, tag, SRPT_REJ_UNABLE_ASSOCIATE);
	tap_ok(n == 0 && all_bytes(b, sizeof(b), 0xee),
	       "login_rej: 31-byte buffer refused, nothing written");
	n = srpt_build_login_rej(b, 32, tag, SRPT_REJ_UNABLE_ASSOCIATE);
	tap_ok(n == 32 && memcmp(b, want_rej, 32) == 0 &&
	       all_bytes(b + 32, sizeof(b) - 32, 0xee),
	       "login_rej: byte for byte, exact fit");
}

/* ------------------------------------------------------------------------ */
/* Opcode, I_LOGOUT, TSK_MGMT.                                              */
/* ------------------------------------------------------------------------ */

static void test_small_ius(void)
{
	static const u8 task_tag[8] = { 1, 2, 3, 4, 5, 6, 7, 0x88 };
	struct srpt_tmf_info t;
	u8 b[64];
	u64 tag;
	int ret;

	memset(b, 0, sizeof(b));
	b[0] = SRPT_OP_CMD;
	tap_ok(srpt_iu_opcode(NULL, 0) == -EINVAL, "iu_opcode: empty IU refused");
	tap_ok(srpt_iu_opcode(in_heap(b, 15), 15) == -EINVAL,
	       "iu_opcode: 15 bytes refused");
	tap_ok(srpt_iu_opcode(in_heap(b, 16), 16) == SRPT_OP_CMD,
	       "iu_opcode: 16 bytes give the opcode");
	b[0] = 0xff;
	tap_ok(srpt_iu_opcode(in_heap(b, 16), 16) == 255,
	       "iu_opcode: opcode 0xff is 255, not negative");
	b[0] = SRPT_OP_LOGIN_REJ;
	tap_ok(srpt_iu_opcode(in_heap(b, 64), 64) == 0xc2,
	       "iu_opcode: opcode 0xc2");

	memset(b, 0, sizeof(b));
	b[0] = SRPT_OP_I_LOGOUT;
	memcpy(b + 8, tag_bytes, 8);
	ret = srpt_parse_i_logout(in_heap(b, 16), 16, &tag);
	tap_ok(ret == 0 && memcmp(&tag, tag_bytes, 8) == 0,
	       "i_logout: exactly 16 bytes, tag copied");
	tag = 1;
	ret = srpt_parse_i_logout(in_heap(b, 15), 15, &tag);
	tap_ok(ret == -EINVAL && tag == 0, "i_logout: 15 bytes refused");
	b[0] = SRPT_OP_T_LOGOUT;
	ret = srpt_parse_i_logout(in_heap(b, 16), 16, &tag);
	tap_ok(ret == -EINVAL && tag == 0, "i_logout: T_LOGOUT opcode refused");

	memset(b, 0, sizeof(b));
	b[0] = SRPT_OP_TSK_MGMT;
	memcpy(b + 8, tag_bytes, 8);
	memcpy(b + 20, lun_bytes, 8);
	b[30] = SRPT_TMF_ABORT_TASK;
	memcpy(b + 32, task_tag, 8);
	ret = srpt_parse_tsk_mgmt(in_heap(b, 48), 48, &t);
	tap_ok(ret == 0 && memcmp(&t.tag, tag_bytes, 8) == 0 &&
	       memcmp(t.lun, lun_bytes, 8) == 0 &&
	       t.func == SRPT_TMF_ABORT_TASK &&
	       memcmp(&t.task_tag, task_tag, 8) == 0,
	       "tsk_mgmt: exactly 48 bytes, all fields");
	b[30] = 0x77;
	ret = srpt_parse_tsk_mgmt(in_heap(b, 64), 64, &t);
	tap_ok(ret == 0 && t.func == 0x77,
	       "tsk_mgmt: unknown function passed on, longer IU accepted");
	memset(&t, 0xa5, sizeof(t));
	ret = srpt_parse_tsk_mgmt(in_heap(b, 47), 47, &t);
	tap_ok(ret == -EINVAL && all_bytes(&t, sizeof(t), 0),
	       "tsk_mgmt: 47 bytes refused, result zeroed");
	b[0] = SRPT_OP_CMD;
	ret = srpt_parse_tsk_mgmt(in_heap(b, 48), 48, &t);
	tap_ok(ret == -EINVAL && all_bytes(&t, sizeof(t), 0),
	       "tsk_mgmt: SRP_CMD opcode refused");
	tap_ok(srpt_parse_tsk_mgmt(NULL, 0, &t) == -EINVAL,
	       "tsk_mgmt: empty IU refused");
}

/* ------------------------------------------------------------------------ */
/* SRP_CMD.                                                                 */
/* ------------------------------------------------------------------------ */

/* An SRP_CMD header in @b: opcode, counts, tag, LUN, READ(10)-ish CDB. */
static void cmd_init(u8 *b, size_t size, u8 buf_fmt, u8 out_cnt, u8 in_cnt,
		     u8 add_cdb)
{
	memset(b, 0, size);
	b[0] = SRPT_OP_CMD;
	b[5] = buf_fmt;
	b[6] = out_cnt;
	b[7] = in_cnt;
	memcpy(b + 8, tag_bytes, 8);
	memcpy(b + 20, lun_bytes, 8);
	b[31] = add_cdb;
	b[32] = 0x28;
	b[47] = 0x5a;
}

static int cmd(const u8 *b, size_t len, u16 imm_off, u32 max_desc,
	       struct srpt_cmd_info *ci)
{
	memset(ci, 0xa5, sizeof(*ci));
	return srpt_parse_cmd(in_heap(b, len), len, imm_off, max_desc, ci);
}

/* After an error: only the tag and LUN, when the IU had them, are set. */
static bool ci_ids_only(const struct srpt_cmd_info *ci, const u8 *b,
			size_t len)
{
	bool ids = len >= SRPT_CMD_LEN;

	if (ids && (memcmp(&ci->tag, b + 8, 8) || memcmp(ci->lun, b + 20, 8)))
		return false;
	if (!ids && (ci->tag || !all_bytes(ci->lun, 8, 0)))
		return false;
	return ci->task_attr == 0 && !ci->cdb && ci->cdb_len == 0 &&
	       ci->dir == SRPT_DIR_NONE && ci->fmt == SRPT_DESC_NONE &&
	       ci->data_len == 0 && ci->ndesc == 0 && !ci->desc &&
	       ci->ext_table.va == 0 && ci->ext_table.key == 0 &&
	       ci->ext_table.len == 0 && !ci->imm;
}

static void cmd_bad(const u8 *b, size_t len, u16 imm_off, u32 max_desc,
		    int want, const char *what)
{
	struct srpt_cmd_info ci;
	int ret = cmd(b, len, imm_off, max_desc, &ci);

	tap_ok(ret == want && ci_ids_only(&ci, b, len),
	       "parse_cmd: %s -> %d (got %d)", what, want, ret);
}

static bool ci_common(const struct srpt_cmd_info *ci, u32 cdb_len)
{
	return memcmp(&ci->tag, tag_bytes, 8) == 0 &&
	       memcmp(ci->lun, lun_bytes, 8) == 0 &&
	       ci->cdb == heap + 32 && ci->cdb_len == cdb_len &&
	       ci->cdb[0] == 0x28 && ci->cdb[15] == 0x5a;
}

static void test_cmd_basic(void)
{
	static const u8 attrs_ok[] = { 0, 1, 2, 4, 0xf9, 0xfa };
	static const u8 attrs_bad[] = { 3, 5, 6, 7, 0xff };
	static const u8 fmts_bad[] = { 0x11, 0x12, 0x21, 0x31, 0x13, 0x40,
				       0x04, 0xf0, 0x0f, 0x03 };
	struct srpt_cmd_info ci;
	u8 b[512];
	size_t i;
	int ret;

	cmd_init(b, sizeof(b), 0, 0, 0, 0);
	ret = cmd(b, 48, 0, 0, &ci);
	tap_ok(ret == 0 && ci_common(&ci, 16) && ci.task_attr == 0 &&
	       ci.dir == SRPT_DIR_NONE && ci.fmt == SRPT_DESC_NONE &&
	       ci.data_len == 0 && ci.ndesc == 0 && !ci.desc && !ci.imm &&
	       ci.ext_table.len == 0,
	       "parse_cmd: 48-byte command without data");
	cmd_bad(b, 47, 0, 16, -EINVAL, "47 bytes");
	cmd_bad(b, 16, 0, 16, -EINVAL, "16 bytes");
	ret = srpt_parse_cmd(NULL, 0, 0, 16, &ci);
	tap_ok(ret == -EINVAL && ci_ids_only(&ci, b, 0),
	       "parse_cmd: empty IU refused");
	b[0] = SRPT_OP_TSK_MGMT;
	cmd_bad(b, 48, 0, 16, -EINVAL, "TSK_MGMT opcode (tag and LUN kept)");
	b[0] = SRPT_OP_CMD;

	for (i = 0; i < sizeof(attrs_ok); i++) {
		b[29] = attrs_ok[i];
		ret = cmd(b, 48, 0, 16, &ci);
		tap_ok(ret == 0 && ci.task_attr == (attrs_ok[i] & 7),
		       "parse_cmd: task attribute byte 0x%02x gives %d",
		       attrs_ok[i], attrs_ok[i] & 7);
	}
	for (i = 0; i < sizeof(attrs_bad); i++) {
		b[29] = attrs_bad[i];
		cmd_bad(b, 48, 0, 16, -EINVAL, "reserved task attribute");
	}
	b[29] = 0;

	for (i = 0; i < sizeof(fmts_bad); i++) {
		b[5] = fmts_bad[i];
		cmd_bad(b, 512, 68, 16, -EOPNOTSUPP,
			(fmts_bad[i] & 0xf) && (fmts_bad[i] >> 4) ?
			"bidirectional buffer format" :
			fmts_bad[i] == 0x03 ? "immediate DATA-IN" :
			"reserved buffer format");
	}

	/* Additional CDB. */
	cmd_init(b, sizeof(b), 0, 0, 0, 16);
	ret = cmd(b, 64, 0, 16, &ci);
	tap_ok(ret == 0 && ci_common(&ci, 32),
	       "parse_cmd: 16 additional CDB bytes, exact fit");
	cmd_bad(b, 63, 0, 16, -EINVAL, "additional CDB one byte short");
	b[31] = 0x13;
	ret = cmd(b, 64, 0, 16, &ci);
	tap_ok(ret == 0 && ci.cdb_len == 32,
	       "parse_cmd: two low bits of the additional CDB length ignored");
	b[31] = 0x03;
	ret = cmd(b, 48, 0, 16, &ci);
	tap_ok(ret == 0 && ci.cdb_len == 16,
	       "parse_cmd: additional CDB length 3 means none");
	b[31] = 0xfc;
	ret = cmd(b, 300, 0, 16, &ci);
	tap_ok(ret == 0 && ci.cdb_len == 268,
	       "parse_cmd: 252 additional CDB bytes, exact fit");
	cmd_bad(b, 299, 0, 16, -EINVAL, "252 additional CDB bytes, one short");
	cmd_bad(b, 48, 0, 16, -EINVAL, "252 additional CDB bytes in 48");
}

static void test_cmd_direct(void)
{
	struct srpt_cmd_info ci;
	u8 b[128];
	int ret;

	cmd_init(b, sizeof(b), 0x10, 0, 0, 0);
	put_desc(b + 48, 0x1122334455667788ULL, 0xabcd, 4096);
	ret = cmd(b, 64, 0, 1, &ci);
	tap_ok(ret == 0 && ci_common(&ci, 16) && ci.dir == SRPT_DIR_OUT &&
	       ci.fmt == SRPT_DESC_DIRECT && ci.ndesc == 1 &&
	       ci.desc == heap + 48 && ci.data_len == 4096 && !ci.imm &&
	       ci.ext_table.len == 0,
	       "parse_cmd: direct DATA-OUT, no descriptor count, exact fit");
	cmd_bad(b, 63, 0, 1, -EINVAL, "direct descriptor one byte short");
	cmd_bad(b, 48, 0, 1, -EINVAL, "direct descriptor missing");
	cmd_bad(b, 64, 0, 0, -E2BIG, "direct descriptor with max_desc 0");

	cmd_init(b, sizeof(b), 0x01, 0, 1, 16);
	put_desc(b + 64, 0x1000, 7, 0xffffffff);
	ret = cmd(b, 80, 0, 1, &ci);
	tap_ok(ret == 0 && ci_common(&ci, 32) && ci.dir == SRPT_DIR_IN &&
	       ci.fmt == SRPT_DESC_DIRECT && ci.ndesc == 1 &&
	       ci.desc == heap + 64 && ci.data_len == 0xffffffff,
	       "parse_cmd: direct DATA-IN after 16 additional CDB bytes");
	cmd_bad(b, 79, 0, 1, -EINVAL,
		"direct descriptor after additional CDB one byte short");
}

static void test_cmd_indirect(void)
{
	struct srpt_cmd_info ci;
	u8 b[48 + 16 + 20 + 255 * 16];
	u32 i;
	int ret;

	/* Three descriptors, all in the IU: 48 + 20 + 48 = 116 bytes. */
	cmd_init(b, sizeof(b), 0x20, 3, 0, 0);
	put_desc(b + 48, 0xfeed0000, 0x1234, 48);
	srpt_put_be32(b + 64, 4096 + 8192 + 512);
	put_desc(b + 68, 0x10000, 1, 4096);
	put_desc(b + 84, 0x20000, 2, 8192);
	put_desc(b + 100, 0x30000, 3, 512);
	ret = cmd(b, 116, 0, 3, &ci);
	tap_ok(ret == 0 && ci_common(&ci, 16) && ci.dir == SRPT_DIR_OUT &&
	       ci.fmt == SRPT_DESC_INDIRECT && ci.ndesc == 3 &&
	       ci.desc == heap + 68 && ci.data_len == 4096 + 8192 + 512 &&
	       ci.ext_table.len == 0 && !ci.imm,
	       "parse_cmd: indirect DATA-OUT, 3 descriptors in the IU, exact fit");
	cmd_bad(b, 115, 0, 3, -EINVAL, "in-IU descriptors one byte short");
	cmd_bad(b, 67, 0, 3, -EINVAL, "indirect header one byte short");
	cmd_bad(b, 48, 0, 3, -EINVAL, "indirect header missing");
	cmd_bad(b, 116, 0, 2, -E2BIG, "3 descriptors with max_desc 2");
	srpt_put_be32(b + 64, 4096 + 8192 + 511);
	cmd_bad(b, 116, 0, 3, -EINVAL, "in-IU lengths below total_len");
	cmd_bad(b, 116, 0, 2, -EINVAL,
		"bad total and too many descriptors: -EINVAL first");
	srpt_put_be32(b + 64, 4096 + 8192 + 513);
	cmd_bad(b, 116, 0, 3, -EINVAL, "in-IU lengths above total_len");
	srpt_put_be32(b + 64, 4096 + 8192 + 512);

	/* The same as DATA-IN: the DATA-IN count is the one that matters. */
	b[5] = 0x02;
	b[6] = 0;
	b[7] = 3;
	ret = cmd(b, 116, 0, 3, &ci);
	tap_ok(ret == 0 && ci.dir == SRPT_DIR_IN && ci.ndesc == 3 &&
	       ci.desc == heap + 68,
	       "parse_cmd: indirect DATA-IN uses the DATA-IN count");
	b[6] = 3;
	b[7] = 0;
	ret = cmd(b, 116, 0, 3, &ci);
	tap_ok(ret == 0 && ci.dir == SRPT_DIR_IN && !ci.desc &&
	       ci.ext_table.va == 0xfeed0000 && ci.ext_table.key == 0x1234 &&
	       ci.ext_table.len == 48,
	       "parse_cmd: DATA-OUT count ignored for DATA-IN (table is external)");
	b[5] = 0x20;

	/* Table length: zero, not a multiple of 16, fewer entries than sent. */
	srpt_put_be32(b + 60, 0);
	cmd_bad(b, 116, 0, 3, -EINVAL, "table length 0");
	srpt_put_be32(b + 60, 47);
	cmd_bad(b, 116, 0, 3, -EINVAL, "table length 47");
	srpt_put_be32(b + 60, 56);
	cmd_bad(b, 116, 0, 3, -EINVAL, "table length 56");
	srpt_put_be32(b + 60, 32);
	cmd_bad(b, 116, 0, 3, -EINVAL, "descriptor count 3 > table entries 2");
	srpt_put_be32(b + 60, 0xffffffff);
	cmd_bad(b, 116, 0, 3, -EINVAL, "table length 0xffffffff");
	srpt_put_be32(b + 60, 0);
	srpt_put_be32(b + 64, 0);
	b[6] = 0;
	cmd_bad(b, 116, 0, 3, -EINVAL, "table length 0, count 0, total 0");

	/* 32-bit sums that wrap to the total must not pass. */
	srpt_put_be32(b + 60, 32);
	b[6] = 2;
	srpt_put_be32(b + 64, 0);
	put_desc(b + 68, 0x10000, 1, 0x80000000);
	put_desc(b + 84, 0x20000, 2, 0x80000000);
	cmd_bad(b, 100, 0, 16, -EINVAL, "lengths 2 * 2^31 against total 0");
	srpt_put_be32(b + 60, 48);
	b[6] = 3;
	srpt_put_be32(b + 64, 0xfffffffd);
	put_desc(b + 68, 0x10000, 1, 0xffffffff);
	put_desc(b + 84, 0x20000, 2, 0xffffffff);
	put_desc(b + 100, 0x30000, 3, 0xffffffff);
	cmd_bad(b, 116, 0, 16, -EINVAL,
		"lengths 3 * 0xffffffff against their 32-bit sum");
	srpt_put_be32(b + 64, 0xffffffff);
	put_desc(b + 68, 0x10000, 1, 0xffffffff);
	put_desc(b + 84, 0x20000, 2, 1);
	put_desc(b + 100, 0x30000, 3, 0xffffffff);
	cmd_bad(b, 116, 0, 16, -EINVAL,
		"lengths 0xffffffff + 1 + 0xffffffff against their 32-bit sum");
	put_desc(b + 84, 0x20000, 2, 0);
	put_desc(b + 100, 0x30000, 3, 0);
	ret = cmd(b, 116, 0, 16, &ci);
	tap_ok(ret == 0 && ci.data_len == 0xffffffff,
	       "parse_cmd: in-IU lengths adding up to 0xffffffff");

	/* 255 descriptors, the most a count byte can say, after 16 CDB bytes. */
	cmd_init(b, sizeof(b), 0x20, 255, 0, 16);
	put_desc(b + 64, 0xfeed0000, 0x1234, 255 * 16);
	srpt_put_be32(b + 80, 255 * 512);
	for (i = 0; i < 255; i++)
		put_desc(b + 84 + i * 16, 0x100000 + i * 512, i, 512);
	ret = cmd(b, sizeof(b), 0, 255, &ci);
	tap_ok(ret == 0 && ci_common(&ci, 32) && ci.ndesc == 255 &&
	       ci.desc == heap + 84 && ci.data_len == 255 * 512,
	       "parse_cmd: 255 in-IU descriptors after additional CDB, exact fit");
	cmd_bad(b, sizeof(b) - 1, 0, 255, -EINVAL,
		"255 in-IU descriptors one byte short");
	cmd_bad(b, sizeof(b), 0, 254, -E2BIG, "255 descriptors, max_desc 254");
}

static void test_cmd_external(void)
{
	struct srpt_cmd_info ci;
	u8 b[256], tbl[5 * 16];
	u32 i;
	int ret;

	/* ib_srp with allow_ext_sg: 5 entries, only the first 2 in the IU. */
	cmd_init(b, sizeof(b), 0x20, 2, 0, 0);
	put_desc(b + 48, 0xabcdef0012345678ULL, 0x77, 5 * 16);
	srpt_put_be32(b + 64, 5 * 4096);
	for (i = 0; i < 5; i++)
		put_desc(tbl + i * 16, 0x100000 + i * 4096, 9, 4096);
	memcpy(b + 68, tbl, 2 * 16);
	ret = cmd(b, 100, 0, 128, &ci);
	tap_ok(ret == 0 && ci_common(&ci, 16) && ci.dir == SRPT_DIR_OUT &&
	       ci.fmt == SRPT_DESC_INDIRECT && ci.ndesc == 5 && !ci.desc &&
	       ci.ext_table.va == 0xabcdef0012345678ULL &&
	       ci.ext_table.key == 0x77 && ci.ext_table.len == 80 &&
	       ci.data_len == 5 * 4096 && !ci.imm,
	       "parse_cmd: external table (2 of 5 in the IU)");
	tap_ok(srpt_check_desc_table(tbl, ci.ndesc, ci.data_len) == 0,
	       "check_desc_table: fetched table adds up");
	cmd_bad(b, 99, 0, 128, -EINVAL,
		"external table: in-IU part one byte short");
	cmd_bad(b, 100, 0, 4, -E2BIG, "external table of 5, max_desc 4");
	ret = cmd(b, 100, 0, 5, &ci);
	tap_ok(ret == 0 && ci.ndesc == 5, "parse_cmd: external table of 5, max_desc 5");
	srpt_put_be32(b + 64, 1);
	ret = cmd(b, 100, 0, 128, &ci);
	tap_ok(ret == 0 && ci.data_len == 1,
	       "parse_cmd: external table's total not checked before the fetch");
	tap_ok(srpt_check_desc_table(tbl, ci.ndesc, ci.data_len) == -EINVAL,
	       "check_desc_table: fetched table does not add up");

	/* No descriptor at all in the IU, and a huge table. */
	b[6] = 0;
	ret = cmd(b, 68, 0, 128, &ci);
	tap_ok(ret == 0 && ci.ndesc == 5 && !ci.desc,
	       "parse_cmd: external table, descriptor count 0, exact fit");
	srpt_put_be32(b + 60, 0xfffffff0);
	ret = cmd(b, 68, 0, 0xffffffff, &ci);
	tap_ok(ret == 0 && ci.ndesc == 0x0fffffff && ci.ext_table.len == 0xfffffff0,
	       "parse_cmd: table of 2^28 - 1 entries when max_desc allows it");
	cmd_bad(b, 68, 0, 128, -E2BIG, "table of 2^28 - 1 entries");
}

static void test_cmd_imm(void)
{
	struct srpt_cmd_info ci;
	u8 b[68 + 600];
	int ret;

	/* ib_srp: descriptor right after the CDB, data at 68. */
	cmd_init(b, sizeof(b), 0x30, 0, 0, 0);
	srpt_put_be32(b + 48, 512);
	memset(b + 68, 0x3c, 512);
	ret = cmd(b, 68 + 512, 68, 0, &ci);
	tap_ok(ret == 0 && ci_common(&ci, 16) && ci.dir == SRPT_DIR_OUT &&
	       ci.fmt == SRPT_DESC_IMM && ci.ndesc == 0 && !ci.desc &&
	       ci.imm == heap + 68 && ci.data_len == 512 &&
	       all_bytes(ci.imm, 512, 0x3c) && ci.ext_table.len == 0,
	       "parse_cmd: immediate data at 68, exact fit, max_desc 0 suffices");
	cmd_bad(b, 68 + 511, 68, 0, -EINVAL, "immediate data one byte short");
	cmd_bad(b, 68 + 512, 0, 16, -EINVAL,
		"immediate data while not negotiated");
	cmd_bad(b, 51, 68, 16, -EINVAL, "immediate descriptor one byte short");
	cmd_bad(b, 52, 68, 16, -EINVAL, "immediate descriptor but no data");
	ret = cmd(b, 68 + 600, 68, 16, &ci);
	tap_ok(ret == 0 && ci.data_len == 512,
	       "parse_cmd: IU longer than the immediate data");
	ret = cmd(b, 68 + 512, 52, 16, &ci);
	tap_ok(ret == 0 && ci.imm == heap + 52,
	       "parse_cmd: immediate data right after the descriptor (offset 52)");
	cmd_bad(b, 68 + 512, 51, 16, -EINVAL,
		"immediate offset overlapping the descriptor");
	srpt_put_be32(b + 48, 0);
	ret = cmd(b, 68, 68, 16, &ci);
	tap_ok(ret == 0 && ci.data_len == 0 && ci.imm == heap + 68,
	       "parse_cmd: zero bytes of immediate data at the very end");
	cmd_bad(b, 67, 68, 16, -EINVAL,
		"zero bytes of immediate data, offset beyond the IU");
	srpt_put_be32(b + 48, 0xffffffbc);
	cmd_bad(b, 68 + 512, 68, 16, -EINVAL,
		"immediate length whose 32-bit end wraps to 0");
	srpt_put_be32(b + 48, 0xffffffff);
	cmd_bad(b, sizeof(b), 68, 16, -EINVAL, "immediate length 0xffffffff");
	srpt_put_be32(b + 48, 100);
	cmd_bad(b, sizeof(b), 0xffff, 16, -EINVAL,
		"immediate offset 0xffff beyond the IU");

	/* With 16 additional CDB bytes the descriptor ends exactly at 68. */
	cmd_init(b, sizeof(b), 0x30, 0, 0, 16);
	srpt_put_be32(b + 64, 600);
	ret = cmd(b, 68 + 600, 68, 16, &ci);
	tap_ok(ret == 0 && ci_common(&ci, 32) && ci.imm == heap + 68 &&
	       ci.data_len == 600,
	       "parse_cmd: 16 additional CDB bytes, descriptor ends at 68");
	b[31] = 20;
	srpt_put_be32(b + 68, 100);
	cmd_bad(b, sizeof(b), 68, 16, -EINVAL,
		"20 additional CDB bytes push the descriptor past 68");
}

static void test_desc(void)
{
	struct srpt_desc d;
	u8 tbl[4097 * 16];
	u32 i;

	put_desc(tbl, 0x0102030405060708ULL, 0x0a0b0c0d, 0xf0e0d0c0);
	srpt_decode_desc(tbl, &d);
	tap_ok(d.va == 0x0102030405060708ULL && d.key == 0x0a0b0c0d &&
	       d.len == 0xf0e0d0c0, "decode_desc: big endian fields");
	memset(tbl, 0xff, 16);
	srpt_decode_desc(tbl, &d);
	tap_ok(d.va == ~0ULL && d.key == 0xffffffff && d.len == 0xffffffff,
	       "decode_desc: all ones");

	tap_ok(srpt_check_desc_table(NULL, 0, 0) == 0,
	       "check_desc_table: empty table, total 0");
	tap_ok(srpt_check_desc_table(NULL, 0, 1) == -EINVAL,
	       "check_desc_table: empty table, total 1");
	for (i = 0; i < 4097; i++)
		put_desc(tbl + i * 16, i, i, 0xffffffff);
	tap_ok(srpt_check_desc_table(tbl, 4097, 0xffffefff) == -EINVAL,
	       "check_desc_table: 4097 * 0xffffffff against its 32-bit sum");
	tap_ok(srpt_check_desc_table(tbl, 1, 0xffffffff) == 0,
	       "check_desc_table: one descriptor of 0xffffffff");
	put_desc(tbl + 16, 1, 1, 1);
	tap_ok(srpt_check_desc_table(tbl, 2, 0) == -EINVAL,
	       "check_desc_table: 0xffffffff + 1 against 0");
	tap_ok(srpt_check_desc_table(tbl, 3, 0xffffffff) == -EINVAL,
	       "check_desc_table: 0xffffffff + 1 + 0xffffffff against 0xffffffff");
}

/* ------------------------------------------------------------------------ */
/* SRP_RSP.                                                                 */
/* ------------------------------------------------------------------------ */

static void test_rsp(void)
{
	static const u8 resp4[4] = { 0, 0, 0, SRPT_TMF_RSP_COMPLETE };
	static const u8 want_hdr[36] = {
		0xc1, 0, 0, 0, 0x00, 0x00, 0x00, 0x02,	/* opcode, credits */
		0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04,
		0, 0, SRPT_RSP_FLAG_SNSVALID | SRPT_RSP_FLAG_DIUNDER, 0x02,
		0x00, 0x00, 0x00, 0x00,			/* DATA-OUT residual */
		0x00, 0x00, 0x02, 0x00,			/* DATA-IN residual */
		0x00, 0x00, 0x00, 0x12,			/* sense length */
		0x00, 0x00, 0x00, 0x00,			/* response length */
	};
	struct srpt_rsp_info r;
	struct srpt_cmd_info ci;
	u8 sense[64], b[256], c[64];
	size_t n;
	u32 i;

	for (i = 0; i < sizeof(sense); i++)
		sense[i] = (u8)(0x70 + i);

	memset(&r, 0, sizeof(r));
	memcpy(&r.tag, tag_bytes, 8);
	memset(b, 0xee, sizeof(b));
	tap_ok(srpt_build_rsp(b, 35, &r) == 0 && all_bytes(b, sizeof(b), 0xee),
	       "build_rsp: 35 bytes refused, nothing written");
	r.flags = SRPT_RSP_FLAG_RSPVALID | SRPT_RSP_FLAG_SNSVALID |
		  SRPT_RSP_FLAG_DOOVER;
	n = srpt_build_rsp(b, 36, &r);
	tap_ok(n == 36 && b[0] == 0xc1 && b[18] == SRPT_RSP_FLAG_DOOVER &&
	       memcmp(b + 8, tag_bytes, 8) == 0 && all_bytes(b + 28, 8, 0) &&
	       all_bytes(b + 36, sizeof(b) - 36, 0xee),
	       "build_rsp: header only, exact fit, stale VALID flags cleared");

	/* CHECK CONDITION with 18 bytes of sense, DATA-IN underrun. */
	memset(&r, 0, sizeof(r));
	memcpy(&r.tag, tag_bytes, 8);
	r.req_lim_delta = 2;
	r.status = 0x02;
	r.flags = SRPT_RSP_FLAG_DIUNDER;
	r.data_in_res = 512;
	r.sense = sense;
	r.sense_len = 18;
	memset(b, 0xee, sizeof(b));
	n = srpt_build_rsp(b, sizeof(b), &r);
	tap_ok(n == 54 && memcmp(b, want_hdr, 36) == 0 &&
	       memcmp(b + 36, sense, 18) == 0 &&
	       all_bytes(b + 54, sizeof(b) - 54, 0xee),
	       "build_rsp: sense data, byte for byte");
	n = srpt_build_rsp(b, 54, &r);
	tap_ok(n == 54 && srpt_get_be32(b + 28) == 18,
	       "build_rsp: sense data, exact fit");
	n = srpt_build_rsp(b, 53, &r);
	tap_ok(n == 53 && srpt_get_be32(b + 28) == 17 &&
	       b[18] == (SRPT_RSP_FLAG_SNSVALID | SRPT_RSP_FLAG_DIUNDER),
	       "build_rsp: sense cut by one byte");
	memset(b, 0xee, sizeof(b));
	n = srpt_build_rsp(b, 36, &r);
	tap_ok(n == 36 && srpt_get_be32(b + 28) == 0 &&
	       b[18] == SRPT_RSP_FLAG_DIUNDER && b[36] == 0xee,
	       "build_rsp: sense cut to nothing, SNSVALID clear");
	r.sense = NULL;
	n = srpt_build_rsp(b, sizeof(b), &r);
	tap_ok(n == 36 && srpt_get_be32(b + 28) == 0 &&
	       !(b[18] & SRPT_RSP_FLAG_SNSVALID),
	       "build_rsp: NULL sense counts as none");

	/* Task management response: 4 bytes of response data. */
	memset(&r, 0, sizeof(r));
	r.resp_data = resp4;
	r.resp_len = 4;
	memset(b, 0xee, sizeof(b));
	n = srpt_build_rsp(b, 40, &r);
	tap_ok(n == 40 && b[18] == SRPT_RSP_FLAG_RSPVALID &&
	       srpt_get_be32(b + 32) == 4 && srpt_get_be32(b + 28) == 0 &&
	       memcmp(b + 36, resp4, 4) == 0 && b[40] == 0xee,
	       "build_rsp: response data, exact fit");
	memset(b, 0xee, sizeof(b));
	tap_ok(srpt_build_rsp(b, 39, &r) == 0 && all_bytes(b, sizeof(b), 0xee),
	       "build_rsp: response data one byte short, nothing written");
	r.resp_len = 0xffffffff;
	tap_ok(srpt_build_rsp(b, sizeof(b), &r) == 0,
	       "build_rsp: response length 0xffffffff refused");
	r.resp_len = 0xffffffdc;	/* 36 + this wraps to 0 in 32 bits */
	tap_ok(srpt_build_rsp(b, sizeof(b), &r) == 0,
	       "build_rsp: response length whose 32-bit end wraps refused");
	r.resp_len = 4;

	/* Both: sense follows the response data and is cut to fit. */
	r.sense = sense;
	r.sense_len = 64;
	memset(b, 0xee, sizeof(b));
	n = srpt_build_rsp(b, 36 + 4 + 10, &r);
	tap_ok(n == 50 && srpt_get_be32(b + 28) == 10 &&
	       srpt_get_be32(b + 32) == 4 &&
	       b[18] == (SRPT_RSP_FLAG_RSPVALID | SRPT_RSP_FLAG_SNSVALID) &&
	       memcmp(b + 36, resp4, 4) == 0 && memcmp(b + 40, sense, 10) == 0 &&
	       b[50] == 0xee,
	       "build_rsp: response data then sense cut to 10 bytes");
	r.resp_data = NULL;
	n = srpt_build_rsp(b, sizeof(b), &r);
	tap_ok(n == 100 && srpt_get_be32(b + 32) == 0 &&
	       b[18] == SRPT_RSP_FLAG_SNSVALID && memcmp(b + 36, sense, 64) == 0,
	       "build_rsp: NULL response data counts as none");

	/* Maximum header values and a tag echoed from an SRP_CMD. */
	cmd_init(c, sizeof(c), 0, 0, 0, 0);
	memset(c + 8, 0x99, 4);
	srpt_parse_cmd(in_heap(c, 48), 48, 0, 16, &ci);
	memset(&r, 0, sizeof(r));
	r.tag = ci.tag;
	r.req_lim_delta = 0xffffffff;
	r.status = 0xff;
	r.flags = 0xff;
	r.data_out_res = 0xffffffff;
	r.data_in_res = 0xfffffffe;
	n = srpt_build_rsp(b, sizeof(b), &r);
	tap_ok(n == 36 && memcmp(b + 8, c + 8, 8) == 0 &&
	       all_bytes(b + 4, 4, 0xff) && all_bytes(b + 16, 2, 0) &&
	       b[18] == (0xff & ~(SRPT_RSP_FLAG_RSPVALID | SRPT_RSP_FLAG_SNSVALID)) &&
	       b[19] == 0xff && srpt_get_be32(b + 24) == 0xfffffffe &&
	       all_bytes(b + 1, 3, 0),
	       "build_rsp: SRP_CMD tag echoed, maximum values, reserved zero");
}

int main(void)
{
	test_login_parse();
	test_login_check();
	test_login_build();
	test_small_ius();
	test_cmd_basic();
	test_cmd_direct();
	test_cmd_indirect();
	test_cmd_external();
	test_cmd_imm();
	test_desc();
	test_rsp();
	free(heap);
	return tap_done();
}
