#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What the benchmark scripts share: timing a QEMU run, a perf profile."""

import os
import shutil
import statistics
import subprocess
import tempfile
import time


def run_timed(cmd, wall=None):
    """Run @cmd; return (CPU time, user + system, exit status, output).
    With a list as @wall, append the run's wall time to it."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        if wall is not None:
            wall.append(time.perf_counter() - t0)
        out.seek(0)
        text = out.read().decode('utf-8', 'replace')
    return (usage.ru_utime + usage.ru_stime,
            os.waitstatus_to_exitcode(status), text)


def profile(cmd, what):
    """Print the top symbols of a perf record of @cmd."""
    if not shutil.which('perf'):
        print('\n(no perf: profile skipped; apt-get install linux-perf)')
        return
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, 'perf.data')
        rec = subprocess.run(['perf', 'record', '-q', '-o', data, '--'] +
                             cmd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, check=False)
        if rec.returncode != 0:
            print(f'\n(perf record failed: {rec.stderr.strip()})')
            return
        rep = subprocess.run(['perf', 'report', '-i', data, '--stdio',
                              '--no-children', '--sort', 'symbol',
                              '--percent-limit', '2'],
                             capture_output=True, text=True, check=False)
    lines = [ln for ln in rep.stdout.splitlines()
             if ln.strip() and not ln.startswith('#')]
    print(f'\nWhere the time goes, {what} (perf, symbols >= 2 %):\n')
    print('```')
    print('\n'.join(lines[:15]))
    print('```')


def print_ratios(pairs, ratios):
    """The table of median, min and max ratio of each comparison."""
    print('| comparison | median ratio | min | max |')
    print('|---|---|---|---|')
    for label, _, _ in pairs:
        r = ratios[label]
        print(f'| {label} | {statistics.median(r):.3f} | {min(r):.3f} '
              f'| {max(r):.3f} |')
