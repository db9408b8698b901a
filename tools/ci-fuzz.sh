#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fuzz smoke for CI: build every harness for libFuzzer (clang, ASan+UBSan,
# -Dfuzzing=true, in build-fuzz/), then run each for an equal share of
# DMASIM_FUZZ_SECONDS (default 20) from a copy of its seed corpus.  Prints
# one line per harness (runs, exec/s, runs per CPU second, coverage, peak
# RSS) and fails on any
# crash, leak, timeout or RSS over 512 MiB; the input that broke it is kept
# in fuzz/out/ci-<harness>-*.  DMASIM_PARAMS (module parameters, as on the
# kernel command line) reaches every harness's kapi_boot(): .ci/run runs
# the smoke again with vfio_iommu_type1.unmap_stride=1; the lines say so.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
total=${DMASIM_FUZZ_SECONDS:-20}
build=build-fuzz
CC=clang configure_build "$build" -Dfuzzing=true
build_dir "$build"
mapfile -t bins < <(find "$build/fuzz" -maxdepth 1 -type f -name 'fuzz_*' \
	! -name '*_replay' -perm -u+x | sort)
[ ${#bins[@]} -gt 0 ] || { echo "ci-fuzz: no harness built" >&2; exit 1; }
per=$((total / ${#bins[@]}))
[ "$per" -ge 1 ] || per=1
mkdir -p fuzz/out
status=0
for bin in "${bins[@]}"; do
	name=$(basename "$bin")
	target=${name#fuzz_}
	target=${target%_upstream}
	opts=fuzz/fuzz_$target.options
	[ -f "$opts" ] || opts=fuzz/fuzz_${target%_pgsize}.options
	args=(-max_total_time="$per" -print_final_stats=1 -rss_limit_mb=512
	      -timeout=10 -artifact_prefix="fuzz/out/ci-$name-")
	mapfile -t -O ${#args[@]} args < <(tools/fuzz-options.sh "$opts")
	work=$(mktemp -d)
	cp fuzz/corpus/"$target"/* "$work"/
	result=ok
	{ TIMEFORMAT='%3U %3S'; time "$bin" "${args[@]}" "$work" >"$work.log" 2>&1 \
		|| result=FAILED; } 2>"$work.cpu"
	[ "$result" = ok ] || status=1
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work.log")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work.log")
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$work.log")
	cov=$(grep -o 'cov: [0-9]*' "$work.log" | tail -n 1 || true)
	# Runs per CPU second: the harness's cost, whatever the machine's load.
	cps=$(awk -v r="${runs:-0}" '{ c = $1 + $2; printf "%d", (c > 0 ? r / c : 0) }' "$work.cpu")
	printf 'ci-fuzz: %s%-22s %s  %ss  %s runs  %s exec/s  %s exec/cpu-s  %s  rss %s MiB\n' \
		"${DMASIM_PARAMS:+[$DMASIM_PARAMS] }" "$name" "$result" "$per" "${runs:-?}" "${eps:-?}" "${cps:-?}" \
		"${cov:-cov: ?}" "${rss:-?}"
	[ "$result" = ok ] || grep -E 'invariant|ERROR|SUMMARY|^  ' "$work.log" | head -n 20
	rm -rf "$work" "$work.log" "$work.cpu"
done
exit $status
