/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cfo-window: a window of a Linux process, read by the process itself
 * at both ends with rdinstret, which counts the instructions the hart
 * retires in every mode (Linux lets user space read it with
 * kernel.perf_user_access = 2, "legacy").  Between the two reads: ROUNDS
 * getppid system calls, so that most of the window is the kernel's.
 * Prints "cfo-window: N", N the difference of the two reads.  Pinned to
 * CPU 0 first, so that both reads are of one hart.  Linked at its own
 * address (tests/linux/meson.build), apart from cfo-loop and cfo-sys.
 *
 * User instructions from the first read to the second, not included,
 * as E-Trace reports them (an ecall retired): the rdinstret, then
 * ROUNDS times li, ecall, addi, bnez.
 */

#define ROUNDS              1000
#define NR_WRITE            64
#define NR_EXIT             93
#define NR_SCHED_SETAFFINITY 122
#define NR_GETPPID          173
#define PREFIX_LEN          12      /* "cfo-window: " */

    .option norvc
    .text
    .globl _start
    .type _start, @function
_start:
    li      a0, 0                   /* this process */
    li      a1, 8
    la      a2, cpu0
    li      a7, NR_SCHED_SETAFFINITY
    ecall
    bnez    a0, .Lfail
    li      s2, ROUNDS
    .globl  cfo_window_start
cfo_window_start:
    rdinstret s0
.Lcall:
    li      a7, NR_GETPPID
    ecall
    addi    s2, s2, -1
    bnez    s2, .Lcall
    .globl  cfo_window_end
cfo_window_end:
    rdinstret s1
    sub     s1, s1, s0

    /* the difference in decimal, before the newline at buf_end */
    la      t0, buf_end
    li      t1, 10
1:  remu    t2, s1, t1
    divu    s1, s1, t1
    addi    t2, t2, '0'
    addi    t0, t0, -1
    sb      t2, 0(t0)
    bnez    s1, 1b
    mv      s3, t0
    li      a0, 1                   /* "cfo-window: " */
    la      a1, prefix
    li      a2, PREFIX_LEN
    li      a7, NR_WRITE
    ecall
    li      a0, 1                   /* the digits and the newline */
    mv      a1, s3
    la      a2, buf_end
    addi    a2, a2, 1
    sub     a2, a2, s3
    li      a7, NR_WRITE
    ecall
    li      a0, 0
    li      a7, NR_EXIT
    ecall
.Lfail:
    li      a0, 1
    li      a7, NR_EXIT
    ecall
    .size _start, . - _start

    .data
    .balign 8
cpu0:
    .dword  1
prefix:
    .ascii  "cfo-window: "
buf:
    .zero   24
buf_end:
    .byte   '\n'
