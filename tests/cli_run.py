# SPDX-License-Identifier: GPL-2.0-only
"""What the CLI tests share: run the dmasim given on the command line,
print one line per check, exit 1 if any failed."""
import subprocess
import sys

DMASIM = sys.argv[1]
failures = 0


def run(*args, timeout=120):
    """dmasim with these arguments: the CompletedProcess (text).  The
    timeout only stops a hung run: a long scenario passes its own, and
    meson's per-test timeout is the one that judges."""
    return subprocess.run([DMASIM, *args], capture_output=True, text=True,
                          timeout=timeout)


def check(cond, what):
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures += 1


def finish():
    sys.exit(1 if failures else 0)
