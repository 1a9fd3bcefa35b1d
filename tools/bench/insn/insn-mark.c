// SPDX-License-Identifier: GPL-2.0
/*
 * insn-mark: run the instruction at the marker address of insn-count.so
 * (0x7e5700000000), once, so that the plugin writes a snapshot of its
 * counters.  Run it in the guest before and after what is measured.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define MARK ((void *)0x7e5700000000UL)

int main(void)
{
	unsigned char *p = mmap(MARK, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
				-1, 0);
	void (*fn)(void);

	if (p == MAP_FAILED || p != MARK) {
		perror("insn-mark: mmap");
		return 1;
	}
	p[0] = 0xc3;	/* ret */
	__builtin___clear_cache((char *)p, (char *)p + 1);
	fn = (void (*)(void))(void *)p;
	fn();
	return 0;
}
