#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vmtest: timeout=86400
# The fault sweep of issue 28 (make check-faults, on the debug kernel):
# every call of ib_srpt that can fail, failed on purpose, one call at a
# time, on every path the driver takes, each failure's error path then
# checked.  Needs the driver's fault injection (CONFIG_FAULT_INJECTION_DEBUG_FS,
# Documentation/srpt.rst "Fault injection"): elsewhere one SKIP.
#
# For each path (PATHS below): one clean run reads how often each site was
# called (/sys/kernel/debug/ib_srpt/sites, before and after); then for
# each site the path touched, for k = 1..N (N its calls in the clean run),
# the path runs again from the same state with the kth call of that site
# alone made to fail (fail/space=k, times=1; the load path through the
# fail_at parameter), and one TAP line says whether it survived:
#   - the path ended within SRPT_FAULTS_RUN_TMO s (a hang ends the sweep);
#   - it either completed (the driver got over the failure: a retry, a
#     smaller queue, BUSY and the initiator's retry), or failed with the
#     failure on record: the command's error message, an ib_srpt log line,
#     or a refused login counted in logins_refused;
#   - the state was undone within bounds (logout, ACL back, device back),
#     no channel is left (rdma resource tracking, and the log's "logged
#     in" and "released" lines pair up);
#   - on the paths that end no channel but their own, another session (an
#     srp-probe login with an ACL of its own, holding its channel from the
#     path's start to its end) is still up;
#   - no kernel splat since the iteration began (tools/vm/check-dmesg.sh).
# An injection whose call was not reached (an async path took another
# course) is a SKIP.  After each site: a kmemleak scan (the debug kernel
# has kmemleak; leaks are put down to that site's injections), and the
# path run clean once more (it works again).  After each path: ib_srpt
# unloads.  At the end: a summary (paths, sites, injections, survived)
# and the sites no path reached (a TODO line).
#
# SRPT_FAULTS_MODE=cover: every site failed once, its last call (the
# most to unwind; the first when the last does not come again), on the
# first path whose clean run calls it, which
# keeps the whole sweep to a few hours on the debug kernel; the paths
# after it run clean and fail only the sites no path before them failed.
# SRPT_FAULTS_MODE=sample (make check-faults-sample): a handful of
# injections, the last call of five sites (session, rsp_buf, ib_cm_rep,
# rdma_accept, data_buf) on the three paths that reach them (RDMA/CM and IB
# CM login, I/O), for a quick look; the sample too runs only on a kernel
# with fault injection (Debian's 6.1 has none: make check does not run
# it).  SRPT_FAULTS_PATHS and SRPT_FAULTS_SITES restrict paths and sites
# (names as in "sites"); SRPT_FAULTS_MAX_N caps the calls failed per site
# (above the cap, calls 1..cap-1 and the last; default 4; 0: every call,
# the issue's 1..N, which on the debug kernel under TCG takes days: a
# login there takes tens of seconds, and a login path calls rsp_buf and
# post_recv 128 times each).
# SRPT_FAULTS_RUN_TMO (240) bounds a path's run, SRPT_FAULTS_STEP_TMO
# (120) its set-up and undoing, SRPT_FAULTS_SETTLE (1) is the pause for
# async work before a site is disarmed.
# ib_srp logs in with ch_count=1 and the SRQ has 64 buffers
# (srpt_srq_size=64), which keeps N small.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
. "$SRPT_REPO/tools/tests/faults/sweep.sh"

fdir=/sys/kernel/debug/ib_srpt
mode=${SRPT_FAULTS_MODE:-full}
run_tmo=${SRPT_FAULTS_RUN_TMO:-240}
step_tmo=${SRPT_FAULTS_STEP_TMO:-120}
settle=${SRPT_FAULTS_SETTLE:-1}
cover=0
all_paths="load device_add port_up port_event configfs rdma_cm_login ib_cm_login refused_login srq_login io io_noimm ibcm_io srq_imm credit_abuse tmf stats dm logout acl_rmdir tpg_disable srq_toggle device_remove unload"
case $mode in
sample)
	paths=${SRPT_FAULTS_PATHS:-rdma_cm_login ib_cm_login io}
	sites=${SRPT_FAULTS_SITES:-session rsp_buf ib_cm_rep rdma_accept data_buf}
	max_n=${SRPT_FAULTS_MAX_N:-1}
	;;
full)
	paths=${SRPT_FAULTS_PATHS:-$all_paths}
	sites=${SRPT_FAULTS_SITES:-}
	max_n=${SRPT_FAULTS_MAX_N:-4}
	;;
cover)
	paths=${SRPT_FAULTS_PATHS:-$all_paths}
	sites=${SRPT_FAULTS_SITES:-}
	max_n=${SRPT_FAULTS_MAX_N:-1}
	cover=1
	;;
*)
	not_ok "SRPT_FAULTS_MODE is full, cover or sample (got '$mode')"
	exit 1
	;;
esac
ibcm_ko=${SRPT_IBCM_KO:-$SRPT_REPO/tools/ibcm-initiator/srp_ibcm_ini.ko}
probe=$SRPT_REPO/build/srp-probe/srp-probe
hostile=$SRPT_REPO/build/srp-probe/srp-hostile
ctl=/sys/kernel/debug/srp_ibcm_ini

# ---- the fault injection interface ----------------------------------------

debugfs_up() {
	grep -q " /sys/kernel/debug debugfs" /proc/mounts ||
		mount -t debugfs debugfs /sys/kernel/debug
}

# sw_arm IDX K: site IDX alone fails its Kth call from now on, once.
sw_arm() {
	echo 0 >$fdir/fail_sites &&
		echo 100 >$fdir/fail/probability &&
		echo 1 >$fdir/fail/interval &&
		echo 1 >$fdir/fail/times &&
		echo "$2" >$fdir/fail/space &&
		echo 0 >$fdir/fail/verbose &&
		sw_mask "$1" >$fdir/fail_sites
}
sw_disarm() {
	[ ! -e $fdir/fail_sites ] || echo 0 >$fdir/fail_sites
}

# sw_counts FILE: the call counts of every site ("IDX NAME CALLS"), or an
# empty FILE when ib_srpt is not loaded (its counts start at 0 on load).
sw_counts() {
	if [ -r $fdir/sites ]; then cat $fdir/sites >"$1"; else : >"$1"; fi
}

# ---- the kernel log -----------------------------------------------------------

# sw_mark: a unique marker line in the kernel log, synced; prints it.
sw_mark() {
	_mk="srpt-faults: mark $(cat /proc/sys/kernel/random/uuid)"
	echo "$_mk" >/dev/kmsg
	kmsg_sync >/dev/null 2>&1
	echo "$_mk"
}

# ---- the target's state -------------------------------------------------------

ibcm_ini='' witness_ini=''
# sw_load [ARGS]: ib_srpt with the sweep's parameters and ARGS.
sw_load() {
	srpt_load srpt_srq_size=64 "$@" && debugfs_up
}

# sw_export: the exported ramdisk, the ACLs of ib_srp and of the IB CM
# test initiator, the RDMA/CM listener; whatever of it is missing or half
# made (an injected mkdir failure) is redone.
sw_export() {
	SRPT_TPG=$CFS/srpt/0x$RXE_GID_HEX/tpgt_1
	export SRPT_TPG
	if [ ! -L "$SRPT_TPG/lun/lun_0/rd0" ] ||
		[ "$(cat "$SRPT_TPG/enable" 2>/dev/null)" != 1 ] ||
		[ "$(cat $CFS/srpt/discovery_auth/rdma_cm_port 2>/dev/null)" != "$SRPT_CM_PORT" ]; then
		# (Also the backstore a failed setup left behind.)
		srp_export_teardown 2>/dev/null
		srp_export_setup || return 1
	fi
	for _a in "$ini" "$ibcm_ini" "$witness_ini" "$probe_ini"; do
		[ -d "$SRPT_TPG/acls/$_a/lun_0" ] || srp_acl "$_a" || return 1
	done
}

# sw_up: soft-RoCE, ib_srpt loaded, ib_srp and the IB CM test initiator
# loaded, the export; no session.
sw_up() {
	[ -e /sys/class/infiniband/rxe0 ] || rxe_setup || return 1
	[ -e /sys/module/ib_srpt ] || sw_load || return 1
	[ -e /sys/module/ib_srp ] || srp_initiator_load || return 1
	srp_port_ready 30 || { echo "sw_up: ib_srp has no port on rxe0" >&2; return 1; }
	[ -e /sys/module/srp_ibcm_ini ] || insmod "$ibcm_ko" || return 1
	sw_export
}

# sw_down: no session, no configuration, ib_srpt unloaded.
sw_down() {
	srp_logout_all
	[ ! -e $ctl/ctl ] || echo close >$ctl/ctl 2>/dev/null
	if [ -d $CFS/srpt ]; then
		SRPT_TPG=$CFS/srpt/0x$RXE_GID_HEX/tpgt_1
		srp_export_teardown 2>/dev/null
	fi
	[ ! -e /sys/module/ib_srpt ] || rmmod ib_srpt
}

# sw_rw: 4 KiB written at 1 MiB (immediate data where granted) and 256 KiB
# at 2 MiB (RDMA READ), both read back (RDMA WRITE) and compared.
sw_rw() {
	_d=$(srp_disk 30) || { echo "sw_rw: no ib_srp disk" >&2; return 1; }
	dd if=/dev/urandom of=/tmp/sw.pat bs=256k count=1 status=none &&
		dd if=/tmp/sw.pat of="$_d" bs=4k count=1 seek=256 oflag=direct conv=notrunc,nocreat status=none &&
		dd if=/tmp/sw.pat of="$_d" bs=256k count=1 seek=8 oflag=direct conv=notrunc,nocreat status=none &&
		dd if="$_d" of=/tmp/sw.back bs=256k count=1 skip=8 iflag=direct status=none &&
		cmp -s /tmp/sw.pat /tmp/sw.back &&
		dd if="$_d" of=/tmp/sw.back bs=4k count=1 skip=256 iflag=direct status=none &&
		head -c 4096 /tmp/sw.pat | cmp -s - /tmp/sw.back && return 0
	echo "sw_rw: I/O on $_d failed or read back other data" >&2
	return 1
}

# sw_srp_host: ib_srp's SCSI host (/sys/class/scsi_host/hostN).
sw_srp_host() {
	for _h in /sys/class/scsi_host/host*; do
		[ "$(cat "$_h"/proc_name 2>/dev/null)" != ib_srp ] || { echo "$_h"; return; }
	done
	return 1
}
sw_srp_idle() { [ "$(cat "$1"/host_busy)" = 0 ]; }
# sw_req_lim: the credits ib_srp holds (req_lim of its SCSI host) once no
# command is outstanding.
sw_req_lim() {
	_rl=$(sw_srp_host) && wait_until 30 sw_srp_idle "$_rl" && cat "$_rl"/req_lim
}
# sw_disk_quiet: the kernel's own I/O after a login (the partition scan)
# is over: the disk's I/O counts did not change for 2 s (at most 30 s), so
# that a clean run counts the calls of the path alone.
sw_disk_quiet() {
	_dq=/sys/block/$(basename "$(srp_disk 30)")/stat
	_dq_n=15 _dq0=$(cat "$_dq")
	while [ "$_dq_n" -gt 0 ]; do
		sleep 2
		_dq1=$(cat "$_dq")
		[ "$_dq1" != "$_dq0" ] || return 0
		_dq0=$_dq1 _dq_n=$((_dq_n - 1))
	done
}
# sw_credits_keep: after a login, what ib_srp's credits are idle.
sw_credits_keep() { sw_disk_quiet; sw_req_lim >/tmp/sw.req_lim; }
# sw_credits_whole: ib_srp, idle again, holds the credits it held idle
# after the login: whatever an injection made the target drop (a
# response, a request), the credits it owed went out with a later
# response.
sw_credits_whole() {
	_cw0=$(cat /tmp/sw.req_lim) _cw1=$(sw_req_lim)
	[ -n "$_cw0" ] && [ "$_cw1" = "$_cw0" ] && return 0
	echo "credits lost: ib_srp holds ${_cw1:-?} idle, ${_cw0:-?} after the login" >&2
	return 1
}

# sw_login: ib_srp logs in over RDMA/CM, one channel.
sw_login() {
	srp_login ch_count=1 && srp_disk 30 >/dev/null
}

# sw_channels_are_left: wait until the target has no channel but the
# witness's ($sw_wn: 1 while one watches, else 0).
sw_channels_are_left() { srpt_channels_are "$sw_wn" 30; }
# sw_logout_wait: ib_srp logs out; the target released its channels.
sw_logout_wait() { srp_logout_all && sw_channels_are_left; }

# sw_ibcm COMMAND...: a command of the IB CM test initiator; fails (its
# report on stderr) when the command or one of its checks failed.
sw_ibcm() {
	if ! echo "$*" >$ctl/ctl 2>/tmp/sw.ibcm.err; then
		cat /tmp/sw.ibcm.err >&2
		return 1
	fi
	if grep -q '^not ok - ' $ctl/out; then
		grep '^not ok - ' $ctl/out >&2
		return 1
	fi
}
sw_ibcm_connect() {
	sw_ibcm connect dst=$SRPT_IP sid="$(srpt_guid16)" ini="$ibcm_ini"
}

# sw_refused: the logins the target port refused, all reasons.
sw_refused() {
	_rf=$CFS/srpt/0x$RXE_GID_HEX/fabric_statistics/srpt/logins_refused
	[ ! -r "$_rf" ] || awk '{ n += $2 } END { print n + 0 }' "$_rf"
}

# ---- the paths ------------------------------------------------------------------
# p_NAME_pre brings the state the path starts from, p_NAME_run takes the
# path (quiet when it succeeds: what it prints is its error report),
# p_NAME_post undoes it (whether the run succeeded or not).  Each runs in
# a subshell under a time bound.

# Module load (sites counted from load on; armed by fail_at).
p_load_pre() { sw_down; }
p_load_run() {
	if [ -n "${sw_fail_at:-}" ]; then
		sw_load rdma_cm_port="$SRPT_CM_PORT" fail_at="$sw_fail_at" >/dev/null
	else
		sw_load rdma_cm_port="$SRPT_CM_PORT" >/dev/null
	fi
}
p_load_post() { sw_disarm; [ ! -e /sys/module/ib_srpt ] || rmmod ib_srpt; }

# An RDMA device added: its ports, the IB CM listener, the DM agent.
p_device_add_pre() {
	sw_up || return 1
	_n=$(kmsg_count "ib_srpt: removed rxe0$")
	rdma link delete rxe0 && kmsg_wait_more "ib_srpt: removed rxe0$" "$_n" 60
}
p_device_add_run() {
	_n=$(kmsg_count "target port 0x$RXE_GID_HEX: bound to rxe0 port 1")
	rdma link add rxe0 type rxe netdev veth0 && wait_until 10 rxe_gid0_set &&
		kmsg_wait_more "target port 0x$RXE_GID_HEX: bound to rxe0 port 1" "$_n" 30 &&
		return 0
	echo "device_add: the target port is not bound to rxe0" >&2
	return 1
}
p_device_add_post() { [ -e /sys/class/infiniband/rxe0 ] || rxe_setup; }

# A port going down and up: port refresh, DM agent.
p_port_up_pre() { sw_up; }
p_port_up_run() {
	_st=/sys/class/infiniband/rxe0/ports/1/state
	ip link set veth0 down && wait_until 30 grep -q DOWN $_st &&
		ip link set veth0 up && wait_until 30 grep -q ACTIVE $_st &&
		sleep 2 && return 0
	echo "port_up: rxe0 port 1 did not go down and up" >&2
	return 1
}
p_port_up_post() { ip link set veth0 up; wait_until 30 rxe_gid0_set; }

# A port event while the port stays active (a GID added: an address on
# rxe0's netdev): the port is refreshed, its channels stay (the witness).
sw_site_calls() { awk -v s="$1" '$2 == s { print $3 }' $fdir/sites; }
sw_site_called_more() { [ "$(sw_site_calls "$1")" -gt "$2" ]; }
p_port_event_pre() {
	sw_up || return 1
	ip addr del 192.168.124.1/24 dev veth0 2>/dev/null
	return 0
}
p_port_event_run() {
	_n=$(sw_site_calls query_port)
	ip addr add 192.168.124.1/24 dev veth0 &&
		wait_until 30 sw_site_called_more query_port "$_n" && sleep 2 &&
		return 0
	echo "port_event: no port refresh after an address was added to veth0" >&2
	return 1
}
p_port_event_post() {
	ip addr del 192.168.124.1/24 dev veth0 2>/dev/null
	sleep 2
}

# configfs: target port, TPG, LUN, ACLs, the RDMA/CM listener.
p_configfs_pre() {
	sw_up || return 1
	srp_export_teardown 2>/dev/null
	[ ! -d $CFS/srpt ]
}
p_configfs_run() { sw_export; }
p_configfs_post() { :; }

# Logins: RDMA/CM (ib_srp), IB CM (the test initiator), the first SRQ login.
p_rdma_cm_login_pre() { sw_up; }
p_rdma_cm_login_run() { sw_login && sw_rw; }
p_rdma_cm_login_post() { sw_logout_wait; }
p_ib_cm_login_pre() { sw_up; }
p_ib_cm_login_run() { sw_ibcm_connect && sw_ibcm io; }
p_ib_cm_login_post() { echo close >$ctl/ctl 2>/dev/null; sw_channels_are_left; }
# A login no ACL admits, over IB CM and over RDMA/CM: refused (the REJ
# and the reject are sites of their own).
p_refused_login_pre() { sw_up; }
p_refused_login_run() {
	sw_ibcm login dst=$SRPT_IP sid="$(srpt_guid16)" \
		ini="0x00000000000000a2$(echo "$RXE_GID_HEX" | cut -c17-32)" \
		expect=rej:0x00010000 || return 1
	srp_login ch_count=1,initiator_ext=00000000000000ff 2>/dev/null || return 0
	echo "refused_login: ib_srp logged in without an ACL" >&2
	return 1
}
p_refused_login_post() {
	srp_logout_all
	echo close >$ctl/ctl 2>/dev/null
	sw_channels_are_left
}
p_srq_login_pre() {
	sw_down >/dev/null 2>&1
	sw_up && echo 1 >"$SRPT_TPG"/attrib/use_srq
}
p_srq_login_run() { sw_login && sw_rw; }
p_srq_login_post() { sw_logout_wait; }

# I/O: reads and writes with immediate data, without, and the test
# initiator's direct, indirect and external-table commands; TMF.  The io
# path also reads less than the initiator's buffer holds (an INQUIRY of
# 4 KiB, answered with its standard data: the DATA-IN is trimmed).
p_io_pre() { sw_up && sw_login && sw_credits_keep; }
p_io_run() { sw_rw && sg_inq --len=4096 "$(srp_disk 30)" >/dev/null; }
p_io_post() { sw_logout_wait; }
p_io_noimm_pre() {
	sw_up && echo N >/sys/module/ib_srp/parameters/use_imm_data &&
		sw_login && sw_credits_keep
}
p_io_noimm_run() { sw_rw; }
p_io_noimm_post() {
	sw_logout_wait
	_rc=$?
	echo Y >/sys/module/ib_srp/parameters/use_imm_data
	return $_rc
}
p_ibcm_io_pre() { sw_up && sw_ibcm_connect; }
p_ibcm_io_run() { sw_ibcm io; }
p_ibcm_io_post() { echo close >$ctl/ctl 2>/dev/null; sw_channels_are_left; }
# Immediate data at an offset the SRQ's receive buffers were not placed
# for (srp-probe, offset 96: the data is copied out of the buffer), 4 KiB
# written and read back; no witness (use_srq set ends its channel).
p_srq_imm_pre() {
	sw_up || return 1
	[ "$(cat "$SRPT_TPG"/attrib/use_srq)" = 1 ] ||
		echo 1 >"$SRPT_TPG"/attrib/use_srq
}
p_srq_imm_run() {
	"$probe" -q -x $probe_ext -m 96 -d immediate -w 8 -a 8192 -l 0 \
		-e "$(srpt_guid16)" "$SRPT_IP" "$SRPT_CM_PORT"
}
p_srq_imm_post() { sw_channels_are_left; }
# An initiator that ignores its credits (srp-hostile's credit case): the
# target stops the channel's QP taking receives and ends the channel.
p_credit_abuse_pre() { sw_up && modprobe -a rdma_ucm ib_uverbs; }
p_credit_abuse_run() {
	"$hostile" --id-ext "$(srpt_guid16)" --initiator-id "$probe_ini" \
		--lun 0 --max-req-size "$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)" \
		--channels-cmd "timeout 10 grep -c '^CID: ' $SRPT_TPG/acls/$probe_ini/info" \
		--case "credits: more requests" "$SRPT_IP" "$SRPT_CM_PORT" \
		>/tmp/sw.hostile 2>&1 && return 0
	grep -v '^ok \|^1\.\.' /tmp/sw.hostile
	return 1
}
p_credit_abuse_post() { sw_channels_are_left; }
p_tmf_pre() { sw_up && sw_login; }
p_tmf_run() { sg_reset --device "$(srp_disk 30)" >/dev/null && sw_rw; }
p_tmf_post() { sw_logout_wait; }

# A statistics read; a Device Management query.
p_stats_pre() { sw_up; }
p_stats_run() {
	cat $CFS/srpt/0x"$RXE_GID_HEX"/fabric_statistics/srpt/* \
		"$SRPT_TPG/acls/$ini/fabric_statistics/srpt/"* >/dev/null
}
p_stats_post() { :; }
p_dm_pre() { sw_up && modprobe -a ib_umad; }
p_dm_run() {
	_ll=$(ip -6 addr show dev veth0 scope link | sed -n 's/.*inet6 \([^/]*\).*/\1/p')
	"$probe" --dm "$_ll%veth0" >/dev/null
}
p_dm_post() { :; }

# Ends of sessions: logout, ACL removal, TPG disable, use_srq toggled
# (ib_srp logs back in), device removal; module unload.
p_logout_pre() { sw_up && sw_login; }
p_logout_run() { sw_logout_wait; }
p_logout_post() { srp_logout_all; }
p_acl_rmdir_pre() { sw_up && sw_login; }
p_acl_rmdir_run() { srp_acl_remove "$ini" && sw_channels_are_left; }
p_acl_rmdir_post() { srp_logout_all; sw_export; }
p_tpg_disable_pre() { sw_up && sw_login; }
p_tpg_disable_run() { echo 0 >"$SRPT_TPG"/enable && srpt_channels_are 0 30; }
p_tpg_disable_post() { srp_logout_all; echo 1 >"$SRPT_TPG"/enable; }
p_srq_toggle_pre() { sw_up && echo 0 >"$SRPT_TPG"/attrib/use_srq && sw_login; }
p_srq_toggle_run() {
	_n=$(kmsg_count "ib_srpt: .*: logged in from .*shared receive queue")
	echo 1 >"$SRPT_TPG"/attrib/use_srq &&
		kmsg_wait_more "ib_srpt: .*: logged in from .*shared receive queue" "$_n" 60 &&
		sw_rw
}
p_srq_toggle_post() { sw_logout_wait; echo 0 >"$SRPT_TPG"/attrib/use_srq; }
p_device_remove_pre() { sw_up && sw_login; }
p_device_remove_run() {
	_n=$(kmsg_count "ib_srpt: removed rxe0$")
	rdma link delete rxe0 && kmsg_wait_more "ib_srpt: removed rxe0$" "$_n" 60
}
p_device_remove_post() {
	srp_logout_all
	[ -e /sys/class/infiniband/rxe0 ] || rxe_setup
}
p_unload_pre() {
	sw_up && srp_export_teardown 2>/dev/null
	[ ! -d $CFS/srpt ]
}
p_unload_run() { rmmod ib_srpt; }
p_unload_post() { :; }

# ---- the sweep ------------------------------------------------------------------

# sw_expect PATH SITE RC OUT (sweep.sh's hook): a failed REP is answered
# with an SRP_LOGIN_REJ of insufficient resources (0x00010001), not left
# to the bare REJ the IB CM sends as the channel's release destroys its id;
# after any injection on the I/O paths ib_srp has all its credits back,
# but for a receive buffer that could not be posted again: its credit
# stays with it (the initiator is never granted a request the target has
# no buffer for).
sw_expect() {
	case $1:$2 in
	ib_cm_login:ib_cm_rep)
		grep -q "SRP_LOGIN_REJ reason 0x00010001" "$4" && return 0
		echo "the REJ carries no SRP_LOGIN_REJ of insufficient resources"
		return 1
		;;
	io:post_recv | io_noimm:post_recv | io:post_srq_recv | io_noimm:post_srq_recv) ;;
	io:* | io_noimm:*)
		sw_credits_whole 2>&1
		;;
	esac
}

# sw_settle: async work of the step just taken (port refresh, channel
# release) gets its time before the counts are read or the site disarmed.
sw_settle() { sleep "$settle"; }

# sw_channels_clean: no channel of the target left but the witness's, and
# every other channel logged in was released (kernel log).
sw_channels_clean() {
	if [ -e /sys/module/ib_srpt ] && ! sw_channels_are_left; then
		echo "$(srpt_channels) channel(s) left"
		return 1
	fi
	wait_until 30 sw_released_all || { kmsg_sync && sw_released_all; } ||
		{ echo "logged-in channels not all released"; return 1; }
}
# sw_released_all: as many "released" lines as "logged in" lines, less
# the witness's (the log file as it is now: polled).
sw_released_all() {
	[ "$(kmsg_lines "ib_srpt: .*: released$")" = \
		"$(($(kmsg_lines "ib_srpt: .*: logged in from ") - sw_wn))" ]
}

# The witness: an srp-probe login (initiator_ext b1, an ACL of its own)
# that holds its channel through the injections of the paths below, which
# end no channel but their own; it must still be up after each.
witness_paths=" port_event rdma_cm_login ib_cm_login refused_login io io_noimm ibcm_io credit_abuse tmf stats dm logout acl_rmdir "
witness_ext=00000000000000b1
sw_wn=0 sw_wpid=
sw_witness_start() {
	case $witness_paths in *" $1 "*) ;; *) return 0 ;; esac
	sw_up >/dev/null 2>&1 || return 1
	"$probe" -q -x $witness_ext --hold 86400 -e "$(srpt_guid16)" \
		"$SRPT_IP" "$SRPT_CM_PORT" >/tmp/sw.witness 2>&1 &
	sw_wpid=$!
	sw_wn=1
	sw_channels_are_left && return 0
	sed 's/^/# witness: /' /tmp/sw.witness
	sw_witness_stop
	return 1
}
sw_witness_ok() {
	[ -z "$sw_wpid" ] || kill -0 "$sw_wpid" 2>/dev/null && return 0
	echo "the other session ended: $(tail -n 1 /tmp/sw.witness)"
	return 1
}
sw_witness_stop() {
	[ -n "$sw_wpid" ] || return 0
	kill "$sw_wpid" 2>/dev/null
	wait "$sw_wpid" 2>/dev/null
	sw_wpid='' sw_wn=0
	sw_channels_are_left
}

# sw_kmemleak LABEL: a kmemleak scan; ok when it reports nothing new, and
# what it reported is cleared.  Nothing without kmemleak.
sw_kmemleak() {
	_kml=/sys/kernel/debug/kmemleak
	[ -e $_kml ] || return 0
	# Objects younger than 5 s are not reported yet.
	sleep 5
	echo scan >$_kml && echo scan >$_kml
	cat $_kml >/tmp/sw.kmemleak
	echo clear >$_kml
	if [ -s /tmp/sw.kmemleak ]; then
		not_ok "$1: kmemleak reports a leak"
		head -n 40 /tmp/sw.kmemleak | sed 's/^/# /'
	else
		ok "$1: kmemleak clean"
	fi
}

# sw_unload: ib_srpt unloads (a path's last step).
sw_unload() {
	bounded 60 sw_down && [ ! -e /sys/module/ib_srpt ]
}

# ---- main -----------------------------------------------------------------------
if ! ours; then
	ok "# SKIP fault injection is ours only"
	exit 0
fi
rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
ini=$(srp_ini_id)
SRPT_TPG=$CFS/srpt/0x$RXE_GID_HEX/tpgt_1
export SRPT_TPG
# The IB CM test initiator's port id: id_ext 0xa1, then the port GUID.
ibcm_ini=0x00000000000000a1$(echo "$RXE_GID_HEX" | cut -c17-32)
# The witness's (srp-probe -x): initiator_ext b1, then the port GUID.
witness_ini=0x$witness_ext$(echo "$RXE_GID_HEX" | cut -c17-32)
# srp-probe's and srp-hostile's of the srq_imm and credit_abuse paths: c1.
probe_ext=00000000000000c1
probe_ini=0x$probe_ext$(echo "$RXE_GID_HEX" | cut -c17-32)
export ini ibcm_ini witness_ini probe_ini
sw_load || { not_ok "ib_srpt loaded"; exit 1; }
if [ ! -d $fdir/fail ]; then
	ok "# SKIP this kernel has no CONFIG_FAULT_INJECTION_DEBUG_FS (make check-faults runs the debug kernel)"
	rmmod ib_srpt
	exit 0
fi
[ -f "$ibcm_ko" ] || { not_ok "srp_ibcm_ini.ko built for this kernel"; exit 1; }
nsites=$(wc -l <$fdir/sites)
sw_init
cp $fdir/sites /tmp/sw.allsites
calls="every one"
[ "$max_n" = 0 ] || calls="at most $max_n"
[ "$cover" = 0 ] || calls="$calls, once, on the first path that calls it"
diag "mode $mode, paths: $paths; sites: ${sites:-all $nsites}; calls failed per site: $calls"
[ -e /sys/kernel/debug/kmemleak ] && echo clear >/sys/kernel/debug/kmemleak
sw_up || { not_ok "target exported, initiators loaded"; exit 1; }
for p in $paths; do
	if ! command -v "p_${p}_run" >/dev/null 2>&1; then
		not_ok "path $p exists (one of: $all_paths)"
		continue
	fi
	if [ ! -x "$probe" ] || [ ! -x "$hostile" ]; then
		case $p in dm | srq_imm | credit_abuse)
			ok "# SKIP $p: srp-probe not built (make tools)"
			continue
			;;
		esac
	fi
	sw_path "$p"
	[ $? != 2 ] || break
done

sw_summary "$nsites"
