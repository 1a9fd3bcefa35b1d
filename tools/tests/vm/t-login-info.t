#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The TPG attribute login_info on soft-RoCE: the IB CM login string (as
# "ibsrpdm -c" prints it: GID 0, P_Key ffff, srpt_service_guid) and one
# RDMA/CM string per address of veth0, IPv4 and IPv6 (a ULA; the
# link-local address is left out), with the listener's port.  ib_srp logs
# in with each RDMA/CM line as read, written verbatim to add_target; the
# test initiator srp_ibcm_ini logs in with the fields of the IB CM line.
# A line with the wrong port is refused (the login checks can fail).
# With rdma_cm_port 0 only the IB CM line is left; after "rdma link
# delete" (target port unbound) the file is empty, after the re-add it is
# whole again.  Against the in-tree driver: there is no login_info.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
A6=fd00:123::1
rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
srpt_load || { not_ok "target module loaded"; exit 1; }
if srp_export_setup; then ok "ramdisk exported on rxe0, RDMA/CM port $SRPT_CM_PORT"; else not_ok "ramdisk exported"; fi
info=$SRPT_TPG/login_info

if ! ours; then
	run_fails "in-tree: no login_info in the TPG" test -e "$info"
	srp_export_teardown
	run_ok "rmmod" rmmod ib_srpt
	exit 0
fi

# has_gid PATTERN: whether a GID of rxe0 port 1 matches PATTERN.
has_gid() { grep -q "$1" /sys/class/infiniband/rxe0/ports/1/gids/*; }
# addrs_ready: the ULA and the IPv4 address are GIDs of rxe0 (RDMA/CM
# logins to them need that).
addrs_ready() { has_gid '^fd00:0123:.*:0001$' && has_gid 'ffff:c0a8:7b01$'; }
run_ok "IPv6 address $A6 on veth0" ip -6 addr add "$A6/64" dev veth0 nodad
run_ok "$A6 and $SRPT_IP are GIDs of rxe0" wait_until 30 addrs_ready
srp_initiator_load
ini=$(srp_ini_id)
run_ok "node ACL $ini" srp_acl "$ini"
g=$(srpt_guid16)

# What login_info must hold, from the port's sysfs GID, the module's
# srpt_service_guid and the addresses given to veth0.
ib_line="id_ext=$g,ioc_guid=$g,dgid=$RXE_GID_HEX,pkey=ffff,service_id=$g"
want="$ib_line
id_ext=$g,ioc_guid=$g,dest=$SRPT_IP:$SRPT_CM_PORT
id_ext=$g,ioc_guid=$g,dest=[$A6]:$SRPT_CM_PORT"
cat "$info" >/tmp/login_info
sed 's/^/# login_info: /' /tmp/login_info
is "$(cat /tmp/login_info)" "$want" \
	"login_info: the IB CM string, then $SRPT_IP and [$A6] with port $SRPT_CM_PORT; no link-local address"

# rdma_cm_login LINE: ib_srp logs in with LINE written verbatim
# (srp_add_target), the disk answers a read, logout.
rdma_cm_login() {
	if srp_add_target "$1" &&
		disk=$(srp_disk 30) &&
		dd if="$disk" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; then
		ok "ib_srp logs in with '$1' verbatim ($disk reads)"
	else
		not_ok "ib_srp logs in with '$1' verbatim"
		kmsg_text | tail -n 4 | sed 's/^/# /'
	fi
	run_ok "logout" srp_logout_all
}
n=0
grep 'dest=' /tmp/login_info >/tmp/login_info.rdma_cm
while IFS= read -r line; do
	rdma_cm_login "$line"
	n=$((n + 1))
done </tmp/login_info.rdma_cm
is "$n" 2 "two RDMA/CM strings tried"

# The check above can fail: a line with another port is refused (and not
# as "Already connected", which srp_add_target retries).
bad=$(sed -n 2p /tmp/login_info | sed "s/:$SRPT_CM_PORT\$/:$((SRPT_CM_PORT + 1))/")
run_fails "ib_srp refuses '$bad' (no listener on that port)" srp_add_target "$bad"

srp_ibcm_login_string "IB CM line" "$(sed -n 1p /tmp/login_info)"
run_ok "channels released" srpt_channels_gone 30

# RDMA/CM disabled: only the IB CM line.
echo 0 >"$CFS/srpt/discovery_auth/rdma_cm_port"
is "$(cat "$info")" "$ib_line" "rdma_cm_port 0: only the IB CM line"
echo "$SRPT_CM_PORT" >"$CFS/srpt/discovery_auth/rdma_cm_port"
is "$(cat "$info")" "$want" "rdma_cm_port $SRPT_CM_PORT again: every line back"

# Unbound: the RDMA device is gone, the target port stays configured.
kmsg_sync
bound_n=$(kmsg_count "target port 0x$RXE_GID_HEX: bound to rxe0 port 1")
run_ok "rdma link delete rxe0" rdma link delete rxe0
is "$(wc -c <"$info")" 0 "target port unbound: login_info is empty"
if rxe_setup && kmsg_wait_more "target port 0x$RXE_GID_HEX: bound to rxe0 port 1" "$bound_n" 30 &&
	wait_until 30 addrs_ready; then
	ok "rxe0 added again, target port bound again"
else
	not_ok "rxe0 added again, target port bound again"
fi
is "$(cat "$info")" "$want" "bound again: login_info whole again"

srp_export_teardown
run_ok "rmmod after teardown" rmmod ib_srpt
