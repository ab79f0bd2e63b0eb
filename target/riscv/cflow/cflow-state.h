/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V control-flow event pipeline: per-hart state.
 *
 * Kept apart from cflow.h so that cpu.h can embed it in CPURISCVState.
 */
#ifndef RISCV_CFLOW_STATE_H
#define RISCV_CFLOW_STATE_H

/*
 * Events translated code can append before the buffer must be drained
 * (RISCVCFState.buf, 128 KiB, allocated for the first consumer that needs
 * events).  A drain costs a consumer little for
 * the events it only has to skip (CTR materializes no more than sctrdepth
 * records per drain), so a buffer much longer than the deepest CTR ring
 * keeps the cost per event low.
 */
#define RISCV_CFLOW_BUF_EVENTS         4096

/**
 * RISCVCFEvent: one event appended by translated code
 * @src: transfer: source pc; block: pc of its first instruction
 * @dst: transfer: target pc; block: pc of its last retired instruction
 * @insns: RISCVCFState.insns once the event's last instruction retired
 *         (meaningful only while some consumer needs RISCV_CFLOW_NEED_INSNS)
 * @info: RISCV_CFLOW_EV_* kind, transfer type and flags (see cflow.h)
 * @count: block: the number of instructions it retired
 *
 * The layout is what the inline stores of cflow-translate.c.inc write.
 */
typedef struct RISCVCFEvent {
    uint64_t src;
    uint64_t dst;
    uint64_t insns;
    uint32_t info;
    uint32_t count;
} RISCVCFEvent;

typedef struct RISCVCFConsumerOps RISCVCFConsumerOps;

typedef struct RISCVCFConsumer {
    const RISCVCFConsumerOps *ops;
    void *opaque;
} RISCVCFConsumer;

typedef struct RISCVCFState {
    /*
     * Events not yet drained: the first @fill bytes of @buf, where
     * translated code appends (RISCV_CFLOW_BUF_EVENTS of them; NULL until
     * some consumer needs transfers or blocks).
     */
    RISCVCFEvent *buf;
    uint32_t fill;
    /* Union of the consumers' needs in the current mode (TB cs_base). */
    uint32_t tb_needs;
    /*
     * Retired instructions, counted by translated code in the modes where
     * some consumer needs RISCV_CFLOW_NEED_INSNS; exact at every stop.
     */
    uint64_t insns;
    /*
     * With RISCV_CFLOW_NEED_INSN_LIMIT: the value of insns at which some
     * consumer must act before the next instruction (UINT64_MAX: none).
     */
    uint64_t insn_limit;
    /* Approaching insn_limit: one instruction per block (NEED_STEP). */
    bool insn_step;
    /*
     * Size of the ebreak or c.ebreak raising a breakpoint exception, 0 for
     * one raised by a trigger (written by translated code only while some
     * consumer needs blocks; cleared by every trap).
     */
    uint32_t ebreak_len;
    /*
     * rd of the lui, c.lui or auipc that ended the last block, else 0
     * (written by translated code only while some consumer needs
     * RISCV_CFLOW_NEED_SIJUMP; cleared by every trap).
     */
    uint32_t const_rd;
    /*
     * Branch-map mode (RISCV_CFLOW_NEED_BMAP, see cflow.h), written by
     * translated code: the outcomes of the conditional branches since the
     * consumer last looked, 1 for not taken, the newest in bit 0, below
     * a 1 at bit bm_base when there are none; the pc of the last
     * instruction of the last block started, with bit 0 set once its
     * conditional branch ran, and the same of the block before it; the
     * RISCV_CFLOW_BM_* state of the run, and the same before the last
     * block started; nonzero when the next block to start calls the
     * consumer; the info word of the uninferable transfer that ended the
     * last block.  Translated code only stores constants into the state
     * words, so that no chain of loads and stores runs from block to
     * block.
     */
    uint64_t bm_map;
    uint64_t bm_last;
    uint64_t bm_prev;
    uint32_t bm_state;
    uint32_t bm_prev_state;
    uint32_t bm_look;
    uint32_t bm_end;
    /* Where the consumer last armed bm_map (its branches not yet sent). */
    uint32_t bm_base;
    /*
     * The block that started when the consumer last looked: its first
     * pc, its RISCV_CFLOW_BM_INFO_* facts, the instructions it retired
     * (0: none, or no block started at a look).
     */
    uint64_t bm_open_first;
    uint64_t bm_open_info;
    uint32_t bm_open_count;
    /*
     * A vector load or store in a block that appends data events: its
     * index in the block plus one while its helper runs (0: none), and
     * the element accesses it made so far (@vcount of @vbuf, which holds
     * @vcap), appended as data events once it retires
     * (riscv_cf_vdata_end()).
     */
    uint32_t vinsn;
    uint32_t vcount;
    uint32_t vcap;
    RISCVCFEvent *vbuf;
    /*
     * Some consumer records the code the hart translates and the pages
     * it maps for fetches (riscv_cf_record_code()); configuration, set
     * before the hart first runs.
     */
    bool code;
    /*
     * Some consumer follows the hart's ASID (riscv_cf_watch_context());
     * configuration, set before the hart first runs.
     */
    bool context;
    /* CTR, the counters, a trace encoder, ...: as many as register */
    unsigned nr_consumers;
    RISCVCFConsumer *consumers;
} RISCVCFState;

#endif
