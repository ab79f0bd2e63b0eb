/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The workload of test-ctr-record (test-ctr-record-work.S): its case
 * descriptors, entry points and labels.
 */
#ifndef TEST_CTR_RECORD_H
#define TEST_CTR_RECORD_H

#include "test-ctr-record-asm.h"


/* One transfer: source and target PC, ctrdata.TYPE. */
struct ctr_xfer {
    unsigned long src, tgt, type;
};

/*
 * A case, emitted by the CASE macro: @nr (1 or 2) transfers, once as
 * the M-mode function @m and once as the S/U-mode entry @x (NULL for the
 * M-only trap cases), with the transfers each variant performs.
 */
struct ctr_case {
    const char *name;
    unsigned long feature;
    unsigned long nr;
    struct ctr_xfer m_xfer[2];
    void (*m)(unsigned long mctrctl);
    struct ctr_xfer x_xfer[2];
    void *x;
};

/* The descriptors, in assembly order. */
extern const struct ctr_case ctr_cases[], ctr_cases_end[];

/* Trap cases: mcause and mepc of the last trap ctr_handler took. */
extern unsigned long ctr_trap_info[2];

/* ctr_launch(): saved sp, mstatus, mtvec; then mcause, mepc of the exit. */
extern unsigned long ctr_launch_info[5];

/* Zcmt jump table, 64-byte aligned, for jvt. */
extern char ctr_jvt_table[];

/*
 * Enter @entry in @mode (RT_MODE_U or RT_MODE_S, V=0) by mret, with
 * mctrctl = @mctrctl; returns the mcause of the trap that ends it.
 */
long ctr_launch(void *entry, unsigned long mode, unsigned long mctrctl);

/*
 * Write mctrctl = @mctrctl (it must inhibit indirect jumps), execute @n
 * direct jumps "jal x0, .+4", the k-th (from 0) at ctr_fill_end - 4 * (n
 * - k), and clear mctrctl.
 */
void ctr_fill(unsigned long n, unsigned long mctrctl);
extern char ctr_fill_end[];

/* U-mode code for UXL=1: jalr, jal, beq, ecall at these labels. */
extern char ctr_u32_body[], u32_ijmp[], u32_ijmp_tgt[], u32_jmp[];
extern char u32_jmp_tgt[], u32_br[], u32_br_tgt[], u32_ecall[];

/* S-mode code for SXL=1: writes -2 to ctrsource/ctrtarget of entry 0. */
extern char ctr_s32_body[];

#endif
