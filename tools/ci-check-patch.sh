#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/check-patch on a real pair, checked against what is known of it:
#
#  1. a git repository in a scratch folder (build-check-patch-ci/linux)
#     holding the five files upstream mode reads from Debian's 6.12 tree
#     (taken from tools/ci-upstream.sh's extraction when it is there, else
#     with one tar call), committed as they are;
#  2. a second commit, a small patch to type1's unmap path written for this
#     check (make_patch below): the page-by-page contiguity scan of
#     vfio_unmap_unpin() yields every 2 MiB (cond_resched()), the
#     nothing-mapped branch moves on to the next page boundary instead of
#     one page on, and unmap_unpin_fast() says when a fast unmap failed
#     (pr_debug());
#  3. tools/check-patch --kernel that repository (base: HEAD~1, the default
#     without an upstream branch), with --json and --html;
#  4. the report checked: only resched_upstream failed (the patch closes a
#     listed reschedule gap); exactly the patch's lines listed,
#     in their functions, with the coverage each must have (the scan lines
#     run under the suites: every test that unmaps a contiguous 2 MiB or
#     more; the nothing-mapped branch, a WARN_ON(), runs once, in
#     type1_dma_upstream (found by running each test alone); no suite
#     makes a fast unmap fail, so the pr_debug() line is not covered; the
#     comments are not code) and the removed line; the cond_resched count
#     of each bar scenario up by exactly 511 (a 1 GiB contiguous BAR
#     scanned to its last page crosses 511 multiples of 2 MiB), the sweeps'
#     choice hits up (the new cond_resched() is a choice point), nothing
#     else changed (the map side, the heaps); the HTML page written; the
#     last line of the text as documented.
#
# Usage: tools/ci-check-patch.sh
# Environment: DMASIM_LINUX_SOURCE (the 6.12 tarball), DMASIM_CHECK_PATCH_DIR
#   (default build-check-patch-ci: the scratch repository and the builds,
#   kept between runs so a second run rebuilds nothing).
# Exit status: non-zero when the report is not what the patch makes it.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
work=$top/${DMASIM_CHECK_PATCH_DIR:-build-check-patch-ci}
ksrc=$work/linux
files=(Makefile drivers/vfio/vfio_iommu_type1.c drivers/vfio/vfio.h
       drivers/dma-buf/heaps/system_heap.c drivers/dma-buf/dma-heap.c)

make_patch() {
	python3 - "$1" <<'EOF'
import sys
path = sys.argv[1]
src = open(path).read()
scan = "\t\t\tif (next != phys + len)\n\t\t\t\tbreak;\n"
skip = "\t\tif (WARN_ON(!phys)) {\n\t\t\tiova += PAGE_SIZE;\n"
fast = "\t\tif (!unmapped) {\n\t\t\tkfree(entry);\n"
assert src.count(scan) == 1 and src.count(skip) == 1 and src.count(fast) == 1, \
    "type1 is not 6.12's"
src = src.replace(fast, "\t\tif (!unmapped) {\n"
    "\t\t\tpr_debug(\"vfio: fast unmap of %zu bytes failed\\n\", len);\n"
    "\t\t\tkfree(entry);\n")
src = src.replace(scan, scan +
    "\t\t\t/* A huge contiguous range is scanned page by page: yield. */\n"
    "\t\t\tif (!(len & (PMD_SIZE - 1)))\n"
    "\t\t\t\tcond_resched();\n")
src = src.replace(skip, "\t\tif (WARN_ON(!phys)) {\n"
    "\t\t\t/* Nothing mapped here: go on at the next page boundary. */\n"
    "\t\t\tiova = ALIGN(iova + 1, PAGE_SIZE);\n")
open(path, "w").write(src)
EOF
}

if [ ! -f "$ksrc/.git/ci-ready" ]; then
	rm -rf "$ksrc"
	mkdir -p "$ksrc"
	if [ -f build-upstream-src/.extracted ]; then
		(cd build-upstream-src && cp --parents "${files[@]}" "$ksrc/") || exit 1
	else
		archive=$(linux_source_tarball 6.12)
		[ -n "$archive" ] && [ -f "$archive" ] ||
			{ echo "ci-check-patch: no linux-source-6.12 tarball" >&2; exit 1; }
		extract_kernel_files "$archive" "$ksrc" "${files[@]}" || exit 1
	fi
	g() { git -C "$ksrc" -c user.name=dmasim-ci -c user.email=ci@dmasim.invalid "$@"; }
	g init -q -b master && g add -A &&
		g commit -qm "Linux 6.12 (the files dmasim's upstream mode reads)" || exit 1
	make_patch "$ksrc/drivers/vfio/vfio_iommu_type1.c" || exit 1
	g commit -qam "vfio/type1: yield in the unmap scan of a huge contiguous range" || exit 1
	touch "$ksrc/.git/ci-ready"
fi

out=$work/report
mkdir -p "$out"
tools/check-patch --kernel "$ksrc" --cache "$work/cache" --json "$out/report.json" \
	--html "$out/report.html" >"$out/report.txt"
rc=$?
cat "$out/report.txt"
# The patch adds a yield inside a loop the reschedule oracle lists as a
# kernel gap (tests/test_resched.c: a tree that adds one fails by name
# until the table says so): exactly that test fails, so check-patch exits 1.
[ $rc -eq 1 ] || { echo "ci-check-patch: check-patch exited $rc, want 1 (resched_upstream)"; exit 1; }

python3 - "$ksrc" "$out" <<'EOF'
import json, os, sys
ksrc, out = sys.argv[1:]
rep = json.load(open(os.path.join(out, "report.json")))
bad = []
def expect(cond, what):
    if not cond:
        bad.append(what)

src = open(os.path.join(ksrc, "drivers/vfio/vfio_iommu_type1.c")).read().split("\n")
def line_of(text):
    hits = [i + 1 for i, l in enumerate(src) if l.strip() == text]
    assert len(hits) == 1, text
    return hits[0]
want = {	# line: (function, status)
    line_of("/* A huge contiguous range is scanned page by page: yield. */"):
        ("vfio_unmap_unpin", "not code"),
    line_of("if (!(len & (PMD_SIZE - 1)))"): ("vfio_unmap_unpin", "covered"),
    line_of("if (!(len & (PMD_SIZE - 1)))") + 1:	# cond_resched();
        ("vfio_unmap_unpin", "covered"),
    line_of("/* Nothing mapped here: go on at the next page boundary. */"):
        ("vfio_unmap_unpin", "not code"),
    line_of("iova = ALIGN(iova + 1, PAGE_SIZE);"): ("vfio_unmap_unpin", "covered"),
    line_of('pr_debug("vfio: fast unmap of %zu bytes failed\\n", len);'):
        ("unmap_unpin_fast", "not covered"),
}
files = rep["coverage"]["files"]
expect([f["path"] for f in files] == ["drivers/vfio/vfio_iommu_type1.c"],
       "changed files: %s" % [f["path"] for f in files])
got, removed = {}, []
for f in files:
    for fn in f["functions"]:
        for l in fn["lines"]:
            if l["status"] == "removed":
                removed.append((fn["name"], l["removed"]))
            else:
                got[l["line"]] = (fn["name"], l["status"])
expect(got == want, "changed lines: got %s, want %s" % (sorted(got.items()), sorted(want.items())))
expect(removed == [("vfio_unmap_unpin", ["\t\t\tiova += PAGE_SIZE;"])],
       "removed lines: %s" % removed)
expect((rep["coverage"]["covered"], rep["coverage"]["lines"]) == (3, 4),
       "covered %d/%d, want 3/4" % (rep["coverage"]["covered"], rep["coverage"]["lines"]))
expect(rep["tests"]["failed_names"] == ["resched_upstream"] and rep["tests"]["passed"] > 0,
       "tests: %s (want exactly resched_upstream failed: the patch yields in a listed gap)"
       % rep["tests"])

changes = {(c["scenario"], c["figure"]): c for c in rep["changes"]}
for leaf in ("pud", "pmd", "pte"):
    c = changes.get(("bar 1G " + leaf, "counts.cond_resched"))
    expect(c is not None and c["patched"] - c["base"] == 511,
           "bar %s: cond_resched %s, want +511" % (leaf, c))
# The new cond_resched() is a choice point (include/dmasim/choices.def):
# the choose-nth sweeps that reach it make more choice runs; nothing else of
# the sweeps may change.
for (scenario, figure), c in changes.items():
    known = (scenario.startswith("bar ") and figure in ("counts.cond_resched", "sim_us.unmap")
             or scenario == "sweeps" and figure in ("choice hits", "choice runs",
                                                    "injected runs")
             and c["patched"] > c["base"])
    expect(known, "unexpected change: %s %s %s -> %s" % (scenario, figure, c["base"],
                                                         c["patched"]))
expect(("sweeps", "choice hits") in changes, "sweeps: no new choice hit")
expect(os.path.getsize(os.path.join(out, "report.html")) > 1000, "no HTML page")
last = open(os.path.join(out, "report.txt")).read().rstrip("\n").split("\n")[-1]
expect(last == "patch check: %d passed, 1 failed; changed lines covered 3/4"
       % rep["tests"]["passed"], "last line: " + last)
for b in bad:
    print("ci-check-patch: WRONG: " + b)
print("ci-check-patch: %s" % ("report as expected" if not bad else "%d problem(s)" % len(bad)))
sys.exit(1 if bad else 0)
EOF
