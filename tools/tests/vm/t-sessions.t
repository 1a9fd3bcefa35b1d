#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sessions visible to administrators: a node ACL's info file lists its live
# channels (state, address, credits, commands in progress, IU sizes), and
# Debian's targetcli-fb "sessions" command shows them, unchanged.  Ours
# only: the in-tree driver has no info file ("sessions" stays empty).
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
if [ "${SRPT_UNDER_TEST:-ours}" = intree ]; then
	ok "# SKIP the in-tree driver shows no sessions"
	exit 0
fi

srp_test_begin
# shellcheck disable=SC2154 # ini: set by srp_test_begin
info=$SRPT_TPG/acls/$ini/info
# rtslib warns on stderr when configfs was set up without it: keep stdout.
tcli_out() { tcli "$@" 2>/dev/null; }

is "$(cat "$info")" "No active SRP session" "info without a session"
run_is "targetcli sessions: none" 0 "(no open sessions)" tcli_out sessions

if srp_login "ch_count=2" && disk=$(srp_disk 30) && srpt_channels_are 2 10; then
	ok "login with two channels ($disk)"
else
	not_ok "login with two channels"; exit 1
fi
cat "$info" >/tmp/info
sed 's/^/# /' /tmp/info
is "$(grep -c '^CID: [0-9]*  Connection State: TARG_CONN_STATE_LOGGED_IN$' /tmp/info)" 2 \
	"info: two channels, logged in"
is "$(grep -c '^   Address 192.168.123.1 RDMA_CM$' /tmp/info)" 2 "info: their address and transport"
is "$(sed -n 's/^InitiatorName: //p' /tmp/info)" "$ini" "info: initiator name is the ACL's"
if grep -q "^   channel $ini-[0-9]* on rxe0 port 1, target port 0x$RXE_GID_HEX: [0-9]* credits owed, [0-9]* commands in progress, IU 8260/256 bytes, send queue 4096 (full [0-9]* times), own receive ring$" /tmp/info; then
	ok "info: channel details"
else
	not_ok "info: channel details"
fi

tcli sessions detail >/tmp/sess 2>/tmp/sess.err
sed 's/^/# /' /tmp/sess
sid=$(sed -n 's/^LIO Session ID: \([0-9]*\) .*/\1/p' /tmp/info)
if grep -q "^alias: .*sid: $sid type: Normal session-state: LOGGED_IN" /tmp/sess &&
	[ "$(grep -c "address: 192.168.123.1 (RDMA_CM)  cid: [0-9]* connection-state: LOGGED_IN" /tmp/sess)" = 2 ] &&
	grep -q "name: ib.${ini#0x} (NOT AUTHENTICATED)" /tmp/sess &&
	grep -q "mapped-lun: 0 backstore: ramdisk/rd0 mode: rw" /tmp/sess; then
	ok "targetcli sessions detail: the session, its ACL, LUN and two connections"
else
	not_ok "targetcli sessions detail: the session, its ACL, LUN and two connections"
	sed 's/^/# stderr: /' /tmp/sess.err
fi

# Commands in progress show while I/O runs.
bg_fio "$disk" --rw=randread --iodepth=32 --time_based --runtime=20
busy=0
i=0
while [ $i -lt 50 ]; do
	n=$(sed -n 's/.* \([0-9]*\) commands in progress.*/\1/p' "$info" | awk '{ s += $1 } END { print s + 0 }')
	[ "$n" -gt 0 ] && { busy=$n; break; }
	sleep 0.2
	i=$((i + 1))
done
bg_stop
if [ "$busy" -gt 0 ]; then ok "info shows commands in progress under I/O ($busy)"; else
	not_ok "info shows commands in progress under I/O"; fi

run_ok "logout" srp_logout_wait
is "$(cat "$info")" "No active SRP session" "info after logout"
run_is "targetcli sessions after logout" 0 "(no open sessions)" tcli_out sessions
run_ok "target teardown" srp_export_teardown
run_ok "rmmod" rmmod ib_srpt
