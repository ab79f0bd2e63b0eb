#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Measure the cost of CTR and Smcntrpmf with paired runs.

Every configuration is measured against its baseline in pairs: the
baseline runs, then the configuration right after it, and the ratio of
their CPU times (user + system of the QEMU process) is taken per pair.
The reported figure is the median of those ratios, with their minimum
and maximum, so that a slow moment of a shared machine affects one pair
and not the comparison.  Pairs of all configurations are interleaved.

Configurations (the guest workload is bench-ctr.elf, all in M-mode):
  no-ctr     CPU without smctr/ssctr (the baseline of each QEMU)
  inactive   smctr/ssctr on, CTR not enabled in the running mode
  recording  smctr/ssctr on, every transfer type recorded (M + NTBREN)
  rec-nocc   the same with ctr-cycles=off (this series only: QEMU 10.2.2
             has no cycle counting, so its "recording" compares to this)
  pmf        CPU without CTR with smcntrpmf=on: every mode counts, so this
             series' translated code counts instructions in every block
for this series' QEMU and for unmodified QEMU 10.2.2, plus two pairs
across the binaries: this series' rec-nocc and recording against QEMU
10.2.2's recording.  With --profile, perf record of this series'
recording run prints where the time goes.
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'scripts'))
import bench_lib  # noqa: E402
from rvcfo import qemu  # noqa: E402

CPU_PLAIN = 'rv64,smcsrind=on,sscsrind=on'
CPU_CTR = CPU_PLAIN + ',smctr=on,ssctr=on'
MODE_ADDR = 0x80f00000

CONFIGS = {
    'no-ctr': (CPU_PLAIN, 0),
    'inactive': (CPU_CTR, 0),
    'recording': (CPU_CTR, 1),
    'rec-nocc': (CPU_CTR + ',ctr-cycles=off', 1),
    'pmf': (CPU_PLAIN + ',smcntrpmf=on', 0),
}
OURS = 'this series'
UPSTREAM = 'QEMU 10.2.2'

# (label, (qemu, config) measured, (qemu, config) baseline)
PAIRS = [
    ('inactive / no CTR', (OURS, 'inactive'), (OURS, 'no-ctr')),
    ('recording / no CTR', (OURS, 'recording'), (OURS, 'no-ctr')),
    ('recording, ctr-cycles=off / no CTR', (OURS, 'rec-nocc'),
     (OURS, 'no-ctr')),
    ('smcntrpmf=on / no CTR', (OURS, 'pmf'), (OURS, 'no-ctr')),
    ('QEMU 10.2.2: inactive / no CTR', (UPSTREAM, 'inactive'),
     (UPSTREAM, 'no-ctr')),
    ('QEMU 10.2.2: recording / no CTR', (UPSTREAM, 'recording'),
     (UPSTREAM, 'no-ctr')),
    ('QEMU 10.2.2: smcntrpmf=on / no CTR', (UPSTREAM, 'pmf'),
     (UPSTREAM, 'no-ctr')),
    ('recording, ctr-cycles=off / QEMU 10.2.2 recording',
     (OURS, 'rec-nocc'), (UPSTREAM, 'recording')),
    ('recording / QEMU 10.2.2 recording', (OURS, 'recording'),
     (UPSTREAM, 'recording')),
    # the loop-heavy workload, bench-loops.elf
    ('loops: recording / no CTR', (OURS, 'recording', 'loops'),
     (OURS, 'no-ctr', 'loops')),
    ('loops: recording, ctr-cycles=off / no CTR',
     (OURS, 'rec-nocc', 'loops'), (OURS, 'no-ctr', 'loops')),
    ('loops: smcntrpmf=on / no CTR', (OURS, 'pmf', 'loops'),
     (OURS, 'no-ctr', 'loops')),
]
# bench-loops.elf: about as many instructions as bench-ctr.elf's default.
LOOP_ROUNDS = 1500


def command(qemu_bin, elf, config, loops=False):
    """The run of @config (rvcfo.qemu builds the command line)."""
    cpu, mode = CONFIGS[config]
    extra = qemu.loader(MODE_ADDR, mode, 4)
    if loops:
        extra += qemu.loader(MODE_ADDR + 4, LOOP_ROUNDS, 4)
    return qemu.command(qemu_bin, serial='stdio', cpu=cpu, kernel=elf,
                        extra=extra)


def run_once(qemu_bin, elf, config, loops=False):
    """CPU time (user + system) of one run, checked for the PASS line."""
    cmd = command(qemu_bin, elf, config, loops)
    seconds, status, text = bench_lib.run_timed(cmd)
    if status != 0 or 'PASS' not in text:
        sys.exit(f'bench-ctr: run failed ({" ".join(cmd)}):\n{text}')
    return seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--runs', type=int, default=7,
                    help='pairs per comparison (at least 5)')
    ap.add_argument('--ours', required=True)
    ap.add_argument('--upstream', required=True)
    ap.add_argument('--elf', required=True, help='bench-ctr.elf')
    ap.add_argument('--loops-elf', required=True, help='bench-loops.elf')
    ap.add_argument('--profile', action='store_true')
    args = ap.parse_args()
    if args.runs < 5:
        ap.error('--runs must be at least 5')

    qemus = {OURS: args.ours, UPSTREAM: args.upstream}
    ratios = {label: [] for label, _, _ in PAIRS}
    times = {}
    for _ in range(args.runs):
        for label, (mq, mc, *mw), (bq, bc, *bw) in PAIRS:
            base = run_once(qemus[bq], args.loops_elf if bw else args.elf,
                            bc, bool(bw))
            meas = run_once(qemus[mq], args.loops_elf if mw else args.elf,
                            mc, bool(mw))
            ratios[label].append(meas / base)
            times.setdefault((bq, bc, *bw), []).append(base)
            times.setdefault((mq, mc, *mw), []).append(meas)

    print(f'CTR benchmark: {args.runs} paired runs per comparison, CPU '
          f'time of the QEMU process (bench-ctr.elf; "loops": '
          f'bench-loops.elf, {LOOP_ROUNDS} rounds)\n')
    bench_lib.print_ratios(PAIRS, ratios)
    print('\n| QEMU | configuration | median CPU time (s) | runs |')
    print('|---|---|---|---|')
    for (q, c, *w), t in sorted(times.items()):
        name = c + (' (loops)' if w else '')
        print(f'| {q} | {name} | {statistics.median(t):.3f} | {len(t)} |')
    if args.profile:
        bench_lib.profile(command(args.ours, args.elf, 'recording'),
                          'this series, recording all')


if __name__ == '__main__':
    main()
