/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Measured loop of test-cntrpmf-migrate.c (runs in M-mode, which the
 * test's filters let count).
 */

#include "rt-asm.h"

#define CSR_MCYCLE      0xb00
#define CSR_MINSTRET    0xb02

    .text
/*
 * void mig_pmf_run(unsigned long n, unsigned long instret0,
 *                  unsigned long cycle0, unsigned long out[4])
 * Write minstret = instret0 and mcycle = cycle0, read both, run a loop of
 * n >= 1 iterations of four instructions, read both again:
 *     out[0] = minstret after the writes
 *     out[1] = mcycle after the writes
 *     out[2] = minstret after the loop
 *     out[3] = mcycle after the loop
 * The minstret read in the loop ends a translation block under icount,
 * which slows the loop down enough for the harness to stop it midway.
 */
    .globl  mig_pmf_run, mig_pmf_loop, mig_pmf_loop_end
mig_pmf_run:
    mv      t0, a0
    csrw    CSR_MINSTRET, a1
    csrw    CSR_MCYCLE, a2
    csrr    t5, CSR_MINSTRET
    csrr    t3, CSR_MCYCLE
mig_pmf_loop:
    addi    t0, t0, -1
    csrr    t1, CSR_MINSTRET
    nop
mig_pmf_loop_end:
    bnez    t0, mig_pmf_loop
    csrr    t6, CSR_MINSTRET
    csrr    t4, CSR_MCYCLE
    sd      t5, 0(a3)
    sd      t3, 8(a3)
    sd      t6, 16(a3)
    sd      t4, 24(a3)
    ret
