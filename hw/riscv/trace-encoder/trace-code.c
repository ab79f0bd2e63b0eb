/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The code side stream of the RISC-V trace system (hw/riscv/trace-code.h):
 * the trace encoders of the harts write their records to one chardev.
 *
 * Nothing of it may be lost, or a decoder would follow other code than
 * the hart ran: records are written in full, the hart waiting for the
 * chardev if it must.  The stream is a debugging aid that costs nothing
 * unless the board asks for it (virt's trace-code option).
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/main-loop.h"
#include "qapi/error.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "chardev/char-fe.h"
#include "hw/riscv/trace-code.h"
#include "hw/riscv/trace-component.h"

struct RISCVTraceCode {
    DeviceState parent_obj;

    CharFrontend chr;
};

void riscv_trace_code_write(RISCVTraceCode *c, unsigned kind, unsigned priv,
                            unsigned src, unsigned hart, uint64_t pos,
                            uint32_t branches, const void *data,
                            uint32_t len)
{
    uint8_t hdr[RISCV_TRACE_CODE_HDR_LEN];

    assert(bql_locked());
    hdr[0] = kind;
    hdr[1] = priv;
    stw_le_p(hdr + 2, src);
    stl_le_p(hdr + 4, len);
    stq_le_p(hdr + 8, pos);
    stl_le_p(hdr + 16, branches);
    stl_le_p(hdr + 20, hart);
    qemu_chr_fe_write_all(&c->chr, hdr, sizeof(hdr));
    if (len) {
        qemu_chr_fe_write_all(&c->chr, data, len);
    }
}

static void trace_code_realize(DeviceState *dev, Error **errp)
{
    RISCVTraceCode *c = RISCV_TRACE_CODE(dev);

    if (!qemu_chr_fe_backend_connected(&c->chr)) {
        error_setg(errp, "riscv-trace-code: the chardev property is "
                   "required");
        return;
    }
    qemu_chr_fe_write_all(&c->chr, (const uint8_t *)RISCV_TRACE_CODE_MAGIC,
                          RISCV_TRACE_CODE_MAGIC_LEN);
}

static const Property trace_code_properties[] = {
    DEFINE_PROP_CHR("chardev", RISCVTraceCode, chr),
};

static void trace_code_class_init(ObjectClass *klass, const void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);

    dc->realize = trace_code_realize;
    dc->desc = "RISC-V trace code side stream";
    dc->user_creatable = false;
    device_class_set_props(dc, trace_code_properties);
}

static const TypeInfo trace_code_types[] = {
    {
        .name = TYPE_RISCV_TRACE_CODE,
        .parent = TYPE_DEVICE,
        .instance_size = sizeof(RISCVTraceCode),
        .class_init = trace_code_class_init,
    },
};

DEFINE_TYPES(trace_code_types)
