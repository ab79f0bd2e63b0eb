/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V Control Transfer Records (Smctr/Ssctr 1.0): CSR access.
 *
 * mctrctl, sctrctl, vsctrctl, sctrdepth, sctrstatus and the entry
 * registers behind siselect/vsiselect 0x200..0x2ff.  Fields QEMU does not
 * implement are read-only 0: MISP (no branch predictor), the custom bits
 * of the control registers, LCOFIFRZ without Sscofpmf, and CCV/CC (or
 * the CCE bits beyond ctr-cce-bits) when cycle counting is disabled.
 */

#include "qemu/osdep.h"
#include "cpu.h"
#include "cflow/cflow.h"
#include "ctr/ctr.h"

/* The filter bits, xctrctl[47:33] without the reserved bits 38 and 39. */
#define CTRCTL_FILTER_MASK  (XCTRCTL_EXCINH | XCTRCTL_INTRINH |              \
                             XCTRCTL_TRETINH | XCTRCTL_NTBREN |              \
                             XCTRCTL_TKBRINH | XCTRCTL_INDCALLINH |          \
                             XCTRCTL_DIRCALLINH | XCTRCTL_INDJMPINH |        \
                             XCTRCTL_DIRJMPINH | XCTRCTL_CORSWAPINH |        \
                             XCTRCTL_RETINH | XCTRCTL_INDLJMPINH |           \
                             XCTRCTL_DIRLJMPINH)

/* Writable bits of vsctrctl, and of sctrctl (which adds nothing). */
static uint64_t ctr_sctrctl_mask(CPURISCVState *env)
{
    uint64_t mask = XCTRCTL_U | XCTRCTL_S | XCTRCTL_RASEMU | XCTRCTL_STE |
                    XCTRCTL_BPFRZ | CTRCTL_FILTER_MASK;

    if (riscv_cpu_cfg(env)->ext_sscofpmf) {
        mask |= XCTRCTL_LCOFIFRZ;
    }
    return mask;
}

static uint64_t ctr_mctrctl_mask(CPURISCVState *env)
{
    return ctr_sctrctl_mask(env) | MCTRCTL_M | MCTRCTL_MTE;
}

/* Writable bits of ctrdata: TYPE, and CCV/CC with cycle counting. */
static uint64_t ctr_data_mask(CPURISCVState *env)
{
    const RISCVCPUConfig *cfg = riscv_cpu_cfg(env);
    uint64_t mask = CTRDATA_TYPE_MASK;

    if (cfg->ctr_cycles) {
        /* CCE is CC[15:12]; the implemented bits are its low ones. */
        mask |= CTRDATA_CCV | CTRDATA_CCM_MASK |
                (((1ULL << cfg->ctr_cce_bits) - 1) << 28);
    }
    return mask;
}

/* mctrctl exists with Smctr. */
RISCVException riscv_ctr_pred_m(CPURISCVState *env, int csrno)
{
    return riscv_cpu_cfg(env)->ext_smctr ? RISCV_EXCP_NONE
                                         : RISCV_EXCP_ILLEGAL_INST;
}

/*
 * sctrctl, sctrstatus and sctrdepth: mstateen0.CTR (and, from VS-mode,
 * hstateen0.CTR) gate them below M-mode; sctrdepth raises a virtual
 * instruction exception from VS-mode whatever hstateen0.CTR says.
 */
RISCVException riscv_ctr_pred_s(CPURISCVState *env, int csrno)
{
    RISCVException ret;

    if (!riscv_ctr_present(env)) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    ret = smstateen_acc_ok(env, 0, SMSTATEEN0_CTR);
    if (ret == RISCV_EXCP_NONE && csrno == CSR_SCTRDEPTH &&
        env->virt_enabled) {
        return RISCV_EXCP_VIRT_INSTRUCTION_FAULT;
    }
    return ret;
}

/* vsctrctl exists only with the H extension. */
RISCVException riscv_ctr_pred_vs(CPURISCVState *env, int csrno)
{
    if (!riscv_has_ext(env, RVH)) {
        return RISCV_EXCP_ILLEGAL_INST;
    }
    return riscv_ctr_pred_s(env, csrno);
}

/*
 * The register an access of @csrno reaches, and its writable bits:
 * sctrctl is the S/U view of mctrctl, and vsctrctl while V=1.
 */
static uint64_t *ctr_ctl_reg(CPURISCVState *env, int csrno, uint64_t *mask)
{
    if (csrno == CSR_MCTRCTL) {
        *mask = ctr_mctrctl_mask(env);
        return &env->ctr.mctrctl;
    }
    *mask = ctr_sctrctl_mask(env);
    if (csrno == CSR_VSCTRCTL || env->virt_enabled) {
        return &env->ctr.vsctrctl;
    }
    return &env->ctr.mctrctl;
}

RISCVException riscv_ctr_read_ctl(CPURISCVState *env, int csrno,
                                  target_ulong *val)
{
    uint64_t mask;

    *val = *ctr_ctl_reg(env, csrno, &mask) & mask;
    return RISCV_EXCP_NONE;
}

/*
 * Every write restarts the cycle counter, also one that changes nothing
 * (csrrs/csrrc with a zero source register are writes too).  With XLEN
 * 32, bits 63:32 cannot be accessed and keep their values.
 */
RISCVException riscv_ctr_write_ctl(CPURISCVState *env, int csrno,
                                   target_ulong val, uintptr_t ra)
{
    uint64_t mask;
    uint64_t *ctl = ctr_ctl_reg(env, csrno, &mask);

    /* Transfers before the write are recorded under the old controls. */
    riscv_cf_sync(env);
    if (env->xl == MXL_RV32) {
        mask = (uint32_t)mask;
    }

    *ctl = (*ctl & ~mask) | (val & mask);
    riscv_ctr_state_written(env, true);
    return RISCV_EXCP_NONE;
}

RISCVException riscv_ctr_rmw_depth(CPURISCVState *env, int csrno,
                                   target_ulong *ret_val,
                                   target_ulong new_val,
                                   target_ulong wr_mask)
{
    if (ret_val) {
        *ret_val = env->ctr.sctrdepth;
    }
    if (wr_mask & SCTRDEPTH_MASK) {
        riscv_cf_sync(env);
        riscv_ctr_set_depth(env, (env->ctr.sctrdepth & ~wr_mask) |
                                 (new_val & wr_mask));
    }
    return RISCV_EXCP_NONE;
}

RISCVException riscv_ctr_rmw_status(CPURISCVState *env, int csrno,
                                    target_ulong *ret_val,
                                    target_ulong new_val,
                                    target_ulong wr_mask)
{
    uint32_t depth = riscv_ctr_depth(env);
    uint32_t mask = wr_mask & (SCTRSTATUS_FROZEN | (depth - 1));

    /* WRPTR and FROZEN as of the last executed transfer. */
    riscv_cf_sync(env);
    if (ret_val) {
        *ret_val = env->ctr.sctrstatus;
    }
    if (mask) {
        env->ctr.sctrstatus = (env->ctr.sctrstatus & ~mask) |
                              (new_val & mask);
        riscv_ctr_state_written(env, false);
    }
    return RISCV_EXCP_NONE;
}

/* TYPE encodings the transfer type table reserves. */
static inline bool ctr_type_reserved(uint64_t type)
{
    return type == 6 || type == 7;
}

/* Write @new_val under @wr_mask, zero-extending when XLEN is 32. */
static uint64_t ctr_rmw_value(CPURISCVState *env, uint64_t old,
                              uint64_t new_val, uint64_t wr_mask,
                              uint64_t field_mask)
{
    uint64_t mask = wr_mask & field_mask;
    uint64_t val = (old & ~mask) | (new_val & mask);

    if (env->xl == MXL_RV32 && (wr_mask & field_mask)) {
        val = (uint32_t)val;
    }
    return val;
}

void riscv_ctr_rmw_entry(CPURISCVState *env, int csrno, target_ulong isel,
                         target_ulong *val, target_ulong new_val,
                         target_ulong wr_mask)
{
    uint32_t depth, entry, wrptr, idx;
    uint64_t *reg;
    uint64_t field_mask;

    riscv_cf_sync(env);
    depth = riscv_ctr_depth(env);
    entry = isel - CTR_ENTRIES_FIRST;
    wrptr = get_field(env->ctr.sctrstatus, SCTRSTATUS_WRPTR_MASK);
    idx = (wrptr - entry - 1) & (depth - 1);

    switch (csrno) {
    case CSR_SIREG:
    case CSR_VSIREG:
        reg = &env->ctr.src[idx];
        field_mask = UINT64_MAX;
        break;
    case CSR_SIREG2:
    case CSR_VSIREG2:
        reg = &env->ctr.dst[idx];
        field_mask = ~(uint64_t)CTRTARGET_MISP;
        break;
    case CSR_SIREG3:
    case CSR_VSIREG3:
        reg = &env->ctr.data[idx];
        field_mask = ctr_data_mask(env);
        break;
    default:
        /* sireg4..sireg6 are read-only 0. */
        reg = NULL;
        field_mask = 0;
        break;
    }

    /* Entries at or beyond the depth are read-only 0. */
    if (!reg || entry >= depth) {
        if (val) {
            *val = 0;
        }
        return;
    }
    if (val) {
        *val = *reg;
    }
    if (wr_mask) {
        uint64_t old = *reg;

        *reg = ctr_rmw_value(env, old, new_val, wr_mask, field_mask);
        /*
         * ctrdata.TYPE is WARL over the encodings of the transfer type
         * table: the reserved 6 and 7 are not stored, the field keeps
         * its value.
         */
        if (reg == &env->ctr.data[idx] &&
            ctr_type_reserved(*reg & CTRDATA_TYPE_MASK)) {
            *reg = (*reg & ~(uint64_t)CTRDATA_TYPE_MASK) |
                   (old & CTRDATA_TYPE_MASK);
        }
    }
}
