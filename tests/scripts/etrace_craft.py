#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hand-made E-Trace streams for the decoder's tests and fuzz seeds.

Packets are laid out field by field, LSB first, with the widths of
docs/specs/riscv-trace.rst (64-bit addresses, iaddress_lsb 1, 3-bit
privilege, 6-bit ecause, support packet 1/6/1/1/4), and framed with an
Encapsulation header; payloads are not sign-compressed (a decoder
sign-extends either way).

CODE is a small RV64 program for 0x80000000 (assembled from):
    0x00  li   a0, 3
    0x04  addi a0, a0, -1      <- loop
    0x08  bnez a0, 0x04        taken, taken, not taken
    0x0c  jal  ra, 0x18
    0x10  jr   t1              uninferable
    0x14  j    0x14
    0x18  ret                  uninferable (back to 0x10)

Usage as a tool: etrace_craft.py --seeds DIR writes the fuzzer's seed
corpus (fuzz-decode.c input format) into DIR.
"""

import argparse
import os

BASE = 0x80000000
CODE = bytes.fromhex('1305300013 05f5ff e31e05fe ef00c000 67000300'
                     '6f000000 67800000'.replace(' ', ''))
IADDR = 63              # iaddress_width_p - iaddress_lsb_p


class Fields:
    def __init__(self):
        self.val = 0
        self.n = 0

    def put(self, value, width):
        self.val |= (value & ((1 << width) - 1)) << self.n
        self.n += width
        return self

    def payload(self):
        return self.val.to_bytes((self.n + 7) // 8, 'little')


def compress(payload):
    """@payload without its top bytes that repeat the sign of the byte
    below (sign-based compression, payload.adoc, to whole bytes)."""
    while len(payload) > 1 and \
            payload[-1] == (0xff if payload[-2] & 0x80 else 0):
        payload = payload[:-1]
    return payload


def frame(payload, srcid=None, srcid_bits=0, time=None, pad=False):
    """Header (length, flow 0, extend 1 with @time), srcID, the 6-byte
    timestamp @time, payload.  With srcID bits beyond whole bytes, the
    top of the last byte is padding (encapsulation.adoc, "Packet
    length"): ones with @pad, zeros otherwise."""
    if srcid_bits:
        shift = srcid_bits % 8
        whole = srcid_bits // 8
        v = int.from_bytes(payload, 'little') << shift | \
            (srcid >> (8 * whole)) & ((1 << shift) - 1)
        if pad and shift:
            v |= ((1 << (8 - shift)) - 1) << (len(payload) * 8 + shift)
        payload = v.to_bytes((len(payload) * 8 + shift + 7) // 8, 'little')
        head = (srcid & ((1 << (8 * whole)) - 1)).to_bytes(whole, 'little')
    else:
        head = b''
    assert 1 <= len(payload) <= 31
    if time is not None:
        return bytes([0x80 | len(payload)]) + head + \
            time.to_bytes(6, 'little') + payload
    return bytes([len(payload)]) + head + payload


def support(qual=0, ioptions=0):
    f = Fields().put(3, 2).put(3, 2).put(1, 1).put(0, 1).put(qual, 2)
    return f.put(ioptions, 6).put(0, 1).put(0, 1).put(0, 4).payload()


def start(addr, priv=3, branch=1, ctx=None, ctx_bits=0):
    """Format 3.0; with @ctx_bits (context_width_p), the context field
    after the privilege (no time field)."""
    f = Fields().put(3, 2).put(0, 2).put(branch, 1).put(priv, 3)
    if ctx_bits:
        f.put(ctx, ctx_bits)
    return f.put(addr >> 1, IADDR).payload()


def context(ctx, ctx_bits, priv=3):
    """Format 3.2: the privilege and the context (no time field)."""
    return Fields().put(3, 2).put(2, 2).put(priv, 3).put(ctx, ctx_bits) \
        .payload()


def trap(addr, ecause, tval=0, interrupt=0, thaddr=1, priv=3, branch=1):
    f = Fields().put(3, 2).put(1, 2).put(branch, 1).put(priv, 3)
    f.put(ecause, 6).put(interrupt, 1).put(thaddr, 1).put(addr >> 1, IADDR)
    if not interrupt:
        f.put(tval, 64)
    return f.payload()


def status(f, diff, irdepth=None):
    """notify, updiscon, irreport; with @irdepth, irreport flipped and
    the 5-bit irdepth (return_stack_size_p 4)."""
    msb = (diff >> (IADDR - 1)) & 1
    if irdepth is not None:
        return f.put(msb, 1).put(msb, 1).put(1 - msb, 1).put(irdepth, 5)
    return f.put(msb, 1).put(msb, 1).put(msb, 1)


def branch(branches, bmap, diff=None, irdepth=None):
    """Format 1; @diff is the address field (iaddress_lsb shift done)."""
    width = 31 if branches in (0,) or branches > 15 else \
        15 if branches > 7 else 7 if branches > 3 else \
        3 if branches > 1 else 1
    f = Fields().put(1, 2).put(branches, 5).put(bmap, width)
    if branches:
        status(f.put(diff, IADDR), diff & ((1 << IADDR) - 1), irdepth)
    return f.payload()


def branch_count(count, fmt=0, diff=None):
    """Format 0 subformat 0 (f0s 1 bit): branch_count, branch_fmt and,
    with fmt 2 or 3, the address field @diff and its status bits."""
    f = Fields().put(0, 2).put(0, 1).put(count, 32).put(fmt, 2)
    if fmt & 2:
        status(f.put(diff, IADDR), diff & ((1 << IADDR) - 1))
    return f.payload()


def jump_cache(index, branches=0, bmap=0):
    """Format 0 subformat 1 (f0s 1 bit, 6-bit index); irreport repeats
    the bit before it."""
    f = Fields().put(0, 2).put(1, 1).put(index, 6).put(branches, 5)
    msb = 0
    if branches:
        width = 31 if branches > 15 else 15 if branches > 7 else \
            7 if branches > 3 else 3 if branches > 1 else 1
        f.put(bmap, width)
        msb = (bmap >> (width - 1)) & 1
    return f.put(msb, 1).payload()


def addr_only(diff):
    f = Fields().put(2, 2).put(diff, IADDR)
    return status(f, diff & ((1 << IADDR) - 1)).payload()


def typed(payload, kind):
    """@payload after a 1-bit Encapsulation type field @kind (0 te_inst,
    1 te_data: a source with data trace), sign-extended to whole
    bytes."""
    n = 8 * len(payload)
    v = int.from_bytes(payload, 'little') << 1 | kind
    if v >> n & 1:
        v |= 0x7f << (n + 1)
    return v.to_bytes(len(payload) + 1, 'little')


def support_data(qual=0, dloss=0, doptions=0):
    """A 2.0 support packet with data trace on (denable)."""
    f = Fields().put(3, 2).put(3, 2).put(1, 1).put(0, 1).put(qual, 2)
    return f.put(0, 6).put(1, 1).put(dloss, 1).put(doptions, 4).payload()


# Code that accesses data, at BASE: lw a1, 0(a0); sd a1, 8(a0);
# amoadd.w a2, a1, (a0); sc.d a3, a1, (a0); jalr x0, 0(ra); j .
DATA_CODE = bytes.fromhex('83250500 2334b500 2f26b500 af36b518 67800000'
                          '6f000000'.replace(' ', ''))
DATA_ADDR = 0x80001000


def data_ldst(store, size, diff, value, data_len, address, unaligned=0):
    """A 2.0 te_data load or store with address and data (3-bit format,
    2-bit size, 64-bit address field)."""
    f = Fields().put(store << 1 | unaligned, 3).put(size, 2).put(diff, 2)
    f.put(data_len, size).put(value, 8 * (data_len + 1))
    return f.put(address, 64).payload()


def data_amo(subtype, size, diff, operand, op_len, value, data_len,
             address):
    """A 2.0 te_data atomic (format 110) with address and data."""
    f = Fields().put(6, 3).put(subtype, 3).put(size, 2).put(diff, 2)
    f.put(op_len, size).put(operand, 8 * (op_len + 1))
    f.put(data_len, size).put(value, 8 * (data_len + 1))
    return f.put(address, 64).payload()


def data_sc_fail(size, diff, address):
    """A 2.0 failed store conditional: atomic subtype 111, address only."""
    f = Fields().put(6, 3).put(7, 3).put(size, 2).put(diff, 1)
    return f.put(address, 64).payload()


# The data program: lw (a full 4-byte access: 0x12345678 at DATA_ADDR,
# its address field shifted right by 2), before the packet that reports
# it; sd (the first 8-byte access: full, 0xfedcba9876543210 at
# DATA_ADDR + 8), amoadd.w (operand 5 in one byte, the value read
# 0x12345678, at the lw's address; but the format 3.0 after the lw ended
# the history: full, diff 00), a failed sc.d (address only, 8 bytes
# below the last 8-byte one: diff 1, field -1), then the packet that
# reports the jump to 0x14.
DATA_GOOD = [typed(support_data(), 0),
             typed(data_ldst(0, 2, 0, 0x12345678, 3, DATA_ADDR >> 2), 1),
             typed(start(BASE), 0),
             typed(data_ldst(1, 3, 0, 0xfedcba9876543210, 7,
                             (DATA_ADDR + 8) >> 3), 1),
             typed(data_amo(1, 2, 0, 5, 0, 0x12345678, 3,
                            DATA_ADDR >> 2), 1),
             typed(data_sc_fail(3, 1, (1 << 64) - 1), 1),
             typed(addr_only(0x14 >> 1), 0),
             typed(support_data(qual=1), 0)]
DATA_GOOD_ACCESSES = [
    '0 data load 4 addr=80001000 value=12345678 insn=80000000',
    '0 data store 8 addr=80001008 value=fedcba9876543210 insn=80000004',
    '0 data add 4 addr=80001000 value=12345678 operand=5 insn=80000008',
    '0 data failed-sc 8 addr=80001000 insn=8000000c',
]


# 31 + T + S null.idle (T = 6, QEMU's timestamps; S = 0), null.alignment
SYNC = bytes(37) + b'\x80'

# The program run once: the loop three times, the call, its return to
# 0x10 (reported), the jr t1 to 0x14 (reported), then the end.
GOOD = [support(), start(BASE), branch(3, 0b100, 0x10 >> 1),
        addr_only(0x4 >> 1), support(qual=1)]
GOOD_FLOW = [BASE + o for o in (0x00, 0x04, 0x08, 0x04, 0x08, 0x04, 0x08,
                                0x0c, 0x18, 0x10, 0x14)]


def stream(packets, **kw):
    return b''.join(frame(p, **kw) for p in packets)


def seeds():
    """Name -> fuzzer input (code length byte, code, options, stream)."""
    head = bytes([len(CODE) // 4]) + CODE
    return {
        'good': head + b'\x00' + stream(GOOD),
        'good-srcid12': head + b'\x0c' +
        stream(GOOD, srcid=0xabc, srcid_bits=12),
        'join': head + b'\x10' + b'\x37\x12' + SYNC + stream(GOOD),
        'trap': head + b'\x00' + stream([support(), start(BASE),
                                         trap(BASE + 0x18, 2, 0x73),
                                         addr_only(2), support(qual=2)]),
        'full-map': head + b'\x00' + stream([support(), start(BASE + 4),
                                             branch(0, 0x7ffffffe),
                                             support(qual=1)]),
        # implicit return: the ret pops, then a failed one (irdepth 1)
        'implicit-return': head + b'\x00' +
        stream([support(ioptions=1), start(BASE),
                branch(3, 0b100, 0x14 >> 1), start(BASE + 0x0c),
                addr_only(0x08 >> 1), branch(0, 0), support(qual=3)]) +
        stream([support(ioptions=1), start(BASE + 0x0c),
                branch(1, 0, 0x08 >> 1, 1), support(qual=1)]),
        # the code ends before the function at 0x18: out of it and back
        'jump-out': bytes([0x18 // 4]) + CODE[:0x18] + b'\x00' +
        stream(GOOD),
        # data trace (bit 7 of the first byte; 2.0 layouts, a 3-bit
        # format field: data options 0x08)
        'data': bytes([0x80 | len(DATA_CODE) // 4]) + DATA_CODE +
        b'\x00\x08' + stream(DATA_GOOD),
    }


def main():
    """Write the fuzzer's seed corpus."""
    ap = argparse.ArgumentParser(description='Hand-made E-Trace streams.')
    ap.add_argument('--seeds', required=True, metavar='DIR',
                    help="write the decoder fuzzer's seed corpus into DIR")
    args = ap.parse_args()
    os.makedirs(args.seeds, exist_ok=True)
    for name, data in seeds().items():
        with open(os.path.join(args.seeds, 'seed-' + name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
