#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The hostile-input suite: tools/srp-probe/srp-hostile logs in as its own
# initiator (its own ACL and LUN) and sends malformed logins, IUs, SRP_CMDs,
# task management requests and RDMA faults, checking the target's exact
# answer to each, while ib_srp's session on another LUN runs fio with
# verify the whole time and must see no error.  Every case must have run:
# srp-hostile's plan must match the cases it reported and, the whole suite
# run, the number it has ($cases).  Ours only unless
# SRPT_HOSTILE_INTREE=1: the in-tree driver of Debian's 6.1.192 oopses on
# the first malformed IU (README, "Hostile input").  At the end the TPG
# disables and the module unloads, each within a bound: a command the
# target never gave back to LIO (issue 24) would hold both for ever.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
if [ "${SRPT_UNDER_TEST:-ours}" = intree ] && [ -z "${SRPT_HOSTILE_INTREE:-}" ]; then
	ok "# SKIP hostile input is run against ours only (SRPT_HOSTILE_INTREE=1 to run it)"
	exit 0
fi
# The cases srp-hostile has: a case that silently stops running (or a
# suite cut short) makes the count differ.
cases=114
bin=$SRPT_REPO/build/srp-probe
[ -x "$bin"/srp-hostile ] || { not_ok "srp-hostile built (make tools)"; exit 1; }

# With use_srq, an SRQ of 8191 buffers and a send queue of 1024 entries:
# the credit overrun case then sends 8000 WRITEs, so that the completions
# of the SRQ's receives can outnumber what a CQ sized for the channel's
# own ring (128 + 1024 + 2) holds; the driver sizes an SRQ channel's CQ for
# the whole SRQ and stops its QP taking receives once the channel is
# closed for ignoring its credits.
if [ -n "${SRPT_HOSTILE_SRQ:-}" ]; then
	if rxe_setup && srpt_load srpt_srq_size=8191; then
		ok "target module loaded with srpt_srq_size=8191"
	else
		not_ok "target module loaded with srpt_srq_size=8191"
		exit 1
	fi
fi
srp_test_begin
hi=$SRP_HOSTILE_ID
run_ok "hostile initiator's ACL $hi with its own LUN" srp_hostile_setup
if [ -n "${SRPT_HOSTILE_SRQ:-}" ]; then
	echo 1024 >"$SRPT_TPG"/attrib/srp_sq_size
	echo 1 >"$SRPT_TPG"/attrib/use_srq
	srq="--srq --sq-size 1024 --credit-burst 8000"
fi
if srp_login && disk=$(srp_lun_disk 0 30); then ok "ib_srp logged in ($disk)"; else
	not_ok "ib_srp logged in"; exit 1; fi
# With use_srq, every completion queue of the driver (ib_srp's channels)
# holds a completion for each SRQ buffer and each send queue entry:
# 8191 + 1024 + 2 at least (rdma_rxe rounds up to 2^n - 1: 16383; the
# CQ sized for the ring alone, 128 + 1024 + 2, read 2047).
if [ -n "${SRPT_HOSTILE_SRQ:-}" ] && ours; then
	cqes=$(rdma resource show cq | sed -n 's/.* cqe \([0-9]*\) .*comm \[ib_srpt\].*/\1/p' | tr '\n' ' ')
	small=$(echo "$cqes" | tr ' ' '\n' | awk 'NF && $1 < 9217' | wc -l)
	if [ -n "$cqes" ] && [ "$small" = 0 ]; then
		ok "SRQ channels' completion queues hold the whole SRQ (entries: $cqes)"
	else
		not_ok "SRQ channels' completion queues hold the whole SRQ (8191 + 1024 + 2)"
		rdma resource show cq | sed 's/^/# /'
	fi
fi
# ib_srp opens one channel per CPU (ch_count); those are to stay.  A count
# of 0 would mean srpt_channels cannot see channels at all, and "the
# hostile initiator's channels are all gone" below would pass for nothing.
base=$(srpt_channels)
if [ "$base" -gt 0 ] 2>/dev/null; then ok "ib_srp's $base channel(s) seen"; else
	not_ok "ib_srp's channels seen (srpt_channels printed '$base')"; exit 1; fi
# How many channels the target has for the hostile initiator (srp-hostile
# checks that it counts the channel a case opened, then that it released
# it: a count blind to channels fails): its ACL's info (ours), all channels but
# ib_srp's (the in-tree driver); a read that blocks for 10 s counts as none
# known.
if ours; then
	chcmd="timeout 10 grep -c '^CID: ' $SRPT_TPG/acls/$hi/info"
else
	chcmd="timeout 10 sh -c '. $SRPT_REPO/tools/vm/srp.sh; echo \$((\$(srpt_channels) - $base))'"
fi

# The well-behaved session: fio with verify, over and over, until told to stop.
rm -f /tmp/bg.stop /tmp/bg.fail /tmp/bg.runs
(
	while [ ! -e /tmp/bg.stop ]; do
		if fio_direct "$disk" 16k 8m >/tmp/bg.fio 2>&1; then
			echo pass >>/tmp/bg.runs
		else
			cat /tmp/bg.fio >>/tmp/bg.fail
		fi
	done
) &
bg=$!
diag "srp-hostile started $(date)"

# shellcheck disable=SC2086 # $srq: no word when unset
"$bin"/srp-hostile --id-ext "$(srpt_guid16)" --initiator-id $hi --lun 0 \
	--max-req-size "$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)" \
	--channels-cmd "$chcmd" ${srq:-} ${SRPT_HOSTILE_CASE:+--case "$SRPT_HOSTILE_CASE"} \
	"$SRPT_IP" "$SRPT_CM_PORT" >/tmp/hostile.tap 2>/tmp/hostile.err
status=$?
diag "srp-hostile finished $(date)"
reported=0 plan=
while IFS= read -r line; do
	case $line in
	"ok "*) ok "${line#* - }"; reported=$((reported + 1)) ;;
	"not ok "*) not_ok "${line#* - }"; reported=$((reported + 1)) ;;
	"#"*) echo "$line" ;;
	1..*) plan=${line#1..} ;;
	esac
done </tmp/hostile.tap
sed 's/^/# /' /tmp/hostile.err
is "$status" 0 "srp-hostile exits 0"
# One case alone (SRPT_HOSTILE_CASE): any number, as long as the plan says it.
want=${SRPT_HOSTILE_CASE:+$reported}
if [ "$plan" = "$reported" ] && [ "$reported" = "${want:-$cases}" ]; then
	ok "srp-hostile's plan: $plan cases, all reported"
else
	not_ok "srp-hostile's plan: '$plan' cases, $reported reported, ${want:-$cases} expected"
fi

# The credit overrun case ends its channel by the credit rule, not by some
# other fault on the way (ours: its log line names the hostile ACL).
overrun="credits: more requests held than credits granted"
case $overrun in
*"${SRPT_HOSTILE_CASE:-}"*)
	if ! ours; then
		ok "# SKIP the credit rule's log line is ours"
	elif kmsg_text | grep -q "$hi-[0-9]*: initiator sent more requests than the 126 credits it was granted; closing the channel"; then
		ok "the credit overrun was closed by the 126-credit rule"
	else
		not_ok "the credit overrun was closed by the 126-credit rule (no log line)"
	fi ;;
esac

touch /tmp/bg.stop
wait $bg
runs=$(grep -c . /tmp/bg.runs 2>/dev/null)
if [ ! -s /tmp/bg.fail ] && [ "${runs:-0}" -ge 1 ]; then
	ok "ib_srp's fio verify saw no error (${runs} passes) while the hostile initiator ran"
else
	not_ok "ib_srp's fio verify saw no error while the hostile initiator ran"
	head -n 20 /tmp/bg.fail 2>/dev/null | sed 's/^/# /'
fi
if srpt_channels_are "$base" 30; then ok "the hostile initiator's channels are all gone"; else
	not_ok "the hostile initiator's channels are all gone"
	rdma resource show cm_id | grep ib_srpt | sed 's/^/# /'
	kmsg_text | grep ib_srpt | tail -n 30 | sed 's/^/# /'
fi
is "$(cat "$SRPT_TPG"/acls/$hi/info)" "No active SRP session" "its ACL shows no session"
run_ok "fio verify after the suite" fio_direct "$disk" 64k 8m
run_ok "logout" srp_logout_wait
# Nothing the suite did holds the target: the TPG disables (every channel
# released) and the configfs tree goes, then the module unloads, each
# within a bound (bounded: a task stuck in the kernel is left behind and
# the checks after it still run).
run_ok "TPG disabled within 30 s" bounded 30 sh -c "echo 0 >$SRPT_TPG/enable"
run_ok "target configuration removed within 60 s" bounded 60 srp_export_teardown
run_ok "rmmod ib_srpt within 60 s" bounded 60 rmmod ib_srpt
