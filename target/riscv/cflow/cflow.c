/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V control-flow event pipeline: consumers, needs and sync points.
 *
 * See cflow.h for the model and docs/devel/riscv-cflow.rst for how the
 * consumers use it.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "cpu.h"
#include "exec/helper-proto.h"
#include "tcg/insn-start-words.h"
#include "exec/translation-block.h"
#ifdef CONFIG_TCG
#include "tcg/tcg.h"
#endif
#include "qemu/host-utils.h"
#include "exec/icount.h"
#include "migration/vmstate.h"
#include "cflow/cflow.h"
#include "trace.h"

/* Call @hook(env, opaque, ...) of every consumer that has it, in order. */
#define CF_CALL_HOOKS(env, hook, ...)                                   \
    do {                                                                \
        RISCVCFState *cf_ = &(env)->cf;                                 \
        unsigned i_;                                                    \
                                                                        \
        for (i_ = 0; i_ < cf_->nr_consumers; i_++) {                    \
            const RISCVCFConsumer *c_ = &cf_->consumers[i_];            \
                                                                        \
            if (c_->ops->hook) {                                        \
                c_->ops->hook((env), c_->opaque, ##__VA_ARGS__);        \
            }                                                           \
        }                                                               \
    } while (0)

void riscv_cf_register(CPURISCVState *env, const RISCVCFConsumerOps *ops,
                       void *opaque)
{
    RISCVCFState *cf = &env->cf;

    cf->consumers = g_renew(RISCVCFConsumer, cf->consumers,
                            cf->nr_consumers + 1);
    cf->consumers[cf->nr_consumers].ops = ops;
    cf->consumers[cf->nr_consumers].opaque = opaque;
    cf->nr_consumers++;
    riscv_cf_update_needs(env);
}

void riscv_cf_update_needs(CPURISCVState *env)
{
    RISCVCFState *cf = &env->cf;
    uint32_t needs = 0, others = 0, bmap = 0;
    unsigned i;

    for (i = 0; i < cf->nr_consumers; i++) {
        const RISCVCFConsumer *c = &cf->consumers[i];
        uint32_t n = c->ops->needs ? c->ops->needs(env, c->opaque) : 0;

        if ((n & RISCV_CFLOW_NEED_BMAP) && !bmap) {
            bmap = n;
        } else {
            others |= n & ~RISCV_CFLOW_NEED_BMAP;
        }
    }
    /*
     * Branch-map mode for the one consumer that asks, unless another
     * needs events (whose sync points could fall inside a block), or
     * it needs data events, which are ordered after their block's.
     */
    if (bmap && !((others | bmap) & RISCV_CFLOW_NEED_DATA) &&
        !(others & (RISCV_CFLOW_NEED_TYPES | RISCV_CFLOW_NEED_BLOCKS))) {
        needs = others | (bmap & ~(RISCV_CFLOW_NEED_TYPES |
                                   RISCV_CFLOW_NEED_BLOCKS));
    } else {
        needs = others | (bmap & ~RISCV_CFLOW_NEED_BMAP);
    }
    /*
     * Data events follow their block's event: unwinding finds the block
     * by it, and a consumer that records every transfer type (CTR) reads
     * a batch without block events as all records.
     */
    if (needs & RISCV_CFLOW_NEED_DATA) {
        needs |= RISCV_CFLOW_NEED_BLOCKS;
    }
    if (!(needs & RISCV_CFLOW_NEED_INSN_LIMIT)) {
        cf->insn_step = false;
    } else if (cf->insn_step) {
        needs |= RISCV_CFLOW_NEED_STEP;
    }
    if ((needs & (RISCV_CFLOW_NEED_TYPES | RISCV_CFLOW_NEED_BLOCKS |
                  RISCV_CFLOW_NEED_DATA)) && !cf->buf) {
        cf->buf = g_new(RISCVCFEvent, RISCV_CFLOW_BUF_EVENTS);
    }
    cf->tb_needs = needs & RISCV_CFLOW_NEED_ALL;
}

void riscv_cf_sync(CPURISCVState *env)
{
    unsigned n = env->cf.fill / sizeof(RISCVCFEvent);

    /* Consumers may sync again (a CSR access from a hook): empty first. */
    env->cf.fill = 0;
    CF_CALL_HOOKS(env, drain, env->cf.buf, n);
}

/*
 * Branch-map mode: a block with the RISCV_CFLOW_BM_INFO_* facts @info
 * starts at @pc, and the consumer is to look first.  Neither reads nor
 * writes the TCG globals (env->pc is not up to date).
 */
void helper_cf_bmap_look(CPURISCVState *env, uint64_t pc, uint64_t info)
{
    RISCVCFState *cf = &env->cf;
    bool open = false;
    unsigned i;

    for (i = 0; i < cf->nr_consumers; i++) {
        const RISCVCFConsumer *c = &cf->consumers[i];

        if (c->ops->bmap_look) {
            open |= c->ops->bmap_look(env, c->opaque, pc);
        }
    }
    cf->bm_open_first = pc;
    cf->bm_open_info = info;
    cf->bm_open_count = open ? info & RISCV_CFLOW_BM_INFO_COUNT : 0;
    cf->bm_prev = cf->bm_last;
    cf->bm_last = pc + ((info & RISCV_CFLOW_BM_INFO_OFS) >>
                        RISCV_CFLOW_BM_INFO_OFS_SHIFT);
    cf->bm_prev_state = cf->bm_state;
    cf->bm_state = open ? RISCV_CFLOW_BM_OPEN : RISCV_CFLOW_BM_SKIPPED;
}

/* Translated code filled the buffer. */
void helper_cf_drain(CPURISCVState *env)
{
    riscv_cf_sync(env);
}

/*
 * The block about to run would count past insn_limit: @len, its length,
 * is already in insns.  Undo the block; then run the instructions before
 * the limit one per block, or, at the limit, let the consumers act (a
 * counter overflows) before the block's first instruction: both ask them
 * for their needs again.
 */
void helper_cf_insn_limit(CPURISCVState *env, uint32_t len)
{
    CPUState *cs = env_cpu(env);
    bool at_limit = env->cf.insns - len >= env->cf.insn_limit;

    cpu_restore_state(cs, GETPC());
    /* for -d exec: the block logged as entered ran no instruction */
    qemu_log_mask(CPU_LOG_EXEC, "riscv_cf_insn_limit: hart:%" PRIu64
                  ", block at 0x%" VADDR_PRIx " undone\n",
                  (uint64_t)env->mhartid, (vaddr)env->pc);
    env->cf.insn_step = !at_limit;
    if (at_limit) {
        CF_CALL_HOOKS(env, insn_limit);
    }
    riscv_cf_update_needs(env);
    cpu_loop_exit(cs);
}

/*
 * A vector load or store starts, instruction @index of its block, which
 * appends data events: its element accesses are recorded.  One that then
 * traps records none (riscv_cf_trap()).
 */
void helper_cf_vdata_begin(CPURISCVState *env, uint32_t index)
{
    RISCVCFState *cf = &env->cf;
    /* elements of a register group of 8, or of 8 fields */
    uint32_t cap = 8 * env_archcpu(env)->cfg.vlenb;

    if (cf->vcap < cap) {
        cf->vbuf = g_renew(RISCVCFEvent, cf->vbuf, cap);
        cf->vcap = cap;
    }
    cf->vinsn = index + 1;
    cf->vcount = 0;
}

void riscv_cf_vrec_access(CPURISCVState *env, uint64_t addr, uint64_t value,
                          unsigned log2_size, bool store)
{
    RISCVCFState *cf = &env->cf;
    RISCVCFEvent *ev;

    if (cf->vcount >= cf->vcap) {
        qemu_log_mask(LOG_UNIMP, "riscv_cf: more than %u element accesses "
                      "in one vector instruction\n", cf->vcap);
        return;
    }
    ev = &cf->vbuf[cf->vcount++];
    ev->src = addr;
    ev->dst = value;
    ev->insns = 0;
    ev->info = RISCV_CFLOW_EV_DATA << RISCV_CFLOW_EV_KIND_SHIFT |
               RISCV_CFLOW_EV_DATA_MMA |
               (store ? RISCV_CFLOW_DATA_STORE : RISCV_CFLOW_DATA_LOAD) <<
               RISCV_CFLOW_EV_DATA_TYPE_SHIFT |
               (log2_size & 3) << RISCV_CFLOW_EV_DATA_SIZE_SHIFT;
    ev->count = cf->vinsn - 1;
}

/*
 * The vector load or store retired: its accesses follow the block's
 * other data events.  It is the last instruction of its block, so that
 * nothing is unwound once the buffer drains in the middle of them.
 */
void helper_cf_vdata_end(CPURISCVState *env)
{
    RISCVCFState *cf = &env->cf;
    uint32_t i;

    for (i = 0; i < cf->vcount; i++) {
        if (cf->fill >= RISCV_CFLOW_BUF_EVENTS * sizeof(RISCVCFEvent)) {
            riscv_cf_sync(env);
        }
        cf->buf[cf->fill / sizeof(RISCVCFEvent)] = cf->vbuf[i];
        cf->fill += sizeof(RISCVCFEvent);
    }
    cf->vinsn = 0;
    cf->vcount = 0;
}

void riscv_cf_trap(CPURISCVState *env, const RISCVCFTrap *trap)
{
    /* a vector load or store that traps retires no access */
    env->cf.vinsn = 0;
    riscv_cf_sync(env);
    CF_CALL_HOOKS(env, trap, trap);
    env->cf.ebreak_len = 0;
    env->cf.const_rd = 0;
}

void riscv_cf_trap_return(CPURISCVState *env, uint64_t retpc,
                          target_ulong target_priv, bool target_virt)
{
    RISCVCFTrapReturn ret = {
        .retpc = retpc,
        .target_priv = target_priv,
        .target_virt = target_virt,
    };

    riscv_cf_sync(env);
    CF_CALL_HOOKS(env, trap_return, &ret);
}

void riscv_cf_before_mode_change(CPURISCVState *env)
{
    riscv_cf_sync(env);
    CF_CALL_HOOKS(env, before_mode_change);
}

void riscv_cf_after_mode_change(CPURISCVState *env)
{
    CF_CALL_HOOKS(env, after_mode_change);
    riscv_cf_update_needs(env);
}

uint64_t riscv_cf_cycle_clock(void)
{
    return icount_enabled() ? icount_get() : cpu_get_host_ticks();
}

void riscv_cf_clock_map(CPURISCVState *env, uint64_t an_time,
                        uint64_t an_insns, RISCVCFClockMap *map)
{
    uint64_t span, lo, hi;

    map->now = riscv_cf_cycle_clock();
    map->time = an_time;
    map->insns = an_insns;
    span = env->cf.insns - an_insns;
    if (icount_enabled()) {
        map->rate = (uint64_t)icount_to_ns(1) << 32;
    } else if (span) {
        lo = (map->now - map->time) << 32;
        hi = (map->now - map->time) >> 32;
        divu128(&lo, &hi, span);
        map->rate = hi ? UINT64_MAX : lo;
    } else {
        map->rate = 0;
    }
}

void riscv_cf_record_code(CPURISCVState *env)
{
    env->cf.code = true;
}

void riscv_cf_code_insn(CPURISCVState *env, uint64_t pc, uint32_t insn,
                        unsigned len)
{
    CF_CALL_HOOKS(env, code_insn, pc, insn, len);
}

void riscv_cf_code_end(CPURISCVState *env)
{
    CF_CALL_HOOKS(env, code_end);
}

void riscv_cf_code_map(CPURISCVState *env, uint64_t va, uint64_t pa,
                       target_ulong priv, bool virt)
{
    CF_CALL_HOOKS(env, code_map, va, pa, priv, virt);
}

void riscv_cf_watch_context(CPURISCVState *env)
{
    env->cf.context = true;
}

void riscv_cf_context_changed(CPURISCVState *env)
{
    riscv_cf_sync(env);
    CF_CALL_HOOKS(env, context_changed);
}

void riscv_cf_reset(CPURISCVState *env)
{
    env->cf.fill = 0;
    env->cf.insns = 0;
    env->cf.vinsn = 0;
    riscv_cf_bmap_arm(env, 0, true);
}

/*
 * The instruction at @index of the running block did not retire, nor the
 * @left - 1 after it: take back the data events of those instructions,
 * and cut the block's event back to the instructions before it.
 */
static void cf_unwind_block(CPURISCVState *env, unsigned index,
                            uint64_t left, bool prev_rvc)
{
    RISCVCFState *cf = &env->cf;
    RISCVCFEvent *ev;

    /*
     * The block's event is the last one but for the data events of its
     * instructions: it is appended when the block starts, with room for
     * them (a full buffer is drained before the block, not after), and a
     * transfer is appended only once its instruction can no longer trap.
     */
    while (cf->fill) {
        ev = &cf->buf[cf->fill / sizeof(RISCVCFEvent) - 1];
        if (riscv_cf_event_kind(ev) != RISCV_CFLOW_EV_DATA ||
            ev->count < index) {
            break;
        }
        cf->fill -= sizeof(RISCVCFEvent);
    }
    if (!cf->fill) {
        return;
    }
    ev = &cf->buf[cf->fill / sizeof(RISCVCFEvent) - 1];
    if (riscv_cf_event_kind(ev) == RISCV_CFLOW_EV_DATA) {
        /* data events of retired instructions: the block's is before */
        unsigned i = cf->fill / sizeof(RISCVCFEvent) - 1;

        while (i && riscv_cf_event_kind(&cf->buf[i]) == RISCV_CFLOW_EV_DATA) {
            i--;
        }
        ev = &cf->buf[i];
    }
    if (riscv_cf_event_kind(ev) != RISCV_CFLOW_EV_BLOCK) {
        return;
    }
    if (ev->count <= left) {
        /* it retired nothing, and so made no access */
        cf->fill -= sizeof(RISCVCFEvent);
        return;
    }
    ev->count -= left;
    ev->insns -= left;
    ev->dst = env->pc - (prev_rvc ? 2 : 4);
    ev->info = (RISCV_CFLOW_EV_BLOCK << RISCV_CFLOW_EV_KIND_SHIFT) |
               (ev->info & RISCV_CFLOW_EV_FIRST_RVC) |
               (prev_rvc ? RISCV_CFLOW_EV_LAST_RVC : 0);
}

/*
 * Branch-map mode: the last block started retired only its first @index
 * instructions.  Its conditional branch, the last instruction, did not
 * run.  When it retired none, the block before it is the last again; a
 * block the consumer was to look at is looked at again.
 */
static void cf_unwind_bmap(CPURISCVState *env, unsigned index, bool prev_rvc)
{
    RISCVCFState *cf = &env->cf;
    bool open = cf->bm_state == RISCV_CFLOW_BM_OPEN;

    if (cf->bm_state == RISCV_CFLOW_BM_EMPTY) {
        return;
    }
    if (!index) {
        cf->bm_state = cf->bm_prev_state;
        cf->bm_last = cf->bm_prev;
        if (open) {
            cf->bm_open_count = 0;
            cf->bm_look = true;
        }
        return;
    }
    cf->bm_last = env->pc - (prev_rvc ? 2 : 4);
    if (open) {
        cf->bm_open_count = index;
        cf->bm_open_info = (cf->bm_open_info & RISCV_CFLOW_BM_INFO_FIRST_RVC) |
                           (prev_rvc ? RISCV_CFLOW_BM_INFO_LAST_RVC : 0) |
                           ((cf->bm_last - cf->bm_open_first) <<
                            RISCV_CFLOW_BM_INFO_OFS_SHIFT) | index;
    }
}

void riscv_cf_unwind(CPURISCVState *env, const TranslationBlock *tb,
                     uint64_t uw2)
{
    uint32_t needs = (tb->cs_base >> RISCV_CFLOW_TB_SHIFT) &
                     RISCV_CFLOW_NEED_ALL;
    unsigned index = uw2 >> RISCV_CFLOW_UW2_INDEX_SHIFT;
    uint64_t left = tb->icount - index;

    if (needs & RISCV_CFLOW_NEED_INSNS) {
        env->cf.insns -= left;
    }
    if (needs & (RISCV_CFLOW_NEED_BLOCKS | RISCV_CFLOW_NEED_DATA)) {
        cf_unwind_block(env, index, left, uw2 & RISCV_CFLOW_UW2_PREV_RVC);
    }
    if (needs & RISCV_CFLOW_NEED_BMAP) {
        cf_unwind_bmap(env, index, uw2 & RISCV_CFLOW_UW2_PREV_RVC);
    }
}

void riscv_cf_insn_trapped(CPURISCVState *env, uintptr_t ra)
{
#ifdef CONFIG_TCG
    uint64_t data[INSN_START_WORDS];
    TranslationBlock *tb;

    if ((env->cf.tb_needs & (RISCV_CFLOW_NEED_INSNS | RISCV_CFLOW_NEED_BLOCKS |
                             RISCV_CFLOW_NEED_BMAP | RISCV_CFLOW_NEED_DATA)) &&
        cpu_unwind_state_data(env_cpu(env), ra, data)) {
        tb = tcg_tb_lookup(ra);
        riscv_cf_unwind(env, tb, data[2]);
    }
#endif
}

/*
 * Migration: the instruction count and the register a block ended
 * loading, the pipeline's state between two blocks.  The buffer is empty
 * (every consumer's pre_save syncs) and the rest is derived: consumers
 * ask for their needs again in their post_load.  This subsection comes
 * before the consumers' in vmstate_riscv_cpu, so their post_load finds
 * the count loaded.
 */
static bool cf_needed(void *opaque)
{
    RISCVCPU *cpu = opaque;

    return cpu->env.cf.insns || cpu->env.cf.const_rd;
}

static int cf_pre_save(void *opaque)
{
    RISCVCPU *cpu = opaque;

    riscv_cf_sync(&cpu->env);
    return 0;
}

static bool cf_const_rd_valid(void *opaque, int version_id)
{
    RISCVCPU *cpu = opaque;

    return cpu->env.cf.const_rd < 32;
}

const VMStateDescription vmstate_riscv_cf = {
    .name = "cpu/cflow",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = cf_needed,
    .pre_save = cf_pre_save,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(env.cf.insns, RISCVCPU),
        VMSTATE_UINT32(env.cf.const_rd, RISCVCPU),
        VMSTATE_VALIDATE("const_rd < 32", cf_const_rd_valid),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * The event log: a consumer that turns the hart's whole event stream
 * into the riscv_cf_* trace events.  It registers only when
 * riscv_cf_block or riscv_cf_data is enabled at startup ("-trace
 * riscv_cf_*"), and then asks for block events and every transfer type
 * in every mode, and data events with riscv_cf_data, so that
 * what a trace encoder or CTR is fed can be compared with QEMU's own
 * record of execution (tests/scripts/test-cflow-log.py).
 */
static uint32_t cf_log_needs(CPURISCVState *env, void *opaque)
{
    uint32_t needs = RISCV_CFLOW_NEED_BLOCKS | RISCV_CFLOW_NEED_TYPES;

    if (trace_event_get_state_backends(TRACE_RISCV_CF_DATA)) {
        needs |= RISCV_CFLOW_NEED_DATA;
    }
    return needs;
}

/*
 * Events hold pcs as env->pc does, sign-extended from 32 bits in a mode
 * whose XLEN is 32; a batch never spans two modes.
 */
static void cf_log_drain(CPURISCVState *env, void *opaque,
                         const RISCVCFEvent *ev, unsigned n)
{
    uint64_t mask = env->xl == MXL_RV32 ? UINT32_MAX : UINT64_MAX;
    unsigned i;

    for (i = 0; i < n; i++) {
        if (riscv_cf_event_kind(&ev[i]) == RISCV_CFLOW_EV_BLOCK) {
            trace_riscv_cf_block(env->mhartid, ev[i].src & mask,
                                 ev[i].dst & mask,
                                 ev[i].info & RISCV_CFLOW_EV_FIRST_RVC ? 2 : 4,
                                 ev[i].info & RISCV_CFLOW_EV_LAST_RVC ? 2 : 4,
                                 ev[i].count);
        } else if (riscv_cf_event_kind(&ev[i]) == RISCV_CFLOW_EV_DATA &&
                   (ev[i].info & RISCV_CFLOW_EV_DATA_HIGH)) {
            trace_riscv_cf_data_high(env->mhartid, ev[i].dst, ev[i].insns);
        } else if (riscv_cf_event_kind(&ev[i]) == RISCV_CFLOW_EV_DATA) {
            trace_riscv_cf_data(env->mhartid,
                                riscv_cf_event_data_type(&ev[i]),
                                1u << ((ev[i].info &
                                        RISCV_CFLOW_EV_DATA_SIZE) >>
                                       RISCV_CFLOW_EV_DATA_SIZE_SHIFT),
                                ev[i].src & mask, ev[i].dst, ev[i].insns,
                                ev[i].count);
        } else {
            trace_riscv_cf_transfer(env->mhartid, riscv_cf_event_type(&ev[i]),
                                    ev[i].src & mask, ev[i].dst & mask);
        }
    }
}

static void cf_log_trap(CPURISCVState *env, void *opaque,
                        const RISCVCFTrap *trap)
{
    trace_riscv_cf_trap(env->mhartid, trap->async, trap->cause, trap->tval,
                        trap->insn_len, trap->epc, trap->handler,
                        trap->target_priv, trap->target_virt);
}

static void cf_log_trap_return(CPURISCVState *env, void *opaque,
                               const RISCVCFTrapReturn *ret)
{
    trace_riscv_cf_trap_return(env->mhartid, ret->retpc, ret->target_priv,
                               ret->target_virt);
}

static void cf_log_after_mode_change(CPURISCVState *env, void *opaque)
{
    trace_riscv_cf_mode(env->mhartid, env->priv, env->virt_enabled);
}

static const RISCVCFConsumerOps cf_log_consumer = {
    .needs = cf_log_needs,
    .drain = cf_log_drain,
    .trap = cf_log_trap,
    .trap_return = cf_log_trap_return,
    .after_mode_change = cf_log_after_mode_change,
};

void riscv_cf_realize(RISCVCPU *cpu)
{
    if (trace_event_get_state_backends(TRACE_RISCV_CF_BLOCK) ||
        trace_event_get_state_backends(TRACE_RISCV_CF_DATA)) {
        riscv_cf_register(&cpu->env, &cf_log_consumer, NULL);
    }
}
