/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Workloads of test-ctr-rasemu.c: call/return sequences run with
 * mctrctl.RASEMU=1.  Because calls and returns are what is being
 * recorded, the state of the CTR buffer is captured inside the workload,
 * without any call: SNAP stores sctrstatus and logical entries 0..15
 * (ctrsource, ctrtarget, ctrdata) at s11 and advances s11.  SNAP has no
 * control transfer and is exactly SNAP_INSNS (131) instructions.
 *
 * Assembled without linker relaxation ("la" is always two instructions)
 * and, except where a compressed instruction is under test, without
 * compressed instructions.
 */

#include "rt-csr.h"

#define SNAP_SIZE   (8 + 16 * 24)

    .option norvc
    .option norelax

.macro SNAP
    csrr    t0, CSR_SCTRSTATUS
    sd      t0, 0(s11)
    .irp    i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
    li      t0, 0x200 + \i
    csrw    CSR_SISELECT, t0
    csrr    t0, CSR_SIREG
    sd      t0, 8 + 24 * \i(s11)
    csrr    t0, CSR_SIREG2
    sd      t0, 16 + 24 * \i(s11)
    csrr    t0, CSR_SIREG3
    sd      t0, 24 + 24 * \i(s11)
    .endr
    addi    s11, s11, SNAP_SIZE
.endm

.macro PROLOGUE
    addi    sp, sp, -32
    sd      ra, 0(sp)
    sd      s11, 8(sp)
    sd      s1, 16(sp)
    mv      s11, a1
.endm

.macro EPILOGUE
    ld      ra, 0(sp)
    ld      s11, 8(sp)
    ld      s1, 16(sp)
    addi    sp, sp, 32
    ret
.endm

    .text

/*
 * unsigned long ras_snap_cal(unsigned long unused, void *buf)
 * One SNAP between two reads of mcycle: returns SNAP_INSNS + 1.
 */
    .globl  ras_snap_cal
ras_snap_cal:
    PROLOGUE
    csrr    t5, CSR_MCYCLE
    SNAP
    csrr    t6, CSR_MCYCLE
    sub     a0, t6, t5
    EPILOGUE

/*
 * void ras_chain(unsigned long mctrctl, void *buf)
 * Twenty nested calls ras_c0 -> ras_f1 -> ras_f2 ... -> ras_f20, each
 * function saving ra on the stack (ras_f<i> calls ras_f<i+1> from
 * ras_c<i>, three instructions after it was entered), then the twenty
 * returns; snapshots in ras_f20 (after the calls), in every ras_f<i>
 * after its callee returned and in the caller after the last return
 * (21 snapshots).  Then three nested calls again, ras_c0b -> ras_f18 ->
 * ras_f19 -> ras_f20, and their returns (4 more snapshots).
 */
.macro CHAIN_FN i, next
    .globl  ras_f\i, ras_c\i
ras_f\i:
    addi    sp, sp, -16
    sd      ra, 0(sp)
ras_c\i:
    jal     ra, ras_f\next
    SNAP
    ld      ra, 0(sp)
    addi    sp, sp, 16
    ret
.endm

    .globl  ras_chain, ras_c0, ras_c0b, ras_f20
ras_chain:
    PROLOGUE
    csrw    CSR_MCTRCTL, a0
ras_c0:
    jal     ra, ras_f1
    SNAP
ras_c0b:
    jal     ra, ras_f18
    SNAP
    csrw    CSR_MCTRCTL, zero
    EPILOGUE

    CHAIN_FN 1, 2
    CHAIN_FN 2, 3
    CHAIN_FN 3, 4
    CHAIN_FN 4, 5
    CHAIN_FN 5, 6
    CHAIN_FN 6, 7
    CHAIN_FN 7, 8
    CHAIN_FN 8, 9
    CHAIN_FN 9, 10
    CHAIN_FN 10, 11
    CHAIN_FN 11, 12
    CHAIN_FN 12, 13
    CHAIN_FN 13, 14
    CHAIN_FN 14, 15
    CHAIN_FN 15, 16
    CHAIN_FN 16, 17
    CHAIN_FN 17, 18
    CHAIN_FN 18, 19
    CHAIN_FN 19, 20
ras_f20:
    SNAP
    ret

    .section .rodata
    .align  3
    /* ras_chain_fn[i] = ras_f<i+1>, ras_chain_site[i] = ras_c<i> */
    .globl  ras_chain_fn, ras_chain_site
ras_chain_fn:
    .irp    i, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, \
               18, 19, 20
    .dword  ras_f\i
    .endr
ras_chain_site:
    .irp    i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, \
               17, 18, 19
    .dword  ras_c\i
    .endr
    .text

/*
 * void ras_forms(unsigned long mctrctl, void *buf)
 * Every call, return and co-routine swap form, then every other kind of
 * transfer, each followed by a snapshot (28 snapshots, the first one
 * before the first transfer).  Calls: fm_c<n> -> fm_t<n>; returns
 * fm_r<n> -> fm_t<n>; swaps fm_s<n> -> fm_t<n>; transfers that are not
 * recorded fm_j/fm_b/fm_e<n>.  Op 25 is a call after the swaps without
 * any return in between; the routine returns the mcycle delta from the
 * instruction after swap 14 to just before call 25.
 */
    .globl  ras_forms
    .globl  fm_c1, fm_t1, fm_c2, fm_t2, fm_c3, fm_t3, fm_c4, fm_t4
    .globl  fm_c5, fm_t5, fm_c6, fm_t6, fm_s12, fm_t12, fm_s13, fm_t13
    .globl  fm_s14, fm_t14, fm_c25, fm_t25, fm_c27, fm_t27
ras_forms:
    PROLOGUE
    la      t0, fm_trap
    csrrw   s1, CSR_MTVEC, t0
    csrw    CSR_MCTRCTL, a0
    SNAP                                /* 0: before anything */
fm_c1:
    jal     ra, fm_t1                   /* 1: direct call (x1) */
fm_t1:
    SNAP
    la      t1, fm_t2
fm_c2:
    jalr    ra, 0(t1)                   /* 2: indirect call (x1, x6) */
fm_t2:
    SNAP
    la      t1, fm_t3
    .option push
    .option rvc
fm_c3:
    c.jalr  t1                          /* 3: indirect call (c.jalr x6) */
    .option pop
fm_t3:
    SNAP
fm_c4:
    jal     t0, fm_t4                   /* 4: direct call (x5) */
fm_t4:
    SNAP
    la      t1, fm_t5
fm_c5:
    jalr    t0, 0(t1)                   /* 5: indirect call (x5, x6) */
fm_t5:
    SNAP
    la      ra, fm_t6
fm_c6:
    jalr    ra, 0(ra)                   /* 6: indirect call (x1, x1) */
fm_t6:
    SNAP
    la      ra, fm_t7
fm_r7:
    jalr    zero, 0(ra)                 /* 7: return (x0, x1) */
fm_t7:
    SNAP
    la      ra, fm_t8
    .option push
    .option rvc
fm_r8:
    c.jr    ra                          /* 8: return (c.jr x1) */
    .option pop
fm_t8:
    SNAP
    la      t0, fm_t9
fm_r9:
    jalr    zero, 0(t0)                 /* 9: return (x0, x5) */
fm_t9:
    SNAP
    la      t0, fm_t10
    .option push
    .option rvc
fm_r10:
    c.jr    t0                          /* 10: return (c.jr x5) */
    .option pop
fm_t10:
    SNAP
    la      ra, fm_t11
fm_r11:
    jalr    t1, 0(ra)                   /* 11: return (x6, x1) */
fm_t11:
    SNAP
    la      t0, fm_t12
fm_s12:
    jalr    ra, 0(t0)                   /* 12: co-routine swap (x1, x5) */
fm_t12:
    SNAP
    la      ra, fm_t13
fm_s13:
    jalr    t0, 0(ra)                   /* 13: co-routine swap (x5, x1) */
fm_t13:
    SNAP
    la      t0, fm_t14
    .option push
    .option rvc
fm_s14:
    c.jalr  t0                          /* 14: swap (c.jalr x5) */
    .option pop
fm_t14:
    csrr    t5, CSR_MCYCLE
    SNAP
fm_j15:
    j       fm_t15                      /* 15: direct jump */
fm_t15:
    SNAP
    la      t1, fm_t16
fm_j16:
    jalr    zero, 0(t1)                 /* 16: indirect jump */
fm_t16:
    SNAP
    .option push
    .option rvc
fm_j17:
    c.j     fm_t17                      /* 17: direct jump (c.j) */
    .option pop
fm_t17:
    SNAP
fm_b18:
    beq     zero, zero, fm_t18          /* 18: taken branch */
fm_t18:
    SNAP
fm_b19:
    bne     zero, zero, fm_t18          /* 19: not-taken branch */
    SNAP
    li      a4, 0
    .option push
    .option rvc
fm_b20:
    c.beqz  a4, fm_t20                  /* 20: taken branch (c.beqz) */
    .option pop
fm_t20:
    SNAP
fm_j21:
    jal     t1, fm_t21                  /* 21: other direct jump (x6) */
fm_t21:
    SNAP
    la      t2, fm_t22
fm_j22:
    jalr    t1, 0(t2)                   /* 22: other indirect jump */
fm_t22:
    SNAP
fm_e23:
    ecall                               /* 23: exception, trap return */
    SNAP
    .option push
    .option rvc
fm_b24:
    c.bnez  a4, fm_t20                  /* 24: not-taken branch */
    .option pop
    SNAP
    csrr    t6, CSR_MCYCLE
fm_c25:
    jal     ra, fm_t25                  /* 25: direct call */
fm_t25:
    SNAP
    la      ra, fm_t26
fm_r26:
    ret                                 /* 26: return */
fm_t26:
    SNAP
fm_c27:
    jal     ra, fm_t27                  /* 27: direct call after a pop */
fm_t27:
    SNAP
    csrw    CSR_MCTRCTL, zero
    csrw    CSR_MTVEC, s1
    sub     a0, t6, t5
    EPILOGUE

    .align  2
fm_trap:
    csrr    t0, CSR_MEPC
    addi    t0, t0, 4
    csrw    CSR_MEPC, t0
    mret

/*
 * void ras_ext(unsigned long mctrctl, void *buf)
 * mctrctl enables U-mode only (M=0) with MTE=1, STE=1.  From U-mode:
 * ue_c1 calls ue_f, which takes an external trap to M-mode (ue_e1,
 * recorded without RASEMU) and returns (ue_r1) once the handler is back;
 * then ue_e2 traps to M-mode again and the handler returns to the
 * caller.  Snapshots: before (0), in the handler at ue_e1 (1) and at
 * ue_e2 (2).
 */
    .globl  ras_ext, ue_c1, ue_f
ras_ext:
    PROLOGUE
    la      t0, ue_trap
    csrrw   s1, CSR_MTVEC, t0
    la      t0, ue_user
    csrw    CSR_MEPC, t0
    li      t0, MSTATUS_MPP
    csrc    CSR_MSTATUS, t0             /* MPP = U */
    csrw    CSR_MCTRCTL, a0
    SNAP
    mret
ue_user:
ue_c1:
    jal     ra, ue_f
ue_e2:
    ecall
ue_f:
ue_e1:
    ecall
ue_r1:
    ret

    .align  2
ue_trap:
    SNAP
    csrr    t0, CSR_MEPC
    la      t1, ue_e2
    beq     t0, t1, 1f
    addi    t0, t0, 4
    csrw    CSR_MEPC, t0
    mret
1:  csrw    CSR_MCTRCTL, zero
    csrw    CSR_MTVEC, s1
    li      t0, MSTATUS_MPP
    csrs    CSR_MSTATUS, t0             /* MPP = M again */
    EPILOGUE
