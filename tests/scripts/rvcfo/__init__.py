# SPDX-License-Identifier: GPL-2.0-or-later
"""The test drivers' shared package (tests/scripts/rvcfo).

A driver in tests/scripts imports it directly (Python puts the driver's
own directory first on sys.path):

    from rvcfo import cli, qemu, tap

Modules:
  cli        argparse conventions: --qemu, --elf, --cpu, --decoder and
             the QEMU arguments after "--"
  qemu       the qemu-system-riscv64 command line and running it
  qmp        a QEMU process with a QMP socket and its serial output
  tap        the one TAP writer
  guest      what the guest programs print (PASS, SKIP, READY lines)
  record     QEMU's own record of execution (-d in_asm,exec,nochain,int)
  roundtrip  a trace decoded with etrace-decode against that record
  heapcheck  glibc's heap checks for a QEMU process
"""
