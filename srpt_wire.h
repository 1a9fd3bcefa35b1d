/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure wire-format and name-format logic of the SRP target.
 *
 * Everything in this header works on a buffer and its length and calls
 * nothing but the helpers defined here, so that the kernel module, the
 * userspace unit tests and the fuzzers run the very same code.  Outside the
 * kernel, include "srpt_kcompat.h" (tools/include/) first; it supplies the
 * kernel's fixed-width types and errno values.
 *
 * The module is a single translation unit (ib_srpt.c), which is why this code
 * lives in a header as static inline functions rather than in its own object.
 */
#ifndef SRPT_WIRE_H
#define SRPT_WIRE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#endif

/* ------------------------------------------------------------------------ */
/* Byte helpers: the wire is big endian and nothing on it is aligned.      */
/* ------------------------------------------------------------------------ */

static inline u16 srpt_get_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline u32 srpt_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 srpt_get_be64(const u8 *p)
{
	return (u64)srpt_get_be32(p) << 32 | srpt_get_be32(p + 4);
}

static inline void srpt_put_be16(u8 *p, u16 v)
{
	p[0] = (v >> 8) & 0xff;
	p[1] = v & 0xff;
}

static inline void srpt_put_be32(u8 *p, u32 v)
{
	p[0] = (v >> 24) & 0xff;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

static inline void srpt_put_be64(u8 *p, u64 v)
{
	srpt_put_be32(p, v >> 32);
	srpt_put_be32(p + 4, (u32)v);
}

/**
 * srpt_hex_val() - value of one hexadecimal digit
 * @c: ASCII character.
 *
 * Return: 0..15, or -1 when @c is not a hexadecimal digit.
 */
static inline int srpt_hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Names: configfs target port (WWN) names and node ACL (initiator) names. */
/* ------------------------------------------------------------------------ */

enum {
	/* "xxxx:xxxx:xxxx:xxxx" plus NUL */
	SRPT_GUID_NAME_LEN = 20,
	/* "0x" + 32 hex digits plus NUL */
	SRPT_GID_NAME_LEN = 35,
	/* Longest configfs name any parser here looks at. */
	SRPT_NAME_MAX = 64,
};

/**
 * enum srpt_name_kind - which form a parsed name had
 * @SRPT_NAME_NONE: no form (zero: a name not parsed yet).
 * @SRPT_NAME_GUID: four groups of one to four hex digits separated by
 *	colons, e.g. "5054:00ff:fe4a:0b7b": a 64-bit
 *	port GUID (the interface id half of a GID).
 * @SRPT_NAME_GID: "0x" followed by exactly 32 hex digits: a 128-bit GID.
 * @SRPT_NAME_PORT_ID: an optional "0x" followed by an even number (2..32) of
 *	hex digits: a 128-bit SRP initiator port identifier, left padded with
 *	zero bytes.
 * @SRPT_NAME_IPV4: dotted-quad IPv4 address.
 * @SRPT_NAME_IPV6: IPv6 address in RFC 4291 text form, optionally followed
 *	by "%scope".
 */
enum srpt_name_kind {
	SRPT_NAME_NONE,
	SRPT_NAME_GUID,
	SRPT_NAME_GID,
	SRPT_NAME_PORT_ID,
	SRPT_NAME_IPV4,
	SRPT_NAME_IPV6,
};

/**
 * struct srpt_name - a target or initiator name in binary form
 * @kind: form the text had.
 * @id: the identifier, big endian, right aligned in 16 bytes: a GUID uses
 *	bytes 8..15, an IPv4 address bytes 12..15; everything else all 16.
 * @scope: IPv6 scope text after '%' (empty when none), NUL terminated.
 */
struct srpt_name {
	enum srpt_name_kind kind;
	u8 id[16];
	char scope[16];
};

/**
 * srpt_text_len() - length of a configfs name, bounded
 * @s: NUL terminated string.
 * @max: bound.
 *
 * Return: strlen(@s) when it is below @max, else @max.
 */
static inline size_t srpt_text_len(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

/**
 * srpt_parse_hex() - parse a run of hex digits into right-aligned bytes
 * @s: text.
 * @len: number of characters of @s, all of which must be hex digits.
 * @out: destination.
 * @out_len: size of @out; @len must be at most 2 * @out_len.
 *
 * The digits fill @out from the right; bytes to their left become zero.
 *
 * Return: 0 or -EINVAL.
 */
static inline int srpt_parse_hex(const char *s, size_t len, u8 *out,
				 size_t out_len)
{
	size_t i;

	if (len == 0 || len > 2 * out_len)
		return -EINVAL;
	memset(out, 0, out_len);
	for (i = 0; i < len; i++) {
		int v = srpt_hex_val(s[len - 1 - i]);

		if (v < 0)
			return -EINVAL;
		out[out_len - 1 - i / 2] |= (u8)(i & 1 ? v << 4 : v);
	}
	return 0;
}

/**
 * srpt_parse_guid_name() - parse "xxxx:xxxx:xxxx:xxxx"
 * @s: text.
 * @len: its length.
 * @guid: the eight GUID bytes, big endian.
 *
 * Each group has one to four hex digits; there are exactly four groups and
 * nothing else.
 *
 * Return: 0 or -EINVAL.
 */
static inline int srpt_parse_guid_name(const char *s, size_t len, u8 guid[8])
{
	size_t pos = 0;
	int group;

	for (group = 0; group < 4; group++) {
		size_t start = pos;

		while (pos < len && s[pos] != ':')
			pos++;
		if (srpt_parse_hex(s + start, pos - start, guid + 2 * group, 2))
			return -EINVAL;
		if (group < 3) {
			if (pos >= len)
				return -EINVAL;
			pos++;	/* skip ':' */
		}
	}
	return pos == len ? 0 : -EINVAL;
}

/**
 * srpt_has_hex_prefix() - whether @s starts with "0x" or "0X"
 * @s: text.
 * @len: its length.
 *
 * Return: true when it does.
 */
static inline bool srpt_has_hex_prefix(const char *s, size_t len)
{
	return len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/**
 * srpt_parse_ipv4() - parse a dotted-quad IPv4 address
 * @s: text.
 * @len: its length.
 * @addr: four address bytes.
 *
 * Each of the four parts has one to three decimal digits and a value of at
 * most 255.
 *
 * Return: 0 or -EINVAL.
 */
static inline int srpt_parse_ipv4(const char *s, size_t len, u8 addr[4])
{
	size_t pos = 0;
	int part;

	for (part = 0; part < 4; part++) {
		unsigned int v = 0, digits = 0;

		while (pos < len && s[pos] >= '0' && s[pos] <= '9') {
			if (++digits > 3)
				return -EINVAL;
			v = v * 10 + (unsigned int)(s[pos++] - '0');
		}
		if (digits == 0 || v > 255)
			return -EINVAL;
		addr[part] = (u8)v;
		if (part < 3) {
			if (pos >= len || s[pos] != '.')
				return -EINVAL;
			pos++;
		}
	}
	return pos == len ? 0 : -EINVAL;
}

/**
 * srpt_parse_ipv6() - parse an IPv6 address in RFC 4291 section 2.2 text form
 * @s: text, without any "%scope" suffix.
 * @len: its length.
 * @addr: sixteen address bytes.
 *
 * Accepts up to eight groups of one to four hex digits, at most one "::",
 * and a dotted-quad IPv4 tail in place of the last two groups.
 *
 * Return: 0 or -EINVAL.
 */
static inline int srpt_parse_ipv6(const char *s, size_t len, u8 addr[16])
{
	u8 words[16];
	int nbytes = 0, gap = -1;
	size_t pos = 0;

	if (len < 2)
		return -EINVAL;
	if (s[0] == ':') {
		if (s[1] != ':')
			return -EINVAL;
		gap = 0;
		pos = 2;
	}
	while (pos < len) {
		size_t start = pos;

		while (pos < len && srpt_hex_val(s[pos]) >= 0)
			pos++;
		if (pos < len && s[pos] == '.') {
			/* IPv4 tail: must end the address. */
			if (nbytes > 12 ||
			    srpt_parse_ipv4(s + start, len - start,
					    words + nbytes))
				return -EINVAL;
			nbytes += 4;
			pos = len;
			break;
		}
		if (nbytes > 14 ||
		    srpt_parse_hex(s + start, pos - start, words + nbytes, 2))
			return -EINVAL;
		nbytes += 2;
		if (pos == len)
			break;
		if (s[pos] != ':')
			return -EINVAL;
		pos++;
		if (pos < len && s[pos] == ':') {
			if (gap >= 0)
				return -EINVAL;
			gap = nbytes;
			pos++;
		} else if (pos == len) {
			return -EINVAL;	/* trailing single ':' */
		}
	}
	if (gap < 0) {
		if (nbytes != 16)
			return -EINVAL;
		memcpy(addr, words, 16);
		return 0;
	}
	if (nbytes > 14)
		return -EINVAL;	/* "::" must stand for at least one group */
	memset(addr, 0, 16);
	memcpy(addr, words, (size_t)gap);
	memcpy(addr + 16 - (nbytes - gap), words + gap, (size_t)(nbytes - gap));
	return 0;
}

/**
 * srpt_parse_scope() - split "%scope" off an IPv6 address
 * @s: text.
 * @len: in: length of @s; out: length without the suffix.
 * @scope: destination for the scope text.
 * @scope_size: size of @scope.
 *
 * A scope is one or more of [A-Za-z0-9._-], as an interface name or index.
 *
 * Return: 0 or -EINVAL.
 */
static inline int srpt_parse_scope(const char *s, size_t *len, char *scope,
				   size_t scope_size)
{
	size_t i, pct = *len;

	for (i = 0; i < *len; i++) {
		if (s[i] == '%') {
			pct = i;
			break;
		}
	}
	scope[0] = '\0';
	if (pct == *len)
		return 0;
	if (*len - pct - 1 == 0 || *len - pct - 1 >= scope_size)
		return -EINVAL;
	for (i = pct + 1; i < *len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return -EINVAL;
		scope[i - pct - 1] = c;
	}
	scope[*len - pct - 1] = '\0';
	*len = pct;
	return 0;
}

/**
 * srpt_parse_target_name() - parse the name of a target port directory
 * @s: NUL terminated configfs directory name.
 * @out: parsed name.
 *
 * A target port is named after GID index 0 of an RDMA port, either by its
 * interface id in GUID form ("5054:00ff:fe4a:0b7b") or by the whole GID
 * in the form "0xfe80000000000000505400fffe4a0b7b" ("0x" and 32 hex
 * digits).  Hex digits may be of either case.
 *
 * Return: 0 or -EINVAL.
 */
static inline int srpt_parse_target_name(const char *s, struct srpt_name *out)
{
	size_t len = srpt_text_len(s, SRPT_NAME_MAX);

	memset(out, 0, sizeof(*out));
	if (len >= SRPT_NAME_MAX)
		return -EINVAL;
	if (srpt_parse_guid_name(s, len, out->id + 8) == 0) {
		out->kind = SRPT_NAME_GUID;
		return 0;
	}
	if (len == 34 && srpt_has_hex_prefix(s, len) &&
	    srpt_parse_hex(s + 2, 32, out->id, 16) == 0) {
		out->kind = SRPT_NAME_GID;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	return -EINVAL;
}

/**
 * srpt_parse_initiator_name() - parse the name of a node ACL directory
 * @s: NUL terminated configfs directory name.
 * @out: parsed name.
 *
 * Accepted forms, tried in this order (none of them overlaps another):
 * the initiator port GUID ("5054:00ff:fe4a:0b7b"), the 128-bit initiator
 * port id as hex digits with or without "0x" (an even number, at most 32,
 * left padded with zero bytes), an IPv4 address and an IPv6 address with an
 * optional "%scope".
 *
 * Return: 0 or -EINVAL.
 */
static inline int srpt_parse_initiator_name(const char *s,
					    struct srpt_name *out)
{
	size_t len = srpt_text_len(s, SRPT_NAME_MAX);
	size_t hex_len;
	const char *hex;

	memset(out, 0, sizeof(*out));
	if (len >= SRPT_NAME_MAX || len == 0)
		return -EINVAL;

	if (srpt_parse_guid_name(s, len, out->id + 8) == 0) {
		out->kind = SRPT_NAME_GUID;
		return 0;
	}

	hex = s;
	hex_len = len;
	if (srpt_has_hex_prefix(s, len)) {
		hex += 2;
		hex_len -= 2;
	}
	if (hex_len % 2 == 0 && srpt_parse_hex(hex, hex_len, out->id, 16) == 0) {
		out->kind = SRPT_NAME_PORT_ID;
		return 0;
	}

	if (srpt_parse_ipv4(s, len, out->id + 12) == 0) {
		memset(out->id, 0, 12);
		out->kind = SRPT_NAME_IPV4;
		return 0;
	}

	if (srpt_parse_scope(s, &len, out->scope, sizeof(out->scope)) == 0 &&
	    srpt_parse_ipv6(s, len, out->id) == 0) {
		out->kind = SRPT_NAME_IPV6;
		return 0;
	}

	memset(out, 0, sizeof(*out));
	return -EINVAL;
}

/* ------------------------------------------------------------------------ */
/* Node ACL names as the in-tree driver (Linux 6.1) accepts them.           */
/* ------------------------------------------------------------------------ */

/*
 * The in-tree driver accepts an ACL directory when any of three lenient
 * readers takes its name: four colon-separated hex groups scanned the way
 * the kernel's sscanf("%hx:%hx:%hx:%hx") scans them (whatever follows the
 * fourth group is ignored), a port id of an even number of characters of
 * which only the first 32 must be hex digits, or an address as
 * inet_pton_with_scope() reads it.  A login is then admitted only by an
 * ACL spelt exactly as the driver prints the initiator, so most of the
 * names it accepts can never admit anybody.  The functions below model
 * that acceptance (written from the behaviour, checked against the in-tree
 * module by tools/tests/vm/t-differential.t), so that every name the
 * in-tree driver accepts is accepted here too.
 */
enum {
	/* configfs directory names have at most NAME_MAX (255) bytes */
	SRPT_CONFIGFS_NAME_MAX = 256,
	/* longest names the in-tree address readers take (INET*_ADDRSTRLEN) */
	SRPT_INTREE_IPV4_MAX = 16,
	SRPT_INTREE_IPV6_MAX = 46,
};

/**
 * srpt_kspace() - whether the kernel's isspace() holds for a byte
 * @c: the byte.
 *
 * Tab, newline, vertical tab, form feed, carriage return, space and the
 * Latin-1 no-break space (0xa0), as the kernel's character table has it.
 *
 * Return: true for those bytes.
 */
static inline bool srpt_kspace(char c)
{
	unsigned char u = (unsigned char)c;

	return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
}

/**
 * srpt_intree_guid() - the in-tree reading of "%hx:%hx:%hx:%hx"
 * @s: text.
 * @len: its length.
 * @guid: the four groups, each truncated to 16 bits, big endian.
 *
 * Each group may follow white space, starts with a hex digit, may start
 * with "0x" (then with or without digits after it) and runs as long as
 * hex digits follow; the groups are separated by exactly one ':' and
 * anything may follow the fourth.
 *
 * Return: 0 when four groups were read, else -EINVAL.
 */
static inline int srpt_intree_guid(const char *s, size_t len, u8 guid[8])
{
	size_t pos = 0;
	int group;

	for (group = 0; group < 4; group++) {
		unsigned int v = 0;

		if (group) {
			if (pos >= len || s[pos] != ':')
				return -EINVAL;
			pos++;
		}
		while (pos < len && srpt_kspace(s[pos]))
			pos++;
		if (pos >= len || srpt_hex_val(s[pos]) < 0)
			return -EINVAL;
		if (s[pos] == '0' && pos + 1 < len &&
		    (s[pos + 1] == 'x' || s[pos + 1] == 'X'))
			pos += 2;
		while (pos < len && srpt_hex_val(s[pos]) >= 0)
			v = (v << 4 | (unsigned int)srpt_hex_val(s[pos++])) &
			    0xffff;
		srpt_put_be16(guid + 2 * group, (u16)v);
	}
	return 0;
}

/**
 * srpt_intree_port_id() - the in-tree reading of a hex initiator port id
 * @s: text.
 * @len: its length.
 * @id: the id, right aligned in 16 bytes.
 *
 * An optional "0x" (either case), then an even number of characters; the
 * first 32 of them (all when fewer) must be hex digits, the rest is not
 * looked at.  "0x" alone stands for id 0.
 *
 * Return: 0 or -EINVAL.
 */
static inline int srpt_intree_port_id(const char *s, size_t len, u8 id[16])
{
	size_t n;

	if (srpt_has_hex_prefix(s, len)) {
		s += 2;
		len -= 2;
	}
	if (len % 2)
		return -EINVAL;
	n = len < 32 ? len : 32;
	memset(id, 0, 16);
	if (n == 0)
		return 0;
	return srpt_parse_hex(s, n, id, 16);
}

/**
 * srpt_intree_ipv4() - the in-tree reading of a dotted-quad IPv4 address
 * @s: text.
 * @len: its length.
 * @delim: a character that ends the address besides ':' and the end of
 *	@s ('\n' for a name of its own, '%' inside an IPv6 address).
 * @addr: the four address bytes.
 * @end: out: where the address ended.
 *
 * Four parts of one or more decimal digits (leading zeros allowed) with a
 * value of at most 255, separated by '.', then the end, @delim or ':'
 * (which ends the address, whatever follows).
 *
 * Return: 0 or -EINVAL.
 */
static inline int srpt_intree_ipv4(const char *s, size_t len, char delim,
				   u8 addr[4], size_t *end)
{
	unsigned int v = 0;
	size_t pos = 0;
	bool digits = false;
	int part = 0;

	for (;; pos++) {
		char c = pos < len ? s[pos] : '\0';

		if (c >= '0' && c <= '9') {
			v = v * 10 + (unsigned int)(c - '0');
			if (v > 255)
				return -EINVAL;
			digits = true;
			continue;
		}
		if (c != '.' && c != ':' && c != delim && c != '\0')
			return -EINVAL;
		if (!digits)
			return -EINVAL;
		addr[part++] = (u8)v;
		v = 0;
		digits = false;
		if (c == '.') {
			if (part >= 4)
				return -EINVAL;
			continue;
		}
		if (part != 4)
			return -EINVAL;
		*end = pos;
		return 0;
	}
}

/**
 * srpt_intree_ipv6() - the in-tree reading of an IPv6 address
 * @s: text.
 * @len: its length.
 * @addr: the sixteen address bytes.
 *
 * The address ends at the end of @s or at '%' (a scope, not looked at
 * here).  Up to eight groups of hex digits, each of a value of at most
 * 0xffff (leading zeros allowed), separated by ':', with at most one "::"
 * that stands for at least one zero group; in place of the last two groups
 * a dotted-quad IPv4 address, after which a ':' ends the address whatever
 * follows.
 *
 * Return: 0 or -EINVAL.
 */
static inline int srpt_intree_ipv6(const char *s, size_t len, u8 addr[16])
{
	u8 words[16];
	int nbytes = 0, gap = -1;
	size_t pos = 0, alen = 0, end;

	while (alen < len && s[alen] != '%')
		alen++;
	if (alen >= 1 && s[0] == ':') {
		if (alen < 2 || s[1] != ':')
			return -EINVAL;
		gap = 0;
		pos = 2;
	}
	/* Every pass reads a group; "::" alone has none. */
	while (gap != 0 || pos < alen) {
		size_t start = pos;
		unsigned int v = 0;

		while (pos < alen && srpt_hex_val(s[pos]) >= 0) {
			if (pos > start && v >= 0x1000)
				return -EINVAL;
			v = v << 4 | (unsigned int)srpt_hex_val(s[pos++]);
		}
		if (pos < alen && s[pos] == '.') {
			/* The IPv4 tail takes the last two groups. */
			if (gap >= 0 ? nbytes + 4 > 14 : nbytes + 4 != 16)
				return -EINVAL;
			if (srpt_intree_ipv4(s + start, alen - start, '%',
					     words + nbytes, &end))
				return -EINVAL;
			nbytes += 4;
			break;
		}
		if (pos == start)
			return -EINVAL;
		if (gap >= 0 ? nbytes + 2 > 14 : nbytes + 2 > 16)
			return -EINVAL;
		srpt_put_be16(words + nbytes, (u16)v);
		nbytes += 2;
		if (pos == alen)
			break;
		if (s[pos] != ':')
			return -EINVAL;
		pos++;
		if (pos < alen && s[pos] == ':') {
			if (gap >= 0)
				return -EINVAL;
			gap = nbytes;
			pos++;
			if (pos == alen)
				break;
		} else if (pos == alen) {
			return -EINVAL;
		}
	}
	if (gap < 0) {
		if (nbytes != 16)
			return -EINVAL;
		memcpy(addr, words, 16);
		return 0;
	}
	if (nbytes > 14)
		return -EINVAL;
	memset(addr, 0, 16);
	memcpy(addr, words, (size_t)gap);
	memcpy(addr + 16 - (nbytes - gap), words + gap, (size_t)(nbytes - gap));
	return 0;
}

/**
 * srpt_parse_intree_acl_name() - whether the in-tree driver accepts a name
 * @s: NUL terminated configfs directory name of a node ACL.
 * @out: what the in-tree driver reads the name as: the first of its
 *	readers that takes it (GUID, port id, IPv4, IPv6 in this order).
 *
 * Names that srpt_parse_initiator_name() takes mean what it says they
 * mean; this function is for the others, which the in-tree driver accepts
 * but can never match with a login (see the comment above).  One
 * difference: the in-tree driver looks up the scope of a link-local IPv6
 * address ("fe80::1%eth0") as an interface name or number and refuses the
 * name when there is no such interface; here any scope is accepted.
 *
 * Return: 0 when the in-tree driver accepts @s, else -EINVAL.
 */
static inline int srpt_parse_intree_acl_name(const char *s,
					     struct srpt_name *out)
{
	size_t len = srpt_text_len(s, SRPT_CONFIGFS_NAME_MAX);
	size_t end;

	memset(out, 0, sizeof(*out));
	if (len == 0 || len >= SRPT_CONFIGFS_NAME_MAX)
		return -EINVAL;
	if (srpt_intree_guid(s, len, out->id + 8) == 0) {
		out->kind = SRPT_NAME_GUID;
		return 0;
	}
	memset(out->id, 0, 16);
	if (srpt_intree_port_id(s, len, out->id) == 0) {
		out->kind = SRPT_NAME_PORT_ID;
		return 0;
	}
	memset(out->id, 0, 16);
	if (len <= SRPT_INTREE_IPV4_MAX &&
	    srpt_intree_ipv4(s, len, '\n', out->id + 12, &end) == 0) {
		out->kind = SRPT_NAME_IPV4;
		return 0;
	}
	memset(out->id, 0, 16);
	if (len <= SRPT_INTREE_IPV6_MAX && srpt_intree_ipv6(s, len, out->id) == 0) {
		out->kind = SRPT_NAME_IPV6;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	return -EINVAL;
}

/**
 * srpt_format_guid_name() - format eight GUID bytes as "xxxx:xxxx:xxxx:xxxx"
 * @buf: destination of at least SRPT_GUID_NAME_LEN bytes.
 * @guid: big endian GUID.
 */
static inline void srpt_format_guid_name(char *buf, const u8 guid[8])
{
	static const char digits[] = "0123456789abcdef";
	int i, o = 0;

	for (i = 0; i < 8; i++) {
		if (i && i % 2 == 0)
			buf[o++] = ':';
		buf[o++] = digits[guid[i] >> 4];
		buf[o++] = digits[guid[i] & 0xf];
	}
	buf[o] = '\0';
}

/**
 * srpt_format_gid_name() - format a 16-byte GID as "0x" and 32 hex digits
 * @buf: destination of at least SRPT_GID_NAME_LEN bytes.
 * @gid: big endian GID.
 */
static inline void srpt_format_gid_name(char *buf, const u8 gid[16])
{
	static const char digits[] = "0123456789abcdef";
	int i, o = 0;

	buf[o++] = '0';
	buf[o++] = 'x';
	for (i = 0; i < 16; i++) {
		buf[o++] = digits[gid[i] >> 4];
		buf[o++] = digits[gid[i] & 0xf];
	}
	buf[o] = '\0';
}

#endif /* SRPT_WIRE_H */
