#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A seeded random register campaign on the trace components (TAP).

Runs tests/tcg/riscv64/test-trace-fuzz.elf, whose harts all write random
values to the registers of the trace encoders, funnel, PIB sink and RAM
sinks they own, point the RAM sinks' buffers at an arena with canary
zones, at trace components' registers and at unassigned addresses, and
check at the end that no canary word, none of the guest's code and no
stack guard changed (see the comment at the top of test-trace-fuzz.c).
Each configuration of the matrix (topology pib with 1, 2, 4 harts; ram
with 1, 2, 4; ram with sram-size=256 with 1, 2; funnel-ram with 2, 4) is
one run per seed, under glibc's heap checks (heapcheck.py) so that glibc
aborts on heap corruption it notices.  A run fails when QEMU is
killed by a signal or exits with a status other than 0, when it runs out
of time, when the guest prints a FAIL line or not its PASS line with the
number of checks it must run (5 + harts).

With the default 400000 iterations per hart the whole matrix takes about
65-70 s on a 2-core machine (measured: 3.5-5 s for one hart, 7-9.5 s for
two or four harts under multi-threaded TCG).

Usage: test-trace-fuzz.py --qemu QEMU --elf ELF [--seed N ...]
                          [--iterations N] [--timeout S] [--only NAME]
"""

import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time

from rvcfo import cli, heapcheck, qemu, tap
from rvcfo.qmp import describe_status

CONFIG_ADDR = 0x80fff000
CONFIG_MAGIC = 0x5446555a
TOPOLOGIES = {'pib': 0, 'ram': 1, 'funnel-ram': 2}

# name, topology, harts, RAM sinks with 256 bytes of SRAM
MATRIX = [
    ('pib-1', 'pib', 1, False),
    ('pib-2', 'pib', 2, False),
    ('pib-4', 'pib', 4, False),
    ('ram-1', 'ram', 1, False),
    ('ram-2', 'ram', 2, False),
    ('ram-4', 'ram', 4, False),
    ('ram-sram-1', 'ram', 1, True),
    ('ram-sram-2', 'ram', 2, True),
    ('funnel-ram-2', 'funnel-ram', 2, False),
    ('funnel-ram-4', 'funnel-ram', 4, False),
]

TAIL = 30


def config_words(seed, iterations, topology, harts, sram):
    """The two words test-trace-fuzz.c reads at 0x80fff000."""
    w0 = CONFIG_MAGIC << 32 | (seed & 0xffffffff)
    w1 = (iterations & 0xffffffff) | harts << 32 | \
        TOPOLOGIES[topology] << 36 | int(sram) << 40
    return w0, w1


def command(args, topology, harts, sram, seed, serial):
    """The QEMU command line of one run."""
    machine = 'virt,trace=on'
    extra = []
    if topology == 'pib':
        machine += ',trace-chardev=tr'
        extra += ['-chardev', 'null,id=tr']
    else:
        machine += ',trace-sink=' + topology
    if sram:
        extra += ['-global', 'riscv-trace-ram-sink.sram-size=256']
    if harts > 1:
        extra += ['-accel', 'tcg,thread=multi']
    w0, w1 = config_words(seed, args.iterations, topology, harts, sram)
    return qemu.command(args.qemu, machine=machine, serial=serial,
                        smp=harts, kernel=args.elf,
                        extra=qemu.loader(CONFIG_ADDR, w0, 8) +
                        qemu.loader(CONFIG_ADDR + 8, w1, 8) + extra)


def run_one(args, name, topology, harts, sram, seed, tmpdir):
    """Run one configuration; returns (ok, diagnostic lines, seconds)."""
    serial_path = os.path.join(tmpdir, f'{name}-{seed}.serial')
    cmd = command(args, topology, harts, sram, seed, 'file:' + serial_path)
    env = heapcheck.env(os.environ)
    problems = []
    start = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        problems.append(f'timeout after {args.timeout} s')
    elapsed = time.monotonic() - start
    if not problems and proc.returncode != 0:
        problems.append('QEMU ended with '
                        + describe_status(proc.returncode))
    try:
        with open(serial_path, encoding='utf-8', errors='replace') as f:
            serial = f.read().splitlines()
    except FileNotFoundError:
        serial = []
    checks = 5 + harts
    want = f'PASS: {checks} checks, 0 failed, exit code 0'
    fails = [line for line in serial if line.startswith('FAIL')]
    if fails:
        problems.append(f'{len(fails)} FAIL line(s): {fails[0]}')
    if want not in serial:
        problems.append(f'no "{want}" line')
    if not problems:
        return True, [], elapsed

    diag = problems[:]
    diag.append(f'serial output (last {TAIL} lines):')
    diag += ['  ' + line for line in serial[-TAIL:]] or ['  (none)']
    stderr = (err.decode(errors='replace') +
              out.decode(errors='replace')).splitlines()
    diag.append(f'QEMU stderr (last {TAIL} lines):')
    diag += ['  ' + line for line in stderr[-TAIL:]] or ['  (none)']
    repro = command(args, topology, harts, sram, seed, 'stdio')
    heap = ' '.join(f'{k}={v}' for k, v in heapcheck.VARS.items())
    diag.append(f'reproduce: {heap} {shlex.join(repro)}')
    return False, diag, elapsed


def main():
    parser = cli.parser(__doc__, elf=True)
    parser.add_argument('--seed', type=lambda s: int(s, 0), action='append',
                        help='seed (32 bits; repeat for several; default 1)')
    parser.add_argument('--iterations', type=lambda s: int(s, 0),
                        default=400000, help='iterations per hart')
    parser.add_argument('--timeout', type=float, default=120,
                        help='seconds per run')
    parser.add_argument('--only', action='append',
                        help='run this configuration only (repeatable): '
                             + ', '.join(m[0] for m in MATRIX))
    args = cli.parse(parser)
    seeds = args.seed or [1]
    matrix = MATRIX
    if args.only:
        unknown = set(args.only) - {m[0] for m in MATRIX}
        if unknown:
            parser.error('unknown configuration: '
                         + ', '.join(sorted(unknown)))
        matrix = [m for m in MATRIX if m[0] in args.only]
    if not 0 < args.iterations < 1 << 32:
        parser.error('--iterations must be from 1 to 2^32 - 1')

    runs = [(m, seed) for seed in seeds for m in matrix]
    results = tap.Tap(plan=len(runs))
    total = time.monotonic()
    with tempfile.TemporaryDirectory(prefix='trace-fuzz-') as tmpdir:
        for (name, topology, harts, sram), seed in runs:
            ok, diag, elapsed = run_one(args, name, topology, harts, sram,
                                        seed, tmpdir)
            results.check(ok, f'{name} seed {seed}',
                          notes=[f'{elapsed:.1f} s'] + diag)
    results.comment(f'{len(runs) - results.failed} passed, '
                    f'{results.failed} failed in '
                    f'{time.monotonic() - total:.0f} s')
    sys.exit(results.done())


if __name__ == '__main__':
    main()
