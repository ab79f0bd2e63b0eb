/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recording, filtering, buffer mechanics and register WARL behaviour of
 * Control Transfer Records (Smctr/Ssctr 1.0), with values taken from the
 * specification and from docs/system/riscv/ctr.rst (the contract for the
 * choices the specification leaves open):
 *
 * 1. transfer types ("Transfer Type Filtering", both type tables): one
 *    record per instruction form - jal, every jalr row (including
 *    jalr x1,x1 and x5,x5, which are indirect calls, and jalr rd,x1/x5
 *    with another rd, which is a function return), c.j, c.jr, c.jalr,
 *    the six branches taken (5) and not taken (4, only with NTBREN, with
 *    the next instruction as target), c.beqz/c.bnez, Zcmp cm.popret(z),
 *    Zcmt cm.jt/cm.jalt, exceptions, interrupts and mret ("Behavior":
 *    ctrsource = PC of the instruction or epc of the trap, V=1;
 *    ctrtarget = destination, MISP=0); recorded in M-, S- and U-mode
 *    with that mode's enable bit and not with another mode's;
 * 2. every inhibit bit suppresses exactly its own type; NTBREN=0
 *    suppresses not-taken branches ("Transfer Type Filtering");
 * 3. the buffer ("sctrdepth", "sctrstatus", "SCTRCLR"): for each depth,
 *    logical entry i is the i-th newest record, entries at or beyond
 *    the depth read 0 and ignore writes, WRPTR wraps, its bits above
 *    depth-1 are read-only 0, logical X is physical (WRPTR-X-1)%depth;
 *    SCTRCLR zeroes all entries of all depths and keeps WRPTR and
 *    FROZEN; sctrdepth legalization, WRPTR and entries on a depth change
 *    as the contract says;
 * 4. register WARL: mctrctl/sctrctl/vsctrctl writable bits (LCOFIFRZ only
 *    with Sscofpmf), sctrstatus, sctrdepth, ctrsource, ctrtarget (MISP
 *    read-only 0, upstream audit C6), ctrdata (CCV/CC writable only with
 *    cycle counting, unimplemented CCE bits read-only 0, audit C7; WPRI
 *    bits read 0); reset values 0;
 * 5. XLEN < MXLEN ("ctrsource", "ctrtarget"; audit C5): transfers of a
 *    U-mode with mstatus.UXL=1 above 2 GiB are recorded zero-extended;
 *    explicit writes from an XLEN=32 mode if the hart has one (SXL).
 *
 * Transfers are measured with only the measured mode enabled: M-mode
 * workloads write mctrctl themselves around the transfer, S/U-mode ones
 * are entered by mret from a disabled M-mode and leave by ecall (an
 * external trap, not recorded without MTE), so runtime traffic never
 * reaches the buffer.
 *
 * The CPU configuration is read at run time (misa.H, Sscofpmf through
 * scountovf, Zcmp/Zcmt, Smstateen).  The CTR CPU properties cannot be
 * discovered by the guest; a generic loader puts them at CONFIG_ADDR:
 *   -device loader,addr=0x80fff000,data=0x4354524300000CYD,data-len=8
 * with D = log2(ctr-max-depth) - 4 (0..4), Y = ctr-cycles (0/1) and
 * C = ctr-cce-bits (0..4).  Without it the defaults of the contract
 * (256, on, 4) are expected.
 */

#include "rt.h"
#include "ctr-decode.h"
#include "ctr-entry.h"
#include "test-ctr-record.h"

#define CONFIG_ADDR         0x80fff000UL
#define CONFIG_MAGIC        0x43545243UL        /* "CTRC" */

#define CSR_SCOUNTOVF       0xda0
#define STATEEN0_JVT        (1UL << 2)
#define MSTATUS_UXL_SHIFT   32
#define MSTATUS_SXL_SHIFT   34
#define MSTATUS_XL_MASK     3UL
#define MSTATUS_FS          (3UL << 13)
#define MSTATUS_MIE         8UL
#define MIP_SSIP            2UL

#define NR_ENTRIES          256

/* Everything a CCV/CC-less record may hold in ctrdata besides TYPE. */
#define CTRDATA_CYCLE_BITS  (CTRDATA_CCV | CTRDATA_CC_MASK)

/* Configuration */
static unsigned max_enc;        /* largest sctrdepth.DEPTH */
static unsigned max_depth;
static bool cycles;
static unsigned cce_bits;
static bool has_sscofpmf, has_zcmp, has_zcmt, has_stateen;
static bool zcmt_below_m;       /* jvt usable in S/U (stateen JVT bits) */

static const struct {
    const char *name;
    uint64_t bit;
} inhibits[] = {
    { "EXCINH", CTRCTL_EXCINH }, { "INTRINH", CTRCTL_INTRINH },
    { "TRETINH", CTRCTL_TRETINH }, { "TKBRINH", CTRCTL_TKBRINH },
    { "INDCALLINH", CTRCTL_INDCALLINH }, { "DIRCALLINH", CTRCTL_DIRCALLINH },
    { "INDJMPINH", CTRCTL_INDJMPINH }, { "DIRJMPINH", CTRCTL_DIRJMPINH },
    { "CORSWAPINH", CTRCTL_CORSWAPINH }, { "RETINH", CTRCTL_RETINH },
    { "INDLJMPINH", CTRCTL_INDLJMPINH }, { "DIRLJMPINH", CTRCTL_DIRLJMPINH },
};
#define NR_INHIBITS (sizeof(inhibits) / sizeof(inhibits[0]))

#define ALL_FILTERS (CTRCTL_EXCINH | CTRCTL_INTRINH | CTRCTL_TRETINH |    \
                     CTRCTL_NTBREN | CTRCTL_TKBRINH | CTRCTL_INDCALLINH | \
                     CTRCTL_DIRCALLINH | CTRCTL_INDJMPINH |               \
                     CTRCTL_DIRJMPINH | CTRCTL_CORSWAPINH |               \
                     CTRCTL_RETINH | CTRCTL_INDLJMPINH | CTRCTL_DIRLJMPINH)
#define ALL_INHIBITS (ALL_FILTERS & ~CTRCTL_NTBREN)

/* ---- helpers */

static unsigned long status(void)
{
    return csr_read(CSR_SCTRSTATUS);
}

/* Recording off, depth 16, WRPTR 0, not frozen, all entries zero. */
static void ctr_reset(void)
{
    csr_write(CSR_MCTRCTL, 0);
    csr_write(CSR_SCTRDEPTH, 0);
    csr_write(CSR_SCTRSTATUS, 0);
    sctrclr();
}

/*
 * The ctrdata of a record without its cycle count, which depends on
 * timing: with cycle counting the CCV/CC bits are masked, without it
 * they must be 0 like every other bit but TYPE.
 */
static uint64_t record_data(uint64_t data)
{
    return cycles ? data & ~CTRDATA_CYCLE_BITS : data;
}

/* Logical entry @i holds a valid record src -> tgt of @type. */
static bool check_entry(unsigned i, unsigned long src, unsigned long tgt,
                        unsigned long type)
{
    struct ctr_entry e = ctr_read_entry(i);
    bool ok = CHECK_EQ(e.source, src | CTRSOURCE_V);

    ok &= CHECK_EQ(e.target, tgt);
    ok &= CHECK_EQ(record_data(e.data), type);
    if (!ok) {
        rt_printf("  ^ logical entry %u: expected %s 0x%lx -> 0x%lx\n", i,
                  ctr_type_name(type), src, tgt);
    }
    return ok;
}

static bool check_empty(unsigned i)
{
    struct ctr_entry e = ctr_read_entry(i);
    bool ok = CHECK_EQ(e.source, 0);

    ok &= CHECK_EQ(e.target, 0);
    ok &= CHECK_EQ(e.data, 0);
    if (!ok) {
        rt_printf("  ^ logical entry %u should read 0\n", i);
    }
    return ok;
}

/* Entries from..NR_ENTRIES-1 read 0; stops at the first that does not. */
static bool check_empty_from(unsigned from)
{
    for (unsigned i = from; i < NR_ENTRIES; i++) {
        if (!check_empty(i)) {
            return false;
        }
    }
    return true;
}

static bool streq(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

/* ---- configuration */

static void read_config(void)
{
    uint64_t cfg = *(volatile uint64_t *)CONFIG_ADDR;   /* loader data */

    if ((cfg >> 32) != CONFIG_MAGIC) {
        cfg = 0x414;
    }
    max_enc = cfg & 0xf;
    cycles = (cfg >> 4) & 0xf;
    cce_bits = (cfg >> 8) & 0xf;
    if (max_enc > 4 || cce_bits > 4) {
        rt_printf("bad configuration word 0x%lx\n", cfg);
        rt_exit(2);
    }
    max_depth = 16u << max_enc;

    has_sscofpmf = RT_TRAP_CAUSE(csr_read(CSR_SCOUNTOVF)) == RT_NO_TRAP;
    has_zcmt = RT_TRAP_CAUSE(csr_read(CSR_JVT)) == RT_NO_TRAP;
    has_stateen = RT_TRAP_CAUSE(csr_read(CSR_MSTATEEN0)) == RT_NO_TRAP;
    /*
     * cm.mva01s s0, s0 (0xac62) moves s0 to a0 and a1.  Without Zcmp the
     * encoding is c.fsdsp, illegal while mstatus.FS is Off.
     */
    csr_clear(CSR_MSTATUS, MSTATUS_FS);
    has_zcmp = RT_TRAP_CAUSE(asm volatile(".2byte 0xac62"
                                          : : : "a0", "a1", "memory"))
               == RT_NO_TRAP;

    zcmt_below_m = has_zcmt;
    if (has_stateen) {
        csr_set(CSR_MSTATEEN0, STATEEN0_CTR | STATEEN0_CSRIND |
                STATEEN0_JVT);
        csr_set(CSR_SSTATEEN0, STATEEN0_JVT);
        /* QEMU 10.2 cannot set mstateen0.JVT: no Zcmt below M then */
        zcmt_below_m &= !!(csr_read(CSR_MSTATEEN0) & STATEEN0_JVT);
    }
    if (has_zcmt) {
        csr_write(CSR_JVT, (unsigned long)ctr_jvt_table);   /* mode 0 */
    }
    rt_printf("test-ctr-record: ctr-max-depth %u, ctr-cycles %s, "
              "ctr-cce-bits %u; H %d Sscofpmf %d Zcmp %d Zcmt %d "
              "Smstateen %d\n", max_depth, cycles ? "on" : "off",
              cce_bits, rt_has_h, has_sscofpmf, has_zcmp, has_zcmt,
              has_stateen);
    if (has_zcmt && !zcmt_below_m) {
        rt_printf("note: mstateen0.JVT is read-only 0, so Zcmt is tested "
                  "in M-mode only\n");
    }
}

/* ---- 4a. reset values */

static void test_reset_values(void)
{
    rt_printf("== reset values\n");
    CHECK_EQ(csr_read(CSR_MCTRCTL), 0);
    CHECK_EQ(csr_read(CSR_SCTRCTL), 0);
    if (rt_has_h) {
        CHECK_EQ(csr_read(CSR_VSCTRCTL), 0);
    }
    CHECK_EQ(csr_read(CSR_SCTRDEPTH), 0);
    CHECK_EQ(csr_read(CSR_SCTRSTATUS), 0);
    check_empty_from(0);
    /* all entries of the largest depth are 0 too (WRPTR stays 0) */
    csr_write(CSR_SCTRDEPTH, max_enc);
    CHECK_EQ(csr_read(CSR_SCTRSTATUS), 0);
    check_empty_from(0);
    csr_write(CSR_SCTRDEPTH, 0);
}

/* ---- 4b. register WARL */

static uint64_t mctrctl_wr_rd(uint64_t v)
{
    uint64_t r;

    csr_write(CSR_MCTRCTL, v);
    r = csr_read(CSR_MCTRCTL);
    csr_write(CSR_MCTRCTL, 0);      /* stop recording M-mode at once */
    return r;
}

static void test_ctl_warl(void)
{
    const uint64_t mask_m = CTRCTL_U | CTRCTL_S | CTRCTL_M | CTRCTL_RASEMU |
                            CTRCTL_STE | CTRCTL_MTE | CTRCTL_BPFRZ |
                            (has_sscofpmf ? CTRCTL_LCOFIFRZ : 0) |
                            ALL_FILTERS;
    const uint64_t mask_s = mask_m & ~(CTRCTL_M | CTRCTL_MTE);
    const uint64_t mask_vs = mask_s;
    uint64_t r;

    rt_printf("== mctrctl/sctrctl/vsctrctl writable bits (LCOFIFRZ %s)\n",
              has_sscofpmf ? "writable" : "read-only 0");
    ctr_reset();
    CHECK_EQ(mctrctl_wr_rd(~0UL), mask_m);
    for (unsigned b = 0; b < 64; b++) {
        if (!CHECK_EQ(mctrctl_wr_rd(1UL << b), (1UL << b) & mask_m)) {
            rt_printf("  ^ mctrctl bit %u alone\n", b);
        }
    }

    /* sctrctl: mctrctl without M and MTE */
    csr_write(CSR_SCTRCTL, ~0UL);
    CHECK_EQ(csr_read(CSR_SCTRCTL), mask_s);
    CHECK_EQ(csr_read(CSR_MCTRCTL), mask_s);
    csr_write(CSR_SCTRCTL, 0);
    CHECK_EQ(csr_read(CSR_MCTRCTL), 0);
    for (unsigned b = 0; b < 64; b++) {
        csr_write(CSR_SCTRCTL, 1UL << b);
        r = csr_read(CSR_SCTRCTL);
        if (!CHECK_EQ(r, (1UL << b) & mask_s) ||
            !CHECK_EQ(csr_read(CSR_MCTRCTL), (1UL << b) & mask_s)) {
            rt_printf("  ^ sctrctl bit %u alone\n", b);
        }
        csr_write(CSR_SCTRCTL, 0);
    }
    /* writes through sctrctl leave mctrctl.M and MTE alone */
    csr_write(CSR_MCTRCTL, CTRCTL_MTE);
    csr_write(CSR_SCTRCTL, 0);
    CHECK_EQ(csr_read(CSR_MCTRCTL), CTRCTL_MTE);
    CHECK_EQ(csr_read(CSR_SCTRCTL), 0);
    csr_write(CSR_SCTRCTL, ~0UL);
    CHECK_EQ(csr_read(CSR_MCTRCTL), mask_s | CTRCTL_MTE);
    CHECK_EQ(csr_read(CSR_SCTRCTL), mask_s);
    csr_write(CSR_SCTRCTL, CTRCTL_M);
    CHECK_EQ(csr_read(CSR_MCTRCTL), CTRCTL_MTE);
    csr_write(CSR_MCTRCTL, 0);
    csr_clear(CSR_SCTRCTL, ~0UL);
    /* mctrctl.M=1 is not visible through sctrctl */
    r = mctrctl_wr_rd(CTRCTL_M | CTRCTL_MTE | CTRCTL_U);
    CHECK_EQ(r, CTRCTL_M | CTRCTL_MTE | CTRCTL_U);
    csr_write(CSR_MCTRCTL, CTRCTL_MTE | CTRCTL_U);
    CHECK_EQ(csr_read(CSR_SCTRCTL), CTRCTL_U);
    csr_write(CSR_MCTRCTL, 0);

    if (rt_has_h) {
        csr_write(CSR_VSCTRCTL, ~0UL);
        CHECK_EQ(csr_read(CSR_VSCTRCTL), mask_vs);
        CHECK_EQ(csr_read(CSR_MCTRCTL), 0);
        for (unsigned b = 0; b < 64; b++) {
            csr_write(CSR_VSCTRCTL, 1UL << b);
            if (!CHECK_EQ(csr_read(CSR_VSCTRCTL), (1UL << b) & mask_vs)) {
                rt_printf("  ^ vsctrctl bit %u alone\n", b);
            }
        }
        csr_write(CSR_VSCTRCTL, 0);
        CHECK_EQ(csr_read(CSR_MCTRCTL), 0);
    }
}

static void test_status_entry_warl(void)
{
    uint64_t cc_mask = ((uint64_t)CTR_CCM_MASK |
                        (((1UL << cce_bits) - 1) << CTR_CCM_BITS))
                       << CTRDATA_CC_SHIFT;
    uint64_t data_mask = CTRDATA_TYPE_MASK |
                         (cycles ? CTRDATA_CCV | cc_mask : 0);
    struct ctr_entry e;

    rt_printf("== sctrstatus and entry registers writable bits "
              "(ctrdata mask 0x%lx)\n", data_mask);
    ctr_reset();
    /* sctrstatus: WRPTR[3:0] at depth 16 and FROZEN */
    csr_write(CSR_SCTRSTATUS, ~0UL);
    CHECK_EQ(status(), SCTRSTATUS_FROZEN | 15);
    csr_write(CSR_SCTRSTATUS, ~0UL & ~SCTRSTATUS_FROZEN & ~0xffUL);
    CHECK_EQ(status(), 0);
    csr_write(CSR_SCTRDEPTH, max_enc);
    csr_write(CSR_SCTRSTATUS, ~0UL);
    CHECK_EQ(status(), SCTRSTATUS_FROZEN | (max_depth - 1));
    ctr_reset();

    /* ctrsource: V and PC[63:1], all writable */
    ctr_write_entry(0, ~0UL, 0, 0);
    CHECK_EQ(ctr_read_entry(0).source, ~0UL);
    ctr_write_entry(0, 0x123456789abcdef0UL, 0, 0);
    CHECK_EQ(ctr_read_entry(0).source, 0x123456789abcdef0UL);
    ctr_write_entry(0, 0xfedcba9876543211UL, 0, 0);
    CHECK_EQ(ctr_read_entry(0).source, 0xfedcba9876543211UL);

    /* ctrtarget: PC[63:1] writable, MISP read-only 0 (audit C6) */
    ctr_write_entry(0, 0, ~0UL, 0);
    CHECK_EQ(ctr_read_entry(0).target, ~CTRTARGET_MISP);
    ctr_write_entry(0, 0, CTRTARGET_MISP, 0);
    CHECK_EQ(ctr_read_entry(0).target, 0);
    ctr_write_entry(0, 0, 0x0123456789abcdefUL, 0);
    CHECK_EQ(ctr_read_entry(0).target, 0x0123456789abcdeeUL);

    /* ctrdata: TYPE, and CCV/CC only with cycle counting (audit C7) */
    ctr_write_entry(0, 0, 0, ~0UL);
    CHECK_EQ(ctr_read_entry(0).data, data_mask);
    for (unsigned t = 1; t < 16; t++) {
        if (t == 6 || t == 7) {
            continue;           /* reserved encodings */
        }
        ctr_write_entry(0, 0, 0, t);
        if (!CHECK_EQ(ctr_read_entry(0).data, t)) {
            rt_printf("  ^ ctrdata.TYPE %u\n", t);
        }
    }
    ctr_write_entry(0, 0, 0, CTRDATA_CCV);
    CHECK_EQ(ctr_read_entry(0).data, cycles ? CTRDATA_CCV : 0);
    ctr_write_entry(0, 0, 0, CTRDATA_CC_MASK);
    CHECK_EQ(ctr_read_entry(0).data, cycles ? cc_mask : 0);
    for (unsigned b = 0; b < 4; b++) {
        uint64_t cce = 1UL << (CTRDATA_CC_SHIFT + CTR_CCM_BITS + b);

        ctr_write_entry(0, 0, 0, cce);
        if (!CHECK_EQ(ctr_read_entry(0).data,
                      cycles && b < cce_bits ? cce : 0)) {
            rt_printf("  ^ ctrdata CCE bit %u, %u CCE bits implemented\n",
                      b, cce_bits);
        }
    }
    /* WPRI bits 14:4 and 63:32 */
    ctr_write_entry(0, 0, 0, 0x7ff0UL | 0xffffffff00000000UL);
    CHECK_EQ(ctr_read_entry(0).data, 0);

    /* a whole entry written at once, at the last in-range entry too */
    ctr_write_entry(15, 0x80001235UL, 0x80005678UL, CTR_TYPE_RETURN);
    e = ctr_read_entry(15);
    CHECK_EQ(e.source, 0x80001235UL);
    CHECK_EQ(e.target, 0x80005678UL);
    CHECK_EQ(e.data, CTR_TYPE_RETURN);
    ctr_reset();
}

/* ---- 1 and 2. transfer types, per mode, and filtering */

static uint64_t mode_enable(int mode)
{
    return mode == RT_MODE_M ? CTRCTL_M :
           mode == RT_MODE_S ? CTRCTL_S : CTRCTL_U;
}

static bool case_available(const struct ctr_case *c)
{
    return c->feature == CASE_FEAT_BASE ||
           (c->feature == CASE_FEAT_ZCMP && has_zcmp) ||
           (c->feature == CASE_FEAT_ZCMT && has_zcmt);
}

/* Whether the case can run below M-mode. */
static bool case_below_m(const struct ctr_case *c)
{
    return c->x && (c->feature != CASE_FEAT_ZCMT || zcmt_below_m);
}

static bool type_recorded(unsigned long type, uint64_t ctl)
{
    if (type == CTR_TYPE_NT_BRANCH) {
        return ctl & CTRCTL_NTBREN;
    }
    return !(ctl & ctr_type_filter_bit(type));
}

static unsigned long expected_trap_cause(const struct ctr_case *c)
{
    if (streq(c->name, "ecall")) {
        return CAUSE_ECALL_M;
    }
    if (streq(c->name, "ebreak")) {
        return CAUSE_BREAKPOINT;
    }
    return CAUSE_INTERRUPT | 1;     /* supervisor software interrupt */
}

/*
 * Run case @c in @mode with mctrctl = @ctl (which holds the enable bits)
 * after clearing the buffer, and check the records: the case's transfers
 * that @ctl lets through, newest in logical entry 0, nothing else.
 */
static bool run_case(const struct ctr_case *c, int mode, uint64_t ctl)
{
    const struct ctr_xfer *xf = mode == RT_MODE_M ? c->m_xfer : c->x_xfer;
    struct ctr_xfer want[2];
    unsigned n = 0;
    bool ok = true;

    ctr_reset();
    ctr_trap_info[0] = ctr_trap_info[1] = 0;
    if (mode == RT_MODE_M) {
        c->m(ctl);
    } else {
        long cause = ctr_launch(c->x, mode, ctl);

        ok &= CHECK_EQ(cause, mode == RT_MODE_S ? CAUSE_ECALL_S
                                                : CAUSE_ECALL_U);
    }
    /* in case the interrupt was not taken */
    csr_clear(CSR_MSTATUS, MSTATUS_MIE);
    csr_clear(CSR_MIE, MIP_SSIP);
    csr_clear(CSR_MIP, MIP_SSIP);

    if (c->nr == 2) {
        ok &= CHECK_EQ(ctr_trap_info[0], expected_trap_cause(c));
    }
    for (unsigned i = 0; i < c->nr; i++) {
        if ((ctl & mode_enable(mode)) && type_recorded(xf[i].type, ctl)) {
            want[n] = xf[i];
            if (want[n].src == CTR_DYN) {
                want[n].src = ctr_trap_info[1];
            }
            if (want[n].tgt == CTR_DYN) {
                want[n].tgt = ctr_trap_info[1];
            }
            n++;
        }
    }
    ok &= CHECK_EQ(status(), n);
    for (unsigned i = 0; i < n && ok; i++) {
        ok &= check_entry(i, want[n - 1 - i].src, want[n - 1 - i].tgt,
                          want[n - 1 - i].type);
    }
    ok &= check_empty(n);
    if (!ok) {
        rt_printf("  ^ case %s in %s-mode, mctrctl 0x%lx\n", c->name,
                  rt_mode_name(mode), ctl);
    }
    return ok;
}

static void test_transfer_types(void)
{
    static const int modes[] = { RT_MODE_M, RT_MODE_S, RT_MODE_U };
    unsigned ok = 0, runs = 0, skipped = 0;

    rt_printf("== one record per transfer form (NTBREN=1), M/S/U-mode\n");
    for (const struct ctr_case *c = ctr_cases; c < ctr_cases_end; c++) {
        if (!case_available(c)) {
            skipped++;
            continue;
        }
        for (unsigned m = 0; m < 3; m++) {
            if (modes[m] != RT_MODE_M && !case_below_m(c)) {
                continue;
            }
            runs++;
            ok += run_case(c, modes[m],
                           mode_enable(modes[m]) | CTRCTL_NTBREN);
        }
        /* the same code in S/U-mode with another mode's enable bit */
        if (case_below_m(c)) {
            runs += 2;
            ok += run_case(c, RT_MODE_S, CTRCTL_U | CTRCTL_NTBREN);
            ok += run_case(c, RT_MODE_U, CTRCTL_S | CTRCTL_NTBREN);
        }
    }
    rt_printf("   %u of %u runs as expected, %u cases skipped%s%s\n", ok,
              runs, skipped, has_zcmp ? "" : " (no Zcmp)",
              has_zcmt ? "" : " (no Zcmt)");
}

static void test_filtering(void)
{
    rt_printf("== each inhibit bit suppresses exactly its type (M-mode)\n");
    for (unsigned f = 0; f < NR_INHIBITS + 2; f++) {
        uint64_t ctl;
        const char *name;
        unsigned ok = 0, runs = 0;

        if (f < NR_INHIBITS) {
            ctl = CTRCTL_NTBREN | inhibits[f].bit;
            name = inhibits[f].name;
        } else if (f == NR_INHIBITS) {
            ctl = 0;
            name = "NTBREN=0";
        } else {
            ctl = ALL_INHIBITS;
            name = "all inhibits, NTBREN=0";
        }
        for (const struct ctr_case *c = ctr_cases; c < ctr_cases_end; c++) {
            if (case_available(c)) {
                runs++;
                ok += run_case(c, RT_MODE_M, CTRCTL_M | ctl);
            }
        }
        rt_printf("   %-24s %u of %u cases as expected\n", name, ok, runs);
    }
}

/* ---- 3. buffer mechanics */

/* The k-th (from 0) of the n jumps of ctr_fill(n). */
static unsigned long fill_src(unsigned n, unsigned k)
{
    return (unsigned long)ctr_fill_end - 4UL * (n - k);
}

/*
 * After ctr_fill(n) from WRPTR 0 at depth d (n >= d), physical entry p
 * holds the newest jump k with k % d == p.
 */
static unsigned fill_k(unsigned n, unsigned d, unsigned p)
{
    return (n - 1 - p) / d * d + p;
}

static bool check_fill_record(unsigned x, unsigned n, unsigned k)
{
    return check_entry(x, fill_src(n, k), fill_src(n, k) + 4,
                       CTR_TYPE_DIRJUMP);
}

/*
 * With WRPTR = w at depth d, every logical entry X < d is physical
 * (w - X - 1) % d of a ctr_fill(n) made at depth @fill_d from WRPTR 0.
 */
static bool check_mapping(unsigned n, unsigned fill_d, unsigned d,
                          unsigned w)
{
    for (unsigned x = 0; x < d; x++) {
        unsigned p = (w - x - 1) & (d - 1);

        if (!check_fill_record(x, n, fill_k(n, fill_d, p))) {
            rt_printf("  ^ depth %u, WRPTR %u, physical entry %u\n",
                      d, w, p);
            return false;
        }
    }
    return true;
}

#define FILL_CTL (CTRCTL_M | CTRCTL_INDJMPINH)

static void test_depth(unsigned enc)
{
    const unsigned d = 16u << enc;
    const unsigned n = d + 7;
    const unsigned wptrs[] = { 0, 1, 7, d / 2, d - 1 };

    rt_printf("== buffer at depth %u\n", d);
    ctr_reset();
    csr_write(CSR_SCTRDEPTH, enc);
    CHECK_EQ(csr_read(CSR_SCTRDEPTH), enc);

    /* n > d records: logical i is the i-th newest, WRPTR wrapped */
    ctr_fill(n, FILL_CTL);
    CHECK_EQ(status(), n % d);
    for (unsigned i = 0; i < d; i++) {
        if (!check_fill_record(i, n, n - 1 - i)) {
            break;
        }
    }
    check_empty_from(d);

    /* entries at or beyond the depth ignore writes */
    for (unsigned i = d; i < NR_ENTRIES; i++) {
        ctr_write_entry(i, ~0UL, ~0UL, ~0UL);
    }
    check_empty_from(d);
    check_mapping(n, d, d, n % d);

    /* WRPTR bits above depth-1 are read-only 0 */
    csr_write(CSR_SCTRSTATUS, 0xff);
    CHECK_EQ(status(), d - 1);

    /* logical X is physical (WRPTR - X - 1) % depth */
    for (unsigned i = 0; i < sizeof(wptrs) / sizeof(wptrs[0]); i++) {
        csr_write(CSR_SCTRSTATUS, wptrs[i]);
        CHECK_EQ(status(), wptrs[i]);
        check_mapping(n, d, d, wptrs[i]);
    }

    /* a record at WRPTR = depth-1 wraps it to 0 */
    csr_write(CSR_SCTRSTATUS, d - 1);
    ctr_fill(1, FILL_CTL);
    CHECK_EQ(status(), 0);
    check_fill_record(0, 1, 0);
    check_fill_record(1, n, fill_k(n, d, d - 2));

    /* SCTRCLR zeroes the entries and keeps WRPTR and FROZEN */
    csr_write(CSR_SCTRSTATUS, SCTRSTATUS_FROZEN | 5);
    sctrclr();
    CHECK_EQ(status(), SCTRSTATUS_FROZEN | 5);
    check_empty_from(0);
    ctr_reset();
}

static void test_depth_change(void)
{
    const unsigned n = max_depth + 7;
    const unsigned w = n % max_depth;

    rt_printf("== depth changes and SCTRCLR across depths\n");
    ctr_reset();
    csr_write(CSR_SCTRDEPTH, max_enc);
    ctr_fill(n, FILL_CTL);
    CHECK_EQ(status(), w);

    /* contract: WRPTR keeps its value modulo the new depth, entries stay */
    csr_write(CSR_SCTRDEPTH, 0);
    CHECK_EQ(status(), w % 16);
    check_mapping(n, max_depth, 16, w % 16);
    check_empty_from(16);

    /* SCTRCLR at depth 16 clears the entries of every depth */
    csr_write(CSR_SCTRSTATUS, 13);
    sctrclr();
    CHECK_EQ(status(), 13);
    check_empty_from(0);
    csr_write(CSR_SCTRDEPTH, max_enc);
    CHECK_EQ(csr_read(CSR_SCTRDEPTH), max_enc);
    CHECK_EQ(status(), 13);
    check_empty_from(0);
    ctr_reset();
}

static void test_sctrdepth_warl(void)
{
    rt_printf("== sctrdepth legalization (largest DEPTH %u)\n", max_enc);
    for (unsigned v = 0; v < 8; v++) {
        unsigned want = v > max_enc ? max_enc : v;  /* 5..7 reserved */

        csr_write(CSR_SCTRDEPTH, v);
        if (!CHECK_EQ(csr_read(CSR_SCTRDEPTH), want)) {
            rt_printf("  ^ sctrdepth written %u\n", v);
        }
        csr_write(CSR_SCTRDEPTH, ~7UL | v);         /* WPRI bits set */
        if (!CHECK_EQ(csr_read(CSR_SCTRDEPTH), want)) {
            rt_printf("  ^ sctrdepth written 0x%lx\n", ~7UL | v);
        }
    }
    csr_write(CSR_SCTRDEPTH, 0);
}

/* ---- 5. XLEN < MXLEN */

static unsigned long set_xl(unsigned shift, unsigned long xl)
{
    unsigned long ms = csr_read(CSR_MSTATUS);

    ms &= ~(MSTATUS_XL_MASK << shift);
    csr_write(CSR_MSTATUS, ms | (xl << shift));
    return (csr_read(CSR_MSTATUS) >> shift) & MSTATUS_XL_MASK;
}

static void test_xlen32(void)
{
    unsigned long uxl, sxl;
    long cause;

    rt_printf("== XLEN 32 below MXLEN 64: PCs are zero-extended\n");
    uxl = set_xl(MSTATUS_UXL_SHIFT, 1);
    if (uxl != 1) {
        rt_printf("   mstatus.UXL=1 not accepted (reads %lu): skipped\n",
                  uxl);
    } else {
        ctr_reset();
        cause = ctr_launch(ctr_u32_body, RT_MODE_U,
                           CTRCTL_U | CTRCTL_STE | CTRCTL_MTE);
        CHECK_EQ(set_xl(MSTATUS_UXL_SHIFT, 2), 2);
        CHECK_EQ(cause, CAUSE_ECALL_U);
        /* jalr, jal, beq, then the ecall as an external trap to M */
        CHECK_EQ(status(), 4);
        check_entry(0, (unsigned long)u32_ecall, 0, CTR_TYPE_EXCEPTION);
        check_entry(1, (unsigned long)u32_br, (unsigned long)u32_br_tgt,
                    CTR_TYPE_TK_BRANCH);
        check_entry(2, (unsigned long)u32_jmp, (unsigned long)u32_jmp_tgt,
                    CTR_TYPE_DIRJUMP);
        check_entry(3, (unsigned long)u32_ijmp,
                    (unsigned long)u32_ijmp_tgt, CTR_TYPE_INDJUMP);
        check_empty(4);
    }

    /* explicit writes need an XLEN-32 mode with sireg access: S, SXL=1 */
    sxl = set_xl(MSTATUS_SXL_SHIFT, 1);
    if (sxl != 1) {
        rt_printf("   mstatus.SXL=1 not accepted (reads %lu): explicit "
                  "ctrsource/ctrtarget writes at XLEN 32 not testable\n",
                  sxl);
    } else {
        ctr_reset();
        cause = ctr_launch(ctr_s32_body, RT_MODE_S, 0);
        CHECK_EQ(set_xl(MSTATUS_SXL_SHIFT, 2), 2);
        CHECK_EQ(cause, CAUSE_ECALL_S);
        CHECK_EQ(ctr_read_entry(0).source, 0xfffffffeUL);
        CHECK_EQ(ctr_read_entry(0).target, 0xfffffffeUL);
    }
    ctr_reset();
}

int main(void)
{
    read_config();
    test_reset_values();
    test_ctl_warl();
    test_status_entry_warl();
    test_transfer_types();
    test_filtering();
    for (unsigned enc = 0; enc <= max_enc; enc++) {
        test_depth(enc);
    }
    test_depth_change();
    test_sctrdepth_warl();
    test_xlen32();
    return 0;
}
