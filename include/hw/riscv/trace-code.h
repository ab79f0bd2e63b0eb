/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The code side stream of the RISC-V trace system: the instructions the
 * harts translate and the pages their TLBs map for fetches, so that a
 * decoder knows the bytes a hart ran where code changes at run time (a
 * kernel patching itself, code loaded or generated while it runs).
 *
 * The stream is RISCV_TRACE_CODE_MAGIC then records of a 24-byte header
 * and a payload, every field little-endian:
 *
 *   0  u8  kind       RISCV_TRACE_CODE_*
 *   1  u8  priv       the E-Trace privilege the record is for (U 0, S 1,
 *                     M 3, VU 5, VS 6)
 *   2  u16 src        the srcID of the hart's encoder
 *   4  u32 len        payload bytes after the header
 *   8  u64 pos        te_inst packets the hart's encoder had made
 *                     (format 3.2, context, packets aside)
 *  16  u32 branches   branches retired since the instruction the last of
 *                     them reported
 *  20  u32 hart       the hart's index (QEMU's CPU index: mhartid on
 *                     virt), which tells apart harts whose encoders
 *                     have one srcID (a RAM sink each: srcID 0)
 *
 * A record holds from that point of the trace on: a decoder applies it
 * once it has followed packet pos + 1 through that many branch outcomes
 * (or at once, with 0), and before it follows packet pos + 2.
 * docs/specs/riscv-trace.rst, "The code side stream", has the rules.
 */
#ifndef HW_RISCV_TRACE_CODE_H
#define HW_RISCV_TRACE_CODE_H

#define RISCV_TRACE_CODE_MAGIC      "RVCODE\x00\x01"
#define RISCV_TRACE_CODE_MAGIC_LEN  8
#define RISCV_TRACE_CODE_HDR_LEN    24

/* u64 va, then the bytes of the instructions at va, as translated. */
#define RISCV_TRACE_CODE_CODE       1
/* u64 va, u64 pa: the 4 KiB page at va is the one at pa for fetches. */
#define RISCV_TRACE_CODE_MAP        2
/*
 * No payload: te_inst packets were lost; the support packet that says
 * so (trace_lost) is packet pos + 1 of the encoder's.
 */
#define RISCV_TRACE_CODE_LOST       3

#define RISCV_TRACE_CODE_PAGE_BITS  12

#endif
