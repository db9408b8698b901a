#!/bin/bash -eu
# SPDX-License-Identifier: GPL-2.0-only
# Build every fuzz/fuzz_<target>.c harness the way OSS-Fuzz and
# ClusterFuzzLite expect: with $CC $CFLAGS (compile) and $LIB_FUZZING_ENGINE
# (link), into $OUT, each with its .options, dictionary and seed corpus
# (fuzz_<target>_seed_corpus.zip).
#
# The simulator, the kernel shims and the kernel code are built by meson with
# the same $CC and $CFLAGS (so they carry the engine's coverage and the
# sanitizer), as static libraries (-Ddefault_library=static); this script
# compiles each harness and links it against them.  With libFuzzer's flags,
# the harnesses meson's fuzz_quiet_sim names are compiled, and link a
# simulator, without coverage, as meson's own fuzzing build does
# (fuzz/meson.build says why; meson's also links them a kapi/ without
# coverage, which stays instrumented here, inside libdmasim_kernel_core.a).
# libfiu is linked statically: the runner
# image does not have it.
#
# Outside OSS-Fuzz, e.g. with Debian's clang alone:
#   CC=clang CXX=clang++ \
#   CFLAGS='-O1 -g -fsanitize=address,undefined -fsanitize=fuzzer-no-link' \
#   LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out fuzz/oss-fuzz/build.sh
# The checkout: $DMASIM_SRC, else the tree this script sits in, else the
# working directory (OSS-Fuzz copies build.sh to $SRC and runs it from the
# checkout, its WORKDIR).
if [ -n "${DMASIM_SRC:-}" ]; then
	SRC_DIR=$DMASIM_SRC
elif [ -f "$(dirname "$0")/../../meson.build" ]; then
	SRC_DIR=$(dirname "$0")/../..
else
	SRC_DIR=$PWD
fi
SRC_DIR=$(cd "$SRC_DIR" && pwd)
: "${CC:=clang}" "${CXX:=clang++}" "${CFLAGS:=}" "${CXXFLAGS:=$CFLAGS}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}" "${OUT:?set OUT to the output directory}"
WORK=${WORK:-$(mktemp -d)}
BUILD=$WORK/dmasim-fuzz-build
mkdir -p "$OUT"

# The libraries, instrumented by $CFLAGS (meson also links with them).
rm -rf "$BUILD"
CC="$CC" CFLAGS="$CFLAGS" LDFLAGS="${LDFLAGS:-}" \
	meson setup "$BUILD" "$SRC_DIR" --buildtype=plain -Db_ndebug=false \
	-Dfuzzing=false -Ddefault_library=static >/dev/null
ninja -C "$BUILD" libdmasim_kernel_core.a sim/libdmasim_sim.a

# fuzz/meson.build's fuzz_quiet_sim harnesses learn from the kernel code's
# edges alone: with libFuzzer's flags, the harness is compiled and the
# simulator built a second time without coverage instrumentation (still
# with the sanitizers).
quiet_targets=$(sed -n "s/^fuzz_quiet_sim = \[\(.*\)\]/\1/p" \
	"$SRC_DIR/fuzz/meson.build" | tr -d "',")
quiet_sim=$BUILD/sim/libdmasim_sim.a
quiet_cflags=
case " $CFLAGS " in
*" -fsanitize=fuzzer-no-link "*)
	quiet_cflags=-fno-sanitize=fuzzer-no-link
	rm -rf "$BUILD-quiet"
	CC="$CC" CFLAGS="$CFLAGS -fno-sanitize=fuzzer-no-link" \
		LDFLAGS="${LDFLAGS:-}" meson setup "$BUILD-quiet" "$SRC_DIR" \
		--buildtype=plain -Db_ndebug=false -Dfuzzing=false \
		-Ddefault_library=static >/dev/null
	ninja -C "$BUILD-quiet" sim/libdmasim_sim.a
	quiet_sim=$BUILD-quiet/sim/libdmasim_sim.a
	;;
esac

plain_args=(-I"$SRC_DIR/include" -I"$SRC_DIR/fuzz" -D_GNU_SOURCE -DFIU_ENABLE=1
	    -DDMASIM_PAGE_SHIFT=12 -std=gnu11)
libs_with() {	# the simulator library to link
	libs=(-Wl,--whole-archive "$BUILD/libdmasim_kernel_core.a"
	      -Wl,--no-whole-archive "$1"
	      -Wl,-Bstatic -lfiu -Wl,-Bdynamic -ldl -lm -lpthread)
}

built=0
for src in "$SRC_DIR"/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	target=${name#fuzz_}
	# The differential harness needs two implementations: not here.
	[ "$target" = differential ] && continue
	libs_with "$BUILD/sim/libdmasim_sim.a"
	harness_cflags=
	case " $quiet_targets " in
	*" $target "*)
		libs_with "$quiet_sim"
		harness_cflags=$quiet_cflags
		;;
	esac
	# shellcheck disable=SC2086
	$CC $CFLAGS $harness_cflags "${plain_args[@]}" -c "$src" -o "$WORK/$name.o"
	# shellcheck disable=SC2086
	$CXX $CXXFLAGS "$WORK/$name.o" "${libs[@]}" $LIB_FUZZING_ENGINE \
		-o "$OUT/$name"
	for extra in options dict; do
		[ -f "$SRC_DIR/fuzz/$name.$extra" ] &&
			cp "$SRC_DIR/fuzz/$name.$extra" "$OUT/"
	done
	# .options name the dictionary by its file name: copy what they name.
	if [ -f "$SRC_DIR/fuzz/$name.options" ]; then
		dict=$(sed -n 's/^dict *= *//p' "$SRC_DIR/fuzz/$name.options")
		[ -n "$dict" ] && cp "$SRC_DIR/fuzz/$dict" "$OUT/"
	fi
	if [ -d "$SRC_DIR/fuzz/corpus/$target" ]; then
		rm -f "$OUT/${name}_seed_corpus.zip"
		(cd "$SRC_DIR/fuzz/corpus/$target" &&
		 python3 -c 'import sys, zipfile, os
z = zipfile.ZipFile(sys.argv[1], "w")
for f in sorted(os.listdir(".")):
    z.write(f)' "$OUT/${name}_seed_corpus.zip")
	fi
	built=$((built + 1))
	echo "built $OUT/$name"
done
[ "$built" -gt 0 ] || { echo "no harness built" >&2; exit 1; }
