/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Workloads of test-ctr-migrate.c: M-mode instruction sequences whose
 * recorded transfers, and the instructions between them, are known
 * exactly.  Every routine that enables CTR writes mctrctl itself, so the
 * point where the cycle counter restarts is known.  The transfers meant
 * to be recorded have global labels; the C side checks ctrsource and
 * ctrtarget against them.
 *
 * Counting rule (docs/system/riscv/ctr.rst, "Cycle counting", under
 * -icount shift=0): the count of a record is the number of instructions
 * executed after the previous record up to and including the recorded
 * transfer.  A "csrr mcycle" returns the number of instructions retired
 * before it.
 *
 * Assembled without compressed instructions and without relaxation, so
 * every instruction below is 4 bytes and "li"/"la" expand as written.
 */

#include "rt-csr.h"

    .option norvc
    .option norelax
    .text

/*
 * void mig_chain_run(unsigned long mctrctl)
 * Enable CTR, execute MIG_CHAIN_LEN direct jumps (jal x0) each to the
 * next instruction, disable CTR.  Jump k (1-based) is at
 * mig_chain + 4 * (k - 1) and targets the instruction after it.  Every
 * jump but the first is one instruction after the previous record.
 */
#define MIG_CHAIN_LEN 70
    .globl  mig_chain_run, mig_chain, mig_chain_end
mig_chain_run:
    csrw    CSR_MCTRCTL, a0
mig_chain:
    .rept   MIG_CHAIN_LEN
    j       1f
1:
    .endr
mig_chain_end:
    csrw    CSR_MCTRCTL, zero
    ret

/*
 * void mig_count_run(unsigned long mctrctl, unsigned long n,
 *                    unsigned long out[2])
 * Enable CTR, record mig_ja, run a loop of n >= 1 iterations of four
 * instructions whose branch must not be recorded (mctrctl.TKBRINH=1,
 * NTBREN=0), record mig_jb, disable CTR.
 *
 * The count of mig_jb is 4 * n + 3:
 *     csrr t5, mcycle              1
 *     n * (addi, csrr, nop, bnez)  4 * n
 *     csrr t6, mcycle              1
 *     mig_jb                       1
 * out[0] = t6 - t5 = 4 * n + 1 (mcycle, for an independent check);
 *
 * The counter read in the loop only slows it down: under icount QEMU ends
 * a translation block after it, so the loop takes about two seconds and
 * the harness has time to stop the machine in the middle of it.
 * out[1] = mctrctl as read after mig_jb.
 */
    .globl  mig_count_run, mig_ja, mig_ja_tgt, mig_count_loop
    .globl  mig_count_loop_end, mig_jb, mig_jb_tgt
mig_count_run:
    csrw    CSR_MCTRCTL, a0
    mv      t0, a1
mig_ja:
    j       mig_ja_tgt
mig_ja_tgt:
    csrr    t5, CSR_MCYCLE
mig_count_loop:
    addi    t0, t0, -1
    csrr    t1, CSR_MCYCLE          /* slow under icount: see above */
    nop
mig_count_loop_end:
    bnez    t0, mig_count_loop
    csrr    t6, CSR_MCYCLE
mig_jb:
    j       mig_jb_tgt
mig_jb_tgt:
    csrr    t1, CSR_MCTRCTL
    csrw    CSR_MCTRCTL, zero
    sub     t6, t6, t5
    sd      t6, 0(a2)
    sd      t1, 8(a2)
    ret

/*
 * void mig_frozen_run(unsigned long mctrctl, unsigned long n,
 *                     void (*ready)(void))
 * Enable CTR, record mig_fj, set sctrstatus.FROZEN, call ready() (not
 * recorded: frozen), then run a loop of n >= 1 iterations that contains
 * a direct jump and a taken branch, none of which may be recorded (the
 * counter read only slows the loop down, as in mig_count_run).  Returns
 * with CTR still enabled and frozen.
 */
    .globl  mig_frozen_run, mig_fj, mig_fj_tgt, mig_frozen_loop
    .globl  mig_frozen_loop_end
mig_frozen_run:
    addi    sp, sp, -16
    sd      ra, 0(sp)
    sd      s0, 8(sp)
    mv      s0, a1
    csrw    CSR_MCTRCTL, a0
mig_fj:
    j       mig_fj_tgt
mig_fj_tgt:
    li      t0, 1
    slli    t0, t0, 31              /* sctrstatus.FROZEN */
    csrs    CSR_SCTRSTATUS, t0
    jalr    ra, 0(a2)
mig_frozen_loop:
    j       1f                      /* direct jump: frozen, not recorded */
1:  addi    s0, s0, -1
    csrr    t1, CSR_MCYCLE
mig_frozen_loop_end:
    bnez    s0, mig_frozen_loop     /* taken branch: not recorded */
    ld      ra, 0(sp)
    ld      s0, 8(sp)
    addi    sp, sp, 16
    ret

/*
 * void mig_unfreeze_run(void)
 * With CTR enabled and frozen: clear FROZEN, record mig_fu, disable CTR.
 */
    .globl  mig_unfreeze_run, mig_fu, mig_fu_tgt
mig_unfreeze_run:
    li      t0, 1
    slli    t0, t0, 31
    csrc    CSR_SCTRSTATUS, t0
mig_fu:
    j       mig_fu_tgt
mig_fu_tgt:
    csrw    CSR_MCTRCTL, zero
    ret
