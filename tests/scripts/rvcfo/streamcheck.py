# SPDX-License-Identifier: GPL-2.0-or-later
"""What a round trip's stream must hold, worked out without the encoder.

A round trip proves that the decoder follows the encoder; these checks
prove things of the stream itself that a decoder sharing a mistake with
the encoder would not notice, from the test's own reading of the spec,
the options the test asked for and QEMU's record (never from the
encoder's or the decoder's code):
  asked_options(qemu_args)     the encoder options of the command line
                               (-global riscv-trace-encoder.NAME=on) as
                               the support packet's ioptions bits;
  by_source(trace, ...)        the packets of each srcID
                               (etrace_packets.py);
  check_start(packets, want)   the first packet of a hart is a support
                               packet with ienable 1 and those ioptions
                               (in 2.1 also the Standard Support
                               Packet's parameters and resync_disabled);
  check_end(packets)           its last is a support packet with
                               ienable 0 (tracing ended);
  format0_expected(...)        the format 0.0 packets of branch
                               prediction and the jump target cache hits
                               the program makes due, from the record;
  check_format0(...)           those against the stream.
Each check returns a list of failures (strings).
"""

import struct

import etrace_packets

# ioptions bits (docs/specs/riscv-trace.rst, support packet)
IOPTIONS = {
    'implicit-return': 1 << 0,
    'no-addr-diff': 1 << 2,
    'jump-target-cache': 1 << 3,
    'branch-prediction': 1 << 4,
    'sequential-jumps': 1 << 5,
}
ON = ('on', 'true', 'yes')
# The encoder's discovery parameters (the decoder's defaults,
# docs/system/riscv/trace.rst): 2^6 entries of predictor and cache,
# indexed by address bits 6:1
BPRED_BITS = 6
CACHE_BITS = 6
# A full branch map (payload.adoc, format 1): 31 outcomes
MAP_MAX = 31
# Protocol 2.1: the Standard Support Packet's parameters as
# docs/specs/riscv-trace.rst gives them ("Protocol 2.1")
SSP_WANT = {'encoder_mode': 0, 'iret_ext': 1, 'time_width': 0,
            'f0s_width': 1, 'return_stack_size': 4, 'call_counter_size': 0,
            'bpred_size': BPRED_BITS, 'cache_size': CACHE_BITS,
            'denable': 0, 'dloss': 0, 'mmacas_ext': 0, 'noaddr': 0,
            'nodata': 0, 'full_daddress': 0, 'full_data': 0}


def asked_options(qemu_args):
    """The ioptions the command line asks of the encoder."""
    bits = 0
    for k, arg in enumerate(qemu_args[:-1]):
        if arg != '-global' or \
                not qemu_args[k + 1].startswith('riscv-trace-encoder.'):
            continue
        name, _, value = qemu_args[k + 1].split('.', 1)[1].partition('=')
        if name in IOPTIONS:
            if value.lower() in ON:
                bits |= IOPTIONS[name]
            else:
                bits &= ~IOPTIONS[name]
    return bits


def asked_resync_disabled(qemu_args):
    """2.1's resync_disabled: the command line asks for sync-mode 0."""
    return '-global' in qemu_args and \
        'riscv-trace-encoder.sync-mode=0' in qemu_args


def by_source(trace, srcid_bits, timestamp_bytes, protocol='2.0',
              type_bits=0, context_bits=0):
    """{srcID: [fields of each te_inst packet]} of a trace file (with
    @type_bits, of a source with data trace; with @context_bits, of an
    encoder with a context field)."""
    with open(trace, 'rb') as f:
        data = f.read()
    out = {}
    for src, p, _ in etrace_packets.packets(data, srcid_bits,
                                            timestamp_bytes, protocol,
                                            type_bits, context_bits):
        if 'te_data' not in p:
            out.setdefault(src, []).append(p)
    return out


def context_packets(packets):
    """(subformat, privilege, context) of each format 3.0, 3.1 and 3.2
    of @packets (by_source() with context_bits)."""
    return [(p['subformat'], p['privilege'], p['context'])
            for p in packets
            if p['format'] == 3 and p['subformat'] in (0, 1, 2)]


def is_support(p):
    return p['format'] == 3 and p['subformat'] == 3


def check_start(hart, packets, want, resync_disabled=None):
    """A traced run starts with a support packet: enabled, with the
    options asked for (payload.adoc: sent when tracing starts); in 2.1
    (@resync_disabled not None) a Standard Support Packet with
    SSP_WANT's parameters and that resync_disabled."""
    if not packets:
        return [f'hart {hart}: no packets']
    p = packets[0]
    if not is_support(p):
        return [f'hart {hart}: the first packet is '
                f'{etrace_packets.describe(p)}, not a support packet']
    if p['ienable'] != 1 or p['ioptions'] != want:
        return [f'hart {hart}: the first support packet says ienable '
                f'{p["ienable"]}, ioptions {p["ioptions"]:#x}; asked for '
                f'ienable 1, ioptions {want:#x}']
    if resync_disabled is None:
        return []
    want21 = dict(SSP_WANT, resync_disabled=int(resync_disabled))
    return [f'hart {hart}: the first Standard Support Packet has '
            f'{k} {p.get(k)}, not {v}'
            for k, v in want21.items() if p.get(k) != v]


def check_end(hart, packets):
    """The run's last packet is the support packet that ends the trace
    (ienable 0: QEMU stopping ends it, docs/system/riscv/trace.rst)."""
    if not packets or not is_support(packets[-1]) or \
            packets[-1]['ienable'] != 0:
        last = etrace_packets.describe(packets[-1]) if packets else 'none'
        return [f'hart {hart}: the last packet is {last}, not the support '
                'packet that ends the trace (ienable 0)']
    return []


def elf_symbol(path, name):
    """The value of symbol @name in an ELF file, or None."""
    with open(path, 'rb') as f:
        data = f.read()
    is64 = data[4] == 2
    if is64:
        shoff = struct.unpack_from('<Q', data, 40)[0]
        shentsize, shnum = struct.unpack_from('<HH', data, 58)
    else:
        shoff = struct.unpack_from('<I', data, 32)[0]
        shentsize, shnum = struct.unpack_from('<HH', data, 46)
    sections = []
    for k in range(shnum):
        at = shoff + k * shentsize
        if is64:
            _, typ, _, _, off, size, link, _, _, entsize = \
                struct.unpack_from('<IIQQQQIIQQ', data, at)
        else:
            _, typ, _, _, off, size, link, _, _, entsize = \
                struct.unpack_from('<IIIIIIIIII', data, at)
        sections.append((typ, off, size, link, entsize))
    for typ, off, size, link, entsize in sections:
        if typ != 2:        # SHT_SYMTAB
            continue
        stroff = sections[link][1]
        for at in range(off, off + size, entsize):
            if is64:
                nm, _, _, _, value, _ = struct.unpack_from('<IBBHQQ',
                                                           data, at)
            else:
                nm, value, _, _, _, _ = struct.unpack_from('<IIIBBH',
                                                           data, at)
            end = data.index(b'\0', stroff + nm)
            if data[stroff + nm:end].decode() == name:
                return value
    return None


def kind(insn, size):
    """'branch', 'uninferable' (jalr, c.jr, c.jalr) or None, from the
    encoding (the unprivileged ISA's opcode map)."""
    if size == 4:
        op = insn & 0x7f
        if op == 0x63:
            return 'branch'
        if op == 0x67:
            return 'uninferable'
        return None
    quadrant, funct3 = insn & 3, insn >> 13
    if quadrant == 1 and funct3 in (6, 7):
        return 'branch'             # c.beqz, c.bnez
    if quadrant == 2 and funct3 == 4 and (insn >> 2) & 0x1f == 0 and \
            (insn >> 7) & 0x1f:
        return 'uninferable'        # c.jr, c.jalr
    return None


def bpred_next(state, taken):
    """A 2-bit predictor entry after an outcome (branchTrace.adoc,
    "Branch prediction mode"): bit 1 the prediction; 00 and 01 predict
    not taken, 10 and 11 taken.  A taken outcome moves 00 to 01 and any
    other state to 11; a not-taken one moves 11 to 10 and any other
    state to 00 (two failures in a row change the prediction)."""
    if taken:
        return 1 if state == 0 else 3
    return 2 if state == 3 else 0


def format0_expected(flow, code, end, bp):
    """From the start of @flow (a hart's record as the round trip reads
    it, the trace starting at its first instruction) to the first
    instruction at @end, with no trap before: the format 0.0 packets
    branch prediction makes due, as (branch_count, branch_fmt 0 | 2), and
    the jump target cache indexes of the uninferable jumps whose target
    the cache holds.  A predictor entry starts at 01 at the
    synchronisation; 31 outcomes all foreseen in a branch map start a
    count (payload.adoc, format 0 subformat 0: branch_count is the
    number of correctly predicted branches minus 31); a failure ends it
    with branch_fmt 0 and starts an empty map; an uninferable jump ends
    it with an address (branch_fmt 2) and any map.  The cache has one
    entry per address bits 6:1 of the target, replaced by every target
    reported (decoder.adoc, cache update).  @bp: branch prediction is
    on (without it no count starts).  None when there is a trap or @end
    is never reached."""
    pcs = []
    for item in flow:
        words = item.split()
        if words[0] in ('trap', 'gap'):
            return None
        pc = int(words[1], 16)
        pcs.append(pc)
        if pc == end:
            break
    else:
        return None
    bpred = [1] * (1 << BPRED_BITS)
    cache = [None] * (1 << CACHE_BITS)
    counts, hits = [], []
    n = 0
    all_met = True
    count = None
    for pc, nxt in zip(pcs, pcs[1:]):
        insn, size = code[pc]
        k = kind(insn, size)
        if k == 'branch':
            taken = nxt != pc + size
            entry = (pc >> 1) & ((1 << BPRED_BITS) - 1)
            met = (bpred[entry] >> 1) == taken
            bpred[entry] = bpred_next(bpred[entry], taken)
            if count is not None:
                if met:
                    count += 1
                else:
                    counts.append((count - MAP_MAX, 0))
                    count = None
                    n, all_met = 0, True
            else:
                n += 1
                all_met = all_met and met
                if n == MAP_MAX:
                    if all_met and bp:
                        count = MAP_MAX
                    n, all_met = 0, True
        elif k == 'uninferable':
            if count is not None:
                counts.append((count - MAP_MAX, 2))
            else:
                index = (nxt >> 1) & ((1 << CACHE_BITS) - 1)
                if cache[index] == nxt:
                    hits.append(index)
                cache[index] = nxt
            count = None
            n, all_met = 0, True
    return counts, hits


def check_format0(hart, packets, ioptions, expected):
    """Without branch prediction no format 0.0 packet, without the cache
    no 0.1; with them, the first format 0.0 packets are @expected's
    counts and the first 0.1 packets its cache indexes, in order."""
    counts, hits = expected
    f00 = [(p['branch_count'], p['branch_fmt'] & 2) for p in packets
           if p['format'] == 0 and p['subformat'] == 0]
    f01 = [p['index'] for p in packets
           if p['format'] == 0 and p['subformat'] == 1]
    errors = []
    bp = ioptions & IOPTIONS['branch-prediction']
    jtc = ioptions & IOPTIONS['jump-target-cache']
    if not bp and f00:
        errors.append(f'hart {hart}: {len(f00)} format 0.0 packets '
                      'without branch prediction')
    if bp and f00[:len(counts)] != counts:
        errors.append(f'hart {hart}: format 0.0 packets (branch_count, '
                      f'address) {f00[:len(counts) + 2]}, the program '
                      f'makes {counts} due first')
    if not jtc and f01:
        errors.append(f'hart {hart}: {len(f01)} format 0.1 packets '
                      'without the jump target cache')
    if jtc and f01[:len(hits)] != hits:
        errors.append(f'hart {hart}: format 0.1 indexes '
                      f'{f01[:len(hits) + 2]}, the program makes {hits} '
                      'due first')
    return errors
