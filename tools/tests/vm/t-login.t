#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Login over RDMA/CM with the kernel's ib_srp on soft-RoCE: refused
# without a node ACL (and the log names the ACL to create), admitted with
# it, data written and verified, logout, teardown, rmmod.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
srpt_load
srp_initiator_load
if srp_export_setup; then ok "ramdisk exported on rxe0, RDMA/CM port $SRPT_CM_PORT"; else not_ok "ramdisk exported"; fi
run_fails "login without a node ACL refused" srp_login
ini=$(dmesg | sed -n 's/.*create acls\/\(0x[0-9a-f]\{32\}\).*/\1/p' | tail -n 1)
diag "initiator port id from the log: ${ini:-none}"
if [ -n "$ini" ]; then ok "reject log names the node ACL to create"; else not_ok "reject log names the node ACL to create"; dmesg | tail -n 5 | sed 's/^/# /'; fi
run_ok "node ACL $ini created" srp_acl "$ini"
run_ok "login with the node ACL accepted" srp_login
disk=$(srp_disk 30)
if [ -n "$disk" ]; then ok "SRP disk appeared ($disk)"; else not_ok "SRP disk appeared"; fi
if [ -n "$disk" ]; then
	is "$(cat /sys/block/"${disk#/dev/}"/size)" 131072 "disk has the ramdisk's 64 MiB"
	run_ok "write and read back 4 MiB with dd" sh -c "
		dd if=/dev/urandom of=/tmp/pat bs=1M count=4 2>/dev/null &&
		dd if=/tmp/pat of=$disk bs=1M oflag=direct conv=nocreat 2>/dev/null &&
		dd if=$disk of=/tmp/back bs=1M count=4 iflag=direct 2>/dev/null &&
		cmp /tmp/pat /tmp/back"
	for bs in 512 4k 64k 1m; do
		run_ok "fio verify=crc32c bs=$bs direct" fio --name=v --filename="$disk" --allow_file_create=0 \
			--rw=randwrite --bs=$bs --size=8m --direct=1 --ioengine=libaio \
			--iodepth=16 --verify=crc32c --do_verify=1 --output=/dev/null
	done
fi
run_ok "logout" srp_logout_all
run_ok "channel released after logout" srpt_channels_gone 30
srp_export_teardown
run_ok "rmmod after teardown" rmmod ib_srpt
