/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the source lines of the ELF images (lines.h).
 */

#include "qemu/osdep.h"
#include <fcntl.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "lines.h"

struct EtdLines {
    GArray *rows;           /* EtdLineRow */
    bool sorted;
    GStringChunk *names;
};

EtdLines *etd_lines_new(void)
{
    EtdLines *l = g_new0(EtdLines, 1);

    l->rows = g_array_new(false, false, sizeof(EtdLineRow));
    l->names = g_string_chunk_new(4096);
    return l;
}

void etd_lines_free(EtdLines *l)
{
    g_array_free(l->rows, true);
    g_string_chunk_free(l->names);
    g_free(l);
}

/* The file of a row: relative names are of the compilation's directory. */
static const char *row_file(EtdLines *l, const char *file, const char *dir)
{
    g_autofree char *path = NULL;

    if (g_path_is_absolute(file) || !dir) {
        return g_string_chunk_insert_const(l->names, file);
    }
    path = g_canonicalize_filename(file, dir);
    return g_string_chunk_insert_const(l->names, path);
}

/* The rows of the line table of one compilation unit. */
static void add_unit(EtdLines *l, Dwarf_Die *cudie, uint64_t offset)
{
    Dwarf_Attribute attr;
    const char *dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir,
                                                  &attr));
    Dwarf_Lines *lines;
    size_t n, i;

    if (dwarf_getsrclines(cudie, &lines, &n) != 0) {
        return;
    }
    for (i = 0; i + 1 < n; i++) {
        Dwarf_Line *line = dwarf_onesrcline(lines, i);
        Dwarf_Line *next = dwarf_onesrcline(lines, i + 1);
        Dwarf_Addr a, b;
        bool end;
        int lineno;
        const char *file;
        EtdLineRow r;

        if (dwarf_lineendsequence(line, &end) || end ||
            dwarf_lineaddr(line, &a) || dwarf_lineaddr(next, &b) ||
            b <= a || dwarf_lineno(line, &lineno) || lineno <= 0) {
            continue;
        }
        file = dwarf_linesrc(line, NULL, NULL);
        if (!file) {
            continue;
        }
        r.addr = a + offset;
        r.end = b + offset;
        r.file = row_file(l, file, dir);
        r.line = lineno;
        g_array_append_val(l->rows, r);
    }
}

void etd_lines_add_dwarf(EtdLines *l, Elf *elf, const char *path,
                         uint64_t offset, bool warn)
{
    Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
    Dwarf_CU *cu = NULL;
    Dwarf_Die cudie;

    if (!dw) {
        if (warn) {
            fprintf(stderr, "etrace-decode: warning: %s: no DWARF line "
                    "tables, no source lines\n", path);
        }
        return;
    }
    while (dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
        add_unit(l, &cudie, offset);
    }
    dwarf_end(dw);
    l->sorted = false;
}

bool etd_lines_add_elf(EtdLines *l, const char *path, uint64_t offset,
                       bool warn, GError **errp)
{
    Elf *elf;
    int fd = open(path, O_RDONLY);

    if (fd < 0) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_IO, "%s: %s", path,
                    g_strerror(errno));
        return false;
    }
    elf_version(EV_CURRENT);
    elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf) {
        g_set_error(errp, ETD_ERROR, ETD_ERR_BAD_ELF, "%s: %s", path,
                    elf_errmsg(-1));
        close(fd);
        return false;
    }
    etd_lines_add_dwarf(l, elf, path, offset, warn);
    elf_end(elf);
    close(fd);
    return true;
}

static int row_cmp(gconstpointer a, gconstpointer b)
{
    const EtdLineRow *x = a, *y = b;

    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void sort_rows(EtdLines *l)
{
    if (!l->sorted) {
        g_array_sort(l->rows, row_cmp);
        l->sorted = true;
    }
}

unsigned etd_lines_count(EtdLines *l)
{
    return l->rows->len;
}

const EtdLineRow *etd_lines_nth(EtdLines *l, unsigned k)
{
    sort_rows(l);
    return &g_array_index(l->rows, EtdLineRow, k);
}

const EtdLineRow *etd_lines_find(EtdLines *l, uint64_t addr)
{
    unsigned lo = 0, hi = l->rows->len;

    sort_rows(l);
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        const EtdLineRow *r = &g_array_index(l->rows, EtdLineRow, mid);

        if (addr < r->addr) {
            hi = mid;
        } else if (addr >= r->end) {
            lo = mid + 1;
        } else {
            return r;
        }
    }
    return NULL;
}
