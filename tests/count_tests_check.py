#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/count-tests.sh on a sample meson test log: cmocka cases that
pass, fail, skip, and skip after a known bug's XFAIL line; a known bug
whose case goes on and passes; a whole test meson reports skipped (exit
77); a test that is not cmocka.  The counts and the xfail names it prints
are checked, and the running total it keeps."""
import json
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(TOP, "tools", "count-tests.sh")

# What a cmocka 1.1 program prints (stdout): cases a (passes), b (XFAIL,
# then skip()), c (skip()), d (fails), e (XFAIL, goes on, passes).
CMOCKA = """[==========] Running 5 test(s).
[ RUN      ] a
[       OK ] a
[ RUN      ] b
XFAIL some-bug (x.c:1): what (impl core)
[  SKIPPED ] b
[ RUN      ] c
[  SKIPPED ] c
[ RUN      ] d
[  FAILED  ] d
[ RUN      ] e
XFAIL other-bug (x.c:9): what (impl core)
[       OK ] e
[==========] 5 test(s) run.
[  PASSED  ] 2 test(s).
[  SKIPPED ] 2 test(s), listed below:
[  SKIPPED ] b
[  SKIPPED ] c

 2 SKIPPED TEST(S)
[  FAILED  ] 1 test(s), listed below:
[  FAILED  ] d

 1 FAILED TEST(S)
"""
# A program whose every case passes, one of them skipped plainly.
CMOCKA_SKIP_ONLY = """[==========] Running 2 test(s).
[ RUN      ] f
[  SKIPPED ] f
[ RUN      ] g
[       OK ] g
[==========] 2 test(s) run.
[  PASSED  ] 1 test(s).
[  SKIPPED ] 1 test(s), listed below:
[  SKIPPED ] f

 1 SKIPPED TEST(S)
"""

TESTS = [
    {"name": "mixed", "result": "FAIL", "stdout": CMOCKA,
     "stderr": "ERROR: boom\n"},
    {"name": "skip_only", "result": "OK", "stdout": CMOCKA_SKIP_ONLY},
    {"name": "kbuild", "result": "SKIP", "stdout": "kbuild: cannot check\n"},
    {"name": "checkpatch", "result": "OK", "stdout": "checkpatch: fine\n"},
]


def run(log, totals, *args):
    # The script's python3 is the one running this check, first on PATH:
    # no version-manager shim in front of it (pyenv's made each of the two
    # runs 0.07 s of wall time longer, most of this check's).
    env = dict(os.environ, DMASIM_TEST_TOTALS=totals,
               PATH=os.pathsep.join([os.path.dirname(sys.executable),
                                     os.environ.get("PATH", "")]))
    return subprocess.run([SCRIPT, *args] if args[0] == "--total"
                          else [SCRIPT, log, *args],
                          env=env, capture_output=True, text=True)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "testlog.json")
        totals = os.path.join(tmp, "totals")
        with open(log, "w", encoding="utf-8") as f:
            for t in TESTS:
                f.write(json.dumps(t) + "\n")
        r = run(log, totals, "sample")
        want = ("sample: 4 passed, 1 failed, 3 skipped, 2 xfail, 0 xpass\n"
                "sample: expected failures (known kernel bugs): "
                "other-bug, some-bug\n")
        if r.stdout != want:
            sys.exit(f"count-tests.sh printed\n{r.stdout}{r.stderr}"
                     f"want\n{want}")
        r = run(log, totals, "--total")
        if r.stdout != "4 passed, 1 failed\n" or r.returncode == 0:
            sys.exit(f"--total printed {r.stdout!r}, exit {r.returncode}")
    print("count-tests.sh: sample log counted as expected")


main()
