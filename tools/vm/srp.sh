# SPDX-License-Identifier: GPL-2.0
# Sourced by guest tests after lib.sh: an SRP target on rxe0 with raw
# configfs writes (quick under TCG, and the same ABI targetcli uses), and the
# kernel initiator ib_srp logging in to it over RDMA/CM.
SRPT_CM_PORT=${SRPT_CM_PORT:-5555}
CFS=/sys/kernel/config/target

# srpt_guid16: srpt_service_guid as 16 hex digits without 0x.
srpt_guid16() {
	printf '%016x' "$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)"
}

# srp_export_setup [PAGES]: ramdisk rd0 (PAGES 4 KiB pages, default 16384)
# as LUN 0 of TPG 1 of the target port 0x$RXE_GID_HEX, TPG enabled, RDMA/CM
# listener on $SRPT_CM_PORT.  Exports SRPT_TPG (its configfs directory).
srp_export_setup() {
	mkdir -p $CFS/core/rd_mcp_0/rd0 || return 1
	echo "rd_pages=${1:-16384}" >$CFS/core/rd_mcp_0/rd0/control || return 1
	echo 1 >$CFS/core/rd_mcp_0/rd0/enable || return 1
	SRPT_TPG=$CFS/srpt/0x$RXE_GID_HEX/tpgt_1
	export SRPT_TPG
	mkdir -p $SRPT_TPG/lun/lun_0 || return 1
	ln -s $CFS/core/rd_mcp_0/rd0 $SRPT_TPG/lun/lun_0/rd0 || return 1
	echo 1 >$SRPT_TPG/enable || return 1
	echo "$SRPT_CM_PORT" >$CFS/srpt/discovery_auth/rdma_cm_port
}

# srp_export_teardown: undo srp_export_setup (and any ACLs), fabric dir too.
srp_export_teardown() {
	for a in "$SRPT_TPG"/acls/*; do
		[ -d "$a" ] || continue
		for l in "$a"/lun_*; do
			[ -d "$l" ] || continue
			rm -f "$l"/* 2>/dev/null; rmdir "$l"
		done
		rmdir "$a"
	done
	echo 0 >$SRPT_TPG/enable
	rm -f $SRPT_TPG/lun/lun_0/rd0
	rmdir $SRPT_TPG/lun/lun_0 $SRPT_TPG $CFS/srpt/0x$RXE_GID_HEX
	echo 0 >$CFS/srpt/discovery_auth/rdma_cm_port
	rmdir $CFS/srpt
	rmdir $CFS/core/rd_mcp_0/rd0 $CFS/core/rd_mcp_0
}

# srp_acl NAME: a node ACL with LUN 0 mapped.
srp_acl() {
	mkdir -p "$SRPT_TPG/acls/$1/lun_0" || return 1
	ln -s "$SRPT_TPG/lun/lun_0" "$SRPT_TPG/acls/$1/lun_0/lun_0"
}

# srp_initiator_load [ARGS]: ib_srp with ARGS, and sd_mod.
srp_initiator_load() {
	modprobe ib_srp "$@" && modprobe sd_mod
}

# srp_login [EXTRA]: ask ib_srp to log in to the target through RDMA/CM.
srp_login() {
	g=$(srpt_guid16)
	echo "id_ext=$g,ioc_guid=$g,dest=192.168.123.1:$SRPT_CM_PORT${1:+,$1}" \
		>/sys/class/infiniband_srp/srp-rxe0-1/add_target
}

# srp_disk [TIMEOUT]: print /dev/sdX of the first ib_srp disk, waiting up
# to TIMEOUT seconds (default 30).
srp_disk() {
	_sd_i=0
	while [ $_sd_i -lt $((${1:-30} * 10)) ]; do
		for h in /sys/class/scsi_host/host*; do
			[ "$(cat $h/proc_name 2>/dev/null)" = ib_srp ] || continue
			for b in /sys/class/scsi_host/$(basename $h)/device/target*/*/block/*; do
				[ -e "$b" ] && [ -b /dev/$(basename $b) ] &&
					{ echo /dev/$(basename $b); return 0; }
			done
		done
		_sd_i=$((_sd_i + 1))
		sleep 0.1
	done
	return 1
}

# srp_logout_all: delete every ib_srp remote port and wait until their
# SCSI hosts are gone.
srp_logout_all() {
	for p in /sys/class/srp_remote_ports/*; do
		[ -e "$p/delete" ] && echo 1 >"$p/delete"
	done
	_sl_i=0
	while ls /sys/class/srp_remote_ports/ 2>/dev/null | grep -q .; do
		_sl_i=$((_sl_i + 1))
		[ $_sl_i -le 300 ] || return 1
		sleep 0.1
	done
}

# srpt_channels_gone [TIMEOUT]: wait until dmesg shows as many channels
# released as logged in (ours only; the in-tree driver logs differently).
srpt_channels_gone() {
	_cg_i=0
	while :; do
		_in=$(dmesg | grep -c "ib_srpt: .*: logged in from")
		_out=$(dmesg | grep -c "ib_srpt: .*: released$")
		[ "$_in" = "$_out" ] && return 0
		_cg_i=$((_cg_i + 1))
		[ $_cg_i -le $((${1:-30} * 10)) ] || return 1
		sleep 0.1
	done
}
