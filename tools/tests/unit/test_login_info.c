// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of srpt_login_info.h: the login strings of the configfs
 * attribute login_info, in the forms ib_srp's add_target parses, and the
 * bound to one page (whole lines only).
 */
#include "srpt_kcompat.h"
#include "../../../srpt_login_info.h"
#include "tap.h"

static const u8 gid1[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
			     0x50, 0x54, 0x00, 0xff, 0xfe, 0x4a, 0x0b, 0x7b };
static const u64 guid1 = 0x505400fffe4a0b7bULL;

static void test_ib_cm(void)
{
	char page[256];
	struct srpt_login_info li;
	int ret;

	srpt_login_info_init(&li, page, sizeof(page));
	ret = srpt_login_add_ib_cm(&li, guid1, guid1, gid1, 0xffff, guid1);
	tap_ok(ret == 0 && strcmp(page, "id_ext=505400fffe4a0b7b,ioc_guid=505400fffe4a0b7b,dgid=fe80000000000000505400fffe4a0b7b,pkey=ffff,service_id=505400fffe4a0b7b\n") == 0,
	       "IB CM string in ibsrpdm -c form");
	tap_ok(li.len == strlen(page) && li.len == 126,
	       "IB CM line is 125 characters and a newline (len %zu)", li.len);

	srpt_login_info_init(&li, page, sizeof(page));
	srpt_login_add_ib_cm(&li, 1, 0x0002000000000000ULL, gid1, 0x7fff,
			     0xa);
	tap_ok(strcmp(page, "id_ext=0000000000000001,ioc_guid=0002000000000000,dgid=fe80000000000000505400fffe4a0b7b,pkey=7fff,service_id=000000000000000a\n") == 0,
	       "leading zeros kept in every field");
}

static void test_rdma_cm(void)
{
	char page[512];
	struct srpt_login_info li;

	srpt_login_info_init(&li, page, sizeof(page));
	srpt_login_add_rdma_cm(&li, guid1, guid1, "192.168.123.1", false, 5555);
	srpt_login_add_rdma_cm(&li, guid1, guid1, "fd00:123::1", true, 5555);
	srpt_login_add_rdma_cm(&li, guid1, guid1, "10.0.0.1", false, 0);
	srpt_login_add_rdma_cm(&li, guid1, guid1, "::ffff:10.0.0.1", true,
			       65535);
	tap_ok(strcmp(page,
		      "id_ext=505400fffe4a0b7b,ioc_guid=505400fffe4a0b7b,dest=192.168.123.1:5555\n"
		      "id_ext=505400fffe4a0b7b,ioc_guid=505400fffe4a0b7b,dest=[fd00:123::1]:5555\n"
		      "id_ext=505400fffe4a0b7b,ioc_guid=505400fffe4a0b7b,dest=10.0.0.1:0\n"
		      "id_ext=505400fffe4a0b7b,ioc_guid=505400fffe4a0b7b,dest=[::ffff:10.0.0.1]:65535\n") == 0,
	       "RDMA/CM strings: IPv4 bare, IPv6 in brackets, ports 0..65535");
	tap_ok(li.left_out == 0 && li.len == strlen(page),
	       "nothing left out, length counted");
}

static void test_longest(void)
{
	/* The longest IPv6 text form. */
	const char *v6 = "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255";
	char page[SRPT_LOGIN_LINE_MAX + 2];
	struct srpt_login_info li;
	int ret;

	tap_ok(strlen(v6) == SRPT_LOGIN_ADDR_MAX,
	       "longest address is SRPT_LOGIN_ADDR_MAX (%d)",
	       SRPT_LOGIN_ADDR_MAX);
	srpt_login_info_init(&li, page, sizeof(page));
	ret = srpt_login_add_rdma_cm(&li, ~0ULL, ~0ULL, v6, true, 65535);
	tap_ok(ret == 0 && li.len == 109,
	       "longest RDMA/CM line fits (108 characters and a newline)");

	srpt_login_info_init(&li, page, sizeof(page));
	ret = srpt_login_add_rdma_cm(&li, 1, 1,
				     "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.2550",
				     true, 1);
	tap_ok(ret == -ENOSPC && li.len == 0 && page[0] == '\0' &&
	       li.left_out == 1,
	       "an address longer than any is left out, not cut");
}

/* Lines fill a page only whole; the rest is counted, never cut. */
static void test_page_bound(void)
{
	/* 74 bytes per IPv4 line below ("...dest=192.168.123.1:5555\n"). */
	char page[4096 + 8];
	struct srpt_login_info li;
	const size_t line = 74;
	unsigned int i, fit = (4096 - 1) / line;
	int ret = 0, last_ok = -1;

	memset(page, 'x', sizeof(page));
	srpt_login_info_init(&li, page, 4096);
	for (i = 0; i < fit + 3; i++) {
		ret = srpt_login_add_rdma_cm(&li, guid1, guid1, "192.168.123.1",
					     false, 5555);
		if (ret == 0)
			last_ok = (int)i;
	}
	tap_ok(last_ok == (int)fit - 1 && li.left_out == 3 && ret == -ENOSPC,
	       "a 4096-byte page holds %u lines of %zu bytes, 3 left out (got %d, %u)",
	       fit, line, last_ok + 1, li.left_out);
	tap_ok(li.len == fit * line && li.len <= 4095 &&
	       page[li.len] == '\0' && page[li.len - 1] == '\n',
	       "the page ends with a whole line and a NUL (len %zu)", li.len);
	tap_ok(page[4096] == 'x', "nothing written past the page");

	/* A line that fits exactly: size - 1 bytes used. */
	srpt_login_info_init(&li, page, line + 1);
	ret = srpt_login_add_rdma_cm(&li, guid1, guid1, "192.168.123.1",
				     false, 5555);
	tap_ok(ret == 0 && li.len == line && page[line] == '\0',
	       "a line that fits exactly is written");
	srpt_login_info_init(&li, page, line);
	ret = srpt_login_add_rdma_cm(&li, guid1, guid1, "192.168.123.1",
				     false, 5555);
	tap_ok(ret == -ENOSPC && li.len == 0 && page[0] == '\0',
	       "one byte short: left out, the page stays empty");
	srpt_login_info_init(&li, page, 1);
	ret = srpt_login_add_ib_cm(&li, guid1, guid1, gid1, 0xffff, guid1);
	tap_ok(ret == -ENOSPC && page[0] == '\0', "a one-byte page stays empty");
}

int main(void)
{
	test_ib_cm();
	test_rdma_cm();
	test_longest();
	test_page_bound();
	return tap_done();
}
