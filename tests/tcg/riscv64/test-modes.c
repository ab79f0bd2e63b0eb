/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Enter every privilege mode (M, S/HS, U and, with the H extension, VS
 * and VU), prove the mode with CSR accesses that must succeed or trap in
 * it, and come back.
 *
 * Expected outcomes (privileged spec, "CSR Address Mapping Conventions";
 * H extension, "Virtual Instruction Exceptions"):
 *   mode  mstatus  sstatus  hstatus
 *   M     ok       ok       ok (illegal without H)
 *   HS    illegal  ok       ok (illegal without H)
 *   U     illegal  illegal  illegal
 *   VS    illegal  ok       virtual-instruction
 *   VU    illegal  virtual  virtual-instruction
 * Every trap must also report the mode it was taken from.
 */

#include "rt.h"

enum { PROBE_MSTATUS, PROBE_SSTATUS, PROBE_HSTATUS, NR_PROBES };

struct probe_result {
    long cause[NR_PROBES];
    int from_mode[NR_PROBES];
};

static struct probe_result result;

static void record(int i, long cause)
{
    result.cause[i] = cause;
    result.from_mode[i] = cause == RT_NO_TRAP ? -1 : rt_last_trap.from_mode;
}

/* Runs in the mode under test; returns the mode M-mode saw it call from. */
static long probe(long unused)
{
    record(PROBE_MSTATUS, RT_TRAP_CAUSE((void)csr_read(CSR_MSTATUS)));
    record(PROBE_SSTATUS, RT_TRAP_CAUSE((void)csr_read(CSR_SSTATUS)));
    record(PROBE_HSTATUS, RT_TRAP_CAUSE((void)csr_read(CSR_HSTATUS)));
    return rt_current_mode();
}

static void check_mode(int mode, long mstatus, long sstatus, long hstatus)
{
    const long expected[NR_PROBES] = { mstatus, sstatus, hstatus };
    long seen;

    memset(&result, 0x55, sizeof(result));
    seen = mode == RT_MODE_M ? probe(0) : rt_call_in_mode(mode, probe, 0);
    rt_printf("%-2s: mstatus %ld, sstatus %ld, hstatus %ld (cause, -1 = no "
              "trap)\n", rt_mode_name(mode), result.cause[0], result.cause[1],
              result.cause[2]);

    CHECK_EQ(seen, mode);
    for (int i = 0; i < NR_PROBES; i++) {
        CHECK_EQ(result.cause[i], expected[i]);
        CHECK_EQ(result.from_mode[i], expected[i] == RT_NO_TRAP ? -1 : mode);
    }
    /* Back in M-mode: an M-only CSR is accessible again. */
    CHECK_EQ(RT_TRAP_CAUSE((void)csr_read(CSR_MSCRATCH)), RT_NO_TRAP);
    CHECK_EQ(rt_current_mode(), RT_MODE_M);
}

/* The nested chain HS -> VS -> VU and back, results flowing upwards. */
static long in_vu(long x)
{
    return x * 10 + rt_current_mode();
}

static long in_vs(long x)
{
    long r = rt_call_in_mode(RT_MODE_VU, in_vu, x * 10 + rt_current_mode());

    /* Back in VS-mode: sstatus accessible, hstatus not. */
    CHECK_EQ(RT_TRAP_CAUSE((void)csr_read(CSR_SSTATUS)), RT_NO_TRAP);
    CHECK_EQ(RT_TRAP_CAUSE((void)csr_read(CSR_HSTATUS)), CAUSE_VIRT_INSN);
    return r * 10 + rt_current_mode();
}

static long in_hs(long x)
{
    long r = rt_call_in_mode(RT_MODE_VS, in_vs, x * 10 + rt_current_mode());

    CHECK_EQ(RT_TRAP_CAUSE((void)csr_read(CSR_HSTATUS)), RT_NO_TRAP);
    return r * 10 + rt_current_mode();
}

/* U -> S: a less privileged mode can call up through the runtime, too. */
static long in_s(long x)
{
    return x + rt_current_mode();
}

static long in_u(long x)
{
    return rt_call_in_mode(RT_MODE_S, in_s, x) * 10 + rt_current_mode();
}

int main(void)
{
    const long ill = CAUSE_INSN_ILLEGAL, virt = CAUSE_VIRT_INSN;
    const long h_ok = rt_has_h ? RT_NO_TRAP : ill;

    rt_printf("test-modes: H extension %s\n", rt_has_h ? "present" : "absent");

    check_mode(RT_MODE_M, RT_NO_TRAP, RT_NO_TRAP, h_ok);
    check_mode(RT_MODE_S, ill, RT_NO_TRAP, h_ok);
    check_mode(RT_MODE_U, ill, ill, ill);
    if (rt_has_h) {
        check_mode(RT_MODE_VS, ill, RT_NO_TRAP, virt);
        check_mode(RT_MODE_VU, ill, virt, virt);

        /* M -> HS(1) -> VS(5) -> VU(4) and back, a digit per level. */
        CHECK_EQ(rt_call_in_mode(RT_MODE_HS, in_hs, 7), 715451);
    }
    /* M -> U(0) -> S(1) and back: (7 + 1) * 10 + 0. */
    CHECK_EQ(rt_call_in_mode(RT_MODE_U, in_u, 7), 80);
    CHECK_EQ(rt_current_mode(), RT_MODE_M);
    return 0;
}
