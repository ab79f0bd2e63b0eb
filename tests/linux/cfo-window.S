/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cfo-window: a window of a Linux process, read by the process itself
 * at both ends with rdinstret.  The process opens its own perf event on
 * instructions, system-wide on CPU 0 and pinned, with the privileges to
 * leave out that its argument says ("u": the kernel's, exclude_kernel;
 * "k": user space's, exclude_user; none: none), and maps it, so that
 * Linux (kernel.perf_user_access = 1, its default) lets it read the
 * counter; it requires the event to be on instret (the mapped page's
 * index 3), the counter whose modes Smcntrpmf's minstretcfg filters
 * (OpenSBI sets UINH or SINH from the event, and MINH always).  Between
 * the two reads: ROUNDS getppid system calls, so that most of the window
 * is the kernel's.  Prints "cfo-window: N", N the difference of the two
 * reads.  Pinned to CPU 0 first, so that both reads are of one hart.
 * Linked at its own address (tests/linux/meson.build), apart from
 * cfo-loop and cfo-sys.
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
#define NR_MMAP             222
#define NR_PERF_EVENT_OPEN  241
#define PREFIX_LEN          12      /* "cfo-window: " */

/* struct perf_event_attr (uapi/linux/perf_event.h): its first 64 bytes */
#define ATTR_SIZE           64
#define ATTR_FLAGS          40
#define PINNED              (1 << 2)
#define EXCLUDE_USER        (1 << 4)
#define EXCLUDE_KERNEL      (1 << 5)
#define EXCLUDE_HV          (1 << 6)
/* struct perf_event_mmap_page: the counter's index + 1, 0 if none */
#define PAGE_INDEX          12
#define INSTRET_INDEX       3       /* counter 2, instret */

    .option norvc
    .text
    .globl _start
    .type _start, @function
_start:
    /* the privileges the event leaves out, from argv[1] */
    ld      t0, 0(sp)               /* argc */
    li      s4, PINNED
    li      t1, 2
    blt     t0, t1, 1f
    ld      t2, 16(sp)              /* argv[1] */
    lbu     t2, 0(t2)
    li      s4, PINNED | EXCLUDE_KERNEL | EXCLUDE_HV
    li      t1, 'u'
    beq     t2, t1, 1f
    li      s4, PINNED | EXCLUDE_USER | EXCLUDE_HV
    li      t1, 'k'
    beq     t2, t1, 1f
    j       .Lfail
1:  la      t0, attr
    sd      s4, ATTR_FLAGS(t0)

    li      a0, 0                   /* this process */
    li      a1, 8
    la      a2, cpu0
    li      a7, NR_SCHED_SETAFFINITY
    ecall
    bnez    a0, .Lfail

    la      a0, attr                /* perf_event_open(&attr, -1, 0, -1, 0) */
    li      a1, -1
    li      a2, 0
    li      a3, -1
    li      a4, 0
    li      a7, NR_PERF_EVENT_OPEN
    ecall
    bltz    a0, .Lfail
    mv      a4, a0                  /* the fd */
    li      a0, 0                   /* mmap(0, 4096, READ, SHARED, fd, 0) */
    li      a1, 4096
    li      a2, 1
    li      a3, 1
    li      a5, 0
    li      a7, NR_MMAP
    ecall
    li      t0, -4096
    bgeu    a0, t0, .Lfail
    lwu     t0, PAGE_INDEX(a0)
    li      t1, INSTRET_INDEX
    bne     t0, t1, .Lnot_instret
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
.Lnot_instret:
    li      a0, 2
    la      a1, not_instret
    la      a2, not_instret_end
    sub     a2, a2, a1
    li      a7, NR_WRITE
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
attr:
    .word   0                       /* type: PERF_TYPE_HARDWARE */
    .word   ATTR_SIZE
    .dword  1                       /* config: PERF_COUNT_HW_INSTRUCTIONS */
    .zero   ATTR_SIZE - 16          /* the flags set at _start */
prefix:
    .ascii  "cfo-window: "
not_instret:
    .ascii  "cfo-window: the event is not on instret\n"
not_instret_end:
buf:
    .zero   24
buf_end:
    .byte   '\n'
