/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CTR state across a migration: the guest half of
 * tests/scripts/test-ctr-migrate.py, which stops QEMU while the guest is
 * in a long loop (after it printed "READY"), migrates it to a file,
 * resumes it in a new QEMU and requires the PASS line.  The program also
 * passes when run without migration.
 *
 * In M-mode with mctrctl.M=1 the test sets sctrdepth.DEPTH=2 (64
 * entries, Smctr/Ssctr 1.0 "sctrdepth"), records 70 direct jumps so that
 * WRPTR wraps (70 mod 64 = 6, "sctrstatus"), writes two logical entries
 * by software through siselect/sireg* ("Entry Registers"; logical entry
 * X is physical entry (WRPTR - X - 1) mod depth), then:
 *
 * - default (counter) build: with TKBRINH=1 (the loop's branch is not
 *   recorded, "Transfer Type Filtering") records a jump, runs a loop of
 *   2^26 + 8192 instructions with CTR active, and records another jump.
 *   Its ctrdata.CC must encode 2^26 + 8195 ("Cycle Counting": CCE = index
 *   of the most significant one minus 11, CCM = counter bits
 *   CCE+10:CCE-1; docs/system/riscv/ctr.rst: under -icount shift=0 the
 *   count is the number of instructions after the previous record up to
 *   and including the transfer, ctr-cce-bits=4 by default).  The count
 *   is just above a power of two, so losing more than 8195 or gaining
 *   8189 or more cycles across the migration changes the encoding (CCE
 *   is 15 and CCM holds counter bits 25:14).
 *
 * - -DCTR_MIGRATE_FROZEN build: records a jump, sets sctrstatus.FROZEN,
 *   then loops over a direct jump and a taken branch that must not be
 *   recorded ("Freeze": FROZEN inhibits recording).  Afterwards FROZEN is
 *   still 1 and nothing changed; clearing FROZEN and recording one more
 *   jump gives a record with CCV=1 (spec "Cycle Counting": only cycles
 *   while CTR is active are counted; frozen time is not counted and does
 *   not invalidate the count).
 *
 * Before "READY" and again after the loop, both builds check sctrdepth,
 * sctrstatus (WRPTR, FROZEN), mctrctl and all 64 logical entries: source
 * and target from the workload's labels, TYPE 11 (direct jump, "Control
 * Transfer Type Definitions"), the software-written values exactly, and
 * after the loop every ctrdata equal to its value before the migration.
 */

#include "rt.h"
#include "ctr-decode.h"
#include "ctr-entry.h"
#include "ctr-migrate.h"

#define DEPTH_FIELD     2
#define DEPTH           64
#define CHAIN_LEN       70      /* MIG_CHAIN_LEN in the .S file */
#define CHAIN_INSN      4       /* bytes per jump of the chain */

/* Counter build: 4 * COUNT_N + 3 = 2^26 + 8195 (see mig_count_run). */
#define COUNT_N         16779264UL
#define COUNT_TOTAL     (4 * COUNT_N + 3)
/* Frozen build: 4 instructions per iteration. */
#define FROZEN_N        16500000UL

#define CTRDATA_CC(cc)  ((uint64_t)(cc) << CTRDATA_CC_SHIFT)
#define DATA_ALL        (~0ULL)
#define DATA_TYPE_CCV   (CTRDATA_TYPE_MASK | CTRDATA_CCV)

/* Entries written by software: logical index when written, values. */
struct sw_entry {
    unsigned index;
    uint64_t source, target, data;
};

static const struct sw_entry sw_entries[] = {
    { 5, 0x00000000c0ffee00ULL | CTRSOURCE_V, 0x00000000cafe0ba8ULL,
      CTR_TYPE_INDLJUMP | CTRDATA_CCV | CTRDATA_CC(0x5a5a) },
    { 40, 0x0000001234567890ULL | CTRSOURCE_V, 0x0000000080abcdecULL,
      CTR_TYPE_DIRCALL | CTRDATA_CC(0xa123) },
};
#define NR_SW_ENTRIES (sizeof(sw_entries) / sizeof(sw_entries[0]))

/* Expected logical entry; data is compared under data_mask. */
struct model_entry {
    uint64_t source, target, data, data_mask;
    uint64_t saved_data;        /* ctrdata read before the migration */
    bool saved;
};

static struct model_entry model[DEPTH];

/* A new record in logical entry 0; the rest move down by one. */
static void model_push(const char *source, const char *target,
                       uint64_t data, uint64_t data_mask)
{
    for (unsigned i = DEPTH - 1; i > 0; i--) {
        model[i] = model[i - 1];
    }
    model[0] = (struct model_entry) {
        .source = (uintptr_t)source | CTRSOURCE_V,
        .target = (uintptr_t)target,
        .data = data,
        .data_mask = data_mask,
    };
}

/* Remember every ctrdata as it is now (before the migration). */
static void model_save(void)
{
    for (unsigned i = 0; i < DEPTH; i++) {
        model[i].saved_data = ctr_read_entry(i).data;
        model[i].saved = true;
    }
}

static void check_state(const char *phase, uint64_t status)
{
    rt_printf("checking %s: sctrstatus 0x%lx, 64 entries\n", phase,
              (unsigned long)status);
    CHECK_EQ(csr_read(CSR_SCTRDEPTH), DEPTH_FIELD);
    CHECK_EQ(csr_read(CSR_SCTRSTATUS), status);
    for (unsigned i = 0; i < DEPTH; i++) {
        struct ctr_entry e = ctr_read_entry(i);
        const struct model_entry *m = &model[i];
        bool ok = true;

        ok &= CHECK_EQ(e.source, m->source);
        ok &= CHECK_EQ(e.target, m->target);
        ok &= CHECK_EQ(e.data & m->data_mask, m->data & m->data_mask);
        if (m->saved) {
            ok &= CHECK_EQ(e.data, m->saved_data);
        }
        if (!ok) {
            rt_printf("  (%s: logical entry %u)\n", phase, i);
        }
    }
    /* Logical entries >= depth are read-only 0 ("sctrstatus" note). */
    for (unsigned j = 0; j < 2; j++) {
        unsigned i = j ? CTR_ISELECT_LAST - CTR_ISELECT_FIRST : DEPTH;
        struct ctr_entry e = ctr_read_entry(i);

        if (!(CHECK_EQ(e.source, 0) & CHECK_EQ(e.target, 0) &
              CHECK_EQ(e.data, 0))) {
            rt_printf("  (%s: logical entry %u)\n", phase, i);
        }
    }
}

/* Depth 64, 70 recorded jumps, two entries written by software. */
static void setup(void)
{
    csr_write(CSR_MCTRCTL, 0);
    csr_write(CSR_SCTRDEPTH, DEPTH_FIELD);
    CHECK_EQ(csr_read(CSR_SCTRDEPTH), DEPTH_FIELD);
    sctrclr();
    csr_write(CSR_SCTRSTATUS, 0);
    CHECK_EQ(csr_read(CSR_SCTRSTATUS), 0);

    mig_chain_run(CTRCTL_M);
    CHECK_EQ(mig_chain_end - mig_chain, CHAIN_LEN * CHAIN_INSN);
    CHECK_EQ(csr_read(CSR_SCTRSTATUS), CHAIN_LEN % DEPTH);

    /*
     * Jump k (1-based) goes from mig_chain + 4 * (k - 1) to the next
     * instruction.  Jumps 2..70 come one instruction after the previous
     * record: CCV=1, CC=1; only their TYPE is checked exactly here (the
     * counter build checks two of them fully after the loop).
     */
    memset(model, 0, sizeof(model));
    for (unsigned k = 1; k <= CHAIN_LEN; k++) {
        const char *src = mig_chain + CHAIN_INSN * (k - 1);

        model_push(src, src + CHAIN_INSN, CTR_TYPE_DIRJUMP,
                   CTRDATA_TYPE_MASK);
    }

    for (unsigned i = 0; i < NR_SW_ENTRIES; i++) {
        const struct sw_entry *s = &sw_entries[i];
        struct model_entry *m = &model[s->index];

        ctr_write_entry(s->index, s->source, s->target, s->data);
        m->source = s->source;
        m->target = s->target;
        m->data = s->data;
        m->data_mask = DATA_ALL;
    }
}

/*
 * The harness stops the machine soon after this line, checks that the PC
 * is in lo..hi and reports the progress from the loop's down-counter
 * (register x<reg>, starting at n).
 */
static void print_ready(const char *lo, const char *hi, unsigned reg,
                        unsigned long n)
{
    rt_printf("READY loop 0x%lx 0x%lx x%u %lu\n",
              (unsigned long)(uintptr_t)lo, (unsigned long)(uintptr_t)hi,
              reg, n);
}

#ifndef CTR_MIGRATE_FROZEN

static int run(void)
{
    const unsigned long ctl = CTRCTL_M | CTRCTL_TKBRINH;
    unsigned long out[2];
    unsigned wrptr = CHAIN_LEN % DEPTH;
    uint64_t data;

    rt_printf("CTR migration, counter: loop of %lu instructions between "
              "two records\n", COUNT_TOTAL);
    check_state("before the loop", wrptr);
    model_save();

    print_ready(mig_count_loop, mig_count_loop_end, 5, COUNT_N);   /* t0 */
    mig_count_run(ctl, COUNT_N, out);

    /* mig_ja: first record after the mctrctl write, so CCV=0. */
    model_push(mig_ja, mig_ja_tgt, CTR_TYPE_DIRJUMP, DATA_TYPE_CCV);
    model_push(mig_jb, mig_jb_tgt,
               CTR_TYPE_DIRJUMP | CTRDATA_CCV |
               CTRDATA_CC(ctr_cc_encode(COUNT_TOTAL, 4)), DATA_ALL);
    /* Jump 70 (now entry 2) and jump 9 (entry 63): count 1, valid. */
    model[2].data = model[DEPTH - 1].data =
        CTR_TYPE_DIRJUMP | CTRDATA_CCV | CTRDATA_CC(1);
    model[2].data_mask = model[DEPTH - 1].data_mask = DATA_ALL;

    data = ctr_read_entry(0).data;
    rt_printf("after the loop: mcycle delta %lu; mig_jb ctrdata 0x%lx, CC "
              "0x%x = %lu cycles; expected CC 0x%x for %lu\n", out[0],
              (unsigned long)data, (unsigned)(data >> CTRDATA_CC_SHIFT),
              (unsigned long)ctr_cc_cycles(data >> CTRDATA_CC_SHIFT),
              ctr_cc_encode(COUNT_TOTAL, 4), COUNT_TOTAL);
    /* Under -icount shift=0 mcycle counts instructions. */
    CHECK_EQ(out[0] + 2, COUNT_TOTAL);
    CHECK_EQ(out[1], ctl);
    CHECK_EQ(csr_read(CSR_MCTRCTL), 0);
    check_state("after the loop", (wrptr + 2) % DEPTH);
    return 0;
}

#else

static void frozen_ready(void)
{
    /* Frozen: none of this is recorded. */
    check_state("before the loop",
                ((CHAIN_LEN + 1) % DEPTH) | SCTRSTATUS_FROZEN);
    model_save();
    print_ready(mig_frozen_loop, mig_frozen_loop_end, 8, FROZEN_N); /* s0 */
}

static int run(void)
{
    unsigned wrptr = CHAIN_LEN % DEPTH;

    rt_printf("CTR migration, frozen: loop of %lu instructions while "
              "frozen\n", 4 * FROZEN_N);
    /* mig_fj: first record after the mctrctl write, so CCV=0. */
    model_push(mig_fj, mig_fj_tgt, CTR_TYPE_DIRJUMP, DATA_TYPE_CCV);
    mig_frozen_run(CTRCTL_M, FROZEN_N, frozen_ready);

    /* Still enabled and frozen: nothing here is recorded. */
    CHECK_EQ(csr_read(CSR_MCTRCTL), CTRCTL_M);
    check_state("after the loop", ((wrptr + 1) % DEPTH) | SCTRSTATUS_FROZEN);

    /* Unfrozen, recording resumes; frozen time was not counted: CCV=1. */
    mig_unfreeze_run();
    model_push(mig_fu, mig_fu_tgt, CTR_TYPE_DIRJUMP | CTRDATA_CCV,
               DATA_TYPE_CCV);
    CHECK_EQ(csr_read(CSR_MCTRCTL), 0);
    check_state("after unfreezing", (wrptr + 2) % DEPTH);
    return 0;
}

#endif

int main(void)
{
    setup();
    return run();
}
