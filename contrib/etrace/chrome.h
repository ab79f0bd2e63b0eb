/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: the calls of every source as Chrome Trace Event JSON
 * (chrome.c).
 */
#ifndef ETRACE_CHROME_H
#define ETRACE_CHROME_H

#include "calls.h"

typedef struct EtdChrome {
    FILE *out;
    char buf[1 << 16];
    size_t len;
    uint64_t events;
    /* a node's name, JSON-escaped */
    /* the reconstruction of each source, for the names of its frames */
    EtdCalls **calls;
    uint64_t named[ETD_MAX_SOURCES / 64];
} EtdChrome;

/* Start the JSON object on @out; the clock is timestamps when @timed. */
void etd_chrome_begin(EtdChrome *ch, FILE *out, bool timed);

/* The sink that writes the events of a reconstruction. */
void etd_chrome_sink(EtdChrome *ch, EtdCallSink *sink);

/* End the JSON object (every frame left before). */
void etd_chrome_end(EtdChrome *ch);

/* Write out the events so far (the JSON ends at etd_chrome_end()). */
void etd_chrome_flush(EtdChrome *ch);

#endif
