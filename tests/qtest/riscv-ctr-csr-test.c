/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * QTest for the RISC-V Control Transfer Records CSRs (Smctr/Ssctr 1.0):
 * reset values of the control, status and depth registers and of the
 * entry registers, WARL legalization of sctrdepth.DEPTH, and explicit
 * entry writes with XLEN 32.
 */

#include "qemu/osdep.h"
#include "libqtest.h"

#define CSR_SCTRCTL     0x14e
#define CSR_SCTRSTATUS  0x14f
#define CSR_SISELECT    0x150
#define CSR_SIREG       0x151
#define CSR_SIREG2      0x152
#define CSR_SIREG3      0x153
#define CSR_SCTRDEPTH   0x15f
#define CSR_VSCTRCTL    0x24e
#define CSR_MCTRCTL     0x34e

/* sctrdepth.DEPTH: 0..4 select 16..256 entries, 5..7 are reserved. */
#define DEPTH_MAX_ENCODING  4

/*
 * Extension properties of RISC-V CPUs exist only with TCG (or KVM), not
 * with the qtest accelerator: use TCG, with the hart stopped (-S) so that
 * no instruction runs and the CSRs hold their reset values.
 */
#define CTR_ARGS "-machine virt -bios none -accel tcg -S " \
    "-cpu rv64,smctr=on,ssctr=on,smcsrind=on,sscsrind=on"

static uint64_t csr_get(QTestState *qts, int csr)
{
    uint64_t val = 0;

    g_assert_cmpuint(qtest_csr_call(qts, "get_csr", 0, csr, &val), ==, 0);
    return val;
}

static void csr_set(QTestState *qts, int csr, uint64_t val)
{
    g_assert_cmpuint(qtest_csr_call(qts, "set_csr", 0, csr, &val), ==, 0);
}

static void test_reset_values(void)
{
    QTestState *qts = qtest_init(CTR_ARGS);

    g_assert_cmphex(csr_get(qts, CSR_MCTRCTL), ==, 0);
    g_assert_cmphex(csr_get(qts, CSR_SCTRCTL), ==, 0);
    g_assert_cmphex(csr_get(qts, CSR_VSCTRCTL), ==, 0);
    /* WRPTR 0, not frozen. */
    g_assert_cmphex(csr_get(qts, CSR_SCTRSTATUS), ==, 0);
    /* Reset depth: encoding 0, 16 entries. */
    g_assert_cmphex(csr_get(qts, CSR_SCTRDEPTH), ==, 0);

    /* Nothing recorded yet: the first and the last entry read 0. */
    for (int sel = 0x200; sel <= 0x2ff; sel += 0xff) {
        csr_set(qts, CSR_SISELECT, sel);
        g_assert_cmphex(csr_get(qts, CSR_SIREG), ==, 0);
        g_assert_cmphex(csr_get(qts, CSR_SIREG2), ==, 0);
        g_assert_cmphex(csr_get(qts, CSR_SIREG3), ==, 0);
    }
    qtest_quit(qts);
}

static void test_sctrdepth_warl(void)
{
    QTestState *qts = qtest_init(CTR_ARGS);

    /* Every defined encoding is supported by this CPU and reads back. */
    for (uint64_t depth = 0; depth <= DEPTH_MAX_ENCODING; depth++) {
        csr_set(qts, CSR_SCTRDEPTH, depth);
        g_assert_cmphex(csr_get(qts, CSR_SCTRDEPTH), ==, depth);
    }

    /*
     * Reserved encodings (5..7) are out of range: the WARL field keeps a
     * legal value, the largest supported depth (256 entries).
     */
    for (uint64_t depth = 5; depth <= 7; depth++) {
        csr_set(qts, CSR_SCTRDEPTH, 0);
        csr_set(qts, CSR_SCTRDEPTH, depth);
        g_assert_cmphex(csr_get(qts, CSR_SCTRDEPTH), ==, DEPTH_MAX_ENCODING);
    }

    /* WPRI bits 31:3 read 0. */
    csr_set(qts, CSR_SCTRDEPTH, 0xfffffff9);
    g_assert_cmphex(csr_get(qts, CSR_SCTRDEPTH), ==, 1);
    qtest_quit(qts);
}

/*
 * A system reset clears the whole CTR state (QEMU 10.2.2 kept it):
 * control registers, status, depth and every entry.
 */
static void test_reset_clears(void)
{
    QTestState *qts = qtest_init(CTR_ARGS);

    csr_set(qts, CSR_MCTRCTL, 0x7);
    csr_set(qts, CSR_VSCTRCTL, 0x3);
    csr_set(qts, CSR_SCTRDEPTH, DEPTH_MAX_ENCODING);
    /* WRPTR 5, FROZEN: logical entry 0 is then physical entry 4. */
    csr_set(qts, CSR_SCTRSTATUS, 0x80000005);
    for (int sel = 0x200; sel <= 0x2ff; sel += 0xff) {
        csr_set(qts, CSR_SISELECT, sel);
        csr_set(qts, CSR_SIREG, 0x80001001);
        csr_set(qts, CSR_SIREG2, 0x80002000);
        csr_set(qts, CSR_SIREG3, 0x9);
        g_assert_cmphex(csr_get(qts, CSR_SIREG), ==, 0x80001001);
    }
    g_assert_cmphex(csr_get(qts, CSR_SCTRSTATUS), ==, 0x80000005);

    qtest_system_reset(qts);

    g_assert_cmphex(csr_get(qts, CSR_MCTRCTL), ==, 0);
    g_assert_cmphex(csr_get(qts, CSR_VSCTRCTL), ==, 0);
    g_assert_cmphex(csr_get(qts, CSR_SCTRDEPTH), ==, 0);
    g_assert_cmphex(csr_get(qts, CSR_SCTRSTATUS), ==, 0);
    /* Look at every entry of the largest depth. */
    csr_set(qts, CSR_SCTRDEPTH, DEPTH_MAX_ENCODING);
    for (int sel = 0x200; sel <= 0x2ff; sel++) {
        csr_set(qts, CSR_SISELECT, sel);
        g_assert_cmphex(csr_get(qts, CSR_SIREG), ==, 0);
        g_assert_cmphex(csr_get(qts, CSR_SIREG2), ==, 0);
        g_assert_cmphex(csr_get(qts, CSR_SIREG3), ==, 0);
    }
    qtest_quit(qts);
}

/*
 * Explicit writes of ctrsource/ctrtarget when XLEN is 32: the entry
 * registers are MXLEN bits and a write with XLEN < 64 holds only the low
 * 32 bits (zero-extended; spec "ctrsource", "ctrtarget").  On an RV64
 * hart QEMU's SXL and VSXL are fixed at 64, so the only explicit writes
 * with XLEN 32 come from an RV32 hart; the value here is wider than the
 * register, as a debugger (or a sign-extended RV32 register) passes it.
 */
static void test_xlen32_entry_write(void)
{
    QTestState *qts = qtest_init("-machine virt -bios none -accel tcg -S "
                                 "-cpu rv32,smctr=on,ssctr=on");

    csr_set(qts, CSR_SISELECT, 0x200);
    csr_set(qts, CSR_SIREG, 0xfffffffffffffff1ULL);
    csr_set(qts, CSR_SIREG2, 0xffffffff80002000ULL);
    g_assert_cmphex(csr_get(qts, CSR_SIREG), ==, 0xfffffff1);
    g_assert_cmphex(csr_get(qts, CSR_SIREG2), ==, 0x80002000);
    qtest_quit(qts);

    /* With XLEN 64 all 64 bits are written. */
    qts = qtest_init(CTR_ARGS);
    csr_set(qts, CSR_SISELECT, 0x200);
    csr_set(qts, CSR_SIREG, 0xfffffffffffffff1ULL);
    g_assert_cmphex(csr_get(qts, CSR_SIREG), ==, 0xfffffffffffffff1ULL);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    if (qtest_has_machine("virt")) {
        qtest_add_func("/riscv/ctr/reset-values", test_reset_values);
        qtest_add_func("/riscv/ctr/sctrdepth-warl", test_sctrdepth_warl);
        qtest_add_func("/riscv/ctr/reset-clears", test_reset_clears);
        qtest_add_func("/riscv/ctr/xlen32-entry-write",
                       test_xlen32_entry_write);
    }
    return g_test_run();
}
