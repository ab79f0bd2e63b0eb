#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""etrace-decode's calls outputs of two harts against the program and
QEMU's record.

Usage: test-etrace-calls-harts.py --qemu QEMU --decoder DECODER --elf ELF
                                  --uftrace UFTRACE

ELF is tests/tcg/riscv64/test-etrace-harts.S, run on two harts at once
(-smp 2, one stream, a srcID per hart) with QEMU's record of the same
run.  Each hart runs 64 rounds, each calling leaf once and, through a
table, even (even rounds) or odd (odd rounds, which jumps to even: a
tail call), so per hart leaf and even are entered 64 times, odd 32.
  - --output=flow per hart is the record's (up to the hart's last packet:
    the instructions after it are not reported), the reference below;
  - --output=folded: per hart ("hart N" lines), the instructions add up
    to the record's of that hart in the program;
  - --output=chrome: a thread per hart; per thread B and E events nest,
    leaf, even and odd frames are entered as the source says, and the
    handler as often as the record has traps of that hart;
  - --output=uftrace: "uftrace info" has the two tasks hart0 and hart1,
    "uftrace report" leaf and even called 128 times, odd 64.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

from rvcfo import binutils, cli, record
from rvcfo.roundtrip import expected

HARTS = 2
# per hart, from the source: frames entered
FRAMES = {'leaf': 64, 'even': 64, 'odd': 32}


def decode(args, trace, output, *extra):
    cmd = [args.decoder, '-q', '--param', 'srcid_bits=8', '--elf', args.elf,
           f'--output={output}', *extra, trace]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        sys.exit(f'{cmd}: exit {res.returncode}: {res.stderr}')
    return res.stdout


def main():
    ap = cli.parser(__doc__, elf=True, decoder=True)
    ap.add_argument('--uftrace', required=True, help="Debian's uftrace")
    args = cli.parse(ap)
    with tempfile.TemporaryDirectory(prefix='etrace-calls-harts-') as tmp:
        log, trace = record.run_traced(
            args.qemu, args.elf, 'rv64',
            ['-smp', str(HARTS), '-accel', 'tcg,thread=single'], tmp)
        flows, _ = expected(log, False, HARTS)
        code = {pc for pc, _, _ in binutils.listing(args.elf)}
        # The decoded flow of each hart is the record's up to the last
        # packet (instructions after it are not reported): that part.
        decoded = {h: [] for h in range(HARTS)}
        for line in decode(args, trace, 'flow').splitlines():
            f = line.split()
            if f[1] not in ('gap', 'trap'):
                decoded[int(f[0])].append(f'{f[1]} {f[2]}')
        insns, traps = {}, {}
        for h in range(HARTS):
            mine = [x for x in flows[h] if not x.startswith('trap') and
                    int(x.split()[1], 16) in code]
            n = len(decoded[h])
            if not n or mine[:n] != decoded[h]:
                sys.exit(f'hart {h}: the decoded flow is not the record\'s')
            insns[h] = n
            # the record's traps up to there
            seen = 0
            traps[h] = 0
            for x in flows[h]:
                if x.startswith('trap'):
                    traps[h] += 1
                elif int(x.split()[1], 16) in code:
                    seen += 1
                    if seen == n:
                        break

        total = {h: 0 for h in range(HARTS)}
        for line in decode(args, trace, 'folded').splitlines():
            stack, n = line.rsplit(' ', 1)
            hart = int(re.match(r'^hart (\d+);', stack).group(1))
            total[hart] += int(n)
        if total != insns:
            sys.exit(f'folded: per hart {total} instructions, the record '
                     f'{insns}')

        events = json.loads(decode(args, trace, 'chrome'))['traceEvents']
        for h in range(HARTS):
            depth, entered = 0, {}
            for e in (e for e in events if e.get('tid') == h):
                if e['ph'] == 'B':
                    depth += 1
                    entered[e['name']] = entered.get(e['name'], 0) + 1
                elif e['ph'] == 'E':
                    depth -= 1
                    if depth < 0:
                        sys.exit(f'chrome: thread {h}: an E without a B')
            want = dict(FRAMES, **{'[trap] trap': traps[h]})
            got = {k: entered.get(k, 0) for k in want}
            if depth or got != want:
                sys.exit(f'chrome: thread {h}: {got} (depth {depth}), the '
                         f'program and the record: {want}')

        data = os.path.join(tmp, 'uftrace.data')
        decode(args, trace, 'uftrace', '--dir', data)

        def uftrace(*cmd):
            res = subprocess.run([args.uftrace, *cmd, '-d', data],
                                 capture_output=True, text=True,
                                 check=False)
            if res.returncode != 0 or res.stderr:
                sys.exit(f'uftrace {cmd}: {res.stderr}')
            return res.stdout

        info = uftrace('info')
        if '1(hart0)' not in info or '2(hart1)' not in info:
            sys.exit(f'uftrace info: not the tasks hart0 and hart1:\n{info}')
        calls = {}
        for line in uftrace('report').splitlines():
            f = line.split()
            if len(f) == 6 and f[4].isdigit():
                calls[f[5]] = int(f[4])
        got = {k: calls.get(k) for k in FRAMES}
        if got != {k: HARTS * n for k, n in FRAMES.items()}:
            sys.exit(f'uftrace report: calls {got}')
    print(f'two harts: folded {insns} instructions per hart as the record, '
          f'chrome a thread each with its frames and {traps} traps, '
          f'uftrace two tasks and the calls of both')
    return 0


if __name__ == '__main__':
    sys.exit(main())
