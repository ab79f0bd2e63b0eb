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

    if (!etrace_te_data_unpack(&t, &d->dparams, payload, len, &why)) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_DATA,
                    "a te_data packet this decoder cannot read: %s", why);
        return false;
    }
    if (!etrace_data_decode(&a, &d->dparams, &d->dhist, &t, &why)) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_DATA_HISTORY,
                    "a te_data packet that cannot be decompressed: %s", why);
        return false;
    }
    d->accesses[a.dtype & 15]++;
    if (d->sink->data) {
        d->sink->data(d->sink->opaque, d->src, &a,
                      etrace_te_data_has(&d->dparams, a.dtype), timed, time);
    }
    return true;
}

void etd_tie_init(EtdTie *t, EtdImage *img, unsigned src, EtdTieFn *out,
                  void *opaque)
{
    memset(t, 0, sizeof(*t));
    t->img = img;
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

static void tie_match(EtdTie *t)
{
    while (t->a_head < t->accesses->len && t->i_head < t->insns->len) {
        EtdTieAccess *a = &g_array_index(t->accesses, EtdTieAccess,
                                         t->a_head++);
        EtdTieInsn *i = &g_array_index(t->insns, EtdTieInsn, t->i_head);

        t->out(t->opaque, t->src, i->pc, &a->a, a->has);
        t->tied++;
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

    g_array_append_val(t->accesses, e);
    tie_match(t);
}

void etd_tie_insn(EtdTie *t, uint64_t pc, unsigned n)
{
    EtdTieInsn e = { .pc = pc, .left = n };

    g_array_append_val(t->insns, e);
    tie_match(t);
}

void etd_tie_gap(EtdTie *t)
{
    unsigned k;

    for (k = t->a_head; k < t->accesses->len; k++) {
        EtdTieAccess *a = &g_array_index(t->accesses, EtdTieAccess, k);

        t->out(t->opaque, t->src, ETD_NO_PC, &a->a, a->has);
        t->untied++;
    }
    for (k = t->i_head; k < t->insns->len; k++) {
        t->missing += g_array_index(t->insns, EtdTieInsn, k).left;
    }
    g_array_set_size(t->accesses, 0);
    g_array_set_size(t->insns, 0);
    t->a_head = t->i_head = 0;
}

void etd_tie_align(EtdTie *t, unsigned keep)
{
    unsigned waiting = t->accesses->len - t->a_head;
    unsigned k;

    for (k = t->i_head; k < t->insns->len; k++) {
        t->missing += g_array_index(t->insns, EtdTieInsn, k).left;
    }
    g_array_set_size(t->insns, 0);
    t->i_head = 0;
    for (k = 0; k + keep < waiting; k++) {
        EtdTieAccess *a = &g_array_index(t->accesses, EtdTieAccess,
                                         t->a_head++);

        t->out(t->opaque, t->src, ETD_NO_PC, &a->a, a->has);
        t->untied++;
    }
    tie_compact(t->accesses, &t->a_head);
}

/* The data accesses of the instruction at @pc, 0 where no code is. */
static unsigned insn_accesses(EtdImage *img, uint64_t pc)
{
    EtdInsn insn;

    return etd_image_insn(img, pc, &insn) ? insn.data : 0;
}

void etd_tie_retired(EtdTie *t, uint64_t pc)
{
    unsigned n = insn_accesses(t->img, pc);

    if (n) {
        etd_tie_insn(t, pc, n);
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
    etd_tie_align(t, own ? insn_accesses(t->img, pc) : 0);
}
