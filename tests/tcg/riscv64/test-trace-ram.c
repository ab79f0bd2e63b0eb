/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A guest driver's view of the trace encoder and the RAM sink of hart 0
 * (-M virt,trace=on,trace-sink=ram), with the register sequences of the
 * Linux rvtrace driver (Trace Control Interface 1.0, "Reset and
 * Discovery" and "Enabling and Disabling"):
 *
 *  - component reset: write 0 to tr??Control, poll Active = 0, write 1,
 *    poll Active = 1, each poll within 10 reads (the driver gives up
 *    after 10 us); trRamImpl and trTeImpl give type and version 1.0;
 *  - sink probe: trRamStart = 0 and trRamLimit = all-ones read back the
 *    range of addresses (0 to 2^56 - 4); SMEM (trRamMode, bit 4) set,
 *    StopOnWrap (bit 8) clear; the buffer: trRamStart = trRamWP = its
 *    address, trRamLimit = its end - 4, read back as written;
 *  - start, sink first: trRamEnable, poll; trTeEnable, poll; trTeInstMode
 *    |= 6; trTeInstTracing, poll;
 *  - the workload (calls, branches, an ecall from U-mode);
 *  - stop, encoder first: clear InstTracing, poll; clear Enable, poll;
 *    poll Empty; then the sink: clear Enable, poll, poll Empty;
 *  - the trace: trRamWP (bit 0, the wrap flag, clear) past trRamStart by
 *    a multiple of 4, the buffer starting with the sink's
 *    synchronisation sequence (39 null.idle, a null.alignment) and a
 *    support packet with ienable 1 and no options (with data trace,
 *    riscv-trace-encoder.data-trace=on, which the guest then turns on
 *    in trTeDataControl: a support packet whose type field says
 *    te_inst); nothing past WP.
 *
 * Then the encoder's timestamp unit: its register and, under -icount
 * shift=0 (one clock tick per instruction), its counter.
 *
 * The trace is then printed in hex ("trace-hex: " lines) for
 * tests/scripts/test-trace-ram.py, which decodes it and compares the
 * flow with QEMU's own record of what the hart ran.
 */

#include "rt.h"

#define ENCODER         0x3020000UL
#define RAM_SINK        0x6000000UL

#define CONTROL         0x000
#define IMPL            0x004
#define START_LOW       0x010
#define START_HIGH      0x014
#define LIMIT_LOW       0x018
#define LIMIT_HIGH      0x01c
#define WP_LOW          0x020
#define WP_HIGH         0x024

#define ACTIVE          (1u << 0)
#define ENABLE          (1u << 1)
#define INST_TRACING    (1u << 2)
#define EMPTY           (1u << 3)
#define INST_MODE(m)    ((uint32_t)(m) << 4)
/* trTeDataControl: Implemented (data-trace=on), Tracing */
#define DATA_CONTROL    0x010
#define DATA_IMPL       (1u << 0)
#define DATA_TRACING    (1u << 1)
#define RAM_SMEM        (1u << 4)
#define STOP_ON_WRAP    (1u << 8)

/* The timestamp unit of the encoder */
#define TS_CONTROL      0x040
#define TS_COUNTER_LOW  0x048
#define TS_COUNTER_HIGH 0x04c
#define TS_COUNT        (1u << 1)
#define TS_RESET        (1u << 2)
#define TS_PRESCALE(p)  ((uint32_t)(p) << 8)
#define TS_ENABLE       (1u << 15)
/* Released from reset: Active, Internal Core (3), 48 bits wide. */
#define TS_DEFAULT      (ACTIVE | 3u << 4 | 48u << 24)

#define BUF_SIZE        16384
#define MAX_POLLS       10

static uint8_t trace_buf[BUF_SIZE] __attribute__((aligned(4096)));

static uint32_t rd(unsigned long base, unsigned off)
{
    /* volatile: a device register, one 32-bit access per call */
    return *(volatile uint32_t *)(base + off);
}

static void wr(unsigned long base, unsigned off, uint32_t val)
{
    /* volatile: a device register, one 32-bit access per call */
    *(volatile uint32_t *)(base + off) = val;
}

/* Poll @mask of tr??Control until it reads @val, as a driver does. */
static void poll(const char *what, unsigned long base, uint32_t mask,
                 uint32_t val)
{
    unsigned i;

    for (i = 0; i < MAX_POLLS && (rd(base, CONTROL) & mask) != val; i++) {
        continue;
    }
    if (!CHECK_EQ(rd(base, CONTROL) & mask, val)) {
        rt_printf("  ^ %s: not within %u reads\n", what, MAX_POLLS);
    }
}

static void reset_component(const char *what, unsigned long base)
{
    wr(base, CONTROL, 0);
    poll(what, base, ACTIVE, 0);
    wr(base, CONTROL, ACTIVE);
    poll(what, base, ACTIVE, ACTIVE);
}

static void set_bits(unsigned long base, uint32_t bits)
{
    wr(base, CONTROL, rd(base, CONTROL) | bits);
}

static void clear_bits(unsigned long base, uint32_t bits)
{
    wr(base, CONTROL, rd(base, CONTROL) & ~bits);
}

/* The workload: a little of everything the encoder reports. */
static __attribute__((noinline)) long leaf(long x)
{
    return x & 1 ? 3 * x + 1 : x / 2;
}

static long in_user(long n)
{
    long steps = 0;

    while (n != 1) {
        n = leaf(n);
        steps++;
    }
    return steps;
}

static void workload(void)
{
    /* 27 takes 111 steps to reach 1. */
    CHECK_EQ(in_user(27), 111);
    CHECK_EQ(rt_call_in_mode(RT_MODE_U, in_user, 7), 16);
}

static void probe_sink(void)
{
    uintptr_t buf = (uintptr_t)trace_buf;
    uint32_t ctl;

    wr(RAM_SINK, START_LOW, 0);
    wr(RAM_SINK, START_HIGH, 0);
    CHECK_EQ(rd(RAM_SINK, START_LOW), 0);
    CHECK_EQ(rd(RAM_SINK, START_HIGH), 0);
    wr(RAM_SINK, LIMIT_LOW, 0xffffffff);
    wr(RAM_SINK, LIMIT_HIGH, 0xffffffff);
    CHECK_EQ(rd(RAM_SINK, LIMIT_LOW), 0xfffffffc);
    CHECK_EQ(rd(RAM_SINK, LIMIT_HIGH), 0x00ffffff);

    ctl = rd(RAM_SINK, CONTROL);
    wr(RAM_SINK, CONTROL, (ctl | RAM_SMEM) & ~STOP_ON_WRAP);
    CHECK_EQ(rd(RAM_SINK, CONTROL) & (RAM_SMEM | STOP_ON_WRAP), RAM_SMEM);

    wr(RAM_SINK, START_LOW, buf);
    wr(RAM_SINK, START_HIGH, (uint64_t)buf >> 32);
    wr(RAM_SINK, WP_LOW, buf);
    wr(RAM_SINK, WP_HIGH, (uint64_t)buf >> 32);
    wr(RAM_SINK, LIMIT_LOW, buf + BUF_SIZE - 4);
    wr(RAM_SINK, LIMIT_HIGH, (uint64_t)(buf + BUF_SIZE - 4) >> 32);
    CHECK_EQ(rd(RAM_SINK, LIMIT_LOW), (uint32_t)(buf + BUF_SIZE - 4));
    CHECK_EQ(rd(RAM_SINK, START_LOW), (uint32_t)buf);
    CHECK_EQ(rd(RAM_SINK, WP_LOW), (uint32_t)buf);
}

static void dump(const uint8_t *p, unsigned len)
{
    unsigned i;

    for (i = 0; i < len; i++) {
        if (i % 32 == 0) {
            rt_printf("trace-hex: ");
        }
        rt_printf("%02x", p[i]);
        if (i % 32 == 31 || i + 1 == len) {
            rt_printf("\n");
        }
    }
}

/*
 * Reset the counter with a store to trTsControl (@ctl), run 15 nops and
 * read trTsCounterLow: under -icount shift=0 the hart's clock advances
 * one tick per instruction, and the load comes 16 instructions after the
 * store.
 */
static uint32_t ts_after_16(uint32_t ctl)
{
    uintptr_t ctrl = ENCODER + TS_CONTROL;
    uintptr_t low = ENCODER + TS_COUNTER_LOW;
    uint32_t val;

    asm volatile("sw %1, 0(%2)\n\t"
                 ".rept 15\n\tnop\n\t.endr\n\t"
                 "lw %0, 0(%3)"
                 : "=&r"(val) : "r"(ctl), "r"(ctrl), "r"(low) : "memory");
    return val;
}

/*
 * The encoder's timestamp unit (Trace Control Interface, "Timestamp
 * Unit"): reset to 0, stopped and not in packets after release, one mode
 * (Internal Core), 48 bits; counting the hart's clock, prescaled by
 * 4^trTsPrescale.
 */
static void test_timestamp_unit(void)
{
    uint32_t a, b;

    wr(ENCODER, TS_CONTROL, 0);
    CHECK_EQ(rd(ENCODER, TS_CONTROL), 0);
    wr(ENCODER, TS_CONTROL, ACTIVE);
    CHECK_EQ(rd(ENCODER, TS_CONTROL), TS_DEFAULT);
    CHECK_EQ(rd(ENCODER, TS_COUNTER_LOW), 0);
    CHECK_EQ(rd(ENCODER, TS_COUNTER_LOW), 0);
    /* Every writable field: Count, Prescale, Enable; Reset reads 0. */
    wr(ENCODER, TS_CONTROL, 0xffffffff);
    CHECK_EQ(rd(ENCODER, TS_CONTROL), TS_DEFAULT | TS_COUNT |
             TS_PRESCALE(3) | TS_ENABLE);
    CHECK_EQ(ts_after_16(TS_DEFAULT | TS_COUNT | TS_RESET), 16);
    CHECK_EQ(ts_after_16(TS_DEFAULT | TS_COUNT | TS_RESET |
                         TS_PRESCALE(1)), 4);
    CHECK_EQ(ts_after_16(TS_DEFAULT | TS_COUNT | TS_RESET |
                         TS_PRESCALE(2)), 1);
    /* Stopped: it keeps its value. */
    wr(ENCODER, TS_CONTROL, TS_DEFAULT);
    a = rd(ENCODER, TS_COUNTER_LOW);
    b = rd(ENCODER, TS_COUNTER_LOW);
    CHECK_EQ(a, b);
    CHECK_EQ(rd(ENCODER, TS_COUNTER_HIGH), 0);
    wr(ENCODER, TS_CONTROL, 0);
}

int main(void)
{
    uintptr_t buf = (uintptr_t)trace_buf;
    uint32_t wp;
    unsigned i, len;
    bool data;

    reset_component("RAM sink reset", RAM_SINK);
    reset_component("encoder reset", ENCODER);
    /* Version 1.0; types 9 (RAM sink, SMEM only) and 1 (encoder). */
    CHECK_EQ(rd(RAM_SINK, IMPL), 0x00002901);
    CHECK_EQ(rd(ENCODER, IMPL) & 0xfff, 0x101);
    probe_sink();
    test_timestamp_unit();
    data = rd(ENCODER, DATA_CONTROL) & DATA_IMPL;
    if (data) {
        /* data accesses too, while instructions are traced */
        wr(ENCODER, DATA_CONTROL, rd(ENCODER, DATA_CONTROL) | DATA_TRACING);
    }
    /* Timestamps in the packets, counting from 0. */
    wr(ENCODER, TS_CONTROL, ACTIVE);
    wr(ENCODER, TS_CONTROL, TS_DEFAULT | TS_COUNT | TS_RESET | TS_ENABLE);

    set_bits(RAM_SINK, ENABLE);
    poll("RAM sink enable", RAM_SINK, ENABLE, ENABLE);
    set_bits(ENCODER, ENABLE);
    poll("encoder enable", ENCODER, ENABLE, ENABLE);
    set_bits(ENCODER, INST_MODE(6));
    set_bits(ENCODER, INST_TRACING);
    poll("encoder start", ENCODER, INST_TRACING, INST_TRACING);

    workload();

    clear_bits(ENCODER, INST_TRACING);
    poll("encoder stop", ENCODER, INST_TRACING, 0);
    clear_bits(ENCODER, ENABLE);
    poll("encoder disable", ENCODER, ENABLE, 0);
    poll("encoder empty", ENCODER, EMPTY, EMPTY);
    clear_bits(RAM_SINK, ENABLE);
    poll("RAM sink disable", RAM_SINK, ENABLE, 0);
    poll("RAM sink empty", RAM_SINK, EMPTY, EMPTY);

    wp = rd(RAM_SINK, WP_LOW);
    CHECK_EQ(rd(RAM_SINK, WP_HIGH), (uint64_t)buf >> 32);
    CHECK_EQ(wp & 1, 0);
    len = wp - (uint32_t)buf;
    CHECK(len > 48 && len < BUF_SIZE && len % 4 == 0);
    for (i = 0; i < 39; i++) {
        if (!CHECK_EQ(trace_buf[i], 0)) {
            break;
        }
    }
    CHECK_EQ(trace_buf[39], 0x80);
    /*
     * Support packet: header 81 (a timestamp), 6 bytes of it, payload 1f
     * (ienable 1, no options).  With data trace: a timestamp, and the
     * payload starts with the type field, 0 (te_inst).
     */
    if (data) {
        CHECK_EQ(trace_buf[40] & 0x80, 0x80);
        CHECK_EQ(trace_buf[47] & 1, 0);
    } else {
        CHECK_EQ(trace_buf[40], 0x81);
        CHECK_EQ(trace_buf[47], 0x1f);
    }
    /* Nothing was written past WP. */
    CHECK_EQ(trace_buf[len], 0);
    CHECK_EQ(trace_buf[len + 3], 0);
    if (len < BUF_SIZE) {
        rt_printf("trace: %u bytes at 0x%lx\n", len, (unsigned long)buf);
        dump(trace_buf, len);
    }
    return 0;
}
