/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V Control Transfer Records (Smctr/Ssctr 1.0).
 *
 * The recorder is a consumer of the hart's control-flow event pipeline
 * (cflow/cflow.h): it asks for the transfer types that can be recorded
 * in the current mode, records the transfers translated code appended
 * when the pipeline drains them, and gets traps, trap returns and mode
 * changes from it.  Everything that reads or writes CTR state first
 * drains the pipeline (riscv_cf_sync()).
 */
#ifndef RISCV_CTR_H
#define RISCV_CTR_H

#include "cpu.h"

static inline bool riscv_ctr_present(CPURISCVState *env)
{
    return riscv_cpu_cfg(env)->ext_smctr || riscv_cpu_cfg(env)->ext_ssctr;
}

#ifndef CONFIG_USER_ONLY
/**
 * riscv_ctr_validate_props: check the CTR properties of @cpu
 * @cpu: the CPU being realized
 * @errp: error destination
 *
 * Returns: true if ctr-max-depth and ctr-cce-bits hold supported values.
 */
bool riscv_ctr_validate_props(RISCVCPU *cpu, Error **errp);

/**
 * riscv_ctr_realize: connect CTR to the hart's event pipeline
 * @cpu: the CPU being realized
 */
void riscv_ctr_realize(RISCVCPU *cpu);

/**
 * riscv_ctr_lcofi_overflow: mip.LCOFIP was set by a counter overflow
 * @env: CPU state
 *
 * Only an LCOFI raised this way freezes CTR on its trap to M/HS-mode.
 */
void riscv_ctr_lcofi_overflow(CPURISCVState *env);

/**
 * riscv_ctr_mip_updated: mip changed through riscv_cpu_update_mip()
 * @env: CPU state
 * @mask: the bits that were written
 */
void riscv_ctr_mip_updated(CPURISCVState *env, uint64_t mask);

/* Number of entries sctrdepth.DEPTH selects. */
static inline uint32_t riscv_ctr_depth(CPURISCVState *env)
{
    return 16U << get_field(env->ctr.sctrdepth, SCTRDEPTH_MASK);
}

/**
 * riscv_ctr_set_depth: set sctrdepth.DEPTH to a legal value
 * @env: CPU state
 * @depth: the DEPTH encoding asked for; reserved encodings (5..7) and
 *         depths above ctr-max-depth select ctr-max-depth
 *
 * WRPTR keeps the bits the new depth needs; entries keep their contents.
 */
void riscv_ctr_set_depth(CPURISCVState *env, uint32_t depth);

/**
 * riscv_ctr_state_written: a CTR register was written by software
 * @env: CPU state
 * @ctl: the register was mctrctl, sctrctl or vsctrctl
 *
 * A control register write restarts the cycle counter (the next record
 * has CCV=0); any write may start or stop recording.
 */
void riscv_ctr_state_written(CPURISCVState *env, bool ctl);

/**
 * riscv_ctr_clear: SCTRCLR - zero every entry and the cycle counter
 * @env: CPU state
 */
void riscv_ctr_clear(CPURISCVState *env);

/**
 * riscv_ctr_reset: reset all CTR state of @env
 * @env: CPU state
 */
void riscv_ctr_reset(CPURISCVState *env);

/* CSR access, see ctr-csr.c; the table entries live in csr.c. */
RISCVException riscv_ctr_pred_m(CPURISCVState *env, int csrno);
RISCVException riscv_ctr_pred_s(CPURISCVState *env, int csrno);
RISCVException riscv_ctr_pred_vs(CPURISCVState *env, int csrno);
RISCVException riscv_ctr_read_ctl(CPURISCVState *env, int csrno,
                                  target_ulong *val);
RISCVException riscv_ctr_write_ctl(CPURISCVState *env, int csrno,
                                   target_ulong val, uintptr_t ra);
RISCVException riscv_ctr_rmw_depth(CPURISCVState *env, int csrno,
                                   target_ulong *ret_val,
                                   target_ulong new_val,
                                   target_ulong wr_mask);
RISCVException riscv_ctr_rmw_status(CPURISCVState *env, int csrno,
                                    target_ulong *ret_val,
                                    target_ulong new_val,
                                    target_ulong wr_mask);

/**
 * riscv_ctr_rmw_entry: access a CTR entry through sireg* or vsireg*
 * @env: CPU state
 * @csrno: CSR_SIREG..CSR_SIREG6 or CSR_VSIREG..CSR_VSIREG6
 * @isel: the selector, in CTR_ENTRIES_FIRST..CTR_ENTRIES_LAST
 * @val: where to store the old value, or NULL
 * @new_val: value to write
 * @wr_mask: bits to write
 *
 * The caller has checked the access rights.
 */
void riscv_ctr_rmw_entry(CPURISCVState *env, int csrno, target_ulong isel,
                         target_ulong *val, target_ulong new_val,
                         target_ulong wr_mask);

extern const VMStateDescription vmstate_riscv_ctr;
#endif /* !CONFIG_USER_ONLY */

#endif
