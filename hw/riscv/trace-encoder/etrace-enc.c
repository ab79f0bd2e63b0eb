/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace 2.0 and 2.1 branch trace encoder algorithm (see etrace-enc.h).
 *
 * etrace_enc_decide() follows the decision order of the reference
 * algorithm (exampleAlgorithm.adoc, fig:algo) with the flag definitions
 * of its legend.  Departures, each one where the normative text of the
 * spec says otherwise:
 *
 * - trap returns (itype 3) are uninferable discontinuities, as the
 *   decoder pseudo-code (decoder.adoc) treats them: an xRET that does not
 *   change privilege must still report its target;
 * - an exception on the first traced instruction is reported like one at
 *   the target of an uninferable discontinuity, with thaddr = 0 and the
 *   EPC, then the handler in a format 3.0 (payload.adoc, sec:thaddr);
 * - a row that did not retire (exception-only) is never reported as an
 *   instruction: it causes at most that format 3.1 with thaddr = 0, and
 *   a resync that falls due there is made by the trap packet of the
 *   handler, which resets the resync counter anyway.
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "hw/riscv/etrace-enc.h"

static inline bool itype_is_exception(uint8_t itype)
{
    return itype == ETRACE_ITYPE_EXCEPTION || itype == ETRACE_ITYPE_INTERRUPT;
}

/* Uninferable PC discontinuities (no implicit return, 4-bit itype). */
#define ITYPE_UPDISCON_MASK \
    (1u << ETRACE_ITYPE_TRAP_RETURN | 1u << ETRACE_ITYPE_UNINF_CALL | \
     1u << ETRACE_ITYPE_UNINF_JUMP | 1u << ETRACE_ITYPE_CO_SWAP | \
     1u << ETRACE_ITYPE_RETURN | 1u << ETRACE_ITYPE_OTHER_UNINF)

static inline bool itype_is_updiscon(uint8_t itype)
{
    return (1u << itype) & ITYPE_UPDISCON_MASK;
}

static inline uint32_t resync_max(const ETraceEnc *e)
{
    return 1u << (e->cfg.sync_max + 4);
}

/* Every resync condition below needs the limit reached. */
static inline bool resync_near(const ETraceEnc *e)
{
    return e->cfg.sync_mode != ETRACE_SYNC_MODE_OFF &&
           e->resync_count >= resync_max(e);
}

/* resync_near(), also after one more packet is sent. */
static inline bool resync_near_after_packet(const ETraceEnc *e)
{
    return e->cfg.sync_mode != ETRACE_SYNC_MODE_OFF &&
           e->resync_count + (e->cfg.sync_mode == ETRACE_SYNC_MODE_PACKETS) >=
           resync_max(e);
}

/* Branches not yet reported, in the map or counted as predicted. */
static inline bool pending_branches(const ETraceEnc *e)
{
    return e->branches || e->pbc;
}

/* Resync FSM state 2 with branches to flush: send them first. */
static bool resync_br(const ETraceEnc *e)
{
    switch (e->cfg.sync_mode) {
    case ETRACE_SYNC_MODE_PACKETS:
        return e->resync_count == resync_max(e) && pending_branches(e);
    case ETRACE_SYNC_MODE_HALFWORDS:
        return e->resync_count >= resync_max(e) && !e->resync_flushed &&
               pending_branches(e);
    default:
        return false;
    }
}

/* Resync FSM state 3: a format 3.0 is due. */
static bool resync_exceeded(const ETraceEnc *e)
{
    switch (e->cfg.sync_mode) {
    case ETRACE_SYNC_MODE_PACKETS:
        return e->resync_count > resync_max(e);
    case ETRACE_SYNC_MODE_HALFWORDS:
        return e->resync_count >= resync_max(e) &&
               (e->resync_flushed || !pending_branches(e));
    default:
        return false;
    }
}

/* A format 1/2 sent now is followed by a resync format 3.0. */
static bool resync_next(const ETraceEnc *e)
{
    switch (e->cfg.sync_mode) {
    case ETRACE_SYNC_MODE_PACKETS:
        return e->resync_count == resync_max(e);
    case ETRACE_SYNC_MODE_HALFWORDS:
        return e->resync_count >= resync_max(e);
    default:
        return false;
    }
}

static void emit_packet(ETraceEnc *e, const ETraceTeInst *t)
{
    if (e->cfg.sync_mode == ETRACE_SYNC_MODE_PACKETS) {
        e->resync_count++;
    }
    e->emit(e->opaque, t);
}

/*
 * A packet that reports the branches not yet reported.  A decoder stops
 * following where it reports: the implicit returns and the blocks
 * passed before it no longer matter (see ir_cut_needed()).
 */
static void send_packet(ETraceEnc *e, const ETraceTeInst *t)
{
    e->branches = 0;
    e->branch_map = 0;
    e->pbc = 0;
    e->bp_fail = false;
    e->bp_all = true;
    e->ir_depths = 0;
    e->ir_count = 0;
    e->ir_npass = 0;
    e->ir_report = false;
    e->ir_flip = 0;
    e->ir_notify = false;
    e->irets = 0;
    e->ir_no_cache = false;
    e->ir_seen_void = true;
    emit_packet(e, t);
}

static uint64_t address_field(const ETraceEnc *e, uint64_t addr, bool diff)
{
    const ETraceParams *p = &e->cfg.params;
    unsigned bits = p->iaddress_width - p->iaddress_lsb;
    uint64_t v;

    if (diff) {
        v = (int64_t)(addr - e->last_addr) >> p->iaddress_lsb;
    } else {
        v = addr >> p->iaddress_lsb;
    }
    return bits < 64 ? v & ((UINT64_C(1) << bits) - 1) : v;
}

static inline bool proto_2_1(const ETraceEnc *e)
{
    return e->cfg.params.protocol >= ETRACE_PROTOCOL_2_1;
}

/* The options a support packet reports; 2.1 adds resync_disabled. */
static uint8_t ioptions(const ETraceEncConfig *cfg)
{
    return (cfg->implicit_return ? ETRACE_IOPT_IMPLICIT_RETURN : 0) |
           (cfg->full_address ? ETRACE_IOPT_FULL_ADDRESS : 0) |
           (cfg->jump_cache ? ETRACE_IOPT_JUMP_TARGET_CACHE : 0) |
           (cfg->branch_pred ? ETRACE_IOPT_BRANCH_PREDICTION : 0) |
           (cfg->sijump ? ETRACE_IOPT_SEQ_JUMP : 0) |
           (cfg->params.protocol >= ETRACE_PROTOCOL_2_1 &&
            cfg->sync_mode == ETRACE_SYNC_MODE_OFF ?
            ETRACE_IOPT_RESYNC_DISABLED : 0);
}

/*
 * The branch predictor (E-Trace "Branch prediction mode"): 2-bit states
 * indexed by address bits bpred_size:1; bit 1 is the prediction (taken),
 * bit 0 the last outcome.  All entries 01 after a synchronisation.
 */
static unsigned bp_index(const ETraceEnc *e, uint64_t addr)
{
    return extract64(addr, e->cfg.params.iaddress_lsb,
                     e->cfg.params.bpred_size);
}

static void bp_reset(ETraceEnc *e)
{
    memset(e->bp, 1, sizeof(e->bp));
}

/* Update the entry of the branch at @addr; returns the prediction. */
static bool bp_update(ETraceEnc *e, uint64_t addr, bool taken)
{
    return etrace_bpred_update(&e->bp[bp_index(e, addr)], taken);
}

/*
 * In 2.1, the Standard Support Packet also carries the parameters: no
 * time field in the packets (timestamps are the Encapsulation's), no
 * call counter, no data trace.
 */
static void send_support(ETraceEnc *e, bool ienable, uint8_t qual_status)
{
    const ETraceParams *p = &e->cfg.params;
    ETraceTeInst t = {
        .format = ETRACE_FMT_SYNC,
        .subformat = ETRACE_SYNC_SUPPORT,
        .ienable = ienable,
        .encoder_mode = 0,
        .qual_status = qual_status,
        .ioptions = ioptions(&e->cfg),
        .denable = e->cfg.denable,
        .dloss = e->dloss,
        .doptions = proto_2_1(e) ? e->cfg.doptions : e->cfg.doptions >> 1,
        .iret_ext = proto_2_1(e),
        .f0s_width = p->f0s_width,
        .return_stack_size = p->return_stack_size,
        .bpred_size = p->bpred_size,
        .cache_size = p->cache_size,
        .time = e->now,
    };

    /* It reports no branch: those pending stay so. */
    e->dloss = false;
    emit_packet(e, &t);
}

/*
 * A synchronisation packet reported @r: the reference for differential
 * addresses; the resync count, the jump target cache and the branch
 * predictor start afresh.  When @r is a branch (its outcome in the
 * packet's branch field), a decoder follows it after the packet: it
 * updates the new predictor.
 */
static void sync_done(ETraceEnc *e, const ETraceRow *r)
{
    e->ctx_sent = r->ctx;
    e->last_addr = r->addr;
    e->resync_count = 0;
    e->resync_flushed = false;
    e->jtc_valid = 0;
    /*
     * Branch prediction starts and stops here: the decoder updates its
     * predictor as it follows, which may be after a support packet.
     */
    e->sij_on = e->cfg.sijump;
    e->bp_on = e->cfg.branch_pred;
    /* A decoder's return stack empties at every format 3 packet. */
    e->ir_on = e->cfg.implicit_return;
    e->rdepth = 0;
    if (e->bp_on) {
        bp_reset(e);
        if ((uint8_t)(r->itype - ETRACE_ITYPE_NT_BRANCH) < 2) {
            bp_update(e, r->addr, r->itype == ETRACE_ITYPE_T_BRANCH);
        }
    }
}

/*
 * The target of an uninferable jump at @addr, reported: its jump target
 * cache entry (bits cache_size:1 of the address), looked up and then
 * holding it.  Returns whether it was there already.
 */
static bool jtc_lookup(ETraceEnc *e, uint64_t addr, unsigned *index)
{
    const ETraceParams *p = &e->cfg.params;
    unsigned i = extract64(addr, p->iaddress_lsb, p->cache_size);
    bool hit = (e->jtc_valid >> i & 1) && e->jtc[i] == addr;

    e->jtc[i] = addr;
    e->jtc_valid |= UINT64_C(1) << i;
    *index = i;
    return hit;
}

/* Format 1 or 2 for @r, with the branches before it. */
static void address_packet(ETraceEnc *e, ETraceTeInst *t, const ETraceRow *r,
                           bool updiscon)
{
    *t = (ETraceTeInst) {
        .format = e->branches ? ETRACE_FMT_BRANCH : ETRACE_FMT_ADDR,
        .branches = e->branches,
        .branch_map = e->branch_map,
        .address = address_field(e, r->addr, !e->cfg.full_address),
        .time = r->time,
    };
    etrace_set_status_bits(t, &e->cfg.params, e->ir_notify, updiscon,
                           e->ir_report, e->ir_flip);
}

/* Whole bytes of the payload of @t, sign-compressed. */
static unsigned payload_bytes(const ETraceEnc *e, const ETraceTeInst *t)
{
    ETraceBits b;

    etrace_te_inst_pack(&b, &e->cfg.params, t);
    return DIV_ROUND_UP(etrace_compressed_bits(&b), 8);
}

/*
 * The target of an uninferable jump @r, in the jump target cache at
 * @index: format 0.1 with the branches before it (irreport repeats the
 * bit before it but for a failed return), unless format 1 or 2 is
 * shorter (a near target; format 0 packets, E-Trace: "the encoder may
 * still choose to output the differential address").
 */
static void send_jump_cache(ETraceEnc *e, const ETraceRow *r, unsigned index)
{
    unsigned map = etrace_map_bits(e->branches);
    ETraceTeInst t = {
        .format = ETRACE_FMT_EXT,
        .subformat = ETRACE_EXT_JUMP_CACHE,
        .index = index,
        .branches = e->branches,
        .branch_map = e->branch_map,
        .time = r->time,
    };
    ETraceTeInst a;

    etrace_set_irdepth(&t, &e->cfg.params,
                       e->branches ? (e->branch_map >> (map - 1)) & 1 : 0,
                       e->ir_report, e->ir_flip);
    address_packet(e, &a, r, false);
    send_packet(e, payload_bytes(e, &a) < payload_bytes(e, &t) ? &a : &t);
    e->last_addr = r->addr;
    e->cur_reported = true;
    e->cur_reported_updiscon = true;
}

/*
 * A format 3.2: the hart's context is now @ctx, in privilege @priv.  It
 * reports no branch and no address: the branches pending stay so.
 */
static void send_context(ETraceEnc *e, uint8_t priv, uint32_t ctx)
{
    ETraceTeInst t = {
        .format = ETRACE_FMT_SYNC,
        .subformat = ETRACE_SYNC_CONTEXT,
        .privilege = priv,
        .context = ctx,
        .time = e->now,
    };

    e->ctx_sent = ctx;
    emit_packet(e, &t);
}

/*
 * A synchronisation packet reported @r, of a context older than the
 * hart's (a row held when the context changed): the current one follows.
 */
static inline void context_after_sync(ETraceEnc *e, const ETraceRow *r)
{
    if (unlikely(r->ctx != e->ctx)) {
        send_context(e, e->ctx_priv, e->ctx);
    }
}

static void send_start(ETraceEnc *e, const ETraceRow *r)
{
    ETraceTeInst t = {
        .format = ETRACE_FMT_SYNC,
        .subformat = ETRACE_SYNC_START,
        .branch = r->itype != ETRACE_ITYPE_T_BRANCH,
        .privilege = r->priv,
        .context = r->ctx,
        .address = address_field(e, r->addr, false),
        .time = r->time,
    };

    e->trap_reported = false;
    send_packet(e, &t);
    sync_done(e, r);
    context_after_sync(e, r);
    e->cur_reported = true;
    e->cur_synced = true;
}

/* @r is reported with the trap of @exc. */
static void send_trap(ETraceEnc *e, const ETraceRow *r,
                      const ETraceRow *exc, bool thaddr)
{
    ETraceTeInst t = {
        .format = ETRACE_FMT_SYNC,
        .subformat = ETRACE_SYNC_TRAP,
        .branch = r->itype != ETRACE_ITYPE_T_BRANCH,
        .privilege = r->priv,
        .context = r->ctx,
        .ecause = exc->ecause & ((1u << e->cfg.params.ecause_width) - 1),
        .interrupt = exc->itype == ETRACE_ITYPE_INTERRUPT,
        .thaddr = thaddr,
        .address = address_field(e, r->addr, false),
        .tval = exc->tval,
        .time = r->time,
    };

    send_packet(e, &t);
    sync_done(e, r);
    context_after_sync(e, r);
    e->cur_reported = thaddr;
    e->cur_synced = thaddr;
}

/* Format 1 or 2: the address of @r, with the branches before it. */
static void send_address(ETraceEnc *e, const ETraceRow *r, bool updiscon,
                         bool because_updiscon)
{
    ETraceTeInst t;

    address_packet(e, &t, r, updiscon);
    send_packet(e, &t);
    e->last_addr = r->addr;
    e->cur_reported = true;
    e->cur_reported_updiscon = because_updiscon;
}

/*
 * Format 0.0: the branches counted as predicted, then, without @r, a
 * failed one (the held row's), else the address of @r (a failed branch
 * when the held row's failed).
 */
static void send_branch_count(ETraceEnc *e, const ETraceRow *r,
                              bool updiscon, bool because_updiscon)
{
    ETraceTeInst t = {
        .format = ETRACE_FMT_EXT,
        .subformat = ETRACE_EXT_BRANCH_COUNT,
        .branch_count = e->pbc - ETRACE_MAX_BRANCHES,
        .branch_fmt = !r ? ETRACE_BFMT_NO_ADDR :
                      e->bp_fail ? ETRACE_BFMT_ADDR_FAIL : ETRACE_BFMT_ADDR,
        .time = e->cur.time,
    };

    if (r) {
        t.address = address_field(e, r->addr, !e->cfg.full_address);
        etrace_set_status_bits(&t, &e->cfg.params, e->ir_notify, updiscon,
                               e->ir_report, e->ir_flip);
        e->last_addr = r->addr;
        e->cur_reported = true;
        e->cur_reported_updiscon = because_updiscon;
    }
    send_packet(e, &t);
}

/*
 * Report @r with the branches before it; @because_updiscon: it is the
 * target of an uninferable discontinuity, @updiscon: and the next row
 * is a trap, a change of privilege or meets a resync.
 */
static void send_branch(ETraceEnc *e, const ETraceRow *r, bool updiscon,
                        bool because_updiscon)
{
    unsigned index;

    /*
     * 2.1: a report that does not follow an uninferable discontinuity
     * gives the count of implicit returns before it when there are any
     * (extensions.adoc, sec:irets), counting @r itself when it is a
     * return, which a decoder pops on reaching it (decoder.adoc,
     * next_pc); right after an implicit return, the count before that
     * return, which a decoder then takes as the reported one.
     */
    if (proto_2_1(e) && !because_updiscon && !e->ir_report) {
        unsigned n = e->ir_after_pop ? e->irets - 1 :
                     e->irets + ((r->ir & ETRACE_ROW_RET) && e->rdepth);

        if (n || e->ir_after_pop) {
            e->ir_report = true;
            e->ir_flip = MIN(n, ETRACE_IRETS_MAX);
        }
    }

    /* 31 or more foreseen branches: always format 0.0. */
    if (e->pbc) {
        send_branch_count(e, r, updiscon, because_updiscon);
        return;
    }

    /*
     * The jump target cache holds the targets of uninferable jumps.
     * Format 0.1 has no updiscon bit: when it must differ from notify,
     * formats 1 and 2 report a target found in the cache.
     */
    if (because_updiscon && e->cfg.jump_cache && !e->ir_no_cache &&
        jtc_lookup(e, r->addr, &index) && !updiscon) {
        send_jump_cache(e, r, index);
    } else {
        send_address(e, r, updiscon, because_updiscon);
    }
}

static void send_branch_map(ETraceEnc *e)
{
    ETraceTeInst t = {
        .format = ETRACE_FMT_BRANCH,
        .branches = 0,
        .branch_map = e->branch_map,
        .time = e->cur.time,
    };

    send_packet(e, &t);
}

/* The most branches format 0.0 counts: branch_count all-ones. */
#define BP_COUNT_MAX    (UINT64_C(0xffffffff) + ETRACE_MAX_BRANCHES)

/*
 * The held row, a branch, needs no packet of its own: but for a full
 * branch map (31 foreseen branches are counted from then on, E-Trace
 * "Format 0 packets"), a failed prediction while counting, or a full
 * count.
 */
static bool branches_due(const ETraceEnc *e)
{
    return e->branches == ETRACE_MAX_BRANCHES || e->bp_fail ||
           e->pbc == BP_COUNT_MAX;
}

static void send_branches(ETraceEnc *e)
{
    if (e->branches == ETRACE_MAX_BRANCHES) {
        if (e->bp_on && e->bp_all) {
            e->pbc = ETRACE_MAX_BRANCHES;
            e->branches = 0;
            e->branch_map = 0;
        } else {
            send_branch_map(e);
        }
    } else if (e->bp_fail) {
        send_branch_count(e, NULL, false, false);
    } else if (e->pbc == BP_COUNT_MAX) {
        send_branch_count(e, &e->cur, false, false);
    }
}

/*
 * Implicit return (E-Trace "Implicit return mode").  A decoder pushes
 * the link of every call it follows and pops it at a return while its
 * stack is not empty, unless the packet it follows to flips irreport
 * with irdepth equal to its depth there (decoder.adoc); every format 3
 * packet empties the stack.  The encoder holds the same stack: a return
 * to the link on top is implicit; one elsewhere reports its target with
 * irdepth, and is not popped.
 *
 * Two things would let a decoder stop in the wrong place, and the spec's
 * irreport rules (payload.adoc, sec:irxx) do not rule them out:
 * - a failed return at a depth where a return was implicit earlier in
 *   the same stretch of trace: the decoder takes the first one;
 * - a report of an instruction before a trap, a change of privilege or a
 *   resync (or a format 3.0 at it) that was passed earlier since the last
 *   branch with an implicit return in between (the same function called
 *   twice, recursion): the decoder stops at the first pass, and irdepth
 *   cannot tell passes at the same depth apart.
 * Before either can happen the encoder reports the row before it with
 * notify (ir_cut): a decoder stops at its first pass with no branch
 * outcome left, which is the one (payload.adoc, sec:updiscon, scenario
 * 4), and goes on from there with an empty stretch.  The encoder sees
 * the second case coming, with the blocks passed since the last branch,
 * when a block starts that overlaps one passed before an implicit
 * return.
 */

/* The held row is a return a decoder pops to @to. */
static inline bool ir_pops(const ETraceEnc *e, uint64_t to)
{
    return e->rdepth && e->rstack[e->rdepth - 1] == to;
}

/*
 * The held row is a return to @next that a decoder would take as one
 * (it is not sequentially inferable).  @next may be a trap at the
 * target: an implicit return's is reported with the handler (thaddr =
 * 1), a decoder finds the EPC on its stack (decoder.adoc,
 * exception_address); a failed one's with thaddr = 0 and the EPC.
 */
static inline bool ir_return(const ETraceEnc *e, const ETraceRow *next)
{
    const ETraceRow *cur = &e->cur;

    return (cur->ir & ETRACE_ROW_RET) && cur->retired && next &&
           itype_is_updiscon(cur->itype) && !(cur->sijump && e->sij_on);
}

static void ir_push(ETraceEnc *e, uint64_t link)
{
    unsigned max = 1u << e->cfg.params.return_stack_size;

    if (e->rdepth == max) {
        /* Full: the oldest entry goes (decoder.adoc, push_return_stack) */
        memmove(e->rstack, e->rstack + 1, (max - 1) * sizeof(e->rstack[0]));
        e->rdepth--;
    }
    e->rstack[e->rdepth++] = link;
}

/*
 * Before the packets of the held row: must it be reported?  Protocol 2.1
 * needs no such report: irets tells a decoder which return failed and
 * which pass of an address a packet reports.
 */
static bool ir_cut_needed(const ETraceEnc *e, const ETraceRow *next)
{
    if (proto_2_1(e)) {
        return false;
    }
    return e->ir_cut ||
           (ir_return(e, next) && e->rdepth && !ir_pops(e, next->addr) &&
            (e->ir_depths >> e->rdepth & 1));
}

/*
 * Protocol 2.1 (extensions.adoc, Implicit Return v0.8): a decoder pops
 * its stack at every return while it is not empty (decoder.adoc,
 * next_pc) and counts the returns popped since the last branch or packet
 * in irets.  A return is implicit when the link on top is its target and
 * fewer than 255 returns were implicit since the last branch or packet;
 * otherwise its target is reported with irreport and irets, the returns
 * popped before it.  A return with the stack empty is reported with the
 * count when it is not 0.
 */
static void ir_step_irets(ETraceEnc *e, const ETraceRow *next)
{
    ETraceRow *cur = &e->cur;

    if (!e->rdepth) {
        if (e->irets) {
            e->ir_report = true;
            e->ir_flip = e->irets;
        }
        return;
    }
    if (ir_pops(e, next->addr) && e->irets < ETRACE_IRETS_MAX) {
        e->ir_count++;
        e->ir_after_pop = true;
        cur->itype = ETRACE_ITYPE_OTHER_INF;
    } else {
        e->ir_report = true;
        e->ir_flip = e->irets;
        /* a decoder caches no target its stack predicted */
        e->ir_no_cache = ir_pops(e, next->addr);
    }
    e->rdepth--;
    e->irets++;
}

/* After the packets of the held row: its effect on the return stack. */
static void ir_step(ETraceEnc *e, const ETraceRow *next)
{
    ETraceRow *cur = &e->cur;

    e->ir_after_pop = false;
    if ((uint8_t)(cur->itype - ETRACE_ITYPE_NT_BRANCH) < 2) {
        /* Passes before a branch cannot be taken for a later one. */
        e->ir_npass = 0;
        e->irets = 0;
    } else if (cur->ir & ETRACE_ROW_CALL) {
        ir_push(e, cur->addr + (cur->ir & ETRACE_ROW_RVC ? 2 : 4));
    } else if (proto_2_1(e) && (cur->ir & ETRACE_ROW_RET) && e->rdepth &&
               cur->retired && next && !itype_is_updiscon(cur->itype)) {
        /* a sequentially inferable return: a decoder pops it too */
        e->rdepth--;
        e->irets++;
    } else if (ir_return(e, next)) {
        if (proto_2_1(e)) {
            ir_step_irets(e, next);
        } else if (ir_pops(e, next->addr)) {
            e->ir_depths |= 1u << e->rdepth;
            e->ir_count++;
            e->rdepth--;
            e->ir_after_pop = true;
            cur->itype = ETRACE_ITYPE_OTHER_INF;
        } else {
            e->ir_report = e->rdepth != 0;
            e->ir_flip = e->rdepth;
        }
    }
}

/*
 * A block @first .. @last is about to be fed: does it overlap one passed
 * since the last branch and before an implicit return (the held row's
 * included)?  With no room left to remember the block, it may.  Then in
 * 2.0 the held row is reported; in 2.1 no format 3.0 reports a row of
 * the block (ETRACE_ROW_SEEN), as its stop rule has no irets.
 */
static bool ir_check_block(ETraceEnc *e, uint64_t first, uint64_t last)
{
    ETraceRow next = { .addr = first, .retired = true };
    uint32_t irs = e->ir_count;
    unsigned i;

    if ((uint8_t)(e->cur.itype - ETRACE_ITYPE_NT_BRANCH) < 2) {
        return false;
    }
    if (ir_return(e, &next) && ir_pops(e, first) &&
        !(proto_2_1(e) && e->irets >= ETRACE_IRETS_MAX)) {
        irs++;
    }
    if (e->ir_npass == ETRACE_IR_PASSES) {
        return true;
    }
    for (i = 0; i < e->ir_npass; i++) {
        if (e->ir_irs[i] < irs && first <= e->ir_last[i] &&
            e->ir_first[i] <= last) {
            return true;
        }
    }
    return false;
}

/* The block @first .. @last was passed. */
static void ir_pass(ETraceEnc *e, uint64_t first, uint64_t last)
{
    if (e->ir_npass < ETRACE_IR_PASSES) {
        e->ir_first[e->ir_npass] = first;
        e->ir_last[e->ir_npass] = last;
        e->ir_irs[e->ir_npass] = e->ir_count;
        e->ir_npass++;
    }
}

/* The steps of the algorithm for a row that is not a common one. */
static void etrace_enc_decide_slow(ETraceEnc *e, const ETraceRow *next,
                                   bool trap_reported, bool ir_cut)
{
    const ETraceRow *cur = &e->cur;
    const ETraceRow *prev = e->have_prev ? &e->prev : NULL;
    bool first = !prev;
    bool prev_exception = prev && itype_is_exception(prev->itype);
    bool prev_updiscon = prev && itype_is_updiscon(prev->itype);
    bool next_exception = next && itype_is_exception(next->itype);
    bool next_exc_only = next && next_exception && !next->retired;
    uint8_t next_priv = next ? next->priv : cur->priv;

    /* The first instruction of a trap handler, or a second trap. */
    if (prev_exception) {
        if (!cur->retired) {
            send_trap(e, cur, prev, false);
            e->trap_reported = next_exception;
        } else if (trap_reported) {
            send_start(e, cur);
        } else {
            send_trap(e, cur, prev, true);
        }
        return;
    }

    /*
     * A trap before anything retired: its address is known only here.
     * In 2.1 an implicit return is an uninferable discontinuity too, as
     * payload.adoc has it for thaddr (and decoder.adoc, exception_address,
     * needs it).
     */
    if (!cur->retired) {
        if (first || prev_updiscon || (proto_2_1(e) && e->ir_after_pop)) {
            send_trap(e, cur, cur, false);
            e->trap_reported = true;
        }
        return;
    }

    if (first || cur->priv != prev->priv) {
        send_start(e, cur);
        return;
    }
    /*
     * A format 3.0 has no irreport: a decoder following the path to it
     * takes every return on it for implicit, and stops at the first pass
     * through its address.  When the row is the target of a failed
     * return, or (2.1) may have been passed before with an implicit
     * return in between, report the row with irreport and resync at the
     * next one.
     */
    if (resync_exceeded(e)) {
        if (!e->ir_report &&
            (!(cur->ir & ETRACE_ROW_SEEN) || e->ir_seen_void)) {
            send_start(e, cur);
            return;
        }
        send_branch(e, cur, prev_updiscon, prev_updiscon);
        return;
    }

    if (prev_updiscon) {
        send_branch(e, cur, next_exception || next_priv != cur->priv ||
                    resync_next(e), true);
        return;
    }

    /*
     * The reports of @cur below are not updiscon ones: right after an
     * implicit return a decoder stops at @cur only for notify.
     */
    if (resync_br(e)) {
        e->resync_flushed = true;
        e->ir_notify |= e->ir_after_pop && !proto_2_1(e);
        send_branch(e, cur, false, false);
        return;
    }

    if (itype_is_exception(cur->itype) || next_exc_only ||
        (pending_branches(e) && next_priv != cur->priv)) {
        e->ir_notify |= e->ir_after_pop && !proto_2_1(e);
        send_branch(e, cur, false, false);
        return;
    }

    /* A decoder is told to stop at the first pass here (notify). */
    if (ir_cut && next) {
        e->ir_notify = true;
        send_branch(e, cur, false, false);
        return;
    }

    if (branches_due(e)) {
        send_branches(e);
    }
}

/* The inferable itype a sequentially inferable jump becomes. */
static uint8_t sij_itype(uint8_t itype)
{
    return itype == ETRACE_ITYPE_UNINF_CALL ? ETRACE_ITYPE_INF_CALL :
           itype == ETRACE_ITYPE_UNINF_JUMP ? ETRACE_ITYPE_INF_JUMP :
           ETRACE_ITYPE_OTHER_INF;
}

/*
 * After the packets of the held row: a sequentially inferable jump is
 * inferable but where a synchronisation packet reported it (a decoder
 * then does not know the instruction before it).
 */
static inline void sij_resolve(ETraceEnc *e)
{
    if (unlikely(e->cur.sijump) && e->sij_on && !e->cur_synced) {
        e->cur.itype = sij_itype(e->cur.itype);
    }
}

/*
 * The bookkeeping of the held row @cur that comes before any decision:
 * its branch outcome, the half-words it retired, the end of a trap
 * report.
 */
static inline void etrace_enc_account(ETraceEnc *e)
{
    const ETraceRow *cur = &e->cur;

    e->cur_reported = false;
    e->cur_reported_updiscon = false;
    e->cur_synced = false;
    if (unlikely(e->bp_on) &&
        (uint8_t)(cur->itype - ETRACE_ITYPE_NT_BRANCH) < 2) {
        bool taken = cur->itype == ETRACE_ITYPE_T_BRANCH;
        bool met = bp_update(e, cur->addr, taken) == taken;

        if (e->pbc) {
            /* Counting: a failed prediction ends the count. */
            e->pbc += met;
            e->bp_fail = !met;
        } else {
            e->branch_map |= (uint32_t)!taken << e->branches;
            e->branches++;
            e->bp_all &= met;
        }
    } else {
        /* Without branches: the outcomes are as good as random. */
        e->branch_map |= (uint32_t)(cur->itype == ETRACE_ITYPE_NT_BRANCH) <<
                         e->branches;
        e->branches += (uint8_t)(cur->itype - ETRACE_ITYPE_NT_BRANCH) < 2;
    }

    /* The resync timer in half-word mode moves at the end of a block. */
    e->halfwords_pending += cur->halfwords;
    if (e->cfg.sync_mode == ETRACE_SYNC_MODE_HALFWORDS &&
        (cur->itype != ETRACE_ITYPE_NONE || !cur->retired)) {
        e->resync_count = MIN((uint64_t)e->resync_count +
                              e->halfwords_pending, UINT32_MAX);
        e->halfwords_pending = 0;
    }
    e->trap_reported = false;
}

/*
 * Decide what to send for the held row @cur, given the row before it
 * (unless this is the first traced row) and the row after it (NULL when
 * tracing stops after @cur).  The common row is handled here, inline;
 * the others by etrace_enc_decide_slow().
 */
static inline void etrace_enc_decide(ETraceEnc *e, const ETraceRow *next)
{
    const ETraceRow *cur = &e->cur;
    const ETraceRow *prev = &e->prev;
    bool trap_reported = e->trap_reported;
    bool ir_cut;

    if (cur->middle) {
        e->cur_reported = false;
        e->cur_reported_updiscon = false;
        e->ir_after_pop = false;
        return;
    }
    etrace_enc_account(e);
    ir_cut = false;
    if (unlikely(e->ir_on)) {
        ir_cut = ir_cut_needed(e, next);
        e->ir_cut = false;
    }

    /*
     * The common row: retired, after and before retired rows of its mode
     * that are neither traps nor discontinuities, no resync due.  Of the
     * steps of etrace_enc_decide_slow() only a full branch map can apply.
     */
    if (e->have_prev && cur->retired && next && next->retired &&
        !itype_is_exception(cur->itype) && !itype_is_exception(prev->itype) &&
        !itype_is_exception(next->itype) && !itype_is_updiscon(prev->itype) &&
        prev->priv == cur->priv && next->priv == cur->priv &&
        !resync_near(e) && !ir_cut) {
        if (unlikely(branches_due(e))) {
            send_branches(e);
        }
    } else {
        etrace_enc_decide_slow(e, next, trap_reported, ir_cut);
    }
    sij_resolve(e);
    if (unlikely(e->ir_on)) {
        ir_step(e, next);
    }
}

void etrace_enc_init(ETraceEnc *e, const ETraceEncConfig *cfg,
                     ETraceEmitFn *emit, void *opaque)
{
    memset(e, 0, sizeof(*e));
    e->cfg = *cfg;
    e->emit = emit;
    e->opaque = opaque;
    e->bp_all = true;
}

void etrace_enc_configure(ETraceEnc *e, const ETraceEncConfig *cfg)
{
    bool options_changed = ioptions(cfg) != ioptions(&e->cfg) ||
                           cfg->denable != e->cfg.denable ||
                           cfg->doptions != e->cfg.doptions;

    if (cfg->sync_mode != e->cfg.sync_mode) {
        e->resync_count = 0;
        e->halfwords_pending = 0;
        e->resync_flushed = false;
    }
    e->cfg = *cfg;
    if (options_changed) {
        /* The decoder's cache starts empty too. */
        e->jtc_valid = 0;
    }
    if (e->running && options_changed) {
        send_support(e, true, ETRACE_QUAL_NO_CHANGE);
    }
}

static void etrace_enc_reset_pipeline(ETraceEnc *e)
{
    e->have_prev = false;
    e->have_cur = false;
    e->branches = 0;
    e->branch_map = 0;
    e->pbc = 0;
    e->bp_fail = false;
    e->bp_all = true;
    e->resync_count = 0;
    e->halfwords_pending = 0;
    e->resync_flushed = false;
    e->trap_reported = false;
    e->rdepth = 0;
    e->ir_depths = 0;
    e->ir_count = 0;
    e->ir_npass = 0;
    e->ir_cut = false;
    e->ir_report = false;
    e->ir_flip = 0;
    e->ir_notify = false;
    e->ir_after_pop = false;
    e->irets = 0;
    e->ir_no_cache = false;
}

void etrace_enc_start(ETraceEnc *e)
{
    etrace_enc_reset_pipeline(e);
    e->running = true;
    send_support(e, true, ETRACE_QUAL_NO_CHANGE);
}

/*
 * Tracing ends after the held row: report it unless the packets sent
 * for it did, and say so in a support packet.  With no row held, nothing
 * was traced since tracing started or a filter ended it: qualification
 * has not changed.
 */
/*
 * Report the held row unless the packets sent for it did; returns the
 * qual_status of a support packet that ends tracing after it.
 */
static uint8_t etrace_enc_report_held(ETraceEnc *e)
{
    uint8_t qual = ETRACE_QUAL_ENDED_REP;

    if (e->have_cur) {
        /* The row before the held one was an implicit return. */
        bool after_pop = e->ir_after_pop;
        uint16_t irets = e->irets;

        etrace_enc_decide(e, NULL);
        if (e->cur.retired && !e->cur_reported) {
            e->ir_after_pop = after_pop;
            e->irets = irets;
            e->ir_notify = after_pop && !proto_2_1(e);
            send_branch(e, &e->cur, false, false);
            e->ir_after_pop = false;
        } else if (e->cur_reported_updiscon) {
            qual = ETRACE_QUAL_ENDED_NTR;
        }
    } else {
        qual = ETRACE_QUAL_NO_CHANGE;
    }
    return qual;
}

static void etrace_enc_end(ETraceEnc *e, bool ienable)
{
    send_support(e, ienable, etrace_enc_report_held(e));
    etrace_enc_reset_pipeline(e);
}

void etrace_enc_stop(ETraceEnc *e, bool ienable)
{
    if (!e->running) {
        return;
    }
    etrace_enc_end(e, ienable);
    e->running = false;
}

void etrace_enc_unqualified(ETraceEnc *e)
{
    if (!e->running || !e->have_cur) {
        return;
    }
    etrace_enc_end(e, true);
}

void etrace_enc_data_lost(ETraceEnc *e, bool inst_lost)
{
    if (!e->running) {
        return;
    }
    e->dloss = true;
    if (inst_lost) {
        return;
    }
    /*
     * Tracing goes on: the next row is reported as after a resync, in a
     * format 3.0 that follows the packet reporting the held one.
     */
    etrace_enc_report_held(e);
    send_support(e, true, ETRACE_QUAL_NO_CHANGE);
    etrace_enc_reset_pipeline(e);
}

void etrace_enc_lost(ETraceEnc *e)
{
    if (!e->running) {
        return;
    }
    e->have_prev = false;
    e->branches = 0;
    e->branch_map = 0;
    e->pbc = 0;
    e->bp_fail = false;
    e->bp_all = true;
    e->trap_reported = false;
    e->rdepth = 0;
    e->ir_cut = false;
    e->ir_report = false;
    e->ir_flip = 0;
    e->ir_notify = false;
    e->ir_after_pop = false;
    e->irets = 0;
    e->ir_no_cache = false;
    if (e->dloss) {
        /*
         * Its accesses were lost with it: the synchronisation is at the
         * next row, whose accesses come before it.
         */
        e->have_cur = false;
    }
    send_support(e, true, ETRACE_QUAL_TRACE_LOST);
}

/* Feed one row: the held one is decided now that its next is known. */
static inline void etrace_enc_row(ETraceEnc *e, const ETraceRow *r)
{
    if (e->have_cur) {
        etrace_enc_decide(e, r);
        e->prev = e->cur;
        e->have_prev = true;
    }
    e->cur = *r;
    e->have_cur = true;
}

/*
 * The held row, the first of a block of several, can cause no packet
 * whatever follows it in its block, nor can the rows up to the block's
 * last: nothing is pending about the row before it, its mode is the same,
 * no resync falls due.
 */
static bool etrace_enc_quiet(const ETraceEnc *e)
{
    const ETraceRow *prev = &e->prev;

    return e->have_prev && prev->retired &&
           !itype_is_exception(prev->itype) &&
           !itype_is_updiscon(prev->itype) &&
           prev->priv == e->cur.priv && !resync_near(e) &&
           !branches_due(e);
}

/*
 * The held row can be decided as a common one whatever retired row of
 * mode @priv that is not a trap follows it, except for a resync falling
 * due (see etrace_enc_decide()).
 */
static inline bool etrace_enc_steady(const ETraceEnc *e, uint8_t priv)
{
    const ETraceRow *prev = &e->prev;
    const ETraceRow *cur = &e->cur;

    return e->have_prev && e->have_cur && !e->ir_on &&
           prev->retired && cur->retired &&
           !cur->middle && !itype_is_exception(prev->itype) &&
           !itype_is_updiscon(prev->itype) &&
           !itype_is_exception(cur->itype) &&
           prev->priv == priv && cur->priv == priv;
}

void etrace_enc_block(ETraceEnc *e, uint64_t first, unsigned first_size,
                      uint64_t last, unsigned last_size, uint32_t count,
                      uint8_t priv, uint64_t first_time, uint64_t last_time)
{
    ETraceRow r = {
        .addr = first,
        .time = first_time,
        .itype = ETRACE_ITYPE_NONE,
        .priv = priv,
        .retired = true,
        .ctx = e->ctx,
    };
    uint32_t halfwords = (last - first + last_size) / 2;

    if (unlikely(e->ir_on) && e->have_cur) {
        e->ir_seen_void = false;
        if (ir_check_block(e, first, last)) {
            if (proto_2_1(e)) {
                r.ir = ETRACE_ROW_SEEN;
            } else {
                e->ir_cut = true;
            }
        }
    }

    /*
     * The held row is decided now that its next, the block's first row,
     * is known.  Most of the time it is a common row and the block is a
     * quiet one: then only the fields that change are written (the rows
     * are retired, of mode @priv, and the row before the held one matters
     * only by its type).
     */
    if (likely(etrace_enc_steady(e, priv))) {
        uint8_t itype;

        etrace_enc_account(e);
        if (likely(!resync_near(e))) {
            if (unlikely(branches_due(e))) {
                send_branches(e);
            }
            sij_resolve(e);
            itype = e->cur.itype;
            /* The block's first row is now the held one. */
            e->prev.itype = itype;
            e->cur.addr = first;
            e->cur.time = first_time;
            e->cur.ctx = e->ctx;
            e->cur.itype = ETRACE_ITYPE_NONE;
            e->cur.sijump = false;
            e->cur.ir = 0;
            e->cur.halfwords = 0;
            if (unlikely(e->first_held)) {
                e->first_held(e->opaque);
            }
            if (count > 1 && likely(!resync_near_after_packet(e))) {
                if (itype_is_updiscon(itype)) {
                    /*
                     * It is the target of an uninferable discontinuity,
                     * followed by a retired row of its mode:
                     * etrace_enc_decide_slow() reports it, with no resync
                     * due.
                     */
                    send_branch(e, &e->cur, false, true);
                }
                /*
                 * The rows after the first are common ones (no resync
                 * falls due, not even after that packet), so the block
                 * is passed over to its last row (etrace_enc_quiet()).
                 */
                e->prev.itype = ETRACE_ITYPE_NONE;
                e->cur.addr = last;
                e->cur.time = last_time;
                e->cur.halfwords = halfwords;
                return;
            }
        } else {
            etrace_enc_decide_slow(e, &r, false, false);
            sij_resolve(e);
            if (unlikely(e->ir_on)) {
                /* on from the synchronisation just sent */
                ir_step(e, &r);
            }
            e->prev = e->cur;
            e->cur = r;
            if (unlikely(e->first_held)) {
                e->first_held(e->opaque);
            }
        }
    } else {
        etrace_enc_row(e, &r);
        if (unlikely(e->first_held)) {
            e->first_held(e->opaque);
        }
    }

    if (count == 1) {
        e->cur.halfwords = halfwords;
        goto passed;
    }
    if (etrace_enc_quiet(e)) {
        /*
         * The common case: go straight to the block's last row, which
         * does not follow an implicit return.
         */
        e->ir_after_pop = false;
        e->prev = e->cur;
        e->cur.addr = last;
        e->cur.time = last_time;
        e->cur.halfwords = halfwords;
        goto passed;
    }
    if (count > 2) {
        /* The clock moves evenly over a block. */
        r.addr = first + first_size;
        r.time = first_time + (last_time - first_time) / (count - 1);
        etrace_enc_row(e, &r);
        if (count > 3) {
            r.middle = true;
            etrace_enc_row(e, &r);
            r.middle = false;
        }
    }
    r.addr = last;
    r.time = last_time;
    r.halfwords = halfwords;
    etrace_enc_row(e, &r);
passed:
    if (unlikely(e->ir_on)) {
        ir_pass(e, first, last);
    }
}

void etrace_enc_retired(ETraceEnc *e, uint64_t addr, uint8_t priv)
{
    ETraceRow r = {
        .addr = addr,
        .itype = ETRACE_ITYPE_NONE,
        .priv = priv,
        .retired = true,
        .ctx = e->ctx,
    };

    etrace_enc_row(e, &r);
}

void etrace_enc_skip(ETraceEnc *e, uint64_t map, unsigned n, uint64_t last)
{
    ETraceRow next = e->cur;

    next.addr = last;
    next.ctx = e->ctx;
    next.itype = ETRACE_ITYPE_NONE;
    next.sijump = false;
    next.ir = 0;
    next.halfwords = 0;
    etrace_enc_decide(e, &next);
    /*
     * The rows after the held one up to @last are common ones: their
     * branches go to the map, and the row of the branch that fills it,
     * which a retired row follows, sends it (etrace_enc_decide()).  The
     * row before @last matters only by its type, which is not a trap or
     * an uninferable discontinuity.
     */
    e->prev = e->cur;
    e->prev.itype = ETRACE_ITYPE_NONE;
    e->have_prev = true;
    while (e->branches + n >= ETRACE_MAX_BRANCHES) {
        unsigned k = ETRACE_MAX_BRANCHES - e->branches;

        e->branch_map |= (uint32_t)(map & MAKE_64BIT_MASK(0, k)) <<
                         e->branches;
        e->branches = ETRACE_MAX_BRANCHES;
        map >>= k;
        n -= k;
        send_branches(e);
    }
    e->branch_map |= (uint32_t)map << e->branches;
    e->branches += n;
    e->cur = next;
}

unsigned etrace_enc_skip_base(const ETraceEnc *e, uint8_t priv, bool *open)
{
    const ETraceRow *prev = &e->prev;
    const ETraceRow *cur = &e->cur;
    unsigned base = e->branches +
                    ((uint8_t)(cur->itype - ETRACE_ITYPE_NT_BRANCH) < 2);
    bool disc;

    /*
     * The packets the rows before the first skipped one can still cause
     * (reports of the held row, of the first row of the open block and
     * of its second) and the full maps among the skipped ones (two at
     * most: RISCV_CFLOW_BM_OUTCOMES) cannot bring a resync near.
     */
    if (base > ETRACE_MAX_BRANCHES ||
        !e->running || !e->have_cur || !e->have_prev || e->ir_on ||
        e->bp_on || e->cfg.sync_mode == ETRACE_SYNC_MODE_HALFWORDS ||
        (e->cfg.sync_mode != ETRACE_SYNC_MODE_OFF &&
         e->resync_count + 5 >= resync_max(e)) ||
        !cur->retired || cur->middle || !prev->retired ||
        itype_is_exception(prev->itype) || itype_is_exception(cur->itype) ||
        prev->priv != priv || cur->priv != priv) {
        return ETRACE_MAX_BRANCHES;
    }
    disc = itype_is_updiscon(cur->itype) || itype_is_updiscon(prev->itype);
    if (disc && !*open) {
        return ETRACE_MAX_BRANCHES;
    }
    *open = disc;
    /*
     * With the held row's outcome the map is full: a packet reports the
     * held row's branches when a retired row follows it (a full map, or
     * the address the row before it makes due), before any other row.
     */
    return base == ETRACE_MAX_BRANCHES ? 0 : base;
}

void etrace_enc_set_sijump(ETraceEnc *e, uint64_t addr)
{
    if (e->have_cur && e->cur.retired && e->cur.addr == addr) {
        e->cur.sijump = true;
    }
}

void etrace_enc_trap_return(ETraceEnc *e)
{
    if (e->have_cur && e->cur.retired) {
        e->cur.itype = ETRACE_ITYPE_TRAP_RETURN;
    }
}

void etrace_enc_trap(ETraceEnc *e, bool interrupt, uint8_t ecause,
                     uint64_t tval, uint64_t epc, unsigned size,
                     uint8_t priv, uint64_t time)
{
    ETraceRow r = {
        .addr = epc,
        .time = time,
        .tval = tval,
        .halfwords = size / 2,
        .itype = interrupt ? ETRACE_ITYPE_INTERRUPT : ETRACE_ITYPE_EXCEPTION,
        .priv = priv,
        .ecause = ecause,
        .retired = size != 0,
        .ctx = e->ctx,
    };

    etrace_enc_row(e, &r);
}

void etrace_enc_set_context(ETraceEnc *e, uint32_t ctx, uint8_t priv,
                            bool report)
{
    e->ctx = ctx;
    e->ctx_priv = priv;
    if (report && e->running && ctx != e->ctx_sent) {
        send_context(e, priv, ctx);
    }
}
