/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Robustness sweep of the CTR (Smctr/Ssctr 1.0), Smcntrpmf 1.0,
 * Sscofpmf, Smcdeleg/Ssccfg and Smrnmi registers, from every privilege
 * mode, with a fixed-seed xorshift PRNG.
 *
 * 1. Sweep.  Every register below is accessed from M, HS (S without H),
 *    U, VS and VU with csrrw, csrrs, csrrc, csrrwi, csrrsi and csrrci,
 *    writing 0, all-ones, single bits, their complements, random and
 *    register-specific random values:
 *      mctrctl 0x34e, sctrctl 0x14e, vsctrctl 0x24e, sctrstatus 0x14f,
 *      sctrdepth 0x15f, siselect 0x150, sireg/2/3/4/5/6 (0x151..0x157),
 *      vsiselect 0x250, vsireg/2/3/4/5/6 (0x251..0x257), mcyclecfg 0x321,
 *      minstretcfg 0x322, mhpmevent3..31 (0x323..0x33f), mcountinhibit
 *      0x320, scountinhibit 0x120 and mnstatus 0x744.
 *    The sireg* accesses run with siselect/vsiselect set to CTR entries
 *    below and at or beyond the depth, 0x1ff, 0x300 and random values
 *    (never the Smcdeleg counter range 0x40..0x5f, whose registers are
 *    outside this test).  Each access makes exactly three checks:
 *    (a) the trap: none, or exactly the cause the specifications give:
 *        M-level CSRs raise illegal-instruction (2) below M-mode, also
 *        from VS/VU; S-level CSRs raise 2 from U and virtual-instruction
 *        (22) from VU; H-level CSRs (vsctrctl, vsiselect, vsireg*) 2 from
 *        U and 22 from VS/VU, and 2 everywhere without H; sctrdepth 22
 *        from VS ("sctrdepth": "Attempts to access sctrdepth from
 *        VS-mode or VU-mode raise a virtual-instruction exception");
 *        scountinhibit raises 2 from every mode while menvcfg.CDE=0 and
 *        22 from VS/VU while CDE=1 (Smcdeleg, "Supervisor Counter
 *        Inhibit"); sireg* with a selector no extension implements is
 *        UNSPECIFIED (Sscsrind: "The behavior upon accessing sireg* ...
 *        while siselect holds a value that is not implemented ... is
 *        UNSPECIFIED"), so no trap, 2 or (from VS) 22 are all accepted;
 *    (b) without a trap, the value the instruction read (the old value)
 *        and the value read back right after it (no control transfer
 *        in between) are legal and match a model of the register; after
 *        a trap, the read-back traps as well (nothing was written);
 *        the instruction and its read-back run from a stub generated in
 *        RAM, and traps are recorded like RT_TRAP_CAUSE does, except
 *        that both instructions may trap (robust_trap());
 *    (c) M-mode then reads all the registers and finds exactly what the
 *        model expects (no other register changed), sctrstatus legal and
 *        the entries at or beyond the depth 0.
 *    The model, with the rule for each register:
 *    - mctrctl: only U, S, M, RASEMU, STE, MTE, BPFRZ, LCOFIFRZ and the
 *      filter bits 47:33 without 39:38 exist ("Control Registers": "All
 *      unimplemented fields are read-only 0, while all implemented fields
 *      are writable"; M, S, U, BPFRZ are mandatory, LCOFIFRZ with
 *      Sscofpmf); the writable set is probed once and then every write
 *      must read back as the written value masked with it;
 *    - sctrctl: mctrctl with "Bits 2 and 9 ... read-only 0"; a write
 *      leaves mctrctl.M and MTE as they were; vsctrctl likewise (its
 *      bits 2 and 9 are WPRI), and sctrctl is vsctrctl while V=1;
 *    - sctrdepth: DEPTH is WARL over the supported encodings (probed:
 *      the ones that read back as written); a reserved ('101', '11x') or
 *      unsupported encoding reads back as a supported one; bits 31:3 are
 *      WPRI, read-only 0;
 *    - sctrstatus: only FROZEN and the WRPTR bits below the depth are
 *      writable ("Bits above those needed to represent depth-1 ... are
 *      read-only 0", "Undefined bits ... must be implemented as
 *      read-only 0"); WRPTR < depth at all times;
 *    - entry registers ("Entry Registers"): at an entry >= depth
 *      "All Entry Registers read as '0' and are read-only"; sireg4..6
 *      "are read-only 0"; ctrsource and ctrtarget hold every valid
 *      address (checked with Sv39-canonical values), ctrtarget.MISP is
 *      read-only 0 (QEMU has no predictor, docs/system/riscv/ctr.rst);
 *      ctrdata has only TYPE, CCV and CC, never holds an implemented bit
 *      that was not written, keeps CCM when CCV is implemented ("must
 *      implement CCV and all CCM bits") and TYPE is WARL over the
 *      encodings of the "Control Transfer Type" table: the reserved 6
 *      and 7 are not legal values, so they must not read back (our
 *      reading of WARL: "guaranteeing to return a legal value");
 *    - siselect/vsiselect: WARL, "will support the value range 0..0xFFF
 *      at a minimum", so such a value reads back as written;
 *    - mcyclecfg/minstretcfg (Smcntrpmf): only MINH, SINH, UINH and with
 *      H VSINH, VUINH; OF and 57:0 read 0;
 *    - mhpmevent3..31 (Sscofpmf): OF and the xINH bits of the implemented
 *      modes are writable (VSINH/VUINH read-only 0 without H) in an
 *      implemented counter, everything is 0 in one that is read-only 0;
 *      the WPRI bits 57:56 must read 0 (checked once per register with
 *      an all-ones write, not in the sweep, to keep the output short);
 *    - mcountinhibit: bit 1 (TM) and 63:32 read 0, the writable bits are
 *      probed once;
 *    - scountinhibit: "a masked alias of mcountinhibit.  For counters
 *      delegated to S-mode, the associated mcountinhibit bits can be
 *      accessed via scountinhibit.  For counters not delegated ... the
 *      associated bits in scountinhibit are read-only zero": a write
 *      changes only the delegated mcountinhibit bits;
 *    - mnstatus (Smrnmi): NMIE stays 1 ("Software can set NMIE to 1, but
 *      attempts to clear NMIE have no effect"), MNPP is WARL (the
 *      bytefield marks it so; "encoded in the same manner as
 *      mstatus.MPP", which "can hold only privilege mode x and any
 *      implemented privilege mode lower than x"): 0, 1 and 3 read back
 *      as written and 2 reads back as one of them; MNPV is writable
 *      with H and 0 without; the reserved bits read 0.
 * 2. Execution.  Random code (forward branches taken and not taken with
 *    NTBREN, c.beqz/c.bnez, jal with x0/x1/x5/other links, c.j, jalr and
 *    c.jr/c.jalr jumps and calls, co-routine swaps, returns, calls with
 *    x1 and x5, ecall, ebreak, CSR reads that may trap, nops) is written
 *    to RAM, made visible with fence.i and run in a random mode, with
 *    mctrctl = M|S|U|NTBREN (all types recorded) plus random RASEMU,
 *    MTE, STE, BPFRZ, LCOFIFRZ, vsctrctl likewise, a random depth and
 *    WRPTR, and random mcyclecfg/minstretcfg.  Afterwards every valid
 *    entry (ctrsource.V=1) has a TYPE of the table other than 0 and the
 *    reserved 6 and 7, MISP=0 and no undefined ctrdata bit; entries at or
 *    beyond the depth read 0; something was recorded (without RASEMU);
 *    minstret did not move when the modes the hart ran in (M and the
 *    chosen one) are all inhibited and moved otherwise, mcycle did not
 *    move when they are all inhibited (Smcntrpmf "Counter Behavior").
 * 3. MNRET: to every mode (MNPP 0, 1, 3, MNPV with H) it returns to the
 *    mode mnstatus holds; last, MNPP=2 is written and MNRET executed:
 *    MNPP must read back as a legal mode and MNRET must return to it.
 *    (QEMU builds that store MNPP=2 abort in riscv_cpu_set_mode() here.)
 *
 * A few direct checks come first: the extensions of the configuration
 * are present, the writable masks, "scountinhibit" with a partial
 * delegation and with menvcfg.CDE=0, ctrdata TYPE 6/7, mhpmevent WPRI
 * bits, MNPP=2.
 *
 * Run with
 *   -cpu rv64,smctr=on,ssctr=on,smcsrind=on,sscsrind=on,h=on,
 *        smcntrpmf=on,sscofpmf=on,smstateen=on,smrnmi=on,smcdeleg=on,
 *        ssccfg=on
 * (or h=off).  The number of checks depends only on the configuration
 * (H or not) and on the iteration count, not on the seed.
 *
 * Other seeds and longer runs: a generic loader can put a 64-bit word
 * at CONFIG_ADDR before the program starts:
 *   -device loader,addr=0x80fff000,data=0x524f4255SSSSSSNN,data-len=8
 * 0x524f4255 ("ROBU") in the upper half marks it; SSSSSS (24 bits) is
 * the seed (0: DEFAULT_SEED) and NN the number of rounds (0:
 * DEFAULT_ROUNDS).  Each round is one sweep of every register, mode and
 * instruction in a random order plus EXEC_PER_ROUND random programs
 * (about 0.15 s with H).  Without the word DEFAULT_SEED and
 * DEFAULT_ROUNDS (4) are used.  For example, seed 0x1234 with 100
 * (0x64) rounds, about 17 s:
 *   -device loader,addr=0x80fff000,data=0x524f425500123464,data-len=8
 * The seed and round count are printed at start; a failure prints the
 * register, mode, instruction and values involved, and statistics of
 * what the run covered are printed at the end.
 */

#include "rt.h"
#include "ctr-decode.h"
#include "ctr-entry.h"

#define CONFIG_ADDR         0x80fff000UL
#define CONFIG_MAGIC        0x524f4255UL        /* "ROBU" */
#define DEFAULT_SEED        0x5eed01UL
#define DEFAULT_ROUNDS      4
#define EXEC_PER_ROUND      64

#define CSR_SCOUNTINHIBIT   0x120
#define CSR_VSIREG4         0x255
#define CSR_VSIREG5         0x256
#define CSR_VSIREG6         0x257
#define CSR_MNEPC           0x741
#define CSR_MNSTATUS        0x744
#define CSR_SCOUNTOVF       0xda0

#define MENVCFG_CDE         (1UL << 60)
#define COUNTEREN_CY        (1UL << 0)
#define COUNTEREN_IR        (1UL << 2)
#define COUNTEREN_HPM3      (1UL << 3)

#define MNSTATUS_NMIE       (1UL << 3)
#define MNSTATUS_MNPV       (1UL << 7)
#define MNSTATUS_MNPELP     (1UL << 9)
#define MNSTATUS_MNPP_SHIFT 11
#define MNSTATUS_MNPP       (3UL << MNSTATUS_MNPP_SHIFT)

/* xctrctl[47:33] without the WPRI bits 39:38 */
#define CTRCTL_FILTERS      ((0x1fUL << 33) | (0xffUL << 40))
#define CTRCTL_LEGAL_M      (CTRCTL_U | CTRCTL_S | CTRCTL_M |            \
                             CTRCTL_RASEMU | CTRCTL_STE | CTRCTL_MTE |   \
                             CTRCTL_BPFRZ | CTRCTL_LCOFIFRZ |            \
                             CTRCTL_FILTERS)
#define CTRCTL_M_ONLY       (CTRCTL_M | CTRCTL_MTE)
#define CTRCTL_LEGAL_S      (CTRCTL_LEGAL_M & ~CTRCTL_M_ONLY)

#define CTRDATA_DEFINED     (CTRDATA_TYPE_MASK | CTRDATA_CCV |           \
                             CTRDATA_CC_MASK)
#define CTRDATA_CCM         (0xfffULL << CTRDATA_CC_SHIFT)
#define NR_ENTRIES          256

/* OF and the five xINH bits of mhpmevent; bits 57:56 are WPRI. */
#define EVENT_SSCOF_BITS    (0x3fUL << 58)
#define EVENT_TOP_BYTE      (0xffUL << 56)

#define NR_EVENTS           32      /* mhpmevent3..31 at index 3..31 */

/* Instruction encodings */
#define OPC_SYSTEM          0x73
#define INSN_NOP            0x00000013
#define INSN_ECALL          0x00000073
#define INSN_EBREAK         0x00100073
#define INSN_RET            0x00008067  /* jalr x0, 0(x1) */
#define REG_RA              1
#define REG_T0              5
#define REG_T1              6
#define REG_T2              7
#define REG_A0              10
#define REG_A1              11
#define REG_A7              17
#define REG_T6              31

/* Modes as enum rt_mode: (V << 2) | priv */
#define MODE_PRIV(m)        ((m) & 3)
#define MODE_V(m)           (((m) & 4) != 0)

enum op {
    OP_RW, OP_RS, OP_RC, OP_RWI, OP_RSI, OP_RCI, NR_OPS
};

static const char *const op_names[NR_OPS] = {
    "csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci",
};

enum kind {
    K_MCTRCTL, K_SCTRCTL, K_VSCTRCTL, K_SCTRSTATUS, K_SCTRDEPTH,
    K_SISELECT, K_SIREG, K_VSISELECT, K_VSIREG, K_CFG, K_EVENT, K_MCI,
    K_SCI, K_MNSTATUS,
};

/* Privilege level of a CSR (CSR number bits 9:8): M, S or H. */
enum level { L_M, L_S, L_H };

struct csr_desc {
    const char *name;
    uint16_t num;
    uint8_t kind;
    uint8_t level;
    uint8_t idx;            /* sireg number, cfg 0/1, mhpmevent number */
};

static const struct csr_desc fixed_csrs[] = {
    { "mctrctl", CSR_MCTRCTL, K_MCTRCTL, L_M, 0 },
    { "sctrctl", CSR_SCTRCTL, K_SCTRCTL, L_S, 0 },
    { "vsctrctl", CSR_VSCTRCTL, K_VSCTRCTL, L_H, 0 },
    { "sctrstatus", CSR_SCTRSTATUS, K_SCTRSTATUS, L_S, 0 },
    { "sctrdepth", CSR_SCTRDEPTH, K_SCTRDEPTH, L_S, 0 },
    { "siselect", CSR_SISELECT, K_SISELECT, L_S, 0 },
    { "sireg", CSR_SIREG, K_SIREG, L_S, 1 },
    { "sireg2", CSR_SIREG2, K_SIREG, L_S, 2 },
    { "sireg3", CSR_SIREG3, K_SIREG, L_S, 3 },
    { "sireg4", CSR_SIREG4, K_SIREG, L_S, 4 },
    { "sireg5", CSR_SIREG5, K_SIREG, L_S, 5 },
    { "sireg6", CSR_SIREG6, K_SIREG, L_S, 6 },
    { "vsiselect", CSR_VSISELECT, K_VSISELECT, L_H, 0 },
    { "vsireg", CSR_VSIREG, K_VSIREG, L_H, 1 },
    { "vsireg2", CSR_VSIREG2, K_VSIREG, L_H, 2 },
    { "vsireg3", CSR_VSIREG3, K_VSIREG, L_H, 3 },
    { "vsireg4", CSR_VSIREG4, K_VSIREG, L_H, 4 },
    { "vsireg5", CSR_VSIREG5, K_VSIREG, L_H, 5 },
    { "vsireg6", CSR_VSIREG6, K_VSIREG, L_H, 6 },
    { "mcyclecfg", CSR_MCYCLECFG, K_CFG, L_M, 0 },
    { "minstretcfg", CSR_MINSTRETCFG, K_CFG, L_M, 1 },
    { "mcountinhibit", CSR_MCOUNTINHIBIT, K_MCI, L_M, 0 },
    { "scountinhibit", CSR_SCOUNTINHIBIT, K_SCI, L_S, 0 },
    { "mnstatus", CSR_MNSTATUS, K_MNSTATUS, L_M, 0 },
};

#define NR_FIXED    (sizeof(fixed_csrs) / sizeof(fixed_csrs[0]))
#define NR_CSRS     (NR_FIXED + NR_EVENTS - 3)

static struct csr_desc csrs[NR_CSRS];

/* What M-mode reads back of every register the model tracks. */
struct state {
    unsigned long mctrctl, vsctrctl, depth, isel, visel;
    unsigned long cfg[2];
    unsigned long ev[NR_EVENTS];
    unsigned long mci, mnstatus, mcounteren, menvcfg;
};

/* Bits of the check (c) mask */
enum {
    G_MCTRCTL = 1 << 0,
    G_VSCTRCTL = 1 << 1,
    G_DEPTH = 1 << 2,
    G_ISEL = 1 << 3,
    G_VISEL = 1 << 4,
    G_CFG = 1 << 5,
    G_EVENT = 1 << 6,
    G_MCI = 1 << 7,
    G_MNSTATUS = 1 << 8,
    G_COUNTEREN = 1 << 9,
    G_ENVCFG = 1 << 10,
    G_STATUS = 1 << 11,         /* sctrstatus not legal */
    G_BEYOND = 1 << 12,         /* an entry >= depth is not 0 */
};

/* Bits of the check (b) mask */
enum {
    V_OLD = 1 << 0,             /* value read differs from the model */
    V_RB = 1 << 1,              /* read-back differs from the model */
    V_ILLEGAL = 1 << 2,         /* read-back is not a legal WARL value */
    V_RSV = 1 << 3,             /* a reserved/WPRI bit reads 1 */
    V_TYPE = 1 << 4,            /* ctrdata.TYPE is 6 or 7 */
    V_MISP = 1 << 5,            /* ctrtarget.MISP reads 1 */
};

/* Outcomes an access may have */
enum { A_NONE = 1, A_ILL = 2, A_VIRT = 4 };

/* One access: the instruction, its operand and what happened. */
struct access {
    const struct csr_desc *d;
    int mode;
    int op;
    unsigned long val;      /* rs1 value, or the uimm */
    unsigned long old;      /* rd of the instruction */
    unsigned long rb;       /* csrr right after it */
    long cause;             /* first trap, RT_NO_TRAP if none */
    unsigned traps;
};

/*
 * Code buffers, each on pages of its own so that rewriting one does not
 * invalidate translations of anything else: the access stub, the M-mode
 * mhpmevent accessors and the random programs.
 */
static uint32_t acc_buf[1024] __attribute__((aligned(4096)));
static uint32_t ev_buf[1024] __attribute__((aligned(4096)));
static uint16_t exec_buf[4096] __attribute__((aligned(4096)));

/* Configuration, found at start */
static int modes[5];
static unsigned nr_modes;
static bool has_sscofpmf;
static unsigned long ctl_w_m;       /* writable mctrctl bits */
static unsigned long ctl_w_vs;      /* writable vsctrctl bits */
static unsigned depth_ok;           /* bit d: DEPTH encoding d supported */
static unsigned long mci_w;         /* writable mcountinhibit bits */
static uint32_t ev_impl;            /* bit i: mhpmevent i implemented */
static unsigned long cfg_w;         /* xINH bits of the implemented modes */
static bool type_impl;              /* ctrdata.TYPE is implemented */

/* Trap bookkeeping, shared with robust_trap() */
enum phase { PH_ACCESS, PH_EXEC, PH_MNRET };
static volatile enum phase phase;       /* volatile: read by the handler */
static volatile long trap_first;        /* volatile: set by the handler */
static volatile unsigned trap_count;    /* volatile: set by the handler */
static volatile unsigned exec_traps;    /* volatile: set by the handler */
static volatile int mnret_mode;         /* volatile: set by the handler */

/* Statistics, printed at the end */
static unsigned long nr_accesses;
static unsigned long nr_outcomes[K_MNSTATUS + 1][3];
static unsigned long nr_entry_rw;   /* sireg* on an entry below depth */
static unsigned long nr_types[16];
static unsigned long nr_programs[8], nr_frozen;

static uint64_t rng;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static unsigned rnd_below(unsigned n)
{
    return rnd() % n;
}

static void fence_i(void)
{
    asm volatile("fence.i" : : : "memory");
}

static unsigned long depth_of(unsigned long sctrdepth)
{
    return 16UL << (sctrdepth & 7);
}

static bool depth_legal(unsigned long v)
{
    return v <= 7 && (depth_ok & (1u << v));
}

static bool sv39_canonical(unsigned long v)
{
    long hi = (long)v >> 38;

    return hi == 0 || hi == -1;
}

static bool type_reserved(unsigned long type)
{
    return type == 6 || type == 7;
}

static bool sel_is_ctr(unsigned long sel)
{
    return sel >= CTR_ISELECT_FIRST && sel <= CTR_ISELECT_LAST;
}

/* mhpmevent<i> from M-mode, through stubs made once at start. */
static unsigned long ev_read(unsigned i)
{
    unsigned long (*fn)(void) =
        (unsigned long (*)(void))(uintptr_t)&ev_buf[i * 4];

    return fn();
}

static void ev_write(unsigned i, unsigned long v)
{
    void (*fn)(unsigned long) =
        (void (*)(unsigned long))(uintptr_t)&ev_buf[i * 4 + 2];

    fn(v);
}

static uint32_t csr_insn(unsigned csr, unsigned funct3, unsigned rs1,
                         unsigned rd)
{
    return csr << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | OPC_SYSTEM;
}

static void make_ev_stubs(void)
{
    for (unsigned i = 3; i < NR_EVENTS; i++) {
        unsigned csr = CSR_MCOUNTINHIBIT + i;

        ev_buf[i * 4] = csr_insn(csr, 2, 0, REG_A0);        /* csrr */
        ev_buf[i * 4 + 1] = INSN_RET;
        ev_buf[i * 4 + 2] = csr_insn(csr, 1, REG_A0, 0);    /* csrw */
        ev_buf[i * 4 + 3] = INSN_RET;
    }
    fence_i();
}

static void read_state(struct state *s)
{
    s->mctrctl = csr_read(CSR_MCTRCTL);
    s->vsctrctl = rt_has_h ? csr_read(CSR_VSCTRCTL) : 0;
    s->depth = csr_read(CSR_SCTRDEPTH);
    s->isel = csr_read(CSR_SISELECT);
    s->visel = rt_has_h ? csr_read(CSR_VSISELECT) : 0;
    s->cfg[0] = csr_read(CSR_MCYCLECFG);
    s->cfg[1] = csr_read(CSR_MINSTRETCFG);
    for (unsigned i = 3; i < NR_EVENTS; i++) {
        s->ev[i] = ev_read(i);
    }
    s->mci = csr_read(CSR_MCOUNTINHIBIT);
    s->mnstatus = csr_read(CSR_MNSTATUS);
    s->mcounteren = csr_read(CSR_MCOUNTEREN);
    s->menvcfg = csr_read(CSR_MENVCFG);
}

/* ------------------------------------------------------------------ */
/* Trap handling                                                       */

static void back_to_m(struct rt_frame *f)
{
    f->status &= ~(MSTATUS_MPP | MSTATUS_MPV | MSTATUS_MPRV);
    f->status |= (unsigned long)RT_MODE_M << MSTATUS_MPP_SHIFT;
}

/*
 * Installed for illegal/virtual instruction, breakpoint and the ecalls
 * the runtime does not use.  Accesses: like RT_TRAP_CAUSE, but for the
 * two instructions of an access stub - the first cause is kept, every
 * trapping instruction is skipped.  Programs: every trap is counted and
 * skipped.  MNRET: the ecall after it reports its mode and returns to M.
 */
static void robust_trap(struct rt_frame *f, int level)
{
    unsigned long code = f->cause;

    if (code >= CAUSE_ECALL_U && code <= CAUSE_ECALL_M) {
        if (phase == PH_MNRET) {
            mnret_mode = rt_trapped_mode(level, f);
            back_to_m(f);
            f->epc += 4;
            return;
        }
        if (phase == PH_EXEC) {
            exec_traps++;
            f->epc += 4;
            return;
        }
    } else if (phase == PH_EXEC) {
        exec_traps++;
        rt_skip_insn(f);
        return;
    } else if (code == CAUSE_INSN_ILLEGAL || code == CAUSE_VIRT_INSN) {
        if (trap_count++ == 0) {
            trap_first = code;
        }
        rt_skip_insn(f);
        return;
    }
    rt_printf("FAIL: unexpected trap: level %d mode %d cause 0x%lx "
              "epc 0x%lx tval 0x%lx\n", level, rt_trapped_mode(level, f),
              f->cause, f->epc, f->tval);
    rt_exit(3);
}

static void install_handlers(void)
{
    static const unsigned long causes[] = {
        CAUSE_INSN_ILLEGAL, CAUSE_BREAKPOINT, CAUSE_ECALL_U, CAUSE_ECALL_S,
        CAUSE_ECALL_VS, CAUSE_ECALL_M, CAUSE_VIRT_INSN,
    };

    for (int level = RT_LEVEL_M; level <= RT_LEVEL_VS; level++) {
        for (unsigned i = 0; i < sizeof(causes) / sizeof(causes[0]); i++) {
            rt_set_trap_handler(level, causes[i], robust_trap);
        }
    }
}

/* ------------------------------------------------------------------ */
/* Values                                                              */

static unsigned long pick_selector(unsigned long depth)
{
    unsigned long s;

    switch (rnd_below(10)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
        return CTR_ISELECT_FIRST + rnd_below(depth);
    case 5:
        return depth < NR_ENTRIES ?
               CTR_ISELECT_FIRST + depth + rnd_below(NR_ENTRIES - depth) :
               CTR_ISELECT_LAST;
    case 6:
        return CTR_ISELECT_FIRST - 1;
    case 7:
        return CTR_ISELECT_LAST + 1;
    case 8:
        s = rnd() & 0xfff;
        break;
    default:
        s = rnd();
        break;
    }
    /* Keep clear of the Smcdeleg counter range 0x40..0x5f. */
    if ((s & 0xfff) >= 0x40 && (s & 0xfff) <= 0x5f) {
        s ^= 0x100;
    }
    return s;
}

/* A random address every ctrsource/ctrtarget must hold, V/MISP random. */
static unsigned long pick_address(void)
{
    if (rnd_below(2)) {
        return 0x80000000UL + (rnd() & 0xffffff);
    }
    return (unsigned long)((long)(rnd() << 25) >> 25);
}

static unsigned long special_value(const struct csr_desc *d,
                                   const struct state *s)
{
    switch (d->kind) {
    case K_MCTRCTL:
    case K_SCTRCTL:
    case K_VSCTRCTL:
        return rnd() & CTRCTL_LEGAL_M;
    case K_SCTRSTATUS:
        return (rnd() & (SCTRSTATUS_FROZEN | 0xff)) | (rnd() & ~0xffUL);
    case K_SCTRDEPTH:
        return rnd_below(8);
    case K_SISELECT:
    case K_VSISELECT:
        return pick_selector(depth_of(s->depth));
    case K_SIREG:
    case K_VSIREG:
        if (d->idx == 3) {
            return (rnd() & (CTRDATA_TYPE_MASK | CTRDATA_CCV |
                             CTRDATA_CC_MASK)) | (rnd() & ~0xffffffffUL);
        }
        return pick_address();
    case K_CFG:
    case K_EVENT:
        return (rnd() & EVENT_TOP_BYTE) | rnd_below(4);
    case K_MCI:
    case K_SCI:
        return rnd() & 0xffffffffUL;
    default:
        return (rnd() & (MNSTATUS_NMIE | MNSTATUS_MNPV)) |
               ((unsigned long)rnd_below(4) << MNSTATUS_MNPP_SHIFT);
    }
}

static unsigned long pick_value(const struct csr_desc *d,
                                const struct state *s)
{
    switch (rnd_below(11)) {
    case 0:
        return 0;
    case 1:
        return -1UL;
    case 2:
        return 1UL << rnd_below(64);
    case 3:
        return ~(1UL << rnd_below(64));
    case 4:
    case 5:
        return rnd();
    case 6:
        return rnd() & rnd() & rnd();
    default:
        return special_value(d, s);
    }
}

static unsigned long pick_uimm(void)
{
    switch (rnd_below(4)) {
    case 0:
        return 0;
    case 1:
        return 31;
    case 2:
        return 1UL << rnd_below(5);
    default:
        return rnd_below(32);
    }
}

/* ------------------------------------------------------------------ */
/* Accesses                                                            */

struct pair {
    unsigned long a0, a1;
};

/*
 * The access stub: "csrrX a0, csr, a1/uimm; csrr a1, csr; ret", called
 * as fn(0, value); no control transfer separates the two CSR accesses,
 * so a CTR recording active in the mode cannot move entries or WRPTR
 * between them.
 */
static void make_access_stub(const struct access *a)
{
    static const unsigned funct3[NR_OPS] = { 1, 2, 3, 5, 6, 7 };
    unsigned src = a->op >= OP_RWI ? (unsigned)a->val : REG_A1;

    acc_buf[0] = csr_insn(a->d->num, funct3[a->op], src, REG_A0);
    acc_buf[1] = csr_insn(a->d->num, 2, 0, REG_A1);
    acc_buf[2] = INSN_RET;
    fence_i();
}

static long run_access(long arg)
{
    struct access *a = (struct access *)arg;
    struct pair (*fn)(unsigned long, unsigned long) =
        (struct pair (*)(unsigned long, unsigned long))(uintptr_t)acc_buf;
    struct pair p = fn(0, a->val);

    a->old = p.a0;
    a->rb = p.a1;
    return 0;
}

/* The value the instruction writes, from the value it read. */
static unsigned long written(const struct access *a)
{
    switch (a->op) {
    case OP_RW:
    case OP_RWI:
        return a->val;
    case OP_RS:
    case OP_RSI:
        return a->old | a->val;
    default:
        return a->old & ~a->val;
    }
}

/* The selector the sireg* or vsireg* access @a uses, as M-mode read it. */
static unsigned long access_sel(const struct access *a,
                                const struct state *s)
{
    if (a->d->kind == K_VSIREG || MODE_V(a->mode)) {
        return s->visel;
    }
    return s->isel;
}

/* The outcomes the specifications allow for @a in state @s. */
static unsigned allowed(const struct access *a, const struct state *s)
{
    const struct csr_desc *d = a->d;
    int priv = MODE_PRIV(a->mode);
    bool v = MODE_V(a->mode);
    bool ireg = d->kind == K_SIREG || d->kind == K_VSIREG;
    bool unimpl = ireg && !sel_is_ctr(access_sel(a, s));

    if (d->level == L_H && !rt_has_h) {
        return A_ILL;                   /* no such CSR */
    }
    if (d->kind == K_SCI) {
        /*
         * "When menvcfg.CDE=0, attempts to access scountinhibit raise
         * an illegal instruction exception."
         */
        if (!(s->menvcfg & MENVCFG_CDE)) {
            return A_ILL;
        }
        if (v) {
            return A_VIRT;
        }
        return priv == RT_MODE_U ? A_ILL : A_NONE;
    }
    if (priv == RT_MODE_M) {
        return unimpl ? (A_NONE | A_ILL) : A_NONE;
    }
    if (d->level == L_M) {
        return A_ILL;
    }
    if (priv == RT_MODE_U) {
        return v ? A_VIRT : A_ILL;
    }
    if (v) {
        /* VS-mode */
        if (d->level == L_H || d->kind == K_SCTRDEPTH) {
            return A_VIRT;
        }
        return unimpl ? (A_NONE | A_ILL | A_VIRT) : A_NONE;
    }
    return unimpl ? (A_NONE | A_ILL) : A_NONE;
}

static unsigned outcome(long cause)
{
    switch (cause) {
    case RT_NO_TRAP:
        return A_NONE;
    case CAUSE_INSN_ILLEGAL:
        return A_ILL;
    case CAUSE_VIRT_INSN:
        return A_VIRT;
    default:
        return 0;
    }
}

static long cause_of(unsigned allow)
{
    return allow == A_ILL ? CAUSE_INSN_ILLEGAL :
           allow == A_VIRT ? CAUSE_VIRT_INSN : RT_NO_TRAP;
}

/*
 * Check (b) for an access that did not trap: compare what it read and
 * read back with the model, and put the registers M-mode should now see
 * into @exp.  Returns a mask of V_* bits.
 */
static unsigned check_value(const struct access *a, const struct state *s,
                            struct state *exp)
{
    const struct csr_desc *d = a->d;
    unsigned long w = written(a), old = a->old, rb = a->rb;
    unsigned long depth = depth_of(s->depth), mask;
    unsigned viol = 0;
    bool v = MODE_V(a->mode);

    switch (d->kind) {
    case K_MCTRCTL:
        viol |= old != s->mctrctl ? V_OLD : 0;
        exp->mctrctl = w & ctl_w_m;
        viol |= rb != exp->mctrctl ? V_RB : 0;
        break;
    case K_SCTRCTL:
        if (v) {
            viol |= old != s->vsctrctl ? V_OLD : 0;
            exp->vsctrctl = w & ctl_w_vs;
            viol |= rb != exp->vsctrctl ? V_RB : 0;
        } else {
            /* "Bits 2 and 9 in sctrctl are read-only 0" */
            mask = ctl_w_m & ~CTRCTL_M_ONLY;
            viol |= old != (s->mctrctl & ~CTRCTL_M_ONLY) ? V_OLD : 0;
            viol |= rb != (w & mask) ? V_RB : 0;
            exp->mctrctl = (s->mctrctl & CTRCTL_M_ONLY) | (w & mask);
        }
        break;
    case K_VSCTRCTL:
        viol |= old != s->vsctrctl ? V_OLD : 0;
        exp->vsctrctl = w & ctl_w_vs;
        viol |= rb != exp->vsctrctl ? V_RB : 0;
        break;
    case K_SCTRSTATUS:
        mask = SCTRSTATUS_FROZEN | (depth - 1);
        viol |= old & ~mask ? V_OLD : 0;
        viol |= rb != (w & mask) ? V_RB : 0;
        break;
    case K_SCTRDEPTH:
        viol |= old != s->depth ? V_OLD : 0;
        viol |= rb & ~7UL ? V_RSV : 0;
        if (depth_legal(w & 7)) {
            viol |= rb != (w & 7) ? V_RB : 0;
        } else {
            viol |= !depth_legal(rb) ? V_ILLEGAL : 0;
        }
        exp->depth = rb;
        break;
    case K_SISELECT:
    case K_VSISELECT:
        if (d->kind == K_VSISELECT || v) {
            viol |= old != s->visel ? V_OLD : 0;
            exp->visel = w <= 0xfff ? w : rb;
        } else {
            viol |= old != s->isel ? V_OLD : 0;
            exp->isel = w <= 0xfff ? w : rb;
        }
        viol |= w <= 0xfff && rb != w ? V_RB : 0;
        break;
    case K_SIREG:
    case K_VSIREG: {
        unsigned long sel = access_sel(a, s);

        if (!sel_is_ctr(sel)) {
            break;                      /* UNSPECIFIED */
        }
        if (d->idx < 4 && sel - CTR_ISELECT_FIRST < depth) {
            nr_entry_rw++;
        }
        if (d->idx >= 4 || sel - CTR_ISELECT_FIRST >= depth) {
            viol |= old ? V_OLD : 0;
            viol |= rb ? V_RB : 0;
            break;
        }
        if (d->idx == 1) {
            viol |= sv39_canonical(w) && rb != w ? V_RB : 0;
        } else if (d->idx == 2) {
            viol |= (old | rb) & CTRTARGET_MISP ? V_MISP : 0;
            viol |= sv39_canonical(w) && rb != (w & ~CTRTARGET_MISP) ?
                    V_RB : 0;
        } else {
            unsigned long wt = w & CTRDATA_TYPE_MASK;
            unsigned long rt = rb & CTRDATA_TYPE_MASK;

            viol |= (old | rb) & ~CTRDATA_DEFINED ? V_RSV : 0;
            viol |= type_reserved(rt) ? V_TYPE : 0;
            if (!type_impl) {
                viol |= rt ? V_RB : 0;
            } else if (!type_reserved(wt)) {
                viol |= rt != wt ? V_RB : 0;
            }
            /* Only written bits can read 1; CCM is complete with CCV. */
            viol |= rb & ~w & (CTRDATA_CCV | CTRDATA_CC_MASK) ? V_RB : 0;
            if (rb & CTRDATA_CCV) {
                viol |= (rb ^ w) & CTRDATA_CCM ? V_RB : 0;
            }
        }
        break;
    }
    case K_CFG:
        viol |= old != s->cfg[d->idx] ? V_OLD : 0;
        exp->cfg[d->idx] = w & cfg_w;
        viol |= rb != exp->cfg[d->idx] ? V_RB : 0;
        break;
    case K_EVENT:
        viol |= old != s->ev[d->idx] ? V_OLD : 0;
        if (ev_impl & (1u << d->idx)) {
            mask = CFG_OF | cfg_w;
            viol |= (rb & EVENT_SSCOF_BITS) != (w & mask) ? V_RB : 0;
            /* Event selector bits (and WPRI 57:56, see the probe). */
            exp->ev[d->idx] = (rb & ~EVENT_SSCOF_BITS) | (w & mask);
        } else {
            viol |= rb ? V_RB : 0;
            exp->ev[d->idx] = 0;
        }
        break;
    case K_MCI:
        viol |= old != s->mci ? V_OLD : 0;
        exp->mci = w & mci_w;
        viol |= rb != exp->mci ? V_RB : 0;
        break;
    case K_SCI:
        /* Delegated counters: mcounteren bit set (and menvcfg.CDE). */
        mask = s->mcounteren & mci_w;
        viol |= old != (s->mci & mask) ? V_OLD : 0;
        viol |= rb != (w & mask) ? V_RB : 0;
        exp->mci = (s->mci & ~mask) | (w & mask);
        break;
    case K_MNSTATUS: {
        unsigned long pp = w & MNSTATUS_MNPP;

        viol |= old != s->mnstatus ? V_OLD : 0;
        if (pp == (2UL << MNSTATUS_MNPP_SHIFT)) {
            pp = rb & MNSTATUS_MNPP;
            viol |= pp == (2UL << MNSTATUS_MNPP_SHIFT) ? V_ILLEGAL : 0;
        }
        exp->mnstatus = MNSTATUS_NMIE | pp |
                        (rt_has_h ? w & MNSTATUS_MNPV : 0) |
                        (rb & w & MNSTATUS_MNPELP);
        viol |= rb != exp->mnstatus ? V_RB : 0;
        break;
    }
    }
    return viol;
}

/* Check (c): M-mode's view against @exp; a mask of G_* bits. */
static unsigned check_state(const struct state *exp, const struct state *act,
                            bool print)
{
    unsigned g = 0;
    unsigned long st = csr_read(CSR_SCTRSTATUS);
    unsigned long depth = depth_of(act->depth);

    g |= exp->mctrctl != act->mctrctl ? G_MCTRCTL : 0;
    g |= exp->vsctrctl != act->vsctrctl ? G_VSCTRCTL : 0;
    g |= exp->depth != act->depth ? G_DEPTH : 0;
    g |= exp->isel != act->isel ? G_ISEL : 0;
    g |= exp->visel != act->visel ? G_VISEL : 0;
    g |= exp->cfg[0] != act->cfg[0] || exp->cfg[1] != act->cfg[1] ?
         G_CFG : 0;
    for (unsigned i = 3; i < NR_EVENTS; i++) {
        if (exp->ev[i] != act->ev[i]) {
            g |= G_EVENT;
            if (print) {
                rt_printf("    mhpmevent%u: expected 0x%lx, got 0x%lx\n",
                          i, exp->ev[i], act->ev[i]);
            }
        }
    }
    g |= exp->mci != act->mci ? G_MCI : 0;
    g |= exp->mnstatus != act->mnstatus ? G_MNSTATUS : 0;
    g |= exp->mcounteren != act->mcounteren ? G_COUNTEREN : 0;
    g |= exp->menvcfg != act->menvcfg ? G_ENVCFG : 0;
    /* WRPTR < depth; FROZEN and WRPTR are the only sctrstatus bits. */
    g |= st & ~(SCTRSTATUS_FROZEN | (depth - 1)) ? G_STATUS : 0;
    /* Entries at or beyond the depth read 0. */
    if (depth < NR_ENTRIES) {
        unsigned idx[3] = {
            depth, NR_ENTRIES - 1,
            depth + (nr_accesses * 37) % (NR_ENTRIES - depth)
        };

        for (unsigned i = 0; i < 3; i++) {
            struct ctr_entry e = ctr_read_entry(idx[i]);

            if (e.source | e.target | e.data) {
                g |= G_BEYOND;
                if (print) {
                    rt_printf("    entry %u (depth %lu): 0x%lx 0x%lx "
                              "0x%lx\n", idx[i], depth, (unsigned long)
                              e.source, (unsigned long)e.target,
                              (unsigned long)e.data);
                }
            }
        }
        csr_write(CSR_SISELECT, act->isel);
    }
    if (print && g) {
        rt_printf("    mctrctl 0x%lx/0x%lx vsctrctl 0x%lx/0x%lx "
                  "sctrdepth 0x%lx/0x%lx\n", exp->mctrctl, act->mctrctl,
                  exp->vsctrctl, act->vsctrctl, exp->depth, act->depth);
        rt_printf("    siselect 0x%lx/0x%lx vsiselect 0x%lx/0x%lx "
                  "mcyclecfg 0x%lx/0x%lx minstretcfg 0x%lx/0x%lx\n",
                  exp->isel, act->isel, exp->visel, act->visel,
                  exp->cfg[0], act->cfg[0], exp->cfg[1], act->cfg[1]);
        rt_printf("    mcountinhibit 0x%lx/0x%lx mnstatus 0x%lx/0x%lx "
                  "mcounteren 0x%lx/0x%lx menvcfg 0x%lx/0x%lx "
                  "sctrstatus 0x%lx (expected/got)\n", exp->mci, act->mci,
                  exp->mnstatus, act->mnstatus, exp->mcounteren,
                  act->mcounteren, exp->menvcfg, act->menvcfg, st);
    }
    return g;
}

static void print_access(const struct access *a, const struct state *s)
{
    rt_printf("  ^ %s", a->d->name);
    if (a->d->kind == K_EVENT) {
        rt_printf("%u", a->d->idx);
    }
    rt_printf(" from %s: %s %s0x%lx -> old 0x%lx, read back 0x%lx, "
              "cause %ld (%u traps)\n", rt_mode_name(a->mode),
              op_names[a->op], a->op >= OP_RWI ? "uimm " : "", a->val,
              a->old, a->rb, a->cause, a->traps);
    if (a->d->kind == K_SIREG || a->d->kind == K_VSIREG) {
        rt_printf("    siselect 0x%lx vsiselect 0x%lx depth %lu\n",
                  s->isel, s->visel, depth_of(s->depth));
    }
    if (a->d->kind == K_SCI) {
        rt_printf("    mcounteren 0x%lx menvcfg 0x%lx mcountinhibit 0x%lx\n",
                  s->mcounteren, s->menvcfg, s->mci);
    }
}

/* Take the accessed register's own value from @act into @exp. */
static void adopt_own(struct state *exp, const struct state *act,
                      const struct access *a)
{
    bool v = MODE_V(a->mode);

    switch (a->d->kind) {
    case K_MCTRCTL:
        exp->mctrctl = act->mctrctl;
        break;
    case K_SCTRCTL:
        if (v) {
            exp->vsctrctl = act->vsctrctl;
        } else {
            exp->mctrctl = act->mctrctl;
        }
        break;
    case K_VSCTRCTL:
        exp->vsctrctl = act->vsctrctl;
        break;
    case K_SCTRDEPTH:
        exp->depth = act->depth;
        break;
    case K_SISELECT:
        if (v) {
            exp->visel = act->visel;
        } else {
            exp->isel = act->isel;
        }
        break;
    case K_VSISELECT:
        exp->visel = act->visel;
        break;
    case K_CFG:
        exp->cfg[a->d->idx] = act->cfg[a->d->idx];
        break;
    case K_EVENT:
        exp->ev[a->d->idx] = act->ev[a->d->idx];
        break;
    case K_MCI:
    case K_SCI:
        exp->mci = act->mci;
        break;
    case K_MNSTATUS:
        exp->mnstatus = act->mnstatus;
        break;
    }
}

/* Random state an access depends on, set from M-mode. */
static void setup(const struct csr_desc *d, const struct state *s)
{
    unsigned long sel;

    if (d->kind == K_SCI) {
        csr_write(CSR_MCOUNTEREN, rnd_below(4) ? rnd() : -1UL);
        csr_write(CSR_MCOUNTINHIBIT, rnd());
        if (rnd_below(4)) {
            csr_set(CSR_MENVCFG, MENVCFG_CDE);
        } else {
            csr_clear(CSR_MENVCFG, MENVCFG_CDE);
        }
    }
    if (d->kind == K_SIREG || d->kind == K_VSIREG) {
        unsigned long depth = depth_of(s->depth);

        csr_write(CSR_SISELECT, pick_selector(depth));
        sel = csr_read(CSR_SISELECT);
        if (sel >= 0x40 && sel <= 0x5f) {
            csr_write(CSR_SISELECT, CTR_ISELECT_FIRST - 1);
        }
        if (rt_has_h) {
            csr_write(CSR_VSISELECT, pick_selector(depth));
            sel = csr_read(CSR_VSISELECT);
            if (sel >= 0x40 && sel <= 0x5f) {
                csr_write(CSR_VSISELECT, CTR_ISELECT_FIRST - 1);
            }
        }
    }
}

/* One access with its three checks (see the header comment). */
static void one_access(const struct csr_desc *d, int mode, int op)
{
    struct state s, exp, act;
    struct access a = { .d = d, .mode = mode, .op = op };
    unsigned allow, viol = 0, g;

    read_state(&s);
    setup(d, &s);
    read_state(&s);
    a.val = op >= OP_RWI ? pick_uimm() : pick_value(d, &s);
    make_access_stub(&a);

    phase = PH_ACCESS;
    trap_first = RT_NO_TRAP;
    trap_count = 0;
    if (mode == RT_MODE_M) {
        run_access((long)&a);
    } else {
        rt_call_in_mode(mode, run_access, (long)&a);
    }
    a.cause = trap_first;
    a.traps = trap_count;
    nr_accesses++;
    nr_outcomes[d->kind][a.cause == RT_NO_TRAP ? 0 :
                         a.cause == CAUSE_INSN_ILLEGAL ? 1 : 2]++;

    /* (a) the trap */
    allow = allowed(&a, &s);
    if (allow == A_NONE || allow == A_ILL || allow == A_VIRT) {
        if (!CHECK_EQ(a.cause, cause_of(allow))) {
            print_access(&a, &s);
        }
    } else if (!CHECK(outcome(a.cause) & allow)) {
        print_access(&a, &s);
    }

    /* (b) the values, or a consistent trap */
    exp = s;
    if (a.traps) {
        if (!CHECK_EQ(a.traps, 2)) {
            print_access(&a, &s);
        }
    } else {
        viol = check_value(&a, &s, &exp);
        if (!CHECK_EQ(viol, 0)) {
            print_access(&a, &s);
        }
    }

    /* (c) everything else M-mode sees */
    read_state(&act);
    if (viol) {
        /* Already reported by (b): only look for changes elsewhere. */
        adopt_own(&exp, &act, &a);
    }
    g = check_state(&exp, &act, false);
    if (!CHECK_EQ(g, 0)) {
        print_access(&a, &s);
        check_state(&exp, &act, true);
    }
}

/* Every register, from every mode, with every instruction, shuffled. */
static void sweep(void)
{
    static uint16_t order[NR_CSRS * 5 * NR_OPS];
    unsigned n = NR_CSRS * nr_modes * NR_OPS;

    for (unsigned i = 0; i < n; i++) {
        order[i] = i;
    }
    for (unsigned i = n - 1; i > 0; i--) {
        unsigned j = rnd_below(i + 1), t = order[i];

        order[i] = order[j];
        order[j] = t;
    }
    for (unsigned i = 0; i < n; i++) {
        unsigned k = order[i];

        one_access(&csrs[k / (nr_modes * NR_OPS)],
                   modes[k / NR_OPS % nr_modes], k % NR_OPS);
    }
}

/* ------------------------------------------------------------------ */
/* Random programs                                                     */

/*
 * Layout of exec_buf: two subroutines, then the program.  Every jump of
 * the program body goes forward (or to a subroutine that returns), so it
 * always ends.  t6 holds the return address; t0-t2, a0 and a7 are
 * scratch, everything else is untouched.
 */
#define EX_SUB_RA           0       /* nop; jalr x0, 0(x1) */
#define EX_SUB_T0           8       /* nop; jalr x0, 0(x5) */
#define EX_ENTRY            16

enum frag {
    F_NOP, F_BR_TAKEN, F_BR_NOT, F_BR_RAND, F_JAL_X0, F_JAL_LINK,
    F_CALL_RA, F_CALL_T0, F_ICALL, F_IJMP, F_IJMP_LINK, F_CORSWAP,
    F_RETURN, F_CJ, F_CBR, F_CJR, F_CJALR, F_ECALL, F_EBREAK, F_CSR,
    NR_FRAGS
};

/* CSR reads that trap in some modes (counter enables are random). */
static const uint16_t exec_csrs[] = {
    CSR_MCTRCTL, CSR_SCTRDEPTH, CSR_SCTRSTATUS, CSR_CYCLE, CSR_INSTRET,
};

static uint16_t *ex_pos;

static long ex_off(void)
{
    return (long)((char *)ex_pos - (char *)exec_buf);
}

static void emit16(uint32_t insn)
{
    *ex_pos++ = insn;
}

static void emit32(uint32_t insn)
{
    ex_pos[0] = insn;
    ex_pos[1] = insn >> 16;
    ex_pos += 2;
}

static uint32_t enc_i(unsigned opc, unsigned rd, unsigned rs1, long imm)
{
    return ((uint32_t)imm & 0xfff) << 20 | rs1 << 15 | rd << 7 | opc;
}

#define ADDI(rd, rs1, imm)  enc_i(0x13, rd, rs1, imm)
#define JALR(rd, rs1)       enc_i(0x67, rd, rs1, 0)

static uint32_t enc_j(unsigned rd, long off)
{
    uint32_t i = off;

    return ((i >> 20) & 1) << 31 | ((i >> 1) & 0x3ff) << 21 |
           ((i >> 11) & 1) << 20 | ((i >> 12) & 0xff) << 12 | rd << 7 |
           0x6f;
}

static uint32_t enc_b(unsigned funct3, unsigned rs1, unsigned rs2, long off)
{
    uint32_t i = off;

    return ((i >> 12) & 1) << 31 | ((i >> 5) & 0x3f) << 25 | rs2 << 20 |
           rs1 << 15 | funct3 << 12 | ((i >> 1) & 0xf) << 8 |
           ((i >> 11) & 1) << 7 | 0x63;
}

/* c.j */
static uint32_t enc_cj(long off)
{
    uint32_t i = off;

    return 0xa001 | ((i >> 11) & 1) << 12 | ((i >> 4) & 1) << 11 |
           ((i >> 8) & 3) << 9 | ((i >> 10) & 1) << 8 |
           ((i >> 6) & 1) << 7 | ((i >> 7) & 1) << 6 |
           ((i >> 1) & 7) << 3 | ((i >> 5) & 1) << 2;
}

/* c.beqz (funct3 6) / c.bnez (7) on x8..x15 */
static uint32_t enc_cb(unsigned funct3, unsigned rs1, long off)
{
    uint32_t i = off;

    return funct3 << 13 | ((i >> 8) & 1) << 12 | ((i >> 3) & 3) << 10 |
           (rs1 - 8) << 7 | ((i >> 6) & 3) << 5 | ((i >> 1) & 3) << 3 |
           ((i >> 5) & 1) << 2 | 1;
}

/* auipc rd, hi; addi rd, rd, lo: rd = exec_buf + @target */
static void emit_la(unsigned rd, long target)
{
    long off = target - ex_off();
    long hi = (off + 0x800) >> 12;

    emit32(((uint32_t)hi & 0xfffff) << 12 | rd << 7 | 0x17);
    emit32(ADDI(rd, rd, off - (hi << 12)));
}

static void emit_frag(enum frag f)
{
    static const unsigned br_funct3[] = { 0, 1, 4, 5, 6, 7 };
    long start = ex_off();

    switch (f) {
    case F_NOP:
        if (rnd_below(2)) {
            emit16(0x0001);                             /* c.nop */
        } else {
            emit32(INSN_NOP);
        }
        break;
    case F_BR_TAKEN:                                    /* type 5 */
        emit32(enc_b(0, 0, 0, 8));                      /* beq x0, x0 */
        emit32(INSN_NOP);
        break;
    case F_BR_NOT:                                      /* type 4 */
        emit32(enc_b(1, 0, 0, 8));                      /* bne x0, x0 */
        emit32(INSN_NOP);
        break;
    case F_BR_RAND:
        emit32(ADDI(REG_T1, 0, (long)rnd_below(8) - 4));
        emit32(ADDI(REG_T2, 0, (long)rnd_below(8) - 4));
        emit32(enc_b(br_funct3[rnd_below(6)], REG_T1, REG_T2, 8));
        emit32(INSN_NOP);
        break;
    case F_JAL_X0:                                      /* type 11 */
        emit32(enc_j(0, 8));
        emit32(INSN_NOP);
        break;
    case F_JAL_LINK:                                    /* type 15 */
        emit32(enc_j(REG_T2, 8));
        emit32(INSN_NOP);
        break;
    case F_CALL_RA:                                     /* 9, then 13 */
        emit32(enc_j(REG_RA, EX_SUB_RA - start));
        break;
    case F_CALL_T0:                                     /* 9, then 13 */
        emit32(enc_j(REG_T0, EX_SUB_T0 - start));
        break;
    case F_ICALL:                                       /* 8, then 13 */
        emit_la(REG_T1, EX_SUB_RA);
        emit32(JALR(REG_RA, REG_T1));
        break;
    case F_IJMP:                                        /* type 10 */
    case F_IJMP_LINK:                                   /* type 14 */
        emit_la(REG_T1, start + 16);
        emit32(JALR(f == F_IJMP ? 0 : REG_T2, REG_T1));
        emit32(INSN_NOP);
        break;
    case F_CORSWAP:                                     /* type 12 */
        emit_la(REG_T0, start + 16);
        emit32(JALR(REG_RA, REG_T0));
        emit32(INSN_NOP);
        break;
    case F_RETURN:                                      /* type 13 */
        emit_la(REG_RA, start + 16);
        emit32(JALR(0, REG_RA));
        emit32(INSN_NOP);
        break;
    case F_CJ:                                          /* type 11 */
        emit16(enc_cj(4));
        emit16(0x0001);
        break;
    case F_CBR:                                         /* type 4 or 5 */
        emit16(0x4001 | REG_A0 << 7 | rnd_below(2) << 2);   /* c.li a0 */
        emit16(enc_cb(6 + rnd_below(2), REG_A0, 4));
        emit16(0x0001);
        break;
    case F_CJR:                                         /* type 10 */
        emit_la(REG_T1, start + 12);
        emit16(0x8002 | REG_T1 << 7);                   /* c.jr t1 */
        emit16(0x0001);
        break;
    case F_CJALR:                                       /* 8, then 13 */
        emit_la(REG_T1, EX_SUB_RA);
        emit16(0x9002 | REG_T1 << 7);                   /* c.jalr t1 */
        break;
    case F_ECALL:                                       /* type 1 */
        emit32(ADDI(REG_A7, 0, 0));
        emit32(INSN_ECALL);
        break;
    case F_EBREAK:                                      /* 1 or freeze */
        emit32(INSN_EBREAK);
        break;
    default:                                            /* maybe 1 */
        emit32(csr_insn(exec_csrs[rnd_below(sizeof(exec_csrs) /
                                            sizeof(exec_csrs[0]))],
                        2, 0, REG_T1));
        break;
    }
}

static void gen_program(unsigned nr_frags)
{
    ex_pos = exec_buf;
    emit32(INSN_NOP);
    emit32(JALR(0, REG_RA));
    emit32(INSN_NOP);
    emit32(JALR(0, REG_T0));
    emit32(ADDI(REG_T6, REG_RA, 0));
    for (unsigned i = 0; i < nr_frags; i++) {
        emit_frag(rnd_below(NR_FRAGS));
    }
    emit32(ADDI(REG_RA, REG_T6, 0));
    emit32(INSN_RET);
    fence_i();
}

static long run_program(long unused)
{
    void (*fn)(void) =
        (void (*)(void))(uintptr_t)((char *)exec_buf + EX_ENTRY);

    fn();
    return 0;
}

/* One random program in a random mode, with all types recorded. */
static void exec_one(void)
{
    const unsigned long extra = CTRCTL_MTE | CTRCTL_STE | CTRCTL_LCOFIFRZ |
                                (rnd_below(4) ? 0 : CTRCTL_BPFRZ);
    int mode = modes[rnd_below(nr_modes)];
    unsigned long depth_enc, depth, st, icfg, ccfg, mctl, vsctl;
    uint64_t i0, i1, c0, c1;
    unsigned bad = 0, beyond = 0, valid = 0;
    bool rasemu, i_all, c_all, ok;

    csr_write(CSR_MCTRCTL, 0);
    if (rt_has_h) {
        csr_write(CSR_VSCTRCTL, 0);
    }
    csr_write(CSR_SCTRDEPTH, rnd_below(8));
    depth_enc = csr_read(CSR_SCTRDEPTH);
    depth = depth_of(depth_enc);
    csr_write(CSR_SCTRSTATUS, rnd() & (depth - 1));
    sctrclr();
    gen_program(8 + rnd_below(40));

    /* Smcntrpmf filters; sometimes every mode the hart runs in. */
    csr_write(CSR_MCOUNTINHIBIT, 0);
    icfg = rnd() & cfg_w;
    ccfg = rnd() & cfg_w;
    if (!rnd_below(4)) {
        icfg |= CFG_MINH | rt_cfg_inh(mode);
    }
    if (!rnd_below(4)) {
        ccfg |= CFG_MINH | rt_cfg_inh(mode);
    }
    csr_write(CSR_MINSTRETCFG, icfg);
    csr_write(CSR_MCYCLECFG, ccfg);
    i_all = (icfg & CFG_MINH) && (icfg & rt_cfg_inh(mode));
    c_all = (ccfg & CFG_MINH) && (ccfg & rt_cfg_inh(mode));

    /* M, S, U enabled, no type inhibited, not-taken branches on. */
    rasemu = !rnd_below(4) && (ctl_w_m & CTRCTL_RASEMU);
    mctl = CTRCTL_M | CTRCTL_S | CTRCTL_U | CTRCTL_NTBREN |
           (rnd() & extra) | (rasemu ? CTRCTL_RASEMU : 0);
    vsctl = CTRCTL_S | CTRCTL_U | CTRCTL_NTBREN |
            (rnd() & extra & ~CTRCTL_M_ONLY) | (rasemu ? CTRCTL_RASEMU : 0);
    if (rt_has_h) {
        csr_write(CSR_VSCTRCTL, vsctl & ctl_w_vs);
    }

    phase = PH_EXEC;
    exec_traps = 0;
    i0 = csr_read(CSR_MINSTRET);
    c0 = csr_read(CSR_MCYCLE);
    csr_write(CSR_MCTRCTL, mctl & ctl_w_m);
    rt_call_in_mode(mode, run_program, 0);
    c1 = csr_read(CSR_MCYCLE);
    i1 = csr_read(CSR_MINSTRET);
    csr_write(CSR_MCTRCTL, 0);
    phase = PH_ACCESS;

    for (unsigned i = 0; i < NR_ENTRIES; i++) {
        struct ctr_entry e = ctr_read_entry(i);
        unsigned long type = e.data & CTRDATA_TYPE_MASK;

        if (i >= depth) {
            beyond += (e.source | e.target | e.data) != 0;
            continue;
        }
        if (!(e.source & CTRSOURCE_V)) {
            continue;
        }
        valid++;
        nr_types[type]++;
        /* "Control Transfer Type Definitions": 0 unused, 6-7 reserved */
        if (type == 0 || type_reserved(type) ||
            (e.target & CTRTARGET_MISP) || (e.data & ~CTRDATA_DEFINED)) {
            if (bad++ < 4) {
                rt_printf("  entry %u: 0x%lx 0x%lx 0x%lx\n", i,
                          (unsigned long)e.source, (unsigned long)e.target,
                          (unsigned long)e.data);
            }
        }
    }
    st = csr_read(CSR_SCTRSTATUS);
    nr_programs[mode]++;
    nr_frozen += (st & SCTRSTATUS_FROZEN) != 0;

    ok = CHECK_EQ(bad, 0);
    ok &= CHECK_EQ(beyond, 0);
    ok &= CHECK_EQ(st & ~(SCTRSTATUS_FROZEN | (depth - 1)), 0);
    ok &= CHECK_EQ(csr_read(CSR_SCTRDEPTH), depth_enc);
    ok &= CHECK(rasemu || valid > 0);
    /*
     * Smcntrpmf "Counter Behavior": "counting does not occur while
     * executing in an inhibited privilege mode"; an exception does not
     * retire and an xRET counts in the mode it executes in.  The hart
     * ran in M and @mode only.
     */
    ok &= CHECK(i_all ? i1 == i0 : i1 != i0);
    ok &= CHECK(!c_all || c1 == c0);
    if (!ok) {
        rt_printf("  ^ program in %s: depth %lu mctrctl 0x%lx vsctrctl "
                  "0x%lx, %u valid, %u traps; minstretcfg 0x%lx: %lu, "
                  "mcyclecfg 0x%lx: %lu\n", rt_mode_name(mode), depth,
                  mctl & ctl_w_m, vsctl & ctl_w_vs, valid, exec_traps,
                  icfg, (unsigned long)(i1 - i0), ccfg,
                  (unsigned long)(c1 - c0));
    }
}

/* ------------------------------------------------------------------ */
/* MNRET                                                               */

/* MNRET to mnepc = 1f; the ecall there reports the mode reached. */
static __attribute__((noinline)) int do_mnret(void)
{
    phase = PH_MNRET;
    mnret_mode = -1;
    asm volatile("la t0, 1f\n\t"
                 "csrw " RT_XSTR(CSR_MNEPC) ", t0\n\t"
                 ".4byte 0x70200073\n"              /* mnret */
                 "1:\n\t"
                 "li a7, 0\n\t"
                 "ecall\n\t"
                 : : : "t0", "a7", "memory");
    phase = PH_ACCESS;
    return mnret_mode;
}

/* The mode MNRET returns to for @mn (2 and 6 are not modes). */
static int mn_mode(unsigned long mn)
{
    unsigned long pp = (mn & MNSTATUS_MNPP) >> MNSTATUS_MNPP_SHIFT;

    if (pp == RT_MODE_M) {
        return RT_MODE_M;
    }
    return pp | ((mn & MNSTATUS_MNPV) ? 4 : 0);
}

static void test_mnret(void)
{
    unsigned long mn, rb;
    int reached;

    rt_printf("mnret to every mode\n");
    for (unsigned i = 0; i <= nr_modes; i++) {
        /* The last case: MNPP=M with MNPV=1 returns to M (V=0). */
        int m = i < nr_modes ? modes[i] : RT_MODE_M;

        mn = MNSTATUS_NMIE | (unsigned long)MODE_PRIV(m) <<
             MNSTATUS_MNPP_SHIFT;
        if (MODE_V(m) || (i == nr_modes && rt_has_h)) {
            mn |= MNSTATUS_MNPV;
        }
        csr_write(CSR_MNSTATUS, mn);
        rb = csr_read(CSR_MNSTATUS);
        CHECK_EQ(rb & (MNSTATUS_MNPP | MNSTATUS_MNPV),
                 mn & (MNSTATUS_MNPP | MNSTATUS_MNPV));
        reached = do_mnret();
        if (!CHECK_EQ(reached, m)) {
            rt_printf("  ^ mnstatus 0x%lx\n", rb);
        }
    }

    /*
     * MNPP=2 is reserved; MNPP is WARL, so it reads back as a mode the
     * hart has and MNRET returns there.  A QEMU that stores 2 aborts in
     * riscv_cpu_set_mode() at this MNRET.
     */
    for (unsigned pv = 0; pv <= rt_has_h; pv++) {
        mn = MNSTATUS_NMIE | 2UL << MNSTATUS_MNPP_SHIFT |
             (pv ? MNSTATUS_MNPV : 0);
        rt_printf("mnret with mnstatus.MNPP=2%s\n", pv ? ", MNPV=1" : "");
        csr_write(CSR_MNSTATUS, mn);
        rb = csr_read(CSR_MNSTATUS);
        if (!CHECK((rb & MNSTATUS_MNPP) != 2UL << MNSTATUS_MNPP_SHIFT)) {
            rt_printf("  ^ mnstatus 0x%lx\n", rb);
        }
        reached = do_mnret();
        if (!CHECK_EQ(reached, mn_mode(rb))) {
            rt_printf("  ^ mnstatus 0x%lx\n", rb);
        }
    }
    csr_write(CSR_MNSTATUS, MNSTATUS_NMIE | MNSTATUS_MNPP);
}

/* ------------------------------------------------------------------ */
/* Start-up: presence, writable masks and direct checks                */

static long s_write_sci(long v)
{
    csr_write(CSR_SCOUNTINHIBIT, v);
    return 0;
}

static long s_read_sci(long unused)
{
    return csr_read(CSR_SCOUNTINHIBIT);
}

static long s_sci_cause(long unused)
{
    return RT_TRAP_CAUSE(csr_read(CSR_SCOUNTINHIBIT));
}

/* Every extension of the configuration is there. */
static void check_extensions(void)
{
    CHECK_EQ(RT_TRAP_CAUSE(csr_read(CSR_MCTRCTL)), RT_NO_TRAP);     /* Smctr */
    CHECK_EQ(RT_TRAP_CAUSE(csr_read(CSR_SCTRDEPTH)), RT_NO_TRAP);   /* Ssctr */
    CHECK_EQ(RT_TRAP_CAUSE(csr_read(CSR_SISELECT)), RT_NO_TRAP);
    CHECK_EQ(RT_TRAP_CAUSE(csr_read(CSR_MISELECT)), RT_NO_TRAP);
    CHECK_EQ(RT_TRAP_CAUSE(csr_read(CSR_VSCTRCTL)),
             rt_has_h ? RT_NO_TRAP : CAUSE_INSN_ILLEGAL);
    CHECK_EQ(RT_TRAP_CAUSE(csr_read(CSR_MCYCLECFG)), RT_NO_TRAP);
    has_sscofpmf = RT_TRAP_CAUSE(csr_read(CSR_SCOUNTOVF)) == RT_NO_TRAP;
    CHECK(has_sscofpmf);
    /* Smstateen: open everything to S and VS. */
    CHECK_EQ(RT_TRAP_CAUSE(csr_write(CSR_MSTATEEN0, -1UL)), RT_NO_TRAP);
    if (rt_has_h) {
        CHECK_EQ(RT_TRAP_CAUSE(csr_write(CSR_HSTATEEN0, -1UL)),
                 RT_NO_TRAP);
    }
    /* Smcdeleg/Ssccfg: menvcfg.CDE exists, scountinhibit with it. */
    csr_set(CSR_MENVCFG, MENVCFG_CDE);
    CHECK_EQ(csr_read(CSR_MENVCFG) & MENVCFG_CDE, MENVCFG_CDE);
    CHECK_EQ(RT_TRAP_CAUSE(csr_read(CSR_SCOUNTINHIBIT)), RT_NO_TRAP);
}

static void probe_registers(void)
{
    unsigned long v, req;

    /*
     * mctrctl: "All fields are optional except for M, S, U, and BPFRZ";
     * "If the Sscofpmf extension is implemented, LCOFIFRZ must be
     * writable".
     */
    req = CTRCTL_M | CTRCTL_S | CTRCTL_U | CTRCTL_BPFRZ |
          (has_sscofpmf ? CTRCTL_LCOFIFRZ : 0);
    csr_write(CSR_MCTRCTL, -1UL);
    v = csr_read(CSR_MCTRCTL);
    CHECK_EQ(v & ~CTRCTL_LEGAL_M, 0);
    CHECK_EQ(v & req, req);
    ctl_w_m = v & CTRCTL_LEGAL_M;
    /* sctrctl: M and MTE read 0 and keep their value when written. */
    CHECK_EQ(csr_read(CSR_SCTRCTL), ctl_w_m & ~CTRCTL_M_ONLY);
    csr_write(CSR_SCTRCTL, 0);
    CHECK_EQ(csr_read(CSR_MCTRCTL), ctl_w_m & CTRCTL_M_ONLY);
    csr_write(CSR_MCTRCTL, 0);
    if (rt_has_h) {
        req &= ~CTRCTL_M_ONLY;
        csr_write(CSR_VSCTRCTL, -1UL);
        v = csr_read(CSR_VSCTRCTL);
        CHECK_EQ(v & ~CTRCTL_LEGAL_S, 0);
        CHECK_EQ(v & req, req);
        ctl_w_vs = v & CTRCTL_LEGAL_S;
        csr_write(CSR_VSCTRCTL, 0);
    }

    /* sctrdepth: supported encodings read back as written ... */
    for (unsigned d = 0; d <= 4; d++) {
        csr_write(CSR_SCTRDEPTH, d);
        if (csr_read(CSR_SCTRDEPTH) == d) {
            depth_ok |= 1u << d;
        }
    }
    CHECK(depth_ok != 0);
    /* ... and everything else as one of them ('101', '11x' reserved). */
    for (unsigned d = 0; d <= 8; d++) {
        csr_write(CSR_SCTRDEPTH, d == 8 ? -1UL : d);
        v = csr_read(CSR_SCTRDEPTH);
        if (!CHECK(depth_legal(v))) {
            rt_printf("  ^ sctrdepth 0x%x read back as 0x%lx\n", d, v);
        }
    }
    csr_write(CSR_SCTRDEPTH, 0);

    /* mcountinhibit: "32-bit"; bit 1 (TM) is read-only 0. */
    csr_write(CSR_MCOUNTINHIBIT, -1UL);
    mci_w = csr_read(CSR_MCOUNTINHIBIT);
    csr_write(CSR_MCOUNTINHIBIT, 0);
    CHECK_EQ(mci_w & ~0xfffffffdUL, 0);
    mci_w &= 0xfffffffdUL;

    /* mcyclecfg/minstretcfg: OF and 57:0 read-only 0; M, S, U exist. */
    cfg_w = CFG_MINH | CFG_SINH | CFG_UINH |
            (rt_has_h ? CFG_VSINH | CFG_VUINH : 0);
    csr_write(CSR_MCYCLECFG, -1UL);
    CHECK_EQ(csr_read(CSR_MCYCLECFG), cfg_w);
    csr_write(CSR_MCYCLECFG, 0);
    csr_write(CSR_MINSTRETCFG, -1UL);
    CHECK_EQ(csr_read(CSR_MINSTRETCFG), cfg_w);
    csr_write(CSR_MINSTRETCFG, 0);

    /*
     * mhpmevent3..31 (Sscofpmf): OF and the xINH bits of the existing
     * modes are writable, "For each xINH bit, if the associated
     * privilege mode is not implemented, the bit is read-only zero",
     * and the WPRI bits 57:56 are read-only 0 (a counter may instead be
     * read-only 0 as a whole).
     */
    for (unsigned i = 3; i < NR_EVENTS; i++) {
        ev_write(i, -1UL);
        v = ev_read(i);
        ev_write(i, 0);
        if (v) {
            ev_impl |= 1u << i;
        }
        if (!CHECK_EQ(v & EVENT_TOP_BYTE, v ? CFG_OF | cfg_w : 0)) {
            rt_printf("  ^ mhpmevent%u\n", i);
        }
    }

    /* mnstatus: NMIE, MNPP, MNPV with H; the other bits reserved. */
    csr_write(CSR_MNSTATUS, -1UL);
    v = csr_read(CSR_MNSTATUS);
    CHECK_EQ(v & ~MNSTATUS_MNPELP, MNSTATUS_NMIE | MNSTATUS_MNPP |
                                   (rt_has_h ? MNSTATUS_MNPV : 0));
    csr_write(CSR_MNSTATUS, MNSTATUS_NMIE | MNSTATUS_MNPP);

    /* siselect/vsiselect "will support the value range 0..0xFFF". */
    csr_write(CSR_SISELECT, 0xfff);
    CHECK_EQ(csr_read(CSR_SISELECT), 0xfff);
    if (rt_has_h) {
        csr_write(CSR_VSISELECT, 0xfff);
        CHECK_EQ(csr_read(CSR_VSISELECT), 0xfff);
    }

    /* Is ctrdata.TYPE implemented ("report 0" otherwise)? */
    csr_write(CSR_SISELECT, CTR_ISELECT_FIRST);
    csr_write(CSR_SIREG3, CTR_TYPE_DIRCALL);
    type_impl = (csr_read(CSR_SIREG3) & CTRDATA_TYPE_MASK) ==
                CTR_TYPE_DIRCALL;
    csr_write(CSR_SIREG3, 0);
}

static void direct_checks(void)
{
    unsigned long base, v;

    /*
     * scountinhibit with only CY delegated: "For counters delegated to
     * S-mode, the associated mcountinhibit bits can be accessed via
     * scountinhibit.  For counters not delegated ... read-only zero":
     * an S-mode write changes CY and nothing else.
     */
    rt_printf("scountinhibit with mcounteren = CY\n");
    csr_write(CSR_MCOUNTEREN, COUNTEREN_CY);
    csr_write(CSR_MCOUNTINHIBIT,
              COUNTEREN_CY | COUNTEREN_IR | COUNTEREN_HPM3);
    base = csr_read(CSR_MCOUNTINHIBIT);
    rt_call_in_mode(RT_MODE_S, s_write_sci, 0);
    CHECK_EQ(csr_read(CSR_MCOUNTINHIBIT), base & ~COUNTEREN_CY);
    rt_call_in_mode(RT_MODE_S, s_write_sci, -1L);
    CHECK_EQ(csr_read(CSR_MCOUNTINHIBIT), base | (COUNTEREN_CY & mci_w));
    CHECK_EQ(rt_call_in_mode(RT_MODE_S, s_read_sci, 0),
             COUNTEREN_CY & mci_w);

    /*
     * "When menvcfg.CDE=0, attempts to access scountinhibit raise an
     * illegal instruction exception."
     */
    rt_printf("scountinhibit with menvcfg.CDE=0\n");
    csr_clear(CSR_MENVCFG, MENVCFG_CDE);
    CHECK_EQ(RT_TRAP_CAUSE(csr_read(CSR_SCOUNTINHIBIT)), CAUSE_INSN_ILLEGAL);
    CHECK_EQ(rt_call_in_mode(RT_MODE_S, s_sci_cause, 0), CAUSE_INSN_ILLEGAL);
    csr_set(CSR_MENVCFG, MENVCFG_CDE);
    csr_write(CSR_MCOUNTINHIBIT, 0);
    csr_write(CSR_MCOUNTEREN, 0);

    /* ctrdata.TYPE is WARL; 6 and 7 are reserved, not legal values. */
    rt_printf("ctrdata.TYPE 6 and 7\n");
    csr_write(CSR_SISELECT, CTR_ISELECT_FIRST);
    for (unsigned long t = 6; t <= 7; t++) {
        csr_write(CSR_SIREG3, t);
        v = csr_read(CSR_SIREG3) & CTRDATA_TYPE_MASK;
        if (!CHECK(!type_reserved(v))) {
            rt_printf("  ^ TYPE %lu read back as %lu\n", t, v);
        }
    }
    csr_write(CSR_SIREG3, 0);

    /* mnstatus.MNPP is WARL: the reserved 2 reads back as a mode. */
    rt_printf("mnstatus.MNPP=2\n");
    csr_write(CSR_MNSTATUS, MNSTATUS_NMIE | 2UL << MNSTATUS_MNPP_SHIFT);
    v = csr_read(CSR_MNSTATUS);
    if (!CHECK((v & MNSTATUS_MNPP) != 2UL << MNSTATUS_MNPP_SHIFT)) {
        rt_printf("  ^ mnstatus 0x%lx\n", v);
    }
    csr_write(CSR_MNSTATUS, MNSTATUS_NMIE | MNSTATUS_MNPP);
}

static void print_statistics(void)
{
    static const char *const kind_names[] = {
        "mctrctl", "sctrctl", "vsctrctl", "sctrstatus", "sctrdepth",
        "siselect", "sireg*", "vsiselect", "vsireg*", "m*cfg",
        "mhpmevent*", "mcountinhibit", "scountinhibit", "mnstatus",
    };

    rt_printf("%lu accesses (no trap/illegal/virtual):\n", nr_accesses);
    for (unsigned k = 0; k <= K_MNSTATUS; k++) {
        rt_printf("  %-14s %lu/%lu/%lu\n", kind_names[k], nr_outcomes[k][0],
                  nr_outcomes[k][1], nr_outcomes[k][2]);
    }
    rt_printf("  %lu entry accesses below the depth\n", nr_entry_rw);
    rt_printf("programs in M/S/U/VS/VU: %lu/%lu/%lu/%lu/%lu, %lu frozen\n",
              nr_programs[RT_MODE_M], nr_programs[RT_MODE_S],
              nr_programs[RT_MODE_U], nr_programs[RT_MODE_VS],
              nr_programs[RT_MODE_VU], nr_frozen);
    rt_printf("valid records by TYPE:");
    for (unsigned t = 0; t < 16; t++) {
        rt_printf(" %lu", nr_types[t]);
    }
    rt_printf("\n");
}

int main(void)
{
    static const int all_modes[] = {
        RT_MODE_M, RT_MODE_S, RT_MODE_U, RT_MODE_VS, RT_MODE_VU,
    };
    uint64_t word = *(volatile uint64_t *)CONFIG_ADDR;    /* -device loader */
    unsigned long seed = DEFAULT_SEED, rounds = DEFAULT_ROUNDS;
    unsigned n = 0;

    /*
     * Smrnmi: M-mode exceptions while mnstatus.NMIE=0 (its reset value)
     * go to the RNMI exception vector, so set NMIE before anything traps.
     */
    CHECK_EQ(RT_TRAP_CAUSE(csr_set(CSR_MNSTATUS, MNSTATUS_NMIE)),
             RT_NO_TRAP);

    if ((word >> 32) == CONFIG_MAGIC) {
        if ((word >> 8) & 0xffffff) {
            seed = (word >> 8) & 0xffffff;
        }
        if (word & 0xff) {
            rounds = word & 0xff;
        }
    }
    rng = seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
    for (unsigned i = 0; i < 8; i++) {
        rnd();
    }
    rt_printf("test-robust: seed 0x%lx, %lu round(s), H %s\n", seed, rounds,
              rt_has_h ? "on" : "off");

    for (unsigned i = 0; i < sizeof(all_modes) / sizeof(all_modes[0]); i++) {
        if (rt_has_h || !MODE_V(all_modes[i])) {
            modes[nr_modes++] = all_modes[i];
        }
    }
    for (unsigned i = 0; i < NR_FIXED; i++) {
        csrs[n++] = fixed_csrs[i];
    }
    for (unsigned i = 3; i < NR_EVENTS; i++) {
        csrs[n++] = (struct csr_desc){ "mhpmevent", CSR_MCOUNTINHIBIT + i,
                                       K_EVENT, L_M, i };
    }
    make_ev_stubs();

    check_extensions();
    probe_registers();
    direct_checks();
    install_handlers();

    for (unsigned long r = 0; r < rounds; r++) {
        rt_printf("round %lu: register sweep\n", r);
        sweep();
        rt_printf("round %lu: %u random programs\n", r, EXEC_PER_ROUND);
        for (unsigned i = 0; i < EXEC_PER_ROUND; i++) {
            exec_one();
        }
    }
    print_statistics();
    test_mnret();
    return 0;
}
