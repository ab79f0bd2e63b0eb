/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V Smcntrpmf 1.0: privilege mode filtering of cycle and instret.
 *
 * Every event source (the cycle clock and retired instructions) is
 * accumulated per privilege mode at each mode change.  A counter is its
 * value when last written plus the events of its non-inhibited modes
 * since then, so changing a filter never rewrites past counts.
 *
 * With Smcntrpmf, retired instructions are counted by translated code:
 * Smcntrpmf is a consumer of the hart's control-flow event pipeline
 * (cflow/cflow.h) and needs RISCV_CFLOW_NEED_INSNS in the modes of
 * instret_modes, so that env->cf.insns counts every instruction retired
 * in them.  The pipeline keeps that count exact wherever a block stops
 * early: riscv_cf_unwind() when an exception unwinds the block (a
 * faulting access, a helper raising with its return address, an I/O
 * recompile), riscv_cf_insn_trapped() when a helper raises an exception
 * without unwinding (ecall, ebreak, illegal instruction, Zicfilp and
 * Zicfiss checks).  An instruction that always leaves the CPU loop
 * without an exception (wfi) ends its block.
 */
#ifndef RISCV_CNTRPMF_H
#define RISCV_CNTRPMF_H

#include "cpu.h"

/* The xINH bit of @mode in a configuration register. */
#define RISCV_CNTRPMF_INH(mode)         BIT_ULL(62 - (mode))
#define RISCV_CNTRPMF_INH_ALL           MAKE_64BIT_MASK(58, 5)

static inline RISCVCntrpmfMode riscv_cntrpmf_mode(target_ulong priv,
                                                  bool virt)
{
    if (priv == PRV_M) {
        return RISCV_CNTRPMF_M;
    }
    if (virt) {
        return priv == PRV_S ? RISCV_CNTRPMF_VS : RISCV_CNTRPMF_VU;
    }
    return priv == PRV_S ? RISCV_CNTRPMF_S : RISCV_CNTRPMF_U;
}

#ifndef CONFIG_USER_ONLY
/* Connect the counters to the hart's event pipeline. */
void riscv_cntrpmf_realize(RISCVCPU *cpu);

/* Clear filters and counts; called on CPU reset. */
void riscv_cntrpmf_reset(CPURISCVState *env);

/**
 * riscv_cntrpmf_update: recompute the modes that count instructions
 * @env: CPU state
 *
 * Call after mcountinhibit or an mhpmevent register changed.
 */
void riscv_cntrpmf_update(CPURISCVState *env);

/**
 * riscv_cntrpmf_mcountinhibit_changed: mcountinhibit has been written
 * @env: CPU state, with the new mcountinhibit
 * @old: the previous mcountinhibit
 *
 * Stops or restarts mcycle and minstret at their current values.
 */
void riscv_cntrpmf_mcountinhibit_changed(CPURISCVState *env,
                                         target_ulong old);

/**
 * riscv_cntrpmf_events: filtered event count
 * @env: CPU state
 * @src: event source
 * @filter: xINH bits (of mhpmevent, mcyclecfg or minstretcfg)
 *
 * Returns: the events of @src counted since reset in the modes @filter
 * does not inhibit, including the current mode up to now.
 */
uint64_t riscv_cntrpmf_events(CPURISCVState *env, RISCVCntrpmfSource src,
                              uint64_t filter);

/**
 * riscv_cntrpmf_events_seen: filtered event count as an instruction reads it
 * @env: CPU state
 * @src: event source
 * @filter: xINH bits
 *
 * Returns: riscv_cntrpmf_events() without the reading instruction itself,
 * which has not retired yet (for CSR reads of counters counting
 * instructions; a debugger access sees riscv_cntrpmf_events()).
 */
uint64_t riscv_cntrpmf_events_seen(CPURISCVState *env,
                                   RISCVCntrpmfSource src, uint64_t filter);

/**
 * riscv_cntrpmf_read_counter: CSR read of mcycle/minstret (or cycle/instret)
 * @env: CPU state
 * @src: RISCV_CNTRPMF_CYCLE or RISCV_CNTRPMF_INSTRET
 * @high: the RV32 upper half
 *
 * Returns: the counter (half); instret as before the reading instruction.
 */
target_ulong riscv_cntrpmf_read_counter(CPURISCVState *env,
                                        RISCVCntrpmfSource src, bool high);

/* CSR write of mcycle/minstret, @high selecting the RV32 upper half. */
void riscv_cntrpmf_write_counter(CPURISCVState *env, RISCVCntrpmfSource src,
                                 bool high, target_ulong val);

/* CSR callbacks of mcyclecfg, minstretcfg, mcyclecfgh and minstretcfgh. */
RISCVException riscv_cntrpmf_read_cfg(CPURISCVState *env, int csrno,
                                      target_ulong *val);
RISCVException riscv_cntrpmf_write_cfg(CPURISCVState *env, int csrno,
                                       target_ulong val, uintptr_t ra);

/**
 * riscv_cntrpmf_rmw_deleg: the Smcdeleg/Ssccfg view through sireg2/sireg5
 * @env: CPU state
 * @src: RISCV_CNTRPMF_CYCLE (siselect 0x40) or RISCV_CNTRPMF_INSTRET (0x42)
 * @high: sireg5 (RV32 upper half)
 * @val: where to return the old value, or NULL
 * @new_val: value to write
 * @wr_mask: bits to write
 *
 * MINH is hidden: it reads as 0 and writes leave it unchanged.
 */
void riscv_cntrpmf_rmw_deleg(CPURISCVState *env, RISCVCntrpmfSource src,
                             bool high, target_ulong *val,
                             target_ulong new_val, target_ulong wr_mask);

extern const VMStateDescription vmstate_riscv_cntrpmf;
#endif

#endif
