/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the return stack of implicit return mode.
 *
 * The decoder's copy of the encoder's stack (decoder.adoc,
 * push_return_stack and pop_return_stack): the link of every call the
 * decoder follows, so that a return the encoder left unreported goes
 * where the stack says.  A push onto a full stack drops the oldest link.
 */
#ifndef ETRACE_RETSTACK_H
#define ETRACE_RETSTACK_H

/* The largest stack, 2^5 links (return_stack_size_p up to 5). */
#define ETD_RSTACK_MAX_BITS 5

typedef struct EtdRetStack {
    uint64_t link[1u << ETD_RSTACK_MAX_BITS];   /* the oldest first */
    uint8_t depth;
    uint8_t size_bits;                          /* 2^size_bits links */
} EtdRetStack;

/**
 * etd_retstack_init: an empty stack
 * @rs: the stack
 * @size_bits: return_stack_size_p: it holds 2^@size_bits links, at most
 *             2^ETD_RSTACK_MAX_BITS
 */
void etd_retstack_init(EtdRetStack *rs, unsigned size_bits);

/**
 * etd_retstack_clear: empty the stack (a synchronisation)
 * @rs: the stack
 */
void etd_retstack_clear(EtdRetStack *rs);

/**
 * etd_retstack_push: push the link of a call
 * @rs: the stack
 * @link: the address after the call
 *
 * When the stack is full, its oldest link goes.
 */
void etd_retstack_push(EtdRetStack *rs, uint64_t link);

/**
 * etd_retstack_pop: take the newest link off the stack
 * @rs: the stack, not empty
 *
 * Returns: the link, where the implicit return goes.
 */
uint64_t etd_retstack_pop(EtdRetStack *rs);

/**
 * etd_retstack_lookup: the newest link, left on the stack
 * @rs: the stack, not empty
 *
 * Returns: the link, where an implicit return would go.
 */
uint64_t etd_retstack_lookup(const EtdRetStack *rs);

/* The number of links on the stack (the irdepth a packet compares). */
static inline unsigned etd_retstack_depth(const EtdRetStack *rs)
{
    return rs->depth;
}

#endif
