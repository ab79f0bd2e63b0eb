/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Constants shared by test-ctr-record.c and test-ctr-record-work.S
 * (this header is included by both, so it holds no C declarations).
 */
#ifndef TEST_CTR_RECORD_ASM_H
#define TEST_CTR_RECORD_ASM_H

/* What a case needs besides RV64IMAC (struct ctr_case.feature) */
#define CASE_FEAT_BASE      0
#define CASE_FEAT_ZCMP      1
#define CASE_FEAT_ZCMT      2

/* A source or target that is "the mepc ctr_handler saved" (no PC is odd) */
#define CTR_DYN             1

/* Number of jumps ctr_fill() can execute */
#define CTR_FILL_MAX        300

#define CSR_JVT             0x017

#endif
