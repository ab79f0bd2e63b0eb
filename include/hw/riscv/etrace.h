/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace instruction trace packets (te_inst) and their Encapsulation 1.0
 * framing, in the two protocol versions:
 *
 * - 2.0: field order and widths of the ratified E-Trace 2.0 text
 *   (payload.adoc); where it leaves a width to the implementation
 *   (encoder_mode, ioptions, doptions in the support packet) this file
 *   fixes it, and docs/specs/riscv-trace.rst publishes it;
 * - 2.1: 2.0 with the Standard Support Packet and the Implicit Return
 *   extensions (extensions.adoc of E-Trace 2.0.5, v0.8): the support
 *   packet has a standard layout that carries the options and the
 *   discoverable parameters, and the 8-bit irets field replaces irdepth.
 *
 * Shared by the trace encoder device and the host decoder.
 */
#ifndef HW_RISCV_ETRACE_H
#define HW_RISCV_ETRACE_H

/* te_inst format, bits 1:0 of every packet. */
#define ETRACE_FMT_EXT              0   /* optional extensions */
#define ETRACE_FMT_BRANCH           1   /* branch map (+ address) */
#define ETRACE_FMT_ADDR             2   /* address only */
#define ETRACE_FMT_SYNC             3   /* synchronisation */

/* Format 3 subformat. */
#define ETRACE_SYNC_START           0
#define ETRACE_SYNC_TRAP            1
#define ETRACE_SYNC_CONTEXT         2
#define ETRACE_SYNC_SUPPORT         3

/* Format 0 subformat (f0s). */
#define ETRACE_EXT_BRANCH_COUNT     0
#define ETRACE_EXT_JUMP_CACHE       1

/* Format 0.0 branch_fmt: no address; address; address of a failed branch */
#define ETRACE_BFMT_NO_ADDR         0
#define ETRACE_BFMT_ADDR            2
#define ETRACE_BFMT_ADDR_FAIL       3

/* Support packet qual_status. */
#define ETRACE_QUAL_NO_CHANGE       0
#define ETRACE_QUAL_ENDED_REP       1
#define ETRACE_QUAL_TRACE_LOST      2
#define ETRACE_QUAL_ENDED_NTR       3

/* Protocol versions: trTeImpl.trTeProtocolMajor 0 and this minor. */
#define ETRACE_PROTOCOL_2_0         0
#define ETRACE_PROTOCOL_2_1         1

/*
 * Protocol 2.0, the support packet's implementation-defined fields:
 * encoder_mode 1 bit (0 = branch trace), ioptions 6 bits, doptions 4 bits
 * (the layout the spec's reference flow reads, with one more option).
 */
#define ETRACE_ENCODER_MODE_BITS    1
#define ETRACE_IOPTIONS_BITS        6
#define ETRACE_DOPTIONS_BITS        4
/*
 * ETraceTeInst.ioptions holds these bits in both protocols; 2.0 sends the
 * six low ones as they are, 2.1 sends each in its field of the Standard
 * Support Packet.
 */
#define ETRACE_IOPT_IMPLICIT_RETURN     (1u << 0)
#define ETRACE_IOPT_IMPLICIT_EXCEPTION  (1u << 1)
#define ETRACE_IOPT_FULL_ADDRESS        (1u << 2)
#define ETRACE_IOPT_JUMP_TARGET_CACHE   (1u << 3)
#define ETRACE_IOPT_BRANCH_PREDICTION   (1u << 4)
/*
 * Not in the reference flow's layout, where it reads as denable (this
 * encoder's denable, dloss and doptions are 0, and compressed away).
 */
#define ETRACE_IOPT_SEQ_JUMP            (1u << 5)
/* 2.1 only: trTeInstSyncMode is 0 */
#define ETRACE_IOPT_RESYNC_DISABLED     (1u << 6)

/*
 * Protocol 2.1, ETraceTeInst.doptions of the Standard Support Packet:
 * its fields mmacas_ext, noaddr, nodata, full_daddress and full_data.
 * 2.0's implementation-defined doptions are the last four of them, in
 * that order (ETRACE_DOPT_* >> 1).
 */
#define ETRACE_SSP_DOPTIONS_BITS    5
#define ETRACE_DOPT_MMACAS          (1u << 0)
#define ETRACE_DOPT_NOADDR          (1u << 1)
#define ETRACE_DOPT_NODATA          (1u << 2)
#define ETRACE_DOPT_FULL_DADDRESS   (1u << 3)
#define ETRACE_DOPT_FULL_DATA       (1u << 4)

/* Privilege codes (ingressPort.adoc, tab:priv). */
#define ETRACE_PRIV_U               0
#define ETRACE_PRIV_S               1
#define ETRACE_PRIV_M               3
#define ETRACE_PRIV_D               4
#define ETRACE_PRIV_VU              5
#define ETRACE_PRIV_VS              6

/* Instruction types (ingressPort.adoc, tab:itype; ctrdata.TYPE shares them). */
#define ETRACE_ITYPE_NONE           0
#define ETRACE_ITYPE_EXCEPTION      1
#define ETRACE_ITYPE_INTERRUPT      2
#define ETRACE_ITYPE_TRAP_RETURN    3
#define ETRACE_ITYPE_NT_BRANCH      4
#define ETRACE_ITYPE_T_BRANCH       5
#define ETRACE_ITYPE_UNINF_CALL     8
#define ETRACE_ITYPE_INF_CALL       9
#define ETRACE_ITYPE_UNINF_JUMP     10
#define ETRACE_ITYPE_INF_JUMP       11
#define ETRACE_ITYPE_CO_SWAP        12
#define ETRACE_ITYPE_RETURN         13
#define ETRACE_ITYPE_OTHER_UNINF    14
#define ETRACE_ITYPE_OTHER_INF      15

/* A branch map holds at most this many outcomes. */
#define ETRACE_MAX_BRANCHES         31

/*
 * An entry of the branch predictor (E-Trace "Branch prediction mode"):
 * bit 1 the prediction (1 = taken), bit 0 the last outcome.  00 and 01
 * predict not taken, 11 and 10 taken; a prediction changes after two
 * failures: 00 -> 01 on a failure, 01 -> 00 on a success, else 11; 11 ->
 * 10 on a failure, 10 -> 11 on a success, else 00.  Takes the outcome,
 * returns the prediction.
 */
static inline bool etrace_bpred_update(uint8_t *state, bool taken)
{
    static const uint8_t next[4][2] = {
        { 0, 1 }, { 0, 3 }, { 0, 3 }, { 2, 3 },
    };
    bool predicted = *state >> 1;

    *state = next[*state & 3][taken];
    return predicted;
}

/* Encapsulation: payload length field (5 bits) and the largest packet. */
#define ETRACE_PAYLOAD_MAX_BYTES    31
#define ETRACE_SRCID_MAX_BITS       16
#define ETRACE_TIMESTAMP_MAX_BYTES  8
#define ETRACE_ENCAP_MAX_BYTES      (1 + ETRACE_SRCID_MAX_BITS / 8 + \
                                     ETRACE_TIMESTAMP_MAX_BYTES + \
                                     ETRACE_PAYLOAD_MAX_BYTES)
#define ETRACE_ENCAP_NULL_IDLE      0x00
#define ETRACE_ENCAP_NULL_ALIGN     0x80

/**
 * ETraceParams: the discoverable parameters a decoder needs
 * (discovery.adoc): widths of the address, privilege and ecause fields,
 * the number of address bits that are always 0, the width of the format
 * 0 subformat field (f0s_width), the jump target cache's size
 * (2^cache_size_p entries; 0: none), the branch predictor's
 * (2^bpred_size_p entries; 0: none) and the implicit return stack's
 * (2^return_stack_size_p entries; 0: none, no irdepth field), and the
 * protocol, ETRACE_PROTOCOL_*; the width of the context field
 * (context_width_p, 0 when nocontext_p is 1: no field).  This
 * implementation has no time or call counter fields.
 */
typedef struct ETraceParams {
    uint8_t iaddress_width;
    uint8_t iaddress_lsb;
    uint8_t privilege_width;
    uint8_t ecause_width;
    uint8_t f0s_width;
    uint8_t cache_size;
    uint8_t bpred_size;
    uint8_t return_stack_size;
    uint8_t protocol;
    uint8_t context_width;
} ETraceParams;

/* The widest context field this implementation reads or writes. */
#define ETRACE_CONTEXT_MAX_BITS     32

/* The Implicit Return extension's irets field: 8 bits. */
#define ETRACE_IRETS_BITS           8
#define ETRACE_IRETS_MAX            255

/*
 * Width of the field after irreport: irdepth in 2.0 (payload.adoc,
 * format 2), irets in 2.1 (extensions.adoc).
 */
static inline unsigned etrace_irdepth_bits(const ETraceParams *p)
{
    if (p->protocol >= ETRACE_PROTOCOL_2_1) {
        return ETRACE_IRETS_BITS;
    }
    return p->return_stack_size ? p->return_stack_size + 1 : 0;
}

/**
 * ETraceTeInst: the fields of one te_inst packet, as transmitted
 * @address: the address field (already shifted right by iaddress_lsb
 *           and, in formats 1 and 2, differential unless full addresses
 *           are sent)
 * @notify, @updiscon, @irreport, @irdepth: the transmitted bits (see
 *           etrace_set_status_bits()); @irdepth holds irets in 2.1
 * @branches: format 1: the branches field; 0 means a full map of 31
 *            branches and no address; format 0.1: 0 means no map
 * @branch_map: formats 1 and 0.1: bit 0 is the oldest branch, 0 = taken
 */
typedef struct ETraceTeInst {
    uint8_t format;
    uint8_t subformat;
    /* format 0.1: the jump target cache entry of the address */
    uint8_t index;
    /* format 0.0: correctly predicted branches - 31, ETRACE_BFMT_* */
    uint32_t branch_count;
    uint8_t branch_fmt;
    /* formats 3.0 and 3.1 */
    bool branch;
    /* formats 3.0, 3.1 and 3.2 (context: when context_width is not 0) */
    uint8_t privilege;
    uint32_t context;
    /* format 3.1 */
    uint8_t ecause;
    bool interrupt;
    bool thaddr;
    uint64_t tval;
    /* formats 1, 2, 3.0 and 3.1 */
    uint64_t address;
    /* format 1 */
    uint8_t branches;
    uint32_t branch_map;
    /* formats 1 and 2 (0.0 and 0.1: irreport and irdepth) */
    bool notify;
    bool updiscon;
    bool irreport;
    uint8_t irdepth;
    /* format 3.3; ioptions: ETRACE_IOPT_* */
    bool ienable;
    uint8_t encoder_mode;
    uint8_t qual_status;
    uint8_t ioptions;
    bool denable;
    bool dloss;
    uint8_t doptions;
    /*
     * format 3.3 in 2.1: iret_ext, and the parameters a decoder needs
     * (time_width is the time field's width in units of 16 bits)
     */
    bool iret_ext;
    uint8_t time_width;
    uint8_t f0s_width;
    uint8_t return_stack_size;
    uint8_t call_counter_size;
    uint8_t bpred_size;
    uint8_t cache_size;
    /*
     * Not a payload field: when the packet was made, for the
     * Encapsulation timestamp (a clock value to the encoder, the
     * timestamp field to a decoder)
     */
    uint64_t time;
} ETraceTeInst;

/* A packet being built, LSB first: bit i is bit i % 64 of w[i / 64]. */
#define ETRACE_BITS_MAX             256
typedef struct ETraceBits {
    uint64_t w[ETRACE_BITS_MAX / 64];
    unsigned len;
} ETraceBits;

/**
 * etrace_bits_put: append a field to a packet being built
 * @b: the packet, zero past @b->len
 * @value: the field; only its low @width bits are taken
 * @width: its width, at most 64; the packet stays within ETRACE_BITS_MAX
 */
static inline void etrace_bits_put(ETraceBits *b, uint64_t value,
                                   unsigned width)
{
    unsigned word = b->len / 64, off = b->len % 64;

    if (width < 64) {
        value &= (UINT64_C(1) << width) - 1;
    }
    b->w[word] |= value << off;
    if (off && off + width > 64) {
        b->w[word + 1] |= value >> (64 - off);
    }
    b->len += width;
}

/**
 * etrace_bits_get: read a field of a payload
 * @b: the payload, from etrace_bits_load()
 * @pos: the field's first bit; advanced past it
 * @width: its width, at most 64
 *
 * Bits past the payload repeat its last bit (sign-based compression).
 */
static inline uint64_t etrace_bits_get(const ETraceBits *b, unsigned *pos,
                                       unsigned width)
{
    unsigned at = *pos, word = at / 64, off = at % 64;
    uint64_t sign = b->w[ARRAY_SIZE(b->w) - 1] >> 63 ? UINT64_MAX : 0;
    uint64_t v;

    *pos += width;
    if (word >= ARRAY_SIZE(b->w)) {
        v = sign;
    } else {
        v = b->w[word] >> off;
        if (off) {
            v |= (word + 1 < ARRAY_SIZE(b->w) ? b->w[word + 1] : sign)
                 << (64 - off);
        }
    }
    return width < 64 ? v & ((UINT64_C(1) << width) - 1) : v;
}

/**
 * etrace_bits_load: a payload, sign-extended to the whole of @b
 * @b: output
 * @data: the payload bytes
 * @len: their number, at least 1 and at most ETRACE_BITS_MAX / 8
 */
void etrace_bits_load(ETraceBits *b, const uint8_t *data, unsigned len);

/**
 * etrace_bits_sign_fill: fill the bits of @b past @b->len with copies of
 * its last bit, as etrace_compressed_bits() expects
 * @b: a packet of at least one bit
 */
void etrace_bits_sign_fill(ETraceBits *b);

/**
 * etrace_bits_prefix: put a field before every field of a packet
 * @b: a packet from a packer (sign-filled past @b->len), shorter than
 *     ETRACE_BITS_MAX - @width
 * @value: the field
 * @width: its width, 1 to 8
 *
 * The Encapsulation's type field, the first of the payload, is put so
 * before a packet when a source has several packet types.
 */
void etrace_bits_prefix(ETraceBits *b, unsigned value, unsigned width);

/**
 * etrace_map_bits: length of the branch map of a format 1 packet
 * @branches: its branches field
 *
 * Returns 31 for 0 (a full map, no address), else the smallest of
 * 1, 3, 7, 15, 31 that holds @branches outcomes.
 */
unsigned etrace_map_bits(unsigned branches);

/**
 * etrace_set_status_bits: encode notify, updiscon, irreport and irdepth
 * @t: a format 1, 2 or 0.0 packet whose @address is set
 * @p: parameters
 * @notify, @updiscon, @irreport: the conditions (true = signalled)
 * @irdepth: with @irreport, the return stack depth to report
 *
 * Each bit is sent as the one before it (the address MSB for notify)
 * inverted when its condition holds (payload.adoc, sec:updiscon), so
 * that it normally compresses away; irdepth is all copies of irreport
 * unless @irreport.
 */
void etrace_set_status_bits(ETraceTeInst *t, const ETraceParams *p,
                            bool notify, bool updiscon, bool irreport,
                            unsigned irdepth);

/**
 * etrace_set_irdepth: irreport and irdepth after the bit @before
 * @t: the packet
 * @p: parameters
 * @before: the bit sent before irreport
 * @irreport: a return stack depth is reported
 * @irdepth: with @irreport, the depth
 */
void etrace_set_irdepth(ETraceTeInst *t, const ETraceParams *p, bool before,
                        bool irreport, unsigned irdepth);

/**
 * etrace_te_inst_pack: lay out a te_inst packet, uncompressed
 * @b: output; its unused bits are copies of the last field's top bit
 * @p: parameters
 * @t: the packet (formats 1, 2 and 3 subformats 0, 1 and 3)
 */
void etrace_te_inst_pack(ETraceBits *b, const ETraceParams *p,
                         const ETraceTeInst *t);

/**
 * etrace_compressed_bits: length of a packet after sign compression
 * @b: a packet from etrace_te_inst_pack()
 *
 * The top bits that repeat the most significant bit are dropped, one
 * copy of it is kept (payload.adoc, "sign-based compression").
 */
unsigned etrace_compressed_bits(const ETraceBits *b);

/**
 * etrace_te_inst_unpack: read a te_inst payload
 * @t: output
 * @p: parameters
 * @payload: the payload bytes; bits past the end repeat its last bit
 * @len: number of bytes
 *
 * Returns false when the packet is not one this file can read (format 0,
 * subformat 2, empty payload).
 */
bool etrace_te_inst_unpack(ETraceTeInst *t, const ETraceParams *p,
                           const uint8_t *payload, unsigned len);

/**
 * ETraceEncap: how a source frames its packets
 * @flow: the header's flow field (0..3)
 * @srcid_bits: width of the srcID field, 0 when it is not sent
 * @srcid: its value
 * @timestamp_bytes: T, the width of the timestamp field, when packets
 *                   carry one (header.extend = 1), else 0
 * @type_bits: the width of the payload's type field (e-trace-specifics.adoc
 *             of the Encapsulation spec): 0 for a source of te_inst
 *             packets only, 1 with data trace (0 te_inst, 1 te_data);
 *             the packer puts it (etrace_bits_prefix())
 */
typedef struct ETraceEncap {
    uint8_t flow;
    uint8_t type_bits;
    uint8_t srcid_bits;
    uint16_t srcid;
    uint8_t timestamp_bytes;
} ETraceEncap;

/**
 * etrace_encap: compress and frame one packet
 * @out: ETRACE_ENCAP_MAX_BYTES bytes
 * @e: framing
 * @b: the packet from etrace_te_inst_pack()
 * @timestamp: the timestamp field, when @e sends one
 *
 * Writes header, the srcID's whole bytes, the timestamp (LSB first) and
 * the payload; srcID bits beyond its whole bytes share a byte with the
 * start of the payload (encapsulation.adoc, "Packet Length").  Returns
 * the number of bytes written.
 */
unsigned etrace_encap(uint8_t *out, const ETraceEncap *e,
                      const ETraceBits *b, uint64_t timestamp);

/**
 * etrace_encap_sync_len: length of a synchronisation sequence
 * @srcid_bits: width of the srcID field in the stream
 * @timestamp_bytes: T, the width of the timestamp field in the system
 *
 * N = 31 + T + S null.idle bytes then one null.alignment
 * (encapsulation.adoc, "Synchronization").
 */
static inline unsigned etrace_encap_sync_len(unsigned srcid_bits,
                                             unsigned timestamp_bytes)
{
    return 31 + timestamp_bytes + srcid_bits / 8 + 1;
}

#endif
