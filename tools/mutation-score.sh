#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Mutation score of the test suites on the kernel files (docs/mutation.md):
# each mutant (one operator, one place, found in the libclang AST of the
# file compiled with the build's flags) is applied to a scratch copy of the
# tree, rebuilt and run under the tests that reach its line; the last line
# printed is
#   mutation score: K of N killed (P%)
# (N leaves out equivalent and invalid mutants; timeouts count as killed).
#
# Usage: tools/mutation-score.sh [--sample N] [--seed S] [--impl core|upstream]
#          [--kernel-src DIR] [--jobs J] [--min P] [--json FILE] [FILE...]
# (tools/mutation-score.sh --help lists every option.)
# Exit status: 0, or 1 when the score is below --min, 2 on a setup error.
set -uo pipefail
here=$(dirname "$0")
exec nice -n 10 python3 "$here/mutation.py" "$@"
