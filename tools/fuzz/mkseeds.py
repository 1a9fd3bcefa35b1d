#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpora of the fuzzers: tools/fuzz/corpus/<harness>/.

Every seed is a valid request (or a deliberately refused one) built from the
layouts of the SRP r16a specification (T10/1415-D; immediate data from
SRP-2), ib_srp's RDMA/CM login form and the InfiniBand Device Management
class (IBA vol 1, 13.4 and 16.3), not from srpt_iu.h or srpt_mad.h, each
preceded by the header its harness expects (see the harness's comment).

  tools/fuzz/mkseeds.py [OUTDIR]     (default: tools/fuzz/corpus)

The output is deterministic, so tools/tests/host/t-fuzz.t can check that the
corpus in the tree is what this script writes.
"""

import os
import shutil
import struct
import sys

TAG = bytes.fromhex("deadbeef01020304")
LUN = bytes.fromhex("4001000000000000")
# Port ids as ib_srp fills them: id extension, then GUID.
INITIATOR_ID = bytes(8) + bytes.fromhex("505400fffe123456")
TARGET_ID = bytes.fromhex("505400fffe4a0b7b") * 2


def be16(v):
    return struct.pack(">H", v)


def be32(v):
    return struct.pack(">I", v)


def be64(v):
    return struct.pack(">Q", v)


# --------------------------------------------------------------------------
# Login (SRP r16a 6.2, table 11; ib_srp's struct srp_login_req_rdma).

def login_ib(it_iu_len=8260, buf_fmt=0x06, flags=0x80, imm_off=68,
             target=TARGET_ID, opcode=0x00):
    iu = bytearray(64)
    iu[0] = opcode
    iu[8:16] = TAG
    iu[16:20] = be32(it_iu_len)
    iu[24:26] = be16(buf_fmt)
    iu[26] = flags
    iu[28:30] = be16(imm_off)
    iu[32:48] = INITIATOR_ID
    iu[48:64] = target
    # IB CM REQ private data is 92 bytes; the rest is zero.
    return bytes(iu) + bytes(28)


def login_rdma(it_iu_len=8260, buf_fmt=0x06, flags=0x80, imm_off=68,
               target=TARGET_ID):
    iu = bytearray(56)
    iu[0:8] = TAG
    iu[8:10] = be16(buf_fmt)
    iu[10] = flags
    iu[11] = 0x00
    iu[12:16] = be32(it_iu_len)
    iu[16:32] = INITIATOR_ID
    iu[32:48] = target
    iu[48:50] = be16(imm_off)
    return bytes(iu)


def login_hdr(rdma=False, check_target=True, buf_len=52, max_req=8276,
              max_rsp=1024, delta=127):
    mode = (1 if rdma else 0) | (2 if check_target else 0)
    return (bytes([mode, buf_len, 0, 0]) + be32(max_req) + be32(max_rsp) +
            be32(delta) + TARGET_ID)


def login_seeds():
    h = login_hdr
    return {
        "ib-default": h() + login_ib(),
        "ib-no-imm": h() + login_ib(flags=0x00, imm_off=0),
        "ib-multichannel": h() + login_ib(flags=0x81),
        "ib-any-target": h(check_target=False) + login_ib(),
        "ib-imm-offset-52": h() + login_ib(imm_off=52),
        "ib-imm-offset-too-small": h() + login_ib(imm_off=48),
        "ib-it-iu-len-64": h() + login_ib(it_iu_len=64, flags=0),
        "ib-it-iu-len-63": h() + login_ib(it_iu_len=63),
        "ib-it-iu-len-too-large": h(max_req=4096) + login_ib(),
        "ib-wrong-target": h() + login_ib(target=bytes(16)),
        "ib-no-buffer-format": h() + login_ib(buf_fmt=0),
        "ib-reserved-multichannel": h() + login_ib(flags=0x83),
        "ib-rsp-buffer-51": h(buf_len=51) + login_ib(),
        "ib-rsp-buffer-255": h(buf_len=255) + login_ib(),
        "ib-rej-buffer-32": h(buf_len=32, max_req=64) + login_ib(),
        "ib-not-login": h() + login_ib(opcode=0x02),
        "ib-short": h() + login_ib()[:63],
        "rdma-default": h(rdma=True) + login_rdma(),
        "rdma-direct-only": h(rdma=True) + login_rdma(buf_fmt=0x02,
                                                      flags=0),
        "rdma-multichannel": h(rdma=True) + login_rdma(flags=0x81),
        "rdma-short": h(rdma=True) + login_rdma()[:55],
    }


# --------------------------------------------------------------------------
# SRP_CMD (SRP r16a 6.8, tables 14-17; immediate data: SRP-2).

def desc(va, key, length):
    return be64(va) + be32(key) + be32(length)


def cmd(fmt=0x00, out_cnt=0, in_cnt=0, add_cdb=0, attr=0, cdb=None,
        tail=b""):
    iu = bytearray(48)
    iu[0] = 0x02
    iu[5] = fmt
    iu[6] = out_cnt
    iu[7] = in_cnt
    iu[8:16] = TAG
    iu[20:28] = LUN
    iu[29] = attr
    iu[31] = add_cdb
    iu[32:48] = cdb if cdb else bytes([0x28]) + bytes(14) + b"\x00"
    return bytes(iu) + bytes(add_cdb & ~3) + tail


def cmd_hdr(imm_off=0, max_desc=4096, prefix=0, total=0):
    return be16(imm_off) + be32(max_desc) + be16(prefix) + be32(total)


def cmd_seeds():
    h = cmd_hdr
    write10 = bytes([0x2a, 0, 0, 0, 0, 0, 0, 0, 8, 0]) + bytes(6)
    d1 = desc(0x7f0000001000, 0x1234, 4096)
    d2 = desc(0x7f0000002000, 0x1234, 8192)
    d3 = desc(0x7f0000004000, 0x5678, 512)
    table3 = d1 + d2 + d3
    hdr3 = desc(0x7f00000f0000, 0x9abc, 48) + be32(4096 + 8192 + 512)
    ext = desc(0x7f00000f0000, 0x9abc, 255 * 16) + be32(255 * 4096)
    imm = be32(512) + bytes(16) + bytes(range(256)) * 2
    return {
        "no-data": h() + cmd(),
        "no-data-head-of-queue": h() + cmd(attr=1),
        "no-data-aca": h() + cmd(attr=4),
        "direct-in": h() + cmd(fmt=0x01, tail=d1),
        "direct-out": h() + cmd(fmt=0x10, cdb=write10, tail=d1),
        "direct-add-cdb": h() + cmd(fmt=0x01, add_cdb=16, tail=d1),
        "direct-max-desc-0": h(max_desc=0) + cmd(fmt=0x01, tail=d1),
        "direct-prefix": h(prefix=63) + cmd(fmt=0x01, tail=d1),
        "indirect-in-1": h() + cmd(fmt=0x02, in_cnt=1,
                                   tail=desc(0x7f00000f0000, 0x9abc, 16) +
                                   be32(4096) + d1),
        "indirect-in-3": h() + cmd(fmt=0x02, in_cnt=3, tail=hdr3 + table3),
        "indirect-out-3": h() + cmd(fmt=0x20, out_cnt=3, cdb=write10,
                                    tail=hdr3 + table3),
        "indirect-max-desc-2": h(max_desc=2) + cmd(fmt=0x02, in_cnt=3,
                                                   tail=hdr3 + table3),
        "indirect-bad-total": h() + cmd(fmt=0x02, in_cnt=3,
                                        tail=hdr3[:16] + be32(4096) +
                                        table3),
        "indirect-prefix": h(prefix=48 + 20 + 32) +
        cmd(fmt=0x02, in_cnt=3, tail=hdr3 + table3),
        "external-in": h() + cmd(fmt=0x02, in_cnt=0, tail=ext),
        "external-out": h() + cmd(fmt=0x20, out_cnt=0, cdb=write10,
                                  tail=ext),
        "external-partial": h() + cmd(fmt=0x02, in_cnt=2,
                                      tail=ext + d1 + d1),
        "immediate-68": h(imm_off=68) + cmd(fmt=0x30, cdb=write10,
                                            tail=imm),
        "immediate-52": h(imm_off=52) + cmd(fmt=0x30, cdb=write10,
                                            tail=be32(512) + bytes(512)),
        "immediate-not-granted": h(imm_off=0) + cmd(fmt=0x30, tail=imm),
        "immediate-in": h(imm_off=68) + cmd(fmt=0x03, tail=imm),
        "bidirectional": h() + cmd(fmt=0x11, tail=d1 + d1),
        "table-check": h(total=4096 + 8192 + 512) + table3,
    }


# --------------------------------------------------------------------------
# SRP_TSK_MGMT (SRP r16a 6.7, tables 18-19).

def tsk_mgmt(func, task_tag=b"\x11" * 8, opcode=0x01):
    iu = bytearray(48)
    iu[0] = opcode
    iu[8:16] = TAG
    iu[20:28] = LUN
    iu[30] = func
    iu[32:40] = task_tag
    return bytes(iu)


def tmf_seeds():
    h = be16(1024) + b"\x00"
    return {
        "abort-task": h + tsk_mgmt(0x01),
        "abort-task-set": h + tsk_mgmt(0x02),
        "clear-task-set": h + tsk_mgmt(0x04),
        "lun-reset": h + tsk_mgmt(0x08),
        "clear-aca": h + tsk_mgmt(0x40),
        "unknown-function": be16(1024) + b"\x04" + tsk_mgmt(0x03),
        "rsp-too-small": be16(39) + b"\x05" + tsk_mgmt(0x01),
        "rsp-exact": be16(40) + b"\x00" + tsk_mgmt(0x08),
        "short": h + tsk_mgmt(0x01)[:47],
        "not-tsk-mgmt": h + tsk_mgmt(0x01, opcode=0x02),
    }


# --------------------------------------------------------------------------
# IU dispatch: SRP_I_LOGOUT (SRP r16a 6.4) and the other request IUs.

def iu_seeds():
    i_logout = b"\x03" + bytes(7) + TAG
    cred_rsp = b"\x41" + bytes(7) + TAG
    aer_rsp = b"\x42" + bytes(7) + TAG
    return {
        "i-logout": i_logout,
        "i-logout-short": i_logout[:15],
        "login": login_ib(),
        "tsk-mgmt": tsk_mgmt(0x01),
        "cmd": cmd(fmt=0x01, tail=desc(0x1000, 1, 512)),
        "cred-rsp": cred_rsp,
        "aer-rsp": aer_rsp,
        "empty": b"",
    }


# --------------------------------------------------------------------------
# SRP_RSP (SRP r16a 6.9, table 21).

def rsp_hdr(status=0, flags=0, out_res=0, in_res=0, resp_len=0,
            sense_len=0, max_len=1024, mode=0):
    return (TAG + be32(1) + bytes([status, flags]) + be32(out_res) +
            be32(in_res) + be32(resp_len) + be32(sense_len) + be16(max_len) +
            bytes([mode]))


# Fixed-format sense: ILLEGAL REQUEST, INVALID FIELD IN INFORMATION UNIT.
SENSE = bytes([0x70, 0, 0x05, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x0e, 0x03,
               0, 0, 0, 0])


def rsp_seeds():
    h = rsp_hdr
    no_data = 3
    return {
        "good": h(mode=no_data),
        "good-underflow": h(flags=0x20, in_res=512, mode=no_data),
        "check-condition": h(status=0x02, sense_len=18, mode=1) + SENSE,
        "tmf-response": h(resp_len=4, mode=2) + bytes(4),
        "sense-cut": h(status=0x02, sense_len=18, max_len=44, mode=1) +
        SENSE,
        "sense-exact": h(status=0x02, sense_len=18, max_len=54, mode=1) +
        SENSE,
        "sense-hostile": h(status=0x02, sense_len=0xffffffff, max_len=260,
                           mode=1) + SENSE,
        "sense-hostile-max": h(status=0x02, sense_len=0x80000000,
                               max_len=0xffff, mode=1) + SENSE,
        "resp-hostile": h(resp_len=0xfffffffc, sense_len=18) + SENSE,
        "resp-and-sense": h(status=0x02, resp_len=4, sense_len=18) + SENSE,
        "resp-fills-all": h(resp_len=4, sense_len=18, max_len=40) + SENSE,
        "max-len-35": h(max_len=35, mode=no_data),
        "valid-flags-passed": h(flags=0x03, sense_len=18, mode=2) + SENSE,
    }


# --------------------------------------------------------------------------
# Device Management MADs (IBA 13.4.3 common header, 16.3 DM class).

def mad(method=0x01, attr=0x0001, mod=0, mgmt_class=0x06, base=1,
        class_version=1):
    m = bytearray(256)
    m[0] = base
    m[1] = mgmt_class
    m[2] = class_version
    m[3] = method
    m[8:16] = TAG
    m[16:18] = be16(attr)
    m[20:24] = be32(mod)
    return bytes(m)


def mad_hdr(rsp_len=256, mode=0, id_string=b"Linux SRP target"):
    info = (be64(0x505400fffe4a0b7b) + be32(0x001405) + be32(0x1003) +
            be16(1) + be32(0x001405) + be32(0x1003) + be16(4095) +
            bytes([4]) + be32(8276) + be32(1 << 20))
    return info + be16(rsp_len) + bytes([mode, len(id_string)]) + id_string


def mad_seeds():
    h = mad_hdr
    svc = 0x0012
    return {
        "class-port-info": h() + mad(attr=0x0001),
        "iou-info": h() + mad(attr=0x0010),
        "ioc-profile-1": h() + mad(attr=0x0011, mod=1),
        "ioc-profile-2": h() + mad(attr=0x0011, mod=2),
        "ioc-profile-0": h() + mad(attr=0x0011, mod=0),
        "ioc-profile-17": h() + mad(attr=0x0011, mod=17),
        "ioc-profile-long-id": h(id_string=b"x" * 80) +
        mad(attr=0x0011, mod=1),
        "ioc-profile-no-id": h(mode=1) + mad(attr=0x0011, mod=1),
        "svc-entries-0-0": h() + mad(attr=svc, mod=1 << 16),
        "svc-entries-0-3": h() + mad(attr=svc, mod=1 << 16 | 3 << 8),
        "svc-entries-1-0": h() + mad(attr=svc, mod=1 << 16 | 1),
        "svc-entries-slot-2": h() + mad(attr=svc, mod=2 << 16),
        "unknown-attribute": h() + mad(attr=0x0020),
        "set": h() + mad(method=0x02, attr=0x0001),
        "unknown-method": h() + mad(method=0x06, attr=0x0001),
        "get-resp": h() + mad(method=0x81, attr=0x0001),
        "not-dm-class": h() + mad(mgmt_class=0x03),
        "short-mad": h() + mad()[:255],
        "short-rsp-buffer": h(rsp_len=255) + mad(),
        "in-place": h(rsp_len=512, mode=2) + mad(attr=0x0011, mod=1),
    }


# --------------------------------------------------------------------------
# configfs names: target port GUID/GID, initiator GUID/port id/IP.

def names_seeds():
    names = [
        "5054:00ff:fe4a:0b7b",
        "5054:ff:fe4a:b7b",
        "0xfe80000000000000505400fffe4a0b7b",
        "0XFE80000000000000505400FFFE4A0B7B",
        "0x00000000000000000000000000001234",
        "505400fffe123456",
        "0x1234",
        "192.168.122.10",
        "255.255.255.255",
        "fe80::5054:ff:fe12:3456",
        "fe80::5054:ff:fe12:3456%eth0",
        "::ffff:192.168.122.10",
        "2001:db8:0:0:1:0:0:1",
        "::",
        "1:2:3:4:5:6:7::",
        "5054:00ff:fe4a",
        "1.2.3.256",
        "fe80::1%",
        "0x",
        # Node ACL names only the in-tree driver's lenient readers take.
        "fec0:fe80:5054:00ff:fe12:3456:5054:00ff:fe12:3456",
        " 1:2:3:4",
        "0x:0x:0x:0x",
        "0x0000000000000000505400fffe123456zz",
        "192.168.1.5:junk",
        "0000000001.2.3.4\n",
        "fe80::00001",
        "::ffff:1.2.3.4:junk",
        "2001:db8::1%what ever",
    ]
    return {"%02d" % i: n.encode() for i, n in enumerate(names)}


HARNESSES = {
    "login": login_seeds,
    "cmd": cmd_seeds,
    "tmf": tmf_seeds,
    "iu": iu_seeds,
    "rsp": rsp_seeds,
    "mad": mad_seeds,
    "names": names_seeds,
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    for name, seeds in HARNESSES.items():
        d = os.path.join(out, name)
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        for seed, data in seeds().items():
            with open(os.path.join(d, seed), "wb") as f:
                f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
