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
 * a block running in a mode of instret_modes adds its length to
 * env->cntrpmf.insns when it starts, and the unwind data of each of its
 * instructions says how many instructions there are from that one to the
 * end of the block.  Wherever the block stops early, the instructions
 * that did not retire are taken back from that number:
 * riscv_cntrpmf_unwind() when an exception unwinds the block (a faulting
 * access, a helper raising with its return address, an I/O recompile),
 * riscv_cntrpmf_insn_trapped() when a helper raises an exception without
 * unwinding (ecall, ebreak, illegal instruction, Zicfilp and Zicfiss
 * checks).  An instruction that always leaves the CPU loop without an
 * exception (wfi) ends its block.
 */
#ifndef RISCV_CNTRPMF_H
#define RISCV_CNTRPMF_H

#include "cpu.h"

/* TranslationBlock.cs_base bit: the block counts retired instructions. */
#define RISCV_CNTRPMF_TB_INSTRET        (1ULL << 48)

/*
 * The third insn_start word carries, above the unwind flags (RISCV_UW2_*),
 * the number of instructions from this one to the end of its block when
 * the block counts retired instructions (0 otherwise).
 */
#define RISCV_CNTRPMF_UW2_LEFT_SHIFT    4
#define RISCV_CNTRPMF_UW2_FLAGS         MAKE_64BIT_MASK(0, 4)

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

/**
 * riscv_cntrpmf_tb_instret: whether translated code counts instructions
 * @env: CPU state
 *
 * Returns: true if some instret counter counts in the current mode
 * (only with Smcntrpmf).  Everything it depends on either changes the
 * mode or is a CSR write, which ends the translation block.
 */
static inline bool riscv_cntrpmf_tb_instret(CPURISCVState *env)
{
    return env->cntrpmf.instret_modes &
           BIT(riscv_cntrpmf_mode(env->priv, env->virt_enabled));
}

#ifndef CONFIG_USER_ONLY
/*
 * The clock mcycle counts (and CTR's cycle counter): QEMU's virtual
 * clock under icount, so that runs are exact and deterministic, the
 * host's cycle counter otherwise.
 */
uint64_t riscv_cntrpmf_cycle_clock(void);

/* Clear filters and counts; called on CPU reset. */
void riscv_cntrpmf_reset(CPURISCVState *env);

/**
 * riscv_cntrpmf_mode_change: the privilege mode is about to change
 * @env: CPU state, still in the old mode
 *
 * Accumulates the events of the mode being left.
 */
void riscv_cntrpmf_mode_change(CPURISCVState *env);

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
 * riscv_cntrpmf_unwind: a translation block stops at an instruction
 * @env: CPU state
 * @uw2: the third insn_start word of that instruction
 *
 * Takes back the instructions of the block from that instruction on:
 * they were counted when the block started but do not retire.
 */
static inline void riscv_cntrpmf_unwind(CPURISCVState *env, uint64_t uw2)
{
    env->cntrpmf.insns -= uw2 >> RISCV_CNTRPMF_UW2_LEFT_SHIFT;
}

/**
 * riscv_cntrpmf_insn_trapped: a helper raises a synchronous exception
 * without unwinding the block
 * @env: CPU state
 * @ra: the helper's return address into translated code (GETPC())
 *
 * The raising instruction does not retire, nor do those after it in its
 * block: riscv_cntrpmf_unwind() for the instruction at @ra.
 */
void riscv_cntrpmf_insn_trapped(CPURISCVState *env, uintptr_t ra);

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
