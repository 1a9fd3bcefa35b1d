#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/gate.sh BASE	(make bench-gate BASE=<ref>)
#	The per-I/O cost of the working tree's driver against BASE's, in
#	guest instructions (make bench BENCH_INSN=1, one boot, a few
#	minutes): BASE's module is A, the working tree's B, on the core
#	workloads (4k random read and write at QD1 and QD32, 128k read and
#	write).  Prints, per workload, the driver's own and the target
#	side's instructions per I/O, B/A, and the A/A pair's ratio (BASE
#	against itself, the floor), and fails when B costs more than
#	BENCH_GATE_MAX (1.01) times A, or more than the noise if that is
#	larger (the A/A pair's distance from 1, either side's spread of its
#	rounds), on any workload, or when a figure is missing.
# tools/bench/gate.sh --judge INSN_JSON
#	Only the verdict, on the insn.json a BENCH_INSN run of report.py
#	wrote (build/bench/insn.json).
#
# Exit status: 0 passed, 1 a workload costs more, 2 no verdict (a figure
# missing, a build or the run failed).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)

judge() {
	/usr/bin/python3 - "$1" "${BENCH_GATE_MAX:-1.01}" <<'EOF'
import json
import math
import sys

path, limit = sys.argv[1], float(sys.argv[2])
try:
    js = json.load(open(path))
except (OSError, ValueError) as e:
    print(f"bench-gate: {path}: {e}")
    sys.exit(2)
aa = {}
for p in js.get("aa", []):
    for f in ("driver", "target"):
        a1, a2 = p["A1"][f]["median"], p["A2"][f]["median"]
        if a1 and not math.isnan(a1) and not math.isnan(a2):
            aa[(p["workload"], f)] = a2 / a1
worst = 0
print(f"{'workload':<22} {'count':<7} {'base':>8} {'head':>8} {'head/base':>9} {'A/A':>6}  verdict")
for p in js.get("points", []):
    for f in ("driver", "target"):
        a, b = p["A"][f]["median"], p["B"][f]["median"]
        r = b / a if a and not math.isnan(a) and not math.isnan(b) else float("nan")
        floor = aa.get((p["workload"], f), float("nan"))
        # The noise: the A/A pair's distance from 1 and either side's
        # spread of its rounds (a count that moves, as the target side's
        # does at 128k, must move beyond that).
        spreads = [p[d][f]["spread"] for d in ("A", "B")]
        noise = [abs(floor - 1)] + [x for x in spreads if not math.isnan(x)]
        lim = max([limit] + [1 + x for x in noise if not math.isnan(x)])
        if math.isnan(r) or math.isnan(floor):
            verdict, rc = "no figure", 2
        elif r > lim:
            verdict, rc = f"COSTS MORE (limit {lim:.3f})", 1
        else:
            verdict, rc = "ok", 0
        worst = max(worst, rc)
        print(f"{p['workload']:<22} {f:<7} {a:>8.0f} {b:>8.0f} {r:>9.3f} {floor:>6.3f}  {verdict}")
if not js.get("points"):
    print("bench-gate: no point measured")
    worst = 2
print("bench-gate: " + ("passed" if worst == 0 else
                        "a workload costs more instructions" if worst == 1 else
                        "no verdict: a figure is missing"))
sys.exit(worst)
EOF
}

if [ "${1:-}" = --judge ]; then
	[ $# = 2 ] || { echo "usage: $0 --judge INSN_JSON" >&2; exit 2; }
	judge "$2"
	exit $?
fi
[ $# = 1 ] || { echo "usage: $0 BASE (a git ref)" >&2; exit 2; }
cd "$top" || exit 2
rev=$(git rev-parse --verify --quiet "$1^{commit}") || {
	echo "bench-gate: $1 is no commit" >&2
	exit 2
}
gate=$top/build/gate
rm -rf "$gate/base"
mkdir -p "$gate/base"
# BASE's tree as it was committed, built the way the working tree is.
git archive "$rev" | tar -x -C "$gate/base" || exit 2
echo "bench-gate: building BASE ($1, ${rev%"${rev#????????????}"})"
make -C "$gate/base" modules >"$gate/base.log" 2>&1 || {
	tail -n 20 "$gate/base.log" >&2
	echo "bench-gate: BASE does not build" >&2
	exit 2
}
cp "$gate/base/ib_srpt.ko" "$gate/base.ko" || exit 2
make modules tools >"$gate/head.log" 2>&1 || {
	tail -n 20 "$gate/head.log" >&2
	echo "bench-gate: the working tree does not build" >&2
	exit 2
}
rm -f build/bench/insn.json
BENCH_QUICK=1 BENCH_INSN=1 BENCH_PROFILE='' BENCH_LOGINS='' BENCH_ROUNDS=2 \
	BENCH_A_KO=$gate/base.ko \
	BENCH_WORKLOADS="randread:4k:1 randwrite:4k:1 randread:4k:32 randwrite:4k:32 read:128k:8 write:128k:8" \
	tools/bench/bench.sh || exit 2
judge build/bench/insn.json
