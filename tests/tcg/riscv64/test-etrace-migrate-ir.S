/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guest of migrate-etrace-options-v21 (test-etrace-migrate.py):
 * implicit return state that must survive a migration.  Standalone: no
 * runtime, M-mode.  It prints "READY loop LO HI", then runs ROUNDS rounds
 * of 100 calls to a leaf (implicit returns, no branch in between) and a
 * return to its link + 4 (mispredicted): with protocol 2.1 the packet
 * that reports that return's target carries irets 100, the implicit
 * returns the encoder counted since the last branch, so the count is in
 * the state the harness migrates at almost any moment.  Then it prints
 * the PASS line and stops QEMU through the test finisher.
 */

#define UART        0x10000000
#define FINISHER    0x00100000
#define ROUNDS      200000
#define STACK_TOP   0x80100000

    .option norelax
    .option norvc
    .section .text.start, "ax"
    .globl _start
_start:
    li sp, STACK_TOP
    la a0, ready
    jal ra, puts
    la a0, loop
    jal ra, puthex
    li a0, ' '
    jal ra, putc
    la a0, loop_end
    jal ra, puthex
    li a0, '\n'
    jal ra, putc

    li s0, ROUNDS
loop:
    .rept 100
    jal ra, leaf
    .endr
    jal ra, skip_ret
    nop                             /* skipped */
    addi s0, s0, -1
loop_end:
    bnez s0, loop

    la a0, pass
    jal ra, puts
    li t1, FINISHER
    li t2, 0x5555
    sw t2, 0(t1)
1:  j 1b

leaf:
    addi a1, a1, 1
    ret

skip_ret:
    addi ra, ra, 4
    ret

/* putc(a0), puts(a0: string), puthex(a0: "0x" and 16 digits) */
putc:
    li t0, UART
    sb a0, 0(t0)
    ret

puts:
    li t0, UART
1:  lbu t1, 0(a0)
    beqz t1, 2f
    sb t1, 0(t0)
    addi a0, a0, 1
    j 1b
2:  ret

puthex:
    li t0, UART
    li t1, '0'
    sb t1, 0(t0)
    li t1, 'x'
    sb t1, 0(t0)
    li t2, 60
1:  srl t1, a0, t2
    andi t1, t1, 15
    addi t1, t1, '0'
    li t3, '9'
    ble t1, t3, 2f
    addi t1, t1, 'a' - '0' - 10
2:  sb t1, 0(t0)
    addi t2, t2, -4
    bgez t2, 1b
    ret

    .section .rodata
ready:
    .asciz "READY loop "
pass:
    .asciz "PASS: 0 checks, 0 failed, exit code 0\n"
