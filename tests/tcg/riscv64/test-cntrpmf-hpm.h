/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Entry points of test-cntrpmf-hpm-work.S (see its comments). */
#ifndef TEST_CNTRPMF_HPM_H
#define TEST_CNTRPMF_HPM_H

unsigned long cntrpmf_run_u(unsigned long n);
void cntrpmf_u_loop(void);
void cntrpmf_spin(unsigned long n);
unsigned long cntrpmf_delta_minstret(unsigned long n);
unsigned long cntrpmf_delta_mcycle(unsigned long n);
unsigned long cntrpmf_delta_hpm3(unsigned long n);
unsigned long cntrpmf_minstret_wrap(unsigned long v);
void cntrpmf_mcycle_wrap(unsigned long v, unsigned long out[2]);
unsigned long cntrpmf_hpm3_write_read(unsigned long v);
void cntrpmf_pair_delta(unsigned long n, unsigned long out[2]);
void cntrpmf_pair_run_u(unsigned long n, unsigned long out[2]);

#endif
