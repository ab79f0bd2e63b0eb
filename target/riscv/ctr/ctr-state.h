/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V Control Transfer Records (Smctr/Ssctr): per-hart state.
 *
 * Kept apart from ctr.h so that cpu.h can embed it in CPURISCVState.
 */
#ifndef RISCV_CTR_STATE_H
#define RISCV_CTR_STATE_H

/* Largest buffer the sctrdepth encodings can select (DEPTH = 4). */
#define RISCV_CTR_MAX_ENTRIES   256

typedef struct RISCVCTRState {
    uint64_t mctrctl;
    uint64_t vsctrctl;
    uint32_t sctrdepth;
    uint32_t sctrstatus;

    /* Physical entries; logical entry 0 is the one before WRPTR. */
    uint64_t src[RISCV_CTR_MAX_ENTRIES];
    uint64_t dst[RISCV_CTR_MAX_ENTRIES];
    uint64_t data[RISCV_CTR_MAX_ENTRIES];

    /*
     * CtrCycleCounter: cc_count holds the active cycles accumulated up
     * to cc_start (in mcycle ticks); while cc_active the cycles since
     * cc_start are added on demand.  cc_invalid makes the next record
     * carry CCV=0.
     */
    uint64_t cc_count;
    uint64_t cc_start;
    /*
     * Drain anchor: the clock and the pipeline's instruction count at the
     * last drain while cc_active (not migrated: set again after loading).
     */
    uint64_t an_time;
    uint64_t an_insns;
    bool cc_active;
    bool cc_invalid;

    /* RASEMU: an entry was popped since the last recorded call. */
    bool ras_popped;

    /* mip.LCOFIP was raised by a counter overflow, not by software. */
    bool lcofi_overflow;

    /* Transfer types recorded in the current mode (ctr_compute_tb_types). */
    uint32_t tb_types;
} RISCVCTRState;

#endif
