#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Differential replay: the same inputs through two builds of one harness,
# the project's core/ and a kernel tree's files (upstream mode), which are
# separate link units.  Each input is replayed by both with
# DMASIM_FUZZ_VERBOSE=1, which logs every operation and what it returned;
# the logs must be identical, input by input.  Both builds also check their
# own invariants (a crash fails the replay).
#   tools/fuzz-differential.sh [OPTIONS] CORE_REPLAY UPSTREAM_REPLAY [CORPUS_DIR|FILE...]
# Options:
#   --core-env VAR=VALUE   set VAR for the core replay only (repeatable)
#   --random COUNT:SEED[:MAXLEN]
#                          also replay COUNT inputs of random bytes (lengths
#                          up to MAXLEN, default 96) from a PRNG seeded with
#                          SEED: the same inputs on every run
#   --layout-free          leave out the lines a harness marks as depending
#                          on a heap's block layout ("~ " first) and its
#                          "orders" line, and count the inputs whose layout
#                          lines differ (for two heaps with different orders)
# meson registers it as fuzz_differential_type1 and fuzz_differential_heap*
# with -Dkernel_src; to fuzz differentially, grow a corpus with
# build-fuzz/fuzz/fuzz_type1 (or fuzz_heap) and run this over it.
# Differences the implementations are known to have (include/dmasim/impl.h)
# are normalised before comparing: a range that wraps past 2^64 gets
# -EOVERFLOW (-75) since v6.18 (DMASIM_IMPL_IOVA_END_OVERFLOW_FIXES) and
# -EINVAL (-22) before.  The heap's orders parameter
# (DMASIM_IMPL_HEAP_ORDERS_PARAM, the project's heap only) is not
# normalised: either the core replay is given the kernel's orders
# (--core-env DMASIM_FUZZ_HEAP_ORDERS=8,4,0) and everything must match, or
# --layout-free compares all but the layout.
set -uo pipefail
layout_free=0
core_env=()
random=
while [ $# -gt 0 ]; do
	case $1 in
	--core-env) core_env+=("$2"); shift 2 ;;
	--random) random=$2; shift 2 ;;
	--layout-free) layout_free=1; shift ;;
	*) break ;;
	esac
done
normalise() {
	if [ $layout_free = 1 ]; then
		grep -v -E '^(~ |orders )' "$1"
	else
		cat "$1"
	fi | sed -E '/^(un)?map_dma/ s/: -75, /: -22, /; /^(un)?map_dma/ s/: -75$/: -22/'
}
[ $# -ge 2 ] || { echo "usage: $0 [OPTIONS] CORE_REPLAY UPSTREAM_REPLAY CORPUS..." >&2; exit 2; }
core=$1 upstream=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=()
for arg in "$@"; do
	if [ -d "$arg" ]; then
		while IFS= read -r f; do files+=("$f"); done < <(find "$arg" -maxdepth 1 -type f ! -name '.*' | sort)
	else
		files+=("$arg")
	fi
done
if [ -n "$random" ]; then
	mkdir "$tmp/random"
	python3 - "$tmp/random" "$random" <<'PY' || exit 1
import random, sys
out, spec = sys.argv[1], sys.argv[2].split(":")
count, seed = int(spec[0]), int(spec[1])
maxlen = int(spec[2]) if len(spec) > 2 else 96
rng = random.Random(seed)
for i in range(count):
    with open(f"{out}/random-{seed}-{i:05d}", "wb") as f:
        f.write(bytes(rng.randrange(256) for _ in range(rng.randint(1, maxlen))))
PY
	while IFS= read -r f; do files+=("$f"); done < <(find "$tmp/random" -type f | sort)
fi
[ ${#files[@]} -gt 0 ] || { echo "fuzz-differential: no input" >&2; exit 1; }
# One process per implementation replays every input in turn (the harness
# boots once and resets its invariants per input; both builds see the same
# inputs in the same order), and the logs are compared whole: each input's
# part starts with its "replay: FILE" line.
env DMASIM_FUZZ_VERBOSE=1 "${core_env[@]}" "$core" "${files[@]}" >"$tmp/core" 2>&1 ||
	{ echo "fuzz-differential: core replay failed:"; tail -n 8 "$tmp/core"; exit 1; }
DMASIM_FUZZ_VERBOSE=1 "$upstream" "${files[@]}" >"$tmp/upstream" 2>&1 ||
	{ echo "fuzz-differential: upstream replay failed:"; tail -n 8 "$tmp/upstream"; exit 1; }
differ=0
if ! diff -u <(normalise "$tmp/core") <(normalise "$tmp/upstream") >"$tmp/diff"; then
	echo "fuzz-differential: core and upstream differ (the input is the last \"replay:\" line above each difference):"
	head -n 60 "$tmp/diff"
	differ=1
fi
summary="${#files[@]} inputs, $([ $differ = 0 ] && echo identical || echo DIFFERENCES)"
if [ $layout_free = 1 ]; then
	# Inputs whose layout lines differ.
	layout_differs=$(python3 - "$tmp/core" "$tmp/upstream" <<'PY'
import sys
def parts(path):
    out, cur = {}, None
    for line in open(path, errors="replace"):
        if line.startswith("replay: "):
            cur = line
            out[cur] = []
        elif cur is not None and line.startswith("~ "):
            out[cur].append(line)
    return out
a, b = parts(sys.argv[1]), parts(sys.argv[2])
print(sum(1 for k in a if a[k] != b.get(k)))
PY
)
	summary="$summary apart from the layout, which differs in $layout_differs"
fi
echo "fuzz-differential: $summary"
exit $differ
