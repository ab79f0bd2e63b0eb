#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run inside the Linux guest by tests/scripts/test-linux-e2e.py: prints
# what the host checks, each part after a line "@@ NAME".
#
# e2e-guest.sh PART...: the parts named, in order:
# counting: harts, the ISA the kernel and the device tree show, perf
#           stat of cfo-loop and cfo-sys
# sampling: perf record of cfo-loop at three periods

part() {
    echo "@@ $1"
}

counting() {
    part online
    cat /sys/devices/system/cpu/online
    part cpuinfo
    sed -n 's/^isa[[:space:]]*: //p' /proc/cpuinfo
    for c in /proc/device-tree/cpus/cpu@*; do
        part "dt-extensions ${c##*@}"
        tr '\0' '\n' <"$c/riscv,isa-extensions"
        part "dt-isa ${c##*@}"
        tr -d '\0' <"$c/riscv,isa"
        echo
    done
    for run in 1:cfo-loop 2:cfo-loop 1:cfo-sys; do
        part "stat-instructions ${run#*:} ${run%%:*}"
        perf stat -x, -e instructions:u,instructions:k,instructions \
            "${run#*:}" 2>&1
    done
    part "stat-cycles cfo-loop"
    perf stat -x, -e cycles:u,cycles:k,cycles cfo-loop 2>&1
    for cpu in 0 1; do
        part "stat-hart $cpu"
        taskset -c "$cpu" perf stat -x, -e instructions:u cfo-loop 2>&1
    done
}

sampling() {
    cd /tmp || exit 1
    for period in 100003 200003 1000003; do
        part "record $period"
        perf record -q -e instructions:u -c "$period" -o "p$period.data" \
            cfo-loop 2>&1 &&
        perf --no-pager script -i "p$period.data" -F ip,period 2>&1
    done
}

for what in "$@"; do
    "$what"
done
part end
