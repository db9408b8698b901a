#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The developer's loop, timed (issue 15): in a scratch build directory,
#   cold      meson setup + ninja, from nothing
#   edit      touch core/drivers/vfio/vfio_iommu_type1.c, ninja, then its
#             suite: meson test --suite vfio --no-suite slow
#   default   meson test --no-suite slow, warm (run once before, untimed,
#             so the script checks' caches are filled)
#   whole     meson test, every suite, 'slow' included, warm (suite 'bench',
#             the 4-GPU before-mode replay, is left out by the default test
#             setup, meson.build: it is a benchmark, about a minute of CPU)
# Each step reports its wall time and its CPU time (user + sys of every
# process it ran), and the load average before it: on a shared machine the
# wall times follow the load, the CPU times much less.  The targets (issue
# 15, on an idle 2-core machine): edit <= 2.5 s, default <= 5 s,
# whole <= 20 s, cold <= 10 s.
#
# Usage: tools/loop-times.sh [--json FILE] [--dir DIR] [--keep] [--skip-whole]
#   --json FILE    also write the figures as JSON to FILE
#   --dir DIR      the scratch build directory (default: a new one in
#                  ${TMPDIR:-/tmp}); it is removed at the end unless --keep
#   --skip-whole   leave out the whole-suite step
# After the table, the five longest tests of the default and whole runs
# (seconds, from meson's JSON log): where the next cut is.
# Jobs: DMASIM_JOBS (default 2) for ninja -j and meson test --num-processes.
# The touched file's modification time is put back afterwards, so other
# build directories do not rebuild it for nothing.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
json= dir= keep=0 whole=1
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--skip-whole) whole=0; shift ;;
	*) echo "usage: $0 [--json FILE] [--dir DIR] [--keep] [--skip-whole]" >&2; exit 2 ;;
	esac
done
jobs=${DMASIM_JOBS:-2}
edited=core/drivers/vfio/vfio_iommu_type1.c
if [ -z "$dir" ]; then
	dir=$(mktemp -d "${TMPDIR:-/tmp}/dmasim-loop.XXXXXX")
	rmdir "$dir"
fi
[ -e "$dir" ] && { echo "$dir exists: give a new directory" >&2; exit 2; }
logs=$(mktemp -d "${TMPDIR:-/tmp}/dmasim-loop-logs.XXXXXX")
mtime=$(stat -c %Y "$top/$edited")
cleanup() {
	touch -m -d "@$mtime" "$top/$edited"
	[ $keep = 1 ] || rm -rf "$dir"
	rm -rf "$logs"
}
trap cleanup EXIT

# step NAME COMMAND...: run it, output to $logs/NAME.log; sets wall, cpu,
# load for the caller (seconds, seconds, 1-minute load average before).
# CPU time is what bash's `times` reports for the subshell's children.
step() {
	local name=$1 t0 t1 rc=0
	shift
	load=$(cut -d' ' -f1 /proc/loadavg)
	t0=$EPOCHREALTIME
	( rc=0; "$@" >"$logs/$name.log" 2>&1 || rc=$?; times >"$logs/$name.times"; exit $rc ) || rc=$?
	t1=$EPOCHREALTIME
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	# times: the shell's own user/sys, then its children's ("0m1.234s 0m0.056s").
	cpu=$(sed -n 2p "$logs/$name.times" | awk '{
		n = 0
		for (i = 1; i <= 2; i++) {
			split($i, p, "m"); sub("s", "", p[2]); n += p[1] * 60 + p[2]
		}
		printf "%.2f", n }')
	if [ $rc -ne 0 ]; then
		echo "loop-times: step '$name' failed ($*):" >&2
		tail -n 30 "$logs/$name.log" >&2
		exit 1
	fi
}

declare -A W C L
record() { W[$1]=$wall; C[$1]=$cpu; L[$1]=$load; }

# Cold: configure and build from nothing.
step configure meson setup "$dir" "$top"; record configure
step build ninja -C "$dir" -j"$jobs"; record build

# The edit loop: one kernel file changed, rebuilt, its suite run.
touch "$top/$edited"
step rebuild ninja -C "$dir" -j"$jobs"; record rebuild
relinked=$(grep -c 'Linking target' "$logs/rebuild.log" || true)
step suite meson test -C "$dir" --no-rebuild --suite vfio --no-suite slow \
	--num-processes "$jobs"; record suite

# The default suite, warm: once to fill the caches, once timed.
step warmup meson test -C "$dir" --no-rebuild --no-suite slow --num-processes "$jobs"
step default meson test -C "$dir" --no-rebuild --no-suite slow --num-processes "$jobs"
record default
cp "$dir/meson-logs/testlog.json" "$logs/default.json"
if [ $whole = 1 ]; then
	step whole meson test -C "$dir" --no-rebuild --num-processes "$jobs"
	record whole
	cp "$dir/meson-logs/testlog.json" "$logs/whole.json"
fi

sum() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a + b }'; }
W[cold]=$(sum "${W[configure]}" "${W[build]}"); C[cold]=$(sum "${C[configure]}" "${C[build]}")
L[cold]=${L[configure]}
W[edit]=$(sum "${W[rebuild]}" "${W[suite]}"); C[edit]=$(sum "${C[rebuild]}" "${C[suite]}")
L[edit]=${L[rebuild]}
declare -A target=([cold]=10 [edit]=2.5 [default]=5 [whole]=20)
steps=(cold configure build edit rebuild suite default)
[ $whole = 1 ] && steps+=(whole)

printf 'dmasim loop times (%s, %s cores, -j%s; load = 1-min load average before the step)\n' \
	"$(git -C "$top" describe --always --dirty 2>/dev/null || echo '?')" "$(nproc)" "$jobs"
printf '  %-9s %8s %8s %6s %8s\n' step wall_s cpu_s load target_s
for s in "${steps[@]}"; do
	printf '  %-9s %8s %8s %6s %8s\n' "$s" "${W[$s]}" "${C[$s]}" "${L[$s]}" "${target[$s]:--}"
done
printf '  (edit: %s relinked by touching %s)\n' "$relinked" "$edited"
for s in default whole; do
	[ -f "$logs/$s.json" ] || continue
	python3 - "$logs/$s.json" "$s" <<'EOF'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
rs.sort(key=lambda r: -r["duration"])
print("  %s: %d tests, %.1f s summed; longest: %s" % (
    sys.argv[2], len(rs), sum(r["duration"] for r in rs),
    ", ".join("%s %.1f" % (r["name"], r["duration"]) for r in rs[:5])))
EOF
done

if [ -n "$json" ]; then
	{
		printf '{\n  "commit": "%s",\n  "cores": %s,\n  "jobs": %s,\n' \
			"$(git -C "$top" describe --always --dirty 2>/dev/null || echo '?')" "$(nproc)" "$jobs"
		printf '  "edited_file": "%s",\n  "edit_relinked_targets": %s,\n  "steps": {\n' \
			"$edited" "$relinked"
		n=0
		for s in "${steps[@]}"; do
			n=$((n + 1))
			printf '    "%s": {"wall_s": %s, "cpu_s": %s, "load_before": %s, "target_wall_s": %s}%s\n' \
				"$s" "${W[$s]}" "${C[$s]}" "${L[$s]}" "${target[$s]:-null}" \
				"$([ $n -lt ${#steps[@]} ] && echo ,)"
		done
		printf '  }\n}\n'
	} >"$json"
fi
