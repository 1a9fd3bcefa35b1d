/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP producer for the userspace unit tests. */
#ifndef SRPT_TAP_H
#define SRPT_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

static inline void tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
