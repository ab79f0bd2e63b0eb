/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RISC-V Smcntrpmf: per-hart state of the filtered cycle and instret
 * counters, kept in CPURISCVState.cntrpmf.  See cntrpmf.h.
 */
#ifndef RISCV_CNTRPMF_STATE_H
#define RISCV_CNTRPMF_STATE_H

/* The two event sources. */
typedef enum {
    RISCV_CNTRPMF_CYCLE = 0,
    RISCV_CNTRPMF_INSTRET = 1,
    RISCV_CNTRPMF_NR_SOURCES
} RISCVCntrpmfSource;

/*
 * Privilege modes in the order of their xINH bits: mode m is inhibited
 * by bit 62 - m of a configuration register.
 */
typedef enum {
    RISCV_CNTRPMF_M = 0,
    RISCV_CNTRPMF_S = 1,
    RISCV_CNTRPMF_U = 2,
    RISCV_CNTRPMF_VS = 3,
    RISCV_CNTRPMF_VU = 4,
    RISCV_CNTRPMF_NR_MODES
} RISCVCntrpmfMode;

typedef struct RISCVCntrpmfState {
    /* mcyclecfg, minstretcfg: only implemented xINH bits are ever set */
    uint64_t cfg[RISCV_CNTRPMF_NR_SOURCES];
    /* mcycle/minstret value when last written, reconfigured or stopped */
    uint64_t value[RISCV_CNTRPMF_NR_SOURCES];
    /* filtered event count at that moment */
    uint64_t base[RISCV_CNTRPMF_NR_SOURCES];
    /* events per mode, up to the last mode change */
    uint64_t events[RISCV_CNTRPMF_NR_SOURCES][RISCV_CNTRPMF_NR_MODES];
    /* source reading at the last mode change */
    uint64_t snap[RISCV_CNTRPMF_NR_SOURCES];
    /* modes in which translated code must count instructions (cache) */
    uint32_t instret_modes;
    /*
     * Per programmable counter counting instructions with an overflow
     * interrupt armed: the env->cf.insns at which it wraps in the current
     * mode, else 0 (derived, recomputed at every mode change and counter
     * or filter write).  RV_MAX_MHPMCOUNTERS entries.
     */
    uint64_t wrap[32];
    /* counters with a wrap point; counters that may have one (cache) */
    uint32_t wrap_mask;
    uint32_t armable;
} RISCVCntrpmfState;

#endif
