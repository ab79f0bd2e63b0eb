/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Workloads of test-ctr-virt.c: code run in VS- and VU-mode with known
 * control transfers, each transfer and its destination named by a
 * global label that the C side compares with ctrsource/ctrtarget.
 *
 * vt_launch() saves the C context, writes vsctrctl and mctrctl (or
 * sctrctl) from M-mode and enters a workload with mret.  M-mode is
 * never enabled for recording (mctrctl.M=0) and MTE is never set, so
 * neither that mret (from a disabled mode) nor the ecall that ends
 * every workload (a trap into a disabled mode) is recorded: the
 * entries hold exactly the transfers of the workload.  The ecall lands
 * in vt_mvec, which stores mcause, mepc, sctrstatus and the workload's
 * results s2..s5 in vt_info[] and returns from vt_launch().
 *
 * No workload uses the stack or calls a function of the runtime.  All
 * code is assembled without compressed instructions and without linker
 * relaxation ("lla" is always auipc + addi), so instruction counts are
 * exact (cycle counting under -icount shift=0).
 */

#include "rt-csr.h"
#include "rt-ctx.h"

#define SSTATUS_SIE_BIT     2           /* as a csrsi/csrci immediate */
#define SSTATUS_SPIE        0x20
#define SIP_SSIP_BIT        2           /* vsip.SSIP, as an immediate */
#define SCTRSTATUS_FROZEN   0x80000000

    .option norvc
    .option norelax
    .text

/*
 * long vt_launch(unsigned long entry, unsigned long mstatus_mode,
 *                unsigned long ctl, unsigned long vsctrctl,
 *                long via_sctrctl, unsigned long arg)
 * In M-mode with mctrctl = 0: enter @entry with mret in the mode the
 * MPP/MPV bits @mstatus_mode select, with vsctrctl = @vsctrctl and
 * mctrctl (sctrctl if @via_sctrctl) = @ctl; s2..s5 start at 0 and s6
 * holds @arg.  Returns the mcause of the trap that ends the workload.
 */
    .globl  vt_launch
vt_launch:
    la      t6, vt_ctx
    RT_SAVE_C_CONTEXT t6
    csrr    t0, CSR_MTVEC
    sd      t0, 128(t6)
    la      t0, vt_mvec
    csrw    CSR_MTVEC, t0
    csrw    CSR_MEPC, a0
    li      t0, MSTATUS_MPP | MSTATUS_MPV | MSTATUS_MPRV
    csrc    CSR_MSTATUS, t0
    csrs    CSR_MSTATUS, a1
    li      s2, 0
    li      s3, 0
    li      s4, 0
    li      s5, 0
    mv      s6, a5
    csrw    CSR_VSCTRCTL, a3
    /* M-mode is not enabled: this branch is never recorded. */
    bnez    a4, 1f
    csrw    CSR_MCTRCTL, a2
    mret
1:  csrw    CSR_SCTRCTL, a2
    mret

/* Every workload ends with an ecall (or a trap) to here. */
    .align  2
vt_mvec:
    la      t6, vt_info
    csrr    t0, CSR_MCAUSE
    sd      t0, 0(t6)
    csrr    t0, CSR_MEPC
    sd      t0, 8(t6)
    csrr    t0, CSR_SCTRSTATUS
    sd      t0, 16(t6)
    sd      s2, 24(t6)
    sd      s3, 32(t6)
    sd      s4, 40(t6)
    sd      s5, 48(t6)
    la      t6, vt_ctx
    ld      t0, 128(t6)
    csrw    CSR_MTVEC, t0
    RT_RESTORE_C_CONTEXT t6
    csrr    a0, CSR_MCAUSE
    ret

/*
 * vx_work: one transfer of every type of the spec's "Control Transfer
 * Type Definitions" table, run in VS- or VU-mode (vstvec = vx_exc,
 * breakpoints delegated to VS-mode, hideleg.VSSI and vsie.SSIE set):
 *
 *   vx_br      taken branch (5)           -> vx_br_t
 *   vx_nbr     not-taken branch (4)       -> vx_nbr_t (next instruction)
 *   vx_icall   indirect call (8)          jalr x1, x6
 *   vx_dcall   direct call (9)            jal x1
 *   vx_ijmp    indirect jump (10)         jalr x0, x6
 *   vx_djmp    direct jump (11)           jal x0
 *   vx_swap    co-routine swap (12)       jalr x1, x5
 *   vx_ret     function return (13)       jalr x0, x1
 *   vx_oijmp   other indirect jump (14)   jalr x7, x6
 *   vx_odjmp   other direct jump (15)     jal x7
 *   vx_ebreak  exception (1)              -> vx_exc (VS-mode)
 *   vx_exc_sret trap return (3)           -> vx_resume
 *   vx_resume  interrupt (2): the VS software interrupt vx_exc pended
 *              is taken before vx_resume executes -> vx_irq (VS-mode)
 *   vx_irq_sret trap return (3)           -> vx_resume
 *
 * and then the ecall at vx_resume ends the workload.
 */
    .globl  vx_work, vx_br, vx_br_t, vx_nbr, vx_nbr_t, vx_icall, vx_icall_t
    .globl  vx_dcall, vx_dcall_t, vx_ijmp, vx_ijmp_t, vx_djmp, vx_djmp_t
    .globl  vx_swap, vx_swap_t, vx_ret, vx_ret_t, vx_oijmp, vx_oijmp_t
    .globl  vx_odjmp, vx_odjmp_t, vx_ebreak, vx_resume
    .globl  vx_exc, vx_exc_sret, vx_irq, vx_irq_sret
    .align  2
vx_work:
vx_br:
    beq     zero, zero, vx_br_t
vx_br_t:
vx_nbr:
    bne     zero, zero, vx_resume
vx_nbr_t:
    lla     t1, vx_icall_t
vx_icall:
    jalr    ra, 0(t1)
vx_icall_t:
vx_dcall:
    jal     ra, vx_dcall_t
vx_dcall_t:
    lla     t1, vx_ijmp_t
vx_ijmp:
    jalr    zero, 0(t1)
vx_ijmp_t:
vx_djmp:
    jal     zero, vx_djmp_t
vx_djmp_t:
    lla     t0, vx_swap_t
vx_swap:
    jalr    ra, 0(t0)
vx_swap_t:
    lla     ra, vx_ret_t
vx_ret:
    jalr    zero, 0(ra)
vx_ret_t:
    lla     t1, vx_oijmp_t
vx_oijmp:
    jalr    t2, 0(t1)
vx_oijmp_t:
vx_odjmp:
    jal     t2, vx_odjmp_t
vx_odjmp_t:
vx_ebreak:
    ebreak
vx_resume:
    ecall

/*
 * The breakpoint handler (VS-mode): skip the ebreak, point vstvec at
 * vx_irq, set SPIE (so that the sret enables interrupts in VS-mode) and
 * pend the VS software interrupt (vsip.SSIP), which is taken right after
 * the sret, at vx_resume, in VS- and in VU-mode.
 */
    .align  2
vx_exc:
    csrr    t0, CSR_SEPC
    addi    t0, t0, 4
    csrw    CSR_SEPC, t0
    lla     t0, vx_irq
    csrw    CSR_STVEC, t0
    li      t0, SSTATUS_SPIE
    csrs    CSR_SSTATUS, t0
    csrsi   CSR_SIP, SIP_SSIP_BIT
vx_exc_sret:
    sret

/* The interrupt handler (VS-mode): clear vsip.SSIP and return. */
    .align  2
vx_irq:
    csrci   CSR_SIP, SIP_SSIP_BIT
vx_irq_sret:
    sret

/*
 * tr_work: transitions between VS and VU (vstvec = tr_vec, ecalls from
 * U delegated to VS-mode).  Entered in VS-mode:
 *
 *   tr_j1     direct jump in VS
 *   tr_sret   trap return VS -> VU (tr_user)
 *   tr_j2     direct jump in VU
 *   tr_ecall  exception VU -> VS (tr_vec)
 *   tr_j3     direct jump in VS
 *
 * then an ecall to M-mode.  Instruction counts for cycle counting: 8
 * from tr_t1 to tr_sret included (s3 - s2 = 6 by mcycle), 3 from
 * tr_user to tr_j2, 2 from tr_ut to tr_ecall, 3 from tr_vec to tr_j3.
 */
    .globl  tr_work, tr_j1, tr_t1, tr_sret, tr_user, tr_j2, tr_ut
    .globl  tr_ecall, tr_vec, tr_j3, tr_vt
    .align  2
tr_work:
tr_j1:
    j       tr_t1
tr_t1:
    csrr    s2, CSR_CYCLE           /* 1 */
    lla     t0, tr_user             /* 2, 3 */
    csrw    CSR_SEPC, t0            /* 4 */
    li      t0, SSTATUS_SPP         /* 5 */
    csrc    CSR_SSTATUS, t0         /* 6: SPP = U */
    csrr    s3, CSR_CYCLE           /* 7 */
tr_sret:
    sret                            /* 8 */
tr_user:
    nop                             /* 1 */
    nop                             /* 2 */
tr_j2:
    j       tr_ut                   /* 3 */
tr_ut:
    nop                             /* 1 */
tr_ecall:
    ecall                           /* 2 */

    .align  2
tr_vec:
    nop                             /* 1 */
    nop                             /* 2 */
tr_j3:
    j       tr_vt                   /* 3 */
tr_vt:
    ecall

/*
 * cy_work: cycle counting in the mode it runs in (VS or VU), with
 * TKBRINH=1 so that the loop's branches are not recorded:
 *
 *   cy_j1  first record after the vsctrctl write (CCV=0)
 *   cy_j2  8 instructions after cy_j1 (s3 - s2 = 6 by mcycle)
 *   cy_j3  2 * s6 + 2 instructions after cy_j2 (loop of s6 iterations)
 */
    .globl  cy_work, cy_j1, cy_t1, cy_j2, cy_t2, cy_j3, cy_t3
    .align  2
cy_work:
cy_j1:
    j       cy_t1
cy_t1:
    csrr    s2, CSR_CYCLE           /* 1 */
    nop                             /* 2 */
    nop                             /* 3 */
    nop                             /* 4 */
    nop                             /* 5 */
    nop                             /* 6 */
    csrr    s3, CSR_CYCLE           /* 7 */
cy_j2:
    j       cy_t2                   /* 8 */
cy_t2:
    mv      t0, s6                  /* 1 */
1:  addi    t0, t0, -1              /* 2 per iteration */
    bnez    t0, 1b
cy_j3:
    j       cy_t3                   /* 2 * s6 + 2 */
cy_t3:
    ecall

/*
 * rs_work: RAS emulation, in VS or VU.  A taken branch and a direct
 * jump (not calls or returns), a co-routine swap (jalr x1, x5), a
 * direct call (rs_c1) whose callee makes an indirect call (rs_c2, jalr
 * x5, x6); both return (rs_r2: jalr x0, x5; rs_r1: jalr x0, x1); then a
 * direct call (rs_c3) whose callee ends the workload.
 */
    .globl  rs_work, rs_br, rs_br_t, rs_j, rs_j_t, rs_sw, rs_sw_t
    .globl  rs_c1, rs_c1_r, rs_c3, rs_f1, rs_c2, rs_c2_r, rs_r1
    .globl  rs_f2, rs_r2, rs_f3
    .align  2
rs_work:
rs_br:
    beq     zero, zero, rs_br_t
rs_br_t:
rs_j:
    j       rs_j_t
rs_j_t:
    lla     t0, rs_sw_t
rs_sw:
    jalr    ra, 0(t0)
rs_sw_t:
rs_c1:
    jal     ra, rs_f1
rs_c1_r:
rs_c3:
    jal     ra, rs_f3
rs_f1:
    lla     t1, rs_f2
rs_c2:
    jalr    t0, 0(t1)
rs_c2_r:
rs_r1:
    jalr    zero, 0(ra)
rs_f2:
rs_r2:
    jalr    zero, 0(t0)
rs_f3:
    ecall

/*
 * lf_work: a virtual LCOFI (hvip.LCOFIP with hvien bit 13, vsie bit 13)
 * is pending; VS-mode enters with vsstatus.SIE=0, records lf_j1 and
 * sets SIE: the interrupt is taken at lf_after, to lf_vec.
 *
 * lf_vu_work: the same but VS-mode returns to VU-mode (lf_sret), where
 * the interrupt is taken at once, at lf_user.
 *
 * lf_vec (VS-mode): s2 = scause, s3 = sepc, s4 = sctrstatus at entry;
 * a direct jump (lf_fj, not recorded while FROZEN); FROZEN cleared;
 * a direct jump (lf_j2, recorded again); s5 = sctrstatus; ecall to M.
 * If no interrupt comes, lf_after / lf_user ecall to M-mode.
 */
    .globl  lf_work, lf_j1, lf_t1, lf_after
    .globl  lf_vu_work, lf_vj1, lf_vt1, lf_sret, lf_user
    .globl  lf_vec, lf_fj, lf_ft, lf_j2, lf_t2
    .align  2
lf_work:
lf_j1:
    j       lf_t1
lf_t1:
    csrsi   CSR_SSTATUS, SSTATUS_SIE_BIT
lf_after:
    ecall

    .align  2
lf_vu_work:
lf_vj1:
    j       lf_vt1
lf_vt1:
    lla     t0, lf_user
    csrw    CSR_SEPC, t0
    li      t0, SSTATUS_SPP
    csrc    CSR_SSTATUS, t0
lf_sret:
    sret
lf_user:
    ecall

    .align  2
lf_vec:
    csrr    s2, CSR_SCAUSE
    csrr    s3, CSR_SEPC
    csrr    s4, CSR_SCTRSTATUS
lf_fj:
    j       lf_ft
lf_ft:
    li      t0, SCTRSTATUS_FROZEN
    csrc    CSR_SCTRSTATUS, t0
lf_j2:
    j       lf_t2
lf_t2:
    csrr    s5, CSR_SCTRSTATUS
    ecall

    .bss
    .align  3
vt_ctx:
    .space  17 * 8
    .globl  vt_info
vt_info:
    .space  8 * 8
