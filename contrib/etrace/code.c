/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the code side stream (hw/riscv/trace-code.h).
 *
 * QEMU writes, per hart, the instructions it translates and the pages
 * its TLB maps for fetches, each record with the number of te_inst
 * packets the hart's encoder had made.  The decoder keeps physical
 * pages of code, filled from CODE records, and per source and privilege
 * the map of virtual pages to physical ones, from MAP records.  The
 * images of a source (etd_image_new_view()) read instructions there
 * first, then in the ELF files and raw binaries.
 *
 * Bytes a hart runs were translated first, so the first bytes recorded
 * at a physical address are written when the stream is loaded: they
 * were never preceded by others there.  A record that changes bytes
 * written before, and every MAP record, is applied in order: before the
 * decoder follows anything for the packet after the record's position.
 * A LOST record says where the encoder's count stands at the support
 * packet that says trace_lost, whatever packets the decoder missed.
 */

#include "qemu/osdep.h"
#include "etrace-decode.h"
#include "qemu/bswap.h"
#include "hw/riscv/trace-code.h"

#define PAGE_SIZE_  (1u << RISCV_TRACE_CODE_PAGE_BITS)
#define PAGE_MASK_  (~(uint64_t)(PAGE_SIZE_ - 1))
#define NO_PAGE     UINT64_MAX

/* A physical page of code: its bytes, which half-words are known. */
typedef struct EtdCodePage {
    uint8_t bytes[PAGE_SIZE_];
    uint64_t valid[PAGE_SIZE_ / 2 / 64];
} EtdCodePage;

/* A record of one source. */
typedef struct EtdCodeRec {
    uint64_t pos;
    uint32_t branches;
    uint64_t va;
    /* MAP: the page; CODE: where its bytes in va's page and the next are */
    uint64_t pa;
    uint64_t pa_next;
    size_t data;            /* CODE: offset of its bytes in the stream */
    uint32_t len;           /* CODE: bytes */
    uint8_t kind;
    uint8_t priv;
    /* CODE: it changes bytes that were known before it (applied then) */
    bool changes;
} EtdCodeRec;

struct EtdCodeSrc {
    EtdCode *code;
    /* The changes applied so far, over the code's first bytes. */
    GHashTable *own;
    GArray *recs;           /* EtdCodeRec, in stream order */
    unsigned next;          /* the first not applied */
    /* Per privilege: virtual page >> 12 -> physical page | 1. */
    GHashTable *map[8];
    /* Per privilege: changes when the code that view sees may have. */
    uint64_t gen[8];
};

struct EtdCode {
    uint8_t *data;
    size_t len;
    GHashTable *pages;      /* physical page >> 12 -> EtdCodePage */
    EtdCodeSrc *srcs[ETD_MAX_SOURCES];
    /* Statistics. */
    uint64_t records[4];
    uint64_t code_bytes;
    uint64_t changes;
};

static GHashTable *pages_new(void)
{
    return g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
}

static EtdCodeSrc *source_new(EtdCode *c)
{
    EtdCodeSrc *cs = g_new0(EtdCodeSrc, 1);
    unsigned p;

    cs->code = c;
    cs->own = pages_new();
    cs->recs = g_array_new(false, false, sizeof(EtdCodeRec));
    for (p = 0; p < 8; p++) {
        cs->map[p] = g_hash_table_new(g_direct_hash, g_direct_equal);
    }
    return cs;
}

EtdCodeSrc *etd_code_source(EtdCode *c, unsigned src)
{
    if (!c->srcs[src]) {
        c->srcs[src] = source_new(c);
    }
    return c->srcs[src];
}

static uint64_t map_lookup(GHashTable *map, uint64_t va)
{
    gpointer v = g_hash_table_lookup(map, GSIZE_TO_POINTER(va >> 12));

    return v ? (GPOINTER_TO_SIZE(v) & ~(gsize)1) : NO_PAGE;
}

/* Returns whether the mapping changed. */
static bool map_set(GHashTable *map, uint64_t va, uint64_t pa)
{
    gpointer key = GSIZE_TO_POINTER(va >> 12);
    gpointer val = GSIZE_TO_POINTER(pa | 1);

    if (g_hash_table_lookup(map, key) == val) {
        return false;
    }
    g_hash_table_insert(map, key, val);
    return true;
}

static EtdCodePage *page_get(GHashTable *pages, uint64_t pa, bool create)
{
    gpointer key = GSIZE_TO_POINTER(pa >> 12);
    EtdCodePage *pg = g_hash_table_lookup(pages, key);

    if (!pg && create) {
        pg = g_new0(EtdCodePage, 1);
        g_hash_table_insert(pages, key, pg);
    }
    return pg;
}

/* The half-word at @pa of @pages, or NULL when it is not known. */
static uint8_t *halfword(GHashTable *pages, uint64_t pa)
{
    EtdCodePage *pg = page_get(pages, pa, false);
    unsigned h = (pa & ~PAGE_MASK_) / 2;

    if (!pg || !(pg->valid[h / 64] & (UINT64_C(1) << (h % 64)))) {
        return NULL;
    }
    return pg->bytes + h * 2;
}

/* The half-word at @pa as @top over @base (or none) shows it, or NULL. */
static const uint8_t *layered(GHashTable *top, GHashTable *base,
                              uint64_t pa)
{
    const uint8_t *p = halfword(top, pa);

    return p || !base ? p : halfword(base, pa);
}

static void halfword_set(GHashTable *pages, uint64_t pa, const uint8_t *b)
{
    EtdCodePage *pg = page_get(pages, pa, true);
    unsigned h = (pa & ~PAGE_MASK_) / 2;

    pg->valid[h / 64] |= UINT64_C(1) << (h % 64);
    memcpy(pg->bytes + h * 2, b, 2);
}

/*
 * Write @len bytes (whole half-words) at @pa into @top.  With @first
 * (and no @base), only where nothing was known.  Returns whether known
 * bytes, of @top over @base, differ.
 */
static bool page_write(GHashTable *top, GHashTable *base, uint64_t pa,
                       const uint8_t *bytes, unsigned len, bool first)
{
    bool differ = false;
    unsigned i;

    for (i = 0; i + 1 < len; i += 2) {
        const uint8_t *now = layered(top, base, pa + i);

        if (now && memcmp(now, bytes + i, 2)) {
            differ = true;
        }
        if (!now || !first) {
            halfword_set(top, pa + i, bytes + i);
        }
    }
    return differ;
}

/* The bytes of @r into @top: in va's page, then in the next one. */
static bool code_write(EtdCode *c, GHashTable *top, GHashTable *base,
                       const EtdCodeRec *r, bool first)
{
    unsigned head = MIN(r->len, PAGE_SIZE_ - (r->va & ~PAGE_MASK_));
    const uint8_t *bytes = c->data + r->data;
    bool differ = false;

    if (r->pa != NO_PAGE) {
        differ |= page_write(top, base, r->pa, bytes, head, first);
    }
    if (head < r->len && r->pa_next != NO_PAGE) {
        differ |= page_write(top, base, r->pa_next, bytes + head,
                             r->len - head, first);
    }
    return differ;
}

static bool bad_stream(GError **errp, const char *path, size_t at,
                       const char *what)
{
    g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_CODE,
                "%s: %s at byte %zu", path, what, at);
    return false;
}

/*
 * Read the records; map every CODE record's bytes to physical pages as
 * the MAP records before it say.  The pages start with the first bytes
 * known at each address; a CODE record is kept, to be applied in order,
 * when it changes what its source saw there: what it translated before,
 * else those first bytes.  (With the code side stream on, a hart runs
 * only what it translated itself.)
 */
static bool code_index(EtdCode *c, const char *path, int only_hart,
                       GError **errp)
{
    /* The maps and each source's bytes as the records go. */
    g_autofree GHashTable **maps = g_new0(GHashTable *, ETD_MAX_SOURCES * 8);
    g_autofree GHashTable **seen = g_new0(GHashTable *, ETD_MAX_SOURCES);
    /* Each source's hart (+ 1), which no other hart may share. */
    g_autofree uint32_t *harts = g_new0(uint32_t, ETD_MAX_SOURCES);
    size_t at = RISCV_TRACE_CODE_MAGIC_LEN;
    bool ok = true;
    unsigned i;

    while (at < c->len) {
        const uint8_t *h = c->data + at;
        EtdCodeRec r = { 0 };
        uint32_t len, hart;
        unsigned src;
        GHashTable **map;

        if (c->len - at < RISCV_TRACE_CODE_HDR_LEN) {
            ok = bad_stream(errp, path, at, "truncated record header");
            break;
        }
        r.kind = h[0];
        r.priv = h[1] & 7;
        src = lduw_le_p(h + 2);
        len = ldl_le_p(h + 4);
        r.pos = ldq_le_p(h + 8);
        r.branches = ldl_le_p(h + 16);
        hart = ldl_le_p(h + 20);
        if (len > c->len - at - RISCV_TRACE_CODE_HDR_LEN) {
            ok = bad_stream(errp, path, at, "truncated record");
            break;
        }
        if (src >= ETD_MAX_SOURCES) {
            ok = bad_stream(errp, path, at, "source out of range");
            break;
        }
        if (only_hart >= 0 && hart != (uint32_t)only_hart) {
            /* another hart's: its trace is not the one decoded */
            at += RISCV_TRACE_CODE_HDR_LEN + len;
            continue;
        }
        if (hart == UINT32_MAX) {
            ok = bad_stream(errp, path, at, "hart out of range");
            break;
        }
        if (!harts[src]) {
            harts[src] = hart + 1;
        } else if (harts[src] != hart + 1) {
            g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_CODE,
                        "%s: harts %u and %u both have source %u (a RAM "
                        "sink each?): say whose trace this is with "
                        "--code-hart", path, harts[src] - 1, hart, src);
            ok = false;
            break;
        }
        map = &maps[src * 8 + r.priv];
        if (!*map) {
            *map = g_hash_table_new(g_direct_hash, g_direct_equal);
        }
        h += RISCV_TRACE_CODE_HDR_LEN;
        switch (r.kind) {
        case RISCV_TRACE_CODE_CODE:
            if (len < 8 + 2 || (len - 8) % 2 || len - 8 > PAGE_SIZE_) {
                ok = bad_stream(errp, path, at, "bad CODE record");
                break;
            }
            r.va = ldq_le_p(h);
            r.data = at + RISCV_TRACE_CODE_HDR_LEN + 8;
            r.len = len - 8;
            r.pa = map_lookup(*map, r.va);
            r.pa_next = map_lookup(*map, (r.va & PAGE_MASK_) + PAGE_SIZE_);
            if (r.pa != NO_PAGE) {
                r.pa += r.va & ~PAGE_MASK_;
            }
            if (!seen[src]) {
                seen[src] = pages_new();
            }
            r.changes = code_write(c, seen[src], c->pages, &r, false);
            code_write(c, c->pages, NULL, &r, true);
            c->code_bytes += r.len;
            break;
        case RISCV_TRACE_CODE_MAP:
            if (len != 16) {
                ok = bad_stream(errp, path, at, "bad MAP record");
                break;
            }
            r.va = ldq_le_p(h) & PAGE_MASK_;
            r.pa = ldq_le_p(h + 8) & PAGE_MASK_;
            map_set(*map, r.va, r.pa);
            break;
        case RISCV_TRACE_CODE_LOST:
            break;
        default:
            /* A kind this decoder does not know: passed over. */
            at += RISCV_TRACE_CODE_HDR_LEN + len;
            continue;
        }
        if (!ok) {
            break;
        }
        c->records[r.kind]++;
        if (r.kind != RISCV_TRACE_CODE_CODE || r.changes) {
            g_array_append_val(etd_code_source(c, src)->recs, r);
        }
        c->changes += r.changes;
        at += RISCV_TRACE_CODE_HDR_LEN + len;
    }
    for (i = 0; i < ETD_MAX_SOURCES * 8; i++) {
        if (maps[i]) {
            g_hash_table_destroy(maps[i]);
        }
    }
    for (i = 0; i < ETD_MAX_SOURCES; i++) {
        if (seen[i]) {
            g_hash_table_destroy(seen[i]);
        }
    }
    return ok;
}

EtdCode *etd_code_load(const char *path, int hart, GError **errp)
{
    g_autoptr(GError) err = NULL;
    EtdCode *c = g_new0(EtdCode, 1);
    gchar *data;
    gsize len;

    if (!g_file_get_contents(path, &data, &len, &err)) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_IO, "%s", err->message);
        g_free(c);
        return NULL;
    }
    c->data = (uint8_t *)data;
    c->len = len;
    c->pages = pages_new();
    if (len < RISCV_TRACE_CODE_MAGIC_LEN ||
        memcmp(data, RISCV_TRACE_CODE_MAGIC, RISCV_TRACE_CODE_MAGIC_LEN)) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_CODE,
                    "%s: not a code side stream (no RVCODE header)", path);
        etd_code_free(c);
        return NULL;
    }
    if (!code_index(c, path, hart, errp)) {
        etd_code_free(c);
        return NULL;
    }
    return c;
}

void etd_code_free(EtdCode *c)
{
    unsigned s, p;

    if (!c) {
        return;
    }
    for (s = 0; s < ETD_MAX_SOURCES; s++) {
        EtdCodeSrc *cs = c->srcs[s];

        if (!cs) {
            continue;
        }
        for (p = 0; p < 8; p++) {
            g_hash_table_destroy(cs->map[p]);
        }
        g_array_free(cs->recs, true);
        g_hash_table_destroy(cs->own);
        g_free(cs);
    }
    if (c->pages) {
        g_hash_table_destroy(c->pages);
    }
    g_free(c->data);
    g_free(c);
}

void etd_code_stats(const EtdCode *c, uint64_t *code, uint64_t *maps,
                    uint64_t *bytes, uint64_t *changes)
{
    *code = c->records[RISCV_TRACE_CODE_CODE];
    *maps = c->records[RISCV_TRACE_CODE_MAP];
    *bytes = c->code_bytes;
    *changes = c->changes;
}

static bool apply(EtdCodeSrc *cs, const EtdCodeRec *r)
{
    unsigned p;

    switch (r->kind) {
    case RISCV_TRACE_CODE_CODE:
        if (code_write(cs->code, cs->own, cs->code->pages, r, false)) {
            /* Any view of the source may see them: all look again. */
            for (p = 0; p < 8; p++) {
                cs->gen[p]++;
            }
            return true;
        }
        return false;
    case RISCV_TRACE_CODE_MAP:
        if (map_set(cs->map[r->priv], r->va, r->pa)) {
            cs->gen[r->priv]++;
            return true;
        }
        return false;
    default:
        return false;
    }
}

bool etd_code_catch_up(EtdCodeSrc *cs, uint64_t pos, uint64_t branches,
                       uint64_t *wait)
{
    bool changed = false;

    *wait = 0;
    while (cs->next < cs->recs->len) {
        const EtdCodeRec *r = &g_array_index(cs->recs, EtdCodeRec, cs->next);

        if (r->pos > pos || (r->pos == pos && r->branches > branches)) {
            if (r->pos == pos) {
                *wait = r->branches;
            }
            break;
        }
        changed |= apply(cs, r);
        cs->next++;
    }
    return changed;
}

bool etd_code_lost(EtdCodeSrc *cs, uint64_t *pos)
{
    bool changed = false;
    unsigned i;

    for (i = cs->next; i < cs->recs->len; i++) {
        if (g_array_index(cs->recs, EtdCodeRec, i).kind ==
            RISCV_TRACE_CODE_LOST) {
            break;
        }
    }
    if (i == cs->recs->len) {
        /* No such record: the count goes on. */
        return false;
    }
    while (cs->next <= i) {
        changed |= apply(cs, &g_array_index(cs->recs, EtdCodeRec, cs->next));
        cs->next++;
    }
    *pos = g_array_index(cs->recs, EtdCodeRec, i).pos;
    return changed;
}

bool etd_code_read(EtdCodeSrc *cs, unsigned priv, uint64_t va,
                   uint8_t *buf, unsigned len)
{
    unsigned i;

    for (i = 0; i < len; i += 2) {
        uint64_t at = va + i;
        uint64_t pa = map_lookup(cs->map[priv & 7], at);
        const uint8_t *p;

        if (pa == NO_PAGE) {
            return false;
        }
        p = layered(cs->own, cs->code->pages, pa | (at & ~PAGE_MASK_));
        if (!p) {
            return false;
        }
        memcpy(buf + i, p, 2);
    }
    return true;
}

const uint64_t *etd_code_gen(const EtdCodeSrc *cs, unsigned priv)
{
    return &cs->gen[priv & 7];
}
