#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Measure the cost of E-Trace tracing with paired runs.

Two guest workloads, in M-mode, no CTR:
  calls  bench-ctr.elf, ROUNDS rounds: recursion, returns and indirect
         calls (an uninferable jump every 12.8 instructions)
  loops  bench-loops.elf, LOOP_ROUNDS rounds: an insertion sort, bit
         loops, a counting loop (a conditional branch every few
         instructions, blocks chained to each other, few calls)
  loops-2harts
         the same on two harts at once (-smp 2, MTTCG: a host thread
         per hart), each hart traced by its own encoder into one stream
Configurations of each:
  no-trace     -M virt
  trace        -M virt,trace=on,trace-start=on, every instruction traced
               from reset into a file chardev, default encoder options
  per-block    the same with x-branch-map=off: the encoder follows an
               event per executed block (the design before branch-map
               mode), for comparison
  floor, per-block-floor
               trace and per-block with x-discard=on: the encoder follows
               the hart but makes no packets, the floor of each design
  ir, ir-v21   implicit return, protocols 2.0 and 2.1
  jtc, bpred, sijump, full-addr, ts
               the other encoder options, each on its own
  context      the context field (context=on; the workloads run in M
               mode and never write satp: the cost of carrying it)
  code         the default trace and the code side stream (virt's
               trace-code) into a second file; its bytes count in the
               bytes written
  exec-log     (calls only) -M virt -d exec,nochain -D FILE, QEMU's own
               log of every block executed
Each comparison with no-trace is measured in pairs (no-trace, then the
configuration) and reported as the median of the per-pair ratios of CPU
time (user + system of the QEMU process), with min and max; pairs of all
comparisons are interleaved.  The two-hart workload also reports the
ratios of wall time: its harts run in parallel.  Also reported: the bytes each
configuration writes, and for the default trace the bits per retired
instruction (the guest prints minstret, exact with Smcntrpmf: one more
run counts the instructions).  With --decoder: the size of the trace with
each encoder option set the trace can start with, and the decoder's speed
on the default trace (median of RUNS runs of etrace-decode
--output=stats: reconstructed instructions and packet bytes per second),
and of each output made of calls and returns (folded, callgrind, chrome,
uftrace) and of coverage (lcov, coverage) in pairs with stats: median
wall time, its ratio to stats, instructions per second and the bytes
written.
With --profile, perf record of a default trace run of each workload
prints where the time goes.
"""

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'scripts'))
import bench_lib  # noqa: E402
from rvcfo import qemu, record  # noqa: E402

CPU = 'rv64'
# A tenth of bench-ctr's rounds: QEMU's -d exec log of the whole
# workload would be gigabytes.
ROUNDS = 6
# bench-loops: about as many instructions as ROUNDS of bench-ctr.
LOOP_ROUNDS = 150

# configuration: encoder options (None: not traced)
CONFIGS = {
    'no-trace': None,
    'trace': [],
    'per-block': qemu.encoder('x-branch-map', 'off'),
    'floor': qemu.encoder('x-discard'),
    'per-block-floor': qemu.encoder('x-branch-map', 'off') +
    qemu.encoder('x-discard'),
    'ir': qemu.encoder('implicit-return'),
    'ir-v21': qemu.encoder('implicit-return') +
    qemu.encoder('protocol', '2.1'),
    'jtc': qemu.encoder('jump-target-cache'),
    'bpred': qemu.encoder('branch-prediction'),
    'sijump': qemu.encoder('sequential-jumps'),
    'full-addr': qemu.encoder('no-addr-diff'),
    'ts': qemu.encoder('timestamps'),
    'context': qemu.encoder('context'),
    'code': [],
    'exec-log': None,
}
WORKLOADS = ('calls', 'loops', 'loops-2harts')
# the two-hart workload: the configurations that matter there
TWO_HART_CONFIGS = ('trace', 'per-block', 'ir', 'floor', 'code')


def pairs(workload, only=None):
    """(label, configuration, baseline) of the comparisons of @workload
    (with @only, of those configurations only)."""
    if workload == 'loops-2harts':
        return [(f'{workload}: {c} / no trace', c, 'no-trace')
                for c in TWO_HART_CONFIGS if not only or c in only]
    return [(f'{workload}: {c} / no trace', c, 'no-trace')
            for c in CONFIGS
            if c != 'no-trace' and (c != 'exec-log' or workload == 'calls')
            and (not only or c in only)]


OPTION_SETS = [
    ('differential addresses, resync every 4096 packets (default)', []),
    ('full addresses', ['-global', 'riscv-trace-encoder.no-addr-diff=on']),
    ('resync every 4096 half-words',
     ['-global', 'riscv-trace-encoder.sync-mode=3']),
    ('resync every 16 packets',
     ['-global', 'riscv-trace-encoder.sync-max=0']),
    ('jump target cache (64 entries)',
     ['-global', 'riscv-trace-encoder.jump-target-cache=on']),
    ('branch prediction (64 entries)',
     ['-global', 'riscv-trace-encoder.branch-prediction=on']),
    ('sequentially inferable jumps',
     ['-global', 'riscv-trace-encoder.sequential-jumps=on']),
    ('implicit return (16-entry return stack)',
     ['-global', 'riscv-trace-encoder.implicit-return=on']),
    ('jump target cache, branch prediction, sequential jumps',
     ['-global', 'riscv-trace-encoder.jump-target-cache=on',
      '-global', 'riscv-trace-encoder.branch-prediction=on',
      '-global', 'riscv-trace-encoder.sequential-jumps=on']),
    ('implicit return, jump target cache, branch prediction, '
     'sequential jumps',
     ['-global', 'riscv-trace-encoder.implicit-return=on',
      '-global', 'riscv-trace-encoder.jump-target-cache=on',
      '-global', 'riscv-trace-encoder.branch-prediction=on',
      '-global', 'riscv-trace-encoder.sequential-jumps=on']),
    ('protocol 2.1, implicit return (irets)',
     ['-global', 'riscv-trace-encoder.protocol=2.1',
      '-global', 'riscv-trace-encoder.implicit-return=on']),
    ('protocol 2.1, implicit return, jump target cache, branch '
     'prediction, sequential jumps',
     ['-global', 'riscv-trace-encoder.protocol=2.1',
      '-global', 'riscv-trace-encoder.implicit-return=on',
      '-global', 'riscv-trace-encoder.jump-target-cache=on',
      '-global', 'riscv-trace-encoder.branch-prediction=on',
      '-global', 'riscv-trace-encoder.sequential-jumps=on']),
    ('full addresses and jump target cache',
     ['-global', 'riscv-trace-encoder.no-addr-diff=on',
      '-global', 'riscv-trace-encoder.jump-target-cache=on']),
    ('timestamps (6 bytes in every packet)',
     ['-global', 'riscv-trace-encoder.timestamps=on']),
]


def command(qemu_bin, elf, config, out, workload='calls'):
    """The run of @config (rvcfo.qemu builds the command line)."""
    traced = CONFIGS[config] is not None
    extra = qemu.loader(0x80f00004,
                        ROUNDS if workload == 'calls' else LOOP_ROUNDS, 4)
    if workload == 'loops-2harts':
        extra += qemu.loader(0x80f00008, 2, 4) + ['-smp', '2']
    machine = qemu.TRACED if traced else 'virt'
    chardev = list(qemu.trace_file(out)) if traced else []
    if traced:
        extra += CONFIGS[config]
    if config == 'code':
        machine += ',trace-code=tc'
        chardev += ['-chardev', f'file,id=tc,path={out}.code']
    return qemu.command(qemu_bin, machine=machine, chardev=chardev,
                        serial='stdio', cpu=CPU, kernel=elf, extra=extra,
                        log_items='exec,nochain' if config == 'exec-log'
                        else None, log_file=out)


def run_once(qemu_bin, elf, config, tmp, workload='calls', wall=None):
    """(CPU time, bytes written, instructions retired) of one run; its
    wall time is appended to @wall if given."""
    out = os.path.join(tmp, config + '.out')
    cmd = command(qemu_bin, elf, config, out, workload)
    seconds, status, text = bench_lib.run_timed(cmd, wall)
    m = re.search(r'INSTRET (\d+)', text)
    if status != 0 or 'PASS' not in text or not m:
        sys.exit(f'bench-etrace: run failed ({" ".join(cmd)}):\n{text}')
    size = 0
    for path in (out, out + '.code'):
        if os.path.exists(path):
            size += os.path.getsize(path)
            os.unlink(path)
    return seconds, size, int(m.group(1))


def instructions(args, elf, workload='calls'):
    """Instructions retired, exactly: Smcntrpmf's minstret counts them."""
    global CPU
    cpu, CPU = CPU, CPU + ',smcntrpmf=on'
    with tempfile.TemporaryDirectory() as tmp:
        n = run_once(args.qemu, elf, 'no-trace', tmp, workload)[2]
    CPU = cpu
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--runs', type=int, default=7,
                    help='pairs per comparison (at least 5)')
    ap.add_argument('--qemu', required=True)
    ap.add_argument('--elf', required=True, help='bench-ctr.elf')
    ap.add_argument('--loops-elf', required=True, help='bench-loops.elf')
    ap.add_argument('--profile', action='store_true')
    ap.add_argument('--decoder', help='etrace-decode, for its figures')
    ap.add_argument('--sizes', action='store_true',
                    help='only the trace size of each option set')
    ap.add_argument('--only', metavar='CONFIG,...',
                    help='only these configurations (against no-trace), '
                    'without the decoder\'s figures')
    args = ap.parse_args()
    if args.runs < 5:
        ap.error('--runs must be at least 5')
    elfs = {'calls': args.elf, 'loops': args.loops_elf,
            'loops-2harts': args.loops_elf}
    if args.sizes:
        n = instructions(args, args.elf)
        print(f'bench-ctr.elf: {n} instructions retired')
        decoder_figures(args, n)
        return

    only = args.only.split(',') if args.only else None
    for c in only or []:
        if c not in CONFIGS or c == 'no-trace':
            ap.error(f'--only: no configuration {c!r}')
    all_pairs = [(w, p) for w in WORKLOADS for p in pairs(w, only)]
    ratios = {p[0]: [] for _, p in all_pairs}
    wall_ratios = {p[0]: [] for w, p in all_pairs if w == 'loops-2harts'}
    times = {(w, c): [] for w in WORKLOADS for c in CONFIGS}
    sizes = {(w, c): set() for w in WORKLOADS for c in CONFIGS}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            for w, (label, meas, base) in all_pairs:
                wall = []
                tb, sb, _ = run_once(args.qemu, elfs[w], base, tmp, w, wall)
                tm, sm, _ = run_once(args.qemu, elfs[w], meas, tmp, w, wall)
                ratios[label].append(tm / tb)
                if label in wall_ratios:
                    wall_ratios[label].append(wall[1] / wall[0])
                times[w, base].append(tb)
                times[w, meas].append(tm)
                sizes[w, base].add(sb)
                sizes[w, meas].add(sm)
        if args.profile:
            for w in WORKLOADS:
                bench_lib.profile(command(args.qemu, elfs[w], 'trace',
                                          os.path.join(tmp, 'profile.out'),
                                          w), f'tracing, {w}')

    # x-discard drops the run: a floor whose trace is not tiny is no floor
    for w in WORKLOADS:
        for c in ('floor', 'per-block-floor'):
            if sizes[w, c] and sizes[w, 'trace'] and \
                    max(sizes[w, c]) * 100 > min(sizes[w, 'trace']):
                sys.exit(f'bench-etrace: {w}: {c} wrote '
                         f'{max(sizes[w, c])} bytes: x-discard does not '
                         'discard')
    counts = {w: instructions(args, elfs[w], w) for w in WORKLOADS}
    print(f'E-Trace benchmark: {args.runs} paired runs per comparison, CPU '
          f'time of the QEMU process; calls: bench-ctr.elf, {ROUNDS} rounds, '
          f'{counts["calls"]} instructions retired; loops: bench-loops.elf, '
          f'{LOOP_ROUNDS} rounds, {counts["loops"]} instructions retired; '
          f'loops-2harts: the same on each of two harts (MTTCG)\n')
    bench_lib.print_ratios([p for _, p in all_pairs], ratios)
    print('\nWall time, two harts in parallel:\n')
    bench_lib.print_ratios([p for w, p in all_pairs if w == 'loops-2harts'],
                           wall_ratios)
    print('\n| workload | configuration | median CPU time (s) | bytes written '
          '| bits per instruction |')
    print('|---|---|---|---|---|')
    for w in WORKLOADS:
        for c in CONFIGS:
            if not times[w, c]:
                continue
            size = max(sizes[w, c])
            bits = f'{8 * size / counts[w]:.4f}' \
                if size and c != 'exec-log' else '-'
            print(f'| {w} | {c} | {statistics.median(times[w, c]):.3f} | '
                  f'{size} | {bits} |')

    if args.decoder and not only:
        decoder_figures(args, counts['calls'])


def decoder_figures(args, n):
    """Trace size per option set; decoder speed on the default trace."""
    import subprocess
    import time
    with tempfile.TemporaryDirectory() as tmp:
        # the reset vector's code, from QEMU's listing of it
        log = os.path.join(tmp, 'in_asm.log')
        subprocess.run(command(args.qemu, args.elf, 'no-trace', None) +
                       ['-d', 'in_asm', '-D', log], check=True,
                       capture_output=True)
        rec = record.Record()
        with open(log, encoding='utf-8', errors='replace') as f:
            for line in f:
                rec.feed(line)
        rom = os.path.join(tmp, 'rom.bin')
        addr = record.write_rom(rec.code, rom)
        images = ['--elf', args.elf, '--bin', f'{rom}@{addr:#x}']
        print('\n| encoder options | bytes | bits per instruction | '
              'bytes per million instructions |')
        print('|---|---|---|---|')
        traces = []
        for label, extra in OPTION_SETS:
            out = os.path.join(tmp, f'trace{len(traces)}.bin')
            subprocess.run(command(args.qemu, args.elf, 'trace', out) + extra,
                           check=True, capture_output=True)
            size = os.path.getsize(out)
            traces.append(out)
            # every option set's trace decodes, without an error
            protocol = '2.1' if 'riscv-trace-encoder.protocol=2.1' in \
                extra else '2.0'
            res = subprocess.run([args.decoder, '--output=stats',
                                  f'--protocol={protocol}'] + images +
                                 [out], capture_output=True, text=True,
                                 check=False)
            if res.returncode or 'errors: 0' not in res.stdout:
                sys.exit(f'bench-etrace: the trace with {label} does not '
                         f'decode:\n{res.stdout}{res.stderr}')
            print(f'| {label} | {size} | {8 * size / n:.4f} | '
                  f'{size * 1e6 / n:.0f} |')
        if args.sizes:
            return
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            res = subprocess.run([args.decoder, '--output=stats'] + images +
                                 [traces[0]], check=True,
                                 capture_output=True, text=True)
            times.append(time.perf_counter() - t0)
        insns = int(re.search(r'instructions: (\d+)', res.stdout).group(1))
        t = statistics.median(times)
        size = os.path.getsize(traces[0])
        print(f'\nDecoder (etrace-decode --output=stats, default trace, '
              f'median of {args.runs} runs, wall time): {t:.3f} s for '
              f'{insns} instructions and {size} bytes: '
              f'{insns / t / 1e6:.0f} million instructions/s, '
              f'{size / t / 1e6:.1f} MB/s')
        output_figures(args, images, traces[0], insns, tmp)


# The outputs made of calls and returns and the coverage outputs
# (docs/system/riscv/trace.rst, "Calls, profiles and timelines",
# "Coverage"), each timed against stats.
CALL_OUTPUTS = ['folded', 'callgrind', 'chrome', 'uftrace', 'lcov',
                'coverage']


def output_figures(args, images, trace, insns, tmp):
    """Each calls output against stats, in pairs: median wall times,
    instructions per second, the bytes written."""
    import subprocess
    import time

    def run(output):
        out = os.path.join(tmp, 'out')
        extra = ['--dir', out + '.d'] if output == 'uftrace' else []
        shutil.rmtree(out + '.d', ignore_errors=True)
        with open(out, 'wb') as f:
            t0 = time.perf_counter()
            subprocess.run([args.decoder, '--quiet', f'--output={output}'] +
                           extra + images + [trace], check=True, stdout=f)
            t = time.perf_counter() - t0
        size = os.path.getsize(out) + sum(
            os.path.getsize(os.path.join(out + '.d', n))
            for n in (os.listdir(out + '.d') if extra else []))
        return t, size

    print('\n| output | median wall time (s) | / stats | million '
          'instructions/s | bytes written |')
    print('|---|---|---|---|---|')
    for output in CALL_OUTPUTS:
        mine, base, ratios = [], [], []
        for _ in range(args.runs):
            t, size = run(output)
            b, _ = run('stats')
            mine.append(t)
            base.append(b)
            ratios.append(t / b)
        t = statistics.median(mine)
        print(f'| {output} | {t:.3f} | {statistics.median(ratios):.2f} | '
              f'{insns / t / 1e6:.0f} | {size} |')


if __name__ == '__main__':
    main()
