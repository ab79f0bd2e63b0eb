/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the branch predictor.
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "hw/riscv/etrace.h"
#include "bpred.h"

void etd_bpred_init(EtdBpred *p, unsigned lsb, unsigned size_bits)
{
    assert(size_bits <= ETD_BPRED_MAX_BITS);
    memset(p, 0, sizeof(*p));
    p->lsb = lsb;
    p->size_bits = size_bits;
}

void etd_bpred_reset(EtdBpred *p)
{
    memset(p->state, 1, sizeof(p->state));
}

/* 2^size_bits entries: with 0 bits, the one entry 0. */
static unsigned entry(const EtdBpred *p, uint64_t pc)
{
    return p->size_bits ? extract64(pc, p->lsb, p->size_bits) : 0;
}

bool etd_bpred_lookup(const EtdBpred *p, uint64_t pc)
{
    return p->state[entry(p, pc)] >> 1;
}

void etd_bpred_update(EtdBpred *p, uint64_t pc, bool taken)
{
    etrace_bpred_update(&p->state[entry(p, pc)], taken);
}
