// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the configfs name parsers in srpt_wire.h: target port (WWN)
 * names and node ACL (initiator) names.
 */
#include "srpt_kcompat.h"
#include "../../../srpt_wire.h"
#include "tap.h"

static const u8 guid1[8] = { 0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b };
static const u8 gid1[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
			     0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b };

static void target_ok(const char *name, enum srpt_name_kind kind,
		      const u8 id[16])
{
	struct srpt_name n;
	int ret = srpt_parse_target_name(name, &n);

	tap_ok(ret == 0 && n.kind == kind && memcmp(n.id, id, 16) == 0,
	       "target name '%s' accepted", name);
}

static void target_bad(const char *name)
{
	struct srpt_name n;
	int ret = srpt_parse_target_name(name, &n);

	tap_ok(ret == -EINVAL && n.kind == SRPT_NAME_NONE,
	       "target name '%s' refused", name);
}

static void init_ok(const char *name, enum srpt_name_kind kind,
		    const u8 id[16], const char *scope)
{
	struct srpt_name n;
	int ret = srpt_parse_initiator_name(name, &n);

	tap_ok(ret == 0 && n.kind == kind && memcmp(n.id, id, 16) == 0 &&
	       strcmp(n.scope, scope) == 0,
	       "initiator name '%s' accepted as kind %d", name, kind);
}

static void init_bad(const char *name)
{
	struct srpt_name n;
	int ret = srpt_parse_initiator_name(name, &n);

	tap_ok(ret == -EINVAL && n.kind == SRPT_NAME_NONE,
	       "initiator name '%s' refused", name);
}

/* @name printable on one TAP line: bytes outside ' '..'~' as \xNN. */
static const char *shown(const char *name)
{
	static char buf[4 * 300];
	size_t i, o = 0;

	for (i = 0; name[i] && o + 5 < sizeof(buf); i++) {
		unsigned char c = (unsigned char)name[i];

		if (c >= ' ' && c <= '~')
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "\\x%02x",
					      c);
	}
	buf[o] = '\0';
	return buf;
}

static void intree_ok(const char *name, enum srpt_name_kind kind,
		      const char *hex)
{
	struct srpt_name n;
	u8 id[16];
	int i, ret = srpt_parse_intree_acl_name(name, &n);

	for (i = 0; i < 16; i++)
		id[i] = (u8)(srpt_hex_val(hex[2 * i]) << 4 |
			     srpt_hex_val(hex[2 * i + 1]));
	tap_ok(ret == 0 && n.kind == kind && memcmp(n.id, id, 16) == 0 &&
	       n.scope[0] == '\0',
	       "in-tree driver accepts ACL name '%s' as kind %d", shown(name),
	       kind);
}

static void intree_bad(const char *name)
{
	struct srpt_name n;
	int ret = srpt_parse_intree_acl_name(name, &n);

	tap_ok(ret == -EINVAL && n.kind == SRPT_NAME_NONE,
	       "in-tree driver refuses ACL name '%s'", shown(name));
}

/*
 * Node ACL names as the in-tree driver of Linux 6.1 accepts them: each case
 * was checked against that module (t-differential.t runs most of them).
 */
static void test_intree_names(void)
{
	static const char *const strict[] = {
		"5054:00ff:fe4a:0b7b", "0x12", "12", "192.168.122.76",
		"1.2.3.04", "fe80::1", "fe80::1%veth1", "::", "::1",
		"::ffff:10.1.2.3", "1:2:3:4:5:6:7::", "2001:db8::",
		"FE80:0000:0000:0000:0000:0000:0000:0001",
		"0xfe80000000000000505400fffe4a0b7b",
	};
	char name[300];
	size_t i;

	/* The name of issue 12: two IPv6 addresses run together. */
	intree_ok("fec0:fe80:5054:00ff:fe12:3456:5054:00ff:fe12:3456",
		  SRPT_NAME_GUID, "0000000000000000fec0fe80505400ff");
	intree_ok(" 1:2:3:4", SRPT_NAME_GUID,
		  "00000000000000000001000200030004");
	intree_ok("1: 2:\t3:\n4", SRPT_NAME_GUID,
		  "00000000000000000001000200030004");
	intree_ok("\xa0" "1:2:3:4", SRPT_NAME_GUID,
		  "00000000000000000001000200030004");
	intree_ok("0x:0X:0x1:0x", SRPT_NAME_GUID,
		  "00000000000000000000000000010000");
	intree_ok("12345:1:1:1", SRPT_NAME_GUID,
		  "00000000000000002345000100010001");
	intree_ok("5054:00ff:fe4a:0b7bxyz", SRPT_NAME_GUID,
		  "0000000000000000505400fffe4a0b7b");
	intree_ok("1:2:3:4:5:6::1.2.3.4", SRPT_NAME_GUID,
		  "00000000000000000001000200030004");
	intree_ok("0x", SRPT_NAME_PORT_ID, "00000000000000000000000000000000");
	intree_ok("0X", SRPT_NAME_PORT_ID, "00000000000000000000000000000000");
	intree_ok("0x0000000000000000505400fffe123456zz", SRPT_NAME_PORT_ID,
		  "0000000000000000505400fffe123456");
	intree_ok("0000000000000000505400fffe123456ab", SRPT_NAME_PORT_ID,
		  "0000000000000000505400fffe123456");
	intree_ok("192.168.1.5:junk", SRPT_NAME_IPV4,
		  "000000000000000000000000c0a80105");
	intree_ok("192.168.1.0:", SRPT_NAME_IPV4,
		  "000000000000000000000000c0a80100");
	intree_ok("0000000001.2.3.4", SRPT_NAME_IPV4,
		  "00000000000000000000000001020304");
	intree_ok("1.2.3.4\n", SRPT_NAME_IPV4,
		  "00000000000000000000000001020304");
	intree_ok("fe80::00001", SRPT_NAME_IPV6,
		  "fe800000000000000000000000000001");
	intree_ok("::ffff:1.2.3.4:junk", SRPT_NAME_IPV6,
		  "00000000000000000000ffff01020304");
	intree_ok("::0001.2.3.004", SRPT_NAME_IPV6,
		  "00000000000000000000000001020304");
	intree_ok("2001:db8::1%what ever", SRPT_NAME_IPV6,
		  "20010db8000000000000000000000001");
	intree_ok("fec0::1%", SRPT_NAME_IPV6,
		  "fec00000000000000000000000000001");
	/* The in-tree driver refuses this one (no interface "xyz"). */
	intree_ok("fe80::1%xyz", SRPT_NAME_IPV6,
		  "fe800000000000000000000000000001");
	intree_ok("::%3", SRPT_NAME_IPV6, "00000000000000000000000000000000");
	intree_ok("::1:2:3:4:5:6:7", SRPT_NAME_IPV6,
		  "00000001000200030004000500060007");
	/* Only the first 32 characters after 0x must be hex digits. */
	memset(name, 0, sizeof(name));
	memcpy(name, "0x0000000000000000505400fffe123456", 34);
	memset(name + 34, 'z', 254 - 34);
	intree_ok(name, SRPT_NAME_PORT_ID, "0000000000000000505400fffe123456");

	intree_bad("");
	intree_bad("1 :2:3:4");
	intree_bad("1:2:3");
	intree_bad("0x123");
	intree_bad("123");
	intree_bad("0xg0");
	intree_bad("nonsense");
	intree_bad("ib.0000000000000000505400fffe123456");
	intree_bad("[::1]");
	intree_bad("::1-64");
	intree_bad("256.1.1.1");
	intree_bad("1.1.1");
	intree_bad("1.1.1.1.1");
	intree_bad("1.2.3.4 ");
	intree_bad("192.168.123.1:junk");	/* longer than 16 */
	intree_bad("fe80::1::2");
	intree_bad(":1");
	intree_bad("1:");
	intree_bad("fe80::12345");
	intree_bad("::1.2:3.4");
	intree_bad("::1:2:3:4:5:6:1.2.3.4");
	intree_ok("1:2:3:4:5:6:7:1.2.3.4", SRPT_NAME_GUID,
		  "00000000000000000001000200030004");
	intree_bad("-1:2:3:4");
	/* Odd length, and hex digits only: no reader takes it. */
	memset(name, 0, sizeof(name));
	memset(name, 'a', 201);
	intree_bad(name);
	/* Longer than a configfs name. */
	memset(name, 0, sizeof(name));
	memset(name, '0', 258);
	intree_bad(name);

	/* Whatever the documented forms take, the in-tree driver takes. */
	for (i = 0; i < sizeof(strict) / sizeof(strict[0]); i++) {
		struct srpt_name n;

		tap_ok(srpt_parse_initiator_name(strict[i], &n) == 0 &&
		       srpt_parse_intree_acl_name(strict[i], &n) == 0,
		       "'%s' is accepted in both readings", strict[i]);
	}
}

int main(void)
{
	u8 id[16], v4[16], v6[16];
	char buf[64];
	char longname[200];

	/* Target names. */
	memset(id, 0, 16);
	memcpy(id + 8, guid1, 8);
	target_ok("5054:00ff:fe4a:0b7b", SRPT_NAME_GUID, id);
	target_ok("5054:00FF:FE4A:0B7B", SRPT_NAME_GUID, id);
	target_ok("5054:ff:fe4a:b7b", SRPT_NAME_GUID, id);
	target_ok("0xfe80000000000000505400fffe4a0b7b", SRPT_NAME_GID, gid1);
	target_ok("0XFE80000000000000505400FFFE4A0B7B", SRPT_NAME_GID, gid1);
	target_bad("");
	target_bad("nonsense");
	target_bad("0x123");
	target_bad("fe80000000000000505400fffe4a0b7b");	/* no 0x */
	target_bad("0xfe80000000000000505400fffe4a0b7");	/* 31 digits */
	target_bad("0xfe80000000000000505400fffe4a0b7b0"); /* 33 digits */
	target_bad("0xfe80000000000000505400fffe4a0b7g");
	target_bad("5054:00ff:fe4a");
	target_bad("5054:00ff:fe4a:0b7b:1");
	target_bad("5054:00ff:fe4a:0b7b ");
	target_bad("5054:00ff:fe4a:0b7bjunk");
	target_bad("50540:0ff:fe4a:0b7b");
	target_bad("5054::fe4a:0b7b");
	target_bad(":5054:00ff:fe4a:0b7b");
	target_bad("0x5054:00ff:fe4a:0b7b");
	target_bad("fe80::5054:ff:fe4a:b7b");
	target_bad("ib.fe80000000000000505400fffe4a0b7b");

	/* Initiator names. */
	init_ok("5054:00ff:fe4a:0b7b", SRPT_NAME_GUID, id, "");
	init_ok("0xfe80000000000000505400fffe4a0b7b", SRPT_NAME_PORT_ID,
		gid1, "");
	init_ok("fe80000000000000505400fffe4a0b7b", SRPT_NAME_PORT_ID,
		gid1, "");
	memset(id, 0, 16);
	id[15] = 0x12;
	init_ok("0x12", SRPT_NAME_PORT_ID, id, "");
	init_ok("12", SRPT_NAME_PORT_ID, id, "");
	memset(v4, 0, 16);
	v4[12] = 192; v4[13] = 168; v4[14] = 122; v4[15] = 76;
	init_ok("192.168.122.76", SRPT_NAME_IPV4, v4, "");
	memset(v4, 0, 16);
	init_ok("0.0.0.0", SRPT_NAME_IPV4, v4, "");
	memset(v6, 0, 16);
	v6[0] = 0xfe; v6[1] = 0x80; v6[15] = 1;
	init_ok("fe80::1", SRPT_NAME_IPV6, v6, "");
	init_ok("fe80::1%veth1", SRPT_NAME_IPV6, v6, "veth1");
	init_ok("fe80::1%2", SRPT_NAME_IPV6, v6, "2");
	init_ok("fe80:0:0:0:0:0:0:1", SRPT_NAME_IPV6, v6, "");
	init_ok("FE80:0000:0000:0000:0000:0000:0000:0001", SRPT_NAME_IPV6,
		v6, "");
	memset(v6, 0, 16);
	init_ok("::", SRPT_NAME_IPV6, v6, "");
	v6[15] = 1;
	init_ok("::1", SRPT_NAME_IPV6, v6, "");
	memset(v6, 0, 16);
	v6[0] = 0x20; v6[1] = 0x01; v6[2] = 0x0d; v6[3] = 0xb8;
	init_ok("2001:db8::", SRPT_NAME_IPV6, v6, "");
	memset(v6, 0, 16);
	v6[10] = 0xff; v6[11] = 0xff;
	v6[12] = 10; v6[13] = 1; v6[14] = 2; v6[15] = 3;
	init_ok("::ffff:10.1.2.3", SRPT_NAME_IPV6, v6, "");
	/*
	 * Zeros ending a hex group are digits, not leading zeros
	 * (tools/fuzz/regressions/names/ipv6-trailing-zeros).
	 */
	memset(v6, 0, 16);
	v6[0] = 0x0f; v6[1] = 0xe4; v6[14] = 0x0e; v6[15] = 0x00;
	init_ok("fe4::e00", SRPT_NAME_IPV6, v6, "");

	init_bad("");
	init_bad("nonsense");
	init_bad("0x");
	init_bad("0x123");
	init_bad("123");
	init_bad("0xfe80000000000000505400fffe4a0b7b00"); /* 34 digits */
	init_bad("fe80000000000000505400fffe4a0b7b00ab");
	init_bad("5054:00ff:fe4a:0b7bX");
	init_bad("256.1.1.1");
	init_bad("1.1.1");
	init_bad("1.1.1.1.1");
	init_bad("1.1.1.1 ");
	init_bad("1..1.1");
	init_bad("0001.1.1.1");
	init_bad("fe80::1::2");
	init_bad("fe80:::1");
	init_bad("1:2:3:4:5:6:7:8:9");
	init_bad("1:2:3:4:5:6:7");
	init_bad("1:2:3:4:5:6:7:8::");
	init_bad("1:2:3:4:5:6:7::8");
	init_bad("fe80::1%");
	init_bad("fe80::1%bad/scope");
	init_bad("fe80::1%abcdefghijklmnopq");
	init_bad("fe80::12345");
	init_bad(":1");
	init_bad("1:");
	init_bad("::1.2.3.4.5");
	init_bad("1:2:3:4:5:6:7:1.2.3.4");
	init_bad("ib.fe80000000000000505400fffe4a0b7b");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	init_bad(longname);
	target_bad(longname);

	test_intree_names();

	/* Formatting round-trips through the parser. */
	srpt_format_guid_name(buf, guid1);
	tap_ok(strcmp(buf, "5054:00ff:fe4a:0b7b") == 0, "GUID formatted: %s",
	       buf);
	srpt_format_gid_name(buf, gid1);
	tap_ok(strcmp(buf, "0xfe80000000000000505400fffe4a0b7b") == 0,
	       "GID formatted: %s", buf);

	/* Byte helpers. */
	srpt_put_be64((u8 *)buf, 0x0102030405060708ULL);
	tap_ok(srpt_get_be64((u8 *)buf) == 0x0102030405060708ULL &&
	       buf[0] == 1 && buf[7] == 8, "be64 round trip");
	srpt_put_be16((u8 *)buf, 0xabcd);
	tap_ok(srpt_get_be16((u8 *)buf) == 0xabcd, "be16 round trip");

	return tap_done();
}
