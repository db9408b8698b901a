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
