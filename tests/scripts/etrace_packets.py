#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Split an encapsulated E-Trace stream into te_inst packets (for tests).

Reads what the PIB trace sink writes: Encapsulation 1.0 packets (header
byte: length in bits 4:0, flow in 6:5, extend in 7), a srcID of
SRCID_BITS bits, and a sign-compressed te_inst payload with the layout of
docs/specs/riscv-trace.rst (64-bit addresses, lsb 1, 3-bit privilege,
6-bit ecause, support packet 1/6/1/1/4; in protocol 2.1 the Standard
Support Packet of extensions.adoc).  Null bytes (synchronisation
sequences) are skipped.  A header with extend (bit 7) set is followed,
after the srcID, by a timestamp of TIMESTAMP_BYTES bytes (little-endian,
encapsulation.adoc "Timestamp"), given in the fields as 'time'.  This is
a packet reader for the tests; it does not follow the program (the
decoder does).

Usage as a tool: etrace_packets.py FILE [SRCID_BITS [TIMESTAMP_BYTES]]
"""

import argparse

IADDR_BITS = 63
PRIV_BITS = 3
ECAUSE_BITS = 6


class Bits:
    """LSB-first reader that sign-extends past the last bit."""

    def __init__(self, data, skip=0, type_bits=0):
        # After @skip bits of srcID the payload is whole bytes, the rest
        # of the last byte padding (encapsulation.adoc, "Packet length");
        # its first @type_bits are the type field, not read here.
        self.n = ((len(data) - 1) * 8 if skip else len(data) * 8) - \
            type_bits
        self.val = (int.from_bytes(data, 'little') >> (skip + type_bits)) \
            & ((1 << self.n) - 1)
        self.pos = 0

    def get(self, width):
        v = 0
        for i in range(width):
            at = min(self.pos + i, self.n - 1)
            v |= ((self.val >> at) & 1) << i
        self.pos += width
        return v


# extensions.adoc, "Standard Support Packet format": its fields after
# subformat, with their widths
SSP_FIELDS = (('ienable', 1), ('encoder_mode', 2), ('qual_status', 2),
              ('sijump', 1), ('implicit_return', 1), ('branch_predictor', 1),
              ('jump_target_cache', 1), ('implicit_except', 1),
              ('full_iaddress', 1), ('resync_disabled', 1), ('iret_ext', 1),
              ('time_width', 3), ('f0s_width', 2), ('return_stack_size', 3),
              ('call_counter_size', 4), ('bpred_size', 3), ('cache_size', 3),
              ('denable', 1), ('dloss', 1), ('mmacas_ext', 1), ('noaddr', 1),
              ('nodata', 1), ('full_daddress', 1), ('full_data', 1))
# the Standard Support Packet's options as 2.0's ioptions bits
SSP_IOPTIONS = (('implicit_return', 0), ('implicit_except', 1),
                ('full_iaddress', 2), ('jump_target_cache', 3),
                ('branch_predictor', 4), ('sijump', 5))


def parse_te_inst(payload, skip=0, protocol='2.0', type_bits=0,
                  context_bits=0):
    """Fields of one te_inst payload, as a dict; a 2.1 support packet
    also gives its options as 2.0's 'ioptions'.  With @context_bits
    (context_width_p; nocontext_p is 0) formats 3.0 and 3.1 have a
    context field after the privilege (no time field), and format 3.2 is
    the privilege and the context (payload.adoc)."""
    b = Bits(payload, skip, type_bits)
    p = {'format': b.get(2)}
    if p['format'] == 0:
        # f0s_width 1; branch counts, or the 64-entry jump target cache
        p['subformat'] = b.get(1)
        if p['subformat'] == 0:
            p['branch_count'] = b.get(32)
            p['branch_fmt'] = b.get(2)
            if p['branch_fmt'] & 2:
                p['address'] = b.get(IADDR_BITS)
                p['notify'], p['updiscon'], p['irreport'] = \
                    b.get(1), b.get(1), b.get(1)
        else:
            p['index'] = b.get(6)
            p['branches'] = n = b.get(5)
            width = 31 if n > 15 else 15 if n > 7 else \
                7 if n > 3 else 3 if n > 1 else 1
            p['branch_map'] = b.get(width) if n else 0
            p['irreport'] = b.get(1)
    elif p['format'] == 1:
        p['branches'] = b.get(5)
        n = p['branches']
        width = 31 if n == 0 or n > 15 else 15 if n > 7 else \
            7 if n > 3 else 3 if n > 1 else 1
        p['branch_map'] = b.get(width)
        if n:
            p['address'] = b.get(IADDR_BITS)
            p['notify'], p['updiscon'], p['irreport'] = \
                b.get(1), b.get(1), b.get(1)
    elif p['format'] == 2:
        p['address'] = b.get(IADDR_BITS)
        p['notify'], p['updiscon'], p['irreport'] = \
            b.get(1), b.get(1), b.get(1)
    elif p['format'] == 3:
        p['subformat'] = b.get(2)
        if p['subformat'] == 3 and protocol == '2.1':
            for name, width in SSP_FIELDS:
                p[name] = b.get(width)
            p['ioptions'] = sum(p[name] << bit
                                for name, bit in SSP_IOPTIONS)
        elif p['subformat'] == 3:
            p['ienable'] = b.get(1)
            p['encoder_mode'] = b.get(1)
            p['qual_status'] = b.get(2)
            p['ioptions'] = b.get(6)
            p['denable'], p['dloss'] = b.get(1), b.get(1)
            p['doptions'] = b.get(4)
        elif p['subformat'] == 2 and context_bits:
            p['privilege'] = b.get(PRIV_BITS)
            p['context'] = b.get(context_bits)
        elif p['subformat'] in (0, 1):
            p['branch'] = b.get(1)
            p['privilege'] = b.get(PRIV_BITS)
            if context_bits:
                p['context'] = b.get(context_bits)
            if p['subformat'] == 1:
                p['ecause'] = b.get(ECAUSE_BITS)
                p['interrupt'] = b.get(1)
                p['thaddr'] = b.get(1)
            p['address'] = b.get(IADDR_BITS)
            if p['subformat'] == 1 and not p['interrupt']:
                p['tval'] = b.get(64)
    return p


def packets(data, srcid_bits=0, timestamp_bytes=0, protocol='2.0',
            type_bits=0, context_bits=0):
    """Yield (srcid, fields, raw bytes) for each normal packet; with
    @timestamp_bytes, a packet's timestamp is its fields' 'time'.  With
    @type_bits (a source with data trace: e-trace-specifics.adoc of the
    Encapsulation spec), a packet of type 1 is a te_data packet, whose
    fields are {'te_data': its payload as Bits}."""
    i = 0
    whole, part = srcid_bits // 8, srcid_bits % 8
    while i < len(data):
        hdr = data[i]
        length = hdr & 0x1f
        if length == 0:
            i += 1          # null.idle or null.alignment
            continue
        ts = timestamp_bytes if hdr & 0x80 else 0
        if hdr & 0x80 and not ts:
            raise ValueError(f'offset {i}: timestamps are not expected')
        # with a partial srcID byte the timestamp would not be byte
        # aligned; the encoders' srcIDs are 0 or 8 bits
        if ts and part:
            raise ValueError(f'offset {i}: a timestamp after a '
                             f'{srcid_bits}-bit srcID')
        end = i + 1 + whole + ts + length
        if end > len(data):
            raise ValueError(f'offset {i}: packet runs past the end')
        srcid = int.from_bytes(data[i + 1:i + 1 + whole], 'little')
        payload = data[i + 1 + whole + ts:end]
        if part:
            srcid |= (payload[0] & ((1 << part) - 1)) << (8 * whole)
        kind = (int.from_bytes(payload, 'little') >> part) & \
            ((1 << type_bits) - 1)
        if kind == 1:
            fields = {'te_data': Bits(payload, part, type_bits)}
        else:
            fields = parse_te_inst(payload, part, protocol, type_bits,
                                   context_bits)
        if ts:
            fields['time'] = int.from_bytes(
                data[i + 1 + whole:i + 1 + whole + ts], 'little')
        yield srcid, fields, data[i:end]
        i = end


def describe(p):
    """The one-line form the tests compare against."""
    f = p['format']
    if f == 0 and p['subformat'] == 0:
        s = f"F0.0 c={p['branch_count']} f={p['branch_fmt']}"
        if p['branch_fmt'] & 2:
            s += (f" a={p['address']:x} s={p['notify']}{p['updiscon']}"
                  f"{p['irreport']}")
        return s
    if f == 0:
        return (f"F0.1 i={p['index']} n={p['branches']} "
                f"m={p['branch_map']:x}")
    if f == 1 and p['branches'] == 0:
        return f"F1 n=0 m={p['branch_map']:x}"
    if f in (1, 2):
        st = f"{p['notify']}{p['updiscon']}{p['irreport']}"
        if f == 1:
            return (f"F1 n={p['branches']} m={p['branch_map']:x} "
                    f"a={p['address']:x} s={st}")
        return f"F2 a={p['address']:x} s={st}"
    if f == 3 and p['subformat'] == 3 and 'iret_ext' in p:
        return (f"SSP ie={p['ienable']} q={p['qual_status']} "
                f"o={p['ioptions']} rd={p['resync_disabled']} "
                f"ir={p['iret_ext']} tw={p['time_width']} "
                f"f0s={p['f0s_width']} rs={p['return_stack_size']} "
                f"cc={p['call_counter_size']} bp={p['bpred_size']} "
                f"jtc={p['cache_size']}")
    if f == 3 and p['subformat'] == 3:
        return (f"S ie={p['ienable']} q={p['qual_status']} "
                f"o={p['ioptions']}")
    ctx = f" ctx={p['context']:x}" if 'context' in p else ''
    if f == 3 and p['subformat'] == 2 and 'context' in p:
        return f"F3.2 p={p['privilege']}{ctx}"
    if f == 3 and p['subformat'] == 0:
        return (f"F3.0 b={p['branch']} p={p['privilege']}{ctx} "
                f"a={p['address']:x}")
    if f == 3 and p['subformat'] == 1:
        s = (f"F3.1 b={p['branch']} p={p['privilege']}{ctx} "
             f"c={p['ecause']} i={p['interrupt']} th={p['thaddr']} "
             f"a={p['address']:x}")
        if not p['interrupt']:
            s += f" tval={p['tval']:x}"
        return s
    return f'format {f} (not expected)'


def main():
    """Print the packets of a trace file."""
    ap = argparse.ArgumentParser(description='Print the packets of an '
                                 'E-Trace stream, one a line.')
    ap.add_argument('file', help='the trace')
    ap.add_argument('srcid_bits', nargs='?', type=int, default=0,
                    help='bits of srcID in each header (default 0)')
    ap.add_argument('timestamp_bytes', nargs='?', type=int, default=0,
                    help='bytes of a timestamp (default 0: none)')
    ap.add_argument('--protocol', choices=('2.0', '2.1'), default='2.0',
                    help='the E-Trace protocol of the stream')
    args = ap.parse_args()
    with open(args.file, 'rb') as f:
        data = f.read()
    bits = args.srcid_bits
    for srcid, p, raw in packets(data, bits, args.timestamp_bytes,
                                 args.protocol):
        time = f" t={p['time']}" if 'time' in p else ''
        print(f"{srcid} {describe(p)}{time}  [{raw.hex(' ')}]")


if __name__ == '__main__':
    main()
