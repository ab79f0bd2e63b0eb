# SPDX-License-Identifier: GPL-2.0-or-later
"""The one TAP writer of the test drivers.

    t = tap.Tap(plan=len(cases))   # results printed as they come
    t = tap.Tap()                  # results collected, printed by done()
    t.check(ok, 'what it proves', detail='; shown when it fails',
            notes=['comment lines', 'always shown'])
    sys.exit(t.done())

A result is "ok N - WHAT" or "not ok N - WHAT" followed by @detail;
each line of @notes follows as a "# " comment.  done() prints the plan
and the collected results (when no plan was given), and returns the exit
status: 0 when every check passed.
"""

import sys


class Tap:
    """One TAP stream on stdout."""

    def __init__(self, plan=None):
        self.plan = plan
        self.results = []
        self.failed = 0
        if plan is not None:
            print(f'1..{plan}', flush=True)

    def check(self, ok, what, detail='', notes=()):
        """Record one result; returns @ok."""
        ok = bool(ok)
        self.failed += not ok
        self.results.append((ok, what, detail, list(notes)))
        if self.plan is not None:
            self._print(len(self.results), *self.results[-1])
        return ok

    def comment(self, text):
        """A "# " comment line (printed at once)."""
        for line in text.rstrip().splitlines() or ['']:
            print('# ' + line)
        sys.stdout.flush()

    @staticmethod
    def _print(n, ok, what, detail, notes):
        print(f'{"ok" if ok else "not ok"} {n} - {what}'
              + ('' if ok else detail))
        for note in notes:
            for line in note.rstrip().splitlines():
                print('# ' + line)
        sys.stdout.flush()

    def done(self):
        """Print what was collected; the exit status (0: all passed)."""
        if self.plan is None:
            print(f'1..{len(self.results)}')
            for n, result in enumerate(self.results, 1):
                self._print(n, *result)
        return 1 if self.failed else 0
