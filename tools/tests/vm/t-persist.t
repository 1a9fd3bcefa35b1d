#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# targetcli saveconfig, clearconfig, restoreconfig: the srpt target, LUN,
# ACL and TPG attributes come back, and the initiator logs in again.
# rtslib-fb saves no fabric-level attribute for srpt, so the RDMA/CM port
# (discovery_auth/rdma_cm_port) is not in the saved file.  While the module
# stays loaded the listener stays; across a reboot (clearconfig, rmmod,
# restoreconfig, which loads the module) the rdma_cm_port module parameter
# in /etc/modprobe.d brings it back.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"

rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
srpt_load || { not_ok "target module loaded"; exit 1; }
srp_initiator_load
ini=$(srp_ini_id)
w=ib.$RXE_GID_HEX
SRPT_TPG=$CFS/srpt/0x$RXE_GID_HEX/tpgt_1
at=$SRPT_TPG/attrib
# The in-tree driver warns when an SRQ channel is released (see README).
srq=1
[ "${SRPT_UNDER_TEST:-ours}" = intree ] && srq=0
q() { tcli "$@" >/tmp/tcli.out 2>&1 || { cat /tmp/tcli.out; return 1; }; }
setup() {
	q /backstores/ramdisk create name=rd0 size=32M &&
		q /srpt create "$w" &&
		q /srpt/"$w"/luns create /backstores/ramdisk/rd0 &&
		q /srpt/"$w"/acls create ib."${ini#0x}" &&
		q /srpt/"$w" set attribute srp_sq_size=1024 srp_max_rsp_size=128 use_srq=$srq &&
		echo "$SRPT_CM_PORT" >"$CFS"/srpt/discovery_auth/rdma_cm_port
}
run_ok "configured with targetcli: ramdisk LUN, ACL, srp_sq_size 1024, srp_max_rsp_size 128, use_srq $srq" setup
state() {
	echo "acls: $(ls "$SRPT_TPG"/acls)"
	# shellcheck disable=SC2010 # configfs names are plain
	echo "luns: $(ls "$SRPT_TPG"/lun) -> $(ls "$SRPT_TPG"/lun/lun_0 | grep -v -e alua -e statistics)"
	# shellcheck disable=SC2012 # configfs names are plain
	echo "mapped: $(ls -d "$SRPT_TPG"/acls/*/lun_* 2>/dev/null | sed 's,.*/,,')"
	echo "enable: $(cat "$SRPT_TPG"/enable)"
	for a in srp_max_rdma_size srp_max_rsp_size srp_sq_size use_srq; do echo "$a: $(cat "$at"/$a)"; done
}
state >/tmp/before
sed 's/^/# /' /tmp/before
run_ok "saveconfig" q saveconfig /tmp/saved.json
run_ok "clearconfig" q clearconfig confirm=True
if [ -e "$SRPT_TPG" ]; then not_ok "target gone after clearconfig"; else ok "target gone after clearconfig"; fi
run_ok "restoreconfig" q restoreconfig /tmp/saved.json
state >/tmp/after
if cmp -s /tmp/before /tmp/after; then ok "target, LUN, ACL, mapped LUN, TPG attributes restored"; else
	not_ok "target, LUN, ACL, mapped LUN, TPG attributes restored"; diff /tmp/before /tmp/after | sed 's/^/# /'; fi
port=$(cat "$CFS"/srpt/discovery_auth/rdma_cm_port)
if [ "$port" = "$SRPT_CM_PORT" ]; then ok "RDMA/CM port kept ($port)"; else
	not_ok "RDMA/CM port kept"; diag "rdma_cm_port is '$port'"; fi
# login_and_io WHAT: log in, check the login used the restored attributes,
# fio verify, log out.
login_and_io() {
	if srp_login && disk=$(srp_disk 30); then ok "login after $1 ($disk)"; else
		not_ok "login after $1"; kmsg_text | tail -n 5 | sed 's/^/# /'; return; fi
	# Synced: a lagging log file would give the previous login's line.
	kmsg_sync
	l=$(kmsg_text | grep "ib_srpt: .*logged in from" | tail -n 1)
	if [ "${SRPT_UNDER_TEST:-ours}" != intree ]; then
		case $l in
		*"/128 bytes"*"send queue 1024, shared receive queue"*) ok "the login used the restored attributes" ;;
		*) not_ok "the login used the restored attributes"; diag "$l" ;;
		esac
	fi
	run_ok "fio verify" fio_direct "$disk" 64k 8m
	run_ok "logout" srp_logout_wait
}
login_and_io restoreconfig

# unload: what a shutdown leaves (target service's clearconfig, rmmod).
unload() {
	q clearconfig confirm=True || return 1
	echo 0 >"$CFS"/srpt/discovery_auth/rdma_cm_port 2>/dev/null
	if [ -d "$CFS"/srpt ]; then rmdir "$CFS"/srpt || return 1; fi
	rmmod ib_srpt
}
run_ok "clearconfig and rmmod (a reboot)" unload
if [ "${SRPT_UNDER_TEST:-ours}" = intree ]; then
	ok "# SKIP the in-tree driver has no rdma_cm_port parameter"
else
	# rtslib-fb loads the module with modprobe; make modprobe load ours.
	cat >/etc/modprobe.d/ib_srpt.conf <<-EOF
	install ib_srpt /sbin/insmod ${SRPT_KO:-$SRPT_REPO/ib_srpt.ko} \$CMDLINE_OPTS
	options ib_srpt rdma_cm_port=$SRPT_CM_PORT
	EOF
	run_ok "restoreconfig loads the module" q restoreconfig /tmp/saved.json
	p=$(cat /sys/module/ib_srpt/parameters/rdma_cm_port 2>&1)
	c=$(cat "$CFS"/srpt/discovery_auth/rdma_cm_port 2>&1)
	if [ "$p" = "$SRPT_CM_PORT" ] && [ "$c" = "$SRPT_CM_PORT" ]; then
		ok "rdma_cm_port=$SRPT_CM_PORT from /etc/modprobe.d listens"
	else
		not_ok "rdma_cm_port=$SRPT_CM_PORT from /etc/modprobe.d listens"
		diag "parameter '$p', configfs '$c'"
	fi
	state >/tmp/after2
	if cmp -s /tmp/before /tmp/after2; then ok "configuration restored after the reboot"; else
		not_ok "configuration restored after the reboot"; diff /tmp/before /tmp/after2 | sed 's/^/# /'; fi
	login_and_io "the reboot"
	echo 1234 >"$CFS"/srpt/discovery_auth/rdma_cm_port
	p=$(cat /sys/module/ib_srpt/parameters/rdma_cm_port)
	if [ "$p" = 1234 ]; then ok "the parameter shows the port written to configfs"; else
		not_ok "the parameter shows the port written to configfs"; diag "'$p'"; fi
	rm -f /etc/modprobe.d/ib_srpt.conf
	run_ok "clearconfig and rmmod" unload
fi
