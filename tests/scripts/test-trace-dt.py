#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Device tree of the virt machine's trace components (TAP).

Usage: test-trace-dt.py --qemu QEMU

Dumps the device tree of "-M virt,trace=on" with 2 and with 9 harts and
reads it with fdtget: a node per component at the documented addresses
with compatible "qemu,trace-component", "riscv,trace-component" and a
4 KiB reg; each encoder's cpus is its hart; the OF graph endpoints link
encoder n to input n % 8 of funnel n / 8, leaf funnels to the next
funnel (9 harts: funnels 0 and 1 into funnel 2) and the last funnel to
the PIB sink, each endpoint's remote-endpoint being the other's phandle.
With trace-sink=ram (3 harts), encoder n links to its RAM sink at
0x6000000 + 64 KiB * n and there is no funnel or PIB sink; with
trace-sink=funnel-ram the funnel feeds one RAM sink at 0x6000000.
"""

import os
import subprocess
import sys
import tempfile

from rvcfo import cli, qemu, tap

ENCODER, FUNNEL, PIB, RAM = 0x3020000, 0x3012000, 0x3011000, 0x6000000
COMPAT = 'qemu,trace-component riscv,trace-component'


class DT:
    """The device tree of virt with trace=on, @harts harts and @sink."""

    def __init__(self, qemu_bin, harts, tmp, sink='pib'):
        self.dtb = os.path.join(tmp, f'virt-{harts}-{sink}.dtb')
        res = qemu.run(qemu.command(
            qemu_bin, machine=f'virt,trace=on,trace-sink={sink},'
            f'dumpdtb={self.dtb}', serial=None, monitor=None,
            no_reboot=False, smp=harts), 60, capture_output=True)
        res.check_returncode()

    def get(self, node, prop, kind='x'):
        res = subprocess.run(['fdtget', '-t', kind, self.dtb, node, prop],
                             capture_output=True, text=True, check=False)
        return res.stdout.strip() if res.returncode == 0 else None


def node(base):
    return f'/soc/trace@{base:x}'


def check_link(dt, src, dst, port):
    """The output of @src is input @port of @dst (None: its only one)."""
    out = f'{node(src)}/out-ports/port/endpoint'
    inp = f'{node(dst)}/in-ports/' + \
        ('port/endpoint' if port is None else f'port@{port}/endpoint')
    if port is not None and dt.get(f'{node(dst)}/in-ports/port@{port}',
                                   'reg') != f'{port:x}':
        return False
    return (dt.get(out, 'remote-endpoint') == dt.get(inp, 'phandle')
            and dt.get(inp, 'remote-endpoint') == dt.get(out, 'phandle')
            and dt.get(out, 'phandle') is not None)


def main():
    """Check the nodes of several topologies (TAP)."""
    qemu_bin = cli.parse(cli.parser(__doc__)).qemu
    results = tap.Tap()
    with tempfile.TemporaryDirectory() as tmp:
        for harts, funnels, tree in ((2, 1, {0: None}),
                                     (9, 3, {0: (2, 0), 1: (2, 1),
                                             2: None})):
            dt = DT(qemu_bin, harts, tmp)
            bases = [ENCODER + 0x1000 * n for n in range(harts)] + \
                [FUNNEL + 0x1000 * f for f in range(funnels)] + [PIB]
            ok = all(dt.get(node(b), 'compatible', 's') == COMPAT and
                     dt.get(node(b), 'reg') == f'0 {b:x} 0 1000'
                     for b in bases)
            ok = ok and dt.get(node(FUNNEL + 0x1000 * funnels),
                               'reg') is None
            results.check(ok, f'{harts} harts: {len(bases)} components, '
                          'compatible and reg')
            ok = all(dt.get(node(ENCODER + 0x1000 * n), 'cpus') ==
                     dt.get(f'/cpus/cpu@{n}', 'phandle') for n in range(harts))
            results.check(ok, f'{harts} harts: cpus of each encoder')
            ok = all(check_link(dt, ENCODER + 0x1000 * n,
                                FUNNEL + 0x1000 * (n // 8), n % 8)
                     for n in range(harts))
            for f, to in tree.items():
                ok = ok and check_link(
                    dt, FUNNEL + 0x1000 * f,
                    PIB if to is None else FUNNEL + 0x1000 * to[0],
                    None if to is None else to[1])
            results.check(ok, f'{harts} harts: OF graph')

        # trace-sink=ram: encoder n -> RAM sink n, nothing else
        dt = DT(qemu_bin, 3, tmp, 'ram')
        rams = [RAM + 0x10000 * n for n in range(3)]
        ok = all(dt.get(node(b), 'compatible', 's') == COMPAT and
                 dt.get(node(b), 'reg') == f'0 {b:x} 0 1000'
                 for b in rams + [ENCODER + 0x1000 * n for n in range(3)])
        ok = ok and all(dt.get(node(b), 'reg') is None
                        for b in (FUNNEL, PIB, RAM + 0x30000))
        results.check(ok, 'trace-sink=ram: 3 encoders, 3 RAM sinks, no '
                      'funnel, no PIB sink')
        ok = all(check_link(dt, ENCODER + 0x1000 * n, rams[n], None) and
                 dt.get(node(ENCODER + 0x1000 * n), 'cpus') ==
                 dt.get(f'/cpus/cpu@{n}', 'phandle') for n in range(3))
        results.check(ok, 'trace-sink=ram: OF graph and cpus')

        # trace-sink=funnel-ram: the funnel feeds one RAM sink
        dt = DT(qemu_bin, 2, tmp, 'funnel-ram')
        ok = dt.get(node(RAM), 'compatible', 's') == COMPAT and \
            dt.get(node(PIB), 'reg') is None and \
            dt.get(node(RAM + 0x10000), 'reg') is None and \
            check_link(dt, FUNNEL, RAM, None) and \
            all(check_link(dt, ENCODER + 0x1000 * n, FUNNEL, n)
                for n in range(2))
        results.check(ok, 'trace-sink=funnel-ram: encoders -> funnel -> '
                      'RAM sink')
    sys.exit(results.done())


if __name__ == '__main__':
    main()
