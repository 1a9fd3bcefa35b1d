/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the libFuzzer harnesses of the pure wire code
 * (srpt_wire.h, srpt_iu.h, srpt_mad.h).
 *
 * A harness does not stop at "it did not crash": it checks what the code
 * under test promises in its kernel-doc, and FUZZ_CHECK() aborts, which
 * libFuzzer reports as a crash and saves as an artifact, when a promise is
 * broken.  Every parser gets a heap copy of exactly the bytes that
 * "arrived", so that AddressSanitizer catches a read past its length, and
 * every builder writes into a buffer followed by guard bytes, so that a
 * write past the length it was given is caught even where AddressSanitizer
 * would not see it (inside a bigger allocation).
 */
#ifndef SRPT_FUZZ_H
#define SRPT_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

#include "srpt_kcompat.h"

/* Guard bytes after every builder's buffer, and the value they hold. */
enum {
	FUZZ_GUARD_LEN	= 64,
	FUZZ_FILL	= 0xa5,
};

static _Noreturn void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: invariant violated: %s\n", file, line, what);
	abort();
}

#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond))						\
			fuzz_fail(__FILE__, __LINE__, #cond);		\
	} while (0)

/**
 * struct fuzz_in - a cursor over the fuzzer's input
 * @p: next byte.
 * @n: bytes left.
 *
 * The fuzz_get_*() helpers take parameters from the front of the input and
 * read zero once it is used up, so that every input is valid.
 */
struct fuzz_in {
	const u8 *p;
	size_t n;
};

static inline u8 fuzz_get_u8(struct fuzz_in *in)
{
	u8 v;

	if (!in->n)
		return 0;
	v = *in->p;
	in->p++;
	in->n--;
	return v;
}

static inline u16 fuzz_get_be16(struct fuzz_in *in)
{
	u16 v = fuzz_get_u8(in);

	return (u16)(v << 8 | fuzz_get_u8(in));
}

static inline u32 fuzz_get_be32(struct fuzz_in *in)
{
	u32 v = fuzz_get_be16(in);

	return v << 16 | fuzz_get_be16(in);
}

static inline u64 fuzz_get_be64(struct fuzz_in *in)
{
	u64 v = fuzz_get_be32(in);

	return v << 32 | fuzz_get_be32(in);
}

/* Copy up to @len bytes to @dst, zero filling what the input lacks. */
static inline void fuzz_get_bytes(struct fuzz_in *in, void *dst, size_t len)
{
	size_t n = len < in->n ? len : in->n;

	memcpy(dst, in->p, n);
	memset((u8 *)dst + n, 0, len - n);
	in->p += n;
	in->n -= n;
}

static inline void *fuzz_alloc(size_t len)
{
	void *p = malloc(len ? len : 1);

	if (!p)
		abort();
	return p;
}

/* A heap copy of exactly @len bytes of @src; free() it. */
static inline u8 *fuzz_dup(const void *src, size_t len)
{
	u8 *p = fuzz_alloc(len);

	memcpy(p, src, len);
	return p;
}

/*
 * A buffer of @len bytes followed by FUZZ_GUARD_LEN guard bytes, all of
 * them FUZZ_FILL; free() it.
 */
static inline u8 *fuzz_guarded(size_t len)
{
	u8 *p = fuzz_alloc(len + FUZZ_GUARD_LEN);

	memset(p, FUZZ_FILL, len + FUZZ_GUARD_LEN);
	return p;
}

/*
 * Whether @len bytes at @p all are @v: the first is, and each byte equals
 * the next (one memcmp() rather than an instrumented loop).
 */
static inline bool fuzz_all(const void *p, size_t len, u8 v)
{
	const u8 *b = p;

	return !len || (b[0] == v && !memcmp(b, b + 1, len - 1));
}

/*
 * Whether a builder given a guarded buffer of @len bytes wrote nothing past
 * the first @used of them.
 */
static inline bool fuzz_untouched_from(const u8 *buf, size_t used, size_t len)
{
	return fuzz_all(buf + used, len - used + FUZZ_GUARD_LEN, FUZZ_FILL);
}

#endif /* SRPT_FUZZ_H */
