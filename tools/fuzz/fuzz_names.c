// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of the configfs name parsers of srpt_wire.h:
 * srpt_parse_target_name() and srpt_parse_initiator_name(), with
 * srpt_format_guid_name() and srpt_format_gid_name().
 *
 * Input: the name (a NUL is appended; an embedded NUL ends it).
 *
 * Checked: a name that parses has the documented shape (kind, which id
 * bytes are used, scope only for IPv6) and a refused one leaves nothing
 * behind; a name that parses formats back, through srpt_format_*() or
 * inet_ntop(), to a name that parses to the same value; the case of hex
 * digits does not matter; every IPv4 and IPv6 address glibc's inet_pton()
 * accepts parses to the same address; a target port name is also an
 * initiator name of the same value; nothing is read past the 64 bytes a
 * parser may look at when there is no NUL in them.
 *
 * The in-tree reading of node ACL names, srpt_parse_intree_acl_name(), is
 * checked reader by reader against oracles built another way: glibc's
 * sscanf("%hx:%hx:%hx:%hx") for the GUID reader, and glibc's inet_pton()
 * for the address readers, on text normalised where the kernel's readers
 * are known to take more (leading zeros, text after an IPv4 address that
 * a ':' or a newline ends); the whole is the first reader that takes the
 * name; every name of a documented form is one it takes too.
 */
#include <arpa/inet.h>
#include <ctype.h>

#include "fuzz.h"
#include "../../srpt_wire.h"

static bool name_equal(const struct srpt_name *a, const struct srpt_name *b)
{
	return a->kind == b->kind && !memcmp(a->id, b->id, 16) &&
	       !strcmp(a->scope, b->scope);
}

static bool name_zero(const struct srpt_name *n)
{
	return n->kind == SRPT_NAME_NONE && fuzz_all(n->id, 16, 0) &&
	       fuzz_all(n->scope, sizeof(n->scope), 0);
}

static bool scope_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

static int parse(bool target, const char *s, struct srpt_name *n)
{
	char *copy = (char *)fuzz_dup(s, strlen(s) + 1);
	int ret;

	memset(n, 0x5a, sizeof(*n));
	ret = target ? srpt_parse_target_name(copy, n) :
		       srpt_parse_initiator_name(copy, n);
	free(copy);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	if (ret)
		FUZZ_CHECK(name_zero(n));
	return ret;
}

/* The name @n formats to: the canonical spelling of its kind. */
static void format(const struct srpt_name *n, char *buf, size_t size)
{
	char *tmp;

	switch (n->kind) {
	case SRPT_NAME_GUID:
		tmp = fuzz_alloc(SRPT_GUID_NAME_LEN);
		srpt_format_guid_name(tmp, n->id + 8);
		FUZZ_CHECK(strlen(tmp) == SRPT_GUID_NAME_LEN - 1);
		snprintf(buf, size, "%s", tmp);
		free(tmp);
		break;
	case SRPT_NAME_GID:
	case SRPT_NAME_PORT_ID:
		tmp = fuzz_alloc(SRPT_GID_NAME_LEN);
		srpt_format_gid_name(tmp, n->id);
		FUZZ_CHECK(strlen(tmp) == SRPT_GID_NAME_LEN - 1);
		snprintf(buf, size, "%s", tmp);
		free(tmp);
		break;
	case SRPT_NAME_IPV4:
		FUZZ_CHECK(inet_ntop(AF_INET, n->id + 12, buf, size));
		break;
	case SRPT_NAME_IPV6:
		FUZZ_CHECK(inet_ntop(AF_INET6, n->id, buf, size));
		if (n->scope[0]) {
			size_t l = strlen(buf);

			snprintf(buf + l, size - l, "%%%s", n->scope);
		}
		break;
	default:
		FUZZ_CHECK(!"no such kind");
	}
}

static void check_shape(bool target, const char *s, const struct srpt_name *n)
{
	size_t i, len;

	switch (n->kind) {
	case SRPT_NAME_GUID:
		FUZZ_CHECK(fuzz_all(n->id, 8, 0));
		break;
	case SRPT_NAME_GID:
		FUZZ_CHECK(target && strlen(s) == 34);
		break;
	case SRPT_NAME_PORT_ID:
		FUZZ_CHECK(!target);
		break;
	case SRPT_NAME_IPV4:
		FUZZ_CHECK(!target && fuzz_all(n->id, 12, 0));
		break;
	case SRPT_NAME_IPV6:
		FUZZ_CHECK(!target);
		len = strnlen(n->scope, sizeof(n->scope));
		FUZZ_CHECK(len < sizeof(n->scope));
		FUZZ_CHECK(fuzz_all(n->scope + len, sizeof(n->scope) - len, 0));
		for (i = 0; i < len; i++)
			FUZZ_CHECK(scope_char(n->scope[i]));
		FUZZ_CHECK(!len == !strchr(s, '%'));
		if (len)
			FUZZ_CHECK(!strcmp(strchr(s, '%') + 1, n->scope));
		return;
	default:
		FUZZ_CHECK(!"parsed to no kind");
	}
	if (target)
		FUZZ_CHECK(n->kind == SRPT_NAME_GUID ||
			   n->kind == SRPT_NAME_GID);
	FUZZ_CHECK(fuzz_all(n->scope, sizeof(n->scope), 0));
}

static void check_one(bool target, const char *s)
{
	struct srpt_name n, m;
	char buf[128], *up;
	size_t i;
	int ret = parse(target, s, &n);

	/* Hex digits, "0x" and the IPv4 tail are the same in any case. */
	up = (char *)fuzz_dup(s, strlen(s) + 1);
	for (i = 0; up[i]; i++)
		if (up[i] >= 'a' && up[i] <= 'z')
			up[i] = (char)(up[i] - 'a' + 'A');
	FUZZ_CHECK(parse(target, up, &m) == ret);
	if (!ret) {
		FUZZ_CHECK(m.kind == n.kind && !memcmp(m.id, n.id, 16));
		FUZZ_CHECK(!strcasecmp(m.scope, n.scope));
	}
	free(up);
	if (ret)
		return;

	check_shape(target, s, &n);
	format(&n, buf, sizeof(buf));
	FUZZ_CHECK(parse(target, buf, &m) == 0);
	FUZZ_CHECK(name_equal(&n, &m));

	/* A target port name, spelt as an initiator name, means the same. */
	if (target) {
		FUZZ_CHECK(parse(false, s, &m) == 0);
		FUZZ_CHECK(!memcmp(m.id, n.id, 16));
		FUZZ_CHECK(m.kind == (n.kind == SRPT_NAME_GID ?
				      SRPT_NAME_PORT_ID : SRPT_NAME_GUID));
	}
}

/*
 * Copy @s without the leading zeros of the decimal numbers from @from on
 * ("010.1" becomes "10.1"), which inet_pton() refuses in dotted decimal and
 * the parsers here take; at most @size - 1 bytes.
 */
static void strip_zeros(const char *s, size_t from, char *buf, size_t size)
{
	size_t i, o = 0;

	for (i = 0; s[i] && o + 1 < size; i++) {
		bool run_start = !o || buf[o - 1] < '0' || buf[o - 1] > '9';

		if (i >= from && s[i] == '0' && run_start &&
		    s[i + 1] >= '0' && s[i + 1] <= '9')
			continue;
		buf[o++] = s[i];
	}
	buf[o] = '\0';
}

/*
 * Addresses are what glibc's inet_pton() says they are: every address it
 * takes, the initiator parser takes alike, and every address the parser
 * takes, inet_pton() takes once leading zeros in dotted decimal are gone.
 */
static void check_inet(const char *s)
{
	char addr[SRPT_NAME_MAX + 1], buf[SRPT_NAME_MAX + 1], *pct, *colon;
	struct srpt_name n;
	int ret;
	u8 a[16];

	if (strlen(s) >= SRPT_NAME_MAX)
		return;
	ret = parse(false, s, &n);
	if (inet_pton(AF_INET, s, a) == 1) {
		FUZZ_CHECK(ret == 0 && n.kind == SRPT_NAME_IPV4);
		FUZZ_CHECK(!memcmp(n.id + 12, a, 4));
	}
	if (inet_pton(AF_INET6, s, a) == 1) {
		FUZZ_CHECK(ret == 0 && n.kind == SRPT_NAME_IPV6);
		FUZZ_CHECK(!memcmp(n.id, a, 16));
	}
	if (ret)
		return;
	if (n.kind == SRPT_NAME_IPV4) {
		strip_zeros(s, 0, buf, sizeof(buf));
		FUZZ_CHECK(inet_pton(AF_INET, buf, a) == 1);
		FUZZ_CHECK(!memcmp(n.id + 12, a, 4));
	} else if (n.kind == SRPT_NAME_IPV6) {
		snprintf(addr, sizeof(addr), "%s", s);
		pct = strchr(addr, '%');
		if (pct)
			*pct = '\0';
		/* Only a dotted IPv4 tail, after the last ':', is decimal. */
		colon = strrchr(addr, ':');
		FUZZ_CHECK(colon);
		strip_zeros(addr, strchr(colon, '.') ? (size_t)(colon - addr) :
			    strlen(addr), buf, sizeof(buf));
		FUZZ_CHECK(inet_pton(AF_INET6, buf, a) == 1);
		FUZZ_CHECK(!memcmp(n.id, a, 16));
	}
}

/* The port id reader, written from its description. */
static bool oracle_port_id(const char *s, u8 id[16])
{
	size_t len = strlen(s), i, n;

	if (len >= 2 && !strncasecmp(s, "0x", 2)) {
		s += 2;
		len -= 2;
	}
	if (len & 1)
		return false;
	n = len > 32 ? 32 : len;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	memset(id, 0, 16);
	for (i = 0; i < n / 2; i++) {
		char two[3] = { s[2 * i], s[2 * i + 1], 0 };

		id[16 - n / 2 + i] = (u8)strtoul(two, NULL, 16);
	}
	return true;
}

/*
 * The GUID reader against glibc's sscanf(), for names it reads the same
 * way: made of hex digits, ':' and C-locale white space only (the kernel
 * also takes a no-break space and "0x" prefixes; glibc also a sign).
 * Values agree while each group has at most 16 digits (glibc saturates,
 * the kernel wraps).
 */
static void check_intree_guid(const char *s)
{
	unsigned short w[4];
	u8 guid[8], want[8];
	size_t i, run = 0, longest = 0;
	int ret, n;

	for (i = 0; s[i]; i++) {
		if (!isxdigit((unsigned char)s[i]) && s[i] != ':' &&
		    !strchr(" \t\n\v\f\r", s[i]))
			return;
		run = isxdigit((unsigned char)s[i]) ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	ret = srpt_intree_guid(s, strlen(s), guid);
	n = sscanf(s, "%hx:%hx:%hx:%hx", &w[0], &w[1], &w[2], &w[3]);
	FUZZ_CHECK((ret == 0) == (n == 4));
	if (ret || longest > 16)
		return;
	for (i = 0; i < 4; i++) {
		want[2 * i] = (u8)(w[i] >> 8);
		want[2 * i + 1] = (u8)w[i];
	}
	FUZZ_CHECK(!memcmp(guid, want, 8));
}

/*
 * @s up to the first of @ends, leading zeros of its decimal numbers
 * dropped (from @from on), into @buf.
 */
static void cut_strip(const char *s, const char *ends, char *buf, size_t size)
{
	char tmp[SRPT_CONFIGFS_NAME_MAX + 1];

	snprintf(tmp, sizeof(tmp), "%.*s", (int)strcspn(s, ends), s);
	strip_zeros(tmp, 0, buf, size);
}

/* The IPv4 reader of a whole name against inet_pton(). */
static void check_intree_ipv4(const char *s)
{
	char buf[SRPT_CONFIGFS_NAME_MAX + 1];
	u8 a[4], want[4];
	size_t end;
	int ret;

	ret = srpt_intree_ipv4(s, strlen(s), '\n', a, &end);
	cut_strip(s, ":\n", buf, sizeof(buf));
	FUZZ_CHECK((ret == 0) == (inet_pton(AF_INET, buf, want) == 1));
	if (!ret) {
		FUZZ_CHECK(!memcmp(a, want, 4));
		FUZZ_CHECK(end == strcspn(s, ":\n"));
	}
}

/*
 * The IPv6 reader against inet_pton(), on the address before any '%',
 * cut at a ':' after an IPv4 tail, without leading zeros in hex groups
 * (beyond one digit) and in the tail's numbers.
 */
static void check_intree_ipv6(const char *s)
{
	char addr[SRPT_CONFIGFS_NAME_MAX + 1], buf[SRPT_CONFIGFS_NAME_MAX + 1];
	char *dot, *p, *q;
	u8 a[16], want[16];
	int ret;

	ret = srpt_intree_ipv6(s, strlen(s), a);
	snprintf(addr, sizeof(addr), "%.*s", (int)strcspn(s, "%"), s);
	dot = strchr(addr, '.');
	if (dot && strchr(dot, ':'))
		*strchr(dot, ':') = '\0';
	/* Field by field: a hex group loses its leading zeros, the tail
	 * those of its numbers. */
	p = addr;
	q = buf;
	while (*p) {
		size_t n = strcspn(p, ":");

		if (memchr(p, '.', n)) {
			char f[SRPT_CONFIGFS_NAME_MAX + 1];

			snprintf(f, sizeof(f), "%.*s", (int)n, p);
			strip_zeros(f, 0, q, sizeof(buf) - (size_t)(q - buf));
			q += strlen(q);
		} else {
			size_t z = 0;

			while (z + 1 < n && p[z] == '0')
				z++;
			memcpy(q, p + z, n - z);
			q += n - z;
		}
		p += n;
		if (*p == ':')
			*q++ = *p++;
	}
	*q = '\0';
	FUZZ_CHECK((ret == 0) == (inet_pton(AF_INET6, buf, want) == 1));
	if (!ret)
		FUZZ_CHECK(!memcmp(a, want, 16));
}

static void check_intree(const char *s)
{
	size_t len = strlen(s), end;
	struct srpt_name n, m;
	u8 id[16], want[16];
	enum srpt_name_kind first = SRPT_NAME_NONE;

	if (len >= SRPT_CONFIGFS_NAME_MAX)
		return;
	check_intree_guid(s);
	check_intree_ipv4(s);
	check_intree_ipv6(s);
	FUZZ_CHECK((srpt_intree_port_id(s, len, id) == 0) ==
		   oracle_port_id(s, want));
	if (oracle_port_id(s, want))
		FUZZ_CHECK(!memcmp(id, want, 16));

	/* The whole: the first reader that takes the name. */
	if (len && srpt_intree_guid(s, len, id + 8) == 0)
		first = SRPT_NAME_GUID;
	else if (len && srpt_intree_port_id(s, len, id) == 0)
		first = SRPT_NAME_PORT_ID;
	else if (len && len <= SRPT_INTREE_IPV4_MAX &&
		 srpt_intree_ipv4(s, len, '\n', id + 12, &end) == 0)
		first = SRPT_NAME_IPV4;
	else if (len && len <= SRPT_INTREE_IPV6_MAX &&
		 srpt_intree_ipv6(s, len, id) == 0)
		first = SRPT_NAME_IPV6;
	memset(&n, 0x5a, sizeof(n));
	if (srpt_parse_intree_acl_name(s, &n)) {
		FUZZ_CHECK(first == SRPT_NAME_NONE && name_zero(&n));
		return;
	}
	FUZZ_CHECK(n.kind == first && !n.scope[0]);
	if (first == SRPT_NAME_GUID)
		FUZZ_CHECK(fuzz_all(n.id, 8, 0));
	if (first == SRPT_NAME_IPV4)
		FUZZ_CHECK(fuzz_all(n.id, 12, 0));

	/* A GUID, port id or IPv4 name reads the same in both readings. */
	if (parse(false, s, &m) == 0 && m.kind != SRPT_NAME_IPV6)
		FUZZ_CHECK(n.kind == m.kind && !memcmp(n.id, m.id, 16));
}

/*
 * Every name of a documented form is one the in-tree driver takes, but for
 * IPv6 names longer than it reads (a long scope) that do not start with
 * four groups.
 */
static void check_intree_documented(const char *s)
{
	struct srpt_name n, m;
	u8 guid[8];

	if (parse(false, s, &m))
		return;
	if (m.kind == SRPT_NAME_IPV6 && strlen(s) > SRPT_INTREE_IPV6_MAX &&
	    srpt_intree_guid(s, strlen(s), guid) != 0)
		return;
	FUZZ_CHECK(srpt_parse_intree_acl_name(s, &n) == 0);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct srpt_name n;
	char *s;

	if (size > 256)
		return 0;
	s = fuzz_alloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';

	check_one(true, s);
	check_one(false, s);
	check_inet(s);
	check_intree(s);
	check_intree_documented(s);
	free(s);

	/*
	 * SRPT_NAME_MAX bytes without a NUL: too long, refused, and not a
	 * byte past them read.
	 */
	if (size >= SRPT_NAME_MAX && !memchr(data, 0, SRPT_NAME_MAX)) {
		s = (char *)fuzz_dup(data, SRPT_NAME_MAX);
		FUZZ_CHECK(srpt_parse_target_name(s, &n) == -EINVAL);
		FUZZ_CHECK(name_zero(&n));
		FUZZ_CHECK(srpt_parse_initiator_name(s, &n) == -EINVAL);
		FUZZ_CHECK(name_zero(&n));
		free(s);
	}
	return 0;
}
