/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the calls of every source as a uftrace data directory,
 * which uftrace (0.13 and later) reads: "uftrace replay", "report",
 * "graph", "dump --chrome" and the others.  Each hart is a process of
 * its own (pid and tid N + 1, named "hartN"), whose function entries and
 * exits are 16-byte records in <tid>.dat, written as the decoder goes;
 * at the end come the files that describe them: the header (info), the
 * tasks (task.txt), each hart's memory map (sid-*.map, the guest's code
 * as one image, /etrace/guest, mapped at address 0) and its symbols
 * (guest.sym, from the ELF files).  Time is in nanoseconds: the
 * retired instruction count (one instruction per nanosecond), or the
 * packets' timestamps; a base of one second is added (uftrace takes a
 * time of 0 as unset).  docs/system/riscv/trace.rst has an example.
 *
 * uftrace's records keep 48 bits of an address, and its maps hold user
 * addresses below 0x7ffffffde000 (where the map's stack line must be):
 * functions above that keep their addresses but get no names.
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/bswap.h"
#include "uftrace.h"

#define UFT_IMAGE           "/etrace/guest"
#define UFT_SYMS            "guest.sym"
/* The stack line uftrace needs to place its kernel/user boundary. */
#define UFT_STACK_START     UINT64_C(0x7ffffffde000)
#define UFT_STACK_END       UINT64_C(0x7ffffffff000)
#define UFT_BASE_NS         UINT64_C(1000000000)
/* Record: time, then type, more (0), magic (5), depth, 48-bit address. */
#define UFT_ENTRY           0
#define UFT_EXIT            1
#define UFT_EVENT           3
#define UFT_MAGIC           5
#define UFT_MAX_DEPTH       1023
/* Instant events: their ids (events.txt). */
#define UFT_EVENT_GAP       1000000
#define UFT_EVENT_TRAP      1000001

bool etd_uftrace_begin(EtdUftrace *u, const char *dir, EtdImage *img,
                       bool timed, GError **errp)
{
    memset(u, 0, sizeof(*u));
    if (g_mkdir_with_parents(dir, 0755) < 0) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_IO, "%s: %s", dir,
                    g_strerror(errno));
        return false;
    }
    u->dir = g_strdup(dir);
    u->img = img;
    u->timed = timed;
    return true;
}

/* Records are buffered per source, this many at a time. */
#define UFT_BUF_RECORDS     4096

static void dat_flush(EtdUftrace *u, unsigned src)
{
    if (u->fill[src] &&
        fwrite(u->buf[src], 16, u->fill[src], u->dat[src]) != u->fill[src]) {
        fprintf(stderr, "etrace-decode: error ETD_ERR_IO: %s/%u.dat: %s\n",
                u->dir, src + 1, g_strerror(errno));
        exit(2);
    }
    u->fill[src] = 0;
}

static void record(EtdUftrace *u, unsigned src, unsigned type,
                   unsigned depth, uint64_t addr, uint64_t time)
{
    uint64_t *r;

    if (unlikely(!u->dat[src])) {
        g_autofree char *path = g_strdup_printf("%s/%u.dat", u->dir,
                                                src + 1);

        u->dat[src] = fopen(path, "wb");
        if (!u->dat[src]) {
            fprintf(stderr, "etrace-decode: error ETD_ERR_IO: %s: %s\n",
                    path, g_strerror(errno));
            exit(2);
        }
        u->buf[src] = g_new(uint64_t, 2 * UFT_BUF_RECORDS);
        u->sources = MAX(u->sources, src + 1);
    }
    if (u->fill[src] == UFT_BUF_RECORDS) {
        dat_flush(u, src);
    }
    r = u->buf[src] + 2 * u->fill[src]++;
    r[0] = cpu_to_le64(UFT_BASE_NS + time);
    r[1] = cpu_to_le64(type | UFT_MAGIC << 3 |
                       (uint64_t)MIN(depth, UFT_MAX_DEPTH) << 6 |
                       (addr & MAKE_64BIT_MASK(0, 48)) << 16);
    if (unlikely(!u->any)) {
        u->first_time = time;
        u->any = true;
    }
    u->last_time = time > u->last_time ? time : u->last_time;
}

static void uft_enter(void *opaque, unsigned src, EtdCallNode *n,
                      EtdEnter how, uint64_t time)
{
    if (n->depth - 1 <= UFT_MAX_DEPTH) {
        record(opaque, src, UFT_ENTRY, n->depth - 1, n->func, time);
    }
}

static void uft_leave(void *opaque, unsigned src, EtdCallNode *n,
                      uint64_t time)
{
    if (n->depth - 1 <= UFT_MAX_DEPTH) {
        record(opaque, src, UFT_EXIT, n->depth - 1, n->func, time);
    }
}

static void uft_trap(void *opaque, unsigned src, bool interrupt,
                     unsigned cause, uint64_t epc, uint64_t time)
{
    record(opaque, src, UFT_EVENT, 0, UFT_EVENT_TRAP, time);
}

static void uft_gap(void *opaque, unsigned src, const char *why,
                    uint64_t time)
{
    record(opaque, src, UFT_EVENT, 0, UFT_EVENT_GAP, time);
}

void etd_uftrace_sink(EtdUftrace *u, EtdCallSink *sink)
{
    *sink = (EtdCallSink) {
        .enter = uft_enter, .leave = uft_leave, .trap = uft_trap,
        .gap = uft_gap, .opaque = u,
    };
}

static bool write_file(EtdUftrace *u, const char *name, const char *text,
                       size_t len, GError **errp)
{
    g_autofree char *path = g_build_filename(u->dir, name, NULL);

    return g_file_set_contents(path, text, len, errp);
}

/* "sec.nsec" of a record time. */
static char *uft_time(uint64_t time)
{
    uint64_t ns = UFT_BASE_NS + time;

    return g_strdup_printf("%" PRIu64 ".%09" PRIu64, ns / 1000000000,
                           ns % 1000000000);
}

/* The symbols below the stack line, relative to the image's 0. */
static void write_syms(EtdUftrace *u, GString *s)
{
    unsigned k, n = etd_image_symbol_count(u->img);
    uint64_t last = UINT64_MAX;

    g_string_append_printf(s, "# symbols: %u\n# path name: %s\n", n,
                           UFT_IMAGE);
    for (k = 0; k < n; k++) {
        const char *name;
        uint64_t addr;

        etd_image_symbol_nth(u->img, k, &addr, &name);
        if (addr >= UFT_STACK_START || addr == last ||
            strchr(name, ' ')) {
            continue;
        }
        g_string_append_printf(s, "%016" PRIx64 " T %s\n", addr, name);
        last = addr;
    }
    g_string_append_printf(s, "%016" PRIx64 " ? __sym_end\n",
                           UFT_STACK_START);
}

void etd_uftrace_flush(EtdUftrace *u)
{
    unsigned src;

    for (src = 0; src < ETD_MAX_SOURCES; src++) {
        if (u->dat[src]) {
            dat_flush(u, src);
            fflush(u->dat[src]);
        }
    }
}

bool etd_uftrace_end(EtdUftrace *u, GError **errp)
{
    g_autoptr(GString) task = g_string_new(NULL);
    g_autoptr(GString) info = g_string_new(NULL);
    g_autoptr(GString) syms = g_string_new(NULL);
    g_autoptr(GString) tids = g_string_new(NULL);
    g_autofree char *start = uft_time(u->any ? u->first_time : 0);
    static const char events[] = "EVENT: 1000000 etrace:gap\n"
                                 "EVENT: 1000001 etrace:trap\n";
    struct {
        char magic[8];
        uint32_t version;
        uint16_t header_size;
        uint8_t endian;
        uint8_t elf_class;
        uint64_t feat_mask;
        uint64_t info_mask;
        uint16_t max_stack;
        uint16_t unused1;
        uint32_t unused2;
    } QEMU_PACKED hdr = {
        .magic = "Ftrace!",
        .version = cpu_to_le32(4),
        .header_size = cpu_to_le16(40),
        .endian = 1,
        .elf_class = etd_image_rv32(u->img) ? 1 : 2,
        /* task sessions, symbols relative to maps, max stack, events */
        .feat_mask = cpu_to_le64(0x02 | 0x20 | 0x40 | 0x80),
        /* exename, exit status, cmdline, cpuinfo, taskinfo, date, version */
        .info_mask = cpu_to_le64(0x0001 | 0x0004 | 0x0008 | 0x0010 |
                                 0x0080 | 0x0800 | 0x2000),
        .max_stack = cpu_to_le16(UFT_MAX_DEPTH + 1),
    };
    /* every hart's map: the guest's code as one image, and the stack */
    g_autofree char *map = g_strdup_printf(
        "%016" PRIx64 "-%016" PRIx64 " r-xp 00000000 00:00 0 %s\n%" PRIx64
        "-%" PRIx64 " rw-p 00000000 00:00 0 [stack]\n", UINT64_C(0),
        UFT_STACK_START, UFT_IMAGE, UFT_STACK_START, UFT_STACK_END);
    unsigned src, harts = 0;

    for (src = 0; src < u->sources; src++) {
        g_autofree char *name = NULL;

        if (!u->dat[src]) {
            continue;
        }
        dat_flush(u, src);
        g_free(u->buf[src]);
        u->buf[src] = NULL;
        if (fclose(u->dat[src]) != 0) {
            g_set_error(errp, ETD_ERROR, ETD_ERR_IO, "%s/%u.dat: %s", u->dir,
                        src + 1, g_strerror(errno));
            return false;
        }
        u->dat[src] = NULL;
        u->had[src / 64] |= UINT64_C(1) << (src % 64);
        harts++;
        g_string_append_printf(task, "SESS timestamp=%s pid=%u "
                               "sid=%016x exename=\"hart%u\"\n", start,
                               src + 1, src + 1, src);
        g_string_append_printf(tids, "%s%u", tids->len ? "," : "", src + 1);
        name = g_strdup_printf("sid-%016x.map", src + 1);
        if (!write_file(u, name, map, strlen(map), errp)) {
            return false;
        }
    }
    /* a TASK line for each hart, after every SESS line */
    for (src = 0; src < u->sources; src++) {
        if (u->had[src / 64] >> (src % 64) & 1) {
            g_string_append_printf(task, "TASK timestamp=%s tid=%u pid=%u\n",
                                   start, src + 1, src + 1);
        }
    }
    write_syms(u, syms);

    g_string_append_len(info, (const char *)&hdr, sizeof(hdr));
    g_string_append_printf(info, "exename:%s\nexit_status:0\n"
                           "cmdline:etrace-decode --output=uftrace\n"
                           "cpuinfo:lines=2\n"
                           "cpuinfo:nr_cpus=%u / %u (online/possible)\n"
                           "cpuinfo:desc=RISC-V harts traced by E-Trace\n"
                           "taskinfo:lines=2\ntaskinfo:nr_tid=%u\n"
                           "taskinfo:tids=%s\n"
                           "record_date:(E-Trace stream)\n"
                           "elapsed_time:%" PRIu64 ".%09" PRIu64 " sec\n"
                           "uftrace_version:etrace-decode (%s clock)\n",
                           UFT_IMAGE, harts, harts, harts, tids->str,
                           (u->last_time - u->first_time) / 1000000000,
                           (u->last_time - u->first_time) % 1000000000,
                           u->timed ? "timestamp" : "instruction");
    return write_file(u, "task.txt", task->str, task->len, errp) &&
           write_file(u, UFT_SYMS, syms->str, syms->len, errp) &&
           write_file(u, "events.txt", events, strlen(events), errp) &&
           write_file(u, "info", info->str, info->len, errp);
}
