/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the source lines of the ELF images, from their DWARF
 * line tables (read with elfutils' libdw).
 */
#ifndef ETRACE_LINES_H
#define ETRACE_LINES_H

#include <libelf.h>
#include "etrace-decode.h"

/* A row of a line table: [addr, end) is @line of @file. */
typedef struct EtdLineRow {
    uint64_t addr;
    uint64_t end;
    const char *file;       /* absolute where the table says its directory */
    unsigned line;
} EtdLineRow;

typedef struct EtdLines EtdLines;

EtdLines *etd_lines_new(void);
void etd_lines_free(EtdLines *l);

/**
 * etd_lines_add_elf: the line tables of the ELF file @path, loaded at
 * @offset from its link addresses
 * Returns false with @errp set when the file cannot be read; an ELF file
 * without line tables adds no rows (a warning on stderr if @warn).
 */
bool etd_lines_add_elf(EtdLines *l, const char *path, uint64_t offset,
                       bool warn, GError **errp);

/* The same of an ELF file open already (libelf's @elf, read from @path). */
void etd_lines_add_dwarf(EtdLines *l, Elf *elf, const char *path,
                         uint64_t offset, bool warn);

/* The rows, in address order. */
unsigned etd_lines_count(EtdLines *l);
const EtdLineRow *etd_lines_nth(EtdLines *l, unsigned k);

/* The row holding @addr, or NULL. */
const EtdLineRow *etd_lines_find(EtdLines *l, uint64_t addr);

#endif
