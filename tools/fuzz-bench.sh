#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fuzzing throughput, as JSON on stdout: every libFuzzer harness (build-fuzz/,
# clang, ASan+UBSan, one process pinned to CPU DMASIM_BENCH_CPU, default 0)
# for DMASIM_BENCH_SECONDS (default 30) from a copy of its seed corpus, with
# its .options flags.  exec_per_sec is libFuzzer's average over the whole
# run, seed loading included; exec_per_sec_second_half is the rate over the
# run's second half, once the seeds are loaded and libFuzzer's feature
# frequencies have settled (a fresh process starts slower): the figure a
# long campaign sees.  fuzz_iommu_pgsize is also measured with one operation
# per input (max_len 34), the cost of one page-size choice end to end.  The
# 1-minute load average is recorded: on a shared machine exec/s scale with
# it, so each harness's CPU seconds and runs per CPU second are recorded too
# (the figure to compare between runs; docs record both).
# DMASIM_FUZZ_BUILD=dir measures another build's binaries as they are (e.g.
# a checkout of an older commit; nothing is rebuilt), same corpora and
# options.  DMASIM_BENCH_ONLY="fuzz_type1 fuzz_iommu_pgsize" measures only
# the harnesses named (a before/after of one change).
#   tools/fuzz-bench.sh > fuzz-bench.json
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${DMASIM_BENCH_SECONDS:-30}
cpu_nr=${DMASIM_BENCH_CPU:-0}
build=${DMASIM_FUZZ_BUILD:-build-fuzz}
if [ -z "${DMASIM_FUZZ_BUILD:-}" ]; then
	if [ ! -f "$build/build.ninja" ]; then
		CC=clang meson setup "$build" -Dfuzzing=true >/dev/null
	fi
	ninja -C "$build" -j"${DMASIM_JOBS:-2}" >/dev/null
fi

measure() {	# name bin target max_len
	local name=$1 bin=$2 target=$3 maxlen=$4 work log opts
	work=$(mktemp -d)
	log=$work.log
	cp fuzz/corpus/"$target"/* "$work"/
	# The .options flags but max_len, which the caller gives.
	mapfile -t opts < <(tools/fuzz-options.sh "fuzz/fuzz_$target.options" max_len)
	# CPU seconds (user + system) of the fuzzer: exec per CPU second is
	# what the harness costs; exec/s is that divided by the machine's load.
	# Each output line gets its arrival time: the second half's exec/s is
	# the rate once the seeds are loaded and libFuzzer's feature
	# frequencies have settled (a fresh process runs slower at first).
	# (Through a FIFO, so that the shell's time counts the fuzzer alone.)
	mkfifo "$work.fifo"
	while IFS= read -r line; do
		printf '%s %s\n' "$EPOCHREALTIME" "$line"
	done <"$work.fifo" >"$log" &
	{ TIMEFORMAT='%3U %3S'; time taskset -c "$cpu_nr" "$bin" \
		-max_total_time="$secs" -print_final_stats=1 -max_len="$maxlen" \
		-rss_limit_mb=512 "${opts[@]}" \
		-artifact_prefix="fuzz/out/bench-$name-" "$work" \
		>"$work.fifo" 2>&1 || true; } 2>"$work.cpu"
	wait
	runs=$(sed -n 's/^[0-9.]* stat::number_of_executed_units: *//p' "$log")
	cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$work.cpu")
	half=$(awk -v secs="$secs" '
		$2 ~ /^#[0-9]+$/ {
			t = $1; n = substr($2, 2)
			if (!t0) t0 = t
			if (!th && t - t0 >= secs / 2) { th = t; nh = n }
			tl = t; nl = n
		}
		END { printf "%d", (tl > th && th ? (nl - nh) / (tl - th) : 0) }' "$log")
	printf '    {"harness": "%s", "seconds": %s, "max_len": %s, "runs": %s, "exec_per_sec": %s, "exec_per_sec_second_half": %s, "cpu_seconds": %s, "exec_per_cpu_sec": %s, "peak_rss_mb": %s, "coverage": %s, "corpus_files": %s}' \
		"$name" "$secs" "$maxlen" "$runs" \
		"$(sed -n 's/^[0-9.]* stat::average_exec_per_sec: *//p' "$log")" "$half" \
		"$cpu" "$(awk -v r="$runs" -v c="$cpu" 'BEGIN { printf "%d", (c > 0 ? r / c : 0) }')" \
		"$(sed -n 's/^[0-9.]* stat::peak_rss_mb: *//p' "$log")" \
		"$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)" \
		"$(find "$work" -type f | wc -l)"
	rm -rf "$work" "$log" "$work.cpu" "$work.fifo"
}

mkdir -p fuzz/out
first=1
printf '{\n  "load_average_1m": %s,\n  "harnesses": [\n' "$(cut -d' ' -f1 /proc/loadavg)"
for bin in $(find "$build/fuzz" -maxdepth 1 -type f -name 'fuzz_*' \
		! -name '*_replay' -perm -u+x | sort); do
	name=$(basename "$bin")
	case " ${DMASIM_BENCH_ONLY:-$name} " in
	*" $name "*) ;;
	*) continue ;;
	esac
	target=${name#fuzz_}
	target=${target%_upstream}
	maxlen=$(sed -n 's/^max_len *= *//p' "fuzz/fuzz_$target.options")
	[ $first = 1 ] || printf ',\n'
	first=0
	measure "$name" "$bin" "$target" "$maxlen"
	if [ "$target" = iommu_pgsize ]; then
		printf ',\n'
		measure "${name}_1op" "$bin" "$target" 34
	fi
done
printf '\n  ]\n}\n'
