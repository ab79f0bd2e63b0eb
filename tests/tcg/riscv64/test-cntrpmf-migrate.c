/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Smcntrpmf state across a migration (audit S7), driven by
 * tests/scripts/test-ctr-migrate.py under -icount shift=0: the harness
 * migrates the machine in the middle of mig_pmf_run()'s loop.
 *
 * mcyclecfg and minstretcfg inhibit S and U (M counts).  The counter
 * values after the loop follow from Smcntrpmf 1.0 "Counter Behavior",
 * the Zicsr rule for instret (a read sees the value before the reading
 * instruction; a written value is what the next instruction reads) and
 * docs/system/riscv/cntrpmf.rst (under -icount shift=0 every executed
 * instruction is one cycle and an mcycle read includes the reading
 * instruction).  A migration that loses the filters, the written values
 * or the accumulated counts changes them.
 */

#include "rt.h"
#include "test-cntrpmf-migrate.h"

#define CFG             (CFG_SINH | CFG_UINH)

#define LOOP_N          16779264UL
#define INSTRET0        0x0000001234500000UL
#define CYCLE0          0x0000009876500000UL

static long u_work(long n)
{
    volatile long x = 0;    /* volatile: keep the loop */

    while (n--) {
        x += n;
    }
    return x;
}

int main(void)
{
    unsigned long out[4];

    csr_write(CSR_MCOUNTINHIBIT, 0);
    csr_write(CSR_MCYCLECFG, CFG);
    csr_write(CSR_MINSTRETCFG, CFG);
    /* Some uncounted U-mode work, so that per-mode accounting has state. */
    rt_call_in_mode(RT_MODE_U, u_work, 1000);

    rt_printf("READY loop 0x%lx 0x%lx x5 %lu\n",
              (unsigned long)(uintptr_t)mig_pmf_loop,
              (unsigned long)(uintptr_t)mig_pmf_loop_end, LOOP_N);
    mig_pmf_run(LOOP_N, INSTRET0, CYCLE0, out);

    CHECK_EQ(csr_read(CSR_MCYCLECFG), CFG);
    CHECK_EQ(csr_read(CSR_MINSTRETCFG), CFG);
    /* csrw mcycle retired after the write of minstret */
    CHECK_EQ(out[0], INSTRET0 + 1);
    /* csrr minstret, then the reading csrr mcycle */
    CHECK_EQ(out[1], CYCLE0 + 2);
    /* csrw mcycle, two csrr, 4 per iteration */
    CHECK_EQ(out[2], INSTRET0 + 3 + 4 * LOOP_N);
    /* two csrr, the loop, csrr minstret and the reading csrr mcycle */
    CHECK_EQ(out[3], CYCLE0 + 4 + 4 * LOOP_N);
    return 0;
}
