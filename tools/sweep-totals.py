#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Totals of the fail-nth sweeps and bad-input tables of one test run.

Reads a meson testlog.json and adds up what the tests printed:
  "<scenario>: P points, R runs, L leaks[, H choice hits, C choice runs]
   [, E expected upstream leaks]"
      (tests/sweep.c, one line per swept scenario; R fail-nth runs, C
      choose-nth runs; older logs have no choice fields)
  "bad inputs tried: N"
      (tests/bad_input.c, one line per executable that ran the tables)
Prints one line per implementation, e.g.
  sweeps [core]: 31 scenarios, 5113 points, 10226 runs, 0 leaks, 0 expected upstream leaks, 812 choice hits, 812 choice runs, 11038 injected runs; bad inputs tried: 212
Exit status 1 when a sweep leaked (expected upstream leaks excepted) or no
sweep ran at all.

Usage: tools/sweep-totals.py TESTLOG.json [--impl NAME]
  --impl NAME   only the tests of one implementation (names ending _NAME)
"""
import argparse
import json
import re
import sys

SWEEP = re.compile(r"^(\S+): (\d+) points, (\d+) runs, (\d+) leaks"
                   r"(?:, (\d+) choice hits, (\d+) choice runs)?"
                   r"(?:, (\d+) expected upstream leaks)?$", re.M)
BAD_INPUTS = re.compile(r"^bad inputs tried: (\d+)$", re.M)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("testlog")
    ap.add_argument("--impl")
    args = ap.parse_args()

    totals = {}
    with open(args.testlog, encoding="utf-8", errors="replace") as log:
        for entry in log:
            t = json.loads(entry)
            name = t.get("name", "").split(" / ")[-1]
            # The driver's self-test leaks on purpose.
            if name == "sweep_driver":
                continue
            impl = name.rsplit("_", 1)[-1] if "_" in name else "-"
            if args.impl and impl != args.impl:
                continue
            out = t.get("stdout") or ""
            tot = totals.setdefault(impl, [0] * 8)
            for m in SWEEP.finditer(out):
                # scenarios, points, runs, leaks, choice hits, choice runs,
                # expected upstream leaks
                tot[0] += 1
                for i in range(1, 7):
                    tot[i] += int(m.group(i + 1) or 0)
            for m in BAD_INPUTS.finditer(out):
                tot[7] += int(m.group(1))
    status = 0
    shown = 0
    for impl, tot in sorted(totals.items()):
        sc, pts, runs, leaks, hits, choice_runs, expected, bad = tot
        if not sc and not bad:
            continue
        shown += 1
        print(f"sweeps [{impl}]: {sc} scenarios, {pts} points, {runs} runs, "
              f"{leaks} leaks, {expected} expected upstream leaks, "
              f"{hits} choice hits, {choice_runs} choice runs, "
              f"{runs + choice_runs} injected runs; bad inputs tried: {bad}")
        if leaks:
            status = 1
    if not shown:
        print("sweeps: no sweep output in " + args.testlog)
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
