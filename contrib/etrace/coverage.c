/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: coverage of the program images by the decoded flow
 * (coverage.h).
 *
 * A block's runs are counted in a difference array (a run adds one at
 * its first instruction and takes one away after its last), so that a
 * run costs the same whatever its length; the counts per address are
 * summed at the end, over the blocks holding the address.  A run that
 * ends with a block's conditional branch leaves the branch to resolve:
 * taken when the next instruction is the branch's target, not taken
 * when it is the next one (a branch to the next instruction counts as
 * taken).  A trap right after it resolves it by its EPC, which the
 * decoder has from the packets for an interrupt too; a gap leaves it
 * unresolved (retired, counted, but in neither direction).
 */

#include "qemu/osdep.h"
#include <fcntl.h>
#include <gelf.h>
#include "coverage.h"
#include "lines.h"

typedef struct CovBlock {
    const EtdBlock *b;
    uint64_t taken;         /* of its last instruction, a branch */
    uint64_t not_taken;
    int64_t diff[];         /* b->count + 1 */
} CovBlock;

/* What retired at one address, once summed. */
typedef struct CovHits {
    uint64_t addr;
    uint64_t n;
    uint64_t taken;
    uint64_t not_taken;
} CovHits;

typedef struct CovElf {
    char *path;
    uint64_t offset;
} CovElf;

typedef struct CovLine {
    uint64_t count;         /* the most any of its instructions retired */
    GArray *branches;       /* uint64_t: its conditional branches */
} CovLine;

typedef struct CovFunc {
    char *name;
    unsigned line;
    uint64_t count;
} CovFunc;

typedef struct CovFile {
    char *path;
    GHashTable *lines;      /* line number -> CovLine */
    GArray *funcs;          /* CovFunc */
} CovFile;

#define COV_CACHE   4096

struct EtdCover {
    EtdImage *img;
    bool warn;              /* of images without line tables */
    GArray *elfs;           /* CovElf */
    GHashTable *blocks;     /* const EtdBlock * -> CovBlock */
    struct {
        const EtdBlock *b;
        CovBlock *cb;
    } cache[COV_CACHE];
    /* per source, a branch retired whose outcome the next insn says */
    CovBlock *pending[ETD_MAX_SOURCES];
    GHashTable *hits;       /* address -> CovHits, once summed */
};

EtdCover *etd_cover_new(EtdImage *img, bool warn)
{
    EtdCover *cv = g_new0(EtdCover, 1);

    cv->img = img;
    cv->warn = warn;
    cv->elfs = g_array_new(false, false, sizeof(CovElf));
    cv->blocks = g_hash_table_new_full(NULL, NULL, NULL, g_free);
    return cv;
}

void etd_cover_free(EtdCover *cv)
{
    unsigned i;

    for (i = 0; i < cv->elfs->len; i++) {
        g_free(g_array_index(cv->elfs, CovElf, i).path);
    }
    g_array_free(cv->elfs, true);
    g_hash_table_destroy(cv->blocks);
    if (cv->hits) {
        g_hash_table_destroy(cv->hits);
    }
    g_free(cv);
}

void etd_cover_add_elf(EtdCover *cv, const char *path, uint64_t offset)
{
    CovElf e = { g_strdup(path), offset };

    g_array_append_val(cv->elfs, e);
}

static CovBlock *cov_block(EtdCover *cv, const EtdBlock *b)
{
    unsigned slot = ((uintptr_t)b >> 4) & (COV_CACHE - 1);
    CovBlock *cb;

    if (likely(cv->cache[slot].b == b)) {
        return cv->cache[slot].cb;
    }
    cb = g_hash_table_lookup(cv->blocks, b);
    if (!cb) {
        cb = g_malloc0(sizeof(*cb) + (b->count + 1) * sizeof(cb->diff[0]));
        cb->b = b;
        g_hash_table_insert(cv->blocks, (gpointer)b, cb);
    }
    cv->cache[slot].b = b;
    cv->cache[slot].cb = cb;
    return cb;
}

/* The branch @src retired last went to @pc. */
static void resolve(EtdCover *cv, unsigned src, uint64_t pc)
{
    CovBlock *cb = cv->pending[src];

    if (pc == cb->b->target) {
        cb->taken++;
    } else if (pc == cb->b->last + cb->b->last_size) {
        cb->not_taken++;
    }
    cv->pending[src] = NULL;
}

void etd_cover_run(EtdCover *cv, unsigned src, const EtdBlock *b,
                   unsigned from, unsigned n)
{
    CovBlock *cb = cov_block(cv, b);

    if (unlikely(cv->pending[src])) {
        resolve(cv, src, etd_block_insn_addr(b, from));
    }
    etd_block_count_runs(cb->diff, from, n);
    if (from + n == b->count && b->end == ETD_END_BRANCH) {
        cv->pending[src] = cb;
    }
}

void etd_cover_trap(EtdCover *cv, unsigned src, uint64_t epc)
{
    if (cv->pending[src] && epc != ETD_EPC_UNKNOWN) {
        resolve(cv, src, epc);
    }
    cv->pending[src] = NULL;
}

void etd_cover_gap(EtdCover *cv, unsigned src)
{
    cv->pending[src] = NULL;
}

static CovHits *hits_at(EtdCover *cv, uint64_t addr, bool add)
{
    CovHits *h = g_hash_table_lookup(cv->hits, &addr);

    if (!h && add) {
        h = g_new0(CovHits, 1);
        h->addr = addr;
        g_hash_table_insert(cv->hits, &h->addr, h);
    }
    return h;
}

static uint64_t hits_of(EtdCover *cv, uint64_t addr)
{
    CovHits *h = hits_at(cv, addr, false);

    return h ? h->n : 0;
}

static void add_hits(void *opaque, uint64_t addr, uint64_t count)
{
    hits_at(opaque, addr, true)->n += count;
}

/* The counts of the blocks, per address (once). */
static void sum_hits(EtdCover *cv)
{
    GHashTableIter it;
    gpointer value;

    if (cv->hits) {
        return;
    }
    cv->hits = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                     g_free);
    g_hash_table_iter_init(&it, cv->blocks);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        CovBlock *cb = value;
        const EtdBlock *b = cb->b;

        etd_block_counts(b, cb->diff, add_hits, cv);
        if (b->end == ETD_END_BRANCH && (cb->taken || cb->not_taken)) {
            CovHits *h = hits_at(cv, b->last, true);

            h->taken += cb->taken;
            h->not_taken += cb->not_taken;
        }
    }
}

/* The ELF file of @e for libelf; false and @errp set if not readable. */
static bool open_elf(const CovElf *e, int *fd, Elf **elf, GError **errp)
{
    *fd = open(e->path, O_RDONLY);
    if (*fd < 0) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_IO, "%s: %s", e->path,
                    g_strerror(errno));
        return false;
    }
    elf_version(EV_CURRENT);
    *elf = elf_begin(*fd, ELF_C_READ, NULL);
    if (!*elf) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_ELF, "%s: %s", e->path,
                    elf_errmsg(-1));
        close(*fd);
        return false;
    }
    return true;
}

static void close_elf(int fd, Elf *elf)
{
    elf_end(elf);
    close(fd);
}

/* A function symbol (type FUNC, with a size). */
typedef struct CovSym {
    const char *name;
    uint64_t addr;
    uint64_t size;
} CovSym;

/* The function symbols of @elf, at @offset (names in @elf's data). */
static GArray *func_symbols(Elf *elf, uint64_t offset)
{
    GArray *syms = g_array_new(false, false, sizeof(CovSym));
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *data;
        size_t k;

        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
            !sh.sh_entsize) {
            continue;
        }
        data = elf_getdata(scn, NULL);
        if (!data) {
            continue;
        }
        for (k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
            GElf_Sym sym;
            CovSym s;

            if (!gelf_getsym(data, k, &sym) ||
                GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
                sym.st_shndx == SHN_UNDEF) {
                continue;
            }
            s.name = elf_strptr(elf, sh.sh_link, sym.st_name);
            if (!s.name || !*s.name) {
                continue;
            }
            s.addr = sym.st_value + offset;
            s.size = sym.st_size;
            g_array_append_val(syms, s);
        }
    }
    return syms;
}

static int sym_cmp(gconstpointer a, gconstpointer b)
{
    const CovSym *x = a, *y = b;

    if (x->addr != y->addr) {
        return x->addr < y->addr ? -1 : 1;
    }
    return strcmp(x->name, y->name);
}

static void line_free(gpointer p)
{
    CovLine *l = p;

    g_array_free(l->branches, true);
    g_free(l);
}

static void file_free(gpointer p)
{
    CovFile *f = p;
    unsigned i;

    for (i = 0; i < f->funcs->len; i++) {
        g_free(g_array_index(f->funcs, CovFunc, i).name);
    }
    g_array_free(f->funcs, true);
    g_hash_table_destroy(f->lines);
    g_free(f->path);
    g_free(f);
}

static CovFile *file_of(GHashTable *files, const char *path)
{
    CovFile *f = g_hash_table_lookup(files, path);

    if (!f) {
        f = g_new0(CovFile, 1);
        f->path = g_strdup(path);
        f->lines = g_hash_table_new_full(NULL, NULL, NULL, line_free);
        f->funcs = g_array_new(false, false, sizeof(CovFunc));
        g_hash_table_insert(files, f->path, f);
    }
    return f;
}

static CovLine *line_of(CovFile *f, unsigned line)
{
    CovLine *l = g_hash_table_lookup(f->lines, GUINT_TO_POINTER(line));

    if (!l) {
        l = g_new0(CovLine, 1);
        l->branches = g_array_new(false, false, sizeof(uint64_t));
        g_hash_table_insert(f->lines, GUINT_TO_POINTER(line), l);
    }
    return l;
}

/* The lines and functions of one image into @files. */
static bool lcov_image(EtdCover *cv, const CovElf *e, GHashTable *files,
                       GError **errp)
{
    EtdLines *lines = etd_lines_new();
    g_autoptr(GArray) syms = NULL;
    unsigned i, n;
    Elf *elf;
    int fd;

    if (!open_elf(e, &fd, &elf, errp)) {
        etd_lines_free(lines);
        return false;
    }
    etd_lines_add_dwarf(lines, elf, e->path, e->offset, cv->warn);
    n = etd_lines_count(lines);
    for (i = 0; i < n; i++) {
        const EtdLineRow *r = etd_lines_nth(lines, i);
        CovLine *l = line_of(file_of(files, r->file), r->line);
        uint64_t pc;
        EtdInsn insn;

        for (pc = r->addr; pc < r->end && etd_image_insn(cv->img, pc, &insn);
             pc += insn.size) {
            l->count = MAX(l->count, hits_of(cv, pc));
            if (insn.end == ETD_END_BRANCH) {
                g_array_append_val(l->branches, pc);
            }
        }
    }
    syms = func_symbols(elf, e->offset);
    g_array_sort(syms, sym_cmp);
    for (i = 0; i < syms->len; i++) {
        const CovSym *s = &g_array_index(syms, CovSym, i);
        const EtdLineRow *r = etd_lines_find(lines, s->addr);
        CovFunc fn;

        if (!r || (i && s->addr == g_array_index(syms, CovSym, i - 1).addr)) {
            continue;       /* no line, or another name of the same */
        }
        fn.name = g_strdup(s->name);
        fn.line = r->line;
        fn.count = hits_of(cv, s->addr);
        g_array_append_val(file_of(files, r->file)->funcs, fn);
    }
    close_elf(fd, elf);
    etd_lines_free(lines);
    return true;
}

static int func_cmp(gconstpointer a, gconstpointer b)
{
    const CovFunc *x = a, *y = b;

    if (x->line != y->line) {
        return x->line < y->line ? -1 : 1;
    }
    return strcmp(x->name, y->name);
}

static int u64_cmp(gconstpointer a, gconstpointer b)
{
    const uint64_t *x = a, *y = b;

    return *x < *y ? -1 : *x > *y;
}

static int uint_cmp(gconstpointer a, gconstpointer b)
{
    unsigned x = GPOINTER_TO_UINT(*(gconstpointer *)a);
    unsigned y = GPOINTER_TO_UINT(*(gconstpointer *)b);

    return x < y ? -1 : x > y;
}

static int str_cmp(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One record of the tracefile: a source file. */
static void lcov_file(EtdCover *cv, CovFile *f, FILE *out)
{
    g_autoptr(GPtrArray) lines = g_ptr_array_new();
    unsigned i, j, hit = 0, brf = 0, brh = 0;
    GHashTableIter it;
    gpointer key;

    fprintf(out, "TN:\nSF:%s\n", f->path);
    g_array_sort(f->funcs, func_cmp);
    for (i = 0; i < f->funcs->len; i++) {
        CovFunc *fn = &g_array_index(f->funcs, CovFunc, i);

        fprintf(out, "FN:%u,%s\n", fn->line, fn->name);
    }
    for (i = 0; i < f->funcs->len; i++) {
        CovFunc *fn = &g_array_index(f->funcs, CovFunc, i);

        fprintf(out, "FNDA:%" PRIu64 ",%s\n", fn->count, fn->name);
        hit += fn->count != 0;
    }
    fprintf(out, "FNF:%u\nFNH:%u\n", f->funcs->len, hit);

    g_hash_table_iter_init(&it, f->lines);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        g_ptr_array_add(lines, key);
    }
    g_ptr_array_sort(lines, uint_cmp);
    for (i = 0; i < lines->len; i++) {
        unsigned n = GPOINTER_TO_UINT(lines->pdata[i]);
        CovLine *l = g_hash_table_lookup(f->lines, lines->pdata[i]);

        g_array_sort(l->branches, u64_cmp);
        for (j = 0; j < l->branches->len; j++) {
            uint64_t pc = g_array_index(l->branches, uint64_t, j);
            CovHits *h = hits_at(cv, pc, false);

            if (j && pc == g_array_index(l->branches, uint64_t, j - 1)) {
                continue;
            }
            brf += 2;
            if (!h || !h->n) {
                fprintf(out, "BRDA:%u,%u,0,-\nBRDA:%u,%u,1,-\n", n, j, n, j);
                continue;
            }
            fprintf(out, "BRDA:%u,%u,0,%" PRIu64 "\nBRDA:%u,%u,1,%" PRIu64
                    "\n", n, j, h->taken, n, j, h->not_taken);
            brh += (h->taken != 0) + (h->not_taken != 0);
        }
    }
    fprintf(out, "BRF:%u\nBRH:%u\n", brf, brh);
    hit = 0;
    for (i = 0; i < lines->len; i++) {
        CovLine *l = g_hash_table_lookup(f->lines, lines->pdata[i]);

        fprintf(out, "DA:%u,%" PRIu64 "\n", GPOINTER_TO_UINT(lines->pdata[i]),
                l->count);
        hit += l->count != 0;
    }
    fprintf(out, "LF:%u\nLH:%u\nend_of_record\n", lines->len, hit);
}

bool etd_cover_lcov(EtdCover *cv, FILE *out, GError **errp)
{
    g_autoptr(GHashTable) files = g_hash_table_new_full(g_str_hash,
                                                        g_str_equal, NULL,
                                                        file_free);
    g_autoptr(GPtrArray) paths = g_ptr_array_new();
    GHashTableIter it;
    gpointer key;
    unsigned i;

    sum_hits(cv);
    for (i = 0; i < cv->elfs->len; i++) {
        if (!lcov_image(cv, &g_array_index(cv->elfs, CovElf, i), files,
                        errp)) {
            return false;
        }
    }
    g_hash_table_iter_init(&it, files);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        g_ptr_array_add(paths, key);
    }
    g_ptr_array_sort(paths, str_cmp);
    for (i = 0; i < paths->len; i++) {
        lcov_file(cv, g_hash_table_lookup(files, paths->pdata[i]), out);
    }
    return true;
}

/* Instructions and basic blocks of a function, or of several. */
typedef struct CovCount {
    uint64_t insns, insns_hit;
    uint64_t blocks, blocks_hit;
    uint64_t funcs, funcs_hit;
} CovCount;

static void count_add(CovCount *to, const CovCount *c)
{
    to->insns += c->insns;
    to->insns_hit += c->insns_hit;
    to->blocks += c->blocks;
    to->blocks_hit += c->blocks_hit;
    to->funcs += c->funcs;
    to->funcs_hit += c->funcs_hit;
}

/*
 * The instructions of @s, decoded from its start to its end; a block
 * starts at its first instruction, after a branch, a jump, an xRET, an
 * ecall or ebreak, and at the target of a branch or direct jump into it;
 * it is hit when any of its instructions retired.
 */
static void count_func(EtdCover *cv, const CovSym *s, CovCount *c)
{
    g_autoptr(GArray) pcs = g_array_new(false, false, sizeof(uint64_t));
    g_autoptr(GArray) leaders = g_array_new(false, false, sizeof(uint64_t));
    uint64_t pc, end = s->addr + s->size;
    bool block_hit = false;
    EtdInsn insn;
    unsigned i, k = 0;

    memset(c, 0, sizeof(*c));
    for (pc = s->addr; pc < end && etd_image_insn(cv->img, pc, &insn);
         pc += insn.size) {
        g_array_append_val(pcs, pc);
        if (insn.end != ETD_END_SEQ || insn.trap_insn) {
            uint64_t next = pc + insn.size;

            g_array_append_val(leaders, next);
        }
        if ((insn.end == ETD_END_BRANCH || insn.end == ETD_END_JUMP) &&
            insn.target >= s->addr && insn.target < end) {
            g_array_append_val(leaders, insn.target);
        }
    }
    g_array_sort(leaders, u64_cmp);
    for (i = 0; i < pcs->len; i++) {
        uint64_t at = g_array_index(pcs, uint64_t, i);
        bool hit = hits_of(cv, at) != 0;

        while (k < leaders->len && g_array_index(leaders, uint64_t, k) < at) {
            k++;
        }
        if (!i || (k < leaders->len &&
                   g_array_index(leaders, uint64_t, k) == at)) {
            c->blocks++;
            block_hit = false;
        }
        if (hit && !block_hit) {
            c->blocks_hit++;
            block_hit = true;
        }
        c->insns++;
        c->insns_hit += hit;
    }
    c->funcs = 1;
    c->funcs_hit = c->insns_hit != 0;
}

static void print_count(FILE *out, const CovCount *c, bool percent)
{
    fprintf(out, "insns %" PRIu64 "/%" PRIu64, c->insns_hit, c->insns);
    if (percent) {
        fprintf(out, " %.1f%%", c->insns ? 100.0 * c->insns_hit / c->insns :
                0.0);
    }
    fprintf(out, " blocks %" PRIu64 "/%" PRIu64, c->blocks_hit, c->blocks);
    if (percent) {
        fprintf(out, " %.1f%%", c->blocks ?
                100.0 * c->blocks_hit / c->blocks : 0.0);
    }
}

bool etd_cover_report(EtdCover *cv, FILE *out, GError **errp)
{
    CovCount all = { 0 };
    unsigned i, j;

    sum_hits(cv);
    fprintf(out, "# etrace-decode coverage: per function of each ELF image, "
            "instructions and basic blocks retired (hit/all)\n");
    for (i = 0; i < cv->elfs->len; i++) {
        const CovElf *e = &g_array_index(cv->elfs, CovElf, i);
        g_autoptr(GArray) syms = NULL;
        CovCount img = { 0 };
        Elf *elf;
        int fd;

        if (!open_elf(e, &fd, &elf, errp)) {
            return false;
        }
        syms = func_symbols(elf, e->offset);
        g_array_sort(syms, sym_cmp);
        fprintf(out, "image %s\n", e->path);
        for (j = 0; j < syms->len; j++) {
            const CovSym *s = &g_array_index(syms, CovSym, j);
            CovCount c;

            if (j && s->addr == g_array_index(syms, CovSym, j - 1).addr) {
                continue;       /* another name of the same function */
            }
            count_func(cv, s, &c);
            fprintf(out, "function %s 0x%" PRIx64 " entered %" PRIu64 " ",
                    s->name, s->addr, hits_of(cv, s->addr));
            print_count(out, &c, false);
            fputc('\n', out);
            count_add(&img, &c);
        }
        fprintf(out, "image-total functions %" PRIu64 "/%" PRIu64 " ",
                img.funcs_hit, img.funcs);
        print_count(out, &img, true);
        fputc('\n', out);
        count_add(&all, &img);
        close_elf(fd, elf);
    }
    fprintf(out, "total functions %" PRIu64 "/%" PRIu64 " ", all.funcs_hit,
            all.funcs);
    print_count(out, &all, true);
    fputc('\n', out);
    return true;
}
