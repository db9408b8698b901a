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
#   --mutate COUNT:SEED    also replay COUNT inputs made from the corpus
#                          files given, each mutated as libFuzzer's default
#                          mutators do (bit flips, byte changes, inserted,
#                          erased and copied runs, splices of two inputs):
#                          inputs that get past the decoding's first
#                          operations, unlike most random bytes
# Inputs go to the replays as folders, never as one argument each, so any
# number fits (100,000 random inputs were "Argument list too long").
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
mutate=
while [ $# -gt 0 ]; do
	case $1 in
	--core-env) core_env+=("$2"); shift 2 ;;
	--random) random=$2; shift 2 ;;
	--mutate) mutate=$2; shift 2 ;;
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
# Every input is linked into one folder (names keep the order: the corpus
# files as given, then the generated ones), which the replays take whole.
inputs=$tmp/inputs
mkdir "$inputs"
corpus=()
for arg in "$@"; do
	if [ -d "$arg" ]; then
		while IFS= read -r f; do corpus+=("$f"); done < <(find "$arg" -maxdepth 1 -type f ! -name '.*' | sort)
	else
		corpus+=("$arg")
	fi
done
n=0
for f in "${corpus[@]}"; do
	ln -s "$(realpath "$f")" "$inputs/$(printf 'c%07d-' $n)$(basename "$f")"
	n=$((n + 1))
done
if [ -n "$random$mutate" ]; then
	python3 - "$inputs" "$random" "$mutate" "${corpus[@]}" <<'PY' || exit 1
import random, sys
out, rspec, mspec, corpus = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def write(name, data):
    with open(f"{out}/{name}", "wb") as f:
        f.write(data)
if rspec:
    spec = rspec.split(":")
    count, seed = int(spec[0]), int(spec[1])
    maxlen = int(spec[2]) if len(spec) > 2 else 96
    rng = random.Random(seed)
    for i in range(count):
        write(f"r{i:07d}-{seed}", rng.randbytes(rng.randint(1, maxlen)))
if mspec:
    if not corpus:
        sys.exit("fuzz-differential: --mutate needs corpus files")
    count, seed = (int(x) for x in mspec.split(":")[:2])
    rng = random.Random(seed)
    seeds = [open(p, "rb").read() for p in corpus]
    def mutate(b):
        b = bytearray(b or b"\0")
        for _ in range(rng.randint(1, 4)):
            if not b:
                b = bytearray(b"\0")
            op = rng.randrange(6)
            i = rng.randrange(len(b))
            if op == 0:
                b[i] ^= 1 << rng.randrange(8)
            elif op == 1:
                b[i] = rng.randrange(256)
            elif op == 2:
                b[i:i] = rng.randbytes(rng.randint(1, 8))
            elif op == 3 and len(b) > 1:
                del b[i:i + rng.randint(1, min(8, len(b) - 1))]
            elif op == 4:
                j = rng.randrange(len(b))
                b[i:i] = b[j:j + rng.randint(1, 16)]
            else:
                other = rng.choice(seeds)
                b = b[:i] + other[rng.randrange(len(other) + 1):]
        return bytes(b[:4096])
    for i in range(count):
        write(f"m{i:07d}-{seed}", mutate(rng.choice(seeds)))
PY
fi
count=$(find "$inputs" -mindepth 1 -maxdepth 1 | wc -l)
[ "$count" -gt 0 ] || { echo "fuzz-differential: no input" >&2; exit 1; }
# One process per implementation replays every input in turn (the harness
# boots once and resets its invariants per input; both builds see the same
# inputs in the same order), and the logs are compared whole: each input's
# part starts with its "replay: FILE" line.
env DMASIM_FUZZ_VERBOSE=1 "${core_env[@]}" "$core" "$inputs" >"$tmp/core" 2>&1 ||
	{ echo "fuzz-differential: core replay failed:"; tail -n 8 "$tmp/core"; exit 1; }
DMASIM_FUZZ_VERBOSE=1 "$upstream" "$inputs" >"$tmp/upstream" 2>&1 ||
	{ echo "fuzz-differential: upstream replay failed:"; tail -n 8 "$tmp/upstream"; exit 1; }
differ=0
if ! diff -u <(normalise "$tmp/core") <(normalise "$tmp/upstream") >"$tmp/diff"; then
	echo "fuzz-differential: core and upstream differ (the input is the last \"replay:\" line above each difference):"
	head -n 60 "$tmp/diff"
	differ=1
fi
summary="$count inputs, $([ $differ = 0 ] && echo identical || echo DIFFERENCES)"
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
