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
plugin's accesses, in the same order, each with the same type, size,
address and value, up to the end of the run (the last events may still
be buffered when the guest's finisher stops QEMU); and the instruction
each data event names (its index in the block of the last block event)
must be the one the plugin names.  An instruction that traps retires no
access: the plugin's accesses of an instruction that an exception then
leaves (QEMU's -d int record: its epc) are not expected (a cm.push
faulting on its third store, an sspopchk whose check fails).  Prints the
first divergence.
"""

import os
import re
import sys
import tempfile

from rvcfo import cli, qemu, record

BLOCK = re.compile(r'riscv_cf_block hart \d+: block 0x([0-9a-f]+)\.\.')
DATA = re.compile(r'riscv_cf_data hart \d+: data type (\d+) (\d+) bytes '
                  r'at 0x([0-9a-f]+) value 0x([0-9a-f]+) insn (\d+)')
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
                               first, int(m.group(5))))
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


def show(a):
    kind = 'store' if a[0] else 'load'
    return f'{kind} {a[1]} bytes at 0x{a[2]:x} value 0x{a[3]:x}'


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
    for i, ev in enumerate(events):
        want = accesses[i] if i < len(accesses) else None
        if want is None or ev[:4] != want[:4]:
            print(f'data event {i} differs:')
            for j in range(max(0, i - 4), min(len(events), i + 3)):
                mark = '>' if j == i else ' '
                rec = show(accesses[j]) if j < len(accesses) else '(none)'
                print(f' {mark} QEMU accessed {rec}\n'
                      f'   pipeline     {show(events[j])}')
            sys.exit(1)
        pc = insn_pc(code, ev[4], ev[5]) if ev[4] is not None else None
        if pc != want[4]:
            sys.exit(f'data event {i} ({show(ev)}) names instruction '
                     f'{ev[5]} of the block at '
                     f'{"?" if ev[4] is None else hex(ev[4])}: '
                     f'{"?" if pc is None else hex(pc)}, not the '
                     f'accessing instruction 0x{want[4]:x}')
    if len(events) + TAIL < len(accesses):
        sys.exit(f'{len(events)} data events for {len(accesses)} accesses')
    loads = sum(1 for e in events if e[0] == 0)
    print(f'{len(events)} data events ({loads} loads, '
          f'{len(events) - loads} stores) equal QEMU\'s record of '
          f'{len(accesses)} accesses, each at its instruction')


if __name__ == '__main__':
    main()
