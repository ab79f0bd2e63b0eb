/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CTR RAS (return address stack) emulation (Smctr/Ssctr 1.0, "RAS
 * (Return Address Stack) Emulation Mode", sctrstatus.WRPTR and the
 * cycle counting note on RASEMU; docs/system/riscv/ctr.rst), with
 * mctrctl.RASEMU=1 and a depth of 16:
 *
 * - calls (jal x1/x5, jalr x1/x5, c.jalr, jalr x1 with rs x1) are
 *   recorded as usual: a push at WRPTR, WRPTR incremented;
 * - function returns (jalr x0/x6 with rs x1/x5, c.jr x1/x5) pop: WRPTR
 *   is decremented and that entry's ctrsource.V cleared, nothing else,
 *   so logical entry 0 becomes logical entry depth-1 (invalid) and
 *   logical entries 1..depth-1 move to 0..depth-2;
 * - co-routine swaps (jalr x1,x5 / jalr x5,x1 / c.jalr x5) overwrite
 *   logical entry 0 and leave WRPTR alone;
 * - jumps, branches (also not-taken with NTBREN=1), other jumps with
 *   linkage, traps, trap returns and external traps (with MTE=1) are
 *   not recorded;
 * - the transfer type filter bits and the external trap enables are
 *   ignored (every test runs with none and with all of them set);
 * - 20 nested calls at depth 16, then 20 returns, then 3 calls again:
 *   exact WRPTR and entries after every call phase and every return.
 *
 * Cycle counting (run with -icount shift=0; the contract's choice): the
 * counter restarts on every record; a call directly after a call (or
 * after a swap, or after transfers that are not recorded) has CCV=1 and
 * the instructions since that record as its count; a call recorded after
 * returns popped entries has CCV=0; the first record after the mctrctl
 * write has CCV=0 and the count since the write.  A swap replaces the
 * record the counter started from, so its CC does not count from the
 * record now below it: CCV=0.  CC is not checked when CCV=0 except after
 * the mctrctl write.
 */

#include "rt.h"
#include "ctr-decode.h"
#include "ctr-rasemu.h"

#define SNAP_INSNS      131     /* instructions of SNAP, checked below */
#define CC_ANY          (~0ULL) /* CC not checked (CCV=0 records) */

static struct snap snaps[32];
static bool cycles_on;

/* The expected buffer: physical entries and WRPTR. */
struct model {
    unsigned wrptr;
    uint64_t src[RAS_DEPTH], tgt[RAS_DEPTH], data[RAS_DEPTH];
    bool cc_any[RAS_DEPTH];
};

static void model_init(struct model *m, unsigned wrptr)
{
    memset(m, 0, sizeof(*m));
    m->wrptr = wrptr;
}

static void model_write(struct model *m, unsigned phys, const void *src,
                        const void *tgt, unsigned type, bool ccv,
                        uint64_t count)
{
    m->src[phys] = (uintptr_t)src | CTRSOURCE_V;
    m->tgt[phys] = (uintptr_t)tgt;
    m->data[phys] = type;
    m->cc_any[phys] = false;
    if (cycles_on) {
        m->data[phys] |= ccv ? CTRDATA_CCV : 0;
        if (count == CC_ANY) {
            m->cc_any[phys] = true;
        } else {
            /* All counts here are below 4096: CCE=0, CCM=count. */
            m->data[phys] |= count << CTRDATA_CC_SHIFT;
        }
    }
}

/* A call: written at WRPTR, WRPTR incremented. */
static void model_push(struct model *m, const void *src, const void *tgt,
                       unsigned type, bool ccv, uint64_t count)
{
    model_write(m, m->wrptr, src, tgt, type, ccv, count);
    m->wrptr = (m->wrptr + 1) % RAS_DEPTH;
}

/* A return: WRPTR decremented, then that entry's V cleared. */
static void model_pop(struct model *m)
{
    m->wrptr = (m->wrptr + RAS_DEPTH - 1) % RAS_DEPTH;
    m->src[m->wrptr] &= ~CTRSOURCE_V;
}

/* A co-routine swap: logical entry 0 overwritten, WRPTR unchanged. */
static void model_swap(struct model *m, const void *src, const void *tgt)
{
    model_write(m, (m->wrptr + RAS_DEPTH - 1) % RAS_DEPTH, src, tgt,
                CTR_TYPE_CORSWAP, false, CC_ANY);
}

/* Compare snapshot @n with the model, printing at most a few diffs. */
static void check_snap(const char *what, unsigned n, const struct model *m)
{
    const struct snap *s = &snaps[n];
    unsigned shown = 0, bad = 0;

    if (!CHECK_EQ(s->status, m->wrptr)) {
        rt_printf("  ^ %s, snapshot %u: sctrstatus (WRPTR)\n", what, n);
    }
    for (unsigned i = 0; i < RAS_DEPTH; i++) {
        unsigned phys = (m->wrptr + RAS_DEPTH - 1 - i) % RAS_DEPTH;
        uint64_t cc_mask = m->cc_any[phys] ? CTRDATA_CC_MASK : 0;
        uint64_t data = s->e[i].data & ~cc_mask;
        bool ok = s->e[i].src == m->src[phys] &&
                  s->e[i].tgt == m->tgt[phys] && data == m->data[phys];

        if (ok) {
            continue;
        }
        bad++;
        if (shown++ < 3) {
            CHECK_EQ(s->e[i].src, m->src[phys]);
            CHECK_EQ(s->e[i].tgt, m->tgt[phys]);
            CHECK_EQ(data, m->data[phys]);
            rt_printf("  ^ %s, snapshot %u, logical entry %u (type %u, "
                      "CCV %u, CC 0x%x)\n", what, n, i,
                      (unsigned)(s->e[i].data & CTRDATA_TYPE_MASK),
                      (unsigned)!!(s->e[i].data & CTRDATA_CCV),
                      (unsigned)((s->e[i].data & CTRDATA_CC_MASK) >>
                                 CTRDATA_CC_SHIFT));
        }
    }
    if (!CHECK_EQ(bad, 0)) {
        rt_printf("  ^ %s, snapshot %u: %u of %u entries differ\n",
                  what, n, bad, RAS_DEPTH);
    }
}

/* CTR off, WRPTR @wrptr, not frozen, entries cleared. */
static void reset_ctr(unsigned wrptr)
{
    csr_write(CSR_MCTRCTL, 0);
    csr_write(CSR_SCTRSTATUS, wrptr);
    sctrclr();
    memset(snaps, 0xa5, sizeof(snaps));
}

/*
 * 20 nested calls at depth 16 from WRPTR 13, 20 returns, 3 calls, 3
 * returns.
 */
static void test_chain(const char *what, unsigned long ctl)
{
    const unsigned w0 = 13;
    struct model m;
    unsigned n = 0;

    rt_printf("%s: 20 nested calls, 20 returns, 3 calls, 3 returns\n",
              what);
    reset_ctr(w0);
    ras_chain(ctl, snaps);

    model_init(&m, w0);
    for (unsigned j = 0; j < 20; j++) {
        /* The first after the mctrctl write; then 3 instructions each. */
        model_push(&m, (void *)ras_chain_site[j], (void *)ras_chain_fn[j],
                   CTR_TYPE_DIRCALL, j > 0, j ? 3 : 1);
    }
    check_snap(what, n++, &m);
    /* By hand: WRPTR (13 + 20) % 16; newest call 20, oldest kept 5. */
    CHECK_EQ(snaps[0].status, 1);
    CHECK_EQ(snaps[0].e[0].src, ras_chain_site[19] | CTRSOURCE_V);
    CHECK_EQ(snaps[0].e[0].tgt, (uintptr_t)ras_f20);
    CHECK_EQ(snaps[0].e[15].src, ras_chain_site[4] | CTRSOURCE_V);
    CHECK_EQ(snaps[0].e[15].tgt, ras_chain_fn[4]);

    for (unsigned k = 0; k < 20; k++) {
        model_pop(&m);
        check_snap(what, n++, &m);
    }
    /* By hand, after one return: call 20 invalid at logical 15. */
    CHECK_EQ(snaps[1].status, 0);
    CHECK_EQ(snaps[1].e[0].src, ras_chain_site[18] | CTRSOURCE_V);
    CHECK_EQ(snaps[1].e[15].src, ras_chain_site[19]);
    CHECK_EQ(snaps[1].e[15].tgt, (uintptr_t)ras_f20);
    /* After 20: WRPTR back at 13, all invalid, logical 0 was call 16. */
    CHECK_EQ(snaps[20].status, w0);
    for (unsigned i = 0; i < RAS_DEPTH; i++) {
        CHECK_EQ(snaps[20].e[i].src & CTRSOURCE_V, 0);
    }
    CHECK_EQ(snaps[20].e[0].src, ras_chain_site[15]);

    /* Calls again: the first follows pops (CCV=0). */
    model_push(&m, ras_c0b, ras_f18, CTR_TYPE_DIRCALL, false, CC_ANY);
    model_push(&m, ras_c18, ras_f19, CTR_TYPE_DIRCALL, true, 3);
    model_push(&m, ras_c19, ras_f20, CTR_TYPE_DIRCALL, true, 3);
    check_snap(what, n++, &m);
    for (unsigned k = 0; k < 3; k++) {
        model_pop(&m);
        check_snap(what, n++, &m);
    }
    CHECK_EQ(snaps[24].status, w0);
}

/* Every call/return/swap form and every other transfer, from WRPTR 3. */
static void test_forms(const char *what, unsigned long ctl)
{
    const unsigned w0 = 3;
    const uint64_t count25 = 11 * SNAP_INSNS + 22;
    struct model m;
    unsigned n = 0;
    unsigned long delta;

    rt_printf("%s: call, return and swap forms, other transfers\n", what);
    reset_ctr(w0);
    delta = ras_forms(ctl, snaps);
    if (!CHECK_EQ(delta + 2, count25)) {
        rt_printf("  ^ %s: mcycle disagrees with the instruction count "
                  "from swap 14 to call 25\n", what);
    }

    model_init(&m, w0);
    check_snap(what, n++, &m);
    /* Calls: SNAP, then "la" (2) unless direct, then the call. */
    model_push(&m, fm_c1, fm_t1, CTR_TYPE_DIRCALL, false, SNAP_INSNS + 1);
    check_snap(what, n++, &m);
    model_push(&m, fm_c2, fm_t2, CTR_TYPE_INDCALL, true, SNAP_INSNS + 3);
    check_snap(what, n++, &m);
    model_push(&m, fm_c3, fm_t3, CTR_TYPE_INDCALL, true, SNAP_INSNS + 3);
    check_snap(what, n++, &m);
    model_push(&m, fm_c4, fm_t4, CTR_TYPE_DIRCALL, true, SNAP_INSNS + 1);
    check_snap(what, n++, &m);
    model_push(&m, fm_c5, fm_t5, CTR_TYPE_INDCALL, true, SNAP_INSNS + 3);
    check_snap(what, n++, &m);
    model_push(&m, fm_c6, fm_t6, CTR_TYPE_INDCALL, true, SNAP_INSNS + 3);
    check_snap(what, n++, &m);
    /* Returns 7..11. */
    for (unsigned k = 7; k <= 11; k++) {
        model_pop(&m);
        check_snap(what, n++, &m);
    }
    /* By hand: one call left (1), WRPTR w0 + 1, logical 15 is call 2. */
    CHECK_EQ(snaps[11].status, w0 + 1);
    CHECK_EQ(snaps[11].e[0].src, (uintptr_t)fm_c1 | CTRSOURCE_V);
    CHECK_EQ(snaps[11].e[15].src, (uintptr_t)fm_c2);
    /* Swaps 12..14 replace logical entry 0 (call 1). */
    model_swap(&m, fm_s12, fm_t12);
    check_snap(what, n++, &m);
    model_swap(&m, fm_s13, fm_t13);
    check_snap(what, n++, &m);
    model_swap(&m, fm_s14, fm_t14);
    check_snap(what, n++, &m);
    CHECK_EQ(snaps[14].status, w0 + 1);
    CHECK_EQ(snaps[14].e[0].src, (uintptr_t)fm_s14 | CTRSOURCE_V);
    /* 15..24: jumps, branches, jumps with linkage, ecall: nothing. */
    for (unsigned k = 15; k <= 24; k++) {
        check_snap(what, n++, &m);
    }
    /* 25: no pop since swap 14, the count runs from there. */
    model_push(&m, fm_c25, fm_t25, CTR_TYPE_DIRCALL, true, count25);
    check_snap(what, n++, &m);
    model_pop(&m);                                  /* 26 */
    check_snap(what, n++, &m);
    /* 27: after a pop. */
    model_push(&m, fm_c27, fm_t27, CTR_TYPE_DIRCALL, false, CC_ANY);
    check_snap(what, n++, &m);
}

/* U-mode only, external traps to M enabled (MTE): not recorded. */
static void test_ext(const char *what, unsigned long ctl)
{
    const unsigned w0 = 9;
    struct model m;

    rt_printf("%s: external traps from U-mode with MTE=1\n", what);
    reset_ctr(w0);
    ras_ext(ctl, snaps);
    model_init(&m, w0);
    check_snap(what, 0, &m);
    /* The call, first record after the write and the mret from M. */
    model_push(&m, ue_c1, ue_f, CTR_TYPE_DIRCALL, false, CC_ANY);
    check_snap(what, 1, &m);
    model_pop(&m);
    check_snap(what, 2, &m);
}

int main(void)
{
    const unsigned long filters =
        CTRCTL_EXCINH | CTRCTL_INTRINH | CTRCTL_TRETINH | CTRCTL_NTBREN |
        CTRCTL_TKBRINH | CTRCTL_INDCALLINH | CTRCTL_DIRCALLINH |
        CTRCTL_INDJMPINH | CTRCTL_DIRJMPINH | CTRCTL_CORSWAPINH |
        CTRCTL_RETINH | CTRCTL_INDLJMPINH | CTRCTL_DIRLJMPINH;
    const unsigned long ras = CTRCTL_RASEMU;
    unsigned long rb;

    csr_write(CSR_SCTRDEPTH, 0);        /* 16 entries */
    CHECK_EQ(csr_read(CSR_SCTRDEPTH), 0);
    csr_write(CSR_MCTRCTL, ras);
    if (!CHECK_EQ(csr_read(CSR_MCTRCTL), ras)) {
        rt_printf("mctrctl.RASEMU is not writable\n");
        return 1;
    }
    csr_write(CSR_MCTRCTL, 0);

    /* Cycle counting present: CCV writable (read-only 0 when off). */
    reset_ctr(0);
    csr_write(CSR_SISELECT, CTR_ISELECT_FIRST);
    csr_write(CSR_SIREG3, CTRDATA_CCV);
    rb = csr_read(CSR_SIREG3);
    cycles_on = rb & CTRDATA_CCV;
    rt_printf("cycle counting %s\n", cycles_on ? "on" : "off");

    /* SNAP is SNAP_INSNS instructions (mcycle needs -icount shift=0). */
    if (!CHECK_EQ(ras_snap_cal(0, snaps) - 1, SNAP_INSNS)) {
        rt_printf("mcycle does not count instructions exactly: run with "
                  "-icount shift=0\n");
        return 1;
    }

    test_chain("chain", CTRCTL_M | ras);
    test_chain("chain, all filter bits and MTE/STE set",
               CTRCTL_M | ras | filters | CTRCTL_MTE | CTRCTL_STE);
    test_forms("forms", CTRCTL_M | ras);
    test_forms("forms, NTBREN=1", CTRCTL_M | ras | CTRCTL_NTBREN);
    test_forms("forms, all filter bits and MTE/STE set",
               CTRCTL_M | ras | filters | CTRCTL_MTE | CTRCTL_STE);
    test_ext("ext", CTRCTL_U | CTRCTL_MTE | CTRCTL_STE | ras);
    test_ext("ext, all filter bits set",
             CTRCTL_U | CTRCTL_MTE | CTRCTL_STE | ras | filters);
    reset_ctr(0);
    return 0;
}
