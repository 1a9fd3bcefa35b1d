# SPDX-License-Identifier: GPL-2.0
"""Instructions per I/O from the snapshots of insn-count.so (make bench
BENCH_INSN=1), attributed to the guest kernel's functions.

A snapshot (see tools/bench/insn/insn-count.c) holds, for every translation
block address whose count changed since the previous snapshot, the guest
instructions executed in blocks starting there; address 0 sums user space.
guest.sh takes one snapshot just before a measured fio run and one just
after, so the second is the run.  Each address is given to the text symbol
at or below it: the kernel's own (kernel.syms, once per boot) and the
modules' of the run's session (modules-N.syms; a module loaded again moves).
"""
import bisect
import os

TARGET_PREFIXES = ("target_core_",)


def read_snapshots(path, wanted):
    """{seq: {addr: count}} of the snapshots numbered in @wanted; one
    without its "end" line (QEMU stopped while writing it) is left out."""
    snaps = {}
    cur = None
    seq = None
    with open(path) as f:
        for line in f:
            if line.startswith("snapshot "):
                seq = int(line.split()[1])
                cur = {} if seq in wanted else None
            elif line.startswith("end "):
                if cur is not None and int(line.split()[1]) == seq:
                    snaps[seq] = cur
                cur = None
            elif cur is not None:
                a, n = line.split()
                cur[int(a, 16)] = cur.get(int(a, 16), 0) + int(n)
    return snaps


def read_syms(path, default_mod):
    """(addr, name, module) of each text symbol in a /proc/kallsyms extract."""
    out = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 3:
                continue
            mod = p[3].strip("[]") if len(p) > 3 else default_mod
            out.append((int(p[0], 16), p[2], mod))
    return out


class Symbols:
    """Address to (function, module) for one session."""

    def __init__(self, kernel, modules):
        syms = sorted(set(kernel + modules))
        self.addrs = [s[0] for s in syms]
        self.syms = syms

    def lookup(self, addr):
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return ("?", "?")
        return self.syms[i][1], self.syms[i][2]


def attribute(counts, symbols):
    """{(function, module): instructions} of one snapshot; user space is
    ("user space", "user")."""
    out = {}
    for addr, n in counts.items():
        key = ("user space", "user") if addr == 0 else symbols.lookup(addr)
        out[key] = out.get(key, 0) + n
    return out


def is_target(fn, mod):
    return (mod == "ib_srpt" or mod.startswith(TARGET_PREFIXES)
            or (mod == "ib_core" and fn.startswith("rdma_rw")))


def per_run(results, snap_path, runs):
    """For each run (dicts with "insn", "ksyms", "ios") that has a snapshot,
    set "insn_driver", "insn_target", "insn_kernel" and "insn_user" (per
    I/O) and "insn_funcs" ({(function, module): per I/O}).  Returns the
    number of runs without one."""
    idir = os.path.join(results, "insn")
    wanted = {int(r["insn"]) for r in runs if str(r.get("insn", "-")).isdigit()}
    snaps = read_snapshots(snap_path, wanted) if wanted else {}
    kernel = read_syms(os.path.join(idir, "kernel.syms"), "vmlinux")
    cache = {}
    missing = 0
    for r in runs:
        seq = r.get("insn", "-")
        ios = r.get("ios_n", float("nan"))
        if not str(seq).isdigit() or int(seq) not in snaps or not ios == ios or not ios:
            missing += 1
            continue
        ks = r.get("ksyms") or ""
        if ks not in cache:
            mods = read_syms(os.path.join(idir, ks), "?") if ks and ks != "-" else []
            cache[ks] = Symbols(kernel, mods)
        by_fn = attribute(snaps[int(seq)], cache[ks])
        drv = tgt = kern = user = 0
        for (fn, mod), n in by_fn.items():
            if mod == "user":
                user += n
                continue
            kern += n
            drv += n if mod == "ib_srpt" else 0
            tgt += n if is_target(fn, mod) else 0
        r["insn_driver"] = drv / ios
        r["insn_target"] = tgt / ios
        r["insn_kernel"] = kern / ios
        r["insn_user"] = user / ios
        r["insn_funcs"] = {k: v / ios for k, v in by_fn.items()}
    return missing
