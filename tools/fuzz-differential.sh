#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Differential replay: the same inputs through two builds of one harness,
# the project's core/ and a kernel tree's files (upstream mode), which are
# separate link units.  Each input is replayed by both with
# DMASIM_FUZZ_VERBOSE=1, which logs every operation and what it returned;
# the logs must be identical, input by input.  Both builds also check their
# own invariants (a crash fails the replay).
#   tools/fuzz-differential.sh CORE_REPLAY UPSTREAM_REPLAY CORPUS_DIR|FILE...
# meson registers it as the test fuzz_differential_type1 with -Dkernel_src;
# to fuzz differentially, grow a corpus with build-fuzz/fuzz/fuzz_type1 and
# run this over it.  (The heap harness is not compared: the project's heap
# takes an orders parameter the kernel's does not, so their runs differ by
# design.)
# Differences the implementations are known to have (include/dmasim/impl.h)
# are normalised before comparing: a range that wraps past 2^64 gets
# -EOVERFLOW (-75) since v6.18 (DMASIM_IMPL_IOVA_END_OVERFLOW_FIXES) and
# -EINVAL (-22) before.
set -uo pipefail
normalise() { sed -E '/^(un)?map_dma/ s/: -75, /: -22, /; /^(un)?map_dma/ s/: -75$/: -22/' "$1"; }
[ $# -ge 3 ] || { echo "usage: $0 CORE_REPLAY UPSTREAM_REPLAY CORPUS..." >&2; exit 2; }
core=$1 upstream=$2
shift 2
files=()
for arg in "$@"; do
	if [ -d "$arg" ]; then
		while IFS= read -r f; do files+=("$f"); done < <(find "$arg" -maxdepth 1 -type f ! -name '.*' | sort)
	else
		files+=("$arg")
	fi
done
[ ${#files[@]} -gt 0 ] || { echo "fuzz-differential: no input" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
differ=0
for f in "${files[@]}"; do
	DMASIM_FUZZ_VERBOSE=1 "$core" "$f" >"$tmp/core" 2>&1 || { echo "core failed on $f:"; tail -n 5 "$tmp/core"; differ=1; continue; }
	DMASIM_FUZZ_VERBOSE=1 "$upstream" "$f" >"$tmp/upstream" 2>&1 || { echo "upstream failed on $f:"; tail -n 5 "$tmp/upstream"; differ=1; continue; }
	if ! diff -u <(normalise "$tmp/core") <(normalise "$tmp/upstream") >"$tmp/diff"; then
		echo "fuzz-differential: $f: core and upstream differ"
		head -n 40 "$tmp/diff"
		differ=1
	fi
done
echo "fuzz-differential: ${#files[@]} inputs, $([ $differ = 0 ] && echo identical || echo DIFFERENCES)"
exit $differ
