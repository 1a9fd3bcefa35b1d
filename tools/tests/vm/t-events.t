#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Port and device events on soft-RoCE: the link going down under I/O ends
# the port's channels (ours) and the initiator's I/O fails; the data
# is intact after a new login; a GID change (new MAC) renames the port
# and unbinds its target port (a login through the port is refused), the
# old MAC binds it again.  Log lines are counted from a baseline taken just
# before the step, so a line an earlier step logged does not count.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"

srp_test_begin
if srp_login && disk=$(srp_disk 30); then ok "login ($disk)"; else not_ok "login"; exit 1; fi
dd if=/dev/urandom of=/tmp/pat bs=1M count=2 2>/dev/null
run_ok "2 MiB written" dd if=/tmp/pat of="$disk" bs=1M oflag=direct conv=notrunc,nocreat
# ipv4_gid: until rxe0 port 1 has the RoCE GID of 192.168.123.1 again (the
# RDMA/CM resolves logins through it; it is re-added after link and address
# changes, a moment after the port is active).
has_ipv4_gid() {
	cat /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null |
		grep -q "^0000:0000:0000:0000:0000:ffff:c0a8:7b01$"
}
ipv4_gid() { wait_until 30 has_ipv4_gid; }
# gid0_is GID: GID index 0 of rxe0 port 1 is GID.
gid0_is() { [ "$(cat /sys/class/infiniband/rxe0/ports/1/gids/0)" = "$1" ]; }
diag "GIDs: $(cat /sys/class/infiniband/rxe0/ports/1/gids/* | grep -v '^0000:0000:0000:0000:0000:0000:0000:0000$' | tr '\n' ' ')"
# kmsg_mark TEXT: how many kernel log lines have TEXT up to now: the
# baseline of a later "kmsg_wait_more TEXT $n".
kmsg_mark() { kmsg_sync >&2 && kmsg_count "$1"; }

# 1. Link down under I/O, then up again.  ib_srp's own reconnect across a
#    soft-RoCE link flap cannot succeed (rdma_rxe stops receiving, see
#    below): its reconnect_delay is off, the initiator port is removed
#    while the link is down and a new login follows once rxe0 works again.
for p in /sys/class/srp_remote_ports/*; do echo off >"$p/reconnect_delay"; done
bg_fio "$disk" --offset=16m --time_based --runtime=600
run_ok "fio has writes in flight" wait_until 30 disk_busy "$disk"
# The target's channels are visible now, so that "closes its channels"
# below cannot pass for channels it cannot see (issue 26 item 13).
ours && run_ok "the target shows the session's channels" srpt_channels_some 30
down_msg="ib_srpt: rxe0 port 1: no longer active (down), its channels are being closed"
down_n=$(kmsg_mark "$down_msg")
run_ok "veth0 down under fio" ip link set veth0 down
if ours; then
	run_ok "the target logs the port down" kmsg_wait_more "$down_msg" "$down_n" 30
	run_ok "and closes its channels" srpt_channels_are 0 30
fi
# The initiator learns nothing from the wire (the target's DREQs are sent
# while the link is down): its writes fail once the SCSI timeout (30 s, or
# ib_srp's rq_tmo when longer), the aborts and resets and a reconnect
# attempt (CM retries) have run out, which took from under 30 s to over
# 60 s here; 240 s bounds that path, well inside fio's 600 s.
bg_fails "writes fail within 240 s of the link going down" 240
run_ok "initiator port removed" srp_logout_all
run_ok "veth0 up" ip link set veth0 up
# shellcheck disable=SC2016 # expanded by the inner sh
run_ok "rxe0 port 1 active again" wait_until 10 grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state
run_ok "its IPv4 RoCE GID is back" ipv4_gid
# rdma_rxe (Debian 6.1) stops receiving once a MAD was posted on its GSI QP
# while the netdev was down, as the CM's DREQs of the closed channels are:
# after the link is back it transmits (hw_counters sent_pkts grows) but
# receives nothing (rcvd_pkts stands still), so no connect request reaches
# any listener.  srp-probe alone, with no SRP channel ever open, shows the
# same after one connect attempt while the link is down; "rdma link del"
# and "add" recover.  A MAC change (below) sends no MAD while down and
# leaves rdma_rxe working.  The first check below stays a TODO until
# rdma_rxe is fixed; the device is then re-added so the target's side can be
# tested.
modprobe -a rdma_ucm ib_uverbs
rxe_wedged=" # TODO rdma_rxe receives nothing after a MAD was sent while its link was down"
# probe_login WHEN [STATUS [TODO]]: srp-probe logs in and exits with
# STATUS (default 0; 3: the target rejected the login).  TODO marks the one
# known failure, and only when its signature is seen: rxe0 received no
# packet during the attempt, so no request reached the target (whether
# the wedged device still counts the packets it sends varies: it did here,
# 3 during the attempt, and a CI run failed with the TODO withheld).
probe_login() {
	rx=/sys/class/infiniband/rxe0/ports/1/hw_counters
	_pl_s0=$(cat $rx/sent_pkts) _pl_r0=$(cat $rx/rcvd_pkts)
	"$SRPT_REPO/build/srp-probe/srp-probe" -q -t 10 -e "$(srpt_guid16)" \
		"$SRPT_IP" "$SRPT_CM_PORT" >/tmp/probe.out 2>&1
	_pl_st=$?
	_pl_s1=$(cat $rx/sent_pkts) _pl_r1=$(cat $rx/rcvd_pkts)
	if [ "${2:-0}" = 0 ]; then _pl_name="srp-probe logs in $1"; else
		_pl_name="srp-probe's login is rejected $1"; fi
	if [ "$_pl_st" = "${2:-0}" ]; then
		ok "$_pl_name"
		return
	fi
	_pl_todo=
	[ "$_pl_r1" = "$_pl_r0" ] && _pl_todo=${3:-}
	# The counts go into the name: a CI summary shows only names.
	not_ok "$_pl_name (status $_pl_st, rxe0 sent $((_pl_s1 - _pl_s0)) and received $((_pl_r1 - _pl_r0)) packets)$_pl_todo"
	sed 's/^/# /' /tmp/probe.out
}
# rxe_readd: delete and re-add rxe0, and wait for ib_srp's port and the
# target port binding.
rxe_readd() {
	_rr_msg="target port 0x$RXE_GID_HEX: bound to rxe0 port 1"
	_rr_n=$(kmsg_count "$_rr_msg")
	rdma link delete rxe0 && rxe_setup && ipv4_gid || return 1
	srp_port_ready 10 && { ! ours || kmsg_wait_more "$_rr_msg" "$_rr_n" 10; }
}
after_flap_login() {
	if srp_login && disk=$(srp_disk 30); then ok "ib_srp logs in $1 ($disk)"; else
		not_ok "ib_srp logs in $1"; kmsg_text | tail -n 3 | sed 's/^/# /'; return 1; fi
	if dd if="$disk" of=/tmp/back bs=1M count=2 iflag=direct 2>/dev/null && cmp -s /tmp/pat /tmp/back; then
		ok "data written before intact"; else not_ok "data written before intact"; fi
	# Past the 2 MiB pattern, which the second login checks again.
	run_ok "fio verify" fio_direct "$disk" 4k 4m --offset=4m
}
probe_login "after the link came back" 0 "$rxe_wedged"
run_ok "rdma link del/add rxe0 (recovers rdma_rxe)" rxe_readd
probe_login "after rxe0 was re-added"
after_flap_login "after the link came back"

# 2. A new MAC changes GID 0: the target port is unbound; the old MAC binds
#    it again.
run_ok "logout" srp_logout_wait
mac=$(cat /sys/class/net/veth0/address)
names_msg="ib_srpt: rxe0 port 1: target port names 0000:00ff:fe00:0042 and 0xfe800000000000000000"
unbound_msg="target port 0x$RXE_GID_HEX: no RDMA port carries it any more"
bound_msg="target port 0x$RXE_GID_HEX: bound to rxe0 port 1"
names_n=$(kmsg_mark "$names_msg")
unbound_n=$(kmsg_count "$unbound_msg")
run_ok "veth0 gets a new MAC" ip link set veth0 address 02:00:00:00:00:42
# shellcheck disable=SC2016 # expanded by the inner sh
run_ok "GID 0 follows" wait_until 10 grep -q "0000:00ff:fe00:0042" /sys/class/infiniband/rxe0/ports/1/gids/0
if ours; then
	run_ok "the target port names change" kmsg_wait_more "$names_msg" "$names_n" 10
	run_ok "the configured target port is unbound" kmsg_wait_more "$unbound_msg" "$unbound_n" 10
fi
run_ok "its IPv4 RoCE GID is back after the MAC change" ipv4_gid
# No target port is configured for the new GID: the login is refused.
ours && probe_login "while the port has another GID" 3
bound_n=$(kmsg_mark "$bound_msg")
run_ok "old MAC back" ip link set veth0 address "$mac"
run_ok "GID 0 back" wait_until 10 gid0_is "$RXE_GID"
run_ok "its IPv4 RoCE GID is back" ipv4_gid
if ours; then
	run_ok "the target port is bound again" kmsg_wait_more "$bound_msg" "$bound_n" 10
fi
probe_login "after the GID came back"
after_flap_login "after the GID came back"
run_ok "logout" srp_logout_wait
run_ok "target teardown" srp_export_teardown
run_ok "rmmod" rmmod ib_srpt
