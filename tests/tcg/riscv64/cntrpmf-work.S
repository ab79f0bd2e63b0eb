/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Measured code of test-cntrpmf.c (Smcntrpmf 1.0).
 *
 * cpmf_run() saves the C context, points mtvec at a handler, reads
 * minstret and mcycle and enters a snippet with mret, in the mode that
 * mstatus.MPP/MPV select.  The snippet runs in that mode (and in the
 * modes its sret and traps lead to) until it reaches an M-mode trap that
 * lands in cpmf_mend, which reads minstret and mcycle again and returns
 * from cpmf_run().  Everything executed between the two reads is written
 * here, straight-line, so the test knows exactly which instruction runs
 * in which mode; the test computes instruction counts from the labels.
 *
 * Mid-run trap handlers (cpmf_mh_* at M level, cpmf_sh_skip at HS/VS
 * level through stvec/vstvec) log the trap, act, point mtvec at
 * cpmf_mend (M level) and return.  No code here uses a stack or calls a
 * function.
 */

#include "rt-csr.h"
#include "rt-ctx.h"

    .option norvc           /* 4-byte instructions: counts from labels */
    .option norelax         /* la stays auipc + addi */

/* n instructions that retire in any mode; they change t0 only. */
.macro WORK n
    .rept   \n
    addi    t0, t0, 1
    .endr
.endm

/* struct cpmf_snap offsets */
#define SNAP_I0     0
#define SNAP_C0     8
#define SNAP_I1     16
#define SNAP_C1     24
#define SNAP_CAUSE  32
#define SNAP_EPC    40
#define SNAP_A1     48

/* struct cpmf_fix offsets */
#define FIX_ADDR    0
#define FIX_VAL     8
#define FIX_PMPCFG  16
#define FIX_ICFG    24
#define FIX_CCFG    32
#define FIX_INH     40
#define FIX_INSTRET 48
#define FIX_CYCLE   56

#define CTX_MTVEC   (16 * 8)

    .text

/*
 * void cpmf_run(unsigned long pc, unsigned long mtvec, unsigned long arg)
 * Enters @pc (a0 = @arg there) with mret, with mtvec = @mtvec.
 */
    .globl  cpmf_run, cpmf_run_i0, cpmf_run_c0, cpmf_run_mret
cpmf_run:
    la      t6, cpmf_ctx
    RT_SAVE_C_CONTEXT t6
    csrr    t0, CSR_MTVEC
    sd      t0, CTX_MTVEC(t6)
    csrw    CSR_MTVEC, a1
    csrw    CSR_MEPC, a0
    mv      a0, a2
    li      a1, 0
    li      a2, 0
    li      a3, 0
    li      a4, 0
    la      t4, cpmf_snap
cpmf_run_i0:
    csrr    t5, CSR_MINSTRET
cpmf_run_c0:
    csrr    t6, CSR_MCYCLE
    sd      t5, SNAP_I0(t4)
    sd      t6, SNAP_C0(t4)
cpmf_run_mret:
    mret

/* The end of a run: the first two instructions are the final reads. */
    .globl  cpmf_mend, cpmf_mend_c1
    .align  2
cpmf_mend:
    csrr    t5, CSR_MINSTRET
cpmf_mend_c1:
    csrr    t6, CSR_MCYCLE
    la      t4, cpmf_snap
    sd      t5, SNAP_I1(t4)
    sd      t6, SNAP_C1(t4)
    csrr    t5, CSR_MCAUSE
    sd      t5, SNAP_CAUSE(t4)
    csrr    t5, CSR_MEPC
    sd      t5, SNAP_EPC(t4)
    sd      a1, SNAP_A1(t4)
    sd      a2, SNAP_A1 + 8(t4)
    sd      a3, SNAP_A1 + 16(t4)
    sd      a4, SNAP_A1 + 24(t4)
    la      t6, cpmf_ctx
    ld      t0, CTX_MTVEC(t6)
    csrw    CSR_MTVEC, t0
    RT_RESTORE_C_CONTEXT t6
    ret                             /* from cpmf_run() */

/* Log a trap taken at M level: count, mcause, mepc. */
.macro MLOG
    la      t4, cpmf_mlog
    ld      t5, 0(t4)
    addi    t5, t5, 1
    sd      t5, 0(t4)
    csrr    t5, CSR_MCAUSE
    sd      t5, 8(t4)
    csrr    t5, CSR_MEPC
    sd      t5, 16(t4)
.endm

/* The next M-level trap ends the run. */
.macro MTVEC_END
    la      t4, cpmf_mend
    csrw    CSR_MTVEC, t4
.endm

.macro MSKIP
    csrr    t4, CSR_MEPC
    addi    t4, t4, 4
    csrw    CSR_MEPC, t4
.endm

/* Skip the trapping instruction. */
    .globl  cpmf_mh_skip, cpmf_mh_skip_mret
    .align  2
cpmf_mh_skip:
    MLOG
    MTVEC_END
    MSKIP
cpmf_mh_skip_mret:
    mret

/*
 * Make the faulting access work and return to it: *fix.addr = fix.val
 * (a page table entry), pmpcfg0 = fix.pmpcfg, then sfence.vma.
 */
    .globl  cpmf_mh_fix, cpmf_mh_fix_mret
    .align  2
cpmf_mh_fix:
    MLOG
    la      t4, cpmf_fix
    ld      t5, FIX_ADDR(t4)
    ld      t6, FIX_VAL(t4)
    sd      t6, 0(t5)
    ld      t5, FIX_PMPCFG(t4)
    csrw    CSR_PMPCFG0, t5
    sfence.vma
    MTVEC_END
cpmf_mh_fix_mret:
    mret

/*
 * Write minstretcfg, mcyclecfg and mcountinhibit from cpmf_fix, in that
 * order, and skip the trapping instruction.
 */
    .globl  cpmf_mh_cfg, cpmf_mh_cfg_wi, cpmf_mh_cfg_wc, cpmf_mh_cfg_wh
    .globl  cpmf_mh_cfg_mret
    .align  2
cpmf_mh_cfg:
    MLOG
    la      t4, cpmf_fix
    ld      t5, FIX_ICFG(t4)
    ld      t6, FIX_CCFG(t4)
    ld      t3, FIX_INH(t4)
cpmf_mh_cfg_wi:
    csrw    CSR_MINSTRETCFG, t5
cpmf_mh_cfg_wc:
    csrw    CSR_MCYCLECFG, t6
cpmf_mh_cfg_wh:
    csrw    CSR_MCOUNTINHIBIT, t3
    MTVEC_END
    MSKIP
cpmf_mh_cfg_mret:
    mret

/* Write minstret and mcycle from cpmf_fix; skip the trapping instruction. */
    .globl  cpmf_mh_wctr, cpmf_mh_wctr_wi, cpmf_mh_wctr_wc, cpmf_mh_wctr_mret
    .align  2
cpmf_mh_wctr:
    MLOG
    la      t4, cpmf_fix
    ld      t5, FIX_INSTRET(t4)
    ld      t6, FIX_CYCLE(t4)
cpmf_mh_wctr_wi:
    csrw    CSR_MINSTRET, t5
cpmf_mh_wctr_wc:
    csrw    CSR_MCYCLE, t6
    MTVEC_END
    MSKIP
cpmf_mh_wctr_mret:
    mret

/*
 * HS-level (stvec) or VS-level (vstvec) handler: log count, scause,
 * sepc and skip the trapping instruction.  In VS-mode the s* CSRs are
 * the vs* CSRs.
 */
    .globl  cpmf_sh_skip, cpmf_sh_skip_sret
    .align  2
cpmf_sh_skip:
    la      t4, cpmf_slog
    ld      t5, 0(t4)
    addi    t5, t5, 1
    sd      t5, 0(t4)
    csrr    t5, CSR_SCAUSE
    sd      t5, 8(t4)
    csrr    t5, CSR_SEPC
    sd      t5, 16(t4)
    csrr    t4, CSR_SEPC
    addi    t4, t4, 4
    csrw    CSR_SEPC, t4
cpmf_sh_skip_sret:
    sret

/*
 * Snippets, run in any mode.
 *
 * cpmf_w_self: the program measuring itself with the unprivileged
 * counters (a2 - a1: instret, a4 - a3: cycle), then ecall to M.
 */
    .globl  cpmf_w_self, cpmf_w_self_i1, cpmf_w_self_c1, cpmf_w_self_end
    .align  2
cpmf_w_self:
    csrr    a1, CSR_INSTRET
    csrr    a3, CSR_CYCLE
    WORK    10
cpmf_w_self_i1:
    csrr    a2, CSR_INSTRET
cpmf_w_self_c1:
    csrr    a4, CSR_CYCLE
cpmf_w_self_end:
    ecall

/* Work, then sret (in S, HS or VS mode) to sepc. */
    .globl  cpmf_w_sret, cpmf_w_sret_x
    .align  2
cpmf_w_sret:
    WORK    7
cpmf_w_sret_x:
    sret

/*
 * TRAP_SNIPPET name, before, after, endcsr, insn...: work, one
 * instruction that traps (and is skipped or re-executed by the handler),
 * work, then the end of the run: ecall, or with @endcsr a write to a
 * read-only CSR (illegal in every mode), for the snippet whose trap is
 * an ecall that may be delegated.
 */
.macro TRAP_SNIPPET name, before, after, endcsr, insn:vararg
    .globl  \name, \name\()_trap, \name\()_end
    .align  2
\name:
    WORK    \before
\name\()_trap:
    \insn
    WORK    \after
\name\()_end:
    .if     \endcsr
    csrw    CSR_MHARTID, zero
    .else
    ecall
    .endif
.endm

    TRAP_SNIPPET cpmf_t_ecall, 5, 6, 1, ecall
    TRAP_SNIPPET cpmf_t_ebreak, 5, 6, 0, ebreak
    /* A reserved major opcode (inst[6:0] = 1101011): illegal. */
    TRAP_SNIPPET cpmf_t_ill, 5, 6, 0, .4byte 0x0000006b
    /* A write to a read-only CSR: illegal in every mode. */
    TRAP_SNIPPET cpmf_t_csrf, 5, 6, 0, csrw CSR_MHARTID, zero
    /* A load from a0, which faults once and is re-executed or skipped. */
    TRAP_SNIPPET cpmf_t_load, 3, 4, 0, ld t1, 0(a0)

/*
 * void cpmf_m_swap(unsigned long icfg, unsigned long ccfg,
 *                  unsigned long out[4])
 * In M-mode: read minstret, write minstretcfg, read minstret; then the
 * same for mcycle and mcyclecfg.
 */
    .globl  cpmf_m_swap
cpmf_m_swap:
    csrr    t0, CSR_MINSTRET
    csrw    CSR_MINSTRETCFG, a0
    csrr    t1, CSR_MINSTRET
    csrr    t2, CSR_MCYCLE
    csrw    CSR_MCYCLECFG, a1
    csrr    t3, CSR_MCYCLE
    sd      t0, 0(a2)
    sd      t1, 8(a2)
    sd      t2, 16(a2)
    sd      t3, 24(a2)
    ret

/*
 * void cpmf_m_wread(unsigned long v, unsigned long out[8])
 * In M-mode, for minstret then mcycle: read the counter and write @v with
 * one csrrw, read it back at once, after 4 instructions, and after
 * writing it with a csrw.
 */
    .globl  cpmf_m_wread
cpmf_m_wread:
    csrr    a2, CSR_MINSTRET
    csrrw   a3, CSR_MINSTRET, a0
    csrr    a4, CSR_MINSTRET
    WORK    4                       /* t0 only */
    csrr    a5, CSR_MINSTRET
    sd      a2, 0(a1)
    sd      a3, 8(a1)
    sd      a4, 16(a1)
    sd      a5, 24(a1)
    csrw    CSR_MCYCLE, a0
    csrr    a4, CSR_MCYCLE
    WORK    4
    csrr    a5, CSR_MCYCLE
    sd      a4, 32(a1)
    sd      a5, 40(a1)
    ret

    .data
    .align  3
    .globl  cpmf_snap, cpmf_fix, cpmf_mlog, cpmf_slog
cpmf_snap:
    .space  10 * 8
cpmf_fix:
    .space  8 * 8
cpmf_mlog:
    .space  3 * 8
cpmf_slog:
    .space  3 * 8
cpmf_ctx:
    .space  17 * 8
