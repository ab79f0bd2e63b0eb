/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V trace components of a board: one encoder per hart, a tree of
 * funnels of at most RISCV_TRACE_FUNNEL_PORTS inputs each, and a PIB sink
 * or a RAM sink, or a RAM sink per encoder, with their device tree nodes.
 *
 * Funnel i takes the encoders of harts 8i..8i+7; when there are several
 * such funnels, further funnels take up to eight of them each, until one
 * funnel feeds the PIB sink.  Funnel slots are numbered in that order.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "hw/boards.h"
#include "hw/sysbus.h"
#include "hw/qdev-properties.h"
#include "chardev/char.h"
#include "system/device_tree.h"
#include "target/riscv/cpu.h"
#include "hw/riscv/trace-component.h"

/* The device tree binding numbers ports 0 to 7. */
#define RISCV_TRACE_FUNNEL_PORTS    8

typedef struct TraceTopology {
    unsigned nfunnels;
    /* Where the output of funnel i goes: funnel index, or -1 for the sink */
    int *out_funnel;
    unsigned *out_port;
    unsigned *inputs;
} TraceTopology;

static void topology_free(TraceTopology *t)
{
    g_free(t->out_funnel);
    g_free(t->out_port);
    g_free(t->inputs);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(TraceTopology, topology_free)

static unsigned funnels_for(unsigned n)
{
    return DIV_ROUND_UP(n, RISCV_TRACE_FUNNEL_PORTS);
}

static void topology_init(TraceTopology *t, unsigned harts)
{
    unsigned level_start = 0, level_count = funnels_for(harts), total = 0;
    unsigned n, i;

    for (n = level_count; ; n = funnels_for(n)) {
        total += n;
        if (n == 1) {
            break;
        }
    }
    t->nfunnels = total;
    t->out_funnel = g_new(int, total);
    t->out_port = g_new0(unsigned, total);
    t->inputs = g_new(unsigned, total);
    for (i = 0; i < level_count; i++) {
        t->inputs[i] = MIN(RISCV_TRACE_FUNNEL_PORTS,
                           harts - i * RISCV_TRACE_FUNNEL_PORTS);
    }
    while (level_count > 1) {
        unsigned next_start = level_start + level_count;
        unsigned next_count = funnels_for(level_count);

        for (i = 0; i < level_count; i++) {
            t->out_funnel[level_start + i] =
                next_start + i / RISCV_TRACE_FUNNEL_PORTS;
            t->out_port[level_start + i] = i % RISCV_TRACE_FUNNEL_PORTS;
        }
        for (i = 0; i < next_count; i++) {
            t->inputs[next_start + i] =
                MIN(RISCV_TRACE_FUNNEL_PORTS,
                    level_count - i * RISCV_TRACE_FUNNEL_PORTS);
        }
        level_start = next_start;
        level_count = next_count;
    }
    t->out_funnel[level_start] = -1;
}

bool riscv_trace_system_check(unsigned harts, unsigned funnel_slots,
                              Error **errp)
{
    g_auto(TraceTopology) t = { 0 };

    topology_init(&t, harts);
    if (t.nfunnels > funnel_slots) {
        error_setg(errp, "trace: %u harts need %u trace funnels, the machine "
                   "has slots for %u", harts, t.nfunnels, funnel_slots);
        return false;
    }
    return true;
}

static DeviceState *ram_sink_create(hwaddr base, Error **errp)
{
    DeviceState *ram = qdev_new(TYPE_RISCV_TRACE_RAM_SINK);

    if (!sysbus_realize_and_unref(SYS_BUS_DEVICE(ram), errp)) {
        return NULL;
    }
    sysbus_mmio_map(SYS_BUS_DEVICE(ram), 0, base);
    return ram;
}

static bool encoder_create(const RISCVTraceSystem *ts, unsigned i,
                           Object *sink, unsigned input, Object *code,
                           Error **errp)
{
    DeviceState *e = qdev_new(TYPE_RISCV_TRACE_ENCODER);
    bool funnelled = ts->sinks != RISCV_TRACE_SINKS_RAM;

    object_property_set_link(OBJECT(e), "cpu", OBJECT(qemu_get_cpu(i)),
                             &error_abort);
    object_property_set_link(OBJECT(e), "sink", sink, &error_abort);
    if (code) {
        object_property_set_link(OBJECT(e), "code", code, &error_abort);
    }
    qdev_prop_set_uint32(e, "sink-input", input);
    /* A srcID (the hart) only where several encoders share a sink. */
    if (funnelled && ts->harts > 1) {
        qdev_prop_set_uint32(e, "srcid", i);
        qdev_prop_set_uint8(e, "srcid-bits", 8);
    }
    qdev_prop_set_bit(e, "start", ts->start);
    if (!sysbus_realize_and_unref(SYS_BUS_DEVICE(e), errp)) {
        return false;
    }
    sysbus_mmio_map(SYS_BUS_DEVICE(e), 0,
                    ts->encoder_base + i * RISCV_TRACE_COMPONENT_SIZE);
    return true;
}

/* The code side stream's writer, on @chr. */
static Object *code_create(Chardev *chr, Error **errp)
{
    DeviceState *c = qdev_new(TYPE_RISCV_TRACE_CODE);

    if (!object_property_set_str(OBJECT(c), "chardev", chr->label, errp)) {
        object_unref(OBJECT(c));
        return NULL;
    }
    return qdev_realize_and_unref(c, NULL, errp) ? OBJECT(c) : NULL;
}

bool riscv_trace_system_create(const RISCVTraceSystem *ts, Error **errp)
{
    unsigned harts = ts->harts;
    g_auto(TraceTopology) t = { 0 };
    g_autofree Object **funnels = NULL;
    Object *code = NULL;
    DeviceState *last;
    int i;

    if (ts->code_chr) {
        code = code_create(ts->code_chr, errp);
        if (!code) {
            return false;
        }
    }
    if (ts->sinks == RISCV_TRACE_SINKS_RAM) {
        for (i = 0; i < harts; i++) {
            DeviceState *ram = ram_sink_create(ts->ram_base +
                                               i * ts->ram_stride, errp);

            if (!ram || !encoder_create(ts, i, OBJECT(ram), 0, code, errp)) {
                return false;
            }
        }
        return true;
    }

    if (!riscv_trace_system_check(harts, ts->funnel_slots, errp)) {
        return false;
    }
    topology_init(&t, harts);

    if (ts->sinks == RISCV_TRACE_SINKS_FUNNEL_RAM) {
        last = ram_sink_create(ts->ram_base, errp);
        if (!last) {
            return false;
        }
    } else {
        last = qdev_new(TYPE_RISCV_TRACE_PIB_SINK);
        /* Fails if the chardev has a frontend already (-serial on it). */
        if (ts->chr &&
            !object_property_set_str(OBJECT(last), "chardev", ts->chr->label,
                                     errp)) {
            object_unref(OBJECT(last));
            return false;
        }
        qdev_prop_set_bit(last, "start", ts->start);
        if (!sysbus_realize_and_unref(SYS_BUS_DEVICE(last), errp)) {
            return false;
        }
        sysbus_mmio_map(SYS_BUS_DEVICE(last), 0, ts->pib_base);
    }

    /* From the funnel next to the sink down to those of the encoders. */
    funnels = g_new0(Object *, t.nfunnels);
    for (i = t.nfunnels - 1; i >= 0; i--) {
        DeviceState *f = qdev_new(TYPE_RISCV_TRACE_FUNNEL);
        Object *sink = t.out_funnel[i] < 0 ? OBJECT(last)
                                           : funnels[t.out_funnel[i]];

        object_property_set_link(OBJECT(f), "sink", sink, &error_abort);
        qdev_prop_set_uint32(f, "sink-input", t.out_port[i]);
        qdev_prop_set_uint32(f, "num-inputs", t.inputs[i]);
        qdev_prop_set_bit(f, "start", ts->start);
        if (!sysbus_realize_and_unref(SYS_BUS_DEVICE(f), errp)) {
            return false;
        }
        sysbus_mmio_map(SYS_BUS_DEVICE(f), 0,
                        ts->funnel_base + i * RISCV_TRACE_COMPONENT_SIZE);
        funnels[i] = OBJECT(f);
    }

    for (i = 0; i < harts; i++) {
        if (!encoder_create(ts, i, funnels[i / RISCV_TRACE_FUNNEL_PORTS],
                            i % RISCV_TRACE_FUNNEL_PORTS, code, errp)) {
            return false;
        }
    }
    return true;
}

static char *component_path(hwaddr base)
{
    return g_strdup_printf("/soc/trace@%" HWADDR_PRIx, base);
}

static char *fdt_component(void *fdt, hwaddr base)
{
    char *name = component_path(base);
    static const char compat[] =
        "qemu,trace-component\0riscv,trace-component";

    qemu_fdt_add_subnode(fdt, name);
    qemu_fdt_setprop(fdt, name, "compatible", compat, sizeof(compat));
    qemu_fdt_setprop_sized_cells(fdt, name, "reg", 2, base,
                                 2, RISCV_TRACE_COMPONENT_SIZE);
    return name;
}

/* An endpoint of @node's @ports; @port < 0 for a single "port" node. */
static void fdt_endpoint(void *fdt, const char *node, const char *ports,
                         int port, uint32_t phandle, uint32_t remote)
{
    g_autofree char *ports_name = g_strdup_printf("%s/%s", node, ports);
    g_autofree char *port_name = NULL;
    g_autofree char *ep_name = NULL;

    if (port < 0) {
        port_name = g_strdup_printf("%s/port", ports_name);
    } else {
        port_name = g_strdup_printf("%s/port@%d", ports_name, port);
    }
    ep_name = g_strdup_printf("%s/endpoint", port_name);
    qemu_fdt_add_path(fdt, ep_name);
    if (port >= 0) {
        qemu_fdt_setprop_cell(fdt, ports_name, "#address-cells", 1);
        qemu_fdt_setprop_cell(fdt, ports_name, "#size-cells", 0);
        qemu_fdt_setprop_cell(fdt, port_name, "reg", port);
    }
    qemu_fdt_setprop_cell(fdt, ep_name, "phandle", phandle);
    qemu_fdt_setprop_cell(fdt, ep_name, "remote-endpoint", remote);
}

/* Connect the output of @from to input @port of @to (-1: its only one). */
static void fdt_connect(void *fdt, const char *from, const char *to,
                        int port)
{
    uint32_t out = qemu_fdt_alloc_phandle(fdt);
    uint32_t in = qemu_fdt_alloc_phandle(fdt);

    fdt_endpoint(fdt, from, "out-ports", -1, out, in);
    fdt_endpoint(fdt, to, "in-ports", port, in, out);
}

/* The encoder of hart @i, connected to input @port of @to. */
static void fdt_encoder(const RISCVTraceSystem *ts, void *fdt, unsigned i,
                        const char *to, int port)
{
    RISCVCPU *cpu = RISCV_CPU(qemu_get_cpu(i));
    g_autofree char *cpu_name =
        g_strdup_printf("/cpus/cpu@%" PRIu64, cpu->env.mhartid);
    g_autofree char *name =
        fdt_component(fdt, ts->encoder_base + i * RISCV_TRACE_COMPONENT_SIZE);

    qemu_fdt_setprop_cell(fdt, name, "cpus",
                          qemu_fdt_get_phandle(fdt, cpu_name));
    fdt_connect(fdt, name, to, port);
}

void riscv_trace_system_fdt(const RISCVTraceSystem *ts, void *fdt)
{
    g_auto(TraceTopology) t = { 0 };
    g_autofree char *sink = NULL;
    unsigned i;

    if (ts->sinks == RISCV_TRACE_SINKS_RAM) {
        for (i = 0; i < ts->harts; i++) {
            g_autofree char *ram =
                fdt_component(fdt, ts->ram_base + i * ts->ram_stride);

            fdt_encoder(ts, fdt, i, ram, -1);
        }
        return;
    }

    topology_init(&t, ts->harts);
    for (i = 0; i < t.nfunnels; i++) {
        g_free(fdt_component(fdt, ts->funnel_base +
                             i * RISCV_TRACE_COMPONENT_SIZE));
    }
    sink = fdt_component(fdt, ts->sinks == RISCV_TRACE_SINKS_FUNNEL_RAM ?
                             ts->ram_base : ts->pib_base);

    for (i = 0; i < ts->harts; i++) {
        g_autofree char *funnel =
            component_path(ts->funnel_base + i / RISCV_TRACE_FUNNEL_PORTS *
                           RISCV_TRACE_COMPONENT_SIZE);

        fdt_encoder(ts, fdt, i, funnel, i % RISCV_TRACE_FUNNEL_PORTS);
    }

    for (i = 0; i < t.nfunnels; i++) {
        g_autofree char *name =
            component_path(ts->funnel_base + i * RISCV_TRACE_COMPONENT_SIZE);
        g_autofree char *next = NULL;

        if (t.out_funnel[i] < 0) {
            fdt_connect(fdt, name, sink, -1);
            continue;
        }
        next = component_path(ts->funnel_base +
                              t.out_funnel[i] * RISCV_TRACE_COMPONENT_SIZE);
        fdt_connect(fdt, name, next, t.out_port[i]);
    }
}
