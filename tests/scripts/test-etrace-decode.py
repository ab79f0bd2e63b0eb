#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""etrace-decode on hand-made streams: exact flows and exact errors (TAP).

Usage: test-etrace-decode.py --decoder DECODER

The program and packets are those of etrace_craft.py; the expected flows
follow from the program and the packets' fields by the spec's decoder
rules (branch map bit 0 first, 1 = not taken; addresses differential,
shifted by iaddress_lsb).  Each malformed stream must give its error
code (etrace-decode's "error ETD_ERR_...:" lines, docs/system/riscv/
trace.rst) with the byte offset of the packet at fault and its source,
exit status 1, and the decoder must go on at the next synchronisation
where there is one.  Errors are matched by code, offset, source and the
values their message carries, never by wording; every error line must
have a code.  Warnings, which have no code, are matched by their text.
"""

import collections
import os
import re
import struct
import subprocess
import sys
import tempfile

import etrace_craft as c
from rvcfo import cli, tap

RESULTS = tap.Tap()

# etrace-decode: [byte OFFSET: ][srcID ID: ]error CODE: MESSAGE
ERROR = re.compile(r'^etrace-decode: (?:byte (\d+): )?(?:srcID (\d+): )?'
                   r'error (ETD_ERR_[A-Z0-9_]+): (.*)$')
# the values a message carries: numbers, addresses, names, paths
VALUE = re.compile(r"[^\s:;,()'\"]+")


class Err(collections.namedtuple('Err', 'code at src values',
                                 defaults=(None, None, ()))):
    """An error expected on stderr: its code; where given, the byte
    offset, the srcID and values its message must carry."""

    def found(self, err):
        for line in err.splitlines():
            m = ERROR.match(line)
            if m and m.group(3) == self.code and \
                    (self.at is None or m.group(1) == str(self.at)) and \
                    (self.src is None or m.group(2) == str(self.src)) and \
                    all(v in VALUE.findall(m.group(4))
                        for v in self.values):
                return True
        return False


def uncoded(err):
    """Error lines of stderr without a code (not warnings)."""
    return [ln for ln in err.splitlines()
            if ln.startswith('etrace-decode:') and ': warning: ' not in ln
            and not ERROR.match(ln)]


def run(decoder, args, data, tmp):
    path = os.path.join(tmp, 'stream.bin')
    with open(path, 'wb') as f:
        f.write(data)
    res = subprocess.run([decoder] + args + [path], capture_output=True,
                         text=True, timeout=60, check=False)
    return res.returncode, res.stdout, res.stderr


def check(name, cond, detail):
    """One case: @detail is shown when it fails."""
    RESULTS.check(cond, name, detail=f': {detail}')


def flow_of(out):
    return [int(w, 16) for w in out.split()]


# Two programs at 0x2000, each the code of one context only:
#   context 1:  0x2000 addi a0, a0, 1;  0x2004 jr t1
#   context 2:  0x2000 addi a0, a0, 1;  0x2004 addi a0, a0, 1;
#               0x2008 jr t1
CTX_A = bytes.fromhex('13051500' '67000300')
CTX_B = bytes.fromhex('13051500' '13051500' '67000300')


def check_contexts(decoder, tmp, img, case):
    """A context field of 8 bits (context_width_p=8): a format 3.0 in
    context 1 (U mode) at 0x2000, a format 2 back to 0x2000 (the jr),
    a format 3.2 to context 2, the same format 2 again, the end.  Per
    payload.adoc the context follows the privilege in format 3.0 and is
    all of format 3.2 after it; the flow, worked out from the two
    programs: context 1 runs 0x2000, 0x2004 and back; context 2 runs
    0x2004, 0x2008 and back."""
    paths = []
    for name, data in (('ctx-a.bin', CTX_A), ('ctx-b.bin', CTX_B)):
        paths.append(os.path.join(tmp, name))
        with open(paths[-1], 'wb') as f:
            f.write(data)
    data = c.stream([c.support(), c.start(0x2000, priv=0, ctx=1, ctx_bits=8),
                     c.addr_only(0), c.context(2, 8, priv=0),
                     c.addr_only(0), c.support(qual=1)])
    width = ['--param', 'context_width_p=8']
    a, b = (f'{p}@0x2000' for p in paths)
    case('context-images', data, 0,
         [0x2000, 0x2004, 0x2000, 0x2004, 0x2008, 0x2000], args=width,
         images=img + ['--context-bin', f'1={a}', '--context-bin', f'2={b}'])
    # the images swapped: each context runs the other's code
    case('context-images-swapped', data, 0,
         [0x2000, 0x2004, 0x2008, 0x2000, 0x2004, 0x2000], args=width,
         images=img + ['--context-bin', f'1={b}', '--context-bin', f'2={a}'])
    rc, out, err = run(decoder, img + width + [
        '--context-bin', f'1={a}', '--context-bin', f'2={b}',
        '--output=flow'], data, tmp)
    want = ['0 context 1', '0 U  2000 0x2000', '0 U  2004 0x2004',
            '0 U  2000 0x2000', '0 context 2', '0 U  2004 0x2004',
            '0 U  2008 0x2008', '0 U  2000 0x2000', '0 gap trace ended']
    check('context-flow', rc == 0 and out.splitlines() == want,
          f'exit {rc}: {out.splitlines()!r} {err!r}')
    rc, out, err = run(decoder, img + width + ['--output=stats'], data, tmp)
    check('context-stats', rc == 0 and
          'context packets (format 3.2): 1' in out.splitlines(),
          f'exit {rc}: {out!r} {err!r}')
    rc, _, err = run(decoder, img + ['--context-bin', f'1={a}'], data, tmp)
    check('context-images-need-width', rc == 2 and
          'need a context field' in err, f'exit {rc}: {err!r}')
    rc, _, err = run(decoder, img + ['--param', 'nocontext_p=0'], data, tmp)
    check('nocontext-needs-width', rc == 2 and
          'nocontext_p=0 needs context_width_p' in err, f'exit {rc}: {err!r}')


# The code side stream (include/hw/riscv/trace-code.h): magic, records of
# kind, privilege, srcID, payload length, position (te_inst packets
# made), branches since, hart; CODE, MAP and LOST.
CODE_MAGIC = b'RVCODE\x00\x01'


def code_record(kind, pos, branches, payload, priv=3, src=0, hart=0):
    return struct.pack('<BBHIQII', kind, priv, src, len(payload), pos,
                       branches, hart) + payload


def code_map(va, pa, pos=0, branches=0, hart=0):
    return code_record(2, pos, branches, struct.pack('<QQ', va, pa),
                       hart=hart)


def code_bytes(va, data, pos=0, branches=0, hart=0):
    return code_record(1, pos, branches, struct.pack('<Q', va) + data,
                       hart=hart)


def code_cases(decoder, tmp, case):
    """The crafted program given only by a code side stream, with a
    change at a point of the trace: the flows follow from the record
    rules (docs/specs/riscv-trace.rst, "The code side stream")."""
    path = os.path.join(tmp, 'code-stream.bin')

    def with_code(*records):
        with open(path, 'wb') as f:
            f.write(CODE_MAGIC + b''.join(records))
        return ['--code', path]

    base = [code_map(c.BASE, c.BASE), code_bytes(c.BASE, c.CODE)]
    case('code-stream-alone', b''.join(c.frame(p) for p in c.GOOD), 0,
         c.GOOD_FLOW, images=with_code(*base))
    # the loop's addi (0x04) becomes c.nop; c.nop after the 2nd branch
    # outcome that packet 3 (the branch map) reports: the third round
    # runs 0x04, 0x06
    nops = code_bytes(c.BASE + 4, bytes.fromhex('01000100'), pos=2,
                      branches=2)
    want = [c.BASE + o for o in (0x00, 0x04, 0x08, 0x04, 0x08, 0x04, 0x06,
                                 0x08, 0x0c, 0x18, 0x10, 0x14)]
    case('code-stream-change-after-branches',
         b''.join(c.frame(p) for p in c.GOOD), 0, want,
         images=with_code(*base, nops))
    # the same change made before any branch after packet 2: from the
    # first round on
    want0 = [c.BASE + o for o in (0x00, 0x04, 0x06, 0x08, 0x04, 0x06, 0x08,
                                  0x04, 0x06, 0x08, 0x0c, 0x18, 0x10, 0x14)]
    nops0 = code_bytes(c.BASE + 4, bytes.fromhex('01000100'), pos=2)
    case('code-stream-change-at-packet',
         b''.join(c.frame(p) for p in c.GOOD), 0, want0,
         images=with_code(*base, nops0))
    # made after packet 3 (the branch map): only from packet 4 on, where
    # the loop is over
    nops3 = code_bytes(c.BASE + 4, bytes.fromhex('01000100'), pos=3)
    case('code-stream-change-later', b''.join(c.frame(p) for p in c.GOOD),
         0, c.GOOD_FLOW, images=with_code(*base, nops3))
    # packets lost: the encoder had made 40 when it said so; the change
    # made at 40 holds from the resynchronisation on
    lost = [c.support(), c.start(c.BASE), c.support(qual=2),
            c.start(c.BASE), c.branch(3, 0b100, 0x10 >> 1),
            c.addr_only(0x4 >> 1), c.support(qual=1)]
    nops40 = code_bytes(c.BASE + 4, bytes.fromhex('01000100'), pos=40)
    case('code-stream-lost', b''.join(c.frame(p) for p in lost), 0,
         [c.BASE] + want0,
         images=with_code(*base, nops40, code_record(3, 40, 0, b'')))
    case('code-stream-lost-no-record', b''.join(c.frame(p) for p in lost),
         0, [c.BASE] + c.GOOD_FLOW, images=with_code(*base, nops40))
    # the program mapped at another virtual address: decoded there
    other = 0x40000000
    moved = [c.support(), c.start(other), c.branch(3, 0b100, 0x10 >> 1),
             c.addr_only(0x4 >> 1), c.support(qual=1)]
    case('code-stream-mapped', b''.join(c.frame(p) for p in moved), 0,
         [a - c.BASE + other for a in c.GOOD_FLOW],
         images=with_code(code_map(other, c.BASE),
                          code_bytes(other, c.CODE)))
    # two harts whose encoders both have srcID 0 (a RAM sink each), hart
    # 1 with the loop's addi as c.nop; c.nop from the start: the trace
    # (source 0) is the one --code-hart names
    nopped = c.CODE[:4] + bytes.fromhex('01000100') + c.CODE[8:]
    harts = with_code(*base, code_map(c.BASE, c.BASE, hart=1),
                      code_bytes(c.BASE, nopped, hart=1))
    case('code-stream-hart-0', b''.join(c.frame(p) for p in c.GOOD), 0,
         c.GOOD_FLOW, images=harts + ['--code-hart', '0'])
    case('code-stream-hart-1', b''.join(c.frame(p) for p in c.GOOD), 0,
         want0, images=harts + ['--code-hart', '1'])
    rc, _, err = run(decoder, harts, b'', tmp)
    check('code-stream-harts-share-a-source',
          rc == 2 and Err('ETD_ERR_BAD_CODE', values=['--code-hart']).found(
              err), f'exit {rc}: {err!r}')
    # not a code side stream; a record cut short
    for name, data in [('code-stream-bad-magic', b'RVCODE\x00\x02'),
                       ('code-stream-truncated',
                        CODE_MAGIC + code_bytes(c.BASE, c.CODE)[:-3])]:
        with open(path, 'wb') as f:
            f.write(data)
        rc, _, err = run(decoder, ['--code', path], b'', tmp)
        check(name, rc == 2 and Err('ETD_ERR_BAD_CODE').found(err),
              f'exit {rc}: {err!r}')


def main():
    """Every case (TAP)."""
    decoder = cli.parse(cli.parser(__doc__, qemu=False, decoder=True)).decoder
    good = c.GOOD_FLOW
    frames = [c.frame(p) for p in c.GOOD]
    with tempfile.TemporaryDirectory() as tmp:
        code = os.path.join(tmp, 'code.bin')
        with open(code, 'wb') as f:
            f.write(c.CODE)
        img = ['--bin', f'{code}@{c.BASE:#x}']

        def case(name, data, want_rc, want_flow=None, want_err=None,
                 args=(), images=None):
            """@want_err: an Err, or the text of a warning."""
            rc, out, err = run(decoder, (images or img) + list(args), data,
                               tmp)
            ok = rc == want_rc and not uncoded(err)
            if want_flow is not None:
                ok = ok and flow_of(out) == want_flow
            if isinstance(want_err, Err):
                ok = ok and want_err.found(err)
            elif want_err is not None:
                ok = ok and want_err in err
            check(name, ok, f'exit {rc}, flow {out.split()}, '
                  f'stderr {err.strip()!r}; wanted exit {want_rc}, '
                  f'flow {[hex(a) for a in want_flow or []]}, '
                  f'error {want_err!r}')

        case('good', b''.join(frames), 0, good)
        # --range: only the instructions from 0x04 to 0x0c (the loop),
        # then also 0x18 (the ret), of the same flow
        case('range', b''.join(frames), 0,
             [a for a in good if c.BASE + 4 <= a < c.BASE + 0xc],
             args=['--range', f'{c.BASE + 4:#x}-{c.BASE + 0xc:#x}'])
        # --start, --stop: from the first instruction at 0x04 up to the
        # next at 0x10, not included
        lo = good.index(c.BASE + 4)
        case('start-stop', b''.join(frames), 0,
             good[lo:good.index(c.BASE + 0x10, lo)],
             args=['--start', f'{c.BASE + 4:#x}',
                   '--stop', f'{c.BASE + 0x10:#x}'])
        # --every-window: each instruction at 0x04 opens a window again,
        # the next at 0x08 closes it: the loop's three rounds
        case('every-window', b''.join(frames), 0, [c.BASE + 4] * 3,
             args=['--start', f'{c.BASE + 4:#x}',
                   '--stop', f'{c.BASE + 8:#x}', '--every-window'])
        case('ranges', b''.join(frames), 0,
             [a for a in good if c.BASE + 4 <= a < c.BASE + 0xc or
              a == c.BASE + 0x18],
             args=['--range', f'{c.BASE + 4:#x}-{c.BASE + 0xc:#x}',
                   '--range', f'{c.BASE + 0x18:#x}-{c.BASE + 0x1a:#x}'])
        s12 = c.stream(c.GOOD, srcid=0xabc, srcid_bits=12)
        case('srcid-12-bits', s12, 0, good,
             args=['--param', 'srcid_bits=12', '--src', '2748'])
        case('srcid-other-hart', s12, 0, [],
             args=['--param', 'srcid_bits=12', '--src', '1'])
        # a 4-bit srcID: every payload is whole bytes after it, the last
        # byte's top 4 bits padding whose value does not matter (ones
        # here, with compressed payloads: not sign bits)
        s4 = c.stream([c.compress(p) for p in c.GOOD], srcid=0x5,
                      srcid_bits=4, pad=True)
        case('srcid-4-bits-padding-ignored', s4, 0, good,
             args=['--param', 'srcid_bits=4', '--src', '5'])
        # a length that leaves no payload byte after the srcID's 4 bits
        case('srcid-4-bits-no-payload', bytes([0x01, 0x05]) + s4, 1, good,
             Err('ETD_ERR_UNKNOWN_PACKET', 0, 5),
             args=['--param', 'srcid_bits=4', '--src', '5'])
        case('join-late', b'\x37\x12\x01' + c.SYNC + b''.join(frames), 0,
             good, args=['--join'])
        rc, out, _ = run(decoder, img + ['--output=stats', '--join'],
                         b'\x37\x12\x01' + c.SYNC + b''.join(frames), tmp)
        check('join-late-stats', rc == 0 and 'instructions: 11' in out and
              '41 passed over' in out, out)
        # 31 null.idle and a null.alignment do not make a synchronisation
        # sequence with 6-byte timestamps; they do without
        short_sync = b'\x37\x12\x01' + bytes(31) + b'\x80' + \
            b''.join(frames)
        case('join-short-sync', short_sync, 1, [],
             Err('ETD_ERR_NO_SYNC_SEQUENCE'), args=['--join'])
        case('join-short-sync-no-timestamps', short_sync, 0, good,
             args=['--join', '--param', 'timestamp_bytes=0'])

        whole = b''.join(frames)
        at_last = len(whole) - len(frames[-1])
        case('truncated', whole[:-2], 1, good,
             Err('ETD_ERR_TRUNCATED', at_last))

        at = len(frames[0])
        bad = frames[0] + b'\x20' + b'\x05' * 3 + c.SYNC + \
            b''.join(frames[1:])
        case('null-with-flow-then-resync', bad, 1, good,
             Err('ETD_ERR_NULL_FLOW', at))
        case('timestamp-not-expected', frames[0] + b'\x81\x00' +
             b''.join(frames[1:]), 1, None, Err('ETD_ERR_TIMESTAMP', at),
             args=['--param', 'timestamp_bytes=0'])
        # each packet with a 6-byte timestamp: printed after what the
        # packet reports (the 3.0: 0x00; the format 1: 0x10; the format
        # 2: 0x14; the support packets: where they come)
        timed = b''.join(c.frame(p, time=100 + 7 * k)
                         for k, p in enumerate(c.GOOD))
        case('timestamps', timed, 0, good)
        rc, out, err = run(decoder, img + ['--output=flow'], timed, tmp)
        lines = out.splitlines()
        want = ['0 time 100', f'0 M  {good[0]:x} 0x{good[0]:x}',
                '0 time 107'] + \
            [f'0 M  {a:x} 0x{a:x}' for a in good[1:10]] + \
            ['0 time 114', f'0 M  {good[10]:x} 0x{good[10]:x}',
             '0 time 121', '0 gap trace ended', '0 time 128']
        check('timestamps-flow', rc == 0 and lines == want,
              f'exit {rc}: {lines!r} {err!r}')
        # format 0 subformat 1 without the jump target cache enabled;
        # subformat 0 without branch prediction
        case('format-0-1', frames[0] + c.frame(b'\x04') +
             b''.join(frames[1:]), 1, good, Err('ETD_ERR_JTC_OFF', at, 0))
        case('format-0-0', frames[0] + c.frame(b'\x00') +
             b''.join(frames[1:]), 1, good, Err('ETD_ERR_BPRED_OFF', at, 0))
        ctx = c.Fields().put(3, 2).put(2, 2).put(0, 12).payload()
        case('context-packet', frames[0] + c.frame(ctx) +
             b''.join(frames[1:]), 1, good,
             Err('ETD_ERR_UNKNOWN_PACKET', at, 0, ['3']))
        check_contexts(decoder, tmp, img, case)
        # a start in code no image holds, then a jump into the program:
        # decoding resumes there
        case('sync-outside-images',
             c.stream([c.support(), c.start(0x90000000),
                       c.addr_only((c.BASE + 0x10 - 0x90000000) >> 1),
                       c.addr_only(2)]), 0, [c.BASE + 0x10, c.BASE + 0x14],
             'srcID 0: warning: the trace starts at 0x90000000, outside '
             'the program images')
        # the program image ends at 0x0c: the not taken bnez runs out of
        # it, and no later packet reports code in it (a warning, a gap)
        short = os.path.join(tmp, 'short.bin')
        with open(short, 'wb') as f:
            f.write(c.CODE[:0x0c])
        at_map = len(frames[0]) + len(frames[1])
        case('flow-runs-out-of-image', b''.join(frames), 0, good[:7],
             f'byte {at_map}: srcID 0: warning: the flow from 0x80000008 '
             'goes to 0x8000000c, outside the program images; a gap until '
             'a packet reports code in them',
             images=['--bin', f'{short}@{c.BASE:#x}'])
        rc, _, err = run(decoder, ['--bin', f'{short}@{c.BASE:#x}',
                                   '--quiet'], b''.join(frames), tmp)
        check('quiet', rc == 0 and not err, f'exit {rc}: {err!r}')
        # the image ends before the function at 0x18: the jal goes out of
        # it, the packet of its return to 0x10 comes back in
        nofn = os.path.join(tmp, 'nofn.bin')
        with open(nofn, 'wb') as f:
            f.write(c.CODE[:0x18])
        case('direct-jump-out-of-images-and-back', b''.join(frames), 0,
             good[:8] + good[9:], f'byte {at_map}: srcID 0: warning: the '
             'flow from 0x8000000c goes to 0x80000018, outside the '
             'program images', images=['--bin', f'{nofn}@{c.BASE:#x}'])
        rc, out, _ = run(decoder, ['--bin', f'{nofn}@{c.BASE:#x}',
                                   '--output=flow', '--quiet'],
                         b''.join(frames), tmp)
        check('direct-jump-out-of-images-flow', rc == 0 and
              out.splitlines()[8:10] == ['0 gap no program image',
                                         '0 M  80000010 0x80000010'],
              f'exit {rc}: {out!r}')
        # stopped at the jal (0x0c), a synchronisation (a change to U) at
        # code no image holds: the jal and the ret that leads there are
        # followed first
        to_u = c.stream([c.support(), c.start(c.BASE),
                         c.branch(3, 0b100, 0x0c >> 1),
                         c.start(0x90000000, priv=0)])
        at_u = len(to_u) - len(c.frame(c.start(0x90000000, priv=0)))
        case('sync-outside-images-mid-trace', to_u, 0,
             good[:8] + [c.BASE + 0x18], f'byte {at_u}: srcID 0: warning: '
             'the flow from 0x80000018 goes to 0x90000000, outside the '
             'program images')
        # four outcomes where the program has three branches before its
        # return: one is left over at the reported return target
        over = c.stream([c.support(), c.start(c.BASE),
                         c.branch(4, 0b0100, 0x10 >> 1)])
        case('branch-map-does-not-fit', over, 1, good[:10],
             Err('ETD_ERR_BRANCHES_UNUSED', values=['0x80000010', '1']))
        # jr t1 goes to code no image holds, then back into the program
        nowhere = c.stream([c.support(), c.start(c.BASE),
                            c.branch(3, 0b100, 0x10 >> 1),
                            c.addr_only((0x10000000 - 0x10) >> 1),
                            c.addr_only((0x14 - 0x10000000) >> 1)])
        case('jump-out-of-images-and-back', nowhere, 0, good)
        case('never-syncs', c.stream([c.support(), c.addr_only(2),
                                      c.addr_only(2)]), 1, [],
             Err('ETD_ERR_NO_SYNC', src=0, values=['2']))
        case('no-sync-sequence', b'\x12' * 40, 1, [],
             Err('ETD_ERR_NO_SYNC_SEQUENCE'), args=['--join'])
        # the jal at 0x0c takes an instruction access fault: the not taken
        # bnez before it is the last retired; the handler is at 0x14
        trap = c.stream([c.support(), c.start(c.BASE),
                         c.branch(3, 0b100, 0x08 >> 1),
                         c.trap(c.BASE + 0x14, 1, c.BASE + 0x0c),
                         c.support(qual=1)])
        rc, out, err = run(decoder, img + ['--output=flow'], trap, tmp)
        want = [f'0 M  {a:x} 0x{a:x}' for a in good[:7]] + \
            ['0 trap exception cause=1 epc=8000000c tval=8000000c',
             '0 M  80000014 0x80000014', '0 gap trace ended']
        check('exception-flow', rc == 0 and out.splitlines() == want,
              f'exit {rc}: {out!r} {err!r}')

        # the stream stops before the trace ends (a RAM sink that stopped
        # when full): a gap says so, and it is not an error
        cut = c.stream(c.GOOD[:-1])
        rc, out, err = run(decoder, img + ['--output=flow'], cut, tmp)
        check('cut-short', rc == 0 and not err and
              out.splitlines()[-1] == '0 gap end of stream, trace not '
              'ended' and len(out.splitlines()) == len(good) + 1,
              f'exit {rc}: {out!r} {err!r}')
        rc, out, err = run(decoder, img + ['--output=flow'],
                           b''.join(frames), tmp)
        check('ended', rc == 0 and out.splitlines()[-1] ==
              '0 gap trace ended', f'exit {rc}: {out!r} {err!r}')

        # packets lost (a slow chardev): the encoder's support packet
        # with trace_lost, then a synchronisation; a gap, no error
        lost = c.stream([c.support(), c.start(c.BASE),
                         c.branch(3, 0b100, 0x10 >> 1),
                         c.support(qual=2), c.start(c.BASE + 0x14),
                         c.support(qual=1)])
        rc, out, err = run(decoder, img + ['--output=flow'], lost, tmp)
        want = [f'0 M  {a:x} 0x{a:x}' for a in good[:10]] + \
            ['0 gap trace lost', '0 M  80000014 0x80000014',
             '0 gap trace ended']
        check('lost-then-resync', rc == 0 and not err and
              out.splitlines() == want, f'exit {rc}: {out!r} {err!r}')

        # payload.adoc, "Format 2 notify and updiscon fields": a loop
        # entered by falling through to its first instruction (0x04) and
        # closed by an uninferable jump back to it (jr t1 at 0x08).  A
        # format 2 reporting 0x04 with updiscon equal to notify stops at
        # the first pass; a second format 2 (case 1) or ended_ntr says
        # that it reported the pass after the jump; ended_rep that the
        # trace ended at the first pass.
        loop = os.path.join(tmp, 'loop.bin')
        with open(loop, 'wb') as f:
            f.write(bytes.fromhex('13000000 13000000 67000300'
                                  .replace(' ', '')))
        loop_img = ['--bin', f'{loop}@{c.BASE:#x}']
        passes = [c.BASE + o for o in (0x00, 0x04, 0x08, 0x04, 0x08, 0x04)]
        for name, packets, want_flow in [
                ('case-1-then-ended-ntr',
                 [c.addr_only(2), c.addr_only(0), c.support(qual=3)],
                 passes),
                ('case-1-then-ended-rep',
                 [c.addr_only(2), c.addr_only(0), c.support(qual=1)],
                 passes),
                ('first-pass-ended-rep', [c.addr_only(2), c.support(qual=1)],
                 passes[:2]),
                ('later-pass-ended-ntr', [c.addr_only(2), c.support(qual=3)],
                 passes[:4])]:
            case(name, c.stream([c.support(), c.start(c.BASE)] + packets),
                 0, want_flow, images=loop_img)
        # the timestamp of a format 2 that stopped at the first pass goes
        # with the pass the next packet shows it reported: the second
        # (case 1), or the first (the trace ended there)
        for name, packets, want in [
                ('case-1-times',
                 [c.addr_only(2), c.addr_only(0), c.support(qual=3)],
                 ['time 0', 0x00, 'time 1', 0x04, 0x08, 0x04, 'time 2',
                  0x08, 0x04, 'time 3', 'gap trace ended', 'time 4']),
                ('first-pass-times', [c.addr_only(2), c.support(qual=1)],
                 ['time 0', 0x00, 'time 1', 0x04, 'time 2',
                  'gap trace ended', 'time 3'])]:
            data = b''.join(c.frame(p, time=k) for k, p in
                            enumerate([c.support(), c.start(c.BASE)] +
                                      packets))
            rc, out, err = run(decoder, loop_img + ['--output=flow'], data,
                               tmp)
            want = [f'0 {w}' if isinstance(w, str) else
                    f'0 M  {c.BASE + w:x} 0x{c.BASE + w:x}' for w in want]
            check(name, rc == 0 and out.splitlines() == want,
                  f'exit {rc}: {out.splitlines()!r} {err!r}')

        # the jump target cache (ioptions bit 3; 64 entries by address bits
        # 6:1): jr t1 at 0x10 goes to the function at 0x18 and its ret back
        # to 0x10, three times; the first targets are addresses (entries 8
        # and 12 take them), the others entries; the address after them is
        # relative to the last target
        jtc = c.stream([c.support(ioptions=8), c.start(c.BASE + 0x0c),
                        c.addr_only(4 >> 1), c.addr_only(8 >> 1),
                        c.jump_cache(8), c.jump_cache(12), c.jump_cache(8),
                        c.addr_only(4 >> 1), c.support(qual=3)])
        case('jump-target-cache', jtc, 0,
             [c.BASE + o for o in (0x0c, 0x18, 0x10, 0x18, 0x10, 0x18, 0x10,
                                   0x14)])
        off = c.stream([c.support(), c.start(c.BASE + 0x0c)])
        case('jump-target-cache-off', off + c.frame(c.jump_cache(8)), 1,
             [c.BASE + 0x0c], Err('ETD_ERR_JTC_OFF', len(off), 0))
        empty = c.stream([c.support(ioptions=8), c.start(c.BASE + 0x0c)])
        case('jump-target-cache-empty', empty + c.frame(c.jump_cache(5)), 1,
             [c.BASE + 0x0c], Err('ETD_ERR_JTC_EMPTY', len(empty), 0, ['5']))

        # branch prediction (ioptions bit 4; 64 entries by address bits
        # 6:1): a loop of 70 rounds closed by bnez at 0x04 (entry 2, 01
        # after the sync): taken 69 times, not taken once.  The first
        # taken fails (01 -> 11); the first 31 outcomes are a full map;
        # the next 31, all foreseen, and 7 more are counted; the not
        # taken one fails: format 0.0 without an address, count 7.  Then
        # jr t1 to 0x0c, an address.
        bp_code = os.path.join(tmp, 'bp.bin')
        with open(bp_code, 'wb') as f:
            f.write(bytes.fromhex('1305f5ff e31e05fe 67000300 6f000000'
                                  .replace(' ', '')))
        bp_img = ['--bin', f'{bp_code}@{c.BASE:#x}']
        rounds = [c.BASE, c.BASE + 4] * 70
        bp = c.stream([c.support(ioptions=16), c.start(c.BASE),
                       c.branch(0, 0), c.branch_count(7),
                       c.addr_only(0x0c >> 1), c.support(qual=3)])
        case('branch-prediction', bp, 0,
             rounds + [c.BASE + 8, c.BASE + 0x0c], images=bp_img)
        # the same stream with bpred_size_p=0 (it used to abort the
        # decoder): the format 0.0 (byte 20) is not read, an error with its
        # code, the flow stops at the branch the count was for
        bp0 = c.stream([c.support(ioptions=16), c.start(c.BASE),
                        c.branch(0, 0)])
        case('branch-prediction-size-0', bp, 1, rounds[:64],
             Err('ETD_ERR_UNKNOWN_PACKET', len(bp0), 0), images=bp_img,
             args=['--param', 'bpred_size_p=0'])
        # the support packet turns branch prediction on after the
        # synchronisation: it is on from the next one only
        late = c.stream([c.support(), c.start(c.BASE), c.branch(0, 0),
                         c.support(ioptions=16)])
        case('branch-prediction-from-the-next-sync',
             late + c.frame(c.branch_count(7)), 1, rounds[:62],
             Err('ETD_ERR_BPRED_OFF', len(late), 0), images=bp_img)

        # sequentially inferable jumps (ioptions bit 5), at 0x1000 where
        # lui and c.lui reach: lui t1, 2; jalr x0, 0x10(t1) -> 0x2010;
        # c.lui t2, 3; c.jr t2 -> 0x3000; j . there.  A format 2 for 0x3000
        # is the first packet after the start: both jumps are followed
        # as inferable; without the option, the jalr goes to 0x3000
        sij = bytearray(0x2004)
        sij[0:8] = bytes.fromhex('37230000 67000301'.replace(' ', ''))
        sij[0x1010:0x1014] = bytes.fromhex('8d638283')
        sij[0x2000:0x2004] = bytes.fromhex('6f000000')
        sij_code = os.path.join(tmp, 'sij.bin')
        with open(sij_code, 'wb') as f:
            f.write(sij)
        sij_img = ['--bin', f'{sij_code}@0x1000']
        for name, opts, want_flow in [
                ('sequential-jumps', 32,
                 [0x1000, 0x1004, 0x2010, 0x2012, 0x3000]),
                ('sequential-jumps-off', 0, [0x1000, 0x1004, 0x3000])]:
            case(name, c.stream([c.support(ioptions=opts), c.start(0x1000),
                                 c.addr_only(0x2000 >> 1),
                                 c.support(qual=1)]),
                 0, want_flow, images=sij_img)

        # implicit return (ioptions bit 0, a 16-entry return stack): the
        # jal ra at 0x0c pushes 0x10, the ret at 0x18 pops it, the format
        # 1 reports the target of jr t1; without the option the ret is
        # an uninferable jump to the reported address.  A failed return:
        # irreport flipped with irdepth 1, the depth at the ret, sends it
        # to the reported address; with irdepth 2 the ret is implicit.
        flow_ret = [c.BASE + o for o in (0x00, 0x04, 0x08, 0x04, 0x08,
                                         0x04, 0x08, 0x0c, 0x18)]
        for name, opts, depth, want_flow in [
                ('implicit-return', 1, None, c.GOOD_FLOW),
                ('implicit-return-off', 0, None, flow_ret + [c.BASE + 0x14]),
                ('implicit-return-failed', 1, 1, flow_ret + [c.BASE + 0x14]),
                ('implicit-return-other-depth', 1, 2, c.GOOD_FLOW)]:
            case(name, c.stream([c.support(ioptions=opts), c.start(c.BASE),
                                 c.branch(3, 0b100, 0x14 >> 1, depth),
                                 c.support(qual=3)]),
                 0, want_flow)

        data_cases(decoder, tmp, case)
        code_cases(decoder, tmp, case)

        # command line errors
        for name, args, want in [
                ('no-image', [], Err('ETD_ERR_NO_IMAGE')),
                ('bad-param', img + ['--param', 'iaddress_lsb_p=7'],
                 Err('ETD_ERR_PARAM', values=['iaddress_lsb_p=7'])),
                ('bad-output', img + ['--output=xml'],
                 Err('ETD_ERR_BAD_VALUE', values=['xml'])),
                ('bad-clock', img + ['--output=chrome', '--clock=cycles'],
                 Err('ETD_ERR_BAD_VALUE', values=['cycles'])),
                ('dir-without-uftrace', img + ['--dir', tmp],
                 Err('ETD_ERR_USAGE', values=['--dir'])),
                ('bad-priv', img + ['--priv=U,X'],
                 Err('ETD_ERR_BAD_VALUE', values=['X'])),
                ('empty-priv', img + ['--priv='],
                 Err('ETD_ERR_BAD_VALUE', values=['--priv'])),
                ('priv-stats', img + ['--output=stats', '--priv=U'],
                 Err('ETD_ERR_USAGE', values=['--priv'])),
                ('priv-data', img + ['--data', '--priv=M'],
                 Err('ETD_ERR_USAGE', values=['--priv'])),
                ('code-hart-without-code', img + ['--code-hart', '1'],
                 Err('ETD_ERR_USAGE', values=['--code-hart'])),
                ('every-window-without-start',
                 img + ['--stop=0', '--every-window'],
                 Err('ETD_ERR_USAGE', values=['--every-window'])),
                ('missing-elf', ['--elf', '/nonexistent.elf'],
                 Err('ETD_ERR_IO', values=['/nonexistent.elf'])),
                ('not-riscv', ['--elf', '/bin/true'],
                 Err('ETD_ERR_NOT_RISCV', values=['/bin/true']))]:
            rc, _, err = run(decoder, args, b'', tmp)
            check(name, rc == 2 and want.found(err) and not uncoded(err),
                  f'exit {rc}: {err!r}; wanted {want}')

    sys.exit(RESULTS.done())


def data_cases(decoder, tmp, case):
    """Data trace: te_data packets read, tied to their instructions,
    errors at their byte offsets (etrace_craft.DATA_GOOD: the accesses
    worked out by hand)."""
    code = os.path.join(tmp, 'data-code.bin')
    with open(code, 'wb') as f:
        f.write(c.DATA_CODE)
    img = ['--bin', f'{code}@{c.BASE:#x}']
    frames = c.DATA_GOOD
    whole = c.stream(frames)

    def run_data(data, output='data'):
        return run(decoder, img + ['--data', f'--output={output}'], data,
                   tmp)

    rc, out, err = run_data(whole)
    check('data-accesses', rc == 0 and not err and
          out.splitlines() == c.DATA_GOOD_ACCESSES,
          f'exit {rc}: {out!r} {err!r}')
    # in the flow, each access after its instruction
    rc, out, err = run_data(whole, 'flow')
    flow = [ln for ln in out.splitlines() if ' data ' not in ln]
    want = []
    for ln in flow:
        want.append(ln)
        want += [a for a in c.DATA_GOOD_ACCESSES
                 if a.endswith(' insn=' + ln.split()[2])]
    check('data-flow', rc == 0 and out.splitlines() == want and
          len(flow) == 7, f'exit {rc}: {out!r} {err!r}')
    rc, out, err = run_data(whole, 'stats')
    check('data-stats', rc == 0 and
          'data accesses: 4, load: 1, store: 1, add: 1, failed-sc: 1' in out
          and 'accesses not tied to an instruction: 0' in out,
          f'exit {rc}: {out!r} {err!r}')
    # without --data the type bit is read as part of each packet
    rc, _, err = run(decoder, img, whole, tmp)
    check('data-without-data-option', rc == 1 and ' error ETD_ERR_' in err,
          f'exit {rc}: {err!r}')
    # a compressed address with no history: the sync after the lw ended
    # it (the amoadd.w at its address must be sent in full)
    amo = c.typed(c.data_amo(1, 2, 2, 5, 0, 0x12345678, 3, 0), 1)
    at = sum(len(c.frame(p)) for p in frames[:4])
    case('data-no-history', c.stream(frames[:4]) + c.frame(amo) +
         c.stream(frames[5:]), 1, None, Err('ETD_ERR_DATA_HISTORY', at, 0),
         args=['--data'], images=img)
    # 2.0's format 111 is reserved
    bad = c.typed(c.Fields().put(7, 3).put(0, 2).put(0, 1).put(0, 64)
                  .payload(), 1)
    case('data-reserved-format', c.stream(frames[:4]) + c.frame(bad) +
         c.stream(frames[4:]), 1, None, Err('ETD_ERR_BAD_DATA', at, 0),
         args=['--data'], images=img)
    # dloss, as the encoder sends it after dropping data packets: the
    # amoadd.w's and sc.d's accesses dropped, every instruction reported,
    # then a support packet with dloss: those two instructions get none
    lost = c.typed(c.support_data(dloss=1), 0)
    rc, out, err = run_data(c.stream(frames[:4] + frames[6:7]) +
                            c.frame(lost))
    check('data-lost', rc == 0 and out.splitlines() ==
          c.DATA_GOOD_ACCESSES[:2] + ['0 data lost'],
          f'exit {rc}: {out!r} {err!r}')
    rc, out, err = run(decoder, img + ['--data', '--output=stats'],
                       c.stream(frames[:4] + frames[6:7]) + c.frame(lost),
                       tmp)
    check('data-lost-stats', rc == 0 and
          'accesses instructions made but not traced: 2' in out and
          'data losses reported: 1' in out, f'exit {rc}: {out!r} {err!r}')


if __name__ == '__main__':
    main()
