/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: calls and returns reconstructed from the decoded flow
 * (calls.h).
 */

#include "qemu/osdep.h"
#include "calls.h"

/* The transfer a run ended with, resolved at the next run's start. */
enum {
    ETD_PENDING_NONE,
    ETD_PENDING_CALL,       /* a linking jump: pending_ret its link */
    ETD_PENDING_JUMP,       /* an inferable jump (jal x0, c.j) */
    ETD_PENDING_UNINF,      /* any other jump, returns included */
    ETD_PENDING_XRET,
    ETD_PENDING_TRAP,       /* a trap: pending_ret its epc */
};

void etd_calls_init(EtdCalls *c, EtdImage *img, unsigned src, bool timed,
                    const EtdCallSink *sink)
{
    memset(c, 0, sizeof(*c));
    c->img = img;
    c->src = src;
    c->timed = timed;
    c->sink = sink;
    c->stack = g_array_new(false, false, sizeof(EtdFrame));
}

/* Free the nodes below @root: iteratively, the deepest first. */
static void free_children(EtdCallNode *root)
{
    EtdCallNode *n = root->child;

    while (n) {
        EtdCallNode *up = n->parent;

        if (n->child) {
            n = n->child;
            continue;
        }
        up->child = n->sibling;
        g_free(n->label);
        g_free(n->json);
        g_free(n);
        n = up->child ? up->child : up == root ? NULL : up;
    }
}

static guint cost_hash(gconstpointer key)
{
    const EtdInsnCost *k = key;

    return g_direct_hash(k->node) * 31 + g_direct_hash(k->b);
}

static gboolean cost_equal(gconstpointer a, gconstpointer b)
{
    const EtdInsnCost *x = a, *y = b;

    return x->node == y->node && x->b == y->b;
}

void etd_calls_by_insn(EtdCalls *c)
{
    c->costs = g_hash_table_new_full(cost_hash, cost_equal, g_free, NULL);
    c->cost_cache = g_malloc0(ETD_COST_CACHE * sizeof(*c->cost_cache));
}

/* Instructions @from .. @from + @n - 1 of @b retire in the top frame. */
static void count_insns(EtdCalls *c, const EtdBlock *b, unsigned from,
                        unsigned n)
{
    unsigned slot = (((uintptr_t)b >> 4) ^ ((uintptr_t)c->top >> 4)) &
                    (ETD_COST_CACHE - 1);
    EtdInsnCost *cost = c->cost_cache[slot].cost;

    if (!cost || c->cost_cache[slot].b != b ||
        c->cost_cache[slot].node != c->top) {
        EtdInsnCost key = { .node = c->top, .b = b };

        cost = g_hash_table_lookup(c->costs, &key);
        if (!cost) {
            cost = g_malloc0(sizeof(*cost) +
                             (b->count + 1) * sizeof(cost->diff[0]));
            cost->node = c->top;
            cost->b = b;
            g_hash_table_add(c->costs, cost);
        }
        c->cost_cache[slot].node = c->top;
        c->cost_cache[slot].b = b;
        c->cost_cache[slot].cost = cost;
    }
    etd_block_count_runs(cost->diff, from, n);
}

/* The walk of etd_calls_insn_costs(): the caller's, and the node. */
typedef struct CostWalk {
    void (*fn)(void *opaque, EtdCallNode *n, uint64_t addr, uint64_t count);
    void *opaque;
    EtdCallNode *node;
} CostWalk;

static void node_counts(void *opaque, uint64_t addr, uint64_t count)
{
    CostWalk *w = opaque;

    w->fn(w->opaque, w->node, addr, count);
}

void etd_calls_insn_costs(EtdCalls *c,
                          void (*fn)(void *opaque, EtdCallNode *n,
                                     uint64_t addr, uint64_t count),
                          void *opaque)
{
    GHashTableIter it;
    gpointer key;

    if (!c->costs) {
        return;
    }
    g_hash_table_iter_init(&it, c->costs);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        const EtdInsnCost *cost = key;
        CostWalk w = { fn, opaque, cost->node };

        etd_block_counts(cost->b, cost->diff, node_counts, &w);
    }
}

void etd_calls_free(EtdCalls *c)
{
    free_children(&c->root);
    g_array_free(c->stack, true);
    if (c->costs) {
        g_hash_table_destroy(c->costs);
        g_free(c->cost_cache);
    }
}

static inline EtdFrame *top(EtdCalls *c)
{
    return &g_array_index(c->stack, EtdFrame, c->stack->len - 1);
}

/* The function @pc is in: its symbol's address, else @pc. */
static uint64_t func_of(EtdCalls *c, uint64_t pc)
{
    uint64_t start;

    return etd_image_symbol(c->img, pc, &start, NULL) ? start : pc;
}

/* The child of @parent for @func (entered by a trap or not). */
static EtdCallNode *child(EtdCalls *c, EtdCallNode *parent, uint64_t func,
                          EtdEnter how)
{
    bool trap = how == ETD_ENTER_TRAP;
    EtdCallNode **link = &parent->child, *n;

    for (n = *link; n; link = &n->sibling, n = *link) {
        if (n->func == func && (n->how == ETD_ENTER_TRAP) == trap) {
            return n;
        }
    }
    n = g_new0(EtdCallNode, 1);
    n->parent = parent;
    n->func = func;
    n->how = how;
    n->priv = c->priv;
    n->depth = parent->depth + 1;
    *link = n;
    c->nodes++;
    return n;
}

static void enter(EtdCalls *c, uint64_t func, EtdEnter how, uint64_t ret)
{
    EtdCallNode *parent = c->stack->len ? top(c)->node : &c->root;
    EtdFrame f = {
        .node = child(c, parent, func, how),
        .ret = ret,
        .enter_insns = c->insns,
    };

    if (how == ETD_ENTER_TRAP) {
        f.pending = c->trap_was;
        f.pending_ret = c->trap_was_ret;
        c->trap_was = ETD_PENDING_NONE;
    }

    f.node->calls++;
    g_array_append_val(c->stack, f);
    c->top = f.node;
    if (c->sink && c->sink->enter) {
        c->sink->enter(c->sink->opaque, c->src, f.node, how,
                       etd_calls_now(c));
    }
}

/* Leave the frames from the top down to the one at @k, included. */
static void leave_to(EtdCalls *c, unsigned k)
{
    while (c->stack->len > k) {
        EtdFrame *f = top(c);

        f->node->total += c->insns - f->enter_insns;
        if (c->sink && c->sink->leave) {
            c->sink->leave(c->sink->opaque, c->src, f->node,
                           etd_calls_now(c));
        }
        g_array_set_size(c->stack, c->stack->len - 1);
    }
    c->top = c->stack->len ? top(c)->node : NULL;
}

/* The lowest frame above the innermost trap's (0 when none). */
static unsigned trap_floor(EtdCalls *c)
{
    unsigned k = c->stack->len;

    while (k > 0 &&
           g_array_index(c->stack, EtdFrame, k - 1).node->how !=
           ETD_ENTER_TRAP) {
        k--;
    }
    return k;
}

/*
 * A jump to @pc: a return, or an unwind, to the caller of a frame above
 * the innermost trap's, if it goes where one returns.
 */
static bool unwind(EtdCalls *c, uint64_t pc)
{
    unsigned k;

    for (k = c->stack->len; k > 0; k--) {
        const EtdFrame *f = &g_array_index(c->stack, EtdFrame, k - 1);

        if (f->node->how == ETD_ENTER_TRAP) {
            return false;
        }
        if (f->ret == pc) {
            leave_to(c, k - 1);
            return true;
        }
    }
    return false;
}

/* Enter the function of @pc as where the flow starts, if no frame is. */
static void root_if_empty(EtdCalls *c, uint64_t pc)
{
    if (!c->stack->len) {
        enter(c, func_of(c, pc), ETD_ENTER_ROOT, ETD_NO_PC);
    }
}

/* The flow goes on at @pc after the transfer the last run ended with. */
static void resolve(EtdCalls *c, uint64_t pc)
{
    unsigned pending = c->pending;
    uint64_t func;

    c->pending = ETD_PENDING_NONE;
    switch (pending) {
    case ETD_PENDING_CALL:
        root_if_empty(c, c->pending_ret);
        enter(c, func_of(c, pc), ETD_ENTER_CALL, c->pending_ret);
        return;
    case ETD_PENDING_JUMP:
    case ETD_PENDING_UNINF:
        if (!c->stack->len ||
            (pending == ETD_PENDING_UNINF && unwind(c, pc))) {
            break;
        }
        func = func_of(c, pc);
        if (func == pc && func != top(c)->node->func) {
            /* a jump to the start of another function: a tail call */
            uint64_t ret = top(c)->ret;

            leave_to(c, c->stack->len - 1);
            enter(c, func, ETD_ENTER_TAIL, ret);
        }
        break;
    case ETD_PENDING_XRET: {
        unsigned floor = trap_floor(c);
        uint8_t was = ETD_PENDING_NONE;
        uint64_t was_ret = 0;

        if (floor) {
            EtdFrame *t = &g_array_index(c->stack, EtdFrame, floor - 1);

            was = t->pending;
            was_ret = t->pending_ret;
        }
        leave_to(c, floor ? floor - 1 : 0);
        if (c->stack->len && func_of(c, pc) != top(c)->node->func &&
            was == ETD_PENDING_NONE) {
            /* back elsewhere than where the trap was taken */
            leave_to(c, 0);
        }
        if (was != ETD_PENDING_NONE) {
            /* the trap came between a transfer and its target */
            c->pending = was;
            c->pending_ret = was_ret;
            resolve(c, pc);
        }
        break;
    }
    case ETD_PENDING_TRAP:
        enter(c, func_of(c, pc), ETD_ENTER_TRAP, c->pending_ret);
        return;
    default:
        break;
    }
    root_if_empty(c, pc);
}

void etd_calls_run(EtdCalls *c, const EtdBlock *b, unsigned from,
                   unsigned n, uint8_t priv)
{
    if (unlikely(priv != c->priv || !c->priv_known)) {
        if (c->priv_known && c->sink && c->sink->priv) {
            c->sink->priv(c->sink->opaque, c->src, c->priv, priv,
                          etd_calls_now(c));
        }
        c->priv = priv;
        c->priv_known = true;
    }
    if (unlikely(c->pending != ETD_PENDING_NONE || !c->top)) {
        resolve(c, etd_block_insn_addr(b, from));
    }
    c->top->self += n;
    c->insns += n;
    if (unlikely(c->costs)) {
        count_insns(c, b, from, n);
    }
    if (from + n < b->count) {
        return;
    }
    switch (b->end) {
    case ETD_END_JUMP:
    case ETD_END_UNINF:
        c->pending = b->call ? ETD_PENDING_CALL :
                     b->end == ETD_END_JUMP ? ETD_PENDING_JUMP :
                     ETD_PENDING_UNINF;
        c->pending_ret = b->last + b->last_size;
        break;
    case ETD_END_XRET:
        c->pending = ETD_PENDING_XRET;
        break;
    default:
        break;
    }
}

void etd_calls_trap(EtdCalls *c, bool interrupt, unsigned cause,
                    uint64_t epc)
{
    if (c->pending != ETD_PENDING_NONE && epc != ETD_EPC_UNKNOWN) {
        /* an exception at the target of the last transfer */
        resolve(c, epc);
    }
    if (c->sink && c->sink->trap) {
        c->sink->trap(c->sink->opaque, c->src, interrupt, cause, epc,
                      etd_calls_now(c));
    }
    /*
     * The handler's frame is entered where its first instruction runs;
     * an interrupt between a transfer and its target keeps the transfer
     * for the return from the handler.
     */
    c->trap_was = c->pending;
    c->trap_was_ret = c->pending_ret;
    c->pending = ETD_PENDING_TRAP;
    c->pending_ret = epc;
}

void etd_calls_gap(EtdCalls *c, const char *why)
{
    leave_to(c, 0);
    c->pending = ETD_PENDING_NONE;
    if (c->sink && c->sink->gap) {
        c->sink->gap(c->sink->opaque, c->src, why, etd_calls_now(c));
    }
}

void etd_calls_time(EtdCalls *c, uint64_t time)
{
    c->time = time;
    c->time_insns = c->insns;
}

void etd_calls_finish(EtdCalls *c)
{
    leave_to(c, 0);
    c->pending = ETD_PENDING_NONE;
}

const char *etd_calls_name(EtdCalls *c, const EtdCallNode *n, char *buf,
                           size_t len)
{
    const char *name;
    uint64_t start;

    if (!etd_image_symbol(c->img, n->func, &start, &name) ||
        start != n->func) {
        snprintf(buf, len, "%s0x%" PRIx64,
                 n->how == ETD_ENTER_TRAP ? "[trap] " : "", n->func);
    } else {
        snprintf(buf, len, "%s%s", n->how == ETD_ENTER_TRAP ? "[trap] " : "",
                 name);
    }
    return buf;
}

const char *etd_calls_label(EtdCalls *c, EtdCallNode *n)
{
    char name[256];

    if (!n->label) {
        n->label = g_strdup(etd_calls_name(c, n, name, sizeof(name)));
    }
    return n->label;
}

void etd_calls_folded(EtdCalls *c, FILE *out)
{
    g_autoptr(GString) path = g_string_new(NULL);
    g_autoptr(GArray) lens = g_array_new(false, false, sizeof(gsize));
    EtdCallNode *n = c->root.child;

    g_string_printf(path, "hart %u", c->src);
    g_array_append_val(lens, path->len);
    while (n) {
        /* path: the callers of n, then n */
        g_string_truncate(path, g_array_index(lens, gsize, n->depth - 1));
        g_string_append_c(path, ';');
        g_string_append(path, etd_calls_label(c, n));
        g_array_set_size(lens, n->depth + 1);
        g_array_index(lens, gsize, n->depth) = path->len;
        if (n->self) {
            fprintf(out, "%s %" PRIu64 "\n", path->str, n->self);
        }
        if (n->child) {
            n = n->child;
            continue;
        }
        while (n && !n->sibling) {
            n = n->parent == &c->root ? NULL : n->parent;
        }
        if (n) {
            n = n->sibling;
        }
    }
}
