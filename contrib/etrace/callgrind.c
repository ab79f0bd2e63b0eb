/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the calling context trees of the sources as a profile
 * in the Callgrind format (what valgrind --tool=callgrind writes, which
 * callgrind_annotate and KCachegrind read): the event is Ir, instructions
 * retired; per function its own instructions and, per callee, the calls
 * and the instructions retired during them.  Positions are instruction
 * addresses and, with the images' line tables, source lines (positions:
 * instr line): a function's own cost is at each instruction it retired
 * (at its entry without line tables), its calls at its entry.  The
 * harts are summed.  The frames of a function
 * below another of its own are "func'2", as Callgrind separates
 * recursion levels by default.
 */

#include "qemu/osdep.h"
#include "callgrind.h"
#include "lines.h"

/*
 * A function's totals over the contexts it appears in, at one recursion
 * level: 1, or 2 for its frames below another of its own (Callgrind's
 * --separate-recs=2: "func'2"), so that the inclusive cost of a
 * recursive function's outermost frames is not counted again.
 */
typedef struct CgFunc {
    uint64_t key;               /* func << 1 | (level 2) */
    uint64_t func;
    bool rec;
    uint64_t self;
    unsigned id;
    GHashTable *callees;        /* key -> CgArc */
    GHashTable *costs;          /* address -> CgCost, by instruction */
} CgFunc;

typedef struct CgCost {
    uint64_t addr;
    uint64_t count;
} CgCost;

typedef struct CgArc {
    uint64_t key;
    uint64_t calls;
    uint64_t inclusive;
} CgArc;

static CgFunc *cg_func(GHashTable *funcs, uint64_t func, bool rec)
{
    uint64_t key = func << 1 | rec;
    CgFunc *f = g_hash_table_lookup(funcs, &key);

    if (!f) {
        f = g_new0(CgFunc, 1);
        f->key = key;
        f->func = func;
        f->rec = rec;
        f->callees = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                           g_free);
        f->costs = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                         g_free);
        g_hash_table_insert(funcs, &f->key, f);
    }
    return f;
}

static void cg_func_free(gpointer p)
{
    CgFunc *f = p;

    g_hash_table_destroy(f->callees);
    g_hash_table_destroy(f->costs);
    g_free(f);
}

/* Frames of @func open above (and at) a node of the walk, by function. */
static unsigned active_add(GHashTable *active, uint64_t func, int d)
{
    unsigned n = GPOINTER_TO_UINT(g_hash_table_lookup(active, &func)) + d;
    uint64_t *key = g_new(uint64_t, 1);

    *key = func;
    g_hash_table_replace(active, key, GUINT_TO_POINTER(n));
    return n;
}

/*
 * Add the contexts of @c to @funcs: self costs, and arcs to callees;
 * the CgFunc of each node into @of.
 */
static void cg_add(GHashTable *funcs, EtdCalls *c, GHashTable *of)
{
    g_autoptr(GHashTable) active = g_hash_table_new_full(g_int64_hash,
                                                         g_int64_equal,
                                                         g_free, NULL);
    /* the CgFunc of each node on the way down */
    g_autoptr(GPtrArray) path = g_ptr_array_new();
    EtdCallNode *n = c->root.child;

    while (n) {
        CgFunc *f = cg_func(funcs, n->func,
                            active_add(active, n->func, 1) > 1);

        f->self += n->self;
        g_hash_table_insert(of, n, f);
        g_ptr_array_set_size(path, n->depth);
        path->pdata[n->depth - 1] = f;
        if (n->depth > 1) {
            CgFunc *caller = path->pdata[n->depth - 2];
            CgArc *a = g_hash_table_lookup(caller->callees, &f->key);

            if (!a) {
                a = g_new0(CgArc, 1);
                a->key = f->key;
                g_hash_table_insert(caller->callees, &a->key, a);
            }
            a->calls += n->calls;
            a->inclusive += n->total;
        }
        if (n->child) {
            n = n->child;
            continue;
        }
        /* leaving n, and the parents whose last child it is */
        while (n) {
            active_add(active, n->func, -1);
            if (n->sibling) {
                n = n->sibling;
                break;
            }
            n = n->parent == &c->root ? NULL : n->parent;
        }
    }
}

/* An instruction's count in a context, to its CgFunc (in @opaque). */
static void cg_add_cost(void *opaque, EtdCallNode *n, uint64_t addr,
                        uint64_t count)
{
    CgFunc *f = g_hash_table_lookup(opaque, n);
    CgCost *cost;

    if (!f) {
        return;
    }
    cost = g_hash_table_lookup(f->costs, &addr);
    if (!cost) {
        cost = g_new0(CgCost, 1);
        cost->addr = addr;
        g_hash_table_insert(f->costs, &cost->addr, cost);
    }
    cost->count += count;
}

static int cost_cmp(gconstpointer a, gconstpointer b)
{
    const CgCost *x = *(CgCost *const *)a, *y = *(CgCost *const *)b;

    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cg_cmp(gconstpointer a, gconstpointer b)
{
    const CgFunc *x = *(CgFunc *const *)a, *y = *(CgFunc *const *)b;

    return x->key < y->key ? -1 : x->key > y->key;
}

static int arc_cmp(gconstpointer a, gconstpointer b)
{
    const CgArc *x = *(CgArc *const *)a, *y = *(CgArc *const *)b;

    return x->key < y->key ? -1 : x->key > y->key;
}

/* "(id) name" the first time a function is named, "(id)" after. */
static void cg_name(FILE *out, EtdCalls *c, CgFunc *f, bool *named)
{
    char name[256];
    const char *sym;
    uint64_t start;

    if (named[f->id]) {
        fprintf(out, "(%u)\n", f->id);
        return;
    }
    named[f->id] = true;
    if (etd_image_symbol(c->img, f->func, &start, &sym) &&
        start == f->func) {
        snprintf(name, sizeof(name), "%s%s", sym, f->rec ? "'2" : "");
    } else {
        snprintf(name, sizeof(name), "0x%" PRIx64 "%s", f->func,
                 f->rec ? "'2" : "");
    }
    fprintf(out, "(%u) %s\n", f->id, name);
}

/* Source files by name, compressed as "(id) name", then "(id)". */
typedef struct CgFiles {
    GHashTable *ids;            /* name -> id */
    GHashTable *named;          /* ids written */
} CgFiles;

static void cg_file(FILE *out, CgFiles *files, const char *key,
                    const char *file)
{
    unsigned id = GPOINTER_TO_UINT(g_hash_table_lookup(files->ids, file));

    if (!id) {
        id = g_hash_table_size(files->ids) + 1;
        g_hash_table_insert(files->ids, (gpointer)file, GUINT_TO_POINTER(id));
    }
    if (g_hash_table_add(files->named, GUINT_TO_POINTER(id))) {
        fprintf(out, "%s=(%u) %s\n", key, id, file);
    } else {
        fprintf(out, "%s=(%u)\n", key, id);
    }
}

/* The source position of @addr: " LINE" with line tables; its file. */
static const char *cg_pos(EtdLines *lines, uint64_t addr, char *buf,
                          size_t len)
{
    const EtdLineRow *r = lines ? etd_lines_find(lines, addr) : NULL;

    if (!lines) {
        buf[0] = 0;
        return "???";
    }
    snprintf(buf, len, " %u", r ? r->line : 0);
    return r ? r->file : "???";
}

/* One function's record: its calls (at its entry), then its costs. */
static void cg_func_out(FILE *out, EtdCalls *any, GHashTable *funcs,
                        CgFunc *f, EtdLines *lines, CgFiles *files,
                        bool *named)
{
    g_autoptr(GPtrArray) arcs = g_ptr_array_new();
    g_autoptr(GPtrArray) costs = g_ptr_array_new();
    const char *file, *cur;
    char pos[16], cpos[16];
    GHashTableIter it;
    gpointer value;
    unsigned j;

    file = cg_pos(lines, f->func, pos, sizeof(pos));
    cg_file(out, files, "fl", file);
    fputs("fn=", out);
    cg_name(out, any, f, named);
    g_hash_table_iter_init(&it, f->callees);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        g_ptr_array_add(arcs, value);
    }
    g_ptr_array_sort(arcs, arc_cmp);
    for (j = 0; j < arcs->len; j++) {
        CgArc *a = arcs->pdata[j];
        CgFunc *callee = g_hash_table_lookup(funcs, &a->key);

        cg_file(out, files, "cfi", cg_pos(lines, callee->func, cpos,
                                          sizeof(cpos)));
        fputs("cfn=", out);
        cg_name(out, any, callee, named);
        fprintf(out, "calls=%" PRIu64 " 0x%" PRIx64 "%s\n0x%" PRIx64 "%s %"
                PRIu64 "\n", a->calls, callee->func, cpos, f->func, pos,
                a->inclusive);
    }
    if (!lines || !g_hash_table_size(f->costs)) {
        fprintf(out, "0x%" PRIx64 "%s %" PRIu64 "\n", f->func, pos,
                f->self);
        return;
    }
    g_hash_table_iter_init(&it, f->costs);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        g_ptr_array_add(costs, value);
    }
    g_ptr_array_sort(costs, cost_cmp);
    cur = file;
    for (j = 0; j < costs->len; j++) {
        CgCost *cost = costs->pdata[j];
        const char *at = cg_pos(lines, cost->addr, cpos, sizeof(cpos));

        if (at != cur) {
            /* code of another file: inlined, or past the function's */
            cg_file(out, files, "fi", at);
            cur = at;
        }
        fprintf(out, "0x%" PRIx64 "%s %" PRIu64 "\n", cost->addr, cpos,
                cost->count);
    }
}

void etd_callgrind(EtdCalls *const *calls, unsigned n, EtdLines *lines,
                   FILE *out)
{
    g_autoptr(GHashTable) funcs = g_hash_table_new_full(g_int64_hash,
                                                        g_int64_equal, NULL,
                                                        cg_func_free);
    g_autoptr(GHashTable) of = g_hash_table_new(NULL, NULL);
    g_autoptr(GPtrArray) order = g_ptr_array_new();
    g_autofree bool *named = NULL;
    CgFiles files = {
        g_hash_table_new(g_str_hash, g_str_equal),
        g_hash_table_new(NULL, NULL),
    };
    EtdCalls *any = NULL;
    uint64_t total = 0;
    GHashTableIter it;
    gpointer value;
    unsigned k;

    for (k = 0; k < n; k++) {
        if (calls[k]) {
            cg_add(funcs, calls[k], of);
            etd_calls_insn_costs(calls[k], cg_add_cost, of);
            total += calls[k]->insns;
            any = calls[k];
        }
    }
    g_hash_table_iter_init(&it, funcs);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        g_ptr_array_add(order, value);
    }
    g_ptr_array_sort(order, cg_cmp);
    for (k = 0; k < order->len; k++) {
        ((CgFunc *)order->pdata[k])->id = k + 1;
    }
    named = g_new0(bool, order->len + 1);

    fprintf(out, "# callgrind format\nversion: 1\ncreator: etrace-decode\n"
            "cmd: the E-Trace stream (retired instructions)\n"
            "positions: instr%s\nevents: Ir\nsummary: %" PRIu64 "\n\n",
            lines ? " line" : "", total);
    for (k = 0; k < order->len; k++) {
        cg_func_out(out, any, funcs, order->pdata[k], lines, &files, named);
    }
    fprintf(out, "\ntotals: %" PRIu64 "\n", total);
    g_hash_table_destroy(files.ids);
    g_hash_table_destroy(files.named);
}
