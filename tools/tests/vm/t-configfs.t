#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Raw configfs ABI of the srpt fabric on a soft-RoCE port (runs in the VM).
. "$SRPT_REPO/tools/vm/lib.sh"
ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
modprobe rdma_rxe
rdma link add rxe0 type rxe netdev veth0
gid=$(cat /sys/class/infiniband/rxe0/ports/1/gids/0)
hex=$(echo "$gid" | tr -d :)
guid=$(echo "$gid" | cut -d: -f5-8)
diag "rxe0 GID 0: $gid"
srpt_load
c=/sys/kernel/config/target/srpt
mkdir -p $c
run_ok "GID form target port 0x$hex" mkdir $c/0x"$hex"
run_ok "GUID form target port $guid" mkdir $c/"$guid"
run_fails "malformed target port name refused" mkdir $c/nonsense
run_fails "0x123 refused" mkdir $c/0x123
run_fails "GID of no port refused" mkdir $c/0x00000000000000000000000000000001
run_ok "TPG created" mkdir $c/0x"$hex"/tpgt_1
run_ok "TPG enabled" sh -c "echo 1 > $c/0x$hex/tpgt_1/enable"
run_ok "ACL 0x + 32 hex digits" mkdir $c/0x"$hex"/tpgt_1/acls/0x00000000000000000000000000000042
run_ok "ACL 32 hex digits without 0x" mkdir $c/0x"$hex"/tpgt_1/acls/00000000000000000000000000000043
run_ok "ACL IPv4 address" mkdir $c/0x"$hex"/tpgt_1/acls/192.168.123.2
run_fails "malformed ACL name refused" mkdir $c/0x"$hex"/tpgt_1/acls/nonsense
run_fails "rmmod refused while configured" rmmod ib_srpt
rmdir $c/0x"$hex"/tpgt_1/acls/* 2>/dev/null
echo 0 > $c/0x"$hex"/tpgt_1/enable
rmdir $c/0x"$hex"/tpgt_1 $c/0x"$hex" $c/"$guid"
run_ok "fabric directory removed" rmdir $c
run_ok "rmmod after configfs is empty" rmmod ib_srpt
