# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Sourced by guest tests after lib.sh: an SRP target on rxe0 with raw
# configfs writes (quick under TCG, and the same ABI targetcli uses), and the
# kernel initiator ib_srp logging in to it over RDMA/CM.
SRPT_CM_PORT=${SRPT_CM_PORT:-5555}
# The target's address: veth0 under rdma_rxe (rxe_setup).  Userspace
# initiators (srp-probe, srp-hostile) take "$SRPT_IP" "$SRPT_CM_PORT".
SRPT_IP=192.168.123.1
CFS=/sys/kernel/config/target

# kmsg_text: the kernel log since boot, every record (guest-init keeps it in
# $SRPT_KMSG; the ring buffer dmesg reads wraps under command tracing).
kmsg_text() {
	if [ -n "${SRPT_KMSG:-}" ] && [ -f "$SRPT_KMSG" ]; then
		cat "$SRPT_KMSG"
	else
		dmesg
	fi
}

# kmsg_sync: wait until the kernel log file has every record written so far
# (guest-init's logger copies /dev/kmsg into $SRPT_KMSG a little later):
# writes a marker to /dev/kmsg and waits for it in the file.  A no-op
# without $SRPT_KMSG (dmesg reads the ring buffer itself).
kmsg_sync() {
	[ -n "${SRPT_KMSG:-}" ] && [ -f "$SRPT_KMSG" ] || return 0
	_ks_m="srpt-test: kmsg sync $(cat /proc/sys/kernel/random/uuid)"
	echo "$_ks_m" >/dev/kmsg || return 1
	wait_until 30 grep -qF "$_ks_m" "$SRPT_KMSG" ||
		{ echo "kmsg_sync: the kernel log file lags more than 30 s" >&2; return 1; }
}

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
	mkdir -p "$SRPT_TPG"/lun/lun_0 || return 1
	ln -s $CFS/core/rd_mcp_0/rd0 "$SRPT_TPG"/lun/lun_0/rd0 || return 1
	echo 1 >"$SRPT_TPG"/enable || return 1
	echo "$SRPT_CM_PORT" >$CFS/srpt/discovery_auth/rdma_cm_port
}

# srp_export_teardown: undo srp_export_setup and everything added since
# (ACLs, LUNs, backstores), the fabric directory too.
srp_export_teardown() {
	for _a in "$SRPT_TPG"/acls/*; do
		[ -d "$_a" ] && srp_acl_remove "${_a##*/}"
	done
	echo 0 >"$SRPT_TPG"/enable
	for _l in "$SRPT_TPG"/lun/lun_*; do
		[ -d "$_l" ] || continue
		srp_unlink_in "$_l" && rmdir "$_l"
	done
	rmdir "$SRPT_TPG" $CFS/srpt/0x"$RXE_GID_HEX"
	echo 0 >$CFS/srpt/discovery_auth/rdma_cm_port
	rmdir $CFS/srpt
	for _h in "$CFS"/core/*_[0-9]*; do
		[ -d "$_h" ] || continue
		for _s in "$_h"/*; do
			[ -f "$_s/control" ] && rmdir "$_s"
		done
		rmdir "$_h"
	done
	rm -f /tmp/*.img
}

# srp_acl NAME: a node ACL with every LUN of the TPG mapped at its number.
srp_acl() {
	mkdir -p "$SRPT_TPG/acls/$1" || return 1
	for _al in "$SRPT_TPG"/lun/lun_*; do
		[ -d "$_al" ] || continue
		mkdir -p "$SRPT_TPG/acls/$1/${_al##*/}" &&
			ln -s "$_al" "$SRPT_TPG/acls/$1/${_al##*/}/${_al##*/}" || return 1
	done
}

# srp_unlink_in DIR: remove the symbolic links in a configfs directory (LUN
# and mapped LUN links; the attributes beside them stay).
srp_unlink_in() {
	for _ul in "$1"/*; do
		[ -L "$_ul" ] || continue
		rm "$_ul" || return 1
	done
}

# srp_acl_remove NAME: unmap its LUNs and remove the node ACL.
srp_acl_remove() {
	for _al in "$SRPT_TPG/acls/$1"/lun_*; do
		[ -d "$_al" ] || continue
		srp_unlink_in "$_al" && rmdir "$_al" || return 1
	done
	rmdir "$SRPT_TPG/acls/$1"
}

# srp_ini_id: the initiator port id ib_srp uses on rxe0 (8 zero bytes of
# initiator_ext, then the port GUID), as an ACL name.
srp_ini_id() {
	echo "0x0000000000000000$(echo "$RXE_GID_HEX" | cut -c17-32)"
}

# srp_fileio NAME MIB: a fileio backstore on /tmp/NAME.img; prints its path.
srp_fileio() {
	mkdir -p "$CFS/core/fileio_0/$1" &&
		echo "fd_dev_name=/tmp/$1.img,fd_dev_size=$(($2 * 1048576))" \
			>"$CFS/core/fileio_0/$1/control" &&
		echo 1 >"$CFS/core/fileio_0/$1/enable" &&
		echo "$CFS/core/fileio_0/$1"
}

# srp_nullb NAME: an iblock backstore on a memory-backed null_blk disk
# (/dev/nullb0, 1 GiB, pages allocated as written); prints its path.
srp_nullb() {
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 || return 1
	wait_until 5 test -b /dev/nullb0 || return 1
	mkdir -p "$CFS/core/iblock_0/$1" &&
		echo "udev_path=/dev/nullb0" >"$CFS/core/iblock_0/$1/control" &&
		echo 1 >"$CFS/core/iblock_0/$1/enable" &&
		echo "$CFS/core/iblock_0/$1"
}

# srp_lun_add N BACKSTORE: LUN N of the TPG on the backstore's configfs dir.
srp_lun_add() {
	mkdir -p "$SRPT_TPG/lun/lun_$1" && ln -s "$2" "$SRPT_TPG/lun/lun_$1/${2##*/}"
}

# SRP_HOSTILE_ID: the initiator port id the tests give srp-hostile
# ("hostile" in ASCII, then 1).
SRP_HOSTILE_ID=0x686f7374696c65000000000000000001

# srp_hostile_setup: for srp-hostile, a node ACL for SRP_HOSTILE_ID in the
# exported TPG whose LUN 0 is a ramdisk of its own (rd1, LUN 1 of the TPG),
# and the userspace verbs modules.
srp_hostile_setup() {
	mkdir -p "$CFS"/core/rd_mcp_0/rd1 &&
		echo rd_pages=4096 >"$CFS"/core/rd_mcp_0/rd1/control &&
		echo 1 >"$CFS"/core/rd_mcp_0/rd1/enable &&
		srp_lun_add 1 "$CFS"/core/rd_mcp_0/rd1 &&
		mkdir -p "$SRPT_TPG"/acls/$SRP_HOSTILE_ID/lun_0 &&
		ln -s "$SRPT_TPG"/lun/lun_1 "$SRPT_TPG"/acls/$SRP_HOSTILE_ID/lun_0/lun_1 &&
		modprobe -a rdma_ucm ib_uverbs
}

# srp_ibcm_login_string LABEL STRING: log in over IB CM with the fields of
# an ibsrpdm-style login string (id_ext, ioc_guid, dgid, pkey, service_id)
# through the test initiator srp_ibcm_ini ($SRPT_IBCM_KO, default the
# checkout's), with ib_srp's initiator port id (srp_ini_id, whose ACL the
# caller made), and check the login response; then log out.  Checks are
# named LABEL: ...; the dgid is reached through veth0.
srp_ibcm_login_string() {
	_il_f() { echo "$2" | tr , '\n' | sed -n "s/^$1=//p"; }
	_il_dgid=$(_il_f dgid "$2") _il_sid=$(_il_f service_id "$2")
	_il_tpid=$(_il_f id_ext "$2")$(_il_f ioc_guid "$2")
	is "$(_il_f pkey "$2")" ffff "$1: the login string's pkey is the port's (ffff)"
	_il_addr=$(echo "$_il_dgid" | sed 's/\(....\)/\1:/g; s/:$//')%veth0
	_il_ko=${SRPT_IBCM_KO:-$SRPT_REPO/tools/ibcm-initiator/srp_ibcm_ini.ko}
	grep -q " /sys/kernel/debug debugfs" /proc/mounts ||
		mount -t debugfs debugfs /sys/kernel/debug
	if ! insmod "$_il_ko"; then
		not_ok "$1: test initiator $_il_ko loaded"
		return
	fi
	_il_ctl=/sys/kernel/debug/srp_ibcm_ini
	if echo "login dst=$_il_addr sid=$_il_sid ini=$(srp_ini_id) tpid=$_il_tpid expect=rsp" \
		>$_il_ctl/ctl 2>/tmp/ibcm_login.err &&
		grep -q '^ok - ' $_il_ctl/out && ! grep -q '^not ok - ' $_il_ctl/out; then
		ok "$1: the test initiator logs in over IB CM with the login string's dgid, service_id, id_ext and ioc_guid"
	else
		not_ok "$1: the test initiator logs in over IB CM with the login string's dgid, service_id, id_ext and ioc_guid"
		sed 's/^/# /' /tmp/ibcm_login.err $_il_ctl/out
	fi
	echo close >$_il_ctl/ctl 2>/dev/null
	rmmod srp_ibcm_ini
}

# srp_initiator_load [ARGS]: ib_srp with ARGS, and sd_mod.
srp_initiator_load() {
	modprobe ib_srp "$@" && modprobe sd_mod
}

# kmsg_count TEXT: how many kernel log lines have TEXT, up to now: the log
# file lags behind the kernel, so this syncs it first (kmsg_sync), and
# prints nothing (status 1) when it can't; status 0 otherwise, 0 lines
# included.  Every baseline and every count a check compares is taken
# with this.
kmsg_count() {
	kmsg_sync || return 1
	kmsg_text | grep -c "$1" || :
}

# kmsg_lines TEXT: how many lines of the kernel log file, as it is now,
# have TEXT: not synced, for wait loops that poll (a check then takes a
# last look after kmsg_sync).
kmsg_lines() { kmsg_text | grep -c "$1"; }

# kmsg_more TEXT N: whether more than N lines of the kernel log file, as
# it is now (not synced: wait loops poll this), have TEXT.
kmsg_more() { [ "$(kmsg_lines "$1")" -gt "$2" ]; }

# kmsg_wait_more TEXT N [TIMEOUT]: wait until more than N kernel log lines
# have TEXT (default 30 s); a last look once the log file is synced.
kmsg_wait_more() {
	wait_until "${3:-30}" kmsg_more "$1" "$2" ||
		{ kmsg_sync && kmsg_more "$1" "$2"; }
}

# srp_login [EXTRA]: ask ib_srp to log in to the target through RDMA/CM,
# at $SRPT_DEST (default $SRPT_IP:$SRPT_CM_PORT), with srp_add_target.
srp_login() {
	g=$(srpt_guid16)
	srp_add_target "id_ext=$g,ioc_guid=$g,dest=${SRPT_DEST:-$SRPT_IP:$SRPT_CM_PORT}${1:+,$1}"
}

# srp_add_target LINE [DEV]: write LINE, as it is, to ib_srp's add_target
# of DEV (default rxe0) port 1.  ib_srp drops a removed target from its
# list only after its SCSI host is gone, so a login right after
# srp_logout_all can still be refused as "Already connected" (initiator
# side, logged by ib_srp): that refusal alone is retried, for up to 5 s.  The log is read up to now
# (kmsg_sync) before and after each try.
srp_add_target() {
	_lg_i=0
	while :; do
		_lg_n=$(kmsg_count "ib_srp: Already connected") || return 1
		echo "$1" >/sys/class/infiniband_srp/srp-"${2:-rxe0}"-1/add_target &&
			return 0
		kmsg_sync || return 1
		kmsg_more "ib_srp: Already connected" "$_lg_n" || return 1
		_lg_i=$((_lg_i + 1))
		[ $_lg_i -le 25 ] || return 1
		sleep 0.2
	done
}

# srp_port_ready [TIMEOUT]: wait up to TIMEOUT seconds (default 30) for
# ib_srp's port on rxe0 (its add_target file), e.g. after the RDMA device
# was added again.
srp_port_ready() {
	wait_until "${1:-30}" test -e /sys/class/infiniband_srp/srp-rxe0-1/add_target
}

# srp_disk [TIMEOUT]: print /dev/sdX of the first ib_srp disk, waiting up
# to TIMEOUT seconds (default 30).
srp_disk() {
	srp_lun_disk '*' "${1:-30}"
}

# srp_ib_srp_hosts: how many SCSI hosts ib_srp has (one per target port).
srp_ib_srp_hosts() {
	cat /sys/class/scsi_host/host*/proc_name 2>/dev/null | grep -c '^ib_srp$'
}

# srp_no_ports: whether ib_srp has no remote port and no SCSI host left.
srp_no_ports() {
	# shellcheck disable=SC2010 # any entry at all
	! ls /sys/class/srp_remote_ports/ 2>/dev/null | grep -q . &&
		[ "$(srp_ib_srp_hosts)" = 0 ]
}

# srp_logout_all: delete every ib_srp remote port and wait until their
# SCSI hosts are gone (ib_srp refuses a new login to the same target port,
# "Already connected", until then).
srp_logout_all() {
	for p in /sys/class/srp_remote_ports/*; do
		[ -e "$p/delete" ] && echo 1 >"$p/delete"
	done
	wait_until 30 srp_no_ports
}

# disk_busy DISK: whether DISK has requests in flight now.
disk_busy() {
	read -r _db_r _db_w <"/sys/block/${1#/dev/}/inflight" &&
		[ $((_db_r + _db_w)) -gt 0 ]
}

# srpt_channels_gone [TIMEOUT]: wait until the kernel log shows as many
# channels released as logged in (ours only; the in-tree driver logs
# differently).  The log is read up to now first (kmsg_sync); no login line
# at all is a failure, not a match: a changed wording must not make 0 = 0.
srpt_channels_gone() {
	_cg_n=$(kmsg_count "ib_srpt: .*: logged in from ") || return 1
	if [ "$_cg_n" = 0 ]; then
		echo "srpt_channels_gone: no 'logged in from' line in the kernel log" >&2
		return 1
	fi
	wait_until "${1:-30}" srpt_channels_released ||
		{ kmsg_sync && srpt_channels_released; }
}
# srpt_channels_released: as many "released" lines as "logged in" lines in
# the kernel log file as it is now (polled: not synced).
srpt_channels_released() {
	[ "$(kmsg_lines "ib_srpt: .*: logged in from ")" = \
		"$(kmsg_lines "ib_srpt: .*: released$")" ]
}

# srp_lun_disk_now LUN: print /dev/sdX of LUN of the ib_srp target if it
# is there now (LUN '*': any).
srp_lun_disk_now() {
	for h in /sys/class/scsi_host/host*; do
		[ "$(cat "$h"/proc_name 2>/dev/null)" = ib_srp ] || continue
		# shellcheck disable=SC2231 # $1 may be the glob '*'
		for b in "$h"/device/target*/*:$1/block/*; do
			[ -e "$b" ] || continue
			[ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
			# A writer that ran while the disk was gone (fio or dd
			# without allow_file_create=0 / conv=nocreat) leaves a
			# regular file there, and devtmpfs never makes the node.
			[ ! -e "/dev/${b##*/}" ] ||
				echo "srp_lun_disk: /dev/${b##*/} is not a block device" >&2
		done
	done
	return 1
}

# srp_lun_disk LUN [TIMEOUT]: print /dev/sdX of LUN of the ib_srp target,
# waiting up to TIMEOUT seconds (default 30).
srp_lun_disk() {
	if ! wait_until "${2:-30}" srp_lun_disk_now "$1" >/dev/null 2>&1; then
		# Once more, to say why (on stderr, as a TAP comment).
		srp_lun_disk_now "$1" 2>&1 >/dev/null | sed 's/^/# /' >&2
		return 1
	fi
	srp_lun_disk_now "$1"
}

# srpt_channels: how many connected RDMA/CM ids the target driver owns now
# (RDMA resource tracking names the module that created each kernel CM id;
# works for ours and the in-tree driver alike, and catches a leaked one).
srpt_channels() {
	rdma resource show cm_id 2>/dev/null | grep "comm \[ib_srpt\]" |
		grep -vc "state LISTEN"
}

# srpt_channels_are N [TIMEOUT]: wait until the target has N channels.
srpt_channels_are() {
	wait_until "${2:-30}" srpt_channels_is "$1"
}
srpt_channels_is() { [ "$(srpt_channels)" = "$1" ]; }
# srpt_channels_some [TIMEOUT]: wait until the target has a channel: after
# a login, what makes a later "srpt_channels_are 0" mean that the channels
# went, not that none can be seen.
srpt_channels_some() {
	wait_until "${1:-30}" srpt_channels_more 0
}
srpt_channels_more() { [ "$(srpt_channels)" -gt "$1" ]; }

# fio_direct DISK BS SIZE [FIO-ARGS]: random writes with O_DIRECT, then
# read back and check every block (crc32c); quiet unless it fails.
fio_direct() {
	_fd_d=$1 _fd_bs=$2 _fd_sz=$3
	shift 3
	fio --name=v --filename="$_fd_d" --allow_file_create=0 --rw=randwrite --bs="$_fd_bs" \
		--size="$_fd_sz" --direct=1 --ioengine=libaio --iodepth=8 \
		--verify=crc32c --do_verify=1 --output=/tmp/fio.out "$@" ||
		{ cat /tmp/fio.out; return 1; }
}

# Background fio, one at a time.  bg_fio DISK [FIO-ARGS] starts 4k random
# writes, 16 in flight, over the first 16 MiB of DISK (FIO-ARGS add to or
# override that: --offset, --verify, --time_based ...), its pid in $bg and
# its output in /tmp/bg.out and /tmp/bg.err.  Then one of:
#   bg_passes NAME        it finishes with status 0 (one TAP check)
#   bg_fails NAME [SECS]  it ends with an error within SECS (60) s (one TAP
#                         check); still running then, it is killed.  ib_srp
#                         fails I/O after fast_io_fail_tmo (15 s): 60 s
#                         means nothing hangs
#   bg_stop               stopped now, its status not looked at
# bg_passes and bg_fails leave fio's status in $bg_rc ("running" when it
# did not end in time), and name it in the check.
bg_fio() {
	_bg_disk=$1
	shift
	fio --name=bg --filename="$_bg_disk" --allow_file_create=0 --size=16m --rw=randwrite \
		--bs=4k --direct=1 --ioengine=libaio --iodepth=16 \
		--output=/tmp/bg.out "$@" 2>/tmp/bg.err &
	bg=$!
}
bg_ended() { ! kill -0 "$bg" 2>/dev/null; }
# bg_reap SECS: wait up to SECS s for the background fio; sets $bg_rc.
bg_reap() {
	if wait_until "$1" bg_ended; then
		wait "$bg"
		bg_rc=$?
	else
		kill -9 "$bg" 2>/dev/null
		wait "$bg" 2>/dev/null
		bg_rc=running
	fi
}
bg_diag() {
	cat /tmp/bg.out /tmp/bg.err 2>/dev/null | grep -E "err=|verify|error" |
		head -n 10 | sed 's/^/# /'
}
bg_passes() {
	wait "$bg"
	bg_rc=$?
	if [ "$bg_rc" = 0 ]; then ok "$1"; else
		not_ok "$1 (fio status $bg_rc)"
		bg_diag
	fi
}
bg_fails() {
	_bf_t0=$(date +%s)
	bg_reap "${2:-60}"
	_bf_t=$(($(date +%s) - _bf_t0))
	case $bg_rc in
	running) not_ok "$1 (still running)" ;;
	0) not_ok "$1 (fio status 0)" ;;
	*) ok "$1 (fio status $bg_rc, ended $_bf_t s into the wait)" ;;
	esac
}
bg_stop() {
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
}

# fio_buffered DISK BS SIZE: sequential buffered writes and fsync, the page
# cache dropped, then a buffered read pass that checks every block (so the
# data really came back from the target, not from the cache).
fio_buffered() {
	fio --name=b --filename="$1" --allow_file_create=0 --rw=write --bs="$2" --size="$3" \
		--direct=0 --ioengine=psync --end_fsync=1 --verify=crc32c \
		--do_verify=0 --output=/tmp/fio.out || { cat /tmp/fio.out; return 1; }
	sync
	echo 3 >/proc/sys/vm/drop_caches
	fio --name=b --filename="$1" --allow_file_create=0 --rw=write --bs="$2" --size="$3" \
		--direct=0 --ioengine=psync --verify=crc32c --verify_only \
		--output=/tmp/fio.out || { cat /tmp/fio.out; return 1; }
}

# srpt_dyndbg FUNC +p|-p: turn the dynamic debug messages of ib_srpt's
# function FUNC on or off (debugfs mounted first if it is not); ours only.
srpt_dyndbg() {
	[ -d /sys/kernel/debug/dynamic_debug ] ||
		mount -t debugfs debugfs /sys/kernel/debug || return 1
	echo "module ib_srpt func $1 $2" >/sys/kernel/debug/dynamic_debug/control
}

# srpt_fmt_trace on|off: log (dyndbg) every SRP_CMD with its data
# descriptor format; ours only.
srpt_fmt_trace() {
	case $1 in
	on) srpt_dyndbg srpt_handle_cmd +p ;;
	*) srpt_dyndbg srpt_handle_cmd -p ;;
	esac
}

# srpt_fmt_seen FORMAT: how many SRP_CMDs were logged with FORMAT (direct,
# indirect, indirect external, immediate) since boot; the log is read up to
# now (kmsg_sync).
srpt_fmt_seen() {
	kmsg_sync >&2 || return 1
	kmsg_text | grep -c "ib_srpt: .*: SRP_CMD opcode .*, $1, [0-9]* descriptor"
}

# srp_test_begin: the start most data-path tests share: soft-RoCE, the
# module under test, ib_srp, a ramdisk exported on LUN 0 and the node ACL of
# ib_srp's initiator port id (exported as $ini).  Prints one TAP line and
# ends the test (exit 1) when any of it fails.
srp_test_begin() {
	rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
	# A test may have loaded it with parameters of its own first.
	[ -e /sys/module/ib_srpt ] || srpt_load ||
		{ not_ok "target module loaded"; exit 1; }
	srp_initiator_load
	ini=$(srp_ini_id)
	export ini
	if srp_export_setup && srp_acl "$ini"; then
		ok "ramdisk exported, ACL $ini"
	else
		not_ok "ramdisk exported, ACL $ini"
		exit 1
	fi
}

# srp_logout_wait: log every ib_srp port out and wait until the target has
# released all its channels.
srp_logout_wait() { srp_logout_all && srpt_channels_are 0 30; }
