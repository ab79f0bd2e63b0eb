#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The virt machine's trace options: bad combinations fail with a clear
message; the encoder properties for a trace started from reset set the
registers they name (TAP).

Usage: test-trace-options.py --qemu QEMU
"""

import json
import re
import sys

from rvcfo import cli, qemu, tap

SERIAL = ['-serial', 'null']


def funnels(harts):
    """Funnels the trace needs: of 8 inputs each, in a tree."""
    total, n = 0, harts
    while True:
        n = (n + 7) // 8
        total += n
        if n == 1:
            return total


NEED_TRACE = ('trace-chardev, trace-start, trace-sink and trace-code need '
              'trace=on')
NEED_PIB = ('trace-chardev and trace-start need trace-sink=pib (a RAM sink '
            'starts when a guest driver sets it up)')

CASES = [
    ('trace-chardev without trace=on',
     ['-M', 'virt,trace-chardev=tr', '-chardev', 'null,id=tr'], NEED_TRACE),
    ('trace-start without trace=on', ['-M', 'virt,trace-start=on'],
     NEED_TRACE),
    ('trace-sink without trace=on', ['-M', 'virt,trace-sink=ram'],
     NEED_TRACE),
    ('trace-code without trace=on',
     ['-M', 'virt,trace-code=tc', '-chardev', 'null,id=tc'], NEED_TRACE),
    ('trace-code with an unknown chardev',
     ['-M', 'virt,trace=on,trace-code=nope'],
     "trace-code: no chardev with id 'nope'"),
    ('an unknown trace-sink', ['-M', 'virt,trace=on,trace-sink=sram'],
     "trace-sink: 'sram' is not pib, ram or funnel-ram"),
    ('trace-chardev with RAM sinks',
     ['-M', 'virt,trace=on,trace-sink=ram,trace-chardev=tr', '-chardev',
      'null,id=tr'], NEED_PIB),
    ('trace-start with a RAM sink',
     ['-M', 'virt,trace=on,trace-sink=funnel-ram,trace-start=on'], NEED_PIB),
    ('an unknown chardev', ['-M', 'virt,trace=on,trace-chardev=nope'],
     "trace-chardev: no chardev with id 'nope'"),
    ('a resync mode the encoder does not implement',
     ['-M', 'virt,trace=on', '-global', 'riscv-trace-encoder.sync-mode=2'],
     'sync-mode 2 is not one this encoder implements (0 off, 1 packets, '
     '3 half-words)'),
    ('a protocol the encoder does not implement',
     ['-M', 'virt,trace=on', '-global', 'riscv-trace-encoder.protocol=2.5'],
     "protocol '2.5' is not one this encoder implements (2.0, 2.1)"),
    ('a resync period out of range',
     ['-M', 'virt,trace=on', '-global', 'riscv-trace-encoder.sync-max=16'],
     'sync-max 16 is out of range (0-15)'),
    ('more harts than funnel slots',
     ['-M', 'virt,trace=on', '-smp', '100', '-m', '2G'],
     f'trace: 100 harts need {funnels(100)} trace funnels, the machine '
     'has slots for 14'),
    # Split signalling is a layout of data trace packets.
    ('data-split without data trace',
     ['-M', 'virt,trace=on', '-global', 'riscv-trace-encoder.data-split=on'],
     'data-split needs data-trace=on'),
    # The UART has it: an error, not an abort.
    ('a chardev in use already',
     ['-M', 'virt,trace=on,trace-chardev=c', '-chardev', 'null,id=c',
      '-serial', 'chardev:c'], "chardev 'c' is already in use"),
]


# trTeControl: Active (0), Enable (1), InstTracing (2), InstMode 6:4 (6
# for E-Trace), InstSyncMode 17:16, InstSyncMax 23:20; trTeInstFeatures:
# NoAddrDiff (0), EnSequentialJump (2), EnImplicitReturn (3),
# EnBranchPrediction (4), EnJumpTargetCache (5), ImplicitReturnMode 7:6
# (always 3, full address comparing); trTeImpl: VerMajor 3:0 (1),
# CompType 11:8 (1, encoder), ProtocolMajor 19:16 and ProtocolMinor 23:20
# (0.0 for E-Trace 2.0.x, control.adoc; 0.1 for 2.1).  Hart 0's encoder
# is at 0x3020000.
def control(mode, period):
    return 1 | 1 << 1 | 1 << 2 | 6 << 4 | mode << 16 | period << 20


IR_MODE = 3 << 6
IMPL_20 = 1 | 1 << 8
IMPL_21 = IMPL_20 | 1 << 20
REGISTERS = [
    ('trace-start defaults', [], control(1, 8), IMPL_20, IR_MODE),
    ('no-addr-diff, sync-mode, sync-max',
     ['-global', 'riscv-trace-encoder.no-addr-diff=on',
      '-global', 'riscv-trace-encoder.sync-mode=3',
      '-global', 'riscv-trace-encoder.sync-max=0'], control(3, 0), IMPL_20,
     1 | IR_MODE),
    ('every compression option',
     ['-global', 'riscv-trace-encoder.sequential-jumps=on',
      '-global', 'riscv-trace-encoder.implicit-return=on',
      '-global', 'riscv-trace-encoder.branch-prediction=on',
      '-global', 'riscv-trace-encoder.jump-target-cache=on'], control(1, 8),
     IMPL_20, 1 << 2 | 1 << 3 | 1 << 4 | 1 << 5 | IR_MODE),
    ('protocol 2.0 asked for', ['-global', 'riscv-trace-encoder.protocol=2.0'],
     control(1, 8), IMPL_20, IR_MODE),
    ('protocol 2.1', ['-global', 'riscv-trace-encoder.protocol=2.1'],
     control(1, 8), IMPL_21, IR_MODE),
]


def diagnose(res):
    """QEMU's exit status and what it printed, as TAP comments."""
    return [f'exit {res.returncode}, stderr:'] + \
        [f'  {line}' for line in res.stderr.strip().splitlines()]


def run(qemu_bin, args, stdin):
    """QEMU stopped (-S) with @args (-M included), @stdin as its
    input."""
    return qemu.run(qemu.command(qemu_bin, machine=None, serial=None,
                                 no_reboot=False, extra=args, stopped=True),
                    60, capture_output=True, text=True, input=stdin)


def registers(qemu_bin, args):
    """trTeControl, trTeImpl and trTeInstFeatures of hart 0's encoder
    after reset."""
    cmds = [{'execute': 'qmp_capabilities'},
            {'execute': 'human-monitor-command',
             'arguments': {'command-line': 'xp /3wx 0x3020000'}},
            {'execute': 'quit'}]
    res = run(qemu_bin, SERIAL + ['-M', 'virt,trace=on,trace-start=on',
                                  '-qmp', 'stdio'] + args,
              ''.join(json.dumps(c) + '\n' for c in cmds))
    m = re.search(r'0x([0-9a-f]{8}) 0x([0-9a-f]{8}) 0x([0-9a-f]{8})',
                  res.stdout)
    return tuple(int(m.group(k), 16) for k in (1, 2, 3)) if m else None


def main():
    """Every bad combination, 88 harts, the registers (TAP)."""
    qemu_bin = cli.parse(cli.parser(__doc__)).qemu
    results = tap.Tap(plan=len(CASES) + 1 + len(REGISTERS))
    for what, args, message in CASES:
        if '-serial' not in args:
            args = SERIAL + args
        res = run(qemu_bin, args, '')
        # error_fatal exits with 1; an abort or a crash is a signal.
        ok = res.returncode == 1 and message in res.stderr
        results.check(ok, what, notes=[] if ok else diagnose(res))
    # 88 harts still fit: 11 + 2 + 1 funnels.
    res = run(qemu_bin, SERIAL + ['-M', 'virt,trace=on', '-smp', '88',
                                  '-m', '2G', '-qmp', 'stdio'],
              '{"execute": "qmp_capabilities"}\n{"execute": "quit"}\n')
    ok = res.returncode == 0
    results.check(ok, '88 harts fit', notes=[] if ok else diagnose(res))
    for what, args, ctl, impl, features in REGISTERS:
        got = registers(qemu_bin, args)
        ok = got == (ctl, impl, features)
        results.check(ok, what, notes=[] if ok else [
            f'trTeControl, trTeImpl, trTeInstFeatures: {got}, wanted '
            f'{(hex(ctl), hex(impl), hex(features))}'])
    sys.exit(results.done())


if __name__ == '__main__':
    main()
