/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runtime's trap vectors and C handlers at every level:
 * - a breakpoint taken in M-mode reaches the M-level handler;
 * - delegated through medeleg, breakpoints from U and HS reach the HS
 *   vector (stvec), and from VS/VU too while hedeleg does not delegate;
 * - delegated further through hedeleg, breakpoints from VS and VU reach
 *   the VS vector (vstvec);
 * - an interrupt (supervisor software interrupt pended in mip, taken in
 *   M-mode) reaches the interrupt handler, not an exception handler.
 * Each handler records where the trap came from and skips the ebreak.
 */

#include "rt.h"

#define SSIP    (1UL << 1)
#define MSTATUS_MIE (1UL << 3)

struct seen {
    int count;
    int level;
    int from_mode;
    unsigned long epc;
};

/* volatile: updated by trap handlers */
static volatile struct seen seen;

static void on_trap(struct rt_frame *f, int level)
{
    seen.count++;
    seen.level = level;
    seen.epc = f->epc;
    seen.from_mode = rt_trapped_mode(level, f);
    if (f->cause & CAUSE_INTERRUPT) {
        csr_clear(CSR_MIP, SSIP);
    } else {
        rt_skip_insn(f);
    }
}

static long do_ebreak(long unused)
{
    asm volatile("ebreak" : : : "memory");
    return 0;
}

static void expect_breakpoint(int mode, int level)
{
    memset((void *)&seen, 0, sizeof(seen));
    if (mode == RT_MODE_M) {
        do_ebreak(0);
    } else {
        rt_call_in_mode(mode, do_ebreak, 0);
    }
    CHECK_EQ(seen.count, 1);
    CHECK_EQ(seen.level, level);
    CHECK_EQ(seen.from_mode, mode);
}

int main(void)
{
    for (int level = RT_LEVEL_M; level <= RT_LEVEL_VS; level++) {
        rt_set_trap_handler(level, CAUSE_BREAKPOINT, on_trap);
    }

    /* No delegation: everything traps to M. */
    expect_breakpoint(RT_MODE_M, RT_LEVEL_M);
    expect_breakpoint(RT_MODE_U, RT_LEVEL_M);

    /* Breakpoints delegated to (H)S-mode. */
    csr_write(CSR_MEDELEG, 1UL << CAUSE_BREAKPOINT);
    expect_breakpoint(RT_MODE_M, RT_LEVEL_M);   /* M traps stay in M */
    expect_breakpoint(RT_MODE_S, RT_LEVEL_HS);
    expect_breakpoint(RT_MODE_U, RT_LEVEL_HS);
    if (rt_has_h) {
        expect_breakpoint(RT_MODE_VS, RT_LEVEL_HS);
        expect_breakpoint(RT_MODE_VU, RT_LEVEL_HS);

        /* ... and on to VS-mode. */
        csr_write(CSR_HEDELEG, 1UL << CAUSE_BREAKPOINT);
        expect_breakpoint(RT_MODE_VS, RT_LEVEL_VS);
        expect_breakpoint(RT_MODE_VU, RT_LEVEL_VS);
        expect_breakpoint(RT_MODE_S, RT_LEVEL_HS);
        csr_write(CSR_HEDELEG, 0);
    }
    csr_write(CSR_MEDELEG, 0);

    /* Back to no delegation. */
    expect_breakpoint(RT_MODE_S, RT_LEVEL_M);

    /* An interrupt reaches the interrupt handler of its cause. */
    memset((void *)&seen, 0, sizeof(seen));
    rt_set_trap_handler(RT_LEVEL_M, CAUSE_INTERRUPT | 1, on_trap);
    csr_set(CSR_MIE, SSIP);
    csr_set(CSR_MIP, SSIP);
    CHECK_EQ(seen.count, 0);
    csr_set(CSR_MSTATUS, MSTATUS_MIE);
    asm volatile("nop" : : : "memory");
    csr_clear(CSR_MSTATUS, MSTATUS_MIE);
    csr_clear(CSR_MIE, SSIP);
    CHECK_EQ(seen.count, 1);
    CHECK_EQ(seen.level, RT_LEVEL_M);
    CHECK_EQ(seen.from_mode, RT_MODE_M);
    CHECK_EQ(csr_read(CSR_MIP) & SSIP, 0);
    return 0;
}
