/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Instruction trace filters and comparators of a trace encoder (RISC-V
 * Trace Control Interface 1.0, "Trace Encoder Filter Registers").
 *
 * A filter qualifies an instruction when every condition it enables
 * holds: the privilege is one of a set, the instruction is inside the
 * window of a trap that matched (by exception cause, or by exception or
 * interrupt), and up to three comparator units assert their output.  An
 * instruction is traced when one of the filters selected in
 * trTeInstFilters qualifies it, or when none is selected.
 *
 * A comparator unit compares the instruction address with a primary and
 * a secondary value (every function and match mode of trTeCompControl);
 * its latch mode makes it stateful.  A trap window opens at a matching
 * trap (the trap itself is inside it) and closes after the trap return
 * that returns from it, counting nested traps.
 *
 * With data trace (etrace_filter_reg_write()'s @data), filters also
 * qualify data accesses: those selected in trTeDataFilters, each with the
 * access type (dtype) and size (dsize) conditions of trTeFilterMatchData
 * as well, and comparators may compare the data address (daddr) instead
 * of the instruction address.  A comparator unit that compares only
 * instruction addresses gives an access the output it gave the access's
 * instruction; one that compares a data address is evaluated for each
 * access (its latch moves with accesses), and is false for instructions
 * and traps, which have no data address.
 *
 * Not implemented, WARL 0: the context and tval comparator inputs, the
 * notify (watchpoint) bits, impdef, and the debug-mode privilege.
 * Independent of QEMU's CPU and device models.
 */
#ifndef HW_RISCV_ETRACE_FILTER_H
#define HW_RISCV_ETRACE_FILTER_H

#define ETRACE_FILTERS          8
#define ETRACE_COMPARATORS      8

/* Register offsets in the encoder's block */
#define ETRACE_FILTER_BASE      0x400
#define ETRACE_FILTER_END       0x600
#define ETRACE_COMP_BASE        0x600
#define ETRACE_COMP_END         0x800
#define ETRACE_FILTER_STRIDE    0x20

/* trTeFilter?Control */
#define ETRACE_FILTER_ENABLE            (1u << 0)
#define ETRACE_FILTER_MATCH_PRIV        (1u << 1)
#define ETRACE_FILTER_MATCH_ECAUSE      (1u << 2)
#define ETRACE_FILTER_MATCH_INTERRUPT   (1u << 3)
/* MatchComp<k> at bit 4 * k, the comparator's index in the 3 bits above */
#define ETRACE_FILTER_MATCH_COMP(k)     (1u << (4 * (k)))
#define ETRACE_FILTER_COMP_SHIFT(k)     (4 * (k) + 1)
#define ETRACE_FILTER_MATCH_DTYPE       (1u << 24)
#define ETRACE_FILTER_MATCH_DSIZE       (1u << 25)
/* trTeFilter?MatchInst */
#define ETRACE_FILTER_VALUE_INTERRUPT   (1u << 8)
/* trTeFilter?MatchData: a bit per dtype, then a bit per dsize */
#define ETRACE_FILTER_DSIZE_SHIFT       16

/* trTeComp?Control */
#define ETRACE_COMP_P_INPUT_SHIFT       0
#define ETRACE_COMP_S_INPUT_SHIFT       2
#define ETRACE_COMP_INPUT_IADDR         0
#define ETRACE_COMP_INPUT_DADDR         3
#define ETRACE_COMP_P_FUNCTION_SHIFT    4
#define ETRACE_COMP_S_FUNCTION_SHIFT    8
#define ETRACE_COMP_MATCH_MODE_SHIFT    12
#define ETRACE_COMP_EQ                  0
#define ETRACE_COMP_NE                  1
#define ETRACE_COMP_LT                  2
#define ETRACE_COMP_LE                  3
#define ETRACE_COMP_GT                  4
#define ETRACE_COMP_GE                  5
/* P: always false, primes the latch; S: always true, masks P */
#define ETRACE_COMP_SPECIAL             6
#define ETRACE_COMP_TRUE                7
#define ETRACE_COMP_MODE_P              0
#define ETRACE_COMP_MODE_P_AND_S        1
#define ETRACE_COMP_MODE_NOT_P_AND_S    2
#define ETRACE_COMP_MODE_LATCH          3

/**
 * ETraceFilterRegs: the registers, as the guest reads them
 * @inst_filters: trTeInstFilters
 * @data_filters: trTeDataFilters
 * @control, @match_inst, @match_ecause, @match_data: per filter
 * @comp_control, @pmatch, @smatch: per comparator unit
 */
typedef struct ETraceFilterRegs {
    uint32_t inst_filters;
    uint32_t data_filters;
    uint32_t control[ETRACE_FILTERS];
    uint32_t match_inst[ETRACE_FILTERS];
    uint64_t match_ecause[ETRACE_FILTERS];
    uint32_t match_data[ETRACE_FILTERS];
    uint32_t comp_control[ETRACE_COMPARATORS];
    uint64_t pmatch[ETRACE_COMPARATORS];
    uint64_t smatch[ETRACE_COMPARATORS];
} ETraceFilterRegs;

/**
 * ETraceFilter: the filters as the hart applies them
 * @regs: the hart's copy of the registers
 * @active: filters selected in trTeInstFilters and enabled, a bit each
 * @dactive: filters selected in trTeDataFilters and enabled
 * @comps: comparator units the filters of @active use, a bit each
 * @dcomps: comparator units the filters of @dactive use
 * @dunits: comparator units with a daddr input
 * @iunits: comparator units with an iaddr input
 * @iout: outputs of the units without a daddr input for the last
 *        instruction given (etrace_filter_insn())
 * @window: filters whose trap window is open
 * @nest: traps nested in each open window
 * @latch: comparator units whose latch is set
 */
typedef struct ETraceFilter {
    ETraceFilterRegs regs;
    uint8_t active;
    uint8_t dactive;
    uint8_t comps;
    uint8_t dcomps;
    uint8_t dunits;
    uint8_t iunits;
    uint8_t iout;
    uint8_t window;
    uint8_t nest[ETRACE_FILTERS];
    uint8_t latch;
} ETraceFilter;

/**
 * etrace_filter_reg_read: read a register at @offset in the encoder's
 * block (trTeInstFilters, or in the filter and comparator ranges)
 *
 * Returns false for an offset that is none of them.
 */
bool etrace_filter_reg_read(const ETraceFilterRegs *r, unsigned offset,
                            uint32_t *val);

/**
 * etrace_filter_reg_write: write a register (WARL: what is not
 * implemented stays 0)
 * @data: 0 without data trace; with it, the sizes the hart reports, bit
 *        N for accesses of 2^N bytes (the dsize bits that can be set):
 *        trTeDataFilters, the dtype and dsize conditions and the daddr
 *        comparator input can then be set
 *
 * Returns false for an offset that is none of them.
 */
bool etrace_filter_reg_write(ETraceFilterRegs *r, unsigned offset,
                             uint32_t val, unsigned data);

/**
 * etrace_filter_configure: take a new copy of the registers
 *
 * When they differ from the current ones, the state starts afresh as in
 * etrace_filter_restart().
 */
void etrace_filter_configure(ETraceFilter *f, const ETraceFilterRegs *r);

/**
 * etrace_filter_load: take a copy of the registers, keeping the state
 * (incoming migration)
 */
void etrace_filter_load(ETraceFilter *f, const ETraceFilterRegs *r);

/**
 * etrace_filter_restart: tracing starts: trap windows closed, latches
 * clear but where the primary function primes them
 */
void etrace_filter_restart(ETraceFilter *f);

/* Whether instructions are filtered at all. */
static inline bool etrace_filter_on(const ETraceFilter *f)
{
    return f->regs.inst_filters != 0;
}

/* Whether data accesses are filtered at all. */
static inline bool etrace_filter_data_on(const ETraceFilter *f)
{
    return f->regs.data_filters != 0;
}

/*
 * Whether traps and trap returns must be given (etrace_filter_trap(),
 * etrace_filter_trap_return()): instructions or data are filtered.
 */
static inline bool etrace_filter_any(const ETraceFilter *f)
{
    return (f->regs.inst_filters | f->regs.data_filters) != 0;
}

/*
 * Whether each instruction must be given on its own, in a block of one
 * (etrace_filter_insn()): qualification can change from one instruction
 * to the next (a comparator unit qualifies instructions), or a data
 * access's qualification depends on its instruction's address.
 */
static inline bool etrace_filter_per_insn(const ETraceFilter *f)
{
    return (f->comps & ~f->dunits) != 0 || (f->dcomps & f->iunits) != 0;
}

/**
 * etrace_filter_insn: whether a retired instruction is traced (true when
 * instructions are not filtered)
 * @addr: its address
 * @priv: ETRACE_PRIV_* it ran in
 *
 * Instructions are given in the order they retire (latches move), when
 * etrace_filter_on() or etrace_filter_per_insn(); the comparator outputs
 * are those its data accesses see.
 */
bool etrace_filter_insn(ETraceFilter *f, uint64_t addr, uint8_t priv);

/**
 * etrace_filter_data: whether a data access is traced, when
 * etrace_filter_data_on()
 * @iaddr: the address of its instruction, the last given
 *         (etrace_filter_insn()) when that matters
 * @priv: ETRACE_PRIV_* its instruction ran in
 * @dtype: its type (E-Trace's dtype)
 * @dsize: its size is 2^@dsize bytes
 * @daddr: its address
 *
 * Accesses are given in the order they retire.
 */
bool etrace_filter_data(ETraceFilter *f, uint64_t iaddr, uint8_t priv,
                        unsigned dtype, unsigned dsize, uint64_t daddr);

/**
 * etrace_filter_trap: a trap is taken: whether it is traced (true when
 * instructions are not filtered)
 * @interrupt: an interrupt (itype 2), else an exception (itype 1)
 * @ecause: its cause
 * @epc: the address it is reported at
 * @priv: ETRACE_PRIV_* it was taken from
 *
 * A trap that matches a filter's trap conditions opens its window, and
 * is inside it; one taken in an open window nests.
 */
bool etrace_filter_trap(ETraceFilter *f, bool interrupt, uint8_t ecause,
                        uint64_t epc, uint8_t priv);

/**
 * etrace_filter_trap_return: a trap return (xRET) retired; the
 * instructions after it are outside the windows it closes
 */
void etrace_filter_trap_return(ETraceFilter *f);

#endif
