/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Instruction trace filters at work (-M virt,trace=on,trace-start=on):
 * the same workload traced once per filter setting, the settings given
 * by the host (tests/scripts/test-etrace-filters.py), which works out
 * from QEMU's own record which instructions each setting qualifies and
 * compares them with the decoded trace.
 *
 * The host writes at CFG_ADDR the word CFG_MAGIC, then the phases: each
 * a list of (register offset, value) pairs of the encoder of hart 0,
 * ended by the offset CFG_END; an empty phase ends the list.  For each
 * phase, with instruction tracing off, the guest writes the registers,
 * switches tracing on (the store at filt_on_store: tracing starts with
 * the instruction after it), runs the workload, switches tracing off
 * (the store at filt_off_store, the last instruction traced) and writes
 * 0 to the registers again.  Tracing is on from reset until the first
 * store at filt_off_store.
 *
 * The workload has something for every kind of filter:
 *  - M-mode, S-mode and U-mode code, entered and left through ecall and
 *    xRET (rt_call_in_mode);
 *  - two functions whose addresses the comparators look for,
 *    filt_inside and filt_outside, called from every mode;
 *  - an illegal instruction in U-mode, delegated to S-mode, whose
 *    handler asks M-mode for its mode (an ecall nested in the handler);
 *  - a machine software interrupt, taken in M-mode;
 *  - an ebreak in M-mode.
 */

#include "rt.h"

#define ENCODER         0x3020000UL
#define CLINT_MSIP      0x2000000UL
#define TE_CONTROL      0x000
#define TE_INST_TRACING (1u << 2)

#define CFG_ADDR        0x80f00000UL
#define CFG_MAGIC       0x46494c54u     /* "FILT" */
#define CFG_END         0xffffffffu
#define MAX_WRITES      64

#define MIP_MSIP        (1UL << 3)
#define MSTATUS_MIE     (1UL << 3)

static uint32_t rd(unsigned long addr)
{
    /* volatile: a device register, one 32-bit access per call */
    return *(volatile uint32_t *)addr;
}

static void wr(unsigned long addr, uint32_t val)
{
    /* volatile: a device register, one 32-bit access per call */
    *(volatile uint32_t *)addr = val;
}

/* Instruction tracing on: it starts after this store. */
static void __attribute__((noinline)) tracing_on(void)
{
    uint32_t ctl = rd(ENCODER + TE_CONTROL) | TE_INST_TRACING;

    asm volatile(".globl filt_on_store\n"
                 "filt_on_store: sw %0, 0(%1)"
                 : : "r"(ctl), "r"(ENCODER + TE_CONTROL) : "memory");
}

/* Instruction tracing off: this store is the last instruction traced. */
static void __attribute__((noinline)) tracing_off(void)
{
    uint32_t ctl = rd(ENCODER + TE_CONTROL) & ~TE_INST_TRACING;

    asm volatile(".globl filt_off_store\n"
                 "filt_off_store: sw %0, 0(%1)"
                 : : "r"(ctl), "r"(ENCODER + TE_CONTROL) : "memory");
    CHECK_EQ(rd(ENCODER + TE_CONTROL) & TE_INST_TRACING, 0);
}

long __attribute__((noinline)) filt_inside(long x)
{
    long acc = 0;
    long i;

    for (i = 0; i < 4; i++) {
        acc += x & 1 ? 3 * x + 1 : x / 2;
        x++;
    }
    return acc;
}

long __attribute__((noinline)) filt_outside(long x)
{
    return x * 7 + 1;
}

static long in_mode_work(long n)
{
    long acc = 0;
    long i;

    for (i = 0; i < n; i++) {
        acc += filt_inside(i) + filt_outside(i);
    }
    return acc;
}

/* In U-mode: the work, then an illegal instruction (handled in S-mode). */
static long in_user(long n)
{
    long acc = in_mode_work(n);

    /* csrrw zero, cycle, zero: a write to a read-only CSR */
    asm volatile(".4byte 0xc0001073");
    return acc;
}

static int illegal_seen;

/* The S-mode handler of U's illegal instruction, with an ecall to M. */
static void on_illegal(struct rt_frame *f, int level)
{
    CHECK_EQ(rt_current_mode(), RT_MODE_S);
    illegal_seen++;
    rt_skip_insn(f);
}

static int msip_seen;

static void on_msip(struct rt_frame *f, int level)
{
    wr(CLINT_MSIP, 0);
    msip_seen++;
}

/* sum of filt_inside(i) + filt_outside(i) for i < @n */
static long expected_work(long n)
{
    long acc = 0;
    long i, j, x;

    for (i = 0; i < n; i++) {
        for (j = 0, x = i; j < 4; j++, x++) {
            acc += x & 1 ? 3 * x + 1 : x / 2;
        }
        acc += i * 7 + 1;
    }
    return acc;
}

static void workload(void)
{
    CHECK_EQ(in_mode_work(3), expected_work(3));
    CHECK_EQ(rt_call_in_mode(RT_MODE_U, in_user, 2), expected_work(2));
    CHECK_EQ(rt_call_in_mode(RT_MODE_S, in_mode_work, 2), expected_work(2));

    /*
     * The interrupt is pending before it is enabled: taken right after
     * the CSR write that enables it (which ends its block).
     */
    wr(CLINT_MSIP, 1);
    csr_set(CSR_MIE, MIP_MSIP);
    csr_set(CSR_MSTATUS, MSTATUS_MIE);
    csr_clear(CSR_MSTATUS, MSTATUS_MIE);
    csr_clear(CSR_MIE, MIP_MSIP);

    CHECK_EQ(RT_TRAP_CAUSE(asm volatile("ebreak")), CAUSE_BREAKPOINT);
}

int main(void)
{
    /* volatile: the loader wrote it, the compiler cannot know it */
    const volatile uint32_t *cfg = (const volatile uint32_t *)CFG_ADDR;
    uint32_t written[MAX_WRITES];
    unsigned phases = 0;
    unsigned n, i;

    rt_set_trap_handler(RT_LEVEL_HS, CAUSE_INSN_ILLEGAL, on_illegal);
    rt_set_trap_handler(RT_LEVEL_M, CAUSE_INTERRUPT | 3, on_msip);
    csr_write(CSR_MEDELEG, 1UL << CAUSE_INSN_ILLEGAL);

    tracing_off();
    if (!CHECK_EQ(*cfg++, CFG_MAGIC)) {
        return 1;
    }
    for (;;) {
        for (n = 0; *cfg != CFG_END; n++, cfg += 2) {
            if (!CHECK(n < MAX_WRITES)) {
                return 1;
            }
            written[n] = cfg[0];
            wr(ENCODER + cfg[0], cfg[1]);
        }
        cfg++;
        if (!n) {
            break;
        }
        tracing_on();
        workload();
        tracing_off();
        for (i = 0; i < n; i++) {
            wr(ENCODER + written[i], 0);
        }
        phases++;
    }
    CHECK_EQ(illegal_seen, phases);
    CHECK_EQ(msip_seen, phases);
    rt_printf("%u phases\n", phases);
    return 0;
}
