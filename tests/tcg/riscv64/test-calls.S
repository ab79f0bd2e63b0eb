/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Calls whose instruction counts are known from the source, for the
 * outputs etrace-decode makes of calls and returns
 * (tests/scripts/test-etrace-calls.py): every function is straight-line
 * code of single instructions (jal, not call; no pseudo-instruction that
 * expands to two), so that the instructions retired in each are counted
 * here by hand.  M-mode, one hart.
 *
 *   main      14 of its own: calls leaf 3 times, mid 2 times (each
 *             calling leaf 4 times), rec(5), tail_a, sys
 *   leaf      3
 *   mid       9
 *   rec(n)    8 for n > 0 (calls rec(n - 1)), 2 for n = 0
 *   tail_a    2, then jumps to tail_b (a tail call): 2
 *   sys       an ecall (QEMU's record has it executed, as the decoder
 *             does), then a ret: 2; the trap's handler: 4
 */

#include "data-test.S.inc"

    DATA_TEST_START
    lla sp, stack_end
    jal main
    DATA_TEST_PASS

    .text
    .align 2
    .globl main
    .type main, @function
main:
    addi sp, sp, -16
    sd ra, 0(sp)
    jal leaf
    jal leaf
    jal leaf
    jal mid
    jal mid
    li a0, 5
    jal rec
    jal tail_a
    jal sys
    ld ra, 0(sp)
    addi sp, sp, 16
    ret
    .size main, . - main

    .globl leaf
    .type leaf, @function
leaf:
    addi a1, a1, 1
    addi a2, a2, 2
    ret
    .size leaf, . - leaf

    .globl mid
    .type mid, @function
mid:
    addi sp, sp, -16
    sd ra, 0(sp)
    jal leaf
    jal leaf
    jal leaf
    jal leaf
    ld ra, 0(sp)
    addi sp, sp, 16
    ret
    .size mid, . - mid

    .globl rec
    .type rec, @function
rec:
    beqz a0, 1f
    addi sp, sp, -16
    sd ra, 0(sp)
    addi a0, a0, -1
    jal rec
    ld ra, 0(sp)
    addi sp, sp, 16
1:  ret
    .size rec, . - rec

    .globl tail_a
    .type tail_a, @function
tail_a:
    addi a3, a3, 1
    j tail_b
    .size tail_a, . - tail_a

    .globl tail_b
    .type tail_b, @function
tail_b:
    addi a4, a4, 1
    ret
    .size tail_b, . - tail_b

    .globl sys
    .type sys, @function
sys:
    ecall
    ret
    .size sys, . - sys

    /* M-mode trap handler: past the ecall */
    .align 2
    .type trap, @function
trap:
    csrr t0, mepc
    addi t0, t0, 4
    csrw mepc, t0
    mret
    .size trap, . - trap

    .bss
    .align 4
stack:
    .space 4096
stack_end:
