/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * QTest for the RISC-V trace components of the virt machine (Trace
 * Control Interface 1.0): the registers of the encoder, funnel, PIB sink
 * and RAM sinks (reset values, release from reset, WARL discovery,
 * enabling and disabling, Empty), the bytes a traced guest program sends
 * through a socket chardev and writes into a RAM sink's buffer (wrapping
 * and stopping on wrap), worked out from the E-Trace 2.0, Encapsulation
 * 1.0 and Trace Control Interface 1.0 specifications.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/sockets.h"
#include "qemu/units.h"
#include "qobject/qdict.h"
#include "qemu/bswap.h"
#include "libqtest.h"

#define ENCODER0        0x3020000
#define ENCODER1        0x3021000
#define FUNNEL0         0x3012000
#define PIB             0x3011000
#define RAM0            0x6000000
#define RAM1            0x6010000
#define DRAM            0x80000000
/* The trace buffer of the RAM sink tests. */
#define BUF             0x80100000

#define CONTROL         0x000
#define IMPL            0x004
#define INST_FEATURES   0x008
#define INST_FILTERS    0x00c
#define DATA_CONTROL    0x010
#define DATA_FILTERS    0x01c
#define FILTER0_CONTROL 0x400
#define FILTER0_MATCH_DATA 0x418
#define COMP0_CONTROL   0x600

/* Control register fields common to the components. */
#define ACTIVE          (1u << 0)
#define ENABLE          (1u << 1)
#define EMPTY           (1u << 3)

/* trTeControl */
#define INST_TRACING    (1u << 2)
#define INST_MODE(m)    ((uint32_t)(m) << 4)
#define CONTEXT         (1u << 9)
#define STALL_OVERFLOW  (1u << 12)
#define STALL_ENA       (1u << 13)
#define INHIBIT_SRC     (1u << 15)
#define SYNC_MODE(m)    ((uint32_t)(m) << 16)
#define SYNC_MAX(m)     ((uint32_t)(m) << 20)

/* trTeDataControl */
#define D_IMPLEMENTED   (1u << 0)
#define D_TRACING       (1u << 1)
#define D_STALL_ENA     (1u << 4)
#define D_DROP_ENA      (1u << 6)
#define D_NO_VALUE      (1u << 16)
#define D_NO_ADDR       (1u << 17)
#define D_ADDR_COMP(c)  ((uint32_t)(c) << 18)

/* trPibControl */
#define PIB_MODE(m)     ((uint32_t)(m) << 4)
#define CLK_CENTER      (1u << 8)
#define CALIBRATE       (1u << 9)
#define ASYNC_FREQ(f)   ((uint32_t)(f) << 12)
#define DIVIDER(d)      ((uint32_t)(d) << 16)

/* trRamControl and the RAM sink's address registers */
#define RAM_SMEM        (1u << 4)
#define STOP_ON_WRAP    (1u << 8)
#define MEM_FORMAT(f)   ((uint32_t)(f) << 9)
#define START_LOW       0x010
#define START_HIGH      0x014
#define LIMIT_LOW       0x018
#define LIMIT_HIGH      0x01c
#define WP_LOW          0x020
#define WP_HIGH         0x024
#define RP_LOW          0x028
#define RP_HIGH         0x02c

/*
 * The sinks' synchronisation sequence: N = 31 + T + S null.idle bytes and
 * a null.alignment (Encapsulation "Synchronization"), with the 6-byte
 * timestamp field of this system (T = 6, trTsWidth 48) and the widest
 * srcID (S = 2).
 */
#define SYNC_LEN        (31 + 6 + 2 + 1)

/* Registers only: the harts never run. */
#define REG_ARGS "-machine virt,trace=on -smp 2 -bios none -accel tcg -S"

static uint32_t rd(QTestState *qts, uint64_t addr)
{
    return qtest_readl(qts, addr);
}

static void wr(QTestState *qts, uint64_t addr, uint32_t val)
{
    qtest_writel(qts, addr, val);
}

/* Components take effect asynchronously: wait for a value. */
static void wait_for(QTestState *qts, uint64_t addr, uint32_t mask,
                     uint32_t val)
{
    int i;

    for (i = 0; i < 5000 && (rd(qts, addr) & mask) != val; i++) {
        g_usleep(1000);
    }
    g_assert_cmphex(rd(qts, addr) & mask, ==, val);
}

static void test_encoder_registers(void)
{
    /* The registers of a filter and of a comparator written with ones */
    static const uint32_t filter_ones[8] = {
        0xffff, 0x16b, 0xffffffff, 0xffffffff, 0, 0, 0, 0,
    };
    static const uint32_t comp_ones[8] = {
        0x3770, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
    };
    QTestState *qts = qtest_init(REG_ARGS);
    unsigned i;

    /* Only Active and Enable are defined at reset; both are 0. */
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL) & (ACTIVE | ENABLE), ==, 0);
    g_assert_cmphex(rd(qts, ENCODER1 + CONTROL) & (ACTIVE | ENABLE), ==, 0);
    /*
     * trTeImpl: VerMajor 1, VerMinor 0, CompType 1; E-Trace 2.0.x reports
     * ProtocolMajor and ProtocolMinor 0 (E-Trace "Encoder Control").
     */
    g_assert_cmphex(rd(qts, ENCODER0 + IMPL), ==, 0x00000101);
    wr(qts, ENCODER0 + IMPL, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + IMPL), ==, 0x00000101);

    /*
     * Release from reset: every field to its default.  InstMode is
     * hardcoded to 6 for E-Trace (control.adoc of E-Trace 2.0.5; 2.0
     * said 7); resync by packets, InstSyncMax 8.
     */
    wr(qts, ENCODER0 + CONTROL, ACTIVE);
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==,
                    ACTIVE | EMPTY | INST_MODE(6) | SYNC_MODE(1) |
                    SYNC_MAX(8));

    /*
     * WARL discovery, leaving Enable 0: writable are InstTracing,
     * InstStallEna, InhibitSrc, InstSyncMode (3 is implemented),
     * InstSyncMax; InstMode stays 6, Format 0 (E-Trace), trTeContext and
     * trTeInstTrigEnable 0, InstStallOrOverflow is write-1-to-clear.
     */
    wr(qts, ENCODER0 + CONTROL, ~ENABLE);
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==,
                    ACTIVE | INST_TRACING | EMPTY | INST_MODE(6) |
                    STALL_ENA | INHIBIT_SRC | SYNC_MODE(3) | SYNC_MAX(15));
    /* InstMode writes: 0 (above), 3 and 7 all leave 6. */
    wr(qts, ENCODER0 + CONTROL, ACTIVE | INST_MODE(3) | SYNC_MODE(1));
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==,
                    ACTIVE | EMPTY | INST_MODE(6) | SYNC_MODE(1));
    wr(qts, ENCODER0 + CONTROL, ACTIVE | INST_MODE(7) | SYNC_MODE(1));
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==,
                    ACTIVE | EMPTY | INST_MODE(6) | SYNC_MODE(1));
    /* InstSyncMode 2 (clock cycles) is not implemented: unchanged. */
    wr(qts, ENCODER0 + CONTROL, ACTIVE | SYNC_MODE(2));
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==,
                    ACTIVE | EMPTY | INST_MODE(6) | SYNC_MODE(1));
    wr(qts, ENCODER0 + CONTROL, ACTIVE | SYNC_MODE(0));
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==,
                    ACTIVE | EMPTY | INST_MODE(6) | SYNC_MODE(0));

    /*
     * trTeInstFeatures: NoAddrDiff, EnSequentialJump (2),
     * EnImplicitReturn (3), EnBranchPrediction (4), EnJumpTargetCache
     * (5), SrcID (12 bits) and SrcBits (0-12) are implemented;
     * ImplicitReturnMode (7:6) reads 3, full address comparing, whatever
     * is written; the other modes read 0.  The reset value carries the
     * hart's srcID, 8 bits wide with two harts.
     */
    g_assert_cmphex(rd(qts, ENCODER1 + INST_FEATURES), ==, 0x800100c0);
    wr(qts, ENCODER0 + INST_FEATURES, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + INST_FEATURES), ==, 0xcfff00fd);
    wr(qts, ENCODER0 + INST_FEATURES, 0x5abc0000);
    g_assert_cmphex(rd(qts, ENCODER0 + INST_FEATURES), ==, 0x5abc00c0);
    wr(qts, ENCODER0 + INST_FEATURES, 0);
    g_assert_cmphex(rd(qts, ENCODER0 + INST_FEATURES), ==, 0xc0);

    /*
     * Eight filters and eight comparator units.  Filter control: enable,
     * privilege, ecause and interrupt matching, three comparators (no
     * impdef; without data trace, no dtype, dsize); privileges U, S, M,
     * VU, VS and the interrupt value; the ecause choice all 64 bits;
     * impdef and data matching 0.  Comparator control: both functions
     * and the match mode (without data trace the inputs are the
     * instruction address; no notify); match values 64 bits.
     */
    wr(qts, ENCODER0 + INST_FILTERS, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + INST_FILTERS), ==, 0xff);
    wr(qts, ENCODER0 + INST_FILTERS, 0);
    for (i = 0x400; i < 0x800; i += 4) {
        wr(qts, ENCODER0 + i, 0xffffffff);
    }
    for (i = 0x400; i < 0x800; i += 4) {
        uint32_t want = 0;

        if (i < 0x500) {
            want = filter_ones[i % 0x20 / 4];
        } else if (i >= 0x600 && i < 0x700) {
            want = comp_ones[i % 0x20 / 4];
        }
        g_assert_cmphex(rd(qts, ENCODER0 + i), ==, want);
    }
    /* Reserved registers read 0. */
    wr(qts, ENCODER0 + 0x100, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + 0x100), ==, 0);

    /* Holding it in reset clears everything. */
    wr(qts, ENCODER0 + CONTROL, 0);
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==, EMPTY);
    qtest_quit(qts);
}

/*
 * trTeContext (trTeControl bit 9): 0 and not writable without a context
 * field; with context=on (nocontext_p 0) writable and 1 on release from
 * reset.
 */
static void test_context_register(void)
{
    QTestState *qts = qtest_init(REG_ARGS);

    wr(qts, ENCODER0 + CONTROL, ACTIVE);
    wr(qts, ENCODER0 + CONTROL, ACTIVE | CONTEXT);
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL) & CONTEXT, ==, 0);
    qtest_quit(qts);

    qts = qtest_init(REG_ARGS " -global riscv-trace-encoder.context=on");
    wr(qts, ENCODER0 + CONTROL, ACTIVE);
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==,
                    ACTIVE | EMPTY | INST_MODE(6) | CONTEXT | SYNC_MODE(1) |
                    SYNC_MAX(8));
    wr(qts, ENCODER0 + CONTROL, ACTIVE | SYNC_MODE(1));
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL) & CONTEXT, ==, 0);
    wr(qts, ENCODER0 + CONTROL, ACTIVE | CONTEXT | SYNC_MODE(1));
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL) & CONTEXT, ==, CONTEXT);
    qtest_quit(qts);
}

/*
 * trTeDataControl, trTeDataFilters and the data match fields of the
 * filters and comparators: 0 without data trace; with it, Implemented,
 * and WARL discovery by writing ones (no trigger; the encoder sets
 * StallOrOverflow and Drop, writing ones clears them; 8 filters qualify
 * data, on access type and size, comparators compare data addresses).
 */
static void test_data_registers(void)
{
    QTestState *qts = qtest_init(REG_ARGS);

    wr(qts, ENCODER0 + CONTROL, ACTIVE);
    wr(qts, ENCODER0 + DATA_CONTROL, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + DATA_CONTROL), ==, 0);
    wr(qts, ENCODER0 + DATA_FILTERS, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + DATA_FILTERS), ==, 0);
    qtest_quit(qts);

    qts = qtest_init(REG_ARGS " -global riscv-trace-encoder.data-trace=on");
    /*
     * Held in reset: Implemented, differential addresses (the reset
     * values of the data-* properties), nothing writable.
     */
    g_assert_cmphex(rd(qts, ENCODER0 + DATA_CONTROL), ==,
                    D_IMPLEMENTED | D_ADDR_COMP(2));
    wr(qts, ENCODER0 + DATA_CONTROL, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + DATA_CONTROL), ==,
                    D_IMPLEMENTED | D_ADDR_COMP(2));
    wr(qts, ENCODER0 + CONTROL, ACTIVE);
    /*
     * Tracing, StallEna, DropEna, NoValue, NoAddr and AddrCompress;
     * NoValue with NoAddr keeps the address; AddrCompress 1 and 3 read 2,
     * differential.
     */
    wr(qts, ENCODER0 + DATA_CONTROL, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + DATA_CONTROL), ==,
                    D_IMPLEMENTED | D_TRACING | D_STALL_ENA | D_DROP_ENA |
                    D_NO_VALUE | D_ADDR_COMP(2));
    wr(qts, ENCODER0 + DATA_CONTROL, D_NO_ADDR | D_ADDR_COMP(1));
    g_assert_cmphex(rd(qts, ENCODER0 + DATA_CONTROL), ==,
                    D_IMPLEMENTED | D_NO_ADDR | D_ADDR_COMP(2));
    wr(qts, ENCODER0 + DATA_CONTROL, D_ADDR_COMP(3));
    g_assert_cmphex(rd(qts, ENCODER0 + DATA_CONTROL), ==,
                    D_IMPLEMENTED | D_ADDR_COMP(2));
    wr(qts, ENCODER0 + DATA_CONTROL, 0);
    g_assert_cmphex(rd(qts, ENCODER0 + DATA_CONTROL), ==, D_IMPLEMENTED);
    wr(qts, ENCODER0 + DATA_FILTERS, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + DATA_FILTERS), ==, 0xff);
    /* MatchDtype, MatchDsize; dtypes 0, 1, 7-15, dsizes 0-3; daddr */
    wr(qts, ENCODER0 + FILTER0_CONTROL, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + FILTER0_CONTROL), ==, 0x300ffff);
    wr(qts, ENCODER0 + FILTER0_MATCH_DATA, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + FILTER0_MATCH_DATA), ==, 0xfff83);
    wr(qts, ENCODER0 + COMP0_CONTROL, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + COMP0_CONTROL), ==, 0x377f);
    /* Back into reset. */
    wr(qts, ENCODER0 + DATA_CONTROL, D_TRACING);
    wr(qts, ENCODER0 + CONTROL, 0);
    g_assert_cmphex(rd(qts, ENCODER0 + DATA_CONTROL), ==,
                    D_IMPLEMENTED | D_ADDR_COMP(2));
    qtest_quit(qts);
}

static void test_funnel_pib_registers(void)
{
    QTestState *qts = qtest_init(REG_ARGS);

    /* Funnel: type 8, version 1.0; always empty. */
    g_assert_cmphex(rd(qts, FUNNEL0 + IMPL), ==, 0x00000801);
    g_assert_cmphex(rd(qts, FUNNEL0 + CONTROL), ==, EMPTY);
    wr(qts, FUNNEL0 + CONTROL, ACTIVE);
    g_assert_cmphex(rd(qts, FUNNEL0 + CONTROL), ==, ACTIVE | EMPTY);
    wr(qts, FUNNEL0 + CONTROL, 0xffffffff);
    g_assert_cmphex(rd(qts, FUNNEL0 + CONTROL), ==, ACTIVE | ENABLE | EMPTY);
    /* trFunnelDisInput: one bit per input, two harts feed this one. */
    wr(qts, FUNNEL0 + 0x008, 0xffff);
    g_assert_cmphex(rd(qts, FUNNEL0 + 0x008), ==, 0x3);

    /* PIB sink: type 0xA, version 1.0. */
    g_assert_cmphex(rd(qts, PIB + IMPL), ==, 0x00000a01);
    g_assert_cmphex(rd(qts, PIB + CONTROL), ==, EMPTY);
    /* Release from reset: 4-bit parallel mode, AsyncFreq 3. */
    wr(qts, PIB + CONTROL, ACTIVE);
    g_assert_cmphex(rd(qts, PIB + CONTROL), ==,
                    ACTIVE | EMPTY | PIB_MODE(10) | ASYNC_FREQ(3));
    /*
     * trPibMode WARL: off (0), SWT (4, 5) and parallel (8-12) modes;
     * other values leave it.  ClkCenter only with a parallel mode; no
     * calibration; the divider is 16 bits.
     */
    wr(qts, PIB + CONTROL, ACTIVE | PIB_MODE(6));
    g_assert_cmphex(rd(qts, PIB + CONTROL) & PIB_MODE(15), ==, PIB_MODE(10));
    wr(qts, PIB + CONTROL, ACTIVE | PIB_MODE(5) | CLK_CENTER | CALIBRATE);
    g_assert_cmphex(rd(qts, PIB + CONTROL), ==, ACTIVE | EMPTY | PIB_MODE(5));
    wr(qts, PIB + CONTROL, ACTIVE | PIB_MODE(12) | CLK_CENTER |
       ASYNC_FREQ(7) | DIVIDER(0xffff));
    g_assert_cmphex(rd(qts, PIB + CONTROL), ==,
                    ACTIVE | EMPTY | PIB_MODE(12) | CLK_CENTER |
                    ASYNC_FREQ(7) | DIVIDER(0xffff));
    wr(qts, PIB + CONTROL, 0);
    g_assert_cmphex(rd(qts, PIB + CONTROL), ==, EMPTY);
    qtest_quit(qts);
}

/*
 * The enabling order of the specification (sinks, funnel, encoder, then
 * InstTracing) and the reverse to disable; Enable = 0 flushes, and Empty
 * reads 1 once it has.
 */
static void test_enable_disable(void)
{
    QTestState *qts = qtest_init(REG_ARGS);

    wr(qts, PIB + CONTROL, ACTIVE);
    wr(qts, PIB + CONTROL, ACTIVE | ENABLE | PIB_MODE(10));
    g_assert_cmphex(rd(qts, PIB + CONTROL) & ENABLE, ==, ENABLE);
    wr(qts, FUNNEL0 + CONTROL, ACTIVE);
    wr(qts, FUNNEL0 + CONTROL, ACTIVE | ENABLE);
    wr(qts, ENCODER0 + CONTROL, ACTIVE);
    wr(qts, ENCODER0 + CONTROL, ACTIVE | ENABLE | SYNC_MODE(1));
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL) & ENABLE, ==, ENABLE);
    wr(qts, ENCODER0 + CONTROL, ACTIVE | ENABLE | INST_TRACING |
       SYNC_MODE(1));
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL) & INST_TRACING, ==,
                    INST_TRACING);

    /* The support packet is made: the encoder holds it until flushed. */
    wr(qts, ENCODER0 + CONTROL, ACTIVE | SYNC_MODE(1));
    wait_for(qts, ENCODER0 + CONTROL, ENABLE | EMPTY, EMPTY);
    wr(qts, FUNNEL0 + CONTROL, ACTIVE);
    wait_for(qts, FUNNEL0 + CONTROL, ENABLE | EMPTY, EMPTY);
    wr(qts, PIB + CONTROL, ACTIVE);
    wait_for(qts, PIB + CONTROL, ENABLE | EMPTY, EMPTY);
    qtest_quit(qts);
}

/*
 * A guest program traced from reset, its packets read from a socket:
 *
 *   0x80000000  addi t0, zero, 3
 *   0x80000004  addi t0, t0, -1
 *   0x80000008  bnez t0, 0x80000004     taken, taken, not taken
 *   0x8000000c  j    0x8000000c
 *
 * entered from the reset vector at 0x1000 with "jr t0" (an uninferable
 * jump).  Expected bytes, one hart so no srcID:
 *  - the PIB's synchronisation sequence: 39 null.idle, 1 null.alignment;
 *  - support, ienable 1, options 0: header 01, payload 1f;
 *  - format 3.0, branch 1, privilege 3, address 0x1000 >> 1 = 0x800:
 *    0x73 then 0x800 from bit 8 (bit 19): 03 73 00 08;
 *  - format 2 for the jump target, 0x80000000 - 0x1000 = 0x7ffff000,
 *    >> 1 = 0x3ffff800 from bit 2 (bits 13-31), then a 0 sign bit:
 *    05 02 e0 ff ff 00;
 *  - when InstTracing goes to 0 in the loop: format 1 for 0x8000000c
 *    with the three branches (map 100 = 4, taken is 0), address
 *    (0x8000000c - 0x80000000) >> 1 = 6: 01 + 11000 + 001 + 011...:
 *    02 0d 1a;
 *  - support, ienable 1 (still enabled), qual_status 1 ended_rep: 01 5f.
 */
static const uint32_t loop_program[] = {
    0x00300293, 0xfff28293, 0xfe029ee3, 0x0000006f,
};

static const uint8_t loop_packets[] = {
    0x01, 0x1f,
    0x03, 0x73, 0x00, 0x08,
    0x05, 0x02, 0xe0, 0xff, 0xff, 0x00,
    0x02, 0x0d, 0x1a,
    0x01, 0x5f,
};

/* Run loop_program on @harts harts traced from reset; stop tracing. */
static QTestState *run_loop(const char *path, int harts, int *fd, int *lfd)
{
    struct timeval timeout = { .tv_sec = 30 };
    QTestState *qts;
    unsigned i;

    *lfd = unix_listen(path, &error_abort);
    qts = qtest_initf("-machine virt,trace=on,trace-chardev=tr,"
                      "trace-start=on -chardev socket,id=tr,path=%s "
                      "-smp %d -bios none -accel tcg -S", path, harts);
    *fd = accept(*lfd, NULL, NULL);
    g_assert_cmpint(*fd, >=, 0);
    /* A missing byte fails the test instead of hanging it. */
    g_assert_cmpint(setsockopt(*fd, SOL_SOCKET, SO_RCVTIMEO, &timeout,
                               sizeof(timeout)), ==, 0);

    for (i = 0; i < ARRAY_SIZE(loop_program); i++) {
        qtest_writel(qts, DRAM + 4 * i, loop_program[i]);
    }
    qtest_qmp_assert_success(qts, "{ 'execute': 'cont' }");
    /* Let the harts reach their loop, then stop tracing. */
    g_usleep(200 * 1000);
    for (i = 0; i < harts; i++) {
        wr(qts, ENCODER0 + 0x1000 * i + CONTROL,
           ACTIVE | ENABLE | SYNC_MODE(1) | SYNC_MAX(8));
    }
    for (i = 0; i < harts; i++) {
        wait_for(qts, ENCODER0 + 0x1000 * i + CONTROL, EMPTY, EMPTY);
    }
    return qts;
}

static void recv_all(int fd, uint8_t *buf, size_t len)
{
    size_t n = 0;

    while (n < len) {
        ssize_t r = recv(fd, buf + n, len - n, 0);

        g_assert_cmpint(r, >, 0);
        n += r;
    }
}

static void test_socket_bytes(void)
{
    g_autofree char *dir = g_dir_make_tmp("riscv-trace-XXXXXX", NULL);
    g_autofree char *path = g_strdup_printf("%s/sock", dir);
    uint8_t want[SYNC_LEN + sizeof(loop_packets)];
    uint8_t got[sizeof(want)];
    QTestState *qts;
    int lfd, fd;

    qts = run_loop(path, 1, &fd, &lfd);
    memset(want, 0, SYNC_LEN - 1);
    want[SYNC_LEN - 1] = 0x80;
    memcpy(want + SYNC_LEN, loop_packets, sizeof(loop_packets));
    recv_all(fd, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), want, sizeof(want));

    close(fd);
    close(lfd);
    qtest_quit(qts);
    unlink(path);
    rmdir(dir);
}

/*
 * Two harts run the same program: one stream, each packet with an 8-bit
 * srcID (the hart) after its header, packets of the two harts in any
 * order but each hart's in order and whole.
 */
static void test_two_harts(void)
{
    g_autofree char *dir = g_dir_make_tmp("riscv-trace-XXXXXX", NULL);
    g_autofree char *path = g_strdup_printf("%s/sock", dir);
    /* 5 packets per hart, each one byte longer with its srcID */
    uint8_t got[SYNC_LEN + 2 * (sizeof(loop_packets) + 5)];
    uint8_t hart[2][sizeof(loop_packets)];
    size_t len[2] = { 0, 0 };
    QTestState *qts;
    size_t at;
    int lfd, fd;

    qts = run_loop(path, 2, &fd, &lfd);
    recv_all(fd, got, sizeof(got));
    for (at = 0; at < SYNC_LEN - 1; at++) {
        g_assert_cmphex(got[at], ==, 0x00);
    }
    g_assert_cmphex(got[SYNC_LEN - 1], ==, 0x80);
    for (at = SYNC_LEN; at < sizeof(got); ) {
        unsigned length = got[at] & 0x1f;
        unsigned src = got[at + 1];

        g_assert_cmpuint(length, >, 0);
        g_assert_cmpuint(src, <, 2);
        g_assert_cmpuint(len[src] + 1 + length, <=, sizeof(hart[src]));
        /* the packet as one hart alone would send it: header, payload */
        hart[src][len[src]] = got[at];
        memcpy(&hart[src][len[src] + 1], &got[at + 2], length);
        len[src] += 1 + length;
        at += 2 + length;
    }
    g_assert_cmpmem(hart[0], len[0], loop_packets, sizeof(loop_packets));
    g_assert_cmpmem(hart[1], len[1], loop_packets, sizeof(loop_packets));

    close(fd);
    close(lfd);
    qtest_quit(qts);
    unlink(path);
    rmdir(dir);
}

/*
 * A loop of 8192 uninferable jumps and branches, entered from the reset
 * vector:
 *
 *   0x80000000  lui   a0, 2               a0 = 8192
 *   0x80000004  auipc a1, 0
 *   0x80000008  addi  a1, a1, 12          a1 = 0x80000010
 *   0x8000000c  jalr  zero, 0(a1)
 *   0x80000010  addi  a0, a0, -1
 *   0x80000014  bnez  a0, 0x8000000c
 *   0x80000018  j     0x80000018
 *
 * Packets: support, F3.0 at 0x1000 and F2 at 0x80000000 as in the loop
 * above; the first jalr target, format 2, (0x10 >> 1) = 8 from bit 2:
 * 01 22; then each target with the taken bnez before it, format 1, one
 * branch taken, address +0: 01 05 (8191 times); when tracing stops at
 * the j, the last (not taken) bnez with (0x18 - 0x10) >> 1 = 4: 02 85 04;
 * support ended_rep: 01 5f.
 */
static const uint32_t jump_program[] = {
    0x00002537, 0x00000597, 0x00c58593, 0x00058067,
    0xfff50513, 0xfe051ce3, 0x0000006f,
};

#define JUMP_LOOPS  8192

/* The packets, without null bytes, of the whole jump_program trace. */
static GByteArray *jump_packets(void)
{
    static const uint8_t head[] = {
        0x01, 0x1f, 0x03, 0x73, 0x00, 0x08,
        0x05, 0x02, 0xe0, 0xff, 0xff, 0x00,
        0x01, 0x22,
    };
    static const uint8_t tail[] = { 0x02, 0x85, 0x04, 0x01, 0x5f };
    static const uint8_t loop[] = { 0x01, 0x05 };
    GByteArray *b = g_byte_array_new();
    int i;

    g_byte_array_append(b, head, sizeof(head));
    for (i = 1; i < JUMP_LOOPS; i++) {
        g_byte_array_append(b, loop, sizeof(loop));
    }
    g_byte_array_append(b, tail, sizeof(tail));
    return b;
}

/*
 * Read what the pipe holds, dropping the null bytes of synchronisation
 * sequences between packets; @in_packet carries a packet across calls.
 */
static void read_packets(int fd, GByteArray *out, unsigned *in_packet)
{
    uint8_t buf[4096];
    ssize_t r, i;

    while ((r = read(fd, buf, sizeof(buf))) > 0) {
        for (i = 0; i < r; i++) {
            if (*in_packet) {
                (*in_packet)--;
            } else if (!(buf[i] & 0x1f)) {
                continue;       /* null.idle or null.alignment */
            } else {
                *in_packet = buf[i] & 0x1f;
            }
            g_byte_array_append(out, &buf[i], 1);
        }
    }
}

/* Start jump_program with the trace going to a FIFO of 4 KiB. */
static QTestState *start_jumps(const char *fifo, int *fd, bool stall)
{
    QTestState *qts;
    unsigned i;

    g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
    *fd = open(fifo, O_RDONLY | O_NONBLOCK);
    g_assert_cmpint(*fd, >=, 0);
    g_assert_cmpint(fcntl(*fd, F_SETPIPE_SZ, 4096), >=, 4096);
    qts = qtest_initf("-machine virt,trace=on,trace-chardev=tr,"
                      "trace-start=on -chardev pipe,id=tr,path=%s "
                      "-global riscv-trace-pib-sink.fifo-size=128 "
                      "-bios none -accel tcg -S", fifo);
    for (i = 0; i < ARRAY_SIZE(jump_program); i++) {
        qtest_writel(qts, DRAM + 4 * i, jump_program[i]);
    }
    /* No periodic resync: the packets are the same in every pass. */
    wr(qts, ENCODER0 + CONTROL, ACTIVE | ENABLE | INST_TRACING |
       (stall ? STALL_ENA : 0) | SYNC_MODE(0));
    qtest_qmp_assert_success(qts, "{ 'execute': 'cont' }");
    return qts;
}

/*
 * With InstStallEna the hart waits while the consumer is slow: nobody
 * reads until InstStallOrOverflow says the hart is stalled (it is set
 * when the stall begins), then every packet arrives.
 */
static void test_stall(void)
{
    g_autofree char *dir = g_dir_make_tmp("riscv-trace-XXXXXX", NULL);
    g_autofree char *fifo = g_strdup_printf("%s/fifo", dir);
    g_autoptr(GByteArray) want = jump_packets();
    g_autoptr(GByteArray) got = g_byte_array_new();
    unsigned in_packet = 0;
    QTestState *qts;
    int fd, i;

    qts = start_jumps(fifo, &fd, true);
    wait_for(qts, ENCODER0 + CONTROL, STALL_OVERFLOW, STALL_OVERFLOW);
    /* Read slowly until all but the end of the trace is in. */
    for (i = 0; i < 20000 && got->len < want->len - 5; i++) {
        g_usleep(1000);
        read_packets(fd, got, &in_packet);
    }
    g_assert_cmpuint(got->len, ==, want->len - 5);
    wr(qts, ENCODER0 + CONTROL, ACTIVE | ENABLE | STALL_ENA | SYNC_MODE(0));
    wait_for(qts, ENCODER0 + CONTROL, EMPTY, EMPTY);
    for (i = 0; i < 5000 && got->len < want->len; i++) {
        g_usleep(1000);
        read_packets(fd, got, &in_packet);
    }
    g_assert_cmpmem(got->data, got->len, want->data, want->len);
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL) & STALL_OVERFLOW, ==,
                    STALL_OVERFLOW);

    close(fd);
    qtest_quit(qts);
    unlink(fifo);
    rmdir(dir);
}

/*
 * A hart stalled for room (nobody reads the pipe) stops when the VM is
 * stopped: "stop" completes, and so does "quit" while it is stalled
 * again.  Up to the stall the stream is the program's.
 */
static void test_stall_stop(void)
{
    g_autofree char *dir = g_dir_make_tmp("riscv-trace-XXXXXX", NULL);
    g_autofree char *fifo = g_strdup_printf("%s/fifo", dir);
    g_autoptr(GByteArray) want = jump_packets();
    g_autoptr(GByteArray) got = g_byte_array_new();
    unsigned in_packet = 0;
    QTestState *qts;
    QDict *rsp;
    int fd;

    qts = start_jumps(fifo, &fd, true);
    wait_for(qts, ENCODER0 + CONTROL, STALL_OVERFLOW, STALL_OVERFLOW);
    qtest_qmp_assert_success(qts, "{ 'execute': 'stop' }");
    rsp = qtest_qmp(qts, "{ 'execute': 'query-status' }");
    g_assert_cmpstr(qdict_get_str(qdict_get_qdict(rsp, "return"), "status"),
                    ==, "paused");
    qobject_unref(rsp);
    read_packets(fd, got, &in_packet);
    g_assert_cmpuint(got->len, >, 1000);
    g_assert_cmpuint(got->len, <, want->len);
    g_assert_cmpmem(got->data, 1000, want->data, 1000);
    /* Stalled again, then QEMU quits. */
    qtest_qmp_assert_success(qts, "{ 'execute': 'cont' }");
    g_usleep(100 * 1000);
    close(fd);
    qtest_quit(qts);
    unlink(fifo);
    rmdir(dir);
}

/*
 * Without it, packets the sink has no room for are lost: the trace holds
 * those that fitted, then, once there is room again, a support packet
 * with qual_status trace_lost and a format 3.0 where the hart is (the j
 * at 0x80000018: 0x4000000c from bit 8), the end of the trace (format 2,
 * address +0: 01 02; ended_rep) and InstStallOrOverflow is set.
 */
static void test_loss(void)
{
    static const uint8_t after[] = {
        0x02, 0x9f, 0x00,
        0x05, 0x73, 0x0c, 0x00, 0x00, 0x40,
        0x01, 0x02,
        0x01, 0x5f,
    };
    g_autofree char *dir = g_dir_make_tmp("riscv-trace-XXXXXX", NULL);
    g_autofree char *fifo = g_strdup_printf("%s/fifo", dir);
    g_autoptr(GByteArray) want = jump_packets();
    g_autoptr(GByteArray) got = g_byte_array_new();
    unsigned in_packet = 0;
    QTestState *qts;
    guint prefix;
    int fd, i;

    qts = start_jumps(fifo, &fd, false);
    /* The hart reaches its final loop: what did not fit is lost. */
    g_usleep(300 * 1000);
    wait_for(qts, ENCODER0 + CONTROL, STALL_OVERFLOW, STALL_OVERFLOW);
    /* Make room; the encoder reports the loss at its next flush. */
    for (i = 0; i < 200; i++) {
        g_usleep(1000);
        read_packets(fd, got, &in_packet);
    }
    wr(qts, ENCODER0 + CONTROL, ACTIVE | ENABLE | SYNC_MODE(0));
    wait_for(qts, ENCODER0 + CONTROL, EMPTY, EMPTY);
    for (i = 0; i < 200; i++) {
        g_usleep(1000);
        read_packets(fd, got, &in_packet);
    }

    g_assert_cmpuint(got->len, >, sizeof(after));
    prefix = got->len - sizeof(after);
    g_assert_cmpuint(prefix, <, want->len - 5);
    g_assert_cmpmem(got->data, prefix, want->data, prefix);
    g_assert_cmpmem(got->data + prefix, sizeof(after), after, sizeof(after));

    close(fd);
    qtest_quit(qts);
    unlink(fifo);
    rmdir(dir);
}

/*
 * RAM sinks, one per hart (trace-sink=ram): type 9, version 1.0, SMEM
 * only; release from reset gives SMEM and AsyncFreq 3; the address
 * registers hold 56-bit word addresses (write 0 and all-ones to find the
 * range, as a driver does); bit 0 of trRamWPLow is the wrap flag, which
 * a write sets or clears.
 */
static void test_ram_registers(void)
{
    QTestState *qts = qtest_init("-machine virt,trace=on,trace-sink=ram "
                                 "-smp 2 -bios none -accel tcg -S");

    g_assert_cmphex(rd(qts, RAM0 + IMPL), ==, 0x00002901);
    g_assert_cmphex(rd(qts, RAM1 + IMPL), ==, 0x00002901);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL), ==, EMPTY);
    /* Held in reset: other writes are ignored. */
    wr(qts, RAM0 + START_LOW, 0x80000000);
    g_assert_cmphex(rd(qts, RAM0 + START_LOW), ==, 0);

    wr(qts, RAM0 + CONTROL, ACTIVE);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL), ==,
                    ACTIVE | EMPTY | RAM_SMEM | ASYNC_FREQ(3));
    /* No SRAM: the mode stays SMEM; one memory format; reserved 0. */
    wr(qts, RAM0 + CONTROL, ACTIVE);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL), ==,
                    ACTIVE | EMPTY | RAM_SMEM);
    wr(qts, RAM0 + CONTROL, 0xffff8000 | ACTIVE | STOP_ON_WRAP |
       MEM_FORMAT(3) | ASYNC_FREQ(7) | 0xe4);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL), ==,
                    ACTIVE | EMPTY | RAM_SMEM | STOP_ON_WRAP |
                    ASYNC_FREQ(7));

    wr(qts, RAM0 + START_LOW, 0);
    wr(qts, RAM0 + START_HIGH, 0);
    wr(qts, RAM0 + LIMIT_LOW, 0xffffffff);
    wr(qts, RAM0 + LIMIT_HIGH, 0xffffffff);
    g_assert_cmphex(rd(qts, RAM0 + START_LOW), ==, 0);
    g_assert_cmphex(rd(qts, RAM0 + START_HIGH), ==, 0);
    g_assert_cmphex(rd(qts, RAM0 + LIMIT_LOW), ==, 0xfffffffc);
    g_assert_cmphex(rd(qts, RAM0 + LIMIT_HIGH), ==, 0x00ffffff);
    wr(qts, RAM0 + WP_LOW, 0x80001003);
    wr(qts, RAM0 + WP_HIGH, 0xffffffff);
    g_assert_cmphex(rd(qts, RAM0 + WP_LOW), ==, 0x80001001);
    g_assert_cmphex(rd(qts, RAM0 + WP_HIGH), ==, 0x00ffffff);
    wr(qts, RAM0 + WP_LOW, 0x80001000);
    g_assert_cmphex(rd(qts, RAM0 + WP_LOW), ==, 0x80001000);
    wr(qts, RAM0 + RP_LOW, 0xffffffff);
    wr(qts, RAM0 + RP_HIGH, 0x12345678);
    g_assert_cmphex(rd(qts, RAM0 + RP_LOW), ==, 0xfffffffc);
    g_assert_cmphex(rd(qts, RAM0 + RP_HIGH), ==, 0x00345678);
    /* trRamData: no SRAM to read. */
    g_assert_cmphex(rd(qts, RAM0 + 0x040), ==, 0);

    /* The other sink is its own. */
    g_assert_cmphex(rd(qts, RAM1 + CONTROL), ==, EMPTY);
    qtest_quit(qts);
}

/*
 * loop_program traced into RAM sink 0 with the register sequences of a
 * guest driver: reset and release each component (write 0, wait for
 * Active = 0, write 1, wait for Active = 1), the buffer at BUF from
 * trRamStart to trRamLimit = BUF + @size - 4 with trRamWP = BUF, the sink
 * enabled (@ctl: StopOnWrap), then the encoder (Enable, InstTracing).
 * Once the hart is in its loop and its encoder has handed on what it
 * holds, tracing stops: InstTracing cleared, Empty awaited (the last
 * support packet says the encoder is still enabled), Enable cleared;
 * then the sink, whose Enable = 0 writes out the word it holds, padded
 * with null.idle bytes.
 */
static QTestState *ram_loop_start_at(const char *sinks, uint64_t buf,
                                     uint32_t size, uint32_t ctl, bool srcid)
{
    QTestState *qts;
    uint32_t v;
    unsigned i;

    qts = qtest_initf("-machine virt,trace=on,trace-sink=%s -bios none "
                      "-accel tcg -S", sinks);
    for (i = 0; i < ARRAY_SIZE(loop_program); i++) {
        qtest_writel(qts, DRAM + 4 * i, loop_program[i]);
    }
    wr(qts, RAM0 + CONTROL, 0);
    wait_for(qts, RAM0 + CONTROL, ACTIVE, 0);
    wr(qts, RAM0 + CONTROL, ACTIVE);
    wait_for(qts, RAM0 + CONTROL, ACTIVE, ACTIVE);
    wr(qts, RAM0 + START_LOW, buf);
    wr(qts, RAM0 + START_HIGH, 0);
    wr(qts, RAM0 + LIMIT_LOW, buf + size - 4);
    wr(qts, RAM0 + LIMIT_HIGH, 0);
    g_assert_cmphex(rd(qts, RAM0 + LIMIT_LOW), ==, buf + size - 4);
    wr(qts, RAM0 + WP_LOW, buf);
    wr(qts, RAM0 + WP_HIGH, 0);
    v = rd(qts, RAM0 + CONTROL);
    wr(qts, RAM0 + CONTROL, v | ctl | ENABLE);
    wait_for(qts, RAM0 + CONTROL, ENABLE, ENABLE);
    if (!strcmp(sinks, "funnel-ram")) {
        wr(qts, FUNNEL0 + CONTROL, ACTIVE);
        wr(qts, FUNNEL0 + CONTROL, ACTIVE | ENABLE);
        wait_for(qts, FUNNEL0 + CONTROL, ENABLE, ENABLE);
    }

    wr(qts, ENCODER0 + CONTROL, 0);
    wait_for(qts, ENCODER0 + CONTROL, ACTIVE, 0);
    wr(qts, ENCODER0 + CONTROL, ACTIVE);
    wait_for(qts, ENCODER0 + CONTROL, ACTIVE, ACTIVE);
    if (srcid) {
        /* srcID 0x5a, 8 bits */
        wr(qts, ENCODER0 + INST_FEATURES, 0x805a0000);
    }
    v = rd(qts, ENCODER0 + CONTROL);
    wr(qts, ENCODER0 + CONTROL, v | ENABLE);
    wait_for(qts, ENCODER0 + CONTROL, ENABLE, ENABLE);
    wr(qts, ENCODER0 + CONTROL, v | ENABLE | INST_MODE(6) | INST_TRACING);
    wait_for(qts, ENCODER0 + CONTROL, INST_TRACING, INST_TRACING);

    qtest_qmp_assert_success(qts, "{ 'execute': 'cont' }");
    g_usleep(200 * 1000);
    wait_for(qts, ENCODER0 + CONTROL, EMPTY, EMPTY);
    return qts;
}

static QTestState *ram_loop_start_on(const char *sinks, uint32_t size,
                                     uint32_t ctl, bool srcid)
{
    return ram_loop_start_at(sinks, BUF, size, ctl, srcid);
}

static QTestState *ram_loop_start(uint32_t size, uint32_t ctl)
{
    return ram_loop_start_on("ram", size, ctl, false);
}

static void ram_loop_stop(QTestState *qts)
{
    uint32_t v;

    v = rd(qts, ENCODER0 + CONTROL);
    wr(qts, ENCODER0 + CONTROL, v & ~INST_TRACING);
    wait_for(qts, ENCODER0 + CONTROL, INST_TRACING | EMPTY, EMPTY);
    wr(qts, ENCODER0 + CONTROL, v & ~(INST_TRACING | ENABLE));
    wait_for(qts, ENCODER0 + CONTROL, ENABLE | EMPTY, EMPTY);
    v = rd(qts, RAM0 + CONTROL);
    wr(qts, RAM0 + CONTROL, v & ~ENABLE);
    wait_for(qts, RAM0 + CONTROL, ENABLE | EMPTY, EMPTY);
}

static QTestState *ram_loop(uint32_t size, uint32_t ctl)
{
    QTestState *qts = ram_loop_start(size, ctl);

    ram_loop_stop(qts);
    return qts;
}

/*
 * The bytes of ram_loop: the sink's synchronisation sequence (39
 * null.idle, 1 null.alignment: trRamAsyncFreq 3 starts with one), the
 * 17 bytes of the packets of loop_program, and null.idle bytes to the end
 * of the word: 60 bytes.
 */
#define LOOP_RAM_LEN    60

/* The same with @srcid, 8 bits, after each header: 5 more bytes, 64. */
#define LOOP_RAM_SRCID_LEN  64

static void loop_ram_bytes_srcid(uint8_t *want, int srcid)
{
    unsigned len = srcid < 0 ? LOOP_RAM_LEN : LOOP_RAM_SRCID_LEN;
    unsigned at = SYNC_LEN, i;

    memset(want, 0, len);
    want[SYNC_LEN - 1] = 0x80;
    for (i = 0; i < sizeof(loop_packets); ) {
        unsigned n = loop_packets[i] & 0x1f;

        want[at++] = loop_packets[i++];
        if (srcid >= 0) {
            want[at++] = srcid;
        }
        memcpy(want + at, loop_packets + i, n);
        at += n;
        i += n;
    }
    g_assert_cmpuint(ROUND_UP(at, 4), ==, len);
}

static void loop_ram_bytes(uint8_t *want)
{
    loop_ram_bytes_srcid(want, -1);
}

static void test_ram_smem(void)
{
    QTestState *qts = ram_loop(64 * KiB, 0);
    uint8_t want[LOOP_RAM_LEN], got[LOOP_RAM_LEN];

    loop_ram_bytes(want);
    g_assert_cmphex(rd(qts, RAM0 + WP_LOW), ==, BUF + LOOP_RAM_LEN);
    g_assert_cmphex(rd(qts, RAM0 + WP_HIGH), ==, 0);
    qtest_memread(qts, BUF, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), want, sizeof(want));
    /* Nothing after it. */
    g_assert_cmphex(qtest_readl(qts, BUF + LOOP_RAM_LEN), ==, 0);
    qtest_quit(qts);
}

/*
 * trace-sink=funnel-ram with one hart: the encoder, the funnel, the RAM
 * sink at RAM0; no srcID with one hart, so the bytes of test_ram_smem.
 */
static void test_funnel_ram(void)
{
    QTestState *qts = ram_loop_start_on("funnel-ram", 64 * KiB, 0, false);
    uint8_t want[LOOP_RAM_LEN], got[LOOP_RAM_LEN];

    ram_loop_stop(qts);
    loop_ram_bytes(want);
    g_assert_cmphex(rd(qts, RAM0 + WP_LOW), ==, BUF + LOOP_RAM_LEN);
    qtest_memread(qts, BUF, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), want, sizeof(want));
    /* No PIB sink. */
    g_assert_cmphex(rd(qts, PIB + IMPL), ==, 0);
    qtest_quit(qts);
}

/*
 * A 32-byte buffer without StopOnWrap: the 60 bytes go round it once;
 * trRamWP is 60 - 32 = 28 bytes in, with the wrap flag, and the buffer
 * holds bytes 32-59 at offsets 0-27 and bytes 28-31 at 28-31.
 */
static void test_ram_wrap(void)
{
    QTestState *qts = ram_loop(32, 0);
    uint8_t want[LOOP_RAM_LEN], got[32];

    loop_ram_bytes(want);
    g_assert_cmphex(rd(qts, RAM0 + WP_LOW), ==, (BUF + 28) | 1);
    qtest_memread(qts, BUF, got, sizeof(got));
    g_assert_cmpmem(got, 28, want + 32, 28);
    g_assert_cmpmem(got + 28, 4, want + 28, 4);
    g_assert_cmphex(qtest_readl(qts, BUF + 32), ==, 0);
    /* A write of trRamWPLow clears the flag. */
    wr(qts, RAM0 + WP_LOW, BUF);
    g_assert_cmphex(rd(qts, RAM0 + WP_LOW), ==, BUF);
    qtest_quit(qts);
}

/*
 * A 56-byte buffer with StopOnWrap: the sequence and the packets up to
 * the format 1 of the stop (40 + 15 bytes) fit; the last support packet
 * (2 bytes) does not fit in the 1 left: it is filled with null.idle,
 * trRamWP goes back to trRamStart with the wrap flag, the sink disables
 * itself, and the encoder counts the refused packet as lost
 * (InstStallOrOverflow).
 */
static void test_ram_stop_on_wrap(void)
{
    QTestState *qts = ram_loop(56, STOP_ON_WRAP);
    uint8_t want[56], got[56];

    memset(want, 0, sizeof(want));
    want[SYNC_LEN - 1] = 0x80;
    memcpy(want + SYNC_LEN, loop_packets, 15);
    g_assert_cmphex(rd(qts, RAM0 + WP_LOW), ==, BUF | 1);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL) & ENABLE, ==, 0);
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL) & STALL_OVERFLOW, ==,
                    STALL_OVERFLOW);
    qtest_memread(qts, BUF, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), want, sizeof(want));
    g_assert_cmphex(qtest_readl(qts, BUF + 56), ==, 0);
    qtest_quit(qts);
}

/*
 * SRAM mode (-global riscv-trace-ram-sink.sram-size=256,smem=off): type
 * 9 with HasSRAM only, SRAM mode after release, the buffer all of the
 * SRAM (trRamStart 0 whatever is written, trRamLimit 252 after reset and
 * below 256 whatever is written); loop_program traced into it, read back
 * a word at a time through trRamRP and trRamData, which goes back to
 * trRamStart after trRamLimit.
 */
static void test_ram_sram(void)
{
    QTestState *qts;
    uint8_t want[LOOP_RAM_LEN];
    uint32_t v;
    unsigned i;

    qts = qtest_init("-machine virt,trace=on,trace-sink=ram -bios none "
                     "-global riscv-trace-ram-sink.sram-size=256 "
                     "-global riscv-trace-ram-sink.smem=off -accel tcg -S");
    g_assert_cmphex(rd(qts, RAM0 + IMPL), ==, 0x00001901);
    for (i = 0; i < ARRAY_SIZE(loop_program); i++) {
        qtest_writel(qts, DRAM + 4 * i, loop_program[i]);
    }
    wr(qts, RAM0 + CONTROL, ACTIVE);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL), ==,
                    ACTIVE | EMPTY | ASYNC_FREQ(3));
    /* SMEM is not there: the mode stays SRAM. */
    wr(qts, RAM0 + CONTROL, ACTIVE | RAM_SMEM | ASYNC_FREQ(3));
    g_assert_cmphex(rd(qts, RAM0 + CONTROL) & RAM_SMEM, ==, 0);
    g_assert_cmphex(rd(qts, RAM0 + START_LOW), ==, 0);
    g_assert_cmphex(rd(qts, RAM0 + LIMIT_LOW), ==, 252);
    wr(qts, RAM0 + START_LOW, 0x40);
    g_assert_cmphex(rd(qts, RAM0 + START_LOW), ==, 0);
    wr(qts, RAM0 + LIMIT_LOW, 0xffffffff);
    wr(qts, RAM0 + LIMIT_HIGH, 0xffffffff);
    g_assert_cmphex(rd(qts, RAM0 + LIMIT_LOW), ==, 252);
    g_assert_cmphex(rd(qts, RAM0 + LIMIT_HIGH), ==, 0);
    wr(qts, RAM0 + WP_LOW, 0);
    wr(qts, RAM0 + CONTROL, ACTIVE | ENABLE | ASYNC_FREQ(3));

    wr(qts, ENCODER0 + CONTROL, ACTIVE);
    v = rd(qts, ENCODER0 + CONTROL);
    wr(qts, ENCODER0 + CONTROL, v | ENABLE | INST_TRACING);
    qtest_qmp_assert_success(qts, "{ 'execute': 'cont' }");
    g_usleep(200 * 1000);
    wait_for(qts, ENCODER0 + CONTROL, EMPTY, EMPTY);
    wr(qts, ENCODER0 + CONTROL, v | ENABLE);
    wait_for(qts, ENCODER0 + CONTROL, INST_TRACING | EMPTY, EMPTY);
    wr(qts, ENCODER0 + CONTROL, v);
    wait_for(qts, ENCODER0 + CONTROL, ENABLE | EMPTY, EMPTY);
    wr(qts, RAM0 + CONTROL, ACTIVE | ASYNC_FREQ(3));
    wait_for(qts, RAM0 + CONTROL, ENABLE | EMPTY, EMPTY);

    loop_ram_bytes(want);
    g_assert_cmphex(rd(qts, RAM0 + WP_LOW), ==, LOOP_RAM_LEN);
    wr(qts, RAM0 + RP_LOW, 0);
    for (i = 0; i < LOOP_RAM_LEN; i += 4) {
        g_assert_cmphex(rd(qts, RAM0 + 0x040), ==,
                        (uint32_t)ldl_le_p(want + i));
    }
    g_assert_cmphex(rd(qts, RAM0 + RP_LOW), ==, LOOP_RAM_LEN);
    /* The word at trRamLimit, then trRamStart again. */
    wr(qts, RAM0 + RP_LOW, 252);
    g_assert_cmphex(rd(qts, RAM0 + 0x040), ==, 0);
    g_assert_cmphex(rd(qts, RAM0 + RP_LOW), ==, 0);
    g_assert_cmphex(rd(qts, RAM0 + 0x040), ==, (uint32_t)ldl_le_p(want));
    /* trRamData is read-only. */
    wr(qts, RAM0 + 0x040, 0x12345678);
    wr(qts, RAM0 + RP_LOW, 0);
    g_assert_cmphex(rd(qts, RAM0 + 0x040), ==, (uint32_t)ldl_le_p(want));
    qtest_quit(qts);
}

/* Both modes: trRamMode chooses, while the sink is disabled. */
static void test_ram_both_modes(void)
{
    QTestState *qts;

    qts = qtest_init("-machine virt,trace=on,trace-sink=ram -bios none "
                     "-global riscv-trace-ram-sink.sram-size=1024 "
                     "-accel tcg -S");
    g_assert_cmphex(rd(qts, RAM0 + IMPL), ==, 0x00003901);
    wr(qts, RAM0 + CONTROL, ACTIVE);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL) & RAM_SMEM, ==, RAM_SMEM);
    wr(qts, RAM0 + LIMIT_LOW, 0x80001ffc);
    g_assert_cmphex(rd(qts, RAM0 + LIMIT_LOW), ==, 0x80001ffc);
    /* To SRAM: the address registers take SRAM offsets. */
    wr(qts, RAM0 + CONTROL, ACTIVE);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL) & RAM_SMEM, ==, 0);
    g_assert_cmphex(rd(qts, RAM0 + LIMIT_LOW), ==, 0x3fc);
    /* Enabled: the mode does not change. */
    wr(qts, RAM0 + CONTROL, ACTIVE | ENABLE);
    wr(qts, RAM0 + CONTROL, ACTIVE | ENABLE | RAM_SMEM);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL) & RAM_SMEM, ==, 0);
    /* Nor in the write that disables it; once disabled, it does. */
    wr(qts, RAM0 + CONTROL, ACTIVE | RAM_SMEM);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL) & (ENABLE | RAM_SMEM), ==, 0);
    wr(qts, RAM0 + CONTROL, ACTIVE | RAM_SMEM);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL) & RAM_SMEM, ==, RAM_SMEM);
    qtest_quit(qts);
}

/*
 * Held in reset, a sink with both modes reads Mode as SRAM (trRamControl
 * is 0) while trRamRP keeps the SMEM address it had: trRamData reads 0
 * (no SRAM mode while held in reset), never memory beyond the SRAM.
 */
static void test_ram_data_in_reset(void)
{
    QTestState *qts;

    qts = qtest_init("-machine virt,trace=on,trace-sink=ram -bios none "
                     "-global riscv-trace-ram-sink.sram-size=256 "
                     "-accel tcg -S");
    wr(qts, RAM0 + CONTROL, 0);
    wr(qts, RAM0 + CONTROL, ACTIVE);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL) & RAM_SMEM, ==, RAM_SMEM);
    wr(qts, RAM0 + RP_HIGH, 0x00ffffff);
    wr(qts, RAM0 + RP_LOW, 0xfffffffc);
    wr(qts, RAM0 + CONTROL, 0);
    g_assert_cmphex(rd(qts, RAM0 + RP_LOW), ==, 0xfffffffc);
    g_assert_cmphex(rd(qts, RAM0 + 0x040), ==, 0);
    g_assert_cmphex(rd(qts, RAM0 + RP_LOW), ==, 0xfffffffc);
    wr(qts, RAM0 + RP_HIGH, 0);
    wr(qts, RAM0 + RP_LOW, 0x40);
    g_assert_cmphex(rd(qts, RAM0 + 0x040), ==, 0);
    /* Released and in SRAM mode, RP is an SRAM offset again. */
    wr(qts, RAM0 + CONTROL, ACTIVE);
    wr(qts, RAM0 + CONTROL, ACTIVE);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL) & RAM_SMEM, ==, 0);
    g_assert_cmphex(rd(qts, RAM0 + RP_HIGH), ==, 0);
    g_assert_cmphex(rd(qts, RAM0 + 0x040), ==, 0);
    g_assert_cmphex(rd(qts, RAM0 + IMPL), ==, 0x00003901);
    qtest_quit(qts);
}

/*
 * A buffer over the registers of the sink itself (trRamStart = trRamWP =
 * the sink, 4 KiB, Control 0x3013) or of the funnel that feeds it: a
 * component taking packets is in DMA, so the writes that would reach its
 * own registers fail (logged) and change nothing; trRamWP still moves on
 * by the 60 bytes of ram_loop as it does for any failed write.
 */
static void ram_over_registers(const char *sinks, uint64_t comp)
{
    QTestState *qts = ram_loop_start_at(sinks, comp, 4 * KiB, 0, false);

    g_assert_cmphex(rd(qts, RAM0 + CONTROL) & ~EMPTY, ==,
                    ACTIVE | ENABLE | RAM_SMEM | ASYNC_FREQ(3));
    g_assert_cmphex(rd(qts, RAM0 + START_LOW), ==, comp);
    g_assert_cmphex(rd(qts, RAM0 + LIMIT_LOW), ==, comp + 0xffc);
    if (comp == FUNNEL0) {
        g_assert_cmphex(rd(qts, FUNNEL0 + CONTROL), ==,
                        ACTIVE | ENABLE | EMPTY);
    }
    ram_loop_stop(qts);
    g_assert_cmphex(rd(qts, RAM0 + WP_LOW), ==, comp + LOOP_RAM_LEN);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL), ==,
                    ACTIVE | EMPTY | RAM_SMEM | ASYNC_FREQ(3));
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL) & STALL_OVERFLOW, ==, 0);
    qtest_quit(qts);
}

static void test_ram_over_itself(void)
{
    ram_over_registers("ram", RAM0);
}

static void test_ram_over_funnel(void)
{
    ram_over_registers("funnel-ram", FUNNEL0);
}

/*
 * The word the sink holds is written where a packet would go: with
 * trRamWP moved outside the buffer, at trRamStart; with trRamLimit below
 * trRamStart, nowhere.  ram_loop leaves 57 bytes: 56 in memory and one
 * (0x5f, the end of the last support packet) held.
 */
static void test_ram_flush_window(void)
{
    QTestState *qts = ram_loop_start(64 * KiB, 0);
    uint32_t v, word = 0x5f;

    v = rd(qts, ENCODER0 + CONTROL);
    wr(qts, ENCODER0 + CONTROL, v & ~INST_TRACING);
    wait_for(qts, ENCODER0 + CONTROL, INST_TRACING | EMPTY, EMPTY);
    g_assert_cmphex(rd(qts, RAM0 + WP_LOW), ==, BUF + 56);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL) & EMPTY, ==, 0);
    qtest_writel(qts, BUF + 128 * KiB, 0xdeadbeef);
    wr(qts, RAM0 + WP_LOW, BUF + 128 * KiB);
    v = rd(qts, RAM0 + CONTROL);
    wr(qts, RAM0 + CONTROL, v & ~ENABLE);
    wait_for(qts, RAM0 + CONTROL, ENABLE | EMPTY, EMPTY);
    g_assert_cmphex(qtest_readl(qts, BUF + 128 * KiB), ==, 0xdeadbeef);
    g_assert_cmphex(qtest_readl(qts, BUF), ==, word);
    g_assert_cmphex(rd(qts, RAM0 + WP_LOW), ==, BUF + 4);
    qtest_quit(qts);

    qts = ram_loop_start(64 * KiB, 0);
    v = rd(qts, ENCODER0 + CONTROL);
    wr(qts, ENCODER0 + CONTROL, v & ~INST_TRACING);
    wait_for(qts, ENCODER0 + CONTROL, INST_TRACING | EMPTY, EMPTY);
    wr(qts, RAM0 + LIMIT_LOW, BUF - 4);
    v = rd(qts, RAM0 + CONTROL);
    wr(qts, RAM0 + CONTROL, v & ~ENABLE);
    wait_for(qts, RAM0 + CONTROL, ENABLE | EMPTY, EMPTY);
    g_assert_cmphex(qtest_readl(qts, BUF + 56), ==, 0);
    g_assert_cmphex(rd(qts, RAM0 + WP_LOW), ==, BUF + 56);
    qtest_quit(qts);
}

/* The migration status once it has ended, and its error if it failed. */
static char *migration_end(QTestState *qts, char **error)
{
    int i;

    for (i = 0; i < 5000; i++) {
        QDict *rsp = qtest_qmp(qts, "{ 'execute': 'query-migrate' }");
        QDict *ret = qdict_get_qdict(rsp, "return");
        const char *status = qdict_haskey(ret, "status") ?
                             qdict_get_str(ret, "status") : "";

        if (!strcmp(status, "completed") || !strcmp(status, "failed")) {
            char *end = g_strdup(status);

            *error = g_strdup(qdict_haskey(ret, "error-desc") ?
                              qdict_get_str(ret, "error-desc") : "");
            qobject_unref(rsp);
            return end;
        }
        qobject_unref(rsp);
        g_usleep(1000);
    }
    g_assert_not_reached();
}

/* The migration ends and completes. */
static void wait_migration(QTestState *qts)
{
    g_autofree char *status = NULL, *error = NULL;

    status = migration_end(qts, &error);
    g_assert_cmpstr(status, ==, "completed");
}

/*
 * A migration stream whose PIB sink FIFO length is larger than the
 * destination's FIFO (fifo-size 1024) is refused before any byte is
 * loaded into it; the destination stays up.  The section of the sink:
 * its idstr, instance and version ids (4 bytes each), trPibControl (4),
 * then the length (4, big-endian).
 */
static void test_pib_migrate_bad_length(void)
{
    static const char name[] = "riscv-trace-pib-sink";
    g_autofree char *dir = g_dir_make_tmp("riscv-trace-XXXXXX", NULL);
    g_autofree char *stream = g_strdup_printf("%s/stream", dir);
    g_autofree char *uri = g_strdup_printf("file:%s", stream);
    g_autofree char *status = NULL, *error = NULL;
    g_autofree gchar *data = NULL;
    g_autofree uint8_t *bad = NULL;
    const char *args = "-machine virt,trace=on -bios none -accel tcg "
                       "-global riscv-trace-pib-sink.fifo-size=1024";
    QTestState *qts;
    gsize len, at, k;

    qts = qtest_initf("%s -S", args);
    qtest_qmp_assert_success(qts, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    wait_migration(qts);
    qtest_quit(qts);

    g_assert_true(g_file_get_contents(stream, &data, &len, NULL));
    at = memmem(data, len, name, strlen(name)) - (void *)data;
    g_assert_cmpuint(at, <, len);
    /* The idstr ends with the name and follows its length byte. */
    for (k = at; k > 0 && (uint8_t)data[k - 1] != at + strlen(name) - k;
         k--) {
        ;
    }
    g_assert_cmpuint(k, >, 0);
    at += strlen(name) + 4 + 4 + 4;
    g_assert_cmphex(ldl_be_p(data + at), ==, 0);
    /* More bytes than the FIFO holds, and as many in the stream. */
    bad = g_malloc0(len + 8 * KiB);
    memcpy(bad, data, len);
    stl_be_p(bad + at, 1024 + 4 * KiB);
    g_assert_true(g_file_set_contents(stream, (char *)bad, len + 8 * KiB,
                                      NULL));

    qts = qtest_initf("%s -incoming defer", args);
    qtest_qmp_assert_success(qts, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s, "
                             "'exit-on-error': false } }", uri);
    status = migration_end(qts, &error);
    g_assert_cmpstr(status, ==, "failed");
    g_assert_nonnull(strstr(error, "riscv-trace-pib-sink/fifo_len <= "
                                   "fifo-size"));
    g_assert_cmphex(rd(qts, PIB + IMPL), ==, 0x00000a01);
    qtest_quit(qts);
    unlink(stream);
    rmdir(dir);
}

/*
 * A machine with RAM sinks migrates with its sinks held in reset (as
 * they are until a driver sets them up) and one released.
 */
static void test_ram_migrate_in_reset(void)
{
    g_autofree char *dir = g_dir_make_tmp("riscv-trace-XXXXXX", NULL);
    g_autofree char *stream = g_strdup_printf("%s/stream", dir);
    g_autofree char *uri = g_strdup_printf("file:%s", stream);
    const char *args = "-machine virt,trace=on,trace-sink=ram -smp 2 "
                       "-bios none -accel tcg";
    QTestState *qts;

    qts = qtest_initf("%s -S", args);
    wr(qts, RAM1 + CONTROL, ACTIVE);
    wr(qts, RAM1 + LIMIT_LOW, BUF + 0xffc);
    qtest_qmp_assert_success(qts, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    wait_migration(qts);
    qtest_quit(qts);

    qts = qtest_initf("%s -incoming defer", args);
    qtest_qmp_assert_success(qts, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s, "
                             "'exit-on-error': false } }", uri);
    wait_migration(qts);
    g_assert_cmphex(rd(qts, RAM0 + CONTROL), ==, EMPTY);
    g_assert_cmphex(rd(qts, RAM1 + CONTROL), ==,
                    ACTIVE | EMPTY | RAM_SMEM | ASYNC_FREQ(3));
    g_assert_cmphex(rd(qts, RAM1 + LIMIT_LOW), ==, BUF + 0xffc);
    qtest_quit(qts);
    unlink(stream);
    rmdir(dir);
}

/*
 * ram_loop with an 8-bit srcID migrated while tracing: the sink holds 3
 * bytes of a word (40 + 15 written, 52 in memory) and the encoder the
 * three branch outcomes of the loop.  On the destination, stopping gives
 * exactly the bytes of a run without migration.  The encoder's timestamp
 * unit, stopped, keeps its counter; its filter registers keep their
 * values.
 */
static void test_ram_migrate(void)
{
    g_autofree char *dir = g_dir_make_tmp("riscv-trace-XXXXXX", NULL);
    g_autofree char *stream = g_strdup_printf("%s/stream", dir);
    g_autofree char *uri = g_strdup_printf("file:%s", stream);
    QTestState *src = ram_loop_start_on("ram", 64 * KiB, 0, true);
    QTestState *dst;
    uint8_t want[LOOP_RAM_SRCID_LEN], got[LOOP_RAM_SRCID_LEN];
    uint32_t ts;

    /* The timestamp unit: counted a while, stopped at ts. */
    wr(src, ENCODER0 + 0x040, ACTIVE);
    wr(src, ENCODER0 + 0x040, ACTIVE | (1u << 1));
    g_usleep(1000);
    wr(src, ENCODER0 + 0x040, ACTIVE);
    ts = rd(src, ENCODER0 + 0x048);
    g_assert_cmpuint(ts, >, 0);
    /* Filters set up, none selected: they migrate, nothing is filtered. */
    wr(src, ENCODER0 + 0x460, 0xab);
    wr(src, ENCODER0 + 0x6fc, 0x12345678);

    g_assert_cmphex(rd(src, RAM0 + WP_LOW), ==, BUF + 52);
    g_assert_cmphex(rd(src, RAM0 + CONTROL) & EMPTY, ==, 0);
    qtest_qmp_assert_success(src, "{ 'execute': 'stop' }");
    qtest_qmp_assert_success(src, "{ 'execute': 'migrate', 'arguments': "
                             "{ 'uri': %s } }", uri);
    wait_migration(src);
    qtest_quit(src);

    dst = qtest_init("-machine virt,trace=on,trace-sink=ram -bios none "
                     "-accel tcg -incoming defer");
    qtest_qmp_assert_success(dst, "{ 'execute': 'migrate-incoming', "
                             "'arguments': { 'uri': %s } }", uri);
    wait_migration(dst);
    g_assert_cmphex(rd(dst, RAM0 + WP_LOW), ==, BUF + 52);
    g_assert_cmphex(rd(dst, RAM0 + CONTROL) & (ENABLE | EMPTY), ==, ENABLE);
    g_assert_cmphex(rd(dst, ENCODER0 + 0x040), ==, 0x30000031);
    g_assert_cmphex(rd(dst, ENCODER0 + 0x048), ==, ts);
    g_assert_cmphex(rd(dst, ENCODER0 + 0x460), ==, 0xab);
    g_assert_cmphex(rd(dst, ENCODER0 + 0x6fc), ==, 0x12345678);
    qtest_qmp_assert_success(dst, "{ 'execute': 'cont' }");
    ram_loop_stop(dst);

    loop_ram_bytes_srcid(want, 0x5a);
    g_assert_cmphex(rd(dst, RAM0 + WP_LOW), ==, BUF + LOOP_RAM_SRCID_LEN);
    qtest_memread(dst, BUF, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), want, sizeof(want));
    qtest_quit(dst);
    unlink(stream);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/riscv-trace/encoder-registers", test_encoder_registers);
    qtest_add_func("/riscv-trace/data-registers", test_data_registers);
    qtest_add_func("/riscv-trace/context-register", test_context_register);
    qtest_add_func("/riscv-trace/funnel-pib-registers",
                   test_funnel_pib_registers);
    qtest_add_func("/riscv-trace/enable-disable", test_enable_disable);
    qtest_add_func("/riscv-trace/socket-bytes", test_socket_bytes);
    qtest_add_func("/riscv-trace/two-harts", test_two_harts);
    qtest_add_func("/riscv-trace/stall", test_stall);
    qtest_add_func("/riscv-trace/loss", test_loss);
    qtest_add_func("/riscv-trace/ram-registers", test_ram_registers);
    qtest_add_func("/riscv-trace/ram-smem", test_ram_smem);
    qtest_add_func("/riscv-trace/ram-wrap", test_ram_wrap);
    qtest_add_func("/riscv-trace/funnel-ram", test_funnel_ram);
    qtest_add_func("/riscv-trace/ram-stop-on-wrap", test_ram_stop_on_wrap);
    qtest_add_func("/riscv-trace/ram-migrate", test_ram_migrate);
    qtest_add_func("/riscv-trace/ram-sram", test_ram_sram);
    qtest_add_func("/riscv-trace/ram-both-modes", test_ram_both_modes);
    qtest_add_func("/riscv-trace/ram-data-in-reset", test_ram_data_in_reset);
    qtest_add_func("/riscv-trace/ram-over-itself", test_ram_over_itself);
    qtest_add_func("/riscv-trace/ram-over-funnel", test_ram_over_funnel);
    qtest_add_func("/riscv-trace/ram-flush-window", test_ram_flush_window);
    qtest_add_func("/riscv-trace/pib-migrate-bad-length",
                   test_pib_migrate_bad_length);
    qtest_add_func("/riscv-trace/ram-migrate-in-reset",
                   test_ram_migrate_in_reset);
    qtest_add_func("/riscv-trace/stall-stop", test_stall_stop);
    return g_test_run();
}
