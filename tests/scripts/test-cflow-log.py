#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Block events of the control-flow pipeline against QEMU's own record.

Usage: test-cflow-log.py --qemu QEMU --elf ELF --cpu CPU
                         [-- QEMU ARGUMENTS...]

Runs the guest once with the pipeline's event log on (-trace riscv_cf_*,
target/riscv/cflow/cflow.c) and, in the same run, QEMU's own record of
what it translated and executed (-d in_asm,exec,nochain,int, read as
tests/scripts/rvcfo/record.py describes).
Every block event (first pc, last pc, sizes of the first and the last
instruction, instruction count) must equal the block built from that
record, in the same order, up to the end of the run (the final events
may still be buffered when the guest's finisher stops QEMU).  A
transfer event must leave from the last instruction of the block before
it and, when a block follows, arrive at its first instruction.  A trap
event says an instruction retired before the trap exactly for ecall (4
bytes) and for ebreak and c.ebreak (4 and 2), from the listing of the
instruction at its epc.  Prints the first divergence with the events around it.
"""

import os
import re
import sys
import tempfile

from rvcfo import cli, qemu, record

BLOCK = re.compile(r'riscv_cf_block hart \d+: block 0x([0-9a-f]+)\.\.'
                   r'0x([0-9a-f]+) first (\d) last (\d) bytes, (\d+) insns')
TRAP = re.compile(r'riscv_cf_trap hart \d+: trap async (\d) cause (\d+) '
                  r'tval 0x[0-9a-f]+ insn (\d+) epc 0x([0-9a-f]+)')
XFER = re.compile(r'riscv_cf_transfer hart \d+: transfer type (\d+) '
                  r'0x([0-9a-f]+) -> 0x([0-9a-f]+)')
EVENT = re.compile(r'riscv_cf_(trap|trap_return|mode) ')

# The final events can be left in the buffer, and the spin loop after the
# finisher's store runs a varying number of times.
TAIL = 64


def parse(log):
    """Return (blocks from QEMU's record, pipeline events, code listed)."""
    rec = record.Record()
    events = []
    with open(log, encoding='utf-8', errors='replace') as f:
        for line in f:
            if rec.feed(line):
                continue
            m = BLOCK.search(line)
            if m:
                events.append(('block', int(m.group(1), 16),
                               int(m.group(2), 16), int(m.group(3)),
                               int(m.group(4)), int(m.group(5))))
                continue
            m = TRAP.search(line)
            if m:
                events.append(('trap', int(m.group(1)), int(m.group(2)),
                               int(m.group(3)), int(m.group(4), 16)))
                continue
            m = XFER.search(line)
            if m:
                events.append(('transfer', int(m.group(1)),
                               int(m.group(2), 16), int(m.group(3), 16)))
                continue
            m = EVENT.search(line)
            if m:
                events.append((m.group(1),))
    truth = [('block', b['insns'][0][0], b['insns'][-1][0],
              b['insns'][0][1], b['insns'][-1][1], len(b['insns']))
             for b in rec.blocks() if b['insns']]
    return truth, events, rec.code


def retired_len(ev, code):
    """Size of the instruction trap event @ev should say retired."""
    _, is_async, cause, _, epc = ev
    if is_async:
        return 0
    if 8 <= cause <= 11:
        return 4
    insn = code.get(epc, code.get(epc & 0xffffffff))
    # an ecall or ebreak that raised a double trap (16) retires as well
    if cause == 16 and insn == (0x73, 4):
        return 4
    if cause in (3, 16) and insn and record.is_ebreak(*insn):
        return insn[1]
    return 0


def show(ev):
    if ev[0] == 'block':
        return (f'block 0x{ev[1]:x}..0x{ev[2]:x} first {ev[3]} last {ev[4]} '
                f'bytes, {ev[5]} insns')
    if ev[0] == 'trap':
        return (f'trap async {ev[1]} cause {ev[2]} insn {ev[3]} '
                f'epc 0x{ev[4]:x}')
    if ev[0] == 'transfer':
        return f'transfer type {ev[1]} 0x{ev[2]:x} -> 0x{ev[3]:x}'
    return ev[0]


def main():
    """Run the guest with the event log and the record; compare."""
    args = cli.parse(cli.parser(__doc__, elf=True, cpu=True,
                                qemu_args=True))
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'cflow.log')
        qemu.run_guest(qemu.command(
            args.qemu, cpu=args.cpu, kernel=args.elf, extra=args.qemu_args,
            log_items='trace:riscv_cf_*,' + qemu.RECORD_ITEMS,
            log_file=log), 600)
        truth, events, code = parse(log)

    blocks = [e for e in events if e[0] == 'block']
    if not blocks:
        sys.exit('no block events: is the riscv_cf_block trace event on?')
    for i, (got, want) in enumerate(zip(blocks, truth)):
        if got != want:
            print(f'block {i} differs:')
            for j in range(max(0, i - 5), min(len(truth), i + 3)):
                mark = '>' if j == i else ' '
                got_j = show(blocks[j]) if j < len(blocks) else '(none)'
                print(f' {mark} QEMU executed {show(truth[j])}\n'
                      f'   pipeline      {got_j}')
            sys.exit(1)
    if len(blocks) + TAIL < len(truth) or len(blocks) > len(truth):
        sys.exit(f'{len(blocks)} block events for {len(truth)} blocks '
                 'executed')

    last = None
    traps = 0
    retiring = 0
    for i, ev in enumerate(events):
        if ev[0] == 'trap':
            traps += 1
            retiring += ev[3] != 0
            if ev[3] != retired_len(ev, code):
                sys.exit(f'event {i}: {show(ev)}: the instruction at epc '
                         f'retires {retired_len(ev, code)} bytes')
        if ev[0] == 'transfer':
            if last is None or last[0] != 'block' or ev[2] != last[2]:
                sys.exit(f'event {i}: {show(ev)} does not leave from the '
                         f'last instruction of the block before it '
                         f'({show(last) if last else "none"})')
            nxt = events[i + 1] if i + 1 < len(events) else None
            if nxt and nxt[0] == 'block' and nxt[1] != ev[3]:
                sys.exit(f'event {i}: {show(ev)} is followed by {show(nxt)}')
        last = ev
    transfers = sum(1 for e in events if e[0] == 'transfer')
    print(f'{len(blocks)} block events equal QEMU\'s record of '
          f'{len(truth)} executed blocks '
          f'({sum(b[5] for b in blocks)} instructions); '
          f'{transfers} transfers consistent with them; '
          f'{traps} traps, {retiring} of them after an ecall or ebreak, '
          f'with the right retired instruction')


if __name__ == '__main__':
    main()
