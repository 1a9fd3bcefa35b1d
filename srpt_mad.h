/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Device Management agent of the SRP target: wire logic of the
 * Device Management class (IBA vol 1 section 16.3) as SRP initiators use it
 * to discover a target (SRP r16a annex B.7): srp_daemon and ibsrpdm read
 * IOUnitInfo, then the IOControllerProfile of each slot marked present, then
 * its ServiceEntries, and log in with ioc_guid, the id_ext in the service
 * name and the service id they found.
 *
 * Pure code, like srpt_wire.h (which it includes): srpt_dm_build_response()
 * turns the 256 bytes of a received MAD into the 256 bytes of the response,
 * so that the module, the unit tests (tools/tests/unit/test_mad.c) and the
 * fuzzers run the same code.  The module only moves MADs in and out.
 *
 * This agent reports one I/O unit with one I/O controller, in slot 1, that
 * offers one service: the SRP target port whose identifier extension and
 * GUID are both the ioc_guid.
 */
#ifndef SRPT_MAD_H
#define SRPT_MAD_H

#include "srpt_wire.h"

/* A DM MAD (IBA 16.3.1): the common MAD header, 40 reserved bytes, data. */
enum {
	SRPT_DM_MAD_SIZE	= 256,
	SRPT_DM_HDR_LEN		= 24,
	SRPT_DM_DATA_OFFSET	= 64,
	SRPT_DM_DATA_LEN	= 192,
};

/* Fields of the common MAD header (IBA 13.4.3), as byte offsets. */
enum {
	SRPT_DM_HDR_BASE_VERSION	= 0,
	SRPT_DM_HDR_MGMT_CLASS		= 1,
	SRPT_DM_HDR_CLASS_VERSION	= 2,
	SRPT_DM_HDR_METHOD		= 3,
	SRPT_DM_HDR_STATUS		= 4,	/* be16 */
	SRPT_DM_HDR_CLASS_SPECIFIC	= 6,	/* be16, reserved for DM */
	SRPT_DM_HDR_TID			= 8,	/* 8 opaque bytes */
	SRPT_DM_HDR_ATTR_ID		= 16,	/* be16 */
	SRPT_DM_HDR_RESERVED		= 18,	/* be16 */
	SRPT_DM_HDR_ATTR_MOD		= 20,	/* be32 */
};

/* Management class (IB_MGMT_CLASS_DEVICE_MGMT) and its version. */
enum {
	SRPT_DM_MGMT_CLASS	= 0x06,
	SRPT_DM_CLASS_VERSION	= 1,
	SRPT_DM_BASE_VERSION	= 1,
};

/* Methods (IBA 13.4.5); the R bit marks a response. */
enum {
	SRPT_DM_METHOD_GET	= 0x01,
	SRPT_DM_METHOD_SET	= 0x02,
	SRPT_DM_METHOD_GET_RESP	= 0x81,
	SRPT_DM_METHOD_RESP	= 0x80,
};

/* Attributes (IBA 16.3.3, table "Device Management Attributes"). */
enum {
	SRPT_DM_ATTR_CLASS_PORT_INFO	= 0x0001,
	SRPT_DM_ATTR_IOU_INFO		= 0x0010,
	SRPT_DM_ATTR_IOC_PROFILE	= 0x0011,
	SRPT_DM_ATTR_SVC_ENTRIES	= 0x0012,
};

/*
 * Status values: the common MAD status codes (IBA 13.4.7: code in bits 4..2)
 * and the DM class-specific bit 8 (IBA 16.3.1.1).
 */
enum {
	SRPT_DM_STATUS_OK		= 0x0000,
	SRPT_DM_STATUS_UNSUP_METHOD	= 0x0008,	/* code 2 */
	SRPT_DM_STATUS_UNSUP_METHOD_ATTR = 0x000c,	/* code 3 */
	SRPT_DM_STATUS_INVALID_FIELD	= 0x001c,	/* code 7 */
	SRPT_DM_STATUS_NO_IOC		= 0x0100,
};

/* ClassPortInfo (IBA 13.4.8.1), offsets in the data area. */
enum {
	SRPT_DM_CPI_BASE_VERSION	= 0,
	SRPT_DM_CPI_CLASS_VERSION	= 1,
	SRPT_DM_CPI_CAP_MASK		= 2,	/* be16 */
	SRPT_DM_CPI_CAP2_RESP_TIME	= 4,	/* be32: CapabilityMask2 in bits
						 * 31..5, RespTimeValue in 4..0
						 */
	SRPT_DM_CPI_LEN			= 72,
	SRPT_DM_CPI_RESP_TIME_MASK	= 0x1f,
	/* 4.096 us * 2^20, about 4.3 s, as the in-tree driver reports */
	SRPT_DM_RESP_TIME_VALUE		= 20,
};

/* IOUnitInfo (IBA 16.3.3.3), offsets in the data area. */
enum {
	SRPT_DM_IOU_CHANGE_ID		= 0,	/* be16 */
	SRPT_DM_IOU_MAX_CONTROLLERS	= 2,
	SRPT_DM_IOU_FLAGS		= 3,	/* DiagDeviceID, OptionROM */
	SRPT_DM_IOU_CONTROLLER_LIST	= 4,	/* 128 bytes, 4 bits a slot */
	SRPT_DM_IOU_CONTROLLER_LIST_LEN	= 128,
	SRPT_DM_IOU_LEN			= 132,
};

/* Values of a slot in the IOUnitInfo controller list. */
enum {
	SRPT_DM_SLOT_EMPTY	= 0x0,
	SRPT_DM_SLOT_PRESENT	= 0x1,
	SRPT_DM_SLOT_NONE	= 0xf,
};

/* IOControllerProfile (IBA 16.3.3.4), offsets in the data area. */
enum {
	SRPT_DM_IOC_GUID		= 0,	/* be64 */
	SRPT_DM_IOC_VENDOR_ID		= 8,	/* 24 bits, 8 reserved */
	SRPT_DM_IOC_DEVICE_ID		= 12,	/* be32 */
	SRPT_DM_IOC_DEVICE_VERSION	= 16,	/* be16, 16 reserved */
	SRPT_DM_IOC_SUBSYS_VENDOR_ID	= 20,	/* 24 bits, 8 reserved */
	SRPT_DM_IOC_SUBSYS_ID		= 24,	/* be32 */
	SRPT_DM_IOC_IO_CLASS		= 28,	/* be16 */
	SRPT_DM_IOC_IO_SUBCLASS		= 30,	/* be16 */
	SRPT_DM_IOC_PROTOCOL		= 32,	/* be16 */
	SRPT_DM_IOC_PROTOCOL_VERSION	= 34,	/* be16, 32 reserved */
	SRPT_DM_IOC_SEND_QUEUE_DEPTH	= 40,	/* be16, 8 reserved */
	SRPT_DM_IOC_RDMA_READ_DEPTH	= 43,
	SRPT_DM_IOC_SEND_SIZE		= 44,	/* be32 */
	SRPT_DM_IOC_RDMA_SIZE		= 48,	/* be32 */
	SRPT_DM_IOC_OP_CAP_MASK		= 52,	/* 8 reserved */
	SRPT_DM_IOC_NUM_SVC_ENTRIES	= 54,	/* 72 reserved */
	SRPT_DM_IOC_ID_STRING		= 64,
	SRPT_DM_IOC_ID_STRING_LEN	= 64,
	SRPT_DM_IOC_LEN			= 128,
};

/* ControllerOperationsCapabilityMask bits (IBA 16.3.3.4). */
enum {
	SRPT_DM_OP_SEND_TO_IOC		= 1 << 0,	/* ST */
	SRPT_DM_OP_SEND_FROM_IOC	= 1 << 1,	/* SF */
	SRPT_DM_OP_RDMA_READ_TO_IOC	= 1 << 2,	/* RT */
	SRPT_DM_OP_RDMA_READ_FROM_IOC	= 1 << 3,	/* RF */
	SRPT_DM_OP_RDMA_WRITE_TO_IOC	= 1 << 4,	/* WT */
	SRPT_DM_OP_RDMA_WRITE_FROM_IOC	= 1 << 5,	/* WF */
	SRPT_DM_OP_ATOMIC_TO_IOC	= 1 << 6,	/* AT */
	SRPT_DM_OP_ATOMIC_FROM_IOC	= 1 << 7,	/* AF */
};

/*
 * How an SRP target identifies itself in its profile (SRP r16a annex B.7,
 * table B.7; the I/O class is SRP_REV16A_IB_IO_CLASS of <scsi/srp.h>).
 */
enum {
	SRPT_DM_IO_CLASS_SRP		= 0x0100,
	SRPT_DM_IO_SUBCLASS_SRP		= 0x609e,
	SRPT_DM_PROTOCOL_SRP		= 0x0108,
	SRPT_DM_PROTOCOL_VERSION_SRP	= 0x0001,
};

/* ServiceEntries (IBA 16.3.3.5): up to four 48-byte entries a MAD. */
enum {
	SRPT_DM_SVC_NAME		= 0,
	SRPT_DM_SVC_NAME_LEN		= 40,
	SRPT_DM_SVC_ID			= 40,	/* be64 */
	SRPT_DM_SVC_ENTRY_LEN		= 48,
	SRPT_DM_SVC_PER_MAD		= 4,
};

/* Service name of an SRP target port (SRP r16a table B.8), then id_ext. */
#define SRPT_DM_SVC_NAME_PREFIX "SRP.T10:"

/* What this agent reports. */
enum {
	SRPT_DM_CHANGE_ID	= 1,
	SRPT_DM_MAX_CONTROLLERS	= 16,
	SRPT_DM_IOC_SLOT	= 1,
	SRPT_DM_NUM_SVC_ENTRIES	= 1,
	SRPT_DM_MAX_RDMA_SIZE	= 1 << 24,
	SRPT_DM_OP_CAPS		= SRPT_DM_OP_SEND_TO_IOC |
				  SRPT_DM_OP_SEND_FROM_IOC |
				  SRPT_DM_OP_RDMA_READ_FROM_IOC |
				  SRPT_DM_OP_RDMA_WRITE_FROM_IOC,
};

/**
 * struct srpt_dm_info - what the module reports about its I/O controller
 * @ioc_guid: GUID of the I/O controller (srpt_service_guid); also the
 *	identifier extension in the service name and the service id.
 * @vendor_id: IEEE OUI of the vendor; 24 bits are used.
 * @device_id: device id the vendor assigned.
 * @device_version: device version.
 * @subsys_vendor_id: IEEE OUI of the subsystem vendor; 24 bits are used.
 * @subsys_device_id: subsystem id.
 * @send_queue_depth: depth of the controller's send message queue: how
 *	many SRP requests it accepts outstanding.
 * @rdma_read_depth: depth of the controller's per-channel RDMA read queue.
 * @send_size: largest send message (srp_max_req_size).
 * @rdma_size: largest RDMA transfer (the TPG's srp_max_rdma_size); the
 *	profile reports at most SRPT_DM_MAX_RDMA_SIZE.
 * @id_string: NUL terminated text for humans, e.g. "Linux SRP target", or
 *	NULL; the profile holds at most its first 63 bytes.
 */
struct srpt_dm_info {
	u64 ioc_guid;
	u32 vendor_id;
	u32 device_id;
	u16 device_version;
	u32 subsys_vendor_id;
	u32 subsys_device_id;
	u16 send_queue_depth;
	u8 rdma_read_depth;
	u32 send_size;
	u32 rdma_size;
	const char *id_string;
};

/**
 * struct srpt_dm_req - the header fields of a DM request, decoded
 * @method: SRPT_DM_METHOD_*.
 * @class_version: class version of the request.
 * @attr_id: SRPT_DM_ATTR_*.
 * @attr_mod: attribute modifier.
 * @tid: transaction id as a big endian number, for log messages only (the
 *	response echoes the eight bytes as they came).
 */
struct srpt_dm_req {
	u8 method;
	u8 class_version;
	u16 attr_id;
	u32 attr_mod;
	u64 tid;
};

/**
 * srpt_dm_parse_req() - decode the header of a received DM MAD
 * @buf: the MAD.
 * @len: number of bytes received.
 * @r: decoded header; all zero on error.
 *
 * Return: 0, or -EINVAL when @len is below SRPT_DM_MAD_SIZE, the MAD is not
 * of the Device Management class, or it is a response (R bit set in the
 * method), which an agent never answers.
 */
static inline int srpt_dm_parse_req(const u8 *buf, size_t len,
				    struct srpt_dm_req *r)
{
	memset(r, 0, sizeof(*r));
	if (len < SRPT_DM_MAD_SIZE ||
	    buf[SRPT_DM_HDR_MGMT_CLASS] != SRPT_DM_MGMT_CLASS ||
	    (buf[SRPT_DM_HDR_METHOD] & SRPT_DM_METHOD_RESP))
		return -EINVAL;
	r->method = buf[SRPT_DM_HDR_METHOD];
	r->class_version = buf[SRPT_DM_HDR_CLASS_VERSION];
	r->attr_id = srpt_get_be16(buf + SRPT_DM_HDR_ATTR_ID);
	r->attr_mod = srpt_get_be32(buf + SRPT_DM_HDR_ATTR_MOD);
	r->tid = srpt_get_be64(buf + SRPT_DM_HDR_TID);
	return 0;
}

/**
 * srpt_dm_set_slot() - set one slot of an IOUnitInfo controller list
 * @list: the 128-byte controller list.
 * @slot: slot number, 1..256.
 * @value: SRPT_DM_SLOT_*; four bits.
 *
 * Each byte holds two slots, the odd-numbered one in its high nibble: slot 1
 * is bits 7..4 of byte 0, slot 2 bits 3..0 of byte 0, slot 3 bits 7..4 of
 * byte 1 and so on (IBA 16.3.3.3).
 */
static inline void srpt_dm_set_slot(u8 *list, unsigned int slot, u8 value)
{
	u8 *p = &list[(slot - 1) / 2];

	if (slot & 1)
		*p = (u8)((*p & 0x0f) | (value & 0xf) << 4);
	else
		*p = (u8)((*p & 0xf0) | (value & 0xf));
}

/**
 * srpt_dm_get_slot() - read one slot of an IOUnitInfo controller list
 * @list: the 128-byte controller list.
 * @slot: slot number, 1..256.
 *
 * Return: the four-bit SRPT_DM_SLOT_* value of @slot.
 */
static inline u8 srpt_dm_get_slot(const u8 *list, unsigned int slot)
{
	u8 b = list[(slot - 1) / 2];

	return slot & 1 ? b >> 4 : b & 0xf;
}

/**
 * srpt_dm_build_class_port_info() - write ClassPortInfo
 * @data: the data area of the response (SRPT_DM_DATA_LEN bytes).
 *
 * Base and class version 1, no capabilities (no traps, no notices), no
 * redirection, and RespTimeValue SRPT_DM_RESP_TIME_VALUE in the low five
 * bits of the word at offset 4, as ib_set_cpi_resp_time() sets it.
 */
static inline void srpt_dm_build_class_port_info(u8 *data)
{
	memset(data, 0, SRPT_DM_CPI_LEN);
	data[SRPT_DM_CPI_BASE_VERSION] = SRPT_DM_BASE_VERSION;
	data[SRPT_DM_CPI_CLASS_VERSION] = SRPT_DM_CLASS_VERSION;
	srpt_put_be32(data + SRPT_DM_CPI_CAP2_RESP_TIME,
		      SRPT_DM_RESP_TIME_VALUE & SRPT_DM_CPI_RESP_TIME_MASK);
}

/**
 * srpt_dm_build_iou_info() - write IOUnitInfo
 * @data: the data area of the response (SRPT_DM_DATA_LEN bytes).
 *
 * Change id SRPT_DM_CHANGE_ID (the controller list never changes),
 * SRPT_DM_MAX_CONTROLLERS slots, no option ROM, and a controller list with
 * the one I/O controller present in slot SRPT_DM_IOC_SLOT and the other
 * slots empty.
 */
static inline void srpt_dm_build_iou_info(u8 *data)
{
	u8 *list = data + SRPT_DM_IOU_CONTROLLER_LIST;
	unsigned int slot;

	memset(data, 0, SRPT_DM_IOU_LEN);
	srpt_put_be16(data + SRPT_DM_IOU_CHANGE_ID, SRPT_DM_CHANGE_ID);
	data[SRPT_DM_IOU_MAX_CONTROLLERS] = SRPT_DM_MAX_CONTROLLERS;
	for (slot = 1; slot <= SRPT_DM_MAX_CONTROLLERS; slot++)
		srpt_dm_set_slot(list, slot, slot == SRPT_DM_IOC_SLOT ?
				 SRPT_DM_SLOT_PRESENT : SRPT_DM_SLOT_EMPTY);
}

/**
 * srpt_dm_put_be24() - store the low 24 bits of @v big endian
 * @p: destination, three bytes.
 * @v: value.
 */
static inline void srpt_dm_put_be24(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 16);
	p[1] = (u8)(v >> 8);
	p[2] = (u8)v;
}

/**
 * srpt_dm_build_ioc_profile() - write the IOControllerProfile of slot 1
 * @data: the data area of the response (SRPT_DM_DATA_LEN bytes).
 * @info: what the module reports.
 *
 * The vendor ids are 24-bit fields in the top three bytes of their words
 * (IBA 16.3.3.4; srp_daemon prints be32 >> 8).  The in-tree driver stores
 * them as whole be32 words, one byte to the right; this follows the spec.
 * The RDMA transfer size is capped at SRPT_DM_MAX_RDMA_SIZE and the id
 * string at 63 bytes, so that the field is always NUL terminated (srp_daemon
 * prints it with "%s").
 */
static inline void srpt_dm_build_ioc_profile(u8 *data,
					     const struct srpt_dm_info *info)
{
	u32 rdma_size = info->rdma_size;
	size_t id_len = 0;

	if (rdma_size > SRPT_DM_MAX_RDMA_SIZE)
		rdma_size = SRPT_DM_MAX_RDMA_SIZE;
	if (info->id_string)
		id_len = srpt_text_len(info->id_string,
				       SRPT_DM_IOC_ID_STRING_LEN - 1);

	memset(data, 0, SRPT_DM_IOC_LEN);
	srpt_put_be64(data + SRPT_DM_IOC_GUID, info->ioc_guid);
	srpt_dm_put_be24(data + SRPT_DM_IOC_VENDOR_ID, info->vendor_id);
	srpt_put_be32(data + SRPT_DM_IOC_DEVICE_ID, info->device_id);
	srpt_put_be16(data + SRPT_DM_IOC_DEVICE_VERSION, info->device_version);
	srpt_dm_put_be24(data + SRPT_DM_IOC_SUBSYS_VENDOR_ID,
			 info->subsys_vendor_id);
	srpt_put_be32(data + SRPT_DM_IOC_SUBSYS_ID, info->subsys_device_id);
	srpt_put_be16(data + SRPT_DM_IOC_IO_CLASS, SRPT_DM_IO_CLASS_SRP);
	srpt_put_be16(data + SRPT_DM_IOC_IO_SUBCLASS, SRPT_DM_IO_SUBCLASS_SRP);
	srpt_put_be16(data + SRPT_DM_IOC_PROTOCOL, SRPT_DM_PROTOCOL_SRP);
	srpt_put_be16(data + SRPT_DM_IOC_PROTOCOL_VERSION,
		      SRPT_DM_PROTOCOL_VERSION_SRP);
	srpt_put_be16(data + SRPT_DM_IOC_SEND_QUEUE_DEPTH,
		      info->send_queue_depth);
	data[SRPT_DM_IOC_RDMA_READ_DEPTH] = info->rdma_read_depth;
	srpt_put_be32(data + SRPT_DM_IOC_SEND_SIZE, info->send_size);
	srpt_put_be32(data + SRPT_DM_IOC_RDMA_SIZE, rdma_size);
	data[SRPT_DM_IOC_OP_CAP_MASK] = SRPT_DM_OP_CAPS;
	data[SRPT_DM_IOC_NUM_SVC_ENTRIES] = SRPT_DM_NUM_SVC_ENTRIES;
	memcpy(data + SRPT_DM_IOC_ID_STRING, info->id_string ? info->id_string :
	       "", id_len);
}

/**
 * srpt_dm_format_svc_name() - the service name of the SRP target port
 * @name: destination, SRPT_DM_SVC_NAME_LEN bytes.
 * @id_ext: identifier extension of the target port.
 *
 * "SRP.T10:" and the 16 lowercase hex digits of @id_ext, NUL padded to the
 * field's 40 bytes.  Initiators take the digits as the id_ext of the login.
 */
static inline void srpt_dm_format_svc_name(char *name, u64 id_ext)
{
	static const char digits[] = "0123456789abcdef";
	const size_t plen = sizeof(SRPT_DM_SVC_NAME_PREFIX) - 1;
	int i;

	memset(name, 0, SRPT_DM_SVC_NAME_LEN);
	memcpy(name, SRPT_DM_SVC_NAME_PREFIX, plen);
	for (i = 0; i < 16; i++)
		name[plen + i] = digits[(id_ext >> (60 - 4 * i)) & 0xf];
}

/**
 * srpt_dm_build_svc_entries() - write ServiceEntries lo..hi
 * @data: the data area of the response (SRPT_DM_DATA_LEN bytes).
 * @info: what the module reports.
 * @lo: first entry, as checked by srpt_dm_svc_entries_status().
 * @hi: last entry, as checked by srpt_dm_svc_entries_status().
 *
 * Entry @lo goes to the first 48-byte slot of the data area, @lo + 1 to the
 * second and so on; at most SRPT_DM_SVC_PER_MAD entries are written.  The
 * only service, entry 0, is named by srpt_dm_format_svc_name() after
 * @info->ioc_guid and has service id @info->ioc_guid: the IB CM service id
 * a login connects to.
 */
static inline void srpt_dm_build_svc_entries(u8 *data,
					     const struct srpt_dm_info *info,
					     u8 lo, u8 hi)
{
	unsigned int i;

	memset(data, 0, SRPT_DM_DATA_LEN);
	for (i = lo; i <= hi && i - lo < SRPT_DM_SVC_PER_MAD; i++) {
		u8 *e = data + (i - lo) * SRPT_DM_SVC_ENTRY_LEN;

		if (i >= SRPT_DM_NUM_SVC_ENTRIES)
			break;
		srpt_dm_format_svc_name((char *)e + SRPT_DM_SVC_NAME,
					info->ioc_guid);
		srpt_put_be64(e + SRPT_DM_SVC_ID, info->ioc_guid);
	}
}

/**
 * srpt_dm_ioc_slot_status() - status of a request naming an IOC slot
 * @slot: slot number from the attribute modifier.
 *
 * Return: SRPT_DM_STATUS_OK for SRPT_DM_IOC_SLOT, SRPT_DM_STATUS_NO_IOC for
 * the other slots up to SRPT_DM_MAX_CONTROLLERS, and
 * SRPT_DM_STATUS_INVALID_FIELD for slot 0 and slots beyond.
 */
static inline u16 srpt_dm_ioc_slot_status(u32 slot)
{
	if (slot == 0 || slot > SRPT_DM_MAX_CONTROLLERS)
		return SRPT_DM_STATUS_INVALID_FIELD;
	if (slot != SRPT_DM_IOC_SLOT)
		return SRPT_DM_STATUS_NO_IOC;
	return SRPT_DM_STATUS_OK;
}

/**
 * srpt_dm_svc_entries_status() - check a ServiceEntries attribute modifier
 * @attr_mod: bits 31..16 the IOC slot, 15..8 the last entry (hi), 7..0 the
 *	first entry (lo) (IBA 16.3.3.5).
 *
 * After the slot (see srpt_dm_ioc_slot_status()), the range: @hi below @lo,
 * an entry the controller does not have, or more than SRPT_DM_SVC_PER_MAD
 * entries are an invalid field.
 *
 * Return: SRPT_DM_STATUS_*.
 */
static inline u16 srpt_dm_svc_entries_status(u32 attr_mod)
{
	unsigned int hi = (attr_mod >> 8) & 0xff, lo = attr_mod & 0xff;
	u16 status = srpt_dm_ioc_slot_status(attr_mod >> 16);

	if (status)
		return status;
	if (hi < lo || hi >= SRPT_DM_NUM_SVC_ENTRIES ||
	    hi - lo >= SRPT_DM_SVC_PER_MAD)
		return SRPT_DM_STATUS_INVALID_FIELD;
	return SRPT_DM_STATUS_OK;
}

/**
 * srpt_dm_get() - answer a Get() request
 * @r: the request.
 * @info: what the module reports.
 * @data: the zeroed data area of the response (SRPT_DM_DATA_LEN bytes).
 *
 * Return: the status of the response; @data holds the attribute only when
 * it is SRPT_DM_STATUS_OK.
 */
static inline u16 srpt_dm_get(const struct srpt_dm_req *r,
			      const struct srpt_dm_info *info, u8 *data)
{
	u16 status;

	switch (r->attr_id) {
	case SRPT_DM_ATTR_CLASS_PORT_INFO:
		srpt_dm_build_class_port_info(data);
		return SRPT_DM_STATUS_OK;
	case SRPT_DM_ATTR_IOU_INFO:
		srpt_dm_build_iou_info(data);
		return SRPT_DM_STATUS_OK;
	case SRPT_DM_ATTR_IOC_PROFILE:
		status = srpt_dm_ioc_slot_status(r->attr_mod);
		if (status == SRPT_DM_STATUS_OK)
			srpt_dm_build_ioc_profile(data, info);
		return status;
	case SRPT_DM_ATTR_SVC_ENTRIES:
		status = srpt_dm_svc_entries_status(r->attr_mod);
		if (status == SRPT_DM_STATUS_OK)
			srpt_dm_build_svc_entries(data, info,
						  r->attr_mod & 0xff,
						  (r->attr_mod >> 8) & 0xff);
		return status;
	default:
		return SRPT_DM_STATUS_UNSUP_METHOD_ATTR;
	}
}

/**
 * srpt_dm_build_response() - build the response to a received DM MAD
 * @req: the received MAD.
 * @req_len: number of bytes received.
 * @rsp: destination of the response; may be @req itself.
 * @rsp_len: size of @rsp.
 * @info: what the module reports.
 *
 * The response is a GetResp() (method 0x81) carrying the request's base
 * version, class, class version, transaction id, attribute id and
 * attribute modifier; the reserved ClassSpecific and header reserved fields
 * and everything after the header are zero, except the attribute when the
 * status is SRPT_DM_STATUS_OK.  The status:
 *
 * - Get(): per attribute, see srpt_dm_get(); unknown attributes are
 *   SRPT_DM_STATUS_UNSUP_METHOD_ATTR.
 * - Set(): SRPT_DM_STATUS_UNSUP_METHOD_ATTR.  Set() is a method of the DM
 *   class (ClassPortInfo, PrepareToTest and the test attributes take it),
 *   so what is unsupported is the method/attribute combination (status
 *   code 3), not the method (code 2).  This is also what the in-tree driver
 *   and the MAD layer's answer to unclaimed Get()/Set() requests return.
 * - any other request method: SRPT_DM_STATUS_UNSUP_METHOD.
 *
 * Nothing beyond the first SRPT_DM_HDR_LEN bytes of @req is read, and
 * nothing beyond the first SRPT_DM_MAD_SIZE bytes of @rsp written.
 *
 * Return: 0 when a response was built, whatever its status; -EINVAL, with
 * nothing written, when @req_len or @rsp_len is below SRPT_DM_MAD_SIZE or
 * @req is not a DM request (see srpt_dm_parse_req()).
 */
static inline int srpt_dm_build_response(const u8 *req, size_t req_len,
					 u8 *rsp, size_t rsp_len,
					 const struct srpt_dm_info *info)
{
	u8 hdr[SRPT_DM_HDR_LEN];
	struct srpt_dm_req r;
	u16 status;

	if (rsp_len < SRPT_DM_MAD_SIZE || srpt_dm_parse_req(req, req_len, &r))
		return -EINVAL;
	memcpy(hdr, req, SRPT_DM_HDR_LEN);

	memset(rsp, 0, SRPT_DM_MAD_SIZE);
	memcpy(rsp, hdr, SRPT_DM_HDR_LEN);
	rsp[SRPT_DM_HDR_METHOD] = SRPT_DM_METHOD_GET_RESP;
	srpt_put_be16(rsp + SRPT_DM_HDR_CLASS_SPECIFIC, 0);
	srpt_put_be16(rsp + SRPT_DM_HDR_RESERVED, 0);

	switch (r.method) {
	case SRPT_DM_METHOD_GET:
		status = srpt_dm_get(&r, info, rsp + SRPT_DM_DATA_OFFSET);
		break;
	case SRPT_DM_METHOD_SET:
		status = SRPT_DM_STATUS_UNSUP_METHOD_ATTR;
		break;
	default:
		status = SRPT_DM_STATUS_UNSUP_METHOD;
		break;
	}
	srpt_put_be16(rsp + SRPT_DM_HDR_STATUS, status);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The client's side: requests a DM client sends and the answers it reads  */
/* (srp-probe --dm), written against the same layouts as the agent above;  */
/* tools/tests/unit/test_dm_client.c checks each against its counterpart.  */
/* ------------------------------------------------------------------------ */

/**
 * struct srpt_dm_ioc_decoded - an IOControllerProfile, decoded
 * @ioc_guid: GUID of the I/O controller.
 * @vendor_id: IEEE OUI of the vendor (24 bits).
 * @device_id: device id.
 * @device_version: device version.
 * @subsys_vendor_id: IEEE OUI of the subsystem vendor (24 bits).
 * @subsys_device_id: subsystem id.
 * @io_class: I/O class (SRPT_DM_IO_CLASS_SRP for SRP).
 * @io_subclass: I/O subclass.
 * @protocol: protocol (SRPT_DM_PROTOCOL_SRP).
 * @protocol_version: protocol version.
 * @send_queue_depth: send message queue depth.
 * @rdma_read_depth: RDMA read queue depth.
 * @send_size: largest send message.
 * @rdma_size: largest RDMA transfer.
 * @op_cap_mask: SRPT_DM_OP_* bits.
 * @num_svc_entries: number of service entries.
 * @id_string: the id string, NUL terminated (the field may not be).
 */
struct srpt_dm_ioc_decoded {
	u64 ioc_guid;
	u32 vendor_id;
	u32 device_id;
	u16 device_version;
	u32 subsys_vendor_id;
	u32 subsys_device_id;
	u16 io_class;
	u16 io_subclass;
	u16 protocol;
	u16 protocol_version;
	u16 send_queue_depth;
	u8 rdma_read_depth;
	u32 send_size;
	u32 rdma_size;
	u8 op_cap_mask;
	u8 num_svc_entries;
	char id_string[SRPT_DM_IOC_ID_STRING_LEN + 1];
};

/**
 * srpt_dm_build_get() - build a Get() request of the DM class
 * @buf: destination, SRPT_DM_MAD_SIZE bytes.
 * @len: size of @buf.
 * @attr_id: SRPT_DM_ATTR_*.
 * @attr_mod: attribute modifier.
 * @tid: the eight transaction id bytes, sent as they are.
 *
 * Return: SRPT_DM_MAD_SIZE, or 0 (and nothing written) when @len is too
 * small.
 */
static inline size_t srpt_dm_build_get(u8 *buf, size_t len, u16 attr_id,
				       u32 attr_mod, const u8 *tid)
{
	if (len < SRPT_DM_MAD_SIZE)
		return 0;
	memset(buf, 0, SRPT_DM_MAD_SIZE);
	buf[SRPT_DM_HDR_BASE_VERSION] = SRPT_DM_BASE_VERSION;
	buf[SRPT_DM_HDR_MGMT_CLASS] = SRPT_DM_MGMT_CLASS;
	buf[SRPT_DM_HDR_CLASS_VERSION] = SRPT_DM_CLASS_VERSION;
	buf[SRPT_DM_HDR_METHOD] = SRPT_DM_METHOD_GET;
	memcpy(buf + SRPT_DM_HDR_TID, tid, 8);
	srpt_put_be16(buf + SRPT_DM_HDR_ATTR_ID, attr_id);
	srpt_put_be32(buf + SRPT_DM_HDR_ATTR_MOD, attr_mod);
	return SRPT_DM_MAD_SIZE;
}

/**
 * srpt_dm_check_rsp() - whether a MAD answers a request, and its status
 * @rsp: the received MAD.
 * @len: number of bytes received.
 * @req: the request it should answer (SRPT_DM_MAD_SIZE bytes).
 * @status: the response's status; 0 on error.
 *
 * An answer is a GetResp() of the DM class, with the request's base and
 * class version, transaction id, attribute id and attribute modifier.
 *
 * Return: 0, or -EINVAL when @rsp is not that answer.
 */
static inline int srpt_dm_check_rsp(const u8 *rsp, size_t len, const u8 *req,
				    u16 *status)
{
	*status = 0;
	if (len < SRPT_DM_MAD_SIZE ||
	    rsp[SRPT_DM_HDR_BASE_VERSION] != req[SRPT_DM_HDR_BASE_VERSION] ||
	    rsp[SRPT_DM_HDR_MGMT_CLASS] != SRPT_DM_MGMT_CLASS ||
	    rsp[SRPT_DM_HDR_CLASS_VERSION] != req[SRPT_DM_HDR_CLASS_VERSION] ||
	    rsp[SRPT_DM_HDR_METHOD] != SRPT_DM_METHOD_GET_RESP ||
	    memcmp(rsp + SRPT_DM_HDR_TID, req + SRPT_DM_HDR_TID, 8) ||
	    memcmp(rsp + SRPT_DM_HDR_ATTR_ID, req + SRPT_DM_HDR_ATTR_ID, 2) ||
	    memcmp(rsp + SRPT_DM_HDR_ATTR_MOD, req + SRPT_DM_HDR_ATTR_MOD, 4))
		return -EINVAL;
	*status = srpt_get_be16(rsp + SRPT_DM_HDR_STATUS);
	return 0;
}

/**
 * srpt_dm_get_be24() - the big endian 24-bit value at @p
 * @p: three bytes.
 *
 * Return: the value.
 */
static inline u32 srpt_dm_get_be24(const u8 *p)
{
	return (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
}

/**
 * srpt_dm_parse_ioc_profile() - decode an IOControllerProfile
 * @data: the data area of a GetResp() (SRPT_DM_DATA_LEN bytes).
 * @p: the decoded profile.
 *
 * The layout srpt_dm_build_ioc_profile() writes.
 */
static inline void srpt_dm_parse_ioc_profile(const u8 *data,
					     struct srpt_dm_ioc_decoded *p)
{
	memset(p, 0, sizeof(*p));
	p->ioc_guid = srpt_get_be64(data + SRPT_DM_IOC_GUID);
	p->vendor_id = srpt_dm_get_be24(data + SRPT_DM_IOC_VENDOR_ID);
	p->device_id = srpt_get_be32(data + SRPT_DM_IOC_DEVICE_ID);
	p->device_version = srpt_get_be16(data + SRPT_DM_IOC_DEVICE_VERSION);
	p->subsys_vendor_id =
		srpt_dm_get_be24(data + SRPT_DM_IOC_SUBSYS_VENDOR_ID);
	p->subsys_device_id = srpt_get_be32(data + SRPT_DM_IOC_SUBSYS_ID);
	p->io_class = srpt_get_be16(data + SRPT_DM_IOC_IO_CLASS);
	p->io_subclass = srpt_get_be16(data + SRPT_DM_IOC_IO_SUBCLASS);
	p->protocol = srpt_get_be16(data + SRPT_DM_IOC_PROTOCOL);
	p->protocol_version = srpt_get_be16(data +
					    SRPT_DM_IOC_PROTOCOL_VERSION);
	p->send_queue_depth = srpt_get_be16(data +
					    SRPT_DM_IOC_SEND_QUEUE_DEPTH);
	p->rdma_read_depth = data[SRPT_DM_IOC_RDMA_READ_DEPTH];
	p->send_size = srpt_get_be32(data + SRPT_DM_IOC_SEND_SIZE);
	p->rdma_size = srpt_get_be32(data + SRPT_DM_IOC_RDMA_SIZE);
	p->op_cap_mask = data[SRPT_DM_IOC_OP_CAP_MASK];
	p->num_svc_entries = data[SRPT_DM_IOC_NUM_SVC_ENTRIES];
	memcpy(p->id_string, data + SRPT_DM_IOC_ID_STRING,
	       SRPT_DM_IOC_ID_STRING_LEN);
}

/**
 * srpt_dm_parse_svc_entry() - decode one 48-byte service entry
 * @e: the entry.
 * @name: its name, NUL terminated (SRPT_DM_SVC_NAME_LEN + 1 bytes).
 * @id: its service id.
 */
static inline void srpt_dm_parse_svc_entry(const u8 *e, char *name, u64 *id)
{
	memcpy(name, e + SRPT_DM_SVC_NAME, SRPT_DM_SVC_NAME_LEN);
	name[SRPT_DM_SVC_NAME_LEN] = '\0';
	*id = srpt_get_be64(e + SRPT_DM_SVC_ID);
}

/**
 * srpt_dm_svc_name_id_ext() - the id_ext an SRP service name carries
 * @name: NUL terminated service name.
 * @id_ext: the identifier extension.
 *
 * An SRP target port's service name is SRPT_DM_SVC_NAME_PREFIX and 16 hex
 * digits (srpt_dm_format_svc_name()), nothing after them.
 *
 * Return: 0, or -EINVAL when @name is not of that form.
 */
static inline int srpt_dm_svc_name_id_ext(const char *name, u64 *id_ext)
{
	const size_t plen = sizeof(SRPT_DM_SVC_NAME_PREFIX) - 1;
	u8 b[8];

	*id_ext = 0;
	if (srpt_text_len(name, SRPT_DM_SVC_NAME_LEN) != plen + 16 ||
	    memcmp(name, SRPT_DM_SVC_NAME_PREFIX, plen) ||
	    srpt_parse_hex(name + plen, 16, b, sizeof(b)))
		return -EINVAL;
	*id_ext = srpt_get_be64(b);
	return 0;
}

#endif /* SRPT_MAD_H */
