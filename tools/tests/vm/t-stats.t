#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vmtest: timeout=900
# Transport statistics (issue 27 item 2): fabric_statistics/srpt of the
# target port and of a node ACL have their files, all zero at first; a
# login refused for want of a node ACL counts under UNABLE_ESTABLISH on the
# target port (on both of the port's names when its GUID name is
# configured too); an accepted one counts on both; around fio runs of known
# size through ib_srp, the commands by direction and the bytes in and out
# (ACL and target port alike) equal what the disk's own counters
# (/sys/block/X/stat) say the initiator sent, the bytes what fio moved, and
# the read and write latency histograms hold every command; the channel's
# own line in "channels" has the same numbers; a LUN reset (sg_reset -d)
# counts as LUN_RESET; after the logout the totals keep every number, and
# after a second login they are the folded totals plus the new channel's
# line; srp-hostile's RDMA READ with a wrong key counts as many RDMA errors
# as the log reports, and its credit overrun as one credit closure; a LUN
# reset (sg_reset -d) while fio's reads wait in a slow backstore (null_blk
# completing each after 1 s) aborts them: LIO sends no response for them
# and the driver counts each in "aborted", so that the commands LIO
# received for the ACL's mapped LUNs (their num_cmds) are those answered
# (cmds_*) plus the aborted ones, at least one aborted (which ones and
# how many depends on when the reset arrives: no fixed count).
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
if ! ours; then
	ok "# SKIP the statistics are this driver's"
	exit 0
fi
bin=$SRPT_REPO/build/srp-probe

rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
srpt_load || { not_ok "target module loaded"; exit 1; }
srp_initiator_load
ini=$(srp_ini_id)
# Not through run_ok: srp_export_setup exports SRPT_TPG.
if srp_export_setup; then ok "ramdisk exported, no node ACL yet"; else
	not_ok "ramdisk exported"; exit 1; fi
P=$CFS/srpt/0x$RXE_GID_HEX/fabric_statistics/srpt
A=$SRPT_TPG/acls/$ini/fabric_statistics/srpt

common="aborted bytes_in bytes_out channels channels_latency_read_us channels_latency_write_us cmds_none cmds_read cmds_write credit_closures latency_read_us latency_write_us logins_accepted rdma_errors sq_waits tmfs"
# ls_dir DIR: the file names of DIR, sorted, on one line.
# shellcheck disable=SC2012 # configfs attribute names: plain
ls_dir() { (cd "$1" && ls | LC_ALL=C sort | tr '\n' ' '); }
# total DIR: the sum of every number in DIR's files but channels (second
# column of the tables and histograms).
total() {
	for _f in "$1"/*; do
		[ "${_f##*/}" = channels ] && continue
		awk 'NF == 1 { s += $1 } NF == 2 { s += $2 } END { print s + 0 }' "$_f"
	done | awk '{ s += $1 } END { print s + 0 }'
}
# row DIR FILE KEY: the count of line KEY of a table.
row() { awk -v k="$3" '$1 == k { print $2 }' "$1/$2"; }
# hsum DIR FILE: the commands a histogram holds.
hsum() { awk '{ s += $2 } END { print s + 0 }' "$1/$2"; }
# snap DIR: cmds_none cmds_write cmds_read bytes_in bytes_out, the sums of
# the read and write histograms, LUN_RESETs.
snap() {
	echo "$(cat "$1"/cmds_none) $(cat "$1"/cmds_write) $(cat "$1"/cmds_read) $(cat "$1"/bytes_in) $(cat "$1"/bytes_out) $(hsum "$1" latency_read_us) $(hsum "$1" latency_write_us) $(row "$1" tmfs LUN_RESET)"
}
# minus "A..." "B...": B - A, field by field.
minus() {
	# shellcheck disable=SC2086 # two lists of numbers
	set -- $1 $2
	_n=$(($# / 2)) _o=
	_i=1
	while [ $_i -le $_n ]; do
		eval "_a=\${$_i} _b=\${$((_i + _n))}"
		# shellcheck disable=SC2154 # set by the eval
		_o="$_o $((_b - _a))"
		_i=$((_i + 1))
	done
	echo "${_o# }"
}

# 1. The files, all zero.
is "$(ls_dir "$P")" "$(echo "$common" logins_refused | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ')" "target port: fabric_statistics/srpt has its files"
is "$(total "$P")" 0 "target port: every counter is 0"
is "$(wc -l <"$P"/latency_read_us) $(head -n 3 "$P"/latency_read_us | tr '\n' ' ')" "26 0 0 1 0 2 0 " \
	"histogram: 26 buckets, 'bucket_us count' lines (0, 1, 2, 4, ... microseconds)"
is "$(awk '{ print $1 }' "$P"/tmfs | tr '\n' ' ')" "ABORT_TASK ABORT_TASK_SET CLEAR_TASK_SET LUN_RESET CLEAR_ACA OTHER " \
	"tmfs: one line per SRP function and OTHER"

# 2. A login without a node ACL: refused, counted by reason on the port.
run_fails "login without a node ACL is refused" srp_login ch_count=1
is "$(row "$P" logins_refused UNABLE_ESTABLISH) $(awk '{ s += $2 } END { print s }' "$P"/logins_refused) $(cat "$P"/logins_accepted)" "1 1 0" \
	"target port: the refusal counts under UNABLE_ESTABLISH, nothing else"

# 2b. With the port's GUID name configured too (no TPG under it), a login
# refused before a target port took it counts on both of the port's names
# (srpt_count_refused()); the GUID name goes again.
G=$CFS/srpt/$RXE_GUID/fabric_statistics/srpt
if mkdir "$CFS/srpt/$RXE_GUID"; then
	run_fails "login without a node ACL is refused, both port names configured" srp_login ch_count=1
	is "$(row "$P" logins_refused UNABLE_ESTABLISH) $(row "$G" logins_refused UNABLE_ESTABLISH) $(cat "$G"/logins_accepted)" "2 1 0" \
		"the refusal counts on the GID and the GUID name (2 and 1), nothing accepted"
	run_ok "the GUID name removed" rmdir "$CFS/srpt/$RXE_GUID"
else
	not_ok "target port $RXE_GUID (the port's GUID name) created"
fi

# 3. With the ACL: accepted, on both.
srp_acl "$ini"
is "$(ls_dir "$A")" "$common " "node ACL: fabric_statistics/srpt has its files (no logins_refused)"
if srp_login ch_count=1 && disk=$(srp_lun_disk 0 30); then
	ok "login with the ACL ($disk)"
else
	not_ok "login with the ACL"; exit 1
fi
is "$(cat "$P"/logins_accepted) $(cat "$A"/logins_accepted)" "1 1" \
	"logins_accepted: 1 on the target port and on the ACL"
is "$(wc -l <"$A"/channels)" 1 "channels: one line, the ACL's channel"

# 4. fio of known size; the counters against the disk's and fio's.
dev=${disk#/dev/}
echo 2 >/sys/block/"$dev"/queue/nomerges
command -v udevadm >/dev/null && udevadm settle 2>/dev/null
# dstat: reads writes sectors-read sectors-written discards+flushes
dstat() { awk '{ print $1, $5, $3, $7, $12 + $16 }' /sys/block/"$dev"/stat; }
# fio_counted NAME BS SIZE IODEPTH: random reads and writes; sets fio_r
# fio_w (fio's I/Os), d (the disk's counters' deltas), a and p (those of
# the ACL's and the target port's counters, see snap).
fio_counted() {
	_s0=$(dstat) _a0=$(snap "$A") _p0=$(snap "$P")
	fio --name="$1" --filename="$disk" --allow_file_create=0 --rw=randrw --bs="$2" \
		--size="$3" --direct=1 --ioengine=libaio --iodepth="$4" --norandommap \
		--output=/tmp/fio."$1" || { cat /tmp/fio."$1"; return 1; }
	d=$(minus "$_s0" "$(dstat)") a=$(minus "$_a0" "$(snap "$A")") p=$(minus "$_p0" "$(snap "$P")")
	# shellcheck disable=SC2046 # two numbers
	set -- $(sed -n 's/.*issued rwts: total=\([0-9]*\),\([0-9]*\),.*/\1 \2/p' /tmp/fio."$1")
	fio_r=$1 fio_w=$2
}
# check_io NAME BS-BYTES: the deltas against the disk's and fio's.
check_io() {
	_name=$1 _bs=$2
	# shellcheck disable=SC2086 # five numbers
	set -- $d
	d_r=$1 d_w=$2 d_sr=$3 d_sw=$4 d_o=$5
	is "$d_o" 0 "$_name: the disk completed no discard or flush"
	want="0 $d_w $d_r $((d_sw * 512)) $((d_sr * 512)) $d_r $d_w 0"
	is "$a" "$want" "$_name: ACL: cmds_none 0, cmds_write $d_w, cmds_read $d_r (the disk's), bytes_in and bytes_out its sectors, histograms $d_r reads and $d_w writes, no LUN reset"
	is "$p" "$want" "$_name: target port: the same"
	# shellcheck disable=SC2086 # eight numbers
	set -- $a
	is "$5 $4" "$((fio_r * _bs)) $((fio_w * _bs))" "$_name: bytes_out and bytes_in are fio's bytes read and written"
}
if fio_counted small 4k 8m 32; then
	ok "fio: 4 KiB random reads and writes, 8 MiB, 32 in flight ($fio_r + $fio_w I/Os)"
	check_io small 4096
else
	not_ok "fio: 4 KiB random reads and writes"
fi
if fio_counted large 256k 16m 16; then
	ok "fio: 256 KiB random reads and writes, 16 MiB, 16 in flight ($fio_r + $fio_w I/Os)"
	check_io large 262144
else
	not_ok "fio: 256 KiB random reads and writes"
fi
# Since the login, the partition scan's reads too.
is "$(hsum "$A" latency_read_us) $(hsum "$A" latency_write_us)" "$(cat "$A"/cmds_read) $(cat "$A"/cmds_write)" \
	"histograms hold every read and write since the login"
line=$(cat "$A"/channels)
chl=$(echo "$line" | awk '{ for (i = 3; i < NF; i += 2) if ($i == "cmds_read" || $i == "cmds_write" || $i == "bytes_in" || $i == "bytes_out" || $i == "sq_waits") printf "%s %s ", $i, $(i + 1) }')
is "$chl" "cmds_write $(cat "$A"/cmds_write) cmds_read $(cat "$A"/cmds_read) bytes_in $(cat "$A"/bytes_in) bytes_out $(cat "$A"/bytes_out) sq_waits $(cat "$A"/sq_waits) " \
	"channels: the channel's line has the ACL's numbers (one channel)"
diag "channels: $line"

# 5. A LUN reset.
r0=$(row "$A" tmfs LUN_RESET) o0=$(awk '{ s += $2 } END { print s }' "$A"/tmfs)
run_ok "sg_reset -d $disk (LUN reset)" sg_reset -d "$disk"
is "$(($(row "$A" tmfs LUN_RESET) - r0)) $(($(awk '{ s += $2 } END { print s }' "$A"/tmfs) - o0)) $(row "$P" tmfs LUN_RESET)" "1 1 1" \
	"tmfs: one LUN_RESET on the ACL, no other function; the target port's too"

# 6. Logout: the totals keep every number.
before_a=$(snap "$A") before_p=$(snap "$P")
run_ok "logout; the target released its channel" srp_logout_wait
is "$(snap "$A")" "$before_a" "ACL: the counters survive the channel's release"
is "$(snap "$P")" "$before_p" "target port: the counters survive the channel's release"
is "$(wc -c <"$A"/channels)" 0 "channels: empty without a channel"
# A second login: the totals are the folded ones plus the new channel's.
if srp_login ch_count=1 && disk=$(srp_lun_disk 0 30); then
	run_ok "second login: fio 4 KiB, 2 MiB" fio_direct "$disk" 4k 2m
	line=$(cat "$A"/channels)
	live=$(echo "$line" | awk '{ for (i = 3; i < NF; i += 2) if ($i == "cmds_read") r = $(i + 1); else if ($i == "cmds_write") w = $(i + 1) } END { print r + 0, w + 0 }')
	# shellcheck disable=SC2086 # numbers
	set -- $before_a $live
	is "$(cat "$A"/cmds_read) $(cat "$A"/cmds_write) $(cat "$A"/logins_accepted) $(cat "$P"/logins_accepted)" \
		"$(($3 + $9)) $(($2 + ${10})) 2 2" \
		"ACL: cmds_read and cmds_write are the first channel's plus the live one's ($live); 2 logins accepted"
	if [ "${10}" -gt 0 ]; then ok "the second channel counted ${10} writes"; else
		not_ok "the second channel counted its writes (${10})"; fi
	run_ok "second logout" srp_logout_wait
else
	not_ok "second login"
fi

# 7. srp-hostile: an RDMA READ with a wrong key, a credit overrun.
hi=$SRP_HOSTILE_ID
if [ -x "$bin"/srp-hostile ] && srp_hostile_setup; then
	H=$SRPT_TPG/acls/$hi/fabric_statistics/srpt
	g=$(srpt_guid16)
	kmsg_sync
	e0=$(kmsg_count "ib_srpt: $hi-[0-9]*: \(RDMA READ of .* failed\|receive failed\|sending the response for tag .* failed\)")
	pe0=$(cat "$P"/rdma_errors)
	"$bin"/srp-hostile --id-ext "$g" --initiator-id $hi --lun 0 --sq-size 32 \
		--channels-cmd "timeout 10 grep -c '^CID: ' $SRPT_TPG/acls/$hi/info" \
		--case "WRITE whose descriptor has a wrong key" \
		"$SRPT_IP" "$SRPT_CM_PORT" >/tmp/hostile.tap 2>&1
	"$bin"/srp-hostile --id-ext "$g" --initiator-id $hi --lun 0 --sq-size 32 \
		--channels-cmd "timeout 10 grep -c '^CID: ' $SRPT_TPG/acls/$hi/info" \
		--case "credits: more requests" \
		"$SRPT_IP" "$SRPT_CM_PORT" >>/tmp/hostile.tap 2>&1
	srpt_channels_gone 30
	kmsg_sync
	e=$(($(kmsg_count "ib_srpt: $hi-[0-9]*: \(RDMA READ of .* failed\|receive failed\|sending the response for tag .* failed\)") - e0))
	if [ "$e" -gt 0 ]; then
		is "$(cat "$H"/rdma_errors) $(($(cat "$P"/rdma_errors) - pe0))" "$e $e" \
			"rdma_errors: $e on the hostile ACL and the target port, the failed completions the log reports"
	else
		not_ok "srp-hostile's wrong key made an RDMA READ fail (no log line)"
		sed 's/^/# /' /tmp/hostile.tap | head -n 10
	fi
	is "$(cat "$H"/credit_closures) $(cat "$A"/credit_closures)" "1 0" \
		"credit_closures: 1 on the hostile ACL (its credit overrun), 0 on ib_srp's"
else
	not_ok "srp-hostile (make tools) and its ACL"
fi

# 8. Aborted commands: a LUN reset while reads wait in a slow backstore.
# The reset answers once the backstore returned the reads it aborts
# (1 s), within ib_srp's 5 s task management timeout.
# received: the commands LIO received for the ACL's mapped LUNs.
received() {
	cat "$SRPT_TPG/acls/$ini"/lun_*/statistics/scsi_auth_intr/num_cmds |
		awk '{ s += $1 } END { print s + 0 }'
}
# answered DIR: commands answered (cmds_none + cmds_write + cmds_read).
answered() { echo $(($(cat "$1"/cmds_none) + $(cat "$1"/cmds_write) + $(cat "$1"/cmds_read))); }
# inprog: commands in progress on the ACL's channels (its info file).
inprog() {
	sed -n 's/.* \([0-9]*\) commands in progress.*/\1/p' "$SRPT_TPG/acls/$ini/info" |
		awk '{ s += $1 } END { print s + 0 }'
}
idle() { [ "$(inprog)" = 0 ]; }
# gap: received - answered - aborted, constant while nothing is in progress.
gap() { echo $(($(received) - $(answered "$A") - $(cat "$A"/aborted))); }
slow=$CFS/core/iblock_1/slow
if modprobe null_blk nr_devices=1 gb=1 irqmode=2 completion_nsec=1000000000 &&
	wait_until 5 test -b /dev/nullb0 && mkdir -p "$slow" &&
	echo udev_path=/dev/nullb0 >"$slow"/control && echo 1 >"$slow"/enable &&
	srp_lun_add 2 "$slow" && mkdir -p "$SRPT_TPG/acls/$ini/lun_2" &&
	ln -s "$SRPT_TPG"/lun/lun_2 "$SRPT_TPG/acls/$ini/lun_2/lun_2"; then
	ok "LUN 2: null_blk completing each command after 1 s, mapped for ib_srp"
else
	not_ok "LUN 2: a slow null_blk backstore"
fi
if srp_login ch_count=1 && sdisk=$(srp_lun_disk 2 60); then
	ok "login: LUN 2 is $sdisk"
	command -v udevadm >/dev/null && udevadm settle 2>/dev/null
	wait_until 60 idle || diag "the ACL's channel still has $(inprog) commands in progress"
	g0=$(gap) ab0=$(cat "$A"/aborted) pab0=$(cat "$P"/aborted) r0=$(row "$A" tmfs LUN_RESET)
	fio --name=slow --filename="$sdisk" --allow_file_create=0 --rw=randread --bs=4k \
		--size=16m --direct=1 --ioengine=libaio --iodepth=8 --norandommap \
		--time_based --runtime=8 --output=/tmp/fio.slow >/dev/null 2>&1 &
	fpid=$!
	sdev=${sdisk#/dev/}
	# reading: the initiator has reads outstanding on the slow disk.
	reading() { [ "$(awk '{ print $1 }' /sys/block/"$sdev"/inflight)" -gt 0 ]; }
	run_ok "fio's reads are in flight on $sdisk" wait_until 30 reading
	run_ok "sg_reset -d $sdisk (LUN reset) while they wait" sg_reset -d "$sdisk"
	wait "$fpid" || { diag "fio on $sdisk failed:"; sed 's/^/# /' /tmp/fio.slow | head -n 20; }
	run_ok "after fio, no command in progress" wait_until 60 idle
	ab=$(($(cat "$A"/aborted) - ab0)) pab=$(($(cat "$P"/aborted) - pab0))
	if [ "$ab" -ge 1 ]; then ok "aborted: $ab of the reads the LUN reset found in the backstore"; else
		not_ok "aborted: at least 1 read the LUN reset found in the backstore (got $ab)"; fi
	is "$(gap)" "$g0" \
		"aborted: the commands LIO received for the ACL equal those answered plus the $ab aborted"
	is "$pab $(($(row "$A" tmfs LUN_RESET) - r0))" "$ab 1" \
		"aborted: the target port counted the same; one LUN_RESET"
	run_ok "logout" srp_logout_wait
else
	not_ok "login with LUN 2"
fi

run_ok "target teardown" srp_export_teardown
modprobe -r null_blk
run_ok "rmmod after teardown" rmmod ib_srpt
