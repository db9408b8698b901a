#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Count test cases in a meson JSON test log (build/meson-logs/testlog*.json).
# A cmocka executable counts its cases (its "[  PASSED  ] N test(s)." and
# "[  FAILED  ] N test(s)" summary lines); a test that is not cmocka (kbuild,
# checkpatch, ...) counts as one case; an executable that failed without a
# cmocka failure line (crash, timeout, valgrind error) adds one failure.
#
# Known kernel bugs (tests/known_bug.h) print "XFAIL name" (expected: the
# case still passes) and "XPASS name" (the case fails) lines: they are
# counted beside, and the XFAIL names listed.
#
# A cmocka case that calls skip() ("[  SKIPPED ] case" right after its
# "[ RUN      ] case") is neither passed nor failed: counted as skipped,
# unless it printed an XFAIL line first (a known bug it could not go on
# past), when its XFAIL names it and it is not counted again as skipped.
# A whole test that meson reports SKIP (exit 77) counts as one skipped.
#
#   count-tests.sh LOG LABEL   print "LABEL: N passed, N failed, N skipped,
#                              N xfail, N xpass" (and the xfail names), and
#                              add to the running total (build/.test-totals)
#   count-tests.sh --total     print the total as "N passed, N failed", reset
#                              it, and exit non-zero if anything failed
set -u
totals=${DMASIM_TEST_TOTALS:-build/.test-totals}
if [ "${1:-}" = "--total" ]; then
	read -r p f 2>/dev/null < "$totals" || { p=0; f=0; }
	echo "$p passed, $f failed"
	rm -f "$totals"
	[ "$f" -eq 0 ]
	exit
fi
log=$1 label=$2
read -r p f s xf xp names < <(python3 - "$log" <<'EOF'
import json, re, sys

RUN = re.compile(r"^\[ RUN      \] (\S+)")
SKIPPED = re.compile(r"^\[  SKIPPED \] (\S+)$")
ENDED = re.compile(r"^\[ {7}OK \]|^\[  FAILED  \] |^\[  ERROR   \] ---|^\[==========\]")
XFAIL = re.compile(r"^XFAIL (\S+)")


def case_skips(out):
    """(plain skips, known-bug skips) of the cmocka cases in out."""
    plain = known = 0
    case, xfails = None, False
    for line in out.splitlines():
        m = RUN.match(line)
        if m:
            case, xfails = m.group(1), False
            continue
        if case is None:
            continue
        if XFAIL.match(line):
            xfails = True
        m = SKIPPED.match(line)
        if m and m.group(1) == case:
            if xfails:
                known += 1
            else:
                plain += 1
            case = None
        elif ENDED.match(line):
            case = None
    return plain, known


passed = failed = skipped = 0
xfail, xpass = [], []
with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
    for line in log:
        t = json.loads(line)
        out = (t.get("stdout") or "") + (t.get("stderr") or "")
        ok = [int(n) for n in re.findall(r"^\[  PASSED  \] (\d+) test", out, re.M)]
        bad = [int(n) for n in re.findall(r"^\[  FAILED  \] (\d+) test", out, re.M)]
        result = t["result"]
        xfail += re.findall(r"^XFAIL (\S+)", out, re.M)
        xpass += re.findall(r"^XPASS (\S+)", out, re.M)
        skipped += case_skips(t.get("stdout") or "")[0]
        if result == "SKIP":
            skipped += 1
        elif ok or bad:
            passed += sum(ok)
            failed += sum(bad)
            if result != "OK" and not sum(bad):
                failed += 1
        elif result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        else:
            failed += 1
print(passed, failed, skipped, len(xfail), len(xpass),
      ",".join(sorted(set(xfail))) or "-")
EOF
)
echo "$label: ${p:-0} passed, ${f:-0} failed, ${s:-0} skipped, ${xf:-0} xfail, ${xp:-0} xpass"
[ "${names:--}" = "-" ] || echo "$label: expected failures (known kernel bugs): ${names//,/, }"
read -r tp tf 2>/dev/null < "$totals" || { tp=0; tf=0; }
echo "$((tp + ${p:-0})) $((tf + ${f:-1}))" > "$totals"
