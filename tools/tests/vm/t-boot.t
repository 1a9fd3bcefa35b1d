#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A target that survives a reboot when the RDMA device comes late: the saved
# configuration is restored (targetcli restoreconfig, which loads the
# module, as rtslib-fb's target service does at boot) while rxe0 does not
# exist; the target port waits (info/status says so) and admits no
# login; once rxe0 is added ib_srp logs in without targetcli being run
# again; deleting rxe0 unbinds the target port, adding it again binds it
# and the login works again.  Ours only: the in-tree driver refuses a
# target port name that no RDMA port carries (see "Differences from the
# in-tree driver", tport-absent).
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"

if ! ours; then
	ok "# SKIP the in-tree driver refuses a target port whose RDMA port is absent"
	exit 0
fi
rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
srpt_load || { not_ok "target module loaded"; exit 1; }
srp_initiator_load
ini=$(srp_ini_id)
w=ib.$RXE_GID_HEX
tp=$CFS/srpt/0x$RXE_GID_HEX
status=$tp/info/status
q() { tcli "$@" >/tmp/tcli.out 2>&1 || { sed 's/^/# /' /tmp/tcli.out; return 1; }; }
setup() {
	q /backstores/ramdisk create name=rd0 size=32M &&
		q /srpt create "$w" &&
		q /srpt/"$w"/luns create /backstores/ramdisk/rd0 &&
		q /srpt/"$w"/acls create ib."${ini#0x}"
}
run_ok "configured with targetcli: ramdisk LUN, ACL" setup
is "$(cat "$status" 2>&1)" "bound to rxe0 port 1" "status of a bound target port"
run_ok "saveconfig" q saveconfig /tmp/boot.json

# A reboot: the target service's clearconfig and the module unloaded; at
# boot the RDMA device comes after the restore.
unload() {
	q clearconfig confirm=True || return 1
	if [ -d "$CFS"/srpt ]; then rmdir "$CFS"/srpt || return 1; fi
	rmmod ib_srpt
}
run_ok "clearconfig and rmmod (a reboot)" unload
rxe_gone() { [ ! -e /sys/class/infiniband/rxe0 ] && [ ! -e /sys/class/infiniband_srp/srp-rxe0-1 ]; }
run_ok "rdma link delete rxe0" sh -c 'rdma link delete rxe0'
run_ok "rxe0 and ib_srp's port on it are gone" wait_until 10 rxe_gone
# rtslib-fb loads the module with modprobe; make modprobe load ours.
cat >/etc/modprobe.d/ib_srpt.conf <<-EOF
install ib_srpt /sbin/insmod ${SRPT_KO:-$SRPT_REPO/ib_srpt.ko} \$CMDLINE_OPTS
options ib_srpt rdma_cm_port=$SRPT_CM_PORT
EOF
run_ok "restoreconfig with no RDMA device (loads the module)" q restoreconfig /tmp/boot.json
rm -f /etc/modprobe.d/ib_srpt.conf
run_ok "the loaded module is ours" srpt_loaded_is "${SRPT_KO:-$SRPT_REPO/ib_srpt.ko}"
restored() {
	[ -d "$tp/tpgt_1/acls/$ini" ] && [ -d "$tp/tpgt_1/lun/lun_0" ] &&
		[ -d "$tp/tpgt_1/acls/$ini/lun_0" ] && [ "$(cat "$tp/tpgt_1/enable")" = 1 ]
}
run_ok "target port, LUN, ACL and mapped LUN restored, TPG enabled" restored
is "$(cat "$status" 2>&1)" "waiting for an RDMA port with GID 0x$RXE_GID_HEX" \
	"status says the target port waits"
logged() { kmsg_sync && kmsg_text | grep -qF "$1"; }
run_ok "the log says it waits" logged \
	"target port 0x$RXE_GID_HEX: created; no RDMA port has that GID at GID index 0 yet, it waits for one that does"

# A malformed name is still refused.
if mkdir "$CFS/srpt/0x${RXE_GID_HEX}0" 2>/dev/null; then
	not_ok "a malformed target port name is refused"
	rmdir "$CFS/srpt/0x${RXE_GID_HEX}0"
else
	ok "a malformed target port name is refused"
fi

# login_and_io WHAT: ib_srp logs in, fio verify, logout.
login_and_io() {
	if srp_login && disk=$(srp_disk 30); then ok "ib_srp logs in $1 ($disk)"; else
		not_ok "ib_srp logs in $1"; kmsg_text | tail -n 5 | sed 's/^/# /'; return; fi
	run_ok "fio verify $1" fio_direct "$disk" 64k 8m
	run_ok "logout $1" srp_logout_wait
}
bound_msg="target port 0x$RXE_GID_HEX: bound to rxe0 port 1"
unbound_msg="target port 0x$RXE_GID_HEX: no RDMA port carries it any more"
# has_ipv4_gid: rxe0 has the RoCE GID of 192.168.123.1 (the login's dest).
has_ipv4_gid() {
	cat /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null |
		grep -q "^0000:0000:0000:0000:0000:ffff:c0a8:7b01$"
}
# rxe_add: rxe0 back, ib_srp's port on it, and the target port bound.
rxe_add() {
	kmsg_sync || return 1
	_ra_n=$(kmsg_count "$bound_msg")
	rxe_setup && srp_port_ready 10 && wait_until 30 has_ipv4_gid &&
		kmsg_wait_more "$bound_msg" "$_ra_n" 10
}
run_ok "rdma link add rxe0: the target port is bound" rxe_add
is "$(cat "$status" 2>&1)" "bound to rxe0 port 1" "status says it is bound"
login_and_io "without targetcli being run again"

# A target port that waits admits no login: with the bound one's TPG
# disabled, a waiting one (a GID no port has) with the same ACL and LUN
# refuses the initiator.
other=$CFS/srpt/0xfe800000000000001111222233334444
waiting_setup() {
	for _ws_rd in "$CFS"/core/rd_mcp_*/rd0; do break; done
	mkdir "$other" "$other/tpgt_1" &&
		SRPT_TPG=$other/tpgt_1 srp_lun_add 0 "$_ws_rd" &&
		SRPT_TPG=$other/tpgt_1 srp_acl "$ini" &&
		echo 1 >"$other/tpgt_1/enable" && echo 0 >"$tp/tpgt_1/enable"
}
run_ok "a second, waiting target port with the ACL; the bound one disabled" waiting_setup
is "$(cat "$other/info/status" 2>&1)" \
	"waiting for an RDMA port with GID 0xfe800000000000001111222233334444" \
	"status of the second target port"
kmsg_sync
rej_n=$(kmsg_count "rejected: no node ACL admits it")
if srp_login; then
	not_ok "the waiting target port admits no login"
	srp_logout_wait
else
	ok "the waiting target port admits no login"
fi
run_ok "the target logged the refusal" kmsg_wait_more "rejected: no node ACL admits it" "$rej_n" 10
run_ok "no channel left" srpt_channels_are 0 30
waiting_teardown() {
	echo 0 >"$other/tpgt_1/enable" &&
		SRPT_TPG=$other/tpgt_1 srp_acl_remove "$ini" &&
		srp_unlink_in "$other/tpgt_1/lun/lun_0" &&
		rmdir "$other/tpgt_1/lun/lun_0" "$other/tpgt_1" "$other" &&
		echo 1 >"$tp/tpgt_1/enable"
}
run_ok "the second target port removed, the first enabled again" waiting_teardown

# The device goes: unbound, waiting; it comes back: bound, logins work.
kmsg_sync
unbound_n=$(kmsg_count "$unbound_msg")
run_ok "rdma link delete rxe0 again" sh -c 'rdma link delete rxe0'
run_ok "the target port is unbound" kmsg_wait_more "$unbound_msg" "$unbound_n" 10
is "$(cat "$status" 2>&1)" "waiting for an RDMA port with GID 0x$RXE_GID_HEX" \
	"status says it waits again"
run_ok "rdma link add rxe0 again: bound again" rxe_add
is "$(cat "$status" 2>&1)" "bound to rxe0 port 1" "status says it is bound again"
login_and_io "after rxe0 came back"

run_ok "clearconfig and rmmod" unload
