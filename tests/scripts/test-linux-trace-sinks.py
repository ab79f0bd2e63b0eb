#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""scripts/linux's trace options: --trace FILE, --trace unix:PATH,
--trace-sink pib|ram|funnel-ram, --trace-code FILE and --trace-context;
and --module, which the trace of a kernel with modules needs.

Usage: test-linux-trace-sinks.py --linux LINUX --qemu QEMU --decoder DECODER

- --dry-run: each option makes the machine options and chardev that
  docs/system/riscv/trace.rst describes; bad combinations are refused
  with a message (exit 1); --trace-context sets every encoder's context
  property;
- --trace-sink ram and funnel-ram boot Linux on two harts, and the guest's
  device tree has the components of virt's memory map
  (docs/specs/riscv-trace.rst): the encoders at 0x3020000 + 0x1000 * hart,
  and a RAM sink per hart at 0x6000000 + 64 KiB * hart, or the funnel at
  0x3012000 and one RAM sink at 0x6000000;
- --trace unix:PATH boots Linux into a socket this test listens on; the
  stream decodes from reset without an error with Debian's OpenSBI
  (fw_dynamic.elf at 0x80000000);
- --module: null_blk (which depends on configfs, also a module of
  Debian's kernel) with a parameter, and brd, load in that order
  (/proc/modules lists the last loaded first) before the command, with
  the devices and parameters they are given, and before --kallsyms,
  whose listing has their functions; an unknown module, a module asked
  for twice with parameters, and --module with --initrd are refused.
"""

import os
import re
import socket
import subprocess
import sys
import tempfile
import threading

from rvcfo import cli, tap

RESULTS = tap.Tap()
check = RESULTS.check

GUEST_LS = 'ls -d /proc/device-tree/soc/trace@*'
TRACE = 'virt,trace=on,trace-chardev=rvcfotrace,trace-start=on'


def linux(args, *opts, timeout=600):
    return subprocess.run([args.linux, '--qemu', args.qemu, *opts],
                          capture_output=True, text=True, check=False,
                          timeout=timeout)


def dry(args, *opts):
    """The QEMU argument vector --dry-run prints (shell-quoted words)."""
    res = linux(args, *opts, '--dry-run', '--', 'true')
    words = [w.replace('\\,', ',') for w in res.stdout.split()]
    return res, words


def option_after(words, flag):
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w == flag]


def check_dry_run(args):
    for opts, machine, chardev in [
            (['--trace', '/tmp/x.etrace'], TRACE,
             'file,id=rvcfotrace,path=/tmp/x.etrace'),
            (['--trace', 'unix:/tmp/x.sock'], TRACE,
             'socket,id=rvcfotrace,path=/tmp/x.sock'),
            (['--trace', '/tmp/x.etrace', '--trace-sink', 'pib'], TRACE,
             'file,id=rvcfotrace,path=/tmp/x.etrace'),
            (['--trace-sink', 'ram'], 'virt,trace=on,trace-sink=ram', None),
            (['--trace-sink', 'funnel-ram'],
             'virt,trace=on,trace-sink=funnel-ram', None),
            (['--trace', '/tmp/x.etrace', '--trace-code', '/tmp/x.code'],
             TRACE + ',trace-code=rvcfocode',
             ['file,id=rvcfotrace,path=/tmp/x.etrace',
              'file,id=rvcfocode,path=/tmp/x.code']),
            (['--trace-sink', 'ram', '--trace-code', '/tmp/x.code'],
             'virt,trace=on,trace-sink=ram,trace-code=rvcfocode',
             'file,id=rvcfocode,path=/tmp/x.code')]:
        res, words = dry(args, *opts)
        chardevs = option_after(words, '-chardev')
        want = chardev if isinstance(chardev, list) else \
            [chardev] if chardev else []
        check(res.returncode == 0 and option_after(words, '-M') == [machine]
              and chardevs == want,
              f'dry run {" ".join(opts)}',
              f'exit {res.returncode}: -M {option_after(words, "-M")} '
              f'-chardev {chardevs}\n{res.stderr}')
    for opts, message in [
            (['--trace-sink', 'pib'], '--trace FILE says where'),
            (['--trace-sink', 'ram', '--trace', '/tmp/x'],
             'the guest reads the trace'),
            (['--trace-sink', 'bogus'], "'bogus' is not pib, ram or"),
            (['--trace-code', '/tmp/x.code'], '--trace-code: no trace'),
            (['--trace-context'], '--trace-context: no trace')]:
        res, _ = dry(args, *opts)
        check(res.returncode == 1 and message in res.stderr,
              f'refused: {" ".join(opts)}',
              f'exit {res.returncode}: {res.stderr}')


def check_context(args):
    for opts in (['--trace', '/tmp/x.etrace'], ['--trace-sink', 'ram']):
        res, words = dry(args, *opts, '--trace-context')
        globs = option_after(words, '-global')
        check(res.returncode == 0 and
              globs == ['riscv-trace-encoder.context=on'],
              f'dry run {" ".join(opts)} --trace-context: the encoders\' '
              f'context field', f'exit {res.returncode}: -global {globs}')


def check_ram_sinks(args):
    for sink, want in [
            ('ram', ['trace@3020000', 'trace@3021000', 'trace@6000000',
                     'trace@6010000']),
            ('funnel-ram', ['trace@3012000', 'trace@3020000',
                            'trace@3021000', 'trace@6000000'])]:
        res = linux(args, '--smp', '2', '--trace-sink', sink, '--',
                    GUEST_LS)
        got = sorted(os.path.basename(p) for p in res.stdout.split()
                     if p.startswith('/proc/device-tree/'))
        check(res.returncode == 0 and got == want,
              f'--trace-sink {sink}: the components in the device tree',
              f'exit {res.returncode}: {got}, not {want}\n{res.stderr}')


def check_modules(args, tmp, paths):
    syms = os.path.join(tmp, 'kallsyms')
    res = linux(args, '--module', 'null_blk nr_devices=2', '--module',
                'brd', '--kallsyms', syms, '--',
                'cut -d" " -f1 /proc/modules; ls /dev/nullb*;',
                'cat /sys/module/null_blk/parameters/nr_devices')
    listed = set()
    if res.returncode == 0:
        with open(syms, encoding='utf-8') as f:
            listed = {line.split()[2] + ' ' + line.split()[3]
                      for line in f if line.rstrip().endswith(']')}
    want = ['brd', 'null_blk', 'configfs', '/dev/nullb0', '/dev/nullb1',
            '2']
    check(res.returncode == 0 and res.stdout.split() == want and
          {'null_add_dev [null_blk]', 'brd_submit_bio [brd]',
           'configfs_register_subsystem [configfs]'} <= listed,
          '--module null_blk nr_devices=2, brd: loaded after configfs, '
          'with their parameters, before the command and --kallsyms',
          f'exit {res.returncode}: {res.stdout.split()}, not {want}; '
          f'{len(listed)} module symbols\n{res.stderr[-2000:]}')
    for opts, message in [
            (['--module', 'no_such_module'],
             'no module no_such_module in Debian\'s kernel'),
            (['--module', 'configfs', '--module', 'null_blk',
              '--module', 'configfs x=1'],
             '--module configfs: loaded already'),
            (['--initrd', paths['initrd'], '--module', 'brd'],
             '--initrd: a COMMAND, --add or --module needs')]:
        res = linux(args, *opts, '--dry-run')
        check(res.returncode == 1 and message in res.stderr,
              f'refused: {" ".join(opts)}',
              f'exit {res.returncode}: {res.stderr}')


def check_socket(args, tmp, paths):
    path = os.path.join(tmp, 'trace.sock')
    trace = os.path.join(tmp, 'boot.etrace')
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    srv.settimeout(120)

    def receive():
        conn, _ = srv.accept()
        with open(trace, 'wb') as f:
            while True:
                data = conn.recv(1 << 16)
                if not data:
                    break
                f.write(data)
        conn.close()

    reader = threading.Thread(target=receive)
    reader.start()
    res = linux(args, '--smp', '1', '--trace', f'unix:{path}', '--',
                'true')
    reader.join(120)
    size = os.path.getsize(trace) if os.path.exists(trace) else 0
    dec = subprocess.run([args.decoder, '-q', '--output=stats', '--elf',
                          paths['firmware-elf'] + '@0x80000000', trace],
                         capture_output=True, text=True, check=False)
    m = re.search(r'^errors: (\d+)', dec.stdout, re.M)
    insns = re.search(r'^instructions: (\d+)', dec.stdout, re.M)
    check(res.returncode == 0 and size > 1 << 20 and dec.returncode == 0
          and m and m.group(1) == '0' and insns and int(insns.group(1)) > 0,
          '--trace unix:PATH: a boot into a socket, decoded without error',
          f'exit {res.returncode}, {size} bytes, decoder exit '
          f'{dec.returncode}: {dec.stdout}{dec.stderr}{res.stderr}')


def main():
    ap = cli.parser(__doc__, decoder=True)
    ap.add_argument('--linux', required=True)
    args = cli.parse(ap)
    res = linux(args, '--paths')
    if res.returncode != 0:
        sys.exit(f'{args.linux} --paths failed: {res.stderr}')
    paths = dict(line.split(' ', 1) for line in res.stdout.splitlines())
    check_dry_run(args)
    check_context(args)
    check_ram_sinks(args)
    with tempfile.TemporaryDirectory(prefix='linux-trace-sinks-') as tmp:
        check_modules(args, tmp, paths)
        check_socket(args, tmp, paths)
    sys.exit(RESULTS.done())


if __name__ == '__main__':
    main()
