#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The exported upstream series (TAP).

Usage: test-series.py --export EXPORT --src SRC --checkpatch CHECKPATCH

Runs EXPORT (scripts/export-series) into a scratch directory, then:
- without user.name in git config it stops with an error saying so;
- the cover letter and one patch per patch of patches/series exist, in
  its order and with its subjects, each adding the overlay files
  patches/new-files assigns to it, each a
  "Subject: [PATCH nn/NN] subsystem: summary" with a
  Signed-off-by from git config and a body wrapped at 76 columns; the
  cover letter has its text, a shortlog and the diffstat;
- git am applies them, in order, to a repository of the base versions of
  the files they touch (QEMU v10.2.2, taken from the patches' headers);
- after the last patch every file the series touches is byte for byte
  the one in SRC, the development tree scripts/prepare made;
- each file the series adds is covered by a MAINTAINERS "F:" pattern;
- CHECKPATCH (QEMU's scripts/checkpatch.pl) finds neither an error nor
  a warning in any patch.
That every prefix builds and passes its tests is scripts/check-series's
job (it takes long).
"""

import argparse
import fnmatch
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

from rvcfo import tap

T = tap.Tap()
check = T.check


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, check=False,
                          **kw)


def touched(patches):
    files = set()
    for p in patches:
        with open(p, encoding='utf-8') as f:
            for line in f:
                m = re.match(r'^(?:---|\+\+\+) [ab]/(\S+)', line)
                if m:
                    files.add(m.group(1))
    return sorted(files)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.strip().split('\n')[0],
        epilog='Documented in docs/series.md.')
    ap.add_argument('--export', required=True,
                    help='scripts/export-series')
    ap.add_argument('--src', required=True,
                    help='the development tree scripts/prepare made')
    ap.add_argument('--checkpatch', required=True,
                    help="QEMU's scripts/checkpatch.pl")
    args = ap.parse_args()
    export, src, checkpatch = args.export, args.src, args.checkpatch
    top = os.path.dirname(os.path.dirname(export))
    base = os.path.join(os.path.dirname(src), 'base', 'qemu-10.2.2')
    names = []
    with open(os.path.join(top, 'patches/series'), encoding='utf-8') as f:
        names = [ln.strip() for ln in f
                 if ln.strip() and not ln.startswith('#')]
    want = len(names)
    subjects = []
    for n in names:
        with open(os.path.join(top, 'patches', n), encoding='utf-8') as f:
            subjects.append(f.readline()[len('Subject: '):].strip())
    adds = {n: [] for n in names}
    cur = None
    with open(os.path.join(top, 'patches/new-files'), encoding='utf-8') as f:
        for ln in f:
            if ln.startswith('#') or not ln.strip():
                continue
            if ln[0].isspace():
                adds[cur].append(ln.strip())
            else:
                cur = ln.strip().rstrip(':')
    tmp = tempfile.mkdtemp(prefix='rvcfo-test-series-')
    try:
        out = os.path.join(tmp, 'out')
        # no identity: a clear error, nothing written
        noid = dict(os.environ, HOME=tmp, GIT_CONFIG_NOSYSTEM='1',
                    GIT_CONFIG_GLOBAL=os.devnull,
                    RVCFO_CACHE=os.path.dirname(src))
        res = run([export, out], env=noid)
        check(res.returncode != 0 and 'git config user.name is not set'
              in res.stderr and not os.path.exists(out),
              'without user.name in git config: a clear error',
              '; ' + res.stderr[-500:])
        # the Signed-off-by comes from git config
        ident = dict(noid, GIT_CONFIG_COUNT='2',
                     GIT_CONFIG_KEY_0='user.name',
                     GIT_CONFIG_VALUE_0='A Submitter',
                     GIT_CONFIG_KEY_1='user.email',
                     GIT_CONFIG_VALUE_1='submitter@example.org')
        res = run([export, out], env=ident)
        if not check(res.returncode == 0, 'export-series runs',
                     '; ' + res.stderr[-2000:]):
            return
        patches = sorted(glob.glob(os.path.join(out, '0*.patch')))
        cover = os.path.join(out, '0000-cover-letter.patch')
        check(os.path.exists(cover), 'a cover letter')
        patches = [p for p in patches if p != cover]
        check(len(patches) == want, f'{want} patches',
              f'; got {len(patches)}')
        order = []
        for p, n, subject in zip(patches, names, subjects):
            with open(p, encoding='utf-8') as f:
                text = f.read()
            m = re.search(r'^Subject: \[PATCH \d+/\d+\] (.*(?:\n .*)*)$',
                          text, re.M)
            got = ' '.join(ln.strip() for ln in m.group(1).split('\n')) \
                if m else None
            created = sorted(re.findall(r'^ create mode \d+ (\S+)$', text,
                                        re.M))
            if got != subject or created != sorted(adds[n]):
                order.append(f'{os.path.basename(p)}: {got} adds {created}; '
                             f'patches/{n}: {subject} adds {adds[n]}')
        check(not order, 'the patches of patches/series in order, each '
              'adding its files of patches/new-files', f'; {order}')
        bad = []
        for p in patches:
            with open(p, encoding='utf-8') as f:
                text = f.read()
            subj = re.search(r'^Subject: \[PATCH \d+/\d+\] '
                             r'([a-z][\w/.-]*(?:, [\w/.-]+)*): \S',
                             text, re.M)
            if not subj or '\nSigned-off-by: A Submitter '\
                    '<submitter@example.org>\n' not in text:
                bad.append(os.path.basename(p))
        check(not bad, 'each patch: "subsystem: summary" and a '
              'Signed-off-by from git config', f'; {bad}')
        wide = []
        for p in patches:
            with open(p, encoding='utf-8') as f:
                head = f.read().split('\n---\n', 1)[0]
            body = head.split('\n\n', 1)[1] if '\n\n' in head else ''
            wide += [f'{os.path.basename(p)}: {ln}'
                     for ln in body.splitlines() if len(ln) > 76]
        check(not wide, 'commit message bodies wrapped at 76 columns',
              f'; {wide}')
        with open(cover, encoding='utf-8') as f:
            text = f.read()
        check('*** ' not in text and
              re.search(r'^ \d+ files changed, ', text, re.M) and
              re.search(r'\(\d+\):\n  ', text) and
              all(w in text for w in ('Fixes to the existing code',
                                      'Tested with', 'Costs')),
              'the cover letter: what, fixes, tests, costs, shortlog and '
              'diffstat')

        # git am on the base versions of the touched files
        repo = os.path.join(tmp, 'repo')
        os.makedirs(repo)
        run(['git', '-C', repo, 'init', '-q'])
        files = touched(patches)
        for rel in files:
            if os.path.exists(os.path.join(base, rel)):
                os.makedirs(os.path.dirname(os.path.join(repo, rel)),
                            exist_ok=True)
                shutil.copy2(os.path.join(base, rel),
                             os.path.join(repo, rel))
        env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@t',
                   GIT_COMMITTER_NAME='t', GIT_COMMITTER_EMAIL='t@t')
        run(['git', '-C', repo, 'add', '-A'])
        run(['git', '-C', repo, 'commit', '-q', '-m', 'base'], env=env)
        res = run(['git', '-C', repo, 'am', '-q'] + patches, env=env)
        if check(res.returncode == 0, 'git am applies every patch to the '
                 'base', '; ' + (res.stdout + res.stderr)[-2000:]):
            differ = []
            for rel in files:
                a = os.path.join(repo, rel)
                b = os.path.join(src, rel)
                da = open(a, 'rb').read() if os.path.exists(a) else None
                db = open(b, 'rb').read() if os.path.exists(b) else None
                if da != db:
                    differ.append(rel)
            check(not differ, f'after the last patch the {len(files)} '
                  'files are those of the development tree',
                  f'; differ: {differ}')

            # every new file has a MAINTAINERS entry
            pats = []
            with open(os.path.join(repo, 'MAINTAINERS'),
                      encoding='utf-8') as f:
                for line in f:
                    if line.startswith('F:'):
                        pats.append(line[2:].strip())
            added = []
            for p in patches:
                with open(p, encoding='utf-8') as f:
                    added += re.findall(r'^ create mode \d+ (\S+)$',
                                        f.read(), re.M)
            orphans = [a for a in added
                       if not any(fnmatch.fnmatch(a, pat) or
                                  (pat.endswith('/') and a.startswith(pat))
                                  for pat in pats)]
            check(added and not orphans, f'each of the {len(added)} new '
                  'files has a MAINTAINERS entry', f'; none: {orphans}')

        unclean = []
        for p in patches:
            res = run(['perl', checkpatch, '--no-tree', p])
            m = re.search(r'^total: (\d+) errors, (\d+) warnings', res.stdout,
                          re.M)
            if not m or int(m.group(1)) or int(m.group(2)):
                unclean.append(os.path.basename(p) + '\n' +
                               res.stdout[-1500:])
        check(not unclean, 'checkpatch: no error and no warning in any '
              'patch', ''.join('\n# ' + u.replace('\n', '\n# ')
                               for u in unclean))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.done()


if __name__ == '__main__':
    sys.exit(main())
