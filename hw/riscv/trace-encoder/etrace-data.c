/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace te_data packets for unified and split signalling: layout,
 * parsing and the per-size compression of addresses and values
 * (include/hw/riscv/etrace-data.h).
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

bool etrace_data_split(const ETraceDataParams *p, unsigned dtype)
{
    unsigned has = etrace_te_data_has(p, dtype);

    if (!p->lrid_width || !(has & ETRACE_DHAS_DATA)) {
        return false;
    }
    return dtype == ETRACE_DTYPE_LOAD ? has & ETRACE_DHAS_ADDR
                                      : etrace_dtype_amo(dtype);
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

/*
 * Values up to 128 bits wide are @lo and @hi, its bits 64 to 127.
 * sext2: the low @bits (1 to 128) sign-extended to 128; trunc2: cut to
 * @bits.
 */
static inline void sext2(uint64_t *lo, uint64_t *hi, unsigned bits)
{
    if (bits <= 64) {
        *lo = sext(*lo, bits);
        *hi = -(*lo >> 63);
    } else {
        *hi = sext(*hi, bits - 64);
    }
}

static inline void trunc2(uint64_t *lo, uint64_t *hi, unsigned bits)
{
    if (bits <= 64) {
        *lo &= low_mask(bits);
        *hi = 0;
    } else {
        *hi &= low_mask(bits - 64);
    }
}

/* A field of @bits, at most 128: @lo, then @hi from bit 64 on. */
static inline void put2(ETraceBits *b, uint64_t lo, uint64_t hi, unsigned bits)
{
    etrace_bits_put(b, lo, MIN(bits, 64));
    if (bits > 64) {
        etrace_bits_put(b, hi, bits - 64);
    }
}

static inline void get2(const ETraceBits *b, unsigned *pos, unsigned bits,
                        uint64_t *lo, uint64_t *hi)
{
    *lo = etrace_bits_get(b, pos, MIN(bits, 64));
    *hi = bits > 64 ? etrace_bits_get(b, pos, bits - 64) : 0;
}

static inline bool is_ldst(unsigned dtype)
{
    return dtype == ETRACE_DTYPE_LOAD || dtype == ETRACE_DTYPE_STORE;
}

/*
 * The layout of a packet with an address but no value: a unified one
 * without data (a 1-bit diff), or a load's request.
 */
static inline bool addr_only_layout(const ETraceTeData *t, unsigned has)
{
    return has == ETRACE_DHAS_ADDR ||
           (t->phase == ETRACE_DPHASE_REQUEST && is_ldst(t->dtype));
}

/* The 2.0 atomic data phase: no size field, a data_len. */
static inline bool data_phase_20_atomic(const ETraceDataParams *p,
                                        const ETraceTeData *t)
{
    return !p->mmacas && !is_ldst(t->dtype);
}

void etrace_te_data_pack(ETraceBits *b, const ETraceDataParams *p,
                         const ETraceTeData *t)
{
    unsigned has = etrace_te_data_has(p, t->dtype);
    unsigned sub = (t->dtype == ETRACE_DTYPE_STORE) << 1 | t->unaligned;
    bool request = t->phase == ETRACE_DPHASE_REQUEST;

    memset(b, 0, sizeof(*b));
    if (t->phase == ETRACE_DPHASE_DATA) {
        if (p->mmacas) {
            etrace_bits_put(b, ETRACE_DCLASS_SPLIT_DATA, 2);
            etrace_bits_put(b, t->size, etrace_data_size_bits(p));
        } else if (is_ldst(t->dtype)) {
            etrace_bits_put(b, ETRACE_DFMT20_SPLIT_LOAD, 3);
            etrace_bits_put(b, t->size, etrace_data_size_bits(p));
        } else {
            etrace_bits_put(b, ETRACE_DFMT20_SPLIT_ATOMIC, 3);
        }
        etrace_bits_put(b, t->lrid, p->lrid_width);
        etrace_bits_put(b, t->resp, 2);
        if (data_phase_20_atomic(p, t)) {
            etrace_bits_put(b, t->data_len, t->size);
            put2(b, t->data, t->data_hi, 8 * (t->data_len + 1));
        } else {
            put2(b, t->data, t->data_hi, p->data_width);
        }
        etrace_bits_sign_fill(b);
        return;
    }
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
    if (request) {
        etrace_bits_put(b, t->lrid, p->lrid_width);
    }

    if (!(has & ETRACE_DHAS_ADDR)) {
        /* data only: the value is the last field, data_width_p wide */
        etrace_bits_put(b, t->diff, 2);
        if (request) {
            put2(b, t->operand, t->operand_hi, p->data_width);
        } else {
            if (has & ETRACE_DHAS_OPERAND) {
                etrace_bits_put(b, t->op_len, t->size);
                put2(b, t->operand, t->operand_hi, 8 * (t->op_len + 1));
            }
            put2(b, t->data, t->data_hi, p->data_width);
        }
    } else if (addr_only_layout(t, has)) {
        etrace_bits_put(b, t->diff, 1);
        etrace_bits_put(b, t->address, p->daddress_width);
    } else {
        etrace_bits_put(b, t->diff, 2);
        if (has & ETRACE_DHAS_OPERAND) {
            etrace_bits_put(b, t->op_len, t->size);
            put2(b, t->operand, t->operand_hi, 8 * (t->op_len + 1));
        }
        if ((has & ETRACE_DHAS_DATA) && !request) {
            etrace_bits_put(b, t->data_len, t->size);
            put2(b, t->data, t->data_hi, 8 * (t->data_len + 1));
        }
        etrace_bits_put(b, t->address, p->daddress_width);
    }
    etrace_bits_sign_fill(b);
}

/* The type fields of a packet: phase, dtype, mma, unaligned. */
static bool unpack_type(ETraceTeData *t, const ETraceDataParams *p,
                        const ETraceBits *b, unsigned *pos, const char **why)
{
    unsigned fmt, sub;

    if (!p->mmacas) {
        fmt = etrace_bits_get(b, pos, p->format_bits);
        if (fmt < 4) {
            t->dtype = fmt & 2 ? ETRACE_DTYPE_STORE : ETRACE_DTYPE_LOAD;
            t->unaligned = fmt & 1;
        } else if (fmt == ETRACE_DFMT20_ATOMIC) {
            t->dtype = ETRACE_DTYPE_AMO_SWAP + etrace_bits_get(b, pos, 3);
        } else if (fmt != ETRACE_DFMT20_SPLIT_LOAD &&
                   fmt != ETRACE_DFMT20_SPLIT_ATOMIC) {
            *why = "a CSR te_data format (not produced here)";
            return false;
        } else if (!p->lrid_width) {
            *why = "a split data phase te_data packet in a stream of "
                   "unified signalling";
            return false;
        } else {
            t->phase = ETRACE_DPHASE_DATA;
            t->dtype = fmt == ETRACE_DFMT20_SPLIT_LOAD ? ETRACE_DTYPE_LOAD
                                                       : ETRACE_DTYPE_AMO_SWAP;
        }
    } else {
        fmt = etrace_bits_get(b, pos, p->format_bits);
        if (fmt == ETRACE_DCLASS_LDST || fmt == ETRACE_DCLASS_MMA) {
            sub = etrace_bits_get(b, pos, 2);
            t->mma = fmt == ETRACE_DCLASS_MMA;
            t->dtype = sub & 2 ? ETRACE_DTYPE_STORE : ETRACE_DTYPE_LOAD;
            t->unaligned = sub & 1;
        } else if (fmt == ETRACE_DCLASS_SPLIT_DATA) {
            if (!p->lrid_width) {
                *why = "a split data phase te_data packet in a stream of "
                       "unified signalling";
                return false;
            }
            t->phase = ETRACE_DPHASE_DATA;
            t->dtype = ETRACE_DTYPE_LOAD;
        } else {
            t->dtype = etrace_bits_get(b, pos, 4);
            if (t->dtype < ETRACE_DTYPE_CAS_FAIL) {
                *why = t->dtype >= 4 ?
                       "a CSR te_data packet (not produced here)" :
                       "a reserved te_data atomic subformat";
                return false;
            }
        }
    }
    if (t->phase != ETRACE_DPHASE_DATA && etrace_data_split(p, t->dtype)) {
        t->phase = ETRACE_DPHASE_REQUEST;
    }
    return true;
}

/* The fields of a data phase after its type. */
static bool unpack_data_phase(ETraceTeData *t, const ETraceDataParams *p,
                              const uint8_t *sizes, const ETraceBits *b,
                              unsigned *pos, const char **why)
{
    if (!data_phase_20_atomic(p, t)) {
        t->size = etrace_bits_get(b, pos, etrace_data_size_bits(p));
    }
    t->lrid = etrace_bits_get(b, pos, p->lrid_width);
    if (data_phase_20_atomic(p, t)) {
        if (!sizes || sizes[t->lrid] > 4) {
            *why = "a te_data data phase with no request of its lrid";
            return false;
        }
        t->size = sizes[t->lrid];
    }
    if ((8u << t->size) > p->data_width) {
        *why = "a te_data access wider than data_width_p";
        return false;
    }
    t->resp = etrace_bits_get(b, pos, 2);
    if (t->resp == ETRACE_DRESP_ERROR) {
        *why = "a te_data data phase with an error response (not produced "
               "here)";
        return false;
    }
    if (data_phase_20_atomic(p, t)) {
        t->data_len = etrace_bits_get(b, pos, t->size);
        get2(b, pos, 8 * (t->data_len + 1), &t->data, &t->data_hi);
    } else {
        get2(b, pos, p->data_width, &t->data, &t->data_hi);
    }
    return true;
}

bool etrace_te_data_unpack(ETraceTeData *t, const ETraceDataParams *p,
                           const uint8_t *sizes, const uint8_t *payload,
                           unsigned len, const char **why)
{
    ETraceBits b;
    unsigned pos = 0, has;
    bool request;

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
    if (t->phase == ETRACE_DPHASE_DATA) {
        return unpack_data_phase(t, p, sizes, &b, &pos, why);
    }
    t->size = etrace_bits_get(&b, &pos, etrace_data_size_bits(p));
    if ((8u << t->size) > p->data_width) {
        *why = "a te_data access wider than data_width_p";
        return false;
    }
    request = t->phase == ETRACE_DPHASE_REQUEST;
    if (request) {
        t->lrid = etrace_bits_get(&b, &pos, p->lrid_width);
    }
    has = etrace_te_data_has(p, t->dtype);
    if (!(has & ETRACE_DHAS_ADDR)) {
        t->diff = etrace_bits_get(&b, &pos, 2);
        if (t->diff == 2) {
            *why = "a te_data diff code that is reserved without address";
            return false;
        }
        if (request) {
            get2(&b, &pos, p->data_width, &t->operand, &t->operand_hi);
            return true;
        }
        if (has & ETRACE_DHAS_OPERAND) {
            t->op_len = etrace_bits_get(&b, &pos, t->size);
            get2(&b, &pos, 8 * (t->op_len + 1), &t->operand, &t->operand_hi);
        }
        get2(&b, &pos, p->data_width, &t->data, &t->data_hi);
    } else if (addr_only_layout(t, has)) {
        t->diff = etrace_bits_get(&b, &pos, 1);
        t->address = etrace_bits_get(&b, &pos, p->daddress_width);
    } else {
        t->diff = etrace_bits_get(&b, &pos, 2);
        if (has & ETRACE_DHAS_OPERAND) {
            t->op_len = etrace_bits_get(&b, &pos, t->size);
            get2(&b, &pos, 8 * (t->op_len + 1), &t->operand, &t->operand_hi);
        }
        if ((has & ETRACE_DHAS_DATA) && !request) {
            t->data_len = etrace_bits_get(&b, &pos, t->size);
            get2(&b, &pos, 8 * (t->data_len + 1), &t->data, &t->data_hi);
        }
        t->address = etrace_bits_get(&b, &pos, p->daddress_width);
    }
    return true;
}

/*
 * Bytes of @lo:@hi, a value of 2^@size bytes, once its top bytes that
 * repeat the sign of the rest are left out (dataTracePayload.adoc,
 * "data_len"): a byte for each 8 bits of it but its redundant sign bits.
 */
static inline unsigned trimmed_bytes(uint64_t lo, uint64_t hi, unsigned size)
{
    if (size > 3 && hi != -(lo >> 63)) {
        return 16 - clrsb64(hi) / 8;
    }
    return 8 - clrsb64(sext(lo, 8u << MIN(size, 3))) / 8;
}

/*
 * The value of an access in the fewest bytes that @h allows, when
 * @compress: full, XOR'ed or as the difference with the last value of
 * its size, in that order of preference; 16-byte values go in full.
 * Returns the choice: 0, 1 or 2; @v the value sent, @n its bytes.
 */
static unsigned best_value(const ETraceDataHistory *h, unsigned s,
                           uint64_t d, uint64_t d_hi, bool compress,
                           uint64_t v[2], unsigned *n)
{
    uint64_t c[3] = { d, d ^ h->data[s], d - h->data[s] };
    unsigned i, best = 0;

    *n = trimmed_bytes(d, d_hi, s);
    for (i = 1; compress && s < 4 && i < 3; i++) {
        c[i] &= low_mask(8u << s);
        if (trimmed_bytes(c[i], 0, s) < *n) {
            *n = trimmed_bytes(c[i], 0, s);
            best = i;
        }
    }
    v[0] = c[best];
    v[1] = best ? 0 : d_hi;
    sext2(&v[0], &v[1], 8u << s);
    return best;
}

unsigned etrace_data_encode(ETraceTeData t[2], const ETraceDataParams *p,
                            ETraceDataHistory *h, const ETraceDataAccess *a,
                            bool full_address, unsigned lrid)
{
    unsigned has = etrace_te_data_has(p, a->dtype);
    unsigned s = a->size, vbits = 8u << s, n, best;
    bool split = etrace_data_split(p, a->dtype);
    uint64_t amask = low_mask(p->daddress_width);
    uint64_t addr = a->addr & amask, d = a->data, d_hi = a->data_hi;
    bool atomic = !is_ldst(a->dtype);
    bool diff_addr = (h->addr_valid >> s & 1) && !full_address &&
                     (has & ETRACE_DHAS_ADDR);
    bool have_data = h->data_valid >> s & 1;
    uint64_t av, v[2];

    memset(t, 0, sizeof(*t) * (split ? 2 : 1));
    trunc2(&d, &d_hi, vbits);
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
        uint64_t op = a->operand, op_hi = a->operand_hi;

        trunc2(&op, &op_hi, vbits);
        t->op_len = trimmed_bytes(op, op_hi, s) - 1;
        sext2(&op, &op_hi, vbits);
        t->operand = op;
        t->operand_hi = op_hi;
    }
    if (split) {
        /* the request: address and operand; the value in a data phase */
        ETraceTeData *dp = &t[1];

        t->phase = ETRACE_DPHASE_REQUEST;
        t->lrid = lrid;
        t->diff = !atomic ? diff_addr :
                  diff_addr ? ETRACE_DDIFF_ADDR : ETRACE_DDIFF_FULL;
        dp->phase = ETRACE_DPHASE_DATA;
        dp->dtype = a->dtype;
        dp->size = s;
        dp->lrid = lrid;
        best = best_value(h, s, d, d_hi, !atomic && have_data, v, &n);
        dp->resp = best == 1 ? ETRACE_DRESP_XOR :
                   best == 2 ? ETRACE_DRESP_DIFF : ETRACE_DRESP_FULL;
        dp->data = v[0];
        dp->data_hi = v[1];
        dp->data_len = n - 1;
    } else if (has == ETRACE_DHAS_ADDR) {
        t->diff = diff_addr;
    } else if (!(has & ETRACE_DHAS_DATA) || atomic) {
        /* failed CAS, atomics: operand and data uncompressed */
        t->diff = diff_addr ? ETRACE_DDIFF_ADDR : ETRACE_DDIFF_FULL;
        best_value(h, s, d, d_hi, false, v, &n);
        t->data = v[0];
        t->data_hi = v[1];
        t->data_len = n - 1;
    } else {
        static const uint8_t codes[3] = {
            ETRACE_DDIFF_ADDR, ETRACE_DDIFF_XOR, ETRACE_DDIFF_DIFF,
        };
        bool compress = have_data && (diff_addr || !(has & ETRACE_DHAS_ADDR));

        best = best_value(h, s, d, d_hi, compress, v, &n);
        if (!compress) {
            t->diff = diff_addr ? ETRACE_DDIFF_ADDR : ETRACE_DDIFF_FULL;
        } else {
            t->diff = codes[best];
        }
        if (!(has & ETRACE_DHAS_ADDR) && t->diff == ETRACE_DDIFF_ADDR) {
            t->diff = ETRACE_DDIFF_FULL;        /* data only: 00 is full */
        }
        t->data = v[0];
        t->data_hi = v[1];
        t->data_len = n - 1;
    }

    if (has & ETRACE_DHAS_ADDR) {
        h->addr[s] = addr;
        h->addr_valid |= 1u << s;
    }
    if (has & ETRACE_DHAS_DATA) {
        h->data[s] = d;
        h->data_hi = s > 3 ? d_hi : h->data_hi;
        h->data_valid |= 1u << s;
    }
    return split ? 2 : 1;
}

/* A value of 2^@s bytes from a field of @bits, compressed as @code. */
static bool decode_value(ETraceDataAccess *a, ETraceDataHistory *h,
                         unsigned s, uint64_t lo, uint64_t hi, unsigned bits,
                         unsigned code, const char **why)
{
    unsigned vbits = 8u << s;

    sext2(&lo, &hi, bits);
    if (code != ETRACE_DDIFF_FULL) {
        if (!(h->data_valid >> s & 1)) {
            *why = "compressed te_data data with no value of its size "
                   "since the last synchronisation";
            return false;
        }
        if (code == ETRACE_DDIFF_XOR) {
            lo ^= h->data[s];
            hi ^= s > 3 ? h->data_hi : 0;
        } else {
            uint64_t sum = lo + h->data[s];

            hi += (s > 3 ? h->data_hi : 0) + (sum < lo);
            lo = sum;
        }
    }
    trunc2(&lo, &hi, vbits);
    a->data = lo;
    a->data_hi = hi;
    h->data[s] = lo;
    h->data_hi = s > 3 ? hi : h->data_hi;
    h->data_valid |= 1u << s;
    return true;
}

bool etrace_data_decode(ETraceDataAccess *a, const ETraceDataParams *p,
                        ETraceDataHistory *h, const ETraceTeData *t,
                        const char **why)
{
    unsigned has = etrace_te_data_has(p, t->dtype);
    unsigned s = t->size, vbits = 8u << s;
    uint64_t amask = low_mask(p->daddress_width);
    bool request = t->phase == ETRACE_DPHASE_REQUEST;

    if (t->phase == ETRACE_DPHASE_DATA) {
        static const uint8_t codes[4] = {
            [ETRACE_DRESP_XOR] = ETRACE_DDIFF_XOR,
            [ETRACE_DRESP_FULL] = ETRACE_DDIFF_FULL,
            [ETRACE_DRESP_DIFF] = ETRACE_DDIFF_DIFF,
        };

        if (a->size != s) {
            *why = "a te_data data phase of another size than its request";
            return false;
        }
        return decode_value(a, h, s, t->data, t->data_hi,
                            data_phase_20_atomic(p, t) ?
                            8 * (t->data_len + 1) : p->data_width,
                            codes[t->resp], why);
    }
    memset(a, 0, sizeof(*a));
    a->dtype = t->dtype;
    a->mma = t->mma;
    a->size = s;

    if (has & ETRACE_DHAS_ADDR) {
        uint64_t v = sext(t->address, p->daddress_width);
        bool diff_addr = addr_only_layout(t, has) ? t->diff :
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
        uint64_t lo = t->operand, hi = t->operand_hi;

        sext2(&lo, &hi, request && !(has & ETRACE_DHAS_ADDR) ?
                        p->data_width : 8 * (t->op_len + 1));
        trunc2(&lo, &hi, vbits);
        a->operand = lo;
        a->operand_hi = hi;
    }
    if ((has & ETRACE_DHAS_DATA) && !request) {
        unsigned code = t->diff;

        if ((has & ETRACE_DHAS_ADDR) && code == ETRACE_DDIFF_ADDR) {
            code = ETRACE_DDIFF_FULL;
        }
        return decode_value(a, h, s, t->data, t->data_hi,
                            has & ETRACE_DHAS_ADDR ? 8 * (t->data_len + 1)
                                                   : p->data_width,
                            code, why);
    }
    return true;
}
