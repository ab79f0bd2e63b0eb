/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Vector loads and stores, whose helpers report each element access as
 * a data event, for the data tests (tests/scripts/test-cflow-data.py).
 * Standalone: no runtime; M-mode; run with -cpu rv64,v=on (VLEN 128).
 *
 * Unit-stride loads and stores of every element width, strided, indexed
 * (ordered and unordered), segment, masked, whole-register, mask
 * (vlm/vsm), one across a page, a fault-only-first load whose vl is
 * trimmed at an unreadable element, a load faulting at its third element
 * (the two before stay unreported: the instruction does not retire),
 * and vl = 0 (no access).  A trap skips the faulting instruction; the run
 * ends through the test finisher.
 */

#include "data-test.S.inc"
#define MSTATUS_VS  0x600
#define ROM_END     0x10000

    .option arch, +v
    DATA_TEST_START
    li t0, MSTATUS_VS
    csrs mstatus, t0
    la s0, data
    la s1, out

    /* unit-stride, every element width */
    li t0, 16
    vsetvli t1, t0, e8, m1, ta, ma
    .globl vec_start
vec_start:
    vle8.v v1, (s0)
    vse8.v v1, (s1)
    li t0, 8
    vsetvli t1, t0, e16, m1, ta, ma
    vle16.v v2, (s0)
    addi a0, s1, 32
    vse16.v v2, (a0)
    li t0, 4
    vsetvli t1, t0, e32, m1, ta, ma
    vle32.v v3, (s0)
    addi a0, s1, 64
    vse32.v v3, (a0)
    li t0, 2
    vsetvli t1, t0, e64, m1, ta, ma
    vle64.v v4, (s0)
    addi a0, s1, 96
    vse64.v v4, (a0)

    /* strided: every third word, stored every other word */
    li t0, 3
    vsetvli t1, t0, e32, m1, ta, ma
    li a1, 12
    vlse32.v v5, (s0), a1
    li a1, 8
    addi a0, s1, 128
    vsse32.v v5, (a0), a1

    /*
     * indexed: byte offsets 8, 0, 4 (unordered and ordered).  The indexed
     * load's elements are of SEW, which its code does not say: right
     * after the load of 32-bit elements, the stream cannot tell where
     * one's accesses end and the other's start (not tied, the decoder's
     * rule in docs/specs/riscv-trace.rst); after a store, it can.
     */
    la a0, offsets
    .globl vec_ambiguous, vec_ambiguous_end
vec_ambiguous:
    vle32.v v6, (a0)
    vluxei32.v v7, (s0), v6
vec_ambiguous_end:
    addi a0, s1, 160
    vsoxei32.v v7, (a0), v6
    vluxei32.v v7, (s0), v6

    /* segment: 3 pairs of halfwords, into v8 and v9 */
    li t0, 3
    vsetvli t1, t0, e16, m1, ta, ma
    vlseg2e16.v v8, (s0)
    addi a0, s1, 192
    vsseg2e16.v v8, (a0)

    /* masked: elements 0, 2 and 3 of 4 */
    li t0, 4
    vsetvli t1, t0, e32, m1, ta, mu
    li t2, 0xd
    vmv.s.x v0, t2
    vle32.v v10, (s0), v0.t
    addi a0, s1, 224
    vse32.v v10, (a0), v0.t

    /* whole registers: one of 32-bit elements, two of 64-bit */
    vl1re32.v v11, (s0)
    addi a0, s1, 256
    vs1r.v v11, (a0)
    vl2re64.v v12, (s0)
    addi a0, s1, 288
    vs2r.v v12, (a0)

    /* mask load and store (vl = 4: one byte) */
    vlm.v v14, (s0)
    addi a0, s1, 320
    vsm.v v14, (a0)

    /* across a page: 4 words, the last two on the next page */
    li t0, 4
    vsetvli t1, t0, e32, m1, ta, ma
    la a0, page_end
    addi a0, a0, -8
    vle32.v v15, (a0)
    vse32.v v15, (s1)

    /*
     * fault-only-first: the third element is past the end of the boot
     * ROM (0x1000 to 0x10000), where nothing is: vl becomes 2 (1 when a
     * plugin watches memory: QEMU 10.2 then trims vl at the second
     * element, and still loads it)
     */
    li a0, ROM_END - 8
    vle32ff.v v16, (a0)
    /* a scalar access after it */
    ld a2, 0(s0)

    /* a load faulting at its third element: skipped, nothing reported */
    li t0, 4
    vsetvli t1, t0, e32, m1, ta, ma
    vle32.v v17, (a0)

    /* vl = 0: no access */
    vsetvli t1, zero, e32, m1, ta, ma
    li t0, 0
    vsetvli t1, t0, e32, m1, ta, ma
    vle32.v v18, (s0)
    DATA_TEST_PASS

    DATA_TEST_TRAP

    .data
    .align 4
data:
    .byte 0x80, 0x7f, 0x34, 0x92, 0xef, 0xbe, 0xad, 0xde
    .dword 0x8123456789abcdef
    .dword 0x0706050403020100
    .dword 0x0f0e0d0c0b0a0908
offsets:
    .word 8, 0, 4, 12
    .align 4
out:
    .space 512
    .align 12
page_end:
    .space 64
