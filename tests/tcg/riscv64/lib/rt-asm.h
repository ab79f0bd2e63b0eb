/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Constants shared by the runtime's assembly and C code.
 */
#ifndef RT_ASM_H
#define RT_ASM_H

/* Trap levels: which vector took the trap. */
#define RT_LEVEL_M          0
#define RT_LEVEL_HS         1
#define RT_LEVEL_VS         2

/* struct rt_frame layout: x0..x31, then these. */
#define RT_FRAME_EPC        (32 * 8)
#define RT_FRAME_STATUS     (33 * 8)
#define RT_FRAME_CAUSE      (34 * 8)
#define RT_FRAME_TVAL       (35 * 8)
#define RT_FRAME_SIZE       (36 * 8)

/* a7 values of the runtime's own ecalls (handled in M-mode). */
#define RT_ECALL_ENTER      0x52540001  /* a0 = mode, a1 = fn, a2 = arg */
#define RT_ECALL_RETURN     0x52540002  /* a1 = result */
#define RT_ECALL_MODE       0x52540003  /* returns the caller's mode */

#define RT_STACK_SIZE       (64 * 1024)
#define RT_TRAP_STACK_SIZE  (16 * 1024)

/* Waking a hart (rt_start_hart1): CLINT MSIP words, mie.MSIE. */
#define RT_CLINT_MSIP0      0x02000000
#define RT_CLINT_MSIP1      0x02000004
#define RT_MIE_MSIE         0x8

#endif
