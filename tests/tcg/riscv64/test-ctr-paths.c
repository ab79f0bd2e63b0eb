/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Values on the CTR access paths and recording corner cases (Smctr/Ssctr
 * 1.0) that test-ctr-access (trap causes only), test-ctr-record and
 * test-ctr-modes leave open:
 *
 * 1. sctrctl accessed while V=1 is vsctrctl: a VS-mode write changes
 *    vsctrctl and not mctrctl, a VS-mode read returns vsctrctl, and an
 *    HS-mode write of sctrctl does not reach vsctrctl ("Virtual
 *    Supervisor Control Transfer Records Control Register");
 * 2. vsiselect/vsireg* reach the same CTR entries as siselect/sireg*,
 *    in both directions, from HS-mode and (as siselect/sireg*) from
 *    VS-mode; sireg4..6 and vsireg4..6 read 0 and ignore writes for CTR
 *    selectors ("Entry Registers");
 * 3. recording goes on while mstateen0.CTR=0 (S and VS) and while
 *    hstateen0.CTR=0 (VS): the entries read from M-mode are exact
 *    ("State Enable Access Control");
 * 4. BPFRZ freezes on every breakpoint exception (cause 3) to M- or
 *    S-mode, also one raised by an Sdtrig trigger (mcontrol and
 *    mcontrol6, S- and VS-mode), and the breakpoint is not recorded;
 *    an ecall or an illegal instruction trap is not a freeze ("Freeze");
 * 5. XLEN < MXLEN: explicit writes through sireg/sireg2 from 32-bit
 *    S-mode (mstatus.SXL=1, if the hart has it) and records of
 *    transfers in 32-bit U-mode (UXL=1) and VU-mode (vsstatus.UXL=1) are
 *    zero-extended ("ctrsource", "ctrtarget");
 * 6. an Ssdbltrp double trap (ebreak delegated to S-mode taken while
 *    sstatus.SDT=1 becomes a trap to M-mode with mcause 16) is not a
 *    breakpoint exception: it does not freeze with BPFRZ=1 and is
 *    recorded like any other trap into M-mode ("Freeze", "Privilege
 *    Mode Transitions", "External Traps").
 *
 * Recording scenarios use ctr-paths-work.S: the code runs in the lower
 * mode entered by mret from a disabled M-mode (not recorded) and ends
 * with a trap to M-mode, whose vector clears mctrctl before anything
 * else, so the entries hold exactly the records of the scenario.
 *
 * Needs: -cpu rv64,smctr=on,ssctr=on,smcsrind=on,sscsrind=on,h=on,
 * smstateen=on,ssdbltrp=on (Sdtrig is on by default); a missing
 * extension is a failed check.
 */

#include "rt.h"
#include "ctr-decode.h"
#include "ctr-entry.h"

#define CSR_VSIREG4         0x255
#define CSR_VSIREG5         0x256
#define CSR_VSIREG6         0x257
#define CSR_TSELECT         0x7a0
#define CSR_TDATA1          0x7a1
#define CSR_TDATA2          0x7a2

#define MSTATUS_SDT         (1UL << 24)
#define MSTATUS_UXL_SHIFT   32
#define MSTATUS_SXL_SHIFT   34
#define MSTATUS_XL_MASK     3UL
#define MENVCFG_DTE         (1UL << 59)
#define CAUSE_DOUBLE_TRAP   16

/* Sdtrig mcontrol (type 2) and mcontrol6 (type 6) fields */
#define TDATA1_TYPE_SHIFT   60
#define TDATA1_TYPE(t)      ((unsigned long)(t) << TDATA1_TYPE_SHIFT)
#define MCONTROL_EXECUTE    (1UL << 2)
#define MCONTROL_U          (1UL << 3)
#define MCONTROL_S          (1UL << 4)
#define MCONTROL_M          (1UL << 6)
#define MCONTROL_ACTION     (0xfUL << 12)
#define MCONTROL6_VU        (1UL << 23)
#define MCONTROL6_VS        (1UL << 24)

/* ctrdata bits that depend on timing (cycle counting) */
#define CTRDATA_CYCLE_BITS  (CTRDATA_CCV | CTRDATA_CC_MASK)

/* INFO[] slots, see ctr-paths-work.S */
enum { PI_SP, PI_MSTATUS, PI_MTVEC, PI_MCAUSE, PI_MEPC, PI_MTVAL,
       PI_MTVAL2, PI_SCTRSTATUS };

/*
 * The address of a global label of ctr-paths-work.S, taken with lla so
 * that no extern declarations are needed.
 */
#define PC(label) ({                                                    \
    unsigned long label_addr_;                                          \
    asm("lla %0, " #label : "=r"(label_addr_));                         \
    label_addr_;                                                        \
})

/* volatile: written by paths_mvec */
#define INFO    ((volatile unsigned long *)PC(paths_info))
/* volatile: written by paths_svec */
#define SINFO   ((volatile unsigned long *)PC(paths_sinfo))

/*
 * paths_launch(entry, mstatus_set, mctrctl) of ctr-paths-work.S: enter
 * @entry by mret with those mstatus bits and mctrctl; returns the mcause
 * of the first trap to M-mode.
 */
static long launch(unsigned long entry, unsigned long mstatus_set,
                   unsigned long mctrctl)
{
    long (*fn)(unsigned long, unsigned long, unsigned long) =
        (void *)PC(paths_launch);

    return fn(entry, mstatus_set, mctrctl);
}

/* ---- helpers */

/* mstatus bits that make mret enter @mode */
static unsigned long mret_to(int mode)
{
    return ((unsigned long)(mode & 3) << MSTATUS_MPP_SHIFT) |
           ((mode & 4) ? MSTATUS_MPV : 0);
}

static void stateen(bool m_ctr, bool h_ctr)
{
    csr_write(CSR_MSTATEEN0, STATEEN0_CSRIND | STATEEN0_SE0 |
              (m_ctr ? STATEEN0_CTR : 0));
    csr_write(CSR_HSTATEEN0, STATEEN0_CSRIND | (h_ctr ? STATEEN0_CTR : 0));
}

/* Recording off everywhere, depth 16, WRPTR 0, not frozen, empty. */
static void ctr_reset(void)
{
    csr_write(CSR_MCTRCTL, 0);
    csr_write(CSR_VSCTRCTL, 0);
    csr_write(CSR_SCTRDEPTH, 0);
    csr_write(CSR_SCTRSTATUS, 0);
    sctrclr();
}

/* Logical entry @i holds a valid record @src -> @tgt of @type. */
static bool check_rec(unsigned i, unsigned long src, unsigned long tgt,
                      unsigned long type)
{
    struct ctr_entry e = ctr_read_entry(i);
    bool ok = CHECK_EQ(e.source, src | CTRSOURCE_V);

    ok &= CHECK_EQ(e.target, tgt);
    ok &= CHECK_EQ(e.data & ~CTRDATA_CYCLE_BITS, type);
    if (!ok) {
        rt_printf("  ^ logical entry %u: expected type %lu 0x%lx -> 0x%lx\n",
                  i, type, src, tgt);
    }
    return ok;
}

/* Logical entry @i is empty (after SCTRCLR). */
static bool check_no_rec(unsigned i)
{
    struct ctr_entry e = ctr_read_entry(i);
    bool ok = CHECK_EQ(e.source, 0);

    ok &= CHECK_EQ(e.target, 0);
    ok &= CHECK_EQ(e.data, 0);
    if (!ok) {
        rt_printf("  ^ logical entry %u should be empty\n", i);
    }
    return ok;
}

/* The three records of paths_xfer_body, newest first, then nothing. */
static void check_xfer_records(void)
{
    check_rec(0, PC(px_br), PC(px_br_tgt), CTR_TYPE_TK_BRANCH);
    check_rec(1, PC(px_jmp), PC(px_jmp_tgt), CTR_TYPE_DIRJUMP);
    check_rec(2, PC(px_ijmp), PC(px_ijmp_tgt), CTR_TYPE_INDJUMP);
    check_no_rec(3);
}

/* ---- 1. sctrctl in VS-mode is vsctrctl */

/* Values of no common bit; none has M or MTE. */
#define M_VAL   (CTRCTL_STE | CTRCTL_TKBRINH | CTRCTL_RETINH)
#define VS_OLD  (CTRCTL_NTBREN | CTRCTL_INDCALLINH)
#define VS_NEW  (CTRCTL_U | CTRCTL_S | CTRCTL_BPFRZ | CTRCTL_EXCINH | \
                 CTRCTL_DIRJMPINH)
#define HS_NEW  (CTRCTL_U | CTRCTL_INTRINH | CTRCTL_CORSWAPINH)

static struct {
    unsigned long vs_before, vs_after, vs_last;
    unsigned long hs_sctrctl, hs_vsctrctl, hs_vsctrctl_after;
} ctl_out;

static long vs_ctl(long arg)
{
    ctl_out.vs_before = csr_read(CSR_SCTRCTL);
    /* M (2) and MTE (9) are not vsctrctl fields */
    csr_write(CSR_SCTRCTL, VS_NEW | CTRCTL_M | CTRCTL_MTE);
    ctl_out.vs_after = csr_read(CSR_SCTRCTL);
    return 0;
}

static long vs_ctl_read(long arg)
{
    ctl_out.vs_last = csr_read(CSR_SCTRCTL);
    return 0;
}

static long hs_ctl(long arg)
{
    ctl_out.hs_sctrctl = csr_read(CSR_SCTRCTL);
    ctl_out.hs_vsctrctl = csr_read(CSR_VSCTRCTL);
    csr_write(CSR_SCTRCTL, HS_NEW);
    ctl_out.hs_vsctrctl_after = csr_read(CSR_VSCTRCTL);
    return 0;
}

static void test_vs_sctrctl(void)
{
    rt_printf("== 1. sctrctl from VS-mode is vsctrctl\n");
    stateen(true, true);
    ctr_reset();
    csr_write(CSR_MCTRCTL, M_VAL);
    csr_write(CSR_VSCTRCTL, VS_OLD);
    memset(&ctl_out, 0x55, sizeof(ctl_out));

    rt_call_in_mode(RT_MODE_VS, vs_ctl, 0);
    /*
     * "When V=1, vsctrctl substitutes for the usual sctrctl, so
     * instructions that normally read or modify sctrctl actually access
     * vsctrctl instead."
     */
    CHECK_EQ(ctl_out.vs_before, VS_OLD);
    /* vsctrctl format: bits 2 and 9 are WPRI, i.e. read-only 0 */
    CHECK_EQ(ctl_out.vs_after, VS_NEW);
    CHECK_EQ(csr_read(CSR_VSCTRCTL), VS_NEW);
    /* ... and not sctrctl, which is the S view of mctrctl */
    CHECK_EQ(csr_read(CSR_MCTRCTL), M_VAL);

    rt_call_in_mode(RT_MODE_HS, hs_ctl, 0);
    /* V=0: sctrctl is mctrctl without M and MTE; vsctrctl is separate */
    CHECK_EQ(ctl_out.hs_sctrctl, M_VAL);
    CHECK_EQ(ctl_out.hs_vsctrctl, VS_NEW);
    CHECK_EQ(ctl_out.hs_vsctrctl_after, VS_NEW);
    CHECK_EQ(csr_read(CSR_MCTRCTL), HS_NEW);

    rt_call_in_mode(RT_MODE_VS, vs_ctl_read, 0);
    CHECK_EQ(ctl_out.vs_last, VS_NEW);
    ctr_reset();
}

/* ---- 2. vsiselect/vsireg* and siselect/sireg* reach the same entries */

#define IND_WRPTR   5
#define JUNK        0x80300001UL

static const uint8_t legal_types[] = { 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13,
                                       14, 15 };

static unsigned long e_src(unsigned i)
{
    return 0x80100001UL + i * 0x100;
}

static unsigned long e_tgt(unsigned i)
{
    return 0x80200000UL + i * 0x100;
}

static unsigned long e_data(unsigned i)
{
    return legal_types[i % sizeof(legal_types)];
}

static struct ctr_entry vs_read_entry(unsigned i)
{
    struct ctr_entry e;

    csr_write(CSR_VSISELECT, CTR_ISELECT_FIRST + i);
    e.source = csr_read(CSR_VSIREG);
    e.target = csr_read(CSR_VSIREG2);
    e.data = csr_read(CSR_VSIREG3);
    return e;
}

static void vs_write_entry(unsigned i)
{
    csr_write(CSR_VSISELECT, CTR_ISELECT_FIRST + i);
    csr_write(CSR_VSIREG, e_src(i));
    csr_write(CSR_VSIREG2, e_tgt(i));
    csr_write(CSR_VSIREG3, e_data(i));
}

static struct {
    struct ctr_entry via_vs[4], via_s[4];
    long trap[6];               /* writes of sireg4..6, vsireg4..6 */
    unsigned long r456[6];      /* their reads afterwards */
} hs_ind;

static struct {
    struct ctr_entry e2;
    long trap[3];
    unsigned long r456[3];
    unsigned long isel;
} vs_ind;

static long ind_hs(long arg)
{
    for (unsigned i = 0; i < 4; i++) {
        ctr_write_entry(i, e_src(i), e_tgt(i), e_data(i));
    }
    for (unsigned i = 0; i < 4; i++) {
        hs_ind.via_vs[i] = vs_read_entry(i);
    }
    for (unsigned i = 4; i < 8; i++) {
        vs_write_entry(i);
    }
    for (unsigned i = 4; i < 8; i++) {
        hs_ind.via_s[i - 4] = ctr_read_entry(i);
    }

    csr_write(CSR_SISELECT, CTR_ISELECT_FIRST + 1);
    hs_ind.trap[0] = RT_TRAP_CAUSE(csr_write(CSR_SIREG4, JUNK));
    hs_ind.trap[1] = RT_TRAP_CAUSE(csr_write(CSR_SIREG5, JUNK));
    hs_ind.trap[2] = RT_TRAP_CAUSE(csr_write(CSR_SIREG6, JUNK));
    hs_ind.r456[0] = csr_read(CSR_SIREG4);
    hs_ind.r456[1] = csr_read(CSR_SIREG5);
    hs_ind.r456[2] = csr_read(CSR_SIREG6);
    csr_write(CSR_VSISELECT, CTR_ISELECT_FIRST + 5);
    hs_ind.trap[3] = RT_TRAP_CAUSE(csr_write(CSR_VSIREG4, JUNK));
    hs_ind.trap[4] = RT_TRAP_CAUSE(csr_write(CSR_VSIREG5, JUNK));
    hs_ind.trap[5] = RT_TRAP_CAUSE(csr_write(CSR_VSIREG6, JUNK));
    hs_ind.r456[3] = csr_read(CSR_VSIREG4);
    hs_ind.r456[4] = csr_read(CSR_VSIREG5);
    hs_ind.r456[5] = csr_read(CSR_VSIREG6);
    return 0;
}

/* In VS-mode siselect/sireg* are vsiselect/vsireg*. */
static long ind_vs(long arg)
{
    vs_ind.e2 = ctr_read_entry(2);
    ctr_write_entry(8, e_src(8), e_tgt(8), e_data(8));
    csr_write(CSR_SISELECT, CTR_ISELECT_FIRST + 6);
    vs_ind.trap[0] = RT_TRAP_CAUSE(csr_write(CSR_SIREG4, JUNK));
    vs_ind.trap[1] = RT_TRAP_CAUSE(csr_write(CSR_SIREG5, JUNK));
    vs_ind.trap[2] = RT_TRAP_CAUSE(csr_write(CSR_SIREG6, JUNK));
    vs_ind.r456[0] = csr_read(CSR_SIREG4);
    vs_ind.r456[1] = csr_read(CSR_SIREG5);
    vs_ind.r456[2] = csr_read(CSR_SIREG6);
    vs_ind.isel = csr_read(CSR_SISELECT);
    return 0;
}

static void check_entry_is(const struct ctr_entry *e, unsigned i)
{
    bool ok = CHECK_EQ(e->source, e_src(i));

    ok &= CHECK_EQ(e->target, e_tgt(i));
    ok &= CHECK_EQ(e->data, e_data(i));
    if (!ok) {
        rt_printf("  ^ entry %u\n", i);
    }
}

static void test_vsireg(void)
{
    struct ctr_entry e;

    rt_printf("== 2. vsiselect/vsireg* and siselect/sireg* reach the same "
              "entries\n");
    stateen(true, true);
    ctr_reset();
    csr_write(CSR_SCTRSTATUS, IND_WRPTR);
    memset(&hs_ind, 0x55, sizeof(hs_ind));
    memset(&vs_ind, 0x55, sizeof(vs_ind));

    rt_call_in_mode(RT_MODE_HS, ind_hs, 0);
    /*
     * "When vsiselect holds a value in 0x200..0x2FF, the vsireg*
     * registers provide access to the same CTR entry register state as
     * the analogous sireg* registers.  There is not a separate set of
     * entry registers for V=1."
     */
    for (unsigned i = 0; i < 4; i++) {
        check_entry_is(&hs_ind.via_vs[i], i);
        check_entry_is(&hs_ind.via_s[i], i + 4);
    }
    /* "sireg4, sireg5, and sireg6 are read-only 0" (and so vsireg4..6) */
    for (unsigned i = 0; i < 6; i++) {
        CHECK_EQ(hs_ind.trap[i], RT_NO_TRAP);
        CHECK_EQ(hs_ind.r456[i], 0);
    }

    csr_write(CSR_SISELECT, CTR_ISELECT_LAST);
    csr_write(CSR_VSISELECT, CTR_ISELECT_FIRST);
    rt_call_in_mode(RT_MODE_VS, ind_vs, 0);
    /* VS-mode siselect/sireg* are vsiselect/vsireg*: same entries */
    check_entry_is(&vs_ind.e2, 2);
    for (unsigned i = 0; i < 3; i++) {
        CHECK_EQ(vs_ind.trap[i], RT_NO_TRAP);
        CHECK_EQ(vs_ind.r456[i], 0);
    }
    CHECK_EQ(vs_ind.isel, CTR_ISELECT_FIRST + 6);
    CHECK_EQ(csr_read(CSR_VSISELECT), CTR_ISELECT_FIRST + 6);
    CHECK_EQ(csr_read(CSR_SISELECT), CTR_ISELECT_LAST);

    /* From M-mode: entries 0..8 as written, the sireg4..6 writes lost */
    for (unsigned i = 0; i <= 8; i++) {
        e = ctr_read_entry(i);
        check_entry_is(&e, i);
    }
    check_no_rec(9);
    check_no_rec(15);
    /* explicit entry accesses do not move WRPTR */
    CHECK_EQ(csr_read(CSR_SCTRSTATUS), IND_WRPTR);
    ctr_reset();
}

/* ---- 3. recording with mstateen0.CTR=0 / hstateen0.CTR=0 */

static void record_stateen(int mode, bool m_ctr)
{
    unsigned long mctl = 0;
    long cause;

    rt_printf("   %s-mode, mstateen0.CTR=%d hstateen0.CTR=0\n",
              rt_mode_name(mode), m_ctr);
    stateen(true, true);
    ctr_reset();
    if (mode == RT_MODE_VS) {
        csr_write(CSR_VSCTRCTL, CTRCTL_S);
    } else {
        mctl = CTRCTL_S;
    }
    stateen(m_ctr, false);
    CHECK_EQ(csr_read(CSR_MSTATEEN0) & STATEEN0_CTR,
             m_ctr ? STATEEN0_CTR : 0);
    CHECK_EQ(csr_read(CSR_HSTATEEN0) & STATEEN0_CTR, 0);

    cause = launch(PC(paths_xfer_body), mret_to(mode), mctl);
    stateen(true, true);
    CHECK_EQ(cause, rt_ecall_cause(mode));
    CHECK_EQ(INFO[PI_MEPC], PC(px_ecall));
    /*
     * "When mstateen0.CTR=0, qualified control transfers executed in
     * privilege modes less privileged than M-mode will continue to
     * implicitly update entry registers and sctrstatus."
     * "When hstateen0.CTR=0, qualified control transfers executed while
     * V=1 will continue to implicitly update entry registers and
     * sctrstatus."
     * Three records: WRPTR 3, not frozen.  The mret from the disabled
     * M-mode and the ecall to it (no MTE) are not recorded.
     */
    CHECK_EQ(INFO[PI_SCTRSTATUS], 3);
    CHECK_EQ(csr_read(CSR_SCTRSTATUS), 3);
    check_xfer_records();
    ctr_reset();
}

static void test_stateen_recording(void)
{
    rt_printf("== 3. recording goes on while the state-enable bits are 0\n");
    record_stateen(RT_MODE_S, false);
    record_stateen(RT_MODE_VS, true);
    record_stateen(RT_MODE_VS, false);
}

/* ---- 4. BPFRZ: Sdtrig breakpoints, ebreak, other causes */

/* Set trigger 0 to execute-match @addr with @tdata1; returns tdata1. */
static unsigned long trigger_set(unsigned long addr, unsigned long tdata1)
{
    csr_write(CSR_TSELECT, 0);
    csr_write(CSR_TDATA1, tdata1 & (0xfUL << TDATA1_TYPE_SHIFT));
    csr_write(CSR_TDATA2, addr);
    csr_write(CSR_TDATA1, tdata1);
    return csr_read(CSR_TDATA1);
}

/* Disable trigger 0: same type, no mode and no match bits. */
static void trigger_off(void)
{
    unsigned long t;

    csr_write(CSR_TSELECT, 0);
    t = csr_read(CSR_TDATA1);
    csr_write(CSR_TDATA1, t & (0xfUL << TDATA1_TYPE_SHIFT));
}

#define BP_CTL  (CTRCTL_S | CTRCTL_STE | CTRCTL_MTE | CTRCTL_BPFRZ)

/*
 * Run @body in @mode with mctrctl = BP_CTL (and vsctrctl.S for VS) and
 * medeleg = @medeleg; traps to S-mode go to paths_svec, which ecalls to
 * M-mode.  Returns the mcause of the trap that ended the run.  STE and
 * MTE make every trap to M-mode an external trap that is recorded unless
 * CTR is frozen ("External Trap Enable Requirements": S -> M needs MTE,
 * VS -> M needs MTE and sctrctl.STE).
 */
static long bp_run(unsigned long body, int mode,
                   unsigned long medeleg)
{
    unsigned long stvec = csr_read(CSR_STVEC);
    long cause;

    stateen(true, true);
    ctr_reset();
    if (mode == RT_MODE_VS) {
        csr_write(CSR_VSCTRCTL, CTRCTL_S);
    }
    SINFO[0] = SINFO[1] = -1UL;
    csr_write(CSR_STVEC, PC(paths_svec));
    csr_write(CSR_MEDELEG, medeleg);
    cause = launch(body, mret_to(mode), BP_CTL);
    csr_write(CSR_MEDELEG, 0);
    csr_write(CSR_STVEC, stvec);
    return cause;
}

/*
 * A breakpoint exception at @bp_pc froze CTR after the direct jump
 * @jmp -> @jmp_tgt: "on a breakpoint exception that traps to M-mode or
 * S-mode with sctrctl.BPFRZ=1, FROZEN is set by hardware.  The
 * breakpoint exception itself is not recorded."  Without the freeze it
 * would be recorded (external trap for M, S enabled for S), and so
 * would the ecall of paths_svec.
 */
static void check_frozen_after(unsigned long jmp, unsigned long jmp_tgt)
{
    CHECK_EQ(INFO[PI_SCTRSTATUS], SCTRSTATUS_FROZEN | 1);
    check_rec(0, jmp, jmp_tgt, CTR_TYPE_DIRJUMP);
    check_no_rec(1);
}

static void test_bpfrz(void)
{
    unsigned long t1;
    long cause;

    rt_printf("== 4. BPFRZ on Sdtrig breakpoints and ebreak, not on "
              "other causes\n");

    rt_printf("   mcontrol (type 2) execute trigger in S-mode, trap to M\n");
    t1 = trigger_set(PC(pt_trig), TDATA1_TYPE(2) | MCONTROL_S |
                     MCONTROL_EXECUTE);
    /* Sdtrig mcontrol: type, S and execute are what we wrote */
    CHECK_EQ(t1 & (TDATA1_TYPE(0xf) | MCONTROL_S | MCONTROL_EXECUTE |
                   MCONTROL_ACTION | MCONTROL_M | MCONTROL_U),
             TDATA1_TYPE(2) | MCONTROL_S | MCONTROL_EXECUTE);
    cause = bp_run(PC(paths_trig_body), RT_MODE_S, 0);
    trigger_off();
    /* action 0: breakpoint exception (cause 3) before the instruction */
    CHECK_EQ(cause, CAUSE_BREAKPOINT);
    CHECK_EQ(INFO[PI_MEPC], PC(pt_trig));
    /* "regardless of source (ebreak, c.ebreak, Sdtrig)" */
    check_frozen_after(PC(pt_jmp), PC(pt_jmp_tgt));

    rt_printf("   mcontrol6 (type 6) execute trigger in S-mode, trap to S\n");
    t1 = trigger_set(PC(pt_trig), TDATA1_TYPE(6) | MCONTROL_S |
                     MCONTROL_EXECUTE);
    CHECK_EQ(t1 & (TDATA1_TYPE(0xf) | MCONTROL_S | MCONTROL_EXECUTE |
                   MCONTROL_ACTION | MCONTROL_M | MCONTROL_U |
                   MCONTROL6_VS | MCONTROL6_VU),
             TDATA1_TYPE(6) | MCONTROL_S | MCONTROL_EXECUTE);
    cause = bp_run(PC(paths_trig_body), RT_MODE_S,
                   1UL << CAUSE_BREAKPOINT);
    trigger_off();
    CHECK_EQ(cause, CAUSE_ECALL_S);
    CHECK_EQ(SINFO[0], CAUSE_BREAKPOINT);
    CHECK_EQ(SINFO[1], PC(pt_trig));
    check_frozen_after(PC(pt_jmp), PC(pt_jmp_tgt));

    rt_printf("   mcontrol6 execute trigger in VS-mode, trap to M\n");
    t1 = trigger_set(PC(pt_trig), TDATA1_TYPE(6) | MCONTROL6_VS |
                     MCONTROL_EXECUTE);
    CHECK_EQ(t1 & (TDATA1_TYPE(0xf) | MCONTROL_S | MCONTROL_EXECUTE |
                   MCONTROL_ACTION | MCONTROL_M | MCONTROL_U |
                   MCONTROL6_VS | MCONTROL6_VU),
             TDATA1_TYPE(6) | MCONTROL6_VS | MCONTROL_EXECUTE);
    cause = bp_run(PC(paths_trig_body), RT_MODE_VS, 0);
    trigger_off();
    CHECK_EQ(cause, CAUSE_BREAKPOINT);
    CHECK_EQ(INFO[PI_MEPC], PC(pt_trig));
    /*
     * VS -> M: "sctrctl.LCOFIFRZ and sctrctl.BPFRZ determine whether CTR
     * becomes frozen" (vsctrctl.BPFRZ is 0 here).
     */
    check_frozen_after(PC(pt_jmp), PC(pt_jmp_tgt));

    rt_printf("   ebreak in S-mode, trap to M\n");
    cause = bp_run(PC(paths_ebreak_body), RT_MODE_S, 0);
    CHECK_EQ(cause, CAUSE_BREAKPOINT);
    CHECK_EQ(INFO[PI_MEPC], PC(pe_ebreak));
    check_frozen_after(PC(pe_jmp), PC(pe_jmp_tgt));

    rt_printf("   ebreak in S-mode, trap to S\n");
    cause = bp_run(PC(paths_ebreak_body), RT_MODE_S,
                   1UL << CAUSE_BREAKPOINT);
    CHECK_EQ(cause, CAUSE_ECALL_S);
    CHECK_EQ(SINFO[0], CAUSE_BREAKPOINT);
    CHECK_EQ(SINFO[1], PC(pe_ebreak));
    check_frozen_after(PC(pe_jmp), PC(pe_jmp_tgt));

    /*
     * Other causes do not freeze: "Breakpoint exception refers to
     * synchronous exceptions with a cause value of Breakpoint (3)".
     */
    rt_printf("   ecall in S-mode, trap to M: no freeze\n");
    cause = bp_run(PC(paths_ecall_body), RT_MODE_S, 0);
    CHECK_EQ(cause, CAUSE_ECALL_S);
    CHECK_EQ(INFO[PI_SCTRSTATUS], 2);
    /* external trap S -> M with MTE: "the ctrtarget.PC is 0" */
    check_rec(0, PC(pc_ecall), 0, CTR_TYPE_EXCEPTION);
    check_rec(1, PC(pc_jmp), PC(pc_jmp_tgt), CTR_TYPE_DIRJUMP);
    check_no_rec(2);

    rt_printf("   illegal instruction in S-mode, trap to S: no freeze\n");
    cause = bp_run(PC(paths_ill_body), RT_MODE_S,
                   1UL << CAUSE_INSN_ILLEGAL);
    CHECK_EQ(cause, CAUSE_ECALL_S);
    CHECK_EQ(SINFO[0], CAUSE_INSN_ILLEGAL);
    CHECK_EQ(SINFO[1], PC(pi_ill));
    CHECK_EQ(INFO[PI_SCTRSTATUS], 3);
    /* paths_svec's ecall: external trap to M */
    check_rec(0, PC(paths_svec_ecall), 0, CTR_TYPE_EXCEPTION);
    /*
     * S -> S, both enabled: "Traps between enabled privilege modes are
     * recorded as normal"
     */
    check_rec(1, PC(pi_ill), PC(paths_svec), CTR_TYPE_EXCEPTION);
    check_rec(2, PC(pi_jmp), PC(pi_jmp_tgt), CTR_TYPE_DIRJUMP);
    check_no_rec(3);
    ctr_reset();
}

/* ---- 5. XLEN < MXLEN */

static unsigned long set_mstatus_xl(unsigned shift, unsigned long xl)
{
    unsigned long ms = csr_read(CSR_MSTATUS);

    ms &= ~(MSTATUS_XL_MASK << shift);
    csr_write(CSR_MSTATUS, ms | (xl << shift));
    return (csr_read(CSR_MSTATUS) >> shift) & MSTATUS_XL_MASK;
}

static unsigned long set_vsstatus_uxl(unsigned long xl)
{
    unsigned long vs = csr_read(CSR_VSSTATUS);

    vs &= ~(MSTATUS_XL_MASK << MSTATUS_UXL_SHIFT);
    csr_write(CSR_VSSTATUS, vs | (xl << MSTATUS_UXL_SHIFT));
    return (csr_read(CSR_VSSTATUS) >> MSTATUS_UXL_SHIFT) & MSTATUS_XL_MASK;
}

/*
 * "When XLEN < MXLEN, both explicit writes (by software) and implict
 * writes (for recorded transfers) will be zero-extended." (ctrsource;
 * ctrtarget has the same sentence).  The code is above 2 GiB, so in a
 * 32-bit mode every PC and the jalr target register have bit 31 set and
 * are sign-extended in the 64-bit register file.
 */
static void record_xlen32(int mode)
{
    unsigned long mctl = 0;
    long cause;

    ctr_reset();
    if (mode & 4) {
        csr_write(CSR_VSCTRCTL, mode == RT_MODE_VU ? CTRCTL_U : CTRCTL_S);
    } else {
        mctl = mode == RT_MODE_U ? CTRCTL_U : CTRCTL_S;
    }
    cause = launch(PC(paths_xfer_body), mret_to(mode), mctl);
    CHECK_EQ(cause, rt_ecall_cause(mode));
    /*
     * Privileged ISA, "Base ISA Control in mstatus": in a mode with
     * XLEN < MXLEN "when the pc is written, it is sign-extended to fill
     * the widest supported XLEN", so mepc is sign-extended, unlike the
     * CTR records.
     */
    CHECK_EQ(INFO[PI_MEPC], (unsigned long)(int32_t)PC(px_ecall));
    CHECK_EQ(INFO[PI_SCTRSTATUS], 3);
    check_xfer_records();
    ctr_reset();
}

static void test_xlen32(void)
{
    unsigned long sxl, uxl, vuxl;
    struct ctr_entry e;
    long cause;

    rt_printf("== 5. XLEN < MXLEN: zero-extension\n");
    stateen(true, true);

    /* mstatus.SXL is WARL: 1 (32-bit S-mode) or 2, never 0 or 3 here */
    sxl = set_mstatus_xl(MSTATUS_SXL_SHIFT, 1);
    CHECK(sxl == 1 || sxl == 2);
    if (sxl == 1) {
        rt_printf("   explicit writes from 32-bit S-mode\n");
        ctr_reset();
        cause = launch(PC(paths_s32_write), mret_to(RT_MODE_S), 0);
        CHECK_EQ(set_mstatus_xl(MSTATUS_SXL_SHIFT, 2), 2);
        CHECK_EQ(cause, CAUSE_ECALL_S);
        e = ctr_read_entry(0);
        CHECK_EQ(e.source, 0xfffffffeUL);
        CHECK_EQ(e.target, 0xfffffffeUL);
        rt_printf("   transfers in 32-bit S-mode\n");
        CHECK_EQ(set_mstatus_xl(MSTATUS_SXL_SHIFT, 1), 1);
        record_xlen32(RT_MODE_S);
        CHECK_EQ(set_mstatus_xl(MSTATUS_SXL_SHIFT, 2), 2);
    } else {
        rt_printf("   note: mstatus.SXL is read-only 2 (no 32-bit S-mode): "
                  "explicit writes with XLEN < MXLEN cannot be made\n");
    }

    uxl = set_mstatus_xl(MSTATUS_UXL_SHIFT, 1);
    CHECK(uxl == 1 || uxl == 2);
    if (uxl == 1) {
        rt_printf("   transfers in 32-bit U-mode\n");
        record_xlen32(RT_MODE_U);
        CHECK_EQ(set_mstatus_xl(MSTATUS_UXL_SHIFT, 2), 2);
    } else {
        rt_printf("   note: mstatus.UXL is read-only 2\n");
    }

    vuxl = set_vsstatus_uxl(1);
    CHECK(vuxl == 1 || vuxl == 2);
    if (vuxl == 1) {
        rt_printf("   transfers in 32-bit VU-mode\n");
        record_xlen32(RT_MODE_VU);
        CHECK_EQ(set_vsstatus_uxl(2), 2);
    } else {
        rt_printf("   note: vsstatus.UXL is read-only 2\n");
    }
}

/* ---- 6. Ssdbltrp double trap with BPFRZ */

static void double_trap(unsigned long mctl, unsigned long tgt, bool rec)
{
    unsigned long stvec = csr_read(CSR_STVEC);
    long cause;

    rt_printf("   mctrctl 0x%lx\n", mctl);
    stateen(true, true);
    ctr_reset();
    csr_write(CSR_STVEC, PC(paths_svec));
    csr_write(CSR_MEDELEG, 1UL << CAUSE_BREAKPOINT);
    csr_set(CSR_MSTATUS, MSTATUS_SDT);
    CHECK_EQ(csr_read(CSR_MSTATUS) & MSTATUS_SDT, MSTATUS_SDT);
    SINFO[0] = SINFO[1] = -1UL;

    cause = launch(PC(paths_ebreak_body),
                         mret_to(RT_MODE_S) | MSTATUS_SDT, mctl);
    csr_clear(CSR_MSTATUS, MSTATUS_SDT);
    csr_write(CSR_MEDELEG, 0);
    csr_write(CSR_STVEC, stvec);

    /*
     * Ssdbltrp: a trap to S-mode while sstatus.SDT=1 (menvcfg.DTE=1)
     * goes to M-mode with mcause 16 and mtval2 = the cause it would
     * have had (3).
     */
    CHECK_EQ(cause, CAUSE_DOUBLE_TRAP);
    CHECK_EQ(INFO[PI_MTVAL2], CAUSE_BREAKPOINT);
    CHECK_EQ(INFO[PI_MEPC], PC(pe_ebreak));
    CHECK_EQ(SINFO[0], -1UL);
    /*
     * Not a freeze: "Breakpoint exception refers to synchronous
     * exceptions with a cause value of Breakpoint (3)"; the trap taken
     * has cause 16.  It is a trap S -> M like any other: recorded as
     * normal when M is enabled ("Traps between enabled privilege modes
     * are recorded as normal"), as an external trap with ctrtarget.PC=0
     * when only MTE is set, not at all otherwise.
     */
    CHECK_EQ(INFO[PI_SCTRSTATUS], rec ? 2 : 1);
    CHECK_EQ(csr_read(CSR_SCTRSTATUS) & SCTRSTATUS_FROZEN, 0);
    if (rec) {
        check_rec(0, PC(pe_ebreak), tgt, CTR_TYPE_EXCEPTION);
        check_rec(1, PC(pe_jmp), PC(pe_jmp_tgt), CTR_TYPE_DIRJUMP);
        check_no_rec(2);
    } else {
        check_rec(0, PC(pe_jmp), PC(pe_jmp_tgt), CTR_TYPE_DIRJUMP);
        check_no_rec(1);
    }
    ctr_reset();
}

static void test_double_trap(void)
{
    rt_printf("== 6. Ssdbltrp double trap with BPFRZ=1: no freeze\n");
    csr_set(CSR_MENVCFG, MENVCFG_DTE);
    CHECK_EQ(csr_read(CSR_MENVCFG) & MENVCFG_DTE, MENVCFG_DTE);
    /* M enabled (trap returns inhibited: the launching mret is not) */
    double_trap(CTRCTL_M | CTRCTL_S | CTRCTL_BPFRZ | CTRCTL_TRETINH,
                PC(paths_mvec), true);
    /* M disabled, external traps to M enabled */
    double_trap(CTRCTL_S | CTRCTL_MTE | CTRCTL_BPFRZ, 0, true);
    /* M disabled, no MTE: an external trap, not recorded */
    double_trap(CTRCTL_S | CTRCTL_BPFRZ, 0, false);
    csr_clear(CSR_MENVCFG, MENVCFG_DTE);
}

/* ---- main */

int main(void)
{
    bool ok;

    rt_printf("test-ctr-paths\n");
    /* The configuration this test is for: a missing part fails. */
    ok = CHECK(rt_has_h);
    ok &= CHECK_EQ(RT_TRAP_CAUSE(csr_read(CSR_MSTATEEN0)), RT_NO_TRAP);
    ok &= CHECK_EQ(RT_TRAP_CAUSE(csr_read(CSR_MCTRCTL)), RT_NO_TRAP);
    ok &= CHECK_EQ(RT_TRAP_CAUSE(csr_read(CSR_TSELECT)), RT_NO_TRAP);
    if (!ok) {
        return 1;
    }

    test_vs_sctrctl();
    test_vsireg();
    test_stateen_recording();
    test_bpfrz();
    test_xlen32();
    test_double_trap();
    return 0;
}
