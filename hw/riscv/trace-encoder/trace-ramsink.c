/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V Trace Control Interface 1.0 RAM sink (component type 9).
 *
 * SMEM mode writes the bytes of the packets it takes into a circular
 * buffer in guest memory, trRamStart to trRamLimit, through the
 * machine's address space as a DMA master would.  SRAM mode (with the
 * sram-size property) keeps them in memory of the sink's own, read back
 * through trRamRP and trRamData.  Memory is written a 32-bit word at a
 * time in LSB order: the bytes of a word not yet complete wait in the
 * sink (trRamEmpty reads 0) until more come or the sink is disabled,
 * which pads the word with null.idle bytes.  trRamWP is the address of
 * the next word; it goes back to trRamStart after the word at trRamLimit,
 * setting the wrap flag (bit 0 of trRamWPLow), or, with trRamStopOnWrap,
 * the sink keeps every whole packet that fits, then fills the rest of the
 * buffer with null.idle bytes, sets the wrap flag and disables itself,
 * refusing further packets (the encoder counts them lost, or stalls its
 * hart).
 *
 * Encapsulation synchronisation sequences (trRamAsyncFreq) let a reader
 * of a buffer that wrapped find the first whole packet.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/sysbus.h"
#include "hw/registerfields.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "system/address-spaces.h"
#include "system/dma.h"
#include "hw/riscv/etrace.h"
#include "hw/riscv/trace-component.h"
#include "trace.h"

OBJECT_DECLARE_SIMPLE_TYPE(RISCVTraceRamSink, RISCV_TRACE_RAM_SINK)

REG32(RAM_CONTROL, 0x000)
    FIELD(RAM_CONTROL, ACTIVE, 0, 1)
    FIELD(RAM_CONTROL, ENABLE, 1, 1)
    FIELD(RAM_CONTROL, EMPTY, 3, 1)
    FIELD(RAM_CONTROL, MODE, 4, 1)
    FIELD(RAM_CONTROL, STOP_ON_WRAP, 8, 1)
    FIELD(RAM_CONTROL, MEM_FORMAT, 9, 2)
    FIELD(RAM_CONTROL, ASYNC_FREQ, 12, 3)
REG32(RAM_IMPL, 0x004)
    FIELD(RAM_IMPL, HAS_SRAM, 12, 1)
    FIELD(RAM_IMPL, HAS_SMEM, 13, 1)
REG32(RAM_START_LOW, 0x010)
REG32(RAM_START_HIGH, 0x014)
REG32(RAM_LIMIT_LOW, 0x018)
REG32(RAM_LIMIT_HIGH, 0x01c)
REG32(RAM_WP_LOW, 0x020)
    FIELD(RAM_WP_LOW, WRAP, 0, 1)
REG32(RAM_WP_HIGH, 0x024)
REG32(RAM_RP_LOW, 0x028)
REG32(RAM_RP_HIGH, 0x02c)
REG32(RAM_DATA, 0x040)

#define RAM_MODE_SRAM           0
#define RAM_MODE_SMEM           1

/* Default trRamAsyncFreq: a synchronisation sequence every 4 KiB. */
#define RAM_ASYNC_FREQ_DEFAULT  3

/* As for the PIB sink: 31 + T + 2 null.idle bytes, a null.alignment. */
#define RAM_SYNC_LEN            RISCV_TRACE_SYNC_LEN

struct RISCVTraceRamSink {
    SysBusDevice parent_obj;

    MemoryRegion mmio;
    MemoryRegion *dma_mr;
    AddressSpace dma_as;
    uint32_t sram_size;
    bool has_smem;
    uint8_t addr_bits;

    uint32_t control;
    uint64_t start;
    uint64_t limit;
    uint64_t wp;                /* without the wrap flag */
    bool wrap;
    uint64_t rp;
    uint8_t *sram;
    /* The bytes of the word not yet written. */
    uint8_t word[4];
    uint8_t word_len;
    uint32_t since_sync;
    bool need_sync;
    /* Senders waiting for room (riscv_trace_sink_wait_room()). */
    NotifierList room_waiters;
};

static bool ram_enabled(RISCVTraceRamSink *s)
{
    return FIELD_EX32(s->control, RAM_CONTROL, ACTIVE) &&
           FIELD_EX32(s->control, RAM_CONTROL, ENABLE);
}

static bool ram_smem(RISCVTraceRamSink *s)
{
    return FIELD_EX32(s->control, RAM_CONTROL, MODE) == RAM_MODE_SMEM;
}

/* The bits of an address register: word aligned, in the mode's range. */
static uint64_t ram_addr_mask(RISCVTraceRamSink *s)
{
    if (ram_smem(s)) {
        return MAKE_64BIT_MASK(2, s->addr_bits - 2);
    }
    return s->sram_size ? (s->sram_size - 1) & ~(uint64_t)3 : 0;
}

/* Bytes between synchronisation sequences, 0 for none. */
static uint32_t ram_sync_interval(RISCVTraceRamSink *s)
{
    unsigned freq = FIELD_EX32(s->control, RAM_CONTROL, ASYNC_FREQ);

    return freq ? 1u << (freq + 9) : 0;
}

/*
 * Whether the buffer is a usable range, with trRamWP in it: a trRamWP
 * outside trRamStart..trRamLimit is taken as trRamStart.
 */
static bool ram_buffer_ready(RISCVTraceRamSink *s)
{
    if (s->limit < s->start) {
        return false;
    }
    if (s->wp < s->start || s->wp > s->limit) {
        s->wp = s->start;
    }
    return true;
}

/* The @len bytes of SRAM at @addr, or NULL if they are not all in it. */
static uint8_t *ram_sram_at(RISCVTraceRamSink *s, uint64_t addr,
                            uint64_t len)
{
    if (!s->sram || addr >= s->sram_size || len > s->sram_size - addr) {
        return NULL;
    }
    return s->sram + addr;
}

/* Bytes from @addr to the end of the buffer; 0 for all 2^64 of them. */
static uint64_t ram_room_from(RISCVTraceRamSink *s, uint64_t addr)
{
    return s->limit - addr + 4;
}

static void ram_store(RISCVTraceRamSink *s, uint64_t addr, const uint8_t *buf,
                      uint64_t len)
{
    MemTxResult res;
    uint8_t *p;

    if (!ram_smem(s)) {
        p = ram_sram_at(s, addr, len);
        if (!p) {
            qemu_log_mask(LOG_GUEST_ERROR, "riscv-trace-ram-sink: write of %"
                          PRIu64 " bytes at 0x%" PRIx64 " beyond the SRAM\n",
                          len, addr);
            return;
        }
        memcpy(p, buf, len);
        return;
    }
    res = dma_memory_write(&s->dma_as, addr, buf, len,
                           MEMTXATTRS_UNSPECIFIED);
    if (res != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "riscv-trace-ram-sink: write of %"
                      PRIu64 " bytes at 0x%" PRIx64 " failed\n", len, addr);
    }
}

/* Write whole words from @buf (@len a multiple of 4) at WP, wrapping. */
static void ram_write_words(RISCVTraceRamSink *s, const uint8_t *buf,
                            uint64_t len)
{
    while (len) {
        uint64_t room = ram_room_from(s, s->wp);
        uint64_t n = room ? MIN(room, len) : len;

        ram_store(s, s->wp, buf, n);
        buf += n;
        len -= n;
        s->wp += n;
        if (n == room) {
            s->wp = s->start;
            s->wrap = true;
            trace_riscv_trace_ram_wrap(s->start);
        }
    }
}

/* Append bytes: whole words go to memory, the rest waits in word[]. */
static void ram_put(RISCVTraceRamSink *s, const uint8_t *buf, size_t len)
{
    size_t n;

    if (s->word_len) {
        n = MIN(len, 4u - s->word_len);
        memcpy(s->word + s->word_len, buf, n);
        s->word_len += n;
        buf += n;
        len -= n;
        if (s->word_len < 4) {
            return;
        }
        ram_write_words(s, s->word, 4);
        s->word_len = 0;
    }
    n = len & ~(size_t)3;
    if (n) {
        ram_write_words(s, buf, n);
    }
    memcpy(s->word, buf + n, len - n);
    s->word_len = len - n;
}

/*
 * Pad the waiting word with null.idle bytes and write it, where a packet
 * would go: dropped while trRamLimit is below trRamStart.
 */
static void ram_flush(RISCVTraceRamSink *s)
{
    if (s->word_len && !ram_buffer_ready(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "riscv-trace-ram-sink: trRamLimit "
                      "below trRamStart: %u bytes dropped\n", s->word_len);
        s->word_len = 0;
    }
    if (s->word_len) {
        memset(s->word + s->word_len, ETRACE_ENCAP_NULL_IDLE,
               4 - s->word_len);
        ram_write_words(s, s->word, 4);
        s->word_len = 0;
    }
}

/* Room left before the buffer fills: from WP to the end, in bytes. */
static uint64_t ram_room(RISCVTraceRamSink *s)
{
    uint64_t room = ram_room_from(s, s->wp);

    if (s->wrap) {
        return 0;
    }
    return room ? room - s->word_len : UINT64_MAX;
}

static void ram_stop_on_wrap(RISCVTraceRamSink *s)
{
    static const uint8_t pad[256];      /* null.idle bytes */

    /* Fill the rest of the buffer with null.idle bytes, then stop. */
    ram_flush(s);
    while (!s->wrap) {
        uint64_t room = ram_room_from(s, s->wp);

        ram_write_words(s, pad, room ? MIN(room, sizeof(pad)) : sizeof(pad));
    }
    s->control = FIELD_DP32(s->control, RAM_CONTROL, ENABLE, 0);
    trace_riscv_trace_ram_stop_on_wrap(s->start);
}

static bool ram_push(Object *obj, unsigned input, const uint8_t *buf,
                     size_t len, bool single)
{
    RISCVTraceRamSink *s = RISCV_TRACE_RAM_SINK(obj);
    uint32_t interval = ram_sync_interval(s);
    uint8_t sync[RAM_SYNC_LEN];
    bool with_sync;
    size_t need;

    if (!ram_enabled(s) || !ram_buffer_ready(s)) {
        return false;
    }
    with_sync = interval && (s->need_sync || s->since_sync >= interval);
    need = len + (with_sync ? RAM_SYNC_LEN : 0);
    if (FIELD_EX32(s->control, RAM_CONTROL, STOP_ON_WRAP) &&
        need > ram_room(s)) {
        /*
         * A batch of packets is refused; its sender then offers them one
         * at a time, and the first single packet that does not fit stops
         * the sink: every whole packet that fits is kept.
         */
        if (single) {
            ram_stop_on_wrap(s);
        }
        return false;
    }
    if (with_sync) {
        memset(sync, ETRACE_ENCAP_NULL_IDLE, sizeof(sync) - 1);
        sync[sizeof(sync) - 1] = ETRACE_ENCAP_NULL_ALIGN;
        ram_put(s, sync, sizeof(sync));
        s->since_sync = 0;
        s->need_sync = false;
    }
    ram_put(s, buf, len);
    s->since_sync += len;
    return true;
}

static void ram_wait_room(Object *obj, Notifier *n)
{
    RISCVTraceRamSink *s = RISCV_TRACE_RAM_SINK(obj);

    notifier_list_add(&s->room_waiters, n);
}

static void ram_reset_state(RISCVTraceRamSink *s)
{
    s->word_len = 0;
    s->since_sync = 0;
    s->need_sync = true;
}

static uint64_t ram_sram_read(RISCVTraceRamSink *s)
{
    const uint8_t *p;
    uint32_t val;

    if (!FIELD_EX32(s->control, RAM_CONTROL, ACTIVE) || ram_smem(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "riscv-trace-ram-sink: trRamData "
                      "read without SRAM mode\n");
        return 0;
    }
    /* Legal while active; held in reset, RP keeps what it had. */
    p = ram_sram_at(s, s->rp, 4);
    if (!p) {
        return 0;
    }
    val = ldl_le_p(p);
    s->rp = s->rp >= s->limit ? s->start : s->rp + 4;
    return val;
}

/* The address register of which @addr is the Low or High half, if any. */
static uint64_t *ram_addr_reg(RISCVTraceRamSink *s, hwaddr addr)
{
    switch (addr & ~(hwaddr)4) {
    case A_RAM_START_LOW:
        return &s->start;
    case A_RAM_LIMIT_LOW:
        return &s->limit;
    case A_RAM_WP_LOW:
        return &s->wp;
    case A_RAM_RP_LOW:
        return &s->rp;
    }
    return NULL;
}

static uint64_t ram_read(void *opaque, hwaddr addr, unsigned size)
{
    RISCVTraceRamSink *s = opaque;
    uint64_t *reg = ram_addr_reg(s, addr);
    uint32_t val = 0;

    if (reg) {
        val = addr & 4 ? *reg >> 32 : *reg;
        if (addr == A_RAM_WP_LOW) {
            val |= s->wrap;
        }
    }
    switch (addr) {
    case A_RAM_CONTROL:
        val = FIELD_DP32(s->control, RAM_CONTROL, EMPTY, !s->word_len);
        break;
    case A_RAM_IMPL:
        val = 1 | RISCV_TRACE_COMP_RAMSINK << 8;    /* version 1.0 */
        val = FIELD_DP32(val, RAM_IMPL, HAS_SRAM, s->sram_size != 0);
        val = FIELD_DP32(val, RAM_IMPL, HAS_SMEM, s->has_smem);
        break;
    case A_RAM_DATA:
        val = ram_sram_read(s);
        break;
    }
    trace_riscv_trace_ram_read(addr, val);
    return val;
}

/* Legal values of every address register for the current mode. */
static void ram_legalize(RISCVTraceRamSink *s)
{
    uint64_t mask = ram_addr_mask(s);

    s->start &= mask;
    s->limit &= mask;
    s->wp &= mask;
    s->rp &= mask;
    if (!ram_smem(s)) {
        /* SRAM: the buffer starts at 0. */
        s->start = 0;
    }
}

static void ram_write_control(RISCVTraceRamSink *s, uint32_t val)
{
    uint32_t old = s->control;
    unsigned mode = FIELD_EX32(val, RAM_CONTROL, MODE);

    if (!FIELD_EX32(val, RAM_CONTROL, ACTIVE)) {
        /* Held in reset: the queued bytes are dropped. */
        s->control = 0;
        ram_reset_state(s);
        return;
    }
    if (!FIELD_EX32(old, RAM_CONTROL, ACTIVE)) {
        /* Released from reset: every field takes its default. */
        s->control = R_RAM_CONTROL_ACTIVE_MASK |
                     (RAM_ASYNC_FREQ_DEFAULT << R_RAM_CONTROL_ASYNC_FREQ_SHIFT);
        s->control = FIELD_DP32(s->control, RAM_CONTROL, MODE,
                                s->has_smem ? RAM_MODE_SMEM : RAM_MODE_SRAM);
        ram_reset_state(s);
        ram_legalize(s);
        return;
    }

    /* WARL: a mode this sink does not have leaves the mode as it was. */
    if ((mode == RAM_MODE_SMEM && !s->has_smem) ||
        (mode == RAM_MODE_SRAM && !s->sram_size) ||
        FIELD_EX32(old, RAM_CONTROL, ENABLE)) {
        mode = FIELD_EX32(old, RAM_CONTROL, MODE);
    }
    val = FIELD_DP32(val, RAM_CONTROL, MODE, mode);
    /* Plain bytes is the only memory format. */
    val = FIELD_DP32(val, RAM_CONTROL, MEM_FORMAT, 0);
    val &= R_RAM_CONTROL_ACTIVE_MASK | R_RAM_CONTROL_ENABLE_MASK |
           R_RAM_CONTROL_MODE_MASK | R_RAM_CONTROL_STOP_ON_WRAP_MASK |
           R_RAM_CONTROL_ASYNC_FREQ_MASK;

    if (!FIELD_EX32(old, RAM_CONTROL, ENABLE) &&
        FIELD_EX32(val, RAM_CONTROL, ENABLE)) {
        /* A reader starts with a synchronisation sequence. */
        s->need_sync = true;
        s->since_sync = 0;
    } else if (FIELD_EX32(old, RAM_CONTROL, ENABLE) &&
               !FIELD_EX32(val, RAM_CONTROL, ENABLE)) {
        /* Disabling flushes what is queued. */
        ram_flush(s);
    }
    s->control = val;
    if (mode != FIELD_EX32(old, RAM_CONTROL, MODE)) {
        ram_legalize(s);
    }
}

static void ram_write(void *opaque, hwaddr addr, uint64_t val64,
                      unsigned size)
{
    RISCVTraceRamSink *s = opaque;
    uint64_t *reg = ram_addr_reg(s, addr);
    uint32_t val = val64;

    trace_riscv_trace_ram_write(addr, val);
    if (addr != A_RAM_CONTROL &&
        !FIELD_EX32(s->control, RAM_CONTROL, ACTIVE)) {
        qemu_log_mask(LOG_GUEST_ERROR, "riscv-trace-ram-sink: write to "
                      "0x%" HWADDR_PRIx " while held in reset\n", addr);
        return;
    }
    if (reg) {
        *reg = deposit64(*reg, addr & 4 ? 32 : 0, 32, val);
        ram_legalize(s);
    }
    switch (addr) {
    case A_RAM_CONTROL:
        ram_write_control(s, val);
        break;
    case A_RAM_WP_LOW:
        /* Writing trRamWPLow is what clears (or sets) the wrap flag. */
        s->wrap = FIELD_EX32(val, RAM_WP_LOW, WRAP);
        break;
    case A_RAM_IMPL:
        qemu_log_mask(LOG_GUEST_ERROR, "riscv-trace-ram-sink: trRamImpl is "
                      "read-only\n");
        break;
    case A_RAM_DATA:
        qemu_log_mask(LOG_GUEST_ERROR, "riscv-trace-ram-sink: trRamData is "
                      "read-only\n");
        return;
    }
    /* Enabled, wrap flag cleared, a buffer moved: there may be room. */
    riscv_trace_room_notify(&s->room_waiters);
}

static const MemoryRegionOps ram_ops = {
    .read = ram_read,
    .write = ram_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static void ram_reset_hold(Object *obj, ResetType type)
{
    RISCVTraceRamSink *s = RISCV_TRACE_RAM_SINK(obj);

    ram_reset_state(s);
    s->control = 0;
    s->wrap = false;
    s->start = 0;
    s->wp = 0;
    s->rp = 0;
    /* SRAM only: the buffer is all of the SRAM. */
    s->limit = s->has_smem ? 0 : s->sram_size - 4;
    riscv_trace_room_notify(&s->room_waiters);
}

static void ram_realize(DeviceState *dev, Error **errp)
{
    RISCVTraceRamSink *s = RISCV_TRACE_RAM_SINK(dev);

    if (!s->has_smem && !s->sram_size) {
        error_setg(errp, "a RAM sink needs SMEM mode (smem=on) or SRAM "
                   "(sram-size)");
        return;
    }
    if (s->sram_size &&
        (!is_power_of_2(s->sram_size) || s->sram_size < 64 ||
         s->sram_size > 64 * MiB)) {
        error_setg(errp, "sram-size must be a power of 2 from 64 bytes to "
                   "64 MiB");
        return;
    }
    if (s->addr_bits < 12 || s->addr_bits > 64) {
        error_setg(errp, "addr-bits must be from 12 to 64");
        return;
    }
    if (s->sram_size) {
        s->sram = g_malloc0(s->sram_size);
    }
    notifier_list_init(&s->room_waiters);
    address_space_init(&s->dma_as,
                       s->dma_mr ? s->dma_mr : get_system_memory(),
                       "riscv-trace-ram-sink");
    memory_region_init_io(&s->mmio, OBJECT(s), &ram_ops, s,
                          TYPE_RISCV_TRACE_RAM_SINK,
                          RISCV_TRACE_COMPONENT_SIZE);
    sysbus_init_mmio(SYS_BUS_DEVICE(s), &s->mmio);
}

static void ram_unrealize(DeviceState *dev)
{
    RISCVTraceRamSink *s = RISCV_TRACE_RAM_SINK(dev);

    address_space_destroy(&s->dma_as);
    g_free(s->sram);
}

static bool ram_sram_needed(void *opaque)
{
    RISCVTraceRamSink *s = opaque;

    return s->sram_size != 0;
}

static const VMStateDescription vmstate_ram_sram = {
    .name = TYPE_RISCV_TRACE_RAM_SINK "/sram",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = ram_sram_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_VBUFFER_UINT32(sram, RISCVTraceRamSink, 1, NULL, sram_size),
        VMSTATE_END_OF_LIST()
    }
};

static int ram_post_load(void *opaque, int version_id)
{
    RISCVTraceRamSink *s = opaque;

    if (s->word_len >= 4) {
        return -EINVAL;
    }
    if (!FIELD_EX32(s->control, RAM_CONTROL, ACTIVE)) {
        /* Held in reset: the registers are not used until released. */
        return 0;
    }
    if (ram_smem(s) ? !s->has_smem :
        !s->sram_size || s->limit >= s->sram_size ||
        s->rp >= s->sram_size || s->wp >= s->sram_size) {
        return -EINVAL;
    }
    return 0;
}

static const VMStateDescription vmstate_ram = {
    .name = TYPE_RISCV_TRACE_RAM_SINK,
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = ram_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(control, RISCVTraceRamSink),
        VMSTATE_UINT64(start, RISCVTraceRamSink),
        VMSTATE_UINT64(limit, RISCVTraceRamSink),
        VMSTATE_UINT64(wp, RISCVTraceRamSink),
        VMSTATE_BOOL(wrap, RISCVTraceRamSink),
        VMSTATE_UINT64(rp, RISCVTraceRamSink),
        VMSTATE_UINT8_ARRAY(word, RISCVTraceRamSink, 4),
        VMSTATE_UINT8(word_len, RISCVTraceRamSink),
        VMSTATE_UINT32(since_sync, RISCVTraceRamSink),
        VMSTATE_BOOL(need_sync, RISCVTraceRamSink),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_ram_sram,
        NULL
    }
};

static const Property ram_properties[] = {
    DEFINE_PROP_LINK("memory", RISCVTraceRamSink, dma_mr,
                     TYPE_MEMORY_REGION, MemoryRegion *),
    DEFINE_PROP_UINT32("sram-size", RISCVTraceRamSink, sram_size, 0),
    DEFINE_PROP_BOOL("smem", RISCVTraceRamSink, has_smem, true),
    DEFINE_PROP_UINT8("addr-bits", RISCVTraceRamSink, addr_bits, 56),
};

static void ram_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    RISCVTraceSinkClass *sc = RISCV_TRACE_SINK_CLASS(klass);

    dc->realize = ram_realize;
    dc->unrealize = ram_unrealize;
    dc->vmsd = &vmstate_ram;
    dc->desc = "RISC-V trace RAM sink";
    device_class_set_props(dc, ram_properties);
    rc->phases.hold = ram_reset_hold;
    sc->push = ram_push;
    sc->wait_room = ram_wait_room;
}

static const TypeInfo ram_types[] = {
    {
        .name = TYPE_RISCV_TRACE_RAM_SINK,
        .parent = TYPE_SYS_BUS_DEVICE,
        .instance_size = sizeof(RISCVTraceRamSink),
        .class_init = ram_class_init,
        .interfaces = (const InterfaceInfo[]) {
            { TYPE_RISCV_TRACE_SINK },
            { }
        },
    },
};

DEFINE_TYPES(ram_types)
