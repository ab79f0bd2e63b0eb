/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoding of Control Transfer Records entries (Smctr/Ssctr 1.0,
 * "Control Transfer Type Definitions" and "Cycle Counting").
 */

#include "ctr-decode.h"

static const char *const type_names[16] = {
    [CTR_TYPE_NONE] = "none",
    [CTR_TYPE_EXCEPTION] = "exception",
    [CTR_TYPE_INTERRUPT] = "interrupt",
    [CTR_TYPE_TRAP_RETURN] = "trap return",
    [CTR_TYPE_NT_BRANCH] = "not-taken branch",
    [CTR_TYPE_TK_BRANCH] = "taken branch",
    [6] = "reserved",
    [7] = "reserved",
    [CTR_TYPE_INDCALL] = "indirect call",
    [CTR_TYPE_DIRCALL] = "direct call",
    [CTR_TYPE_INDJUMP] = "indirect jump",
    [CTR_TYPE_DIRJUMP] = "direct jump",
    [CTR_TYPE_CORSWAP] = "co-routine swap",
    [CTR_TYPE_RETURN] = "function return",
    [CTR_TYPE_INDLJUMP] = "other indirect jump",
    [CTR_TYPE_DIRLJUMP] = "other direct jump",
};

const char *ctr_type_name(unsigned type)
{
    return type < 16 ? type_names[type] : "invalid";
}

uint64_t ctr_cc_cycles(unsigned cc)
{
    unsigned cce = (cc >> CTR_CCM_BITS) & 0xf;
    uint64_t ccm = cc & CTR_CCM_MASK;

    if (cce == 0) {
        return ccm;
    }
    return ((1ULL << CTR_CCM_BITS) + ccm) << (cce - 1);
}

unsigned ctr_cc_encode(uint64_t counter, unsigned cce_bits)
{
    unsigned max_cce = (1u << cce_bits) - 1;
    unsigned msb = 0;
    unsigned cce;

    if (counter < (1ULL << CTR_CCM_BITS)) {
        return counter;
    }
    while (counter >> (msb + 1)) {
        msb++;
    }
    /* CCE is the index of the most significant one bit minus 11. */
    cce = msb - (CTR_CCM_BITS - 1);
    if (cce > max_cce) {
        return (max_cce << CTR_CCM_BITS) | CTR_CCM_MASK;
    }
    return (cce << CTR_CCM_BITS) | ((counter >> (cce - 1)) & CTR_CCM_MASK);
}
