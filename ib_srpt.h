/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_srpt: SCSI RDMA Protocol (SRP) target driver for the LIO target core.
 *
 * Object model, from the RDMA side:
 *
 *   srpt_device   one per RDMA device (IB client); owns srpt_port[]
 *   srpt_port     one per physical port: state, GID 0 and the two names
 *                 a target port can be created under
 *
 * and from the configfs (LIO) side:
 *
 *   srpt_tport    one per /sys/kernel/config/target/srpt/<name>: a name
 *                 that is bound to whichever srpt_port currently carries
 *                 that GUID or GID, and stays configured (unbound) while
 *                 the device is gone
 *   srpt_tpg      one per <name>/<tpg>
 *
 * The two sides meet only under srpt_dev_mutex.
 */
#ifndef IB_SRPT_H
#define IB_SRPT_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <target/target_core_base.h>

#include "srpt_wire.h"

#define SRPT_DRV_VERSION "0.1"

enum {
	/* Module parameter srp_max_req_size: bounds and default (bytes). */
	SRPT_MIN_MAX_REQ_SIZE = 996,
	SRPT_MAX_MAX_REQ_SIZE = 65536,
	/*
	 * Large enough for the larger of an SRP_CMD with 16 additional CDB
	 * bytes and 128 direct descriptors (48 + 16 + 20 + 128 * 16 bytes)
	 * and an SRP_CMD carrying 8 KiB of immediate data at offset 80
	 * behind its 4-byte immediate data descriptor.
	 */
	SRPT_DEF_MAX_REQ_SIZE = 80 + 4 + 8192,

	/* Module parameter srpt_srq_size: bounds and default (entries). */
	SRPT_MIN_SRQ_SIZE = 4,
	SRPT_MAX_SRQ_SIZE = 65535,
	SRPT_DEF_SRQ_SIZE = 4095,
};

struct srpt_device;

/**
 * struct srpt_port - one physical port of an RDMA device
 * @sdev: device this port belongs to.
 * @port_num: port number, 1-based.
 * @refresh_work: re-reads the port attributes after a port event.
 * @state: port state as last read.
 * @lid: LID as last read (0 on RoCE and iWARP).
 * @sm_lid: LID of the subnet manager as last read.
 * @gid: GID at index 0, big endian; all zero while the port has none.
 * @guid_name: "xxxx:xxxx:xxxx:xxxx" form of the interface id of @gid.
 * @gid_name: "0x" + 32 hex digits form of @gid.
 *
 * @state through @gid_name are written by srpt_port_refresh() and read
 * by the configfs side, both under srpt_dev_mutex.
 */
struct srpt_port {
	struct srpt_device	*sdev;
	u32			port_num;
	struct work_struct	refresh_work;

	enum ib_port_state	state;
	u16			lid;
	u16			sm_lid;
	u8			gid[16];
	char			guid_name[SRPT_GUID_NAME_LEN];
	char			gid_name[SRPT_GID_NAME_LEN];
};

/**
 * struct srpt_device - per RDMA device state
 * @entry: link in srpt_dev_list, protected by srpt_dev_mutex.
 * @device: the RDMA device.
 * @event_handler: asynchronous event handler (port events).
 * @port_cnt: number of entries in @ports.
 * @ports: one entry per port; @ports[i] is port number i + 1.
 */
struct srpt_device {
	struct list_head	entry;
	struct ib_device	*device;
	struct ib_event_handler	event_handler;
	u32			port_cnt;
	struct srpt_port	ports[];
};

/**
 * struct srpt_tport - a configured target port (configfs WWN directory)
 * @wwn: LIO's view of this object.
 * @id: the parsed name: which GUID or GID this target port stands for.
 * @name: canonical spelling of @id, reported to LIO as the target port WWN.
 * @entry: link in srpt_tport_list, protected by srpt_dev_mutex.
 * @sport: RDMA port that currently carries @id, or NULL while none does.
 *	Protected by srpt_dev_mutex.
 * @tpg_mutex: protects @tpg_list and the @enabled flag of each TPG.
 * @tpg_list: the srpt_tpg objects below this target port.
 */
struct srpt_tport {
	struct se_wwn		wwn;
	struct srpt_name	id;
	char			name[SRPT_GID_NAME_LEN];
	struct list_head	entry;
	struct srpt_port	*sport;
	struct mutex		tpg_mutex; /* protects tpg_list, srpt_tpg.enabled */
	struct list_head	tpg_list;
};

/**
 * struct srpt_tpg - a target portal group below a target port
 * @tpg: LIO's view of this object.
 * @tport: the target port this TPG belongs to.
 * @entry: link in @tport->tpg_list, protected by @tport->tpg_mutex.
 * @enabled: whether logins may be accepted through this TPG; protected by
 *	@tport->tpg_mutex.
 */
struct srpt_tpg {
	struct se_portal_group	tpg;
	struct srpt_tport	*tport;
	struct list_head	entry;
	bool			enabled;
};

#endif /* IB_SRPT_H */
