/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Workload of test-ctr-paths.c: an M-mode launcher that enters code in a
 * lower mode by mret and gets control back through a private mtvec, an
 * S/VS-mode trap vector, and the code bodies run in the lower modes,
 * with a global label on every transfer and destination so the test can
 * compute the exact CTR records.
 *
 * The bodies run in S, VS, U, VU and, with mstatus.SXL/UXL or
 * vsstatus.UXL = 1, in 32-bit modes, so they use only RV32I
 * instructions (lla is auipc + addi); 4-byte forms everywhere (norvc),
 * and an all-zero (illegal) word after every transfer, so a transfer
 * that falls through traps instead of landing on its destination.
 */

#include "rt-csr.h"

#define MSTATUS_MPP_ALL 0x1800
#define MSTATUS_MPRV_B  0x20000
#define MSTATUS_MPV_B   (1 << 39)

/* paths_info[] slots (8 bytes each) */
#define PI_SP           0
#define PI_MSTATUS      8
#define PI_MTVEC        16
#define PI_MCAUSE       24
#define PI_MEPC         32
#define PI_MTVAL        40
#define PI_MTVAL2       48
#define PI_SCTRSTATUS   56

    .option norvc
    .option norelax

    .text
/*
 * long paths_launch(void *entry, unsigned long mstatus_set,
 *                   unsigned long mctrctl)
 * Clear mstatus.MPP/MPV/MPRV, set the bits of @mstatus_set (MPP, MPV,
 * SDT, ...), write mctrctl = @mctrctl and mret to @entry.  The first trap
 * to M-mode comes back through paths_mvec, which clears mctrctl before
 * anything else, saves mcause, mepc, mtval, mtval2 and sctrstatus in
 * paths_info, restores sp, mstatus, mtvec and the callee-saved registers
 * and returns mcause to the caller of paths_launch.
 */
    .balign 4
    .globl  paths_launch, paths_launch_mret
paths_launch:
    addi    sp, sp, -112
    sd      ra, 0(sp)
    sd      s0, 8(sp)
    sd      s1, 16(sp)
    sd      s2, 24(sp)
    sd      s3, 32(sp)
    sd      s4, 40(sp)
    sd      s5, 48(sp)
    sd      s6, 56(sp)
    sd      s7, 64(sp)
    sd      s8, 72(sp)
    sd      s9, 80(sp)
    sd      s10, 88(sp)
    sd      s11, 96(sp)
    sd      gp, 104(sp)
    lla     t0, paths_info
    sd      sp, PI_SP(t0)
    csrr    t1, CSR_MSTATUS
    sd      t1, PI_MSTATUS(t0)
    lla     t1, paths_mvec
    csrrw   t1, CSR_MTVEC, t1
    sd      t1, PI_MTVEC(t0)
    csrw    CSR_MEPC, a0
    li      t1, MSTATUS_MPP_ALL | MSTATUS_MPRV_B | MSTATUS_MPV_B
    csrc    CSR_MSTATUS, t1
    csrs    CSR_MSTATUS, a1
    csrw    CSR_MCTRCTL, a2
paths_launch_mret:
    mret

    .balign 4
    .globl  paths_mvec
paths_mvec:
    csrw    CSR_MCTRCTL, zero
    lla     t0, paths_info
    csrr    t1, CSR_MCAUSE
    sd      t1, PI_MCAUSE(t0)
    csrr    t1, CSR_MEPC
    sd      t1, PI_MEPC(t0)
    csrr    t1, CSR_MTVAL
    sd      t1, PI_MTVAL(t0)
    csrr    t1, CSR_MTVAL2
    sd      t1, PI_MTVAL2(t0)
    csrr    t1, CSR_SCTRSTATUS
    sd      t1, PI_SCTRSTATUS(t0)
    ld      sp, PI_SP(t0)
    ld      t1, PI_MSTATUS(t0)
    csrw    CSR_MSTATUS, t1
    ld      t1, PI_MTVEC(t0)
    csrw    CSR_MTVEC, t1
    ld      a0, PI_MCAUSE(t0)
    ld      ra, 0(sp)
    ld      s0, 8(sp)
    ld      s1, 16(sp)
    ld      s2, 24(sp)
    ld      s3, 32(sp)
    ld      s4, 40(sp)
    ld      s5, 48(sp)
    ld      s6, 56(sp)
    ld      s7, 64(sp)
    ld      s8, 72(sp)
    ld      s9, 80(sp)
    ld      s10, 88(sp)
    ld      s11, 96(sp)
    ld      gp, 104(sp)
    addi    sp, sp, 112
    ret

/*
 * Trap vector for traps delegated to HS-mode (stvec) or VS-mode
 * (vstvec): saves scause and sepc in paths_sinfo[0..1] and leaves to
 * M-mode with an ecall.  No transfer before the ecall.  Runs in 64-bit
 * S-mode only.
 */
    .balign 4
    .globl  paths_svec, paths_svec_ecall
paths_svec:
    lla     t1, paths_sinfo
    csrr    t0, CSR_SCAUSE
    sd      t0, 0(t1)
    csrr    t0, CSR_SEPC
    sd      t0, 8(t1)
paths_svec_ecall:
    ecall
    .4byte  0

/*
 * Three transfers and an ecall: an indirect jump (jalr x0, t1), a direct
 * jump (jal x0) and a taken branch (beq).  RV32I only.
 */
    .balign 4
    .globl  paths_xfer_body, px_ijmp, px_ijmp_tgt, px_jmp, px_jmp_tgt
    .globl  px_br, px_br_tgt, px_ecall
paths_xfer_body:
    lla     t1, px_ijmp_tgt
px_ijmp:
    jalr    x0, 0(t1)
    .4byte  0
px_ijmp_tgt:
px_jmp:
    jal     x0, px_jmp_tgt
    .4byte  0
px_jmp_tgt:
px_br:
    beq     zero, zero, px_br_tgt
    .4byte  0
px_br_tgt:
px_ecall:
    ecall
    .4byte  0

/*
 * A direct jump, then the instruction a debug trigger is set on (a nop
 * that the trigger keeps from executing), then an ecall.
 */
    .balign 4
    .globl  paths_trig_body, pt_jmp, pt_jmp_tgt, pt_trig
paths_trig_body:
pt_jmp:
    jal     x0, pt_jmp_tgt
    .4byte  0
pt_jmp_tgt:
pt_trig:
    addi    x0, x0, 0
    ecall
    .4byte  0

/* A direct jump, then ebreak. */
    .balign 4
    .globl  paths_ebreak_body, pe_jmp, pe_jmp_tgt, pe_ebreak
paths_ebreak_body:
pe_jmp:
    jal     x0, pe_jmp_tgt
    .4byte  0
pe_jmp_tgt:
pe_ebreak:
    ebreak
    ecall
    .4byte  0

/* A direct jump, then ecall. */
    .balign 4
    .globl  paths_ecall_body, pc_jmp, pc_jmp_tgt, pc_ecall
paths_ecall_body:
pc_jmp:
    jal     x0, pc_jmp_tgt
    .4byte  0
pc_jmp_tgt:
pc_ecall:
    ecall
    .4byte  0

/* A direct jump, then an illegal instruction (all zeros). */
    .balign 4
    .globl  paths_ill_body, pi_jmp, pi_jmp_tgt, pi_ill
paths_ill_body:
pi_jmp:
    jal     x0, pi_jmp_tgt
    .4byte  0
pi_jmp_tgt:
pi_ill:
    .4byte  0
    ecall
    .4byte  0

/*
 * For S-mode with mstatus.SXL=1 (XLEN 32): write -2 (0xfffffffe in a
 * 32-bit register) to ctrsource and ctrtarget of logical entry 0.
 * RV32I only.
 */
    .balign 4
    .globl  paths_s32_write
paths_s32_write:
    li      t0, 0x200
    csrw    CSR_SISELECT, t0
    li      t0, -2
    csrw    CSR_SIREG, t0
    csrw    CSR_SIREG2, t0
    ecall
    .4byte  0

    .bss
    .balign 8
    .globl  paths_info, paths_sinfo
paths_info:
    .space  8 * 8
paths_sinfo:
    .space  2 * 8
