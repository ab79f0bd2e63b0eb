/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace te_data packets for unified signalling: layout, parsing and the
 * per-size compression of addresses and values (include/hw/riscv/
 * etrace-data.h).
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/host-utils.h"
#include "hw/riscv/etrace-data.h"

unsigned etrace_data_size_bits(const ETraceDataParams *p)
{
    unsigned bytes_log2 = 32 - clz32(p->data_width / 8);    /* clog2(w/8+1) */

    return MAX(1, 32 - clz32(bytes_log2 - 1));             /* clog2(that) */
}

unsigned etrace_te_data_has(const ETraceDataParams *p, unsigned dtype)
{
    unsigned has = ETRACE_DHAS_ADDR | ETRACE_DHAS_DATA;

    if (dtype == ETRACE_DTYPE_SC_FAIL) {
        return ETRACE_DHAS_ADDR;
    }
    if (dtype == ETRACE_DTYPE_CAS_FAIL) {
        return ETRACE_DHAS_ADDR | (p->nodata ? 0 : ETRACE_DHAS_OPERAND);
    }
    if (etrace_dtype_amo(dtype)) {
        has |= ETRACE_DHAS_OPERAND;
    }
    if (p->nodata) {
        has &= ~(ETRACE_DHAS_DATA | ETRACE_DHAS_OPERAND);
    } else if (p->noaddr) {
        has &= ~ETRACE_DHAS_ADDR;
    }
    return has;
}

/* The low @bits of @v sign-extended, 1 <= @bits <= 64. */
static inline uint64_t sext(uint64_t v, unsigned bits)
{
    return bits < 64 ? (uint64_t)sextract64(v, 0, bits) : v;
}

static inline uint64_t low_mask(unsigned bits)
{
    return bits < 64 ? (UINT64_C(1) << bits) - 1 : UINT64_MAX;
}

static bool is_ldst(unsigned dtype)
{
    return dtype == ETRACE_DTYPE_LOAD || dtype == ETRACE_DTYPE_STORE;
}

void etrace_te_data_pack(ETraceBits *b, const ETraceDataParams *p,
                         const ETraceTeData *t)
{
    unsigned has = etrace_te_data_has(p, t->dtype);
    unsigned sub = (t->dtype == ETRACE_DTYPE_STORE) << 1 | t->unaligned;

    memset(b, 0, sizeof(*b));
    if (!p->mmacas) {
        if (is_ldst(t->dtype)) {
            etrace_bits_put(b, sub, p->format_bits);
        } else {
            etrace_bits_put(b, ETRACE_DFMT20_ATOMIC, 3);
            etrace_bits_put(b, t->dtype - ETRACE_DTYPE_AMO_SWAP, 3);
        }
    } else if (is_ldst(t->dtype)) {
        etrace_bits_put(b, t->mma ? ETRACE_DCLASS_MMA : ETRACE_DCLASS_LDST,
                        p->format_bits);
        etrace_bits_put(b, sub, 2);
    } else {
        etrace_bits_put(b, ETRACE_DCLASS_ATOMIC, 2);
        etrace_bits_put(b, t->dtype, 4);
    }
    etrace_bits_put(b, t->size, etrace_data_size_bits(p));

    if (!(has & ETRACE_DHAS_ADDR)) {
        /* data only: the value is the last field, data_width_p wide */
        etrace_bits_put(b, t->diff, 2);
        if (has & ETRACE_DHAS_OPERAND) {
            etrace_bits_put(b, t->op_len, t->size);
            etrace_bits_put(b, t->operand, 8 * (t->op_len + 1));
        }
        etrace_bits_put(b, t->data, p->data_width);
    } else if (has == ETRACE_DHAS_ADDR) {
        etrace_bits_put(b, t->diff, 1);
        etrace_bits_put(b, t->address, p->daddress_width);
    } else {
        etrace_bits_put(b, t->diff, 2);
        if (has & ETRACE_DHAS_OPERAND) {
            etrace_bits_put(b, t->op_len, t->size);
            etrace_bits_put(b, t->operand, 8 * (t->op_len + 1));
        }
        if (has & ETRACE_DHAS_DATA) {
            etrace_bits_put(b, t->data_len, t->size);
            etrace_bits_put(b, t->data, 8 * (t->data_len + 1));
        }
        etrace_bits_put(b, t->address, p->daddress_width);
    }
    etrace_bits_sign_fill(b);
}

/* The type fields of a packet: dtype, mma, unaligned. */
static bool unpack_type(ETraceTeData *t, const ETraceDataParams *p,
                        const ETraceBits *b, unsigned *pos, const char **why)
{
    unsigned fmt, sub;

    if (!p->mmacas) {
        fmt = etrace_bits_get(b, pos, p->format_bits);
        if (fmt < 4) {
            t->dtype = fmt & 2 ? ETRACE_DTYPE_STORE : ETRACE_DTYPE_LOAD;
            t->unaligned = fmt & 1;
            return true;
        }
        if (fmt != ETRACE_DFMT20_ATOMIC) {
            *why = "a split or CSR te_data format (not produced here)";
            return false;
        }
        t->dtype = ETRACE_DTYPE_AMO_SWAP + etrace_bits_get(b, pos, 3);
        return true;
    }
    fmt = etrace_bits_get(b, pos, p->format_bits);
    if (fmt == ETRACE_DCLASS_LDST || fmt == ETRACE_DCLASS_MMA) {
        sub = etrace_bits_get(b, pos, 2);
        t->mma = fmt == ETRACE_DCLASS_MMA;
        t->dtype = sub & 2 ? ETRACE_DTYPE_STORE : ETRACE_DTYPE_LOAD;
        t->unaligned = sub & 1;
        return true;
    }
    if (fmt != ETRACE_DCLASS_ATOMIC) {
        *why = "a split data phase te_data packet (not produced here)";
        return false;
    }
    t->dtype = etrace_bits_get(b, pos, 4);
    if (t->dtype < ETRACE_DTYPE_CAS_FAIL) {
        *why = t->dtype >= 4 ? "a CSR te_data packet (not produced here)" :
               "a reserved te_data atomic subformat";
        return false;
    }
    return true;
}

bool etrace_te_data_unpack(ETraceTeData *t, const ETraceDataParams *p,
                           const uint8_t *payload, unsigned len,
                           const char **why)
{
    ETraceBits b;
    unsigned pos = 0, has;

    /* fields past the payload's end are its sign: no length check */

    memset(t, 0, sizeof(*t));
    if (!len || len > ETRACE_BITS_MAX / 8) {
        *why = "a te_data payload of no or too many bytes";
        return false;
    }
    etrace_bits_load(&b, payload, len);
    if (!unpack_type(t, p, &b, &pos, why)) {
        return false;
    }
    t->size = etrace_bits_get(&b, &pos, etrace_data_size_bits(p));
    if ((8u << t->size) > p->data_width) {
        *why = "a te_data access wider than data_width_p";
        return false;
    }
    has = etrace_te_data_has(p, t->dtype);
    if (!(has & ETRACE_DHAS_ADDR)) {
        t->diff = etrace_bits_get(&b, &pos, 2);
        if (t->diff == 2) {
            *why = "a te_data diff code that is reserved without address";
            return false;
        }
        if (has & ETRACE_DHAS_OPERAND) {
            t->op_len = etrace_bits_get(&b, &pos, t->size);
            t->operand = etrace_bits_get(&b, &pos, 8 * (t->op_len + 1));
        }
        t->data = etrace_bits_get(&b, &pos, p->data_width);
    } else if (has == ETRACE_DHAS_ADDR) {
        t->diff = etrace_bits_get(&b, &pos, 1);
        t->address = etrace_bits_get(&b, &pos, p->daddress_width);
    } else {
        t->diff = etrace_bits_get(&b, &pos, 2);
        if (has & ETRACE_DHAS_OPERAND) {
            t->op_len = etrace_bits_get(&b, &pos, t->size);
            t->operand = etrace_bits_get(&b, &pos, 8 * (t->op_len + 1));
        }
        if (has & ETRACE_DHAS_DATA) {
            t->data_len = etrace_bits_get(&b, &pos, t->size);
            t->data = etrace_bits_get(&b, &pos, 8 * (t->data_len + 1));
        }
        t->address = etrace_bits_get(&b, &pos, p->daddress_width);
    }
    return true;
}

/*
 * Bytes of @v, a value of 2^@size bytes, once its top bytes that repeat
 * the sign of the rest are left out (dataTracePayload.adoc, "data_len").
 */
static unsigned trimmed_bytes(uint64_t v, unsigned size)
{
    unsigned n, bytes = 1u << size;
    uint64_t full = sext(v, 8 * bytes);

    for (n = 1; n < bytes; n++) {
        if (sext(v, 8 * n) == full) {
            break;
        }
    }
    return n;
}

void etrace_data_encode(ETraceTeData *t, const ETraceDataParams *p,
                        ETraceDataHistory *h, const ETraceDataAccess *a,
                        bool full_address)
{
    unsigned has = etrace_te_data_has(p, a->dtype);
    unsigned s = a->size, vbits = 8u << s;
    uint64_t amask = low_mask(p->daddress_width);
    uint64_t addr = a->addr & amask, d = a->data & low_mask(vbits);
    bool atomic = !is_ldst(a->dtype);
    bool diff_addr = (h->addr_valid >> s & 1) && !full_address &&
                     (has & ETRACE_DHAS_ADDR);
    bool have_data = h->data_valid >> s & 1;
    uint64_t av;

    memset(t, 0, sizeof(*t));
    t->dtype = a->dtype;
    t->mma = a->mma && p->mmacas;
    t->size = s;

    /* An atomic's address field is always aligned: not its difference. */
    if (diff_addr && atomic && ((addr - h->addr[s]) & low_mask(s))) {
        diff_addr = false;
    }
    av = sext(diff_addr ? addr - h->addr[s] : addr, p->daddress_width);
    t->unaligned = !atomic && (av & low_mask(s));
    t->address = t->unaligned ? av : (uint64_t)((int64_t)av >> s);

    if (has & ETRACE_DHAS_OPERAND) {
        uint64_t op = a->operand & low_mask(vbits);

        t->op_len = trimmed_bytes(op, s) - 1;
        t->operand = sext(op, vbits);
    }
    if (has == ETRACE_DHAS_ADDR) {
        t->diff = diff_addr;
    } else if (!(has & ETRACE_DHAS_DATA) || atomic) {
        /* failed CAS, atomics: operand and data uncompressed */
        t->diff = diff_addr ? ETRACE_DDIFF_ADDR : ETRACE_DDIFF_FULL;
        t->data = sext(d, vbits);
        t->data_len = trimmed_bytes(d, s) - 1;
    } else {
        /* the fewest data bytes: full, XOR, differential, in that order */
        static const uint8_t codes[3] = {
            ETRACE_DDIFF_ADDR, ETRACE_DDIFF_XOR, ETRACE_DDIFF_DIFF,
        };
        uint64_t v[3] = {
            d, d ^ h->data[s], (d - h->data[s]) & low_mask(vbits),
        };
        unsigned i, best = 0, n = trimmed_bytes(d, s);
        bool compress = have_data && (diff_addr || !(has & ETRACE_DHAS_ADDR));

        for (i = 1; compress && i < 3; i++) {
            if (trimmed_bytes(v[i], s) < n) {
                n = trimmed_bytes(v[i], s);
                best = i;
            }
        }
        if (!compress) {
            t->diff = diff_addr ? ETRACE_DDIFF_ADDR : ETRACE_DDIFF_FULL;
        } else {
            t->diff = codes[best];
        }
        if (!(has & ETRACE_DHAS_ADDR) && t->diff == ETRACE_DDIFF_ADDR) {
            t->diff = ETRACE_DDIFF_FULL;        /* data only: 00 is full */
        }
        t->data = sext(v[best], vbits);
        t->data_len = n - 1;
    }

    if (has & ETRACE_DHAS_ADDR) {
        h->addr[s] = addr;
        h->addr_valid |= 1u << s;
    }
    if (has & ETRACE_DHAS_DATA) {
        h->data[s] = d;
        h->data_valid |= 1u << s;
    }
}

bool etrace_data_decode(ETraceDataAccess *a, const ETraceDataParams *p,
                        ETraceDataHistory *h, const ETraceTeData *t,
                        const char **why)
{
    unsigned has = etrace_te_data_has(p, t->dtype);
    unsigned s = t->size, vbits = 8u << s;
    uint64_t amask = low_mask(p->daddress_width);
    bool diff_addr, data_diff;

    memset(a, 0, sizeof(*a));
    a->dtype = t->dtype;
    a->mma = t->mma;
    a->size = s;

    if (has & ETRACE_DHAS_ADDR) {
        uint64_t v = sext(t->address, p->daddress_width);

        diff_addr = has == ETRACE_DHAS_ADDR ? t->diff :
                    t->diff != ETRACE_DDIFF_FULL;
        if (!t->unaligned) {
            v <<= s;
        }
        if (diff_addr && !(h->addr_valid >> s & 1)) {
            *why = "a differential te_data address with no address of its "
                   "size since the last synchronisation";
            return false;
        }
        a->addr = ((diff_addr ? h->addr[s] : 0) + v) & amask;
        h->addr[s] = a->addr;
        h->addr_valid |= 1u << s;
    }
    if (has & ETRACE_DHAS_OPERAND) {
        a->operand = t->operand & low_mask(8 * (t->op_len + 1));
        a->operand = sext(a->operand, 8 * (t->op_len + 1)) & low_mask(vbits);
    }
    if (has & ETRACE_DHAS_DATA) {
        unsigned bits = has & ETRACE_DHAS_ADDR ? 8 * (t->data_len + 1)
                                               : p->data_width;
        uint64_t v = sext(t->data & low_mask(bits), bits) & low_mask(vbits);

        data_diff = t->diff == ETRACE_DDIFF_XOR ||
                    t->diff == ETRACE_DDIFF_DIFF;
        if (data_diff && !(h->data_valid >> s & 1)) {
            *why = "compressed te_data data with no value of its size "
                   "since the last synchronisation";
            return false;
        }
        if (t->diff == ETRACE_DDIFF_XOR) {
            v ^= h->data[s];
        } else if (t->diff == ETRACE_DDIFF_DIFF) {
            v = (v + h->data[s]) & low_mask(vbits);
        }
        a->data = v;
        h->data[s] = v;
        h->data_valid |= 1u << s;
    }
    return true;
}
