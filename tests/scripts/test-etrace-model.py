#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The trace encoder's packets against the reference algorithm run on
QEMU's own record of the instructions it executed.

Usage: test-etrace-model.py --qemu QEMU --elf ELF --cpu CPU
                            [-- QEMU ARGUMENTS...]

Runs the guest once with "-M virt,trace=on,trace-start=on" writing the
trace to a file, and in the same run QEMU's own record of what it
translated and executed (-d in_asm,exec,nochain,int, read as
rvcfo/record.py describes).
From that record it builds the retired-instruction stream the E-Trace
spec's encoder sees, one instruction at a time (ingressPort.adoc): the
instruction type from its encoding, branches taken when the next
instruction is not the one after them, ecall/ebreak/c.ebreak retiring
with an exception, other exceptions and interrupts as rows that did not
retire, the privilege from each block's flags.  It runs the reference
algorithm (exampleAlgorithm.adoc) on that stream, one instruction at a
time, with the choices docs/specs/riscv-trace.rst gives, and requires
the packets in the trace file to be exactly those, in order, apart from
the end of the run (the finisher's spin loop).
"""

import re
import sys
import tempfile

import etrace_packets
from rvcfo import cli, record

PRIV_U, PRIV_S, PRIV_M, PRIV_VU, PRIV_VS = 0, 1, 3, 5, 6
RESYNC_MAX = 1 << (8 + 4)       # trTeInstSyncMax reset value 8, packets
TAIL = 4


def priv_of(flags):
    """E-Trace privilege code from TB flags (PRIV 23:22, V 21)."""
    priv = (flags >> 22) & 3
    if (flags >> 21) & 1:
        return PRIV_VU if priv == 0 else PRIV_VS
    return {0: PRIV_U, 1: PRIV_S, 3: PRIV_M}[priv]


def read_record(log):
    """QEMU's record: blocks (dicts) and traps (tuples), in order."""
    rec = record.Record()
    with open(log, encoding='utf-8', errors='replace') as f:
        for line in f:
            rec.feed(line)
    return rec.stream


def jalr_type(rd, rs1):
    """ctrdata.TYPE / itype of jalr rd, rs1 (the two specs share it)."""
    rd_link, rs1_link = rd in (1, 5), rs1 in (1, 5)
    if rd_link:
        return 12 if rs1_link and rs1 != rd else 8
    if rs1_link:
        return 13
    return 10 if rd == 0 else 14


def classify(insn, size):
    """('branch'|'jump', itype) or None, from the encoding."""
    if size == 4:
        op = insn & 0x7f
        if op == 0x63:
            return 'branch'
        if op == 0x67:
            itype = jalr_type((insn >> 7) & 31, (insn >> 15) & 31)
            # rs1 = x0: the target is the constant in the encoding, an
            # inferable jump (ingressPort.adoc, "Jump classification")
            return itype | 1 if (insn >> 15) & 31 == 0 else itype
        if insn in (0x30200073, 0x10200073, 0x70200073):
            return 3
        return 0
    quadrant, funct3 = insn & 3, insn >> 13
    if quadrant == 1 and funct3 in (6, 7):
        return 'branch'
    if quadrant == 2 and funct3 == 5:
        # Zcmt cm.jt/cm.jalt: the target is read from the jump table,
        # so it is uninferable; Zcmp cm.popret(z) returns.
        if (insn >> 10) & 7 == 0:
            return 8 if (insn >> 2) & 0xff >= 32 else 10
        if (insn >> 8) & 0x1f in (0x1c, 0x1e):
            return 13
    if quadrant == 2 and funct3 == 4 and (insn >> 2) & 31 == 0:
        rs1 = (insn >> 7) & 31
        if rs1:
            return jalr_type(1 if (insn >> 12) & 1 else 0, rs1)
    return 0


def branch_taken(insn, size, pc, nxt):
    """Outcome of the branch at @pc followed by @nxt."""
    if size == 4:
        off = ((insn >> 31) & 1) << 12 | ((insn >> 7) & 1) << 11 | \
              ((insn >> 25) & 0x3f) << 5 | ((insn >> 8) & 0xf) << 1
        off -= (insn >> 31) << 13
        rs1, rs2, funct3 = (insn >> 15) & 31, (insn >> 20) & 31, \
            (insn >> 12) & 7
    else:
        off = ((insn >> 12) & 1) << 8 | ((insn >> 5) & 3) << 6 | \
              ((insn >> 2) & 1) << 5 | ((insn >> 10) & 3) << 3 | \
              ((insn >> 3) & 3) << 1
        off -= ((insn >> 12) & 1) << 9
        rs1 = rs2 = funct3 = None
    if off != size:
        return nxt != pc + size
    # Both outcomes lead to the next instruction: decide from the
    # condition when it does not depend on register values.
    if rs1 is not None and rs1 == rs2:
        return funct3 in (0, 5, 7)      # beq, bge, bgeu
    sys.exit(f'branch at 0x{pc:x} to the next instruction: its outcome '
             'is not in the record')


def rows_of(stream, rv32):
    """The encoder's input, one instruction at a time."""
    rows = []
    priv = PRIV_M
    xl32 = rv32
    known = True
    for ent in stream:
        if isinstance(ent, dict):
            priv = priv_of(ent['flags'])
            xl32 = (ent['flags'] >> 16) & 3 == 1      # TB flags XL
            known = True
            for pc, size, insn in ent['insns']:
                rows.append({'addr': pc, 'size': size, 'insn': insn,
                             'priv': priv, 'retired': True,
                             'kind': classify(insn, size)})
                # after a trap return, the mode is known again only once
                # a block is entered (its flags say which)
                known = rows[-1]['kind'] != 3
            continue
        _, is_async, cause, epc, tval, code = ent
        if xl32:
            epc &= 0xffffffff
        if rv32:
            tval &= 0xffffffff
        insn = code.get(epc)
        # ecall, ebreak and c.ebreak retire before their trap, also when
        # it becomes a double trap (cause 16)
        retires = not is_async and insn is not None and \
            (8 <= cause <= 11 or cause == 16 and insn == (0x73, 4) or
             cause in (3, 16) and record.is_ebreak(*insn))
        # A trap taken at the target of a trap return before a block was
        # entered there comes from the mode the xRET went to, which
        # QEMU's record does not show: the packets may say any.
        rows.append({'addr': epc, 'priv': priv if known else None,
                     'retired': retires,
                     'itype': 2 if is_async else 1, 'cause': cause,
                     'tval': tval, 'kind': None})
    # An interrupt taken into VS-mode is reported with the cause the
    # handler sees in vscause (VS-level interrupts 2, 6, 10 become 1, 5,
    # 9); QEMU's record prints the cause before that conversion.  The
    # mode a trap goes to is that of the row after it.
    for i, r in enumerate(rows):
        if r['kind'] is None and r['itype'] == 2 and i + 1 < len(rows) and \
                rows[i + 1]['priv'] == PRIV_VS and r['cause'] in (2, 6, 10):
            r['cause'] -= 1
    # Branch outcomes from the next row's address.
    for i, r in enumerate(rows):
        if r['kind'] is None:
            continue
        if r['kind'] == 'branch':
            nxt = rows[i + 1]['addr'] if i + 1 < len(rows) else None
            taken = nxt is not None and \
                branch_taken(r['insn'], r['size'], r['addr'], nxt)
            r['itype'] = 5 if taken else 4
        else:
            r['itype'] = r['kind']
    return rows


class Model:
    """The reference algorithm, one row at a time, with the choices of
    docs/specs/riscv-trace.rst."""

    UPDISCON = (3, 8, 10, 12, 13, 14)

    def __init__(self):
        self.out = []
        self.branches = 0
        self.map = 0
        self.last = 0
        self.count = 0
        self.trap_reported = False

    def send(self, text):
        self.out.append(text)
        self.branches = 0
        self.map = 0
        self.count += 1

    def addr_field(self, addr, diff):
        v = (addr - self.last) if diff else addr
        return (v >> 1) & ((1 << 63) - 1)

    def f3(self, sub, r, exc=None, thaddr=None):
        b = 0 if r.get('itype') == 5 else 1
        a = self.addr_field(r['addr'], False)
        p = '?' if r['priv'] is None else r['priv']
        if sub == 0:
            self.send(f"F3.0 b={b} p={p} a={a:x}")
        else:
            text = (f"F3.1 b={b} p={p} c={exc['cause']} "
                    f"i={1 if exc['itype'] == 2 else 0} th={thaddr} a={a:x}")
            if exc['itype'] != 2:
                text += f" tval={exc['tval']:x}"
            self.send(text)
        self.last = r['addr']
        self.count = 0

    def f12(self, r, updiscon):
        a = self.addr_field(r['addr'], True)
        msb = a >> 62
        notify = msb
        upd = notify ^ int(updiscon)
        st = f'{notify}{upd}{upd}'
        if self.branches:
            self.send(f"F1 n={self.branches} m={self.map:x} a={a:x} s={st}")
        else:
            self.send(f"F2 a={a:x} s={st}")
        self.last = r['addr']

    def step(self, prev, cur, nxt):
        itype = cur.get('itype', 0)
        if itype in (4, 5):
            if itype == 4:
                self.map |= 1 << self.branches
            self.branches += 1
        prev_exc = prev is not None and prev.get('itype') in (1, 2)
        prev_upd = prev is not None and prev.get('itype') in self.UPDISCON
        next_exc = nxt is not None and nxt.get('itype') in (1, 2)
        next_priv = nxt['priv'] if nxt is not None else cur['priv']
        reported, self.trap_reported = self.trap_reported, False
        if prev_exc:
            if not cur['retired']:
                self.f3(1, cur, prev, 0)
                self.trap_reported = next_exc
            elif reported:
                self.f3(0, cur)
            else:
                self.f3(1, cur, prev, 1)
            return
        if not cur['retired']:
            if prev is None or prev_upd:
                self.f3(1, cur, cur, 0)
                self.trap_reported = True
            return
        if prev is None or cur['priv'] != prev['priv'] or \
                self.count > RESYNC_MAX:
            self.f3(0, cur)
            return
        if prev_upd:
            self.f12(cur, next_exc or next_priv != cur['priv'] or
                     self.count == RESYNC_MAX)
            return
        if (self.count == RESYNC_MAX and self.branches) or itype in (1, 2) \
                or (nxt is not None and nxt.get('itype') in (1, 2) and
                    not nxt['retired']) or \
                (self.branches and next_priv != cur['priv']):
            self.f12(cur, False)
            return
        if self.branches == 31:
            self.send(f"F1 n=0 m={self.map:x}")


def model_packets(rows):
    m = Model()
    m.send('S ie=1 q=0 o=0')
    for i, cur in enumerate(rows):
        m.step(rows[i - 1] if i else None, cur,
               rows[i + 1] if i + 1 < len(rows) else None)
    return m.out


def main():
    """Trace the guest with the record; compare with the model."""
    args = cli.parse(cli.parser(__doc__, elf=True, cpu=True,
                                qemu_args=True))
    cpu = args.cpu
    with tempfile.TemporaryDirectory() as tmp:
        log, trace = record.run_traced(args.qemu, args.elf, cpu,
                                       args.qemu_args, tmp)
        stream = read_record(log)
        with open(trace, 'rb') as f:
            data = f.read()
    got = [etrace_packets.describe(p)
           for _, p, _ in etrace_packets.packets(data)]
    want = model_packets(rows_of(stream, cpu.startswith('rv32')))

    n = min(len(got), len(want)) - TAIL
    if n < 10:
        sys.exit(f'too few packets: {len(got)} in the trace, {len(want)} '
                 'from the model')
    for i in range(n):
        if not re.fullmatch(re.escape(want[i]).replace(r'\?', r'\d'),
                            got[i]):
            print(f'packet {i} differs:')
            for j in range(max(0, i - 6), min(n, i + 4)):
                mark = '>' if j == i else ' '
                print(f' {mark} model {want[j]}\n   trace {got[j]}')
            sys.exit(1)
    if abs(len(got) - len(want)) > TAIL:
        sys.exit(f'{len(got)} packets in the trace, {len(want)} from the '
                 'model')
    kinds = {}
    for g in got:
        k = g.split()[0]
        kinds[k] = kinds.get(k, 0) + 1
    print(f'{n} packets equal the reference algorithm on QEMU\'s record '
          f'({sum(1 for e in stream if isinstance(e, dict))} blocks); '
          + ', '.join(f'{k} {v}' for k, v in sorted(kinds.items())))


if __name__ == '__main__':
    main()
