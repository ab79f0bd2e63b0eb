#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""etrace-decode --priv against QEMU's own record.

Usage: test-etrace-priv.py --qemu QEMU --decoder DECODER --elf ELF
                           --cpu CPU

ELF (test-modes.c) runs functions in M, HS, U, VS and VU through the
runtime's ecalls, traced from reset with QEMU's record of the same run
(-d in_asm,exec,nochain,int).  For each set of privileges the expected
flow is made from the record, by the rule docs/system/riscv/trace.rst
gives ("Privileges"):
  - the instructions of the kept privileges, in order;
  - a trap, when the instruction after it is kept;
  - a trap into left-out code (its handler's first instruction is not
    kept, or another trap comes first) starts a section that is left out,
    and is not reported; when
    kept code comes back at the trap's EPC or the instruction after, the
    flow goes on; anywhere else (or after a section no kept trap began:
    the runtime enters U by mret from M) there is one gap;
  - the trace's end, a gap (the encoder ends the trace as QEMU exits).
etrace-decode --output=flow --priv=SET must give exactly that.  Then
--output=folded --priv=U: the instructions of the stacks add up to the
record's U instructions, and every function in them ran U code.
"""

import re
import subprocess
import sys
import tempfile

from rvcfo import cli, record
from rvcfo.roundtrip import expected, rom_image

SETS = ['U', 'M', 'S,U', 'VS,VU', 'HS,VS']
ALIASES = {'HS': 'S'}
GAP = 'gap instructions of privileges --priv leaves out'


def trap_epcs(log):
    """The EPC of every trap of the record, in order."""
    rec = record.Record()
    with open(log, encoding='utf-8', errors='replace') as f:
        for line in f:
            rec.feed(line)
    return [e[3] for e in rec.stream if isinstance(e, tuple)], rec.code


def model(flow, epcs, code, kept):
    """The flow --priv=@kept gives, from the record's @flow."""
    out = []
    hidden = gapped = False
    resume = None
    trap = None                 # (line, epc) waiting for the next insn
    epcs = iter(epcs)
    for item in flow:
        if item.startswith('trap '):
            epc = next(epcs)
            if trap and not hidden:
                # the first trap's handler ran no kept code
                hidden, gapped = True, False
                resume = trap[1]
                trap = None
            if hidden:
                continue
            trap = (item, epc)
            continue
        priv, pc = item.split()
        pc = int(pc, 16)
        if priv not in kept:
            if not hidden:
                hidden, gapped = True, False
                resume = trap[1] if trap else None
                trap = None
            continue
        if hidden:
            hidden, trap = False, None
            after = resume + code[resume][1] if resume in code else None
            if not gapped and pc not in (resume, after):
                out.append(GAP)
        elif trap:
            out.append(trap[0])
            trap = None
        out.append(item)
    return out


def decoded(args, rom, trace, output, priv):
    cmd = [args.decoder, '-q', '--elf', args.elf, *rom, f'--output={output}',
           f'--priv={priv}', trace]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        sys.exit(f'{cmd}: exit {res.returncode}: {res.stderr}')
    return res.stdout.splitlines()


def flow_lines(lines):
    """The decoder's flow without the source and the symbols."""
    out = []
    for line in lines:
        f = line.split()[1:]
        if f[0] in ('trap', 'gap'):
            out.append(' '.join(f))
        else:
            out.append(f'{f[0]} {f[1]}')
    return out


def main():
    ap = cli.parser(__doc__, elf=True, cpu=True, decoder=True)
    args = cli.parse(ap)
    with tempfile.TemporaryDirectory(prefix='etrace-priv-') as tmp:
        log, trace = record.run_traced(args.qemu, args.elf, args.cpu, [],
                                       tmp)
        flows, code = expected(log, False, 1)
        flow = flows[0]
        epcs, _ = trap_epcs(log)
        rom, _ = rom_image(code, tmp)
        for priv in SETS:
            kept = {ALIASES.get(p, p) for p in priv.split(',')}
            want = model(flow, epcs, code, kept)
            got = flow_lines(decoded(args, rom, trace, 'flow', priv))
            # the guest's end: the encoder ends the trace as QEMU exits
            if got[-1:] != ['gap trace ended']:
                sys.exit(f'--priv={priv}: the flow ends with {got[-1:]}')
            got.pop()
            if got != want:
                k = next((i for i, (a, b) in enumerate(zip(got, want))
                          if a != b), min(len(got), len(want)))
                sys.exit(f'--priv={priv}: line {k} differs from the '
                         f'record\'s:\n  decoded  {got[k - 3:k + 3]}\n  '
                         f'expected {want[k - 3:k + 3]}')
            insns = sum(1 for x in want if not x.startswith(('trap', 'gap')))
            if not insns:
                sys.exit(f'--priv={priv}: no instruction kept')
            print(f'--priv={priv}: {insns} instructions, '
                  f'{sum(1 for x in want if x.startswith("trap"))} traps, '
                  f'{want.count(GAP)} gaps, as the record')

        u_pcs = {int(x.split()[1], 16) for x in flow if x.startswith('U ')}
        funcs = set()
        for pc in u_pcs:
            funcs.add(symbol_of(args.elf, pc))
        total = 0
        for line in decoded(args, rom, trace, 'folded', 'U'):
            stack, n = line.rsplit(' ', 1)
            total += int(n)
            for frame in stack.split(';')[1:]:
                if frame not in funcs:
                    sys.exit(f'--priv=U folded: {frame} ran no U code: '
                             f'{line}')
        want = sum(1 for x in flow if x.startswith('U '))
        if total != want:
            sys.exit(f'--priv=U folded: {total} instructions, the record '
                     f'{want} in U')
        print(f'--priv=U folded: {total} instructions in U functions')
    return 0


SYMS = {}


def symbol_of(elf, pc):
    """The function symbol @pc is in (nm's, not the decoder's)."""
    if elf not in SYMS:
        out = subprocess.run(['riscv64-linux-gnu-nm', '-n', elf],
                             capture_output=True, text=True,
                             check=True).stdout
        SYMS[elf] = [(int(a, 16), n) for a, t, n in
                     (ln.split() for ln in out.splitlines()
                      if len(ln.split()) == 3)
                     if t in 'tT' and not re.match(r'^\.L|^\$', n)]
    best = None
    for addr, name in SYMS[elf]:
        if addr <= pc:
            best = name
        else:
            break
    return best


if __name__ == '__main__':
    sys.exit(main())
