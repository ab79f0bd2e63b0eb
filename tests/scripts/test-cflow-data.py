#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Data events of the control-flow pipeline against QEMU's own record.

Usage: test-cflow-data.py --qemu QEMU --plugin LIBMEM --elf ELF --cpu CPU
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
"""

import os
import re
import sys
import tempfile

from rvcfo import cli, qemu, record

BLOCK = re.compile(r'riscv_cf_block hart \d+: block 0x([0-9a-f]+)\.\.')
DATA = re.compile(r'riscv_cf_data hart \d+: data type (\d+) (\d+) bytes '
                  r'at 0x([0-9a-f]+) value 0x([0-9a-f]+) operand '
                  r'0x([0-9a-f]+) insn (\d+)')
ACCESS = re.compile(r'^0x([0-9a-f]+),[^,]*,0x([0-9a-f]+),0x[0-9a-f]+,'
                    r'(\d+),(load|store),0x([0-9a-f]+)$')
EXCEPTION = re.compile(r'riscv_cpu_do_interrupt: hart:\d+, async:0, '
                       r'cause:[0-9a-f]+, epc:0x([0-9a-f]+)')

# Events still in the pipeline's buffer (4096 events) when QEMU stops.
TAIL = 4096


def parse(log):
    """(data events with their instruction, plugin accesses, code)."""
    rec = record.Record()
    events, accesses = [], []
    first = None
    with open(log, encoding='utf-8', errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = ACCESS.match(line)
            if m:
                accesses.append((0 if m.group(4) == 'load' else 1,
                                 int(m.group(3)) // 8, int(m.group(2), 16),
                                 int(m.group(5), 16), int(m.group(1), 16)))
                continue
            m = EXCEPTION.search(line)
            if m:
                # the instruction at epc did not retire: nor its accesses
                epc = int(m.group(1), 16)
                while accesses and accesses[-1][4] == epc:
                    accesses.pop()
                continue
            if rec.feed(line):
                continue
            m = BLOCK.search(line)
            if m:
                first = int(m.group(1), 16)
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
NAMES = {0: 'load', 1: 'store', 7: 'failed CAS', 8: 'swap', 9: 'add',
         10: 'and', 11: 'or', 12: 'xor', 13: 'max', 14: 'min',
         15: 'failed SC'}


def show(a):
    """An event or an access, for messages."""
    text = (f'{NAMES.get(a[0], a[0])} {a[1]} bytes at 0x{a[2]:x} '
            f'value 0x{a[3]:x}')
    return text + (f' operand 0x{a[4]:x}' if len(a) > 6 and a[0] >= 7
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


def expect(ev, pc, accesses, k, code):
    """The plugin's accesses from @k on that event @ev at @pc stands for:
    (how many, None), or (0, why not)."""
    kind, nbytes, addr, value = ev[:4]
    here = [a for a in accesses[k:k + 2] if a[4] == pc]
    if kind == LOAD and not here and is_hlvx(code.get(pc)):
        if code_bytes(code, addr, nbytes) != value:
            return 0, 'not the bytes QEMU listed there'
        return 0, None
    if kind in (LOAD, STORE) and not (kind == STORE and here and
                                      here[0][0] == LOAD):
        if not here or here[0][:4] != (kind, nbytes, addr, value):
            return 0, 'the access differs'
        return 1, None
    if kind == SC_FAIL and not here:
        return 0, None
    if len(here) < 2 or here[0][0] != LOAD or here[1][0] != STORE or \
            here[0][1:3] != (nbytes, addr) or here[1][1:3] != (nbytes, addr):
        return 0, 'not a read and a write of the same bytes'
    old, new = here[0][3], here[1][3]
    if kind == STORE:
        ok = new == value
    elif kind in (SC_FAIL, CAS_FAIL):
        ok = new == old and (kind == SC_FAIL or old == value)
    else:
        ok = old == value and new in amo_results(kind, old, ev[4], nbytes)
    return (2, None) if ok else (0, 'the values differ')


def main():
    """Run the guest with the event log and the records; compare."""
    ap = cli.parser(__doc__, elf=True, cpu=True, qemu_args=True)
    ap.add_argument('--plugin', required=True,
                    help="QEMU's tests/tcg/plugins/libmem.so")
    args = cli.parse(ap)
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'data.log')
        qemu.run_guest(qemu.command(
            args.qemu, cpu=args.cpu, kernel=args.elf,
            extra=args.qemu_args +
            ['-plugin', args.plugin + ',print-accesses=true'],
            log_items='trace:riscv_cf_block,trace:riscv_cf_data,plugin,'
                      'in_asm,int', log_file=log), 600)
        events, accesses, code = parse(log)

    if not accesses:
        sys.exit('the plugin recorded no access')
    if not events:
        sys.exit('no data events: is the riscv_cf_data trace event on?')
    k = 0
    for i, ev in enumerate(events):
        pc = insn_pc(code, ev[5], ev[6]) if ev[5] is not None else None
        n, why = expect(ev, pc, accesses, k, code)
        if why:
            print(f'data event {i} ({show(ev)}, instruction '
                  f'{"?" if pc is None else hex(pc)}): {why}; QEMU '
                  f'accessed, from access {k}:')
            for a in accesses[max(0, k - 3):k + 4]:
                print(f'   0x{a[4]:x}: {show(a)}')
            sys.exit(1)
        k += n
    if len(events) + TAIL < len(accesses) or k + TAIL < len(accesses):
        sys.exit(f'{len(events)} data events for {len(accesses)} accesses')
    kinds = {}
    for e in events:
        kinds[NAMES.get(e[0], e[0])] = kinds.get(NAMES.get(e[0], e[0]), 0) + 1
    print(f'{len(events)} data events ('
          f'{", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))}) '
          f'equal QEMU\'s record of {k} of its {len(accesses)} accesses, '
          f'each at its instruction')


if __name__ == '__main__':
    main()
