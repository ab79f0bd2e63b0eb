/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the E-Trace decoder (tests/scripts/
 * test-etrace-fuzz.py builds it with clang and the sanitizers).
 *
 * Input: one byte, N in bits 6:0 and data trace in bit 7, then 4 * N
 * bytes of code at 0x80000000, one byte of options (bits 3:0 srcID
 * width, bit 4 join late, bit 5 RV32 code, bit 6 Zcmp/Zcmt, bit 7 6-byte
 * timestamps), with data trace one more (bit 0 the MMA/CAS layouts, bit
 * 1 no address, bit 2 no data, bits 4:3 the format field's width less 1,
 * bit 5 32-bit data addresses), then the stream, fed in two parts so
 * that packets straddle reads.  With data trace, accesses are tied to
 * instructions as etrace-decode does it.
 */

#include "qemu/osdep.h"
#include "hw/riscv/etrace-enc.h"
#include "etrace-decode.h"

static void tie_out(void *opaque, unsigned src, uint64_t pc,
                    const ETraceDataAccess *a, unsigned has)
{
}

static void fuzz_insn(void *opaque, unsigned src, uint64_t pc, uint8_t priv)
{
    etd_tie_retired(opaque, pc);
}

static void fuzz_run(void *opaque, unsigned src, const EtdBlock *b,
                     unsigned from, unsigned n, uint8_t priv)
{
    etd_tie_run(opaque, b, from, n);
}

static void fuzz_gap(void *opaque, unsigned src, const char *why)
{
    etd_tie_gap(opaque);
}

static void fuzz_data(void *opaque, unsigned src, const ETraceDataAccess *a,
                      unsigned has, bool timed, uint64_t time)
{
    etd_tie_access(opaque, a, has);
}

static void fuzz_data_lost(void *opaque, unsigned src)
{
    etd_tie_gap(opaque);
}

static void fuzz_data_align(void *opaque, unsigned src, uint64_t pc,
                            bool own)
{
    etd_tie_restart(opaque, pc, own);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const EtdSink plain = { 0 };
    EtdTie tie;
    const EtdSink data_sink = {
        .insn = fuzz_insn, .run = fuzz_run, .gap = fuzz_gap,
        .data = fuzz_data, .data_lost = fuzz_data_lost,
        .data_align = fuzz_data_align, .opaque = &tie,
    };
    const ETraceParams params = ETRACE_QEMU_PARAMS;
    bool dtrace;
    size_t code, used, half, head;
    uint8_t opt, dopt = 0;
    EtdImage *img;
    EtdStream st;

    if (size < 2) {
        return 0;
    }
    dtrace = data[0] & 0x80;
    code = 4 * (size_t)(data[0] & 0x7f);
    head = 2 + code + dtrace;
    if (size < head) {
        return 0;
    }
    opt = data[1 + code];
    if (dtrace) {
        dopt = data[2 + code];
    }
    img = etd_image_new();
    etd_image_add_mem(img, 0x80000000, data + 1, code);
    etd_image_set_rv32(img, opt & 0x20);
    etd_image_set_zc(img, opt & 0x40);
    etd_tie_init(&tie, img, dtrace && (dopt & 1), 0, tie_out, NULL);
    etd_stream_init(&st, img, dtrace ? &data_sink : &plain, &params,
                    MIN(opt & 15, 12), opt & 0x80 ? 6 : 0, opt & 0x10);
    if (dtrace) {
        st.type_bits = 1;
        st.dparams = (ETraceDataParams) {
            .daddress_width = dopt & 0x20 ? 32 : 64,
            .data_width = dopt & 0x40 ? 128 : 64,
            .lrid_width = dopt & 0x80 ? 1 + ((dopt >> 3) & 3) : 0,
            .mmacas = dopt & 1,
            .noaddr = dopt & 2,
            .nodata = dopt & 4,
            .format_bits = dopt & 1 ? ((dopt >> 3) & 3) % 3 :
                                      2 + ((dopt >> 3) & 1),
        };
    }

    data += head;
    size -= head;
    half = size / 2;
    used = etd_stream_feed(&st, data, half);
    /* What was not used is given again with the rest, as a reader does. */
    used += etd_stream_feed(&st, data + used, size - used);
    etd_stream_finish(&st, size - used);
    etd_tie_gap(&tie);
    etd_tie_free(&tie);
    etd_stream_free(&st);
    etd_image_free(img);
    return 0;
}
