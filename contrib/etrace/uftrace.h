/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the calls of every source as a uftrace data directory
 * (uftrace.c).
 */
#ifndef ETRACE_UFTRACE_H
#define ETRACE_UFTRACE_H

#include "calls.h"

typedef struct EtdUftrace {
    char *dir;
    EtdImage *img;
    bool timed;
    /* per source: its records (<tid>.dat), opened at its first */
    FILE *dat[ETD_MAX_SOURCES];
    uint64_t *buf[ETD_MAX_SOURCES];
    unsigned fill[ETD_MAX_SOURCES];
    uint64_t had[ETD_MAX_SOURCES / 64];
    unsigned sources;
    uint64_t first_time, last_time;
    bool any;
} EtdUftrace;

/**
 * etd_uftrace_begin: make the directory @dir (it must not exist, or be
 * empty)
 * @errp: ETD_ERR_IO
 */
bool etd_uftrace_begin(EtdUftrace *u, const char *dir, EtdImage *img,
                       bool timed, GError **errp);

/* The sink that writes the records of a reconstruction. */
void etd_uftrace_sink(EtdUftrace *u, EtdCallSink *sink);

/**
 * etd_uftrace_end: write the files that describe the records (every frame
 * left before)
 * @errp: ETD_ERR_IO
 */
bool etd_uftrace_end(EtdUftrace *u, GError **errp);

/*
 * Write out the records so far (the directory is whole, with its info
 * and task files, at etd_uftrace_end()).
 */
void etd_uftrace_flush(EtdUftrace *u);

#endif
