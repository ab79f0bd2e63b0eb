#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""etrace-decode's coverage outputs against the programs and QEMU's record.

Usage: test-etrace-coverage.py --qemu QEMU --decoder DECODER
           --elf CALLS_ELF --c-elf C_ELF --genhtml GENHTML
           --annotate CALLGRIND_ANNOTATE --addr2line ADDR2LINE
           --objdump OBJDUMP --readelf READELF

1. CALLS_ELF is tests/tcg/riscv64/test-calls.S assembled with -g (line
   tables of the assembly source).  Its functions are straight-line
   code, so what --output=lcov must say is worked out from its source
   here: every instruction line of each function with the times its
   function runs (main 1, leaf 11, mid 2, rec(5) .. rec(0): its beqz and
   its ret 6, the five between 5, ...), each function at the line of its
   first instruction with the times it was entered, and its two
   conditional branches: _start's bnez, not taken on hart 0, and rec's
   beqz, taken once (rec(0)) and not taken five times.  The tracefile
   must be exactly that, and Debian's genhtml must render it with those
   totals.  --output=coverage: per function the instructions and basic
   blocks counted from the source.  --output=callgrind: Debian's
   callgrind_annotate gives each source line the instructions retired
   there.

2. C_ELF is tests/tcg/riscv64/test-cover.c with the runtime (gcc -O2
   -g: several files, inlined code), timer interrupts all through its
   loops (-icount shift=0).  The expected tracefile is made from QEMU's
   own record of the same run (-d in_asm,exec,nochain,int: what retired
   where, and after each conditional branch where the hart went next,
   the instruction or the trap's EPC) and the lines binutils' addr2line
   gives each instruction of objdump's listing (not elfutils, which the
   decoder uses): a line's count is the most any of its instructions
   retired, a function's the times its first instruction did (readelf's
   FUNC symbols), a line's branches are its conditional branch
   instructions in address order, each taken and not taken.  Interrupts
   that come right after a branch must be among them (the decoder has
   the outcome from the packets, not from the handler's first
   instruction).  genhtml renders it too.
"""

import collections
import os
import re
import subprocess
import sys
import tempfile

from rvcfo import binutils, cli, qemu, record

# test-calls.S: the times each function's instructions run; rec's first
# and last instruction run once more than the five between them.
CALLS_RUNS = {'main': 1, 'leaf': 11, 'mid': 2, 'rec': 5, 'tail_a': 1,
              'tail_b': 1, 'sys': 1, 'trap': 1}
CALLS_ENTERED = {'main': 1, 'leaf': 11, 'mid': 2, 'rec': 6, 'tail_a': 1,
                 'tail_b': 1, 'sys': 1, 'trap': 1}
# --output=coverage of test-calls.S: instructions and basic blocks (a
# block ends after each jal, branch, jump, ecall and mret; main's eight
# calls make nine, mid's four five, rec's beqz, jal and the ret it
# branches to four, sys's ecall two).
CALLS_REPORT = {'main': (14, 9), 'leaf': (3, 1), 'mid': (9, 5),
                'rec': (8, 4), 'tail_a': (2, 1), 'tail_b': (2, 1),
                'sys': (2, 2), 'trap': (4, 1)}


def decode(args, elf, trace, output):
    cmd = [args.decoder, '-q', '--elf', elf, f'--output={output}', trace]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        sys.exit(f'{cmd}: exit {res.returncode}: {res.stderr}')
    return res.stdout


def source_of(elf):
    """test-calls.S, next to the build's tests/tcg/riscv64."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, '..', 'tcg', 'riscv64', 'test-calls.S')
    return os.path.realpath(path)


def calls_lines(path):
    """{function: [line numbers of its instructions]} of test-calls.S;
    '_start' has the lines of its four statements."""
    funcs = {'_start': []}
    current = '_start'
    with open(path, encoding='utf-8') as f:
        for no, text in enumerate(f, 1):
            s = text.strip()
            m = re.match(r'^(\w+):(.*)$', s)
            if m and m.group(1) in CALLS_RUNS:
                current = m.group(1)
                funcs[current] = []
                continue
            if m:
                s = m.group(2).strip()      # "1:  ret"
            if s.startswith('.size'):
                current = None
                continue
            if not s or s.startswith(('.', '/*', '*', '#')) or \
                    current is None:
                continue
            funcs[current].append(no)
    return funcs


def expected_calls_lcov(path):
    funcs = calls_lines(path)
    da = {no: 1 for no in funcs['_start']}
    for name, lines in funcs.items():
        if name == '_start':
            continue
        for no in lines:
            da[no] = CALLS_RUNS[name]
    rec = funcs['rec']
    da[rec[0]] = da[rec[-1]] = CALLS_ENTERED['rec']
    out = ['TN:', f'SF:{path}']
    order = sorted((lines[0], name) for name, lines in funcs.items()
                   if name != '_start')
    out += [f'FN:{no},{name}' for no, name in order]
    out += [f'FNDA:{CALLS_ENTERED[name]},{name}' for _, name in order]
    out += [f'FNF:{len(order)}', f'FNH:{len(order)}']
    # DATA_TEST_START's bnez (the first statement), rec's beqz
    start = funcs['_start'][0]
    out += [f'BRDA:{start},0,0,0', f'BRDA:{start},0,1,1',
            f'BRDA:{rec[0]},0,0,1', f'BRDA:{rec[0]},0,1,5',
            'BRF:4', 'BRH:3']
    out += [f'DA:{no},{da[no]}' for no in sorted(da)]
    out += [f'LF:{len(da)}', f'LH:{len(da)}', 'end_of_record']
    return out, len(da), len(order)


def genhtml(args, tmp, info, name):
    out = os.path.join(tmp, name)
    res = subprocess.run([args.genhtml, '--branch-coverage', '-q', '-o',
                          out, info], capture_output=True, text=True,
                         check=False)
    if res.returncode != 0 or 'WARNING' in res.stderr:
        sys.exit(f'genhtml {info}: exit {res.returncode}: {res.stderr}')
    res = subprocess.run([args.genhtml, '--branch-coverage', '-o', out,
                          info], capture_output=True, text=True, check=False)
    summary = {}
    for kind in ('lines', 'functions', 'branches'):
        m = re.search(kind + r'\.*: [0-9.]+% \((\d+) of (\d+) ', res.stdout)
        if not m:
            sys.exit(f'genhtml: no {kind} summary in {res.stdout}')
        summary[kind] = (int(m.group(1)), int(m.group(2)))
    if not os.path.exists(os.path.join(out, 'index.html')):
        sys.exit(f'genhtml wrote no index.html in {out}')
    return summary


def check_calls(args, tmp):
    trace = os.path.join(tmp, 'calls.trace')
    qemu.run_guest(qemu.command(args.qemu, machine=qemu.TRACED,
                                cpu='rv64', kernel=args.elf,
                                chardev=qemu.trace_file(trace)), 60)
    src = source_of(args.elf)
    want, lines, funcs = expected_calls_lcov(src)
    got = decode(args, args.elf, trace, 'lcov').splitlines()
    if got != want:
        sys.exit('test-calls lcov differs from the source\'s:\n' +
                 '\n'.join(f'{a!r:32} {b!r}' for a, b in
                           zip(got + [''] * len(want), want + [''] *
                               len(got)) if a != b))
    info = os.path.join(tmp, 'calls.info')
    with open(info, 'w', encoding='utf-8') as f:
        f.write('\n'.join(got) + '\n')
    summary = genhtml(args, tmp, info, 'calls-html')
    if summary != {'lines': (lines, lines), 'functions': (funcs, funcs),
                   'branches': (3, 4)}:
        sys.exit(f'genhtml of test-calls: {summary}')

    report = decode(args, args.elf, trace, 'coverage').splitlines()
    seen = {}
    for line in report:
        m = re.match(r'^function (\w+) 0x[0-9a-f]+ entered (\d+) insns '
                     r'(\d+)/(\d+) blocks (\d+)/(\d+)$', line)
        if m:
            seen[m.group(1)] = tuple(int(x) for x in m.groups()[1:])
    want = {name: (CALLS_ENTERED[name], n, n, b, b)
            for name, (n, b) in CALLS_REPORT.items()}
    if seen != want:
        sys.exit(f'test-calls coverage report: {seen} != {want}')
    insns = sum(n for n, _ in CALLS_REPORT.values())
    blocks = sum(b for _, b in CALLS_REPORT.values())
    total = (f'total functions 8/8 insns {insns}/{insns} 100.0% '
             f'blocks {blocks}/{blocks} 100.0%')
    if report[-1] != total:
        sys.exit(f'test-calls report total: {report[-1]!r} != {total!r}')
    check_calls_lines(args, tmp, trace, src)
    print(f'test-calls: lcov exactly as its source ({lines} lines, '
          f'{funcs} functions, 4 branches), genhtml, report')


def annotated_lines(args, profile, src):
    """{line: Ir} of callgrind_annotate's annotation of @src."""
    res = subprocess.run([args.annotate, '--auto=yes', '--context=100000',
                          profile], capture_output=True, text=True,
                         check=False)
    if res.returncode != 0 or res.stderr:
        sys.exit(f'callgrind_annotate --auto=yes failed:\n{res.stderr}')
    text = res.stdout.split(f'-- Auto-annotated source: {src}\n', 1)
    if len(text) != 2:
        sys.exit(f'callgrind_annotate did not annotate {src}')
    ir, no = {}, 0
    for line in text[1].splitlines()[3:]:
        if line.startswith('---') or not line:
            break               # the end of the file
        if re.match(r'^\s*[\d,]+ \(\s*[\d.]+%\)\s+=> ', line):
            continue            # a call's inclusive cost
        no += 1
        m = re.match(r'^\s*([\d,]+) \(', line)
        if m:
            ir[no] = int(m.group(1).replace(',', ''))
        elif not re.match(r'^\s*\.', line):
            sys.exit(f'callgrind_annotate: line {no}: {line!r}')
    return ir


def check_calls_lines(args, tmp, trace, src):
    """--output=callgrind with the line tables: Debian's
    callgrind_annotate gives each line of test-calls.S the instructions
    retired there: the times its function's code ran there (as for lcov)
    times its instructions: one each in the functions; in _start,
    DATA_TEST_START's 5 (csrr, bnez, la as auipc and addi, csrw), lla's 2,
    jal's 1, DATA_TEST_PASS's 4 (lui, lui and addi, sw) and the wfi when it
    retired (the program's total says)."""
    funcs = calls_lines(src)
    want = {}
    for name, lines in funcs.items():
        if name != '_start':
            want.update((no, CALLS_RUNS[name]) for no in lines)
    rec = funcs['rec']
    want[rec[0]] = want[rec[-1]] = CALLS_ENTERED['rec']
    start = funcs['_start']
    want.update(zip(start, (5, 2, 1, 4)))
    profile = os.path.join(tmp, 'callgrind.out')
    with open(profile, 'w', encoding='utf-8') as f:
        f.write(decode(args, args.elf, trace, 'callgrind'))
    got = annotated_lines(args, profile, src)
    wfi = sum(got.values()) - sum(want.values())
    if wfi in (0, 1):
        want[start[3]] += wfi
    if got != want:
        sys.exit(f'callgrind_annotate of test-calls.S: {got}, the source '
                 f'says {want}')


def is_cond_branch(enc, size):
    """B-type (opcode 1100011), or c.beqz/c.bnez (quadrant 1, funct3 110
    or 111)."""
    if size == 4:
        return enc & 0x7f == 0x63
    return enc & 3 == 1 and (enc >> 13) & 7 in (6, 7)


def is_jump(enc, size):
    """jal, jalr; c.j, c.jr, c.jalr (RV64: no c.jal)."""
    if size == 4:
        return enc & 0x7f in (0x6f, 0x67)
    if enc & 3 == 1:
        return (enc >> 13) & 7 == 5
    return enc & 3 == 2 and (enc >> 13) & 7 == 4 and \
        (enc >> 2) & 0x1f == 0 and (enc >> 7) & 0x1f != 0


def lines_of(args, elf, pcs):
    """{pc: (file, line)} from addr2line, for the addresses it knows."""
    res = subprocess.run([args.addr2line, '-e', elf],
                         input=''.join(f'{pc:#x}\n' for pc in pcs),
                         capture_output=True, text=True, check=True)
    where = {}
    for pc, line in zip(pcs, res.stdout.splitlines()):
        m = re.match(r'^(.*):(\d+)', line)
        if m and m.group(1) != '??' and int(m.group(2)) > 0:
            where[pc] = (os.path.normpath(m.group(1)), int(m.group(2)))
    return where


def functions(args, elf):
    """[(address, name)] of the FUNC symbols with a size."""
    out = subprocess.run([args.readelf, '-sW', elf], capture_output=True,
                         text=True, check=True).stdout
    funcs = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 8 and f[3] == 'FUNC' and f[6] != 'UND' and \
                int(f[2], 0) > 0:
            funcs.setdefault(int(f[1], 16), f[7])
    return sorted(funcs.items())


def record_counts(log):
    """From QEMU's record: {pc: times retired}, {branch pc: [taken, not
    taken]}, and how many traps came right after a branch (async, sync),
    and interrupts right after a jump."""
    rec = record.Record()
    with open(log, encoding='utf-8', errors='replace') as f:
        for line in f:
            rec.feed(line)
    retired = collections.Counter()
    outcome = collections.defaultdict(lambda: [0, 0])
    after = [0, 0, 0]
    last = None                 # a branch retired, (pc, size)
    jump = False                # a jump retired last
    for e in rec.stream:
        if isinstance(e, tuple):
            _, is_async, _, epc, _, _ = e
            if last:
                outcome[last[0]][0 if epc != last[0] + last[1] else 1] += 1
                after[0 if is_async else 1] += 1
            after[2] += is_async and jump
            last = None
            continue
        for pc, size, enc in e['insns']:
            if last:
                outcome[last[0]][0 if pc != last[0] + last[1] else 1] += 1
            retired[pc] += 1
            last = (pc, size) if is_cond_branch(enc, size) else None
            jump = is_jump(enc, size)
    return retired, outcome, after


def expected_lcov(args, elf, retired, outcome):
    insns = binutils.listing(elf, args.objdump)
    where = lines_of(args, elf, [pc for pc, _, _ in insns])
    files = collections.defaultdict(
        lambda: {'da': {}, 'br': collections.defaultdict(list), 'fn': []})
    for pc, size, enc in insns:
        if pc not in where:
            continue
        path, no = where[pc]
        da = files[path]['da']
        da[no] = max(da.get(no, 0), retired[pc])
        if is_cond_branch(enc, size):
            files[path]['br'][no].append(pc)
    for addr, name in functions(args, elf):
        if addr in where:
            path, no = where[addr]
            files[path]['fn'].append((no, name, retired[addr]))
    out = []
    for path in sorted(files):
        f = files[path]
        out += ['TN:', f'SF:{path}']
        fns = sorted(f['fn'])
        out += [f'FN:{no},{name}' for no, name, _ in fns]
        out += [f'FNDA:{n},{name}' for _, name, n in fns]
        out += [f'FNF:{len(fns)}', f'FNH:{sum(1 for x in fns if x[2])}']
        brf = brh = 0
        for no in sorted(f['br']):
            for j, pc in enumerate(sorted(f['br'][no])):
                brf += 2
                if not retired[pc]:
                    out += [f'BRDA:{no},{j},0,-', f'BRDA:{no},{j},1,-']
                    continue
                taken, not_taken = outcome[pc]
                out += [f'BRDA:{no},{j},0,{taken}',
                        f'BRDA:{no},{j},1,{not_taken}']
                brh += (taken > 0) + (not_taken > 0)
        out += [f'BRF:{brf}', f'BRH:{brh}']
        out += [f'DA:{no},{n}' for no, n in sorted(f['da'].items())]
        out += [f'LF:{len(f["da"])}',
                f'LH:{sum(1 for n in f["da"].values() if n)}',
                'end_of_record']
    return out


def check_c(args, tmp):
    log, trace = record.run_traced(args.qemu, args.c_elf, 'rv64',
                                   ['-icount', 'shift=0,sleep=off'], tmp)
    retired, outcome, after = record_counts(log)
    if not after[0] or not after[2]:
        sys.exit(f'test-cover: interrupts right after a branch: {after[0]}, '
                 f'a jump: {after[2]}: the run does not test them')
    want = expected_lcov(args, args.c_elf, retired, outcome)
    got = decode(args, args.c_elf, trace, 'lcov').splitlines()
    if got != want:
        diff = [f'{a!r:40} {b!r}' for a, b in
                zip(got + [''] * len(want), want + [''] * len(got)) if a != b]
        sys.exit('test-cover lcov differs from QEMU\'s record (got, '
                 'expected):\n' + '\n'.join(diff[:40]))
    info = os.path.join(tmp, 'cover.info')
    with open(info, 'w', encoding='utf-8') as f:
        f.write('\n'.join(got) + '\n')
    summary = genhtml(args, tmp, info, 'cover-html')
    lf = sum(int(x[3:]) for x in want if x.startswith('LF:'))
    lh = sum(int(x[3:]) for x in want if x.startswith('LH:'))
    if summary['lines'] != (lh, lf):
        sys.exit(f'genhtml of test-cover: {summary}, {lh} of {lf} lines')
    print(f'test-cover: lcov as QEMU\'s record says ({lh} of {lf} lines, '
          f'{sum(retired.values())} instructions, {after[0]} interrupts '
          f'right after a branch, {after[2]} after a jump), genhtml')
    check_calls_interrupts(args, trace, retired)


def callgrind_arcs(text):
    """{(caller, callee): calls} of a Callgrind profile."""
    names, arcs = {}, {}
    fn = cfn = None
    for line in text.splitlines():
        m = re.match(r'^(c?fn)=\((\d+)\)(?: (.*))?$', line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == 'fn':
                fn = names[m.group(2)]
            else:
                cfn = names[m.group(2)]
            continue
        m = re.match(r'^calls=(\d+) ', line)
        if m:
            arcs[(fn, cfn)] = arcs.get((fn, cfn), 0) + int(m.group(1))
    return arcs


def check_calls_interrupts(args, trace, retired):
    """The calls outputs of the same trace: interrupts come right after
    calls and returns too; every frame is a function of the program, under
    the one root the flow starts in, and main calls collatz as often as
    the source says."""
    code = {pc for pc, _, _ in binutils.listing(args.c_elf, args.objdump)}
    folded = decode(args, args.c_elf, trace, 'folded').splitlines()
    total = 0
    for line in folded:
        stack, n = line.rsplit(' ', 1)
        frames = stack.split(';')
        if frames[:2] != ['hart 0', '_start'] or \
                any(f.startswith(('0x', '[trap] 0x')) for f in frames):
            sys.exit(f'test-cover folded: a made-up frame: {line}')
        total += int(n)
    want = sum(n for pc, n in retired.items() if pc in code)
    if total != want:
        sys.exit(f'test-cover folded: {total} instructions, QEMU\'s record '
                 f'{want} in the program')
    arcs = callgrind_arcs(decode(args, args.c_elf, trace, 'callgrind'))
    if arcs.get(('main', 'collatz')) != 2000:
        sys.exit(f'test-cover callgrind: main calls collatz '
                 f'{arcs.get(("main", "collatz"))} times, not 2000')
    print(f'test-cover: calls across interrupts: {len(folded)} contexts, '
          f'{total} instructions, main -> collatz 2000 calls')


def main():
    ap = cli.parser(__doc__, elf=True, decoder=True)
    ap.add_argument('--c-elf', required=True, help='test-cover.elf')
    for tool in ('genhtml', 'annotate', 'addr2line', 'objdump', 'readelf'):
        ap.add_argument('--' + tool, required=True)
    args = cli.parse(ap)
    with tempfile.TemporaryDirectory(prefix='etrace-coverage-') as tmp:
        check_calls(args, tmp)
        check_c(args, tmp)
    return 0


if __name__ == '__main__':
    sys.exit(main())
