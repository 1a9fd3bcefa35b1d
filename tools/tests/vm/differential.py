#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of t-differential.t: run one corpus of configfs, module
parameter and login operations against the in-tree ib_srpt and against ours
in the same boot, and compare.

  differential.py CORPUS DOC OURS_KO INTREE_KO FIRST_TAP_NUMBER

CORPUS (tools/tests/vm/differential.corpus) is read line by line; its head
comment describes the format.  Each operation's result is a short string
("ok", an errno name, "admitted", a value read back, ...).  Both modules run
the whole corpus in file order, the in-tree one first; after each run
everything the corpus left in configfs is removed and the module unloaded.

DOC (Documentation/srpt.rst) lists the intended differences in its section
"Differences from the in-tree driver", one tag per entry (a line ``tag``).
An operation whose results differ must carry "@tag" naming a listed entry;
an operation that carries a tag must differ (a tag that no longer measures
anything is stale); every listed tag must be used.  Anything else fails.

Prints TAP lines numbered from FIRST_TAP_NUMBER, the whole table of results
as diagnostics, and exits 0 only when every TAP line is ok.
"""

import ctypes
import errno
import os
import re
import shlex
import stat
import string
import subprocess
import sys
import time

C = "/sys/kernel/config/target/srpt"
PARAMS = "/sys/module/ib_srpt/parameters"
# Parameters both drivers have: the ones a load reads back.
COMMON_PARAMS = ("srp_max_req_size", "srpt_srq_size", "srpt_service_guid")
DYNDBG = "/sys/kernel/debug/dynamic_debug/control"
SRP_PORT = "/sys/class/infiniband_srp/srp-rxe0-1"
# Variables a corpus line may use as ${NAME}; t-differential.t exports them.
VARS = ("GUID", "GUIDUP", "GUIDSHORT", "GUIDHEX", "GID", "GIDUP", "INI",
        "INIUP", "A4", "A4I", "A6", "A6I", "A6FULL", "A6IFULL", "LL",
        "LLFULL", "RD", "NETDEV")

libc = ctypes.CDLL(None, use_errno=True)
SYS_FINIT_MODULE = 313   # x86_64


def ename(e):
    return errno.errorcode.get(e, "E%d" % e)


def b(s):
    """A corpus string as the bytes it stands for (Latin-1: one byte each)."""
    return s.encode("latin-1")


def show(data):
    """Bytes read from a file, as one printable line."""
    text = data.decode("latin-1")
    if text.endswith("\n"):
        text = text[:-1]
    out = text.encode("unicode_escape").decode("ascii")
    return out if out else "''"


def read_file(path):
    try:
        with open(b(path), "rb") as f:
            return f.read()
    except OSError as e:
        return e


class Run:
    """One module's run of the corpus."""

    def __init__(self, which, ko, env):
        self.which = which
        self.ko = ko
        self.env = env
        self.results = []

    # ---- module load and unload ---------------------------------------

    def loaded(self):
        return os.path.exists("/sys/module/ib_srpt")

    def insmod(self, args):
        """finit_module() of the .ko with ARGS: "ok" or the errno."""
        fd = os.open(self.ko, os.O_RDONLY)
        try:
            params = ctypes.c_char_p(b(" ".join(args)))
            ret = libc.syscall(SYS_FINIT_MODULE, fd, params, 0)
            err = ctypes.get_errno()
        finally:
            os.close(fd)
        return "ok" if ret == 0 else ename(err)

    def rmmod(self):
        r = subprocess.run(["rmmod", "ib_srpt"], capture_output=True)
        return "ok" if r.returncode == 0 else "failed"

    def dyndbg_on(self):
        try:
            with open(DYNDBG) as f:
                return any("[ib_srpt]" in line and re.search(r" =p", line)
                           for line in f)
        except OSError:
            return False

    # ---- operations ----------------------------------------------------

    def op_load(self, args):
        res = self.insmod(args)
        if res != "ok":
            return res
        vals = []
        for p in COMMON_PARAMS:
            v = read_file("%s/%s" % (PARAMS, p))
            vals.append("%s=%s" % (p, show(v) if isinstance(v, bytes)
                                   else ename(v.errno)))
        if self.dyndbg_on():
            vals.append("dyndbg on")
        if self.rmmod() != "ok":
            vals.append("rmmod failed")
        return "ok " + " ".join(vals)

    def op_insmod(self, args):
        return self.insmod(args)

    def op_rmmod(self, args):
        return self.rmmod()

    def op_mkdir(self, args):
        try:
            os.mkdir(b(args[0]))
            return "ok"
        except OSError as e:
            return ename(e.errno)

    def op_rmdir(self, args):
        try:
            os.rmdir(b(args[0]))
            return "ok"
        except OSError as e:
            return ename(e.errno)

    def op_try(self, args):
        """mkdir, and rmdir again when that worked."""
        res = self.op_mkdir(args)
        if res == "ok":
            rm = self.op_rmdir(args)
            if rm != "ok":
                res += ", rmdir " + rm
        return res

    def op_ln(self, args):
        try:
            os.symlink(b(args[0]), b(args[1]))
            return "ok"
        except OSError as e:
            return ename(e.errno)

    def op_rm(self, args):
        try:
            os.unlink(b(args[0]))
            return "ok"
        except OSError as e:
            return ename(e.errno)

    def write_to(self, path, data):
        try:
            fd = os.open(b(path), os.O_WRONLY)
        except OSError as e:
            return "open " + ename(e.errno)
        try:
            n = os.write(fd, b(data))
            return "ok" if n == len(b(data)) else "short write %d" % n
        except OSError as e:
            return ename(e.errno)
        finally:
            os.close(fd)

    def op_write(self, args):
        """Write, then read the file back."""
        res = self.write_to(args[0], args[1])
        back = read_file(args[0])
        if isinstance(back, bytes):
            return "%s -> %s" % (res, show(back))
        return res

    def op_read(self, args):
        v = read_file(args[0])
        return show(v) if isinstance(v, bytes) else ename(v.errno)

    def op_pwrite(self, args):
        """Write a module parameter through sysfs."""
        res = self.write_to("%s/%s" % (PARAMS, args[0]), args[1])
        back = read_file("%s/%s" % (PARAMS, args[0]))
        if isinstance(back, bytes):
            return "%s -> %s" % (res, show(back))
        return res

    def op_ls(self, args):
        """Entries of a directory: name, mode, and / for a directory or @
        for a link."""
        try:
            names = sorted(os.listdir(b(args[0])))
        except OSError as e:
            return ename(e.errno)
        out = []
        for n in names:
            st = os.lstat(os.path.join(b(args[0]), n))
            kind = "/" if stat.S_ISDIR(st.st_mode) else \
                "@" if stat.S_ISLNK(st.st_mode) else ""
            out.append("%s%s:%o" % (n.decode("latin-1"), kind,
                                    st.st_mode & 0o7777))
        return " ".join(out) if out else "(empty)"

    def op_login(self, args):
        """login TPG ACL OPTIONS: node ACL ACL in TPG with LUN 0 mapped,
        then an ib_srp login with OPTIONS; "admitted" when ib_srp logged in
        and LUN 0 appeared as a disk."""
        tpg, acl, opts = args
        d = "%s/acls/%s" % (tpg, acl)
        res = self.op_mkdir([d])
        if res != "ok":
            return "ACL " + res
        try:
            os.mkdir(b(d + "/lun_0"))
            os.symlink(b(tpg + "/lun/lun_0"), b(d + "/lun_0/lun_0"))
        except OSError as e:
            return "mapped LUN " + ename(e.errno)
        guid = read_file(PARAMS + "/srpt_service_guid")
        guid = guid.decode().strip()[2:]
        login = "id_ext=%s,ioc_guid=%s,%s" % (guid, guid, opts)
        res = self.write_to(SRP_PORT + "/add_target", login)
        if res == "ok":
            res = "admitted" if srp_disk(20) else "admitted, no disk"
        else:
            res = "refused"
        logout()
        cleanup_acl(b(d))
        return res

    def run(self, ops):
        for op in ops:
            args = [self.expand(a) for a in op.args]
            fn = getattr(self, "op_" + op.name)
            try:
                res = fn(args)
            except Exception as e:          # report, go on
                res = "runner error: %r" % e
            self.results.append(res)

    def expand(self, arg):
        s = string.Template(arg).substitute(self.env)
        return s.encode("latin-1", "backslashreplace").decode(
            "unicode_escape")


# ---- helpers shared by runs ---------------------------------------------

def srp_disk(timeout):
    """Wait until an ib_srp SCSI host has a disk."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for h in os.listdir("/sys/class/scsi_host"):
            hp = "/sys/class/scsi_host/" + h
            try:
                if open(hp + "/proc_name").read().strip() != "ib_srp":
                    continue
            except OSError:
                continue
            for root, dirs, files in os.walk(hp + "/device"):
                if os.path.basename(root) == "block" and dirs:
                    return True
        time.sleep(0.1)
    return False


def target_channels():
    r = subprocess.run(["rdma", "resource", "show", "cm_id"],
                       capture_output=True, text=True)
    return sum(1 for line in r.stdout.splitlines()
               if "comm [ib_srpt]" in line and "state LISTEN" not in line)


def logout():
    """Log every ib_srp port out; wait for its SCSI hosts and the target's
    channels to go."""
    rp = "/sys/class/srp_remote_ports"
    if os.path.isdir(rp):
        for p in os.listdir(rp):
            try:
                with open("%s/%s/delete" % (rp, p), "w") as f:
                    f.write("1")
            except OSError:
                pass
    end = time.monotonic() + 30
    while time.monotonic() < end:
        hosts = 0
        for h in os.listdir("/sys/class/scsi_host"):
            try:
                if open("/sys/class/scsi_host/%s/proc_name" % h).read() \
                        .strip() == "ib_srp":
                    hosts += 1
            except OSError:
                pass
        if not (os.path.isdir(rp) and os.listdir(rp)) and hosts == 0 and \
                target_channels() == 0:
            return True
        time.sleep(0.1)
    return False


def unlink_links(d):
    for n in os.listdir(d):
        p = os.path.join(d, n)
        if os.path.islink(p):
            os.unlink(p)


def cleanup_acl(d):
    """Unmap the LUNs of a node ACL (bytes path) and remove it."""
    for n in os.listdir(d):
        if n.startswith(b"lun_"):
            unlink_links(os.path.join(d, n))
            os.rmdir(os.path.join(d, n))
    os.rmdir(d)


def teardown():
    """Remove everything under the fabric directory, the fabric directory,
    and unload the module.  Returns a list of what could not be undone."""
    bad = []
    if not logout():
        bad.append("ib_srp logout")
    if os.path.isdir(C):
        for tp in sorted(os.listdir(b(C))):
            tpd = os.path.join(b(C), tp)
            if tp == b"discovery_auth" or not os.path.isdir(tpd):
                continue
            for tg in sorted(os.listdir(tpd)):
                tgd = os.path.join(tpd, tg)
                if not os.path.exists(os.path.join(tgd, b"enable")):
                    continue
                try:
                    with open(os.path.join(tgd, b"enable"), "w") as f:
                        f.write("0")
                    for a in sorted(os.listdir(os.path.join(tgd, b"acls"))):
                        cleanup_acl(os.path.join(tgd, b"acls", a))
                    for lun in sorted(os.listdir(os.path.join(tgd, b"lun"))):
                        ld = os.path.join(tgd, b"lun", lun)
                        unlink_links(ld)
                        os.rmdir(ld)
                    os.rmdir(tgd)
                except OSError as e:
                    bad.append("%s: %s" % (tgd.decode("latin-1"),
                                           ename(e.errno)))
            try:
                os.rmdir(tpd)
            except OSError as e:
                bad.append("%s: %s" % (tpd.decode("latin-1"),
                                       ename(e.errno)))
        try:
            with open(C + "/discovery_auth/rdma_cm_port", "w") as f:
                f.write("0")
            os.rmdir(C)
        except OSError as e:
            bad.append("%s: %s" % (C, ename(e.errno)))
    if os.path.exists("/sys/module/ib_srpt"):
        if subprocess.run(["rmmod", "ib_srpt"]).returncode:
            bad.append("rmmod ib_srpt")
    return bad


# ---- corpus and documentation ---------------------------------------------

class Op:
    def __init__(self, lineno, section, text, name, args, tags):
        self.lineno = lineno
        self.section = section
        self.text = text
        self.name = name
        self.args = args
        self.tags = tags


NARGS = {"load": None, "insmod": None, "rmmod": 0, "mkdir": 1, "rmdir": 1,
         "try": 1, "ln": 2, "rm": 1, "write": 2, "read": 1, "pwrite": 2,
         "ls": 1, "login": 3}


def parse_corpus(path):
    ops, errors, section = [], [], "(none)"
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            if text.startswith("[") and text.endswith("]"):
                section = text[1:-1]
                continue
            try:
                words = shlex.split(text)
            except ValueError as e:
                errors.append("line %d: %s" % (lineno, e))
                continue
            tags = [w[1:] for w in words if w.startswith("@")]
            words = [w for w in words if not w.startswith("@")]
            name, args = words[0], words[1:]
            if name not in NARGS:
                errors.append("line %d: unknown operation %s" % (lineno, name))
                continue
            if NARGS[name] is not None and len(args) != NARGS[name]:
                errors.append("line %d: %s takes %d arguments" %
                              (lineno, name, NARGS[name]))
                continue
            text = re.sub(r"\s+@\S+", "", text)
            ops.append(Op(lineno, section, text, name, args, tags))
    return ops, errors


def doc_tags(path):
    """Tags of the entries of "Differences from the in-tree driver"."""
    tags, inside = [], False
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if line == "Differences from the in-tree driver":
            inside = True
            continue
        if inside and i + 1 < len(lines) and line and \
                re.fullmatch(r"=+", lines[i + 1]):
            break       # the next section
        m = re.fullmatch(r"``([a-z0-9-]+)``", line)
        if inside and m:
            tags.append(m.group(1))
    return tags


# ---- main -------------------------------------------------------------------

class Tap:
    def __init__(self, first):
        self.n = first - 1
        self.failed = 0

    def ok(self, cond, name, diags=()):
        self.n += 1
        if not cond:
            self.failed += 1
        print("%sok %d - %s" % ("" if cond else "not ", self.n, name))
        for d in diags:
            print("# " + d)
        sys.stdout.flush()


def cut(s, n):
    return s if len(s) <= n else s[:n - 3] + "..."


def main():
    corpus, doc, ours_ko, intree_ko, first = sys.argv[1:6]
    tap = Tap(int(first))
    env = {v: os.environ.get("DIFF_" + v, "") for v in VARS}
    env["C"] = C
    ops, errors = parse_corpus(corpus)
    tap.ok(not errors and len(ops) >= 200,
           "corpus parsed: %d operations" % len(ops), errors)
    documented = doc_tags(doc)
    tap.ok(len(documented) > 0,
           "Documentation lists %d intended differences" % len(documented))

    runs = []
    for which, ko in (("intree", intree_ko), ("ours", ours_ko)):
        r = Run(which, ko, env)
        t0 = time.monotonic()
        r.run(ops)
        bad = teardown()
        tap.ok(not bad, "%s: corpus run in %d s, configfs torn down, module "
               "unloaded" % (which, time.monotonic() - t0), bad)
        runs.append(r)
    intree, ours = runs

    # The table, and the verdict per section.
    print("# %-4s %-58s | %-30s | %-30s | %s" %
          ("line", "operation", "in-tree", "ours (= the same)", "difference"))
    sections, details, used = {}, [], set()
    ndiff = {}
    for i, op in enumerate(ops):
        a, o = intree.results[i], ours.results[i]
        differ = a != o
        note = ""
        bad = None
        if differ and not op.tags:
            bad = note = "UNEXPLAINED"
        elif differ and any(t not in documented for t in op.tags):
            bad = note = "TAG NOT DOCUMENTED: " + ",".join(op.tags)
        elif differ:
            note = ",".join(op.tags)
            used.update(op.tags)
            for t in op.tags:
                ndiff[t] = ndiff.get(t, 0) + 1
        elif op.tags:
            bad = note = "STALE TAG " + ",".join(op.tags) + " (no difference)"
        if differ:
            print("# %-4d %-58s | %-30s | %-30s | %s" %
                  (op.lineno, cut(op.text, 58), cut(a, 30), cut(o, 30), note))
        else:
            print("# %-4d %-58s | %-30s | =%s" %
                  (op.lineno, cut(op.text, 58), a, " " * 29 + " | " + note
                   if note else ""))
        if differ and (len(a) > 30 or len(o) > 30 or bad):
            details.append("line %d %s\n#     in-tree: %s\n#     ours:    %s" %
                           (op.lineno, op.text, a, o))
        s = sections.setdefault(op.section, [0, 0, []])
        s[0] += 1
        s[1] += differ
        if bad:
            s[2].append("line %d: %s: %s (in-tree: %s; ours: %s)" %
                        (op.lineno, bad, op.text, a, o))
    for d in details:
        print("# " + d)
    for name, (n, d, bad) in sections.items():
        tap.ok(not bad, "%s: %d operations, %d differences, %d unexplained "
               "or stale" % (name, n, d, len(bad)), bad)
    unused = [t for t in documented if t not in used]
    tap.ok(not unused, "every documented difference is measured by the "
           "corpus", ["not measured: " + t for t in unused])
    total = sum(s[1] for s in sections.values())
    print("# summary: %d operations, %d differences, all intended: %s" %
          (len(ops), total, ", ".join("%s %d" % (t, ndiff[t])
                                      for t in sorted(ndiff))))
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
