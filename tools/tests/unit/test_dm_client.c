// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the Device Management client's side of srpt_mad.h (what
 * srp-probe --dm uses): its requests are answered by the agent's own
 * srpt_dm_build_response(), and its decoders read back what the agent's
 * builders wrote.  Heap buffers of exact sizes, for AddressSanitizer.
 */
#include <stdlib.h>

#include "srpt_kcompat.h"
#include "../../../srpt_mad.h"
#include "tap.h"

#define GUID 0x505400fffe4a0b7bULL

static const u8 tid[8] = { 0x00, 0x00, 0x00, 0x07, 0xca, 0xfe, 0x00, 0x01 };

static const struct srpt_dm_info info = {
	.ioc_guid = GUID,
	.vendor_id = 0x0002c9,
	.device_id = 0x1003,
	.device_version = 0x00a0,
	.subsys_vendor_id = 0x0002c9,
	.subsys_device_id = 0x12345678,
	.send_queue_depth = 126,
	.rdma_read_depth = 4,
	.send_size = 8260,
	.rdma_size = 1 << 20,
	.id_string = "Linux SRP target",
};

static u8 *mad(void)
{
	u8 *b = malloc(SRPT_DM_MAD_SIZE);

	if (!b)
		abort();
	memset(b, 0xee, SRPT_DM_MAD_SIZE);
	return b;
}

/* Build a Get() with the client's builder, answer it with the agent's. */
static u16 ask(u16 attr, u32 mod, u8 *req, u8 *rsp)
{
	u16 status = 0xffff;

	if (srpt_dm_build_get(req, SRPT_DM_MAD_SIZE, attr, mod, tid) !=
	    SRPT_DM_MAD_SIZE ||
	    srpt_dm_build_response(req, SRPT_DM_MAD_SIZE, rsp,
				   SRPT_DM_MAD_SIZE, &info) ||
	    srpt_dm_check_rsp(rsp, SRPT_DM_MAD_SIZE, req, &status))
		return 0xffff;
	return status;
}

static void test_get(void)
{
	u8 *req = mad(), *small = malloc(SRPT_DM_MAD_SIZE - 1);
	struct srpt_dm_req r;

	tap_ok(srpt_dm_build_get(req, SRPT_DM_MAD_SIZE, SRPT_DM_ATTR_IOC_PROFILE,
				 1, tid) == SRPT_DM_MAD_SIZE &&
	       !srpt_dm_parse_req(req, SRPT_DM_MAD_SIZE, &r) &&
	       r.method == SRPT_DM_METHOD_GET && r.class_version == 1 &&
	       r.attr_id == SRPT_DM_ATTR_IOC_PROFILE && r.attr_mod == 1 &&
	       r.tid == 0x00000007cafe0001ULL,
	       "Get(): the agent's parser reads method, attribute, modifier, tid");
	tap_ok(req[0] == 1 && req[1] == 0x06 && req[4] == 0 && req[5] == 0 &&
	       req[SRPT_DM_DATA_OFFSET] == 0 && req[255] == 0,
	       "Get(): base version 1, class 0x06, status and data zero");
	memset(small, 0xee, SRPT_DM_MAD_SIZE - 1);
	tap_ok(srpt_dm_build_get(small, SRPT_DM_MAD_SIZE - 1, 1, 0, tid) == 0 &&
	       small[0] == 0xee, "Get(): 255-byte buffer refused");
	free(req);
	free(small);
}

static void test_check_rsp(void)
{
	u8 *req = mad(), *rsp = mad();
	u16 status;

	tap_ok(ask(SRPT_DM_ATTR_CLASS_PORT_INFO, 0, req, rsp) == 0,
	       "ClassPortInfo answer recognised, status 0");
	rsp[SRPT_DM_HDR_TID + 7] ^= 1;
	tap_ok(srpt_dm_check_rsp(rsp, SRPT_DM_MAD_SIZE, req, &status) == -EINVAL,
	       "an answer with another transaction id refused");
	rsp[SRPT_DM_HDR_TID + 7] ^= 1;
	rsp[SRPT_DM_HDR_ATTR_MOD + 3] ^= 1;
	tap_ok(srpt_dm_check_rsp(rsp, SRPT_DM_MAD_SIZE, req, &status) == -EINVAL,
	       "an answer with another attribute modifier refused");
	rsp[SRPT_DM_HDR_ATTR_MOD + 3] ^= 1;
	rsp[SRPT_DM_HDR_METHOD] = SRPT_DM_METHOD_GET;
	tap_ok(srpt_dm_check_rsp(rsp, SRPT_DM_MAD_SIZE, req, &status) == -EINVAL,
	       "a request is no answer");
	rsp[SRPT_DM_HDR_METHOD] = SRPT_DM_METHOD_GET_RESP;
	tap_ok(srpt_dm_check_rsp(rsp, SRPT_DM_MAD_SIZE - 1, req, &status) ==
	       -EINVAL, "255 bytes are no answer");
	tap_ok(ask(SRPT_DM_ATTR_IOC_PROFILE, 2, req, rsp) == SRPT_DM_STATUS_NO_IOC,
	       "IOControllerProfile of empty slot 2: status 'no IOC'");
	tap_ok(ask(0x0099, 0, req, rsp) == SRPT_DM_STATUS_UNSUP_METHOD_ATTR,
	       "an unknown attribute: method/attribute not supported");
	free(req);
	free(rsp);
}

static void test_ioc_profile(void)
{
	u8 *req = mad(), *rsp = mad();
	struct srpt_dm_ioc_decoded p;

	tap_ok(ask(SRPT_DM_ATTR_IOC_PROFILE, 1, req, rsp) == 0,
	       "IOControllerProfile of slot 1 answered");
	srpt_dm_parse_ioc_profile(rsp + SRPT_DM_DATA_OFFSET, &p);
	tap_ok(p.ioc_guid == GUID && p.vendor_id == 0x0002c9 &&
	       p.device_id == 0x1003 && p.device_version == 0x00a0 &&
	       p.subsys_vendor_id == 0x0002c9 &&
	       p.subsys_device_id == 0x12345678,
	       "profile: GUID, vendor, device, version, subsystem decoded");
	tap_ok(p.io_class == SRPT_DM_IO_CLASS_SRP &&
	       p.io_subclass == SRPT_DM_IO_SUBCLASS_SRP &&
	       p.protocol == SRPT_DM_PROTOCOL_SRP &&
	       p.protocol_version == SRPT_DM_PROTOCOL_VERSION_SRP,
	       "profile: SRP class, subclass, protocol and version");
	tap_ok(p.send_queue_depth == 126 && p.rdma_read_depth == 4 &&
	       p.send_size == 8260 && p.rdma_size == (1 << 20) &&
	       p.op_cap_mask == SRPT_DM_OP_CAPS && p.num_svc_entries == 1,
	       "profile: depths, sizes, capabilities, one service entry");
	tap_ok(!strcmp(p.id_string, "Linux SRP target"), "profile: id string");
	memset(rsp + SRPT_DM_DATA_OFFSET + SRPT_DM_IOC_ID_STRING, 'x',
	       SRPT_DM_IOC_ID_STRING_LEN);
	srpt_dm_parse_ioc_profile(rsp + SRPT_DM_DATA_OFFSET, &p);
	tap_ok(strlen(p.id_string) == SRPT_DM_IOC_ID_STRING_LEN,
	       "profile: an id string filling its field is still terminated");
	free(req);
	free(rsp);
}

static void test_svc_entries(void)
{
	u8 *req = mad(), *rsp = mad();
	char name[SRPT_DM_SVC_NAME_LEN + 1];
	u64 id, ext;

	tap_ok(ask(SRPT_DM_ATTR_SVC_ENTRIES, 1 << 16, req, rsp) == 0,
	       "ServiceEntries 0..0 of slot 1 answered");
	srpt_dm_parse_svc_entry(rsp + SRPT_DM_DATA_OFFSET, name, &id);
	tap_ok(!strcmp(name, "SRP.T10:505400fffe4a0b7b") && id == GUID,
	       "service entry: name and id decoded");
	tap_ok(!srpt_dm_svc_name_id_ext(name, &ext) && ext == GUID,
	       "service name: id_ext read back");
	tap_ok(srpt_dm_svc_name_id_ext("SRP.T10:505400fffe4a0b7", &ext) ==
	       -EINVAL && ext == 0, "service name: 15 digits refused");
	tap_ok(srpt_dm_svc_name_id_ext("SRP.T10:505400fffe4a0b7bX", &ext) ==
	       -EINVAL, "service name: trailing text refused");
	tap_ok(srpt_dm_svc_name_id_ext("XYZ.T10:505400fffe4a0b7b", &ext) ==
	       -EINVAL, "service name: another prefix refused");
	tap_ok(srpt_dm_svc_name_id_ext("SRP.T10:505400fffe4a0b7g", &ext) ==
	       -EINVAL, "service name: a non-hex digit refused");
	free(req);
	free(rsp);
}

int main(void)
{
	test_get();
	test_check_rsp();
	test_ioc_profile();
	test_svc_entries();
	return tap_done();
}
