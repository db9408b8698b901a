#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The dmasim command line's conventions, command by command: -h, --help and
`help COMMAND` list every option with its default; bad input (an unknown
option or command, a missing or malformed value, a value out of range, a
--param the kernel does not know or refuses) is named on stderr with exit
status 2 and nothing on stdout, before anything runs; a run that fails
says where on stderr with exit status 1; values at the edges of their
ranges are accepted.  Usage: cli_bad_input.py PATH/TO/dmasim"""
import atexit
import os
import re
import shutil
import tempfile

from cli_run import check, finish, page_geometry, run, size_name

# Sizes the bar command checks against are the build's page geometry
# (4K, 2M, 1G with 4 KiB pages; 64K, 512M, 4T with 64 KiB pages).
PAGE, PMD, PUD = page_geometry()
P, M, U = size_name(PAGE), size_name(PMD), size_name(PUD)


# Saved reports --from-json refuses (rows below): not JSON, another
# build's, none at all, one without the figures.
PLOTS_SCRATCH = tempfile.mkdtemp(prefix="dmasim-bad-input-") + "/"
atexit.register(shutil.rmtree, PLOTS_SCRATCH)
for name, text in (("bad.json", '{"parameters" 1}'),
                   ("truncated.json", '{"parameters": {"page_shift": 12'),
                   ("other.json", '{"parameters": {"page_shift": 99}}'),
                   ("empty.json", "{}"),
                   ("nolevels.json", '{"parameters": {"page_shift": %d, "seeds": 1}}'
                    % (PAGE.bit_length() - 1))):
    with open(PLOTS_SCRATCH + name, "w") as f:
        f.write(text)

# Every command and every option it takes.  The test fails if `dmasim
# --help` lists a command this table does not know, or a command's --help
# lists other options than these: a new command brings its rows here.
OPTIONS = {
    "bar": ["size", "leaf", "offset", "no-addr-mask", "iommu", "ram", "json", "param"],
    "heap": ["size", "orders", "iommu", "ram", "seed", "frag", "cpus", "json", "param"],
    "bench": ["repeat", "only", "json", "param"],
    "report": ["seeds", "ram", "plots", "json", "from-json", "param"],
    "threads": ["cpus", "size", "rounds", "ram", "json", "param"],
    "params": ["param"],
    "replay": ["mode", "qemu-trace", "json", "param"],
}

# (argv, exit status, regex stderr must match).  Exit 2: stdout must be
# empty.  Commands that run long scenarios (report, bench) only get rows
# that fail before running.  Kinds: size, uint, enum, list, level, flag,
# param; and the parser's own errors.
BAD = [
    # the command itself
    ([], 2, r"usage: dmasim <command>"),
    (["nosuch"], 2, r"unknown command 'nosuch'"),
    (["-x"], 2, r"unknown command '-x'"),
    (["help", "nosuch"], 2, r"unknown command 'nosuch'"),
    (["help", "heap", "extra"], 2, r"unexpected argument 'extra'"),
    # size
    (["heap", "--size", "0"], 2, r"dmasim heap: --size 0 is out of range: 1\.\.16T"),
    (["heap", "--size", "17T"], 2, r"--size 17T is out of range: 1\.\.16T"),
    (["heap", "--size", "12Q"], 2, r"--size '12Q' is not a size"),
    (["heap", "--size", "-1"], 2, r"--size '-1' is not a size"),
    (["heap", "--size", " 1G"], 2, r"--size ' 1G' is not a size"),
    (["heap", "--size", "99999999999T"], 2, r"--size '99999999999T' is not a size"),
    (["heap", "--ram", "63M"], 2, r"--ram 63M is out of range: 64M\.\.16T"),
    (["bar", "--offset", "5"], 2, rf"--offset 5 is not a multiple of {P}"),
    (["bar", "--size", "0"], 2, r"--size 0 is out of range"),
    (["bar", "--ram", "1K"], 2, r"--ram 1K is out of range: 64M"),
    (["report", "--ram", "1G"], 2, r"dmasim report: --ram 1G is out of range: 4G\.\.16T"),
    # rules between options (a command's check)
    (["bar", "--size", "3M"], 2, rf"--size 3M is not a multiple of the pud leaf size, {U}"),
    (["bar", "--size", "3M", "--leaf", "pmd"], 2, rf"--size 3M is not a multiple of the pmd leaf size, {M}"),
    (["bar", "--size", U, "--offset", U], 2, rf"--offset {U} is not below --size {U}"),
    # uint
    (["heap", "--cpus", "0"], 2, r"--cpus 0 is out of range: 1\.\.64"),
    (["heap", "--cpus", "65"], 2, r"--cpus 65 is out of range: 1\.\.64"),
    (["heap", "--cpus", "2x"], 2, r"--cpus '2x' is not a whole number"),
    (["heap", "--seed", "x"], 2, r"--seed 'x' is not a whole number"),
    (["heap", "--seed", "-1"], 2, r"--seed '-1' is not a whole number"),
    (["heap", "--seed", "99999999999999999999"], 2, r"--seed 99999999999999999999 is out of range"),
    (["bench", "--repeat", "0"], 2, r"dmasim bench: --repeat 0 is out of range: 1\.\.100"),
    (["bench", "--repeat", "101"], 2, r"--repeat 101 is out of range: 1\.\.100"),
    (["report", "--seeds", "0"], 2, r"--seeds 0 is out of range: 1\.\.20"),
    (["report", "--seeds", "21"], 2, r"--seeds 21 is out of range: 1\.\.20"),
    # enum
    (["heap", "--iommu", "nosuch"], 2, r"--iommu 'nosuch' is not one of intel-sl, amd-v1, .*arm-lpae-64k"),
    (["bar", "--iommu", "INTEL-SL"], 2, r"--iommu 'INTEL-SL' is not one of"),
    (["bar", "--leaf", "pxd"], 2, r"--leaf 'pxd' is not one of pud, pmd, pte"),
    (["bench", "--only", "nosuch"], 2, r"--only 'nosuch' is not one of all, heap, memory, bar"),
    (["bench", "--only", ""], 2, r"--only '' is not one of"),
    # list
    (["heap", "--orders", "11,3"], 2, r"--orders 11,3: 11 is out of range: 0\.\.10"),
    (["heap", "--orders", "9,8,4,0,11"], 2, r"--orders 9,8,4,0,11: 11 is out of range"),
    (["heap", "--orders", "4,8,0"], 2, r"--orders 4,8,0: 8 after 4: the list must be strictly descending"),
    (["heap", "--orders", "9,9"], 2, r"--orders 9,9: 9 after 9: the list must be strictly descending"),
    (["heap", "--orders", "9,,4"], 2, r"--orders '9,,4' is not a comma-separated list"),
    (["heap", "--orders", "9,"], 2, r"--orders '9,' is not a comma-separated list"),
    (["heap", "--orders", ""], 2, r"--orders '' is not a comma-separated list"),
    (["heap", "--orders", "9;8"], 2, r"--orders '9;8' is not a comma-separated list"),
    # level
    (["heap", "--frag", "2"], 2, r"--frag '2' is neither a number in 0\.\.1 nor one of fresh, aged, fragmented"),
    (["heap", "--frag", "-0.5"], 2, r"--frag '-0\.5' is neither"),
    (["heap", "--frag", "0.5x"], 2, r"--frag '0\.5x' is neither"),
    (["heap", "--frag", "old"], 2, r"--frag 'old' is neither"),
    # flag
    (["heap", "--json=1"], 2, r"--json takes no value"),
    (["bar", "--no-addr-mask=yes"], 2, r"--no-addr-mask takes no value"),
    (["bench", "--json=0"], 2, r"--json takes no value"),
    # the parser: unknown options, missing values, repeats, stray words
    (["heap", "--bogus"], 2, r"dmasim heap: unknown option '--bogus'"),
    (["heap", "--bogus=1"], 2, r"unknown option '--bogus'"),
    (["heap", "-s", "1G"], 2, r"unknown option '-s'"),
    (["bar", "--bogus"], 2, r"dmasim bar: unknown option '--bogus'"),
    (["bench", "--bogus"], 2, r"dmasim bench: unknown option '--bogus'"),
    (["report", "--bogus"], 2, r"dmasim report: unknown option '--bogus'"),
    (["params", "--bogus"], 2, r"dmasim params: unknown option '--bogus'"),
    (["params", "extra"], 2, r"dmasim params: unexpected argument 'extra'"),
    (["report", "extra"], 2, r"unexpected argument 'extra'"),
    (["heap", "--size"], 2, r"--size needs a value"),
    (["bench", "--repeat"], 2, r"--repeat needs a value"),
    (["heap", "--size", "1G", "--size", "2G"], 2, r"--size given twice"),
    (["bench", "--json", "--json"], 2, r"--json given twice"),
    (["heap", "--size", "--json"], 2, r"--size '--json' is not a size"),
    # param
    (["params", "--param", "nodot=1"], 2, r"--param 'nodot=1' is not MODULE\.NAME=VALUE"),
    (["params", "--param", "system_heap.orders"], 2, r"--param 'system_heap\.orders' is not MODULE\.NAME=VALUE"),
    (["params", "--param", ".orders=1"], 2, r"is not MODULE\.NAME=VALUE"),
    (["params", "--param", "nosuch.x=1"], 2, r"--param nosuch\.x=1: no module 'nosuch' has parameters"),
    (["params", "--param", "system_heap.nosuch=1"], 2,
     r"--param system_heap\.nosuch=1: module system_heap has no parameter 'nosuch'"),
    (["params", "--param", "vfio_iommu_type1.disable_hugepages=maybe"], 2,
     r"--param vfio_iommu_type1\.disable_hugepages: 'maybe' is not a valid bool"),
    (["params", "--param", "vfio_iommu_type1.dma_entry_limit=-1"], 2,
     r"--param vfio_iommu_type1\.dma_entry_limit: '-1' is not a valid uint"),
    (["params", "--param", "system_heap.orders=9,x"], 2,
     r"--param system_heap\.orders: '9,x' is not a valid uint"),
    (["params", "--param", "vfio_iommu_type1.disable_hugepages=1",
      "--param", "vfio_iommu_type1.disable_hugepages=0"], 2,
     r"--param vfio_iommu_type1\.disable_hugepages given twice"),
    # a value the module refuses only in its init function
    (["bar", "--param", "system_heap.orders=4,8,0"], 2,
     r"dmasim bar: the kernel's initcalls failed \(Invalid argument\) with --param system_heap\.orders=4,8,0"),
    (["params", "--param", "system_heap.orders=11"], 2, r"initcalls failed .* --param system_heap\.orders=11"),
    # a parameter the command sets itself is refused, not overridden
    (["heap", "--param", "system_heap.orders=8,4,0"], 2,
     r"--param system_heap\.orders: dmasim heap sets this parameter itself"),
    (["report", "--param", "system_heap.orders=8,4,0"], 2, r"dmasim report sets this parameter itself"),
    (["bench", "--param", "system_heap.orders=8,4,0"], 2, r"dmasim bench sets this parameter itself"),
    (["bar", "--param", "nosuch.x=1"], 2, r"dmasim bar: --param nosuch\.x=1: no module 'nosuch'"),
    (["heap", "--param", "vfio_iommu_type1.disable_hugepages=2"], 2, r"'2' is not a valid bool"),
    (["report", "--param", "x"], 2, r"dmasim report: --param 'x' is not MODULE\.NAME=VALUE"),
    (["bench", "--param", "vfio_iommu_type1.nosuch=1"], 2, r"module vfio_iommu_type1 has no parameter 'nosuch'"),
    # threads
    (["threads", "--cpus", "0"], 2, r"dmasim threads: --cpus 0: 0 is out of range: 1\.\.64"),
    (["threads", "--cpus", "1,65"], 2, r"--cpus 1,65: 65 is out of range: 1\.\.64"),
    (["threads", "--cpus", "1,x"], 2, r"--cpus '1,x' is not a comma-separated list"),
    (["threads", "--cpus", "1,2,3,4,5,6,7,8,9"], 2, r"--cpus 1,2,3,4,5,6,7,8,9: more than 8 values"),
    (["threads", "--size", "1000"], 2, r"--size 1000 is out of range: 4K\.\.1T"),
    (["threads", "--size", "6K"], 2, r"--size 6K is not a multiple of 4K"),
    (["threads", "--rounds", "1001"], 2, r"--rounds 1001 is out of range: 0\.\.1000"),
    (["threads", "--ram", "1K"], 2, r"--ram 1K is out of range: 64M"),
    (["threads", "--size", "1G", "--cpus", "16", "--ram", "16G"], 2,
     r"--size 1073741824 on 16 CPUs needs more than half of --ram"),
    (["threads", "--param", "system_heap.orders=8,4,0"], 2, r"dmasim threads sets this parameter itself"),
    (["threads", "--bogus"], 2, r"dmasim threads: unknown option '--bogus'"),
    (["report", "--plots", ""], 2, r"--plots '' is not a DIR name"),
    (["report", "--plots"], 2, r"--plots needs a value \(DIR\)"),
    (["report", "--from-json", "x.json"], 2, r"dmasim report: --from-json draws plots: it needs --plots DIR"),
    (["report", "--from-json", ""], 2, r"--from-json '' is not a FILE name"),
    (["replay"], 2, r"dmasim replay: FILE missing"),
    (["replay", "a", "b"], 2, r"dmasim replay: unexpected argument 'b'"),
    (["replay", "--mode", "during", "x"], 2, r"--mode 'during' is not one of both, before, after"),
    # runs that fail: exit 1, where on stderr, no result on stdout
    (["replay", "/nonexistent.replay"], 1, r"dmasim replay: /nonexistent\.replay: No such file"),
    (["heap", "--ram", "64M", "--size", "128M"], 1, r"dmasim heap: failed at alloc: Cannot allocate memory \(-12\)"),
    # (--from-json of a saved report: tests/cli_report_check.py)
    (["report", "--from-json", "/nonexistent.json", "--plots", "/nonexistent-dir/x"], 1,
     r"dmasim report: --plots /nonexistent-dir/x: No such file"),
] + [
    (["report", "--from-json", PLOTS_SCRATCH + name, "--plots", PLOTS_SCRATCH + "plots"], 1,
     rf"dmasim report: --from-json {re.escape(PLOTS_SCRATCH + name)}: {why}")
    for name, why in (("nosuch.json", "No such file"),
                      ("bad.json", r"not JSON: expected ':' at byte 14"),
                      ("truncated.json", r"not JSON: expected ',' or '\}' at byte 32"),
                      ("other.json", r"not a report of this build \(parameters\.page_shift 99"),
                      ("empty.json", r"no usable 'page_shift' in it"),
                      ("nolevels.json", r"no usable 'heap_levels' in it"))
]

# Runs that must succeed: values at the edges of their ranges, both
# spellings of a value, and --param applied (small machines: fast).
GOOD = [
    ["heap", "--ram", "64M", "--size", "1", "--orders", "10,9,8,7,6,5,4,3,2,1,0", "--cpus", "64"],
    ["heap", "--ram=64M", "--size=4K", "--orders=0", "--frag=1", "--seed=0"],
    ["heap", "--ram", "64M", "--size", "1M", "--frag", "aged", "--iommu", "arm-lpae-4k"],
    ["bar", "--ram", "64M", "--size", P, "--leaf", "pte", "--iommu", "amd-v1", "--no-addr-mask"],
    ["bar", "--ram", "64M", "--size", size_name(2 * PMD), "--leaf", "pmd",
     "--offset", size_name(2 * PMD - PAGE)],
    ["params"],
    ["threads", "--cpus", "1,2", "--size", "64K", "--ram", "64M", "--rounds", "1"],
    # --cpus at its top on one round, --rounds at 0 (rounds by size: 64
    # at 4K) on one CPU: each edge on its own (both in one run, 64 CPUs
    # for 64 rounds each, was 0.33 s of CPU, a third of this test's).
    ["threads", "--cpus=64", "--size=4K", "--ram=64M", "--rounds=1", "--json"],
    ["threads", "--cpus=1", "--size=4K", "--ram=64M", "--rounds=0", "--json"],
]


def help_blocks(text):
    """Option name -> its help text (the line and its continuation lines)."""
    blocks, name = {}, None
    for line in text.splitlines():
        m = re.match(r"  (?:-h, )?--([a-z-]+)", line)
        if m:
            name = m.group(1)
            blocks[name] = line
        elif name and line.startswith("    "):
            blocks[name] += " " + line.strip()
        else:
            name = None
    return blocks


# The commands `dmasim --help` lists are the ones this test knows.
for spelling in (["-h"], ["--help"], ["help"]):
    p = run(*spelling)
    listed = re.findall(r"^  (\S+) ", p.stdout, re.M)
    check(p.returncode == 0 and p.stderr == "" and sorted(listed) == sorted(OPTIONS),
          f"dmasim {spelling[0]}: exit 0, lists exactly {sorted(OPTIONS)} (got {listed})")

# Each command's help, three spellings, the same text: every option, each
# with its default, and nothing else.
for cmd, opts in OPTIONS.items():
    texts = []
    for spelling in ([cmd, "-h"], [cmd, "--help"], ["help", cmd], [cmd, "--json", "--help"]
                     if "json" in opts else [cmd, "--help"]):
        p = run(*spelling)
        check(p.returncode == 0 and p.stderr == "", f"dmasim {' '.join(spelling)}: exit 0, no stderr")
        texts.append(p.stdout)
    check(len(set(texts)) == 1, f"{cmd}: -h, --help and help {cmd} print the same text")
    blocks = help_blocks(texts[0])
    check(sorted(blocks) == sorted(opts + ["help"]),
          f"{cmd} --help lists exactly {opts} and --help (got {sorted(blocks)})")
    for opt in opts:
        text = blocks.get(opt, "")
        check(re.search(r"\(default [^)]+\)", text) is not None,
              f"{cmd} --help: --{opt} has its default ({text!r})")

for args, status, pattern in BAD:
    p = run(*args)
    what = f"dmasim {' '.join(args)}: exit {status}, stderr ~ /{pattern}/"
    ok = p.returncode == status and re.search(pattern, p.stderr) is not None
    if status != 0:
        ok = ok and p.stdout == ""
        what += ", stdout empty"
    check(ok, what + ("" if ok else f" (got {p.returncode}, stderr {p.stderr.strip()!r}, "
                                     f"stdout {p.stdout[:80]!r})"))

for args in GOOD:
    p = run(*args)
    check(p.returncode == 0 and p.stderr == "" and p.stdout,
          f"dmasim {' '.join(args)}: exit 0, output on stdout only ({p.stderr.strip()!r})")

# --param reaches the kernel: params shows it, and the type1 walk maps a
# PMD BAR with 4 KiB IOMMU pages (intel-sl's smallest) once huge pages are
# disabled.
p = run("params", "--param", "vfio_iommu_type1.disable_hugepages=1",
        "--param", "vfio_iommu_type1.dma_entry_limit=7")
check(p.returncode == 0 and re.search(r"^vfio_iommu_type1\.disable_hugepages\s+bool\s+Y$", p.stdout, re.M)
      and re.search(r"^vfio_iommu_type1\.dma_entry_limit\s+uint\s+7$", p.stdout, re.M),
      "params --param: the values set are the values shown")
bar = ["bar", "--ram", "64M", "--size", size_name(4 * PMD), "--leaf", "pmd", "--json"]
leaves = {}
for extra in ([], ["--param", "vfio_iommu_type1.disable_hugepages=1"]):
    p = run(*bar, *extra)
    m = re.search(r'"iommu_leaves": \{([^}]*)\}', p.stdout)
    leaves[bool(extra)] = re.sub(r"\s+", "", m.group(1)) if m else None
    check(p.returncode == 0 and ('"params"' in p.stdout) == bool(extra),
          f"bar {' '.join(extra)}: exit 0, JSON names the --param given")
# With 4 KiB pages a PMD is one 2M IOMMU page; bigger PMDs map with 2M or
# bigger pages (1G where the BAR lines up), never 4K ones.
huge = leaves[False] == '"2M":4' if PAGE == 4096 else \
    bool(leaves[False]) and '"4K"' not in leaves[False]
check(huge and leaves[True] == f'"4K":{4 * PMD // 4096}',
      f"disable_hugepages=1 maps the {size_name(4 * PMD)} PMD BAR with 4K IOMMU pages (got {leaves})")

finish()
