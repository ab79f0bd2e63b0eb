# SPDX-License-Identifier: GPL-2.0-or-later
"""What the guest programs print on the serial console (tests/tcg/riscv64
runtime), as regular expressions.

PASS / SKIP     on text: the runtime's last line "PASS: N checks, 0
                failed, exit code 0" (N captured), a line starting with
                SKIP;
PASS_BYTES, RESULT, READY
                on the bytes a QMP Machine collects: the PASS line, the
                first PASS or FAIL line, and test-ctr-migrate's "READY
                loop LO HI [xR N]" before its long loop.
"""

import re

PASS = re.compile(r'^PASS: (\d+) checks, 0 failed, exit code 0$', re.M)
SKIP = re.compile(r'^SKIP\b.*$', re.M)
PASS_BYTES = re.compile(rb'^PASS: \d+ checks, 0 failed, exit code 0\r?$',
                        re.M)
RESULT = re.compile(rb'^(PASS|FAIL)\b', re.M)
READY = re.compile(rb'READY loop (0x[0-9a-fA-F]+) (0x[0-9a-fA-F]+)'
                   rb'(?: x(\d+) (\d+))?\r?\n')
