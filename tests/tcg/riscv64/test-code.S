/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Code that changes as it runs, for the code side stream (virt's
 * trace-code option): a decoder given that stream and no program image
 * must follow exactly what QEMU ran.  Standalone: no runtime.
 *
 * 1. A loop that patches its own first instruction every round, between
 *    a nop and a jump over the instruction after it, with only a
 *    conditional branch back: no packet between a patch and the run of
 *    the patched code, the new code runs a few branches after the old.
 * 2. A "JIT": functions copied in turn into one buffer and called
 *    through it (a different length and branch each time).
 * 3. Two user programs at the same virtual address (0x200000), each in
 *    its own address space (Sv39, a 2 MiB page at different physical
 *    addresses, ASID 1 for A and 2 for B): the M-mode handler of their
 *    ecalls switches satp and runs the other, several times.
 * Then the test finisher says pass.  Assembled with -DUSER_ONLY, only
 * part 3 runs (test-code-user.elf).
 */

#define FINISHER    0x00100000
#define SMC_ROUNDS  40
#define JIT_ROUNDS  6
#define USER_ROUNDS 8
#define USER_VA     0x200000
#define USER_PA_A   0x80400000
#define USER_PA_B   0x80600000
#define SATP_SV39   (8 << 60)
#define SATP_ASID_SHIFT 44
/* PTE bits: V, R, X, U, A, D */
#define PTE_V       0x01
#define PTE_RXU_AD  (0x01 | 0x02 | 0x08 | 0x10 | 0x40 | 0x80)
#define MSTATUS_MPP 0x1800

    .section .text.start, "ax"
    .globl _start
_start:
    la t0, trap
    csrw mtvec, t0
#ifdef USER_ONLY
    /* Part 3 alone (test-code-user.elf: its code never changes). */
    j user_spaces
#endif

    /* 1: the loop that patches itself */
    la s1, patch
    lw t0, tmpl_nop
    lw t1, tmpl_jump
    xor t2, t0, t1
    li s0, SMC_ROUNDS
    li a0, 0
    .option push
    .option norvc
    .balign 4
smc_loop:
patch:
    nop                             /* or: j smc_skip */
    addi a0, a0, 1
    .option pop
smc_skip:
    lw t0, 0(s1)
    xor t0, t0, t2
    sw t0, 0(s1)
    fence.i
    addi s0, s0, -1
    bnez s0, smc_loop

    /* 2: functions copied into one buffer and called there */
    li s0, 0
jit_loop:
    andi t0, s0, 1
    la a1, func_a
    la a2, func_a_end
    beqz t0, 1f
    la a1, func_b
    la a2, func_b_end
1:  la a3, jit_buf
    call copy
    fence.i
    mv a0, s0
    la t0, jit_buf
    jalr t0
    addi s0, s0, 1
    li t0, JIT_ROUNDS
    bltu s0, t0, jit_loop

    /* 3: two address spaces, one virtual address */
user_spaces:
    la a1, prog_a
    la a2, prog_a_end
    li a3, USER_PA_A
    call copy
    la a1, prog_b
    la a2, prog_b_end
    li a3, USER_PA_B
    call copy
    la a0, root_a
    la a1, l1_a
    li a2, USER_PA_A
    call map_user
    la a0, root_b
    la a1, l1_b
    li a2, USER_PA_B
    call map_user
    fence.i
    /* PMP: U-mode may use all of memory (NAPOT, RWX) */
    li t0, -1
    csrw pmpaddr0, t0
    li t0, 0x1f
    csrw pmpcfg0, t0
    li s0, 0                        /* programs run */
    li t0, MSTATUS_MPP
    csrc mstatus, t0                /* MPP = U */
    j run_next

done:
    li t0, FINISHER
    li t1, 0x5555
    sw t1, 0(t0)
1:  j 1b

/* Copy [a1, a2) to a3, words. */
copy:
    lw t0, 0(a1)
    sw t0, 0(a3)
    addi a1, a1, 4
    addi a3, a3, 4
    bltu a1, a2, copy
    ret

/*
 * Address space at root a0 with level-1 table a1: the 2 MiB page at
 * USER_VA is the one at physical a2, user code.
 */
map_user:
    srli t0, a1, 12
    slli t0, t0, 10
    ori t0, t0, PTE_V
    sd t0, 0(a0)                    /* root[0] -> l1 */
    srli t0, a2, 12
    slli t0, t0, 10
    ori t0, t0, PTE_RXU_AD
    sd t0, (USER_VA >> 21) * 8(a1)  /* l1[1]: the 2 MiB page */
    ret

/*
 * Run program A (even s0) or B (odd) in U-mode at USER_VA, in its own
 * address space; its ecall comes back to trap.
 */
run_next:
    li t0, USER_ROUNDS
    bgeu s0, t0, done
    andi t0, s0, 1
    addi t2, t0, 1                  /* ASID: 1 for A, 2 for B */
    slli t2, t2, SATP_ASID_SHIFT
    la t1, root_a
    beqz t0, 1f
    la t1, root_b
1:  srli t1, t1, 12
    li t0, SATP_SV39
    or t1, t1, t0
    or t1, t1, t2
    csrw satp, t1
    sfence.vma
    li t0, USER_VA
    csrw mepc, t0
    addi s0, s0, 1
    mret

    .balign 4
trap:
    csrr t0, mcause
    li t1, 8                        /* ecall from U */
    beq t0, t1, run_next
1:  j 1b                            /* anything else: the test hangs */

/* Templates: never run where they are. */
    .option push
    .option norvc
    .balign 4
tmpl_nop:
    nop
tmpl_jump:
    j . + 8
    .option pop

    .balign 4
func_a:
    addi a0, a0, 1
    ret
func_a_end:

    .balign 4
func_b:
    beqz a0, 1f
    addi a0, a0, 2
    addi a0, a0, 3
1:  ret
    nop
func_b_end:

    .balign 4
prog_a:
    li t0, 5
1:  addi a0, a0, 1
    addi t0, t0, -1
    bnez t0, 1b
    ecall
prog_a_end:

    .balign 4
prog_b:
    li t0, 3
1:  andi t1, t0, 1
    beqz t1, 2f
    addi a0, a0, 2
2:  addi t0, t0, -1
    bnez t0, 1b
    j 3f
    nop
3:  ecall
prog_b_end:

    .data
    .balign 4
jit_buf:
    .space 64
    .balign 4096
root_a:
    .space 4096
l1_a:
    .space 4096
root_b:
    .space 4096
l1_b:
    .space 4096
