/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The workload of test-ctr-migrate (test-ctr-migrate-work.S): entry
 * points and labels.
 */
#ifndef CTR_MIGRATE_H
#define CTR_MIGRATE_H

void mig_chain_run(unsigned long mctrctl);
void mig_count_run(unsigned long mctrctl, unsigned long n,
                   unsigned long out[2]);
void mig_frozen_run(unsigned long mctrctl, unsigned long n,
                    void (*ready)(void));
void mig_unfreeze_run(void);
extern char mig_chain[], mig_chain_end[];
extern char mig_ja[], mig_ja_tgt[], mig_count_loop[], mig_count_loop_end[];
extern char mig_jb[], mig_jb_tgt[];
extern char mig_fj[], mig_fj_tgt[], mig_frozen_loop[];
extern char mig_frozen_loop_end[], mig_fu[], mig_fu_tgt[];

#endif
