#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Migrate a traced guest in the middle of its run: the trace goes on.

Usage: test-etrace-migrate.py QEMU ELF [QEMU ARGUMENTS...]

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
ARGUMENTS (encoder options: the jump target cache, branch prediction...)
go to every run, whose state must migrate too.
"""

import importlib.util
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import etrace_packets  # noqa: E402


def load(name):
    spec = importlib.util.spec_from_file_location(
        name.replace('-', '_'), os.path.join(HERE, name + '.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mig = load('test-ctr-migrate')
TAIL = 4
DELAY = 0.3


def packets(*paths):
    data = b''
    for path in paths:
        with open(path, 'rb') as f:
            data += f.read()
    return [etrace_packets.describe(p)
            for _, p, _ in etrace_packets.packets(data)]


def run(qemu, elf, tmp, options):
    deadline = mig.Deadline(120)
    common = [qemu, '-M', 'virt,trace=on,trace-chardev=tr,trace-start=on',
              '-bios', 'none', '-display', 'none', '-monitor', 'none',
              '-no-reboot', '-icount', 'shift=0', '-cpu', mig.DEFAULT_CPU,
              '-kernel', elf, '-serial', 'stdio'] + options

    def chardev(name):
        path = os.path.join(tmp, name + '.bin')
        return path, ['-chardev', f'file,id=tr,path={path}']

    ref, args = chardev('reference')
    q = mig.Qemu('reference', common + args + ['-qmp', 'unix:%s,server=on,'
                 'wait=off' % os.path.join(tmp, 'ref.qmp')],
                 os.path.join(tmp, 'ref.qmp'), deadline)
    if q.wait_exit('the reference run') != 0 or \
            not mig.PASS_RE.search(q.serial):
        raise mig.Failure('the reference run failed')

    src_trace, args = chardev('source')
    src_qmp = os.path.join(tmp, 'source.qmp')
    src = mig.Qemu('source', common + args + ['-S', '-qmp', 'unix:%s,'
                   'server=on,wait=off' % src_qmp], src_qmp, deadline)
    src.connect()
    src.cmd('cont')
    src.wait_serial(mig.READY_RE, 'READY')
    time.sleep(DELAY)
    src.cmd('stop')
    if mig.RESULT_RE.search(src.serial):
        raise mig.Failure('the source guest finished before it was stopped')
    stream = os.path.join(tmp, 'migration-stream')
    src.cmd('migrate', uri='file:' + stream)
    src.wait_migration('outgoing migration')
    src.cmd('quit')
    src.wait_exit('the source to quit')
    with open(stream, 'rb') as f:
        if b'riscv-trace-encoder' not in f.read():
            raise mig.Failure('no trace encoder state in the stream')

    dst_trace, args = chardev('destination')
    dst_qmp = os.path.join(tmp, 'destination.qmp')
    dst = mig.Qemu('destination', common + args +
                   ['-S', '-incoming', 'defer', '-qmp',
                    'unix:%s,server=on,wait=off' % dst_qmp],
                   dst_qmp, deadline)
    dst.connect()
    dst.cmd('migrate-incoming', uri='file:' + stream)
    dst.wait_migration('incoming migration')
    dst.cmd('cont')
    if dst.wait_exit('the destination guest') != 0 or \
            not mig.PASS_RE.search(dst.serial):
        raise mig.Failure('the destination guest failed')

    want = packets(ref)
    before = packets(src_trace)
    got = packets(src_trace, dst_trace)
    n = min(len(got), len(want)) - TAIL
    if not 10 < len(before) < n:
        raise mig.Failure(f'{len(before)} packets before the migration, '
                          f'{len(got)} in all: not in the middle')
    for i in range(n):
        if got[i] != want[i]:
            raise mig.Failure(f'packet {i} ({i - len(before)} after the '
                              f'migration): {got[i]}, the reference run '
                              f'has {want[i]}')
    if abs(len(got) - len(want)) > TAIL:
        raise mig.Failure(f'{len(got)} packets, {len(want)} in the '
                          'reference run')
    print(f'{n} packets equal the reference run\'s, {len(before)} of them '
          'before the migration')


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tmp = tempfile.mkdtemp(prefix='etrace-migrate-')
    try:
        run(sys.argv[1], sys.argv[2], tmp, sys.argv[3:])
        return 0
    except mig.Failure as e:
        print(f'FAIL: {e}')
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
