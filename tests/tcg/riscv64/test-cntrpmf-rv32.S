/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Smcntrpmf 1.0 on an RV32 hart (-cpu rv32,smcntrpmf=on[,h=on]), a
 * standalone bare-metal program: the rv64 runtime in lib/ cannot run on
 * RV32, so this file brings its own start code, M-mode trap vectors,
 * UART output and virt test finisher exit.
 *
 * Smcntrpmf 1.0, "Machine Counter Configuration Registers":
 * - "For RV32, bits 63:32 of mcyclecfg can be accessed via the
 *   mcyclecfgh CSR, and bits 63:32 of minstretcfg ... via the
 *   minstretcfgh CSR" (0x721, 0x722): the h halves hold OF (bit 31,
 *   "read-only 0, since these counters do not generate local counter
 *   overflow interrupts"), MINH (30), SINH (29), UINH (28), VSINH (27),
 *   VUINH (26); bits 25:0 are WPRI (25:24 "reserved for possible future
 *   modes"), read-only 0 in QEMU (docs/system/riscv/cntrpmf.rst).  VSINH
 *   and VUINH are read-only 0 without the H extension.
 * - the low halves mcyclecfg/minstretcfg (0x321, 0x322) are bits 31:0,
 *   all WPRI: read-only 0 (contract).
 *   Upstream QEMU 10.2.2 keeps OF/WPRI writable (audit S1).
 * Smcntrpmf 1.0, "Counter Behavior": counting does not occur while
 * executing in an inhibited privilege mode, which holds for the whole
 * 64-bit counter, i.e. for BOTH halves minstret/minstreth and
 * mcycle/mcycleh (audit S2: upstream's low half ignores the filter):
 * - M counting (UINH set): a window of k instructions in M advances
 *   minstret by k + 1 (Zicsr: a CSR read of instret reads the value
 *   before itself), across a carry from minstret into minstreth;
 * - MINH set while running in M: both halves keep the value written;
 * - U-mode work entered with mret and left with ecall: with MINH=1,
 *   UINH=0 only the U instructions count ("ecall ... not considered to
 *   retire"; the mret originates in the inhibited M-mode), with UINH=1,
 *   MINH=0 only the M instructions, including the mret.
 * The cycle checks follow the contract for -icount shift=0: every
 * executed instruction is one cycle, a read of mcycle includes the
 * reading instruction, an ecall is a cycle of the calling mode and an
 * mret one of M-mode.
 *
 * Run modes: with -icount shift=0 everything is checked.  Without
 * -icount only the checks that do not depend on the cycle clock run
 * (the instret checks and the inhibited-mcycle checks); the loader tells
 * the program which case it is in with a 64-bit word at 0x80fff000:
 *   -device loader,addr=0x80fff000,data=0x434e54520000000F,data-len=8
 * with F = 1 for -icount shift=0 and F = 0 without -icount.  Without
 * that word the program assumes -icount shift=0.
 *
 * Exit: virt test finisher at 0x100000, 0x5555 for pass and
 * (check number << 16) | 0x3333 with the number of the first failed
 * check; every failed check's number, actual and expected values are
 * printed on the UART, and the program goes on after a failure.
 */

#define CSR_MSTATUS         0x300
#define CSR_MISA            0x301
#define CSR_MEDELEG         0x302
#define CSR_MIDELEG         0x303
#define CSR_MIE             0x304
#define CSR_MTVEC           0x305
#define CSR_MCOUNTINHIBIT   0x320
#define CSR_MCYCLECFG       0x321
#define CSR_MINSTRETCFG     0x322
#define CSR_MCYCLECFGH      0x721
#define CSR_MINSTRETCFGH    0x722
#define CSR_MEPC            0x341
#define CSR_MCAUSE          0x342
#define CSR_PMPCFG0         0x3a0
#define CSR_PMPADDR0        0x3b0
#define CSR_MCYCLE          0xb00
#define CSR_MINSTRET        0xb02
#define CSR_MCYCLEH         0xb80
#define CSR_MINSTRETH       0xb82
#define CSR_MHARTID         0xf14

#define MSTATUS_MPP         0x1800

#define MISA_H              (1 << 7)
#define MISA_S              (1 << 18)
#define MISA_U              (1 << 20)

/* Fields of mcyclecfgh/minstretcfgh: bits 63:58 of the 64-bit register. */
#define CFGH_OF             0x80000000
#define CFGH_MINH           0x40000000
#define CFGH_SINH           0x20000000
#define CFGH_UINH           0x10000000
#define CFGH_VSINH          0x08000000
#define CFGH_VUINH          0x04000000

#define CAUSE_ECALL_U       8

#define VIRT_UART0          0x10000000
#define UART_LSR            5
#define UART_LSR_THRE       0x20
#define VIRT_TEST_FINISHER  0x100000
#define FINISHER_PASS       0x5555
#define FINISHER_FAIL       0x3333

#define MODE_ADDR           0x80fff000
#define MODE_MAGIC          0x434e5452      /* "CNTR", the high word */

#define CHECK_TRAP          99              /* unexpected trap */

/*
 * Registers with a fixed role:
 *   s9  expected value of an all-ones write to mcyclecfgh/minstretcfgh
 *   s10 1 with -icount shift=0 (cycle checks run), 0 without
 *   s8  number of the first failed check, 0 while none failed
 *   s7  number of failed checks
 *   s11 number of checks run
 *   t5, t6, a7, ra used by the CHECK macros
 */

/*
 * Check \got == \exp (registers) as check number \code; a failure is
 * reported and remembered, and the program goes on.
 */
.macro CHECK got, exp, code
    mv      t5, \got
    mv      t6, \exp
    li      a7, \code
    beq     t5, t6, 1001f
    jal     fail
1001:
    addi    s11, s11, 1
.endm

/* Check \got == \imm as check number \code. */
.macro CHECKI got, imm, code
    li      t6, \imm
    CHECK   \got, t6, \code
.endm

.macro NOPS n
    .rept   \n
    nop
    .endr
.endm

    /* 4-byte instructions only, no linker relaxation: exact counts. */
    .option norvc
    .option norelax

    .section .text.start, "ax"
    .globl  _start
_start:
    csrr    t0, CSR_MHARTID
    bnez    t0, park
    la      sp, stack_top
    la      t0, fatal_trap
    csrw    CSR_MTVEC, t0
    csrw    CSR_MIE, zero
    csrw    CSR_MEDELEG, zero
    csrw    CSR_MIDELEG, zero
    /* Let U-mode reach all memory: one NAPOT region over everything. */
    li      t0, -1
    csrw    CSR_PMPADDR0, t0
    li      t0, 0x1f
    csrw    CSR_PMPCFG0, t0
    /* Every counter counts; both filters start clear. */
    csrw    CSR_MCOUNTINHIBIT, zero
    csrw    CSR_MCYCLECFGH, zero
    csrw    CSR_MINSTRETCFGH, zero
    li      s11, 0
    li      s8, 0
    li      s7, 0

    /* Run mode from the loader word (see the header comment). */
    li      s10, 1
    li      t0, MODE_ADDR
    lw      t1, 4(t0)
    li      t2, MODE_MAGIC
    bne     t1, t2, 1f
    lw      s10, 0(t0)
    andi    s10, s10, 1
1:
    la      a0, msg_start
    call    puts
    la      a0, msg_icount
    bnez    s10, 1f
    la      a0, msg_noicount
1:  call    puts

    /*
     * Writable bits of the h halves: MINH always (M-mode exists), SINH
     * with S, UINH with U, VSINH/VUINH with H; OF and 25:0 never.
     */
    csrr    t0, CSR_MISA
    li      s9, CFGH_MINH
    li      t1, MISA_S
    and     t1, t0, t1
    beqz    t1, 1f
    li      t1, CFGH_SINH
    or      s9, s9, t1
1:  li      t1, MISA_U
    and     t1, t0, t1
    beqz    t1, 1f
    li      t1, CFGH_UINH
    or      s9, s9, t1
1:  andi    t1, t0, MISA_H
    beqz    t1, 1f
    li      t1, CFGH_VSINH | CFGH_VUINH
    or      s9, s9, t1
1:

/* ---- Register layout (audit S1) ---- */

    /* 1, 2: all-ones in the h halves keeps exactly the xINH bits. */
    li      t0, -1
    csrw    CSR_MCYCLECFGH, t0
    csrr    a0, CSR_MCYCLECFGH
    CHECK   a0, s9, 1
    csrw    CSR_MINSTRETCFGH, t0
    csrr    a0, CSR_MINSTRETCFGH
    CHECK   a0, s9, 2
    /* 3, 4: the low halves are bits 31:0, all WPRI: read-only 0. */
    csrw    CSR_MCYCLECFG, t0
    csrr    a0, CSR_MCYCLECFG
    CHECKI  a0, 0, 3
    csrw    CSR_MINSTRETCFG, t0
    csrr    a0, CSR_MINSTRETCFG
    CHECKI  a0, 0, 4
    /* 5, 6: OF alone reads 0 (and the xINH bits are written 0). */
    li      t0, CFGH_OF
    csrw    CSR_MCYCLECFGH, t0
    csrr    a0, CSR_MCYCLECFGH
    CHECKI  a0, 0, 5
    csrw    CSR_MINSTRETCFGH, t0
    csrr    a0, CSR_MINSTRETCFGH
    CHECKI  a0, 0, 6
    /* 7, 8: single fields read back as written. */
    li      t0, CFGH_MINH | CFGH_UINH
    csrw    CSR_MCYCLECFGH, t0
    csrr    a0, CSR_MCYCLECFGH
    CHECKI  a0, CFGH_MINH | CFGH_UINH, 7
    csrw    CSR_MINSTRETCFGH, t0
    csrr    a0, CSR_MINSTRETCFGH
    CHECKI  a0, CFGH_MINH | CFGH_UINH, 8
    /* 9: a write of the low half leaves the high half alone. */
    li      t0, -1
    csrw    CSR_MINSTRETCFG, t0
    csrr    a0, CSR_MINSTRETCFGH
    CHECKI  a0, CFGH_MINH | CFGH_UINH, 9

/* ---- minstret in M-mode (audit S2) ---- */

    /* 10: UINH only, M counts: 20 nops between the reads give 21. */
    li      t0, CFGH_UINH
    csrw    CSR_MINSTRETCFGH, t0
    csrr    a0, CSR_MINSTRET
    NOPS    20
    csrr    a1, CSR_MINSTRET
    sub     a0, a1, a0
    CHECKI  a0, 21, 10

    /*
     * 11, 12: carry into the high half.  The last write sets the whole
     * counter to 0x5_fffffff0 (minstret is 0 while minstreth is
     * written, so no carry can depend on how that write counts); the
     * next instruction reads the written value (Zicsr), so the read
     * after 20 nops sees 0x5_fffffff0 + 20 = 0x6_00000004 and the
     * minstreth read one instruction later 0x6_00000005.
     */
    li      t1, 5
    li      t2, 0xfffffff0
    csrw    CSR_MINSTRET, zero
    csrw    CSR_MINSTRETH, t1
    csrw    CSR_MINSTRET, t2
    NOPS    20
    csrr    a0, CSR_MINSTRET
    csrr    a1, CSR_MINSTRETH
    CHECKI  a0, 4, 11
    CHECKI  a1, 6, 12

    /*
     * 13, 14: MINH set while running in M: neither half moves from the
     * value written (0x5_fffffff0), even 20 instructions later.
     */
    li      t0, CFGH_MINH
    csrw    CSR_MINSTRETCFGH, t0
    csrw    CSR_MINSTRET, zero
    csrw    CSR_MINSTRETH, t1
    csrw    CSR_MINSTRET, t2
    NOPS    20
    csrr    a0, CSR_MINSTRET
    csrr    a1, CSR_MINSTRETH
    CHECKI  a0, 0xfffffff0, 13
    CHECKI  a1, 5, 14

    /*
     * 15, 16: clearing MINH does not make the counter jump; the clearing
     * csrw is counted under the previous setting (MINH: not counted),
     * so the read after 20 nops sees 0x5_fffffff0 + 20 = 0x6_00000004.
     */
    csrw    CSR_MINSTRETCFGH, zero
    NOPS    20
    csrr    a0, CSR_MINSTRET
    csrr    a1, CSR_MINSTRETH
    CHECKI  a0, 4, 15
    CHECKI  a1, 6, 16

/* ---- mcycle in M-mode ---- */

    /*
     * 17, 18: MINH set while running in M: a written mcycle stays at the
     * value written in both halves ("continues from where it was
     * written, under the current filter"), with or without -icount.
     */
    li      t0, CFGH_MINH
    csrw    CSR_MCYCLECFGH, t0
    csrw    CSR_MCYCLE, zero
    csrw    CSR_MCYCLEH, t1
    csrw    CSR_MCYCLE, t2
    NOPS    20
    csrr    a0, CSR_MCYCLE
    csrr    a1, CSR_MCYCLEH
    CHECKI  a0, 0xfffffff0, 17
    CHECKI  a1, 5, 18

    beqz    s10, no_icount_m

    /*
     * 19..21: clear MINH; from the first read on, every instruction is
     * one cycle: 40 nops between two reads give 41, carrying into
     * mcycleh.  The first read is 0xfffffff0 + 1 (it includes itself),
     * or + 2 should the clearing csrw count as an M cycle (the contract
     * states "counted under the previous settings" only for instret).
     */
    csrw    CSR_MCYCLECFGH, zero
    csrr    t3, CSR_MCYCLE
    NOPS    40
    csrr    a0, CSR_MCYCLE
    csrr    a1, CSR_MCYCLEH
    sub     t4, a0, t3
    CHECKI  t4, 41, 19
    CHECKI  a1, 6, 20
    addi    t4, t3, 16 - 1          /* t3 - 0xfffffff1 */
    sltiu   t4, t4, 2
    CHECKI  t4, 1, 21

    /* 22: UINH only, M counts: 20 nops between the reads give 21. */
    li      t0, CFGH_UINH
    csrw    CSR_MCYCLECFGH, t0
    csrr    a0, CSR_MCYCLE
    NOPS    20
    csrr    a1, CSR_MCYCLE
    sub     a0, a1, a0
    CHECKI  a0, 21, 22

    /*
     * 23, 24: carry into mcycleh with UINH set: 41 cycles from the first
     * read of a counter written to 0x5_ffffffe0 cross 2^32.
     */
    li      t2, 0xffffffe0
    csrw    CSR_MCYCLE, zero
    csrw    CSR_MCYCLEH, t1
    csrw    CSR_MCYCLE, t2
    csrr    t3, CSR_MCYCLE
    NOPS    40
    csrr    a0, CSR_MCYCLE
    csrr    a1, CSR_MCYCLEH
    sub     t4, a0, t3
    CHECKI  t4, 41, 23
    CHECKI  a1, 6, 24

no_icount_m:

/* ---- U-mode work entered with mret, left with ecall ---- */

    /*
     * 25..29: MINH=1, UINH=0 for both counters.  Both are written in the
     * inhibited M-mode to 0x7_ffffff80 and keep that value until U-mode
     * runs.  U runs u_loop with a1 = 100: 200 retired instructions, then
     * an ecall that does not retire; the mret and the trap handler run
     * in the inhibited M-mode.  instret: 0x7_ffffff80 + 200 =
     * 0x8_00000048.  cycle (-icount shift=0): 200 instructions plus the
     * ecall's cycle, which belongs to U: 0x7_ffffff80 + 201 =
     * 0x8_00000049.
     */
    li      t0, CFGH_MINH
    csrw    CSR_MINSTRETCFGH, t0
    csrw    CSR_MCYCLECFGH, t0
    li      t1, 7
    li      t2, 0xffffff80
    csrw    CSR_MINSTRET, zero
    csrw    CSR_MINSTRETH, t1
    csrw    CSR_MINSTRET, t2
    csrw    CSR_MCYCLE, zero
    csrw    CSR_MCYCLEH, t1
    csrw    CSR_MCYCLE, t2
    li      a1, 100
    la      a0, u_loop
    call    run_u
    CHECKI  a0, CAUSE_ECALL_U, 25
    csrr    a0, CSR_MINSTRET
    csrr    a1, CSR_MINSTRETH
    CHECKI  a0, 0x48, 26
    CHECKI  a1, 8, 27
    beqz    s10, 1f
    csrr    a0, CSR_MCYCLE
    csrr    a1, CSR_MCYCLEH
    CHECKI  a0, 0x49, 28
    CHECKI  a1, 8, 29
1:

    /*
     * 30..32: UINH=1, MINH=0.  Between the first minstret read (s0) and
     * the last (s3) M retires: the csrr of s0, the csrr of s1, the mret
     * (it originates in M) and the csrr of s2; s3 reads before itself;
     * the U instructions and the ecall do not count: 4.  Cycles between
     * the mcycle reads s1 and s2 (each includes itself): the mret (M)
     * and the read of s2; U's 200 instructions and its ecall are
     * inhibited: 2.
     */
    li      t0, CFGH_UINH
    csrw    CSR_MINSTRETCFGH, t0
    csrw    CSR_MCYCLECFGH, t0
    li      a1, 100
    la      t1, u_loop
    la      t3, u_vec_uinh
    li      t2, MSTATUS_MPP
    csrw    CSR_MTVEC, t3
    csrw    CSR_MEPC, t1
    csrc    CSR_MSTATUS, t2
    csrr    s0, CSR_MINSTRET
    csrr    s1, CSR_MCYCLE
    mret
    .balign 4
u_vec_uinh:
    csrr    s2, CSR_MCYCLE
    csrr    s3, CSR_MINSTRET
    la      t0, fatal_trap
    csrw    CSR_MTVEC, t0
    csrr    a0, CSR_MCAUSE
    CHECKI  a0, CAUSE_ECALL_U, 30
    sub     a0, s3, s0
    CHECKI  a0, 4, 31
    beqz    s10, 1f
    sub     a0, s2, s1
    CHECKI  a0, 2, 32
1:

/* ---- done ---- */
    csrw    CSR_MINSTRETCFGH, zero
    csrw    CSR_MCYCLECFGH, zero
    bnez    s8, failed
    la      a0, msg_pass
    call    puts
    mv      a0, s11
    call    putdec
    la      a0, msg_checks
    call    puts
    li      t0, VIRT_TEST_FINISHER
    li      t1, FINISHER_PASS
    sw      t1, 0(t0)
park:
    wfi
    j       park

/*
 * U-mode workload: a1 iterations of two instructions, then ecall.
 * Touches a1 only.
 */
u_loop:
    addi    a1, a1, -1
    bnez    a1, u_loop
    ecall
1:  j       1b

/*
 * run_u(a0 = U-mode entry, a1 = its argument): enter U-mode at a0 with
 * mret; the U code's ecall comes back through u_vec, which returns to
 * the caller with a0 = mcause.  The U code leaves ra, t4 and sp alone.
 */
run_u:
    csrr    t4, CSR_MTVEC
    la      t0, u_vec
    csrw    CSR_MTVEC, t0
    csrw    CSR_MEPC, a0
    li      t0, MSTATUS_MPP
    csrc    CSR_MSTATUS, t0
    mret
    .balign 4
u_vec:
    csrw    CSR_MTVEC, t4
    csrr    a0, CSR_MCAUSE
    ret

/* Any trap not expected by the program. */
    .balign 4
fatal_trap:
    la      a0, msg_trap
    call    puts
    csrr    a0, CSR_MCAUSE
    call    puthex
    la      a0, msg_epc
    call    puts
    csrr    a0, CSR_MEPC
    call    puthex
    la      a0, msg_nl
    call    puts
    li      a7, CHECK_TRAP
    j       finish_fail

/*
 * A check failed: a7 = its number, t5 = actual, t6 = expected value.
 * Called with jal (ra); preserves every register but ra.
 */
fail:
    addi    sp, sp, -32
    sw      ra, 28(sp)
    sw      a0, 24(sp)
    sw      t0, 20(sp)
    sw      t1, 16(sp)
    bnez    s8, 1f
    mv      s8, a7
1:  addi    s7, s7, 1
    la      a0, msg_fail
    call    puts
    mv      a0, a7
    call    putdec
    la      a0, msg_got
    call    puts
    mv      a0, t5
    call    puthex
    la      a0, msg_expected
    call    puts
    mv      a0, t6
    call    puthex
    la      a0, msg_nl
    call    puts
    lw      t1, 16(sp)
    lw      t0, 20(sp)
    lw      a0, 24(sp)
    lw      ra, 28(sp)
    addi    sp, sp, 32
    ret

/* End of the run with s8 = the first failed check. */
failed:
    la      a0, msg_failed
    call    puts
    mv      a0, s7
    call    putdec
    la      a0, msg_of
    call    puts
    mv      a0, s11
    call    putdec
    la      a0, msg_checks
    call    puts
    mv      a7, s8
finish_fail:
    slli    a7, a7, 16
    li      t0, FINISHER_FAIL
    or      a7, a7, t0
    li      t0, VIRT_TEST_FINISHER
    sw      a7, 0(t0)
    j       park

/* putc(a0): clobbers t0, t1. */
putc:
    li      t0, VIRT_UART0
1:  lbu     t1, UART_LSR(t0)
    andi    t1, t1, UART_LSR_THRE
    beqz    t1, 1b
    sb      a0, 0(t0)
    ret

/* puts(a0 = NUL-terminated string). */
puts:
    addi    sp, sp, -16
    sw      ra, 12(sp)
    sw      s0, 8(sp)
    mv      s0, a0
1:  lbu     a0, 0(s0)
    beqz    a0, 2f
    call    putc
    addi    s0, s0, 1
    j       1b
2:  lw      s0, 8(sp)
    lw      ra, 12(sp)
    addi    sp, sp, 16
    ret

/* puthex(a0): "0x" and 8 hex digits. */
puthex:
    addi    sp, sp, -16
    sw      ra, 12(sp)
    sw      s0, 8(sp)
    sw      s1, 4(sp)
    mv      s0, a0
    li      s1, 28
    li      a0, '0'
    call    putc
    li      a0, 'x'
    call    putc
1:  srl     a0, s0, s1
    andi    a0, a0, 15
    li      t0, 10
    blt     a0, t0, 2f
    addi    a0, a0, 'a' - '0' - 10
2:  addi    a0, a0, '0'
    call    putc
    addi    s1, s1, -4
    bgez    s1, 1b
    lw      s1, 4(sp)
    lw      s0, 8(sp)
    lw      ra, 12(sp)
    addi    sp, sp, 16
    ret

/* putdec(a0): unsigned decimal. */
putdec:
    addi    sp, sp, -32
    sw      ra, 28(sp)
    sw      s0, 24(sp)
    addi    s0, sp, 12              /* digits from 22(sp) downwards */
    sb      zero, 11(s0)
    addi    s0, s0, 11
    li      t1, 10
1:  remu    t0, a0, t1
    divu    a0, a0, t1
    addi    t0, t0, '0'
    addi    s0, s0, -1
    sb      t0, 0(s0)
    bnez    a0, 1b
    mv      a0, s0
    call    puts
    lw      s0, 24(sp)
    lw      ra, 28(sp)
    addi    sp, sp, 32
    ret

    .section .rodata
msg_start:
    .asciz  "test-cntrpmf-rv32: "
msg_icount:
    .asciz  "-icount shift=0 mode, all checks\r\n"
msg_noicount:
    .asciz  "no -icount mode, cycle-clock checks skipped\r\n"
msg_pass:
    .asciz  "PASS: "
msg_checks:
    .asciz  " checks, 0 failed, exit code 0\r\n"
msg_fail:
    .asciz  "FAIL check "
msg_failed:
    .asciz  "FAIL: "
msg_of:
    .asciz  " failed of "
msg_got:
    .asciz  ": got "
msg_expected:
    .asciz  ", expected "
msg_trap:
    .asciz  "FAIL: unexpected trap, mcause "
msg_epc:
    .asciz  " mepc "
msg_nl:
    .asciz  "\r\n"

    .bss
    .balign 16
    .space  4096
stack_top:
