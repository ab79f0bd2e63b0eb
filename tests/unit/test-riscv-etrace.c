/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the E-Trace 2.0 packet layer, encoder algorithm and
 * instruction trace filters (hw/riscv/trace-encoder/etrace-packet.c,
 * etrace-enc.c, etrace-filter.c).
 *
 * This file is a QEMU unit test: scripts/prepare copies it into QEMU's
 * tests/unit.  Expected values are worked out by hand from the spec:
 * field tables of payload.adoc, the byte dumps of
 * fragmentCodeAndTransport.adoc, the encapsulation rules of
 * encapsulation.adoc, the decision order of exampleAlgorithm.adoc, and
 * the filter and comparator registers of the Trace Control Interface.
 */

#include "qemu/osdep.h"
#include "hw/riscv/etrace.h"
#include "qemu/bitops.h"
#include "hw/riscv/etrace-enc.h"
#include "hw/riscv/etrace-filter.h"

/*
 * The parameters of the trace encoder of qemu-system-riscv64 without its
 * return stack: no irdepth field.
 */
static const ETraceParams rv64 = {
    .iaddress_width = 64,
    .iaddress_lsb = 1,
    .privilege_width = 3,
    .ecause_width = 6,
    .f0s_width = 1,
    .cache_size = 6,
    .bpred_size = 6,
};

/*
 * The parameters of the trace encoder of qemu-system-riscv64, with its
 * 16-entry return stack: 5-bit irdepth.
 */
static const ETraceParams rv64_ir = ETRACE_QEMU_PARAMS;
/* The same in protocol 2.1: 8-bit irets, the Standard Support Packet. */
static const ETraceParams rv64_21 = {
    .iaddress_width = 64,
    .iaddress_lsb = 1,
    .privilege_width = 3,
    .ecause_width = 6,
    .f0s_width = 1,
    .cache_size = 6,
    .bpred_size = 6,
    .return_stack_size = 4,
    .protocol = ETRACE_PROTOCOL_2_1,
};

/*
 * ETRACE_QEMU_PARAMS, which the encoder and etrace-decode share, has the
 * values docs/specs/riscv-trace.rst ("Parameters") gives another decoder:
 * a change of both sides at once passes every round trip, not this.
 */
static void test_qemu_params(void)
{
    g_assert_cmpuint(rv64_ir.iaddress_width, ==, 64);
    g_assert_cmpuint(rv64_ir.iaddress_lsb, ==, 1);
    g_assert_cmpuint(rv64_ir.privilege_width, ==, 3);
    g_assert_cmpuint(rv64_ir.ecause_width, ==, 6);
    g_assert_cmpuint(rv64_ir.f0s_width, ==, 1);
    g_assert_cmpuint(rv64_ir.cache_size, ==, 6);
    g_assert_cmpuint(rv64_ir.bpred_size, ==, 6);
    g_assert_cmpuint(rv64_ir.return_stack_size, ==, 4);
    g_assert_cmpuint(etrace_irdepth_bits(&rv64_ir), ==, 5);
}

/*
 * The parameters of the spec's worked example (fragmentCodeAndTransport.adoc,
 * "Illegal Opcode test"): 40-bit addresses, nothing dropped, 2-bit
 * privilege, 5-bit ecause, full addresses.
 */
static const ETraceParams example = {
    .iaddress_width = 40,
    .iaddress_lsb = 0,
    .privilege_width = 2,
    .ecause_width = 5,
};

/* Pack, compress and frame without srcID; returns the payload bytes. */
static GString *payload_hex(const ETraceParams *p, const ETraceTeInst *t)
{
    static const ETraceEncap plain = { 0 };
    uint8_t out[ETRACE_ENCAP_MAX_BYTES];
    GString *s = g_string_new(NULL);
    ETraceBits b;
    unsigned n, i;

    etrace_te_inst_pack(&b, p, t);
    n = etrace_encap(out, &plain, &b, 0);
    g_assert_cmpuint(out[0], ==, n - 1);
    for (i = 1; i < n; i++) {
        g_string_append_printf(s, "%s%02x", i > 1 ? " " : "", out[i]);
    }
    return s;
}

static void check_payload(const ETraceParams *p, const ETraceTeInst *t,
                          const char *expected)
{
    g_autoptr(GString) s = payload_hex(p, t);

    g_assert_cmpstr(s->str, ==, expected);
}

static void test_map_bits(void)
{
    static const unsigned expected[32] = {
        31, 1, 3, 3, 7, 7, 7, 7, 15, 15, 15, 15, 15, 15, 15, 15,
        31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 31,
    };
    unsigned i;

    for (i = 0; i < 32; i++) {
        g_assert_cmpuint(etrace_map_bits(i), ==, expected[i]);
    }
}

/* fragmentCodeAndTransport.adoc, lines 53 and 56: spec-published bytes. */
static void test_spec_example_bytes(void)
{
    ETraceTeInst f1 = {
        .format = ETRACE_FMT_BRANCH,
        .branches = 1,
        .branch_map = 0,
        .address = 0x80000104,
    };
    ETraceTeInst f2 = {
        .format = ETRACE_FMT_ADDR,
        .address = 0x8000010c,
    };

    etrace_set_status_bits(&f1, &example, false, false, false, 0);
    check_payload(&example, &f1, "05 04 01 00 80 00");
    etrace_set_status_bits(&f2, &example, false, false, false, 0);
    check_payload(&example, &f2, "32 04 00 00 02");
}

/*
 * Protocol 2.1, the Standard Support Packet (extensions.adoc): bits 0-3
 * format and subformat 11 11, 4 ienable, 5-6 encoder_mode, 7-8
 * qual_status, 9 sijump, 10 implicit_return, 11 branch_predictor, 12
 * jump_target_cache, 13 implicit_except, 14 full_iaddress, 15
 * resync_disabled, 16 iret_ext, 17-19 time_width, 20-21 f0s_width, 22-24
 * return_stack_size, 25-28 call_counter_size, 29-31 bpred_size, 32-34
 * cache_size, 35 denable, 36 dloss, 37-41 mmacas_ext, noaddr, nodata,
 * full_daddress, full_data.
 */
static void test_ssp(void)
{
    ETraceTeInst t = {
        .format = ETRACE_FMT_SYNC,
        .subformat = ETRACE_SYNC_SUPPORT,
        .ienable = true,
        .iret_ext = true,
        .f0s_width = 1,
        .return_stack_size = 4,
        .bpred_size = 6,
        .cache_size = 6,
    };
    ETraceTeInst back;
    ETraceBits b;
    uint8_t bytes[5] = { 0x8f, 0xdf, 0x11, 0xc1, 0x06 };

    /*
     * QEMU's parameters, no option: bits 0-4; 16 and 20 (byte 2 0x11);
     * return_stack_size 100 in bits 22-24 and bpred_size 110 in 29-31
     * (byte 3 0xc1); cache_size 110 in bits 32-34 (byte 4 0x06); bit 35
     * the sign, 0.
     */
    check_payload(&rv64_21, &t, "1f 00 11 c1 06");
    /*
     * ienable 0, ended_ntr (bits 7-8), every option but implicit_except:
     * bits 9-12, 14 and 15 (byte 1 0xde | 0x01).
     */
    t.ienable = false;
    t.qual_status = ETRACE_QUAL_ENDED_NTR;
    t.ioptions = ETRACE_IOPT_SEQ_JUMP | ETRACE_IOPT_IMPLICIT_RETURN |
                 ETRACE_IOPT_BRANCH_PREDICTION |
                 ETRACE_IOPT_JUMP_TARGET_CACHE | ETRACE_IOPT_FULL_ADDRESS |
                 ETRACE_IOPT_RESYNC_DISABLED;
    check_payload(&rv64_21, &t, "8f df 11 c1 06");
    g_assert_true(etrace_te_inst_unpack(&back, &rv64_21, bytes, 5));
    g_assert_cmpuint(back.ienable, ==, 0);
    g_assert_cmpuint(back.qual_status, ==, ETRACE_QUAL_ENDED_NTR);
    g_assert_cmpuint(back.ioptions, ==, t.ioptions);
    g_assert_true(back.iret_ext);
    g_assert_cmpuint(back.time_width, ==, 0);
    g_assert_cmpuint(back.f0s_width, ==, 1);
    g_assert_cmpuint(back.return_stack_size, ==, 4);
    g_assert_cmpuint(back.call_counter_size, ==, 0);
    g_assert_cmpuint(back.bpred_size, ==, 6);
    g_assert_cmpuint(back.cache_size, ==, 6);
    g_assert_cmpuint(back.denable | back.dloss | back.doptions, ==, 0);
    /* 2.0 lays the same options out in 6 bits from bit 8 */
    etrace_te_inst_pack(&b, &rv64_ir, &t);
    g_assert_cmpuint(etrace_compressed_bits(&b), ==, 15);
}

/*
 * 2.1, format 2 with irreport and irets (extensions.adoc): 2 format bits,
 * 63 address bits, notify (bit 65), updiscon (66), irreport (67), irets
 * (bits 68-75).
 */
static void test_irets_packet(void)
{
    ETraceTeInst t = { .format = ETRACE_FMT_ADDR, .address = 8 };
    ETraceTeInst back;
    uint8_t bytes[9] = { 0x22, 0, 0, 0, 0, 0, 0, 0, 0xf8 };

    /* irets 3: bits 67, 68 and 69 in byte 8 */
    etrace_set_status_bits(&t, &rv64_21, false, false, true, 3);
    check_payload(&rv64_21, &t, "22 00 00 00 00 00 00 00 38");
    /*
     * irets 255: bits 67-75 are 1, and compress into the sign of bit 67
     * (byte 8 0xf8, bits 72-75 left to the sign fill)
     */
    etrace_set_status_bits(&t, &rv64_21, false, false, true, 255);
    check_payload(&rv64_21, &t, "22 00 00 00 00 00 00 00 f8");
    g_assert_true(etrace_te_inst_unpack(&back, &rv64_21, bytes, 9));
    g_assert_true(back.irreport && !back.updiscon && !back.notify);
    g_assert_cmpuint(back.irdepth, ==, 255);
    /* not reported: irets repeats updiscon and compresses away */
    etrace_set_status_bits(&t, &rv64_21, false, false, false, 0);
    check_payload(&rv64_21, &t, "22");
}

/*
 * Support packet: format 11, subformat 11, ienable, encoder_mode (1 bit),
 * qual_status (2), ioptions (6), denable, dloss, doptions (4): 20 bits.
 */
static void test_support(void)
{
    ETraceTeInst t = {
        .format = ETRACE_FMT_SYNC,
        .subformat = ETRACE_SYNC_SUPPORT,
        .ienable = true,
    };

    /* bits 0-4 = 1, the rest 0: one byte 0x1f */
    check_payload(&rv64, &t, "1f");
    /* ioptions bit 2 (full address) is payload bit 10 */
    t.ioptions = ETRACE_IOPT_FULL_ADDRESS;
    check_payload(&rv64, &t, "1f 04");
    /* bit 5 (sequentially inferable jumps) payload bit 13 */
    t.ioptions = ETRACE_IOPT_SEQ_JUMP;
    check_payload(&rv64, &t, "1f 20");
    /* ienable 0, qual_status ended_rep: bits 0-3 and 6 */
    t.ioptions = 0;
    t.ienable = false;
    t.qual_status = ETRACE_QUAL_ENDED_REP;
    check_payload(&rv64, &t, "4f");
    t.ienable = true;
    /* trace_lost sets bit 7: the 0 above it must be kept, a second byte */
    t.qual_status = ETRACE_QUAL_TRACE_LOST;
    check_payload(&rv64, &t, "9f 00");
}

static void test_sync_packets(void)
{
    ETraceTeInst start = {
        .format = ETRACE_FMT_SYNC,
        .subformat = ETRACE_SYNC_START,
        .branch = true,
        .privilege = ETRACE_PRIV_M,
        .address = 0x80000000 >> 1,
    };
    ETraceTeInst trap = {
        .format = ETRACE_FMT_SYNC,
        .subformat = ETRACE_SYNC_TRAP,
        .branch = true,
        .privilege = ETRACE_PRIV_S,
        .ecause = 13,
        .thaddr = true,
        .address = 0x80200000 >> 1,
        .tval = 0xffffffffffffff00ull,
    };

    /*
     * 11 00 1 110 (branch, privilege 3 = bits 5,6) = 0x73; address
     * 0x40000000 from bit 8: bit 38 = byte 4 bit 6; sign 0 kept at bit 39.
     */
    check_payload(&rv64, &start, "73 00 00 00 40");
    /*
     * 11 10 1 100 = 0x37; ecause 13 = 001101 in bits 8-13, interrupt 0,
     * thaddr 1 (bit 15): byte 1 = 0x8d; address 0x40100000 from bit 16:
     * bits 36 and 46 -> byte 4 = 0x10, byte 5 = 0x40; address bits 31-62
     * are 0 (bits 47-78); tval from bit 79: bits 79-86 zero, then ones to
     * bit 142.  Bits 87-142 all repeat the sign: bits 0-86 and one copy
     * of the sign are kept, 88 bits, so byte 10 is 0x80.
     */
    check_payload(&rv64, &trap,
                  "37 8d 00 00 10 40 00 00 00 00 80");
    /* an interrupt has no tval: it ends at the address */
    trap.interrupt = true;
    trap.ecause = 7;
    trap.thaddr = false;
    /* 0x37; ecause 7 = 000111, interrupt (bit 14): byte 1 = 0x47 */
    check_payload(&rv64, &trap, "37 47 00 00 10 40");
}

static void test_branch_packets(void)
{
    ETraceTeInst t = {
        .format = ETRACE_FMT_ADDR,
        .address = MAKE_64BIT_MASK(0, 63),   /* -1: two bytes backwards */
    };
    ETraceTeInst map = {
        .format = ETRACE_FMT_BRANCH,
        .branches = 0,
        .branch_map = 0x55555555 & MAKE_64BIT_MASK(0, 31),
    };

    /* format 10, then 66 ones: two bits kept, padded with ones */
    etrace_set_status_bits(&t, &rv64, false, false, false, 0);
    g_assert_true(t.notify && t.updiscon && t.irreport);
    check_payload(&rv64, &t, "fe");
    /* updiscon signalled: notify = MSB = 1, updiscon = 0, irreport = 0 */
    etrace_set_status_bits(&t, &rv64, false, true, false, 0);
    g_assert_true(t.notify && !t.updiscon && !t.irreport);
    /* bits 65 = 1, 66 = 0, 67 = 0: nothing compresses below bit 66 */
    check_payload(&rv64, &t, "fe ff ff ff ff ff ff ff 03");

    /*
     * A full map, no address: 01 00000 then 31 map bits from bit 7;
     * bit 0 of the map (1) is payload bit 7, bit 30 (1) is bit 37, the
     * sign: bits 38-39 are padding copies of it.
     */
    check_payload(&rv64, &map, "81 aa aa aa ea");

    /* three branches, 3-bit map 101, address +4 (field 2) */
    map.branches = 3;
    map.branch_map = 5;
    map.address = 2;
    etrace_set_status_bits(&map, &rv64, false, false, false, 0);
    /* 01 11000 then 101 (bits 7-9), address from bit 10: bit 11 */
    check_payload(&rv64, &map, "8d 0a");
}

static void test_compressed_bits(void)
{
    ETraceBits b;
    ETraceTeInst t = {
        .format = ETRACE_FMT_SYNC,
        .subformat = ETRACE_SYNC_SUPPORT,
        .ienable = true,
    };

    etrace_te_inst_pack(&b, &rv64, &t);
    g_assert_cmpuint(b.len, ==, 20);
    /* bits 5-19 are 0: bits 0-4 kept plus one 0 */
    g_assert_cmpuint(etrace_compressed_bits(&b), ==, 6);
}

/* srcID framing (encapsulation.adoc, "Packet length"). */
static void test_encap_srcid(void)
{
    ETraceTeInst t = {
        .format = ETRACE_FMT_SYNC,
        .subformat = ETRACE_SYNC_SUPPORT,
        .ienable = true,
    };
    ETraceEncap e = { .flow = 0, .srcid_bits = 8, .srcid = 0x5a };
    uint8_t out[ETRACE_ENCAP_MAX_BYTES];
    ETraceBits b;

    etrace_te_inst_pack(&b, &rv64, &t);
    /* header length 1, srcID byte, payload 0x1f */
    g_assert_cmpuint(etrace_encap(out, &e, &b, 0), ==, 3);
    g_assert_cmpmem(out, 3, ((uint8_t []){ 0x01, 0x5a, 0x1f }), 3);

    /*
     * 4-bit srcID 0xa: it and the 6 kept payload bits make 10 bits, so
     * length 2: 0xa | 0xf << 4 = 0xfa, then payload bits 4-5 (01) and
     * padding 0.
     */
    e.srcid_bits = 4;
    e.srcid = 0xa;
    g_assert_cmpuint(etrace_encap(out, &e, &b, 0), ==, 3);
    g_assert_cmpmem(out, 3, ((uint8_t []){ 0x02, 0xfa, 0x01 }), 3);

    /* 12 bits: one whole byte, then 4 bits sharing; flow 2 in bits 6:5 */
    e.srcid_bits = 12;
    e.srcid = 0x3c5;
    e.flow = 2;
    g_assert_cmpuint(etrace_encap(out, &e, &b, 0), ==, 4);
    g_assert_cmpmem(out, 4, ((uint8_t []){ 0x42, 0xc5, 0xf3, 0x01 }), 4);

    /*
     * A 6-byte timestamp: extend set, the timestamp LSB first after the
     * srcID's whole bytes; srcID bits beyond them stay with the payload.
     */
    e.flow = 0;
    e.timestamp_bytes = 6;
    e.srcid_bits = 8;
    e.srcid = 0x5a;
    g_assert_cmpuint(etrace_encap(out, &e, &b, 0x123456789a), ==, 9);
    g_assert_cmpmem(out, 9, ((uint8_t []){ 0x81, 0x5a, 0x9a, 0x78, 0x56,
                                           0x34, 0x12, 0x00, 0x1f }), 9);
    e.srcid_bits = 4;
    e.srcid = 0xa;
    g_assert_cmpuint(etrace_encap(out, &e, &b, 0x123456789a), ==, 9);
    g_assert_cmpmem(out, 9, ((uint8_t []){ 0x82, 0x9a, 0x78, 0x56, 0x34,
                                           0x12, 0x00, 0xfa, 0x01 }), 9);

    /*
     * The payload is whole bytes: format 2 with address 0 compresses to
     * 3 bits (10 and a sign bit 0), sign-extended to the byte 0x02.  With
     * a 4-bit srcID that is 12 bits, length 2: 0xa | 0x2 << 4 = 0x2a,
     * then the payload's bits 7:4 (0) and 4 bits of padding.  (3 + 4
     * bits would fit one byte: the payload must not be cut there.)
     */
    t = (ETraceTeInst) { .format = ETRACE_FMT_ADDR };
    etrace_te_inst_pack(&b, &rv64, &t);
    e.timestamp_bytes = 0;
    g_assert_cmpuint(etrace_encap(out, &e, &b, 0), ==, 3);
    g_assert_cmpmem(out, 3, ((uint8_t []){ 0x02, 0x2a, 0x00 }), 3);
    /* 12 bits: 0xc5, then 0x3 | 0x2 << 4, then the rest of the byte */
    e.srcid_bits = 12;
    e.srcid = 0x3c5;
    g_assert_cmpuint(etrace_encap(out, &e, &b, 0), ==, 4);
    g_assert_cmpmem(out, 4, ((uint8_t []){ 0x02, 0xc5, 0x23, 0x00 }), 4);
    /* an 8-bit srcID needs no padding: one payload byte */
    e.srcid_bits = 8;
    e.srcid = 0x5a;
    g_assert_cmpuint(etrace_encap(out, &e, &b, 0), ==, 3);
    g_assert_cmpmem(out, 3, ((uint8_t []){ 0x01, 0x5a, 0x02 }), 3);

    /* N = 31 + T + S null.idle, then a null.alignment */
    g_assert_cmpuint(etrace_encap_sync_len(0, 0), ==, 32);
    g_assert_cmpuint(etrace_encap_sync_len(12, 0), ==, 33);
    g_assert_cmpuint(etrace_encap_sync_len(16, 0), ==, 34);
    g_assert_cmpuint(etrace_encap_sync_len(8, 6), ==, 39);
}

/* ---- the encoder algorithm ---- */

typedef struct Recorder {
    GPtrArray *packets;
    GArray *times;
    ETraceParams params;
} Recorder;

/* irdepth, when it is not 0 (with a return stack only). */
static const char *irdepth_text(const ETraceTeInst *t)
{
    static char buf[16];

    if (!t->irdepth) {
        return "";
    }
    snprintf(buf, sizeof(buf), " d=%x", t->irdepth);
    return buf;
}

static char *describe(const ETraceTeInst *t)
{
    switch (t->format) {
    case ETRACE_FMT_EXT:
        if (t->subformat == ETRACE_EXT_BRANCH_COUNT) {
            if (!(t->branch_fmt & ETRACE_BFMT_ADDR)) {
                return g_strdup_printf("F0.0 c=%u f=%u", t->branch_count,
                                       t->branch_fmt);
            }
            return g_strdup_printf("F0.0 c=%u f=%u a=%" PRIx64 " s=%d%d%d",
                                   t->branch_count, t->branch_fmt,
                                   t->address, t->notify, t->updiscon,
                                   t->irreport);
        }
        g_assert_cmpuint(t->subformat, ==, ETRACE_EXT_JUMP_CACHE);
        return g_strdup_printf("F0.1 i=%u n=%u m=%x r=%d%s", t->index,
                               t->branches, t->branch_map, t->irreport,
                               irdepth_text(t));
    case ETRACE_FMT_BRANCH:
        if (!t->branches) {
            return g_strdup_printf("F1 n=0 m=%x", t->branch_map);
        }
        return g_strdup_printf("F1 n=%u m=%x a=%" PRIx64 " s=%d%d%d%s",
                               t->branches, t->branch_map, t->address,
                               t->notify, t->updiscon, t->irreport,
                               irdepth_text(t));
    case ETRACE_FMT_ADDR:
        return g_strdup_printf("F2 a=%" PRIx64 " s=%d%d%d%s", t->address,
                               t->notify, t->updiscon, t->irreport,
                               irdepth_text(t));
    case ETRACE_FMT_SYNC:
        switch (t->subformat) {
        case ETRACE_SYNC_START:
            return g_strdup_printf("F3.0 b=%d p=%u a=%" PRIx64, t->branch,
                                   t->privilege, t->address);
        case ETRACE_SYNC_TRAP:
            if (t->interrupt) {
                return g_strdup_printf("F3.1 b=%d p=%u c=%u i=1 th=%d a=%"
                                       PRIx64, t->branch, t->privilege,
                                       t->ecause, t->thaddr, t->address);
            }
            return g_strdup_printf("F3.1 b=%d p=%u c=%u i=0 th=%d a=%" PRIx64
                                   " tval=%" PRIx64, t->branch, t->privilege,
                                   t->ecause, t->thaddr, t->address,
                                   t->tval);
        case ETRACE_SYNC_SUPPORT:
            if (t->iret_ext) {
                /* 2.1: and the parameters of the Standard Support Packet */
                return g_strdup_printf("S ie=%d q=%u o=%u ir=1 tw=%u f0s=%u "
                                       "rs=%u cc=%u bp=%u jtc=%u",
                                       t->ienable, t->qual_status,
                                       t->ioptions, t->time_width,
                                       t->f0s_width, t->return_stack_size,
                                       t->call_counter_size, t->bpred_size,
                                       t->cache_size);
            }
            return g_strdup_printf("S ie=%d q=%u o=%u", t->ienable,
                                   t->qual_status, t->ioptions);
        }
    }
    g_assert_not_reached();
}

/* Record each packet, after checking that it reads back from its bytes. */
static void record(void *opaque, const ETraceTeInst *t)
{
    Recorder *r = opaque;
    static const ETraceEncap plain = { 0 };
    uint8_t out[ETRACE_ENCAP_MAX_BYTES];
    ETraceTeInst back;
    g_autofree char *want = describe(t);
    g_autofree char *got = NULL;
    ETraceBits b;
    unsigned n;

    etrace_te_inst_pack(&b, &r->params, t);
    n = etrace_encap(out, &plain, &b, 0);
    g_assert_true(etrace_te_inst_unpack(&back, &r->params, out + 1, n - 1));
    got = describe(&back);
    g_assert_cmpstr(got, ==, want);
    g_ptr_array_add(r->packets, g_steal_pointer(&want));
    g_array_append_val(r->times, t->time);
}

static ETraceEnc enc;
static Recorder rec;

/*
 * The clock of the tests: one tick per instruction that retires or
 * traps (as under -icount shift=0); an interrupt takes none.
 */
static uint64_t clock_now;

static void blk(uint64_t first, unsigned first_size, uint64_t last,
                unsigned last_size, uint32_t count, uint8_t priv)
{
    etrace_enc_block(&enc, first, first_size, last, last_size, count, priv,
                     clock_now + 1, clock_now + count);
    clock_now += count;
}

static void trp(bool interrupt, uint8_t ecause, uint64_t tval, uint64_t epc,
                unsigned size, uint8_t priv)
{
    clock_now += !interrupt;
    etrace_enc_trap(&enc, interrupt, ecause, tval, epc, size, priv,
                    clock_now);
}

static void setup_cfg(bool full_address, uint8_t sync_mode,
                      uint8_t sync_max, bool jump_cache, bool branch_pred,
                      bool sijump)
{
    ETraceEncConfig cfg = {
        .params = rv64,
        .full_address = full_address,
        .jump_cache = jump_cache,
        .branch_pred = branch_pred,
        .sijump = sijump,
        .sync_mode = sync_mode,
        .sync_max = sync_max,
    };

    if (rec.packets) {
        g_ptr_array_free(rec.packets, true);
        g_array_free(rec.times, true);
    }
    rec.packets = g_ptr_array_new_with_free_func(g_free);
    rec.times = g_array_new(false, false, sizeof(uint64_t));
    clock_now = 0;
    rec.params = rv64;
    etrace_enc_init(&enc, &cfg, record, &rec);
    etrace_enc_start(&enc);
}

/* Implicit return on, with a 16-entry return stack; nothing else. */
static void setup_ir_params(const ETraceParams *p, bool jump_cache)
{
    ETraceEncConfig cfg = {
        .params = *p,
        .jump_cache = jump_cache,
        .implicit_return = true,
        .sync_mode = ETRACE_SYNC_MODE_OFF,
    };

    setup_cfg(false, ETRACE_SYNC_MODE_OFF, 0, false, false, false);
    g_ptr_array_set_size(rec.packets, 0);
    rec.params = *p;
    etrace_enc_init(&enc, &cfg, record, &rec);
    etrace_enc_start(&enc);
}

static void setup_ir(bool jump_cache)
{
    setup_ir_params(&rv64_ir, jump_cache);
}

static void setup_opts(bool full_address, uint8_t sync_mode,
                       uint8_t sync_max, bool jump_cache, bool branch_pred)
{
    setup_cfg(full_address, sync_mode, sync_max, jump_cache, branch_pred,
              false);
}

static void setup(bool full_address, uint8_t sync_mode, uint8_t sync_max)
{
    setup_opts(full_address, sync_mode, sync_max, false, false);
}

static void setup_jtc(bool full_address, uint8_t sync_mode,
                      uint8_t sync_max, bool jump_cache)
{
    setup_opts(full_address, sync_mode, sync_max, jump_cache, false);
}

static void expect(const char *const *want)
{
    unsigned i;

    for (i = 0; want[i]; i++) {
        g_assert_cmpuint(i, <, rec.packets->len);
        g_assert_cmpstr(g_ptr_array_index(rec.packets, i), ==, want[i]);
    }
    g_assert_cmpuint(i, ==, rec.packets->len);
}

#define M ETRACE_PRIV_M
#define S ETRACE_PRIV_S
#define U ETRACE_PRIV_U

/* A one-instruction block ending with a transfer of @itype. */
static void insn(uint64_t pc, uint8_t itype, uint8_t priv)
{
    blk(pc, 4, pc, 4, 1, priv);
    etrace_enc_set_itype(&enc, pc, itype);
}

/*
 * Branches go in the map, an uninferable jump's target is reported with
 * them; the last instruction traced follows an updiscon: ended_ntr.
 */
static void test_enc_branches_and_return(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=800",               /* 0x1000 >> 1 */
        /* taken (0), then not taken (1): map 10; +0x1000 -> 0x800 */
        "F1 n=2 m=2 a=800 s=000",
        "S ie=0 q=3 o=0",
        NULL
    };

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    blk(0x1000, 4, 0x1008, 4, 3, M);
    etrace_enc_set_itype(&enc, 0x1008, ETRACE_ITYPE_T_BRANCH);
    blk(0x1000, 4, 0x1008, 4, 3, M);
    etrace_enc_set_itype(&enc, 0x1008, ETRACE_ITYPE_NT_BRANCH);
    insn(0x100c, ETRACE_ITYPE_RETURN, M);
    blk(0x2000, 4, 0x2000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/* ecall retires and is reported, then the handler with thaddr = 1. */
static void test_enc_ecall(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=800",
        "F2 a=4 s=000",                     /* ecall at 0x1008: +8 */
        "F3.1 b=1 p=3 c=11 i=0 th=1 a=1800 tval=0",
        "S ie=0 q=1 o=0",
        NULL
    };

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    blk(0x1000, 4, 0x1004, 4, 2, M);
    trp(false, 11, 0, 0x1008, 4, M);
    blk(0x3000, 4, 0x3000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/* Full addresses: the same run, format 2 carries 0x1008 >> 1. */
static void test_enc_full_address(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=4",
        "F3.0 b=1 p=3 a=800",
        "F2 a=804 s=000",
        "F3.1 b=1 p=3 c=11 i=0 th=1 a=1800 tval=0",
        "S ie=1 q=1 o=4",
        NULL
    };

    setup(true, ETRACE_SYNC_MODE_PACKETS, 4);
    blk(0x1000, 4, 0x1004, 4, 2, M);
    trp(false, 11, 0, 0x1008, 4, M);
    blk(0x3000, 4, 0x3000, 4, 1, M);
    etrace_enc_stop(&enc, true);
    expect(want);
}

/*
 * A load page fault: the last retired instruction goes out with the
 * pending branches, the handler (S-mode) with the cause and tval.
 */
static void test_enc_page_fault(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=800",
        "F1 n=2 m=2 a=4 s=000",             /* 0x1008 - 0x1000 */
        "F3.1 b=1 p=1 c=13 i=0 th=1 a=1800 tval=dead0000",
        "S ie=0 q=1 o=0",
        NULL
    };

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    blk(0x1000, 4, 0x1004, 4, 2, M);
    etrace_enc_set_itype(&enc, 0x1004, ETRACE_ITYPE_T_BRANCH);
    blk(0x1000, 4, 0x1004, 4, 2, M);
    etrace_enc_set_itype(&enc, 0x1004, ETRACE_ITYPE_NT_BRANCH);
    blk(0x1008, 4, 0x1008, 4, 1, M);
    trp(false, 13, 0xdead0000, 0x100c, 0, M);
    blk(0x3000, 4, 0x3000, 4, 1, S);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/* An instruction fetch fault at the target of jalr: thaddr = 0, EPC. */
static void test_enc_fault_at_jump_target(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=7fe",               /* 0xffc >> 1 */
        "F2 a=2 s=000",                     /* the jalr, 0x1000 */
        "F3.1 b=1 p=3 c=12 i=0 th=0 a=2800 tval=5000",
        "F3.0 b=1 p=3 a=1800",              /* the handler */
        "S ie=0 q=1 o=0",
        NULL
    };

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    blk(0xffc, 4, 0xffc, 4, 1, M);
    insn(0x1000, ETRACE_ITYPE_UNINF_JUMP, M);
    trp(false, 12, 0x5000, 0x5000, 0, M);
    blk(0x3000, 4, 0x3000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * The target of an uninferable jump is followed by an exception: its
 * format 2 has updiscon != notify (payload.adoc, sec:updiscon).
 */
static void test_enc_updiscon_bit(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=7fe",
        "F2 a=802 s=011",                   /* 0x2000 - 0xffc = 0x1004 */
        "F2 a=2 s=000",                     /* the ecall at 0x2004 */
        "F3.1 b=1 p=3 c=11 i=0 th=1 a=1800 tval=0",
        "S ie=0 q=1 o=0",
        NULL
    };

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    blk(0xffc, 4, 0x1000, 4, 2, M);
    etrace_enc_set_itype(&enc, 0x1000, ETRACE_ITYPE_UNINF_JUMP);
    blk(0x2000, 4, 0x2000, 4, 1, M);
    trp(false, 11, 0, 0x2004, 4, M);
    blk(0x3000, 4, 0x3000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/* 31 branches fill the map: format 1 without address. */
static void test_enc_full_map(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=0 p=3 a=800",               /* a taken branch itself */
        "F1 n=0 m=0",
        "F2 a=0 s=000",
        "S ie=0 q=1 o=0",
        NULL
    };
    unsigned i;

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    for (i = 0; i < 32; i++) {
        insn(0x1000, ETRACE_ITYPE_T_BRANCH, M);
    }
    blk(0x1000, 4, 0x1000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * mret to U-mode: pending branches go out at the mret (privilege changes
 * next), then a format 3.0 at the first U-mode instruction.
 */
static void test_enc_mret(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=7f8",               /* 0xff0 */
        "F1 n=1 m=1 a=8 s=000",             /* the mret, 0x1000 */
        "F3.0 b=1 p=0 a=2000",              /* 0x4000 */
        "F2 a=2 s=000",                     /* last traced: 0x4004 */
        "S ie=0 q=1 o=0",
        NULL
    };

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    blk(0xff0, 4, 0xff0, 4, 1, M);
    insn(0xff8, ETRACE_ITYPE_NT_BRANCH, M);
    blk(0xffc, 4, 0x1000, 4, 2, M);
    etrace_enc_set_itype(&enc, 0x1000, ETRACE_ITYPE_TRAP_RETURN);
    blk(0x4000, 4, 0x4004, 4, 2, U);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/* An xRET that stays in M-mode still reports its target. */
static void test_enc_mret_same_mode(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=7fe",
        "F2 a=1802 s=000",                  /* 0x4000 - 0xffc */
        "S ie=0 q=3 o=0",
        NULL
    };

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    blk(0xffc, 4, 0x1000, 4, 2, M);
    etrace_enc_set_itype(&enc, 0x1000, ETRACE_ITYPE_TRAP_RETURN);
    blk(0x4000, 4, 0x4000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/* An interrupt right after a taken branch. */
static void test_enc_interrupt_after_branch(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=7fe",
        "F1 n=1 m=0 a=2 s=000",             /* the branch at 0x1000 */
        "F3.1 b=1 p=3 c=7 i=1 th=1 a=1800",
        "S ie=0 q=1 o=0",
        NULL
    };

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    blk(0xffc, 4, 0xffc, 4, 1, M);
    insn(0x1000, ETRACE_ITYPE_T_BRANCH, M);
    trp(true, 7, 0, 0x2000, 0, M);
    blk(0x3000, 4, 0x3000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/* The first traced instruction faults: thaddr = 0 with the EPC. */
static void test_enc_first_insn_faults(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.1 b=1 p=3 c=2 i=0 th=0 a=800 tval=0",
        "F3.0 b=1 p=3 a=1800",
        "S ie=0 q=1 o=0",
        NULL
    };

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    trp(false, 2, 0, 0x1000, 0, M);
    blk(0x3000, 4, 0x3000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * A second trap before the first handler's first instruction retired:
 * thaddr = 0 with the first cause, then the second handler.
 */
static void test_enc_double_trap(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=800",
        "F3.1 b=1 p=1 c=13 i=0 th=0 a=1800 tval=8",
        "F3.1 b=1 p=3 c=11 i=1 th=1 a=2000",
        "S ie=0 q=1 o=0",
        NULL
    };

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    blk(0x1000, 4, 0x1000, 4, 1, M);
    trp(false, 13, 8, 0x1004, 0, M);
    trp(true, 11, 0, 0x3000, 0, S);
    blk(0x4000, 4, 0x4000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * Packet counting, InstSyncMax 0: 16 packets.  A loop J (jalr, 0x1000)
 * -> T (0x2000) -> B (taken branch at 0x2004, back to J): T is reported
 * each time, with the branch of B from the loop before.
 */
static void test_enc_resync_packets(void)
{
    GPtrArray *want = g_ptr_array_new();
    unsigned i;

    setup(false, ETRACE_SYNC_MODE_PACKETS, 0);
    insn(0x1000, ETRACE_ITYPE_UNINF_JUMP, M);
    for (i = 1; i <= 17; i++) {
        blk(0x2000, 4, 0x2004, 4, 2, M);
        etrace_enc_set_itype(&enc, 0x2004, ETRACE_ITYPE_T_BRANCH);
        insn(0x1000, ETRACE_ITYPE_UNINF_JUMP, M);
    }
    etrace_enc_stop(&enc, false);

    g_ptr_array_add(want, (char *)"S ie=1 q=0 o=0");
    g_ptr_array_add(want, (char *)"F3.0 b=1 p=3 a=800");    /* count 0 */
    g_ptr_array_add(want, (char *)"F2 a=800 s=000");        /* 1 */
    for (i = 2; i <= 16; i++) {
        g_ptr_array_add(want, (char *)"F1 n=1 m=0 a=0 s=000");  /* i */
    }
    /* count 16 at B with a branch: flush it, then resync at J */
    g_ptr_array_add(want, (char *)"F1 n=1 m=0 a=2 s=000");
    g_ptr_array_add(want, (char *)"F3.0 b=1 p=3 a=800");
    g_ptr_array_add(want, (char *)"F2 a=800 s=000");
    /* the last J with the last B: 0x1000 - 0x2000 */
    g_ptr_array_add(want, (char *)"F1 n=1 m=0 a=7ffffffffffff800 s=111");
    g_ptr_array_add(want, (char *)"S ie=0 q=1 o=0");
    g_ptr_array_add(want, NULL);
    expect((const char *const *)want->pdata);
    g_ptr_array_free(want, true);
}

/*
 * The resync limit is reached at the target of an uninferable jump: its
 * format 2 announces the format 3 that follows (updiscon != notify).
 */
static void test_enc_resync_updiscon(void)
{
    GPtrArray *want = g_ptr_array_new();
    unsigned i;

    setup(false, ETRACE_SYNC_MODE_PACKETS, 0);
    insn(0x1000, ETRACE_ITYPE_UNINF_JUMP, M);
    for (i = 1; i <= 17; i++) {
        insn(0x2000, ETRACE_ITYPE_UNINF_JUMP, M);
        insn(0x1000, ETRACE_ITYPE_UNINF_JUMP, M);
    }
    etrace_enc_stop(&enc, false);

    g_ptr_array_add(want, (char *)"S ie=1 q=0 o=0");
    g_ptr_array_add(want, (char *)"F3.0 b=1 p=3 a=800");
    /* each target reported: +0x1000, -0x1000 alternately */
    for (i = 1; i <= 16; i++) {
        g_ptr_array_add(want, (char *)(i % 2 ? "F2 a=800 s=000"
                                             : "F2 a=7ffffffffffff800 s=111"));
    }
    /* the 17th: count == 16 before it, so updiscon is inverted */
    g_ptr_array_add(want, (char *)"F2 a=800 s=011");
    g_ptr_array_add(want, (char *)"F3.0 b=1 p=3 a=800");    /* J */
    for (i = 1; i <= 16; i++) {
        g_ptr_array_add(want, (char *)(i % 2 ? "F2 a=800 s=000"
                                             : "F2 a=7ffffffffffff800 s=111"));
    }
    g_ptr_array_add(want, (char *)"S ie=0 q=3 o=0");
    g_ptr_array_add(want, NULL);
    expect((const char *const *)want->pdata);
    g_ptr_array_free(want, true);
}

/*
 * Half-word counting, InstSyncMax 0: 16 half-words.  A loop of four
 * 4-byte instructions (8 half-words) ending in a taken branch: the
 * counter reaches 16 at the second branch, which is flushed, and the
 * next instruction is a format 3.0.
 */
static void test_enc_resync_halfwords(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=800",
        "F1 n=2 m=0 a=6 s=000",             /* 0x100c - 0x1000 */
        "F3.0 b=1 p=3 a=800",
        "F1 n=2 m=0 a=6 s=000",
        "F3.0 b=1 p=3 a=800",               /* the last, reported */
        "S ie=0 q=1 o=0",
        NULL
    };
    unsigned i;

    setup(false, ETRACE_SYNC_MODE_HALFWORDS, 0);
    for (i = 0; i < 4; i++) {
        blk(0x1000, 4, 0x100c, 4, 4, M);
        etrace_enc_set_itype(&enc, 0x100c, ETRACE_ITYPE_T_BRANCH);
    }
    blk(0x1000, 4, 0x1000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * Full addresses switched on while tracing: a support packet says so, and
 * the next format 2 carries a full address.  A trap return given as such
 * is an uninferable discontinuity.
 */
static void test_enc_configure(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=800",
        "S ie=1 q=0 o=4",
        "F2 a=2000 s=000",                  /* 0x4000 >> 1, after mret */
        "S ie=0 q=3 o=4",
        NULL
    };
    ETraceEncConfig cfg;

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    cfg = enc.cfg;
    blk(0x1000, 4, 0x1004, 4, 2, M);
    cfg.full_address = true;
    etrace_enc_configure(&enc, &cfg);
    etrace_enc_trap_return(&enc);
    blk(0x4000, 4, 0x4000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/* Lost packets: a support packet with trace_lost, then a sync. */
static void test_enc_lost(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=800",
        "S ie=1 q=2 o=0",
        "F3.0 b=0 p=3 a=802",               /* the held branch */
        "F3.0 b=1 p=1 a=1000",
        "S ie=0 q=1 o=0",
        NULL
    };

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    blk(0x1000, 4, 0x1000, 4, 1, M);
    insn(0x1004, ETRACE_ITYPE_T_BRANCH, M);
    etrace_enc_lost(&enc);
    blk(0x2000, 4, 0x2000, 4, 1, S);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * A filter stops qualifying: the last traced instruction is reported and
 * a support packet says tracing ended (the encoder still enabled); the
 * next traced instruction starts with a sync.  Stopping when nothing was
 * traced since: no change to qualification.
 */
static void test_enc_unqualified(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=800",
        "F2 a=2 s=000",                     /* 0x1004: +4 */
        "S ie=1 q=1 o=0",
        "F3.0 b=1 p=0 a=1000",
        "S ie=1 q=1 o=0",
        "S ie=0 q=0 o=0",
        NULL
    };

    setup(false, ETRACE_SYNC_MODE_PACKETS, 4);
    etrace_enc_unqualified(&enc);           /* nothing traced yet */
    blk(0x1000, 4, 0x1004, 4, 2, M);
    etrace_enc_unqualified(&enc);
    etrace_enc_unqualified(&enc);           /* ended already */
    blk(0x2000, 4, 0x2000, 4, 1, U);
    etrace_enc_unqualified(&enc);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * Each packet carries the time of the instruction it reports (the clock
 * of blk() and trp()); a support packet the time etrace_enc_set_now()
 * gave.  The branch at 0x1008 retires at 3; the ecall at 0x2000 traps at
 * 4 and is reported with it; the handler's first instruction retires at
 * 5; a full branch map goes out with its last branch.
 */
static void test_enc_times(void)
{
    static const uint64_t want[] = { 0, 1, 4, 5, 36, 40, 99 };
    unsigned i;

    setup(false, ETRACE_SYNC_MODE_OFF, 0);
    blk(0x1000, 4, 0x1008, 4, 3, M);
    etrace_enc_set_itype(&enc, 0x1008, ETRACE_ITYPE_T_BRANCH);
    trp(false, 11, 0, 0x2000, 4, M);
    blk(0x3000, 4, 0x3000, 4, 1, M);
    for (i = 0; i < 31; i++) {
        /* a branch back to itself, not taken at the end: 6 .. 36 */
        blk(0x3004, 4, 0x3004, 4, 1, M);
        etrace_enc_set_itype(&enc, 0x3004, i < 30 ? ETRACE_ITYPE_T_BRANCH :
                                           ETRACE_ITYPE_NT_BRANCH);
    }
    blk(0x3008, 4, 0x3014, 4, 4, M);
    etrace_enc_set_now(&enc, 99);
    etrace_enc_stop(&enc, false);
    g_assert_cmpuint(rec.times->len, ==, ARRAY_SIZE(want));
    for (i = 0; i < ARRAY_SIZE(want); i++) {
        g_assert_cmpuint(g_array_index(rec.times, uint64_t, i), ==,
                         want[i]);
    }
}

/*
 * Format 0 subformat 1 (f0s 1 bit, index 6 bits): format 00, subformat
 * 1, index 5 from bit 3, branches from bit 9, irreport: 0x2c; with two
 * branches (map 010, 3 bits, from bit 14) and irreport (bit 17) equal to
 * the map's MSB: 0x842c, then a sign bit: 2c 84 00.
 */
static void test_jump_cache_packet(void)
{
    ETraceTeInst t = {
        .format = ETRACE_FMT_EXT,
        .subformat = ETRACE_EXT_JUMP_CACHE,
        .index = 5,
    };

    check_payload(&rv64, &t, "2c");
    t.branches = 2;
    t.branch_map = 2;
    check_payload(&rv64, &t, "2c 84 00");
    /*
     * 5 branches (a 7-bit map, 1010101) at bits 9-20, irreport 1 at bit
     * 21: the sign fills the rest.
     */
    t.branches = 5;
    t.branch_map = 0x55;
    t.irreport = 1;
    check_payload(&rv64, &t, "2c 4a f5");
}

/*
 * The jump target cache (64 entries, by address bits 6:1): the targets
 * of jr at 0x1004 (0x2010, entry 8) and at 0x2014 (0x1004, entry 2) go
 * out as addresses the first time, as their entries after: format 0.1,
 * no address.  The next differential address is from the last target.
 * Before a trap, a target in the cache is a format 2 with updiscon
 * (format 0.1 has no such bit).  A synchronisation empties the cache.
 */
static void test_enc_jump_cache(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=8",
        "F3.0 b=1 p=3 a=800",
        "F2 a=808 s=000",                   /* 0x2010 - 0x1000 */
        "F2 a=7ffffffffffff7fa s=111",      /* 0x1004 - 0x2010 */
        "F0.1 i=8 n=0 m=0 r=0",
        "F0.1 i=2 n=0 m=0 r=0",
        "F2 a=806 s=011",                   /* 0x2010, updiscon */
        "F2 a=2 s=000",                     /* the ecall */
        "F3.1 b=1 p=3 c=11 i=0 th=1 a=1800 tval=0",
        "F2 a=7ffffffffffff808 s=111",      /* 0x2010 - 0x3000, a miss */
        "S ie=0 q=3 o=8",
        NULL
    };

    setup_jtc(false, ETRACE_SYNC_MODE_OFF, 0, true);
    blk(0x1000, 4, 0x1004, 4, 2, M);
    etrace_enc_set_itype(&enc, 0x1004, ETRACE_ITYPE_UNINF_JUMP);
    blk(0x2010, 4, 0x2014, 4, 2, M);
    etrace_enc_set_itype(&enc, 0x2014, ETRACE_ITYPE_UNINF_JUMP);
    insn(0x1004, ETRACE_ITYPE_UNINF_JUMP, M);
    blk(0x2010, 4, 0x2014, 4, 2, M);
    etrace_enc_set_itype(&enc, 0x2014, ETRACE_ITYPE_UNINF_JUMP);
    insn(0x1004, ETRACE_ITYPE_UNINF_JUMP, M);
    /* 0x2010 again, then an ecall at 0x2014: the handler at 0x3000 */
    blk(0x2010, 4, 0x2010, 4, 1, M);
    trp(false, 11, 0, 0x2014, 4, M);
    insn(0x3000, ETRACE_ITYPE_UNINF_JUMP, M);
    blk(0x2010, 4, 0x2010, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * A jump to itself at 0x107e (entry 63): its target is in the cache from
 * the second time on, but format 0.1 would take 2 bytes (index 63 reaches
 * bit 8) where format 2 with a differential address of 0 takes 1.
 */
static void test_enc_jump_cache_shorter(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=8",
        "F3.0 b=1 p=3 a=800",
        "F2 a=3f s=000",                    /* 0x107e - 0x1000 */
        "F2 a=0 s=000",
        "F2 a=0 s=000",
        "S ie=0 q=3 o=8",
        NULL
    };

    setup_jtc(false, ETRACE_SYNC_MODE_OFF, 0, true);
    blk(0x1000, 4, 0x1004, 4, 2, M);
    etrace_enc_set_itype(&enc, 0x1004, ETRACE_ITYPE_UNINF_JUMP);
    insn(0x107e, ETRACE_ITYPE_UNINF_JUMP, M);
    insn(0x107e, ETRACE_ITYPE_UNINF_JUMP, M);
    blk(0x107e, 4, 0x107e, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * Format 0 subformat 0 (f0s 1 bit): format 00, subformat 0, branch_count
 * (32 bits) from bit 3, branch_fmt from bit 35.  Count 5, no address:
 * 0x28.  Count 0 with the address 0x10 (branch_fmt 10: bit 36; the
 * address from bit 37: bit 41; notify, updiscon, irreport 0): 2^36 +
 * 2^41, 6 bytes.
 */
static void test_branch_count_packet(void)
{
    ETraceTeInst t = {
        .format = ETRACE_FMT_EXT,
        .subformat = ETRACE_EXT_BRANCH_COUNT,
        .branch_count = 5,
        .branch_fmt = ETRACE_BFMT_NO_ADDR,
    };

    check_payload(&rv64, &t, "28");
    t.branch_count = 0;
    t.branch_fmt = ETRACE_BFMT_ADDR;
    t.address = 0x10;
    check_payload(&rv64, &t, "00 00 00 00 10 02");
}

/*
 * The branch predictor: a branch at 0x1000 (entry 0, 01 after the sync)
 * taken 67 times, then not taken.  The first taken one fails the
 * prediction (01 -> 11), the others are foreseen.  The first 31 make a
 * full map with a failure in it: format 1.  The next 31, all foreseen,
 * are counted from then on, with 5 more; the not taken one fails: format
 * 0.0 without an address, count 36 - 31.  The last instruction then goes
 * out as a format 2.
 */
static void test_enc_branch_prediction(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=16",
        "F3.0 b=1 p=3 a=7fe",
        "F1 n=0 m=0",
        "F0.0 c=5 f=0",
        "F2 a=4 s=000",                     /* 0x1004 - 0xffc */
        "S ie=0 q=1 o=16",
        NULL
    };
    unsigned i;

    setup_opts(false, ETRACE_SYNC_MODE_OFF, 0, false, true);
    blk(0xffc, 4, 0xffc, 4, 1, M);
    for (i = 0; i < 68; i++) {
        insn(0x1000, i < 67 ? ETRACE_ITYPE_T_BRANCH : ETRACE_ITYPE_NT_BRANCH,
             M);
    }
    blk(0x1004, 4, 0x1004, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * Counting, then an address to report: an ecall after 40 foreseen
 * branches (taken to 0x1000 71 times, then an ecall whose address the
 * encoder is given as 0x1004: it does not follow the program): format 0.0
 * with the address, count 9, branch_fmt 10 (the address is no branch).
 */
static void test_enc_branch_count_address(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=16",
        "F3.0 b=1 p=3 a=7fe",
        "F1 n=0 m=0",
        "F0.0 c=9 f=2 a=4 s=000",           /* the ecall, 0x1004 - 0xffc */
        "F3.1 b=1 p=3 c=11 i=0 th=1 a=1800 tval=0",
        "S ie=0 q=1 o=16",
        NULL
    };
    unsigned i;

    setup_opts(false, ETRACE_SYNC_MODE_OFF, 0, false, true);
    blk(0xffc, 4, 0xffc, 4, 1, M);
    /* 1 failure and 30 in the map, then 40 counted */
    for (i = 0; i < 71; i++) {
        insn(0x1000, ETRACE_ITYPE_T_BRANCH, M);
    }
    trp(false, 11, 0, 0x1004, 4, M);
    blk(0x3000, 4, 0x3000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * Sequentially inferable jumps: the jalr at 0x1004 after the auipc that
 * loaded its register is inferable, its target 0x2000 goes unreported
 * (the stop reports it as the last instruction: ended_rep).  When a
 * synchronisation packet reports the jalr itself, it stays uninferable:
 * its target is reported (ended_ntr).
 */
static void test_enc_sijump(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=32",
        "F3.0 b=1 p=3 a=800",
        "F2 a=800 s=000",                   /* 0x2000 - 0x1000, the stop */
        "S ie=0 q=1 o=32",
        NULL
    };
    static const char *const at_sync[] = {
        "S ie=1 q=0 o=32",
        "F3.0 b=1 p=3 a=802",
        "F2 a=7fe s=000",                   /* 0x2000 - 0x1004 */
        "S ie=0 q=3 o=32",
        NULL
    };

    setup_cfg(false, ETRACE_SYNC_MODE_OFF, 0, false, false, true);
    blk(0x1000, 4, 0x1004, 4, 2, M);
    etrace_enc_set_itype(&enc, 0x1004, ETRACE_ITYPE_UNINF_JUMP);
    etrace_enc_set_sijump(&enc, 0x1004);
    blk(0x2000, 4, 0x2000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);

    setup_cfg(false, ETRACE_SYNC_MODE_OFF, 0, false, false, true);
    insn(0x1004, ETRACE_ITYPE_UNINF_JUMP, M);
    etrace_enc_set_sijump(&enc, 0x1004);
    blk(0x2000, 4, 0x2000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(at_sync);
}

/* A call (jal ra) and the return at the end of @first .. @last. */
static void call_ret(uint64_t call, uint64_t first, uint64_t last,
                     uint32_t count)
{
    blk(call, 4, call, 4, 1, M);
    etrace_enc_set_itype(&enc, call, ETRACE_ITYPE_INF_CALL);
    etrace_enc_set_ir(&enc, call, ETRACE_ROW_CALL);
    blk(first, 4, last, 4, count, M);
    etrace_enc_set_itype(&enc, last, ETRACE_ITYPE_RETURN);
    etrace_enc_set_ir(&enc, last, ETRACE_ROW_RET);
}

/*
 * Implicit return: a return to the link of the call before it goes out
 * in no packet (ioptions bit 0); one elsewhere reports its target with
 * irreport flipped and irdepth 1 (payload.adoc, sec:irxx).
 */
static void test_enc_implicit_return(void)
{
    static const char *const implicit[] = {
        "S ie=1 q=0 o=1",
        "F3.0 b=1 p=3 a=800",
        "F2 a=4 s=000",                     /* the last, 0x1008 */
        "S ie=0 q=1 o=1",
        NULL
    };
    static const char *const failed[] = {
        "S ie=1 q=0 o=1",
        "F3.0 b=1 p=3 a=800",
        "F2 a=8 s=001 d=1",                 /* 0x1010, depth 1 */
        "S ie=0 q=3 o=1",
        NULL
    };

    setup_ir(false);
    call_ret(0x1000, 0x2000, 0x2004, 2);
    blk(0x1004, 4, 0x1008, 4, 2, M);
    etrace_enc_stop(&enc, false);
    expect(implicit);

    setup_ir(false);
    call_ret(0x1000, 0x2000, 0x2004, 2);
    blk(0x1010, 4, 0x1010, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(failed);
}

/*
 * irdepth after irreport (payload.adoc, format 2): 2 format bits, 63
 * address bits (8), notify 0, updiscon 0, irreport 1 (bit 67), irdepth
 * 00001 (bits 68-72), then copies of 0: bits 67 and 68 in byte 8.
 */
static void test_irdepth_packet(void)
{
    ETraceTeInst t = { .format = ETRACE_FMT_ADDR, .address = 8 };
    ETraceTeInst back;
    ETraceBits b;

    etrace_set_status_bits(&t, &rv64_ir, false, false, true, 1);
    g_assert_true(!t.notify && !t.updiscon && t.irreport);
    g_assert_cmpuint(t.irdepth, ==, 1);
    check_payload(&rv64_ir, &t, "22 00 00 00 00 00 00 00 18");
    etrace_te_inst_pack(&b, &rv64_ir, &t);
    g_assert_cmpuint(etrace_compressed_bits(&b), ==, 70);

    /* not reported: irdepth repeats irreport, and compresses away */
    etrace_set_status_bits(&t, &rv64_ir, false, false, false, 0);
    g_assert_true(!t.irreport);
    g_assert_cmpuint(t.irdepth, ==, 0);
    check_payload(&rv64_ir, &t, "22");
    t.address = MAKE_64BIT_MASK(0, 63);
    etrace_set_status_bits(&t, &rv64_ir, false, false, false, 0);
    g_assert_cmpuint(t.irdepth, ==, 0x1f);
    check_payload(&rv64_ir, &t, "fe");

    /* format 0.1: irdepth after irreport, after the 3-bit map 101 */
    t = (ETraceTeInst) {
        .format = ETRACE_FMT_EXT,
        .subformat = ETRACE_EXT_JUMP_CACHE,
        .index = 5,
        .branches = 2,
        .branch_map = 5,
    };
    etrace_set_irdepth(&t, &rv64_ir, 1, true, 3);
    g_assert_true(!t.irreport);
    g_assert_cmpuint(t.irdepth, ==, 3);
    etrace_te_inst_pack(&b, &rv64_ir, &t);
    /*
     * 00 1 101000 01000 101 0 11000: bits 0-2 format and subformat, 3-8
     * index 5, 9-13 branches 2, 14-16 map, 17 irreport, 18-22 irdepth 3;
     * the top bit that differs from the sign is 19
     */
    g_assert_cmpuint(etrace_compressed_bits(&b), ==, 21);
    check_payload(&rv64_ir, &t, "2c 44 0d");
    g_assert_true(etrace_te_inst_unpack(&back, &rv64_ir,
                                        (const uint8_t[]){ 0x2c, 0x44, 0x0d },
                                        3));
    g_assert_cmpuint(back.index, ==, 5);
    g_assert_cmpuint(back.irreport, ==, 0);
    g_assert_cmpuint(back.irdepth, ==, 3);
}

/*
 * A failed return at the depth where a return was implicit before it,
 * with no packet in between: a decoder would take the first one for it.
 * The return is reported first with notify (stop at it), then its
 * target with irdepth 1.
 */
static void test_enc_ir_failed_after_implicit(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=1",
        "F3.0 b=1 p=3 a=800",
        /* notify, no address MSB: s=111, irdepth copies irreport */
        "F2 a=1000 s=111 d=1f",             /* 0x3000 - 0x1000 */
        "F2 a=7ffffffffffff008 s=110 d=1",  /* 0x1010 - 0x3000 */
        "S ie=0 q=3 o=1",
        NULL
    };

    setup_ir(false);
    call_ret(0x1000, 0x2000, 0x2004, 2);    /* implicit, depth 1 */
    call_ret(0x1004, 0x3000, 0x3000, 1);    /* to 0x1010: failed */
    blk(0x1010, 4, 0x1010, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * f(); f(); and a fault in the second f at an instruction the first one
 * passed, no branch in between: the instruction before the second f is
 * reported with notify, so that the report before the fault is its only
 * pass in the stretch of trace a decoder follows.
 */
static void test_enc_ir_same_code_twice(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=1",
        "F3.0 b=1 p=3 a=800",
        "F2 a=2 s=111 d=1f",                /* 0x1004, notify */
        "F2 a=7fe s=000",                   /* 0x2000 - 0x1004 */
        "F3.1 b=1 p=3 c=5 i=0 th=1 a=1800 tval=200",
        "S ie=0 q=1 o=1",
        NULL
    };

    setup_ir(false);
    call_ret(0x1000, 0x2000, 0x2008, 3);    /* implicit */
    blk(0x1004, 4, 0x1004, 4, 1, M);        /* jal ra, f again */
    etrace_enc_set_itype(&enc, 0x1004, ETRACE_ITYPE_INF_CALL);
    etrace_enc_set_ir(&enc, 0x1004, ETRACE_ROW_CALL);
    blk(0x2000, 4, 0x2000, 4, 1, M);
    trp(false, 5, 0x200, 0x2004, 0, M);
    blk(0x3000, 4, 0x3000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * An ecall right after an implicit return: a decoder (decoder.adoc,
 * follow_execution_path) stops at a reported address that follows an
 * uninferable discontinuity only for notify, so the ecall is reported
 * with notify; then the handler.
 */
static void test_enc_ir_ecall_after_implicit(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=1",
        "F3.0 b=1 p=3 a=800",
        "F2 a=2 s=111 d=1f",                /* 0x1004, notify */
        "F3.1 b=1 p=3 c=11 i=0 th=1 a=1800 tval=0",
        "S ie=0 q=1 o=1",
        NULL
    };

    setup_ir(false);
    call_ret(0x1000, 0x2000, 0x2004, 2);    /* implicit, to 0x1004 */
    trp(false, 11, 0, 0x1004, 4, M);        /* ecall at 0x1004 */
    blk(0x3000, 4, 0x3000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * 2.0: the last instruction traced is the target of an implicit return:
 * reported with notify, for a decoder cannot stop right after an
 * uninferable discontinuity but for notify (decoder.adoc).
 */
static void test_enc_ir_end_after_implicit(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=1",
        "F3.0 b=1 p=3 a=800",
        "F2 a=2 s=111 d=1f",                /* 0x1004, notify */
        "S ie=0 q=1 o=1",
        NULL
    };

    setup_ir(false);
    call_ret(0x1000, 0x2000, 0x2004, 2);
    blk(0x1004, 4, 0x1004, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/* Protocol 2.1: options 65 are implicit_return and resync_disabled. */
#define SSP_START   "S ie=1 q=0 o=65 ir=1 tw=0 f0s=1 rs=4 cc=0 bp=6 jtc=6"
#define SSP_END(q)  "S ie=0 q=" #q " o=65 ir=1 tw=0 f0s=1 rs=4 cc=0 bp=6 jtc=6"
#define SSP_JTC_END(q) \
    "S ie=0 q=" #q " o=73 ir=1 tw=0 f0s=1 rs=4 cc=0 bp=6 jtc=6"

/*
 * Protocol 2.1, Implicit Return extension (extensions.adoc, sec:irets):
 * irreport and irets, the implicit returns since the last branch or
 * packet, in each reporting condition.
 */
static void test_enc_irets(void)
{
    /* a non-updiscon report (the last, 0x1008) after one: irets 1 */
    static const char *const counted[] = {
        SSP_START,
        "F3.0 b=1 p=3 a=800",
        "F2 a=4 s=001 d=1",
        SSP_END(1),
        NULL
    };
    /* mispredicted (to 0x1010, not 0x1004): none before it, irets 0 */
    static const char *const failed[] = {
        SSP_START,
        "F3.0 b=1 p=3 a=800",
        "F2 a=8 s=001",
        SSP_END(3),
        NULL
    };
    /*
     * predicted, its target 0x1004 reported for another reason (the
     * last): the return is the reported one, irets 0 before it
     */
    static const char *const predicted[] = {
        SSP_START,
        "F3.0 b=1 p=3 a=800",
        "F2 a=2 s=001",
        SSP_END(1),
        NULL
    };
    /* ... and before an ecall */
    static const char *const ecall[] = {
        SSP_START,
        "F3.0 b=1 p=3 a=800",
        "F2 a=2 s=001",
        "F3.1 b=1 p=3 c=11 i=0 th=1 a=1800 tval=0",
        SSP_END(1),
        NULL
    };
    /*
     * 256 returns in a row, no branch: the 256th is reported, irets 255,
     * its target 0x1400 (+0x400 from 0x1000)
     */
    static const char *const limit[] = {
        SSP_START,
        "F3.0 b=1 p=3 a=800",
        "F2 a=200 s=001 d=ff",
        SSP_END(3),
        NULL
    };
    /*
     * a failed return whose target the jump target cache holds: format
     * 0.1, irreport after the empty branches field (bit 0)
     */
    static const char *const cached[] = {
        "S ie=1 q=0 o=73 ir=1 tw=0 f0s=1 rs=4 cc=0 bp=6 jtc=6",
        "F3.0 b=1 p=3 a=800",
        "F2 a=8 s=001",                     /* 0x1010, cached, entry 8 */
        "F0.1 i=8 n=0 m=0 r=1",             /* 0x1010 again */
        SSP_JTC_END(3),
        NULL
    };
    unsigned k;

    setup_ir_params(&rv64_21, false);
    call_ret(0x1000, 0x2000, 0x2004, 2);
    blk(0x1004, 4, 0x1008, 4, 2, M);
    etrace_enc_stop(&enc, false);
    expect(counted);

    setup_ir_params(&rv64_21, false);
    call_ret(0x1000, 0x2000, 0x2004, 2);
    blk(0x1010, 4, 0x1010, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(failed);

    setup_ir_params(&rv64_21, false);
    call_ret(0x1000, 0x2000, 0x2004, 2);
    blk(0x1004, 4, 0x1004, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(predicted);

    setup_ir_params(&rv64_21, false);
    call_ret(0x1000, 0x2000, 0x2004, 2);
    trp(false, 11, 0, 0x1004, 4, M);
    blk(0x3000, 4, 0x3000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(ecall);

    setup_ir_params(&rv64_21, false);
    for (k = 0; k < 256; k++) {
        call_ret(0x1000 + 4 * k, 0x2000, 0x2004, 2);
    }
    blk(0x1400, 4, 0x1400, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(limit);

    setup_ir_params(&rv64_21, true);
    call_ret(0x1000, 0x2000, 0x2004, 2);
    call_ret(0x1010, 0x2000, 0x2004, 2);
    blk(0x1010, 4, 0x1010, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(cached);
}

/*
 * 2.1: an exception at the target of an implicit return, an uninferable
 * discontinuity: thaddr 0 with the EPC, then the handler in a format 3.0
 * (payload.adoc, "Format 3 thaddr").  The return at 0x2004 is reported
 * before the trap, irets 1 for itself: a decoder pops it on reaching it.
 */
static void test_enc_irets_fault_at_target(void)
{
    static const char *const want[] = {
        SSP_START,
        "F3.0 b=1 p=3 a=800",
        "F2 a=802 s=001 d=1",
        "F3.1 b=1 p=3 c=12 i=0 th=0 a=802 tval=1004",
        "F3.0 b=1 p=3 a=1800",
        SSP_END(1),
        NULL
    };

    setup_ir_params(&rv64_21, false);
    call_ret(0x1000, 0x2000, 0x2004, 2);
    trp(false, 12, 0x1004, 0x1004, 0, M);
    blk(0x3000, 4, 0x3000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/*
 * Options changed while branches are pending: the support packet says so
 * and the branches go out with the next packet that reports them.
 */
static void test_enc_configure_keeps_branches(void)
{
    static const char *const want[] = {
        "S ie=1 q=0 o=0",
        "F3.0 b=1 p=3 a=800",
        "S ie=1 q=0 o=8",
        "F1 n=2 m=2 a=800 s=000",           /* 0x2000 - 0x1000 */
        "S ie=0 q=3 o=8",
        NULL
    };
    ETraceEncConfig cfg;

    setup(false, ETRACE_SYNC_MODE_OFF, 0);
    cfg = enc.cfg;
    blk(0x1000, 4, 0x1000, 4, 1, M);
    insn(0x1004, ETRACE_ITYPE_T_BRANCH, M);
    insn(0x1004, ETRACE_ITYPE_NT_BRANCH, M);
    cfg.jump_cache = true;
    etrace_enc_configure(&enc, &cfg);
    insn(0x1008, ETRACE_ITYPE_UNINF_JUMP, M);
    blk(0x2000, 4, 0x2000, 4, 1, M);
    etrace_enc_stop(&enc, false);
    expect(want);
}

/* ---- filters and comparators ---- */

#define FILTER(i, reg)  (ETRACE_FILTER_BASE + 0x20 * (i) + (reg))
#define COMP(j, reg)    (ETRACE_COMP_BASE + 0x20 * (j) + (reg))
#define CTL_COMP1(j)    (ETRACE_FILTER_MATCH_COMP(1) | \
                         (j) << ETRACE_FILTER_COMP_SHIFT(1))

static ETraceFilterRegs fregs;
static ETraceFilter filt;
/*
 * The encoder implements data trace (data filters can be set) of these
 * sizes: 1 to 8 bytes; 16 with data_width_p 128.
 */
static unsigned fdata = 0xf;

static void wr(unsigned offset, uint32_t val)
{
    g_assert_true(etrace_filter_reg_write(&fregs, offset, val, fdata));
}

static uint32_t rd(unsigned offset)
{
    uint32_t val;

    g_assert_true(etrace_filter_reg_read(&fregs, offset, &val));
    return val;
}

static void comp_setup(unsigned j, unsigned pfn, uint64_t p, unsigned sfn,
                       uint64_t sv, unsigned mode)
{
    wr(COMP(j, 0x00), pfn << ETRACE_COMP_P_FUNCTION_SHIFT |
                      sfn << ETRACE_COMP_S_FUNCTION_SHIFT |
                      mode << ETRACE_COMP_MATCH_MODE_SHIFT);
    wr(COMP(j, 0x10), p);
    wr(COMP(j, 0x14), p >> 32);
    wr(COMP(j, 0x18), sv);
    wr(COMP(j, 0x1c), sv >> 32);
}

/* Filter 0 alone, on comparator unit @j; the state starts afresh. */
static void filter_on_comp(unsigned j)
{
    wr(0x00c, 1);
    wr(FILTER(0, 0x00), ETRACE_FILTER_ENABLE | CTL_COMP1(j));
    memset(&filt, 0, sizeof(filt));
    etrace_filter_configure(&filt, &fregs);
}

/* Each address of @addrs in turn: whether it is traced. */
static void expect_insns(const uint64_t *addrs, const char *want)
{
    unsigned i;

    for (i = 0; want[i]; i++) {
        g_assert_cmpint(etrace_filter_insn(&filt, addrs[i], M), ==,
                        want[i] == 'T');
    }
}

/*
 * WARL: written with ones, what is not implemented reads 0; without data
 * trace, trTeDataFilters and the data match fields too.
 */
static void test_filter_registers(void)
{
    static const struct {
        unsigned offset;
        uint32_t val, data_val;
    } want[] = {
        { 0x00c, 0xff, 0xff },              /* 8 filters */
        { 0x01c, 0, 0xff },                 /* trTeDataFilters */
        /* no impdef; dtype and dsize with data trace */
        { FILTER(0, 0x00), 0xffff, 0x300ffff },
        { FILTER(7, 0x04), 0x16b, 0x16b },  /* priv 0 1 3 5 6, interrupt */
        { FILTER(7, 0x08), 0xffffffff, 0xffffffff },
        { FILTER(7, 0x0c), 0xffffffff, 0xffffffff },
        { FILTER(0, 0x10), 0, 0 },          /* impdef value */
        { FILTER(0, 0x14), 0, 0 },          /* impdef mask */
        /* dtype 0 1 7 8-15, dsize 0-3 */
        { FILTER(0, 0x18), 0, 0xfff83 },
        { FILTER(0, 0x1c), 0, 0 },
        { FILTER(8, 0x00), 0, 0 },          /* filter 8: none */
        { FILTER(15, 0x04), 0, 0 },
        /* inputs iaddr (daddr with data trace), no notify */
        { COMP(0, 0x00), 0x3770, 0x377f },
        { COMP(7, 0x04), 0, 0 },
        { COMP(7, 0x10), 0xffffffff, 0xffffffff },
        { COMP(7, 0x14), 0xffffffff, 0xffffffff },
        { COMP(7, 0x18), 0xffffffff, 0xffffffff },
        { COMP(7, 0x1c), 0xffffffff, 0xffffffff },
    };
    uint32_t val;
    unsigned i, pass;

    for (pass = 0; pass < 2; pass++) {
        fdata = pass ? 0xf : 0;
        memset(&fregs, 0, sizeof(fregs));
        for (i = 0; i < ARRAY_SIZE(want); i++) {
            wr(want[i].offset, 0xffffffff);
        }
        for (i = 0; i < ARRAY_SIZE(want); i++) {
            g_assert_cmphex(rd(want[i].offset), ==,
                            fdata ? want[i].data_val : want[i].val);
        }
    }
    /* data_width_p 128 (split signalling, Zacas): dsize 4 too */
    fdata = 0x1f;
    wr(FILTER(0, 0x18), 0xffffffff);
    g_assert_cmphex(rd(FILTER(0, 0x18)), ==, 0x1fff83);
    fdata = 0xf;
    /* context (1) and tval (2) inputs read as iaddr */
    wr(COMP(1, 0x00), 1 << ETRACE_COMP_P_INPUT_SHIFT |
                      2 << ETRACE_COMP_S_INPUT_SHIFT);
    g_assert_cmphex(rd(COMP(1, 0x00)), ==, 0);
    g_assert_false(etrace_filter_reg_read(&fregs, 0x010, &val));
    g_assert_false(etrace_filter_reg_write(&fregs, 0x800, 1, 0xf));
}

/*
 * Each function of the primary comparator (mode 0, P alone) at
 * m - 2, m, m + 2; function 6 is always false for the primary.
 */
static void test_filter_functions(void)
{
    static const char *const want[8] = {
        "FTF", "TFT", "TFF", "TTF", "FFT", "FTT", "FFF", "TTT",
    };
    static const uint64_t addrs[] = { 0x80000ffe, 0x80001000, 0x80001002 };
    unsigned fn;

    for (fn = 0; fn < 8; fn++) {
        memset(&fregs, 0, sizeof(fregs));
        comp_setup(3, fn, 0x80001000, ETRACE_COMP_TRUE, 0,
                   ETRACE_COMP_MODE_P);
        filter_on_comp(3);
        expect_insns(addrs, want[fn]);
    }
}

/*
 * A range [0x1000, 0x2000) as P >= lo and S < hi; its complement with
 * !(P && S); a masked primary (secondary function 6): the page of 0x5000.
 * Comparisons are unsigned: 2^63 is above the range.
 */
static void test_filter_modes(void)
{
    static const uint64_t range[] = {
        0xffe, 0x1000, 0x1ffe, 0x2000, UINT64_C(1) << 63,
    };
    static const uint64_t page[] = { 0x4ffe, 0x5000, 0x5ffe, 0x6000 };

    memset(&fregs, 0, sizeof(fregs));
    comp_setup(0, ETRACE_COMP_GE, 0x1000, ETRACE_COMP_LT, 0x2000,
               ETRACE_COMP_MODE_P_AND_S);
    filter_on_comp(0);
    expect_insns(range, "FTTFF");

    comp_setup(0, ETRACE_COMP_GE, 0x1000, ETRACE_COMP_LT, 0x2000,
               ETRACE_COMP_MODE_NOT_P_AND_S);
    filter_on_comp(0);
    expect_insns(range, "TFFTT");

    comp_setup(0, ETRACE_COMP_EQ, 0x5123, ETRACE_COMP_SPECIAL,
               ~UINT64_C(0xfff), ETRACE_COMP_MODE_P);
    filter_on_comp(0);
    expect_insns(page, "FTTF");
}

/*
 * Latch mode: set at a primary match, asserted up to and including the
 * instruction of a secondary match; primed by primary function 6, it is
 * set from the start.
 */
static void test_filter_latch(void)
{
    /* X, A, Y, B, Z, B, A, A+B */
    static const uint64_t seq[] = {
        0x100, 0xa00, 0x104, 0xb00, 0x108, 0xb00, 0xa00, 0x10c,
    };

    memset(&fregs, 0, sizeof(fregs));
    comp_setup(1, ETRACE_COMP_EQ, 0xa00, ETRACE_COMP_EQ, 0xb00,
               ETRACE_COMP_MODE_LATCH);
    filter_on_comp(1);
    expect_insns(seq, "FTTTFFTT");

    /* Set and cleared by one instruction (P and S both true at 0xc00). */
    comp_setup(1, ETRACE_COMP_EQ, 0xc00, ETRACE_COMP_GE, 0xc00,
               ETRACE_COMP_MODE_LATCH);
    filter_on_comp(1);
    expect_insns((const uint64_t []){ 0x100, 0xc00, 0x100 }, "FTF");

    comp_setup(1, ETRACE_COMP_SPECIAL, 0, ETRACE_COMP_EQ, 0xb00,
               ETRACE_COMP_MODE_LATCH);
    filter_on_comp(1);
    expect_insns(seq, "TTTTFFFF");
    /* Tracing starts again: primed again. */
    etrace_filter_restart(&filt);
    expect_insns(seq, "TTTTFFFF");
}

/* Privilege choice; two filters OR; conditions of one filter AND. */
static void test_filter_privilege(void)
{
    memset(&fregs, 0, sizeof(fregs));
    wr(0x00c, 0x5);                         /* filters 0 and 2 */
    wr(FILTER(0, 0x00), ETRACE_FILTER_ENABLE | ETRACE_FILTER_MATCH_PRIV);
    wr(FILTER(0, 0x04), 1u << ETRACE_PRIV_U | 1u << ETRACE_PRIV_VU);
    /* filter 2: M-mode at 0x8000 and above */
    wr(FILTER(2, 0x00), ETRACE_FILTER_ENABLE | ETRACE_FILTER_MATCH_PRIV |
                        CTL_COMP1(5));
    wr(FILTER(2, 0x04), 1u << ETRACE_PRIV_M);
    comp_setup(5, ETRACE_COMP_GE, 0x8000, ETRACE_COMP_TRUE, 0,
               ETRACE_COMP_MODE_P);
    /* filter 1, enabled but not selected */
    wr(FILTER(1, 0x00), ETRACE_FILTER_ENABLE);
    memset(&filt, 0, sizeof(filt));
    etrace_filter_configure(&filt, &fregs);
    g_assert_true(etrace_filter_on(&filt));
    g_assert_true(etrace_filter_per_insn(&filt));

    g_assert_true(etrace_filter_insn(&filt, 0x100, ETRACE_PRIV_U));
    g_assert_true(etrace_filter_insn(&filt, 0x100, ETRACE_PRIV_VU));
    g_assert_false(etrace_filter_insn(&filt, 0x100, ETRACE_PRIV_S));
    g_assert_false(etrace_filter_insn(&filt, 0x9000, ETRACE_PRIV_VS));
    g_assert_false(etrace_filter_insn(&filt, 0x100, ETRACE_PRIV_M));
    g_assert_true(etrace_filter_insn(&filt, 0x9000, ETRACE_PRIV_M));

    /* Selected but disabled: matches nothing. */
    wr(0x00c, 0x2);
    wr(FILTER(1, 0x00), 0);
    etrace_filter_configure(&filt, &fregs);
    g_assert_true(etrace_filter_on(&filt));
    g_assert_false(etrace_filter_per_insn(&filt));
    g_assert_false(etrace_filter_insn(&filt, 0x100, ETRACE_PRIV_U));
}

/* Data filter 0 alone, with @ctl; the state starts afresh. */
static void data_filter(uint32_t ctl, uint32_t match_data)
{
    memset(&fregs, 0, sizeof(fregs));
    wr(0x01c, 1);
    wr(FILTER(0, 0x00), ETRACE_FILTER_ENABLE | ctl);
    wr(FILTER(0, 0x18), match_data);
}

static void data_filter_start(void)
{
    memset(&filt, 0, sizeof(filt));
    etrace_filter_configure(&filt, &fregs);
    g_assert_true(etrace_filter_data_on(&filt));
}

/* A data access of @dtype, 2^@dsize bytes at @daddr by an M-mode insn */
static bool data_at(unsigned dtype, unsigned dsize, uint64_t daddr)
{
    return etrace_filter_data(&filt, 0x100, M, dtype, dsize, daddr);
}

/*
 * Data filters: access type and size, the data address (a range, a
 * latch), the instruction address, privilege; a filter selected for data
 * only does not filter instructions.
 */
static void test_filter_data(void)
{
    static const uint64_t seq[] = { 0x100, 0xa00, 0x104, 0xb00, 0x108 };
    unsigned i;

    /* 4-byte stores: dtype 1, dsize 2 */
    data_filter(ETRACE_FILTER_MATCH_DTYPE | ETRACE_FILTER_MATCH_DSIZE,
                1u << 1 | 1u << (ETRACE_FILTER_DSIZE_SHIFT + 2));
    data_filter_start();
    g_assert_false(etrace_filter_on(&filt));
    g_assert_false(etrace_filter_per_insn(&filt));
    g_assert_true(etrace_filter_any(&filt));
    g_assert_true(etrace_filter_insn(&filt, 0x100, M));
    g_assert_true(data_at(1, 2, 0x8000));
    g_assert_false(data_at(0, 2, 0x8000));
    g_assert_false(data_at(1, 3, 0x8000));
    g_assert_false(data_at(8, 2, 0x8000));

    /* AMOs of any size: dtypes 8 to 14 */
    data_filter(ETRACE_FILTER_MATCH_DTYPE, 0x7f00);
    data_filter_start();
    g_assert_true(data_at(8, 3, 0));
    g_assert_true(data_at(14, 0, 0));
    g_assert_false(data_at(15, 2, 0));
    g_assert_false(data_at(7, 2, 0));

    /* [0x8000, 0x8010): P daddr >= lo, S daddr < hi */
    data_filter(CTL_COMP1(2), 0);
    comp_setup(2, ETRACE_COMP_GE, 0x8000, ETRACE_COMP_LT, 0x8010,
               ETRACE_COMP_MODE_P_AND_S);
    wr(COMP(2, 0x00), rd(COMP(2, 0x00)) |
                      ETRACE_COMP_INPUT_DADDR << ETRACE_COMP_P_INPUT_SHIFT |
                      ETRACE_COMP_INPUT_DADDR << ETRACE_COMP_S_INPUT_SHIFT);
    /* the same filter for instructions: it has no data address */
    wr(0x00c, 1);
    data_filter_start();
    g_assert_false(etrace_filter_per_insn(&filt));
    g_assert_false(etrace_filter_insn(&filt, 0x8000, M));
    g_assert_false(data_at(0, 0, 0x7fff));
    g_assert_true(data_at(0, 0, 0x8000));
    g_assert_true(data_at(1, 3, 0x800f));
    g_assert_false(data_at(0, 0, 0x8010));

    /*
     * A latch on data addresses, from 0xa00 to 0xb00: moved by accesses,
     * not by the instructions between them.
     */
    data_filter(CTL_COMP1(4), 0);
    comp_setup(4, ETRACE_COMP_EQ, 0xa00, ETRACE_COMP_EQ, 0xb00,
               ETRACE_COMP_MODE_LATCH);
    wr(COMP(4, 0x00), rd(COMP(4, 0x00)) |
                      ETRACE_COMP_INPUT_DADDR << ETRACE_COMP_P_INPUT_SHIFT |
                      ETRACE_COMP_INPUT_DADDR << ETRACE_COMP_S_INPUT_SHIFT);
    data_filter_start();
    for (i = 0; i < ARRAY_SIZE(seq); i++) {
        g_assert_true(etrace_filter_insn(&filt, 0xb00, M));
        g_assert_cmpint(data_at(0, 3, seq[i]), ==, i >= 1 && i <= 3);
    }

    /*
     * The instruction address: accesses of the instruction at 0x100, the
     * last given; each instruction must then be given on its own.
     */
    data_filter(CTL_COMP1(1), 0);
    comp_setup(1, ETRACE_COMP_EQ, 0x100, ETRACE_COMP_TRUE, 0,
               ETRACE_COMP_MODE_P);
    data_filter_start();
    g_assert_false(etrace_filter_on(&filt));
    g_assert_true(etrace_filter_per_insn(&filt));
    g_assert_true(etrace_filter_insn(&filt, 0x100, M));
    g_assert_true(data_at(0, 3, 0x5000));
    g_assert_true(etrace_filter_insn(&filt, 0x104, M));
    g_assert_false(data_at(0, 3, 0x5000));

    /* Privilege: accesses of U-mode instructions */
    data_filter(ETRACE_FILTER_MATCH_PRIV, 0);
    wr(FILTER(0, 0x04), 1u << ETRACE_PRIV_U);
    data_filter_start();
    g_assert_false(data_at(0, 3, 0));
    g_assert_true(etrace_filter_data(&filt, 0x100, ETRACE_PRIV_U, 0, 3, 0));

    /* Selected for data but disabled: no access is traced. */
    data_filter(0, 0);
    wr(FILTER(0, 0x00), 0);
    data_filter_start();
    g_assert_false(data_at(0, 3, 0));
}

/*
 * Trap windows: from a trap with a chosen cause (the trap itself
 * included) to the return from it, nested traps counted; by interrupt.
 */
static void test_filter_traps(void)
{
    memset(&fregs, 0, sizeof(fregs));
    wr(0x00c, 1);
    wr(FILTER(0, 0x00), ETRACE_FILTER_ENABLE | ETRACE_FILTER_MATCH_ECAUSE);
    wr(FILTER(0, 0x08), 1u << 8);           /* ecall from U */
    memset(&filt, 0, sizeof(filt));
    etrace_filter_configure(&filt, &fregs);

    g_assert_false(etrace_filter_insn(&filt, 0x100, U));
    g_assert_false(etrace_filter_trap(&filt, false, 2, 0x104, U));
    g_assert_false(etrace_filter_insn(&filt, 0x200, M));
    etrace_filter_trap_return(&filt);
    g_assert_true(etrace_filter_trap(&filt, false, 8, 0x108, U));
    g_assert_true(etrace_filter_insn(&filt, 0x200, M));
    /* nested: an interrupt in the handler, its return */
    g_assert_true(etrace_filter_trap(&filt, true, 7, 0x204, M));
    g_assert_true(etrace_filter_insn(&filt, 0x300, M));
    etrace_filter_trap_return(&filt);
    g_assert_true(etrace_filter_insn(&filt, 0x204, M));
    etrace_filter_trap_return(&filt);       /* the return from the ecall */
    g_assert_false(etrace_filter_insn(&filt, 0x10c, U));

    /* cause 8 in the high half: cause 40; interrupts only */
    wr(FILTER(0, 0x00), ETRACE_FILTER_ENABLE | ETRACE_FILTER_MATCH_ECAUSE |
                        ETRACE_FILTER_MATCH_INTERRUPT);
    wr(FILTER(0, 0x08), 0);
    wr(FILTER(0, 0x0c), 1u << 8);
    wr(FILTER(0, 0x04), ETRACE_FILTER_VALUE_INTERRUPT);
    etrace_filter_configure(&filt, &fregs);
    g_assert_false(etrace_filter_trap(&filt, false, 40, 0x100, U));
    g_assert_false(etrace_filter_trap(&filt, true, 8, 0x100, U));
    g_assert_true(etrace_filter_trap(&filt, true, 40, 0x100, U));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/etrace/packet/qemu-params", test_qemu_params);
    g_test_add_func("/etrace/packet/map-bits", test_map_bits);
    g_test_add_func("/etrace/packet/spec-example", test_spec_example_bytes);
    g_test_add_func("/etrace/packet/support", test_support);
    g_test_add_func("/etrace/packet/ssp", test_ssp);
    g_test_add_func("/etrace/packet/irets", test_irets_packet);
    g_test_add_func("/etrace/packet/sync", test_sync_packets);
    g_test_add_func("/etrace/packet/branch", test_branch_packets);
    g_test_add_func("/etrace/packet/compressed-bits", test_compressed_bits);
    g_test_add_func("/etrace/packet/encap-srcid", test_encap_srcid);
    g_test_add_func("/etrace/enc/branches-return",
                    test_enc_branches_and_return);
    g_test_add_func("/etrace/enc/ecall", test_enc_ecall);
    g_test_add_func("/etrace/enc/full-address", test_enc_full_address);
    g_test_add_func("/etrace/enc/page-fault", test_enc_page_fault);
    g_test_add_func("/etrace/enc/fault-at-jump-target",
                    test_enc_fault_at_jump_target);
    g_test_add_func("/etrace/enc/updiscon-bit", test_enc_updiscon_bit);
    g_test_add_func("/etrace/enc/full-map", test_enc_full_map);
    g_test_add_func("/etrace/enc/mret", test_enc_mret);
    g_test_add_func("/etrace/enc/mret-same-mode", test_enc_mret_same_mode);
    g_test_add_func("/etrace/enc/interrupt-after-branch",
                    test_enc_interrupt_after_branch);
    g_test_add_func("/etrace/enc/first-insn-faults",
                    test_enc_first_insn_faults);
    g_test_add_func("/etrace/enc/double-trap", test_enc_double_trap);
    g_test_add_func("/etrace/enc/resync-packets", test_enc_resync_packets);
    g_test_add_func("/etrace/enc/resync-updiscon", test_enc_resync_updiscon);
    g_test_add_func("/etrace/enc/resync-halfwords",
                    test_enc_resync_halfwords);
    g_test_add_func("/etrace/enc/configure", test_enc_configure);
    g_test_add_func("/etrace/enc/lost", test_enc_lost);
    g_test_add_func("/etrace/enc/unqualified", test_enc_unqualified);
    g_test_add_func("/etrace/enc/times", test_enc_times);
    g_test_add_func("/etrace/packet/jump-cache", test_jump_cache_packet);
    g_test_add_func("/etrace/enc/jump-cache", test_enc_jump_cache);
    g_test_add_func("/etrace/enc/jump-cache-shorter",
                    test_enc_jump_cache_shorter);
    g_test_add_func("/etrace/packet/branch-count", test_branch_count_packet);
    g_test_add_func("/etrace/enc/sijump", test_enc_sijump);
    g_test_add_func("/etrace/packet/irdepth", test_irdepth_packet);
    g_test_add_func("/etrace/enc/implicit-return",
                    test_enc_implicit_return);
    g_test_add_func("/etrace/enc/ir-failed-after-implicit",
                    test_enc_ir_failed_after_implicit);
    g_test_add_func("/etrace/enc/ir-same-code-twice",
                    test_enc_ir_same_code_twice);
    g_test_add_func("/etrace/enc/ir-ecall-after-implicit",
                    test_enc_ir_ecall_after_implicit);
    g_test_add_func("/etrace/enc/ir-end-after-implicit",
                    test_enc_ir_end_after_implicit);
    g_test_add_func("/etrace/enc/irets", test_enc_irets);
    g_test_add_func("/etrace/enc/irets-fault-at-target",
                    test_enc_irets_fault_at_target);
    g_test_add_func("/etrace/enc/configure-keeps-branches",
                    test_enc_configure_keeps_branches);
    g_test_add_func("/etrace/enc/branch-prediction",
                    test_enc_branch_prediction);
    g_test_add_func("/etrace/enc/branch-count-address",
                    test_enc_branch_count_address);
    g_test_add_func("/etrace/filter/registers", test_filter_registers);
    g_test_add_func("/etrace/filter/functions", test_filter_functions);
    g_test_add_func("/etrace/filter/modes", test_filter_modes);
    g_test_add_func("/etrace/filter/latch", test_filter_latch);
    g_test_add_func("/etrace/filter/privilege", test_filter_privilege);
    g_test_add_func("/etrace/filter/data", test_filter_data);
    g_test_add_func("/etrace/filter/traps", test_filter_traps);
    return g_test_run();
}
