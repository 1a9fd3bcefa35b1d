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
 */
#include <arpa/inet.h>

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
