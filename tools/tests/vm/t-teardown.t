#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vmtest: timeout=900
# Commands the target refuses after LIO took them must not hold the
# channel's release (issue 24): srpt_submit_cmd() answered them directly
# and dropped one of LIO's two references, so the session never drained
# and channel close, TPG disable, ACL removal and rmmod hung for ever.
# ib_core is loaded with force_mr=1 first, so the RDMA R/W API registers
# memory even on rdma_rxe, from a pool of min(srp_sq_size, 256) memory
# regions per queue pair.  srp-hostile (tools/srp-probe) then sends, on
# channels of its own:
#   - READ and WRITE of 300 one-block descriptors, more than the pool
#     (srp_sq_size 4096, so the send queue check cannot trip): BUSY;
#   - at srp_sq_size 200, READ and WRITE of 101 one-block descriptors,
#     202 or more RDMA work requests with their registrations, more than
#     the send queue (the pool holds them): CHECK CONDITION, INVALID
#     FIELD IN COMMAND IU, and the driver's log line for it;
# after each, the channel serves a one-block command, and once
# disconnected the target releases it within 30 s.  On a kernel with fault
# injection (make check-debug), the same for one allocation made to fail.  Then, each within a
# bound (a task stuck in the kernel is left behind, the later checks still
# run): no channel is left, the TPG disables (30 s), the configuration goes
# (60 s) and ib_srpt unloads (60 s).  Ours only, like t-hostile.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
if ! ours; then
	ok "# SKIP refused commands are sent to ours only (like t-hostile)"
	exit 0
fi
bin=$SRPT_REPO/build/srp-probe
[ -x "$bin"/srp-hostile ] || { not_ok "srp-hostile built (make tools)"; exit 1; }

# force_mr has permission 0 in ib_core (drivers/infiniband/core/rw.c), so
# it only takes effect on a fresh load and sysfs may not show it: the BUSY
# answers below are what show that memory is registered.
if [ -e /sys/module/ib_core ]; then
	not_ok "ib_core not loaded before the test (force_mr=1 needs a fresh load)"
	exit 1
fi
run_ok "ib_core loaded with force_mr=1" modprobe ib_core force_mr=1
fmr=/sys/module/ib_core/parameters/force_mr
if [ -r $fmr ]; then
	is "$(cat $fmr)" Y "ib_core's force_mr reads Y"
else
	diag "ib_core does not show force_mr in sysfs (permission 0)"
fi

rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
srpt_load || { not_ok "target module loaded"; exit 1; }
hi=$SRP_HOSTILE_ID
# In this shell, not run_ok's subshell: srp_export_setup sets SRPT_TPG.
if srp_export_setup && srp_acl $hi && modprobe -a rdma_ucm ib_uverbs; then
	ok "ramdisk exported, ACL $hi"
else
	not_ok "ramdisk exported, ACL $hi"
	exit 1
fi
chcmd="timeout 10 grep -c '^CID: ' $SRPT_TPG/acls/$hi/info"

# hostile NAME NCASES ARGS...: srp-hostile with ARGS (at most 300 s),
# its TAP lines reported here; NCASES of them must have run.
hostile() {
	_h_name=$1 _h_want=$2
	shift 2
	diag "srp-hostile $* started $(date)"
	timeout 300 "$bin"/srp-hostile --id-ext "$(srpt_guid16)" \
		--initiator-id $hi --lun 0 \
		--max-req-size "$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)" \
		--channels-cmd "$chcmd" "$@" "$SRPT_IP" "$SRPT_CM_PORT" \
		>/tmp/hostile.tap 2>/tmp/hostile.err
	_h_rc=$?
	diag "srp-hostile finished $(date)"
	_h_n=0 _h_plan=
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#* - }"; _h_n=$((_h_n + 1)) ;;
		"not ok "*) not_ok "${line#* - }"; _h_n=$((_h_n + 1)) ;;
		"#"*) echo "$line" ;;
		1..*) _h_plan=${line#1..} ;;
		esac
	done </tmp/hostile.tap
	sed 's/^/# /' /tmp/hostile.err
	is "$_h_rc" 0 "$_h_name: srp-hostile exits 0"
	is "$_h_n/$_h_plan" "$_h_want/$_h_want" "$_h_name: all $_h_want cases ran"
}

hostile "MR pool" 6 --mr-pool --case "more than the MR pool"
kmsg_sync
sqlines=$(kmsg_count "ib_srpt: .*send queue entries")
is "$sqlines" 0 "MR pool: no command took the send queue path"
if echo 200 >"$SRPT_TPG"/attrib/srp_sq_size; then ok "srp_sq_size 200"; else
	not_ok "srp_sq_size 200"; fi
hostile "send queue" 6 --mr-pool --sq-size 200 --case "more than the send queue"
kmsg_sync
if kmsg_more "ib_srpt: .*need more than the 200 send queue entries" 0; then
	ok "send queue: the target logged the 200-entry send queue as the reason"
else
	not_ok "send queue: the target logged the 200-entry send queue as the reason"
	kmsg_text | grep ib_srpt | tail -n 20 | sed 's/^/# /'
fi

# A command that stays in the backend holds its channel's release, and the
# release names it: a device-mapper "delay" disk that holds each write
# 40 s (reads pass at once) over a null_blk disk, as LUN 1, one block
# written to it by srp-probe, the TPG disabled while the write waits.
# Within 30 s of the close the release logs the tag it waits for, LIO's;
# once the disk answered, the channel is released.  (Not null_blk's own
# completion_nsec: that delays every request, the partition scan's reads
# in modprobe too, and each of the kernel's 12 partition table parsers
# reads its sector again after null_blk's 5 s request timeout failed it,
# 40 s each: modprobe alone took about 480 s.  A dm disk has no
# partition scan, and its reads are not delayed.)
slow=$CFS/core/iblock_1/slow
slow_setup() {
	modprobe null_blk nr_devices=1 gb=1 &&
		wait_until 5 test -b /dev/nullb0 &&
		modprobe dm_delay &&
		echo "0 $(cat /sys/block/nullb0/size) delay /dev/nullb0 0 0 /dev/nullb0 0 40000" |
		dmsetup create --noudevsync srpt_slow &&
		_ss_dev=/dev/$(dmsetup info -c --noheadings -o blkdevname srpt_slow) &&
		wait_until 5 test -b "$_ss_dev" &&
		mkdir -p "$slow" &&
		echo "udev_path=$_ss_dev" >"$slow/control" &&
		echo 1 >"$slow/enable" &&
		srp_lun_add 1 "$slow" &&
		mkdir -p "$SRPT_TPG/acls/$hi/lun_1" &&
		ln -s "$SRPT_TPG/lun/lun_1" "$SRPT_TPG/acls/$hi/lun_1/lun_1"
}
# slow_held: the delay target holds a write (or a flush) now.  Its status
# counts the bios it holds: reads, writes, flushes (dm counts them in the
# disk's inflight only once they are passed on).
slow_held() {
	dmsetup status srpt_slow |
		awk '$3 == "delay" && $5 + $6 > 0 { held = 1 } END { exit !held }'
}
run_ok "LUN 1: a disk that holds each write 40 s (dm-delay over null_blk)" slow_setup
"$bin"/srp-probe -q -I $hi -e "$(srpt_guid16)" -l 1 -w 1 -t 120 \
	"$SRPT_IP" "$SRPT_CM_PORT" >/tmp/slow.out 2>&1 &
sp=$!
if wait_until 30 slow_held; then ok "a write waits in the slow disk"; else
	not_ok "a write waits in the slow disk"; diag "dmsetup status: $(dmsetup status srpt_slow 2>&1)"
	sed 's/^/# /' /tmp/slow.out; fi
kmsg_sync
rel0=$(kmsg_count "ib_srpt: $hi-[0-9]*: released")
run_ok "TPG disabled with the write in the disk" bounded 30 sh -c "echo 0 >$SRPT_TPG/enable"
if kmsg_wait_more "ib_srpt: $hi-[0-9]*: release waiting for 1 command context(s):" 0 45 &&
	kmsg_more "ib_srpt: $hi-[0-9]*: tag 0x[0-9a-f]*: with LIO" 0; then
	ok "the release names the command it waits for, with LIO"
else
	not_ok "the release names the command it waits for, with LIO"
	kmsg_text | grep ib_srpt | tail -n 10 | sed 's/^/# /'
fi
if kmsg_wait_more "ib_srpt: $hi-[0-9]*: released" "$rel0" 60; then
	ok "released once the disk answered"
else
	not_ok "released once the disk answered"
fi
wait $sp
is "$?" 7 "srp-probe: the target ended the channel (exit 7)"
if echo 1 >"$SRPT_TPG/enable"; then ok "TPG enabled again"; else not_ok "TPG enabled again"; fi

# Injected failures, on kernels with CONFIG_FAULT_INJECTION_DEBUG_FS (the
# debug kernel of make check-debug): one allocation of a command's data
# fails (the data buffer, its RDMA context, an external table's buffer,
# and with use_srq the copy of immediate data at an offset the SRQ's
# buffers were not placed for): BUSY, the command served when sent again,
# the channel released once disconnected.
fdir=/sys/kernel/debug/ib_srpt
grep -q " /sys/kernel/debug debugfs" /proc/mounts ||
	mount -t debugfs debugfs /sys/kernel/debug
if [ -d $fdir/fail ]; then
	hostile "fault injection" 9 --fault-dir $fdir --case "fault:"
	if echo 1 >"$SRPT_TPG"/attrib/use_srq; then ok "use_srq 1"; else
		not_ok "use_srq 1"; fi
	hostile "fault injection, SRQ" 3 --srq --fault-dir $fdir --case "fault:"
	sed 's/^/# sites: /' $fdir/sites
else
	ok "# SKIP fault injection: this kernel has no CONFIG_FAULT_INJECTION_DEBUG_FS (make check-debug runs it)"
fi

if srpt_channels_are 0 30; then ok "no channel of the target is left"; else
	not_ok "no channel of the target is left ($(srpt_channels))"
	kmsg_text | grep "ib_srpt: .*: \(logged in\|closing\|released\)" |
		tail -n 12 | sed 's/^/# /'
fi
# Ours closes the channels and returns; they are released in the
# background (the configuration's removal waits for them).
run_ok "TPG disabled within 30 s" bounded 30 sh -c "echo 0 >$SRPT_TPG/enable"
run_ok "target configuration removed within 60 s" bounded 60 srp_export_teardown
if [ ! -e "$CFS"/srpt ]; then ok "the target's configfs tree is gone"; else
	not_ok "the target's configfs tree is gone"
fi
run_ok "rmmod ib_srpt within 60 s" bounded 60 rmmod ib_srpt
if [ ! -e /sys/module/ib_srpt ]; then ok "ib_srpt unloaded"; else
	not_ok "ib_srpt unloaded"
	kmsg_text | grep -E "still waiting|blocked for more" | tail -n 10 | sed 's/^/# /'
fi
