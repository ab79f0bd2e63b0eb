/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the jump target cache.
 *
 * The decoder's copy of the encoder's cache (E-Trace "Jump target
 * cache"): every uninferable jump target the decoder follows to goes into
 * the entry its address bits cache_size_p:iaddress_lsb_p select, so that
 * a format 0.1 packet can name the target by its entry.
 */
#ifndef ETRACE_JTC_H
#define ETRACE_JTC_H

/* The largest cache, 2^6 entries (cache_size_p up to 6). */
#define ETD_JTC_MAX_BITS    6

typedef struct EtdJtc {
    uint64_t target[1u << ETD_JTC_MAX_BITS];
    uint64_t valid;                     /* bit i: target[i] is set */
    uint8_t lsb;                        /* iaddress_lsb_p */
    uint8_t size_bits;                  /* cache_size_p */
} EtdJtc;

/**
 * etd_jtc_init: an empty cache
 * @c: the cache
 * @lsb: iaddress_lsb_p, the address bits that are always 0
 * @size_bits: cache_size_p: 2^@size_bits entries, at most
 *             2^ETD_JTC_MAX_BITS
 */
void etd_jtc_init(EtdJtc *c, unsigned lsb, unsigned size_bits);

/**
 * etd_jtc_clear: empty the cache (a synchronisation, changed options,
 * code no image holds)
 * @c: the cache
 */
void etd_jtc_clear(EtdJtc *c);

/**
 * etd_jtc_update: the flow followed an uninferable jump to @target
 * @c: the cache
 * @target: the jump's target, which goes into its entry
 */
void etd_jtc_update(EtdJtc *c, uint64_t target);

/**
 * etd_jtc_lookup: the target entry @index holds
 * @c: the cache
 * @index: the entry, below 2^ETD_JTC_MAX_BITS
 * @target: where the target goes
 *
 * Returns: false when the entry is empty (@target is left alone).
 */
bool etd_jtc_lookup(const EtdJtc *c, unsigned index, uint64_t *target);

#endif
