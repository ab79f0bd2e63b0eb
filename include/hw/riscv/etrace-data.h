/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace data trace packets (te_data) for unified and split signalling:
 * the layouts of E-Trace 2.0 (dataTracePayload.adoc of E-Trace 2.0.5) and
 * of the Data Trace of Multiple-Memory Access and Compare and Swap v0.8
 * extension (extensions.adoc, "MMA/CAS" below), the per-size compression
 * of addresses and values, and parsing.  docs/specs/riscv-trace.rst,
 * "Data trace packets", says how this file reads the places the spec
 * leaves open.
 *
 * Shared by the trace encoder device and the host decoder.
 */
#ifndef HW_RISCV_ETRACE_DATA_H
#define HW_RISCV_ETRACE_DATA_H

#include "hw/riscv/etrace.h"

/*
 * Access types: the dtype values of the Data Trace Interface
 * (ingressPort.adoc), which are also the 4-bit subformats of the MMA/CAS
 * extension's atomic class.  ETRACE_DTYPE_CAS_FAIL is that subformat
 * 0111 (a dtype the 2.0 interface reserves).
 */
#define ETRACE_DTYPE_LOAD           0
#define ETRACE_DTYPE_STORE          1
#define ETRACE_DTYPE_CAS_FAIL       7
#define ETRACE_DTYPE_AMO_SWAP       8
#define ETRACE_DTYPE_AMO_ADD        9
#define ETRACE_DTYPE_AMO_AND        10
#define ETRACE_DTYPE_AMO_OR         11
#define ETRACE_DTYPE_AMO_XOR        12
#define ETRACE_DTYPE_AMO_MAX        13
#define ETRACE_DTYPE_AMO_MIN        14
#define ETRACE_DTYPE_SC_FAIL        15

/* An atomic memory operation with an operand and a loaded value. */
static inline bool etrace_dtype_amo(unsigned dtype)
{
    return dtype >= ETRACE_DTYPE_AMO_SWAP && dtype <= ETRACE_DTYPE_AMO_MIN;
}

/*
 * The diff field.  With an address and data: full address and data
 * (what follows a synchronisation), differential address with XOR,
 * full or differential data.  Data only: full, XOR, (reserved),
 * differential; address only: 0 full, 1 differential.
 */
#define ETRACE_DDIFF_FULL           0
#define ETRACE_DDIFF_XOR            1
#define ETRACE_DDIFF_ADDR           2
#define ETRACE_DDIFF_DIFF           3

/*
 * The MMA/CAS extension's transaction classes (its format field); the
 * 2.0 format field of an atomic.
 */
#define ETRACE_DCLASS_LDST          0
#define ETRACE_DCLASS_MMA           1
#define ETRACE_DCLASS_ATOMIC        2
#define ETRACE_DCLASS_SPLIT_DATA    3
#define ETRACE_DFMT20_SPLIT_LOAD    4
#define ETRACE_DFMT20_ATOMIC        6
#define ETRACE_DFMT20_SPLIT_ATOMIC  7

/*
 * Split signalling: what a packet is of its access (unified: all of
 * it), and the resp field of a data phase.
 */
#define ETRACE_DPHASE_UNIFIED       0
#define ETRACE_DPHASE_REQUEST       1
#define ETRACE_DPHASE_DATA          2
#define ETRACE_DRESP_ERROR          0
#define ETRACE_DRESP_XOR            1
#define ETRACE_DRESP_FULL           2
#define ETRACE_DRESP_DIFF           3

/* lrid_width_p at most: a decoder keeps a request per ID. */
#define ETRACE_DATA_LRID_MAX_BITS   4

/**
 * ETraceDataParams: what shapes the te_data packets of an encoder
 * @daddress_width: daddress_width_p, the address field's width
 * @data_width: data_width_p (8 to 128): the size field's width follows
 * @lrid_width: split signalling: lrid_width_p (1 to
 *              ETRACE_DATA_LRID_MAX_BITS); 0: unified signalling
 * @mmacas: the MMA/CAS extension's layouts (protocol 2.1), else 2.0's
 * @format_bits: the format field's width: in 2.0, 2 when only unified
 *               loads and stores are traced, else 3; with MMA/CAS, 0 when
 *               only unified loads and stores, 1 when multi-memory
 *               accesses too, else 2 (the caller chooses it from what it
 *               traces: an atomic or split signalling needs 3 in 2.0 and
 *               2 with MMA/CAS, a multi-memory access at least 1).
 *               The 2.0 layouts describe neither a failed
 *               compare-and-swap nor a multi-memory access: harts with
 *               Zacas, Zcmp or V use MMA/CAS (dataTracePayload.adoc)
 * @noaddr: trTeDataNoAddr: packets without the address
 * @nodata: trTeDataNoValue: packets without data or operand
 */
typedef struct ETraceDataParams {
    uint8_t daddress_width;
    uint8_t data_width;
    uint8_t lrid_width;
    bool mmacas;
    uint8_t format_bits;
    bool noaddr;
    bool nodata;
} ETraceDataParams;

/**
 * etrace_data_size_bits: width of the size field
 * @p: parameters
 *
 * max(1, clog2(clog2(data_width_p / 8 + 1))) (dataTracePayload.adoc).
 */
unsigned etrace_data_size_bits(const ETraceDataParams *p);

/**
 * ETraceTeData: the fields of one te_data packet, as transmitted
 * @phase: ETRACE_DPHASE_*: the whole access (unified), or the request or
 *         the data phase of a split one
 * @dtype: ETRACE_DTYPE_* (a data phase: ETRACE_DTYPE_LOAD, or in 2.0
 *         ETRACE_DTYPE_AMO_SWAP for the atomic one, whose code differs)
 * @mma: MMA/CAS: an access of a multi-memory access instruction (class
 *       01)
 * @unaligned: a load or store whose address field is a byte address (an
 *             atomic's is always shifted right by @size)
 * @size: the size field: the access is 2^@size bytes
 * @diff: the diff field, ETRACE_DDIFF_* (0 or 1 in address-only packets)
 * @op_len, @operand: an atomic's operand (rs2) takes @op_len + 1 bytes
 *                    (the data-only layout: the data_width_p field)
 * @data_len, @data: the data takes @data_len + 1 bytes (likewise)
 * @operand_hi, @data_hi: bits 64 to 127 of the two fields (a 16-byte
 *                        access)
 * @lrid, @resp: a split access's request ID; a data phase's resp field
 * @address: the address field: full or differential, shifted right by
 *           @size unless @unaligned (an atomic's always is: an atomic at
 *           an address its size does not divide loses the low bits)
 *
 * Which fields a packet has follows from @dtype and the parameters'
 * @noaddr and @nodata: see etrace_te_data_has().  A failed store
 * conditional has only an address, a failed compare-and-swap an operand
 * and an address.
 */
typedef struct ETraceTeData {
    uint8_t phase;
    uint8_t dtype;
    bool mma;
    bool unaligned;
    uint8_t size;
    uint8_t diff;
    uint8_t op_len;
    uint8_t data_len;
    uint8_t lrid;
    uint8_t resp;
    uint64_t operand;
    uint64_t operand_hi;
    uint64_t data;
    uint64_t data_hi;
    uint64_t address;
} ETraceTeData;

/* etrace_te_data_has(): the fields of a packet */
#define ETRACE_DHAS_ADDR            (1u << 0)
#define ETRACE_DHAS_DATA            (1u << 1)
#define ETRACE_DHAS_OPERAND         (1u << 2)

/**
 * etrace_te_data_has: the fields a packet of @dtype carries
 * @p: parameters
 * @dtype: its type
 *
 * Returns ETRACE_DHAS_* bits.  The address is left out under @p->noaddr
 * and data and operand under @p->nodata, but for the two failures, whose
 * only layouts have an address.  With split signalling these are the
 * fields of the access, over its two packets.
 */
unsigned etrace_te_data_has(const ETraceDataParams *p, unsigned dtype);

/**
 * etrace_data_split: whether an access of @dtype goes in two packets
 * @p: parameters
 * @dtype: its type
 *
 * With split signalling, a load with address and value and an atomic
 * with a value (a request, then a data phase); the others go in their
 * unified layouts (dataTracePayload.adoc).
 */
bool etrace_data_split(const ETraceDataParams *p, unsigned dtype);

/**
 * etrace_te_data_pack: lay out a te_data packet, uncompressed
 * @b: output; its unused bits are copies of the last field's top bit
 * @p: parameters
 * @t: the packet
 */
void etrace_te_data_pack(ETraceBits *b, const ETraceDataParams *p,
                         const ETraceTeData *t);

/**
 * etrace_te_data_unpack: read a te_data payload
 * @t: output
 * @p: parameters
 * @sizes: split signalling: the size of the pending request of each
 *         lrid (the 2.0 atomic data phase has no size field of its own)
 * @payload: the payload bytes, after the encapsulation's type field;
 *           bits past the end repeat its last bit
 * @len: number of bytes
 * @why: on failure, a static string that says why
 *
 * Returns false for a packet these parameters cannot produce: a split
 * format with unified signalling, a CSR format, a reserved code, a size
 * wider than data_width_p, a data phase with an error response.
 */
bool etrace_te_data_unpack(ETraceTeData *t, const ETraceDataParams *p,
                           const uint8_t *sizes, const uint8_t *payload,
                           unsigned len, const char **why);

/*
 * Compression state: per access size, the address and the value of the
 * last access of that size that had them, each valid (bit size of
 * @addr_valid, @data_valid) from the first such access after a
 * synchronisation (dataTracePayload.adoc, "diff field"); @data_hi the
 * top half of the last 16-byte value.
 */
#define ETRACE_DATA_SIZES           5
typedef struct ETraceDataHistory {
    uint64_t addr[ETRACE_DATA_SIZES];
    uint64_t data[ETRACE_DATA_SIZES];
    uint64_t data_hi;
    uint8_t addr_valid;
    uint8_t data_valid;
} ETraceDataHistory;

/* Forget every access: the next of each size is sent in full. */
static inline void etrace_data_history_reset(ETraceDataHistory *h)
{
    h->addr_valid = 0;
    h->data_valid = 0;
}

/**
 * ETraceDataAccess: one access as the hart made it
 * @dtype: ETRACE_DTYPE_*
 * @mma: an access of a multi-memory access instruction
 * @size: log2 of its bytes, at most 4 (a 16-byte access: amocas.q)
 * @addr: its byte address
 * @data: the value loaded (loads, atomics, failed compare-and-swap: the
 *        value read) or stored (stores, store conditionals)
 * @operand: an atomic's rs2 before the operation
 * @data_hi, @operand_hi: their bytes 8 to 15 (16-byte accesses)
 */
typedef struct ETraceDataAccess {
    uint8_t dtype;
    bool mma;
    uint8_t size;
    uint64_t addr;
    uint64_t data;
    uint64_t operand;
    uint64_t data_hi;
    uint64_t operand_hi;
} ETraceDataAccess;

/**
 * etrace_data_encode: the packets of an access
 * @t: output: one packet, or a split access's request and data phase
 * @p: parameters
 * @h: compression state, updated
 * @a: the access, at most data_width_p wide
 * @full_address: trTeDataAddrCompress 0: every address in full
 * @lrid: a split access's request ID
 *
 * Chooses, within what @h allows, the representation with the fewest
 * data bytes; see docs/specs/riscv-trace.rst, "Data trace packets".
 * Returns the number of packets, 1 or 2.
 */
unsigned etrace_data_encode(ETraceTeData t[2], const ETraceDataParams *p,
                            ETraceDataHistory *h, const ETraceDataAccess *a,
                            bool full_address, unsigned lrid);

/**
 * etrace_data_decode: the access a packet reports
 * @a: output; the fields the packet leaves out are 0.  For a data phase,
 *     its request's access on input, completed
 * @p: parameters
 * @h: compression state, updated
 * @t: the packet
 * @why: on failure, a static string that says why
 *
 * Returns false when the packet needs an access of its size that @h
 * does not hold (a differential packet after a synchronisation).  A
 * request gives the fields of its access that it has: the rest come
 * with its data phase.
 */
bool etrace_data_decode(ETraceDataAccess *a, const ETraceDataParams *p,
                        ETraceDataHistory *h, const ETraceTeData *t,
                        const char **why);

#endif
