# SPDX-License-Identifier: GPL-2.0-or-later
"""The old check()/report() interface on the package's TAP writer
(rvcfo.tap), for test-series.py until it imports rvcfo itself."""

from rvcfo.tap import Tap

_RESULTS = Tap()


def check(ok, what, detail=''):
    """Record one check; @detail is printed only when it fails."""
    return _RESULTS.check(ok, what, detail)


def report():
    """Print the plan and one line per check."""
    _RESULTS.done()
