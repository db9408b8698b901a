#!/usr/bin/env bash
# Configure (if needed), build and run the whole test suite, slow suites
# included.  The README's second quick-start command.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
rc=0
meson test -C build --print-errorlogs --num-processes 2 "$@" || rc=$?
tools/count-tests.sh build/meson-logs/testlog.txt tests
exit $rc
