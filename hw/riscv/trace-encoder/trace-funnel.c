/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V Trace Control Interface 1.0 trace funnel (component type 8).
 *
 * Merges the packets of its inputs into one stream for the sink or
 * funnel after it.  Inputs hand over whole packets, so the stream
 * interleaves them at packet boundaries; the srcID of each packet says
 * which encoder made it.  The funnel holds nothing back: it is always
 * empty, and refuses packets when it is disabled or when the component
 * after it refuses them.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "hw/sysbus.h"
#include "hw/registerfields.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "hw/riscv/trace-component.h"
#include "trace.h"

OBJECT_DECLARE_SIMPLE_TYPE(RISCVTraceFunnel, RISCV_TRACE_FUNNEL)

REG32(FUNNEL_CONTROL, 0x000)
    FIELD(FUNNEL_CONTROL, ACTIVE, 0, 1)
    FIELD(FUNNEL_CONTROL, ENABLE, 1, 1)
    FIELD(FUNNEL_CONTROL, EMPTY, 3, 1)
REG32(FUNNEL_IMPL, 0x004)
REG32(FUNNEL_DIS_INPUT, 0x008)

struct RISCVTraceFunnel {
    SysBusDevice parent_obj;

    MemoryRegion mmio;
    Object *sink;
    uint32_t sink_input;
    uint32_t num_inputs;
    bool start;

    uint32_t control;
    uint32_t dis_input;
    /*
     * Senders waiting for room, told when the funnel is written or when
     * the sink it feeds tells it (@down, registered there while waiting).
     */
    NotifierList room_waiters;
    Notifier down;
    bool down_waiting;
};

static bool funnel_push(Object *obj, unsigned input, const uint8_t *buf,
                        size_t len, bool single)
{
    RISCVTraceFunnel *s = RISCV_TRACE_FUNNEL(obj);

    if (!FIELD_EX32(s->control, FUNNEL_CONTROL, ACTIVE) ||
        !FIELD_EX32(s->control, FUNNEL_CONTROL, ENABLE) ||
        input >= s->num_inputs) {
        return false;
    }
    if (s->dis_input & BIT(input)) {
        /* A disabled input is read, and what it sends discarded. */
        return true;
    }
    return riscv_trace_sink_push(s->sink, s->sink_input, buf, len, single);
}

static void funnel_wait_room(Object *obj, Notifier *n)
{
    RISCVTraceFunnel *s = RISCV_TRACE_FUNNEL(obj);

    notifier_list_add(&s->room_waiters, n);
    if (!s->down_waiting) {
        s->down_waiting = true;
        riscv_trace_sink_wait_room(s->sink, &s->down);
    }
}

static void funnel_down_room(Notifier *n, void *data)
{
    RISCVTraceFunnel *s = container_of(n, RISCVTraceFunnel, down);

    s->down_waiting = false;
    riscv_trace_room_notify(&s->room_waiters);
}

static uint64_t funnel_read(void *opaque, hwaddr addr, unsigned size)
{
    RISCVTraceFunnel *s = opaque;
    uint32_t val = 0;

    switch (addr) {
    case A_FUNNEL_CONTROL:
        val = s->control | R_FUNNEL_CONTROL_EMPTY_MASK;
        break;
    case A_FUNNEL_IMPL:
        val = 1 | RISCV_TRACE_COMP_FUNNEL << 8;     /* version 1.0 */
        break;
    case A_FUNNEL_DIS_INPUT:
        val = s->dis_input;
        break;
    }
    trace_riscv_trace_funnel_read(addr, val);
    return val;
}

static void funnel_write(void *opaque, hwaddr addr, uint64_t val64,
                         unsigned size)
{
    RISCVTraceFunnel *s = opaque;
    uint32_t val = val64;

    trace_riscv_trace_funnel_write(addr, val);
    switch (addr) {
    case A_FUNNEL_CONTROL:
        if (!FIELD_EX32(val, FUNNEL_CONTROL, ACTIVE)) {
            s->control = 0;
        } else if (!FIELD_EX32(s->control, FUNNEL_CONTROL, ACTIVE)) {
            s->control = R_FUNNEL_CONTROL_ACTIVE_MASK;
        } else {
            s->control = val & (R_FUNNEL_CONTROL_ACTIVE_MASK |
                                R_FUNNEL_CONTROL_ENABLE_MASK);
        }
        break;
    case A_FUNNEL_DIS_INPUT:
        s->dis_input = val & MAKE_64BIT_MASK(0, s->num_inputs);
        break;
    case A_FUNNEL_IMPL:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: trFunnelImpl is read-only\n",
                      __func__);
        return;
    }
    riscv_trace_room_notify(&s->room_waiters);
}

static const MemoryRegionOps funnel_ops = {
    .read = funnel_read,
    .write = funnel_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static void funnel_reset_hold(Object *obj, ResetType type)
{
    RISCVTraceFunnel *s = RISCV_TRACE_FUNNEL(obj);

    s->control = s->start ? R_FUNNEL_CONTROL_ACTIVE_MASK |
                            R_FUNNEL_CONTROL_ENABLE_MASK : 0;
    s->dis_input = 0;
    riscv_trace_room_notify(&s->room_waiters);
}

static void funnel_realize(DeviceState *dev, Error **errp)
{
    RISCVTraceFunnel *s = RISCV_TRACE_FUNNEL(dev);

    if (!s->sink) {
        error_setg(errp, "the funnel needs a sink");
        return;
    }
    if (s->num_inputs < 1 || s->num_inputs > RISCV_TRACE_FUNNEL_MAX_INPUTS) {
        error_setg(errp, "num-inputs must be between 1 and %d",
                   RISCV_TRACE_FUNNEL_MAX_INPUTS);
        return;
    }
    notifier_list_init(&s->room_waiters);
    s->down.notify = funnel_down_room;
    memory_region_init_io(&s->mmio, OBJECT(s), &funnel_ops, s,
                          TYPE_RISCV_TRACE_FUNNEL,
                          RISCV_TRACE_COMPONENT_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(s), &s->mmio);
}

static const VMStateDescription vmstate_funnel = {
    .name = TYPE_RISCV_TRACE_FUNNEL,
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(control, RISCVTraceFunnel),
        VMSTATE_UINT32(dis_input, RISCVTraceFunnel),
        VMSTATE_END_OF_LIST()
    }
};

static const Property funnel_properties[] = {
    DEFINE_PROP_LINK("sink", RISCVTraceFunnel, sink, TYPE_RISCV_TRACE_SINK,
                     Object *),
    DEFINE_PROP_UINT32("sink-input", RISCVTraceFunnel, sink_input, 0),
    DEFINE_PROP_UINT32("num-inputs", RISCVTraceFunnel, num_inputs, 1),
    DEFINE_PROP_BOOL("start", RISCVTraceFunnel, start, false),
};

static void funnel_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    RISCVTraceSinkClass *sc = RISCV_TRACE_SINK_CLASS(klass);

    dc->realize = funnel_realize;
    dc->vmsd = &vmstate_funnel;
    dc->desc = "RISC-V trace funnel";
    device_class_set_props(dc, funnel_properties);
    rc->phases.hold = funnel_reset_hold;
    sc->push = funnel_push;
    sc->wait_room = funnel_wait_room;
}

static const TypeInfo funnel_types[] = {
    {
        .name = TYPE_RISCV_TRACE_FUNNEL,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RISCVTraceFunnel),
        .class_init = funnel_class_init,
        .interfaces = (const InterfaceInfo[]) {
            { TYPE_RISCV_TRACE_SINK },
            { }
        },
    },
};

DEFINE_TYPES(funnel_types)
