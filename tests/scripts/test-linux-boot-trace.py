#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Trace of a real boot: Debian's OpenSBI, traced from reset, decodes to
exactly what QEMU executed.

Usage: test-linux-boot-trace.py --linux LINUX --roundtrip ROUNDTRIP
           --qemu QEMU --decoder DECODER --elf PAYLOAD [-- ARGS]

LINUX (scripts/linux --paths) fetches the pinned packages on first use
and names the firmware: fw_dynamic.bin, which QEMU boots with -bios, and
fw_dynamic.elf, the same code linked at 0 (OpenSBI relocates itself),
which the decoder is given at 0x80000000.  ROUNDTRIP
(test-etrace-roundtrip.py) runs the machine with every extension of the
series on and trace on from reset, the reset vector, the firmware's
M-mode boot, its jump to the payload in S-mode (PAYLOAD, sbi-shutdown,
where Linux would be), the payload's SBI shutdown call and the
firmware's shutdown, and requires the decoded flow to be QEMU's own
record of it, instruction by instruction; it prints the decoder's
statistics (bits per instruction).  ARGS go to ROUNDTRIP (-smp ...).
"""

import subprocess
import sys

from rvcfo import cli


def main():
    """Ask LINUX for the firmware, run ROUNDTRIP on it."""
    ap = cli.parser(__doc__, elf=True, decoder=True, qemu_args=True)
    ap.add_argument('--linux', required=True, help='scripts/linux')
    ap.add_argument('--roundtrip', required=True,
                    help='test-etrace-roundtrip.py')
    args = cli.parse(ap)
    linux, roundtrip, qemu, decoder, payload = (
        args.linux, args.roundtrip, args.qemu, args.decoder, args.elf)
    res = subprocess.run([linux, '--paths', '--qemu', qemu],
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        sys.exit(f'{linux} --paths failed (exit {res.returncode}):\n'
                 f'{res.stderr}')
    paths = dict(line.split(' ', 1) for line in res.stdout.splitlines())
    cmd = [sys.executable, roundtrip, '--qemu', qemu, '--decoder', decoder,
           '--elf', payload, '--cpu', paths['cpu'],
           '--firmware', paths['firmware'],
           '--firmware-elf', paths['firmware-elf'] + '@0x80000000',
           '--stats', '--'] + args.qemu_args
    print(' '.join(cmd), flush=True)
    sys.exit(subprocess.run(cmd, check=False).returncode)


if __name__ == '__main__':
    main()
