# SPDX-License-Identifier: GPL-2.0-or-later
"""QEMU's own record of what a hart executed, for the tests.

Reads a log of "-d in_asm,exec,nochain,int" (10.2) line by line:
  - "IN:" lists the instructions of each block as it is translated; the
    next "Trace" or "Stopped" line names its host address;
  - each "Trace N: HOST [cs_base/pc/flags/cflags]" line is one entry into
    a block, undone by a "Stopped execution of TB chain before HOST"
    right after it;
  - a "riscv_cpu_do_interrupt: ... async:0 ... epc:E" line is an
    exception: the instructions of the block just entered from E on did
    not retire (ecall and ebreak included: they trap); "async:1" is an
    interrupt taken after the block;
  - "riscv_cpu_do_interrupt: ... double trap: mcause:C": the trap just
    logged was an S-mode double trap, and C (16) is the cause it wrote;
  - "cpu_io_recompile: rewound execution of TB to A": the block stopped
    before A (icount, I/O in the middle of a block);
  - "riscv_cf_insn_limit: hart:N, block at 0xA undone": the block just
    entered ran no instruction (it would have counted past the point
    where an instructions counter overflows).

With -d plugin, the memory accesses a plugin prints, one a line
(access()): QEMU's tests/tcg/plugins/mem.c with print-accesses=true, or
tests/plugins/memrec.c, which names the vCPU.
"""

import contextlib
import fcntl
import os
import resource
import re
import sys
import termios
import threading

from rvcfo import qemu

IN_INSN = re.compile(r'^0x([0-9a-f]+):  ([0-9a-f]+) ')
TRACE = re.compile(r'^Trace \d+: (0x[0-9a-f]+) \[[0-9a-f]+/[0-9a-f]+/'
                   r'([0-9a-f]+)/')
STOP = re.compile(r'^Stopped execution of TB chain before (0x[0-9a-f]+) ')
TRAP = re.compile(r'riscv_cpu_do_interrupt: hart:\d+, async:(\d), '
                  r'cause:([0-9a-f]+), epc:0x([0-9a-f]+), '
                  r'tval:0x([0-9a-f]+)')
DOUBLE = re.compile(r'riscv_cpu_do_interrupt: hart:\d+, double trap: '
                    r'mcause:([0-9a-f]+), ')
REWOUND = re.compile(r'cpu_io_recompile: rewound execution of TB to '
                     r'([0-9a-f]+)')
UNDONE = re.compile(r'riscv_cf_insn_limit: hart:\d+, block at '
                    r'0x([0-9a-f]+) undone')
# mem.c: insn, symbol, vaddr, paddr, bits, direction, value
MEM_ACCESS = re.compile(r'^0x([0-9a-f]+),[^,]*,0x([0-9a-f]+),0x[0-9a-f]+,'
                        r'(\d+),(load|store),0x([0-9a-f]+)$')
# memrec.c: vCPU, insn, vaddr, bytes, direction, value
MEMREC_ACCESS = re.compile(r'^cpu (\d+) 0x([0-9a-f]+),0x([0-9a-f]+),(\d+),'
                           r'(load|store),0x([0-9a-f]+)$')


def access(line):
    """A plugin's access line as (0 load or 1 store, bytes, address,
    value, instruction address, hart: None from mem.c); else None."""
    m = MEM_ACCESS.match(line)
    if m:
        return (0 if m.group(4) == 'load' else 1, int(m.group(3)) // 8,
                int(m.group(2), 16), int(m.group(5), 16),
                int(m.group(1), 16), None)
    m = MEMREC_ACCESS.match(line)
    if m:
        return (0 if m.group(5) == 'load' else 1, int(m.group(4)),
                int(m.group(3), 16), int(m.group(6), 16),
                int(m.group(2), 16), int(m.group(1)))
    return None


def cut(block, pc):
    """Drop the instructions of @block from @pc on, if @pc is in it."""
    pcs = [p for p, _, _ in block['insns']]
    if pc not in pcs and pc >> 31 == 0x1ffffffff:
        pc &= 0xffffffff    # -d int prints a 32-bit epc sign-extended
    if pc in pcs and not block['cut']:
        del block['insns'][pcs.index(pc):]
        block['cut'] = True


def is_ebreak(insn, size):
    """ebreak or c.ebreak: they retire before their breakpoint trap."""
    return (size, insn) in ((4, 0x00100073), (2, 0x9002))


class Record:
    """The executed blocks and the traps, in order.

    stream: blocks, as dicts with 'insns' (pc, size, encoding) of the
    instructions that retired, 'flags' (the TB flags), 'code' ({pc:
    (encoding, size)} as the block ran it: code may be rewritten), and
    traps, as ('trap', async, cause, epc, tval, code of the last block
    entered).
    code: {pc: (encoding, size)} as last listed.
    """

    def __init__(self):
        self.stream = []
        self.code = {}
        self._listing = None
        self._pending = None
        self._known = {}
        self._last = None
        self._last_code = {}

    def feed(self, line):
        """Take in one line of the log; False if it is not a record line."""
        if line.startswith('IN:'):
            self._listing = []
            return True
        m = IN_INSN.match(line)
        if m and self._listing is not None:
            pc = int(m.group(1), 16)
            insn = (int(m.group(2), 16), len(m.group(2)) // 2)
            self._listing.append((pc, insn[1], insn[0]))
            self.code[pc] = insn
            return True
        if self._listing is not None:
            self._pending, self._listing = self._listing, None
        m = TRACE.match(line)
        if m:
            host = m.group(1)
            if self._pending is not None:
                self._known[host] = self._pending
                self._pending = None
            insns = self._known[host]
            self._last = {'host': host, 'insns': list(insns),
                          'code': {pc: (i, s) for pc, s, i in insns},
                          'flags': int(m.group(2), 16), 'cut': False}
            self._last_code = self._last['code']
            self.stream.append(self._last)
            return True
        m = STOP.match(line)
        if m:
            if self._pending is not None:
                self._known[m.group(1)] = self._pending
                self._pending = None
            if self._last is not None and self.stream[-1] is self._last \
                    and self._last['host'] == m.group(1):
                self.stream.pop()
                self._last = None
            return True
        m = TRAP.search(line)
        if m:
            is_async = m.group(1) == '1'
            epc = int(m.group(3), 16)
            if not is_async and self._last is not None:
                cut(self._last, epc)
            self.stream.append(('trap', is_async, int(m.group(2), 16), epc,
                                int(m.group(4), 16), self._last_code))
            self._last = None
            return True
        m = DOUBLE.search(line)
        if m and self.stream and isinstance(self.stream[-1], tuple):
            # the trap just logged became a double trap: mcause is 16
            self.stream[-1] = self.stream[-1][:2] + \
                (int(m.group(1), 16),) + self.stream[-1][3:]
            return True
        m = UNDONE.match(line)
        if m:
            # the block just entered stopped before its first instruction
            # (an instructions counter about to overflow in it)
            if self._last is not None and self.stream[-1] is self._last:
                self.stream.pop()
                self._last = None
            return True
        m = REWOUND.search(line)
        if m:
            if self._last is not None:
                cut(self._last, int(m.group(1), 16))
            return True
        return False

    def blocks(self):
        """The executed blocks, without the traps."""
        return [e for e in self.stream if isinstance(e, dict)]


def write_rom(code, path):
    """The code QEMU listed below RAM (the virt reset vector at 0x1000)
    as a raw binary at @path; returns its address, or None."""
    rom = {pc: v for pc, v in code.items() if pc < 0x80000000}
    if not rom:
        return None
    lo = min(rom)
    hi = max(pc + size for pc, (_, size) in rom.items())
    data = bytearray(hi - lo)
    for pc, (insn, size) in rom.items():
        data[pc - lo:pc - lo + size] = insn.to_bytes(size, 'little')
    with open(path, 'wb') as f:
        f.write(data)
    return lo


# F_SETPIPE_SZ (Linux)
F_SETPIPE_SZ = 1031


def slow_reader(fifo, trace, done):
    """Copy @fifo (a 4 KiB pipe) to @trace, but read nothing until the pipe
    is full (but for less than a write of the sink's queue) and 50 ms more
    have passed: the sink's queue fills up and packets are lost; then
    catch up while the guest still runs."""
    fd = os.open(fifo, os.O_RDONLY)
    fcntl.fcntl(fd, F_SETPIPE_SZ, 4096)
    queued = bytearray(4)
    while not done.is_set():
        fcntl.ioctl(fd, termios.FIONREAD, queued)
        if int.from_bytes(queued, sys.byteorder) >= 4096 - 256:
            done.wait(0.05)
            break
        done.wait(0.001)
    with open(trace, 'wb') as out:
        while True:
            data = os.read(fd, 65536)
            if not data:
                break
            out.write(data)
    os.close(fd)


def limit_files():
    """A guest that never stops must not fill the disk with its record:
    QEMU dies (SIGXFSZ) at a file of 8 GiB."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (8 << 30, 8 << 30))


def run_plain(qemu_bin, elf, cpu, extra, tmp):
    """The same run as run_traced() without QEMU's record (translation
    blocks chained as usual); returns the path of the trace."""
    trace = os.path.join(tmp, 'plain.bin')
    cmd = qemu.command(qemu_bin, machine=qemu.TRACED,
                       chardev=qemu.trace_file(trace), cpu=cpu, kernel=elf,
                       extra=extra)
    qemu.run_guest(cmd, 600)
    return trace


@contextlib.contextmanager
def trace_chardev(tmp, trace, slow=False):
    """The -chardev arguments of the trace "tr" into the file @trace;
    with @slow, through a FIFO in @tmp that slow_reader() empties late,
    and a PIB sink that queues 256 bytes: packets are lost.  The reader
    has written the file when the context ends."""
    if not slow:
        yield qemu.trace_file(trace)
        return
    fifo = os.path.join(tmp, 'trace.fifo')
    os.mkfifo(fifo, 0o600)
    done = threading.Event()
    reader = threading.Thread(target=slow_reader, args=(fifo, trace, done))
    reader.start()
    try:
        yield ['-chardev', f'pipe,id=tr,path={fifo}',
               '-global', 'riscv-trace-pib-sink.fifo-size=256']
    finally:
        done.set()
        reader.join()


def run_traced(qemu_bin, elf, cpu, extra, tmp, slow=False):
    """Run a guest with "-M virt,trace=on,trace-start=on" writing its trace
    to a file and, in the same run, QEMU's record of what it executed
    ("-d in_asm,exec,nochain,int").  With @slow, the trace goes through a
    FIFO that a late reader empties (slow_reader), and the PIB sink queues
    256 bytes: packets are lost.  Returns the paths of the log and the
    trace; exits when the guest fails."""
    log = os.path.join(tmp, 'exec.log')
    trace = os.path.join(tmp, 'trace.bin')
    with trace_chardev(tmp, trace, slow) as chardev:
        cmd = qemu.command(qemu_bin, machine=qemu.TRACED, chardev=chardev,
                           cpu=cpu, kernel=elf, extra=extra,
                           log_items=qemu.RECORD_ITEMS, log_file=log)
        res = qemu.run(cmd, 600, preexec_fn=limit_files)
    if res.returncode != 0:
        sys.exit(f'guest failed (exit {res.returncode}): {cmd}')
    return log, trace
