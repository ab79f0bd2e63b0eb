/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loop-heavy guest workload for scripts/bench-etrace and scripts/bench-ctr:
 * tight loops, an insertion sort and short branchy blocks, few calls.
 * Where bench-ctr.c is dominated by calls, returns and indirect calls,
 * this one is dominated by conditional branches a few instructions
 * apart, in blocks chained to each other.
 *
 * The word at BENCH_MODE_ADDR selects CTR as for bench-ctr.c (0: none,
 * 1: every transfer type recorded in M-mode, 2: without NTBREN); the word
 * after it, when not 0, is the number of rounds (default BENCH_ROUNDS).
 * Each round checks its own results, so a run that computes anything
 * else fails.
 */

#include "rt.h"
#include "ctr-decode.h"

#define BENCH_MODE_ADDR     0x80f00000UL
#define BENCH_ROUNDS        20
#define SORT_N              400

static uint32_t data[SORT_N];

/* A linear congruential generator (Numerical Recipes' constants). */
static uint32_t lcg(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

/* Short blocks: a branch every two or three instructions. */
static void __attribute__((noinline)) insertion_sort(uint32_t *a,
                                                     unsigned n)
{
    unsigned i, j;

    for (i = 1; i < n; i++) {
        uint32_t v = a[i];

        for (j = i; j > 0 && a[j - 1] > v; j--) {
            a[j] = a[j - 1];
        }
        a[j] = v;
    }
}

/* One bit at a time: a data-dependent branch per bit. */
static unsigned __attribute__((noinline)) bits_set(uint32_t x)
{
    unsigned n = 0;

    while (x) {
        if (x & 1) {
            n++;
        }
        x >>= 1;
    }
    return n;
}

/* The same count without a loop (SWAR), to check the loop. */
static unsigned bits_set_swar(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}

/* A tight counting loop with a compare in its body. */
static unsigned long __attribute__((noinline)) count_below(const uint32_t *a,
                                                           unsigned n,
                                                           uint32_t limit)
{
    unsigned long c = 0;
    unsigned i;

    for (i = 0; i < n; i++) {
        c += a[i] < limit;
    }
    return c;
}

int main(void)
{
    uint32_t mode = *(volatile uint32_t *)BENCH_MODE_ADDR; /* by loader */
    uint32_t rounds = *(volatile uint32_t *)(BENCH_MODE_ADDR + 4);
    uint32_t seed = 12345;
    unsigned long sum = 0, sorted_sum = 0, bits = 0, swar = 0;
    unsigned long unsorted = 0, bad_below = 0;
    uint32_t round;
    unsigned i;

    if (mode == 1 || mode == 2) {
        csr_write(CSR_SCTRDEPTH, 4);
        csr_write(CSR_MCTRCTL, CTRCTL_M | (mode == 1 ? CTRCTL_NTBREN : 0));
    }
    if (!rounds) {
        rounds = BENCH_ROUNDS;
    }
    for (round = 0; round < rounds; round++) {
        unsigned long below;

        for (i = 0; i < SORT_N; i++) {
            data[i] = lcg(&seed);
            sum += data[i];
        }
        insertion_sort(data, SORT_N);
        for (i = 0; i < SORT_N; i++) {
            sorted_sum += data[i];
            unsorted += i && data[i - 1] > data[i];
            bits += bits_set(data[i]);
            swar += bits_set_swar(data[i]);
        }
        /* Sorted: fewer values are below the middle one than before it. */
        below = count_below(data, SORT_N, data[SORT_N / 2]);
        bad_below += below > SORT_N / 2 ||
                     (below < SORT_N / 2 && data[below] != data[SORT_N / 2]);
    }
    /* For the trace benchmark: instructions retired (bits per insn). */
    rt_printf("INSTRET %lu\n", (unsigned long)csr_read(CSR_MINSTRET));
    if (mode == 1 || mode == 2) {
        csr_write(CSR_MCTRCTL, 0);
    }
    CHECK_EQ(unsorted, 0);
    CHECK_EQ(sorted_sum, sum);
    CHECK_EQ(bits, swar);
    CHECK_EQ(bad_below, 0);
    return 0;
}
