#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""QEMU's disassembler names SCTRCLR (0x10400073), not sfence.vm.

Usage: test-disas-sctrclr.py --qemu QEMU --elf ELF --cpu CPU
Runs the guest ELF (which executes SCTRCLR) with "-d in_asm" and checks
the log: SCTRCLR is the old sfence.vm encoding with rs1=0, which QEMU
10.2.2 printed as "sfence.vm zero".
"""

import os
import sys
import tempfile

from rvcfo import cli, qemu


def main():
    """Run the guest with -d in_asm; check how SCTRCLR is named."""
    args = cli.parse(cli.parser(__doc__, elf=True, cpu=True))
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'in_asm.log')
        res = qemu.run(qemu.command(args.qemu, cpu=args.cpu, kernel=args.elf,
                                    log_items='in_asm', log_file=log), 120)
        with open(log, encoding='utf-8', errors='replace') as f:
            lines = [line for line in f if '10400073' in line]
    if res.returncode != 0:
        sys.exit(f'guest failed (exit {res.returncode})')
    if not lines:
        sys.exit('no 10400073 instruction in the in_asm log')
    bad = [line for line in lines
           if 'sctrclr' not in line or 'sfence' in line]
    for line in bad:
        print('wrong disassembly: ' + line.rstrip())
    print(f'{len(lines)} SCTRCLR instructions disassembled, '
          f'{len(bad)} wrongly')
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
