#!/usr/bin/env bash
# Count cmocka test cases in a meson test log: "[  PASSED  ] N test(s)." and
# "[  FAILED  ] N test(s)" lines.  Usage: count-tests.sh LOG LABEL, which
# prints "LABEL: N passed, N failed" and adds to build/.test-totals;
# count-tests.sh --total prints the running total as "N passed, N failed".
set -u
totals=build/.test-totals
if [ "${1:-}" = "--total" ]; then
	read -r p f 2>/dev/null < "$totals" || { p=0; f=0; }
	echo "$p passed, $f failed"
	rm -f "$totals"
	[ "$f" -eq 0 ]
	exit
fi
log=$1 label=$2
p=$(grep -aoE '\[  PASSED  \] [0-9]+ test' "$log" | awk '{s+=$4} END {print s+0}')
f=$(grep -aoE '\[  FAILED  \] [0-9]+ test' "$log" | awk '{s+=$4} END {print s+0}')
# A test executable that crashed or timed out reports no cmocka line: count it.
crashed=$(grep -aE '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT) ' "$log" 2>/dev/null | wc -l)
echo "$label: $p passed, $f failed ($crashed executables failed)"
read -r tp tf 2>/dev/null < "$totals" || { tp=0; tf=0; }
echo "$((tp + p)) $((tf + f + crashed))" > "$totals"
