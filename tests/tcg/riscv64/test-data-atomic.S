/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Atomics as data events, for the data tests
 * (tests/scripts/test-cflow-data.py): every AMO of A on words and
 * doublewords (negative values for max and min, signed and unsigned),
 * an AMO whose rd is its rs2, Zabha's byte and halfword AMOs, LR/SC that
 * succeeds, an SC with no reservation, an SC at another address than its
 * LR, an SC whose word changed since its LR (QEMU's compare fails), an SC
 * whose rd is its rs2, and Zacas compare-and-swap that swaps and that
 * does not, on words, doublewords, bytes and halfwords, and with rd x0
 * (compared with 0, which the word there is not).  Zacas and Zabha
 * are written as .insn (the assembler predates them).  Standalone: no
 * runtime; M-mode; -cpu ...,zacas=on,zabha=on.
 */

#include "data-test.S.inc"

/* AMO opcode 0x2f: funct3 0 byte, 1 half, 2 word, 3 double; funct7 */
#define AMOCAS      0x14
#define AMOADD      0x00
#define AMOSWAP     0x04

    .section .text.start, "ax"
    .globl _start
_start:
    csrr t0, mhartid
    bnez t0, park
    la s0, words
    addi s1, s0, 8
    addi s2, s0, 16
    addi s3, s0, 24

    /* A: every AMO, words and doublewords */
    li a1, 5
    amoswap.w a0, a1, (s0)
    amoadd.w a0, a1, (s0)
    li a1, -3
    amoand.d a0, a1, (s1)
    amoor.d a0, a1, (s1)
    amoxor.w a0, a1, (s0)
    li a1, -7
    amomax.w a0, a1, (s0)
    amomaxu.w a0, a1, (s0)
    amomin.d a0, a1, (s1)
    amominu.d a0, a1, (s1)
    li a2, 9
    amoadd.d a2, a2, (s2)           /* rd is rs2 */

    /* LR/SC */
    lr.w a0, (s0)
    sc.w a3, a1, (s0)               /* succeeds */
    sc.w a3, a1, (s0)               /* no reservation */
    lr.d a0, (s1)
    sc.d a3, a1, (s2)               /* another address */
    lr.d a0, (s1)
    li t0, 77
    sd t0, 0(s1)
    sc.d a3, a1, (s1)               /* the word changed: fails */
    lr.w a0, (s0)
    sc.w a1, a1, (s0)               /* rd is rs2, succeeds */

    /* Zacas: swaps (rd holds the value there), does not */
    lw a0, 0(s0)
    li a1, 0x1234
    .insn r 0x2f, 2, AMOCAS, a0, s0, a1     /* amocas.w: swaps */
    li a0, 1
    .insn r 0x2f, 2, AMOCAS, a0, s0, a1     /* amocas.w: fails */
    ld a4, 0(s3)
    li a5, -1
    .insn r 0x2f, 3, AMOCAS, a4, s3, a5     /* amocas.d: swaps */
    .insn r 0x2f, 3, AMOCAS, a4, s3, a5     /* amocas.d: fails (a4 old) */
    .insn r 0x2f, 2, AMOCAS, x0, s0, a1     /* amocas.w, rd x0: fails */

    /* Zabha: bytes and halfwords */
    li a1, 0x7f
    .insn r 0x2f, 0, AMOADD, a0, s2, a1     /* amoadd.b */
    .insn r 0x2f, 1, AMOSWAP, a0, s2, a1    /* amoswap.h */
    lbu a0, 0(s2)
    .insn r 0x2f, 0, AMOCAS, a0, s2, a1     /* amocas.b: swaps */

    DATA_TEST_PASS

    .data
    .align 4
words:
    .dword 0x8000000180000002, 0xfedcba9876543210
    .dword 0x0102030405060708, 0x1111222233334444
