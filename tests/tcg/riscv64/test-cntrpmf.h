/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Data and entry points of cntrpmf-work.S, the measured windows of
 * test-cntrpmf.c.
 */
#ifndef TEST_CNTRPMF_H
#define TEST_CNTRPMF_H

#include <stdint.h>

/* Layouts shared with cntrpmf-work.S. */
struct cpmf_snap {
    uint64_t i0, c0;        /* minstret, mcycle read before the run */
    uint64_t i1, c1;        /* ... and by cpmf_mend */
    uint64_t cause, epc;    /* of the trap that ended the run */
    uint64_t a[4];          /* a1..a4 of the run: its own counter reads */
};

struct cpmf_fix {
    unsigned long addr, val, pmpcfg;    /* cpmf_mh_fix */
    unsigned long icfg, ccfg, inh;      /* cpmf_mh_cfg */
    unsigned long instret, cycle;       /* cpmf_mh_wctr */
};

struct cpmf_log {
    unsigned long n, cause, epc;
};

/* volatile: written by the assembly code */
extern volatile struct cpmf_snap cpmf_snap;
/* volatile: read by the assembly handlers */
extern volatile struct cpmf_fix cpmf_fix;
/* volatile: written by the assembly handlers */
extern volatile struct cpmf_log cpmf_mlog, cpmf_slog;

void cpmf_run(unsigned long pc, unsigned long mtvec, unsigned long arg);
void cpmf_m_swap(unsigned long icfg, unsigned long ccfg, uint64_t out[4]);
void cpmf_m_wread(unsigned long v, uint64_t out[6]);

extern char cpmf_run_i0[], cpmf_run_c0[], cpmf_run_mret[];
extern char cpmf_mend[], cpmf_mend_c1[];
extern char cpmf_mh_skip[], cpmf_mh_skip_mret[];
extern char cpmf_mh_fix[], cpmf_mh_fix_mret[];
extern char cpmf_mh_cfg[], cpmf_mh_cfg_wi[], cpmf_mh_cfg_wh[];
extern char cpmf_mh_cfg_mret[];
extern char cpmf_mh_wctr[], cpmf_mh_wctr_wi[], cpmf_mh_wctr_wc[];
extern char cpmf_mh_wctr_mret[];
extern char cpmf_sh_skip[], cpmf_sh_skip_sret[];
extern char cpmf_w_self[], cpmf_w_self_i1[], cpmf_w_self_c1[];
extern char cpmf_w_self_end[];
extern char cpmf_w_sret[], cpmf_w_sret_x[];
extern char cpmf_t_ecall[], cpmf_t_ecall_trap[], cpmf_t_ecall_end[];
extern char cpmf_t_ebreak[], cpmf_t_ebreak_trap[], cpmf_t_ebreak_end[];
extern char cpmf_t_ill[], cpmf_t_ill_trap[], cpmf_t_ill_end[];
extern char cpmf_t_csrf[], cpmf_t_csrf_trap[], cpmf_t_csrf_end[];
extern char cpmf_t_load[], cpmf_t_load_trap[], cpmf_t_load_end[];

#endif
