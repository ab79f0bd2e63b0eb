/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the E-Trace te_data packets (hw/riscv/trace-encoder/
 * etrace-data.c).
 *
 * This file is a QEMU unit test: scripts/prepare copies it into QEMU's
 * tests/unit.  Expected bytes are worked out by hand from the field
 * tables of dataTracePayload.adoc and of the MMA/CAS extension
 * (extensions.adoc) of E-Trace 2.0.5: fields LSB first, then the
 * packet's top bits that repeat its last bit left out but one
 * (payload.adoc, sign-based compression), in whole bytes.  Each access
 * is then read back from those bytes.
 */

#include "qemu/osdep.h"
#include "hw/riscv/etrace-data.h"

/* RV64: 64-bit addresses and data (a 2-bit size field). */
static const ETraceDataParams ldst20 = {
    .daddress_width = 64, .data_width = 64, .format_bits = 2,
};
static const ETraceDataParams atomic20 = {
    .daddress_width = 64, .data_width = 64, .format_bits = 3,
};
static const ETraceDataParams mmacas = {
    .daddress_width = 64, .data_width = 64, .format_bits = 2,
    .mmacas = true,
};

/*
 * The payloads of @a, encoded with @h, as hex bytes: a split access's
 * request, " / ", its data phase.
 */
static GString *encode_hex(const ETraceDataParams *p, ETraceDataHistory *h,
                           const ETraceDataAccess *a, bool full_address)
{
    GString *s = g_string_new(NULL);
    ETraceTeData t[2];
    ETraceBits b;
    unsigned n, i, k, packets;

    packets = etrace_data_encode(t, p, h, a, full_address, 0);
    g_assert_cmpuint(packets, ==, etrace_data_split(p, a->dtype) ? 2 : 1);
    for (k = 0; k < packets; k++) {
        etrace_te_data_pack(&b, p, &t[k]);
        n = DIV_ROUND_UP(etrace_compressed_bits(&b), 8);
        g_string_append(s, k ? " / " : "");
        for (i = 0; i < n; i++) {
            g_string_append_printf(s, "%s%02x", i ? " " : "",
                                   (uint8_t)(b.w[i / 8] >> (8 * (i % 8))));
        }
    }
    return s;
}

/* "ce 11 ..." to bytes */
static unsigned hex_bytes(const char *hex, uint8_t *out)
{
    unsigned n = 0;

    for (; *hex; hex += hex[2] ? 3 : 2) {
        out[n++] = g_ascii_xdigit_value(hex[0]) << 4 |
                   g_ascii_xdigit_value(hex[1]);
    }
    return n;
}

/*
 * Read the packets of @hex ("... / ..." for a split access) with @dec
 * into @back, as a decoder does: a request waits for its data phase.
 */
static void decode_hex(const ETraceDataParams *p, ETraceDataHistory *dec,
                       const char *hex, ETraceDataAccess *back)
{
    g_auto(GStrv) packets = g_strsplit(hex, " / ", -1);
    uint8_t sizes[1 << ETRACE_DATA_LRID_MAX_BITS];
    unsigned k;

    memset(sizes, 0xff, sizeof(sizes));
    for (k = 0; packets[k]; k++) {
        uint8_t bytes[40];
        unsigned len = hex_bytes(packets[k], bytes);
        const char *why = NULL;
        ETraceTeData u;

        g_assert_true(etrace_te_data_unpack(&u, p, sizes, bytes, len, &why));
        g_assert_cmpuint(u.phase, ==,
                         !packets[1] ? ETRACE_DPHASE_UNIFIED :
                         k ? ETRACE_DPHASE_DATA : ETRACE_DPHASE_REQUEST);
        g_assert_true(etrace_data_decode(back, p, dec, &u, &why));
        sizes[u.lrid] = k ? 0xff : back->size;
    }
    g_assert_cmpuint(k, ==, etrace_data_split(p, back->dtype) ? 2 : 1);
}

/*
 * Encode the accesses @a in order with one history, each to the bytes
 * @hex; then read them back with another and get each access.
 */
static void check_accesses(const ETraceDataParams *p, bool full_address,
                           const ETraceDataAccess *a, const char *const *hex,
                           unsigned n)
{
    ETraceDataHistory enc = { 0 }, dec = { 0 };
    unsigned i, has;

    for (i = 0; i < n; i++) {
        g_autoptr(GString) s = NULL;
        ETraceDataAccess back;

        s = encode_hex(p, &enc, &a[i], full_address);
        g_assert_cmpstr(s->str, ==, hex[i]);

        decode_hex(p, &dec, hex[i], &back);
        has = etrace_te_data_has(p, a[i].dtype);
        g_assert_cmpuint(back.dtype, ==, a[i].dtype);
        g_assert_cmpuint(back.mma, ==, a[i].mma);
        g_assert_cmpuint(back.size, ==, a[i].size);
        g_assert_cmphex(back.addr, ==,
                        has & ETRACE_DHAS_ADDR ? a[i].addr : 0);
        g_assert_cmphex(back.data, ==,
                        has & ETRACE_DHAS_DATA ? a[i].data : 0);
        g_assert_cmphex(back.operand, ==,
                        has & ETRACE_DHAS_OPERAND ? a[i].operand : 0);
        g_assert_cmphex(back.data_hi, ==,
                        has & ETRACE_DHAS_DATA ? a[i].data_hi : 0);
        g_assert_cmphex(back.operand_hi, ==,
                        has & ETRACE_DHAS_OPERAND ? a[i].operand_hi : 0);
    }
}

static void test_size_bits(void)
{
    ETraceDataParams p = { .data_width = 8 };

    /* max(1, clog2(clog2(data_width_p / 8 + 1))) */
    g_assert_cmpuint(etrace_data_size_bits(&p), ==, 1);
    p.data_width = 16;
    g_assert_cmpuint(etrace_data_size_bits(&p), ==, 1);
    p.data_width = 32;
    g_assert_cmpuint(etrace_data_size_bits(&p), ==, 2);
    p.data_width = 64;
    g_assert_cmpuint(etrace_data_size_bits(&p), ==, 2);
    p.data_width = 128;
    g_assert_cmpuint(etrace_data_size_bits(&p), ==, 3);
}

/*
 * E-Trace 2.0, loads and stores only (a 2-bit format), address and data.
 * 1. sd 0x1122334455667788 to 0x80001000, the first 8-byte access:
 *    format 10 (store, aligned), size 11, diff 00 (full), data_len 111,
 *    the 8 data bytes (0x11 is not the sign of the rest: all of them),
 *    address 0x80001000 >> 3 = 0x10000200 (its bit 28, packet bit 101,
 *    is the last 1: 103 bits, 13 bytes).
 * 2. lw from 0x80001008, 0xdeadbeef, the first 4-byte access: full,
 *    as the history is per size: 00, 10, 00, data_len 11, 4 bytes,
 *    address >> 2.
 * 3. sd 0x1122334455667789 to 0x80001010: differential address
 *    (0x10 >> 3 = 2); XOR and difference are both 1, one byte, where
 *    the full value takes 8: XOR, diff 01, data_len 000, data 01.
 * 4. lbu from 0x80001003, 0xff: size 0 is always aligned, data_len has
 *    no bits, the byte 0xff; full address.
 * 5. sw -16 (0xfffffff0) to 0x80001006 after the lw: the address
 *    difference, -2, is not a multiple of 4: format 11 (unaligned), the
 *    byte difference -2 (0xfe, whose sign fills the rest); XOR with
 *    0xdeadbeef (0x2152411f) and the difference (0x21524101) take 4
 *    bytes, the full value 1 (0xf0): diff 10, data_len 00.
 */
static void test_ldst_20(void)
{
    static const ETraceDataAccess a[] = {
        { .dtype = ETRACE_DTYPE_STORE, .size = 3, .addr = 0x80001000,
          .data = 0x1122334455667788 },
        { .dtype = ETRACE_DTYPE_LOAD, .size = 2, .addr = 0x80001008,
          .data = 0xdeadbeef },
        { .dtype = ETRACE_DTYPE_STORE, .size = 3, .addr = 0x80001010,
          .data = 0x1122334455667789 },
        { .dtype = ETRACE_DTYPE_LOAD, .size = 0, .addr = 0x80001003,
          .data = 0xff },
        { .dtype = ETRACE_DTYPE_STORE, .size = 2, .addr = 0x80001006,
          .data = 0xfffffff0 },
    };
    static const char *const hex[] = {
        "ce 11 ef cc aa 88 66 44 22 00 04 00 20",
        "c8 ef be ad de 02 04 00 20",
        "1e 02 04",
        "c0 ff 00 04 00 20",
        "2b f0 fe",
    };

    check_accesses(&ldst20, false, a, hex, ARRAY_SIZE(a));
}

/*
 * The same first four with trTeDataAddrCompress 0: every packet is diff
 * 00, full address and data; the third is then the first's with the new
 * data and address.
 */
static void test_ldst_20_full_address(void)
{
    static const ETraceDataAccess a[] = {
        { .dtype = ETRACE_DTYPE_STORE, .size = 3, .addr = 0x80001000,
          .data = 0x1122334455667788 },
        { .dtype = ETRACE_DTYPE_STORE, .size = 3, .addr = 0x80001010,
          .data = 0x1122334455667789 },
    };
    static const char *const hex[] = {
        "ce 11 ef cc aa 88 66 44 22 00 04 00 20",
        "ce 13 ef cc aa 88 66 44 22 04 04 00 20",
    };

    check_accesses(&ldst20, true, a, hex, ARRAY_SIZE(a));
}

/*
 * The MMA/CAS extension's layouts with every class (a 2-bit format):
 * 1. an 8-byte load of 0 from 0x80003000 by a multi-memory access
 *    instruction, the first 8-byte access: class 01, subformat 00, size
 *    11, diff 00, data_len 000, one data byte, address >> 3.
 * 2. amoadd.d at 0x80002000, rs2 5, 0x100 read: class 10, subformat
 *    1001, size 11; an atomic's data and operand go uncompressed: diff
 *    10 (the address differs by -0x1000, -0x200 once shifted), op_len
 *    000, 05, data_len 001, 0x0100, address -0x200.
 * 3. a failed sc.w at 0x80002008, the first 4-byte access: class 10,
 *    subformat 1111, size 10, the address-only layout: diff 0, address
 *    >> 2.
 * 4. a failed amocas.w at 0x80004000, rs2 0x12345678: subformat 0111,
 *    size 10, diff 10 (0x1ff8 >> 2 = 0x7fe), op_len 11, the 4 operand
 *    bytes, address 0x7fe.
 */
static void test_mmacas(void)
{
    static const ETraceDataAccess a[] = {
        { .dtype = ETRACE_DTYPE_LOAD, .mma = true, .size = 3,
          .addr = 0x80003000, .data = 0 },
        { .dtype = ETRACE_DTYPE_AMO_ADD, .size = 3, .addr = 0x80002000,
          .data = 0x100, .operand = 5 },
        { .dtype = ETRACE_DTYPE_SC_FAIL, .size = 2, .addr = 0x80002008 },
        { .dtype = ETRACE_DTYPE_CAS_FAIL, .size = 2, .addr = 0x80004000,
          .data = 0x1, .operand = 0x12345678 },
    };
    static const char *const hex[] = {
        "31 00 00 30 00 80 00",
        "e6 a2 20 00 01 00 fe",
        "be 04 10 00 40",
        "9e 8e 67 45 23 e1 7f",
    };

    check_accesses(&mmacas, false, a, hex, ARRAY_SIZE(a));
}

/*
 * With only loads and stores, the MMA/CAS format field has no bits, and
 * the packet is 2.0's with a 2-bit format (its subformat has 2.0's
 * codes).
 */
static void test_mmacas_ldst_only(void)
{
    static const ETraceDataParams p = {
        .daddress_width = 64, .data_width = 64, .mmacas = true,
    };
    static const ETraceDataAccess a[] = {
        { .dtype = ETRACE_DTYPE_STORE, .size = 3, .addr = 0x80001000,
          .data = 0x1122334455667788 },
    };
    static const char *const hex[] = {
        "ce 11 ef cc aa 88 66 44 22 00 04 00 20",
    };

    check_accesses(&p, false, a, hex, ARRAY_SIZE(a));
}

/*
 * E-Trace 2.0 with atomics (a 3-bit format):
 * 1. amoswap.w at 0x80005004, rs2 -1, 0x7f read: format 110, subtype
 *    000, size 10, diff 00, op_len 00, 0xff (the sign of -1), data_len
 *    00, 0x7f, address >> 2.
 * 2. a failed sc.d at 0x80005008: subtype 111, the address-only layout:
 *    size 11, diff 0, address >> 3.
 */
static void test_atomic_20(void)
{
    static const ETraceDataAccess a[] = {
        { .dtype = ETRACE_DTYPE_AMO_SWAP, .size = 2, .addr = 0x80005004,
          .data = 0x7f, .operand = 0xffffffff },
        { .dtype = ETRACE_DTYPE_SC_FAIL, .size = 3, .addr = 0x80005008,
          .data = 0x5 },
    };
    static const char *const hex[] = {
        "86 f0 cf 5f 00 05 00 08",
        "fe 02 14 00 20",
    };

    check_accesses(&atomic20, false, a, hex, ARRAY_SIZE(a));
}

/*
 * trTeDataNoAddr: the data-only layouts, the value last and
 * data_width_p wide.
 * 1. ld of 0x8000000000000000, the first 8-byte access: 00, 11, diff 00,
 *    the value (bit 63, packet bit 69, is the last 1).
 * 2. ld of 0x8000000000000001: XOR and difference are 1: diff 01, 1.
 * 3. lb of 0x80: the value's sign fills the field (-0x80): 00, 00, 00,
 *    then ones from packet bit 13.
 */
static void test_data_only(void)
{
    ETraceDataParams p = ldst20;
    static const ETraceDataAccess a[] = {
        { .dtype = ETRACE_DTYPE_LOAD, .size = 3, .addr = 0x80001000,
          .data = 0x8000000000000000 },
        { .dtype = ETRACE_DTYPE_LOAD, .size = 3, .addr = 0x80001008,
          .data = 0x8000000000000001 },
        { .dtype = ETRACE_DTYPE_LOAD, .size = 0, .addr = 0x80001010,
          .data = 0x80 },
    };
    static const char *const hex[] = {
        "0c 00 00 00 00 00 00 00 e0",
        "5c",
        "00 e0",
    };

    p.noaddr = true;
    check_accesses(&p, false, a, hex, ARRAY_SIZE(a));
}

/*
 * trTeDataNoAddr with atomics (2.0): amoor.d, rs2 0x10, 3 read: 110,
 * 011, 11, diff 00, op_len 000, 0x10, then the data field, 3.
 */
static void test_data_only_atomic(void)
{
    ETraceDataParams p = atomic20;
    static const ETraceDataAccess a[] = {
        { .dtype = ETRACE_DTYPE_AMO_OR, .size = 3, .addr = 0x80001000,
          .data = 3, .operand = 0x10 },
    };
    static const char *const hex[] = {
        "de 00 62",
    };

    p.noaddr = true;
    check_accesses(&p, false, a, hex, ARRAY_SIZE(a));
}

/*
 * trTeDataNoValue: the address-only layouts, a 1-bit diff.  sw to
 * 0x80001000 (10, 10, 0, address >> 2), then to 0x80000ff8 (diff 1,
 * -8 >> 2 = -2).
 */
static void test_address_only(void)
{
    ETraceDataParams p = ldst20;
    static const ETraceDataAccess a[] = {
        { .dtype = ETRACE_DTYPE_STORE, .size = 2, .addr = 0x80001000,
          .data = 1 },
        { .dtype = ETRACE_DTYPE_STORE, .size = 2, .addr = 0x80000ff8,
          .data = 2 },
    };
    static const char *const hex[] = {
        "0a 80 00 00 04",
        "da",
    };

    p.nodata = true;
    check_accesses(&p, false, a, hex, ARRAY_SIZE(a));
}

/*
 * Split signalling, E-Trace 2.0 (a 3-bit format, lrid_width_p 1, lrid
 * always 0), request " / " data phase:
 * 1. ld 0x1122334455667788 from 0x80001000, the first 8-byte access.
 *    Request: format 000, size 11, lrid 0, diff 0, address 0x10000200
 *    (its bits 9 and 28 at packet bits 16 and 35: 37 bits, 5 bytes).
 *    Data phase: format 100, size 11, lrid 0, resp 10 (full), the 64-bit
 *    data field (its last 1 at bit 68: 9 bytes).
 * 2. ld 0x1122334455667789 from 0x80001008: diff 1, address 8 >> 3 = 1
 *    (9 bits); the value XOR the last and the difference are both 1,
 *    one byte where full takes 8: XOR, resp 01, data 0x01.
 * 3. amoadd.d at 0x80002000, rs2 5, 0x100 read: format 110, subtype
 *    001, size 11, lrid 0, diff 10 (0xff8 >> 3 = 0x1ff), op_len 000,
 *    operand 05, address 0x1ff.  The 2.0 atomic data phase: format 111,
 *    lrid 0, resp 10, no size field, data_len 001 (0x100 takes 2 bytes:
 *    3 bits as wide as the request's size 3), data 0x0100.
 */
static void test_split_20(void)
{
    static const ETraceDataParams p = {
        .daddress_width = 64, .data_width = 64, .format_bits = 3,
        .lrid_width = 1,
    };
    static const ETraceDataAccess a[] = {
        { .dtype = ETRACE_DTYPE_LOAD, .size = 3, .addr = 0x80001000,
          .data = 0x1122334455667788 },
        { .dtype = ETRACE_DTYPE_LOAD, .size = 3, .addr = 0x80001008,
          .data = 0x1122334455667789 },
        { .dtype = ETRACE_DTYPE_AMO_ADD, .size = 3, .addr = 0x80002000,
          .data = 0x100, .operand = 5 },
    };
    static const char *const hex[] = {
        "18 00 01 00 08 / 9c 88 77 66 55 44 33 22 11",
        "d8 00 / 5c 01",
        "ce 44 c1 7f / 67 00 02",
    };

    check_accesses(&p, false, a, hex, ARRAY_SIZE(a));
}

/*
 * Split atomic without address (trTeDataNoAddr), 2.0: amoswap.w, rs2
 * 0x7f, 0x80 read.  Request: format 110, subtype 000, size 10, lrid 0,
 * diff 00, the operand in a data_width_p field (19 bits).  Data phase:
 * format 111, lrid 0, resp 10, data_len 01 (0x80 takes 2 bytes: its
 * byte alone would be negative), data 0x0080.
 */
static void test_split_20_noaddr(void)
{
    static const ETraceDataParams p = {
        .daddress_width = 64, .data_width = 64, .format_bits = 3,
        .lrid_width = 1, .noaddr = true,
    };
    static const ETraceDataAccess a[] = {
        { .dtype = ETRACE_DTYPE_AMO_SWAP, .size = 2, .addr = 0x80002000,
          .data = 0x80, .operand = 0x7f },
    };
    static const char *const hex[] = {
        "86 f8 03 / 67 80 00",
    };

    check_accesses(&p, false, a, hex, ARRAY_SIZE(a));
}

/*
 * amocas.q with the MMA/CAS layouts, split signalling and data_width_p
 * 128 (a 3-bit size field, 4-bit op_len):
 * 1. a swap at 0x80003000, rs2 pair 0x0123456789abcdef_fedcba9876543210,
 *    5 read.  Request: class 10, subformat 1000, size 100, lrid 0, diff
 *    00, op_len 1111 (16 bytes), the operand, address 0x8000300 (its
 *    last 1 at bit 171: 22 bytes).  Data phase: class 11, size 100,
 *    lrid 0, resp 10, data 5 in a 128-bit field.
 * 2. a failed one at 0x80003010, rs2 pair -2: not split (no value):
 *    subformat 0111, size 100, diff 10, op_len 0000, operand 0xfe,
 *    address 0x10 >> 4 = 1.
 * 3. a swap at 0x80003020, rs2 1, 0xffffffffffffffff_7fffffffffffffff
 *    read (9 bytes as a signed number): request diff 10, op_len 0000,
 *    operand 01, address 1; data phase: the 0 of bit 71, then one 1
 *    for the rest: 10 bytes.
 */
static void test_split_cas128(void)
{
    static const ETraceDataParams p = {
        .daddress_width = 64, .data_width = 128, .format_bits = 2,
        .lrid_width = 1, .mmacas = true,
    };
    static const ETraceDataAccess a[] = {
        { .dtype = ETRACE_DTYPE_AMO_SWAP, .size = 4, .addr = 0x80003000,
          .data = 5, .operand = 0xfedcba9876543210,
          .operand_hi = 0x0123456789abcdef },
        { .dtype = ETRACE_DTYPE_CAS_FAIL, .size = 4, .addr = 0x80003010,
          .data = 0, .data_hi = 0x8000000000000000,
          .operand = 0xfffffffffffffffe, .operand_hi = UINT64_MAX },
        { .dtype = ETRACE_DTYPE_AMO_SWAP, .size = 4, .addr = 0x80003020,
          .data = 0x7fffffffffffffff, .data_hi = UINT64_MAX,
          .operand = 1 },
    };
    static const char *const hex[] = {
        "22 f1 10 32 54 76 98 ba dc fe ef cd ab 89 67 45 23 01 "
        "00 03 00 08 / 93 05",
        "1e 05 ff 00",
        "22 09 01 01 / 93 ff ff ff ff ff ff ff 7f ff",
    };

    check_accesses(&p, false, a, hex, ARRAY_SIZE(a));
}

/* A data phase must have its request; one with an error is refused. */
static void test_split_refused(void)
{
    static const ETraceDataParams p20 = {
        .daddress_width = 64, .data_width = 64, .format_bits = 3,
        .lrid_width = 1,
    };
    static const uint8_t atomic_data[] = { 0x27 };  /* 111, 0, resp 10 */
    static const uint8_t error[] = { 0x1c, 0x00 };  /* 100, 11, 0, 00 */
    uint8_t sizes[1 << ETRACE_DATA_LRID_MAX_BITS];
    ETraceTeData t;
    const char *why = NULL;

    memset(sizes, 0xff, sizeof(sizes));
    g_assert_false(etrace_te_data_unpack(&t, &p20, sizes, atomic_data, 1,
                                         &why));
    g_assert_nonnull(strstr(why, "no request"));
    g_assert_false(etrace_te_data_unpack(&t, &p20, sizes, error, 2, &why));
    g_assert_nonnull(strstr(why, "error response"));
    sizes[0] = 2;
    g_assert_true(etrace_te_data_unpack(&t, &p20, sizes, atomic_data, 1,
                                        &why));
    g_assert_cmpuint(t.phase, ==, ETRACE_DPHASE_DATA);
    g_assert_cmpuint(t.size, ==, 2);
}

/* Packets these parameters never produce are refused, with a reason. */
static void test_refused(void)
{
    static const uint8_t csr[] = { 0x12 };          /* 10, 0100: CSR RW */
    static const uint8_t reserved[] = { 0x06 };     /* 10, 0001 */
    static const uint8_t split[] = { 0x03 };        /* class 11 */
    static const uint8_t split20[] = { 0x04 };      /* 100: split data */
    static const uint8_t wide[] = { 0x0c };         /* size 3, 32-bit */
    static const uint8_t diff2[] = { 0x2c };        /* data only, diff 10 */
    static const uint8_t xor_first[] = { 0x1c, 0x00 };
    ETraceDataParams p32 = ldst20, noaddr = ldst20;
    ETraceDataHistory h = { 0 };
    ETraceDataAccess a;
    ETraceTeData t;
    const char *why = NULL;

    p32.data_width = 32;
    noaddr.noaddr = true;
    g_assert_false(etrace_te_data_unpack(&t, &mmacas, NULL, csr, 1, &why));
    g_assert_nonnull(strstr(why, "CSR"));
    g_assert_false(etrace_te_data_unpack(&t, &mmacas, NULL, reserved, 1, &why));
    g_assert_nonnull(strstr(why, "reserved"));
    g_assert_false(etrace_te_data_unpack(&t, &mmacas, NULL, split, 1, &why));
    g_assert_nonnull(strstr(why, "split"));
    g_assert_false(etrace_te_data_unpack(&t, &atomic20, NULL,
                                         split20, 1, &why));
    g_assert_nonnull(strstr(why, "split"));
    g_assert_false(etrace_te_data_unpack(&t, &p32, NULL, wide, 1, &why));
    g_assert_nonnull(strstr(why, "wider"));
    g_assert_false(etrace_te_data_unpack(&t, &noaddr, NULL, diff2, 1, &why));
    g_assert_nonnull(strstr(why, "reserved"));
    /* 00, 11, diff 01 (XOR) with no 8-byte value since a sync */
    g_assert_true(etrace_te_data_unpack(&t, &noaddr, NULL, xor_first, 2, &why));
    g_assert_cmpuint(t.diff, ==, ETRACE_DDIFF_XOR);
    g_assert_false(etrace_data_decode(&a, &noaddr, &h, &t, &why));
    g_assert_nonnull(strstr(why, "synchronisation"));
}

/*
 * A te_data packet framed with the Encapsulation's 1-bit type field (1,
 * te_data; e-trace-specifics.adoc) before its fields: a 2.0 load of 8
 * bytes, address only (trTeDataNoValue), full and aligned at 0x1000.
 * Payload bits: type 1, format 000, size 11, diff 0, address 0x200 (bit
 * 9 of the field is bit 16 of the payload): 0x31 0x00 0x01, then bit 17
 * repeats the top: 3 bytes.  With a 4-bit srcID 0xa those 3 bytes move
 * up 4 bits after it, 28 bits: 0x1a 0x03 0x10 0x00 (encapsulation.adoc,
 * "Packet Length").
 */
static void test_framed(void)
{
    static const ETraceDataParams p = {
        .daddress_width = 64, .data_width = 64, .format_bits = 3,
        .nodata = true,
    };
    static const ETraceTeData t = {
        .dtype = ETRACE_DTYPE_LOAD, .size = 3, .diff = 0,
        .address = 0x200,
    };
    static const uint8_t plain[] = { 0x03, 0x31, 0x00, 0x01 };
    static const uint8_t src8[] = { 0x03, 0x5a, 0x31, 0x00, 0x01 };
    static const uint8_t src4[] = { 0x04, 0x1a, 0x03, 0x10, 0x00 };
    const ETraceEncap e0 = { .type_bits = 1 };
    const ETraceEncap e8 = { .type_bits = 1, .srcid_bits = 8, .srcid = 0x5a };
    const ETraceEncap e4 = { .type_bits = 1, .srcid_bits = 4, .srcid = 0xa };
    uint8_t out[ETRACE_ENCAP_MAX_BYTES];
    ETraceBits b;

    etrace_te_data_pack(&b, &p, &t);
    etrace_bits_prefix(&b, 1, 1);
    g_assert_cmpmem(out, etrace_encap(out, &e0, &b, 0), plain, sizeof(plain));
    g_assert_cmpmem(out, etrace_encap(out, &e8, &b, 0), src8, sizeof(src8));
    g_assert_cmpmem(out, etrace_encap(out, &e4, &b, 0), src4, sizeof(src4));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/etrace-data/size-bits", test_size_bits);
    g_test_add_func("/etrace-data/ldst-2.0", test_ldst_20);
    g_test_add_func("/etrace-data/ldst-2.0-full-address",
                    test_ldst_20_full_address);
    g_test_add_func("/etrace-data/mmacas", test_mmacas);
    g_test_add_func("/etrace-data/mmacas-ldst-only", test_mmacas_ldst_only);
    g_test_add_func("/etrace-data/atomic-2.0", test_atomic_20);
    g_test_add_func("/etrace-data/data-only", test_data_only);
    g_test_add_func("/etrace-data/data-only-atomic", test_data_only_atomic);
    g_test_add_func("/etrace-data/address-only", test_address_only);
    g_test_add_func("/etrace-data/refused", test_refused);
    g_test_add_func("/etrace-data/split-2.0", test_split_20);
    g_test_add_func("/etrace-data/split-2.0-noaddr", test_split_20_noaddr);
    g_test_add_func("/etrace-data/split-cas128", test_split_cas128);
    g_test_add_func("/etrace-data/split-refused", test_split_refused);
    g_test_add_func("/etrace-data/framed", test_framed);
    return g_test_run();
}
