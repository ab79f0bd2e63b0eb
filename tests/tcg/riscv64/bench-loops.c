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
 * after it, when not 0, is the number of rounds (default BENCH_ROUNDS);
 * the word after that, when 2, makes hart 1 (-smp 2) run the same rounds
 * on its own data at the same time (for the two-hart MTTCG benchmark;
 * INSTRET is then the sum of both harts').  Each round checks its own
 * results, so a run that computes anything else fails.
 */

#include "rt.h"
#include "ctr-decode.h"

#define BENCH_MODE_ADDR     0x80f00000UL
#define BENCH_ROUNDS        20
#define SORT_N              400

static uint32_t data[2][SORT_N];       /* per hart */

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

/* What one hart's rounds compute; all of it is checked. */
struct result {
    unsigned long sum, sorted_sum, bits, swar, unsorted, bad_below;
};

static uint32_t mode, rounds;
static struct result results[2];
static volatile bool hart1_done;       /* volatile: set by hart 1 */

static void run(unsigned hart)
{
    struct result *r = &results[hart];
    uint32_t *a = data[hart];
    uint32_t seed = 12345;
    uint32_t round;
    unsigned i;

    if (mode == 1 || mode == 2) {
        csr_write(CSR_SCTRDEPTH, 4);
        csr_write(CSR_MCTRCTL, CTRCTL_M | (mode == 1 ? CTRCTL_NTBREN : 0));
    }
    for (round = 0; round < rounds; round++) {
        unsigned long below;

        for (i = 0; i < SORT_N; i++) {
            a[i] = lcg(&seed);
            r->sum += a[i];
        }
        insertion_sort(a, SORT_N);
        for (i = 0; i < SORT_N; i++) {
            r->sorted_sum += a[i];
            r->unsorted += i && a[i - 1] > a[i];
            r->bits += bits_set(a[i]);
            r->swar += bits_set_swar(a[i]);
        }
        /* Sorted: fewer values are below the middle one than before it. */
        below = count_below(a, SORT_N, a[SORT_N / 2]);
        r->bad_below += below > SORT_N / 2 ||
                        (below < SORT_N / 2 && a[below] != a[SORT_N / 2]);
    }
    if (mode == 1 || mode == 2) {
        csr_write(CSR_MCTRCTL, 0);
    }
}

static unsigned long hart1_instret;

static void hart1_main(void)
{
    run(1);
    hart1_instret = csr_read(CSR_MINSTRET);
    asm volatile("fence rw, w" : : : "memory");
    hart1_done = true;
    /* wake hart 0 */
    asm volatile("fence w, o" : : : "memory");
    *(volatile uint32_t *)RT_CLINT_MSIP0 = 1;           /* MMIO */
}

int main(void)
{
    uint32_t harts = *(volatile uint32_t *)(BENCH_MODE_ADDR + 8); /* loader */
    unsigned long instret;
    unsigned h;

    mode = *(volatile uint32_t *)BENCH_MODE_ADDR;               /* loader */
    rounds = *(volatile uint32_t *)(BENCH_MODE_ADDR + 4);       /* loader */
    if (!rounds) {
        rounds = BENCH_ROUNDS;
    }
    if (harts == 2) {
        rt_start_hart1(hart1_main);
    }
    run(0);
    instret = csr_read(CSR_MINSTRET);
    if (harts == 2) {
        /* Asleep until hart 1 is done: MSIP wakes, MIE is clear. */
        csr_set(CSR_MIE, RT_MIE_MSIE);
        while (!hart1_done) {
            asm volatile("wfi");
        }
        asm volatile("fence r, rw" : : : "memory");
        *(volatile uint32_t *)RT_CLINT_MSIP0 = 0; /* MMIO */
        csr_clear(CSR_MIE, RT_MIE_MSIE);
        instret += hart1_instret;
    }
    /* For the trace benchmark: instructions retired (bits per insn). */
    rt_printf("INSTRET %lu\n", instret);
    for (h = 0; h < (harts == 2 ? 2 : 1); h++) {
        const struct result *r = &results[h];

        CHECK_EQ(r->unsorted, 0);
        CHECK_EQ(r->sorted_sum, r->sum);
        CHECK_EQ(r->bits, r->swar);
        CHECK_EQ(r->bad_below, 0);
    }
    /* Both harts computed the same rounds. */
    if (harts == 2) {
        CHECK_EQ(results[1].sum, results[0].sum);
        CHECK_EQ(results[1].bits, results[0].bits);
    }
    return 0;
}
