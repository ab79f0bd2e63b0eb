/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the encoder's branch predictor, jump target cache and return
 * stack decide, made visible in the stream.  Standalone: no runtime,
 * M-mode, no traps, no calls before the last phase.  Three phases, in
 * this order (the round trip's --expect-format0 works out the format 0
 * packets of the first two from QEMU's record, from reset to the
 * symbol etrace_format0_end):
 *
 *  - branches: PASSES passes of a loop, each 40
 *    not-taken branches (predicted from the start: an entry begins at
 *    01), the branch X with the outcome of bit P of X_PATTERN in pass P,
 *    and a loop-closing beqz taken only at the end.  The 41 branches
 *    between two runs of X are foreseen, so X always comes while the
 *    encoder counts (format 0.0), and its prediction decides whether the
 *    count goes on or ends.  X's outcomes: T twice (the second is
 *    foreseen only from an entry that began at 01, not 00), T N T (after
 *    one failure a 2-bit entry still predicts taken, a 1-bit one does
 *    not), T N T N ... alternating, T T N N (the second N), then taken;
 *    X, the closing branch and the 40 others sit in different entries
 *    (X and the closing branch at addresses 4 mod 8, the others at 0 mod
 *    8), which a one-entry predictor mixes up.
 *  - jumps (to etrace_format0_end): "jr" to the targets of jtc_table, three
 *    functions 128 bytes apart (the same jump target cache entry: address
 *    bits 6:1), each jumping back through "jr s6"; the order A A B B A B
 *    A C C A makes an entry be replaced and found again.  The targets
 *    are 512 KiB from the jumps, so an address costs more than a cache
 *    index.
 *  - calls: recursion 24 deep (past the 16-entry return stack) from two
 *    call sites chosen by the bits of a mask, so the return addresses of
 *    the levels differ; three masks.  A stack that keeps the oldest 16
 *    calls instead of the newest predicts other returns.
 */

#define FINISHER    0x00100000
#define PASSES      40
/* bit P: X taken in pass P; LSB first: T T T N T N T N T N T N T T N N N
 * then taken */
#define X_PATTERN   0xfffffffffffe3557
#define DEPTH       24
#define STACK_TOP   0x80100000

    .option norelax
    .option norvc
    .section .text.start, "ax"
    .globl _start
_start:
    li sp, STACK_TOP
    li s4, X_PATTERN
    li s3, PASSES
    j pass

    .balign 128
pass:
    .rept 40
    bne zero, zero, 9f
    nop
9:
    .endr
    andi t0, s4, 1                  /* 8 mod 8 */
    srli s4, s4, 1
    nop
branch_x:
    bnez t0, 1f                     /* 4 mod 8 */
    nop
1:  addi s3, s3, -1
    nop
loop_end:
    beqz s3, bp_done                /* 4 mod 8 */
    j pass
bp_done:
    nop

    /* jumps through the cache */
    la s5, jtc_table
    la s6, jtc_back
jtc_back:
    ld t1, 0(s5)
    beqz t1, jtc_done
    addi s5, s5, 8
    jr t1
jtc_done:
    .globl etrace_format0_end
etrace_format0_end:
    nop

    /* recursion past the return stack, links from two call sites */
    li s7, 0x00b3c5a7
    call rec_start
    li s7, 0x00f0f00f
    call rec_start
    li s7, 0x005a3cc3
    call rec_start

    li t1, FINISHER
    li t2, 0x5555
    sw t2, 0(t1)
4:  j 4b

rec_start:
    addi sp, sp, -16
    sd ra, 8(sp)
    li a0, DEPTH
    jal ra, rec
    ld ra, 8(sp)
    addi sp, sp, 16
    ret

/* rec(a0): a0 levels; the call to the next level from site A or B by bit
 * a0 of s7 */
rec:
    addi sp, sp, -16
    sd ra, 8(sp)
    addi a0, a0, -1
    beqz a0, 2f
    srl t0, s7, a0
    andi t0, t0, 1
    bnez t0, 1f
    jal ra, rec                     /* site A */
    j 2f
1:  jal ra, rec                     /* site B */
2:  ld ra, 8(sp)
    addi sp, sp, 16
    ret

    .section .rodata
    .balign 8
jtc_table:
    .dword target_a, target_a, target_b, target_b, target_a, target_b
    .dword target_a, target_c, target_c, target_a, 0

    /* 512 KiB on: the targets, 128 bytes apart */
    .section .text.far, "ax"
    .skip 0x80000
    .balign 128
target_a:
    addi a1, a1, 1
    jr s6
    .balign 128
target_b:
    addi a2, a2, 1
    jr s6
    .balign 128
target_c:
    addi a3, a3, 1
    jr s6
