/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the pure wire code (srpt_wire.h) needs from the kernel, for building
 * it in userspace: the unit tests, the fuzzers and the userspace initiator.
 */
#ifndef SRPT_KCOMPAT_H
#define SRPT_KCOMPAT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;

#endif /* SRPT_KCOMPAT_H */
