#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The decoder on a long live run (scripts/long-decode).

Usage: long-decode.py --qemu QEMU --elf BENCH_CTR_ELF --decoder DECODER
                      --rounds ROUNDS

bench-ctr runs ROUNDS rounds, and a tenth of them, traced from reset into
a named pipe that etrace-decode reads as it comes (the encoder's
stall=on: the hart waits for the sink rather than lose packets), once
per output: stats, folded, callgrind, lcov, coverage and chrome (to
/dev/null: about 8 bytes of JSON per instruction).  uftrace is left out:
its records of 10^10 instructions fill tens of GB.  Prints a Markdown
table: per run and output, the instructions decoded, the decoder's wall
time and rate, and its peak resident memory; the peak must not grow with
the run's length beyond what the program's code and calling contexts
need, which the two lengths show.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

OUTPUTS = ['stats', 'folded', 'callgrind', 'lcov', 'coverage', 'chrome']


def run(args, tmp, rounds, output):
    fifo = os.path.join(tmp, 'trace.fifo')
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    out = os.devnull if output == 'chrome' else os.path.join(tmp, 'out')
    timing = os.path.join(tmp, 'time')
    with open(out, 'wb') as f:
        dec = subprocess.Popen(['/usr/bin/time', '-o', timing, '-f',
                                '%e %M', args.decoder, '--quiet',
                                f'--output={output}', '--elf', args.elf,
                                fifo], stdout=f)
    qemu = subprocess.run(
        [args.qemu, '-M', 'virt,trace=on,trace-chardev=tr,trace-start=on',
         '-cpu', 'rv64', '-bios', 'none', '-kernel', args.elf,
         '-display', 'none', '-serial', 'null', '-monitor', 'none',
         '-no-reboot', '-chardev', f'file,id=tr,path={fifo}',
         '-device', f'loader,addr=0x80f00004,data={rounds},data-len=4',
         '-global', 'riscv-trace-encoder.stall=on'],
        check=False, timeout=7200)
    if qemu.returncode != 0 or dec.wait(7200) != 0:
        sys.exit(f'{output}: QEMU exit {qemu.returncode}, decoder exit '
                 f'{dec.returncode}')
    with open(timing, encoding='utf-8') as f:
        wall, rss = f.read().split()[-2:]
    insns = None
    if output == 'stats':
        with open(out, encoding='utf-8') as f:
            insns = int(re.search(r'^instructions: (\d+)', f.read(),
                                  re.M).group(1))
    elif output == 'folded':
        with open(out, encoding='utf-8') as f:
            insns = sum(int(line.rsplit(' ', 1)[1]) for line in f)
    return insns, float(wall), int(rss) / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--qemu', required=True)
    ap.add_argument('--elf', required=True)
    ap.add_argument('--decoder', required=True)
    ap.add_argument('--rounds', type=int, default=1050)
    args = ap.parse_args()
    print('| rounds | output | instructions | decoder wall time (s) | '
          'million instructions/s | peak memory (MB) |')
    print('|---|---|---|---|---|---|')
    with tempfile.TemporaryDirectory(prefix='long-decode-') as tmp:
        for rounds in (max(1, args.rounds // 10), args.rounds):
            total = None
            for output in OUTPUTS:
                insns, wall, rss = run(args, tmp, rounds, output)
                if insns is not None:
                    # every run decodes whole (the wfi after the last
                    # store to the test finisher may or may not retire)
                    if total is not None and abs(insns - total) > 1:
                        sys.exit(f'{output}: {insns} instructions, stats '
                                 f'{total}')
                    total = insns
                print(f'| {rounds} | {output} | {total} | {wall:.1f} | '
                      f'{total / wall / 1e6:.0f} | {rss:.1f} |', flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
