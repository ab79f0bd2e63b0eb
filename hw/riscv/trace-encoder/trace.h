/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "trace/trace-hw_riscv_trace_encoder.h"
