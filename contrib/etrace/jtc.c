/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the jump target cache.
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "jtc.h"

void etd_jtc_init(EtdJtc *c, unsigned lsb, unsigned size_bits)
{
    assert(size_bits <= ETD_JTC_MAX_BITS);
    memset(c, 0, sizeof(*c));
    c->lsb = lsb;
    c->size_bits = size_bits;
}

void etd_jtc_clear(EtdJtc *c)
{
    c->valid = 0;
}

void etd_jtc_update(EtdJtc *c, uint64_t target)
{
    /* 2^size_bits entries: with 0 bits, the one entry 0. */
    unsigned i = c->size_bits ? extract64(target, c->lsb, c->size_bits) : 0;

    c->target[i] = target;
    c->valid |= UINT64_C(1) << i;
}

bool etd_jtc_lookup(const EtdJtc *c, unsigned index, uint64_t *target)
{
    assert(index < ARRAY_SIZE(c->target));
    if (!(c->valid >> index & 1)) {
        return false;
    }
    *target = c->target[index];
    return true;
}
