/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A C program for etrace-decode's coverage outputs, read against QEMU's
 * own record of the same run (tests/scripts/test-etrace-coverage.py):
 * loops and branches in functions of their own, a function the run never
 * calls, and machine timer interrupts all through the loops (run under
 * -icount shift=0, the same points each run).  Translation blocks end at
 * branches and calls, and interrupts are taken between blocks: many come
 * right after a branch or a call, whose outcome the decoder has from the
 * trace, not from the next instruction retired (the handler's).
 */

#include "rt.h"

#define VIRT_MTIMECMP   0x2004000
#define VIRT_MTIME      0x200bff8
#define TIMER_DELTA     50          /* mtime ticks between interrupts */
#define COLLATZ_MAX     2000
/* sum of the Collatz steps of 1 .. COLLATZ_MAX */
#define COLLATZ_STEPS   134100

/* volatile: the handler counts while main() runs */
static volatile unsigned long ticks;
/* volatile: false, but the compiler may not know it */
static volatile bool run_unused;

static void timer_write(uint64_t v)
{
    *(volatile uint64_t *)VIRT_MTIMECMP = v;    /* MMIO */
}

static uint64_t timer_read(void)
{
    return *(volatile uint64_t *)VIRT_MTIME;    /* MMIO */
}

static void on_timer(struct rt_frame *frame, int level)
{
    ticks++;
    timer_write(timer_read() + TIMER_DELTA);
}

/* Steps of @n to 1 (3n + 1 when odd, n / 2 when even). */
static __attribute__((noinline)) unsigned long collatz(unsigned long n)
{
    unsigned long steps = 0;

    while (n != 1) {
        if (n & 1) {
            n = 3 * n + 1;
        } else {
            n >>= 1;
        }
        steps++;
    }
    return steps;
}

/* Never called: its lines are found and not hit. */
static __attribute__((noinline)) unsigned long unused(unsigned long n)
{
    return n * n + 7;
}

int main(void)
{
    unsigned long sum = 0, n;

    rt_set_trap_handler(RT_LEVEL_M, CAUSE_INTERRUPT | 7, on_timer);
    timer_write(timer_read() + TIMER_DELTA);
    csr_set(CSR_MIE, 1UL << 7);
    csr_set(CSR_MSTATUS, 1UL << 3);
    for (n = 1; n <= COLLATZ_MAX; n++) {
        sum += collatz(n);
    }
    csr_clear(CSR_MSTATUS, 1UL << 3);
    csr_clear(CSR_MIE, 1UL << 7);
    timer_write(-1UL);
    if (run_unused) {
        sum += unused(sum);
    }
    CHECK_EQ(sum, COLLATZ_STEPS);
    CHECK(ticks > 0);
    return 0;
}
