/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Measured windows of test-cntrpmf-hpm.c: every instruction between two
 * counter reads, and every instruction run in U-mode, is written here,
 * so the counts the test expects follow from this file alone.  Only
 * 4-byte instructions, no linker relaxation.
 */

#include "rt-csr.h"

#define CSR_MHPMCOUNTER3    0xb03
#define CSR_MHPMCOUNTER4    0xb04
#define MSTATUS_MPP_MPRV    0x21800     /* gas takes no 3UL << 11 */

    .option norvc
    .option norelax
    .text

/*
 * unsigned long cntrpmf_run_u(unsigned long n), n >= 1, from M-mode:
 * enter U-mode with mret at cntrpmf_u_loop, which retires exactly 2 * n
 * instructions and then executes an ecall (which does not retire); the
 * ecall lands in the local vector below, which puts the runtime's mtvec
 * back and returns to the caller in M-mode with a0 = mcause.  No
 * runtime code runs in between; the U code touches a1 only, so ra, sp,
 * t4 and the callee-saved registers survive.  Executed instructions
 * (-icount shift=0 cycles) in U: 2 * n + 1 (the ecall's cycle belongs
 * to U, docs/system/riscv/cntrpmf.rst).
 */
    .globl  cntrpmf_run_u
cntrpmf_run_u:
    mv      a1, a0
    csrr    t4, CSR_MTVEC
    la      t0, u_vec
    csrw    CSR_MTVEC, t0
    la      t0, cntrpmf_u_loop
    csrw    CSR_MEPC, t0
    li      t0, MSTATUS_MPP_MPRV
    csrc    CSR_MSTATUS, t0
    mret

    .globl  cntrpmf_u_loop
cntrpmf_u_loop:
    addi    a1, a1, -1
    bnez    a1, cntrpmf_u_loop
    ecall
1:  j       1b

    .balign 4
u_vec:
    csrw    CSR_MTVEC, t4
    csrr    a0, CSR_MCAUSE
    ret

/* void cntrpmf_spin(unsigned long n), n >= 1: 2 * n instructions. */
    .globl  cntrpmf_spin
cntrpmf_spin:
    addi    a0, a0, -1
    bnez    a0, cntrpmf_spin
    ret

/*
 * unsigned long cntrpmf_delta_<ctr>(unsigned long n), n >= 1: the
 * difference of two reads of <ctr> with exactly 2 * n instructions
 * between them, all in the calling mode.
 */
.macro DELTA name, csr
    .globl  \name
\name:
    csrr    t0, \csr
1:  addi    a0, a0, -1
    bnez    a0, 1b
    csrr    t1, \csr
    sub     a0, t1, t0
    ret
.endm

    DELTA   cntrpmf_delta_minstret, CSR_MINSTRET
    DELTA   cntrpmf_delta_mcycle, CSR_MCYCLE
    DELTA   cntrpmf_delta_hpm3, CSR_MHPMCOUNTER3

/*
 * unsigned long cntrpmf_minstret_wrap(unsigned long v): write minstret
 * = v, run 20 nops, return minstret read right after them.  The write
 * replaces the csrw's own increment (Zicsr), so the result is v + 20.
 */
    .globl  cntrpmf_minstret_wrap
cntrpmf_minstret_wrap:
    csrw    CSR_MINSTRET, a0
    .rept   20
    nop
    .endr
    csrr    a0, CSR_MINSTRET
    ret

/*
 * void cntrpmf_mcycle_wrap(unsigned long v, unsigned long out[2]):
 * write mcycle = v, read it (out[0]), run 20 nops, read it again
 * (out[1]).  Under -icount shift=0, out[1] - out[0] = 21.
 */
    .globl  cntrpmf_mcycle_wrap
cntrpmf_mcycle_wrap:
    csrw    CSR_MCYCLE, a0
    csrr    t0, CSR_MCYCLE
    .rept   20
    nop
    .endr
    csrr    t1, CSR_MCYCLE
    sd      t0, 0(a1)
    sd      t1, 8(a1)
    ret

/*
 * unsigned long cntrpmf_hpm3_write_read(unsigned long v): csrw
 * mhpmcounter3 = v, then read it right away.  Like minstret, the value
 * written replaces the count of the writing instruction and a read
 * returns the count before the reading instruction, so the result is v
 * when counter 3 counts instructions in M-mode.
 */
    .globl  cntrpmf_hpm3_write_read
cntrpmf_hpm3_write_read:
    csrw    CSR_MHPMCOUNTER3, a0
    csrr    a0, CSR_MHPMCOUNTER3
    ret

/*
 * void cntrpmf_pair_delta(unsigned long n, unsigned long out[2]), n >= 1:
 * out[0] and out[1] are the differences of two reads of mhpmcounter3 and
 * mhpmcounter4 around 2 * n instructions, all in the calling mode.  Each
 * counter sees 2 * n + 2 instructions between its reads (the other
 * counter's two reads and its own first one).
 */
    .globl  cntrpmf_pair_delta
cntrpmf_pair_delta:
    csrr    t0, CSR_MHPMCOUNTER3
    csrr    t1, CSR_MHPMCOUNTER4
1:  addi    a0, a0, -1
    bnez    a0, 1b
    csrr    t2, CSR_MHPMCOUNTER3
    csrr    t3, CSR_MHPMCOUNTER4
    sub     t2, t2, t0
    sub     t3, t3, t1
    sd      t2, 0(a1)
    sd      t3, 8(a1)
    ret

/*
 * void cntrpmf_pair_run_u(unsigned long n, unsigned long out[2]), from
 * M-mode: out[0] and out[1] are the differences of two reads of
 * mhpmcounter3 and mhpmcounter4 around cntrpmf_run_u(n).  Between the
 * two reads of counter 4 (read B, read D) M-mode executes 19
 * instructions: read B itself, the call (auipc + jalr without linker
 * relaxation), the 12 of cntrpmf_run_u up to
 * and including its mret (mv, csrr, la = 2, csrw, la = 2, csrw, li = 2,
 * csrc, mret), the 3 of u_vec (csrw, csrr, ret) and read C; U-mode
 * retires 2 * n instructions and executes the ecall.
 */
    .globl  cntrpmf_pair_run_u
cntrpmf_pair_run_u:
    addi    sp, sp, -16
    sd      ra, 0(sp)
    sd      a1, 8(sp)
    csrr    t5, CSR_MHPMCOUNTER3    /* read A */
    csrr    t6, CSR_MHPMCOUNTER4    /* read B */
    call    cntrpmf_run_u
    csrr    t2, CSR_MHPMCOUNTER3    /* read C */
    csrr    t3, CSR_MHPMCOUNTER4    /* read D */
    sub     t2, t2, t5
    sub     t3, t3, t6
    ld      a1, 8(sp)
    sd      t2, 0(a1)
    sd      t3, 8(a1)
    ld      ra, 0(sp)
    addi    sp, sp, 16
    ret
