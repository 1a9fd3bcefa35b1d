// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count.so: a QEMU TCG plugin that counts the guest kernel's
 * instructions by the address of the translation block they ran in, and
 * writes what changed each time the guest runs the instruction at a marker
 * address.
 *
 * A cost per I/O in instructions does not move with the host's load the
 * way time does: a snapshot taken after a fio run, with one taken just
 * before it, holds what every kernel function executed during the run;
 * with the guest's /proc/kallsyms, summed by function or module and
 * divided by the I/Os fio did, that is instructions per I/O.
 *
 *   qemu-system-x86_64 -accel tcg,thread=single \
 *	-plugin insn-count.so,out=FILE,mark=0x7e5700000000 ...
 *
 * out   file the snapshots are appended to (required).
 * mark  virtual address whose execution writes a snapshot; insn-mark
 *       (beside this file) maps a page there and calls it.
 *
 * A snapshot is "snapshot SEQ" followed by "ADDR COUNT" lines (ADDR a
 * translation block's start in hex, COUNT the instructions executed in
 * blocks starting there since the previous snapshot, for every ADDR whose
 * count changed), and "end SEQ".  Every user-space block counts at ADDR 0.
 *
 * Counting is per translation block: a block's instructions are added
 * when it starts, so a block left early (an interrupt, a fault) counts in
 * full.  With more than one TCG thread the additions race and some are
 * lost; run with thread=single.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define KERNEL_START	0xffff800000000000ULL
#define TABLE_BITS	21		/* 2 Mi translation block addresses */
#define TABLE_SIZE	(1UL << TABLE_BITS)
#define CHUNK		4096

struct counter {
	uint64_t addr;
	uint64_t n;		/* added to by translated code */
	uint64_t seen;		/* n at the previous snapshot */
};

/*
 * table: open addressing, address -> counter, filled at translation time
 * (under lock).  Counters live in chunks that are never moved, since
 * translated code holds their addresses.
 */
static struct counter **table;
static struct counter *chunk;
static size_t chunk_used = CHUNK;
static size_t used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static uint64_t mark;
static uint64_t seq;

static uint64_t hash(uint64_t addr)
{
	return (addr * 0x9e3779b97f4a7c15ULL) >> (64 - TABLE_BITS);
}

/* counter_of() - the counter of @addr, created on first use; NULL if full */
static struct counter *counter_of(uint64_t addr)
{
	uint64_t i = hash(addr);
	size_t probes;

	for (probes = 0; probes < TABLE_SIZE; probes++) {
		struct counter *c = table[i];

		if (!c)
			break;
		if (c->addr == addr)
			return c;
		i = (i + 1) & (TABLE_SIZE - 1);
	}
	if (probes == TABLE_SIZE || used >= TABLE_SIZE / 2)
		return NULL;
	if (chunk_used == CHUNK) {
		chunk = calloc(CHUNK, sizeof(*chunk));
		if (!chunk)
			return NULL;
		chunk_used = 0;
	}
	table[i] = &chunk[chunk_used++];
	table[i]->addr = addr;
	used++;
	return table[i];
}

/* snapshot() - the marker ran: write every counter */
static void snapshot(unsigned int vcpu, void *udata)
{
	size_t i;

	(void)vcpu;
	(void)udata;
	pthread_mutex_lock(&lock);
	fprintf(out, "snapshot %" PRIu64 "\n", seq);
	for (i = 0; i < TABLE_SIZE; i++) {
		struct counter *c = table[i];
		uint64_t n;

		if (!c || c->n == c->seen)
			continue;
		n = c->n;
		fprintf(out, "%" PRIx64 " %" PRIu64 "\n", c->addr, n - c->seen);
		c->seen = n;
	}
	fprintf(out, "end %" PRIu64 "\n", seq++);
	fflush(out);
	pthread_mutex_unlock(&lock);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t addr = vaddr >= KERNEL_START ? vaddr : 0;
	struct counter *c;
	size_t i;

	(void)id;
	pthread_mutex_lock(&lock);
	c = counter_of(addr);
	pthread_mutex_unlock(&lock);
	if (c)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &c->n, n);
	if (!mark || vaddr > mark || mark - vaddr > 16 * n)
		return;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_vaddr(insn) == mark)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, snapshot,
							       QEMU_PLUGIN_CB_NO_REGS,
							       NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	if (used >= TABLE_SIZE / 2)
		fprintf(out, "error: counter table full, blocks not counted\n");
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;
	int i;

	if (!info->system_emulation) {
		fprintf(stderr, "insn-count: system emulation only\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else if (!strncmp(argv[i], "mark=", 5)) {
			char *end;

			errno = 0;
			mark = strtoull(argv[i] + 5, &end, 0);
			if (errno || *end || !mark) {
				fprintf(stderr, "insn-count: bad %s\n", argv[i]);
				return -1;
			}
		} else {
			fprintf(stderr, "insn-count: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (!path) {
		fprintf(stderr, "insn-count: out=FILE is required\n");
		return -1;
	}
	out = fopen(path, "w");
	table = calloc(TABLE_SIZE, sizeof(*table));
	if (!out || !table) {
		fprintf(stderr, "insn-count: %s: %s\n", path, strerror(errno));
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
