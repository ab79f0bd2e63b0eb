#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Migrate a CTR guest test in the middle of its run and check it passes.

Usage: test-ctr-migrate.py [--qemu QEMU] --elf ELF [options]
       (QEMU by default from $QTEST_QEMU_BINARY)

ELF is a build of tests/tcg/riscv64/test-ctr-migrate.c or
test-cntrpmf-migrate.c.  The guest prints
"READY loop LO HI xR N" just before its long loop (LO..HI: the loop's
addresses; register xR counts its iterations down from N).  The harness

 1. starts the source QEMU paused (-S) under -icount shift=0, connects to
    its QMP socket and lets it run;
 2. --delay seconds after READY: QMP "stop", checks through "info
    registers" that the PC is inside LO..HI (so the migration really
    happens in the middle of the loop) and reports the progress from xR,
    "migrate" to a file: URI, waits for "completed", quits the source;
 3. checks that the stream contains the CTR vmstate section ("cpu/ctr",
    or the --section names instead, plus any --require-section);
 4. starts the destination with the same options plus -S -incoming defer,
    "migrate-incoming" from the file, waits for "completed", then "cont";
 5. requires the destination's guest to print the runtime's PASS line and
    QEMU to exit with status 0.

Exits 0 on success, 1 on any failure (with diagnostics on stdout).
Python 3 standard library only.
"""

import os
import re
import shutil
import sys
import tempfile
import time

from rvcfo import cli, guest, qemu
from rvcfo.qmp import Deadline, Failure, Machine

DEFAULT_CPU = 'rv64,smctr=on,ssctr=on,smcsrind=on,sscsrind=on'
PC_RE = re.compile(r'^\s*pc\s+([0-9a-fA-F]+)\s*$', re.MULTILINE)


def log(msg):
    """A line of the driver's log."""
    print('test-ctr-migrate: ' + msg, flush=True)


def command(args, **kw):
    """The QEMU command line of the source or the destination."""
    return qemu.command(args.qemu, cpu=args.cpu, kernel=args.elf,
                        serial='stdio', icount='shift=0', **kw)


def run(args, tmp):
    """Run, migrate and finish the guest; returns the exit status."""
    deadline = Deadline(args.timeout)
    stream = os.path.join(tmp, 'migration-stream')
    qemus = []
    try:
        # Source: paused until QMP is connected, so no output is missed.
        src_qmp = os.path.join(tmp, 'source.qmp')
        src = Machine('source', command(args, stopped=True, qmp=src_qmp),
                      src_qmp, deadline)
        qemus.append(src)
        src.connect()
        src.cmd('cont')
        m = src.wait_serial(guest.READY, 'READY')
        t_ready = time.monotonic()
        time.sleep(args.delay)
        src.cmd('stop')
        t_stop = time.monotonic() - t_ready
        lo, hi = int(m.group(1), 16), int(m.group(2), 16)
        status = src.cmd('query-status')['status']
        if status != 'paused':
            raise Failure('source: status %r after stop' % status)
        regs = src.hmp('info registers')
        pm = PC_RE.search(regs)
        if not pm:
            raise Failure('source: no pc in "info registers":\n' + regs)
        pc = int(pm.group(1), 16)
        log('source stopped at pc 0x%x %.3f s after READY; loop is '
            '0x%x..0x%x' % (pc, t_stop, lo, hi))
        if not lo <= pc <= hi:
            raise Failure('source stopped outside the loop (pc 0x%x, loop '
                          '0x%x..0x%x): the migration would not be in the '
                          'middle of the loop; try another --delay'
                          % (pc, lo, hi))
        if m.group(3):
            rm = re.search(r'\bx%s/\w+\s+([0-9a-fA-F]+)' % m.group(3).decode(),
                           regs)
            total = int(m.group(4))
            if rm:
                done = total - int(rm.group(1), 16)
                log('stopped after %d of %d loop iterations (%.1f%%)'
                    % (done, total, 100.0 * done / total))
        tail = src.serial[m.end():]
        if guest.RESULT.search(tail):
            raise Failure('source guest finished before it was stopped')

        src.cmd('migrate', uri='file:' + stream)
        info = src.wait_migration('outgoing migration')
        log('outgoing migration completed: %s bytes transferred'
            % info.get('ram', {}).get('transferred', '?'))
        src.cmd('quit')
        rc = src.wait_exit('the source to quit')
        if guest.RESULT.search(src.serial[m.end():]):
            raise Failure('source guest ran on after the migration')
        log('source exited with status %d' % rc)
        src.dump()

        with open(stream, 'rb') as f:
            data = f.read()
        log('stream: %d bytes' % len(data))
        for name in (args.section or ['cpu/ctr']) + args.require_section:
            if name.encode() not in data:
                raise Failure('the migration stream has no "%s" section'
                              % name)
            log('stream contains "%s"' % name)
        for name in sorted(set(re.findall(rb'cpu/(?:ctr|cntrpmf)[\w/]*',
                                          data))):
            log('vmstate name in the stream: %s' % name.decode())

        # Destination: same machine, loads the stream, then continues.
        dst_qmp = os.path.join(tmp, 'destination.qmp')
        dst = Machine('destination',
                      command(args, stopped=True, incoming='defer',
                              qmp=dst_qmp),
                      dst_qmp, deadline)
        qemus.append(dst)
        dst.connect()
        dst.cmd('migrate-incoming', uri='file:' + stream)
        dst.wait_migration('incoming migration')
        status = dst.cmd('query-status')['status']
        log('incoming migration completed; destination status %r' % status)
        if status != 'paused':
            raise Failure('destination: status %r after the incoming '
                          'migration, expected "paused"' % status)
        regs = dst.hmp('info registers')
        pm = PC_RE.search(regs)
        if not pm or int(pm.group(1), 16) != pc:
            raise Failure('destination: pc %s after loading, source had 0x%x'
                          % (pm.group(1) if pm else '?', pc))
        dst.cmd('cont')
        rc = dst.wait_exit('the destination guest to finish')
        dst.dump()
        if not guest.PASS_BYTES.search(dst.serial):
            raise Failure('the destination guest did not print the PASS '
                          'line')
        if rc != 0:
            raise Failure('destination QEMU exited with status %d' % rc)
        log('destination guest passed, QEMU exited with status 0')
        return 0
    except Failure as e:
        for q in qemus:
            q.close()
            q.dump()
        log('FAIL: %s' % e)
        return 1
    finally:
        for q in qemus:
            q.close()


def main():
    """Parse the options, run in a scratch directory."""
    p = cli.parser(__doc__, elf=True, cpu=True, cpu_default=DEFAULT_CPU)
    p.add_argument('--section', action='append', default=[], metavar='NAME',
                   help='vmstate name the stream must contain, instead of '
                   'cpu/ctr')
    p.add_argument('--require-section', action='append', default=[],
                   metavar='NAME',
                   help='also require this vmstate name in the stream')
    p.add_argument('--delay', type=float, default=0.3,
                   help='seconds between READY and stop (default 0.3; '
                   'the loop takes about 2 s)')
    p.add_argument('--timeout', type=float, default=60,
                   help='overall time limit in seconds (default 60)')
    args = cli.parse(p)
    for f in (args.qemu, args.elf):
        if not os.path.exists(f):
            log('FAIL: %s does not exist' % f)
            return 1

    tmp = tempfile.mkdtemp(prefix='ctr-migrate-')
    try:
        return run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
