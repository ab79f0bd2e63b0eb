/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Start code of the trace components' random register campaign
 * (test-trace-fuzz.c; tests/scripts/test-trace-fuzz.py runs it).
 * Standalone, no runtime: every hart runs, in M-mode only, on a stack of
 * its own (fuzz_stacks in test-trace-fuzz.c, STACK_SIZE bytes per hart).
 * No trap is expected: the vector reports one (fuzz_trap, on a small
 * stack of the hart's own, fuzz_trap_stacks) and fails the run through
 * the test finisher.  .bss is not cleared: the machine's RAM is zero when
 * the ELF file is loaded, and the other harts' stacks are in it.
 */

#define MAX_HARTS           8
#define STACK_SIZE          16384
#define TRAP_STACK_SIZE     1024

    .section .text.start, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    csrr a0, mhartid
    li t0, MAX_HARTS
    bgeu a0, t0, park
    la t0, trap_entry
    csrw mtvec, t0
    csrw mie, zero
    csrci mstatus, 0x8              /* MIE: no interrupt ever */
    la sp, fuzz_stacks
    addi t0, a0, 1
    li t1, STACK_SIZE
    mul t0, t0, t1
    add sp, sp, t0
    call fuzz_main
park:
    wfi
    j park

/* Whatever the state, report the trap from a stack that is sane. */
    .align 4
trap_entry:
    csrr a3, mhartid
    li t0, MAX_HARTS
    bgeu a3, t0, park
    la sp, fuzz_trap_stacks
    addi t0, a3, 1
    li t1, TRAP_STACK_SIZE
    mul t0, t0, t1
    add sp, sp, t0
    csrr a0, mcause
    csrr a1, mepc
    csrr a2, mtval
    call fuzz_trap
    j park
