/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Jumps whose target an auipc just before them computes: with the
 * encoder's sequentially inferable jumps on, the round trip decodes them
 * without the packets that report their targets.  Standalone: no
 * runtime.  (lui cannot reach code at 0x80000000 on RV64: it
 * sign-extends; the decoder's own cases cover lui and c.lui.)  Each of
 * ROUNDS rounds runs:
 *
 *  - a call through auipc ra + jalr ra (the callee returns with ret);
 *  - a jump through auipc + jalr x0, and one through auipc + c.jr;
 *  - an auipc as the last instruction of a page and the jalr through it
 *    as the first of the next (translation blocks end at page
 *    boundaries: the block of the jalr learns of the auipc at run time);
 *  - jalr through a register auipc and addi loaded (the addi just
 *    before it), and through one an auipc loaded just before a second
 *    auipc into another register: uninferable both;
 *  - a jump to a jalr whose register was loaded before the jump;
 *  - a counted loop, and an ecall between an auipc and the jalr through
 *    it (the handler returns to the jalr: not retired consecutively).
 */

#define FINISHER    0x00100000
#define ROUNDS      40

    .option norelax
    .option norvc
    .section .text.start, "ax"
    .globl _start
_start:
    la t0, trap
    csrw mtvec, t0
    li s0, 0

round:
1:  auipc ra, %pcrel_hi(callee)
    jalr ra, %pcrel_lo(1b)(ra)

2:  auipc t2, %pcrel_hi(3f)
    jalr x0, %pcrel_lo(2b)(t2)
    nop
3:  auipc t3, %pcrel_hi(4f)
    addi t3, t3, %pcrel_lo(3b)
    jalr x0, 0(t3)
    nop
4:  auipc t4, %pcrel_hi(5f)
    auipc t5, 0
    jalr x0, %pcrel_lo(4b)(t4)
    nop
5:  auipc t1, 1                     /* 5b + 4096 */
    .option push
    .option rvc
    c.jr t1
    .option pop
    .skip 4096 - 6
    call across_page

14: auipc t6, %pcrel_hi(7f)
    addi t6, t6, %pcrel_lo(14b)
    j 6f
6:  jalr x0, 0(t6)
    nop
7:  li t0, 5
8:  addi t0, t0, -1
    bnez t0, 8b

9:  auipc t1, %pcrel_hi(10f)
    ecall
    jalr x0, %pcrel_lo(9b)(t1)
    nop
10: addi s0, s0, 1
    li t0, ROUNDS
    blt s0, t0, round

    li t0, FINISHER
    li t1, 0x5555
    sw t1, 0(t0)
11: j 11b

callee:
    addi a0, a0, 1
    ret

trap:
    csrr t0, mepc
    addi t0, t0, 4
    csrw mepc, t0
    mret

    /* the auipc in the last word of a page, the jalr in the first */
    .balign 4096
    .skip 4096 - 12
across_page:
    nop
    nop
12: auipc t2, %pcrel_hi(13f)
    jalr x0, %pcrel_lo(12b)(t2)
    nop
13: ret
