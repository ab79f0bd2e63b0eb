#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Measure the cost of E-Trace data trace with paired runs.

The workloads of bench-etrace.py (calls: bench-ctr.elf; loops:
bench-loops.elf), one hart, in these configurations:
  no-trace     -M virt
  trace        instruction trace from reset into a file (the default
               encoder options: branch-map mode)
  data-idle    the same with data trace implemented (data-trace=on) but
               not tracing data (data-start=off): each packet has the
               type field, translated code is that of "trace"
  data         instruction and data trace from reset (data-trace=on)
  mem-log      no trace; QEMU's memory plugin (tests/tcg/plugins/mem.c,
               print-accesses=true) logging every access to a file with
               -d plugin, what a QEMU user would run to get the accesses
Each comparison is measured in pairs and reported as the median of the
per-pair ratios of CPU time (user + system of the QEMU process), with
min and max; pairs of all comparisons are interleaved.  Then: the bytes
each configuration writes; for "data", the accesses and the te_data
bytes the decoder reads (etrace-decode --data --output=stats), bits per
access and per instruction, and bytes per access of the memory log.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'scripts'))
import bench_lib  # noqa: E402
from rvcfo import qemu  # noqa: E402

CPU = 'rv64'
ROUNDS = {'calls': 6, 'loops': 150}
CONFIGS = {
    'no-trace': None,
    'trace': [],
    'data-idle': qemu.encoder('data-trace') +
    qemu.encoder('data-start', 'off'),
    'data': qemu.encoder('data-trace'),
    'mem-log': None,
}
COMPARISONS = [
    ('trace', 'no-trace'),
    ('data-idle', 'trace'),
    ('data', 'no-trace'),
    ('data', 'trace'),
    ('mem-log', 'no-trace'),
    ('mem-log', 'data'),
]


def command(args, workload, config, out, cpu=CPU):
    """The run of @config on @workload (rvcfo.qemu builds it)."""
    traced = CONFIGS[config] is not None
    extra = qemu.loader(0x80f00004, ROUNDS[workload], 4)
    if traced:
        extra += CONFIGS[config]
    if config == 'mem-log':
        extra += ['-plugin', args.plugin + ',print-accesses=true']
    return qemu.command(args.qemu, machine=qemu.TRACED if traced else 'virt',
                        chardev=qemu.trace_file(out) if traced else (),
                        serial='stdio', cpu=cpu, kernel=args.elf[workload],
                        extra=extra,
                        log_items='plugin' if config == 'mem-log' else None,
                        log_file=out)


def run_once(args, workload, config, tmp, keep=False):
    """(CPU time, bytes written) of one run; the output is kept in
    @tmp/@workload-@config.out with @keep."""
    out = os.path.join(tmp, f'{workload}-{config}.out')
    cmd = command(args, workload, config, out)
    seconds, status, text = bench_lib.run_timed(cmd)
    if status != 0 or 'PASS' not in text:
        sys.exit(f'bench-data: run failed ({" ".join(cmd)}):\n{text}')
    size = os.path.getsize(out) if os.path.exists(out) else 0
    if os.path.exists(out) and not keep:
        os.unlink(out)
    return seconds, size


def instructions(args, workload):
    """Instructions retired, exactly: Smcntrpmf's minstret counts them."""
    cmd = command(args, workload, 'no-trace', None, CPU + ',smcntrpmf=on')
    text = subprocess.run(cmd, capture_output=True, text=True,
                          check=True).stdout
    return int(re.search(r'INSTRET (\d+)', text).group(1))


def data_figures(args, workload, tmp):
    """(accesses, te_data bytes, trace bytes) of a data trace, as the
    decoder reads it; the memory log's lines (one per access)."""
    run_once(args, workload, 'data', tmp, keep=True)
    trace = os.path.join(tmp, f'{workload}-data.out')
    res = subprocess.run([args.decoder, '--data', '--output=stats',
                          '--quiet', '--elf', args.elf[workload], trace],
                         capture_output=True, text=True, check=False)
    stats = res.stdout
    if 'errors: 0' not in stats:
        sys.exit(f'bench-data: the data trace does not decode:\n{stats}'
                 f'{res.stderr}')
    accesses = int(re.search(r'data accesses: (\d+)', stats).group(1))
    data_bytes = int(re.search(r'data bytes: (\d+)', stats).group(1))
    size = os.path.getsize(trace)
    run_once(args, workload, 'mem-log', tmp, keep=True)
    log = os.path.join(tmp, f'{workload}-mem-log.out')
    with open(log, 'rb') as f:
        lines = sum(1 for line in f if line.startswith(b'0x'))
    return accesses, data_bytes, size, lines, os.path.getsize(log)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--runs', type=int, default=7,
                    help='pairs per comparison (at least 5)')
    ap.add_argument('--qemu', required=True)
    ap.add_argument('--elf', required=True, help='bench-ctr.elf')
    ap.add_argument('--loops-elf', required=True, help='bench-loops.elf')
    ap.add_argument('--plugin', required=True,
                    help="QEMU's tests/tcg/plugins/libmem.so")
    ap.add_argument('--decoder', required=True, help='etrace-decode')
    args = ap.parse_args()
    if args.runs < 5:
        ap.error('--runs must be at least 5')
    args.elf = {'calls': args.elf, 'loops': args.loops_elf}

    pairs = [(f'{w}: {m} / {b}', w, m, b) for w in ROUNDS
             for m, b in COMPARISONS]
    ratios = {p[0]: [] for p in pairs}
    times = {(w, c): [] for w in ROUNDS for c in CONFIGS}
    sizes = {(w, c): set() for w in ROUNDS for c in CONFIGS}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            for label, w, meas, base in pairs:
                tb, sb = run_once(args, w, base, tmp)
                tm, sm = run_once(args, w, meas, tmp)
                ratios[label].append(tm / tb)
                times[w, base].append(tb)
                times[w, meas].append(tm)
                sizes[w, base].add(sb)
                sizes[w, meas].add(sm)
        figures = {w: data_figures(args, w, tmp) for w in ROUNDS}
    counts = {w: instructions(args, w) for w in ROUNDS}

    print(f'Data trace benchmark: {args.runs} paired runs per comparison, '
          f'CPU time of the QEMU process; calls: bench-ctr.elf, '
          f'{ROUNDS["calls"]} rounds, {counts["calls"]} instructions '
          f'retired; loops: bench-loops.elf, {ROUNDS["loops"]} rounds, '
          f'{counts["loops"]} instructions retired\n')
    bench_lib.print_ratios([(p[0], None, None) for p in pairs], ratios)
    print('\n| workload | configuration | median CPU time (s) | bytes '
          'written |')
    print('|---|---|---|---|')
    for w in ROUNDS:
        for c in CONFIGS:
            if times[w, c]:
                print(f'| {w} | {c} | {statistics.median(times[w, c]):.3f} '
                      f'| {max(sizes[w, c])} |')
    print('\n| workload | accesses | per instruction | te_data bytes | bits '
          'per access | trace bits per instruction (data / without) | '
          'memory log bytes per access |')
    print('|---|---|---|---|---|---|---|')
    for w in ROUNDS:
        accesses, data_bytes, size, lines, log = figures[w]
        n = counts[w]
        plain = max(sizes[w, 'trace'])
        print(f'| {w} | {accesses} | {accesses / n:.3f} | {data_bytes} | '
              f'{8 * data_bytes / accesses:.2f} | {8 * size / n:.3f} / '
              f'{8 * plain / n:.3f} | {log / max(lines, 1):.1f} |')
        if lines != accesses:
            print(f'  ({w}: the memory log has {lines} accesses, the data '
                  f'trace {accesses}: the log counts the finisher\'s '
                  f'and an AMO\'s read and write apart)')


if __name__ == '__main__':
    main()
