/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CTR cycle counting (Smctr/Ssctr 1.0, "Cycle Counting" and the ctrdata
 * register; docs/system/riscv/ctr.rst, "Cycle counting"), run with
 * "-icount shift=0", where mcycle advances by exactly one per
 * instruction and the count of a record is the number of instructions
 * executed while CTR was active after the previous record (or after the
 * xctrctl write or SCTRCLR that reset the counter), up to and including
 * the recorded transfer.
 *
 * - CC encoding: CCE=0 below 4096, else the index of the most
 *   significant one bit minus 11, CCM = counter bits CCE+10:CCE-1; with
 *   N implemented CCE bits (ctr-cce-bits=N) the value saturates at 4095,
 *   8191, 32764, 524224 or 134201344 cycles (table "Cycle Counter Size
 *   Options").  The counts come from loops whose branches are not
 *   recorded (TKBRINH=1, NTBREN=0).
 * - CCV=1 on a normal record; CCV=0 only on the first record after a
 *   write to mctrctl/sctrctl/vsctrctl (any value, also csrrs of a bit
 *   already set, and csrrs/csrrc with rs1 != x0 holding 0, which Zicsr
 *   makes a write) and after SCTRCLR.  A period in a mode that is not
 *   enabled, or with FROZEN set (by software or by BPFRZ) and cleared,
 *   is simply not counted: the next record has CCV=1 and the count of
 *   the active cycles ("Only cycles while CTR is active are counted").
 * - The counter is reset by a record, by a write to xctrctl and by
 *   SCTRCLR (the count restarts after the writing instruction), not by
 *   a read of mctrctl.  It only counts while CTR is active: across a
 *   period in a disabled mode or with FROZEN=1 it holds its value, so
 *   the first record after such a period counts the active instructions
 *   before and after it.  An instruction counts when CTR is active as it
 *   executes: the csrs that sets FROZEN, the ebreak that freezes and the
 *   mret to a disabled mode count; the csrc that clears FROZEN and an
 *   ecall from a disabled mode do not.
 * - Traps and trap returns between enabled modes count like jumps.
 * - ctr-cycles=off: CCV and CC are 0 in every record.
 *
 * Each count is also checked against mcycle read around the sequence,
 * so the instruction accounting does not depend on CTR.
 *
 * Configuration: the number of CCE bits and whether cycle counting is on
 * are found by writing all ones to a ctrdata entry (unimplemented bits
 * are read-only 0).  When QEMU is started with
 *   -device loader,addr=0x80f00000,data=0xc7c00NBB,data-len=4
 * (N = 1 for ctr-cycles=on, 0 for off; BB = ctr-cce-bits), the test also
 * checks that what it found is what the command line asked for.  With
 * 0x200 added to that word (CFG_SHORT) it leaves out the counts above
 * SHORT_MAX: every path of the program still runs, without the 400
 * million instructions of the long loops (for the trace round trip,
 * which compares with QEMU's -d exec record of every block).
 */

#include "rt.h"
#include "ctr-decode.h"
#include "ctr-cycles.h"

#define CFG_ADDR        0x80f00000UL
#define CFG_MAGIC       0xc7c00000u
#define CFG_MAGIC_MASK  0xffff0000u
#define CFG_CYCLES      0x100u
#define CFG_SHORT       0x200u
#define SHORT_MAX       100000
#define CFG_CCE_MASK    0xffu

#define DEPTH           16

/* What the hart implements. */
static bool cycles_on;
static unsigned cce_bits;
static bool short_run;

/*
 * Counts used by the tests and their CC encodings for 0..4 CCE bits,
 * worked out by hand from the spec's formula (CCE = msb index - 11,
 * CCM = bits CCE+10:CCE-1, saturation at all implemented ones), and the
 * value the 4-bit encoding decodes to with "(2^12 + CCM) << CCE-1".
 */
static const struct cc_case {
    uint64_t count;
    uint16_t cc[5];
    uint64_t decoded4;
} cc_cases[] = {
    { 6,         { 0x0006, 0x0006, 0x0006, 0x0006, 0x0006 }, 6 },
    { 7,         { 0x0007, 0x0007, 0x0007, 0x0007, 0x0007 }, 7 },
    { 1000,      { 0x03e8, 0x03e8, 0x03e8, 0x03e8, 0x03e8 }, 1000 },
    { 4095,      { 0x0fff, 0x0fff, 0x0fff, 0x0fff, 0x0fff }, 4095 },
    { 4096,      { 0x0fff, 0x1000, 0x1000, 0x1000, 0x1000 }, 4096 },
    { 4097,      { 0x0fff, 0x1001, 0x1001, 0x1001, 0x1001 }, 4097 },
    { 8191,      { 0x0fff, 0x1fff, 0x1fff, 0x1fff, 0x1fff }, 8191 },
    { 8192,      { 0x0fff, 0x1fff, 0x2000, 0x2000, 0x2000 }, 8192 },
    { 8193,      { 0x0fff, 0x1fff, 0x2000, 0x2000, 0x2000 }, 8192 },
    { 8194,      { 0x0fff, 0x1fff, 0x2001, 0x2001, 0x2001 }, 8194 },
    { 12345,     { 0x0fff, 0x1fff, 0x281c, 0x281c, 0x281c }, 12344 },
    { 32764,     { 0x0fff, 0x1fff, 0x3fff, 0x3fff, 0x3fff }, 32764 },
    { 32767,     { 0x0fff, 0x1fff, 0x3fff, 0x3fff, 0x3fff }, 32764 },
    { 32768,     { 0x0fff, 0x1fff, 0x3fff, 0x4000, 0x4000 }, 32768 },
    { 100000,    { 0x0fff, 0x1fff, 0x3fff, 0x586a, 0x586a }, 100000 },
    { 524224,    { 0x0fff, 0x1fff, 0x3fff, 0x7fff, 0x7fff }, 524224 },
    { 524287,    { 0x0fff, 0x1fff, 0x3fff, 0x7fff, 0x7fff }, 524224 },
    { 524288,    { 0x0fff, 0x1fff, 0x3fff, 0x7fff, 0x8000 }, 524288 },
    { 1000001,   { 0x0fff, 0x1fff, 0x3fff, 0x7fff, 0x8e84 }, 999936 },
    { 134201343, { 0x0fff, 0x1fff, 0x3fff, 0x7fff, 0xfffe }, 134184960 },
    { 134201344, { 0x0fff, 0x1fff, 0x3fff, 0x7fff, 0xffff }, 134201344 },
    { 134217728, { 0x0fff, 0x1fff, 0x3fff, 0x7fff, 0xffff }, 134201344 },
};
#define NR_CC_CASES (sizeof(cc_cases) / sizeof(cc_cases[0]))

/* Spec table "Cycle Counter Size Options": max elapsed cycle value. */
static const uint64_t cc_max[5] = { 4095, 8191, 32764, 524224, 134201344 };

/* The spec's decoding formula, written out here (not the lib's). */
static uint64_t cc_decode(unsigned cc)
{
    unsigned cce = cc >> 12, ccm = cc & 0xfff;

    return cce ? (uint64_t)(4096 + ccm) << (cce - 1) : ccm;
}

/* The expected CC field of a record with @count cycles. */
static unsigned expected_cc(uint64_t count)
{
    if (count < 4096) {
        return count;
    }
    for (unsigned i = 0; i < NR_CC_CASES; i++) {
        if (cc_cases[i].count == count) {
            return cc_cases[i].cc[cce_bits];
        }
    }
    rt_printf("test bug: no encoding for count %lu\n", (unsigned long)count);
    rt_exit(2);
}

struct rec {
    const char *src;        /* NULL: ctrsource.PC is 0 */
    const char *tgt;        /* NULL: ctrtarget.PC is 0 */
    unsigned type;
    bool ccv;
    uint64_t count;
};

static void read_entry(unsigned i, uint64_t *src, uint64_t *tgt,
                       uint64_t *data)
{
    csr_write(CSR_SISELECT, CTR_ISELECT_FIRST + i);
    *src = csr_read(CSR_SIREG);
    *tgt = csr_read(CSR_SIREG2);
    *data = csr_read(CSR_SIREG3);
}

static void print_data(const char *what, uint64_t data)
{
    unsigned cc = (data & CTRDATA_CC_MASK) >> CTRDATA_CC_SHIFT;

    rt_printf("    %s: type %u (%s), CCV %u, CC 0x%04x (CCE %u, CCM 0x%03x,"
              " %lu cycles)\n", what, (unsigned)(data & CTRDATA_TYPE_MASK),
              ctr_type_name(data & CTRDATA_TYPE_MASK),
              (unsigned)!!(data & CTRDATA_CCV), cc, cc >> 12, cc & 0xfff,
              (unsigned long)cc_decode(cc));
}

/* Check logical entry @i against @r; @what names the test. */
static void check_rec(const char *what, unsigned i, const struct rec *r)
{
    uint64_t src, tgt, data, exp_data = r->type;
    bool ok;

    if (cycles_on) {
        exp_data |= (r->ccv ? CTRDATA_CCV : 0) |
                    (uint64_t)expected_cc(r->count) << CTRDATA_CC_SHIFT;
    }
    read_entry(i, &src, &tgt, &data);
    ok = CHECK_EQ(src, (uintptr_t)r->src | CTRSOURCE_V);
    ok &= CHECK_EQ(tgt, (uintptr_t)r->tgt);
    ok &= CHECK_EQ(data, exp_data);
    if (!ok) {
        rt_printf("  ^ %s, logical entry %u (expected count %lu)\n",
                  what, i, (unsigned long)r->count);
        print_data("got     ", data);
        print_data("expected", exp_data);
    }
}

/* Logical entries @from.. must be empty (zero after SCTRCLR). */
static void check_empty(const char *what, unsigned from, unsigned to)
{
    for (unsigned i = from; i <= to; i++) {
        uint64_t src, tgt, data;

        read_entry(i, &src, &tgt, &data);
        if (!(CHECK_EQ(src, 0) & CHECK_EQ(tgt, 0) & CHECK_EQ(data, 0))) {
            rt_printf("  ^ %s, logical entry %u should be empty\n", what, i);
        }
    }
}

static void check_records(const char *what, const struct rec *r,
                          unsigned n)
{
    if (!CHECK_EQ(csr_read(CSR_SCTRSTATUS), n)) {
        rt_printf("  ^ %s: sctrstatus (WRPTR = number of records)\n", what);
    }
    for (unsigned i = 0; i < n; i++) {
        check_rec(what, i, &r[i]);
    }
    check_empty(what, n, n);
}

/*
 * The instructions of a region "csrr t5, mcycle; ...; csrr t6, mcycle;
 * transfer" measured by mcycle (t6 - t5 + 2) must be what the test
 * expects.
 */
static void check_mcycle(const char *what, unsigned long delta,
                         uint64_t count)
{
    if (!CHECK_EQ(delta + 2, count)) {
        rt_printf("  ^ %s: mcycle disagrees with the instruction count "
                  "(is QEMU running with -icount shift=0?)\n", what);
    }
}

/* CTR off, WRPTR 0, not frozen, entries and counter cleared. */
static void reset_ctr(void)
{
    csr_write(CSR_MCTRCTL, 0);
    csr_write(CSR_SCTRSTATUS, 0);
    sctrclr();
}

static void find_config(void)
{
    uint32_t cfg = *(volatile uint32_t *)CFG_ADDR;     /* -device loader */
    uint64_t rb, mask;
    unsigned cce_mask;

    reset_ctr();
    csr_write(CSR_SISELECT, CTR_ISELECT_FIRST);
    csr_write(CSR_SIREG3, ~0UL);
    rb = csr_read(CSR_SIREG3);
    sctrclr();

    cycles_on = rb & CTRDATA_CCV;
    cce_mask = (rb >> (CTRDATA_CC_SHIFT + CTR_CCM_BITS)) & 0xf;
    cce_bits = 0;
    while (cce_bits < 4 && (cce_mask & (1u << cce_bits))) {
        cce_bits++;
    }
    /* TYPE, CCV, all 12 CCM bits and the low CCE bits; nothing else. */
    mask = CTRDATA_TYPE_MASK;
    if (cycles_on) {
        mask |= CTRDATA_CCV | ((uint64_t)CTR_CCM_MASK << CTRDATA_CC_SHIFT) |
                (uint64_t)((1u << cce_bits) - 1) <<
                (CTRDATA_CC_SHIFT + CTR_CCM_BITS);
    }
    if (!CHECK_EQ(rb, mask)) {
        rt_printf("  ^ ctrdata written with all ones: only TYPE and, with "
                  "cycle counting, CCV, CCM and the implemented CCE bits "
                  "are writable\n");
    }
    rt_printf("ctrdata: cycle counting %s, %u CCE bits\n",
              cycles_on ? "on" : "off", cce_bits);

    if ((cfg & CFG_MAGIC_MASK) == CFG_MAGIC) {
        bool want_cycles = cfg & CFG_CYCLES;
        unsigned want_bits = cfg & CFG_CCE_MASK;

        rt_printf("command line: ctr-cycles=%s, ctr-cce-bits=%u\n",
                  want_cycles ? "on" : "off", want_bits);
        CHECK_EQ(cycles_on, want_cycles);
        if (want_cycles) {
            CHECK_EQ(cce_bits, want_bits);
            cce_bits = want_bits;
        }
        cycles_on = want_cycles;
        short_run = cfg & CFG_SHORT;
    }
    if (cce_bits > 4) {
        cce_bits = 4;
    }
}

/* The hand-made table against the spec's formulas and the lib. */
static void test_encoding_table(void)
{
    for (unsigned b = 0; b <= 4; b++) {
        unsigned sat = ((1u << b) - 1) << 12 | 0xfff;

        CHECK_EQ(cc_decode(sat), cc_max[b]);
        CHECK_EQ(ctr_cc_cycles(sat), cc_max[b]);
    }
    for (unsigned i = 0; i < NR_CC_CASES; i++) {
        const struct cc_case *c = &cc_cases[i];

        CHECK_EQ(cc_decode(c->cc[4]), c->decoded4);
        for (unsigned b = 0; b <= 4; b++) {
            CHECK_EQ(ctr_cc_encode(c->count, b), c->cc[b]);
            /* Never more than the count, never more than the maximum. */
            CHECK(cc_decode(c->cc[b]) <= c->count);
            CHECK(cc_decode(c->cc[b]) <= cc_max[b]);
        }
    }
}

/* Counts from a loop: cl_j2's count is 6 + 2 * n + p. */
static void test_count(uint64_t count)
{
    const unsigned long ctl = CTRCTL_M | CTRCTL_TKBRINH;
    const struct rec r[] = {
        { cl_j2, cl_t2, CTR_TYPE_DIRJUMP, true, count },
        { cl_j1, cl_t1, CTR_TYPE_DIRJUMP, false, 1 },
    };
    unsigned long delta;

    reset_ctr();
    delta = cyc_loop(ctl, (count - 6) / 2, (count - 6) % 2);
    check_mcycle("count", delta, count);
    check_records("count", r, 2);
}

static void test_counts(void)
{
    if (cycles_on) {
        rt_printf("counts and their encodings with %u CCE bits\n",
                  cce_bits);
    } else {
        rt_printf("counts (cycle counting off: CCV and CC 0)\n");
    }
    for (unsigned i = 0; i < NR_CC_CASES; i++) {
        if (!short_run || cc_cases[i].count <= SHORT_MAX) {
            test_count(cc_cases[i].count);
        }
    }
}

/*
 * Every transfer of cyc_loop recorded (no TKBRINH), @n iterations with
 * p = 0: cl_j1 (count 1, CCV=0), the first taken bnez (csrr, mv, beqz,
 * addi, bnez: 5), n - 2 more taken bnez (2 each), the not-taken last
 * bnez (not recorded), the taken "beqz a2" (addi, bnez, beqz: 3) and
 * cl_j2 (csrr, j: 2): n + 2 records.  With n well above the depth and
 * the pipeline's buffer (256 events) the records are made by several
 * drains, most of them overwritten before they can be read; the last 16
 * must be exact all the same, and WRPTR must count all n + 2.
 */
static void test_batch(unsigned long n)
{
    struct rec r[DEPTH];
    unsigned long delta;
    unsigned i;

    r[0] = (struct rec){ cl_j2, cl_t2, CTR_TYPE_DIRJUMP, true, 2 };
    r[1] = (struct rec){ cl_beqz, cl_csrr, CTR_TYPE_TK_BRANCH, true, 3 };
    for (i = 2; i < DEPTH; i++) {
        r[i] = (struct rec){ cl_bnez, cl_loop, CTR_TYPE_TK_BRANCH, true,
                             i == n ? 5 : 2 };
        if (i == n + 1) {
            r[i] = (struct rec){ cl_j1, cl_t1, CTR_TYPE_DIRJUMP, false, 1 };
        }
    }
    reset_ctr();
    delta = cyc_loop(CTRCTL_M, n, 0);
    check_mcycle("batch", delta, 6 + 2 * n);
    if (!CHECK_EQ(csr_read(CSR_SCTRSTATUS), (n + 2) % DEPTH)) {
        rt_printf("  ^ batch of %lu: WRPTR counts every record\n", n);
    }
    for (i = 0; i < DEPTH && i < n + 2; i++) {
        check_rec("batch", i, &r[i]);
    }
}

static void test_batches(void)
{
    rt_printf("records of long batches (every transfer of a loop)\n");
    test_batch(14);
    test_batch(300);
    test_batch(1000);
    /* Longer than the pipeline's buffer: drained once inside the loop. */
    test_batch(5000);
}

static void test_sctrclr(void)
{
    const struct rec r[] = {
        { cs_j4, cs_t4, CTR_TYPE_DIRJUMP, true, 3 },
        { cs_j3, cs_t3, CTR_TYPE_DIRJUMP, false, 8 },
    };
    unsigned long delta;

    rt_printf("SCTRCLR restarts the count, next record has CCV=0\n");
    reset_ctr();
    delta = cyc_sctrclr(CTRCTL_M);
    check_mcycle("sctrclr", delta, 8);
    /* SCTRCLR keeps WRPTR (4) and zeroes the two older records. */
    if (!CHECK_EQ(csr_read(CSR_SCTRSTATUS), 4)) {
        rt_printf("  ^ sctrclr: WRPTR\n");
    }
    check_rec("sctrclr", 0, &r[0]);
    check_rec("sctrclr", 1, &r[1]);
    check_empty("sctrclr", 2, DEPTH - 1);
}

typedef unsigned long (*wr_fn)(unsigned long ctl, unsigned long arg);

static void test_write(const char *what, wr_fn fn, unsigned long ctl,
                       unsigned long arg, char *j1, char *t1, char *j2,
                       char *t2, char *j3, char *t3, char *j4, char *t4)
{
    const struct rec r[] = {
        { j4, t4, CTR_TYPE_DIRJUMP, true, 3 },
        { j3, t3, CTR_TYPE_DIRJUMP, false, 6 },
        { j2, t2, CTR_TYPE_DIRJUMP, true, 3 },
        { j1, t1, CTR_TYPE_DIRJUMP, false, 1 },
    };
    unsigned long delta;

    rt_printf("write of %s restarts the count, next record has CCV=0\n",
              what);
    reset_ctr();
    delta = fn(ctl, arg);
    check_mcycle(what, delta, 6);
    check_records(what, r, 4);
}

#define TEST_WRITE(what, name, ctl, arg)                                \
    test_write(what, name, ctl, arg, name##_j1, name##_t1, name##_j2,   \
               name##_t2, name##_j3, name##_t3, name##_j4, name##_t4)

static void test_writes(void)
{
    const unsigned long ctl = CTRCTL_M;

    TEST_WRITE("mctrctl (same value)", cyc_wr_same, ctl, 0);
    TEST_WRITE("mctrctl (other value)", cyc_wr_diff, ctl,
               ctl | CTRCTL_DIRLJMPINH);
    TEST_WRITE("mctrctl (csrrs of M, already set)", cyc_wr_csrs, ctl,
               CTRCTL_M);
    TEST_WRITE("sctrctl (unchanged)", cyc_wr_sctrctl, ctl, 0);
    TEST_WRITE("mctrctl (csrrs x0 with a zero register)", cyc_wr_set0,
               ctl, 0);
    TEST_WRITE("mctrctl (csrrc with a zero register)", cyc_wr_clear0,
               ctl, 0);
    TEST_WRITE("sctrctl (csrrs x0 with a zero register)", cyc_wr_s_set0,
               ctl, 0);
    if (rt_has_h) {
        TEST_WRITE("vsctrctl", cyc_wr_vsctrctl, ctl, CTRCTL_U);
        csr_write(CSR_VSCTRCTL, 0);
        TEST_WRITE("vsctrctl (csrrs x0 with a zero register)",
                   cyc_wr_vs_set0, ctl, 0);
    }
}

static void test_frozen(void)
{
    /*
     * cf_j3: the csrs that froze CTR, then 7 after the csrc; the frozen
     * time is not counted and CCV stays 1.
     */
    const struct rec r[] = {
        { cf_j4, cf_t4, CTR_TYPE_DIRJUMP, true, 2 },
        { cf_j3, cf_t3, CTR_TYPE_DIRJUMP, true, 1 + 7 },
        { cf_j2, cf_t2, CTR_TYPE_DIRJUMP, true, 2 },
        { cf_j1, cf_t1, CTR_TYPE_DIRJUMP, false, 1 },
    };
    unsigned long delta;

    rt_printf("FROZEN set and cleared by software\n");
    reset_ctr();
    delta = cyc_frozen(CTRCTL_M, SCTRSTATUS_FROZEN);
    check_mcycle("frozen", delta, 7);
    check_records("frozen", r, 4);
}

static void test_bpfrz(void)
{
    /*
     * cb_mret: nop and ebreak, then 5 after the csrc in the handler; the
     * frozen time is not counted and CCV stays 1.
     */
    const struct rec r[] = {
        { cb_j3, cb_t3, CTR_TYPE_DIRJUMP, true, 2 },
        { cb_mret, cb_after, CTR_TYPE_TRAP_RETURN, true, 2 + 5 },
        { cb_j1, cb_t1, CTR_TYPE_DIRJUMP, false, 1 },
    };
    unsigned long delta, status = 0;

    rt_printf("FROZEN set by a breakpoint (BPFRZ), cleared by software\n");
    reset_ctr();
    delta = cyc_bpfrz(CTRCTL_M | CTRCTL_BPFRZ, SCTRSTATUS_FROZEN, &status);
    /* In the handler: frozen, the ebreak not recorded (WRPTR 1). */
    if (!CHECK_EQ(status, SCTRSTATUS_FROZEN | 1)) {
        rt_printf("  ^ bpfrz: sctrstatus in the breakpoint handler\n");
    }
    check_mcycle("bpfrz", delta, 5);
    check_records("bpfrz", r, 3);
}

static void test_mtrap(void)
{
    const struct rec r[] = {
        { cm_j3, cm_t3, CTR_TYPE_DIRJUMP, true, 2 },
        { cm_mret, cm_after, CTR_TYPE_TRAP_RETURN, true, 5 },
        { cm_ecall, cm_trap, CTR_TYPE_EXCEPTION, true, 2 },
        { cm_j1, cm_t1, CTR_TYPE_DIRJUMP, false, 1 },
    };
    unsigned long delta;

    rt_printf("trap and trap return within M-mode\n");
    reset_ctr();
    delta = cyc_mtrap(CTRCTL_M);
    /* From the csrr before the ecall to the handler's csrr: 2. */
    if (!CHECK_EQ(delta, 2)) {
        rt_printf("  ^ mtrap: mcycle across the ecall\n");
    }
    check_records("mtrap", r, 4);
}

/* A period in U-mode, not enabled; @exc/@tret: trap/return recorded. */
static void test_umode(bool exc, bool tret)
{
    unsigned long ctl = CTRCTL_M | (exc ? 0 : CTRCTL_EXCINH) |
                        (tret ? 0 : CTRCTL_TRETINH);
    struct rec r[4];
    unsigned n = 0;
    unsigned long delta;

    rt_printf("period in U-mode (not enabled): ecall %s, mret %s\n",
              exc ? "recorded" : "inhibited",
              tret ? "recorded" : "inhibited");
    /*
     * Newest first.  Counted in M-mode before U-mode: 3 nops and the
     * mret (4); nothing in U-mode (also not the ecall); 7 in the handler
     * through cu_j2.  What is not consumed by a record adds up.
     */
    r[n++] = (struct rec){ cu_j2, cu_t2, CTR_TYPE_DIRJUMP, true,
                           (exc || tret) ? 7 : 4 + 7 };
    if (exc) {
        /*
         * From a disabled mode: ctrsource.PC 0; first after the gap, whose
         * cycles are not counted (CCV=1).
         */
        r[n++] = (struct rec){ NULL, cu_trap, CTR_TYPE_EXCEPTION, true,
                               tret ? 0 : 4 };
    }
    if (tret) {
        /* To a disabled mode: ctrtarget.PC 0; counted while in M. */
        r[n++] = (struct rec){ cu_mret, NULL, CTR_TYPE_TRAP_RETURN, true, 4 };
    }
    r[n++] = (struct rec){ cu_j1, cu_t1, CTR_TYPE_DIRJUMP, false, 1 };

    reset_ctr();
    delta = cyc_umode(ctl);
    check_mcycle("umode", delta, 7);
    check_records(exc ? (tret ? "umode (ecall, mret)" : "umode (ecall)")
                      : (tret ? "umode (mret)" : "umode (neither)"), r, n);
}

int main(void)
{
    unsigned long delta;

    csr_write(CSR_SCTRDEPTH, 0);        /* 16 entries */
    find_config();

    /* The accounting needs -icount shift=0; stop early without it. */
    reset_ctr();
    delta = cyc_loop(0, 10, 1);
    if (!CHECK_EQ(delta + 2, 6 + 2 * 10 + 1)) {
        rt_printf("mcycle does not count instructions exactly: run with "
                  "-icount shift=0\n");
        return 1;
    }

    test_encoding_table();
    test_counts();
    test_batches();
    test_sctrclr();
    test_writes();
    test_frozen();
    test_bpfrz();
    test_mtrap();
    test_umode(true, true);
    test_umode(false, true);
    test_umode(true, false);
    test_umode(false, false);
    reset_ctr();
    return 0;
}
