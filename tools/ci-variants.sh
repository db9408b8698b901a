#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The build variants CI runs beside the plain build (.ci/run calls this
# once, after tools/test.sh):
#   sweeps     the fail-nth sweep totals of the plain build's last test run
#              (build/meson-logs/testlog.json, tools/sweep-totals.py):
#              scenarios, points, runs, leaks, bad inputs tried
#   asan       clang, AddressSanitizer + UndefinedBehaviorSanitizer, leaks
#              detected, any UB fatal: every suite, 'slow' included but
#              the 1.2-billion-lookup replay (suite long_replay: over 8
#              minutes under ASan; cli_replay runs the same code on the
#              shipped scenarios and sample trace)
#   pageshift  PAGE_SHIFT 14 and 16 (16 and 64 KiB pages, gcc): every suite
#              but 'slow' (build-pageshift14/, build-pageshift16/)
#   tsan       clang, ThreadSanitizer: the 'concurrency' suite, statistics
#              counters suppressed (tools/tsan.supp says why)
#   wrap       clang, -Dkernel_wrap_trap=true: unsigned wraparound and
#              implicit unsigned truncation trap in core/ (the kernel code
#              under test, not the shims), the intended wraps allowed one
#              by one in tools/kernel-wrap.ignorelist: every suite but 'slow';
#              then the same in upstream mode on Debian's 6.12 (the tree's
#              type1, system_heap and dma-heap trapped; their own intended
#              wraps and the known IOVA-end bug's sums allowed in
#              tools/kernel-wrap-upstream.ignorelist; build-wrap-upstream/)
# The script checks (kbuild, style, docs) run no code of ours: not here.
#
# Usage: tools/ci-variants.sh [VARIANT...]    (default: all, in that order)
# Each variant builds in build-<variant>/ (configured once, incremental
# after) with ninja -j2, prints its elapsed time and adds its test counts
# to the CI total (tools/count-tests.sh).  Exits non-zero if any fails.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
status=0
scripts=(--no-suite kbuild --no-suite style --no-suite docs)

elapsed() { printf '=== [%s] %ds\n' "$1" $((SECONDS - $2)); }

configure() { configure_build "$@"; }
build() { build_dir "$1"; }

variant_sweeps() {
	local log=build/meson-logs/testlog.json
	[ -f "$log" ] || { echo "no $log: run tools/test.sh first"; return 1; }
	python3 tools/sweep-totals.py "$log"
}

variant_asan() {
	local t=$SECONDS rc=0
	CC=clang configure build-asan -Db_sanitize=address,undefined \
		-Db_lundef=false -Dc_args=-fno-sanitize-recover=undefined || return 1
	build build-asan || return 1
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		meson test -C build-asan --num-processes 2 --print-errorlogs \
		"${scripts[@]}" --no-suite long_replay >build-asan/test.log 2>&1 ||
		{ rc=1; tail -n 60 build-asan/test.log; }
	tools/count-tests.sh build-asan/meson-logs/testlog.json asan+ubsan
	elapsed asan $t
	return $rc
}

pageshift() {	# PAGE_SHIFT
	local t=$SECONDS rc=0 dir=build-pageshift$1
	configure "$dir" -Dpage_shift="$1" || return 1
	build "$dir" || return 1
	meson test -C "$dir" --num-processes 2 --print-errorlogs --no-suite slow \
		"${scripts[@]}" >"$dir/test.log" 2>&1 ||
		{ rc=1; tail -n 60 "$dir/test.log"; }
	tools/count-tests.sh "$dir/meson-logs/testlog.json" "page_shift=$1"
	elapsed "pageshift $1" "$t"
	return $rc
}

variant_pageshift() {
	local rc=0
	pageshift 14 || rc=1
	pageshift 16 || rc=1
	return $rc
}

variant_tsan() {
	local t=$SECONDS rc=0
	CC=clang configure build-tsan -Db_sanitize=thread -Db_lundef=false ||
		return 1
	build build-tsan || return 1
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tools/tsan.supp" \
		meson test -C build-tsan --suite concurrency --num-processes 1 \
		--print-errorlogs >build-tsan/test.log 2>&1 ||
		{ rc=1; tail -n 80 build-tsan/test.log; }
	tools/count-tests.sh build-tsan/meson-logs/testlog.json tsan
	elapsed tsan $t
	return $rc
}

variant_wrap() {
	local t=$SECONDS rc=0
	CC=clang configure build-wrap -Dkernel_wrap_trap=true -Db_lundef=false ||
		return 1
	build build-wrap || return 1
	UBSAN_OPTIONS=print_stacktrace=1 \
		meson test -C build-wrap --no-suite slow --num-processes 2 \
		--print-errorlogs "${scripts[@]}" >build-wrap/test.log 2>&1 ||
		{ rc=1; tail -n 60 build-wrap/test.log; }
	tools/count-tests.sh build-wrap/meson-logs/testlog.json unsigned-wrap
	elapsed wrap $t
	t=$SECONDS
	tools/ci-upstream.sh --extract-only >/dev/null || return 1
	CC=clang configure build-wrap-upstream -Dkernel_wrap_trap=true \
		-Db_lundef=false -Dkernel_src="$top/build-upstream-src" || return 1
	build build-wrap-upstream || return 1
	UBSAN_OPTIONS=print_stacktrace=1 \
		meson test -C build-wrap-upstream --no-suite slow --num-processes 2 \
		--print-errorlogs "${scripts[@]}" >build-wrap-upstream/test.log 2>&1 ||
		{ rc=1; tail -n 60 build-wrap-upstream/test.log; }
	tools/count-tests.sh build-wrap-upstream/meson-logs/testlog.json \
		unsigned-wrap-upstream-6.12
	elapsed wrap-upstream $t
	return $rc
}

variants=("$@")
[ ${#variants[@]} -eq 0 ] && variants=(sweeps asan pageshift tsan wrap)
for v in "${variants[@]}"; do
	case $v in
	sweeps|asan|pageshift|tsan|wrap) "variant_$v" || status=1 ;;
	*) echo "unknown variant $v (sweeps asan pageshift tsan wrap)" >&2; exit 2 ;;
	esac
done
exit $status
