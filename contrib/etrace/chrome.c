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

/* @s as a JSON string's contents. */
static void put_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') {
            fputc('\\', out);
            fputc(*s, out);
        } else if ((unsigned char)*s < 0x20) {
            fprintf(out, "\\u%04x", *s);
        } else {
            fputc(*s, out);
        }
    }
}

static void event_start(EtdChrome *ch)
{
    fputs(ch->events ? ",\n" : "\n", ch->out);
    ch->events++;
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

void etd_chrome_end(EtdChrome *ch)
{
    fputs("\n]}\n", ch->out);
}

/* The thread of a source, named when it first has an event. */
static void thread(EtdChrome *ch, unsigned src)
{
    if (ch->named[src / 64] >> (src % 64) & 1) {
        return;
    }
    ch->named[src / 64] |= UINT64_C(1) << (src % 64);
    event_start(ch);
    fprintf(ch->out, "{\"ph\": \"M\", \"name\": \"thread_name\", "
            "\"pid\": 0, \"tid\": %u, \"args\": {\"name\": \"hart %u\"}}",
            src, src);
}

static void chrome_enter(void *opaque, unsigned src, const EtdCallNode *n,
                         EtdEnter how, uint64_t time)
{
    static const char *const hows[] = {
        [ETD_ENTER_ROOT] = "root", [ETD_ENTER_CALL] = "call",
        [ETD_ENTER_TAIL] = "tail call", [ETD_ENTER_TRAP] = "trap",
    };
    EtdChrome *ch = opaque;
    char name[256];

    thread(ch, src);
    event_start(ch);
    fputs("{\"ph\": \"B\", \"name\": \"", ch->out);
    put_escaped(ch->out, etd_calls_name(ch->calls[src], n, name,
                                        sizeof(name)));
    fprintf(ch->out, "\", \"cat\": \"%s\", \"ts\": %" PRIu64 ", \"pid\": 0, "
            "\"tid\": %u, \"args\": {\"priv\": \"%s\"}}", hows[how], time, src,
            priv_names[n->priv & 7]);
}

static void chrome_leave(void *opaque, unsigned src, const EtdCallNode *n,
                         uint64_t time)
{
    EtdChrome *ch = opaque;

    event_start(ch);
    fprintf(ch->out, "{\"ph\": \"E\", \"ts\": %" PRIu64 ", \"pid\": 0, "
            "\"tid\": %u}", time, src);
}

static void instant(EtdChrome *ch, unsigned src, const char *cat,
                    const char *name, uint64_t time)
{
    thread(ch, src);
    event_start(ch);
    fprintf(ch->out, "{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"%s\", "
            "\"name\": \"", cat);
    put_escaped(ch->out, name);
    fprintf(ch->out, "\", \"ts\": %" PRIu64 ", \"pid\": 0, \"tid\": %u}",
            time, src);
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
