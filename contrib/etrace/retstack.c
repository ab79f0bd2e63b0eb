/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the return stack of implicit return mode.
 */

#include "qemu/osdep.h"
#include "retstack.h"

void etd_retstack_init(EtdRetStack *rs, unsigned size_bits)
{
    assert(size_bits <= ETD_RSTACK_MAX_BITS);
    memset(rs, 0, sizeof(*rs));
    rs->size_bits = size_bits;
}

void etd_retstack_clear(EtdRetStack *rs)
{
    rs->depth = 0;
}

void etd_retstack_push(EtdRetStack *rs, uint64_t link)
{
    unsigned max = 1u << rs->size_bits;

    if (rs->depth == max) {
        memmove(rs->link, rs->link + 1, (max - 1) * sizeof(rs->link[0]));
        rs->depth--;
    }
    rs->link[rs->depth++] = link;
}

uint64_t etd_retstack_pop(EtdRetStack *rs)
{
    assert(rs->depth);
    return rs->link[--rs->depth];
}

uint64_t etd_retstack_lookup(const EtdRetStack *rs)
{
    assert(rs->depth);
    return rs->link[rs->depth - 1];
}
