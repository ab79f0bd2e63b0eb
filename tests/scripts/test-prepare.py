#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Tests of scripts/fetch-qemu and scripts/prepare on a small synthetic
# QEMU tree: overlay and patches applied in order, incremental updates
# (unchanged files keep their mtime), removal of a patch restoring the
# base, and the error messages for a broken patch, an unlisted patch, an
# overlay file shadowing a QEMU file and a base that cannot be found.
# Output is TAP.

import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

results = []


def check(name, cond, detail=''):
    results.append((name, bool(cond), detail))


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
    tmp = tempfile.mkdtemp(prefix='rvcfo-prepare-test-')
    try:
        run_tests(tmp)
    finally:
        shutil.rmtree(tmp)
    print('1..%d' % len(results))
    failed = 0
    for i, (name, ok, detail) in enumerate(results, 1):
        print('%s %d - %s' % ('ok' if ok else 'not ok', i, name))
        if not ok:
            failed += 1
            for line in detail.splitlines():
                print('# ' + line)
    return 1 if failed else 0


def run_tests(tmp):
    # A fake QEMU 10.2.2 tree.
    base = os.path.join(tmp, 'qemu')
    write(os.path.join(base, 'VERSION'), '10.2.2\n')
    write(os.path.join(base, 'target/riscv/cpu.c'), 'line 1\nline 2\nline 3\n')
    write(os.path.join(base, 'target/riscv/csr.c'), 'line 1\nline 2\nline 3\n')

    # A repository with this project's scripts.
    repo = os.path.join(tmp, 'repo')
    shutil.copytree(os.path.join(TOP, 'scripts'), os.path.join(repo, 'scripts'))
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

    cache = os.path.join(tmp, 'cache')
    env = dict(os.environ, RVCFO_CACHE=cache, RVCFO_OFFLINE='1',
               RVCFO_SHARED=os.path.join(tmp, 'no-shared'))
    src = os.path.join(cache, 'src')

    def prepare():
        return subprocess.run([os.path.join(repo, 'scripts/prepare'), base],
                              env=env, capture_output=True, text=True)

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
    write(os.path.join(base, 'include/x.h'), 'x\n')
    r = prepare()
    check('overlay shadowing a QEMU file is an error',
          r.returncode != 0 and 'overlay file include/x.h exists in QEMU'
          in r.stderr, r.stderr)
    os.unlink(os.path.join(base, 'include/x.h'))

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


if __name__ == '__main__':
    sys.exit(main())
