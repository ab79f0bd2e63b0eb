/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: program images, symbols and the block cache.
 *
 * ELF files are read with elfutils' libelf.  Instructions are classified
 * the way the encoder's ingress port classifies them (ingressPort.adoc,
 * "Jump classification and target inference"): what matters to the
 * decoder is where a block ends and whether its target is inferable.
 */

#include "qemu/osdep.h"
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include "etrace-decode.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif
#define SHT_RISCV_ATTRIBUTES_TYPE 0x70000003

typedef struct EtdSegment {
    uint64_t base;
    uint64_t size;
    uint8_t *data;
} EtdSegment;

typedef struct EtdSymbol {
    uint64_t addr;
    char *name;
} EtdSymbol;

/* Direct-mapped front of the block table. */
#define ETD_CACHE_BITS  16
#define ETD_SYM_CACHE   4096

struct EtdImage {
    GArray *segs;               /* EtdSegment, sorted by base */
    GArray *syms;               /* EtdSymbol, sorted by addr */
    bool syms_sorted;
    unsigned last_seg;
    bool rv32;
    bool zc;                    /* Zcmp/Zcmt encodings */
    bool shadow_stack;          /* sspush, sspopchk access memory */
    bool spec_links;            /* calls and returns of protocol 2.1 */
    GHashTable *blocks;         /* start address -> EtdBlock */
    /*
     * A view (etd_image_new_view()): the code of the side stream of a
     * source in a privilege, before the segments and with the symbols of
     * @base; the blocks are of the code as it was when last looked up,
     * current while their gen is *@genp.
     */
    EtdImage *base;
    /* An overlay (etd_image_new_overlay()): the image below it. */
    EtdImage *under;
    EtdCodeSrc *code;
    unsigned priv;
    const uint64_t *genp;
    uint8_t scratch[4];
    /* Direct-mapped: the symbol an address is in (etd_image_symbol()). */
    struct {
        uint64_t pc;
        const EtdSymbol *sym;
        bool valid;
    } sym_cache[ETD_SYM_CACHE];
    struct {
        uint64_t pc;
        EtdBlock *b;
    } cache[1u << ETD_CACHE_BITS];
};

static const uint64_t no_gen;

/* A block and the other versions of the code at its start. */
static void block_free(gpointer p)
{
    EtdBlock *b = p;

    while (b) {
        EtdBlock *alt = b->alt;

        g_free(b);
        b = alt;
    }
}

EtdImage *etd_image_new(void)
{
    EtdImage *img = g_new0(EtdImage, 1);

    img->segs = g_array_new(false, false, sizeof(EtdSegment));
    img->syms = g_array_new(false, false, sizeof(EtdSymbol));
    img->blocks = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                        block_free);
    img->genp = &no_gen;
    return img;
}

EtdImage *etd_image_new_view(EtdImage *base, EtdCodeSrc *code, unsigned priv)
{
    EtdImage *img = g_new0(EtdImage, 1);

    img->base = base;
    img->under = base->under;
    img->code = code;
    img->priv = priv;
    img->genp = etd_code_gen(code, priv);
    img->segs = base->segs;
    img->syms = base->syms;
    img->rv32 = base->rv32;
    img->zc = base->zc;
    img->shadow_stack = base->shadow_stack;
    img->spec_links = base->spec_links;
    img->blocks = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                        block_free);
    return img;
}

EtdImage *etd_image_new_overlay(EtdImage *under)
{
    EtdImage *img = etd_image_new();

    img->under = under;
    img->rv32 = under->rv32;
    img->zc = under->zc;
    img->shadow_stack = under->shadow_stack;
    img->spec_links = under->spec_links;
    return img;
}

void etd_image_free(EtdImage *img)
{
    unsigned i;

    if (img->base) {
        g_hash_table_destroy(img->blocks);
        g_free(img);
        return;
    }

    for (i = 0; i < img->segs->len; i++) {
        g_free(g_array_index(img->segs, EtdSegment, i).data);
    }
    for (i = 0; i < img->syms->len; i++) {
        g_free(g_array_index(img->syms, EtdSymbol, i).name);
    }
    g_array_free(img->segs, true);
    g_array_free(img->syms, true);
    g_hash_table_destroy(img->blocks);
    g_free(img);
}

static int seg_cmp(gconstpointer a, gconstpointer b)
{
    const EtdSegment *x = a, *y = b;

    return x->base < y->base ? -1 : x->base > y->base;
}

/*
 * A linker's marker rather than a function: __X_start, __X_end, __X_stop
 * (section bounds such as __irqentry_text_start) or _X...text... (_text,
 * _stext, _sinittext).
 */
static bool sym_marker(const char *name)
{
    return (g_str_has_prefix(name, "__") &&
            (g_str_has_suffix(name, "_start") ||
             g_str_has_suffix(name, "_end") ||
             g_str_has_suffix(name, "_stop"))) ||
           (name[0] == '_' && strstr(name, "text"));
}

/*
 * By address; of symbols at one address, the last one names it (the sort
 * is stable): markers go first, so that a function's own name wins
 * (handle_exception, not __irqentry_text_start at the same address).
 */
static int sym_cmp(gconstpointer a, gconstpointer b)
{
    const EtdSymbol *x = a, *y = b;

    if (x->addr != y->addr) {
        return x->addr < y->addr ? -1 : 1;
    }
    return (int)!sym_marker(x->name) - (int)!sym_marker(y->name);
}

static void add_segment(EtdImage *img, uint64_t base, const uint8_t *data,
                        uint64_t size)
{
    EtdSegment s = { .base = base, .size = size,
                     .data = g_memdup2(data, size) };

    g_array_append_val(img->segs, s);
    g_array_sort(img->segs, seg_cmp);
    img->last_seg = 0;
    /* Blocks decoded before may have run into this code. */
    g_hash_table_remove_all(img->blocks);
    memset(img->cache, 0, sizeof(img->cache));
}

void etd_image_add_mem(EtdImage *img, uint64_t addr, const uint8_t *data,
                       size_t len)
{
    if (len) {
        add_segment(img, addr, data, len);
    }
}

void etd_image_set_zc(EtdImage *img, bool zc)
{
    img->zc = zc;
}

void etd_image_set_shadow_stack(EtdImage *img, bool on)
{
    img->shadow_stack = on;
}

void etd_image_set_spec_links(EtdImage *img, bool spec)
{
    img->spec_links = spec;
}

bool etd_image_rv32(const EtdImage *img)
{
    return img->rv32;
}

void etd_image_set_rv32(EtdImage *img, bool rv32)
{
    img->rv32 = rv32;
}

/* Symbols worth naming a place by: functions and code labels. */
static bool symbol_wanted(const GElf_Sym *sym, const char *name)
{
    unsigned type = GELF_ST_TYPE(sym->st_info);

    if (!name || !*name || sym->st_shndx == SHN_UNDEF ||
        sym->st_shndx == SHN_ABS) {
        return false;
    }
    if (type != STT_FUNC && type != STT_NOTYPE) {
        return false;
    }
    /* Mapping symbols ($x, $d) and assembler-local labels. */
    return name[0] != '$' && !g_str_has_prefix(name, ".L");
}

/* The PT_LOAD segments of @elf, from @path, loaded at @offset. */
static bool add_segments(EtdImage *img, Elf *elf, const char *path,
                         uint64_t offset, GError **errp)
{
    size_t nph, i, raw_size;
    const uint8_t *raw = (const uint8_t *)elf_rawfile(elf, &raw_size);

    if (!raw || elf_getphdrnum(elf, &nph) != 0) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_ELF,
                    "%s: %s", path, elf_errmsg(-1));
        return false;
    }
    for (i = 0; i < nph; i++) {
        GElf_Phdr ph;

        if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
            !ph.p_filesz) {
            continue;
        }
        if (ph.p_offset > raw_size || ph.p_filesz > raw_size - ph.p_offset) {
            g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_ELF,
                        "%s: segment %zu lies outside the file", path, i);
            return false;
        }
        add_segment(img, ph.p_vaddr + offset, raw + ph.p_offset,
                    ph.p_filesz);
    }
    return true;
}

/* Tag_RISCV_arch names the extensions the code was built for. */
static void read_attributes(EtdImage *img, Elf_Scn *scn)
{
    Elf_Data *data = elf_getdata(scn, NULL);

    if (data && data->d_buf && data->d_size) {
        g_autofree char *s = g_strndup(data->d_buf, data->d_size);
        size_t j;

        for (j = 0; j + 5 <= data->d_size; j++) {
            if (!memcmp(s + j, "_zcmp", 5) || !memcmp(s + j, "_zcmt", 5)) {
                img->zc = true;
            }
        }
    }
}

/* The symbols of the symbol table @scn, @sh its header. */
static void add_symbols(EtdImage *img, Elf *elf, Elf_Scn *scn,
                        const GElf_Shdr *sh, uint64_t offset)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t n, k;

    if (!data) {
        return;
    }
    n = sh->sh_size / sh->sh_entsize;
    for (k = 0; k < n; k++) {
        GElf_Sym sym;
        const char *name;
        EtdSymbol s;

        if (!gelf_getsym(data, k, &sym)) {
            continue;
        }
        name = elf_strptr(elf, sh->sh_link, sym.st_name);
        if (!symbol_wanted(&sym, name)) {
            continue;
        }
        s.addr = sym.st_value + offset;
        s.name = g_strdup(name);
        g_array_append_val(img->syms, s);
    }
}

bool etd_image_add_elf(EtdImage *img, const char *path, uint64_t offset,
                       GError **errp)
{
    bool ok = false;
    Elf *elf = NULL;
    GElf_Ehdr eh;
    Elf_Scn *scn = NULL;
    int fd;

    if (elf_version(EV_CURRENT) == EV_NONE) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_ELF,
                    "libelf: %s", elf_errmsg(-1));
        return false;
    }
    fd = open(path, O_RDONLY);
    if (fd < 0) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_IO,
                    "%s: %s", path, g_strerror(errno));
        return false;
    }
    elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_ELF,
                    "%s: not an ELF file", path);
        goto out;
    }
    if (eh.e_machine != EM_RISCV) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_NOT_RISCV,
                    "%s: not a RISC-V ELF file (machine %u)", path,
                    eh.e_machine);
        goto out;
    }
    img->rv32 = gelf_getclass(elf) == ELFCLASS32;
    if (!add_segments(img, elf, path, offset, errp)) {
        goto out;
    }
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;

        if (!gelf_getshdr(scn, &sh)) {
            continue;
        }
        if (sh.sh_type == SHT_RISCV_ATTRIBUTES_TYPE) {
            read_attributes(img, scn);
        } else if (sh.sh_type == SHT_SYMTAB && sh.sh_entsize) {
            add_symbols(img, elf, scn, &sh, offset);
        }
    }
    img->syms_sorted = false;
    ok = true;
out:
    if (elf) {
        elf_end(elf);
    }
    close(fd);
    return ok;
}

bool etd_image_add_kallsyms(EtdImage *img, const char *path,
                            unsigned *count, GError **errp)
{
    g_autofree char *text = NULL;
    g_autoptr(GError) err = NULL;
    g_auto(GStrv) lines = NULL;
    bool any_address = false;
    unsigned i;

    *count = 0;
    if (!g_file_get_contents(path, &text, NULL, &err)) {
        g_set_error_literal(errp, ETD_ERROR, ETD_ERR_IO, err->message);
        return false;
    }
    lines = g_strsplit(text, "\n", -1);
    for (i = 0; lines[i]; i++) {
        g_auto(GStrv) f = g_strsplit_set(g_strstrip(lines[i]), " \t", 4);
        EtdSymbol s;
        char *end;

        if (!f[0] || !*f[0]) {
            continue;
        }
        if (!f[1] || !f[2] || strlen(f[1]) != 1) {
            g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_VALUE,
                        "%s:%u: not ADDRESS TYPE NAME [MODULE]", path, i + 1);
            return false;
        }
        s.addr = g_ascii_strtoull(f[0], &end, 16);
        if (*end) {
            g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_VALUE,
                        "%s:%u: bad address '%s'", path, i + 1, f[0]);
            return false;
        }
        any_address |= s.addr != 0;
        /*
         * A module's mapping symbols ($x...) and assembler-local labels
         * (.L...), which its listing carries too, name no function.
         */
        if (!strchr("tTwW", f[1][0]) || !s.addr || f[2][0] == '$' ||
            g_str_has_prefix(f[2], ".L")) {
            continue;
        }
        s.name = f[3] ? g_strdup_printf("%s %s", f[2], g_strstrip(f[3])) :
                        g_strdup(f[2]);
        g_array_append_val(img->syms, s);
        (*count)++;
    }
    if (!any_address) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_VALUE,
                    "%s: every address is 0 (read it as root, or with "
                    "kptr_restrict=0)", path);
        return false;
    }
    img->syms_sorted = false;
    return true;
}

bool etd_image_add_bin(EtdImage *img, const char *path, uint64_t addr,
                       GError **errp)
{
    g_autofree char *data = NULL;
    g_autoptr(GError) err = NULL;
    gsize len;

    if (!g_file_get_contents(path, &data, &len, &err)) {
        g_set_error_literal(errp, ETD_ERROR, ETD_ERR_IO, err->message);
        return false;
    }
    if (!len) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_EMPTY_IMAGE, "%s: empty",
                    path);
        return false;
    }
    add_segment(img, addr, (const uint8_t *)data, len);
    return true;
}

/* The segment of @img that holds @pc, or NULL. */
static const EtdSegment *segment_of(EtdImage *img, uint64_t pc)
{
    const EtdSegment *s;
    unsigned lo = 0, hi = img->segs->len;

    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;

        s = &g_array_index(img->segs, EtdSegment, mid);
        if (pc < s->base) {
            hi = mid;
        } else if (pc - s->base >= s->size) {
            lo = mid + 1;
        } else {
            return s;
        }
    }
    return NULL;
}

/* @len bytes of code at @pc, or NULL. */
static const uint8_t *code_at(EtdImage *img, uint64_t pc, unsigned len)
{
    const EtdSegment *s;

    if (img->code && etd_code_read(img->code, img->priv, pc, img->scratch,
                                   len)) {
        return img->scratch;
    }
    if (img->last_seg < img->segs->len) {
        s = &g_array_index(img->segs, EtdSegment, img->last_seg);
        if (pc >= s->base && pc - s->base + len <= s->size) {
            return s->data + (pc - s->base);
        }
    }
    s = segment_of(img, pc);
    if (!s) {
        /* an overlay reads the image below it where it holds nothing */
        return img->under ? code_at(img->under, pc, len) : NULL;
    }
    if (pc - s->base + len > s->size) {
        return NULL;
    }
    img->last_seg = s - &g_array_index(img->segs, EtdSegment, 0);
    return s->data + (pc - s->base);
}

static inline int64_t sext(uint64_t v, unsigned bits)
{
    return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static inline bool is_link(unsigned r)
{
    return r == 1 || r == 5;
}

/* classify() of a 4-byte instruction. */
static EtdEnd classify32(const EtdImage *img, uint32_t insn, uint64_t pc,
                         uint64_t *target, bool *call, bool *trap_insn)
{
    unsigned rd = (insn >> 7) & 31, rs1 = (insn >> 15) & 31;
    uint64_t imm;

    switch (insn & 0x7f) {
    case 0x63:      /* beq .. bgeu */
        imm = ((insn >> 31) & 1) << 12 | ((insn >> 7) & 1) << 11 |
              ((insn >> 25) & 0x3f) << 5 | ((insn >> 8) & 0xf) << 1;
        *target = pc + sext(imm, 13);
        return ETD_END_BRANCH;
    case 0x6f:      /* jal */
        imm = ((insn >> 31) & 1) << 20 | ((insn >> 12) & 0xff) << 12 |
              ((insn >> 20) & 1) << 11 | ((insn >> 21) & 0x3ff) << 1;
        *target = pc + sext(imm, 21);
        *call = is_link(rd);
        return ETD_END_JUMP;
    case 0x67:      /* jalr */
        *call = is_link(rd) && !(is_link(rs1) && rs1 != rd);
        if (rs1 == 0) {
            /* The target is the constant in the encoding: inferable */
            *target = sext(insn >> 20, 12) & ~(uint64_t)1;
            if (img->rv32) {
                *target &= 0xffffffff;
            }
            return ETD_END_JUMP;
        }
        return ETD_END_UNINF;
    case 0x73:
        switch (insn) {
        case 0x30200073:    /* mret */
        case 0x10200073:    /* sret */
        case 0x70200073:    /* mnret */
        case 0x7b200073:    /* dret */
            return ETD_END_XRET;
        case 0x00000073:    /* ecall */
        case 0x00100073:    /* ebreak */
            *trap_insn = true;
            return ETD_END_SEQ;
        }
        return ETD_END_SEQ;
    }
    return ETD_END_SEQ;
}

/* classify() of a compressed instruction. */
static EtdEnd classify16(const EtdImage *img, uint32_t insn, uint64_t pc,
                         uint64_t *target, bool *call, bool *trap_insn)
{
    switch ((insn & 3) << 3 | (insn >> 13)) {
    case 1 << 3 | 1:    /* c.jal (RV32), c.addiw (RV64) */
        if (!img->rv32) {
            return ETD_END_SEQ;
        }
        *call = true;
        /* fall through */
    case 1 << 3 | 5: {  /* c.j */
        uint64_t imm = ((insn >> 12) & 1) << 11 | ((insn >> 11) & 1) << 4 |
                       ((insn >> 9) & 3) << 8 | ((insn >> 8) & 1) << 10 |
                       ((insn >> 7) & 1) << 6 | ((insn >> 6) & 1) << 7 |
                       ((insn >> 3) & 7) << 1 | ((insn >> 2) & 1) << 5;

        *target = pc + sext(imm, 12);
        return ETD_END_JUMP;
    }
    case 1 << 3 | 6:    /* c.beqz */
    case 1 << 3 | 7: {  /* c.bnez */
        uint64_t imm = ((insn >> 12) & 1) << 8 | ((insn >> 10) & 3) << 3 |
                       ((insn >> 5) & 3) << 6 | ((insn >> 3) & 3) << 1 |
                       ((insn >> 2) & 1) << 5;

        *target = pc + sext(imm, 9);
        return ETD_END_BRANCH;
    }
    case 2 << 3 | 4: {  /* c.jr, c.jalr, c.ebreak, c.mv, c.add */
        unsigned rs1 = (insn >> 7) & 31, rs2 = (insn >> 2) & 31;

        if (rs2 || !rs1) {
            *trap_insn = insn == 0x9002;
            return ETD_END_SEQ;
        }
        *call = (insn >> 12) & 1 && rs1 != 5;
        return ETD_END_UNINF;
    }
    case 2 << 3 | 5:    /* c.fsdsp, or Zcmt/Zcmp */
        if (!img->zc) {
            return ETD_END_SEQ;
        }
        if (((insn >> 10) & 7) == 0) {
            /* cm.jt / cm.jalt: the target comes from a table in memory */
            *call = ((insn >> 2) & 0xff) >= 32;
            return ETD_END_UNINF;
        }
        switch ((insn >> 8) & 0x1f) {
        case 0x1c:      /* cm.popretz */
        case 0x1e:      /* cm.popret */
            return ETD_END_UNINF;
        }
        return ETD_END_SEQ;
    }
    return ETD_END_SEQ;
}

/*
 * What one instruction does to the flow: ETD_END_SEQ for one that falls
 * through to the next.
 */
static EtdEnd classify(const EtdImage *img, uint32_t insn, unsigned size,
                       uint64_t pc, uint64_t *target, bool *call,
                       bool *trap_insn)
{
    *call = false;
    *trap_insn = false;
    if (size == 4) {
        return classify32(img, insn, pc, target, call, trap_insn);
    }
    return classify16(img, insn, pc, target, call, trap_insn);
}

/*
 * The operands sequentially inferable jumps need (E-Trace, "Jump
 * classification and target inference"): the register lui, c.lui or
 * auipc loads and its value; the source register and offset of jalr,
 * c.jr, c.jalr.
 */
static void operands(const EtdImage *img, uint32_t insn, unsigned size,
                     uint64_t pc, EtdInsn *out)
{
    unsigned rd = (insn >> 7) & 31;
    uint64_t value;

    if (size == 4) {
        switch (insn & 0x7f) {
        case 0x37:      /* lui */
        case 0x17:      /* auipc */
            value = sext(insn & 0xfffff000, 32);
            if ((insn & 0x7f) == 0x17) {
                value += pc;
            }
            out->const_rd = rd;
            out->const_value = img->rv32 ? (uint32_t)value : value;
            break;
        case 0x67:      /* jalr */
            out->jump_rs1 = (insn >> 15) & 31;
            out->jump_imm = sext(insn >> 20, 12);
            break;
        }
        return;
    }
    switch ((insn & 3) << 3 | (insn >> 13)) {
    case 1 << 3 | 3:    /* c.lui (rd not 0 or 2), c.addi16sp */
        if (rd != 0 && rd != 2) {
            value = ((insn >> 12) & 1) << 17 | ((insn >> 2) & 31) << 12;
            out->const_rd = rd;
            out->const_value = sext(value, 18);
            if (img->rv32) {
                out->const_value = (uint32_t)out->const_value;
            }
        }
        break;
    case 2 << 3 | 4:    /* c.jr, c.jalr */
        if (out->end == ETD_END_UNINF) {
            out->jump_rs1 = rd;
        }
        break;
    }
}

/*
 * Protocol 2.1: calls and returns as decoder.adoc 2.0.5's is_call() and
 * is_return() see them (the jump classes of ingressPort.adoc): x1 and x5
 * links, cm.jalt a call, cm.popret and cm.popretz returns.
 */
static void ir_kind_spec(const EtdImage *img, uint32_t insn, unsigned size,
                         EtdInsn *out)
{
    unsigned rd = (insn >> 7) & 31, rs1 = (insn >> 15) & 31;

    if (size == 4) {
        if ((insn & 0x7f) == 0x6f) {
            out->ir_call = is_link(rd);
        } else if ((insn & 0x707f) == 0x67) {
            out->ir_call = (rd == 1 && rs1 != 5) || (rd == 5 && rs1 != 1);
            out->ir_ret = is_link(rs1) && !is_link(rd);
        }
        return;
    }
    switch ((insn & 3) << 3 | (insn >> 13)) {
    case 1 << 3 | 1:    /* c.jal (RV32) */
        out->ir_call = img->rv32;
        break;
    case 2 << 3 | 4:    /* c.jr, c.jalr */
        if (out->end == ETD_END_UNINF && !((insn >> 2) & 31)) {
            out->ir_call = (insn >> 12) & 1 && rd != 5;
            out->ir_ret = !((insn >> 12) & 1) && is_link(rd);
        }
        break;
    case 2 << 3 | 5:    /* cm.jalt, cm.popret, cm.popretz */
        if (out->end == ETD_END_UNINF) {
            out->ir_call = out->call;
            out->ir_ret = ((insn >> 10) & 7) != 0;
        }
        break;
    }
}

/*
 * Calls and returns as the decoder pseudo-code's is_call and
 * is_implicit_return see them (decoder.adoc): only x1 links; in 2.1,
 * ir_kind_spec().
 */
static void ir_kind(const EtdImage *img, uint32_t insn, unsigned size,
                    EtdInsn *out)
{
    unsigned rd = (insn >> 7) & 31;

    if (img->spec_links) {
        ir_kind_spec(img, insn, size, out);
        return;
    }

    if (size == 4) {
        if ((insn & 0x7f) == 0x6f) {
            out->ir_call = rd == 1;
        } else if ((insn & 0x707f) == 0x67) {
            out->ir_call = rd == 1;
            out->ir_ret = rd == 0 && ((insn >> 15) & 31) == 1;
        }
        return;
    }
    switch ((insn & 3) << 3 | (insn >> 13)) {
    case 1 << 3 | 1:    /* c.jal (RV32) */
        out->ir_call = img->rv32;
        break;
    case 2 << 3 | 4:    /* c.jr, c.jalr */
        if (out->end == ETD_END_UNINF && !((insn >> 2) & 31)) {
            out->ir_call = (insn >> 12) & 1;
            out->ir_ret = !((insn >> 12) & 1) && rd == 1;
        }
        break;
    }
}

/*
 * The data accesses a 32-bit instruction retires, as QEMU's trace encoder
 * reports them (docs/devel/riscv-cflow.rst, "Data events"): loads and
 * stores, floating-point ones (flh, flw, fld and their stores), vector
 * loads and stores (width 0, 5, 6, 7 of the same opcodes: one access per
 * active element, ETD_DATA_VECTOR), AMOs, LR/SC and compare-and-swap
 * (amocas.d on RV32 too, amocas.q on RV64; not ssamoswap),
 * hypervisor loads and stores, and with shadow stacks on, sspush and
 * sspopchk.
 */
static unsigned data_accesses32(const EtdImage *img, uint32_t insn)
{
    unsigned funct3 = (insn >> 12) & 7, funct5 = insn >> 27;

    switch (insn & 0x7f) {
    case 0x03:          /* LOAD */
        return funct3 != 7;
    case 0x23:          /* STORE */
        return funct3 < 4;
    case 0x07:          /* LOAD-FP */
    case 0x27:          /* STORE-FP */
        if (funct3 == 0 || funct3 >= 5) {
            return ETD_DATA_VECTOR;
        }
        return funct3 <= 3;
    case 0x2f:          /* AMO */
        if (funct3 == 4 && funct5 == 0x05) {
            return !img->rv32;          /* amocas.q */
        }
        if (funct3 > 3 || funct5 == 0x09) {
            return 0;
        }
        return funct5 <= 5 || !(funct5 & 3);
    case 0x73:          /* SYSTEM */
        if (funct3 == 4 && (insn >> 28) == 6) {
            /* hlv, hlvx, hsv: funct7 0110xxx */
            return 1;
        }
        /* sspush x1, sspush x5, sspopchk x1, sspopchk x5 */
        return img->shadow_stack &&
               (insn == 0xce104073 || insn == 0xce504073 ||
                insn == 0xcdc0c073 || insn == 0xcdc2c073);
    }
    return 0;
}

/*
 * The same of a 16-bit instruction: Zcmp push and pop make several, each
 * a multi-memory access (@mma).
 */
static unsigned data_accesses16(const EtdImage *img, uint32_t insn,
                                bool *mma)
{
    unsigned rlist;

    switch ((insn & 3) << 3 | (insn >> 13)) {
    case 0 << 3 | 1:    /* c.fld */
    case 0 << 3 | 2:    /* c.lw */
    case 0 << 3 | 3:    /* c.ld, c.flw */
    case 0 << 3 | 5:    /* c.fsd */
    case 0 << 3 | 6:    /* c.sw */
    case 0 << 3 | 7:    /* c.sd, c.fsw */
    case 0 << 3 | 4:    /* Zcb: c.lbu, c.lhu, c.lh, c.sb, c.sh */
    case 2 << 3 | 1:    /* c.fldsp */
    case 2 << 3 | 2:    /* c.lwsp */
    case 2 << 3 | 3:    /* c.ldsp, c.flwsp */
    case 2 << 3 | 6:    /* c.swsp */
    case 2 << 3 | 7:    /* c.sdsp, c.fswsp */
        return 1;
    case 1 << 3 | 3:    /* c.sspush x1, c.sspopchk x5 */
        return img->shadow_stack && (insn == 0x6081 || insn == 0x6281);
    case 2 << 3 | 5:    /* c.fsdsp, or Zcmt/Zcmp */
        if (!img->zc) {
            return 1;
        }
        switch ((insn >> 8) & 0x1f) {
        case 0x18:      /* cm.push */
        case 0x1a:      /* cm.pop */
        case 0x1c:      /* cm.popretz */
        case 0x1e:      /* cm.popret */
            /* {ra}, {ra, s0}, ... {ra, s0-s11}: s10 comes with s11 */
            rlist = (insn >> 4) & 15;
            *mma = true;
            return rlist < 4 ? 0 : rlist == 15 ? 13 : rlist - 3;
        }
        return 0;
    }
    return 0;
}

bool etd_image_insn(EtdImage *img, uint64_t pc, EtdInsn *out)
{
    const uint8_t *p = code_at(img, pc, 2);
    uint32_t insn;

    memset(out, 0, sizeof(*out));
    if (!p || (pc & 1)) {
        return false;
    }
    insn = p[0] | p[1] << 8;
    out->size = (insn & 3) == 3 ? 4 : 2;
    if (out->size == 4) {
        p = code_at(img, pc, 4);
        if (!p) {
            return false;
        }
        insn |= (uint32_t)(p[2] | p[3] << 8) << 16;
    }
    out->end = classify(img, insn, out->size, pc, &out->target, &out->call,
                        &out->trap_insn);
    operands(img, insn, out->size, pc, out);
    ir_kind(img, insn, out->size, out);
    out->data_dir = ETD_DATA_ANY;
    out->data_size = ETD_DATA_ANY;
    if (out->size == 4) {
        out->data = data_accesses32(img, insn);
        if (out->data == ETD_DATA_VECTOR) {
            unsigned width = (insn >> 12) & 7, mop = (insn >> 26) & 3;

            out->data_mma = true;
            out->data_dir = (insn & 0x7f) == 0x07 ? ETD_DATA_LOAD :
                                                    ETD_DATA_STORE;
            /* indexed: elements of SEW, which vtype holds */
            if (!(mop & 1)) {
                out->data_size = width ? width - 4 : 0;
            }
        }
    } else {
        out->data = data_accesses16(img, insn, &out->data_mma);
        if (out->data_mma) {
            /* cm.push stores, the pops load; registers of XLEN */
            out->data_dir = ((insn >> 8) & 0x1f) == 0x18 ? ETD_DATA_STORE :
                                                           ETD_DATA_LOAD;
            out->data_size = img->rv32 ? 2 : 3;
        }
    }
    return true;
}

static EtdBlock *decode_block(EtdImage *img, uint64_t pc)
{
    EtdBlock *b = g_new0(EtdBlock, 1);
    uint64_t at = pc;
    EtdInsn insn;

    b->start = pc;
    b->end = ETD_END_NOCODE;
    while (b->count < ETD_BLOCK_MAX && etd_image_insn(img, at, &insn)) {
        if (insn.size == 2) {
            b->rvc |= UINT64_C(1) << b->count;
        }
        if (insn.data) {
            b->data |= UINT64_C(1) << b->count;
        }
        b->prev_const_rd = b->last_const_rd;
        b->prev_const = b->last_const;
        b->last_const_rd = insn.const_rd;
        b->last_const = insn.const_value;
        b->count++;
        b->last = at;
        b->last_size = insn.size;
        b->end = insn.end;
        if (insn.end != ETD_END_SEQ) {
            b->target = insn.target;
            b->call = insn.call;
            b->ir_call = insn.ir_call;
            b->ir_ret = insn.ir_ret;
            b->jump_rs1 = insn.end == ETD_END_UNINF ? insn.jump_rs1 : 0;
            b->jump_imm = insn.jump_imm;
            break;
        }
        at += insn.size;
    }
    return b;
}

/*
 * A view's blocks: what they were decoded from, the bytes of their
 * instructions and, for one that runs into an address with no code,
 * whether there is code there now (FNV-1a).
 */
static uint64_t block_sig(EtdImage *img, const EtdBlock *b)
{
    uint64_t h = 0xcbf29ce484222325ull;
    uint64_t at, end = b->count ? b->last + b->last_size : b->start;

    for (at = b->start; at < end; at += 2) {
        const uint8_t *p = code_at(img, at, 2);

        h = (h ^ (p ? p[0] | p[1] << 8 : 0x10000)) * 0x100000001b3ull;
    }
    if (b->end == ETD_END_NOCODE) {
        h = (h ^ (code_at(img, end, 2) != NULL)) * 0x100000001b3ull;
    }
    return h;
}

/*
 * The view's code may have changed since @b was decoded: @b if its
 * bytes are the same, else the version of the block at its start that
 * holds the code there now.
 */
static EtdBlock *block_current(EtdImage *img, EtdBlock *b)
{
    EtdBlock *head = g_hash_table_lookup(img->blocks, &b->start);
    EtdBlock *v, *nb;

    if (block_sig(img, b) == b->sig) {
        b->gen = *img->genp;
        return b;
    }
    for (v = head; v; v = v->alt) {
        if (v != b && block_sig(img, v) == v->sig) {
            v->gen = *img->genp;
            return v;
        }
    }
    nb = decode_block(img, b->start);
    nb->sig = block_sig(img, nb);
    nb->gen = *img->genp;
    /* The newest first; the key stays the first version's start. */
    nb->alt = head->alt;
    head->alt = nb;
    return nb;
}

EtdBlock *etd_image_block(EtdImage *img, uint64_t pc)
{
    unsigned slot = (pc >> 1) & ((1u << ETD_CACHE_BITS) - 1);
    EtdBlock *b;

    if (img->cache[slot].b && img->cache[slot].pc == pc) {
        b = img->cache[slot].b;
        if (likely(b->gen == *img->genp)) {
            return b;
        }
    } else {
        b = g_hash_table_lookup(img->blocks, &pc);
        if (!b) {
            b = decode_block(img, pc);
            if (img->code) {
                b->sig = block_sig(img, b);
            }
            b->gen = *img->genp;
            g_hash_table_insert(img->blocks, &b->start, b);
        }
    }
    if (b->gen != *img->genp) {
        b = block_current(img, b);
    }
    img->cache[slot].pc = pc;
    img->cache[slot].b = b;
    return b;
}

EtdBlock *etd_image_block_check(EtdImage *img, EtdBlock *b)
{
    return b->gen == *img->genp ? b : etd_image_block(img, b->start);
}

uint64_t etd_block_insn_addr(const EtdBlock *b, unsigned i)
{
    uint64_t below = i ? b->rvc & ((UINT64_C(1) << i) - 1) : 0;
    unsigned small = __builtin_popcountll(below);

    return b->start + 2 * small + 4 * (i - small);
}

void etd_block_counts(const EtdBlock *b, const int64_t *diff,
                      void (*fn)(void *opaque, uint64_t addr,
                                 uint64_t count),
                      void *opaque)
{
    uint64_t addr = b->start;
    int64_t run = 0;
    unsigned i;

    for (i = 0; i < b->count; i++) {
        run += diff[i];
        if (run) {
            fn(opaque, addr, run);
        }
        addr += etd_block_insn_size(b, i);
    }
}

/* The symbols in address order, once more were added. */
static void sort_symbols(EtdImage *img)
{
    if (!img->syms_sorted) {
        g_array_sort(img->syms, sym_cmp);
        img->syms_sorted = true;
        memset(img->sym_cache, 0, sizeof(img->sym_cache));
    }
}

bool etd_image_symbol(EtdImage *img, uint64_t pc, uint64_t *start,
                      const char **name)
{
    unsigned slot = (pc >> 1) & (ETD_SYM_CACHE - 1);
    unsigned lo = 0, hi;
    const EtdSymbol *best = NULL;

    if (img->base) {
        img = img->base;
    }
    if (img->under && !segment_of(img, pc)) {
        return etd_image_symbol(img->under, pc, start, name);
    }

    sort_symbols(img);
    if (img->sym_cache[slot].valid && img->sym_cache[slot].pc == pc) {
        best = img->sym_cache[slot].sym;
    } else {
        hi = img->syms->len;
        while (lo < hi) {
            unsigned mid = (lo + hi) / 2;
            const EtdSymbol *s = &g_array_index(img->syms, EtdSymbol, mid);

            if (s->addr <= pc) {
                best = s;
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        img->sym_cache[slot].pc = pc;
        img->sym_cache[slot].sym = best;
        img->sym_cache[slot].valid = true;
    }
    if (!best) {
        return false;
    }
    *start = best->addr;
    if (name) {
        *name = best->name;
    }
    return true;
}

unsigned etd_image_symbol_count(EtdImage *img)
{

    if (img->base) {
        img = img->base;
    }
    return img->syms->len;
}

void etd_image_symbol_nth(EtdImage *img, unsigned k, uint64_t *addr,
                          const char **name)
{
    const EtdSymbol *s;

    if (img->base) {
        img = img->base;
    }

    sort_symbols(img);
    s = &g_array_index(img->syms, EtdSymbol, k);
    *addr = s->addr;
    *name = s->name;
}

const char *etd_image_symbolize(EtdImage *img, uint64_t pc, char *buf,
                                size_t len)
{
    const char *name;
    uint64_t start;

    if (!etd_image_symbol(img, pc, &start, &name)) {
        snprintf(buf, len, "0x%" PRIx64, pc);
    } else if (start == pc) {
        snprintf(buf, len, "%s", name);
    } else {
        snprintf(buf, len, "%s+0x%" PRIx64, name, pc - start);
    }
    return buf;
}
