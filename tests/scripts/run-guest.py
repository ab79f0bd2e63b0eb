#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run one bare-metal guest test and judge it by what the guest says, not
# by QEMU's exit status alone.
#
#   run-guest.py --qemu QEMU --elf ELF --cpu CPU --checks N
#                [--timeout S] [-- EXTRA QEMU ARGS...]
#
# QEMU runs as "-M virt -bios none -display none -monitor none -serial
# stdio -no-reboot -cpu CPU -kernel ELF EXTRA" (rvcfo.qemu.command).
#
# The test passes only when
#   - QEMU exits with status 0 (the virt test finisher's pass code),
#   - the guest printed the runtime's final line
#     "PASS: N checks, 0 failed, exit code 0" with exactly the expected N,
#   - and printed no "SKIP" line: a configuration that enables a feature
#     must exercise it.
# So a guest that stops early, runs fewer checks, resets (-no-reboot
# exits 0), or skips part of its work fails, and the message says what
# was expected and what the guest printed.

import subprocess
import sys

from rvcfo import cli, guest, qemu


def fail(msg, out):
    """Show the guest's output and why the test failed; returns 1."""
    sys.stdout.write(out)
    if out and not out.endswith('\n'):
        sys.stdout.write('\n')
    print('run-guest: FAIL: ' + msg)
    return 1


def main():
    """Run the guest, judge its output; returns the exit status."""
    ap = cli.parser('Run one bare-metal guest test.', elf=True, cpu=True,
                    qemu_args=True)
    ap.add_argument('--checks', type=int, required=True,
                    help='number of checks the PASS line must report')
    ap.add_argument('--timeout', type=float, default=100.0)
    args = cli.parse(ap)
    cmd = qemu.command(args.qemu, cpu=args.cpu, kernel=args.elf,
                       serial='stdio', extra=args.qemu_args)

    try:
        proc = qemu.run(cmd, args.timeout, stdin=subprocess.DEVNULL,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b'').decode('utf-8', 'replace')
        return fail('QEMU did not finish within %g s' % args.timeout, out)
    out = proc.stdout.decode('utf-8', 'replace').replace('\r\n', '\n')

    skips = guest.SKIP.findall(out)
    passes = guest.PASS.findall(out)
    if proc.returncode != 0:
        return fail('QEMU exited with status %d (expected 0)'
                    % proc.returncode, out)
    if skips:
        return fail('the guest skipped work: %s' % '; '.join(skips), out)
    if len(passes) != 1:
        return fail('expected one line "PASS: %d checks, 0 failed, exit '
                    'code 0", the guest printed %d PASS lines (stopped '
                    'early or reset?)' % (args.checks, len(passes)), out)
    if int(passes[0]) != args.checks:
        return fail('the guest ran %s checks, expected %d'
                    % (passes[0], args.checks), out)
    sys.stdout.write(out)
    print('run-guest: PASS: %d checks' % args.checks)
    return 0


if __name__ == '__main__':
    sys.exit(main())
