/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Assembly only: save and restore the C context (ra, sp, gp, tp and the
 * callee-saved s0..s11) of a routine that leaves C for a mode switch and
 * comes back through a trap vector.  The context takes RT_CTX_SIZE bytes;
 * the words after it are the caller's.
 */
#ifndef RT_CTX_H
#define RT_CTX_H

#define RT_CTX_SIZE         (16 * 8)

/* Store the C context at 0(\base); \base is not saved. */
.macro RT_SAVE_C_CONTEXT base
    sd      ra, 0(\base)
    sd      sp, 8(\base)
    sd      gp, 16(\base)
    sd      tp, 24(\base)
    sd      s0, 32(\base)
    sd      s1, 40(\base)
    sd      s2, 48(\base)
    sd      s3, 56(\base)
    sd      s4, 64(\base)
    sd      s5, 72(\base)
    sd      s6, 80(\base)
    sd      s7, 88(\base)
    sd      s8, 96(\base)
    sd      s9, 104(\base)
    sd      s10, 112(\base)
    sd      s11, 120(\base)
.endm

/* Load the C context from 0(\base). */
.macro RT_RESTORE_C_CONTEXT base
    ld      ra, 0(\base)
    ld      sp, 8(\base)
    ld      gp, 16(\base)
    ld      tp, 24(\base)
    ld      s0, 32(\base)
    ld      s1, 40(\base)
    ld      s2, 48(\base)
    ld      s3, 56(\base)
    ld      s4, 64(\base)
    ld      s5, 72(\base)
    ld      s6, 80(\base)
    ld      s7, 88(\base)
    ld      s8, 96(\base)
    ld      s9, 104(\base)
    ld      s10, 112(\base)
    ld      s11, 120(\base)
.endm

#endif
