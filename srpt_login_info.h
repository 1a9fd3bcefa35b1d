/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The login strings of a target port, as the kernel's SRP initiator ib_srp
 * takes them in /sys/class/infiniband_srp/srp-<dev>-<port>/add_target:
 *
 *   IB CM:   id_ext=X,ioc_guid=X,dgid=G,pkey=P,service_id=X
 *            (exactly what "ibsrpdm -c" and "srp-probe --dm" print)
 *   RDMA/CM: id_ext=X,ioc_guid=X,dest=ADDR:PORT
 *            (ADDR an IPv4 address, or an IPv6 address in brackets)
 *
 * X is 16 hex digits, G 32, P 4; the configfs attribute login_info lists
 * one string per line.  Pure code, like srpt_wire.h: the module passes in
 * what it read from the RDMA core and the network stack (addresses already
 * in text form), and the unit tests (tools/tests/unit/test_login_info.c)
 * run the same formatting.  Every function writes whole lines or nothing,
 * so that a page that fills up never ends in half a login string.
 */
#ifndef SRPT_LOGIN_INFO_H
#define SRPT_LOGIN_INFO_H

#include "srpt_wire.h"

enum {
	/*
	 * Longest line, without its newline: an IB CM string (125
	 * characters); an RDMA/CM string has at most 108 (a bracketed IPv6
	 * address of the longest text form, 45 characters, and port 65535).
	 */
	SRPT_LOGIN_LINE_MAX = 128,
	/* Longest address text accepted: INET6_ADDRSTRLEN - 1. */
	SRPT_LOGIN_ADDR_MAX = 45,
};

/**
 * struct srpt_login_info - a page of login strings being written
 * @buf: the page.
 * @size: its size; at most @size - 1 bytes are used, so that it stays a
 *	NUL-terminated string.
 * @len: bytes written so far, whole lines only.
 * @left_out: lines that did not fit and were left out.
 * @line: the line being built.
 * @line_len: its length so far.
 * @line_bad: whether it outgrew @line (it is then left out).
 */
struct srpt_login_info {
	char	*buf;
	size_t	size;
	size_t	len;
	u32	left_out;
	char	line[SRPT_LOGIN_LINE_MAX + 1];
	size_t	line_len;
	bool	line_bad;
};

/**
 * srpt_login_info_init() - start an empty page
 * @li: state to set up.
 * @buf: the page; it is made an empty string.
 * @size: its size in bytes, at least 1.
 */
static inline void srpt_login_info_init(struct srpt_login_info *li,
					char *buf, size_t size)
{
	memset(li, 0, sizeof(*li));
	li->buf = buf;
	li->size = size;
	buf[0] = '\0';
}

static inline void srpt_login_put_str(struct srpt_login_info *li,
				      const char *s)
{
	size_t n = strlen(s);

	if (li->line_bad || n > SRPT_LOGIN_LINE_MAX - li->line_len) {
		li->line_bad = true;
		return;
	}
	memcpy(li->line + li->line_len, s, n);
	li->line_len += n;
}

/* @v as @digits lower-case hex digits, the most significant first. */
static inline void srpt_login_put_hex(struct srpt_login_info *li, u64 v,
				      unsigned int digits)
{
	static const char hex[] = "0123456789abcdef";
	char s[17];
	unsigned int i;

	if (digits > 16)
		digits = 16;
	for (i = 0; i < digits; i++)
		s[i] = hex[(v >> (4 * (digits - 1 - i))) & 0xf];
	s[digits] = '\0';
	srpt_login_put_str(li, s);
}

static inline void srpt_login_put_dec(struct srpt_login_info *li, u32 v)
{
	char s[11];
	int i = sizeof(s) - 1;

	s[i] = '\0';
	do {
		s[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	srpt_login_put_str(li, s + i);
}

/**
 * srpt_login_end_line() - append the line built so far to the page
 * @li: state.
 *
 * The line and its newline go in whole when they fit in the page, or are
 * counted in @li->left_out.  The line buffer is empty afterwards.
 *
 * Return: 0, or -ENOSPC when the line was left out.
 */
static inline int srpt_login_end_line(struct srpt_login_info *li)
{
	int ret = 0;

	if (li->line_bad || li->line_len + 1 > li->size - 1 - li->len) {
		li->left_out++;
		ret = -ENOSPC;
	} else {
		memcpy(li->buf + li->len, li->line, li->line_len);
		li->len += li->line_len;
		li->buf[li->len++] = '\n';
		li->buf[li->len] = '\0';
	}
	li->line_len = 0;
	li->line_bad = false;
	return ret;
}

static inline void srpt_login_put_ids(struct srpt_login_info *li,
				      u64 id_ext, u64 ioc_guid)
{
	srpt_login_put_str(li, "id_ext=");
	srpt_login_put_hex(li, id_ext, 16);
	srpt_login_put_str(li, ",ioc_guid=");
	srpt_login_put_hex(li, ioc_guid, 16);
}

/**
 * srpt_login_add_ib_cm() - add the IB CM login string of a port
 * @li: state.
 * @id_ext: identifier extension of the target port id (SRP r16a 5.6.3).
 * @ioc_guid: I/O controller GUID, the other half of the target port id.
 * @dgid: the port's GID, 16 bytes in network order.
 * @pkey: the P_Key to log in with.
 * @service_id: the IB CM service id the target listens on.
 *
 * The line has the fields and the order of "ibsrpdm -c".
 *
 * Return: 0, or -ENOSPC when the line did not fit and was left out.
 */
static inline int srpt_login_add_ib_cm(struct srpt_login_info *li,
				       u64 id_ext, u64 ioc_guid,
				       const u8 *dgid, u16 pkey,
				       u64 service_id)
{
	srpt_login_put_ids(li, id_ext, ioc_guid);
	srpt_login_put_str(li, ",dgid=");
	srpt_login_put_hex(li, srpt_get_be64(dgid), 16);
	srpt_login_put_hex(li, srpt_get_be64(dgid + 8), 16);
	srpt_login_put_str(li, ",pkey=");
	srpt_login_put_hex(li, pkey, 4);
	srpt_login_put_str(li, ",service_id=");
	srpt_login_put_hex(li, service_id, 16);
	return srpt_login_end_line(li);
}

/**
 * srpt_login_add_rdma_cm() - add an RDMA/CM login string
 * @li: state.
 * @id_ext: identifier extension of the target port id.
 * @ioc_guid: I/O controller GUID.
 * @addr: the address in text form (dotted quad, or IPv6 without brackets
 *	and without a zone); at most SRPT_LOGIN_ADDR_MAX characters.
 * @ipv6: whether @addr is an IPv6 address; ib_srp wants those in brackets
 *	("dest=[2001:db8::1]:5555").
 * @port: the RDMA/CM port the target listens on.
 *
 * Return: 0, or -ENOSPC when the line was left out (it did not fit, or
 * @addr is longer than an address).
 */
static inline int srpt_login_add_rdma_cm(struct srpt_login_info *li,
					 u64 id_ext, u64 ioc_guid,
					 const char *addr, bool ipv6, u16 port)
{
	if (strlen(addr) > SRPT_LOGIN_ADDR_MAX)
		li->line_bad = true;
	srpt_login_put_ids(li, id_ext, ioc_guid);
	srpt_login_put_str(li, ipv6 ? ",dest=[" : ",dest=");
	srpt_login_put_str(li, addr);
	srpt_login_put_str(li, ipv6 ? "]:" : ":");
	srpt_login_put_dec(li, port);
	return srpt_login_end_line(li);
}

#endif /* SRPT_LOGIN_INFO_H */
