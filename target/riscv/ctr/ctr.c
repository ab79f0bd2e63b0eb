/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V Control Transfer Records (Smctr/Ssctr 1.0): recording engine.
 *
 * The buffer is a ring of sctrdepth entries.  WRPTR (sctrstatus[7:0])
 * is the physical entry written next, so logical entry X, as software
 * sees it through siselect 0x200 + X, is physical (WRPTR - X - 1) mod
 * depth.
 *
 * CTR is a consumer of the hart's control-flow event pipeline
 * (cflow/cflow.h).  Transfers inside one mode are appended to the
 * pipeline's buffer by translated code, for the types ctr_needs() asked
 * for in that mode, and recorded here when the buffer is drained: before
 * any CTR register is read or written, at every trap, trap return and
 * mode change, and when the buffer is full.  Traps and trap returns are
 * delivered by the C paths that change the mode, before the change, so
 * that both the source and the target mode are known.
 *
 * CtrCycleCounter counts mcycle's clock while CTR is active.  A record
 * made by a drain takes the time of its transfer from the instruction
 * count stored with the event: the clock is read once per drain, and
 * the cycles between two drains are shared among the transfers in
 * between in proportion to the instructions retired before each.  Under
 * icount, where the clock advances by a fixed amount per instruction
 * while the CPU runs, each transfer gets exactly the clock at its
 * instruction (the CPU entering or leaving its execution loop is a
 * drain, so idle time never falls inside one); otherwise host time is
 * spread evenly over the instructions, and the counts of consecutive
 * records still add up to the active cycles mcycle counted.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "cpu.h"
#include "exec/helper-proto.h"
#include "migration/vmstate.h"
#include "qemu/host-utils.h"
#include "exec/icount.h"
#include "cflow/cflow.h"
#include "ctr/ctr.h"
#include "trace.h"

#define CTR_TYPE_BIT(t)         (1U << (t))
#define CTR_JUMP_TYPES          (CTR_TYPE_BIT(CTRDATA_TYPE_TAKEN_BRANCH) | \
                                 MAKE_64BIT_MASK(8, 8))
#define CTR_RAS_TYPES           (CTR_TYPE_BIT(CTRDATA_TYPE_INDIRECT_CALL) | \
                                 CTR_TYPE_BIT(CTRDATA_TYPE_DIRECT_CALL) |   \
                                 CTR_TYPE_BIT(CTRDATA_TYPE_CO_ROUTINE_SWAP) | \
                                 CTR_TYPE_BIT(CTRDATA_TYPE_RETURN))

/* The xctrctl filter bit of a transfer type: bit 32 + TYPE. */
static inline uint64_t ctr_type_filter_bit(CTRType type)
{
    return BIT_ULL(XCTRCTL_INH_START + type);
}

bool riscv_ctr_validate_props(RISCVCPU *cpu, Error **errp)
{
    uint16_t depth = cpu->cfg.ctr_max_depth;

    if (depth < 16 || depth > RISCV_CTR_MAX_ENTRIES || !is_power_of_2(depth)) {
        error_setg(errp, "ctr-max-depth must be 16, 32, 64, 128 or 256");
        return false;
    }
    if (cpu->cfg.ctr_cce_bits > 4) {
        error_setg(errp, "ctr-cce-bits must be between 0 and 4");
        return false;
    }
    return true;
}

static inline uint32_t ctr_wrptr(CPURISCVState *env)
{
    return get_field(env->ctr.sctrstatus, SCTRSTATUS_WRPTR_MASK);
}

static inline void ctr_set_wrptr(CPURISCVState *env, uint32_t wrptr)
{
    env->ctr.sctrstatus = set_field(env->ctr.sctrstatus,
                                    SCTRSTATUS_WRPTR_MASK,
                                    wrptr & (riscv_ctr_depth(env) - 1));
}

void riscv_ctr_set_depth(CPURISCVState *env, uint32_t depth)
{
    uint32_t max = ctz32(riscv_cpu_cfg(env)->ctr_max_depth) - 4;

    env->ctr.sctrdepth = MIN(depth & SCTRDEPTH_MASK, max);
    ctr_set_wrptr(env, ctr_wrptr(env));
}

static inline bool ctr_frozen(CPURISCVState *env)
{
    return env->ctr.sctrstatus & SCTRSTATUS_FROZEN;
}

/* The control register whose fields apply while V=@virt. */
static inline uint64_t ctr_ctl(CPURISCVState *env, bool virt)
{
    return virt ? env->ctr.vsctrctl : env->ctr.mctrctl;
}

/* Mode enables: mctrctl.{M,S,U} for V=0, vsctrctl.{S,U} for V=1. */
static bool ctr_mode_enabled(CPURISCVState *env, target_ulong priv,
                             bool virt)
{
    uint64_t ctl = ctr_ctl(env, virt);

    switch (priv) {
    case PRV_M:
        return ctl & MCTRCTL_M;
    case PRV_S:
        return ctl & XCTRCTL_S;
    default:
        return ctl & XCTRCTL_U;
    }
}

/*
 * Start or stop the cycle counter after a change of mode or state.  Only
 * active cycles count (mode enabled, not frozen); inactive time is simply
 * not counted and leaves CCV alone.
 */
static void ctr_update_active(CPURISCVState *env)
{
    bool active = !ctr_frozen(env) &&
                  ctr_mode_enabled(env, env->priv, env->virt_enabled);

    uint64_t now;

    if (!riscv_cpu_cfg(env)->ctr_cycles || active == env->ctr.cc_active) {
        return;
    }
    now = riscv_cf_cycle_clock();
    if (active) {
        env->ctr.cc_start = now;
        env->ctr.an_time = now;
        env->ctr.an_insns = env->cf.insns;
    } else {
        env->ctr.cc_count += now - env->ctr.cc_start;
    }
    env->ctr.cc_active = active;
}

/* Zero CtrCycleCounter; the next record has CCV=0. */
static void ctr_cc_reset(CPURISCVState *env)
{
    env->ctr.cc_count = 0;
    env->ctr.cc_start = riscv_cf_cycle_clock();
    env->ctr.cc_invalid = true;
}

/*
 * Encode a CtrCycleCounter value as the 16-bit CC field: CCE = 0 below
 * 4096, otherwise the index of the most significant one minus 11, with
 * CCM the 12 bits below that one; saturate at the largest value the
 * implemented CCE bits can hold.
 */
static uint32_t ctr_cc_encode(uint64_t count, unsigned cce_bits)
{
    unsigned cce_max = (1U << cce_bits) - 1;
    unsigned cce;

    if (count < 4096) {
        return count;
    }
    cce = 63 - clz64(count) - 11;
    if (cce > cce_max) {
        return (cce_max << 12) | 0xfff;
    }
    return (cce << 12) | ((count >> (cce - 1)) & 0xfff);
}

/* The CCV and CC bits of a record counting @count cycles. */
static inline uint64_t ctr_cc_field(uint64_t count, bool ccv,
                                    unsigned cce_bits)
{
    return ((uint64_t)ctr_cc_encode(count, cce_bits) << 16) |
           (ccv ? CTRDATA_CCV : 0);
}

/* The CCV/CC bits of a new record made at time @now; restarts the counter. */
static uint64_t ctr_cc_take(CPURISCVState *env, bool invalid, uint64_t now)
{
    RISCVCPU *cpu = env_archcpu(env);
    uint64_t count, data;

    if (!cpu->cfg.ctr_cycles) {
        return 0;
    }
    count = env->ctr.cc_count;
    if (env->ctr.cc_active && now > env->ctr.cc_start) {
        count += now - env->ctr.cc_start;
    }
    data = ctr_cc_field(count, !env->ctr.cc_invalid && !invalid,
                        cpu->cfg.ctr_cce_bits);
    env->ctr.cc_count = 0;
    env->ctr.cc_start = now;
    env->ctr.cc_invalid = false;
    return data;
}

/* The time of a record made now, by a trap or trap return. */
static uint64_t ctr_now(CPURISCVState *env)
{
    return env->ctr.cc_active ? riscv_cf_cycle_clock() : 0;
}

/* A PC as an MXLEN-bit entry field: zero-extended when XLEN is 32. */
static inline uint64_t ctr_pc(uint64_t pc, RISCVMXL xl)
{
    return xl == MXL_RV32 ? (uint32_t)pc : pc;
}

static void ctr_write(CPURISCVState *env, uint32_t idx, uint64_t src,
                      uint64_t dst, CTRType type, uint64_t cc)
{
    env->ctr.src[idx] = (src & ~CTRSOURCE_VALID) | CTRSOURCE_VALID;
    env->ctr.dst[idx] = dst & ~CTRTARGET_MISP;
    env->ctr.data[idx] = type | cc;
    trace_riscv_ctr_record(env->mhartid, idx, type, src, dst, cc);
}

/* Record a qualified transfer made at time @now at logical entry 0. */
static void ctr_push(CPURISCVState *env, uint64_t src, uint64_t dst,
                     CTRType type, bool cc_invalid, uint64_t now)
{
    uint32_t idx = ctr_wrptr(env);

    ctr_write(env, idx, src, dst, type, ctr_cc_take(env, cc_invalid, now));
    ctr_set_wrptr(env, idx + 1);
}

/*
 * RAS emulation: calls push, returns pop (decrement WRPTR, then clear V
 * of that entry), co-routine swaps overwrite logical entry 0.  A call
 * recorded after a pop, and every swap, has CCV=0: the cycles of the
 * popped calls are not added back into the counter.
 */
static void ctr_ras(CPURISCVState *env, uint64_t src, uint64_t dst,
                    CTRType type, uint64_t now)
{
    uint32_t idx;

    switch (type) {
    case CTRDATA_TYPE_INDIRECT_CALL:
    case CTRDATA_TYPE_DIRECT_CALL:
        ctr_push(env, src, dst, type, env->ctr.ras_popped, now);
        env->ctr.ras_popped = false;
        break;
    case CTRDATA_TYPE_RETURN:
        idx = (ctr_wrptr(env) - 1) & (riscv_ctr_depth(env) - 1);
        ctr_set_wrptr(env, idx);
        env->ctr.src[idx] &= ~CTRSOURCE_VALID;
        env->ctr.ras_popped = true;
        trace_riscv_ctr_ras_pop(env->mhartid, idx);
        break;
    case CTRDATA_TYPE_CO_ROUTINE_SWAP:
        idx = (ctr_wrptr(env) - 1) & (riscv_ctr_depth(env) - 1);
        ctr_write(env, idx, src, dst, type, ctr_cc_take(env, true, now));
        env->ctr.ras_popped = false;
        break;
    default:
        break;
    }
}

/*
 * The transfer types recorded in the current mode: 0 when CTR is absent,
 * frozen or not enabled in the current mode.
 */
static uint32_t ctr_compute_tb_types(CPURISCVState *env)
{
    uint64_t ctl;
    uint32_t types = 0;
    int t;

    if (!riscv_ctr_present(env) || ctr_frozen(env) ||
        !ctr_mode_enabled(env, env->priv, env->virt_enabled)) {
        return 0;
    }

    ctl = ctr_ctl(env, env->virt_enabled);
    if (ctl & XCTRCTL_RASEMU) {
        return CTR_RAS_TYPES;
    }
    for (t = CTRDATA_TYPE_TAKEN_BRANCH; t <= CTRDATA_TYPE_OTHER_DIRECT_JUMP;
         t++) {
        if ((CTR_JUMP_TYPES & CTR_TYPE_BIT(t)) &&
            !(ctl & ctr_type_filter_bit(t))) {
            types |= CTR_TYPE_BIT(t);
        }
    }
    if (ctl & XCTRCTL_NTBREN) {
        types |= CTR_TYPE_BIT(CTRDATA_TYPE_NONTAKEN_BRANCH);
    }
    return types;
}

/* Bring the cached type mask, the cycle counter and the needs up to date. */
static void ctr_state_changed(CPURISCVState *env)
{
    env->ctr.tb_types = ctr_compute_tb_types(env);
    ctr_update_active(env);
    riscv_cf_update_needs(env);
}

/* Pipeline: what CTR needs in the current mode. */
static uint32_t ctr_needs(CPURISCVState *env, void *opaque)
{
    uint32_t needs = env->ctr.tb_types;

    if (needs && riscv_cpu_cfg(env)->ctr_cycles) {
        needs |= RISCV_CFLOW_NEED_INSNS;
    }
    return needs;
}

/* A transfer of a type CTR records (a block event never is one). */
static inline bool ctr_is_record(const RISCVCFEvent *ev, uint32_t types)
{
    return types & CTR_TYPE_BIT(riscv_cf_event_type(ev));
}

/*
 * Record a batch of transfers without RAS emulation, the common case.
 * Only the last sctrdepth records of a batch survive in the buffer: the
 * ones before are overwritten before software can read them, and their
 * only visible effects are on WRPTR and on the time the next record
 * counts its cycles from.  So they are skipped (unless the record trace
 * event is on), and the rest is written in one pass with the ring
 * pointer and the cycle counter in locals.
 *
 * Events are appended only for the types some consumer needs in the
 * mode they run in, and the buffer is drained whenever those needs
 * change, so when CTR records every type the pipeline appends and no
 * consumer needs block events, every event of the batch is a record and
 * the skipped ones are not even read.
 */
static void ctr_record_batch(CPURISCVState *env, const RISCVCFEvent *ev,
                             unsigned n, uint32_t types,
                             const RISCVCFClockMap *map)
{
    RISCVCTRState *ctr = &env->ctr;
    unsigned cce_bits = riscv_cpu_cfg(env)->ctr_cce_bits;
    uint32_t depth = riscv_ctr_depth(env);
    uint32_t mask = depth - 1;
    uint32_t wrptr = ctr_wrptr(env);
    bool rv32 = env->xl == MXL_RV32;
    bool ccv = !ctr->cc_invalid;
    uint64_t start = ctr->cc_start;
    uint64_t count0 = ctr->cc_count;
    bool trace = trace_event_get_state_backends(TRACE_RISCV_CTR_RECORD);
    bool all = !(env->cf.tb_needs & RISCV_CFLOW_NEED_BLOCKS) &&
               !(env->cf.tb_needs & RISCV_CFLOW_NEED_TYPES & ~types);
    unsigned i = 0, k = 0, skip = 0;

    if (n > depth && !trace) {
        if (all) {
            k = n;
        } else {
            for (i = 0; i < n; i++) {
                k += ctr_is_record(&ev[i], types);
            }
        }
        skip = k > depth ? k - depth : 0;
        i = 0;
    }
    if (skip) {
        /* Index of the last record overwritten: the next counts from it. */
        unsigned last = skip - 1;

        if (!all) {
            for (last = 0, k = 0;; last++) {
                k += ctr_is_record(&ev[last], types);
                if (k == skip) {
                    break;
                }
            }
        }
        wrptr = (wrptr + skip) & mask;
        if (map) {
            start = riscv_cf_clock_at(map, ev[last].insns);
            count0 = 0;
            ccv = true;
        }
        k = skip;
        i = last + 1;
    }

    for (; i < n; i++) {
        CTRType type = riscv_cf_event_type(&ev[i]);
        uint64_t src, dst, data = type;

        if (!(types & CTR_TYPE_BIT(type))) {
            continue;
        }
        src = ev[i].src;
        dst = ev[i].dst;
        if (rv32) {
            src = (uint32_t)src;
            dst = (uint32_t)dst;
        }
        if (map) {
            uint64_t t = riscv_cf_clock_at(map, ev[i].insns);
            uint64_t count = count0;

            if (t > start) {
                count += t - start;
            }
            data |= ctr_cc_field(count, ccv, cce_bits);
            ccv = true;
            count0 = 0;
            start = t;
        }
        ctr->src[wrptr] = src | CTRSOURCE_VALID;
        ctr->dst[wrptr] = dst & ~CTRTARGET_MISP;
        ctr->data[wrptr] = data;
        if (trace) {
            trace_riscv_ctr_record(env->mhartid, wrptr, type, src, dst,
                                   data & ~(uint64_t)CTRDATA_TYPE_MASK);
        }
        wrptr = (wrptr + 1) & mask;
        k++;
    }
    if (map && k) {
        ctr->cc_invalid = false;
        ctr->cc_count = 0;
        ctr->cc_start = start;
    }
    ctr_set_wrptr(env, wrptr);
}

/* Pipeline: record the transfers translated code appended. */
static void ctr_drain(CPURISCVState *env, void *opaque,
                      const RISCVCFEvent *ev, unsigned n)
{
    uint32_t types = env->ctr.tb_types;
    RISCVCFClockMap map;
    unsigned i;

    if (!env->ctr.cc_active && !(n && types)) {
        return;
    }
    if (env->ctr.cc_active) {
        riscv_cf_clock_map(env, env->ctr.an_time, env->ctr.an_insns, &map);
    }
    if (n && types &&
        !(ctr_ctl(env, env->virt_enabled) & XCTRCTL_RASEMU)) {
        ctr_record_batch(env, ev, n, types,
                         env->ctr.cc_active ? &map : NULL);
    } else {
        for (i = 0; i < n; i++) {
            CTRType type = riscv_cf_event_type(&ev[i]);

            if (types & CTR_TYPE_BIT(type)) {
                ctr_ras(env, ctr_pc(ev[i].src, env->xl),
                        ctr_pc(ev[i].dst, env->xl), type,
                        env->ctr.cc_active ?
                        riscv_cf_clock_at(&map, ev[i].insns) : 0);
            }
        }
    }
    if (env->ctr.cc_active) {
        env->ctr.an_time = map.now;
        env->ctr.an_insns = env->cf.insns;
    }
}

/*
 * External trap enables (spec table "External Trap Enable
 * Requirements"): the target mode's xTE plus those of every mode between
 * the source and the target.
 */
static bool ctr_external_trap_enabled(CPURISCVState *env,
                                      target_ulong src_priv, bool src_virt,
                                      target_ulong tgt_priv, bool tgt_virt)
{
    bool above_hs = tgt_priv == PRV_M || (tgt_priv == PRV_S && !tgt_virt);

    if (tgt_priv == PRV_M && !(env->ctr.mctrctl & MCTRCTL_MTE)) {
        return false;
    }
    if (above_hs && (src_priv == PRV_U || src_virt) &&
        !(env->ctr.mctrctl & XCTRCTL_STE)) {
        return false;
    }
    if (src_virt && src_priv == PRV_U &&
        !(env->ctr.vsctrctl & XCTRCTL_STE)) {
        return false;
    }
    return true;
}

/*
 * A trap or trap return from the current mode to @tgt_priv/@tgt_virt
 * (spec "Privilege Mode Transitions" and "Virtualization Mode
 * Transitions").  When V changes, or while V=1, the fields other than
 * the mode enables, xTE and the freeze bits come from vsctrctl.
 */
static void ctr_transition(CPURISCVState *env, CTRType type, uint64_t src,
                           uint64_t dst, target_ulong tgt_priv,
                           bool tgt_virt)
{
    target_ulong src_priv = env->priv;
    bool src_virt = env->virt_enabled;
    bool src_en = ctr_mode_enabled(env, src_priv, src_virt);
    bool tgt_en = ctr_mode_enabled(env, tgt_priv, tgt_virt);
    bool trap = type != CTRDATA_TYPE_EXCEP_INT_RET;
    uint64_t ctl = ctr_ctl(env, src_virt || tgt_virt);

    if (ctr_frozen(env) || (!src_en && !tgt_en) ||
        (ctl & XCTRCTL_RASEMU)) {
        return;
    }

    src = ctr_pc(src, env->xl);
    dst = ctr_pc(dst, cpu_get_xl(env, tgt_priv));

    if (src_en && tgt_en) {
        if (!(ctl & ctr_type_filter_bit(type))) {
            ctr_push(env, src, dst, type, false, ctr_now(env));
        }
    } else if (tgt_en) {
        /* From a disabled mode: only traps, with ctrsource.PC = 0. */
        if (trap && !(ctl & ctr_type_filter_bit(type))) {
            ctr_push(env, 0, dst, type, false, ctr_now(env));
        }
    } else if (trap) {
        /* External trap: EXCINH/INTRINH do not apply. */
        if (ctr_external_trap_enabled(env, src_priv, src_virt,
                                      tgt_priv, tgt_virt)) {
            ctr_push(env, src, 0, type, false, ctr_now(env));
        }
    } else if (!(ctl & ctr_type_filter_bit(type))) {
        /* Return to a disabled mode, with ctrtarget.PC = 0. */
        ctr_push(env, src, 0, type, false, ctr_now(env));
    }
}

static void ctr_freeze(CPURISCVState *env)
{
    env->ctr.sctrstatus |= SCTRSTATUS_FROZEN;
    ctr_state_changed(env);
    trace_riscv_ctr_freeze(env->mhartid);
}

/* Pipeline: a trap is taken (the pipeline has drained the transfers). */
static void ctr_trap(CPURISCVState *env, void *opaque, const RISCVCFTrap *trap)
{
    bool async = trap->async;
    target_ulong cause = trap->cause;
    uint64_t ctl;

    /*
     * Freeze: BPFRZ/LCOFIFRZ of mctrctl (sctrctl) for traps to M/HS-mode,
     * of vsctrctl for traps to VS-mode.  Only an LCOFI raised by a counter
     * overflow freezes in M/HS-mode; any virtual LCOFI does in VS-mode.
     * The trap that freezes is not recorded.
     */
    ctl = ctr_ctl(env, trap->target_virt);
    if ((!async && cause == RISCV_EXCP_BREAKPOINT &&
         (ctl & XCTRCTL_BPFRZ)) ||
        (async && cause == IRQ_PMU_OVF && (ctl & XCTRCTL_LCOFIFRZ) &&
         (trap->target_virt || env->ctr.lcofi_overflow))) {
        ctr_freeze(env);
        return;
    }

    ctr_transition(env, async ? CTRDATA_TYPE_INTERRUPT :
                   CTRDATA_TYPE_EXCEPTION, trap->epc, trap->handler,
                   trap->target_priv, trap->target_virt);
}

/* Pipeline: an xRET is about to change the mode. */
static void ctr_trap_return(CPURISCVState *env, void *opaque,
                            const RISCVCFTrapReturn *ret)
{
    ctr_transition(env, CTRDATA_TYPE_EXCEP_INT_RET, env->pc, ret->retpc,
                   ret->target_priv, ret->target_virt);
}

/* Pipeline: the mode has changed; start or stop recording and counting. */
static void ctr_after_mode_change(CPURISCVState *env, void *opaque)
{
    env->ctr.tb_types = ctr_compute_tb_types(env);
    ctr_update_active(env);
}

static const RISCVCFConsumerOps ctr_consumer = {
    .needs = ctr_needs,
    .drain = ctr_drain,
    .trap = ctr_trap,
    .trap_return = ctr_trap_return,
    .after_mode_change = ctr_after_mode_change,
};

void riscv_ctr_realize(RISCVCPU *cpu)
{
    if (riscv_ctr_present(&cpu->env)) {
        riscv_cf_register(&cpu->env, &ctr_consumer, NULL);
    }
}

void riscv_ctr_lcofi_overflow(CPURISCVState *env)
{
    env->ctr.lcofi_overflow = true;
}

void riscv_ctr_mip_updated(CPURISCVState *env, uint64_t mask)
{
    if ((mask & MIP_LCOFIP) && !(env->mip & MIP_LCOFIP)) {
        env->ctr.lcofi_overflow = false;
    }
}

/* Called after a write to a control register or sctrstatus. */
void riscv_ctr_state_written(CPURISCVState *env, bool ctl)
{
    if (ctl) {
        ctr_cc_reset(env);
        env->ctr.ras_popped = false;
    }
    ctr_state_changed(env);
}

void riscv_ctr_clear(CPURISCVState *env)
{
    memset(env->ctr.src, 0, sizeof(env->ctr.src));
    memset(env->ctr.dst, 0, sizeof(env->ctr.dst));
    memset(env->ctr.data, 0, sizeof(env->ctr.data));
    ctr_cc_reset(env);
    env->ctr.ras_popped = false;
}

void helper_ctr_clear(CPURISCVState *env)
{
    RISCVException ret = smstateen_acc_ok(env, 0, SMSTATEEN0_CTR);

    if (ret == RISCV_EXCP_NONE && env->priv == PRV_U) {
        ret = env->virt_enabled ? RISCV_EXCP_VIRT_INSTRUCTION_FAULT :
                                  RISCV_EXCP_ILLEGAL_INST;
    }
    if (ret != RISCV_EXCP_NONE) {
        riscv_raise_exception(env, ret, GETPC());
    }
    /* Transfers before the instruction advance WRPTR, then all is cleared. */
    riscv_cf_sync(env);
    riscv_ctr_clear(env);
}

void riscv_ctr_reset(CPURISCVState *env)
{
    memset(&env->ctr, 0, sizeof(env->ctr));
    env->ctr.cc_invalid = true;
}

/*
 * Migration.  The cycle counter is folded into cc_count before saving and
 * restarted from the destination's clock after loading.
 */
static bool ctr_needed(void *opaque)
{
    RISCVCPU *cpu = opaque;

    return riscv_ctr_present(&cpu->env);
}

static int ctr_pre_save(void *opaque)
{
    RISCVCPU *cpu = opaque;
    CPURISCVState *env = &cpu->env;

    riscv_cf_sync(env);
    if (env->ctr.cc_active) {
        uint64_t now = riscv_cf_cycle_clock();

        env->ctr.cc_count += now - env->ctr.cc_start;
        env->ctr.cc_start = now;
    }
    return 0;
}

static int ctr_post_load(void *opaque, int version_id)
{
    RISCVCPU *cpu = opaque;
    CPURISCVState *env = &cpu->env;

    /* Legalize what the stream may carry, as a CSR write would. */
    riscv_ctr_set_depth(env, env->ctr.sctrdepth);
    env->ctr.cc_start = riscv_cf_cycle_clock();
    env->ctr.an_time = env->ctr.cc_start;
    env->ctr.an_insns = env->cf.insns;
    env->ctr.tb_types = ctr_compute_tb_types(env);
    riscv_cf_update_needs(env);
    return 0;
}

static bool ctr_counter_needed(void *opaque)
{
    RISCVCPU *cpu = opaque;
    CPURISCVState *env = &cpu->env;

    return env->ctr.cc_count || env->ctr.cc_active || !env->ctr.cc_invalid ||
           env->ctr.ras_popped || env->ctr.lcofi_overflow;
}

static const VMStateDescription vmstate_riscv_ctr_counter = {
    .name = "cpu/ctr/counter",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = ctr_counter_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(env.ctr.cc_count, RISCVCPU),
        VMSTATE_BOOL(env.ctr.cc_active, RISCVCPU),
        VMSTATE_BOOL(env.ctr.cc_invalid, RISCVCPU),
        VMSTATE_BOOL(env.ctr.ras_popped, RISCVCPU),
        VMSTATE_BOOL(env.ctr.lcofi_overflow, RISCVCPU),
        VMSTATE_END_OF_LIST()
    }
};

/* Same layout as QEMU 10.0's "cpu/ctr" so streams stay compatible. */
const VMStateDescription vmstate_riscv_ctr = {
    .name = "cpu/ctr",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = ctr_needed,
    .pre_save = ctr_pre_save,
    .post_load = ctr_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(env.ctr.mctrctl, RISCVCPU),
        VMSTATE_UINT32(env.ctr.sctrdepth, RISCVCPU),
        VMSTATE_UINT32(env.ctr.sctrstatus, RISCVCPU),
        VMSTATE_UINT64(env.ctr.vsctrctl, RISCVCPU),
        VMSTATE_UINT64_ARRAY(env.ctr.src, RISCVCPU, RISCV_CTR_MAX_ENTRIES),
        VMSTATE_UINT64_ARRAY(env.ctr.dst, RISCVCPU, RISCV_CTR_MAX_ENTRIES),
        VMSTATE_UINT64_ARRAY(env.ctr.data, RISCVCPU, RISCV_CTR_MAX_ENTRIES),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_riscv_ctr_counter,
        NULL
    }
};
