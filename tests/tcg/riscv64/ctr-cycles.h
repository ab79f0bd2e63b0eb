/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cycle counting test's workloads (ctr-cycles-work.S) and the labels
 * of their recorded transfers and destinations.
 */
#ifndef CTR_CYCLES_H
#define CTR_CYCLES_H

unsigned long cyc_loop(unsigned long ctl, unsigned long n, unsigned long p);
unsigned long cyc_sctrclr(unsigned long ctl);
unsigned long cyc_wr_same(unsigned long ctl, unsigned long arg);
unsigned long cyc_wr_diff(unsigned long ctl, unsigned long arg);
unsigned long cyc_wr_csrs(unsigned long ctl, unsigned long arg);
unsigned long cyc_wr_sctrctl(unsigned long ctl, unsigned long arg);
unsigned long cyc_wr_vsctrctl(unsigned long ctl, unsigned long arg);
unsigned long cyc_wr_set0(unsigned long ctl, unsigned long arg);
unsigned long cyc_wr_clear0(unsigned long ctl, unsigned long arg);
unsigned long cyc_wr_s_set0(unsigned long ctl, unsigned long arg);
unsigned long cyc_wr_vs_set0(unsigned long ctl, unsigned long arg);
unsigned long cyc_frozen(unsigned long ctl, unsigned long frozen);
unsigned long cyc_bpfrz(unsigned long ctl, unsigned long frozen,
                        unsigned long *status);
unsigned long cyc_mtrap(unsigned long ctl);
unsigned long cyc_umode(unsigned long ctl);

extern char cl_j1[], cl_t1[], cl_j2[], cl_t2[];
extern char cl_loop[], cl_bnez[], cl_beqz[], cl_csrr[];
extern char cs_j1[], cs_t1[], cs_j2[], cs_t2[], cs_j3[], cs_t3[];
extern char cs_j4[], cs_t4[];
extern char cf_j1[], cf_t1[], cf_j2[], cf_t2[], cf_j3[], cf_t3[];
extern char cf_j4[], cf_t4[];
extern char cb_j1[], cb_t1[], cb_after[], cb_j3[], cb_t3[], cb_mret[];
extern char cm_j1[], cm_t1[], cm_ecall[], cm_after[], cm_j3[], cm_t3[];
extern char cm_trap[], cm_mret[];
extern char cu_j1[], cu_t1[], cu_mret[], cu_trap[], cu_j2[], cu_t2[];

/* Labels of a CCV_WRITE_TEST routine n. */
#define WR_LABELS(n)                                                    \
    extern char n##_j1[], n##_t1[], n##_j2[], n##_t2[], n##_j3[],     \
                n##_t3[], n##_j4[], n##_t4[]
WR_LABELS(cyc_wr_same);
WR_LABELS(cyc_wr_diff);
WR_LABELS(cyc_wr_csrs);
WR_LABELS(cyc_wr_sctrctl);
WR_LABELS(cyc_wr_vsctrctl);
WR_LABELS(cyc_wr_set0);
WR_LABELS(cyc_wr_clear0);
WR_LABELS(cyc_wr_s_set0);
WR_LABELS(cyc_wr_vs_set0);

#endif
