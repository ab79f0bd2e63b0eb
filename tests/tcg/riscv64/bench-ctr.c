/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Branch- and call-heavy guest workload for scripts/bench-ctr.
 *
 * The word at BENCH_MODE_ADDR (written by "-device loader" on the QEMU
 * command line, 0 when absent) selects what CTR does while the workload
 * runs in M-mode:
 *   0  CTR left inactive (mctrctl = 0), or no CTR at all;
 *   1  every transfer type recorded: mctrctl.M with NTBREN, so calls,
 *      returns, jumps, taken and not-taken branches are all recorded;
 *   2  the same without NTBREN (not-taken branches are not recorded).
 * The word after it, when not 0, is the number of rounds (default
 * BENCH_ROUNDS).  The workload computes a known result, so a run that
 * does not compute it fails; guest-bench-ctr runs it once as a test.
 */

#include "rt.h"
#include "ctr-decode.h"

#define BENCH_MODE_ADDR     0x80f00000UL
#define BENCH_FIB_N         27
#define BENCH_FIB_RESULT    196418
#define BENCH_ROUNDS        60

/* Naive recursion: a call, a return and branches per step. */
static unsigned long __attribute__((noinline)) fib(unsigned long n)
{
    if (n < 2) {
        return n;
    }
    return fib(n - 1) + fib(n - 2);
}

/* An indirect call and a data-dependent branch per element. */
static unsigned long __attribute__((noinline)) step_odd(unsigned long x)
{
    return 3 * x + 1;
}

static unsigned long __attribute__((noinline)) step_even(unsigned long x)
{
    return x >> 1;
}

static unsigned long collatz_steps(unsigned long limit)
{
    unsigned long (*step)(unsigned long);
    unsigned long total = 0;
    unsigned long i, x;

    for (i = 1; i < limit; i++) {
        for (x = i; x != 1; total++) {
            step = (x & 1) ? step_odd : step_even;
            /* Hide the target so that the call stays indirect. */
            asm("" : "+r"(step));
            x = step(x);
        }
    }
    return total;
}

int main(void)
{
    uint32_t mode = *(volatile uint32_t *)BENCH_MODE_ADDR; /* by loader */
    uint32_t rounds = *(volatile uint32_t *)(BENCH_MODE_ADDR + 4);
    unsigned long fibs = 0, steps = 0;
    uint32_t round;

    if (mode == 1 || mode == 2) {
        csr_write(CSR_SCTRDEPTH, 4);
        csr_write(CSR_MCTRCTL, CTRCTL_M | (mode == 1 ? CTRCTL_NTBREN : 0));
    }
    if (!rounds) {
        rounds = BENCH_ROUNDS;
    }
    for (round = 0; round < rounds; round++) {
        fibs += fib(BENCH_FIB_N);
        steps += collatz_steps(3000);
    }
    /* For the trace benchmark: instructions retired (bits per insn). */
    rt_printf("INSTRET %lu\n", (unsigned long)csr_read(CSR_MINSTRET));
    if (mode == 1 || mode == 2) {
        csr_write(CSR_MCTRCTL, 0);
        /* The last record is the return from collatz_steps(). */
        csr_write(CSR_SISELECT, CTR_ISELECT_FIRST);
        CHECK_EQ(csr_read(CSR_SIREG) & CTRSOURCE_V, 1);
    }
    CHECK_EQ(fibs, rounds * BENCH_FIB_RESULT);
    /* Sum over 1..2999 of the Collatz steps to reach 1 (OEIS A006577). */
    CHECK_EQ(steps, rounds * 215015UL);
    return 0;
}
