/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The demonstration's workload (ctr-demo-work.S) and its labels.
 */
#ifndef CTR_DEMO_H
#define CTR_DEMO_H

/* Enable CTR with @mctrctl, run one transfer of each type, disable it. */
void ctr_demo_work(unsigned long mctrctl);

/* Transfer instructions and their destinations. */
extern char demo_call[], demo_after_call[], demo_icall[], demo_after_icall[];
extern char demo_leaf[], demo_ret[], demo_jmp[], demo_jmp_tgt[], demo_br[];
extern char demo_br_tgt[], demo_nbr[], demo_nbr_next[], demo_ecall[];
extern char demo_after_ecall[], demo_trap[], demo_mret[], demo_ljmp[];
extern char demo_ljmp_tgt[], demo_lijmp[], demo_lijmp_tgt[], demo_swap[];
extern char demo_swap_tgt[], demo_ijmp[], demo_ijmp_tgt[];

#endif
