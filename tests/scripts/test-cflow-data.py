#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Data events of the control-flow pipeline, or the data trace the
E-Trace encoder makes of them, against QEMU's own record.

Usage: test-cflow-data.py --qemu QEMU --plugin LIBMEM --elf ELF --cpu CPU
                          [--decoder ETRACE-DECODE [--encoder PROP=VALUE]...
                           [--data-filters CASE]]
                          [-- QEMU ARGUMENTS...]

Runs the guest once with the pipeline's event log of blocks and data
accesses on (-trace riscv_cf_block, riscv_cf_data: target/riscv/cflow/
cflow.c) and, in the same run, two records QEMU keeps of its own: the
memory accesses of every instruction (QEMU's test plugin
tests/tcg/plugins/mem.c with print-accesses=true: instruction address,
access address, size, load or store, value) and what it translated
(-d in_asm, for the instruction sizes).  The data events must be the
plugin's accesses, in the same order, up to the end of the run (the last
events may still be buffered when the guest's finisher stops QEMU), each
at the instruction the plugin names (the event's index in the block of
the last block event):

  load, store        one access of the same type, size, address, value
  store conditional  the plugin's read and write of the compare-and-swap
                     QEMU makes of it: the write is the value stored
  AMO                a read of the event's value and a write of the
                     operation's result on it and the event's operand
                     (a swap: the operand; max and min: signed or not)
  compare-and-swap   a swap that swapped is as an AMO swap; a failed one
                     a read of its value and a write of the same value
  failed SC          nothing (no reservation there) or a read and a
                     write of the same value
  hlvx               (QEMU's plugins do not see it: it reads as a fetch)
                     the bytes QEMU's -d in_asm listing has at the address

An instruction that traps retires no access: the plugin's accesses of an
instruction that an exception then leaves (QEMU's -d int record: its
epc) are not expected (a cm.push faulting on its third store, an
sspopchk whose check fails).  Prints the first divergence.

With --decoder, the run traces the hart from reset with data trace on
(riscv-trace-encoder.data-trace=on and the --encoder properties), and the
accesses are those etrace-decode reads from the te_data packets of the
stream and ties to their instructions (--output=data), each compared as
above, at the instruction the decoder names, with the fields its
packets carry (the options may leave out address or value).  Each is
also what etrace_data.py, a reader written from the spec's tables alone,
reads from the same packet.

With --data-filters CASE (the guest test-data-filter.S), the guest writes
the filter and comparator registers of the CASE (FILTER_CASES below)
and then turns data tracing on.  From the plugin's record alone, this
script works out which accesses after that the filters qualify, by the
rules of the Trace Control Interface 1.0 as docs/specs/riscv-trace.rst
states them: an access is traced when a filter selected in
trTeDataFilters and enabled matches it; a filter matches when each
condition it enables holds (dtype and dsize one of those chosen in
trTeFilterMatchData; each comparator it uses true); a comparator unit
compares the access's address (input daddr) or its instruction's
(iaddr), unsigned; a latch on data addresses moves with each access.
The decoded accesses (etrace-decode --data-untied: filters leave out
accesses the program cannot tell) must be exactly those, in order.
"""

import os
import re
import struct
import subprocess
import sys
import tempfile

from rvcfo import cli, qemu, record, roundtrip, streamcheck
from rvcfo.filtermodel import (EQ, LT, GE, MODE_P_AND_S, MODE_NOT_P_AND_S,
                               MODE_LATCH, DADDR, Comparators, comp_regs,
                               use_comp)
import etrace_data

BLOCK = re.compile(r'riscv_cf_block hart \d+: block 0x([0-9a-f]+)\.\.')
DATA = re.compile(r'riscv_cf_data hart \d+: data type (\d+) (\d+) bytes '
                  r'at 0x([0-9a-f]+) value 0x([0-9a-f]+) operand '
                  r'0x([0-9a-f]+) insn (\d+)')
# the high halves of the 16-byte access of the line before (amocas.q)
DATA_HIGH = re.compile(r'riscv_cf_data_high hart \d+: data high value '
                       r'0x([0-9a-f]+) operand 0x([0-9a-f]+)')
EXCEPTION = re.compile(r'riscv_cpu_do_interrupt: hart:(\d+), async:0, '
                       r'cause:[0-9a-f]+, epc:0x([0-9a-f]+)')

# Events still in the pipeline's buffer (4096 events) when QEMU stops.
TAIL = 4096


def pop_faulting(accesses, hart, epc):
    """The instruction at @epc of @hart did not retire: nor its last
    accesses (those of an unknown hart, None, are any hart's)."""
    k = len(accesses) - 1
    while k >= 0:
        if accesses[k][5] in (hart, None):
            if accesses[k][4] != epc:
                break
            del accesses[k]
        k -= 1


def parse(log):
    """(data events with their instruction, plugin accesses, code).  An
    access is (type, bytes, address, value, instruction, hart), the hart
    None from QEMU's mem plugin."""
    rec = record.Record()
    events, accesses = [], []
    first = None
    with open(log, encoding='utf-8', errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            a = record.access(line)
            if a:
                accesses.append(a)
                continue
            m = EXCEPTION.search(line)
            if m:
                pop_faulting(accesses, int(m.group(1)), int(m.group(2), 16))
                continue
            if rec.feed(line):
                continue
            m = BLOCK.search(line)
            if m:
                first = int(m.group(1), 16)
                continue
            m = DATA_HIGH.search(line)
            if m:
                e = events[-1]
                events[-1] = e[:3] + (e[3] | int(m.group(1), 16) << 64,
                                      e[4] | int(m.group(2), 16) << 64) + \
                    e[5:]
                continue
            m = DATA.search(line)
            if m:
                events.append((int(m.group(1)), int(m.group(2)),
                               int(m.group(3), 16), int(m.group(4), 16),
                               int(m.group(5), 16), first,
                               int(m.group(6))))
    return events, accesses, rec.code


def insn_pc(code, first, index):
    """The address of instruction @index of the block starting at @first."""
    pc = first
    for _ in range(index):
        insn = code.get(pc, code.get(pc & 0xffffffff))
        if insn is None:
            return None
        pc += insn[1]
    return pc


LOAD, STORE, CAS_FAIL, SWAP, SC_FAIL = 0, 1, 7, 8, 15
# Harts run at once (MTTCG): how QEMU's plugins see atomics (expect())
PARALLEL = [False]
NAMES = {0: 'load', 1: 'store', 7: 'failed CAS', 8: 'swap', 9: 'add',
         10: 'and', 11: 'or', 12: 'xor', 13: 'max', 14: 'min',
         15: 'failed SC'}


def show(a):
    """An event or an access, for messages (? for a field left out)."""
    def hx(v):
        return '?' if v is None else f'0x{v:x}'
    text = f'{NAMES.get(a[0], a[0])} {a[1]} bytes at {hx(a[2])} ' \
           f'value {hx(a[3])}'
    return text + (f' operand {hx(a[4])}' if len(a) > 6 and a[0] >= 7
                   else '')


def signed(v, nbytes):
    bits = 8 * nbytes
    return v - (1 << bits) if v >> (bits - 1) else v


def amo_results(kind, old, op, nbytes):
    """What an AMO of @kind may write after reading @old."""
    mask = (1 << 8 * nbytes) - 1
    if kind == SWAP:
        return {op}
    if kind == 9:
        return {(old + op) & mask}
    if kind in (10, 11, 12):
        return {{10: old & op, 11: old | op, 12: old ^ op}[kind]}
    pick = max if kind == 13 else min
    return {pick(old, op),
            pick(signed(old, nbytes), signed(op, nbytes)) & mask}


def is_hlvx(insn):
    """hlvx.hu or hlvx.wu (the H extension's loads with execute
    permission)."""
    return insn is not None and insn[1] == 4 and \
        (insn[0] & 0x707f) == 0x4073 and (insn[0] >> 20) in (0x643, 0x683)


def is_push_pop(insn):
    """cm.push, cm.pop, cm.popret or cm.popretz (Zcmp)."""
    return insn is not None and insn[1] == 2 and \
        (insn[0] & 0xe003) == 0xa002 and \
        (insn[0] >> 8) & 0x1f in (0x18, 0x1a, 0x1c, 0x1e)


def is_vector_mem(insn):
    """A vector load or store: LOAD-FP or STORE-FP with width 0, 5, 6
    or 7."""
    return insn is not None and insn[1] == 4 and \
        (insn[0] & 0x7f) in (0x07, 0x27) and \
        (insn[0] >> 12) & 7 in (0, 5, 6, 7)


def code_bytes(code, addr, nbytes):
    """The @nbytes at @addr as QEMU's listing has them, or None."""
    value, at = 0, addr
    while at < addr + nbytes:
        insn = code.get(at)
        if insn is None:
            return None
        value |= insn[0] << 8 * (at - addr)
        at += insn[1]
    return value & ((1 << 8 * nbytes) - 1)


def same_fields(a, kind, nbytes, addr, value):
    """Access @a is of @kind and @nbytes, at @addr and with @value where
    those are not None."""
    return a[:2] == (kind, nbytes) and addr in (None, a[2]) and \
        value in (None, a[3])


def expect(ev, pc, accesses, k, code, untied=None):
    """The plugin's accesses from @k on that event @ev at @pc stands for:
    (how many, None), or (0, why not).  The address and the value of @ev
    are None when its packet leaves them out.  An event without its
    instruction (pc None) is one access of an instruction in the range
    @untied."""
    kind, nbytes, addr, value = ev[:4]
    if pc is None:
        a = accesses[k] if k < len(accesses) else None
        if not untied or not a or \
                not same_fields(a, kind, nbytes, addr, value):
            return 0, 'the access differs'
        if not untied[0] <= a[4] < untied[1]:
            return 0, 'not tied, but its instruction\'s accesses can be'
        return 1, None
    here = [a for a in accesses[k:k + 2] if a[4] == pc]
    if kind == LOAD and len(here) == 2 and here[1][0] == STORE:
        # E-Trace 2.0 has no failed compare-and-swap: it is a load
        kind = CAS_FAIL
    if kind == LOAD and not here and is_hlvx(code.get(pc)):
        if None not in (addr, value) and \
                code_bytes(code, addr, nbytes) != value:
            return 0, 'not the bytes QEMU listed there'
        return 0, None
    if kind in (LOAD, STORE) and not (kind == STORE and here and
                                      here[0][0] == LOAD):
        if not here or not same_fields(here[0], kind, nbytes, addr, value):
            return 0, 'the access differs'
        return 1, None
    if kind == SC_FAIL and not here:
        return 0, None
    if len(here) < 2 or here[0][0] != LOAD or here[1][0] != STORE or \
            here[0][1] != nbytes or here[1][1:3] != here[0][1:3] or \
            addr not in (None, here[0][2]):
        return 0, 'not a read and a write of the same bytes'
    old, new = here[0][3], here[1][3]
    if kind == STORE:
        ok = value in (None, new)
    elif PARALLEL[0]:
        # QEMU's atomic helpers under MTTCG (accel/tcg/atomic_template.h)
        # give the plugin the value they were handed as the one written,
        # even when a compare-and-swap did not write it: the operand
        ok = value in (None, old) and ev[4] in (None, new) \
            if kind != SC_FAIL else True
    elif kind in (SC_FAIL, CAS_FAIL):
        ok = new == old and (kind == SC_FAIL or value in (None, old))
    else:
        ok = value in (None, old) and \
            (ev[4] is None or new in amo_results(kind, old, ev[4], nbytes))
    return (2, None) if ok else (0, 'the values differ')


# The filter cases of test-data-filter.S: its register writes; the
# offsets in the encoder's block.
CFG_ADDR = 0x80f00000
CFG_MAGIC = 0x44464c54
CFG_END = 0xffffffff
INST_FILTERS, DATA_FILTERS = 0x00c, 0x01c
EN, MATCH_DTYPE, MATCH_DSIZE = 1, 1 << 24, 1 << 25


def filt(i, reg):
    return 0x400 + 0x20 * i + reg


def filter_cases(sym):
    """{case: register writes}, from the guest's symbols."""
    dbuf, obuf = sym['data_buf'], sym['other_buf']
    fa, fa_end = sym['data_fn_a'], sym['data_fn_a_end']
    fb, fb_end = sym['data_fn_b'], sym['data_fn_b_end']
    return {
        'stores': [(DATA_FILTERS, 1), (filt(0, 0), EN | MATCH_DTYPE),
                   (filt(0, 0x18), 1 << 1)],
        'loads-4-8': [(DATA_FILTERS, 1),
                      (filt(0, 0), EN | MATCH_DTYPE | MATCH_DSIZE),
                      (filt(0, 0x18), 1 << 0 | 1 << 18 | 1 << 19)],
        'daddr-range': [(DATA_FILTERS, 1), (filt(0, 0), EN | use_comp(1, 0))]
        + comp_regs(0, GE, obuf, LT, obuf + 16, MODE_P_AND_S, DADDR, DADDR),
        'iaddr-range': [(DATA_FILTERS, 1), (filt(0, 0), EN | use_comp(2, 1))]
        + comp_regs(1, GE, fa, LT, fa_end, MODE_P_AND_S),
        # from data_buf + 16 (in data_fn_a) to other_buf + 8 (data_fn_b)
        'daddr-latch': [(DATA_FILTERS, 1), (filt(0, 0), EN | use_comp(3, 2))]
        + comp_regs(2, EQ, dbuf + 16, EQ, obuf + 8, MODE_LATCH, DADDR,
                    DADDR),
        # 1-byte stores, or accesses of data_fn_b outside data_buf's
        # first 16 bytes (an iaddr and a daddr unit in one filter)
        'two-filters': [(DATA_FILTERS, 0x21),
                        (filt(0, 0), EN | MATCH_DTYPE | MATCH_DSIZE),
                        (filt(0, 0x18), 1 << 1 | 1 << 16),
                        (filt(5, 0), EN | use_comp(1, 4) | use_comp(2, 5))]
        + comp_regs(4, GE, fb, LT, fb_end, MODE_P_AND_S)
        + comp_regs(5, GE, dbuf, LT, dbuf + 16, MODE_NOT_P_AND_S, DADDR,
                    DADDR),
        'not-enabled': [(DATA_FILTERS, 2)],
        # instructions of data_fn_b only; trTeDataFilters 0: every access
        'inst-filtered': [(INST_FILTERS, 1), (filt(0, 0), EN | use_comp(1, 6))]
        + comp_regs(6, GE, fb, LT, fb_end, MODE_P_AND_S),
    }


class DataFilters:
    """The data filters of a case's registers, and the comparator units'
    latches (a latch on data addresses moves with each access the filters
    see)."""

    def __init__(self, writes):
        r = dict(writes)
        self.ctl = [r.get(filt(i, 0), 0) for i in range(8)]
        self.match = [r.get(filt(i, 0x18), 0) for i in range(8)]
        self.active = [i for i in range(8)
                       if r.get(DATA_FILTERS, 0) >> i & 1 and
                       self.ctl[i] & EN]
        self.filtered = r.get(DATA_FILTERS, 0) != 0
        self.comps = Comparators(r, data=True)

    def traced(self, kind, nbytes, addr, pc):
        """Whether an access of @kind and @nbytes at @addr, made by the
        instruction at @pc, is traced."""
        if not self.filtered:
            return True
        used = sorted({self.ctl[i] >> (4 * k + 1) & 7 for i in self.active
                       for k in (1, 2, 3) if self.ctl[i] >> (4 * k) & 1})
        out = {j: self.comps.output(j, pc, addr) for j in used}
        dsize = nbytes.bit_length() - 1
        for i in self.active:
            ctl = self.ctl[i]
            if ctl & MATCH_DTYPE and not self.match[i] >> kind & 1:
                continue
            if ctl & MATCH_DSIZE and not self.match[i] >> (16 + dsize) & 1:
                continue
            if all(out[ctl >> (4 * k + 1) & 7] for k in (1, 2, 3)
                   if ctl >> (4 * k) & 1):
                return True
        return False


DECODED = re.compile(r'^(\d+) data (\S+) (\d+)((?: \w+=[0-9a-f]+)*)'
                     r'( mma)? insn=([0-9a-f]+|\?)$')
DTYPES = {'load': 0, 'store': 1, 'failed-cas': 7, 'swap': 8, 'add': 9,
          'and': 10, 'or': 11, 'xor': 12, 'max': 13, 'min': 14,
          'failed-sc': 15}


def plugin_args(plugin):
    """-plugin arguments for QEMU's mem plugin (its accesses with
    print-accesses) or tests/plugins/memrec."""
    if os.path.basename(plugin) == 'libmem.so':
        plugin += ',print-accesses=true'
    return ['-plugin', plugin]


def by_hart(accesses, harts):
    """{hart: its accesses}; QEMU's mem plugin does not say the hart."""
    if harts > 1 and any(a[5] is None for a in accesses):
        sys.exit('several harts: the record must name them '
                 '(--plugin tests/plugins/libmemrec.so)')
    return {h: [a for a in accesses if a[5] in (h, None)]
            for h in range(harts)}


def traced(args, tmp):
    """Run the guest traced with data trace on; ({hart: the accesses
    decoded from its packets as events}, {hart: plugin accesses}, code)."""
    log = os.path.join(tmp, 'data.log')
    trace = os.path.join(tmp, 'trace')
    extra = list(args.qemu_args) + qemu.encoder('data-trace')
    if args.data_filters:
        cfg = os.path.join(tmp, 'filters')
        words = [CFG_MAGIC]
        for off, val in args.filter_writes:
            words += [off, val]
        with open(cfg, 'wb') as f:
            f.write(struct.pack(f'<{len(words) + 1}I', *words, CFG_END))
        extra += ['-device', f'loader,file={cfg},addr={CFG_ADDR:#x},'
                  'force-raw=on'] + qemu.encoder('data-start', 'off')
    for opt in args.encoder:
        prop, _, value = opt.partition('=')
        extra += qemu.encoder(prop, value)
    harts = int(extra[extra.index('-smp') + 1]) if '-smp' in extra else 1
    srcid_bits = 8 if harts > 1 else 0
    PARALLEL[0] = harts > 1 and 'tcg,thread=single' not in extra
    with record.trace_chardev(tmp, trace, args.slow_reader) as chardev:
        qemu.run_guest(qemu.command(
            args.qemu, machine=qemu.TRACED, cpu=args.cpu, kernel=args.elf,
            chardev=chardev, extra=extra + plugin_args(args.plugin),
            log_items='plugin,in_asm,int', log_file=log), 600)
    _, accesses, code = parse(log)
    rom, images = roundtrip.rom_image(code, tmp)
    if args.no_rom:
        # the decoder does not have the reset vector's code: its
        # accesses are not tied, the rest are
        rom = []
        in_rom = [a for a in accesses
                  if any(lo <= a[4] < hi for lo, hi in images)]
        accesses = [a for a in accesses if a not in in_rom]
    protocol = roundtrip.protocol_of(extra)
    # split signalling: lrid_width_p 1, 128-bit data for amocas.q
    rv32 = args.cpu.startswith('rv32')
    lrid_width = 1 if 'riscv-trace-encoder.data-split=on' in extra else 0
    data_width = 128 if lrid_width and not rv32 and \
        'zacas=on' in args.cpu else 64
    cmd = roundtrip.decoder_cmd(args.decoder, args.elf, rom, trace,
                                srcid_bits, args.cpu, 'data', protocol)
    cmd[1:1] = ['--data'] + \
        (['--data-untied'] if args.data_filters else []) + \
        (['--shadow-stack'] if 'zicfiss=on' in args.cpu else []) + \
        (['--param', 'daddress_width_p=32'] if rv32 else []) + \
        (['--param', f'lrid_width_p=1,data_width_p={data_width}']
         if lrid_width else [])
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0 or res.stderr:
        sys.exit(f'decoder failed (exit {res.returncode}): {" ".join(cmd)}'
                 f'\n{res.stderr}')
    # the packets as a reader written from the spec's tables reads them
    with open(trace, 'rb') as f:
        try:
            ref = etrace_data.accesses(f.read(), protocol,
                                       32 if rv32 else 64,
                                       srcid_bits=srcid_bits,
                                       data_width=data_width,
                                       lrid_width=lrid_width)
        except ValueError as e:
            sys.exit(f'te_data packets not as the spec lays them out: {e}')
    lines = [line for line in res.stdout.splitlines()
             if not line.endswith(' data lost')]
    losses = len(res.stdout.splitlines()) - len(lines)
    if losses and not args.expect_loss:
        sys.exit(f'{losses} data losses reported')
    if args.expect_loss and not losses:
        sys.exit('no data loss reported')
    # per source: the decoder gives each source's accesses in order
    for src in range(harts):
        mine = [line for line in lines if line.startswith(f'{src} ')]
        packets = [f'{src} ' + etrace_data.describe(a) for k, a in ref
                   if k == src]
        for i, (line, want) in enumerate(zip(mine, packets)):
            if line.split(' insn=')[0] != want:
                sys.exit(f'source {src} access {i}: the decoder read '
                         f'{line}, the packet says {want}')
        if len(mine) != len(packets):
            sys.exit(f'source {src}: the decoder read {len(mine)} '
                     f'accesses, the stream has {len(packets)} te_data '
                     'packets')
    events = {hart: [] for hart in range(harts)}
    untied = 0
    for line in lines:
        m = DECODED.match(line)
        if not m:
            sys.exit(f'decoder output not understood: {line}')
        src = int(m.group(1))
        fields = dict(f.split('=') for f in m.group(4).split())
        access = (DTYPES[m.group(2)], int(m.group(3))) + \
            tuple(int(fields[k], 16) if k in fields else None
                  for k in ('addr', 'value', 'operand'))
        if args.data_filters:
            # the accesses alone, in order
            events[src].append(access)
            continue
        if m.group(6) == '?' and args.ambiguous:
            # which instruction made it the stream cannot tell
            events[src].append(access + (None, 0))
            continue
        if m.group(6) == '?' and (args.expect_loss or args.no_rom):
            # its instruction was not traced (instruction packets lost),
            # or not decoded (the reset vector)
            untied += 1
            continue
        if m.group(6) == '?':
            sys.exit(f'an access the decoder did not tie to an '
                     f'instruction: {line}')
        pc = int(m.group(6), 16)
        # the MMA/CAS extension (2.1) marks the accesses of cm.push/pop
        # and of vector loads and stores
        if bool(m.group(5)) != (protocol == '2.1' and
                                (is_push_pop(code.get(pc)) or
                                 is_vector_mem(code.get(pc)))):
            sys.exit(f'multi-memory access marked wrong: {line}')
        # the instruction: as instruction 0 of a block there
        events[src].append(access + (pc, 0))
    if args.no_rom and untied != len(in_rom):
        sys.exit(f'{untied} accesses not tied, the reset vector made '
                 f'{len(in_rom)}')
    return events, by_hart(accesses, harts), code


def logged(args, tmp):
    """Run the guest with the event log; ({0: data events}, {0: plugin
    accesses}, code)."""
    log = os.path.join(tmp, 'data.log')
    qemu.run_guest(qemu.command(
        args.qemu, cpu=args.cpu, kernel=args.elf,
        extra=args.qemu_args + plugin_args(args.plugin),
        log_items='trace:riscv_cf_block,trace:riscv_cf_data,'
                  'trace:riscv_cf_data_high,plugin,in_asm,int',
        log_file=log), 600)
    events, accesses, code = parse(log)
    return {0: events}, {0: accesses}, code


def check_subset(events, accesses, code):
    """Packets were lost: each decoded access is one the plugin recorded,
    at its instruction, in order, accesses left out between them."""
    k = skipped = 0
    for i, ev in enumerate(events):
        pc = insn_pc(code, ev[5], ev[6])
        start = k
        while k < len(accesses):
            n, why = expect(ev, pc, accesses, k, code)
            if not why:
                break
            k += 1
        else:
            print(f'decoded access {i} ({show(ev)}, instruction {pc:#x}): '
                  f'not in QEMU\'s record after access {start}')
            sys.exit(1)
        skipped += k - start
        k += n
    print(f'{len(events)} decoded accesses equal QEMU\'s record of them, '
          f'each at its instruction, in order; {skipped} of the '
          f'{len(accesses)} accesses not traced (data packets lost)')


def check(events, accesses, code, what, untied=None):
    """@events against the plugin's @accesses; exits on a difference.
    Events without their instruction are accesses of instructions in the
    range @untied."""
    if not accesses:
        sys.exit('the plugin recorded no access')
    if not events:
        sys.exit(f'no {what}')
    k = 0
    for i, ev in enumerate(events):
        pc = insn_pc(code, ev[5], ev[6]) if ev[5] is not None else None
        n, why = expect(ev, pc, accesses, k, code, untied)
        if why:
            print(f'{what.split()[-1]} {i} ({show(ev)}, instruction '
                  f'{"?" if pc is None else hex(pc)}): {why}; QEMU '
                  f'accessed, from access {k}:')
            for a in accesses[max(0, k - 3):k + 4]:
                print(f'   0x{a[4]:x}: {show(a)}')
            sys.exit(1)
        k += n
    if k + TAIL < len(accesses):
        # (an atomic is one event for two of the plugin's accesses)
        sys.exit(f'{len(events)} {what} stand for {k} of the '
                 f'{len(accesses)} accesses')
    kinds = {}
    for e in events:
        kinds[NAMES.get(e[0], e[0])] = kinds.get(NAMES.get(e[0], e[0]), 0) + 1
    print(f'{len(events)} {what} ('
          f'{", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))}) '
          f'equal QEMU\'s record of {k} of its {len(accesses)} accesses' +
          ('' if events[0][5] is None else ', each at its instruction') +
          (f' ({sum(e[5] is None for e in events)} not tied, all of '
           f'instructions from {untied[0]:#x} to {untied[1]:#x})'
           if untied else ''))


def check_filtered(args, events, accesses):
    """The decoded @events: exactly the plugin's accesses after data
    tracing went on that the case's filters qualify."""
    store = args.sym['data_on_store']
    on = [k for k, a in enumerate(accesses) if a[4] == store]
    if not on:
        sys.exit('the plugin recorded no store at data_on_store')
    filters = DataFilters(args.filter_writes)
    want = [a[:4] for a in accesses[on[-1] + 1:]
            if filters.traced(a[0], a[1], a[2], a[4])]
    got = [e[:4] for e in events]
    # the finisher's store may stop QEMU before its packet is out
    finisher = want and want[-1][0] == STORE and want[-1][2] == 0x100000
    if got != want and not (finisher and got == want[:-1]):
        for i, (g, w) in enumerate(zip(got + [None] * len(want),
                                       want + [None] * len(got))):
            if g != w:
                sys.exit(f'access {i}: decoded '
                         f'{show(g) if g else "nothing"}, the filters '
                         f'qualify {show(w) if w else "nothing"} '
                         f'({len(got)} decoded, {len(want)} qualified)')
    print(f'{len(got)} decoded accesses are those the filters qualify of '
          f'the {len(accesses) - on[-1] - 1} QEMU made with data tracing '
          f'on, in order')


def main():
    """Run the guest with the event log and the records, or traced;
    compare."""
    ap = cli.parser(__doc__, elf=True, cpu=True, qemu_args=True)
    ap.add_argument('--plugin', required=True,
                    help="QEMU's tests/tcg/plugins/libmem.so, or "
                    "tests/plugins/libmemrec.so (which names the hart)")
    ap.add_argument('--decoder', help='etrace-decode: check the data trace')
    ap.add_argument('--encoder', action='append', default=[],
                    metavar='PROP=VALUE',
                    help='with --decoder: a riscv-trace-encoder property')
    ap.add_argument('--slow-reader', action='store_true',
                    help='with --decoder: a slow reader and a small PIB '
                    'sink queue')
    ap.add_argument('--no-rom', action='store_true',
                    help='with --decoder: decode without the reset '
                    'vector\'s code, whose accesses are not tied')
    ap.add_argument('--expect-loss', action='store_true',
                    help='with --decoder: data packets are lost (the '
                    'stream says so); those decoded are in the record')
    ap.add_argument('--ambiguous', metavar='FROM,TO',
                    help='with --decoder: the accesses of the instructions '
                    'from symbol FROM up to symbol TO are those that may '
                    'go untied (a vector load or store right after one '
                    'alike); no other')
    ap.add_argument('--data-filters', metavar='CASE',
                    help='with --decoder and test-data-filter.S: the '
                    'accesses the data filters of CASE qualify')
    args = cli.parse(ap)
    if args.ambiguous:
        args.ambiguous = tuple(streamcheck.elf_symbol(args.elf, name)
                               for name in args.ambiguous.split(','))
        if None in args.ambiguous or len(args.ambiguous) != 2:
            sys.exit('--ambiguous: two symbols of the ELF file expected')
    if args.data_filters:
        args.sym = {name: streamcheck.elf_symbol(args.elf, name)
                    for name in ('data_buf', 'other_buf', 'data_fn_a',
                                 'data_fn_a_end', 'data_fn_b',
                                 'data_fn_b_end', 'data_on_store')}
        cases = filter_cases(args.sym)
        if args.data_filters not in cases:
            sys.exit(f'--data-filters: no case {args.data_filters} '
                     f'({", ".join(cases)})')
        args.filter_writes = cases[args.data_filters]
    with tempfile.TemporaryDirectory() as tmp:
        if args.decoder:
            events, accesses, code = traced(args, tmp)
        else:
            events, accesses, code = logged(args, tmp)
    if args.data_filters:
        check_filtered(args, events[0], accesses[0])
    elif args.expect_loss:
        check_subset(events[0], accesses[0], code)
    else:
        for hart in events:
            if len(events) > 1:
                print(f'hart {hart}: ', end='')
            check(events[hart], accesses[hart], code,
                  'decoded accesses' if args.decoder else 'data events',
                  args.ambiguous)


if __name__ == '__main__':
    main()
