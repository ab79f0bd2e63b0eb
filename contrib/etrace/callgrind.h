/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: calls as a Callgrind profile (callgrind.c).
 */
#ifndef ETRACE_CALLGRIND_H
#define ETRACE_CALLGRIND_H

#include "calls.h"
#include "lines.h"

/*
 * The profile of the @n reconstructions @calls (NULL for a source that
 * had none), every frame left, to @out; with @lines (else NULL) and
 * costs counted per instruction (etd_calls_by_insn()), by source line.
 */
void etd_callgrind(EtdCalls *const *calls, unsigned n, EtdLines *lines,
                   FILE *out);

#endif
