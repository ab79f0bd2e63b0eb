/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V Trace Control Interface 1.0 components: the trace encoder of a
 * hart (component type 1), the trace funnel (8) and the PIB sink (0xA).
 *
 * Each component is a 4 KiB block of 32-bit registers.  Encoders send
 * whole Encapsulation 1.0 packets to a funnel or a sink through the
 * RISCVTraceSink interface; see docs/specs/riscv-trace.rst.
 */
#ifndef HW_RISCV_TRACE_COMPONENT_H
#define HW_RISCV_TRACE_COMPONENT_H

#include "qom/object.h"

#define RISCV_TRACE_COMPONENT_SIZE  0x1000

/* tr??Impl.CompType */
#define RISCV_TRACE_COMP_ENCODER    0x1
#define RISCV_TRACE_COMP_FUNNEL     0x8
#define RISCV_TRACE_COMP_RAMSINK    0x9
#define RISCV_TRACE_COMP_PIBSINK    0xa

/* The most inputs a funnel has (trFunnelDisInput is 16 bits). */
#define RISCV_TRACE_FUNNEL_MAX_INPUTS   16

#define TYPE_RISCV_TRACE_ENCODER    "riscv-trace-encoder"
#define TYPE_RISCV_TRACE_FUNNEL     "riscv-trace-funnel"
#define TYPE_RISCV_TRACE_PIB_SINK   "riscv-trace-pib-sink"

/* What a funnel or sink offers the component that feeds it. */
#define TYPE_RISCV_TRACE_SINK       "riscv-trace-sink"

typedef struct RISCVTraceSinkClass RISCVTraceSinkClass;
DECLARE_CLASS_CHECKERS(RISCVTraceSinkClass, RISCV_TRACE_SINK,
                       TYPE_RISCV_TRACE_SINK)

/**
 * RISCVTraceSinkClass:
 * @push: take @len bytes of whole packets from input @input; returns
 *        false, taking none of them, when they cannot be accepted now
 *        (disabled, or no room); with @stall, waits for room instead
 */
struct RISCVTraceSinkClass {
    InterfaceClass parent_class;

    bool (*push)(Object *sink, unsigned input, const uint8_t *buf,
                 size_t len, bool stall);
};

/**
 * riscv_trace_sink_push: hand packets to the next component
 * @sink: an object implementing TYPE_RISCV_TRACE_SINK
 * @input: which of its inputs
 * @buf: whole encapsulated packets
 * @len: their total length
 * @stall: wait for room rather than refuse
 *
 * Called with the BQL held.  Returns whether the packets were taken.
 */
bool riscv_trace_sink_push(Object *sink, unsigned input, const uint8_t *buf,
                           size_t len, bool stall);

#endif
