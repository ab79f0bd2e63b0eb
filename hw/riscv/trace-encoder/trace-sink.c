/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V trace components: the interface between a trace source and the
 * funnel or sink it feeds.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "hw/qdev-core.h"
#include "hw/riscv/trace-component.h"

bool riscv_trace_sink_push(Object *sink, unsigned input, const uint8_t *buf,
                           size_t len, bool single)
{
    RISCVTraceSinkClass *sc = RISCV_TRACE_SINK_GET_CLASS(sink);
    MemReentrancyGuard *guard = &DEVICE(sink)->mem_reentrancy_guard;
    bool taken;

    assert(bql_locked());
    /*
     * A component taking packets is in DMA: its registers are not
     * reachable from the memory it writes (a RAM sink's buffer over its
     * own registers, or a funnel's), and a push that comes back to it
     * while it is in an access of its own is refused, like a full sink.
     */
    if (guard->engaged_in_io) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: packets refused: the "
                      "component is in an access already\n",
                      object_get_typename(sink));
        return false;
    }
    guard->engaged_in_io = true;
    taken = sc->push(sink, input, buf, len, single);
    guard->engaged_in_io = false;
    return taken;
}

void riscv_trace_sink_wait_room(Object *sink, Notifier *n)
{
    RISCVTraceSinkClass *sc = RISCV_TRACE_SINK_GET_CLASS(sink);

    assert(bql_locked());
    sc->wait_room(sink, n);
}

void riscv_trace_room_notify(NotifierList *waiters)
{
    Notifier *n, *next;

    assert(bql_locked());
    QLIST_FOREACH_SAFE(n, &waiters->notifiers, node, next) {
        notifier_remove(n);
        n->notify(n, NULL);
    }
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
