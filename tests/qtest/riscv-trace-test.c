/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * QTest for the RISC-V trace components of the virt machine (Trace
 * Control Interface 1.0): the registers of the encoder, funnel and PIB
 * sink (reset values, release from reset, WARL discovery, enabling and
 * disabling, Empty), and the bytes a traced guest program sends through
 * a socket chardev, worked out from the E-Trace 2.0 and Encapsulation 1.0
 * specifications.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/sockets.h"
#include "libqtest.h"

#define ENCODER0        0x3020000
#define ENCODER1        0x3021000
#define FUNNEL0         0x3012000
#define PIB             0x3011000
#define DRAM            0x80000000

#define CONTROL         0x000
#define IMPL            0x004
#define INST_FEATURES   0x008
#define INST_FILTERS    0x00c

/* Control register fields common to the components. */
#define ACTIVE          (1u << 0)
#define ENABLE          (1u << 1)
#define EMPTY           (1u << 3)

/* trTeControl */
#define INST_TRACING    (1u << 2)
#define INST_MODE(m)    ((uint32_t)(m) << 4)
#define STALL_OVERFLOW  (1u << 12)
#define STALL_ENA       (1u << 13)
#define INHIBIT_SRC     (1u << 15)
#define SYNC_MODE(m)    ((uint32_t)(m) << 16)
#define SYNC_MAX(m)     ((uint32_t)(m) << 20)

/* trPibControl */
#define PIB_MODE(m)     ((uint32_t)(m) << 4)
#define CLK_CENTER      (1u << 8)
#define CALIBRATE       (1u << 9)
#define ASYNC_FREQ(f)   ((uint32_t)(f) << 12)
#define DIVIDER(d)      ((uint32_t)(d) << 16)

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
    QTestState *qts = qtest_init(REG_ARGS);

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
     * hardcoded to 7 for E-Trace; resync by packets, InstSyncMax 8.
     */
    wr(qts, ENCODER0 + CONTROL, ACTIVE);
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==,
                    ACTIVE | EMPTY | INST_MODE(7) | SYNC_MODE(1) |
                    SYNC_MAX(8));

    /*
     * WARL discovery, leaving Enable 0: writable are InstTracing,
     * InstStallEna, InhibitSrc, InstSyncMode (3 is implemented),
     * InstSyncMax; InstMode stays 7, Format 0 (E-Trace), trTeContext and
     * trTeInstTrigEnable 0, InstStallOrOverflow is write-1-to-clear.
     */
    wr(qts, ENCODER0 + CONTROL, ~ENABLE);
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==,
                    ACTIVE | INST_TRACING | EMPTY | INST_MODE(7) |
                    STALL_ENA | INHIBIT_SRC | SYNC_MODE(3) | SYNC_MAX(15));
    /* InstMode writes: 0, 3, 6 all leave 7. */
    wr(qts, ENCODER0 + CONTROL, ACTIVE | INST_MODE(6) | SYNC_MODE(1));
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==,
                    ACTIVE | EMPTY | INST_MODE(7) | SYNC_MODE(1));
    /* InstSyncMode 2 (clock cycles) is not implemented: unchanged. */
    wr(qts, ENCODER0 + CONTROL, ACTIVE | SYNC_MODE(2));
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==,
                    ACTIVE | EMPTY | INST_MODE(7) | SYNC_MODE(1));
    wr(qts, ENCODER0 + CONTROL, ACTIVE | SYNC_MODE(0));
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==,
                    ACTIVE | EMPTY | INST_MODE(7) | SYNC_MODE(0));

    /*
     * trTeInstFeatures: NoAddrDiff, SrcID (12 bits) and SrcBits (0-12)
     * are implemented; the optional compression modes read 0.  The reset
     * value carries the hart's srcID, 8 bits wide with two harts.
     */
    g_assert_cmphex(rd(qts, ENCODER1 + INST_FEATURES), ==, 0x80010000);
    wr(qts, ENCODER0 + INST_FEATURES, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + INST_FEATURES), ==, 0xcfff0001);
    wr(qts, ENCODER0 + INST_FEATURES, 0x5abc0000);
    g_assert_cmphex(rd(qts, ENCODER0 + INST_FEATURES), ==, 0x5abc0000);
    wr(qts, ENCODER0 + INST_FEATURES, 0);
    g_assert_cmphex(rd(qts, ENCODER0 + INST_FEATURES), ==, 0);

    /* No filters yet, reserved registers read 0. */
    wr(qts, ENCODER0 + INST_FILTERS, 0xffff);
    g_assert_cmphex(rd(qts, ENCODER0 + INST_FILTERS), ==, 0);
    wr(qts, ENCODER0 + 0x100, 0xffffffff);
    g_assert_cmphex(rd(qts, ENCODER0 + 0x100), ==, 0);

    /* Holding it in reset clears everything. */
    wr(qts, ENCODER0 + CONTROL, 0);
    g_assert_cmphex(rd(qts, ENCODER0 + CONTROL), ==, EMPTY);
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
 *  - the PIB's synchronisation sequence: 33 null.idle, 1 null.alignment;
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

static void test_socket_bytes(void)
{
    g_autofree char *dir = g_dir_make_tmp("riscv-trace-XXXXXX", NULL);
    g_autofree char *path = g_strdup_printf("%s/sock", dir);
    uint8_t want[34 + sizeof(loop_packets)];
    uint8_t got[sizeof(want)];
    QTestState *qts;
    size_t n = 0;
    int lfd, fd;
    unsigned i;

    lfd = unix_listen(path, &error_abort);
    qts = qtest_initf("-machine virt,trace=on,trace-chardev=tr,"
                      "trace-start=on -chardev socket,id=tr,path=%s "
                      "-bios none -accel tcg -S", path);
    fd = accept(lfd, NULL, NULL);
    g_assert_cmpint(fd, >=, 0);

    for (i = 0; i < ARRAY_SIZE(loop_program); i++) {
        qtest_writel(qts, DRAM + 4 * i, loop_program[i]);
    }
    qtest_qmp_assert_success(qts, "{ 'execute': 'cont' }");
    /* Let the hart reach its loop, then stop tracing. */
    g_usleep(200 * 1000);
    wr(qts, ENCODER0 + CONTROL, ACTIVE | ENABLE | SYNC_MODE(1) |
       SYNC_MAX(8));
    wait_for(qts, ENCODER0 + CONTROL, EMPTY, EMPTY);

    memset(want, 0, 33);
    want[33] = 0x80;
    memcpy(want + 34, loop_packets, sizeof(loop_packets));
    while (n < sizeof(got)) {
        ssize_t r = recv(fd, got + n, sizeof(got) - n, 0);

        g_assert_cmpint(r, >, 0);
        n += r;
    }
    g_assert_cmpmem(got, sizeof(got), want, sizeof(want));

    close(fd);
    close(lfd);
    qtest_quit(qts);
    unlink(path);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/riscv-trace/encoder-registers", test_encoder_registers);
    qtest_add_func("/riscv-trace/funnel-pib-registers",
                   test_funnel_pib_registers);
    qtest_add_func("/riscv-trace/enable-disable", test_enable_disable);
    qtest_add_func("/riscv-trace/socket-bytes", test_socket_bytes);
    return g_test_run();
}
