/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Entry point and loop labels of test-cntrpmf-migrate-work.S. */
#ifndef TEST_CNTRPMF_MIGRATE_H
#define TEST_CNTRPMF_MIGRATE_H

void mig_pmf_run(unsigned long n, unsigned long instret0,
                 unsigned long cycle0, unsigned long out[4]);
extern const char mig_pmf_loop[], mig_pmf_loop_end[];

#endif
