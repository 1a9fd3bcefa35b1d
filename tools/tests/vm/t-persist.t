#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# targetcli saveconfig, clearconfig, restoreconfig: the srpt target, LUN,
# ACL and TPG attributes come back, and the initiator logs in again.
# rtslib-fb saves no fabric-level attribute for srpt, so the RDMA/CM port
# (discovery_auth/rdma_cm_port) is not in the saved file: it is written
# again by hand, as an administrator's boot script would.
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
		q /srpt/$w/luns create /backstores/ramdisk/rd0 &&
		q /srpt/$w/acls create ib.${ini#0x} &&
		q /srpt/$w set attribute srp_sq_size=1024 srp_max_rsp_size=128 use_srq=$srq &&
		echo "$SRPT_CM_PORT" >$CFS/srpt/discovery_auth/rdma_cm_port
}
run_ok "configured with targetcli: ramdisk LUN, ACL, srp_sq_size 1024, srp_max_rsp_size 128, use_srq $srq" setup
state() {
	echo "acls: $(ls $SRPT_TPG/acls)"
	echo "luns: $(ls $SRPT_TPG/lun) -> $(ls $SRPT_TPG/lun/lun_0 | grep -v -e alua -e statistics)"
	echo "mapped: $(ls -d $SRPT_TPG/acls/*/lun_* 2>/dev/null | sed 's,.*/,,')"
	echo "enable: $(cat $SRPT_TPG/enable)"
	for a in srp_max_rdma_size srp_max_rsp_size srp_sq_size use_srq; do echo "$a: $(cat $at/$a)"; done
}
state >/tmp/before
sed 's/^/# /' /tmp/before
run_ok "saveconfig" q saveconfig /tmp/saved.json
run_ok "clearconfig" q clearconfig confirm=True
if [ -e $SRPT_TPG ]; then not_ok "target gone after clearconfig"; else ok "target gone after clearconfig"; fi
run_ok "restoreconfig" q restoreconfig /tmp/saved.json
state >/tmp/after
if cmp -s /tmp/before /tmp/after; then ok "target, LUN, ACL, mapped LUN, TPG attributes restored"; else
	not_ok "target, LUN, ACL, mapped LUN, TPG attributes restored"; diff /tmp/before /tmp/after | sed 's/^/# /'; fi
run_ok "RDMA/CM port written again" sh -c "echo $SRPT_CM_PORT >$CFS/srpt/discovery_auth/rdma_cm_port"
if srp_login && disk=$(srp_disk 30); then ok "login after restoreconfig ($disk)"; else
	not_ok "login after restoreconfig"; kmsg_text | tail -n 5 | sed 's/^/# /'; fi
l=$(kmsg_text | grep "ib_srpt: .*logged in from" | tail -n 1)
if [ "${SRPT_UNDER_TEST:-ours}" != intree ]; then
	case $l in
	*"/128 bytes"*"send queue 1024, shared receive queue"*) ok "the login used the restored attributes" ;;
	*) not_ok "the login used the restored attributes"; diag "$l" ;;
	esac
fi
run_ok "fio verify" fio_direct "$disk" 64k 8m
run_ok "logout" srp_logout_wait
run_ok "clearconfig" q clearconfig confirm=True
echo 0 >$CFS/srpt/discovery_auth/rdma_cm_port 2>/dev/null
[ -d $CFS/srpt ] && rmdir $CFS/srpt
run_ok "rmmod" rmmod ib_srpt
