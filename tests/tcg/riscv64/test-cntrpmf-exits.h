/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by test-cntrpmf-exits.c and cntrpmf-exits-work.S: the layout of
 * a measured run, the hand counts of the windows (the number of their
 * instructions that retire, checked against the labels by the
 * assembler) and instruction encodings the assembler may not know.
 */
#ifndef TEST_CNTRPMF_EXITS_H
#define TEST_CNTRPMF_EXITS_H

/* struct xr_run offsets */
#define XR_PC           0
#define XR_MODE         8
#define XR_A0           16
#define XR_A1           24
#define XR_A2           32
#define XR_RA           40
#define XR_IRQ_DELTA    48
#define XR_I0           56
#define XR_I1           64
#define XR_CAUSE        72
#define XR_EPC          80
#define XR_TVAL         88
#define XR_OUT_A0       96
#define XR_OUT_A1       104
#define XR_OUT_RA       112
#define XR_NIRQ         120
#define XR_SAVE_T4      128
#define XR_SAVE_T5      136
#define XR_SIZE         144

/* The virt machine's ACLINT (hart 0) and UART. */
#define VIRT_MTIMECMP   0x2004000
#define VIRT_MTIME      0x200bff8
#define VIRT_UART       0x10000000

/*
 * Hand counts: instructions of each window that retire (see the window
 * in cntrpmf-exits-work.S for the list).
 */
#define XW_WFI_FIRST_N      6       /* wfi, 5 addi */
#define XW_WFI_MID_N        9       /* 3 addi, wfi, 5 addi */
#define XW_WFI_U_N          4       /* 4 addi; the wfi traps */
#define XW_EXC_BEFORE       5       /* addi before each faulting insn */
#define XW_MMIO_N           16      /* 5, lbu, 3, sb, 3, ld, 2 */
#define XW_MMIO_FIRST_N     6       /* lbu, 5 addi */
#define XW_BLKEND_N         8       /* 3 addi, the insn, 4 addi */
#define XW_TRIG_N           5       /* addi before the trigger */
#define XW_XPAGE1_N         8       /* 8 addi up to the page end */
#define XW_XPAGE2_N         7       /* 6 addi, c.addi; then straddler */
#define XW_LOOP_INSNS       3       /* per iteration */
#define XW_LP_JUMP_N        7       /* 3 addi, auipc, addi, lui, jalr */
#define XW_LP_GOOD_N        14      /* the 7, lpad, 6 addi */
#define XW_LP_X7_N          12      /* 3 addi, auipc, addi, jalr, 6 addi */
#define XW_SS_BAD_N         4       /* 4 addi; the sspopchk traps */
#define XW_SS_GOOD_N        11      /* 2, sspush, 2, sspopchk, 5 */
#define XW_JALT_BAD_N       5       /* 5 addi; the cm.jalt traps */
#define XW_JALT_GOOD_N      10      /* 5 addi, cm.jalt, 4 addi */
#define XW_JT_BAD_N         3       /* 3 addi; the cm.jt traps */
#define XW_JT_GOOD_N        6       /* 3 addi, cm.jt, 2 addi */

/* Zicfilp labels: the landing pads' and a different one in x7. */
#define XW_LP_LABEL         0x1234a
#define XW_LP_WRONG         0x0beef

/* Zcmt table indexes: cm.jt 1 and cm.jalt 32. */
#define XW_JT_INDEX         1
#define XW_JALT_INDEX       32

/* Encodings (binutils 2.40 knows neither Zicfilp, Zicfiss nor Zcmt). */
#define INSN_LPAD(label)    (((label) << 12) | 0x17)     /* auipc x0 */
#define INSN_SSPUSH_RA      0xce104073  /* sspush x1 */
#define INSN_SSPOPCHK_RA    0xcdc0c073  /* sspopchk x1 */
#define INSN_CM_JT(i)       (0xa002 | ((i) << 2))   /* index < 32 */
#define INSN_CM_JALT(i)     (0xa002 | ((i) << 2))   /* index >= 32 */

#endif
