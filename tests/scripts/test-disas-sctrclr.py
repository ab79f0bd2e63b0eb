#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""QEMU's disassembler names SCTRCLR (0x10400073), not sfence.vm.

Usage: test-disas-sctrclr.py QEMU ELF CPU
Runs the guest ELF (which executes SCTRCLR) with "-d in_asm" and checks
the log: SCTRCLR is the old sfence.vm encoding with rs1=0, which QEMU
10.2.2 printed as "sfence.vm zero".
"""

import os
import subprocess
import sys
import tempfile


def main():
    qemu, elf, cpu = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'in_asm.log')
        res = subprocess.run([qemu, '-M', 'virt', '-bios', 'none',
                              '-display', 'none', '-monitor', 'none',
                              '-serial', 'null', '-no-reboot',
                              '-cpu', cpu, '-kernel', elf,
                              '-d', 'in_asm', '-D', log],
                             timeout=120, check=False)
        with open(log, encoding='utf-8', errors='replace') as f:
            lines = [l for l in f if '10400073' in l]
    if res.returncode != 0:
        sys.exit(f'guest failed (exit {res.returncode})')
    if not lines:
        sys.exit('no 10400073 instruction in the in_asm log')
    bad = [l for l in lines if 'sctrclr' not in l or 'sfence' in l]
    for l in bad:
        print('wrong disassembly: ' + l.rstrip())
    print(f'{len(lines)} SCTRCLR instructions disassembled, '
          f'{len(bad)} wrongly')
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
