#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A guest driver's trace in a RAM sink, decoded against QEMU's record.

Usage: test-trace-ram.py --qemu QEMU --decoder DECODER --elf ELF --checks N
                         [--data-plugin LIBMEM] [--code]

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

With --code, the machine has two harts (the second one parks) and writes
the code side stream (trace-code): each hart's RAM sink makes a trace of
its own, with srcID 0, so the stream's records of both harts have source
0 and only their hart field tells them apart.  The decoder must refuse
the stream without --code-hart, and with --code-hart 0 and no ELF file
decode the buffer into the record (as above).
"""

import os
import re
import subprocess
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
    ap.add_argument('--code', action='store_true',
                    help='two harts and the code side stream, decoded '
                    'with --code-hart 0 instead of the ELF file')
    args = cli.parse(ap)
    decoder, elf, checks = args.decoder, args.elf, args.checks
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'exec.log')
        out = os.path.join(tmp, 'serial.txt')
        trace = os.path.join(tmp, 'trace.bin')
        extra = ['-icount', 'shift=0']
        machine = 'virt,trace=on,trace-sink=ram'
        harts = 1
        code = os.path.join(tmp, 'code.bin')
        if args.code:
            # one host thread: the record says which hart ran a block
            harts = 2
            machine += ',trace-code=tcode'
            extra += ['-smp', '2', '-accel', 'tcg,thread=single',
                      '-chardev', f'file,id=tcode,path={code}']
        items = qemu.RECORD_ITEMS
        if args.data_plugin:
            extra += qemu.encoder('data-trace') + \
                ['-plugin', args.data_plugin + ',print-accesses=true']
            items += ',plugin'
        cmd = qemu.command(args.qemu, machine=machine,
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
        want, _ = roundtrip.expected(log, False, harts, accesses)
        if args.code:
            res = subprocess.run([decoder, '--code', code, trace],
                                 capture_output=True, text=True, check=False)
            if res.returncode != 2 or '--code-hart' not in res.stderr:
                sys.exit(f'--code without --code-hart: exit '
                         f'{res.returncode}, {res.stderr!r}; the two harts\' '
                         f'records must share source 0')
            got = roundtrip.decoded(decoder, None,
                                    ['--code', code, '--code-hart', '0'],
                                    trace, 0, 'rv64')
        else:
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
    how = ' (from the code side stream, --code-hart 0)' if args.code else ''
    print(f'{len(data)} bytes of trace in the RAM sink decode{how} into '
          f'QEMU\'s record: {insns} instructions, {traps} traps; {exact} '
          f'timestamp differences exact{dmsg}')


if __name__ == '__main__':
    main()
