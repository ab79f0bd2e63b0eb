/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Calls and returns for the encoder's implicit return mode: the round
 * trip decodes them with the option on, alone and with the others.
 * Standalone: no runtime, M-mode.  Each of ROUNDS rounds runs:
 *
 *  - the same leaf function twice in a row, no branch in between, the
 *    second call faulting at the load the first one passed: the report
 *    of the instruction before the fault must not stop a decoder in the
 *    first call;
 *  - the same twice, then an ecall;
 *  - recursion 20 deep (past the 16-entry return stack), a branch per
 *    level on the way down, none on the way up, a fault in the way up at
 *    level 5: the same instructions at several depths;
 *  - a return to its link + 4 (mispredicted) after a trap, and one right
 *    after an implicit return at the same depth;
 *  - the same mispredicted return three times in a loop (its target
 *    reported with irdepth 1, 2, 3; from the jump target cache when it
 *    is on);
 *  - calls through jalr and c.jalr (2-byte link), returns by c.jr;
 *  - a call with the link in t0 and a return through it (x5 is not a
 *    link to the return stack);
 *  - a longjmp-style return two frames up;
 *  - jalr x0, imm(ra) right after an auipc ra (a return, sequentially
 *    inferable too);
 *  - an ecall inside a leaf (the trap empties the return stack);
 *  - a call through a register to a function that only returns, then an
 *    ecall: the packet reports the jump target, a return, and the next
 *    one the ecall right after it (in 2.1 irets counts that return,
 *    which a decoder popped on reaching it: C11 of
 *    docs/etrace-decoder-pseudocode.md).
 *
 * The trap handler steps over the instruction that trapped (4 bytes) and
 * uses t6 only.
 */

#define FINISHER    0x00100000
#define ROUNDS      6
#define BAD_ADDR    0x200           /* nothing there: access fault */
#define STACK_TOP   0x80100000

    .option norelax
    .option norvc
    .section .text.start, "ax"
    .globl _start
_start:
    la t6, trap
    csrw mtvec, t6
    li sp, STACK_TOP
    la s1, _start                   /* a word that loads */
    li s2, BAD_ADDR
    li s0, 0

round:
    /* the same leaf twice; the second faults at the load */
    mv a0, s1
    jal ra, leaf_load
    mv a0, s2
    jal ra, leaf_load

    /* the same leaf twice, then an ecall */
    jal ra, leaf
    jal ra, leaf
    ecall

    /* recursion past the return stack, a fault at level 5 going up */
    li a0, 20
    jal ra, rec

    /* after the trap above: a failed return with nothing before it */
    ecall
    jal ra, skip_ret
    nop                             /* skipped */
    /* and one at the depth of the implicit return just before it */
    jal ra, leaf
    jal ra, skip_ret
    nop                             /* skipped */

    /* the same failed return three times: depths 1, 2, 3 */
    ecall
    li s3, 3
1:  jal ra, skip_ret
    nop                             /* skipped */
    addi s3, s3, -1
    bnez s3, 1b

    /* calls through registers, returns by c.jr */
    la a5, leaf_c
    jalr ra, 0(a5)
    .option push
    .option rvc
    c.jalr a5
    c.nop
    .option pop

    /* a link in t0 */
    jal t0, t0_leaf

    /* longjmp-style: back two frames at once */
    jal ra, outer

    /* a return sequentially inferable too */
    jal ra, leaf
2:  auipc ra, %pcrel_hi(3f)
    jalr x0, %pcrel_lo(2b)(ra)
    nop
3:
    /* a trap inside a leaf */
    jal ra, leaf_ecall

    /* a call to a lone return, through a register, then an ecall */
    la a5, just_ret
    jalr ra, 0(a5)
    ecall

    addi s0, s0, 1
    li t1, ROUNDS
    blt s0, t1, round

    li t1, FINISHER
    li t2, 0x5555
    sw t2, 0(t1)
4:  j 4b

leaf:
    addi a1, a1, 1
    addi a2, a2, 2
    ret

leaf_load:
    addi a1, a1, 1
    ld t1, 0(a0)
    addi a2, a2, 2
    ret

leaf_c:
    addi a1, a1, 3
    .option push
    .option rvc
    c.jr ra
    c.nop                           /* keeps what follows 4-aligned */
    .option pop

leaf_ecall:
    addi a1, a1, 1
    ecall
    addi a2, a2, 2
    ret

just_ret:
    ret

t0_leaf:
    addi a3, a3, 1
    jalr x0, 0(t0)

skip_ret:
    addi ra, ra, 4
    ret

/* rec(a0): a0 levels; the level whose a0 is 5 faults on its way up */
rec:
    addi sp, sp, -16
    sd ra, 8(sp)
    sd a0, 0(sp)
    addi a0, a0, -1
    beqz a0, 1f
    jal ra, rec
1:  ld a0, 0(sp)
    xori t1, a0, 5
    seqz t1, t1
    sub t2, s2, s1
    mul t2, t2, t1
    add t2, t2, s1
    ld t3, 0(t2)
    ld ra, 8(sp)
    addi sp, sp, 16
    ret

/* outer calls inner, inner calls jumper, which returns to outer's caller */
outer:
    addi sp, sp, -16
    sd ra, 8(sp)
    mv s4, sp
    jal ra, inner
    ld ra, 8(sp)                    /* not reached */
    addi sp, sp, 16
    ret

inner:
    addi sp, sp, -16
    sd ra, 8(sp)
    jal ra, jumper
    ld ra, 8(sp)                    /* not reached */
    addi sp, sp, 16
    ret

jumper:
    mv sp, s4
    ld ra, 8(sp)
    addi sp, sp, 16
    ret

trap:
    csrr t6, mepc
    addi t6, t6, 4
    csrw mepc, t6
    mret
