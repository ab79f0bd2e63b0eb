/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace encoder's context under the H extension (its context=on):
 * the ASID of satp, and with V = 1 the VMID of hgatp above it.
 * Standalone: no runtime.
 *
 * M mode writes satp (Sv39, ASID 3: HS's address space; M does not
 * translate), vsatp (Sv39, ASID 7) and hgatp (Sv39x4, VMID 5), all
 * identity maps of the gigabyte at 0x80000000, then enters VS mode with
 * mret.  VS mode runs a loop, writes satp (its vsatp) with ASID 9, runs
 * the loop again and makes an ecall, which M mode takes; M mode then
 * says pass to the test finisher.  The contexts: 3 from M's satp write,
 * 0x50007 in VS mode, 0x50009 after its satp write, 3 again in M mode.
 */

#define FINISHER    0x00100000
#define SATP_SV39   (8 << 60)
#define HGATP_SV39X4 (8 << 60)
#define ASID_SHIFT  44
#define HS_ASID     3
#define VS_ASID     7
#define VS_ASID2    9
#define VMID        5
/* PTE bits: V R W X A D, and U for the G stage */
#define PTE_VS      0xcf
#define PTE_G       0xdf
#define MSTATUS_MPP 0x1800
#define MSTATUS_MPP_S 0x0800
#define MSTATUS_MPV (1 << 39)
#define CAUSE_VS_ECALL 10

    .section .text.start, "ax"
    .globl _start
_start:
    la t0, trap
    csrw mtvec, t0
    /* PMP: S and U may use all of memory */
    li t0, -1
    csrw pmpaddr0, t0
    li t0, 0x1f
    csrw pmpcfg0, t0

    /* The gigabyte at 0x80000000 maps to itself in every table. */
    li t1, (0x80000000 >> 12) << 10
    ori t0, t1, PTE_VS
    la t2, hs_root
    sd t0, 2 * 8(t2)
    la t2, vs_root
    sd t0, 2 * 8(t2)
    ori t0, t1, PTE_G
    la t2, g_root
    sd t0, 2 * 8(t2)

    la t0, hs_root
    srli t0, t0, 12
    li t1, SATP_SV39 | (HS_ASID << ASID_SHIFT)
    or t0, t0, t1
    csrw satp, t0                   /* context 3 */
    la t0, vs_root
    srli t0, t0, 12
    li t1, SATP_SV39 | (VS_ASID << ASID_SHIFT)
    or t0, t0, t1
    csrw vsatp, t0                  /* not the current context */
    la t0, g_root
    srli t0, t0, 12
    li t1, HGATP_SV39X4 | (VMID << ASID_SHIFT)
    or t0, t0, t1
    csrw hgatp, t0                  /* neither */
    sfence.vma
    .word 0x62000073                /* hfence.gvma (assembled without H) */

    /* mret to VS mode at vs_code */
    li t0, MSTATUS_MPP
    csrc mstatus, t0
    li t0, MSTATUS_MPP_S
    csrs mstatus, t0
    li t0, MSTATUS_MPV
    csrs mstatus, t0
    la t0, vs_code
    csrw mepc, t0
    mret

vs_code:
    li a0, 4
1:  addi a0, a0, -1
    bnez a0, 1b
    csrr t0, satp                   /* vsatp */
    li t1, 0xffff
    slli t1, t1, ASID_SHIFT
    not t1, t1
    and t0, t0, t1
    li t1, VS_ASID2
    slli t1, t1, ASID_SHIFT
    or t0, t0, t1
    csrw satp, t0                   /* context 0x50009 */
    sfence.vma
    li a0, 3
2:  addi a0, a0, -1
    bnez a0, 2b
    ecall

    .balign 4
trap:
    csrr t0, mcause
    li t1, CAUSE_VS_ECALL
    bne t0, t1, 1f
    li t0, FINISHER
    li t1, 0x5555
    sw t1, 0(t0)
1:  j 1b                            /* anything else: the test hangs */

    .data
    .balign 16384
g_root:                             /* Sv39x4: 2048 entries */
    .zero 16384
hs_root:
    .zero 4096
vs_root:
    .zero 4096
