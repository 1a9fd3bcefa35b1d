#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tools/srp-probe/srp-probe, the userspace SRP initiator: login report,
# REPORT LUNS, INQUIRY, READ CAPACITY, write/read/verify with every
# descriptor format, task management, logout, and its exit codes for a
# rejected login, a port nobody listens on and bad usage; sense data cut to
# a small srp_max_rsp_size; HEAD OF QUEUE and ORDERED reaching LIO.  Runs
# against the in-tree driver too (external tables excepted: it rejects them).
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
probe=$SRPT_REPO/build/srp-probe/srp-probe
[ -x "$probe" ] || { not_ok "srp-probe built (make tools)"; exit 1; }

srp_test_begin
modprobe -a rdma_ucm ib_uverbs
g=$(srpt_guid16)
addr="$SRPT_IP $SRPT_CM_PORT"

# probe EXPECTED-STATUS NAME ARGS...: run srp-probe, check its exit status.
probe() {
	_want=$1 _name=$2
	shift 2
	# shellcheck disable=SC2086
	$probe "$@" >/tmp/probe.out 2>&1
	_st=$?
	if [ "$_st" = "$_want" ]; then ok "$_name"; else
		not_ok "$_name"; diag "exit status $_st, expected $_want"
		sed 's/^/# /' /tmp/probe.out
	fi
}
has() {
	if grep -q -- "$1" /tmp/probe.out; then ok "$2"; else
		not_ok "$2"; diag "no '$1' in:"; sed 's/^/# /' /tmp/probe.out; fi
}

probe 1 "no arguments: usage, status 1"
probe 0 "--help" --help
has "^Exit status: 0 success" "--help lists the exit codes"
probe 1 "no --id-ext: status 1" "$SRPT_IP" "$SRPT_CM_PORT"
# shellcheck disable=SC2086
probe 0 "check the target" -e "$g" $addr
sed 's/^/# /' /tmp/probe.out
if [ "${SRPT_UNDER_TEST:-ours}" = intree ]; then
	# It grants srp_max_req_size, not the 8260 bytes asked for.
	has "^login: accepted: [0-9]* credits, max request IU [0-9]*, max response IU [0-9]*$" "login response shown"
else
	has "^login: accepted: 126 credits, max request IU 8260, max response IU 256$" "login response shown"
fi
has "^login: buffer formats direct indirect" "buffer formats shown"
has "^REPORT LUNS: 1 LUN(s): 0$" "REPORT LUNS"
has "^LUN 0: INQUIRY: type 0x00, vendor 'LIO-ORG " "INQUIRY"
has "^LUN 0: READ CAPACITY(16): 131072 blocks of 512 bytes (64 MiB)$" "READ CAPACITY(16)"
if [ "${SRPT_UNDER_TEST:-ours}" = intree ]; then
	# It logs SRP_I_LOGOUT as not implemented; srp-probe disconnects.
	has "^logout: disconnected$" "logout (the in-tree driver ignores SRP_I_LOGOUT)"
else
	has "^logout: the target closed the channel$" "logout"
fi
for d in direct indirect external; do
	if [ "${SRPT_UNDER_TEST:-ours}" = intree ] && [ $d = external ]; then
		ok "# SKIP the in-tree driver rejects external descriptor tables"
		continue
	fi
	# shellcheck disable=SC2086
	probe 0 "write, read back, compare 2048 blocks with $d descriptors" \
		-q -e "$g" -l 0 -w 2048 -a 4096 -d $d $addr
done
# shellcheck disable=SC2086
probe 0 "write, read back, compare 8 blocks as immediate data" \
	-e "$g" -m 80 -l 0 -w 8 -a 100 -d immediate $addr
has "immediate data granted" "immediate data granted"
# shellcheck disable=SC2086
probe 0 "LUN RESET: function complete" -e "$g" -l 0 -k lun-reset $addr
has "response 0x00 (function complete)" "task management response shown"
# shellcheck disable=SC2086
probe 4 "a LUN that is not there: status 4" -q -e "$g" -l 7 $addr
# shellcheck disable=SC2086
probe 3 "wrong target port id: rejected, status 3" -e 1234 $addr
has "unable to associate RDMA channel with I_T nexus" "reject reason decoded"
# shellcheck disable=SC2086
probe 3 "initiator without an ACL: rejected, status 3" -x 77 -e "$g" $addr
probe 2 "nothing listening on the port: status 2" -t 3 -e "$g" "$SRPT_IP" 1
has "target unreachable\|rejected\|timed out" "the failure is named"

# --logins (the control-path benchmark's tool): N logins at once from one
# process, each holding its channel until --hold ran out, then logging out.
# shellcheck disable=SC2086
$probe -e "$g" --logins 16 --hold 10 $addr >/tmp/many.out 2>&1 &
many=$!
if srpt_channels_are 16 30; then ok "--logins 16: the target holds 16 channels"; else
	not_ok "--logins 16: the target holds 16 channels"; diag "$(srpt_channels) channels"; fi
wait $many
is $? 0 "--logins 16 --hold 10: status 0"
if grep -q "^logins: 16 of 16 accepted, 0 rejected, in [0-9.]* s" /tmp/many.out; then
	ok "--logins 16: its summary counts 16 accepted"; else
	not_ok "--logins 16: its summary counts 16 accepted"; sed 's/^/# /' /tmp/many.out; fi
if srpt_channels_are 0 30; then ok "--logins 16: all logged out"; else
	not_ok "--logins 16: all logged out"; diag "$(srpt_channels) channels"; fi
# shellcheck disable=SC2086
probe 3 "--logins 4 without an ACL: status 3" -x 77 -e "$g" --logins 4 --hold 1 $addr
has "^logins: 0 of 4 accepted, 4 rejected" "--logins 4 without an ACL: its summary counts 4 rejected"

# Sense data and the response IU size: a write past the last block (the
# ramdisk has 131072) gets LOGICAL BLOCK ADDRESS OUT OF RANGE (5/21/00).
# With srp_max_rsp_size 48 (the next login's maximum response IU), 12 bytes
# of sense fit after the 36-byte SRP_RSP header: the sense key, not the
# ASC; the sense length says 12, not what LIO produced.
past="-l 0 -w 8 -a 131072"
# shellcheck disable=SC2086
probe 4 "write past the last block: status 4" -e "$g" $past $addr
has "SCSI status 0x02, sense key 0x5, ASC/ASCQ 0x21/0x00 (sense length [0-9]*, [0-9]* bytes in a [0-9]*-byte SRP_RSP)" \
	"write past the last block: LBA OUT OF RANGE, sense length and bytes shown"
if [ "${SRPT_UNDER_TEST:-ours}" = intree ]; then
	# Seen 2026-12-05: it grants max response IU 8260 (the request IU
	# length) and sends 96 bytes of sense in a 132-byte SRP_RSP built in a
	# 48-byte response buffer.  Not run again: it overruns its buffer.
	ok "# SKIP the in-tree driver bounds sense by the request IU length, not srp_max_rsp_size"
else
	echo 48 >"$SRPT_TPG"/attrib/srp_max_rsp_size
	# shellcheck disable=SC2086
	probe 4 "srp_max_rsp_size 48: write past the last block: status 4" -e "$g" $past $addr
	has "^login: accepted: [0-9]* credits, max request IU [0-9]*, max response IU 48$" \
		"srp_max_rsp_size 48: the login grants 48-byte responses"
	has "SCSI status 0x02, sense key 0x5, no ASC/ASCQ (sense length 12, 12 bytes in a 48-byte SRP_RSP)" \
		"srp_max_rsp_size 48: sense cut to 12 bytes, key kept, length field 12"
	echo 256 >"$SRPT_TPG"/attrib/srp_max_rsp_size
fi

# Task attributes other than SIMPLE reach LIO: its target_handle_task_attr()
# logs (dynamic debug) each HEAD OF QUEUE and ORDERED command it takes; the
# write test's WRITE(16) is opcode 0x8a.
grep -q " /sys/kernel/debug debugfs" /proc/mounts ||
	mount -t debugfs debugfs /sys/kernel/debug
echo "func target_handle_task_attr +p" >/sys/kernel/debug/dynamic_debug/control
for a in head-of-queue:HEAD_OF_QUEUE ordered:ORDERED; do
	msg="Added ${a#*:} for CDB: 0x8a"
	kmsg_sync
	n=$(kmsg_count "$msg")
	# shellcheck disable=SC2086
	probe 0 "task attribute ${a%%:*}: write, read back, compare 8 blocks" \
		-q -e "$g" -l 0 -w 8 -a 8192 --task-attr "${a%%:*}" $addr
	kmsg_sync
	is "$(kmsg_count "$msg")" $((n + 1)) "task attribute ${a%%:*}: LIO logs '$msg' once"
done
echo "func target_handle_task_attr -p" >/sys/kernel/debug/dynamic_debug/control
if srpt_channels_are 0 20; then ok "no channel left behind"; else
	not_ok "no channel left behind"; diag "$(srpt_channels) channels"; fi
