# SPDX-License-Identifier: GPL-2.0-or-later
"""The comparator units of a trace encoder, modelled from the Trace
Control Interface 1.0 ("Trace Encoder Filter Registers") as
docs/specs/riscv-trace.rst states them for this encoder, for the filter
tests' own working-out of what is traced.

A unit compares an input, unsigned, with its primary (P) and secondary
(S) values by the functions of trTeCompControl: equal, not equal, less
than, less or equal, greater than, greater or equal, always true;
primary function 6 is always false, secondary function 6 always true and
masks both the input and the primary value with the secondary one.
Match modes: P, P and S, not both, and latch: set by a primary match and
asserted up to and including the input of a secondary match; primary
function 6 in latch mode primes it.  The input is the instruction
address (iaddr, 0) or, with data trace, the data address (daddr, 3).
"""

EQ, NE, LT, LE, GT, GE, SPECIAL, TRUE = range(8)
MODE_P, MODE_P_AND_S, MODE_NOT_P_AND_S, MODE_LATCH = range(4)
IADDR, DADDR = 0, 3


def comp(j, reg):
    """The offset of register @reg of comparator unit @j."""
    return 0x600 + 0x20 * j + reg


def use_comp(k, j):
    """trTeFilterControl's MatchComp<k> on comparator unit @j."""
    return (1 << (4 * k)) | (j << (4 * k + 1))


def comp_regs(j, pfn, pval, sfn, sval, mode, pin=IADDR, sin=IADDR):
    """The register writes that set comparator unit @j."""
    return [(comp(j, 0), pin | sin << 2 | pfn << 4 | sfn << 8 | mode << 12),
            (comp(j, 0x10), pval & 0xffffffff), (comp(j, 0x14), pval >> 32),
            (comp(j, 0x18), sval & 0xffffffff), (comp(j, 0x1c), sval >> 32)]


def compare(fn, x, m):
    """Function @fn (0 to 5, 7) of input @x and value @m."""
    return {EQ: x == m, NE: x != m, LT: x < m, LE: x <= m, GT: x > m,
            GE: x >= m, TRUE: True}[fn]


class Comparators:
    """Units 0 to 7 from the registers @regs ({offset: value} written),
    and their latches.  Without @data the inputs read iaddr (as the
    encoder's WARL fields do without data trace)."""

    def __init__(self, regs, data=False):
        mask = 0x3770 | (0xf if data else 0)
        self.ctl = [regs.get(comp(j, 0), 0) & mask for j in range(8)]
        self.pval = [regs.get(comp(j, 0x10), 0) |
                     regs.get(comp(j, 0x14), 0) << 32 for j in range(8)]
        self.sval = [regs.get(comp(j, 0x18), 0) |
                     regs.get(comp(j, 0x1c), 0) << 32 for j in range(8)]
        self.latch = {j for j in range(8)
                      if self.ctl[j] >> 4 & 7 == SPECIAL and
                      self.ctl[j] >> 12 & 3 == MODE_LATCH}

    def output(self, j, iaddr, daddr=None):
        """Unit @j's output for an instruction at @iaddr or its access at
        @daddr; a latch moves."""
        ctl = self.ctl[j]
        pfn, sfn, mode = ctl >> 4 & 7, ctl >> 8 & 7, ctl >> 12 & 3
        x = daddr if ctl & 3 == DADDR else iaddr
        y = daddr if ctl >> 2 & 3 == DADDR else iaddr
        m = self.pval[j]
        if sfn == SPECIAL:
            x, m, s = x & self.sval[j], m & self.sval[j], True
        else:
            s = compare(sfn, y, self.sval[j])
        p = pfn != SPECIAL and compare(pfn, x, m)
        if mode == MODE_P:
            return p
        if mode == MODE_P_AND_S:
            return p and s
        if mode == MODE_NOT_P_AND_S:
            return not (p and s)
        out = j in self.latch or p
        self.latch.discard(j)
        if out and not s:
            self.latch.add(j)
        return out
