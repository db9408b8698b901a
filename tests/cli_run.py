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


def page_geometry():
    """(PAGE, PMD, PUD) in bytes of the build under test, from the
    page_size `dmasim heap --json` reports: a table holds PAGE / 8 entries."""
    import json
    p = run("heap", "--ram", "64M", "--size", "1", "--json")
    page = json.loads(p.stdout)["page_size"]
    pmd = page * (page // 8)
    return page, pmd, pmd * (page // 8)


def size_name(n):
    """n bytes as the CLI spells sizes: 4K, 2M, 1G, 4T (n a power-of-two multiple)."""
    for suffix, shift in (("T", 40), ("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{suffix}"
    return str(n)
