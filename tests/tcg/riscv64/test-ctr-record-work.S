/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Workload of test-ctr-record.c: one control transfer per case, each at
 * local labels whose addresses go into a table of case descriptors
 * (struct ctr_case in test-ctr-record.h) together with the transfer type
 * the Smctr/Ssctr 1.0 "Transfer Type Filtering" tables give it.
 *
 * Every case body is expanded twice:
 *  - as an M-mode function  void m(unsigned long mctrctl): it writes
 *    mctrctl, runs the body and writes mctrctl = 0 before returning, so
 *    the call and the return are never recorded;
 *  - as an entry point for ctr_launch() (S- or U-mode, entered by mret
 *    from M-mode with M recording disabled, left by ecall to M-mode,
 *    which is an external trap and not recorded without MTE).
 * Trap cases (ecall, ebreak, interrupt) exist in M-mode only; they
 * install ctr_handler as mtvec, which records the trap and returns.
 *
 * In a body, label 8 is the transfer instruction and 9 its destination;
 * a fall-through that should not happen hits an all-zero (illegal)
 * parcel, and label 4 (after the body) is the never-taken destination of
 * not-taken branches.  Registers t4-t6 are reserved for ctr_handler.
 *
 * gcc 12's assembler has no Zcmp/Zcmt: those are emitted with .2byte.
 */

#include "rt-csr.h"
#include "test-ctr-record-asm.h"

/* ctrdata.TYPE encodings (spec: "Control Transfer Type Definitions") */
#define TYPE_EXC        1
#define TYPE_INTR       2
#define TYPE_TRET       3
#define TYPE_NTBR       4
#define TYPE_TKBR       5
#define TYPE_INDCALL    8
#define TYPE_DIRCALL    9
#define TYPE_INDJMP     10
#define TYPE_DIRJMP     11
#define TYPE_CORSWAP    12
#define TYPE_RET        13
#define TYPE_INDLJMP    14
#define TYPE_DIRLJMP    15

#define MIP_SSIP        2
#define MSTATUS_MIE     8
#define MSTATUS_MPIE    0x80
#define MSTATUS_MPP_ALL 0x1800
#define MSTATUS_MPRV_B  0x20000
#define MSTATUS_MPV_B   (1 << 39)

    .option norvc           /* exact 4-byte forms unless asked for */
    .option norelax         /* labels stay where they are assembled */

/* One transfer of a case: source, destination, ctrdata.TYPE. */
.macro XFER src, tgt, type
    .pushsection .rodata.ctr_cases, "a"
    .quad   \src, \tgt, \type
    .popsection
.endm

/* A case with a single transfer (the second slot is empty). */
.macro XFER1 src, tgt, type
    XFER    \src, \tgt, \type
    XFER    0, 0, 0
.endm

/*
 * CASE name, feature, nr, trap
 * Descriptor layout (8-byte fields): name, feature, nr, m_xfer[2] (3
 * fields each), m entry, x_xfer[2], x entry (0 for trap cases).
 */
.macro CASE name, feat, nr, trap=0
    .pushsection .rodata.ctr_names, "a"
5:  .asciz  "\name"
    .popsection
    .pushsection .rodata.ctr_cases, "a"
    .quad   5b, \feat, \nr
    .popsection

    .text
    .balign 4
7:  addi    sp, sp, -16
    sd      ra, 0(sp)
    .if \trap
    lla     t0, ctr_handler
    csrrw   t0, CSR_MTVEC, t0
    sd      t0, 8(sp)
    .endif
    csrw    CSR_MCTRCTL, a0
    BODY_\name
    csrw    CSR_MCTRCTL, zero
    .if \trap
    ld      t0, 8(sp)
    csrw    CSR_MTVEC, t0
    .endif
    ld      ra, 0(sp)
    addi    sp, sp, 16
    ret
4:  .2byte  0, 0
    .pushsection .rodata.ctr_cases, "a"
    .quad   7b
    .popsection

    .if \trap
    .pushsection .rodata.ctr_cases, "a"
    .quad   0, 0, 0, 0, 0, 0, 0
    .popsection
    .else
    .balign 4
6:  BODY_\name
    ecall
4:  .2byte  0, 0
    .pushsection .rodata.ctr_cases, "a"
    .quad   6b
    .popsection
    .endif
.endm

    .pushsection .rodata.ctr_cases, "a"
    .balign 8
    .globl  ctr_cases
ctr_cases:
    .popsection

/* ---- jal (spec: direct call jal x1/x5, direct jump jal x0, other) */

.macro BODY_jal_x1
8:  jal     x1, 9f
    .4byte  0
9:  XFER1   8b, 9b, TYPE_DIRCALL
.endm
    CASE    jal_x1, CASE_FEAT_BASE, 1

.macro BODY_jal_x5
8:  jal     x5, 9f
    .4byte  0
9:  XFER1   8b, 9b, TYPE_DIRCALL
.endm
    CASE    jal_x5, CASE_FEAT_BASE, 1

.macro BODY_jal_x0
8:  jal     x0, 9f
    .4byte  0
9:  XFER1   8b, 9b, TYPE_DIRJMP
.endm
    CASE    jal_x0, CASE_FEAT_BASE, 1

.macro BODY_jal_x6
8:  jal     x6, 9f
    .4byte  0
9:  XFER1   8b, 9b, TYPE_DIRLJMP
.endm
    CASE    jal_x6, CASE_FEAT_BASE, 1

.macro BODY_c_j
    .option rvc
8:  c.j     9f
    .option norvc
    .2byte  0
9:  XFER1   8b, 9b, TYPE_DIRJMP
.endm
    CASE    c_j, CASE_FEAT_BASE, 1

/* ---- jalr: every row of the type table */

/* JALR rd, rs1 to label 9 (rs1 loaded first) */
.macro JALR_CASE name, rd, rs, type
.macro BODY_\name
    lla     \rs, 9f
8:  jalr    \rd, 0(\rs)
    .4byte  0
9:  XFER1   8b, 9b, \type
.endm
    CASE    \name, CASE_FEAT_BASE, 1
.endm

    /* indirect call: JALR x1, rs (rs != x5); JALR x5, rs (rs != x1) */
    JALR_CASE jalr_x1_x7, x1, x7, TYPE_INDCALL
    JALR_CASE jalr_x1_x1, x1, x1, TYPE_INDCALL
    JALR_CASE jalr_x5_x7, x5, x7, TYPE_INDCALL
    JALR_CASE jalr_x5_x5, x5, x5, TYPE_INDCALL
    /* indirect jump: JALR x0, rs (rs != x1, x5) */
    JALR_CASE jalr_x0_x7, x0, x7, TYPE_INDJMP
    /* co-routine swap: JALR x1, x5 and JALR x5, x1 */
    JALR_CASE jalr_x1_x5, x1, x5, TYPE_CORSWAP
    JALR_CASE jalr_x5_x1, x5, x1, TYPE_CORSWAP
    /* function return: JALR rd, rs (rs == x1/x5, rd != x1/x5) */
    JALR_CASE jalr_x0_x1, x0, x1, TYPE_RET
    JALR_CASE jalr_x0_x5, x0, x5, TYPE_RET
    JALR_CASE jalr_x6_x1, x6, x1, TYPE_RET
    JALR_CASE jalr_x6_x5, x6, x5, TYPE_RET
    /* other indirect jump: JALR rd, rs (rs != x1/x5, rd != x0/x1/x5) */
    JALR_CASE jalr_x6_x7, x6, x7, TYPE_INDLJMP

/* C.JR / C.JALR rs1 to label 9 */
.macro CJ_CASE name, insn, rs, type
.macro BODY_\name
    lla     \rs, 9f
    .option rvc
8:  \insn   \rs
    .option norvc
    .2byte  0
9:  XFER1   8b, 9b, \type
.endm
    CASE    \name, CASE_FEAT_BASE, 1
.endm

    /* C.JR rs1: function return for x1/x5, indirect jump otherwise */
    CJ_CASE c_jr_x1, c.jr, x1, TYPE_RET
    CJ_CASE c_jr_x5, c.jr, x5, TYPE_RET
    CJ_CASE c_jr_x7, c.jr, x7, TYPE_INDJMP
    /* C.JALR rs1: co-routine swap for x5, indirect call otherwise */
    CJ_CASE c_jalr_x5, c.jalr, x5, TYPE_CORSWAP
    CJ_CASE c_jalr_x7, c.jalr, x7, TYPE_INDCALL
    CJ_CASE c_jalr_x1, c.jalr, x1, TYPE_INDCALL

/* ---- conditional branches, taken (label 9) and not taken (label 4) */

/* BR_CASE name, insn, a, b: t1 = -1 and t2 = 1 are available */
.macro BR_TK name, insn, a, b
.macro BODY_\name
    li      t1, -1
    li      t2, 1
8:  \insn   \a, \b, 9f
    .4byte  0
9:  XFER1   8b, 9b, TYPE_TKBR
.endm
    CASE    \name, CASE_FEAT_BASE, 1
.endm

.macro BR_NT name, insn, a, b
.macro BODY_\name
    li      t1, -1
    li      t2, 1
8:  \insn   \a, \b, 4f
9:  XFER1   8b, 9b, TYPE_NTBR
.endm
    CASE    \name, CASE_FEAT_BASE, 1
.endm

    BR_TK   beq_tk, beq, zero, zero
    BR_NT   beq_nt, beq, t2, zero
    BR_TK   bne_tk, bne, t2, zero
    BR_NT   bne_nt, bne, zero, zero
    BR_TK   blt_tk, blt, t1, zero           /* -1 < 0 */
    BR_NT   blt_nt, blt, zero, t1
    BR_TK   bge_tk, bge, zero, t1           /* 0 >= -1 */
    BR_NT   bge_nt, bge, t1, zero
    BR_TK   bltu_tk, bltu, zero, t2         /* 0 < 1 */
    BR_NT   bltu_nt, bltu, t1, zero
    BR_TK   bgeu_tk, bgeu, t1, zero         /* 2^64-1 >= 0 */
    BR_NT   bgeu_nt, bgeu, zero, t2

/* C.BEQZ / C.BNEZ on a5 */
.macro CBR_TK name, insn, val
.macro BODY_\name
    li      a5, \val
    .option rvc
8:  \insn   a5, 9f
    .option norvc
    .2byte  0
9:  XFER1   8b, 9b, TYPE_TKBR
.endm
    CASE    \name, CASE_FEAT_BASE, 1
.endm

.macro CBR_NT name, insn, val
.macro BODY_\name
    li      a5, \val
    .option rvc
8:  \insn   a5, 4f
9:  c.nop                   /* keeps the code 4-byte aligned */
    .option norvc
    XFER1   8b, 9b, TYPE_NTBR
.endm
    CASE    \name, CASE_FEAT_BASE, 1
.endm

    CBR_TK  c_beqz_tk, c.beqz, 0
    CBR_NT  c_beqz_nt, c.beqz, 1
    CBR_TK  c_bnez_tk, c.bnez, 1
    CBR_NT  c_bnez_nt, c.bnez, 0

/* ---- Zcmp: cm.popret / cm.popretz {ra}, 16 pop ra from sp+8 and ret */

.macro BODY_cm_popret
    addi    sp, sp, -16
    lla     t0, 9f
    sd      t0, 8(sp)
8:  .2byte  0xbe42          /* cm.popret {ra}, 16: 101 11110 0100 00 10 */
    .2byte  0
9:  XFER1   8b, 9b, TYPE_RET
.endm
    CASE    cm_popret, CASE_FEAT_ZCMP, 1

.macro BODY_cm_popretz
    addi    sp, sp, -16
    lla     t0, 9f
    sd      t0, 8(sp)
8:  .2byte  0xbc42          /* cm.popretz {ra}, 16: 101 11100 0100 00 10 */
    .2byte  0
9:  XFER1   8b, 9b, TYPE_RET
.endm
    CASE    cm_popretz, CASE_FEAT_ZCMP, 1

/*
 * ---- Zcmt: cm.jt index 0 (direct jump), cm.jalt index 32 (direct
 * call) through ctr_jvt_table, which the C side puts in jvt (mode 0).
 * The table is read like instructions, hence fence.i after the store.
 */

.macro BODY_cm_jt
    lla     t0, 9f
    lla     t1, ctr_jvt_table
    sd      t0, 0(t1)
    fence.i
8:  .2byte  0xa002          /* cm.jt 0: 101 000 00000000 10 */
    .2byte  0
9:  XFER1   8b, 9b, TYPE_DIRJMP
.endm
    CASE    cm_jt, CASE_FEAT_ZCMT, 1

.macro BODY_cm_jalt
    lla     t0, 9f
    lla     t1, ctr_jvt_table
    sd      t0, 32 * 8(t1)
    fence.i
8:  .2byte  0xa082          /* cm.jalt 32: 101 000 00100000 10 */
    .2byte  0
9:  XFER1   8b, 9b, TYPE_DIRCALL
.endm
    CASE    cm_jalt, CASE_FEAT_ZCMT, 1

/* ---- traps and trap returns, M to M through ctr_handler */

.macro BODY_ecall
8:  ecall
9:  XFER    8b, ctr_handler, TYPE_EXC
    XFER    ctr_handler_mret, 9b, TYPE_TRET
.endm
    CASE    ecall, CASE_FEAT_BASE, 2, 1

.macro BODY_ebreak          /* mctrctl.BPFRZ=0: an ordinary exception */
8:  ebreak
9:  XFER    8b, ctr_handler, TYPE_EXC
    XFER    ctr_handler_mret, 9b, TYPE_TRET
.endm
    CASE    ebreak, CASE_FEAT_BASE, 2, 1

/*
 * A supervisor software interrupt (mip.SSIP set by M-mode, not
 * delegated) becomes pending-and-enabled when mstatus.MIE is set; the
 * recorded source is the epc of the interrupt, which ctr_handler saves.
 */
.macro BODY_interrupt
    li      t0, MIP_SSIP
    csrs    CSR_MIE, t0
    csrs    CSR_MIP, t0
    csrsi   CSR_MSTATUS, MSTATUS_MIE
    nop
    csrc    CSR_MIE, t0
    XFER    CTR_DYN, ctr_handler, TYPE_INTR
    XFER    ctr_handler_mret, CTR_DYN, TYPE_TRET
.endm
    CASE    interrupt, CASE_FEAT_BASE, 2, 1

    .pushsection .rodata.ctr_cases, "a"
    .globl  ctr_cases_end
ctr_cases_end:
    .popsection

/*
 * M-mode trap handler of the trap cases, without any control transfer
 * besides its mret: saves mcause and mepc in ctr_trap_info, steps over
 * the 4-byte ecall/ebreak (mepc += 4 for exceptions, += 0 for
 * interrupts), clears mip.SSIP and mstatus.MPIE (MIE stays 0 after mret).
 */
    .text
    .balign 4
    .globl  ctr_handler, ctr_handler_mret
ctr_handler:
    lla     t6, ctr_trap_info
    csrr    t5, CSR_MCAUSE
    sd      t5, 0(t6)
    srli    t5, t5, 63
    slli    t5, t5, 2
    neg     t5, t5
    addi    t5, t5, 4
    csrr    t4, CSR_MEPC
    sd      t4, 8(t6)
    add     t4, t4, t5
    csrw    CSR_MEPC, t4
    li      t5, MIP_SSIP
    csrc    CSR_MIP, t5
    li      t5, MSTATUS_MPIE
    csrc    CSR_MSTATUS, t5
ctr_handler_mret:
    mret

/*
 * long ctr_launch(void *entry, unsigned long mode, unsigned long mctrctl)
 * Enter @entry in @mode (0 U, 1 S; V=0) by mret with mctrctl = @mctrctl
 * and the current mstatus otherwise; the code ends with an ecall (or any
 * trap), which comes back here through a private mtvec.  Returns mcause;
 * ctr_launch_info[4] is mepc.  Callee-saved registers, sp, mstatus and
 * mtvec are restored; mctrctl is left 0.
 */
    .globl  ctr_launch
ctr_launch:
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
    lla     t0, ctr_launch_info
    sd      sp, 0(t0)
    csrr    t1, CSR_MSTATUS
    sd      t1, 8(t0)
    lla     t1, ctr_launch_trap
    csrrw   t1, CSR_MTVEC, t1
    sd      t1, 16(t0)
    csrw    CSR_MEPC, a0
    li      t1, MSTATUS_MPP_ALL | MSTATUS_MPRV_B | MSTATUS_MPV_B
    csrc    CSR_MSTATUS, t1
    slli    a1, a1, MSTATUS_MPP_SHIFT
    csrs    CSR_MSTATUS, a1
    csrw    CSR_MCTRCTL, a2
    mret

    .balign 4
ctr_launch_trap:
    csrw    CSR_MCTRCTL, zero
    lla     t0, ctr_launch_info
    ld      sp, 0(t0)
    csrr    a0, CSR_MCAUSE
    sd      a0, 24(t0)
    csrr    t1, CSR_MEPC
    sd      t1, 32(t0)
    ld      t1, 8(t0)
    csrw    CSR_MSTATUS, t1
    ld      t1, 16(t0)
    csrw    CSR_MTVEC, t1
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
 * void ctr_fill(unsigned long n, unsigned long mctrctl)
 * Writes mctrctl (which must inhibit indirect jumps), enters a run of
 * CTR_FILL_MAX "jal x0, .+4" (direct jumps to the next instruction) so
 * that exactly @n of them execute, then clears mctrctl.  The k-th of the
 * n jumps (k = 0 first) is at ctr_fill_end - 4 * (n - k).
 */
    .globl  ctr_fill, ctr_fill_end
ctr_fill:
    lla     t1, ctr_fill_end
    slli    a0, a0, 2
    sub     t1, t1, a0
    csrw    CSR_MCTRCTL, a1
    jalr    x0, 0(t1)       /* indirect jump (x6, not x1/x5) */
    .rept   CTR_FILL_MAX
    jal     x0, . + 4
    .endr
ctr_fill_end:
    csrw    CSR_MCTRCTL, zero
    ret

/*
 * Entered in U-mode with mstatus.UXL=1 (XLEN 32) by ctr_launch: only
 * instructions that exist in RV32I.  The code is above 2 GiB, so every
 * PC has bit 31 set and must be recorded zero-extended.
 */
    .balign 4
    .globl  ctr_u32_body, u32_ijmp, u32_ijmp_tgt, u32_jmp, u32_jmp_tgt
    .globl  u32_br, u32_br_tgt, u32_ecall
ctr_u32_body:
    lla     t1, u32_ijmp_tgt        /* auipc/addi: sign-extended in RV32 */
u32_ijmp:
    jalr    x0, 0(t1)               /* indirect jump: rs1 is not x1/x5 */
    .4byte  0
u32_ijmp_tgt:
u32_jmp:
    jal     x0, u32_jmp_tgt
    .4byte  0
u32_jmp_tgt:
u32_br:
    beq     zero, zero, u32_br_tgt
    .4byte  0
u32_br_tgt:
u32_ecall:
    ecall
    .4byte  0

/*
 * Entered in S-mode with mstatus.SXL=1, if the hart allows it: writes
 * 0xfffffffe (sign-extended in the register file) to ctrsource and
 * ctrtarget of logical entry 0.  RV32I only.
 */
    .balign 4
    .globl  ctr_s32_body
ctr_s32_body:
    li      t0, 0x200
    csrw    CSR_SISELECT, t0
    li      t0, -2
    csrw    CSR_SIREG, t0
    csrw    CSR_SIREG2, t0
    ecall
    .4byte  0

    .data
    .balign 64
    .globl  ctr_jvt_table
ctr_jvt_table:
    .space  64 * 8

    .bss
    .balign 8
    .globl  ctr_trap_info, ctr_launch_info
ctr_trap_info:              /* mcause, mepc */
    .space  2 * 8
ctr_launch_info:            /* sp, mstatus, mtvec, mcause, mepc */
    .space  5 * 8
