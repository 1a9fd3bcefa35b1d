/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SRP information units (SRP r16a, T10/1415-D; immediate data from SRP-2):
 * wire layouts, parsers and builders.
 *
 * Pure code, like srpt_wire.h (which it includes): every function works on a
 * buffer and the number of bytes that really arrived, never trusts a length
 * or count it read from that buffer, and returns an error code that its
 * caller maps to an SRP_LOGIN_REJ reason or an SRP_RSP.  The module, the unit
 * tests (tools/tests/unit/test_iu.c) and the fuzzers run this same code.
 *
 * The 64-bit tag of every IU is opaque to the target: it is copied as eight
 * raw bytes (memcpy into a u64) and echoed the same way.
 */
#ifndef SRPT_IU_H
#define SRPT_IU_H

#include "srpt_wire.h"

/* IU opcodes (SRP r16a table 9). */
enum srpt_iu_opcode {
	SRPT_OP_LOGIN_REQ	= 0x00,
	SRPT_OP_TSK_MGMT	= 0x01,
	SRPT_OP_CMD		= 0x02,
	SRPT_OP_I_LOGOUT	= 0x03,
	SRPT_OP_CRED_RSP	= 0x41,
	SRPT_OP_AER_RSP		= 0x42,
	SRPT_OP_T_LOGOUT	= 0x80,
	SRPT_OP_CRED_REQ	= 0x81,
	SRPT_OP_AER_REQ		= 0x82,
	SRPT_OP_LOGIN_RSP	= 0xc0,
	SRPT_OP_RSP		= 0xc1,
	SRPT_OP_LOGIN_REJ	= 0xc2,
};

/* Fixed IU sizes in bytes. */
enum srpt_iu_len {
	SRPT_LOGIN_REQ_LEN	= 64,	/* IB CM private data: the IU itself */
	SRPT_LOGIN_REQ_RDMA_LEN	= 56,	/* RDMA/CM private data form */
	SRPT_LOGIN_RSP_LEN	= 52,
	SRPT_LOGIN_REJ_LEN	= 32,
	SRPT_I_LOGOUT_LEN	= 16,
	SRPT_T_LOGOUT_LEN	= 16,
	SRPT_TSK_MGMT_LEN	= 48,
	SRPT_CMD_LEN		= 48,	/* without additional CDB and descriptors */
	SRPT_RSP_LEN		= 36,	/* without response and sense data */
	SRPT_CRED_RSP_LEN	= 16,
	SRPT_AER_RSP_LEN	= 16,
	SRPT_DIRECT_DESC_LEN	= 16,	/* va, key, len */
	SRPT_INDIRECT_HDR_LEN	= 20,	/* table descriptor + total length */
	SRPT_IMM_DESC_LEN	= 4,	/* length of the immediate data */
	SRPT_MIN_IT_IU_LEN	= 64,	/* smallest request IU we accept to receive */
};

/* SUPPORTED BUFFER FORMATS bits in login request and response. */
enum {
	SRPT_BUF_FMT_DIRECT	= 1 << 1,
	SRPT_BUF_FMT_INDIRECT	= 1 << 2,
};

/* Data descriptor formats, the nibbles of SRP_CMD's buffer format byte. */
enum srpt_desc_fmt {
	SRPT_DESC_NONE		= 0,
	SRPT_DESC_DIRECT	= 1,
	SRPT_DESC_INDIRECT	= 2,
	SRPT_DESC_IMM		= 3,
};

/* Login request flags and login response flags. */
enum {
	SRPT_LOGIN_MULTICHAN_MASK	= 0x03,
	SRPT_LOGIN_MULTICHAN_SINGLE	= 0x00,
	SRPT_LOGIN_MULTICHAN_MULTI	= 0x01,
	SRPT_LOGIN_IMMED_REQUESTED	= 0x80,
	SRPT_LOGIN_RSP_NO_CHAN		= 0x00,
	SRPT_LOGIN_RSP_TERMINATED	= 0x01,
	SRPT_LOGIN_RSP_MAINTAINED	= 0x02,
	SRPT_LOGIN_RSP_IMMED_SUPP	= 0x80,
};

/* SRP_LOGIN_REJ reasons (SRP r16a table 13). */
enum srpt_login_rej_reason {
	SRPT_REJ_UNABLE_ESTABLISH	= 0x00010000,
	SRPT_REJ_NO_RESOURCES		= 0x00010001,
	SRPT_REJ_IT_IU_LEN_TOO_LARGE	= 0x00010002,
	SRPT_REJ_UNABLE_ASSOCIATE	= 0x00010003,
	SRPT_REJ_UNSUPPORTED_FMT	= 0x00010004,
	SRPT_REJ_NO_MULTICHANNEL	= 0x00010005,
	SRPT_REJ_CHANNEL_LIMIT		= 0x00010006,
};

/* SRP_RSP flags. */
enum {
	SRPT_RSP_FLAG_RSPVALID	= 1 << 0,
	SRPT_RSP_FLAG_SNSVALID	= 1 << 1,
	SRPT_RSP_FLAG_DOOVER	= 1 << 2,
	SRPT_RSP_FLAG_DOUNDER	= 1 << 3,
	SRPT_RSP_FLAG_DIOVER	= 1 << 4,
	SRPT_RSP_FLAG_DIUNDER	= 1 << 5,
};

/* Task management functions (SRP r16a table 18) and response codes (table 24). */
enum {
	SRPT_TMF_ABORT_TASK	= 0x01,
	SRPT_TMF_ABORT_TASK_SET	= 0x02,
	SRPT_TMF_CLEAR_TASK_SET	= 0x04,
	SRPT_TMF_LUN_RESET	= 0x08,
	SRPT_TMF_CLEAR_ACA	= 0x40,
	SRPT_TMF_RSP_COMPLETE	= 0x00,
	SRPT_TMF_RSP_INVALID_IU	= 0x02,
	SRPT_TMF_RSP_NOT_SUPP	= 0x04,
	SRPT_TMF_RSP_FAILED	= 0x05,
};

/* SRP_CMD task attributes (low 3 bits of the TASK ATTRIBUTE byte). */
enum {
	SRPT_TASK_SIMPLE	= 0,
	SRPT_TASK_HEAD_OF_QUEUE	= 1,
	SRPT_TASK_ORDERED	= 2,
	SRPT_TASK_ACA		= 4,
};

/* Direction of an SRP_CMD's data, seen from the initiator. */
enum srpt_data_dir {
	SRPT_DIR_NONE	= 0,
	SRPT_DIR_OUT	= 1,	/* initiator to target: the target RDMA READs */
	SRPT_DIR_IN	= 2,	/* target to initiator: the target RDMA WRITEs */
};

/**
 * struct srpt_login_req - a login request, whichever transport carried it
 * @tag: opaque tag, echoed in the response or reject
 * @req_it_iu_len: largest IU the initiator will send on this channel
 * @req_buf_fmt: SRPT_BUF_FMT_* the initiator may use
 * @req_flags: multichannel action (SRPT_LOGIN_MULTICHAN_MASK) and
 *	SRPT_LOGIN_IMMED_REQUESTED
 * @imm_data_offset: offset of immediate data in SRP_CMD, as requested
 * @initiator_port_id: 128-bit initiator port identifier
 * @target_port_id: 128-bit target port identifier
 */
struct srpt_login_req {
	u64 tag;
	u32 req_it_iu_len;
	u16 req_buf_fmt;
	u8 req_flags;
	u16 imm_data_offset;
	u8 initiator_port_id[16];
	u8 target_port_id[16];
};

/**
 * struct srpt_login_params - what the target accepts, for srpt_check_login()
 * @max_req_size: largest request IU the target receives (srp_max_req_size)
 * @max_rsp_size: largest response IU the target sends (srp_max_rsp_size)
 * @target_port_id: the 16 bytes a login must name, or NULL for any
 */
struct srpt_login_params {
	u32 max_req_size;
	u32 max_rsp_size;
	const u8 *target_port_id;
};

/**
 * struct srpt_login_grant - what srpt_check_login() granted
 * @max_it_iu_len: request IU size the channel receives (= req_it_iu_len)
 * @max_ti_iu_len: response IU size the channel sends
 * @buf_fmt: SRPT_BUF_FMT_* the target supports of those requested
 * @rsp_flags: SRPT_LOGIN_RSP_IMMED_SUPP when immediate data was granted
 *	(the caller adds the multichannel result)
 * @imm_data_offset: immediate data offset in SRP_CMD, 0 when not granted
 * @multichannel: SRPT_LOGIN_MULTICHAN_SINGLE or SRPT_LOGIN_MULTICHAN_MULTI
 */
struct srpt_login_grant {
	u32 max_it_iu_len;
	u32 max_ti_iu_len;
	u16 buf_fmt;
	u8 rsp_flags;
	u16 imm_data_offset;
	u8 multichannel;
};

/**
 * struct srpt_desc - one direct data buffer descriptor, decoded
 * @va: remote virtual address
 * @key: remote key
 * @len: length in bytes
 */
struct srpt_desc {
	u64 va;
	u32 key;
	u32 len;
};

/**
 * struct srpt_cmd_info - an SRP_CMD, parsed and checked against its IU
 * @tag: opaque tag
 * @lun: the 8-byte LUN field as sent
 * @task_attr: SRPT_TASK_*
 * @cdb: the CDB (16 bytes plus additional CDB bytes), inside the IU
 * @cdb_len: length of @cdb
 * @dir: SRPT_DIR_*
 * @fmt: SRPT_DESC_* of the direction that carries data (NONE if no data)
 * @data_len: bytes the initiator expects to move, as the descriptors say
 * @ndesc: number of direct descriptors that describe the data
 * @desc: the @ndesc wire-format descriptors when they are all in the IU,
 *	NULL when they must be fetched from @ext_table
 * @ext_table: where the initiator keeps the whole descriptor table when it
 *	did not fit in the IU (len == @ndesc * SRPT_DIRECT_DESC_LEN)
 * @imm: immediate data inside the IU (@data_len bytes), or NULL
 */
struct srpt_cmd_info {
	u64 tag;
	u8 lun[8];
	u8 task_attr;
	const u8 *cdb;
	u32 cdb_len;
	enum srpt_data_dir dir;
	enum srpt_desc_fmt fmt;
	u32 data_len;
	u32 ndesc;
	const u8 *desc;
	struct srpt_desc ext_table;
	const u8 *imm;
};

/**
 * struct srpt_tmf_info - an SRP_TSK_MGMT, parsed
 * @tag: opaque tag of the request itself
 * @lun: the 8-byte LUN field as sent
 * @func: SRPT_TMF_* (not validated: unknown ones are answered, not dropped)
 * @task_tag: tag of the task to abort (ABORT TASK)
 */
struct srpt_tmf_info {
	u64 tag;
	u8 lun[8];
	u8 func;
	u64 task_tag;
};

/**
 * struct srpt_rsp_info - what goes into an SRP_RSP
 * @tag: tag of the request answered
 * @req_lim_delta: credits returned with this response
 * @status: SCSI status
 * @flags: SRPT_RSP_FLAG_DO* / DI* residual flags (the builder adds
 *	RSPVALID and SNSVALID itself)
 * @data_out_res: DATA-OUT residual count
 * @data_in_res: DATA-IN residual count
 * @resp_data: response data (4 bytes for a task management response) or NULL
 * @resp_len: length of @resp_data
 * @sense: sense data or NULL
 * @sense_len: length of @sense, truncated by the builder to what fits
 */
struct srpt_rsp_info {
	u64 tag;
	u32 req_lim_delta;
	u8 status;
	u8 flags;
	u32 data_out_res;
	u32 data_in_res;
	const u8 *resp_data;
	u32 resp_len;
	const u8 *sense;
	u32 sense_len;
};

/* ------------------------------------------------------------------------ */
/* Login.                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * srpt_parse_login_req() - parse an SRP_LOGIN_REQ carried by IB CM
 * @buf: the REQ private data, which is the IU itself.
 * @len: number of bytes in @buf (IB CM delivers 92; only 64 are used).
 * @req: parsed request; all zero on error.
 *
 * Layout: 0 opcode, 8..15 tag, 16..19 req_it_iu_len, 24..25 req_buf_fmt,
 * 26 req_flags, 28..29 imm_data_offset, 32..47 initiator port id and
 * 48..63 target port id.  @req->imm_data_offset is reported as sent, whether
 * or not SRPT_LOGIN_IMMED_REQUESTED is set: srpt_check_login() judges it.
 *
 * Return: 0, or -EINVAL when @len is below SRPT_LOGIN_REQ_LEN or the opcode
 * is not SRPT_OP_LOGIN_REQ.
 */
static inline int srpt_parse_login_req(const void *buf, size_t len,
				       struct srpt_login_req *req)
{
	const u8 *p = buf;

	memset(req, 0, sizeof(*req));
	if (len < SRPT_LOGIN_REQ_LEN || p[0] != SRPT_OP_LOGIN_REQ)
		return -EINVAL;
	memcpy(&req->tag, p + 8, 8);
	req->req_it_iu_len = srpt_get_be32(p + 16);
	req->req_buf_fmt = srpt_get_be16(p + 24);
	req->req_flags = p[26];
	req->imm_data_offset = srpt_get_be16(p + 28);
	memcpy(req->initiator_port_id, p + 32, 16);
	memcpy(req->target_port_id, p + 48, 16);
	return 0;
}

/**
 * srpt_parse_login_req_rdma() - parse the login request carried by RDMA/CM
 * @buf: the connect request's private data.
 * @len: number of bytes in @buf.
 * @req: parsed request; all zero on error.
 *
 * RDMA/CM over InfiniBand leaves only 56 bytes of private data, so ib_srp
 * sends the login request without its reserved fields: 0..7 tag,
 * 8..9 req_buf_fmt, 10 req_flags, 11 opcode, 12..15 req_it_iu_len,
 * 16..31 initiator port id, 32..47 target port id, 48..49 imm_data_offset.
 *
 * Return: 0, or -EINVAL when @len is below SRPT_LOGIN_REQ_RDMA_LEN or the
 * opcode is not SRPT_OP_LOGIN_REQ.
 */
static inline int srpt_parse_login_req_rdma(const void *buf, size_t len,
					    struct srpt_login_req *req)
{
	const u8 *p = buf;

	memset(req, 0, sizeof(*req));
	if (len < SRPT_LOGIN_REQ_RDMA_LEN || p[11] != SRPT_OP_LOGIN_REQ)
		return -EINVAL;
	memcpy(&req->tag, p, 8);
	req->req_buf_fmt = srpt_get_be16(p + 8);
	req->req_flags = p[10];
	req->req_it_iu_len = srpt_get_be32(p + 12);
	memcpy(req->initiator_port_id, p + 16, 16);
	memcpy(req->target_port_id, p + 32, 16);
	req->imm_data_offset = srpt_get_be16(p + 48);
	return 0;
}

/**
 * srpt_check_login() - decide on a parsed login request
 * @req: the request, from srpt_parse_login_req() or
 *	srpt_parse_login_req_rdma().
 * @p: what the target accepts.
 * @g: what the target grants; all zero when the login is refused.
 *
 * The checks, in this order: the initiator must accept request IUs of at
 * least SRPT_MIN_IT_IU_LEN bytes and no more than @p->max_req_size, must name
 * @p->target_port_id (unless that is NULL), must support direct or indirect
 * descriptors and must not ask for a reserved multichannel action.
 *
 * Immediate data is granted, at the offset the initiator asked for, only when
 * it asked for it and the offset leaves room for an SRP_CMD and an immediate
 * data descriptor before it and lies inside a request IU.  Otherwise the
 * login succeeds without immediate data.
 *
 * Return: 0, or the SRPT_REJ_* reason to send in an SRP_LOGIN_REJ.
 */
static inline u32 srpt_check_login(const struct srpt_login_req *req,
				   const struct srpt_login_params *p,
				   struct srpt_login_grant *g)
{
	const u16 fmts = SRPT_BUF_FMT_DIRECT | SRPT_BUF_FMT_INDIRECT;
	u8 multichannel = req->req_flags & SRPT_LOGIN_MULTICHAN_MASK;

	memset(g, 0, sizeof(*g));
	if (req->req_it_iu_len < SRPT_MIN_IT_IU_LEN)
		return SRPT_REJ_UNABLE_ESTABLISH;
	if (req->req_it_iu_len > p->max_req_size)
		return SRPT_REJ_IT_IU_LEN_TOO_LARGE;
	if (p->target_port_id &&
	    memcmp(req->target_port_id, p->target_port_id, 16) != 0)
		return SRPT_REJ_UNABLE_ASSOCIATE;
	if (!(req->req_buf_fmt & fmts))
		return SRPT_REJ_UNSUPPORTED_FMT;
	if (multichannel > SRPT_LOGIN_MULTICHAN_MULTI)
		return SRPT_REJ_UNABLE_ESTABLISH;

	g->max_it_iu_len = req->req_it_iu_len;
	g->max_ti_iu_len = p->max_rsp_size;
	g->buf_fmt = req->req_buf_fmt & fmts;
	g->multichannel = multichannel;
	if ((req->req_flags & SRPT_LOGIN_IMMED_REQUESTED) &&
	    req->imm_data_offset >= SRPT_CMD_LEN + SRPT_IMM_DESC_LEN &&
	    req->imm_data_offset < req->req_it_iu_len) {
		g->rsp_flags = SRPT_LOGIN_RSP_IMMED_SUPP;
		g->imm_data_offset = req->imm_data_offset;
	}
	return 0;
}

/**
 * srpt_build_login_rsp() - build an SRP_LOGIN_RSP
 * @buf: destination.
 * @len: size of @buf.
 * @tag: tag of the login request, as parsed (opaque).
 * @req_lim_delta: initial request limit (credits) of the channel.
 * @g: what srpt_check_login() granted.
 * @rsp_flags: the RSP FLAGS byte: @g->rsp_flags together with the
 *	SRPT_LOGIN_RSP_* multichannel result.
 *
 * Return: SRPT_LOGIN_RSP_LEN, or 0 (and nothing written) when @len is too
 * small.
 */
static inline size_t srpt_build_login_rsp(void *buf, size_t len, u64 tag,
					  u32 req_lim_delta,
					  const struct srpt_login_grant *g,
					  u8 rsp_flags)
{
	u8 *p = buf;

	if (len < SRPT_LOGIN_RSP_LEN)
		return 0;
	memset(p, 0, SRPT_LOGIN_RSP_LEN);
	p[0] = SRPT_OP_LOGIN_RSP;
	srpt_put_be32(p + 4, req_lim_delta);
	memcpy(p + 8, &tag, 8);
	srpt_put_be32(p + 16, g->max_it_iu_len);
	srpt_put_be32(p + 20, g->max_ti_iu_len);
	srpt_put_be16(p + 24, g->buf_fmt);
	p[26] = rsp_flags;
	return SRPT_LOGIN_RSP_LEN;
}

/**
 * srpt_build_login_rej() - build an SRP_LOGIN_REJ
 * @buf: destination.
 * @len: size of @buf.
 * @tag: tag of the login request (opaque).
 * @reason: SRPT_REJ_* reason.
 *
 * The reject advertises the buffer formats the target supports: direct and
 * indirect descriptors.
 *
 * Return: SRPT_LOGIN_REJ_LEN, or 0 (and nothing written) when @len is too
 * small.
 */
static inline size_t srpt_build_login_rej(void *buf, size_t len, u64 tag,
					  u32 reason)
{
	u8 *p = buf;

	if (len < SRPT_LOGIN_REJ_LEN)
		return 0;
	memset(p, 0, SRPT_LOGIN_REJ_LEN);
	p[0] = SRPT_OP_LOGIN_REJ;
	srpt_put_be32(p + 4, reason);
	memcpy(p + 8, &tag, 8);
	srpt_put_be16(p + 24, SRPT_BUF_FMT_DIRECT | SRPT_BUF_FMT_INDIRECT);
	return SRPT_LOGIN_REJ_LEN;
}

/* ------------------------------------------------------------------------ */
/* Logout and generic IU checks.                                            */
/* ------------------------------------------------------------------------ */

/**
 * srpt_iu_opcode() - opcode of a received IU
 * @buf: the IU.
 * @len: number of bytes received.
 *
 * Every IU a target accepts has at least an opcode and a tag, so anything
 * shorter than 16 bytes is refused before its opcode is looked at.
 *
 * Return: the opcode (0..255), or -EINVAL when @len is below 16.
 */
static inline int srpt_iu_opcode(const void *buf, size_t len)
{
	const u8 *p = buf;

	if (len < 16)
		return -EINVAL;
	return p[0];
}

/**
 * srpt_parse_i_logout() - parse an SRP_I_LOGOUT
 * @iu: the IU.
 * @len: number of bytes received.
 * @tag: its tag (opaque); 0 on error.
 *
 * Return: 0, or -EINVAL when @len is below SRPT_I_LOGOUT_LEN or the opcode
 * is not SRPT_OP_I_LOGOUT.
 */
static inline int srpt_parse_i_logout(const void *iu, size_t len, u64 *tag)
{
	const u8 *p = iu;

	*tag = 0;
	if (len < SRPT_I_LOGOUT_LEN || p[0] != SRPT_OP_I_LOGOUT)
		return -EINVAL;
	memcpy(tag, p + 8, 8);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* SRP_CMD and its data descriptors.                                        */
/* ------------------------------------------------------------------------ */

/**
 * srpt_decode_desc() - decode a direct data buffer descriptor
 * @p: the 16 wire bytes: va (be64), key (be32), len (be32).
 * @d: decoded descriptor.
 */
static inline void srpt_decode_desc(const u8 *p, struct srpt_desc *d)
{
	d->va = srpt_get_be64(p);
	d->key = srpt_get_be32(p + 8);
	d->len = srpt_get_be32(p + 12);
}

/**
 * srpt_check_desc_table() - check a descriptor table against its total
 * @tbl: @ndesc wire-format direct descriptors (16 bytes each).
 * @ndesc: number of descriptors.
 * @total_len: the total data length the indirect descriptor states.
 *
 * For a table that did not fit in the SRP_CMD, call this once it has been
 * fetched; srpt_parse_cmd() checks tables inside the IU itself.  The sum is
 * kept in 64 bits: 2^32 - 1 lengths of at most 2^32 - 1 cannot overflow it.
 *
 * Return: 0 when the lengths add up to @total_len, else -EINVAL.
 */
static inline int srpt_check_desc_table(const u8 *tbl, u32 ndesc,
					u32 total_len)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < ndesc; i++) {
		sum += srpt_get_be32(tbl + (size_t)i * SRPT_DIRECT_DESC_LEN + 12);
		if (sum > total_len)
			return -EINVAL;
	}
	return sum == total_len ? 0 : -EINVAL;
}

/**
 * srpt_parse_cmd_indirect() - check an indirect data descriptor of an SRP_CMD
 * @p: the IU.
 * @len: number of bytes received.
 * @off: offset of the descriptor; at most @len.
 * @desc_cnt: DATA-OUT or DATA-IN DESCRIPTOR COUNT, whichever direction
 *	carries data: how many of the table's descriptors are in the IU.
 * @max_desc: most direct descriptors the target accepts for one command.
 * @ci: command being parsed; ndesc, desc, ext_table and data_len are set,
 *	and only on success.
 *
 * Layout: table descriptor (16 bytes; its len is that of the whole table),
 * total data length (be32), then @desc_cnt direct descriptors.  When the
 * table has more entries than the IU carries, it must be fetched from
 * @ci->ext_table and checked with srpt_check_desc_table().
 *
 * Return: 0, -EINVAL, or -E2BIG when the table has more than @max_desc
 * entries (checked after every -EINVAL case).
 */
static inline int srpt_parse_cmd_indirect(const u8 *p, size_t len, size_t off,
					  u32 desc_cnt, u32 max_desc,
					  struct srpt_cmd_info *ci)
{
	struct srpt_desc table;
	u32 total_len, ndesc;

	if (len - off < SRPT_INDIRECT_HDR_LEN)
		return -EINVAL;
	srpt_decode_desc(p + off, &table);
	total_len = srpt_get_be32(p + off + SRPT_DIRECT_DESC_LEN);
	if (table.len == 0 || table.len % SRPT_DIRECT_DESC_LEN)
		return -EINVAL;
	ndesc = table.len / SRPT_DIRECT_DESC_LEN;
	if (desc_cnt > ndesc)
		return -EINVAL;
	off += SRPT_INDIRECT_HDR_LEN;
	if ((u64)desc_cnt * SRPT_DIRECT_DESC_LEN > len - off)
		return -EINVAL;
	if (desc_cnt == ndesc &&
	    srpt_check_desc_table(p + off, ndesc, total_len))
		return -EINVAL;
	if (ndesc > max_desc)
		return -E2BIG;
	if (desc_cnt == ndesc)
		ci->desc = p + off;
	else
		ci->ext_table = table;
	ci->ndesc = ndesc;
	ci->data_len = total_len;
	return 0;
}

/**
 * srpt_parse_cmd_imm() - check an immediate data descriptor of an SRP_CMD
 * @p: the IU.
 * @len: number of bytes received.
 * @off: offset of the descriptor; at most @len.
 * @imm_data_offset: offset of immediate data granted at login, 0 if none.
 * @ci: command being parsed; imm and data_len are set, and only on
 *	success.
 *
 * The 4-byte descriptor holds the data length; the data starts at the
 * channel's immediate data offset, which the descriptor must not overlap.
 *
 * Return: 0 or -EINVAL.
 */
static inline int srpt_parse_cmd_imm(const u8 *p, size_t len, size_t off,
				     u16 imm_data_offset,
				     struct srpt_cmd_info *ci)
{
	u32 imm_len;

	if (imm_data_offset == 0)
		return -EINVAL;
	if (len - off < SRPT_IMM_DESC_LEN ||
	    off + SRPT_IMM_DESC_LEN > imm_data_offset)
		return -EINVAL;
	imm_len = srpt_get_be32(p + off);
	if ((u64)imm_data_offset + imm_len > len)
		return -EINVAL;
	ci->imm = p + imm_data_offset;
	ci->data_len = imm_len;
	return 0;
}

/**
 * srpt_parse_cmd() - parse and check an SRP_CMD
 * @iu: the IU.
 * @len: number of bytes received.
 * @imm_data_offset: offset of immediate data granted at login, 0 if none.
 * @max_desc: most direct descriptors the target accepts for one command.
 * @ci: the parsed command.
 *
 * Layout: 0 opcode, 5 buffer format (DATA-OUT format in the high nibble,
 * DATA-IN format in the low one), 6 DATA-OUT and 7 DATA-IN descriptor count,
 * 8..15 tag, 20..27 LUN, 29 task attribute (low 3 bits), 31 additional CDB
 * length (in bytes once its two low bits are masked), 32..47 CDB, then the
 * additional CDB bytes and the data descriptor.
 *
 * The descriptor count is only looked at for indirect descriptors.
 * Everything the descriptors point to inside the IU is checked to lie within
 * @len, every length is checked without 32-bit overflow, and an indirect
 * table that is in the IU must add up to its total length.
 *
 * @ci is zeroed first.  As soon as @len covers the fixed part of the IU, its
 * tag and LUN are filled in, also when an error follows, so that the command
 * can be answered; every other field is only set on success.
 *
 * Return: 0; -EINVAL for a malformed IU; -EOPNOTSUPP for a bidirectional
 * command, a reserved descriptor format or immediate DATA-IN; -E2BIG when it
 * needs more than @max_desc descriptors (checked after all -EINVAL cases).
 */
static inline int srpt_parse_cmd(const void *iu, size_t len,
				 u16 imm_data_offset, u32 max_desc,
				 struct srpt_cmd_info *ci)
{
	enum srpt_data_dir dir = SRPT_DIR_NONE;
	enum srpt_desc_fmt fmt = SRPT_DESC_NONE;
	const u8 *p = iu;
	u8 out_fmt, in_fmt, task_attr;
	u32 add_cdb_len;
	size_t off;
	int ret;

	/*
	 * Fields go straight into @ci, each once nothing can fail any more:
	 * a local copy would be zeroed (CONFIG_INIT_STACK_ALL_ZERO) and
	 * copied in and out, for every I/O.
	 */
	memset(ci, 0, sizeof(*ci));
	if (len < SRPT_CMD_LEN)
		return -EINVAL;
	memcpy(&ci->tag, p + 8, 8);
	memcpy(ci->lun, p + 20, 8);
	if (p[0] != SRPT_OP_CMD)
		return -EINVAL;

	task_attr = p[29] & 7;
	switch (task_attr) {
	case SRPT_TASK_SIMPLE:
	case SRPT_TASK_HEAD_OF_QUEUE:
	case SRPT_TASK_ORDERED:
	case SRPT_TASK_ACA:
		break;
	default:
		return -EINVAL;
	}

	out_fmt = p[5] >> 4;
	in_fmt = p[5] & 0xf;
	if (out_fmt && in_fmt)
		return -EOPNOTSUPP;	/* bidirectional */
	if (out_fmt > SRPT_DESC_IMM || in_fmt > SRPT_DESC_IMM)
		return -EOPNOTSUPP;	/* reserved format */
	if (in_fmt == SRPT_DESC_IMM)
		return -EOPNOTSUPP;	/* immediate data is DATA-OUT only */

	add_cdb_len = p[31] & ~3u;
	off = SRPT_CMD_LEN + add_cdb_len;
	if (off > len)
		return -EINVAL;

	if (out_fmt) {
		dir = SRPT_DIR_OUT;
		fmt = (enum srpt_desc_fmt)out_fmt;
	} else if (in_fmt) {
		dir = SRPT_DIR_IN;
		fmt = (enum srpt_desc_fmt)in_fmt;
	}

	switch (fmt) {
	case SRPT_DESC_NONE:
		break;
	case SRPT_DESC_DIRECT:
		if (len - off < SRPT_DIRECT_DESC_LEN)
			return -EINVAL;
		if (max_desc < 1)
			return -E2BIG;
		ci->ndesc = 1;
		ci->desc = p + off;
		ci->data_len = srpt_get_be32(p + off + 12);
		break;
	case SRPT_DESC_INDIRECT:
		ret = srpt_parse_cmd_indirect(p, len, off,
					      out_fmt ? p[6] : p[7], max_desc,
					      ci);
		if (ret)
			return ret;
		break;
	case SRPT_DESC_IMM:
		/* No descriptor count: never more than @max_desc. */
		ret = srpt_parse_cmd_imm(p, len, off, imm_data_offset, ci);
		if (ret)
			return ret;
		break;
	}
	ci->task_attr = task_attr;
	ci->cdb = p + 32;
	ci->cdb_len = 16 + add_cdb_len;
	ci->dir = dir;
	ci->fmt = fmt;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Task management.                                                         */
/* ------------------------------------------------------------------------ */

/**
 * srpt_parse_tsk_mgmt() - parse an SRP_TSK_MGMT
 * @iu: the IU.
 * @len: number of bytes received.
 * @t: the parsed request; all zero on error.
 *
 * Layout: 0 opcode, 8..15 tag, 20..27 LUN, 30 task management function,
 * 32..39 tag of the task to manage.  The function is not validated here.
 *
 * Return: 0, or -EINVAL when @len is below SRPT_TSK_MGMT_LEN or the opcode
 * is not SRPT_OP_TSK_MGMT.
 */
static inline int srpt_parse_tsk_mgmt(const void *iu, size_t len,
				      struct srpt_tmf_info *t)
{
	const u8 *p = iu;

	memset(t, 0, sizeof(*t));
	if (len < SRPT_TSK_MGMT_LEN || p[0] != SRPT_OP_TSK_MGMT)
		return -EINVAL;
	memcpy(&t->tag, p + 8, 8);
	memcpy(t->lun, p + 20, 8);
	t->func = p[30];
	memcpy(&t->task_tag, p + 32, 8);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* SRP_RSP.                                                                 */
/* ------------------------------------------------------------------------ */

/**
 * srpt_build_rsp() - build an SRP_RSP
 * @buf: destination.
 * @max_len: most bytes the response may have: the smaller of the size of
 *	@buf and the channel's max_ti_iu_len.
 * @r: what to send.  A NULL @r->resp_data or @r->sense counts as length 0.
 *
 * Layout: 0 opcode, 4..7 request limit delta, 8..15 tag, 18 flags,
 * 19 status, 20..23 DATA-OUT and 24..27 DATA-IN residual count,
 * 28..31 sense data length, 32..35 response data length, then the response
 * data and the sense data.  The sense data is cut to what fits after the
 * response data; RSPVALID and SNSVALID are set from the lengths actually
 * sent, whatever @r->flags says about them.
 *
 * Return: bytes written, or 0 (and nothing written) when @max_len cannot
 * hold the header and the response data.
 */
static inline size_t srpt_build_rsp(void *buf, size_t max_len,
				    const struct srpt_rsp_info *r)
{
	u32 resp_len = r->resp_data ? r->resp_len : 0;
	u32 sense_len = r->sense ? r->sense_len : 0;
	u8 flags = r->flags & ~(SRPT_RSP_FLAG_RSPVALID | SRPT_RSP_FLAG_SNSVALID);
	u8 *p = buf;
	size_t room;

	if (max_len < SRPT_RSP_LEN || max_len - SRPT_RSP_LEN < resp_len)
		return 0;
	room = max_len - SRPT_RSP_LEN - resp_len;
	if (sense_len > room)
		sense_len = (u32)room;
	if (resp_len)
		flags |= SRPT_RSP_FLAG_RSPVALID;
	if (sense_len)
		flags |= SRPT_RSP_FLAG_SNSVALID;

	memset(p, 0, SRPT_RSP_LEN);
	p[0] = SRPT_OP_RSP;
	srpt_put_be32(p + 4, r->req_lim_delta);
	memcpy(p + 8, &r->tag, 8);
	p[18] = flags;
	p[19] = r->status;
	srpt_put_be32(p + 20, r->data_out_res);
	srpt_put_be32(p + 24, r->data_in_res);
	srpt_put_be32(p + 28, sense_len);
	srpt_put_be32(p + 32, resp_len);
	if (resp_len)
		memcpy(p + SRPT_RSP_LEN, r->resp_data, resp_len);
	if (sense_len)
		memcpy(p + SRPT_RSP_LEN + resp_len, r->sense, sense_len);
	return (size_t)SRPT_RSP_LEN + resp_len + sense_len;
}

/**
 * srpt_rsp_set_credits() - set the request limit delta of a built SRP_RSP
 * @buf: an SRP_RSP srpt_build_rsp() wrote (at least SRPT_RSP_LEN bytes).
 * @req_lim_delta: the credits it grants.
 *
 * For a target that decides the credits only when it posts the response,
 * after building it.
 */
static inline void srpt_rsp_set_credits(void *buf, u32 req_lim_delta)
{
	srpt_put_be32((u8 *)buf + 4, req_lim_delta);
}

/* ------------------------------------------------------------------------ */
/* The initiator's side: the IUs a target receives, built; those it sends, */
/* parsed.  Used by the test initiators (tools/ibcm-initiator/), so that    */
/* they speak the same layouts as the parsers and builders above; the unit  */
/* tests check each against its counterpart (tools/tests/unit/test_ini.c).  */
/* ------------------------------------------------------------------------ */

/**
 * struct srpt_login_rsp_info - an SRP_LOGIN_RSP, decoded
 * @tag: tag of the login request it answers (opaque)
 * @req_lim_delta: initial request limit (credits)
 * @max_it_iu_len: request IU size the target accepts
 * @max_ti_iu_len: response IU size the target sends
 * @buf_fmt: SRPT_BUF_FMT_* supported
 * @rsp_flags: multichannel result and SRPT_LOGIN_RSP_IMMED_SUPP
 */
struct srpt_login_rsp_info {
	u64 tag;
	u32 req_lim_delta;
	u32 max_it_iu_len;
	u32 max_ti_iu_len;
	u16 buf_fmt;
	u8 rsp_flags;
};

/**
 * struct srpt_cmd_build - what srpt_build_cmd() puts into an SRP_CMD
 * @tag: opaque tag
 * @lun: the 8-byte LUN field
 * @task_attr: SRPT_TASK_*
 * @cdb: the 16-byte CDB
 * @dir: SRPT_DIR_* of the data; SRPT_DIR_NONE for no data
 * @fmt: SRPT_DESC_DIRECT or SRPT_DESC_INDIRECT (ignored without data)
 * @desc: the direct descriptors of the data, @ndesc of them
 * @ndesc: 1 for SRPT_DESC_DIRECT; the table length for SRPT_DESC_INDIRECT
 * @ndesc_in_iu: SRPT_DESC_INDIRECT: how many of @desc go into the IU, the
 *	first ones; the target fetches the whole table from @table when that
 *	is fewer than @ndesc
 * @table: SRPT_DESC_INDIRECT: where the initiator keeps the whole table
 *	(address and key; the builder sets the length)
 */
struct srpt_cmd_build {
	u64 tag;
	u8 lun[8];
	u8 task_attr;
	u8 cdb[16];
	enum srpt_data_dir dir;
	enum srpt_desc_fmt fmt;
	const struct srpt_desc *desc;
	u32 ndesc;
	u32 ndesc_in_iu;
	struct srpt_desc table;
};

/**
 * struct srpt_rsp_parsed - an SRP_RSP, decoded
 * @tag: tag of the request it answers (opaque)
 * @req_lim_delta: credits it returns
 * @flags: SRPT_RSP_FLAG_*
 * @status: SCSI status
 * @data_out_res: DATA-OUT residual count
 * @data_in_res: DATA-IN residual count
 * @resp_data: response data inside the IU, or NULL
 * @resp_len: its length
 * @sense: sense data inside the IU, or NULL
 * @sense_len: its length
 */
struct srpt_rsp_parsed {
	u64 tag;
	u32 req_lim_delta;
	u8 flags;
	u8 status;
	u32 data_out_res;
	u32 data_in_res;
	const u8 *resp_data;
	u32 resp_len;
	const u8 *sense;
	u32 sense_len;
};

/**
 * srpt_encode_desc() - write a direct data buffer descriptor
 * @p: the 16 wire bytes.
 * @d: the descriptor.
 */
static inline void srpt_encode_desc(u8 *p, const struct srpt_desc *d)
{
	srpt_put_be64(p, d->va);
	srpt_put_be32(p + 8, d->key);
	srpt_put_be32(p + 12, d->len);
}

/**
 * srpt_build_login_req() - build an SRP_LOGIN_REQ as IB CM carries it
 * @buf: destination (the REQ private data).
 * @len: size of @buf.
 * @req: what to ask for.
 *
 * The layout srpt_parse_login_req() reads; reserved bytes are zero.
 *
 * Return: SRPT_LOGIN_REQ_LEN, or 0 (and nothing written) when @len is too
 * small.
 */
static inline size_t srpt_build_login_req(void *buf, size_t len,
					  const struct srpt_login_req *req)
{
	u8 *p = buf;

	if (len < SRPT_LOGIN_REQ_LEN)
		return 0;
	memset(p, 0, SRPT_LOGIN_REQ_LEN);
	p[0] = SRPT_OP_LOGIN_REQ;
	memcpy(p + 8, &req->tag, 8);
	srpt_put_be32(p + 16, req->req_it_iu_len);
	srpt_put_be16(p + 24, req->req_buf_fmt);
	p[26] = req->req_flags;
	srpt_put_be16(p + 28, req->imm_data_offset);
	memcpy(p + 32, req->initiator_port_id, 16);
	memcpy(p + 48, req->target_port_id, 16);
	return SRPT_LOGIN_REQ_LEN;
}

/**
 * srpt_parse_login_rsp() - parse an SRP_LOGIN_RSP
 * @buf: the IU (REP private data on IB CM).
 * @len: number of bytes in @buf.
 * @r: decoded response; all zero on error.
 *
 * The layout srpt_build_login_rsp() writes.
 *
 * Return: 0, or -EINVAL when @len is below SRPT_LOGIN_RSP_LEN or the opcode
 * is not SRPT_OP_LOGIN_RSP.
 */
static inline int srpt_parse_login_rsp(const void *buf, size_t len,
				       struct srpt_login_rsp_info *r)
{
	const u8 *p = buf;

	memset(r, 0, sizeof(*r));
	if (len < SRPT_LOGIN_RSP_LEN || p[0] != SRPT_OP_LOGIN_RSP)
		return -EINVAL;
	r->req_lim_delta = srpt_get_be32(p + 4);
	memcpy(&r->tag, p + 8, 8);
	r->max_it_iu_len = srpt_get_be32(p + 16);
	r->max_ti_iu_len = srpt_get_be32(p + 20);
	r->buf_fmt = srpt_get_be16(p + 24);
	r->rsp_flags = p[26];
	return 0;
}

/**
 * srpt_parse_login_rej() - parse an SRP_LOGIN_REJ
 * @buf: the IU (REJ private data on IB CM).
 * @len: number of bytes in @buf.
 * @reason: its SRPT_REJ_* reason; 0 on error.
 * @tag: its tag (opaque); 0 on error.
 *
 * Return: 0, or -EINVAL when @len is below SRPT_LOGIN_REJ_LEN or the opcode
 * is not SRPT_OP_LOGIN_REJ.
 */
static inline int srpt_parse_login_rej(const void *buf, size_t len,
				       u32 *reason, u64 *tag)
{
	const u8 *p = buf;

	*reason = 0;
	*tag = 0;
	if (len < SRPT_LOGIN_REJ_LEN || p[0] != SRPT_OP_LOGIN_REJ)
		return -EINVAL;
	*reason = srpt_get_be32(p + 4);
	memcpy(tag, p + 8, 8);
	return 0;
}

/**
 * srpt_build_cmd() - build an SRP_CMD with direct or indirect descriptors
 * @buf: destination.
 * @len: size of @buf.
 * @c: the command.
 *
 * The layout srpt_parse_cmd() reads, without additional CDB bytes.  An
 * indirect descriptor states the whole table (@c->ndesc entries at
 * @c->table) and the sum of their lengths as the total, followed by the
 * first @c->ndesc_in_iu entries; the descriptor count of the data's
 * direction is @c->ndesc_in_iu.
 *
 * Return: bytes written, or 0 (and nothing written) when @len is too small,
 * @c->fmt is neither direct nor indirect for a command with data, a direct
 * command has no descriptor, more entries are to go into the IU than the
 * table has, or either count exceeds what its field holds.
 */
static inline size_t srpt_build_cmd(void *buf, size_t len,
				    const struct srpt_cmd_build *c)
{
	size_t need = SRPT_CMD_LEN;
	u8 *p = buf;
	u64 total = 0;
	u32 i;

	if (c->dir != SRPT_DIR_NONE) {
		if (c->fmt == SRPT_DESC_DIRECT) {
			if (c->ndesc < 1)
				return 0;
			need += SRPT_DIRECT_DESC_LEN;
		} else if (c->fmt == SRPT_DESC_INDIRECT) {
			if (c->ndesc_in_iu > c->ndesc || c->ndesc_in_iu > 255 ||
			    (u64)c->ndesc * SRPT_DIRECT_DESC_LEN > 0xffffffffULL)
				return 0;
			need += SRPT_INDIRECT_HDR_LEN +
				(size_t)c->ndesc_in_iu * SRPT_DIRECT_DESC_LEN;
		} else {
			return 0;
		}
	}
	if (len < need)
		return 0;

	memset(p, 0, need);
	p[0] = SRPT_OP_CMD;
	memcpy(p + 8, &c->tag, 8);
	memcpy(p + 20, c->lun, 8);
	p[29] = c->task_attr & 7;
	memcpy(p + 32, c->cdb, 16);
	if (c->dir == SRPT_DIR_NONE)
		return need;

	p[5] = c->dir == SRPT_DIR_OUT ? (u8)(c->fmt << 4) : (u8)c->fmt;
	if (c->fmt == SRPT_DESC_DIRECT) {
		srpt_encode_desc(p + SRPT_CMD_LEN, &c->desc[0]);
		return need;
	}
	p[c->dir == SRPT_DIR_OUT ? 6 : 7] = (u8)c->ndesc_in_iu;
	for (i = 0; i < c->ndesc; i++)
		total += c->desc[i].len;
	srpt_put_be64(p + SRPT_CMD_LEN, c->table.va);
	srpt_put_be32(p + SRPT_CMD_LEN + 8, c->table.key);
	srpt_put_be32(p + SRPT_CMD_LEN + 12, c->ndesc * SRPT_DIRECT_DESC_LEN);
	srpt_put_be32(p + SRPT_CMD_LEN + SRPT_DIRECT_DESC_LEN, (u32)total);
	for (i = 0; i < c->ndesc_in_iu; i++)
		srpt_encode_desc(p + SRPT_CMD_LEN + SRPT_INDIRECT_HDR_LEN +
				 (size_t)i * SRPT_DIRECT_DESC_LEN, &c->desc[i]);
	return need;
}

/**
 * srpt_build_tsk_mgmt() - build an SRP_TSK_MGMT
 * @buf: destination.
 * @len: size of @buf.
 * @tag: its own tag (opaque).
 * @lun: the 8-byte LUN field.
 * @func: SRPT_TMF_* (not checked: a test may send any).
 * @task_tag: tag of the task to manage (ABORT TASK), opaque.
 *
 * The layout srpt_parse_tsk_mgmt() reads.
 *
 * Return: SRPT_TSK_MGMT_LEN, or 0 (and nothing written) when @len is too
 * small.
 */
static inline size_t srpt_build_tsk_mgmt(void *buf, size_t len, u64 tag,
					 const u8 *lun, u8 func, u64 task_tag)
{
	u8 *p = buf;

	if (len < SRPT_TSK_MGMT_LEN)
		return 0;
	memset(p, 0, SRPT_TSK_MGMT_LEN);
	p[0] = SRPT_OP_TSK_MGMT;
	memcpy(p + 8, &tag, 8);
	memcpy(p + 20, lun, 8);
	p[30] = func;
	memcpy(p + 32, &task_tag, 8);
	return SRPT_TSK_MGMT_LEN;
}

/**
 * srpt_build_i_logout() - build an SRP_I_LOGOUT
 * @buf: destination.
 * @len: size of @buf.
 * @tag: its tag (opaque).
 *
 * Return: SRPT_I_LOGOUT_LEN, or 0 (and nothing written) when @len is too
 * small.
 */
static inline size_t srpt_build_i_logout(void *buf, size_t len, u64 tag)
{
	u8 *p = buf;

	if (len < SRPT_I_LOGOUT_LEN)
		return 0;
	memset(p, 0, SRPT_I_LOGOUT_LEN);
	p[0] = SRPT_OP_I_LOGOUT;
	memcpy(p + 8, &tag, 8);
	return SRPT_I_LOGOUT_LEN;
}

/**
 * srpt_parse_rsp() - parse an SRP_RSP
 * @iu: the IU.
 * @len: number of bytes received.
 * @r: the decoded response; all zero on error.
 *
 * The layout srpt_build_rsp() writes.  Response data and sense data are
 * only reported when their VALID flag is set, and must lie inside @len.
 *
 * Return: 0, or -EINVAL when @len is below SRPT_RSP_LEN, the opcode is not
 * SRPT_OP_RSP, or the response and sense data lengths reach beyond @len.
 */
static inline int srpt_parse_rsp(const void *iu, size_t len,
				 struct srpt_rsp_parsed *r)
{
	const u8 *p = iu;
	u32 resp_len = 0, sense_len = 0;
	struct srpt_rsp_parsed c;

	memset(r, 0, sizeof(*r));
	if (len < SRPT_RSP_LEN || p[0] != SRPT_OP_RSP)
		return -EINVAL;
	memset(&c, 0, sizeof(c));
	c.req_lim_delta = srpt_get_be32(p + 4);
	memcpy(&c.tag, p + 8, 8);
	c.flags = p[18];
	c.status = p[19];
	c.data_out_res = srpt_get_be32(p + 20);
	c.data_in_res = srpt_get_be32(p + 24);
	if (c.flags & SRPT_RSP_FLAG_SNSVALID)
		sense_len = srpt_get_be32(p + 28);
	if (c.flags & SRPT_RSP_FLAG_RSPVALID)
		resp_len = srpt_get_be32(p + 32);
	if ((u64)SRPT_RSP_LEN + resp_len + sense_len > len)
		return -EINVAL;
	if (resp_len) {
		c.resp_data = p + SRPT_RSP_LEN;
		c.resp_len = resp_len;
	}
	if (sense_len) {
		c.sense = p + SRPT_RSP_LEN + resp_len;
		c.sense_len = sense_len;
	}
	*r = c;
	return 0;
}

#endif /* SRPT_IU_H */
