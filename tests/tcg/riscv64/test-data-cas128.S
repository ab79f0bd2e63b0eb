/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * 16-byte compare-and-swap (amocas.q, RV64 Zacas) as data events, for
 * the data tests (tests/scripts/test-cflow-data.py): its values are
 * register pairs (rd and rd + 1 compared, rs2 and rs2 + 1 stored, the
 * low doubleword in the even register).  Swapping and not, values whose
 * high doubleword is or is not the sign of the low one, rd x0 (compared
 * with 0) and rs2 x0 (stores 0: the guest checks it, and fails through
 * the test finisher if not), and a misaligned one that faults (not
 * traced).  Loads, stores and smaller atomics around them, which split
 * signalling (data-split=on) also sends as requests and data phases.
 * Zacas is written as .insn (the assembler predates it).  M-mode;
 * -cpu rv64,zacas=on.
 */

#include "data-test.S.inc"

#define AMOCAS      0x14
#define AMOCAS_Q(rd, rs1, rs2)  .insn r 0x2f, 4, AMOCAS, rd, rs1, rs2

    DATA_TEST_START
    la s0, quads
    addi s1, s0, 16

    /* a load, a store and an amoadd.d of 8 bytes, an amoswap.w */
    ld a0, 0(s0)
    sd a0, 32(s0)
    li a1, 3
    amoadd.d a0, a1, (s1)
    addi t0, s0, 40
    amoswap.w a0, a1, (t0)

    /* a2:a3 compared, a4:a5 stored: swaps, fails, swaps the same */
    ld a2, 0(s0)
    ld a3, 8(s0)
    li a4, 0x89abcdef01234567
    li a5, -2
    AMOCAS_Q(a2, s0, a4)
    AMOCAS_Q(a2, s0, a4)
    ld a2, 0(s0)
    ld a3, 8(s0)
    AMOCAS_Q(a2, s0, a4)

    /* a high doubleword that is the low one's sign, then one that is not */
    li a4, -5
    li a5, -1
    AMOCAS_Q(a2, s0, a4)
    li a4, 0x7fffffffffffffff
    li a5, -1
    ld a2, 0(s0)
    ld a3, 8(s0)
    AMOCAS_Q(a2, s0, a4)

    /* rd x0: compared with 0, which the quadword is not */
    AMOCAS_Q(x0, s1, a4)
    /*
     * rs2 x0: compared with the quadword, stores 0 (QEMU 10.2.2 stored
     * the quadword the one with rd x0 read: the guest fails then)
     */
    ld a2, 0(s1)
    ld a3, 8(s1)
    AMOCAS_Q(a2, s1, x0)
    ld t1, 0(s1)
    ld t2, 8(s1)
    or t1, t1, t2
    bnez t1, fail

    /* misaligned: faults, nothing traced; then a load */
    addi t0, s0, 8
    AMOCAS_Q(a2, t0, a4)
    ld a0, 16(s0)

    DATA_TEST_PASS
fail:
    li t0, FINISHER
    li t1, 0x13333                          /* exit code 1 */
    sw t1, 0(t0)
    j fail
    DATA_TEST_TRAP

    .data
    .align 4
quads:
    .dword 0x1122334455667788, 0x99aabbccddeeff00
    .dword 0x0123456789abcdef, 0x8000000000000000
    .dword 0, 0
