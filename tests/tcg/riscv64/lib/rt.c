/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bare-metal guest test runtime: start-up, trap dispatch, mode switching,
 * expected traps, console output and checks.
 */

#include "rt.h"
#include "rt-internal.h"

#define VIRT_UART0          0x10000000UL
#define UART_THR            0
#define UART_LSR            5
#define UART_LSR_THRE       0x20

#define VIRT_TEST_FINISHER  0x100000UL
#define FINISHER_PASS       0x5555
#define FINISHER_FAIL       0x3333

#define RT_MAX_NESTING      8
#define RT_NR_CAUSES        64

bool rt_has_h;
/* volatile: written by trap handlers behind the compiler's back */
volatile struct rt_trap_record rt_last_trap;
static volatile bool trap_armed;    /* volatile: read by trap handlers */
static unsigned checks_run;
static unsigned checks_failed;

/* Handlers per level; [0] synchronous, [1] interrupts. */
static rt_trap_handler handlers[3][2][RT_NR_CAUSES];

/* Frames of the callers of rt_call_in_mode, innermost last. */
static struct rt_frame call_stack[RT_MAX_NESTING];
static int call_depth;


void *memset(void *s, int c, size_t n)
{
    /* volatile: keeps GCC from turning this loop into a memset() call */
    volatile unsigned char *p = s;

    while (n--) {
        *p++ = c;
    }
    return s;
}

void *memcpy(void *dst, const void *src, size_t n)
{
    /* volatile: keeps GCC from turning this loop into a memcpy() call */
    volatile unsigned char *d = dst;
    const unsigned char *s = src;

    while (n--) {
        *d++ = *s++;
    }
    return dst;
}

void rt_putc(char c)
{
    volatile uint8_t *uart = (volatile uint8_t *)VIRT_UART0;   /* MMIO */

    if (c == '\n') {
        rt_putc('\r');
    }
    while (!(uart[UART_LSR] & UART_LSR_THRE)) {
        /* wait */
    }
    uart[UART_THR] = c;
}

void rt_puts(const char *s)
{
    while (*s) {
        rt_putc(*s++);
    }
}

static int put_num(uint64_t v, unsigned base, bool neg, int width, char pad)
{
    char buf[24];
    int n = 0, len;

    do {
        unsigned d = v % base;
        buf[n++] = d < 10 ? '0' + d : 'a' + d - 10;
        v /= base;
    } while (v);
    len = n + neg;
    if (neg && pad == '0') {
        rt_putc('-');
    }
    for (int i = len; i < width; i++) {
        rt_putc(pad);
    }
    if (neg && pad != '0') {
        rt_putc('-');
    }
    while (n) {
        rt_putc(buf[--n]);
    }
    return len > width ? len : width;
}

/* printf subset: %[-0][width][l|ll|z]{d,i,u,x,p,s,c,%} */
int rt_vprintf(const char *fmt, va_list ap)
{
    int out = 0;

    for (; *fmt; fmt++) {
        char pad = ' ';
        int width = 0, longs = 0;
        bool left = false;

        if (*fmt != '%') {
            rt_putc(*fmt);
            out++;
            continue;
        }
        fmt++;
        if (*fmt == '-') {
            left = true;
            fmt++;
        }
        if (*fmt == '0') {
            pad = '0';
            fmt++;
        }
        while (*fmt >= '0' && *fmt <= '9') {
            width = width * 10 + (*fmt++ - '0');
        }
        while (*fmt == 'l' || *fmt == 'z') {
            longs++;
            fmt++;
        }
        switch (*fmt) {
        case 'd':
        case 'i': {
            int64_t v = longs ? va_arg(ap, long) : va_arg(ap, int);
            uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;

            out += put_num(mag, 10, v < 0, width, pad);
            break;
        }
        case 'u':
        case 'x': {
            uint64_t v = longs ? va_arg(ap, unsigned long)
                               : va_arg(ap, unsigned int);
            out += put_num(v, *fmt == 'x' ? 16 : 10, false, width, pad);
            break;
        }
        case 'p':
            rt_puts("0x");
            out += 2 + put_num((uintptr_t)va_arg(ap, void *), 16, false,
                               width, pad);
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            int len = 0;

            while (s[len]) {
                len++;
            }
            for (int i = len; !left && i < width; i++) {
                rt_putc(' ');
            }
            rt_puts(s);
            for (int i = len; left && i < width; i++) {
                rt_putc(' ');
            }
            out += len > width ? len : width;
            break;
        }
        case 'c':
            rt_putc(va_arg(ap, int));
            out++;
            break;
        case '%':
            rt_putc('%');
            out++;
            break;
        default:
            rt_putc('?');
            out++;
            break;
        }
    }
    return out;
}

int rt_printf(const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = rt_vprintf(fmt, ap);
    va_end(ap);
    return n;
}

static void finish(uint32_t value) __attribute__((noreturn));
static void finish(uint32_t value)
{
    *(volatile uint32_t *)VIRT_TEST_FINISHER = value;  /* MMIO */
    for (;;) {
        asm volatile("wfi");
    }
}

void rt_exit(int code)
{
    if (checks_failed && !code) {
        code = 1;
    }
    rt_printf("%s: %u checks, %u failed, exit code %d\n",
              code ? "FAIL" : "PASS", checks_run, checks_failed, code);
    finish(code ? FINISHER_FAIL | ((uint32_t)code << 16) : FINISHER_PASS);
}

void rt_start_hart1(void (*fn)(void))
{
    rt_hart1_fn = fn;
    asm volatile("fence w, w" : : : "memory");
    *(volatile uint32_t *)RT_CLINT_MSIP1 = 1;           /* MMIO */
}

bool rt_check_eq(const char *file, int line, const char *actual_expr,
                 const char *expected_expr, uint64_t actual,
                 uint64_t expected)
{
    checks_run++;
    if (actual == expected) {
        return true;
    }
    checks_failed++;
    rt_printf("FAIL %s:%d: %s: expected 0x%lx (%s), got 0x%lx\n",
              file, line, actual_expr, expected, expected_expr, actual);
    return false;
}

unsigned rt_failures(void)
{
    return checks_failed;
}

void rt_set_trap_handler(int level, unsigned long cause, rt_trap_handler fn)
{
    unsigned idx = cause & ~CAUSE_INTERRUPT;

    if (level < RT_LEVEL_M || level > RT_LEVEL_VS || idx >= RT_NR_CAUSES) {
        rt_printf("rt_set_trap_handler: bad level %d or cause 0x%lx\n",
                  level, cause);
        rt_exit(2);
    }
    handlers[level][!!(cause & CAUSE_INTERRUPT)][idx] = fn;
}

void rt_expect_trap(void)
{
    rt_last_trap.taken = false;
    trap_armed = true;
}

long rt_trap_taken(void)
{
    trap_armed = false;
    return rt_last_trap.taken ? (long)rt_last_trap.cause : RT_NO_TRAP;
}

void rt_skip_insn(struct rt_frame *f)
{
    uint16_t low = *(const uint16_t *)f->epc;

    f->epc += (low & 3) == 3 ? 4 : 2;
}

long rt_call_in_mode(enum rt_mode mode, long (*fn)(long), long arg)
{
    return rt_ecall(RT_ECALL_ENTER, mode, (long)fn, arg);
}

unsigned long rt_ecall_cause(int mode)
{
    switch (mode) {
    case RT_MODE_M:
        return CAUSE_ECALL_M;
    case RT_MODE_S:
        return CAUSE_ECALL_S;
    case RT_MODE_VS:
        return CAUSE_ECALL_VS;
    default:
        return CAUSE_ECALL_U;
    }
}

const char *rt_mode_name(int mode)
{
    switch (mode) {
    case RT_MODE_M:
        return "M";
    case RT_MODE_S:
        return rt_has_h ? "HS" : "S";
    case RT_MODE_U:
        return "U";
    case RT_MODE_VS:
        return "VS";
    case RT_MODE_VU:
        return "VU";
    }
    return "?";
}

enum rt_mode rt_current_mode(void)
{
    return rt_ecall(RT_ECALL_MODE, 0, 0, 0);
}

int rt_trapped_mode(int level, const struct rt_frame *f)
{
    switch (level) {
    case RT_LEVEL_M:
        return ((f->status & MSTATUS_MPP) >> MSTATUS_MPP_SHIFT) |
               ((f->status & MSTATUS_MPV) ? 4 : 0);
    case RT_LEVEL_HS:
        return ((f->status & SSTATUS_SPP) ? RT_MODE_S : RT_MODE_U) |
               (rt_has_h && (csr_read(CSR_HSTATUS) & HSTATUS_SPV) ? 4 : 0);
    default:
        return (f->status & SSTATUS_SPP) ? RT_MODE_VS : RT_MODE_VU;
    }
}

static void set_mpp(struct rt_frame *f, int mode)
{
    f->status &= ~(MSTATUS_MPP | MSTATUS_MPV | MSTATUS_MPRV);
    f->status |= (unsigned long)(mode & 3) << MSTATUS_MPP_SHIFT;
    if (mode & 4) {
        f->status |= MSTATUS_MPV;
    }
}

static void fatal_trap(int level, const struct rt_frame *f, const char *why)
{
    static const char *const names[] = { "M", "HS", "VS" };

    rt_printf("FAIL: %s: trap at level %s from mode %d: cause 0x%lx "
              "epc 0x%lx tval 0x%lx\n", why, names[level],
              rt_trapped_mode(level, f), f->cause, f->epc, f->tval);
    rt_exit(3);
}

/* The runtime's own ecalls, always handled in M-mode. */
static bool runtime_ecall(struct rt_frame *f)
{
    int mode;

    switch (f->x[17]) {
    case RT_ECALL_ENTER:
        mode = f->x[10];
        if (call_depth == RT_MAX_NESTING ||
            !(mode == RT_MODE_U || mode == RT_MODE_S || mode == RT_MODE_M ||
              ((mode == RT_MODE_VU || mode == RT_MODE_VS) && rt_has_h))) {
            fatal_trap(RT_LEVEL_M, f, "rt_call_in_mode: bad mode or nesting");
        }
        call_stack[call_depth++] = *f;
        f->epc = (unsigned long)rt_mode_trampoline;
        f->x[10] = f->x[11];
        f->x[11] = f->x[12];
        f->x[2] = (f->x[2] - 256) & ~15UL;
        set_mpp(f, mode);
        return true;
    case RT_ECALL_RETURN: {
        unsigned long result = f->x[11];

        if (call_depth == 0) {
            fatal_trap(RT_LEVEL_M, f, "return without rt_call_in_mode");
        }
        *f = call_stack[--call_depth];
        f->x[10] = result;
        f->epc += 4;
        return true;
    }
    case RT_ECALL_MODE:
        f->x[10] = rt_trapped_mode(RT_LEVEL_M, f);
        f->epc += 4;
        return true;
    }
    return false;
}

void rt_trap(int level, struct rt_frame *f)
{
    bool irq = f->cause & CAUSE_INTERRUPT;
    unsigned long code = f->cause & ~CAUSE_INTERRUPT;
    rt_trap_handler fn = NULL;

    if (level == RT_LEVEL_M && !irq &&
        code >= CAUSE_ECALL_U && code <= CAUSE_ECALL_M &&
        runtime_ecall(f)) {
        return;
    }
    if (code < RT_NR_CAUSES) {
        fn = handlers[level][irq][code];
    }
    if (fn) {
        fn(f, level);
        return;
    }
    if (trap_armed && !irq) {
        rt_last_trap.level = level;
        rt_last_trap.from_mode = rt_trapped_mode(level, f);
        rt_last_trap.cause = f->cause;
        rt_last_trap.tval = f->tval;
        rt_last_trap.epc = f->epc;
        rt_last_trap.taken = true;
        trap_armed = false;
        rt_skip_insn(f);
        return;
    }
    fatal_trap(level, f, "unexpected trap");
}

void rt_start(void)
{
    rt_has_h = csr_read(CSR_MISA) & MISA_H;

    /* Let S/U reach all memory: one NAPOT region over everything. */
    csr_write(CSR_PMPADDR0, -1UL);
    csr_write(CSR_PMPCFG0, 0x1f);

    csr_write(CSR_MEDELEG, 0);
    csr_write(CSR_MIDELEG, 0);
    csr_write(CSR_STVEC, (unsigned long)rt_strap_entry);
    csr_write(CSR_SSCRATCH, (unsigned long)rt_strap_stack_top);
    csr_write(CSR_SATP, 0);
    if (rt_has_h) {
        csr_write(CSR_HEDELEG, 0);
        csr_write(CSR_HIDELEG, 0);
        csr_write(CSR_HGATP, 0);
        csr_write(CSR_VSATP, 0);
        csr_write(CSR_VSTVEC, (unsigned long)rt_vstrap_entry);
        csr_write(CSR_VSSCRATCH, (unsigned long)rt_vstrap_stack_top);
    }
    rt_exit(main());
}
