// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of the receive dispatch of srpt_iu.h: srpt_iu_opcode(), then
 * srpt_parse_i_logout() and the other parsers of initiator requests.
 *
 * Input: the IU as it arrived.
 *
 * Checked: srpt_iu_opcode() refuses exactly what is shorter than 16 bytes
 * and otherwise is the first byte; at most one parser of a request IU
 * accepts an IU, and only one of the opcode it is for; SRP_I_LOGOUT's tag
 * comes from bytes 8..15.
 */
#include "fuzz.h"
#include "../../srpt_iu.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct srpt_login_req login;
	struct srpt_cmd_info ci;
	struct srpt_tmf_info t;
	int op, accepted = 0;
	u64 tag;
	u8 *iu;

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
	return 0;
}
