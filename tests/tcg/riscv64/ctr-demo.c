/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Demonstration: record one control transfer of each type with CTR in
 * M-mode, read the entries back through siselect/sireg*, print them
 * decoded and check them against the addresses of the workload's labels.
 *
 * Logical entry 0 is the newest record (Smctr/Ssctr 1.0, sctrstatus).
 * ctrtarget of a not-taken branch is the next instruction, the
 * destination the hart actually went to.
 */

#include "rt.h"
#include "ctr-decode.h"
#include "ctr-entry.h"
#include "ctr-demo.h"

#define DEMO_DEPTH  16

struct expected_entry {
    enum ctr_type type;
    const char *source;
    const char *target;
};

/* Newest first. */
static const struct expected_entry expected[] = {
    { CTR_TYPE_TRAP_RETURN, demo_mret, demo_after_ecall },
    { CTR_TYPE_EXCEPTION, demo_ecall, demo_trap },
    { CTR_TYPE_INDJUMP, demo_ijmp, demo_ijmp_tgt },
    { CTR_TYPE_CORSWAP, demo_swap, demo_swap_tgt },
    { CTR_TYPE_INDLJUMP, demo_lijmp, demo_lijmp_tgt },
    { CTR_TYPE_DIRLJUMP, demo_ljmp, demo_ljmp_tgt },
    { CTR_TYPE_NT_BRANCH, demo_nbr, demo_nbr_next },
    { CTR_TYPE_TK_BRANCH, demo_br, demo_br_tgt },
    { CTR_TYPE_DIRJUMP, demo_jmp, demo_jmp_tgt },
    { CTR_TYPE_RETURN, demo_ret, demo_after_icall },
    { CTR_TYPE_INDCALL, demo_icall, demo_leaf },
    { CTR_TYPE_RETURN, demo_ret, demo_after_call },
    { CTR_TYPE_DIRCALL, demo_call, demo_leaf },
};
#define NR_EXPECTED (sizeof(expected) / sizeof(expected[0]))

struct symbol {
    const char *name;
    const char *addr;
};

#define SYM(s) { #s, s }
/* Labels of transfer instructions, preferred when naming a source... */
static const struct symbol source_syms[] = {
    SYM(demo_call), SYM(demo_icall), SYM(demo_ret), SYM(demo_jmp),
    SYM(demo_br), SYM(demo_nbr), SYM(demo_ljmp), SYM(demo_lijmp),
    SYM(demo_swap), SYM(demo_ijmp), SYM(demo_ecall), SYM(demo_mret),
    { NULL, NULL }
};

/* ...and labels of destinations, preferred when naming a target. */
static const struct symbol target_syms[] = {
    SYM(demo_after_call), SYM(demo_after_icall), SYM(demo_leaf),
    SYM(demo_jmp_tgt), SYM(demo_br_tgt), SYM(demo_nbr_next),
    SYM(demo_ljmp_tgt), SYM(demo_lijmp_tgt), SYM(demo_swap_tgt),
    SYM(demo_ijmp_tgt), SYM(demo_trap), SYM(demo_after_ecall),
    { NULL, NULL }
};
#undef SYM

static const char *lookup(const struct symbol *syms, unsigned long pc)
{
    for (; syms->name; syms++) {
        if ((unsigned long)syms->addr == pc) {
            return syms->name;
        }
    }
    return NULL;
}

static const char *symbolize(unsigned long pc, bool is_source)
{
    const char *name = lookup(is_source ? source_syms : target_syms, pc);

    if (!name) {
        name = lookup(is_source ? target_syms : source_syms, pc);
    }
    return name ? name : "?";
}

int main(void)
{
    const unsigned long ctl = CTRCTL_M | CTRCTL_NTBREN;
    unsigned valid = 0;

    rt_printf("CTR demo: mctrctl = 0x%lx (M-mode enabled, not-taken "
              "branches enabled), depth %u\n", ctl, DEMO_DEPTH);
    csr_write(CSR_SCTRDEPTH, 0);
    CHECK_EQ(csr_read(CSR_SCTRDEPTH), 0);
    sctrclr();

    ctr_demo_work(ctl);

    rt_printf("sctrstatus = 0x%lx\n", csr_read(CSR_SCTRSTATUS));
    rt_printf("%5s %-20s %-27s    %s\n", "entry", "type", "source",
              "target");
    for (unsigned i = 0; i < DEMO_DEPTH; i++) {
        struct ctr_entry e = ctr_read_entry(i);
        unsigned type = e.data & CTRDATA_TYPE_MASK;
        unsigned long src = e.source & CTR_PC_MASK;
        unsigned long tgt = e.target & CTR_PC_MASK;

        if (!(e.source & CTRSOURCE_V)) {
            continue;
        }
        valid++;
        rt_printf("%5u %-20s 0x%08lx %-16s -> 0x%08lx %s\n", i,
                  ctr_type_name(type), src, symbolize(src, true), tgt,
                  symbolize(tgt, false));
        if (i < NR_EXPECTED) {
            CHECK_EQ(type, expected[i].type);
            CHECK_EQ(src, (unsigned long)expected[i].source);
            CHECK_EQ(tgt, (unsigned long)expected[i].target);
        }
    }
    rt_printf("%u valid entries\n", valid);
    CHECK_EQ(valid, NR_EXPECTED);
    return 0;
}
