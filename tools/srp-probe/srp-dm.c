// SPDX-License-Identifier: GPL-2.0
/*
 * srp-probe --dm: ask an SRP target's Device Management agent what it
 * offers, over libibumad, and print it the way "ibsrpdm -c" does: one
 * ready-to-use login string per SRP service.  See srp-probe.8.
 *
 * ibsrpdm and srp_daemon find agents through the subnet administrator,
 * which RoCE does not have.  This client is told the target's address
 * instead: the RDMA/CM resolves it to a local RDMA device and port, and the
 * GMPs go to QP1 of the target port's GID, with a GRH, as RoCE requires.
 * Requests are built and answers decoded by srpt_mad.h (its client half).
 */
#include "srp-dm.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <infiniband/umad.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "srpt_kcompat.h"
#include "../../srpt_mad.h"

enum {
	DM_EX_OK	= 0,
	DM_EX_USAGE	= 1,
	DM_EX_CONNECT	= 2,
	DM_EX_BAD	= 8,	/* missing, malformed or inconsistent answer */
	DM_QP1_QKEY	= 0x80010000,
	DM_RETRIES	= 3,
};

/**
 * struct dm - one DM conversation
 * @host: the target's address as given.
 * @dev: local RDMA device the route goes through.
 * @port: its port.
 * @sgid: our GID.
 * @dgid: the target's GID.
 * @sgid_index: index of @sgid in the port's GID table.
 * @pkey: P_Key at index 0 of our port.
 * @portid: libibumad port handle.
 * @agent: our client agent of the DM class.
 * @req: umad buffer of the request.
 * @rsp: umad buffer of the answer.
 * @tid: low 32 bits of the last transaction id.
 * @timeout_ms: per request and try.
 * @quiet: print only the login strings.
 * @bad: the answers so far were not all right.
 */
struct dm {
	const char *host;
	char dev[64];
	int port;
	uint8_t sgid[16];
	uint8_t dgid[16];
	int sgid_index;
	uint16_t pkey;
	int portid;
	int agent;
	void *req;
	void *rsp;
	uint32_t tid;
	int timeout_ms;
	int quiet;
	int bad;
};

static void dm_usage(FILE *f)
{
	fprintf(f,
"usage: srp-probe --dm [options] HOST\n"
"Ask the Device Management agent of the SRP target at HOST (its IP address on\n"
"a RoCE port) for ClassPortInfo, IOUnitInfo, the IOControllerProfile of every\n"
"slot and the ServiceEntries of each SRP I/O controller, and print one login\n"
"string per SRP service as \"ibsrpdm -c\" does.\n"
"\n"
"  -t, --timeout SEC  per request (default 2; each is tried %d times)\n"
"  -q, --quiet        only the login strings\n"
"  -h, --help         this text\n"
"\n"
"Exit status: 0 success, 1 usage, 2 no route or no umad port,\n"
"8 an answer missing, malformed or inconsistent (or no SRP service).\n",
		DM_RETRIES);
}

static void dm_bad(struct dm *d, const char *what)
{
	fprintf(stderr, "srp-probe: %s: %s\n", d->host, what);
	d->bad = 1;
}

/* The GID RoCE uses for an IP address: IPv4-mapped, or the IPv6 one. */
static void dm_ip2gid(const struct sockaddr *sa, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (sa->sa_family == AF_INET) {
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(gid + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(gid, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

/**
 * dm_route() - find the local device, port and GIDs for the target
 * @d: conversation; host and timeout set.
 *
 * Return: 0, or DM_EX_CONNECT (explained on stderr).
 */
static int dm_route(struct dm *d)
{
	struct rdma_event_channel *ch;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id = NULL;
	struct ibv_port_attr pa;
	int ret = DM_EX_CONNECT, i, gai, v2 = -1, any = -1;

	ch = rdma_create_event_channel();
	if (!ch) {
		fprintf(stderr, "srp-probe: no RDMA/CM (rdma_ucm loaded?): %s\n",
			strerror(errno));
		return DM_EX_CONNECT;
	}
	gai = getaddrinfo(d->host, NULL, &hints, &ai);
	if (gai) {
		fprintf(stderr, "srp-probe: %s: %s\n", d->host, gai_strerror(gai));
		goto out;
	}
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(id, NULL, ai->ai_addr, d->timeout_ms)) {
		fprintf(stderr, "srp-probe: %s: address resolution failed: %s\n",
			d->host, strerror(errno));
		goto out;
	}
	if (rdma_get_cm_event(ch, &ev)) {
		fprintf(stderr, "srp-probe: %s: %s\n", d->host, strerror(errno));
		goto out;
	}
	i = ev->event;
	rdma_ack_cm_event(ev);
	if (i != RDMA_CM_EVENT_ADDR_RESOLVED || !id->verbs) {
		fprintf(stderr, "srp-probe: %s: no RDMA route (%s)\n", d->host,
			rdma_event_str(i));
		goto out;
	}
	snprintf(d->dev, sizeof(d->dev), "%s",
		 ibv_get_device_name(id->verbs->device));
	d->port = id->port_num;
	dm_ip2gid(rdma_get_local_addr(id), d->sgid);
	dm_ip2gid(ai->ai_addr, d->dgid);
	if (ibv_query_port(id->verbs, d->port, &pa) ||
	    ibv_query_pkey(id->verbs, d->port, 0, &d->pkey)) {
		fprintf(stderr, "srp-probe: %s port %d: %s\n", d->dev, d->port,
			strerror(errno));
		goto out;
	}
	d->pkey = ntohs(d->pkey);
	/* The GID table index of our GID; RoCE v2 where there is a choice. */
	for (i = 0; i < pa.gid_tbl_len; i++) {
		struct ibv_gid_entry e;

		if (ibv_query_gid_ex(id->verbs, d->port, i, &e, 0) ||
		    memcmp(e.gid.raw, d->sgid, 16))
			continue;
		if (any < 0)
			any = i;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && v2 < 0)
			v2 = i;
	}
	d->sgid_index = v2 >= 0 ? v2 : any;
	if (d->sgid_index < 0) {
		fprintf(stderr, "srp-probe: %s port %d has no GID for the local address\n",
			d->dev, d->port);
		goto out;
	}
	ret = DM_EX_OK;
out:
	if (ai)
		freeaddrinfo(ai);
	if (id)
		rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return ret;
}

/**
 * dm_get() - one Get() and its answer
 * @d: conversation with an open port and agent.
 * @attr: SRPT_DM_ATTR_*.
 * @mod: attribute modifier.
 * @status: the answer's status.
 *
 * Return: the answer's data area (SRPT_DM_DATA_LEN bytes, valid until the
 * next call), or NULL when no answer came (explained on stderr).
 */
static const uint8_t *dm_get(struct dm *d, uint16_t attr, uint32_t mod,
			     uint16_t *status)
{
	uint8_t *req = umad_get_mad(d->req), *rsp = umad_get_mad(d->rsp);
	uint8_t tid[8] = { 0 }, sent[SRPT_DM_MAD_SIZE];
	ib_mad_addr_t *a;
	int len, ret, i;

	d->tid++;
	for (i = 0; i < 4; i++)
		tid[4 + i] = (uint8_t)(d->tid >> (24 - 8 * i));
	memset(d->req, 0, umad_size() + SRPT_DM_MAD_SIZE);
	srpt_dm_build_get(req, SRPT_DM_MAD_SIZE, attr, mod, tid);
	memcpy(sent, req, sizeof(sent));
	umad_set_addr(d->req, 0, 1, 0, DM_QP1_QKEY);
	umad_set_pkey(d->req, 0);
	a = umad_get_mad_addr(d->req);
	a->grh_present = 1;
	a->gid_index = (uint8_t)d->sgid_index;
	a->hop_limit = 64;
	a->traffic_class = 0;
	a->flow_label = 0;
	memcpy(a->gid, d->dgid, 16);
	if (umad_send(d->portid, d->agent, d->req, SRPT_DM_MAD_SIZE,
		      d->timeout_ms, DM_RETRIES - 1) < 0) {
		fprintf(stderr, "srp-probe: sending a DM request failed: %s\n",
			strerror(errno));
		return NULL;
	}
	for (;;) {
		len = SRPT_DM_MAD_SIZE;
		ret = umad_recv(d->portid, d->rsp, &len,
				d->timeout_ms * (DM_RETRIES + 1));
		if (ret < 0) {
			fprintf(stderr, "srp-probe: no answer to the DM request (attribute 0x%04x, modifier 0x%08x): %s\n",
				attr, mod, strerror(errno));
			return NULL;
		}
		if (umad_status(d->rsp)) {
			/* Our own request, back unanswered. */
			fprintf(stderr, "srp-probe: no answer to the DM request (attribute 0x%04x, modifier 0x%08x): %s\n",
				attr, mod, strerror(umad_status(d->rsp)));
			return NULL;
		}
		/*
		 * The MAD layer put its agent's number into the high half of
		 * the transaction id; the low half is ours.
		 */
		if (len < SRPT_DM_MAD_SIZE ||
		    memcmp(rsp + SRPT_DM_HDR_TID + 4, tid + 4, 4))
			continue;
		memcpy(sent + SRPT_DM_HDR_TID, rsp + SRPT_DM_HDR_TID, 4);
		if (srpt_dm_check_rsp(rsp, (size_t)len, sent, status)) {
			fprintf(stderr, "srp-probe: the answer to attribute 0x%04x, modifier 0x%08x is not its GetResp()\n",
				attr, mod);
			return NULL;
		}
		return rsp + SRPT_DM_DATA_OFFSET;
	}
}

static const char *dm_slot_name(uint8_t v)
{
	switch (v) {
	case SRPT_DM_SLOT_EMPTY:
		return "empty";
	case SRPT_DM_SLOT_PRESENT:
		return "present";
	case SRPT_DM_SLOT_NONE:
		return "no slot";
	default:
		return "reserved value";
	}
}

/**
 * dm_services() - the ServiceEntries of an SRP I/O controller
 * @d: conversation.
 * @slot: its slot.
 * @p: its profile.
 *
 * Return: how many login strings were printed.
 */
static int dm_services(struct dm *d, unsigned int slot,
		       const struct srpt_dm_ioc_decoded *p)
{
	unsigned int lo, hi, k;
	const uint8_t *data;
	uint16_t status;
	int n = 0;

	for (lo = 0; lo < p->num_svc_entries; lo += SRPT_DM_SVC_PER_MAD) {
		hi = lo + SRPT_DM_SVC_PER_MAD - 1;
		if (hi >= p->num_svc_entries)
			hi = p->num_svc_entries - 1;
		data = dm_get(d, SRPT_DM_ATTR_SVC_ENTRIES,
			      slot << 16 | hi << 8 | lo, &status);
		if (!data) {
			d->bad = 1;
			return n;
		}
		if (status) {
			fprintf(stderr, "srp-probe: ServiceEntries %u..%u of slot %u: status 0x%04x\n",
				lo, hi, slot, status);
			d->bad = 1;
			return n;
		}
		for (k = lo; k <= hi; k++) {
			char name[SRPT_DM_SVC_NAME_LEN + 1];
			uint64_t id, ext;

			srpt_dm_parse_svc_entry(data + (k - lo) *
						SRPT_DM_SVC_ENTRY_LEN,
						name, &id);
			if (!d->quiet)
				printf("ServiceEntries slot %u entry %u: name '%s', service id 0x%016llx\n",
				       slot, k, name, (unsigned long long)id);
			if (srpt_dm_svc_name_id_ext(name, &ext)) {
				fprintf(stderr, "srp-probe: service entry %u of slot %u: '%s' is not an SRP target port name\n",
					k, slot, name);
				d->bad = 1;
				continue;
			}
			printf("id_ext=%016llx,ioc_guid=%016llx,dgid=",
			       (unsigned long long)ext,
			       (unsigned long long)p->ioc_guid);
			for (int b = 0; b < 16; b++)
				printf("%02x", d->dgid[b]);
			printf(",pkey=%04x,service_id=%016llx\n", d->pkey,
			       (unsigned long long)id);
			n++;
		}
	}
	return n;
}

static void dm_print_profile(unsigned int slot,
			     const struct srpt_dm_ioc_decoded *p)
{
	printf("IOControllerProfile slot %u: ioc_guid 0x%016llx\n", slot,
	       (unsigned long long)p->ioc_guid);
	printf("IOControllerProfile slot %u: vendor id 0x%06x, device id 0x%08x, device version 0x%04x\n",
	       slot, p->vendor_id, p->device_id, p->device_version);
	printf("IOControllerProfile slot %u: subsystem vendor id 0x%06x, subsystem id 0x%08x\n",
	       slot, p->subsys_vendor_id, p->subsys_device_id);
	printf("IOControllerProfile slot %u: I/O class 0x%04x, subclass 0x%04x, protocol 0x%04x, protocol version %u\n",
	       slot, p->io_class, p->io_subclass, p->protocol,
	       p->protocol_version);
	printf("IOControllerProfile slot %u: send queue depth %u, RDMA read depth %u\n",
	       slot, p->send_queue_depth, p->rdma_read_depth);
	printf("IOControllerProfile slot %u: send size %u, RDMA size %u\n",
	       slot, p->send_size, p->rdma_size);
	printf("IOControllerProfile slot %u: capabilities 0x%02x, %u service entries, id '%s'\n",
	       slot, p->op_cap_mask, p->num_svc_entries, p->id_string);
}

/**
 * dm_query() - the whole conversation
 * @d: conversation with an open port and agent.
 *
 * Return: the exit status.
 */
static int dm_query(struct dm *d)
{
	const uint8_t *data;
	uint8_t list[SRPT_DM_IOU_CONTROLLER_LIST_LEN];
	unsigned int slot, max, present = 0;
	uint16_t status;
	int logins = 0;

	data = dm_get(d, SRPT_DM_ATTR_CLASS_PORT_INFO, 0, &status);
	if (!data)
		return DM_EX_BAD;
	if (!d->quiet)
		printf("ClassPortInfo: status 0x%04x, base version %u, class version %u, capability mask 0x%04x, response time value %u\n",
		       status, data[SRPT_DM_CPI_BASE_VERSION],
		       data[SRPT_DM_CPI_CLASS_VERSION],
		       srpt_get_be16(data + SRPT_DM_CPI_CAP_MASK),
		       srpt_get_be32(data + SRPT_DM_CPI_CAP2_RESP_TIME) &
		       SRPT_DM_CPI_RESP_TIME_MASK);
	if (status || data[SRPT_DM_CPI_BASE_VERSION] != 1 ||
	    data[SRPT_DM_CPI_CLASS_VERSION] != 1)
		dm_bad(d, "ClassPortInfo: bad status or versions");

	data = dm_get(d, SRPT_DM_ATTR_IOU_INFO, 0, &status);
	if (!data)
		return DM_EX_BAD;
	max = data[SRPT_DM_IOU_MAX_CONTROLLERS];
	memcpy(list, data + SRPT_DM_IOU_CONTROLLER_LIST, sizeof(list));
	if (!d->quiet)
		printf("IOUnitInfo: status 0x%04x, change id %u, %u controller slots, flags 0x%02x\n",
		       status, srpt_get_be16(data + SRPT_DM_IOU_CHANGE_ID), max,
		       data[SRPT_DM_IOU_FLAGS]);
	if (status) {
		dm_bad(d, "IOUnitInfo: bad status");
		return DM_EX_BAD;
	}
	for (slot = 1; slot <= max; slot++) {
		uint8_t v = srpt_dm_get_slot(list, slot);
		struct srpt_dm_ioc_decoded p;

		if (!d->quiet)
			printf("IOUnitInfo: slot %u %s\n", slot, dm_slot_name(v));
		data = dm_get(d, SRPT_DM_ATTR_IOC_PROFILE, slot, &status);
		if (!data)
			return DM_EX_BAD;
		if (v != SRPT_DM_SLOT_PRESENT) {
			if (!d->quiet)
				printf("IOControllerProfile slot %u: status 0x%04x%s\n",
				       slot, status,
				       status == SRPT_DM_STATUS_NO_IOC ?
				       " (no IOC)" : "");
			if (status != SRPT_DM_STATUS_NO_IOC) {
				fprintf(stderr, "srp-probe: %s: slot %u is %s in IOUnitInfo, but its IOControllerProfile answered status 0x%04x, not 0x%04x (no IOC)\n",
					d->host, slot, dm_slot_name(v), status,
					SRPT_DM_STATUS_NO_IOC);
				d->bad = 1;
			}
			continue;
		}
		present++;
		if (status) {
			fprintf(stderr, "srp-probe: %s: IOControllerProfile of present slot %u: status 0x%04x\n",
				d->host, slot, status);
			d->bad = 1;
			continue;
		}
		srpt_dm_parse_ioc_profile(data, &p);
		if (!d->quiet) {
			printf("IOControllerProfile slot %u: status 0x0000 (answered)\n",
			       slot);
			dm_print_profile(slot, &p);
		}
		if (p.io_class != SRPT_DM_IO_CLASS_SRP ||
		    p.protocol != SRPT_DM_PROTOCOL_SRP)
			continue;	/* not SRP: srp_daemon skips it too */
		logins += dm_services(d, slot, &p);
	}
	if (!present)
		dm_bad(d, "IOUnitInfo lists no I/O controller");
	if (!logins)
		dm_bad(d, "no SRP service found");
	return d->bad ? DM_EX_BAD : DM_EX_OK;
}

int srp_dm_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "timeout", 1, NULL, 't' }, { "quiet", 0, NULL, 'q' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct dm d = { .timeout_ms = 2000, .portid = -1, .agent = -1 };
	int opt, ex;
	char *end;

	while ((opt = getopt_long(argc, argv, "t:qh", lo, NULL)) != -1) {
		switch (opt) {
		case 't':
			d.timeout_ms = (int)strtol(optarg, &end, 0) * 1000;
			if (*end || d.timeout_ms <= 0 || d.timeout_ms > 60000) {
				fprintf(stderr, "srp-probe: --timeout must be 1..60 seconds\n");
				return DM_EX_USAGE;
			}
			break;
		case 'q':
			d.quiet = 1;
			break;
		case 'h':
			dm_usage(stdout);
			return DM_EX_OK;
		default:
			dm_usage(stderr);
			return DM_EX_USAGE;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "srp-probe: --dm takes the target's address\n");
		dm_usage(stderr);
		return DM_EX_USAGE;
	}
	d.host = argv[optind];
	ex = dm_route(&d);
	if (ex)
		return ex;
	if (!d.quiet) {
		char s[INET6_ADDRSTRLEN], t[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, d.sgid, s, sizeof(s));
		inet_ntop(AF_INET6, d.dgid, t, sizeof(t));
		printf("route: %s port %d, GID %s (index %d) to %s, P_Key 0x%04x\n",
		       d.dev, d.port, s, d.sgid_index, t, d.pkey);
	}
	if (umad_init() < 0) {
		fprintf(stderr, "srp-probe: libibumad: cannot initialize\n");
		return DM_EX_CONNECT;
	}
	d.portid = umad_open_port(d.dev, d.port);
	if (d.portid < 0) {
		fprintf(stderr, "srp-probe: cannot open the umad device of %s port %d (ib_umad loaded?): %s\n",
			d.dev, d.port, strerror(-d.portid));
		ex = DM_EX_CONNECT;
		goto out;
	}
	d.agent = umad_register(d.portid, SRPT_DM_MGMT_CLASS,
				SRPT_DM_CLASS_VERSION, 0, NULL);
	d.req = calloc(1, umad_size() + SRPT_DM_MAD_SIZE);
	d.rsp = calloc(1, umad_size() + SRPT_DM_MAD_SIZE);
	if (d.agent < 0 || !d.req || !d.rsp) {
		fprintf(stderr, "srp-probe: cannot register a DM client on %s port %d\n",
			d.dev, d.port);
		ex = DM_EX_CONNECT;
		goto out;
	}
	ex = dm_query(&d);
out:
	if (d.agent >= 0)
		umad_unregister(d.portid, d.agent);
	if (d.portid >= 0)
		umad_close_port(d.portid);
	free(d.req);
	free(d.rsp);
	umad_done();
	return ex;
}
