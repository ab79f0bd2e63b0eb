/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V Trace Control Interface 1.0 PIB sink (component type 0xA).
 *
 * The pins of the Pin Interface Block are a QEMU chardev: the bytes of
 * the packets it takes go out in order, with Encapsulation 1.0
 * synchronisation sequences (trPibAsyncFreq) so that a reader can join
 * the stream late.  A chardev that cannot take the bytes at once never
 * blocks the guest: they wait in a FIFO, and packets that do not fit in
 * it are refused, which the encoder reports as lost trace, or waits for
 * room with the hart stopped (trTeInstStallEna).  With no chardev, or no
 * one connected to it, the bytes go nowhere, as on pins with no probe
 * attached.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/sysbus.h"
#include "hw/registerfields.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "chardev/char-fe.h"
#include "migration/vmstate.h"
#include "system/runstate.h"
#include "hw/riscv/etrace.h"
#include "hw/riscv/trace-component.h"
#include "trace.h"

OBJECT_DECLARE_SIMPLE_TYPE(RISCVTracePibSink, RISCV_TRACE_PIB_SINK)

REG32(PIB_CONTROL, 0x000)
    FIELD(PIB_CONTROL, ACTIVE, 0, 1)
    FIELD(PIB_CONTROL, ENABLE, 1, 1)
    FIELD(PIB_CONTROL, EMPTY, 3, 1)
    FIELD(PIB_CONTROL, MODE, 4, 4)
    FIELD(PIB_CONTROL, CLK_CENTER, 8, 1)
    FIELD(PIB_CONTROL, CALIBRATE, 9, 1)
    FIELD(PIB_CONTROL, ASYNC_FREQ, 12, 3)
    FIELD(PIB_CONTROL, DIVIDER, 16, 16)
REG32(PIB_IMPL, 0x004)

/* trPibMode values: off, SWT Manchester and UART, parallel 1-16 bits. */
#define PIB_MODE_OFF            0
#define PIB_MODE_PARALLEL_4     10

/* Set when released from reset. */
#define PIB_CONTROL_DEFAULT \
    (R_PIB_CONTROL_ACTIVE_MASK | \
     (PIB_MODE_PARALLEL_4 << R_PIB_CONTROL_MODE_SHIFT) | \
     (3 << R_PIB_CONTROL_ASYNC_FREQ_SHIFT))

/*
 * A synchronisation sequence: N = 31 + T + S null.idle bytes then a
 * null.alignment byte, with S = 2 for the widest srcID (16 bits) any
 * encoder feeding the sink can use.
 */
#define PIB_SYNC_LEN            RISCV_TRACE_SYNC_LEN
/* How long QEMU, quitting, waits for a reader to take what is queued. */
#define PIB_QUIT_WAIT_MS        1000

struct RISCVTracePibSink {
    SysBusDevice parent_obj;

    MemoryRegion mmio;
    CharFrontend chr;
    uint32_t fifo_size;
    bool start;

    uint32_t control;
    /* Bytes taken but not yet written to the chardev. */
    uint8_t *fifo;
    uint32_t fifo_len;
    /* Bytes written since the last synchronisation sequence. */
    uint32_t since_sync;
    bool need_sync;
    guint watch;
    /* Senders waiting for room (riscv_trace_sink_wait_room()). */
    NotifierList room_waiters;
};

static bool pib_enabled(RISCVTracePibSink *s)
{
    return FIELD_EX32(s->control, PIB_CONTROL, ACTIVE) &&
           FIELD_EX32(s->control, PIB_CONTROL, ENABLE);
}

/* Bytes between synchronisation sequences, 0 for none. */
static uint32_t pib_sync_interval(RISCVTracePibSink *s)
{
    unsigned freq = FIELD_EX32(s->control, PIB_CONTROL, ASYNC_FREQ);

    return freq ? 1u << (freq + 9) : 0;
}

static gboolean pib_transmit(void *do_not_use, GIOCondition cond,
                             void *opaque);

static void pib_cancel_transmit(RISCVTracePibSink *s)
{
    if (s->watch) {
        g_source_remove(s->watch);
        s->watch = 0;
    }
}

/* Write what the chardev takes now; wait for it to take the rest. */
static void pib_kick(RISCVTracePibSink *s)
{
    int ret;

    if (s->watch || !s->fifo_len) {
        return;
    }
    ret = qemu_chr_fe_write(&s->chr, s->fifo, s->fifo_len);
    if (ret > 0) {
        memmove(s->fifo, s->fifo + ret, s->fifo_len - ret);
        s->fifo_len -= ret;
    }
    if (s->fifo_len) {
        s->watch = qemu_chr_fe_add_watch(&s->chr, G_IO_OUT | G_IO_HUP,
                                         pib_transmit, s);
        if (!s->watch) {
            /* No chardev, or nothing connected: the bytes go nowhere. */
            trace_riscv_trace_pib_discard(s->fifo_len);
            s->fifo_len = 0;
        }
    }
    if (ret > 0 || !s->fifo_len) {
        riscv_trace_room_notify(&s->room_waiters);
    }
}

static void pib_wait_room(Object *obj, Notifier *n)
{
    RISCVTracePibSink *s = RISCV_TRACE_PIB_SINK(obj);

    notifier_list_add(&s->room_waiters, n);
}

static gboolean pib_transmit(void *do_not_use, GIOCondition cond,
                             void *opaque)
{
    RISCVTracePibSink *s = opaque;

    s->watch = 0;
    pib_kick(s);
    return G_SOURCE_REMOVE;
}

static void pib_put(RISCVTracePibSink *s, const uint8_t *buf, size_t len)
{
    memcpy(s->fifo + s->fifo_len, buf, len);
    s->fifo_len += len;
}

static bool pib_push(Object *obj, unsigned input, const uint8_t *buf,
                     size_t len, bool single)
{
    RISCVTracePibSink *s = RISCV_TRACE_PIB_SINK(obj);
    uint32_t interval = pib_sync_interval(s);
    uint8_t sync[PIB_SYNC_LEN];
    bool with_sync;
    size_t need;

    if (!pib_enabled(s) ||
        FIELD_EX32(s->control, PIB_CONTROL, MODE) == PIB_MODE_OFF) {
        return false;
    }
    with_sync = interval && (s->need_sync || s->since_sync >= interval);
    need = len + (with_sync ? PIB_SYNC_LEN : 0);
    if (s->fifo_len + need > s->fifo_size) {
        /* Let the chardev take what it can, then look again. */
        pib_kick(s);
        if (s->fifo_len + need > s->fifo_size) {
            trace_riscv_trace_pib_full(len, s->fifo_len);
            return false;
        }
    }
    if (with_sync) {
        memset(sync, ETRACE_ENCAP_NULL_IDLE, sizeof(sync) - 1);
        sync[sizeof(sync) - 1] = ETRACE_ENCAP_NULL_ALIGN;
        pib_put(s, sync, sizeof(sync));
        s->since_sync = 0;
        s->need_sync = false;
    }
    pib_put(s, buf, len);
    s->since_sync += len;
    pib_kick(s);
    return true;
}

/*
 * The VM stops, after the encoders have handed on what they held: write
 * out what is queued, all of it when QEMU shuts down, but for a reader
 * that stopped reading: QEMU quits anyway after PIB_QUIT_WAIT_MS.
 */
static void pib_vm_state_change(void *opaque, bool running, RunState state)
{
    RISCVTracePibSink *s = opaque;

    if (running || !s->fifo_len) {
        return;
    }
    if (state == RUN_STATE_SHUTDOWN) {
        uint32_t done = 0;
        unsigned waited = 0;

        pib_cancel_transmit(s);
        while (done < s->fifo_len && waited < PIB_QUIT_WAIT_MS) {
            int r = qemu_chr_fe_write(&s->chr, s->fifo + done,
                                      s->fifo_len - done);

            if (r > 0) {
                done += r;
            } else if (r < 0 && errno != EAGAIN) {
                break;
            } else {
                g_usleep(1000);
                waited++;
            }
        }
        s->fifo_len = 0;
    } else {
        pib_kick(s);
    }
}

static void pib_reset_state(RISCVTracePibSink *s)
{
    pib_cancel_transmit(s);
    s->fifo_len = 0;
    s->since_sync = 0;
    s->need_sync = true;
}

static uint64_t pib_read(void *opaque, hwaddr addr, unsigned size)
{
    RISCVTracePibSink *s = opaque;
    uint32_t val = 0;

    switch (addr) {
    case A_PIB_CONTROL:
        val = FIELD_DP32(s->control, PIB_CONTROL, EMPTY, !s->fifo_len);
        break;
    case A_PIB_IMPL:
        val = 1 | RISCV_TRACE_COMP_PIBSINK << 8;    /* version 1.0 */
        break;
    }
    trace_riscv_trace_pib_read(addr, val);
    return val;
}

static void pib_write_control(RISCVTracePibSink *s, uint32_t val)
{
    uint32_t old = s->control;
    unsigned mode = FIELD_EX32(val, PIB_CONTROL, MODE);

    if (!FIELD_EX32(val, PIB_CONTROL, ACTIVE)) {
        /* Held in reset. */
        s->control = 0;
        pib_reset_state(s);
        return;
    }
    if (!FIELD_EX32(old, PIB_CONTROL, ACTIVE)) {
        /* Released from reset: every field takes its default. */
        s->control = PIB_CONTROL_DEFAULT;
        pib_reset_state(s);
        return;
    }

    /* WARL: mode off, SWT (4, 5) or parallel (8-12); else unchanged. */
    if (mode != 0 && mode != 4 && mode != 5 && (mode < 8 || mode > 12)) {
        mode = FIELD_EX32(old, PIB_CONTROL, MODE);
    }
    val = FIELD_DP32(val, PIB_CONTROL, MODE, mode);
    /* The clock centring exists in parallel modes; no calibration. */
    if (mode < 8) {
        val = FIELD_DP32(val, PIB_CONTROL, CLK_CENTER, 0);
    }
    val = FIELD_DP32(val, PIB_CONTROL, CALIBRATE, 0);
    val = FIELD_DP32(val, PIB_CONTROL, EMPTY, 0);
    val &= R_PIB_CONTROL_ACTIVE_MASK | R_PIB_CONTROL_ENABLE_MASK |
           R_PIB_CONTROL_MODE_MASK | R_PIB_CONTROL_CLK_CENTER_MASK |
           R_PIB_CONTROL_ASYNC_FREQ_MASK | R_PIB_CONTROL_DIVIDER_MASK;
    if (!FIELD_EX32(old, PIB_CONTROL, ENABLE) &&
        FIELD_EX32(val, PIB_CONTROL, ENABLE)) {
        /* A reader starts with a synchronisation sequence. */
        s->need_sync = true;
        s->since_sync = 0;
    }
    s->control = val;
}

static void pib_write(void *opaque, hwaddr addr, uint64_t val64,
                      unsigned size)
{
    RISCVTracePibSink *s = opaque;

    trace_riscv_trace_pib_write(addr, val64);
    switch (addr) {
    case A_PIB_CONTROL:
        pib_write_control(s, val64);
        riscv_trace_room_notify(&s->room_waiters);
        break;
    case A_PIB_IMPL:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: trPibImpl is read-only\n",
                      __func__);
        break;
    }
}

static const MemoryRegionOps pib_ops = {
    .read = pib_read,
    .write = pib_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static void pib_reset_hold(Object *obj, ResetType type)
{
    RISCVTracePibSink *s = RISCV_TRACE_PIB_SINK(obj);

    pib_reset_state(s);
    s->control = 0;
    if (s->start) {
        s->control = PIB_CONTROL_DEFAULT | R_PIB_CONTROL_ENABLE_MASK;
    }
    riscv_trace_room_notify(&s->room_waiters);
}

static void pib_realize(DeviceState *dev, Error **errp)
{
    RISCVTracePibSink *s = RISCV_TRACE_PIB_SINK(dev);

    if (s->fifo_size < ETRACE_ENCAP_MAX_BYTES + PIB_SYNC_LEN) {
        error_setg(errp, "fifo-size must be at least %d bytes",
                   ETRACE_ENCAP_MAX_BYTES + PIB_SYNC_LEN);
        return;
    }
    s->fifo = g_malloc(s->fifo_size);
    notifier_list_init(&s->room_waiters);
    memory_region_init_io(&s->mmio, OBJECT(s), &pib_ops, s,
                          TYPE_RISCV_TRACE_PIB_SINK,
                          RISCV_TRACE_COMPONENT_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(s), &s->mmio);
    qemu_add_vm_change_state_handler_prio(pib_vm_state_change, s,
                                          RISCV_TRACE_VMSTATE_PRIO_SINK);
}

static void pib_unrealize(DeviceState *dev)
{
    RISCVTracePibSink *s = RISCV_TRACE_PIB_SINK(dev);

    pib_cancel_transmit(s);
    g_free(s->fifo);
}

/* Checked before the FIFO's bytes are loaded into it. */
static bool pib_fifo_len_valid(void *opaque, int version_id)
{
    RISCVTracePibSink *s = opaque;

    return s->fifo_len <= s->fifo_size;
}

static int pib_post_load(void *opaque, int version_id)
{
    RISCVTracePibSink *s = opaque;

    pib_kick(s);
    return 0;
}

static const VMStateDescription vmstate_pib = {
    .name = TYPE_RISCV_TRACE_PIB_SINK,
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = pib_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(control, RISCVTracePibSink),
        VMSTATE_UINT32(fifo_len, RISCVTracePibSink),
        VMSTATE_VALIDATE("fifo_len <= fifo-size", pib_fifo_len_valid),
        VMSTATE_VBUFFER_UINT32(fifo, RISCVTracePibSink, 1, NULL, fifo_len),
        VMSTATE_UINT32(since_sync, RISCVTracePibSink),
        VMSTATE_BOOL(need_sync, RISCVTracePibSink),
        VMSTATE_END_OF_LIST()
    }
};

static const Property pib_properties[] = {
    DEFINE_PROP_CHR("chardev", RISCVTracePibSink, chr),
    DEFINE_PROP_UINT32("fifo-size", RISCVTracePibSink, fifo_size, 64 * KiB),
    DEFINE_PROP_BOOL("start", RISCVTracePibSink, start, false),
};

static void pib_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    RISCVTraceSinkClass *sc = RISCV_TRACE_SINK_CLASS(klass);

    dc->realize = pib_realize;
    dc->unrealize = pib_unrealize;
    dc->vmsd = &vmstate_pib;
    dc->desc = "RISC-V trace PIB sink";
    device_class_set_props(dc, pib_properties);
    rc->phases.hold = pib_reset_hold;
    sc->push = pib_push;
    sc->wait_room = pib_wait_room;
}

static const TypeInfo pib_types[] = {
    {
        .name = TYPE_RISCV_TRACE_PIB_SINK,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RISCVTracePibSink),
        .class_init = pib_class_init,
        .interfaces = (const InterfaceInfo[]) {
            { TYPE_RISCV_TRACE_SINK },
            { }
        },
    },
};

DEFINE_TYPES(pib_types)
