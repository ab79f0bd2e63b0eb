/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Access to CTR entry registers from M-mode or S-mode: logical entry @i
 * through siselect 0x200 + @i and sireg (ctrsource), sireg2 (ctrtarget),
 * sireg3 (ctrdata).
 */
#ifndef CTR_ENTRY_H
#define CTR_ENTRY_H

#include "rt-csr.h"
#include "ctr-decode.h"

struct ctr_entry {
    uint64_t source, target, data;
};

static inline struct ctr_entry ctr_read_entry(unsigned i)
{
    struct ctr_entry e;

    csr_write(CSR_SISELECT, CTR_ISELECT_FIRST + i);
    e.source = csr_read(CSR_SIREG);
    e.target = csr_read(CSR_SIREG2);
    e.data = csr_read(CSR_SIREG3);
    return e;
}

static inline void ctr_write_entry(unsigned i, uint64_t source,
                                   uint64_t target, uint64_t data)
{
    csr_write(CSR_SISELECT, CTR_ISELECT_FIRST + i);
    csr_write(CSR_SIREG, source);
    csr_write(CSR_SIREG2, target);
    csr_write(CSR_SIREG3, data);
}

#endif
