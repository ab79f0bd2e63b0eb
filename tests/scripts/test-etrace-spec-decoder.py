#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A guest's E-Trace decoded by the model of the spec's pseudo-code.

Runs the guest traced from reset as the round trips do (QEMU's record
and the trace from one run, rvcfo.record), decodes the
trace with etrace_spec_decoder (decoder.adoc 2.0.5 transcribed, with the
readings and corrections docs/etrace-decoder-pseudocode.md lists) and
requires its flow to be QEMU's record: the same addresses in the same
order, in the same privilege, and the same traps.  Prints TAP.

  test-etrace-spec-decoder.py --qemu QEMU --elf ELF --cpu CPU
                              [--encoder-link-classes] [--mutate NAME]
                              [--expect-divergence] [--dump FILE]
                              [-- QEMU ARGS]

--mutate runs a deliberately wrong model (etrace_spec_decoder.MUTATIONS)
for the break check: then the comparison is expected to fail.
--expect-divergence turns the result around: the test passes only when
the model does not reproduce the record (a documented disagreement
between the encoder and the spec, which must not go away unnoticed).
"""

import contextlib
import io
import os
import sys
import tempfile
import time

import etrace_spec_decoder as model
from rvcfo import cli, record, tap
from rvcfo import roundtrip as rt


PRIV_NAMES = {0: 'U', 1: 'S', 3: 'M', 5: 'VU', 6: 'VS'}


def flow_lines(items, mask=model.MASK64):
    """The model's items as the round trip's flow lines."""
    out = []
    for item in items:
        if item[0] == 'pc':
            out.append(f'{PRIV_NAMES.get(item[2], item[2])} {item[1]:x}')
        elif item[0] == 'trap':
            t = item[1]
            if t['interrupt']:
                out.append(f'trap interrupt cause={t["ecause"]}')
            else:
                epc = '?' if t['epc'] is None else f'{t["epc"] & mask:x}'
                out.append(f'trap exception cause={t["ecause"]} '
                           f'epc={epc} tval={t["tval"] & mask:x}')
        elif item[0] == 'gap':
            out.append('gap no program image')
        else:
            out.append(f'abort {item[1]} at packet offset '
                       f'{item[2].offset:#x}: {item[2]!r}')
    return out


def main():
    ap = cli.parser(__doc__, elf=True, cpu=True, qemu_args=True)
    ap.add_argument('--mutate', action='append', default=[],
                    choices=sorted(model.MUTATIONS))
    ap.add_argument('--encoder-link-classes', action='store_true',
                    help='calls and returns as the encoder classifies '
                    'them (x1 links only, returns with rd = x0: finding '
                    'E1), not as the spec does')
    ap.add_argument('--expect-divergence', action='store_true',
                    help='require the flow to differ from the record (a '
                    'known disagreement between the encoder and the '
                    'spec, such as finding E1 with the spec\'s classes)')
    ap.add_argument('--dump', help='write the decoded flow and the '
                    'packets to FILE')
    args = cli.parse(ap)
    checks = []
    harts = 1
    if '-smp' in args.qemu_args:
        harts = int(args.qemu_args[args.qemu_args.index('-smp') + 1])
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        log, trace = record.run_traced(args.qemu, args.elf, args.cpu,
                                       args.qemu_args, tmp)
        want, code = rt.expected(log, args.cpu.startswith('rv32'), harts)
        zc = 'zcmp=on' in args.cpu or 'zcmt=on' in args.cpu
        images = model.Images(zc=zc)
        images.add_elf(args.elf)
        rom = os.path.join(tmp, 'rom.bin')
        at = record.write_rom(code, rom)
        ranges = []
        if at is not None:
            images.add_bin(rom, at)
            ranges.append((at, at + os.path.getsize(rom)))
        with open(trace, 'rb') as f:
            stream = f.read()
    t1 = time.time()
    checks.append((True, f'guest ran traced, {len(stream)} bytes of trace '
                   f'({t1 - t0:.1f} s)', ''))
    params = model.Params(srcid_bits=8 if harts > 1 else 0,
                          spec_link_classes=not args.encoder_link_classes,
                          protocol=rt.protocol_of(args.qemu_args))
    packets = []
    kinds = {}

    def log(src, te_inst, dec):
        kind = f'{te_inst.format}.{getattr(te_inst, "subformat", "")}'
        if te_inst.format == 3 and te_inst.subformat == 1 and \
                not te_inst.thaddr:
            kind += '/thaddr0'
        if te_inst.format == 0 and te_inst.subformat == 0:
            kind += f'/fmt{te_inst.branch_fmt}'
        if te_inst.format in (0, 1, 2) and dec.flag_irreport(te_inst):
            kind += '/irreport'
        if te_inst.format in (0, 1, 2) and dec.flag_notify(te_inst):
            kind += '/notify'
            if dec.last_pc is not None and dec.pc == dec.address and \
                    dec.is_return(dec.get_instr(dec.last_pc)):
                # the instruction right after a return (issue 28's third
                # case: decoder.adoc:145 cannot stop there)
                kind += '-after-return'
        kinds[kind] = kinds.get(kind, 0) + 1
        if args.dump:
            packets.append((src, f'address={dec.address:#x} '
                            f'pc={dec.pc or 0:#x} '
                            f'depth={dec.irstack_depth} {te_inst!r}'))

    got = model.decode(stream, images, params, args.mutate, log=log)
    t2 = time.time()
    if args.dump:
        with open(args.dump, 'w') as f:
            for s, t in packets:
                print(f'{s} {t}', file=f)
            for s, items in got.items():
                for line in flow_lines(items):
                    print(f'{s} {line}', file=f)
    aborts = [line for items in got.values() for line in flow_lines(items)
              if line.startswith('abort')]
    checks.append((not aborts, f'the model decoded {sum(kinds.values())}'
                   f' packets without abort ({t2 - t1:.1f} s)',
                   '\n# ' + '\n# '.join(aborts[:3])))
    ranges += rt.loaded(args.elf)
    for hart in sorted(want):
        lines = flow_lines(got.get(hart, []))
        lines = [g for g in lines if not g.startswith('abort')]
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                insns, traps = rt.compare(hart, want[hart], lines, False,
                                          ranges, rt.ElfCode(code, args.elf))
            checks.append((True, f'hart {hart}: the flow equals QEMU\'s '
                           f'record ({insns} instructions, {traps} traps)',
                           ''))
        except SystemExit as e:
            detail = buf.getvalue() + (str(e.code) if e.code not in
                                       (None, 1) else '')
            checks.append((False, f'hart {hart}: the flow equals QEMU\'s '
                           'record', '\n# ' + detail.strip().replace(
                               '\n', '\n# ')))
    t = tap.Tap()
    if args.expect_divergence:
        # one check: the model, right or wrong by the spec, cannot follow
        # this stream to QEMU's record
        diverged = not all(ok for ok, _, _ in checks)
        t.check(diverged, 'the flow decoded by the spec\'s rules differs '
                'from QEMU\'s record (the known disagreement)',
                ': the model followed the stream; the disagreement is gone')
        for ok, what, detail in checks:
            t.comment(('ok: ' if ok else 'not ok: ') + what + detail)
    else:
        for ok, what, detail in checks:
            t.check(ok, what, detail)
    status = t.done()
    print('# packets: ' + ', '.join(f'{k} {v}' for k, v in sorted(
        kinds.items())))
    print(f'# {time.time() - t0:.1f} s in all'
          + (f', mutations {",".join(args.mutate)}' if args.mutate else ''))
    sys.exit(status)


if __name__ == '__main__':
    main()
