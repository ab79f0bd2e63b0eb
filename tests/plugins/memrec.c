/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A record of every memory access each vCPU makes, for the data tests
 * (tests/scripts/test-cflow-data.py): one line per access,
 *
 *   cpu N 0xPC,0xADDR,BYTES,load|store,0xVALUE
 *
 * (the vCPU's index, the instruction's address, the access's virtual
 * address, its size in bytes, its direction and the value read or
 * written), written with qemu_plugin_outs() (-d plugin).  QEMU's own
 * tests/tcg/plugins/mem.c does not say which vCPU made an access.
 */

#include <inttypes.h>
#include <stdio.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static void access_cb(unsigned int cpu, qemu_plugin_meminfo_t info,
                      uint64_t vaddr, void *udata)
{
    qemu_plugin_mem_value v = qemu_plugin_mem_get_value(info);
    uint64_t value, high = 0;
    char line[160], hex[40];

    switch (v.type) {
    case QEMU_PLUGIN_MEM_VALUE_U8:
        value = v.data.u8;
        break;
    case QEMU_PLUGIN_MEM_VALUE_U16:
        value = v.data.u16;
        break;
    case QEMU_PLUGIN_MEM_VALUE_U32:
        value = v.data.u32;
        break;
    case QEMU_PLUGIN_MEM_VALUE_U64:
        value = v.data.u64;
        break;
    default:
        /* 128 bits (amocas.q) */
        value = v.data.u128.low;
        high = v.data.u128.high;
        break;
    }
    if (high) {
        snprintf(hex, sizeof(hex), "%" PRIx64 "%016" PRIx64, high, value);
    } else {
        snprintf(hex, sizeof(hex), "%" PRIx64, value);
    }
    snprintf(line, sizeof(line),
             "cpu %u 0x%" PRIx64 ",0x%" PRIx64 ",%u,%s,0x%s\n",
             cpu, (uint64_t)(uintptr_t)udata, vaddr,
             1u << qemu_plugin_mem_size_shift(info),
             qemu_plugin_mem_is_store(info) ? "store" : "load", hex);
    qemu_plugin_outs(line);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t i, n = qemu_plugin_tb_n_insns(tb);

    for (i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

        qemu_plugin_register_vcpu_mem_cb(
            insn, access_cb, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
            (void *)(uintptr_t)qemu_plugin_insn_vaddr(insn));
    }
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv)
{
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    return 0;
}
