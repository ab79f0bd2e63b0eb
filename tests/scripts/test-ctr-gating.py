#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CTR costs nothing in translated code while it is inactive.

Usage: test-ctr-gating.py --qemu QEMU --elf BENCH_ELF --cpu CPU
Runs the benchmark workload with "-d op" (the TCG ops of every block as
it is translated) and looks at what the control-flow event pipeline
emitted.  An event appended to the pipeline's buffer is the call of the
drain helper taken when the buffer is full, then inline stores ending
with its 32-bit info word (kind 1 = transfer, 2 = block, in bits 15:8;
ctrdata.TYPE in 7:0; flags above); a block counting retired instructions starts
with the patched addition "add_i32 tmp,$0x0,$N".  CTR never needs
block events.
  - CTR present but never enabled: no transfer, no counting, no helper
    (QEMU 10.2.2 emitted a helper call per branch and jump);
  - every type recorded (mode word 1): transfers including not-taken
    branches (type 4), and blocks count instructions (cycle counting);
  - recording without NTBREN (mode word 2): transfers, none of type 4;
  - every type with ctr-cycles=off: transfers, and no block counts
    instructions (nothing needs them).
"""

import os
import re
import sys
import tempfile

from rvcfo import cli, qemu

# A constant stored into the appended slot (not into env itself).
INFO = re.compile(r'^ st_i32 \$0x([0-9a-f]+),(?!env,)\w+,')
COUNT = re.compile(r'^ add_i32 \w+,\$0x0,\$0x[0-9a-f]+$')


def emitted(qemu_bin, elf, cpu, mode):
    """Return (transfer types appended, blocks counting instructions)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'op.log')
        res = qemu.run(qemu.command(
            qemu_bin, cpu=cpu, kernel=elf,
            extra=qemu.loader(0x80f00000, str(mode), 4), log_items='op',
            log_file=log), 300)
        if res.returncode != 0:
            sys.exit(f'guest failed in mode {mode} (exit {res.returncode})')
        types = []
        counting = 0
        drain = False
        with open(log, encoding='utf-8', errors='replace') as f:
            for line in f:
                if 'ctr_transfer' in line or 'ctr_add_entry' in line:
                    sys.exit('per-transfer helper call: ' + line)
                if COUNT.match(line):
                    counting += 1
                m = INFO.match(line)
                if 'call cf_drain' in line:
                    if drain:
                        sys.exit('two drain checks for one event')
                    drain = True
                elif m:
                    info = int(m.group(1), 16)
                    if not drain:
                        sys.exit('appended event without the drain check')
                    # flags above bit 15 (a call's x1 link, ...)
                    if (info >> 8) & 0xff != 1:
                        sys.exit(f'event of kind {(info >> 8) & 0xff}: ' +
                                 line)
                    types.append(info & 0xff)
                    drain = False
                elif line.startswith('OP:') and drain:
                    sys.exit('drain check without an appended event')
        return types, counting


def main():
    """The benchmark inactive, recording with and without NTBREN and
    without cycle counting."""
    args = cli.parse(cli.parser(__doc__, elf=True, cpu=True))
    qemu_bin, elf, cpu = args.qemu, args.elf, args.cpu
    failed = False

    types, counting = emitted(qemu_bin, elf, cpu, 0)
    print(f'inactive: {len(types)} transfers appended, '
          f'{counting} blocks counting')
    failed |= len(types) != 0 or counting != 0

    every, counting = emitted(qemu_bin, elf, cpu, 1)
    nt = every.count(4)
    print(f'recording with NTBREN: {len(every)} transfers, {nt} not-taken, '
          f'{counting} blocks counting')
    failed |= nt == 0 or len(every) == nt or counting == 0

    no_nt, counting = emitted(qemu_bin, elf, cpu, 2)
    print(f'recording without NTBREN: {len(no_nt)} transfers, '
          f'{no_nt.count(4)} not-taken')
    failed |= len(no_nt) == 0 or no_nt.count(4) != 0

    nocyc, counting = emitted(qemu_bin, elf, cpu + ',ctr-cycles=off', 1)
    print(f'recording with ctr-cycles=off: {len(nocyc)} transfers, '
          f'{counting} blocks counting')
    failed |= len(nocyc) == 0 or counting != 0

    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
