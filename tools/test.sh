#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Configure (if needed), build and run the whole test suite, slow suites and
# the kbuild/checkpatch/docs checks included.  The README's second
# quick-start command.  Extra arguments go to `meson test`.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build -j2 >build/ninja.log 2>&1 || { cat build/ninja.log; exit 1; }
rc=0
meson test -C build --print-errorlogs --num-processes 2 "$@" || rc=$?
tools/count-tests.sh build/meson-logs/testlog.json tests
exit $rc
