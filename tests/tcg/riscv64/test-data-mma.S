/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zcmp push and pop, which make several data accesses each, for the
 * data tests (tests/scripts/test-cflow-data.py, test-cflow-log.py): a
 * cm.push and a cm.popret that complete, then a cm.push whose third
 * store faults: it does not retire, and the two stores it made before
 * are taken back (riscv_cf_unwind()), as are the accesses before it in
 * its block kept.  Standalone: no runtime; M-mode; -cpu ...,zcmp=on,
 * zcd=off.
 *
 * The fault: a locked PMP entry with no permission covers 16 bytes
 * (hole), so that M-mode stores there fault; sp is 32 bytes above it.
 * cm.push {ra, s0-s2} stores s2 at sp - 8, s1 at sp - 16 (both above the
 * hole), then s0 at sp - 24, in the hole.
 */

#include "data-test.S.inc"
/* cm.push {ra, s0-s2}, -32 and cm.popret {ra, s0-s2}, 32 (Zcmp) */
#define CM_PUSH_RA_S2   .2byte 0xb872
#define CM_POPRET_RA_S2 .2byte 0xbe72

    DATA_TEST_START
    la sp, stack_top
    li s0, 0x1111
    li s1, -2
    li s2, 0x3333333333333333

    call pushed                     /* a push and a popret */

    /* the hole: pmpaddr0 NAPOT 16 bytes, locked, no permission */
    la t0, hole
    srli t0, t0, 2
    ori t0, t0, 1
    csrw pmpaddr0, t0
    li t0, 0x98
    csrw pmpcfg0, t0

    la sp, hole
    addi sp, sp, 32
    la s3, data
    ld a0, 0(s3)                    /* accesses before it in its block */
    sd a0, 8(s3)
    CM_PUSH_RA_S2                   /* faults on its third store */
    ld a1, 8(s3)

    DATA_TEST_PASS

pushed:
    CM_PUSH_RA_S2
    li s0, 0
    CM_POPRET_RA_S2

    DATA_TEST_TRAP

    .data
    .align 4
data:
    .dword 0x0123456789abcdef, 0
    .align 4
hole:
    .space 16
    .space 16
    .space 1024
stack_top:
