#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""etrace-decode's outputs read live from a running QEMU.

Usage: test-etrace-live.py --qemu QEMU --decoder DECODER --elf ELF

ELF (test-cover.c: calls, loops, timer interrupts) runs traced into a
Unix socket this script listens on, as the documentation's example does
with socat: the bytes go, as they come, to one decoder per output
reading its standard input (a pipe), and to a file.  Each output read
live must be the same as the output of the file decoded afterwards
(uftrace: every file of the directory).

Then the outputs that stream (addrs, flow, chrome, uftrace) must be
written as the decoder goes: the file's first half goes into a pipe
that stays open; before the second half comes, the decoder must have
written all that the first half holds (as many addresses, flow lines,
Chrome frames entered, uftrace entry records as the first half decoded
alone gives), and at the end, the same as from the file.
"""

import os
import socket
import subprocess
import sys
import tempfile
import time

from rvcfo import cli, qemu

OUTPUTS = ['addrs', 'flow', 'stats', 'folded', 'chrome', 'uftrace',
           'callgrind', 'lcov', 'coverage']
STREAMING = ['addrs', 'flow', 'chrome', 'uftrace']


def command(args, output, out, stream='-'):
    extra = ['--dir', out + '.d'] if output == 'uftrace' else []
    return [args.decoder, '-q', f'--output={output}', *extra, '--elf',
            args.elf, stream]


def result(output, out):
    """What a decoder wrote: its output, or the uftrace directory's
    files."""
    if output == 'uftrace':
        d = out + '.d'
        files = {}
        for name in sorted(os.listdir(d)):
            with open(os.path.join(d, name), 'rb') as f:
                files[name] = f.read()
        return files
    with open(out, 'rb') as f:
        return f.read()


def live(args, tmp):
    """One traced run into a socket, fed to a decoder per output."""
    path = os.path.join(tmp, 'trace.sock')
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    decoders = {}
    for output in OUTPUTS:
        out = os.path.join(tmp, f'live-{output}')
        with open(out, 'wb') as f:
            decoders[output] = subprocess.Popen(
                command(args, output, out), stdin=subprocess.PIPE, stdout=f,
                stderr=subprocess.PIPE)
    cmd = qemu.command(args.qemu, machine=qemu.TRACED, cpu='rv64',
                       kernel=args.elf,
                       chardev=['-chardev', f'socket,id=tr,path={path}'])
    guest = subprocess.Popen(cmd)
    srv.settimeout(60)
    conn, _ = srv.accept()
    trace = os.path.join(tmp, 'trace.bin')
    size = 0
    with open(trace, 'wb') as f:
        while True:
            data = conn.recv(1 << 16)
            if not data:
                break
            size += len(data)
            f.write(data)
            for d in decoders.values():
                d.stdin.write(data)
    conn.close()
    if guest.wait(60) != 0:
        sys.exit(f'guest failed: {cmd}')
    for output, d in decoders.items():
        d.stdin.close()
        if d.wait(60) != 0:
            sys.exit(f'live {output}: exit {d.returncode}: '
                     f'{d.stderr.read().decode()}')
    return trace, size


def check_same(args, tmp, trace):
    for output in OUTPUTS:
        out = os.path.join(tmp, f'file-{output}')
        with open(out, 'wb') as f:
            subprocess.run(command(args, output, out, trace), stdout=f,
                           check=True)
        a = result(output, os.path.join(tmp, f'live-{output}'))
        b = result(output, out)
        if a != b or not b:
            sys.exit(f'--output={output}: read live, not what the file '
                     'gives')


def entered(output, out):
    """What the output on disk says of the instructions decoded so far:
    addresses, flow lines but gaps (the end of a stream is one), Chrome
    frames entered, uftrace entry records (type 0)."""
    if output == 'uftrace':
        d = out + '.d'
        n = 0
        for name in os.listdir(d) if os.path.isdir(d) else []:
            if name.endswith('.dat'):
                with open(os.path.join(d, name), 'rb') as f:
                    data = f.read()
                n += sum(1 for k in range(8, len(data) - 7, 16)
                         if data[k] & 3 == 0)
        return n
    with open(out, 'rb') as f:
        text = f.read().decode()
    if output == 'chrome':
        return text.count('"ph":"B"')
    return sum(1 for line in text.splitlines() if ' gap ' not in line)


def check_streaming(args, tmp, trace):
    with open(trace, 'rb') as f:
        data = f.read()
    half = len(data) // 2
    first = os.path.join(tmp, 'first-half.bin')
    with open(first, 'wb') as f:
        f.write(data[:half])
    for output in STREAMING:
        # the first half alone, to its end: what it holds (exit 1 when
        # the cut is in the middle of a packet: an error of its stream)
        alone = os.path.join(tmp, f'alone-{output}')
        with open(alone, 'wb') as f:
            res = subprocess.run(command(args, output, alone, first),
                                 stdout=f, stderr=subprocess.PIPE,
                                 check=False)
        if res.returncode not in (0, 1):
            sys.exit(f'--output={output} of the first half: exit '
                     f'{res.returncode}: {res.stderr.decode()}')
        least = entered(output, alone)
        out = os.path.join(tmp, f'stream-{output}')
        with open(out, 'wb') as f:
            d = subprocess.Popen(command(args, output, out),
                                 stdin=subprocess.PIPE, stdout=f,
                                 stderr=subprocess.PIPE)
        d.stdin.write(data[:half])
        d.stdin.flush()
        deadline = time.monotonic() + 30
        while entered(output, out) < least and time.monotonic() < deadline:
            time.sleep(0.05)
        early = entered(output, out)
        if early != least or d.poll() is not None:
            sys.exit(f'--output={output}: {early} of the {least} '
                     'instructions, frames or records of the first half out '
                     'while the decoder waits for the rest')
        d.stdin.write(data[half:])
        d.stdin.close()
        if d.wait(60) != 0:
            sys.exit(f'--output={output}: exit {d.returncode}')
        if result(output, out) != \
                result(output, os.path.join(tmp, f'file-{output}')):
            sys.exit(f'--output={output}: fed in two halves, not what the '
                     'file gives')
        print(f'--output={output}: the {early} instructions, frames or '
              'records of the first half out before the rest came')


def main():
    ap = cli.parser(__doc__, elf=True, decoder=True)
    args = cli.parse(ap)
    with tempfile.TemporaryDirectory(prefix='etrace-live-') as tmp:
        trace, size = live(args, tmp)
        check_same(args, tmp, trace)
        print(f'{size} bytes from a socket: {len(OUTPUTS)} outputs read live '
              'as from the file')
        check_streaming(args, tmp, trace)
    return 0


if __name__ == '__main__':
    sys.exit(main())
