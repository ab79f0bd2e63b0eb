#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Lists files of this repository for tests/meson.build, one per line:
#   list-files.py qtests     names of tests/qtest/*-test.c, without ".c"
#   list-files.py qemu-units names of tests/unit/test-riscv-*.c (QEMU unit
#                            tests, copied into QEMU's tree), without ".c"
#   list-files.py sources    every *.c and *.h, relative to the top
#   list-files.py patches    patches/*.patch, relative to the top
# Paths are relative because checkpatch.pl applies its tests/ exceptions
# to relative paths only.

import argparse
import glob
import os

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def sources():
    """Every *.c and *.h of the repository, relative to the top."""
    for dirpath, dirnames, filenames in os.walk(TOP):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith('.'))
        for fn in sorted(filenames):
            if fn.endswith('.c') or fn.endswith('.h'):
                yield os.path.relpath(os.path.join(dirpath, fn), TOP)


def main():
    """Print the files asked for, one a line."""
    ap = argparse.ArgumentParser(description='Files of this repository '
                                 'for tests/meson.build.')
    ap.add_argument('what', choices=['qtests', 'qemu-units', 'sources',
                                     'patches'])
    what = ap.parse_args().what
    if what == 'qtests':
        files = [os.path.basename(f)[:-2] for f in
                 sorted(glob.glob(os.path.join(TOP, 'tests/qtest/*-test.c')))]
    elif what == 'qemu-units':
        pattern = os.path.join(TOP, 'tests/unit/test-riscv-*.c')
        files = [os.path.basename(f)[:-2] for f in sorted(glob.glob(pattern))]
    elif what == 'sources':
        files = list(sources())
    elif what == 'patches':
        files = [os.path.relpath(f, TOP) for f in
                 sorted(glob.glob(os.path.join(TOP, 'patches/*.patch')))]
    print('\n'.join(files))


if __name__ == '__main__':
    main()
