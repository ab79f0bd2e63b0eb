#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Tests of scripts/fetch-qemu and scripts/prepare on a small synthetic
# QEMU tree: overlay and patches applied in order, incremental updates
# (unchanged files keep their mtime), removal of a patch restoring the
# base, and the error messages for a broken patch, an unlisted patch, an
# overlay file shadowing a QEMU file or missing from patches/new-files
# and a base that cannot be found; scripts/refresh-patch writing an edit
# of the prepared tree back into its patch, and refusing one that
# belongs to a later patch.  Output is TAP.

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from rvcfo import tap

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

T = tap.Tap()


def check(name, cond, detail=''):
    """One result; @detail (the scripts' output) is shown when it fails."""
    T.check(cond, name, notes=[detail] if detail and not cond else [])


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


def mtime(path):
    return os.stat(path).st_mtime_ns


def make_patch(name, path, old, new, subject):
    """A unified diff replacing line @old by @new in a 3-line file."""
    return ('From: test\nSubject: [PATCH] %s\n\n---\n'
            '--- a/%s\n+++ b/%s\n@@ -1,3 +1,3 @@\n'
            ' line 1\n-%s\n+%s\n line 3\n') % (subject, path, path, old, new)


def main():
    argparse.ArgumentParser(
        description='Tests of scripts/fetch-qemu, scripts/prepare and '
        'scripts/refresh-patch (TAP)',
        epilog='Documented in docs/build.md and docs/series.md.').parse_args()
    tmp = tempfile.mkdtemp(prefix='rvcfo-prepare-test-')
    try:
        run_tests(tmp)
    finally:
        shutil.rmtree(tmp)
    return T.done()


def run_tests(tmp):
    # A fake QEMU 10.2.2 tree.
    base = os.path.join(tmp, 'qemu')
    write(os.path.join(base, 'VERSION'), '10.2.2\n')
    write(os.path.join(base, 'target/riscv/cpu.c'), 'line 1\nline 2\nline 3\n')
    write(os.path.join(base, 'target/riscv/csr.c'), 'line 1\nline 2\nline 3\n')

    # A repository with this project's scripts.
    repo = os.path.join(tmp, 'repo')
    shutil.copytree(os.path.join(TOP, 'scripts'),
                    os.path.join(repo, 'scripts'))
    write(os.path.join(repo, 'target/riscv/ctr/ctr.c'), 'new file\n')
    write(os.path.join(repo, 'target/riscv/ctr/.gitkeep'), '')
    patches = os.path.join(repo, 'patches')
    p1 = make_patch('0001', 'target/riscv/cpu.c', 'line 2', 'cpu patched',
                    'cpu')
    p2 = make_patch('0002', 'target/riscv/csr.c', 'line 2', 'csr patched',
                    'csr')
    write(os.path.join(patches, '0001-cpu.patch'), p1)
    write(os.path.join(patches, '0002-csr.patch'), p2)
    write(os.path.join(patches, 'series'),
          '# order\n0001-cpu.patch\n0002-csr.patch\n')
    write(os.path.join(patches, 'new-files'),
          '# the overlay\n0001-cpu.patch:\n    target/riscv/ctr/ctr.c\n')

    cache = os.path.join(tmp, 'cache')
    env = dict(os.environ, RVCFO_CACHE=cache, RVCFO_OFFLINE='1',
               RVCFO_SHARED=os.path.join(tmp, 'no-shared'))
    src = os.path.join(cache, 'src')

    def prepare():
        return subprocess.run([os.path.join(repo, 'scripts/prepare'), base],
                              env=env, capture_output=True, text=True)

    # Every overlay file is listed in patches/new-files, under a patch.
    write(os.path.join(repo, 'target/riscv/ctr/new.c'), 'unlisted\n')
    r = prepare()
    check('overlay file missing from patches/new-files is an error',
          r.returncode != 0 and 'overlay file target/riscv/ctr/new.c is '
          'not in patches/new-files' in r.stderr, r.stderr)
    os.unlink(os.path.join(repo, 'target/riscv/ctr/new.c'))
    write(os.path.join(patches, 'new-files'),
          '0009-none.patch:\n    target/riscv/ctr/ctr.c\n')
    r = prepare()
    check('patches/new-files naming no patch of the series is an error',
          r.returncode != 0 and '"0009-none.patch:" is not "PATCH:"'
          in r.stderr, r.stderr)
    write(os.path.join(patches, 'new-files'),
          '0001-cpu.patch:\n    target/riscv/ctr/ctr.c\n')

    r = prepare()
    check('first prepare succeeds', r.returncode == 0, r.stderr)
    check('overlay file copied',
          read(os.path.join(src, 'target/riscv/ctr/ctr.c')) == 'new file\n')
    check('dotfiles are not copied',
          not os.path.exists(os.path.join(src, 'target/riscv/ctr/.gitkeep')))
    check('patches applied',
          read(os.path.join(src, 'target/riscv/cpu.c')) ==
          'line 1\ncpu patched\nline 3\n' and
          read(os.path.join(src, 'target/riscv/csr.c')) ==
          'line 1\ncsr patched\nline 3\n')
    check('base tree untouched',
          read(os.path.join(base, 'target/riscv/cpu.c')) ==
          'line 1\nline 2\nline 3\n')

    files = ['target/riscv/ctr/ctr.c', 'target/riscv/cpu.c',
             'target/riscv/csr.c']
    before = {f: mtime(os.path.join(src, f)) for f in files}
    r = prepare()
    after = {f: mtime(os.path.join(src, f)) for f in files}
    check('re-run without change rewrites nothing',
          r.returncode == 0 and before == after, r.stderr)

    # Editing one patch changes only the file it touches.
    write(os.path.join(patches, '0001-cpu.patch'),
          make_patch('0001', 'target/riscv/cpu.c', 'line 2', 'cpu v2', 'cpu'))
    r = prepare()
    now = {f: mtime(os.path.join(src, f)) for f in files}
    check('edited patch applied',
          r.returncode == 0 and read(os.path.join(src, 'target/riscv/cpu.c'))
          == 'line 1\ncpu v2\nline 3\n', r.stderr)
    check('edited patch leaves other files alone',
          now['target/riscv/csr.c'] == after['target/riscv/csr.c'] and
          now['target/riscv/ctr/ctr.c'] == after['target/riscv/ctr/ctr.c'])

    # Dropping a patch restores the base content.
    os.unlink(os.path.join(patches, '0002-csr.patch'))
    write(os.path.join(patches, 'series'), '0001-cpu.patch\n')
    r = prepare()
    check('dropped patch restores the base file',
          r.returncode == 0 and read(os.path.join(src, 'target/riscv/csr.c'))
          == 'line 1\nline 2\nline 3\n', r.stderr)

    # Dropping an overlay file removes it.
    os.unlink(os.path.join(repo, 'target/riscv/ctr/ctr.c'))
    write(os.path.join(patches, 'new-files'), '')
    r = prepare()
    check('dropped overlay file is removed',
          r.returncode == 0 and
          not os.path.exists(os.path.join(src, 'target/riscv/ctr/ctr.c')),
          r.stderr)

    # A patch that does not apply: named, with its rejected hunk.
    write(os.path.join(patches, '0002-broken.patch'),
          make_patch('0002', 'target/riscv/csr.c', 'no such line',
                     'broken change', 'broken'))
    write(os.path.join(patches, 'series'),
          '0001-cpu.patch\n0002-broken.patch\n')
    r = prepare()
    check('broken patch stops prepare', r.returncode != 0)
    check('broken patch is named',
          'patches/0002-broken.patch does not apply' in r.stderr, r.stderr)
    check('rejected hunk is shown',
          '-no such line' in r.stderr and '+broken change' in r.stderr,
          r.stderr)
    check('broken patch leaves the tree as it was',
          read(os.path.join(src, 'target/riscv/cpu.c')) ==
          'line 1\ncpu v2\nline 3\n' and
          read(os.path.join(src, 'target/riscv/csr.c')) ==
          'line 1\nline 2\nline 3\n')

    # A patch file not listed in the series.
    write(os.path.join(patches, 'series'), '0001-cpu.patch\n')
    r = prepare()
    check('unlisted patch is an error',
          r.returncode != 0 and
          'patches/0002-broken.patch is not listed' in r.stderr, r.stderr)
    os.unlink(os.path.join(patches, '0002-broken.patch'))

    # An overlay file must not shadow a QEMU file.
    write(os.path.join(repo, 'target/riscv/ctr/../../../include/x.h'), 'x\n')
    write(os.path.join(patches, 'new-files'),
          '0001-cpu.patch:\n    include/x.h\n')
    write(os.path.join(base, 'include/x.h'), 'x\n')
    r = prepare()
    check('overlay shadowing a QEMU file is an error',
          r.returncode != 0 and 'overlay file include/x.h exists in QEMU'
          in r.stderr, r.stderr)
    os.unlink(os.path.join(base, 'include/x.h'))
    os.unlink(os.path.join(repo, 'include/x.h'))
    write(os.path.join(patches, 'new-files'), '')

    refresh_tests(tmp, base, repo, env)

    # A tree of another version is refused.
    write(os.path.join(base, 'VERSION'), '9.0.0\n')
    r = prepare()
    check('wrong base version is refused',
          r.returncode != 0 and 'not a QEMU 10.2.2 source tree' in r.stderr,
          r.stderr)

    # No base anywhere: every place tried is listed.
    r = subprocess.run([os.path.join(repo, 'scripts/fetch-qemu')], env=env,
                       capture_output=True, text=True)
    check('fetch without any base fails', r.returncode != 0)
    check('fetch lists every place tried',
          'cache ' in r.stderr and 'download.qemu.org' in r.stderr and
          'apt-get source' in r.stderr and 'no-shared/qemu' in r.stderr,
          r.stderr)

    # A tarball with the wrong checksum is refused.
    bogus = os.path.join(tmp, 'qemu-10.2.2.tar.xz')
    write(bogus, 'not qemu\n')
    r = subprocess.run([os.path.join(repo, 'scripts/fetch-qemu'), bogus],
                       env=env, capture_output=True, text=True)
    check('tarball with wrong sha256 is refused',
          r.returncode != 0 and 'matches neither' in r.stderr, r.stderr)


def refresh_tests(tmp, base, repo, env):
    """scripts/refresh-patch on two patches that edit one file."""
    lines = ['line %d\n' % i for i in range(1, 13)]
    write(os.path.join(base, 'target/riscv/op.c'), ''.join(lines))
    patches = os.path.join(repo, 'patches')

    def edit(n, new):
        out = list(lines)
        out[n - 1] = new + '\n'
        return out

    def diff(old, new, rel='target/riscv/op.c'):
        a = os.path.join(tmp, 'a')
        b = os.path.join(tmp, 'b')
        write(a, ''.join(old))
        write(b, ''.join(new))
        r = subprocess.run(['diff', '-u', '--label', 'a/' + rel, '--label',
                            'b/' + rel, a, b], capture_output=True,
                           text=True)
        return r.stdout

    p1 = edit(2, 'first patch')
    both = list(p1)
    both[10] = 'second patch\n'
    write(os.path.join(patches, '0001-cpu.patch'),
          'Subject: op: one\n\nThe body.\n---\n' + diff(lines, p1))
    write(os.path.join(patches, '0002-csr.patch'),
          'Subject: op: two\n\n---\n' + diff(p1, both))
    write(os.path.join(patches, 'series'), '0001-cpu.patch\n0002-csr.patch\n')
    src = os.path.join(env['RVCFO_CACHE'], 'src', 'target/riscv/op.c')

    def run(*args):
        r = subprocess.run([os.path.join(repo, 'scripts', args[0])] +
                           list(args[1:]), env=env, capture_output=True,
                           text=True)
        return r
    r = run('prepare', base)
    check('two patches of one file applied',
          r.returncode == 0 and read(src) == ''.join(both), r.stderr)

    # an edit within patch 1's lines goes into patch 1, patch 2 unchanged
    two = read(os.path.join(patches, '0002-csr.patch'))
    edited = list(both)
    edited[1] = 'first patch, refreshed\n'
    write(src, ''.join(edited))
    r = run('refresh-patch', '1')
    text = read(os.path.join(patches, '0001-cpu.patch'))
    check('refresh-patch writes the edit into its patch',
          r.returncode == 0 and
          text.startswith('Subject: op: one\n\nThe body.\n---\n') and
          '+first patch, refreshed\n' in text and
          '+first patch\n' not in text and
          read(os.path.join(patches, '0002-csr.patch')) == two,
          r.stdout + r.stderr + text)
    r = run('prepare', base)
    check('the refreshed series gives back the edited tree',
          r.returncode == 0 and read(src) == ''.join(edited), r.stderr)
    r = run('refresh-patch', '0001')
    check('refresh-patch without an edit changes nothing',
          r.returncode == 0 and 'is up to date' in r.stdout, r.stderr)

    # an edit of a line patch 2 changes does not belong to patch 1
    overlap = list(edited)
    overlap[10] = 'second patch, edited\n'
    write(src, ''.join(overlap))
    before = read(os.path.join(patches, '0001-cpu.patch'))
    r = run('refresh-patch', '1')
    check('an edit overlapping a later patch is refused, naming it',
          r.returncode != 0 and 'overlaps patches/0002-csr.patch'
          in r.stderr and
          read(os.path.join(patches, '0001-cpu.patch')) == before, r.stderr)
    r = run('refresh-patch', '2')
    check('the later patch takes that edit',
          r.returncode == 0 and
          '+second patch, edited\n' in
          read(os.path.join(patches, '0002-csr.patch')), r.stderr)
    r = run('refresh-patch', '3')
    check('refresh-patch of no patch of the series is an error',
          r.returncode != 0 and 'is not a patch of patches/series'
          in r.stderr, r.stderr)


if __name__ == '__main__':
    sys.exit(main())
