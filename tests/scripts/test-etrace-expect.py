#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A traced guest program's packets against the ones worked out by hand.

Usage: test-etrace-expect.py --qemu QEMU --nm NM --elf ELF --expect EXPECT
                             --cpu CPU [-- QEMU ARGUMENTS...]

Runs ELF on "-M virt,trace=on" with the PIB sink writing to a file (the
program switches tracing on and off itself), reads the packets
(etrace_packets.py) and compares them, all of them and in order, with
EXPECT: one packet per line in etrace_packets.describe() form, with
{expressions} over the program's symbols (from NM) and the helpers
f(x) = x >> 1, d(x, y) = ((x - y) >> 1) mod 2^63, st(x, y) = "000" when
x >= y else "111"; "N*" repeats a line; "#" starts a comment.  Integers
are written in hex, as the packets are.
"""

import os
import re
import subprocess
import sys
import tempfile

import etrace_packets
from rvcfo import cli, qemu

MASK63 = (1 << 63) - 1


def symbols(nm, elf):
    out = subprocess.run([nm, elf], check=True, capture_output=True,
                         text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and re.fullmatch(r'\w+', parts[2]):
            syms[parts[2]] = int(parts[0], 16)
    return syms


def expected(path, syms):
    env = dict(syms)
    env.update({
        'f': lambda x: x >> 1,
        'd': lambda x, y: ((x - y) >> 1) & MASK63,
        'st': lambda x, y: '000' if x >= y else '111',
    })

    def subst(m):
        v = eval(m.group(1), {'__builtins__': {}}, env)
        return f'{v:x}' if isinstance(v, int) else str(v)

    want = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            m = re.match(r'(\d+)\*(.*)', line)
            count, line = (int(m.group(1)), m.group(2)) if m else (1, line)
            want += [re.sub(r'\{([^}]*)\}', subst, line)] * count
    return want


def main():
    """Run the guest traced; compare its packets with EXPECT."""
    ap = cli.parser(__doc__, elf=True, cpu=True, qemu_args=True)
    ap.add_argument('--nm', required=True, help='riscv64 nm')
    ap.add_argument('--expect', required=True,
                    help='the packets worked out by hand')
    args = cli.parse(ap)
    want = expected(args.expect, symbols(args.nm, args.elf))
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, 'trace.bin')
        qemu.run_guest(qemu.command(
            args.qemu, machine='virt,trace=on,trace-chardev=tr',
            chardev=qemu.trace_file(trace), cpu=args.cpu, kernel=args.elf,
            extra=args.qemu_args), 120)
        with open(trace, 'rb') as f:
            got = [etrace_packets.describe(p)
                   for _, p, _ in etrace_packets.packets(f.read())]
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            print(f'packet {i} differs:')
            for j in range(max(0, i - 4), min(len(want), i + 4)):
                mark = '>' if j == i else ' '
                print(f' {mark} want  {want[j]}\n'
                      f'   trace {got[j] if j < len(got) else "(none)"}')
            sys.exit(1)
    if len(got) != len(want):
        sys.exit(f'{len(got)} packets, {len(want)} expected; the first '
                 f'extra: {(got + want)[min(len(got), len(want))]}')
    print(f'{len(got)} packets as worked out by hand')


if __name__ == '__main__':
    main()
