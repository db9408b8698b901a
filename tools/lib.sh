# SPDX-License-Identifier: GPL-2.0-only
# What the scripts in tools/ share; source it, do not run it:
#	. "$(dirname "$0")/lib.sh"
# It cds to the repository's top folder and sets $top.
#
#   dmasim_cache            the cache folder (kbuild headers, checkpatch)
#   linux_source_tarball V  the path of Debian's linux-source-V tarball
#                           ($DMASIM_LINUX_SOURCE wins), empty if none
#   extract_kernel_files TARBALL DIR FILE...
#                           take FILEs (tree paths) out of TARBALL into DIR
#                           with one tar call; fails naming a missing one
#   configure_build DIR [MESON OPTION...]
#                           meson setup DIR once (log in DIR.setup.log);
#                           CC from the environment as meson reads it
#   build_dir DIR           ninja -C DIR, quiet unless it fails
#   jobs                    how many parallel jobs (DMASIM_JOBS, default 2)

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 1

jobs() {
	echo "${DMASIM_JOBS:-2}"
}

dmasim_cache() {
	echo "${DMASIM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dmasim}"
}

linux_source_tarball() {
	local version=$1 f
	if [ -n "${DMASIM_LINUX_SOURCE:-}" ]; then
		echo "$DMASIM_LINUX_SOURCE"
		return
	fi
	for f in /usr/src/linux-source-"$version".tar.*; do
		[ -f "$f" ] && { echo "$f"; return; }
	done
}

extract_kernel_files() {
	local archive=$1 dir=$2 f
	shift 2
	mkdir -p "$dir" || return 1
	# '*/' matches the archive's top folder only (no slash inside it); one
	# call, since the archive is one xz stream.
	tar -xf "$archive" -C "$dir" --strip-components=1 \
		--wildcards --no-wildcards-match-slash "${@/#/*/}" || {
		echo "extracting from $archive failed" >&2
		return 1
	}
	for f in "$@"; do
		[ -f "$dir/$f" ] || { echo "$f missing from $archive" >&2; return 1; }
	done
}

configure_build() {
	local dir=$1
	shift
	[ -f "$dir/build.ninja" ] && return 0
	meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 ||
		{ cat "$dir.setup.log"; return 1; }
}

build_dir() {
	ninja -C "$1" -j"$(jobs)" >"$1/ninja.log" 2>&1 ||
		{ tail -n 40 "$1/ninja.log"; return 1; }
}
