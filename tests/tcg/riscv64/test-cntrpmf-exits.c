/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Smcntrpmf: minstret is exact on every path that ends a translated
 * block early.
 *
 * Every case runs a window of cntrpmf-exits-work.S in U-mode or S-mode
 * with minstretcfg = MINH only, so that M-mode (where the window is
 * entered, its traps are taken and minstret is read) does not count:
 * the minstret difference must be exactly the number of the window's
 * instructions that retire, counted by hand (XW_*_N, checked against
 * the labels by the assembler).  The rules (Smcntrpmf 1.0, "Counter
 * Behavior", and the privileged architecture): instructions that retire
 * in a non-inhibited mode increment instret; an instruction that raises
 * a synchronous exception does not retire (nor do the instructions
 * after it that it keeps from running); the counter of a mode inhibited
 * in minstretcfg does not move.  Every window therefore runs twice: once
 * with MINH (count, cause, epc and tval checked) and once with the
 * window's own mode inhibited too (count 0).
 *
 * Cases:
 *  1. wfi first in its block and in the middle (S-mode, TW = 0, an
 *     interrupt pending and enabled but globally masked), and a wfi that
 *     U-mode may not execute (illegal instruction, does not retire);
 *  2. Zicfilp: landing pad label mismatch, no landing pad, matching
 *     label, label 0, software-guarded jump through x7 (U-mode);
 *  3. Zicfiss: sspopchk mismatch in the middle of a block, and a
 *     matching sspush/sspopchk pair (U-mode, Sv39 shadow stack page);
 *  4. Zcmt: cm.jalt and cm.jt whose table entry U-mode may not fetch
 *     (PMP without X), and with a good table;
 *  5. exceptions from the middle of a block: CSR access from U and S,
 *     PMP load and store access faults, ecall, ebreak, illegal opcode;
 *  6. MMIO loads and stores in the middle of a block (UART, mtime),
 *     which make QEMU recompile the block under -icount;
 *  7. instructions that end a block: csrw sscratch, csrs sstatus,
 *     sfence.vma (S-mode), fence.i (U-mode), and csrw/csrrw minstret in
 *     M-mode with MINH = 0 (the written value replaces the increment);
 *  8. Sdtrig: an execute trigger (mcontrol6) on an instruction in the
 *     middle of a U-mode block, a store trigger (mcontrol, timing
 *     before): breakpoint exception, the instruction does not retire;
 *  9. page crossing: a U-mode window running into a page it may not
 *     execute, and a 4-byte instruction straddling that boundary;
 * 10. an S-mode loop that M timer interrupts interrupt many times: the
 *     count is exactly the loop's instructions.
 *
 * Configuration word (-device loader): at 0x80fff000 a 64-bit word
 * 0x45584954 << 32 | features: bit 0 QEMU runs with -icount (instret
 * does not depend on it; with it, the timer interrupts of case 10 come
 * at deterministic points and at least two must come, while without it
 * their number depends on host timing and is only printed), bit 1
 * Zicfilp, bit 2
 * Zicfiss, bit 3 Zcmt.  The features the program finds must be exactly
 * those the word names (a missing or extra feature is a failed check);
 * cases 2, 3 and 4 run when the word names their extension, cases 1 and
 * 5 to 10 always (Sdtrig is required: QEMU enables it by default).
 */

#include "rt.h"
#include "cntrpmf-exits-work.h"

#define CSR_SSP             0x011
#define CSR_JVT             0x017
#define CSR_PMPADDR1        0x3b1
#define CSR_PMPADDR3        0x3b3
#define CSR_TSELECT         0x7a0
#define CSR_TDATA1          0x7a1
#define CSR_TDATA2          0x7a2

#define MSTATUS_SIE         (1UL << 1)
#define MSTATUS_SUM         (1UL << 18)
#define MSTATUS_TW          (1UL << 21)
#define MIP_SSIP            (1UL << 1)
#define MIP_MTIP            (1UL << 7)
#define ENVCFG_LPE          (1UL << 2)
#define ENVCFG_SSE          (1UL << 3)

#define CAUSE_FETCH_ACCESS  1
#define CAUSE_LOAD_ACCESS   5
#define CAUSE_STORE_ACCESS  7
#define CAUSE_SW_CHECK      18
#define SWCHECK_LPAD        2       /* landing pad fault */
#define SWCHECK_SSTACK      3       /* shadow stack fault */

/* Sdtrig tdata1 */
#define TDATA1_TYPE(t)      ((unsigned long)(t) << 60)
#define MC_STORE            (1UL << 1)
#define MC_EXEC             (1UL << 2)
#define MC_U                (1UL << 3)

#define PMP_R               1
#define PMP_W               2
#define PMP_X               4
#define PMP_NAPOT           0x18

#define SATP_SV39           (8UL << 60)
#define PTE_V               0x01
#define PTE_W               0x04
#define PTE_U               0x10
#define PTE_A               0x40
#define PTE_D               0x80
#define PTE_URWX_AD         0xdf
#define DRAM_BASE           0x80000000UL
#define SS_VA               0x40000000UL    /* the shadow stack page */
#define SS_SSP              (SS_VA + 0x800)
#define SS_RA               0x5a5a1234UL    /* ra in the shadow windows */
#define SS_WRONG            0x0badc0deUL

#define CONFIG_ADDR         0x80fff000UL
#define CONFIG_MAGIC        0x45584954UL    /* "EXIT" */
#define F_ICOUNT            (1UL << 0)
#define F_ZICFILP           (1UL << 1)
#define F_ZICFISS           (1UL << 2)
#define F_ZCMT              (1UL << 3)
#define F_EXTENSIONS        (F_ZICFILP | F_ZICFISS | F_ZCMT)

#define LOOP_ITERATIONS     200000
#define LOOP_IRQ_DELTA      100     /* mtime ticks between interrupts */

#define RA_MARK             0x7777abcdUL

_Static_assert(sizeof(struct xr_run) == XR_SIZE, "struct xr_run layout");
_Static_assert(__builtin_offsetof(struct xr_run, nirq) == XR_NIRQ,
               "struct xr_run layout");

/* The fields every window names, in order. */
#define WIN(nm, md, start, count, cs, ep)                               \
    .name = (nm), .mode = (md), .pc = (start), .n = (count),            \
    .cause = (cs), .epc = (ep)

enum tval_kind {
    TVAL_NONE,          /* not checked */
    TVAL_EQ,            /* must be .tval */
    TVAL_EQ_OR_0,       /* .tval, or 0 where the spec lets xtval be 0 */
};

struct win {
    const char *name;
    int mode;
    const void *pc;
    unsigned n;                 /* instructions that retire */
    unsigned long cause;        /* of the trap that ends the window */
    const void *epc;
    enum tval_kind tk;
    unsigned long tval;
    unsigned long a0, a1, ra, irq_delta;
    void (*setup)(void);
    void (*teardown)(void);
};

/* The run run_win() is doing: 0 with MINH, 1 with the mode inhibited. */
static int cur_inh;

static uint8_t locked_page[4096] __attribute__((aligned(4096)));
static uint64_t watch_word __attribute__((aligned(8)));
static uint64_t pt_root[512] __attribute__((aligned(4096)));
static uint64_t pt_l1[512] __attribute__((aligned(4096)));
static uint64_t pt_l0[512] __attribute__((aligned(4096)));
/* volatile: written by U-mode through the shadow stack mapping */
static volatile uint64_t ss_page[512] __attribute__((aligned(4096)));
static unsigned long ssp_after[2];

static unsigned long mode_inh(int mode)
{
    return mode == RT_MODE_S ? CFG_SINH : CFG_UINH;
}

static const char *const tval_kinds[] = { "", "tval", "tval or 0" };

/*
 * Run @w twice (see the head comment); return the record of the first
 * run in @first.
 */
static bool run_win(const struct win *w, struct xr_run *first)
{
    struct xr_run r;
    bool ok = true;

    for (cur_inh = 0; cur_inh < 2; cur_inh++) {
        memset(&r, 0, sizeof(r));
        r.pc = (uintptr_t)w->pc;
        r.mode = w->mode;
        r.a0 = w->a0;
        r.a1 = w->a1;
        r.ra = w->ra;
        r.irq_delta = w->irq_delta;
        if (w->setup) {
            w->setup();
        }
        csr_write(CSR_MINSTRETCFG,
                  CFG_MINH | (cur_inh ? mode_inh(w->mode) : 0));
        xr_run(&r);
        csr_write(CSR_MINSTRETCFG, CFG_MINH);
        if (w->teardown) {
            w->teardown();
        }
        /* the same trap ends the window whatever counts */
        ok &= CHECK_EQ(r.cause, w->cause);
        if (cur_inh) {
            /*
             * "counting does not occur while executing in an inhibited
             * privilege mode"
             */
            ok &= CHECK_EQ(r.i1 - r.i0, 0);
            continue;
        }
        *first = r;
        ok &= CHECK_EQ(r.i1 - r.i0, w->n);
        ok &= CHECK_EQ(r.epc, (uintptr_t)w->epc);
        if (w->tk == TVAL_EQ) {
            ok &= CHECK_EQ(r.tval, w->tval);
        } else if (w->tk == TVAL_EQ_OR_0) {
            if (!CHECK(r.tval == w->tval || r.tval == 0)) {
                rt_printf("  tval 0x%lx, expected 0x%lx or 0\n",
                          (unsigned long)r.tval, w->tval);
                ok = false;
            }
        }
    }
    if (!ok) {
        rt_printf("  in window \"%s\" (%s-mode, expected %u retired, "
                  "cause 0x%lx%s%s)\n", w->name, rt_mode_name(w->mode),
                  w->n, w->cause, w->tk ? ", " : "", tval_kinds[w->tk]);
    }
    return ok;
}

/* ------------------------------------------------------------------ */
/* PMP: entry 3 lets U/S-mode do everything; entries 0 and 1 restrict. */

static void pmp_base(void)
{
    csr_write(CSR_PMPADDR3, -1UL);
    csr_write(CSR_PMPCFG0, (unsigned long)(PMP_NAPOT | PMP_R | PMP_W |
                                           PMP_X) << 24);
}

/* PMP entry @e (0 or 1) over the 4 KiB page at @page with @perm. */
static void pmp_page(int e, unsigned long page, unsigned perm)
{
    unsigned long cfg = csr_read(CSR_PMPCFG0);
    unsigned long napot = (page >> 2) | 0x1ff;

    if (e == 0) {
        csr_write(CSR_PMPADDR0, napot);
    } else {
        csr_write(CSR_PMPADDR1, napot);
    }
    cfg &= ~(0xffUL << (8 * e));
    cfg |= (unsigned long)(PMP_NAPOT | perm) << (8 * e);
    csr_write(CSR_PMPCFG0, cfg);
}

static void mtimecmp_write(uint64_t v)
{
    *(volatile uint64_t *)VIRT_MTIMECMP = v;    /* MMIO */
}

static uint64_t mtime_read(void)
{
    return *(volatile uint64_t *)VIRT_MTIME;    /* MMIO */
}

/* ------------------------------------------------------------------ */
/* 1. wfi */

static void wfi_s_setup(void)
{
    /*
     * "WFI is also required to resume execution for locally enabled
     * interrupts pending at any privilege level, regardless of the
     * global interrupt enable at each privilege level": SSIP pending,
     * enabled in sie, delegated to S-mode and masked by sstatus.SIE = 0,
     * so it is never taken.  TW = 0: S-mode may wait.
     */
    csr_clear(CSR_MSTATUS, MSTATUS_TW | MSTATUS_SIE);
    csr_write(CSR_MIDELEG, MIP_SSIP);
    csr_write(CSR_MIE, MIP_SSIP);
    csr_set(CSR_MIP, MIP_SSIP);
}

static void wfi_s_teardown(void)
{
    csr_clear(CSR_MIP, MIP_SSIP);
    csr_write(CSR_MIE, 0);
    csr_write(CSR_MIDELEG, 0);
}

static void wfi_u_setup(void)
{
    /*
     * No interrupt enabled: the wfi cannot complete, so "when S-mode is
     * implemented, then executing WFI in U-mode causes an illegal
     * instruction exception, unless it completes within an
     * implementation-specific, bounded time limit" makes it trap.
     */
    csr_clear(CSR_MSTATUS, MSTATUS_TW);
    csr_write(CSR_MIE, 0);
}

static void test_wfi(void)
{
    struct xr_run r;
    const struct win wins[] = {
        {
            WIN("wfi first in its block", RT_MODE_S, xw_wfi_first,
                XW_WFI_FIRST_N, CAUSE_ECALL_S, xw_wfi_first_end),
            .setup = wfi_s_setup, .teardown = wfi_s_teardown,
        }, {
            WIN("wfi in the middle of a block", RT_MODE_S, xw_wfi_mid,
                XW_WFI_MID_N, CAUSE_ECALL_S, xw_wfi_mid_end),
            .setup = wfi_s_setup, .teardown = wfi_s_teardown,
        }, {
            /* the trapping wfi does not retire */
            WIN("wfi in U-mode (illegal)", RT_MODE_U, xw_wfi_u,
                XW_WFI_U_N, CAUSE_INSN_ILLEGAL, xw_wfi_u_trap),
            .setup = wfi_u_setup,
        },
    };

    rt_printf("1. wfi\n");
    for (unsigned i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
        run_win(&wins[i], &r);
    }
}

/* ------------------------------------------------------------------ */
/* 2. Zicfilp */

static void lpe_on(void)
{
    /* U-mode's landing pads: senvcfg.LPE (S-mode is implemented) */
    csr_set(CSR_SENVCFG, ENVCFG_LPE);
}

static void lpe_off(void)
{
    csr_clear(CSR_SENVCFG, ENVCFG_LPE);
}

static void test_zicfilp(void)
{
    struct xr_run r;
    /*
     * "When ELP is set to LP_EXPECTED, if the next instruction in the
     * instruction stream is not 4-byte aligned, or is not LPAD, or if
     * the landing pad label encoded in LPAD is not zero and does not
     * match the expected landing pad label in bits 31:12 of the x7
     * register, then a software-check exception (cause=18) with xtval
     * set to "landing pad fault (code=2)" is raised": that instruction
     * (xepc) does not retire, nor what follows it; the indirect jump
     * before it did.
     */
    const struct win wins[] = {
        {
            WIN("lpad label mismatch", RT_MODE_U, xw_lp_bad,
                XW_LP_JUMP_N, CAUSE_SW_CHECK, xw_lp_bad_pad),
            .tk = TVAL_EQ, .tval = SWCHECK_LPAD,
            .setup = lpe_on, .teardown = lpe_off,
        }, {
            WIN("no lpad at the target", RT_MODE_U, xw_lp_none,
                XW_LP_JUMP_N, CAUSE_SW_CHECK, xw_lp_none_tgt),
            .tk = TVAL_EQ, .tval = SWCHECK_LPAD,
            .setup = lpe_on, .teardown = lpe_off,
        }, {
            WIN("lpad label match", RT_MODE_U, xw_lp_good,
                XW_LP_GOOD_N, CAUSE_ECALL_U, xw_lp_good_end),
            .setup = lpe_on, .teardown = lpe_off,
        }, {
            /*
             * "When LPL is encoded as zero, the LPAD instruction does
             * not perform the label check"
             */
            WIN("lpad 0", RT_MODE_U, xw_lp_zero, XW_LP_GOOD_N,
                CAUSE_ECALL_U, xw_lp_zero_end),
            .setup = lpe_on, .teardown = lpe_off,
        }, {
            /*
             * "An indirect branch using JALR, C.JALR, or C.JR with rs1
             * as x7 is termed a software guarded branch. Such branches
             * do not need to land on a LPAD instruction"
             */
            WIN("jump through x7", RT_MODE_U, xw_lp_x7, XW_LP_X7_N,
                CAUSE_ECALL_U, xw_lp_x7_end),
            .setup = lpe_on, .teardown = lpe_off,
        },
    };

    rt_printf("2. Zicfilp\n");
    for (unsigned i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
        run_win(&wins[i], &r);
    }
}

/* ------------------------------------------------------------------ */
/* 3. Zicfiss */

static unsigned long pte_table(const void *next)
{
    return (((uintptr_t)next >> 12) << 10) | PTE_V;
}

static void ss_tables(void)
{
    /* DRAM (code, data) as a U-mode RWX gigapage, identity mapped */
    pt_root[DRAM_BASE >> 30] = ((DRAM_BASE >> 12) << 10) | PTE_URWX_AD;
    /* SS_VA: a shadow stack page, "R=0, W=1, X=0" */
    pt_root[SS_VA >> 30] = pte_table(pt_l1);
    pt_l1[0] = pte_table(pt_l0);
    pt_l0[0] = (((uintptr_t)ss_page >> 12) << 10) |
               PTE_V | PTE_W | PTE_U | PTE_A | PTE_D;
}

static void ss_on(void)
{
    csr_write(CSR_SATP, SATP_SV39 | ((uintptr_t)pt_root >> 12));
    asm volatile("sfence.vma" : : : "memory");
    /* senvcfg.SSE is read-only 0 unless menvcfg.SSE is 1 */
    csr_set(CSR_MENVCFG, ENVCFG_SSE);
    csr_set(CSR_SENVCFG, ENVCFG_SSE);
    csr_write(CSR_SSP, SS_SSP);
}

static void ss_bad_setup(void)
{
    ss_page[(SS_SSP - SS_VA) / 8] = SS_WRONG;
    ss_on();
}

static void ss_good_setup(void)
{
    ss_page[(SS_SSP - SS_VA) / 8 - 1] = 0;
    ss_on();
}

static void ss_off(void)
{
    ssp_after[cur_inh] = csr_read(CSR_SSP);
    csr_clear(CSR_SENVCFG, ENVCFG_SSE);
    csr_clear(CSR_MENVCFG, ENVCFG_SSE);
    csr_write(CSR_SATP, 0);
    asm volatile("sfence.vma" : : : "memory");
}

static void test_zicfiss(void)
{
    struct xr_run r;
    /*
     * "If the value loaded from the address in ssp does not match the
     * value in rs1, a software-check exception (cause=18) is raised
     * with xtval set to "shadow stack fault (code=3)"", and "the ssp is
     * incremented by SSPOPCHK ... only if the load from the shadow stack
     * completes successfully and no software-check exception is
     * raised": the sspopchk does not retire, the instructions before it
     * in its block did.
     */
    const struct win bad = {
        WIN("sspopchk mismatch", RT_MODE_U, xw_ss_bad,
            XW_SS_BAD_N, CAUSE_SW_CHECK, xw_ss_bad_trap),
        .tk = TVAL_EQ, .tval = SWCHECK_SSTACK,
        .ra = SS_RA, .setup = ss_bad_setup, .teardown = ss_off,
    };
    const struct win good = {
        WIN("sspush, sspopchk match", RT_MODE_U, xw_ss_good,
            XW_SS_GOOD_N, CAUSE_ECALL_U, xw_ss_good_end),
        .ra = SS_RA, .setup = ss_good_setup, .teardown = ss_off,
    };

    rt_printf("3. Zicfiss\n");
    ss_tables();
    run_win(&bad, &r);
    CHECK_EQ(ssp_after[0], SS_SSP);
    CHECK_EQ(ssp_after[1], SS_SSP);
    run_win(&good, &r);
    /* sspush stored ra below ssp, sspopchk popped it */
    CHECK_EQ(ss_page[(SS_SSP - SS_VA) / 8 - 1], SS_RA);
    CHECK_EQ(ssp_after[0], SS_SSP);
    CHECK_EQ(ssp_after[1], SS_SSP);
}

/* ------------------------------------------------------------------ */
/* 4. Zcmt */

static void jvt_on(void)
{
    csr_write(CSR_JVT, (uintptr_t)xr_jvt);     /* mode 0 (jump table) */
}

static void jvt_nox(void)
{
    jvt_on();
    /* the table page is readable, not executable for U-mode */
    pmp_page(0, (uintptr_t)xr_jvt, PMP_R | PMP_W);
}

static void jvt_off(void)
{
    pmp_base();
    csr_write(CSR_JVT, 0);
}

static void test_zcmt(void)
{
    struct xr_run r;
    uintptr_t jalt_entry = (uintptr_t)&xr_jvt[XW_JALT_INDEX];
    uintptr_t jt_entry = (uintptr_t)&xr_jvt[XW_JT_INDEX];
    /*
     * "the execution of a table jump instruction involves two
     * instruction fetches ... both require execute permission ...  If
     * an exception occurs on either instruction fetch, xEPC is set to
     * the PC of the table jump instruction, xCAUSE is set as expected
     * for the type of fault and xTVAL (if not set to zero) contains the
     * fetch address which caused the fault": an instruction access
     * fault; the table jump does not retire.
     */
    const struct win jalt_bad = {
        WIN("cm.jalt, table not executable", RT_MODE_U, xw_jalt,
            XW_JALT_BAD_N, CAUSE_FETCH_ACCESS, xw_jalt_insn),
        .tk = TVAL_EQ_OR_0, .tval = jalt_entry,
        .ra = RA_MARK, .setup = jvt_nox, .teardown = jvt_off,
    };
    const struct win jalt_good = {
        WIN("cm.jalt", RT_MODE_U, xw_jalt,
            XW_JALT_GOOD_N, CAUSE_ECALL_U, xw_jalt_end),
        .ra = RA_MARK, .setup = jvt_on, .teardown = jvt_off,
    };
    const struct win jt_bad = {
        WIN("cm.jt, table not executable", RT_MODE_U, xw_jt,
            XW_JT_BAD_N, CAUSE_FETCH_ACCESS, xw_jt_insn),
        .tk = TVAL_EQ_OR_0, .tval = jt_entry,
        .ra = RA_MARK, .setup = jvt_nox, .teardown = jvt_off,
    };
    const struct win jt_good = {
        WIN("cm.jt", RT_MODE_U, xw_jt,
            XW_JT_GOOD_N, CAUSE_ECALL_U, xw_jt_end),
        .ra = RA_MARK, .setup = jvt_on, .teardown = jvt_off,
    };

    rt_printf("4. Zcmt\n");
    run_win(&jalt_bad, &r);
    CHECK_EQ(r.out_ra, RA_MARK);        /* the cm.jalt did not link */
    run_win(&jalt_good, &r);
    CHECK_EQ(r.out_ra, (uintptr_t)xw_jalt_insn + 2);    /* ra = pc + 2 */
    run_win(&jt_bad, &r);
    CHECK_EQ(r.out_ra, RA_MARK);
    run_win(&jt_good, &r);
    CHECK_EQ(r.out_ra, RA_MARK);        /* cm.jt does not link */
}

/* ------------------------------------------------------------------ */
/* 5. Exceptions from helpers in the middle of a block */

static void lock_page(void)
{
    pmp_page(0, (uintptr_t)locked_page, 0);
}

static void test_exceptions(void)
{
    struct xr_run r;
    uintptr_t lp = (uintptr_t)locked_page;
    /*
     * The faulting instruction does not retire ("instructions that
     * cause synchronous exceptions ... are not considered to retire"),
     * so only the XW_EXC_BEFORE addi before it count.  Access faults:
     * "If mtval is written with a nonzero value when a ... access-fault
     * ... exception occurs ..., then mtval will contain the faulting
     * virtual address."
     */
    const struct win wins[] = {
        {
            WIN("csrr sscratch in U-mode", RT_MODE_U, xw_csr_u,
                XW_EXC_BEFORE, CAUSE_INSN_ILLEGAL, xw_csr_u_trap),
        }, {
            WIN("csrr mscratch in S-mode", RT_MODE_S, xw_csr_s,
                XW_EXC_BEFORE, CAUSE_INSN_ILLEGAL, xw_csr_s_trap),
        }, {
            WIN("load access fault (PMP)", RT_MODE_U, xw_load,
                XW_EXC_BEFORE, CAUSE_LOAD_ACCESS, xw_load_trap),
            .tk = TVAL_EQ_OR_0, .tval = lp, .a0 = lp,
            .setup = lock_page, .teardown = pmp_base,
        }, {
            WIN("store access fault (PMP)", RT_MODE_U, xw_store,
                XW_EXC_BEFORE, CAUSE_STORE_ACCESS, xw_store_trap),
            .tk = TVAL_EQ_OR_0, .tval = lp, .a0 = lp,
            .setup = lock_page, .teardown = pmp_base,
        }, {
            WIN("ecall", RT_MODE_U, xw_ecall,
                XW_EXC_BEFORE, CAUSE_ECALL_U, xw_ecall_trap),
        }, {
            WIN("ecall in S-mode", RT_MODE_S, xw_ecall,
                XW_EXC_BEFORE, CAUSE_ECALL_S, xw_ecall_trap),
        }, {
            WIN("ebreak", RT_MODE_U, xw_ebreak,
                XW_EXC_BEFORE, CAUSE_BREAKPOINT, xw_ebreak_trap),
        }, {
            WIN("illegal opcode", RT_MODE_U, xw_ill,
                XW_EXC_BEFORE, CAUSE_INSN_ILLEGAL, xw_ill_trap),
        },
    };

    rt_printf("5. exceptions in the middle of a block\n");
    for (unsigned i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
        run_win(&wins[i], &r);
    }
}

/* ------------------------------------------------------------------ */
/* 6. MMIO */

static void test_mmio(void)
{
    struct xr_run r;
    /* loads and stores of devices retire like any other */
    const struct win wins[] = {
        {
            WIN("MMIO in the middle of a block", RT_MODE_U, xw_mmio,
                XW_MMIO_N, CAUSE_ECALL_U, xw_mmio_end),
            .a0 = VIRT_UART, .a1 = VIRT_MTIME,
        }, {
            WIN("MMIO first in its block", RT_MODE_U, xw_mmio_first,
                XW_MMIO_FIRST_N, CAUSE_ECALL_U, xw_mmio_first_end),
            .a0 = VIRT_UART,
        }, {
            WIN("MMIO in S-mode", RT_MODE_S, xw_mmio,
                XW_MMIO_N, CAUSE_ECALL_S, xw_mmio_end),
            .a0 = VIRT_UART, .a1 = VIRT_MTIME,
        },
    };

    rt_printf("6. MMIO\n");
    for (unsigned i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
        run_win(&wins[i], &r);
    }
}

/* ------------------------------------------------------------------ */
/* 7. Instructions that end a block */

static void sum_off(void)
{
    csr_clear(CSR_MSTATUS, MSTATUS_SUM);
}

static void test_block_end(void)
{
    struct xr_run r;
    const struct win wins[] = {
        {
            WIN("csrw sscratch", RT_MODE_S, xw_sscratch,
                XW_BLKEND_N, CAUSE_ECALL_S, xw_sscratch_end),
        }, {
            WIN("csrs sstatus.SUM", RT_MODE_S, xw_sstatus,
                XW_BLKEND_N, CAUSE_ECALL_S, xw_sstatus_end), .a1 = MSTATUS_SUM,
            .teardown = sum_off,
        }, {
            WIN("sfence.vma", RT_MODE_S, xw_sfence,
                XW_BLKEND_N, CAUSE_ECALL_S, xw_sfence_end),
        }, {
            WIN("fence.i", RT_MODE_U, xw_fencei,
                XW_BLKEND_N, CAUSE_ECALL_U, xw_fencei_end),
        },
    };
    static const unsigned long cfgs[] = { 0, CFG_MINH };
    uint64_t out[4];

    rt_printf("7. instructions that end a block\n");
    for (unsigned i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
        run_win(&wins[i], &r);
    }

    /*
     * csrw minstret in M-mode: "if a CSR access instruction writes such
     * a CSR, the write is done instead of the increment", and a CSR
     * read "reads the value prior to the execution of the instruction".
     * With MINH = 0: the csrr right after the csrw reads V, the csrr 3
     * instructions later V + 4 (that csrr and 3 addi), the csrrw after
     * it reads V + 5 and writes V, which the last csrr reads.  With
     * MINH = 1 nothing counts: V every time.
     */
    for (unsigned i = 0; i < 2; i++) {
        uint64_t v = 0x123456789aUL + i * 1000;
        unsigned c = !cfgs[i];

        csr_write(CSR_MINSTRETCFG, cfgs[i]);
        xr_m_wminstret(v, out);
        csr_write(CSR_MINSTRETCFG, CFG_MINH);
        CHECK_EQ(out[0], v);
        CHECK_EQ(out[1], v + 4 * c);
        CHECK_EQ(out[2], v + 5 * c);
        CHECK_EQ(out[3], v);
    }
}

/* ------------------------------------------------------------------ */
/* 8. Debug triggers */

static bool have_sdtrig;

static void trig_x_setup(void)
{
    csr_write(CSR_TSELECT, 0);
    csr_write(CSR_TDATA1, TDATA1_TYPE(6));      /* off while tdata2 moves */
    csr_write(CSR_TDATA2, (uintptr_t)xw_trig_x_trap);
    /* mcontrol6: execute, U-mode, action 0 (breakpoint exception) */
    csr_write(CSR_TDATA1, TDATA1_TYPE(6) | MC_EXEC | MC_U);
}

static void trig_x_teardown(void)
{
    csr_write(CSR_TSELECT, 0);
    csr_write(CSR_TDATA1, TDATA1_TYPE(6));
}

static void trig_st_setup(void)
{
    csr_write(CSR_TSELECT, 1);
    csr_write(CSR_TDATA1, TDATA1_TYPE(2));
    csr_write(CSR_TDATA2, (uintptr_t)&watch_word);
    /* mcontrol: store, U-mode, action 0, timing 0 (before), any size */
    csr_write(CSR_TDATA1, TDATA1_TYPE(2) | MC_STORE | MC_U);
}

static void trig_st_teardown(void)
{
    csr_write(CSR_TSELECT, 1);
    csr_write(CSR_TDATA1, TDATA1_TYPE(2));
    csr_write(CSR_TSELECT, 0);
}

static void test_triggers(void)
{
    struct xr_run r;
    /*
     * Action 0 raises a breakpoint exception.  Timing 0 (before, and
     * always for execute with mcontrol6): "The action for this trigger
     * will be taken just before the instruction that triggered it is
     * retired, but after all preceding instructions are retired. xepc
     * ... must be set to the virtual address of the instruction that
     * matched": the instruction does not retire, those before it did.
     * "If mtval is written with a nonzero value when a breakpoint ...
     * exception occurs ..., then mtval will contain the faulting
     * virtual address": the instruction's for execute, the store's.
     */
    const struct win wins[] = {
        {
            WIN("execute trigger", RT_MODE_U, xw_trig_x,
                XW_TRIG_N, CAUSE_BREAKPOINT, xw_trig_x_trap),
            .tk = TVAL_EQ_OR_0, .tval = (uintptr_t)xw_trig_x_trap,
            .setup = trig_x_setup, .teardown = trig_x_teardown,
        }, {
            WIN("store trigger (before)", RT_MODE_U, xw_trig_st,
                XW_TRIG_N, CAUSE_BREAKPOINT, xw_trig_st_trap),
            .tk = TVAL_EQ_OR_0, .tval = (uintptr_t)&watch_word,
            .a0 = (uintptr_t)&watch_word,
            .setup = trig_st_setup, .teardown = trig_st_teardown,
        },
    };

    rt_printf("8. debug triggers\n");
    if (!have_sdtrig) {
        return;     /* already a failed check */
    }
    for (unsigned i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
        run_win(&wins[i], &r);
    }
}

/* ------------------------------------------------------------------ */
/* 9. Page crossing */

static void xpages_setup(void)
{
    /* the page after each window: readable, not executable for U */
    pmp_page(0, (uintptr_t)xw_xpage1_e + 4096, PMP_R | PMP_W);
    pmp_page(1, (uintptr_t)xw_xpage2_e + 4096, PMP_R | PMP_W);
}

static void test_page_cross(void)
{
    struct xr_run r;
    uintptr_t n2 = (uintptr_t)xw_xpage2_e + 4096;
    /*
     * The fetch from the page U-mode may not execute raises an
     * instruction access fault at the instruction, which does not
     * retire.  "If mtval is written with a nonzero value when an
     * instruction access-fault or page-fault exception occurs on a
     * system with variable-length instructions, then mtval will contain
     * the virtual address of the portion of the instruction that caused
     * the fault, while mepc will point to the beginning of the
     * instruction."
     */
    const struct win wins[] = {
        {
            WIN("straight-line to a non-executable page", RT_MODE_U, xw_xpage1,
                XW_XPAGE1_N, CAUSE_FETCH_ACCESS, xw_xpage1_n),
            .tk = TVAL_EQ_OR_0, .tval = (uintptr_t)xw_xpage1_n,
            .setup = xpages_setup, .teardown = pmp_base,
        }, {
            WIN("instruction straddling the boundary", RT_MODE_U, xw_xpage2,
                XW_XPAGE2_N, CAUSE_FETCH_ACCESS, xw_xpage2_x),
            .tk = TVAL_EQ_OR_0, .tval = n2,
            .setup = xpages_setup, .teardown = pmp_base,
        },
    };

    rt_printf("9. page crossing\n");
    for (unsigned i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
        run_win(&wins[i], &r);
    }
}

/* ------------------------------------------------------------------ */
/* 10. Interrupts */

static void timer_on(void)
{
    mtimecmp_write(mtime_read() + LOOP_IRQ_DELTA);
    csr_write(CSR_MIE, MIP_MTIP);
}

static void timer_off(void)
{
    csr_write(CSR_MIE, 0);
    mtimecmp_write(-1UL);
}

static void test_interrupts(bool icount)
{
    struct xr_run r;
    /*
     * An interrupt is taken between two instructions: every instruction
     * of the loop retires exactly once, wherever the interrupts hit.
     */
    const struct win loop = {
        WIN("loop interrupted by the M timer", RT_MODE_S, xw_loop,
            XW_LOOP_INSNS * LOOP_ITERATIONS, CAUSE_ECALL_S, xw_loop_end),
        .a0 = LOOP_ITERATIONS, .irq_delta = LOOP_IRQ_DELTA,
        .setup = timer_on, .teardown = timer_off,
    };

    rt_printf("10. interrupts\n");
    run_win(&loop, &r);
    CHECK_EQ(r.out_a0, 0);
    CHECK_EQ(r.out_a1, LOOP_ITERATIONS);
    /* several interrupts did come (their number is not part of it) */
    rt_printf("  %lu timer interrupts\n", (unsigned long)r.nirq);
    if (icount) {
        CHECK(r.nirq >= 2);
    }
}

/* ------------------------------------------------------------------ */

static unsigned long detect_extensions(void)
{
    unsigned long f = 0;

    /* senvcfg.LPE is read-only 0 without Zicfilp */
    csr_set(CSR_SENVCFG, ENVCFG_LPE);
    if (csr_read(CSR_SENVCFG) & ENVCFG_LPE) {
        f |= F_ZICFILP;
    }
    csr_clear(CSR_SENVCFG, ENVCFG_LPE);
    /* ssp and jvt exist with Zicfiss and Zcmt only */
    if (RT_TRAP_CAUSE(csr_read(CSR_SSP)) == RT_NO_TRAP) {
        f |= F_ZICFISS;
    }
    if (RT_TRAP_CAUSE(csr_read(CSR_JVT)) == RT_NO_TRAP) {
        f |= F_ZCMT;
    }
    return f;
}

static void check_sdtrig(void)
{
    unsigned long want = TDATA1_TYPE(6) | MC_EXEC | MC_U;
    unsigned long got = 0;

    have_sdtrig = CHECK_EQ(RT_TRAP_CAUSE(csr_write(CSR_TSELECT, 0)),
                           RT_NO_TRAP);
    if (have_sdtrig) {
        csr_write(CSR_TDATA2, 0);
        csr_write(CSR_TDATA1, want);
        got = csr_read(CSR_TDATA1);
        csr_write(CSR_TDATA1, TDATA1_TYPE(6));
        have_sdtrig = CHECK_EQ(got, want);
    }
}

int main(void)
{
    uint64_t word = *(volatile uint64_t *)CONFIG_ADDR;  /* -device loader */
    unsigned long want;

    rt_printf("Smcntrpmf: minstret on early block exits\n");
    if (!CHECK_EQ(word >> 32, CONFIG_MAGIC)) {
        rt_printf("no configuration word at 0x%lx (see the head comment)\n",
                  CONFIG_ADDR);
        return 1;
    }
    want = word & F_EXTENSIONS;
    rt_printf("configuration: %sicount%s%s%s\n",
              (word & F_ICOUNT) ? "" : "no ",
              (want & F_ZICFILP) ? ", Zicfilp" : "",
              (want & F_ZICFISS) ? ", Zicfiss" : "",
              (want & F_ZCMT) ? ", Zcmt" : "");
    if (!CHECK_EQ(detect_extensions(), want)) {
        rt_printf("  the extensions found differ from the word's\n");
    }
    check_sdtrig();

    csr_write(CSR_MCOUNTINHIBIT, 0);
    csr_write(CSR_MINSTRETCFG, CFG_MINH);
    csr_clear(CSR_MSTATUS, MSTATUS_TW | MSTATUS_SIE);
    csr_write(CSR_MIE, 0);
    mtimecmp_write(-1UL);
    pmp_base();

    test_wfi();
    if (want & F_ZICFILP) {
        test_zicfilp();
    }
    if (want & F_ZICFISS) {
        test_zicfiss();
    }
    if (want & F_ZCMT) {
        test_zcmt();
    }
    test_exceptions();
    test_mmio();
    test_block_end();
    test_triggers();
    test_page_cross();
    test_interrupts(word & F_ICOUNT);

    csr_write(CSR_MINSTRETCFG, 0);
    csr_write(CSR_PMPADDR0, -1UL);
    csr_write(CSR_PMPCFG0, PMP_NAPOT | PMP_R | PMP_W | PMP_X);
    return 0;
}
