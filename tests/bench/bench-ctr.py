#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Time the CTR benchmark workload; print medians and ratios as markdown.

Configurations, each run --runs times in an interleaved order so that
machine noise spreads over all of them:
  no-ctr     CPU without smctr/ssctr
  inactive   smctr/ssctr on, CTR not enabled in the running mode
  recording  smctr/ssctr on, every transfer type recorded (M + NTBREN)
  rec-nocc   the same with ctr-cycles=off (this series only: QEMU 10.2.2
             has no cycle counting, so its "recording" compares to this)
  pmf        CPU without CTR with smcntrpmf=on: every mode counts, so this
             series' translated code counts instructions in every block
for this series' QEMU and for unmodified QEMU 10.2.2.
"""

import argparse
import statistics
import subprocess
import sys
import time

CPU_PLAIN = 'rv64,smcsrind=on,sscsrind=on'
CPU_CTR = CPU_PLAIN + ',smctr=on,ssctr=on'
MODE_ADDR = '0x80f00000'

CONFIGS = [
    ('no-ctr', CPU_PLAIN, 0),
    ('inactive', CPU_CTR, 0),
    ('recording', CPU_CTR, 1),
    ('rec-nocc', CPU_CTR + ',ctr-cycles=off', 1),
    ('pmf', CPU_PLAIN + ',smcntrpmf=on', 0),
]
OURS = 'this series'
UPSTREAM = 'QEMU 10.2.2'


def configs(qname):
    return [c for c in CONFIGS if qname == OURS or c[0] != 'rec-nocc']


def run_once(qemu, elf, cpu, mode):
    cmd = [qemu, '-M', 'virt', '-bios', 'none', '-display', 'none',
           '-monitor', 'none', '-serial', 'stdio', '-no-reboot',
           '-cpu', cpu, '-kernel', elf,
           '-device', f'loader,addr={MODE_ADDR},data={mode},data-len=4']
    start = time.monotonic()
    res = subprocess.run(cmd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, check=False)
    elapsed = time.monotonic() - start
    if res.returncode != 0 or 'PASS' not in res.stdout:
        sys.exit(f'bench-ctr: run failed ({" ".join(cmd)}):\n{res.stdout}')
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--ours', required=True)
    ap.add_argument('--upstream', required=True)
    ap.add_argument('--elf', required=True)
    args = ap.parse_args()
    if args.runs < 5:
        ap.error('--runs must be at least 5')

    qemus = [(OURS, args.ours), (UPSTREAM, args.upstream)]
    times = {(q, c[0]): [] for q, _ in qemus for c in configs(q)}
    for _ in range(args.runs):
        for qname, qemu in qemus:
            for cname, cpu, mode in configs(qname):
                times[(qname, cname)].append(
                    run_once(qemu, args.elf, cpu, mode))

    med = {k: statistics.median(v) for k, v in times.items()}
    print(f'CTR benchmark: median wall time of {args.runs} runs each '
          f'(bench-ctr.elf)\n')
    print('| QEMU | no CTR (s) | CTR inactive (s) | recording all (s) '
          '| recording, no cycle count (s) | inactive / no CTR '
          '| recording / inactive |')
    print('|---|---|---|---|---|---|---|')
    for qname, _ in qemus:
        n, i, r = (med[(qname, c)] for c in ('no-ctr', 'inactive',
                                             'recording'))
        nocc = med.get((qname, 'rec-nocc'))
        nocc_s = f'{nocc:.3f}' if nocc else f'{r:.3f} (has none)'
        print(f'| {qname} | {n:.3f} | {i:.3f} | {r:.3f} | {nocc_s} '
              f'| {i / n:.3f} | {r / i:.3f} |')
    ours = med[(OURS, 'rec-nocc')]
    up = med[(UPSTREAM, 'recording')]
    print(f'\nrecording without cycle counting, this series / QEMU 10.2.2: '
          f'{ours / up:.3f}')
    print(f'recording with cycle counting, this series / QEMU 10.2.2 '
          f'(which has none): {med[(OURS, "recording")] / up:.3f}')
    print('\nSmcntrpmf (same workload, no CTR), smcntrpmf=on / off:')
    for qname, _ in qemus:
        off, on = med[(qname, 'no-ctr')], med[(qname, 'pmf')]
        print(f'- {qname}: {off:.3f} s -> {on:.3f} s: {on / off:.3f}')


if __name__ == '__main__':
    main()
