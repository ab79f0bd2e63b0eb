/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the calling context trees of the sources as a profile
 * in the Callgrind format (what valgrind --tool=callgrind writes, which
 * callgrind_annotate and KCachegrind read): the event is Ir, instructions
 * retired; per function its own instructions and, per callee, the calls
 * and the instructions retired during them.  Positions are instruction
 * addresses (positions: instr): a function's own cost is at its entry,
 * as are its calls.  The harts are summed.  The frames of a function
 * below another of its own are "func'2", as Callgrind separates
 * recursion levels by default.
 */

#include "qemu/osdep.h"
#include "callgrind.h"

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
} CgFunc;

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
        g_hash_table_insert(funcs, &f->key, f);
    }
    return f;
}

static void cg_func_free(gpointer p)
{
    CgFunc *f = p;

    g_hash_table_destroy(f->callees);
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

/* Add the contexts of @c to @funcs: self costs, and arcs to callees. */
static void cg_add(GHashTable *funcs, EtdCalls *c)
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

void etd_callgrind(EtdCalls *const *calls, unsigned n, FILE *out)
{
    g_autoptr(GHashTable) funcs = g_hash_table_new_full(g_int64_hash,
                                                        g_int64_equal, NULL,
                                                        cg_func_free);
    g_autoptr(GPtrArray) order = g_ptr_array_new();
    g_autofree bool *named = NULL;
    EtdCalls *any = NULL;
    uint64_t total = 0;
    GHashTableIter it;
    gpointer value;
    unsigned k;

    for (k = 0; k < n; k++) {
        if (calls[k]) {
            cg_add(funcs, calls[k]);
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
            "positions: instr\nevents: Ir\nsummary: %" PRIu64 "\n\n"
            "fl=(1) ???\n", total);
    for (k = 0; k < order->len; k++) {
        CgFunc *f = order->pdata[k];
        g_autoptr(GPtrArray) arcs = g_ptr_array_new();
        unsigned j;

        fputs("fn=", out);
        cg_name(out, any, f, named);
        fprintf(out, "0x%" PRIx64 " %" PRIu64 "\n", f->func, f->self);
        g_hash_table_iter_init(&it, f->callees);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
            g_ptr_array_add(arcs, value);
        }
        g_ptr_array_sort(arcs, arc_cmp);
        for (j = 0; j < arcs->len; j++) {
            CgArc *a = arcs->pdata[j];
            CgFunc *callee = g_hash_table_lookup(funcs, &a->key);

            fputs("cfn=", out);
            cg_name(out, any, callee, named);
            fprintf(out, "calls=%" PRIu64 " 0x%" PRIx64 "\n0x%" PRIx64 " %"
                    PRIu64 "\n", a->calls, callee->func, f->func,
                    a->inclusive);
        }
    }
    fprintf(out, "\ntotals: %" PRIu64 "\n", total);
}
