#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Raw configfs ABI of the srpt fabric on a soft-RoCE port (runs in the VM):
# both forms of target port name, TPG, ACL names; malformed names and a
# second spelling of a target port refused with EINVAL, as documented; a
# well-formed name of no RDMA port accepted (ours; it waits for the port,
# see t-boot) or refused (in-tree).
. "$SRPT_REPO/tools/vm/lib.sh"
rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
hex=$RXE_GID_HEX
guid=$RXE_GUID
diag "rxe0 GID 0: $RXE_GID"
srpt_load
c=/sys/kernel/config/target/srpt
mkdir -p $c
run_ok "GID form target port 0x$hex" mkdir $c/0x"$hex"
run_ok "GUID form target port $guid" mkdir $c/"$guid"
einval="Invalid argument"
run_fails_with "malformed target port name refused with EINVAL" "$einval" mkdir $c/nonsense
run_fails_with "0x123 refused with EINVAL" "$einval" mkdir $c/0x123
absent=0xfe800000000000001111222233334444
if ours; then
	# A well-formed name of no port (yet): created, waiting for its port.
	run_ok "GID of no port accepted" mkdir $c/$absent
	is "$(cat $c/$absent/info/status 2>&1)" "waiting for an RDMA port with GID $absent" \
		"its info/status says it waits"
	is "$(cat $c/0x"$hex"/info/status 2>&1)" "bound to rxe0 port 1" \
		"info/status of the target port of rxe0"
	run_ok "the waiting target port removed" rmdir $c/$absent
else
	run_fails_with "GID of no port refused with EINVAL (in-tree)" "$einval" mkdir $c/$absent
fi
run_fails_with "GID with 33 digits refused with EINVAL" "$einval" mkdir $c/0x"$hex"0
# LIO turns every refusal of a target port name into EINVAL, an existing
# port's second spelling (upper case hex) included.
run_fails_with "second spelling of the GID form refused with EINVAL" "$einval" \
	mkdir "$c/0x$(echo "$hex" | tr a-f A-F)"
run_ok "TPG created" mkdir $c/0x"$hex"/tpgt_1
run_ok "TPG enabled" sh -c "echo 1 > $c/0x$hex/tpgt_1/enable"
run_ok "ACL 0x + 32 hex digits" mkdir $c/0x"$hex"/tpgt_1/acls/0x00000000000000000000000000000042
run_ok "ACL 32 hex digits without 0x" mkdir $c/0x"$hex"/tpgt_1/acls/00000000000000000000000000000043
run_ok "ACL IPv4 address" mkdir $c/0x"$hex"/tpgt_1/acls/192.168.123.2
run_fails_with "malformed ACL name refused with EINVAL" "$einval" mkdir $c/0x"$hex"/tpgt_1/acls/nonsense
run_fails "rmmod refused while configured" rmmod ib_srpt
rmdir $c/0x"$hex"/tpgt_1/acls/* 2>/dev/null
echo 0 > $c/0x"$hex"/tpgt_1/enable
rmdir $c/0x"$hex"/tpgt_1 $c/0x"$hex" $c/"$guid"
run_ok "fabric directory removed" rmdir $c
run_ok "rmmod after configfs is empty" rmmod ib_srpt
