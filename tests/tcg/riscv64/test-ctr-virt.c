/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CTR recording of ordinary transfers in the virtualized modes
 * (Smctr/Ssctr 1.0, "vsctrctl", "Behavior", "Virtualization Mode
 * Transitions", "Transfer Type Filtering", "Cycle Counting", "RAS
 * (Return Address Stack) Emulation Mode", "Freeze"):
 *
 * 1. every transfer type of the table "Control Transfer Type
 *    Definitions" executed in VS- and in VU-mode is recorded with its
 *    exact ctrsource, ctrtarget and TYPE when vsctrctl.S (VS) or
 *    vsctrctl.U (VU) is set; nothing in VS with only vsctrctl.U and
 *    nothing in VU with only vsctrctl.S; mctrctl.S/U (or sctrctl.S/U)
 *    never enable recording while V=1;
 * 2. the vsctrctl transfer type filters (EXCINH .. DIRLJMPINH, NTBREN)
 *    inhibit (enable) exactly their type in VS/VU, while the same bits
 *    in mctrctl or sctrctl have no effect there;
 * 3. vsctrctl.RASEMU in VS and VU: calls push, returns pop, co-routine
 *    swaps overwrite logical entry 0, nothing else is recorded, the
 *    filter bits are ignored; mctrctl.RASEMU does not apply in VS;
 * 4. cycle counting in VS and VU under -icount shift=0: CCV=1 and the
 *    exact count between records (the conventions of test-ctr-cycles.c:
 *    the count of a record is the number of instructions executed while
 *    CTR was active since the previous record, the recorded transfer
 *    included; nothing executed in a disabled mode counts, and a
 *    filtered transfer does not restart the count);
 * 5. vsctrctl.LCOFIFRZ: a virtual LCOFI pended by the hypervisor
 *    (hvien bit 13 and hvip bit 13, Ssaia) and taken in VS-mode sets
 *    sctrstatus.FROZEN, is not recorded, and nothing is recorded until
 *    FROZEN is cleared; mctrctl.LCOFIFRZ does not freeze on it;
 * 6. transitions between VS and VU (sret VS -> VU, exceptions and
 *    interrupts VU -> VS) follow the table "Trap and Trap Return
 *    Recording" with the vsctrctl enables, and the external trap VU ->
 *    VS needs vsctrctl.STE (table "External Trap Enable Requirements"),
 *    not sctrctl.STE, regardless of EXCINH/INTRINH.
 *
 * The workloads are in ctr-virt-work.S: each is entered from M-mode by
 * mret with the CTR configuration written just before (M-mode is never
 * enabled, so that mret and the ecall that ends the workload are not
 * recorded) and the entries are read from M-mode afterwards.
 *
 * Needs: -cpu rv64,smctr=on,ssctr=on,smcsrind=on,sscsrind=on,h=on,
 * sscofpmf=on,smaia=on,ssaia=on and -icount shift=0; a missing feature
 * is a failed check.
 */

#include "rt.h"
#include "ctr-decode.h"
#include "ctr-entry.h"

#define CSR_VSIE            0x204
#define CSR_HVIEN           0x608
#define CSR_HVIP            0x645

#define MSTATUS_SIE         (1UL << 1)
#define MSTATUS_SPIE        (1UL << 5)
#define IRQ_LCOF            13
#define MIP_VSSIP           (1UL << 2)
#define MIP_LCOFIP          (1UL << IRQ_LCOF)
#define COUNTEREN_CY        (1UL << 0)

#define DELEG_BREAKPOINT    (1UL << CAUSE_BREAKPOINT)
#define DELEG_ECALL_U       (1UL << CAUSE_ECALL_U)

#define DEPTH               16
#define NR_XFERS            14

/* All transfer type inhibit bits (NTBREN is an enable). */
#define ALL_INH     (CTRCTL_EXCINH | CTRCTL_INTRINH | CTRCTL_TRETINH |     \
                     CTRCTL_TKBRINH | CTRCTL_INDCALLINH |                  \
                     CTRCTL_DIRCALLINH | CTRCTL_INDJMPINH |                \
                     CTRCTL_DIRJMPINH | CTRCTL_CORSWAPINH | CTRCTL_RETINH | \
                     CTRCTL_INDLJMPINH | CTRCTL_DIRLJMPINH)

/* vt_info[] slots, written by vt_mvec */
enum { VI_MCAUSE, VI_MEPC, VI_STATUS, VI_S2, VI_S3, VI_S4, VI_S5 };

/*
 * The address of a global label of ctr-virt-work.S, taken with lla so
 * that no extern declarations are needed.
 */
#define PC(label) ({                                                    \
    unsigned long label_addr_;                                          \
    asm("lla %0, " #label : "=r"(label_addr_));                         \
    label_addr_;                                                        \
})

/* volatile: written by vt_mvec in ctr-virt-work.S */
#define INFO    ((volatile unsigned long *)PC(vt_info))

/*
 * vt_launch(entry, mstatus_mode, ctl, vsctrctl, via_sctrctl, arg) of
 * ctr-virt-work.S: see there.
 */
typedef long launch_fn(unsigned long entry, unsigned long mstatus_mode,
                       unsigned long ctl, unsigned long vsctrctl,
                       long via_sctrctl, unsigned long arg);

/* struct want.cc: a count, or one of these */
#define CC_ANY      (-1L)   /* CCV and CC not checked */
#define CC_FIRST    (-2L)   /* CCV=0, CC not checked */

/* One expected record; src/tgt 0: that PC is 0. */
struct want {
    unsigned long src, tgt;
    unsigned type;
    long cc;
};

/* One run of a workload. */
struct scen {
    int mode;                   /* RT_MODE_VS or RT_MODE_VU */
    unsigned long entry, vsvec;
    uint64_t ctl, vsctl;        /* mctrctl (or sctrctl), vsctrctl */
    bool via_s;                 /* write ctl to sctrctl, not mctrctl */
    unsigned long deleg;        /* medeleg = hedeleg */
    unsigned long arg;          /* s6 of the workload */
};

/* The expected CC field of @count cycles (hand-encoded, spec formula). */
static unsigned cc_field(long count)
{
    if (count < 4096) {
        return count;       /* CCE=0, CCM=count */
    }
    if (count == 6002) {
        /* msb 12: CCE=1, CCM = bits 11:0 = 6002 - 4096 = 0x772 */
        return 0x1772;
    }
    rt_printf("test bug: no CC encoding for %ld\n", count);
    rt_exit(2);
}

static void ctr_reset(void)
{
    csr_write(CSR_MCTRCTL, 0);
    csr_write(CSR_VSCTRCTL, 0);
    csr_write(CSR_SCTRSTATUS, 0);
    sctrclr();
}

static void check_entry(unsigned i, const struct want *w)
{
    struct ctr_entry e = ctr_read_entry(i);
    uint64_t data = e.data, want = w->type;
    bool ok;

    if (w->cc == CC_ANY) {
        data &= ~(CTRDATA_CCV | CTRDATA_CC_MASK);
    } else if (w->cc == CC_FIRST) {
        data &= ~CTRDATA_CC_MASK;
    } else {
        want |= CTRDATA_CCV | (uint64_t)cc_field(w->cc) << CTRDATA_CC_SHIFT;
    }
    ok = CHECK_EQ(e.source, w->src | CTRSOURCE_V);
    ok &= CHECK_EQ(e.target, w->tgt);
    ok &= CHECK_EQ(data, want);
    if (!ok) {
        rt_printf("  ^ logical entry %u: expected %s 0x%lx -> 0x%lx",
                  i, ctr_type_name(w->type), w->src, w->tgt);
        if (w->cc >= 0) {
            rt_printf(", CCV=1, %ld cycles", w->cc);
        } else if (w->cc == CC_FIRST) {
            rt_printf(", CCV=0");
        }
        rt_printf("\n");
    }
}

static void check_empty(unsigned i)
{
    struct ctr_entry e = ctr_read_entry(i);

    if (!(CHECK_EQ(e.source, 0) & CHECK_EQ(e.target, 0) &
          CHECK_EQ(e.data, 0))) {
        rt_printf("  ^ logical entry %u should be empty\n", i);
    }
}

/*
 * sctrstatus is @status and logical entries 0..@n-1 are @w (newest
 * first), entry @n is empty (SCTRCLR zeroed all entries before).
 */
static void check_records(const struct want *w, unsigned n,
                          unsigned long status)
{
    if (!CHECK_EQ(csr_read(CSR_SCTRSTATUS), status)) {
        rt_printf("  ^ sctrstatus (WRPTR = number of records)\n");
    }
    for (unsigned i = 0; i < n; i++) {
        check_entry(i, &w[i]);
    }
    check_empty(n);
}

/* Run @s; returns the mcause of the trap that ended it. */
static unsigned long run(const struct scen *s)
{
    unsigned long vstvec = csr_read(CSR_VSTVEC);
    unsigned long mode = ((unsigned long)(s->mode & 3) << MSTATUS_MPP_SHIFT) |
                         MSTATUS_MPV;
    launch_fn *launch = (launch_fn *)PC(vt_launch);
    unsigned long cause;

    ctr_reset();
    csr_write(CSR_MEDELEG, s->deleg);
    csr_write(CSR_HEDELEG, s->deleg);
    csr_write(CSR_VSTVEC, s->vsvec);
    csr_clear(CSR_VSSTATUS, MSTATUS_SIE | MSTATUS_SPIE | SSTATUS_SPP);
    for (unsigned i = 0; i < 8; i++) {
        INFO[i] = -1UL;
    }
    cause = launch(s->entry, mode, s->ctl, s->vsctl, s->via_s, s->arg);
    csr_write(CSR_MCTRCTL, 0);
    csr_write(CSR_VSCTRCTL, 0);
    csr_write(CSR_MEDELEG, 0);
    csr_write(CSR_HEDELEG, 0);
    csr_write(CSR_VSTVEC, vstvec);
    csr_clear(CSR_VSSTATUS, MSTATUS_SIE | MSTATUS_SPIE | SSTATUS_SPP);
    return cause;
}

static void describe(const char *what, const struct scen *s)
{
    rt_printf("  ^ %s: in %s, %s = 0x%lx, vsctrctl = 0x%lx\n", what,
              rt_mode_name(s->mode), s->via_s ? "sctrctl" : "mctrctl",
              (unsigned long)s->ctl, (unsigned long)s->vsctl);
}

/* ---- 1, 2, 6: every transfer type in VS and VU (vx_work) */

/*
 * One transfer of vx_work; *_vs: that end is in VS-mode, else in the
 * mode vx_work runs in.
 */
struct xfer {
    unsigned long src, tgt;
    unsigned type;
    bool src_vs, tgt_vs;
};

/*
 * "Transfer Type Filtering": a type is not recorded when its xINH bit
 * is set; not-taken branches only with NTBREN ("Non-default operations
 * require opt-in").
 */
static bool inhibited(uint64_t vsctl, unsigned type)
{
    if (type == CTR_TYPE_NT_BRANCH) {
        return !(vsctl & CTRCTL_NTBREN);
    }
    return vsctl & ctr_type_filter_bit(type);
}

/* "S: Enable transfer recording in VS-mode.  U: ... in VU-mode." */
static bool enabled(uint64_t vsctl, int mode)
{
    return vsctl & (mode == RT_MODE_VS ? CTRCTL_S : CTRCTL_U);
}

/*
 * What vx_work run in @mode records with vsctrctl = @vsctl, newest
 * first.  While V=1 and on transitions between VS and VU, every field
 * comes from vsctrctl ("Virtualization Mode Transitions": mctrctl.M,
 * sctrctl.S and vsctrctl.{S,U} give the enables of their modes; "For
 * all other xctrctl fields, the value in vsctrctl is used"), so mctrctl
 * and sctrctl do not appear here.
 */
static unsigned expect_xfers(int mode, uint64_t vsctl, struct want *w)
{
    /* In program order. */
    const struct xfer xfers[NR_XFERS] = {
        { PC(vx_br), PC(vx_br_t), CTR_TYPE_TK_BRANCH, false, false },
        /* "Not-taken branch": the target is the next instruction. */
        { PC(vx_nbr), PC(vx_nbr_t), CTR_TYPE_NT_BRANCH, false, false },
        { PC(vx_icall), PC(vx_icall_t), CTR_TYPE_INDCALL, false, false },
        { PC(vx_dcall), PC(vx_dcall_t), CTR_TYPE_DIRCALL, false, false },
        { PC(vx_ijmp), PC(vx_ijmp_t), CTR_TYPE_INDJUMP, false, false },
        { PC(vx_djmp), PC(vx_djmp_t), CTR_TYPE_DIRJUMP, false, false },
        { PC(vx_swap), PC(vx_swap_t), CTR_TYPE_CORSWAP, false, false },
        { PC(vx_ret), PC(vx_ret_t), CTR_TYPE_RETURN, false, false },
        { PC(vx_oijmp), PC(vx_oijmp_t), CTR_TYPE_INDLJUMP, false, false },
        { PC(vx_odjmp), PC(vx_odjmp_t), CTR_TYPE_DIRLJUMP, false, false },
        { PC(vx_ebreak), PC(vx_exc), CTR_TYPE_EXCEPTION, false, true },
        { PC(vx_exc_sret), PC(vx_resume), CTR_TYPE_TRAP_RETURN, true, false },
        { PC(vx_resume), PC(vx_irq), CTR_TYPE_INTERRUPT, false, true },
        { PC(vx_irq_sret), PC(vx_resume), CTR_TYPE_TRAP_RETURN, true, false },
    };
    unsigned n = 0;

    for (int i = NR_XFERS - 1; i >= 0; i--) {
        const struct xfer *x = &xfers[i];
        bool src_en = enabled(vsctl, x->src_vs ? RT_MODE_VS : mode);
        bool tgt_en = enabled(vsctl, x->tgt_vs ? RT_MODE_VS : mode);
        bool trap = x->type == CTR_TYPE_EXCEPTION ||
                    x->type == CTR_TYPE_INTERRUPT;
        unsigned long src = x->src, tgt = x->tgt;

        if (src_en && tgt_en) {
            /*
             * "Traps between enabled privilege modes are recorded as
             * normal" (so are trap returns and jumps).
             */
            if (inhibited(vsctl, x->type)) {
                continue;
            }
        } else if (tgt_en) {
            /*
             * "Traps from a disabled privilege mode to an enabled
             * privilege mode are partially recorded, such that the
             * ctrsource.PC is 0.  ... Trap returns from a disabled mode
             * to an enabled mode are not recorded."
             */
            if (!trap || inhibited(vsctl, x->type)) {
                continue;
            }
            src = 0;
        } else if (src_en) {
            if (trap) {
                /*
                 * External trap VU -> VS: needs vsctrctl.STE only; "does
                 * not depend on EXCINH/INTRINH"; "ctrtarget.PC is 0".
                 */
                if (!(vsctl & CTRCTL_STE)) {
                    continue;
                }
            } else if (inhibited(vsctl, x->type)) {
                continue;
            }
            /*
             * "Trap returns from an enabled mode back to a disabled mode
             * are partially recorded, such that ctrtarget.PC is 0."
             */
            tgt = 0;
        } else {
            continue;
        }
        w[n++] = (struct want){ src, tgt, x->type, CC_ANY };
    }
    return n;
}

/*
 * Run vx_work in @mode with @ctl in mctrctl (sctrctl if @via_s) and
 * @vsctl in vsctrctl.  @nrec is the number of records the case is
 * meant to produce (a guard on the model, not a check).
 */
static void test_xfer(const char *what, int mode, uint64_t ctl, bool via_s,
                      uint64_t vsctl, unsigned nrec)
{
    struct scen s = {
        .mode = mode, .entry = PC(vx_work), .vsvec = PC(vx_exc),
        .ctl = ctl, .vsctl = vsctl, .via_s = via_s,
        .deleg = DELEG_BREAKPOINT,
    };
    struct want w[NR_XFERS];
    unsigned n = expect_xfers(mode, vsctl, w);
    unsigned before = rt_failures();
    unsigned long cause;

    if (n != nrec) {
        rt_printf("test bug: %s: model gives %u records, not %u\n", what, n,
                  nrec);
        rt_exit(2);
    }
    /* The VS software interrupt vx_exc pends goes to VS-mode. */
    csr_write(CSR_HIDELEG, MIP_VSSIP);
    csr_set(CSR_MIE, MIP_VSSIP);
    cause = run(&s);
    csr_clear(CSR_MIE, MIP_VSSIP);
    csr_clear(CSR_MIP, MIP_VSSIP);
    csr_write(CSR_HIDELEG, 0);

    /* The workload ends with its own ecall (to M: not delegated). */
    CHECK_EQ(cause, mode == RT_MODE_VS ? CAUSE_ECALL_VS : CAUSE_ECALL_U);
    CHECK_EQ(INFO[VI_MEPC], PC(vx_resume));
    check_records(w, n, n);
    if (rt_failures() != before) {
        describe(what, &s);
    }
}

static void test_types(void)
{
    const uint64_t all_vs = CTRCTL_S | CTRCTL_NTBREN;
    const uint64_t all_vu = CTRCTL_U | CTRCTL_S | CTRCTL_NTBREN;

    rt_printf("1. every transfer type in VS and VU\n");
    test_xfer("all types in VS", RT_MODE_VS, 0, false, all_vs, 14);
    test_xfer("all types in VU (VS enabled too)", RT_MODE_VU, 0, false,
              all_vu, 14);
    /* Only the transfers within VU: the traps go to a disabled VS. */
    test_xfer("VU only", RT_MODE_VU, 0, false, CTRCTL_U | CTRCTL_NTBREN,
              10);
    test_xfer("VS, only vsctrctl.U", RT_MODE_VS, 0, false,
              CTRCTL_U | CTRCTL_NTBREN, 0);
    test_xfer("VS, not-taken branches not enabled", RT_MODE_VS, 0, false,
              CTRCTL_S, 13);
    /* While V=1 only vsctrctl's enables count. */
    test_xfer("VS, mctrctl.S/U only", RT_MODE_VS,
              CTRCTL_S | CTRCTL_U | CTRCTL_NTBREN, false, 0, 0);
    test_xfer("VU, mctrctl.S/U only", RT_MODE_VU,
              CTRCTL_S | CTRCTL_U | CTRCTL_NTBREN, false, 0, 0);
    test_xfer("VS, sctrctl.S/U only", RT_MODE_VS,
              CTRCTL_S | CTRCTL_U | CTRCTL_NTBREN, true, 0, 0);
    test_xfer("VU, sctrctl.S/U only", RT_MODE_VU,
              CTRCTL_S | CTRCTL_U | CTRCTL_NTBREN, true, 0, 0);
}

static void test_filters(void)
{
    static const uint64_t inh[] = {
        CTRCTL_EXCINH, CTRCTL_INTRINH, CTRCTL_TRETINH, CTRCTL_TKBRINH,
        CTRCTL_INDCALLINH, CTRCTL_DIRCALLINH, CTRCTL_INDJMPINH,
        CTRCTL_DIRJMPINH, CTRCTL_CORSWAPINH, CTRCTL_RETINH,
        CTRCTL_INDLJMPINH, CTRCTL_DIRLJMPINH,
    };
    const uint64_t all_vs = CTRCTL_S | CTRCTL_NTBREN;
    const uint64_t all_vu = CTRCTL_U | CTRCTL_S | CTRCTL_NTBREN;

    rt_printf("2. vsctrctl type filters in VS and VU\n");
    for (unsigned i = 0; i < sizeof(inh) / sizeof(inh[0]); i++) {
        /* Two trap returns, one of every other type. */
        unsigned n = inh[i] == CTRCTL_TRETINH ? 12 : 13;

        test_xfer("vsctrctl filter bit, VS", RT_MODE_VS, 0, false,
                  all_vs | inh[i], n);
        test_xfer("vsctrctl filter bit, VU", RT_MODE_VU, 0, false,
                  all_vu | inh[i], n);
    }
    test_xfer("vsctrctl all filter bits, VS", RT_MODE_VS, 0, false,
              CTRCTL_S | ALL_INH, 0);

    rt_printf("2. mctrctl/sctrctl type filters do not apply in VS/VU\n");
    test_xfer("mctrctl inhibits all, VS", RT_MODE_VS, ALL_INH, false,
              all_vs, 14);
    test_xfer("mctrctl inhibits all, VU", RT_MODE_VU, ALL_INH, false,
              all_vu, 14);
    test_xfer("sctrctl inhibits all, VS", RT_MODE_VS, ALL_INH, true,
              all_vs, 14);
    test_xfer("sctrctl inhibits all, VU", RT_MODE_VU, ALL_INH, true,
              all_vu, 14);
    test_xfer("mctrctl.NTBREN, VS", RT_MODE_VS, CTRCTL_NTBREN, false,
              CTRCTL_S, 13);
    test_xfer("sctrctl.NTBREN, VU", RT_MODE_VU, CTRCTL_NTBREN, true,
              CTRCTL_U | CTRCTL_S, 13);
}

/* ---- 6: transitions between VS and VU */

static void test_vx_transitions(void)
{
    rt_printf("6. VS <-> VU transitions around traps\n");
    /*
     * VS enabled, VU not: ebreak and the interrupt from VU have
     * ctrsource.PC 0, both srets ctrtarget.PC 0, nothing within VU.
     */
    test_xfer("VU work, only vsctrctl.S", RT_MODE_VU, 0, false,
              CTRCTL_S | CTRCTL_NTBREN, 4);
    test_xfer("VU work, only vsctrctl.S, EXCINH INTRINH TRETINH",
              RT_MODE_VU, 0, false,
              CTRCTL_S | CTRCTL_EXCINH | CTRCTL_INTRINH | CTRCTL_TRETINH, 0);
    /* External traps VU -> VS: vsctrctl.STE, not sctrctl.STE. */
    test_xfer("VU work, vsctrctl.U and STE", RT_MODE_VU, 0, false,
              CTRCTL_U | CTRCTL_STE | CTRCTL_NTBREN, 12);
    test_xfer("VU work, vsctrctl.U and STE, EXCINH INTRINH", RT_MODE_VU,
              0, false, CTRCTL_U | CTRCTL_STE | CTRCTL_NTBREN |
              CTRCTL_EXCINH | CTRCTL_INTRINH, 12);
    test_xfer("VU work, vsctrctl.U, sctrctl.STE", RT_MODE_VU, CTRCTL_STE,
              true, CTRCTL_U | CTRCTL_NTBREN, 10);
    test_xfer("VU work, vsctrctl.U, mctrctl.STE and MTE", RT_MODE_VU,
              CTRCTL_STE | CTRCTL_MTE, false, CTRCTL_U | CTRCTL_NTBREN, 10);
}

/*
 * tr_work with cycle counts: VS -> VU by sret, VU -> VS by a delegated
 * ecall.  @w/@n: the expected records, newest first.
 */
static void test_tr(const char *what, uint64_t ctl, bool via_s,
                    uint64_t vsctl, const struct want *w, unsigned n)
{
    struct scen s = {
        .mode = RT_MODE_VS, .entry = PC(tr_work), .vsvec = PC(tr_vec),
        .ctl = ctl, .vsctl = vsctl, .via_s = via_s, .deleg = DELEG_ECALL_U,
    };
    unsigned before = rt_failures();
    unsigned long cause = run(&s);

    CHECK_EQ(cause, CAUSE_ECALL_VS);
    CHECK_EQ(INFO[VI_MEPC], PC(tr_vt));
    /* 8 instructions from tr_t1 to tr_sret: mcycle sees 6 of them. */
    if (!CHECK_EQ(INFO[VI_S3] - INFO[VI_S2] + 2, 8)) {
        rt_printf("  ^ mcycle does not count instructions exactly: run "
                  "with -icount shift=0\n");
    }
    check_records(w, n, n);
    if (rt_failures() != before) {
        describe(what, &s);
    }
}

static void test_tr_cases(void)
{
    /* Counts: see tr_work in ctr-virt-work.S. */
    const struct want both[] = {
        { PC(tr_j3), PC(tr_vt), CTR_TYPE_DIRJUMP, 3 },
        { PC(tr_ecall), PC(tr_vec), CTR_TYPE_EXCEPTION, 2 },
        { PC(tr_j2), PC(tr_ut), CTR_TYPE_DIRJUMP, 3 },
        { PC(tr_sret), PC(tr_user), CTR_TYPE_TRAP_RETURN, 8 },
        { PC(tr_j1), PC(tr_t1), CTR_TYPE_DIRJUMP, CC_FIRST },
    };
    /*
     * VU disabled: the sret has ctrtarget.PC 0 and counts (CTR is active
     * while it executes); nothing in VU counts, so the ecall, with
     * ctrsource.PC 0, has CCV=1 and 0 cycles (test-ctr-cycles.c's
     * convention: "Only cycles while CTR is active are counted").
     */
    const struct want s_only[] = {
        { PC(tr_j3), PC(tr_vt), CTR_TYPE_DIRJUMP, 3 },
        { 0, PC(tr_vec), CTR_TYPE_EXCEPTION, 0 },
        { PC(tr_sret), 0, CTR_TYPE_TRAP_RETURN, 8 },
        { PC(tr_j1), PC(tr_t1), CTR_TYPE_DIRJUMP, CC_FIRST },
    };
    /* VS disabled: the sret (disabled -> enabled) is not recorded. */
    const struct want u_only[] = {
        { PC(tr_j2), PC(tr_ut), CTR_TYPE_DIRJUMP, CC_FIRST },
    };
    /* External trap VU -> VS with vsctrctl.STE: ctrtarget.PC 0. */
    const struct want u_ste[] = {
        { PC(tr_ecall), 0, CTR_TYPE_EXCEPTION, 2 },
        { PC(tr_j2), PC(tr_ut), CTR_TYPE_DIRJUMP, CC_FIRST },
    };
    /* Inhibited transfers do not restart the count. */
    const struct want inh[] = {
        { PC(tr_j3), PC(tr_vt), CTR_TYPE_DIRJUMP, 2 + 3 },
        { PC(tr_j2), PC(tr_ut), CTR_TYPE_DIRJUMP, 8 + 3 },
        { PC(tr_j1), PC(tr_t1), CTR_TYPE_DIRJUMP, CC_FIRST },
    };

    rt_printf("4, 6. VS -> VU -> VS with cycle counts\n");
    test_tr("VS and VU enabled", 0, false, CTRCTL_S | CTRCTL_U, both, 5);
    test_tr("VS enabled, VU not", 0, false, CTRCTL_S, s_only, 4);
    test_tr("VU enabled, VS not", 0, false, CTRCTL_U, u_only, 1);
    test_tr("VU enabled, vsctrctl.STE", 0, false, CTRCTL_U | CTRCTL_STE,
            u_ste, 2);
    test_tr("VU enabled, sctrctl.STE", CTRCTL_STE, true, CTRCTL_U,
            u_only, 1);
    test_tr("VS and VU enabled, EXCINH and TRETINH", 0, false,
            CTRCTL_S | CTRCTL_U | CTRCTL_EXCINH | CTRCTL_TRETINH, inh, 3);
    /* mctrctl's enables and filters change nothing. */
    test_tr("VS and VU enabled, mctrctl.S/U and EXCINH", CTRCTL_S |
            CTRCTL_U | CTRCTL_EXCINH | CTRCTL_TRETINH, false,
            CTRCTL_S | CTRCTL_U, both, 5);
}

/* ---- 4: cycle counting within VS and within VU */

static void test_cycles(int mode, unsigned long loops)
{
    const long count3 = 2 * loops + 2;
    const struct want w[] = {
        { PC(cy_j3), PC(cy_t3), CTR_TYPE_DIRJUMP, count3 },
        { PC(cy_j2), PC(cy_t2), CTR_TYPE_DIRJUMP, 8 },
        /* "The next record will have CCV=0 after a write to xctrctl" */
        { PC(cy_j1), PC(cy_t1), CTR_TYPE_DIRJUMP, CC_FIRST },
    };
    struct scen s = {
        .mode = mode, .entry = PC(cy_work), .vsvec = PC(cy_t3),
        .vsctl = (mode == RT_MODE_VS ? CTRCTL_S : CTRCTL_U) |
                 CTRCTL_TKBRINH,
        .arg = loops,
    };
    unsigned before = rt_failures();
    unsigned long cause;

    rt_printf("4. cycle counting in %s, %ld cycles\n", rt_mode_name(mode),
              count3);
    cause = run(&s);
    CHECK_EQ(cause, mode == RT_MODE_VS ? CAUSE_ECALL_VS : CAUSE_ECALL_U);
    if (!CHECK_EQ(INFO[VI_S3] - INFO[VI_S2] + 2, 8)) {
        rt_printf("  ^ mcycle does not count instructions exactly: run "
                  "with -icount shift=0\n");
    }
    check_records(w, 3, 3);
    if (rt_failures() != before) {
        describe("cycle counting", &s);
    }
}

/* ---- 3: RAS emulation */

static void test_ras(const char *what, int mode, uint64_t ctl,
                     uint64_t vsctl)
{
    struct scen s = {
        .mode = mode, .entry = PC(rs_work), .vsvec = PC(rs_f3),
        .ctl = ctl, .vsctl = vsctl,
    };
    /*
     * "Indirect and direct calls are recorded as normal"; "Function
     * returns pop the most recent call, by decrementing the WRPTR then
     * invalidating the WRPTR entry"; "Co-routine swaps ... Logical
     * entry 0 is overwritten, and WRPTR is not modified"; "Other
     * transfer types are inhibited".  From WRPTR 0: the swap overwrites
     * physical 15, rs_c1 and rs_c2 push at 0 and 1, the returns pop
     * both, rs_c3 pushes at 0 again.  CC is not checked (the RASEMU
     * counting note allows CCV=0).
     */
    const struct want w[] = {
        { PC(rs_c3), PC(rs_f3), CTR_TYPE_DIRCALL, CC_ANY },
        { PC(rs_sw), PC(rs_sw_t), CTR_TYPE_CORSWAP, CC_ANY },
    };
    unsigned before = rt_failures();
    struct ctr_entry e;

    CHECK_EQ(run(&s), mode == RT_MODE_VS ? CAUSE_ECALL_VS : CAUSE_ECALL_U);
    check_records(w, 2, 1);
    /* Physical 1 (logical depth-1): rs_c2's record with V cleared. */
    e = ctr_read_entry(DEPTH - 1);
    CHECK_EQ(e.source, PC(rs_c2));
    CHECK_EQ(e.target, PC(rs_f2));
    CHECK_EQ(e.data & CTRDATA_TYPE_MASK, CTR_TYPE_INDCALL);
    if (rt_failures() != before) {
        describe(what, &s);
    }
}

static void test_rasemu(void)
{
    const struct want normal[] = {
        { PC(rs_c3), PC(rs_f3), CTR_TYPE_DIRCALL, CC_ANY },
        { PC(rs_r1), PC(rs_c1_r), CTR_TYPE_RETURN, CC_ANY },
        { PC(rs_r2), PC(rs_c2_r), CTR_TYPE_RETURN, CC_ANY },
        { PC(rs_c2), PC(rs_f2), CTR_TYPE_INDCALL, CC_ANY },
        { PC(rs_c1), PC(rs_f1), CTR_TYPE_DIRCALL, CC_ANY },
        { PC(rs_sw), PC(rs_sw_t), CTR_TYPE_CORSWAP, CC_ANY },
        { PC(rs_j), PC(rs_j_t), CTR_TYPE_DIRJUMP, CC_ANY },
        { PC(rs_br), PC(rs_br_t), CTR_TYPE_TK_BRANCH, CC_ANY },
    };
    struct scen s = {
        .mode = RT_MODE_VS, .entry = PC(rs_work), .vsvec = PC(rs_f3),
        .ctl = CTRCTL_RASEMU | CTRCTL_S | CTRCTL_U, .vsctl = CTRCTL_S,
    };
    unsigned before = rt_failures();

    rt_printf("3. vsctrctl.RASEMU in VS and VU\n");
    test_ras("vsctrctl.RASEMU, VS", RT_MODE_VS, 0,
             CTRCTL_S | CTRCTL_RASEMU);
    test_ras("vsctrctl.RASEMU, VU", RT_MODE_VU, 0,
             CTRCTL_U | CTRCTL_RASEMU);
    /* "Transfer type filtering bits ... are ignored" */
    test_ras("vsctrctl.RASEMU and all filter bits, VS", RT_MODE_VS, 0,
             CTRCTL_S | CTRCTL_RASEMU | ALL_INH | CTRCTL_NTBREN |
             CTRCTL_STE);

    rt_printf("3. mctrctl.RASEMU does not apply in VS\n");
    CHECK_EQ(run(&s), CAUSE_ECALL_VS);
    check_records(normal, 8, 8);
    if (rt_failures() != before) {
        describe("mctrctl.RASEMU", &s);
    }
}

/* ---- 5: vsctrctl.LCOFIFRZ and a virtual LCOFI */

/*
 * Pend a virtual LCOFI for VS-mode the AIA way (Ssaia, "Virtual
 * interrupts for VS level"): hideleg bit 13 = 0 and hvien bit 13 = 1
 * make hvip bit 13 the pending bit of VS-level interrupt 13 and vsie
 * bit 13 its enable.  Each step is a check: without Ssaia the CSRs
 * trap, and a missing bit means the interrupt can never come.
 */
static void lcofi_pend(void)
{
    unsigned long v = 0;

    csr_write(CSR_HIDELEG, 0);
    if (!CHECK_EQ(RT_TRAP_CAUSE(csr_write(CSR_HVIEN, MIP_LCOFIP)),
                  RT_NO_TRAP)) {
        rt_printf("  ^ hvien (0x608) is not accessible: no Ssaia?\n");
    }
    (void)RT_TRAP_CAUSE(v = csr_read(CSR_HVIEN));
    CHECK_EQ(v & MIP_LCOFIP, MIP_LCOFIP);
    csr_write(CSR_VSIE, MIP_LCOFIP);
    CHECK_EQ(csr_read(CSR_VSIE), MIP_LCOFIP);
    v = 0;
    (void)RT_TRAP_CAUSE(csr_write(CSR_HVIP, MIP_LCOFIP));
    (void)RT_TRAP_CAUSE(v = csr_read(CSR_HVIP));
    CHECK_EQ(v & MIP_LCOFIP, MIP_LCOFIP);
}

static void lcofi_clear(void)
{
    (void)RT_TRAP_CAUSE(csr_write(CSR_HVIP, 0));
    csr_write(CSR_VSIE, 0);
    (void)RT_TRAP_CAUSE(csr_write(CSR_HVIEN, 0));
}

/*
 * @vu: the interrupt comes in VU-mode (lf_vu_work), else in VS-mode
 * (lf_work).  @st: sctrstatus the handler sees first (FROZEN when the
 * interrupt froze CTR).  @w/@n: the records at the end, newest first;
 * the handler's second read of sctrstatus, after lf_j2, sees all @n.
 */
static void test_lcofi(const char *what, bool vu, uint64_t ctl, bool via_s,
                       uint64_t vsctl, unsigned long st,
                       const struct want *w, unsigned n)
{
    struct scen s = {
        .mode = RT_MODE_VS, .entry = vu ? PC(lf_vu_work) : PC(lf_work),
        .vsvec = PC(lf_vec), .ctl = ctl, .vsctl = vsctl, .via_s = via_s,
    };
    unsigned before = rt_failures();

    rt_printf("5. %s\n", what);
    lcofi_pend();
    CHECK_EQ(run(&s), CAUSE_ECALL_VS);
    lcofi_clear();
    /* The trap went to VS-mode as interrupt 13, at the expected pc. */
    CHECK_EQ(INFO[VI_S2], CAUSE_INTERRUPT | IRQ_LCOF);
    CHECK_EQ(INFO[VI_S3], vu ? PC(lf_user) : PC(lf_after));
    /* What the handler saw first, and after clearing FROZEN. */
    CHECK_EQ(INFO[VI_S4], st);
    CHECK_EQ(INFO[VI_S5], n);
    check_records(w, n, n);
    if (rt_failures() != before) {
        describe(what, &s);
    }
}

static void test_lcofi_cases(void)
{
    /*
     * "freeze behavior for LCOFIs ... that trap to VS-mode is determined
     * by the LCOFIFRZ ... in vsctrctl.  This includes virtual LCOFIs
     * pended by a hypervisor."  "The LCOFI trap itself is not recorded"
     * and recording is inhibited "until software clears FROZEN": lf_fj
     * is not recorded, lf_j2 is.
     */
    const struct want vs_frz[] = {
        { PC(lf_j2), PC(lf_t2), CTR_TYPE_DIRJUMP, CC_ANY },
        { PC(lf_j1), PC(lf_t1), CTR_TYPE_DIRJUMP, CC_ANY },
    };
    const struct want vs_nofrz[] = {
        { PC(lf_j2), PC(lf_t2), CTR_TYPE_DIRJUMP, CC_ANY },
        { PC(lf_fj), PC(lf_ft), CTR_TYPE_DIRJUMP, CC_ANY },
        { PC(lf_after), PC(lf_vec), CTR_TYPE_INTERRUPT, CC_ANY },
        { PC(lf_j1), PC(lf_t1), CTR_TYPE_DIRJUMP, CC_ANY },
    };
    const struct want vu_frz[] = {
        { PC(lf_j2), PC(lf_t2), CTR_TYPE_DIRJUMP, CC_ANY },
        { PC(lf_sret), PC(lf_user), CTR_TYPE_TRAP_RETURN, CC_ANY },
        { PC(lf_vj1), PC(lf_vt1), CTR_TYPE_DIRJUMP, CC_ANY },
    };
    const struct want vu_nofrz[] = {
        { PC(lf_j2), PC(lf_t2), CTR_TYPE_DIRJUMP, CC_ANY },
        { PC(lf_fj), PC(lf_ft), CTR_TYPE_DIRJUMP, CC_ANY },
        { PC(lf_user), PC(lf_vec), CTR_TYPE_INTERRUPT, CC_ANY },
        { PC(lf_sret), PC(lf_user), CTR_TYPE_TRAP_RETURN, CC_ANY },
        { PC(lf_vj1), PC(lf_vt1), CTR_TYPE_DIRJUMP, CC_ANY },
    };
    const uint64_t frz = CTRCTL_LCOFIFRZ;

    /*
     * "If the Sscofpmf extension is implemented, LCOFIFRZ must be
     * writable."
     */
    csr_write(CSR_VSCTRCTL, frz);
    CHECK_EQ(csr_read(CSR_VSCTRCTL), frz);
    csr_write(CSR_VSCTRCTL, 0);

    test_lcofi("virtual LCOFI VS -> VS, vsctrctl.LCOFIFRZ", false, 0, false,
               CTRCTL_S | frz, SCTRSTATUS_FROZEN | 1, vs_frz, 2);
    test_lcofi("virtual LCOFI VS -> VS, mctrctl.LCOFIFRZ only", false, frz,
               false, CTRCTL_S, 2, vs_nofrz, 4);
    test_lcofi("virtual LCOFI VS -> VS, sctrctl.LCOFIFRZ only", false, frz,
               true, CTRCTL_S, 2, vs_nofrz, 4);
    test_lcofi("virtual LCOFI VU -> VS, vsctrctl.LCOFIFRZ", true, 0, false,
               CTRCTL_S | CTRCTL_U | frz, SCTRSTATUS_FROZEN | 2, vu_frz, 3);
    test_lcofi("virtual LCOFI VU -> VS, mctrctl.LCOFIFRZ only", true, frz,
               false, CTRCTL_S | CTRCTL_U, 3, vu_nofrz, 5);
}

/*
 * VU -> VS with VS disabled (an external trap, vsctrctl.STE=0): the
 * freeze does not depend on the mode enables ("When LCOFIFRZ=1 and a
 * LCOFI traps ... FROZEN is set by hardware"); nothing is recorded.
 */
static void test_lcofi_disabled(void)
{
    struct scen s = {
        .mode = RT_MODE_VS, .entry = PC(lf_vu_work), .vsvec = PC(lf_vec),
        .vsctl = CTRCTL_U | CTRCTL_LCOFIFRZ,
    };
    unsigned before = rt_failures();

    rt_printf("5. virtual LCOFI VU -> VS, VS disabled\n");
    lcofi_pend();
    CHECK_EQ(run(&s), CAUSE_ECALL_VS);
    lcofi_clear();
    CHECK_EQ(INFO[VI_S2], CAUSE_INTERRUPT | IRQ_LCOF);
    CHECK_EQ(INFO[VI_S3], PC(lf_user));
    CHECK_EQ(INFO[VI_S4], SCTRSTATUS_FROZEN);
    CHECK_EQ(INFO[VI_S5], 0);
    check_records(NULL, 0, 0);
    if (rt_failures() != before) {
        describe("LCOFI, VS disabled", &s);
    }
}

int main(void)
{
    CHECK(rt_has_h);
    csr_write(CSR_SCTRDEPTH, 0);        /* 16 entries */
    CHECK_EQ(csr_read(CSR_SCTRDEPTH), 0);
    /* cycle readable in VS and VU (the workloads compare with it) */
    csr_set(CSR_MCOUNTEREN, COUNTEREN_CY);
    csr_set(CSR_HCOUNTEREN, COUNTEREN_CY);
    csr_set(CSR_SCOUNTEREN, COUNTEREN_CY);

    test_types();
    test_filters();
    test_vx_transitions();
    test_rasemu();
    test_cycles(RT_MODE_VS, 1000);
    test_cycles(RT_MODE_VU, 1000);
    test_cycles(RT_MODE_VS, 3000);
    test_tr_cases();
    test_lcofi_cases();
    test_lcofi_disabled();
    ctr_reset();
    return 0;
}
