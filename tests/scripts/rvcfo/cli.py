# SPDX-License-Identifier: GPL-2.0-or-later
"""The drivers' command line conventions (argparse).

    ap = cli.parser(__doc__, qemu=True, elf=True, cpu=True,
                    qemu_args=True)
    ap.add_argument('--gaps', action='store_true', help='...')
    args = cli.parse(ap)

Named options: --qemu (default $QTEST_QEMU_BINARY), --elf, --cpu,
--decoder; with @qemu_args everything after "--" is a list of extra
QEMU arguments, args.qemu_args.  Options of the driver go before "--".
"""

import argparse
import os


def parser(doc, qemu=True, elf=False, cpu=False, decoder=False,
           qemu_args=False, cpu_default=None):
    """An ArgumentParser described by the first line of @doc, with the
    common options asked for."""
    ap = argparse.ArgumentParser(
        description=(doc or '').strip().split('\n')[0],
        epilog='Documented in docs/testing.md.')
    if qemu:
        ap.add_argument('--qemu', default=os.environ.get('QTEST_QEMU_BINARY'),
                        help='qemu-system-riscv64 (default: '
                        '$QTEST_QEMU_BINARY)')
    if elf:
        ap.add_argument('--elf', required=True, help='the guest program')
    if cpu:
        ap.add_argument('--cpu', required=cpu_default is None,
                        default=cpu_default, help='the -cpu option'
                        + (' (default: %(default)s)' if cpu_default else ''))
    if decoder:
        ap.add_argument('--decoder', required=True, help='etrace-decode')
    if qemu_args:
        ap.add_argument('qemu_args', nargs=argparse.REMAINDER,
                        metavar='-- QEMU ARGUMENTS',
                        help='extra QEMU arguments, after "--"')
    return ap


def parse(ap, argv=None):
    """Parse; drop the "--" before the QEMU arguments; require --qemu."""
    args = ap.parse_args(argv)
    if getattr(args, 'qemu_args', None) and args.qemu_args[0] == '--':
        args.qemu_args = args.qemu_args[1:]
    if hasattr(args, 'qemu') and not args.qemu:
        ap.error('no QEMU: --qemu or $QTEST_QEMU_BINARY')
    return args
