#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Test of scripts/lib/summary.py on a synthetic meson testlog.json: one
# line per test and TAP subtest, failing output shown, the closing
# "N passed, N failed, N skipped" line and the exit status.  TAP output.
"""Test of scripts/lib/summary.py on a synthetic testlog.json (TAP)."""

import json
import os
import subprocess
import sys
import tempfile

from rvcfo import cli, tap

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SUMMARY = os.path.join(TOP, 'scripts/lib/summary.py')


def run(tests):
    """summary.py on @tests: its exit status and its lines."""
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
        for t in tests:
            f.write(json.dumps(t) + '\n')
    try:
        r = subprocess.run([sys.executable, SUMMARY, f.name],
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    return r.returncode, r.stdout.splitlines()


def main():
    """Two synthetic logs (TAP)."""
    cli.parse(cli.parser(__doc__, qemu=False))
    results = tap.Tap()

    def result(name, ok):
        results.check(ok, name)

    rc, out = run([
        {'name': 'b', 'result': 'OK', 'duration': 1.0, 'stdout': ''},
        {'name': 'a', 'result': 'FAIL', 'duration': 0.5,
         'stdout': 'FAIL x.c:3: v: expected 0x1 (1), got 0x2\n'},
        {'name': 'c', 'result': 'SKIP', 'duration': 0.1, 'stdout': ''},
        {'name': 'd', 'result': 'TIMEOUT', 'duration': 9.0, 'stdout': ''},
        {'name': 't', 'result': 'OK', 'duration': 0.2,
         'stdout': '1..3\nok 1 - /x/one\nnot ok 2 - /x/two\n'
                   'ok 3 /x/three # SKIP no machine\n'},
    ])
    result('exit status 1 when a test failed', rc == 1)
    result('last line counts tests',
           out[-1] == '2 passed, 2 failed, 1 skipped')
    result('one line per test, sorted',
           [ln.split()[:2] for ln in out if not ln.startswith(' ')][:5]
           == [['FAIL', 'a'], ['PASS', 'b'], ['SKIP', 'c'],
               ['FAIL', 'd'], ['PASS', 't']])
    result('failing output shown',
           '     | FAIL x.c:3: v: expected 0x1 (1), got 0x2' in out)
    result('TAP subtests listed',
           '       PASS /x/one' in out and
           '       FAIL /x/two' in out and
           '       SKIP /x/three' in out)

    rc, out = run([{'name': 'a', 'result': 'OK', 'duration': 1.0}])
    result('exit status 0 and no skip count when all pass',
           rc == 0 and out[-1] == '1 passed, 0 failed')

    return results.done()


if __name__ == '__main__':
    sys.exit(main())
