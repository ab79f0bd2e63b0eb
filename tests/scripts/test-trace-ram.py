#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A guest driver's trace in a RAM sink, decoded against QEMU's record.

Usage: test-trace-ram.py --qemu QEMU --decoder DECODER --elf ELF --checks N

Runs test-trace-ram.elf (tests/tcg/riscv64/test-trace-ram.c) on
"-M virt,trace=on,trace-sink=ram": the guest sets up hart 0's encoder
and RAM sink with the register sequences of the Linux rvtrace driver,
traces a workload into a buffer of its own, checks what it can of the
buffer and prints it in hex.  The guest must pass with CHECKS checks;
the printed trace must decode (etrace-decode, with the ELF file) into
exactly what QEMU's own record (-d in_asm,exec,nochain,int) says the
hart ran from the first traced instruction on, traps included.  The
guest turns the encoder's timestamps on; under -icount shift=0 their
differences must be the instructions decoded in between
(test-etrace-roundtrip.py --timestamps).
"""

import os
import re
import sys
import tempfile

from rvcfo import cli, qemu, roundtrip

TRACE = re.compile(r'^trace: (\d+) bytes at 0x([0-9a-f]+)$', re.M)
HEX = re.compile(r'^trace-hex: ([0-9a-f]+)$', re.M)


def main():
    """Run the guest driver, decode its buffer, compare with the record."""
    ap = cli.parser(__doc__, elf=True, decoder=True)
    ap.add_argument('--checks', type=int, required=True,
                    help='number of checks the PASS line must report')
    args = cli.parse(ap)
    decoder, elf, checks = args.decoder, args.elf, args.checks
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'exec.log')
        out = os.path.join(tmp, 'serial.txt')
        trace = os.path.join(tmp, 'trace.bin')
        cmd = qemu.command(args.qemu, machine='virt,trace=on,trace-sink=ram',
                           serial=f'file:{out}', cpu='rv64', kernel=elf,
                           extra=['-icount', 'shift=0'],
                           log_items=qemu.RECORD_ITEMS, log_file=log)
        res = qemu.run(cmd, 300)
        with open(out, encoding='utf-8', errors='replace') as f:
            text = f.read()
        pass_line = f'PASS: {checks} checks, 0 failed, exit code 0'
        if res.returncode != 0 or pass_line not in text:
            sys.exit(f'guest failed (exit {res.returncode}), wanted '
                     f'"{pass_line}":\n{text}')
        m = TRACE.search(text)
        data = bytes.fromhex(''.join(HEX.findall(text)))
        if not m or int(m.group(1)) != len(data):
            sys.exit(f'the guest printed {len(data)} bytes of trace:\n{text}')
        with open(trace, 'wb') as f:
            f.write(data)
        want, _ = roundtrip.expected(log, False, 1)
        got = roundtrip.decoded(decoder, elf, [], trace, 0, 'rv64')
    if set(got) != {0}:
        sys.exit(f'sources decoded: {sorted(got)}')
    items, times = roundtrip.split_times(got[0])
    insns, traps = roundtrip.compare(0, want[0], items, True,
                                     roundtrip.loaded(elf))
    exact, _ = roundtrip.check_times(0, items, times)
    # the workload's ecall from U-mode and the return into M-mode
    if insns < 1000 or traps < 1:
        sys.exit(f'only {insns} instructions and {traps} traps decoded')
    print(f'{len(data)} bytes of trace in the RAM sink decode into QEMU\'s '
          f'record: {insns} instructions, {traps} traps; {exact} timestamp '
          'differences exact')


if __name__ == '__main__':
    main()
