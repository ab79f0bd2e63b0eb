/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Workloads of test-ctr-cycles.c: M-mode instruction sequences with an
 * exactly known number of instructions between recorded transfers.
 *
 * Every routine enables CTR itself (csrw mctrctl, a0), so the write that
 * resets the cycle counter is at a known place, and disables it again
 * before it returns.  The transfers that are meant to be recorded have
 * global labels (the C side checks ctrsource/ctrtarget against them).
 *
 * Counting rule (docs/system/riscv/ctr.rst, "Cycle counting", under
 * -icount shift=0): the count of a record is the number of instructions
 * executed while CTR was active after the previous record (or after the
 * xctrctl write or SCTRCLR that reset the counter) up to and including
 * the recorded transfer.
 *
 * Where a count is checked against mcycle, the region is
 *     <reset point or previous record>
 *     csrr t5, mcycle
 *     ... B instructions ...
 *     csrr t6, mcycle
 *     <recorded transfer>
 * so the count is B + 3 and mcycle shows t6 - t5 = B + 1: the routines
 * return t6 - t5 and the C side checks that it plus 2 is the count it
 * expects, independently of CTR.
 *
 * All code is assembled without compressed instructions and without
 * linker relaxation, so "la" is always two instructions.
 */

#include "rt-csr.h"

    .option norvc
    .option norelax
    .text

/*
 * unsigned long cyc_loop(unsigned long mctrctl, unsigned long n,
 *                        unsigned long p)
 * Record cl_j1 (count 1, first after the mctrctl write), run a loop of
 * n iterations of two instructions plus p (0 or 1) extra instructions,
 * record cl_j2: its count is 6 + 2 * n + p.  The loop's branches must
 * not be recorded (TKBRINH=1, NTBREN=0).
 */
    .globl  cyc_loop, cl_j1, cl_t1, cl_j2, cl_t2
    .globl  cl_loop, cl_bnez, cl_beqz, cl_csrr
cyc_loop:
    csrw    CSR_MCTRCTL, a0
cl_j1:
    j       cl_t1
cl_t1:
    csrr    t5, CSR_MCYCLE          /* 1 */
    mv      t0, a1                  /* 2 */
    beqz    t0, 3f                  /* 3 */
cl_loop:
2:  addi    t0, t0, -1              /* 2 per iteration */
cl_bnez:
    bnez    t0, 2b
cl_beqz:
3:  beqz    a2, 4f                  /* 4 */
    nop                             /* p */
cl_csrr:
4:  csrr    t6, CSR_MCYCLE          /* 5 */
cl_j2:
    j       cl_t2                   /* 6 */
cl_t2:
    csrw    CSR_MCTRCTL, zero
    sub     a0, t6, t5
    ret

/*
 * unsigned long cyc_sctrclr(unsigned long mctrctl)
 * cs_j1 (count 1, CCV=0), cs_j2 (count 4, CCV=1), SCTRCLR, cs_j3
 * (count 8 after SCTRCLR, CCV=0), cs_j4 (count 3, CCV=1).
 */
    .globl  cyc_sctrclr, cs_j1, cs_t1, cs_j2, cs_t2, cs_j3, cs_t3
    .globl  cs_j4, cs_t4
cyc_sctrclr:
    csrw    CSR_MCTRCTL, a0
cs_j1:
    j       cs_t1
cs_t1:
    nop
    nop
    nop
cs_j2:
    j       cs_t2
cs_t2:
    nop
    .4byte  0x10400073              /* sctrclr */
    csrr    t5, CSR_MCYCLE
    nop
    nop
    nop
    nop
    nop
    csrr    t6, CSR_MCYCLE
cs_j3:
    j       cs_t3
cs_t3:
    nop
    nop
cs_j4:
    j       cs_t4
cs_t4:
    csrw    CSR_MCTRCTL, zero
    sub     a0, t6, t5
    ret

/*
 * unsigned long NAME(unsigned long mctrctl, unsigned long arg)
 * NAME_j1 (count 1, CCV=0), NAME_j2 (count 3, CCV=1), then the control
 * register write under test (macro @write: one instruction of
 * preparation, then the write), NAME_j3 (count 6 after the write,
 * CCV=0), a read of mctrctl (not a write), NAME_j4 (count 3, CCV=1).
 */
.macro CCV_WRITE_TEST name, write
    .globl  \name, \name\()_j1, \name\()_t1, \name\()_j2, \name\()_t2
    .globl  \name\()_j3, \name\()_t3, \name\()_j4, \name\()_t4
\name:
    csrw    CSR_MCTRCTL, a0
\name\()_j1:
    j       \name\()_t1
\name\()_t1:
    nop
    nop
\name\()_j2:
    j       \name\()_t2
\name\()_t2:
    \write
    csrr    t5, CSR_MCYCLE
    nop
    nop
    nop
    csrr    t6, CSR_MCYCLE
\name\()_j3:
    j       \name\()_t3
\name\()_t3:
    csrr    t0, CSR_MCTRCTL         /* csrrs rs1=x0: not a write */
    nop
\name\()_j4:
    j       \name\()_t4
\name\()_t4:
    csrw    CSR_MCTRCTL, zero
    sub     a0, t6, t5
    ret
.endm

/* The writes under test, each preceded by its preparation. */
.macro WRITE_SAME                   /* the same value again */
    nop
    csrw    CSR_MCTRCTL, a0
.endm
.macro WRITE_DIFF                   /* another value (arg) */
    nop
    csrw    CSR_MCTRCTL, a1
.endm
.macro WRITE_CSRS                   /* csrrs, mask (arg) already set */
    nop
    csrs    CSR_MCTRCTL, a1
.endm
.macro WRITE_SCTRCTL                /* sctrctl written back unchanged */
    csrr    t0, CSR_SCTRCTL
    csrw    CSR_SCTRCTL, t0
.endm
.macro WRITE_VSCTRCTL               /* vsctrctl (H only) while V=0 */
    nop
    csrw    CSR_VSCTRCTL, a1
.endm
/*
 * csrrs/csrrc with rs1 != x0 holding 0 write the register (Zicsr: "will
 * still attempt to write the unmodified value back ... and will cause
 * any attendant side effects").
 */
.macro WRITE_SET_ZERO               /* csrrs x0, mctrctl, t0 with t0 = 0 */
    li      t0, 0
    csrrs   zero, CSR_MCTRCTL, t0
.endm
.macro WRITE_CLEAR_ZERO             /* csrrc t1, mctrctl, t0 with t0 = 0 */
    li      t0, 0
    csrrc   t1, CSR_MCTRCTL, t0
.endm
.macro WRITE_S_SET_ZERO             /* csrrs x0, sctrctl, t0 with t0 = 0 */
    li      t0, 0
    csrrs   zero, CSR_SCTRCTL, t0
.endm
.macro WRITE_VS_SET_ZERO            /* csrrs x0, vsctrctl, t0 with t0 = 0 */
    li      t0, 0
    csrrs   zero, CSR_VSCTRCTL, t0
.endm

    CCV_WRITE_TEST cyc_wr_same, WRITE_SAME
    CCV_WRITE_TEST cyc_wr_diff, WRITE_DIFF
    CCV_WRITE_TEST cyc_wr_csrs, WRITE_CSRS
    CCV_WRITE_TEST cyc_wr_sctrctl, WRITE_SCTRCTL
    CCV_WRITE_TEST cyc_wr_vsctrctl, WRITE_VSCTRCTL
    CCV_WRITE_TEST cyc_wr_set0, WRITE_SET_ZERO
    CCV_WRITE_TEST cyc_wr_clear0, WRITE_CLEAR_ZERO
    CCV_WRITE_TEST cyc_wr_s_set0, WRITE_S_SET_ZERO
    CCV_WRITE_TEST cyc_wr_vs_set0, WRITE_VS_SET_ZERO

/*
 * unsigned long cyc_frozen(unsigned long mctrctl, unsigned long frozen)
 * cf_j1 (count 1, CCV=0), cf_j2 (count 2, CCV=1), software sets FROZEN,
 * cf_jf is not recorded, software clears FROZEN, cf_j3 (count 1 + 7:
 * the csrs before and 7 instructions after the csrc, CCV=1), cf_j4
 * (count 2, CCV=1).
 */
    .globl  cyc_frozen, cf_j1, cf_t1, cf_j2, cf_t2, cf_jf, cf_tf
    .globl  cf_j3, cf_t3, cf_j4, cf_t4
cyc_frozen:
    csrw    CSR_MCTRCTL, a0
cf_j1:
    j       cf_t1
cf_t1:
    nop
cf_j2:
    j       cf_t2
cf_t2:
    csrs    CSR_SCTRSTATUS, a1      /* FROZEN=1: CTR inactive */
    nop
cf_jf:
    j       cf_tf
cf_tf:
    nop
    csrc    CSR_SCTRSTATUS, a1      /* FROZEN=0: counting restarts */
    csrr    t5, CSR_MCYCLE
    nop
    nop
    nop
    nop
    csrr    t6, CSR_MCYCLE
cf_j3:
    j       cf_t3
cf_t3:
    nop
cf_j4:
    j       cf_t4
cf_t4:
    csrw    CSR_MCTRCTL, zero
    sub     a0, t6, t5
    ret

/*
 * unsigned long cyc_bpfrz(unsigned long mctrctl, unsigned long frozen,
 *                         unsigned long *status)
 * mctrctl has BPFRZ=1.  cb_j1 (count 1, CCV=0); ebreak freezes CTR and
 * is not recorded; the handler stores sctrstatus to *status, clears
 * FROZEN and returns: cb_mret (trap return, count 2 + 5: nop and ebreak
 * before, 5 instructions after the csrc, CCV=1: frozen time is not
 * counted); cb_j3 (count 2, CCV=1).
 */
    .globl  cyc_bpfrz, cb_j1, cb_t1, cb_ebreak, cb_after, cb_j3, cb_t3
    .globl  cb_trap, cb_mret
cyc_bpfrz:
    la      t0, cb_trap
    csrrw   t3, CSR_MTVEC, t0
    csrw    CSR_MCTRCTL, a0
cb_j1:
    j       cb_t1
cb_t1:
    nop
cb_ebreak:
    ebreak
cb_after:
    nop
cb_j3:
    j       cb_t3
cb_t3:
    csrw    CSR_MCTRCTL, zero
    csrw    CSR_MTVEC, t3
    sub     a0, t6, t5
    ret

    .align  2
cb_trap:
    csrr    t0, CSR_MEPC
    addi    t0, t0, 4
    csrw    CSR_MEPC, t0
    csrr    t0, CSR_SCTRSTATUS
    sd      t0, 0(a2)
    csrc    CSR_SCTRSTATUS, a1      /* FROZEN=0: counting restarts */
    csrr    t5, CSR_MCYCLE
    nop
    nop
    csrr    t6, CSR_MCYCLE
cb_mret:
    mret

/*
 * unsigned long cyc_mtrap(unsigned long mctrctl)
 * Traps between enabled modes (M to M) count like any transfer:
 * cm_j1 (count 1, CCV=0), cm_ecall (exception, count 2, CCV=1),
 * cm_mret (trap return, count 5, CCV=1), cm_j3 (count 2, CCV=1).
 * Returns the mcycle delta from before the ecall to the handler's
 * first instruction (2: the ecall is one instruction).
 */
    .globl  cyc_mtrap, cm_j1, cm_t1, cm_ecall, cm_after, cm_j3, cm_t3
    .globl  cm_trap, cm_mret
cyc_mtrap:
    la      t0, cm_trap
    csrrw   t3, CSR_MTVEC, t0
    csrw    CSR_MCTRCTL, a0
cm_j1:
    j       cm_t1
cm_t1:
    csrr    t5, CSR_MCYCLE
cm_ecall:
    ecall
cm_after:
    nop
cm_j3:
    j       cm_t3
cm_t3:
    csrw    CSR_MCTRCTL, zero
    csrw    CSR_MTVEC, t3
    sub     a0, t6, t5
    ret

    .align  2
cm_trap:
    csrr    t6, CSR_MCYCLE
    csrr    t0, CSR_MEPC
    addi    t0, t0, 4
    csrw    CSR_MEPC, t0
cm_mret:
    mret

/*
 * unsigned long cyc_umode(unsigned long mctrctl)
 * A period in U-mode, which is not enabled (mctrctl.U=0, M=1):
 * cu_j1 (count 1, CCV=0); cu_mret returns to U-mode (recorded unless
 * TRETINH: ctrtarget.PC=0, count 4, CCV=1); cu_ujmp in U-mode is not
 * recorded; cu_ecall traps back to M-mode (recorded unless EXCINH:
 * ctrsource.PC=0, CCV=1, count 0, or 4 when the mret was not recorded);
 * cu_j2 (count 7, or 4 + 7 when neither was recorded; CCV=1).  Nothing
 * executed in U-mode counts, not even the ecall, and the inactive period
 * does not clear CCV.
 */
    .globl  cyc_umode, cu_j1, cu_t1, cu_mret, cu_user, cu_ujmp, cu_ecall
    .globl  cu_trap, cu_j2, cu_t2
cyc_umode:
    la      t0, cu_trap
    csrrw   t3, CSR_MTVEC, t0
    la      t0, cu_user
    csrw    CSR_MEPC, t0
    li      t0, MSTATUS_MPP
    csrc    CSR_MSTATUS, t0         /* MPP = U */
    csrw    CSR_MCTRCTL, a0
cu_j1:
    j       cu_t1
cu_t1:
    nop
    nop
    nop
cu_mret:
    mret
cu_user:
    nop
    nop
cu_ujmp:
    j       2f
2:  nop
cu_ecall:
    ecall

    .align  2
cu_trap:
    csrr    t5, CSR_MCYCLE
    nop
    nop
    nop
    nop
    csrr    t6, CSR_MCYCLE
cu_j2:
    j       cu_t2
cu_t2:
    csrw    CSR_MCTRCTL, zero
    csrw    CSR_MTVEC, t3
    li      t0, MSTATUS_MPP
    csrs    CSR_MSTATUS, t0         /* MPP = M again */
    sub     a0, t6, t5
    ret
