#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The trace encoder costs nothing in translated code while it does not
trace.

Usage: test-etrace-gating.py --qemu QEMU --elf ELF --cpu CPU
                             [-- QEMU ARGUMENTS...]

Runs the guest with "-d op" (the TCG ops of every block as it is
translated) three times, under -icount so that the runs translate the
same blocks in the same order:
  - without the trace components;
  - with "trace=on" but tracing off: the ops of every block must be
    exactly those of the first run (no event appended, no instruction
    counted, no call), up to the blocks after the finisher's store;
  - tracing from reset: the ops must differ, in branch-map mode (the
    default: calls of helper cf_bmap_look), and with x-branch-map=off
    with block events appended (info word of kind 2 stored into the event
    buffer), which shows the comparison can fail.
And data trace, implemented (data-trace=on) but not tracing
(data-start=off): the ops of every block must be those of the tracing
run without it; tracing data, data events are appended (info words of
kind 3).
"""

import os
import re
import sys
import tempfile

from rvcfo import cli, qemu

# A constant info word stored into the appended slot (not into env).
INFO = re.compile(r'^ st_i32 \$0x([0-9a-f]+),(?!env,)\w+,')
# Host addresses (exit_tb of the code buffer) differ between runs: user
# space addresses of 47 bits, 0x1000_0000_0000 and up (guest addresses in
# these tests have at most 8 digits).
HOST = re.compile(r'\$0x[1-7][0-9a-f]{11}\b')


# The last blocks, after the finisher's store, may or may not be
# translated before QEMU exits.
TAIL = 2


def blocks(lines):
    """The op listings of the blocks translated, in order."""
    tbs = []
    for line in lines:
        if line.startswith('OP:'):
            tbs.append([])
        if tbs:
            tbs[-1].append(line)
    return tbs


def same_blocks(ref, got, how, what):
    """The blocks of the ops @got (a run with @how) are those of @ref
    (without @what), up to the last TAIL; returns how many compared."""
    ref_tbs, got_tbs = blocks(ref), blocks(got)
    for i, (a, b) in enumerate(zip(ref_tbs, got_tbs)):
        if a != b:
            for j, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    break
            sys.exit(f'block {i} differs with {how}, at op line {j}:\n'
                     f'  without {what}: {a[j]}\n'
                     f'  with it: {b[j] if j < len(b) else "(none)"}')
    if abs(len(ref_tbs) - len(got_tbs)) > TAIL:
        sys.exit(f'{len(ref_tbs)} blocks translated without {what}, '
                 f'{len(got_tbs)} with {how}')
    return min(len(ref_tbs), len(got_tbs))


def ops(args, machine, extra=()):
    """The TCG ops logged by a run on -M @machine with the QEMU
    arguments @extra, host addresses masked."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'op.log')
        trace = os.path.join(tmp, 'trace.bin')
        qemu.run_guest(qemu.command(
            args.qemu, machine=machine, cpu=args.cpu, kernel=args.elf,
            extra=['-icount', 'shift=0'] + qemu.trace_file(trace) +
            list(extra) + args.qemu_args, log_items='op', log_file=log),
            300)
        with open(log, encoding='utf-8', errors='replace') as f:
            return [HOST.sub('$HOST', line) for line in f.read().splitlines()]


def main():
    """Three runs: without the encoder, not tracing, tracing."""
    args = cli.parse(cli.parser(__doc__, elf=True, cpu=True,
                                qemu_args=True))
    plain = ops(args, 'virt')
    idle = ops(args, 'virt,trace=on,trace-chardev=tr')
    tracing = ops(args, qemu.TRACED)
    per_block = ops(args, qemu.TRACED,
                    qemu.encoder('x-branch-map', 'off'))
    data_idle = ops(args, qemu.TRACED, qemu.encoder('data-trace') +
                    qemu.encoder('data-start', 'off'))
    data = ops(args, qemu.TRACED, qemu.encoder('data-trace'))

    if not plain:
        sys.exit('no ops logged')
    n_idle = same_blocks(plain, idle, 'trace=on, not tracing',
                         'the encoder')
    n_data_idle = same_blocks(tracing, data_idle, 'data trace implemented, '
                              'not tracing data', 'data trace')
    data_events = sum(1 for line in data
                      if (m := INFO.match(line)) and
                      (int(m.group(1), 16) >> 8) & 0xff == 3)
    if not data_events:
        sys.exit('tracing data emitted no data events: the test cannot '
                 'fail')
    events = sum(1 for line in per_block
                 if (m := INFO.match(line)) and
                 (int(m.group(1), 16) >> 8) & 0xff == 2)
    if per_block == plain or not events:
        sys.exit('tracing with x-branch-map=off emitted no block events: '
                 'the test cannot fail')
    looks = sum(1 for line in tracing if 'call cf_bmap_look' in line)
    if tracing == plain or not looks:
        sys.exit('tracing in branch-map mode emitted no call of '
                 'cf_bmap_look: the test cannot fail')
    print(f'{n_idle} blocks translated to the '
          f'same ops with the encoder present and not tracing; {events} '
          f'block events appended when tracing with x-branch-map=off, '
          f'{looks} blocks that may call cf_bmap_look in branch-map mode; '
          f'{n_data_idle} blocks the same with '
          f'data trace implemented and not tracing data, {data_events} '
          f'data events appended when tracing data')


if __name__ == '__main__':
    main()
