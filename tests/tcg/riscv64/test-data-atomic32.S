/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RV32 atomics as data events, for the data tests
 * (tests/scripts/test-cflow-data.py): word AMOs and LR/SC, and Zacas
 * compare-and-swap of words and of doublewords, whose values are
 * register pairs on RV32 (amocas.d: rd and rd + 1, rs2 and rs2 + 1),
 * swapping and not, and with rd x0 (compared with 0, which the
 * doubleword there is not).  Zacas is written as .insn (the assembler
 * predates it).  Standalone RV32: no runtime; M-mode;
 * -cpu rv32,zacas=on.
 */

#include "data-test.S.inc"

#define AMOCAS      0x14

    DATA_TEST_START
    la s0, words
    addi s1, s0, 8

    li a1, 5
    amoswap.w a0, a1, (s0)
    amoadd.w a0, a1, (s0)
    lr.w a0, (s0)
    sc.w a3, a1, (s0)                       /* succeeds */

    /* amocas.w: swaps, then fails */
    lw a0, 0(s0)
    li a1, 0x1234
    .insn r 0x2f, 2, AMOCAS, a0, s0, a1
    .insn r 0x2f, 2, AMOCAS, a0, s0, a1

    /* amocas.d: a4:a5 compared, a2:a3 stored; swaps, then fails */
    lw a4, 0(s1)
    lw a5, 4(s1)
    li a2, 0x89abcdef
    li a3, 0x01234567
    .insn r 0x2f, 3, AMOCAS, a4, s1, a2
    .insn r 0x2f, 3, AMOCAS, a4, s1, a2
    /* rd x0: compared with 0, fails */
    .insn r 0x2f, 3, AMOCAS, x0, s1, a2

    DATA_TEST_PASS
    DATA_TEST_TRAP

    .data
    .align 3
words:
    .word 7, 0
    .word 0xfedcba98, 0x76543210
