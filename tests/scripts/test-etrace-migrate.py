#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Migrate a traced guest in the middle of its run: the trace goes on.

Usage: test-etrace-migrate.py --qemu QEMU --elf ELF [--cpu CPU]
                              [-- QEMU ARGUMENTS...]

ELF is a build of tests/tcg/riscv64/test-ctr-migrate.c, which prints
"READY loop ..." before a long loop.  Under -icount shift=0, with every
hart traced from reset into a file chardev:

 1. a reference run goes to the end without migrating;
 2. a second run is stopped in the middle of the loop (as
    test-ctr-migrate.py does), migrated through a file to a new QEMU that
    writes the trace to a second file, and resumed there to the end.

The packets of the two files, one after the other, must be those of the
reference run, in order, apart from the end (the finisher's spin loop),
and the migration stream must hold the encoder's state.  QEMU
ARGUMENTS (encoder options: the jump target cache, branch prediction,
data trace...) go to every run, whose state must migrate too.
"""

import os
import shutil
import sys
import tempfile
import time

import etrace_packets
from rvcfo import cli, guest, qemu
from rvcfo.qmp import Deadline, Failure, Machine

TAIL = 4
DELAY = 0.3


def packets(type_bits, *paths):
    """The packets of the trace files @paths, one after the other; with
    data trace, a 1-bit type field."""
    data = b''
    for path in paths:
        with open(path, 'rb') as f:
            data += f.read()
    # every bit of each packet: the fields the reader names and those it
    # does not (irdepth, irets)
    return [f'{"te_data" if "te_data" in p else etrace_packets.describe(p)}'
            f' [{raw.hex(" ")}]'
            for _, p, raw in etrace_packets.packets(data,
                                                    type_bits=type_bits)]


def run(args, tmp):
    """The reference run, then the source and the destination; compare
    their packets.  Raises Failure."""
    deadline = Deadline(120)

    def start(name, **kw):
        path = os.path.join(tmp, name + '.bin')
        sock = os.path.join(tmp, name + '.qmp')
        cmd = qemu.command(args.qemu, machine=qemu.TRACED,
                           chardev=qemu.trace_file(path), cpu=args.cpu,
                           kernel=args.elf, serial='stdio',
                           icount='shift=0', extra=args.qemu_args,
                           qmp=sock, **kw)
        return path, Machine(name, cmd, sock, deadline)

    ref, q = start('reference')
    if q.wait_exit('the reference run') != 0 or \
            not guest.PASS_BYTES.search(q.serial):
        raise Failure('the reference run failed')

    src_trace, src = start('source', stopped=True)
    src.connect()
    src.cmd('cont')
    src.wait_serial(guest.READY, 'READY')
    time.sleep(DELAY)
    src.cmd('stop')
    if guest.RESULT.search(src.serial):
        raise Failure('the source guest finished before it was stopped')
    stream = os.path.join(tmp, 'migration-stream')
    src.cmd('migrate', uri='file:' + stream)
    src.wait_migration('outgoing migration')
    src.cmd('quit')
    src.wait_exit('the source to quit')
    with open(stream, 'rb') as f:
        if b'riscv-trace-encoder' not in f.read():
            raise Failure('no trace encoder state in the stream')

    dst_trace, dst = start('destination', stopped=True, incoming='defer')
    dst.connect()
    dst.cmd('migrate-incoming', uri='file:' + stream)
    dst.wait_migration('incoming migration')
    dst.cmd('cont')
    if dst.wait_exit('the destination guest') != 0 or \
            not guest.PASS_BYTES.search(dst.serial):
        raise Failure('the destination guest failed')

    type_bits = 1 if 'riscv-trace-encoder.data-trace=on' in args.qemu_args \
        else 0
    want = packets(type_bits, ref)
    before = packets(type_bits, src_trace)
    got = packets(type_bits, src_trace, dst_trace)
    n = min(len(got), len(want)) - TAIL
    if not 10 < len(before) < n:
        raise Failure(f'{len(before)} packets before the migration, '
                      f'{len(got)} in all: not in the middle')
    for i in range(n):
        if got[i] != want[i]:
            raise Failure(f'packet {i} ({i - len(before)} after the '
                          f'migration): {got[i]}, the reference run '
                          f'has {want[i]}')
    if abs(len(got) - len(want)) > TAIL:
        raise Failure(f'{len(got)} packets, {len(want)} in the '
                      'reference run')
    print(f'{n} packets equal the reference run\'s, {len(before)} of them '
          'before the migration')


def main():
    """Parse the options, run in a scratch directory."""
    args = cli.parse(cli.parser(
        __doc__, elf=True, cpu=True, qemu_args=True,
        cpu_default='rv64,smctr=on,ssctr=on,smcsrind=on,sscsrind=on'))
    tmp = tempfile.mkdtemp(prefix='etrace-migrate-')
    try:
        run(args, tmp)
        return 0
    except Failure as e:
        print(f'FAIL: {e}')
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
