/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * etrace-decode: decode the E-Trace 2.0 stream of QEMU's RISC-V trace
 * encoder (Encapsulation 1.0, as a PIB sink writes it to a chardev).
 *
 * Usage: etrace-decode [OPTIONS] --elf FILE[@OFFSET]... [STREAM|-]
 * See docs/system/riscv/trace.rst, "Decoding the trace".
 *
 * Errors go to standard error as "etrace-decode: [byte OFFSET: ]
 * [srcID ID: ]error CODE: MESSAGE", CODE the name of an EtdError.
 */

#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "qemu/bitops.h"
#include "hw/riscv/etrace-enc.h"
#include "etrace-decode.h"
#include "calls.h"
#include "chrome.h"
#include "uftrace.h"
#include "callgrind.h"
#include "coverage.h"
#include "lines.h"

typedef enum EtdOutput {
    ETD_OUT_ADDRS,
    ETD_OUT_FLOW,
    ETD_OUT_STATS,
    ETD_OUT_DATA,
    ETD_OUT_FOLDED,
    ETD_OUT_CHROME,
    ETD_OUT_UFTRACE,
    ETD_OUT_CALLGRIND,
    ETD_OUT_LCOV,
    ETD_OUT_COVERAGE,
} EtdOutput;

/* --output's names of EtdOutput. */
static const char *const output_names[] = {
    [ETD_OUT_ADDRS] = "addrs", [ETD_OUT_FLOW] = "flow",
    [ETD_OUT_STATS] = "stats", [ETD_OUT_DATA] = "data",
    [ETD_OUT_FOLDED] = "folded", [ETD_OUT_CHROME] = "chrome",
    [ETD_OUT_UFTRACE] = "uftrace", [ETD_OUT_CALLGRIND] = "callgrind",
    [ETD_OUT_LCOV] = "lcov", [ETD_OUT_COVERAGE] = "coverage",
};

/* The outputs made of calls and returns (calls.h). */
static inline bool calls_output(EtdOutput o)
{
    return o == ETD_OUT_FOLDED || o == ETD_OUT_CHROME ||
           o == ETD_OUT_UFTRACE || o == ETD_OUT_CALLGRIND;
}

/* The outputs of what retired where (coverage.h). */
static inline bool cover_output(EtdOutput o)
{
    return o == ETD_OUT_LCOV || o == ETD_OUT_COVERAGE;
}

/*
 * With --priv, per source: the instructions of other privileges are left
 * out.  A trap waits for the next instruction: reported if it is kept,
 * left out with the section of other privileges it starts if not (its
 * handler is of another privilege, or code no image holds).  The flow
 * that comes back to a kept privilege where the trap was taken (its EPC
 * or the instruction after) goes on as if the section had not been; back
 * elsewhere (another process, a signal handler), it is a gap.
 */
typedef struct EtdPrivState {
    bool hidden;                /* in a section of other privileges */
    bool resume_known;          /* ... that a trap from kept code began */
    bool gapped;                /* ... and a gap came since */
    uint64_t resume;            /* ... at this EPC */
    bool trap;                  /* a trap waits for the next instruction */
    bool interrupt;
    unsigned cause;
    uint64_t epc, tval;
} EtdPrivState;

#define ETD_GAP_PRIV "instructions of privileges --priv leaves out"

typedef struct EtdMain {
    EtdImage *img;
    EtdStream stream;
    EtdOutput output;
    bool all_sources;
    bool quiet;                 /* no warnings */
    EtdSink sink;
    /* with --data: accesses tied to instructions, per source */
    EtdTie *tie[ETD_MAX_SOURCES];
    /* --data-untied: accesses in stream order, none tied; how many */
    bool untied;
    uint64_t untied_accesses;
    /* calls and returns, per source; the clock is timestamps */
    EtdCalls *calls[ETD_MAX_SOURCES];
    bool timed;
    EtdCallSink call_sink;
    EtdChrome chrome;
    EtdUftrace uftrace;
    EtdCover *cover;
    EtdLines *lines;            /* --output=callgrind: by source line */
    /* --priv: the privileges kept (bit per E-Trace code), 0: all */
    unsigned priv_mask;
    EtdPrivState *priv_state[ETD_MAX_SOURCES];
    /* --range: the [lo, hi) address ranges addrs and flow keep, pairs */
    uint64_t *ranges;
    unsigned nranges;
    /*
     * --start, --stop: addrs and flow print a source's instructions from
     * the first at @win_start on (any, without --start), up to the next
     * at @win_stop, and with @win_every each later one too; per source,
     * ETD_WIN_*
     */
    bool win;
    bool win_every;
    uint64_t win_start, win_stop;
    bool win_has_start, win_has_stop;
    uint8_t win_state[ETD_MAX_SOURCES];
    FILE *out;
    bool live;                  /* the stream is not a regular file */
    char obuf[1 << 16];
    size_t olen;
} EtdMain;

/* An error not of the stream: "etrace-decode: error CODE: MESSAGE". */
static void G_GNUC_PRINTF(2, 3) print_error(EtdError code, const char *fmt,
                                            ...)
{
    g_autofree char *msg = NULL;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    fprintf(stderr, "etrace-decode: error %s: %s\n", etd_error_name(code),
            msg);
}

static void out_flush(EtdMain *m)
{
    if (m->olen && fwrite(m->obuf, 1, m->olen, m->out) != m->olen) {
        print_error(ETD_ERR_IO, "write error: %s", g_strerror(errno));
        exit(1);
    }
    m->olen = 0;
}

static inline void out_addr(EtdMain *m, unsigned src, uint64_t pc)
{
    static const char hex[] = "0123456789abcdef";
    char *p;
    int i, n;

    if (m->olen + 48 > sizeof(m->obuf)) {
        out_flush(m);
    }
    p = m->obuf + m->olen;
    if (m->all_sources) {
        p += sprintf(p, "%u ", src);
    }
    n = pc ? (64 - __builtin_clzll(pc) + 3) / 4 : 1;
    for (i = n - 1; i >= 0; i--) {
        *p++ = hex[(pc >> (4 * i)) & 15];
    }
    *p++ = '\n';
    m->olen = p - m->obuf;
}

/* --start, --stop: before the window, in it, after it. */
#define ETD_WIN_BEFORE  0
#define ETD_WIN_IN      1
#define ETD_WIN_AFTER   2

/* --start, --stop: the window of @src moves at the instruction at @pc. */
static inline void win_step(EtdMain *m, unsigned src, uint64_t pc)
{
    uint8_t *st = &m->win_state[src];

    if ((*st == ETD_WIN_BEFORE ||
         (*st == ETD_WIN_AFTER && m->win_every)) &&
        (!m->win_has_start || pc == m->win_start)) {
        *st = ETD_WIN_IN;
    }
    if (*st == ETD_WIN_IN && m->win_has_stop && pc == m->win_stop) {
        *st = ETD_WIN_AFTER;
    }
}

/* Whether the flow's other lines of @src are printed (--start, --stop). */
static inline bool win_open(const EtdMain *m, unsigned src)
{
    return !m->win || m->win_state[src] == ETD_WIN_IN;
}

static const char *priv_name(uint8_t priv)
{
    static const char *const names[8] = {
        "U", "S", "2", "M", "D", "VU", "VS", "7"
    };

    return names[priv & 7];
}

static void out_flow(EtdMain *m, unsigned src, uint64_t pc, uint8_t priv)
{
    /* The symbols of the context's image first, when it has its own. */
    EtdImage *img = m->stream.ctx_imgs ?
        etd_decoder_image(etd_stream_decoder(&m->stream, src), priv) : m->img;
    char sym[256];

    if (m->olen + 320 > sizeof(m->obuf)) {
        out_flush(m);
    }
    m->olen += snprintf(m->obuf + m->olen, sizeof(m->obuf) - m->olen,
                        "%u %-2s %" PRIx64 " %s\n", src, priv_name(priv),
                        pc, etd_image_symbolize(img, pc, sym, sizeof(sym)));
}

/* "SRC context CTX": the instructions after it are of context CTX. */
static void sink_context(void *opaque, unsigned src, uint32_t ctx)
{
    EtdMain *m = opaque;

    if (m->output != ETD_OUT_FLOW || !win_open(m, src)) {
        return;
    }
    if (m->olen + 64 > sizeof(m->obuf)) {
        out_flush(m);
    }
    m->olen += snprintf(m->obuf + m->olen, 64, "%u context %" PRIx32 "\n",
                        src, ctx);
}

/* A value of 2^@size bytes in hex, @hi its bytes 8 to 15. */
static int out_value(char *p, unsigned size, uint64_t lo, uint64_t hi)
{
    if (size > 3 && hi) {
        return sprintf(p, "%" PRIx64 "%016" PRIx64, hi, lo);
    }
    return sprintf(p, "%" PRIx64, lo);
}

/*
 * "SRC data TYPE BYTES [addr=A] [value=V] [operand=O] [mma] insn=PC": an
 * access and its instruction (? for none), the fields the packet has, in
 * hex.
 */
static void out_access(void *opaque, unsigned src, uint64_t pc,
                       const ETraceDataAccess *a, unsigned has)
{
    EtdMain *m = opaque;
    char *p;

    if (m->output != ETD_OUT_FLOW && m->output != ETD_OUT_DATA) {
        return;
    }
    if (m->olen + 160 > sizeof(m->obuf)) {
        out_flush(m);
    }
    p = m->obuf + m->olen;
    p += sprintf(p, "%u data %s %u", src, etd_dtype_name(a->dtype),
                 1u << a->size);
    if (has & ETRACE_DHAS_ADDR) {
        p += sprintf(p, " addr=%" PRIx64, a->addr);
    }
    if (has & ETRACE_DHAS_DATA) {
        p += sprintf(p, " value=");
        p += out_value(p, a->size, a->data, a->data_hi);
    }
    if (has & ETRACE_DHAS_OPERAND) {
        p += sprintf(p, " operand=");
        p += out_value(p, a->size, a->operand, a->operand_hi);
    }
    if (a->mma) {
        p += sprintf(p, " mma");
    }
    p += pc == ETD_NO_PC ? sprintf(p, " insn=?\n") :
                           sprintf(p, " insn=%" PRIx64 "\n", pc);
    m->olen = p - m->obuf;
}

static EtdTie *tie_of(EtdMain *m, unsigned src)
{
    if (!m->tie[src]) {
        m->tie[src] = g_new(EtdTie, 1);
        etd_tie_init(m->tie[src], m->img, m->stream.dparams.mmacas, src,
                     out_access, m);
    }
    return m->tie[src];
}

/* The tie of @src, reading the code as the decoder does in @priv. */
static EtdTie *tie_in(EtdMain *m, unsigned src, uint8_t priv)
{
    EtdTie *t = tie_of(m, src);

    if (m->stream.code || m->stream.ctx_imgs) {
        t->img = etd_decoder_image(etd_stream_decoder(&m->stream, src),
                                   priv);
    }
    return t;
}

static EtdCalls *calls_of(EtdMain *m, unsigned src)
{
    if (!m->calls[src]) {
        m->calls[src] = g_new(EtdCalls, 1);
        etd_calls_init(m->calls[src], m->img, src, m->timed,
                       m->call_sink.opaque ? &m->call_sink : NULL);
        if (m->lines) {
            etd_calls_by_insn(m->calls[src]);
        }
    }
    return m->calls[src];
}

/* The block of an instruction retired alone at @pc, and its index. */
static const EtdBlock *insn_block(EtdMain *m, unsigned src, uint64_t pc,
                                  uint8_t priv, unsigned *idx)
{
    EtdDecoder *d = etd_stream_decoder(&m->stream, src);
    const EtdBlock *b = d->blk;

    *idx = d->idx;
    if (!b || *idx >= b->count || etd_block_insn_addr(b, *idx) != pc) {
        b = etd_image_block(etd_decoder_image(d, priv), pc);
        *idx = 0;
    }
    return b;
}

/* --range: whether @lo..@hi (inclusive) meets a range kept. */
static bool in_ranges(const EtdMain *m, uint64_t lo, uint64_t hi)
{
    unsigned k;

    for (k = 0; k < m->nranges; k++) {
        if (lo < m->ranges[2 * k + 1] && hi >= m->ranges[2 * k]) {
            return true;
        }
    }
    return false;
}

static void emit_insn(EtdMain *m, unsigned src, uint64_t pc, uint8_t priv)
{
    if (calls_output(m->output) || cover_output(m->output)) {
        unsigned idx;
        const EtdBlock *b = insn_block(m, src, pc, priv, &idx);

        if (m->cover) {
            etd_cover_run(m->cover, src, b, idx, 1);
        } else {
            etd_calls_run(calls_of(m, src), b, idx, 1, priv);
        }
        return;
    }

    if (unlikely(m->win)) {
        win_step(m, src, pc);
    }
    if ((unlikely(m->nranges) && !in_ranges(m, pc, pc)) ||
        !win_open(m, src)) {
        /* not printed */
    } else if (m->output == ETD_OUT_ADDRS) {
        out_addr(m, src, pc);
    } else if (m->output == ETD_OUT_FLOW) {
        out_flow(m, src, pc, priv);
    }
    if (unlikely(m->stream.type_bits) && !m->untied) {
        /* it makes the next accesses of its source */
        etd_tie_retired(tie_in(m, src, priv), pc);
    }
}

static bool priv_keep(EtdMain *m, unsigned src, uint64_t pc, uint8_t priv);

static void sink_insn(void *opaque, unsigned src, uint64_t pc, uint8_t priv)
{
    EtdMain *m = opaque;

    if (unlikely(m->priv_mask) && !priv_keep(m, src, pc, priv)) {
        return;
    }
    emit_insn(m, src, pc, priv);
}

static void sink_run(void *opaque, unsigned src, const EtdBlock *b,
                     unsigned from, unsigned n, uint8_t priv)
{
    EtdMain *m = opaque;
    uint64_t pc;
    unsigned i;

    if (unlikely(m->priv_mask) &&
        !priv_keep(m, src, etd_block_insn_addr(b, from), priv)) {
        return;
    }
    if (calls_output(m->output)) {
        etd_calls_run(calls_of(m, src), b, from, n, priv);
        return;
    }
    if (m->cover) {
        etd_cover_run(m->cover, src, b, from, n);
        return;
    }
    if (m->output == ETD_OUT_STATS || m->output == ETD_OUT_DATA) {
        /* only the accesses */
        if (unlikely(m->stream.type_bits) && !m->untied) {
            etd_tie_run(tie_in(m, src, priv), b, from, n);
        }
        return;
    }
    pc = etd_block_insn_addr(b, from);
    if (unlikely(m->nranges) && !m->stream.type_bits && !m->win &&
        !in_ranges(m, pc, etd_block_insn_addr(b, from + n - 1))) {
        /* --range: nothing of the run is printed */
        return;
    }
    if (unlikely(m->win) && !m->stream.type_bits && !m->win_every &&
        m->win_state[src] == ETD_WIN_AFTER) {
        /* --stop: the window was passed */
        return;
    }

    for (i = from; i < from + n; i++) {
        emit_insn(m, src, pc, priv);
        pc += etd_block_insn_size(b, i);
    }
}

static void emit_trap(EtdMain *m, unsigned src, bool interrupt,
                      unsigned cause, uint64_t epc, uint64_t tval)
{
    if (calls_output(m->output)) {
        etd_calls_trap(calls_of(m, src), interrupt, cause, epc);
        return;
    }
    if (m->cover) {
        etd_cover_trap(m->cover, src, epc);
        return;
    }
    if (m->output != ETD_OUT_FLOW || !win_open(m, src)) {
        return;
    }
    if (m->olen + 128 > sizeof(m->obuf)) {
        out_flush(m);
    }
    if (interrupt) {
        m->olen += sprintf(m->obuf + m->olen, "%u trap interrupt cause=%u\n",
                           src, cause);
    } else if (epc == ETD_EPC_UNKNOWN) {
        m->olen += sprintf(m->obuf + m->olen, "%u trap exception cause=%u "
                           "epc=? tval=%" PRIx64 "\n", src, cause, tval);
    } else {
        m->olen += sprintf(m->obuf + m->olen, "%u trap exception cause=%u "
                           "epc=%" PRIx64 " tval=%" PRIx64 "\n", src, cause,
                           epc, tval);
    }
}

/* Where the flow left the program images, on stderr. */
static void warn_left(EtdMain *m, unsigned src)
{
    EtdDecoder *d = etd_stream_decoder(&m->stream, src);
    g_autofree char *how = d->left_from == ETD_NO_PC ?
        g_strdup("the trace starts at") :
        g_strdup_printf("the flow from 0x%" PRIx64 " goes to", d->left_from);

    out_flush(m);
    fprintf(stderr, "etrace-decode: byte %" PRIu64 ": srcID %u: warning: %s "
            "0x%" PRIx64 ", outside the program images; a gap until a "
            "packet reports code in them\n", m->stream.offset, src, how,
            d->left_to);
}

static void emit_gap(EtdMain *m, unsigned src, const char *why)
{
    if (m->tie[src]) {
        etd_tie_gap(m->tie[src]);
    }
    if (calls_output(m->output)) {
        etd_calls_gap(calls_of(m, src), why);
        return;
    }
    if (m->cover) {
        etd_cover_gap(m->cover, src);
        return;
    }
    if (m->output != ETD_OUT_FLOW || !win_open(m, src)) {
        return;
    }
    if (m->olen + 128 > sizeof(m->obuf)) {
        out_flush(m);
    }
    m->olen += snprintf(m->obuf + m->olen, 128, "%u gap %s\n", src, why);
}

static EtdPrivState *priv_state(EtdMain *m, unsigned src)
{
    if (!m->priv_state[src]) {
        m->priv_state[src] = g_new0(EtdPrivState, 1);
    }
    return m->priv_state[src];
}

/*
 * The flow is in code of another privilege: from a waiting trap's
 * handler on (the section's resume is where that trap was taken), or
 * from wherever it left kept code without a trap.  The trap is not
 * reported.
 */
static void priv_hide(EtdPrivState *p)
{
    if (!p->hidden) {
        p->hidden = true;
        p->gapped = false;
        p->resume_known = p->trap && p->epc != ETD_EPC_UNKNOWN;
        p->resume = p->epc;
    }
    p->trap = false;
}

/* Kept code at @pc again: where the trap that left it was taken? */
static bool priv_resumes(EtdMain *m, const EtdPrivState *p, uint64_t pc)
{
    EtdInsn insn;

    return p->resume_known &&
           (pc == p->resume ||
            (etd_image_insn(m->img, p->resume, &insn) &&
             pc == p->resume + insn.size));
}

/* --priv: whether the instruction at @pc in @priv is kept (see above). */
static bool priv_keep(EtdMain *m, unsigned src, uint64_t pc, uint8_t priv)
{
    EtdPrivState *p = priv_state(m, src);

    if (!(m->priv_mask & (1u << (priv & 7)))) {
        priv_hide(p);
        return false;
    }
    if (p->hidden) {
        p->hidden = false;
        p->trap = false;
        /* (a gap inside the section was said already) */
        if (!p->gapped && !priv_resumes(m, p, pc)) {
            emit_gap(m, src, ETD_GAP_PRIV);
        }
    } else if (p->trap) {
        /* the trap's handler is kept code */
        p->trap = false;
        emit_trap(m, src, p->interrupt, p->cause, p->epc, p->tval);
    }
    return true;
}

static void sink_trap(void *opaque, unsigned src, bool interrupt,
                      unsigned cause, uint64_t epc, uint64_t tval)
{
    EtdMain *m = opaque;
    EtdPrivState *p;

    if (!m->priv_mask) {
        emit_trap(m, src, interrupt, cause, epc, tval);
        return;
    }
    p = priv_state(m, src);
    if (p->trap) {
        /* the first trap's handler ran no kept code before this one */
        priv_hide(p);
    }
    if (p->hidden) {
        return;
    }
    p->trap = true;
    p->interrupt = interrupt;
    p->cause = cause;
    p->epc = epc;
    p->tval = tval;
}

static void sink_gap(void *opaque, unsigned src, const char *why)
{
    EtdMain *m = opaque;

    if (!m->quiet && !strcmp(why, ETD_GAP_NO_IMAGE)) {
        warn_left(m, src);
    }
    if (m->priv_mask) {
        EtdPrivState *p = priv_state(m, src);

        if (p->trap) {
            /* the trap's handler is code no image holds, or lost */
            priv_hide(p);
        }
        if (p->hidden) {
            /*
             * Code no image holds, in a section left out, is left out
             * with it; any other gap is said, once: the flow after it
             * starts afresh.
             */
            if (strcmp(why, ETD_GAP_NO_IMAGE) && !p->gapped) {
                p->gapped = true;
                emit_gap(m, src, why);
            }
            return;
        }
    }
    emit_gap(m, src, why);
}

static void sink_time(void *opaque, unsigned src, uint64_t time)
{
    EtdMain *m = opaque;

    if (calls_output(m->output)) {
        etd_calls_time(calls_of(m, src), time);
        return;
    }
    if (m->output != ETD_OUT_FLOW || !win_open(m, src)) {
        return;
    }
    if (m->olen + 64 > sizeof(m->obuf)) {
        out_flush(m);
    }
    m->olen += snprintf(m->obuf + m->olen, 64, "%u time %" PRIu64 "\n", src,
                        time);
}

/* "SRC data lost": the accesses of instructions before are not tied. */
static void sink_data_lost(void *opaque, unsigned src)
{
    EtdMain *m = opaque;

    if (m->tie[src]) {
        etd_tie_gap(m->tie[src]);
    }
    if (m->output != ETD_OUT_FLOW && m->output != ETD_OUT_DATA) {
        return;
    }
    if (m->olen + 32 > sizeof(m->obuf)) {
        out_flush(m);
    }
    m->olen += sprintf(m->obuf + m->olen, "%u data lost\n", src);
}

/* The flow starts again at @pc: keep only the accesses of @pc's, if own. */
static void sink_data_align(void *opaque, unsigned src, uint64_t pc,
                            bool own)
{
    EtdMain *m = opaque;

    if (m->tie[src]) {
        if (m->stream.code) {
            /* the code at the address the packet reports */
            m->tie[src]->img = etd_stream_decoder(&m->stream, src)->addr_img;
        }
        etd_tie_restart(m->tie[src], pc, own);
    }
}

/*
 * An access read from the stream: it waits for its instruction, or with
 * --data-untied goes out as it comes.
 */
static void sink_data(void *opaque, unsigned src, const ETraceDataAccess *a,
                      unsigned has, bool timed, uint64_t time)
{
    EtdMain *m = opaque;

    if (m->untied) {
        out_access(m, src, ETD_NO_PC, a, has);
        m->untied_accesses++;
        return;
    }
    etd_tie_access(tie_of(m, src), a, has);
}

static void stream_error(void *opaque, uint64_t at, int src, EtdError code,
                         const char *msg)
{
    EtdMain *m = opaque;
    g_autofree char *source = src < 0 ? g_strdup("") :
                              g_strdup_printf("srcID %d: ", src);

    out_flush(m);
    fprintf(stderr, "etrace-decode: byte %" PRIu64 ": %serror %s: %s\n", at,
            source, etd_error_name(code), msg);
}

static bool parse_u64(const char *s, uint64_t *v)
{
    char *end;

    errno = 0;
    *v = g_ascii_strtoull(s, &end, 0);
    return !errno && end != s && !*end;
}

/* FILE@ADDR or FILE (then @addr is left alone). */
static bool split_at(const char *arg, char **file, uint64_t *addr)
{
    const char *at = strrchr(arg, '@');

    if (!at) {
        *file = g_strdup(arg);
        return true;
    }
    *file = g_strndup(arg, at - arg);
    return parse_u64(at + 1, addr);
}

static bool parse_params(ETraceParams *params, ETraceDataParams *dparams,
                         unsigned *srcid_bits, unsigned *timestamp_bytes,
                         int *nocontext, const char *arg, GError **errp)
{
    g_auto(GStrv) kv = g_strsplit(arg, ",", -1);
    unsigned i;

    for (i = 0; kv[i]; i++) {
        g_auto(GStrv) pair = g_strsplit(kv[i], "=", 2);
        uint64_t v;

        if (!pair[0] || !pair[1] || !parse_u64(pair[1], &v)) {
            g_set_error(errp, ETD_ERROR, ETD_ERR_PARAM,
                        "--param: '%s' is not NAME=NUMBER", kv[i]);
            return false;
        }
        if (!strcmp(pair[0], "iaddress_width_p") && v >= 2 && v <= 64) {
            params->iaddress_width = v;
        } else if (!strcmp(pair[0], "iaddress_lsb_p") && v <= 2) {
            params->iaddress_lsb = v;
        } else if (!strcmp(pair[0], "privilege_width_p") && v >= 1 &&
                   v <= 3) {
            params->privilege_width = v;
        } else if (!strcmp(pair[0], "ecause_width_p") && v >= 1 && v <= 6) {
            params->ecause_width = v;
        } else if (!strcmp(pair[0], "cache_size_p") &&
                   v <= ETD_JTC_MAX_BITS) {
            params->cache_size = v;
        } else if (!strcmp(pair[0], "bpred_size_p") &&
                   v <= ETD_BPRED_MAX_BITS) {
            params->bpred_size = v;
        } else if (!strcmp(pair[0], "return_stack_size_p") &&
                   v <= ETD_RSTACK_MAX_BITS) {
            params->return_stack_size = v;
        } else if (!strcmp(pair[0], "f0s_width_p") && v <= 2) {
            params->f0s_width = v;
        } else if (!strcmp(pair[0], "context_width_p") &&
                   v <= ETRACE_CONTEXT_MAX_BITS) {
            params->context_width = v;
        } else if (!strcmp(pair[0], "nocontext_p") && v <= 1) {
            *nocontext = v;
        } else if (!strcmp(pair[0], "daddress_width_p") && v >= 8 &&
                   v <= 64) {
            dparams->daddress_width = v;
        } else if (!strcmp(pair[0], "data_width_p") && v >= 8 &&
                   v <= 128 && !(v & (v - 1))) {
            dparams->data_width = v;
        } else if (!strcmp(pair[0], "lrid_width_p") &&
                   v <= ETRACE_DATA_LRID_MAX_BITS) {
            dparams->lrid_width = v;
        } else if (!strcmp(pair[0], "data_format_bits") && v <= 3) {
            dparams->format_bits = v;
        } else if (!strcmp(pair[0], "srcid_bits") && v <= 12) {
            *srcid_bits = v;
        } else if (!strcmp(pair[0], "timestamp_bytes") &&
                   v <= ETRACE_TIMESTAMP_MAX_BYTES) {
            *timestamp_bytes = v;
        } else {
            g_set_error(errp, ETD_ERROR, ETD_ERR_PARAM,
                        "--param: unknown name or value out of range: '%s'",
                        kv[i]);
            return false;
        }
    }
    return true;
}

static void print_stats(EtdMain *m)
{
    EtdStream *st = &m->stream;
    uint64_t insns = 0, f[7] = { 0 }, traps = 0, left = 0;
    uint64_t acc[16] = { 0 }, accesses = 0, missing = 0;
    uint64_t untied = m->untied_accesses;
    uint64_t dlosses = 0;
    unsigned s, k;

    for (s = 0; s < ETD_MAX_SOURCES; s++) {
        EtdDecoder *d = st->dec[s];

        if (!d) {
            continue;
        }
        insns += d->insns;
        traps += d->traps;
        left += d->left;
        for (k = 0; k < ARRAY_SIZE(d->packets); k++) {
            f[k] += d->packets[k];
        }
        for (k = 0; k < 16; k++) {
            acc[k] += d->accesses[k];
            accesses += d->accesses[k];
        }
        dlosses += d->data_losses;
        if (m->tie[s]) {
            untied += m->tie[s]->untied;
            missing += m->tie[s]->missing;
        }
        if (m->all_sources) {
            fprintf(m->out, "source %u: %" PRIu64 " instructions\n", s,
                    d->insns);
        }
    }
    fprintf(m->out, "bytes: %" PRIu64 " in packets, %" PRIu64 " null, %"
            PRIu64 " passed over\n", st->bytes, st->nulls, st->skipped);
    fprintf(m->out, "packets: format 0: %" PRIu64 ", format 1: %" PRIu64
            ", format 2: %" PRIu64 ", format 3.0: %" PRIu64
            ", format 3.1: %" PRIu64 ", format 3.3: %" PRIu64 "\n",
            f[0], f[1], f[2], f[3], f[4], f[5]);
    if (st->params.context_width) {
        fprintf(m->out, "context packets (format 3.2): %" PRIu64 "\n", f[6]);
    }
    fprintf(m->out, "instructions: %" PRIu64 "\n", insns);
    fprintf(m->out, "traps: %" PRIu64 "\n", traps);
    fprintf(m->out, "gaps outside the images: %" PRIu64 "\n", left);
    if (st->code) {
        uint64_t code, maps, bytes, changes;

        etd_code_stats(st->code, &code, &maps, &bytes, &changes);
        fprintf(m->out, "code side stream: %" PRIu64 " code records (%"
                PRIu64 " bytes, %" PRIu64 " changing code), %" PRIu64
                " maps\n", code, bytes, changes, maps);
    }
    if (insns) {
        fprintf(m->out, "bits per instruction: %.4f\n",
                8.0 * (st->bytes + st->nulls) / insns);
    }
    if (m->stream.type_bits) {
        fprintf(m->out, "data accesses: %" PRIu64, accesses);
        for (k = 0; k < 16; k++) {
            if (acc[k]) {
                fprintf(m->out, ", %s: %" PRIu64, etd_dtype_name(k), acc[k]);
            }
        }
        fprintf(m->out, "\naccesses not tied to an instruction: %" PRIu64
                "\naccesses instructions made but not traced: %" PRIu64
                "\ndata losses reported: %" PRIu64
                "\ndata bytes: %" PRIu64 " in te_data packets\n",
                untied, missing, dlosses, st->data_bytes);
        if (accesses) {
            fprintf(m->out, "bits per access: %.4f\n",
                    8.0 * st->data_bytes / accesses);
        }
    }
    fprintf(m->out, "errors: %" PRIu64 "\n", st->errors);
}

/* The command line. */
typedef struct EtdOptions {
    char **elfs;
    char **bins;
    char **ctx_elfs;
    char **ctx_bins;
    char *kallsyms;
    char *code;
    char **param;
    char *output;
    char *zc;
    char *protocol;
    gint64 src;
    gint64 code_hart;
    gboolean join;
    gboolean data;
    gboolean data_untied;
    gboolean shadow_stack;
    gboolean rv32;
    gboolean quiet;
    char *clock;
    char *priv;
    char *dir;
    char **range;
    char *start;
    char *stop;
    gboolean every_window;
    /* from --output, --clock, --priv, --range, --start, --stop, --param */
    uint64_t *ranges;
    unsigned nranges;
    uint64_t win_start, win_stop;
    bool clock_timestamps;
    unsigned priv_mask;
    EtdOutput kind;
    ETraceParams params;
    ETraceDataParams dparams;
    unsigned srcid_bits;
    unsigned timestamp_bytes;
} EtdOptions;

static void free_options(EtdOptions *o)
{
    g_strfreev(o->elfs);
    g_strfreev(o->bins);
    g_strfreev(o->ctx_elfs);
    g_strfreev(o->ctx_bins);
    g_free(o->kallsyms);
    g_free(o->code);
    g_strfreev(o->param);
    g_free(o->output);
    g_free(o->zc);
    g_free(o->protocol);
    g_free(o->clock);
    g_free(o->priv);
    g_free(o->dir);
    g_strfreev(o->range);
    g_free(o->ranges);
    g_free(o->start);
    g_free(o->stop);
}

/* --priv's list into a mask of E-Trace privilege codes. */
static bool parse_priv(const char *list, unsigned *mask)
{
    static const struct {
        const char *name;
        unsigned code;
    } privs[] = {
        { "U", 0 }, { "S", 1 }, { "HS", 1 }, { "M", 3 }, { "D", 4 },
        { "VU", 5 }, { "VS", 6 },
    };
    g_auto(GStrv) names = g_strsplit(list, ",", -1);
    unsigned i, k;

    *mask = 0;
    for (i = 0; names[i]; i++) {
        for (k = 0; k < ARRAY_SIZE(privs); k++) {
            if (!g_ascii_strcasecmp(g_strstrip(names[i]), privs[k].name)) {
                *mask |= 1u << privs[k].code;
                break;
            }
        }
        if (k == ARRAY_SIZE(privs)) {
            print_error(ETD_ERR_BAD_VALUE, "--priv: unknown privilege '%s' "
                        "(U, S, HS, M, D, VU, VS)", names[i]);
            return false;
        }
    }
    if (!*mask) {
        print_error(ETD_ERR_BAD_VALUE, "--priv: no privilege");
        return false;
    }
    return true;
}

/* The options' values, checked; the stream argument is left in @argv. */
static bool parse_options(int *argc, char ***argv, EtdOptions *o)
{
    GOptionEntry entries[] = {
        { "elf", 'e', 0, G_OPTION_ARG_FILENAME_ARRAY, &o->elfs,
          "program image: an ELF file, optionally loaded at an offset",
          "FILE[@OFFSET]" },
        { "bin", 'b', 0, G_OPTION_ARG_FILENAME_ARRAY, &o->bins,
          "program image: a raw binary at an address", "FILE@ADDR" },
        { "context-elf", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->ctx_elfs,
          "program image of one context (with context_width_p): read "
          "first where the packets' context is CTX", "CTX=FILE[@OFFSET]" },
        { "context-bin", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &o->ctx_bins,
          "raw binary of one context, at an address", "CTX=FILE@ADDR" },
        { "kallsyms", 0, 0, G_OPTION_ARG_FILENAME, &o->kallsyms,
          "symbols of a Linux kernel and its modules: its /proc/kallsyms "
          "(names only: the code comes from --elf or --bin)", "FILE" },
        { "code", 0, 0, G_OPTION_ARG_FILENAME, &o->code,
          "the code side stream of QEMU's trace system (virt's trace-code "
          "option): the code the harts translated, read before --elf and "
          "--bin", "FILE" },
        { "code-hart", 0, 0, G_OPTION_ARG_INT64, &o->code_hart,
          "with --code: the stream is this hart's trace alone (a RAM "
          "sink's buffer): read the code side stream's records of this "
          "hart only", "N" },
        { "output", 'o', 0, G_OPTION_ARG_STRING, &o->output,
          "addrs (default): retired instruction addresses; flow: "
          "privilege, address, symbol, traps, data accesses; data: the "
          "data accesses; stats: statistics only; folded: instructions "
          "per call stack (flame graphs); chrome: calls as Chrome Trace "
          "Event JSON (Perfetto, speedscope); uftrace: calls as a uftrace "
          "data directory (--dir); callgrind: a Callgrind profile "
          "(callgrind_annotate, KCachegrind); lcov: an lcov tracefile "
          "(genhtml); coverage: instructions and basic blocks retired "
          "per function",
          "KIND" },
        { "dir", 0, 0, G_OPTION_ARG_FILENAME, &o->dir,
          "the directory --output=uftrace makes (default uftrace.data)",
          "DIR" },
        { "clock", 0, 0, G_OPTION_ARG_STRING, &o->clock,
          "the time of calls and events: instructions (default: retired "
          "instructions) or timestamps (the packets' E-Trace timestamps)",
          "CLOCK" },
        { "priv", 0, 0, G_OPTION_ARG_STRING, &o->priv,
          "keep only the instructions of these privileges (U, S or HS, "
          "M, D, VU, VS): the others are left out of the addresses, the "
          "flow, the calls and the coverage", "PRIV,..." },
        { "range", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->range,
          "with --output=addrs or flow: print only the instructions at "
          "addresses LO to HI - 1 (hex or decimal); may be repeated",
          "LO-HI" },
        { "start", 0, 0, G_OPTION_ARG_STRING, &o->start,
          "with --output=addrs or flow: print each source's flow from the "
          "first instruction at ADDR on", "ADDR" },
        { "stop", 0, 0, G_OPTION_ARG_STRING, &o->stop,
          "with --output=addrs or flow: print each source's flow up to "
          "the next instruction at ADDR (not included)", "ADDR" },
        { "every-window", 0, 0, G_OPTION_ARG_NONE, &o->every_window,
          "with --start: every window, not only the first", NULL },
        { "src", 's', 0, G_OPTION_ARG_INT64, &o->src,
          "decode only the packets of this srcID (hart)", "ID" },
        { "param", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &o->param,
          "decoder parameters (iaddress_width_p, iaddress_lsb_p, "
          "privilege_width_p, ecause_width_p, bpred_size_p, cache_size_p, "
          "return_stack_size_p, "
          "f0s_width_p, context_width_p, nocontext_p, srcid_bits, "
          "timestamp_bytes, daddress_width_p, "
          "data_width_p, lrid_width_p, data_format_bits); may be repeated",
          "NAME=VALUE,..." },
        { "data", 'd', 0, G_OPTION_ARG_NONE, &o->data,
          "the encoder implements data trace: a type field (1 bit) "
          "tells te_inst from te_data packets", NULL },
        { "data-untied", 0, 0, G_OPTION_ARG_NONE, &o->data_untied,
          "with --data: give the accesses in stream order without tying "
          "them to instructions (data filters leave out accesses the "
          "program image cannot tell)", NULL },
        { "join", 'j', 0, G_OPTION_ARG_NONE, &o->join,
          "the stream starts mid-way: skip to the first sync sequence",
          NULL },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet,
          "no warning where the flow leaves the program images (code "
          "written at run time, code of other programs)", NULL },
        { "rv32", 0, 0, G_OPTION_ARG_NONE, &o->rv32,
          "raw binaries hold RV32 code (c.jal)", NULL },
        { "protocol", 0, 0, G_OPTION_ARG_STRING, &o->protocol,
          "E-Trace protocol of the stream: 2.0 (default; parameters from "
          "--param) or 2.1 (parameters from its Standard Support Packets)",
          "2.0|2.1" },
        { "shadow-stack", 0, 0, G_OPTION_ARG_NONE, &o->shadow_stack,
          "with --data: sspush and sspopchk access memory (Zicfiss "
          "shadow stacks are on)", NULL },
        { "zc", 0, 0, G_OPTION_ARG_STRING, &o->zc,
          "on: decode Zcmp/Zcmt (cm.*) encodings; off: Zcd; default: "
          "as the ELF attributes say", "on|off" },
        { NULL }
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("[STREAM|-] - decode an E-Trace stream");
    g_autoptr(GError) err = NULL;
    int nocontext = -1;
    unsigned i;

    g_option_context_add_main_entries(ctx, entries, NULL);
    if (!g_option_context_parse(ctx, argc, argv, &err)) {
        print_error(ETD_ERR_USAGE, "%s", err->message);
        return false;
    }
    for (o->kind = 0; o->output && o->kind < ARRAY_SIZE(output_names);
         o->kind++) {
        if (!strcmp(o->output, output_names[o->kind])) {
            break;
        }
    }
    if (!o->output) {
        o->kind = ETD_OUT_ADDRS;
    } else if (o->kind == ARRAY_SIZE(output_names)) {
        g_autoptr(GString) kinds = g_string_new(NULL);

        for (i = 0; i < ARRAY_SIZE(output_names); i++) {
            g_string_append_printf(kinds, "%s%s", i ? ", " : "",
                                   output_names[i]);
        }
        print_error(ETD_ERR_BAD_VALUE, "--output: unknown kind '%s' (%s)",
                    o->output, kinds->str);
        return false;
    }
    if (!o->protocol || !strcmp(o->protocol, "2.0")) {
        o->params.protocol = ETRACE_PROTOCOL_2_0;
    } else if (!strcmp(o->protocol, "2.1")) {
        o->params.protocol = ETRACE_PROTOCOL_2_1;
    } else {
        print_error(ETD_ERR_BAD_VALUE, "--protocol: unknown version '%s' "
                    "(2.0 or 2.1)", o->protocol);
        return false;
    }
    /*
     * te_data of QEMU's RV64 harts with atomics: the MMA/CAS layouts in
     * 2.1 (its support packets say so), a format field for atomics.
     */
    o->dparams.mmacas = o->params.protocol >= ETRACE_PROTOCOL_2_1;
    o->dparams.format_bits = o->dparams.mmacas ? 2 : 3;
    for (i = 0; o->param && o->param[i]; i++) {
        if (!parse_params(&o->params, &o->dparams, &o->srcid_bits,
                          &o->timestamp_bytes, &nocontext, o->param[i],
                          &err)) {
            print_error(err->code, "%s", err->message);
            return false;
        }
    }
    /* A context field: context_width_p wide, unless nocontext_p is 1. */
    if (nocontext == 1) {
        o->params.context_width = 0;
    } else if (nocontext == 0 && !o->params.context_width) {
        print_error(ETD_ERR_PARAM, "--param: nocontext_p=0 needs "
                    "context_width_p");
        return false;
    }
    if ((o->ctx_elfs || o->ctx_bins) && !o->params.context_width) {
        print_error(ETD_ERR_USAGE, "--context-elf and --context-bin need "
                    "a context field (--param context_width_p=N)");
        return false;
    }
    if (!o->clock || !strcmp(o->clock, "instructions")) {
        o->clock_timestamps = false;
    } else if (!strcmp(o->clock, "timestamps")) {
        o->clock_timestamps = true;
    } else {
        print_error(ETD_ERR_BAD_VALUE, "--clock: unknown clock '%s' "
                    "(instructions or timestamps)", o->clock);
        return false;
    }
    for (i = 0; o->range && o->range[i]; i++) {
        g_auto(GStrv) lohi = g_strsplit(o->range[i], "-", 2);
        uint64_t lo, hi;

        if (!lohi[0] || !lohi[1] || !parse_u64(lohi[0], &lo) ||
            !parse_u64(lohi[1], &hi) || lo >= hi) {
            print_error(ETD_ERR_BAD_VALUE, "--range %s: LO-HI expected, "
                        "LO below HI", o->range[i]);
            return false;
        }
        o->ranges = g_renew(uint64_t, o->ranges, 2 * (o->nranges + 1));
        o->ranges[2 * o->nranges] = lo;
        o->ranges[2 * o->nranges + 1] = hi;
        o->nranges++;
    }
    if (o->range && o->kind != ETD_OUT_ADDRS && o->kind != ETD_OUT_FLOW) {
        print_error(ETD_ERR_USAGE, "--range: with --output=addrs or flow");
        return false;
    }
    if ((o->start && !parse_u64(o->start, &o->win_start)) ||
        (o->stop && !parse_u64(o->stop, &o->win_stop))) {
        print_error(ETD_ERR_BAD_VALUE, "--start, --stop: an address "
                    "expected");
        return false;
    }
    if (o->every_window && !o->start) {
        print_error(ETD_ERR_USAGE, "--every-window: with --start");
        return false;
    }
    if ((o->start || o->stop) && o->kind != ETD_OUT_ADDRS &&
        o->kind != ETD_OUT_FLOW) {
        print_error(ETD_ERR_USAGE, "--start, --stop: with --output=addrs "
                    "or flow");
        return false;
    }
    if (o->priv && !parse_priv(o->priv, &o->priv_mask)) {
        return false;
    }
    if (o->priv && (o->kind == ETD_OUT_STATS || o->kind == ETD_OUT_DATA ||
                    o->data)) {
        print_error(ETD_ERR_USAGE, "--priv is for the instructions' outputs "
                    "(not stats, data or --data)");
        return false;
    }
    if (o->dir && o->kind != ETD_OUT_UFTRACE) {
        print_error(ETD_ERR_USAGE, "--dir is for --output=uftrace");
        return false;
    }
    if (o->kind == ETD_OUT_DATA && !o->data) {
        print_error(ETD_ERR_USAGE, "--output=data needs --data");
        return false;
    }
    if (o->data_untied && !o->data) {
        print_error(ETD_ERR_USAGE, "--data-untied needs --data");
        return false;
    }
    if (o->src >= (1 << o->srcid_bits) || o->src < -1) {
        print_error(ETD_ERR_BAD_VALUE, "--src %" PRId64 " does not fit "
                    "srcid_bits=%u", o->src, o->srcid_bits);
        return false;
    }
    if (o->code_hart != -1 && (!o->code || o->code_hart < 0 ||
                               o->code_hart > INT32_MAX)) {
        print_error(ETD_ERR_USAGE, "--code-hart: a hart's index, with "
                    "--code");
        return false;
    }
    if (!o->elfs && !o->bins && !o->code && !o->ctx_elfs && !o->ctx_bins) {
        print_error(ETD_ERR_NO_IMAGE,
                    "no program image (--elf, --bin or --code)");
        return false;
    }
    return true;
}

/*
 * The program images of --elf and --bin, --rv32 and --zc; the ELF files
 * to @cover and their line tables to @lines too, unless NULL.
 */
static bool load_images(EtdImage *img, EtdCover *cover, EtdLines *lines,
                        const EtdOptions *o)
{
    g_autoptr(GError) err = NULL;
    unsigned i;

    for (i = 0; o->elfs && o->elfs[i]; i++) {
        g_autofree char *file = NULL;
        uint64_t off = 0;

        if (!split_at(o->elfs[i], &file, &off)) {
            print_error(ETD_ERR_BAD_VALUE, "--elf %s: bad offset",
                        o->elfs[i]);
            return false;
        }
        if (!etd_image_add_elf(img, file, off, &err)) {
            print_error(err->code, "%s", err->message);
            return false;
        }
        if (cover) {
            etd_cover_add_elf(cover, file, off);
        }
        if (lines && !etd_lines_add_elf(lines, file, off, !o->quiet, &err)) {
            print_error(err->code, "%s", err->message);
            return false;
        }
    }
    for (i = 0; o->bins && o->bins[i]; i++) {
        g_autofree char *file = NULL;
        uint64_t addr = UINT64_MAX;

        if (!split_at(o->bins[i], &file, &addr) || addr == UINT64_MAX) {
            print_error(ETD_ERR_BAD_VALUE, "--bin %s: FILE@ADDR expected",
                        o->bins[i]);
            return false;
        }
        if (!etd_image_add_bin(img, file, addr, &err)) {
            print_error(err->code, "%s", err->message);
            return false;
        }
    }
    if (o->kallsyms) {
        unsigned n;

        if (!etd_image_add_kallsyms(img, o->kallsyms, &n, &err)) {
            print_error(err->code, "%s", err->message);
            return false;
        }
    }
    if (o->rv32) {
        etd_image_set_rv32(img, true);
    }
    if (o->zc) {
        etd_image_set_zc(img, !strcmp(o->zc, "on"));
    }
    etd_image_set_shadow_stack(img, o->shadow_stack);
    etd_image_set_spec_links(img, o->params.protocol >= ETRACE_PROTOCOL_2_1);
    return true;
}

/*
 * One --context-elf or --context-bin: "CTX=FILE@ADDR" into the image of
 * context CTX in @ctx_imgs, made over @img when it is the first.
 */
static bool load_context_image(GHashTable *ctx_imgs, EtdImage *img,
                               const char *arg, bool elf, unsigned width)
{
    const char *opt = elf ? "--context-elf" : "--context-bin";
    g_autoptr(GError) err = NULL;
    g_autofree char *file = NULL;
    const char *eq = strchr(arg, '=');
    g_autofree char *num = eq ? g_strndup(arg, eq - arg) : NULL;
    uint64_t ctx, addr = elf ? 0 : UINT64_MAX;
    EtdImage *c;

    if (!eq || !parse_u64(num, &ctx) || ctx >> width ||
        !split_at(eq + 1, &file, &addr) || addr == UINT64_MAX) {
        print_error(ETD_ERR_BAD_VALUE, "%s %s: CTX=FILE%s expected, CTX "
                    "fitting context_width_p=%u", opt, arg,
                    elf ? "[@OFFSET]" : "@ADDR", width);
        return false;
    }
    c = g_hash_table_lookup(ctx_imgs, GUINT_TO_POINTER(ctx));
    if (!c) {
        c = etd_image_new_overlay(img);
        g_hash_table_insert(ctx_imgs, GUINT_TO_POINTER(ctx), c);
    }
    if (!(elf ? etd_image_add_elf(c, file, addr, &err) :
          etd_image_add_bin(c, file, addr, &err))) {
        print_error(err->code, "%s", err->message);
        return false;
    }
    return true;
}

/* The images of --context-elf and --context-bin, over @img; NULL: none. */
static bool load_contexts(GHashTable **ctx_imgs, EtdImage *img,
                          const EtdOptions *o)
{
    unsigned i;

    *ctx_imgs = NULL;
    if (!o->ctx_elfs && !o->ctx_bins) {
        return true;
    }
    *ctx_imgs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                      (GDestroyNotify)etd_image_free);
    for (i = 0; o->ctx_elfs && o->ctx_elfs[i]; i++) {
        if (!load_context_image(*ctx_imgs, img, o->ctx_elfs[i], true,
                                o->params.context_width)) {
            return false;
        }
    }
    for (i = 0; o->ctx_bins && o->ctx_bins[i]; i++) {
        if (!load_context_image(*ctx_imgs, img, o->ctx_bins[i], false,
                                o->params.context_width)) {
            return false;
        }
    }
    return true;
}

/* The stream argument: a file, or standard input (none, or "-"). */
static bool open_stream(int argc, char **argv, int *fd)
{
    *fd = 0;
    if (argc > 2) {
        print_error(ETD_ERR_USAGE, "one stream at most");
        return false;
    }
    if (argc == 2 && strcmp(argv[1], "-")) {
        *fd = open(argv[1], O_RDONLY);
        if (*fd < 0) {
            print_error(ETD_ERR_IO, "%s: %s", argv[1], g_strerror(errno));
            return false;
        }
    }
    return true;
}

/* Whether @fd is a pipe, a socket or a terminal rather than a file. */
static bool is_live(int fd)
{
    struct stat st;

    return fstat(fd, &st) == 0 && !S_ISREG(st.st_mode);
}

/*
 * Reading from a pipe or a socket: what the outputs that stream hold goes
 * out after each read, so that a reader sees the run as it goes.
 */
static void live_flush(EtdMain *m)
{
    if (m->output == ETD_OUT_CHROME) {
        etd_chrome_flush(&m->chrome);
    } else if (m->output == ETD_OUT_UFTRACE) {
        etd_uftrace_flush(&m->uftrace);
    } else {
        fflush(m->out);
    }
}

/* The stream from @fd to its end; false on a read error. */
static bool decode(EtdMain *m, int fd)
{
    size_t have = 0, cap = 1 << 20;
    g_autofree uint8_t *buf = g_malloc(cap);

    for (;;) {
        ssize_t n = read(fd, buf + have, cap - have);
        size_t used;

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            print_error(ETD_ERR_IO, "read: %s", g_strerror(errno));
            return false;
        }
        if (n == 0) {
            break;
        }
        have += n;
        used = etd_stream_feed(&m->stream, buf, have);
        memmove(buf, buf + used, have - used);
        have -= used;
        out_flush(m);
        if (m->live) {
            live_flush(m);
        }
    }
    etd_stream_finish(&m->stream, have);
    /* What waits at the end is not tied; the frames open are left. */
    for (have = 0; have < ETD_MAX_SOURCES; have++) {
        if (m->tie[have]) {
            etd_tie_gap(m->tie[have]);
        }
        if (m->calls[have]) {
            etd_calls_finish(m->calls[have]);
        }
    }
    out_flush(m);
    return true;
}

/* The outputs made at the end (calls.h); free what they used. */
static void calls_end(EtdMain *m)
{
    unsigned src;

    if (m->output == ETD_OUT_CHROME) {
        etd_chrome_end(&m->chrome);
    }
    if (m->output == ETD_OUT_UFTRACE) {
        g_autoptr(GError) err = NULL;

        if (!etd_uftrace_end(&m->uftrace, &err)) {
            print_error(ETD_ERR_IO, "%s", err->message);
            exit(2);
        }
    }
    if (m->output == ETD_OUT_CALLGRIND) {
        etd_callgrind(m->calls, ETD_MAX_SOURCES, m->lines, m->out);
        if (m->lines) {
            etd_lines_free(m->lines);
        }
    }
    for (src = 0; src < ETD_MAX_SOURCES; src++) {
        if (!m->calls[src]) {
            continue;
        }
        if (m->output == ETD_OUT_FOLDED) {
            etd_calls_folded(m->calls[src], m->out);
        }
        etd_calls_free(m->calls[src]);
        g_free(m->calls[src]);
    }
    fflush(m->out);
}

int main(int argc, char **argv)
{
    static EtdMain m;
    EtdCode *code = NULL;
    GHashTable *ctx_imgs = NULL;
    EtdOptions o = {
        .src = -1,
        .code_hart = -1,
        .params = ETRACE_QEMU_PARAMS,
        .dparams = { .daddress_width = 64, .data_width = 64 },
        /* QEMU's trace system: 48-bit timestamps */
        .timestamp_bytes = 6,
    };
    uint64_t errors;
    unsigned src;
    int fd;

    if (!parse_options(&argc, &argv, &o)) {
        return 2;
    }
    m.out = stdout;
    m.quiet = o.quiet;
    m.untied = o.data_untied;
    m.output = o.kind;
    m.sink = (EtdSink) {
        .insn = sink_insn, .run = sink_run, .trap = sink_trap,
        .gap = sink_gap, .time = sink_time, .data = sink_data,
        .data_lost = sink_data_lost, .data_align = sink_data_align,
        .context = sink_context, .opaque = &m,
    };
    m.img = etd_image_new();
    if (cover_output(m.output)) {
        m.cover = etd_cover_new(m.img, !o.quiet);
    }
    if (m.output == ETD_OUT_CALLGRIND) {
        m.lines = etd_lines_new();
    }
    if (!load_images(m.img, m.cover, m.lines, &o) ||
        !load_contexts(&ctx_imgs, m.img, &o) ||
        !open_stream(argc, argv, &fd)) {
        return 2;
    }
    if (o.code) {
        g_autoptr(GError) err = NULL;

        code = etd_code_load(o.code, o.code_hart, &err);
        if (!code) {
            print_error(err->code, "%s", err->message);
            return 2;
        }
    }
    if (m.lines && !etd_lines_count(m.lines)) {
        /* no line tables: costs at the functions' entries */
        etd_lines_free(m.lines);
        m.lines = NULL;
    }
    m.timed = o.clock_timestamps;
    m.priv_mask = o.priv_mask;
    m.ranges = o.ranges;
    m.nranges = o.nranges;
    m.win = o.start || o.stop;
    m.win_has_start = o.start;
    m.win_has_stop = o.stop;
    m.win_every = o.every_window;
    m.win_start = o.win_start;
    m.win_stop = o.win_stop;
    if (m.output == ETD_OUT_CHROME) {
        etd_chrome_begin(&m.chrome, m.out, m.timed);
        m.chrome.calls = m.calls;
        etd_chrome_sink(&m.chrome, &m.call_sink);
    }
    if (m.output == ETD_OUT_UFTRACE) {
        g_autoptr(GError) err = NULL;

        if (!etd_uftrace_begin(&m.uftrace, o.dir ? o.dir : "uftrace.data",
                               m.img, m.timed, &err)) {
            print_error(ETD_ERR_IO, "%s", err->message);
            return 2;
        }
        etd_uftrace_sink(&m.uftrace, &m.call_sink);
    }

    /* Addresses and statistics name the source when there can be several. */
    m.all_sources = o.src < 0 && o.srcid_bits > 0;
    etd_stream_init(&m.stream, m.img, &m.sink, &o.params, o.srcid_bits,
                    o.timestamp_bytes, o.join);
    m.stream.only_src = o.src;
    m.stream.code = code;
    m.stream.ctx_imgs = ctx_imgs;
    m.stream.type_bits = o.data ? 1 : 0;
    m.stream.dparams = o.dparams;
    m.stream.error = stream_error;
    m.stream.opaque = &m;
    m.live = is_live(fd);
    if (!decode(&m, fd)) {
        return 2;
    }
    for (src = 0; src < ETD_MAX_SOURCES; src++) {
        g_free(m.priv_state[src]);
    }
    calls_end(&m);
    if (m.cover) {
        g_autoptr(GError) err = NULL;

        if (!(m.output == ETD_OUT_LCOV ? etd_cover_lcov : etd_cover_report)
            (m.cover, m.out, &err)) {
            print_error(err->code, "%s", err->message);
            return 2;
        }
        fflush(m.out);
        etd_cover_free(m.cover);
    }
    if (m.output == ETD_OUT_STATS) {
        print_stats(&m);
    } else {
        FILE *out = m.out;

        m.out = stderr;
        if (m.stream.errors) {
            print_stats(&m);
        }
        m.out = out;
    }
    errors = m.stream.errors;
    etd_stream_free(&m.stream);
    etd_code_free(code);
    if (ctx_imgs) {
        g_hash_table_destroy(ctx_imgs);
    }
    etd_image_free(m.img);
    free_options(&o);
    return errors ? 1 : 0;
}
