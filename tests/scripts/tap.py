# SPDX-License-Identifier: GPL-2.0-or-later
"""TAP output for the test scripts that collect their checks first."""

results = []


def check(ok, what, detail=''):
    """Record one check; @detail is printed only when it fails."""
    results.append((bool(ok), what, detail))
    return ok


def report():
    """Print the plan and one line per check."""
    print(f'1..{len(results)}')
    for i, (ok, what, detail) in enumerate(results, 1):
        print(f'{"ok" if ok else "not ok"} {i} - {what}'
              + ('' if ok else detail))
