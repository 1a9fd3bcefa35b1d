#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py RESULTS OUT: the tables and plots of "make bench".

RESULTS is what tools/bench/guest.sh wrote (runs.tsv, fio/*.json,
perf/*.syms and *.json, logins.tsv); OUT gets report.md and the PNG plots.
A is the distro's in-tree ib_srpt, B ours.  Each point is the median of its
rounds; the ratio is B over A.  The A/A line compares the in-tree driver
with itself across the rounds (the spread of all its rounds), the noise a ratio must
beat to mean anything.
"""
import csv
import json
import os
import statistics
import sys

RESULTS, OUT = sys.argv[1], sys.argv[2]
# build/bench/params, as bench.sh wrote it for this run.
PARAMS = {}
with open(os.path.join(OUT, "params")) as _f:
    for _line in _f:
        _k, _, _v = _line.strip().partition("=")
        PARAMS[_k] = _v.strip('"')
# Seconds of each fio run the CPU counters cover: the run and its ramp.
RUN_SECS = float(PARAMS.get("BENCH_RUNTIME", 5)) + 1.0
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


runs = []
with open(os.path.join(RESULTS, "runs.tsv")) as f:
    for row in csv.DictReader(f, delimiter="\t"):
        p = os.path.join(RESULTS, "fio", row["file"] + ".json")
        try:
            iops, mbs = fio_result(p)
        except (OSError, ValueError, KeyError, IndexError):
            continue
        hz = float(row["hz"])
        ios = max(iops * RUN_SECS, 1.0)
        runs.append({
            "driver": row["driver"], "backend": row["backend"],
            "ch": row["ch"], "imm": row["imm"], "workload": row["workload"],
            "round": int(row["round"]), "iops": iops, "mbs": mbs,
            "cpu_us": float(row["busy_ticks"]) / hz / ios * 1e6,
            "ctxt": float(row["ctxt"]) / ios,
            "softirq": float(row["softirq"]) / ios,
            "ksoftirqd": float(row["ksoftirqd"]) / ios,
        })

points = {}
for r in runs:
    key = (r["backend"], r["ch"], r["imm"], r["workload"])
    points.setdefault(key, {}).setdefault(r["driver"], []).append(r)


def wl_label(w):
    """ "randread:4k:32" as "randread 4k QD32". """
    rw, bs, qd = w.split(":")
    return f"{rw} {bs} QD{qd}"


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
lines += ["", "Medians of the rounds; ratio = B / A, starred where it lies outside the "
          "noise (the larger spread of A's and B's rounds of that point). CPU/IO: busy CPU time of the whole "
          "guest (initiator, target and rxe) per I/O. cs/IO: context switches per I/O; "
          "sirq/IO: softirqs raised per I/O; ksirqd/IO: ksoftirqd context switches per I/O.", ""]

# A/A and B/B: how far one driver's rounds of a point spread, (largest -
# smallest) over the median.  A B/A ratio inside that spread says nothing.
def spread(rs):
    xs = [r["iops"] for r in rs]
    if len(xs) < 2 or not med(xs):
        return float("nan")
    return (max(xs) - min(xs)) / med(xs)


for d, name in (("A", "A/A (A against itself)"), ("B", "B/B (B against itself)")):
    devs = [spread(drv.get(d, [])) for drv in points.values()]
    devs = [x for x in devs if x == x]
    if devs:
        lines.append(f"Calibration {name}: spread of the rounds, (largest - smallest) / "
                     f"median, over {len(devs)} points: median {med(devs) * 100:.0f}%, "
                     f"largest {max(devs) * 100:.0f}%.")
if PARAMS.get("BENCH_A_KO"):
    lines.append(f"A is not the in-tree module here: it is the build {PARAMS['BENCH_A_KO']}.")
lines.append("")

configs = sorted({k[:3] for k in points})
all_ratios = []
for cfg in configs:
    be, ch, imm = cfg
    lines.append(f"## {be}, ch_count={ch}, use_imm_data={imm}")
    lines.append("")
    lines.append("| workload | A IOPS | B IOPS | B/A | A MB/s | B MB/s | A CPU/IO µs | B CPU/IO µs | "
                 "A cs/IO | B cs/IO | A sirq/IO | B sirq/IO | A ksirqd/IO | B ksirqd/IO | noise |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in sorted({k[3] for k in points if k[:3] == cfg}, key=wl_sort):
        drv = points[cfg + (w,)]
        a, b = drv.get("A", []), drv.get("B", [])

        def m(rs, f):
            return med([r[f] for r in rs])
        ra = m(b, "iops") / m(a, "iops") if a and b and m(a, "iops") else float("nan")
        all_ratios.append((cfg, w, ra))
        # The larger of the two spreads; a ratio beyond it is starred.
        noise = max((x for x in (spread(a), spread(b)) if x == x), default=float("nan"))
        sig = "*" if ra == ra and noise == noise and abs(ra - 1) > noise else ""
        lines.append(f"| {wl_label(w)} "
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
        iops, _ = fio_result(os.path.join(pdir, base + ".json"))
    except (OSError, ValueError, KeyError, IndexError):
        continue
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
    prof.setdefault((rw, bs, qd), {}).setdefault(d, []).append((tgt, busy, iops))
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
             "over I/Os done while sampled (medians of the runs); a count of n samples "
             "is uncertain by about its square root.")
lines.append("")
lines.append("| workload | A target µs/IO | B target µs/IO | B/A | A target share | B target share "
             "| A target samples | B target samples |")
lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
cpu_ratio = {}
for (rw, bs, qd), drv in sorted(prof.items()):
    def per_io(x):
        tgt, _, iops = x
        return tgt / PERF_HZ / max(iops * RUN_SECS, 1.0) * 1e6

    def share(x):
        return ratio(x[0], x[1])
    a = med([per_io(x) for x in drv.get("A", [])])
    b = med([per_io(x) for x in drv.get("B", [])])
    r = b / a if a == a and a else float("nan")
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
        logins.setdefault(int(n), {}).setdefault(d, []).append(
            (int(ok), int(ch), float(tl), float(tt),
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
lines.append("| channels | A logged in | B logged in | A login s | B login s | A/B | "
             "A close s | B close s | A/B | "
             "A teardown s | B teardown s | A/B | A MiB/login | B MiB/login |")
lines.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
login_speedup = {}
for n, drv in sorted(logins.items()):
    a, b = drv.get("A", []), drv.get("B", [])
    al, bl = med([x[2] for x in a]), med([x[2] for x in b])
    at, bt = med([x[3] for x in a]), med([x[3] for x in b])
    ac, bc = med([x[5] for x in a]), med([x[5] for x in b])
    login_speedup[n] = ratio(al, bl)
    lines.append(f"| {n} | {min(x[0] for x in a) if a else '-'} | {min(x[0] for x in b) if b else '-'} "
                 f"| {fmt(al, 1)} | {fmt(bl, 1)} | {fmt(login_speedup[n], 2)} "
                 f"| {fmt(ac, 2)} | {fmt(bc, 2)} | {fmt(ratio(ac, bc), 2)} "
                 f"| {fmt(at, 1)} | {fmt(bt, 1)} | {fmt(ratio(at, bt), 2)} "
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
lines.append(f"- 4k random read and write at QD32, B/A, every configuration: "
             f"{', '.join(fmt(r, 2) for r in qd32)} (target: at least 1.20)")
lines.append(f"- lowest B/A of the matrix: {fmt(lowest, 2)} (target: at least 1.00)")
lines.append(f"- target CPU per 4k I/O, B/A: "
             f"{', '.join(f'{k[0]} {fmt(v, 2)}' for k, v in sorted(cpu_ratio.items()))} "
             f"(target: at most 0.80)")
lines.append(f"- logins at once, A time over B time: "
             f"{', '.join(f'{n}: {fmt(v, 2)}' for n, v in sorted(login_speedup.items()))} "
             f"(target for 64: at least 2)")
lines.append("")

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
