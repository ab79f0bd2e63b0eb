/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sbi-shutdown: the smallest S-mode payload a firmware can boot, for
 * tracing the firmware's boot: it asks the SBI implementation to shut the
 * machine down (System Reset extension "SRST", function 0, type 0
 * shutdown, reason 0), so the run ends right after the firmware jumped
 * to the kernel's place.  Linked at 0x80200000, where QEMU's virt
 * machine puts the kernel with a 64-bit firmware.
 */

    .option norvc
    .section .text.start, "ax"
    .globl _start
_start:
    li      a7, 0x53525354      /* SRST */
    li      a6, 0               /* sbi_system_reset */
    li      a0, 0               /* shutdown */
    li      a1, 0               /* no reason */
    ecall
1:  j       1b                  /* the call does not return */
