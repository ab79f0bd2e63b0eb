/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace 2.0 branch trace encoder algorithm.
 *
 * Turns a hart's retired instructions, given as blocks in the manner of
 * the spec's multiple-retirement ingress port, into the te_inst packets
 * of the reference compressed branch trace algorithm
 * (exampleAlgorithm.adoc), packet for packet.  Independent of QEMU's CPU
 * and device models, so that host unit tests can drive it.
 *
 * Every instruction the algorithm looks at is a "row": a retired
 * instruction, or a trap reported before anything retired at its address
 * (an "exception-only" row).  The algorithm decides what to send for a
 * row from the row before and the row after it, so the last row given is
 * held until the next arrives, the trace stops or packets are lost.  Of
 * a block of sequential instructions only the first, the second and the
 * last can cause a packet; the others are passed over (the spec's
 * "multiple retirement considerations").
 *
 * Where the spec's normative text and the reference encoder model
 * disagree, the normative text wins; docs/specs/riscv-trace.rst lists
 * the cases.
 */
#ifndef HW_RISCV_ETRACE_ENC_H
#define HW_RISCV_ETRACE_ENC_H

#include "hw/riscv/etrace.h"

/* trTeInstSyncMode values this encoder implements. */
#define ETRACE_SYNC_MODE_OFF        0
#define ETRACE_SYNC_MODE_PACKETS    1
#define ETRACE_SYNC_MODE_HALFWORDS  3

/* The largest jump target cache and branch predictor: 2^6 entries. */
#define ETRACE_JTC_MAX_BITS         6
#define ETRACE_BPRED_MAX_BITS       6
/* The return stack of implicit return mode: 2^4 entries. */
#define ETRACE_RSTACK_BITS          4
/* Blocks passed since the last branch that implicit return remembers. */
#define ETRACE_IR_PASSES            32

/*
 * ETRACE_QEMU_PARAMS: the parameters of QEMU's trace encoder, an
 * ETraceParams initializer: 64-bit addresses of which bit 0 is always 0,
 * 3-bit privilege, 6-bit ecause; format 0 subformats 0 and 1; the
 * largest jump target cache and branch predictor; a 16-entry return
 * stack (irdepth is 5 bits wide); protocol 2.0 (the device's property
 * "protocol" chooses).  The encoder, etrace-decode's defaults and the
 * tests take them from here.
 */
#define ETRACE_QEMU_PARAMS {                            \
    .iaddress_width = 64,                               \
    .iaddress_lsb = 1,                                  \
    .privilege_width = 3,                               \
    .ecause_width = 6,                                  \
    .f0s_width = 1,                                     \
    .cache_size = ETRACE_JTC_MAX_BITS,                  \
    .bpred_size = ETRACE_BPRED_MAX_BITS,                \
    .return_stack_size = ETRACE_RSTACK_BITS,            \
}

/**
 * ETraceEncConfig: run-time options
 * @params: field widths
 * @full_address: send full addresses in formats 1 and 2
 *                (trTeInstNoAddrDiff)
 * @jump_cache: report the target of an uninferable jump by its jump
 *              target cache entry when it is there (format 0.1,
 *              trTeInstEnJumpTargetCache; needs params.cache_size)
 * @branch_pred: count the branches a predictor foresees instead of
 *               mapping them, from 31 on (format 0.0,
 *               trTeInstEnBranchPrediction; needs params.bpred_size)
 * @sijump: treat sequentially inferable jumps as inferable
 *          (trTeInstEnSequentialJump)
 * @implicit_return: do not report the targets of returns a return stack
 *                   predicts (trTeInstEnImplicitReturn; needs
 *                   params.return_stack_size)
 * @sync_mode: ETRACE_SYNC_MODE_*
 * @sync_max: trTeInstSyncMax: resync after 2^(sync_max + 4) units
 */
typedef struct ETraceEncConfig {
    ETraceParams params;
    bool full_address;
    bool jump_cache;
    bool branch_pred;
    bool sijump;
    bool implicit_return;
    uint8_t sync_mode;
    uint8_t sync_max;
    /* the support packet's denable and doptions (ETRACE_DOPT_*) */
    bool denable;
    uint8_t doptions;
} ETraceEncConfig;

/* Receives each packet the encoder makes, in order. */
typedef void ETraceEmitFn(void *opaque, const ETraceTeInst *t);

/**
 * ETraceRow: one instruction as the algorithm sees it
 * @addr: its address; for an exception-only row, the EPC
 * @itype: ETRACE_ITYPE_*: what the instruction did (1 or 2 for a trap)
 * @priv: ETRACE_PRIV_* it ran in, or trapped from
 * @retired: false for an exception-only row
 * @middle: stands for instructions in the middle of a block, which never
 *          cause a packet (@addr is not meaningful)
 * @halfwords: half-words retired that this row accounts for in
 *             half-word resync mode
 * @ecause, @tval: the trap of an itype 1 or 2 row
 * @sijump: an uninferable jump whose target is sequentially inferable
 * @ir: ETRACE_ROW_* flags for implicit return
 * @time: when it retired or trapped (a clock value the encoder passes
 *        on with the packets that report it)
 * @ctx: the hart's context when it ran (etrace_enc_set_context())
 */
typedef struct ETraceRow {
    uint64_t addr;
    uint64_t tval;
    uint64_t time;
    uint32_t halfwords;
    uint8_t itype;
    uint8_t priv;
    uint8_t ecause;
    bool retired;
    bool middle;
    bool sijump;
    uint8_t ir;
    uint32_t ctx;
} ETraceRow;

/*
 * ETraceRow.ir: a call (jal or jalr with rd = x1, c.jal, c.jalr), a
 * return (jalr x0, imm(x1), c.jr x1), as the decoder pseudo-code's
 * is_call and is_implicit_return see them (decoder.adoc); the call is 2
 * bytes long.
 */
#define ETRACE_ROW_CALL             1
#define ETRACE_ROW_RET              2
#define ETRACE_ROW_RVC              4
/*
 * Protocol 2.1: the row's block overlaps one passed since the last
 * branch or packet with an implicit return in between, so a format 3.0
 * cannot report the row (see etrace-enc.c)
 */
#define ETRACE_ROW_SEEN             8

typedef struct ETraceEnc {
    ETraceEncConfig cfg;
    ETraceEmitFn *emit;
    void *opaque;
    /*
     * Optional: called by etrace_enc_block() once the block's first row
     * is held, before any packet reports it (data trace sends that
     * instruction's accesses there).
     */
    void (*first_held)(void *opaque);

    /* The pipeline: @cur waits for the next row to be decided. */
    ETraceRow prev;
    ETraceRow cur;
    bool have_prev;             /* prev is qualified */
    bool have_cur;
    bool running;               /* between start and stop */
    /* the next support packet says data trace packets were lost */
    bool dloss;

    /* Branches not yet reported; bit 0 is the oldest, 1 = not taken. */
    uint32_t branch_map;
    uint8_t branches;

    /* Last address sent in a packet that carries one. */
    uint64_t last_addr;

    /*
     * The jump target cache: entry i holds the last uninferable jump
     * target reported whose address bits cache_size:1 are i, when bit i
     * of jtc_valid is set; all invalid after a synchronisation packet.
     */
    uint64_t jtc[1 << ETRACE_JTC_MAX_BITS];
    uint64_t jtc_valid;

    /*
     * The branch predictor; the branches it foresaw since the last
     * packet, once 31 of them in a row made a full map (0 otherwise); the
     * branch of the held row failed the prediction while counting; all
     * the branches in the map were foreseen.
     */
    uint8_t bp[1 << ETRACE_BPRED_MAX_BITS];
    uint64_t pbc;
    bool bp_fail;
    bool bp_all;
    /* branch_pred as of the last synchronisation packet */
    bool bp_on;
    /* sijump as of the last synchronisation packet */
    bool sij_on;
    /*
     * Implicit return (E-Trace "Implicit return mode", with a stack of
     * predicted return addresses): on as of the last synchronisation
     * packet; the stack as a decoder holds it, the oldest first.
     */
    bool ir_on;
    uint64_t rstack[1 << ETRACE_RSTACK_BITS];
    uint8_t rdepth;
    /*
     * Since the last packet: the depths at which returns were implicit
     * (bit d: a decoder's irstack_depth d at the return), how many.
     */
    uint32_t ir_depths;
    uint32_t ir_count;
    /*
     * The blocks passed since the last branch or packet: first and last
     * instruction, ir_count when they were passed.
     */
    uint64_t ir_first[ETRACE_IR_PASSES];
    uint64_t ir_last[ETRACE_IR_PASSES];
    uint32_t ir_irs[ETRACE_IR_PASSES];
    uint8_t ir_npass;
    /*
     * Where a decoder could stop too early: the held row is reported,
     * with notify (the next address packet's).
     */
    bool ir_cut;
    bool ir_notify;
    /*
     * The row before the held one was an implicit return: a decoder
     * stops at the held row, after that uninferable discontinuity, only
     * for notify (decoder.adoc, follow_execution_path).
     */
    bool ir_after_pop;
    /*
     * The target of a return is reported next with irreport, and the
     * value of the field after it: in 2.0 the depth of the failed return
     * (irdepth), in 2.1 the implicit returns before it (irets).
     */
    bool ir_report;
    uint8_t ir_flip;
    /*
     * Protocol 2.1: returns a decoder pops since the last branch or
     * packet (irets, extensions.adoc); the return whose target is
     * reported next was predicted, its target is not cached.
     */
    uint16_t irets;
    bool ir_no_cache;
    /*
     * A packet was sent since the rows of the last block were marked
     * ETRACE_ROW_SEEN: a decoder follows from there, the marks are void.
     */
    bool ir_seen_void;
    /* A synchronisation packet reported @cur. */
    bool cur_synced;

    /* Periodic resync: packets or half-words since the last sync. */
    uint32_t resync_count;
    uint32_t halfwords_pending;
    bool resync_flushed;

    /* The time of the next support packet (etrace_enc_set_now()). */
    uint64_t now;

    /*
     * The context of the rows fed from now on, and the privilege it was
     * set in; the context of the last packet that carried one.
     */
    uint32_t ctx;
    uint8_t ctx_priv;
    uint32_t ctx_sent;

    /* The trap of the previous row went out with thaddr = 0. */
    bool trap_reported;
    /* Processing of @cur sent a packet with its address, and why. */
    bool cur_reported;
    bool cur_reported_updiscon;
} ETraceEnc;

/**
 * etrace_enc_init: set up an encoder
 * @e: encoder
 * @cfg: options, copied
 * @emit: packet sink
 * @opaque: passed to @emit
 */
void etrace_enc_init(ETraceEnc *e, const ETraceEncConfig *cfg,
                     ETraceEmitFn *emit, void *opaque);

/**
 * etrace_enc_set_now: the time that support packets sent from now on
 * carry (tracing starts, stops or ends, packets are lost, options change)
 */
/*
 * etrace_enc_branches: the branches retired since the instruction the
 * last packet reported, as a decoder consumes them following the next
 * packet: in the map, counted as predicted, a failed prediction, and the
 * held row's, not yet accounted.
 */
static inline uint64_t etrace_enc_branches(const ETraceEnc *e)
{
    return e->branches + e->pbc + e->bp_fail +
           (e->have_cur && !e->cur.middle &&
            (uint8_t)(e->cur.itype - ETRACE_ITYPE_NT_BRANCH) < 2);
}

static inline void etrace_enc_set_now(ETraceEnc *e, uint64_t now)
{
    e->now = now;
}

/**
 * etrace_enc_configure: change the options
 * @e: encoder
 * @cfg: the new options, copied
 *
 * While tracing, sends a support packet when the options it reports
 * change; a change of resync mode restarts the resync count.
 */
void etrace_enc_configure(ETraceEnc *e, const ETraceEncConfig *cfg);

/**
 * etrace_enc_start: tracing starts
 * @e: encoder
 *
 * Sends a support packet; the next row is the first traced instruction.
 */
void etrace_enc_start(ETraceEnc *e);

/**
 * etrace_enc_stop: tracing stops after the last row given
 * @e: encoder
 * @ienable: the encoder stays enabled (only instruction tracing stops)
 *
 * Reports the last traced instruction, then sends a support packet with
 * qual_status ended_rep or ended_ntr (no_change when nothing was traced
 * since tracing started or a filter ended it).
 */
void etrace_enc_stop(ETraceEnc *e, bool ienable);

/**
 * etrace_enc_unqualified: the next instruction is not traced
 * @e: encoder
 *
 * A filter stopped qualifying the instructions: tracing ends after the
 * last row given, as etrace_enc_stop() ends it but with the encoder
 * enabled, and starts again, with a synchronisation packet, at the next
 * row.  Nothing happens when no row was given since tracing started or
 * last ended.
 */
void etrace_enc_unqualified(ETraceEnc *e);

/**
 * etrace_enc_lost: packets were lost
 * @e: encoder
 *
 * Sends a support packet with qual_status trace_lost; tracing resumes
 * with a synchronisation packet, as if the held row were the first one
 * (after etrace_enc_data_lost(), at the next row: data packets were lost
 * too, the held row's accesses among them).
 */
void etrace_enc_lost(ETraceEnc *e);

/**
 * etrace_enc_data_lost: data trace packets were dropped or lost
 * @e: encoder
 * @inst_lost: instruction packets were lost too: etrace_enc_lost() comes
 *             next, and its support packet says dloss
 *
 * When only data packets were: reports the held row unless its packets
 * did (a decoder then knows every instruction retired so far), sends a
 * support packet with dloss (qualification unchanged), and goes on with
 * a synchronisation packet at the next row, as after a resync: the
 * instruction trace loses nothing.
 */
void etrace_enc_data_lost(ETraceEnc *e, bool inst_lost);

/**
 * etrace_enc_block: feed a block of sequential instructions
 * @e: encoder
 * @first: address of the first
 * @first_size: its size in bytes
 * @last: address of the last
 * @last_size: its size in bytes
 * @count: number of instructions, at least 1
 * @priv: ETRACE_PRIV_* they ran in
 * @first_time: when the first retired
 * @last_time: when the last retired (the clock moves evenly in between)
 *
 * The last instruction's type is ETRACE_ITYPE_NONE until
 * etrace_enc_set_itype() says otherwise.
 */
void etrace_enc_block(ETraceEnc *e, uint64_t first, unsigned first_size,
                      uint64_t last, unsigned last_size, uint32_t count,
                      uint8_t priv, uint64_t first_time, uint64_t last_time);

/**
 * etrace_enc_retired: one retired row, not a transfer (until
 * etrace_enc_set_itype() says otherwise)
 * @e: encoder
 * @addr: its address
 * @priv: its mode
 *
 * For a row the encoder must see, the first of a block: the held row is
 * decided now that its next is known, and this one is held.
 */
void etrace_enc_retired(ETraceEnc *e, uint64_t addr, uint8_t priv);

/**
 * etrace_enc_skip: rows the encoder need not look at one by one
 * @e: encoder
 * @map: the outcomes of the conditional branches among them, the oldest
 *       in bit 0, 1 for not taken
 * @n: how many
 * @last: the address of the last row, which is held
 *
 * The held row is decided with a retired row of its mode after it, then
 * the rows up to @last are passed over: none of them is a trap, an
 * uninferable discontinuity or of another mode, and no packet but full
 * branch maps falls due among them (etrace_enc_skip_base() says when
 * that holds).  The packets are those the rows one by one would give.
 */
void etrace_enc_skip(ETraceEnc *e, uint64_t map, unsigned n, uint64_t last);

/**
 * etrace_enc_skip_base: whether rows can be skipped
 * @e: encoder
 * @priv: the mode they retire in
 * @open: in: a block may be fed row by row (etrace_enc_block(), or its
 *        first row by etrace_enc_retired()) before them; out: one must
 *        (the held row or the one before it is an uninferable
 *        discontinuity, whose target is reported)
 *
 * Returns the number of branches held (a row's outcome counts once it is
 * known) when retired rows of @priv that are neither traps nor
 * uninferable discontinuities can follow and be given by
 * etrace_enc_skip(): they cause no packet but the full branch maps their
 * outcomes make (two at most, with up to 62 outcomes in all).  0 when
 * the held row's outcome fills the map: the row after it sends it.
 * Otherwise ETRACE_MAX_BRANCHES.
 */
unsigned etrace_enc_skip_base(const ETraceEnc *e, uint8_t priv, bool *open);

/**
 * etrace_enc_set_itype: the last row given turns out to be a transfer
 * @e: encoder
 * @addr: its address
 * @itype: ETRACE_ITYPE_* of the transfer
 *
 * Ignored when the last row given is not at @addr.
 */
static inline void etrace_enc_set_itype(ETraceEnc *e, uint64_t addr,
                                        uint8_t itype)
{
    if (e->have_cur && e->cur.retired && e->cur.addr == addr) {
        e->cur.itype = itype;
    }
}

/**
 * etrace_enc_set_sijump: the last row given, at @addr, is an uninferable
 * jump whose source register the row before it loaded with a constant
 * (lui, c.lui, auipc): with the option on, it is inferable unless a
 * synchronisation packet reports it
 * @e: encoder
 * @addr: its address
 */
void etrace_enc_set_sijump(ETraceEnc *e, uint64_t addr);

/**
 * etrace_enc_set_ir: the last row fed is a call or a return
 * @e: the encoder
 * @addr: its address
 * @flags: ETRACE_ROW_CALL (with ETRACE_ROW_RVC for c.jal, c.jalr) or
 *         ETRACE_ROW_RET
 *
 * Ignored when the last row given is not at @addr.  Inline: every call
 * and return of a traced hart comes here, whether the option is on or
 * not (it may be turned on before the row is decided).
 */
static inline void etrace_enc_set_ir(ETraceEnc *e, uint64_t addr,
                                     uint8_t flags)
{
    if (e->have_cur && e->cur.retired && e->cur.addr == addr) {
        e->cur.ir |= flags;
    }
}

/**
 * etrace_enc_trap_return: the last row given is a trap return (xRET)
 * @e: encoder
 */
void etrace_enc_trap_return(ETraceEnc *e);

/**
 * etrace_enc_trap: feed a trap
 * @e: encoder
 * @interrupt: an interrupt (else an exception)
 * @ecause: its cause
 * @tval: the value written to xtval
 * @epc: the value written to xepc
 * @size: size of the instruction at @epc when it retires before the
 *        trap is taken (ecall, ebreak, c.ebreak), else 0
 * @priv: ETRACE_PRIV_* the trap was taken from
 * @time: when it was taken
 */
void etrace_enc_trap(ETraceEnc *e, bool interrupt, uint8_t ecause,
                     uint64_t tval, uint64_t epc, unsigned size,
                     uint8_t priv, uint64_t time);

/**
 * etrace_enc_set_context: the hart's context changes
 * @e: encoder
 * @ctx: the context of the instructions fed from now on (0 without a
 *       context field)
 * @priv: ETRACE_PRIV_* of the hart now
 * @report: report the change imprecisely (ctype 1, ingressPort.adoc
 *          tab:context-type) in a format 3.2 now, unless the last packet
 *          that carried a context carried @ctx; else the next
 *          synchronisation packet reports it (the change comes with a
 *          change of privilege, which always brings one)
 *
 * Synchronisation packets carry the context of the instruction they
 * report; one that reports an instruction of an older context is followed
 * by a format 3.2 with the current one.
 */
void etrace_enc_set_context(ETraceEnc *e, uint32_t ctx, uint8_t priv,
                            bool report);

#endif
