#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""QEMU's documentation builds with the series' pages (TAP).

Usage: test-docs.py --src SRC --base BASE --cache CACHE

Runs sphinx-build on SRC/docs (the development tree) the way QEMU's
build does with --enable-docs --enable-werror (html, -W,
-Dkerneldoc_werror=1), but with --keep-going so that every warning is
listed, and on BASE/docs (QEMU v10.2.2) once per base, and checks:
- the base builds without warnings, so that every warning is new;
- SRC builds, with no warning that the base does not have;
- each page the series adds is built, and is in a toctree (Sphinx warns
  of a page in none, and the page would be unreachable).
Doctrees stay in CACHE, so that a second run rebuilds only what changed.
"""

import os
import re
import shutil
import subprocess
import sys

from rvcfo import cli, tap

RESULTS = tap.Tap()
check = RESULTS.check

PAGES = [
    'system/riscv/ctr', 'system/riscv/cntrpmf', 'system/riscv/trace',
    'system/riscv/linux', 'devel/riscv-ctr', 'devel/riscv-cflow',
    'specs/riscv-trace',
]


def sphinx(tree, out):
    """Warnings of an html build of @tree/docs (paths made relative)."""
    cmd = [shutil.which('sphinx-build') or 'sphinx-build', '-q', '-W',
           '--keep-going', '-Dkerneldoc_werror=1', '-j', 'auto',
           '-Dversion=10.2.2', '-Drelease=', '-b', 'html',
           '-d', os.path.join(out, 'doctrees'),
           os.path.join(tree, 'docs'), os.path.join(out, 'html')]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False,
                         env=dict(os.environ, CONFDIR='/usr/local/etc/qemu'))
    warnings = []
    for line in (res.stdout + res.stderr).splitlines():
        if re.search(r'(WARNING|ERROR|CRITICAL|SEVERE):', line):
            warnings.append(line.replace(tree + '/', ''))
    if res.returncode != 0 and not warnings:
        warnings.append('sphinx-build failed: ' +
                        (res.stdout + res.stderr)[-1500:])
    return warnings


def main():
    """The base's warnings (cached), then the series' (TAP)."""
    ap = cli.parser(__doc__, qemu=False)
    ap.add_argument('--src', required=True, help='the prepared QEMU tree')
    ap.add_argument('--base', required=True, help='the unpacked base tree')
    ap.add_argument('--cache', required=True,
                    help='a directory for the builds and the base\'s '
                    'warnings')
    args = cli.parse(ap)
    src, base, cache = args.src, args.base, args.cache
    os.makedirs(cache, exist_ok=True)

    # the base, once per base tree and Sphinx version
    with open(os.path.join(base, '.rvcfo-stamp'), encoding='utf-8') as f:
        stamp = f.read().strip()
    ver = subprocess.run(['sphinx-build', '--version'], capture_output=True,
                         text=True, check=False).stdout.strip()
    key = stamp + ' ' + ver
    done = os.path.join(cache, 'base-warnings')
    base_warnings = None
    if os.path.exists(done):
        with open(done, encoding='utf-8') as f:
            first, _, rest = f.read().partition('\n')
        if first == key:
            base_warnings = [ln for ln in rest.splitlines() if ln]
    if base_warnings is None:
        base_warnings = sphinx(base, os.path.join(cache, 'base'))
        with open(done, 'w', encoding='utf-8') as f:
            f.write(key + '\n' + ''.join(w + '\n' for w in base_warnings))
    check(not base_warnings, 'QEMU v10.2.2 docs build without warnings '
          '(so every warning below is new)', '; ' + '; '.join(base_warnings))

    out = os.path.join(cache, 'series')
    warnings = sphinx(src, out)
    new = [w for w in warnings if w not in base_warnings]
    check(not new, 'the docs with the series build without new warnings',
          ''.join('\n#   ' + w for w in new))

    missing = [p for p in PAGES
               if not os.path.exists(os.path.join(out, 'html', p + '.html'))]
    check(not missing, 'every page of the series is built', f'; {missing}')
    # reachable: some other page links to it
    linked = set()
    for dirpath, _, names in os.walk(os.path.join(out, 'html')):
        for n in names:
            if not n.endswith('.html'):
                continue
            with open(os.path.join(dirpath, n), encoding='utf-8',
                      errors='replace') as f:
                text = f.read()
            for p in PAGES:
                if os.path.basename(p) + '.html"' in text and \
                        os.path.join(dirpath, n) != \
                        os.path.join(out, 'html', p + '.html'):
                    linked.add(p)
    check(set(PAGES) == linked, 'every page of the series is linked from '
          'another page', f'; not linked: {sorted(set(PAGES) - linked)}')
    sys.exit(RESULTS.done())


if __name__ == '__main__':
    main()
