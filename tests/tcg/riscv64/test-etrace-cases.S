/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small programs traced by the E-Trace encoder of the virt machine, one
 * trace segment each: the guest switches instruction tracing on right
 * before a case and off right after it.  test-etrace-cases.expect gives
 * the packets each case must produce, worked out by hand from the E-Trace
 * 2.0 text; tests/scripts/test-etrace-expect.py compares.
 *
 * Tracing starts and stops between translation blocks, and QEMU ends a
 * block after an access to a device: the first traced instruction is the
 * one after the store of TRACE_ON, the last one the store of TRACE_OFF,
 * labelled <case>_off.
 *
 * Standalone (no runtime): M-mode; the trap handler "trap" resumes at a5
 * in M-mode after an exception and returns after an interrupt.
 */

#define ENC         0x03020000
#define FUNNEL      0x03012000
#define PIB         0x03011000
#define CLINT_MSIP  0x02000000
#define FINISHER    0x00100000

/* trTeControl: Active, Enable, resync by packets every 2^(8+4). */
#define TE_BASE     (1 | 2 | (1 << 16) | (8 << 20))
#define TE_TRACING  4
#define TE_SYNC(mode, max)  (1 | 2 | ((mode) << 16) | ((max) << 20))

.macro TRACE_ON ctrl=(TE_BASE | TE_TRACING)
    li t6, \ctrl
    sw t6, 0(s0)
.endm

.macro TRACE_OFF name, ctrl=TE_BASE
    li t6, \ctrl
\name\()_off:
    sw t6, 0(s0)
.endm

/* A counted loop of \n conditional branches: taken \n - 1 times. */
.macro BRANCHES name, n
    li a0, \n
    TRACE_ON
\name:
    addi a0, a0, -1
    bnez a0, \name
    TRACE_OFF \name
.endm

    .option norelax
    .section .text.start, "ax"
    .globl _start
_start:
    .option norvc
    lla t0, trap
    csrw mtvec, t0
    /* S and U reach all memory. */
    li t0, -1
    csrw pmpaddr0, t0
    li t0, 0x1f
    csrw pmpcfg0, t0
    csrw satp, zero
    csrw medeleg, zero
    csrw mideleg, zero

    /* Sink, funnel, then encoder: released from reset and enabled. */
    li t0, PIB
    li t1, 1
    sw t1, 0(t0)
    li t1, 0x30a3               /* Active, Enable, 4-bit, AsyncFreq 3 */
    sw t1, 0(t0)
    li t0, FUNNEL
    li t1, 1
    sw t1, 0(t0)
    li t1, 3
    sw t1, 0(t0)
    li s0, ENC
    li t1, 1
    sw t1, 0(s0)
    sw zero, 8(s0)              /* differential addresses */
    li t1, TE_BASE
    sw t1, 0(s0)

    /* Branch maps of each size, a full map, and one more. */
    BRANCHES map1, 1
    BRANCHES map2, 2
    BRANCHES map5, 5
    BRANCHES map12, 12
    BRANCHES map20, 20
    BRANCHES map31, 31
    BRANCHES map32, 32

    /* An uninferable jump whose target is followed by an ecall. */
    lla a1, jt_target
    lla a5, jt_resume
    TRACE_ON
jt_start:
    jalr zero, 0(a1)
    nop
jt_target:
    nop
jt_ecall:
    ecall
jt_resume:
    TRACE_OFF jt

    /* ebreak and c.ebreak retire and are reported themselves. */
    lla a5, eb_resume
    TRACE_ON
eb_start:
    nop
eb_ebreak:
    ebreak
eb_resume:
    lla a5, ceb_resume
    .option rvc
ceb_ebreak:
    c.ebreak
    .option norvc
ceb_resume:
    TRACE_OFF eb

    /* An illegal instruction does not retire. */
    lla a5, ill_resume
    TRACE_ON
ill_start:
    nop
ill_last:
    nop
ill_insn:
    .4byte 0
ill_resume:
    TRACE_OFF ill

    /* A load access fault on the first instruction of a block. */
    li a2, 8
    lla a5, lf_resume
    TRACE_ON
lf_start:
    nop
lf_branch:
    beq zero, zero, lf_block
    nop
lf_block:
    ld t0, 0(a2)
lf_resume:
    TRACE_OFF lf

    /* A store access fault. */
    li a2, 8
    lla a5, sf_resume
    TRACE_ON
sf_start:
    nop
sf_last:
    nop
sf_store:
    sd zero, 0(a2)
sf_resume:
    TRACE_OFF sf

    /* An instruction access fault at the target of an uninferable jump. */
    li a1, 8
    lla a5, ff_resume
    TRACE_ON
ff_start:
    nop
ff_jump:
    jalr zero, 0(a1)
ff_resume:
    TRACE_OFF ff

    /*
     * The same fault after "jalr zero, 8(zero)": its target is the
     * constant in its encoding, an inferable jump.
     */
    lla a5, jx_resume
    TRACE_ON
jx_start:
    nop
jx_jump:
    jalr zero, 8(zero)
jx_resume:
    TRACE_OFF jx

    /*
     * A machine software interrupt with a taken branch not yet reported:
     * raised by the store to MSIP, taken right after it (QEMU ends the
     * block after a device access).
     */
    li t0, 8
    csrs mie, t0                /* MSIE */
    csrs mstatus, t0            /* MIE */
    li t5, CLINT_MSIP
    li t4, 1
    TRACE_ON
irq_start:
    nop
irq_branch:
    beq zero, zero, irq_store
    nop
irq_store:
    sw t4, 0(t5)
irq_target:
    nop
    TRACE_OFF irq
    li t0, 8
    csrc mstatus, t0
    csrc mie, t0

    /* M -> S (mret) -> U (sret) -> M (ecall). */
    li t0, 3 << 11
    csrc mstatus, t0
    li t0, 1 << 11
    csrs mstatus, t0            /* MPP = S */
    li t0, 1 << 8
    csrc mstatus, t0            /* SPP = U */
    lla t0, pm_s
    csrw mepc, t0
    lla t0, pm_u
    csrw sepc, t0
    lla a5, pm_resume
    TRACE_ON
pm_start:
    nop
pm_mret:
    mret
pm_s:
    nop
pm_sret:
    sret
pm_u:
    nop
pm_ecall:
    ecall
pm_resume:
    TRACE_OFF pm

    /*
     * M -> VS (mret with MPV) -> VU (sret in VS) -> M (ecall, cause 8).
     * Needs the H extension; guest translation stays bare.
     */
    csrw hgatp, zero
    csrw vsatp, zero
    li t0, 3 << 11
    csrc mstatus, t0
    li t0, (1 << 11)
    csrs mstatus, t0            /* MPP = S */
    li t0, 1
    slli t0, t0, 39
    csrs mstatus, t0            /* MPV = 1 */
    li t0, 1 << 8
    csrc vsstatus, t0           /* VS's SPP = U */
    lla t0, vm_vs
    csrw mepc, t0
    lla t0, vm_vu
    csrw vsepc, t0
    lla a5, vm_resume
    TRACE_ON
vm_start:
    nop
vm_mret:
    mret
vm_vs:
    nop
vm_sret:
    sret
vm_vu:
    nop
vm_ecall:
    ecall
vm_resume:
    TRACE_OFF vm

    /*
     * Resync by packets, InstSyncMax 0: 16 packets.  Each pass through
     * the loop reports the target of an uninferable jump.
     */
    li a0, 20
    lla a1, rs_target
    TRACE_ON (TE_SYNC(1, 0) | TE_TRACING)
rs_loop:
    jalr zero, 0(a1)
rs_target:
    addi a0, a0, -1
    bnez a0, rs_loop
    TRACE_OFF rs, TE_SYNC(1, 0)

    /*
     * Resync by half-words, InstSyncMax 0: 16 half-words.  Four 4-byte
     * instructions (8 half-words) end in a taken branch.
     */
    li a0, 4
    TRACE_ON (TE_SYNC(3, 0) | TE_TRACING)
hw_loop:
    nop
    nop
    addi a0, a0, -1
hw_branch:
    bnez a0, hw_loop
    TRACE_OFF hw, TE_SYNC(3, 0)

    /* Full addresses (trTeInstNoAddrDiff). */
    li t1, 1
    sw t1, 8(s0)
    lla a1, fa_target
    TRACE_ON
fa_start:
    jalr zero, 0(a1)
    nop
fa_target:
    nop
    TRACE_OFF fa
    sw zero, 8(s0)

    /*
     * Full addresses switched on while tracing: the encoder takes the
     * write in between two blocks (the store ends its block) and says so
     * in a support packet; full addresses from then on.
     */
    li t1, 1
    lla a1, oc_target
    TRACE_ON
oc_start:
    nop
oc_feat:
    sw t1, 8(s0)
    jalr zero, 0(a1)
    nop
oc_target:
    nop
    TRACE_OFF oc
    sw zero, 8(s0)

    /* Disable the encoder, funnel and sink; pass. */
    li t1, 1
    sw t1, 0(s0)
    li t0, FUNNEL
    sw t1, 0(t0)
    li t0, PIB
    sw t1, 0(t0)
    li t0, FINISHER
    li t1, 0x5555
    sw t1, 0(t0)
1:
    j 1b

/* Exceptions resume at a5; interrupts clear MSIP and return. */
    .option rvc                 /* so that a c.nop can pad */
    .p2align 2
    .option norvc
trap:
    csrr t3, mcause
    bltz t3, trap_irq
    csrw mepc, a5
    li t3, 3 << 11
    csrs mstatus, t3            /* back to M-mode */
    mret
trap_irq:
    li t3, CLINT_MSIP
    sw zero, 0(t3)
    mret
