/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two harts at work at the same time, for the trace round trip with
 * -smp 2 (each hart's encoder has its own srcID in the funnelled
 * stream).  Standalone: no runtime.
 *
 * Each hart runs ROUNDS rounds of its own: a counted loop whose length
 * depends on the hart and the round, a direct call, an indirect call
 * through a table, an ecall every 4th round (handled in M-mode: mepc
 * moves past it) and, every 8th round, a stretch in U-mode (mret to it,
 * an ecall back).  Hart 0 sends hart 1 a software interrupt (CLINT MSIP)
 * every 16th round; hart 1 takes it wherever it is (M-mode with MIE set,
 * or U-mode) and clears it.  Hart 1 then says it is done, wakes hart 0
 * with an MSIP of its own and parks in wfi; hart 0 waits for that in wfi
 * (MSIE set, MIE clear: no trap) and ends the run through the test
 * finisher with its pass code.  Few instructions follow the last packet
 * of each hart, which the round trip allows to be missing.
 */

#define CLINT_MSIP  0x02000000
#define FINISHER    0x00100000
#define ROUNDS      64

#define MSTATUS_MIE 0x8
#define MSTATUS_MPP 0x1800
#define MIE_MSIE    0x8

    .section .text.start, "ax"
    .globl _start
_start:
    csrr s11, mhartid
    la t0, trap
    csrw mtvec, t0
    li t0, MIE_MSIE
    csrw mie, t0
    bnez s11, 1f
    /* hart 0: interrupts stay off */
    j 2f
1:  csrsi mstatus, MSTATUS_MIE
2:  li s0, 0                        /* round */

round:
    /* a loop of 3 + (round + 5 * hart) % 7 iterations */
    li t0, 5
    mul t0, t0, s11
    add t0, t0, s0
    li t1, 7
    remu t0, t0, t1
    addi t0, t0, 3
loop:
    addi t0, t0, -1
    bnez t0, loop

    mv a0, s0
    call leaf                       /* direct call, ret uninferable */
    andi t0, s0, 1
    slli t0, t0, 3
    la t1, table
    add t1, t1, t0
    ld t1, 0(t1)
    jalr t1                         /* indirect call */

    andi t0, s0, 3
    bnez t0, 3f
    ecall                           /* cause 11, back after it */
3:
    andi t0, s0, 7
    bnez t0, 4f
    call to_user
4:
    bnez s11, 5f
    andi t0, s0, 15
    bnez t0, 5f
    li t0, CLINT_MSIP + 4           /* hart 1's MSIP */
    li t1, 1
    sw t1, 0(t0)
5:
    addi s0, s0, 1
    li t0, ROUNDS
    bltu s0, t0, round

    bnez s11, done1
    /* hart 0: wait for hart 1, then pass */
    la t0, hart1_done
6:  lw t1, 0(t0)
    bnez t1, 7f
    wfi
    j 6b
7:  li t0, FINISHER
    li t1, 0x5555
    sw t1, 0(t0)
8:  j 8b

done1:
    csrci mstatus, MSTATUS_MIE
    csrw mie, zero                  /* nothing wakes it any more */
    la t0, hart1_done
    li t1, 1
    sw t1, 0(t0)
    li t0, CLINT_MSIP               /* wake hart 0 */
    sw t1, 0(t0)
park:
    wfi
    j park

/* a0 = round: a branch each way, returns a0 * 3 */
leaf:
    andi t2, a0, 2
    beqz t2, 1f
    addi a0, a0, 1
1:  slli t2, a0, 1
    add a0, a0, t2
    ret

even:
    addi a1, a1, 2
    ret

odd:
    addi a1, a1, -1
    j even                          /* tail: returns from even */

/*
 * mret to U-mode at user, which ecalls back (cause 8).  No interrupt
 * between the mepc write and the mret (it would take mepc): MIE off.
 */
to_user:
    csrci mstatus, MSTATUS_MIE
    li t0, MSTATUS_MPP
    csrc mstatus, t0                /* MPP = U */
    la t0, user
    csrw mepc, t0
    mv s10, ra
    mret
user:
    li t0, 4
1:  addi t0, t0, -1
    bnez t0, 1b
    ecall
back:
    mv ra, s10
    beqz s11, 1f
    csrsi mstatus, MSTATUS_MIE      /* hart 1: interrupts on again */
1:  ret

/*
 * Exceptions: an ecall from M-mode resumes after it; one from U-mode
 * resumes at back, in M-mode.  Interrupts: clear this hart's MSIP.
 */
    .align 4
trap:
    csrr t3, mcause
    bltz t3, irq
    li t4, 8
    beq t3, t4, from_user
    csrr t3, mepc
    addi t3, t3, 4
    csrw mepc, t3
    mret
from_user:
    li t3, MSTATUS_MPP
    csrs mstatus, t3                /* MPP = M */
    la t3, back
    csrw mepc, t3
    mret
irq:
    li t3, CLINT_MSIP
    slli t4, s11, 2
    add t3, t3, t4
    sw zero, 0(t3)
    mret

    .section .data
    .align 3
table:
    .dword even, odd
hart1_done:
    .word 0
