/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Atomics of two harts on one word at once, for the data tests
 * (tests/scripts/test-cflow-data.py): each hart adds 1 to the word
 * ROUNDS times in each of three ways, amoadd.w, an LR/SC loop (its SC
 * failing when the other hart got in between) and a compare-and-swap
 * loop (its amocas.w failing likewise), both starting together; then
 * hart 0 waits for hart 1 and checks the word.  Under MTTCG the harts
 * run at once: each access is traced once, with the value the hart
 * read.  Standalone: no runtime; M-mode; -smp 2, -cpu ...,zacas=on.
 */

#include "data-test.S.inc"

#define AMOCAS      0x14
#define ROUNDS      2000

/* Waiting: a few reads, not one per instruction (t2) */
.macro DELAY
    li t2, 1000
9:  addi t2, t2, -1
    bnez t2, 9b
.endm

    .section .text.start, "ax"
    .globl _start
_start:
    csrr s11, mhartid
    li t0, 2
    bgeu s11, t0, park
    la s0, counter
    la s1, done
    li s2, ROUNDS
    li a1, 1
    /* both start together */
    la t1, ready
    amoadd.w a5, a1, (t1)
0:  DELAY
    lw a0, 0(t1)
    li t0, 2
    bne a0, t0, 0b
1:
    amoadd.w a5, a1, (s0)
2:  lr.w a0, (s0)
    addi a0, a0, 1
    sc.w a2, a0, (s0)
    bnez a2, 2b
3:  lw a0, 0(s0)
    addi a3, a0, 1
    mv a4, a0
    .insn r 0x2f, 2, AMOCAS, a4, s0, a3     /* amocas.w a4, a3, (s0) */
    bne a4, a0, 3b
    addi s2, s2, -1
    bnez s2, 1b

    amoadd.w a5, a1, (s1)
    bnez s11, park
4:  DELAY
    lw a0, 0(s1)
    li t0, 2
    bne a0, t0, 4b
    lw a0, 0(s0)
    li t0, 2 * 3 * ROUNDS
    bne a0, t0, fail
    DATA_TEST_PASS

fail:
    li t0, FINISHER
    li t1, 0x13333
    sw t1, 0(t0)
    j park

    .data
    .align 6
counter:
    .word 0
    .align 6
done:
    .word 0
    .align 6
ready:
    .word 0
