/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor view of mcyclecfg and minstretcfg through counter
 * delegation (Smcntrpmf 1.0: "The content of these registers may be
 * accessible from Supervisor level if the Smcdeleg/Ssccfg extensions are
 * implemented"; RISC-V Privileged Architecture, chapter "Smcdeleg/Ssccfg
 * Counter Delegation Extensions", section "Counter Delegation", and
 * docs/system/riscv/cntrpmf.rst, "Supervisor view"):
 *
 * - with menvcfg.CDE=1 and mcounteren.CY (IR), S-mode reaches mcyclecfg
 *   (minstretcfg) through siselect = 0x40 (0x42) and sireg2;
 * - "If Smcntrpmf is implemented, counter configuration register bit 62
 *   (MINH) is read-only 0 when accessed through sireg*": the view reads
 *   MINH as 0, a write through it leaves the M-mode MINH as it was
 *   (set or clear), and a read changes nothing (audit S6: upstream's
 *   read path does "&=" on the register, with bit 30 instead of 62);
 * - the other bits keep the mcyclecfg layout: OF (63) and 57:0 read-only
 *   0, SINH/UINH writable, VSINH/VUINH writable with the H extension;
 * - the read part of a csrrw through sireg2 returns the old view;
 * - illegal-instruction for siselect = 0x41, for a counter not delegated
 *   in mcounteren, when menvcfg.CDE=0, for sireg3 (and sireg6), and for
 *   sireg4/sireg5 when XLEN=64;
 * - scountinhibit (Ssccfg) is mcountinhibit masked by mcounteren: an
 *   S-mode write changes only the delegated bits ("bits of scountinhibit
 *   for counters not delegated are read-only 0" and the M-mode bits are
 *   not S-mode's to change), so minstret stays stopped when M-mode
 *   inhibited it and did not delegate it.
 *
 * Run with -cpu rv64,smcntrpmf=on,smcdeleg=on,ssccfg=on,smcsrind=on,
 * sscsrind=on,sscofpmf=on[,h=on|off]; misa.H and whether mstateen0
 * exists are read at run time.
 */

#include "rt.h"

#define MENVCFG_CDE         (1UL << 60)
#define COUNTEREN_CY        (1UL << 0)
#define COUNTEREN_IR        (1UL << 2)


/* siselect values of the delegated counter range */
#define ISEL_CYCLE          0x40
#define ISEL_TIME           0x41
#define ISEL_INSTRET        0x42

#define CSR_SIREG6_NUM      0x157

struct s_op {
    unsigned long isel;
    unsigned long val;      /* in: value written; out: value read */
};

/* The counter configuration under test. */
struct cfg_case {
    const char *name;
    unsigned long isel;
    unsigned long counteren;
};

static const struct cfg_case cases[] = {
    { "mcyclecfg", ISEL_CYCLE, COUNTEREN_CY },
    { "minstretcfg", ISEL_INSTRET, COUNTEREN_IR },
};

/* The non-M xINH bits this hart implements. */
static unsigned long s_bits;

static unsigned long m_read_cfg(unsigned long isel)
{
    return isel == ISEL_CYCLE ? csr_read(CSR_MCYCLECFG)
                              : csr_read(CSR_MINSTRETCFG);
}

static void m_write_cfg(unsigned long isel, unsigned long val)
{
    if (isel == ISEL_CYCLE) {
        csr_write(CSR_MCYCLECFG, val);
    } else {
        csr_write(CSR_MINSTRETCFG, val);
    }
}

/* In S-mode: read sireg2 at siselect = arg. */
static long s_read(long isel)
{
    csr_write(CSR_SISELECT, isel);
    return csr_read(CSR_SIREG2);
}

/* In S-mode: write op->val to sireg2 at op->isel. */
static long s_write(long arg)
{
    struct s_op *op = (struct s_op *)arg;

    csr_write(CSR_SISELECT, op->isel);
    csr_write(CSR_SIREG2, op->val);
    return 0;
}

/* In S-mode: csrrw sireg2 at op->isel, op->val gets the old value. */
static long s_swap(long arg)
{
    struct s_op *op = (struct s_op *)arg;

    csr_write(CSR_SISELECT, op->isel);
    op->val = csr_swap(CSR_SIREG2, op->val);
    return 0;
}

enum s_access {
    ACC_SIREG2_READ,
    ACC_SIREG2_WRITE,
    ACC_SIREG3,
    ACC_SIREG4,
    ACC_SIREG5,
    ACC_SIREG6,
};

/* In S-mode: the trap cause of one access at siselect = op->isel. */
static long s_access_cause(long arg)
{
    struct s_op *op = (struct s_op *)arg;

    csr_write(CSR_SISELECT, op->isel);
    switch (op->val) {
    case ACC_SIREG2_READ:
        return RT_TRAP_CAUSE(csr_read(CSR_SIREG2));
    case ACC_SIREG2_WRITE:
        return RT_TRAP_CAUSE(csr_write(CSR_SIREG2, 0));
    case ACC_SIREG3:
        return RT_TRAP_CAUSE(csr_read(CSR_SIREG3));
    case ACC_SIREG4:
        return RT_TRAP_CAUSE(csr_read(CSR_SIREG4));
    case ACC_SIREG5:
        return RT_TRAP_CAUSE(csr_read(CSR_SIREG5));
    default:
        return RT_TRAP_CAUSE(csr_read(CSR_SIREG6_NUM));
    }
}

static unsigned long s_view_read(unsigned long isel)
{
    return rt_call_in_mode(RT_MODE_S, s_read, isel);
}

static void s_view_write(unsigned long isel, unsigned long val)
{
    struct s_op op = { isel, val };

    rt_call_in_mode(RT_MODE_S, s_write, (long)&op);
}

static long s_cause(unsigned long isel, enum s_access acc)
{
    struct s_op op = { isel, acc };

    return rt_call_in_mode(RT_MODE_S, s_access_cause, (long)&op);
}

static void check_view(const struct cfg_case *c)
{
    struct s_op op;
    unsigned long before;

    rt_printf("%s through siselect 0x%lx / sireg2\n", c->name, c->isel);

    /* M sets MINH and UINH. */
    m_write_cfg(c->isel, CFG_MINH | CFG_UINH);
    CHECK_EQ(m_read_cfg(c->isel), CFG_MINH | CFG_UINH);

    /* The view hides MINH; reading it twice reads the same. */
    CHECK_EQ(s_view_read(c->isel), CFG_UINH);
    CHECK_EQ(s_view_read(c->isel), CFG_UINH);
    /* Reading changed nothing: M still has MINH (audit S6). */
    CHECK_EQ(m_read_cfg(c->isel), CFG_MINH | CFG_UINH);

    /*
     * Whatever M wrote, a read through the view leaves the register as
     * it was.  All-ones from M leaves exactly OF=0, 57:0 = 0 and the
     * implemented xINH bits (upstream keeps every bit, audit S1, and its
     * read then clears bit 30, audit S6).
     */
    m_write_cfg(c->isel, -1UL);
    before = m_read_cfg(c->isel);
    CHECK_EQ(before, CFG_MINH | s_bits);
    CHECK_EQ(s_view_read(c->isel), before & ~CFG_MINH);
    CHECK_EQ(m_read_cfg(c->isel), before);
    m_write_cfg(c->isel, CFG_MINH | CFG_UINH);

    /*
     * All-ones through the view sets exactly the implemented non-M
     * xINH bits (OF and 57:0 read-only 0) and leaves MINH set.
     */
    s_view_write(c->isel, -1UL);
    CHECK_EQ(s_view_read(c->isel), s_bits);
    CHECK_EQ(m_read_cfg(c->isel), CFG_MINH | s_bits);

    /* Zero through the view clears them and still leaves MINH set. */
    s_view_write(c->isel, 0);
    CHECK_EQ(s_view_read(c->isel), 0);
    CHECK_EQ(m_read_cfg(c->isel), CFG_MINH);

    /* With MINH clear in M, the view cannot set it. */
    m_write_cfg(c->isel, 0);
    s_view_write(c->isel, -1UL);
    CHECK_EQ(m_read_cfg(c->isel), s_bits);
    s_view_write(c->isel, CFG_MINH);
    CHECK_EQ(m_read_cfg(c->isel), 0);
    CHECK_EQ(s_view_read(c->isel), 0);

    /* csrrw through the view returns the old view, MINH hidden. */
    m_write_cfg(c->isel, CFG_MINH | CFG_SINH);
    op.isel = c->isel;
    op.val = CFG_UINH;
    rt_call_in_mode(RT_MODE_S, s_swap, (long)&op);
    CHECK_EQ(op.val, CFG_SINH);
    CHECK_EQ(m_read_cfg(c->isel), CFG_MINH | CFG_UINH);

    /* Other sireg* of this siselect value (XLEN=64). */
    CHECK_EQ(s_cause(c->isel, ACC_SIREG3), CAUSE_INSN_ILLEGAL);
    CHECK_EQ(s_cause(c->isel, ACC_SIREG6), CAUSE_INSN_ILLEGAL);
    CHECK_EQ(s_cause(c->isel, ACC_SIREG4), CAUSE_INSN_ILLEGAL);
    CHECK_EQ(s_cause(c->isel, ACC_SIREG5), CAUSE_INSN_ILLEGAL);

    /* Not delegated in mcounteren: illegal, and M's value untouched. */
    csr_clear(CSR_MCOUNTEREN, c->counteren);
    CHECK_EQ(s_cause(c->isel, ACC_SIREG2_READ), CAUSE_INSN_ILLEGAL);
    CHECK_EQ(s_cause(c->isel, ACC_SIREG2_WRITE), CAUSE_INSN_ILLEGAL);
    CHECK_EQ(m_read_cfg(c->isel), CFG_MINH | CFG_UINH);
    csr_set(CSR_MCOUNTEREN, c->counteren);

    /* menvcfg.CDE=0: illegal. */
    csr_clear(CSR_MENVCFG, MENVCFG_CDE);
    CHECK_EQ(s_cause(c->isel, ACC_SIREG2_READ), CAUSE_INSN_ILLEGAL);
    CHECK_EQ(s_cause(c->isel, ACC_SIREG2_WRITE), CAUSE_INSN_ILLEGAL);
    CHECK_EQ(m_read_cfg(c->isel), CFG_MINH | CFG_UINH);
    csr_set(CSR_MENVCFG, MENVCFG_CDE);

    /* Delegated again: the view is back. */
    CHECK_EQ(s_view_read(c->isel), CFG_UINH);
    m_write_cfg(c->isel, 0);
}

#define CSR_SCOUNTINHIBIT   0x120

static long s_write_scountinhibit(long val)
{
    csr_write(CSR_SCOUNTINHIBIT, val);
    return csr_read(CSR_SCOUNTINHIBIT);
}

static void check_scountinhibit(void)
{
    unsigned long before;

    rt_printf("scountinhibit writes only the delegated bits\n");
    /* M-mode stops minstret and delegates only mcycle. */
    csr_write(CSR_MCOUNTEREN, COUNTEREN_CY);
    csr_write(CSR_MCOUNTINHIBIT, COUNTEREN_IR);
    CHECK_EQ(rt_call_in_mode(RT_MODE_S, s_write_scountinhibit, 0), 0);
    CHECK_EQ(csr_read(CSR_MCOUNTINHIBIT), COUNTEREN_IR);
    before = csr_read(CSR_MINSTRET);
    CHECK_EQ(csr_read(CSR_MINSTRET), before);

    /* S-mode stops the delegated mcycle; IR is still M-mode's. */
    CHECK_EQ(rt_call_in_mode(RT_MODE_S, s_write_scountinhibit, -1L),
             COUNTEREN_CY);
    CHECK_EQ(csr_read(CSR_MCOUNTINHIBIT), COUNTEREN_CY | COUNTEREN_IR);
    CHECK_EQ(rt_call_in_mode(RT_MODE_S, s_write_scountinhibit, 0), 0);
    CHECK_EQ(csr_read(CSR_MCOUNTINHIBIT), COUNTEREN_IR);

    csr_write(CSR_MCOUNTINHIBIT, 0);
    csr_write(CSR_MCOUNTEREN, COUNTEREN_CY | COUNTEREN_IR);
}

int main(void)
{
    unsigned long misa = csr_read(CSR_MISA);
    long cause;

    s_bits = 0;
    if (misa & (1UL << ('S' - 'A'))) {
        s_bits |= CFG_SINH;
    }
    if (misa & (1UL << ('U' - 'A'))) {
        s_bits |= CFG_UINH;
    }
    if (misa & MISA_H) {
        s_bits |= CFG_VSINH | CFG_VUINH;
    }
    rt_printf("Smcdeleg view of mcyclecfg/minstretcfg, H %s\n",
              (misa & MISA_H) ? "on" : "off");

    /* Let S-mode use siselect/sireg* if Smstateen exists. */
    cause = RT_TRAP_CAUSE(csr_set(CSR_MSTATEEN0, STATEEN0_CSRIND));
    rt_printf("mstateen0 %s\n", cause == RT_NO_TRAP ? "present" : "absent");

    csr_set(CSR_MENVCFG, MENVCFG_CDE);
    CHECK_EQ(csr_read(CSR_MENVCFG) & MENVCFG_CDE, MENVCFG_CDE);
    csr_write(CSR_MCOUNTEREN, COUNTEREN_CY | COUNTEREN_IR);

    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        check_view(&cases[i]);
    }

    /* siselect = 0x41 (time) is never a delegated counter. */
    csr_write(CSR_MCOUNTEREN, -1UL);
    CHECK_EQ(s_cause(ISEL_TIME, ACC_SIREG2_READ), CAUSE_INSN_ILLEGAL);
    CHECK_EQ(s_cause(ISEL_TIME, ACC_SIREG2_WRITE), CAUSE_INSN_ILLEGAL);
    csr_write(CSR_MCOUNTEREN, COUNTEREN_CY | COUNTEREN_IR);

    check_scountinhibit();

    csr_clear(CSR_MENVCFG, MENVCFG_CDE);
    csr_write(CSR_MCOUNTEREN, 0);
    return 0;
}
