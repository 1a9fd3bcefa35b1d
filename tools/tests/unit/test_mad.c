// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the Device Management agent in srpt_mad.h.
 *
 * Requests are handed over as heap copies of exactly the bytes that
 * "arrived" and responses are built into heap buffers of exactly 256 bytes,
 * so that AddressSanitizer catches a read or write past either.  The
 * expected attribute images are written out byte by byte from the layouts
 * in IBA vol 1 13.4.8.1 (ClassPortInfo) and 16.3.3.3 to 16.3.3.5
 * (IOUnitInfo, IOControllerProfile, ServiceEntries).
 */
#include <stdlib.h>

#include "srpt_kcompat.h"
#include "../../../srpt_mad.h"
#include "tap.h"

#define GUID 0x505400fffe4a0b7bULL
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const u8 tid_bytes[8] = { 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04 };

static const struct srpt_dm_info info = {
	.ioc_guid = GUID,
	.vendor_id = 0x0002c9,
	.device_id = 0x1003,
	.device_version = 0x00a0,
	.subsys_vendor_id = 0x0002c9,
	.subsys_device_id = 0x12345678,
	.send_queue_depth = 4095,
	.rdma_read_depth = 4,
	.send_size = 8260,
	.rdma_size = 1 << 20,
	.id_string = "Linux SRP target",
};

/* ClassPortInfo: versions 1, RespTimeValue 20 in bits 4..0 of word 1. */
static const u8 cpi_image[SRPT_DM_CPI_LEN] = {
	0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14,
};

/* IOUnitInfo: change id 1, 16 slots, slot 1 present (high nibble). */
static const u8 iou_image[SRPT_DM_IOU_LEN] = {
	0x00, 0x01, 0x10, 0x00,
	0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* IOControllerProfile of @info. */
static const u8 ioc_image[SRPT_DM_IOC_LEN] = {
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b,	/* 0 guid */
	0x00, 0x02, 0xc9, 0x00,				/* 8 vendor id, rsvd */
	0x00, 0x00, 0x10, 0x03,				/* 12 device id */
	0x00, 0xa0, 0x00, 0x00,				/* 16 version, rsvd */
	0x00, 0x02, 0xc9, 0x00,				/* 20 subsys vendor */
	0x12, 0x34, 0x56, 0x78,				/* 24 subsys id */
	0x01, 0x00, 0x60, 0x9e,				/* 28 class, subclass */
	0x01, 0x08, 0x00, 0x01,				/* 32 protocol, ver */
	0x00, 0x00, 0x00, 0x00,				/* 36 reserved */
	0x0f, 0xff, 0x00, 0x04,				/* 40 sq depth, rd */
	0x00, 0x00, 0x20, 0x44,				/* 44 send size */
	0x00, 0x10, 0x00, 0x00,				/* 48 rdma size */
	0x2b, 0x00, 0x01, 0x00,				/* 52 caps, svc ents */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* 56 reserved */
	'L', 'i', 'n', 'u', 'x', ' ', 'S', 'R',		/* 64 id string */
	'P', ' ', 't', 'a', 'r', 'g', 'e', 't',
};

/* ServiceEntries 0..0: one entry, then three empty ones. */
static const u8 svc_image[SRPT_DM_DATA_LEN] = {
	'S', 'R', 'P', '.', 'T', '1', '0', ':',
	'5', '0', '5', '4', '0', '0', 'f', 'f',
	'f', 'e', '4', 'a', '0', 'b', '7', 'b',
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b,
};

static u8 req[512];
static u8 *heap, *rsp;

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

/* A DM request as srp_daemon's init_srp_dm_mad() builds it, plus noise. */
static void make_req(u8 method, u16 attr_id, u32 attr_mod)
{
	memset(req, 0x5a, sizeof(req));
	req[SRPT_DM_HDR_BASE_VERSION] = 1;
	req[SRPT_DM_HDR_MGMT_CLASS] = SRPT_DM_MGMT_CLASS;
	req[SRPT_DM_HDR_CLASS_VERSION] = 1;
	req[SRPT_DM_HDR_METHOD] = method;
	srpt_put_be16(req + SRPT_DM_HDR_STATUS, 0x8000);
	srpt_put_be16(req + SRPT_DM_HDR_CLASS_SPECIFIC, 0x1234);
	memcpy(req + SRPT_DM_HDR_TID, tid_bytes, 8);
	srpt_put_be16(req + SRPT_DM_HDR_ATTR_ID, attr_id);
	srpt_put_be16(req + SRPT_DM_HDR_RESERVED, 0xbeef);
	srpt_put_be32(req + SRPT_DM_HDR_ATTR_MOD, attr_mod);
}

/* Answer req (its first @len bytes) into the 256-byte heap buffer rsp. */
static int respond(size_t len)
{
	memset(rsp, 0xa5, SRPT_DM_MAD_SIZE);
	return srpt_dm_build_response(in_heap(req, len), len, rsp,
				      SRPT_DM_MAD_SIZE, &info);
}

static int get(u8 method, u16 attr_id, u32 attr_mod)
{
	make_req(method, attr_id, attr_mod);
	return respond(SRPT_DM_MAD_SIZE);
}

static u16 rsp_status(void)
{
	return srpt_get_be16(rsp + SRPT_DM_HDR_STATUS);
}

static const u8 *data(void)
{
	return rsp + SRPT_DM_DATA_OFFSET;
}

/* Whether rsp is a GetResp() with @status and an all-zero data area. */
static bool is_error(u16 status)
{
	return rsp[SRPT_DM_HDR_METHOD] == SRPT_DM_METHOD_GET_RESP &&
	       rsp_status() == status &&
	       all_bytes(rsp + SRPT_DM_HDR_LEN,
			 SRPT_DM_MAD_SIZE - SRPT_DM_HDR_LEN, 0);
}

/* ------------------------------------------------------------------------ */
/* Response header.                                                         */
/* ------------------------------------------------------------------------ */

static void test_header(void)
{
	u8 big[300];
	int ret;

	ret = get(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_CLASS_PORT_INFO, 0);
	tap_ok(ret == 0, "header: Get(ClassPortInfo) answered");
	tap_ok(rsp[SRPT_DM_HDR_METHOD] == 0x81, "header: method GetResp 0x81");
	tap_ok(rsp_status() == SRPT_DM_STATUS_OK,
	       "header: status 0, request's status bits not echoed");
	tap_ok(rsp[0] == 1 && rsp[1] == 0x06 && rsp[2] == 1,
	       "header: base version, class 0x06, class version echoed");
	tap_ok(memcmp(rsp + 8, tid_bytes, 8) == 0,
	       "header: transaction id echoed byte for byte");
	tap_ok(rsp[16] == 0x00 && rsp[17] == 0x01,
	       "header: attribute id echoed at 16");
	make_req(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_IOC_PROFILE, 1);
	ret = respond(SRPT_DM_MAD_SIZE);
	tap_ok(ret == 0 && rsp[20] == 0 && rsp[21] == 0 && rsp[22] == 0 &&
	       rsp[23] == 1 && rsp[16] == 0x00 && rsp[17] == 0x11,
	       "header: attribute modifier echoed at 20 (be32)");
	tap_ok(srpt_get_be16(rsp + SRPT_DM_HDR_CLASS_SPECIFIC) == 0 &&
	       srpt_get_be16(rsp + SRPT_DM_HDR_RESERVED) == 0,
	       "header: reserved ClassSpecific and reserved field zeroed");
	tap_ok(all_bytes(rsp + 24, 40, 0),
	       "header: the 40 reserved bytes after the header are zero");

	make_req(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_IOU_INFO, 0);
	memset(big, 0xa5, sizeof(big));
	ret = srpt_dm_build_response(in_heap(req, 512), 512, big, sizeof(big),
				     &info);
	tap_ok(ret == 0 && all_bytes(big + 256, 44, 0xa5) &&
	       memcmp(big + 64, iou_image, sizeof(iou_image)) == 0,
	       "header: 512-byte request, 300-byte buffer: 256 bytes written");

	make_req(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_IOC_PROFILE, 1);
	memcpy(big, req, 256);
	ret = srpt_dm_build_response(big, 256, big, 256, &info);
	respond(256);
	tap_ok(ret == 0 && memcmp(big, rsp, 256) == 0,
	       "header: response built in place over the request");
}

/* ------------------------------------------------------------------------ */
/* Lengths and classes refused.                                             */
/* ------------------------------------------------------------------------ */

static void test_refused(void)
{
	static const u8 classes[] = { 0x01, 0x81, 0x03, 0x04, 0x07, 0x00 };
	static const size_t lens[] = { 0, 23, 255 };
	static const u8 resp_methods[] = { 0x81, 0x86, 0x80, 0xff };
	u8 small[255];
	size_t i;
	int ret;

	make_req(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_CLASS_PORT_INFO, 0);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		ret = respond(lens[i]);
		tap_ok(ret == -EINVAL && all_bytes(rsp, 256, 0xa5),
		       "refused: %zu-byte request, nothing written", lens[i]);
	}
	ret = respond(256);
	tap_ok(ret == 0, "refused: but exactly 256 bytes answered");

	memset(small, 0xa5, sizeof(small));
	ret = srpt_dm_build_response(in_heap(req, 256), 256, small,
				     sizeof(small), &info);
	tap_ok(ret == -EINVAL && all_bytes(small, sizeof(small), 0xa5),
	       "refused: 255-byte response buffer, nothing written");

	for (i = 0; i < sizeof(classes); i++) {
		make_req(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_CLASS_PORT_INFO, 0);
		req[SRPT_DM_HDR_MGMT_CLASS] = classes[i];
		ret = respond(256);
		tap_ok(ret == -EINVAL && all_bytes(rsp, 256, 0xa5),
		       "refused: class 0x%02x is not Device Management",
		       classes[i]);
	}

	for (i = 0; i < sizeof(resp_methods); i++) {
		ret = get(resp_methods[i], SRPT_DM_ATTR_CLASS_PORT_INFO, 0);
		tap_ok(ret == -EINVAL && all_bytes(rsp, 256, 0xa5),
		       "refused: method 0x%02x is a response, never answered",
		       resp_methods[i]);
	}
}

/* ------------------------------------------------------------------------ */
/* Request decoding.                                                        */
/* ------------------------------------------------------------------------ */

static void test_parse(void)
{
	struct srpt_dm_req r;
	int ret;

	make_req(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_SVC_ENTRIES, 0x00010300);
	ret = srpt_dm_parse_req(in_heap(req, 256), 256, &r);
	tap_ok(ret == 0 && r.method == 1 && r.class_version == 1 &&
	       r.attr_id == 0x12 && r.attr_mod == 0x00010300 &&
	       r.tid == 0xdeadbeef01020304ULL,
	       "parse: method, class version, attribute, modifier, tid");
	memset(&r, 0xa5, sizeof(r));
	ret = srpt_dm_parse_req(in_heap(req, 255), 255, &r);
	tap_ok(ret == -EINVAL && all_bytes(&r, sizeof(r), 0),
	       "parse: 255 bytes refused, request zeroed");
	req[SRPT_DM_HDR_MGMT_CLASS] = 0x03;
	memset(&r, 0xa5, sizeof(r));
	ret = srpt_dm_parse_req(in_heap(req, 256), 256, &r);
	tap_ok(ret == -EINVAL && all_bytes(&r, sizeof(r), 0),
	       "parse: SA class refused, request zeroed");
}

/* ------------------------------------------------------------------------ */
/* Methods.                                                                 */
/* ------------------------------------------------------------------------ */

static void test_methods(void)
{
	static const u8 other[] = { 0x00, 0x03, 0x05, 0x06, 0x07, 0x12, 0x7f };
	static const u16 attrs[] = { 0x0001, 0x0010, 0x0011, 0x0012 };
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		ret = get(SRPT_DM_METHOD_SET, attrs[i], 0x00010000);
		tap_ok(ret == 0 && is_error(SRPT_DM_STATUS_UNSUP_METHOD_ATTR),
		       "method: Set(0x%04x) is UNSUP_METHOD_ATTR 0x000c, no data",
		       attrs[i]);
	}
	for (i = 0; i < sizeof(other); i++) {
		ret = get(other[i], SRPT_DM_ATTR_IOU_INFO, 0);
		tap_ok(ret == 0 && is_error(SRPT_DM_STATUS_UNSUP_METHOD),
		       "method: 0x%02x is UNSUP_METHOD 0x0008", other[i]);
	}
	ret = get(SRPT_DM_METHOD_SET, SRPT_DM_ATTR_IOU_INFO, 0);
	tap_ok(ret == 0 && memcmp(rsp + 8, tid_bytes, 8) == 0 &&
	       rsp[17] == 0x10, "method: error responses echo tid and attribute");
}

/* ------------------------------------------------------------------------ */
/* Attributes.                                                              */
/* ------------------------------------------------------------------------ */

static void test_unknown_attrs(void)
{
	static const u16 attrs[] = { 0x0000, 0x0002, 0x0003, 0x0013,
				     0x0020, 0x0024, 0xff00, 0xffff };
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		ret = get(SRPT_DM_METHOD_GET, attrs[i], 1);
		tap_ok(ret == 0 && is_error(SRPT_DM_STATUS_UNSUP_METHOD_ATTR),
		       "attr: Get(0x%04x) is UNSUP_METHOD_ATTR", attrs[i]);
	}
}

static void test_class_port_info(void)
{
	u8 d[SRPT_DM_DATA_LEN];

	get(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_CLASS_PORT_INFO, 0);
	tap_ok(memcmp(data(), cpi_image, sizeof(cpi_image)) == 0 &&
	       all_bytes(data() + 72, 192 - 72, 0),
	       "cpi: 72-byte image, rest of the data area zero");
	tap_ok(data()[0] == 1 && data()[1] == 1,
	       "cpi: BaseVersion 1 at 0, ClassVersion 1 at 1");
	tap_ok(srpt_get_be16(data() + 2) == 0,
	       "cpi: CapabilityMask 0 at 2 (no traps, no notices)");
	tap_ok((srpt_get_be32(data() + 4) & 0x1f) == 20 &&
	       srpt_get_be32(data() + 4) >> 5 == 0,
	       "cpi: RespTimeValue 20 in bits 4..0, CapabilityMask2 0");
	tap_ok(all_bytes(data() + 8, 64, 0),
	       "cpi: no redirection, no trap destination");
	memset(d, 0xa5, sizeof(d));
	srpt_dm_build_class_port_info(d);
	tap_ok(memcmp(d, cpi_image, 72) == 0 && all_bytes(d + 72, 120, 0xa5),
	       "cpi: builder writes exactly 72 bytes");
}

/* srp_daemon's reading of slot i + 1: (list[i / 2] >> (4 * (1 - i % 2))) */
static unsigned int daemon_slot(const u8 *list, int i)
{
	return (list[i / 2] >> (4 * (1 - i % 2))) & 0xf;
}

static void test_iou_info(void)
{
	const u8 *list;
	u8 l[128];
	bool ok;
	int i;

	get(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_IOU_INFO, 0);
	list = data() + 4;
	tap_ok(rsp_status() == 0 &&
	       memcmp(data(), iou_image, sizeof(iou_image)) == 0 &&
	       all_bytes(data() + 132, 192 - 132, 0),
	       "iou: 132-byte image, rest of the data area zero");
	tap_ok(srpt_get_be16(data()) == 1, "iou: ChangeID 1 at 0 (be16)");
	tap_ok(data()[2] == 16, "iou: MaxControllers 16 at 2");
	tap_ok(data()[3] == 0, "iou: no DiagDeviceID, no option ROM at 3");
	tap_ok(list[0] == 0x10, "iou: slot 1 present in the high nibble of byte 4");
	ok = daemon_slot(list, 0) == SRPT_DM_SLOT_PRESENT;
	for (i = 1; i < data()[2]; i++)
		ok = ok && daemon_slot(list, i) == SRPT_DM_SLOT_EMPTY;
	tap_ok(ok, "iou: srp_daemon reads slot 1 present, slots 2..16 empty");
	tap_ok(all_bytes(list + 1, 127, 0), "iou: rest of the list zero");

	memset(l, 0, sizeof(l));
	srpt_dm_set_slot(l, 1, 0x1);
	srpt_dm_set_slot(l, 2, 0xf);
	srpt_dm_set_slot(l, 3, 0x3);
	srpt_dm_set_slot(l, 256, 0x1f);
	tap_ok(l[0] == 0x1f && l[1] == 0x30 && l[127] == 0x0f &&
	       srpt_dm_get_slot(l, 1) == 1 && srpt_dm_get_slot(l, 2) == 0xf &&
	       srpt_dm_get_slot(l, 3) == 3 && srpt_dm_get_slot(l, 4) == 0 &&
	       srpt_dm_get_slot(l, 256) == 0xf,
	       "iou: slot nibbles, odd high, even low, value masked to 4 bits");
	srpt_dm_set_slot(l, 1, 0x0);
	tap_ok(l[0] == 0x0f, "iou: setting slot 1 keeps slot 2");
}

static void test_ioc_profile(void)
{
	struct srpt_dm_info i2 = info;
	char long_id[101];
	u8 d[SRPT_DM_DATA_LEN];
	int ret;

	ret = get(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_IOC_PROFILE, 1);
	tap_ok(ret == 0 && rsp_status() == 0 &&
	       memcmp(data(), ioc_image, sizeof(ioc_image)) == 0 &&
	       all_bytes(data() + 128, 64, 0),
	       "ioc: slot 1: 128-byte image, rest of the data area zero");
	tap_ok(srpt_get_be64(data()) == GUID, "ioc: GUID at 0 (be64)");
	tap_ok(data()[8] == 0x00 && data()[9] == 0x02 && data()[10] == 0xc9 &&
	       data()[11] == 0 && srpt_get_be32(data() + 8) >> 8 == 0x0002c9,
	       "ioc: VendorID in bytes 8..10, byte 11 reserved (be32 >> 8)");
	tap_ok(srpt_get_be32(data() + 12) == 0x1003, "ioc: DeviceID at 12");
	tap_ok(srpt_get_be16(data() + 16) == 0xa0 && data()[18] == 0 &&
	       data()[19] == 0, "ioc: DeviceVersion at 16, 18..19 reserved");
	tap_ok(srpt_get_be32(data() + 20) >> 8 == 0x0002c9 && data()[23] == 0,
	       "ioc: SubsystemVendorID in bytes 20..22, 23 reserved");
	tap_ok(srpt_get_be32(data() + 24) == 0x12345678,
	       "ioc: SubsystemID at 24");
	tap_ok(srpt_get_be16(data() + 28) == 0x0100 &&
	       srpt_get_be16(data() + 30) == 0x609e,
	       "ioc: IOClass 0x0100 (SRP r16a) at 28, IOSubclass 0x609e at 30");
	tap_ok(srpt_get_be16(data() + 32) == 0x0108 &&
	       srpt_get_be16(data() + 34) == 0x0001 &&
	       all_bytes(data() + 36, 4, 0),
	       "ioc: Protocol 0x0108 at 32, ProtocolVersion 1 at 34, 36..39 reserved");
	tap_ok(srpt_get_be16(data() + 40) == 4095 && data()[42] == 0 &&
	       data()[43] == 4,
	       "ioc: SendMessageDepth at 40, RDMAReadDepth at 43");
	tap_ok(srpt_get_be32(data() + 44) == 8260,
	       "ioc: SendMessageSize (srp_max_req_size) at 44");
	tap_ok(srpt_get_be32(data() + 48) == 1 << 20,
	       "ioc: RDMATransferSize at 48");
	tap_ok(data()[52] == 0x2b &&
	       data()[52] == (SRPT_DM_OP_SEND_TO_IOC | SRPT_DM_OP_SEND_FROM_IOC |
			      SRPT_DM_OP_RDMA_READ_FROM_IOC |
			      SRPT_DM_OP_RDMA_WRITE_FROM_IOC),
	       "ioc: ControllerOperationsCapabilityMask ST|SF|RF|WF = 0x2b at 52");
	tap_ok(data()[53] == 0 && data()[54] == 1 && all_bytes(data() + 55, 9, 0),
	       "ioc: ServiceEntries 1 at 54, 53 and 55..63 reserved");
	tap_ok(strcmp((const char *)data() + 64, "Linux SRP target") == 0 &&
	       all_bytes(data() + 64 + 16, 48, 0),
	       "ioc: IDString at 64, NUL padded to 64 bytes");

	i2.vendor_id = 0xff123456;
	i2.subsys_vendor_id = 0xee654321;
	i2.rdma_size = 1 << 25;
	memset(d, 0xa5, sizeof(d));
	srpt_dm_build_ioc_profile(d, &i2);
	tap_ok(d[8] == 0x12 && d[9] == 0x34 && d[10] == 0x56 && d[11] == 0 &&
	       d[20] == 0x65 && d[21] == 0x43 && d[22] == 0x21 && d[23] == 0,
	       "ioc: vendor ids keep 24 bits");
	tap_ok(srpt_get_be32(d + 48) == 1 << 24,
	       "ioc: RDMATransferSize capped at 16 MiB");
	tap_ok(all_bytes(d + 128, 64, 0xa5),
	       "ioc: builder writes exactly 128 bytes");
	i2.rdma_size = 1 << 24;
	srpt_dm_build_ioc_profile(d, &i2);
	tap_ok(srpt_get_be32(d + 48) == 1 << 24, "ioc: 16 MiB itself kept");
	i2.rdma_size = 0xffffffff;
	srpt_dm_build_ioc_profile(d, &i2);
	tap_ok(srpt_get_be32(d + 48) == 1 << 24, "ioc: 4 GiB - 1 capped");

	memset(long_id, 'x', 100);
	long_id[100] = '\0';
	i2.id_string = long_id;
	srpt_dm_build_ioc_profile(d, &i2);
	tap_ok(all_bytes(d + 64, 63, 'x') && d[127] == 0,
	       "ioc: 100-byte id string cut to 63 bytes and a NUL");
	long_id[63] = '\0';
	srpt_dm_build_ioc_profile(d, &i2);
	tap_ok(all_bytes(d + 64, 63, 'x') && d[127] == 0,
	       "ioc: 63-byte id string fits whole");
	i2.id_string = NULL;
	srpt_dm_build_ioc_profile(d, &i2);
	tap_ok(all_bytes(d + 64, 64, 0), "ioc: no id string, field zero");
}

static void test_ioc_slots(void)
{
	static const struct {
		u32 slot;
		u16 status;
	} cases[] = {
		{ 0, SRPT_DM_STATUS_INVALID_FIELD },
		{ 2, SRPT_DM_STATUS_NO_IOC },
		{ 3, SRPT_DM_STATUS_NO_IOC },
		{ 16, SRPT_DM_STATUS_NO_IOC },
		{ 17, SRPT_DM_STATUS_INVALID_FIELD },
		{ 0x00010001, SRPT_DM_STATUS_INVALID_FIELD },
		{ 0xffffffff, SRPT_DM_STATUS_INVALID_FIELD },
	};
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ret = get(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_IOC_PROFILE,
			  cases[i].slot);
		tap_ok(ret == 0 && is_error(cases[i].status),
		       "ioc slot %#x: status %#06x, no data", cases[i].slot,
		       cases[i].status);
	}
}

static void test_svc_entries(void)
{
	static const struct {
		u32 attr_mod;
		u16 status;
		const char *what;
	} cases[] = {
		{ 0x00000000, SRPT_DM_STATUS_INVALID_FIELD, "slot 0" },
		{ 0x00020000, SRPT_DM_STATUS_NO_IOC, "slot 2" },
		{ 0x00100000, SRPT_DM_STATUS_NO_IOC, "slot 16" },
		{ 0x00110000, SRPT_DM_STATUS_INVALID_FIELD, "slot 17" },
		{ 0xffff0000, SRPT_DM_STATUS_INVALID_FIELD, "slot 0xffff" },
		{ 0x00020100, SRPT_DM_STATUS_NO_IOC,
		  "slot 2 with a bad range: the slot decides" },
		{ 0x00010001, SRPT_DM_STATUS_INVALID_FIELD, "hi 0 < lo 1" },
		{ 0x00010100, SRPT_DM_STATUS_INVALID_FIELD, "entries 0..1" },
		{ 0x00010300, SRPT_DM_STATUS_INVALID_FIELD, "entries 0..3" },
		{ 0x00010101, SRPT_DM_STATUS_INVALID_FIELD, "entry 1 only" },
		{ 0x0001ffff, SRPT_DM_STATUS_INVALID_FIELD, "entry 255 only" },
		{ 0x0001ff00, SRPT_DM_STATUS_INVALID_FIELD, "entries 0..255" },
	};
	char id_ext[17], *end;
	u8 d[SRPT_DM_DATA_LEN];
	size_t i;
	int ret;

	/* srp_daemon asks for (ioc << 16) | (min(j + 3, n - 1) << 8) | j. */
	ret = get(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_SVC_ENTRIES,
		  1 << 16 | 0 << 8 | 0);
	tap_ok(ret == 0 && rsp_status() == 0 &&
	       memcmp(data(), svc_image, sizeof(svc_image)) == 0,
	       "svc: slot 1 entries 0..0: 192-byte image");
	tap_ok(memcmp(data(), "SRP.T10:505400fffe4a0b7b", 24) == 0 &&
	       all_bytes(data() + 24, 16, 0),
	       "svc: name \"SRP.T10:\" + 16 lowercase hex digits, NUL padded to 40");
	tap_ok(srpt_get_be64(data() + 40) == GUID,
	       "svc: ServiceID = ioc_guid at 40 (be64)");
	tap_ok(all_bytes(data() + 48, 144, 0), "svc: entries 2..4 of the MAD zero");
	tap_ok(sscanf((const char *)data(), "SRP.T10:%16s", id_ext) == 1 &&
	       strtoull(id_ext, &end, 16) == GUID && *end == '\0',
	       "svc: srp_daemon's sscanf finds id_ext = ioc_guid");

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ret = get(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_SVC_ENTRIES,
			  cases[i].attr_mod);
		tap_ok(ret == 0 && is_error(cases[i].status),
		       "svc 0x%08x (%s): status %#06x, no data",
		       cases[i].attr_mod, cases[i].what, cases[i].status);
	}

	memset(d, 0xa5, sizeof(d));
	srpt_dm_build_svc_entries(d, &info, 0, 3);
	tap_ok(memcmp(d, svc_image, sizeof(svc_image)) == 0,
	       "svc: builder asked for 0..3 writes entry 0, zeroes the rest");
	memset(d, 0xa5, sizeof(d));
	srpt_dm_build_svc_entries(d, &info, 1, 255);
	tap_ok(all_bytes(d, sizeof(d), 0),
	       "svc: builder asked for 1..255 writes no entry");
	tap_ok(srpt_dm_svc_entries_status(0x00010000) == 0 &&
	       srpt_dm_ioc_slot_status(1) == 0,
	       "svc: status helpers accept slot 1 entry 0");

	srpt_dm_format_svc_name((char *)d, 0xABCDEF0123456789ULL);
	tap_ok(memcmp(d, "SRP.T10:abcdef0123456789", 25) == 0 &&
	       all_bytes(d + 25, 15, 0),
	       "svc: name digits lowercase, whole 40 bytes written");
}

/* ------------------------------------------------------------------------ */
/* Discovery as srp_daemon/ibsrpdm do it, through the response builder.     */
/* ------------------------------------------------------------------------ */

static void test_discovery(void)
{
	char target[256], want[256], id_ext[17];
	u8 prof[SRPT_DM_IOC_LEN], list[128];
	unsigned int max, slot, n = 0;
	u64 ioc_guid = 0, service_id = 0;

	get(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_IOU_INFO, 0);
	if (rsp_status() != 0)
		goto out;
	max = data()[2];
	memcpy(list, data() + 4, sizeof(list));
	for (slot = 0; slot < max; slot++) {
		if (daemon_slot(list, (int)slot) != SRPT_DM_SLOT_PRESENT)
			continue;
		get(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_IOC_PROFILE, slot + 1);
		if (rsp_status() != 0)
			continue;
		memcpy(prof, data(), sizeof(prof));
		ioc_guid = srpt_get_be64(prof);
		get(SRPT_DM_METHOD_GET, SRPT_DM_ATTR_SVC_ENTRIES,
		    (slot + 1) << 16 | (u32)(prof[54] - 1) << 8 | 0);
		if (rsp_status() != 0 ||
		    sscanf((const char *)data(), "SRP.T10:%16s", id_ext) != 1)
			continue;
		service_id = srpt_get_be64(data() + 40);
		n++;
	}
out:
	tap_ok(n == 1, "discovery: one SRP target found");
	if (n != 1)
		return;
	snprintf(target, sizeof(target),
		 "id_ext=%s,ioc_guid=%016llx,service_id=%016llx%s", id_ext,
		 (unsigned long long)ioc_guid, (unsigned long long)service_id,
		 srpt_get_be16(prof + 28) == 0x0100 ? "" : ",io_class=?");
	snprintf(want, sizeof(want), "id_ext=%016llx,ioc_guid=%016llx,service_id=%016llx",
		 GUID, GUID, GUID);
	tap_ok(strcmp(target, want) == 0,
	       "discovery: srp_daemon's target string: %s", target);
}

int main(void)
{
	rsp = malloc(SRPT_DM_MAD_SIZE);
	if (!rsp)
		abort();
	test_header();
	test_refused();
	test_parse();
	test_methods();
	test_unknown_attrs();
	test_class_port_info();
	test_iou_info();
	test_ioc_profile();
	test_ioc_slots();
	test_svc_entries();
	test_discovery();
	free(rsp);
	free(heap);
	return tap_done();
}
