#!/usr/bin/env bash
# Install every Debian 12 package dmasim's build, tests and CI use.
# Idempotent: a second run only checks.  Needs root (apt-get).
set -euo pipefail
pkgs=(meson ninja-build gcc clang pkg-config libcmocka-dev libfiu-dev fiu-utils
      valgrind gcovr lcov python3 xz-utils ca-certificates)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
