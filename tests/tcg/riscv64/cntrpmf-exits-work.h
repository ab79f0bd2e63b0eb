/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C view of cntrpmf-exits-work.S: the measured run, its entry points and
 * the labels of the windows (constants in test-cntrpmf-exits.h).
 */
#ifndef CNTRPMF_EXITS_WORK_H
#define CNTRPMF_EXITS_WORK_H

#include <stdint.h>
#include "test-cntrpmf-exits.h"

/* One measured run (see xr_run in cntrpmf-exits-work.S). */
struct xr_run {
    uint64_t pc;            /* entered with mret ... */
    uint64_t mode;          /* ... in this mode (mstatus.MPP) */
    uint64_t a0, a1, a2;    /* registers at entry */
    uint64_t ra;
    uint64_t irq_delta;     /* M timer interrupt: mtimecmp = mtime + it */
    uint64_t i0, i1;        /* minstret at entry and at the end */
    uint64_t cause, epc, tval;  /* of the trap that ended the run */
    uint64_t out_a0, out_a1, out_ra;    /* registers at that trap */
    uint64_t nirq;          /* M timer interrupts taken during the run */
    uint64_t save_t4, save_t5;
};

void xr_run(struct xr_run *r);
void xr_m_wminstret(uint64_t v, uint64_t out[4]);

extern char xw_wfi_first[], xw_wfi_first_end[];
extern char xw_wfi_mid[], xw_wfi_mid_end[];
extern char xw_wfi_u[], xw_wfi_u_trap[];
extern char xw_csr_u[], xw_csr_u_trap[];
extern char xw_csr_s[], xw_csr_s_trap[];
extern char xw_load[], xw_load_trap[];
extern char xw_store[], xw_store_trap[];
extern char xw_ecall[], xw_ecall_trap[];
extern char xw_ebreak[], xw_ebreak_trap[];
extern char xw_ill[], xw_ill_trap[];
extern char xw_mmio[], xw_mmio_end[];
extern char xw_mmio_first[], xw_mmio_first_end[];
extern char xw_sscratch[], xw_sscratch_end[];
extern char xw_sstatus[], xw_sstatus_end[];
extern char xw_sfence[], xw_sfence_end[];
extern char xw_fencei[], xw_fencei_end[];
extern char xw_trig_x[], xw_trig_x_trap[];
extern char xw_trig_st[], xw_trig_st_trap[];
extern char xw_xpage1_e[], xw_xpage1[], xw_xpage1_n[];
extern char xw_xpage2_e[], xw_xpage2[], xw_xpage2_x[];
extern char xw_loop[], xw_loop_end[];
extern char xw_lp_bad[], xw_lp_bad_pad[];
extern char xw_lp_none[], xw_lp_none_tgt[];
extern char xw_lp_good[], xw_lp_good_end[];
extern char xw_lp_zero[], xw_lp_zero_end[];
extern char xw_lp_x7[], xw_lp_x7_end[];
extern char xw_ss_bad[], xw_ss_bad_trap[];
extern char xw_ss_good[], xw_ss_good_end[];
extern char xw_jalt[], xw_jalt_insn[], xw_jalt_end[];
extern char xw_jt[], xw_jt_insn[], xw_jt_end[];
extern uint64_t xr_jvt[];

#endif
