// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of srpt_parse_cmd() (SRP_CMD with direct, indirect, external and
 * immediate data descriptors) and srpt_check_desc_table().
 *
 * Input: a 12-byte header, then the IU as it arrived.
 *
 *   0..1   immediate data offset granted at login (be16)
 *   2..5   most descriptors the target accepts (be32)
 *   6..7   length of a prefix of the IU that is parsed too (be16)
 *   8..11  total length srpt_check_desc_table() is asked about (be32)
 *
 * Checked: everything a parsed command points to lies inside the IU and
 * behind the CDB; the data length is what the descriptors say (the sum of
 * an in-IU table); an external table is what the IU says it is; errors leave
 * only tag and LUN; the descriptor limit only turns success into -E2BIG;
 * an IU that parses still parses, to the same command, with bytes appended;
 * srpt_check_desc_table() agrees with a plain sum.
 */
#include "fuzz.h"
#include "../../srpt_iu.h"

enum {
	HDR_LEN = 12,
};

/* The command, with pointers into the IU as offsets from its start. */
struct cmd_view {
	int ret;
	struct srpt_cmd_info ci;
	size_t cdb, desc, imm;
};

static size_t off_of(const u8 *ptr, const u8 *iu)
{
	return ptr ? (size_t)(ptr - iu) + 1 : 0;
}

/* Parse @len bytes: the first @src_len from @src, the rest FUZZ_FILL. */
static void parse(const u8 *src, size_t src_len, size_t len, u16 imm_off,
		  u32 max_desc, struct cmd_view *v)
{
	u8 *iu = fuzz_alloc(len);

	memcpy(iu, src, src_len);
	memset(iu + src_len, FUZZ_FILL, len - src_len);
	memset(&v->ci, 0x5a, sizeof(v->ci));
	v->ret = srpt_parse_cmd(iu, len, imm_off, max_desc, &v->ci);
	v->cdb = off_of(v->ci.cdb, iu);
	v->desc = off_of(v->ci.desc, iu);
	v->imm = off_of(v->ci.imm, iu);
	free(iu);
}

static bool same_cmd(const struct cmd_view *a, const struct cmd_view *b)
{
	const struct srpt_cmd_info *x = &a->ci, *y = &b->ci;

	return a->ret == b->ret && x->tag == y->tag &&
	       !memcmp(x->lun, y->lun, 8) && x->task_attr == y->task_attr &&
	       a->cdb == b->cdb && x->cdb_len == y->cdb_len &&
	       x->dir == y->dir && x->fmt == y->fmt &&
	       x->data_len == y->data_len && x->ndesc == y->ndesc &&
	       a->desc == b->desc && x->ext_table.va == y->ext_table.va &&
	       x->ext_table.key == y->ext_table.key &&
	       x->ext_table.len == y->ext_table.len && a->imm == b->imm;
}

/* The sum srpt_check_desc_table() must compare, the plain way. */
static u64 desc_sum(const u8 *tbl, u32 ndesc)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < ndesc; i++)
		sum += srpt_get_be32(tbl + (size_t)i * SRPT_DIRECT_DESC_LEN + 12);
	return sum;
}

static void check_error(const struct srpt_cmd_info *ci, const u8 *iu,
			size_t len)
{
	if (len >= SRPT_CMD_LEN) {
		FUZZ_CHECK(memcmp(&ci->tag, iu + 8, 8) == 0);
		FUZZ_CHECK(memcmp(ci->lun, iu + 20, 8) == 0);
	} else {
		FUZZ_CHECK(ci->tag == 0 && fuzz_all(ci->lun, 8, 0));
	}
	FUZZ_CHECK(ci->task_attr == 0 && !ci->cdb && ci->cdb_len == 0);
	FUZZ_CHECK(ci->dir == SRPT_DIR_NONE && ci->fmt == SRPT_DESC_NONE);
	FUZZ_CHECK(ci->data_len == 0 && ci->ndesc == 0 && !ci->desc);
	FUZZ_CHECK(ci->ext_table.va == 0 && ci->ext_table.key == 0 &&
		   ci->ext_table.len == 0 && !ci->imm);
}

static void check_ok(const struct srpt_cmd_info *ci, const u8 *iu,
		     size_t len, u16 imm_off, u32 max_desc)
{
	const u8 *end = iu + len;
	u8 out_fmt = iu[5] >> 4, in_fmt = iu[5] & 0xf;
	size_t off;

	FUZZ_CHECK(len >= SRPT_CMD_LEN && iu[0] == SRPT_OP_CMD);
	FUZZ_CHECK(memcmp(&ci->tag, iu + 8, 8) == 0);
	FUZZ_CHECK(memcmp(ci->lun, iu + 20, 8) == 0);
	FUZZ_CHECK(ci->task_attr == (iu[29] & 7));
	FUZZ_CHECK(ci->task_attr == SRPT_TASK_SIMPLE ||
		   ci->task_attr == SRPT_TASK_HEAD_OF_QUEUE ||
		   ci->task_attr == SRPT_TASK_ORDERED ||
		   ci->task_attr == SRPT_TASK_ACA);

	/* The CDB, additional bytes included, is inside the IU. */
	FUZZ_CHECK(ci->cdb == iu + 32);
	FUZZ_CHECK(ci->cdb_len == 16 + (iu[31] & ~3u));
	FUZZ_CHECK(ci->cdb_len <= len - 32);
	off = 32 + ci->cdb_len;

	/* One direction at most, and the one the buffer format names. */
	FUZZ_CHECK(!(out_fmt && in_fmt));
	if (out_fmt) {
		FUZZ_CHECK(ci->dir == SRPT_DIR_OUT && ci->fmt == out_fmt);
	} else if (in_fmt) {
		FUZZ_CHECK(ci->dir == SRPT_DIR_IN && ci->fmt == in_fmt);
		FUZZ_CHECK(ci->fmt != SRPT_DESC_IMM);
	} else {
		FUZZ_CHECK(ci->dir == SRPT_DIR_NONE &&
			   ci->fmt == SRPT_DESC_NONE);
	}
	FUZZ_CHECK(ci->ndesc <= max_desc);

	switch (ci->fmt) {
	case SRPT_DESC_NONE:
		FUZZ_CHECK(ci->data_len == 0 && ci->ndesc == 0);
		FUZZ_CHECK(!ci->desc && !ci->imm && ci->ext_table.len == 0);
		break;
	case SRPT_DESC_DIRECT:
		FUZZ_CHECK(ci->ndesc == 1 && ci->desc == iu + off);
		FUZZ_CHECK(ci->desc + SRPT_DIRECT_DESC_LEN <= end);
		FUZZ_CHECK(ci->data_len == srpt_get_be32(ci->desc + 12));
		FUZZ_CHECK(!ci->imm && ci->ext_table.len == 0);
		break;
	case SRPT_DESC_INDIRECT: {
		u8 cnt = out_fmt ? iu[6] : iu[7];
		struct srpt_desc t;

		/* The header is inside the IU and says what was parsed. */
		FUZZ_CHECK(off + SRPT_INDIRECT_HDR_LEN <= len);
		srpt_decode_desc(iu + off, &t);
		FUZZ_CHECK(t.len && t.len % SRPT_DIRECT_DESC_LEN == 0);
		FUZZ_CHECK(ci->ndesc == t.len / SRPT_DIRECT_DESC_LEN);
		FUZZ_CHECK(ci->data_len ==
			   srpt_get_be32(iu + off + SRPT_DIRECT_DESC_LEN));
		FUZZ_CHECK(!ci->imm);
		if (ci->desc) {
			/* The whole table is in the IU and adds up. */
			FUZZ_CHECK(cnt == ci->ndesc);
			FUZZ_CHECK(ci->desc == iu + off + SRPT_INDIRECT_HDR_LEN);
			FUZZ_CHECK((size_t)ci->ndesc * SRPT_DIRECT_DESC_LEN <=
				   (size_t)(end - ci->desc));
			FUZZ_CHECK(desc_sum(ci->desc, ci->ndesc) ==
				   ci->data_len);
			FUZZ_CHECK(srpt_check_desc_table(ci->desc, ci->ndesc,
							 ci->data_len) == 0);
			FUZZ_CHECK(ci->ext_table.len == 0 &&
				   ci->ext_table.va == 0 &&
				   ci->ext_table.key == 0);
		} else {
			/* Part of it is: the rest is fetched. */
			FUZZ_CHECK(cnt < ci->ndesc);
			FUZZ_CHECK((size_t)off + SRPT_INDIRECT_HDR_LEN +
				   (size_t)cnt * SRPT_DIRECT_DESC_LEN <= len);
			FUZZ_CHECK(ci->ext_table.va == t.va &&
				   ci->ext_table.key == t.key &&
				   ci->ext_table.len == t.len);
			FUZZ_CHECK(ci->ext_table.len ==
				   ci->ndesc * SRPT_DIRECT_DESC_LEN);
		}
		break;
	}
	case SRPT_DESC_IMM:
		FUZZ_CHECK(ci->dir == SRPT_DIR_OUT);
		FUZZ_CHECK(imm_off && ci->imm == iu + imm_off);
		FUZZ_CHECK(imm_off >= off + SRPT_IMM_DESC_LEN);
		FUZZ_CHECK(ci->data_len == srpt_get_be32(iu + off));
		FUZZ_CHECK(ci->data_len <= (size_t)(end - ci->imm));
		FUZZ_CHECK(ci->ndesc == 0 && !ci->desc &&
			   ci->ext_table.len == 0);
		break;
	default:
		FUZZ_CHECK(!"reserved descriptor format accepted");
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct cmd_view v, any, w;
	u32 max_desc, total;
	size_t prefix;
	u16 imm_off;
	u8 *iu;

	imm_off = fuzz_get_be16(&in);
	max_desc = fuzz_get_be32(&in);
	prefix = fuzz_get_be16(&in);
	total = fuzz_get_be32(&in);
	if (size < HDR_LEN)
		return 0;

	iu = fuzz_dup(in.p, in.n);
	memset(&v.ci, 0x5a, sizeof(v.ci));
	v.ret = srpt_parse_cmd(iu, in.n, imm_off, max_desc, &v.ci);
	switch (v.ret) {
	case 0:
		check_ok(&v.ci, iu, in.n, imm_off, max_desc);
		break;
	case -EINVAL:
	case -EOPNOTSUPP:
	case -E2BIG:
		check_error(&v.ci, iu, in.n);
		break;
	default:
		FUZZ_CHECK(!"unexpected return value");
	}
	if (v.ret == -E2BIG)
		FUZZ_CHECK(max_desc < 0xffffffff);
	v.cdb = off_of(v.ci.cdb, iu);
	v.desc = off_of(v.ci.desc, iu);
	v.imm = off_of(v.ci.imm, iu);

	/*
	 * Without a descriptor limit: the limit turns a success into -E2BIG
	 * exactly when the command needs more descriptors, and changes no
	 * other outcome.
	 */
	parse(in.p, in.n, in.n, imm_off, 0xffffffff, &any);
	FUZZ_CHECK(any.ret != -E2BIG);
	if (any.ret == 0) {
		if (any.ci.ndesc <= max_desc)
			FUZZ_CHECK(same_cmd(&v, &any));
		else
			FUZZ_CHECK(v.ret == -E2BIG);
	} else {
		FUZZ_CHECK(v.ret == any.ret);
	}

	/* Appending bytes to an IU that parses changes nothing. */
	if (v.ret == 0) {
		parse(in.p, in.n, in.n + 64, imm_off, max_desc, &w);
		FUZZ_CHECK(same_cmd(&v, &w));
	}

	/* A prefix that parses is a command the whole IU agrees with. */
	if (prefix < in.n) {
		parse(in.p, prefix, prefix, imm_off, max_desc, &w);
		if (w.ret == 0)
			FUZZ_CHECK(same_cmd(&v, &w));
		if (prefix < SRPT_CMD_LEN)
			FUZZ_CHECK(w.ret == -EINVAL);
	}

	/* srpt_check_desc_table() over the IU taken as a table. */
	FUZZ_CHECK(!srpt_check_desc_table(iu, (u32)(in.n / 16), total) ==
		   (desc_sum(iu, (u32)(in.n / 16)) == total));
	free(iu);
	return 0;
}
