#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The virt machine's trace options: bad combinations fail with a clear
message (TAP).

Usage: test-trace-options.py QEMU
"""

import subprocess
import sys

BASE = ['-bios', 'none', '-display', 'none', '-monitor', 'none',
        '-serial', 'null', '-S']


def funnels(harts):
    """Funnels the trace needs: of 8 inputs each, in a tree."""
    total, n = 0, harts
    while True:
        n = (n + 7) // 8
        total += n
        if n == 1:
            return total


CASES = [
    ('trace-chardev without trace=on',
     ['-M', 'virt,trace-chardev=tr', '-chardev', 'null,id=tr'],
     'trace-chardev and trace-start need trace=on'),
    ('trace-start without trace=on', ['-M', 'virt,trace-start=on'],
     'trace-chardev and trace-start need trace=on'),
    ('an unknown chardev', ['-M', 'virt,trace=on,trace-chardev=nope'],
     "trace-chardev: no chardev with id 'nope'"),
    ('more harts than funnel slots',
     ['-M', 'virt,trace=on', '-smp', '100', '-m', '2G'],
     f'trace: 100 harts need {funnels(100)} trace funnels, the machine '
     'has slots for 14'),
]


def main():
    qemu = sys.argv[1]
    print(f'1..{len(CASES) + 1}')
    failed = 0
    for i, (what, args, message) in enumerate(CASES, 1):
        res = subprocess.run([qemu] + BASE + args, capture_output=True,
                             text=True, timeout=60, input='')
        ok = res.returncode != 0 and message in res.stderr
        failed += not ok
        print(f'{"ok" if ok else "not ok"} {i} - {what}')
        if not ok:
            print(f'# exit {res.returncode}, stderr: {res.stderr.strip()}')
    # 88 harts still fit: 11 + 2 + 1 funnels.
    res = subprocess.run([qemu] + BASE + ['-M', 'virt,trace=on', '-smp',
                                         '88', '-m', '2G', '-qmp', 'stdio'],
                         capture_output=True, text=True, timeout=60,
                         input='{"execute": "qmp_capabilities"}\n'
                               '{"execute": "quit"}\n')
    ok = res.returncode == 0
    failed += not ok
    print(f'{"ok" if ok else "not ok"} {len(CASES) + 1} - 88 harts fit')
    if not ok:
        print(f'# exit {res.returncode}, stderr: {res.stderr.strip()}')
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
