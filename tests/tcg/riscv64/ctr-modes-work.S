/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scenario engine of test-ctr-modes.c: runs exactly one privilege mode
 * transition (a trap or a trap return) under a given CTR configuration,
 * with trap vectors that make everything after that transition
 * unrecordable.
 *
 * ctr_scen_enter() saves the C context, programs sctrstatus and mctrctl
 * and enters the source mode with mret (or mnret) at a ctr_act_* label.
 * The code there causes the transition under test; the trap lands in
 * one of the vectors below, a trap return at ctr_act_exit.  Every vector
 * first reads sctrstatus and sets FROZEN (unless ctr_vec_freeze is 0),
 * logs the trap in ctr_log[] and ends the scenario: the M vector
 * restores the C context and returns from ctr_scen_enter(), the HS and
 * VS vectors ecall to M first.  No code on these paths uses a stack or
 * calls a function, so the only control transfers are the ones the test
 * accounts for.
 */

#include "rt-csr.h"
#include "rt-ctx.h"

#define CSR_MNEPC           0x741
#define LOG_SHIFT           6       /* 64-byte struct ctr_log_entry */
#define LOG_MASK            7       /* 8 entries */

    .option norvc           /* fixed 4-byte forms, labels stay exact */
    .text

/*
 * void ctr_scen_enter(unsigned long pc, unsigned long mctrctl,
 *                     unsigned long sctrstatus, long use_mnret)
 * Called with mctrctl=0; mstatus (or mnstatus) selects the mode entered.
 */
    .globl  ctr_scen_enter, ctr_scen_mret, ctr_scen_mnret
ctr_scen_enter:
    la      t6, ctr_scen_ctx
    RT_SAVE_C_CONTEXT t6
    bnez    a3, 1f                  /* still unrecorded: mctrctl is 0 */
    csrw    CSR_MEPC, a0
    csrw    CSR_SCTRSTATUS, a2
    csrw    CSR_MCTRCTL, a1
    /*
     * The csrw ends its translation block: the nop puts the xRET in the
     * middle of the next one, so its recorded ctrsource is its own pc
     * only if the xRET writes its pc back (QEMU 10.2's mnret did not).
     */
    nop
ctr_scen_mret:
    mret
1:
    csrw    CSR_MNEPC, a0
    csrw    CSR_SCTRSTATUS, a2
    csrw    CSR_MCTRCTL, a1
    nop
ctr_scen_mnret:
    .4byte  0x70200073              /* mnret (Smrnmi) */

/* t0 = sctrstatus at entry; then FROZEN |= ctr_vec_freeze. */
.macro FREEZE
    csrr    t0, CSR_SCTRSTATUS
    la      t6, ctr_vec_freeze
    ld      t1, 0(t6)
    csrs    CSR_SCTRSTATUS, t1
.endm

/* Append { level, cause, epc, tval, t0, status } to ctr_log[]. */
.macro LOG level, cause, epc, tval, status
    la      t6, ctr_log_n
    ld      t1, 0(t6)
    addi    t2, t1, 1
    sd      t2, 0(t6)
    andi    t1, t1, LOG_MASK
    slli    t1, t1, LOG_SHIFT
    la      t6, ctr_log
    add     t6, t6, t1
    li      t2, \level
    sd      t2, 0(t6)
    csrr    t2, \cause
    sd      t2, 8(t6)
    csrr    t2, \epc
    sd      t2, 16(t6)
    csrr    t2, \tval
    sd      t2, 24(t6)
    sd      t0, 32(t6)
    csrr    t2, \status
    sd      t2, 40(t6)
.endm

    .globl  ctr_mvec, ctr_hsvec, ctr_vsvec
    .align  2
ctr_mvec:
    FREEZE
    LOG     0, CSR_MCAUSE, CSR_MEPC, CSR_MTVAL, CSR_MSTATUS
    la      t6, ctr_scen_ctx
    RT_RESTORE_C_CONTEXT t6
    ret                             /* from ctr_scen_enter() */

    .align  2
ctr_hsvec:
    FREEZE
    LOG     1, CSR_SCAUSE, CSR_SEPC, CSR_STVAL, CSR_SSTATUS
    ecall                           /* to ctr_mvec */
1:  j       1b

    .align  2
ctr_vsvec:                          /* the s* CSRs are the vs* CSRs here */
    FREEZE
    LOG     2, CSR_SCAUSE, CSR_SEPC, CSR_STVAL, CSR_SSTATUS
    ecall                           /* to ctr_mvec */
1:  j       1b

/* Code run in the source mode of a scenario. */
    .globl  ctr_act_ill, ctr_act_ebreak, ctr_act_cebreak, ctr_act_sret
    .globl  ctr_act_exit, ctr_act_wait, ctr_act_wait_end
    .align  2
ctr_act_ill:
    .2byte  0x0000                  /* c.unimp: illegal instruction */
    .2byte  0x0000
ctr_act_ebreak:
    ebreak
ctr_act_cebreak:
    .2byte  0x9002                  /* c.ebreak */
    .2byte  0x0000
ctr_act_sret:
    sret
ctr_act_exit:
    ecall
/* Wait ctr_wait_count iterations for an interrupt, then give up. */
ctr_act_wait:
    la      t6, ctr_wait_count
    ld      t0, 0(t6)
1:  addi    t0, t0, -1
    bnez    t0, 1b
ctr_act_wait_end:
    ecall

/*
 * void ctr_m_probe(unsigned long mctrctl, long unfreeze)
 * In M-mode: clear FROZEN if @unfreeze, run one direct jump (ctr_probe_jmp
 * -> ctr_probe_tgt) with mctrctl = @mctrctl, then set FROZEN and write
 * mctrctl = 0.  The jump is the only transfer while mctrctl != 0.
 */
    .globl  ctr_m_probe, ctr_probe_jmp, ctr_probe_tgt
ctr_m_probe:
    csrw    CSR_MCTRCTL, zero
    li      t0, 0x80000000          /* sctrstatus.FROZEN */
    beqz    a1, 1f
    csrc    CSR_SCTRSTATUS, t0
1:  csrw    CSR_MCTRCTL, a0
ctr_probe_jmp:
    j       ctr_probe_tgt
ctr_probe_tgt:
    csrs    CSR_SCTRSTATUS, t0
    csrw    CSR_MCTRCTL, zero
    ret

/*
 * void ctr_frozen_work(unsigned long mctrctl)
 * In M-mode, with mctrctl = @mctrctl: one direct jump, one taken branch,
 * one not-taken branch, one exception (ecall) and one trap return (mret),
 * handled by a local vector.  Called with mctrctl = 0.
 */
    .globl  ctr_frozen_work, ctr_fz_jmp, ctr_fz_br, ctr_fz_nbr, ctr_fz_ecall
    .globl  ctr_fz_after, ctr_fz_trap, ctr_fz_mret
ctr_frozen_work:
    la      t0, ctr_fz_trap
    csrrw   t1, CSR_MTVEC, t0
    csrw    CSR_MCTRCTL, a0
ctr_fz_jmp:
    j       ctr_fz_br
ctr_fz_br:
    beq     zero, zero, ctr_fz_nbr
ctr_fz_nbr:
    bne     zero, zero, ctr_fz_after
ctr_fz_ecall:
    ecall
ctr_fz_after:
    csrw    CSR_MCTRCTL, zero
    csrw    CSR_MTVEC, t1
    ret

    .align  2
ctr_fz_trap:
    csrr    t2, CSR_MEPC
    addi    t2, t2, 4
    csrw    CSR_MEPC, t2
ctr_fz_mret:
    mret

    .bss
    .align  3
ctr_scen_ctx:
    .space  16 * 8
