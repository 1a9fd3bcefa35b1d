// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of srpt_parse_tsk_mgmt() and of the SRP_RSP that answers a task
 * management request (srpt_build_rsp() with four bytes of response data).
 *
 * Input: a 3-byte header, then the IU as it arrived.
 *
 *   0..1   max_ti_iu_len the response is built for (be16)
 *   2      response code
 *
 * Checked: the parser refuses exactly what is too short or not a
 * TSK_MGMT, leaves nothing behind when it does, and reads the fields from
 * where SRP r16a puts them, also from an IU with bytes appended; the
 * response carries the request's tag, RSPVALID and the response code in
 * the last byte of its response data, or is not built at all when
 * max_ti_iu_len cannot hold it, and is never written past its length.
 */
#include "fuzz.h"
#include "../../srpt_iu.h"

enum {
	HDR_LEN = 3,
};

static void check_rsp(const struct srpt_tmf_info *t, size_t max_len, u8 code)
{
	const u8 resp[4] = { 0, 0, 0, code };
	struct srpt_rsp_info r;
	u8 *b = fuzz_guarded(max_len);
	size_t ret;

	memset(&r, 0, sizeof(r));
	r.tag = t->tag;
	r.req_lim_delta = 1;
	r.resp_data = resp;
	r.resp_len = sizeof(resp);
	ret = srpt_build_rsp(b, max_len, &r);
	if (max_len < SRPT_RSP_LEN + sizeof(resp)) {
		FUZZ_CHECK(ret == 0 && fuzz_untouched_from(b, 0, max_len));
	} else {
		FUZZ_CHECK(ret == SRPT_RSP_LEN + sizeof(resp));
		FUZZ_CHECK(fuzz_untouched_from(b, ret, max_len));
		FUZZ_CHECK(b[0] == SRPT_OP_RSP);
		FUZZ_CHECK(memcmp(b + 8, &t->tag, 8) == 0);
		FUZZ_CHECK(b[18] == SRPT_RSP_FLAG_RSPVALID);
		FUZZ_CHECK(srpt_get_be32(b + 28) == 0);
		FUZZ_CHECK(srpt_get_be32(b + 32) == sizeof(resp));
		FUZZ_CHECK(b[SRPT_RSP_LEN + 3] == code);
	}
	free(b);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct srpt_tmf_info t, t2;
	size_t max_len;
	u8 code, *iu;
	int ret;

	if (size < HDR_LEN)
		return 0;
	max_len = fuzz_get_be16(&in);
	code = fuzz_get_u8(&in);

	iu = fuzz_dup(in.p, in.n);
	memset(&t, 0x5a, sizeof(t));
	ret = srpt_parse_tsk_mgmt(iu, in.n, &t);
	FUZZ_CHECK(!ret == (in.n >= SRPT_TSK_MGMT_LEN &&
			    iu[0] == SRPT_OP_TSK_MGMT));
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(t.tag == 0 && fuzz_all(t.lun, 8, 0) &&
			   t.func == 0 && t.task_tag == 0);
		free(iu);
		return 0;
	}
	FUZZ_CHECK(memcmp(&t.tag, iu + 8, 8) == 0);
	FUZZ_CHECK(memcmp(t.lun, iu + 20, 8) == 0);
	FUZZ_CHECK(t.func == iu[30]);
	FUZZ_CHECK(memcmp(&t.task_tag, iu + 32, 8) == 0);

	/* The fixed part alone parses the same. */
	free(iu);
	iu = fuzz_dup(in.p, SRPT_TSK_MGMT_LEN);
	FUZZ_CHECK(srpt_parse_tsk_mgmt(iu, SRPT_TSK_MGMT_LEN, &t2) == 0);
	FUZZ_CHECK(t2.tag == t.tag && !memcmp(t2.lun, t.lun, 8) &&
		   t2.func == t.func && t2.task_tag == t.task_tag);
	free(iu);

	check_rsp(&t, max_len, code);
	return 0;
}
