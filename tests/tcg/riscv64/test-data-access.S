/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loads and stores of every kind the control-flow pipeline reports as
 * data events, for the data tests (tests/scripts/test-cflow-data.py),
 * which compare them with QEMU's own record of memory accesses.
 * Standalone: no runtime; M-mode.
 *
 * Integer loads of every width and sign, stores of every width from
 * registers with high bits set, the compressed forms (sp-based too),
 * floating-point loads and stores (F, D, Zfh, compressed), hypervisor
 * loads and stores (hlv, hlvx, hsv, run in M-mode), unaligned
 * accesses and one across a page, a load that faults with accesses
 * before it in its block (the block is cut, those accesses stay), and a
 * straight run of 80 loads (a block holds at most
 * RISCV_CFLOW_TB_DATA_MAX data events).  A trap skips the faulting
 * instruction; the run ends through the test finisher.
 */

#include "data-test.S.inc"
#define MSTATUS_FS  0x6000

    .option arch, +zfh, +h
    DATA_TEST_START
    li t0, MSTATUS_FS
    csrs mstatus, t0
    la sp, stack_top
    la s0, data
    /* hlv/hsv access as VS/VU: one PMP region over everything */
    li t0, -1
    csrw pmpaddr0, t0
    li t0, 0x1f
    csrw pmpcfg0, t0

    /* integer loads: every width, signed and unsigned */
    lb a0, 0(s0)
    lbu a1, 0(s0)
    lh a2, 2(s0)
    lhu a3, 2(s0)
    lw a4, 4(s0)
    lwu a5, 4(s0)
    ld a6, 8(s0)

    /* stores of every width; only their low bytes are written */
    li t0, -2
    sb t0, 16(s0)
    li t0, 0x12345678abcd8765
    sh t0, 18(s0)
    sw t0, 20(s0)
    sd t0, 24(s0)

    /* compressed forms, and sp-based ones */
    mv a0, s0
    c.lw a1, 4(a0)
    c.ld a2, 8(a0)
    c.sw a1, 32(a0)
    c.sd a2, 40(a0)
    c.sdsp a2, 0(sp)
    c.swsp a1, 8(sp)
    c.ldsp a3, 0(sp)
    c.lwsp a4, 8(sp)

    /* floating point: F, D, Zfh, compressed */
    flw ft0, 4(s0)
    fld ft1, 8(s0)
    flh ft2, 2(s0)
    fsw ft0, 48(s0)
    fsd ft1, 56(s0)
    fsh ft2, 64(s0)
    mv a0, s0
    c.fld fa0, 8(a0)
    c.fsd fa0, 72(a0)
    c.fsdsp fa0, 16(sp)
    c.fldsp fa1, 16(sp)

    /* hypervisor loads and stores (bare translation: the same bytes) */
    hlv.w a0, (s0)
    hlv.bu a1, (s0)
    hlv.d a2, (s0)
    mv a3, s0
    hlv.hu a3, (a3)                 /* rd is rs1 */
    addi a4, s0, 88
    hsv.w a0, (a4)
    hsv.d a2, (a4)
    la a5, _start
    hlvx.wu a5, (a5)

    /* unaligned, and across a page */
    lw a0, 1(s0)
    ld a1, 3(s0)
    sh t0, 81(s0)
    sd t0, 85(s0)
    la a0, page_end
    ld a1, -4(a0)
    sd t0, -2(a0)

    /* accesses, then a load that faults, in one block */
    ld a0, 0(s0)
    sd a0, 96(s0)
    li a1, 8
    ld a2, 0(a1)                    /* access fault: skipped */
    lw a3, 4(s0)

    /* a straight run of loads, longer than a block may report */
    .rept 80
    ld a0, 8(s0)
    .endr

    DATA_TEST_PASS

    DATA_TEST_TRAP

    .data
    .align 12
data:
    .byte 0x80, 0x7f, 0x34, 0x92, 0xef, 0xbe, 0xad, 0xde
    .dword 0x8123456789abcdef
    .space 4096 - 16
page_end:
    .space 4096
    .align 4
    .space 256
stack_top:
