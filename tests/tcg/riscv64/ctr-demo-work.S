/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The demonstration's workload: one control transfer of every type CTR
 * can record in M-mode without interrupts, each at a global label so the
 * C side can check the recorded source and target addresses.
 *
 * void ctr_demo_work(unsigned long mctrctl)
 * Enables CTR with the given mctrctl, runs the transfers, disables it.
 */

#include "rt-csr.h"

    .option norvc           /* fixed 4-byte forms, labels stay exact */
    .text
    .globl  ctr_demo_work
ctr_demo_work:
    mv      t4, ra
    la      t0, demo_trap
    csrrw   t3, CSR_MTVEC, t0
    csrw    CSR_MCTRCTL, a0

    .globl  demo_call, demo_after_call, demo_icall, demo_after_icall
    .globl  demo_leaf, demo_ret, demo_jmp, demo_jmp_tgt, demo_br
    .globl  demo_br_tgt, demo_nbr, demo_nbr_next, demo_ecall
    .globl  demo_after_ecall, demo_trap, demo_mret, demo_ljmp
    .globl  demo_ljmp_tgt, demo_lijmp, demo_lijmp_tgt, demo_swap
    .globl  demo_swap_tgt, demo_ijmp, demo_ijmp_tgt

demo_call:                          /* direct call: jal x1 */
    jal     ra, demo_leaf
demo_after_call:
    la      t1, demo_leaf
demo_icall:                         /* indirect call: jalr x1, rs != x5 */
    jalr    ra, 0(t1)
demo_after_icall:
demo_jmp:                           /* direct jump: jal x0 */
    jal     zero, demo_jmp_tgt
    nop
demo_jmp_tgt:
demo_br:                            /* taken branch */
    beq     zero, zero, demo_br_tgt
    nop
demo_br_tgt:
demo_nbr:                           /* not-taken branch */
    bne     zero, zero, demo_trap
demo_nbr_next:
demo_ljmp:                          /* other direct jump: jal rd != x0/1/5 */
    jal     t1, demo_ljmp_tgt
    nop
demo_ljmp_tgt:
    la      t2, demo_lijmp_tgt
demo_lijmp:                         /* other indirect jump: jalr x6, x7 */
    jalr    t1, 0(t2)
    nop
demo_lijmp_tgt:
    la      t0, demo_swap_tgt
demo_swap:                          /* co-routine swap: jalr x1, x5 */
    jalr    ra, 0(t0)
    nop
demo_swap_tgt:
    la      t2, demo_ijmp_tgt
demo_ijmp:                          /* indirect jump: jalr x0, rs != x1/5 */
    jalr    zero, 0(t2)
    nop
demo_ijmp_tgt:
demo_ecall:                         /* exception, then trap return */
    ecall
demo_after_ecall:
    csrw    CSR_MCTRCTL, zero
    csrw    CSR_MTVEC, t3
    mv      ra, t4
    ret

demo_leaf:
demo_ret:                           /* function return: jalr x0, x1 */
    jalr    zero, 0(ra)

    .align  2
demo_trap:
    csrr    t2, CSR_MEPC
    addi    t2, t2, 4
    csrw    CSR_MEPC, t2
demo_mret:
    mret
