#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Linux traced whole, from reset, and decoded with the code side stream.

Usage: test-linux-trace-code.py --linux LINUX --qemu QEMU
           --decoder DECODER --loop CFO_LOOP --sys CFO_SYS
           --window CFO_WINDOW

LINUX (scripts/linux) boots Debian's OpenSBI and kernel on two harts,
on the series' CPU without programmable counters (pmu-mask=0: OpenSBI
then places instructions events on instret, whose modes Smcntrpmf's
minstretcfg filters), with Debian's brd module loaded (--module), once
to save the guest's /proc/kallsyms (--kallsyms), once traced from reset
with the code side stream and the encoders' context field (--trace,
--trace-code, --trace-context: each process's ASID), under -icount
shift=0, running cfo-window (tests/linux/cfo-window.S: instret read by
the process before and after 1000 getppid calls, through a system-wide
instructions event of its own that leaves out the kernel, user space,
or nothing: OpenSBI sets minstretcfg's SINH, UINH, and MINH always),
three times, then reading brd's block device, then the two
user programs cfo-loop and cfo-sys, static executables at the same
address (tests/linux/cfo-work.S), one after the other, each under
"perf stat -e instructions:u" (a counter with Smcntrpmf's U-mode filter,
over the program's life).  TAP checks:

- the boot decodes from the code side stream alone (no image): no error,
  no gap outside the code, over a billion instructions;
- the instructions of each privilege (--priv=U, S, M, folded stacks)
  add up to all of them;
- with --kallsyms, the S-mode code that retires instructions is named
  (all but the kernel's first instructions, which run before paging at
  physical addresses); the
  trap vector is handle_exception and user ecalls reach
  do_trap_ecall_u and __riscv_sys_getppid;
- the module's code is decoded and named at its load address: its
  functions (no local labels) retire instructions, brd_submit_bio among
  them;
- the user instructions at the programs' addresses are exactly theirs:
  each address retires as often as the two programs' code says (cfo-loop
  1,000,000 rounds of a two-instruction loop, cfo-sys 100,000 getppid
  calls of four instructions; E-Trace reports an ecall as retired), which
  fails if either process were decoded with the other's code;
- those instructions are exactly what the counters counted for the two
  programs, plus their ecalls (1 and 100,001), which E-Trace reports as
  retired and Zicntr does not count;
- the context the packets give tells the two processes apart: the user
  instructions at the programs' addresses fall in two contexts, one
  with exactly cfo-loop's counts per address and the other with exactly
  cfo-sys's (a decoder reading the code per context gets each right);
- the windows cfo-window reads, each one check: on the hart that ran it,
  of the instructions decoded from its first rdinstret up to its second
  (--start, --stop), cfo-window's own are 4,001 in U mode (the rdinstret
  and 1000 times li, ecall, addi, bnez: the ISA's count), and all those
  of the privileges the filter lets the counter count (another process
  may run on the hart in the window), less their ecalls (which E-Trace
  reports as retired and instret does not count), are exactly the
  difference of the two reads: U alone, S alone, U and S;
- sampled windows equal QEMU's own record of execution: the same boot
  logs "-d in_asm,exec,nochain,int" restricted (-dfilter) to the two
  programs' addresses and to kernel functions named in kallsyms (the
  getppid system call, its dispatch, the scheduler, the module's
  block I/O, which must have run: the module sits where it sat in the
  other boot; the harts take
  turns on one host thread, so that the log says which hart each
  listing is of); per hart, the instructions decoded at those addresses
  (--range) are the record's, in the same order, each in the same
  privilege.
"""

import collections
import os
import subprocess
import sys
import tempfile

from rvcfo import cli, roundtrip, streamcheck, tap

LOOPS = 1000000
SYSCALLS = 100000
# Kernel functions whose instructions are compared with QEMU's record:
# C functions, entered only at their start or on returns into them (a
# translation block never runs into them from before them, which
# -dfilter would not log).
SAMPLED = ('__riscv_sys_getppid', 'do_trap_ecall_u', '__schedule',
           'brd_submit_bio')
# A module of Debian's kernel (scripts/linux --module), its code run by
# reading its block device
MODULE = 'brd'
MODULE_FN = 'brd_submit_bio'


def run(cmd, what):
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        sys.exit(f'{what} failed (exit {res.returncode}): {" ".join(cmd)}\n'
                 f'{res.stderr[-3000:]}')
    return res.stdout


# The privileges of the flow's instruction lines
PRIVS = ('U', 'S', 'M', 'VU', 'VS')


def symbol(elf, name):
    """The address of @name in @elf."""
    addr = streamcheck.elf_symbol(elf, name)
    if addr is None:
        sys.exit(f'{elf}: no {name}')
    return addr


def flow_words(cmd):
    """The words of each line etrace-decode @cmd prints, read as it goes
    (a flow may be long); exits if it fails."""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) as p:
        for line in p.stdout:
            yield line.split()
    if p.returncode != 0:
        sys.exit(f'decoding failed (exit {p.returncode}): {" ".join(cmd)}')


def entry(elf):
    """The address of _start in @elf."""
    return symbol(elf, '_start')


def loop_counts(s):
    """Retired instructions per address of cfo-loop (ISA): lui, addi,
    LOOPS x (addi, bnez), li, li, ecall."""
    want = collections.Counter()
    for k in (0, 4, 16, 20, 24):
        want[s + k] += 1
    want[s + 8] += LOOPS
    want[s + 12] += LOOPS
    return want


def sys_counts(s):
    """... of cfo-sys: lui, addi, SYSCALLS x (li, ecall, addi, bnez), li,
    li, ecall."""
    want = collections.Counter()
    for k in (0, 4, 24, 28, 32):
        want[s + k] += 1
    for k in (8, 12, 16, 20):
        want[s + k] += SYSCALLS
    return want


def expected_counts(s):
    """Retired instructions per address of the two programs."""
    return loop_counts(s) + sys_counts(s)


# cfo-window's user instructions in its window (see cfo-window.S): its
# first rdinstret and ROUNDS times li, ecall, addi, bnez
ROUNDS = 1000
WINDOW_U = 1 + 4 * ROUNDS
# cfo-window's argument, the perf event it opens, and the privileges
# instret counts under it: OpenSBI, asked by Linux's perf for the
# counter, sets Smcntrpmf's minstretcfg.SINH for exclude_kernel, UINH for
# exclude_user, and MINH always (lib/sbi/sbi_pmu.c,
# pmu_fixed_ctr_update_inhibit_bits)
WINDOWS = (('u', 'instructions:u', ('U',)),
           ('k', 'instructions:k', ('S',)),
           ('""', 'instructions', ('U', 'S')))


def window_counts(cmd, first, last):
    """Per source, a list: for each window of a --start/--stop flow (one
    begins at each instruction at @first), its instructions per privilege
    and, per privilege, those of them that are ecalls and ebreaks:
    E-Trace reports them as retired, Zicntr's instret does not count
    them.  'own' and 'own ecalls': the U-mode ones from @first to @last,
    the window program's (another process may run on the hart in the
    window too)."""
    out = {}
    priv = {}
    own = {}
    for words in flow_words(cmd):
        src = int(words[0])
        if words[1] in PRIVS:
            addr = int(words[2], 16)
            if addr == first:
                out.setdefault(src, []).append(collections.Counter())
            priv[src] = words[1]
            own[src] = words[1] == 'U' and first <= addr <= last
            out[src][-1][words[1]] += 1
            out[src][-1]['own'] += own[src]
        elif words[1] == 'trap' and words[2] == 'exception' and \
                words[3] in ('cause=3', 'cause=8', 'cause=9', 'cause=10',
                             'cause=11'):
            out[src][-1][priv[src] + ' ecalls'] += 1
            out[src][-1]['own ecalls'] += own[src]
    return out


def kernel_ranges(kallsyms, names):
    """[(lo, hi)] of the functions @names: from each one's address to
    the next symbol's."""
    syms = []
    with open(kallsyms, encoding='utf-8') as f:
        for line in f:
            words = line.split()
            if len(words) >= 3 and words[1] in 'tTwW':
                syms.append((int(words[0], 16), words[2]))
    syms.sort()
    out = []
    for name in names:
        k = [i for i, (_, n) in enumerate(syms) if n == name]
        if len(k) != 1:
            sys.exit(f'kallsyms: {len(k)} functions named {name}')
        lo = syms[k[0]][0]
        hi = min(a for a, _ in syms[k[0]:] if a > lo)
        out.append((lo, hi))
    return out


def record_items(log, ranges):
    """Per hart: 'PRIV ADDR' of each instruction QEMU's log says retired
    in @ranges."""
    flows, _ = roundtrip.expected(log, False, 2)
    out = {}
    for hart, items in flows.items():
        keep = []
        for item in items:
            priv, _, addr = item.partition(' ')
            if priv == 'trap':
                continue
            a = int(addr, 16)
            if any(lo <= a < hi for lo, hi in ranges):
                keep.append(item)
        out[hart] = keep
    return out


def decoded_items(cmd):
    """Per source: 'PRIV ADDR' of each instruction of a --range flow."""
    out = collections.defaultdict(list)
    for words in flow_words(cmd):
        if words[1] in PRIVS:
            out[int(words[0])].append(f'{words[1]} {words[2]}')
    return dict(out)


def per_context(cmd, lo, hi):
    """{context: Counter of the addresses in [@lo, @hi)} of the U-mode
    flow of @cmd (etrace-decode --output=flow --priv=U), read as it
    goes."""
    ctx = {}
    out = collections.defaultdict(collections.Counter)
    for words in flow_words(cmd):
        if words[1] == 'context':
            ctx[words[0]] = int(words[2], 16)
        elif words[1] == 'U':
            addr = int(words[2], 16)
            if lo <= addr < hi:
                out[ctx.get(words[0], 0)][addr] += 1
    return dict(out)


def main():
    ap = cli.parser(__doc__, decoder=True)
    ap.add_argument('--linux', required=True, help='scripts/linux')
    ap.add_argument('--loop', required=True, help='cfo-loop')
    ap.add_argument('--sys', required=True, help='cfo-sys')
    ap.add_argument('--window', required=True, help='cfo-window')
    args = cli.parse(ap)
    t = tap.Tap()
    start = entry(args.loop)
    if entry(args.sys) != start:
        sys.exit('cfo-loop and cfo-sys do not start at the same address')
    with tempfile.TemporaryDirectory() as tmp:
        syms = os.path.join(tmp, 'kallsyms')
        trace = os.path.join(tmp, 'trace.bin')
        code = os.path.join(tmp, 'code.bin')
        # the series' CPU without programmable counters: OpenSBI puts
        # instructions on instret, whose modes Smcntrpmf filters
        cpu = [line.split(' ', 1)[1] for line in run(
            [args.linux, '--qemu', args.qemu, '--paths'],
            'scripts/linux --paths').splitlines()
            if line.startswith('cpu ')][0] + ',pmu-mask=0'
        guest = [args.linux, '--qemu', args.qemu, '--smp', '2', '--cpu', cpu,
                 '--module', MODULE]
        run(guest + ['--kallsyms', syms], 'the boot for /proc/kallsyms')
        log = os.path.join(tmp, 'record.log')
        ranges = [(start, start + 36)] + kernel_ranges(syms, SAMPLED)
        dfilter = ','.join(f'{lo:#x}+{hi - lo:#x}' for lo, hi in ranges)
        out = run(guest + [
            '--trace', trace, '--trace-code', code, '--trace-context', '--',
            f'for m in {" ".join(a for a, _, _ in WINDOWS)}; do',
            'cfo-window $m; done;',
            'dd if=/dev/ram0 of=/dev/null bs=4096 count=16 2>&1;',
            'perf stat -x, -e instructions:u cfo-loop 2>&1;',
            'perf stat -x, -e instructions:u cfo-sys 2>&1', '--',
            '-d', 'in_asm,exec,nochain,int', '-dfilter', dfilter,
            '-D', log, '-accel', 'tcg,thread=single', '-icount', 'shift=0'],
            'the traced boot')
        boot = out
        counted = [int(f[0]) for f in (line.split(',')
                                       for line in out.splitlines())
                   if len(f) >= 3 and f[2] == 'instructions:u' and
                   f[0].isdigit()]
        if len(counted) != 2:
            sys.exit(f'perf stat did not count both programs:\n{out}')
        dec = [args.decoder, '--param', 'srcid_bits=8', '--param',
               'context_width_p=30', '--code', code]

        stats = dict(line.split(': ', 1) for line in run(
            dec + ['--output=stats', trace], 'decoding').splitlines()
            if ': ' in line)
        insns = int(stats['instructions'])
        t.check(stats['errors'] == '0' and
                stats['gaps outside the images'] == '0' and insns > 10 ** 9,
                f'the boot decodes from the code side stream alone: {insns} '
                f'instructions, errors {stats["errors"]}, gaps '
                f'{stats["gaps outside the images"]}')

        folded = {}
        for priv in ('U', 'S', 'M'):
            folded[priv] = collections.Counter()
            out = run(dec + ['--kallsyms', syms, '--quiet', '--output=folded',
                             f'--priv={priv}', trace], f'--priv={priv}')
            for line in out.splitlines():
                stack, n = line.rsplit(' ', 1)
                folded[priv][stack] += int(n)
        per_priv = {p: sum(c.values()) for p, c in folded.items()}
        t.check(sum(per_priv.values()) == insns,
                f'U + S + M instructions = all of them: {per_priv}')

        # the function that retired them: a stack's last frame (those
        # before it may be the user code a trap came from)
        leaves = collections.Counter()
        for stack, n in folded['S'].items():
            leaves[stack.split(';')[-1].replace('[trap] ', '')] += n
        unnamed = collections.Counter()
        for leaf, n in leaves.items():
            if leaf.startswith('0x'):
                unnamed[int(leaf, 16) < 1 << 32] += n
        t.check(not unnamed[False],
                f'S-mode code is named but at physical addresses, before '
                f'paging ({unnamed[True]} instructions): '
                f'{unnamed[False]} instructions at unnamed virtual addresses')
        stacks = '\n'.join(folded['S'])
        t.check('[trap] handle_exception' in stacks and
                'do_trap_ecall_u;__riscv_sys_getppid' in stacks,
                'traps enter handle_exception; getppid calls go through '
                'do_trap_ecall_u to __riscv_sys_getppid')

        # the module: named at its load address (the kallsyms of a boot
        # that loads it alike), its code from the code side stream, by
        # its functions (not the local labels its listing carries)
        in_mod = collections.Counter()
        for leaf, n in leaves.items():
            if leaf.endswith(f' [{MODULE}]'):
                in_mod[leaf.split()[0]] += n
        mod_lo, mod_hi = ranges[-1]
        t.check(in_mod[MODULE_FN] > 0 and
                f'{MODULE_FN} [{MODULE}]' in stacks and
                not any(n.startswith(('.L', '$')) for n in in_mod),
                f'the guest\'s module {MODULE} is decoded and named where '
                f'it was loaded ({MODULE_FN} at {mod_lo:#x}): '
                f'{sum(in_mod.values())} instructions in its functions '
                f'{dict(in_mod)}')

        want = expected_counts(start)
        got = collections.Counter()
        out = run(dec + ['--quiet', '--output=addrs', '--priv=U', trace],
                  '--priv=U addresses')
        hi = start + 36
        for line in out.splitlines():
            addr = int(line.split()[-1], 16)
            if start <= addr < hi:
                got[addr] += 1
        t.check(got == want,
                f'cfo-loop and cfo-sys at {start:#x}: each address retires '
                f'as their code says ({sum(got.values())} instructions, '
                f'{sum(want.values())} expected)' +
                ('' if got == want else
                 f'; got {sorted(got.items())}, expected '
                 f'{sorted(want.items())}'))
        t.check(sum(got.values()) == counted[0] + 1 + counted[1] +
                SYSCALLS + 1,
                f'the counters counted {counted[0]} (cfo-loop) and '
                f'{counted[1]} (cfo-sys) user instructions; decoded '
                f'{sum(got.values())} = those + 1 + {SYSCALLS + 1} ecalls')

        by_ctx = per_context(dec + ['--quiet', '--output=flow', '--priv=U',
                                    trace], start, hi)
        progs = sorted(by_ctx.values(), key=lambda c: c[start + 8])
        t.check(len(by_ctx) == 2 and
                progs == [sys_counts(start), loop_counts(start)],
                f'the programs ran in two contexts, each exactly its own '
                f'code: contexts {sorted(hex(c) for c in by_ctx)}, '
                f'{[sum(c.values()) for c in progs]} instructions')

        read = [int(line.split()[1]) for line in boot.splitlines()
                if line.startswith('cfo-window: ')]
        wstart, wend = (symbol(args.window, n)
                        for n in ('cfo_window_start', 'cfo_window_end'))
        win = window_counts(dec + ['--quiet', '--output=flow',
                                   f'--start={wstart:#x}',
                                   f'--stop={wend:#x}', '--every-window',
                                   trace], wstart, wend)
        wins = next(iter(win.values())) if len(win) == 1 else []
        ok = len(read) == len(WINDOWS) == len(wins)
        for i, (_, event, privs) in enumerate(WINDOWS):
            w = wins[i] if ok else collections.Counter()
            n = read[i] if ok else None
            counted = sum(w[p] - w[p + ' ecalls'] for p in privs)
            t.check(ok and counted == n and w['own'] == WINDOW_U and
                    w['own ecalls'] == ROUNDS,
                    f'cfo-window counting {event} on instret read {n} '
                    f'instructions between its rdinstret; decoded there: '
                    f'{"+".join(privs)} less their ecalls = {counted} '
                    f'({dict(sorted(w.items()))})' +
                    ('' if ok else f'; it read {len(read)} windows, '
                     f'{len(wins)} decoded, on harts {sorted(win)}'))

        want = record_items(log, ranges)
        got = decoded_items(dec + ['--quiet', '--output=flow'] +
                            [f'--range={lo:#x}-{hi:#x}' for lo, hi in ranges]
                            + [trace])
        sizes = {h: len(v) for h, v in sorted(want.items())}
        same = set(got) <= set(want) and \
            all(got.get(h, []) == want[h] for h in want)
        first = ''
        for h in sorted(want):
            g = got.get(h, [])
            k = next((i for i, (a, b) in enumerate(zip(g, want[h]))
                      if a != b), min(len(g), len(want[h])))
            if g != want[h]:
                first = (f'; hart {h} differs at {k}: decoded '
                         f'{g[k:k + 3]}, recorded {want[h][k:k + 3]}')
                break
        in_fn = sum(1 for items in want.values() for item in items
                    if mod_lo <= int(item.split()[1], 16) < mod_hi)
        t.check(same and sum(sizes.values()) > SYSCALLS and in_fn > 0,
                f'sampled windows ({", ".join(SAMPLED)}, the programs) '
                f'equal QEMU\'s record, per hart: {sizes} instructions '
                f'({in_fn} in {MODULE_FN})'
                + first)
    t.done()


if __name__ == '__main__':
    main()
