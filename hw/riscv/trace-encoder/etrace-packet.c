/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace te_inst packets, protocols 2.0 and 2.1: bit packing, sign
 * compression, parsing, and Encapsulation 1.0 framing.
 */

#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "qemu/bitops.h"
#include "hw/riscv/etrace.h"

/* Byte @k of a packet, bits 8k to 8k + 7. */
static uint8_t bits_byte(const ETraceBits *b, unsigned k)
{
    return b->w[k / 8] >> (8 * (k % 8));
}

unsigned etrace_map_bits(unsigned branches)
{
    if (branches == 0 || branches > 15) {
        return 31;
    }
    if (branches > 7) {
        return 15;
    }
    if (branches > 3) {
        return 7;
    }
    return branches > 1 ? 3 : 1;
}

static unsigned address_bits(const ETraceParams *p)
{
    return p->iaddress_width - p->iaddress_lsb;
}

static inline void set_irdepth(ETraceTeInst *t, const ETraceParams *p,
                               bool before, bool irreport, unsigned irdepth)
{
    t->irreport = before ^ irreport;
    if (unlikely(irreport)) {
        t->irdepth = irdepth;
    } else {
        t->irdepth = t->irreport ? (1u << etrace_irdepth_bits(p)) - 1 : 0;
    }
}

void etrace_set_irdepth(ETraceTeInst *t, const ETraceParams *p, bool before,
                        bool irreport, unsigned irdepth)
{
    set_irdepth(t, p, before, irreport, irdepth);
}

void etrace_set_status_bits(ETraceTeInst *t, const ETraceParams *p,
                            bool notify, bool updiscon, bool irreport,
                            unsigned irdepth)
{
    bool msb = (t->address >> (address_bits(p) - 1)) & 1;

    t->notify = msb ^ notify;
    t->updiscon = t->notify ^ updiscon;
    set_irdepth(t, p, t->updiscon, irreport, irdepth);
}

static void pack_address_tail(ETraceBits *b, const ETraceParams *p,
                              const ETraceTeInst *t)
{
    etrace_bits_put(b, t->address, address_bits(p));
    etrace_bits_put(b, t->notify, 1);
    etrace_bits_put(b, t->updiscon, 1);
    etrace_bits_put(b, t->irreport, 1);
    etrace_bits_put(b, t->irdepth, etrace_irdepth_bits(p));
}

/*
 * Formats 1 and 2, the bulk of a trace, directly: at most 38 bits before
 * the address, and the address field is at most 64 bits wide.
 */
static void pack_address_packet(ETraceBits *b, const ETraceParams *p,
                                const ETraceTeInst *t)
{
    unsigned abits = address_bits(p);
    uint64_t addr = abits < 64 ? t->address & ((UINT64_C(1) << abits) - 1)
                               : t->address;
    unsigned irbits = etrace_irdepth_bits(p);
    uint64_t w0 = t->format, w1, sign, top;
    unsigned len = 2, tbits = 3;

    if (t->format == ETRACE_FMT_BRANCH) {
        unsigned map = etrace_map_bits(t->branches);

        w0 |= (uint64_t)t->branches << 2;
        w0 |= (uint64_t)(t->branch_map & ((UINT64_C(1) << map) - 1)) << 7;
        len = 7 + map;
        if (!t->branches) {
            /* A full map, no address. */
            sign = -((w0 >> (len - 1)) & 1);
            b->w[0] = w0 | (sign << len);
            b->w[1] = b->w[2] = b->w[3] = sign;
            b->len = len;
            return;
        }
    }
    /*
     * the address from bit len (2..38), then the three status bits and
     * irdepth (at most 12 bits in all); an irdepth that repeats irreport
     * is left to the sign fill, as it is the same bits
     */
    w1 = addr >> (64 - len);
    w0 |= addr << len;
    len += abits;
    top = (uint64_t)t->notify | (uint64_t)t->updiscon << 1 |
          (uint64_t)t->irreport << 2;
    sign = t->irreport ? UINT64_MAX : 0;
    if (unlikely(irbits) &&
        t->irdepth != (t->irreport ? (1u << irbits) - 1 : 0)) {
        top |= (uint64_t)(t->irdepth & ((1u << irbits) - 1)) << 3;
        tbits += irbits;
        sign = (top >> (tbits - 1)) & 1 ? UINT64_MAX : 0;
    }
    if (len >= 64) {
        w1 |= top << (len - 64);
    } else {
        w0 |= top << len;
        w1 |= top >> (64 - len);
    }
    len += tbits;
    if (len < 64) {
        w0 |= sign << len;
        w1 = sign;
    } else if (len < 128) {
        w1 |= len == 64 ? sign : sign << (len - 64);
    }
    b->w[0] = w0;
    b->w[1] = w1;
    b->w[2] = b->w[3] = sign;
    b->len = len;
}

/* The low @width bits of @value, @width < 64. */
static inline uint64_t low_bits(uint64_t value, unsigned width)
{
    return value & ((UINT64_C(1) << width) - 1);
}

/*
 * Format 0.1, the jump target cache's packet, directly when its fixed
 * fields (f0s, index, irdepth) take at most 22 bits: then it is at most
 * 2 + 22 + 5 + 31 + 1 = 61 bits, one word and its sign fill.
 */
#define PACK_JUMP_CACHE_FIXED_MAX   22

static void pack_jump_cache_packet(ETraceBits *b, const ETraceParams *p,
                                   const ETraceTeInst *t)
{
    unsigned irbits = etrace_irdepth_bits(p);
    uint64_t w = ETRACE_FMT_EXT, sign;
    unsigned len = 2;

    w |= low_bits(t->subformat, p->f0s_width) << len;
    len += p->f0s_width;
    w |= low_bits(t->index, p->cache_size) << len;
    len += p->cache_size;
    w |= low_bits(t->branches, 5) << len;
    len += 5;
    if (t->branches) {
        unsigned map = etrace_map_bits(t->branches);

        w |= low_bits(t->branch_map, map) << len;
        len += map;
    }
    w |= (uint64_t)(t->irreport & 1) << len;
    len++;
    w |= low_bits(t->irdepth, irbits) << len;
    len += irbits;
    sign = -((w >> (len - 1)) & 1);
    b->w[0] = w | (sign << len);
    b->w[1] = b->w[2] = b->w[3] = sign;
    b->len = len;
}

/*
 * The option fields of the Standard Support Packet (extensions.adoc), in
 * their order: sijump, implicit_return, branch_predictor,
 * jump_target_cache, implicit_except, full_iaddress, resync_disabled.
 */
static const uint8_t ssp_options[] = {
    ETRACE_IOPT_SEQ_JUMP, ETRACE_IOPT_IMPLICIT_RETURN,
    ETRACE_IOPT_BRANCH_PREDICTION, ETRACE_IOPT_JUMP_TARGET_CACHE,
    ETRACE_IOPT_IMPLICIT_EXCEPTION, ETRACE_IOPT_FULL_ADDRESS,
    ETRACE_IOPT_RESYNC_DISABLED,
};

/*
 * Format 3.3 after its subformat: in 2.0 the layout of etrace.h, in 2.1
 * the Standard Support Packet: ienable, encoder_mode (2), qual_status
 * (2), the seven options, iret_ext, time_width (3), f0s_width (2),
 * return_stack_size (3), call_counter_size (4), bpred_size (3),
 * cache_size (3), denable, dloss, then mmacas_ext, noaddr, nodata,
 * full_daddress and full_data (doptions).
 */
static void pack_support(ETraceBits *b, const ETraceParams *p,
                         const ETraceTeInst *t)
{
    unsigned i;

    etrace_bits_put(b, t->ienable, 1);
    if (p->protocol < ETRACE_PROTOCOL_2_1) {
        etrace_bits_put(b, t->encoder_mode, ETRACE_ENCODER_MODE_BITS);
        etrace_bits_put(b, t->qual_status, 2);
        etrace_bits_put(b, t->ioptions, ETRACE_IOPTIONS_BITS);
        etrace_bits_put(b, t->denable, 1);
        etrace_bits_put(b, t->dloss, 1);
        etrace_bits_put(b, t->doptions, ETRACE_DOPTIONS_BITS);
        return;
    }
    etrace_bits_put(b, t->encoder_mode, 2);
    etrace_bits_put(b, t->qual_status, 2);
    for (i = 0; i < ARRAY_SIZE(ssp_options); i++) {
        etrace_bits_put(b, !!(t->ioptions & ssp_options[i]), 1);
    }
    etrace_bits_put(b, t->iret_ext, 1);
    etrace_bits_put(b, t->time_width, 3);
    etrace_bits_put(b, t->f0s_width, 2);
    etrace_bits_put(b, t->return_stack_size, 3);
    etrace_bits_put(b, t->call_counter_size, 4);
    etrace_bits_put(b, t->bpred_size, 3);
    etrace_bits_put(b, t->cache_size, 3);
    etrace_bits_put(b, t->denable, 1);
    etrace_bits_put(b, t->dloss, 1);
    etrace_bits_put(b, t->doptions, ETRACE_SSP_DOPTIONS_BITS);
}

void etrace_te_inst_pack(ETraceBits *b, const ETraceParams *p,
                         const ETraceTeInst *t)
{
    if (t->format == ETRACE_FMT_BRANCH || t->format == ETRACE_FMT_ADDR) {
        pack_address_packet(b, p, t);
        return;
    }
    if (t->format == ETRACE_FMT_EXT &&
        t->subformat == ETRACE_EXT_JUMP_CACHE && p->cache_size &&
        p->f0s_width + p->cache_size + etrace_irdepth_bits(p) <=
        PACK_JUMP_CACHE_FIXED_MAX) {
        pack_jump_cache_packet(b, p, t);
        return;
    }
    memset(b, 0, sizeof(*b));
    etrace_bits_put(b, t->format, 2);
    switch (t->format) {
    case ETRACE_FMT_EXT:
        etrace_bits_put(b, t->subformat, p->f0s_width);
        if (t->subformat == ETRACE_EXT_BRANCH_COUNT) {
            /* Subformat 0: correctly predicted branches, an address. */
            assert(p->bpred_size);
            etrace_bits_put(b, t->branch_count, 32);
            etrace_bits_put(b, t->branch_fmt, 2);
            if (t->branch_fmt & ETRACE_BFMT_ADDR) {
                pack_address_tail(b, p, t);
            }
            break;
        }
        /* Subformat 1, jump target cache: the index, the branch map. */
        assert(t->subformat == ETRACE_EXT_JUMP_CACHE && p->cache_size);
        etrace_bits_put(b, t->index, p->cache_size);
        etrace_bits_put(b, t->branches, 5);
        if (t->branches) {
            etrace_bits_put(b, t->branch_map, etrace_map_bits(t->branches));
        }
        etrace_bits_put(b, t->irreport, 1);
        etrace_bits_put(b, t->irdepth, etrace_irdepth_bits(p));
        break;
    case ETRACE_FMT_BRANCH:
        etrace_bits_put(b, t->branches, 5);
        etrace_bits_put(b, t->branch_map, etrace_map_bits(t->branches));
        if (t->branches) {
            pack_address_tail(b, p, t);
        }
        break;
    case ETRACE_FMT_ADDR:
        pack_address_tail(b, p, t);
        break;
    case ETRACE_FMT_SYNC:
        etrace_bits_put(b, t->subformat, 2);
        if (t->subformat == ETRACE_SYNC_SUPPORT) {
            pack_support(b, p, t);
            break;
        }
        if (t->subformat == ETRACE_SYNC_CONTEXT) {
            /* no time */
            etrace_bits_put(b, t->privilege, p->privilege_width);
            etrace_bits_put(b, t->context, p->context_width);
            break;
        }
        assert(t->subformat == ETRACE_SYNC_START ||
               t->subformat == ETRACE_SYNC_TRAP);
        etrace_bits_put(b, t->branch, 1);
        etrace_bits_put(b, t->privilege, p->privilege_width);
        /* no time */
        etrace_bits_put(b, t->context, p->context_width);
        if (t->subformat == ETRACE_SYNC_TRAP) {
            etrace_bits_put(b, t->ecause, p->ecause_width);
            etrace_bits_put(b, t->interrupt, 1);
            etrace_bits_put(b, t->thaddr, 1);
        }
        etrace_bits_put(b, t->address, address_bits(p));
        if (t->subformat == ETRACE_SYNC_TRAP && !t->interrupt) {
            etrace_bits_put(b, t->tval, p->iaddress_width);
        }
        break;
    default:
        g_assert_not_reached();
    }

    etrace_bits_sign_fill(b);
}

void etrace_bits_sign_fill(ETraceBits *b)
{
    /* Sign-extend to the end of the buffer: any prefix is padded right. */
    uint64_t sign = -((b->w[(b->len - 1) / 64] >> ((b->len - 1) % 64)) & 1);
    unsigned i = b->len / 64;

    if (b->len % 64) {
        b->w[i++] |= sign << (b->len % 64);
    }
    for (; i < ARRAY_SIZE(b->w); i++) {
        b->w[i] = sign;
    }
}

void etrace_bits_prefix(ETraceBits *b, unsigned value, unsigned width)
{
    int i;

    assert(width >= 1 && width <= 8 && b->len + width < ETRACE_BITS_MAX);
    for (i = ARRAY_SIZE(b->w) - 1; i > 0; i--) {
        b->w[i] = b->w[i] << width | b->w[i - 1] >> (64 - width);
    }
    b->w[0] = b->w[0] << width | (value & MAKE_64BIT_MASK(0, width));
    b->len += width;
}

unsigned etrace_compressed_bits(const ETraceBits *b)
{
    /* The buffer is sign-extended: look for the top bit that differs. */
    uint64_t sign = -((b->w[(b->len - 1) / 64] >> ((b->len - 1) % 64)) & 1);
    int i;

    for (i = ARRAY_SIZE(b->w) - 1; i >= 0; i--) {
        uint64_t diff = b->w[i] ^ sign;

        if (diff) {
            return i * 64 + (63 - clz64(diff)) + 2;
        }
    }
    return 1;
}

void etrace_bits_load(ETraceBits *b, const uint8_t *data, unsigned len)
{
    uint64_t sign = data[len - 1] & 0x80 ? UINT64_MAX : 0;
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(b->w); i++) {
        b->w[i] = sign;
    }
    for (i = 0; i < len; i++) {
        unsigned sh = 8 * (i % 8);

        b->w[i / 8] = (b->w[i / 8] & ~(UINT64_C(0xff) << sh)) |
                      (uint64_t)data[i] << sh;
    }
    b->len = len * 8;
}

static void unpack_address_tail(ETraceTeInst *t, const ETraceParams *p,
                                const ETraceBits *b, unsigned *pos)
{
    t->address = etrace_bits_get(b, pos, address_bits(p));
    t->notify = etrace_bits_get(b, pos, 1);
    t->updiscon = etrace_bits_get(b, pos, 1);
    t->irreport = etrace_bits_get(b, pos, 1);
    t->irdepth = etrace_bits_get(b, pos, etrace_irdepth_bits(p));
}

static void unpack_support(ETraceTeInst *t, const ETraceParams *p,
                           const ETraceBits *b, unsigned *pos)
{
    unsigned i;

    t->ienable = etrace_bits_get(b, pos, 1);
    if (p->protocol < ETRACE_PROTOCOL_2_1) {
        t->encoder_mode = etrace_bits_get(b, pos, ETRACE_ENCODER_MODE_BITS);
        t->qual_status = etrace_bits_get(b, pos, 2);
        t->ioptions = etrace_bits_get(b, pos, ETRACE_IOPTIONS_BITS);
        t->denable = etrace_bits_get(b, pos, 1);
        t->dloss = etrace_bits_get(b, pos, 1);
        t->doptions = etrace_bits_get(b, pos, ETRACE_DOPTIONS_BITS);
        return;
    }
    t->encoder_mode = etrace_bits_get(b, pos, 2);
    t->qual_status = etrace_bits_get(b, pos, 2);
    for (i = 0; i < ARRAY_SIZE(ssp_options); i++) {
        t->ioptions |= etrace_bits_get(b, pos, 1) ? ssp_options[i] : 0;
    }
    t->iret_ext = etrace_bits_get(b, pos, 1);
    t->time_width = etrace_bits_get(b, pos, 3);
    t->f0s_width = etrace_bits_get(b, pos, 2);
    t->return_stack_size = etrace_bits_get(b, pos, 3);
    t->call_counter_size = etrace_bits_get(b, pos, 4);
    t->bpred_size = etrace_bits_get(b, pos, 3);
    t->cache_size = etrace_bits_get(b, pos, 3);
    t->denable = etrace_bits_get(b, pos, 1);
    t->dloss = etrace_bits_get(b, pos, 1);
    t->doptions = etrace_bits_get(b, pos, ETRACE_SSP_DOPTIONS_BITS);
}

bool etrace_te_inst_unpack(ETraceTeInst *t, const ETraceParams *p,
                           const uint8_t *payload, unsigned len)
{
    ETraceBits bits, *b = &bits;
    unsigned pos = 0;

    memset(t, 0, sizeof(*t));
    if (!len || len > ETRACE_PAYLOAD_MAX_BYTES) {
        return false;
    }
    etrace_bits_load(b, payload, len);
    t->format = etrace_bits_get(b, &pos, 2);
    switch (t->format) {
    case ETRACE_FMT_EXT:
        /* Without a subformat field, the one optional format. */
        t->subformat = p->f0s_width ? etrace_bits_get(b, &pos, p->f0s_width) :
                       p->cache_size ? ETRACE_EXT_JUMP_CACHE :
                       ETRACE_EXT_BRANCH_COUNT;
        if (t->subformat == ETRACE_EXT_BRANCH_COUNT && p->bpred_size) {
            t->branch_count = etrace_bits_get(b, &pos, 32);
            t->branch_fmt = etrace_bits_get(b, &pos, 2);
            if (t->branch_fmt == 1) {
                return false;
            }
            if (t->branch_fmt & ETRACE_BFMT_ADDR) {
                unpack_address_tail(t, p, b, &pos);
            }
            return true;
        }
        if (t->subformat != ETRACE_EXT_JUMP_CACHE || !p->cache_size) {
            return false;
        }
        t->index = etrace_bits_get(b, &pos, p->cache_size);
        t->branches = etrace_bits_get(b, &pos, 5);
        if (t->branches) {
            t->branch_map = etrace_bits_get(b, &pos,
                                     etrace_map_bits(t->branches));
        }
        t->irreport = etrace_bits_get(b, &pos, 1);
        t->irdepth = etrace_bits_get(b, &pos, etrace_irdepth_bits(p));
        return true;
    case ETRACE_FMT_BRANCH:
        t->branches = etrace_bits_get(b, &pos, 5);
        t->branch_map = etrace_bits_get(b, &pos,
                                 etrace_map_bits(t->branches));
        if (t->branches) {
            unpack_address_tail(t, p, b, &pos);
        }
        return true;
    case ETRACE_FMT_ADDR:
        unpack_address_tail(t, p, b, &pos);
        return true;
    case ETRACE_FMT_SYNC:
        t->subformat = etrace_bits_get(b, &pos, 2);
        if (t->subformat == ETRACE_SYNC_SUPPORT) {
            unpack_support(t, p, b, &pos);
            return true;
        }
        if (t->subformat == ETRACE_SYNC_CONTEXT) {
            /* Without a context field it carries nothing this reads. */
            if (!p->context_width) {
                return false;
            }
            t->privilege = etrace_bits_get(b, &pos, p->privilege_width);
            t->context = etrace_bits_get(b, &pos, p->context_width);
            return true;
        }
        t->branch = etrace_bits_get(b, &pos, 1);
        t->privilege = etrace_bits_get(b, &pos, p->privilege_width);
        t->context = etrace_bits_get(b, &pos, p->context_width);
        if (t->subformat == ETRACE_SYNC_TRAP) {
            t->ecause = etrace_bits_get(b, &pos, p->ecause_width);
            t->interrupt = etrace_bits_get(b, &pos, 1);
            t->thaddr = etrace_bits_get(b, &pos, 1);
        }
        t->address = etrace_bits_get(b, &pos, address_bits(p));
        if (t->subformat == ETRACE_SYNC_TRAP && !t->interrupt) {
            t->tval = etrace_bits_get(b, &pos, p->iaddress_width);
        }
        return true;
    default:
        return false;
    }
}

unsigned etrace_encap(uint8_t *out, const ETraceEncap *e,
                      const ETraceBits *b, uint64_t timestamp)
{
    unsigned whole = e->srcid_bits / 8;
    unsigned shift = e->srcid_bits % 8;
    /*
     * The payload is sign-extended to whole bytes (payload.adoc); srcID
     * bits past its whole bytes share the first of them, and the top of
     * the last byte is padding (encapsulation.adoc, "Packet length").
     */
    unsigned length = DIV_ROUND_UP(etrace_compressed_bits(b), 8) +
                      (shift ? 1 : 0);
    uint8_t *p = out + 1;
    unsigned i;

    assert(length <= ETRACE_PAYLOAD_MAX_BYTES);
    assert(e->timestamp_bytes <= ETRACE_TIMESTAMP_MAX_BYTES);
    out[0] = length | (e->flow & 3) << 5 | (e->timestamp_bytes ? 0x80 : 0);
    for (i = 0; i < whole; i++) {
        *p++ = e->srcid >> (8 * i);
    }
    for (i = 0; i < e->timestamp_bytes; i++) {
        *p++ = timestamp >> (8 * i);
    }
    if (!shift) {
        for (i = 0; i < length; i++) {
            p[i] = bits_byte(b, i);
        }
    } else {
        uint8_t low = (e->srcid >> (8 * whole)) & ((1u << shift) - 1);

        /* Payload bits move up by @shift, after the srcID's last bits. */
        for (i = 0; i < length; i++) {
            uint8_t cur = bits_byte(b, i) << shift;
            uint8_t prev = i ? bits_byte(b, i - 1) >> (8 - shift) : low;

            p[i] = cur | prev;
        }
    }
    return 1 + whole + e->timestamp_bytes + length;
}
