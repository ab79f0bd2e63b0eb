#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A guest driver's trace in a RAM sink, decoded against QEMU's record.

Usage: test-trace-ram.py --qemu QEMU --decoder DECODER --elf ELF --checks N
                         [--data-plugin LIBMEM]

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

With --data-plugin, the encoder traces data too (data-trace=on) and
QEMU's memory plugin records every access in the same run: the accesses
etrace-decode --data reads from the RAM sink must be exactly those the
record's instructions made in the window the decoded flow covers, in
order, each at its instruction.
"""

import os
import re
import sys
import tempfile

from rvcfo import cli, qemu, roundtrip
import etrace_data

TRACE = re.compile(r'^trace: (\d+) bytes at 0x([0-9a-f]+)$', re.M)
HEX = re.compile(r'^trace-hex: ([0-9a-f]+)$', re.M)


def decode_data(args, trace):
    """etrace-decode --data --output=data's lines for @trace."""
    cmd = roundtrip.decoder_cmd(args.decoder, args.elf, [], trace, 0,
                                'rv64', 'data', data=True)
    res = qemu.run(cmd, 120, capture_output=True, text=True)
    if res.returncode != 0 or res.stderr:
        sys.exit(f'decoder failed (exit {res.returncode}):\n{res.stderr}')
    return res.stdout.splitlines()


def check_data(args, lines, want, items, accesses):
    """The decoded accesses @lines against the record's in the window
    of the decoded flow @items (one run) in the record's flow @want."""
    (at, run), = roundtrip.segments(0, want, items, True,
                                    roundtrip.loaded(args.elf))
    record = [a for k, a in accesses if at <= k < at + len(run)]
    for i, a in enumerate(record):
        kind, nbytes, addr, value, pc, _ = a
        want_line = f'0 data {etrace_data.NAMES[kind]} {nbytes} ' \
            f'addr={addr:x} value={value:x} insn={pc:x}'
        if i >= len(lines) or lines[i] != want_line:
            sys.exit(f'access {i}: decoded '
                     f'{lines[i] if i < len(lines) else "nothing"}, QEMU '
                     f'made {want_line}')
    if len(lines) != len(record):
        sys.exit(f'{len(lines)} accesses decoded, QEMU made {len(record)} '
                 f'in the window; then {lines[len(record)]}')
    if not record:
        sys.exit('no access in the window')
    return f'; {len(record)} data accesses, each QEMU\'s at its instruction'


def main():
    """Run the guest driver, decode its buffer, compare with the record."""
    ap = cli.parser(__doc__, elf=True, decoder=True)
    ap.add_argument('--checks', type=int, required=True,
                    help='number of checks the PASS line must report')
    ap.add_argument('--data-plugin', metavar='LIBMEM',
                    help="data trace on, checked against QEMU's "
                    'tests/tcg/plugins/libmem.so')
    args = cli.parse(ap)
    decoder, elf, checks = args.decoder, args.elf, args.checks
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'exec.log')
        out = os.path.join(tmp, 'serial.txt')
        trace = os.path.join(tmp, 'trace.bin')
        extra = ['-icount', 'shift=0']
        items = qemu.RECORD_ITEMS
        if args.data_plugin:
            extra += qemu.encoder('data-trace') + \
                ['-plugin', args.data_plugin + ',print-accesses=true']
            items += ',plugin'
        cmd = qemu.command(args.qemu, machine='virt,trace=on,trace-sink=ram',
                           serial=f'file:{out}', cpu='rv64', kernel=elf,
                           extra=extra, log_items=items, log_file=log)
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
        accesses = {} if args.data_plugin else None
        want, _ = roundtrip.expected(log, False, 1, accesses)
        got = roundtrip.decoded(decoder, elf, [], trace, 0, 'rv64',
                                data=bool(args.data_plugin))
        lines = decode_data(args, trace) if args.data_plugin else []
    if set(got) != {0}:
        sys.exit(f'sources decoded: {sorted(got)}')
    items, times = roundtrip.split_times(got[0])
    insns, traps = roundtrip.compare(0, want[0], items, True,
                                     roundtrip.loaded(elf))
    exact, _ = roundtrip.check_times(0, items, times)
    dmsg = ''
    if args.data_plugin:
        dmsg = check_data(args, lines, want[0], items, accesses[0])
    # the workload's ecall from U-mode and the return into M-mode
    if insns < 1000 or traps < 1:
        sys.exit(f'only {insns} instructions and {traps} traps decoded')
    print(f'{len(data)} bytes of trace in the RAM sink decode into QEMU\'s '
          f'record: {insns} instructions, {traps} traps; {exact} timestamp '
          f'differences exact{dmsg}')


if __name__ == '__main__':
    main()
