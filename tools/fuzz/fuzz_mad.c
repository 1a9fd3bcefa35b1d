// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of the Device Management agent's wire code (srpt_mad.h):
 * srpt_dm_parse_req() and srpt_dm_build_response(), the request entry point
 * that turns a received MAD into its response.
 *
 * Input: a 41-byte header describing the I/O controller and the response
 * buffer, the controller's id string, then the MAD as it arrived.
 *
 *   0..7   ioc_guid (be64)
 *   8..11  vendor_id, 12..15 device_id (be32)
 *   16..17 device_version (be16)
 *   18..21 subsys_vendor_id, 22..25 subsys_device_id (be32)
 *   26..27 send_queue_depth (be16)
 *   28     rdma_read_depth
 *   29..32 send_size, 33..36 rdma_size (be32)
 *   37..38 size of the response buffer (be16)
 *   39     bit 0: id_string NULL, bit 1: also build the response in place
 *   40     length L of the id string, which follows (NUL terminated here)
 *
 * The MAD's bytes past the common MAD header are poisoned for
 * AddressSanitizer: the documented "nothing beyond the first
 * SRPT_DM_HDR_LEN bytes of @req is read" is enforced.  Checked: a response
 * is built exactly for DM requests (not responses) of at least 256 bytes
 * into at least 256 bytes; it echoes the request's header as IBA 13.4 and
 * 16.3 want; its status is the documented one per method, attribute and
 * modifier; its data area holds the attribute, laid out as in IBA 16.3.3,
 * when the status is 0 and is zero otherwise; nothing past 256 bytes of the
 * response is written; building in place gives the same response.
 */
#include <sanitizer/asan_interface.h>

#include "fuzz.h"
#include "../../srpt_mad.h"

enum {
	HDR_LEN		= 41,
	NO_ID_STRING	= 1 << 0,
	IN_PLACE	= 1 << 1,
};

/* The documented status of a DM request. */
static u16 expected_status(const u8 *mad)
{
	u16 attr = srpt_get_be16(mad + SRPT_DM_HDR_ATTR_ID);
	u32 mod = srpt_get_be32(mad + SRPT_DM_HDR_ATTR_MOD);
	u32 slot, lo, hi;

	if (mad[SRPT_DM_HDR_METHOD] == SRPT_DM_METHOD_SET)
		return SRPT_DM_STATUS_UNSUP_METHOD_ATTR;
	if (mad[SRPT_DM_HDR_METHOD] != SRPT_DM_METHOD_GET)
		return SRPT_DM_STATUS_UNSUP_METHOD;
	switch (attr) {
	case SRPT_DM_ATTR_CLASS_PORT_INFO:
	case SRPT_DM_ATTR_IOU_INFO:
		return SRPT_DM_STATUS_OK;
	case SRPT_DM_ATTR_IOC_PROFILE:
		slot = mod;
		break;
	case SRPT_DM_ATTR_SVC_ENTRIES:
		slot = mod >> 16;
		break;
	default:
		return SRPT_DM_STATUS_UNSUP_METHOD_ATTR;
	}
	if (slot < 1 || slot > SRPT_DM_MAX_CONTROLLERS)
		return SRPT_DM_STATUS_INVALID_FIELD;
	if (slot != SRPT_DM_IOC_SLOT)
		return SRPT_DM_STATUS_NO_IOC;
	if (attr == SRPT_DM_ATTR_IOC_PROFILE)
		return SRPT_DM_STATUS_OK;
	lo = mod & 0xff;
	hi = (mod >> 8) & 0xff;
	/* One service entry, number 0; a MAD carries at most four. */
	if (lo != 0 || hi != 0)
		return SRPT_DM_STATUS_INVALID_FIELD;
	return SRPT_DM_STATUS_OK;
}

static void check_ioc_profile(const u8 *d, const struct srpt_dm_info *info)
{
	size_t id_len = 0;

	if (info->id_string)
		id_len = strnlen(info->id_string, 63);
	FUZZ_CHECK(srpt_get_be64(d) == info->ioc_guid);
	FUZZ_CHECK(srpt_get_be32(d + 8) >> 8 == (info->vendor_id & 0xffffff));
	FUZZ_CHECK(d[11] == 0);
	FUZZ_CHECK(srpt_get_be32(d + 12) == info->device_id);
	FUZZ_CHECK(srpt_get_be16(d + 16) == info->device_version);
	FUZZ_CHECK(fuzz_all(d + 18, 2, 0));
	FUZZ_CHECK(srpt_get_be32(d + 20) >> 8 ==
		   (info->subsys_vendor_id & 0xffffff));
	FUZZ_CHECK(d[23] == 0);
	FUZZ_CHECK(srpt_get_be32(d + 24) == info->subsys_device_id);
	FUZZ_CHECK(srpt_get_be16(d + 28) == 0x0100);	/* SRP r16a B.7 */
	FUZZ_CHECK(srpt_get_be16(d + 30) == 0x609e);
	FUZZ_CHECK(srpt_get_be16(d + 32) == 0x0108);
	FUZZ_CHECK(srpt_get_be16(d + 34) == 0x0001);
	FUZZ_CHECK(fuzz_all(d + 36, 4, 0));
	FUZZ_CHECK(srpt_get_be16(d + 40) == info->send_queue_depth);
	FUZZ_CHECK(d[42] == 0);
	FUZZ_CHECK(d[43] == info->rdma_read_depth);
	FUZZ_CHECK(srpt_get_be32(d + 44) == info->send_size);
	FUZZ_CHECK(srpt_get_be32(d + 48) ==
		   (info->rdma_size < (1u << 24) ? info->rdma_size : 1u << 24));
	FUZZ_CHECK(d[52] == SRPT_DM_OP_CAPS && d[53] == 0);
	FUZZ_CHECK(d[54] == 1);				/* one service */
	FUZZ_CHECK(fuzz_all(d + 55, 9, 0));
	FUZZ_CHECK(memcmp(d + 64, info->id_string ? info->id_string : "",
			  id_len) == 0);
	/* NUL terminated and NUL padded, as srp_daemon prints it. */
	FUZZ_CHECK(fuzz_all(d + 64 + id_len, 64 - id_len, 0));
	FUZZ_CHECK(fuzz_all(d + 128, SRPT_DM_DATA_LEN - 128, 0));
}

static void check_svc_entries(const u8 *d, const struct srpt_dm_info *info)
{
	char name[41];

	snprintf(name, sizeof(name), "SRP.T10:%016llx",
		 (unsigned long long)info->ioc_guid);
	FUZZ_CHECK(memcmp(d, name, 24) == 0);
	FUZZ_CHECK(fuzz_all(d + 24, 16, 0));
	FUZZ_CHECK(srpt_get_be64(d + 40) == info->ioc_guid);
	FUZZ_CHECK(fuzz_all(d + 48, SRPT_DM_DATA_LEN - 48, 0));
}

static void check_data(const u8 *mad, const u8 *d,
		       const struct srpt_dm_info *info)
{
	unsigned int slot;

	switch (srpt_get_be16(mad + SRPT_DM_HDR_ATTR_ID)) {
	case SRPT_DM_ATTR_CLASS_PORT_INFO:
		FUZZ_CHECK(d[0] == 1 && d[1] == 1);
		FUZZ_CHECK(fuzz_all(d + 2, 2, 0));
		FUZZ_CHECK(srpt_get_be32(d + 4) == 20);	/* RespTimeValue */
		FUZZ_CHECK(fuzz_all(d + 8, SRPT_DM_DATA_LEN - 8, 0));
		break;
	case SRPT_DM_ATTR_IOU_INFO:
		FUZZ_CHECK(srpt_get_be16(d) == 1);	/* change id */
		FUZZ_CHECK(d[2] == 16 && d[3] == 0);
		/* Slot 1 present, in the high nibble of the first byte. */
		FUZZ_CHECK(d[4] == 0x10);
		for (slot = 2; slot <= 256; slot++)
			FUZZ_CHECK(srpt_dm_get_slot(d + 4, slot) ==
				   SRPT_DM_SLOT_EMPTY);
		FUZZ_CHECK(fuzz_all(d + 132, SRPT_DM_DATA_LEN - 132, 0));
		break;
	case SRPT_DM_ATTR_IOC_PROFILE:
		check_ioc_profile(d, info);
		break;
	case SRPT_DM_ATTR_SVC_ENTRIES:
		check_svc_entries(d, info);
		break;
	default:
		FUZZ_CHECK(!"status 0 for an unknown attribute");
	}
}

static void check_rsp(const u8 *mad, const u8 *rsp,
		      const struct srpt_dm_info *info)
{
	u16 status = expected_status(mad);

	FUZZ_CHECK(memcmp(rsp, mad, 3) == 0);
	FUZZ_CHECK(rsp[SRPT_DM_HDR_METHOD] == SRPT_DM_METHOD_GET_RESP);
	FUZZ_CHECK(srpt_get_be16(rsp + SRPT_DM_HDR_STATUS) == status);
	FUZZ_CHECK(fuzz_all(rsp + SRPT_DM_HDR_CLASS_SPECIFIC, 2, 0));
	FUZZ_CHECK(memcmp(rsp + SRPT_DM_HDR_TID, mad + SRPT_DM_HDR_TID, 8) == 0);
	FUZZ_CHECK(memcmp(rsp + SRPT_DM_HDR_ATTR_ID,
			  mad + SRPT_DM_HDR_ATTR_ID, 2) == 0);
	FUZZ_CHECK(fuzz_all(rsp + SRPT_DM_HDR_RESERVED, 2, 0));
	FUZZ_CHECK(memcmp(rsp + SRPT_DM_HDR_ATTR_MOD,
			  mad + SRPT_DM_HDR_ATTR_MOD, 4) == 0);
	FUZZ_CHECK(fuzz_all(rsp + SRPT_DM_HDR_LEN,
			    SRPT_DM_DATA_OFFSET - SRPT_DM_HDR_LEN, 0));
	if (status == SRPT_DM_STATUS_OK)
		check_data(mad, rsp + SRPT_DM_DATA_OFFSET, info);
	else
		FUZZ_CHECK(fuzz_all(rsp + SRPT_DM_DATA_OFFSET,
				    SRPT_DM_DATA_LEN, 0));
}

/* The parsed header says what the MAD says. */
static void check_parse(const u8 *mad, size_t len)
{
	struct srpt_dm_req r;
	int ret;

	memset(&r, 0x5a, sizeof(r));
	ret = srpt_dm_parse_req(mad, len, &r);
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(r.method == 0 && r.class_version == 0 &&
			   r.attr_id == 0 && r.attr_mod == 0 && r.tid == 0);
		return;
	}
	FUZZ_CHECK(r.method == mad[SRPT_DM_HDR_METHOD]);
	FUZZ_CHECK(!(r.method & SRPT_DM_METHOD_RESP));
	FUZZ_CHECK(r.class_version == mad[SRPT_DM_HDR_CLASS_VERSION]);
	FUZZ_CHECK(r.attr_id == srpt_get_be16(mad + SRPT_DM_HDR_ATTR_ID));
	FUZZ_CHECK(r.attr_mod == srpt_get_be32(mad + SRPT_DM_HDR_ATTR_MOD));
	FUZZ_CHECK(r.tid == srpt_get_be64(mad + SRPT_DM_HDR_TID));
}

/* Slots round trip through set and get, and touch only their nibble. */
static void check_slots(const u8 *mad)
{
	u8 list[SRPT_DM_IOU_CONTROLLER_LIST_LEN], before[sizeof(list)];
	unsigned int slot = mad[SRPT_DM_HDR_TID] + 1u;
	u8 v = mad[SRPT_DM_HDR_TID + 1];
	unsigned int s;

	memcpy(list, mad + SRPT_DM_HDR_LEN, SRPT_DM_HDR_LEN);
	memset(list + SRPT_DM_HDR_LEN, mad[0], sizeof(list) - SRPT_DM_HDR_LEN);
	memcpy(before, list, sizeof(list));
	srpt_dm_set_slot(list, slot, v);
	FUZZ_CHECK(srpt_dm_get_slot(list, slot) == (v & 0xf));
	for (s = 1; s <= 256; s++)
		if (s != slot)
			FUZZ_CHECK(srpt_dm_get_slot(list, s) ==
				   srpt_dm_get_slot(before, s));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct srpt_dm_info info;
	size_t rsp_len, id_len, len;
	u8 mode, *mad, *rsp;
	char *id;
	bool ok;
	int ret;

	if (size < HDR_LEN)
		return 0;
	memset(&info, 0, sizeof(info));
	info.ioc_guid = fuzz_get_be64(&in);
	info.vendor_id = fuzz_get_be32(&in);
	info.device_id = fuzz_get_be32(&in);
	info.device_version = fuzz_get_be16(&in);
	info.subsys_vendor_id = fuzz_get_be32(&in);
	info.subsys_device_id = fuzz_get_be32(&in);
	info.send_queue_depth = fuzz_get_be16(&in);
	info.rdma_read_depth = fuzz_get_u8(&in);
	info.send_size = fuzz_get_be32(&in);
	info.rdma_size = fuzz_get_be32(&in);
	rsp_len = fuzz_get_be16(&in);
	mode = fuzz_get_u8(&in);
	id_len = fuzz_get_u8(&in);
	id = fuzz_alloc(id_len + 1);
	fuzz_get_bytes(&in, id, id_len);
	id[id_len] = '\0';
	info.id_string = mode & NO_ID_STRING ? NULL : id;

	len = in.n;
	mad = fuzz_dup(in.p, len);
	if (len >= SRPT_DM_MAD_SIZE)
		check_slots(mad);
	check_parse(mad, len);
	if (len > SRPT_DM_HDR_LEN)
		ASAN_POISON_MEMORY_REGION(mad + SRPT_DM_HDR_LEN,
					  len - SRPT_DM_HDR_LEN);

	ok = len >= SRPT_DM_MAD_SIZE && rsp_len >= SRPT_DM_MAD_SIZE &&
	     mad[SRPT_DM_HDR_MGMT_CLASS] == SRPT_DM_MGMT_CLASS &&
	     !(mad[SRPT_DM_HDR_METHOD] & SRPT_DM_METHOD_RESP);
	rsp = fuzz_guarded(rsp_len);
	ret = srpt_dm_build_response(mad, len, rsp, rsp_len, &info);
	FUZZ_CHECK(ok ? ret == 0 : ret == -EINVAL);
	if (!ok) {
		FUZZ_CHECK(fuzz_untouched_from(rsp, 0, rsp_len));
		goto out;
	}
	FUZZ_CHECK(fuzz_untouched_from(rsp, SRPT_DM_MAD_SIZE, rsp_len));
	check_rsp(mad, rsp, &info);

	if (mode & IN_PLACE) {
		u8 *buf = fuzz_alloc(SRPT_DM_MAD_SIZE);

		memcpy(buf, mad, SRPT_DM_HDR_LEN);
		memset(buf + SRPT_DM_HDR_LEN, FUZZ_FILL,
		       SRPT_DM_MAD_SIZE - SRPT_DM_HDR_LEN);
		FUZZ_CHECK(srpt_dm_build_response(buf, SRPT_DM_MAD_SIZE, buf,
						  SRPT_DM_MAD_SIZE, &info) == 0);
		FUZZ_CHECK(memcmp(buf, rsp, SRPT_DM_MAD_SIZE) == 0);
		free(buf);
	}
out:
	if (len > SRPT_DM_HDR_LEN)
		ASAN_UNPOISON_MEMORY_REGION(mad + SRPT_DM_HDR_LEN,
					    len - SRPT_DM_HDR_LEN);
	free(mad);
	free(rsp);
	free(id);
	return 0;
}
