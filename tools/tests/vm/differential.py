#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of t-differential.t: run one corpus of configfs, module
parameter and login operations against the in-tree ib_srpt and against ours
in the same boot, and compare.

  differential.py CORPUS DOC OURS_KO INTREE_KO FIRST_TAP_NUMBER

CORPUS (tools/tests/vm/differential.corpus) is read line by line; its head
comment describes the format.  Each operation's result is a short string
("ok", an errno name, "admitted", a value read back, ...).  The modules run
the whole corpus in file order in turns, in-tree, ours, in-tree, ours; after
each run everything the corpus left in configfs is removed and the module
unloaded.  Each module's two runs must give the same results.

DOC (Documentation/srpt.rst) lists the intended differences in its section
"Differences from the in-tree driver", one tag per entry (a line ``tag``,
or ``tag`` (Linux 6.12 and later) for an entry about some kernels' in-tree
drivers only).  An operation whose results differ must carry "@tag=RESULT"
naming an entry that holds for the running kernel, and ours must give
RESULT (for "ls", RESULT "+ENTRY..." means the in-tree listing with ENTRY
added: the files ours has in addition to what the kernel's LIO provides,
which differs between kernels); an operation that carries such a tag must differ (a tag that no
longer measures anything is stale); every entry that holds for the running
kernel must be used.  A runner error or an ib_srp logout that did not
finish fails the operation's section.  Anything else fails.

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
# The userspace SRP initiator (tools/srp-probe), for "taskattr" and "logout".
PROBE = os.environ.get("DIFF_PROBE", "")
# Variables a corpus line may use as ${NAME}; t-differential.t exports them.
VARS = ("GUID", "GUIDUP", "GUIDSHORT", "GUIDHEX", "GID", "GIDUP", "INI",
        "INIUP", "A4", "A4I", "A6", "A6I", "A6FULL", "A6IFULL", "LL",
        "LLFULL", "RD", "NETDEV")

libc = ctypes.CDLL(None, use_errno=True)
SYS_FINIT_MODULE = 313   # x86_64


def ename(e):
    return errno.errorcode.get(e, "E%d" % e)


def plain_ko(path):
    """An uncompressed copy (in /tmp) of a .ko.xz, .ko.zst or .ko.gz, which
    the kernels since 6.12 ship (finit_module() takes them only with
    MODULE_INIT_COMPRESSED_FILE and CONFIG_MODULE_DECOMPRESS); PATH itself
    when it is a plain .ko."""
    opener = None
    if path.endswith(".ko.xz"):
        import lzma
        opener = lzma.open
    elif path.endswith(".ko.gz"):
        import gzip
        opener = gzip.open
    elif path.endswith(".ko.zst"):
        out = "/tmp/plain" + path.replace("/", "_")[:-4]
        subprocess.run(["zstd", "-q", "-f", "-d", path, "-o", out],
                       check=True)
        return out
    if opener is None:
        return path
    out = "/tmp/plain" + path.replace("/", "_").rsplit(".", 1)[0]
    if not os.path.exists(out):
        with opener(path) as src, open(out, "wb") as dst:
            dst.write(src.read())
    return out


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
        # Why an operation came out as it did, where the result alone
        # does not say (the errno of a refused login); shown, not compared.
        self.why = []
        self.note = ""

    # ---- module load and unload ---------------------------------------

    def loaded(self):
        return os.path.exists("/sys/module/ib_srpt")

    def insmod(self, args):
        """finit_module() of the .ko with ARGS: "ok" or the errno."""
        fd = os.open(plain_ko(self.ko), os.O_RDONLY)
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

    def acl_lun0(self, tpg, acl):
        """Node ACL ACL in TPG with LUN 0 mapped: None, or what failed."""
        d = "%s/acls/%s" % (tpg, acl)
        res = self.op_mkdir([d])
        if res != "ok":
            return "ACL " + res
        try:
            os.mkdir(b(d + "/lun_0"))
            os.symlink(b(tpg + "/lun/lun_0"), b(d + "/lun_0/lun_0"))
        except OSError as e:
            return "mapped LUN " + ename(e.errno)
        return None

    def op_login(self, args):
        """login TPG ACL OPTIONS: node ACL ACL in TPG with LUN 0 mapped,
        then an ib_srp login with OPTIONS; "admitted" when ib_srp logged in
        and LUN 0 appeared as a disk."""
        tpg, acl, opts = args
        d = "%s/acls/%s" % (tpg, acl)
        res = self.acl_lun0(tpg, acl)
        if res:
            return res
        guid = read_file(PARAMS + "/srpt_service_guid")
        guid = guid.decode().strip()[2:]
        login = "id_ext=%s,ioc_guid=%s,%s" % (guid, guid, opts)
        # ib_srp answers EEXIST ("Already connected") without sending
        # anything while it still lists the previous login's target port:
        # it unlists it only after its SCSI host and the target's channel,
        # which logout() waits for, are gone.  Only that answer is retried
        # (10 s); the target never saw it.
        for _ in range(50):
            res = self.write_to(SRP_PORT + "/add_target", login)
            if res != ename(errno.EEXIST):
                break
            time.sleep(0.2)
        if res == "ok":
            res = "admitted" if srp_disk(20) else "admitted, no disk"
        else:
            self.note = "add_target " + res
            res = "refused"
        if not logout():
            self.note += (", " if self.note else "") + \
                "ib_srp logout not finished in 30 s"
        cleanup_acl(b(d))
        return res

    def probe(self, opts):
        """srp-probe with OPTS, logged in over RDMA/CM to the target's
        port 5555: the finished process, or None when it hung (90 s).  -t 3:
        each step's timeout, the wait for the target to close the channel
        after SRP_I_LOGOUT among them, which the in-tree driver ignores
        (srp-probe then disconnects itself).  Its output goes to the note
        when it fails."""
        try:
            p = subprocess.run([PROBE, "-t", "3", "-e", self.env["GUIDHEX"]] +
                               opts + [self.env["A4"], "5555"],
                               capture_output=True, text=True, timeout=90)
        except subprocess.TimeoutExpired:
            return None
        if p.returncode:
            self.note = cut(" ".join((p.stdout + p.stderr).split()), 200)
        return p

    def probe_done(self, d):
        """After srp-probe: the target's channel released (noted when not
        in 30 s: the operation fails), ACL directory D removed."""
        if not target_channels_gone(30):
            self.note += (", " if self.note else "") + \
                "srp-probe's logout not finished: the target's channel " \
                "not released in 30 s"
        cleanup_acl(b(d))

    def op_taskattr(self, args):
        """taskattr TPG ACL ATTR: node ACL ACL in TPG with LUN 0 mapped,
        then srp-probe (its own login over RDMA/CM, as ACL) sends every
        SCSI command with task attribute ATTR: REPORT LUNS, INQUIRY, READ
        CAPACITY, 8 blocks written, read back and compared.  The result is
        its exit status and the task attributes LIO's
        target_handle_task_attr() logged for them (dynamic debug: HEAD OF
        QUEUE and ORDERED, one line a command; SIMPLE logs none).  A
        channel the target keeps after srp-probe's logout fails the
        operation ("logout not finished")."""
        tpg, acl, attr = args
        d = "%s/acls/%s" % (tpg, acl)
        res = self.acl_lun0(tpg, acl)
        if res:
            return res
        with open(DYNDBG, "w") as f:
            f.write("func target_handle_task_attr +p")
        before = lio_task_attrs()
        p = self.probe(["-q", "-l", "0", "-w", "8", "-a", "8192",
                        "--task-attr", attr])
        res = "srp-probe hung (90 s)" if p is None else \
            "exit %d" % p.returncode
        after = lio_task_attrs()
        seen = ["%s x%d" % (a, after[a] - before.get(a, 0))
                for a in sorted(after) if after[a] > before.get(a, 0)]
        self.probe_done(d)
        return "%s, LIO logged %s" % (res, ", ".join(seen) or "none")

    def op_logout(self, args):
        """logout TPG ACL: node ACL ACL in TPG with LUN 0 mapped, then
        srp-probe logs in as ACL over RDMA/CM and sends SRP_I_LOGOUT at
        once.  The result is what srp-probe saw: "the target closed the
        channel", or "disconnected" when the target kept it for 3 s (its
        step timeout) and srp-probe closed it itself; with its exit status
        when not 0."""
        tpg, acl = args
        d = "%s/acls/%s" % (tpg, acl)
        res = self.acl_lun0(tpg, acl)
        if res:
            return res
        p = self.probe([])
        if p is None:
            res = "srp-probe hung (90 s)"
        else:
            seen = [line[len("logout: "):] for line in p.stdout.splitlines()
                    if line.startswith("logout: ")]
            res = seen[0] if seen else "no logout line"
            if p.returncode:
                res += ", exit %d" % p.returncode
        self.probe_done(d)
        return res

    def run(self, ops):
        for op in ops:
            args = [self.expand(a) for a in op.args]
            fn = getattr(self, "op_" + op.name)
            self.note = ""
            try:
                res = fn(args)
            except Exception as e:          # report, go on
                res = "runner error: %r" % e
            self.results.append(res)
            self.why.append(self.note)

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


def lio_task_attrs():
    """{attribute: lines} of LIO's "Added HEAD_OF_QUEUE|ORDERED for CDB"
    in the kernel log."""
    out = subprocess.run(["dmesg"], capture_output=True, text=True,
                         errors="replace").stdout
    n = {}
    for m in re.finditer(r"Added (HEAD_OF_QUEUE|ORDERED) for CDB", out):
        n[m.group(1)] = n.get(m.group(1), 0) + 1
    return n


def target_channels_gone(timeout):
    """Wait until the target has no channel."""
    end = time.monotonic() + timeout
    while target_channels():
        if time.monotonic() > end:
            return False
        time.sleep(0.1)
    return True


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
         "ls": 1, "login": 3, "taskattr": 3, "logout": 2}


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
            tags = [w[1:].split("=", 1) for w in words if w.startswith("@")]
            words = [w for w in words if not w.startswith("@")]
            name, args = words[0], words[1:]
            if len(tags) > 1 or any(len(t) != 2 for t in tags):
                errors.append("line %d: one @TAG=RESULT at most, with the "
                              "result ours must give" % lineno)
                continue
            if name not in NARGS:
                errors.append("line %d: unknown operation %s" % (lineno, name))
                continue
            if NARGS[name] is not None and len(args) != NARGS[name]:
                errors.append("line %d: %s takes %d arguments" %
                              (lineno, name, NARGS[name]))
                continue
            text = re.sub(r"""\s+@(?:[^\s"']|"[^"]*"|'[^']*')+""", "",
                          text)
            op = Op(lineno, section, text, name, args, [t[0] for t in tags])
            op.expect = tags[0][1] if tags else None
            ops.append(op)
    return ops, errors


def kernel_version(release):
    """(major, minor, patch) of a kernel release such as 7.3.4+deb13-amd64
    or 6.1.0-57-amd64 (Debian's 6.1 ABI name; its real version is in
    /proc/version, which kernel_running() reads)."""
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", release)
    return tuple(int(x or 0) for x in m.groups()) if m else (0, 0, 0)


def kernel_running():
    """The running kernel's version: Debian's package version in
    /proc/version ("Debian 6.1.192-3") when there is one, as its release
    name (6.1.0-57-amd64) does not carry the patch level."""
    try:
        with open("/proc/version") as f:
            # the last one: the compiler's comes first ("Debian 12.2.0-14")
            m = re.findall(r"Debian (\d+\.\d+\.\d+)", f.read())
        if m:
            return kernel_version(m[-1])
    except OSError:
        pass
    return kernel_version(os.uname().release)


def kernel_range(text):
    """The kernels an entry's heading names: "(Linux R, R, ...)", each R
    "A to B", "A and later" or "B and earlier"; every kernel when there is
    none.  Returns a list of (low, high), inclusive, or None for a heading
    not understood."""
    def last(v):
        """The last version an upper bound takes in: "6.12" is every 6.12.y."""
        k = kernel_version(v)
        return k if v.count(".") == 2 else (k[0], k[1], 9999)

    if not text:
        return [((0, 0, 0), (999, 0, 0))]
    m = re.fullmatch(r"\(Linux (.+)\)", text)
    if not m:
        return None
    v = r"(\d+\.\d+(?:\.\d+)?)"
    ranges = []
    for part in m.group(1).split(", "):
        m = re.fullmatch(r"%s to %s" % (v, v), part)
        if m:
            ranges.append((kernel_version(m.group(1)), last(m.group(2))))
            continue
        m = re.fullmatch(r"%s and later" % v, part)
        if m:
            ranges.append((kernel_version(m.group(1)), (999, 0, 0)))
            continue
        m = re.fullmatch(r"%s and earlier" % v, part)
        if m:
            ranges.append(((0, 0, 0), last(m.group(1))))
            continue
        return None
    return ranges


def doc_tags(path):
    """The entries of "Differences from the in-tree driver": {tag: [(low,
    high), ...]}, the kernels whose in-tree driver each concerns, and the
    headings not understood.  An entry's heading is its tag, ``tag``,
    optionally followed by those kernels, e.g. ``tag`` (Linux 6.12 and
    later) or ``tag`` (Linux 6.1 to 6.1.187, 6.12 to 6.12.109)."""
    tags, errors, inside = {}, [], False
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if line == "Differences from the in-tree driver":
            inside = True
            continue
        if inside and i + 1 < len(lines) and line and \
                re.fullmatch(r"=+", lines[i + 1]):
            break       # the next section
        m = re.fullmatch(r"``([a-z0-9-]+)``(?: (\(.*\)))?", line)
        if inside and m:
            r = kernel_range(m.group(2))
            if r is None:
                errors.append("kernels not understood: " + line)
            else:
                tags[m.group(1)] = r
    return tags, errors


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


def ls_key(entry):
    """Sort key of an "ls" result entry: its name, as op_ls sorts."""
    return entry.rsplit(":", 1)[0].rstrip("/@").encode("latin-1")


def expected(op, intree):
    """The result ours must give for op: its tag's RESULT, or for "ls"
    with RESULT "+ENTRY...", the in-tree listing with those entries added."""
    if op.name == "ls" and op.expect.startswith("+"):
        have = [] if intree == "(empty)" else intree.split()
        return " ".join(sorted(have + op.expect[1:].split(), key=ls_key))
    return op.expect


def main():
    corpus, doc, ours_ko, intree_ko, first = sys.argv[1:6]
    tap = Tap(int(first))
    env = {v: os.environ.get("DIFF_" + v, "") for v in VARS}
    env["C"] = C
    ops, errors = parse_corpus(corpus)
    tap.ok(not errors and len(ops) >= 200,
           "corpus parsed: %d operations" % len(ops), errors)
    kver = kernel_running()
    entries, errors = doc_tags(doc)
    documented = [t for t, ranges in entries.items()
                  if any(lo <= kver <= hi for lo, hi in ranges)]
    tap.ok(len(documented) > 0 and not errors,
           "Documentation lists %d intended differences, %d of them for "
           "Linux %s" % (len(entries), len(documented),
                         ".".join(map(str, kver))), errors)
    # A tag whose entry concerns other kernels explains nothing here: the
    # two drivers must agree on its operations.  An unknown tag stays, and
    # fails below.
    for op in ops:
        op.tags = [t for t in op.tags if t in documented or
                   t not in entries]

    # Each driver runs the corpus twice, in turns: in-tree, ours, in-tree,
    # ours.  Each comes once first and once after the other, and its two
    # runs must agree (a result that depends on what ran before, or that
    # changes from one run to the next, is no result).
    runs = []
    for which, ko in (("intree", intree_ko), ("ours", ours_ko)) * 2:
        r = Run(which, ko, env)
        t0 = time.monotonic()
        r.run(ops)
        bad = teardown()
        tap.ok(not bad, "%s, run %d: corpus run in %d s, configfs torn down, "
               "module unloaded" % (which, len(runs) // 2 + 1,
                                    time.monotonic() - t0), bad)
        runs.append(r)
    for a, b in (runs[0], runs[2]), (runs[1], runs[3]):
        moved = ["line %d %s: %s, then %s%s" %
                 (op.lineno, op.text, a.results[i], b.results[i],
                  "".join(" [%s]" % w for w in (a.why[i], b.why[i]) if w))
                 for i, op in enumerate(ops)
                 if a.results[i] != b.results[i]]
        tap.ok(not moved, "%s: both runs give the same results (%d "
               "differ)" % (a.which, len(moved)), moved)
    intree, ours = runs[0], runs[1]

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
        if "runner error" in a or "runner error" in o:
            bad = note = "RUNNER ERROR"
        elif any("logout not finished" in r.why[i] for r in runs):
            bad = note = "LOGOUT NOT FINISHED"
        elif differ and not op.tags:
            bad = note = "UNEXPLAINED"
        elif differ and any(t not in documented for t in op.tags):
            bad = note = "TAG NOT DOCUMENTED: " + ",".join(op.tags)
        elif differ and o != expected(op, a):
            bad = note = "%s: ours should give %s" % (op.tags[0],
                                                      expected(op, a))
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
            why = "; ".join("%s: %s" % (r.which, r.why[i])
                            for r in runs if r.why[i])
            s[2].append("line %d: %s: %s (in-tree: %s; ours: %s)%s" %
                        (op.lineno, bad, op.text, a, o,
                         " [" + why + "]" if why else ""))
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
