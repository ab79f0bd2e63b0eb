/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: coverage of the program images by the decoded flow
 * (coverage.c).
 *
 * As the flow is decoded, the instructions retired are counted per
 * address, and of each conditional branch, the times it was taken and
 * not taken (from where the next instruction is).  At the end the counts
 * are read against the ELF images:
 *  - etd_cover_lcov(): an lcov tracefile (genhtml's input), lines from
 *    the DWARF line tables (read with elfutils' libdw), functions from
 *    the ELF symbols of type FUNC, branches from the conditional branch
 *    instructions of each line;
 *  - etd_cover_report(): per image and function, the instructions and
 *    basic blocks retired, with no debug information needed.
 * docs/system/riscv/trace.rst ("Coverage") says how each count is made.
 */
#ifndef ETRACE_COVERAGE_H
#define ETRACE_COVERAGE_H

#include "etrace-decode.h"

typedef struct EtdCover EtdCover;

/* @warn: say on stderr when an image has no line tables */
EtdCover *etd_cover_new(EtdImage *img, bool warn);
void etd_cover_free(EtdCover *cv);

/* An ELF image of @img, at @offset from its link addresses. */
void etd_cover_add_elf(EtdCover *cv, const char *path, uint64_t offset);

/* Instructions @from .. @from + @n - 1 of @b retire (EtdSink.run). */
void etd_cover_run(EtdCover *cv, unsigned src, const EtdBlock *b,
                   unsigned from, unsigned n);

/*
 * A trap before the next instruction (EtdSink.trap): an exception's @epc
 * is where a branch just retired went; ETD_EPC_UNKNOWN: not known.
 */
void etd_cover_trap(EtdCover *cv, unsigned src, uint64_t epc);

/* A gap (EtdSink.gap): where a branch just retired went is not known. */
void etd_cover_gap(EtdCover *cv, unsigned src);

/*
 * etd_cover_lcov: the lcov tracefile of the images added, to @out
 * Returns false with @errp set when an image cannot be read; an image
 * without DWARF line tables gives no lines.
 */
bool etd_cover_lcov(EtdCover *cv, FILE *out, GError **errp);

/* etd_cover_report: instructions and basic blocks per function, to @out */
bool etd_cover_report(EtdCover *cv, FILE *out, GError **errp);

#endif
