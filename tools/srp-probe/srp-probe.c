// SPDX-License-Identifier: GPL-2.0
/*
 * srp-probe: log in to an SRP target over RDMA/CM and check it, without the
 * kernel initiator.  See srp-probe.8.
 */
#include "srpi.h"
#include "srp-dm.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

enum {
	EX_OK		= 0,
	EX_USAGE	= 1,
	EX_CONNECT	= 2,
	EX_REJECTED	= 3,
	EX_SCSI		= 4,
	EX_VERIFY	= 5,
	EX_TMF		= 6,
	EX_LOST		= 7,
};

struct probe {
	struct srpi_opts o;
	struct srpi_login l;
	struct srpi_conn *c;
	int have_target, have_ini, quiet;
	long lun;		/* -1: every LUN REPORT LUNS lists */
	unsigned long long lba;
	unsigned int wv_blocks;
	enum srpi_desc_fmt wv_fmt;
	int tmf;
	unsigned long long task_tag;
	int timeout_ms;
	int hold_s;		/* --hold: -1, or seconds to stay logged in */
	int logins;		/* --logins: that many at once (with --hold) */
	uint8_t task_attr;	/* --task-attr: SRPI_TASK_* of every command */
	const char *stall_cmd;	/* --stall: the target's state, asked twice */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: srp-probe [options] --id-ext HEX HOST PORT\n"
"       srp-probe --dm [options] HOST   (Device Management query, see --dm --help)\n"
"Log in to an SRP target over RDMA/CM, show the login response, run INQUIRY,\n"
"REPORT LUNS and READ CAPACITY, optionally a write/read/verify and a task\n"
"management request, and log out.\n"
"\n"
"  -e, --id-ext HEX          target port id_ext (the target's srpt_service_guid)\n"
"  -g, --ioc-guid HEX        target port ioc_guid (default: id_ext)\n"
"  -T, --target-id HEX32     the whole 128-bit target port id instead\n"
"  -x, --initiator-ext HEX   initiator_ext: first half of the initiator port id\n"
"                            (default 0; the second half is the local port GUID)\n"
"  -I, --initiator-id HEX32  the whole 128-bit initiator port id instead\n"
"  -s, --iu-len N            requested maximum request IU length (default 8260)\n"
"  -m, --immediate OFFSET    request immediate data at OFFSET (e.g. 80)\n"
"  -f, --formats LIST        buffer formats: direct, indirect or both (default)\n"
"  -S, --single              multichannel action SINGLE (ends other channels of\n"
"                            the same initiator and target port ids); default MULTI\n"
"  -l, --lun N               check only LUN N\n"
"  -w, --write-verify N      write N blocks at --lba, read them back, compare\n"
"                            (destroys data there)\n"
"  -a, --lba N               first block of the write test (default 0)\n"
"  -d, --desc FMT            descriptors for the write test: direct (default),\n"
"                            indirect, external or immediate\n"
"  -k, --tmf FUNC            send a task management request to the LUN: abort-task,\n"
"                            abort-task-set, clear-task-set, lun-reset, clear-aca\n"
"      --task-tag N          the tag ABORT TASK names (default 0)\n"
"      --task-attr ATTR      task attribute of every SCSI command: simple\n"
"                            (default), head-of-queue, ordered or aca\n"
"      --hold SEC            after the login, no SCSI: stay logged in SEC seconds\n"
"                            (or until the target ends the channel, exit 7),\n"
"                            then log out; with a small buffer (many at once)\n"
"      --logins N            with --hold: N logins at once (1..1024), one thread\n"
"                            each; prints how long until the target answered all\n"
"      --stall CMD           requests that wait at the target for a command\n"
"                            context, a LUN RESET (or --tmf) among them; CMD\n"
"                            built|waiting says when the target is there\n"
"                            (srp-probe.8)\n"
"  -t, --timeout SEC         per step (default 10)\n"
"  -q, --quiet               only errors\n"
"  -v, --verbose             trace every IU\n"
"  -h, --help                this text\n"
"\n"
"Exit status: 0 success, 1 usage, 2 could not connect, 3 login rejected,\n"
"4 a SCSI command failed, 5 data mismatch, 6 task management failed,\n"
"7 channel lost, 8 (--dm) a Device Management answer missing or wrong.\n");
}

static int parse_id(const char *s, uint8_t *out, size_t n, const char *what)
{
	if (srpi_parse_hex(s, out, n) == 0)
		return 0;
	fprintf(stderr, "srp-probe: invalid %s '%s': expected up to %zu hex digits\n",
		what, s, 2 * n);
	return -1;
}

/* A value by its name on the command line. */
struct named {
	const char *name;
	int val;
};

static const struct named tmf_names[] = {
	{ "abort-task", SRPI_TMF_ABORT_TASK },
	{ "abort-task-set", SRPI_TMF_ABORT_TASK_SET },
	{ "clear-task-set", SRPI_TMF_CLEAR_TASK_SET },
	{ "lun-reset", SRPI_TMF_LUN_RESET },
	{ "clear-aca", SRPI_TMF_CLEAR_ACA },
	{ NULL, 0 },
};

static const struct named task_attr_names[] = {
	{ "simple", SRPI_TASK_SIMPLE },
	{ "head-of-queue", SRPI_TASK_HEAD_OF_QUEUE },
	{ "ordered", SRPI_TASK_ORDERED },
	{ "aca", SRPI_TASK_ACA },
	{ NULL, 0 },
};

/* The value named @s in @t (ended by a NULL name), or -1. */
static int by_name(const struct named *t, const char *s)
{
	for (; t->name; t++)
		if (!strcmp(s, t->name))
			return t->val;
	return -1;
}

static int scsi_failed(const char *what, int ret, const struct srpi_rsp *r,
		       struct srpi_conn *c)
{
	if (ret == SRPI_GONE) {
		fprintf(stderr, "srp-probe: %s: channel lost: %s\n", what,
			srpi_gone_why(c));
		return EX_LOST;
	}
	if (ret == SRPI_TIMEDOUT) {
		fprintf(stderr, "srp-probe: %s: no response within the timeout\n",
			what);
		return EX_SCSI;
	}
	if (ret) {
		fprintf(stderr, "srp-probe: %s: could not build the command\n",
			what);
		return EX_SCSI;
	}
	if (r->status) {
		fprintf(stderr, "srp-probe: %s: SCSI status 0x%02x", what,
			r->status);
		/* Fixed format: the key in byte 2, ASC/ASCQ in 12 and 13. */
		if (r->sense_got >= 14 || (r->sense_got >= 4 &&
					   (r->sense[0] & 0x7f) >= 0x72))
			fprintf(stderr, ", sense key 0x%x, ASC/ASCQ 0x%02x/0x%02x",
				r->key, r->asc, r->ascq);
		else if (r->sense_got >= 3)
			fprintf(stderr, ", sense key 0x%x, no ASC/ASCQ",
				r->key);
		if (r->sense_len)
			fprintf(stderr, " (sense length %u, %u bytes in a %u-byte SRP_RSP)",
				r->sense_len, r->sense_got, r->iu_len);
		fprintf(stderr, "\n");
		return EX_SCSI;
	}
	return EX_OK;
}

static int run(struct probe *p, const char *what, uint64_t lun,
	       const uint8_t *cdb, int cdb_len, enum srpi_dir dir,
	       enum srpi_desc_fmt fmt, size_t off, uint32_t len,
	       struct srpi_rsp *r)
{
	struct srpi_cmd cmd = {
		.lun = lun, .task_attr = p->task_attr,
		.cdb_len = (uint32_t)cdb_len, .dir = dir,
		.fmt = len ? fmt : SRPI_DESC_NONE, .data_off = off,
		.data_len = len, .ndesc = fmt == SRPI_DESC_DIRECT ? 1 : 4,
		.table_off = p->o.data_size - 4096,
	};
	int ret;

	int tries = 0;

	memcpy(cmd.cdb, cdb, cdb_len);
	if (fmt == SRPI_DESC_IMM)
		cmd.imm = srpi_data(p->c) + off;
	/*
	 * A UNIT ATTENTION reports an event (a reset, a capacity change)
	 * once, to whichever command comes first: say so and send the
	 * command again, as SCSI initiators do.
	 */
	for (;;) {
		ret = srpi_scsi(p->c, &cmd, p->timeout_ms, r);
		if (ret || r->status != 0x02 || r->key != 0x6 || ++tries > 3)
			break;
		if (!p->quiet)
			printf("%s: UNIT ATTENTION, ASC/ASCQ 0x%02x/0x%02x: sent again\n",
			       what, r->asc, r->ascq);
	}
	return scsi_failed(what, ret, r, p->c);
}

static int check_lun(struct probe *p, uint64_t lun)
{
	uint8_t *d = srpi_data(p->c);
	uint8_t inq[6] = { 0x12, 0, 0, 0, 96, 0 };
	uint8_t rc16[16] = { 0x9e, 0x10 };
	unsigned long long blocks = 0;
	struct srpi_rsp r;
	uint32_t bs;
	int ex, i;

	memset(d, 0, 96);
	ex = run(p, "INQUIRY", lun, inq, 6, SRPI_DIR_IN, SRPI_DESC_DIRECT, 0,
		 96, &r);
	if (ex)
		return ex;
	if (!p->quiet)
		printf("LUN %llu: INQUIRY: type 0x%02x, vendor '%.8s', product '%.16s', revision '%.4s'\n",
		       (unsigned long long)lun, d[0] & 0x1f, d + 8, d + 16,
		       d + 32);
	rc16[13] = 32;
	memset(d, 0, 32);
	ex = run(p, "READ CAPACITY(16)", lun, rc16, 16, SRPI_DIR_IN,
		 SRPI_DESC_DIRECT, 0, 32, &r);
	if (ex)
		return ex;
	for (i = 0; i < 8; i++)
		blocks = blocks << 8 | d[i];
	bs = (uint32_t)d[8] << 24 | d[9] << 16 | d[10] << 8 | d[11];
	if (!p->quiet)
		printf("LUN %llu: READ CAPACITY(16): %llu blocks of %u bytes (%llu MiB)\n",
		       (unsigned long long)lun, blocks + 1, bs,
		       (blocks + 1) * bs >> 20);
	if (p->wv_blocks && bs) {
		size_t len = (size_t)p->wv_blocks * bs;
		uint8_t w[16] = { 0x8a }, rd[16] = { 0x88 };
		size_t k;

		if (2 * len + 4096 > p->o.data_size) {
			fprintf(stderr, "srp-probe: --write-verify %u: at most %zu blocks of %u bytes\n",
				p->wv_blocks, (p->o.data_size - 4096) / 2 / bs, bs);
			return EX_USAGE;
		}
		for (k = 0; k < len; k++)
			d[k] = (uint8_t)(k * 7 + (k >> 9) + p->lba);
		memset(d + len, 0, len);
		for (i = 0; i < 8; i++) {
			w[2 + i] = (uint8_t)(p->lba >> (56 - 8 * i));
			rd[2 + i] = w[2 + i];
		}
		for (i = 0; i < 4; i++) {
			w[10 + i] = (uint8_t)(p->wv_blocks >> (24 - 8 * i));
			rd[10 + i] = w[10 + i];
		}
		if (p->wv_fmt == SRPI_DESC_IMM && !srpi_imm_offset(p->c)) {
			fprintf(stderr, "srp-probe: the target did not grant immediate data\n");
			return EX_SCSI;
		}
		ex = run(p, "WRITE(16)", lun, w, 16, SRPI_DIR_OUT, p->wv_fmt, 0,
			 (uint32_t)len, &r);
		if (ex)
			return ex;
		ex = run(p, "READ(16)", lun, rd, 16, SRPI_DIR_IN,
			 p->wv_fmt == SRPI_DESC_IMM ? SRPI_DESC_DIRECT :
			 p->wv_fmt, len, (uint32_t)len, &r);
		if (ex)
			return ex;
		if (memcmp(d, d + len, len)) {
			for (k = 0; k < len && d[k] == d[len + k]; k++)
				;
			fprintf(stderr, "srp-probe: LUN %llu: data read back differs at byte %zu (block %llu)\n",
				(unsigned long long)lun, k, p->lba + k / bs);
			return EX_VERIFY;
		}
		if (!p->quiet)
			printf("LUN %llu: wrote, read back and compared %u blocks at LBA %llu\n",
			       (unsigned long long)lun, p->wv_blocks, p->lba);
	}
	return EX_OK;
}

static int send_tmf(struct probe *p, uint64_t lun)
{
	static const char *const codes[] = {
		[0] = "function complete", [2] = "invalid IU",
		[4] = "function not supported", [5] = "function failed",
	};
	uint8_t iu[SRPI_TMF_LEN];
	uint64_t tag = srpi_next_tag(p->c);
	struct srpi_rsp r;
	int ret;
	uint8_t code;

	srpi_build_tmf(iu, tag, lun, (uint8_t)p->tmf, p->task_tag);
	ret = srpi_send_credit(p->c, iu, sizeof(iu));
	if (!ret)
		ret = srpi_wait_rsp(p->c, tag, p->timeout_ms, &r);
	if (ret)
		return scsi_failed("task management", ret, &r, p->c);
	code = r.resp_len >= 4 ? r.resp[3] : 0xff;
	if (!p->quiet)
		printf("LUN %llu: task management function 0x%02x: response 0x%02x (%s)\n",
		       (unsigned long long)lun, p->tmf, code,
		       code < 6 && codes[code] ? codes[code] : "unknown");
	return code == 0 ? EX_OK : EX_TMF;
}

/* --stall: run "CMD PHASE"; 0 when it exited 0. */
static int stall_ask(struct probe *p, const char *phase)
{
	char *sh;
	int st;

	if (asprintf(&sh, "%s %s", p->stall_cmd, phase) < 0)
		return -1;
	fflush(stdout);
	st = system(sh);
	free(sh);
	if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	fprintf(stderr, "srp-probe: --stall: '%s %s' failed (status 0x%x)\n",
		p->stall_cmd, phase, st);
	return -1;
}

/*
 * --stall CMD: requests that wait at the target for a command context.
 * One TEST UNIT READY takes the only receive buffer posted (srpi_opts'
 * recv_hold); then one TEST UNIT READY per credit granted: the target
 * answers each, and its answers wait for a receive buffer (receiver not
 * ready), every one holding its command context although its credit came
 * back with it.  "CMD built" returns once the target holds a context for
 * each and answered enough of them (an SRP target cannot say so to its
 * initiator); then three more TEST UNIT READYs and the task management
 * function (--tmf, default LUN RESET) go out within the credits the target
 * owes, more requests than it has command contexts left.  "CMD waiting" returns once
 * the target shows them waiting; then every receive buffer is posted, and
 * every request must be answered: the TEST UNIT READYs with GOOD, the
 * task management function with FUNCTION COMPLETE.
 */
static int stall(struct probe *p, uint64_t lun)
{
	static uint8_t iu[SRPI_SLOT_SIZE];
	struct srpi_cmd t = { .lun = lun, .task_attr = p->task_attr,
			      .cdb_len = 6 };
	int g = srpi_granted(p->c), n = 0, notgood = 0, i, ret;
	uint8_t func = p->tmf >= 0 ? (uint8_t)p->tmf : SRPI_TMF_LUN_RESET;
	uint64_t tmf_tag;
	struct srpi_rsp r;
	size_t len;
	uint8_t code;

	/* The one receive buffer; whatever the status (a UNIT ATTENTION). */
	ret = srpi_scsi(p->c, &t, p->timeout_ms, &r);
	if (ret)
		return scsi_failed("TEST UNIT READY", ret, &r, p->c);
	for (i = 0; i < g + 3; i++) {
		if (i == g && stall_ask(p, "built"))
			return EX_SCSI;
		t.tag = srpi_next_tag(p->c);
		len = srpi_build_cmd(p->c, iu, sizeof(iu), &t);
		/* After the grant: within the credits the answers carry. */
		ret = !len ? -EINVAL : i < g ? srpi_send_credit(p->c, iu, len) :
		      srpi_send(p->c, iu, len);
		if (ret)
			return scsi_failed("TEST UNIT READY", ret, &r, p->c);
	}
	tmf_tag = srpi_next_tag(p->c);
	len = srpi_build_tmf(iu, tmf_tag, lun, func, p->task_tag);
	ret = srpi_send(p->c, iu, len);
	if (ret)
		return scsi_failed("task management", ret, &r, p->c);
	if (stall_ask(p, "waiting"))
		return EX_SCSI;
	if (srpi_recv_release(p->c))
		return scsi_failed("posting the receive buffers", SRPI_GONE,
				   &r, p->c);
	ret = srpi_wait_rsp(p->c, tmf_tag, p->timeout_ms, &r);
	if (ret)
		return scsi_failed("task management", ret, &r, p->c);
	code = r.resp_len >= 4 ? r.resp[3] : 0xff;
	for (i = 0; i < g + 3; i++) {
		ret = srpi_wait_rsp(p->c, UINT64_MAX, p->timeout_ms, &r);
		if (ret)
			break;
		n++;
		notgood += r.status != 0;
	}
	if (!p->quiet || n < g + 3 || notgood || code)
		printf("stall: %d of %d TEST UNIT READYs answered after the wait, %d not GOOD; task management function 0x%02x: response 0x%02x\n",
		       n, g + 3, notgood, func, code);
	if (n < g + 3)
		return scsi_failed("TEST UNIT READY", ret, &r, p->c);
	if (notgood)
		return EX_SCSI;
	return code == 0 ? EX_OK : EX_TMF;
}

static int probe(struct probe *p)
{
	uint8_t login[SRPI_LOGIN_RDMA_LEN], *d;
	uint8_t rl[12] = { 0xa0 };
	struct srpi_outcome out;
	struct srpi_rsp r;
	uint32_t n, i;
	int ex = EX_OK, seen;

	srpi_build_login(login, &p->l);
	p->c = srpi_connect(&p->o, login, sizeof(login), &out);
	if (!p->c) {
		fprintf(stderr, "srp-probe: %s:%s: %s: %s\n", p->o.host,
			p->o.port, srpi_result_str(out.result), out.msg);
		return out.result == SRPI_E_REJECTED ? EX_REJECTED : EX_CONNECT;
	}
	if (!p->quiet) {
		printf("login: accepted: %u credits, max request IU %u, max response IU %u\n",
		       out.req_lim, out.max_it_iu_len, out.max_ti_iu_len);
		printf("login: buffer formats%s%s, immediate data %s, multichannel: %s\n",
		       out.buf_fmt & SRPI_FMT_DIRECT ? " direct" : "",
		       out.buf_fmt & SRPI_FMT_INDIRECT ? " indirect" : "",
		       out.rsp_flags & SRPI_RSP_IMMED_SUPP ? "granted" : "not granted",
		       (out.rsp_flags & 3) == 0 ? "no other channel" :
		       (out.rsp_flags & 3) == 1 ? "other channels terminated" :
		       (out.rsp_flags & 3) == 2 ? "other channels maintained" :
		       "reserved value");
		if (!out.tag_ok)
			printf("login: warning: the response does not echo the request's tag\n");
	}
	if (out.rsp_flags & SRPI_RSP_IMMED_SUPP)
		srpi_set_imm_offset(p->c, p->l.imm_offset);
	if (p->stall_cmd) {
		ex = stall(p, p->lun >= 0 ? (uint64_t)p->lun : 0);
		goto out;
	}
	if (p->hold_s >= 0) {
		/* Logged in: stay so, without SCSI, until told or cut. */
		fflush(stdout);
		if (srpi_wait_gone(p->c, p->hold_s * 1000) == 0) {
			fprintf(stderr, "srp-probe: hold: the target ended the channel: %s\n",
				srpi_gone_why(p->c));
			srpi_close(p->c);
			return EX_LOST;
		}
		goto out;
	}

	d = srpi_data(p->c);
	rl[8] = 0x10;	/* allocation length 4096 (bytes 6..9, big endian) */
	memset(d, 0, 4096);
	ex = run(p, "REPORT LUNS", 0, rl, 12, SRPI_DIR_IN, SRPI_DESC_DIRECT, 0,
		 4096, &r);
	if (ex)
		goto out;
	n = ((uint32_t)d[0] << 24 | d[1] << 16 | d[2] << 8 | d[3]) / 8;
	if (n > 4096 / 8 - 1)
		n = 4096 / 8 - 1;
	{
		uint64_t luns[511];

		for (i = 0; i < n; i++)
			luns[i] = ((uint64_t)(d[8 + 8 * i] & 0x3f) << 8) |
				  d[9 + 8 * i];
		if (!p->quiet) {
			printf("REPORT LUNS: %u LUN(s):", n);
			for (i = 0; i < n; i++)
				printf(" %llu", (unsigned long long)luns[i]);
			printf("\n");
		}
		for (i = 0; i < n && !ex; i++)
			if (p->lun < 0 || (uint64_t)p->lun == luns[i])
				ex = check_lun(p, luns[i]);
		if (p->lun >= 0 && !ex) {
			for (i = 0; i < n && luns[i] != (uint64_t)p->lun; i++)
				;
			if (i == n) {
				fprintf(stderr, "srp-probe: LUN %ld is not among the target's LUNs\n",
					p->lun);
				ex = EX_SCSI;
			}
		}
	}
	if (!ex && p->tmf >= 0)
		ex = send_tmf(p, p->lun >= 0 ? (uint64_t)p->lun : 0);
out:
	srpi_t_logout_reason(p->c, &seen);
	if (seen && !p->quiet)
		printf("the target sent SRP_T_LOGOUT\n");
	if (!srpi_gone(p->c)) {
		uint8_t iu[16];

		srpi_build_i_logout(iu, srpi_next_tag(p->c));
		if (srpi_send(p->c, iu, sizeof(iu)) == 0 &&
		    srpi_wait_gone(p->c, p->timeout_ms) == 0) {
			if (!p->quiet)
				printf("logout: the target closed the channel\n");
		} else {
			srpi_disconnect(p->c);
			if (!p->quiet)
				printf("logout: disconnected\n");
		}
	} else if (!ex) {
		fprintf(stderr, "srp-probe: channel lost: %s\n",
			srpi_gone_why(p->c));
		ex = EX_LOST;
	}
	srpi_close(p->c);
	return ex;
}

/* ---- --logins: many logins at once -------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * One login of --logins.  The threads share @m; each records when the
 * target answered its login (accepted or not), then holds the channel.
 */
struct login_run {
	pthread_mutex_t lock;	/* protects answered and the counts */
	pthread_cond_t all_in;	/* signalled when answered reaches n */
	int n, answered, accepted, rejected, lost;
	const struct probe *p;
	const uint8_t *login;
};

struct login_thr {
	struct login_run *m;
	pthread_t thr;
	double done_s;		/* when the target answered */
	int ex;			/* this login's exit status */
	char msg[320];		/* why it failed */
};

static void *login_thread(void *arg)
{
	struct login_thr *t = arg;
	struct login_run *m = t->m;
	struct srpi_outcome out;
	struct srpi_conn *c;

	c = srpi_connect(&m->p->o, m->login, SRPI_LOGIN_RDMA_LEN, &out);
	t->done_s = now_s();
	if (!c) {
		t->ex = out.result == SRPI_E_REJECTED ? EX_REJECTED : EX_CONNECT;
		snprintf(t->msg, sizeof(t->msg), "%s: %s",
			 srpi_result_str(out.result), out.msg);
	}
	pthread_mutex_lock(&m->lock);
	if (c)
		m->accepted++;
	else if (t->ex == EX_REJECTED)
		m->rejected++;
	if (++m->answered == m->n)
		pthread_cond_signal(&m->all_in);
	pthread_mutex_unlock(&m->lock);
	if (!c)
		return NULL;
	if (srpi_wait_gone(c, m->p->hold_s * 1000) == 0) {
		t->ex = EX_LOST;
		pthread_mutex_lock(&m->lock);
		m->lost++;
		pthread_mutex_unlock(&m->lock);
	} else {
		uint8_t iu[16];

		srpi_build_i_logout(iu, srpi_next_tag(c));
		if (srpi_send(c, iu, sizeof(iu)) ||
		    srpi_wait_gone(c, m->p->timeout_ms))
			srpi_disconnect(c);
	}
	srpi_close(c);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * --logins N: start N logins at once and report, once the target answered
 * all of them, how long that took (from the first thread's start); then
 * hold them like --hold.  Exit status: the first failure's, else 7 when the
 * target ended a channel, else 0.
 */
static int probe_many(struct probe *p)
{
	uint8_t login[SRPI_LOGIN_RDMA_LEN];
	struct login_run m = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.all_in = PTHREAD_COND_INITIALIZER,
		.n = p->logins, .p = p, .login = login,
	};
	struct login_thr *t = calloc(p->logins, sizeof(*t));
	double *lat = calloc(p->logins, sizeof(*lat));
	double t0;
	int i, started, ex = EX_OK;

	if (!t || !lat) {
		fprintf(stderr, "srp-probe: out of memory\n");
		free(t);
		free(lat);
		return EX_CONNECT;
	}
	srpi_build_login(login, &p->l);
	t0 = now_s();
	for (started = 0; started < p->logins; started++) {
		pthread_attr_t a;
		int rc;

		t[started].m = &m;
		pthread_attr_init(&a);
		pthread_attr_setstacksize(&a, 256 << 10);
		rc = pthread_create(&t[started].thr, &a, login_thread,
				    &t[started]);
		pthread_attr_destroy(&a);
		if (rc) {
			fprintf(stderr, "srp-probe: starting login thread %d: %s\n",
				started, strerror(rc));
			break;
		}
	}
	pthread_mutex_lock(&m.lock);
	m.n = started;
	while (m.answered < m.n)
		pthread_cond_wait(&m.all_in, &m.lock);
	pthread_mutex_unlock(&m.lock);
	for (i = 0; i < started; i++)
		lat[i] = t[i].done_s - t0;
	qsort(lat, started, sizeof(*lat), cmp_double);
	if (!p->quiet || m.accepted < p->logins)
		printf("logins: %d of %d accepted, %d rejected, in %.3f s (median %.3f s)\n",
		       m.accepted, p->logins, m.rejected,
		       started ? lat[started - 1] : 0.0,
		       started ? lat[started / 2] : 0.0);
	fflush(stdout);
	for (i = 0; i < started; i++) {
		pthread_join(t[i].thr, NULL);
		if (t[i].ex && t[i].ex != EX_LOST && t[i].msg[0] &&
		    ex == EX_OK)
			fprintf(stderr, "srp-probe: %s:%s: login %d: %s\n",
				p->o.host, p->o.port, i, t[i].msg);
		if (t[i].ex && (ex == EX_OK || ex == EX_LOST))
			ex = t[i].ex;
	}
	if (started < p->logins && (ex == EX_OK || ex == EX_LOST))
		ex = EX_CONNECT;
	if (m.lost && !p->quiet)
		printf("the target ended %d of the channels\n", m.lost);
	free(t);
	free(lat);
	return ex;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "id-ext", 1, NULL, 'e' }, { "ioc-guid", 1, NULL, 'g' },
		{ "target-id", 1, NULL, 'T' }, { "initiator-ext", 1, NULL, 'x' },
		{ "initiator-id", 1, NULL, 'I' }, { "iu-len", 1, NULL, 's' },
		{ "immediate", 1, NULL, 'm' }, { "formats", 1, NULL, 'f' },
		{ "single", 0, NULL, 'S' }, { "lun", 1, NULL, 'l' },
		{ "write-verify", 1, NULL, 'w' }, { "lba", 1, NULL, 'a' },
		{ "desc", 1, NULL, 'd' }, { "tmf", 1, NULL, 'k' },
		{ "task-tag", 1, NULL, 'K' }, { "timeout", 1, NULL, 't' },
		{ "quiet", 0, NULL, 'q' }, { "verbose", 0, NULL, 'v' },
		{ "hold", 1, NULL, 'H' }, { "task-attr", 1, NULL, 'A' },
		{ "logins", 1, NULL, 'N' }, { "stall", 1, NULL, 'Z' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct probe p = {
		.o = { .timeout_ms = 10000, .data_size = 16 << 20,
		       .queue_depth = 64 },
		.l = { .tag = 0x5352502d70726f62ULL, .it_iu_len = 8260,
		       .buf_fmt = SRPI_FMT_DIRECT | SRPI_FMT_INDIRECT,
		       .flags = SRPI_MULTICHAN_MULTI },
		.lun = -1, .wv_fmt = SRPI_DESC_DIRECT, .tmf = -1,
		.timeout_ms = 10000, .hold_s = -1, .logins = 0,
	};
	uint8_t ioc[8], ext[8] = { 0 };
	int opt, have_ioc = 0, have_ext = 0;
	char *end;

	/* --dm: the Device Management client, with options of its own. */
	for (opt = 1; opt < argc && strcmp(argv[opt], "--"); opt++) {
		if (!strcmp(argv[opt], "--dm")) {
			memmove(&argv[opt], &argv[opt + 1],
				(argc - opt) * sizeof(*argv));
			return srp_dm_main(argc - 1, argv);
		}
	}
	while ((opt = getopt_long(argc, argv, "e:g:T:x:I:s:m:f:Sl:w:a:d:k:t:qvh",
				  lo, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (parse_id(optarg, p.l.target_id, 8, "id_ext"))
				return EX_USAGE;
			p.have_target = 1;
			break;
		case 'g':
			if (parse_id(optarg, ioc, 8, "ioc_guid"))
				return EX_USAGE;
			have_ioc = 1;
			break;
		case 'T':
			if (parse_id(optarg, p.l.target_id, 16, "target port id"))
				return EX_USAGE;
			p.have_target = 2;
			break;
		case 'x':
			if (parse_id(optarg, ext, 8, "initiator_ext"))
				return EX_USAGE;
			have_ext = 1;
			break;
		case 'I':
			if (parse_id(optarg, p.l.initiator_id, 16, "initiator port id"))
				return EX_USAGE;
			p.have_ini = 1;
			break;
		case 's':
			p.l.it_iu_len = (uint32_t)strtoul(optarg, &end, 0);
			if (*end || p.l.it_iu_len < 64) {
				fprintf(stderr, "srp-probe: --iu-len must be a number of at least 64\n");
				return EX_USAGE;
			}
			break;
		case 'm':
			p.l.imm_offset = (uint16_t)strtoul(optarg, &end, 0);
			if (*end) {
				fprintf(stderr, "srp-probe: --immediate needs an offset\n");
				return EX_USAGE;
			}
			p.l.flags |= SRPI_IMMED_REQUESTED;
			break;
		case 'f':
			if (!strcmp(optarg, "direct"))
				p.l.buf_fmt = SRPI_FMT_DIRECT;
			else if (!strcmp(optarg, "indirect"))
				p.l.buf_fmt = SRPI_FMT_INDIRECT;
			else if (!strcmp(optarg, "both"))
				p.l.buf_fmt = SRPI_FMT_DIRECT | SRPI_FMT_INDIRECT;
			else {
				fprintf(stderr, "srp-probe: --formats: direct, indirect or both\n");
				return EX_USAGE;
			}
			break;
		case 'S':
			p.l.flags &= ~3;
			break;
		case 'l':
			p.lun = strtol(optarg, &end, 0);
			if (*end || p.lun < 0 || p.lun > 16383) {
				fprintf(stderr, "srp-probe: --lun must be 0..16383\n");
				return EX_USAGE;
			}
			break;
		case 'w':
			p.wv_blocks = (unsigned int)strtoul(optarg, &end, 0);
			if (*end || !p.wv_blocks) {
				fprintf(stderr, "srp-probe: --write-verify needs a number of blocks\n");
				return EX_USAGE;
			}
			break;
		case 'a':
			p.lba = strtoull(optarg, &end, 0);
			if (*end) {
				fprintf(stderr, "srp-probe: --lba needs a number\n");
				return EX_USAGE;
			}
			break;
		case 'd':
			if (!strcmp(optarg, "direct"))
				p.wv_fmt = SRPI_DESC_DIRECT;
			else if (!strcmp(optarg, "indirect"))
				p.wv_fmt = SRPI_DESC_INDIRECT;
			else if (!strcmp(optarg, "external"))
				p.wv_fmt = SRPI_DESC_EXTERNAL;
			else if (!strcmp(optarg, "immediate"))
				p.wv_fmt = SRPI_DESC_IMM;
			else {
				fprintf(stderr, "srp-probe: --desc: direct, indirect, external or immediate\n");
				return EX_USAGE;
			}
			break;
		case 'k':
			p.tmf = by_name(tmf_names, optarg);
			if (p.tmf < 0) {
				fprintf(stderr, "srp-probe: unknown task management function '%s'\n",
					optarg);
				return EX_USAGE;
			}
			break;
		case 'A': {
			int a = by_name(task_attr_names, optarg);

			if (a < 0) {
				fprintf(stderr, "srp-probe: --task-attr: simple, head-of-queue, ordered or aca\n");
				return EX_USAGE;
			}
			p.task_attr = (uint8_t)a;
			break;
		}
		case 'K':
			p.task_tag = strtoull(optarg, &end, 0);
			if (*end) {
				fprintf(stderr, "srp-probe: --task-tag needs a number\n");
				return EX_USAGE;
			}
			break;
		case 'H': {
			long v = strtol(optarg, &end, 0);

			if (*end || v < 0 || v > 86400) {
				fprintf(stderr, "srp-probe: --hold must be 0..86400 seconds\n");
				return EX_USAGE;
			}
			p.hold_s = (int)v;
			/*
			 * No SCSI data moves: small buffers and a short
			 * queue (its send slots are 64 KiB each), so many
			 * fit.
			 */
			p.o.data_size = 64 << 10;
			p.o.queue_depth = 4;
			break;
		}
		case 'Z':
			p.stall_cmd = optarg;
			/*
			 * Receive buffers held back (srpi_opts): one, and
			 * slots for every credit and the requests after.
			 */
			p.o.data_size = 64 << 10;
			p.o.queue_depth = 256;
			p.o.recv_hold = 1;
			break;
		case 'N': {
			long v = strtol(optarg, &end, 0);

			if (*end || v < 1 || v > 1024) {
				fprintf(stderr, "srp-probe: --logins must be 1..1024\n");
				return EX_USAGE;
			}
			p.logins = (int)v;
			break;
		}
		case 't':
			p.timeout_ms = (int)strtol(optarg, &end, 0) * 1000;
			if (*end || p.timeout_ms <= 0 || p.timeout_ms > 3600000) {
				fprintf(stderr, "srp-probe: --timeout must be 1..3600 seconds\n");
				return EX_USAGE;
			}
			p.o.timeout_ms = p.timeout_ms;
			break;
		case 'q':
			p.quiet = 1;
			break;
		case 'v':
			p.o.verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return EX_OK;
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "srp-probe: give the target's address and RDMA/CM port (its discovery_auth/rdma_cm_port)\n");
		usage(stderr);
		return EX_USAGE;
	}
	if (!p.have_target) {
		fprintf(stderr, "srp-probe: --id-ext (or --target-id) is required: the target's srpt_service_guid\n");
		return EX_USAGE;
	}
	if (p.have_target == 1)
		memcpy(p.l.target_id + 8, have_ioc ? ioc : p.l.target_id, 8);
	if (have_ext)
		memcpy(p.l.initiator_id, ext, 8);
	p.o.host = argv[optind];
	p.o.port = argv[optind + 1];
	/* The port GUID is only known once the route picked a device. */
	p.o.ini_port_guid = !p.have_ini;
	if (p.logins) {
		if (p.hold_s < 0) {
			fprintf(stderr, "srp-probe: --logins needs --hold\n");
			return EX_USAGE;
		}
		return probe_many(&p);
	}
	return probe(&p);
}
