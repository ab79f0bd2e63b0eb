/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the E-Trace decoder (tests/scripts/
 * test-etrace-fuzz.py builds it with clang and the sanitizers).
 *
 * Input: one byte N, then 4 * N bytes of code at 0x80000000, one byte of
 * options (bits 3:0 srcID width, bit 4 join late, bit 5 RV32 code,
 * bit 6 Zcmp/Zcmt, bit 7 6-byte timestamps), then the stream, fed in two
 * parts so that packets straddle reads.
 */

#include "qemu/osdep.h"
#include "hw/riscv/etrace-enc.h"
#include "etrace-decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const EtdSink sink = { 0 };
    const ETraceParams params = ETRACE_QEMU_PARAMS;
    size_t code, used, half;
    uint8_t opt;
    EtdImage *img;
    EtdStream st;

    if (size < 2) {
        return 0;
    }
    code = 4 * (size_t)data[0];
    if (size < 2 + code) {
        return 0;
    }
    opt = data[1 + code];
    img = etd_image_new();
    etd_image_add_mem(img, 0x80000000, data + 1, code);
    etd_image_set_rv32(img, opt & 0x20);
    etd_image_set_zc(img, opt & 0x40);
    etd_stream_init(&st, img, &sink, &params, MIN(opt & 15, 12),
                    opt & 0x80 ? 6 : 0, opt & 0x10);

    data += 2 + code;
    size -= 2 + code;
    half = size / 2;
    used = etd_stream_feed(&st, data, half);
    /* What was not used is given again with the rest, as a reader does. */
    used += etd_stream_feed(&st, data + used, size - used);
    etd_stream_finish(&st, size - used);
    etd_stream_free(&st);
    etd_image_free(img);
    return 0;
}
