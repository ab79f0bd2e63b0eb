/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cycle and instret privilege mode filtering (Smcntrpmf 1.0), run with
 * -icount shift=0, exact counts everywhere:
 *
 * - "CSRs": mcyclecfg (0x321) and minstretcfg (0x322) reset to 0, hold
 *   exactly the xINH bits of the implemented modes (62..58 with H, 62..60
 *   without), OF (bit 63) and the WPRI bits 57:0 are read-only 0, and
 *   every access below M-mode raises an illegal-instruction exception;
 *   the RV32-only upper halves do not exist on RV64;
 * - "Counter Behavior": instructions that retire in a non-inhibited mode
 *   increment minstret, cycles in a non-inhibited mode increment mcycle,
 *   for every combination of the xINH bits (minstretcfg and mcyclecfg set
 *   differently in each run), for straight-line work in every mode, for
 *   sret chains and for traps taken to M, HS or VS-mode and returned
 *   from; instructions that raise a synchronous exception (ecall,
 *   ebreak, illegal instruction, load access and page faults) do not
 *   retire, an access re-executed after a fault counts once (the
 *   specification's U-mode load example), and an xRET counts when the
 *   mode it executes in is not inhibited, whatever mode it returns to;
 * - counting from U-mode itself: two reads of instret/cycle differ by
 *   what ran in between if U is not inhibited, by 0 if it is;
 * - changing minstretcfg, mcyclecfg or mcountinhibit in the middle of a
 *   run only affects counting from then on (no jump, also from cfg=0),
 *   mcountinhibit.IR/CY stop the counters, and a value written to
 *   minstret or mcycle is read back and continues under the filter.
 *
 * Expected values follow the specification and docs/system/riscv/
 * cntrpmf.rst: a csrr of minstret reads the count before itself, one of
 * mcycle includes itself; a csrw of minstret replaces its own increment;
 * an instruction that changes minstretcfg or mcountinhibit is counted
 * under the previous settings; under -icount shift=0 every executed
 * instruction is one cycle of the mode it executes in, including ecall,
 * ebreak, an illegal opcode and xRETs, but an instruction whose exception
 * unwinds it (a faulting CSR access or load) is not a cycle.  Two points
 * the contract does not state are inferred (see the comments at their
 * checks): the cycle of a trapping ebreak or illegal opcode is counted
 * like the ecall's, and a csrw of mcycle replaces that instruction's own
 * cycle like a csrw of minstret does.  The cycle of the instruction that
 * changes mcyclecfg or mcountinhibit.CY is never measured: runs that
 * change them keep M-mode's cycle filtering the same on both sides.
 *
 * Every measured window is code of cntrpmf-work.S: minstret and mcycle
 * are read in M-mode, the code runs, a trap to M-mode reads them again;
 * the test knows which instruction runs in which mode from the labels,
 * so M-mode's own part is exact too and is checked with MINH=0 as well.
 * Without the H extension the VS/VU parts are skipped (the modes do not
 * exist) and VSINH/VUINH must read 0 and inhibit nothing.
 */

#include "rt.h"
#include "test-cntrpmf.h"

#define CSR_PMPADDR1        0x3b1
#define CSR_MCYCLECFGH      0x721
#define CSR_MINSTRETCFGH    0x722

#define CFG_WPRI            ((1UL << 58) - 1)
#define CFG_SHIFT           58

#define INH_CY              (1UL << 0)
#define INH_IR              (1UL << 2)

#define CAUSE_LOAD_ACCESS   5
#define CAUSE_LOAD_PAGE     13

#define SATP_SV39           (8UL << 60)
#define PTE_LEAF_URWX       0xdfUL  /* V R W X U A D */
#define PMP_NAPOT           0x18
#define PMP_NAPOT_RWX       0x1f

#define DRAM_BASE           0x80000000UL
#define VA_ALIAS            0x40000000UL    /* gigapage mapped on demand */

/* Number of instructions from label @a up to (not including) label @b. */
#define NI(a, b)            ((unsigned)(((char *)(b) - (char *)(a)) / 4))

/* A snippet: work, one trapping instruction, work, the end of the run. */
struct snip {
    const char *name;
    char *start, *trap, *end;
    long cause;             /* of the trap; -1: ecall, by mode */
    unsigned trap_cycles;   /* 1, or 0 when the exception unwinds it */
    bool end_csr;           /* ends with an illegal CSR write, not ecall */
};

static const struct snip sn_ecall = {
    "ecall", cpmf_t_ecall, cpmf_t_ecall_trap, cpmf_t_ecall_end, -1, 1, true
};
/* The cycle of ebreak and of an illegal opcode: like ecall's (inferred). */
static const struct snip sn_ebreak = {
    "ebreak", cpmf_t_ebreak, cpmf_t_ebreak_trap, cpmf_t_ebreak_end,
    CAUSE_BREAKPOINT, 1, false
};
static const struct snip sn_ill = {
    "illegal opcode", cpmf_t_ill, cpmf_t_ill_trap, cpmf_t_ill_end,
    CAUSE_INSN_ILLEGAL, 1, false
};
static const struct snip sn_csrf = {
    "CSR fault", cpmf_t_csrf, cpmf_t_csrf_trap, cpmf_t_csrf_end,
    CAUSE_INSN_ILLEGAL, 0, false
};
static const struct snip sn_load_pmp = {
    "load access fault", cpmf_t_load, cpmf_t_load_trap, cpmf_t_load_end,
    CAUSE_LOAD_ACCESS, 0, false
};
static const struct snip sn_load_pt = {
    "load page fault", cpmf_t_load, cpmf_t_load_trap, cpmf_t_load_end,
    CAUSE_LOAD_PAGE, 0, false
};

enum kind {
    K_SELF,         /* w_self in a mode */
    K_SRET,         /* w_sret in S/HS/VS, then w_self in the next mode */
    K_TRAP,         /* a trap snippet, handler skips the instruction */
    K_LOAD_PMP,     /* load access fault: M unlocks PMP, or HS/VS skips */
    K_LOAD_PT,      /* load page fault in U (Sv39): M maps the page */
    K_CFG,          /* ecall to M, which rewrites the cfgs/mcountinhibit */
    K_WCTR,         /* ecall to M, which writes minstret and mcycle */
};

struct scen {
    enum kind kind;
    int mode;               /* entered from M-mode with mret */
    int next;               /* K_SRET: the mode sret returns to */
    int level;              /* RT_LEVEL_* of the mid-run trap handler */
    const struct snip *sn;
};

struct params {
    unsigned long icfg, ccfg, inh;      /* during the run */
    unsigned long icfg2, ccfg2, inh2;   /* K_CFG: written mid-run */
    uint64_t vi, vc;                    /* K_WCTR: written mid-run */
};

/* What the counters do during a run, in order. */
enum ev_kind { EV_RUN, EV_ICFG, EV_CCFG, EV_INH, EV_SETI, EV_SETC };

struct ev {
    enum ev_kind kind;
    int mode;
    unsigned ni, nc;        /* EV_RUN: instructions retired, cycles */
    uint64_t v;             /* the others: the value written */
};

#define MAX_EV 16

struct plan {
    int n;
    struct ev ev[MAX_EV];
};

static unsigned long impl;          /* the implemented xINH bits */
static unsigned long saved_stvec, saved_vstvec, saved_hstatus;
static unsigned runs;

/* Targets of the fault snippets. */
static uint64_t pt_root[512] __attribute__((aligned(4096)));
static uint8_t locked_page[4096] __attribute__((aligned(4096)));
static unsigned long fix_dummy;

static int level_mode(int level)
{
    switch (level) {
    case RT_LEVEL_M:
        return RT_MODE_M;
    case RT_LEVEL_HS:
        return RT_MODE_S;
    default:
        return RT_MODE_VS;
    }
}

static const char *level_name(int level)
{
    static const char *const names[] = { "M", "HS", "VS" };

    return names[level];
}

/* Combination @k of the five xINH bits: bit 4 MINH .. bit 0 VUINH. */
static unsigned long cfg_of(unsigned k)
{
    return (unsigned long)(k & 31) << CFG_SHIFT;
}

/* A different combination for mcyclecfg (a bijection on 0..31). */
static unsigned long cfg_perm(unsigned k)
{
    return cfg_of(k * 7 + 11);
}

static void ev_run(struct plan *p, int mode, unsigned ni, unsigned nc)
{
    struct ev *e = &p->ev[p->n++];

    e->kind = EV_RUN;
    e->mode = mode;
    e->ni = ni;
    e->nc = nc;
}

static void ev_set(struct plan *p, enum ev_kind kind, uint64_t v)
{
    struct ev *e = &p->ev[p->n++];

    e->kind = kind;
    e->v = v;
}

/* Advance *vi (minstret) and *vc (mcycle) through the events of @p. */
static void simulate(const struct plan *p, const struct params *pa,
                     uint64_t *vi, uint64_t *vc)
{
    unsigned long icfg = pa->icfg & impl, ccfg = pa->ccfg & impl;
    unsigned long inh = pa->inh;

    for (int i = 0; i < p->n; i++) {
        const struct ev *e = &p->ev[i];

        switch (e->kind) {
        case EV_RUN:
            if (!(inh & INH_IR) && !(icfg & rt_cfg_inh(e->mode))) {
                *vi += e->ni;
            }
            if (!(inh & INH_CY) && !(ccfg & rt_cfg_inh(e->mode))) {
                *vc += e->nc;
            }
            break;
        case EV_ICFG:
            icfg = e->v & impl;
            break;
        case EV_CCFG:
            ccfg = e->v & impl;
            break;
        case EV_INH:
            inh = e->v;
            break;
        case EV_SETI:
            *vi = e->v;
            break;
        case EV_SETC:
            *vc = e->v;
            break;
        }
    }
}

static bool counts(unsigned long cfg, unsigned long inh, unsigned long bit,
                   int mode)
{
    return !(inh & bit) && !(cfg & impl & rt_cfg_inh(mode));
}

static void describe(const struct scen *s, const struct params *pa)
{
    static const char *const kinds[] = {
        [K_SELF] = "work", [K_SRET] = "sret", [K_TRAP] = "trap",
        [K_LOAD_PMP] = "load (PMP)", [K_LOAD_PT] = "load (Sv39)",
        [K_CFG] = "cfg change", [K_WCTR] = "counter write",
    };

    rt_printf("  in run: %s in %s", kinds[s->kind], rt_mode_name(s->mode));
    if (s->kind == K_SRET) {
        rt_printf(" -> %s", rt_mode_name(s->next));
    } else if (s->sn) {
        rt_printf(", %s handled at %s", s->sn->name, level_name(s->level));
    }
    rt_printf("; minstretcfg 0x%lx mcyclecfg 0x%lx mcountinhibit 0x%lx\n",
              pa->icfg, pa->ccfg, pa->inh);
    if (s->kind == K_CFG) {
        rt_printf("  then minstretcfg 0x%lx mcyclecfg 0x%lx "
                  "mcountinhibit 0x%lx\n", pa->icfg2, pa->ccfg2, pa->inh2);
    } else if (s->kind == K_WCTR) {
        rt_printf("  then minstret 0x%lx mcycle 0x%lx\n",
                  (unsigned long)pa->vi, (unsigned long)pa->vc);
    }
}

#define CHECK_RUN(actual, expected) ({                                  \
    if (!CHECK_EQ(actual, expected)) {                                  \
        describe(s, pa);                                                \
    }                                                                   \
})

static void enter_mode(int mode)
{
    csr_clear(CSR_MSTATUS, MSTATUS_MPP | MSTATUS_MPV | MSTATUS_MPRV);
    csr_set(CSR_MSTATUS, ((unsigned long)(mode & 3) << MSTATUS_MPP_SHIFT) |
                         ((mode & 4) ? MSTATUS_MPV : 0));
}

static void pmp_lock(void)
{
    csr_write(CSR_PMPADDR1, -1UL);
    csr_write(CSR_PMPADDR0, ((unsigned long)locked_page + 2047) >> 2);
    csr_write(CSR_PMPCFG0, PMP_NAPOT | (PMP_NAPOT_RWX << 8));
}

static void pmp_restore(void)
{
    csr_write(CSR_PMPCFG0, PMP_NAPOT_RWX);
    csr_write(CSR_PMPADDR0, -1UL);
    csr_write(CSR_PMPADDR1, 0);
}

static unsigned long gigapage_pte(unsigned long pa)
{
    return ((pa >> 12) << 10) | PTE_LEAF_URWX;
}

/* Run scenario @s with @pa and check everything it determines. */
static void run(const struct scen *s, const struct params *pa)
{
    const struct snip *sn = s->sn;
    struct plan p = { 0 };
    unsigned long pc, mtvec = (unsigned long)cpmf_mend, arg = 0;
    unsigned long deleg = 0, mid_cause = 0, end_pc, end_cause;
    int hmode = level_mode(s->level), final = s->mode;
    unsigned before, after, n;
    uint64_t ei, ec;

    runs++;
    /* cpmf_run: from the minstret read, and after the mcycle read. */
    ev_run(&p, RT_MODE_M, NI(cpmf_run_i0, cpmf_run_mret) + 1,
           NI(cpmf_run_c0, cpmf_run_mret));

    switch (s->kind) {
    case K_SELF:
    case K_SRET:
        pc = (unsigned long)cpmf_w_self;
        if (s->kind == K_SRET) {
            pc = (unsigned long)cpmf_w_sret;
            n = NI(cpmf_w_sret, cpmf_w_sret_x) + 1;
            ev_run(&p, s->mode, n, n);
            final = s->next;
        }
        /* the ecall is a cycle of the mode, it does not retire */
        n = NI(cpmf_w_self, cpmf_w_self_end);
        ev_run(&p, final, n, n + 1);
        end_pc = (unsigned long)cpmf_w_self_end;
        end_cause = rt_ecall_cause(final);
        break;
    default:
        pc = (unsigned long)sn->start;
        before = NI(sn->start, sn->trap);
        after = NI(sn->trap, sn->end) - 1;
        mid_cause = sn->cause < 0 ? rt_ecall_cause(s->mode) :
                                    (unsigned long)sn->cause;
        ev_run(&p, s->mode, before, before);
        ev_run(&p, s->mode, 0, sn->trap_cycles);   /* does not retire */
        if (s->level != RT_LEVEL_M) {
            deleg = 1UL << mid_cause;
            n = NI(cpmf_sh_skip, cpmf_sh_skip_sret) + 1;
            ev_run(&p, hmode, n, n);
        } else if (s->kind == K_TRAP) {
            mtvec = (unsigned long)cpmf_mh_skip;
            n = NI(cpmf_mh_skip, cpmf_mh_skip_mret) + 1;
            ev_run(&p, RT_MODE_M, n, n);
        } else if (s->kind == K_LOAD_PMP || s->kind == K_LOAD_PT) {
            mtvec = (unsigned long)cpmf_mh_fix;
            n = NI(cpmf_mh_fix, cpmf_mh_fix_mret) + 1;
            ev_run(&p, RT_MODE_M, n, n);
            ev_run(&p, s->mode, 1, 1);      /* the load, re-executed */
        } else if (s->kind == K_CFG) {
            mtvec = (unsigned long)cpmf_mh_cfg;
            /* up to the csrw minstretcfg: under the old settings */
            n = NI(cpmf_mh_cfg, cpmf_mh_cfg_wi) + 1;
            ev_run(&p, RT_MODE_M, n, n);
            ev_set(&p, EV_ICFG, pa->icfg2);
            /*
             * csrw mcyclecfg, csrw mcountinhibit: their cycles are only
             * checked with M-mode's cycle filtering the same before and
             * after (see test_reconfig()).
             */
            ev_run(&p, RT_MODE_M, 1, 1);    /* csrw mcyclecfg */
            ev_set(&p, EV_CCFG, pa->ccfg2);
            ev_run(&p, RT_MODE_M, 1, 1);    /* csrw mcountinhibit */
            ev_set(&p, EV_INH, pa->inh2);
            n = NI(cpmf_mh_cfg_wh, cpmf_mh_cfg_mret);
            ev_run(&p, RT_MODE_M, n, n);
        } else {
            mtvec = (unsigned long)cpmf_mh_wctr;
            n = NI(cpmf_mh_wctr, cpmf_mh_wctr_wi);
            ev_run(&p, RT_MODE_M, n, n);
            /* csrw minstret replaces its own increment */
            ev_run(&p, RT_MODE_M, 0, 1);
            ev_set(&p, EV_SETI, pa->vi);
            /* csrw mcycle replaces its own cycle (inferred) */
            ev_run(&p, RT_MODE_M, 1, 0);
            ev_set(&p, EV_SETC, pa->vc);
            n = NI(cpmf_mh_wctr_wc, cpmf_mh_wctr_mret);
            ev_run(&p, RT_MODE_M, n, n);
        }
        ev_run(&p, s->mode, after, after + !sn->end_csr);
        end_pc = (unsigned long)sn->end;
        end_cause = sn->end_csr ? CAUSE_INSN_ILLEGAL
                                : rt_ecall_cause(s->mode);
        break;
    }
    /* cpmf_mend: the minstret read sees nothing of it, mcycle two. */
    ev_run(&p, RT_MODE_M, 0, NI(cpmf_mend, cpmf_mend_c1) + 1);

    /* Set up the modes and the handlers. */
    csr_write(CSR_MEDELEG, deleg);
    csr_write(CSR_STVEC, (unsigned long)cpmf_sh_skip);
    if (rt_has_h) {
        csr_write(CSR_HEDELEG, s->level == RT_LEVEL_VS ? deleg : 0);
        csr_write(CSR_VSTVEC, (unsigned long)cpmf_sh_skip);
        csr_write(CSR_HSTATUS, saved_hstatus);
    }
    enter_mode(s->mode);
    if (s->kind == K_SRET && s->mode == RT_MODE_VS) {
        csr_write(CSR_VSEPC, (unsigned long)cpmf_w_self);
        if (s->next == RT_MODE_VS) {
            csr_set(CSR_VSSTATUS, SSTATUS_SPP);
        } else {
            csr_clear(CSR_VSSTATUS, SSTATUS_SPP);
        }
    } else if (s->kind == K_SRET) {
        csr_write(CSR_SEPC, (unsigned long)cpmf_w_self);
        if ((s->next & 3) == RT_MODE_S) {
            csr_set(CSR_MSTATUS, SSTATUS_SPP);
        } else {
            csr_clear(CSR_MSTATUS, SSTATUS_SPP);
        }
        if (s->next & 4) {
            csr_set(CSR_HSTATUS, HSTATUS_SPV);
        }
    }
    if (s->kind == K_LOAD_PMP) {
        pmp_lock();
        arg = (unsigned long)locked_page;
        cpmf_fix.addr = (unsigned long)&fix_dummy;
        cpmf_fix.val = 0;
        cpmf_fix.pmpcfg = PMP_NAPOT_RWX | (PMP_NAPOT_RWX << 8);
    } else if (s->kind == K_LOAD_PT) {
        memset(pt_root, 0, sizeof(pt_root));
        pt_root[DRAM_BASE >> 30] = gigapage_pte(DRAM_BASE);
        arg = VA_ALIAS + ((unsigned long)locked_page - DRAM_BASE);
        cpmf_fix.addr = (unsigned long)&pt_root[VA_ALIAS >> 30];
        cpmf_fix.val = gigapage_pte(DRAM_BASE);
        cpmf_fix.pmpcfg = PMP_NAPOT_RWX;
        csr_write(CSR_SATP, SATP_SV39 | ((unsigned long)pt_root >> 12));
        asm volatile("sfence.vma" : : : "memory");
    }
    cpmf_fix.icfg = pa->icfg2;
    cpmf_fix.ccfg = pa->ccfg2;
    cpmf_fix.inh = pa->inh2;
    cpmf_fix.instret = pa->vi;
    cpmf_fix.cycle = pa->vc;
    memset((void *)&cpmf_mlog, 0, sizeof(cpmf_mlog));
    memset((void *)&cpmf_slog, 0, sizeof(cpmf_slog));
    memset((void *)&cpmf_snap, 0, sizeof(cpmf_snap));

    csr_write(CSR_MINSTRETCFG, pa->icfg);
    csr_write(CSR_MCYCLECFG, pa->ccfg);
    csr_write(CSR_MCOUNTINHIBIT, pa->inh);
    cpmf_run(pc, mtvec, arg);
    csr_write(CSR_MCOUNTINHIBIT, 0);

    /* Back to the runtime's state. */
    csr_write(CSR_MEDELEG, 0);
    csr_write(CSR_STVEC, saved_stvec);
    if (rt_has_h) {
        csr_write(CSR_HEDELEG, 0);
        csr_write(CSR_VSTVEC, saved_vstvec);
        csr_write(CSR_HSTATUS, saved_hstatus);
    }
    csr_clear(CSR_MSTATUS, MSTATUS_MPV | MSTATUS_MPRV);
    if (s->kind == K_LOAD_PMP) {
        pmp_restore();
    } else if (s->kind == K_LOAD_PT) {
        csr_write(CSR_SATP, 0);
        asm volatile("sfence.vma" : : : "memory");
    }

    /* The run went where it should. */
    CHECK_RUN(cpmf_snap.cause, end_cause);
    CHECK_RUN(cpmf_snap.epc, end_pc);
    if (s->kind == K_SELF || s->kind == K_SRET) {
        CHECK_RUN(cpmf_mlog.n + cpmf_slog.n, 0);
    } else {
        /* volatile: the log is written by the assembly handlers */
        const volatile struct cpmf_log *log =
            s->level == RT_LEVEL_M ? &cpmf_mlog : &cpmf_slog;

        CHECK_RUN(cpmf_mlog.n + cpmf_slog.n, 1);
        CHECK_RUN(log->cause, mid_cause);
        CHECK_RUN(log->epc, (unsigned long)sn->trap);
    }

    /* The counts. */
    ei = cpmf_snap.i0;
    ec = cpmf_snap.c0;
    simulate(&p, pa, &ei, &ec);
    CHECK_RUN(cpmf_snap.i1, ei);
    CHECK_RUN(cpmf_snap.c1, ec);
    if (s->kind == K_SELF || s->kind == K_SRET) {
        /* instret read before csrr a1 and before csrr a2 */
        CHECK_RUN(cpmf_snap.a[1] - cpmf_snap.a[0],
                  counts(pa->icfg, pa->inh, INH_IR, final) ?
                  NI(cpmf_w_self, cpmf_w_self_i1) : 0);
        /* cycle: after csrr a3 (the second instruction) up to csrr a4 */
        CHECK_RUN(cpmf_snap.a[3] - cpmf_snap.a[2],
                  counts(pa->ccfg, pa->inh, INH_CY, final) ?
                  NI(cpmf_w_self, cpmf_w_self_c1) - 1 : 0);
    }
}

/* Modes to run in. */
static int modes[5];
static int nr_modes;

static bool mode_exists(int mode)
{
    return !(mode & 4) || rt_has_h;
}

/* ------------------------------------------------------------------ */
/* 1. Registers */

static unsigned long cfg_read(bool instret)
{
    return instret ? csr_read(CSR_MINSTRETCFG) : csr_read(CSR_MCYCLECFG);
}

static void cfg_write(bool instret, unsigned long v)
{
    if (instret) {
        csr_write(CSR_MINSTRETCFG, v);
    } else {
        csr_write(CSR_MCYCLECFG, v);
    }
}

static unsigned long cfg_swap(bool instret, unsigned long v)
{
    return instret ? csr_swap(CSR_MINSTRETCFG, v) :
                     csr_swap(CSR_MCYCLECFG, v);
}

#define CHECK_CFG(instret, expected) ({                                 \
    if (!CHECK_EQ(cfg_read(instret), expected)) {                       \
        rt_printf("  in %s\n", (instret) ? "minstretcfg" : "mcyclecfg"); \
    }                                                                   \
})

/* volatile: written in lower modes through rt_call_in_mode */
static volatile long probe_cause[8];

static long probe_access(long unused)
{
    probe_cause[0] = RT_TRAP_CAUSE(csr_read(CSR_MCYCLECFG));
    probe_cause[1] = RT_TRAP_CAUSE(csr_write(CSR_MCYCLECFG, -1UL));
    probe_cause[2] = RT_TRAP_CAUSE(csr_set(CSR_MCYCLECFG, CFG_UINH));
    probe_cause[3] = RT_TRAP_CAUSE(csr_clear(CSR_MCYCLECFG, CFG_MINH));
    probe_cause[4] = RT_TRAP_CAUSE(csr_read(CSR_MINSTRETCFG));
    probe_cause[5] = RT_TRAP_CAUSE(csr_write(CSR_MINSTRETCFG, -1UL));
    probe_cause[6] = RT_TRAP_CAUSE(csr_set(CSR_MINSTRETCFG, CFG_UINH));
    probe_cause[7] = RT_TRAP_CAUSE(csr_clear(CSR_MINSTRETCFG, CFG_MINH));
    return 0;
}

static void test_registers(unsigned long reset_icfg, unsigned long reset_ccfg)
{
    static const int lower[] = {
        RT_MODE_S, RT_MODE_U, RT_MODE_VS, RT_MODE_VU
    };

    rt_printf("registers\n");
    CHECK_EQ(reset_icfg, 0);
    CHECK_EQ(reset_ccfg, 0);

    for (int which = 0; which < 2; which++) {
        bool instret = which;

        cfg_write(instret, -1UL);
        CHECK_CFG(instret, impl);
        cfg_write(instret, CFG_OF);                 /* read-only 0 (S1) */
        CHECK_CFG(instret, 0);
        cfg_write(instret, CFG_WPRI);               /* read-only 0 (S1) */
        CHECK_CFG(instret, 0);
        for (int bit = 56; bit < 64; bit++) {
            cfg_write(instret, 1UL << bit);
            CHECK_CFG(instret, (1UL << bit) & impl);
        }
        /* every combination, with OF and a pattern in the WPRI bits */
        for (unsigned k = 0; k < 32; k++) {
            cfg_write(instret, cfg_of(k) | CFG_OF |
                               ((k * 0x0123456789abUL) & CFG_WPRI));
            CHECK_CFG(instret, cfg_of(k) & impl);
        }
        cfg_write(instret, CFG_MINH | CFG_UINH);
        CHECK_EQ(cfg_swap(instret, CFG_SINH), CFG_MINH | CFG_UINH);
        CHECK_CFG(instret, CFG_SINH);
        if (instret) {
            csr_set(CSR_MINSTRETCFG, -1UL);
            csr_clear(CSR_MINSTRETCFG, CFG_MINH);
        } else {
            csr_set(CSR_MCYCLECFG, -1UL);
            csr_clear(CSR_MCYCLECFG, CFG_MINH);
        }
        CHECK_CFG(instret, impl & ~CFG_MINH);
        cfg_write(instret, 0);
        CHECK_CFG(instret, 0);
    }

    /* RV64 has no upper halves. */
    CHECK_EQ(RT_TRAP_CAUSE(csr_read(CSR_MCYCLECFGH)), CAUSE_INSN_ILLEGAL);
    CHECK_EQ(RT_TRAP_CAUSE(csr_read(CSR_MINSTRETCFGH)), CAUSE_INSN_ILLEGAL);

    /*
     * M-mode only: illegal instruction from S/HS and U, and from VS/VU
     * too (M-level CSRs are not accessible in HS-mode either, so the
     * privileged architecture gives an illegal-instruction exception,
     * not a virtual-instruction one).
     */
    for (unsigned m = 0; m < sizeof(lower) / sizeof(lower[0]); m++) {
        if (!mode_exists(lower[m])) {
            continue;
        }
        csr_write(CSR_MCYCLECFG, CFG_SINH);
        csr_write(CSR_MINSTRETCFG, CFG_MINH | CFG_SINH);
        for (int i = 0; i < 8; i++) {
            probe_cause[i] = 0x5555;
        }
        rt_call_in_mode(lower[m], probe_access, 0);
        for (int i = 0; i < 8; i++) {
            if (!CHECK_EQ(probe_cause[i], CAUSE_INSN_ILLEGAL)) {
                rt_printf("  access %d from %s\n", i,
                          rt_mode_name(lower[m]));
            }
        }
        CHECK_EQ(csr_read(CSR_MCYCLECFG), CFG_SINH);
        CHECK_EQ(csr_read(CSR_MINSTRETCFG), CFG_MINH | CFG_SINH);
    }
    csr_write(CSR_MCYCLECFG, 0);
    csr_write(CSR_MINSTRETCFG, 0);
}

/* ------------------------------------------------------------------ */
/* 2-5, 7. Counting in every mode, across traps and xRETs */

#define MAX_SCEN 80
static struct scen scens[MAX_SCEN];
static int nr_scens;

static void add_scen(enum kind kind, int mode, int next, int level,
                     const struct snip *sn)
{
    struct scen *s = &scens[nr_scens++];

    if (nr_scens > MAX_SCEN) {
        rt_printf("too many scenarios\n");
        rt_exit(2);
    }
    s->kind = kind;
    s->mode = mode;
    s->next = next;
    s->level = level;
    s->sn = sn;
}

static void build_scens(void)
{
    static const struct snip *const traps[] = {
        &sn_ecall, &sn_ebreak, &sn_ill, &sn_csrf
    };
    static const int sret_pairs[][2] = {
        { RT_MODE_S, RT_MODE_S }, { RT_MODE_S, RT_MODE_U },
        { RT_MODE_S, RT_MODE_VS }, { RT_MODE_S, RT_MODE_VU },
        { RT_MODE_VS, RT_MODE_VS }, { RT_MODE_VS, RT_MODE_VU },
    };

    for (int m = 0; m < nr_modes; m++) {
        add_scen(K_SELF, modes[m], 0, RT_LEVEL_M, NULL);
    }
    for (unsigned i = 0; i < sizeof(sret_pairs) / sizeof(sret_pairs[0]);
         i++) {
        if (mode_exists(sret_pairs[i][0]) && mode_exists(sret_pairs[i][1])) {
            add_scen(K_SRET, sret_pairs[i][0], sret_pairs[i][1], RT_LEVEL_M,
                     NULL);
        }
    }
    for (unsigned t = 0; t < sizeof(traps) / sizeof(traps[0]); t++) {
        for (int m = 0; m < nr_modes; m++) {
            int x = modes[m];

            add_scen(K_TRAP, x, 0, RT_LEVEL_M, traps[t]);
            if (x != RT_MODE_M) {
                add_scen(K_TRAP, x, 0, RT_LEVEL_HS, traps[t]);
            }
            /* ecall from VS-mode cannot be delegated to VS-mode */
            if (x == RT_MODE_VU || (x == RT_MODE_VS && traps[t] != &sn_ecall)) {
                add_scen(K_TRAP, x, 0, RT_LEVEL_VS, traps[t]);
            }
        }
    }
    for (int m = 0; m < nr_modes; m++) {
        int x = modes[m];

        if (x == RT_MODE_M) {
            continue;       /* PMP does not restrict M-mode */
        }
        add_scen(K_LOAD_PMP, x, 0, RT_LEVEL_M, &sn_load_pmp);
        add_scen(K_LOAD_PMP, x, 0, RT_LEVEL_HS, &sn_load_pmp);
        if (x & 4) {
            add_scen(K_LOAD_PMP, x, 0, RT_LEVEL_VS, &sn_load_pmp);
        }
    }
    add_scen(K_LOAD_PT, RT_MODE_U, 0, RT_LEVEL_M, &sn_load_pt);
}

static void test_counting(void)
{
    static const unsigned long inhs[] = { INH_IR, INH_CY, INH_IR | INH_CY };
    struct params pa;
    unsigned start = runs;

    build_scens();
    rt_printf("counting: %d scenarios x 32 xINH combinations\n", nr_scens);
    for (int i = 0; i < nr_scens; i++) {
        for (unsigned k = 0; k < 32; k++) {
            memset(&pa, 0, sizeof(pa));
            pa.icfg = cfg_of(k);
            pa.ccfg = cfg_perm(k);
            run(&scens[i], &pa);
        }
        /* mcountinhibit stops the counters whatever the filters say. */
        for (unsigned j = 0; j < sizeof(inhs) / sizeof(inhs[0]); j++) {
            memset(&pa, 0, sizeof(pa));
            pa.inh = inhs[j];
            run(&scens[i], &pa);
            pa.icfg = CFG_UINH;
            pa.ccfg = CFG_MINH;
            run(&scens[i], &pa);
        }
    }

    /*
     * The specification's example, by name: all modes but U inhibited,
     * a U-mode load faults once and is re-executed: it counts once,
     * like the other instructions of U-mode, nothing else counts.
     */
    for (int i = 0; i < nr_scens; i++) {
        if ((scens[i].kind == K_LOAD_PT || scens[i].kind == K_LOAD_PMP) &&
            scens[i].mode == RT_MODE_U && scens[i].level == RT_LEVEL_M) {
            unsigned work = NI(cpmf_t_load, cpmf_t_load_end);

            memset(&pa, 0, sizeof(pa));
            pa.icfg = impl & ~CFG_UINH;
            pa.ccfg = impl & ~CFG_UINH;
            run(&scens[i], &pa);
            if (!CHECK_EQ(cpmf_snap.i1 - cpmf_snap.i0, work)) {
                rt_printf("  specification example (%s)\n",
                          scens[i].sn->name);
            }
            /* cycles: the same plus the ecall, not the faulting try */
            CHECK_EQ(cpmf_snap.c1 - cpmf_snap.c0, work + 1);
        }
    }
    rt_printf("  %u runs\n", runs - start);
}

/* ------------------------------------------------------------------ */
/* 6. Reconfiguration in the middle of a run */

/*
 * mcyclecfg before and after a change: @k and @k2 permuted, with MINH
 * the same on both sides (the cycle of the instruction that changes the
 * filter is not measured).
 */
static void cycle_cfgs(unsigned k, unsigned k2, unsigned long *c1,
                       unsigned long *c2)
{
    *c1 = cfg_perm(k);
    *c2 = (cfg_perm(k2) & ~CFG_MINH) | (*c1 & CFG_MINH);
}

static void test_reconfig(void)
{
    static const unsigned long inhs[] = {
        0, INH_IR, INH_CY, INH_IR | INH_CY
    };
    /* 0, each single bit, all */
    static const unsigned few[] = { 0, 16, 8, 4, 2, 1, 31 };
    const unsigned nfew = sizeof(few) / sizeof(few[0]);
    struct params pa;
    struct scen s = { .kind = K_CFG, .level = RT_LEVEL_M, .sn = &sn_ecall };
    unsigned start = runs;
    uint64_t out[4];

    rt_printf("reconfiguration\n");
    /* U-mode work, M rewrites both filters, U-mode work: all pairs. */
    s.mode = RT_MODE_U;
    for (unsigned k = 0; k < 32; k++) {
        for (unsigned k2 = 0; k2 < 32; k2++) {
            memset(&pa, 0, sizeof(pa));
            pa.icfg = cfg_of(k);
            pa.icfg2 = cfg_of(k2);
            cycle_cfgs(k, k2, &pa.ccfg, &pa.ccfg2);
            run(&s, &pa);
        }
    }
    /* The same from the other modes, fewer pairs. */
    for (int m = 0; m < nr_modes; m++) {
        if (modes[m] == RT_MODE_U) {
            continue;
        }
        s.mode = modes[m];
        for (unsigned i = 0; i < nfew; i++) {
            for (unsigned j = 0; j < nfew; j++) {
                memset(&pa, 0, sizeof(pa));
                pa.icfg = cfg_of(few[i]);
                pa.icfg2 = cfg_of(few[j]);
                cycle_cfgs(few[i], few[j], &pa.ccfg, &pa.ccfg2);
                run(&s, &pa);
            }
        }
    }
    /*
     * mcountinhibit changed in the middle: the csrw is counted in
     * minstret under the old value; mcycle keeps M-mode inhibited when
     * CY changes.
     */
    s.mode = RT_MODE_U;
    for (unsigned i = 0; i < 4; i++) {
        for (unsigned j = 0; j < 4; j++) {
            for (unsigned k = 0; k < 4; k++) {
                memset(&pa, 0, sizeof(pa));
                pa.inh = inhs[i];
                pa.inh2 = inhs[j];
                pa.icfg = (k & 1) ? CFG_MINH : 0;
                pa.icfg2 = (k & 2) ? CFG_UINH : CFG_MINH;
                pa.ccfg = ((inhs[i] ^ inhs[j]) & INH_CY) || (k & 1) ?
                          CFG_MINH : 0;
                pa.ccfg2 = pa.ccfg | ((k & 2) ? CFG_UINH : 0);
                run(&s, &pa);
            }
        }
    }

    /*
     * A filter change right after counting in several modes (S then U,
     * under the old filter) changes nothing already counted: read,
     * write the cfg, read in M-mode.  The reading csrr and the csrw
     * count under the old filter, so the difference is 2 or 0.  This
     * includes going from 0 to non-zero and back.
     */
    s.kind = K_SRET;
    s.mode = RT_MODE_S;
    s.next = RT_MODE_U;
    s.sn = NULL;
    for (unsigned k = 0; k < 32; k++) {
        for (unsigned k2 = 0; k2 < 32; k2++) {
            unsigned long c1, c2;
            bool ok;

            memset(&pa, 0, sizeof(pa));
            pa.icfg = cfg_of(k);
            cycle_cfgs(k, k2, &c1, &c2);
            pa.ccfg = c1;
            run(&s, &pa);
            /* run() leaves the filters as they were during the run */
            cpmf_m_swap(cfg_of(k2), c2, out);
            ok = CHECK_EQ(out[1] - out[0], (pa.icfg & CFG_MINH) ? 0 : 2);
            ok &= CHECK_EQ(out[3] - out[2], (c1 & CFG_MINH) ? 0 : 2);
            if (!ok) {
                rt_printf("  filter change 0x%lx -> 0x%lx (minstretcfg), "
                          "0x%lx -> 0x%lx (mcyclecfg)\n",
                          pa.icfg, cfg_of(k2), c1, c2);
            }
            CHECK_EQ(csr_read(CSR_MINSTRETCFG), cfg_of(k2) & impl);
            CHECK_EQ(csr_read(CSR_MCYCLECFG), c2 & impl);
        }
    }
    csr_write(CSR_MINSTRETCFG, 0);
    csr_write(CSR_MCYCLECFG, 0);
    rt_printf("  %u runs\n", runs - start);
}

/* ------------------------------------------------------------------ */
/* 7. mcountinhibit and counter writes */

static void test_writes(void)
{
    static const unsigned long cfgs[] = { 0, CFG_MINH, CFG_UINH };
    static const unsigned long inhs[] = { 0, INH_IR, INH_CY };
    struct scen s = { .kind = K_WCTR, .level = RT_LEVEL_M, .sn = &sn_ecall };
    struct params pa;
    unsigned start = runs;
    uint64_t out[6];

    rt_printf("counter writes\n");
    /*
     * In M-mode: csrrw minstret reads the count before itself; the next
     * instruction reads the written value, and counting continues from
     * it.  For mcycle the write replaces that instruction's cycle
     * (inferred from "continues from where it was written" and "a read
     * includes the reading instruction"): V + 1 at the next read.
     */
    for (unsigned i = 0; i < 3; i++) {
        for (unsigned j = 0; j < 3; j++) {
            unsigned long v = 0x1234567890UL + i * 1000 + j;
            bool ci, cc;

            csr_write(CSR_MINSTRETCFG, cfgs[i]);
            csr_write(CSR_MCYCLECFG, cfgs[(i + j) % 3]);
            csr_write(CSR_MCOUNTINHIBIT, inhs[j]);
            cpmf_m_wread(v, out);
            csr_write(CSR_MCOUNTINHIBIT, 0);
            ci = counts(cfgs[i], inhs[j], INH_IR, RT_MODE_M);
            cc = counts(cfgs[(i + j) % 3], inhs[j], INH_CY, RT_MODE_M);
            CHECK_EQ(out[1] - out[0], ci);
            CHECK_EQ(out[2], v);
            CHECK_EQ(out[3], v + 5 * ci);
            CHECK_EQ(out[4], v + cc);
            CHECK_EQ(out[5], v + 6 * cc);
        }
    }
    csr_write(CSR_MINSTRETCFG, 0);
    csr_write(CSR_MCYCLECFG, 0);

    /* Written in the middle of a run, from M, in every mode's run. */
    for (int m = 0; m < nr_modes; m++) {
        s.mode = modes[m];
        for (unsigned k = 0; k < 32; k++) {
            memset(&pa, 0, sizeof(pa));
            pa.icfg = cfg_of(k);
            pa.ccfg = cfg_perm(k);
            pa.vi = 0x0123456789abcdefUL + k;
            pa.vc = 0xfedcba9876543210UL + 3 * k;
            run(&s, &pa);
        }
        memset(&pa, 0, sizeof(pa));
        pa.inh = INH_IR | INH_CY;
        pa.vi = 1000;
        pa.vc = 2000;
        run(&s, &pa);
    }
    rt_printf("  %u runs\n", runs - start);
}

/* ------------------------------------------------------------------ */

int main(void)
{
    /* Reset values, before anything writes them. */
    unsigned long reset_icfg = csr_read(CSR_MINSTRETCFG);
    unsigned long reset_ccfg = csr_read(CSR_MCYCLECFG);

    impl = CFG_MINH | CFG_SINH | CFG_UINH;
    modes[nr_modes++] = RT_MODE_M;
    modes[nr_modes++] = RT_MODE_S;
    modes[nr_modes++] = RT_MODE_U;
    if (rt_has_h) {
        impl |= CFG_VSINH | CFG_VUINH;
        modes[nr_modes++] = RT_MODE_VS;
        modes[nr_modes++] = RT_MODE_VU;
    } else {
        rt_printf("note: no H extension: VS and VU modes do not exist, "
                  "their parts are skipped; VSINH/VUINH must read 0\n");
    }
    saved_stvec = csr_read(CSR_STVEC);
    if (rt_has_h) {
        saved_vstvec = csr_read(CSR_VSTVEC);
        saved_hstatus = csr_read(CSR_HSTATUS) & ~HSTATUS_SPV;
        csr_write(CSR_HCOUNTEREN, 7);
    }
    /* cycle, time, instret readable in every mode */
    csr_write(CSR_MCOUNTEREN, 7);
    csr_write(CSR_SCOUNTEREN, 7);

    test_registers(reset_icfg, reset_ccfg);
    test_counting();
    test_reconfig();
    test_writes();
    return 0;
}
