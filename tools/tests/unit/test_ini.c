// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the initiator's side of srpt_iu.h: every builder a test
 * initiator uses is checked against the target's parser of the same IU, and
 * every parser against the target's builder, byte for byte where the layout
 * is fixed (SRP r16a tables 10, 12, 13, 14, 15, 18, 20 and 23).
 *
 * Parsers get heap copies of exactly the bytes that "arrived" and builders
 * write into heap buffers of exactly the size they are given, so that
 * AddressSanitizer catches a read or write past either.
 */
#include <stdlib.h>

#include "srpt_kcompat.h"
#include "../../../srpt_iu.h"
#include "tap.h"

static const u8 tag_bytes[8] = { 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04 };
static const u8 lun_bytes[8] = { 0x40, 0x01, 0, 0, 0, 0, 0, 0 };
static const u8 ipi[16] = { 0, 0, 0, 0, 0, 0, 0xa1, 0x01,
			    0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56 };
static const u8 tpi[16] = { 0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b,
			    0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b };

static u8 *dup_bytes(const void *p, size_t n)
{
	u8 *b = malloc(n ? n : 1);

	if (!b)
		abort();
	memcpy(b, p, n);
	return b;
}

static u64 tag_val(void)
{
	u64 t;

	memcpy(&t, tag_bytes, 8);
	return t;
}

static void test_login_req(void)
{
	/* The IB CM private data form, SRP r16a table 10. */
	static const u8 image[64] = {
		0x00, 0, 0, 0, 0, 0, 0, 0,
		0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04,	/* tag */
		0x00, 0x00, 0x20, 0x44, 0, 0, 0, 0,		/* it_iu_len */
		0x00, 0x06, 0x81, 0x00, 0x00, 0x50, 0, 0,	/* fmt, flags, imm */
		0, 0, 0, 0, 0, 0, 0xa1, 0x01,
		0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56,
		0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b,
		0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b,
	};
	struct srpt_login_req req = {
		.tag = tag_val(), .req_it_iu_len = 8260,
		.req_buf_fmt = SRPT_BUF_FMT_DIRECT | SRPT_BUF_FMT_INDIRECT,
		.req_flags = SRPT_LOGIN_IMMED_REQUESTED |
			     SRPT_LOGIN_MULTICHAN_MULTI,
		.imm_data_offset = 80,
	}, back;
	u8 *buf = malloc(64), *small = malloc(63);
	int ret;

	memcpy(req.initiator_port_id, ipi, 16);
	memcpy(req.target_port_id, tpi, 16);
	memset(buf, 0xee, 64);
	tap_ok(srpt_build_login_req(buf, 64, &req) == SRPT_LOGIN_REQ_LEN,
	       "login request: 64 bytes built");
	tap_ok(!memcmp(buf, image, 64), "login request: the table 10 layout");
	ret = srpt_parse_login_req(buf, 64, &back);
	tap_ok(!ret && !memcmp(&back, &req, sizeof(req)),
	       "login request: the target's parser reads back every field");
	memset(small, 0xee, 63);
	tap_ok(srpt_build_login_req(small, 63, &req) == 0 && small[0] == 0xee,
	       "login request: 63-byte buffer refused, nothing written");
	free(buf);
	free(small);
}

static void test_login_rsp(void)
{
	struct srpt_login_grant g = {
		.max_it_iu_len = 8260, .max_ti_iu_len = 256,
		.buf_fmt = SRPT_BUF_FMT_DIRECT | SRPT_BUF_FMT_INDIRECT,
		.rsp_flags = SRPT_LOGIN_RSP_IMMED_SUPP,
	};
	struct srpt_login_rsp_info r;
	u8 full[SRPT_LOGIN_RSP_LEN], *b;
	int ret;

	srpt_build_login_rsp(full, sizeof(full), tag_val(), 126, &g,
			     SRPT_LOGIN_RSP_IMMED_SUPP |
			     SRPT_LOGIN_RSP_MAINTAINED);
	b = dup_bytes(full, sizeof(full));
	ret = srpt_parse_login_rsp(b, sizeof(full), &r);
	tap_ok(!ret && r.tag == tag_val() && r.req_lim_delta == 126 &&
	       r.max_it_iu_len == 8260 && r.max_ti_iu_len == 256 &&
	       r.buf_fmt == (SRPT_BUF_FMT_DIRECT | SRPT_BUF_FMT_INDIRECT) &&
	       r.rsp_flags == (SRPT_LOGIN_RSP_IMMED_SUPP |
			       SRPT_LOGIN_RSP_MAINTAINED),
	       "login response: every field the target's builder wrote");
	free(b);
	b = dup_bytes(full, sizeof(full) - 1);
	tap_ok(srpt_parse_login_rsp(b, sizeof(full) - 1, &r) == -EINVAL &&
	       r.req_lim_delta == 0, "login response: 51 bytes refused");
	free(b);
	full[0] = SRPT_OP_LOGIN_REJ;
	b = dup_bytes(full, sizeof(full));
	tap_ok(srpt_parse_login_rsp(b, sizeof(full), &r) == -EINVAL,
	       "login response: a reject's opcode refused");
	free(b);
}

static void test_login_rej(void)
{
	u8 full[SRPT_LOGIN_REJ_LEN], *b;
	u32 reason;
	u64 tag;

	srpt_build_login_rej(full, sizeof(full), tag_val(),
			     SRPT_REJ_UNABLE_ASSOCIATE);
	b = dup_bytes(full, sizeof(full));
	tap_ok(!srpt_parse_login_rej(b, sizeof(full), &reason, &tag) &&
	       reason == SRPT_REJ_UNABLE_ASSOCIATE && tag == tag_val(),
	       "login reject: reason and tag the target's builder wrote");
	free(b);
	b = dup_bytes(full, sizeof(full) - 1);
	tap_ok(srpt_parse_login_rej(b, sizeof(full) - 1, &reason, &tag) ==
	       -EINVAL && reason == 0 && tag == 0,
	       "login reject: 31 bytes refused");
	free(b);
	full[0] = SRPT_OP_LOGIN_RSP;
	b = dup_bytes(full, sizeof(full));
	tap_ok(srpt_parse_login_rej(b, sizeof(full), &reason, &tag) == -EINVAL,
	       "login reject: a response's opcode refused");
	free(b);
}

static const struct srpt_desc descs[4] = {
	{ 0x1000000000001000ULL, 0x11223344, 4096 },
	{ 0x2000000000002000ULL, 0x11223344, 512 },
	{ 0x3000000000003000ULL, 0x11223344, 8192 },
	{ 0x4000000000004000ULL, 0x11223344, 1536 },
};

static void test_cmd_direct(void)
{
	/* WRITE(10) of 8 blocks, direct DATA-OUT descriptor (table 15). */
	static const u8 image[64] = {
		0x02, 0, 0, 0, 0, 0x10, 0, 0,
		0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04,
		0, 0, 0, 0, 0x40, 0x01, 0, 0,
		0, 0, 0, 0, 0, 0x02, 0, 0,			/* ordered */
		0x2a, 0, 0, 0, 0, 0x10, 0, 0, 0x08, 0, 0, 0, 0, 0, 0, 0,
		0x10, 0, 0, 0, 0, 0, 0x10, 0x00,		/* va */
		0x11, 0x22, 0x33, 0x44, 0, 0, 0x10, 0x00,	/* key, len */
	};
	struct srpt_cmd_build c = {
		.tag = tag_val(), .task_attr = SRPT_TASK_ORDERED,
		.cdb = { 0x2a, 0, 0, 0, 0, 0x10, 0, 0, 0x08 },
		.dir = SRPT_DIR_OUT, .fmt = SRPT_DESC_DIRECT,
		.desc = descs, .ndesc = 1,
	};
	struct srpt_cmd_info ci;
	struct srpt_desc d;
	u8 *buf = malloc(64);
	size_t n;

	memcpy(c.lun, lun_bytes, 8);
	n = srpt_build_cmd(buf, 64, &c);
	tap_ok(n == 64 && !memcmp(buf, image, 64),
	       "SRP_CMD direct: 64 bytes in the table 15 layout");
	tap_ok(!srpt_parse_cmd(buf, n, 0, 16, &ci) && ci.dir == SRPT_DIR_OUT &&
	       ci.fmt == SRPT_DESC_DIRECT && ci.ndesc == 1 &&
	       ci.data_len == 4096 && ci.tag == tag_val() &&
	       ci.task_attr == SRPT_TASK_ORDERED &&
	       !memcmp(ci.lun, lun_bytes, 8) && ci.cdb[0] == 0x2a,
	       "SRP_CMD direct: the target's parser agrees");
	srpt_decode_desc(ci.desc, &d);
	tap_ok(d.va == descs[0].va && d.key == descs[0].key &&
	       d.len == descs[0].len, "SRP_CMD direct: descriptor round trip");
	tap_ok(srpt_build_cmd(buf, 63, &c) == 0,
	       "SRP_CMD direct: a buffer one byte short refused");
	c.ndesc = 0;
	tap_ok(srpt_build_cmd(buf, 64, &c) == 0,
	       "SRP_CMD direct: no descriptor refused");
	c.fmt = SRPT_DESC_IMM;
	c.ndesc = 1;
	tap_ok(srpt_build_cmd(buf, 64, &c) == 0,
	       "SRP_CMD: immediate data is not built here");
	free(buf);
}

static void test_cmd_none(void)
{
	struct srpt_cmd_build c = {
		.tag = tag_val(), .cdb = { 0x00 }, .dir = SRPT_DIR_NONE,
		.fmt = SRPT_DESC_DIRECT,
	};
	struct srpt_cmd_info ci;
	u8 *buf = malloc(SRPT_CMD_LEN);

	tap_ok(srpt_build_cmd(buf, SRPT_CMD_LEN, &c) == SRPT_CMD_LEN &&
	       buf[5] == 0 && !srpt_parse_cmd(buf, SRPT_CMD_LEN, 0, 16, &ci) &&
	       ci.dir == SRPT_DIR_NONE && ci.data_len == 0,
	       "SRP_CMD without data: 48 bytes, no format, parsed alike");
	free(buf);
}

static void test_cmd_indirect(void)
{
	struct srpt_cmd_build c = {
		.tag = tag_val(), .cdb = { 0x28 }, .dir = SRPT_DIR_IN,
		.fmt = SRPT_DESC_INDIRECT, .desc = descs, .ndesc = 4,
		.ndesc_in_iu = 4,
		.table = { 0x5000000000000040ULL, 0x55667788, 0 },
	};
	size_t len = SRPT_CMD_LEN + SRPT_INDIRECT_HDR_LEN + 4 * 16;
	struct srpt_cmd_info ci;
	struct srpt_desc d;
	u8 *buf = malloc(len);
	u32 i;
	int same = 1;

	tap_ok(srpt_build_cmd(buf, len, &c) == len,
	       "SRP_CMD indirect: 48 + 20 + 4 * 16 bytes");
	tap_ok(buf[5] == SRPT_DESC_INDIRECT && buf[6] == 0 && buf[7] == 4,
	       "SRP_CMD indirect: DATA-IN format and count");
	srpt_decode_desc(buf + SRPT_CMD_LEN, &d);
	tap_ok(d.va == c.table.va && d.key == c.table.key && d.len == 64 &&
	       srpt_get_be32(buf + SRPT_CMD_LEN + 16) == 4096 + 512 + 8192 + 1536,
	       "SRP_CMD indirect: table descriptor and total length");
	tap_ok(!srpt_parse_cmd(buf, len, 0, 16, &ci) && ci.dir == SRPT_DIR_IN &&
	       ci.fmt == SRPT_DESC_INDIRECT && ci.ndesc == 4 && ci.desc &&
	       ci.data_len == 14336, "SRP_CMD indirect: the target's parser agrees");
	for (i = 0; ci.desc && i < 4; i++) {
		srpt_decode_desc(ci.desc + 16 * i, &d);
		same &= d.va == descs[i].va && d.len == descs[i].len &&
			d.key == descs[i].key;
	}
	tap_ok(same, "SRP_CMD indirect: every descriptor round trip");
	tap_ok(srpt_build_cmd(buf, len - 1, &c) == 0,
	       "SRP_CMD indirect: a buffer one byte short refused");
	c.ndesc_in_iu = 5;
	tap_ok(srpt_build_cmd(buf, len + 16, &c) == 0,
	       "SRP_CMD indirect: more entries in the IU than the table refused");
	free(buf);
}

static void test_cmd_external(void)
{
	struct srpt_cmd_build c = {
		.tag = tag_val(), .cdb = { 0x2a }, .dir = SRPT_DIR_OUT,
		.fmt = SRPT_DESC_INDIRECT, .desc = descs, .ndesc = 4,
		.ndesc_in_iu = 0,
		.table = { 0x5000000000000040ULL, 0x55667788, 0 },
	};
	size_t len = SRPT_CMD_LEN + SRPT_INDIRECT_HDR_LEN;
	struct srpt_cmd_info ci;
	u8 *buf = malloc(len);

	tap_ok(srpt_build_cmd(buf, len, &c) == len && buf[5] == 0x20 &&
	       buf[6] == 0, "SRP_CMD external table: 68 bytes, count 0");
	tap_ok(!srpt_parse_cmd(buf, len, 0, 16, &ci) && !ci.desc &&
	       ci.ndesc == 4 && ci.ext_table.va == c.table.va &&
	       ci.ext_table.key == c.table.key && ci.ext_table.len == 64 &&
	       ci.data_len == 14336,
	       "SRP_CMD external table: the target's parser fetches it");
	free(buf);
}

static void test_tsk_mgmt(void)
{
	static const u8 image[48] = {
		0x01, 0, 0, 0, 0, 0, 0, 0,
		0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04,
		0, 0, 0, 0, 0x40, 0x01, 0, 0,
		0, 0, 0, 0, 0, 0, 0x01, 0,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0, 0, 0, 0, 0, 0, 0, 0,
	};
	u64 task;
	struct srpt_tmf_info t;
	u8 *buf = malloc(48);

	memcpy(&task, image + 32, 8);
	tap_ok(srpt_build_tsk_mgmt(buf, 48, tag_val(), lun_bytes,
				   SRPT_TMF_ABORT_TASK, task) == 48 &&
	       !memcmp(buf, image, 48), "SRP_TSK_MGMT: the table 18 layout");
	tap_ok(!srpt_parse_tsk_mgmt(buf, 48, &t) && t.tag == tag_val() &&
	       t.func == SRPT_TMF_ABORT_TASK && t.task_tag == task &&
	       !memcmp(t.lun, lun_bytes, 8),
	       "SRP_TSK_MGMT: the target's parser agrees");
	tap_ok(srpt_build_tsk_mgmt(buf, 47, tag_val(), lun_bytes, 1, 0) == 0,
	       "SRP_TSK_MGMT: 47-byte buffer refused");
	free(buf);
}

static void test_i_logout(void)
{
	u8 *buf = malloc(16);
	u64 tag;

	tap_ok(srpt_build_i_logout(buf, 16, tag_val()) == 16 &&
	       buf[0] == SRPT_OP_I_LOGOUT && !srpt_parse_i_logout(buf, 16, &tag) &&
	       tag == tag_val(), "SRP_I_LOGOUT: built and parsed alike");
	tap_ok(srpt_build_i_logout(buf, 15, tag_val()) == 0,
	       "SRP_I_LOGOUT: 15-byte buffer refused");
	free(buf);
}

static void test_rsp(void)
{
	static const u8 sense[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 10,
				      0, 0, 0, 0, 0x24, 0x00 };
	static const u8 tmf[4] = { 0, 0, 0, SRPT_TMF_RSP_NOT_SUPP };
	struct srpt_rsp_info in = {
		.tag = tag_val(), .req_lim_delta = 3, .status = 0x02,
		.flags = SRPT_RSP_FLAG_DIUNDER, .data_in_res = 512,
		.sense = sense, .sense_len = sizeof(sense),
	};
	struct srpt_rsp_parsed r;
	u8 out[256], *b;
	size_t n;

	n = srpt_build_rsp(out, sizeof(out), &in);
	b = dup_bytes(out, n);
	tap_ok(!srpt_parse_rsp(b, n, &r) && r.tag == tag_val() &&
	       r.req_lim_delta == 3 && r.status == 0x02 &&
	       (r.flags & SRPT_RSP_FLAG_DIUNDER) && r.data_in_res == 512 &&
	       r.sense_len == 18 && r.sense && !memcmp(r.sense, sense, 18) &&
	       !r.resp_data, "SRP_RSP with sense: every field round trip");
	free(b);
	/* The credits set after the build, the rest untouched. */
	srpt_rsp_set_credits(out, 0x01020304);
	b = dup_bytes(out, n);
	tap_ok(!srpt_parse_rsp(b, n, &r) && r.req_lim_delta == 0x01020304 &&
	       r.tag == tag_val() && r.status == 0x02 && r.data_in_res == 512 &&
	       r.sense_len == 18 && !memcmp(r.sense, sense, 18),
	       "SRP_RSP: credits set after the build round trip");
	free(b);
	b = dup_bytes(out, n - 1);
	tap_ok(srpt_parse_rsp(b, n - 1, &r) == -EINVAL && r.sense == NULL,
	       "SRP_RSP: sense reaching past the IU refused");
	free(b);

	memset(&in, 0, sizeof(in));
	in.tag = tag_val();
	in.resp_data = tmf;
	in.resp_len = 4;
	n = srpt_build_rsp(out, sizeof(out), &in);
	b = dup_bytes(out, n);
	tap_ok(!srpt_parse_rsp(b, n, &r) && r.resp_len == 4 && r.resp_data &&
	       r.resp_data[3] == SRPT_TMF_RSP_NOT_SUPP && !r.sense,
	       "SRP_RSP of a TMF: response data round trip");
	free(b);

	/* Lengths without their VALID flag are not looked at. */
	memset(out, 0, SRPT_RSP_LEN);
	out[0] = SRPT_OP_RSP;
	srpt_put_be32(out + 28, 0xffffffff);
	srpt_put_be32(out + 32, 0xffffffff);
	b = dup_bytes(out, SRPT_RSP_LEN);
	tap_ok(!srpt_parse_rsp(b, SRPT_RSP_LEN, &r) && !r.sense && !r.resp_data,
	       "SRP_RSP: lengths without VALID flags ignored");
	free(b);
	out[18] = SRPT_RSP_FLAG_SNSVALID | SRPT_RSP_FLAG_RSPVALID;
	srpt_put_be32(out + 28, 0x80000000);
	srpt_put_be32(out + 32, 0x80000000);
	b = dup_bytes(out, SRPT_RSP_LEN);
	tap_ok(srpt_parse_rsp(b, SRPT_RSP_LEN, &r) == -EINVAL,
	       "SRP_RSP: lengths adding up past 2^32 refused");
	free(b);
	b = dup_bytes(out, SRPT_RSP_LEN - 1);
	tap_ok(srpt_parse_rsp(b, SRPT_RSP_LEN - 1, &r) == -EINVAL,
	       "SRP_RSP: 35 bytes refused");
	free(b);
}

int main(void)
{
	test_login_req();
	test_login_rsp();
	test_login_rej();
	test_cmd_direct();
	test_cmd_none();
	test_cmd_indirect();
	test_cmd_external();
	test_tsk_mgmt();
	test_i_logout();
	test_rsp();
	return tap_done();
}
