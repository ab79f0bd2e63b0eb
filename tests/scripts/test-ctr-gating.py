#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CTR costs nothing in translated code while it is inactive.

Usage: test-ctr-gating.py QEMU BENCH_ELF CPU
Runs the benchmark workload with "-d op" (the TCG ops of every block as
it is translated) and counts the calls of the CTR helper:
  - CTR present but never enabled: no call at all (QEMU 10.2.2 emitted
    one per branch and jump);
  - every type recorded (mode word 1): calls, including not-taken
    branches (type 4);
  - recording without NTBREN (mode word 2): calls, none of type 4.
"""

import os
import re
import subprocess
import sys
import tempfile

CALL = re.compile(r'call ctr_transfer,.*,\$(0x[0-9a-f]+)\s*$')


def helper_types(qemu, elf, cpu, mode):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'op.log')
        res = subprocess.run([qemu, '-M', 'virt', '-bios', 'none',
                              '-display', 'none', '-monitor', 'none',
                              '-serial', 'null', '-no-reboot',
                              '-cpu', cpu, '-kernel', elf, '-device',
                              f'loader,addr=0x80f00000,data={mode},'
                              'data-len=4', '-d', 'op', '-D', log],
                             timeout=300, check=False)
        if res.returncode != 0:
            sys.exit(f'guest failed in mode {mode} (exit {res.returncode})')
        types = []
        with open(log, encoding='utf-8', errors='replace') as f:
            for line in f:
                if 'call ctr_add_entry' in line:
                    # QEMU 10.2.2's helper: a call per branch and jump.
                    types.append(-1)
                elif 'ctr_transfer' in line:
                    m = CALL.search(line)
                    if not m:
                        sys.exit('unexpected helper call syntax: ' + line)
                    types.append(int(m.group(1), 16))
        return types


def main():
    qemu, elf, cpu = sys.argv[1:4]
    failed = False

    inactive = helper_types(qemu, elf, cpu, 0)
    print(f'inactive: {len(inactive)} helper calls translated')
    failed |= len(inactive) != 0

    every = helper_types(qemu, elf, cpu, 1)
    nt = every.count(4)
    print(f'recording with NTBREN: {len(every)} calls, {nt} not-taken')
    failed |= nt == 0 or len(every) == nt

    no_nt = helper_types(qemu, elf, cpu, 2)
    print(f'recording without NTBREN: {len(no_nt)} calls, '
          f'{no_nt.count(4)} not-taken')
    failed |= len(no_nt) == 0 or no_nt.count(4) != 0

    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
