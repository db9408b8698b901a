#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prove that core/ is real kernel code: compile every core/**/*.c as an
# out-of-tree kbuild object against Debian's linux-headers-6.12 (amd64), and
# fail on any error or warning.  Files that need an interface 6.12 lacks are
# listed, with the reason, in tools/kbuild-skip.txt and only reported.
#
# Nothing is installed system-wide: the three Debian packages (headers for
# amd64, the common headers, kbuild) are fetched with `apt-get download` and
# unpacked with `dpkg -x` into a cache directory, reused by later runs:
#   ${DMASIM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/dmasim}/kbuild/<abi>
#
# Usage: tools/kbuild-check.sh [--fetch]
#   --fetch   only make sure the headers are in the cache (used by .ci/run).
# Exit 77 (meson's "skipped") when the headers or the compiler cannot be
# had, unless DMASIM_REQUIRE_KBUILD=1, when that is a failure.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
cache=$(dmasim_cache)/kbuild
skiplist=$top/tools/kbuild-skip.txt
series=6.12

unavailable() {
	echo "kbuild: cannot check: $*" >&2
	[ "${DMASIM_REQUIRE_KBUILD:-0}" = 1 ] && exit 1
	exit 77
}

# Newest Debian ABI of the series that apt knows, e.g. "6.12.117+deb12".
newest_known_abi() {
	apt-cache search --names-only "^linux-headers-${series//./\\.}\.[0-9]+\+[a-z0-9.]+-amd64\$" 2>/dev/null |
		sed -nE "s/^linux-headers-(${series//./\\.}\.[0-9]+\+[a-z0-9.]+)-amd64 .*/\1/p" |
		sort -V | tail -n 1 || true
}

newest_cached_abi() {
	ls -1 "$cache" 2>/dev/null | grep -E "^${series//./\\.}\.[0-9]+\+" | sort -V | tail -n 1 || true
}

# Download and unpack one ABI into $cache/<abi>, atomically (several worktrees
# may share the cache).
fetch_headers() {
	local abi=$1 tmp hdr
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
	if ! (cd "$tmp" && apt-get download -qq "linux-headers-$abi-amd64" \
			"linux-headers-$abi-common" "linux-kbuild-$abi" 2>/dev/null); then
		rm -rf "$tmp"
		return 1
	fi
	for deb in "$tmp"/*.deb; do
		dpkg -x "$deb" "$tmp/root" || { rm -rf "$tmp"; return 1; }
	done
	rm -f "$tmp"/*.deb
	# The one absolute path: the amd64 Makefile includes the common tree's.
	hdr=$tmp/root/usr/src/linux-headers-$abi-amd64
	sed -i "s|/usr/src/linux-headers-$abi-common|$cache/$abi/root/usr/src/linux-headers-$abi-common|" \
		"$hdr/Makefile"
	if ! mv -T "$tmp" "$cache/$abi" 2>/dev/null; then
		rm -rf "$tmp"	# another run got there first
	fi
	# Older ABIs are superseded (about 95 MB each).
	for old in "$cache"/"$series".*; do
		[ "$old" = "$cache/$abi" ] || rm -rf "$old"
	done
	[ -f "$cache/$abi/root/usr/src/linux-headers-$abi-amd64/Makefile" ]
}

# Pick the headers: the newest apt knows (updating apt's lists once if it
# knows none and we may), else the newest already cached (offline runs).
# apt is asked at most once a day outside CI (it takes seconds).
stamp=$cache/.apt-asked
abi=
if [ "${DMASIM_REQUIRE_KBUILD:-0}" != 1 ] && [ -n "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
	abi=$(newest_cached_abi)
fi
if [ -z "$abi" ]; then
	abi=$(newest_known_abi)
	[ -z "$abi" ] || { mkdir -p "$cache" && touch "$stamp"; }
fi
if [ -z "$abi" ] && [ "$(id -u)" = 0 ] && [ -z "$(newest_cached_abi)" ]; then
	apt-get update -qq >/dev/null 2>&1 || true
	abi=$(newest_known_abi)
fi
if [ -n "$abi" ] && [ ! -d "$cache/$abi" ]; then
	fetch_headers "$abi" || echo "kbuild: could not download linux-headers-$abi" >&2
fi
[ -n "$abi" ] && [ -d "$cache/$abi" ] || abi=$(newest_cached_abi)
[ -n "$abi" ] || unavailable "no linux-headers-$series.*-amd64 known to apt or cached in $cache"
kdir=$cache/$abi/root/usr/src/linux-headers-$abi-amd64

[ "${1:-}" = --fetch ] && { echo "kbuild: headers $abi in $kdir"; exit 0; }

command -v make >/dev/null || unavailable "make is not installed"
cc=$(sed -nE 's/^CC = .*\$\(CROSS_COMPILE\)(.*)$/\1/p' "$kdir/.kernelvariables")
command -v "x86_64-linux-gnu-${cc:-gcc-12}" >/dev/null ||
	unavailable "x86_64-linux-gnu-${cc:-gcc-12} is not installed"

# The skip list: "path interface version" per line, '#' comments.
declare -A skip_why=()
if [ -f "$skiplist" ]; then
	while read -r path iface since _; do
		case $path in ''|'#'*) continue ;; esac
		skip_why[$path]="needs $iface, since v$since"
	done < "$skiplist"
fi

mapfile -t sources < <(cd "$top" && find core -name '*.c' -type f | LC_ALL=C sort)
build=() skipped=()
for src in "${sources[@]}"; do
	if [ -n "${skip_why[$src]:-}" ]; then
		skipped+=("$src: ${skip_why[$src]}")
	else
		build+=("$src")
	fi
done

report() {
	local msg="kbuild: $1 compiled, ${#skipped[@]} skipped"
	[ ${#skipped[@]} -gt 0 ] && msg+=" ($(printf '%s; ' "${skipped[@]}" | sed 's/; $//'))"
	[ ${#sources[@]} -eq 0 ] && msg+=" (core/ has no .c files yet)"
	echo "$msg"
}

# A clean result is remembered for its exact inputs (every file under core/
# but the meson.build files, which kbuild never reads; the skip list, this
# script, the headers, the compiler), so an unchanged tree is not compiled
# again; CI (DMASIM_REQUIRE_KBUILD=1) always compiles.
inputs=$( {
	echo "$abi"
	"x86_64-linux-gnu-${cc:-gcc-12}" --version | head -n 1
	cat "$0" "$skiplist" 2>/dev/null
	cd "$top" && find core -type f ! -name meson.build | LC_ALL=C sort | xargs -r sha256sum
} | sha256sum | cut -d' ' -f1)
passed=$cache/$abi/passed/$inputs
if [ "${DMASIM_REQUIRE_KBUILD:-0}" != 1 ] && [ -f "$passed" ]; then
	echo "$(cat "$passed") (unchanged since the last clean run)"
	exit 0
fi

# A scratch module tree: core/ copied with its paths (so quoted includes
# resolve beside each file) and a Kbuild listing every object as a module of
# its own (so each gets KBUILD_MODNAME from its file name, as in meson).
# Two probe modules of our own are always built too: a clean one, so a broken
# toolchain shows even while core/ is empty, and one with a deliberate
# warning, so the check proves it still sees warnings.
mod=$(mktemp -d "${TMPDIR:-/tmp}/dmasim-kbuild.XXXXXX")
trap 'rm -rf "$mod"' EXIT
cp -r "$top/core/." "$mod/"
find "$mod" -name meson.build -delete
probe=dmasim_kbuild_probe
mkdir "$mod/$probe"
cat > "$mod/$probe/clean.c" <<'PROBE'
// SPDX-License-Identifier: GPL-2.0-only
#include <linux/module.h>
MODULE_LICENSE("GPL");
PROBE
cat > "$mod/$probe/warns.c" <<'PROBE'
// SPDX-License-Identifier: GPL-2.0-only
#include <linux/module.h>
int dmasim_probe(void);
int dmasim_probe(void)
{
	int dmasim_probe_unused;

	return 0;
}
MODULE_LICENSE("GPL");
PROBE
printf 'obj-m += %s/clean.o %s/warns.o\n' "$probe" "$probe" > "$mod/Kbuild"
targets=()
for src in "${build[@]}"; do
	rel=${src#core/}
	echo "obj-m += ${rel%.c}.o" >> "$mod/Kbuild"
	targets+=("${rel%.c}.o")
done

log=$mod/kbuild.log
rc=0
LC_ALL=C LANG=C LC_MESSAGES=C make -C "$kdir" M="$mod" -k -j"${DMASIM_JOBS:-2}" \
	"$probe/clean.o" "$probe/warns.o" "${targets[@]}" >"$log" 2>&1 || rc=$?

compiled=0 failed=()
for t in "${targets[@]}"; do
	if [ -f "$mod/$t" ]; then
		compiled=$((compiled + 1))
	else
		failed+=("core/${t%.o}.c")
	fi
done
[ -f "$mod/$probe/clean.o" ] || failed+=("the toolchain probe (an empty module)")
grep -q "$probe/warns.c:.*warning:.*dmasim_probe_unused" "$log" ||
	failed+=("the warning probe (its deliberate warning was not seen)")
# The log without the probes' lines (and the source excerpts under them).
core_log() {
	awk '/dmasim_probe/ { skip = 1; next }
	     skip && /^ +[0-9]* *\|/ { next }
	     { skip = 0; print }' "$log"
}
warnings=$(core_log | grep -cE '(warning|error):' || true)

report "$compiled"
if [ $rc -ne 0 ] || [ ${#failed[@]} -gt 0 ] || [ "$warnings" -gt 0 ]; then
	echo "kbuild: FAILED against linux-headers-$abi-amd64:" \
		"${#failed[@]} file(s) did not compile, $warnings warning/error line(s)"
	[ ${#failed[@]} -gt 0 ] && printf '  not compiled: %s\n' "${failed[@]}"
	core_log | sed -E "s|$mod/|core/|g" |
		grep -vE '^  CC \[M\]|Entering directory|Leaving directory|not remade because|__sub-make'
	exit 1
fi
mkdir -p "${passed%/*}"
report "$compiled" > "$passed"
