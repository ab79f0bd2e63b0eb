# SPDX-License-Identifier: GPL-2.0-or-later
"""A guest program as binutils (riscv64-linux-gnu-*) sees it, for tests
that check the decoder against something that shares no code with it."""

import re
import subprocess

INSN = re.compile(r'^\s*([0-9a-f]+):\s+([0-9a-f]{4}|[0-9a-f]{8})\s', re.M)


def listing(elf, objdump='riscv64-linux-gnu-objdump'):
    """[(pc, size, encoding)] of every instruction objdump -d lists."""
    out = subprocess.run([objdump, '-d', elf], capture_output=True,
                         text=True, check=True).stdout
    return [(int(m.group(1), 16), len(m.group(2)) // 2, int(m.group(2), 16))
            for m in INSN.finditer(out)]
