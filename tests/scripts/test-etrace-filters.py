#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Instruction trace filters and comparators, checked against QEMU's record.

Usage: test-etrace-filters.py --qemu QEMU --decoder DECODER --elf ELF
                              [-- QEMU ARGUMENTS...]

(QEMU ARGUMENTS: encoder options, e.g. the compression options and
timestamps, the filters must work with; timestamps are left aside.)

The guest (tests/tcg/riscv64/test-etrace-filters.c) runs one workload
once per phase, each phase with the filter registers this script gives
it (the PHASES below, written into guest memory with -device loader).
The guest is traced from reset (trace-start=on) and QEMU records what it
executed (-d in_asm,exec,nochain,int, rvcfo/record.py).

From the record alone, this script works out which instructions and traps
each phase's filters qualify, by the rules of the Trace Control Interface
1.0 ("Trace Encoder Filter Registers") as docs/specs/riscv-trace.rst
states them for this encoder:

  - a filter matches when every condition it enables holds; the filters
    selected in trTeInstFilters are ORed; a selected filter that is not
    enabled matches nothing;
  - privilege: the mode the instruction ran in, or a trap was taken from;
  - ecause / interrupt: a window that opens at a trap matching them (the
    trap is inside it) and closes after the xRET that returns from it;
    traps inside an open window nest, each xRET unnests one;
  - comparators compare the instruction address (the EPC for a trap),
    unsigned, with every function and match mode; latch mode is set by a
    primary match and asserted up to and including the instruction of a
    secondary match; primary function 6 in latch mode primes it;
  - the state starts afresh when tracing starts.

It then decodes the trace and requires the decoded flow to be exactly the
qualified instructions, in order, with a "trace ended" gap after each run
of them.  A trap is shown when the trap and the next instruction are both
qualified (the encoder reports a trap with the first instruction of its
handler); otherwise it may be shown (a trap reported with thaddr = 0).

The guest runs twice, with QEMU's record (blocks not chained) and
without it (chained): both decoded flows must be the one worked out.
While a comparator is in use, the hart translates blocks of one
instruction each; without that the flows would differ.
"""

import os
import struct
import sys
import tempfile

from rvcfo import cli, record, roundtrip
from rvcfo.filtermodel import (EQ, NE, LT, LE, GT, GE, SPECIAL, TRUE,
                               MODE_P, MODE_P_AND_S, MODE_NOT_P_AND_S,
                               MODE_LATCH, Comparators, comp_regs, use_comp)

CFG_ADDR = 0x80f00000
CFG_MAGIC = 0x46494c54
CFG_END = 0xffffffff
CPU = 'rv64'

# Register offsets in the encoder's block
INST_FILTERS = 0x00c


def filt(i, reg):
    return 0x400 + 0x20 * i + reg


# trTeFilterControl
EN, PRIV, ECAUSE, INTR = 1, 2, 4, 8


# Privilege codes (E-Trace): U 0, S 1, M 3
PRIV_BITS = {'U': 1, 'S': 2, 'M': 8}


def phases(sym):
    """(name, register writes) of each phase, from the ELF's symbols."""
    ilo, ihi = sym['filt_inside']
    olo, ohi = sym['filt_outside']
    return [
        ('privilege U', [(INST_FILTERS, 1), (filt(0, 0), EN | PRIV),
                         (filt(0, 4), PRIV_BITS['U'])]),
        ('privilege S or M', [(INST_FILTERS, 1), (filt(0, 0), EN | PRIV),
                              (filt(0, 4), PRIV_BITS['S'] | PRIV_BITS['M'])]),
        ('illegal instruction window, nested ecall',
         [(INST_FILTERS, 1), (filt(0, 0), EN | ECAUSE),
          (filt(0, 8), 1 << 2)]),
        ('interrupt window',
         [(INST_FILTERS, 1), (filt(0, 0), EN | INTR),
          (filt(0, 4), 0x100)]),
        ('breakpoint exception window',
         [(INST_FILTERS, 1), (filt(0, 0), EN | ECAUSE | INTR),
          (filt(0, 8), 1 << 3), (filt(0, 4), 0)]),
        ('address range, P >= lo and S < hi',
         [(INST_FILTERS, 1), (filt(0, 0), EN | use_comp(1, 0))] +
         comp_regs(0, GE, ilo, LT, ihi, MODE_P_AND_S)),
        ('outside the range, !(P and S), in M-mode',
         [(INST_FILTERS, 1),
          (filt(0, 0), EN | PRIV | use_comp(1, 4)),
          (filt(0, 4), PRIV_BITS['M'])] +
         comp_regs(4, GE, ilo, LT, ihi, MODE_NOT_P_AND_S)),
        ('latch from filt_inside to filt_outside',
         [(INST_FILTERS, 1), (filt(0, 0), EN | use_comp(2, 6))] +
         comp_regs(6, EQ, ilo, EQ, olo, MODE_LATCH)),
        ('primary masked by the secondary',
         [(INST_FILTERS, 1), (filt(0, 0), EN | use_comp(3, 1))] +
         comp_regs(1, EQ, ilo, SPECIAL, (1 << 64) - 32, MODE_P)),
        ('primed latch up to filt_outside',
         [(INST_FILTERS, 1), (filt(0, 0), EN | use_comp(1, 7))] +
         comp_regs(7, SPECIAL, 0, EQ, olo, MODE_LATCH)),
        ('two filters: U-mode, or filt_outside but its first instruction',
         [(INST_FILTERS, 0x25), (filt(0, 0), EN | PRIV),
          (filt(0, 4), PRIV_BITS['U']),
          (filt(5, 0), EN | use_comp(1, 3) | use_comp(2, 2))] +
         comp_regs(3, GE, olo, LE, ohi - 2, MODE_P_AND_S) +
         comp_regs(2, NE, olo, TRUE, 0, MODE_P)),
        ('a selected filter not enabled', [(INST_FILTERS, 2)]),
        ('at or below filt_inside, above filt_outside',
         [(INST_FILTERS, 3), (filt(0, 0), EN | use_comp(1, 0)),
          (filt(1, 0), EN | use_comp(1, 5))] +
         comp_regs(0, LE, ilo, TRUE, 0, MODE_P) +
         comp_regs(5, GT, olo, TRUE, 0, MODE_P)),
    ]


def blob(phase_list):
    words = [CFG_MAGIC]
    for _, writes in phase_list:
        for off, val in writes:
            words += [off, val]
        words.append(CFG_END)
    words.append(CFG_END)
    return struct.pack(f'<{len(words)}I', *words)


def symbols(elf):
    """{name: (value, value + size)} of the ELF's symbol table."""
    with open(elf, 'rb') as f:
        data = f.read()
    shoff = struct.unpack_from('<Q', data, 40)[0]
    shentsize, shnum = struct.unpack_from('<HH', data, 58)
    sections = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + k * shentsize)
                for k in range(shnum)]
    out = {}
    for sec in sections:
        if sec[1] != 2:             # SHT_SYMTAB
            continue
        strtab = sections[sec[6]]
        for at in range(sec[4], sec[4] + sec[5], 24):
            name, _, _, _, value, size = struct.unpack_from('<IBBHQQ',
                                                            data, at)
            s = strtab[4] + name
            out[data[s:data.index(b'\0', s)].decode()] = (value, value + size)
    return out


class Filters:
    """The filter and comparator registers of one phase, and their state."""

    def __init__(self, writes):
        r = {}
        for off, val in writes:
            r[off] = val
        self.inst = r.get(INST_FILTERS, 0) & 0xff
        self.ctl = [r.get(filt(i, 0), 0) & 0xffff for i in range(8)]
        self.choice = [r.get(filt(i, 4), 0) & 0x16b for i in range(8)]
        self.ecause = [r.get(filt(i, 8), 0) | r.get(filt(i, 12), 0) << 32
                       for i in range(8)]
        self.comps = Comparators(r)
        self.active = [i for i in range(8)
                       if self.inst >> i & 1 and self.ctl[i] & EN]
        self.used = sorted({self.ctl[i] >> (4 * k + 1) & 7
                            for i in self.active for k in (1, 2, 3)
                            if self.ctl[i] >> (4 * k) & 1})
        self.window = set()
        self.nest = [0] * 8

    def on(self):
        return self.inst != 0

    def row(self, addr, priv):
        outs = {j for j in self.used if self.comps.output(j, addr)}
        for i in self.active:
            ctl = self.ctl[i]
            if ctl & PRIV and not self.choice[i] >> priv & 1:
                continue
            if ctl & (ECAUSE | INTR) and i not in self.window:
                continue
            if all(ctl >> (4 * k + 1) & 7 in outs for k in (1, 2, 3)
                   if ctl >> (4 * k) & 1):
                return True
        return False

    def trap(self, interrupt, cause, epc, priv):
        for i in self.active:
            ctl = self.ctl[i]
            if not ctl & (ECAUSE | INTR):
                continue
            if i in self.window:
                self.nest[i] = min(self.nest[i] + 1, 255)
            elif (not ctl & ECAUSE or self.ecause[i] >> (cause & 63) & 1) \
                    and (not ctl & INTR or
                         interrupt == bool(self.choice[i] & 0x100)):
                self.window.add(i)
                self.nest[i] = 0
        return self.row(epc, priv)

    def trap_return(self):
        for i in list(self.window):
            if self.nest[i]:
                self.nest[i] -= 1
            else:
                self.window.discard(i)


PRIV_CODE = {'U': 0, 'S': 1, 'M': 3}
XRETS = ((0x30200073, 4), (0x10200073, 4))


def rows(log):
    """The rows the encoder sees, from QEMU's record: ('insn', priv, pc,
    code) and ('trap', priv, epc, retired, item)."""
    rec = record.Record()
    with open(log, encoding='utf-8', errors='replace') as f:
        for line in f:
            rec.feed(line)
    out = []
    priv = None
    for e in rec.stream:
        if isinstance(e, dict):
            priv = roundtrip.priv_of(e['flags'])
            for pc, size, insn in e['insns']:
                out.append(('insn', priv, pc, (insn, size)))
        else:
            _, is_async, cause, epc, tval, last_code = e
            retired = not is_async and \
                last_code.get(epc, (0, 0)) in roundtrip.TRAP_INSNS
            if is_async:
                item = f'trap interrupt cause={cause & 63}'
            else:
                item = (f'trap exception cause={cause & 63} epc={epc:x} '
                        f'tval={tval:x}')
            out.append(('trap', priv, epc, retired, item, is_async,
                        cause & 63))
    return out


def expected(row_list, sym, phase_list):
    """[(item, required)] with ('gap', True) after each run, and per phase
    the rows qualified and the rows traced with tracing on."""
    on_store = sym['filt_on_store'][0]
    off_store = sym['filt_off_store'][0]
    tracing, phase, filters = True, -1, None
    marks = []
    counts = [[0, 0] for _ in phase_list]
    for r in row_list:
        q = False
        if tracing:
            if filters is None or not filters.on():
                q = True
            elif r[0] == 'insn':
                q = filters.row(r[2], PRIV_CODE[r[1]])
            else:
                q = filters.trap(r[5], r[6], r[2], PRIV_CODE[r[1]])
            if r[0] == 'insn' and r[3] in XRETS and filters is not None \
                    and filters.on():
                filters.trap_return()
            if phase >= 0:
                counts[phase][0] += q
                counts[phase][1] += 1
        marks.append(q)
        if r[0] == 'insn' and r[2] == off_store:
            tracing = False
        elif r[0] == 'insn' and r[2] == on_store and not tracing:
            tracing = True
            phase += 1
            filters = Filters(phase_list[phase][1])
    out = []
    for k, r in enumerate(row_list):
        if not marks[k]:
            if k and marks[k - 1]:
                out.append(('gap', True))
            continue
        nxt = k + 1 < len(row_list) and marks[k + 1]
        if r[0] == 'insn':
            out.append((f'{r[1]} {r[2]:x}', True))
        else:
            if r[3]:
                out.append((f'{r[1]} {r[2]:x}', True))
            out.append((r[4], nxt))
    if marks and marks[-1]:
        out.append(('gap', True))
    return out, phase + 1, counts


def compare(what, got, want):
    """Decoded items @got against [(item, required)] @want."""
    norm = []
    for g in got:
        if g.startswith('gap'):
            if g != 'gap trace ended':
                sys.exit(f'{what}: unexpected {g}')
            if norm and norm[-1] != 'gap':
                norm.append('gap')
        else:
            norm.append(g)
    i = since_gap = 0
    for k, (w, required) in enumerate(want):
        g = norm[i] if i < len(norm) else None
        if w == 'gap':
            if g == 'gap':
                i += 1
            elif since_gap:
                fail(what, norm, want, i, k)
            since_gap = 0
        elif g is not None and g != 'gap' and roundtrip.same(g, w):
            i += 1
            since_gap += 1
        elif required:
            fail(what, norm, want, i, k)
    if i != len(norm):
        sys.exit(f'{what}: {len(norm) - i} more items decoded than '
                 f'qualified, from {norm[i]}')
    return sum(1 for g in norm if g != 'gap' and not g.startswith('trap')), \
        norm.count('gap')


def fail(what, norm, want, i, k):
    print(f'{what}: decoded item {i} / qualified item {k} differ:')
    for d in range(-6, 4):
        g = norm[i + d] if 0 <= i + d < len(norm) else '-'
        w = want[k + d] if 0 <= k + d < len(want) else ('-', True)
        mark = '>' if d == 0 else ' '
        opt = '' if w[1] else ' (may be left out)'
        print(f' {mark} {g:44} {w[0]}{opt}')
    sys.exit(1)


def main():
    """Trace every filter setting; compare with what qualifies."""
    args = cli.parse(cli.parser(__doc__, elf=True, decoder=True,
                                qemu_args=True))
    qemu, decoder, elf = args.qemu, args.decoder, args.elf
    options = args.qemu_args
    sym = symbols(elf)
    phase_list = phases(sym)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, 'cfg.bin')
        with open(cfg, 'wb') as f:
            f.write(blob(phase_list))
        extra = ['-device',
                 f'loader,file={cfg},addr={CFG_ADDR:#x},force-raw=on'] + \
            options
        log, trace = record.run_traced(qemu, elf, CPU, extra, tmp)
        row_list = rows(log)
        want, seen, counts = expected(row_list, sym, phase_list)
        if seen != len(phase_list):
            sys.exit(f'{seen} phases in QEMU\'s record, '
                     f'{len(phase_list)} given')
        for (name, writes), (q, n) in zip(phase_list, counts):
            print(f'{name}: {q} of {n} rows qualified')
            # a setting that selects some rows and leaves out others,
            # but for the filter that matches nothing
            if (q == 0) != (writes == [(INST_FILTERS, 2)]) or q == n:
                sys.exit(f'{name}: {q} of {n} rows qualified')
        rom, _ = roundtrip.rom_image(
            {pc: c for r in row_list if r[0] == 'insn'
             for pc, c in [(r[2], r[3])]}, tmp)
        got = roundtrip.decoded(decoder, elf, rom, trace, 0, CPU)
        items, _ = roundtrip.split_times(got.get(0, []))
        insns, runs = compare('with QEMU\'s record', items, want)
        plain = record.run_plain(qemu, elf, CPU, extra, tmp)
        got = roundtrip.decoded(decoder, elf, rom, plain, 0, CPU)
        items, _ = roundtrip.split_times(got.get(0, []))
        compare('without QEMU\'s record', items, want)
    print(f'{len(phase_list)} filter settings: {insns} qualified '
          f'instructions in {runs} runs, decoded exactly with and without '
          'QEMU\'s record')


if __name__ == '__main__':
    main()
