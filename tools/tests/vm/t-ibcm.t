#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The IB CM login path over soft-RoCE, driven by the kernel-side test
# initiator tools/ibcm-initiator/srp_ibcm_ini.ko (ib_srp cannot use IB CM
# over RoCE): REQ with a 64-byte SRP_LOGIN_REQ to srpt_service_guid, REP,
# both QPs through INIT, RTR and RTS (the target's read back with
# ib_query_qp() and logged through dyndbg, PSNs checked against the REQ and
# REP), RTU; the channel in acls/$ini/info and targetcli "sessions" as
# IB_CM; INQUIRY, READ CAPACITY(16), write/read/compare with direct,
# indirect and external-table descriptors; task management; logout by
# SRP_I_LOGOUT, by DREQ, and by DREQ with 32 commands in flight; a REQ
# reusing a live connection's QP number; SINGLE and MULTI second logins;
# the hostile login cases that apply to IB CM, each with its decoded REJ;
# a channel closed by a TPG disable while the initiator holds its RTU;
# srp_max_req_size above 65536: a 65536-byte request IU granted, 65537 not.
# The in-tree driver listens for IB CM only on InfiniBand ports: against
# it, the one check is that its service id is unknown on RoCE.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
ko=${SRPT_IBCM_KO:-$SRPT_REPO/tools/ibcm-initiator/srp_ibcm_ini.ko}
[ -f "$ko" ] || { not_ok "srp_ibcm_ini.ko built (make tools)"; exit 1; }

rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
srpt_load || { not_ok "target module loaded"; exit 1; }
grep -q " /sys/kernel/debug debugfs" /proc/mounts ||
	mount -t debugfs debugfs /sys/kernel/debug
ctl=/sys/kernel/debug/srp_ibcm_ini
run_ok "test initiator loaded" insmod "$ko"
g=$(srpt_guid16)
dst=$SRPT_IP
# Initiator port id: id_ext 0xa1, then the port GUID.
ini=0x00000000000000a1$(echo "$RXE_GID_HEX" | cut -c17-32)

# ibcm LABEL COMMAND...: run one command of the test initiator; its TAP
# lines become ours, prefixed with LABEL; its output stays in /tmp/ibcm.out.
ibcm() {
	_ib_label=$1
	shift
	if ! echo "$*" >$ctl/ctl 2>/tmp/ibcm.err; then
		not_ok "$_ib_label: command '$1' accepted"
		sed 's/^/# /' /tmp/ibcm.err
		: >/tmp/ibcm.out
		return 1
	fi
	cat $ctl/out >/tmp/ibcm.out
	while IFS= read -r _ib_l; do
		case $_ib_l in
		"ok - "*) ok "$_ib_label: ${_ib_l#ok - }" ;;
		"not ok - "*) not_ok "$_ib_label: ${_ib_l#not ok - }" ;;
		*) echo "$_ib_l" ;;
		esac
	done </tmp/ibcm.out
	# A command's report is its checks: comments alone are no result.
	grep -q '^\(not \)\{0,1\}ok - ' /tmp/ibcm.out ||
		not_ok "$_ib_label: '$1' reported a check"
}

if [ "${SRPT_UNDER_TEST:-ours}" = intree ]; then
	srp_export_setup && srp_acl "$ini"
	ibcm "in-tree driver, no IB CM listener on RoCE" \
		login dst=$dst sid="$g" ini="$ini" expect=cmrej:8
	ok "# SKIP the in-tree driver listens for IB CM logins on InfiniBand ports only"
	rmmod srp_ibcm_ini
	srp_export_teardown
	rmmod ib_srpt
	exit 0
fi

if srp_export_setup && srp_acl "$ini"; then
	ok "ramdisk exported, ACL $ini"
else
	not_ok "ramdisk exported, ACL $ini"
	exit 1
fi
srpt_dyndbg srpt_ib_cm_report_qp +p
if kmsg_text | grep -q "ib_srpt: rxe0: listening for IB CM logins on service id 0x$g"; then
	ok "the target listens for IB CM logins on rxe0 (service id 0x$g)"
else
	not_ok "the target listens for IB CM logins on rxe0 (service id 0x$g)"
fi

# --- Login, QP states, PSNs, the channel as administrators see it --------
ibcm "connect" connect dst=$dst sid="$g" ini="$ini"
psn=$(sed -n 's/^# main: psn: //p' /tmp/ibcm.out)
iqp=$(echo "$psn" | sed -n 's/^initiator QP \([0-9]*\),.*/\1/p')
tqp=$(echo "$psn" | sed -n 's/.* target QP \([0-9]*\),.*/\1/p')
req_psn=$(echo "$psn" | sed -n 's/.* REQ PSN \(0x[0-9a-f]*\),.*/\1/p')
rep_psn=$(echo "$psn" | sed -n 's/.* REP PSN \(0x[0-9a-f]*\)$/\1/p')
diag "initiator QP ${iqp:-?}, target QP ${tqp:-?}, REQ PSN ${req_psn:-?}, REP PSN ${rep_psn:-?}"
ch="$ini-$tqp"
# qp_line STEP: the target's dyndbg line for its QP after STEP.
qp_line() {
	kmsg_text | sed -n "s/.*ib_srpt: .*: QP $tqp after $1: //p" | tail -n 1
}
kmsg_wait_more "ib_srpt: $ch: QP $tqp after RTU" 0 20
flags="access flags 0x7 (local write yes, remote read yes, remote write yes), P_Key index 0"
l=$(qp_line INIT)
case $l in
"state INIT, $flags, "*) ok "target QP reached INIT through srpt_init_ch_qp(): $flags" ;;
*) not_ok "target QP reached INIT with local write, remote read, remote write, P_Key index 0"; diag "got: $l" ;;
esac
l=$(qp_line RTR)
case $l in
"state RTR, $flags, receive PSN $rep_psn, "*"destination QP $iqp")
	ok "target QP reached RTR: receive PSN $rep_psn, the REP's starting PSN; destination QP $iqp" ;;
*) not_ok "target QP reached RTR with the REP's starting PSN ($rep_psn) as receive PSN"; diag "got: $l" ;;
esac
l=$(qp_line RTS)
case $l in
"state RTS, $flags, receive PSN $rep_psn, send PSN $req_psn, "*)
	ok "target QP reached RTS: send PSN $req_psn, the REQ's starting PSN" ;;
*) not_ok "target QP reached RTS with the REQ's starting PSN ($req_psn) as send PSN"; diag "got: $l" ;;
esac
l=$(qp_line RTU)
case $l in
"state RTS, "*) ok "target QP still RTS when the RTU arrived" ;;
*) not_ok "target QP still RTS when the RTU arrived"; diag "got: $l" ;;
esac
if kmsg_text | grep -q "ib_srpt: $ch: logged in from GID .* to target port 0x$RXE_GID_HEX over IB CM (IU 4096/256 bytes"; then
	ok "target log: channel $ch logged in over IB CM"
else
	not_ok "target log: channel $ch logged in over IB CM"
fi
info=$SRPT_TPG/acls/$ini/info
wait_until 10 grep -q "^CID: $tqp  Connection State: TARG_CONN_STATE_LOGGED_IN$" "$info"
cat "$info" >/tmp/info
sed 's/^/# info: /' /tmp/info
if grep -q "^CID: $tqp  Connection State: TARG_CONN_STATE_LOGGED_IN$" /tmp/info; then
	ok "info: channel $tqp logged in"
else
	not_ok "info: channel $tqp logged in"
fi
if grep -q "^   Address ${ini#0x} IB_CM$" /tmp/info; then
	ok "info: the channel's address is the initiator port id, transport IB_CM"
else
	not_ok "info: the channel's address is the initiator port id, transport IB_CM"
fi
if grep -q "^   channel $ch on rxe0 port 1, target port 0x$RXE_GID_HEX: [0-9]* credits owed, [0-9]* commands in progress, IU 4096/256 bytes, send queue 4096 (full [0-9]* times), own receive ring$" /tmp/info; then
	ok "info: channel details"
else
	not_ok "info: channel details"
fi
tcli sessions detail >/tmp/sess 2>/dev/null
sed 's/^/# targetcli: /' /tmp/sess
if grep -q "address: ${ini#0x} (IB_CM)  cid: $tqp connection-state: LOGGED_IN" /tmp/sess; then
	ok "targetcli sessions detail: the IB CM connection"
else
	not_ok "targetcli sessions detail: the IB CM connection"
fi

# --- Data, task management, logout by SRP_I_LOGOUT -------------------------
ibcm "io" io lun=0 lba=0 blocks=64
ibcm "tmf" tmf lun=0
ibcm "logout" logout
run_ok "logout: the target released $ch" kmsg_wait_more "ib_srpt: $ch: released" 0 30
is "$(cat "$info")" "No active SRP session" "info after logout"

# --- Logout by DREQ; DREQ with commands in flight ----------------------------
ibcm "connect for DREQ" connect dst=$dst sid="$g" ini="$ini"
ibcm "DREQ" dreq
run_ok "DREQ: every channel released" srpt_channels_gone 30
ibcm "connect for DREQ in flight" connect dst=$dst sid="$g" ini="$ini"
ibcm "DREQ in flight" inflight lun=0 lba=4096 n=32
run_ok "DREQ in flight: every channel released" srpt_channels_gone 60
ibcm "after DREQ in flight: connect" connect dst=$dst sid="$g" ini="$ini"
ibcm "after DREQ in flight: io" io lun=0 lba=8192 blocks=16
ibcm "after DREQ in flight: DREQ" dreq
run_ok "after DREQ in flight: every channel released" srpt_channels_gone 30

# --- Repeated REQs ------------------------------------------------------------
ibcm "connect for stale" connect dst=$dst sid="$g" ini="$ini"
ibcm "REQ reusing a live QP number" stale
run_ok "stale connection: every channel released" srpt_channels_gone 30
ibcm "connect for SINGLE" connect dst=$dst sid="$g" ini="$ini"
ibcm "second login SINGLE" second flags=0 expect=terminated
run_ok "SINGLE: every channel released" srpt_channels_gone 30
ibcm "connect for MULTI" connect dst=$dst sid="$g" ini="$ini"
ibcm "second login MULTI" second flags=1 expect=maintained
ibcm "MULTI: first channel" io lun=0 lba=8192 blocks=8
ibcm "MULTI: first channel DREQ" dreq
run_ok "MULTI: every channel released" srpt_channels_gone 30

# --- Hostile logins over IB CM -----------------------------------------------
max=$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)
wrong=$(printf '%016x' $((0x$g ^ 1)))
login() {
	_lg_label=$1
	shift
	ibcm "$_lg_label" login dst=$dst sid="$g" ini="$ini" "$@"
}
login "IU length 0" it_iu_len=0 expect=rej:0x00010000
login "IU length 63" it_iu_len=63 expect=rej:0x00010000
login "IU length 64" it_iu_len=64 expect=rsp
login "IU length srp_max_req_size ($max)" it_iu_len="$max" expect=rsp
login "IU length srp_max_req_size + 1" it_iu_len=$((max + 1)) expect=rej:0x00010002
login "IU length 2^32 - 1" it_iu_len=4294967295 expect=rej:0x00010002
login "target port id: another GUID twice" tpid="$wrong""$wrong" expect=rej:0x00010003
login "target port id: wrong ioc_guid half" tpid="$g""$wrong" expect=rej:0x00010003
login "target port id: wrong id_ext half" tpid="$wrong""$g" expect=rej:0x00010003
login "no buffer format" buf_fmt=0 expect=rej:0x00010004
login "only reserved buffer formats" buf_fmt=0xfff9 expect=rej:0x00010004
login "direct descriptors only" buf_fmt=2 expect=rsp
login "reserved multichannel action 2" flags=2 expect=rej:0x00010000
login "reserved multichannel action 3" flags=3 expect=rej:0x00010000
login "opcode SRP_CMD instead of SRP_LOGIN_REQ" opcode=2 expect=rej:0x00010000 tag=zero
ibcm "initiator without an ACL" login dst=$dst sid="$g" \
	ini="0x00000000000000a2$(echo "$RXE_GID_HEX" | cut -c17-32)" expect=rej:0x00010000
if kmsg_text | grep -q "create acls/0x00000000000000a2"; then
	ok "initiator without an ACL: the log names the ACL to create"
else
	not_ok "initiator without an ACL: the log names the ACL to create"
fi
login "unknown service id" sid="$wrong" tpid="$g""$g" expect=cmrej:8
run_ok "no channel left behind" srpt_channels_gone 30

# --- A channel closed while the initiator holds its RTU -----------------------
# The target sent its REP and waits for the RTU, the channel IN_LOGIN; the
# TPG is disabled meanwhile.  The RTU goes out once the log says the
# channel is released, as srpt_ch_free() destroys its QP and CM id: an RTU
# the target's CM takes before the id is gone must not find the QP freed
# (issue 24).  The channel must leave the target in bounded time, the
# initiator must get the REJ of the destroyed id (or a DREQ), and the
# kernel must not oops (vmtest's splat check).
ibcm "RTU held" connect dst=$dst sid="$g" ini="$ini" rtu=hold
tqp=$(sed -n 's/^# main: psn: .* target QP \([0-9]*\),.*/\1/p' /tmp/ibcm.out)
ch="$ini-$tqp"
if wait_until 10 grep -q "^CID: $tqp  Connection State: TARG_CONN_STATE_IN_LOGIN$" "$info"; then
	ok "RTU held: info shows channel $tqp IN_LOGIN"
else
	not_ok "RTU held: info shows channel $tqp IN_LOGIN"
	sed 's/^/# info: /' "$info"
fi
kmsg_sync
nrel=$(kmsg_count "ib_srpt: $ch: released$")
rm -f /tmp/tpg-disable.rc
(if echo 0 >"$SRPT_TPG/enable"; then echo 0; else echo failed; fi \
	>/tmp/tpg-disable.rc 2>&1) </dev/null &
run_ok "RTU held: the target released $ch" \
	kmsg_wait_more "ib_srpt: $ch: released$" "$nrel" 30
ibcm "RTU held: RTU after the close" rtu expect=closed
if wait_until 10 test -s /tmp/tpg-disable.rc; then
	is "$(cat /tmp/tpg-disable.rc)" 0 "RTU held: the TPG disable returned, status 0"
else
	not_ok "RTU held: the TPG disable returned within 10 s"
fi
if wait_until 10 grep -q "^No active SRP session$" "$info"; then
	ok "RTU held: info shows no session"
else
	not_ok "RTU held: info shows no session"
	sed 's/^/# info: /' "$info"
fi
# The channel counts until srpt_ch_free() unlisted it, its QP and CM id
# gone: removing the TPG waits for that (srpt_drop_tpg()).  The export is
# set up again for the cases below.
rm -f /tmp/teardown.rc
(srp_export_teardown; echo $? >/tmp/teardown.rc) </dev/null >/tmp/teardown.out 2>&1 &
if wait_until 30 test -s /tmp/teardown.rc; then
	is "$(cat /tmp/teardown.rc)" 0 "RTU held: the TPG removed within 30 s, $ch gone"
	sed 's/^/# /' /tmp/teardown.out
else
	not_ok "RTU held: the TPG removed within 30 s, $ch gone"
	diag "the target is stuck releasing $ch: the cases left would hang"
	exit 1
fi
if srp_export_setup && srp_acl "$ini"; then
	ok "RTU held: ramdisk exported again, ACL $ini"
else
	not_ok "RTU held: ramdisk exported again, ACL $ini"
fi
login "RTU held: a login after the export is set up again" expect=rsp
run_ok "RTU held: no channel left behind" srpt_channels_gone 30

# --- srp_max_req_size above what the driver supports -------------------------
# It loads and reads back as given; the driver uses 65536 and says so in the
# log: a 65536-byte request IU is granted, one byte more is refused.
run_ok "target teardown before srp_max_req_size=70000" srp_export_teardown
run_ok "rmmod ib_srpt before srp_max_req_size=70000" rmmod ib_srpt
cap="srp_max_req_size 70000 (70000 bytes) is more than this driver supports: requests of up to 65536 bytes are accepted"
kmsg_sync
n=$(kmsg_count "$cap")
run_ok "srp_max_req_size=70000 loads" srpt_load srp_max_req_size=70000
is "$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)" 70000 \
	"srp_max_req_size=70000 reads back as given"
kmsg_sync
is "$(kmsg_count "$cap")" $((n + 1)) "srp_max_req_size=70000: the log says 65536 is used"
if srp_export_setup && srp_acl "$ini"; then
	ok "srp_max_req_size=70000: ramdisk exported, ACL $ini"
else
	not_ok "srp_max_req_size=70000: ramdisk exported, ACL $ini"
fi
login "srp_max_req_size 70000: IU length 65536" it_iu_len=65536 expect=rsp
if grep -q "credits, IU 65536/[0-9]* bytes" /tmp/ibcm.out; then
	ok "srp_max_req_size 70000: the login response grants 65536-byte request IUs"
else
	not_ok "srp_max_req_size 70000: the login response grants 65536-byte request IUs"
	sed 's/^/# /' /tmp/ibcm.out
fi
login "srp_max_req_size 70000: IU length 65537" it_iu_len=65537 expect=rej:0x00010002
run_ok "srp_max_req_size 70000: no channel left behind" srpt_channels_gone 30

run_ok "test initiator unloaded" rmmod srp_ibcm_ini
run_ok "target teardown" srp_export_teardown
run_ok "rmmod ib_srpt" rmmod ib_srpt
