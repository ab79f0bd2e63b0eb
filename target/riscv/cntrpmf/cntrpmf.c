/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V Smcntrpmf 1.0: privilege mode filtering of cycle and instret.
 *
 * The model is described in cntrpmf.h; the user-visible behaviour in
 * docs/system/riscv/cntrpmf.rst.
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"
#include "cpu.h"
#include "exec/icount.h"
#include "migration/vmstate.h"
#include "pmu.h"
#include "cflow/cflow.h"
#include "cntrpmf/cntrpmf.h"
#include "trace.h"

/* mcountinhibit bit of mcycle and minstret */
static const target_ulong cntrpmf_inhibit_bit[RISCV_CNTRPMF_NR_SOURCES] = {
    [RISCV_CNTRPMF_CYCLE] = COUNTEREN_CY,
    [RISCV_CNTRPMF_INSTRET] = COUNTEREN_IR,
};

/* The running total of @src that per-mode accounting samples. */
static uint64_t cntrpmf_source(CPURISCVState *env, RISCVCntrpmfSource src)
{
    if (src == RISCV_CNTRPMF_CYCLE) {
        return riscv_cf_cycle_clock();
    }
    if (riscv_cpu_cfg(env)->ext_smcntrpmf) {
        return env->cf.insns;
    }
    /* QEMU's instret without Smcntrpmf */
    return icount_enabled() ? icount_get_raw() : cpu_get_host_ticks();
}

static RISCVCntrpmfMode cntrpmf_cur_mode(CPURISCVState *env)
{
    return riscv_cntrpmf_mode(env->priv, env->virt_enabled);
}

/* The xINH bits the CPU implements. */
static uint64_t cntrpmf_inh_mask(CPURISCVState *env)
{
    uint64_t mask = RISCV_CNTRPMF_INH(RISCV_CNTRPMF_M);

    if (riscv_has_ext(env, RVS)) {
        mask |= RISCV_CNTRPMF_INH(RISCV_CNTRPMF_S);
    }
    if (riscv_has_ext(env, RVU)) {
        mask |= RISCV_CNTRPMF_INH(RISCV_CNTRPMF_U);
    }
    if (riscv_has_ext(env, RVH)) {
        mask |= RISCV_CNTRPMF_INH(RISCV_CNTRPMF_VS) |
                RISCV_CNTRPMF_INH(RISCV_CNTRPMF_VU);
    }
    return mask;
}

/* Bitmap of the modes @filter lets count. */
static uint32_t cntrpmf_counting_modes(uint64_t filter)
{
    uint32_t modes = 0;
    int m;

    for (m = 0; m < RISCV_CNTRPMF_NR_MODES; m++) {
        if (!(filter & RISCV_CNTRPMF_INH(m))) {
            modes |= BIT(m);
        }
    }
    return modes;
}

uint64_t riscv_cntrpmf_events(CPURISCVState *env, RISCVCntrpmfSource src,
                              uint64_t filter)
{
    RISCVCntrpmfState *s = &env->cntrpmf;
    RISCVCntrpmfMode cur = cntrpmf_cur_mode(env);
    uint64_t sum = 0;
    int m;

    for (m = 0; m < RISCV_CNTRPMF_NR_MODES; m++) {
        if (!(filter & RISCV_CNTRPMF_INH(m))) {
            sum += s->events[src][m];
        }
    }
    if (!(filter & RISCV_CNTRPMF_INH(cur))) {
        sum += cntrpmf_source(env, src) - s->snap[src];
    }
    return sum;
}

uint64_t riscv_cntrpmf_events_seen(CPURISCVState *env,
                                   RISCVCntrpmfSource src, uint64_t filter)
{
    uint64_t events = riscv_cntrpmf_events(env, src, filter);

    /*
     * The CSR instruction reading instret was counted when its block
     * started but has not retired yet (Zicsr: it reads the value before
     * its own execution).  A debugger access is not an instruction.
     */
    if (src == RISCV_CNTRPMF_INSTRET && !env->debugger &&
        riscv_cpu_cfg(env)->ext_smcntrpmf &&
        !(filter & RISCV_CNTRPMF_INH(cntrpmf_cur_mode(env)))) {
        events--;
    }
    return events;
}

static bool cntrpmf_stopped(CPURISCVState *env, RISCVCntrpmfSource src)
{
    return env->mcountinhibit & cntrpmf_inhibit_bit[src];
}

/* mcycle/minstret as of now, counting everything executed so far. */
static uint64_t cntrpmf_counter(CPURISCVState *env, RISCVCntrpmfSource src)
{
    RISCVCntrpmfState *s = &env->cntrpmf;

    if (cntrpmf_stopped(env, src)) {
        return s->value[src];
    }
    return s->value[src] +
           riscv_cntrpmf_events(env, src, s->cfg[src]) - s->base[src];
}

/* Restart the counter at @value under the current filter. */
static void cntrpmf_set_counter(CPURISCVState *env, RISCVCntrpmfSource src,
                                uint64_t value)
{
    RISCVCntrpmfState *s = &env->cntrpmf;

    s->value[src] = value;
    s->base[src] = riscv_cntrpmf_events(env, src, s->cfg[src]);
    trace_riscv_cntrpmf_set_counter(env->mhartid, src, value);
}

/*
 * Exact overflow of the programmable counters that count instructions
 * (Sscofpmf): each such counter wraps when env->cf.insns reaches its
 * wrap point, which holds while the mode does not change (the counter
 * counts every instruction of this mode, or none).  The pipeline stops
 * the count at the nearest wrap point (RISCV_CFLOW_NEED_INSN_LIMIT), and
 * the overflow is raised before the next instruction runs.
 */

/* Raise the overflows of the counters that have reached their wrap point. */
static void cntrpmf_overflows(CPURISCVState *env)
{
    RISCVCntrpmfState *s = &env->cntrpmf;
    uint32_t mask = s->wrap_mask;

    while (mask) {
        int i = ctz32(mask);

        mask &= mask - 1;
        if (s->wrap[i] <= env->cf.insns) {
            s->wrap[i] = 0;
            s->wrap_mask &= ~BIT(i);
            trace_riscv_cntrpmf_overflow(env->mhartid, i, env->cf.insns);
            riscv_pmu_ctr_overflow(env, i);
        }
    }
}

void riscv_cntrpmf_update(CPURISCVState *env)
{
    RISCVCPU *cpu = env_archcpu(env);
    RISCVCntrpmfState *s = &env->cntrpmf;
    uint32_t modes = 0;
    int i;

    if (!cpu->cfg.ext_smcntrpmf) {
        s->instret_modes = 0;
        return;
    }
    if (!cntrpmf_stopped(env, RISCV_CNTRPMF_INSTRET)) {
        modes |= cntrpmf_counting_modes(s->cfg[RISCV_CNTRPMF_INSTRET]);
    }
    /* A programmable counter counting the instructions event. */
    s->armable = 0;
    for (i = 3; i < RV_MAX_MHPMCOUNTERS; i++) {
        if ((cpu->pmu_avail_ctrs & BIT(i)) &&
            !(env->mcountinhibit & BIT(i)) &&
            riscv_pmu_ctr_monitor_instructions(env, i)) {
            modes |= cntrpmf_counting_modes(riscv_pmu_event_filter(env, i));
            if (riscv_pmu_insn_overflow_armed(env, i)) {
                s->armable |= BIT(i);
            }
        }
    }
    s->instret_modes = modes;
    trace_riscv_cntrpmf_modes(env->mhartid, modes, s->armable);
    /* An overflow due at the instruction that changed them is raised. */
    cntrpmf_overflows(env);
    riscv_cf_update_needs(env);
}

/*
 * The wrap points of the counters in the current mode, and the nearest.
 * An overflow already due stays due: it is raised at the instruction
 * limit (cntrpmf_insn_limit), before a mode change or when the counters
 * change, never by this query.
 */
static void cntrpmf_wrap_points(CPURISCVState *env, bool counting)
{
    RISCVCntrpmfState *s = &env->cntrpmf;
    uint64_t mode_inh = RISCV_CNTRPMF_INH(cntrpmf_cur_mode(env));
    uint64_t limit = UINT64_MAX;
    uint32_t due = 0, mask;

    QEMU_BUILD_BUG_ON(ARRAY_SIZE(s->wrap) != RV_MAX_MHPMCOUNTERS);
    for (mask = s->wrap_mask; mask; mask &= mask - 1) {
        int i = ctz32(mask);

        if (s->wrap[i] <= env->cf.insns) {
            due |= BIT(i);
            limit = MIN(limit, s->wrap[i]);
        }
    }
    s->wrap_mask = due;
    mask = counting ? s->armable & ~due : 0;
    while (mask) {
        int i = ctz32(mask);
        uint64_t left;

        mask &= mask - 1;
        if (!riscv_pmu_insn_overflow_armed(env, i) ||
            (riscv_pmu_event_filter(env, i) & mode_inh)) {
            continue;
        }
        /* instructions until the counter goes from all ones to 0 */
        left = -riscv_pmu_ctr_value(env, i, false);
        if (left && left < UINT64_MAX - env->cf.insns) {
            s->wrap[i] = env->cf.insns + left;
            s->wrap_mask |= BIT(i);
            trace_riscv_cntrpmf_wrap_point(env->mhartid, i, s->wrap[i]);
            limit = MIN(limit, s->wrap[i]);
        }
    }
    env->cf.insn_limit = limit;
}

/*
 * Pipeline: count instructions in the modes some instret counter counts,
 * stopping where an instructions counter overflows.
 */
static uint32_t cntrpmf_needs(CPURISCVState *env, void *opaque)
{
    bool counting = env->cntrpmf.instret_modes & BIT(cntrpmf_cur_mode(env));

    cntrpmf_wrap_points(env, counting);
    if (!counting) {
        return 0;
    }
    return RISCV_CFLOW_NEED_INSNS |
           (env->cf.insn_limit != UINT64_MAX ? RISCV_CFLOW_NEED_INSN_LIMIT : 0);
}

/* Pipeline: the count is at the nearest wrap point. */
static void cntrpmf_insn_limit(CPURISCVState *env, void *opaque)
{
    cntrpmf_overflows(env);
}

/* Accumulate the events of the current mode up to now. */
static void cntrpmf_account(CPURISCVState *env)
{
    RISCVCntrpmfState *s = &env->cntrpmf;
    RISCVCntrpmfMode cur = cntrpmf_cur_mode(env);
    RISCVCntrpmfSource src;

    for (src = 0; src < RISCV_CNTRPMF_NR_SOURCES; src++) {
        uint64_t now = cntrpmf_source(env, src);

        s->events[src][cur] += now - s->snap[src];
        s->snap[src] = now;
    }
}

/*
 * Pipeline: the mode is about to change.  An overflow due at the last
 * instruction of the mode is raised before the change; the events of
 * the mode being left are accumulated.
 */
static void cntrpmf_before_mode_change(CPURISCVState *env, void *opaque)
{
    cntrpmf_overflows(env);
    cntrpmf_account(env);
}

static const RISCVCFConsumerOps cntrpmf_consumer = {
    .needs = cntrpmf_needs,
    .insn_limit = cntrpmf_insn_limit,
    .before_mode_change = cntrpmf_before_mode_change,
};

/*
 * With or without Smcntrpmf: the per-mode accounting serves the mode
 * filters of the programmable counters too (Sscofpmf); without it the
 * consumer never needs anything in translated code.
 */
void riscv_cntrpmf_realize(RISCVCPU *cpu)
{
    riscv_cf_register(&cpu->env, &cntrpmf_consumer, NULL);
}

void riscv_cntrpmf_reset(CPURISCVState *env)
{
    RISCVCntrpmfState *s = &env->cntrpmf;
    RISCVCntrpmfSource src;

    memset(s, 0, sizeof(*s));
    for (src = 0; src < RISCV_CNTRPMF_NR_SOURCES; src++) {
        s->snap[src] = cntrpmf_source(env, src);
        cntrpmf_set_counter(env, src, 0);
    }
    riscv_cntrpmf_update(env);
}

void riscv_cntrpmf_mcountinhibit_changed(CPURISCVState *env,
                                         target_ulong old)
{
    RISCVCntrpmfState *s = &env->cntrpmf;
    RISCVCntrpmfSource src;

    for (src = 0; src < RISCV_CNTRPMF_NR_SOURCES; src++) {
        target_ulong bit = cntrpmf_inhibit_bit[src];
        uint64_t events;

        if (!((old ^ env->mcountinhibit) & bit)) {
            continue;
        }
        events = riscv_cntrpmf_events(env, src, s->cfg[src]);
        if (old & bit) {
            /* restart from the value it stopped at */
            s->base[src] = events;
        } else {
            s->value[src] += events - s->base[src];
        }
    }
    riscv_cntrpmf_update(env);
}

/* The RV32 half or the RV64 whole of @v a register access sees. */
static target_ulong cntrpmf_half(CPURISCVState *env, uint64_t v, bool high)
{
    if (riscv_cpu_mxl(env) == MXL_RV32) {
        return high ? v >> 32 : (uint32_t)v;
    }
    return v;
}

/* @v with the half (or the whole) a register access writes replaced. */
static uint64_t cntrpmf_deposit(CPURISCVState *env, uint64_t v, bool high,
                                target_ulong val)
{
    if (riscv_cpu_mxl(env) == MXL_RV32) {
        return deposit64(v, high ? 32 : 0, 32, val);
    }
    return val;
}

target_ulong riscv_cntrpmf_read_counter(CPURISCVState *env,
                                        RISCVCntrpmfSource src, bool high)
{
    RISCVCntrpmfState *s = &env->cntrpmf;
    uint64_t value = s->value[src];

    if (!cntrpmf_stopped(env, src)) {
        value += riscv_cntrpmf_events_seen(env, src, s->cfg[src]) -
                 s->base[src];
    }
    return cntrpmf_half(env, value, high);
}

void riscv_cntrpmf_write_counter(CPURISCVState *env, RISCVCntrpmfSource src,
                                 bool high, target_ulong val)
{
    uint64_t value = cntrpmf_deposit(env, cntrpmf_counter(env, src), high,
                                     val);

    /*
     * The written value replaces the increment of the writing instruction
     * (counted when its block started): the next instruction reads it.
     */
    cntrpmf_set_counter(env, src, value);
}

/* Change a filter from now on; the count so far is kept. */
static void cntrpmf_set_cfg(CPURISCVState *env, RISCVCntrpmfSource src,
                            uint64_t cfg)
{
    RISCVCntrpmfState *s = &env->cntrpmf;
    uint64_t value = cntrpmf_counter(env, src);

    s->cfg[src] = cfg & cntrpmf_inh_mask(env);
    trace_riscv_cntrpmf_set_cfg(env->mhartid, src, s->cfg[src]);
    if (!cntrpmf_stopped(env, src)) {
        cntrpmf_set_counter(env, src, value);
    }
    riscv_cntrpmf_update(env);
}

static RISCVCntrpmfSource cntrpmf_cfg_source(int csrno)
{
    return csrno == CSR_MCYCLECFG || csrno == CSR_MCYCLECFGH ?
           RISCV_CNTRPMF_CYCLE : RISCV_CNTRPMF_INSTRET;
}

RISCVException riscv_cntrpmf_read_cfg(CPURISCVState *env, int csrno,
                                      target_ulong *val)
{
    bool high = csrno == CSR_MCYCLECFGH || csrno == CSR_MINSTRETCFGH;

    *val = cntrpmf_half(env, env->cntrpmf.cfg[cntrpmf_cfg_source(csrno)],
                        high);
    return RISCV_EXCP_NONE;
}

RISCVException riscv_cntrpmf_write_cfg(CPURISCVState *env, int csrno,
                                       target_ulong val, uintptr_t ra)
{
    RISCVCntrpmfSource src = cntrpmf_cfg_source(csrno);
    bool high = csrno == CSR_MCYCLECFGH || csrno == CSR_MINSTRETCFGH;

    cntrpmf_set_cfg(env, src,
                    cntrpmf_deposit(env, env->cntrpmf.cfg[src], high, val));
    return RISCV_EXCP_NONE;
}

void riscv_cntrpmf_rmw_deleg(CPURISCVState *env, RISCVCntrpmfSource src,
                             bool high, target_ulong *val,
                             target_ulong new_val, target_ulong wr_mask)
{
    const uint64_t minh = RISCV_CNTRPMF_INH(RISCV_CNTRPMF_M);
    uint64_t cfg = env->cntrpmf.cfg[src];
    target_ulong view = cntrpmf_half(env, cfg & ~minh, high);

    if (val) {
        *val = view;
    }
    if (wr_mask) {
        uint64_t next = cntrpmf_deposit(env, cfg, high,
                                        (view & ~wr_mask) |
                                        (new_val & wr_mask));

        cntrpmf_set_cfg(env, src, (next & ~minh) | (cfg & minh));
    }
}

static int cntrpmf_pre_save(void *opaque)
{
    RISCVCPU *cpu = opaque;

    /* Account the current mode up to now; the snapshot is host-specific. */
    cntrpmf_account(&cpu->env);
    /* An overflow due before the next instruction is raised now. */
    cntrpmf_overflows(&cpu->env);
    return 0;
}

static int cntrpmf_post_load(void *opaque, int version_id)
{
    RISCVCPU *cpu = opaque;
    CPURISCVState *env = &cpu->env;
    RISCVCntrpmfState *s = &env->cntrpmf;
    uint64_t mask = cntrpmf_inh_mask(env);

    s->cfg[RISCV_CNTRPMF_CYCLE] &= mask;
    s->cfg[RISCV_CNTRPMF_INSTRET] &= mask;
    s->snap[RISCV_CNTRPMF_CYCLE] = riscv_cf_cycle_clock();
    s->snap[RISCV_CNTRPMF_INSTRET] = cntrpmf_source(env,
                                                    RISCV_CNTRPMF_INSTRET);
    riscv_cntrpmf_update(env);
    return 0;
}

/* Counted something, or configured: not the state after reset. */
static bool cntrpmf_needed(void *opaque)
{
    RISCVCPU *cpu = opaque;
    RISCVCntrpmfState *s = &cpu->env.cntrpmf;
    RISCVCntrpmfSource src;
    int m;

    for (src = 0; src < RISCV_CNTRPMF_NR_SOURCES; src++) {
        if (s->cfg[src] || s->value[src] || s->base[src]) {
            return true;
        }
        for (m = 0; m < RISCV_CNTRPMF_NR_MODES; m++) {
            if (s->events[src][m]) {
                return true;
            }
        }
    }
    /* Since the last mode change (the snapshot is taken at reset). */
    return cntrpmf_source(&cpu->env, RISCV_CNTRPMF_CYCLE) !=
           s->snap[RISCV_CNTRPMF_CYCLE] ||
           cntrpmf_source(&cpu->env, RISCV_CNTRPMF_INSTRET) !=
           s->snap[RISCV_CNTRPMF_INSTRET];
}

const VMStateDescription vmstate_riscv_cntrpmf = {
    .name = "cpu/cntrpmf",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = cntrpmf_needed,
    .pre_save = cntrpmf_pre_save,
    .post_load = cntrpmf_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64_ARRAY(env.cntrpmf.cfg, RISCVCPU,
                             RISCV_CNTRPMF_NR_SOURCES),
        VMSTATE_UINT64_ARRAY(env.cntrpmf.value, RISCVCPU,
                             RISCV_CNTRPMF_NR_SOURCES),
        VMSTATE_UINT64_ARRAY(env.cntrpmf.base, RISCVCPU,
                             RISCV_CNTRPMF_NR_SOURCES),
        VMSTATE_UINT64_2DARRAY(env.cntrpmf.events, RISCVCPU,
                               RISCV_CNTRPMF_NR_SOURCES,
                               RISCV_CNTRPMF_NR_MODES),
        VMSTATE_END_OF_LIST()
    }
};
