#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vmtest: timeout=900
# srpt-stat (issue 27 item 5) on the driver's own statistics, around a fio
# run through ib_srp: 4 KiB random reads and writes held at 100 + 50 IOPS
# for R = 20 s, while "srpt-stat --json -c 1" reports every T = 1 s.
# Its first report (the totals) is the ACL's counters as the files give
# them; the reports that follow add up to what the disk's counters
# (/sys/block/X/stat) say the initiator sent (commands) and what fio moved
# (bytes), for the session, its channel and the target port alike, and
# their latency histograms hold every command.  Its IOPS and bandwidth
# (its own rates of each report, weighted by their intervals) agree with
# fio's: the reports that saw I/O span fio's run and at most
# one refresh interval more at each end (the first and the last of them
# begin before fio or end after it), so over them srpt-stat's rate is
# fio's times R / (R + 2T) at the lowest; at the highest fio's times
# R / (R - T), allowing one interval less for fio's own start and stop.
# The channel rows have latency percentiles of their own (the driver's
# channels_latency_*_us): over the reports the channel's histograms hold
# its reads and writes; each report's percentiles lie inside the
# channel's lowest and highest non-empty buckets, in order; after fio the
# totals report's channel histograms hold its commands and, the session
# having had this one channel, equal the session's, percentiles too.
# The table run meanwhile ("srpt-stat -c 1 2", printed as diagnostics)
# has the session's and the channel's rows, with reads per second and
# the channel's read percentiles.
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/vm/srp.sh"
if ! ours; then
	ok "# SKIP srpt-stat reads this driver's statistics"
	exit 0
fi
st=$SRPT_REPO/tools/srpt-stat/srpt-stat
T=1
R=20

rxe_setup || { not_ok "soft-RoCE set up"; exit 1; }
srpt_load || { not_ok "target module loaded"; exit 1; }
srp_initiator_load
ini=$(srp_ini_id)
if srp_export_setup; then ok "ramdisk exported"; else not_ok "ramdisk exported"; exit 1; fi
srp_acl "$ini"
if srp_login ch_count=1 && disk=$(srp_lun_disk 0 30); then
	ok "login ($disk)"
else
	not_ok "login"; exit 1
fi
dev=${disk#/dev/}
echo 2 >/sys/block/"$dev"/queue/nomerges
command -v udevadm >/dev/null && udevadm settle 2>/dev/null
A=$SRPT_TPG/acls/$ini/fabric_statistics/srpt
tport=0x$RXE_GID_HEX
sess=tpgt_1/$ini

run_ok "srpt-stat --help" "$st" --help

# json_row FILE INDEX PATH: a value of report INDEX of FILE, PATH being
# "tport", "session" or "channel" and a key.
json_row() {
	python3 - "$@" "$tport" "$sess" <<'PY'
import json, sys
f, i, what, key, tport, sess = sys.argv[1:]
r = json.loads(open(f).read().splitlines()[int(i)])
t = [x for x in r["target_ports"] if x["name"] == tport][0]
s = [x for x in t["sessions"] if x["name"] == sess][0]
row = {"tport": t, "session": s, "channel": (s.get("channels") or [{}])[0]}[what]
print(row.get(key))
PY
}
"$st" --json >/tmp/ss.totals 2>&1
is "$(json_row /tmp/ss.totals 0 session cmds_read) $(json_row /tmp/ss.totals 0 session cmds_write) $(json_row /tmp/ss.totals 0 session bytes_out)" \
	"$(cat "$A"/cmds_read) $(cat "$A"/cmds_write) $(cat "$A"/bytes_out)" \
	"srpt-stat without INTERVAL: the session's totals are the ACL's cmds_read, cmds_write, bytes_out"

# dstat: reads writes (completed, the disk's counters).
dstat() { awk '{ print $1, $5 }' /sys/block/"$dev"/stat; }
d0=$(dstat)
"$st" --json -c "$T" >/tmp/ss.json 2>/tmp/ss.err &
ss=$!
lines() { [ -f /tmp/ss.json ] && wc -l </tmp/ss.json || echo 0; }
lines_above() { [ "$(lines)" -gt "$1" ]; }
if wait_until 60 lines_above 0; then ok "srpt-stat --json -c $T: first report"; else
	not_ok "srpt-stat --json -c $T: first report"; cat /tmp/ss.err; fi
# The table, a few seconds into the run.
(sleep 5 && "$st" -c 1 2 >/tmp/ss.txt 2>&1) &
tab=$!
if fio --name=stat --filename="$disk" --allow_file_create=0 --rw=randrw --rwmixread=67 \
	--bs=4k --size=16m --direct=1 --ioengine=libaio --iodepth=4 --norandommap \
	--rate_iops=100,50 --time_based --runtime=$R \
	--output-format=json --output=/tmp/fio.json; then
	ok "fio: 4 KiB random reads and writes at 100 + 50 IOPS for $R s"
else
	not_ok "fio: 4 KiB random reads and writes at 100 + 50 IOPS for $R s"
	cat /tmp/fio.json
fi
d1=$(dstat)
# Two more reports: the last one's first read came after fio ended.
n=$(lines)
wait_until 30 lines_above $((n + 1)) || diag "srpt-stat: no two reports after fio in 30 s"
# (The shell's "Terminated" for the kill is not the test's.)
{ kill "$ss" && wait "$ss"; } 2>/dev/null
wait "$tab"

# What the reports add up to, and fio's numbers: shell assignments.
python3 - /tmp/ss.json /tmp/fio.json "$tport" "$sess" >/tmp/ss.sum 2>&1 <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
try:
    json.loads(lines[-1])
except ValueError:  # the last one cut short by the kill
    lines.pop()
reps = [json.loads(l) for l in lines]
fio = json.load(open(sys.argv[2]))["jobs"][0]
tport, sess = sys.argv[3], sys.argv[4]
keys = ("cmds_read", "cmds_write", "cmds_none", "bytes_out", "bytes_in")
out = {"kinds": " ".join(sorted(set(r["kind"] for r in reps[1:]))),
       "first": reps[0]["kind"], "nrep": len(reps) - 1}
sums = {w: dict.fromkeys(keys + ("lat_r", "lat_w"), 0)
        for w in ("s", "c", "t")}
busy_dt = 0.0
rated = dict.fromkeys(("read_iops", "write_iops", "read_bytes_per_s", "write_bytes_per_s"), 0.0)
busy = []
ordered = True
c_bad = []
c_pcts = 0
for r in reps[1:]:
    t = [x for x in r["target_ports"] if x["name"] == tport][0]
    s = [x for x in t["sessions"] if x["name"] == sess][0]
    for w, row in (("s", s), ("t", t)) + tuple(("c", c) for c in s["channels"]):
        for k in keys:
            sums[w][k] += row.get(k, 0)
        sums[w]["lat_r"] += row.get("latency_read_us", {}).get("count", 0)
        sums[w]["lat_w"] += row.get("latency_write_us", {}).get("count", 0)
    # A channel's percentiles: there with commands, in order, inside the
    # bounds of its lowest and highest non-empty bucket.
    for c in s["channels"]:
        for h in ("latency_read_us", "latency_write_us"):
            lat = c.get(h)
            if lat is None:
                c_bad.append("ch %d: no %s" % (c["ch"], h))
                continue
            p = [lat["p50"], lat["p90"], lat["p99"]]
            if not lat["count"]:
                if p != [None] * 3:
                    c_bad.append("ch %d %s: percentiles without commands" % (c["ch"], h))
                continue
            b = lat["buckets"]
            lo, hi = b[0][0], max(1, 2 * b[-1][0])
            if None in p or not lo <= p[0] <= p[1] <= p[2] <= hi:
                c_bad.append("ch %d %s: %s outside [%s, %s]" % (c["ch"], h, p, lo, hi))
            else:
                c_pcts += 1
    for h in ("latency_read_us", "latency_write_us"):
        p = [s[h]["p50"], s[h]["p90"], s[h]["p99"]]
        if s[h]["count"] and not (None not in p and p[0] <= p[1] <= p[2]):
            ordered = False
    if s["cmds_read"] + s["cmds_write"]:
        busy_dt += r["interval_s"]
        for k in rated:  # srpt-stat's own rates, weighted by their intervals
            rated[k] += s[k] * r["interval_s"]
        busy.append("%.0f/%.0f" % (s["read_iops"], s["write_iops"]))
for w in sums:
    for k, v in sums[w].items():
        out["%s_%s" % (w, k)] = v
out["busy_dt"] = round(busy_dt, 6)
out["busy"] = " ".join(busy)
out["ordered"] = "yes" if ordered else "no"
out["c_bad"] = "; ".join(c_bad) or "none"
out["c_pcts"] = c_pcts
for d, k in (("read", "r"), ("write", "w")):
    out["fio_%s_ios" % k] = fio[d]["total_ios"]
    out["fio_%s_bytes" % k] = fio[d]["io_bytes"]
    out["fio_%s_iops" % k] = fio[d]["iops"]
    out["fio_%s_bw" % k] = fio[d]["bw_bytes"]
    out["fio_%s_runtime" % k] = fio[d]["runtime"] / 1000.0
    out["ss_%s_iops" % k] = round(rated[d + "_iops"] / busy_dt, 3) if busy_dt else 0
    out["ss_%s_bw" % k] = round(rated[d + "_bytes_per_s"] / busy_dt, 1) if busy_dt else 0
for k, v in out.items():
    print("%s='%s'" % (k, v))
PY
sumrc=$?
if [ $sumrc = 0 ]; then
	ok "srpt-stat's reports and fio's JSON read"
	. /tmp/ss.sum
else
	not_ok "srpt-stat's reports and fio's JSON read"
	sed 's/^/# /' /tmp/ss.sum /tmp/ss.err
	exit 1
fi
# shellcheck disable=SC2154 # from /tmp/ss.sum
{
is "$first $kinds" "totals interval" "reports: the totals, then $nrep of an interval"
# shellcheck disable=SC2086 # two numbers each
set -- $d0 $d1
d_r=$(($3 - $1)) d_w=$(($4 - $2))
is "$s_cmds_read $s_cmds_write" "$d_r $d_w" \
	"session: the reports' reads and writes add up to the disk's ($d_r, $d_w; $s_cmds_none others)"
is "$s_bytes_out $s_bytes_in" "$fio_r_bytes $fio_w_bytes" \
	"session: bytes out and in add up to fio's bytes read and written"
is "$s_lat_r $s_lat_w" "$s_cmds_read $s_cmds_write" \
	"session: the latency histograms' differences hold every read and write"
is "$c_cmds_read $c_cmds_write $c_bytes_out $c_bytes_in" "$s_cmds_read $s_cmds_write $s_bytes_out $s_bytes_in" \
	"channel (-c): its rows add up to the session's (one channel)"
is "$t_cmds_read $t_cmds_write $t_bytes_out $t_bytes_in $t_lat_r" "$s_cmds_read $s_cmds_write $s_bytes_out $s_bytes_in $s_lat_r" \
	"target port: its rows add up to the session's (one ACL)"
is "$ordered" yes "every report with commands has p50 <= p90 <= p99"
is "$c_lat_r $c_lat_w" "$c_cmds_read $c_cmds_write" \
	"channel (-c): its latency histograms' differences hold its reads and writes"
if [ "$c_pcts" -gt 0 ] && [ "$c_bad" = none ]; then
	ok "channel (-c): $c_pcts histograms with commands have p50 <= p90 <= p99 inside their buckets, none without commands has any"
else
	not_ok "channel (-c): percentiles present, ordered, inside their buckets ($c_pcts; $c_bad)"
fi
diag "reports with I/O: $busy_dt s, r/s/w/s each: $busy"
diag "fio: reads $fio_r_ios ($fio_r_iops IOPS, $fio_r_bw B/s over $fio_r_runtime s), writes $fio_w_ios ($fio_w_iops IOPS, $fio_w_bw B/s)"
diag "srpt-stat over its reports with I/O: $ss_r_iops and $ss_w_iops IOPS, $ss_r_bw and $ss_w_bw B/s"
}
# within NAME SS FIO RUNTIME: ok when SS (srpt-stat's) lies in
# FIO * [R/(R+2T), R/(R-T)]; the numbers in the test's name.
within() {
	_w=$(python3 -c '
import sys
name, ss, fio, r, t = sys.argv[1], *map(float, sys.argv[2:])
lo, hi = fio * r / (r + 2 * t), fio * r / (r - t)
print("%.1f, fio %.1f, tolerance %.1f..%.1f" % (ss, fio, lo, hi))
sys.exit(not (fio > 0 and lo <= ss <= hi))' "$@" "$T" 2>&1)
	_rc=$?
	if [ $_rc = 0 ]; then ok "$1: srpt-stat $_w"; else not_ok "$1: srpt-stat $_w"; fi
}
# shellcheck disable=SC2154 # from /tmp/ss.sum
{
within "read IOPS" "$ss_r_iops" "$fio_r_iops" "$fio_r_runtime"
within "write IOPS" "$ss_w_iops" "$fio_w_iops" "$fio_w_runtime"
within "read bytes/s" "$ss_r_bw" "$fio_r_bw" "$fio_r_runtime"
within "write bytes/s" "$ss_w_bw" "$fio_w_bw" "$fio_w_runtime"
}

# After fio, idle: the totals of the session and of its one channel.
"$st" --json -c >/tmp/ss.end 2>&1
end=$(python3 - /tmp/ss.end "$tport" "$sess" <<'PY' 2>&1
import json, sys
r = json.loads(open(sys.argv[1]).read())
t = [x for x in r["target_ports"] if x["name"] == sys.argv[2]][0]
s = [x for x in t["sessions"] if x["name"] == sys.argv[3]][0]
c = s["channels"][0]
k = ("count", "p50", "p90", "p99", "buckets")
print(len(s["channels"]), c["latency_read_us"]["count"] == c["cmds_read"],
      c["latency_write_us"]["count"] == c["cmds_write"],
      all(c[h][x] == s[h][x] for h in ("latency_read_us", "latency_write_us") for x in k),
      c["latency_read_us"]["count"], c["latency_read_us"]["p50"], c["latency_read_us"]["p99"])
PY
)
# shellcheck disable=SC2086 # seven words
set -- $end
is "$1 $2 $3 $4" "1 True True True" \
	"totals after fio: one channel; its histograms hold its $5 reads and its writes, equal the session's (read p50 $6, p99 $7 us)"

# The table.
sed 's/^/# /' /tmp/ss.txt
srow=$(awk -v s="$sess" '$1 == s' /tmp/ss.txt | tail -n 1)
crow=$(awk '$1 == "ch"' /tmp/ss.txt | tail -n 1)
rps=$(echo "$srow" | awk '{ print $2 }')
# The channel row: ch N qp Q r/s w/s o/s rMiB/s wMiB/s r_p50 r_p90 r_p99 ...
crp=$(echo "$crow" | awk '{ print $10, $11, $12 }')
if [ -n "$crow" ] && python3 -c "import sys; sys.exit(not float('$rps') > 0)" 2>/dev/null; then
	ok "table: the interval's session row (r/s $rps) and channel row"
else
	not_ok "table: the interval's session row and channel row"
fi
if python3 -c "import sys; p = [float(x) for x in sys.argv[1].split()]; sys.exit(not (len(p) == 3 and 0 < p[0] <= p[1] <= p[2]))" "$crp" 2>/dev/null; then
	ok "table: the channel row's read p50 p90 p99 ($crp us)"
else
	not_ok "table: the channel row's read p50 p90 p99 ('$crp')"
fi

run_ok "logout" srp_logout_wait
run_ok "target teardown" srp_export_teardown
run_ok "rmmod after teardown" rmmod ib_srpt
