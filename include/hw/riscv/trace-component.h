/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V Trace Control Interface 1.0 components: the trace encoder of a
 * hart (component type 1), the trace funnel (8), the RAM sink (9) and
 * the PIB sink (0xA).
 *
 * Each component is a 4 KiB block of 32-bit registers.  Encoders send
 * whole Encapsulation 1.0 packets to a funnel or a sink through the
 * RISCVTraceSink interface; see docs/specs/riscv-trace.rst.
 */
#ifndef HW_RISCV_TRACE_COMPONENT_H
#define HW_RISCV_TRACE_COMPONENT_H

#include "qom/object.h"
#include "qemu/notify.h"
#include "exec/hwaddr.h"

#define RISCV_TRACE_COMPONENT_SIZE  0x1000

/* tr??Impl.CompType */
#define RISCV_TRACE_COMP_ENCODER    0x1
#define RISCV_TRACE_COMP_FUNNEL     0x8
#define RISCV_TRACE_COMP_RAMSINK    0x9
#define RISCV_TRACE_COMP_PIBSINK    0xa

/*
 * T, the width of the Encapsulation timestamp field in this trace system
 * (the encoders' trTsWidth is 48), and of the synchronisation sequences
 * the sinks write: 31 + T + S null.idle bytes for a srcID of up to 16
 * bits (S = 2), then a null.alignment.
 */
#define RISCV_TRACE_TIMESTAMP_BYTES 6
#define RISCV_TRACE_SYNC_LEN        (31 + RISCV_TRACE_TIMESTAMP_BYTES + 2 + 1)

/* The most inputs a funnel has (trFunnelDisInput is 16 bits). */
#define RISCV_TRACE_FUNNEL_MAX_INPUTS   16

#define TYPE_RISCV_TRACE_ENCODER    "riscv-trace-encoder"
#define TYPE_RISCV_TRACE_FUNNEL     "riscv-trace-funnel"
#define TYPE_RISCV_TRACE_PIB_SINK   "riscv-trace-pib-sink"
#define TYPE_RISCV_TRACE_RAM_SINK   "riscv-trace-ram-sink"

/* The code side stream (hw/riscv/trace-code.h), on a chardev. */
#define TYPE_RISCV_TRACE_CODE       "riscv-trace-code"
OBJECT_DECLARE_SIMPLE_TYPE(RISCVTraceCode, RISCV_TRACE_CODE)

/*
 * riscv_trace_code_write: write a record of the hart of index @hart,
 * whose encoder has srcID @src, with the BQL held; @data is the payload,
 * @len bytes.
 */
void riscv_trace_code_write(RISCVTraceCode *c, unsigned kind, unsigned priv,
                            unsigned src, unsigned hart, uint64_t pos,
                            uint32_t branches, const void *data,
                            uint32_t len);

/*
 * VM state change priorities: when the VM stops, encoders hand on their
 * packets before sinks write out theirs.
 */
#define RISCV_TRACE_VMSTATE_PRIO_SOURCE 1
#define RISCV_TRACE_VMSTATE_PRIO_SINK   0

/* What a funnel or sink offers the component that feeds it. */
#define TYPE_RISCV_TRACE_SINK       "riscv-trace-sink"

typedef struct RISCVTraceSinkClass RISCVTraceSinkClass;
DECLARE_CLASS_CHECKERS(RISCVTraceSinkClass, RISCV_TRACE_SINK,
                       TYPE_RISCV_TRACE_SINK)

/**
 * RISCVTraceSinkClass:
 * @push: take @len bytes of whole packets from input @input, one packet
 *        when @single (a sender offers refused packets again one at a
 *        time); returns false, taking none of them, when they cannot be
 *        accepted now (disabled, or no room)
 * @wait_room: call @n once, the next time the sink's state changes in a
 *        way that may let it accept packets again (bytes written out,
 *        a register written, a reset)
 */
struct RISCVTraceSinkClass {
    InterfaceClass parent_class;

    bool (*push)(Object *sink, unsigned input, const uint8_t *buf,
                 size_t len, bool single);
    void (*wait_room)(Object *sink, Notifier *n);
};

/**
 * riscv_trace_sink_push: hand packets to the next component
 * @sink: an object implementing TYPE_RISCV_TRACE_SINK
 * @input: which of its inputs
 * @buf: whole encapsulated packets
 * @len: their total length
 * @single: @buf is one packet
 *
 * Called with the BQL held.  Returns whether the packets were taken.
 * While @sink takes them it is in DMA (its MemReentrancyGuard is engaged):
 * what it writes cannot reach its own registers, and a push that reaches
 * it again from within (its DMA into a component that then pushes) is
 * refused.
 */
bool riscv_trace_sink_push(Object *sink, unsigned input, const uint8_t *buf,
                           size_t len, bool single);

/**
 * riscv_trace_sink_wait_room: be told when a refused push may succeed
 * @sink: an object implementing TYPE_RISCV_TRACE_SINK
 * @n: notified once, with the BQL held; notifier_remove() cancels it
 *
 * Called with the BQL held, so that no change between a refused push
 * and this call goes unnoticed.
 */
void riscv_trace_sink_wait_room(Object *sink, Notifier *n);

/**
 * riscv_trace_room_notify: a sink or funnel may take packets again
 * @waiters: the notifiers its wait_room added; each is removed, then
 *           notified
 */
void riscv_trace_room_notify(NotifierList *waiters);

/* Where the encoders' packets go. */
typedef enum RISCVTraceSinks {
    /* Encoders -> funnels -> the PIB sink on a chardev. */
    RISCV_TRACE_SINKS_PIB,
    /* Encoder of hart i -> RAM sink i. */
    RISCV_TRACE_SINKS_RAM,
    /* Encoders -> funnels -> one RAM sink. */
    RISCV_TRACE_SINKS_FUNNEL_RAM,
} RISCVTraceSinks;

/**
 * RISCVTraceSystem: the trace components of a board
 * @harts: number of harts, each with an encoder
 * @sinks: the topology
 * @encoder_base: the encoder of hart i is at encoder_base + 4 KiB * i
 * @funnel_base: funnels at funnel_base + 4 KiB * j
 * @funnel_slots: room for this many funnels
 * @pib_base: the PIB sink
 * @ram_base: RAM sink i is at ram_base + ram_stride * i
 * @ram_stride: distance between RAM sinks
 * @chr: the PIB sink's chardev, or NULL
 * @code_chr: the chardev of the code side stream, or NULL for none
 * @start: every component traces from reset (PIB sink only)
 */
typedef struct RISCVTraceSystem {
    unsigned harts;
    RISCVTraceSinks sinks;
    hwaddr encoder_base;
    hwaddr funnel_base;
    unsigned funnel_slots;
    hwaddr pib_base;
    hwaddr ram_base;
    hwaddr ram_stride;
    Chardev *chr;
    Chardev *code_chr;
    bool start;
} RISCVTraceSystem;

/* Whether @harts encoders fit the funnel slots. */
bool riscv_trace_system_check(unsigned harts, unsigned funnel_slots,
                              Error **errp);

/*
 * Create, realize and map the components; the harts exist already.
 * Returns false with @errp set when a component cannot be realized.
 */
bool riscv_trace_system_create(const RISCVTraceSystem *ts, Error **errp);

/* Their device tree nodes, after the cpu nodes. */
void riscv_trace_system_fdt(const RISCVTraceSystem *ts, void *fdt);

#endif
