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
# Half the generated inputs (random and mutated) end in a choice stream
# (fuzz/fuzz_common.h: FUZZ_CHOICE_MARK, then one byte per choice-point hit,
# about one in eight taking an alternative): no corpus file carries one, and
# a mutation never writes the 7-byte mark, so without it no replayed input
# would reach a choice point.  The core replay runs with DMASIM_FUZZ_STATS=1
# and the summary says how many inputs carried a stream and how many
# alternatives they took.
#   --avoid-known-bugs     DMASIM_FUZZ_AVOID_KNOWN_BUGS=1 for both replays:
#                          the harness steers around the known bugs a tree
#                          crashes on (fuzz_type1: type1-dirty-bitmap-overrun,
#                          docs/kernel-bugs.md) and logs "known bug NAME";
#                          the summary counts them by name
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
both_env=()
while [ $# -gt 0 ]; do
	case $1 in
	--core-env) core_env+=("$2"); shift 2 ;;
	--random) random=$2; shift 2 ;;
	--mutate) mutate=$2; shift 2 ;;
	--layout-free) layout_free=1; shift ;;
	--avoid-known-bugs) both_env+=(DMASIM_FUZZ_AVOID_KNOWN_BUGS=1); shift ;;
	*) break ;;
	esac
done
normalise() {
	if [ $layout_free = 1 ]; then
		grep -v -E '^(~ |orders )' "$1"
	else
		cat "$1"
	fi | grep -v '^replay stats: ' |
		sed -E '/^(un)?map_dma/ s/: -75, /: -22, /; /^(un)?map_dma/ s/: -75$/: -22/'
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
MARK = b"\xd3choice"           # fuzz_common.h FUZZ_CHOICE_MARK
def with_choices(rng, data):
    """Half the inputs: a choice stream after the mark (1 in 8 bytes an
    alternative: high bit set, the low bits pick which)."""
    if rng.randrange(2):
        return data
    stream = bytes((0x80 | rng.randrange(128)) if rng.randrange(8) == 0
                   else rng.randrange(128)
                   for _ in range(rng.randint(1, 64)))
    return data + MARK + stream
class Pack:
    """Generated inputs go into one pack file per kind (fuzz/replay_main.c:
    records of a 4-byte little-endian length and the input), not one file
    each: 100,000 files took minutes to create and remove."""
    def __init__(self, name):
        self.f = open(f"{out}/{name}.pack", "wb")
    def write(self, data):
        self.f.write(len(data).to_bytes(4, "little") + data)
if rspec:
    spec = rspec.split(":")
    count, seed = int(spec[0]), int(spec[1])
    maxlen = int(spec[2]) if len(spec) > 2 else 96
    rng = random.Random(seed)
    pack = Pack(f"r-{seed}")
    for i in range(count):
        pack.write(with_choices(rng, rng.randbytes(rng.randint(1, maxlen))))
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
    pack = Pack(f"m-{seed}")
    for i in range(count):
        pack.write(with_choices(rng, mutate(rng.choice(seeds))))
PY
fi
# Inputs: corpus files, plus the generated ones in their packs.
generated=0
[ -z "$random" ] || generated=$((generated + ${random%%:*}))
[ -z "$mutate" ] || generated=$((generated + ${mutate%%:*}))
count=$(( $(find "$inputs" -mindepth 1 -maxdepth 1 ! -name '*.pack' | wc -l) +
	  generated ))
[ "$count" -gt 0 ] || { echo "fuzz-differential: no input" >&2; exit 1; }
# One process per implementation replays every input in turn (the harness
# boots once and resets its invariants per input; both builds see the same
# inputs in the same order), and the logs are compared whole: each input's
# part starts with its "replay: FILE" line.
env DMASIM_FUZZ_VERBOSE=1 DMASIM_FUZZ_STATS=1 "${both_env[@]}" "${core_env[@]}" \
	"$core" "$inputs" >"$tmp/core" 2>&1 ||
	{ echo "fuzz-differential: core replay failed:"; tail -n 8 "$tmp/core"; exit 1; }
env DMASIM_FUZZ_VERBOSE=1 DMASIM_FUZZ_STATS=1 "${both_env[@]}" \
	"$upstream" "$inputs" >"$tmp/upstream" 2>&1 ||
	{ echo "fuzz-differential: upstream replay failed:"; tail -n 8 "$tmp/upstream"; exit 1; }
# Inputs whose choice streams were answered at different hits ("choice
# NAME: alternative K at hit H" lines differ): the two implementations reach
# different choice points (6.12 looks up a pfnmap page by page, say, with a
# reschedule point per page), so the stream's bytes meet different
# questions and the runs legitimately part.  Those inputs are left out of
# the comparison and counted; every other input must match line for line.
normalise "$tmp/core" >"$tmp/core.n"
normalise "$tmp/upstream" >"$tmp/upstream.n"
choice_parted=$(python3 - "$tmp/core.n" "$tmp/upstream.n" <<'PY'
import sys
def parts(path):
    out, cur = [], None
    for line in open(path, errors="replace"):
        if line.startswith("replay: "):
            cur = [line]
            out.append(cur)
        elif cur is not None:
            cur.append(line)
        else:
            out.append([line])
    return out
a, b = parts(sys.argv[1]), parts(sys.argv[2])
def choices(p):
    """Each alternative taken, with the operations logged before it."""
    out, ops = [], 0
    for l in p:
        if l.startswith("choice "):
            out.append((ops, l))
        else:
            ops += 1
    return out
parted = 0
if len(a) == len(b):
    keep_a, keep_b = [], []
    for pa, pb in zip(a, b):
        if pa[0] == pb[0] and choices(pa) != choices(pb):
            parted += 1
            continue
        keep_a.append(pa)
        keep_b.append(pb)
    for path, keep in ((sys.argv[1], keep_a), (sys.argv[2], keep_b)):
        with open(path, "w") as f:
            f.writelines(l for p in keep for l in p)
print(parted)
PY
)
differ=0
if ! diff -u "$tmp/core.n" "$tmp/upstream.n" >"$tmp/diff"; then
	echo "fuzz-differential: core and upstream differ (the input is the last \"replay:\" line above each difference):"
	head -n 60 "$tmp/diff"
	differ=1
fi
summary="$count inputs, $([ $differ = 0 ] && echo identical || echo DIFFERENCES)"
[ "${choice_parted:-0}" = 0 ] ||
	summary="$summary; $choice_parted left out: their choice streams met different choice points"
# What the core replay's inputs did with their choice streams.
stats=$(sed -n 's/^replay stats: [0-9]* inputs, //p' "$tmp/core" | tail -n 1)
[ -z "$stats" ] || summary="$summary; $stats"
# Known bugs steered around, by name (--avoid-known-bugs).
known=$(grep -o 'known bug [a-z0-9-]*' "$tmp/upstream" | sort | uniq -c |
	awk '{printf "%s%s x%d", sep, $4, $1; sep=", "}')
[ -z "$known" ] || summary="$summary; known bugs steered around: $known"
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
