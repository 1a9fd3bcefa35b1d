#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# "make demo" in the VM: a RAM disk exported with targetcli over soft-RoCE,
# the kernel's ib_srp logs in through RDMA/CM, the new disk, a short fio.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
step() { echo "---- $*"; }
rxe_setup || { not_ok "soft-RoCE on veth0"; exit 1; }
ok "soft-RoCE rxe0 on veth0 (192.168.123.1), GID $RXE_GID"
srpt_load || { not_ok "ib_srpt loaded"; exit 1; }
ok "ib_srpt loaded ($(modinfo -F version "$SRPT_REPO/ib_srpt.ko" 2>/dev/null || echo in-tree))"
# ib_srp's initiator port id on rxe0: 8 zero bytes, then the port GUID.
ini=0000000000000000$(echo "$RXE_GID_HEX" | cut -c17-32)
step "targetcli: RAM disk, target ib.$RXE_GID_HEX, LUN, ACL ib.$ini"
tcli /backstores/ramdisk create name=demo size=256M >/dev/null &&
	srpt_target_create >/dev/null &&
	tcli "/srpt/$SRPT_WWN/luns" create /backstores/ramdisk/demo >/dev/null &&
	tcli "/srpt/$SRPT_WWN/acls" create "ib.$ini" >/dev/null &&
	echo "$SRPT_CM_PORT" >"$CFS"/srpt/discovery_auth/rdma_cm_port
# shellcheck disable=SC2181 # the status of the chain above
if [ $? = 0 ]; then ok "target configured with targetcli"; else not_ok "target configured with targetcli"; exit 1; fi
tcli ls /srpt 2>&1 | sed 's/^/  /'
tcli ls /backstores 2>&1 | sed 's/^/  /'
step "ib_srp logs in over RDMA/CM to 192.168.123.1:$SRPT_CM_PORT"
srp_initiator_load
if srp_login; then ok "ib_srp logged in"; else not_ok "ib_srp logged in"; dmesg | tail -n 5 | sed 's/^/  /'; exit 1; fi
disk=$(srp_disk 30) || { not_ok "SRP disk appeared"; exit 1; }
ok "SRP disk $disk"
lsblk -o NAME,SIZE,TYPE,TRAN,VENDOR,MODEL "$disk" 2>&1 | sed 's/^/  /'
dmesg | grep "ib_srpt: .*logged in" | tail -n 1 | sed 's/^.*ib_srpt: /  target: /'
step "fio: 4 KiB random read/write, 16 in flight, crc32c verify, 64 MiB"
fio --name=demo --filename="$disk" --rw=randrw --bs=4k --iodepth=16 \
	--ioengine=libaio --direct=1 --size=64m --verify=crc32c --do_verify=1 \
	--group_reporting >/tmp/fio.out 2>&1
rc=$?
grep -E "read:|write:|lat \(usec\): min|err=" /tmp/fio.out | sed 's/^/  /'
if [ $rc = 0 ]; then ok "fio with verify passed"; else not_ok "fio with verify passed"; fi
step "logout and cleanup"
srp_logout_all
tcli clearconfig confirm=True >/dev/null
echo 0 >"$CFS"/srpt/discovery_auth/rdma_cm_port
rmdir "$CFS"/srpt
run_ok "clean unload" rmmod ib_srpt
