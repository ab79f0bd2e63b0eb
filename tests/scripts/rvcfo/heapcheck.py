# SPDX-License-Identifier: GPL-2.0-or-later
"""The environment under which a test runs QEMU with glibc's heap checks.

MALLOC_CHECK_=3 makes glibc abort on heap corruption it notices, and
MALLOC_PERTURB_ fills freed and new memory with a pattern.  Since glibc
2.34 MALLOC_CHECK_ works only with libc_malloc_debug.so preloaded, so it
is preloaded when the system has it.
"""

import ctypes.util

_DEBUG_LIB = ctypes.util.find_library('c_malloc_debug')

# The variables to add to a QEMU process's environment.
VARS = {'MALLOC_CHECK_': '3', 'MALLOC_PERTURB_': '165'}
if _DEBUG_LIB:
    VARS['LD_PRELOAD'] = _DEBUG_LIB


def env(base):
    """@base (a mapping, e.g. os.environ) with VARS added."""
    out = dict(base)
    for key, val in VARS.items():
        if key == 'LD_PRELOAD' and out.get(key):
            val = out[key] + ' ' + val
        out[key] = val
    return out
