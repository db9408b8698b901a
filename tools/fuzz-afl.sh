#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# AFL++ for dmasim's harnesses (fuzz/fuzz_<target>.c), in persistent mode:
# fuzz/replay_main.c is the main(), and under afl-clang-fast it runs
# LLVMFuzzerTestOneInput() in an __AFL_LOOP(10000) over shared-memory test
# cases.  The build is fuzz/oss-fuzz/build.sh with AFL's compilers and
# replay_main.o as the "engine".
#
#   tools/fuzz-afl.sh build [OUT]
#       every harness into OUT (default build-afl/out), with ASan and UBSan
#   tools/fuzz-afl.sh run TARGET SECONDS [INSTANCES] [OUT]
#       fuzz TARGET for SECONDS: one main instance (-M main) and
#       INSTANCES-1 secondaries (-S sec1 ...), seeded from
#       fuzz/corpus/TARGET, findings in fuzz/out/afl-TARGET/; fails if any
#       instance saved a crash or a hang (afl-fuzz itself exits 0 then:
#       this reads saved_crashes/saved_hangs from each fuzzer_stats)
#
# afl-gcc-fast is broken on Debian 12's afl++ 4.04c: use afl-clang-fast.
# AFL_DONT_OPTIMIZE=1 keeps our -O1 (AFL would add -O3 and could fold away
# nothing we need, but a crash report is easier to read at -O1).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

build() {
	local out=${1:-$root/build-afl/out}
	local work=$root/build-afl/work
	command -v afl-clang-fast >/dev/null ||
		{ echo "fuzz-afl: afl-clang-fast not found (apt-get install afl++)" >&2; exit 1; }
	mkdir -p "$work" "$out"
	export AFL_DONT_OPTIMIZE=1 AFL_QUIET=1
	local cflags='-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined'
	afl-clang-fast $cflags -c fuzz/replay_main.c -o "$work/replay_main.o"
	CC=afl-clang-fast CXX=afl-clang-fast++ CFLAGS="$cflags" \
		LIB_FUZZING_ENGINE="$work/replay_main.o" OUT="$out" WORK="$work" \
		DMASIM_SRC="$root" fuzz/oss-fuzz/build.sh
}

run() {
	local target=$1 seconds=$2 instances=${3:-1} out=${4:-$root/build-afl/out}
	local bin=$out/fuzz_$target dir=$root/fuzz/out/afl-$target
	local dict=() pids=() bad=0
	[ -x "$bin" ] || build "$out"
	[ -f "fuzz/fuzz_$target.dict" ] && dict=(-x "fuzz/fuzz_$target.dict")
	[ "$target" = iommu_pgsize ] && dict=(-x fuzz/fuzz_iommu.dict)
	rm -rf "$dir"
	mkdir -p "$dir"
	export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
	export ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0
	for i in $(seq 1 "$instances"); do
		local role=(-M main)
		[ "$i" -gt 1 ] && role=(-S "sec$((i - 1))")
		timeout -s INT $((seconds + 30)) afl-fuzz "${role[@]}" -V "$seconds" \
			-i "fuzz/corpus/$target" -o "$dir" "${dict[@]}" -- "$bin" \
			>"$dir/${role[1]}.log" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || true; done
	for stats in "$dir"/*/fuzzer_stats; do
		[ -f "$stats" ] || { echo "fuzz-afl: no fuzzer_stats: see $dir/*.log" >&2; exit 1; }
		local name crashes hangs execs speed
		name=$(basename "$(dirname "$stats")")
		crashes=$(sed -n 's/^saved_crashes *: *//p' "$stats")
		hangs=$(sed -n 's/^saved_hangs *: *//p' "$stats")
		execs=$(sed -n 's/^execs_done *: *//p' "$stats")
		speed=$(sed -n 's/^execs_per_sec *: *//p' "$stats")
		echo "afl $target/$name: $execs execs, $speed exec/s, $crashes crashes, $hangs hangs"
		[ "${crashes:-1}" = 0 ] && [ "${hangs:-1}" = 0 ] || bad=1
	done
	[ "$bad" = 0 ] || { echo "fuzz-afl: findings in $dir/*/crashes, */hangs" >&2; exit 1; }
}

case ${1:-} in
build) shift; build "$@" ;;
run) shift; [ $# -ge 2 ] || { echo "usage: $0 run TARGET SECONDS [INSTANCES] [OUT]" >&2; exit 2; }; run "$@" ;;
*) echo "usage: $0 build [OUT] | run TARGET SECONDS [INSTANCES] [OUT]" >&2; exit 2 ;;
esac
