/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scenario engine of test-ctr-modes.c (ctr-modes-work.S): entry,
 * trap vectors, the code run in the source modes and their labels.
 */
#ifndef CTR_MODES_H
#define CTR_MODES_H

/* One trap taken by a scenario vector (64 bytes, see LOG_SHIFT). */
struct ctr_log_entry {
    unsigned long level;        /* RT_LEVEL_M, RT_LEVEL_HS or RT_LEVEL_VS */
    unsigned long cause, epc, tval;
    unsigned long sctrstatus;   /* at vector entry, before any freeze */
    unsigned long status;       /* mstatus or sstatus at vector entry */
    unsigned long pad[2];
};

/* volatile: written by the vectors in ctr-modes-work.S */
extern volatile struct ctr_log_entry ctr_log[8];
/* volatile: ctr_log_n is updated by the vectors, all three read there */
extern volatile unsigned long ctr_log_n, ctr_vec_freeze, ctr_wait_count;

/*
 * Save the C context, write sctrstatus = @sctrstatus and mctrctl =
 * @mctrctl and enter @pc with mret (mnret when @use_mnret), in the mode
 * mstatus (mnstatus) selects.  Returns when a trap reaches ctr_mvec.
 */
void ctr_scen_enter(unsigned long pc, unsigned long mctrctl,
                    unsigned long sctrstatus, long use_mnret);

/*
 * Clear FROZEN if @unfreeze, run one direct jump ctr_probe_jmp ->
 * ctr_probe_tgt with mctrctl = @mctrctl, set FROZEN, clear mctrctl.
 */
void ctr_m_probe(unsigned long mctrctl, long unfreeze);

/* One jump, taken and not-taken branch, ecall and mret in M-mode. */
void ctr_frozen_work(unsigned long mctrctl);

/* The xRETs entering the source mode. */
extern char ctr_scen_mret[], ctr_scen_mnret[];
/* Trap vectors (mtvec, stvec, vstvec). */
extern char ctr_mvec[], ctr_hsvec[], ctr_vsvec[];
/* Code run in the source mode. */
extern char ctr_act_ill[], ctr_act_ebreak[], ctr_act_cebreak[];
extern char ctr_act_sret[], ctr_act_exit[], ctr_act_wait[];
extern char ctr_act_wait_end[];
/* Labels of ctr_m_probe and ctr_frozen_work. */
extern char ctr_probe_jmp[], ctr_probe_tgt[];
extern char ctr_fz_jmp[], ctr_fz_br[], ctr_fz_nbr[], ctr_fz_ecall[];
extern char ctr_fz_after[], ctr_fz_trap[], ctr_fz_mret[];

#endif
