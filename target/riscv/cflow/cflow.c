/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V control-flow event pipeline: consumers, needs and sync points.
 *
 * See cflow.h for the model and docs/devel/riscv-cflow.rst for how the
 * consumers use it.
 */

#include "qemu/osdep.h"
#include "cpu.h"
#include "exec/helper-proto.h"
#include "tcg/insn-start-words.h"
#include "cflow/cflow.h"

void riscv_cf_register(CPURISCVState *env, const RISCVCFConsumerOps *ops,
                       void *opaque)
{
    RISCVCFState *cf = &env->cf;

    g_assert(cf->nr_consumers < RISCV_CF_MAX_CONSUMERS);
    cf->consumers[cf->nr_consumers].ops = ops;
    cf->consumers[cf->nr_consumers].opaque = opaque;
    cf->nr_consumers++;
    riscv_cf_update_needs(env);
}

void riscv_cf_update_needs(CPURISCVState *env)
{
    RISCVCFState *cf = &env->cf;
    uint32_t needs = 0;
    unsigned i;

    for (i = 0; i < cf->nr_consumers; i++) {
        const RISCVCFConsumer *c = &cf->consumers[i];

        if (c->ops->needs) {
            needs |= c->ops->needs(env, c->opaque);
        }
    }
    cf->tb_needs = needs & RISCV_CF_NEED_ALL;
}

void riscv_cf_sync(CPURISCVState *env)
{
    RISCVCFState *cf = &env->cf;
    unsigned n = cf->fill / sizeof(RISCVCFEvent);
    unsigned i;

    /* Consumers may sync again (a CSR access from a hook): empty first. */
    cf->fill = 0;
    for (i = 0; i < cf->nr_consumers; i++) {
        const RISCVCFConsumer *c = &cf->consumers[i];

        if (c->ops->drain) {
            c->ops->drain(env, c->opaque, env->cf_buf, n);
        }
    }
}

/* Translated code filled the buffer. */
void helper_cf_drain(CPURISCVState *env)
{
    riscv_cf_sync(env);
}

void riscv_cf_trap(CPURISCVState *env, const RISCVCFTrap *trap)
{
    RISCVCFState *cf = &env->cf;
    unsigned i;

    riscv_cf_sync(env);
    for (i = 0; i < cf->nr_consumers; i++) {
        const RISCVCFConsumer *c = &cf->consumers[i];

        if (c->ops->trap) {
            c->ops->trap(env, c->opaque, trap);
        }
    }
}

void riscv_cf_trap_return(CPURISCVState *env, uint64_t retpc,
                          target_ulong target_priv, bool target_virt)
{
    RISCVCFState *cf = &env->cf;
    RISCVCFTrapReturn ret = {
        .retpc = retpc,
        .target_priv = target_priv,
        .target_virt = target_virt,
    };
    unsigned i;

    riscv_cf_sync(env);
    for (i = 0; i < cf->nr_consumers; i++) {
        const RISCVCFConsumer *c = &cf->consumers[i];

        if (c->ops->trap_return) {
            c->ops->trap_return(env, c->opaque, &ret);
        }
    }
}

void riscv_cf_mode_change(CPURISCVState *env)
{
    riscv_cf_sync(env);
}

void riscv_cf_mode_changed(CPURISCVState *env)
{
    RISCVCFState *cf = &env->cf;
    unsigned i;

    for (i = 0; i < cf->nr_consumers; i++) {
        const RISCVCFConsumer *c = &cf->consumers[i];

        if (c->ops->mode_changed) {
            c->ops->mode_changed(env, c->opaque);
        }
    }
    riscv_cf_update_needs(env);
}

void riscv_cf_reset(CPURISCVState *env)
{
    env->cf.fill = 0;
    env->cf.insns = 0;
}

void riscv_cf_unwind_block(CPURISCVState *env, uint64_t left, bool prev_rvc)
{
    RISCVCFState *cf = &env->cf;
    RISCVCFEvent *ev;

    /*
     * The block's event is the last one: it is appended when the block
     * starts, a full buffer is drained before an append, not after, and
     * a transfer is appended only once its instruction can no longer
     * trap.
     */
    if (!cf->fill) {
        return;
    }
    ev = &env->cf_buf[cf->fill / sizeof(RISCVCFEvent) - 1];
    if (riscv_cf_event_kind(ev) != RISCV_CF_EV_BLOCK) {
        return;
    }
    if (ev->count <= left) {
        cf->fill -= sizeof(RISCVCFEvent);
        return;
    }
    ev->count -= left;
    ev->insns -= left;
    ev->dst = env->pc - (prev_rvc ? 2 : 4);
    ev->info = (RISCV_CF_EV_BLOCK << RISCV_CF_EV_KIND_SHIFT) |
               (prev_rvc ? RISCV_CF_EV_LAST_RVC : 0);
}

void riscv_cf_insn_trapped(CPURISCVState *env, uintptr_t ra)
{
#ifdef CONFIG_TCG
    uint64_t data[INSN_START_WORDS];

    if ((env->cf.tb_needs & (RISCV_CF_NEED_INSNS | RISCV_CF_NEED_BLOCKS)) &&
        cpu_unwind_state_data(env_cpu(env), ra, data)) {
        riscv_cf_unwind(env, data[2]);
    }
#endif
}
