#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Out-of-range values in a migration stream are refused cleanly (TAP).

Usage: test-migrate-validate.py [--qemu QEMU] [--keep DIR]

A migration stream is untrusted input.  For each value the trace
components and the hart's control-flow pipeline load and then use as an
index, a size or a mode, this test

 1. saves a valid stream: the virt machine with trace=on (and the
    options that put the device in the state needed), stopped, QMP
    "migrate" to a file: URI;
 2. finds the field in the stream: the JSON description QEMU appends
    after the sections (QEMU_VM_VMDESCRIPTION) gives every section's and
    subsection's fields with their sizes, in stream order; the section
    is found by its header (QEMU_VM_SECTION_FULL, section id, idstr,
    instance id, version) and walked field by field, subsection headers
    checked on the way, up to its footer (0x7e and the section id), so
    that a misparse fails instead of corrupting the wrong bytes; the
    value found there must also be the one expected;
 3. writes a corrupted copy, with 64 KiB of zeros appended so that a
    length too large finds bytes to overflow with, and loads it into a
    destination with the same options and -incoming defer through
    "migrate-incoming" with exit-on-error false: the migration must end
    "failed" (with the validation's name in error-desc where there is
    one), QEMU must still answer QMP, and "quit" must end it with
    status 0;
 4. loads every configuration's stream unchanged (with the same padding)
    and requires "completed", so that a refusal is not a broken setup.

Python 3 standard library only.
"""

import json
import os
import re
import shutil
import sys
import tempfile
import time

from rvcfo import cli, heapcheck, qemu, tap
from rvcfo.qmp import Deadline, Failure, Machine

PADDING = 64 * 1024
TIMEOUT = 20

QEMU_VM_FILE_MAGIC = b'QEVM'
QEMU_VM_FILE_VERSION = 3
QEMU_VM_SECTION_FULL = 0x04
QEMU_VM_SUBSECTION = 0x05
QEMU_VM_VMDESCRIPTION = 0x06
QEMU_VM_SECTION_FOOTER = 0x7e

TE = 'riscv-trace-encoder'
PIB = 'riscv-trace-pib-sink'
RAM = 'riscv-trace-ram-sink'

# name: (-M option, other QEMU options, whether the guest runs before
# the save)
CONFIGS = {
    'pib': ('virt,trace=on', ['-global', PIB + '.fifo-size=1024'], False),
    'ram': ('virt,trace=on,trace-sink=ram', [], False),
    'ram-sram': ('virt,trace=on,trace-sink=ram',
                 ['-global', RAM + '.sram-size=256',
                  '-global', RAM + '.smem=off'], False),
    # Every option with state in a subsection of its own, from reset.
    'encoder': ('virt,trace=on,trace-start=on',
                ['-global', TE + '.implicit-return=on',
                 '-global', TE + '.branch-prediction=on',
                 '-global', TE + '.timestamps=on',
                 '-global', TE + '.sequential-jumps=on'], False),
    # The hart runs the reset vector, then traps on the zeros at
    # 0x80000000; the traced hart counts its instructions.
    'cflow': ('virt,trace=on,trace-start=on',
              ['-cpu', 'rv64,smcntrpmf=on'], True),
}

# A field: (section idstr, instance id, path).  The path names the
# field as the JSON description does: a subsection by its vmsd name,
# then the field; a field of a VMSTATE_STRUCT by the struct's field name,
# then the field's name inside it.
IR = TE + '/implicit-return'
TS = TE + '/timestamp'
BP = TE + '/branch-prediction'
CF = 'cpu/cflow'

# How QEMU names a post_load hook that fails and a VMSTATE_VALIDATE
# that does not hold.
HOOK = 'post load hook failed for: %s,'
CHECK = 'Input validation failed: %s'

# name, configuration, [(field, value expected (None: any), value
# written (None: only shown))], the result wanted, text error-desc must
# contain (None: no check).
CASES = [
    ('pib-fifo-len', 'pib',
     [((PIB, 0, ('fifo_len',)), 0, 1024 + 4096)],
     'failed', CHECK % (PIB + '/fifo_len <= fifo-size')),
    ('ram-word-len', 'ram',
     [((RAM, 0, ('word_len',)), 0, 4)], 'failed', HOOK % RAM),
    # Active, SRAM mode, AsyncFreq 3: the SRAM pointers are checked.
    ('ram-sram-rp', 'ram-sram',
     [((RAM, 0, ('control',)), 0, 0x3001),
      ((RAM, 0, ('rp',)), 0, 0x100)], 'failed', HOOK % RAM),
    ('ram-sram-rp-legal', 'ram-sram',
     [((RAM, 0, ('control',)), 0, 0x3001),
      ((RAM, 0, ('rp',)), 0, 0xfc)], 'completed', None),
    ('encoder-buf-len', 'encoder',
     [((TE, 0, ('buf_len',)), 0, 8193)], 'failed', HOOK % TE),
    # A packet header (32 bytes: 1 + 31) that runs past buf_len, as one
    # near the end of a full buffer would run past the buffer.
    ('encoder-buf-packets', 'encoder',
     [((TE, 0, ('buf_len',)), None, 16),
      ((TE, 0, ('buf',)), None, 0x1f)], 'failed', HOOK % TE),
    ('encoder-branches', 'encoder',
     [((TE, 0, ('enc', 'branches')), 0, 32)], 'failed', HOOK % TE),
    ('encoder-sync-max', 'encoder',
     [((TE, 0, ('enc', 'cfg.sync_max')), 8, 16)], 'failed', HOOK % TE),
    ('encoder-srcid-bits', 'encoder',
     [((TE, 0, ('encap.srcid_bits',)), 0, 13)], 'failed', HOOK % TE),
    ('encoder-ir-rdepth', 'encoder',
     [((TE, 0, (IR, 'enc.rdepth')), 0, 17)], 'failed', HOOK % IR),
    ('encoder-ir-npass', 'encoder',
     [((TE, 0, (IR, 'enc.ir_npass')), 0, 33)], 'failed', HOOK % IR),
    ('encoder-ir-flip', 'encoder',
     [((TE, 0, (IR, 'enc.ir_flip')), 0, 17)], 'failed', HOOK % IR),
    ('encoder-ts-bytes', 'encoder',
     [((TE, 0, (TS, 'encap.timestamp_bytes')), 6, 5)], 'failed',
     HOOK % TS),
    ('encoder-bp-pbc', 'encoder',
     [((TE, 0, (BP, 'enc.pbc')), 0, 0x200000000)], 'failed', HOOK % BP),
    # The subsection is there when the hart has counted instructions.
    ('cpu-cflow-const-rd', 'cflow',
     [(('cpu', 0, (CF, 'env.cf.insns')), None, None),
      (('cpu', 0, (CF, 'env.cf.const_rd')), None, 32)],
     'failed', CHECK % (CF + '/const_rd < 32')),
]


def be(data, off, size):
    return int.from_bytes(data[off:off + size], 'big')


# Stream parsing.

def vmdesc(data):
    """The JSON description at the end of the stream."""
    if data[:4] != QEMU_VM_FILE_MAGIC or be(data, 4, 4) != \
            QEMU_VM_FILE_VERSION:
        raise Failure('not a version 3 QEVM stream')
    # QEMU_VM_VMDESCRIPTION, be32 length, the JSON up to the end.
    tail = max(0, len(data) - (1 << 22))
    marker = re.escape(bytes([QEMU_VM_VMDESCRIPTION])) + b'(?=....\\{)'
    for m in re.finditer(marker, data[tail:], re.DOTALL):
        pos = tail + m.start()
        if pos + 5 + be(data, pos + 1, 4) == len(data):
            return json.loads(data[pos + 5:])
    raise Failure('no JSON description at the end of the stream')


def walk(data, pos, desc, path, found):
    """Walk the fields and subsections of @desc from @pos; record the
    field @path names (offset, size) in @found; return the end."""
    for field in desc.get('fields', []):
        count = field.get('array_len', 1)
        hit = path and field['name'] == path[0]
        for i in range(count):
            if field['type'] == 'struct':
                pos = walk(data, pos, field['struct'],
                           path[1:] if hit and i == 0 else None, found)
            else:
                if hit and i == 0 and len(path) == 1:
                    found.append((pos, field['size']))
                pos += field['size']
            if pos > len(data):
                raise Failure('field %s runs past the end' % field['name'])
    for sub in desc.get('subsections', []):
        name = sub['vmsd_name'].encode()
        if data[pos] != QEMU_VM_SUBSECTION or data[pos + 1] != len(name) \
                or data[pos + 2:pos + 2 + len(name)] != name \
                or be(data, pos + 2 + len(name), 4) != sub['version']:
            raise Failure('subsection %s not at 0x%x' % (sub['vmsd_name'],
                                                         pos))
        pos += 2 + len(name) + 4
        hit = path and sub['vmsd_name'] == path[0]
        pos = walk(data, pos, sub, path[1:] if hit else None, found)
    return pos


def locate(data, desc, section, instance, path):
    """(offset, size) of a field: the one candidate section header whose
    fields, walked, end at the section's footer."""
    devs = [d for d in desc['devices']
            if d['name'] == section and d['instance_id'] == instance]
    if len(devs) != 1:
        raise Failure('section %s %d is not in the description'
                      % (section, instance))
    dev = devs[0]
    name = section.encode()
    header = (re.escape(bytes([QEMU_VM_SECTION_FULL])) + b'(....)' +
              re.escape(bytes([len(name)]) + name +
                        instance.to_bytes(4, 'big') +
                        dev['version'].to_bytes(4, 'big')))
    hits = []
    for m in re.finditer(header, data, re.DOTALL):
        found = []
        try:
            end = walk(data, m.end(), dev, path, found)
        except (Failure, IndexError):
            continue
        if data[end:end + 1] == bytes([QEMU_VM_SECTION_FOOTER]) and \
                data[end + 1:end + 5] == m.group(1):
            hits.append((m.start(), found))
    if len(hits) != 1:
        raise Failure('section %s %d: %d headers parse to a footer'
                      % (section, instance, len(hits)))
    start, found = hits[0]
    if len(found) != 1:
        subs = [sub['vmsd_name'] for sub in dev.get('subsections', [])]
        raise Failure('%s is not in section %s %d (at 0x%x; its '
                      'subsections: %s)'
                      % ('/'.join(path), section, instance, start,
                         ', '.join(subs) or 'none'))
    return found[0]


# QEMU and QMP.

def start(qemu_bin, machine, args, tmp, tag):
    """A QEMU of -M @machine and @args under glibc's heap checks,
    connected to QMP."""
    sock = os.path.join(tmp, tag + '.qmp')
    cmd = qemu.command(qemu_bin, machine=machine, serial='none',
                       no_reboot=False, extra=args, qmp=sock)
    vm = Machine(tag, cmd, sock, Deadline(3 * TIMEOUT),
                 env=heapcheck.env(os.environ), verbose=False)
    try:
        vm.connect()
    except Failure:
        vm.kill()
        raise
    return vm


def save(qemu_bin, tmp, name):
    """Save configuration @name's state into a file; return its bytes."""
    machine, args, run = CONFIGS[name]
    path = os.path.join(tmp, name + '.mig')
    vm = start(qemu_bin, machine, args + ([] if run else ['-S']), tmp,
               name + '-src')
    try:
        if run:
            time.sleep(0.2)
            vm.cmd('stop')
        vm.cmd('migrate', uri='file:' + path)
        r = vm.wait_migration('save', fail=False)
        if r['status'] != 'completed':
            raise Failure('saving: %s %s' % (r['status'],
                                             r.get('error-desc', '')))
        vm.quit()
    finally:
        vm.kill()
    with open(path, 'rb') as f:
        return f.read()


def load(qemu_bin, tmp, name, tag, data):
    """Load @data into a destination of configuration @name: the
    migration's status, its error-desc, and what went wrong after it
    (None: QEMU still answered and quit with status 0)."""
    path = os.path.join(tmp, tag + '.mig')
    with open(path, 'wb') as f:
        f.write(data + bytes(PADDING))
    machine, args, _ = CONFIGS[name]
    vm = start(qemu_bin, machine, args + ['-incoming', 'defer'], tmp,
               tag + '-dst')
    try:
        try:
            vm.cmd('migrate-incoming', uri='file:' + path,
                   **{'exit-on-error': False})
            r = vm.wait_migration('load', fail=False)
        except Failure as e:
            vm.kill()
            return None, None, str(e), vm.stderr_text()
        status, desc = r['status'], r.get('error-desc', '')
        try:
            vm.cmd('query-status')
            vm.quit()
        except Failure as e:
            vm.kill()
            return status, desc, str(e), vm.stderr_text()
        return status, desc, None, vm.stderr_text()
    finally:
        vm.kill()


def main():
    ap = cli.parser(__doc__)
    ap.add_argument('--keep', metavar='DIR',
                    help='keep the streams and logs in DIR')
    args = cli.parse(ap)
    qemu_bin = args.qemu
    tmp = args.keep or tempfile.mkdtemp(prefix='migrate-validate-')
    os.makedirs(tmp, exist_ok=True)
    used = [c for c in CONFIGS if any(case[1] == c for case in CASES)]
    results = tap.Tap(plan=len(used) + len(CASES))
    streams = {}
    started = time.monotonic()

    def result(ok, what, notes):
        results.check(ok, what, notes=notes)

    try:
        for name in used:
            notes = []
            try:
                streams[name] = data = save(qemu_bin, tmp, name)
                vmdesc(data)
                status, err, broken, log = load(qemu_bin, tmp, name,
                                                name + '-valid', data)
                ok = status == 'completed' and not broken
                notes.append('%d bytes, loaded: %s %s'
                             % (len(data), status, err or ''))
                if broken:
                    notes.append(broken)
                if not ok and log:
                    notes.append('stderr:\n' + log)
            except Failure as e:
                ok = False
                notes.append(str(e))
                streams[name] = None
            result(ok, '%s: the stream saved loads unchanged' % name, notes)

        for case, config, changes, want, text in CASES:
            notes = []
            ok = False
            data = streams[config]
            try:
                if data is None:
                    raise Failure('no valid %s stream' % config)
                desc = vmdesc(data)
                bad = bytearray(data)
                for (section, instance, path), old, new in changes:
                    off, size = locate(data, desc, section, instance, path)
                    was = be(data, off, size)
                    where = '%s %d %s at 0x%x (%d bytes): 0x%x' % (
                        section, instance, '/'.join(path), off, size, was)
                    if new is None:
                        notes.append(where + ' (left)')
                        continue
                    notes.append('%s -> 0x%x' % (where, new))
                    if old is not None and was != old:
                        raise Failure('expected 0x%x there' % old)
                    bad[off:off + size] = new.to_bytes(size, 'big')
                status, err, broken, log = load(qemu_bin, tmp, config, case,
                                                bytes(bad))
                notes.append('migration %s%s' % (status,
                                                 ': ' + err if err else ''))
                ok = status == want and not broken
                if text is not None and status == 'failed' and \
                        text not in (err or ''):
                    ok = False
                    notes.append('error-desc lacks "%s"' % text)
                if broken:
                    notes.append(broken)
                if not ok and log:
                    notes.append('stderr:\n' + log)
            except Failure as e:
                notes.append(str(e))
            result(ok, '%s: %s' % (case, 'refused' if want == 'failed'
                                   else 'loaded'), notes)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    results.comment('%.1f s' % (time.monotonic() - started))
    sys.exit(results.done())


if __name__ == '__main__':
    main()
