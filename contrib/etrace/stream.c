/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the Encapsulation 1.0 stream (encapsulation.adoc).
 *
 * Packets are a header byte (payload length in bits 4:0, flow in 6:5,
 * extend in 7), the srcID (whole bytes, then its remaining bits at the
 * bottom of the payload's first byte, as the encoder writes them), with
 * extend a timestamp (T bytes, LSB first, after the srcID's whole bytes)
 * and the te_inst payload; 0x00 is null.idle and 0x80 null.alignment.  A stream
 * joined late, or one with a framing error, is read again from the next
 * synchronisation sequence.
 */

#include "qemu/osdep.h"
#include "etrace-decode.h"

EtdDecoder *etd_stream_decoder(EtdStream *m, unsigned src)
{
    if (!m->dec[src]) {
        m->dec[src] = g_new(EtdDecoder, 1);
        etd_decoder_init(m->dec[src], m->img, m->sink, &m->params, src);
        m->dec[src]->dparams = m->dparams;
        if (m->code) {
            etd_decoder_set_code(m->dec[src], etd_code_source(m->code, src));
        }
        if (m->ctx_imgs) {
            etd_decoder_set_contexts(m->dec[src], m->ctx_imgs);
        }
    }
    return m->dec[src];
}

/* An error at byte @at, of source @src (-1: of none). */
static void stream_error(EtdStream *m, uint64_t at, int src, EtdError code,
                         const char *msg)
{
    m->errors++;
    if (m->error) {
        m->error(m->opaque, at, src, code, msg);
    }
}

/*
 * The payload's type field (@bits wide, at most 8): taken off the front
 * of @payload (@len bytes; the bits past its end repeat its last bit).
 */
static unsigned take_type(uint8_t *payload, unsigned len, unsigned bits)
{
    unsigned type = payload[0] & ((1u << bits) - 1);
    unsigned i;

    for (i = 0; i < len; i++) {
        uint8_t next = i + 1 < len ? payload[i + 1] :
                       (payload[i] & 0x80 ? 0xff : 0);

        payload[i] = payload[i] >> bits | (uint8_t)(next << (8 - bits));
    }
    return type;
}

/*
 * One framed packet at @p (@len bytes available).  Returns the bytes it
 * takes, 0 when more input is needed, or -1 on a framing error.
 */
static int take_packet(EtdStream *m, const uint8_t *p, size_t len)
{
    unsigned whole = m->srcid_bits / 8, shift = m->srcid_bits % 8;
    bool timed = p[0] & 0x80;
    unsigned tsb = timed ? m->timestamp_bytes : 0;
    unsigned length = p[0] & 0x1f, total = 1 + whole + tsb + length;
    uint8_t payload[ETRACE_PAYLOAD_MAX_BYTES];
    unsigned src = 0, i;
    uint64_t time = 0;
    ETraceTeInst t;
    g_autoptr(GError) err = NULL;

    if (p[0] == ETRACE_ENCAP_NULL_IDLE || p[0] == ETRACE_ENCAP_NULL_ALIGN) {
        m->nulls++;
        return 1;
    }
    if (!length) {
        stream_error(m, m->offset, -1, ETD_ERR_NULL_FLOW,
                     "null packet with a flow field");
        return -1;
    }
    if (timed && !tsb) {
        stream_error(m, m->offset, -1, ETD_ERR_TIMESTAMP,
                     "packet with a timestamp (extend = 1), but "
                     "timestamp_bytes is 0");
        return -1;
    }
    if (len < total) {
        return 0;
    }
    for (i = 0; i < whole; i++) {
        src |= (unsigned)p[1 + i] << (8 * i);
    }
    for (i = 0; i < tsb; i++) {
        time |= (uint64_t)p[1 + whole + i] << (8 * i);
    }
    if (shift) {
        const uint8_t *q = p + 1 + whole + tsb;

        /*
         * The payload is whole bytes after the srcID's last @shift bits;
         * the top 8 - @shift bits of the last byte are padding, "don't
         * care" (encapsulation.adoc, "Packet length").
         */
        src |= (q[0] & ((1u << shift) - 1)) << (8 * whole);
        if (length < 2) {
            stream_error(m, m->offset, src, ETD_ERR_UNKNOWN_PACKET,
                         "a packet with no payload byte after its srcID");
            m->bytes += total;
            return total;
        }
        for (i = 0; i + 1 < length; i++) {
            payload[i] = (q[i] >> shift) | (uint8_t)(q[i + 1] << (8 - shift));
        }
        length--;
    } else {
        memcpy(payload, p + 1 + whole + tsb, length);
    }
    m->bytes += total;
    if (m->only_src >= 0 && src != (unsigned)m->only_src) {
        return total;
    }
    if (m->type_bits &&
        take_type(payload, length, m->type_bits) == ETD_TYPE_DATA) {
        EtdDecoder *d = etd_stream_decoder(m, src);

        m->data_bytes += total;
        d->data_bytes += total;
        if (!etd_data_packet(d, payload, length, timed, time, &err)) {
            stream_error(m, m->offset, src, err->code, err->message);
        }
        return total;
    }
    /* In 2.1 the parameters of a source come with its support packets. */
    if (!etrace_te_inst_unpack(&t, &etd_stream_decoder(m, src)->params,
                               payload, length)) {
        g_autofree char *msg =
            g_strdup_printf("a packet this decoder cannot read (format %u)",
                            payload[0] & 3);
        stream_error(m, m->offset, src, ETD_ERR_UNKNOWN_PACKET, msg);
        return total;
    }
    t.time = time;
    etd_data_te_inst(etd_stream_decoder(m, src), &t);
    if (!etd_decoder_packet(etd_stream_decoder(m, src), &t, timed, &err)) {
        g_autofree char *msg = g_strdup_printf("%s; waiting for the next "
                                               "synchronisation",
                                               err->message);

        assert(err->domain == ETD_ERROR);
        stream_error(m, m->offset, src, err->code, msg);
        if (m->sink->gap) {
            m->sink->gap(m->sink->opaque, src, "decoding error");
        }
    }
    return total;
}

/*
 * Consume what can be of @buf; returns the bytes used.  Out of alignment,
 * bytes are passed over up to a sync sequence: at least 31 + T + S
 * null.idle bytes and a null.alignment (encapsulation.adoc,
 * "Synchronization").
 */
size_t etd_stream_feed(EtdStream *m, const uint8_t *buf, size_t len)
{
    size_t at = 0;

    while (at < len) {
        int n;

        if (!m->aligned) {
            uint8_t c = buf[at++];

            m->offset++;
            m->skipped++;
            if (c == ETRACE_ENCAP_NULL_ALIGN &&
                m->zeros >= 31 + m->timestamp_bytes + m->srcid_bits / 8) {
                m->aligned = true;
            }
            m->zeros = c == ETRACE_ENCAP_NULL_IDLE ? m->zeros + 1 : 0;
            continue;
        }
        n = take_packet(m, buf + at, len - at);
        if (n == 0) {
            break;
        }
        if (n < 0) {
            m->aligned = false;
            m->zeros = 0;
            n = 1;
            m->skipped++;
        }
        at += n;
        m->offset += n;
    }
    return at;
}


void etd_stream_init(EtdStream *m, EtdImage *img, const EtdSink *sink,
                     const ETraceParams *p, unsigned srcid_bits,
                     unsigned timestamp_bytes, bool join)
{
    memset(m, 0, sizeof(*m));
    m->img = img;
    m->sink = sink;
    m->params = *p;
    m->srcid_bits = srcid_bits;
    m->timestamp_bytes = timestamp_bytes;
    m->only_src = -1;
    m->aligned = !join;
}

void etd_stream_finish(EtdStream *m, size_t left)
{
    unsigned i;

    if (left) {
        stream_error(m, m->offset, -1, ETD_ERR_TRUNCATED,
                     "the stream ends inside a packet");
    }
    if (!m->aligned) {
        g_autofree char *msg =
            g_strdup_printf("the stream ends before a synchronisation "
                            "sequence (%" PRIu64 " bytes passed over in all)",
                            m->skipped);
        stream_error(m, m->offset, -1, ETD_ERR_NO_SYNC_SEQUENCE, msg);
    }
    for (i = 0; i < ETD_MAX_SOURCES; i++) {
        EtdDecoder *d = m->dec[i];
        uint64_t n;

        if (d && d->synced && !d->start_of_trace && m->sink->gap) {
            /*
             * The trace did not end with a support packet: the rest was
             * not recorded (a RAM sink stopped when full, a capture cut
             * short).
             */
            m->sink->gap(m->sink->opaque, i, ETD_GAP_CUT);
        }
        if (!d || d->synced) {
            continue;
        }
        /* Support packets alone: the source traced nothing. */
        n = d->packets[0] + d->packets[1] + d->packets[2];
        if (n) {
            g_autofree char *msg =
                g_strdup_printf("%" PRIu64 " packets of formats 0 to 2 and "
                                "no synchronisation packet to start from",
                                n);
            stream_error(m, m->offset, i, ETD_ERR_NO_SYNC, msg);
        }
    }
}

void etd_stream_free(EtdStream *m)
{
    unsigned i;

    for (i = 0; i < ETD_MAX_SOURCES; i++) {
        if (m->dec[i]) {
            etd_decoder_free(m->dec[i]);
        }
        g_free(m->dec[i]);
        m->dec[i] = NULL;
    }
}
