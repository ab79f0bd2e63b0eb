# SPDX-License-Identifier: GPL-2.0-or-later
"""A QEMU process driven through QMP, with its serial output and stderr.

    deadline = qmp.Deadline(60)
    vm = qmp.Machine('source', qemu.command(..., stopped=True,
                                            qmp=sock), sock, deadline)
    vm.connect()
    vm.cmd('cont')
    vm.wait_serial(READY_RE, 'READY')
    vm.cmd('migrate', uri='file:' + path)
    vm.wait_migration('outgoing migration')
    vm.quit()

Our own small client (JSON lines over a Unix socket, synchronous, every
wait bounded by one Deadline) rather than QEMU's python/qemu: that one
needs the prepared tree on the path and runs QMP on asyncio, while the
drivers only send a few commands and read the serial output at the same
time (docs/testing.md).  Errors raise Failure.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time


class Failure(Exception):
    """A QEMU, QMP or guest failure the driver reports."""


class Deadline:
    """A time limit shared by several waits."""

    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def left(self):
        """Seconds left (negative once passed)."""
        return self.end - time.monotonic()

    def check(self, what):
        """Raise Failure when the time is up."""
        if self.left() <= 0:
            raise Failure('timed out ' + what)


def describe_status(rc):
    """An exit status in words: running, exit status N or signal NAME."""
    if rc is None:
        return 'running'
    if rc < 0:
        try:
            return 'signal %s' % signal.Signals(-rc).name
        except ValueError:
            return 'signal %d' % -rc
    return 'exit status %d' % rc


class Machine:
    """A QEMU process with a QMP socket at @qmp_path.

    Its stdout (the serial console with -serial stdio) collects in
    .serial, its stderr in .errors (bytes), both read by threads.
    """

    def __init__(self, name, argv, qmp_path, deadline, env=None,
                 verbose=True):
        self.name = name
        self.argv = argv
        self.qmp_path = qmp_path
        self.deadline = deadline
        self.serial = b''
        self.errors = b''
        self.cond = threading.Condition()
        self.sock = None
        self.rbuf = b''
        self.dumped = False
        if verbose:
            self.log('%s: %s' % (name, ' '.join(argv)))
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.threads = [
            threading.Thread(target=self._reader,
                             args=(self.proc.stdout, 'serial'), daemon=True),
            threading.Thread(target=self._reader,
                             args=(self.proc.stderr, 'errors'), daemon=True),
        ]
        for t in self.threads:
            t.start()

    @staticmethod
    def log(msg):
        """A line of the driver's log."""
        print(msg, flush=True)

    def _reader(self, pipe, attr):
        while True:
            data = os.read(pipe.fileno(), 65536)
            with self.cond:
                if not data:
                    self.cond.notify_all()
                    return
                setattr(self, attr, getattr(self, attr) + data)
                self.cond.notify_all()

    def status(self):
        """The process's state in words."""
        return describe_status(self.proc.poll())

    def stderr_text(self):
        """What QEMU wrote to stderr so far."""
        with self.cond:
            return self.errors.decode(errors='replace')

    def wait_serial(self, regex, what):
        """Wait until @regex matches the serial output; return the match."""
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
        """Connect to the QMP socket and negotiate capabilities."""
        while True:
            if self.proc.poll() is not None:
                raise Failure('%s: QEMU exited (%s) before QMP was up'
                              % (self.name, self.status()))
            self.deadline.check('connecting to the QMP socket of '
                                + self.name)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
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
                why = 'connection closed'
            except socket.timeout:
                raise Failure('%s: timed out waiting for QMP' % self.name)
            except OSError as e:
                data, why = b'', str(e)
            if not data:
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    pass
                raise Failure('%s: QMP %s, QEMU %s'
                              % (self.name, why, self.status()))
            self.rbuf += data
        line, self.rbuf = self.rbuf.split(b'\n', 1)
        return json.loads(line)

    def cmd(self, name, **args):
        """Run a QMP command; return its result, raise Failure on error."""
        req = {'execute': name}
        if args:
            req['arguments'] = args
        try:
            self.sock.sendall(json.dumps(req).encode() + b'\n')
        except OSError as e:
            raise Failure('%s: QMP %s: %s, QEMU %s'
                          % (self.name, name, e, self.status()))
        while True:
            resp = self._recv()
            if 'event' in resp:
                continue
            if 'error' in resp:
                raise Failure('%s: QMP %s failed: %s'
                              % (self.name, name, resp['error']['desc']))
            return resp['return']

    def hmp(self, line):
        """A human monitor command; returns its text."""
        return self.cmd('human-monitor-command', **{'command-line': line})

    def wait_migration(self, what, fail=True):
        """Poll query-migrate until it ends; return its last answer.
        With @fail, a failed or cancelled migration raises Failure."""
        while True:
            info = self.cmd('query-migrate')
            status = info.get('status')
            if status == 'completed':
                return info
            if status in ('failed', 'cancelled'):
                if not fail:
                    return info
                raise Failure('%s: %s %s: %s'
                              % (self.name, what, status,
                                 info.get('error-desc', info)))
            self.deadline.check('waiting for the %s on %s (%s)'
                                % (what, self.name, status))
            time.sleep(0.02)

    def wait_exit(self, what):
        """Wait for QEMU to end; return its exit status."""
        while True:
            try:
                self.proc.wait(timeout=0.1)
                break
            except subprocess.TimeoutExpired:
                self.deadline.check('waiting for %s' % what)
        for t in self.threads:
            t.join(5)
        return self.proc.returncode

    def quit(self):
        """QMP quit; QEMU must then exit with status 0."""
        try:
            self.cmd('quit')
        except Failure:
            pass
        try:
            self.proc.wait(max(self.deadline.left(), 1))
        except subprocess.TimeoutExpired:
            pass
        self.kill()
        if self.proc.returncode != 0:
            raise Failure('%s: QEMU ended with %s'
                          % (self.name, self.status()))

    def close(self):
        """Close the QMP connection and kill QEMU if it still runs."""
        if self.sock:
            self.sock.close()
            self.sock = None
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for t in self.threads:
            t.join(5)

    kill = close

    def dump(self):
        """Show the serial output and stderr once (after a failure)."""
        if self.dumped:
            return
        self.dumped = True
        for title, data in (('serial output', self.serial),
                            ('stderr', self.errors)):
            text = data.decode(errors='replace').replace('\r', '')
            if text:
                self.log('--- %s %s ---' % (self.name, title))
                sys.stdout.write(text if text.endswith('\n') else text + '\n')
        sys.stdout.flush()
