# SPDX-License-Identifier: GPL-2.0-or-later
"""A trace decoded by etrace-decode, compared with QEMU's own record.

The round-trip drivers (test-etrace-roundtrip.py, test-etrace-filters.py,
test-trace-ram.py) share these steps:
  expected(log, rv32, harts)  each hart's flow from the record (record.py):
                              instruction addresses with their privilege,
                              and traps;
  rom_image(code, tmp)        the reset vector's code as a binary image;
  decoded(decoder, elf, ...)  the decoder's flow of each source (hart);
  split_times(items)          the timestamps out of a decoded flow;
  compare(hart, want, got, allow_gaps, images, code)
                              the decoded flow against the record, gaps
                              allowed where the flow left the images; up
                              to the record's last instruction;
  check_times(hart, items, times)
                              timestamp differences against the
                              instructions in between.
Failures end the driver (sys.exit) with the first difference shown.
"""

import os
import re
import struct
import subprocess
import sys

from rvcfo import record, streamcheck

PRIV_NAMES = {0: 'U', 1: 'S', 3: 'M', 5: 'VU', 6: 'VS'}
# ecall, ebreak, c.ebreak: (encoding, size)
TRAP_INSNS = ((0x00000073, 4), (0x00100073, 4), (0x9002, 2))
HART = re.compile(r'riscv_cpu_do_interrupt: hart:(\d+),')
TRACE_CPU = re.compile(r'^Trace (\d+):')
EPC = re.compile(r' epc=[0-9a-f]+ ')


def priv_of(flags):
    """Privilege name from TB flags (PRIV 23:22, V 21)."""
    priv = (flags >> 22) & 3
    if (flags >> 21) & 1:
        return 'VU' if priv == 0 else 'VS'
    return {0: 'U', 1: 'S', 3: 'M'}[priv]


def target_priv(stream, k):
    """Privilege of the first block after the trap at stream[k]."""
    for e in stream[k + 1:]:
        if isinstance(e, dict):
            return priv_of(e['flags'])
    return None


def expected(log, rv32, harts, accesses=None):
    """Per hart: the retired instructions and traps of QEMU's record.

    Listings (IN: ...) are held until the line that names their block's
    host address (Trace, Stopped), then go to the record of the hart that
    line is about, with the host address table shared by every hart's
    record; Stopped and rewound lines are about the hart last traced.

    With @accesses ({}), the plugin's memory accesses in the log go into
    it, per hart, as (index in the hart's flow of the instruction that
    made it, record.access()); those of instructions that did not retire
    are left out.
    """
    recs = {h: record.Record() for h in range(harts)}
    for r in recs.values():
        r._known = recs[0]._known
    held = []
    current = 0
    # (hart, position in its record's stream, access)
    seen = []
    with open(log, encoding='utf-8', errors='replace') as f:
        for line in f:
            a = record.access(line.rstrip('\n')) if accesses is not None \
                else None
            if a:
                # the block last entered made it
                h = current if a[5] is None else a[5]
                seen.append((h, len(recs[h].stream), a))
                continue
            m = TRACE_CPU.match(line) or HART.search(line)
            if m:
                current = int(m.group(1))
            elif not line.startswith(('Stopped', 'riscv_cf_insn_limit')) \
                    and 'cpu_io_recompile' not in line:
                held.append(line)
                continue
            for h in held:
                recs[current].feed(h)
            held = []
            recs[current].feed(line)
    mask = 0xffffffff if rv32 else (1 << 64) - 1
    out = {}
    code = {}
    for hart, rec in recs.items():
        flow = []
        priv = None
        starts = []
        for k, e in enumerate(rec.stream):
            starts.append(len(flow))
            if isinstance(e, dict):
                priv = priv_of(e['flags'])
                flow += [f'{priv} {pc:x}' for pc, _, _ in e['insns']]
            else:
                _, is_async, cause, epc, tval, last_code = e
                if epc >> 31 == 0x1ffffffff:
                    # -d int prints the epc of a 32-bit mode sign-extended
                    epc &= 0xffffffff
                if is_async and cause in (2, 6, 10) and \
                        target_priv(rec.stream, k) in ('VS', 'VU'):
                    # QEMU logs a VS-level interrupt by its hypervisor
                    # cause; vscause, which the encoder reports, holds
                    # the supervisor one (privileged spec, "Trap cause
                    # codes" in VS-mode).
                    cause -= 1
                if not is_async and last_code.get(epc, (0, 0)) in TRAP_INSNS:
                    # E-Trace reports ecall and ebreak as retired (itype 1
                    # with iretire = 1, ingressPort.adoc); QEMU's record
                    # shows them trapping before they complete.
                    flow.append(f'{priv} {epc & mask:x}')
                if is_async:
                    flow.append(f'trap interrupt cause={cause & 63}')
                else:
                    flow.append(f'trap exception cause={cause & 63} '
                                f'epc={epc & mask:x} tval={tval & mask:x}')
        out[hart] = flow
        code.update(rec.code)
        if accesses is not None:
            accesses[hart] = []
            for h, at, a in seen:
                block = rec.stream[at - 1] if h == hart and at else None
                if not isinstance(block, dict):
                    continue
                pcs = [pc for pc, _, _ in block['insns']]
                if a[4] in pcs:
                    accesses[hart].append((starts[at - 1] +
                                           pcs.index(a[4]), a))
    return out, code


def rom_image(code, tmp):
    """--bin arguments for the code QEMU ran below RAM (the reset vector),
    and its [lo, hi)."""
    path = os.path.join(tmp, 'rom.bin')
    addr = record.write_rom(code, path)
    if addr is None:
        return [], []
    return ['--bin', f'{path}@{addr:#x}'], \
        [(addr, addr + os.path.getsize(path))]


def protocol_of(qemu_args):
    """The E-Trace protocol QEMU's arguments ask the encoders for."""
    prefix = 'riscv-trace-encoder.protocol='
    for arg in qemu_args:
        if arg.startswith(prefix):
            return arg[len(prefix):]
    return '2.0'


def data_traced(qemu_args):
    """QEMU's arguments give the encoders data trace (a type field)."""
    return 'riscv-trace-encoder.data-trace=on' in qemu_args


def decoder_cmd(decoder, elf, images, trace, srcid_bits, cpu, output,
                protocol='2.0', data=False):
    zc = 'on' if 'zcmp=on' in cpu or 'zcmt=on' in cpu else 'off'
    return [decoder, f'--output={output}', '--quiet'] + \
        (['--elf', elf] if elf else []) + \
        [f'--zc={zc}', f'--protocol={protocol}'] + \
        (['--data'] if data else []) + images + \
        ['--param', f'srcid_bits={srcid_bits}', trace]


def decoded(decoder, elf, images, trace, srcid_bits, cpu, protocol='2.0',
            data=False, contexts=None):
    """Per srcID: the decoded flow lines, without the source column (nor
    data accesses, nor context changes: those go to @contexts, a dict
    srcID -> [context, ...], when given)."""
    cmd = decoder_cmd(decoder, elf, images, trace, srcid_bits, cpu, 'flow',
                      protocol, data)
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0 or res.stderr:
        sys.exit(f'decoder failed (exit {res.returncode}): {" ".join(cmd)}'
                 f'\n{res.stderr}')
    out = {}
    for line in res.stdout.splitlines():
        src, rest = line.split(' ', 1)
        words = rest.split()
        if words[0] == 'data':
            continue
        if words[0] == 'context':
            if contexts is not None:
                contexts.setdefault(int(src), []).append(int(words[1], 16))
            continue
        if words[0] == 'gap':
            # 'gap no program image', 'gap trace ended', ...
            rest = ' '.join(words)
        elif words[0] not in ('trap', 'time'):
            rest = f'{words[0]} {words[1]}'
        out.setdefault(int(src), []).append(rest)
    return out


def split_times(got):
    """The decoded items without the time lines, and the times: (number
    of items before, time) for each time that follows an instruction or
    a trap."""
    items, times = [], []
    for g in got:
        if g.startswith('time '):
            if items and not items[-1].startswith('gap'):
                times.append((len(items), int(g.split()[1])))
        else:
            items.append(g)
    return items, times


def check_times(hart, items, times):
    """Clock ticks between timed items: one per instruction; up to one
    per exception of an instruction that did not retire (ecall and
    ebreak, which retire, are items of their own).  Returns how many
    differences were exact, and how many within those bounds."""
    insns, faults = [0], [0]
    for k, g in enumerate(items):
        words = g.split()
        fault = 0
        if words[0] not in ('gap', 'trap'):
            insns.append(insns[-1] + 1)
        else:
            insns.append(insns[-1])
        if words[0] == 'trap' and words[1] == 'exception':
            epc = words[3].split('=')[1]
            prev = items[k - 1].split() if k else []
            fault = 0 if len(prev) == 2 and prev[0] not in ('gap', 'trap') \
                and prev[1] == epc else 1
        faults.append(faults[-1] + fault)
    exact = bounded = 0
    for (a, ta), (b, tb) in zip(times, times[1:]):
        # the count restarts after a gap
        if any(items[k].startswith('gap') for k in range(a, b)):
            continue
        n = insns[b] - insns[a]
        e = faults[b] - faults[a]
        if not n <= tb - ta <= n + e:
            sys.exit(f'hart {hart}: time {ta} after {items[a - 1]} (item '
                     f'{a - 1}), time {tb} after {items[b - 1]} (item '
                     f'{b - 1}): {tb - ta} ticks apart, {n} instructions '
                     f'and {e} exceptions')
        if e:
            bounded += 1
        else:
            exact += 1
    if len(times) > 1 and not exact:
        sys.exit(f'hart {hart}: no two timestamps to compare')
    return exact, bounded


def check_prescaled(hart, items, times, store, prescale):
    """Absolute timestamps: the counter counts the hart's clock from
    reset (one tick per instruction under -icount shift=0: a time is the
    number of instructions up to the one it follows, that one included),
    until the instruction at @store sets trTsPrescale to @prescale; from
    then on it advances by one every 4^prescale ticks (Trace Control
    Interface, trTsControl), from the value it had after the store.
    Returns how many times were checked."""
    insns = [0]
    for g in items:
        insns.append(insns[-1] + (not g.startswith(('gap', 'trap'))))
    at = next((k for k, g in enumerate(items)
               if not g.startswith(('gap', 'trap')) and
               int(g.split()[1], 16) == store), None)
    if at is None:
        sys.exit(f'hart {hart}: the flow does not reach the store to '
                 f'trTsControl at {store:x}')
    base = insns[at + 1]
    after = 0
    for k, t in times:
        n = insns[k]
        want = n if n <= base else base + ((n - base) >> (2 * prescale))
        if t != want:
            sys.exit(f'hart {hart}: time {t} after {items[k - 1]} (item '
                     f'{k - 1}, {n} instructions from reset, {base} up to '
                     f'the store of prescale {prescale}): the counter '
                     f'reads {want} there')
        after += n > base
    if after < 2:
        sys.exit(f'hart {hart}: {after} timestamps after the prescale')
    return len(times)


def loaded(elf):
    """[lo, hi) of each PT_LOAD segment's file-backed part: the code an
    --elf image gives the decoder."""
    with open(elf, 'rb') as f:
        data = f.read()
    is64 = data[4] == 2
    phoff, phentsize, phnum = (
        (struct.unpack_from('<Q', data, 32)[0],) +
        struct.unpack_from('<HH', data, 54) if is64 else
        (struct.unpack_from('<I', data, 28)[0],) +
        struct.unpack_from('<HH', data, 42))
    out = []
    for k in range(phnum):
        at = phoff + k * phentsize
        if is64:
            typ, _, _, vaddr, _, filesz = struct.unpack_from(
                '<IIQQQQ', data, at)
        else:
            typ, _, vaddr, _, filesz = struct.unpack_from('<IIIII', data, at)
        if typ == 1:
            out.append((vaddr, vaddr + filesz))
    return out


class ElfCode(dict):
    """{pc: (encoding, size)} of the record, and for code it never ran,
    from the ELF file's loaded segments."""

    def __init__(self, code, elf):
        super().__init__(code)
        with open(elf, 'rb') as f:
            self._data = f.read()
        is64 = self._data[4] == 2
        d = self._data
        phoff, phentsize, phnum = (
            (struct.unpack_from('<Q', d, 32)[0],) +
            struct.unpack_from('<HH', d, 54) if is64 else
            (struct.unpack_from('<I', d, 28)[0],) +
            struct.unpack_from('<HH', d, 42))
        self._segs = []
        for k in range(phnum):
            at = phoff + k * phentsize
            if is64:
                typ, _, off, vaddr, _, filesz = struct.unpack_from(
                    '<IIQQQQ', d, at)
            else:
                typ, off, vaddr, _, filesz = struct.unpack_from(
                    '<IIIII', d, at)
            if typ == 1:
                self._segs.append((vaddr, off, filesz))

    def __contains__(self, pc):
        return super().__contains__(pc) or self._at(pc) is not None

    def file_bytes(self, lo, hi):
        """The bytes [@lo, @hi) of the ELF file's loaded segments."""
        for vaddr, off, size in self._segs:
            if vaddr <= lo <= hi <= vaddr + size:
                return self._data[off + lo - vaddr:off + hi - vaddr]
        raise KeyError(lo)

    def __missing__(self, pc):
        v = self._at(pc)
        if v is None:
            raise KeyError(pc)
        return v

    def _at(self, pc):
        for vaddr, off, size in self._segs:
            if vaddr <= pc and pc + 2 <= vaddr + size:
                lo = self._data[off + pc - vaddr] | \
                    self._data[off + pc - vaddr + 1] << 8
                if lo & 3 != 3:
                    return lo, 2
                if pc + 4 <= vaddr + size:
                    return int.from_bytes(
                        self._data[off + pc - vaddr:off + pc - vaddr + 4],
                        'little'), 4
        return None


def same(got, want):
    """Whether a decoded item is QEMU's; after a gap in the flow (code
    outside the images) the decoder may not know a trap's EPC: 'epc=?'."""
    if ' epc=? ' in got:
        want = EPC.sub(' epc=? ', want)
    return got == want


def segments(hart, want, got, allow_gaps, images):
    """Where each run of the decoded flow between gaps starts in @want."""
    runs, cur, unknown, between = [], [], [], []
    for g in got + ['gap']:
        if not g.startswith('gap'):
            if not cur and runs:
                # only code no image holds between the runs
                unknown.append(all(b == 'gap no program image'
                                   for b in between))
            cur.append(g)
            between = []
        else:
            if cur:
                runs.append(cur)
                cur = []
            between.append(g)
    if not allow_gaps and not all(unknown):
        sys.exit(f'hart {hart}: the decoded flow has gaps')
    at, out = 0, []
    for run in runs:
        if out or allow_gaps:
            # tracing (re)starts where the guest started it, or after lost
            # packets: at the first place from which QEMU ran the run
            at = next((k for k in range(at, len(want))
                       if same(run[0], want[k]) and
                       all(same(run[i], want[k + i])
                           for i in range(min(len(run), len(want) - k)))),
                      None)
            if at is None:
                sys.exit(f'hart {hart}: after a gap the decoded flow goes '
                         f'on with {run[0]} and {len(run) - 1} more items, '
                         'which QEMU did not run in that order then')
        if out and unknown[len(out) - 1]:
            # the gap is code no image holds, and nothing else
            end = out[-1][0] + len(out[-1][1])
            for w in want[end:at]:
                words = w.split()
                if words[0] == 'trap' or \
                        any(lo <= int(words[1], 16) < hi
                            for lo, hi in images):
                    sys.exit(f'hart {hart}: a gap in the decoded flow '
                             f'leaves out {w}, which an image holds')
        out.append((at, run))
        at += len(run)
    return out


def compare(hart, want_all, got_all, allow_gaps, images, code=None,
            more_rounds=False):
    """The decoded flow @got_all against the record @want_all; without
    gaps, up to the record's last instruction (final_loop()).
    @more_rounds: @got_all is another run's, whose final loop may have
    run longer.  Without @code the flow must be the whole record."""
    insns = traps = 0
    runs = segments(hart, want_all, got_all, allow_gaps, images)
    for k, (at, got) in enumerate(runs):
        # with gaps the guest also stops tracing before it ends
        last = k + 1 == len(runs) and not allow_gaps
        want = want_all[at:] if last else want_all[at:at + len(got)]
        loop = final_loop(want, code, more_rounds) if last else None
        i, t = compare_run(hart, want, got, loop)
        insns += i
        traps += t
    if not runs and want_all:
        sys.exit(f'hart {hart}: nothing decoded; QEMU ran {len(want_all)} '
                 f'items, the first {want_all[0]}')
    return insns, traps


def loop_next(pc, code):
    """The instruction after the one at @pc when no packet reports it:
    the next one or a jal x0 / c.j target; None for anything else that
    changes the flow (branches, other jumps, system instructions but
    wfi)."""
    insn, size = code[pc]
    if streamcheck.kind(insn, size):
        return None
    if size == 4:
        op = insn & 0x7f
        if op == 0x6f:
            if (insn >> 7) & 0x1f:
                return None         # a call
            imm = ((insn >> 31) << 20 | ((insn >> 12) & 0xff) << 12 |
                   ((insn >> 20) & 1) << 11 | ((insn >> 21) & 0x3ff) << 1)
            return pc + imm - ((insn >> 31) << 21)
        if op == 0x73 and insn != 0x10500073:
            return None             # system, but wfi
        return pc + 4
    if insn & 3 == 1 and insn >> 13 == 5:
        bits = [(11, 12), (4, 11), (9, 10), (8, 9), (10, 8), (6, 7),
                (7, 6), (3, 5), (2, 4), (1, 3), (5, 2)]
        imm = sum(((insn >> at) & 1) << to for to, at in bits)
        return pc + imm - ((insn >> 12 & 1) << 12)    # c.j
    if insn & 3 == 1 and insn >> 13 == 1:
        return None                 # c.jal (RV32)
    return pc + 2


def final_loop(want, code, more_rounds=False):
    """How the flow may end: (start, pcs, last, more_rounds).  The run
    ends in a loop without a branch or an uninferable jump (the
    finisher's "j ." or "wfi; j"), whose rounds E-Trace does not count
    (an inferable jump makes no packet): a decoder following the last
    packet stops at the first round that reaches the reported
    instruction, and QEMU may stop the hart before the encoder takes in
    the loop's first round.  So the flow must reach item @start - 1 (the
    last before the loop, e.g. the finisher's store) and may stop there or
    in any round after it; with @more_rounds (another run, whose loop ran
    longer) it may go on in it too.  None when the run
    does not end so: then the flow must be the whole record."""
    if not want:
        return None
    exact = len(want) - 1, set(), want[-1], more_rounds
    if code is None or want[-1].startswith(('trap', 'gap')):
        return exact
    end = int(want[-1].split()[1], 16)
    pcs = {end}
    pc = loop_next(end, code) if end in code else None
    for _ in range(16):
        if pc is None or pc == end or pc not in code:
            break
        pcs.add(pc)
        pc = loop_next(pc, code)
    if pc != end:
        # the record may stop just before the final loop (QEMU stopped
        # the hart as it got there): the flow may go on along the
        # instructions no packet reports, into the loop
        path = [end]
        pc = loop_next(end, code) if end in code else None
        while pc is not None and pc in code and pc not in path and \
                len(path) < 32:
            path.append(pc)
            pc = loop_next(pc, code)
        if pc is None or pc not in path:
            return exact
        return len(want) - 1, set(path), want[-1], True
    start = len(want) - 1
    while start > 0 and not want[start - 1].startswith(('trap', 'gap')) \
            and int(want[start - 1].split()[1], 16) in pcs:
        start -= 1
    # the rounds are not in the trace: a flow may show one more than
    # the record (QEMU's record shows a block when it enters it)
    return start, pcs, want[-1], True


def compare_run(hart, want, got, loop):
    """@got against @want; with @loop (final_loop()) up to the record's
    last instruction, else a prefix."""
    n = len(got)
    for i in range(min(n, len(want))):
        if not same(got[i], want[i]):
            print(f'hart {hart}: item {i} differs (decoded / QEMU):')
            for j in range(max(0, i - 8), min(n, i + 4)):
                mark = '>' if j == i else ' '
                w = want[j] if j < len(want) else '-'
                print(f' {mark} {got[j]:40} {w}')
            sys.exit(1)
    if loop is not None:
        start, pcs, last, more_rounds = loop
        # rounds of the final loop beyond the record's
        extra = got[len(want):]
        if not more_rounds and extra or \
                any(g.startswith(('trap', 'gap')) or
                    int(g.split()[1], 16) not in pcs for g in extra):
            sys.exit(f'hart {hart}: {n} items decoded, QEMU ran '
                     f'{len(want)}; then {extra[0]}')
        if n < start:
            sys.exit(f'hart {hart}: {n} of {len(want)} items decoded, the '
                     f'last {got[-1] if got else None}; QEMU went on with '
                     f'{want[min(n, len(want) - 1)]} (its final loop from '
                     f'item {start}, ending at {last})')
    elif n > len(want):
        sys.exit(f'hart {hart}: {n} items decoded, QEMU ran {len(want)}')
    insns = sum(1 for g in got if not g.startswith('trap'))
    return insns, len(got) - insns
