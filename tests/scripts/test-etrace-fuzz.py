#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fuzz etrace-decode for a bounded time (libFuzzer, ASan and UBSan).

Usage: test-etrace-fuzz.py --clang CLANG --top TOP --qemu-src QEMU_SRC
                           --qemu-build QEMU_BUILD --outdir OUTDIR
                           [--seconds SECONDS]

Builds contrib/etrace/fuzz-decode.c with the decoder's sources using
clang -fsanitize=fuzzer,address,undefined into OUTDIR (again only when a
source changed), then runs it for SECONDS seconds from the seed corpus
kept in tests/fuzz/etrace-decode (new inputs go to a scratch directory,
not into the repository).  Any crash, sanitizer report, leak or input
that takes over 10 s fails the test; the input is saved in OUTDIR.
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile

from rvcfo import cli


def pkg_config(*args):
    return subprocess.run(['pkg-config'] + list(args), check=True,
                          capture_output=True, text=True).stdout.split()


def main():
    """Build the fuzzer if needed, run it from the seeds."""
    ap = cli.parser(__doc__, qemu=False)
    ap.add_argument('--clang', required=True, help='clang')
    ap.add_argument('--top', required=True, help='this repository')
    ap.add_argument('--qemu-src', required=True,
                    help='the prepared QEMU tree')
    ap.add_argument('--qemu-build', required=True,
                    help='the QEMU build directory')
    ap.add_argument('--outdir', required=True,
                    help='where the fuzzer and crashing inputs go')
    ap.add_argument('--seconds', default='30',
                    help='how long to fuzz (default 30)')
    args = cli.parse(ap)
    clang, top, qsrc, qbuild, outdir, seconds = (
        args.clang, args.top, args.qemu_src, args.qemu_build, args.outdir,
        args.seconds)
    os.makedirs(outdir, exist_ok=True)
    sources = [os.path.join(top, 'contrib/etrace', f) for f in
               ('fuzz-decode.c', 'decoder.c', 'data.c', 'image.c',
                'stream.c', 'error.c', 'retstack.c', 'jtc.c', 'bpred.c',
                'code.c')] + \
        [os.path.join(top, 'hw/riscv/trace-encoder', f) for f in
         ('etrace-packet.c', 'etrace-data.c')]
    headers = glob.glob(os.path.join(top, 'contrib/etrace/*.h')) + \
        [os.path.join(top, 'include/hw/riscv', h)
         for h in ('etrace.h', 'etrace-enc.h', 'etrace-data.h',
                   'trace-code.h')]
    binary = os.path.join(outdir, 'fuzz-etrace-decode')
    if not os.path.exists(binary) or \
            max(os.path.getmtime(f) for f in sources + headers) > \
            os.path.getmtime(binary):
        cmd = [clang, '-g', '-O1', '-fsanitize=fuzzer,address,undefined',
               '-fno-sanitize-recover=all',
               '-iquote', os.path.join(top, 'include'),
               '-iquote', os.path.join(qsrc, 'include'),
               '-iquote', qbuild,
               '-include', os.path.join(qbuild, 'config-host.h'),
               '-D_GNU_SOURCE', '-D_FILE_OFFSET_BITS=64'] + \
            pkg_config('--cflags', 'glib-2.0', 'libelf') + sources + \
            ['-o', binary] + pkg_config('--libs', 'glib-2.0', 'libelf')
        res = subprocess.run(cmd, capture_output=True, text=True,
                             check=False)
        if res.returncode != 0:
            sys.exit(f'building the fuzzer failed: {" ".join(cmd)}\n'
                     f'{res.stderr}')
    seeds = os.path.join(top, 'tests/fuzz/etrace-decode')
    if not os.listdir(seeds):
        sys.exit(f'{seeds}: no seed inputs')
    with tempfile.TemporaryDirectory() as work:
        artifacts = os.path.join(outdir, 'crash-')
        cmd = [binary, f'-max_total_time={seconds}', '-timeout=10',
               '-rss_limit_mb=2048', '-print_final_stats=1',
               f'-artifact_prefix={artifacts}', work, seeds]
        env = dict(os.environ, ASAN_OPTIONS='detect_leaks=1:abort_on_error=0',
                   UBSAN_OPTIONS='print_stacktrace=1:halt_on_error=1')
        res = subprocess.run(cmd, capture_output=True, text=True, env=env,
                             check=False)
        runs = [ln for ln in res.stderr.splitlines()
                if ln.startswith('stat::number_of_executed_units')]
        if res.returncode != 0:
            sys.exit(f'the fuzzer found a failure (exit {res.returncode}); '
                     f'input saved under {artifacts}*\n'
                     + '\n'.join(res.stderr.splitlines()[-40:]))
        corpus = len(os.listdir(work))
    print(f'{seconds} s of fuzzing, no failure: '
          f'{runs[0].split(":")[-1].strip() if runs else "?"} inputs run, '
          f'{corpus} new corpus entries (not kept), seeds in {seeds}')
    shutil.rmtree(os.path.join(outdir, 'tmp'), ignore_errors=True)


if __name__ == '__main__':
    main()
