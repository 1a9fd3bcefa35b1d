#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Port and device events on soft-RoCE: the link going down under I/O ends
# the port's channels (ours) and the initiator's I/O fails; the data
# is intact after a new login; a GID change (new MAC) renames the port
# and unbinds its target port, the old MAC binds it again.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
ours() { [ "${SRPT_UNDER_TEST:-ours}" != intree ]; }

srp_test_begin
if srp_login && disk=$(srp_disk 30); then ok "login ($disk)"; else not_ok "login"; exit 1; fi
dd if=/dev/urandom of=/tmp/pat bs=1M count=2 2>/dev/null
run_ok "2 MiB written" dd if=/tmp/pat of="$disk" bs=1M oflag=direct conv=notrunc
# ipv4_gid: until rxe0 port 1 has the RoCE GID of 192.168.123.1 again (the
# RDMA/CM resolves logins through it; it is re-added after link and address
# changes, a moment after the port is active).
ipv4_gid() {
	_ig_i=0
	until cat /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null |
		grep -q "^0000:0000:0000:0000:0000:ffff:c0a8:7b01$"; do
		_ig_i=$((_ig_i + 1))
		[ $_ig_i -le 300 ] || return 1
		sleep 0.1
	done
}
diag "GIDs: $(cat /sys/class/infiniband/rxe0/ports/1/gids/* | grep -v '^0000:0000:0000:0000:0000:0000:0000:0000$' | tr '\n' ' ')"
# wait_kmsg TEXT [TIMEOUT]: until the kernel log has TEXT.
wait_kmsg() {
	kmsg_wait_more "$1" 0 "${2:-30}"
}

# 1. Link down under I/O, then up again.  ib_srp's own reconnect across a
#    soft-RoCE link flap cannot succeed (rdma_rxe stops receiving, see
#    below): its reconnect_delay is off, the initiator port is removed
#    while the link is down and a new login follows once rxe0 works again.
for p in /sys/class/srp_remote_ports/*; do echo off >"$p/reconnect_delay"; done
fio --name=bg --filename="$disk" --offset=16m --size=16m --rw=randwrite \
	--bs=4k --direct=1 --ioengine=libaio --iodepth=16 --time_based \
	--runtime=300 --output=/dev/null &
bg=$!
sleep 2
run_ok "veth0 down under fio" ip link set veth0 down
if ours; then
	run_ok "the target logs the port down" wait_kmsg "ib_srpt: rxe0 port 1: no longer active (down), its channels are being closed"
	run_ok "and closes its channels" srpt_channels_are 0 30
fi
i=0
while kill -0 $bg 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 $bg 2>/dev/null; then
	kill -9 $bg; not_ok "writes fail within 60 s of the link going down"
else
	ok "writes fail within 60 s of the link going down"
fi
wait $bg
run_ok "initiator port removed" srp_logout_all
run_ok "veth0 up" ip link set veth0 up
# shellcheck disable=SC2016 # expanded by the inner sh
run_ok "rxe0 port 1 active again" sh -c 'i=0; until grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state; do i=$((i+1)); [ $i -le 100 ] || exit 1; sleep 0.1; done'
run_ok "its IPv4 RoCE GID is back" ipv4_gid
# rdma_rxe (Debian 6.1) stops receiving once a MAD was posted on its GSI QP
# while the netdev was down, as the CM's DREQs of the closed channels are:
# after the link is back it transmits (hw_counters sent_pkts grows) but
# receives nothing (rcvd_pkts stands still), so no connect request reaches
# any listener.  srp-probe alone, with no SRP channel ever open, shows the
# same after one connect attempt while the link is down; "rdma link del"
# and "add" recover.  A MAC change (below) sends no MAD while down and
# leaves rdma_rxe working.  The check below stays a TODO until rdma_rxe is
# fixed; the device is then re-added so the target's side can be tested.
modprobe -a rdma_ucm ib_uverbs
rxe_wedged=" # TODO rdma_rxe receives nothing after a MAD was sent while its link was down"
probe_login() {
	if "$SRPT_REPO/build/srp-probe/srp-probe" -q -t 10 -e "$(srpt_guid16)" \
		192.168.123.1 "$SRPT_CM_PORT" >/tmp/probe.out 2>&1; then
		ok "srp-probe logs in $1"
	else
		not_ok "srp-probe logs in $1$rxe_wedged"
		sed 's/^/# /' /tmp/probe.out
		rx=/sys/class/infiniband/rxe0/ports/1/hw_counters
		diag "rxe0 sent_pkts $(cat $rx/sent_pkts) rcvd_pkts $(cat $rx/rcvd_pkts)"
	fi
}
# rxe_readd: delete and re-add rxe0, and wait for ib_srp's port and the
# target port binding.
rxe_readd() {
	_rr_msg="target port 0x$RXE_GID_HEX: bound to rxe0 port 1"
	_rr_n=$(kmsg_count "$_rr_msg")
	rdma link delete rxe0 && rxe_setup && ipv4_gid || return 1
	_rr_i=0
	while [ ! -e /sys/class/infiniband_srp/srp-rxe0-1/add_target ] ||
		{ ours && [ "$(kmsg_count "$_rr_msg")" -le "$_rr_n" ]; }; do
		_rr_i=$((_rr_i + 1))
		[ $_rr_i -le 100 ] || return 1
		sleep 0.1
	done
}
after_flap_login() {
	if srp_login && disk=$(srp_disk 30); then ok "ib_srp logs in $1 ($disk)"; else
		not_ok "ib_srp logs in $1"; kmsg_text | tail -n 3 | sed 's/^/# /'; return 1; fi
	if dd if="$disk" of=/tmp/back bs=1M count=2 iflag=direct 2>/dev/null && cmp -s /tmp/pat /tmp/back; then
		ok "data written before intact"; else not_ok "data written before intact"; fi
	# Past the 2 MiB pattern, which the second login checks again.
	run_ok "fio verify" fio_direct "$disk" 4k 4m --offset=4m
}
probe_login "after the link came back"
run_ok "rdma link del/add rxe0 (recovers rdma_rxe)" rxe_readd
probe_login "after rxe0 was re-added"
after_flap_login "after the link came back"

# 2. A new MAC changes GID 0: the target port is unbound; the old MAC binds
#    it again.
run_ok "logout" srp_logout_wait
mac=$(cat /sys/class/net/veth0/address)
run_ok "veth0 gets a new MAC" ip link set veth0 address 02:00:00:00:00:42
# shellcheck disable=SC2016 # expanded by the inner sh
run_ok "GID 0 follows" sh -c 'i=0; until grep -q "0000:00ff:fe00:0042" /sys/class/infiniband/rxe0/ports/1/gids/0; do i=$((i+1)); [ $i -le 100 ] || exit 1; sleep 0.1; done'
if ours; then
	run_ok "the target port names change" wait_kmsg "ib_srpt: rxe0 port 1: target port names 0000:00ff:fe00:0042 and 0xfe800000000000000000" 10
	run_ok "the configured target port is unbound" wait_kmsg "target port 0x$RXE_GID_HEX: no RDMA port carries it any more" 10
fi
run_ok "old MAC back" ip link set veth0 address "$mac"
run_ok "GID 0 back" sh -c "i=0; until [ \"\$(cat /sys/class/infiniband/rxe0/ports/1/gids/0)\" = '$RXE_GID' ]; do i=\$((i+1)); [ \$i -le 100 ] || exit 1; sleep 0.1; done"
run_ok "its IPv4 RoCE GID is back" ipv4_gid
if ours; then
	run_ok "the target port is bound again" wait_kmsg "target port 0x$RXE_GID_HEX: bound to rxe0 port 1" 10
fi
probe_login "after the GID came back"
after_flap_login "after the GID came back"
run_ok "logout" srp_logout_wait
run_ok "target teardown" srp_export_teardown
run_ok "rmmod" rmmod ib_srpt
