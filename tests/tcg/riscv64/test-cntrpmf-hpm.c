/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Smcntrpmf 1.0 mode filtering of instret and cycle counts that are
 * exact, and of the Sscofpmf overflow of a programmable counter counting
 * the cycles (mhpmevent = 1) or instructions (mhpmevent = 2) event
 * (docs/system/riscv/cntrpmf.rst, "Counting"; audit S4 and S8):
 *
 * - minstret counts retired instructions, with and without -icount
 *   ("QEMU counts instructions itself, with and without -icount: the
 *   value is exact and deterministic in both cases"; audit S4): a window
 *   of k instructions in M-mode between two reads gives k + 1 (Zicsr: a
 *   CSR read of instret reads the value before itself), 0 with MINH;
 *   U-mode work entered with mret and left with ecall counts only its
 *   own instructions under MINH=1, UINH=0 (Smcntrpmf, "Counter
 *   Behavior": the ecall does not retire, the mret originates in the
 *   inhibited M-mode);
 * - a programmable counter counting instructions/cycles with MINH set in
 *   its mhpmevent (Sscofpmf filter bits, same layout as mcyclecfg) and
 *   started at 2^64 - K does not overflow while much more than K
 *   instructions run in M-mode, nor after fewer than K in U-mode; after
 *   enough in U-mode to cross it wraps to the exact value, OF (mhpmevent
 *   bit 63) is set and mip.LCOFIP (bit 13) is pending (audit S8:
 *   upstream's overflow timer ignores inhibited modes);
 * - with the overflow interrupt enabled it is taken from U-mode right
 *   after the instruction that wraps the counter (mepc exact);
 * - mcountinhibit.HPM3 stops counter 3 entirely, with no overflow;
 * - minstret and mcycle wrap from 2^64 without ever raising LCOFIP
 *   ("these counters do not generate local counter overflow
 *   interrupts"): minstret = 2^64 - 5 plus 20 instructions reads 15;
 * - under -icount shift=0 every executed instruction is one cycle.
 *
 * Run modes: the loader tells the program whether QEMU runs with
 * -icount shift=0 through a 64-bit word at 0x80fff000:
 *   -device loader,addr=0x80fff000,data=0x434e54520000000F,data-len=8
 * with F = 1 for -icount shift=0 (all checks) and F = 0 without -icount
 * (the cycle-clock checks are skipped: mcycle deltas and the cycles
 * event in U-mode; everything else runs, since instret and the
 * instructions event are exact either way).  Without that word the
 * program assumes -icount shift=0.
 *
 * Run with -cpu rv64,smcntrpmf=on,sscofpmf=on.  The overflow is reported
 * when QEMU's overflow timer fires, so the test waits for it: a bounded
 * time (the time CSR) for a report that must come, and at least 200 us
 * of time and 10 * K instructions for one that must not.
 */

#include "rt.h"
#include "test-cntrpmf-hpm.h"

#define CSR_MHPMEVENT3      0x323
#define CSR_MHPMEVENT4      0x324
#define CSR_MHPMCOUNTER3    0xb03
#define CSR_MHPMCOUNTER4    0xb04
#define CSR_TIME            0xc01


#define EV_CYCLES           1       /* mhpmevent: CPU cycles */
#define EV_INSTRET          2       /* mhpmevent: retired instructions */

#define INHIBIT_CY          (1UL << 0)
#define INHIBIT_IR          (1UL << 2)
#define INHIBIT_HPM3        (1UL << 3)
#define INHIBIT_HPM4        (1UL << 4)
#define IRQ_LCOF            13
#define MIP_LCOFIP          (1UL << IRQ_LCOF)

#define MODE_ADDR           0x80fff000UL
#define MODE_MAGIC          0x434e5452UL

#define K                   1000UL          /* counter starts at -K */
#define N_SHORT             400UL           /* 800 instructions < K */
#define N_CROSS             150UL           /* 800 + 300 > K */
#define N_M                 1000UL          /* M-mode windows: 2000 */
#define QUIET_TICKS         2000UL          /* 200 us at 10 MHz */
#define REPORT_TICKS        5000000UL       /* 0.5 s */

static bool icount;

static unsigned long lcofip(void)
{
    return csr_read(CSR_MIP) & MIP_LCOFIP;
}

static unsigned long of3(void)
{
    return csr_read(CSR_MHPMEVENT3) & CFG_OF;
}

/*
 * Give a wrongly scheduled overflow every chance to be reported: at
 * least 10 * K instructions and QUIET_TICKS of the time CSR.
 */
static void wait_quiet(void)
{
    unsigned long t0 = csr_read(CSR_TIME);

    do {
        cntrpmf_spin(5 * K);
    } while (csr_read(CSR_TIME) - t0 < QUIET_TICKS);
}

/* Wait up to REPORT_TICKS for OF of counter 3; true if it was set. */
static bool wait_overflow(void)
{
    unsigned long t0 = csr_read(CSR_TIME);

    while (!of3()) {
        if (csr_read(CSR_TIME) - t0 >= REPORT_TICKS) {
            return false;
        }
        cntrpmf_spin(K);
    }
    return true;
}

/* The same for counter 4, whose overflow test runs after counter 3's. */
static bool wait_overflow4(void)
{
    unsigned long t0 = csr_read(CSR_TIME);

    while (!(csr_read(CSR_MHPMEVENT4) & CFG_OF)) {
        if (csr_read(CSR_TIME) - t0 >= REPORT_TICKS) {
            return false;
        }
        cntrpmf_spin(K);
    }
    return true;
}

/* Clear counter 3's overflow state: OF in mhpmevent3 and LCOFIP. */
static void clear_overflow(unsigned long event)
{
    csr_write(CSR_MHPMEVENT3, event);
    csr_clear(CSR_MIP, MIP_LCOFIP);
    CHECK_EQ(of3(), 0);
    CHECK_EQ(lcofip(), 0);
}

/* minstret and U-mode/M-mode instret windows (exact without -icount). */
static void check_instret(void)
{
    unsigned long before;

    rt_printf("minstret windows\n");
    csr_write(CSR_MINSTRETCFG, 0);
    CHECK_EQ(cntrpmf_delta_minstret(N_M), 2 * N_M + 1);
    csr_write(CSR_MINSTRETCFG, CFG_UINH);
    CHECK_EQ(cntrpmf_delta_minstret(N_M), 2 * N_M + 1);
    csr_write(CSR_MINSTRETCFG, CFG_MINH);
    CHECK_EQ(cntrpmf_delta_minstret(N_M), 0);

    /* MINH=1, UINH=0: only the 2 * N_SHORT U instructions count. */
    before = csr_read(CSR_MINSTRET);
    CHECK_EQ(cntrpmf_run_u(N_SHORT), CAUSE_ECALL_U);
    CHECK_EQ(csr_read(CSR_MINSTRET) - before, 2 * N_SHORT);
    csr_write(CSR_MINSTRETCFG, 0);
}

/* mcycle windows under -icount shift=0. */
static void check_cycle(void)
{
    unsigned long before;

    rt_printf("mcycle windows\n");
    csr_write(CSR_MCYCLECFG, 0);
    CHECK_EQ(cntrpmf_delta_mcycle(N_M), 2 * N_M + 1);
    csr_write(CSR_MCYCLECFG, CFG_UINH);
    CHECK_EQ(cntrpmf_delta_mcycle(N_M), 2 * N_M + 1);
    csr_write(CSR_MCYCLECFG, CFG_MINH);
    CHECK_EQ(cntrpmf_delta_mcycle(N_M), 0);

    /* MINH=1, UINH=0: the U instructions and the ecall's cycle. */
    before = csr_read(CSR_MCYCLE);
    CHECK_EQ(cntrpmf_run_u(N_SHORT), CAUSE_ECALL_U);
    CHECK_EQ(csr_read(CSR_MCYCLE) - before, 2 * N_SHORT + 1);
    csr_write(CSR_MCYCLECFG, 0);
}

/*
 * Counter 3 counting @event with MINH, started at -K: in U-mode the
 * event advances by 2 * n (+1 per ecall for cycles) per cntrpmf_run_u(n).
 */
static void check_hpm_overflow(unsigned long event, const char *name)
{
    unsigned long per_ecall = event == EV_CYCLES ? 1 : 0;
    unsigned long in_u = 2 * N_SHORT + per_ecall;

    rt_printf("counter 3, %s event, MINH\n", name);
    csr_write(CSR_MHPMEVENT3, CFG_MINH | event);
    CHECK_EQ(csr_read(CSR_MHPMEVENT3), CFG_MINH | event);
    clear_overflow(CFG_MINH | event);
    csr_write(CSR_MHPMCOUNTER3, -K);

    /* Much more than K instructions in the inhibited M-mode. */
    wait_quiet();
    CHECK_EQ(csr_read(CSR_MHPMCOUNTER3), -K);
    CHECK_EQ(of3(), 0);
    CHECK_EQ(lcofip(), 0);

    if (event == EV_CYCLES && !icount) {
        /* U-mode cycles are host cycles without -icount. */
        csr_write(CSR_MHPMEVENT3, 0);
        return;
    }

    /* Fewer than K in U-mode. */
    CHECK_EQ(cntrpmf_run_u(N_SHORT), CAUSE_ECALL_U);
    wait_quiet();
    CHECK_EQ(csr_read(CSR_MHPMCOUNTER3), -K + in_u);
    CHECK_EQ(of3(), 0);
    CHECK_EQ(lcofip(), 0);

    /* Enough in U-mode to cross 2^64. */
    CHECK_EQ(cntrpmf_run_u(N_CROSS), CAUSE_ECALL_U);
    in_u += 2 * N_CROSS + per_ecall;
    CHECK(wait_overflow());
    CHECK_EQ(csr_read(CSR_MHPMCOUNTER3), in_u - K);
    CHECK_EQ(of3(), CFG_OF);
    CHECK_EQ(lcofip(), MIP_LCOFIP);

    clear_overflow(CFG_MINH | event);
    csr_write(CSR_MHPMEVENT3, 0);
}

/*
 * The overflow interrupt of an instructions counter comes at its exact
 * instruction, with or without -icount (docs/system/riscv/cntrpmf.rst):
 * counter 3 counting U-mode instructions from -k wraps to 0 at the k-th
 * instruction of cntrpmf_u_loop (addi, bnez, addi, ...), and with LCOFI
 * enabled the interrupt is taken from U before the next one: mepc is
 * the addi for an even k, the bnez after it for an odd one; M-mode
 * (MINH) adds nothing, so the counter reads 0.
 */
static void check_hpm_overflow_exact(unsigned long k)
{
    unsigned long loop = (unsigned long)cntrpmf_u_loop;

    rt_printf("counter 3, instructions event, interrupt after %lu\n", k);
    csr_write(CSR_MHPMEVENT3, CFG_MINH | EV_INSTRET);
    clear_overflow(CFG_MINH | EV_INSTRET);
    csr_write(CSR_MHPMCOUNTER3, -k);
    csr_write(CSR_MIE, MIP_LCOFIP);
    CHECK_EQ(cntrpmf_run_u(k), (1UL << 63) | IRQ_LCOF);
    csr_write(CSR_MIE, 0);
    CHECK_EQ(csr_read(CSR_MEPC), loop + (k % 2 ? 4 : 0));
    CHECK_EQ(csr_read(CSR_MHPMCOUNTER3), 0);
    CHECK_EQ(of3(), CFG_OF);
    clear_overflow(CFG_MINH | EV_INSTRET);
    csr_write(CSR_MHPMEVENT3, 0);
}

/* Counter 3 counting instructions in M-mode, and mcountinhibit.HPM3. */
static void check_hpm_counting(void)
{
    rt_printf("counter 3, instructions event, M counts\n");
    csr_write(CSR_MHPMEVENT3, CFG_UINH | EV_INSTRET);
    clear_overflow(CFG_UINH | EV_INSTRET);
    csr_write(CSR_MHPMCOUNTER3, -(1UL << 40));
    CHECK_EQ(cntrpmf_delta_hpm3(N_M), 2 * N_M + 1);

    rt_printf("counter 3 inhibited in mcountinhibit\n");
    csr_write(CSR_MHPMEVENT3, EV_INSTRET);
    csr_set(CSR_MCOUNTINHIBIT, INHIBIT_HPM3);
    csr_write(CSR_MHPMCOUNTER3, -K);
    CHECK_EQ(cntrpmf_run_u(N_SHORT), CAUSE_ECALL_U);
    CHECK_EQ(cntrpmf_run_u(N_SHORT), CAUSE_ECALL_U);
    wait_quiet();
    CHECK_EQ(csr_read(CSR_MHPMCOUNTER3), -K);
    CHECK_EQ(of3(), 0);
    CHECK_EQ(lcofip(), 0);
    csr_write(CSR_MHPMEVENT3, 0);
}

/*
 * A programmable counter obeys the write and read rules of minstret
 * (Zicsr; docs/system/riscv/cntrpmf.rst): the value written replaces the
 * count of the writing instruction and a read does not count itself, so
 * csrw mhpmcounter3 then csrr mhpmcounter3 reads what was written.
 */
static void check_hpm_write_rule(void)
{
    rt_printf("counter 3, instructions event: write then read\n");
    csr_write(CSR_MCOUNTINHIBIT, 0);
    csr_write(CSR_MHPMEVENT3, EV_INSTRET);
    CHECK_EQ(cntrpmf_hpm3_write_read(0), 0);
    CHECK_EQ(cntrpmf_hpm3_write_read(12345), 12345);
    CHECK_EQ(cntrpmf_hpm3_write_read(-1UL), -1UL);
    clear_overflow(0);
}

/*
 * Any number of counters count the same event, each with its own filter
 * and its own overflow (Sscofpmf: each mhpmevent selects the event and
 * filter of its counter; Linux's perf stat -e cycles:u,cycles:k and
 * -e instructions,instructions program two counters this way).
 */
static void check_hpm_pair(unsigned long event, const char *name)
{
    unsigned long d[2];
    unsigned long per_ecall = event == EV_CYCLES ? 1 : 0;

    rt_printf("counters 3 and 4, both %s: same filter, then :u and :k\n",
              name);
    csr_write(CSR_MHPMEVENT3, event);
    csr_write(CSR_MHPMEVENT4, event);
    csr_write(CSR_MHPMCOUNTER3, 1000);
    csr_write(CSR_MHPMCOUNTER4, 5000);
    cntrpmf_pair_delta(N_M, d);
    CHECK_EQ(d[0], 2 * N_M + 2);
    CHECK_EQ(d[1], 2 * N_M + 2);

    /* Counter 3 counts U only (like :u), counter 4 M only (like :k). */
    csr_write(CSR_MHPMEVENT3, CFG_MINH | event);
    csr_write(CSR_MHPMEVENT4, CFG_UINH | event);
    cntrpmf_pair_delta(N_M, d);
    CHECK_EQ(d[0], 0);
    CHECK_EQ(d[1], 2 * N_M + 2);
    /*
     * Around a U-mode run: counter 3 sees the U instructions (and, for
     * cycles, the ecall's cycle, which belongs to U), counter 4 the 19
     * M-mode instructions of cntrpmf_pair_run_u (an xRET counts in the
     * mode it executes in).
     */
    cntrpmf_pair_run_u(N_SHORT, d);
    CHECK_EQ(d[0], 2 * N_SHORT + per_ecall);
    CHECK_EQ(d[1], 19);

    csr_write(CSR_MHPMEVENT3, 0);
    csr_write(CSR_MHPMEVENT4, 0);
}

/*
 * Two counters on the instructions event, U only, started so that only
 * counter 3 crosses 2^64 in one U-mode run: only its OF is set; a second
 * run makes counter 4 overflow as well.
 */
static void check_hpm_pair_overflow(void)
{
    unsigned long in_u = 2 * N_SHORT;

    rt_printf("counters 3 and 4, instructions, separate overflows\n");
    clear_overflow(CFG_MINH | EV_INSTRET);
    csr_write(CSR_MHPMEVENT4, CFG_MINH | EV_INSTRET);
    CHECK_EQ(csr_read(CSR_MHPMEVENT4) & CFG_OF, 0);
    csr_write(CSR_MHPMCOUNTER3, -(in_u / 2));
    csr_write(CSR_MHPMCOUNTER4, -(in_u + in_u / 2));
    CHECK_EQ(cntrpmf_run_u(N_SHORT), CAUSE_ECALL_U);
    CHECK(wait_overflow());
    CHECK_EQ(csr_read(CSR_MHPMCOUNTER3), in_u / 2);
    CHECK_EQ(csr_read(CSR_MHPMCOUNTER4), -(in_u / 2));
    CHECK_EQ(csr_read(CSR_MHPMEVENT4) & CFG_OF, 0);
    CHECK_EQ(cntrpmf_run_u(N_SHORT), CAUSE_ECALL_U);
    CHECK(wait_overflow4());
    CHECK_EQ(csr_read(CSR_MHPMCOUNTER4), in_u / 2);
    CHECK_EQ(csr_read(CSR_MHPMEVENT4) & CFG_OF, CFG_OF);
    CHECK_EQ(lcofip(), MIP_LCOFIP);
    csr_write(CSR_MHPMEVENT4, 0);
    clear_overflow(0);
}

/* minstret and mcycle wrap from 2^64 without an overflow interrupt. */
static void check_fixed_wrap(void)
{
    unsigned long c[2];

    rt_printf("minstret/mcycle wrap\n");
    csr_write(CSR_MINSTRETCFG, 0);
    csr_write(CSR_MCYCLECFG, 0);
    CHECK_EQ(lcofip(), 0);

    /* 2^64 - 5 + 20 instructions: 15. */
    CHECK_EQ(cntrpmf_minstret_wrap(-5UL), 15);
    wait_quiet();
    CHECK_EQ(lcofip(), 0);
    CHECK_EQ(csr_read(CSR_MINSTRETCFG) & CFG_OF, 0);

    if (icount) {
        /* From 2^64 - 10: the reads are 21 cycles apart, past 2^64. */
        cntrpmf_mcycle_wrap(-10UL, c);
        CHECK_EQ(c[1] - c[0], 21);
        CHECK(c[0] >= -10UL && c[1] < 21);
        wait_quiet();
        CHECK_EQ(lcofip(), 0);
        CHECK_EQ(csr_read(CSR_MCYCLECFG) & CFG_OF, 0);
    }
}

int main(void)
{
    unsigned long mode = *(volatile unsigned long *)MODE_ADDR;  /* loader */

    icount = (mode >> 32) != MODE_MAGIC || (mode & 1);
    rt_printf("test-cntrpmf-hpm: %s\n",
              icount ? "-icount shift=0 mode, all checks"
                     : "no -icount mode, cycle-clock checks skipped");

    /* Counter 3 must exist and count the two events (Sscofpmf). */
    csr_write(CSR_MCOUNTINHIBIT, 0);
    csr_write(CSR_MIE, 0);
    csr_write(CSR_MHPMEVENT3, 0);
    clear_overflow(0);

    check_instret();
    if (icount) {
        check_cycle();
    }
    check_hpm_overflow(EV_INSTRET, "instructions");
    check_hpm_overflow(EV_CYCLES, "cycles");
    check_hpm_overflow_exact(777);
    check_hpm_overflow_exact(1000);
    check_hpm_counting();
    check_hpm_write_rule();
    check_hpm_pair(EV_INSTRET, "instructions");
    if (icount) {
        check_hpm_pair(EV_CYCLES, "cycles");
    }
    check_hpm_pair_overflow();
    check_fixed_wrap();

    csr_write(CSR_MCOUNTINHIBIT, 0);
    return 0;
}
