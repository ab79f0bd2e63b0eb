/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Linux user programs whose retired instruction counts follow from the
 * ISA alone (no C library, no relocation, no stack): what perf stat -e
 * instructions:u reports for them is known exactly.  An ecall raises an
 * exception and does not retire (Zicntr: instructions that raise a
 * synchronous exception, ECALL included, are not counted as retired).
 *
 * cfo-loop (default): a loop of LOOPS rounds, then exit:
 *     2 + 2 * LOOPS + 2 = 2000004 instructions in U-mode.
 * cfo-sys (-DSYSCALLS_ONLY): SYSCALLS getppid system calls, then exit:
 *     2 + 3 * SYSCALLS + 2 = 300004 instructions in U-mode, and the
 *     kernel's work for each call in S-mode.
 */

#define LOOPS       1000000
#define SYSCALLS    100000
#define NR_GETPPID  173
#define NR_EXIT     93

    .option norvc
    .text
    .globl _start
    .type _start, @function
_start:
#ifdef SYSCALLS_ONLY
    lui     t0, %hi(SYSCALLS)
    addi    t0, t0, %lo(SYSCALLS)
.Lcall:
    li      a7, NR_GETPPID
    ecall                       /* t0 survives: only a0 is written */
    addi    t0, t0, -1
    bnez    t0, .Lcall
#else
    lui     t0, %hi(LOOPS)
    addi    t0, t0, %lo(LOOPS)
.Lloop:
    addi    t0, t0, -1
    bnez    t0, .Lloop
#endif
    li      a0, 0
    li      a7, NR_EXIT
    ecall
    .size _start, . - _start
