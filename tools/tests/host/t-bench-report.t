#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tools/bench/report.py (make bench's report) on synthetic guest results,
# each data set built to show one flaw of issue 26 (items 20-23) if it came
# back: runs without fio output that vanished, ratios in two directions,
# odd rounds and no A/A experiment, CPU and I/O counted over different
# windows, a timed-out close recorded as a time.  And bench.sh refuses an
# odd BENCH_ROUNDS before it boots anything (run from a copy of the tree
# with a stub vmtest).  BENCH_REPORT=FILE runs another report.py on the
# same data (an old one, to see these checks fail).
# shellcheck source=tools/tests/host/tap.sh
. "$(dirname "$0")/tap.sh"
report=${BENCH_REPORT:-$top/tools/bench/report.py}

# dataset NAME ROUNDS WORKLOADS [BACKENDS]: an empty result set in
# $tmp/NAME (res: what guest.sh writes; out: params and vmtest.log, as
# bench.sh leaves them); one configuration, nullio ch_count 1 imm 1.
dataset() {
	d=$tmp/$1
	mkdir -p "$d/res/fio" "$d/res/perf" "$d/out"
	cat >"$d/out/params" <<EOF
BENCH_RUNTIME=5
BENCH_ROUNDS=$2
BENCH_BACKENDS="${4-nullio}"
BENCH_CH="1"
BENCH_IMM="1"
BENCH_WORKLOADS="$3"
BENCH_PROFILE=""
BENCH_PERF_HZ=499
BENCH_LOGINS="64"
BENCH_LOGIN_ROUNDS=1
BENCH_WARMUP=3
BENCH_A_KO=""
BENCH_FIO_CPUS=""
EOF
	printf 'driver\tbackend\tch\timm\tworkload\tround\tpos\tfile\tbusy_ticks\tctxt\tsoftirq\tksoftirqd\tios\thz\n' >"$d/res/runs.tsv"
	echo "ok 1 - throughput matrix measured" >"$d/out/vmtest.log"
}
# fio_json FILE IOPS: a fio --output-format=json result of IOPS reads/s.
fio_json() {
	printf '{"jobs": [{"read": {"iops": %s, "bw_bytes": %s}, "write": {"iops": 0, "bw_bytes": 0}}]}\n' \
		"$2" "$(($2 * 4096))" >"$1"
}
# run DRIVER WORKLOAD ROUND IOPS [BUSY IOS]: a row of runs.tsv of the
# last dataset, with its fio JSON unless IOPS is "-" (fio wrote nothing);
# BUSY ticks at 100 Hz and IOS I/Os over the window of the counters.
run() {
	f="$1-nullio-ch1-imm1-$(echo "$2" | tr : -)-r$3"
	printf '%s\tnullio\t1\t1\t%s\t%s\t1\t%s\t%s\t0\t0\t0\t%s\t100\n' "$1" "$2" "$3" "$f" \
		"${5:-600}" "${6:-6000}" >>"$d/res/runs.tsv"
	[ "$4" = - ] || fio_json "$d/res/fio/$f.json" "$4"
}
# report NAME: report.py on dataset NAME; its report.md in $tmp/NAME.md.
report() {
	/usr/bin/python3 "$report" "$tmp/$1/res" "$tmp/$1/out" >"$tmp/$1.stdout" 2>&1 &&
		cp "$tmp/$1/out/report.md" "$tmp/$1.md"
}
# has NAME TEXT / hasnt NAME TEXT: report.md of NAME has (not) a line with
# TEXT (fixed string); the report as diagnostics otherwise.
has() { grep -qF -- "$2" "$tmp/$1.md" || { cat "$tmp/$1.md"; return 1; }; }
hasnt() { ! grep -F -- "$2" "$tmp/$1.md" || { cat "$tmp/$1.md"; return 1; }; }
# row NAME WORKLOAD: the matrix row of WORKLOAD ("randread 4k QD32").
row() { grep -F "| $2 |" "$tmp/$1.md"; }

# Item 20: one B run of randread has no fio output, every B run of
# randwrite none, write 1m has no row at all (its sessions failed), and
# the guest reported a failed login.
dataset d20 2 "randread:4k:32 randwrite:4k:32 read:128k:8 write:1m:4"
run A randread:4k:32 1 1000; run A randread:4k:32 2 1010
run B randread:4k:32 1 2000; run B randread:4k:32 2 -
run A randwrite:4k:32 1 1000; run A randwrite:4k:32 2 1000
run B randwrite:4k:32 1 -; run B randwrite:4k:32 2 -
run A read:128k:8 1 1000; run A read:128k:8 2 1000
run B read:128k:8 1 1500; run B read:128k:8 2 1500
printf 'not ok 2 - login (B nullio ch=1 imm=1)\n# # srp_lun_disk: no disk\n# # 05:00:01 matrix 1/1\n' >>"$d/out/vmtest.log"
check "item 20: the report is written" report d20
check "item 20: runs per driver shown (B 1 of 2 for random read)" \
	sh -c "grep -F '| randread 4k QD32 |' '$tmp/d20.md' | grep -F '| 2/2 | 1/2 |'"
check "item 20: a point with fewer runs than asked for is not starred" \
	sh -c "grep -F '| randread 4k QD32 |' '$tmp/d20.md' | grep -F '| 1.99 |'"
check "item 20: a point without a row is in the matrix (0 of 2 runs)" \
	sh -c "grep -F '| write 1m QD4 |' '$tmp/d20.md' | grep -F '| 0/2 | 0/2 |'"
check "item 20: lowest B/A counts the points without a ratio as failed" \
	has d20 "lowest B/A of the matrix: 1.50 over 1 of 4 points; not met: 3 points without a full ratio"
check "item 20: the guest's failure is copied into report.md" \
	has d20 "not ok 2 - login (B nullio ch=1 imm=1)"
check "item 20: with its diagnostics, not the progress lines" \
	sh -c "grep -qF 'srp_lun_disk: no disk' '$tmp/d20.md' && ! grep -qF 'matrix 1/1' '$tmp/d20.md'"
check "item 20: a run without fio output is listed as a failure" \
	has d20 "no fio result: B nullio ch_count=1 use_imm_data=1 randread 4k QD32, round 2"
check "item 20: a point without a run is listed as a failure" \
	has d20 "no run recorded: A nullio ch_count=1 use_imm_data=1 write 1m QD4 (0 of 2)"
check "item 22: a missing A/A pair is listed as a failure" has d20 "no A/A pair (A1, A2) in runs.tsv"
: >"$d/out/vmtest.log"
check "item 20: a guest log without results: the report is written" report d20
check "item 20: a guest log without results is a failure" \
	has d20 "the guest log (vmtest.log) has no result at all"

# Item 21: B logs in twice as fast, closes twice as slowly.
dataset d21 2 "" ""
printf 'A\t64\t64\t64\t2.500\t6.000\t2.0\t65536\t0.500\t1\nB\t64\t64\t64\t1.500\t3.000\t1.0\t65536\t1.000\t1\n' >"$d/res/logins.tsv"
check "item 21: the report is written" report d21
check "item 21: the control path's ratios are B/A" \
	has d21 "| channels | A logged in | B logged in | A login s | B login s | B/A | A close s | B close s | B/A |"
check "item 21: login B/A 0.50, close 2.00, teardown 0.50" \
	has d21 "| 64 | 64 | 64 | 2.0 | 1.0 | 0.50 | 0.50 | 1.00 | 2.00 | 6.0 | 3.0 | 0.50 |"
check "item 21: no A/B ratio left" hasnt d21 "A/B"
check "item 21: the login target is B over A" has d21 "logins at once, B time over A time: 64: 0.50"

# Item 22: B 10% above A with no spread between rounds, and an A/A pair
# whose second half is 20% above its first: the 10% is inside the noise.
dataset d22 2 "randread:4k:32"
run A randread:4k:32 1 1000; run A randread:4k:32 2 1000
run B randread:4k:32 1 1100; run B randread:4k:32 2 1100
run A1 randread:4k:32 1 1000; run A1 randread:4k:32 2 1000
run A2 randread:4k:32 1 1200; run A2 randread:4k:32 2 1200
check "item 22: the report is written" report d22
check "item 22: the A/A pair is reported (A2/A1 1.20)" \
	has d22 "| randread 4k QD32 | 2/2 | 2/2 | 1,000 | 1,200 | 1.20 |"
check "item 22: a ratio inside the A/A floor is not starred" \
	sh -c "grep -F '| randread 4k QD32 |' '$tmp/d22.md' | grep -F '| 1.10 |' | grep -F '| 20% |'"
check "item 22: no A/A line made of the rounds' spread" hasnt d22 "A/A (A against itself)"
check "item 22: a report without an A/A pair says so under Targets" \
	has d20 "A/A pair (noise floor): not measured (not met)"
dataset d22odd 3 "randread:4k:32"
run A randread:4k:32 1 1000; run B randread:4k:32 1 1000
check "item 22: odd rounds: the report is written" report d22odd
check "item 22: odd rounds are a failure in the report" has d22odd "BENCH_ROUNDS=3 is odd"
# bench_odd ROUNDS: bench.sh from a copy of the tree whose vmtest is a
# stub that only leaves a mark.
mkdir -p "$tmp/tree/tools/bench" "$tmp/tree/tools/vm"
cp tools/bench/bench.sh "$tmp/tree/tools/bench/"
printf '#!/bin/sh\ntouch "%s/vmtest-ran"\nexit 1\n' "$tmp" >"$tmp/tree/tools/vm/vmtest"
chmod +x "$tmp/tree/tools/vm/vmtest"
bench_rounds() {
	rm -f "$tmp/vmtest-ran"
	BENCH_ROUNDS=$1 BENCH_QUICK=1 sh "$tmp/tree/tools/bench/bench.sh"
}
# refused ROUNDS: bench.sh fails, says why, and boots nothing.
refused() {
	! bench_rounds "$1" && grep -q "BENCH_ROUNDS=$1: the rounds must be ABBA" "$tmp/out" &&
		[ ! -e "$tmp/vmtest-ran" ]
}
check "item 22: bench.sh refuses BENCH_ROUNDS=3 and boots nothing" refused 3
check "item 22: bench.sh refuses BENCH_ROUNDS=0 and boots nothing" refused 0
check "item 22: bench.sh refuses BENCH_ROUNDS=x and boots nothing" refused x
bench_rounds 2 >/dev/null 2>&1
check "item 22: self-check: BENCH_ROUNDS=2 gets to vmtest" test -e "$tmp/vmtest-ran"

# Item 23: 9 s of busy CPU over fio's whole life, 6,500 I/Os in that
# window (fio's 1,000 IOPS over 5+1 s would say 6,000); a close that timed
# out (flagged, and one from an older guest, not flagged, at 300 s); perf
# samples over the I/Os of the same window.
dataset d23 2 "randread:4k:32"
run A randread:4k:32 1 1000 900 6500; run A randread:4k:32 2 1000 900 6500
run B randread:4k:32 1 1000 900 6500; run B randread:4k:32 2 1000 900 6500
printf 'A\t64\t64\t64\t2.5\t6.0\t2.0\t65536\t0.500\t1\nA\t64\t64\t64\t2.5\t306.0\t2.0\t65536\t300.400\nB\t64\t64\t64\t1.5\t3.0\t1.0\t65536\t0.800\t1\nB\t64\t64\t64\t1.5\t303.0\t1.0\t65536\t300.100\t0\n' >"$d/res/logins.tsv"
for x in A:100 B:50; do
	p=$d/res/perf/prof-${x%:*}-randread-4k-32-1
	printf '%s\tib_srpt\tsrpt_f\n200\tkernel\tdefault_idle\n' "${x#*:}" >"$p.syms"
	fio_json "$p.json" 1000
	echo 6500 >"$p.ios"
done
check "item 23: the report is written" report d23
check "item 23: CPU per I/O over the window's I/Os (1,385 µs)" \
	sh -c "grep -F '| randread 4k QD32 |' '$tmp/d23.md' | grep -F '| 1,385 | 1,385 |'"
check "item 23: perf's target µs per I/O over the window's I/Os (30.8)" \
	has d23 "| randread 4k QD32 | 30.8 | 15.4 | 0.50 |"
check "item 23: a timed-out close is a failure, not a time" \
	has d23 "| 64 | 64 | 64 | 2.0 | 1.0 | 0.50 | 0.50 (1 of 2 failed) | 0.80 (1 of 2 failed) | 1.60 |"
check "item 23: and listed under Failures" has d23 "close timed out: B, 64 channels"
hasnt_300() { ! grep '^| 64 |' "$tmp/d23.md" | grep -E '(300|15[0-9])\.[0-9]'; }
check "item 23: no 300 s close in any median" hasnt_300

# Instruction counts (BENCH_INSN=1, issue 29): snapshots of insn-count.so
# attributed to functions by the guest's symbols.  Each run's "before"
# snapshot (even numbers) holds a huge count that must not be used; the
# run's own (odd) has, per I/O (6000 I/Os): ib_srpt 150 for A, 100 for B
# (srpt_recv 100/60, srpt_send 50/40), target_core 200, rdma_rw 30, the
# rest of ib_core 40, the kernel 1000, user space 500.
dataset dinsn 2 "randread:4k:1"
sed -i '1s/$/\tinsn\tksyms/' "$d/res/runs.tsv"
mkdir -p "$d/res/insn"
printf 'ffffffff81000000 T kfunc\nffffffff81100000 T kfunc2\n' >"$d/res/insn/kernel.syms"
printf 'ffffffffc0000000 t srpt_recv\t[ib_srpt]\nffffffffc0000100 t srpt_send\t[ib_srpt]\nffffffffc0100000 t target_submit\t[target_core_mod]\nffffffffc0200000 t rdma_rw_ctx_init\t[ib_core]\nffffffffc0200100 t ib_post_send\t[ib_core]\n' \
	>"$d/res/insn/modules-0.syms"
# snap BEFORE RUN RECV SEND: the two snapshots of one run.
snap() {
	printf 'snapshot %s\nffffffffc0000010 999999999\nend %s\n' "$1" "$1"
	printf 'snapshot %s\nffffffffc0000010 %s\nffffffffc0000120 %s\nffffffffc0100008 1200000\nffffffffc0200004 180000\nffffffffc0200180 240000\nffffffff81000004 3000000\nffffffff81100010 3000000\n0 3000000\nend %s\n' \
		"$2" "$3" "$4" "$2"
}
i=0
for x in A:1:600000:300000 B:1:360000:240000 B:2:360000:240000 A:2:600000:300000 \
	A1:1:600000:300000 A2:1:600000:300000 A2:2:600000:300000 A1:2:600000:300000; do
	drv=${x%%:*} rest=${x#*:}
	r=${rest%%:*} rest=${rest#*:}
	f="$drv-nullio-ch1-imm1-randread-4k-1-r$r"
	printf '%s\tnullio\t1\t1\trandread:4k:1\t%s\t1\t%s\t600\t0\t0\t0\t6000\t100\t%s\tmodules-0.syms\n' \
		"$drv" "$r" "$f" $((i + 1)) >>"$d/res/runs.tsv"
	fio_json "$d/res/fio/$f.json" 1000
	snap $i $((i + 1)) "${rest%%:*}" "${rest#*:}" >>"$d/insn.snap"
	i=$((i + 2))
done
report_insn() {
	/usr/bin/python3 "$report" --insn "$d/insn.snap" "$d/res" "$d/out" >"$tmp/dinsn.stdout" 2>&1 &&
		cp "$d/out/report.md" "$tmp/dinsn.md"
}
check "insn: the report is written" report_insn
check "insn: driver 150 and 100, target 380 and 330, kernel 1,420 and 1,370 per I/O" \
	has dinsn "| nullio ch_count=1 use_imm_data=1 randread 4k QD1 | 150 (0.0%) | 100 (0.0%) | 0.667 | 380 (0.0%) | 330 (0.0%) | 0.868 | 1,420 (0.0%) | 1,370 (0.0%) | 0.965 | 500 | 500 |"
check "insn: the A/A pair's row" \
	has dinsn "| A/A randread 4k QD1 | 150 (0.0%) | 150 (0.0%) | 1.000 |"
check "insn: ib_srpt's functions per I/O" \
	has dinsn "ib_srpt functions, randread 4k QD1, driver B, instructions per I/O (mean of 2 runs): srpt_recv 60, srpt_send 40."
check "insn: every run has its count (no failure listed)" hasnt dinsn "have no instruction count"
# make bench-gate's verdict on the insn.json of that report: B (100 and
# 330 per I/O) costs less than A (150 and 380), the A/A pair is 1.000.
gate=$top/tools/bench/gate.sh
judged() {
	"$gate" --judge "$1" >"$tmp/gate.out" 2>&1
	_rc=$?
	cat "$tmp/gate.out"
	[ $_rc = "$2" ] && grep -q "$3" "$tmp/gate.out"
}
cp "$d/out/insn.json" "$tmp/gate-pass.json"
check "insn: report.py writes insn.json, and bench-gate passes a cheaper head" \
	judged "$tmp/gate-pass.json" 0 "^bench-gate: passed"
# The head's driver at 152 of A's 150 per I/O (1.013 > 1.01).
/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
j["points"][0]["B"]["driver"]["median"] = 152.0
json.dump(j, open(sys.argv[2], "w"))' "$tmp/gate-pass.json" "$tmp/gate-more.json"
check "insn: bench-gate fails a head 1.3% above the base's driver instructions" \
	judged "$tmp/gate-more.json" 1 "driver .* 1.013 .*COSTS MORE"
judged_max() { BENCH_GATE_MAX=$1 judged "$2" 0 "^bench-gate: passed"; }
check "insn: with BENCH_GATE_MAX=1.02 the same head passes" judged_max 1.02 "$tmp/gate-more.json"
# The A/A pair gone: no floor, no verdict.
/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
j["aa"] = []
json.dump(j, open(sys.argv[2], "w"))' "$tmp/gate-pass.json" "$tmp/gate-noaa.json"
check "insn: bench-gate gives no verdict without the A/A pair (status 2)" \
	judged "$tmp/gate-noaa.json" 2 "no verdict"
# The last run's own snapshot cut off (its two last lines).
sed -i '$d' "$d/insn.snap"
sed -i '$d' "$d/insn.snap"
check "insn: a snapshot cut short: the report is written" report_insn
check "insn: a run whose snapshot is missing is a failure" \
	has dinsn "1 of 8 runs have no instruction count"
echo "1..$n"
