/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The RAS emulation test's workloads (ctr-rasemu-work.S), the labels of
 * their recorded transfers and the snapshot they store.
 */
#ifndef CTR_RASEMU_H
#define CTR_RASEMU_H

#include <stdint.h>

#define RAS_DEPTH       16      /* sctrdepth.DEPTH = 0 */

/* What SNAP stores: sctrstatus, then logical entries 0..15. */
struct snap {
    uint64_t status;
    struct {
        uint64_t src, tgt, data;
    } e[RAS_DEPTH];
};

unsigned long ras_snap_cal(unsigned long unused, struct snap *buf);
void ras_chain(unsigned long ctl, struct snap *buf);
unsigned long ras_forms(unsigned long ctl, struct snap *buf);
void ras_ext(unsigned long ctl, struct snap *buf);

extern const unsigned long ras_chain_fn[20], ras_chain_site[20];
extern char ras_c0b[], ras_f18[], ras_f19[], ras_f20[], ras_c18[];
extern char ras_c19[];
extern char fm_c1[], fm_t1[], fm_c2[], fm_t2[], fm_c3[], fm_t3[];
extern char fm_c4[], fm_t4[], fm_c5[], fm_t5[], fm_c6[], fm_t6[];
extern char fm_s12[], fm_t12[], fm_s13[], fm_t13[], fm_s14[], fm_t14[];
extern char fm_c25[], fm_t25[], fm_c27[], fm_t27[];
extern char ue_c1[], ue_f[];

#endif
