#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Round trip: a guest's E-Trace decoded against QEMU's own record.

Usage: test-etrace-roundtrip.py --qemu QEMU --decoder DECODER --elf ELF
                                --cpu CPU [--gaps] [--slow-reader]
                                [--timestamps] [--ts-prescale P]
                                [--chained]
                                [--expect-format0]
                                [--firmware FW --firmware-elf FW.elf[@OFF]]
                                [--stats] [--code]
                                [--context] [--expect-contexts LIST]
                                [--context-image CTX=START,END@VA]...
                                [-- QEMU ARGUMENTS...]

Runs the guest once with "-M virt,trace=on,trace-start=on" writing the
trace to a file and, in the same run, QEMU's own record of what it
executed (-d in_asm,exec,nochain,int; see rvcfo/record.py).  Decodes the
trace with etrace-decode --output=flow, given the ELF file and the
reset vector's code (QEMU's ROM at 0x1000, taken from QEMU's listing of
it), and requires the decoded flow to be the record's: the same
instruction addresses in the same order, each in the same privilege
mode, and the same traps (cause; for exceptions EPC and tval) at the
same places.  With several harts (-smp N, -accel tcg,thread=single) each
hart's flow is compared with its own part of the record, and every hart
of the record must decode.  The flow must reach the record's last
instruction and end with the end of the trace (the support packet QEMU's
stop sends); only the rounds of a final loop without a branch or an
uninferable jump (the finisher's "j ." or "wfi; j") may be fewer, as no
packet counts them.  The stream's first packet of each hart must be a
support packet with the options asked for (-global
riscv-trace-encoder.OPTION=on), its last the one that ends the trace.
With --expect-format0, the format 0.0 packets branch prediction makes due
and the jump target cache hits, worked out from the record from reset to
the ELF symbol etrace_format0_end (rvcfo/streamcheck.py), must be the
stream's first ones; without those options the stream must have none.
With --chained the guest runs a second time without the record, its
translation blocks chained as usual, and that run's trace must pass the
same checks.

With --code the run also writes the code side stream (virt's
trace-code option) and the decoder gets it instead of the ELF file and
the reset vector's code (--code): the code QEMU translated must be all
the decoder needs, code the guest writes into RAM and changes as it runs
included, and the decoded flow must be the record's without a gap.

With --context the encoder reports the hart's context (its property
context=on: the ASID of satp, and with V = 1 the VMID of hgatp above
it) and the decoder reads the field (context_width_p=30); with
--expect-contexts, the packets that carry a context must be exactly
LIST: "SUBFORMAT:PRIVILEGE:CONTEXT,..." (hex), worked out from the
guest's design.  With --context-image (which implies --context) the
decoder reads the bytes
of the ELF file between symbols START and END as the code at VA of
context CTX only (--context-bin, with context_width_p=30; with --code,
after the code side stream): programs the
guest copies to one virtual address in address spaces of their own each
decode as themselves, without a gap, and the contexts the decoded flow
goes through must be the CTX values of the images in the order given,
the whole list repeated as many times as the guest switches through
them (the guest's design, not the encoder's output, says which).  The
packets that carry a context must be, in order: the first format 3.0 in
context 0, then for each switch a format 3.2 (M mode), the program's
format 3.0 (U mode) and the format 3.1 of its ecall (M mode), each with
the program's context: test-code.S's part 3 (-DUSER_ONLY) is the guest.
With --expect-contexts these two checks give way to its list.

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
count by up to their number.  A second run without the record (as with
--chained) must give the same decoded flow with the same times.  With
--ts-prescale P, the guest sets trTsPrescale to P with the store at its
ELF symbol etrace_ts_store, and every timestamp must have its absolute
value: the instructions from reset up to the one it follows, counted
4^P times slower after the store (rvcfo/roundtrip.py,
check_prescaled()).  With
--firmware the machine boots FW (-bios) and ELF is its payload
(-kernel); the decoder has both
images, the firmware's as FW.elf loaded at OFF (OpenSBI's ELF is linked
at 0 and its binary runs where QEMU loads it).  --stats prints the
decoder's statistics of the trace (packets, bytes, bits per
instruction).
"""

import collections
import struct
import subprocess
import sys
import tempfile

from rvcfo import cli, record, streamcheck
from rvcfo.roundtrip import (ElfCode, check_prescaled, check_times,
                             compare, data_traced, decoded, decoder_cmd,
                             expected, final_loop, loaded, protocol_of,
                             rom_image, split_times)

# The timestamp field of the encapsulation: 6 bytes (T, a constant of
# the system, docs/specs/riscv-trace.rst)
TIMESTAMP_BYTES = 6
# The encoder's context field with context=on: ASID in bits 15:0, VMID
# in 29:16 (docs/specs/riscv-trace.rst)
CONTEXT_WIDTH = 30


def code_harts(path):
    """How many records of the code side stream at @path have each
    (srcID, hart): their headers, read from include/hw/riscv/trace-code.h
    (an 8-byte magic, then per record kind, privilege, src, payload
    length, pos, branches, hart)."""
    with open(path, 'rb') as f:
        data = f.read()
    out = collections.Counter()
    at = 8
    while at + 24 <= len(data):
        _, _, src, length, _, _, hart = struct.unpack_from('<BBHIQII', data,
                                                           at)
        out[(src, hart)] += 1
        at += 24 + length
    return out


def main():
    """Trace, record, decode and compare; exits non-zero on a failure."""
    ap = cli.parser(__doc__, elf=True, cpu=True, decoder=True,
                    qemu_args=True)
    ap.add_argument('--gaps', action='store_true',
                    help='the guest stops and restarts tracing itself')
    ap.add_argument('--slow-reader', action='store_true',
                    help='a slow reader and a small PIB sink queue: '
                    'packets are lost')
    ap.add_argument('--lossless', action='store_true',
                    help='with --slow-reader: the encoder stalls the hart '
                    'or drops data packets, no instruction is lost')
    ap.add_argument('--timestamps', action='store_true',
                    help='timestamps in the packets, under -icount')
    ap.add_argument('--firmware', help='boot this firmware (-bios)')
    ap.add_argument('--firmware-elf', metavar='FW.elf[@OFF]',
                    help='the firmware\'s ELF for the decoder')
    ap.add_argument('--stats', action='store_true',
                    help='print the decoder\'s statistics')
    ap.add_argument('--ts-prescale', type=int, metavar='P',
                    help='with --timestamps: the guest sets trTsPrescale to '
                    'P at the ELF symbol etrace_ts_store; every timestamp '
                    'is checked for its value')
    ap.add_argument('--context', action='store_true',
                    help='the encoder\'s context field (context=on)')
    ap.add_argument('--expect-contexts', metavar='LIST',
                    help='the (subformat, privilege, context) of every '
                    'format 3.0, 3.1 and 3.2 packet, in order: '
                    '"S:P:CTX,..." in hex')
    ap.add_argument('--context-image', action='append', default=[],
                    metavar='CTX=START,END[@VA]',
                    help='with the encoder\'s context field: the code of '
                    'context CTX at VA (default: where START is) is the '
                    'ELF file\'s bytes from symbol START to symbol END')
    ap.add_argument('--code', action='store_true',
                    help='decode with the code side stream alone: no gap '
                    'allowed')
    ap.add_argument('--chained', action='store_true',
                    help='run again with translation blocks chained (no '
                    'record): the same decoded flow')
    ap.add_argument('--expect-format0', action='store_true',
                    help='the format 0 packets the program makes due, '
                    'from the record up to etrace_format0_end')
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
    if slow and not args.lossless:
        # packets lost: gaps, each followed by a synchronisation
        allow_gaps = True
    harts = 1
    if '-smp' in extra:
        harts = int(extra[extra.index('-smp') + 1])
    srcid_bits = 8 if harts > 1 else 0
    protocol = protocol_of(extra)
    with tempfile.TemporaryDirectory() as tmp:
        code_stream = None
        with_context = args.context or bool(args.context_image)
        if with_context:
            extra += ['-global', 'riscv-trace-encoder.context=on']
        if args.code:
            code_stream = f'{tmp}/code.bin'
            extra += ['-chardev', f'file,id=tcode,path={code_stream}',
                      '-M', 'trace-code=tcode']
        log, trace = record.run_traced(qemu, elf, cpu, extra, tmp, slow)
        want, code = expected(log, cpu.startswith('rv32'), harts)
        # a hart QEMU never ran (-smp with round-robin TCG: the run may
        # end before it is scheduled) has nothing to trace or decode
        want = {hart: items for hart, items in want.items() if items}
        rom, images = rom_image(code, tmp)
        code = ElfCode(code, elf)
        ctx_order = []
        ctx_args = ['--param', f'context_width_p={CONTEXT_WIDTH}'] \
            if with_context else []
        for k, spec in enumerate(args.context_image):
            ctx, _, rest = spec.partition('=')
            syms, _, va = rest.partition('@')
            start, end = (streamcheck.elf_symbol(elf, n)
                          for n in syms.split(','))
            va = va or hex(start)
            path = f'{tmp}/context{k}.bin'
            with open(path, 'wb') as f:
                f.write(code.file_bytes(start, end))
            ctx_args += ['--context-bin', f'{ctx}={path}@{va}']
            ctx_order.append(int(ctx, 0))
        rom += ctx_args
        contexts = {}
        for fw in firmware:
            rom += ['--elf', fw]
        data = data_traced(extra)
        if code_stream:
            got = decoded(decoder, None, ['--code', code_stream] + ctx_args,
                          trace, srcid_bits, cpu, protocol, data, contexts)
            stream_harts = code_harts(code_stream)
        else:
            got = decoded(decoder, elf, rom, trace, srcid_bits, cpu,
                          protocol, data, contexts)
        if want_stats:
            res = subprocess.run(decoder_cmd(decoder, elf, rom, trace,
                                             srcid_bits, cpu, 'stats',
                                             protocol, data),
                                 capture_output=True, text=True,
                                 check=False)
            if res.returncode != 0:
                sys.exit(f'decoder statistics failed: {res.stderr}')
            stats = res.stdout.splitlines()
        packets = streamcheck.by_source(trace, srcid_bits, TIMESTAMP_BYTES,
                                        protocol, 1 if data else 0,
                                        CONTEXT_WIDTH if with_context else 0)
        if timed or args.chained:
            # deterministic: the same flow (and times) in another run
            # with translation blocks chained as usual; the same packets
            # at start and end
            plain = record.run_plain(qemu, elf, cpu, extra, tmp)
            again = decoded(decoder, elf, rom, plain, srcid_bits, cpu,
                            protocol, data)
            again_packets = streamcheck.by_source(plain, srcid_bits,
                                                  TIMESTAMP_BYTES, protocol,
                                                  1 if data else 0)
    problems = []
    if code_stream and set(stream_harts) != {(h, h) for h in want}:
        # virt gives a funnelled hart's encoder its index as srcID
        problems.append(f'code side stream records per (srcID, hart): '
                        f'{dict(stream_harts)}, not one pair (H, H) for each '
                        f'hart H of {sorted(want)}')
    if args.expect_contexts:
        listed = [tuple(int(v, 16) for v in item.split(':'))
                  for item in args.expect_contexts.split(',')]
        got_ctx = streamcheck.context_packets(packets.get(0, []))
        if got_ctx != listed:
            problems.append(f'packets with a context (subformat, '
                            f'privilege, context): {got_ctx}, not {listed}')
    for hart in sorted(want) if ctx_order and not args.expect_contexts \
            else []:
        # the guest goes through the contexts in the images' order
        seq = contexts.get(hart, [])
        rounds = len(seq) // len(ctx_order)
        if not rounds or seq != ctx_order * rounds:
            problems.append(f'hart {hart}: decoded contexts {seq}, not '
                            f'{ctx_order} repeated')
        # The packets that carry a context, as the spec has them for the
        # guest's design: the first synchronisation in context 0 (satp
        # is 0 from reset); then for each program, the satp write
        # reported imprecisely (ctype 1: a format 3.2 in M mode), its
        # first instruction after mret (format 3.0, U mode) and the
        # handler of its ecall (format 3.1, M mode), all in its context.
        got_ctx = streamcheck.context_packets(packets.get(hart, []))
        want_ctx = [(0, 3, 0)] + [t for ctx in ctx_order * rounds
                                  for t in ((2, 3, ctx), (0, 0, ctx),
                                            (1, 3, ctx))]
        if got_ctx != want_ctx:
            problems.append(f'hart {hart}: packets with a context '
                            f'(subformat, privilege, context) {got_ctx}, '
                            f'not {want_ctx}')
    asked = streamcheck.asked_options(extra)
    runs = [(packets, '')]
    if timed or args.chained:
        runs.append((again_packets, ' (blocks chained)'))
    for hart in sorted(want):
        for pk, what in runs if not allow_gaps else []:
            # the first support packet has the options asked for; the
            # last ends the trace (not with --gaps: the guest traces
            # itself, or --slow-reader: packets are lost)
            problems += [p + what for p in streamcheck.check_start(
                hart, pk.get(hart, []), asked,
                streamcheck.asked_resync_disabled(extra)
                if protocol == '2.1' else None)]
            # (not with a slow reader: the packets made as QEMU shuts
            # down find the sink's queue full, and cannot wait)
            if not slow:
                problems += [p + what for p in streamcheck.check_end(
                    hart, pk.get(hart, []))]
    if args.expect_format0:
        end = streamcheck.elf_symbol(elf, 'etrace_format0_end')
        due = streamcheck.format0_expected(
            want[0], code, end,
            asked & streamcheck.IOPTIONS['branch-prediction'])
        if due is None:
            sys.exit('the record does not reach etrace_format0_end without '
                     'a trap')
        for pk, what in runs:
            problems += [p + what for p in streamcheck.check_format0(
                0, pk.get(0, []), asked, due)]
    if problems:
        sys.exit('\n'.join(problems))
    lost = sum(g.count('gap trace lost') for g in got.values())
    if slow and not args.lossless and not lost:
        sys.exit('a slow reader, and no packet was lost')
    if lost and args.lossless:
        sys.exit(f'{lost} losses of instruction packets')
    images += loaded(elf)
    for fw in firmware:
        path, _, off = fw.partition('@')
        off = int(off, 0) if off else 0
        images += [(lo + off, hi + off) for lo, hi in loaded(path)]
    flows = [(got, '')]
    if timed or args.chained:
        flows.append((again, ' (blocks chained)'))
    summary = []
    for flow, what in flows:
        if set(flow) - set(want):
            sys.exit(f'sources decoded {sorted(flow)}, harts '
                     f'{sorted(want)}{what}')
    for hart in sorted(want):
        # every hart QEMU ran decodes, up to its last instruction and the
        # end of the trace
        timings = []
        for flow, what in flows:
            items, times = split_times(flow.get(hart, []))
            if timed and not times:
                sys.exit(f'hart {hart}: no timestamps{what}')
            if times and not timed:
                sys.exit(f'hart {hart}: timestamps, and none were asked '
                         f'for{what}')
            if not allow_gaps:
                if not items or items[-1] != 'gap trace ended':
                    sys.exit(f'hart {hart}: the decoded flow ends with '
                             f'{items[-1] if items else "nothing"}, not '
                             f'the end of the trace{what}')
                items = items[:-1]
            insns, traps = compare(hart, want[hart], items, allow_gaps,
                                   images, code, more_rounds=bool(what))
            if timed:
                # the same times up to the final loop, whose rounds are
                # not in the trace
                start = final_loop(want[hart], code)[0]
                timings.append([t for t in times if t[0] < start])
                if args.ts_prescale is not None:
                    exact = check_prescaled(
                        hart, items, timings[-1],
                        streamcheck.elf_symbol(elf, 'etrace_ts_store'),
                        args.ts_prescale)
                    bounded = 0
                else:
                    exact, bounded = check_times(hart, items, timings[-1])
            if not what:
                summary.append(f'hart {hart}: {insns} instructions, '
                               f'{traps} traps')
        if timed:
            if timings[0] != timings[1]:
                first = next(k for k, (a, b) in
                             enumerate(zip(timings[0] + [None],
                                           timings[1] + [None])) if a != b)
                sys.exit(f'hart {hart}: a run with blocks chained gives '
                         f'(item, time) {timings[1][first:first + 1]}, '
                         f'the recorded run {timings[0][first:first + 1]}')
        if timed and args.ts_prescale is not None:
            summary.append(f'{exact} timestamps with prescale '
                           f'{args.ts_prescale} exact')
        elif timed:
            summary.append(f'{exact} timestamp differences exact, '
                           f'{bounded} across exceptions within bounds')
    if args.chained:
        summary.append('the same with blocks chained')
    if lost:
        summary.append(f'{lost} gaps where packets were lost')
    print('decoded flow equals QEMU\'s record: ' + '; '.join(summary))
    for line in stats:
        print(line)


if __name__ == '__main__':
    main()
