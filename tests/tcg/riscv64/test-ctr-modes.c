/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CTR recording of privilege mode transitions (Smctr/Ssctr 1.0,
 * "Behavior"):
 *
 * - "Privilege Mode Transitions", table "Trap and Trap Return Recording":
 *   every cell for every trap (exception and interrupt) and every trap
 *   return (mret, sret, and mnret with Smrnmi) between M, S/HS, U and,
 *   with H, VS and VU: enabled -> enabled recorded, disabled -> enabled
 *   trap recorded with ctrsource.PC=0, enabled -> disabled trap return
 *   recorded with ctrtarget.PC=0, the others not recorded;
 * - "Virtualization Mode Transitions": the mode enables come from
 *   mctrctl.M, sctrctl.S and vsctrctl.S/U, every other field (transfer
 *   type filters, RASEMU) from vsctrctl;
 * - "External Traps", table "External Trap Enable Requirements": every
 *   row is recorded with ctrtarget.PC=0 and TYPE 1/2 exactly when all its
 *   xTE bits are set, regardless of EXCINH/INTRINH, not when FROZEN or
 *   RASEMU=1;
 * - "Freeze": breakpoints (ebreak, c.ebreak) with BPFRZ and counter
 *   overflow interrupts (Sscofpmf) with LCOFIFRZ set FROZEN and are not
 *   recorded, and nothing is recorded until FROZEN is cleared; BPFRZ and
 *   LCOFIFRZ come from vsctrctl for traps to VS-mode and from sctrctl
 *   for traps from VS/VU to HS/M; an LCOFIP bit set by software does not
 *   freeze (docs/system/riscv/ctr.rst);
 * - sctrstatus.FROZEN set by software inhibits jumps, branches, traps and
 *   trap returns.
 *
 * Each case runs one transition through the scenario engine in
 * ctr-modes-work.S: the configuration is written from M-mode, the source
 * mode is entered with mret (not recorded: M is disabled or trap returns
 * are inhibited, except when that mret is the transition under test),
 * and the trap vectors freeze CTR before anything else, so the entries
 * hold exactly the records of the transition under test.  All jump and
 * branch types are inhibited, so only traps and trap returns can be
 * recorded; trap return tests inhibit exceptions and interrupts and keep
 * the xTE bits clear, so the exit ecall to M is not recorded.  Modes not
 * involved in a table case are enabled ("decoys") except M, so that an
 * implementation consulting the wrong enable bit is caught.  The
 * runtime's rt_call_in_mode() is not used: its ecalls and mrets would be
 * transitions of their own.
 *
 * The CPU configuration is read at run time: misa.H, Smstateen
 * (mstateen0), Smrnmi (mnstatus), Sscofpmf (scountovf), RASEMU.  What
 * it finds is checked against what the command line configured, given
 * by the loader as a 64-bit word at 0x80fff000:
 *   -device loader,addr=0x80fff000,data=0x4354524d000000FF,data-len=8
 * with FF bit 0 = H, bit 1 = Smstateen, bit 2 = Smrnmi, bit 3 =
 * Sscofpmf, so a missing extension fails instead of being skipped.
 * QEMU keeps hideleg bit 13 read-only 0 (it has no Shlcofideleg), so
 * the LCOFI-to-VS cases below do not run here; test-ctr-virt pends a
 * virtual LCOFI through Ssaia's hvien/hvip and covers vsctrctl.LCOFIFRZ.
 */

#include "rt.h"
#include "ctr-decode.h"
#include "ctr-entry.h"
#include "ctr-modes.h"

#define CONFIG_ADDR         0x80fff000UL
#define CONFIG_MAGIC        0x4354524dUL
#define CONFIG_H            (1UL << 0)
#define CONFIG_STATEEN      (1UL << 1)
#define CONFIG_RNMI         (1UL << 2)
#define CONFIG_SSCOFPMF     (1UL << 3)

#define CSR_MNEPC           0x741
#define CSR_MNSTATUS        0x744
#define CSR_MHPMEVENT3      0x323
#define CSR_MHPMCOUNTER3    0xb03
#define CSR_SCOUNTOVF       0xda0

#define MSTATUS_SIE         (1UL << 1)
#define MSTATUS_MIE         (1UL << 3)
#define MSTATUS_MPIE        (1UL << 7)
#define MNSTATUS_NMIE       (1UL << 3)
#define MNSTATUS_MNPV       (1UL << 7)
#define MNSTATUS_MNPP_SHIFT 11
#define MNSTATUS_MNPP       (3UL << MNSTATUS_MNPP_SHIFT)

#define IRQ_S_SOFT          1
#define IRQ_LCOF            13
#define MIP_SSIP            (1UL << 1)
#define MIP_VSSIP           (1UL << 2)
#define MIP_LCOFIP          (1UL << IRQ_LCOF)

#define HPM_CYCLES          0x1     /* mhpmevent event: CPU cycles */
#define HPM3                (1UL << 3)
#define LCOFI_PERIOD        100000  /* counter starts at -LCOFI_PERIOD */
#define LCOFI_WAIT          50000000
#define IRQ_WAIT            10000

/* Every jump and branch type (NTBREN stays 0). */
#define INH_JUMPS   (CTRCTL_TKBRINH | CTRCTL_INDCALLINH | CTRCTL_DIRCALLINH | \
                     CTRCTL_INDJMPINH | CTRCTL_DIRJMPINH |                   \
                     CTRCTL_CORSWAPINH | CTRCTL_RETINH | CTRCTL_INDLJMPINH | \
                     CTRCTL_DIRLJMPINH)
/* Only traps can be recorded. */
#define CFG_TRAPS   (INH_JUMPS | CTRCTL_TRETINH)
/* Only trap returns can be recorded. */
#define CFG_RETS    (INH_JUMPS | CTRCTL_EXCINH | CTRCTL_INTRINH)

#define NR_READ     6

/* volatile: written by the vectors in ctr-modes-work.S */
volatile struct ctr_log_entry ctr_log[8];
_Static_assert(sizeof(struct ctr_log_entry) == 64, "LOG_SHIFT in the .S");
/* volatile: read and written by the vectors */
volatile unsigned long ctr_log_n, ctr_vec_freeze, ctr_wait_count;

enum kind {
    K_EXC,          /* illegal instruction (cause 2) */
    K_INT,          /* supervisor software interrupt (SSIP or VSSIP) */
    K_EBREAK,
    K_CEBREAK,
    K_LCOFI,        /* local counter overflow interrupt, real overflow */
    K_LCOFI_SW,     /* LCOFIP written to 1 by software */
    K_RET,          /* mret or sret */
    K_MNRET,
};

static const char *const kind_names[] = {
    [K_EXC] = "exception", [K_INT] = "interrupt", [K_EBREAK] = "ebreak",
    [K_CEBREAK] = "c.ebreak", [K_LCOFI] = "LCOFI (overflow)",
    [K_LCOFI_SW] = "LCOFI (set by software)", [K_RET] = "xret",
    [K_MNRET] = "mnret",
};

struct scen {
    enum kind kind;
    int src, tgt;               /* enum rt_mode */
    uint64_t mctl, vsctl;       /* mctrctl (sctrctl is its view), vsctrctl */
    uint64_t status0;           /* sctrstatus when the source is entered */
    bool nofreeze;              /* the vectors leave FROZEN alone */
};

struct outcome {
    unsigned long nlog;
    struct ctr_log_entry log[2];
    uint64_t sctrstatus;        /* after the scenario */
    struct ctr_entry e[NR_READ];    /* logical entries 0.. */
};

/* What the spec's tables say about one transfer. */
enum expect {
    E_NONE,     /* not recorded */
    E_FULL,     /* recorded normally */
    E_SRC0,     /* recorded with ctrsource.PC=0 */
    E_TGT0,     /* recorded with ctrtarget.PC=0 (trap return or ext. trap) */
};

static bool has_stateen, has_rnmi, has_rasemu, has_sscofpmf, has_lcofifrz;
static bool has_vs_lcofi;

static bool is_trap(enum kind k)
{
    return k != K_RET && k != K_MNRET;
}

static bool is_irq(enum kind k)
{
    return k == K_INT || k == K_LCOFI || k == K_LCOFI_SW;
}

static bool is_virt(int mode)
{
    return mode & 4;
}

static int level_of(int mode)
{
    if (mode == RT_MODE_M) {
        return RT_LEVEL_M;
    }
    return is_virt(mode) ? RT_LEVEL_VS : RT_LEVEL_HS;
}

static unsigned long vector_of(int mode)
{
    static char *const vecs[] = { ctr_mvec, ctr_hsvec, ctr_vsvec };

    return (unsigned long)vecs[level_of(mode)];
}

/* The cause the trap handler sees. */
static unsigned long trap_cause(enum kind k)
{
    switch (k) {
    case K_EXC:
        return CAUSE_INSN_ILLEGAL;
    case K_EBREAK:
    case K_CEBREAK:
        return CAUSE_BREAKPOINT;
    case K_INT:
        /* SSIP at M/HS; VSSIP is reported to VS-mode as code 1 too. */
        return CAUSE_INTERRUPT | IRQ_S_SOFT;
    default:
        return CAUSE_INTERRUPT | IRQ_LCOF;
    }
}

static unsigned long trap_pc(enum kind k)
{
    switch (k) {
    case K_EXC:
        return (unsigned long)ctr_act_ill;
    case K_EBREAK:
        return (unsigned long)ctr_act_ebreak;
    case K_CEBREAK:
        return (unsigned long)ctr_act_cebreak;
    default:
        return (unsigned long)ctr_act_wait;
    }
}

/* Address of the trap return instruction under test. */
static unsigned long xret_pc(const struct scen *s)
{
    if (s->kind == K_MNRET) {
        return (unsigned long)ctr_scen_mnret;
    }
    return s->src == RT_MODE_M ? (unsigned long)ctr_scen_mret
                               : (unsigned long)ctr_act_sret;
}

/* Enable or disable recording in @mode: mctrctl.M/S/U or vsctrctl.S/U. */
static void set_mode(struct scen *s, int mode, bool on)
{
    uint64_t *reg = is_virt(mode) ? &s->vsctl : &s->mctl;
    uint64_t bit;

    switch (mode & 3) {
    case RT_MODE_M:
        bit = CTRCTL_M;
        break;
    case RT_MODE_S:
        bit = CTRCTL_S;
        break;
    default:
        bit = CTRCTL_U;
        break;
    }
    if (on) {
        *reg |= bit;
    } else {
        *reg &= ~bit;
    }
}

/* Enable every mode but M, @a and @b (with H, the virtual ones too). */
static void set_decoys(struct scen *s, int a, int b)
{
    static const int modes[] = {
        RT_MODE_U, RT_MODE_S, RT_MODE_VU, RT_MODE_VS
    };

    for (unsigned i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        if (modes[i] != a && modes[i] != b &&
            (!is_virt(modes[i]) || rt_has_h)) {
            set_mode(s, modes[i], true);
        }
    }
}

static void start_overflow(void)
{
    csr_set(CSR_MCOUNTINHIBIT, HPM3);
    csr_write(CSR_MHPMEVENT3, HPM_CYCLES);
    csr_write(CSR_MHPMCOUNTER3, -(unsigned long)LCOFI_PERIOD);
    csr_clear(CSR_MCOUNTINHIBIT, HPM3);
}

static void stop_overflow(void)
{
    csr_set(CSR_MCOUNTINHIBIT, HPM3);
    csr_write(CSR_MHPMEVENT3, 0);       /* also clears OF */
    csr_write(CSR_MHPMCOUNTER3, 0);
}

/* Delegate the exception @bit or set up the interrupt source. */
static unsigned long setup_source(const struct scen *s)
{
    bool to_s = s->tgt == RT_MODE_S, to_vs = s->tgt == RT_MODE_VS;
    unsigned long bit = 0;

    switch (s->kind) {
    case K_EXC:
        bit = 1UL << CAUSE_INSN_ILLEGAL;
        break;
    case K_EBREAK:
    case K_CEBREAK:
        bit = 1UL << CAUSE_BREAKPOINT;
        break;
    case K_INT:
        if (to_vs) {
            csr_write(CSR_HIDELEG, MIP_VSSIP);
            csr_write(CSR_MIE, MIP_VSSIP);
            csr_set(CSR_MIP, MIP_VSSIP);
        } else {
            csr_write(CSR_MIDELEG, to_s ? MIP_SSIP : 0);
            csr_write(CSR_MIE, MIP_SSIP);
            csr_set(CSR_MIP, MIP_SSIP);
        }
        return trap_pc(s->kind);
    case K_LCOFI:
    case K_LCOFI_SW:
        csr_write(CSR_MIDELEG, to_s || to_vs ? MIP_LCOFIP : 0);
        if (rt_has_h) {
            csr_write(CSR_HIDELEG, to_vs ? MIP_LCOFIP : 0);
        }
        csr_write(CSR_MIE, MIP_LCOFIP);
        if (s->kind == K_LCOFI) {
            start_overflow();
        } else {
            csr_set(CSR_MIP, MIP_LCOFIP);
        }
        return trap_pc(s->kind);
    default:
        return 0;
    }
    csr_write(CSR_MEDELEG, to_s || to_vs ? bit : 0);
    if (rt_has_h) {
        csr_write(CSR_HEDELEG, to_vs ? bit : 0);
    }
    return trap_pc(s->kind);
}

/* Run one scenario and collect the trap log, sctrstatus and entries. */
static void run_scen(const struct scen *s, struct outcome *o)
{
    unsigned long mtvec, stvec, vstvec = 0, mstatus, pc;
    int enter = s->src;

    csr_write(CSR_MCTRCTL, 0);
    if (rt_has_h) {
        csr_write(CSR_VSCTRCTL, s->vsctl);
    }
    csr_write(CSR_SCTRSTATUS, 0);
    sctrclr();
    ctr_log_n = 0;
    for (unsigned i = 0; i < 8; i++) {
        ctr_log[i].level = -1UL;
    }
    ctr_vec_freeze = s->nofreeze ? 0 : SCTRSTATUS_FROZEN;
    ctr_wait_count = s->kind == K_LCOFI ? LCOFI_WAIT : IRQ_WAIT;

    mstatus = csr_read(CSR_MSTATUS);
    mstatus &= ~(MSTATUS_MPP | MSTATUS_MPV | MSTATUS_MPRV | MSTATUS_MPIE |
                 MSTATUS_MIE | MSTATUS_SIE | SSTATUS_SPP);
    if (rt_has_h) {
        csr_clear(CSR_HSTATUS, HSTATUS_SPV);
        csr_clear(CSR_VSSTATUS, SSTATUS_SPP | MSTATUS_SIE);
    }

    if (is_trap(s->kind)) {
        pc = setup_source(s);
        /* A same-level interrupt needs the source's global enable. */
        if (is_irq(s->kind) && s->src == s->tgt) {
            if (s->src == RT_MODE_M) {
                mstatus |= MSTATUS_MPIE;        /* mret sets MIE */
            } else if (s->src == RT_MODE_S) {
                mstatus |= MSTATUS_SIE;
            } else {
                csr_set(CSR_VSSTATUS, MSTATUS_SIE);
            }
        }
    } else if (s->src == RT_MODE_M) {
        /* The mret (or mnret) entering the target is the transfer. */
        pc = (unsigned long)ctr_act_exit;
        enter = s->tgt;
        if (s->kind == K_MNRET) {
            unsigned long mn = csr_read(CSR_MNSTATUS);

            mn &= ~(MNSTATUS_MNPP | MNSTATUS_MNPV);
            mn |= (unsigned long)(s->tgt & 3) << MNSTATUS_MNPP_SHIFT;
            if (is_virt(s->tgt)) {
                mn |= MNSTATUS_MNPV;
            }
            csr_write(CSR_MNSTATUS, mn);
            enter = RT_MODE_M;
        }
    } else {
        /* Enter HS or VS at an sret returning to the target. */
        pc = (unsigned long)ctr_act_sret;
        if (s->src == RT_MODE_VS) {
            csr_write(CSR_VSEPC, (unsigned long)ctr_act_exit);
            if (s->tgt == RT_MODE_VS) {
                csr_set(CSR_VSSTATUS, SSTATUS_SPP);
            }
        } else {
            csr_write(CSR_SEPC, (unsigned long)ctr_act_exit);
            if ((s->tgt & 3) == RT_MODE_S) {
                mstatus |= SSTATUS_SPP;
            }
            if (is_virt(s->tgt)) {
                csr_set(CSR_HSTATUS, HSTATUS_SPV);
            }
        }
    }
    mstatus |= (unsigned long)(enter & 3) << MSTATUS_MPP_SHIFT;
    if (is_virt(enter)) {
        mstatus |= MSTATUS_MPV;
    }
    csr_write(CSR_MSTATUS, mstatus);

    mtvec = csr_swap(CSR_MTVEC, (unsigned long)ctr_mvec);
    stvec = csr_swap(CSR_STVEC, (unsigned long)ctr_hsvec);
    if (rt_has_h) {
        vstvec = csr_swap(CSR_VSTVEC, (unsigned long)ctr_vsvec);
    }

    ctr_scen_enter(pc, s->mctl, s->status0, s->kind == K_MNRET);

    o->sctrstatus = csr_read(CSR_SCTRSTATUS);
    csr_write(CSR_MCTRCTL, 0);
    csr_write(CSR_MTVEC, mtvec);
    csr_write(CSR_STVEC, stvec);
    csr_write(CSR_MIE, 0);
    csr_write(CSR_MEDELEG, 0);
    csr_write(CSR_MIDELEG, 0);
    if (s->kind == K_LCOFI) {
        stop_overflow();
    }
    csr_clear(CSR_MIP, MIP_SSIP | MIP_LCOFIP | (rt_has_h ? MIP_VSSIP : 0));
    csr_clear(CSR_MSTATUS, MSTATUS_SIE | SSTATUS_SPP | MSTATUS_MPV);
    if (rt_has_h) {
        csr_write(CSR_VSTVEC, vstvec);
        csr_write(CSR_HEDELEG, 0);
        csr_write(CSR_HIDELEG, 0);
        csr_clear(CSR_HSTATUS, HSTATUS_SPV);
        csr_clear(CSR_VSSTATUS, SSTATUS_SPP | MSTATUS_SIE);
        csr_write(CSR_VSCTRCTL, 0);
    }

    o->nlog = ctr_log_n;
    for (unsigned i = 0; i < 2; i++) {
        o->log[i].level = ctr_log[i].level;
        o->log[i].cause = ctr_log[i].cause;
        o->log[i].epc = ctr_log[i].epc;
        o->log[i].tval = ctr_log[i].tval;
        o->log[i].sctrstatus = ctr_log[i].sctrstatus;
        o->log[i].status = ctr_log[i].status;
    }
    for (unsigned i = 0; i < NR_READ; i++) {
        o->e[i] = ctr_read_entry(i);
    }
}

static void describe(const char *what, const struct scen *s)
{
    rt_printf("  ^ %s: %s %s -> %s, mctrctl=0x%lx vsctrctl=0x%lx "
              "sctrstatus=0x%lx\n", what, kind_names[s->kind],
              rt_mode_name(s->src), rt_mode_name(s->tgt), s->mctl, s->vsctl,
              s->status0);
}

/* The scenario went where it should: check the vectors' log. */
static void check_log(const struct scen *s, const struct outcome *o)
{
    if (is_trap(s->kind)) {
        int level = level_of(s->tgt);

        CHECK_EQ(o->log[0].level, level);
        CHECK_EQ(o->log[0].cause, trap_cause(s->kind));
        if (is_irq(s->kind)) {
            CHECK(o->log[0].epc >= (unsigned long)ctr_act_wait &&
                  o->log[0].epc <= (unsigned long)ctr_act_wait_end);
        } else {
            CHECK_EQ(o->log[0].epc, trap_pc(s->kind));
        }
        if (level == RT_LEVEL_M) {
            CHECK_EQ(o->nlog, 1);
        } else {
            CHECK_EQ(o->nlog, 2);
            CHECK_EQ(o->log[1].level, RT_LEVEL_M);
            CHECK_EQ(o->log[1].cause, rt_ecall_cause(s->tgt));
        }
    } else {
        /* The return reached ctr_act_exit in the target mode. */
        CHECK_EQ(o->nlog, 1);
        CHECK_EQ(o->log[0].level, RT_LEVEL_M);
        CHECK_EQ(o->log[0].cause, rt_ecall_cause(s->tgt));
        CHECK_EQ(o->log[0].epc, (unsigned long)ctr_act_exit);
    }
}

/* Check WRPTR and the entries against @n expected records. */
static void check_records(const struct outcome *o, unsigned n,
                          const struct ctr_entry *want)
{
    CHECK_EQ(o->sctrstatus & SCTRSTATUS_WRPTR_MASK, n);
    for (unsigned i = 0; i < n; i++) {
        CHECK_EQ(o->e[i].source, want[i].source);
        CHECK_EQ(o->e[i].target, want[i].target);
        CHECK_EQ(o->e[i].data & CTRDATA_TYPE_MASK, want[i].data);
    }
    if (n < NR_READ) {
        CHECK_EQ(o->e[n].source, 0);    /* still cleared by SCTRCLR */
    }
}

/*
 * Run @s and check that the transition under test left exactly the
 * record @e describes (and nothing else).
 */
static void run_case(const char *what, const struct scen *s, enum expect e,
                     struct outcome *o)
{
    unsigned before = rt_failures();
    struct ctr_entry r;

    run_scen(s, o);
    check_log(s, o);
    if (is_trap(s->kind)) {
        r.source = (e == E_SRC0 ? 0 : o->log[0].epc) | CTRSOURCE_V;
        r.target = e == E_TGT0 ? 0 : vector_of(s->tgt);
        r.data = is_irq(s->kind) ? CTR_TYPE_INTERRUPT : CTR_TYPE_EXCEPTION;
    } else {
        r.source = xret_pc(s) | CTRSOURCE_V;
        r.target = e == E_TGT0 ? 0 : (unsigned long)ctr_act_exit;
        r.data = CTR_TYPE_TRAP_RETURN;
    }
    check_records(o, e == E_NONE ? 0 : 1, &r);
    if (rt_failures() != before) {
        describe(what, s);
    }
}

/* Spec table "Trap and Trap Return Recording". */
static enum expect table_expect(bool trap, bool src_en, bool tgt_en)
{
    if (trap) {
        if (src_en) {
            return tgt_en ? E_FULL : E_NONE;    /* external: xTE all 0 */
        }
        return tgt_en ? E_SRC0 : E_NONE;
    }
    if (src_en) {
        return tgt_en ? E_FULL : E_TGT0;
    }
    return E_NONE;
}

struct pair {
    int src, tgt;
};

static bool pair_ok(const struct pair *p)
{
    return rt_has_h || (!is_virt(p->src) && !is_virt(p->tgt));
}

static void run_table(enum kind kind, const struct pair *p)
{
    bool trap = is_trap(kind);

    for (int cell = 0; cell < 4; cell++) {
        bool src_en = cell & 1, tgt_en = cell & 2;
        struct scen s = {
            .kind = kind, .src = p->src, .tgt = p->tgt,
            .mctl = trap ? CFG_TRAPS : CFG_RETS,
            .vsctl = trap ? CFG_TRAPS : CFG_RETS,
        };
        struct outcome o;

        if (p->src == p->tgt && src_en != tgt_en) {
            continue;
        }
        set_decoys(&s, p->src, p->tgt);
        set_mode(&s, p->src, src_en);
        set_mode(&s, p->tgt, tgt_en);
        run_case("mode transition table", &s,
                 table_expect(trap, src_en, tgt_en), &o);
    }
}

static void test_transition_table(void)
{
    static const struct pair traps[] = {
        { RT_MODE_M, RT_MODE_M }, { RT_MODE_S, RT_MODE_M },
        { RT_MODE_S, RT_MODE_S }, { RT_MODE_U, RT_MODE_M },
        { RT_MODE_U, RT_MODE_S }, { RT_MODE_VS, RT_MODE_M },
        { RT_MODE_VS, RT_MODE_S }, { RT_MODE_VS, RT_MODE_VS },
        { RT_MODE_VU, RT_MODE_M }, { RT_MODE_VU, RT_MODE_S },
        { RT_MODE_VU, RT_MODE_VS },
    };
    static const struct pair rets[] = {
        { RT_MODE_M, RT_MODE_M }, { RT_MODE_M, RT_MODE_S },
        { RT_MODE_M, RT_MODE_U }, { RT_MODE_M, RT_MODE_VS },
        { RT_MODE_M, RT_MODE_VU }, { RT_MODE_S, RT_MODE_S },
        { RT_MODE_S, RT_MODE_U }, { RT_MODE_S, RT_MODE_VS },
        { RT_MODE_S, RT_MODE_VU }, { RT_MODE_VS, RT_MODE_VS },
        { RT_MODE_VS, RT_MODE_VU },
    };

    rt_printf("privilege mode transition table: traps\n");
    for (unsigned i = 0; i < sizeof(traps) / sizeof(traps[0]); i++) {
        if (pair_ok(&traps[i])) {
            run_table(K_EXC, &traps[i]);
            run_table(K_INT, &traps[i]);
        }
    }
    rt_printf("privilege mode transition table: trap returns\n");
    for (unsigned i = 0; i < sizeof(rets) / sizeof(rets[0]); i++) {
        if (!pair_ok(&rets[i])) {
            continue;
        }
        run_table(K_RET, &rets[i]);
        if (rets[i].src == RT_MODE_M && has_rnmi) {
            run_table(K_MNRET, &rets[i]);
        }
    }
}

/*
 * Virtualization mode transitions: enables from mctrctl.M, sctrctl.S and
 * vsctrctl.S/U, the filters and RASEMU from vsctrctl.
 */
/*
 * @bit of the transfer's own fields decides when set in vsctrctl (no
 * record) and is ignored when set in mctrctl (record @on).
 */
static void check_from_vsctrctl(struct scen *s, uint64_t bit,
                                const char *in_vs, const char *in_m,
                                enum expect on, struct outcome *o)
{
    s->vsctl |= bit;
    run_case(in_vs, s, E_NONE, o);
    s->vsctl &= ~bit;
    s->mctl |= bit;
    run_case(in_m, s, on, o);
    s->mctl &= ~bit;
}

static void test_virt_transitions(void)
{
    static const struct pair traps[] = {
        { RT_MODE_VU, RT_MODE_S }, { RT_MODE_VS, RT_MODE_S },
        { RT_MODE_VU, RT_MODE_M }, { RT_MODE_VS, RT_MODE_M },
    };
    static const struct pair rets[] = {
        { RT_MODE_S, RT_MODE_VS }, { RT_MODE_S, RT_MODE_VU },
        { RT_MODE_M, RT_MODE_VS }, { RT_MODE_M, RT_MODE_VU },
    };
    static const enum kind trap_kinds[] = { K_EXC, K_INT };
    struct outcome o;

    if (!rt_has_h) {
        return;
    }
    rt_printf("virtualization mode transitions\n");
    for (unsigned i = 0; i < sizeof(traps) / sizeof(traps[0]); i++) {
        for (unsigned k = 0; k < 2; k++) {
            enum kind kind = trap_kinds[k];
            uint64_t inh = kind == K_EXC ? CTRCTL_EXCINH : CTRCTL_INTRINH;

            for (int src_en = 1; src_en >= 0; src_en--) {
                enum expect on = src_en ? E_FULL : E_SRC0;
                struct scen s = {
                    .kind = kind, .src = traps[i].src, .tgt = traps[i].tgt,
                    .mctl = CFG_TRAPS, .vsctl = CFG_TRAPS,
                };

                set_mode(&s, s.src, src_en);
                set_mode(&s, s.tgt, true);
                check_from_vsctrctl(&s, inh, "type filter from vsctrctl",
                                    "type filter not from [ms]ctrctl", on,
                                    &o);
                if (has_rasemu) {
                    check_from_vsctrctl(&s, CTRCTL_RASEMU,
                                        "RASEMU from vsctrctl",
                                        "RASEMU not from [ms]ctrctl", on,
                                        &o);
                }
            }
        }
    }
    for (unsigned i = 0; i < sizeof(rets) / sizeof(rets[0]); i++) {
        for (int m = 0; m < 2; m++) {
            enum kind kind = m ? K_MNRET : K_RET;

            if (kind == K_MNRET && (!has_rnmi || rets[i].src != RT_MODE_M)) {
                continue;
            }
            for (int tgt_en = 1; tgt_en >= 0; tgt_en--) {
                enum expect on = tgt_en ? E_FULL : E_TGT0;
                struct scen s = {
                    .kind = kind, .src = rets[i].src, .tgt = rets[i].tgt,
                    .mctl = CFG_RETS, .vsctl = CFG_RETS,
                };

                set_mode(&s, s.src, true);
                set_mode(&s, s.tgt, tgt_en);
                check_from_vsctrctl(&s, CTRCTL_TRETINH,
                                    "TRETINH from vsctrctl",
                                    "TRETINH not from [ms]ctrctl", on, &o);
                if (has_rasemu) {
                    check_from_vsctrctl(&s, CTRCTL_RASEMU,
                                        "RASEMU from vsctrctl",
                                        "RASEMU not from [ms]ctrctl", on,
                                        &o);
                }
            }
        }
    }
}

/* Table "External Trap Enable Requirements". */
struct ext_row {
    int src, tgt;
    uint64_t m_req, vs_req;     /* required xTE bits */
    int between[2];             /* intervening modes, -1 for none */
};

static void test_external_traps(void)
{
    static const struct ext_row rows[] = {
        { RT_MODE_U, RT_MODE_S, CTRCTL_STE, 0, { -1, -1 } },
        { RT_MODE_U, RT_MODE_M, CTRCTL_MTE | CTRCTL_STE, 0,
          { RT_MODE_S, -1 } },
        { RT_MODE_S, RT_MODE_M, CTRCTL_MTE, 0, { -1, -1 } },
        { RT_MODE_VU, RT_MODE_VS, 0, CTRCTL_STE, { -1, -1 } },
        { RT_MODE_VU, RT_MODE_S, CTRCTL_STE, CTRCTL_STE,
          { RT_MODE_VS, -1 } },
        { RT_MODE_VU, RT_MODE_M, CTRCTL_MTE | CTRCTL_STE, CTRCTL_STE,
          { RT_MODE_VS, RT_MODE_S } },
        { RT_MODE_VS, RT_MODE_S, CTRCTL_STE, 0, { -1, -1 } },
        { RT_MODE_VS, RT_MODE_M, CTRCTL_MTE | CTRCTL_STE, 0,
          { RT_MODE_S, -1 } },
    };
    static const enum kind kinds[] = { K_EXC, K_INT };
    static const uint64_t te_bits[] = { CTRCTL_STE, CTRCTL_MTE };
    struct outcome o;

    rt_printf("external traps\n");
    for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const struct ext_row *row = &rows[i];
        struct pair p = { row->src, row->tgt };

        if (!pair_ok(&p)) {
            continue;
        }
        for (unsigned k = 0; k < 2; k++) {
            struct scen base = {
                .kind = kinds[k], .src = row->src, .tgt = row->tgt,
                .mctl = CFG_TRAPS | row->m_req,
                .vsctl = CFG_TRAPS | row->vs_req,
            };
            struct scen s;

            set_mode(&base, row->src, true);
            run_case("external trap, required xTE set", &base, E_TGT0, &o);

            /* Each required bit is needed. */
            for (unsigned b = 0; b < 2; b++) {
                if (row->m_req & te_bits[b]) {
                    s = base;
                    s.mctl &= ~te_bits[b];
                    run_case("external trap, one mctrctl xTE clear", &s,
                             E_NONE, &o);
                }
                if (row->vs_req & te_bits[b]) {
                    s = base;
                    s.vsctl &= ~te_bits[b];
                    run_case("external trap, vsctrctl.STE clear", &s,
                             E_NONE, &o);
                }
            }

            /* Bits the row does not list do not matter... */
            s = base;
            s.mctl |= CTRCTL_MTE | CTRCTL_STE;
            if (rt_has_h) {
                s.vsctl |= CTRCTL_STE;
            }
            run_case("external trap, all xTE set", &s, E_TGT0, &o);

            /* ...nor do the intervening modes' enables. */
            if (row->between[0] >= 0) {
                s = base;
                for (int b = 0; b < 2; b++) {
                    if (row->between[b] >= 0) {
                        set_mode(&s, row->between[b], true);
                    }
                }
                run_case("external trap, intervening modes enabled", &s,
                         E_TGT0, &o);
            }

            /* EXCINH/INTRINH do not apply to external traps. */
            s = base;
            s.mctl |= CTRCTL_EXCINH | CTRCTL_INTRINH;
            s.vsctl |= CTRCTL_EXCINH | CTRCTL_INTRINH;
            run_case("external trap, EXCINH and INTRINH set", &s, E_TGT0,
                     &o);

            /* FROZEN does. */
            s = base;
            s.status0 = SCTRSTATUS_FROZEN;
            run_case("external trap, FROZEN", &s, E_NONE, &o);
            CHECK_EQ(o.log[0].sctrstatus, SCTRSTATUS_FROZEN);

            /*
             * RASEMU ignores the xTE bits: nothing but calls/returns.  It
             * comes from vsctrctl when V=1 is involved, else mctrctl.
             */
            if (has_rasemu) {
                bool v = is_virt(row->src);

                s = base;
                if (v) {
                    s.vsctl |= CTRCTL_RASEMU;
                } else {
                    s.mctl |= CTRCTL_RASEMU;
                }
                run_case("external trap, RASEMU", &s, E_NONE, &o);
                if (rt_has_h && row->tgt != RT_MODE_VS) {
                    s = base;
                    if (v) {
                        s.mctl |= CTRCTL_RASEMU;
                    } else {
                        s.vsctl |= CTRCTL_RASEMU;
                    }
                    run_case("external trap, RASEMU in the other register",
                             &s, E_TGT0, &o);
                }
            }
        }
    }
}

struct frz_case {
    enum kind kind;
    int src, tgt;
    uint64_t m_bits, vs_bits;
    bool freezes;
};

static void run_freeze_case(const struct frz_case *c)
{
    struct scen s = {
        .kind = c->kind, .src = c->src, .tgt = c->tgt,
        .mctl = CFG_TRAPS | c->m_bits, .vsctl = CFG_TRAPS | c->vs_bits,
        .nofreeze = c->freezes,
    };
    struct outcome o;
    unsigned before = rt_failures();
    struct ctr_entry jump = {
        (unsigned long)ctr_probe_jmp | CTRSOURCE_V,
        (unsigned long)ctr_probe_tgt, CTR_TYPE_DIRJUMP
    };

    set_mode(&s, c->src, true);
    set_mode(&s, c->tgt, true);
    run_case(c->freezes ? "freeze" : "no freeze", &s,
             c->freezes ? E_NONE : E_FULL, &o);
    /* sctrstatus as the handler saw it: FROZEN, or the trap recorded. */
    CHECK_EQ(o.log[0].sctrstatus, c->freezes ? SCTRSTATUS_FROZEN : 1);
    if (c->freezes) {
        CHECK_EQ(o.sctrstatus, SCTRSTATUS_FROZEN);
        /* Nothing is recorded while FROZEN... */
        ctr_m_probe(CTRCTL_M, 0);
        o.sctrstatus = csr_read(CSR_SCTRSTATUS);
        o.e[0] = ctr_read_entry(0);
        check_records(&o, 0, NULL);
        CHECK_EQ(o.sctrstatus, SCTRSTATUS_FROZEN);
        /* ...until software clears it. */
        ctr_m_probe(CTRCTL_M, 1);
        o.sctrstatus = csr_read(CSR_SCTRSTATUS);
        o.e[0] = ctr_read_entry(0);
        o.e[1] = ctr_read_entry(1);
        check_records(&o, 1, &jump);
        CHECK_EQ(o.sctrstatus, SCTRSTATUS_FROZEN | 1);
    }
    if (rt_failures() != before) {
        describe(c->freezes ? "freeze" : "no freeze", &s);
    }
}

static void test_freeze(void)
{
    static const struct frz_case bp[] = {
        { K_EBREAK, RT_MODE_S, RT_MODE_M, CTRCTL_BPFRZ, 0, true },
        { K_EBREAK, RT_MODE_S, RT_MODE_M, 0, 0, false },
        { K_CEBREAK, RT_MODE_S, RT_MODE_M, CTRCTL_BPFRZ, 0, true },
        { K_CEBREAK, RT_MODE_S, RT_MODE_M, 0, 0, false },
        { K_EBREAK, RT_MODE_M, RT_MODE_M, CTRCTL_BPFRZ, 0, true },
        { K_EBREAK, RT_MODE_U, RT_MODE_S, CTRCTL_BPFRZ, 0, true },
        { K_EBREAK, RT_MODE_U, RT_MODE_S, 0, 0, false },
        { K_CEBREAK, RT_MODE_U, RT_MODE_S, CTRCTL_BPFRZ, 0, true },
        { K_EBREAK, RT_MODE_S, RT_MODE_S, CTRCTL_BPFRZ, 0, true },
        /* To VS-mode: vsctrctl.BPFRZ. */
        { K_EBREAK, RT_MODE_VU, RT_MODE_VS, 0, CTRCTL_BPFRZ, true },
        { K_EBREAK, RT_MODE_VU, RT_MODE_VS, CTRCTL_BPFRZ, 0, false },
        { K_CEBREAK, RT_MODE_VS, RT_MODE_VS, 0, CTRCTL_BPFRZ, true },
        /* From VS/VU to HS/M: sctrctl.BPFRZ. */
        { K_EBREAK, RT_MODE_VU, RT_MODE_S, CTRCTL_BPFRZ, 0, true },
        { K_EBREAK, RT_MODE_VU, RT_MODE_S, 0, CTRCTL_BPFRZ, false },
        { K_EBREAK, RT_MODE_VS, RT_MODE_M, CTRCTL_BPFRZ, 0, true },
        { K_EBREAK, RT_MODE_VS, RT_MODE_M, 0, CTRCTL_BPFRZ, false },
    };
    static const struct frz_case lcofi[] = {
        { K_LCOFI, RT_MODE_S, RT_MODE_M, CTRCTL_LCOFIFRZ, 0, true },
        { K_LCOFI, RT_MODE_S, RT_MODE_M, 0, 0, false },
        { K_LCOFI, RT_MODE_U, RT_MODE_S, CTRCTL_LCOFIFRZ, 0, true },
        { K_LCOFI, RT_MODE_U, RT_MODE_S, 0, 0, false },
        /* LCOFIP written by software: no freeze (contract, audit C8). */
        { K_LCOFI_SW, RT_MODE_S, RT_MODE_M, CTRCTL_LCOFIFRZ, 0, false },
        { K_LCOFI_SW, RT_MODE_U, RT_MODE_S, CTRCTL_LCOFIFRZ, 0, false },
        /* From VS/VU to HS: sctrctl.LCOFIFRZ. */
        { K_LCOFI, RT_MODE_VS, RT_MODE_S, CTRCTL_LCOFIFRZ, 0, true },
        { K_LCOFI, RT_MODE_VS, RT_MODE_S, 0, CTRCTL_LCOFIFRZ, false },
        { K_LCOFI_SW, RT_MODE_VU, RT_MODE_S, CTRCTL_LCOFIFRZ,
          CTRCTL_LCOFIFRZ, false },
    };
    static const struct frz_case vs_lcofi[] = {
        /* To VS-mode (hideleg bit 13): vsctrctl.LCOFIFRZ. */
        { K_LCOFI, RT_MODE_VU, RT_MODE_VS, 0, CTRCTL_LCOFIFRZ, true },
        { K_LCOFI, RT_MODE_VU, RT_MODE_VS, CTRCTL_LCOFIFRZ, 0, false },
    };

    rt_printf("freeze on breakpoints\n");
    for (unsigned i = 0; i < sizeof(bp) / sizeof(bp[0]); i++) {
        struct pair p = { bp[i].src, bp[i].tgt };

        if (pair_ok(&p)) {
            run_freeze_case(&bp[i]);
        }
    }
    if (!has_lcofifrz) {
        rt_printf("no Sscofpmf in this configuration: no LCOFI freeze\n");
        return;
    }
    rt_printf("freeze on local counter overflow interrupts\n");
    for (unsigned i = 0; i < sizeof(lcofi) / sizeof(lcofi[0]); i++) {
        struct pair p = { lcofi[i].src, lcofi[i].tgt };

        if (pair_ok(&p)) {
            run_freeze_case(&lcofi[i]);
        }
    }
    if (!rt_has_h) {
        return;
    }
    if (!has_vs_lcofi) {
        /* hideleg bit 13 is read-only 0: see the header. */
        return;
    }
    for (unsigned i = 0; i < sizeof(vs_lcofi) / sizeof(vs_lcofi[0]); i++) {
        run_freeze_case(&vs_lcofi[i]);
    }
}

/* FROZEN set by software inhibits every transfer type. */
static void test_sw_frozen(void)
{
    const uint64_t ctl = CTRCTL_M | CTRCTL_NTBREN;
    const struct ctr_entry want[] = {
        { (unsigned long)ctr_fz_mret | CTRSOURCE_V,
          (unsigned long)ctr_fz_after, CTR_TYPE_TRAP_RETURN },
        { (unsigned long)ctr_fz_ecall | CTRSOURCE_V,
          (unsigned long)ctr_fz_trap, CTR_TYPE_EXCEPTION },
        { (unsigned long)ctr_fz_nbr | CTRSOURCE_V,
          (unsigned long)ctr_fz_ecall, CTR_TYPE_NT_BRANCH },
        { (unsigned long)ctr_fz_br | CTRSOURCE_V,
          (unsigned long)ctr_fz_nbr, CTR_TYPE_TK_BRANCH },
        { (unsigned long)ctr_fz_jmp | CTRSOURCE_V,
          (unsigned long)ctr_fz_br, CTR_TYPE_DIRJUMP },
    };
    struct outcome o;

    rt_printf("FROZEN set by software\n");
    csr_write(CSR_MCTRCTL, 0);
    sctrclr();
    csr_write(CSR_SCTRSTATUS, SCTRSTATUS_FROZEN);
    ctr_frozen_work(ctl);
    o.sctrstatus = csr_read(CSR_SCTRSTATUS);
    for (unsigned i = 0; i < NR_READ; i++) {
        o.e[i] = ctr_read_entry(i);
    }
    check_records(&o, 0, NULL);
    CHECK_EQ(o.sctrstatus, SCTRSTATUS_FROZEN);

    /* The same work records five transfers when not frozen. */
    csr_write(CSR_SCTRSTATUS, 0);
    ctr_frozen_work(ctl);
    o.sctrstatus = csr_read(CSR_SCTRSTATUS);
    for (unsigned i = 0; i < NR_READ; i++) {
        o.e[i] = ctr_read_entry(i);
    }
    check_records(&o, 5, want);
}

/*
 * mnstatus.MNPP holds a privilege mode the hart has (WARL, like
 * mstatus.MPP): the reserved encoding 2 is not stored, so MNRET can only
 * return to a valid mode.
 */
static void test_mnpp_warl(void)
{
    unsigned long mn = csr_read(CSR_MNSTATUS) & ~MNSTATUS_MNPP;

    rt_printf("mnstatus.MNPP is WARL\n");
    csr_write(CSR_MNSTATUS, mn | (3UL << MNSTATUS_MNPP_SHIFT));
    csr_write(CSR_MNSTATUS, mn | (2UL << MNSTATUS_MNPP_SHIFT));
    CHECK_EQ(csr_read(CSR_MNSTATUS) & MNSTATUS_MNPP,
             3UL << MNSTATUS_MNPP_SHIFT);
    csr_write(CSR_MNSTATUS, mn | (1UL << MNSTATUS_MNPP_SHIFT));
    CHECK_EQ(csr_read(CSR_MNSTATUS) & MNSTATUS_MNPP,
             1UL << MNSTATUS_MNPP_SHIFT);
    csr_write(CSR_MNSTATUS, mn | (2UL << MNSTATUS_MNPP_SHIFT));
    CHECK_EQ(csr_read(CSR_MNSTATUS) & MNSTATUS_MNPP,
             1UL << MNSTATUS_MNPP_SHIFT);
    csr_write(CSR_MNSTATUS, mn | (3UL << MNSTATUS_MNPP_SHIFT));
}

int main(void)
{
    unsigned long v, config;

    /*
     * With Smrnmi, M-mode exceptions while mnstatus.NMIE=0 (its reset
     * value) go to the RNMI exception vector: set NMIE first.  Setting
     * it does not trap when Smrnmi is present.
     */
    has_rnmi = RT_TRAP_CAUSE(csr_set(CSR_MNSTATUS, MNSTATUS_NMIE)) ==
               RT_NO_TRAP;
    has_stateen = RT_TRAP_CAUSE(csr_read(CSR_MSTATEEN0)) == RT_NO_TRAP;
    if (has_stateen) {
        csr_set(CSR_MSTATEEN0, STATEEN0_CTR | STATEEN0_CSRIND);
        if (rt_has_h) {
            csr_set(CSR_HSTATEEN0, STATEEN0_CTR | STATEEN0_CSRIND);
        }
    }
    csr_write(CSR_SCTRDEPTH, 0);
    CHECK_EQ(csr_read(CSR_SCTRDEPTH), 0);

    csr_write(CSR_MCTRCTL, CTRCTL_RASEMU | CTRCTL_LCOFIFRZ);
    v = csr_read(CSR_MCTRCTL);
    csr_write(CSR_MCTRCTL, 0);
    has_rasemu = v & CTRCTL_RASEMU;
    /* scountovf exists exactly when Sscofpmf does. */
    has_sscofpmf = RT_TRAP_CAUSE(csr_read(CSR_SCOUNTOVF)) == RT_NO_TRAP;
    if (has_sscofpmf) {
        /*
         * "If the Sscofpmf extension is implemented, LCOFIFRZ must be
         * writable."
         */
        CHECK_EQ(v & CTRCTL_LCOFIFRZ, CTRCTL_LCOFIFRZ);
    }
    has_lcofifrz = has_sscofpmf && (v & CTRCTL_LCOFIFRZ);
    if (rt_has_h && has_lcofifrz) {
        csr_write(CSR_MIDELEG, MIP_LCOFIP);
        csr_write(CSR_HIDELEG, MIP_LCOFIP);
        has_vs_lcofi = csr_read(CSR_HIDELEG) & MIP_LCOFIP;
        csr_write(CSR_HIDELEG, 0);
        csr_write(CSR_MIDELEG, 0);
    }
    rt_printf("test-ctr-modes: H %s, Smstateen %s, Smrnmi %s, RASEMU %s, "
              "Sscofpmf %s\n", rt_has_h ? "yes" : "no",
              has_stateen ? "yes" : "no", has_rnmi ? "yes" : "no",
              has_rasemu ? "yes" : "no", has_sscofpmf ? "yes" : "no");
    config = *(volatile unsigned long *)CONFIG_ADDR;     /* loader */
    CHECK_EQ(config >> 32, CONFIG_MAGIC);
    CHECK_EQ(rt_has_h, !!(config & CONFIG_H));
    CHECK_EQ(has_stateen, !!(config & CONFIG_STATEEN));
    CHECK_EQ(has_rnmi, !!(config & CONFIG_RNMI));
    CHECK_EQ(has_sscofpmf, !!(config & CONFIG_SSCOFPMF));
    if (has_rnmi) {
        test_mnpp_warl();
    }

    test_sw_frozen();
    test_transition_table();
    test_virt_transitions();
    test_external_traps();
    test_freeze();
    return 0;
}
