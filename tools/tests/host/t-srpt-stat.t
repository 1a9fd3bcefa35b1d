#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# srpt-stat (tools/srpt-stat, in ib-srpt-tools) against fake configfs
# trees: a target port with three node ACLs, read once (the totals
# report), then, for the second report, a tree where one ACL did known
# I/O over two channels (one of them new), one was removed and created
# again (its counters smaller: they count from 0) and one is gone.  The
# second report's counters are the differences, its rates those
# differences over its own interval_s, and its latency percentiles the
# exact values a histogram_quantile() interpolation gives for the
# difference of the histograms (the first tree's buckets are elsewhere, so
# percentiles of the running totals would differ), per session and per
# channel (channels_latency_*_us: a line per channel, its non-empty
# buckets only; a line of a channel "channels" does not list is left
# out); the table shows the
# same; the root without the driver, without statistics (the in-tree
# driver) or without target ports, and bad arguments, are told apart.
# The tree is switched between the two reads by renaming a symbolic link
# (one rename, seconds before the second read).  SRPT_STAT names another
# srpt-stat to test (to see this test fail against a broken one).
# shellcheck source=tools/tests/host/tap.sh
. "$(dirname "$0")/tap.sh"

stat=${SRPT_STAT:-$top/tools/srpt-stat/srpt-stat}
T=0xfe80000000000000505400fffe4a0b7b
A1=0x0000000000000000505400fffe123456
A2=0x00000000000000000000000000000002
A3=0x00000000000000000000000000000003

# hist FILE "BUCKET:COUNT ...": a latency histogram, 26 "B N" lines.
hist() {
	_b=0
	while [ "$_b" -le 16777216 ]; do
		_c=0
		for _p in $2; do [ "${_p%%:*}" = "$_b" ] && _c=${_p#*:}; done
		echo "$_b $_c"
		if [ "$_b" = 0 ]; then _b=1; else _b=$((_b * 2)); fi
	done >"$1"
}
# table FILE NAMES "NAME:COUNT ...": a "name count" table.
table() {
	for _n in $2; do
		_c=0
		for _p in $3; do [ "${_p%%:*}" = "$_n" ] && _c=${_p#*:}; done
		echo "$_n $_c"
	done >"$1"
}
tmf_names="ABORT_TASK ABORT_TASK_SET CLEAR_TASK_SET LUN_RESET CLEAR_ACA OTHER"
rej_names="UNABLE_ESTABLISH NO_RESOURCES IT_IU_LEN_TOO_LARGE UNABLE_ASSOCIATE UNSUPPORTED_FMT NO_MULTICHANNEL CHANNEL_LIMIT"
# stats DIR LOGINS NONE WRITE READ BYTES_IN BYTES_OUT SQ_WAITS TMFS RHIST WHIST:
# a fabric_statistics/srpt directory (channels: empty; see chan).
stats() {
	mkdir -p "$1"
	echo "$2" >"$1/logins_accepted"
	echo "$3" >"$1/cmds_none"
	echo "$4" >"$1/cmds_write"
	echo "$5" >"$1/cmds_read"
	echo "$6" >"$1/bytes_in"
	echo "$7" >"$1/bytes_out"
	echo "$8" >"$1/sq_waits"
	for _f in aborted rdma_errors credit_closures; do echo 0 >"$1/$_f"; done
	table "$1/tmfs" "$tmf_names" "$9"
	hist "$1/latency_read_us" "${10}"
	hist "$1/latency_write_us" "${11}"
	: >"$1/channels"
	: >"$1/channels_latency_read_us"
	: >"$1/channels_latency_write_us"
}
# chan DIR ID QPN NONE WRITE READ BYTES_IN BYTES_OUT: a line of channels.
chan() {
	echo "ch $2 name $A1-$3 cmds_none $4 cmds_write $5 cmds_read $6 bytes_in $7 bytes_out $8 tmfs 0 aborted 0 rdma_errors 0 sq_waits 0 credit_closures 0" >>"$1/channels"
}
# chlat DIR ID QPN RHIST WHIST: the channel's lines of the channel
# histograms, "B N" pairs of the buckets given ("B:N ...").
chlat() {
	echo "ch $2 name $A1-$3 $(echo "$4" | tr ':' ' ')" >>"$1/channels_latency_read_us"
	echo "ch $2 name $A1-$3 $(echo "$5" | tr ':' ' ')" >>"$1/channels_latency_write_us"
}
# tree DIR: the parts of a target's configfs that are no statistics.
tree() {
	mkdir -p "$1/discovery_auth" "$1/$T/info" "$1/$T/param" "$1/$T/tpgt_1/attrib" \
		"$1/$T/tpgt_1/lun/lun_0" "$1/$T/tpgt_1/np" "$1/$T/tpgt_1/param"
	echo 0.1 >"$1/version"
	echo 0 >"$1/discovery_auth/rdma_cm_port"
	echo "bound to rxe0 port 1" >"$1/$T/info/status"
	echo 1 >"$1/$T/tpgt_1/enable"
}
S=fabric_statistics/srpt
# is GOT EXPECTED NAME: ok when equal, both as diagnostics otherwise.
is() {
	n=$((n + 1))
	if [ "$1" = "$2" ]; then echo "ok $n - $3"; else
		echo "not ok $n - $3"; echo "# got      '$1'"; echo "# expected '$2'"; fi
}
acl() { echo "$1/$T/tpgt_1/acls/$2/$S"; }

# The first tree.
c1=$tmp/cfs1
tree "$c1"
stats "$c1/$T/$S" 3 5 40 310 163840 1269760 1 "LUN_RESET:1" "2:10 8:300" "32:40"
table "$c1/$T/$S/logins_refused" "$rej_names" "UNABLE_ESTABLISH:2"
stats "$(acl "$c1" $A1)" 1 5 0 300 0 1228800 1 "LUN_RESET:1" "8:300" ""
chan "$(acl "$c1" $A1)" 3 18 5 0 300 0 1228800
chlat "$(acl "$c1" $A1)" 3 18 "8:300" ""
stats "$(acl "$c1" $A2)" 1 0 40 0 163840 0 0 "" "" "32:40"
stats "$(acl "$c1" $A3)" 1 0 0 10 0 40960 0 "" "2:10" ""
# The second: A1 did 200 reads (4 KiB), 100 writes (8 KiB), 2 without
# data, over channel 3 (150, 60, 1) and the new channel 4 (50, 40, 1); A2
# was created again and did 4 writes; A3 is gone.
c2=$tmp/cfs2
tree "$c2"
stats "$c2/$T/$S" 5 7 144 510 999424 2088960 1 "LUN_RESET:1" \
	"2:10 8:300 64:100 128:80 1024:20" "32:44 256:100"
table "$c2/$T/$S/logins_refused" "$rej_names" "UNABLE_ESTABLISH:3"
stats "$(acl "$c2" $A1)" 2 7 100 500 819200 2048000 1 "LUN_RESET:1" \
	"8:300 64:100 128:80 1024:20" "256:100"
chan "$(acl "$c2" $A1)" 3 18 6 60 450 491520 1843200
chan "$(acl "$c2" $A1)" 4 19 1 40 50 327680 204800
# Channel 3's 150 reads: 100 in [64, 128), 50 in [128, 256); its 60
# writes in [256, 512); channel 4's 50 reads: 30 in [128, 256), 20 in
# [1024, 2048); its 40 writes in [256, 512).  Channel 5 logged in after
# "channels" was read: no row.
chlat "$(acl "$c2" $A1)" 3 18 "8:300 64:100 128:50" "256:60"
chlat "$(acl "$c2" $A1)" 4 19 "128:30 1024:20" "256:40"
chlat "$(acl "$c2" $A1)" 5 20 "2:7" ""
stats "$(acl "$c2" $A2)" 1 0 4 0 16384 0 0 "" "" "32:4"

# flat FILE: every value of every report of srpt-stat --json, one
# "REPORT.PATH VALUE" a line: rows by name (a session under its target
# port, a channel as chN under its session), lists as JSON.
flat() {
	/usr/bin/python3 - "$1" <<'PY'
import json, sys
def walk(p, v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k in ("target_ports", "sessions", "channels"):
                for r in x:
                    walk(p + "." + (r["name"] if "ch" not in r else "ch%d" % r["ch"]), r)
            elif k != "name":
                walk(p + "." + k, x)
    else:
        print(p, json.dumps(v, separators=(",", ":")))
for i, line in enumerate(open(sys.argv[1])):
    walk(str(i), json.loads(line))
PY
}
# val KEY: the value of KEY in $tmp/flat.
val() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/flat"; }
# vals PREFIX KEY...: "KEY=value ..." of PREFIX.KEY each.
vals() {
	_p=$1
	shift
	for _k; do printf '%s=%s ' "$_k" "$(val "$_p.$_k")"; done
}

# Run the JSON and the text report at once on the first tree, then
# switch to the second.
ln -s cfs1 "$tmp/cfs"
timeout 60 "$stat" --root "$tmp/cfs" --json -c -p 50,90,99,99.9 2 2 >"$tmp/json" 2>"$tmp/json.err" &
jpid=$!
timeout 60 "$stat" --root "$tmp/cfs" -c 2 2 >"$tmp/text" 2>"$tmp/text.err" &
tpid=$!
# first_reports: both printed their first report (the first tree's).
first_reports() {
	_i=0
	while [ $_i -lt 300 ]; do
		[ -s "$tmp/json" ] && grep -q '^$' "$tmp/text" && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}
if first_reports; then
	ln -s cfs2 "$tmp/cfs.new" && mv -T "$tmp/cfs.new" "$tmp/cfs"
	first=yes
else
	first=no
	cat "$tmp/json.err" "$tmp/text.err" | sed 's/^/# /'
fi
is "$first" yes "srpt-stat printed the first report (JSON and text) within 30 s"
wait $jpid
jrc=$?
wait $tpid
trc=$?
check "INTERVAL 2 COUNT 2: two reports, exit 0 (JSON, text)" \
	sh -c "cat '$tmp/json.err' '$tmp/text.err'; [ $jrc = 0 ] && [ $trc = 0 ] &&
		[ \$(wc -l <'$tmp/json') = 2 ] && [ \$(grep -c '^target port' '$tmp/text') = 2 ]"
flat "$tmp/json" >"$tmp/flat" 2>&1

# The first report: the first tree's totals.
r="0.$T.tpgt_1/$A1"
is "$(val 0.kind) $(val 0.interval_s) $(val 0.$T.iops)" '"totals" null ' \
	"first report: kind totals, no interval, no rates"
is "$(grep -c "^0\.$T\.[^.]*\.cmds_read " "$tmp/flat")" 3 "first report: three sessions (the tree's ACLs)"
is "$(vals "$r" cmds_read cmds_write cmds_none bytes_out bytes_in nr_channels)" \
	"cmds_read=300 cmds_write=0 cmds_none=5 bytes_out=1228800 bytes_in=0 nr_channels=1 " \
	"first report, session $A1: its counters, one channel"
# 300 reads in the bucket [8, 16): p50 8 + 8 * 150/300.
is "$(vals "$r.latency_read_us" count p50 p90 p99 p99.9)" \
	"count=300 p50=12.0 p90=15.2 p99=15.92 p99.9=15.99 " \
	"first report, $A1: read percentiles of the whole histogram"
is "$(vals "$r.latency_write_us" count p50)" "count=0 p50=null " \
	"first report, $A1: no writes, no write percentiles"
is "$(vals "$r.ch3.latency_read_us" count p50 p90 p99 p99.9) $(vals "$r.ch3.latency_write_us" count p50)" \
	"count=300 p50=12.0 p90=15.2 p99=15.92 p99.9=15.99  count=0 p50=null " \
	"first report, channel 3: its own read and write percentiles"
# 10 in [2, 4), 300 in [8, 16): rank 155 is the 145th of the 300.
is "$(vals "0.$T.latency_read_us" count p50)" "count=310 p50=11.87 " \
	"first report, target port: p50 = 8 + 8 * 145/300"

# The second report: the differences.
r="1.$T.tpgt_1/$A1"
is "$(val 1.kind)" '"interval"' "second report: kind interval"
dt=$(val 1.interval_s)
check "second report: interval_s is a positive number ($dt)" \
	/usr/bin/python3 -c "import sys; sys.exit(not float('$dt') > 0)"
is "$(grep "^1\.$T\.[^.]*\.nr_channels " "$tmp/flat" | cut -d' ' -f1 | tr '\n' ' ')" \
	"1.$T.tpgt_1/$A2.nr_channels 1.$T.tpgt_1/$A1.nr_channels " \
	"second report: the sessions of the second tree ($A3 is gone)"
is "$(vals "$r" cmds_read cmds_write cmds_none bytes_out bytes_in sq_waits nr_channels)" \
	"cmds_read=200 cmds_write=100 cmds_none=2 bytes_out=819200 bytes_in=819200 sq_waits=0 nr_channels=2 " \
	"$A1: 200 reads, 100 writes, 2 others, 800 KiB each way, no new send queue wait, 2 channels"
# rates PREFIX: reads, writes and others per second and bytes per
# second are the counters over interval_s (rounded as srpt-stat rounds).
rates() {
	/usr/bin/python3 - "$dt" "$(vals "$1" cmds_read cmds_write cmds_none bytes_out bytes_in read_iops write_iops other_iops iops read_bytes_per_s write_bytes_per_s)" <<'PY'
import sys
dt = float(sys.argv[1])
v = {k: float(x) for k, x in (w.split("=") for w in sys.argv[2].split())}
want = {"read_iops": v["cmds_read"] / dt, "write_iops": v["cmds_write"] / dt,
        "other_iops": v["cmds_none"] / dt,
        "iops": (v["cmds_read"] + v["cmds_write"] + v["cmds_none"]) / dt,
        "read_bytes_per_s": v["bytes_out"] / dt, "write_bytes_per_s": v["bytes_in"] / dt}
print(sys.argv[2])
sys.exit(any(abs(v[k] - w) > 0.05 for k, w in want.items()))
PY
}
check "$A1: read, write, other IOPS and read, write bytes/s are the counters over interval_s" rates "$r"
check "target port: the same" rates "1.$T"
check "channel 3: the same" rates "$r.ch3"
# Reads 100 in [64, 128), 80 in [128, 256), 20 in [1024, 2048).
is "$(vals "$r.latency_read_us" count p50 p90 p99 p99.9 buckets)" \
	"count=200 p50=128.0 p90=256.0 p99=1945.6 p99.9=2037.76 buckets=[[64,100],[128,80],[1024,20]] " \
	"$A1: read percentiles of the histogram's difference (p99 = 1024 + 1024 * 18/20)"
is "$(vals "$r.latency_write_us" count p50 p90 p99)" "count=100 p50=384.0 p90=486.4 p99=509.44 " \
	"$A1: write percentiles, 100 writes in [256, 512)"
is "$(vals "$r.ch3" cmds_read cmds_write cmds_none bytes_out bytes_in)" \
	"cmds_read=150 cmds_write=60 cmds_none=1 bytes_out=614400 bytes_in=491520 " \
	"channel 3: its own differences"
is "$(vals "$r.ch4" cmds_read cmds_write cmds_none bytes_out bytes_in)" \
	"cmds_read=50 cmds_write=40 cmds_none=1 bytes_out=204800 bytes_in=327680 " \
	"channel 4, new: all it counted"
is "$(vals "$r.ch3.latency_read_us" count p50 p90 p99 p99.9 buckets)" \
	"count=150 p50=112.0 p90=217.6 p99=252.16 p99.9=255.62 buckets=[[64,100],[128,50]] " \
	"channel 3: read percentiles of its histogram's difference (p50 = 64 + 64 * 75/100, p90 = 128 + 128 * 35/50)"
is "$(vals "$r.ch3.latency_write_us" count p50 p90 p99)" "count=60 p50=384.0 p90=486.4 p99=509.44 " \
	"channel 3: write percentiles, 60 writes in [256, 512)"
is "$(vals "$r.ch4.latency_read_us" count p50 p90 p99 buckets) $(vals "$r.ch4.latency_write_us" count p50)" \
	"count=50 p50=234.67 p90=1792.0 p99=2022.4 buckets=[[128,30],[1024,20]]  count=40 p50=384.0 " \
	"channel 4, new: percentiles of all it counted (p90 = 1024 + 1024 * 15/20)"
is "$(grep -c "^1\.$T\.tpgt_1/$A1\.ch5\." "$tmp/flat")" 0 \
	"channel 5, in the histogram files but not in channels: no row"
is "$(vals "1.$T.tpgt_1/$A2" cmds_write bytes_in latency_write_us.p50 latency_write_us.p99)" \
	"cmds_write=4 bytes_in=16384 latency_write_us.p50=48.0 latency_write_us.p99=63.68 " \
	"$A2, created again (counters below the old ones): its new counters"
is "$(vals "1.$T" cmds_read cmds_write bytes_in logins_accepted logins_refused.UNABLE_ESTABLISH logins_refused.NO_RESOURCES tmfs.LUN_RESET)" \
	"cmds_read=200 cmds_write=104 bytes_in=835584 logins_accepted=2 logins_refused.UNABLE_ESTABLISH=1 logins_refused.NO_RESOURCES=0 tmfs.LUN_RESET=0 " \
	"target port: its differences, refused logins by reason"
# Writes 4 in [32, 64), 100 in [256, 512): rank 52 is the 48th of 100.
is "$(vals "1.$T.latency_write_us" count p50 p90 p99)" "count=104 p50=378.88 p90=485.38 p99=509.34 " \
	"target port: write percentiles across two buckets"

# The table: the same sessions, channels and percentiles (rounded).
sed -n '/totals since/,/^$/p' "$tmp/text" >"$tmp/text0"
sed -n '/interval .* s;/,/^$/p' "$tmp/text" >"$tmp/text1"
# row FILE LABEL: the fields of the row LABEL (first field) of a table.
row() { awk -v l="$2" '$1 == l { $1 = ""; print substr($0, 2) }' "$1"; }
check "table: totals header, columns reads writes other rMiB wMiB, r_ and w_ p50 p90 p99" \
	sh -c "cat '$tmp/text0'; head -n 1 '$tmp/text0' | grep -q 'totals since each target port and node ACL was created' &&
		sed -n 2p '$tmp/text0' | tr -s ' ' | grep -qx 'target port / session reads writes other rMiB wMiB r_p50 r_p90 r_p99 w_p50 w_p90 w_p99'"
is "$(row "$tmp/text0" "tpgt_1/$A1")" "300 0 5 1.17 0.00 12 15 16 - - -" \
	"table, totals: $A1's counts, MiB and percentiles"
check "table: interval header, columns r/s w/s o/s rMiB/s wMiB/s" \
	sh -c "cat '$tmp/text1'; head -n 1 '$tmp/text1' | grep -q 'interval [0-9.]* s; latency percentiles in us' &&
		sed -n 2p '$tmp/text1' | tr -s ' ' | grep -qx 'target port / session r/s w/s o/s rMiB/s wMiB/s r_p50 r_p90 r_p99 w_p50 w_p90 w_p99'"
is "$(row "$tmp/text1" "tpgt_1/$A1" | cut -d' ' -f6-)" "128 256 1946 384 486 509" \
	"table, interval: $A1's percentiles"
is "$(awk '$1 == "ch" { print $1, $2, $3, $4 }' "$tmp/text1" | tr '\n' ' ')" "ch 3 qp 18 ch 4 qp 19 " \
	"table, -c: a row per channel, by number and QP"
is "$(awk '$1 == "ch" && $2 == 3 { $1 = $2 = $3 = $4 = ""; print }' "$tmp/text1" | cut -d' ' -f10-)" "112 218 252 384 486 509" \
	"table, interval: channel 3's read and write percentiles"
is "$(awk '$1 == "ch" && $2 == 4 { print $10, $11, $12, $13 }' "$tmp/text1")" "235 1792 2022 384" \
	"table, interval: channel 4's"

# Without INTERVAL: one report of the totals, then exit.
check "no INTERVAL: one report (JSON), exit 0" \
	sh -c "'$stat' --root '$c1' --json >'$tmp/one' && [ \$(wc -l <'$tmp/one') = 1 ] && grep -q '\"kind\": \"totals\"' '$tmp/one'"
check "-y 0.2 1: one report, of an interval" \
	sh -c "'$stat' --root '$c1' --json -y 0.2 1 >'$tmp/one' && [ \$(wc -l <'$tmp/one') = 1 ] && grep -q '\"kind\": \"interval\"' '$tmp/one'"
# Roots: none, the in-tree driver's (no statistics), no target port.
check "no such root: exit 1, a message naming it" \
	sh -c "'$stat' --root '$tmp/none' 2>'$tmp/err'; rc=\$?; cat '$tmp/err'
		[ \$rc = 1 ] && grep -q 'none: No such file or directory (is ib_srpt loaded' '$tmp/err'"
mkdir -p "$tmp/intree/$T/tpgt_1"
check "target ports without statistics (in-tree ib_srpt): exit 1, says so" \
	sh -c "'$stat' --root '$tmp/intree' 2>'$tmp/err'; rc=\$?; cat '$tmp/err'
		[ \$rc = 1 ] && grep -q 'in-tree ib_srpt keeps no statistics' '$tmp/err'"
mkdir -p "$tmp/empty/discovery_auth"
check "no target port: a report saying so, exit 0" \
	sh -c "'$stat' --root '$tmp/empty' >'$tmp/out0' && grep -qx 'no target port' '$tmp/out0'"
fails "INTERVAL 0 is refused" "$stat" --root "$c1" 0
fails "--percentiles 0,50 is refused" "$stat" --root "$c1" -p 0,50
echo "1..$n"
