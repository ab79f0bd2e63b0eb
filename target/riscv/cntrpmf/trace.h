/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "trace/trace-target_riscv_cntrpmf.h"
