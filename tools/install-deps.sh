#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Install every Debian 12 package dmasim's build, tests and CI use.
# Idempotent: a second run only checks.  Needs root (apt-get) when something
# is missing.
#   build and tests     meson ninja-build gcc pkg-config libcmocka-dev
#                       libfiu-dev fiu-utils python3
#   CI                  valgrind, gcovr/lcov (coverage), clang (fuzzing),
#                       libclang-rt-14-dev (libFuzzer), afl++ (AFL++ builds)
#   kbuild check        make gcc-12 libelf1 zlib1g (tools/kbuild-check.sh
#                       fetches the 6.12 headers itself with apt-get download)
#   style check         linux-source-6.12 (checkpatch.pl), perl
#   upstream mode       linux-source-6.12 and linux-source-6.1 (their files),
#                       python3-clang-14
#                       (tools/shim-drift.py)
#   report plots        gnuplot-nox (dmasim report --plots renders SVG from
#                       its CSV with gnuplot's svg terminal)
set -euo pipefail
pkgs=(meson ninja-build gcc clang pkg-config libcmocka-dev libfiu-dev fiu-utils
      valgrind gcovr lcov python3 xz-utils ca-certificates
      make gcc-12 libelf1 zlib1g linux-source-6.12 linux-source-6.1 perl python3-clang-14
      libclang-rt-14-dev afl++ gnuplot-nox)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	echo "install-deps: on a fresh Debian 12 this downloads about 500 MB (503 MB in a fresh root on 2 December; linux-source-6.1: 139 MB of it)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update
	# apt's own progress stays visible: a first install takes minutes.
	apt-get install -y --no-install-recommends "${missing[@]}"
fi
