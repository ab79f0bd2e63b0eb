/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Instruction trace filters and comparators of a trace encoder (see
 * etrace-filter.h).
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "hw/riscv/etrace.h"
#include "hw/riscv/etrace-filter.h"

/* trTeInstFilters, trTeDataFilters: a bit per filter */
#define INST_FILTERS_OFFSET     0x00c
#define DATA_FILTERS_OFFSET     0x01c

/* Registers of a filter and of a comparator unit */
#define FILTER_CONTROL          0x00
#define FILTER_MATCH_INST       0x04
#define FILTER_ECAUSE_LOW       0x08
#define FILTER_ECAUSE_HIGH      0x0c
#define FILTER_MATCH_DATA       0x18
#define COMP_CONTROL            0x00
#define COMP_PMATCH_LOW         0x10
#define COMP_PMATCH_HIGH        0x14
#define COMP_SMATCH_LOW         0x18
#define COMP_SMATCH_HIGH        0x1c

/*
 * The fields that can be set: enable, privilege, ecause and interrupt
 * matching, three comparators of eight (not impdef); with data trace,
 * dtype and dsize matching.
 */
#define FILTER_CONTROL_RW       0xffffu
#define FILTER_CONTROL_DATA_RW \
    (ETRACE_FILTER_MATCH_DTYPE | ETRACE_FILTER_MATCH_DSIZE)
/*
 * The access types the hart reports: load, store, failed compare-and-swap
 * (7, which the MMA/CAS extension adds), the atomics, failed
 * store-conditional; the sizes are the caller's.
 */
#define FILTER_MATCH_DTYPE_RW   0xff83u
/* Privileges U, S/HS, M, VU, VS (not D: no debug mode); the interrupt. */
#define FILTER_MATCH_INST_RW \
    (1u << ETRACE_PRIV_U | 1u << ETRACE_PRIV_S | 1u << ETRACE_PRIV_M | \
     1u << ETRACE_PRIV_VU | 1u << ETRACE_PRIV_VS | \
     ETRACE_FILTER_VALUE_INTERRUPT)
/* Both functions and the match mode (the inputs apart); no notify. */
#define COMP_CONTROL_RW \
    (7u << ETRACE_COMP_P_FUNCTION_SHIFT | \
     7u << ETRACE_COMP_S_FUNCTION_SHIFT | \
     3u << ETRACE_COMP_MATCH_MODE_SHIFT)

#define COMP_INPUT(ctl, shift)  extract32(ctl, shift, 2)

#define FILTER_TRAP_MATCH \
    (ETRACE_FILTER_MATCH_ECAUSE | ETRACE_FILTER_MATCH_INTERRUPT)

/* The registers of the block, by kind; each filter or unit has its own. */
typedef enum FilterReg {
    FREG_NONE,              /* reads 0, ignores writes */
    FREG_INST_FILTERS,
    FREG_DATA_FILTERS,
    FREG_CONTROL,
    FREG_MATCH_INST,
    FREG_ECAUSE,            /* low or high half */
    FREG_MATCH_DATA,
    FREG_COMP_CONTROL,
    FREG_PMATCH,            /* low or high half */
    FREG_SMATCH,            /* low or high half */
} FilterReg;

/*
 * The register at @offset: its kind, the filter or comparator unit @i,
 * which half of a 64-bit value.  Returns false for an offset outside
 * trTeInstFilters, trTeDataFilters and the filter and comparator ranges.
 */
static bool filter_reg(unsigned offset, FilterReg *kind, unsigned *i,
                       bool *high)
{
    unsigned reg = offset % ETRACE_FILTER_STRIDE;

    *kind = FREG_NONE;
    *i = 0;
    *high = reg == FILTER_ECAUSE_HIGH || reg == COMP_PMATCH_HIGH ||
            reg == COMP_SMATCH_HIGH;
    if (offset == INST_FILTERS_OFFSET) {
        *kind = FREG_INST_FILTERS;
    } else if (offset == DATA_FILTERS_OFFSET) {
        *kind = FREG_DATA_FILTERS;
    } else if (offset >= ETRACE_FILTER_BASE && offset < ETRACE_FILTER_END) {
        *i = (offset - ETRACE_FILTER_BASE) / ETRACE_FILTER_STRIDE;
        if (*i < ETRACE_FILTERS) {
            *kind = reg == FILTER_CONTROL ? FREG_CONTROL :
                    reg == FILTER_MATCH_INST ? FREG_MATCH_INST :
                    reg == FILTER_ECAUSE_LOW || reg == FILTER_ECAUSE_HIGH ?
                    FREG_ECAUSE :
                    reg == FILTER_MATCH_DATA ? FREG_MATCH_DATA : FREG_NONE;
        }
    } else if (offset >= ETRACE_COMP_BASE && offset < ETRACE_COMP_END) {
        *i = (offset - ETRACE_COMP_BASE) / ETRACE_FILTER_STRIDE;
        if (*i < ETRACE_COMPARATORS) {
            *kind = reg == COMP_CONTROL ? FREG_COMP_CONTROL :
                    reg == COMP_PMATCH_LOW || reg == COMP_PMATCH_HIGH ?
                    FREG_PMATCH :
                    reg == COMP_SMATCH_LOW || reg == COMP_SMATCH_HIGH ?
                    FREG_SMATCH : FREG_NONE;
        }
    } else {
        return false;
    }
    return true;
}

bool etrace_filter_reg_read(const ETraceFilterRegs *r, unsigned offset,
                            uint32_t *val)
{
    unsigned shift, i;
    FilterReg kind;
    bool high;

    if (!filter_reg(offset, &kind, &i, &high)) {
        return false;
    }
    shift = high ? 32 : 0;
    switch (kind) {
    case FREG_INST_FILTERS:
        *val = r->inst_filters;
        break;
    case FREG_DATA_FILTERS:
        *val = r->data_filters;
        break;
    case FREG_CONTROL:
        *val = r->control[i];
        break;
    case FREG_MATCH_INST:
        *val = r->match_inst[i];
        break;
    case FREG_ECAUSE:
        *val = r->match_ecause[i] >> shift;
        break;
    case FREG_MATCH_DATA:
        *val = r->match_data[i];
        break;
    case FREG_COMP_CONTROL:
        *val = r->comp_control[i];
        break;
    case FREG_PMATCH:
        *val = r->pmatch[i] >> shift;
        break;
    case FREG_SMATCH:
        *val = r->smatch[i] >> shift;
        break;
    default:
        *val = 0;
        break;
    }
    return true;
}

/* An input field of trTeComp?Control: iaddr, or daddr with data trace. */
static uint32_t comp_input(uint32_t val, unsigned shift, unsigned data)
{
    return (data && COMP_INPUT(val, shift) == ETRACE_COMP_INPUT_DADDR ?
            ETRACE_COMP_INPUT_DADDR : ETRACE_COMP_INPUT_IADDR) << shift;
}

bool etrace_filter_reg_write(ETraceFilterRegs *r, unsigned offset,
                             uint32_t val, unsigned data)
{
    unsigned shift, i;
    FilterReg kind;
    bool high;

    if (!filter_reg(offset, &kind, &i, &high)) {
        return false;
    }
    shift = high ? 32 : 0;
    switch (kind) {
    case FREG_INST_FILTERS:
        r->inst_filters = val & MAKE_64BIT_MASK(0, ETRACE_FILTERS);
        break;
    case FREG_DATA_FILTERS:
        r->data_filters = data ? val & MAKE_64BIT_MASK(0, ETRACE_FILTERS) : 0;
        break;
    case FREG_CONTROL:
        r->control[i] = val & (FILTER_CONTROL_RW |
                               (data ? FILTER_CONTROL_DATA_RW : 0));
        break;
    case FREG_MATCH_INST:
        r->match_inst[i] = val & FILTER_MATCH_INST_RW;
        break;
    case FREG_ECAUSE:
        r->match_ecause[i] = deposit64(r->match_ecause[i], shift, 32, val);
        break;
    case FREG_MATCH_DATA:
        r->match_data[i] = data ? val & (FILTER_MATCH_DTYPE_RW |
                                         data << ETRACE_FILTER_DSIZE_SHIFT)
                                : 0;
        break;
    case FREG_COMP_CONTROL:
        r->comp_control[i] = (val & COMP_CONTROL_RW) |
                             comp_input(val, ETRACE_COMP_P_INPUT_SHIFT, data) |
                             comp_input(val, ETRACE_COMP_S_INPUT_SHIFT, data);
        break;
    case FREG_PMATCH:
        r->pmatch[i] = deposit64(r->pmatch[i], shift, 32, val);
        break;
    case FREG_SMATCH:
        r->smatch[i] = deposit64(r->smatch[i], shift, 32, val);
        break;
    default:
        break;
    }
    return true;
}

static unsigned comp_field(uint32_t ctl, unsigned shift)
{
    return extract32(ctl, shift, shift == ETRACE_COMP_MATCH_MODE_SHIFT ? 2 : 3);
}

/* The comparator unit @k selects, when it must match. */
static bool filter_uses(uint32_t ctl, unsigned k, unsigned *comp)
{
    *comp = extract32(ctl, ETRACE_FILTER_COMP_SHIFT(k), 3);
    return ctl & ETRACE_FILTER_MATCH_COMP(k);
}

void etrace_filter_restart(ETraceFilter *f)
{
    unsigned j;

    f->window = 0;
    memset(f->nest, 0, sizeof(f->nest));
    f->latch = 0;
    for (j = 0; j < ETRACE_COMPARATORS; j++) {
        uint32_t ctl = f->regs.comp_control[j];

        if (comp_field(ctl, ETRACE_COMP_P_FUNCTION_SHIFT) ==
            ETRACE_COMP_SPECIAL &&
            comp_field(ctl, ETRACE_COMP_MATCH_MODE_SHIFT) ==
            ETRACE_COMP_MODE_LATCH) {
            f->latch |= 1u << j;
        }
    }
}

void etrace_filter_load(ETraceFilter *f, const ETraceFilterRegs *r)
{
    unsigned i, j, k, comp;

    f->regs = *r;
    f->active = 0;
    f->dactive = 0;
    f->comps = 0;
    f->dcomps = 0;
    f->dunits = 0;
    f->iunits = 0;
    f->iout = 0;
    for (i = 0; i < ETRACE_FILTERS; i++) {
        uint32_t ctl = r->control[i];
        uint8_t uses = 0;

        if (!(ctl & ETRACE_FILTER_ENABLE)) {
            continue;
        }
        for (k = 1; k <= 3; k++) {
            if (filter_uses(ctl, k, &comp)) {
                uses |= 1u << comp;
            }
        }
        if (r->inst_filters & BIT(i)) {
            f->active |= 1u << i;
            f->comps |= uses;
        }
        if (r->data_filters & BIT(i)) {
            f->dactive |= 1u << i;
            f->dcomps |= uses;
        }
    }
    for (j = 0; j < ETRACE_COMPARATORS; j++) {
        uint32_t ctl = r->comp_control[j];
        unsigned p = COMP_INPUT(ctl, ETRACE_COMP_P_INPUT_SHIFT);
        unsigned s = COMP_INPUT(ctl, ETRACE_COMP_S_INPUT_SHIFT);

        if (p == ETRACE_COMP_INPUT_DADDR || s == ETRACE_COMP_INPUT_DADDR) {
            f->dunits |= 1u << j;
        }
        if (p == ETRACE_COMP_INPUT_IADDR || s == ETRACE_COMP_INPUT_IADDR) {
            f->iunits |= 1u << j;
        }
    }
}

void etrace_filter_configure(ETraceFilter *f, const ETraceFilterRegs *r)
{
    if (memcmp(&f->regs, r, sizeof(*r))) {
        etrace_filter_load(f, r);
        etrace_filter_restart(f);
    }
}

/* Unsigned comparison @fn of @x with @m (functions 0 to 5, and 7). */
static bool compare(unsigned fn, uint64_t x, uint64_t m)
{
    switch (fn) {
    case ETRACE_COMP_EQ:
        return x == m;
    case ETRACE_COMP_NE:
        return x != m;
    case ETRACE_COMP_LT:
        return x < m;
    case ETRACE_COMP_LE:
        return x <= m;
    case ETRACE_COMP_GT:
        return x > m;
    case ETRACE_COMP_GE:
        return x >= m;
    case ETRACE_COMP_TRUE:
        return true;
    default:
        g_assert_not_reached();
    }
}

/*
 * The output of comparator unit @j for instruction address @iaddr and data
 * address @daddr.
 */
static bool comparator(ETraceFilter *f, unsigned j, uint64_t iaddr,
                       uint64_t daddr)
{
    uint32_t ctl = f->regs.comp_control[j];
    unsigned pfn = comp_field(ctl, ETRACE_COMP_P_FUNCTION_SHIFT);
    unsigned sfn = comp_field(ctl, ETRACE_COMP_S_FUNCTION_SHIFT);
    uint64_t pmatch = f->regs.pmatch[j];
    uint64_t x = COMP_INPUT(ctl, ETRACE_COMP_P_INPUT_SHIFT) ==
                 ETRACE_COMP_INPUT_DADDR ? daddr : iaddr;
    uint64_t y = COMP_INPUT(ctl, ETRACE_COMP_S_INPUT_SHIFT) ==
                 ETRACE_COMP_INPUT_DADDR ? daddr : iaddr;
    bool p, s, out;

    if (sfn == ETRACE_COMP_SPECIAL) {
        /* The secondary value masks the primary comparison. */
        x &= f->regs.smatch[j];
        pmatch &= f->regs.smatch[j];
        s = true;
    } else {
        s = compare(sfn, y, f->regs.smatch[j]);
    }
    p = pfn != ETRACE_COMP_SPECIAL && compare(pfn, x, pmatch);

    switch (comp_field(ctl, ETRACE_COMP_MATCH_MODE_SHIFT)) {
    case ETRACE_COMP_MODE_P:
        return p;
    case ETRACE_COMP_MODE_P_AND_S:
        return p && s;
    case ETRACE_COMP_MODE_NOT_P_AND_S:
        return !(p && s);
    default:
        /*
         * Set by a primary match, asserted up to and including the
         * instruction (or access) of a secondary match.
         */
        out = (f->latch & BIT(j)) || p;
        f->latch = (f->latch & ~BIT(j)) | (out && !s) << j;
        return out;
    }
}

/*
 * Whether one of the filters @which qualifies a row of @priv whose
 * comparator units output @comps; @data the access's type and size
 * conditions hold for (false: an instruction or a trap, with none).
 */
static bool filters_match(ETraceFilter *f, uint8_t which, uint8_t comps,
                          uint8_t priv, const uint32_t *data)
{
    unsigned i, k, comp;

    for (i = 0; i < ETRACE_FILTERS; i++) {
        uint32_t ctl = f->regs.control[i];
        bool match = which & BIT(i);

        if (match && (ctl & ETRACE_FILTER_MATCH_PRIV)) {
            match = f->regs.match_inst[i] & BIT(priv);
        }
        if (match && (ctl & FILTER_TRAP_MATCH)) {
            match = f->window & BIT(i);
        }
        for (k = 1; match && k <= 3; k++) {
            if (filter_uses(ctl, k, &comp)) {
                match = comps & BIT(comp);
            }
        }
        if (match && data && (ctl & ETRACE_FILTER_MATCH_DTYPE)) {
            match = f->regs.match_data[i] & data[0];
        }
        if (match && data && (ctl & ETRACE_FILTER_MATCH_DSIZE)) {
            match = f->regs.match_data[i] & data[1];
        }
        if (match) {
            return true;
        }
    }
    return false;
}

/*
 * Whether an instruction or trap of @priv at @addr is traced.  The units
 * without a daddr input compare @addr; those with one are false.
 */
static bool filter_row(ETraceFilter *f, uint64_t addr, uint8_t priv)
{
    uint8_t units = (f->comps | f->dcomps) & ~f->dunits;
    unsigned j;

    f->iout = 0;
    for (j = 0; j < ETRACE_COMPARATORS; j++) {
        if ((units & BIT(j)) && comparator(f, j, addr, 0)) {
            f->iout |= 1u << j;
        }
    }
    return !f->regs.inst_filters ||
           filters_match(f, f->active, f->iout, priv, NULL);
}

bool etrace_filter_insn(ETraceFilter *f, uint64_t addr, uint8_t priv)
{
    return filter_row(f, addr, priv);
}

bool etrace_filter_data(ETraceFilter *f, uint64_t iaddr, uint8_t priv,
                        unsigned dtype, unsigned dsize, uint64_t daddr)
{
    uint32_t data[2] = { BIT(dtype & 15),
                         BIT(ETRACE_FILTER_DSIZE_SHIFT + (dsize & 7)) };
    uint8_t comps = f->iout & ~f->dunits;
    unsigned j;

    for (j = 0; j < ETRACE_COMPARATORS; j++) {
        if ((f->dcomps & f->dunits & BIT(j)) &&
            comparator(f, j, iaddr, daddr)) {
            comps |= 1u << j;
        }
    }
    return filters_match(f, f->dactive, comps, priv, data);
}

bool etrace_filter_trap(ETraceFilter *f, bool interrupt, uint8_t ecause,
                        uint64_t epc, uint8_t priv)
{
    unsigned i;

    for (i = 0; i < ETRACE_FILTERS; i++) {
        uint32_t ctl = f->regs.control[i];

        if (!((f->active | f->dactive) & BIT(i)) ||
            !(ctl & FILTER_TRAP_MATCH)) {
            continue;
        }
        if (f->window & BIT(i)) {
            /* Nested; a saturated count closes the window early. */
            f->nest[i] = MIN(f->nest[i] + 1, UINT8_MAX);
        } else if ((!(ctl & ETRACE_FILTER_MATCH_ECAUSE) ||
                    extract64(f->regs.match_ecause[i], ecause & 63, 1)) &&
                   (!(ctl & ETRACE_FILTER_MATCH_INTERRUPT) ||
                    interrupt == !!(f->regs.match_inst[i] &
                                    ETRACE_FILTER_VALUE_INTERRUPT))) {
            f->window |= 1u << i;
            f->nest[i] = 0;
        }
    }
    return filter_row(f, epc, priv);
}

void etrace_filter_trap_return(ETraceFilter *f)
{
    unsigned i;

    for (i = 0; i < ETRACE_FILTERS; i++) {
        if (!(f->window & BIT(i))) {
            continue;
        }
        if (f->nest[i]) {
            f->nest[i]--;
        } else {
            f->window &= ~BIT(i);
        }
    }
}
