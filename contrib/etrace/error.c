/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Trace decoder: error codes.
 */

#include "qemu/osdep.h"
#include "etrace-decode.h"

#define NAME(code) [code] = #code

static const char *const etd_error_names[] = {
    NAME(ETD_ERR_TRUNCATED),
    NAME(ETD_ERR_NULL_FLOW),
    NAME(ETD_ERR_TIMESTAMP),
    NAME(ETD_ERR_UNKNOWN_PACKET),
    NAME(ETD_ERR_NO_SYNC_SEQUENCE),
    NAME(ETD_ERR_NO_SYNC),
    NAME(ETD_ERR_BAD_DATA),
    NAME(ETD_ERR_DATA_HISTORY),
    NAME(ETD_ERR_BRANCHES_MISSING),
    NAME(ETD_ERR_BRANCHES_UNUSED),
    NAME(ETD_ERR_BRANCH_MAP_OVERFLOW),
    NAME(ETD_ERR_NO_PATH),
    NAME(ETD_ERR_JUMP_BEFORE_BRANCHES),
    NAME(ETD_ERR_NO_CODE),
    NAME(ETD_ERR_OUTSIDE_IMAGES),
    NAME(ETD_ERR_TRAP_BRANCH_MISSING),
    NAME(ETD_ERR_EPC_UNKNOWN),
    NAME(ETD_ERR_BPRED_OFF),
    NAME(ETD_ERR_JTC_OFF),
    NAME(ETD_ERR_JTC_EMPTY),
    NAME(ETD_ERR_USAGE),
    NAME(ETD_ERR_BAD_VALUE),
    NAME(ETD_ERR_PARAM),
    NAME(ETD_ERR_NO_IMAGE),
    NAME(ETD_ERR_IO),
    NAME(ETD_ERR_BAD_ELF),
    NAME(ETD_ERR_NOT_RISCV),
    NAME(ETD_ERR_EMPTY_IMAGE),
    NAME(ETD_ERR_BAD_CODE),
};

QEMU_BUILD_BUG_ON(ARRAY_SIZE(etd_error_names) != ETD_ERR__MAX);

GQuark etd_error_quark(void)
{
    return g_quark_from_static_string("etrace-decode-error-quark");
}

const char *etd_error_name(EtdError code)
{
    if (code <= 0 || code >= ETD_ERR__MAX) {
        return "ETD_ERR_UNKNOWN";
    }
    return etd_error_names[code];
}
