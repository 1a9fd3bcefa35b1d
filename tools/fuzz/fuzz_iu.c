// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of the receive dispatch of srpt_iu.h: srpt_iu_opcode(), then
 * srpt_parse_i_logout() and the other parsers of initiator requests, and
 * srpt_build_t_logout().
 *
 * Input: a 5-byte header, then the IU as it arrived.
 *
 *   0      size of the buffer the SRP_T_LOGOUT is built into
 *   1..4   logout reason (be32)
 *
 * Checked: srpt_iu_opcode() refuses exactly what is shorter than 16 bytes
 * and otherwise is the first byte; at most one parser of a request IU
 * accepts an IU, and only one of the opcode it is for; SRP_I_LOGOUT's tag
 * comes from bytes 8..15; SRP_T_LOGOUT is built whole or not at all and not
 * past its buffer.
 */
#include "fuzz.h"
#include "../../srpt_iu.h"

enum {
	HDR_LEN = 5,
};

static void check_t_logout(size_t len, u64 tag, u32 reason)
{
	u8 *b = fuzz_guarded(len);
	size_t ret = srpt_build_t_logout(b, len, tag, reason);

	if (len < SRPT_T_LOGOUT_LEN) {
		FUZZ_CHECK(ret == 0 && fuzz_untouched_from(b, 0, len));
	} else {
		FUZZ_CHECK(ret == SRPT_T_LOGOUT_LEN);
		FUZZ_CHECK(fuzz_untouched_from(b, ret, len));
		FUZZ_CHECK(b[0] == SRPT_OP_T_LOGOUT);
		FUZZ_CHECK(fuzz_all(b + 1, 3, 0));	/* not solicited */
		FUZZ_CHECK(srpt_get_be32(b + 4) == reason);
		FUZZ_CHECK(memcmp(b + 8, &tag, 8) == 0);
	}
	free(b);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct srpt_login_req login;
	struct srpt_cmd_info ci;
	struct srpt_tmf_info t;
	int op, accepted = 0;
	size_t buf_len;
	u32 reason;
	u64 tag;
	u8 *iu;

	if (size < HDR_LEN)
		return 0;
	buf_len = fuzz_get_u8(&in);
	reason = fuzz_get_be32(&in);
	iu = fuzz_dup(in.p, in.n);

	op = srpt_iu_opcode(iu, in.n);
	FUZZ_CHECK(op == (in.n < 16 ? -EINVAL : iu[0]));

	tag = 0x5a5a5a5a5a5a5a5aULL;
	if (!srpt_parse_i_logout(iu, in.n, &tag)) {
		FUZZ_CHECK(op == SRPT_OP_I_LOGOUT);
		FUZZ_CHECK(memcmp(&tag, iu + 8, 8) == 0);
		accepted++;
	} else {
		FUZZ_CHECK(tag == 0);
		FUZZ_CHECK(op != SRPT_OP_I_LOGOUT);
	}
	if (!srpt_parse_login_req(iu, in.n, &login)) {
		FUZZ_CHECK(op == SRPT_OP_LOGIN_REQ);
		accepted++;
	}
	if (!srpt_parse_tsk_mgmt(iu, in.n, &t)) {
		FUZZ_CHECK(op == SRPT_OP_TSK_MGMT);
		accepted++;
	}
	if (!srpt_parse_cmd(iu, in.n, 0xffff, 0xffffffff, &ci)) {
		FUZZ_CHECK(op == SRPT_OP_CMD);
		accepted++;
	}
	FUZZ_CHECK(accepted <= 1);
	free(iu);

	check_t_logout(buf_len, tag, reason);
	return 0;
}
