/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host unit test of the CTR entry decoder shared with the guest tests.
 * Expected values come from the Smctr/Ssctr 1.0 text: the transfer type
 * table, the CC formula and the "Cycle Counter Size Options" table.
 */

#include <glib.h>

#include "ctr-decode.h"

static void test_type_names(void)
{
    static const char *const expected[16] = {
        "none", "exception", "interrupt", "trap return",
        "not-taken branch", "taken branch", "reserved", "reserved",
        "indirect call", "direct call", "indirect jump", "direct jump",
        "co-routine swap", "function return", "other indirect jump",
        "other direct jump",
    };

    for (unsigned i = 0; i < 16; i++) {
        g_assert_cmpstr(ctr_type_name(i), ==, expected[i]);
    }
    g_assert_cmpstr(ctr_type_name(16), ==, "invalid");
}

static void test_cc_formula(void)
{
    /* CCE == 0: the count is CCM. */
    g_assert_cmpuint(ctr_cc_cycles(0x0000), ==, 0);
    g_assert_cmpuint(ctr_cc_cycles(0x0fff), ==, 4095);
    /* CCE != 0: (2^12 + CCM) << (CCE - 1). */
    g_assert_cmpuint(ctr_cc_cycles(0x1000), ==, 4096);
    g_assert_cmpuint(ctr_cc_cycles(0x1fff), ==, 8191);
    g_assert_cmpuint(ctr_cc_cycles(0x2000), ==, 8192);
    g_assert_cmpuint(ctr_cc_cycles(0x2001), ==, 8194);
    g_assert_cmpuint(ctr_cc_cycles(0xf000), ==, 4096ULL << 14);
}

static void test_cc_saturation_table(void)
{
    /* "Max elapsed cycle value" per implemented CCE width. */
    static const uint64_t max_cycles[5] = {
        4095, 8191, 32764, 524224, 134201344
    };
    /* CtrCycleCounter bits per CCE width. */
    static const unsigned counter_bits[5] = { 12, 13, 15, 19, 27 };

    for (unsigned w = 0; w <= 4; w++) {
        unsigned sat = ctr_cc_encode(UINT64_MAX >> 1, w);

        /* Saturation sets every implemented CCE and CCM bit. */
        g_assert_cmpuint(sat, ==, ((1u << w) - 1) << 12 | 0xfff);
        g_assert_cmpuint(ctr_cc_cycles(sat), ==, max_cycles[w]);
        /* The largest counter value of that width is not saturated. */
        g_assert_cmpuint(ctr_cc_cycles(
            ctr_cc_encode((1ULL << counter_bits[w]) - 1, w)), ==,
            max_cycles[w]);
    }
}

static void test_cc_encode_boundaries(void)
{
    /* Below 4096 CCE is 0 and CCM holds the count. */
    g_assert_cmpuint(ctr_cc_encode(0, 4), ==, 0);
    g_assert_cmpuint(ctr_cc_encode(4095, 4), ==, 0x0fff);
    /* At 4096 the MSB is bit 12: CCE = 12 - 11 = 1, CCM = bits 11:0. */
    g_assert_cmpuint(ctr_cc_encode(4096, 4), ==, 0x1000);
    g_assert_cmpuint(ctr_cc_encode(4097, 4), ==, 0x1001);
    /* MSB bit 13: CCE = 2, CCM = bits 12:1, bit 0 is dropped. */
    g_assert_cmpuint(ctr_cc_encode(8192, 4), ==, 0x2000);
    g_assert_cmpuint(ctr_cc_encode(8193, 4), ==, 0x2000);
    g_assert_cmpuint(ctr_cc_encode(8194, 4), ==, 0x2001);
    /* With no CCE bits, 4096 already saturates. */
    g_assert_cmpuint(ctr_cc_encode(4096, 0), ==, 0x0fff);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ctr-decode/type-names", test_type_names);
    g_test_add_func("/ctr-decode/cc-formula", test_cc_formula);
    g_test_add_func("/ctr-decode/cc-saturation", test_cc_saturation_table);
    g_test_add_func("/ctr-decode/cc-encode", test_cc_encode_boundaries);
    return g_test_run();
}
