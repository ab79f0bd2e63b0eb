# SPDX-License-Identifier: GPL-2.0-or-later
"""An executable model of the E-Trace 2.0.5 decoder pseudo-code.

Transcribed function by function from decoder.adoc of E-Trace "2.0.5"
(docs/specs/etrace-2.0.5/decoder.adoc, branch updates-2.0.5 at d3d5919),
keeping its names; each function cites the lines it comes from as
"dec:N".  Packets are read as payload.adoc describes them (cited
"payload:"), framed as the Encapsulation 1.0 specification says; the
instructions are classified from the RISC-V ISA (RV64GC, Zcmp, Zcmt and
the trap returns).  Nothing here comes from the C decoder
(contrib/etrace) or the encoder (hw/riscv/trace-encoder): this is an
independent reading of the texts.

Where the pseudo-code does not parse, or runs but contradicts the
normative text, the model makes a reading or a correction; each is
marked in the code with its tag (R1, R2, ... for readings, C1, C2, ...
for corrections) and listed, with the text that justifies it, in
docs/etrace-decoder-pseudocode.md.  MUTATIONS lists deliberate faults
the tests use to show that the comparison with QEMU's record would
catch a wrong model.

2.0.5's pseudo-code is written for protocol 2.1 (irets and the Standard
Support Packet, extensions.adoc, v0.8); the encoder sends 2.0 (irdepth,
payload.adoc) by default and 2.1 when asked.  The two differ in the
support packet (2.1 carries the options in their own fields and the
parameters: parse() and process_support()) and in the implicit return
field and the functions that read it: is_implicit_return(),
unprocessed_implicit_returns(), which are methods of IrDepthRules (2.0,
reading R8) and IretsRules (2.1, as written, with C11).

API: decode(stream, images, params, options) -> {srcID: [items]}, items
being ('pc', address, privilege), ('trap', dict) or ('gap', reason).
"""

import copy
import sys

try:
    from elftools.elf.elffile import ELFFile
except ImportError:     # Debian's python3-pyelftools under another python3
    sys.path.append('/usr/lib/python3/dist-packages')
    from elftools.elf.elffile import ELFFile

MASK64 = (1 << 64) - 1

# Deliberate faults for the break check (test-etrace-spec-decoder.py
# --mutate): each must make at least one comparison fail.
MUTATIONS = {
    'bpred-init-taken': 'bpred_init() leaves every entry at 11, not 01',
    'cache-never-replace': 'cache_update() fills only empty entries',
    'stack-full-no-push': 'push_return_stack() drops the call when full',
    'no-cache-flush': 'the cache is not emptied at a synchronisation (C9)',
    'jalr-x0-relative': 'jalr with rs1 = x0 goes to pc + imm (dec:167)',
    'ir-pops-failed': 'a failed return stays popped (dec:200 as written; '
                      '2.0 only)',
    'as-written-C11': 'irets starts at 0 for each packet (dec:37), though '
                      'the return at which following stopped was popped',
    'as-written-C12': 'prt_valid is left as it was at a format 3 packet',
    'as-written-C13': 'a target reported with irreport is not cached when '
                      'it equals a stale popped_return_target (dec:185)',
    # the pseudo-code as written where the model corrects it
    'as-written-C1': 'exception_address() takes ecall/ebreak for an '
                     'uninferable discontinuity (dec:523)',
    'as-written-C2': 'branch_map >> 1 has no effect (dec:295)',
    'as-written-C4': 'Zcmp/Zcmt jumps and mnret not classified '
                     '(dec:334-350)',
    'as-written-C5': 'a cache index is looked up before the path to the '
                     'inferred address is followed (dec:86)',
    'as-written-C6': 'dec:90, dec:131 and dec:596 as written: a format '
                     '0.0 packet with an address at a branch',
    'as-written-C7': 'the stack and predictor are reset at a trap packet '
                     'only without resync_disabled (dec:66; the model '
                     'then takes resync_disabled as set)',
    'as-written-C8': 'implicit return targets are cached (dec:173-176)',
    'as-written-C10': 'an exception at an implicit return target needs '
                      'thaddr = 0 (dec:523-526)',
    'as-written-R10': 'the path to the handler is followed after a trap '
                      'packet with thaddr = 0 (dec:60-61)',
}


class Abort(Exception):
    """An ERROR/abort of the pseudo-code."""


class Gap(Exception):
    """The path left the program images."""


# ---------------------------------------------------------------------------
# Instructions: the opcodes the pseudo-code names, from the RISC-V ISA
# (unprivileged: RV64I, C, Zcmp, Zcmt; privileged: xRET, Smrnmi's mnret).

class Instr:
    __slots__ = ('opcode', 'size', 'rd', 'rs1', 'imm')
    as_written = False      # the as-written-C4 mutation

    def __init__(self, opcode, size, rd=None, rs1=None, imm=0):
        self.opcode = opcode
        self.size = size
        self.rd = rd
        self.rs1 = rs1
        self.imm = imm


def sext(value, bits):
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def decode_32(w):
    op = w & 0x7f
    rd = (w >> 7) & 31
    f3 = (w >> 12) & 7
    rs1 = (w >> 15) & 31
    if op == 0x63 and f3 not in (2, 3):
        imm = ((w >> 31) & 1) << 12 | ((w >> 7) & 1) << 11 | \
            ((w >> 25) & 0x3f) << 5 | ((w >> 8) & 0xf) << 1
        name = {0: 'BEQ', 1: 'BNE', 4: 'BLT', 5: 'BGE', 6: 'BLTU',
                7: 'BGEU'}[f3]
        return Instr(name, 4, None, rs1, sext(imm, 13))
    if op == 0x6f:
        imm = ((w >> 31) & 1) << 20 | ((w >> 12) & 0xff) << 12 | \
            ((w >> 20) & 1) << 11 | ((w >> 21) & 0x3ff) << 1
        return Instr('JAL', 4, rd, None, sext(imm, 21))
    if op == 0x67 and f3 == 0:
        return Instr('JALR', 4, rd, rs1, sext(w >> 20, 12))
    if op == 0x37:
        return Instr('LUI', 4, rd, None, sext(w & 0xfffff000, 32))
    if op == 0x17:
        return Instr('AUIPC', 4, rd, None, sext(w & 0xfffff000, 32))
    if op == 0x73:
        name = {0x00000073: 'ECALL', 0x00100073: 'EBREAK',
                0x10200073: 'SRET', 0x30200073: 'MRET',
                0x70200073: 'MNRET', 0x7b200073: 'DRET'}.get(w)
        if name:
            return Instr(name, 4)
    return Instr('OTHER', 4)


def decode_16(h, zc):
    quad = h & 3
    f3 = h >> 13
    if quad == 1:
        if f3 == 5:     # c.j (c.jal, f3 1, is RV32 only: c.addiw on RV64)
            imm = ((h >> 12) & 1) << 11 | ((h >> 11) & 1) << 4 | \
                ((h >> 9) & 3) << 8 | ((h >> 8) & 1) << 10 | \
                ((h >> 7) & 1) << 6 | ((h >> 6) & 1) << 7 | \
                ((h >> 3) & 7) << 1 | ((h >> 2) & 1) << 5
            return Instr('C.J', 2, 0, None, sext(imm, 12))
        if f3 in (6, 7):
            imm = ((h >> 12) & 1) << 8 | ((h >> 10) & 3) << 3 | \
                ((h >> 5) & 3) << 6 | ((h >> 3) & 3) << 1 | \
                ((h >> 2) & 1) << 5
            return Instr('C.BEQZ' if f3 == 6 else 'C.BNEZ', 2, None,
                         8 + ((h >> 7) & 7), sext(imm, 9))
        if f3 == 3:
            rd = (h >> 7) & 31
            if rd not in (0, 2):
                imm = ((h >> 12) & 1) << 17 | ((h >> 2) & 31) << 12
                return Instr('C.LUI', 2, rd, None, sext(imm, 18))
    elif quad == 2:
        if f3 == 4:
            rs1 = (h >> 7) & 31
            rs2 = (h >> 2) & 31
            if rs2 == 0:
                if (h >> 12) & 1:
                    if rs1 == 0:
                        return Instr('C.EBREAK', 2)
                    return Instr('C.JALR', 2, 1, rs1, 0)
                if rs1:
                    return Instr('C.JR', 2, 0, rs1, 0)
        elif f3 == 5 and zc:
            if (h >> 10) & 7 == 0:
                index = (h >> 2) & 0xff
                # Zcmt: cm.jalt links to ra, cm.jt does not link
                if index >= 32:
                    return Instr('CM.JALT', 2, 1, None, 0)
                return Instr('CM.JT', 2, 0, None, 0)
            sel = (h >> 8) & 0x1f
            if sel == 0x1e:
                return Instr('CM.POPRET', 2, 0, 1, 0)
            if sel == 0x1c:
                return Instr('CM.POPRETZ', 2, 0, 1, 0)
    return Instr('OTHER', 2)


class Images:
    """The program images: ELF PT_LOAD segments and raw binaries."""

    def __init__(self, zc=False):
        self.zc = zc
        self.regions = []       # (lo, bytes)
        self._cache = {}

    def add_elf(self, path, offset=0):
        with open(path, 'rb') as f:
            elf = ELFFile(f)
            for seg in elf.iter_segments():
                if seg['p_type'] == 'PT_LOAD' and seg['p_filesz']:
                    self.regions.append((seg['p_vaddr'] + offset,
                                         seg.data()[:seg['p_filesz']]))

    def add_bin(self, path, addr):
        with open(path, 'rb') as f:
            self.regions.append((addr, f.read()))

    def read(self, addr, n):
        for lo, data in self.regions:
            if lo <= addr and addr + n <= lo + len(data):
                return data[addr - lo:addr - lo + n]
        return None

    def get_instr(self, address):
        instr = self._cache.get(address)
        if instr is None:
            half = self.read(address, 2)
            if half is None:
                raise Gap(f'no program image at {address:#x}')
            h = int.from_bytes(half, 'little')
            if h & 3 == 3:
                word = self.read(address, 4)
                if word is None:
                    raise Gap(f'no program image at {address:#x}')
                instr = decode_32(int.from_bytes(word, 'little'))
            else:
                instr = decode_16(h, self.zc)
            self._cache[address] = instr
        return instr


# ---------------------------------------------------------------------------
# Packets (payload.adoc) in their encapsulation (encapsulation.adoc).

class Params:
    """Discovery parameters (discovery.adoc) and the stream's framing;
    defaults: the values docs/specs/riscv-trace.rst gives."""

    def __init__(self, **kw):
        self.iaddress_width = 64
        self.iaddress_lsb = 1
        self.privilege_width = 3
        self.ecause_width = 6
        self.return_stack_size = 4
        self.call_counter_size = 0
        self.bpred_size = 6
        self.cache_size = 6
        self.f0s_width = 1
        self.ioptions_width = 6
        self.encoder_mode_width = 1
        self.doptions_width = 4
        self.time_width = 0         # notime_p = 1
        self.context_width = 0      # nocontext_p = 1
        self.srcid_bits = 0
        self.timestamp_bytes = 6
        self.protocol = '2.0'       # 2.0: irdepth; 2.1: irets
        # calls and returns as ingressPort.adoc, "Jump classification",
        # and decoder.adoc classify them (x1 or x5 links, a return's rd
        # anything but x1 and x5, cm.jalt a call, cm.popret a return);
        # False: this encoder's narrower classes (rd = x1 jal, jalr, c.jal
        # and c.jalr calls; jalr x0 and c.jr through x1 returns: finding E1,
        # docs/etrace-decoder-pseudocode.md)
        self.spec_link_classes = True
        for k, v in kw.items():
            if not hasattr(self, k):
                raise ValueError(f'unknown parameter {k}')
            setattr(self, k, v)


class TeInst:
    """One te_inst packet: its fields as attributes; prev[name] is the bit
    before field name (get_preceding_bit)."""

    def __init__(self, offset):
        self.offset = offset
        self.prev = {}
        self.notify = self.updiscon = self.irreport = 0
        self.irdepth = self.irets = 0

    def __repr__(self):
        return 'te_inst(' + ', '.join(
            f'{k}={v:#x}' if isinstance(v, int) else f'{k}={v}'
            for k, v in vars(self).items() if k != 'prev') + ')'


class Bits:
    """Fields of a sign-compressed payload, least significant bit first;
    bits beyond the payload repeat its last bit (payload.adoc, "Sign
    based compression" in the encapsulation chapter)."""

    def __init__(self, payload, skip=0):
        n = 8 * len(payload)
        v = int.from_bytes(payload, 'little')
        if n and v >> (n - 1):
            v -= 1 << n
        self.v = v
        self.pos = skip

    def get(self, n):
        out = (self.v >> self.pos) & ((1 << n) - 1)
        self.pos += n
        return out


def frames(stream, params):
    """(offset, srcID, payload Bits) for each normal packet."""
    k = 0
    s_bytes, s_rest = divmod(params.srcid_bits, 8)
    while k < len(stream):
        header = stream[k]
        length = header & 0x1f
        if length == 0:             # null.idle / null.alignment
            k += 1
            continue
        at = k
        k += 1
        src = int.from_bytes(stream[k:k + s_bytes], 'little')
        k += s_bytes
        if header >> 7:
            k += params.timestamp_bytes
        payload = stream[k:k + length]
        k += length
        if len(payload) < length:
            return
        bits = Bits(payload)
        if s_rest:
            src |= bits.get(s_rest) << (8 * s_bytes)
        yield at, src, bits


class Options:
    """The options of a support packet: 2.0's ioptions
    (docs/specs/riscv-trace.rst), or the fields of 2.1's Standard Support
    Packet (ssp)."""

    def __init__(self, ioptions=0, ssp=None):
        if ssp is not None:
            for name in SSP_OPTIONS:
                setattr(self, name, bool(getattr(ssp, name)))
            self.implicit_exception = self.implicit_except
            self.full_address = self.full_iaddress
            return
        self.implicit_return = bool(ioptions & 1)
        self.implicit_exception = bool(ioptions & 2)
        self.full_address = bool(ioptions & 4)
        self.jump_target_cache = bool(ioptions & 8)
        self.branch_predictor = bool(ioptions & 16)
        self.sijump = bool(ioptions & 32)
        # R7: protocol 2.0 has no resync_disabled option (2.1's Standard
        # Support Packet has); the as-written-C7 mutation sets it
        self.resync_disabled = False


# extensions.adoc, "Standard Support Packet format": the fields after
# subformat, with their widths
SSP_FIELDS = (('ienable', 1), ('encoder_mode', 2), ('qual_status', 2),
              ('sijump', 1), ('implicit_return', 1), ('branch_predictor', 1),
              ('jump_target_cache', 1), ('implicit_except', 1),
              ('full_iaddress', 1), ('resync_disabled', 1), ('iret_ext', 1),
              ('time_width', 3), ('f0s_width', 2), ('return_stack_size', 3),
              ('call_counter_size', 4), ('bpred_size', 3), ('cache_size', 3),
              ('denable', 1), ('dloss', 1), ('mmacas_ext', 1), ('noaddr', 1),
              ('nodata', 1), ('full_daddress', 1), ('full_data', 1))
SSP_OPTIONS = ('sijump', 'implicit_return', 'branch_predictor',
               'jump_target_cache', 'implicit_except', 'full_iaddress',
               'resync_disabled')


def branch_map_len(branches):
    """payload.adoc, format 1 branches: 1, 3, 7, 15 or 31 bits."""
    for n in (1, 3, 7, 15):
        if branches <= n:
            return n
    return 31


# ---------------------------------------------------------------------------
# Implicit return: the fields and rules of protocol 2.0 and 2.1.

class IretsRules:
    """Protocol 2.1 (extensions.adoc, Implicit Return v0.8): the
    pseudo-code as written (dec:425, dec:461-463)."""
    field = 'irets'
    # a return that is not implicit is popped too (dec:200-202)
    unpop_failed = False

    @staticmethod
    def width(params):
        return 8

    @staticmethod
    def is_reported_return(d, address, te_inst):
        # dec:425
        return d.flag_irreport(te_inst) and \
            not d.unprocessed_branches(address) and \
            te_inst.irets == d.irets - 1

    @staticmethod
    def unprocessed_implicit_returns(d, te_inst):
        # dec:461-463
        return d.irstack_depth > 0 and d.flag_irreport(te_inst) and \
            te_inst.irets > d.irets


class IrDepthRules:
    """Protocol 2.0 (payload.adoc irdepth; R8): the return a packet with
    irreport reports is the one at which the stack held irdepth entries
    (ratified decoder.adoc 2.0, is_implicit_return); the packet's address
    is reached when the stack holds irdepth entries (2.0, the stop rule
    at an inferred address)."""
    field = 'irdepth'
    # R8: a return taken as the reported (failed) one is not popped
    unpop_failed = True

    @staticmethod
    def width(params):
        # payload.adoc: return_stack_size_p + (return_stack_size_p > 0)
        #               + call_counter_size_p
        return params.return_stack_size + \
            (1 if params.return_stack_size > 0 else 0) + \
            params.call_counter_size

    @staticmethod
    def is_reported_return(d, address, te_inst):
        return d.flag_irreport(te_inst) and \
            not d.unprocessed_branches(address) and \
            te_inst.irdepth == d.depth_at_return

    @staticmethod
    def unprocessed_implicit_returns(d, te_inst):
        return d.flag_irreport(te_inst) and \
            te_inst.irdepth != d.irstack_depth


# ---------------------------------------------------------------------------
# The decoder (decoder.adoc 2.0.5).

class StackEntry:
    __slots__ = ('link', 'count')

    def __init__(self, link=0, count=0):
        self.link = link
        self.count = count


class SpecDecoder:
    MAX_STEPS = 5_000_000

    def __init__(self, images, params, mutations=()):
        self.images = images
        # 2.1 streams change it (ssp_discovery())
        self.discovery = copy.copy(params)
        self.mut = set(mutations)
        Instr.as_written = 'as-written-C4' in self.mut
        self.ir = IretsRules if params.protocol == '2.1' else IrDepthRules
        # dec:9-32, global variables
        self.pc = None
        self.last_pc = None
        self.branches = 0
        self.branch_map = 0
        self.stop_at_last_branch = False
        self.inferred_address = False
        self.start_of_trace = True
        self.address = 0
        self.privilege = None
        self.poss_next_epc = 0
        self.pne_valid = False
        self.options = Options()
        self.return_stack = [StackEntry() for _ in range(
            self.irstack_depth_max())]
        self.irstack_depth = 0
        self.irets = 0
        self.popped_return_target = None
        self.prt_valid = False
        self.bpred = [[False, True] for _ in range(1 << params.bpred_size)]
        self.use_bpred = False
        self.cache = [None] * (1 << params.cache_size)
        self.previous_te_inst = None
        # the model's own state
        self.depth_at_return = 0    # R8: stack depth before the pop
        self.popped_entry = None    # R8: to undo a failed return's pop
        self.after_thaddr0 = False  # R10
        self.out = []
        self.steps = 0

    # -- reporting (dec:542-555: "user to populate") ----------------------

    def report_pc(self, address):
        self.out.append(['pc', address, self.privilege])

    def report_trap(self, te_inst):
        item = {'interrupt': te_inst.interrupt, 'ecause': te_inst.ecause,
                'tval': getattr(te_inst, 'tval', None), 'epc': None}
        self.out.append(['trap', item])

    def report_epc(self, address):
        self.out[-1][1]['epc'] = address

    def get_instr(self, address):
        return self.images.get_instr(address)

    # -- dec:34-105 --------------------------------------------------------

    def process_te_inst(self, te_inst):
        self.use_bpred = False                                  # dec:36
        self.irets = 0                                          # dec:37
        # C11: the return at which following stopped was popped on
        # reaching it (dec:200-202), and counts, as dec:119 counts it
        if te_inst.format != 3 and self.prt_valid and \
                'as-written-C11' not in self.mut:
            self.irets = 1
        lsb = self.discovery.iaddress_lsb
        if te_inst.format == 3:                                 # dec:38
            if te_inst.subformat == 3:                          # dec:39-41
                self.process_support(te_inst)
                return
            if te_inst.subformat == 2:                          # dec:42-43
                return
            if te_inst.subformat == 1:                          # dec:44-49
                self.report_trap(te_inst)
                if not te_inst.interrupt:
                    self.report_epc(self.exception_address(te_inst))
                if not te_inst.thaddr:
                    self.after_thaddr0 = 'as-written-R10' not in self.mut
                    return

            self.inferred_address = False                       # dec:51
            self.pne_valid = False                              # dec:52
            self.address = (te_inst.address << lsb) & MASK64    # dec:53
            if te_inst.subformat == 1 or self.start_of_trace:   # dec:54-56
                self.branches = 0
                self.branch_map = 0
            if self.is_branch(self.get_instr(self.address)):    # dec:57-59
                self.branch_map |= te_inst.branch << self.branches
                self.branches += 1
            # dec:60-65; R10: after a trap packet with thaddr = 0, nothing
            # retires before the handler this packet reports
            if te_inst.subformat == 0 and not self.start_of_trace and \
                    not self.after_thaddr0:
                self.follow_execution_path(self.address, te_inst)
            else:
                self.pc = self.address
                self.report_pc(self.pc)
                self.last_pc = self.pc
            self.after_thaddr0 = False
            # the reported instruction is in the packet's privilege
            # (payload.adoc, format 3 privilege: "of the reported
            # instruction")
            if self.out and self.out[-1][0] == 'pc' and \
                    self.out[-1][1] == self.pc:
                self.out[-1][2] = te_inst.privilege
            # dec:66-69; C7: at every synchronisation packet
            if self.start_of_trace or not self.options.resync_disabled or \
                    'as-written-C7' not in self.mut:
                self.irstack_depth = 0
                self.return_stack[0].count = 0
                # C12: nothing popped is left to return to
                if 'as-written-C12' not in self.mut:
                    self.prt_valid = False
                self.bpred_init()
                if 'no-cache-flush' not in self.mut:
                    self.cache_init()                           # C9
            # dec:70-71 (R1: the closing parenthesis after subformat == 1)
            if (self.start_of_trace or not self.options.resync_disabled or
                    te_inst.subformat == 1) and \
                    self.is_call(self.get_instr(self.pc)):
                self.push_return_stack(self.pc)
            self.privilege = te_inst.privilege                  # dec:72
            self.start_of_trace = False                         # dec:73
            return

        # dec:75-105, not format 3
        if self.start_of_trace:                                 # dec:76-78
            raise Abort('Expecting trace to start with format 3')
        # C5: a cache index is looked up once the path to the address
        # last reported (an inferred one) has been followed
        deferred = self.includes_cache_index(te_inst) and \
            not self.includes_address(te_inst) and self.inferred_address \
            and 'as-written-C5' not in self.mut
        if self.includes_address(te_inst):                      # dec:79-84
            if self.options.full_address:
                self.address = (te_inst.address << lsb) & MASK64
            else:
                self.address = (self.address +
                                (te_inst.address << lsb)) & MASK64
            self.stop_at_last_branch = \
                self.is_branch(self.get_instr(self.address))
        elif self.includes_cache_index(te_inst) and not deferred:
            self.address = self.cache_lookup(te_inst.index)     # dec:85-87
            self.stop_at_last_branch = \
                self.is_branch(self.get_instr(self.address))
        elif deferred:
            self.stop_at_last_branch = False
        if self.includes_bpred_count(te_inst):                  # dec:88-94
            self.use_bpred = self.branches == 0
            # C6: dec:90 keeps dec:84's decision when there is an address
            if te_inst.branch_fmt == 0 or 'as-written-C6' in self.mut:
                self.stop_at_last_branch = te_inst.branch_fmt == 0
            self.branches += te_inst.branch_count + 31
            if self.is_failed_bpred(te_inst):
                self.branches += 1
        elif self.includes_branch_map(te_inst):                 # dec:95-102
            self.stop_at_last_branch = self.stop_at_last_branch or \
                te_inst.branches == 0
            self.branch_map |= te_inst.branch_map << self.branches
            if te_inst.branches == 0:
                self.branches += 31
            else:
                self.branches += te_inst.branches

        if deferred:                                            # C5
            self.follow_inferred()
            self.address = self.cache_lookup(te_inst.index)
            self.stop_at_last_branch = \
                self.is_branch(self.get_instr(self.address))
        self.follow_execution_path(self.address, te_inst)       # dec:104

    # -- dec:107-156 -------------------------------------------------------

    def step(self):
        self.steps += 1
        if self.steps > self.MAX_STEPS:
            raise Abort('no stop found')

    def follow_inferred(self):
        """dec:114-119 on their own: follow the path from the inferred
        address to the uninferable discontinuity that led back to it."""
        previous_address = self.pc
        while self.inferred_address:
            self.step()
            stop_here = self.next_pc(previous_address,
                                     self.previous_te_inst)
            self.report_pc(self.pc)
            if stop_here:
                self.inferred_address = False
                self.irets = 1 if self.prt_valid else 0

    def follow_execution_path(self, address, te_inst):
        self.steps = 0
        previous_address = self.pc                              # dec:110
        unproc_ir = False
        while True:                                             # dec:113
            self.step()
            if self.inferred_address:                           # dec:114-119
                stop_here = self.next_pc(previous_address,
                                         self.previous_te_inst)
                self.report_pc(self.pc)
                if stop_here:
                    self.inferred_address = False
                    self.irets = 1 if self.prt_valid else 0
                continue
            # dec:121-124 (R2: the closing parenthesis of line 123)
            unproc_ir = self.ir.unprocessed_implicit_returns(self, te_inst)
            stop_here = self.next_pc(address, te_inst)
            if not self.is_call(self.get_instr(address)):
                unproc_ir = self.ir.unprocessed_implicit_returns(self,
                                                                 te_inst)
            self.report_pc(self.pc)                             # dec:125
            if self.branches == 1 and \
                    self.is_branch(self.get_instr(self.pc)) and \
                    self.stop_at_last_branch:                   # dec:126-133
                # C6: the outcome of a predicted final branch is kept in
                # branch_map[0] (1: not taken), whether it met the
                # prediction (branch_fmt 2) or not (0, 3)
                if 'as-written-C6' in self.mut:
                    if self.is_failed_bpred(te_inst):
                        self.branch_map = (self.branch_map & ~1) | \
                            int(self.bpred_taken(self.pc, te_inst))
                elif self.use_bpred:
                    taken = self.bpred_taken(self.pc, te_inst)
                    self.branch_map = (self.branch_map & ~1) | \
                        (0 if taken else 1)
                self.stop_at_last_branch = False
                return
            if stop_here:                                       # dec:134-139
                if self.unprocessed_branches(self.pc):
                    raise Abort('unprocessed branches')
                return
            if not self.stop_at_last_branch and self.pc == address and \
                    self.flag_notify(te_inst) and \
                    not self.unprocessed_branches(self.pc) and \
                    not unproc_ir:                              # dec:140-144
                return
            # dec:145-152 (R3: the parenthesis after get_instr(last_pc))
            if not self.stop_at_last_branch and self.pc == address and \
                    not self.is_uninferable_discon(
                        self.get_instr(self.last_pc)) and \
                    not self.unprocessed_branches(self.pc) and \
                    not unproc_ir and not self.flag_updiscon(te_inst) and \
                    te_inst.format != 3:
                self.previous_te_inst = te_inst
                self.inferred_address = True
                return
            if te_inst.format == 3 and self.pc == address and \
                    not self.unprocessed_branches(self.pc) and \
                    (te_inst.privilege == self.privilege or
                     self.is_return_from_trap(
                         self.get_instr(self.last_pc))):        # dec:153-156
                return

    # -- dec:158-206 -------------------------------------------------------

    def next_pc(self, address, te_inst):
        instr = self.get_instr(self.pc)                         # dec:161
        this_pc = self.pc
        stop_here = False
        exception = te_inst.format == 3 and te_inst.subformat == 1

        if self.is_inferrable_jump(instr):                      # dec:166-167
            if instr.opcode == 'JALR' and \
                    'jalr-x0-relative' not in self.mut:
                self.pc = instr.imm & MASK64                    # C3
            else:
                self.pc = (self.pc + instr.imm) & MASK64
        elif self.is_sequential_jump(instr, self.last_pc):      # dec:168-169
            self.pc = self.sequential_jump_target(self.pc, self.last_pc)
        elif self.is_implicit_return(address, instr, te_inst):  # dec:170-176
            self.pc = self.popped_return_target
            # C8: an inferable return target is not cached (dec:173), and
            # so no cache index reports it (dec:174-176)
            if 'as-written-C8' in self.mut and not exception:
                self.cache_update(self.pc)
                if self.includes_cache_index(te_inst) and \
                        te_inst.index == self.get_index(self.pc, 'cache'):
                    address = self.pc
                    self.stop_at_last_branch = \
                        self.is_branch(self.get_instr(address))
        elif self.is_uninferable_discon(instr):                 # dec:178-188
            # R4: is_branch() of the instruction at address
            if self.stop_at_last_branch and \
                    not self.is_branch(self.get_instr(address)):
                raise Abort('unexpected uninferable discontinuity')
            self.pc = address
            if not exception:
                # C13: "correctly predicted" needs a prediction: with
                # the stack empty, popped_return_target is a stale one
                if not self.flag_irreport(te_inst) or \
                        address != self.popped_return_target or \
                        (not self.prt_valid and
                         'as-written-C13' not in self.mut):
                    self.cache_update(self.pc)
            stop_here = True
        elif self.is_branch(instr):                             # dec:189-192
            if not exception:
                self.irets = 0
            taken = self.is_taken_branch(self.pc, te_inst)
            self.pc = (self.pc + (instr.imm if taken else instr.size)) \
                & MASK64
        else:                                                   # dec:193-194
            self.pc = (self.pc + instr.size) & MASK64

        if not exception:                                       # dec:196-202
            if self.is_call(self.get_instr(self.pc)):
                self.push_return_stack(self.pc)
            self.prt_valid = False
            self.depth_at_return = self.irstack_depth           # R8
            if self.is_return(self.get_instr(self.pc)) and \
                    self.irstack_depth > 0:
                top = self.return_stack[self.irstack_depth - 1]
                self.popped_entry = (self.irstack_depth,
                                     StackEntry(top.link, top.count))
                self.popped_return_target = self.pop_return_stack()
                self.prt_valid = True

        self.last_pc = this_pc                                  # dec:204
        return stop_here

    # -- dec:208-227 -------------------------------------------------------

    def process_support(self, te_inst):
        if self.discovery.protocol == '2.1':
            self.options = Options(ssp=te_inst)                 # dec:213
            self.ssp_discovery(te_inst)
        else:
            self.options = Options(te_inst.ioptions)            # dec:213
            self.options.resync_disabled = 'as-written-C7' in self.mut
        self.pne_valid = False
        if te_inst.qual_status != 0:                            # no_change
            self.start_of_trace = True
        if te_inst.qual_status == 3 and self.inferred_address:  # ended_ntr
            previous_address = self.pc
            self.inferred_address = False
            self.steps = 0
            while True:
                self.step()
                stop_here = self.next_pc(previous_address,
                                         self.previous_te_inst)
                self.report_pc(self.pc)
                if stop_here:
                    return

    def ssp_discovery(self, te_inst):
        """2.1: the parameters come with the Standard Support Packet
        (extensions.adoc); the structures they size start afresh when
        they change."""
        d = self.discovery
        if te_inst.encoder_mode != 0:
            raise Abort(f'encoder_mode {te_inst.encoder_mode}: not branch '
                        'trace')
        new = {'time_width': 16 * te_inst.time_width,
               'f0s_width': te_inst.f0s_width,
               'return_stack_size': te_inst.return_stack_size,
               'call_counter_size': te_inst.call_counter_size,
               'bpred_size': te_inst.bpred_size,
               'cache_size': te_inst.cache_size}
        if all(getattr(d, k) == v for k, v in new.items()):
            return
        for k, v in new.items():
            setattr(d, k, v)
        self.return_stack = [StackEntry() for _ in range(
            self.irstack_depth_max())]
        self.irstack_depth = 0
        self.bpred = [[False, True] for _ in range(1 << d.bpred_size)]
        self.cache_init()

    # -- dec:229-279 -------------------------------------------------------

    def includes_address(self, te_inst):
        return te_inst.format == 2 or \
            (te_inst.format == 1 and te_inst.branches != 0) or \
            (self.includes_bpred_count(te_inst) and te_inst.branch_fmt != 0)

    def includes_branch_map(self, te_inst):
        return te_inst.format == 1 or \
            (self.includes_cache_index(te_inst) and te_inst.branches > 0)

    def includes_bpred_count(self, te_inst):
        return te_inst.format == 0 and self.options.branch_predictor and \
            (not self.includes_f0sub(te_inst) or te_inst.subformat == 0)

    def includes_cache_index(self, te_inst):
        return te_inst.format == 0 and self.options.jump_target_cache and \
            (not self.includes_f0sub(te_inst) or te_inst.subformat ==
             (0 if self.discovery.bpred_size == 0 else 1))

    def includes_f0sub(self, te_inst):
        return not (te_inst.format != 0 or self.f0subformats() < 2)

    def f0subformats(self):
        return (1 if self.discovery.bpred_size > 0 else 0) + \
            (1 if self.discovery.cache_size > 0 else 0)

    # -- dec:281-300 -------------------------------------------------------

    def is_taken_branch(self, address, te_inst):
        if self.branches == 0:
            raise Abort('cannot resolve branch')
        if self.use_bpred:
            taken = self.bpred_taken(address, te_inst)
        else:
            taken = not (self.branch_map & 1)
            if 'as-written-C2' not in self.mut:
                self.branch_map >>= 1                           # C2 (dec:295)
            self.use_bpred = self.includes_bpred_count(te_inst)
        self.bpred_update(address, taken)
        self.branches -= 1
        return taken

    # -- dec:302-416: instruction classes ---------------------------------

    @staticmethod
    def is_branch(instr):
        return instr.opcode in ('BEQ', 'BNE', 'BLT', 'BGE', 'BLTU', 'BGEU',
                                'C.BEQZ', 'C.BNEZ')

    def is_failed_bpred(self, te_inst):
        return self.includes_bpred_count(te_inst) and \
            te_inst.branch_fmt in (0, 3)

    @staticmethod
    def is_inferrable_jump(instr):
        return instr.opcode in ('JAL', 'C.JAL', 'C.J') or \
            (instr.opcode == 'JALR' and instr.rs1 == 0)

    @staticmethod
    def is_uninferable_jump(instr):
        # C4: cm.popret(z), cm.jt and cm.jalt jump to a register or a
        # table entry: uninferable
        return (instr.opcode == 'JALR' and instr.rs1 != 0) or \
            instr.opcode in ('C.JALR', 'C.JR') or \
            (instr.opcode in ('CM.POPRET', 'CM.POPRETZ', 'CM.JT',
                              'CM.JALT') and not instr.as_written)

    @staticmethod
    def is_return_from_trap(instr):
        # C4: mnret (Smrnmi) and dret return from a trap too
        return instr.opcode in ('SRET', 'MRET') or \
            (instr.opcode in ('MNRET', 'DRET') and not instr.as_written)

    def is_uninferable_discon(self, instr):
        return self.is_uninferable_jump(instr) or \
            self.is_return_from_trap(instr) or \
            instr.opcode in ('ECALL', 'EBREAK', 'C.EBREAK')

    def is_sequential_jump(self, instr, prev_addr):
        if not (self.is_uninferable_jump(instr) and self.options.sijump):
            return False
        if instr.rs1 is None or instr.opcode.startswith('CM.'):
            return False
        prev_instr = self.get_instr(prev_addr)
        if prev_instr.opcode in ('AUIPC', 'LUI', 'C.LUI'):
            return instr.rs1 == prev_instr.rd
        return False

    def sequential_jump_target(self, addr, prev_addr):
        instr = self.get_instr(addr)
        prev_instr = self.get_instr(prev_addr)
        target = 0
        if prev_instr.opcode == 'AUIPC':
            target = prev_addr
        target += prev_instr.imm
        if instr.opcode == 'JALR':
            target += instr.imm
        return target & MASK64

    def is_call(self, instr):
        op = instr.opcode
        if not self.discovery.spec_link_classes:   # E1: the encoder's
            return (op in ('JALR', 'JAL') and instr.rd == 1) or \
                op in ('C.JALR', 'C.JAL')
        return (op == 'JALR' and instr.rd == 1 and instr.rs1 != 5) or \
            (op == 'JALR' and instr.rd == 5 and instr.rs1 != 1) or \
            (op == 'C.JALR' and instr.rs1 != 5) or \
            (op == 'JAL' and instr.rd in (1, 5)) or \
            op == 'C.JAL' or op == 'CM.JALT'

    def is_return(self, instr):
        op = instr.opcode
        if not self.discovery.spec_link_classes:   # E1: the encoder's
            return (op == 'JALR' and instr.rs1 == 1 and instr.rd == 0) or \
                (op == 'C.JR' and instr.rs1 == 1)
        return (op == 'JALR' and instr.rs1 in (1, 5) and
                instr.rd not in (1, 5)) or \
            (op == 'C.JR' and instr.rs1 in (1, 5)) or \
            op in ('CM.POPRET', 'CM.POPRETZ')

    def is_implicit_return(self, address, instr, te_inst):
        if not self.options.implicit_return:                    # dec:421
            return False
        if self.is_return(instr):
            if self.ir.is_reported_return(self, address, te_inst):
                # R8 (2.0): a return that failed the prediction does not pop
                if self.prt_valid and self.ir.unpop_failed and \
                        'ir-pops-failed' not in self.mut:
                    depth, entry = self.popped_entry
                    self.irstack_depth = depth
                    self.return_stack[depth - 1] = entry
                    self.irets -= 1
                    self.prt_valid = False
                return False
            return self.prt_valid
        return False

    # -- dec:431-463: flags ------------------------------------------------

    def flag_notify(self, te_inst):
        if te_inst.format == 3 or not self.includes_address(te_inst):
            return False
        return te_inst.notify != te_inst.prev['notify']

    def flag_updiscon(self, te_inst):
        if te_inst.format == 3 or not self.includes_address(te_inst):
            return False
        return te_inst.updiscon != te_inst.prev['updiscon']

    def flag_irreport(self, te_inst):
        if te_inst.format == 3 or not (self.includes_address(te_inst) or
                                       self.includes_cache_index(te_inst)):
            return False
        return te_inst.irreport != te_inst.prev['irreport']

    def unprocessed_branches(self, address):
        return self.branches != \
            (1 if self.is_branch(self.get_instr(address)) else 0)

    # -- dec:465-515: return stack ----------------------------------------

    def irstack_depth_max(self):
        d = self.discovery
        return 2 ** d.return_stack_size if d.return_stack_size else \
            2 ** d.call_counter_size

    def push_return_stack(self, address):
        if not self.options.implicit_return:
            return
        d = self.discovery
        irstack_depth_max = self.irstack_depth_max()
        call_counter_max = 2 ** d.call_counter_size - 1 \
            if d.return_stack_size else 0
        instr = self.get_instr(address)
        link = (address + instr.size) & MASK64
        if self.irstack_depth > 0 and \
                self.return_stack[self.irstack_depth - 1].link == link and \
                self.return_stack[self.irstack_depth - 1].count != \
                call_counter_max:
            self.return_stack[self.irstack_depth - 1].count += 1
        else:
            if self.irstack_depth == irstack_depth_max:
                if 'stack-full-no-push' in self.mut:
                    return
                self.irstack_depth -= 1
                for i in range(self.irstack_depth):
                    self.return_stack[i] = self.return_stack[i + 1]
                self.return_stack[self.irstack_depth] = StackEntry()
            self.return_stack[self.irstack_depth].link = link
            self.return_stack[self.irstack_depth].count = 0
            self.irstack_depth += 1

    def pop_return_stack(self):
        link = self.peek_return_stack()
        if self.return_stack[self.irstack_depth - 1].count > 0:
            self.return_stack[self.irstack_depth - 1].count -= 1
        else:
            self.irstack_depth -= 1
        self.irets += 1
        return link

    def peek_return_stack(self):
        return self.return_stack[self.irstack_depth - 1].link

    # -- dec:517-540 -------------------------------------------------------

    def exception_address(self, te_inst):
        lsb = self.discovery.iaddress_lsb
        instr = self.get_instr(self.pc) if self.pc is not None else None
        epc = self.poss_next_epc
        # C1: ecall, ebreak and c.ebreak retire (their own address is the
        # EPC, dec:536): they are not the uninferable discontinuity whose
        # target faults
        if self.start_of_trace or (
                self.is_uninferable_discon(instr) and
                (instr.opcode not in ('ECALL', 'EBREAK', 'C.EBREAK') or
                 'as-written-C1' in self.mut)):
            if not te_inst.thaddr:
                return (te_inst.address << lsb) & MASK64
            # C10: the target of a return the stack predicts is inferable;
            # the encoder reports the handler (thaddr = 1), the EPC follows
            if not (self.options.implicit_return and self.prt_valid and
                    self.is_return(instr)) or 'as-written-C10' in self.mut:
                raise Abort('Expecting EPC address in te_inst')
        self.poss_next_epc = (te_inst.address << lsb) & MASK64
        if self.pne_valid:
            self.pne_valid = not te_inst.thaddr
            return epc
        self.pne_valid = not te_inst.thaddr
        if instr.opcode in ('ECALL', 'EBREAK', 'C.EBREAK'):
            return self.pc
        self.next_pc(self.pc, te_inst)
        return self.pc

    # -- dec:557-631: predictor and cache ----------------------------------

    def bpred_init(self):
        if self.discovery.bpred_size == 0:
            return
        init = 'bpred-init-taken' in self.mut
        for entry in self.bpred:
            entry[1] = init
            entry[0] = True

    def bpred_update(self, address, taken):
        if not self.options.branch_predictor:
            return
        entry = self.bpred[self.get_index(address, 'bpred')]
        if entry[1] != entry[0]:
            entry[1] = taken
        entry[0] = taken

    def bpred_taken(self, address, te_inst):
        if not self.options.branch_predictor:
            raise Abort("Can't predict branch outcome when branch "
                        "predictor disabled")
        taken = self.bpred[self.get_index(address, 'bpred')][1]
        # C6: the final branch of branch_fmt 0 failed too (dec:596-598)
        if 'as-written-C6' in self.mut:
            if self.branches == 1 and te_inst.branch_fmt == 3:
                taken = not taken
        elif self.branches == 1 and self.is_failed_bpred(te_inst):
            taken = not taken
        return taken

    def cache_init(self):
        """C9: the cache is emptied at a synchronisation packet."""
        self.cache = [None] * (1 << self.discovery.cache_size)

    def cache_update(self, address):
        if self.options.jump_target_cache:
            index = self.get_index(address, 'cache')
            if 'cache-never-replace' in self.mut and \
                    self.cache[index] is not None:
                return
            self.cache[index] = address

    def cache_lookup(self, index):
        if not self.options.jump_target_cache:
            raise Abort("Can't look up cache index when cache is disabled")
        if self.cache[index] is None:
            raise Abort(f'jump target cache entry {index} is empty')
        return self.cache[index]

    def get_index(self, address, kind):
        size = self.discovery.bpred_size if kind == 'bpred' else \
            self.discovery.cache_size
        return (address >> self.discovery.iaddress_lsb) & ((1 << size) - 1)

    # -- packet fields (payload.adoc) --------------------------------------

    def parse(self, bits, offset):
        d = self.discovery
        t = TeInst(offset)
        aw = d.iaddress_width - d.iaddress_lsb
        irw = self.ir.width(d)

        def address_and_flags():
            t.address = bits.get(aw)
            t.prev['notify'] = t.address >> (aw - 1)
            t.notify = bits.get(1)
            t.prev['updiscon'] = t.notify
            t.updiscon = bits.get(1)
            t.prev['irreport'] = t.updiscon
            t.irreport = bits.get(1)
            setattr(t, self.ir.field, bits.get(irw))

        t.format = bits.get(2)
        if t.format == 3:
            t.subformat = bits.get(2)
            if t.subformat == 3 and d.protocol == '2.1':
                for name, width in SSP_FIELDS:
                    setattr(t, name, bits.get(width))
            elif t.subformat == 3:
                t.ienable = bits.get(1)
                t.encoder_mode = bits.get(d.encoder_mode_width)
                t.qual_status = bits.get(2)
                t.ioptions = bits.get(d.ioptions_width)
                t.denable = bits.get(1)
                t.dloss = bits.get(1)
                t.doptions = bits.get(d.doptions_width)
            elif t.subformat == 2:
                t.privilege = bits.get(d.privilege_width)
                t.time = bits.get(d.time_width)
                t.context = bits.get(d.context_width)
            else:
                t.branch = bits.get(1)
                t.privilege = bits.get(d.privilege_width)
                t.time = bits.get(d.time_width)
                t.context = bits.get(d.context_width)
                t.interrupt = t.thaddr = 0
                if t.subformat == 1:
                    t.ecause = bits.get(d.ecause_width)
                    t.interrupt = bits.get(1)
                    t.thaddr = bits.get(1)
                t.address = bits.get(aw)
                if t.subformat == 1 and not t.interrupt:
                    t.tval = bits.get(d.iaddress_width)
        elif t.format == 2:
            address_and_flags()
        elif t.format == 1:
            t.branches = bits.get(5)
            n = branch_map_len(t.branches) if t.branches else 31
            t.branch_map = bits.get(n)
            if t.branches:
                address_and_flags()
        else:
            if self.includes_f0sub(t):
                t.subformat = bits.get(d.f0s_width)
            else:           # inferred from the options (payload.adoc f0s)
                t.subformat = 0 if self.options.branch_predictor else 1
            if t.subformat == 0:
                t.branch_count = bits.get(32)
                t.branch_fmt = bits.get(2)
                if t.branch_fmt:
                    address_and_flags()
            else:
                t.index = bits.get(d.cache_size)
                t.branches = bits.get(5)
                if t.branches:
                    n = branch_map_len(t.branches)
                    t.branch_map = bits.get(n)
                    t.prev['irreport'] = t.branch_map >> (n - 1)
                else:
                    t.branch_map = 0
                    t.prev['irreport'] = t.branches >> 4
                t.irreport = bits.get(1)
                setattr(t, self.ir.field, bits.get(irw))
        return t


def decode(stream, images, params=None, mutations=(), log=None):
    """Decode @stream (bytes); returns {srcID: [items]} with items
    ['pc', address, privilege], ['trap', {...}], ['gap', reason] or
    ['abort', reason, te_inst]."""
    params = params or Params()
    decoders = {}
    for offset, src, bits in frames(stream, params):
        dec = decoders.get(src)
        if dec is None:
            dec = decoders[src] = SpecDecoder(images, params, mutations)
            dec.waiting = False
        te_inst = dec.parse(bits, offset)
        if dec.waiting and te_inst.format != 3:
            continue            # after a gap: up to the next format 3
        dec.waiting = False
        try:
            dec.process_te_inst(te_inst)
        except Gap as e:
            dec.out.append(['gap', str(e)])
            dec.start_of_trace = True
            dec.inferred_address = False
            dec.waiting = True
        except Abort as e:
            dec.out.append(['abort', str(e), te_inst])
            dec.start_of_trace = True
            dec.inferred_address = False
            dec.waiting = True
        if log:
            log(src, te_inst, dec)
    return {src: d.out for src, d in decoders.items()}
