/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: te_data packets (hw/riscv/etrace-data.h), read in
 * stream order with their source's compression history.
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/host-utils.h"
#include "etrace-decode.h"

const char *etd_dtype_name(unsigned dtype)
{
    static const char *const names[16] = {
        [ETRACE_DTYPE_LOAD] = "load",
        [ETRACE_DTYPE_STORE] = "store",
        [ETRACE_DTYPE_CAS_FAIL] = "failed-cas",
        [ETRACE_DTYPE_AMO_SWAP] = "swap",
        [ETRACE_DTYPE_AMO_ADD] = "add",
        [ETRACE_DTYPE_AMO_AND] = "and",
        [ETRACE_DTYPE_AMO_OR] = "or",
        [ETRACE_DTYPE_AMO_XOR] = "xor",
        [ETRACE_DTYPE_AMO_MAX] = "max",
        [ETRACE_DTYPE_AMO_MIN] = "min",
        [ETRACE_DTYPE_SC_FAIL] = "failed-sc",
    };

    return dtype < 16 && names[dtype] ? names[dtype] : "?";
}

void etd_data_te_inst(EtdDecoder *d, const ETraceTeInst *t)
{
    unsigned opt = t->doptions;

    if (t->format != ETRACE_FMT_SYNC) {
        return;
    }
    etrace_data_history_reset(&d->dhist);
    if (t->subformat != ETRACE_SYNC_SUPPORT) {
        return;
    }
    if (d->params.protocol >= ETRACE_PROTOCOL_2_1) {
        d->dparams.mmacas = opt & ETRACE_DOPT_MMACAS;
    } else {
        /* 2.0: the four of them after mmacas_ext */
        opt <<= 1;
    }
    d->dparams.noaddr = opt & ETRACE_DOPT_NOADDR;
    d->dparams.nodata = opt & ETRACE_DOPT_NODATA;
    if (t->dloss) {
        /* a request may have lost its data phase */
        memset(d->dreq_size, 0xff, sizeof(d->dreq_size));
        d->data_losses++;
        if (d->sink->data_lost) {
            d->sink->data_lost(d->sink->opaque, d->src);
        }
    }
}

bool etd_data_packet(EtdDecoder *d, const uint8_t *payload, unsigned len,
                     bool timed, uint64_t time, GError **errp)
{
    ETraceTeData t;
    ETraceDataAccess a;
    const char *why;

    if (!etrace_te_data_unpack(&t, &d->dparams, d->dreq_size, payload, len,
                               &why)) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_DATA,
                    "a te_data packet this decoder cannot read: %s", why);
        return false;
    }
    if (t.phase == ETRACE_DPHASE_DATA) {
        /* split signalling: the access of the request of its lrid */
        if (d->dreq_size[t.lrid] == 0xff) {
            g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_DATA,
                        "a te_data data phase with no request of lrid %u",
                        t.lrid);
            return false;
        }
        a = d->dreq[t.lrid];
        d->dreq_size[t.lrid] = 0xff;
    } else if (t.phase == ETRACE_DPHASE_REQUEST &&
               d->dreq_size[t.lrid] != 0xff) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_DATA,
                    "a te_data request of lrid %u, whose last request has "
                    "had no data phase", t.lrid);
        return false;
    }
    if (!etrace_data_decode(&a, &d->dparams, &d->dhist, &t, &why)) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_DATA_HISTORY,
                    "a te_data packet that cannot be decompressed: %s", why);
        return false;
    }
    if (t.phase == ETRACE_DPHASE_REQUEST) {
        d->dreq[t.lrid] = a;
        d->dreq_size[t.lrid] = a.size;
        return true;
    }
    d->accesses[a.dtype & 15]++;
    if (d->sink->data) {
        d->sink->data(d->sink->opaque, d->src, &a,
                      etrace_te_data_has(&d->dparams, a.dtype), timed, time);
    }
    return true;
}

void etd_tie_init(EtdTie *t, EtdImage *img, bool mmacas, unsigned src,
                  EtdTieFn *out, void *opaque)
{
    memset(t, 0, sizeof(*t));
    t->img = img;
    t->mmacas = mmacas;
    t->accesses = g_array_new(false, false, sizeof(EtdTieAccess));
    t->insns = g_array_new(false, false, sizeof(EtdTieInsn));
    t->src = src;
    t->out = out;
    t->opaque = opaque;
}

void etd_tie_free(EtdTie *t)
{
    g_array_free(t->accesses, true);
    g_array_free(t->insns, true);
}

/* Drop the @head entries of @q taken, once they are most of it. */
static void tie_compact(GArray *q, unsigned *head)
{
    if (*head == q->len) {
        g_array_set_size(q, 0);
        *head = 0;
    } else if (*head >= 64 && *head * 2 >= q->len) {
        g_array_remove_range(q, 0, *head);
        *head = 0;
    }
}

static EtdTieAccess *tie_access_at(EtdTie *t, unsigned k)
{
    return &g_array_index(t->accesses, EtdTieAccess, k);
}

static EtdTieInsn *tie_insn_at(EtdTie *t, unsigned k)
{
    return &g_array_index(t->insns, EtdTieInsn, k);
}

/* The access at the head goes out, tied to @pc. */
static void tie_take(EtdTie *t, uint64_t pc)
{
    EtdTieAccess *a = tie_access_at(t, t->a_head++);

    t->out(t->opaque, t->src, pc, &a->a, a->has);
    if (pc == ETD_NO_PC) {
        t->untied++;
    } else {
        t->tied++;
    }
}

/* Whether the access @a may be one of those @i makes. */
static bool tie_fits(const EtdTieInsn *i, const EtdTieAccess *a)
{
    return a->a.mma &&
           (i->dir == ETD_DATA_ANY || i->dir == a->a.dtype) &&
           (i->size == ETD_DATA_ANY || i->size == a->a.size);
}

/* Whether @i and @j may make accesses of the same kind. */
static bool tie_alike(const EtdTieInsn *i, const EtdTieInsn *j)
{
    return (i->dir == ETD_DATA_ANY || j->dir == ETD_DATA_ANY ||
            i->dir == j->dir) &&
           (i->size == ETD_DATA_ANY || j->size == ETD_DATA_ANY ||
            i->size == j->size);
}

/* Whether an access of @k..@end - 1 may be @a. */
static bool tie_fits_any(EtdTie *t, unsigned k, unsigned end,
                         const EtdTieAccess *a)
{
    for (; k < end; k++) {
        if (tie_fits(tie_insn_at(t, k), a)) {
            return true;
        }
    }
    return false;
}

/*
 * The vector load or store at the head takes its accesses, which the
 * stream marks as multi-memory accesses; they are all loads or all
 * stores, all of one size, which but for indexed ones its code says (an
 * indexed one's is that of its first access).  The multi-memory access
 * instructions after it that may make accesses like it, or like one of
 * those, make its group (it waits until the instruction that ends the
 * group is known); the group's accesses are the run of those at the head
 * that fit one of its instructions.  Alone, it takes the run; with static
 * ones (cm.pop*), those leave it the start of the run; with another
 * vector one, where each one's accesses end cannot be told: the run goes
 * out untied.  (Where an instruction between two vector instructions
 * alike makes no access, the second one's accesses go to the first.)
 * Returns false when what it needs has not come yet.
 */
static bool tie_vector(EtdTie *t)
{
    EtdTieInsn *v = tie_insn_at(t, t->i_head);
    unsigned k, run, after = 0, end;
    bool vectors = false;

    if (!t->mmacas) {
        /*
         * The 2.0 layouts do not mark them: nothing can be tied until
         * the flow starts again.
         */
        etd_tie_gap(t);
        t->blind = true;
        return false;
    }
    if (v->size == ETD_DATA_ANY && t->a_head < t->accesses->len &&
        tie_fits(v, tie_access_at(t, t->a_head))) {
        v->size = tie_access_at(t, t->a_head)->a.size;
    }
    for (end = t->i_head + 1; end < t->insns->len; end++) {
        EtdTieInsn *j = tie_insn_at(t, end);

        for (k = t->i_head; k < end && !tie_alike(tie_insn_at(t, k), j);
             k++) {
            /* like none so far */
        }
        if (!j->mma || k == end) {
            break;
        }
        if (j->left == ETD_DATA_VECTOR) {
            vectors = true;
        } else {
            after += j->left;
        }
    }
    if (end == t->insns->len) {
        /* the instruction that ends the group has not come yet */
        return false;
    }
    if (end == t->i_head + 1) {
        while (t->a_head < t->accesses->len &&
               tie_fits(v, tie_access_at(t, t->a_head))) {
            tie_take(t, v->pc);
        }
        if (t->a_head == t->accesses->len) {
            return false;
        }
        t->i_head++;
        return true;
    }
    /* the group's run, once an access of none of them ends it */
    for (k = t->a_head; k < t->accesses->len &&
         tie_fits_any(t, t->i_head, end, tie_access_at(t, k)); k++) {
        /* in the run */
    }
    if (k == t->accesses->len) {
        return false;
    }
    run = k - t->a_head;
    if (vectors || run < after) {
        while (run--) {
            tie_take(t, ETD_NO_PC);
        }
        for (k = t->i_head; k < end; k++) {
            if (tie_insn_at(t, k)->left != ETD_DATA_VECTOR) {
                t->missing += tie_insn_at(t, k)->left;
            }
        }
        t->i_head = end;
        return true;
    }
    for (k = run - after; k; k--) {
        tie_take(t, v->pc);
    }
    t->i_head++;
    return true;
}

static void tie_match(EtdTie *t)
{
    while (t->a_head < t->accesses->len && t->i_head < t->insns->len) {
        EtdTieInsn *i = tie_insn_at(t, t->i_head);

        if (i->left == ETD_DATA_VECTOR) {
            if (!tie_vector(t)) {
                break;
            }
            continue;
        }
        tie_take(t, i->pc);
        if (!--i->left) {
            t->i_head++;
        }
    }
    tie_compact(t->accesses, &t->a_head);
    tie_compact(t->insns, &t->i_head);
}

void etd_tie_access(EtdTie *t, const ETraceDataAccess *a, unsigned has)
{
    EtdTieAccess e = { .a = *a, .has = has };

    if (t->blind) {
        t->out(t->opaque, t->src, ETD_NO_PC, a, has);
        t->untied++;
        return;
    }
    g_array_append_val(t->accesses, e);
    tie_match(t);
}

void etd_tie_insn(EtdTie *t, uint64_t pc, const EtdInsn *insn)
{
    EtdTieInsn e = {
        .pc = pc, .left = insn->data, .mma = insn->data_mma,
        .dir = insn->data_dir, .size = insn->data_size,
    };

    if (t->blind) {
        return;
    }
    g_array_append_val(t->insns, e);
    tie_match(t);
}

/* The instructions waiting get no access. */
static void tie_drop_insns(EtdTie *t)
{
    unsigned k;

    for (k = t->i_head; k < t->insns->len; k++) {
        if (tie_insn_at(t, k)->left != ETD_DATA_VECTOR) {
            t->missing += tie_insn_at(t, k)->left;
        }
    }
    g_array_set_size(t->insns, 0);
    t->i_head = 0;
}

void etd_tie_gap(EtdTie *t)
{
    unsigned k;

    for (k = t->a_head; k < t->accesses->len; k++) {
        EtdTieAccess *a = &g_array_index(t->accesses, EtdTieAccess, k);

        t->out(t->opaque, t->src, ETD_NO_PC, &a->a, a->has);
        t->untied++;
    }
    tie_drop_insns(t);
    g_array_set_size(t->accesses, 0);
    t->a_head = 0;
}

void etd_tie_align(EtdTie *t, unsigned keep)
{
    unsigned waiting = t->accesses->len - t->a_head;
    unsigned k;

    t->blind = false;
    tie_drop_insns(t);
    for (k = 0; k + keep < waiting; k++) {
        EtdTieAccess *a = &g_array_index(t->accesses, EtdTieAccess,
                                         t->a_head++);

        t->out(t->opaque, t->src, ETD_NO_PC, &a->a, a->has);
        t->untied++;
    }
    tie_compact(t->accesses, &t->a_head);
}

/* The data accesses of the instruction at @pc, 0 where no code is. */
void etd_tie_retired(EtdTie *t, uint64_t pc)
{
    EtdInsn insn;

    if (etd_image_insn(t->img, pc, &insn) && insn.data) {
        etd_tie_insn(t, pc, &insn);
    }
}

void etd_tie_run(EtdTie *t, const EtdBlock *b, unsigned from, unsigned n)
{
    uint64_t data = b->data & MAKE_64BIT_MASK(from, n);

    while (data) {
        etd_tie_retired(t, etd_block_insn_addr(b, ctz64(data)));
        data &= data - 1;
    }
}

void etd_tie_restart(EtdTie *t, uint64_t pc, bool own)
{
    unsigned keep = 0, k;
    EtdInsn insn;

    if (own && etd_image_insn(t->img, pc, &insn)) {
        keep = insn.data;
    }
    if (keep == ETD_DATA_VECTOR) {
        /* a vector load or store: the marked accesses at the end */
        keep = 0;
        for (k = t->accesses->len; t->mmacas && k > t->a_head &&
             tie_access_at(t, k - 1)->a.mma; k--) {
            keep++;
        }
    }
    etd_tie_align(t, keep);
}
