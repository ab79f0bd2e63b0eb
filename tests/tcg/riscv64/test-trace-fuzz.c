/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A seeded random register campaign on the trace components of
 * "-M virt,trace=on" (docs/specs/riscv-trace.rst, "Components" and
 * "Memory map"), run by every hart at once; the host side is
 * tests/scripts/test-trace-fuzz.py.  Standalone (test-trace-fuzz.S
 * starts every hart), M-mode only; no trap is expected.
 *
 * Configuration: two 64-bit words that -device loader writes,
 *
 *   0x80fff000: 0x5446555a ("TFUZ") << 32 | seed (32 bits)
 *   0x80fff008: iterations (bits 31:0) | harts << 32 (bits 35:32, 1-8)
 *               | topology << 36 (bits 39:36: 0 pib, 1 ram,
 *                 2 funnel-ram) | SRAM << 40 (bit 40: the RAM sinks have
 *                 sram-size=256 besides SMEM)
 *
 * Each hart h runs the given number of iterations; a xorshift64
 * generator seeded with seed ^ (h + 1) * 0x9e3779b97f4a7c15 picks each
 * one of:
 *
 *  - branchy work (loops, calls, indirect calls, a switch), a few
 *    hundred instructions, so that the encoder has packets to send;
 *  - a read of a random word of any component;
 *  - a write of a random value (random, 0, all-ones, one bit of the
 *    current value flipped, with Active and Enable set) to a register or
 *    a random word of a component the hart owns: its encoder and, with
 *    trace-sink=ram, its RAM sink; hart 0 also owns the funnel, the PIB
 *    sink and the funnel-ram RAM sink.  trTeInstStallEna (encoder control
 *    bit 13) is never set: a hart stalled on a sink it must re-enable
 *    itself would wait for ever, as hardware would.  A RAM sink's
 *    trRamStart and trRamLimit change only as a window (below); trRamWP
 *    and trRamRP take any value;
 *  - a new RAM sink window (trRamStart, trRamLimit and trRamWP) of one
 *    class: (a) inside the arena at 0x80800000-0x8083ffff (in the
 *    default 128 MiB of RAM), between its two 16 KiB canary zones
 *    (sometimes trRamLimit < trRamStart, sometimes 4 or 8 bytes with
 *    StopOnWrap); (b) over a trace component's registers: the sink's own
 *    block, the funnel's, the PIB sink's, or the part of another RAM
 *    sink's block above its address registers (0x028-0xffc: the sink
 *    writing there cannot move the other's window); never an encoder's;
 *    (c) the platform bus (0x04000000, nothing mapped).  A window of
 *    another class is written with the sink disabled, so that no window
 *    made of halves of two classes (one that could cover this program)
 *    is ever in use; within a class the six halves are written in a
 *    random order while the sink runs.  A mode change (SMEM/SRAM, or the
 *    release from reset that goes back to SMEM) rewrites the window
 *    likewise, and a random control write that could change the mode
 *    never enables the sink at the same time;
 *  - turning tracing on: the encoder released from reset and traced
 *    (Active, then Active | Enable | InstTracing | InstMode 6), the sinks
 *    and the funnel released and enabled;
 *  - now and then: a sink disabled (its partial word flushed), a
 *    component held in reset (and read, trRamData too) then released,
 *    trRamRP set wild and trRamData read repeatedly (held in reset too),
 *    SMEM/SRAM switched while disabled, trRamWP set wild (in a canary
 *    zone, anywhere) and the sink disabled right after it.
 *
 * At the end the harts meet, hart 0 disables every encoder, then every
 * sink (their last words go out), and checks: the components' Impl
 * registers read at the start, each canary zone, the checksum of the
 * program's code and read-only data, the guard at the bottom of every
 * hart's stack, and that each hart ran all its iterations: 5 + harts
 * checks.  It prints a summary and "PASS: N checks, 0 failed, exit
 * code 0", or FAIL lines and exits with code 1 (2 for a bad
 * configuration, 3 for a trap) through the test finisher.
 */

#include <stdbool.h>
#include <stdint.h>

#define MAX_HARTS           8
#define FUZZ_STACK_SIZE     16384       /* as in test-trace-fuzz.S */
#define TRAP_STACK_SIZE     1024        /* as in test-trace-fuzz.S */
#define STACK_GUARD         256         /* bytes at the bottom of a stack */

#define UART                0x10000000UL
#define FINISHER            0x00100000UL
#define MTIME               0x0200bff8UL
#define MTIME_HZ            10000000UL
#define CONFIG              0x80fff000UL
#define CONFIG_MAGIC        0x5446555aU

#define PIB_BASE            0x03011000UL
#define FUNNEL_BASE         0x03012000UL
#define ENCODER_BASE(n)     (0x03020000UL + 0x1000UL * (n))
#define RAM_BASE(n)         (0x06000000UL + 0x10000UL * (n))
#define BLOCK_SIZE          0x1000UL
#define PLATFORM_BUS        0x04000000UL
#define PLATFORM_BUS_SIZE   0x02000000UL

/* The arena: canary zones at both ends, windows only in between. */
#define ARENA               0x80800000UL
#define ARENA_SIZE          0x40000UL
#define CANARY_SIZE         0x4000UL
#define INNER_LO            (ARENA + CANARY_SIZE)
#define INNER_HI            (ARENA + ARENA_SIZE - CANARY_SIZE - 4)

/* Registers (Trace Control Interface 1.0) */
#define CONTROL             0x000
#define IMPL                0x004
#define ACTIVE              (1u << 0)
#define ENABLE              (1u << 1)
#define EMPTY               (1u << 3)

#define TE_FEATURES         0x008
#define TE_FILTERS          0x00c
#define TS_CONTROL          0x040
#define TS_COUNTER_LOW      0x048
#define TS_COUNTER_HIGH     0x04c
#define TE_FILTER_REGS      0x400       /* filters and comparators */
#define INST_TRACING        (1u << 2)
#define INST_MODE_6         (6u << 4)
#define INST_STALL_ENA      (1u << 13)
#define TE_TRACE_ON         (ACTIVE | ENABLE | INST_TRACING | INST_MODE_6)

#define FUNNEL_DIS_INPUT    0x008

#define RAM_START_LOW       0x010
#define RAM_START_HIGH      0x014
#define RAM_LIMIT_LOW       0x018
#define RAM_LIMIT_HIGH      0x01c
#define RAM_WP_LOW          0x020
#define RAM_WP_HIGH         0x024
#define RAM_RP_LOW          0x028
#define RAM_RP_HIGH         0x02c
#define RAM_DATA            0x040
#define RAM_SMEM            (1u << 4)
#define RAM_STOP_ON_WRAP    (1u << 8)

#define IMPL_ENCODER        0x00000101u
#define IMPL_FUNNEL         0x00000801u
#define IMPL_PIB            0x00000a01u
#define IMPL_RAM            0x00002901u
#define IMPL_RAM_HAS_SRAM   (1u << 12)

enum { TOPO_PIB, TOPO_RAM, TOPO_FUNNEL_RAM, TOPO_COUNT };
static const char *const topo_names[TOPO_COUNT] = {
    "pib", "ram", "funnel-ram"
};

enum { KIND_ENCODER, KIND_FUNNEL, KIND_PIB, KIND_RAM, KIND_COUNT };
static const char *const kind_names[KIND_COUNT] = {
    "encoder", "funnel", "pib", "ram sink"
};

/* Window classes; CLS_OTHER + j is the upper part of RAM sink j's block. */
enum {
    CLS_NONE,           /* the registers' reset values: address 0 */
    CLS_ARENA,
    CLS_UNASSIGNED,
    CLS_OWN,
    CLS_FUNNEL,
    CLS_PIB,
    CLS_OTHER,
};

struct config {
    uint32_t seed;
    uint32_t iterations;
    unsigned harts;
    unsigned topo;
    bool sram;
};

struct hart {
    uint64_t rng;
    uint32_t iter;
    uint32_t work, reads, windows, turn_ons, special;
    uint32_t writes[KIND_COUNT];
    uint64_t result;            /* of the work, so that it is done */
} __attribute__((aligned(64)));

/* A RAM sink, as its owner last programmed it. */
struct sink {
    unsigned cls;
    bool smem;                  /* the mode the window was written in */
} __attribute__((aligned(64)));

/* The harts' stacks and trap stacks; test-trace-fuzz.S points sp there. */
uint8_t fuzz_stacks[MAX_HARTS][FUZZ_STACK_SIZE] __attribute__((aligned(16)));
uint8_t fuzz_trap_stacks[MAX_HARTS][TRAP_STACK_SIZE]
    __attribute__((aligned(16)));

static struct config cfg;
static struct hart harts[MAX_HARTS];
static struct sink sinks[MAX_HARTS];
static uint32_t go, arrived, finished, print_lock;

/* Device registers: one 32-bit access per call. */
static inline uint32_t rd(uintptr_t base, unsigned off)
{
    /* volatile: a device register, one 32-bit access per call */
    return *(volatile uint32_t *)(base + off);
}

static inline void wr(uintptr_t base, unsigned off, uint32_t val)
{
    /* volatile: a device register, one 32-bit access per call */
    *(volatile uint32_t *)(base + off) = val;
}

static uint64_t mtime(void)
{
    /* volatile: the CLINT's timer, read each time */
    return *(volatile uint64_t *)MTIME;
}

/* Output: the UART's THR takes a byte at once under QEMU. */
static void put_char(char c)
{
    /* volatile: the UART's transmit register */
    *(volatile uint8_t *)UART = c;
}

static void put_str(const char *s)
{
    while (*s) {
        put_char(*s++);
    }
}

static void put_dec(uint64_t v)
{
    char buf[24];
    int i = 0;

    do {
        buf[i++] = '0' + v % 10;
        v /= 10;
    } while (v);
    while (i) {
        put_char(buf[--i]);
    }
}

static void put_hex(uint64_t v)
{
    int shift = 60;

    put_str("0x");
    while (shift > 0 && !(v >> shift)) {
        shift -= 4;
    }
    for (; shift >= 0; shift -= 4) {
        put_char("0123456789abcdef"[(v >> shift) & 0xf]);
    }
}

static void lock(void)
{
    unsigned tries = 0;

    /* Bounded: a trap while the lock is held must still be reported. */
    while (__atomic_exchange_n(&print_lock, 1, __ATOMIC_ACQUIRE) &&
           ++tries < 10000000) {
        continue;
    }
}

static void unlock(void)
{
    __atomic_store_n(&print_lock, 0, __ATOMIC_RELEASE);
}

static void __attribute__((noreturn)) finish(unsigned code)
{
    wr(FINISHER, 0, code ? 0x3333 | code << 16 : 0x5555);
    for (;;) {
        asm volatile("wfi");
    }
}

static void __attribute__((noreturn)) park(void)
{
    for (;;) {
        asm volatile("wfi");
    }
}

/* Called by the trap vector of test-trace-fuzz.S: no trap is expected. */
void __attribute__((noreturn)) fuzz_trap(uint64_t cause, uint64_t epc,
                                         uint64_t tval, uint64_t hartid);
void fuzz_trap(uint64_t cause, uint64_t epc, uint64_t tval, uint64_t hartid)
{
    lock();
    put_str("FAIL: unexpected trap on hart ");
    put_dec(hartid);
    put_str(": mcause ");
    put_hex(cause);
    put_str(", mepc ");
    put_hex(epc);
    put_str(", mtval ");
    put_hex(tval);
    put_str("\nFAIL: trap, exit code 3\n");
    finish(3);
}

/* xorshift64 */
static uint64_t rnd(struct hart *hs)
{
    uint64_t x = hs->rng;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    hs->rng = x;
    return x;
}

static unsigned below(struct hart *hs, unsigned n)
{
    return rnd(hs) % n;
}

/* A random word-aligned address in [lo, hi] (both word-aligned). */
static uint64_t pick(struct hart *hs, uint64_t lo, uint64_t hi)
{
    return lo + 4 * (rnd(hs) % ((hi - lo) / 4 + 1));
}

static unsigned nr_sinks(void)
{
    return cfg.topo == TOPO_RAM ? cfg.harts :
           cfg.topo == TOPO_FUNNEL_RAM ? 1 : 0;
}

static bool has_funnel(void)
{
    return cfg.topo != TOPO_RAM;
}

static bool has_pib(void)
{
    return cfg.topo == TOPO_PIB;
}

/* The RAM sink hart @h owns, or -1. */
static int owned_sink(unsigned h)
{
    if (cfg.topo == TOPO_RAM) {
        return h;
    }
    return cfg.topo == TOPO_FUNNEL_RAM && h == 0 ? 0 : -1;
}

/* A value to write over @cur. */
static uint32_t rnd_value(struct hart *hs, uint32_t cur)
{
    switch (below(hs, 8)) {
    case 0:
    case 1:
        return rnd(hs);
    case 2:
        return 0;
    case 3:
        return ~0u;
    case 4:
    case 5:
        return cur ^ 1u << below(hs, 32);
    case 6:
        return (uint32_t)rnd(hs) | ACTIVE | ENABLE;
    default:
        return cur | ACTIVE | ENABLE;
    }
}

/* An address anywhere, for trRamWP and trRamRP. */
static uint64_t wild_addr(struct hart *hs)
{
    switch (below(hs, 8)) {
    case 0:
    case 1:
        return pick(hs, ARENA, ARENA + CANARY_SIZE - 4);
    case 2:
    case 3:
        return pick(hs, ARENA + ARENA_SIZE - CANARY_SIZE,
                    ARENA + ARENA_SIZE - 4);
    case 4:
        return (uint32_t)rnd(hs) & ~3u;
    case 5:
        return rnd(hs);
    case 6:
        return 0x00fffffffffffffcULL;
    default:
        return pick(hs, INNER_LO, INNER_HI);
    }
}

/* The work: branches, loops, calls and indirect calls. */
typedef uint64_t (*work_fn)(uint64_t);

static __attribute__((noinline)) uint64_t work_collatz(uint64_t x)
{
    uint64_t n = (x & 0xff) + 1, steps = 0;

    while (n != 1 && steps < 40) {
        n = n & 1 ? 3 * n + 1 : n / 2;
        steps++;
    }
    return steps ^ x;
}

static __attribute__((noinline)) uint64_t work_switch(uint64_t x)
{
    uint64_t acc = x;
    unsigned i;

    for (i = 0; i < 12; i++) {
        switch ((x >> (i * 3)) & 7) {
        case 0:
            acc += 0x1234;
            break;
        case 1:
            acc ^= acc >> 3;
            break;
        case 2:
            acc = acc * 5 + 1;
            break;
        case 3:
            acc -= i;
            break;
        case 4:
            acc = (acc << 7) | (acc >> 57);
            break;
        case 5:
            acc ^= 0xa5a5a5a5;
            break;
        case 6:
            acc += acc >> 11;
            break;
        default:
            acc = ~acc;
            break;
        }
    }
    return acc;
}

static __attribute__((noinline)) uint64_t work_rec(uint64_t x, unsigned depth)
{
    if (!depth) {
        return x;
    }
    return (x & 1 ? work_rec(x >> 1, depth - 1) :
                    work_rec(x * 3 + 7, depth - 1)) + depth;
}

static __attribute__((noinline)) uint64_t work_calls(uint64_t x)
{
    return work_rec(x, 2 + x % 7);
}

static __attribute__((noinline)) uint64_t work_sort(uint64_t x)
{
    uint8_t v[8];
    unsigned i, j;
    uint64_t r = 0;

    for (i = 0; i < 8; i++) {
        v[i] = x >> (i * 8);
    }
    for (i = 0; i < 8; i++) {
        for (j = i + 1; j < 8; j++) {
            if (v[j] < v[i]) {
                uint8_t t = v[i];

                v[i] = v[j];
                v[j] = t;
            }
        }
    }
    for (i = 0; i < 8; i++) {
        r = r << 8 | v[i];
    }
    return r;
}

static const work_fn works[] = {
    work_collatz, work_switch, work_calls, work_sort,
};

static void op_work(struct hart *hs)
{
    unsigned n = 2 + below(hs, 5);
    uint64_t acc = hs->result;

    while (n--) {
        acc = works[below(hs, sizeof(works) / sizeof(works[0]))](
            acc ^ rnd(hs));
    }
    hs->result = acc;
    hs->work++;
}

/* Any component: encoders, funnel, PIB sink, RAM sinks. */
static void op_read(struct hart *hs)
{
    unsigned n = cfg.harts + has_funnel() + has_pib() + nr_sinks();
    unsigned i = below(hs, n);
    unsigned off = below(hs, 1024) * 4;
    uintptr_t base;

    if (i < cfg.harts) {
        base = ENCODER_BASE(i);
    } else if (i < cfg.harts + has_funnel()) {
        base = FUNNEL_BASE;
    } else if (i < cfg.harts + has_funnel() + has_pib()) {
        base = PIB_BASE;
    } else {
        base = RAM_BASE(i - cfg.harts - has_funnel() - has_pib());
        if (below(hs, 4) == 0) {
            off = RAM_DATA;
        }
    }
    (void)rd(base, off);
    hs->reads++;
}

static void encoder_on(struct hart *hs, unsigned h)
{
    uintptr_t base = ENCODER_BASE(h);
    uint32_t ctl = rd(base, CONTROL);

    if (!(ctl & ACTIVE)) {
        wr(base, CONTROL, ACTIVE);
        ctl = rd(base, CONTROL);
    }
    if (below(hs, 4) == 0) {
        wr(base, TE_FILTERS, 0);        /* every instruction qualified */
    }
    if (below(hs, 2)) {
        wr(base, CONTROL, TE_TRACE_ON);
    } else {
        wr(base, CONTROL, (ctl | TE_TRACE_ON) & ~INST_STALL_ENA);
    }
}

static void write_encoder(struct hart *hs, unsigned h)
{
    static const unsigned offs[] = {
        CONTROL, CONTROL, CONTROL, CONTROL, IMPL, TE_FEATURES, TE_FILTERS,
        TS_CONTROL, TS_COUNTER_LOW, TS_COUNTER_HIGH,
    };
    uintptr_t base = ENCODER_BASE(h);
    unsigned r = below(hs, sizeof(offs) / sizeof(offs[0]) + 2);
    unsigned off;
    uint32_t val;

    if (r < sizeof(offs) / sizeof(offs[0])) {
        off = offs[r];
    } else if (r == sizeof(offs) / sizeof(offs[0])) {
        off = TE_FILTER_REGS + below(hs, 256) * 4;
    } else {
        off = below(hs, 1024) * 4;
    }
    val = rnd_value(hs, rd(base, off));
    if (off == CONTROL && below(hs, 4) == 0) {
        val |= TE_TRACE_ON;
    }
    /* Never InstStallEna (bit 13), in any register. */
    wr(base, off, val & ~INST_STALL_ENA);
    hs->writes[KIND_ENCODER]++;
}

static void write_funnel(struct hart *hs)
{
    static const unsigned offs[] = {
        CONTROL, CONTROL, CONTROL, IMPL, FUNNEL_DIS_INPUT,
    };
    unsigned r = below(hs, sizeof(offs) / sizeof(offs[0]) + 1);
    unsigned off = r < sizeof(offs) / sizeof(offs[0]) ? offs[r] :
                   below(hs, 1024) * 4;

    wr(FUNNEL_BASE, off, rnd_value(hs, rd(FUNNEL_BASE, off)));
    hs->writes[KIND_FUNNEL]++;
}

static void write_pib(struct hart *hs)
{
    static const unsigned offs[] = { CONTROL, CONTROL, CONTROL, IMPL };
    unsigned r = below(hs, sizeof(offs) / sizeof(offs[0]) + 1);
    unsigned off = r < sizeof(offs) / sizeof(offs[0]) ? offs[r] :
                   below(hs, 1024) * 4;

    wr(PIB_BASE, off, rnd_value(hs, rd(PIB_BASE, off)));
    hs->writes[KIND_PIB]++;
}

/* The bounds of a window class for sink @k. */
static void class_range(unsigned cls, unsigned k, uint64_t *lo,
                        uint64_t *hi)
{
    switch (cls) {
    case CLS_ARENA:
    case CLS_NONE:
        *lo = INNER_LO;
        *hi = INNER_HI;
        break;
    case CLS_UNASSIGNED:
        *lo = PLATFORM_BUS;
        *hi = PLATFORM_BUS + PLATFORM_BUS_SIZE - 4;
        break;
    case CLS_OWN:
        *lo = RAM_BASE(k);
        *hi = RAM_BASE(k) + BLOCK_SIZE - 4;
        break;
    case CLS_FUNNEL:
        *lo = FUNNEL_BASE;
        *hi = FUNNEL_BASE + BLOCK_SIZE - 4;
        break;
    case CLS_PIB:
        *lo = PIB_BASE;
        *hi = PIB_BASE + BLOCK_SIZE - 4;
        break;
    default:
        /* Above the other sink's address registers. */
        *lo = RAM_BASE(cls - CLS_OTHER) + RAM_RP_LOW;
        *hi = RAM_BASE(cls - CLS_OTHER) + BLOCK_SIZE - 4;
        break;
    }
}

/*
 * Give sink @k a new window of class @cls.  A class other than the
 * current one (or a window written in the other mode) is written with
 * the sink disabled, then the sink is enabled again if it was; within
 * the class the halves go in a random order while it runs.
 */
static void sink_set_window(struct hart *hs, unsigned k, unsigned cls)
{
    struct sink *s = &sinks[k];
    uintptr_t base = RAM_BASE(k);
    uint64_t lo, hi, start, limit, wp, t;
    unsigned order[6] = { 0, 1, 2, 3, 4, 5 };
    uint32_t ctl = rd(base, CONTROL);
    bool smem, same, tiny = false;
    unsigned i, j;

    if (!(ctl & ACTIVE)) {
        /* Writes are ignored in reset: release it (disabled) first. */
        wr(base, CONTROL, ACTIVE);
        ctl = rd(base, CONTROL);
    }
    smem = ctl & RAM_SMEM;
    same = cls == s->cls && smem == s->smem;

    class_range(cls, k, &lo, &hi);
    start = pick(hs, lo, hi);
    limit = pick(hs, lo, hi);
    switch (below(hs, 8)) {
    case 0:
        /* trRamLimit below trRamStart: nothing is written */
        if (limit > start) {
            t = start;
            start = limit;
            limit = t;
        } else if (limit == start) {
            if (start > lo) {
                limit = start - 4;
            } else {
                start = limit + 4;
            }
        }
        break;
    case 1:
        /* one or two words, with StopOnWrap */
        limit = start + (start < hi ? 4 * below(hs, 2) : 0);
        tiny = true;
        break;
    case 2:
        start = lo;
        limit = hi;
        break;
    default:
        if (limit < start) {
            t = start;
            start = limit;
            limit = t;
        }
        break;
    }
    switch (below(hs, 10)) {
    case 0:
        wp = wild_addr(hs);
        break;
    case 1:
    case 2:
    case 3:
    case 4:
        wp = limit >= start ? pick(hs, start, limit) : start;
        break;
    default:
        wp = start;
        break;
    }

    if (!same) {
        if (ctl & ENABLE) {
            wr(base, CONTROL, ctl & ~ENABLE);
        }
    } else {
        for (i = 5; i > 0; i--) {
            j = below(hs, i + 1);
            t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
    for (i = 0; i < 6; i++) {
        switch (order[i]) {
        case 0:
            wr(base, RAM_START_LOW, start);
            break;
        case 1:
            wr(base, RAM_START_HIGH, start >> 32);
            break;
        case 2:
            wr(base, RAM_LIMIT_LOW, limit);
            break;
        case 3:
            wr(base, RAM_LIMIT_HIGH, limit >> 32);
            break;
        case 4:
            wr(base, RAM_WP_LOW, wp);
            break;
        default:
            wr(base, RAM_WP_HIGH, wp >> 32);
            break;
        }
    }
    s->cls = cls;
    s->smem = smem;
    if (!same && (ctl & ENABLE)) {
        wr(base, CONTROL, ctl & ~EMPTY);
    }
    if (tiny) {
        wr(base, CONTROL, (rd(base, CONTROL) & ~EMPTY) | RAM_STOP_ON_WRAP);
    }
    hs->windows++;
}

/*
 * After a control write: a sink whose mode is not the one its window was
 * written in (SMEM/SRAM switched, or released from reset into SMEM) gets
 * a new window of its class for the mode it is in.
 */
static void sink_check_mode(struct hart *hs, unsigned k)
{
    struct sink *s = &sinks[k];
    uint32_t ctl = rd(RAM_BASE(k), CONTROL);

    if ((ctl & ACTIVE) && !!(ctl & RAM_SMEM) != s->smem) {
        sink_set_window(hs, k, s->cls == CLS_NONE ? CLS_ARENA : s->cls);
    }
}

static void sink_on(struct hart *hs, unsigned k)
{
    uintptr_t base = RAM_BASE(k);

    if (!(rd(base, CONTROL) & ACTIVE)) {
        wr(base, CONTROL, ACTIVE);
    }
    sink_check_mode(hs, k);
    if (sinks[k].cls == CLS_NONE) {
        sink_set_window(hs, k, CLS_ARENA);
    }
    wr(base, CONTROL, (rd(base, CONTROL) & ~EMPTY) | ENABLE);
}

static void sink_control(struct hart *hs, unsigned k, uint32_t val)
{
    uintptr_t base = RAM_BASE(k);
    uint32_t cur = rd(base, CONTROL);

    /* A write that can change the mode does not enable at once. */
    if (!(cur & ENABLE) && ((val ^ cur) & RAM_SMEM)) {
        val &= ~ENABLE;
    }
    wr(base, CONTROL, val);
    sink_check_mode(hs, k);
}

static void write_sink(struct hart *hs, unsigned k)
{
    uintptr_t base = RAM_BASE(k);
    uint64_t a;
    unsigned off;

    switch (below(hs, 12)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
        sink_control(hs, k, rnd_value(hs, rd(base, CONTROL)));
        break;
    case 5:
        wr(base, IMPL, rnd_value(hs, rd(base, IMPL)));
        break;
    case 6:
    case 7:
        a = wild_addr(hs);
        off = below(hs, 2) ? RAM_WP_LOW : RAM_WP_HIGH;
        wr(base, off, off == RAM_WP_LOW ? (uint32_t)a | below(hs, 2) :
                                          a >> 32);
        break;
    case 8:
    case 9:
        off = below(hs, 2) ? RAM_RP_LOW : RAM_RP_HIGH;
        wr(base, off, rnd_value(hs, rd(base, off)));
        break;
    case 10:
        wr(base, RAM_DATA, rnd(hs));
        break;
    default:
        /* anywhere else but trRamStart and trRamLimit */
        off = below(hs, 1024) * 4;
        if (off >= RAM_START_LOW && off <= RAM_LIMIT_HIGH) {
            off += 0x040;
        }
        if (off == CONTROL) {
            sink_control(hs, k, rnd_value(hs, rd(base, off)));
        } else {
            wr(base, off, rnd_value(hs, rd(base, off)));
        }
        break;
    }
    hs->writes[KIND_RAM]++;
}

static void op_write(struct hart *hs, unsigned h)
{
    int k = owned_sink(h);
    unsigned r = below(hs, 100);

    if (h == 0 && has_funnel() && r < 12) {
        write_funnel(hs);
    } else if (h == 0 && has_pib() && r < 25) {
        write_pib(hs);
    } else if (k >= 0 && r >= 55) {
        write_sink(hs, k);
    } else {
        write_encoder(hs, h);
    }
}

static void op_window(struct hart *hs, unsigned k)
{
    unsigned r = below(hs, 100);
    unsigned cls;

    if (r < 50) {
        cls = CLS_ARENA;
    } else if (r < 65) {
        cls = CLS_OWN;
    } else if (r < 70) {
        cls = CLS_FUNNEL;
    } else if (r < 75) {
        cls = CLS_PIB;
    } else if (r < 85 && nr_sinks() > 1) {
        cls = CLS_OTHER + (k + 1 + below(hs, nr_sinks() - 1)) % nr_sinks();
    } else {
        cls = CLS_UNASSIGNED;
    }
    sink_set_window(hs, k, cls);
}

static void op_turn_on(struct hart *hs, unsigned h)
{
    int k = owned_sink(h);

    if (k >= 0) {
        sink_on(hs, k);
    }
    if (h == 0 && has_funnel()) {
        if (!(rd(FUNNEL_BASE, CONTROL) & ACTIVE)) {
            wr(FUNNEL_BASE, CONTROL, ACTIVE);
        }
        wr(FUNNEL_BASE, CONTROL, ACTIVE | ENABLE);
        if (below(hs, 4) == 0) {
            wr(FUNNEL_BASE, FUNNEL_DIS_INPUT, 0);
        }
    }
    if (h == 0 && has_pib()) {
        if (!(rd(PIB_BASE, CONTROL) & ACTIVE)) {
            wr(PIB_BASE, CONTROL, ACTIVE);
        }
        wr(PIB_BASE, CONTROL, (rd(PIB_BASE, CONTROL) & ~EMPTY) | ENABLE);
    }
    encoder_on(hs, h);
    hs->turn_ons++;
}

/* Hold a component in reset, read it there, release it. */
static void reset_cycle(struct hart *hs, uintptr_t base, int sink)
{
    unsigned n = 1 + below(hs, 4);

    wr(base, CONTROL, 0);
    while (n--) {
        (void)rd(base, sink >= 0 && below(hs, 2) ? RAM_DATA :
                       below(hs, 1024) * 4);
    }
    wr(base, CONTROL, ACTIVE);
    if (sink >= 0) {
        sink_check_mode(hs, sink);
    }
}

static void op_special(struct hart *hs, unsigned h)
{
    int k = owned_sink(h);
    uintptr_t base;
    uint64_t a;
    uint32_t ctl;
    unsigned n;

    hs->special++;
    if (k < 0) {
        /* no sink: the encoder, or hart 0's funnel or PIB sink */
        n = below(hs, 4);
        if (h == 0 && has_funnel() && n == 0) {
            reset_cycle(hs, FUNNEL_BASE, -1);
        } else if (h == 0 && has_pib() && n == 1) {
            reset_cycle(hs, PIB_BASE, -1);
        } else {
            reset_cycle(hs, ENCODER_BASE(h), -1);
            if (below(hs, 2)) {
                encoder_on(hs, h);
            }
        }
        return;
    }
    base = RAM_BASE(k);
    switch (below(hs, 6)) {
    case 0:
        /* disable: the partial word goes out */
        ctl = rd(base, CONTROL);
        wr(base, CONTROL, ctl & ~(ENABLE | EMPTY));
        break;
    case 1:
        n = below(hs, 4);
        if (n == 0) {
            reset_cycle(hs, ENCODER_BASE(h), -1);
            encoder_on(hs, h);
        } else if (n == 1 && h == 0 && has_funnel()) {
            reset_cycle(hs, FUNNEL_BASE, -1);
        } else {
            reset_cycle(hs, base, k);
        }
        break;
    case 2:
        /* trRamRP anywhere, trRamData read, also held in reset */
        a = below(hs, 2) ? wild_addr(hs) : rnd(hs);
        wr(base, RAM_RP_LOW, a);
        wr(base, RAM_RP_HIGH, a >> 32);
        for (n = 1 + below(hs, 8); n; n--) {
            (void)rd(base, RAM_DATA);
        }
        if (below(hs, 2)) {
            wr(base, CONTROL, 0);
            for (n = 1 + below(hs, 8); n; n--) {
                (void)rd(base, RAM_DATA);
            }
            wr(base, CONTROL, ACTIVE);
            sink_check_mode(hs, k);
        }
        break;
    case 3:
        /* SMEM <-> SRAM, while disabled */
        ctl = rd(base, CONTROL);
        if (!(ctl & ACTIVE)) {
            wr(base, CONTROL, ACTIVE);
            ctl = rd(base, CONTROL);
        }
        ctl &= ~EMPTY;
        if (ctl & ENABLE) {
            wr(base, CONTROL, ctl & ~ENABLE);
        }
        wr(base, CONTROL, (ctl & ~ENABLE) ^ RAM_SMEM);
        sink_check_mode(hs, k);
        if (below(hs, 2)) {
            wr(base, CONTROL, (rd(base, CONTROL) & ~EMPTY) | ENABLE);
        }
        break;
    default:
        /*
         * trRamWP anywhere, the sink disabled right after it without a
         * branch in between (no packet comes in between).
         */
        a = wild_addr(hs);
        if (below(hs, 2)) {
            wr(base, RAM_WP_LOW, a);
            wr(base, RAM_WP_HIGH, a >> 32);
            wr(base, CONTROL, rd(base, CONTROL) & ~(ENABLE | EMPTY));
        } else {
            wr(base, RAM_WP_LOW, a);
            wr(base, RAM_WP_HIGH, a >> 32);
        }
        break;
    }
}

static void run(unsigned h)
{
    struct hart *hs = &harts[h];
    int k = owned_sink(h);
    uint32_t i;
    unsigned r;

    hs->rng = cfg.seed ^ (h + 1) * 0x9e3779b97f4a7c15ULL;
    for (i = 0; i < cfg.iterations; i++) {
        r = below(hs, 100);
        if (r < 30) {
            op_work(hs);
        } else if (r < 45) {
            op_read(hs);
        } else if (r < 70) {
            op_write(hs, h);
        } else if (r < 78 && k >= 0) {
            op_window(hs, k);
        } else if (r < 78) {
            op_work(hs);
        } else if (r < 88) {
            op_turn_on(hs, h);
        } else {
            op_special(hs, h);
        }
        hs->iter = i + 1;
    }
    /* this hart's tracing off; hart 0 turns them all off again */
    if (rd(ENCODER_BASE(h), CONTROL) & ACTIVE) {
        wr(ENCODER_BASE(h), CONTROL, ACTIVE);
    }
}

static uint32_t canary(uintptr_t a)
{
    return (uint32_t)(a * 0x9e3779b1u) ^ 0xc3a5c35au;
}

static uint32_t guard(unsigned h, unsigned i)
{
    return 0x5a17c0deu ^ h << 24 ^ i;
}

static uint32_t *stack_bottom(unsigned h)
{
    return (uint32_t *)fuzz_stacks[h];
}

/* FNV-1a over the words of the code and read-only data (no .data). */
static uint64_t checksum(void)
{
    const uint32_t *p, *end;
    uint64_t sum = 0xcbf29ce484222325ULL;

    asm("la %0, _start\n\tla %1, __bss_start" : "=r"(p), "=r"(end));
    while (p < end) {
        sum = (sum ^ *p++) * 0x100000001b3ULL;
    }
    return sum;
}

static unsigned failed, checks;

static void check(bool ok, const char *what)
{
    checks++;
    if (!ok) {
        failed++;
        put_str("FAIL: ");
        put_str(what);
        put_str("\n");
    }
}

static bool read_config(void)
{
    /* volatile: written by -device loader, not by this program */
    const volatile uint64_t *words = (const volatile uint64_t *)CONFIG;
    uint64_t w0 = words[0], w1 = words[1];

    cfg.seed = w0;
    cfg.iterations = w1;
    cfg.harts = (w1 >> 32) & 0xf;
    cfg.topo = (w1 >> 36) & 0xf;
    cfg.sram = (w1 >> 40) & 1;
    return w0 >> 32 == CONFIG_MAGIC && cfg.harts >= 1 &&
           cfg.harts <= MAX_HARTS && cfg.topo < TOPO_COUNT &&
           !(cfg.sram && cfg.topo == TOPO_PIB);
}

static bool impl_is(uintptr_t base, uint32_t want)
{
    uint32_t got = rd(base, IMPL);

    if (got != want) {
        put_str("FAIL: Impl at ");
        put_hex(base);
        put_str(" reads ");
        put_hex(got);
        put_str(", expected ");
        put_hex(want);
        put_str("\n");
    }
    return got == want;
}

/* The components the configuration says: each Impl register. */
static bool components_present(void)
{
    bool ok = true;
    unsigned i;

    for (i = 0; i < cfg.harts; i++) {
        ok &= impl_is(ENCODER_BASE(i), IMPL_ENCODER);
    }
    if (has_funnel()) {
        ok &= impl_is(FUNNEL_BASE, IMPL_FUNNEL);
    }
    if (has_pib()) {
        ok &= impl_is(PIB_BASE, IMPL_PIB);
    }
    for (i = 0; i < nr_sinks(); i++) {
        ok &= impl_is(RAM_BASE(i),
                      IMPL_RAM | (cfg.sram ? IMPL_RAM_HAS_SRAM : 0));
    }
    return ok;
}

static unsigned check_canaries(uintptr_t lo, uintptr_t hi, unsigned *shown)
{
    unsigned bad = 0;
    uintptr_t a;
    uint32_t v;

    for (a = lo; a < hi; a += 4) {
        /* volatile: the RAM sinks write memory behind the compiler */
        v = *(volatile uint32_t *)a;
        if (v != canary(a)) {
            if (++bad, (*shown)++ < 16) {
                put_str("FAIL: canary word at ");
                put_hex(a);
                put_str(" is ");
                put_hex(v);
                put_str(", expected ");
                put_hex(canary(a));
                put_str("\n");
            }
        }
    }
    return bad;
}

static void wait_for(uint32_t *counter, uint32_t want, uint64_t seconds)
{
    uint64_t end = mtime() + seconds * MTIME_HZ;

    while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) < want &&
           mtime() < end) {
        continue;
    }
}

static void print_config(void)
{
    put_str("trace-fuzz: seed ");
    put_hex(cfg.seed);
    put_str(", ");
    put_dec(cfg.harts);
    put_str(" harts, topology ");
    put_str(topo_names[cfg.topo]);
    put_str(cfg.sram ? ", SRAM and SMEM, " : ", ");
    put_dec(cfg.iterations);
    put_str(" iterations\n");
}

static void summary(void)
{
    uint32_t writes[KIND_COUNT] = { 0 };
    unsigned h, i;

    for (h = 0; h < cfg.harts; h++) {
        struct hart *hs = &harts[h];

        put_str("hart ");
        put_dec(h);
        put_str(": ");
        put_dec(hs->iter);
        put_str(" iterations, ");
        put_dec(hs->work);
        put_str(" work, ");
        put_dec(hs->reads);
        put_str(" reads, ");
        put_dec(hs->writes[KIND_ENCODER] + hs->writes[KIND_FUNNEL] +
                hs->writes[KIND_PIB] + hs->writes[KIND_RAM]);
        put_str(" writes, ");
        put_dec(hs->windows);
        put_str(" windows, ");
        put_dec(hs->turn_ons);
        put_str(" turn-ons, ");
        put_dec(hs->special);
        put_str(" special\n");
        for (i = 0; i < KIND_COUNT; i++) {
            writes[i] += hs->writes[i];
        }
    }
    put_str("writes:");
    for (i = 0; i < KIND_COUNT; i++) {
        put_str(i ? ", " : " ");
        put_str(kind_names[i]);
        put_str(" ");
        put_dec(writes[i]);
    }
    put_str("\n");
}

static void __attribute__((noreturn)) hart0(void)
{
    bool present, guards = true;
    unsigned h, i, shown = 0, bad_lo, bad_hi;
    uint64_t sum;
    uintptr_t a;

    lock();
    if (!read_config()) {
        put_str("FAIL: no valid configuration word at 0x80fff000\n");
        finish(2);
    }
    print_config();
    for (a = ARENA; a < ARENA + ARENA_SIZE; a += 4) {
        /* volatile: memory the RAM sinks write, not an object of ours */
        *(volatile uint32_t *)a = canary(a);
    }
    sum = checksum();
    for (i = 0; i < STACK_GUARD / 4; i++) {
        stack_bottom(0)[i] = guard(0, i);
    }
    for (h = 0; h < cfg.harts; h++) {
        sinks[h].cls = CLS_NONE;
        sinks[h].smem = true;           /* released from reset: SMEM */
    }
    wait_for(&arrived, cfg.harts - 1, 10);
    if (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < cfg.harts - 1) {
        put_str("FAIL: ");
        put_dec(__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) + 1);
        put_str(" harts started, the configuration says ");
        put_dec(cfg.harts);
        put_str("\n");
        finish(2);
    }
    present = components_present();
    unlock();
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);

    run(0);
    __atomic_fetch_add(&finished, 1, __ATOMIC_ACQ_REL);
    wait_for(&finished, cfg.harts, 60);

    /* Every encoder off, then every sink: their last words go out. */
    for (h = 0; h < cfg.harts; h++) {
        if (rd(ENCODER_BASE(h), CONTROL) & ACTIVE) {
            wr(ENCODER_BASE(h), CONTROL, ACTIVE);
        }
    }
    harts[0].result += work_calls(harts[0].result);
    for (h = 0; h < nr_sinks(); h++) {
        uint32_t ctl = rd(RAM_BASE(h), CONTROL);

        if ((ctl & (ACTIVE | ENABLE)) == (ACTIVE | ENABLE)) {
            wr(RAM_BASE(h), CONTROL, ctl & ~(ENABLE | EMPTY));
        }
    }

    lock();
    summary();
    bad_lo = check_canaries(ARENA, INNER_LO, &shown);
    bad_hi = check_canaries(INNER_HI + 4, ARENA + ARENA_SIZE, &shown);
    put_str("canary: ");
    put_dec(bad_lo + bad_hi);
    put_str(" of ");
    put_dec(2 * CANARY_SIZE / 4);
    put_str(" words damaged\n");
    check(present, "the components the configuration says");
    check(!bad_lo, "canary zone below the windows damaged");
    check(!bad_hi, "canary zone above the windows damaged");
    check(checksum() == sum, "code or read-only data changed");
    for (h = 0; h < cfg.harts; h++) {
        for (i = 0; i < STACK_GUARD / 4; i++) {
            if (stack_bottom(h)[i] != guard(h, i)) {
                guards = false;
            }
        }
    }
    check(guards, "the guard at the bottom of a hart's stack changed");
    for (h = 0; h < cfg.harts; h++) {
        checks++;
        if (harts[h].iter != cfg.iterations) {
            failed++;
            put_str("FAIL: hart ");
            put_dec(h);
            put_str(" ran ");
            put_dec(harts[h].iter);
            put_str(" of ");
            put_dec(cfg.iterations);
            put_str(" iterations\n");
        }
    }
    put_str(failed ? "FAIL: " : "PASS: ");
    put_dec(checks);
    put_str(" checks, ");
    put_dec(failed);
    put_str(failed ? " failed, exit code 1\n" : " failed, exit code 0\n");
    finish(failed ? 1 : 0);
}

static void __attribute__((noreturn)) other(unsigned h)
{
    unsigned i;

    for (i = 0; i < STACK_GUARD / 4; i++) {
        stack_bottom(h)[i] = guard(h, i);
    }
    __atomic_fetch_add(&arrived, 1, __ATOMIC_ACQ_REL);
    while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) {
        continue;
    }
    if (h >= cfg.harts) {
        park();
    }
    run(h);
    __atomic_fetch_add(&finished, 1, __ATOMIC_ACQ_REL);
    park();
}

/* Called by test-trace-fuzz.S on every hart, on its own stack. */
void __attribute__((noreturn)) fuzz_main(unsigned long hartid);
void fuzz_main(unsigned long hartid)
{
    if (hartid == 0) {
        hart0();
    }
    other(hartid);
}
