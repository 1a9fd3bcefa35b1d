/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srpi: a small userspace SRP initiator over RDMA/CM (librdmacm, libibverbs).
 *
 * It logs in to an SRP target, sends information units and collects what the
 * target sends back.  Requests are built here from the SRP r16a layouts,
 * independently of the target's own srpt_iu.h, so that the two check each
 * other.  Every builder writes plain bytes, so a caller may damage an IU
 * after building it: srp-hostile does exactly that.
 */
#ifndef SRPI_H
#define SRPI_H

#include <stddef.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>

/* IU opcodes (SRP r16a table 9). */
enum {
	SRPI_LOGIN_REQ	= 0x00,
	SRPI_TSK_MGMT	= 0x01,
	SRPI_CMD	= 0x02,
	SRPI_I_LOGOUT	= 0x03,
	SRPI_CRED_RSP	= 0x41,
	SRPI_AER_RSP	= 0x42,
	SRPI_T_LOGOUT	= 0x80,
	SRPI_CRED_REQ	= 0x81,
	SRPI_AER_REQ	= 0x82,
	SRPI_LOGIN_RSP	= 0xc0,
	SRPI_RSP	= 0xc1,
	SRPI_LOGIN_REJ	= 0xc2,
};

/* Buffer format bits, multichannel actions and login response flags. */
enum {
	SRPI_FMT_DIRECT		= 1 << 1,
	SRPI_FMT_INDIRECT	= 1 << 2,
	SRPI_MULTICHAN_SINGLE	= 0,
	SRPI_MULTICHAN_MULTI	= 1,
	SRPI_IMMED_REQUESTED	= 0x80,
	SRPI_RSP_IMMED_SUPP	= 0x80,
};

/* Descriptor formats of SRP_CMD and data directions. */
enum srpi_desc_fmt {
	SRPI_DESC_NONE		= 0,
	SRPI_DESC_DIRECT	= 1,
	SRPI_DESC_INDIRECT	= 2,
	SRPI_DESC_IMM		= 3,
	SRPI_DESC_EXTERNAL	= 16,	/* indirect, table not in the IU */
};

enum srpi_dir { SRPI_DIR_NONE, SRPI_DIR_OUT, SRPI_DIR_IN };

/* SRP_RSP flags. */
enum {
	SRPI_RSPVALID	= 1 << 0,
	SRPI_SNSVALID	= 1 << 1,
	SRPI_DOOVER	= 1 << 2,
	SRPI_DOUNDER	= 1 << 3,
	SRPI_DIOVER	= 1 << 4,
	SRPI_DIUNDER	= 1 << 5,
};

/* Task management functions. */
enum {
	SRPI_TMF_ABORT_TASK	= 0x01,
	SRPI_TMF_ABORT_TASK_SET	= 0x02,
	SRPI_TMF_CLEAR_TASK_SET	= 0x04,
	SRPI_TMF_LUN_RESET	= 0x08,
	SRPI_TMF_CLEAR_ACA	= 0x40,
};

/* SRP_CMD task attributes (SRP r16a, byte 29 bits 2..0; 3 is reserved). */
enum {
	SRPI_TASK_SIMPLE	= 0,
	SRPI_TASK_HEAD_OF_QUEUE	= 1,
	SRPI_TASK_ORDERED	= 2,
	SRPI_TASK_ACA		= 4,
};

#define SRPI_LOGIN_RDMA_LEN	56
#define SRPI_CMD_LEN		48
#define SRPI_TMF_LEN		48
#define SRPI_RSP_LEN		36
#define SRPI_SLOT_SIZE		65536	/* largest IU srpi sends */
#define SRPI_RECV_SIZE		8192	/* largest IU srpi receives */

/**
 * struct srpi_login - the login request to send
 * @tag: opaque tag
 * @it_iu_len: largest request IU the initiator will send
 * @buf_fmt: SRPI_FMT_* bits
 * @flags: multichannel action and SRPI_IMMED_REQUESTED
 * @imm_offset: immediate data offset asked for
 * @initiator_id: initiator port identifier
 * @target_id: target port identifier (id_ext then ioc_guid)
 */
struct srpi_login {
	uint64_t tag;
	uint32_t it_iu_len;
	uint16_t buf_fmt;
	uint8_t flags;
	uint16_t imm_offset;
	uint8_t initiator_id[16];
	uint8_t target_id[16];
};

/* Why a connection attempt ended the way it did. */
enum srpi_result {
	SRPI_OK,
	SRPI_E_ADDR,		/* address resolution failed */
	SRPI_E_ROUTE,		/* route resolution failed */
	SRPI_E_REJECTED,	/* connection rejected (see rej_*) */
	SRPI_E_UNREACHABLE,	/* no answer from the target's CM */
	SRPI_E_CONNECT,		/* connect error */
	SRPI_E_TIMEOUT,		/* no CM event in time */
	SRPI_E_SYSTEM,		/* a local verbs or CM call failed */
	SRPI_E_BADRSP,		/* accepted with no valid SRP_LOGIN_RSP */
};

/**
 * struct srpi_outcome - what a login attempt produced
 * @result: SRPI_OK or the failure
 * @cm_status: status of the CM event that ended it (IB CM reject reason)
 * @has_rej: an SRP_LOGIN_REJ came with the reject
 * @rej_reason: its reason
 * @rej_buf_fmt: the buffer formats it advertises
 * @req_lim: credits granted (SRP_LOGIN_RSP)
 * @max_it_iu_len: request IU size granted
 * @max_ti_iu_len: response IU size the target will send
 * @buf_fmt: buffer formats granted
 * @rsp_flags: multichannel result and SRPI_RSP_IMMED_SUPP
 * @tag_ok: the response echoed the request's tag
 * @msg: human-readable detail of a failure
 */
struct srpi_outcome {
	enum srpi_result result;
	int cm_status;
	int has_rej;
	uint32_t rej_reason;
	uint16_t rej_buf_fmt;
	uint32_t req_lim;
	uint32_t max_it_iu_len;
	uint32_t max_ti_iu_len;
	uint16_t buf_fmt;
	uint8_t rsp_flags;
	int tag_ok;
	char msg[160];
};

/**
 * struct srpi_opts - where and how to connect
 * @host: target address (IPv4, IPv6 or name)
 * @port: RDMA/CM port
 * @timeout_ms: per CM step and per response
 * @data_size: bytes of registered data buffer (remote read and write)
 * @queue_depth: send and receive queue depth
 * @recv_hold: when above 0 (and below @queue_depth), post only this many
 *	receive buffers and never repost them: after that many IUs from the
 *	target its sends wait for the initiator (receiver not ready)
 * @verbose: print every IU sent and received
 * @ini_port_guid: put the local port GUID into bytes 24..31 of the login
 *	(the second half of the initiator port id) once the route is known
 */
struct srpi_opts {
	const char *host;
	const char *port;
	int timeout_ms;
	size_t data_size;
	int queue_depth;
	int recv_hold;
	int verbose;
	int ini_port_guid;
};

/**
 * struct srpi_rsp - an SRP_RSP, decoded
 * @tag: its tag
 * @req_lim_delta: credits it returned
 * @flags: SRPI_* flags
 * @status: SCSI status
 * @do_resid: DATA-OUT residual count
 * @di_resid: DATA-IN residual count
 * @resp_len: response data length
 * @resp: the first response data bytes (TMF response code in resp[3])
 * @sense_len: sense data length (the SRP_RSP's SENSE DATA LIST LENGTH)
 * @sense_got: sense bytes the IU actually carried (a target truncates
 *	sense to its maximum response IU)
 * @iu_len: length of the SRP_RSP as received
 * @sense: the sense data (first 96 bytes)
 * @key: sense key (0 when no sense)
 * @asc: additional sense code
 * @ascq: its qualifier
 */
struct srpi_rsp {
	uint64_t tag;
	uint32_t req_lim_delta;
	uint8_t flags;
	uint8_t status;
	uint32_t do_resid;
	uint32_t di_resid;
	uint32_t resp_len;
	uint8_t resp[8];
	uint32_t sense_len;
	uint32_t sense_got;
	uint32_t iu_len;
	uint8_t sense[96];
	uint8_t key, asc, ascq;
};

struct srpi_conn;

/* Results of srpi_wait_rsp() besides 0. */
#define SRPI_GONE	(-1)	/* channel disconnected or in error */
#define SRPI_TIMEDOUT	(-2)	/* no response in time */

/**
 * struct srpi_cmd - an SRP_CMD to build
 * @tag: opaque tag
 * @lun: LUN number (SAM single level / flat encoding)
 * @task_attr: task attribute (SRPI_TASK_*)
 * @cdb: CDB bytes (16 plus @add_cdb_len)
 * @cdb_len: valid bytes in @cdb; the IU's CDB field is padded to 16
 * @dir: data direction
 * @fmt: descriptor format; SRPI_DESC_EXTERNAL puts the table in the data
 *	buffer at @table_off
 * @data_off: offset of the data in the connection's data buffer
 * @data_len: data length
 * @ndesc: number of descriptors the data is split into (indirect formats)
 * @table_off: where the external table goes in the data buffer
 * @imm: immediate data (SRPI_DESC_IMM), copied into the IU
 */
struct srpi_cmd {
	uint64_t tag;
	uint64_t lun;
	uint8_t task_attr;
	uint8_t cdb[272];
	uint32_t cdb_len;
	enum srpi_dir dir;
	enum srpi_desc_fmt fmt;
	size_t data_off;
	uint32_t data_len;
	uint32_t ndesc;
	size_t table_off;
	const void *imm;
};

/* Building IUs (plain bytes; return the IU length, 0 if @max is short). */
size_t srpi_build_login(uint8_t *buf, const struct srpi_login *l);
size_t srpi_build_cmd(struct srpi_conn *c, uint8_t *iu, size_t max,
		      const struct srpi_cmd *cmd);
size_t srpi_build_tmf(uint8_t *iu, uint64_t tag, uint64_t lun, uint8_t func,
		      uint64_t task_tag);
size_t srpi_build_i_logout(uint8_t *iu, uint64_t tag);
void srpi_put_lun(uint8_t *p, uint64_t lun);

/* Connections. */
struct srpi_conn *srpi_connect(const struct srpi_opts *o,
			       const void *login, size_t login_len,
			       struct srpi_outcome *out);
void srpi_close(struct srpi_conn *c);
void srpi_disconnect(struct srpi_conn *c);
int srpi_send(struct srpi_conn *c, const void *iu, size_t len);
int srpi_send_credit(struct srpi_conn *c, const void *iu, size_t len);
/*
 * Post every receive buffer an @recv_hold connection held back and repost
 * from then on: the target's sends that waited (receiver not ready) go on.
 * 0, or SRPI_GONE when posting failed.
 */
int srpi_recv_release(struct srpi_conn *c);
int srpi_wait_rsp(struct srpi_conn *c, uint64_t tag, int timeout_ms,
		  struct srpi_rsp *rsp);
int srpi_wait_gone(struct srpi_conn *c, int timeout_ms);
int srpi_poll(struct srpi_conn *c, int timeout_ms);
int srpi_gone(const struct srpi_conn *c);
const char *srpi_gone_why(const struct srpi_conn *c);
int srpi_credits(const struct srpi_conn *c);
/* The credits the login response granted. */
int srpi_granted(const struct srpi_conn *c);
uint32_t srpi_t_logout_reason(const struct srpi_conn *c, int *seen);
unsigned int srpi_unexpected(const struct srpi_conn *c);
uint8_t *srpi_data(struct srpi_conn *c);
uint64_t srpi_data_addr(const struct srpi_conn *c, size_t off);
uint32_t srpi_data_rkey(const struct srpi_conn *c);
uint64_t srpi_next_tag(struct srpi_conn *c);
int srpi_local_port_guid(const struct srpi_conn *c, uint8_t guid[8]);
uint16_t srpi_imm_offset(const struct srpi_conn *c);
void srpi_set_imm_offset(struct srpi_conn *c, uint16_t off);

/* Run one SCSI command and wait for its response. */
int srpi_scsi(struct srpi_conn *c, struct srpi_cmd *cmd, int timeout_ms,
	      struct srpi_rsp *rsp);

/* Names for log lines. */
const char *srpi_result_str(enum srpi_result r);
const char *srpi_rej_str(uint32_t reason);
const char *srpi_cm_rej_str(int status);
int srpi_parse_hex(const char *s, uint8_t *out, size_t n);

#endif /* SRPI_H */
