#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py [--insn SNAPSHOTS] RESULTS OUT: the tables and plots of "make bench".

RESULTS is what tools/bench/guest.sh wrote (runs.tsv, fio/*.json,
perf/*.syms and *.json, logins.tsv); OUT gets report.md and the PNG plots.
A is the distro's in-tree ib_srpt, B ours.  Each point is the median of its
rounds; every ratio is B over A (times too: below 1 is B faster).  The A/A
pair (A1, A2: the A driver against itself, ABBA, on the first configuration)
is the noise floor a ratio must beat to mean anything.  Every failure the
guest reported (OUT/vmtest.log), every run without a result and every point
short of its rounds is listed under Failures and counts against the Targets.
"""
import csv
import json
import os
import re
import statistics
import sys

ARGS = sys.argv[1:]
# --insn SNAPSHOTS: instruction counts (BENCH_INSN=1, tools/bench/insn.py).
INSN = None
if ARGS[:1] == ["--insn"]:
    INSN, ARGS = ARGS[1], ARGS[2:]
RESULTS, OUT = ARGS[0], ARGS[1]
# build/bench/params, as bench.sh wrote it for this run.
PARAMS = {}
with open(os.path.join(OUT, "params")) as _f:
    for _line in _f:
        _k, _, _v = _line.strip().partition("=")
        PARAMS[_k] = _v.strip('"')
ROUNDS = int(PARAMS.get("BENCH_ROUNDS", 2))
# A close of the control path that took this long is srpt_channels_are's
# timeout (guest.sh), not a time.
CLOSE_TIMEOUT = 300.0
PERF_HZ = float(PARAMS.get("BENCH_PERF_HZ", 499))
# Modules whose CPU time counts as the target's (rdma_rw_* of ib_core too).
TARGET_MODS = ("ib_srpt", "target_core_mod", "target_core_rd")
IDLE_SYMS = ("default_idle", "native_safe_halt", "cpu_idle_poll",
             "acpi_idle_do_entry", "mwait_idle", "intel_idle", "cpuidle_enter_state",
             "default_idle_call", "do_idle", "arch_cpu_idle")


def fio_result(path):
    """IOPS, MB/s and I/Os per second of run time of one fio JSON file."""
    with open(path) as f:
        j = json.load(f)
    job = j["jobs"][0]
    iops = job["read"]["iops"] + job["write"]["iops"]
    mbs = (job["read"]["bw_bytes"] + job["write"]["bw_bytes"]) / 1e6
    return iops, mbs


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def ratio(x, y):
    return x / y if y else float("nan")


def fmt(x, nd=0):
    if x != x:  # NaN
        return "-"
    return f"{x:,.{nd}f}"


def window_ios(s):
    """I/Os the kernel completed over the window of the CPU counters (the
    guest's "ios": the disk's stat before fio started and after it exited);
    NaN when not recorded (a guest from before 2026-12-06 had only fio's
    IOPS over the run, a shorter window than its counters')."""
    try:
        v = float(s)
    except (TypeError, ValueError):
        return float("nan")
    return v if v > 0 else float("nan")


def wl_label(w):
    """ "randread:4k:32" as "randread 4k QD32". """
    rw, bs, qd = w.split(":")
    return f"{rw} {bs} QD{qd}"


def point_label(key):
    be, ch, imm, w = key
    return f"{be} ch_count={ch} use_imm_data={imm} {wl_label(w)}"


failures = []  # lines of the report's Failures section
if ROUNDS % 2:
    failures.append(f"BENCH_ROUNDS={ROUNDS} is odd: the rounds are not ABBA "
                    "(bench.sh refuses it; this run did not come from it)")
# The guest's own failures, with their diagnostics (not its progress lines).
try:
    _diag = _results = 0
    for _line in open(os.path.join(OUT, "vmtest.log")):
        _line = _line.rstrip("\n")
        _results += _line.startswith(("ok ", "not ok"))
        if _line.startswith("not ok"):
            failures.append("guest: " + _line)
            _diag = 10
        elif _diag and _line.startswith("#") and not re.match(r"# # \d\d:\d\d:\d\d ", _line):
            failures.append("guest: " + _line)
            _diag -= 1
        else:
            _diag = 0
    if not _results:
        failures.append("the guest log (vmtest.log) has no result at all")
except OSError:
    failures.append("no guest log (vmtest.log) beside params")

runs = []
recorded = {}  # point -> driver -> rows in runs.tsv, with or without a result
no_window = 0
with open(os.path.join(RESULTS, "runs.tsv")) as f:
    for row in csv.DictReader(f, delimiter="\t"):
        key = (row["backend"], row["ch"], row["imm"], row["workload"])
        recorded.setdefault(key, {}).setdefault(row["driver"], 0)
        recorded[key][row["driver"]] += 1
        p = os.path.join(RESULTS, "fio", row["file"] + ".json")
        try:
            iops, mbs = fio_result(p)
        except (OSError, ValueError, KeyError, IndexError):
            failures.append(f"no fio result: {row['driver']} {point_label(key)}, "
                            f"round {row['round']} ({row['file']}.json)")
            continue
        hz = float(row["hz"])
        ios = window_ios(row.get("ios"))
        no_window += ios != ios
        runs.append({
            "driver": row["driver"], "backend": row["backend"],
            "ch": row["ch"], "imm": row["imm"], "workload": row["workload"],
            "round": int(row["round"]), "iops": iops, "mbs": mbs,
            "cpu_us": float(row["busy_ticks"]) / hz / ios * 1e6,
            "ctxt": float(row["ctxt"]) / ios,
            "softirq": float(row["softirq"]) / ios,
            "ksoftirqd": float(row["ksoftirqd"]) / ios,
            "ios_n": ios, "insn": row.get("insn") or "-", "ksyms": row.get("ksyms") or "-",
        })

points = {}
for r in runs:
    key = (r["backend"], r["ch"], r["imm"], r["workload"])
    points.setdefault(key, {}).setdefault(r["driver"], []).append(r)
# Every point params asked for is in the matrix, measured or not.
for be in PARAMS.get("BENCH_BACKENDS", "").split():
    for ch in PARAMS.get("BENCH_CH", "").split():
        for imm in PARAMS.get("BENCH_IMM", "").split():
            for w in PARAMS.get("BENCH_WORKLOADS", "").split():
                points.setdefault((be, ch, imm, w), {})
for key in sorted(points):
    for d in ("A", "B"):
        n = recorded.get(key, {}).get(d, 0)
        if n < ROUNDS:
            failures.append(f"no run recorded: {d} {point_label(key)} ({n} of {ROUNDS})")
# The A/A pair: A1 and A2 (guest.sh), the A driver in two ABBA halves.
aa = {k[3]: (drv.get("A1", []), drv.get("A2", [])) for k, drv in points.items()
      if "A1" in drv or "A2" in drv}


def wl_sort(w):
    rw, bs, qd = w.split(":")
    size = int(bs[:-1]) * (1024 if bs.endswith("m") else 1)
    return (size, rw, int(qd))


lines = ["# ib_srpt benchmark: in-tree (A) and ours (B), one boot", ""]
try:
    lines.append("Machine: " + open(os.path.join(RESULTS, "uname")).read().strip())
    ncpu = sum(1 for line in open(os.path.join(RESULTS, "cpuinfo"))
               if line.startswith("processor"))
    lines.append(f"Guest CPUs: {ncpu}; soft-RoCE (rdma_rxe) loopback; ib_srp; fio libaio direct.")
except OSError:
    pass
lines += ["", "Medians of the rounds; every ratio is B / A (of times too: below 1 is B "
          "faster), starred where both drivers have all their rounds and it lies outside "
          "the noise: the largest of A's and B's spread of that point's rounds and the A/A "
          "pair's deviation for that workload. runs: runs with a result of the rounds asked "
          "for. CPU/IO: busy CPU time of the whole guest (initiator, target and rxe) per "
          "I/O, both counted from before fio starts to after it exits. cs/IO: context "
          "switches per I/O; sirq/IO: softirqs raised per I/O; ksirqd/IO: ksoftirqd "
          "context switches per I/O.", ""]
if no_window:
    lines += [f"{no_window} runs have no I/O count over the counters' window (a guest "
              "from before 2026-12-06): their per-I/O columns are left empty.", ""]


# How far one driver's rounds of a point spread, (largest - smallest) over
# the median.  A B/A ratio inside that spread says nothing.
def spread(rs):
    xs = [r["iops"] for r in rs]
    if len(xs) < 2 or not med(xs):
        return float("nan")
    return (max(xs) - min(xs)) / med(xs)


def m(rs, f):
    return med([r[f] for r in rs])


def runs_of(rs):
    return f"{len(rs)}/{ROUNDS}"


def iops_ratio(a, b):
    """B over A of the median IOPS; NaN unless both have a run."""
    return ratio(m(b, "iops"), m(a, "iops")) if a and b else float("nan")


for d in ("A", "B"):
    devs = [spread(drv.get(d, [])) for drv in points.values()]
    devs = [x for x in devs if x == x]
    if devs:
        lines.append(f"Spread of {d}'s rounds of a point, (largest - smallest) / "
                     f"median, over {len(devs)} points: median {med(devs) * 100:.0f}%, "
                     f"largest {max(devs) * 100:.0f}%.")
if PARAMS.get("BENCH_A_KO"):
    lines.append(f"A is not the in-tree module here: it is the build {PARAMS['BENCH_A_KO']}.")
lines.append("")

# The Failures section goes here once every part has added to it.
failures_at = len(lines)

# The A/A pair: its deviation from 1 per workload is the noise floor.
aa_floor = {}
lines.append("## A/A pair: the A driver against itself (noise floor)")
lines.append("")
if aa:
    lines.append("A1 and A2 are the same driver (A) measured as the matrix measures A "
                 "and B, ABBA; A2/A1 should be 1, and how far it is off is the least "
                 "a B/A ratio must be off 1 to mean anything.")
    lines.append("")
    lines.append("| workload | A1 runs | A2 runs | A1 IOPS | A2 IOPS | A2/A1 |")
    lines.append("|---|---:|---:|---:|---:|---:|")
    for w in sorted(aa, key=wl_sort):
        a1, a2 = aa[w]
        r = iops_ratio(a1, a2)
        if r == r and len(a1) >= ROUNDS and len(a2) >= ROUNDS:
            aa_floor[w] = abs(r - 1)
        lines.append(f"| {wl_label(w)} | {runs_of(a1)} | {runs_of(a2)} "
                     f"| {fmt(m(a1, 'iops'))} | {fmt(m(a2, 'iops'))} | {fmt(r, 2)} |")
else:
    if PARAMS.get("BENCH_BACKENDS"):
        failures.append("no A/A pair (A1, A2) in runs.tsv")
    lines.append("Not measured: no A1/A2 runs (a guest from before 2026-12-06, "
                 "BENCH_BACKENDS empty, or its sessions failed).")
lines.append("")

configs = sorted({k[:3] for k in points})
all_ratios = []
for cfg in configs:
    be, ch, imm = cfg
    lines.append(f"## {be}, ch_count={ch}, use_imm_data={imm}")
    lines.append("")
    lines.append("| workload | A runs | B runs | A IOPS | B IOPS | B/A | A MB/s | B MB/s "
                 "| A CPU/IO µs | B CPU/IO µs | A cs/IO | B cs/IO | A sirq/IO | B sirq/IO "
                 "| A ksirqd/IO | B ksirqd/IO | noise |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in sorted({k[3] for k in points if k[:3] == cfg}, key=wl_sort):
        drv = points[cfg + (w,)]
        a, b = drv.get("A", []), drv.get("B", [])
        ra = iops_ratio(a, b)
        full = len(a) >= ROUNDS and len(b) >= ROUNDS
        all_ratios.append((cfg, w, ra if full else float("nan")))
        # The largest of the spreads and the A/A floor; a ratio beyond it
        # is starred, if every round of both drivers is in it.
        noise = max((x for x in (spread(a), spread(b), aa_floor.get(w, float("nan")))
                     if x == x), default=float("nan"))
        sig = "*" if full and ra == ra and noise == noise and abs(ra - 1) > noise else ""
        lines.append(f"| {wl_label(w)} | {runs_of(a)} | {runs_of(b)} "
                     f"| {fmt(m(a, 'iops'))} | {fmt(m(b, 'iops'))} | {fmt(ra, 2)}{sig} "
                     f"| {fmt(m(a, 'mbs'), 1)} | {fmt(m(b, 'mbs'), 1)} "
                     f"| {fmt(m(a, 'cpu_us'), 0)} | {fmt(m(b, 'cpu_us'), 0)} "
                     f"| {fmt(m(a, 'ctxt'), 2)} | {fmt(m(b, 'ctxt'), 2)} "
                     f"| {fmt(m(a, 'softirq'), 2)} | {fmt(m(b, 'softirq'), 2)} "
                     f"| {fmt(m(a, 'ksoftirqd'), 3)} | {fmt(m(b, 'ksoftirqd'), 3)} "
                     f"| {fmt(noise * 100, 0)}% |")
    lines.append("")

# CPU per I/O by module, from perf.
CATEGORIES = ("idle", "target", "rdma_rxe", "initiator", "user space", "rest of the kernel")


def category(dso, sym):
    """Which part of the guest a perf sample (module or dso, symbol) is in."""
    if sym.startswith(IDLE_SYMS):
        return "idle"
    if dso in TARGET_MODS or (dso == "ib_core" and sym.startswith("rdma_rw")):
        return "target"
    if dso == "rdma_rxe":
        return "rdma_rxe"
    if dso in ("ib_srp", "scsi_mod", "sd_mod", "scsi_common", "scsi_transport_srp"):
        return "initiator"
    if dso.startswith("("):
        return "user space"
    return "rest of the kernel"


prof = {}
where = {}
topsyms = {}  # workload -> driver -> "symbol [module]" -> summed share
pdir = os.path.join(RESULTS, "perf")
for fn in sorted(os.listdir(pdir)) if os.path.isdir(pdir) else []:
    if not fn.endswith(".syms") or fn.startswith(("login-", "teardown-")):
        continue
    base = fn[:-5]
    _, d, rw, bs, qd, _ = base.split("-", 5)
    try:
        fio_result(os.path.join(pdir, base + ".json"))
    except (OSError, ValueError, KeyError, IndexError):
        failures.append(f"no fio result: profile {base}")
        continue
    # The I/Os of perf's window (fio's whole life), from the disk's stat.
    try:
        ios = window_ios(open(os.path.join(pdir, base + ".ios")).read().strip())
    except OSError:
        ios = float("nan")
    tgt = busy = 0
    for line in open(os.path.join(pdir, fn)):
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 3:
            continue
        n, dso, sym = int(parts[0]), parts[1], parts[2]
        if sym.startswith(IDLE_SYMS):
            continue
        busy += n
        if dso in TARGET_MODS or (dso == "ib_core" and sym.startswith("rdma_rw")):
            tgt += n
    prof.setdefault((rw, bs, qd), {}).setdefault(d, []).append((tgt, busy, ios))
    # Where all the samples went, idle included.
    cats = {}
    total = 0
    for line in open(os.path.join(pdir, fn)):
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 3:
            continue
        n, dso, sym = int(parts[0]), parts[1], parts[2]
        total += n
        cat = category(dso, sym)
        cats[cat] = cats.get(cat, 0) + n
    if total:
        top = topsyms.setdefault((rw, bs, qd), {}).setdefault(d, {})
        for line in open(os.path.join(pdir, fn)):
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3 and not parts[2].startswith(IDLE_SYMS):
                k = f"{parts[2]} [{parts[1]}]"
                top[k] = top.get(k, 0.0) + int(parts[0]) / total
        where.setdefault((rw, bs, qd), {}).setdefault(d, []).append(
            {c: v / total for c, v in cats.items()})

lines.append(f"## Target CPU per I/O (perf, cpu-clock at {PERF_HZ:.0f} Hz)")
lines.append("")
lines.append("Samples in ib_srpt, target_core_mod, target_core_rd and rdma_rw_* of ib_core, "
             "over the I/Os the disk completed while perf sampled (fio's whole life; "
             "medians of the runs); a count of n samples is uncertain by about its "
             "square root.")
lines.append("")
lines.append("| workload | A target µs/IO | B target µs/IO | B/A | A target share | B target share "
             "| A target samples | B target samples |")
lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
cpu_ratio = {}
for (rw, bs, qd), drv in sorted(prof.items()):
    def per_io(x):
        tgt, _, ios = x
        return tgt / PERF_HZ / ios * 1e6

    def share(x):
        return ratio(x[0], x[1])
    a = med([per_io(x) for x in drv.get("A", [])])
    b = med([per_io(x) for x in drv.get("B", [])])
    r = ratio(b, a)
    cpu_ratio[(rw, bs, qd)] = r
    lines.append(f"| {rw} {bs} QD{qd} | {fmt(a, 1)} | {fmt(b, 1)} | {fmt(r, 2)} | "
                 f"{fmt(med([share(x) for x in drv.get('A', [])]) * 100, 0)}% | "
                 f"{fmt(med([share(x) for x in drv.get('B', [])]) * 100, 0)}% | "
                 f"{fmt(med([x[0] for x in drv.get('A', [])]), 0)} | "
                 f"{fmt(med([x[0] for x in drv.get('B', [])]), 0)} |")
lines.append("")

lines.append("Where the guest's CPU samples went (share of all samples, idle included; "
             "median of the runs). Target: as above; initiator: ib_srp, scsi_mod, sd_mod; "
             "rdma_rxe: soft-RoCE, both ends.")
lines.append("")
lines.append("| workload | driver | " + " | ".join(CATEGORIES) + " |")
lines.append("|---|---|" + "---:|" * len(CATEGORIES))
for key, drv in sorted(where.items()):
    for d in ("A", "B"):
        if d not in drv:
            continue
        lines.append(f"| {key[0]} {key[1]} QD{key[2]} | {d} | " + " | ".join(
            f"{med([x.get(c, 0.0) for x in drv[d]]) * 100:.1f}%" for c in CATEGORIES) + " |")
lines.append("")
for key, drv in sorted(topsyms.items()):
    for d in ("A", "B"):
        if d not in drv:
            continue
        runs_n = len(where[key][d])
        best = sorted(drv[d].items(), key=lambda kv: -kv[1])[:12]
        lines.append(f"Busiest symbols, {key[0]} {key[1]} QD{key[2]}, driver {d} "
                     f"(share of all samples, mean of {runs_n} runs): " + ", ".join(
                         f"{k} {v / runs_n * 100:.1f}%" for k, v in best) + ".")
        lines.append("")

# Instructions per I/O (BENCH_INSN=1).
if INSN:
    import insn as insn_mod
    try:
        _missing = insn_mod.per_run(RESULTS, INSN, runs)
    except OSError as e:
        failures.append(f"instruction counts unreadable: {e}")
        _missing = len(runs)
    if _missing:
        failures.append(f"{_missing} of {len(runs)} runs have no instruction count")
    lines.append("## Instructions per I/O (QEMU plugin insn-count)")
    lines.append("")
    lines.append("Guest instructions executed between the snapshots just before and "
                 "just after each fio run, per I/O the disk completed, median of the "
                 "rounds (the spread of the rounds, (largest - smallest) / median, in "
                 "brackets). driver: ib_srpt's own functions; target: ib_srpt, "
                 "target_core_* and ib_core's rdma_rw_*; kernel: the whole guest kernel; "
                 "user: user space (fio). A/A: the A driver against itself, the floor a "
                 "B/A ratio must beat.")
    lines.append("")

    def ispread(rs, f):
        xs = [r[f] for r in rs if f in r]
        if len(xs) < 2 or not med(xs):
            return float("nan")
        return (max(xs) - min(xs)) / med(xs)

    def imed(rs, f):
        return med([r[f] for r in rs if f in r])

    def icell(rs, f):
        return f"{fmt(imed(rs, f))} ({fmt(ispread(rs, f) * 100, 1)}%)"

    lines.append("| point | A driver | B driver | B/A | A target | B target | B/A "
                 "| A kernel | B kernel | B/A | A user | B user |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in sorted(points, key=lambda k: (k[:3], wl_sort(k[3]))):
        drv = points[key]
        a, b = drv.get("A", []), drv.get("B", [])
        row = [point_label(key)]
        for f in ("insn_driver", "insn_target", "insn_kernel"):
            row += [icell(a, f), icell(b, f), fmt(ratio(imed(b, f), imed(a, f)), 3)]
        row += [fmt(imed(a, "insn_user")), fmt(imed(b, "insn_user"))]
        lines.append("| " + " | ".join(row) + " |")
    for w in sorted(aa, key=wl_sort):
        a1, a2 = aa[w]
        row = ["A/A " + wl_label(w)]
        for f in ("insn_driver", "insn_target", "insn_kernel"):
            row += [icell(a1, f), icell(a2, f), fmt(ratio(imed(a2, f), imed(a1, f)), 3)]
        row += [fmt(imed(a1, "insn_user")), fmt(imed(a2, "insn_user"))]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    # The same figures for tools (make bench-gate): per point and the A/A
    # pair's, medians and the rounds' spread of each count.
    def ifigs(rs):
        return {f: {"median": imed(rs, "insn_" + f), "spread": ispread(rs, "insn_" + f),
                    "runs": len([r for r in rs if "insn_" + f in r])}
                for f in ("driver", "target", "kernel")}

    _js = {"points": [], "aa": []}
    for key in sorted(points, key=lambda k: (k[:3], wl_sort(k[3]))):
        _p = {"backend": key[0], "ch": key[1], "imm": key[2], "workload": key[3]}
        for d in ("A", "B"):
            _p[d] = ifigs(points[key].get(d, []))
        _js["points"].append(_p)
    for w in sorted(aa, key=wl_sort):
        _js["aa"].append({"workload": w, "A1": ifigs(aa[w][0]), "A2": ifigs(aa[w][1])})
    with open(os.path.join(OUT, "insn.json"), "w") as _f:
        json.dump(_js, _f, indent=1, allow_nan=True)
    # The driver's functions, per I/O, for each workload of the first
    # configuration: where ours and A differ.
    if configs:
        cfg = configs[0]
        for w in sorted({k[3] for k in points if k[:3] == cfg}, key=wl_sort):
            drv = points[cfg + (w,)]
            for d in ("A", "B"):
                rs = [r for r in drv.get(d, []) if "insn_funcs" in r]
                if not rs:
                    continue
                tot = {}
                for r in rs:
                    for k, v in r["insn_funcs"].items():
                        if k[1] == "ib_srpt":
                            tot[k[0]] = tot.get(k[0], 0) + v / len(rs)
                best = sorted(tot.items(), key=lambda kv: -kv[1])[:15]
                lines.append(f"ib_srpt functions, {wl_label(w)}, driver {d}, instructions "
                             f"per I/O (mean of {len(rs)} runs): "
                             + ", ".join(f"{k} {v:.0f}" for k, v in best) + ".")
                lines.append("")

# Control path.
logins = {}
lp = os.path.join(RESULTS, "logins.tsv")
if os.path.exists(lp):
    for row in csv.reader(open(lp), delimiter="\t"):
        # The 7th column (srp-probe --logins: first thread's start to the
        # last answer) replaces the shell's wall time (col 5) when there.
        # The 8th: KiB of MemAvailable gone while the logins held.
        d, n, ok, ch, tl, tt = row[:6]
        if len(row) > 6:
            tl = row[6]
        # The 9th: the TPG disable until no channel was left (the
        # driver's part of the teardown; the 6th includes it).
        kb = float(row[7]) if len(row) > 7 else float("nan")
        tc = float(row[8]) if len(row) > 8 else float("nan")
        tt = float(tt)
        # The 10th: 1 when the close ended in time, 0 when the guest's wait
        # timed out; a guest from before 2026-12-06 wrote no 10th column,
        # and its timed-out close is a time of CLOSE_TIMEOUT or more.
        if (len(row) > 9 and row[9] != "1") or tc >= CLOSE_TIMEOUT:
            failures.append(f"close timed out: {d}, {n} channels, "
                            f"{tc:.1f} s (not counted as a time)")
            tc = tt = float("nan")
        logins.setdefault(int(n), {}).setdefault(d, []).append(
            (int(ok), int(ch), float(tl), tt,
             kb / int(ok) / 1024 if int(ok) else float("nan"), tc))
lines.append("## Control path: N logins at once (srp-probe), then their teardown")
lines.append("")
lines.append("Login time: from the start of the first of N login threads of one "
             "srp-probe process until the target had answered the last login; "
             "close: the TPG disabled until no channel is left (the driver "
             "closes and releases every channel); teardown: that and then "
             "targetcli clearconfig; "
             "MiB/login: MemAvailable gone while the logins held, per login "
             "(both ends: the initiator's queue pairs are in it too).")
lines.append("")
lines.append("Ratios B/A, of times: below 1 is B faster. A close that timed out is "
             "no time: it counts as failed, and so does its teardown.")
lines.append("")
lines.append("| channels | A logged in | B logged in | A login s | B login s | B/A | "
             "A close s | B close s | B/A | "
             "A teardown s | B teardown s | B/A | A MiB/login | B MiB/login |")
lines.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def med_of(rs, i):
    """Median of field i of the runs that have it, and a note of those that
    failed."""
    xs = [x[i] for x in rs if x[i] == x[i]]
    return med(xs), f" ({len(rs) - len(xs)} of {len(rs)} failed)" if len(xs) < len(rs) else ""


login_ratio = {}
for n, drv in sorted(logins.items()):
    a, b = drv.get("A", []), drv.get("B", [])
    (al, _), (bl, _) = med_of(a, 2), med_of(b, 2)
    (at, atf), (bt, btf) = med_of(a, 3), med_of(b, 3)
    (ac, acf), (bc, bcf) = med_of(a, 5), med_of(b, 5)
    login_ratio[n] = ratio(bl, al)
    lines.append(f"| {n} | {min(x[0] for x in a) if a else '-'} | {min(x[0] for x in b) if b else '-'} "
                 f"| {fmt(al, 1)} | {fmt(bl, 1)} | {fmt(login_ratio[n], 2)} "
                 f"| {fmt(ac, 2)}{acf} | {fmt(bc, 2)}{bcf} | {fmt(ratio(bc, ac), 2)} "
                 f"| {fmt(at, 1)}{atf} | {fmt(bt, 1)}{btf} | {fmt(ratio(bt, at), 2)} "
                 f"| {fmt(med([x[4] for x in a]), 2)} | {fmt(med([x[4] for x in b]), 2)} |")
lines.append("")

# Where the CPU went while logins came in (perf, one run per driver).
login_prof = {}
for fn in sorted(os.listdir(pdir)) if os.path.isdir(pdir) else []:
    if not (fn.startswith(("login-", "teardown-")) and fn.endswith(".syms")):
        continue
    phase, d, n = fn[:-5].split("-", 2)
    cats, syms, total = {}, {}, 0
    for line in open(os.path.join(pdir, fn)):
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 3:
            continue
        k, dso, sym = int(parts[0]), parts[1], parts[2]
        total += k
        cat = category(dso, sym)
        cats[cat] = cats.get(cat, 0) + k
        if cat != "idle":
            syms[f"{sym} [{dso}]"] = syms.get(f"{sym} [{dso}]", 0) + k
    if total:
        login_prof[(phase, int(n), d)] = (cats, syms, total)
if login_prof:
    lines.append("Where the guest's CPU samples went while N logins came in (login) and "
                 "while targetcli clearconfig tore them down (teardown): perf, one run per "
                 "driver, share of all samples, idle included; user space is srp-probe "
                 "(logins) and targetcli (teardown).")
    lines.append("")
    lines.append("| phase | logins | driver | samples | " + " | ".join(CATEGORIES) + " |")
    lines.append("|---|---|---|---:|" + "---:|" * len(CATEGORIES))
    for (phase, n, d), (cats, _, total) in sorted(login_prof.items()):
        lines.append(f"| {phase} | {n} | {d} | {total} | " + " | ".join(
            f"{cats.get(c, 0) / total * 100:.1f}%" for c in CATEGORIES) + " |")
    lines.append("")
    for (phase, n, d), (_, syms, total) in sorted(login_prof.items()):
        best = sorted(syms.items(), key=lambda kv: -kv[1])[:12]
        lines.append(f"Busiest symbols, {phase} of {n} logins, driver {d}: " + ", ".join(
            f"{k} {v / total * 100:.1f}%" for k, v in best) + ".")
        lines.append("")

# Targets of issue 15.
lines.append("## Targets")
lines.append("")
qd32 = [r for (c, w, r) in all_ratios if w in ("randread:4k:32", "randwrite:4k:32")]
lowest = min((r for (_, _, r) in all_ratios if r == r), default=float("nan"))
# A point short of its rounds, or without a ratio, is a failure here.
missing = sum(1 for (_, _, r) in all_ratios if r != r)
short = f"; not met: {missing} points without a full ratio" if missing else ""
lines.append(f"- 4k random read and write at QD32, B/A, every configuration: "
             f"{', '.join(fmt(r, 2) for r in qd32)} (target: at least 1.20"
             f"{'; a - is not met' if any(r != r for r in qd32) else ''})")
lines.append(f"- lowest B/A of the matrix: {fmt(lowest, 2)} over "
             f"{len(all_ratios) - missing} of {len(all_ratios)} points{short} "
             f"(target: at least 1.00)")
if aa_floor:
    lines.append(f"- A/A pair (noise floor): A2/A1 off 1 by at most "
                 f"{max(aa_floor.values()) * 100:.0f}% over {len(aa_floor)} workloads "
                 f"(a B/A ratio means something only beyond it)")
else:
    lines.append("- A/A pair (noise floor): not measured (not met)")
lines.append(f"- target CPU per 4k I/O, B/A: "
             f"{', '.join(f'{k[0]} {fmt(v, 2)}' for k, v in sorted(cpu_ratio.items()))} "
             f"(target: at most 0.80)")
lines.append(f"- logins at once, B time over A time: "
             f"{', '.join(f'{n}: {fmt(v, 2)}' for n, v in sorted(login_ratio.items()))} "
             f"(target for 64: at most 0.50)")
lines.append("")
lines[failures_at:failures_at] = (["## Failures", ""] + ([f"- {x}" for x in failures] or ["None."])
                                  + [""])

with open(os.path.join(OUT, "report.md"), "w") as f:
    f.write("\n".join(lines))
print("\n".join(lines))

# Plots.
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("report: python3-matplotlib missing, no plots", file=sys.stderr)
    sys.exit(0)

cfg0 = configs[0] if configs else None
if cfg0:
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, rw in zip(axes, ("randread", "randwrite")):
        for d, label in (("A", "in-tree"), ("B", "ours")):
            xs, ys = [], []
            for k, drv in sorted(points.items(), key=lambda kv: wl_sort(kv[0][3])):
                if k[:3] != cfg0 or not k[3].startswith(rw + ":4k:"):
                    continue
                xs.append(int(k[3].split(":")[2]))
                ys.append(med([r["iops"] for r in drv.get(d, [])]))
            ax.plot(xs, ys, marker="o", label=label)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("queue depth")
        ax.set_ylabel("IOPS")
        ax.set_ylim(bottom=0)
        ax.set_title(f"4k {rw} ({cfg0[0]}, ch_count={cfg0[1]})")
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "iops-vs-qd.png"), dpi=100)

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, rw in zip(axes, ("read", "write")):
        for d, label in (("A", "in-tree"), ("B", "ours")):
            xs, ys = [], []
            for k, drv in sorted(points.items(), key=lambda kv: wl_sort(kv[0][3])):
                w = k[3].split(":")
                if k[:3] != cfg0 or w[0] not in (rw, "rand" + rw) or (w[1] == "4k" and w[2] != "32"):
                    continue
                xs.append(w[1])
                ys.append(med([r["mbs"] for r in drv.get(d, [])]))
            ax.plot(xs, ys, marker="o", label=label)
        ax.set_xlabel("block size")
        ax.set_ylabel("MB/s")
        ax.set_ylim(bottom=0)
        ax.set_title(f"{rw} bandwidth ({cfg0[0]}, ch_count={cfg0[1]})")
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "bw-vs-bs.png"), dpi=100)

    fig, ax = plt.subplots(figsize=(10, 4))
    ws = sorted({k[3] for k in points if k[:3] == cfg0}, key=wl_sort)
    xs = range(len(ws))
    for off, (d, label) in zip((-0.2, 0.2), (("A", "in-tree"), ("B", "ours"))):
        ax.bar([x + off for x in xs],
               [med([r["cpu_us"] for r in points[cfg0 + (w,)].get(d, [])]) for w in ws],
               width=0.4, label=label)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([wl_label(w) for w in ws], rotation=30, ha="right")
    ax.set_ylabel("guest CPU µs per I/O")
    ax.set_title(f"CPU per I/O ({cfg0[0]}, ch_count={cfg0[1]})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "cpu-per-io.png"), dpi=100)
