/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Timestamps with a prescale.  Traced from reset with
 * riscv-trace-encoder.timestamps=on (the counter counting the hart's
 * clock from reset, prescale 0, in every packet) under -icount
 * shift=0,sleep=off (one tick per instruction); the guest then sets
 * trTsPrescale to PRESCALE (the store at etrace_ts_store) and runs a
 * loop with an uninferable jump in every round, so that packets keep
 * coming.  From the store on the counter advances by one every
 * 4^PRESCALE ticks (Trace Control Interface, trTsControl: "Prescale
 * timestamp input clock by 2^(2*trTsPrescale)"); the round trip
 * (--ts-prescale) checks every timestamp's value.  Standalone, M-mode.
 */

#define FINISHER    0x00100000
#define ENCODER     0x03020000
#define TS_CONTROL  0x040
#define PRESCALE    2
/* Active, Count, Enable, the prescale */
#define TS_VALUE    (1 | 1 << 1 | 1 << 15 | PRESCALE << 8)
#define ROUNDS      100

    .option norelax
    .option norvc
    .section .text.start, "ax"
    .globl _start
_start:
    /* a few rounds before the prescale */
    li s3, 10
1:  la t2, 2f
    jr t2
2:  addi s3, s3, -1
    bnez s3, 1b

    li t0, ENCODER + TS_CONTROL
    li t1, TS_VALUE
    .globl etrace_ts_store
etrace_ts_store:
    sw t1, 0(t0)

    li s3, ROUNDS
1:  la t2, 2f
    jr t2
2:  addi a1, a1, 1
    addi a2, a2, 3
    addi s3, s3, -1
    bnez s3, 1b

    li t1, FINISHER
    li t2, 0x5555
    sw t2, 0(t1)
3:  j 3b
