#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Summarise a meson test run from its testlog.json: one line per test
# (and per TAP subtest), then "N passed, N failed[, N skipped]".
# Exit status 1 when anything failed, 0 otherwise.

import json
import re
import sys

PASS = ('OK', 'EXPECTEDFAIL')
SKIP = ('SKIP',)

TAP_LINE = re.compile(r'^(not ok|ok)\s+\d+\s*(?:-\s*)?([^#]*?)\s*(#\s*(.*))?$')
TAP_PLAN = re.compile(r'^1\.\.\d+', re.M)


def main():
    passed = failed = skipped = 0
    with open(sys.argv[1]) as f:
        tests = [json.loads(line) for line in f if line.strip()]
    for t in sorted(tests, key=lambda t: t['name']):
        res = t['result']
        if res in PASS:
            word = 'PASS'
            passed += 1
        elif res in SKIP:
            word = 'SKIP'
            skipped += 1
        else:
            word = 'FAIL'
            failed += 1
        print('%-4s %-36s %6.2fs' % (word, t['name'], t.get('duration', 0)))
        # testlog.json does not record the protocol: a TAP plan tells.
        stdout = t.get('stdout') or ''
        if TAP_PLAN.search(stdout):
            for line in stdout.splitlines():
                m = TAP_LINE.match(line.strip())
                if not m:
                    continue
                directive = (m.group(4) or '').upper()
                sub = 'PASS' if m.group(1) == 'ok' else 'FAIL'
                if directive.startswith('SKIP'):
                    sub = 'SKIP'
                print('       %-4s %s' % (sub, m.group(2)))
        if word == 'FAIL':
            out = stdout + (t.get('stderr') or '')
            for line in out.splitlines()[-40:]:
                print('     | ' + line)
    line = '%d passed, %d failed' % (passed, failed)
    if skipped:
        line += ', %d skipped' % skipped
    print(line)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
