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
 * The two sides meet only under srpt_dev_mutex.  A login joins them:
 *
 *   srpt_rdma_ch  one per accepted login: a queue pair on one port, its
 *                 receive ring (srpt_recv) and command contexts (srpt_cmd),
 *                 and the LIO session of the node ACL that admitted it
 */
#ifndef IB_SRPT_H
#define IB_SRPT_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/scatterlist.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>

#include "srpt_iu.h"

#define SRPT_DRV_VERSION "0.1"

/*
 * Immediate data goes to the backend in place, inside the receive buffer.
 * Block devices expect sector-aligned buffers (null_blk, for one, miscounts
 * sectors otherwise), so the buffers are placed to make it start on a
 * 512-byte boundary.
 */
#define SRPT_IMM_ALIGN	512

/*
 * Receive buffers are allocated several to a block of pages of up to this
 * many bytes (srpt_alloc_recv_bufs()): order 4, which the buddy allocator
 * usually has, and seven default request buffers.
 */
#define SRPT_RECV_BLOCK	(64 * 1024)

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

	/*
	 * Per channel: receive ring depth, and the receives kept back from
	 * the credits granted for IUs that consume none (SRP_I_LOGOUT,
	 * SRP_CRED_RSP, SRP_AER_RSP).
	 */
	SRPT_RQ_SIZE = 128,
	SRPT_RSVD_RECVS = 2,
	/* Send queue: default and smallest size tried when a device refuses. */
	SRPT_DEF_SQ_SIZE = 4096,
	SRPT_MIN_SQ_SIZE = 16,
	/*
	 * TPG attributes (names, bounds and defaults as in-tree):
	 * srp_max_rsp_size, the response IU size granted at login (an
	 * SRP_RSP without sense is 36 bytes); srp_max_rdma_size, the RDMA
	 * transfer size advertised in the IOC profile; srp_sq_size, the send
	 * queue tried first for a new channel.
	 */
	SRPT_MIN_MAX_RSP_SIZE = 36 + 4,
	SRPT_DEF_MAX_RSP_SIZE = 256,
	SRPT_MAX_MAX_RSP_SIZE = 1024,
	SRPT_MIN_MAX_RDMA_SIZE = 65536,
	SRPT_DEF_MAX_RDMA_SIZE = 65536,
	SRPT_MAX_MAX_RDMA_SIZE = 1 << 24,
	SRPT_MIN_SQ_ATTR = 4,	/* accepted, as in-tree; used as at least 16 */
	SRPT_MAX_SQ_SIZE = 65535,
	/*
	 * Immediate data offset the SRQ's buffers are aligned for (the one
	 * ib_srp asks for); other offsets are copied to aligned memory.
	 */
	SRPT_SRQ_IMM_OFFSET = 80,
	/*
	 * Most data descriptors one SRP_CMD may carry (in the IU or in an
	 * external table), and most data bytes one command may move.
	 */
	SRPT_MAX_DESC = 4096,
	SRPT_MAX_DATA_LEN = 1 << 24,
	/* Fixed-format sense data we build ourselves. */
	SRPT_SENSE_LEN = 18,
};

struct srpt_device;
struct srpt_recv;
struct srpt_nacl;
struct srpt_tport;

/*
 * Transport statistics (configfs fabric_statistics/srpt/ of node ACLs and
 * target ports, see "Statistics" in ib_srpt.c).  Counters are indices into
 * a flat array: SRPT_STAT_PERCPU_NR of them are counted per CPU by each
 * channel; the rest only in the totals of an ACL or target port (login
 * outcomes) or under the channel's lock (send queue waits).
 *
 * Latency buckets are log2 of microseconds: bucket 0 holds commands answered
 * in under 1 us, bucket k >= 1 those of 2^(k-1) up to 2^k - 1 us, the last
 * one everything from its lower bound on.
 */
#define SRPT_LAT_BUCKETS	26
/* TMF counters: the five SRP functions, then any other function code. */
#define SRPT_TMF_KINDS		6
/* Login reject reasons counted: SRPT_REJ_UNABLE_ESTABLISH + 0..6. */
#define SRPT_REJ_KINDS		7

/**
 * enum srpt_stat - index of a transport counter
 * @SRPT_STAT_CMDS: commands answered, three: by enum srpt_data_dir.
 * @SRPT_STAT_BYTES_IN: DATA-OUT bytes received (immediate data or RDMA READ).
 * @SRPT_STAT_BYTES_OUT: DATA-IN bytes sent by RDMA WRITE.
 * @SRPT_STAT_TMFS: task management requests, SRPT_TMF_KINDS of them: by
 *	function (srpt_tmf_kind()).
 * @SRPT_STAT_ABORTED: commands LIO aborted (no status was sent for them).
 * @SRPT_STAT_RDMA_ERRORS: work completions that failed other than by flush.
 * @SRPT_STAT_CREDIT_CLOSURES: channels closed because their initiator sent
 *	more requests than it had credits for.
 * @SRPT_STAT_LAT_READ: latency histogram of reads, SRPT_LAT_BUCKETS.
 * @SRPT_STAT_LAT_WRITE: latency histogram of writes, SRPT_LAT_BUCKETS.
 * @SRPT_STAT_PERCPU_NR: counters kept per CPU by a channel.
 * @SRPT_STAT_SQ_WAITS: commands that waited for send queue room.
 * @SRPT_STAT_LOGINS_ACCEPTED: logins accepted.
 * @SRPT_STAT_LOGINS_REFUSED: logins refused, SRPT_REJ_KINDS: by reason.
 * @SRPT_STAT_NR: number of counters.
 */
enum srpt_stat {
	SRPT_STAT_CMDS,
	SRPT_STAT_BYTES_IN = SRPT_STAT_CMDS + 3,
	SRPT_STAT_BYTES_OUT,
	SRPT_STAT_TMFS,
	SRPT_STAT_ABORTED = SRPT_STAT_TMFS + SRPT_TMF_KINDS,
	SRPT_STAT_RDMA_ERRORS,
	SRPT_STAT_CREDIT_CLOSURES,
	SRPT_STAT_LAT_READ,
	SRPT_STAT_LAT_WRITE = SRPT_STAT_LAT_READ + SRPT_LAT_BUCKETS,
	SRPT_STAT_PERCPU_NR = SRPT_STAT_LAT_WRITE + SRPT_LAT_BUCKETS,
	SRPT_STAT_SQ_WAITS = SRPT_STAT_PERCPU_NR,
	SRPT_STAT_LOGINS_ACCEPTED,
	SRPT_STAT_LOGINS_REFUSED,
	SRPT_STAT_NR = SRPT_STAT_LOGINS_REFUSED + SRPT_REJ_KINDS,
};

/**
 * struct srpt_stats - a set of counter values (totals or a snapshot)
 * @v: the values, by enum srpt_stat.
 */
struct srpt_stats {
	u64	v[SRPT_STAT_NR];
};

/**
 * struct srpt_ch_stats - one CPU's counters of one channel
 * @syncp: lets 32-bit readers see whole values.
 * @v: the counters, by enum srpt_stat (below SRPT_STAT_PERCPU_NR).
 *
 * Written only by the CPU it belongs to (srpt_ch_count()), read by any.
 */
struct srpt_ch_stats {
	struct u64_stats_sync	syncp;
	u64_stats_t		v[SRPT_STAT_PERCPU_NR];
};

/**
 * struct srpt_stats_dir - a fabric_statistics/srpt directory
 * @group: the configfs group.
 * @tport: the target port it shows, or NULL.
 * @nacl: the node ACL it shows, or NULL.
 */
struct srpt_stats_dir {
	struct config_group	group;
	struct srpt_tport	*tport;
	struct srpt_nacl	*nacl;
};

/**
 * struct srpt_nacl - a node ACL (configfs acls/<initiator>)
 * @nacl: LIO's view of this object.
 * @totals: counters of its channels that are gone, and its logins; protected
 *	by srpt_ch_mutex.
 * @stats_dir: its fabric_statistics/srpt directory.
 */
struct srpt_nacl {
	struct se_node_acl	nacl;
	struct srpt_stats	totals;
	struct srpt_stats_dir	stats_dir;
};

/**
 * struct srpt_srq - a device's shared receive queue (TPG attribute use_srq)
 * @srq: the SRQ.
 * @size: receive buffers in @recvs (module parameter srpt_srq_size).
 * @buf_len: size of each buffer (module parameter srp_max_req_size).
 * @lkey: local key of the buffers.
 * @recvs: the buffers; each is posted to @srq or held by one channel's
 *	request until that channel reposts it.
 */
struct srpt_srq {
	struct ib_srq		*srq;
	u32			size;
	u32			buf_len;
	u32			lkey;
	struct srpt_recv	*recvs;
};

/**
 * struct srpt_tpg_attrs - TPG attributes (configfs .../$tpg/attrib/)
 * @max_rsp_size: srp_max_rsp_size, response IU size of new logins.
 * @max_rdma_size: srp_max_rdma_size, advertised in the IOC profile.
 * @sq_size: srp_sq_size, send queue size tried first for new channels
 *	(at least SRPT_MIN_SQ_SIZE).
 * @use_srq: use_srq, whether new channels receive through the device's
 *	shared receive queue.
 */
struct srpt_tpg_attrs {
	u32	max_rsp_size;
	u32	max_rdma_size;
	u32	sq_size;
	bool	use_srq;
};

/**
 * struct srpt_port - one physical port of an RDMA device
 * @sdev: device this port belongs to.
 * @port_num: port number, 1-based.
 * @refresh_work: re-reads the port attributes after a port event.
 * @dm_mutex: protects @mad_agent and @dm_cap.
 * @mad_agent: Device Management agent (any port but iWARP), or NULL.
 * @dm_cap: whether the port's capability mask advertises
 *	IB_PORT_DEVICE_MGMT_SUP on our behalf.
 * @state: port state as last read.
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
	struct mutex		dm_mutex;	/* see above */
	struct ib_mad_agent	*mad_agent;
	bool			dm_cap;

	enum ib_port_state	state;
	u8			gid[16];
	char			guid_name[SRPT_GUID_NAME_LEN];
	char			gid_name[SRPT_GID_NAME_LEN];
};

/**
 * struct srpt_device - per RDMA device state
 * @entry: link in srpt_dev_list, protected by srpt_dev_mutex.
 * @device: the RDMA device.
 * @refs: references: one of the IB client (from srpt_add_one() until
 *	srpt_remove_one() drops it) and one of each channel on the device,
 *	from its login until its QP, CQ, CM id and rings are gone.
 * @released: completed when @refs drops to zero; srpt_remove_one() waits
 *	for it before it frees the SRQ, the PD and this structure.
 * @pd: protection domain of every channel on this device.
 * @cm_id: IB CM listener for service id srpt_service_guid, or NULL when no
 *	port of the device has the IB CM capability (InfiniBand, RoCE).
 * @event_handler: asynchronous event handler (port events).
 * @removing: set under srpt_dev_mutex when the device goes away; no login
 *	is accepted on it after that.
 * @next_comp_vector: completion vector of the next channel's CQ; channels
 *	take the vectors in turn.
 * @srq_mutex: protects @srq; held while the first channel that uses the
 *	SRQ creates it (allocating and posting every buffer), so that logins
 *	on other devices do not wait for that under srpt_dev_mutex.
 * @srq: shared receive queue, created for the first channel that uses it
 *	and kept until the device goes away.
 * @port_cnt: number of entries in @ports.
 * @ports: one entry per port; @ports[i] is port number i + 1.
 */
struct srpt_device {
	struct list_head	entry;
	struct ib_device	*device;
	struct kref		refs;
	struct completion	released;
	struct ib_pd		*pd;
	struct ib_cm_id		*cm_id;
	struct ib_event_handler	event_handler;
	bool			removing;
	atomic_t		next_comp_vector;
	struct mutex		srq_mutex;	/* see above */
	struct srpt_srq		*srq;
	u32			port_cnt;
	struct srpt_port	ports[];
};

/**
 * struct srpt_tport - a configured target port (configfs WWN directory)
 * @wwn: LIO's view of this object.
 * @id: the parsed name: which GUID or GID this target port stands for.
 * @name: canonical spelling of @id, reported to LIO as the target port WWN.
 * @entry: link in srpt_tport_list, protected by srpt_dev_mutex.
 * @sport: RDMA port that currently carries @id, or NULL while none does
 *	(the target port waits for it).  Protected by srpt_dev_mutex.
 * @tpg_mutex: protects @tpg_list and the @enabled flag of each TPG.
 * @tpg_list: the srpt_tpg objects below this target port.
 * @info_group: the configfs directory .../$name/info (status); released
 *	before @wwn, whose directory holds it.
 * @totals: counters of its channels that are gone, and its login outcomes;
 *	protected by srpt_ch_mutex.
 * @stats_dir: its fabric_statistics/srpt directory.
 */
struct srpt_tport {
	struct se_wwn		wwn;
	struct config_group	info_group;
	struct srpt_name	id;
	char			name[SRPT_GID_NAME_LEN];
	struct list_head	entry;
	struct srpt_port	*sport;
	struct mutex		tpg_mutex; /* protects tpg_list, srpt_tpg.enabled */
	struct list_head	tpg_list;
	struct srpt_stats	totals;
	struct srpt_stats_dir	stats_dir;
};

/**
 * struct srpt_tpg - a target portal group below a target port
 * @tpg: LIO's view of this object.
 * @tport: the target port this TPG belongs to.
 * @entry: link in @tport->tpg_list, protected by @tport->tpg_mutex.
 * @enabled: whether logins may be accepted through this TPG; protected by
 *	@tport->tpg_mutex.
 * @attrs: its attributes; protected by @tport->tpg_mutex.  Logins take a
 *	copy; a change applies to channels created after it.
 */
struct srpt_tpg {
	struct se_portal_group	tpg;
	struct srpt_tport	*tport;
	struct list_head	entry;
	bool			enabled;
	struct srpt_tpg_attrs	attrs;
};

/**
 * enum srpt_ch_state - life of a channel; it only ever moves forward
 * @SRPT_CH_CONNECTING: login accepted, connection not yet established; IUs
 *	that arrive are served (their arrival proves the initiator got the
 *	login response).
 * @SRPT_CH_LIVE: connection established.
 * @SRPT_CH_DISCONNECTING: closing was decided (logout, disconnect, ACL or
 *	TPG change, device removal); work requests may still be posted and
 *	flush.
 * @SRPT_CH_DRAINING: the release work drains the QP; nothing is posted any
 *	more and LIO's callbacks finish commands locally.
 */
enum srpt_ch_state {
	SRPT_CH_CONNECTING,
	SRPT_CH_LIVE,
	SRPT_CH_DISCONNECTING,
	SRPT_CH_DRAINING,
};

struct srpt_rdma_ch;

/**
 * struct srpt_cm_ops - what differs between the IB CM and the RDMA/CM
 * @name: "IB CM" or "RDMA/CM", for the login log line.
 * @create_qp: create the channel's QP (ch->qp) and bring it to where the
 *	transport accepts the connection.
 * @destroy_qp: destroy it.
 * @disconnect: start a disconnect (DREQ); errors are ignored.
 * @destroy_id: destroy the connection's CM id; never from its callback.
 * @comm_est: tell the CM a request arrived before its RTU did.
 *
 * The rest of the channel code is the same for both.
 */
struct srpt_cm_ops {
	const char *name;
	int (*create_qp)(struct srpt_rdma_ch *ch, struct ib_qp_init_attr *attr);
	void (*destroy_qp)(struct srpt_rdma_ch *ch);
	void (*disconnect)(struct srpt_rdma_ch *ch);
	void (*destroy_id)(struct srpt_rdma_ch *ch);
	void (*comm_est)(struct srpt_rdma_ch *ch);
};

/**
 * struct srpt_recv - one receive buffer of a channel
 * @cqe: completion entry of the posted receive.
 * @ch: owning channel; NULL for a buffer of a device's SRQ.
 * @srq: the SRQ this buffer belongs to, or NULL for a channel's own ring.
 * @mem: the block of pages this buffer heads, shared with the buffers
 *	that follow it in the ring (srpt_alloc_recv_bufs()); NULL in those.
 * @mem_len: bytes of @mem, mapped for DMA as one range.
 * @buf: the buffer, @ch->max_it_iu_len bytes, placed in its block so that
 *	immediate data (at @ch->imm_data_offset) starts SRPT_IMM_ALIGN-aligned.
 * @dma: its DMA address.
 * @byte_len: bytes of the IU last received into @buf.
 * @t_recv: when it arrived (ktime_get_ns()).
 * @credit: whether that IU consumed a request credit (SRP_CMD,
 *	SRP_TSK_MGMT), which reposting the buffer gives back.
 * @wait_entry: link in @ch->recv_wait while no command context is free.
 * @sge: the scatter/gather entry of @buf, set up once with the buffer.
 * @wr: the receive work request of @sge, set up once with the buffer.
 */
struct srpt_recv {
	struct ib_cqe		cqe;
	struct srpt_rdma_ch	*ch;
	struct srpt_srq		*srq;
	void			*mem;
	u32			mem_len;
	void			*buf;
	dma_addr_t		dma;
	u32			byte_len;
	u64			t_recv;
	bool			credit;
	struct list_head	wait_entry;
	struct ib_sge		sge;
	struct ib_recv_wr	wr;
};

/**
 * struct srpt_rw - one remote buffer of a command and its local memory
 * @rw: RDMA R/W API context.
 * @sg: local scatterlist for this buffer (chainable).
 * @nents: entries of @sg, excluding the chain entry.
 * @map_nents: entries of @sg that @rw maps (all, or the first ones when a
 *	DATA-IN came out shorter, srpt_trim_data_in()); 0 while @rw is not
 *	initialized.
 * @wrs: send queue entries @rw posts.
 * @desc: the remote buffer.
 */
struct srpt_rw {
	struct rdma_rw_ctx	rw;
	struct scatterlist	*sg;
	unsigned int		nents;
	unsigned int		map_nents;
	u32			wrs;
	struct srpt_desc	desc;
};

/**
 * enum srpt_cmd_state - life of a command context; it only moves forward
 * @SRPT_CMD_FREE: on @ch->free_cmds.
 * @SRPT_CMD_NEW: parsed, not yet handed to LIO (or fetching its external
 *	descriptor table).
 * @SRPT_CMD_EXEC: with LIO.
 * @SRPT_CMD_DATA_OUT: RDMA READ of the DATA-OUT buffers posted or queued.
 * @SRPT_CMD_RSP: response (and DATA-IN) posted or queued.
 * @SRPT_CMD_DONE: response completed or the command was aborted; waiting
 *	for LIO to release it.
 */
enum srpt_cmd_state {
	SRPT_CMD_FREE,
	SRPT_CMD_NEW,
	SRPT_CMD_EXEC,
	SRPT_CMD_DATA_OUT,
	SRPT_CMD_RSP,
	SRPT_CMD_DONE,
};

/**
 * enum srpt_sq_op - what a command posts once send queue room is free
 * @SRPT_SQ_TABLE: RDMA READ of an external descriptor table.
 * @SRPT_SQ_DATA_OUT: RDMA READ of DATA-OUT buffers.
 * @SRPT_SQ_RSP: RDMA WRITE of DATA-IN buffers (if any) and the response.
 */
enum srpt_sq_op {
	SRPT_SQ_TABLE,
	SRPT_SQ_DATA_OUT,
	SRPT_SQ_RSP,
};

/**
 * struct srpt_cmd - one request (SRP_CMD or SRP_TSK_MGMT) of a channel
 * @se_cmd: LIO's view of the command.
 * @ch: owning channel.
 * @recv: receive buffer holding the request IU, until it is reposted (the
 *	IU and any immediate data in it stay valid until then); the response
 *	takes it over when it is built, and reposts it as it is posted.
 * @state: enum srpt_cmd_state: raised by srpt_set_cmd_state() (a
 *	compare-and-swap), set to FREE and NEW under @ch->lock by whoever
 *	owns the context (putting it on or taking it off @ch->free_cmds).
 * @lio: whether @se_cmd was initialized (else a response the driver made
 *	itself, for a request LIO never saw).
 * @tag: the request's tag.
 * @rdma_cqe: completion of the last RDMA READ.
 * @send_cqe: completion of the response.
 * @rsp: response buffer, @ch->max_ti_iu_len bytes; @rsp_dma its address.
 * @rsp_dma: DMA address of @rsp.
 * @rsp_len: bytes of @rsp to send.
 * @rsp_credits: the credits (REQUEST LIMIT DELTA) @rsp grants.
 * @rsp_sge: the scatter/gather entry of @rsp; its length is set per
 *	response, the rest once with the ring.
 * @rsp_wr: the signaled SEND of @rsp_sge, set up once with the ring.
 * @sq_op: what to post when send queue room frees (see @sq_entry).
 * @sq_wrs: send queue entries reserved for what is posted now.
 * @data_wrs: send queue entries the data transfer takes.
 * @rsp_with_data: the response post carries the DATA-IN writes.
 * @table_mapped: @table_rw holds a live RDMA R/W context.
 * @sq_entry: link in @ch->free_cmds or @ch->sq_wait.
 * @dir: data direction of the SRP_CMD.
 * @data_len: bytes the descriptors describe.
 * @ci: parse result of the SRP_CMD.
 * @rw: the remote buffers (@nrw entries); points at @rw_one for one.
 * @nrw: entries in @rw.
 * @rw_one: storage for the common single-buffer case.
 * @table: external descriptor table fetched by RDMA READ, or NULL.
 * @table_rw: RDMA R/W context and memory of that fetch.
 * @imm_sg: scatterlist over immediate data in @recv.
 * @imm_copy: aligned copy of immediate data that was not SRPT_IMM_ALIGN
 *	aligned in @recv (target_alloc_sgl()), or NULL.
 * @imm_copy_nents: entries of @imm_copy.
 * @tmf: the request is an SRP_TSK_MGMT.
 * @tmf_func: SRP task management function of an SRP_TSK_MGMT.
 * @t_recv: when the request arrived (ktime_get_ns()).
 * @xfer_len: data bytes moved: DATA-OUT received, or DATA-IN the response
 *	carries.
 * @sense: sense buffer handed to LIO.
 */
struct srpt_cmd {
	struct se_cmd		se_cmd;
	struct srpt_rdma_ch	*ch;
	struct srpt_recv	*recv;
	enum srpt_cmd_state	state;
	bool			lio;
	u64			tag;
	struct ib_cqe		rdma_cqe;
	struct ib_cqe		send_cqe;
	void			*rsp;
	dma_addr_t		rsp_dma;
	u32			rsp_len;
	u32			rsp_credits;
	struct ib_sge		rsp_sge;
	struct ib_send_wr	rsp_wr;
	enum srpt_sq_op		sq_op;
	u32			sq_wrs;
	u32			data_wrs;
	bool			rsp_with_data;
	bool			table_mapped;
	struct list_head	sq_entry;
	enum srpt_data_dir	dir;
	u32			data_len;
	struct srpt_cmd_info	ci;
	struct srpt_rw		*rw;
	u32			nrw;
	struct srpt_rw		rw_one;
	u8			*table;
	struct srpt_rw		table_rw;
	struct scatterlist	imm_sg;
	struct scatterlist	*imm_copy;
	u32			imm_copy_nents;
	bool			tmf;
	u8			tmf_func;
	u64			t_recv;
	u32			xfer_len;
	u8			sense[TRANSPORT_SENSE_BUFFER];
};

/**
 * struct srpt_rdma_ch - one RDMA channel: an accepted login
 * @entry: link in srpt_ch_list, protected by srpt_ch_mutex.  A channel is
 *	listed from the moment its login is admitted (before its session,
 *	rings and QP exist) until everything it owns is freed, so whoever
 *	closes channels finds it and whoever waits for them waits for all of
 *	it (see "Lifetimes" in ib_srpt.c).
 * @sport: port the channel was created on.
 * @tport: target port the login named.
 * @stpg: TPG the session belongs to.
 * @cm_ops: the transport's connection operations.
 * @cm_id: the connection's CM id, as @rdma_cm_id or @ib_cm_id.
 * @rdma_cm_id: RDMA/CM id (cm_ops is the RDMA/CM's).
 * @ib_cm_id: IB CM id (cm_ops is the IB CM's).
 * @pkey: P_Key of the login's path (IB CM).
 * @rq_psn: receive PSN of the QP (IB CM): chosen at random for RTR and
 *	announced as the REP's starting PSN.
 * @qp: queue pair.
 * @qp_num: its number, for readers that must not touch @qp.
 * @cq: completion queue of both work queues.
 * @sess: LIO session of the admitting node ACL; written under
 *	srpt_ch_mutex (set by the login path, cleared by the release before
 *	the session is removed), so srpt_ch_list readers may use it.
 * @id: number of the channel, unique while the module is loaded (the
 *	session id configfs shows).
 * @name: channel name for log lines: "<initiator>-<qp number>"; renamed
 *	under srpt_ch_mutex once the QP exists.
 * @i_port_id: initiator port identifier of the login.
 * @t_port_id: target port identifier of the login.
 * @peer: initiator's address (RDMA/CM; family AF_UNSPEC on IB CM).
 * @max_it_iu_len: request IU size granted (receive buffer size).
 * @max_ti_iu_len: response IU size granted.
 * @imm_data_offset: immediate data offset granted, 0 if none.
 * @srq: the device's SRQ when the channel receives through it (then
 *	@recvs is NULL), else NULL.
 * @rq_size: receive buffers in @recvs, command contexts in @cmds.
 * @sq_size: send queue entries usable: what the TPG asked for, bounded by
 *	what the QP really got (one more is kept for the drain).
 * @lock: protects @state, @login_busy, @sq_wait, @sq_waits, @free_cmds,
 *	@recv_wait, the FREE/NEW moves of srpt_cmd.state, and taking room
 *	from @sq_avail.
 * @state: enum srpt_ch_state.
 * @login_busy: the login path still owns the channel (its REP or accept is
 *	not yet out): srpt_ch_close() only marks it closing and leaves the
 *	disconnect and the release to srpt_login_done().
 * @sq_avail: send queue entries not reserved.  Taken under @lock; given
 *	back without it (srpt_sq_complete()).
 * @sq_wait: commands waiting, in order, for send queue room.
 * @sq_waits: how many commands had to wait for send queue room (the
 *	"full N times" of the ACL's info file; read there without @lock).
 * @free_cmds: command contexts not in use.
 * @recv_wait: received requests waiting for a command context.
 * @credits: request credits owed to the initiator (reposted receives of
 *	requests), returned in the next response.
 * @cmds_in_use: command contexts not on @free_cmds (for diagnostics).
 * @reqs_held: request IUs received and not yet reposted.  An initiator
 *	that honours its credits never has more than it was granted; one
 *	that has more loses the channel, so that it cannot take every
 *	buffer of a shared receive queue.
 * @recvs: the receive ring.
 * @cmds: the command contexts, @rq_size of them.
 * @stats: transport counters, per CPU; folded into the totals of its
 *	node ACL and target port when its session ends.
 * @wait_work: serves @recv_wait once command contexts are free again.
 * @release_work: tears the channel down after it was closed.
 */
struct srpt_rdma_ch {
	struct list_head	entry;
	struct srpt_port	*sport;
	struct srpt_tport	*tport;
	struct srpt_tpg		*stpg;
	const struct srpt_cm_ops *cm_ops;
	union {
		void			*cm_id;
		struct rdma_cm_id	*rdma_cm_id;
		struct ib_cm_id		*ib_cm_id;
	};
	u16			pkey;
	u32			rq_psn;
	struct ib_qp		*qp;
	u32			qp_num;
	struct ib_cq		*cq;
	struct se_session	*sess;
	u32			id;
	char			name[64];
	u8			i_port_id[16];
	u8			t_port_id[16];
	struct sockaddr_storage	peer;
	u32			max_it_iu_len;
	u32			max_ti_iu_len;
	u16			imm_data_offset;
	struct srpt_srq		*srq;
	u32			rq_size;
	u32			sq_size;

	spinlock_t		lock;	/* see above */
	enum srpt_ch_state	state;
	bool			login_busy;
	atomic_t		sq_avail;
	struct list_head	sq_wait;
	u32			sq_waits;
	struct list_head	free_cmds;
	struct list_head	recv_wait;

	atomic_t		credits;
	atomic_t		cmds_in_use;
	atomic_t		reqs_held;
	struct srpt_recv	*recvs;
	struct srpt_cmd		*cmds;
	struct srpt_ch_stats __percpu *stats;
	struct work_struct	wait_work;
	struct work_struct	release_work;
};

#endif /* IB_SRPT_H */
