/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the branch predictor.
 *
 * The decoder's copy of the encoder's predictor (E-Trace "Branch
 * prediction mode"): a table of 2-bit states (etrace_bpred_update()),
 * the entry of a branch selected by its address bits
 * bpred_size_p:iaddress_lsb_p, trained with every outcome the decoder
 * follows while the mode is on.
 */
#ifndef ETRACE_BPRED_H
#define ETRACE_BPRED_H

/* The largest predictor, 2^6 entries (bpred_size_p up to 6). */
#define ETD_BPRED_MAX_BITS  6

typedef struct EtdBpred {
    uint8_t state[1u << ETD_BPRED_MAX_BITS];
    uint8_t lsb;                        /* iaddress_lsb_p */
    uint8_t size_bits;                  /* bpred_size_p */
} EtdBpred;

/**
 * etd_bpred_init: a predictor whose entries are all 0, until the first
 * etd_bpred_reset()
 * @p: the predictor
 * @lsb: iaddress_lsb_p, the address bits that are always 0
 * @size_bits: bpred_size_p: 2^@size_bits entries, at most
 *             2^ETD_BPRED_MAX_BITS
 */
void etd_bpred_init(EtdBpred *p, unsigned lsb, unsigned size_bits);

/**
 * etd_bpred_reset: every entry 01, predicting not taken (a
 * synchronisation starts the predictor afresh)
 * @p: the predictor
 */
void etd_bpred_reset(EtdBpred *p);

/**
 * etd_bpred_lookup: what the predictor foresees for a branch
 * @p: the predictor
 * @pc: the branch's address
 *
 * Returns: true for taken.
 */
bool etd_bpred_lookup(const EtdBpred *p, uint64_t pc);

/**
 * etd_bpred_update: train the predictor with an outcome
 * @p: the predictor
 * @pc: the branch's address
 * @taken: the outcome
 */
void etd_bpred_update(EtdBpred *p, uint64_t pc, bool taken);

#endif
