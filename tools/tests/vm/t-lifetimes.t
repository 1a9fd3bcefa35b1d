#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vmtest: timeout=1200
# Channel and device lifetimes, each in a loop with the kernel's ib_srp
# over soft-RoCE:
#  1. the RDMA device deleted with live channels under fio, with and
#     without the shared receive queue: the device's SRQ and PD must
#     outlive every channel's QP (a "Destroy of kernel SRQ shouldn't fail"
#     or ib_dealloc_pd warning, or on the debug kernel a KASAN report, fails
#     the splat check), and the target port binds again to the re-added
#     device;
#  2. node ACL removal racing logins (srp-probe's): the rmdir never waits
#     for the initiator to log out, and no channel is left behind;
#  3. TPG disable racing logins: the same;
#  4. task management (LUN resets) while one channel runs fio verify at the
#     queue depth of all its credits, every reset while fio runs; then
#     (ours) requests and a LUN RESET that must wait for a command context,
#     forced with srp-probe --stall, served;
#  5. RDMA device removal racing logins (srp-probe's): no login may use the
#     device after it was freed, and no channel is left behind.
# shellcheck disable=SC2154 # $ini: exported by srp_test_begin
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"

srp_test_begin
at=$SRPT_TPG/attrib
modprobe -a rdma_ucm ib_uverbs

# in_time SECS CMD...: CMD finishes within SECS seconds (it runs in the
# background; a CMD still running then is reported and left to finish).
in_time() {
	_it_s=$1
	shift
	"$@" &
	_it_p=$!
	_it_i=0
	while kill -0 "$_it_p" 2>/dev/null; do
		_it_i=$((_it_i + 1))
		[ $_it_i -le $((_it_s * 10)) ] || return 2
		sleep 0.1
	done
	wait "$_it_p"
}
# wait_bound: the target port is bound to the re-added device again.
bound_msg="target port 0x$RXE_GID_HEX: bound to $RXE_DEV port 1"

# login_races RACE UNDO: sixteen logins by srp-probe, the userspace
# initiator, with RACE D run D seconds into each (D "admitted": once
# srp-probe says the target admitted it); then no channel may be left,
# and UNDO D restores what RACE took away.  Of each pair of logins one
# stays idle once logged in (--hold 60: only the target can end it before
# that: exit 3 rejected or 7 ended) and one writes and reads back 1 MiB,
# so that commands are in flight when the channel ends (exit 3 rejected;
# admitted: 0 the race came after it, 4 a command failed, 7 ended; 5, data
# that came back wrong, or anything else fails).  At least one idle and
# one writing login must have been admitted: a target that rejects every
# login ends no channel.  Failures collect in $bad.
#
# Not ib_srp: when the target ends an ib_srp channel during its SCSI scan,
# or refuses the second channel of a login, Debian 6.1's ib_srp removes
# the target and reads memory it freed (KASAN: use-after-free in
# __ib_process_cq() from srp_destroy_qp() in srp_free_ch_ib(), workqueue
# srp_remove; Documentation/testing.rst), the initiator's bug, which fails
# the debug kernel's splat check whatever the target does.  ib_srp logs in
# and moves data after each set of races (io_after).
probe=$SRPT_REPO/build/srp-probe/srp-probe
g=$(srpt_guid16)
# race_probe hold|write -q|-v: one srp-probe login (-v: its trace too, on
# stderr, unbuffered: "srpi: sent IU" once a writing login was admitted).
race_probe() {
	if [ "$1" = hold ]; then
		"$probe" "$2" --hold 60 -e "$g" "$SRPT_IP" "$SRPT_CM_PORT"
	else
		"$probe" "$2" -l 0 -w 2048 -e "$g" "$SRPT_IP" "$SRPT_CM_PORT"
	fi >/tmp/race.out 2>&1
}
# admitted_seen: srp-probe's output says the target admitted the login
# (hold: "login: accepted", flushed before holding; write: a request sent).
admitted_seen() { grep -qE "^login: accepted|srpi: sent IU" /tmp/race.out; }
login_races() {
	bad=
	_adm_hold=0 _adm_write=0
	for d in 0 0.01 0.02 0.05 0.1 0.2 0.5 admitted; do
		for how in hold write; do
			if [ "$d" = admitted ]; then
				race_probe "$how" -v &
				_lp=$!
				wait_until 30 admitted_seen || bad="$bad not-admitted@$how"
			else
				race_probe "$how" -q &
				_lp=$!
				sleep "$d"
			fi
			"$1" "$d"
			wait "$_lp"
			_st=$?
			case $how:$_st in
			hold:7) _adm_hold=$((_adm_hold + 1)) ;;
			write:0 | write:4 | write:7) _adm_write=$((_adm_write + 1)) ;;
			hold:3 | write:3) ;;
			*)
				bad="$bad $how@$d(exit $_st)"
				sed 's/^/# /' /tmp/race.out
				;;
			esac
			srpt_channels_are 0 30 || bad="$bad channels@$d"
			"$2" "$d"
		done
	done
	diag "logins the target admitted: $_adm_hold of 8 idle, $_adm_write of 8 writing"
	[ "$_adm_hold" -gt 0 ] || bad="$bad no-idle-login-admitted"
	[ "$_adm_write" -gt 0 ] || bad="$bad no-writing-login-admitted"
}
# io_after WHAT SIZE: a login and SIZE of verified 4k I/O after WHAT.
io_after() {
	if srp_login && disk=$(srp_disk 30) && fio_direct "$disk" 4k "$2"; then
		ok "login and verified I/O after $1"
	else
		not_ok "login and verified I/O after $1"
	fi
}

# 1. Device removal with live channels, without and with the SRQ.
bad=
for mode in 0 1 0 1; do
	echo $mode >"$at/use_srq" || bad="$bad use_srq=$mode"
	if ! srp_login || ! disk=$(srp_disk 30); then
		bad="$bad login(srq=$mode)"
		break
	fi
	# Writes until they fail; their fate after the removal is t-faults'
	# check, here they only keep the channels busy.
	bg_fio "$disk" --time_based --runtime=300
	wait_until 30 disk_busy "$disk" || bad="$bad idle(srq=$mode)"
	# Counts from here on: the log file lags (kmsg_sync), and the lines
	# of the rounds before are in it too.
	kmsg_sync || bad="$bad kmsg-sync(srq=$mode)"
	bound_n=$(kmsg_count "$bound_msg")
	removed_n=$(kmsg_count "ib_srpt: removed $RXE_DEV$")
	rdma link delete "$RXE_DEV" || bad="$bad delete(srq=$mode)"
	# The device is gone only once every channel's QP was destroyed; ours
	# says so once per removal (the in-tree driver logs nothing then).
	if ours; then
		kmsg_wait_more "ib_srpt: removed $RXE_DEV$" "$removed_n" ||
			bad="$bad not-removed(srq=$mode)"
	fi
	bg_stop
	srp_logout_all || bad="$bad logout(srq=$mode)"
	rxe_setup || bad="$bad re-add(srq=$mode)"
	srp_port_ready 30 || bad="$bad no-ib_srp-port(srq=$mode)"
	if ours; then
		kmsg_wait_more "$bound_msg" "$bound_n" || bad="$bad rebind(srq=$mode)"
	fi
done
is "$bad" "" "RDMA device deleted 4 times with live channels under fio (SRQ off and on), re-added, target port bound again"
echo 0 >"$at/use_srq"
io_after "the device removals" 8m
run_ok "logout" srp_logout_wait

# 2. Node ACL removal racing logins.  The login is started in the
# background; the ACL goes away at a different point of it each round.
# acl_race D: remove the node ACL D seconds into a login.
acl_race() {
	in_time 20 srp_acl_remove "$ini"
	_rc=$?
	[ "$_rc" = 0 ] || bad="$bad rmdir@$1($_rc)"
}
# acl_back D: the ACL again, once an rmdir that waited for the logout ended.
acl_back() {
	if [ "$_rc" = 2 ]; then
		in_time 60 sh -c "while [ -d '$SRPT_TPG/acls/$ini' ]; do sleep 0.1; done"
	fi
	srp_acl "$ini" || bad="$bad acl@$1"
}
login_races acl_race acl_back
is "$bad" "" "node ACL removed at 8 points of 16 srp-probe logins (idle and writing, some admitted): rmdir returns within 20 s, no channel left"
io_after "the ACL races" 4m
run_ok "logout" srp_logout_wait

# 3. TPG disable racing logins.
tpg_off() { in_time 20 sh -c "echo 0 >'$SRPT_TPG/enable'" || bad="$bad disable@$1"; }
tpg_on() { echo 1 >"$SRPT_TPG/enable" || bad="$bad enable@$1"; }
login_races tpg_off tpg_on
is "$bad" "" "TPG disabled at 8 points of 16 srp-probe logins (idle and writing, some admitted): within 20 s, no channel left"
io_after "the TPG races" 4m
run_ok "logout" srp_logout_wait

# 4. LUN resets while one channel keeps every credit busy: ib_srp's queue
# holds as many commands as the target grants credits.  Each reset must
# come while fio runs (its pid alive before and after the reset), and fio
# must verify every block.  Whether a request then waits for a command
# context is up to when the target handles send completions; 4b forces it.
# fio's 8 loops outlast the 8 resets (about 10 s) with a margin: with 4,
# it ended 13 s after the last reset on 6.1 under QEMU 7.2 but 0 s after
# it on Debian 13's 6.12 under QEMU 10 (multi-threaded TCG), and the
# check failed "after#8" (2026-12-07).
if srp_login "ch_count=1,queue_size=128" && disk=$(srp_disk 30); then
	ok "login with one channel and a queue of 128"
else
	not_ok "login with one channel and a queue of 128"
fi
fio --name=tmf --filename="$disk" --allow_file_create=0 --size=32m --rw=randrw --bs=4k --direct=1 \
	--ioengine=libaio --iodepth=128 --verify=crc32c --do_verify=1 \
	--loops=8 --output=/tmp/tmf.out &
fp=$!
fio_runs() { kill -0 "$fp" 2>/dev/null; }
bad=
idle=
for i in 1 2 3 4 5 6 7 8; do
	sleep 1
	fio_runs || idle="$idle before#$i"
	sg_reset --device "$disk" >/dev/null 2>&1 || bad="$bad reset#$i"
	fio_runs || idle="$idle after#$i"
done
# How long fio went on after the last reset (a margin to watch, no check).
_t=0
while fio_runs; do
	sleep 1
	_t=$((_t + 1))
done
diag "fio ran about $_t s after the last LUN reset"
if wait "$fp"; then ok "fio verify at queue depth 128 across 8 LUN resets"; else
	not_ok "fio verify at queue depth 128 across 8 LUN resets"
	grep -E "err=|verify|error" /tmp/tmf.out | head -n 10 | sed 's/^/# /'
fi
is "$idle" "" "fio was running before and after each LUN reset"
is "$bad" "" "every LUN reset succeeded"
run_ok "logout" srp_logout_wait

# 4b. Requests, a LUN RESET among them, that wait for a command context
# (ours).  A channel has 128 contexts and grants 126 credits; a credit
# comes back with the response, the context only once the response's send
# completed.  srp-probe --stall posts one receive buffer: once it took one
# response, every later response waits (receiver not ready) on the
# target's send queue of 16 entries, holding its context.  srp-probe sends
# a TEST UNIT READY per credit; "built": the target holds 126 contexts
# and answered more than its send queue takes (the ACL's info: "full N
# times"), so it owes those credits.  Then three TEST UNIT READYs and a
# LUN RESET: two take the last contexts, two wait (dyndbg: "no free
# command context"), "waiting" sees both.  Then
# srp-probe posts its receive buffers; every request, the LUN RESET too,
# must be answered.
if ours; then
	sq0=$(cat "$at/srp_sq_size")
	echo 16 >"$at/srp_sq_size" || diag "srp_sq_size 16 not taken"
	run_ok "dyndbg: srpt_get_cmd's message on" srpt_dyndbg srpt_get_cmd +p
	kmsg_sync || diag "kmsg_sync failed"
	w0=$(kmsg_count "no free command context; a request waits")
	cat >/tmp/stall-ask <<-EOF
		#!/bin/sh
		. "$SRPT_REPO/tools/vm/lib.sh"
		. "$SRPT_REPO/tools/vm/srp.sh"
		info=$SRPT_TPG/acls/$ini/info
		built() {
			grep -qE "126 commands in progress, .*send queue 16 \\(full [1-9][0-9]* times\\)" "\$info"
		}
		waiting() {
			grep -q "128 commands in progress" "\$info" && kmsg_sync &&
				[ "\$(kmsg_count "no free command context; a request waits")" -ge $((w0 + 2)) ]
		}
		wait_until 60 "\$1" && exit 0
		echo "# stall-ask \$1: not reached; the ACL's info:"
		sed 's/^/# /' "\$info"
		exit 1
	EOF
	chmod +x /tmp/stall-ask
	if out=$("$probe" -q --stall /tmp/stall-ask -l 0 -e "$g" "$SRPT_IP" "$SRPT_CM_PORT" 2>&1); then
		ok "a TEST UNIT READY and a LUN RESET waited for a command context (all 128 held, 126 by answers not yet taken) and were served"
	else
		not_ok "a TEST UNIT READY and a LUN RESET waited for a command context (all 128 held, 126 by answers not yet taken) and were served (srp-probe exit $?)"
	fi
	[ -z "$out" ] || echo "$out" | sed 's/^/# /'
	kmsg_sync && diag "requests that waited for a command context: $(($(kmsg_count "no free command context; a request waits") - w0))"
	srpt_dyndbg srpt_get_cmd -p
	srpt_channels_are 0 30 || diag "srp-probe's channel still there"
	echo "$sq0" >"$at/srp_sq_size"
fi

# 5. Device removal racing logins.  A connect request in flight while the
# device goes away must find it gone, or hold it until the login is
# decided: the RDMA/CM keeps its listener until after the driver's remove
# callback, and a request that used the device after srpt_remove_one()
# freed it is a use-after-free (KASAN on the debug kernel).
# The deletion starts D seconds after srp-probe sent its login request
# (its -v line), while the target's connect request handler runs.
sent() { grep -q "srpi: sending the login request" /tmp/race.out; }
bad=
for d in 0 0.01 0.02 0.05 0.1 0.2 0.5; do
	for how in hold write; do
		if [ "$how" = hold ]; then
			"$probe" -v --hold 60 -e "$g" "$SRPT_IP" "$SRPT_CM_PORT"
		else
			"$probe" -v -l 0 -w 2048 -e "$g" "$SRPT_IP" "$SRPT_CM_PORT"
		fi >/tmp/race.out 2>&1 &
		_lp=$!
		wait_until 30 sent || bad="$bad unsent@$d"
		sleep "$d"
		kmsg_sync || bad="$bad kmsg-sync@$d"
		bound_n=$(kmsg_count "$bound_msg")
		in_time 30 rdma link delete "$RXE_DEV" || bad="$bad delete@$d"
		wait "$_lp"
		_st=$?
		# 2: the device was gone before the request reached it.
		case $how:$_st in
		hold:2 | hold:3 | hold:7 | write:0 | write:2 | write:3 | write:4 | write:7) ;;
		*)
			bad="$bad $how@$d(exit $_st)"
			sed 's/^/# /' /tmp/race.out
			;;
		esac
		srpt_channels_are 0 30 || bad="$bad channels@$d"
		rxe_setup || bad="$bad re-add@$d"
		if ours; then
			kmsg_wait_more "$bound_msg" "$bound_n" || bad="$bad rebind@$d"
		fi
	done
done
is "$bad" "" "RDMA device deleted at 7 points of 14 srp-probe logins (idle and writing): within 30 s, no channel left, target port bound again"
srp_port_ready 30 || diag "ib_srp's port not ready after the re-adds"
io_after "the device removal races" 4m
run_ok "logout" srp_logout_wait
run_ok "teardown" srp_export_teardown
run_ok "rmmod" srpt_unload
