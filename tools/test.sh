#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Configure (if needed), build and run the whole test suite, slow suites and
# the kbuild/checkpatch/docs checks included.  The README's second
# quick-start command.  Extra arguments go to `meson test`.  Suite bench
# (the 4-GPU before-mode replay, a minute of CPU) is not run: no test
# setup runs it; `meson test -C build --suite bench` does, as .ci/run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
configure_build build
build_dir build
rc=0
meson test -C build --print-errorlogs --num-processes "$(jobs)" "$@" || rc=$?
tools/count-tests.sh build/meson-logs/testlog.json tests
exit $rc
