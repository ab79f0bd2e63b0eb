/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CSR numbers and access by number for the guest tests.  Numbers are
 * used instead of names so that any assembler accepts them.
 */
#ifndef RT_CSR_H
#define RT_CSR_H

/* Machine level */
#define CSR_MSTATUS         0x300
#define CSR_MISA            0x301
#define CSR_MEDELEG         0x302
#define CSR_MIDELEG         0x303
#define CSR_MIE             0x304
#define CSR_MTVEC           0x305
#define CSR_MCOUNTEREN      0x306
#define CSR_MENVCFG         0x30a
#define CSR_MSTATEEN0       0x30c
#define CSR_MCOUNTINHIBIT   0x320
#define CSR_MCYCLECFG       0x321
#define CSR_MINSTRETCFG     0x322
/* Fields of mcyclecfg/minstretcfg (Smcntrpmf), as of mhpmevent (Sscofpmf). */
#define CFG_OF              (1UL << 63)
#define CFG_MINH            (1UL << 62)
#define CFG_SINH            (1UL << 61)
#define CFG_UINH            (1UL << 60)
#define CFG_VSINH           (1UL << 59)
#define CFG_VUINH           (1UL << 58)
#define CSR_MSCRATCH        0x340
#define CSR_MEPC            0x341
#define CSR_MCAUSE          0x342
#define CSR_MTVAL           0x343
#define CSR_MIP             0x344
#define CSR_MTINST          0x34a
#define CSR_MTVAL2          0x34b
#define CSR_MCTRCTL         0x34e
#define CSR_MISELECT        0x350
#define CSR_MIREG           0x351
#define CSR_PMPCFG0         0x3a0
#define CSR_PMPADDR0        0x3b0
#define CSR_MCYCLE          0xb00
#define CSR_MINSTRET        0xb02
#define CSR_MHARTID         0xf14

/* Supervisor level */
#define CSR_SSTATUS         0x100
#define CSR_SIE             0x104
#define CSR_STVEC           0x105
#define CSR_SCOUNTEREN      0x106
#define CSR_SENVCFG         0x10a
#define CSR_SSTATEEN0       0x10c
#define CSR_SSCRATCH        0x140
#define CSR_SEPC            0x141
#define CSR_SCAUSE          0x142
#define CSR_STVAL           0x143
#define CSR_SIP             0x144
#define CSR_SCTRCTL         0x14e
#define CSR_SCTRSTATUS      0x14f
#define CSR_SISELECT        0x150
#define CSR_SIREG           0x151
#define CSR_SIREG2          0x152
#define CSR_SIREG3          0x153
#define CSR_SIREG4          0x155
#define CSR_SIREG5          0x156
#define CSR_SIREG6          0x157
#define CSR_SCTRDEPTH       0x15f
#define CSR_SATP            0x180

/* Hypervisor and virtual supervisor level */
#define CSR_VSSTATUS        0x200
#define CSR_VSTVEC          0x205
#define CSR_VSSCRATCH       0x240
#define CSR_VSEPC           0x241
#define CSR_VSCAUSE         0x242
#define CSR_VSTVAL          0x243
#define CSR_VSCTRCTL        0x24e
#define CSR_VSISELECT       0x250
#define CSR_VSIREG          0x251
#define CSR_VSIREG2         0x252
#define CSR_VSIREG3         0x253
#define CSR_VSATP           0x280
#define CSR_HSTATUS         0x600
#define CSR_HEDELEG         0x602
#define CSR_HIDELEG         0x603
#define CSR_HCOUNTEREN      0x606
#define CSR_HSTATEEN0       0x60c
#define CSR_HTVAL           0x643
#define CSR_HTINST          0x64a
#define CSR_HGATP           0x680

/* Unprivileged counters */
#define CSR_CYCLE           0xc00
#define CSR_INSTRET         0xc02

/* Field values */
#define MSTATUS_MPP_SHIFT   11
#define MSTATUS_MPP         (3UL << MSTATUS_MPP_SHIFT)
#define MSTATUS_MPRV        (1UL << 17)
#define MSTATUS_MPV         (1UL << 39)
#define SSTATUS_SPP         (1UL << 8)
#define HSTATUS_SPV         (1UL << 7)
#define MISA_H              (1UL << ('H' - 'A'))
#define STATEEN0_CTR        (1UL << 54)
#define STATEEN0_CSRIND     (1UL << 60)
#define STATEEN0_SE0        (1UL << 63)

/* Exception causes */
#define CAUSE_INSN_ILLEGAL  2
#define CAUSE_BREAKPOINT    3
#define CAUSE_ECALL_U       8
#define CAUSE_ECALL_S       9
#define CAUSE_ECALL_VS      10
#define CAUSE_ECALL_M       11
#define CAUSE_VIRT_INSN     22
#define CAUSE_INTERRUPT     (1UL << 63)

#define RT_STR(x) #x
#define RT_XSTR(x) RT_STR(x)

/* Access a CSR by its (compile-time constant) number. */
#define csr_read(csr) ({                                                \
    unsigned long __v;                                                  \
    asm volatile("csrr %0, " RT_XSTR(csr) : "=r"(__v) : : "memory");   \
    __v;                                                                \
})

#define csr_write(csr, val) ({                                          \
    asm volatile("csrw " RT_XSTR(csr) ", %0"                            \
                 : : "r"((unsigned long)(val)) : "memory");             \
})

#define csr_swap(csr, val) ({                                           \
    unsigned long __v;                                                  \
    asm volatile("csrrw %0, " RT_XSTR(csr) ", %1"                       \
                 : "=r"(__v) : "r"((unsigned long)(val)) : "memory");   \
    __v;                                                                \
})

#define csr_set(csr, bits) ({                                           \
    asm volatile("csrs " RT_XSTR(csr) ", %0"                            \
                 : : "r"((unsigned long)(bits)) : "memory");            \
})

#define csr_clear(csr, bits) ({                                         \
    asm volatile("csrc " RT_XSTR(csr) ", %0"                            \
                 : : "r"((unsigned long)(bits)) : "memory");            \
})

/* SCTRCLR, encoded by hand for assemblers that do not know it. */
#define sctrclr() asm volatile(".4byte 0x10400073" : : : "memory")

#endif
