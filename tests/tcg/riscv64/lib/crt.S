/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Start code and trap vectors of the bare-metal guest test runtime.
 *
 * One trap entry macro serves the three levels a test can take traps at:
 * M-mode (mtvec), HS/S-mode (stvec while V=0) and VS-mode (vstvec, seen
 * as stvec while V=1).  Each saves all registers plus epc/status/cause/
 * tval into a struct rt_frame on its own trap stack (found through the
 * level's scratch CSR), calls rt_trap(level, frame) and returns with the
 * frame's epc and status, which handlers may change.
 */

#include "rt-asm.h"

    .section .text.start, "ax"
    .globl _start
_start:
    /*
     * Hart 0 runs the program.  Hart 1 waits for work from it
     * (rt_start_hart1); any other hart parks.
     */
    csrr    t0, mhartid
    bnez    t0, secondary
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      sp, rt_stack_top
    la      t0, rt_mtrap_entry
    csrw    mtvec, t0
    la      t0, rt_mtrap_stack_top
    csrw    mscratch, t0
    /* Clear .bss. */
    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    sd      zero, 0(t0)
    addi    t0, t0, 8
    j       1b
2:  call    rt_start
    /* rt_start does not return. */

/*
 * Hart 1 sleeps until hart 0 stores a function in rt_hart1_fn and sends
 * it a software interrupt (taken as a wake-up only: MIE stays clear),
 * then runs the function on its own stacks, beyond .bss (link.ld).
 */
secondary:
    li      t1, 1
    bne     t0, t1, park
    li      t0, RT_MIE_MSIE
    csrw    mie, t0
1:  wfi
    lla     t0, rt_hart1_fn
    ld      t1, 0(t0)
    beqz    t1, 1b
    li      t0, RT_CLINT_MSIP1
    sw      zero, 0(t0)
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      sp, rt_hart1_stack_top
    la      t0, rt_mtrap_entry
    csrw    mtvec, t0
    la      t0, rt_hart1_trap_stack_top
    csrw    mscratch, t0
    jalr    t1
park:
    wfi
    j       park

/*
 * TRAP_ENTRY name, level, scratch, epc, status, cause, tval, ret
 * The trapped sp is parked in the scratch CSR while the frame is built.
 */
.macro TRAP_ENTRY name, level, scratch, epc, status, cause, tval, ret
    .align  4
    .globl  \name
\name:
    csrrw   sp, \scratch, sp
    addi    sp, sp, -RT_FRAME_SIZE
    sd      x1, 1 * 8(sp)
    sd      x3, 3 * 8(sp)
    sd      x4, 4 * 8(sp)
    sd      x5, 5 * 8(sp)
    sd      x6, 6 * 8(sp)
    sd      x7, 7 * 8(sp)
    sd      x8, 8 * 8(sp)
    sd      x9, 9 * 8(sp)
    sd      x10, 10 * 8(sp)
    sd      x11, 11 * 8(sp)
    sd      x12, 12 * 8(sp)
    sd      x13, 13 * 8(sp)
    sd      x14, 14 * 8(sp)
    sd      x15, 15 * 8(sp)
    sd      x16, 16 * 8(sp)
    sd      x17, 17 * 8(sp)
    sd      x18, 18 * 8(sp)
    sd      x19, 19 * 8(sp)
    sd      x20, 20 * 8(sp)
    sd      x21, 21 * 8(sp)
    sd      x22, 22 * 8(sp)
    sd      x23, 23 * 8(sp)
    sd      x24, 24 * 8(sp)
    sd      x25, 25 * 8(sp)
    sd      x26, 26 * 8(sp)
    sd      x27, 27 * 8(sp)
    sd      x28, 28 * 8(sp)
    sd      x29, 29 * 8(sp)
    sd      x30, 30 * 8(sp)
    sd      x31, 31 * 8(sp)
    csrr    t0, \scratch
    sd      t0, 2 * 8(sp)
    csrr    t0, \epc
    sd      t0, RT_FRAME_EPC(sp)
    csrr    t0, \status
    sd      t0, RT_FRAME_STATUS(sp)
    csrr    t0, \cause
    sd      t0, RT_FRAME_CAUSE(sp)
    csrr    t0, \tval
    sd      t0, RT_FRAME_TVAL(sp)
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    li      a0, \level
    mv      a1, sp
    call    rt_trap
    /* Restore: the scratch CSR gets the trap stack top back. */
    ld      t0, RT_FRAME_EPC(sp)
    csrw    \epc, t0
    ld      t0, RT_FRAME_STATUS(sp)
    csrw    \status, t0
    addi    t0, sp, RT_FRAME_SIZE
    csrw    \scratch, t0
    ld      x1, 1 * 8(sp)
    ld      x3, 3 * 8(sp)
    ld      x4, 4 * 8(sp)
    ld      x5, 5 * 8(sp)
    ld      x6, 6 * 8(sp)
    ld      x7, 7 * 8(sp)
    ld      x8, 8 * 8(sp)
    ld      x9, 9 * 8(sp)
    ld      x10, 10 * 8(sp)
    ld      x11, 11 * 8(sp)
    ld      x12, 12 * 8(sp)
    ld      x13, 13 * 8(sp)
    ld      x14, 14 * 8(sp)
    ld      x15, 15 * 8(sp)
    ld      x16, 16 * 8(sp)
    ld      x17, 17 * 8(sp)
    ld      x18, 18 * 8(sp)
    ld      x19, 19 * 8(sp)
    ld      x20, 20 * 8(sp)
    ld      x21, 21 * 8(sp)
    ld      x22, 22 * 8(sp)
    ld      x23, 23 * 8(sp)
    ld      x24, 24 * 8(sp)
    ld      x25, 25 * 8(sp)
    ld      x26, 26 * 8(sp)
    ld      x27, 27 * 8(sp)
    ld      x28, 28 * 8(sp)
    ld      x29, 29 * 8(sp)
    ld      x30, 30 * 8(sp)
    ld      x31, 31 * 8(sp)
    ld      sp, 2 * 8(sp)
    \ret
.endm

    .text
    TRAP_ENTRY rt_mtrap_entry, RT_LEVEL_M, mscratch, mepc, mstatus, \
               mcause, mtval, mret
    TRAP_ENTRY rt_strap_entry, RT_LEVEL_HS, sscratch, sepc, sstatus, \
               scause, stval, sret
    /* In VS-mode the s* CSRs are the vs* CSRs. */
    TRAP_ENTRY rt_vstrap_entry, RT_LEVEL_VS, sscratch, sepc, sstatus, \
               scause, stval, sret

/*
 * Entered with mret/sret by rt_call_in_mode: a0 = function, a1 = argument.
 * Calls the function in the new mode and hands its result back to the
 * caller's mode through an ecall that M-mode intercepts.
 */
    .globl  rt_mode_trampoline
rt_mode_trampoline:
    mv      t0, a0
    mv      a0, a1
    jalr    t0
    mv      a1, a0
    li      a7, RT_ECALL_RETURN
    ecall
    /* Not reached. */
1:  j       1b

/* long rt_ecall(long a7, long a0, long a1, long a2) */
    .globl  rt_ecall
rt_ecall:
    mv      a7, a0
    mv      a0, a1
    mv      a1, a2
    mv      a2, a3
    ecall
    ret

    /* Set by rt_start_hart1() before hart 1 is woken. */
    .data
    .align  3
    .globl  rt_hart1_fn
rt_hart1_fn:
    .dword  0

    .bss
    .align  4
    .space  RT_STACK_SIZE
    .globl  rt_stack_top
rt_stack_top:
    .space  RT_TRAP_STACK_SIZE
    .globl  rt_mtrap_stack_top
rt_mtrap_stack_top:
    .space  RT_TRAP_STACK_SIZE
    .globl  rt_strap_stack_top
rt_strap_stack_top:
    .space  RT_TRAP_STACK_SIZE
    .globl  rt_vstrap_stack_top
rt_vstrap_stack_top:
