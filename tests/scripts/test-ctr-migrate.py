#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Migrate a CTR guest test in the middle of its run and check it passes.

Usage: test-ctr-migrate.py [options] QEMU ELF
       test-ctr-migrate.py [options] ELF     (QEMU from $QTEST_QEMU_BINARY)

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

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

DEFAULT_CPU = 'rv64,smctr=on,ssctr=on,smcsrind=on,sscsrind=on'
READY_RE = re.compile(rb'READY loop (0x[0-9a-fA-F]+) (0x[0-9a-fA-F]+)'
                      rb'(?: x(\d+) (\d+))?\r?\n')
PASS_RE = re.compile(rb'^PASS: \d+ checks, 0 failed, exit code 0\r?$',
                     re.MULTILINE)
RESULT_RE = re.compile(rb'^(PASS|FAIL)\b', re.MULTILINE)
PC_RE = re.compile(r'^\s*pc\s+([0-9a-fA-F]+)\s*$', re.MULTILINE)


class Failure(Exception):
    pass


def log(msg):
    print('test-ctr-migrate: ' + msg, flush=True)


class Deadline:
    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def left(self):
        return self.end - time.monotonic()

    def check(self, what):
        if self.left() <= 0:
            raise Failure('timed out ' + what)


class Qemu:
    """A QEMU process with its serial console on stdout and a QMP socket."""

    def __init__(self, name, argv, qmp_path, deadline):
        self.name = name
        self.qmp_path = qmp_path
        self.deadline = deadline
        self.serial = b''
        self.stderr = b''
        self.cond = threading.Condition()
        self.sock = None
        self.rbuf = b''
        self.dumped = False
        log('%s: %s' % (name, ' '.join(argv)))
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.threads = [
            threading.Thread(target=self._reader,
                             args=(self.proc.stdout, 'serial'), daemon=True),
            threading.Thread(target=self._reader,
                             args=(self.proc.stderr, 'stderr'), daemon=True),
        ]
        for t in self.threads:
            t.start()

    def _reader(self, pipe, attr):
        while True:
            data = os.read(pipe.fileno(), 65536)
            with self.cond:
                if not data:
                    self.cond.notify_all()
                    return
                setattr(self, attr, getattr(self, attr) + data)
                self.cond.notify_all()

    def wait_serial(self, regex, what):
        """Wait until regex matches the serial output; return the match."""
        with self.cond:
            while True:
                m = regex.search(self.serial)
                if m:
                    return m
                if self.proc.poll() is not None:
                    raise Failure('%s: QEMU exited with status %d while '
                                  'waiting for %s'
                                  % (self.name, self.proc.returncode, what))
                self.deadline.check('waiting for %s from %s'
                                    % (what, self.name))
                self.cond.wait(min(0.1, max(self.deadline.left(), 0.01)))

    def connect(self):
        while True:
            if self.proc.poll() is not None:
                raise Failure('%s: QEMU exited with status %d before QMP '
                              'was up' % (self.name, self.proc.returncode))
            self.deadline.check('connecting to the QMP socket of '
                                + self.name)
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.qmp_path)
                break
            except OSError:
                s.close()
                time.sleep(0.02)
        self.sock = s
        greeting = self._recv()
        if 'QMP' not in greeting:
            raise Failure('%s: unexpected QMP greeting %r'
                          % (self.name, greeting))
        self.cmd('qmp_capabilities')

    def _recv(self):
        while b'\n' not in self.rbuf:
            left = self.deadline.left()
            if left <= 0:
                raise Failure('%s: timed out waiting for QMP' % self.name)
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                raise Failure('%s: timed out waiting for QMP' % self.name)
            if not data:
                raise Failure('%s: QMP connection closed' % self.name)
            self.rbuf += data
        line, self.rbuf = self.rbuf.split(b'\n', 1)
        return json.loads(line)

    def cmd(self, name, **args):
        """Run a QMP command; return its result, raise Failure on error."""
        req = {'execute': name}
        if args:
            req['arguments'] = args
        self.sock.sendall(json.dumps(req).encode() + b'\n')
        while True:
            resp = self._recv()
            if 'event' in resp:
                continue
            if 'error' in resp:
                raise Failure('%s: QMP %s failed: %s'
                              % (self.name, name, resp['error']))
            return resp['return']

    def hmp(self, line):
        return self.cmd('human-monitor-command', **{'command-line': line})

    def wait_migration(self, what):
        """Poll query-migrate until it completes; fail if it fails."""
        while True:
            info = self.cmd('query-migrate')
            status = info.get('status')
            if status == 'completed':
                return info
            if status in ('failed', 'cancelled'):
                raise Failure('%s: %s %s: %s'
                              % (self.name, what, status,
                                 info.get('error-desc', info)))
            self.deadline.check('waiting for the %s on %s'
                                % (what, self.name))
            time.sleep(0.02)

    def wait_exit(self, what):
        while True:
            try:
                self.proc.wait(timeout=0.1)
                break
            except subprocess.TimeoutExpired:
                self.deadline.check('waiting for %s' % what)
        for t in self.threads:
            t.join(5)
        return self.proc.returncode

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for t in self.threads:
            t.join(5)

    def dump(self):
        if self.dumped:
            return
        self.dumped = True
        for title, data in (('serial output', self.serial),
                            ('stderr', self.stderr)):
            text = data.decode(errors='replace').replace('\r', '')
            if text:
                log('--- %s %s ---' % (self.name, title))
                sys.stdout.write(text if text.endswith('\n') else text + '\n')
        sys.stdout.flush()


def run(args, tmp):
    deadline = Deadline(args.timeout)
    stream = os.path.join(tmp, 'migration-stream')
    common = [args.qemu, '-M', 'virt', '-bios', 'none', '-display', 'none',
              '-monitor', 'none', '-no-reboot', '-icount', 'shift=0',
              '-cpu', args.cpu, '-kernel', args.elf, '-serial', 'stdio']
    qemus = []
    try:
        # Source: paused until QMP is connected, so no output is missed.
        src_qmp = os.path.join(tmp, 'source.qmp')
        src = Qemu('source', common + ['-S', '-qmp', 'unix:%s,server=on,'
                                       'wait=off' % src_qmp],
                   src_qmp, deadline)
        qemus.append(src)
        src.connect()
        src.cmd('cont')
        m = src.wait_serial(READY_RE, 'READY')
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
        if RESULT_RE.search(tail):
            raise Failure('source guest finished before it was stopped')

        src.cmd('migrate', uri='file:' + stream)
        info = src.wait_migration('outgoing migration')
        log('outgoing migration completed: %s bytes transferred'
            % info.get('ram', {}).get('transferred', '?'))
        src.cmd('quit')
        rc = src.wait_exit('the source to quit')
        if RESULT_RE.search(src.serial[m.end():]):
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
        dst = Qemu('destination',
                   common + ['-S', '-incoming', 'defer',
                             '-qmp', 'unix:%s,server=on,wait=off' % dst_qmp],
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
        if not PASS_RE.search(dst.serial):
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
    p = argparse.ArgumentParser(
        description='Migrate test-ctr-migrate in the middle of its loop.')
    p.add_argument('--cpu', default=DEFAULT_CPU,
                   help='-cpu option (default: %(default)s)')
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
    p.add_argument('qemu', metavar='QEMU', nargs='?',
                   help='qemu-system-riscv64 (default: $QTEST_QEMU_BINARY)')
    p.add_argument('elf', metavar='ELF',
                   help='a build of tests/tcg/riscv64/test-ctr-migrate.c')
    args = p.parse_args()
    if args.qemu is None:
        args.qemu = os.environ.get('QTEST_QEMU_BINARY')
        if not args.qemu:
            p.error('no QEMU binary: give it or set QTEST_QEMU_BINARY')
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
