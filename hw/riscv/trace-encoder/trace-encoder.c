/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V Trace Control Interface 1.0 trace encoder (component type 1)
 * producing E-Trace 2.0 branch trace of one hart.
 *
 * The encoder is a consumer of the hart's control-flow event pipeline
 * (target/riscv/cflow): while it traces, the hart appends an event for
 * every block of instructions it retires and for every branch and
 * uninferable jump, and tells it of traps and trap returns.  The
 * encoder turns them into the rows of the E-Trace algorithm
 * (etrace-enc.c), frames the packets (Encapsulation 1.0) into a buffer,
 * and hands the buffer to the funnel or sink it feeds in batches.
 *
 * Threads: the registers belong to the device and are accessed with the
 * BQL held; the encoder state belongs to the hart and is touched only in
 * the hart's thread (or while it is stopped: reset, migration).  A
 * register write that starts, stops or reconfigures tracing takes effect
 * when the hart next runs its queued work, between two translation
 * blocks: the trace starts and stops at block boundaries, and says where.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qemu/atomic.h"
#include "qapi/error.h"
#include "hw/sysbus.h"
#include "hw/registerfields.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "system/runstate.h"
#include "target/riscv/cpu.h"
#include "target/riscv/cflow/cflow.h"
#include "hw/riscv/etrace-enc.h"
#include "hw/riscv/etrace-data.h"
#include "hw/riscv/etrace-filter.h"
#include "hw/riscv/trace-component.h"
#include "hw/riscv/trace-code.h"
#include "trace.h"

OBJECT_DECLARE_SIMPLE_TYPE(RISCVTraceEncoder, RISCV_TRACE_ENCODER)

REG32(TE_CONTROL, 0x000)
    FIELD(TE_CONTROL, ACTIVE, 0, 1)
    FIELD(TE_CONTROL, ENABLE, 1, 1)
    FIELD(TE_CONTROL, INST_TRACING, 2, 1)
    FIELD(TE_CONTROL, EMPTY, 3, 1)
    FIELD(TE_CONTROL, INST_MODE, 4, 3)
    FIELD(TE_CONTROL, CONTEXT, 9, 1)
    FIELD(TE_CONTROL, INST_TRIG_ENABLE, 11, 1)
    FIELD(TE_CONTROL, INST_STALL_OR_OVERFLOW, 12, 1)
    FIELD(TE_CONTROL, INST_STALL_ENA, 13, 1)
    FIELD(TE_CONTROL, INHIBIT_SRC, 15, 1)
    FIELD(TE_CONTROL, INST_SYNC_MODE, 16, 2)
    FIELD(TE_CONTROL, INST_SYNC_MAX, 20, 4)
    FIELD(TE_CONTROL, FORMAT, 24, 3)
REG32(TE_IMPL, 0x004)
    FIELD(TE_IMPL, VER_MAJOR, 0, 4)
    FIELD(TE_IMPL, VER_MINOR, 4, 4)
    FIELD(TE_IMPL, COMP_TYPE, 8, 4)
    FIELD(TE_IMPL, PROTOCOL_MAJOR, 16, 4)
    FIELD(TE_IMPL, PROTOCOL_MINOR, 20, 4)
REG32(TE_INST_FEATURES, 0x008)
    FIELD(TE_INST_FEATURES, NO_ADDR_DIFF, 0, 1)
    FIELD(TE_INST_FEATURES, EN_SEQUENTIAL_JUMP, 2, 1)
    FIELD(TE_INST_FEATURES, EN_IMPLICIT_RETURN, 3, 1)
    FIELD(TE_INST_FEATURES, EN_BRANCH_PREDICTION, 4, 1)
    FIELD(TE_INST_FEATURES, EN_JUMP_TARGET_CACHE, 5, 1)
    FIELD(TE_INST_FEATURES, IMPLICIT_RETURN_MODE, 6, 2)
    FIELD(TE_INST_FEATURES, SRC_ID, 16, 12)
    FIELD(TE_INST_FEATURES, SRC_BITS, 28, 4)
REG32(TE_INST_FILTERS, 0x00c)
REG32(TE_DATA_CONTROL, 0x010)
    FIELD(TE_DATA_CONTROL, IMPLEMENTED, 0, 1)
    FIELD(TE_DATA_CONTROL, TRACING, 1, 1)
    FIELD(TE_DATA_CONTROL, TRIG_ENABLE, 2, 1)
    FIELD(TE_DATA_CONTROL, STALL_OR_OVERFLOW, 3, 1)
    FIELD(TE_DATA_CONTROL, STALL_ENA, 4, 1)
    FIELD(TE_DATA_CONTROL, DROP, 5, 1)
    FIELD(TE_DATA_CONTROL, DROP_ENA, 6, 1)
    FIELD(TE_DATA_CONTROL, NO_VALUE, 16, 1)
    FIELD(TE_DATA_CONTROL, NO_ADDR, 17, 1)
    FIELD(TE_DATA_CONTROL, ADDR_COMPRESS, 18, 2)
REG32(TS_CONTROL, 0x040)
    FIELD(TS_CONTROL, ACTIVE, 0, 1)
    FIELD(TS_CONTROL, COUNT, 1, 1)
    FIELD(TS_CONTROL, RESET, 2, 1)
    FIELD(TS_CONTROL, MODE, 4, 3)
    FIELD(TS_CONTROL, PRESCALE, 8, 2)
    FIELD(TS_CONTROL, ENABLE, 15, 1)
    FIELD(TS_CONTROL, WIDTH, 24, 6)
REG32(TS_COUNTER_LOW, 0x048)
REG32(TS_COUNTER_HIGH, 0x04c)

/*
 * The timestamp unit: Internal Core (trTsMode 3), counting the hart's
 * clock (mcycle's: virtual time under icount, host cycles otherwise)
 * prescaled by 4^trTsPrescale, 48 bits wide: the timestamp field of the
 * packets is 6 bytes.
 */
#define TS_MODE_INTERNAL_CORE   3
#define TS_WIDTH                (RISCV_TRACE_TIMESTAMP_BYTES * 8)

/*
 * The counter: @value when the clock read @anchor, counting from there
 * while Active and Count are set in trTsControl (@control).
 */
typedef struct TETimestamp {
    uint32_t control;
    uint64_t value;
    uint64_t anchor;
} TETimestamp;

/*
 * trTeInstMode reads 6, optimized instruction trace: E-Trace's control
 * chapter hardcodes it ("Optional and run-time configurable modes").  2.0
 * said 7, which the Trace Control Interface reserves for vendor modes;
 * 2.0.5 corrects it to 6, the value the Linux rvtrace driver writes.
 */
#define TE_INST_MODE_ETRACE     6
/*
 * trTeInstImplicitReturnMode: 3, full address comparing (a return is
 * implicit only when it goes where the stack predicts).
 */
#define TE_IMPLICIT_RETURN_FULL 3
#define TE_SRC_BITS_MAX         12
/*
 * The context field: the ASID in bits 15:0 and, with V = 1, the VMID in
 * bits 29:16, where ingressPort.adoc recommends them.
 */
#define TE_CONTEXT_BITS         30
#define TE_CONTEXT_VMID_SHIFT   16

/* Fields the guest can write, and the defaults of release from reset. */
#define TE_CONTROL_RW \
    (R_TE_CONTROL_ACTIVE_MASK | R_TE_CONTROL_ENABLE_MASK | \
     R_TE_CONTROL_INST_TRACING_MASK | R_TE_CONTROL_INST_STALL_ENA_MASK | \
     R_TE_CONTROL_INHIBIT_SRC_MASK | R_TE_CONTROL_INST_SYNC_MODE_MASK | \
     R_TE_CONTROL_INST_SYNC_MAX_MASK)
/* trTeInstFeatures: SrcBits is legalized on its own. */
#define TE_INST_FEATURES_RW \
    (R_TE_INST_FEATURES_NO_ADDR_DIFF_MASK | \
     R_TE_INST_FEATURES_EN_SEQUENTIAL_JUMP_MASK | \
     R_TE_INST_FEATURES_EN_IMPLICIT_RETURN_MASK | \
     R_TE_INST_FEATURES_EN_BRANCH_PREDICTION_MASK | \
     R_TE_INST_FEATURES_EN_JUMP_TARGET_CACHE_MASK | \
     R_TE_INST_FEATURES_SRC_ID_MASK)
#define TE_CONTROL_DEFAULT \
    (R_TE_CONTROL_ACTIVE_MASK | \
     TE_INST_MODE_ETRACE << R_TE_CONTROL_INST_MODE_SHIFT | \
     ETRACE_SYNC_MODE_PACKETS << R_TE_CONTROL_INST_SYNC_MODE_SHIFT | \
     8 << R_TE_CONTROL_INST_SYNC_MAX_SHIFT)

/*
 * trTeDataControl: the fields the guest can write (see
 * te_write_data_control()); trTeDataAddrCompress 0 (full addresses) or
 * 2 (differential, E-Trace's data address compression).
 */
#define TE_DATA_CONTROL_RW \
    (R_TE_DATA_CONTROL_TRACING_MASK | R_TE_DATA_CONTROL_STALL_ENA_MASK | \
     R_TE_DATA_CONTROL_DROP_ENA_MASK | R_TE_DATA_CONTROL_NO_VALUE_MASK | \
     R_TE_DATA_CONTROL_NO_ADDR_MASK | R_TE_DATA_CONTROL_ADDR_COMPRESS_MASK)
/* Set by the encoder, write 1 to clear */
#define TE_DATA_CONTROL_W1C \
    (R_TE_DATA_CONTROL_STALL_OR_OVERFLOW_MASK | R_TE_DATA_CONTROL_DROP_MASK)
#define TE_DATA_ADDR_FULL       0
#define TE_DATA_ADDR_DIFF       2

/* Encapsulation type field (data trace implemented): te_inst, te_data. */
#define TE_TYPE_INST            0
#define TE_TYPE_DATA            1

/* Packets are handed on when this much is buffered, or this old. */
#define TE_BUF_SIZE             8192
#define TE_FLUSH_BYTES          4096
#define TE_FLUSH_NS             (10 * SCALE_MS)

/*
 * The code side stream: a translation's instructions go out in records
 * of at most this many bytes; the mappings written last are remembered
 * in this many slots, so that a TLB refilled with the same mapping (after
 * every flush) writes nothing.
 */
#define TE_CODE_RUN             1024
#define TE_CODE_MAP_SLOTS       512

struct RISCVTraceEncoder {
    SysBusDevice parent_obj;

    MemoryRegion mmio;
    RISCVCPU *cpu;
    /* x-branch-map: follow the hart in branch-map mode when it can */
    bool branch_map;
    /* x-discard: follow the hart, but drop what it ran (benchmarks) */
    bool discard;
    Object *sink;
    uint32_t sink_input;
    uint32_t reset_srcid;
    uint8_t reset_srcbits;
    bool reset_no_addr_diff;
    bool reset_jump_cache;
    bool reset_branch_pred;
    bool reset_sijump;
    bool reset_implicit_return;
    uint8_t start_sync_mode;
    uint8_t start_sync_max;
    bool start;
    /*
     * data-trace: trTeDataImplemented; data-start: trTeDataTracing with
     * "start"; data-*: trTeDataControl at reset
     */
    bool data_trace;
    bool data_start;
    bool reset_data_no_value;
    bool reset_data_no_addr;
    bool reset_data_full_addr;
    bool reset_data_stall;
    bool reset_data_drop;
    /* data-split: split signalling (ETraceDataParams.lrid_width) */
    bool data_split;
    bool reset_stall;
    /*
     * context: nocontext_p 0, a context_width_p of TE_CONTEXT_BITS and
     * trTeContext writable
     */
    bool context;
    /* "2.0" or "2.1", and the parameters that follow from it */
    char *protocol;
    ETraceParams params;
    /* te_data parameters of the hart (its XLEN, atomics, Zcmp and V) */
    ETraceDataParams dparams;

    /* Registers, with the BQL held. */
    uint32_t control;
    uint32_t inst_features;
    uint32_t data_control;
    ETraceFilterRegs filter_regs;
    /* Enable went to 0: not empty until the hart has flushed. */
    bool flush_pending;
    TETimestamp ts;
    bool reset_timestamps;

    /*
     * The hart's side.  @tracing is also read by register writes, from
     * other threads: every access to it is atomic.
     */
    bool tracing;
    bool lost;
    /* trTeContext as of the last te_apply() */
    bool ctx_on;
    ETraceEncap encap;
    ETraceEnc enc;
    ETraceFilter filter;
    /*
     * Data trace as the hart applied it: on, packets without address or
     * value, every address in full; the compression history.
     */
    bool data_on;
    bool data_noaddr;
    bool data_nodata;
    bool data_full_addr;
    ETraceDataHistory dhist;
    /*
     * Data packets were dropped (trTeDataDropEna): none is made until
     * the encoder has said so, before the next block or trap.
     */
    bool data_dropped;
    /*
     * The timestamp unit as the hart last applied it, and the clock map's
     * anchor: the clock when the hart's instruction count was an_insns.
     */
    TETimestamp ts_hart;
    uint64_t an_time;
    uint64_t an_insns;
    /* With timestamps: the instruction count at the last block's start */
    uint64_t block_first_insn;
    /*
     * The address of the last block (one instruction when its address
     * qualifies data accesses) and the mode it ran in, for data filters.
     */
    uint64_t block_addr;
    uint8_t block_priv;
    /*
     * In te_drain(): the data events of the block being given to the
     * encoder not yet sent (@dq up to @dq_end); the clock map, the
     * address mask.
     */
    const RISCVCFEvent *dq;
    const RISCVCFEvent *dq_end;
    const RISCVCFClockMap *dmap;
    uint64_t dmask;
    uint32_t buf_len;
    uint8_t buf[TE_BUF_SIZE];
    /* buf_len != 0, for register reads from other threads */
    bool buffered;
    int64_t flushed_ns;
    /*
     * While tracing: every TE_FLUSH_NS, packets still buffered are handed
     * on by the hart (a hart in branch-map mode may run long without any
     * sync point, in a loop of inferable jumps); the work is queued.
     */
    QEMUTimer *flush_timer;
    bool flush_queued;
    /*
     * Branch-map mode: the block the encoder follows (the run's open one)
     * can be skipped after its first row: the encoder was in a state
     * where rows can be skipped when it asked to follow it.
     */
    bool bm_open_skips;
    /* Stalled: registered with the sink, which kicks the hart. */
    Notifier room;
    bool room_waiting;

    /*
     * The code side stream (property "code", hw/riscv/trace-code.h):
     * te_inst packets made so far, a record's position; the translation
     * in progress, @code_len bytes at @code_va in privilege @code_priv,
     * from position @code_pos and @code_branches branches; per slot, the
     * mapping last written, its page and privilege in @code_map_key (bit
     * 3 set), and the page it maps to.  Only the hart's thread touches
     * them.
     */
    RISCVTraceCode *code;
    uint64_t code_packets;
    uint64_t code_va;
    uint64_t code_pos;
    uint32_t code_branches;
    uint32_t code_len;
    uint8_t code_priv;
    uint8_t code_buf[TE_CODE_RUN];
    uint64_t code_map_key[TE_CODE_MAP_SLOTS];
    uint64_t code_map_pa[TE_CODE_MAP_SLOTS];
};

/* The counter when the clock reads @clock (not before the anchor). */
static uint64_t ts_at(const TETimestamp *ts, uint64_t clock)
{
    unsigned shift = 2 * FIELD_EX32(ts->control, TS_CONTROL, PRESCALE);

    if (!FIELD_EX32(ts->control, TS_CONTROL, ACTIVE) ||
        !FIELD_EX32(ts->control, TS_CONTROL, COUNT) || clock <= ts->anchor) {
        return ts->value;
    }
    return (ts->value + ((clock - ts->anchor) >> shift)) &
           MAKE_64BIT_MASK(0, TS_WIDTH);
}

/* Packets carry a timestamp field. */
static bool ts_in_packets(const TETimestamp *ts)
{
    return FIELD_EX32(ts->control, TS_CONTROL, ACTIVE) &&
           FIELD_EX32(ts->control, TS_CONTROL, ENABLE);
}

static bool te_should_trace(RISCVTraceEncoder *s)
{
    uint32_t mask = R_TE_CONTROL_ACTIVE_MASK | R_TE_CONTROL_ENABLE_MASK |
                    R_TE_CONTROL_INST_TRACING_MASK;

    return (s->control & mask) == mask;
}

/* The hart's copy of the settings, taken with the BQL held. */
static void te_config(RISCVTraceEncoder *s, ETraceEncConfig *cfg)
{
    bool full_addr = FIELD_EX32(s->data_control, TE_DATA_CONTROL,
                                ADDR_COMPRESS) == TE_DATA_ADDR_FULL;

    s->encap = (ETraceEncap) {
        .flow = 0,
        .type_bits = s->data_trace ? 1 : 0,
        .srcid_bits = FIELD_EX32(s->control, TE_CONTROL, INHIBIT_SRC) ? 0 :
                      FIELD_EX32(s->inst_features, TE_INST_FEATURES, SRC_BITS),
        .srcid = FIELD_EX32(s->inst_features, TE_INST_FEATURES, SRC_ID),
        .timestamp_bytes = ts_in_packets(&s->ts) ?
                           RISCV_TRACE_TIMESTAMP_BYTES : 0,
    };
    s->ts_hart = s->ts;
    *cfg = (ETraceEncConfig) {
        .params = s->params,
        .full_address = FIELD_EX32(s->inst_features, TE_INST_FEATURES,
                                   NO_ADDR_DIFF),
        .jump_cache = FIELD_EX32(s->inst_features, TE_INST_FEATURES,
                                 EN_JUMP_TARGET_CACHE),
        .branch_pred = FIELD_EX32(s->inst_features, TE_INST_FEATURES,
                                  EN_BRANCH_PREDICTION),
        .sijump = FIELD_EX32(s->inst_features, TE_INST_FEATURES,
                             EN_SEQUENTIAL_JUMP),
        .implicit_return = FIELD_EX32(s->inst_features, TE_INST_FEATURES,
                                      EN_IMPLICIT_RETURN),
        .sync_mode = FIELD_EX32(s->control, TE_CONTROL, INST_SYNC_MODE),
        .sync_max = FIELD_EX32(s->control, TE_CONTROL, INST_SYNC_MAX),
    };
    etrace_filter_configure(&s->filter, &s->filter_regs);
    s->ctx_on = FIELD_EX32(s->control, TE_CONTROL, CONTEXT);

    s->data_on = FIELD_EX32(s->data_control, TE_DATA_CONTROL, TRACING);
    s->data_noaddr = FIELD_EX32(s->data_control, TE_DATA_CONTROL, NO_ADDR);
    s->data_nodata = FIELD_EX32(s->data_control, TE_DATA_CONTROL, NO_VALUE);
    s->data_full_addr = full_addr;
    /* Full addresses send values in full (etrace_data_encode()). */
    cfg->denable = s->data_on;
    cfg->doptions = s->data_trace ?
        (s->dparams.mmacas ? ETRACE_DOPT_MMACAS : 0) |
        (s->data_noaddr ? ETRACE_DOPT_NOADDR : 0) |
        (s->data_nodata ? ETRACE_DOPT_NODATA : 0) |
        (full_addr ? ETRACE_DOPT_FULL_DADDRESS | ETRACE_DOPT_FULL_DATA : 0) :
        0;
}

/* E-Trace privilege code of privilege @priv (PRV_*) with V = @virt. */
static uint8_t te_priv_of(target_ulong priv, bool virt)
{
    if (virt) {
        return priv == PRV_U ? ETRACE_PRIV_VU : ETRACE_PRIV_VS;
    }
    return priv == PRV_U ? ETRACE_PRIV_U :
           priv == PRV_S ? ETRACE_PRIV_S : ETRACE_PRIV_M;
}

/* E-Trace privilege code of the hart's current mode. */
static uint8_t te_priv(CPURISCVState *env)
{
    return te_priv_of(env->priv, env->virt_enabled);
}

/*
 * The hart's context: the ASID of satp and, with V = 1, the VMID of
 * hgatp (whose VMID field is where satp's ASID is, narrower).  With V = 1
 * env->satp holds vsatp.  0 while trTeContext is 0.
 */
static uint32_t te_context(RISCVTraceEncoder *s, CPURISCVState *env)
{
    bool rv32 = riscv_cpu_mxl(env) == MXL_RV32;
    target_ulong asid_mask = rv32 ? SATP32_ASID : SATP64_ASID;
    uint32_t ctx;

    if (!s->ctx_on) {
        return 0;
    }
    ctx = get_field(env->satp, asid_mask);
    if (env->virt_enabled) {
        ctx |= get_field(env->hgatp, asid_mask) << TE_CONTEXT_VMID_SHIFT;
    }
    return ctx;
}

/* Addresses of a mode whose XLEN is 32 are reported zero-extended. */
static uint64_t te_addr_mask(CPURISCVState *env)
{
    return env->xl == MXL_RV32 ? UINT32_MAX : UINT64_MAX;
}

/* Length of the framed packet at @at in the buffer. */
static uint32_t te_packet_len(RISCVTraceEncoder *s, uint32_t at)
{
    return 1 + s->encap.srcid_bits / 8 + (s->buf[at] & 0x1f) +
           (s->buf[at] & 0x80 ? s->encap.timestamp_bytes : 0);
}

/* The sink may have room: wake the hart if it is stalled. */
static void te_room(Notifier *n, void *data)
{
    RISCVTraceEncoder *s = container_of(n, RISCVTraceEncoder, room);

    s->room_waiting = false;
    qemu_cpu_kick(CPU(s->cpu));
}

/*
 * With trTeInstStallEna, the hart waits for room for a packet, as a
 * halted hart waits for an interrupt: on its halt condition, without the
 * BQL, until the sink says it may take packets again (te_room) or
 * anything else kicks the hart.  Only in its own thread and while the
 * hart is not being stopped (then, and from other threads, the packet is
 * lost) nor given work (a register write that ends the stall).
 */
static bool te_stall(RISCVTraceEncoder *s)
{
    CPUState *cs = CPU(s->cpu);
    bool data = s->data_on &&
                FIELD_EX32(s->data_control, TE_DATA_CONTROL, STALL_ENA);

    if ((!FIELD_EX32(s->control, TE_CONTROL, INST_STALL_ENA) && !data) ||
        !qemu_cpu_is_self(cs) || qatomic_read(&cs->stop)) {
        return false;
    }
    if (!s->room_waiting) {
        s->room_waiting = true;
        riscv_trace_sink_wait_room(s->sink, &s->room);
    }
    /* Software sees the stall while it lasts. */
    if (data) {
        s->data_control = FIELD_DP32(s->data_control, TE_DATA_CONTROL,
                                     STALL_OR_OVERFLOW, 1);
    }
    s->control = FIELD_DP32(s->control, TE_CONTROL, INST_STALL_OR_OVERFLOW, 1);
    qemu_cond_wait_bql(cs->halt_cond);
    return true;
}

static void te_stall_end(RISCVTraceEncoder *s)
{
    if (s->room_waiting) {
        notifier_remove(&s->room);
        s->room_waiting = false;
    }
}

/* The packet at @at in the buffer is a te_data packet. */
static bool te_packet_is_data(RISCVTraceEncoder *s, uint32_t at)
{
    uint32_t payload = at + 1 + s->encap.srcid_bits / 8 +
                       (s->buf[at] & 0x80 ? s->encap.timestamp_bytes : 0);

    return s->encap.type_bits &&
           (s->buf[payload] >> (s->encap.srcid_bits % 8) & 1) == TE_TYPE_DATA;
}

/*
 * trTeDataDropEna: the sink refused the packet at @from; leave the
 * te_data packets from there on out (the instruction trace goes first).
 * Returns whether there were any.  Until the encoder says so in the
 * stream (te_data_resume()) it makes no te_data packet: the compression
 * history of those left out is the decoder's no longer.
 */
static bool te_drop_data(RISCVTraceEncoder *s, uint32_t from)
{
    uint32_t at = from, kept = from;

    while (at < s->buf_len) {
        uint32_t len = te_packet_len(s, at);

        if (!te_packet_is_data(s, at)) {
            memmove(s->buf + kept, s->buf + at, len);
            kept += len;
        }
        at += len;
    }
    if (kept == s->buf_len) {
        return false;
    }
    s->buf_len = kept;
    s->data_dropped = true;
    s->data_control |= R_TE_DATA_CONTROL_DROP_MASK;
    trace_riscv_trace_encoder_data_dropped(s->cpu->env.mhartid);
    return true;
}

/*
 * Hand the buffered packets on; called in the hart's thread.  When the
 * sink cannot take them all, it gets them one by one while it has room;
 * when it has none, the te_data packets left are left out
 * (trTeDataDropEna), then the hart waits (trTeInstStallEna, or
 * trTeDataStallEna while data is traced) or the rest is lost.  Either
 * sets InstStallOrOverflow (and DataStallOrOverflow with data trace).
 */
/* A record of this hart's in the code side stream (hw/riscv/trace-code.h). */
static void te_code_write(RISCVTraceEncoder *s, unsigned kind, unsigned priv,
                          uint64_t pos, uint32_t branches, const void *data,
                          uint32_t len)
{
    riscv_trace_code_write(s->code, kind, priv, s->encap.srcid,
                           CPU(s->cpu)->cpu_index, pos, branches, data, len);
}

static void te_flush(RISCVTraceEncoder *s)
{
    BQL_LOCK_GUARD();
    bool stalled = false;
    uint32_t done = 0;

    s->flushed_ns = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    if (s->lost) {
        /* What was made while packets were refused is lost too. */
        if (s->code) {
            te_code_write(s, RISCV_TRACE_CODE_LOST, 0, s->code_packets, 0,
                          NULL, 0);
        }
        s->buf_len = 0;
        s->lost = false;
        s->data_dropped = false;
        etrace_enc_set_now(&s->enc, riscv_cf_cycle_clock());
        if (s->data_on) {
            etrace_enc_data_lost(&s->enc, true);
        }
        etrace_enc_lost(&s->enc);
    }
    if (!s->buf_len) {
        return;
    }
    if (riscv_trace_sink_push(s->sink, s->sink_input, s->buf, s->buf_len,
                              false)) {
        s->lost = false;
    } else {
        while (done < s->buf_len) {
            uint32_t len = te_packet_len(s, done);

            if (riscv_trace_sink_push(s->sink, s->sink_input, s->buf + done,
                                      len, true)) {
                done += len;
            } else if (s->data_on &&
                       FIELD_EX32(s->data_control, TE_DATA_CONTROL,
                                  DROP_ENA) &&
                       te_drop_data(s, done)) {
                continue;
            } else if (te_stall(s)) {
                stalled = true;
            } else {
                break;
            }
        }
        te_stall_end(s);
        s->lost = done < s->buf_len;
        if (s->lost) {
            trace_riscv_trace_encoder_lost(s->cpu->env.mhartid,
                                           s->buf_len - done);
        }
    }
    if (s->lost || stalled) {
        s->control = FIELD_DP32(s->control, TE_CONTROL,
                                INST_STALL_OR_OVERFLOW, 1);
    }
    if (s->lost && s->data_on) {
        s->data_control = FIELD_DP32(s->data_control, TE_DATA_CONTROL,
                                     STALL_OR_OVERFLOW, 1);
    }
    s->buf_len = 0;
    qatomic_set(&s->buffered, false);
}

/* Frame a packet of @type into the buffer. */
static void te_frame(RISCVTraceEncoder *s, ETraceBits *b, unsigned type,
                     uint64_t time)
{
    /*
     * With data trace, what is made while packets are refused is lost
     * at once: the encoder starts again (te_flush()) between two batches
     * of events, never in the middle of a block, whose accesses would
     * follow the support packet that says trace_lost.
     */
    if (s->lost && s->data_trace) {
        return;
    }
    if (s->buf_len + ETRACE_ENCAP_MAX_BYTES > TE_BUF_SIZE) {
        te_flush(s);
    }
    /*
     * Data packets were dropped (trTeDataDropEna) by that flush, or by
     * the one before this access's request: this one goes too, as it
     * may compress against them.
     */
    if (type == TE_TYPE_DATA && s->data_dropped) {
        return;
    }
    if (s->encap.type_bits) {
        etrace_bits_prefix(b, type, s->encap.type_bits);
    }
    s->buf_len += etrace_encap(s->buf + s->buf_len, &s->encap, b,
                               ts_at(&s->ts_hart, time));
    qatomic_set(&s->buffered, true);
}

static void te_emit(void *opaque, const ETraceTeInst *t)
{
    RISCVTraceEncoder *s = opaque;
    ETraceBits b;

    /*
     * The te_data packets after a format 3 packet send the first address
     * and value of each size in full (dataTracePayload.adoc, "diff
     * field"): the stream order tells a decoder which come after it.
     */
    if (t->format == ETRACE_FMT_SYNC) {
        etrace_data_history_reset(&s->dhist);
    }
    etrace_te_inst_pack(&b, &s->params, t);
    te_frame(s, &b, TE_TYPE_INST, t->time);
    /* The code side stream counts the packets that follow the program. */
    if (t->format != ETRACE_FMT_SYNC || t->subformat != ETRACE_SYNC_CONTEXT) {
        s->code_packets++;
    }
}

/*
 * The te_data packets of a data event.  The 2.0 layouts have no code for
 * a failed compare-and-swap, which is then the load it is, nor for the
 * accesses of a multi-memory access instruction, which are then the
 * loads and stores they are.  A 16-byte access (amocas.q) is two events,
 * the second with the high halves; wider than data_width_p (unified
 * signalling, whose packets cannot hold it), it is lost and said so.
 */
static void te_data(RISCVTraceEncoder *s, const RISCVCFEvent *ev)
{
    ETraceDataParams p = s->dparams;
    ETraceDataAccess a = {
        .dtype = riscv_cf_event_data_type(ev),
        .mma = p.mmacas && (ev->info & RISCV_CFLOW_EV_DATA_MMA),
        .size = (ev->info & RISCV_CFLOW_EV_DATA_SIZE) >>
                RISCV_CFLOW_EV_DATA_SIZE_SHIFT,
        .addr = ev->src & s->dmask,
        .data = ev->dst,
        .operand = ev->insns,
    };
    uint64_t time;
    ETraceTeData t[2];
    ETraceBits b;
    unsigned i, n;

    if (s->data_dropped || (ev->info & RISCV_CFLOW_EV_DATA_HIGH)) {
        return;
    }
    if (unlikely(etrace_filter_data_on(&s->filter)) &&
        !etrace_filter_data(&s->filter, s->block_addr, s->block_priv,
                            a.dtype, a.size, a.addr)) {
        return;
    }
    if (unlikely(a.size > 3)) {
        /* the high halves follow in the same batch of events */
        if (!(ev[1].info & RISCV_CFLOW_EV_DATA_HIGH) ||
            (8u << a.size) > p.data_width) {
            s->data_dropped = true;
            trace_riscv_trace_encoder_data_too_wide(s->cpu->env.mhartid,
                                                    8u << a.size);
            return;
        }
        a.data_hi = ev[1].dst;
        a.operand_hi = ev[1].insns;
    }
    /* The data event's count is its instruction's index in the block. */
    time = s->encap.timestamp_bytes ?
           riscv_cf_clock_at(s->dmap, s->block_first_insn + ev->count) : 0;
    if (!p.mmacas && a.dtype == ETRACE_DTYPE_CAS_FAIL) {
        a.dtype = ETRACE_DTYPE_LOAD;
    }
    p.noaddr = s->data_noaddr;
    p.nodata = s->data_nodata;
    /* One load at a time: request ID 0 (ETraceDataParams.lrid_width) */
    n = etrace_data_encode(t, &p, &s->dhist, &a, s->data_full_addr, 0);
    for (i = 0; i < n; i++) {
        etrace_te_data_pack(&b, &p, &t[i]);
        te_frame(s, &b, TE_TYPE_DATA, time);
    }
}

/*
 * The encoder holds a block's first row: its instruction's accesses go
 * now, before any packet reports it (the packet that reports the target
 * of an uninferable jump, or a synchronisation, comes after them).
 */
static void te_first_held(void *opaque)
{
    RISCVTraceEncoder *s = opaque;

    while (s->dq < s->dq_end && s->dq->count == 0) {
        te_data(s, s->dq++);
    }
}

/*
 * Data packets were dropped: every instruction so far is reported, then
 * dloss; data is traced again from here.  Where the held row's type is
 * final: before a block or a trap.
 */
static void te_data_resume(RISCVTraceEncoder *s, uint64_t time)
{
    s->data_dropped = false;
    etrace_enc_set_now(&s->enc, time);
    etrace_enc_data_lost(&s->enc, false);
}

/* The accesses of the rest of the block, once it was given. */
static void te_data_rest(RISCVTraceEncoder *s)
{
    while (s->dq < s->dq_end) {
        te_data(s, s->dq++);
    }
}

/* After a batch of events: hand packets on when enough are waiting. */
static void te_maybe_flush(RISCVTraceEncoder *s)
{
    if (s->lost) {
        s->buf_len = 0;
    } else if (s->buf_len >= TE_FLUSH_BYTES) {
        te_flush(s);
        return;
    } else if (!s->buf_len) {
        return;
    }
    if (qemu_clock_get_ns(QEMU_CLOCK_REALTIME) - s->flushed_ns >=
        TE_FLUSH_NS) {
        te_flush(s);
    }
}

static uint32_t te_needs(CPURISCVState *env, void *opaque)
{
    RISCVTraceEncoder *s = opaque;
    uint32_t bmap = 0;

    if (!qatomic_read(&s->tracing)) {
        return 0;
    }
    /*
     * Branch-map mode when every row the options make the encoder look at
     * is an uninferable transfer, a trap, a full branch map or a resync
     * (no filter, timestamp, predictor or return stack): the needs below
     * apply when the pipeline does not grant it.
     */
    if (s->branch_map && !etrace_filter_any(&s->filter) &&
        !s->encap.timestamp_bytes && !s->enc.cfg.implicit_return &&
        !s->enc.ir_on && !s->enc.cfg.branch_pred && !s->enc.bp_on &&
        s->enc.cfg.sync_mode != ETRACE_SYNC_MODE_HALFWORDS) {
        bmap = RISCV_CFLOW_NEED_BMAP;
    }
    return bmap |
           (etrace_filter_per_insn(&s->filter) ? RISCV_CFLOW_NEED_STEP : 0) |
           (s->enc.cfg.sijump ? RISCV_CFLOW_NEED_SIJUMP : 0) |
           (s->enc.cfg.implicit_return || s->enc.ir_on ?
            BIT(CTRDATA_TYPE_DIRECT_CALL) : 0) |
           (s->encap.timestamp_bytes ? RISCV_CFLOW_NEED_INSNS : 0) |
           (s->data_on ? RISCV_CFLOW_NEED_DATA : 0) |
           RISCV_CFLOW_NEED_BLOCKS |
           BIT(CTRDATA_TYPE_NONTAKEN_BRANCH) |
           BIT(CTRDATA_TYPE_TAKEN_BRANCH) |
           BIT(CTRDATA_TYPE_INDIRECT_CALL) |
           BIT(CTRDATA_TYPE_INDIRECT_JUMP) |
           BIT(CTRDATA_TYPE_CO_ROUTINE_SWAP) |
           BIT(CTRDATA_TYPE_RETURN) |
           BIT(CTRDATA_TYPE_OTHER_INDIRECT_JUMP);
}

/*
 * A transfer as a call or a return to the encoder's return stack
 * (ETRACE_ROW_*).  Protocol 2.0: as the ratified decoder.adoc's is_call()
 * and is_implicit_return() see them, x1 links only.  Protocol 2.1: the
 * jump classes of ingressPort.adoc, which decoder.adoc 2.0.5 uses, the
 * types CTR records (x1 and x5 links, cm.jalt a 2-byte call, cm.popret a
 * return).
 */
static uint8_t te_ir_flags(const RISCVTraceEncoder *s,
                           const RISCVCFEvent *ev)
{
    if (s->params.protocol >= ETRACE_PROTOCOL_2_1) {
        switch (riscv_cf_event_type(ev)) {
        case CTRDATA_TYPE_DIRECT_CALL:
        case CTRDATA_TYPE_INDIRECT_CALL:
            return ETRACE_ROW_CALL |
                   (ev->info & (RISCV_CFLOW_EV_LINK_RVC |
                                RISCV_CFLOW_EV_TABLE_JUMP) ?
                    ETRACE_ROW_RVC : 0);
        case CTRDATA_TYPE_RETURN:
            return ETRACE_ROW_RET;
        default:
            return 0;
        }
    }
    if (ev->info & RISCV_CFLOW_EV_LINK_X1) {
        return ev->info & RISCV_CFLOW_EV_LINK_RVC ?
               ETRACE_ROW_CALL | ETRACE_ROW_RVC : ETRACE_ROW_CALL;
    }
    return ev->info & RISCV_CFLOW_EV_RETURN_X1 ? ETRACE_ROW_RET : 0;
}

/* A transfer event (the info word @info at @src) for the held row. */
static void te_transfer(RISCVTraceEncoder *s, uint64_t src, uint32_t info)
{
    RISCVCFEvent ev = { .src = src, .info = info };
    uint8_t itype = riscv_cf_event_type(&ev);
    uint8_t ir = te_ir_flags(s, &ev);

    /* cm.jt and cm.jalt take their target from memory. */
    if (info & RISCV_CFLOW_EV_TABLE_JUMP) {
        itype = itype == CTRDATA_TYPE_DIRECT_CALL ?
                ETRACE_ITYPE_UNINF_CALL : ETRACE_ITYPE_UNINF_JUMP;
    }
    /*
     * jalr rd, imm(x0) has its target in its encoding: the inferable
     * itype next to CTR's indirect one (8 -> 9, 10 -> 11, 14 -> 15).
     */
    if (info & RISCV_CFLOW_EV_DIRECT_TARGET) {
        itype |= 1;
    }
    etrace_enc_set_itype(&s->enc, src, itype);
    if (info & RISCV_CFLOW_EV_SEQ_INFERABLE) {
        etrace_enc_set_sijump(&s->enc, src);
    }
    if (ir) {
        etrace_enc_set_ir(&s->enc, src, ir);
    }
}

/* The outcome of the held row, a conditional branch. */
static void te_branch(RISCVTraceEncoder *s, uint64_t src, bool not_taken)
{
    etrace_enc_set_itype(&s->enc, src, not_taken ? ETRACE_ITYPE_NT_BRANCH :
                                                   ETRACE_ITYPE_T_BRANCH);
}

/*
 * Branch-map mode: give the encoder what the hart ran since it last
 * looked.  The first row of the block that started at the last look, when
 * the encoder asked to follow it (the target of an uninferable transfer,
 * the first instruction after a trap), goes as a row of its own; the rows
 * after it are skipped, but for the last.
 */
static void te_bm_take(RISCVTraceEncoder *s, CPURISCVState *env)
{
    uint64_t mask = te_addr_mask(env);
    RISCVCFBmapRun r;
    unsigned mid;

    if (!riscv_cf_bmap_take(env, &r)) {
        return;
    }
    if (r.open_count && !s->bm_open_skips) {
        /* Row by row (the rows after the first may cause packets). */
        uint64_t first = r.open_first & mask;
        uint64_t info = r.open_info;
        uint64_t last = !r.skipped ? r.last & mask :
                        first + ((info & RISCV_CFLOW_BM_INFO_OFS) >>
                                 RISCV_CFLOW_BM_INFO_OFS_SHIFT);

        etrace_enc_block(&s->enc, first,
                         info & RISCV_CFLOW_BM_INFO_FIRST_RVC ? 2 : 4, last,
                         info & RISCV_CFLOW_BM_INFO_LAST_RVC ? 2 : 4,
                         r.open_count, te_priv(env), 0, 0);
        if (!r.skipped) {
            goto last;
        }
        if (info & RISCV_CFLOW_BM_INFO_BRANCH) {
            te_branch(s, last, r.map & 1);
            r.map >>= 1;
            r.n--;
        }
    } else if (r.open_count) {
        etrace_enc_retired(&s->enc, r.open_first & mask, te_priv(env));
        /* A block of one branch: its outcome before it is decided. */
        if (r.skipped && r.open_count == 1 &&
            (r.open_info & RISCV_CFLOW_BM_INFO_BRANCH)) {
            te_branch(s, r.open_first & mask, r.map & 1);
            r.map >>= 1;
            r.n--;
        }
    }
    if (!r.open_count || r.open_count > 1 || r.skipped) {
        mid = r.n - r.last_branch;
        etrace_enc_skip(&s->enc, mid ? r.map & MAKE_64BIT_MASK(0, mid) : 0,
                        mid, r.last & mask);
        r.map >>= mid;
    }
last:
    if (r.last_branch) {
        te_branch(s, r.last & mask, r.map & 1);
    }
    if (r.end) {
        te_transfer(s, r.last & mask, r.end);
    }
}

/*
 * Branch-map mode: start the next run.  The blocks of the run are skipped
 * when the encoder can; else, when @can_open (a block is about to start),
 * that block is followed row by row and the blocks after it skipped when
 * they can be; else the encoder looks at the next block to start.
 * Returns whether the block about to start is to be followed.
 */
static bool te_bm_arm(RISCVTraceEncoder *s, CPURISCVState *env,
                      bool can_open)
{
    bool open = can_open;
    unsigned base = etrace_enc_skip_base(&s->enc, te_priv(env), &open);
    bool skips = base < ETRACE_MAX_BRANCHES;

    if (!skips) {
        /* Row by row from the next block, which is followed if it can. */
        open = can_open;
    }
    if (open) {
        s->bm_open_skips = skips;
    }
    riscv_cf_bmap_arm(env, base, !skips);
    return open;
}

static bool te_bmap_look(CPURISCVState *env, void *opaque, uint64_t pc)
{
    RISCVTraceEncoder *s = opaque;

    /*
     * Packets go on when the buffer is full (te_emit()) and, while the
     * hart runs, by the flush timer: a batch per look would put more of
     * the PIB sink's synchronisation sequences into the stream.
     */
    if (unlikely(s->discard)) {
        RISCVCFBmapRun r;

        riscv_cf_bmap_take(env, &r);
        riscv_cf_bmap_arm(env, 0, false);
        return true;
    }
    if (qatomic_read(&s->tracing)) {
        te_bm_take(s, env);
    }
    return te_bm_arm(s, env, true);
}

static void te_drain(CPURISCVState *env, void *opaque,
                     const RISCVCFEvent *ev, unsigned n)
{
    RISCVTraceEncoder *s = opaque;
    uint64_t mask = te_addr_mask(env);
    uint8_t priv = te_priv(env);
    bool filtered = etrace_filter_on(&s->filter) ||
                    etrace_filter_per_insn(&s->filter);
    bool timed = s->encap.timestamp_bytes;
    uint64_t first_time = 0, last_time = 0;
    RISCVCFClockMap map;
    unsigned i, data_end = 0;

    if (!qatomic_read(&s->tracing)) {
        return;
    }
    if (unlikely(s->discard)) {
        riscv_cf_bmap_arm(env, 0, false);
        return;
    }
    te_bm_take(s, env);
    if (timed) {
        riscv_cf_clock_map(env, s->an_time, s->an_insns, &map);
    }
    s->dmap = &map;
    s->dmask = mask;
    for (i = 0; i < n; i++) {
        if (riscv_cf_event_kind(&ev[i]) == RISCV_CFLOW_EV_BLOCK) {
            /* The event's count is at the end of its block. */
            if (unlikely(timed)) {
                s->block_first_insn = ev[i].insns + 1 - ev[i].count;
                first_time = riscv_cf_clock_at(&map, s->block_first_insn);
                last_time = riscv_cf_clock_at(&map, ev[i].insns);
            }
            /*
             * The block's data accesses (the data events after it): each
             * goes after the row of its instruction is given to the
             * encoder and before any packet reports it, as when a hart
             * retires an access with its instruction and the encoder
             * reports the instruction later: the first instruction's when
             * the encoder holds it (te_first_held()), the others' after
             * the block (in the middle of a block no packet is made).
             * (An access a block makes after the hart drained its events
             * mid-block, for a CSR access, goes when it is met.)
             */
            if (unlikely(s->data_dropped)) {
                te_data_resume(s, first_time);
            }
            s->dq = s->dq_end = &ev[i + 1];
            while (s->data_on && s->dq_end < ev + n &&
                   riscv_cf_event_kind(s->dq_end) == RISCV_CFLOW_EV_DATA) {
                s->dq_end++;
            }
            data_end = s->dq_end - ev;
            /*
             * Filtered: a block is traced or not as a whole; it holds
             * one instruction when its address matters.  The transfer
             * that may end a block not traced finds no row of its own
             * to mark (the encoder holds none since the last traced).
             * Its accesses are traced as trTeDataFilters says.
             */
            s->block_addr = ev[i].src & mask;
            s->block_priv = priv;
            if (unlikely(filtered) &&
                !etrace_filter_insn(&s->filter, ev[i].src & mask, priv)) {
                etrace_enc_set_now(&s->enc, first_time);
                etrace_enc_unqualified(&s->enc);
                te_data_rest(s);
                continue;
            }
            etrace_enc_block(&s->enc, ev[i].src & mask,
                             ev[i].info & RISCV_CFLOW_EV_FIRST_RVC ? 2 : 4,
                             ev[i].dst & mask,
                             ev[i].info & RISCV_CFLOW_EV_LAST_RVC ? 2 : 4,
                             ev[i].count, priv, first_time, last_time);
            te_data_rest(s);
        } else if (riscv_cf_event_kind(&ev[i]) == RISCV_CFLOW_EV_TRANSFER) {
            te_transfer(s, ev[i].src & mask, ev[i].info);
        } else if (s->data_on && i >= data_end &&
                   riscv_cf_event_kind(&ev[i]) == RISCV_CFLOW_EV_DATA) {
            /*
             * A data access of instruction ev[i].count of the block that
             * started before this batch.
             */
            te_data(s, &ev[i]);
        }
    }
    s->dq = s->dq_end = NULL;
    s->dmap = NULL;
    if (timed) {
        s->an_time = map.now;
        s->an_insns = env->cf.insns;
    }
    te_maybe_flush(s);
    te_bm_arm(s, env, false);
}

static void te_trap(CPURISCVState *env, void *opaque,
                    const RISCVCFTrap *trap)
{
    RISCVTraceEncoder *s = opaque;

    /* xtval as the hart holds it: 32 bits wide on an RV32 hart */
    uint64_t tval_mask = env->misa_mxl == MXL_RV32 ? UINT32_MAX : UINT64_MAX;

    uint64_t epc = trap->epc & te_addr_mask(env);
    /* Drained just now: the anchor is the clock at the trap. */
    uint64_t time = s->encap.timestamp_bytes ? s->an_time : 0;

    if (!qatomic_read(&s->tracing)) {
        return;
    }
    if (unlikely(s->data_dropped)) {
        te_data_resume(s, time);
    }
    etrace_enc_set_now(&s->enc, time);
    if (etrace_filter_any(&s->filter) &&
        !etrace_filter_trap(&s->filter, trap->async, trap->cause, epc,
                            te_priv(env))) {
        etrace_enc_unqualified(&s->enc);
        return;
    }
    etrace_enc_trap(&s->enc, trap->async, trap->cause,
                    trap->tval & tval_mask, epc, trap->insn_len,
                    te_priv(env), time);
    te_bm_arm(s, env, false);
}

static void te_trap_return(CPURISCVState *env, void *opaque,
                           const RISCVCFTrapReturn *ret)
{
    RISCVTraceEncoder *s = opaque;

    if (qatomic_read(&s->tracing)) {
        /* Not traced: the encoder holds no row since the last traced. */
        etrace_enc_trap_return(&s->enc);
        if (etrace_filter_any(&s->filter)) {
            etrace_filter_trap_return(&s->filter);
        }
    }
    te_bm_arm(s, env, false);
}

/*
 * Branch-map mode: the rows after the change are of another mode.  Their
 * context comes with the synchronisation packet that a change of mode
 * brings.
 */
static void te_after_mode_change(CPURISCVState *env, void *opaque)
{
    RISCVTraceEncoder *s = opaque;

    if (s->context) {
        etrace_enc_set_context(&s->enc, te_context(s, env), te_priv(env),
                               false);
    }
    riscv_cf_bmap_arm(env, ETRACE_MAX_BRANCHES, true);
}

/*
 * satp was written, the events up to the writing instruction drained: a
 * new ASID is reported imprecisely, in a format 3.2 (ctype 1: "an
 * operating system process change", whose point a decoder finds in the
 * code, the CSR write).
 */
static void te_context_changed(CPURISCVState *env, void *opaque)
{
    RISCVTraceEncoder *s = opaque;
    bool report = qatomic_read(&s->tracing) && !s->discard;

    etrace_enc_set_context(&s->enc, te_context(s, env), te_priv(env),
                           report);
    if (report) {
        /* The packet moved the resync count the run was armed with. */
        te_bm_arm(s, env, false);
    }
}

/* The code side stream: write out the translation's instructions. */
static void te_code_end(CPURISCVState *env, void *opaque)
{
    RISCVTraceEncoder *s = opaque;
    uint8_t va[8];

    if (!s->code_len) {
        return;
    }
    BQL_LOCK_GUARD();
    /* The payload is the address, then the bytes: one write of both. */
    memmove(s->code_buf + sizeof(va), s->code_buf, s->code_len);
    stq_le_p(va, s->code_va);
    memcpy(s->code_buf, va, sizeof(va));
    te_code_write(s, RISCV_TRACE_CODE_CODE, s->code_priv, s->code_pos,
                  s->code_branches, s->code_buf, sizeof(va) + s->code_len);
    s->code_len = 0;
}

/*
 * An instruction translated: it joins the record of those before it
 * when it follows them in the same mode.  A record starts where the hart
 * is: the encoder is given what it retired first (the translator runs
 * between two blocks, a sync point).
 */
static void te_code_insn(CPURISCVState *env, void *opaque, uint64_t pc,
                         uint32_t insn, unsigned len)
{
    RISCVTraceEncoder *s = opaque;
    uint8_t priv = te_priv(env);

    if (s->code_len &&
        (priv != s->code_priv || pc != s->code_va + s->code_len ||
         s->code_len + len > TE_CODE_RUN - sizeof(uint64_t))) {
        te_code_end(env, opaque);
    }
    if (!s->code_len) {
        riscv_cf_sync(env);
        s->code_va = pc;
        s->code_priv = priv;
        s->code_pos = s->code_packets;
        s->code_branches = qatomic_read(&s->tracing) ?
                           etrace_enc_branches(&s->enc) : 0;
    }
    if (len == 2) {
        stw_le_p(s->code_buf + s->code_len, insn);
    } else {
        stl_le_p(s->code_buf + s->code_len, insn);
    }
    s->code_len += len;
}

/*
 * A TLB fill: a mapping of a page that can be executed (both aligned).
 * It may come from a load in the middle of a block, not a sync point:
 * the branches the encoder was given so far place it no later than the
 * hart was.
 */
static void te_code_map(CPURISCVState *env, void *opaque, uint64_t va,
                        uint64_t pa, target_ulong priv, bool virt)
{
    RISCVTraceEncoder *s = opaque;
    uint8_t p = te_priv_of(priv, virt);
    uint64_t key = va | 8 | p;
    unsigned slot = ((va >> RISCV_TRACE_CODE_PAGE_BITS) ^ p) %
                    TE_CODE_MAP_SLOTS;
    uint8_t payload[16];

    if (s->code_map_key[slot] == key && s->code_map_pa[slot] == pa) {
        return;
    }
    s->code_map_key[slot] = key;
    s->code_map_pa[slot] = pa;
    /* After the instructions translated before the fill. */
    te_code_end(env, opaque);
    stq_le_p(payload, va);
    stq_le_p(payload + 8, pa);
    BQL_LOCK_GUARD();
    te_code_write(s, RISCV_TRACE_CODE_MAP, p, s->code_packets,
                  qatomic_read(&s->tracing) ?
                  etrace_enc_branches(&s->enc) : 0,
                  payload, sizeof(payload));
}

static const RISCVCFConsumerOps te_consumer = {
    .needs = te_needs,
    .drain = te_drain,
    .trap = te_trap,
    .trap_return = te_trap_return,
    .after_mode_change = te_after_mode_change,
    .bmap_look = te_bmap_look,
    .code_insn = te_code_insn,
    .code_end = te_code_end,
    .code_map = te_code_map,
    .context_changed = te_context_changed,
};

/*
 * Bring the hart's side in line with the registers: run by the hart
 * between two blocks, or with the hart stopped.
 */
static void te_apply(RISCVTraceEncoder *s)
{
    CPURISCVState *env = &s->cpu->env;
    bool want = te_should_trace(s);
    ETraceEncConfig cfg;

    /* Whatever ran so far ran, and was framed, under the old settings. */
    riscv_cf_sync(env);
    te_flush(s);
    te_config(s, &cfg);
    /* The clock map starts here (the hart is between two blocks). */
    s->an_time = riscv_cf_cycle_clock();
    s->an_insns = env->cf.insns;
    etrace_enc_set_now(&s->enc, s->an_time);
    etrace_enc_configure(&s->enc, &cfg);
    etrace_enc_set_context(&s->enc, te_context(s, env), te_priv(env),
                           qatomic_read(&s->tracing));
    /* Accesses go between the rows only while data is traced. */
    s->enc.first_held = s->data_on ? te_first_held : NULL;
    if (want && !qatomic_read(&s->tracing)) {
        s->lost = false;
        qatomic_set(&s->tracing, true);
        etrace_filter_restart(&s->filter);
        etrace_enc_start(&s->enc);
        timer_mod(s->flush_timer,
                  qemu_clock_get_ns(QEMU_CLOCK_REALTIME) + TE_FLUSH_NS);
        trace_riscv_trace_encoder_start(env->mhartid);
    } else if (!want && qatomic_read(&s->tracing)) {
        qatomic_set(&s->tracing, false);
        etrace_enc_stop(&s->enc, FIELD_EX32(s->control, TE_CONTROL, ACTIVE) &&
                                 FIELD_EX32(s->control, TE_CONTROL, ENABLE));
        trace_riscv_trace_encoder_stop(env->mhartid);
    }
    if (!qatomic_read(&s->tracing)) {
        te_flush(s);
    }
    s->flush_pending = false;
    riscv_cf_update_needs(env);
    te_bm_arm(s, env, false);
}

/* The hart hands on the packets buffered, the run it holds first. */
static void te_flush_work(CPUState *cs, run_on_cpu_data data)
{
    RISCVTraceEncoder *s = data.host_ptr;

    qatomic_set(&s->flush_queued, false);
    if (qatomic_read(&s->tracing) && runstate_is_running()) {
        riscv_cf_sync(&s->cpu->env);
        te_flush(s);
    }
}

static void te_flush_tick(void *opaque)
{
    RISCVTraceEncoder *s = opaque;

    if (!qatomic_read(&s->tracing)) {
        return;
    }
    if (runstate_is_running() && qatomic_read(&s->buffered) &&
        !qatomic_xchg(&s->flush_queued, true)) {
        async_run_on_cpu(CPU(s->cpu), te_flush_work, RUN_ON_CPU_HOST_PTR(s));
    }
    timer_mod(s->flush_timer,
              qemu_clock_get_ns(QEMU_CLOCK_REALTIME) + TE_FLUSH_NS);
}

static void te_apply_work(CPUState *cs, run_on_cpu_data data)
{
    te_apply(data.host_ptr);
}

static void te_schedule_apply(RISCVTraceEncoder *s)
{
    async_run_on_cpu(CPU(s->cpu), te_apply_work, RUN_ON_CPU_HOST_PTR(s));
}

static void ts_write_control(RISCVTraceEncoder *s, uint32_t val)
{
    uint32_t keep = R_TS_CONTROL_ACTIVE_MASK | R_TS_CONTROL_COUNT_MASK |
                    R_TS_CONTROL_PRESCALE_MASK | R_TS_CONTROL_ENABLE_MASK;
    uint64_t now = riscv_cf_cycle_clock();

    /* Counted up to now under the old settings. */
    s->ts.value = ts_at(&s->ts, now);
    s->ts.anchor = now;
    if (!FIELD_EX32(val, TS_CONTROL, ACTIVE)) {
        /* Held in reset. */
        s->ts.control = 0;
        s->ts.value = 0;
        return;
    }
    if (!FIELD_EX32(s->ts.control, TS_CONTROL, ACTIVE)) {
        /* Released from reset: stopped, at 0, not prescaled, disabled. */
        val = R_TS_CONTROL_ACTIVE_MASK;
    }
    /* WARL: the one mode, Internal Core; trTsRunInDebug 0 (no debug). */
    s->ts.control = (val & keep) |
                    TS_MODE_INTERNAL_CORE << R_TS_CONTROL_MODE_SHIFT |
                    TS_WIDTH << R_TS_CONTROL_WIDTH_SHIFT;
    if (FIELD_EX32(val, TS_CONTROL, RESET)) {
        s->ts.value = 0;
    }
}

static uint64_t te_read(void *opaque, hwaddr addr, unsigned size)
{
    RISCVTraceEncoder *s = opaque;
    uint32_t val = 0;

    switch (addr) {
    case A_TE_CONTROL:
        val = FIELD_DP32(s->control, TE_CONTROL, EMPTY,
                         !s->flush_pending && !qatomic_read(&s->buffered));
        break;
    case A_TE_IMPL:
        /*
         * Interface 1.0; E-Trace 2.0.x is protocol version 0.0
         * (control.adoc), 2.1 is 0.1.
         */
        val = FIELD_DP32(val, TE_IMPL, VER_MAJOR, 1);
        val = FIELD_DP32(val, TE_IMPL, PROTOCOL_MINOR, s->params.protocol);
        val = FIELD_DP32(val, TE_IMPL, COMP_TYPE, RISCV_TRACE_COMP_ENCODER);
        break;
    case A_TE_INST_FEATURES:
        val = s->inst_features;
        break;
    case A_TE_DATA_CONTROL:
        val = s->data_control;
        break;
    case A_TS_CONTROL:
        val = s->ts.control;
        break;
    case A_TS_COUNTER_LOW:
        val = ts_at(&s->ts, riscv_cf_cycle_clock());
        break;
    case A_TS_COUNTER_HIGH:
        val = ts_at(&s->ts, riscv_cf_cycle_clock()) >> 32;
        break;
    default:
        etrace_filter_reg_read(&s->filter_regs, addr, &val);
        break;
    }
    trace_riscv_trace_encoder_read(s->cpu->env.mhartid, addr, val);
    return val;
}

/*
 * trTeDataControl in reset (the spec leaves it undefined): the options
 * of the data-* properties, not tracing.
 */
static uint32_t te_data_control_reset(RISCVTraceEncoder *s)
{
    uint32_t val = R_TE_DATA_CONTROL_IMPLEMENTED_MASK;

    if (!s->data_trace) {
        return 0;
    }
    val = FIELD_DP32(val, TE_DATA_CONTROL, STALL_ENA, s->reset_data_stall);
    val = FIELD_DP32(val, TE_DATA_CONTROL, DROP_ENA, s->reset_data_drop);
    val = FIELD_DP32(val, TE_DATA_CONTROL, NO_VALUE, s->reset_data_no_value);
    val = FIELD_DP32(val, TE_DATA_CONTROL, NO_ADDR,
                     s->reset_data_no_addr && !s->reset_data_no_value);
    return FIELD_DP32(val, TE_DATA_CONTROL, ADDR_COMPRESS,
                      s->reset_data_full_addr ? TE_DATA_ADDR_FULL :
                                                TE_DATA_ADDR_DIFF);
}

static void te_write_control(RISCVTraceEncoder *s, uint32_t val)
{
    uint32_t old = s->control;
    unsigned mode = FIELD_EX32(val, TE_CONTROL, INST_SYNC_MODE);
    bool sticky = FIELD_EX32(old, TE_CONTROL, INST_STALL_OR_OVERFLOW);

    if (!FIELD_EX32(val, TE_CONTROL, ACTIVE)) {
        /* Held in reset: disabled, flushed first. */
        if (FIELD_EX32(old, TE_CONTROL, ENABLE)) {
            s->flush_pending = true;
        }
        s->control = 0;
        s->data_control = te_data_control_reset(s);
        return;
    }
    if (!FIELD_EX32(old, TE_CONTROL, ACTIVE)) {
        /* Released from reset: every field takes its default. */
        s->control = TE_CONTROL_DEFAULT |
                     (s->context ? R_TE_CONTROL_CONTEXT_MASK : 0);
        return;
    }

    /* WARL: resync by packets or half-words, or none. */
    if (mode != ETRACE_SYNC_MODE_OFF && mode != ETRACE_SYNC_MODE_PACKETS &&
        mode != ETRACE_SYNC_MODE_HALFWORDS) {
        val = FIELD_DP32(val, TE_CONTROL, INST_SYNC_MODE,
                         FIELD_EX32(old, TE_CONTROL, INST_SYNC_MODE));
    }
    /* Write 1 to clear; enabling the encoder clears it too. */
    if (FIELD_EX32(val, TE_CONTROL, INST_STALL_OR_OVERFLOW) ||
        (!FIELD_EX32(old, TE_CONTROL, ENABLE) &&
         FIELD_EX32(val, TE_CONTROL, ENABLE))) {
        sticky = false;
    }
    /* ... and trTeDataStallOrOverflow and trTeDataDrop. */
    if (!FIELD_EX32(old, TE_CONTROL, ENABLE) &&
        FIELD_EX32(val, TE_CONTROL, ENABLE)) {
        s->data_control &= ~TE_DATA_CONTROL_W1C;
    }
    val = (val & (TE_CONTROL_RW |
                  (s->context ? R_TE_CONTROL_CONTEXT_MASK : 0))) |
          TE_INST_MODE_ETRACE << R_TE_CONTROL_INST_MODE_SHIFT;
    if (sticky) {
        val |= R_TE_CONTROL_INST_STALL_OR_OVERFLOW_MASK;
    }
    /*
     * Disabling flushes; so does the end of tracing, whose last packets
     * the hart makes when it next looks at the registers: trTeEmpty reads
     * 0 until they are handed on.
     */
    if ((FIELD_EX32(old, TE_CONTROL, ENABLE) &&
         !FIELD_EX32(val, TE_CONTROL, ENABLE)) ||
        (FIELD_EX32(old, TE_CONTROL, INST_TRACING) &&
         !FIELD_EX32(val, TE_CONTROL, INST_TRACING) &&
         qatomic_read(&s->tracing))) {
        s->flush_pending = true;
    }
    s->control = val;
}

/*
 * trTeDataControl.  WARL: trTeDataAddrCompress 1 and 3 read 2 (the
 * differential addresses E-Trace defines); trTeDataNoValue with
 * trTeDataNoAddr keeps the address (packets need one of them); no
 * trigger: TrigEnable reads 0.  DataStallOrOverflow and DataDrop are
 * write-1-to-clear.  Nothing is writable unless data trace is
 * implemented.
 */
/*
 * With data trace, the access sizes the hart reports (bit N: 2^N bytes):
 * 1 to 8 bytes, and 16 (amocas.q) when data_width_p is 128; else 0.
 */
static unsigned te_data_sizes(RISCVTraceEncoder *s)
{
    if (!s->data_trace) {
        return 0;
    }
    return s->dparams.data_width >= 128 ? 0x1f : 0xf;
}

static void te_write_data_control(RISCVTraceEncoder *s, uint32_t val)
{
    uint32_t sticky = s->data_control & TE_DATA_CONTROL_W1C & ~val;

    if (!s->data_trace || !FIELD_EX32(s->control, TE_CONTROL, ACTIVE)) {
        return;
    }
    val = (val & TE_DATA_CONTROL_RW) | sticky;
    if (FIELD_EX32(val, TE_DATA_CONTROL, ADDR_COMPRESS)) {
        val = FIELD_DP32(val, TE_DATA_CONTROL, ADDR_COMPRESS,
                         TE_DATA_ADDR_DIFF);
    }
    if (FIELD_EX32(val, TE_DATA_CONTROL, NO_VALUE)) {
        val = FIELD_DP32(val, TE_DATA_CONTROL, NO_ADDR, 0);
    }
    s->data_control = val | R_TE_DATA_CONTROL_IMPLEMENTED_MASK;
}

static void te_write(void *opaque, hwaddr addr, uint64_t val64,
                     unsigned size)
{
    RISCVTraceEncoder *s = opaque;
    uint32_t val = val64;
    unsigned bits;

    trace_riscv_trace_encoder_write(s->cpu->env.mhartid, addr, val);
    switch (addr) {
    case A_TE_CONTROL:
        te_write_control(s, val);
        break;
    case A_TE_INST_FEATURES:
        bits = MIN(FIELD_EX32(val, TE_INST_FEATURES, SRC_BITS),
                   TE_SRC_BITS_MAX);
        s->inst_features = val & TE_INST_FEATURES_RW;
        s->inst_features = FIELD_DP32(s->inst_features, TE_INST_FEATURES,
                                      SRC_BITS, bits);
        s->inst_features = FIELD_DP32(s->inst_features, TE_INST_FEATURES,
                                      IMPLICIT_RETURN_MODE,
                                      TE_IMPLICIT_RETURN_FULL);
        break;
    case A_TE_DATA_CONTROL:
        te_write_data_control(s, val);
        break;
    case A_TE_IMPL:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: trTeImpl is read-only\n",
                      __func__);
        return;
    case A_TS_CONTROL:
        ts_write_control(s, val);
        break;
    case A_TS_COUNTER_LOW:
    case A_TS_COUNTER_HIGH:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: trTsCounter is read-only\n",
                      __func__);
        return;
    default:
        if (!etrace_filter_reg_write(&s->filter_regs, addr, val,
                                     te_data_sizes(s))) {
            return;
        }
        break;
    }
    te_schedule_apply(s);
}

static const MemoryRegionOps te_ops = {
    .read = te_read,
    .write = te_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static void te_reset_enter(Object *obj, ResetType type)
{
    RISCVTraceEncoder *s = RISCV_TRACE_ENCODER(obj);

    /* The hart is stopped: end the trace before the sinks reset. */
    if (qatomic_read(&s->tracing)) {
        riscv_cf_sync(&s->cpu->env);
        qatomic_set(&s->tracing, false);
        etrace_enc_stop(&s->enc, false);
        te_flush(s);
    }
}

static void te_reset_hold(Object *obj, ResetType type)
{
    RISCVTraceEncoder *s = RISCV_TRACE_ENCODER(obj);
    ETraceEncConfig cfg;

    s->ts = (TETimestamp) {
        .anchor = riscv_cf_cycle_clock(),
    };
    if (s->start && s->reset_timestamps) {
        /* Counting from 0, into the packets. */
        s->ts.control = R_TS_CONTROL_ACTIVE_MASK | R_TS_CONTROL_COUNT_MASK |
                        R_TS_CONTROL_ENABLE_MASK |
                        TS_MODE_INTERNAL_CORE << R_TS_CONTROL_MODE_SHIFT |
                        TS_WIDTH << R_TS_CONTROL_WIDTH_SHIFT;
    }
    s->control = 0;
    if (s->start) {
        s->control = TE_CONTROL_DEFAULT | R_TE_CONTROL_ENABLE_MASK |
                     R_TE_CONTROL_INST_TRACING_MASK |
                     (s->context ? R_TE_CONTROL_CONTEXT_MASK : 0);
        s->control = FIELD_DP32(s->control, TE_CONTROL, INST_SYNC_MODE,
                                s->start_sync_mode);
        s->control = FIELD_DP32(s->control, TE_CONTROL, INST_SYNC_MAX,
                                s->start_sync_max);
        s->control = FIELD_DP32(s->control, TE_CONTROL, INST_STALL_ENA,
                                s->reset_stall);
    }
    s->data_control = te_data_control_reset(s);
    if (s->data_trace && s->start && s->data_start) {
        s->data_control |= R_TE_DATA_CONTROL_TRACING_MASK;
    }
    etrace_data_history_reset(&s->dhist);
    memset(&s->filter_regs, 0, sizeof(s->filter_regs));
    s->inst_features = 0;
    s->inst_features = FIELD_DP32(s->inst_features, TE_INST_FEATURES,
                                  NO_ADDR_DIFF, s->reset_no_addr_diff);
    s->inst_features = FIELD_DP32(s->inst_features, TE_INST_FEATURES,
                                  EN_JUMP_TARGET_CACHE, s->reset_jump_cache);
    s->inst_features = FIELD_DP32(s->inst_features, TE_INST_FEATURES,
                                  EN_BRANCH_PREDICTION, s->reset_branch_pred);
    s->inst_features = FIELD_DP32(s->inst_features, TE_INST_FEATURES,
                                  EN_SEQUENTIAL_JUMP, s->reset_sijump);
    s->inst_features = FIELD_DP32(s->inst_features, TE_INST_FEATURES,
                                  EN_IMPLICIT_RETURN,
                                  s->reset_implicit_return);
    s->inst_features = FIELD_DP32(s->inst_features, TE_INST_FEATURES,
                                  IMPLICIT_RETURN_MODE,
                                  TE_IMPLICIT_RETURN_FULL);
    s->inst_features = FIELD_DP32(s->inst_features, TE_INST_FEATURES, SRC_ID,
                                  s->reset_srcid);
    s->inst_features = FIELD_DP32(s->inst_features, TE_INST_FEATURES,
                                  SRC_BITS, s->reset_srcbits);
    s->flush_pending = false;
    qatomic_set(&s->tracing, false);
    s->lost = false;
    s->buf_len = 0;
    s->buffered = false;
    te_config(s, &cfg);
    etrace_enc_init(&s->enc, &cfg, te_emit, s);
    te_apply(s);
}

/*
 * The VM stops (with the harts stopped): hand on what is buffered, so
 * that a reader has the trace up to this point; when QEMU shuts down,
 * end the trace first.  Runs before the sinks write out what they hold.
 */
static void te_vm_state_change(void *opaque, bool running, RunState state)
{
    RISCVTraceEncoder *s = opaque;

    if (running) {
        return;
    }
    riscv_cf_sync(&s->cpu->env);
    if (state == RUN_STATE_SHUTDOWN && qatomic_read(&s->tracing)) {
        qatomic_set(&s->tracing, false);
        etrace_enc_stop(&s->enc, false);
        trace_riscv_trace_encoder_stop(s->cpu->env.mhartid);
    }
    te_flush(s);
}

/*
 * The te_data packets of the hart: addresses as wide as its XLEN, values
 * up to 64 bits (128 with split signalling on an RV64 hart with Zacas,
 * for amocas.q); the MMA/CAS extension's layouts with protocol 2.1; a
 * format field as narrow as the accesses the hart can make allow
 * (ETraceDataParams).  Split signalling has one load at a time: a 1-bit
 * lrid, always 0.
 */
static void te_data_params(RISCVTraceEncoder *s)
{
    const RISCVCPUConfig *cfg = &s->cpu->cfg;
    bool rv64 = s->cpu->env.misa_mxl != MXL_RV32;
    bool atomics = cfg->ext_zaamo || cfg->ext_zalrsc ||
                   riscv_has_ext(&s->cpu->env, RVA);
    bool mma = cfg->ext_zcmp || riscv_has_ext(&s->cpu->env, RVV);
    bool mmacas = s->params.protocol >= ETRACE_PROTOCOL_2_1;
    bool wide = s->data_split || atomics;

    s->dparams = (ETraceDataParams) {
        .daddress_width = rv64 ? 64 : 32,
        .data_width = s->data_split && rv64 && cfg->ext_zacas ? 128 : 64,
        .lrid_width = s->data_split ? 1 : 0,
        .mmacas = mmacas,
        .format_bits = mmacas ? (wide ? 2 : mma ? 1 : 0) : (wide ? 3 : 2),
    };
}

static void te_realize(DeviceState *dev, Error **errp)
{
    RISCVTraceEncoder *s = RISCV_TRACE_ENCODER(dev);

    if (!s->cpu) {
        error_setg(errp, "the trace encoder needs a hart (property 'cpu')");
        return;
    }
    if (!s->sink) {
        error_setg(errp, "the trace encoder needs a sink (property 'sink')");
        return;
    }
    if (s->reset_srcbits > TE_SRC_BITS_MAX ||
        s->reset_srcid >= 1u << s->reset_srcbits) {
        error_setg(errp, "srcid %u does not fit in srcid-bits %u (0-%d)",
                   s->reset_srcid, s->reset_srcbits, TE_SRC_BITS_MAX);
        return;
    }
    if (s->start_sync_mode != ETRACE_SYNC_MODE_OFF &&
        s->start_sync_mode != ETRACE_SYNC_MODE_PACKETS &&
        s->start_sync_mode != ETRACE_SYNC_MODE_HALFWORDS) {
        error_setg(errp, "sync-mode %u is not one this encoder implements "
                   "(0 off, 1 packets, 3 half-words)", s->start_sync_mode);
        return;
    }
    if (s->start_sync_max > 15) {
        error_setg(errp, "sync-max %u is out of range (0-15)",
                   s->start_sync_max);
        return;
    }
    s->params = (ETraceParams)ETRACE_QEMU_PARAMS;
    if (!s->protocol || !strcmp(s->protocol, "2.0")) {
        s->params.protocol = ETRACE_PROTOCOL_2_0;
    } else if (!strcmp(s->protocol, "2.1")) {
        s->params.protocol = ETRACE_PROTOCOL_2_1;
    } else {
        error_setg(errp, "protocol '%s' is not one this encoder implements "
                   "(2.0, 2.1)", s->protocol);
        return;
    }
    if (s->context) {
        s->params.context_width = TE_CONTEXT_BITS;
    }
    if (s->data_split && !s->data_trace) {
        error_setg(errp, "data-split needs data-trace=on");
        return;
    }
    te_data_params(s);
    memory_region_init_io(&s->mmio, OBJECT(s), &te_ops, s,
                          TYPE_RISCV_TRACE_ENCODER,
                          RISCV_TRACE_COMPONENT_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(s), &s->mmio);
    s->room.notify = te_room;
    riscv_cf_register(&s->cpu->env, &te_consumer, s);
    if (s->code) {
        riscv_cf_record_code(&s->cpu->env);
    }
    if (s->context) {
        riscv_cf_watch_context(&s->cpu->env);
    }
    qemu_add_vm_change_state_handler_prio(te_vm_state_change, s,
                                          RISCV_TRACE_VMSTATE_PRIO_SOURCE);
    s->flush_timer = timer_new_ns(QEMU_CLOCK_REALTIME, te_flush_tick, s);
}

static int te_pre_save(void *opaque)
{
    RISCVTraceEncoder *s = opaque;

    /* Every event the hart made is in the state saved. */
    riscv_cf_sync(&s->cpu->env);
    return 0;
}

/* The buffer holds whole packets, up to buf_len exactly. */
static bool te_buf_valid(RISCVTraceEncoder *s)
{
    uint32_t at = 0;

    while (at < s->buf_len) {
        at += te_packet_len(s, at);
    }
    return at == s->buf_len;
}

static int te_post_load(void *opaque, int version_id)
{
    RISCVTraceEncoder *s = opaque;

    if (s->buf_len > TE_BUF_SIZE || s->enc.branches > ETRACE_MAX_BRANCHES ||
        s->enc.cfg.sync_max > 15 ||
        s->encap.srcid_bits > TE_SRC_BITS_MAX) {
        return -EINVAL;
    }
    /* After the timestamp subsection, which sets the packets' format. */
    if (!te_buf_valid(s)) {
        return -EINVAL;
    }
    s->enc.cfg.params = s->params;
    s->encap.type_bits = s->data_trace ? 1 : 0;
    s->enc.emit = te_emit;
    s->enc.first_held = s->data_on ? te_first_held : NULL;
    s->enc.opaque = s;
    s->buffered = s->buf_len != 0;
    s->flushed_ns = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    riscv_cf_update_needs(&s->cpu->env);
    te_bm_arm(s, &s->cpu->env, false);
    if (qatomic_read(&s->tracing)) {
        timer_mod(s->flush_timer,
                  qemu_clock_get_ns(QEMU_CLOCK_REALTIME) + TE_FLUSH_NS);
    }
    return 0;
}

static const VMStateDescription vmstate_etrace_row = {
    .name = "etrace-row",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(addr, ETraceRow),
        VMSTATE_UINT64(tval, ETraceRow),
        VMSTATE_UINT64(time, ETraceRow),
        VMSTATE_UINT32(halfwords, ETraceRow),
        VMSTATE_UINT8(itype, ETraceRow),
        VMSTATE_UINT8(priv, ETraceRow),
        VMSTATE_UINT8(ecause, ETraceRow),
        VMSTATE_BOOL(retired, ETraceRow),
        VMSTATE_BOOL(middle, ETraceRow),
        VMSTATE_BOOL(sijump, ETraceRow),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_etrace_enc = {
    .name = "etrace-enc",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(cfg.full_address, ETraceEnc),
        VMSTATE_UINT8(cfg.sync_mode, ETraceEnc),
        VMSTATE_UINT8(cfg.sync_max, ETraceEnc),
        VMSTATE_STRUCT(prev, ETraceEnc, 1, vmstate_etrace_row, ETraceRow),
        VMSTATE_STRUCT(cur, ETraceEnc, 1, vmstate_etrace_row, ETraceRow),
        VMSTATE_BOOL(have_prev, ETraceEnc),
        VMSTATE_BOOL(have_cur, ETraceEnc),
        VMSTATE_BOOL(running, ETraceEnc),
        VMSTATE_UINT32(branch_map, ETraceEnc),
        VMSTATE_UINT8(branches, ETraceEnc),
        VMSTATE_UINT64(last_addr, ETraceEnc),
        VMSTATE_UINT32(resync_count, ETraceEnc),
        VMSTATE_UINT32(halfwords_pending, ETraceEnc),
        VMSTATE_BOOL(resync_flushed, ETraceEnc),
        VMSTATE_BOOL(trap_reported, ETraceEnc),
        VMSTATE_BOOL(cur_reported, ETraceEnc),
        VMSTATE_BOOL(cur_reported_updiscon, ETraceEnc),
        VMSTATE_UINT64(now, ETraceEnc),
        VMSTATE_END_OF_LIST()
    }
};

static bool ts_needed(void *opaque)
{
    RISCVTraceEncoder *s = opaque;

    return s->ts.control != 0;
}

static int ts_pre_save(void *opaque)
{
    RISCVTraceEncoder *s = opaque;
    uint64_t now = riscv_cf_cycle_clock();

    /* Counted up to now; te_pre_save drained the hart's events. */
    s->ts.value = ts_at(&s->ts, now);
    s->ts.anchor = now;
    s->ts_hart.value = ts_at(&s->ts_hart, now);
    s->ts_hart.anchor = now;
    return 0;
}

static int ts_post_load(void *opaque, int version_id)
{
    RISCVTraceEncoder *s = opaque;

    if (s->encap.timestamp_bytes &&
        s->encap.timestamp_bytes != RISCV_TRACE_TIMESTAMP_BYTES) {
        return -EINVAL;
    }
    /* The counters go on from their values, with this host's clock. */
    s->ts.anchor = riscv_cf_cycle_clock();
    s->ts_hart.anchor = s->ts.anchor;
    s->an_time = s->ts.anchor;
    s->an_insns = s->cpu->env.cf.insns;
    return 0;
}

static const VMStateDescription vmstate_te_ts = {
    .name = TYPE_RISCV_TRACE_ENCODER "/timestamp",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = ts_needed,
    .pre_save = ts_pre_save,
    .post_load = ts_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(ts.control, RISCVTraceEncoder),
        VMSTATE_UINT64(ts.value, RISCVTraceEncoder),
        VMSTATE_UINT32(ts_hart.control, RISCVTraceEncoder),
        VMSTATE_UINT64(ts_hart.value, RISCVTraceEncoder),
        VMSTATE_UINT8(encap.timestamp_bytes, RISCVTraceEncoder),
        VMSTATE_END_OF_LIST()
    }
};

static bool jtc_needed(void *opaque)
{
    RISCVTraceEncoder *s = opaque;

    return s->enc.cfg.jump_cache || s->enc.jtc_valid;
}

static const VMStateDescription vmstate_te_jtc = {
    .name = TYPE_RISCV_TRACE_ENCODER "/jump-target-cache",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = jtc_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(enc.cfg.jump_cache, RISCVTraceEncoder),
        VMSTATE_UINT64_ARRAY(enc.jtc, RISCVTraceEncoder,
                             1 << ETRACE_JTC_MAX_BITS),
        VMSTATE_UINT64(enc.jtc_valid, RISCVTraceEncoder),
        VMSTATE_END_OF_LIST()
    }
};

static bool sij_needed(void *opaque)
{
    RISCVTraceEncoder *s = opaque;

    return s->enc.cfg.sijump || s->enc.sij_on;
}

static const VMStateDescription vmstate_te_sij = {
    .name = TYPE_RISCV_TRACE_ENCODER "/sequential-jumps",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = sij_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(enc.cfg.sijump, RISCVTraceEncoder),
        VMSTATE_BOOL(enc.sij_on, RISCVTraceEncoder),
        VMSTATE_END_OF_LIST()
    }
};

/*
 * With implicit return on or about to be, or a held row that is a call
 * or a return (the option may be turned on before it is decided).
 */
static bool ir_needed(void *opaque)
{
    RISCVTraceEncoder *s = opaque;

    return s->enc.cfg.implicit_return || s->enc.ir_on ||
           (s->enc.cur.ir & (ETRACE_ROW_CALL | ETRACE_ROW_RET));
}

static int ir_post_load(void *opaque, int version_id)
{
    RISCVTraceEncoder *s = opaque;
    ETraceEnc *e = &s->enc;

    if (e->rdepth > (1u << ETRACE_RSTACK_BITS) ||
        e->ir_npass > ETRACE_IR_PASSES) {
        return -EINVAL;
    }
    if (s->params.protocol < ETRACE_PROTOCOL_2_1) {
        if (e->ir_flip > (1u << ETRACE_RSTACK_BITS)) {
            return -EINVAL;
        }
        e->ir_report = e->ir_flip != 0;
    }
    return 0;
}

static const VMStateDescription vmstate_te_ir = {
    .name = TYPE_RISCV_TRACE_ENCODER "/implicit-return",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = ir_needed,
    .post_load = ir_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(enc.cfg.implicit_return, RISCVTraceEncoder),
        VMSTATE_BOOL(enc.ir_on, RISCVTraceEncoder),
        VMSTATE_UINT8(enc.cur.ir, RISCVTraceEncoder),
        VMSTATE_UINT64_ARRAY(enc.rstack, RISCVTraceEncoder,
                             1 << ETRACE_RSTACK_BITS),
        VMSTATE_UINT8(enc.rdepth, RISCVTraceEncoder),
        VMSTATE_UINT32(enc.ir_depths, RISCVTraceEncoder),
        VMSTATE_UINT32(enc.ir_count, RISCVTraceEncoder),
        VMSTATE_UINT64_ARRAY(enc.ir_first, RISCVTraceEncoder,
                             ETRACE_IR_PASSES),
        VMSTATE_UINT64_ARRAY(enc.ir_last, RISCVTraceEncoder,
                             ETRACE_IR_PASSES),
        VMSTATE_UINT32_ARRAY(enc.ir_irs, RISCVTraceEncoder,
                             ETRACE_IR_PASSES),
        VMSTATE_UINT8(enc.ir_npass, RISCVTraceEncoder),
        VMSTATE_UINT8(enc.ir_flip, RISCVTraceEncoder),
        VMSTATE_BOOL(enc.ir_after_pop, RISCVTraceEncoder),
        VMSTATE_END_OF_LIST()
    }
};

/* Protocol 2.1's implicit return (irets) on or about to be. */
static bool irets_needed(void *opaque)
{
    RISCVTraceEncoder *s = opaque;

    return s->params.protocol >= ETRACE_PROTOCOL_2_1 && ir_needed(opaque);
}

static int irets_post_load(void *opaque, int version_id)
{
    RISCVTraceEncoder *s = opaque;

    return s->enc.irets > ETRACE_IRETS_MAX + 1 ? -EINVAL : 0;
}

static const VMStateDescription vmstate_te_irets = {
    .name = TYPE_RISCV_TRACE_ENCODER "/irets",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = irets_needed,
    .post_load = irets_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT16(enc.irets, RISCVTraceEncoder),
        VMSTATE_BOOL(enc.ir_report, RISCVTraceEncoder),
        VMSTATE_BOOL(enc.ir_no_cache, RISCVTraceEncoder),
        VMSTATE_BOOL(enc.ir_seen_void, RISCVTraceEncoder),
        VMSTATE_END_OF_LIST()
    }
};

static bool bp_needed(void *opaque)
{
    RISCVTraceEncoder *s = opaque;

    return s->enc.cfg.branch_pred || s->enc.bp_on;
}

static int bp_post_load(void *opaque, int version_id)
{
    RISCVTraceEncoder *s = opaque;

    return s->enc.pbc > UINT64_C(0xffffffff) + ETRACE_MAX_BRANCHES ?
           -EINVAL : 0;
}

static const VMStateDescription vmstate_te_bp = {
    .name = TYPE_RISCV_TRACE_ENCODER "/branch-prediction",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = bp_needed,
    .post_load = bp_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(enc.cfg.branch_pred, RISCVTraceEncoder),
        VMSTATE_UINT8_ARRAY(enc.bp, RISCVTraceEncoder,
                            1 << ETRACE_BPRED_MAX_BITS),
        VMSTATE_UINT64(enc.pbc, RISCVTraceEncoder),
        VMSTATE_BOOL(enc.bp_fail, RISCVTraceEncoder),
        VMSTATE_BOOL(enc.bp_all, RISCVTraceEncoder),
        VMSTATE_BOOL(enc.bp_on, RISCVTraceEncoder),
        VMSTATE_END_OF_LIST()
    }
};

static bool filters_needed(void *opaque)
{
    RISCVTraceEncoder *s = opaque;
    static const ETraceFilterRegs reset;

    return memcmp(&s->filter_regs, &reset, sizeof(reset));
}

static int filters_post_load(void *opaque, int version_id)
{
    RISCVTraceEncoder *s = opaque;

    /* The hart's copy: the registers as last applied, with its state. */
    etrace_filter_load(&s->filter, &s->filter_regs);
    return 0;
}

static const VMStateDescription vmstate_te_filters = {
    .name = TYPE_RISCV_TRACE_ENCODER "/filters",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = filters_needed,
    .post_load = filters_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(filter_regs.inst_filters, RISCVTraceEncoder),
        VMSTATE_UINT32(filter_regs.data_filters, RISCVTraceEncoder),
        VMSTATE_UINT32_ARRAY(filter_regs.match_data, RISCVTraceEncoder,
                             ETRACE_FILTERS),
        VMSTATE_UINT32_ARRAY(filter_regs.control, RISCVTraceEncoder,
                             ETRACE_FILTERS),
        VMSTATE_UINT32_ARRAY(filter_regs.match_inst, RISCVTraceEncoder,
                             ETRACE_FILTERS),
        VMSTATE_UINT64_ARRAY(filter_regs.match_ecause, RISCVTraceEncoder,
                             ETRACE_FILTERS),
        VMSTATE_UINT32_ARRAY(filter_regs.comp_control, RISCVTraceEncoder,
                             ETRACE_COMPARATORS),
        VMSTATE_UINT64_ARRAY(filter_regs.pmatch, RISCVTraceEncoder,
                             ETRACE_COMPARATORS),
        VMSTATE_UINT64_ARRAY(filter_regs.smatch, RISCVTraceEncoder,
                             ETRACE_COMPARATORS),
        VMSTATE_UINT8(filter.window, RISCVTraceEncoder),
        VMSTATE_UINT8_ARRAY(filter.nest, RISCVTraceEncoder, ETRACE_FILTERS),
        VMSTATE_UINT8(filter.latch, RISCVTraceEncoder),
        VMSTATE_END_OF_LIST()
    }
};

static bool data_needed(void *opaque)
{
    RISCVTraceEncoder *s = opaque;

    return s->data_trace;
}

static int data_post_load(void *opaque, int version_id)
{
    RISCVTraceEncoder *s = opaque;
    uint32_t legal = TE_DATA_CONTROL_RW | TE_DATA_CONTROL_W1C |
                     R_TE_DATA_CONTROL_IMPLEMENTED_MASK;

    /* Both sides implement data trace, with registers it can hold. */
    if (!s->data_trace || (s->data_control & ~legal) ||
        (s->data_control && !FIELD_EX32(s->data_control, TE_DATA_CONTROL,
                                        IMPLEMENTED))) {
        return -EINVAL;
    }
    return 0;
}

/* Data trace: the register, the hart's settings and history. */
static const VMStateDescription vmstate_te_data = {
    .name = TYPE_RISCV_TRACE_ENCODER "/data",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = data_needed,
    .post_load = data_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(data_control, RISCVTraceEncoder),
        VMSTATE_BOOL(data_on, RISCVTraceEncoder),
        VMSTATE_BOOL(data_noaddr, RISCVTraceEncoder),
        VMSTATE_BOOL(data_nodata, RISCVTraceEncoder),
        VMSTATE_BOOL(data_full_addr, RISCVTraceEncoder),
        VMSTATE_BOOL(data_dropped, RISCVTraceEncoder),
        VMSTATE_UINT64_ARRAY(dhist.addr, RISCVTraceEncoder,
                             ETRACE_DATA_SIZES),
        VMSTATE_UINT64_ARRAY(dhist.data, RISCVTraceEncoder,
                             ETRACE_DATA_SIZES),
        VMSTATE_UINT64(dhist.data_hi, RISCVTraceEncoder),
        VMSTATE_UINT8(dhist.addr_valid, RISCVTraceEncoder),
        VMSTATE_UINT8(dhist.data_valid, RISCVTraceEncoder),
        VMSTATE_BOOL(enc.cfg.denable, RISCVTraceEncoder),
        VMSTATE_UINT8(enc.cfg.doptions, RISCVTraceEncoder),
        VMSTATE_END_OF_LIST()
    }
};

static bool code_needed(void *opaque)
{
    RISCVTraceEncoder *s = opaque;

    return s->code;
}

/* The code side stream's position (te_inst packets made). */
static const VMStateDescription vmstate_te_code = {
    .name = TYPE_RISCV_TRACE_ENCODER "/code",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = code_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(code_packets, RISCVTraceEncoder),
        VMSTATE_END_OF_LIST()
    }
};

static bool context_needed(void *opaque)
{
    RISCVTraceEncoder *s = opaque;

    return s->context;
}

/* The contexts of the held rows, the hart's, the one last reported. */
static const VMStateDescription vmstate_te_context = {
    .name = TYPE_RISCV_TRACE_ENCODER "/context",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = context_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(ctx_on, RISCVTraceEncoder),
        VMSTATE_UINT32(enc.ctx, RISCVTraceEncoder),
        VMSTATE_UINT8(enc.ctx_priv, RISCVTraceEncoder),
        VMSTATE_UINT32(enc.ctx_sent, RISCVTraceEncoder),
        VMSTATE_UINT32(enc.prev.ctx, RISCVTraceEncoder),
        VMSTATE_UINT32(enc.cur.ctx, RISCVTraceEncoder),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_te = {
    .name = TYPE_RISCV_TRACE_ENCODER,
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = te_pre_save,
    .post_load = te_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(control, RISCVTraceEncoder),
        VMSTATE_UINT32(inst_features, RISCVTraceEncoder),
        VMSTATE_BOOL(flush_pending, RISCVTraceEncoder),
        VMSTATE_BOOL(tracing, RISCVTraceEncoder),
        VMSTATE_BOOL(lost, RISCVTraceEncoder),
        VMSTATE_UINT8(encap.srcid_bits, RISCVTraceEncoder),
        VMSTATE_UINT16(encap.srcid, RISCVTraceEncoder),
        VMSTATE_STRUCT(enc, RISCVTraceEncoder, 1, vmstate_etrace_enc,
                       ETraceEnc),
        VMSTATE_UINT32(buf_len, RISCVTraceEncoder),
        VMSTATE_UINT8_ARRAY(buf, RISCVTraceEncoder, TE_BUF_SIZE),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_te_ts,
        &vmstate_te_filters,
        &vmstate_te_jtc,
        &vmstate_te_bp,
        &vmstate_te_sij,
        &vmstate_te_ir,
        &vmstate_te_irets,
        &vmstate_te_data,
        &vmstate_te_code,
        &vmstate_te_context,
        NULL
    }
};

static const Property te_properties[] = {
    DEFINE_PROP_LINK("cpu", RISCVTraceEncoder, cpu, TYPE_RISCV_CPU,
                     RISCVCPU *),
    DEFINE_PROP_LINK("sink", RISCVTraceEncoder, sink, TYPE_RISCV_TRACE_SINK,
                     Object *),
    DEFINE_PROP_UINT32("sink-input", RISCVTraceEncoder, sink_input, 0),
    DEFINE_PROP_LINK("code", RISCVTraceEncoder, code, TYPE_RISCV_TRACE_CODE,
                     RISCVTraceCode *),
    DEFINE_PROP_UINT32("srcid", RISCVTraceEncoder, reset_srcid, 0),
    DEFINE_PROP_UINT8("srcid-bits", RISCVTraceEncoder, reset_srcbits, 0),
    DEFINE_PROP_BOOL("start", RISCVTraceEncoder, start, false),
    DEFINE_PROP_STRING("protocol", RISCVTraceEncoder, protocol),
    /* the hart's ASID (and VMID) in a context field */
    DEFINE_PROP_BOOL("context", RISCVTraceEncoder, context, false),
    /* trTeInstNoAddrDiff after reset (the spec leaves it undefined) */
    DEFINE_PROP_BOOL("no-addr-diff", RISCVTraceEncoder, reset_no_addr_diff,
                     false),
    /* trTeInstEnSequentialJump after reset */
    DEFINE_PROP_BOOL("sequential-jumps", RISCVTraceEncoder, reset_sijump,
                     false),
    /* trTeInstEnBranchPrediction after reset */
    DEFINE_PROP_BOOL("branch-prediction", RISCVTraceEncoder,
                     reset_branch_pred, false),
    /* trTeInstEnJumpTargetCache after reset */
    DEFINE_PROP_BOOL("jump-target-cache", RISCVTraceEncoder,
                     reset_jump_cache, false),
    /* trTeInstEnImplicitReturn after reset */
    DEFINE_PROP_BOOL("implicit-return", RISCVTraceEncoder,
                     reset_implicit_return, false),
    /* trTeInstSyncMode and trTeInstSyncMax when tracing from reset */
    DEFINE_PROP_UINT8("sync-mode", RISCVTraceEncoder, start_sync_mode,
                      ETRACE_SYNC_MODE_PACKETS),
    DEFINE_PROP_UINT8("sync-max", RISCVTraceEncoder, start_sync_max, 8),
    /* With "start": timestamps in the packets from reset, counting from 0 */
    DEFINE_PROP_BOOL("timestamps", RISCVTraceEncoder, reset_timestamps,
                     false),
    /* Data trace implemented (trTeDataImplemented) */
    DEFINE_PROP_BOOL("data-trace", RISCVTraceEncoder, data_trace, false),
    /* With "start": data traced from reset too */
    DEFINE_PROP_BOOL("data-start", RISCVTraceEncoder, data_start, true),
    /* trTeDataNoValue, trTeDataNoAddr, trTeDataAddrCompress 0 at reset */
    DEFINE_PROP_BOOL("data-no-value", RISCVTraceEncoder, reset_data_no_value,
                     false),
    DEFINE_PROP_BOOL("data-no-addr", RISCVTraceEncoder, reset_data_no_addr,
                     false),
    DEFINE_PROP_BOOL("data-full-addr", RISCVTraceEncoder,
                     reset_data_full_addr, false),
    /* trTeDataStallEna, trTeDataDropEna at reset */
    DEFINE_PROP_BOOL("data-stall", RISCVTraceEncoder, reset_data_stall,
                     false),
    DEFINE_PROP_BOOL("data-drop", RISCVTraceEncoder, reset_data_drop, false),
    /* te_data packets of split signalling: a load in two */
    DEFINE_PROP_BOOL("data-split", RISCVTraceEncoder, data_split, false),
    /* With "start": trTeInstStallEna from reset */
    DEFINE_PROP_BOOL("stall", RISCVTraceEncoder, reset_stall, false),
    DEFINE_PROP_BOOL("x-branch-map", RISCVTraceEncoder, branch_map, true),
    DEFINE_PROP_BOOL("x-discard", RISCVTraceEncoder, discard, false),
};

static void te_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    dc->realize = te_realize;
    dc->vmsd = &vmstate_te;
    dc->desc = "RISC-V E-Trace encoder";
    /* It registers with its hart's control-flow pipeline for good. */
    dc->user_creatable = false;
    device_class_set_props(dc, te_properties);
    rc->phases.enter = te_reset_enter;
    rc->phases.hold = te_reset_hold;
}

static const TypeInfo te_types[] = {
    {
        .name = TYPE_RISCV_TRACE_ENCODER,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RISCVTraceEncoder),
        .class_init = te_class_init,
    },
};

DEFINE_TYPES(te_types)
