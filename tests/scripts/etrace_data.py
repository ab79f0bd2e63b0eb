#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Read the te_data packets of an E-Trace stream (for tests).

A reader written from the packet tables of E-Trace (dataTracePayload.adoc
of E-Trace 2.0.5, protocol 2.0) and of the Multiple-Memory Access and
Compare and Swap extension (extensions.adoc, protocol 2.1), with the
choices docs/specs/riscv-trace.rst ("Data trace packets") publishes, and
nothing of the encoder's or decoder's code: the tests compare what it
reads with what etrace-decode reads and with QEMU's own record.

The parameters are those of QEMU's harts: addresses of XLEN
(daddress_width_p), 64-bit data (data_width_p, a 2-bit size field), a
format field of 3 bits in 2.0 and 2 with the extension (harts with
atomics); with split signalling (QEMU's data-split=on) lrid_width_p 1
and, on an RV64 hart with Zacas, 128-bit data (a 3-bit size field): a
load or an atomic with a value is then a request and a data phase.  The
options come from the stream's support packets: noaddr
and nodata (2.0: doptions bits 0 and 1; 2.1: the Standard Support
Packet's fields), the extension's layouts in 2.1 (mmacas_ext).  Every
format 3 packet ends the compression history: the first address and the
first value of each size after one are full.
"""

import etrace_packets

LOAD, STORE, CAS_FAIL, SWAP, SC_FAIL = 0, 1, 7, 8, 15
NAMES = {0: 'load', 1: 'store', 7: 'failed-cas', 8: 'swap', 9: 'add',
         10: 'and', 11: 'or', 12: 'xor', 13: 'max', 14: 'min',
         15: 'failed-sc'}


def sext(v, bits):
    """@v, @bits wide, as a signed number."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) & 1 else v


class Reader:
    """The te_data packets of one source, in stream order."""

    def __init__(self, protocol='2.0', daddress_width=64, data_width=64,
                 lrid_width=0):
        self.protocol = protocol
        self.aw = daddress_width
        self.dw = data_width
        # size: max(1, clog2(clog2(data_width_p / 8 + 1))) bits
        self.sw = max(1, ((data_width // 8 + 1 - 1).bit_length() - 1)
                      .bit_length())
        self.lw = lrid_width
        self.mmacas = protocol == '2.1'
        self.noaddr = self.nodata = False
        self.addr = {}
        self.data = {}
        self.requests = {}

    def te_inst(self, p):
        """A te_inst packet's fields (etrace_packets.parse_te_inst())."""
        if p['format'] != 3:
            return
        self.addr = {}
        self.data = {}
        if p['subformat'] != 3:
            return
        if p.get('dloss'):
            # data packets were lost: a request may have lost its data
            # phase
            self.requests = {}
        if 'iret_ext' in p:
            self.mmacas = bool(p['mmacas_ext'])
            self.noaddr, self.nodata = bool(p['noaddr']), bool(p['nodata'])
        else:
            self.noaddr = bool(p['doptions'] & 1)
            self.nodata = bool(p['doptions'] & 2)

    def _types(self, b):
        """dtype, mma, unaligned."""
        if not self.mmacas:
            fmt = b.get(3)
            if fmt < 4:
                return (STORE if fmt & 2 else LOAD), False, bool(fmt & 1)
            if fmt == 6:
                sub = b.get(3)
                return (SC_FAIL if sub == 7 else SWAP + sub), False, False
            if fmt in (4, 7) and self.lw:
                return ('data-load' if fmt == 4 else 'data-atomic'), \
                    False, False
            raise ValueError(f'te_data format {fmt} is not produced')
        cls = b.get(2)
        if cls in (0, 1):
            sub = b.get(2)
            return (STORE if sub & 2 else LOAD), cls == 1, bool(sub & 1)
        if cls == 2:
            sub = b.get(4)
            if sub == CAS_FAIL or sub >= SWAP:
                return sub, False, False
            raise ValueError(f'te_data atomic subformat {sub}')
        if self.lw:
            return 'data-load', False, False
        raise ValueError('te_data class 3 with unified signalling')

    def _split(self, dtype):
        """Whether an access of @dtype has a request and a data phase:
        loads with address and value, atomics with a value."""
        if not self.lw or self.nodata:
            return False
        return (dtype == LOAD and not self.noaddr) or SWAP <= dtype < SC_FAIL

    def _data_phase(self, b, kind):
        """A data phase: its request's access, with the value."""
        atomic20 = kind == 'data-atomic'
        size = None if atomic20 else b.get(self.sw)
        lrid = b.get(self.lw)
        if lrid not in self.requests:
            raise ValueError(f'data phase with no request of lrid {lrid}')
        a, rsize = self.requests.pop(lrid)
        if size is not None and size != rsize:
            raise ValueError('data phase of another size than its request')
        resp = b.get(2)
        if resp == 0:
            raise ValueError('data phase with an error response')
        nbits = 8 * (b.get(rsize) + 1) if atomic20 else self.dw
        a['value'] = self._value(rsize, {1: 1, 2: 0, 3: 3}[resp],
                                 b.get(nbits), nbits)
        if SWAP <= a['dtype'] < SC_FAIL and resp != 2:
            raise ValueError('compressed atomic (sent uncompressed here)')
        self.data[rsize] = a['value']
        return a

    def _value(self, size, diff, v, vlen_bits):
        """A value field of @vlen_bits, as @diff says, from the history
        of @size (XOR, difference); only the access's bytes matter."""
        bits = 8 << size
        mask = (1 << bits) - 1
        v = sext(v, vlen_bits) & mask
        if diff in (0, 2):
            return v
        if size not in self.data:
            raise ValueError('compressed value with no history')
        if diff == 1:
            return (self.data[size] ^ v) & mask
        return (self.data[size] + v) & mask

    def packet(self, b):
        """One te_data payload (Bits after the type field): a dict with
        dtype, size, mma and the fields it has: addr, value, operand."""
        dtype, mma, unaligned = self._types(b)
        if isinstance(dtype, str):
            return self._data_phase(b, dtype)
        size = b.get(self.sw)
        a = {'dtype': dtype, 'size': 1 << size, 'mma': mma}
        atomic = dtype >= CAS_FAIL
        split = self._split(dtype)
        if split:
            lrid = b.get(self.lw)
            if lrid in self.requests:
                raise ValueError(f'request of lrid {lrid} before the data '
                                 'phase of the last')
            self.requests[lrid] = (a, size)
        # the layouts: failed SC address only; failed CAS operand and
        # address (without values: address only, which its subformat
        # has); a load's request address only; else as the options say
        addr_only = dtype == SC_FAIL or self.nodata or \
            (split and dtype == LOAD)
        data_only = not addr_only and self.noaddr and dtype != CAS_FAIL
        if addr_only:
            diff = b.get(1)
            self._address(a, size, bool(diff), b.get(self.aw), unaligned)
            return None if split else a
        diff = b.get(2)
        if atomic and diff in (1, 3):
            raise ValueError('compressed atomic (sent uncompressed here)')
        if split and data_only:
            # a split atomic without address: the operand, data_width_p
            a['operand'] = sext(b.get(self.dw), self.dw) & \
                ((1 << (8 << size)) - 1)
            return None
        if atomic:
            op_len = b.get(size)
            a['operand'] = sext(b.get(8 * (op_len + 1)), 8 * (op_len + 1)) \
                & ((1 << (8 << size)) - 1)
        if split:
            self._address(a, size, diff != 0, b.get(self.aw), unaligned)
            return None
        if data_only:
            if diff == 2:
                raise ValueError('data-only diff 10 is reserved')
            a['value'] = self._value(size, diff, b.get(self.dw), self.dw)
            self.data[size] = a['value']
            return a
        if dtype != CAS_FAIL:
            data_len = b.get(size)
            nbits = 8 * (data_len + 1)
            a['value'] = self._value(size, diff, b.get(nbits), nbits)
            self.data[size] = a['value']
        self._address(a, size, diff != 0, b.get(self.aw), unaligned)
        return a

    def _address(self, a, size, diff, v, unaligned):
        """The address field @v: shifted left by @size unless
        @unaligned, added to the last address of its size if @diff."""
        v = sext(v, self.aw)
        if not unaligned:
            v <<= size
        if diff:
            if size not in self.addr:
                raise ValueError('differential address with no history')
            v += self.addr[size]
        a['addr'] = v & ((1 << self.aw) - 1)
        self.addr[size] = a['addr']


def accesses(data, protocol='2.0', daddress_width=64, timestamp_bytes=6,
             srcid_bits=0, data_width=64, lrid_width=0):
    """The accesses of the te_data packets of a stream with data trace (a
    1-bit type field), in order, as (srcID, access): each source has its
    own history; packets with a timestamp have one of @timestamp_bytes
    (QEMU's: 6).  With split signalling (@lrid_width) an access comes
    with its data phase."""
    readers = {}
    out = []
    for src, p, raw in etrace_packets.packets(data, srcid_bits,
                                              timestamp_bytes, protocol,
                                              type_bits=1):
        r = readers.setdefault(src, Reader(protocol, daddress_width,
                                           data_width, lrid_width))
        if 'te_data' in p:
            try:
                a = r.packet(p['te_data'])
                if a is not None:
                    out.append((src, a))
            except ValueError as e:
                raise ValueError(f'packet [{raw.hex(" ")}]: {e}') from e
        else:
            r.te_inst(p)
    return out


def describe(a):
    """The decoder's form of an access, without its instruction."""
    s = f"data {NAMES[a['dtype']]} {a['size']}"
    for k in ('addr', 'value', 'operand'):
        if k in a:
            s += f' {k}={a[k]:x}'
    return s + (' mma' if a['mma'] else '')
