#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Upstream mode in CI: a Linux tree's own vfio_iommu_type1.c, system_heap.c
# and dma-heap.c (Debian's linux-source-6.12 by default, linux-source-6.1
# with --debian 6.1), unmodified, under the kernel test suites (and the
# differential tests) in a build directory of its own.
#
#  1. extract only the files upstream mode reads, with one tar call (the
#     archive is one xz stream: every extra call decompresses it again),
#     into a scratch folder: the three .c files, the driver-local header
#     type1 includes (drivers/vfio/vfio.h), the top-level Makefile (for
#     the version), and mm/memory.c and drivers/iommu/iommu.c (functions
#     taken from them at build time: tools/extract-functions.py);
#  2. configure the build directory with -Dkernel_src=<that folder>;
#  3. build: the drift check runs first and stops the build with its report
#     (tools/shim-drift.py, kept in the build directory) if the shim lacks
#     anything the tree uses; then
#     run every suite that runs kernel code against 'upstream' (suite
#     'upstream') plus 'differential', 'slow' left out (the sweeps run:
#     the known GET_INFO leak is expected by sweep_type1_info), and
#     print the sweep totals (tools/sweep-totals.py);
#  4. the 100,000-input differential replays of type1 and the heap
#     (fuzz_differential_*_100k, suite 'slow', by name; their time printed).
#
# Usage: tools/ci-upstream.sh [--debian VERSION] [KERNEL_SRC | --extract-only]
#   --debian V     Debian's linux-source-V (default 6.12), extracted from
#                  /usr/src/linux-source-V.tar.xz into build-upstreamVV-src
#                  and built in build-upstreamVV (VV: V without dots; 6.12
#                  keeps build-upstream-src and build-upstream)
#   KERNEL_SRC     a tree to use instead (mainline)
#   --extract-only step 1 alone: the seven files into $DMASIM_UPSTREAM_BUILD-src
#                  (tools/mutation-score.sh --impl upstream uses them)
# CI has no network, so .ci/run checks the Debian trees (6.12, then 6.1).
# A mainline check, with a build directory of its own (docs/upstream.md,
# "Mainline"):
#   DMASIM_UPSTREAM_BUILD=build-mainline tools/ci-upstream.sh /path/to/linux
# Environment: DMASIM_LINUX_SOURCE (a tarball instead of /usr/src's),
#   DMASIM_UPSTREAM_BUILD (the build directory).
# Exit status: non-zero when the tree does not build or a test fails.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
version=6.12
if [ "${1:-}" = --debian ]; then
	version=${2:?--debian needs a version, e.g. 6.1}
	shift 2
fi
suffix=${version//./}
[ "$version" = 6.12 ] && suffix=
archive=$(linux_source_tarball "$version")
builddir=${DMASIM_UPSTREAM_BUILD:-build-upstream$suffix}

extract_only=0
if [ "${1:-}" = --extract-only ]; then
	extract_only=1
	shift
fi
label=upstream-$version	# the test counts' label (tools/count-tests.sh)
if [ $# -ge 1 ]; then
	ksrc=$(realpath "$1")
	label=upstream
else
	ksrc=$top/$builddir-src
	files=(Makefile drivers/vfio/vfio_iommu_type1.c drivers/vfio/vfio.h
	       drivers/dma-buf/heaps/system_heap.c drivers/dma-buf/dma-heap.c
	       mm/memory.c drivers/iommu/iommu.c)
	have=1
	for f in "${files[@]}"; do [ -f "$ksrc/$f" ] || have=0; done
	if [ $have -eq 0 ] || [ ! -f "$ksrc/.extracted" ] || [ "$archive" -nt "$ksrc/.extracted" ]; then
		[ -n "$archive" ] && [ -f "$archive" ] || { echo "ci-upstream: no linux-source-$version tarball (apt-get install linux-source-$version)" >&2; exit 1; }
		rm -rf "$ksrc"
		start=$SECONDS
		extract_kernel_files "$archive" "$ksrc" "${files[@]}" || exit 1
		touch "$ksrc/.extracted"
		echo "ci-upstream: extracting the files took $((SECONDS - start)) s"
	fi
fi
echo "ci-upstream: kernel tree $ksrc"
[ $extract_only -eq 0 ] || exit 0

status=0
start=$SECONDS
if [ -d "$builddir" ]; then
	meson setup --reconfigure "$builddir" -Dkernel_src="$ksrc" >/dev/null || exit 1
else
	meson setup "$builddir" -Dkernel_src="$ksrc" >/dev/null || exit 1
fi

# The build checks drift first (upstream/meson.build's gate runs
# tools/shim-drift.py, report in $builddir/shim-drift.txt) and stops there
# with the report while the shim lacks something the tree uses.
if ! ninja -C "$builddir" -j2 >"$builddir/build.log" 2>&1; then
	if grep -q '^upstream mode: .* uses what kernel_shim lacks' "$builddir/build.log"; then
		echo "ci-upstream: the tree uses what kernel_shim lacks:"
		sed -n '/^Shim drift report/,/^upstream mode: /p' "$builddir/build.log"
	else
		echo "ci-upstream: the tree's files do not build against kernel_shim:"
		grep -E ': (fatal )?error:' "$builddir/build.log" | sort -u | head -n 40
	fi
	echo "(full log: $builddir/build.log)"
	exit 1
fi
echo "ci-upstream: configuring and building took $((SECONDS - start)) s"
sed -n '1p;/^== /p;$p' "$builddir/shim-drift.txt" 2>/dev/null
# Warnings from the tree's own files compiled against the shim.
warnings=$(grep -cE "^$ksrc/.*warning:" "$builddir/build.log" || true)
if [ "$warnings" -gt 0 ]; then
	echo "ci-upstream: $warnings warning(s) compiling the tree's files:"
	grep -E "^$ksrc/.*warning:" "$builddir/build.log" | head -n 20
	status=1
fi

# The suites that exist in this build ('differential' may not yet).
mapfile -t suites < <(meson introspect --tests "$builddir" | python3 -c '
import json, sys
have = {s for t in json.load(sys.stdin) for s in t["suite"]}
for s in ("upstream", "differential"):
    if any(h == s or h.endswith(":" + s) for h in have):
        print("--suite"); print(s)')
if [ ${#suites[@]} -eq 0 ]; then
	echo "ci-upstream: no kernel test suites are registered yet (tests/meson.build kernel_tests)"
	exit $status
fi
# Every suite but 'slow', 'sweep' included: a tree's known leaks are
# expected per version by the sweeps themselves (<dmasim/impl.h>, e.g.
# DMASIM_IMPL_GET_INFO_CAPS_LEAK) and counted apart in their report.
skip=(--no-suite slow)
start=$SECONDS
meson test -C "$builddir" "${suites[@]}" "${skip[@]}" --num-processes 2 \
	--print-errorlogs >"$builddir/test.log" 2>&1 || status=1
echo "ci-upstream: the suites took $((SECONDS - start)) s"
grep -E '^(Ok|Fail|Timeout|Skipped):' "$builddir/test.log"
python3 tools/sweep-totals.py "$builddir/meson-logs/testlog.json" --impl upstream || status=1
[ $status -eq 0 ] || tail -n 60 "$builddir/test.log"
if [ -x tools/count-tests.sh ] && [ -f "$builddir/meson-logs/testlog.json" ]; then
	tools/count-tests.sh "$builddir/meson-logs/testlog.json" "$label"
fi
# The 100,000-input differential replays (suite 'slow', run by name, with a
# log of their own so testlog.json above stays the suites'): random and
# mutated inputs, half with a choice stream, through both type1s and both
# heaps; each prints one summary line (inputs, identical or not, inputs
# whose choice streams parted, choice alternatives taken, known bugs
# steered around by name).
if meson introspect --tests "$builddir" | grep -q fuzz_differential_type1_100k; then
	start=$SECONDS
	meson test -C "$builddir" fuzz_differential_type1_100k \
		fuzz_differential_heap_100k --logbase differential-100k \
		--print-errorlogs >"$builddir/differential-100k.log" 2>&1 || status=1
	grep -h '^fuzz-differential: [0-9]' "$builddir/meson-logs/differential-100k.txt"
	grep -E '^(Ok|Fail|Timeout):' "$builddir/differential-100k.log"
	echo "ci-upstream: 100k differential replays took $((SECONDS - start)) s"
fi
exit $status
