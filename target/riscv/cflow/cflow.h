/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V control-flow event pipeline.
 *
 * One per-hart stream of control-flow events feeds every consumer of
 * control flow (CTR, the Smcntrpmf instruction count, a trace encoder):
 *
 * - translated code appends executed blocks (first and last instruction,
 *   instructions retired) and transfers (source, target, type) to a
 *   buffer in CPURISCVState with inline stores, and counts retired
 *   instructions in RISCVCFState.insns;
 * - the trap and xRET paths deliver traps and trap returns in C, after
 *   draining the buffer, so that consumers see one ordered stream;
 * - a privilege mode change drains the buffer and tells the consumers
 *   before the change (riscv_cf_before_mode_change()) and after it
 *   (riscv_cf_after_mode_change()).
 *
 * Consumers register once per hart and say, for the current mode, what
 * they need (RISCV_CFLOW_NEED_*).  The union of those needs is part of the
 * TB's cs_base, so that a block contains exactly the code its consumers
 * need in the mode it runs in, and none at all when nothing consumes.
 * Whatever a need depends on either changes the mode or is written by an
 * instruction that ends its translation block; the consumer then calls
 * riscv_cf_update_needs().
 *
 * Consumers see buffered events at sync points: whenever the buffer is
 * full, at every trap, trap return and mode change, when the CPU enters
 * or leaves its execution loop, and whenever a consumer asks for it
 * (riscv_cf_sync()) because its state is about to become visible.
 */
#ifndef RISCV_CFLOW_H
#define RISCV_CFLOW_H

#include "cpu.h"
#include "qemu/host-utils.h"

/* Needs: bit N asks for transfers of ctrdata.TYPE N (CTRType). */
#define RISCV_CFLOW_NEED_TYPES         MAKE_64BIT_MASK(0, 16)
/* Count retired instructions in RISCVCFState.insns. */
#define RISCV_CFLOW_NEED_INSNS         BIT(16)
/* Append an event for every block of instructions executed. */
#define RISCV_CFLOW_NEED_BLOCKS        BIT(17)
/*
 * Every block holds one instruction: a consumer that looks at each
 * instruction on its own (a trace filter comparing addresses).
 */
#define RISCV_CFLOW_NEED_STEP          BIT(18)
/* Transfers say when they are sequentially inferable (below). */
#define RISCV_CFLOW_NEED_SIJUMP        BIT(19)
/*
 * With RISCV_CFLOW_NEED_INSNS: stop at RISCVCFState.insn_limit.  A block
 * that would count past it calls helper_cf_insn_limit(), which runs the
 * instructions up to the limit one per block (RISCV_CFLOW_NEED_STEP while
 * RISCVCFState.insn_step) and, once the count is at the limit, asks the
 * consumers for their needs again before the next instruction: the
 * consumer that set the limit acts there (a counter overflows exactly
 * there) and sets the next one.
 */
#define RISCV_CFLOW_NEED_INSN_LIMIT    BIT(20)
/*
 * Branch-map mode, for one consumer that needs the path a hart takes but
 * not an event per block (a branch trace encoder).  Translated code
 * keeps in RISCVCFState the outcome of every conditional branch, the
 * last pc of the last two blocks and the number of blocks since the
 * consumer last looked, and calls the consumer's @bmap_look hook at the
 * start of a block only after an uninferable transfer (an indirect jump
 * or call, a return, a table jump) or once the branches reach the
 * number the consumer armed for, or when the consumer asks to look at
 * the next block.  The consumer takes the run since it last looked with
 * riscv_cf_bmap_take() at its hooks and re-arms with riscv_cf_bmap_arm().
 * Granted only when no other consumer needs events in the mode (see
 * riscv_cf_update_needs()); a consumer asking for it also gives the needs
 * it has without it, which apply when it is not granted.
 */
#define RISCV_CFLOW_NEED_BMAP          BIT(21)
/*
 * Append an event for every data access an instruction retires (loads,
 * stores): the E-Trace data trace interface's unified signalling.  Data
 * events follow the event of their block, in the order the accesses were
 * made; a block reserves room for all of them when it starts, so that an
 * instruction that traps can take back the accesses it made
 * (riscv_cf_unwind()).  It brings block events with it (a consumer that
 * needs only data events passes over them), and like them it keeps the
 * hart out of branch-map mode.  A vector load or store reports each
 * element access its helper makes (RISCV_CFLOW_EV_DATA_MMA), appended
 * once it retires, and ends its block (riscv_cf_vdata_begin()).
 */
#define RISCV_CFLOW_NEED_DATA          BIT(22)
#define RISCV_CFLOW_NEED_ALL           (RISCV_CFLOW_NEED_TYPES | \
                                     RISCV_CFLOW_NEED_INSNS | \
                                     RISCV_CFLOW_NEED_BLOCKS | \
                                     RISCV_CFLOW_NEED_STEP | \
                                     RISCV_CFLOW_NEED_SIJUMP | \
                                     RISCV_CFLOW_NEED_INSN_LIMIT | \
                                     RISCV_CFLOW_NEED_BMAP | \
                                     RISCV_CFLOW_NEED_DATA)

/*
 * RISCVCFState.bm_state: no block retired since the consumer last looked;
 * the last block started is the open one (the one that started at the
 * look, which the consumer follows); a block started after it, or since
 * a look that opened none.
 */
#define RISCV_CFLOW_BM_EMPTY           0
#define RISCV_CFLOW_BM_OPEN            1
#define RISCV_CFLOW_BM_SKIPPED         2
/*
 * RISCVCFState.bm_map: the consumer looks once it reaches this: the
 * outcomes it holds and those of the run are then 62, two full branch
 * maps of E-Trace.
 */
#define RISCV_CFLOW_BM_OUTCOMES        62
#define RISCV_CFLOW_BM_FULL            (UINT64_C(1) << RISCV_CFLOW_BM_OUTCOMES)
/*
 * The facts of a block that translated code passes to
 * helper_cf_bmap_look(): its instruction count, the offset of its last
 * instruction, the sizes of its first and last, whether it ends with a
 * conditional branch.
 */
#define RISCV_CFLOW_BM_INFO_COUNT      MAKE_64BIT_MASK(0, 16)
#define RISCV_CFLOW_BM_INFO_OFS_SHIFT  16
#define RISCV_CFLOW_BM_INFO_OFS        MAKE_64BIT_MASK(16, 16)
#define RISCV_CFLOW_BM_INFO_FIRST_RVC  BIT_ULL(32)
#define RISCV_CFLOW_BM_INFO_LAST_RVC   BIT_ULL(33)
#define RISCV_CFLOW_BM_INFO_BRANCH     BIT_ULL(34)

/* TranslationBlock.cs_base holds the needs above this bit. */
#define RISCV_CFLOW_TB_SHIFT           32
/*
 * While a consumer records the code the hart translates
 * (riscv_cf_record_code()), cs_base holds the hart's index (modulo 512)
 * above this bit: each hart runs the blocks it translated itself, so
 * that the code hooks see all the code it runs, when it runs it.
 */
#define RISCV_CFLOW_TB_CODE_SHIFT      55
#define RISCV_CFLOW_TB_CODE_MASK       0x1ff

/*
 * RISCVCFEvent.info: the kind in bits 15:8, the transfer type in 7:0
 * (CTRDATA_TYPE_NONE for a block), flags above.
 *
 * A block event is appended when the block starts to run, after the
 * exit-request check, and describes the instructions it retires: when
 * one of them traps, riscv_cf_unwind() cuts the event back to the
 * instructions before it, or removes it when there are none.  Blocks
 * follow each other without gaps in a mode: a block starts where the
 * previous one ended, at the target of its transfer, or at the pc a trap
 * or trap return delivered in between set.
 */
#define RISCV_CFLOW_EV_KIND_SHIFT      8
#define RISCV_CFLOW_EV_KIND_MASK       0xff00
#define RISCV_CFLOW_EV_TYPE_MASK       0xff
#define RISCV_CFLOW_EV_TRANSFER        1
#define RISCV_CFLOW_EV_BLOCK           2
/*
 * A data access (RISCV_CFLOW_NEED_DATA): @src its address (the effective
 * address, pointer masking applied), @dst the value read (loads) or
 * written (stores), zero-extended from its size, @insns an atomic's
 * operand (else 0), @count the index of its instruction in its block.
 * Its RISCV_CFLOW_DATA_* type is in RISCV_CFLOW_EV_DATA_TYPE; the
 * transfer type field is CTRDATA_TYPE_NONE, as for a block, so that a
 * consumer that only looks at transfer types (CTR) passes over it.
 */
#define RISCV_CFLOW_EV_DATA            3
/* Data: log2 of the access's bytes (4: amocas.q). */
#define RISCV_CFLOW_EV_DATA_SIZE_SHIFT 16
#define RISCV_CFLOW_EV_DATA_SIZE       MAKE_64BIT_MASK(16, 3)
/*
 * Data: one of the accesses of an instruction that makes several
 * (cm.push, cm.pop, cm.popret, cm.popretz), in the order it makes them.
 */
#define RISCV_CFLOW_EV_DATA_MMA        BIT(19)
/*
 * Data: the bytes 8 to 15 of the value and the operand of the 16-byte
 * access of the event before it (which has the low ones); the other
 * fields are that event's.
 */
#define RISCV_CFLOW_EV_DATA_HIGH       BIT(20)
#define RISCV_CFLOW_EV_DATA_TYPE_SHIFT 24
#define RISCV_CFLOW_EV_DATA_TYPE       MAKE_64BIT_MASK(24, 4)
/*
 * Data access types: the dtype values of E-Trace's data interface.  An
 * AMO's value is the one read (what rd gets), @insns its operand (rs2).
 * A compare-and-swap that swapped is a swap (value read, rs2); one that
 * did not, RISCV_CFLOW_DATA_CAS_FAIL with the same fields.  A store
 * conditional that failed has no value.
 */
#define RISCV_CFLOW_DATA_LOAD          0
#define RISCV_CFLOW_DATA_STORE         1
#define RISCV_CFLOW_DATA_CAS_FAIL      7
#define RISCV_CFLOW_DATA_AMO_SWAP      8
#define RISCV_CFLOW_DATA_AMO_ADD       9
#define RISCV_CFLOW_DATA_AMO_AND       10
#define RISCV_CFLOW_DATA_AMO_OR        11
#define RISCV_CFLOW_DATA_AMO_XOR       12
#define RISCV_CFLOW_DATA_AMO_MAX       13
#define RISCV_CFLOW_DATA_AMO_MIN       14
#define RISCV_CFLOW_DATA_SC_FAIL       15
/* Data events a block holds at most: a longer block ends before. */
#define RISCV_CFLOW_TB_DATA_MAX        64
/* Block: its last retired instruction is 2 bytes long (else 4). */
#define RISCV_CFLOW_EV_LAST_RVC        BIT(16)
/* Block: its first instruction is 2 bytes long (else 4). */
#define RISCV_CFLOW_EV_FIRST_RVC       BIT(17)
/*
 * Transfer: a table jump (cm.jt, cm.jalt, ctrdata.TYPE direct jump or
 * call).  Its target comes from memory, not from the instruction, so it
 * is appended whenever some consumer needs block events, whatever the
 * types needed.
 */
#define RISCV_CFLOW_EV_TABLE_JUMP      BIT(18)
/*
 * Transfer: a jalr with rs1 = x0 (ctrdata.TYPE an indirect jump or call),
 * whose target is the constant in its encoding: an inferable jump for a
 * trace encoder (E-Trace, "Jump classification and target inference").
 */
#define RISCV_CFLOW_EV_DIRECT_TARGET   BIT(19)
/*
 * Transfer: a jalr whose rs1 the instruction retired just before it (a
 * lui, c.lui or auipc) loaded: its target is sequentially inferable
 * (E-Trace, "Jump classification and target inference").  Only while
 * some consumer needs RISCV_CFLOW_NEED_SIJUMP.
 */
#define RISCV_CFLOW_EV_SEQ_INFERABLE   BIT(20)
/*
 * Transfer: a jal or jalr that writes its link to x1 (c.jal and c.jalr
 * too), a call to an E-Trace decoder's return stack (decoder.adoc,
 * is_call; x5 links do not count there).
 */
#define RISCV_CFLOW_EV_LINK_X1         BIT(21)
/* Transfer with RISCV_CFLOW_EV_LINK_X1: c.jal or c.jalr, 2 bytes long. */
#define RISCV_CFLOW_EV_LINK_RVC        BIT(23)
/*
 * Transfer: jalr x0, imm(x1) or c.jr x1, a return to an E-Trace
 * decoder's return stack (decoder.adoc, is_implicit_return).
 */
#define RISCV_CFLOW_EV_RETURN_X1       BIT(22)

static inline CTRType riscv_cf_event_type(const RISCVCFEvent *ev)
{
    return ev->info & RISCV_CFLOW_EV_TYPE_MASK;
}

static inline unsigned riscv_cf_event_kind(const RISCVCFEvent *ev)
{
    return (ev->info & RISCV_CFLOW_EV_KIND_MASK) >> RISCV_CFLOW_EV_KIND_SHIFT;
}

/* A data event's RISCV_CFLOW_DATA_* type. */
static inline unsigned riscv_cf_event_data_type(const RISCVCFEvent *ev)
{
    return (ev->info & RISCV_CFLOW_EV_DATA_TYPE) >>
           RISCV_CFLOW_EV_DATA_TYPE_SHIFT;
}

/*
 * The third insn_start word carries, above the unwind flags (RISCV_UW2_*),
 * when the block counts retired instructions or appends a block event,
 * whether the instruction before this one in its block is 2 bytes long
 * and the index of this one in its block (from 0): both are known when
 * the word is emitted; the instructions left to the end of the block are
 * then the block's icount minus the index.
 */
#define RISCV_CFLOW_UW2_FLAGS          MAKE_64BIT_MASK(0, 4)
#define RISCV_CFLOW_UW2_PREV_RVC       BIT(4)
#define RISCV_CFLOW_UW2_INDEX_SHIFT    5

/* A trap as the consumers see it; the source mode is the CPU's. */
typedef struct RISCVCFTrap {
    bool async;
    target_ulong cause;         /* as written to xcause, no interrupt bit */
    target_ulong tval;
    /*
     * Size of the instruction at @epc when it retires before the trap is
     * taken (ecall, ebreak, c.ebreak), else 0: that instruction is not in
     * the block events, which hold only instructions that complete.
     */
    unsigned insn_len;
    uint64_t epc;
    uint64_t handler;
    target_ulong target_priv;
    bool target_virt;
} RISCVCFTrap;

/* A trap return (xRET) from the CPU's current mode and pc. */
typedef struct RISCVCFTrapReturn {
    uint64_t retpc;
    target_ulong target_priv;
    bool target_virt;
} RISCVCFTrapReturn;

/**
 * RISCVCFConsumerOps: what a consumer provides; any hook may be NULL
 * @needs: RISCV_CFLOW_NEED_* it needs in the current mode, and with
 *         RISCV_CFLOW_NEED_INSN_LIMIT the limit; a query without other side
 *         effects, called whenever any consumer's needs may have changed
 * @insn_limit: the instruction count has reached RISCVCFState.insn_limit;
 *              the consumer acts before the next instruction (a counter
 *              overflows there); the needs are asked for again after it
 * @drain: events appended since the last sync point, oldest first; also
 *         called with @n = 0 at every sync point
 * @trap: a trap is taken: xcause, xepc and the pc are written, the CPU
 *        is still in the source mode
 * @trap_return: an xRET is about to change the mode
 * @before_mode_change: the privilege mode or V is about to change (CPU
 *                      still in the old mode, events drained)
 * @after_mode_change: the privilege mode or V has changed, or was set to
 *                     what it was (CPU in the new mode); the needs are
 *                     asked for again after it
 * @code_insn: the instruction of @len bytes at @pc, @insn its encoding,
 *             is being translated for the mode the CPU is in (for
 *             consumers that asked with riscv_cf_record_code())
 * @code_end: the translation of a block is done
 * @code_map: the TLB maps the page at @va to the physical page @pa for
 *            fetches in privilege @priv (PRV_*) with V = @virt: a fill of
 *            a page that can be executed, by a fetch or by a data access
 *            (whose entry later fetches use)
 * @context_changed: satp was written (for consumers that asked with
 *                   riscv_cf_watch_context()): the instructions after
 *                   the writing one may run with another ASID; the
 *                   events up to it are drained
 * @bmap_look: branch-map mode: a block is about to start at @pc that
 *             the consumer is to look at (RISCV_CFLOW_NEED_BMAP); it
 *             takes the run before the block and re-arms.  Returns true
 *             when the block is to be the run's open one (the consumer
 *             follows it row by row).  The hook runs in a helper that
 *             does not sync the TCG globals: env->pc and the registers
 *             are not up to date.
 */
struct RISCVCFConsumerOps {
    uint32_t (*needs)(CPURISCVState *env, void *opaque);
    bool (*bmap_look)(CPURISCVState *env, void *opaque, uint64_t pc);
    void (*insn_limit)(CPURISCVState *env, void *opaque);
    void (*drain)(CPURISCVState *env, void *opaque, const RISCVCFEvent *ev,
                  unsigned n);
    void (*trap)(CPURISCVState *env, void *opaque, const RISCVCFTrap *trap);
    void (*trap_return)(CPURISCVState *env, void *opaque,
                        const RISCVCFTrapReturn *ret);
    void (*before_mode_change)(CPURISCVState *env, void *opaque);
    void (*after_mode_change)(CPURISCVState *env, void *opaque);
    void (*code_insn)(CPURISCVState *env, void *opaque, uint64_t pc,
                      uint32_t insn, unsigned len);
    void (*code_end)(CPURISCVState *env, void *opaque);
    void (*code_map)(CPURISCVState *env, void *opaque, uint64_t va,
                     uint64_t pa, target_ulong priv, bool virt);
    void (*context_changed)(CPURISCVState *env, void *opaque);
};

#ifndef CONFIG_USER_ONLY
/**
 * riscv_cf_realize: set up the pipeline of a hart being realized
 * @cpu: the hart
 *
 * Registers the event log consumer when its trace events are enabled.
 */
void riscv_cf_realize(RISCVCPU *cpu);

/**
 * riscv_cf_register: add a consumer to a hart
 * @env: CPU state
 * @ops: the consumer's hooks
 * @opaque: passed to every hook
 *
 * Call when the CPU or the consuming device is realized.
 */
void riscv_cf_register(CPURISCVState *env, const RISCVCFConsumerOps *ops,
                       void *opaque);

/**
 * riscv_cf_update_needs: a consumer's needs may have changed
 * @env: CPU state
 *
 * A consumer syncs before any change of its state that can change the
 * transfer types it needs: the events a drain hands over were all
 * appended under the needs current at the drain (CTR relies on it to
 * skip overwritten records without reading them).
 */
void riscv_cf_update_needs(CPURISCVState *env);

/**
 * riscv_cf_sync: deliver the buffered events to every consumer
 * @env: CPU state
 */
void riscv_cf_sync(CPURISCVState *env);

/* The pipeline's entry points for the trap, xRET and mode change paths. */
void riscv_cf_trap(CPURISCVState *env, const RISCVCFTrap *trap);
void riscv_cf_trap_return(CPURISCVState *env, uint64_t retpc,
                          target_ulong target_priv, bool target_virt);
/* riscv_cpu_set_mode(): the mode is about to change (env->priv is old) */
void riscv_cf_before_mode_change(CPURISCVState *env);
/* riscv_cpu_set_mode(): env->priv and env->virt_enabled are set */
void riscv_cf_after_mode_change(CPURISCVState *env);

/**
 * riscv_cf_record_code: a consumer wants the code hooks
 * @env: CPU state
 *
 * From then on, the translator calls riscv_cf_code_insn() for every
 * instruction it translates and riscv_cf_code_end() at the end of each
 * block, and the TLB fill riscv_cf_code_map(); the hart's blocks are its
 * own (RISCV_CFLOW_TB_CODE_SHIFT).  Translated code does not change.
 * Call at realize time, before the hart runs, so that every translation
 * and every TLB entry the hart uses is seen.
 */
void riscv_cf_record_code(CPURISCVState *env);

/* The translator's and the TLB fill's entry points (see above). */
void riscv_cf_code_insn(CPURISCVState *env, uint64_t pc, uint32_t insn,
                        unsigned len);
void riscv_cf_code_end(CPURISCVState *env);
void riscv_cf_code_map(CPURISCVState *env, uint64_t va, uint64_t pa,
                       target_ulong priv, bool virt);

/**
 * riscv_cf_watch_context: a consumer wants the context_changed hook
 * @env: CPU state
 *
 * From then on every write of satp drains the events and calls it.  Call
 * at realize time.
 */
void riscv_cf_watch_context(CPURISCVState *env);

/* write_satp()'s entry point, after the write. */
void riscv_cf_context_changed(CPURISCVState *env);

/* Drop buffered events and the instruction count; called on CPU reset. */
void riscv_cf_reset(CPURISCVState *env);

/*
 * riscv_cf_cycle_clock: the clock mcycle counts, and CTR's cycle counter
 * and a trace encoder's timestamps: QEMU's virtual clock under icount,
 * so that runs are exact and deterministic, the host's cycle counter
 * otherwise.
 */
uint64_t riscv_cf_cycle_clock(void);

/**
 * RISCVCFClockMap: how a drain maps the instruction count stored with an
 * event (RISCV_CFLOW_NEED_INSNS) to mcycle's clock
 *
 * From an anchor (clock @time when the count was @insns: a consumer's
 * previous drain), @rate clock ticks per instruction in 32.32 fixed
 * point, never beyond @now.  Under icount the rate is the exact
 * icount_to_ns(1); an instruction that traps after its block counted it
 * (ecall, a fault) advances the clock but does not retire, and it can
 * only be the last one before @now, so it does not move earlier events.
 * Otherwise the cycles from the anchor to @now are shared in proportion
 * to the instructions retired.  The CPU entering or leaving its
 * execution loop is a drain: idle time never falls inside one.
 */
typedef struct RISCVCFClockMap {
    uint64_t time;
    uint64_t insns;
    uint64_t rate;
    uint64_t now;
} RISCVCFClockMap;

/**
 * riscv_cf_clock_map: the map of a drain
 * @env: CPU state
 * @an_time: the clock at the anchor
 * @an_insns: the instruction count at the anchor
 * @map: output; map->now is the clock now, the consumer's next anchor
 *       (with env->cf.insns)
 */
void riscv_cf_clock_map(CPURISCVState *env, uint64_t an_time,
                        uint64_t an_insns, RISCVCFClockMap *map);

/* The clock when the instruction count was @pos. */
static inline uint64_t riscv_cf_clock_at(const RISCVCFClockMap *map,
                                         uint64_t pos)
{
    uint64_t lo, hi, t;

    mulu64(&lo, &hi, pos - map->insns, map->rate);
    t = map->time + ((hi << 32) | (lo >> 32));
    return hi >> 32 || t > map->now || t < map->time ? map->now : t;
}

/**
 * riscv_cf_unwind: a translation block stops at an instruction
 * @env: CPU state
 * @tb: the block
 * @uw2: the third insn_start word of that instruction
 *
 * Takes back the instructions of the block from that instruction on:
 * they were counted when the block started but do not retire.  env->pc
 * is the pc of that instruction.
 */
void riscv_cf_unwind(CPURISCVState *env, const TranslationBlock *tb,
                     uint64_t uw2);

/**
 * riscv_cf_vrec: a vector load or store helper made an element access:
 * 2^@log2_size bytes at @addr, @value read or written
 *
 * Recorded while the instruction's block appends data events
 * (RISCV_CFLOW_NEED_DATA, riscv_cf_vdata_begin()); the helper then takes
 * the element-by-element path, whose accesses QEMU's plugins see too.
 */
void riscv_cf_vrec_access(CPURISCVState *env, uint64_t addr, uint64_t value,
                          unsigned log2_size, bool store);

static inline bool riscv_cf_vrec_on(CPURISCVState *env)
{
#ifdef CONFIG_USER_ONLY
    return false;
#else
    return unlikely(env->cf.vinsn != 0);
#endif
}

static inline void riscv_cf_vrec(CPURISCVState *env, uint64_t addr,
                                 uint64_t value, unsigned log2_size,
                                 bool store)
{
    if (riscv_cf_vrec_on(env)) {
        riscv_cf_vrec_access(env, addr, value, log2_size, store);
    }
}

/**
 * riscv_cf_insn_trapped: a helper raises a synchronous exception without
 * unwinding the block
 * @env: CPU state
 * @ra: the helper's return address into translated code (GETPC())
 *
 * The raising instruction does not retire, nor do those after it in its
 * block: riscv_cf_unwind() for the instruction at @ra.
 */
void riscv_cf_insn_trapped(CPURISCVState *env, uintptr_t ra);

/**
 * RISCVCFBmapRun: what a hart ran in branch-map mode since the consumer
 * last looked, from its last sync point or look on
 * @open_first, @open_info, @open_count: the block that started at the
 *     last look when the consumer asked to follow it (its pc,
 *     RISCV_CFLOW_BM_INFO_* and the instructions it retired; @open_count
 *     0: there is none, or it retired nothing)
 * @skipped: blocks retired after the open one (or, without one, since
 *     the consumer last looked)
 * @last: the pc of the last instruction retired
 * @last_branch: it is a conditional branch, whose outcome is the newest
 *     in @map
 * @map, @n: the @n outcomes of conditional branches, the oldest in bit
 *     0, 1 for not taken
 * @end: the RISCVCFEvent.info of the uninferable transfer at @last, or 0
 */
typedef struct RISCVCFBmapRun {
    uint64_t open_first;
    uint64_t open_info;
    uint32_t open_count;
    bool skipped;
    uint64_t last;
    bool last_branch;
    uint64_t map;
    unsigned n;
    uint32_t end;
} RISCVCFBmapRun;

/**
 * riscv_cf_bmap_take: the run since the consumer last looked
 * @env: CPU state
 * @run: output
 *
 * Returns false when no instruction retired since then.  Call
 * riscv_cf_bmap_arm() next.
 */
static inline bool riscv_cf_bmap_take(CPURISCVState *env,
                                      RISCVCFBmapRun *run)
{
    RISCVCFState *cf = &env->cf;
    unsigned n = 63 - clz64(cf->bm_map) - cf->bm_base;

    if (cf->bm_state == RISCV_CFLOW_BM_EMPTY) {
        return false;
    }
    run->skipped = cf->bm_state == RISCV_CFLOW_BM_SKIPPED;
    run->open_first = cf->bm_open_first;
    run->open_info = cf->bm_open_info;
    run->open_count = cf->bm_open_count;
    run->last = cf->bm_last & ~1ULL;
    run->last_branch = cf->bm_last & 1;
    run->n = n;
    run->map = n ? revbit64(cf->bm_map) >> (64 - n) : 0;
    run->end = cf->bm_end;
    return true;
}

/**
 * riscv_cf_bmap_arm: start the next run
 * @env: CPU state
 * @base: how many branches the consumer holds, at most
 *        RISCV_CFLOW_BM_OUTCOMES: it looks once the run makes them that
 *        many
 * @look: look at the next block to start
 */
static inline void riscv_cf_bmap_arm(CPURISCVState *env, unsigned base,
                                     bool look)
{
    RISCVCFState *cf = &env->cf;

    cf->bm_base = MIN(base, RISCV_CFLOW_BM_OUTCOMES);
    cf->bm_map = 1ULL << cf->bm_base;
    cf->bm_state = RISCV_CFLOW_BM_EMPTY;
    cf->bm_look = look;
    cf->bm_end = 0;
    cf->bm_open_count = 0;
}

/* The pipeline's migration state, a subsection of the CPU's. */
extern const VMStateDescription vmstate_riscv_cf;
#endif

/* satp was written: tell the consumers that asked. */
static inline void riscv_cf_satp_written(CPURISCVState *env)
{
#ifndef CONFIG_USER_ONLY
    if (unlikely(env->cf.context)) {
        riscv_cf_context_changed(env);
    }
#endif
}

#endif
