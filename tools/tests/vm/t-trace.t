#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vmtest: timeout=600
# Trace events (srpt_trace.h, issue 27): the ten events of the ib_srpt
# system are in tracefs and perf's list; a login refused for want of a
# node ACL shows its reason and the port ids; between two trace markers
# around fio runs of known size through ib_srp, the SRP_CMD and response
# events equal the commands the disk's own counters say the initiator
# sent, with the right opcode, direction and status, their lengths add up
# to fio's bytes, and at 4 KiB they equal the I/Os fio issued (at 256 KiB
# the block layer splits I/Os at the disk's segment limit); a 32-entry
# send queue shows its full/resume pairs, and the count the channel's
# release event carries; a LUN reset (sg_reset -d) shows as a TMF and its response; an
# RDMA READ with a wrong key (srp-hostile) as a work completion error; a
# logout as the channel's states in order; with the events disabled a
# login, fio and logout write nothing.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
if ! ours; then
	ok "# SKIP the trace events are this driver's"
	exit 0
fi
T=/sys/kernel/tracing
bin=$SRPT_REPO/build/srp-probe

rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
srpt_load || { not_ok "target module loaded"; exit 1; }
srp_initiator_load
ini=$(srp_ini_id)
# Not through run_ok: srp_export_setup exports SRPT_TPG.
if srp_export_setup; then ok "ramdisk exported, no node ACL yet"; else
	not_ok "ramdisk exported"; exit 1; fi
[ -e $T/trace ] || mount -t tracefs nodev $T ||
	{ not_ok "tracefs mounted"; exit 1; }

# tr_clear: empty the trace buffers.  tr_mark TEXT: a trace marker.
# tr_between A B: the trace lines between markers A and B.
tr_clear() { echo >$T/trace; }
tr_mark() { echo "t-trace: $1" >$T/trace_marker; }
tr_between() {
	awk -v a="tracing_mark_write: t-trace: $1\$" -v b="tracing_mark_write: t-trace: $2\$" \
		'$0 ~ a { on = 1; next } $0 ~ b { on = 0 } on' $T/trace
}
# tr_lost: events the ring buffer dropped or overwrote since the clear.
tr_lost() {
	cat $T/per_cpu/cpu*/stats | awk '/^(overrun|dropped events):/ { s += $NF } END { print s + 0 }'
}
# count PATTERN FILE: lines of FILE matching the extended regex PATTERN.
count() { grep -cE "$1" "$2"; }

# 1. The events.
want="srpt_ch_released srpt_ch_state srpt_cmd_recv srpt_login_accepted srpt_login_rejected srpt_rsp_send srpt_sq_full srpt_sq_resume srpt_tmf_recv srpt_wc_error"
# shellcheck disable=SC2010 # event directories: plain names
is "$(ls $T/events/ib_srpt | grep -v '^enable$\|^filter$' | sort | tr '\n' ' ')" "$want " \
	"tracefs: the ten events of the ib_srpt system"
if command -v perf >/dev/null; then
	is "$(perf list 'ib_srpt:*' 2>/dev/null | grep -c 'ib_srpt:srpt_.*Tracepoint event')" 10 \
		"perf list shows the ten tracepoints"
else
	ok "# SKIP perf is not installed"
fi
is "$(cat $T/events/ib_srpt/enable)" 0 "the events are disabled after loading"

echo 16384 >$T/buffer_size_kb
echo 1 >$T/tracing_on
echo 1 >$T/events/ib_srpt/enable
tr_clear

# 2. A login without a node ACL: refused, and the trace says why.
run_fails "login without a node ACL is refused" srp_login ch_count=1
g=$(srpt_guid16)
# The peer is where ib_srp connected from: veth0 itself (rxe0 loops back).
rej="srpt_login_rejected: RDMA/CM login on rxe0 port 1 from [0-9.]* rejected: reason 0x00010000 UNABLE_ESTABLISH \(no node ACL admits it in an enabled TPG\); initiator $ini target 0x$g$g\$"
if grep -qE "$rej" $T/trace; then
	ok "the trace shows the refusal: $(grep -E "$rej" $T/trace | head -n 1 | sed 's/.*srpt_login_rejected: //')"
else
	not_ok "the trace shows the refusal, reason and port ids"
	grep ib_srpt $T/trace | head -n 5 | sed 's/^/# /'
fi
is "$(grep -c 'srpt_login_accepted:\|srpt_ch_state:' $T/trace)" 0 \
	"no channel was created for it"

# 3. With the ACL: accepted; the channel goes live.  A 32-entry send queue,
#    so that larger commands wait for room (section 5).
echo 32 >"$SRPT_TPG"/attrib/srp_sq_size
srp_acl "$ini"
tr_clear
if srp_login ch_count=1 && disk=$(srp_lun_disk 0 30); then
	ok "login with the ACL ($disk)"
else
	not_ok "login with the ACL"; exit 1
fi
acc=$(grep "srpt_login_accepted: .* RDMA/CM login on rxe0 port 1 to 0x$RXE_GID_HEX: initiator $ini target 0x$g$g; IU [0-9]*/256, 126 credits, sq 32" $T/trace)
ch=$(echo "$acc" | sed -n 's/.*srpt_login_accepted: ch \([0-9]*\) .*/\1/p' | head -n 1)
if [ -n "$ch" ] && [ "$(echo "$acc" | wc -l)" = 1 ]; then
	ok "one login accepted event: channel $ch, initiator and target port ids, 126 credits, send queue 32"
else
	not_ok "one login accepted event with the port ids"
	grep ib_srpt $T/trace | head -n 5 | sed 's/^/# /'
	exit 1
fi
wait_until 10 grep -q "srpt_ch_state: ch $ch .*: connecting -> live" $T/trace
run_ok "channel $ch: connecting -> live" grep -q "srpt_ch_state: ch $ch .*: connecting -> live" $T/trace

# 4. fio of known size.  No merging, so that each 4 KiB I/O fio issues is
#    one SCSI command; the disk's counters (/sys/block/X/stat: reads,
#    writes, discards, flushes completed) count what the initiator sent.
dev=${disk#/dev/}
echo 2 >/sys/block/"$dev"/queue/nomerges
command -v udevadm >/dev/null && udevadm settle 2>/dev/null
# stat: reads writes discards+flushes
stat3() { awk '{ print $1, $5, $12 + $16 }' /sys/block/"$dev"/stat; }
# fio_counted NAME BS SIZE IODEPTH: random reads and writes, counted; sets
# fio_r fio_w (issued, from fio) and d_r d_w d_o (the disk's counters).
fio_counted() {
	_s0=$(stat3)
	tr_mark "$1 start"
	fio --name="$1" --filename="$disk" --allow_file_create=0 --rw=randrw --bs="$2" \
		--size="$3" --direct=1 --ioengine=libaio --iodepth="$4" --norandommap \
		--output=/tmp/fio."$1" || { cat /tmp/fio."$1"; return 1; }
	tr_mark "$1 end"
	_s1=$(stat3)
	# "issued rwts: total=R,W,T,D short=..."
	# shellcheck disable=SC2046 # two numbers
	set -- $(sed -n 's/.*issued rwts: total=\([0-9]*\),\([0-9]*\),.*/\1 \2/p' /tmp/fio."$1")
	fio_r=$1 fio_w=$2
	# shellcheck disable=SC2086 # three numbers each
	set -- $_s0 $_s1
	d_r=$(($4 - $1)) d_w=$(($5 - $2)) d_o=$(($6 - $3))
}
# check_io NAME BS-BYTES OPREAD OPWRITE: the events between NAME's markers
# against what the initiator sent (the disk's counters) and what fio did
# (its bytes: the block layer may split an I/O into several commands).
check_io() {
	tr_between "$1 start" "$1 end" >/tmp/tr."$1"
	is "$d_o" 0 "$1: the disk completed no discard or flush"
	n=$((d_r + d_w))
	is "$(count ' srpt_cmd_recv: ' /tmp/tr."$1")" "$n" \
		"$1: $n srpt_cmd_recv events, one per command the disk completed"
	is "$(count ' srpt_rsp_send: ' /tmp/tr."$1")" "$n" "$1: $n srpt_rsp_send events"
	is "$(count " srpt_cmd_recv: ch $ch tag 0x[0-9a-f]+ lun 0 opcode $3 read [0-9]+ bytes, .* err 0\$" /tmp/tr."$1") $(count " srpt_cmd_recv: ch $ch tag 0x[0-9a-f]+ lun 0 opcode $4 write [0-9]+ bytes, .* err 0\$" /tmp/tr."$1")" \
		"$d_r $d_w" "$1: commands: $d_r of opcode $3 (read), $d_w of opcode $4 (write)"
	# shellcheck disable=SC2016 # awk's $i
	sum='{ for (i = 1; i < NF; i++) if ($(i + 1) == "bytes,") s += $i } END { print s + 0 }'
	is "$(grep " srpt_cmd_recv: .* read " /tmp/tr."$1" | awk "$sum") $(grep " srpt_cmd_recv: .* write " /tmp/tr."$1" | awk "$sum")" \
		"$((fio_r * $2)) $((fio_w * $2))" "$1: their data lengths add up to fio's bytes read and written"
	is "$(count " srpt_rsp_send: ch $ch tag 0x[0-9a-f]+ lun 0 opcode $3 read [0-9]+ bytes after DATA-IN: status GOOD sense 0/00/00 resid 0 flags 0x00 tmf 0 " /tmp/tr."$1") $(count " srpt_rsp_send: ch $ch tag 0x[0-9a-f]+ lun 0 opcode $4 write [0-9]+ bytes: status GOOD sense 0/00/00 resid 0 flags 0x00 tmf 0 " /tmp/tr."$1")" \
		"$d_r $d_w" "$1: responses: GOOD, DATA-IN before those of the reads"
	sed -n 's/.* srpt_cmd_recv: ch \([0-9]*\) tag \(0x[0-9a-f]*\) .*/\1 \2/p' /tmp/tr."$1" | sort >/tmp/tags.cmd
	sed -n 's/.* srpt_rsp_send: ch \([0-9]*\) tag \(0x[0-9a-f]*\) .*/\1 \2/p' /tmp/tr."$1" | sort >/tmp/tags.rsp
	run_ok "$1: each command's tag has one response" cmp /tmp/tags.cmd /tmp/tags.rsp
}
if fio_counted small 4k 8m 32; then
	ok "fio: 4 KiB random reads and writes, 8 MiB, 32 in flight ($fio_r + $fio_w I/Os)"
	# One 4 KiB I/O is one command: the events equal fio's I/Os.
	is "$d_r $d_w" "$fio_r $fio_w" "small: the disk completed the I/Os fio issued, no more"
	check_io small 4096 0x28 0x2a
else
	not_ok "fio: 4 KiB random reads and writes"
fi

# 5. 256 KiB commands through the 32-entry send queue: they wait for room,
#    each wait is resumed, none is lost.
if fio_counted large 256k 32m 16; then
	ok "fio: 256 KiB random reads and writes, 32 MiB, 16 in flight ($fio_r + $fio_w I/Os)"
	# The block layer splits a 256 KiB direct I/O whose pages are not
	# contiguous at the disk's segment limit: more commands than I/Os.
	q=/sys/block/$dev/queue
	diag "large: fio issued $fio_r + $fio_w I/Os, the disk completed $d_r + $d_w (max_segments $(cat "$q"/max_segments), max_segment_size $(cat "$q"/max_segment_size), max_sectors_kb $(cat "$q"/max_sectors_kb))"
	check_io large 262144 0x28 0x2a
	full=$(count " srpt_sq_full: ch $ch " /tmp/tr.large)
	resume=$(count " srpt_sq_resume: ch $ch " /tmp/tr.large)
	if [ "$full" -gt 0 ] && [ "$full" = "$resume" ]; then
		ok "send queue full $full times, each followed by its resume"
	else
		not_ok "send queue full and resumed (full $full, resume $resume)"
	fi
else
	not_ok "fio: 256 KiB random reads and writes"
fi

# 6. A LUN reset: the TMF and its response.
tr_mark "reset start"
run_ok "sg_reset -d $disk (LUN reset)" sg_reset -d "$disk"
tr_mark "reset end"
tr_between "reset start" "reset end" >/tmp/tr.reset
tmf=$(grep -E " srpt_tmf_recv: ch $ch tag 0x[0-9a-f]+ lun 0 LUN_RESET task_tag 0x[0-9a-f]+ err 0\$" /tmp/tr.reset)
tag=$(echo "$tmf" | sed -n 's/.* tag \(0x[0-9a-f]*\) lun.*/\1/p')
if [ -n "$tag" ] && [ "$(echo "$tmf" | wc -l)" = 1 ]; then
	ok "srpt_tmf_recv: LUN_RESET of LUN 0, tag $tag"
	run_ok "srpt_rsp_send: its response, function complete" \
		grep -qE " srpt_rsp_send: ch $ch tag $tag .* tmf 1 resp 0x00\$" /tmp/tr.reset
else
	not_ok "srpt_tmf_recv: one LUN_RESET"
	grep ib_srpt /tmp/tr.reset | head -n 5 | sed 's/^/# /'
fi

# 7. An RDMA error: srp-hostile's WRITE whose descriptor has a wrong key;
#    the target's RDMA READ of its DATA-OUT fails.
hi=$SRP_HOSTILE_ID
if [ -x "$bin"/srp-hostile ] && srp_hostile_setup; then
	tr_mark "rdma start"
	"$bin"/srp-hostile --id-ext "$g" --initiator-id $hi --lun 0 --sq-size 32 \
		--channels-cmd "timeout 10 grep -c '^CID: ' $SRPT_TPG/acls/$hi/info" \
		--case "WRITE whose descriptor has a wrong key" \
		"$SRPT_IP" "$SRPT_CM_PORT" >/tmp/hostile.tap 2>&1
	tr_mark "rdma end"
	tr_between "rdma start" "rdma end" >/tmp/tr.rdma
	werr=$(grep -E " srpt_wc_error: ch [0-9]+ qp [0-9]+: rdma-read tag 0x[0-9a-f]+ failed: status [0-9]+ \(" /tmp/tr.rdma)
	wtag=$(echo "$werr" | sed -n 's/.* tag \(0x[0-9a-f]*\) failed.*/\1/p' | head -n 1)
	if [ -n "$wtag" ] &&
		grep -qE " srpt_cmd_recv: ch [0-9]+ tag $wtag lun 0 opcode 0x2a write 4096 bytes, [a-z]+ x[0-9]+, .* err 0\$" /tmp/tr.rdma; then
		ok "srpt_wc_error: the RDMA READ of the WRITE with tag $wtag failed:$(echo "$werr" | head -n 1 | sed 's/.*failed://')"
	else
		not_ok "srpt_wc_error for the RDMA READ with a wrong key"
		sed 's/^/# /' /tmp/hostile.tap | head -n 5
		grep ib_srpt /tmp/tr.rdma | head -n 8 | sed 's/^/# /'
	fi
else
	not_ok "srp-hostile (make tools) and its ACL"
fi

# 8. Logout: the channel's states in order, then its release, which counts
#    the send queue waits the trace showed.
run_ok "logout; the target released its channels" srp_logout_wait
states=$(grep -E " srpt_(ch_state|ch_released): ch $ch " $T/trace |
	sed -n 's/.*: \([a-z]* -> [a-z]*\)$/\1/p; s/.*: \(released\), .*/\1/p' | tr '\n' ';')
is "$states" "connecting -> live;live -> disconnecting;disconnecting -> draining;released;" \
	"channel $ch: connecting -> live -> disconnecting -> draining, released"
waits=$(sed -n "s/.* srpt_ch_released: ch $ch .*send queue full \([0-9]*\) times\$/\1/p" $T/trace)
is "$waits" "$(grep -c " srpt_sq_full: ch $ch " $T/trace)" \
	"its release counts the srpt_sq_full events ($waits)"
is "$(tr_lost)" 0 "the ring buffer lost no event"

# 9. Disabled: a login, fio and logout write nothing (the marker shows the
#    trace itself is on).
echo 0 >$T/events/ib_srpt/enable
tr_clear
tr_mark "disabled"
if srp_login ch_count=1 && disk=$(srp_lun_disk 0 30); then
	run_ok "events disabled: fio 4 KiB, 4 MiB" fio_direct "$disk" 4k 4m
	run_ok "events disabled: logout" srp_logout_wait
else
	not_ok "events disabled: login"
fi
is "$(grep -c 'tracing_mark_write: t-trace: disabled' $T/trace) $(grep -c ' srpt_' $T/trace)" "1 0" \
	"events disabled: the trace has the marker and no ib_srpt event"

echo 0 >$T/tracing_on
echo 1408 >$T/buffer_size_kb
echo 4096 >"$SRPT_TPG"/attrib/srp_sq_size
run_ok "target teardown" srp_export_teardown
run_ok "rmmod after teardown" rmmod ib_srpt
