#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run the kernel's own style checker over core/ (every .c and .h):
#   perl scripts/checkpatch.pl --no-tree --terse -f FILE
# from Debian's linux-source-6.12 tarball, and fail on any ERROR or WARNING.
# The checker and its two data files are taken out of the tarball once (one
# tar call, ~12 s) into ${DMASIM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/dmasim}/checkpatch/.
#
# Usage: tools/checkpatch.sh [FILE...]   (default: core/**/*.[ch])
# Exit 77 (meson's "skipped") when the tarball or perl is missing, unless
# DMASIM_REQUIRE_CHECKPATCH=1, when that is a failure.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
cache=$(dmasim_cache)/checkpatch
tarball=$(linux_source_tarball 6.12)

unavailable() {
	echo "checkpatch: cannot check: $*" >&2
	[ "${DMASIM_REQUIRE_CHECKPATCH:-0}" = 1 ] && exit 1
	exit 77
}

[ -n "$tarball" ] && [ -f "$tarball" ] ||
	unavailable "/usr/src/linux-source-6.12.tar.xz is missing (apt-get install linux-source-6.12)"
command -v perl >/dev/null || unavailable "perl is not installed"

# One cache entry per tarball (its size and time tell versions apart).
key=$(stat -c '%s-%Y' "$tarball")
dir=$cache/$key
if [ ! -f "$dir/scripts/checkpatch.pl" ]; then
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/.extract.XXXXXX")
	tar -xf "$tarball" -C "$tmp" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' ||
		{ rm -rf "$tmp"; unavailable "cannot extract checkpatch.pl from $tarball"; }
	mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"	# lost a race: fine
fi

cd "$top"
if [ $# -gt 0 ]; then
	files=("$@")
else
	mapfile -t files < <(find core -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
fi
if [ ${#files[@]} -eq 0 ]; then
	echo "checkpatch: 0 files checked (core/ has no .c or .h files yet)"
	exit 0
fi

# A file that passed is remembered by its name and contents; CI
# (DMASIM_REQUIRE_CHECKPATCH=1) checks every file again.
passed=$dir/passed
mkdir -p "$passed"
bad=0 problems=0 unchanged=0
for f in "${files[@]}"; do
	sum=$( { echo "$f"; cat "$f"; } | sha256sum | cut -d' ' -f1)
	if [ "${DMASIM_REQUIRE_CHECKPATCH:-0}" != 1 ] && [ -f "$passed/$sum" ]; then
		unchanged=$((unchanged + 1))
		continue
	fi
	# checkpatch exits non-zero on errors only; judge by its report.
	out=$(perl "$dir/scripts/checkpatch.pl" --no-tree --terse --no-summary \
		--show-types -f "$f" 2>&1 || true)
	n=$(grep -cE '^[^:]+:[0-9]+: (ERROR|WARNING):' <<<"$out" || true)
	other=$(grep -vE '^[^:]+:[0-9]+: (ERROR|WARNING|CHECK):' <<<"$out" | grep -c . || true)
	if [ "$n" -gt 0 ] || [ "$other" -gt 0 ]; then
		printf '%s\n' "$out"
		bad=$((bad + 1))
		problems=$((problems + n))
	else
		: > "$passed/$sum"
	fi
done
echo "checkpatch: ${#files[@]} files checked ($unchanged unchanged since they passed)," \
	"$bad with problems ($problems errors/warnings)"
[ $bad -eq 0 ]
