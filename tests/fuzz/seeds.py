#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# seeds.py: writes the seed inputs of tests/fuzz/corpus/<harness>/seed-*
# (the formats are described at the top of each fuzz_<harness>.c). Run from
# anywhere: `python3 tests/fuzz/seeds.py`. Regression inputs (crash-*,
# regress-*) are kept by hand and never rewritten here.
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = b"iqn.2026-12.org.utarget:fuzz"
INITIATOR = b"iqn.2026-12.org.example:fuzzer"


def write(harness, name, data):
    d = os.path.join(HERE, "corpus", harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def keys(*kv):
    return b"".join(k + b"\0" for k in kv)


def pad(b):
    return b + b"\0" * ((4 - len(b) % 4) % 4)


def bhs(op, flags=0, ahs=b"", dsl=0, lun=0, itt=0, f20=b"\0" * 4, f24=0, f28=0, rest=b"\0" * 16):
    h = bytes([op, flags, 0, 0, len(ahs) // 4]) + struct.pack(">I", dsl)[1:]
    h += struct.pack(">Q", lun) + struct.pack(">I", itt) + f20
    h += struct.pack(">II", f24, f28) + rest
    assert len(h) == 48, len(h)
    return h


def pdu(op, flags=0, data=b"", **kw):
    return bhs(op, flags, dsl=len(data), **kw) + pad(data)


ISID = bytes([0x80, 0, 0, 0, 0, 1])


def login(kv, flags=0x87, cmdsn=1, itt=0x7F000000, tsih=0):
    # Login Request: I bit, T/C/CSG/NSG, version max/min 0, ISID + TSIH in 8..15
    d = keys(*kv)
    h = bytes([0x43, flags, 0, 0, 0]) + struct.pack(">I", len(d))[1:]
    h += ISID + struct.pack(">H", tsih) + struct.pack(">I", itt)
    h += struct.pack(">HH", 0, 0) + struct.pack(">II", cmdsn, 0) + b"\0" * 16
    return h + pad(d)


def scsi_cmd(cdb, flags=0x80, edtl=0, itt=1, cmdsn=1, lun=0, data=b"", ahs=b""):
    cdb16 = (cdb + b"\0" * 16)[:16]
    h = bytes([0x01, flags, 0, 0, len(ahs) // 4]) + struct.pack(">I", len(data))[1:]
    h += struct.pack(">Q", lun << 48) + struct.pack(">I", itt) + struct.pack(">I", edtl)
    h += struct.pack(">II", cmdsn, 0) + cdb16
    return h + ahs + pad(data)


def data_out(itt, ttt, datasn, off, data, final=True, lun=0):
    return pdu(0x05, 0x80 if final else 0, data, lun=lun << 48, itt=itt,
               f20=struct.pack(">I", ttt), f24=0, f28=0,
               rest=struct.pack(">III", 0, datasn, off) + b"\0" * 4)


NORMAL = [b"InitiatorName=" + INITIATOR, b"TargetName=" + TARGET, b"SessionType=Normal",
          b"HeaderDigest=None", b"DataDigest=None", b"ImmediateData=Yes", b"InitialR2T=No",
          b"MaxRecvDataSegmentLength=65536", b"MaxBurstLength=262144",
          b"FirstBurstLength=65536", b"MaxOutstandingR2T=1", b"ErrorRecoveryLevel=0"]


def inquiry(alloc=96):
    return bytes([0x12, 0, 0]) + struct.pack(">H", alloc) + b"\0"


def rw10(op, lba, n):
    return bytes([op, 0]) + struct.pack(">I", lba) + b"\0" + struct.pack(">H", n) + b"\0"


def ffp_session(framed):
    """Commands of a full feature phase session (CmdSN from 1)."""
    s = b""
    sn = 1
    itt = 1
    blk = bytes(range(256)) * 2

    def nxt():
        nonlocal sn, itt
        sn += 1
        itt += 1
        return sn - 1, itt - 1

    c, i = nxt(); s += scsi_cmd(bytes(6), 0x80, 0, i, c)                  # TUR (UA)
    c, i = nxt(); s += scsi_cmd(inquiry(), 0xC0, 96, i, c)                # INQUIRY
    c, i = nxt(); s += scsi_cmd(bytes([0xA0] + [0] * 5) + struct.pack(">I", 64) + b"\0\0",
                                0xC0, 64, i, c)                           # REPORT LUNS
    c, i = nxt(); s += scsi_cmd(rw10(0x2A, 0, 1), 0xA0, 512, i, c, data=blk)  # WRITE imm
    c, i = nxt(); s += scsi_cmd(rw10(0x28, 0, 1), 0xC0, 512, i, c)        # READ
    # WRITE of 2 blocks: 512 immediate, 512 unsolicited Data-Out
    c, i = nxt(); s += scsi_cmd(rw10(0x2A, 2, 2), 0x20, 1024, i, c, data=blk)
    s += data_out(i, 0xFFFFFFFF, 0, 512, blk)
    # WRITE of 8 blocks with no immediate data: R2T flow (TTT guessed 0 ...)
    c, i = nxt(); s += scsi_cmd(rw10(0x2A, 8, 8), 0xA0, 4096, i, c)
    s += data_out(i, 0, 0, 0, blk * 8)
    # READ on LUN 1 (4 KiB blocks)
    c, i = nxt(); s += scsi_cmd(rw10(0x28, 0, 1), 0xC0, 4096, i, c, lun=1)
    # extended CDB AHS: a 32-byte CDB (WRITE SAME (32) variable length)
    ahs = struct.pack(">HB", 17, 0x01) + b"\0" + bytes(16)
    ahs = pad(ahs)
    c, i = nxt(); s += scsi_cmd(bytes([0x7F, 0, 0, 0, 0, 0, 0, 0x18, 0x00, 0x0D]), 0x80, 0, i, c,
                                ahs=ahs)
    # NOP-Out ping (ITT, TTT reserved), data echoed
    c, i = nxt()
    s += pdu(0x00, 0x80, b"ping", itt=i, f20=b"\xff\xff\xff\xff", f24=c)
    # TMF: ABORT TASK of an unknown ITT, LOGICAL UNIT RESET
    c, i = nxt()
    s += pdu(0x02 | 0x40, 0x81, itt=i, f20=struct.pack(">I", 0x1234), f24=c)
    c, i = nxt()
    s += pdu(0x02 | 0x40, 0x85, itt=i, f20=b"\xff\xff\xff\xff", f24=c)
    # Text: SendTargets=All in a normal session
    c, i = nxt()
    s += pdu(0x04, 0x80, keys(b"SendTargets=All"), itt=i, f20=b"\xff\xff\xff\xff", f24=c)
    # SNACK (refused at ERL 0)
    s += pdu(0x10, 0x80, itt=i, f20=b"\xff\xff\xff\xff")
    # Logout (close the session)
    c, i = nxt()
    s += pdu(0x06 | 0x40, 0x80, itt=i, f24=c)
    return s


def pdu_seeds():
    lg = login(NORMAL)
    write("pdu", "raw-login-ffp", b"\x00" + lg + ffp_session(False))
    # security stage (AuthMethod=None) then operational, then full feature
    sec = login([b"InitiatorName=" + INITIATOR, b"TargetName=" + TARGET,
                 b"SessionType=Normal", b"AuthMethod=None"], flags=0x81)
    op = login([b"HeaderDigest=None", b"DataDigest=None", b"MaxRecvDataSegmentLength=8192"],
               flags=0x87)
    write("pdu", "raw-login-2stage", b"\x00" + sec + op + ffp_session(False))
    # login with C bit continuation
    kv = keys(*NORMAL)
    half = len(kv) // 2
    p1 = bytes([0x43, 0x47, 0, 0, 0]) + struct.pack(">I", half)[1:] + ISID + b"\0\0" + \
        struct.pack(">I", 0x7F000000) + b"\0" * 4 + struct.pack(">II", 1, 0) + b"\0" * 16
    p1 += pad(kv[:half])
    p2 = bytes([0x43, 0x87, 0, 0, 0]) + struct.pack(">I", len(kv) - half)[1:] + ISID + \
        b"\0\0" + struct.pack(">I", 0x7F000000) + b"\0" * 4 + struct.pack(">II", 1, 0) + \
        b"\0" * 16 + pad(kv[half:])
    write("pdu", "raw-login-continue", b"\x00" + p1 + p2)
    # byte-at-a-time and 7-byte pieces of the same stream
    write("pdu", "raw-login-bytewise", bytes([1 << 5]) + lg + ffp_session(False)[:600])
    write("pdu", "raw-login-pieces7", bytes([3 << 5]) + lg + ffp_session(False))
    # discovery: harness login, SendTargets=All, then a logout
    disc = pdu(0x04, 0x80, keys(b"SendTargets=All"), itt=1, f20=b"\xff\xff\xff\xff", f24=1)
    disc += pdu(0x04, 0x80, keys(b"SendTargets=" + TARGET), itt=2, f20=b"\xff\xff\xff\xff",
                f24=2)
    disc += pdu(0x06 | 0x40, 0x80, itt=3, f24=3)
    write("pdu", "disc-sendtargets", b"\x01" + disc)
    write("pdu", "disc-framed-digests", bytes([1 | 4 | 8 | 16]) + disc)
    # raw discovery login by the stream itself
    dl = login([b"InitiatorName=" + INITIATOR, b"SessionType=Discovery"])
    write("pdu", "raw-discovery", b"\x00" + dl + disc)
    # normal session (harness login), unframed and framed with digests
    write("pdu", "ffp", b"\x02" + ffp_session(False))
    write("pdu", "ffp-framed-digests", bytes([2 | 4 | 8 | 16]) + ffp_session(True))
    write("pdu", "ffp-framed-pieces48", bytes([2 | 8 | 16 | (4 << 5)]) + ffp_session(True))
    # lying lengths: DataSegmentLength 2^24-1, TotalAHSLength 255, login data 8192
    big = bytes([0x01, 0x80, 0, 0, 0, 0xFF, 0xFF, 0xFF]) + bytes(40)
    write("pdu", "ffp-dsl-max", b"\x02" + big + bytes(64))
    ahs = bytes([0x01, 0x80, 0, 0, 0xFF, 0, 0, 0]) + bytes(40)
    write("pdu", "ffp-ahs-max", b"\x02" + ahs + bytes(1020))
    kv = keys(b"InitiatorName=" + INITIATOR, b"X-pad=" + b"a" * 8100)
    lg8k = bytes([0x43, 0x87, 0, 0, 0]) + struct.pack(">I", 8192)[1:] + ISID + b"\0\0" + \
        b"\0" * 8 + struct.pack(">II", 1, 0) + b"\0" * 16 + (kv + bytes(8192))[:8192]
    write("pdu", "raw-login-8192", b"\x00" + lg8k)
    # every opcode once (framed, digests), so each dispatch arm has a seed
    s = b""
    for op in range(0x40):
        s += bhs(op, 0x80, itt=0x100 + op, f20=b"\xff\xff\xff\xff", f24=1)
    write("pdu", "ffp-every-opcode", bytes([2 | 4 | 8 | 16]) + s)
    write("pdu", "disc-every-opcode", bytes([1 | 8 | 16]) + s)
    # buffer cap 1 MiB (phase 3): R2T writes of 512 KiB pile up, a third
    # waits for memory; then writes with immediate data
    s = scsi_cmd(bytes(6), 0x80, 0, 0x1FF, 1)  # TEST UNIT READY: the UA
    for i in range(5):
        s += scsi_cmd(rw10(0x2A, i * 512, 512), 0xA0, 256 * 1024, 0x200 + i, 2 + i)
    s += data_out(0x200, 0, 0, 0, bytes(range(256)) * 32)
    for i in range(4):
        s += scsi_cmd(rw10(0x2A, 100 + i * 128, 128), 0xA0, 65536, 0x300 + i, 7 + i,
                      data=bytes([i]) * 65536)
    write("pdu", "ffp-memcap", bytes([3 | 8 | 16]) + s)
    write("pdu", "ffp-memcap-raw", bytes([3]) + s)
    # CmdSN order (scsi_cmd.c: enter_later, tmf.c: tmf_held): an ORDERED
    # WRITE ahead of ExpCmdSN, a non-immediate ABORT TASK SET ahead, a READ
    # after it, then the gap filler; an immediate TMF with a command ahead
    blk = bytes(range(256)) * 2
    s = scsi_cmd(bytes(6), 0x80, 0, 0x1FF, 1)  # TEST UNIT READY: the UA
    s += scsi_cmd(rw10(0x2A, 4, 1), 0xA2, 512, 0x400, 4, data=blk)    # ORDERED, ahead
    s += pdu(0x02, 0x82, itt=0x401, f20=b"\xff\xff\xff\xff", f24=3)   # ABORT TASK SET
    s += scsi_cmd(rw10(0x28, 4, 1), 0xC1, 512, 0x402, 5)               # READ after it
    s += scsi_cmd(rw10(0x28, 4, 1), 0xC1, 512, 0x403, 2)               # the gap filler
    s += scsi_cmd(rw10(0x2A, 6, 1), 0xA1, 512, 0x404, 7, data=blk)    # ahead again
    s += pdu(0x02 | 0x40, 0x82, itt=0x405, f20=b"\xff\xff\xff\xff", f24=6)
    s += scsi_cmd(bytes(6), 0x80, 0, 0x406, 6)
    write("pdu", "ffp-cmdsn-order", bytes([2 | 8]) + s)  # framed, CmdSNs as written
    write("pdu", "ffp-cmdsn-order-raw", bytes([2]) + s)
    # TaskReporting=FastAbort (task_reporting.c): the stream logs in with
    # it, a WRITE's R2T burst half sent, LOGICAL UNIT RESET (no wait for the
    # burst), the rest of the burst (stray, discarded), the NOP-Out that
    # acknowledges, then a WRITE again; TTT 0x00010000 is the first task
    # slot's (data_out.c)
    kv = [k for k in NORMAL if not k.startswith((b"ImmediateData", b"InitialR2T",
                                                     b"MaxBurstLength"))]
    lg = login(kv + [b"ImmediateData=No", b"InitialR2T=Yes", b"MaxBurstLength=2048",
                     b"TaskReporting=FastAbort,ResponseFence,RFC3720"])
    s = scsi_cmd(bytes(6), 0x80, 0, 0x500, 1)                          # TUR (the UA)
    s += scsi_cmd(rw10(0x2A, 8, 8), 0xA1, 4096, 0x501, 2)               # WRITE, R2T
    s += data_out(0x501, 0x00010000, 0, 0, blk * 2, final=False)        # half the burst
    s += pdu(0x02 | 0x40, 0x85, itt=0x502, f20=b"\xff\xff\xff\xff", f24=3)  # LU RESET
    s += data_out(0x501, 0x00010000, 1, 1024, blk * 2)                  # stray, F
    s += pdu(0x00 | 0x40, 0x80, itt=0xFFFFFFFF, f20=b"\xff\xff\xff\xff", f24=3)  # ack
    s += scsi_cmd(rw10(0x2A, 8, 1), 0xA1, 512, 0x503, 3)
    s += data_out(0x503, 0x00010000, 0, 0, blk)
    s += scsi_cmd(bytes(6), 0x80, 0, 0x504, 4)
    write("pdu", "raw-fast-abort", b"\x00" + lg + s)
    write("pdu", "raw-fast-abort-framed", bytes([8 | 16]) + lg + s)


def split_pdus(stream):
    """The PDUs of a framed stream (no digests), each with its padding."""
    out = []
    while stream:
        n = 48 + stream[4] * 4
        dsl = int.from_bytes(stream[5:8], "big")
        n += dsl + (4 - dsl % 4) % 4
        out.append(stream[:n])
        stream = stream[n:]
    return out


def snack(typ, itt, ttt=0xFFFFFFFF, begrun=0, runlen=0, lun=0):
    # SNACK Request (RFC 7143 11.16): Type in the flags, BegRun, RunLength
    return pdu(0x10, 0x80 | typ, lun=lun << 48, itt=itt, f20=struct.pack(">I", ttt),
               rest=b"\0" * 8 + struct.pack(">II", begrun, runlen))


def erl_seeds():
    """fuzz_erl (fuzz_pdu.c with FUZZ_PDU_ERL): mode, then per PDU a fault byte
    (1 bad header digest, 2 bad data digest, 4/8 ExpStatSN 0/ahead)."""
    blk = bytes(range(256)) * 16
    # the plain session with every fifth PDU's data digest and every
    # seventh's header digest broken
    pdus = split_pdus(ffp_session(True))
    faults = [(2 if i % 5 == 3 else 0) | (1 if i % 7 == 6 else 0) for i in range(len(pdus))]
    write("erl", "ffp-faults", bytes([8]) + b"".join(bytes([f]) + p for f, p in zip(faults, pdus)))
    # reads of 8 KiB with MaxBurstLength 2048 (A bits), then a Data SNACK, a
    # Status SNACK, DataACKs (TTT guessed 1, 2), an R-Data SNACK, a bad type;
    # a WRITE whose immediate data fails its digest and its retry (same ITT
    # and CmdSN); a Data-Out with a bad digest (recovery R2T)
    s = []
    s.append((0, scsi_cmd(bytes(6), 0x80, 0, 1, 1)))
    s.append((0, scsi_cmd(rw10(0x2A, 0, 4), 0xA0, 2048, 2, 2, data=blk[:2048])))
    s.append((0, scsi_cmd(rw10(0x28, 0, 16), 0xC0, 8192, 3, 3)))
    s.append((0, snack(0, 3, begrun=1, runlen=2)))
    s.append((0, snack(1, 0, begrun=1, runlen=1)))
    s.append((0, snack(2, 3, ttt=1, begrun=1)))
    s.append((8, snack(2, 3, ttt=2, begrun=4)))
    s.append((0, snack(3, 3)))
    s.append((0, snack(7, 3)))
    s.append((2, scsi_cmd(rw10(0x2A, 16, 4), 0xA0, 2048, 4, 4, data=blk[:2048])))
    s.append((0, scsi_cmd(rw10(0x2A, 16, 4), 0xA0, 2048, 4, 4, data=blk[:2048])))
    s.append((0, scsi_cmd(rw10(0x28, 0, 16), 0xC0, 8192, 3, 3)))  # retry of a done task
    s.append((0, scsi_cmd(rw10(0x2A, 32, 8), 0x20, 4096, 5, 5)))
    # unsolicited burst (FirstBurstLength 2048) with a bad digest, then the
    # answers to a recovery R2T and the R2T for the rest (TTTs guessed)
    s.append((2, data_out(5, 0xFFFFFFFF, 0, 0, blk[:2048])))
    s.append((0, data_out(5, 0, 0, 0, blk[:2048])))
    s.append((0, data_out(5, 1, 0, 2048, blk[:2048])))
    s.append((0, data_out(5, 2, 0, 2048, blk[:2048])))
    s.append((1, scsi_cmd(rw10(0x28, 32, 8), 0xC0, 4096, 6, 6)))
    s.append((4, scsi_cmd(rw10(0x28, 32, 8), 0xC0, 4096, 6, 6)))
    s.append((0, pdu(0x06 | 0x40, 0x80, itt=7, f24=7)))
    write("erl", "recovery", bytes([16]) + b"".join(bytes([f]) + p for f, p in s))
    # the same, fed 48 bytes at a time, CmdSN fixed by the harness
    write("erl", "recovery-pieces48", bytes([4 | 8 | 16])
          + b"".join(bytes([f]) + p for f, p in s))


def keys_seeds():
    # cfg byte: digests offered, InitialR2T, ImmediateData; stage in bits 4-5
    def req(*kv):
        d = keys(*kv)
        return struct.pack(">H", len(d)) + d
    sec = req(b"InitiatorName=" + INITIATOR, b"TargetName=" + TARGET, b"SessionType=Normal",
              b"AuthMethod=CHAP,None")
    op = req(*NORMAL[3:], b"DefaultTime2Wait=2", b"DefaultTime2Retain=0",
             b"DataPDUInOrder=Yes", b"DataSequenceInOrder=Yes", b"MaxConnections=1",
             b"IFMarker=No", b"OFMarker=No", b"TaskReporting=RFC3720",
             b"iSCSIProtocolLevel=1", b"InitiatorAlias=fuzz")
    write("keys", "login-normal", bytes([0x0F]) + sec + sec + op)
    write("keys", "login-operational", bytes([0x1F]) + op)
    write("keys", "login-discovery", bytes([0x00]) + req(b"InitiatorName=" + INITIATOR,
                                                         b"SessionType=Discovery",
                                                         b"AuthMethod=None"))
    write("keys", "text-ffp", bytes([0x2F]) + req(b"SendTargets=All", b"MaxRecvDataSegmentLength=4096",
                                                  b"X-com.example.k=v", b"X#vendor=1"))
    write("keys", "chap-offer", bytes([0x40]) + req(b"InitiatorName=" + INITIATOR,
                                                    b"AuthMethod=CHAP", b"CHAP_A=5,6,7,8"))
    write("keys", "numbers", bytes([0x1F]) + req(b"MaxBurstLength=0x40000",
                                                 b"FirstBurstLength=0X10000",
                                                 b"MaxRecvDataSegmentLength=512",
                                                 b"MaxOutstandingR2T=65535",
                                                 b"DefaultTime2Wait=3600",
                                                 b"ErrorRecoveryLevel=2"))
    write("keys", "bad", bytes([0x9F]) + req(b"HeaderDigest=CRC32C,None", b"HeaderDigest=None",
                                             b"=x", b"NoEquals", b"K" * 64 + b"=1",
                                             b"TargetAlias=" + b"a" * 300))
    many = b"".join(b"X-unknown-%04d=%s" % (i, b"v" * 40) + b"\0" for i in range(200))
    write("keys", "many-unknown", bytes([0x9F]) + struct.pack(">H", len(many) & 0xFFFF) + many)


def rec(flags, sel, lb, cdb, xfer, data=b""):
    return bytes([flags, sel, lb]) + cdb + struct.pack(">H", xfer) + data


def cdb_seeds():
    # every opcode once: 16-byte CDBs with a small Data-In allocation
    s = b""
    for op in range(256):
        if op == 0xFF:
            continue
        s += rec(1, 0xFE, 3, bytes([op]) + bytes(15), 64)
    write("cdb", "every-opcode", s)
    for op in (0x00, 0x03, 0x12, 0x1A, 0x25, 0x28, 0x2A, 0x35, 0x5A, 0x9E, 0xA0, 0xA3):
        write("cdb", "op-%02x" % op, rec(1, 0xFE, 3, bytes([op]) + bytes(15), 255))
    blk = bytes(range(256)) * 2
    # WRITE then READ
    write("cdb", "write-read", rec(2, 12, 1, rw10(0x2A, 1, 1), 512, blk) +
          rec(1, 13, 1, rw10(0x28, 1, 1), 512))
    # UNMAP with one block descriptor (LBA 0, 8 blocks)
    um = struct.pack(">HH", 22, 16) + bytes(4) + struct.pack(">QI", 0, 8) + bytes(4)
    write("cdb", "unmap", rec(2 | 16, 1, 1, bytes([0x42]) + bytes(9), len(um), um))
    # MODE SELECT (10) with the Caching page (WCE off), PF=1
    page = bytes([0x08, 0x12, 0x00]) + bytes(17)
    ms = bytes(8) + page
    write("cdb", "mode-select10", rec(2 | 16, 4, 1, bytes([0x55, 0x10]) + bytes(8), len(ms), ms))
    ms6 = bytes(4) + bytes([0x0A, 0x0A, 0x04]) + bytes(9)
    write("cdb", "mode-select6", rec(2 | 16, 3, 0, bytes([0x15, 0x10]) + bytes(4), len(ms6), ms6))
    # COMPARE AND WRITE of 1 block: compare zeroes, write a pattern
    caw = bytes([0x89, 0]) + struct.pack(">Q", 4) + bytes(3) + bytes([1, 0, 0])
    write("cdb", "caw", rec(2, 5, 3, caw, 1024, bytes(512) + blk))
    # WRITE SAME (10) 16 blocks, and with UNMAP
    write("cdb", "write-same10", rec(2, 6, 1, bytes([0x41, 0]) + struct.pack(">I", 16) +
                                     b"\0" + struct.pack(">H", 16) + b"\0", 512, blk))
    write("cdb", "write-same16-unmap", rec(2, 7, 3, bytes([0x93, 0x08]) + struct.pack(">Q", 0) +
                                           struct.pack(">I", 32) + b"\0\0", 512, bytes(512)))
    # SANITIZE OVERWRITE, one pass, a 4-byte pattern
    sp = bytes([0x01, 0]) + struct.pack(">H", 4) + b"\xde\xad\xbe\xef"
    write("cdb", "sanitize-overwrite", rec(2 | 16, 8, 1, bytes([0x48, 0x01]) + bytes(8),
                                           len(sp), sp))
    write("cdb", "sanitize-block-erase", rec(0, 8, 1, bytes([0x48, 0x02]) + bytes(8), 0))
    # SEND DIAGNOSTIC: the self-tests in the background (extended, short
    # on LUN 1), the default one, abort; a diagnostic page 00h list;
    # RECEIVE DIAGNOSTIC RESULTS; FORMAT UNIT without and with a header
    sd = lambda b1, lun=0: rec(lun << 2, 22, 0, bytes([0x1D, b1]) + bytes(4), 0)
    write("cdb", "send-diagnostic", sd(0x40) + sd(0x20, 1) + sd(0x04) + sd(0x80) + sd(0x40) +
          sd(0x80) + sd(0xC0) + sd(0xA0) +
          rec(2 | 16, 22, 0, bytes([0x1D, 0x10]) + bytes(4), 4, bytes(4)) +
          rec(1, 0xFE, 0, bytes([0x1C, 0x01, 0x00, 0x00, 0x40, 0x00]), 64))
    write("cdb", "format-unit", rec(0, 20, 0, bytes([0x04]) + bytes(5), 0) +
          rec(2, 20, 0, bytes([0x04, 0x10]) + bytes(4), 4, bytes([0, 0x02, 0, 0])) +
          rec(2, 20, 0, bytes([0x04, 0x30]) + bytes(4), 8, bytes(8)))
    # EXTENDED COPY (LID1): LUN 0 -> LUN 1 by designator, block to block
    def e4(idx_char):
        naa = bytes([0x60]) + bytes(14) + idx_char
        return bytes([0xE4, 0x00, 0, 0]) + bytes([0x01, 0x03, 0x00, 16]) + naa + \
            bytes([0, 0, 0, 0]) + bytes(4)
    tds = e4(b"0") + e4(b"1")
    seg = bytes([0x02, 0x00]) + struct.pack(">H", 0x18) + struct.pack(">HH", 0, 1) + bytes(2) + \
        struct.pack(">H", 8) + struct.pack(">QQ", 0, 0)
    hdr = bytes([0x01, 0x00]) + struct.pack(">H", len(tds)) + bytes(4) + \
        struct.pack(">II", len(seg), 0)
    xl = hdr + tds + seg
    write("cdb", "xcopy", rec(2 | 16, 2, 3, bytes([0x83]) + bytes(15), len(xl), xl) +
          rec(1 | 16, 11, 3, bytes([0x84, 0x00, 0x01]) + bytes(13), 64))
    # PERSISTENT RESERVE OUT: REGISTER key 1, RESERVE type 1; from "b": preempt
    pr = struct.pack(">QQ", 0, 1) + bytes(8)
    pr2 = struct.pack(">QQ", 1, 0) + bytes(8)
    write("cdb", "pr-out", rec(2 | 16, 0, 1, bytes([0x5F, 0x00, 0]) + bytes(7), 24, pr) +
          rec(2 | 16, 0, 1, bytes([0x5F, 0x01, 0x01]) + bytes(7), 24, pr2) +
          rec(1 | 16, 10, 1, bytes([0x5E, 0x00]) + bytes(8), 64) +
          rec(2 | 16 | 32, 0, 1, bytes([0x5F, 0x00, 0]) + bytes(7), 24,
              struct.pack(">QQ", 0, 2) + bytes(8)) +
          rec(2 | 16 | 32, 0, 1, bytes([0x5F, 0x04, 0x01]) + bytes(7), 24,
              struct.pack(">QQ", 2, 1) + bytes(8)))
    # RESERVE(6) by "a", then WRITE from "b" (reservation conflict), RELEASE
    write("cdb", "reserve6", rec(0, 29, 0, bytes(6), 0) +
          rec(2 | 32, 12, 1, rw10(0x2A, 0, 1), 512, blk) + rec(0, 30, 0, bytes(6), 0))
    # asynchronous writes and an ABORT TASK SET
    s = b""
    for i in range(4):
        s += rec(2 | 8, 12, 1, rw10(0x2A, i, 1), 512, blk)
    s += bytes([0, 0xFF, 0x02, 0])
    write("cdb", "async-tmf", s)


def config_seeds():
    src = os.path.join(HERE, "..", "..", "etc", "utarget-demo.json")
    with open(src, "rb") as f:
        write("config", "demo", f.read())
    full = b"""{
  "version": 1,
  "state_dir": "state",
  "log_level": "info",
  "iscsi": {"max_recv_data_segment_length": 262144, "first_burst_length": 65536,
            "max_burst_length": 1048576, "initial_r2t": false, "immediate_data": true,
            "header_digest": true, "data_digest": false, "nop_in_interval": 5,
            "nop_in_timeout": 5, "login_timeout": 10, "queue_depth": 64},
  "backstores": [
    {"name": "d0", "type": "file", "path": "d0.img", "size": "64M", "create": true,
     "thin": true, "block_size": 512, "physical_block_size": 4096},
    {"name": "r1", "type": "ram", "size": "16M", "block_size": 4096, "vendor": "V",
     "product": "P", "revision": "1", "serial": "S1",
     "naa": "60000000000000000000000000000001"},
    {"name": "n2", "type": "null", "size": 1048576, "read_only": true, "removable": true,
     "write_cache": false}
  ],
  "targets": [
    {"name": "iqn.2026-12.org.utarget:t1", "alias": "one",
     "portal_groups": [{"tag": 1, "portals": ["127.0.0.1:3260", "[::1]:3260"]}],
     "luns": [{"lun": 0, "backstore": "d0"}, {"lun": 1, "backstore": "r1", "read_only": true}],
     "acls": [{"initiator": "iqn.2026-12.org.example:h1"},
              {"initiator": "iqn.2026-12.org.example:h2", "luns": [{"lun": 0, "backstore": "n2"}]}],
     "demo_mode": {"enabled": false}}
  ]
}
"""
    write("config", "full", full)
    write("config", "bad-ref", full.replace(b'"backstore": "n2"', b'"backstore": "zz"'))
    write("config", "bad-syntax", full[:200])
    write("config", "dup-key", b'{"version": 1, "version": 1}')
    write("config", "sizes", b"64K")


def chap_seeds():
    def req(*kv):
        d = keys(*kv)
        return struct.pack(">H", len(d)) + d
    empty = struct.pack(">H", 0)
    hexc = b"0x" + bytes(range(16)).hex().encode()
    for alg, mode, name in ((5, 0x02, "md5-hex"), (6, 0x06, "sha1-b64"), (7, 0x02, "sha256-hex"),
                            (8, 0x06, "sha3-b64")):
        write("chap", name, bytes([mode]) + req(b"CHAP_A=%d" % alg) + empty)
    write("chap", "mutual", bytes([0x03]) + req(b"CHAP_A=7,5") +
          req(b"CHAP_I=9", b"CHAP_C=" + hexc))
    write("chap", "mutual-b64", bytes([0x07]) + req(b"CHAP_A=8") +
          req(b"CHAP_I=200", b"CHAP_C=0bAAECAwQFBgcICQoLDA0ODw=="))
    write("chap", "wrong-response", bytes([0x00]) + req(b"CHAP_A=5") +
          req(b"CHAP_N=iqn.2026-12.org.example:fuzzer", b"CHAP_R=0x" + b"00" * 16))
    write("chap", "unknown-alg", bytes([0x00]) + req(b"CHAP_A=1,2,99"))
    write("chap", "long-values", bytes([0x00]) + req(b"CHAP_A=5") +
          req(b"CHAP_N=" + b"n" * 300, b"CHAP_R=0x" + b"ab" * 1100))
    write("chap", "only-md5", bytes([0x0A]) + req(b"CHAP_A=7,5") + empty)


def rpc_seeds():
    """One request per method of docs/rpc-schema.json, with plausible values
    for the small config fuzz_rpc.c loads (r0, n1, iqn...:rpc, tpg 1)."""
    import json
    with open(os.path.join(HERE, "..", "..", "docs", "rpc-schema.json")) as f:
        schema = json.load(f)
    vals = {"name": "r0", "target": "iqn.2026-12.org.utarget:rpc", "tag": 1, "lun": 0,
            "backstore": "r0", "initiator": "iqn.2026-12.org.example:a",
            "portal": "127.0.0.1:3998", "size": "2M", "tsih": 1, "cid": 0,
            "group": 1, "state": "standby", "mode": "logout", "timeout": 1,
            "dry_run": True, "force": False, "read_only": True}
    objects = {
        "settings": {"log_level": "info"},
        "backstore": {"name": "d9", "type": "ram", "size": "4M", "thin": True,
                      "fault": {"read_error_lbas": [1], "error": "medium"}},
        "target": {"name": "iqn.2026-12.org.utarget:t9",
                   "portal_groups": [{"tag": 1, "portals": ["127.0.0.1:3997"]}],
                   "luns": [{"lun": 0, "backstore": "n1"}]},
        "portal_group": {"tag": 2, "portals": ["127.0.0.1:3996"]},
        "acl": {"initiator": "iqn.2026-12.org.example:b"},
    }
    for i, (m, d) in enumerate(sorted(schema["methods"].items())):
        params = {}
        for p, q in d.get("params", {}).items():
            if p in vals:
                params[p] = vals[p]
        if d.get("object") in objects:
            params.update(objects[d["object"]])
            if m.endswith(".set") and "name" in d.get("params", {}):
                params["name"] = vals["name"] if m.startswith("backstore") else vals["target"]
        if m == "config.apply" or m == "config.check":
            params["config"] = {"version": 1}
        if m == "config.transaction":
            params["requests"] = [{"method": "backstore.delete", "params": {"name": "n1"}}]
        req = {"jsonrpc": "2.0", "id": i, "method": m}
        if params:
            req["params"] = params
        write("rpc", m, json.dumps(req).encode())
    write("rpc", "batch", json.dumps([
        {"jsonrpc": "2.0", "id": 1, "method": "daemon.info"},
        {"jsonrpc": "2.0", "method": "settings.get"},
        {"jsonrpc": "2.0", "id": "x", "method": "nope"},
        {"jsonrpc": "1.0", "id": 2, "method": "config.get"}, 7]).encode())


def isns_seeds():
    # fuzz_isns.c: byte 0 = the piece size, then what the server sends
    def attr(tag, val):
        return struct.pack(">II", tag, len(val)) + val

    def pdu(func, payload, flags=0x4C00, xid=1, seq=0):
        return struct.pack(">HHHHHH", 1, func, len(payload), flags, xid, seq) + payload

    esi = (attr(4, b"\0" * 8) + attr(1, pad(b"utarget-1" + b"\0"))
           + attr(16, b"\0" * 10 + b"\xff\xff\x7f\0\0\1") + attr(17, struct.pack(">I", 3260)))
    write("isns", "esi", b"\0" + pdu(0x000D, esi))
    scn = (attr(32, pad(TARGET + b"\0")) + attr(4, b"\0" * 8) + attr(35, struct.pack(">I", 0x0C))
           + attr(32, pad(INITIATOR + b"\0")))
    write("isns", "scn", b"\0" + pdu(0x0008, scn, xid=2))
    dd = (b"\0\0\0\0" + attr(2065, b"") + attr(0, b"")
          + attr(2065, struct.pack(">I", 1)) + attr(2066, pad(b"dd1\0"))
          + attr(2078, b"\0\0\0\0") + attr(2067, struct.pack(">I", 3))
          + attr(2068, pad(TARGET + b"\0")) + attr(2067, struct.pack(">I", 8))
          + attr(2068, pad(INITIATOR + b"\0"))
          + attr(2065, struct.pack(">I", 2)) + attr(2068, pad(TARGET + b"\0")))
    write("isns", "ddquery-rsp", b"\0" + pdu(0x8002, dd, xid=3))
    # the same answer over two PDUs, fed 3 bytes at a time
    write("isns", "two-pdus", b"\3" + pdu(0x8002, dd[:48], flags=0x4400, xid=4)
          + pdu(0x8002, dd[48:], flags=0x4800, xid=4, seq=1))
    reg = b"\0\0\0\0" + attr(1, pad(b"utarget-1\0")) + attr(0, b"") + attr(6, struct.pack(">I", 900))
    write("isns", "reg-rsp", b"\0" + pdu(0x8001, reg, xid=5) + pdu(0x8005, b"\0\0\0\0", xid=6))
    write("isns", "bad-seq", b"\0" + pdu(0x8002, dd[:48], flags=0x4400, xid=7)
          + pdu(0x8002, dd[48:], flags=0x4800, xid=7, seq=2))
    write("isns", "auth", b"\0" + pdu(0x000D, esi, flags=0x6C00))


if __name__ == "__main__":
    rpc_seeds()
    chap_seeds()
    pdu_seeds()
    erl_seeds()
    keys_seeds()
    cdb_seeds()
    config_seeds()
    isns_seeds()
