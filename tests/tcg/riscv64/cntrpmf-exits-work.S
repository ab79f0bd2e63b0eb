/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Measured windows of test-cntrpmf-exits.c (Smcntrpmf minstret on every
 * path that ends a translated block early).
 *
 * xr_run() enters a window with mret in the mode the run names, with
 * minstret read in M-mode just before; the window runs until its first
 * synchronous exception (or an interrupt other than the M timer), which
 * lands in xr_mvec in M-mode: it reads minstret again, records the trap
 * and returns from xr_run().  M timer interrupts are counted, re-armed
 * and returned from.  The test runs windows with minstretcfg.MINH = 1,
 * so nothing M-mode executes counts: the minstret difference is exactly
 * the number of the window's instructions that retire.
 *
 * Each window says which of its instructions retire; the hand count (an
 * XW_*_N constant of test-cntrpmf-exits.h) is checked against the labels
 * by the COUNT macro when this file is assembled.  Instructions are 4
 * bytes unless a window says otherwise.
 */

#include "rt-csr.h"
#include "rt-ctx.h"
#include "test-cntrpmf-exits.h"

    .option norvc
    .option norelax             /* lla stays auipc + addi */

/* n instructions that retire in any mode; they change t0 only. */
.macro WORK n
    .rept   \n
    addi    t0, t0, 1
    .endr
.endm

/* Check a hand count: \n 4-byte instructions from \a up to \b. */
.macro COUNT a, b, n
    .if     (\b - \a) != 4 * (\n)
    .error  "hand count does not match the window"
    .endif
.endm

/* mstatus bits cleared before entering a window: MPP, MPRV, MPELP, SPELP */
#define XR_MSTATUS_CLEAR    ((3 << 11) | (1 << 17) | (1 << 41) | (1 << 23))

/* Save area of xr_run: ra, sp, gp, tp, s0-s11, mtvec, mscratch. */
#define CTX_MTVEC           (16 * 8)
#define CTX_MSCRATCH        (17 * 8)

    .text

/* void xr_run(struct xr_run *r) */
    .globl  xr_run
xr_run:
    lla     t6, xr_ctx
    RT_SAVE_C_CONTEXT t6
    csrr    t0, CSR_MTVEC
    sd      t0, CTX_MTVEC(t6)
    csrr    t0, CSR_MSCRATCH
    sd      t0, CTX_MSCRATCH(t6)
    lla     t0, xr_mvec
    csrw    CSR_MTVEC, t0
    csrw    CSR_MSCRATCH, a0        /* xr_mvec finds the run there */
    ld      t0, XR_PC(a0)
    csrw    CSR_MEPC, t0
    li      t0, XR_MSTATUS_CLEAR
    csrc    CSR_MSTATUS, t0
    ld      t0, XR_MODE(a0)
    slli    t0, t0, 11
    csrs    CSR_MSTATUS, t0
    mv      t5, a0
    ld      a0, XR_A0(t5)
    ld      a1, XR_A1(t5)
    ld      a2, XR_A2(t5)
    ld      ra, XR_RA(t5)
    li      t0, 0
    csrr    t6, CSR_MINSTRET
    sd      t6, XR_I0(t5)
    mret

/* M-mode trap vector while a window runs (mscratch: the struct xr_run). */
    .align  2
xr_mvec:
    csrrw   t6, CSR_MSCRATCH, t6
    sd      t5, XR_SAVE_T5(t6)
    csrr    t5, CSR_MCAUSE
    bgez    t5, 2f                  /* an exception ends the run */
    slli    t5, t5, 1
    addi    t5, t5, -2 * 7          /* machine timer interrupt? */
    bnez    t5, 2f                  /* any other interrupt ends the run */
    sd      t4, XR_SAVE_T4(t6)
    li      t5, VIRT_MTIME
    ld      t5, 0(t5)
    ld      t4, XR_IRQ_DELTA(t6)
    add     t5, t5, t4
    li      t4, VIRT_MTIMECMP
    sd      t5, 0(t4)
    ld      t4, XR_NIRQ(t6)
    addi    t4, t4, 1
    sd      t4, XR_NIRQ(t6)
    ld      t4, XR_SAVE_T4(t6)
    ld      t5, XR_SAVE_T5(t6)
    csrrw   t6, CSR_MSCRATCH, t6
    mret
2:
    csrr    t5, CSR_MINSTRET
    sd      t5, XR_I1(t6)
    csrr    t5, CSR_MCAUSE
    sd      t5, XR_CAUSE(t6)
    csrr    t5, CSR_MEPC
    sd      t5, XR_EPC(t6)
    csrr    t5, CSR_MTVAL
    sd      t5, XR_TVAL(t6)
    sd      a0, XR_OUT_A0(t6)
    sd      a1, XR_OUT_A1(t6)
    sd      ra, XR_OUT_RA(t6)
    lla     t6, xr_ctx
    ld      t0, CTX_MTVEC(t6)
    csrw    CSR_MTVEC, t0
    ld      t0, CTX_MSCRATCH(t6)
    csrw    CSR_MSCRATCH, t0
    RT_RESTORE_C_CONTEXT t6
    ret                             /* from xr_run() */

/*
 * void xr_m_wminstret(uint64_t v, uint64_t out[4])
 * In M-mode: write minstret, read it back, 3 instructions later, and
 * swap it with csrrw, then read it again.
 */
    .globl  xr_m_wminstret
xr_m_wminstret:
    csrw    CSR_MINSTRET, a0
    csrr    a2, CSR_MINSTRET
    WORK    3
    csrr    a3, CSR_MINSTRET
    csrrw   a4, CSR_MINSTRET, a0
    csrr    a5, CSR_MINSTRET
    sd      a2, 0(a1)
    sd      a3, 8(a1)
    sd      a4, 16(a1)
    sd      a5, 24(a1)
    ret

/*
 * 1. wfi.  S-mode windows with mstatus.TW = 0 and an S software
 * interrupt pending, enabled in sie, globally masked (sstatus.SIE = 0):
 * wfi resumes at once and retires.
 */
    .globl  xw_wfi_first, xw_wfi_first_end
xw_wfi_first:                       /* retire: wfi, 5 addi = 6 */
    wfi                             /* first instruction of its block */
    WORK    5
xw_wfi_first_end:
    ecall                           /* the end: does not retire */
    COUNT   xw_wfi_first, xw_wfi_first_end, XW_WFI_FIRST_N

    .globl  xw_wfi_mid, xw_wfi_mid_end
xw_wfi_mid:                         /* retire: 3 addi, wfi, 5 addi = 9 */
    WORK    3
    wfi
    WORK    5
xw_wfi_mid_end:
    ecall
    COUNT   xw_wfi_mid, xw_wfi_mid_end, XW_WFI_MID_N

    /* U-mode, no interrupt enabled: the wfi raises illegal-instruction */
    .globl  xw_wfi_u, xw_wfi_u_trap
xw_wfi_u:                           /* retire: 4 addi = 4 */
    WORK    4
xw_wfi_u_trap:
    wfi                             /* does not retire, nor what follows */
    WORK    5
    ecall
    COUNT   xw_wfi_u, xw_wfi_u_trap, XW_WFI_U_N

/*
 * TRAPWIN name, n, insn: n addi (they retire), then @insn, which raises
 * an exception (it does not retire), then instructions that are never
 * reached.
 */
.macro TRAPWIN name, n, insn:vararg
    .globl  \name, \name\()_trap
\name:
    WORK    \n
\name\()_trap:
    \insn
    WORK    6
    ecall
    COUNT   \name, \name\()_trap, \n
.endm

/* 5. Exceptions from the middle of a block. */
    TRAPWIN xw_csr_u, XW_EXC_BEFORE, csrr t1, CSR_SSCRATCH  /* U: illegal */
    TRAPWIN xw_csr_s, XW_EXC_BEFORE, csrr t1, CSR_MSCRATCH  /* S: illegal */
    TRAPWIN xw_load, XW_EXC_BEFORE, ld t1, 0(a0)    /* PMP: access fault */
    TRAPWIN xw_store, XW_EXC_BEFORE, sd t1, 0(a0)   /* PMP: access fault */
    TRAPWIN xw_ecall, XW_EXC_BEFORE, ecall
    TRAPWIN xw_ebreak, XW_EXC_BEFORE, ebreak
    /* A reserved major opcode (inst[6:0] = 1101011): illegal. */
    TRAPWIN xw_ill, XW_EXC_BEFORE, .4byte 0x0000006b

/* 8. Debug triggers: an execute trigger on the addi, a store trigger. */
    TRAPWIN xw_trig_x, XW_TRIG_N, addi t0, t0, 1
    TRAPWIN xw_trig_st, XW_TRIG_N, sd t1, 0(a0)

/*
 * 6. MMIO in the middle of a block, U-mode: a0 = the UART, a1 = the
 * ACLINT mtime register.
 */
    .globl  xw_mmio, xw_mmio_end
xw_mmio:                            /* retire: 5+1+3+1+3+1+2 = 16 */
    WORK    5
    lbu     t1, 5(a0)               /* UART LSR */
    WORK    3
    sb      t1, 7(a0)               /* UART SCR */
    WORK    3
    ld      t2, 0(a1)               /* mtime */
    WORK    2
xw_mmio_end:
    ecall
    COUNT   xw_mmio, xw_mmio_end, XW_MMIO_N

    .globl  xw_mmio_first, xw_mmio_first_end
xw_mmio_first:                      /* retire: lbu, 5 addi = 6 */
    lbu     t1, 5(a0)               /* first instruction of its block */
    WORK    5
xw_mmio_first_end:
    ecall
    COUNT   xw_mmio_first, xw_mmio_first_end, XW_MMIO_FIRST_N

/*
 * 7. Instructions that end a block: 3 addi, the instruction, 4 addi
 * (8 retire), then the ending ecall.
 */
.macro BLKWIN name, insn:vararg
    .globl  \name, \name\()_end
\name:
    WORK    3
    \insn
    WORK    4
\name\()_end:
    ecall
    COUNT   \name, \name\()_end, XW_BLKEND_N
.endm

    BLKWIN  xw_sscratch, csrw CSR_SSCRATCH, t1      /* S */
    BLKWIN  xw_sstatus, csrs CSR_SSTATUS, a1        /* S: a1 = SUM */
    BLKWIN  xw_sfence, sfence.vma                   /* S */
    BLKWIN  xw_fencei, fence.i                      /* U */

/*
 * 10. A loop an M timer interrupt interrupts (S-mode): a0 = iterations,
 * a1 = 0; 3 instructions per iteration retire, then the ending ecall.
 */
    .globl  xw_loop, xw_loop_end
xw_loop:
1:  addi    a1, a1, 1
    addi    a0, a0, -1
    bnez    a0, 1b
xw_loop_end:
    ecall
    /* (no COUNT: gas cannot size the branch before the end of the file) */

/*
 * 2. Zicfilp, U-mode with senvcfg.LPE = 1: an indirect jump through t1
 * (x6, not x1/x5/x7) expects a landing pad at its target.  The jumps:
 * 3 addi, la (auipc, addi), lui t2 (x7 = the label to expect), jalr:
 * 7 instructions that retire.
 */
.macro LPJUMP name, target, label
\name:
    WORK    3
    lla     t1, \target
    lui     t2, \label
    jalr    zero, 0(t1)
\name\()_j:
    COUNT   \name, \name\()_j, XW_LP_JUMP_N
.endm

    /* Label mismatch: the lpad and what follows do not retire. */
    .globl  xw_lp_bad, xw_lp_bad_pad
    LPJUMP  xw_lp_bad, xw_lp_bad_pad, XW_LP_WRONG
    WORK    2                       /* not executed */
xw_lp_bad_pad:
    .4byte  INSN_LPAD(XW_LP_LABEL)  /* software-check exception */
    WORK    6
    ecall

    /* Not a landing pad at the target. */
    .globl  xw_lp_none, xw_lp_none_tgt
    LPJUMP  xw_lp_none, xw_lp_none_tgt, XW_LP_LABEL
    WORK    2                       /* not executed */
xw_lp_none_tgt:
    addi    t0, t0, 1               /* software-check exception */
    WORK    5
    ecall

    /* Matching label: 7, lpad, 6 addi = 14 retire. */
    .globl  xw_lp_good, xw_lp_good_end
    LPJUMP  xw_lp_good, 1f, XW_LP_LABEL
1:  .4byte  INSN_LPAD(XW_LP_LABEL)
    WORK    6
xw_lp_good_end:
    ecall
    COUNT   xw_lp_good, xw_lp_good_end, XW_LP_GOOD_N

    /* lpad 0 accepts any label in x7: 14 retire. */
    .globl  xw_lp_zero, xw_lp_zero_end
    LPJUMP  xw_lp_zero, 1f, XW_LP_WRONG
1:  .4byte  INSN_LPAD(0)
    WORK    6
xw_lp_zero_end:
    ecall
    COUNT   xw_lp_zero, xw_lp_zero_end, XW_LP_GOOD_N

    /*
     * A software-guarded jump through x7 expects no landing pad:
     * 3 addi, la t2 (2), jalr, 6 addi = 12 retire.
     */
    .globl  xw_lp_x7, xw_lp_x7_end
xw_lp_x7:
    WORK    3
    lla     t2, 1f
    jalr    zero, 0(t2)
1:  WORK    6
xw_lp_x7_end:
    ecall
    COUNT   xw_lp_x7, xw_lp_x7_end, XW_LP_X7_N

/*
 * 3. Zicfiss, U-mode with Sv39, senvcfg.SSE = 1 and ssp in a shadow stack
 * page.  ra holds what the test chose.
 */
    .globl  xw_ss_bad, xw_ss_bad_trap
xw_ss_bad:                          /* retire: 4 addi = 4 */
    WORK    4
xw_ss_bad_trap:
    .4byte  INSN_SSPOPCHK_RA        /* *ssp != ra: software check */
    WORK    5
    ecall
    COUNT   xw_ss_bad, xw_ss_bad_trap, XW_SS_BAD_N

    .globl  xw_ss_good, xw_ss_good_end
xw_ss_good:                         /* retire: 2, sspush, 2, sspopchk, 5 */
    WORK    2
    .4byte  INSN_SSPUSH_RA
    WORK    2
    .4byte  INSN_SSPOPCHK_RA        /* pops what sspush pushed */
    WORK    5
xw_ss_good_end:
    ecall
    COUNT   xw_ss_good, xw_ss_good_end, XW_SS_GOOD_N

/*
 * 4. Zcmt, U-mode, jvt = xr_jvt.  cm.jalt and cm.jt are 2 bytes.
 * When the table entry cannot be fetched, nothing after the 5 (or 3)
 * addi retires; otherwise the table jump retires and the target runs.
 */
    .globl  xw_jalt, xw_jalt_insn, xw_jalt_end
xw_jalt:
    WORK    5
xw_jalt_insn:
    .2byte  INSN_CM_JALT(XW_JALT_INDEX)
    WORK    6                       /* never executed */
    ecall
    COUNT   xw_jalt, xw_jalt_insn, XW_JALT_BAD_N
    .align  2
xw_jalt_tgt:                        /* retire: 5 addi, cm.jalt, 4 addi */
    WORK    4
xw_jalt_end:
    ecall
    COUNT   xw_jalt_tgt, xw_jalt_end, XW_JALT_GOOD_N - XW_JALT_BAD_N - 1

    .globl  xw_jt, xw_jt_insn, xw_jt_end
xw_jt:
    WORK    3
xw_jt_insn:
    .2byte  INSN_CM_JT(XW_JT_INDEX)
    WORK    6                       /* never executed */
    ecall
    COUNT   xw_jt, xw_jt_insn, XW_JT_BAD_N
    .align  2
xw_jt_tgt:                          /* retire: 3 addi, cm.jt, 2 addi */
    WORK    2
xw_jt_end:
    ecall
    COUNT   xw_jt_tgt, xw_jt_end, XW_JT_GOOD_N - XW_JT_BAD_N - 1

/*
 * 9. Page crossing, U-mode.  Each window ends its executable page (the
 * page after it is not executable for U-mode: PMP).  The first runs 8
 * addi to the end of the page; the second 6 addi and a 2-byte c.addi,
 * then a 4-byte addi straddles the boundary.
 */
    .section .text.xr_pages, "ax"
    .balign 4096
    .globl  xw_xpage1_e, xw_xpage1, xw_xpage1_n
xw_xpage1_e:
    .skip   4096 - 4 * XW_XPAGE1_N
xw_xpage1:                          /* retire: 8 addi */
    WORK    XW_XPAGE1_N
xw_xpage1_n:                        /* the next page: fetch fault */
    WORK    4
    ecall
    .if     xw_xpage1_n - xw_xpage1_e != 4096
    .error  "xw_xpage1 does not end its page"
    .endif
    .balign 4096
    .globl  xw_xpage2_e, xw_xpage2, xw_xpage2_x
xw_xpage2_e:
    .skip   4096 - 4 * 6 - 2 - 2
xw_xpage2:                          /* retire: 6 addi, c.addi = 7 */
    WORK    6
    .option push
    .option rvc
    c.addi  t0, 1
    .option pop
xw_xpage2_x:                        /* bytes 4094..4097 of the page */
    addi    t0, t0, 1
    WORK    3
    ecall
    .if     xw_xpage2_x - xw_xpage2_e != 4094
    .error  "xw_xpage2_x does not straddle the page boundary"
    .endif
    .balign 4096

    .data
    .align  3
xr_ctx:
    .space  18 * 8

/* The Zcmt jump table, alone in its page (PMP can take X away). */
    .balign 4096
    .globl  xr_jvt
xr_jvt:
    .if     XW_JT_INDEX != 1 || XW_JALT_INDEX != 32
    .error  "the table below has cm.jt 1 and cm.jalt 32"
    .endif
    .dword  0
    .dword  xw_jt_tgt               /* 1 */
    .fill   30, 8, 0                /* 2..31 */
    .dword  xw_jalt_tgt             /* 32 */
    .balign 4096
