#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Branch-map mode gives the packets the per-block path gives.

Usage: test-etrace-branch-map.py --qemu QEMU --elf ELF --cpu CPU
                                 [-- QEMU ARGUMENTS...]

Traces the guest from reset in branch-map mode (the default: translated
code keeps the branch map and calls the encoder only at uninferable
transfers, traps and full maps) under QEMU's record/replay
("-icount shift=0,rr=record"), then replays the same execution with
x-branch-map=off (an event per block, the encoder's per-row path).
Every te_inst packet of the two streams must be the same, byte for byte,
in the same order; the PIB sink's synchronisation sequences, which fall
between the batches the encoder hands on, are not packets.  But for the
last two packets (the report of the last instruction and the support
packet that ends the trace): the guest ends with a store to the test
finisher followed by wfi, and whether the block of the wfi starts before
QEMU's main loop stops the hart is host timing, even in a replay.
The round trips check those packets against QEMU's record of the same
run.  The QEMU arguments (encoder options, "-d nochain") apply to both
runs; an "-icount" among them gets the record/replay options added.  A
stream with fewer than five packets fails: the comparison could not
fail.
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import etrace_packets  # noqa: E402
from rvcfo import cli, qemu  # noqa: E402


def stream(args, tmp, name, extra, rr):
    """The packets (raw bytes) of one traced run, recording or replaying
    (@rr) the execution."""
    trace = os.path.join(tmp, name + '.bin')
    log = os.path.join(tmp, name + '.log')
    nochain = '-d' in args.qemu_args
    qemu_args = [a for a in args.qemu_args if a not in ('-d', 'nochain')]
    rr_opts = f'rr={rr},rrfile={os.path.join(tmp, "rr.bin")}'
    if '-icount' in qemu_args:
        i = qemu_args.index('-icount') + 1
        qemu_args[i] += ',' + rr_opts
        icount = None
    else:
        icount = 'shift=0,' + rr_opts
    qemu.run_guest(qemu.command(
        args.qemu, machine=qemu.TRACED, cpu=args.cpu, kernel=args.elf,
        icount=icount, chardev=qemu.trace_file(trace),
        extra=list(extra) + qemu_args,
        log_items='nochain' if nochain else None, log_file=log), 300)
    with open(trace, 'rb') as f:
        data = f.read()
    protocol = '2.1' if 'riscv-trace-encoder.protocol=2.1' in \
        args.qemu_args else '2.0'
    return [raw for _, _, raw in
            etrace_packets.packets(data, protocol=protocol)]


def main():
    """Both runs, then the comparison."""
    args = cli.parse(cli.parser(__doc__, elf=True, cpu=True,
                                qemu_args=True))
    with tempfile.TemporaryDirectory() as tmp:
        fast = stream(args, tmp, 'bmap', [], 'record')
        rows = stream(args, tmp, 'rows', qemu.encoder('x-branch-map', 'off'),
                      'replay')
    if len(fast) != len(rows):
        sys.exit(f'{len(fast)} packets in branch-map mode, {len(rows)} '
                 f'on the per-block path')
    if len(fast) < 5:
        sys.exit(f'only {len(fast)} packets: the test cannot fail')
    for i, (a, b) in enumerate(zip(fast[:-2], rows[:-2])):
        if a != b:
            sys.exit(f'packet {i} differs: branch-map mode {a.hex(" ")}, '
                     f'per-block path {b.hex(" ")}')
    print(f'{len(fast)} packets, the same in branch-map mode and on the '
          f'per-block path up to the last two')


if __name__ == '__main__':
    main()
