/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * etrace-decode: decode the E-Trace 2.0 stream of QEMU's RISC-V trace
 * encoder (Encapsulation 1.0, as a PIB sink writes it to a chardev).
 *
 * Usage: etrace-decode [OPTIONS] --elf FILE[@OFFSET]... [STREAM|-]
 * See docs/devel/etrace-decode.rst.
 */

#include "qemu/osdep.h"
#include "etrace-decode.h"

typedef enum EtdOutput {
    ETD_OUT_ADDRS,
    ETD_OUT_FLOW,
    ETD_OUT_STATS,
} EtdOutput;

typedef struct EtdMain {
    EtdImage *img;
    EtdStream stream;
    EtdOutput output;
    bool all_sources;
    bool quiet;                 /* no warnings */
    EtdSink sink;
    FILE *out;
    char obuf[1 << 16];
    size_t olen;
} EtdMain;

static void out_flush(EtdMain *m)
{
    if (m->olen && fwrite(m->obuf, 1, m->olen, m->out) != m->olen) {
        fprintf(stderr, "etrace-decode: write error: %s\n",
                g_strerror(errno));
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

static const char *priv_name(uint8_t priv)
{
    static const char *const names[8] = {
        "U", "S", "2", "M", "D", "VU", "VS", "7"
    };

    return names[priv & 7];
}

static void out_flow(EtdMain *m, unsigned src, uint64_t pc, uint8_t priv)
{
    char sym[256];

    if (m->olen + 320 > sizeof(m->obuf)) {
        out_flush(m);
    }
    m->olen += snprintf(m->obuf + m->olen, sizeof(m->obuf) - m->olen,
                        "%u %-2s %" PRIx64 " %s\n", src, priv_name(priv),
                        pc, etd_image_symbolize(m->img, pc, sym,
                                                sizeof(sym)));
}

static void sink_insn(void *opaque, unsigned src, uint64_t pc, uint8_t priv)
{
    EtdMain *m = opaque;

    if (m->output == ETD_OUT_ADDRS) {
        out_addr(m, src, pc);
    } else if (m->output == ETD_OUT_FLOW) {
        out_flow(m, src, pc, priv);
    }
}

static void sink_run(void *opaque, unsigned src, const EtdBlock *b,
                     unsigned from, unsigned n, uint8_t priv)
{
    EtdMain *m = opaque;
    uint64_t pc;
    unsigned i;

    if (m->output == ETD_OUT_STATS) {
        return;
    }
    pc = etd_block_insn_addr(b, from);

    for (i = from; i < from + n; i++) {
        sink_insn(opaque, src, pc, priv);
        pc += etd_block_insn_size(b, i);
    }
}

static void sink_trap(void *opaque, unsigned src, bool interrupt,
                      unsigned cause, uint64_t epc, uint64_t tval)
{
    EtdMain *m = opaque;

    if (m->output != ETD_OUT_FLOW) {
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

static void sink_gap(void *opaque, unsigned src, const char *why)
{
    EtdMain *m = opaque;

    if (!m->quiet && !strcmp(why, ETD_GAP_NO_IMAGE)) {
        warn_left(m, src);
    }
    if (m->output != ETD_OUT_FLOW) {
        return;
    }
    if (m->olen + 128 > sizeof(m->obuf)) {
        out_flush(m);
    }
    m->olen += snprintf(m->obuf + m->olen, 128, "%u gap %s\n", src, why);
}

static void sink_time(void *opaque, unsigned src, uint64_t time)
{
    EtdMain *m = opaque;

    if (m->output != ETD_OUT_FLOW) {
        return;
    }
    if (m->olen + 64 > sizeof(m->obuf)) {
        out_flush(m);
    }
    m->olen += snprintf(m->obuf + m->olen, 64, "%u time %" PRIu64 "\n", src,
                        time);
}

static void stream_error(void *opaque, uint64_t at, const char *msg)
{
    EtdMain *m = opaque;

    out_flush(m);
    fprintf(stderr, "etrace-decode: byte %" PRIu64 ": %s\n", at, msg);
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

static bool parse_params(ETraceParams *params, unsigned *srcid_bits,
                         unsigned *timestamp_bytes, const char *arg,
                         GError **errp)
{
    g_auto(GStrv) kv = g_strsplit(arg, ",", -1);
    unsigned i;

    for (i = 0; kv[i]; i++) {
        g_auto(GStrv) pair = g_strsplit(kv[i], "=", 2);
        uint64_t v;

        if (!pair[0] || !pair[1] || !parse_u64(pair[1], &v)) {
            g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
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
        } else if (!strcmp(pair[0], "cache_size_p") && v <= 6) {
            params->cache_size = v;
        } else if (!strcmp(pair[0], "bpred_size_p") && v <= 6) {
            params->bpred_size = v;
        } else if (!strcmp(pair[0], "return_stack_size_p") && v <= 5) {
            params->return_stack_size = v;
        } else if (!strcmp(pair[0], "f0s_width_p") && v <= 2) {
            params->f0s_width = v;
        } else if (!strcmp(pair[0], "srcid_bits") && v <= 12) {
            *srcid_bits = v;
        } else if (!strcmp(pair[0], "timestamp_bytes") &&
                   v <= ETRACE_TIMESTAMP_MAX_BYTES) {
            *timestamp_bytes = v;
        } else {
            g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
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
    uint64_t insns = 0, f[6] = { 0 }, traps = 0, left = 0;
    unsigned s, k;

    for (s = 0; s < ETD_MAX_SOURCES; s++) {
        EtdDecoder *d = st->dec[s];

        if (!d) {
            continue;
        }
        insns += d->insns;
        traps += d->traps;
        left += d->left;
        for (k = 0; k < 6; k++) {
            f[k] += d->packets[k];
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
    fprintf(m->out, "instructions: %" PRIu64 "\n", insns);
    fprintf(m->out, "traps: %" PRIu64 "\n", traps);
    fprintf(m->out, "gaps outside the images: %" PRIu64 "\n", left);
    if (insns) {
        fprintf(m->out, "bits per instruction: %.4f\n",
                8.0 * (st->bytes + st->nulls) / insns);
    }
    fprintf(m->out, "errors: %" PRIu64 "\n", st->errors);
}

int main(int argc, char **argv)
{
    g_autofree char **elfs = NULL, **bins = NULL;
    g_autofree char *param = NULL, *output = NULL;
    g_autofree char *zc = NULL;
    gint64 src = -1;
    gboolean join = false, rv32 = false, quiet = false;
    GOptionEntry entries[] = {
        { "elf", 'e', 0, G_OPTION_ARG_FILENAME_ARRAY, &elfs,
          "program image: an ELF file, optionally loaded at an offset",
          "FILE[@OFFSET]" },
        { "bin", 'b', 0, G_OPTION_ARG_FILENAME_ARRAY, &bins,
          "program image: a raw binary at an address", "FILE@ADDR" },
        { "output", 'o', 0, G_OPTION_ARG_STRING, &output,
          "addrs (default): retired instruction addresses; flow: "
          "privilege, address, symbol, traps; stats: statistics only",
          "KIND" },
        { "src", 's', 0, G_OPTION_ARG_INT64, &src,
          "decode only the packets of this srcID (hart)", "ID" },
        { "param", 'p', 0, G_OPTION_ARG_STRING, &param,
          "decoder parameters (iaddress_width_p, iaddress_lsb_p, "
          "privilege_width_p, ecause_width_p, bpred_size_p, cache_size_p, "
          "return_stack_size_p, "
          "f0s_width_p, srcid_bits, timestamp_bytes)",
          "NAME=VALUE,..." },
        { "join", 'j', 0, G_OPTION_ARG_NONE, &join,
          "the stream starts mid-way: skip to the first sync sequence",
          NULL },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
          "no warning where the flow leaves the program images (code "
          "written at run time, code of other programs)", NULL },
        { "rv32", 0, 0, G_OPTION_ARG_NONE, &rv32,
          "raw binaries hold RV32 code (c.jal)", NULL },
        { "zc", 0, 0, G_OPTION_ARG_STRING, &zc,
          "on: decode Zcmp/Zcmt (cm.*) encodings; off: Zcd; default: "
          "as the ELF attributes say", "on|off" },
        { NULL }
    };
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("[STREAM|-] - decode an E-Trace stream");
    g_autoptr(GError) err = NULL;
    static EtdMain m;
    ETraceParams params = {
        .iaddress_width = 64, .iaddress_lsb = 1,
        .privilege_width = 3, .ecause_width = 6,
        .f0s_width = 1, .cache_size = 6, .bpred_size = 6,
        .return_stack_size = 4,
    };
    unsigned srcid_bits = 0;
    /* QEMU's trace system: 48-bit timestamps */
    unsigned timestamp_bytes = 6;
    uint8_t *buf;
    size_t have = 0, cap = 1 << 20;
    int fd = 0;
    uint64_t errors;
    unsigned i;

    g_option_context_add_main_entries(ctx, entries, NULL);
    if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
        fprintf(stderr, "etrace-decode: %s\n", err->message);
        return 2;
    }
    m.out = stdout;
    m.quiet = quiet;
    m.sink = (EtdSink) {
        .insn = sink_insn, .run = sink_run, .trap = sink_trap,
        .gap = sink_gap, .time = sink_time, .opaque = &m,
    };
    if (!output || !strcmp(output, "addrs")) {
        m.output = ETD_OUT_ADDRS;
    } else if (!strcmp(output, "flow")) {
        m.output = ETD_OUT_FLOW;
    } else if (!strcmp(output, "stats")) {
        m.output = ETD_OUT_STATS;
    } else {
        fprintf(stderr, "etrace-decode: --output: unknown kind '%s' "
                "(addrs, flow or stats)\n", output);
        return 2;
    }
    if (param && !parse_params(&params, &srcid_bits, &timestamp_bytes, param,
                               &err)) {
        fprintf(stderr, "etrace-decode: %s\n", err->message);
        return 2;
    }
    if (src >= (1 << srcid_bits) || src < -1) {
        fprintf(stderr, "etrace-decode: --src %" PRId64 " does not fit "
                "srcid_bits=%u\n", src, srcid_bits);
        return 2;
    }
    if (!elfs && !bins) {
        fprintf(stderr, "etrace-decode: no program image (--elf or "
                "--bin)\n");
        return 2;
    }
    m.img = etd_image_new();
    for (i = 0; elfs && elfs[i]; i++) {
        g_autofree char *file = NULL;
        uint64_t off = 0;

        if (!split_at(elfs[i], &file, &off)) {
            fprintf(stderr, "etrace-decode: --elf %s: bad offset\n", elfs[i]);
            return 2;
        }
        if (!etd_image_add_elf(m.img, file, off, &err)) {
            fprintf(stderr, "etrace-decode: %s\n", err->message);
            return 2;
        }
    }
    for (i = 0; bins && bins[i]; i++) {
        g_autofree char *file = NULL;
        uint64_t addr = UINT64_MAX;

        if (!split_at(bins[i], &file, &addr) || addr == UINT64_MAX) {
            fprintf(stderr, "etrace-decode: --bin %s: FILE@ADDR expected\n",
                    bins[i]);
            return 2;
        }
        if (!etd_image_add_bin(m.img, file, addr, &err)) {
            fprintf(stderr, "etrace-decode: %s\n", err->message);
            return 2;
        }
    }
    if (rv32) {
        etd_image_set_rv32(m.img, true);
    }
    if (zc) {
        etd_image_set_zc(m.img, !strcmp(zc, "on"));
    }
    if (argc > 2) {
        fprintf(stderr, "etrace-decode: one stream at most\n");
        return 2;
    }
    if (argc == 2 && strcmp(argv[1], "-")) {
        fd = open(argv[1], O_RDONLY);
        if (fd < 0) {
            fprintf(stderr, "etrace-decode: %s: %s\n", argv[1],
                    g_strerror(errno));
            return 2;
        }
    }

    /* Addresses and statistics name the source when there can be several. */
    m.all_sources = src < 0 && srcid_bits > 0;
    etd_stream_init(&m.stream, m.img, &m.sink, &params, srcid_bits,
                    timestamp_bytes, join);
    m.stream.only_src = src;
    m.stream.error = stream_error;
    m.stream.opaque = &m;
    buf = g_malloc(cap);
    for (;;) {
        ssize_t n = read(fd, buf + have, cap - have);
        size_t used;

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            fprintf(stderr, "etrace-decode: read: %s\n", g_strerror(errno));
            return 2;
        }
        if (n == 0) {
            break;
        }
        have += n;
        used = etd_stream_feed(&m.stream, buf, have);
        memmove(buf, buf + used, have - used);
        have -= used;
        out_flush(&m);
    }
    etd_stream_finish(&m.stream, have);
    out_flush(&m);
    if (m.output == ETD_OUT_STATS) {
        print_stats(&m);
    } else {
        FILE *o = m.out;

        m.out = stderr;
        if (m.stream.errors) {
            print_stats(&m);
        }
        m.out = o;
    }
    errors = m.stream.errors;
    etd_stream_free(&m.stream);
    etd_image_free(m.img);
    g_free(buf);
    return errors ? 1 : 0;
}
