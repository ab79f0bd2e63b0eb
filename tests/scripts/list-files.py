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

import glob
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def sources():
    for dirpath, dirnames, filenames in os.walk(TOP):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith('.'))
        for fn in sorted(filenames):
            if fn.endswith('.c') or fn.endswith('.h'):
                yield os.path.relpath(os.path.join(dirpath, fn), TOP)


def main():
    what = sys.argv[1]
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
    else:
        sys.exit('usage: list-files.py qtests|qemu-units|sources|patches')
    print('\n'.join(files))


if __name__ == '__main__':
    main()
