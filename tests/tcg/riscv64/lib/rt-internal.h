/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Symbols shared by the runtime's assembly (crt.S) and rt.c only.
 */
#ifndef RT_INTERNAL_H
#define RT_INTERNAL_H

#include "rt.h"

/* Trap vectors, their stacks and the mode-switch trampoline (crt.S). */
extern char rt_mtrap_entry[], rt_strap_entry[], rt_vstrap_entry[];
extern char rt_strap_stack_top[], rt_vstrap_stack_top[];
extern char rt_mode_trampoline[];

/* What hart 1 runs once woken (crt.S); volatile: hart 1 polls it. */
extern void (*volatile rt_hart1_fn)(void);

/* ecall with a7 = @a7 and arguments a0..a2; returns a0 (crt.S). */
long rt_ecall(long a7, long a0, long a1, long a2);

/* Called by _start with a stack and cleared .bss; runs main(). */
void rt_start(void) __attribute__((noreturn));

/* Called by every trap vector with the saved frame. */
void rt_trap(int level, struct rt_frame *f);

#endif
