# SPDX-License-Identifier: GPL-2.0-or-later
"""The qemu-system-riscv64 command line of the tests, and running it.

command() builds every command line the drivers run, in one order:

    QEMU -M MACHINE [-chardev ...] [-bios none] -display none
         [-monitor none] [-serial SERIAL] [-no-reboot] [-smp N]
         [-icount ICOUNT] [-cpu CPU] [-kernel ELF] EXTRA...
         [-d ITEMS -D LOG] [-S] [-incoming ...] [-qmp ...]

"-bios none" is left out when EXTRA names a firmware (-bios FW), -M
when machine is None (EXTRA has it).
The helpers return argument lists to put into EXTRA: loader() a word
written by -device loader, encoder() a riscv-trace-encoder property,
trace_file() the chardev the trace goes to.
"""

import subprocess
import sys

# The trace started from reset into the chardev "tr".
TRACED = 'virt,trace=on,trace-chardev=tr,trace-start=on'
# QEMU's own record of execution (rvcfo.record reads it).
RECORD_ITEMS = 'in_asm,exec,nochain,int'


def command(qemu, *, machine='virt', cpu=None, kernel=None,
            serial='null', chardev=(), bios='none', monitor='none',
            no_reboot=True, smp=None, icount=None, extra=(),
            log_items=None, log_file=None, stopped=False,
            incoming=None, qmp=None):
    """The argument vector of one QEMU run (see the module comment)."""
    extra = list(extra)
    cmd = [qemu] + (['-M', machine] if machine else []) + list(chardev)
    if bios and '-bios' not in extra:
        cmd += ['-bios', bios]
    cmd += ['-display', 'none']
    if monitor:
        cmd += ['-monitor', monitor]
    if serial:
        cmd += ['-serial', serial]
    if no_reboot:
        cmd += ['-no-reboot']
    if smp is not None:
        cmd += ['-smp', str(smp)]
    if icount is not None:
        cmd += ['-icount', icount]
    if cpu is not None:
        cmd += ['-cpu', cpu]
    if kernel is not None:
        cmd += ['-kernel', kernel]
    cmd += extra
    if log_items:
        cmd += ['-d', log_items, '-D', log_file]
    if stopped:
        cmd += ['-S']
    if incoming:
        cmd += ['-incoming', incoming]
    if qmp:
        cmd += ['-qmp', f'unix:{qmp},server=on,wait=off']
    return cmd


def trace_file(path, chardev_id='tr'):
    """-chardev arguments writing the trace to the file @path."""
    return ['-chardev', f'file,id={chardev_id},path={path}']


def loader(addr, data, length):
    """-device loader arguments writing @data (an int or a string, e.g.
    '0x4354524d00000008') of @length bytes at @addr."""
    if isinstance(data, int):
        data = f'{data:#x}'
    return ['-device', f'loader,addr={addr:#x},data={data},'
            f'data-len={length}']


def encoder(prop, value='on'):
    """-global arguments setting a riscv-trace-encoder property."""
    return ['-global', f'riscv-trace-encoder.{prop}={value}']


def run(cmd, timeout, **kw):
    """subprocess.run(@cmd) with a time limit; never raises on a failing
    status (the caller judges it)."""
    return subprocess.run(cmd, timeout=timeout, check=False, **kw)


def run_guest(cmd, timeout, what='guest', **kw):
    """Run @cmd; end the driver with a message unless QEMU exits 0.
    Returns the CompletedProcess."""
    res = run(cmd, timeout, **kw)
    if res.returncode != 0:
        sys.exit(f'{what} failed (exit {res.returncode}): {cmd}')
    return res
