/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bare-metal guest test runtime for qemu-system-riscv64 -M virt -bios none.
 *
 * A test provides main(), which runs in M-mode.  It can switch to any
 * privilege mode and back with rt_call_in_mode(), install trap handlers
 * per level and cause, expect a trap around a single instruction, print
 * through the virt UART and check values; the run ends through the virt
 * test finisher with pass (0) or the failure code.
 */
#ifndef RT_H
#define RT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt-asm.h"
#include "rt-csr.h"

/* Privilege modes as (V << 2) | priv. */
enum rt_mode {
    RT_MODE_U = 0,
    RT_MODE_S = 1,          /* HS-mode when the H extension is present */
    RT_MODE_M = 3,
    RT_MODE_VU = 4,
    RT_MODE_VS = 5,
};
#define RT_MODE_HS RT_MODE_S

/* Saved state of a trapped hart; handlers may change any of it. */
struct rt_frame {
    unsigned long x[32];
    unsigned long epc;
    unsigned long status;
    unsigned long cause;
    unsigned long tval;
};

/* A trap taken while one was expected. */
struct rt_trap_record {
    bool taken;
    int level;              /* RT_LEVEL_M, RT_LEVEL_HS or RT_LEVEL_VS */
    int from_mode;          /* enum rt_mode the trap was taken from */
    unsigned long cause;
    unsigned long tval;
    unsigned long epc;
};

#define RT_NO_TRAP  (-1L)

typedef void (*rt_trap_handler)(struct rt_frame *frame, int level);

/* Set by the runtime before main() runs. */
extern bool rt_has_h;

/* The test's entry point, in M-mode; its return value is the exit code. */
int main(void);

/* Output through the virt machine's 16550 UART. */
void rt_putc(char c);
void rt_puts(const char *s);
int rt_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int rt_vprintf(const char *fmt, va_list ap);

/*
 * Run fn(arg) in @mode and return its result in the calling mode.  Works
 * from any mode and nests (e.g. HS -> VS -> VU and back).  Entry and
 * return go through M-mode (ecall), so ecalls must not be delegated while
 * it is used.  The callee runs on the caller's stack, below the caller's
 * frame; the caller's mstatus is restored on return.
 */
long rt_call_in_mode(enum rt_mode mode, long (*fn)(long), long arg);

/* The mcause of an ecall from @mode. */
unsigned long rt_ecall_cause(int mode);

/* "M", "HS" (or "S" without H), "U", "VS", "VU". */
const char *rt_mode_name(int mode);

/* The mode the hart is executing in, as seen by the M-mode runtime. */
enum rt_mode rt_current_mode(void);

/*
 * Install @fn for synchronous exception @cause (or interrupt @cause when
 * it has CAUSE_INTERRUPT set) taken at @level; NULL restores the default
 * (record the trap if one is expected, otherwise fail the test).
 */
void rt_set_trap_handler(int level, unsigned long cause, rt_trap_handler fn);

/*
 * Expecting a trap: rt_expect_trap() arms the default handlers; a trap
 * taken then is recorded in rt_last_trap and the trapping instruction
 * is skipped.  rt_trap_taken() disarms and returns the cause, or
 * RT_NO_TRAP.  RT_TRAP_CAUSE(stmt) wraps both around a statement.
 */
extern volatile struct rt_trap_record rt_last_trap;
void rt_expect_trap(void);
long rt_trap_taken(void);
#define RT_TRAP_CAUSE(stmt) ({ rt_expect_trap(); stmt; rt_trap_taken(); })

/* The enum rt_mode a trap taken at @level with saved @frame came from. */
int rt_trapped_mode(int level, const struct rt_frame *frame);

/* Skip the instruction at frame->epc (2 or 4 bytes). */
void rt_skip_insn(struct rt_frame *frame);

/* Checks: print file:line, the expression, expected and actual values. */
#define CHECK_EQ(actual, expected)                                      \
    rt_check_eq(__FILE__, __LINE__, #actual, #expected,                 \
                (uint64_t)(actual), (uint64_t)(expected))
#define CHECK(cond)                                                     \
    rt_check_eq(__FILE__, __LINE__, #cond, "true", !!(cond), 1)

bool rt_check_eq(const char *file, int line, const char *actual_expr,
                 const char *expected_expr, uint64_t actual,
                 uint64_t expected);

/* The xINH bit of @mode in mcyclecfg, minstretcfg and mhpmevent. */
static inline unsigned long rt_cfg_inh(int mode)
{
    switch (mode) {
    case RT_MODE_M:
        return CFG_MINH;
    case RT_MODE_S:
        return CFG_SINH;
    case RT_MODE_U:
        return CFG_UINH;
    case RT_MODE_VS:
        return CFG_VSINH;
    default:
        return CFG_VUINH;
    }
}

/* Number of failed checks so far. */
unsigned rt_failures(void);

/*
 * End the run through the virt test finisher: code 0 and no failed
 * check passes, anything else fails with that code (1 for checks).
 */
void rt_exit(int code) __attribute__((noreturn));

/*
 * Run @fn on hart 1 (-smp 2 or more), on its own stacks, in M-mode, while
 * hart 0 goes on.  Hart 1 takes no interrupts; a trap there ends the run
 * as an unexpected trap.  When @fn returns, hart 1 parks.  Call it once.
 */
void rt_start_hart1(void (*fn)(void));

/* Freestanding replacements the compiler may call. */
void *memset(void *s, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);

#endif
