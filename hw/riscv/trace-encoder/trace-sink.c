/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V trace components: the interface between a trace source and the
 * funnel or sink it feeds.
 */

#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "hw/riscv/trace-component.h"

bool riscv_trace_sink_push(Object *sink, unsigned input, const uint8_t *buf,
                           size_t len, bool single)
{
    RISCVTraceSinkClass *sc = RISCV_TRACE_SINK_GET_CLASS(sink);

    assert(bql_locked());
    return sc->push(sink, input, buf, len, single);
}

static const TypeInfo riscv_trace_sink_info = {
    .name = TYPE_RISCV_TRACE_SINK,
    .parent = TYPE_INTERFACE,
    .class_size = sizeof(RISCVTraceSinkClass),
};

static void riscv_trace_sink_register_types(void)
{
    type_register_static(&riscv_trace_sink_info);
}

type_init(riscv_trace_sink_register_types)
