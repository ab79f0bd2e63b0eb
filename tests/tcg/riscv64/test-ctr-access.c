/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Access control of the CTR state (Smctr/Ssctr 1.0, "State Enable Access
 * Control", the CSR sections and SCTRCLR), from every privilege mode and
 * for every combination of mstateen0.CTR and hstateen0.CTR (bit 54):
 *
 * - mstateen0.CTR=0 makes sctrctl, vsctrctl, sctrdepth, sctrstatus,
 *   sireg* with siselect in 0x200..0x2ff (vsireg* and vsiselect when V=1)
 *   and SCTRCLR raise illegal-instruction below M-mode;
 * - with mstateen0.CTR=1, hstateen0.CTR=0 makes the same state (but not
 *   sctrdepth) raise virtual-instruction in VS-mode;
 * - sctrdepth raises virtual-instruction from VS-mode regardless of
 *   hstateen0.CTR; SCTRCLR raises illegal-instruction in U-mode and
 *   virtual-instruction in VU-mode;
 * - otherwise the privileged architecture's rules apply: M-level CSRs
 *   are illegal below M, S-level CSRs illegal in U and virtual in VU,
 *   H-level CSRs (vsctrctl) illegal in U and virtual in VS/VU;
 * - without Smstateen nothing is restricted beyond those rules;
 * - sireg4..6 read 0 for the CTR range;
 * - vsctrctl and vsireg* exist only with the H extension.
 * hstateen0.CTR is read-only 0 while mstateen0.CTR=0.
 *
 * The CPU configuration is given on the command line; the test reads
 * what it needs (misa.H, whether mstateen0 exists) at run time.
 */

#include "rt.h"
#include "ctr-decode.h"

enum op {
    OP_SCTRCTL,
    OP_SCTRSTATUS,
    OP_SCTRDEPTH,
    OP_VSCTRCTL,
    OP_MCTRCTL,
    OP_SISELECT,
    OP_SIREG,
    OP_SIREG4,
    OP_VSIREG,
    OP_SCTRCLR,
    NR_OPS
};

static const char *const op_names[NR_OPS] = {
    "sctrctl", "sctrstatus", "sctrdepth", "vsctrctl", "mctrctl",
    "siselect", "sireg (ctrsource)", "sireg4", "vsireg (ctrsource)",
    "sctrclr",
};

enum csr_level { LEVEL_S, LEVEL_H, LEVEL_M, LEVEL_INSN };

static const enum csr_level op_level[NR_OPS] = {
    [OP_SCTRCTL] = LEVEL_S, [OP_SCTRSTATUS] = LEVEL_S,
    [OP_SCTRDEPTH] = LEVEL_S, [OP_VSCTRCTL] = LEVEL_H,
    [OP_MCTRCTL] = LEVEL_M, [OP_SISELECT] = LEVEL_S, [OP_SIREG] = LEVEL_S,
    [OP_SIREG4] = LEVEL_S, [OP_VSIREG] = LEVEL_H, [OP_SCTRCLR] = LEVEL_INSN,
};

static bool has_stateen;

static struct {
    long cause[NR_OPS];
    unsigned long sireg4;
} probe_out;

static long probe(long unused)
{
    probe_out.cause[OP_SCTRCTL] = RT_TRAP_CAUSE(csr_read(CSR_SCTRCTL));
    probe_out.cause[OP_SCTRSTATUS] = RT_TRAP_CAUSE(csr_read(CSR_SCTRSTATUS));
    probe_out.cause[OP_SCTRDEPTH] = RT_TRAP_CAUSE(csr_read(CSR_SCTRDEPTH));
    probe_out.cause[OP_VSCTRCTL] = RT_TRAP_CAUSE(csr_read(CSR_VSCTRCTL));
    probe_out.cause[OP_MCTRCTL] = RT_TRAP_CAUSE(csr_read(CSR_MCTRCTL));
    probe_out.cause[OP_SISELECT] =
        RT_TRAP_CAUSE(csr_write(CSR_SISELECT, CTR_ISELECT_FIRST));
    probe_out.cause[OP_SIREG] = RT_TRAP_CAUSE(csr_read(CSR_SIREG));
    probe_out.cause[OP_SIREG4] =
        RT_TRAP_CAUSE(probe_out.sireg4 = csr_read(CSR_SIREG4));
    probe_out.cause[OP_VSIREG] = RT_TRAP_CAUSE(csr_read(CSR_VSIREG));
    probe_out.cause[OP_SCTRCLR] = RT_TRAP_CAUSE(sctrclr());
    return 0;
}

/* What the specifications require; RT_NO_TRAP when the access works. */
static long expected_cause(enum op op, int mode, bool m_ctr, bool h_ctr)
{
    const long ill = CAUSE_INSN_ILLEGAL, virt = CAUSE_VIRT_INSN;
    bool ctr_state = op != OP_MCTRCTL && op != OP_SISELECT;

    if (op_level[op] == LEVEL_H && !rt_has_h) {
        return ill;                     /* no such CSR */
    }
    if (mode == RT_MODE_M) {
        return RT_NO_TRAP;
    }
    if (op_level[op] == LEVEL_M) {
        return ill;
    }
    if (mode == RT_MODE_U) {
        return ill;
    }
    /* Below M-mode, mstateen0.CTR=0 hides the CTR state entirely. */
    if (ctr_state && has_stateen && !m_ctr) {
        return ill;
    }
    if (mode == RT_MODE_VU) {
        return virt;                    /* S/H-level state, SCTRCLR */
    }
    if (mode == RT_MODE_VS) {
        if (op_level[op] == LEVEL_H || op == OP_SCTRDEPTH) {
            return virt;
        }
        if (ctr_state && has_stateen && !h_ctr) {
            return virt;
        }
    }
    return RT_NO_TRAP;
}

static void set_stateen(bool m_ctr, bool h_ctr)
{
    unsigned long m = STATEEN0_CSRIND | (m_ctr ? STATEEN0_CTR : 0);

    if (!has_stateen) {
        return;
    }
    csr_write(CSR_MSTATEEN0, m);
    if (rt_has_h) {
        csr_write(CSR_HSTATEEN0, STATEEN0_CSRIND | (h_ctr ? STATEEN0_CTR : 0));
    }
}

static void run_case(int mode, bool m_ctr, bool h_ctr)
{
    set_stateen(m_ctr, h_ctr);
    csr_write(CSR_SISELECT, CTR_ISELECT_FIRST);
    if (rt_has_h) {
        csr_write(CSR_VSISELECT, CTR_ISELECT_FIRST);
    }
    memset(&probe_out, 0x55, sizeof(probe_out));
    if (mode == RT_MODE_M) {
        probe(0);
    } else {
        rt_call_in_mode(mode, probe, 0);
    }
    for (int op = 0; op < NR_OPS; op++) {
        long want = expected_cause(op, mode, m_ctr, h_ctr);

        if (!CHECK_EQ(probe_out.cause[op], want)) {
            rt_printf("  ^ %s from %s, mstateen0.CTR=%d hstateen0.CTR=%d\n",
                      op_names[op], rt_mode_name(mode), m_ctr, h_ctr);
        }
    }
    if (probe_out.cause[OP_SIREG4] == RT_NO_TRAP) {
        CHECK_EQ(probe_out.sireg4, 0);
    }
}

int main(void)
{
    static const int modes[] = {
        RT_MODE_M, RT_MODE_S, RT_MODE_U, RT_MODE_VS, RT_MODE_VU
    };

    has_stateen = RT_TRAP_CAUSE(csr_read(CSR_MSTATEEN0)) == RT_NO_TRAP;
    rt_printf("test-ctr-access: H %s, Smstateen %s\n",
              rt_has_h ? "present" : "absent",
              has_stateen ? "present" : "absent");

    if (has_stateen) {
        /* mstateen0.CTR must be writable whenever CTR exists. */
        csr_write(CSR_MSTATEEN0, STATEEN0_CTR);
        CHECK_EQ(csr_read(CSR_MSTATEEN0) & STATEEN0_CTR, STATEEN0_CTR);
        if (rt_has_h) {
            csr_write(CSR_HSTATEEN0, STATEEN0_CTR);
            CHECK_EQ(csr_read(CSR_HSTATEEN0) & STATEEN0_CTR, STATEEN0_CTR);
            /* ... and hstateen0.CTR is read-only 0 while it is clear. */
            csr_write(CSR_MSTATEEN0, 0);
            csr_write(CSR_HSTATEEN0, STATEEN0_CTR);
            CHECK_EQ(csr_read(CSR_HSTATEEN0) & STATEEN0_CTR, 0);
        }
    }

    for (unsigned i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        if ((modes[i] & 4) && !rt_has_h) {
            continue;
        }
        for (int m_ctr = 0; m_ctr <= 1; m_ctr++) {
            for (int h_ctr = 0; h_ctr <= 1; h_ctr++) {
                run_case(modes[i], m_ctr, h_ctr);
            }
        }
    }
    return 0;
}
