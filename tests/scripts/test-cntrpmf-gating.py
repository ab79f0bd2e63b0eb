#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Smcntrpmf instruction counting in translated code, from the TCG ops.

Usage: test-cntrpmf-gating.py --qemu QEMU --elf ELF --off-elf OFF_ELF
ELF is test-cntrpmf-migrate.elf: it sets mcyclecfg/minstretcfg to inhibit
S and U, runs U-mode code and an M-mode loop.  Runs it with "-d op" under
-icount shift=0 and checks every translated block:
  - smcntrpmf=on: a block either starts with the instret addition
    (add_i32 $0x0,$N; extu_i32_i64; ld_i64/add_i64/st_i64 of the count)
    with N equal to the number of instructions in the block and the
    third insn_start word of instruction i (from 0) equal to i << 5 (its
    index: N - i instructions are taken back when the block stops there)
    plus bit 4 when the instruction before it in the block is 2 bytes
    long, or has no counting code at all; both kinds
    occur (M-mode blocks count, U-mode blocks after the filter is set do
    not);
  - smcntrpmf=off: no block of OFF_ELF (any guest that runs without
    Smcntrpmf, e.g. bench-ctr.elf) has counting code.
"""

import os
import re
import sys
import tempfile

from rvcfo import cli, qemu

ADD = re.compile(r'^ add_i32 (\w+),\$0x0,\$(0x[0-9a-f]+)$')
INSN = re.compile(r'^ ---- ([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+)$')


def blocks(qemu_bin, elf, cpu):
    """The op listings of the blocks a run translated."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'op.log')
        res = qemu.run(qemu.command(qemu_bin, icount='shift=0', cpu=cpu,
                                    kernel=elf, log_items='op',
                                    log_file=log), 300)
        if res.returncode != 0:
            sys.exit(f'guest failed with -cpu {cpu} (exit {res.returncode})')
        with open(log, encoding='utf-8', errors='replace') as f:
            text = f.read()
    return [b.splitlines() for b in text.split('OP:\n')[1:]]


def check_block(lines):
    """Return the patched length, or None without counting code."""
    insns = [INSN.match(line) for line in lines]
    insns = [m for m in insns if m]
    first = next(i for i, line in enumerate(lines) if INSN.match(line))
    prologue = lines[:first]
    adds = [ADD.match(line) for line in prologue]
    adds = [m for m in adds if m]
    if not adds:
        if any(int(m.group(3), 16) >> 4 for m in insns):
            sys.exit('instruction count in a block without counting code:\n'
                     + '\n'.join(lines))
        return None
    n = int(adds[0].group(2), 16)
    tail = ' '.join(prologue[prologue.index(adds[0].group(0)):])
    if not re.search(r'extu_i32_i64 .*ld_i64 .*add_i64 .*st_i64 ', tail):
        sys.exit('unexpected counting code:\n' + '\n'.join(prologue))
    if n != len(insns):
        sys.exit(f'block counts {n} instructions but has {len(insns)}:\n'
                 + '\n'.join(lines))
    for i, m in enumerate(insns):
        uw2 = int(m.group(3), 16)
        # The pc words are page offsets with CF_PCREL: differ mod 4 KiB.
        prev_rvc = i > 0 and (int(m.group(1), 16) -
                              int(insns[i - 1].group(1), 16)) % 4096 == 2
        if uw2 >> 5 != i or bool(uw2 & 0x10) != prev_rvc:
            sys.exit(f'instruction {i} has insn_start word {m.group(3)}:\n'
                     + '\n'.join(lines))
    return n


def main():
    """Counting blocks with Smcntrpmf; none without it."""
    ap = cli.parser(__doc__, elf=True)
    ap.add_argument('--off-elf', required=True,
                    help='a program run without Smcntrpmf')
    args = cli.parse(ap)
    qemu_bin, elf, off_elf = args.qemu, args.elf, args.off_elf

    res = [check_block(b) for b in blocks(qemu_bin, elf, 'rv64,smcntrpmf=on')]
    counting = [n for n in res if n is not None]
    print(f'smcntrpmf=on: {len(res)} blocks, {len(counting)} count '
          f'{sum(counting)} instructions, {len(res) - len(counting)} '
          'have no counting code', flush=True)
    if not counting or len(counting) == len(res):
        sys.exit('expected both counting and non-counting blocks')

    res = [check_block(b) for b in blocks(qemu_bin, off_elf, 'rv64')]
    counting = [n for n in res if n is not None]
    print(f'smcntrpmf=off: {len(res)} blocks, {len(counting)} count')
    if counting:
        sys.exit('counting code without Smcntrpmf')
    print('PASS')


if __name__ == '__main__':
    main()
