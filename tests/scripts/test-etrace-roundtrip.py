#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Round trip: a guest's E-Trace decoded against QEMU's own record.

Usage: test-etrace-roundtrip.py --qemu QEMU --decoder DECODER --elf ELF
                                --cpu CPU [--gaps] [--slow-reader]
                                [--timestamps]
                                [--firmware FW --firmware-elf FW.elf[@OFF]]
                                [--stats] [-- QEMU ARGUMENTS...]

Runs the guest once with "-M virt,trace=on,trace-start=on" writing the
trace to a file and, in the same run, QEMU's own record of what it
executed (-d in_asm,exec,nochain,int; see rvcfo/record.py).  Decodes the
trace with etrace-decode --output=flow, given the ELF file and the
reset vector's code (QEMU's ROM at 0x1000, taken from QEMU's listing of
it), and requires the decoded flow to be the record's: the same
instruction addresses in the same order, each in the same privilege
mode, and the same traps (cause; for exceptions EPC and tval) at the
same places.  With several harts (-smp N, -accel tcg,thread=single) each
hart's flow is compared with its own part of the record.  The end of the
run (the finisher's spin loop, whose last rounds the encoder may not
have reported when QEMU exits) is allowed to be missing from the trace,
up to TAIL instructions besides the repeats of a jump to itself.

A gap where the flow left the program images (code the guest writes into
RAM as it runs, test-robust) must leave out only instructions no ELF
segment holds, and the decoded flow must go on exactly where QEMU's
does.  With --gaps, the guest stops and restarts tracing itself: each
run of the decoded flow between other gaps must then be what QEMU ran
from the next place it ran the run's first instruction on.  With
--slow-reader the trace goes through a FIFO read slowly and a small PIB
sink queue: packets must be lost, the decoder must read the stream
without error and show the losses as gaps, and each run between them
must be exact in the same way.  With --timestamps the packets carry
the encoder's timestamps (riscv-trace-encoder.timestamps=on) under
-icount shift=0,sleep=off, where the hart's clock advances one tick per
instruction: between two instructions the decoder gives times for, the
difference of the times must be the number of instructions decoded in
between (the later one included); an instruction that traps without
retiring takes a tick or not as QEMU raises its exception (ecall and an
illegal encoding found when translating do, a fault that unwinds its
block does not), so across such traps the difference may exceed the
count by up to their number.  A second run without the record must give
the same decoded flow with the same times.  With --firmware the machine
boots FW (-bios) and ELF is its payload (-kernel); the decoder has both
images, the firmware's as FW.elf loaded at OFF (OpenSBI's ELF is linked
at 0 and its binary runs where QEMU loads it).  --stats prints the
decoder's statistics of the trace (packets, bytes, bits per
instruction).
"""

import subprocess
import sys
import tempfile

from rvcfo import cli, record
from rvcfo.roundtrip import (TAIL, check_times, compare, decoded,
                             decoder_cmd, expected, loaded, protocol_of,
                             rom_image, split_times)


def main():
    """Trace, record, decode and compare; exits non-zero on a failure."""
    ap = cli.parser(__doc__, elf=True, cpu=True, decoder=True,
                    qemu_args=True)
    ap.add_argument('--gaps', action='store_true',
                    help='the guest stops and restarts tracing itself')
    ap.add_argument('--slow-reader', action='store_true',
                    help='a slow reader and a small PIB sink queue: '
                    'packets are lost')
    ap.add_argument('--timestamps', action='store_true',
                    help='timestamps in the packets, under -icount')
    ap.add_argument('--firmware', help='boot this firmware (-bios)')
    ap.add_argument('--firmware-elf', metavar='FW.elf[@OFF]',
                    help='the firmware\'s ELF for the decoder')
    ap.add_argument('--stats', action='store_true',
                    help='print the decoder\'s statistics')
    args = cli.parse(ap)
    qemu, decoder, elf, cpu = args.qemu, args.decoder, args.elf, args.cpu
    extra = list(args.qemu_args)
    allow_gaps = args.gaps
    timed = args.timestamps
    if timed:
        extra += ['-global', 'riscv-trace-encoder.timestamps=on']
        # no virtual time passing while the hart does not run
        if '-icount' in extra:
            extra[extra.index('-icount') + 1] = 'shift=0,sleep=off'
        else:
            extra += ['-icount', 'shift=0,sleep=off']
    firmware = []
    if args.firmware:
        extra += ['-bios', args.firmware]
        firmware = [args.firmware_elf]
    want_stats = args.stats
    stats = []
    slow = args.slow_reader
    if slow:
        # packets lost: gaps, each followed by a synchronisation
        allow_gaps = True
    harts = 1
    if '-smp' in extra:
        harts = int(extra[extra.index('-smp') + 1])
    srcid_bits = 8 if harts > 1 else 0
    protocol = protocol_of(extra)
    with tempfile.TemporaryDirectory() as tmp:
        log, trace = record.run_traced(qemu, elf, cpu, extra, tmp, slow)
        want, code = expected(log, cpu.startswith('rv32'), harts)
        rom, images = rom_image(code, tmp)
        for fw in firmware:
            rom += ['--elf', fw]
        got = decoded(decoder, elf, rom, trace, srcid_bits, cpu, protocol)
        if want_stats:
            res = subprocess.run(decoder_cmd(decoder, elf, rom, trace,
                                             srcid_bits, cpu, 'stats',
                                             protocol),
                                 capture_output=True, text=True,
                                 check=False)
            if res.returncode != 0:
                sys.exit(f'decoder statistics failed: {res.stderr}')
            stats = res.stdout.splitlines()
        if timed:
            # deterministic: the same flow and times in another run, but
            # for the end (the finisher's spin runs as long as it runs)
            again = decoded(decoder, elf, rom,
                            record.run_plain(qemu, elf, cpu, extra, tmp),
                            srcid_bits, cpu, protocol)
            for hart in sorted(got):
                other = again.get(hart, [])
                n = min(len(got[hart]), len(other)) - TAIL
                first = next((k for k, (g, h) in
                              enumerate(zip(got[hart][:n], other[:n]))
                              if g != h), None)
                if first is not None:
                    sys.exit(f'hart {hart}: another run decodes to '
                             f'{again[hart][first]} at item {first}, not '
                             f'{got[hart][first]}')
    lost = sum(g.count('gap trace lost') for g in got.values())
    if slow and not lost:
        sys.exit('a slow reader, and no packet was lost')
    images += loaded(elf)
    for fw in firmware:
        path, _, off = fw.partition('@')
        off = int(off, 0) if off else 0
        images += [(lo + off, hi + off) for lo, hi in loaded(path)]
    if set(got) - set(want):
        sys.exit(f'sources decoded {sorted(got)}, harts {sorted(want)}')
    summary = []
    for hart in sorted(want):
        # a hart QEMU stopped before it retired much may have no packets
        items, times = split_times(got.get(hart, []))
        if timed and not times:
            sys.exit(f'hart {hart}: no timestamps')
        if times and not timed:
            sys.exit(f'hart {hart}: timestamps, and none were asked for')
        insns, traps = compare(hart, want[hart], items, allow_gaps, images)
        summary.append(f'hart {hart}: {insns} instructions, {traps} traps')
        if timed:
            exact, bounded = check_times(hart, items, times)
            summary.append(f'{exact} timestamp differences exact, '
                           f'{bounded} across exceptions within bounds')
    if lost:
        summary.append(f'{lost} gaps where packets were lost')
    print('decoded flow equals QEMU\'s record: ' + '; '.join(summary))
    for line in stats:
        print(line)


if __name__ == '__main__':
    main()
