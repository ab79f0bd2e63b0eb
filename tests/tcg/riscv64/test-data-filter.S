/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Data trace filters at work, for tests/scripts/test-cflow-data.py
 * --data-filters: the host writes at CFG_ADDR the word CFG_MAGIC, then
 * (register offset, value) pairs of hart 0's encoder, ended by CFG_END.
 * The guest, traced from reset with data trace implemented but off
 * (riscv-trace-encoder.data-start=off), writes the registers, turns data
 * tracing on (the store at data_on_store: data is traced from the
 * instruction after it, as the jump after it ends the block), and runs
 * the workload: loads and stores of every size, from the program and
 * from two functions (data_fn_a, data_fn_b, each ending at its _end
 * label), to two buffers (data_buf, other_buf).  Standalone, M-mode;
 * the run ends through the test finisher.
 */

#include "data-test.S.inc"

#define ENCODER         0x3020000
#define TE_DATA_CONTROL 0x010
#define DATA_TRACING    (1 << 1)
#define CFG_ADDR        0x80f00000
#define CFG_MAGIC       0x44464c54      /* "DFLT" */
#define CFG_END         0xffffffff

    DATA_TEST_START
    la s0, data_buf
    la s1, other_buf

    /* the host's register writes */
    li t0, CFG_ADDR
    lwu t1, 0(t0)
    li t2, CFG_MAGIC
    bne t1, t2, on
    li t2, CFG_END
    li t3, ENCODER
1:  lwu t1, 4(t0)
    beq t1, t2, on
    lwu t4, 8(t0)
    add t1, t1, t3
    sw t4, 0(t1)
    addi t0, t0, 8
    j 1b

on:
    li t3, ENCODER
    lw t1, TE_DATA_CONTROL(t3)
    ori t1, t1, DATA_TRACING
    .globl data_on_store
data_on_store:
    sw t1, TE_DATA_CONTROL(t3)
    j workload

workload:
    lb a0, 0(s0)
    sb a0, 0(s1)
    lh a1, 2(s0)
    sh a1, 2(s1)
    call data_fn_a
    lw a2, 4(s0)
    sw a2, 4(s1)
    ld a3, 8(s0)
    sd a3, 8(s1)
    call data_fn_b
    /* twice, as a loop: the latch cases see an address again */
    li s2, 2
2:  lhu a4, 16(s1)
    sd a4, 24(s0)
    ld a5, 24(s1)
    sw a5, 28(s0)
    addi s2, s2, -1
    bnez s2, 2b
    DATA_TEST_PASS

    .globl data_fn_a, data_fn_a_end
data_fn_a:
    ld t0, 16(s0)
    sd t0, 16(s1)
    lbu t1, 1(s1)
    sb t1, 32(s0)
    lwu t2, 4(s1)
data_fn_a_end:
    ret

    .globl data_fn_b, data_fn_b_end
data_fn_b:
    lw t0, 8(s1)
    sh t0, 40(s0)
    ld t1, 0(s0)
    sw t1, 24(s1)
data_fn_b_end:
    ret

    DATA_TEST_TRAP

    .data
    .align 6
    .globl data_buf
data_buf:
    .byte 0x80, 0x7f, 0x34, 0x92, 0xef, 0xbe, 0xad, 0xde
    .dword 0x8123456789abcdef
    .dword 0x0706050403020100
    .space 64 - 24
    .globl other_buf
other_buf:
    .space 64
