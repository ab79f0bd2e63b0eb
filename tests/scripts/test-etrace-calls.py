#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""etrace-decode's outputs of calls and returns against the program's.

Usage: test-etrace-calls.py --qemu QEMU --decoder DECODER --elf ELF
                            --uftrace UFTRACE --annotate CALLGRIND_ANNOTATE

ELF is tests/tcg/riscv64/test-calls.S, whose functions are straight-line
code: the instructions retired in each, and the calls, are counted from
its source (below), not taken from the decoder.  The guest runs traced
from reset; the reset vector's code is not given to the decoder (the
flow starts in _start after a gap).

- --output=folded: exactly the lines FOLDED, one per calling context
  with instructions of its own (a tail call replaces its caller's frame,
  a trap's handler is a "[trap]" frame, recursion a frame per level);
- --output=chrome: JSON; per thread, B and E events nest; the frames
  entered by name and how (CHROME_FRAMES); main lasts exactly its
  inclusive instruction count (the clock is retired instructions); the
  trap and the gaps (no program image at the start, the trace's end) are
  instant events; the same with timestamps (timestamps=on, -icount
  shift=0: one tick per instruction) and --clock=timestamps, where main
  starts 6 later (the reset vector's six instructions count in the
  guest's clock, not in the decoded flow) and lasts as long;
- --output=uftrace: a data directory that Debian's uftrace reads:
  "uftrace report" gives each function's total and self time (one
  nanosecond per instruction) and calls as REPORT says, "uftrace replay"
  shows the trap's event inside sys, "uftrace dump --chrome" is JSON
  with the 25 frames, "uftrace info" names hart 0's task;
- --output=callgrind: a profile that Debian's callgrind_annotate reads:
  the program's total, every function's own and inclusive instructions
  (ANNOTATE) and the calls of the call tree (CALLS), recursion below
  its outermost frame as "rec'2" as Callgrind separates it.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

from rvcfo import cli, qemu

# From test-calls.S.  _start: csrr, bnez, la (2), csrw, lla (2), jal main,
# then lui, li (2), sw, 12, and the wfi at park (a label it falls
# through to: still _start's frame) when it retires before QEMU stops
# after the finisher's store (it may or may not: WFI, 0 or 1, read from
# the folded output and then required of every other).  main: 14 of its
# own.  leaf: 3, called 3 times from main and 4 times from each of the 2
# calls of mid (9 of its own).  rec(5) .. rec(1): 8 each, rec(0): 2.
# tail_a: 2, its jump to tail_b a tail call (tail_b, 2, replaces it under
# main).  sys: the ecall (retired as QEMU's record has it) and ret, 2;
# the handler, 4.
START = 12
FOLDED = [
    'hart 0;_start {start}',
    'hart 0;_start;main 14',
    'hart 0;_start;main;leaf 9',
    'hart 0;_start;main;mid 18',
    'hart 0;_start;main;mid;leaf 24',
] + [
    'hart 0;_start;main' + ';rec' * depth + ' 8' for depth in range(1, 6)
] + [
    'hart 0;_start;main' + ';rec' * 6 + ' 2',
    'hart 0;_start;main;tail_a 2',
    'hart 0;_start;main;tail_b 2',
    'hart 0;_start;main;sys 2',
    'hart 0;_start;main;sys;[trap] trap 4',
]
# Frames entered, by name and how.
CHROME_FRAMES = {
    ('_start', 'root'): 1, ('main', 'call'): 1, ('leaf', 'call'): 11,
    ('mid', 'call'): 2, ('rec', 'call'): 6, ('tail_a', 'call'): 1,
    ('tail_b', 'tail call'): 1, ('sys', 'call'): 1, ('[trap] trap', 'trap'): 1,
}
# main's frame: its 14, leaf 9, mid 18 + 24, rec 42, tail 4, sys 2,
# handler 4; entered after _start's first 8.
MAIN_START, MAIN_LENGTH = 8, 117
# The reset vector's instructions before _start (docs/system/riscv/
# trace.rst: six instructions and the two addresses they load).
RESET_VECTOR = 6
# uftrace report: function: (total, self, calls), times in instructions
# (nanoseconds).  _start: its 12 (+ WFI) and main's 117; rec: rec(5) with
# all it calls, the 6 frames' 42 of their own; sys: 2, and the handler's
# 4.
REPORT = {
    '_start': (129, 12, 1), 'main': (117, 14, 1), 'mid': (42, 18, 2),
    'rec': (42, 42, 6), 'leaf': (33, 33, 11), 'sys': (6, 2, 1),
    'trap': (4, 4, 1), 'tail_a': (2, 2, 1), 'tail_b': (2, 2, 1),
}

# callgrind_annotate: function: (own, inclusive) instructions.  rec'2
# (the frames of rec below rec): 4 of 8 and rec(0)'s 2 of its own, and,
# as Callgrind counts a recursive function's calls to itself, 90
# inclusive: 34 and its 4 calls to itself (26, 18, 10 and 2).
ANNOTATE = {
    '_start': (12, 129), 'main': (14, 117), 'mid': (18, 42),
    'rec': (8, 42), "rec'2": (34, 90), 'leaf': (33, 33), 'sys': (2, 6),
    'trap': (4, 4), 'tail_a': (2, 2), 'tail_b': (2, 2),
}
# A line of callgrind_annotate's table: Ir, its share, '*' (a function
# of --tree) or '>' (a callee), FILE:function (FILE test-calls.S, from
# its line tables), the calls of a callee.
ANNOTATE_LINE = re.compile(r'^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+([*>])?\s*'
                           r'\S*/test-calls\.S:(\S+)(?:\s+\((\d+)x\))?')
# --tree=calling: caller: {callee: (inclusive, calls)}
CALLS = {
    '_start': {'main': (117, 1)},
    'main': {'leaf': (9, 3), 'mid': (42, 2), 'rec': (42, 1), 'sys': (6, 1),
             'tail_a': (2, 1), 'tail_b': (2, 1)},
    'mid': {'leaf': (24, 8)}, 'rec': {"rec'2": (34, 1)},
    "rec'2": {"rec'2": (56, 4)}, 'sys': {'trap': (4, 1)},
}


def decode(args, trace, output, *extra):
    cmd = [args.decoder, '--quiet', '--output', output, *extra, '--elf',
           args.elf, trace]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0 or res.stderr:
        sys.exit(f'{" ".join(cmd)} failed (exit {res.returncode}):\n'
                 f'{res.stderr}')
    return res.stdout


def check_folded(text):
    """Returns WFI: whether the wfi after the finisher's store retired."""
    got = text.splitlines()
    wfi = 1 if got and got[0] == f'hart 0;_start {START + 1}' else 0
    want = [line.format(start=START + wfi) for line in FOLDED]
    if got != want:
        for i, (g, w) in enumerate(zip(got + [None] * len(want),
                                       want + [None] * len(got))):
            if g != w:
                sys.exit(f'folded line {i}: {g!r}, the program has {w!r}')
    print(f'folded: the {len(want)} contexts of the program, each with '
          f'its instructions (the last wfi {"" if wfi else "not "}retired)')
    return wfi


def check_kallsyms(args, tmp, trace, wfi):
    """--bin and --kallsyms instead of --elf: the program's bytes and a
    /proc/kallsyms-style listing made by binutils (nm), with a module's
    line, a mapping symbol and a local label at it, and data symbols among them: the same
    folded stacks, the module's symbol where its code is named."""
    image = os.path.join(tmp, 'calls.bin')
    subprocess.run(['riscv64-linux-gnu-objcopy', '-O', 'binary', args.elf,
                    image], check=True)
    syms = subprocess.run(['riscv64-linux-gnu-nm', args.elf],
                          capture_output=True, text=True,
                          check=True).stdout.split('\n')
    listing = os.path.join(tmp, 'kallsyms')
    leaf = None
    with open(listing, 'w', encoding='utf-8') as f:
        for line in syms:
            fields = line.split()
            if len(fields) != 3:
                continue
            if fields[2] == 'leaf':
                # as a module's function: "NAME\t[MODULE]"
                leaf = fields[0]
                f.write(f'{fields[0]} t leaf\t[calls_mod]\n')
                # and a mapping symbol and a local label at its address
                # after it, as modules' listings have them (Debian's
                # brd: $x... at brd_exit, .L0 and .LVL80 in its code)
                f.write(f'{fields[0]} t '
                        f'$xrv64i2p1_m2p0_a2p1_c2p0\t[calls_mod]\n')
                f.write(f'{fields[0]} t .LVL80\t[calls_mod]\n')
                continue
            f.write(' '.join(fields) + '\n')
    if not leaf:
        sys.exit('nm: no leaf')
    cmd = [args.decoder, '--quiet', '--output=folded', '--bin',
           f'{image}@0x80000000', '--kallsyms', listing, trace]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    want = [line.format(start=START + wfi).replace('leaf',
                                                   'leaf [calls_mod]')
            for line in FOLDED]
    if res.returncode != 0 or res.stdout.splitlines() != want:
        sys.exit(f'--kallsyms: {res.stdout}{res.stderr}, not {want}')
    zero = os.path.join(tmp, 'kallsyms-zero')
    with open(zero, 'w', encoding='utf-8') as f:
        f.write('0000000000000000 T main\n0000000000000000 t leaf\n')
    res = subprocess.run(cmd[:-2] + [zero, trace], capture_output=True,
                         text=True, check=False)
    if res.returncode != 2 or 'every address is 0' not in res.stderr:
        sys.exit(f'--kallsyms of a listing without addresses: exit '
                 f'{res.returncode}: {res.stderr}')
    print('kallsyms: --bin and a kallsyms listing give the folded stacks, '
          'a module\'s symbol named with its module; all-zero addresses '
          'refused')


def check_chrome(text, timed=False):
    try:
        doc = json.loads(text)
    except ValueError as e:
        sys.exit(f'chrome: not JSON: {e}')
    clock = 'timestamps' if timed else 'instructions'
    if clock not in doc['otherData']['clock']:
        sys.exit(f'chrome: the clock is not said to be {clock}')
    main_start = MAIN_START + (RESET_VECTOR if timed else 0)
    stack, frames, main, depth = [], {}, None, 0
    instants = []
    for e in doc['traceEvents']:
        if e['ph'] == 'B':
            stack.append(e)
            depth = max(depth, len(stack))
            key = (e['name'], e['cat'])
            frames[key] = frames.get(key, 0) + 1
        elif e['ph'] == 'E':
            if not stack:
                sys.exit(f'chrome: an E event with no frame open: {e}')
            b = stack.pop()
            if e['ts'] < b['ts'] or e['tid'] != b['tid']:
                sys.exit(f'chrome: {e} does not close {b}')
            if b['name'] == 'main':
                main = (b['ts'], e['ts'] - b['ts'])
        elif e['ph'] == 'i':
            instants.append((e['cat'], e['name']))
    if stack:
        sys.exit(f'chrome: frames never left: {stack}')
    if frames != CHROME_FRAMES:
        sys.exit(f'chrome: frames {frames}, the program enters '
                 f'{CHROME_FRAMES}')
    if main != (main_start, MAIN_LENGTH):
        sys.exit(f'chrome: main from {main[0]} for {main[1]}, the program '
                 f'has {main_start} for {MAIN_LENGTH}')
    if depth != 8:
        sys.exit(f'chrome: {depth} frames deep, the program 8')
    want = [('gap', 'gap: no program image'), ('trap', 'exception 11'),
            ('gap', 'gap: trace ended')]
    if instants != want:
        sys.exit(f'chrome: instant events {instants}, wanted {want}')
    print(f'chrome ({clock}): {sum(frames.values())} frames nested as '
          f'the program calls, main at {main_start} and {MAIN_LENGTH} '
          'long, the trap and both gaps')


def uftrace(args, data, *cmd):
    res = subprocess.run([args.uftrace, *cmd, '-d', data],
                         capture_output=True, text=True, check=False)
    if res.returncode != 0 or res.stderr:
        sys.exit(f'uftrace {" ".join(cmd)} failed (exit {res.returncode}):'
                 f'\n{res.stderr}')
    return res.stdout


def ns(text, unit):
    """uftrace's "0.130 us" in nanoseconds."""
    return round(float(text) * {'ns': 1, 'us': 1000, 'ms': 10 ** 6}[unit])


def with_wfi(table, wfi):
    """@table with _start's own and total instructions WFI more."""
    t = dict(table)
    first = t['_start']
    t['_start'] = (first[0] + wfi, first[1] + wfi) + tuple(first[2:])
    return t


def check_uftrace(args, tmp, trace, wfi):
    data = os.path.join(tmp, 'uftrace.data')
    cmd = [args.decoder, '--quiet', '--output', 'uftrace', '--dir', data,
           '--elf', args.elf, trace]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0 or res.stderr or res.stdout:
        sys.exit(f'{" ".join(cmd)} failed (exit {res.returncode}):\n'
                 f'{res.stdout}{res.stderr}')
    report = {}
    for line in uftrace(args, data, 'report').splitlines():
        f = line.split()
        if len(f) == 6 and f[4].isdigit():
            report[f[5]] = (ns(f[0], f[1]), ns(f[2], f[3]), int(f[4]))
    want = with_wfi(REPORT, wfi)
    if report != want:
        sys.exit(f'uftrace report: {report}, the program has {want}')
    replay = uftrace(args, data, 'replay').splitlines()
    trap = [i for i, line in enumerate(replay) if '/* etrace:trap */' in line]
    if len(trap) != 1 or 'sys() {' not in replay[trap[0] - 1]:
        sys.exit('uftrace replay: the trap event is not once in sys:\n' +
                 '\n'.join(replay))
    events = json.loads(uftrace(args, data, 'dump', '--chrome'))
    begins = [e for e in events['traceEvents'] if e.get('ph') == 'B']
    if len(begins) != sum(CHROME_FRAMES.values()):
        sys.exit(f'uftrace dump --chrome: {len(begins)} frames')
    if '1(hart0)' not in uftrace(args, data, 'info'):
        sys.exit('uftrace info: no task 1 named hart0')
    print(f'uftrace: report as the program ({len(REPORT)} functions), the '
          'trap in sys in replay, the frames in dump --chrome, hart0 in info')


def annotate(args, profile, *opts):
    """callgrind_annotate's "Ir file:function" table: {function: [Ir,
    [(callee, Ir, calls)]]}."""
    res = subprocess.run([args.annotate, '--auto=no', *opts, profile],
                         capture_output=True, text=True, check=False)
    if res.returncode != 0 or res.stderr:
        sys.exit(f'callgrind_annotate {" ".join(opts)} failed:\n{res.stderr}')
    table, fn, seen = {}, None, False
    for line in res.stdout.splitlines():
        if line.startswith('Ir') and 'file:function' in line:
            seen = True
            continue
        m = ANNOTATE_LINE.match(line)
        if not seen or not m:
            continue
        ir = int(m.group(1).replace(',', ''))
        if m.group(2) == '>':
            table[fn][1].append((m.group(3), ir, int(m.group(4))))
        else:
            fn = m.group(3)
            table[fn] = [ir, []]
    return table


def check_callgrind(args, tmp, trace, wfi):
    profile = os.path.join(tmp, 'callgrind.out')
    with open(profile, 'w', encoding='utf-8') as f:
        f.write(decode(args, trace, 'callgrind'))
    own = annotate(args, profile)
    incl = annotate(args, profile, '--inclusive=yes')
    got = {fn: (own[fn][0], incl[fn][0]) for fn in own}
    want = with_wfi(ANNOTATE, wfi)
    if got != want:
        sys.exit(f'callgrind_annotate: {got}, the program has {want}')
    tree = annotate(args, profile, '--tree=calling')
    calls = {fn: {c: (ir, n) for c, ir, n in v[1]} for fn, v in tree.items()
             if v[1]}
    if calls != CALLS:
        sys.exit(f'callgrind_annotate --tree=calling: {calls}, the program '
                 f'has {CALLS}')
    print(f'callgrind: {len(ANNOTATE)} functions\' own and inclusive '
          f'instructions and the {sum(len(v) for v in CALLS.values())} '
          'calling arcs as the program has them')


def main():
    ap = cli.parser(__doc__, elf=True, decoder=True)
    ap.add_argument('--uftrace', required=True, help="Debian's uftrace")
    ap.add_argument('--annotate', required=True,
                    help="Debian's callgrind_annotate")
    args = cli.parse(ap)
    with tempfile.TemporaryDirectory(prefix='etrace-calls-') as tmp:
        trace = os.path.join(tmp, 'trace')
        qemu.run_guest(qemu.command(args.qemu, machine=qemu.TRACED,
                                    cpu='rv64', kernel=args.elf,
                                    chardev=qemu.trace_file(trace)), 60)
        wfi = check_folded(decode(args, trace, 'folded'))
        check_kallsyms(args, tmp, trace, wfi)
        check_chrome(decode(args, trace, 'chrome'))
        timed = os.path.join(tmp, 'timed')
        qemu.run_guest(qemu.command(args.qemu, machine=qemu.TRACED,
                                    cpu='rv64', kernel=args.elf,
                                    icount='shift=0,sleep=off',
                                    chardev=qemu.trace_file(timed),
                                    extra=qemu.encoder('timestamps')), 60)
        check_chrome(decode(args, timed, 'chrome', '--clock=timestamps'),
                     timed=True)
        check_uftrace(args, tmp, trace, wfi)
        check_callgrind(args, tmp, trace, wfi)
    return 0


if __name__ == '__main__':
    sys.exit(main())
