/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoding of Control Transfer Records entries (Smctr/Ssctr 1.0).
 * Freestanding: used by the guest tests and by a host unit test.
 */
#ifndef CTR_DECODE_H
#define CTR_DECODE_H

#include <stdint.h>

/* ctrsource / ctrtarget / ctrdata fields */
#define CTRSOURCE_V             (1ULL << 0)
#define CTRTARGET_MISP          (1ULL << 0)
#define CTR_PC_MASK             (~1ULL)
#define CTRDATA_TYPE_MASK       0xfULL
#define CTRDATA_CCV             (1ULL << 15)
#define CTRDATA_CC_SHIFT        16
#define CTRDATA_CC_MASK         (0xffffULL << CTRDATA_CC_SHIFT)
#define CTR_CCM_BITS            12
#define CTR_CCM_MASK            0xfff

/* mctrctl / sctrctl / vsctrctl fields */
#define CTRCTL_U                (1ULL << 0)
#define CTRCTL_S                (1ULL << 1)
#define CTRCTL_M                (1ULL << 2)
#define CTRCTL_RASEMU           (1ULL << 7)
#define CTRCTL_STE              (1ULL << 8)
#define CTRCTL_MTE              (1ULL << 9)
#define CTRCTL_BPFRZ            (1ULL << 11)
#define CTRCTL_LCOFIFRZ         (1ULL << 12)
#define CTRCTL_EXCINH           (1ULL << 33)
#define CTRCTL_INTRINH          (1ULL << 34)
#define CTRCTL_TRETINH          (1ULL << 35)
#define CTRCTL_NTBREN           (1ULL << 36)
#define CTRCTL_TKBRINH          (1ULL << 37)
#define CTRCTL_INDCALLINH       (1ULL << 40)
#define CTRCTL_DIRCALLINH       (1ULL << 41)
#define CTRCTL_INDJMPINH        (1ULL << 42)
#define CTRCTL_DIRJMPINH        (1ULL << 43)
#define CTRCTL_CORSWAPINH       (1ULL << 44)
#define CTRCTL_RETINH           (1ULL << 45)
#define CTRCTL_INDLJMPINH       (1ULL << 46)
#define CTRCTL_DIRLJMPINH       (1ULL << 47)

/*
 * The xctrctl bit that filters ctrdata.TYPE @type: bit 32 + TYPE (an
 * inhibit bit, or the NTBREN enable of not-taken branches); 0 for TYPE 0
 * and the reserved 6 and 7, which have none.
 */
static inline uint64_t ctr_type_filter_bit(unsigned type)
{
    if (type == 0 || type == 6 || type == 7 || type > 15) {
        return 0;
    }
    return 1ULL << (32 + type);
}

/* sctrstatus */
#define SCTRSTATUS_WRPTR_MASK   0xffULL
#define SCTRSTATUS_FROZEN       (1ULL << 31)

/* siselect values of the CTR entries */
#define CTR_ISELECT_FIRST       0x200
#define CTR_ISELECT_LAST        0x2ff

/* ctrdata.TYPE encodings (shared with E-Trace itype) */
enum ctr_type {
    CTR_TYPE_NONE = 0,
    CTR_TYPE_EXCEPTION = 1,
    CTR_TYPE_INTERRUPT = 2,
    CTR_TYPE_TRAP_RETURN = 3,
    CTR_TYPE_NT_BRANCH = 4,
    CTR_TYPE_TK_BRANCH = 5,
    CTR_TYPE_INDCALL = 8,
    CTR_TYPE_DIRCALL = 9,
    CTR_TYPE_INDJUMP = 10,
    CTR_TYPE_DIRJUMP = 11,
    CTR_TYPE_CORSWAP = 12,
    CTR_TYPE_RETURN = 13,
    CTR_TYPE_INDLJUMP = 14,
    CTR_TYPE_DIRLJUMP = 15,
};

/* Name of a ctrdata.TYPE value ("reserved" for 6 and 7). */
const char *ctr_type_name(unsigned type);

/* Elapsed cycles encoded by a 16-bit CC field (CCE in 15:12, CCM 11:0). */
uint64_t ctr_cc_cycles(unsigned cc);

/*
 * The CC field for a CtrCycleCounter value with @cce_bits (0..4)
 * implemented exponent bits, saturating when the value is too large.
 */
unsigned ctr_cc_encode(uint64_t counter, unsigned cce_bits);

#endif
