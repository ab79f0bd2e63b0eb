/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: te_inst packets back to retired instructions.
 *
 * The decisions are those of the spec's decoder (decoder.adoc,
 * process_te_inst and follow_execution_path), made a block at a time:
 * the run of sequential instructions of a block is reported in one go
 * unless the reported address lies in it, where the decoder may have to
 * stop.  Departures, matching the encoder (docs/specs/riscv-trace.rst):
 * xRET is an uninferable discontinuity; a format 3.1 with thaddr = 0
 * carries the EPC, and the format 3.0 after it is the handler's first
 * instruction, with no path to follow; a decoder that stopped at the
 * first occurrence of an inferred address carries on from there.
 *
 * Protocol 2.1 (the Implicit Return extension): a return pops the stack
 * whenever it is not empty, and irets counts the returns popped since
 * the last branch or since following the packet began; the return at
 * which following stopped is popped when it executes, in the next
 * packet's following, as the encoder counts it (docs/specs/
 * riscv-trace.rst, "Protocol 2.1").
 */

#include "qemu/osdep.h"
#include "etrace-decode.h"

/* Blocks followed for one packet before the decoder gives up. */
#define ETD_FOLLOW_MAX  (1u << 24)

void etd_decoder_init(EtdDecoder *d, EtdImage *img, const EtdSink *sink,
                      const ETraceParams *p, unsigned src)
{
    memset(d, 0, sizeof(*d));
    d->img = img;
    d->addr_img = img;
    d->base_img = img;
    d->sink = sink;
    d->params = *p;
    d->src = src;
    d->start_of_trace = true;
    memset(d->dreq_size, 0xff, sizeof(d->dreq_size));
    etd_jtc_init(&d->jtc, p->iaddress_lsb, p->cache_size);
    etd_bpred_init(&d->bp, p->iaddress_lsb, p->bpred_size);
    etd_retstack_init(&d->rs, p->return_stack_size);
}

void etd_decoder_set_code(EtdDecoder *d, EtdCodeSrc *cs)
{
    unsigned p;

    d->code = cs;
    for (p = 0; p < ARRAY_SIZE(d->views); p++) {
        d->views[p] = etd_image_new_view(d->img, cs, p);
    }
    d->img = d->views[d->privilege & 7];
    d->addr_img = d->img;
}

/* The views of a context's image, one per privilege. */
static void views_free(gpointer p)
{
    EtdImage **views = p;
    unsigned k;

    for (k = 0; k < 8; k++) {
        if (views[k]) {
            etd_image_free(views[k]);
        }
    }
    g_free(views);
}

void etd_decoder_free(EtdDecoder *d)
{
    unsigned p;

    for (p = 0; p < ARRAY_SIZE(d->views); p++) {
        if (d->views[p]) {
            etd_image_free(d->views[p]);
        }
    }
    if (d->ctx_views) {
        g_hash_table_destroy(d->ctx_views);
    }
}

void etd_decoder_set_contexts(EtdDecoder *d, GHashTable *ctx_imgs)
{
    d->ctx_imgs = ctx_imgs;
    if (d->code) {
        d->ctx_views = g_hash_table_new_full(g_direct_hash, g_direct_equal,
                                             NULL, views_free);
    }
}

/*
 * With the code side stream, context @ctx's image @ctx_image is read
 * after the stream: the view of it for privilege @priv.
 */
static EtdImage *ctx_view(EtdDecoder *d, EtdImage *ctx_image, uint32_t ctx,
                          unsigned priv)
{
    EtdImage **views = g_hash_table_lookup(d->ctx_views,
                                           GUINT_TO_POINTER(ctx));

    if (!views) {
        views = g_new0(EtdImage *, 8);
        g_hash_table_insert(d->ctx_views, GUINT_TO_POINTER(ctx), views);
    }
    if (!views[priv & 7]) {
        views[priv & 7] = etd_image_new_view(ctx_image, d->code, priv & 7);
    }
    return views[priv & 7];
}

/* The image of privilege @priv in context @ctx. */
static inline EtdImage *ctx_img(EtdDecoder *d, unsigned priv, uint32_t ctx)
{
    EtdImage *img = NULL;

    if (d->ctx_imgs) {
        img = g_hash_table_lookup(d->ctx_imgs, GUINT_TO_POINTER(ctx));
    }
    if (d->code) {
        return img ? ctx_view(d, img, ctx, priv) : d->views[priv & 7];
    }
    return img ? img : d->base_img;
}

/* The image of privilege @priv, in the current context. */
static inline EtdImage *priv_img(EtdDecoder *d, unsigned priv)
{
    return ctx_img(d, priv, d->context);
}

/*
 * A packet carried the context @ctx, for instructions of privilege
 * @priv.  A format 3.2 reports a change imprecisely (ingressPort.adoc,
 * tab:context-type): the instructions followed from here on are read in
 * the new context's image.
 */
static void set_context(EtdDecoder *d, uint32_t ctx, uint8_t priv)
{
    if (ctx == d->context) {
        return;
    }
    d->context = ctx;
    if (d->sink->context) {
        d->sink->context(d->sink->opaque, d->src, ctx);
    }
    if (d->ctx_imgs) {
        d->img = ctx_img(d, priv, ctx);
        if (d->blk) {
            d->blk = etd_image_block(d->img, d->pc);
            d->idx = 0;
        }
    }
}

EtdImage *etd_decoder_image(EtdDecoder *d, unsigned priv)
{
    return priv_img(d, priv);
}

static void set_privilege(EtdDecoder *d, uint8_t priv)
{
    d->privilege = priv;
    d->img = priv_img(d, priv);
}

/*
 * Records of the code side stream were applied: the block of pc, if the
 * code there changed, is followed from pc on in its new form.
 */
static void code_refresh(EtdDecoder *d)
{
    if (d->blk && etd_image_block_check(d->img, d->blk) != d->blk) {
        d->blk = etd_image_block(d->img, d->pc);
        d->idx = 0;
    }
}

/*
 * Before following anything for the next packet: the records of the
 * code side stream made since the packets processed so far were, up to
 * those made after branches the next packet reports.
 */
static void code_apply(EtdDecoder *d)
{
    /*
     * Outcomes pending now are of branches the packets so far reported
     * (a full branch map stops at its last branch): they come first.
     */
    d->code_taken = -(int64_t)(d->branches + d->pbc + d->bp_fail);
    if (d->code &&
        etd_code_catch_up(d->code, d->code_pos, 0, &d->code_wait)) {
        code_refresh(d);
    }
}

/* A branch outcome taken: the records made after it. */
static void code_branch(EtdDecoder *d)
{
    if (++d->code_taken == (int64_t)d->code_wait &&
        etd_code_catch_up(d->code, d->code_pos, d->code_taken,
                          &d->code_wait)) {
        code_refresh(d);
    }
}

static inline void report(EtdDecoder *d, uint8_t priv)
{
    d->insns++;
    if (d->sink->insn) {
        d->sink->insn(d->sink->opaque, d->src, d->pc, priv);
    }
}

/* Instructions @from .. @from + @n - 1 of @b retire. */
static inline void report_run(EtdDecoder *d, const EtdBlock *b,
                              unsigned from, unsigned n)
{
    d->insns += n;
    if (d->sink->run) {
        d->sink->run(d->sink->opaque, d->src, b, from, n, d->privilege);
    }
}

static inline bool proto_2_1(const EtdDecoder *d)
{
    return d->params.protocol >= ETRACE_PROTOCOL_2_1;
}

/* The instruction at pc is a branch. */
static inline bool at_branch(const EtdDecoder *d)
{
    return d->idx + 1 == d->blk->count && d->blk->end == ETD_END_BRANCH;
}

/* Branch outcomes to come, in the map, counted, a failed prediction. */
static inline uint64_t pending(const EtdDecoder *d)
{
    return d->branches + d->pbc + d->bp_fail;
}

/* Branch outcomes left that do not belong to the instruction at pc. */
static inline bool unprocessed(const EtdDecoder *d)
{
    return pending(d) != (at_branch(d) ? 1u : 0u);
}

/*
 * Branch outcomes left that do not belong to the instruction at the
 * reported address (unprocessed_branches(address), decoder.adoc).
 */
static bool unprocessed_at_address(EtdDecoder *d)
{
    EtdBlock *b = etd_image_block(d->addr_img, d->address);
    bool branch = b->count == 1 && b->end == ETD_END_BRANCH;

    return pending(d) != (branch ? 1u : 0u);
}

/*
 * The outcome of the branch at pc: from the map (the oldest outcomes),
 * else as the predictor says for the counted ones, else the contrary for
 * a failed one; the predictor learns it.
 */
static bool take_branch(EtdDecoder *d, bool *taken, GError **errp)
{
    bool predicted = etd_bpred_lookup(&d->bp, d->pc);

    if (d->branches) {
        *taken = !(d->branch_map & 1);
        d->branch_map >>= 1;
        d->branches--;
    } else if (d->pbc) {
        *taken = predicted;
        d->pbc--;
    } else if (d->bp_fail) {
        *taken = !predicted;
        d->bp_fail = false;
    } else {
        g_set_error(errp, ETD_ERROR, ETD_ERR_BRANCHES_MISSING,
                    "branch at 0x%" PRIx64 " has no outcome left in the "
                    "branch map", d->pc);
        return false;
    }
    if (d->bp_on) {
        etd_bpred_update(&d->bp, d->pc, *taken);
    }
    if (unlikely(d->code_wait)) {
        code_branch(d);
    }
    return true;
}

/* Forget the outcomes to come (a trap, joining, code no image holds). */
static void drop_branches(EtdDecoder *d)
{
    d->branches = 0;
    d->branch_map = 0;
    d->pbc = 0;
    d->bp_fail = false;
    d->stop_at_fail = false;
}

static void set_pc(EtdDecoder *d, uint64_t pc, EtdBlock *b)
{
    d->pc = pc;
    d->blk = b;
    d->idx = 0;
    d->seq_rd = 0;
}

/*
 * The target of the jalr, c.jr or c.jalr ending @b, at pc, when it is
 * sequentially inferable: the instruction retired just before it loaded
 * its rs1 with a constant.
 */
static bool seq_target(const EtdDecoder *d, const EtdBlock *b, uint64_t *to)
{
    uint8_t rd = d->idx ? b->prev_const_rd : d->seq_rd;
    uint64_t value = d->idx ? b->prev_const : d->seq_value;

    if (!d->sij_on || !b->jump_rs1 || rd != b->jump_rs1) {
        return false;
    }
    *to = (value + b->jump_imm) & ~(uint64_t)1;
    if (etd_image_rv32(d->img)) {
        *to &= 0xffffffff;
    }
    return true;
}

/* The conditions of a format 1 or 2 packet, as signalled. */
typedef struct EtdStop {
    const ETraceTeInst *t;
    bool notify;
    bool updiscon;
    bool irreport;
    uint8_t irdepth;
    bool ntr;               /* stop only at an uninferable discontinuity */
} EtdStop;

/* How following the program goes on after a step. */
typedef enum EtdStep {
    ETD_STEP_ON,            /* not there yet: on to the next step */
    ETD_STEP_DONE,          /* stopped where the packet says, or resumed */
    ETD_STEP_FAIL,          /* an error */
} EtdStep;

/* The instruction at pc is a return the stack would pop. */
static inline bool at_popped_return(const EtdDecoder *d)
{
    return d->ir_on && d->idx + 1 == d->blk->count && d->blk->ir_ret &&
           d->blk->end == ETD_END_UNINF && etd_retstack_depth(&d->rs);
}

/*
 * 2.1: implicit returns the packet counts are yet to come
 * (unprocessed_implicit_returns); a return at pc counts already, as the
 * pseudo-code pops it on reaching it.
 */
static bool unprocessed_irets(const EtdDecoder *d, const EtdStop *s)
{
    bool popped = at_popped_return(d);
    unsigned depth = etd_retstack_depth(&d->rs) - popped;

    return depth > 0 && s->irreport && s->irdepth > d->irets + popped;
}

/*
 * After pc moved to an instruction: does following stop here?  @uninf:
 * the move was an uninferable discontinuity (pc is the reported address).
 */
static EtdStep stop_here(EtdDecoder *d, const EtdStop *s, bool uninf,
                         bool xret, GError **errp)
{
    const ETraceTeInst *t = s->t;

    if (d->branches == 1 && at_branch(d) && d->stop_at_last_branch) {
        /* A full branch map ends at its last branch. */
        d->stop_at_last_branch = false;
        return ETD_STEP_DONE;
    }
    if (d->stop_at_fail && at_branch(d) && !d->branches && !d->pbc) {
        /* A format 0.0 without an address ends at the failed branch. */
        d->stop_at_fail = false;
        return ETD_STEP_DONE;
    }
    if (uninf) {
        if ((d->ioptions & ETRACE_IOPT_JUMP_TARGET_CACHE) &&
            !d->ir_keep_cache) {
            etd_jtc_update(&d->jtc, d->pc);
        }
        d->ir_keep_cache = false;
        if (unprocessed(d)) {
            g_set_error(errp, ETD_ERROR, ETD_ERR_BRANCHES_UNUSED,
                        "reached 0x%" PRIx64 " after an uninferable jump "
                        "with %u branch outcomes unused", d->pc,
                        d->branches);
            return ETD_STEP_FAIL;
        }
        return ETD_STEP_DONE;
    }
    if (d->pc != d->address || s->ntr) {
        return ETD_STEP_ON;
    }
    if (t->format != ETRACE_FMT_SYNC) {
        if (d->stop_at_last_branch || unprocessed(d)) {
            return ETD_STEP_ON;
        }
        if (proto_2_1(d)) {
            if (unprocessed_irets(d, s)) {
                return ETD_STEP_ON;
            }
            if (!s->notify && !s->updiscon) {
                d->inferred_address = true;
            }
            return s->notify || !s->updiscon ? ETD_STEP_DONE : ETD_STEP_ON;
        }
        if (s->notify) {
            return ETD_STEP_DONE;
        }
        if (!s->updiscon &&
            (!s->irreport || s->irdepth == etd_retstack_depth(&d->rs))) {
            d->inferred_address = true;
            return ETD_STEP_DONE;
        }
        return ETD_STEP_ON;
    }
    return !unprocessed(d) && (t->privilege == d->privilege || xret) ?
           ETD_STEP_DONE : ETD_STEP_ON;
}

static bool resume(EtdDecoder *d, const ETraceTeInst *t);

/* The flow goes from @from (ETD_NO_PC: it starts) to code no image holds. */
static void leave_images(EtdDecoder *d, uint64_t from, uint64_t to)
{
    if (d->in_unknown) {
        return;
    }
    d->in_unknown = true;
    etd_jtc_clear(&d->jtc);
    d->jtc_stale = true;
    d->bp_stale = true;
    d->ir_stale = true;
    d->left++;
    d->left_from = from;
    d->left_to = to;
    if (d->sink->gap) {
        d->sink->gap(d->sink->opaque, d->src, ETD_GAP_NO_IMAGE);
    }
}

/*
 * The return ending @b is implicit (is_implicit_return): the stack is not
 * empty, and the packet does not report it: in 2.0 a failed return at
 * this depth, in 2.1 the return after irets others with no branch
 * outcome left (but the reported address's).
 */
static inline bool ir_implicit(EtdDecoder *d, const EtdBlock *b,
                               const EtdStop *s)
{
    unsigned depth = etd_retstack_depth(&d->rs);

    if (!b->ir_ret || !d->ir_on || !depth) {
        return false;
    }
    if (proto_2_1(d)) {
        return !(s->irreport && s->irdepth == d->irets &&
                 !unprocessed_at_address(d));
    }
    return !(s->irreport && s->irdepth == depth);
}

/* The block at @to, an inferable successor linked from @link. */
static inline EtdBlock *successor(EtdDecoder *d, EtdBlock **link,
                                  uint64_t to)
{
    if (!*link) {
        *link = etd_image_block(d->img, to);
    } else if (d->code) {
        *link = etd_image_block_check(d->img, *link);
    }
    return *link;
}

/* pc is not the last instruction of its block: the run after it. */
static EtdStep follow_run(EtdDecoder *d, const EtdStop *s, GError **errp)
{
    const ETraceTeInst *t = s->t;
    EtdBlock *b = d->blk;
    unsigned from = d->idx + 1;
    uint64_t first = d->pc + etd_block_insn_size(b, d->idx);

    if (d->address < first || d->address > b->last || s->ntr) {
        /* The address is not in the run: all of it retires. */
        report_run(d, b, from, b->count - from);
        d->idx = b->count - 1;
        d->pc = b->last;
        return stop_here(d, s, false, false, errp);
    }
    /* Instruction by instruction up to the address. */
    for (; from < b->count; from++) {
        EtdStep step;
        uint8_t priv;

        d->pc += etd_block_insn_size(b, d->idx);
        d->idx = from;
        priv = t->format == ETRACE_FMT_SYNC && d->pc == d->address ?
               t->privilege : d->privilege;
        report(d, priv);
        step = stop_here(d, s, false, false, errp);
        if (step != ETD_STEP_ON) {
            return step;
        }
    }
    return ETD_STEP_ON;
}

/* Where the last instruction of a block, at pc, goes. */
typedef struct EtdExit {
    uint64_t to;
    EtdBlock *next;         /* the block at @to */
    /* an uninferable discontinuity: @to is the address the packet reports */
    bool uninf;
    bool xret;              /* ... by an xRET */
} EtdExit;

static EtdStep exit_branch(EtdDecoder *d, EtdBlock *b, EtdExit *x,
                           GError **errp)
{
    bool taken;

    if (!take_branch(d, &taken, errp)) {
        return ETD_STEP_FAIL;
    }
    d->irets = 0;
    if (!taken) {
        x->to = b->last + b->last_size;
        x->next = successor(d, &b->next_seq, x->to);
    } else {
        x->to = b->target;
        x->next = successor(d, &b->next_target, x->to);
    }
    return ETD_STEP_ON;
}

/*
 * An uninferable jump (ETD_END_UNINF) or an xRET: where the constant its
 * register was loaded with says (a sequentially inferable jump), where
 * the return stack says (an implicit return), else to the address the
 * packet reports.
 */
static EtdStep exit_uninf(EtdDecoder *d, const EtdStop *s, EtdBlock *b,
                          EtdExit *x, GError **errp)
{
    if (b->end == ETD_END_UNINF && seq_target(d, b, &x->to)) {
        x->next = etd_image_block(d->img, x->to);
        if (proto_2_1(d) && b->ir_ret && d->ir_on &&
            etd_retstack_depth(&d->rs)) {
            /* 2.1: a sequentially inferable return pops the stack too */
            etd_retstack_pop(&d->rs);
            d->irets++;
        }
        return ETD_STEP_ON;
    }
    if (b->end == ETD_END_UNINF && ir_implicit(d, b, s)) {
        if (d->ir_stale) {
            /* Calls and returns went by in code no image holds. */
            d->in_unknown = true;
            if (d->sink->gap) {
                d->sink->gap(d->sink->opaque, d->src, ETD_GAP_RSTACK);
            }
            return resume(d, s->t) ? ETD_STEP_DONE : ETD_STEP_FAIL;
        }
        x->to = etd_retstack_pop(&d->rs);
        x->next = etd_image_block(d->img, x->to);
        d->irets++;
        return ETD_STEP_ON;
    }
    if (proto_2_1(d) && b->end == ETD_END_UNINF && b->ir_ret && d->ir_on &&
        etd_retstack_depth(&d->rs)) {
        /* The reported return pops too; a predicted target is not cached */
        d->ir_keep_cache = etd_retstack_pop(&d->rs) == d->address;
        d->irets++;
    }
    x->xret = b->end == ETD_END_XRET;
    if (d->stop_at_last_branch || d->stop_at_fail) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_JUMP_BEFORE_BRANCHES,
                    "uninferable jump at 0x%" PRIx64 " before the last "
                    "branch a packet reports", d->pc);
        return ETD_STEP_FAIL;
    }
    x->to = d->address;
    x->next = etd_image_block(d->addr_img, x->to);
    x->uninf = true;
    return ETD_STEP_ON;
}

/* pc is the last instruction of its block: where does it go? */
static EtdStep block_exit(EtdDecoder *d, const EtdStop *s, EtdExit *x,
                          GError **errp)
{
    EtdBlock *b = d->blk;

    switch (b->end) {
    case ETD_END_BRANCH:
        return exit_branch(d, b, x, errp);
    case ETD_END_JUMP:
        x->to = b->target;
        x->next = successor(d, &b->next_target, x->to);
        return ETD_STEP_ON;
    case ETD_END_SEQ:
        x->to = b->last + b->last_size;
        x->next = successor(d, &b->next_seq, x->to);
        return ETD_STEP_ON;
    case ETD_END_UNINF:
    case ETD_END_XRET:
        return exit_uninf(d, s, b, x, errp);
    default:
        g_set_error(errp, ETD_ERROR, ETD_ERR_NO_CODE,
                    "no code at 0x%" PRIx64, d->pc);
        return ETD_STEP_FAIL;
    }
}

/* The block @b, at its last instruction, is left by @x: where to. */
static EtdStep enter_next(EtdDecoder *d, const EtdStop *s, EtdBlock *b,
                          const EtdExit *x, GError **errp)
{
    const ETraceTeInst *t = s->t;
    uint8_t priv;

    if (b->ir_call && d->ir_on) {
        uint64_t link = b->last + b->last_size;

        etd_retstack_push(&d->rs,
                          etd_image_rv32(d->img) ? (uint32_t)link : link);
    }
    if (!x->next->count && (!x->uninf || d->branches <= 1)) {
        /*
         * Into code no image holds (code written at run time), until
         * a packet reports known code: this one, when a jump or the
         * end of the code led there (the outcomes left are of
         * branches in the unknown code), or a later one, when it is
         * the target of an uninferable jump (one outcome may be left:
         * the instruction at the address may be a branch).
         */
        leave_images(d, d->pc, x->to);
        return resume(d, t) ? ETD_STEP_DONE : ETD_STEP_FAIL;
    }
    if (!x->next->count) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_OUTSIDE_IMAGES,
                    "the flow from 0x%" PRIx64 " goes to 0x%" PRIx64
                    ", which is outside the program images", d->pc, x->to);
        return ETD_STEP_FAIL;
    }
    set_pc(d, x->to, x->next);
    if (b->end == ETD_END_SEQ) {
        /* The instruction retired before pc is b's last. */
        d->seq_rd = b->last_const_rd;
        d->seq_value = b->last_const;
    }
    priv = t->format == ETRACE_FMT_SYNC && (x->uninf || x->to == d->address) ?
           t->privilege : d->privilege;
    if (t->format == ETRACE_FMT_SYNC && t->subformat <= ETRACE_SYNC_TRAP &&
        (x->uninf || x->to == d->address)) {
        /* The synchronisation's instruction: of the packet's context. */
        set_context(d, t->context, priv);
    }
    report(d, priv);
    return stop_here(d, s, x->uninf, x->xret, errp);
}

/*
 * Follow the program from pc to the packet's address
 * (follow_execution_path).  Reports every instruction passed, the one
 * it stops at included.
 */
static bool follow(EtdDecoder *d, const EtdStop *s, GError **errp)
{
    unsigned steps = 0;
    EtdStep step;

    do {
        if (++steps > ETD_FOLLOW_MAX) {
            g_set_error(errp, ETD_ERROR, ETD_ERR_NO_PATH,
                        "no path from 0x%" PRIx64 " to 0x%" PRIx64
                        " within %u blocks", d->pc, d->address, steps - 1);
            return false;
        }
        if (d->idx + 1 < d->blk->count) {
            step = follow_run(d, s, errp);
        } else {
            EtdBlock *b = d->blk;
            EtdExit x = { 0 };

            step = block_exit(d, s, &x, errp);
            if (step == ETD_STEP_ON) {
                step = enter_next(d, s, b, &x, errp);
            }
        }
    } while (step == ETD_STEP_ON);
    return step == ETD_STEP_DONE;
}

static uint64_t full_address(const EtdDecoder *d, uint64_t field)
{
    return field << d->params.iaddress_lsb;
}

/* EPC of an exception reported after pc (exception_address). */
static bool exception_address(EtdDecoder *d, const ETraceTeInst *t,
                              uint64_t *epc, GError **errp)
{
    EtdInsn insn;

    if (!t->thaddr) {
        *epc = full_address(d, t->address);
        return true;
    }
    if (d->start_of_trace || d->in_unknown) {
        /* Joining the trace here, or after unknown code: no EPC. */
        *epc = ETD_EPC_UNKNOWN;
        return true;
    }
    if (!etd_image_insn(d->img, d->pc, &insn)) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_NO_CODE,
                    "no code at 0x%" PRIx64, d->pc);
        return false;
    }
    if (insn.trap_insn) {
        *epc = d->pc;
        return true;
    }
    switch (insn.end) {
    case ETD_END_SEQ:
        *epc = d->pc + insn.size;
        return true;
    case ETD_END_JUMP:
        *epc = insn.target;
        return true;
    case ETD_END_BRANCH: {
        bool taken;

        if (!pending(d)) {
            g_set_error(errp, ETD_ERROR, ETD_ERR_TRAP_BRANCH_MISSING,
                        "trap after the branch at 0x%" PRIx64
                        " without its outcome", d->pc);
            return false;
        }
        if (!take_branch(d, &taken, errp)) {
            return false;
        }
        *epc = taken ? insn.target : d->pc + insn.size;
        return true;
    }
    default: {
        EtdStop s = { .t = t };

        if (d->blk && d->blk->last == d->pc && ir_implicit(d, d->blk, &s) &&
            !d->ir_stale) {
            /* An implicit return: where the stack says. */
            *epc = etd_retstack_lookup(&d->rs);
            return true;
        }
        g_set_error(errp, ETD_ERROR, ETD_ERR_EPC_UNKNOWN,
                    "trap with the handler address after the uninferable "
                    "jump at 0x%" PRIx64 ": the EPC is unknown", d->pc);
        return false;
    }
    }
}

static bool sync_packet(EtdDecoder *d, const ETraceTeInst *t, GError **errp)
{
    uint64_t addr = full_address(d, t->address);
    EtdBlock *b;

    if (t->subformat == ETRACE_SYNC_TRAP) {
        uint64_t epc;

        if (t->interrupt) {
            g_autoptr(GError) unknown = NULL;

            /*
             * Where the hart was going: the instruction the interrupt
             * came before, but after an uninferable jump.
             */
            if (!exception_address(d, t, &epc, &unknown)) {
                epc = ETD_EPC_UNKNOWN;
            }
        } else if (!exception_address(d, t, &epc, errp)) {
            return false;
        }
        d->traps++;
        if (d->sink->trap) {
            d->sink->trap(d->sink->opaque, d->src, t->interrupt, t->ecause,
                          epc, t->interrupt ? 0 : t->tval);
        }
        if (!t->thaddr) {
            /* Nothing retired: the handler comes in a format 3.0. */
            d->trap_only = true;
            return true;
        }
    }

    d->inferred_address = false;
    code_apply(d);
    d->address = addr;
    d->addr_img = ctx_img(d, t->privilege, t->context);
    b = etd_image_block(d->addr_img, addr);
    if (!b->count) {
        /*
         * No program image holds the code (firmware, a reset vector):
         * the instructions up to the next address reported in known code
         * cannot be followed.  The packets' addresses still chain.  A
         * synchronisation in the middle of the trace (a privilege change)
         * first ends the known code: up to the jump into the unknown.
         */
        if (t->subformat == ETRACE_SYNC_START && !d->start_of_trace &&
            !d->in_unknown) {
            EtdStop s = { .t = t };

            if (!follow(d, &s, errp)) {
                return false;
            }
        }
        leave_images(d, d->start_of_trace ? ETD_NO_PC : d->pc, addr);
        drop_branches(d);
        d->ir_on = d->ioptions & ETRACE_IOPT_IMPLICIT_RETURN;
        etd_retstack_clear(&d->rs);
        set_context(d, t->context, t->privilege);
        set_privilege(d, t->privilege);
        d->start_of_trace = false;
        d->synced = true;
        d->trap_only = false;
        return true;
    }
    if (t->subformat == ETRACE_SYNC_TRAP || d->start_of_trace) {
        drop_branches(d);
    }
    if (b->count == 1 && b->end == ETD_END_BRANCH) {
        /* The outcome of the branch at the address. */
        d->branch_map |= (uint64_t)t->branch << d->branches;
        d->branches++;
    }
    if (t->subformat == ETRACE_SYNC_START && !d->start_of_trace &&
        !d->in_unknown && !d->trap_only) {
        EtdStop s = { .t = t };

        if (!follow(d, &s, errp)) {
            return false;
        }
    } else {
        if (d->sink->data_align) {
            d->sink->data_align(d->sink->opaque, d->src, addr,
                                t->subformat == ETRACE_SYNC_START);
        }
        set_context(d, t->context, t->privilege);
        set_pc(d, addr, b);
        report(d, t->privilege);
    }
    set_context(d, t->context, t->privilege);
    set_privilege(d, t->privilege);
    d->start_of_trace = false;
    d->in_unknown = false;
    d->synced = true;
    d->trap_only = false;
    /*
     * Every synchronisation empties the jump target cache and starts the
     * branch predictor afresh, on or off as the options say.
     */
    etd_jtc_clear(&d->jtc);
    d->jtc_stale = false;
    d->bp_on = d->ioptions & ETRACE_IOPT_BRANCH_PREDICTION;
    d->sij_on = d->ioptions & ETRACE_IOPT_SEQ_JUMP;
    d->bp_stale = false;
    /* A format 3 packet empties the return stack (process_te_inst). */
    d->ir_on = d->ioptions & ETRACE_IOPT_IMPLICIT_RETURN;
    d->ir_stale = false;
    etd_retstack_clear(&d->rs);
    etd_bpred_reset(&d->bp);
    return true;
}

static void report_time(EtdDecoder *d, uint64_t time)
{
    if (d->sink->time) {
        d->sink->time(d->sink->opaque, d->src, time);
    }
}

/*
 * The timestamp of a format 1 or 2 packet that stopped at the first pass
 * through its address belongs to the instruction where following the
 * next packet shows it stopped: that pass (then, before a format 3
 * packet, the time is reported first), or a later one (case 1, reached
 * first).
 */
static void pending_time(EtdDecoder *d)
{
    if (d->time_pending) {
        d->time_pending = false;
        report_time(d, d->pending_time);
    }
}

/*
 * Following stopped at the first pass through the last packet's address
 * (updiscon equal to notify), but that packet reported a later pass, the
 * target of an uninferable jump: go on to it (payload.adoc, "Format 2
 * notify and updiscon fields", case 1).
 */
static bool follow_to_later_pass(EtdDecoder *d, GError **errp)
{
    ETraceTeInst f = { .format = ETRACE_FMT_ADDR };
    EtdStop s = { .t = &f, .ntr = true };

    d->inferred_address = false;
    if (!follow(d, &s, errp)) {
        return false;
    }
    pending_time(d);
    code_apply(d);
    return true;
}

/*
 * 2.1: the Standard Support Packet gives the parameters the packets
 * depend on.  This decoder reads no time field in format 3 packets and
 * keeps no call counter.
 */
static bool support_params(EtdDecoder *d, const ETraceTeInst *t,
                           GError **errp)
{
    ETraceParams *p = &d->params;

    if (t->encoder_mode || t->time_width || t->call_counter_size ||
        t->cache_size > ETD_JTC_MAX_BITS ||
        t->bpred_size > ETD_BPRED_MAX_BITS ||
        t->return_stack_size > ETD_RSTACK_MAX_BITS || t->f0s_width > 2) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_UNKNOWN_PACKET,
                    "support packet with parameters this decoder does not "
                    "implement (encoder_mode %u, time_width %u, "
                    "call_counter_size %u, cache_size %u, bpred_size %u, "
                    "return_stack_size %u, f0s_width %u)", t->encoder_mode,
                    t->time_width, t->call_counter_size, t->cache_size,
                    t->bpred_size, t->return_stack_size, t->f0s_width);
        return false;
    }
    if (t->cache_size != p->cache_size) {
        p->cache_size = t->cache_size;
        etd_jtc_init(&d->jtc, p->iaddress_lsb, p->cache_size);
    }
    if (t->bpred_size != p->bpred_size) {
        p->bpred_size = t->bpred_size;
        etd_bpred_init(&d->bp, p->iaddress_lsb, p->bpred_size);
    }
    if (t->return_stack_size != p->return_stack_size) {
        p->return_stack_size = t->return_stack_size;
        etd_retstack_init(&d->rs, p->return_stack_size);
    }
    p->f0s_width = t->f0s_width;
    return true;
}

static bool support_packet(EtdDecoder *d, const ETraceTeInst *t,
                           GError **errp)
{
    if (proto_2_1(d) && !support_params(d, t, errp)) {
        return false;
    }
    if (t->ioptions != d->ioptions) {
        /* The encoder's jump target cache starts empty too. */
        etd_jtc_clear(&d->jtc);
    }
    d->ioptions = t->ioptions;
    if (t->qual_status == ETRACE_QUAL_NO_CHANGE) {
        return true;
    }
    /* ended_ntr: the trace ended after an uninferable jump. */
    if (t->qual_status == ETRACE_QUAL_ENDED_NTR && d->inferred_address &&
        !d->start_of_trace && !follow_to_later_pass(d, errp)) {
        return false;
    }
    d->start_of_trace = true;
    d->inferred_address = false;
    d->trap_only = false;
    if (d->sink->gap) {
        d->sink->gap(d->sink->opaque, d->src,
                     t->qual_status == ETRACE_QUAL_TRACE_LOST ?
                     "trace lost" : "trace ended");
    }
    return true;
}

/*
 * After code no image holds: a format 1 or 2 packet whose address is in
 * known code gives the next instruction retired there.  The outcomes in
 * its branch map are of branches in the unknown code, but for the last
 * one when the instruction at the address is itself a branch.
 */
static bool resume(EtdDecoder *d, const ETraceTeInst *t)
{
    EtdBlock *b;
    uint64_t last;

    if (t->format == ETRACE_FMT_BRANCH && !t->branches) {
        drop_branches(d);
        return true;
    }
    b = etd_image_block(d->addr_img, d->address);
    if (!b->count) {
        drop_branches(d);
        return true;
    }
    last = d->branches ? (d->branch_map >> (d->branches - 1)) & 1 : 0;
    d->stop_at_last_branch = false;
    d->in_unknown = false;
    if (d->sink->data_align) {
        d->sink->data_align(d->sink->opaque, d->src, d->address, true);
    }
    set_pc(d, d->address, b);
    if (b->count == 1 && b->end == ETD_END_BRANCH && d->branches) {
        d->branches = 1;
        d->branch_map = last;
    } else {
        d->branches = 0;
        d->branch_map = 0;
    }
    report(d, t->format == ETRACE_FMT_SYNC ? t->privilege : d->privilege);
    return true;
}

static bool decoder_packet(EtdDecoder *d, const ETraceTeInst *t,
                           GError **errp);

/* The address a format 0.0, 1 or 2 packet reports, and its status bits. */
static void packet_address(EtdDecoder *d, const ETraceTeInst *t, EtdStop *s)
{
    unsigned abits = d->params.iaddress_width - d->params.iaddress_lsb;

    d->stop_at_last_branch = false;
    d->addr_img = d->img;
    if (d->ioptions & ETRACE_IOPT_FULL_ADDRESS) {
        d->address = full_address(d, t->address);
    } else {
        /* Sign-extend the differential address field. */
        d->address += (uint64_t)((int64_t)(t->address << (64 - abits)) >>
                                 (64 - abits)) << d->params.iaddress_lsb;
    }
    s->notify = t->notify != ((t->address >> (abits - 1)) & 1);
    s->updiscon = t->updiscon != t->notify;
    s->irreport = t->irreport != t->updiscon;
    s->irdepth = t->irdepth;
}

/*
 * Before a format 0, 1 or 2 packet: nothing to follow while waiting for
 * a synchronisation (*go false); one that stopped at a first pass
 * reported a later one (case 1).
 */
static bool before_report(EtdDecoder *d, bool *go, GError **errp)
{
    *go = !d->start_of_trace;
    if (*go && d->inferred_address && !d->in_unknown) {
        return follow_to_later_pass(d, errp);
    }
    return true;
}

/* Outcomes of @n branches (bit 0 the oldest) after those pending. */
static bool add_branch_map(EtdDecoder *d, uint64_t map, unsigned n,
                           GError **errp)
{
    if (d->branches + n > 63) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_BRANCH_MAP_OVERFLOW,
                    "branch map overflow (%u outcomes pending)",
                    d->branches + n);
        return false;
    }
    d->branch_map |= (map & ((UINT64_C(1) << n) - 1)) << d->branches;
    d->branches += n;
    return true;
}

/*
 * Format 0.0: the branches the predictor foresaw (branch_count + 31),
 * then a failed one where following stops (no address), or the address
 * (of a failed branch, addr-fail).
 */
static bool branch_count_packet(EtdDecoder *d, const ETraceTeInst *t,
                                GError **errp)
{
    EtdStop s = { .t = t };
    bool go;

    if (!d->bp_on) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_BPRED_OFF,
                    "format 0 subformat 0 packet, but branch prediction "
                    "was off at the last synchronisation");
        return false;
    }
    if (!before_report(d, &go, errp)) {
        return false;
    }
    if (!go) {
        return true;
    }
    d->irets = 0;
    d->ir_keep_cache = false;
    if (t->branch_fmt & ETRACE_BFMT_ADDR) {
        packet_address(d, t, &s);
    }
    if (d->in_unknown || d->bp_stale) {
        /* The predictor learnt branches of code no image holds. */
        if (!d->in_unknown) {
            d->in_unknown = true;
            if (d->sink->gap) {
                d->sink->gap(d->sink->opaque, d->src, ETD_GAP_BPRED);
            }
        }
        drop_branches(d);
        return true;
    }
    d->pbc += (uint64_t)t->branch_count + ETRACE_MAX_BRANCHES;
    if (t->branch_fmt != ETRACE_BFMT_ADDR) {
        d->bp_fail = true;
        d->stop_at_fail = t->branch_fmt == ETRACE_BFMT_NO_ADDR;
    }
    if (!follow(d, &s, errp)) {
        return false;
    }
    /*
     * What is left is the outcome of the branch at pc, as the predictor
     * says or its contrary: in the map, before those later packets add.
     */
    if (pending(d) && !d->branches) {
        d->branch_map = etd_bpred_lookup(&d->bp, d->pc) == d->bp_fail;
        d->branches = 1;
        d->pbc = 0;
        d->bp_fail = false;
    }
    return true;
}

/* Format 0.1: the target of an uninferable jump, by its cache entry. */
static bool jump_cache_packet(EtdDecoder *d, const ETraceTeInst *t,
                              GError **errp)
{
    EtdStop s = { .t = t };
    uint64_t target;
    bool go;

    if (!(d->ioptions & ETRACE_IOPT_JUMP_TARGET_CACHE)) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_JTC_OFF,
                    "format 0 packet, but the jump target cache is not "
                    "enabled");
        return false;
    }
    if (!before_report(d, &go, errp)) {
        return false;
    }
    if (!go) {
        return true;
    }
    d->irets = 0;
    d->ir_keep_cache = false;
    if (d->in_unknown) {
        /* An uninferable jump in code no image holds. */
        drop_branches(d);
        return true;
    }
    if (!etd_jtc_lookup(&d->jtc, t->index, &target)) {
        if (!d->jtc_stale) {
            g_set_error(errp, ETD_ERROR, ETD_ERR_JTC_EMPTY,
                        "format 0 packet for jump target cache entry %u, "
                        "which is empty", t->index);
            return false;
        }
        /* The entry changed in code no image holds. */
        d->in_unknown = true;
        drop_branches(d);
        if (d->sink->gap) {
            d->sink->gap(d->sink->opaque, d->src, ETD_GAP_JTC);
        }
        return true;
    }
    d->address = target;
    d->addr_img = d->img;
    d->stop_at_last_branch = false;
    /* irreport follows the branch map's last bit, or branches' top bit */
    s.irreport = t->irreport != (t->branches ?
                                 (t->branch_map >>
                                  (etrace_map_bits(t->branches) - 1)) & 1 :
                                 0);
    s.irdepth = t->irdepth;
    /* The target of an uninferable jump: no notify, no updiscon. */
    return add_branch_map(d, t->branch_map, t->branches, errp) &&
           follow(d, &s, errp);
}

static bool te_inst(EtdDecoder *d, const ETraceTeInst *t, bool timed,
                    GError **errp);

/*
 * A format 3.2 changes only the context: it reports no instruction, and
 * the code side stream does not count it.  (process_te_inst returns at
 * once for it.)
 */
static bool context_packet(EtdDecoder *d, const ETraceTeInst *t)
{
    d->packets[6]++;
    set_context(d, t->context, d->privilege);
    return true;
}

bool etd_decoder_packet(EtdDecoder *d, const ETraceTeInst *t, bool timed,
                        GError **errp)
{
    bool support = t->format == ETRACE_FMT_SYNC &&
                   t->subformat == ETRACE_SYNC_SUPPORT;
    bool ok;

    if (t->format == ETRACE_FMT_SYNC && t->subformat == ETRACE_SYNC_CONTEXT) {
        return context_packet(d, t);
    }
    if (d->code) {
        if (support && t->qual_status == ETRACE_QUAL_TRACE_LOST &&
            etd_code_lost(d->code, &d->code_pos)) {
            code_refresh(d);
        }
        if (!d->inferred_address) {
            code_apply(d);
        }
    }
    ok = te_inst(d, t, timed, errp);
    d->code_pos++;
    return ok;
}

static bool te_inst(EtdDecoder *d, const ETraceTeInst *t, bool timed,
                    GError **errp)
{
    bool support = t->format == ETRACE_FMT_SYNC &&
                   t->subformat == ETRACE_SYNC_SUPPORT;

    /*
     * Case 3 (a synchronisation packet follows), or the trace ended or
     * was lost there: the first pass was the instruction.  Case 1 (a
     * format 1 or 2 follows, or ended_ntr): follow_to_later_pass().
     */
    if ((t->format == ETRACE_FMT_SYNC && !support) ||
        (support && t->qual_status != ETRACE_QUAL_NO_CHANGE &&
         t->qual_status != ETRACE_QUAL_ENDED_NTR)) {
        pending_time(d);
    }
    if (!decoder_packet(d, t, errp)) {
        d->time_pending = false;
        return false;
    }
    if (!d->inferred_address) {
        pending_time(d);
    }
    if (timed) {
        if (d->inferred_address) {
            d->time_pending = true;
            d->pending_time = t->time;
        } else {
            report_time(d, t->time);
        }
    }
    return true;
}

static bool decoder_packet(EtdDecoder *d, const ETraceTeInst *t,
                           GError **errp)
{
    EtdStop s = { .t = t };
    bool ok, go;

    switch (t->format) {
    case ETRACE_FMT_EXT:
        d->packets[0]++;
        if (t->subformat == ETRACE_EXT_BRANCH_COUNT) {
            if (!branch_count_packet(d, t, errp)) {
                goto fail;
            }
            return true;
        }
        if (!jump_cache_packet(d, t, errp)) {
            goto fail;
        }
        return true;
    case ETRACE_FMT_SYNC:
        d->packets[t->subformat == ETRACE_SYNC_SUPPORT ? 5 :
                   3 + t->subformat]++;
        if (t->subformat == ETRACE_SYNC_SUPPORT) {
            ok = support_packet(d, t, errp);
        } else {
            ok = sync_packet(d, t, errp);
        }
        if (!ok) {
            goto fail;
        }
        return true;
    default:
        break;
    }

    d->packets[t->format]++;
    /* Waiting for a synchronisation packet, or case 1 (payload.adoc). */
    if (!before_report(d, &go, errp)) {
        goto fail;
    }
    if (!go) {
        return true;
    }
    d->irets = 0;
    d->ir_keep_cache = false;
    if (t->format == ETRACE_FMT_ADDR || t->branches) {
        packet_address(d, t, &s);
    }
    if (t->format == ETRACE_FMT_BRANCH) {
        d->stop_at_last_branch = !t->branches;
        if (!add_branch_map(d, t->branch_map, t->branches ? t->branches :
                            ETRACE_MAX_BRANCHES, errp)) {
            goto fail;
        }
    }
    if (d->in_unknown) {
        return resume(d, t);
    }
    if (!follow(d, &s, errp)) {
        goto fail;
    }
    return true;

fail:
    d->errors++;
    d->start_of_trace = true;
    d->inferred_address = false;
    d->stop_at_last_branch = false;
    return false;
}
