#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The commands of the documentation's how-to pages work as written.

Usage: test-docs-commands.py --src SRC --qemu QEMU PAGE...

Each PAGE (Markdown) has "console" code blocks: lines starting with "$ "
are commands (a line ending with a backslash goes on on the next), the
lines after a command, up to the next, what it prints.  The
commands of a page run, in order, in one bash from the top of SRC, with
RVCFO_CACHE the cache of the QEMU build given (so that scripts/env names
that build); each must exit 0, and print the lines shown, in that order
(other lines may come between them; "/.../" in a line stands for any
path, and a line "..." for anything).
"""

import os
import re
import subprocess
import sys
import tempfile

from rvcfo import cli, tap

RESULTS = tap.Tap()


def console_blocks(path):
    """[(command, [lines shown])] of the console blocks of @path."""
    out = []
    with open(path, encoding='utf-8') as f:
        lines = f.read().splitlines()
    k = 0
    while k < len(lines):
        if lines[k].strip() != '```console':
            k += 1
            continue
        k += 1
        cmd = None
        while k < len(lines) and lines[k].strip() != '```':
            text = lines[k]
            k += 1
            if text.startswith('$ '):
                cmd = text[2:]
                while cmd.endswith('\\') and k < len(lines):
                    cmd = cmd + '\n' + lines[k]
                    k += 1
                out.append((cmd, []))
            elif cmd is not None and text:
                out[-1][1].append(text)
    return out


def shown_in(shown, printed):
    """Whether the lines @shown come in @printed, in order."""
    k = 0
    for want in shown:
        if want.strip() == '...':
            continue
        pattern = re.escape(want.rstrip()).replace(re.escape('/.../'),
                                                   '/.*/')
        while k < len(printed) and \
                not re.fullmatch(pattern, printed[k].rstrip()):
            k += 1
        if k == len(printed):
            return want
        k += 1
    return None


def run_page(args, page, tmp):
    blocks = console_blocks(page)
    name = os.path.basename(page)
    if not blocks:
        RESULTS.check(False, f'{name}: commands', 'no console block')
        return
    script = ['set -u']
    for i, (cmd, _) in enumerate(blocks):
        out = os.path.join(tmp, f'out.{i}')
        script.append(f'{{\n{cmd}\n}} > {out} 2>&1; echo $? > {out}.rc')
    env = dict(os.environ,
               RVCFO_CACHE=os.path.dirname(os.path.dirname(args.qemu)))
    subprocess.run(['bash', '-c', '\n'.join(script)], cwd=args.src, env=env,
                   check=False, timeout=850)
    for i, (cmd, shown) in enumerate(blocks):
        out = os.path.join(tmp, f'out.{i}')
        try:
            with open(out + '.rc', encoding='utf-8') as f:
                rc = int(f.read())
            with open(out, encoding='utf-8', errors='replace') as f:
                printed = f.read().splitlines()
        except (OSError, ValueError):
            rc, printed = None, []
        first = cmd.splitlines()[0]
        missing = shown_in(shown, printed) if rc == 0 else None
        RESULTS.check(rc == 0 and missing is None, f'{name}: $ {first}',
                      f'exit {rc}' if rc != 0 else
                      f'does not print {missing!r}: ' + '\n'.join(printed))


def main():
    ap = cli.parser(__doc__, qemu=True)
    ap.add_argument('--src', required=True)
    ap.add_argument('pages', nargs='+')
    args = cli.parse(ap)
    for page in args.pages:
        with tempfile.TemporaryDirectory(prefix='docs-commands-') as tmp:
            run_page(args, page, tmp)
    sys.exit(RESULTS.done())


if __name__ == '__main__':
    main()
