// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of srpt_build_rsp() with hostile response and sense data lengths.
 *
 * Input: a 33-byte header, then bytes the response and sense data are taken
 * from (repeated as needed).
 *
 *   0..7   tag
 *   8..11  request limit delta (be32)
 *   12     SCSI status
 *   13     flags (residual flags; RSPVALID and SNSVALID as a caller might
 *          wrongly pass them)
 *   14..17 DATA-OUT residual (be32)
 *   18..21 DATA-IN residual (be32)
 *   22..25 response data length (be32)
 *   26..29 sense data length (be32)
 *   30..31 max_len (be16)
 *   32     bit 0: no response data (NULL), bit 1: no sense data (NULL)
 *
 * The data buffers hold exactly what the builder may read: response data
 * only when it fits (else an empty allocation), and only as much sense data
 * as fits after it, so AddressSanitizer catches the builder reading any
 * byte more than its contract allows.  Checked: the SRP_RSP is built when
 * and only when max_len holds the header and the response data, the sense
 * data is cut to what fits, the lengths and the VALID flags say what was
 * sent, and nothing is written past the bytes reported.
 */
#include "fuzz.h"
#include "../../srpt_iu.h"

enum {
	HDR_LEN		= 33,
	NO_RESP		= 1 << 0,
	NO_SENSE	= 1 << 1,
};

/*
 * @len bytes of the pattern @src (repeated), or zeros if it is empty.  An
 * empty buffer is malloc(0): not NULL, and AddressSanitizer reports any
 * access to it.
 */
static u8 *pattern(const u8 *src, size_t src_len, size_t len)
{
	u8 *p = malloc(len);
	size_t i, n;

	if (!p)
		abort();
	if (!src_len) {
		memset(p, 0, len);
		return p;
	}
	for (i = 0; i < len; i += n) {
		n = len - i < src_len ? len - i : src_len;
		memcpy(p + i, src, n);
	}
	return p;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_in in = { data, size };
	u32 resp_len, sense_len, sent_sense;
	struct srpt_rsp_info r;
	size_t max_len, ret, room;
	u8 mode, *resp, *sense, *b;
	bool fits;

	if (size < HDR_LEN)
		return 0;
	memset(&r, 0, sizeof(r));
	fuzz_get_bytes(&in, &r.tag, 8);
	r.req_lim_delta = fuzz_get_be32(&in);
	r.status = fuzz_get_u8(&in);
	r.flags = fuzz_get_u8(&in);
	r.data_out_res = fuzz_get_be32(&in);
	r.data_in_res = fuzz_get_be32(&in);
	r.resp_len = fuzz_get_be32(&in);
	r.sense_len = fuzz_get_be32(&in);
	max_len = fuzz_get_be16(&in);
	mode = fuzz_get_u8(&in);

	/* What the contract says is used of each. */
	resp_len = mode & NO_RESP ? 0 : r.resp_len;
	sense_len = mode & NO_SENSE ? 0 : r.sense_len;
	fits = max_len >= SRPT_RSP_LEN && max_len - SRPT_RSP_LEN >= resp_len;
	room = fits ? max_len - SRPT_RSP_LEN - resp_len : 0;
	sent_sense = fits ? (sense_len < room ? sense_len : (u32)room) : 0;

	resp = pattern(in.p, in.n, fits ? resp_len : 0);
	sense = pattern(in.p, in.n, sent_sense);
	r.resp_data = mode & NO_RESP ? NULL : resp;
	r.sense = mode & NO_SENSE ? NULL : sense;

	b = fuzz_guarded(max_len);
	ret = srpt_build_rsp(b, max_len, &r);
	if (!fits) {
		FUZZ_CHECK(ret == 0 && fuzz_untouched_from(b, 0, max_len));
		goto out;
	}
	FUZZ_CHECK(ret == (size_t)SRPT_RSP_LEN + resp_len + sent_sense);
	FUZZ_CHECK(ret <= max_len);
	FUZZ_CHECK(fuzz_untouched_from(b, ret, max_len));

	FUZZ_CHECK(b[0] == SRPT_OP_RSP && fuzz_all(b + 1, 3, 0));
	FUZZ_CHECK(srpt_get_be32(b + 4) == r.req_lim_delta);
	FUZZ_CHECK(memcmp(b + 8, &r.tag, 8) == 0);
	FUZZ_CHECK(fuzz_all(b + 16, 2, 0));
	FUZZ_CHECK(b[18] == ((r.flags & ~(SRPT_RSP_FLAG_RSPVALID |
					   SRPT_RSP_FLAG_SNSVALID)) |
			     (resp_len ? SRPT_RSP_FLAG_RSPVALID : 0) |
			     (sent_sense ? SRPT_RSP_FLAG_SNSVALID : 0)));
	FUZZ_CHECK(b[19] == r.status);
	FUZZ_CHECK(srpt_get_be32(b + 20) == r.data_out_res);
	FUZZ_CHECK(srpt_get_be32(b + 24) == r.data_in_res);
	FUZZ_CHECK(srpt_get_be32(b + 28) == sent_sense);
	FUZZ_CHECK(srpt_get_be32(b + 32) == resp_len);
	FUZZ_CHECK(memcmp(b + SRPT_RSP_LEN, resp, resp_len) == 0);
	FUZZ_CHECK(memcmp(b + SRPT_RSP_LEN + resp_len, sense, sent_sense) == 0);

out:
	free(b);
	free(resp);
	free(sense);
	return 0;
}
