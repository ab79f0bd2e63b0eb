/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the calls of every source as Chrome Trace Event JSON
 * (the JSON Object Format of the Trace Event Format), which Perfetto's UI,
 * speedscope and chrome://tracing open: a thread per source ("hart N"),
 * a duration event per frame (B when it is entered, E when it is left),
 * instant events for traps, privilege changes and gaps.  Written as the
 * decoder goes: memory stays bounded whatever the length of the trace.
 */

#include "qemu/osdep.h"
#include "chrome.h"

static const char *const priv_names[8] = {
    "U", "S", "2", "M", "D", "VU", "VS", "7"
};

static void ch_flush(EtdChrome *ch)
{
    if (ch->len && fwrite(ch->buf, 1, ch->len, ch->out) != ch->len) {
        fprintf(stderr, "etrace-decode: error ETD_ERR_IO: write error: %s\n",
                g_strerror(errno));
        exit(2);
    }
    ch->len = 0;
}

/* Room for @n more bytes in the buffer. */
static inline char *ch_room(EtdChrome *ch, size_t n)
{
    if (ch->len + n > sizeof(ch->buf)) {
        ch_flush(ch);
    }
    return ch->buf + ch->len;
}

static inline void ch_put(EtdChrome *ch, const char *s, size_t n)
{
    if (n > sizeof(ch->buf)) {
        ch_flush(ch);
        fwrite(s, 1, n, ch->out);
        return;
    }
    memcpy(ch_room(ch, n), s, n);
    ch->len += n;
}

#define CH_PUT(ch, lit) ch_put(ch, lit, sizeof(lit) - 1)

static inline void ch_u64(EtdChrome *ch, uint64_t v)
{
    char tmp[20], *p = ch_room(ch, sizeof(tmp));
    int n = 0;

    do {
        tmp[n++] = '0' + v % 10;
        v /= 10;
    } while (v);
    while (n) {
        *p++ = tmp[--n];
    }
    ch->len = p - ch->buf;
}

/* @s as a JSON string's contents, into a new string. */
static char *json_escaped(const char *s)
{
    GString *out = g_string_new(NULL);

    for (; *s; s++) {
        if (*s == '"' || *s == '\\') {
            g_string_append_c(out, '\\');
            g_string_append_c(out, *s);
        } else if ((unsigned char)*s < 0x20) {
            g_string_append_printf(out, "\\u%04x", *s);
        } else {
            g_string_append_c(out, *s);
        }
    }
    return g_string_free(out, false);
}

static void event_start(EtdChrome *ch)
{
    if (ch->events++) {
        CH_PUT(ch, ",\n");
    } else {
        CH_PUT(ch, "\n");
    }
}

void etd_chrome_begin(EtdChrome *ch, FILE *out, bool timed)
{
    memset(ch, 0, sizeof(*ch));
    ch->out = out;
    fprintf(out, "{\"displayTimeUnit\": \"ns\", \"otherData\": "
            "{\"producer\": \"etrace-decode\", \"clock\": \"%s\"},\n"
            "\"traceEvents\": [",
            timed ? "E-Trace timestamps, one unit per microsecond" :
                    "retired instructions, one per microsecond");
}

void etd_chrome_flush(EtdChrome *ch)
{
    ch_flush(ch);
    fflush(ch->out);
}

void etd_chrome_end(EtdChrome *ch)
{
    CH_PUT(ch, "\n]}\n");
    ch_flush(ch);
    fflush(ch->out);
}

/* The thread of a source, named when it first has an event. */
static void thread(EtdChrome *ch, unsigned src)
{
    if (likely(ch->named[src / 64] >> (src % 64) & 1)) {
        return;
    }
    ch->named[src / 64] |= UINT64_C(1) << (src % 64);
    event_start(ch);
    CH_PUT(ch, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,"
           "\"tid\":");
    ch_u64(ch, src);
    CH_PUT(ch, ",\"args\":{\"name\":\"hart ");
    ch_u64(ch, src);
    CH_PUT(ch, "\"}}");
}

/* The end of an event: ts, pid, tid. */
static inline void ch_when(EtdChrome *ch, unsigned src, uint64_t time)
{
    CH_PUT(ch, "\"ts\":");
    ch_u64(ch, time);
    CH_PUT(ch, ",\"pid\":0,\"tid\":");
    ch_u64(ch, src);
}

static void chrome_enter(void *opaque, unsigned src, EtdCallNode *n,
                         EtdEnter how, uint64_t time)
{
    static const char *const hows[] = {
        [ETD_ENTER_ROOT] = "root", [ETD_ENTER_CALL] = "call",
        [ETD_ENTER_TAIL] = "tail call", [ETD_ENTER_TRAP] = "trap",
    };
    EtdChrome *ch = opaque;
    const char *p;

    if (unlikely(!n->json)) {
        n->json = json_escaped(etd_calls_label(ch->calls[src], n));
    }
    thread(ch, src);
    event_start(ch);
    CH_PUT(ch, "{\"ph\":\"B\",\"name\":\"");
    ch_put(ch, n->json, strlen(n->json));
    CH_PUT(ch, "\",\"cat\":\"");
    ch_put(ch, hows[how], strlen(hows[how]));
    CH_PUT(ch, "\",");
    ch_when(ch, src, time);
    CH_PUT(ch, ",\"args\":{\"priv\":\"");
    p = priv_names[n->priv & 7];
    ch_put(ch, p, strlen(p));
    CH_PUT(ch, "\"}}");
}

static void chrome_leave(void *opaque, unsigned src, EtdCallNode *n,
                         uint64_t time)
{
    EtdChrome *ch = opaque;

    event_start(ch);
    CH_PUT(ch, "{\"ph\":\"E\",");
    ch_when(ch, src, time);
    CH_PUT(ch, "}");
}

static void instant(EtdChrome *ch, unsigned src, const char *cat,
                    const char *name, uint64_t time)
{
    g_autofree char *escaped = json_escaped(name);

    thread(ch, src);
    event_start(ch);
    CH_PUT(ch, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"");
    ch_put(ch, cat, strlen(cat));
    CH_PUT(ch, "\",\"name\":\"");
    ch_put(ch, escaped, strlen(escaped));
    CH_PUT(ch, "\",");
    ch_when(ch, src, time);
    CH_PUT(ch, "}");
}

static void chrome_trap(void *opaque, unsigned src, bool interrupt,
                        unsigned cause, uint64_t epc, uint64_t time)
{
    char name[64];

    snprintf(name, sizeof(name), "%s %u", interrupt ? "interrupt" :
             "exception", cause);
    instant(opaque, src, "trap", name, time);
}

static void chrome_priv(void *opaque, unsigned src, uint8_t from,
                        uint8_t to, uint64_t time)
{
    char name[32];

    snprintf(name, sizeof(name), "%s -> %s", priv_names[from & 7],
             priv_names[to & 7]);
    instant(opaque, src, "privilege", name, time);
}

static void chrome_gap(void *opaque, unsigned src, const char *why,
                       uint64_t time)
{
    g_autofree char *name = g_strdup_printf("gap: %s", why);

    instant(opaque, src, "gap", name, time);
}

void etd_chrome_sink(EtdChrome *ch, EtdCallSink *sink)
{
    *sink = (EtdCallSink) {
        .enter = chrome_enter, .leave = chrome_leave, .trap = chrome_trap,
        .priv = chrome_priv, .gap = chrome_gap, .opaque = ch,
    };
}
