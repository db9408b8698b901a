#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""dmasim replay: the shipped 4-GPU scenario and the QEMU trace importer,
their counts checked against a hand calculation.

Usage: replay_check.py PATH/TO/dmasim SCENARIOS_DIR
       [--small-vm | --slow[=before|after] | --slow-all]

Default: the sample QEMU trace, the gpu leaf sizes and hugetlb RAM.
--small-vm: a small VM of the shipped 4-GPU scenario's shape (2 GPUs
with 2 GiB BARs, 2 GiB of RAM, 3 passes), before and after the
huge-pfnmap series, unmap_stride off and on, the hand calculation
checked on each (under a second; meson runs it beside the default).
--slow: the shipped 4-GPU, 128 GiB, 8-pass scenario, the same hand
calculation, before the series with unmap_stride off (about 1.2 billion
pfn lookups and as many IOMMU probes: suite bench, a minute of CPU) and
after with unmap_stride on, and the 1-GPU 64 GiB 3-pass one after with
unmap_stride off (per-page unmap probes); --slow=before or --slow=after
runs one of the two (meson runs them as two tests, at once).  The 4-GPU
scenario after the series with unmap_stride off is not run again: its
map is the after run's (the map does not depend on unmap_stride) and its
unmap the before run's (both modes leave the IOMMU with the same 1 GiB
leaves, and mainline's unmap probes them alike), 1.2 billion probes that
would be most of the slow suite's --slow=after.  --slow-all runs it too.

The counts follow from the build's page size (the JSON's page_size): a
page table holds page_size / 8 entries, so a PMD leaf is 2 MiB, 32 MiB or
512 MiB with 4, 16 or 64 KiB pages and a PUD 1 GiB, 64 GiB or 4 TiB; a
leaf bigger than the BAR falls back to the next smaller one; type1 pins
in batches of page_size / 8 pages (a page of struct page pointers)."""
import json
import os
import sys

from cli_run import check, finish, page_geometry, run, size_name

SCEN = os.path.abspath(sys.argv[2])
SLOW_MODES = {"--slow": ["before", "after"], "--slow=before": ["before"],
              "--slow=after": ["after"], "--slow-all": ["before", "after"]}
SLOW_ALL = "--slow-all" in sys.argv[3:]
SLOW = next((SLOW_MODES[a] for a in sys.argv[3:] if a in SLOW_MODES), None)
SMALL_VM_ONLY = "--small-vm" in sys.argv[3:]
KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
PAGE = None     # the build's page size, from the first replay's JSON


def replay(path, *args):
    global PAGE
    p = run("replay", "--json", *args, os.path.join(SCEN, path),
            timeout=1200 if SLOW else 120)
    check(p.returncode == 0, f"replay {path} {' '.join(args)}: exit 0 ({p.stderr.strip()})")
    if p.returncode:
        return None
    r = json.loads(p.stdout)
    PAGE = r["page_size"]
    return r


def entries():
    """Entries of one page-table page (8 bytes each)."""
    return PAGE // 8


def leaf_size(bar, level):
    """The leaf a BAR mmap of leaves up to `level` is mapped with: that
    level's size, or the next smaller one while it is bigger than the BAR."""
    sizes = {"pud": PAGE * entries() ** 2, "pmd": PAGE * entries(), "pte": PAGE}
    order = ["pud", "pmd", "pte"]
    for lv in order[order.index(level):]:
        if sizes[lv] <= bar:
            return sizes[lv]
    return PAGE


def pin_batch():
    """Bytes type1 pins per GUP call: a page of struct page pointers."""
    return entries() * PAGE


def phase(result, mode, name):
    for r in result["runs"]:
        if r["mode"] == mode:
            for ph in r["phases"]:
                if ph["name"] == name:
                    return ph
    raise KeyError((mode, name))


def expect(result, mode, name, side, **want):
    ph = phase(result, mode, name)[side]
    got = {k: ph["ops"] if k == "ops" else ph["counts"][k] for k in want}
    check(got == want, f"{mode} {name} {side}: {want} (got {got})")


def bar_on(bar, level, before):
    """One MAP_DMA of a zapped (or never faulted) BAR mmap of leaves up to
    `level`: per leaf one GUP attempt that fails, a lookup that fails, the
    fault, and then a lookup per page (before: 6.12 loop) or per leaf
    (after)."""
    leaves = bar // leaf_size(bar, level)
    if before:
        return dict(pfn_lookups=bar // PAGE + leaves, gup_calls=bar // PAGE, faults=leaves)
    return dict(pfn_lookups=2 * leaves, gup_calls=leaves, faults=leaves)


def bar_off(bar, stride):
    """One UNMAP_DMA of a BAR: mainline probes the IOMMU and asks
    pfn_valid() (put_pfn) once per page; unmap_stride neither."""
    n = 0 if stride else bar // PAGE
    return dict(iommu_walks=n, pfn_valid_checks=n, unpin_pages=0)


def device_faults(bar, level, maps):
    """What a BAR mmap of leaves up to `level` costs its vfio-pci device
    over `maps` MAP_DMAs after a zap (or none before): one huge fault per
    leaf each time, of that leaf's size."""
    leaf = leaf_size(bar, level)
    kind = {PAGE: "faults_pte", PAGE * entries(): "faults_pmd"}.get(leaf, "faults_pud")
    want = dict(faults_pud=0, faults_pmd=0, faults_pte=0)
    want[kind] = maps * (bar // leaf)
    return want


def expect_devices(result, mode, want):
    """Each GPU's device counts ({name: {counter: value}}), no fault
    refused with SIGBUS (a huge fault that falls back to a smaller leaf,
    as vfio-pci's does where the leaf does not fit, is no error)."""
    for r in result["runs"]:
        if r["mode"] != mode:
            continue
        got = {d["name"]: {k: d[k] for k in want.get(d["name"], {})} for d in r["devices"]}
        check(got == want, f"{mode} devices: {want} (got {got})")
        bad = [d["name"] for d in r["devices"] if d["sigbus"]]
        check(not bad, f"{mode}: no device fault refused with SIGBUS (got {bad})")


def times(d, k):
    return {key: v * k for key, v in d.items()}


# A small VM of the shipped scenario's shape (docs/replay.md): RAM below
# and above a 4 GiB boundary, GPUs with PUD-leaf BARs turned on by the
# firmware, sized {passes} times, all of it gone at shutdown.
SMALL_VM = """machine ram={machine} iommu=intel-sl
container
ram guest {ram} page=2m
{gpus}
phase ram
add guest 0 0 {low}
add guest 4G {low} {high}
phase firmware
{on}
phase sizing
repeat {passes}
{offon}
end
phase shutdown
{off}
del 0 {low}
del 4G {high}
"""


# The machine holds the guest's RAM and 4 GiB more (the shipped scenario:
# 8 GiB more).  With 2 GiB more the guest's RAM was not in one physical
# piece, and mainline's unmap made one IOMMU probe more per break than the
# hand calculation's one per page.
MACHINE_EXTRA = 4 * GiB

# The small VM: every count of the hand calculation scales with the BAR
# and the RAM, and none of its rules needs more than two PUD leaves per
# BAR (or, where a PUD is bigger than the BAR, two or more PMD leaves) and
# RAM of more than one pin batch on each side of the 4 GiB boundary.  2
# GiB each: half the CPU of the 4 GiB each it had (the before mode's per
# page lookups and the memmap of the pinned RAM are most of it).
SMALL_VM_SHAPE = dict(gpus=2, bar=2 * GiB, passes=3, ram=2 * GiB)


def small_vm(d, gpus, bar, passes, ram):
    """SMALL_VM written into folder d: its path."""
    names = [f"gpu{g}" for g in range(gpus)]
    at = {n: f"{1024 + g * bar // GiB}G" for g, n in enumerate(names)}
    path = os.path.join(d, f"vm-{gpus}gpu.replay")
    with open(path, "w") as f:
        f.write(SMALL_VM.format(
            machine=size_name(MACHINE_EXTRA + ram), ram=size_name(ram), passes=passes,
            low=size_name(ram // 2), high=size_name(ram - ram // 2),
            gpus="\n".join(f"gpu {n} bar={size_name(bar)} leaf=pud" for n in names),
            on="\n".join(f"bar-on {n} {at[n]}" for n in names),
            offon="\n".join(f"bar-off {n}\nbar-on {n} {at[n]}" for n in names),
            off="\n".join(f"bar-off {n}" for n in names)))
    return path


def check_vm(path, mode, stride, gpus, bar, passes, ram):
    """A VM of gpus GPUs with a `bar` BAR each (PUD leaves), `ram` bytes
    of guest RAM in 2 MiB folios, the BARs sized `passes` times: every
    phase's counts from the hand calculation above."""
    args = ["--mode", mode, "--param", f"vfio_iommu_type1.unmap_stride={int(stride)}"]
    r = replay(path, *args)
    if not r:
        return
    before = mode == "before"
    # RAM: THP, one GUP call per batch (512 pages of 4 KiB: one 2 MiB
    # folio); nothing in the IOMMU walked, no pfnmap.
    expect(r, mode, "ram", "map", ops=2, gup_calls=ram // pin_batch(), pfn_lookups=0)
    expect(r, mode, "firmware", "map", ops=gpus, **times(bar_on(bar, "pud", before), gpus))
    expect(r, mode, "sizing", "map", ops=gpus * passes,
           **times(bar_on(bar, "pud", before), gpus * passes))
    expect(r, mode, "sizing", "unmap", ops=gpus * passes,
           **times(bar_off(bar, stride), gpus * passes))
    # Shutdown: the BARs, then the RAM (every page unpinned).  Mainline's
    # unmap probes the IOMMU once per page of pinned RAM too (its run
    # finding does not know the folios); unmap_stride records the RAM's
    # runs at map time and probes none.
    off = times(bar_off(bar, stride), gpus)
    off["unpin_pages"] = ram // PAGE
    if not stride:
        off["iommu_walks"] += ram // PAGE
    expect(r, mode, "shutdown", "unmap", ops=gpus + 2, **off)
    # Each GPU: mapped at boot and after each pass, its mmap zapped by
    # vfio-pci at each decode off (the passes and the shutdown).
    expect_devices(r, mode, {f"gpu{g}": dict(device_faults(bar, "pud", passes + 1),
                                             zaps=passes + 1) for g in range(gpus)})
    total = r["runs"][0]["total"]["map"]["counts"]["pfn_lookups"]
    if before:
        leaves = bar // leaf_size(bar, "pud")
        maps = gpus * (passes + 1)
        check(total == maps * (bar // PAGE + leaves),
              f"before: {total} pfn lookups = {maps} BAR maps x ({bar // PAGE:,} + {leaves})")


def check_4gpu(mode, stride):
    """The shipped 4-GPU scenario (scenarios/vm-4gpu-128g-8x.replay)."""
    check_vm(os.path.join(SCEN, "vm-4gpu-128g-8x.replay"), mode, stride,
             gpus=4, bar=128 * GiB, passes=8, ram=16 * GiB)


def check_small_vms():
    """The same hand calculation on a small VM of the same shape, in both
    modes and with unmap_stride off and on: seconds where the shipped
    4-GPU scenario's before run takes a minute (suite bench)."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = small_vm(d, **SMALL_VM_SHAPE)
        for mode, stride in (("before", False), ("after", False), ("after", True)):
            check_vm(path, mode, stride, **SMALL_VM_SHAPE)


def check_1gpu_probes():
    bar = 64 * GiB
    r = replay("vm-1gpu-64g-3x.replay", "--mode", "after",
               "--param", "vfio_iommu_type1.unmap_stride=0")
    if r:
        expect(r, "after", "sizing", "unmap", ops=3, **times(bar_off(bar, False), 3))
        expect(r, "after", "sizing", "map", ops=3, **times(bar_on(bar, "pud", False), 3))


def check_qemu_trace():
    """scenarios/qemu-sample.trace: RAM 0-2G and 4G-6G (adjacent in the
    host: one 4 GiB THP object), a 256 KiB ROM (small pages: one GUP
    call), BAR0 16 MiB (PMD leaves) and BAR1 8 GiB (PUD leaves) of one GPU,
    a sub-page BAR QEMU does not map, three decode off/on passes, then RAM
    4G-6G removed."""
    r = replay("qemu-sample.trace", "--qemu-trace", "--mode", "after",
               "--param", "vfio_iommu_type1.unmap_stride=1")
    if not r:
        return
    check(r["events"] == 24, f"trace: 24 events: container, 4 objects, phase, 11 adds, 7 dels "
          f"(got {r['events']})")
    bars = {16 * MiB: "pmd", 8 * GiB: "pud"}
    want = {"pfn_lookups": 0, "gup_calls": 4 * GiB // pin_batch() + 1, "faults": 0}
    for size, leaf in bars.items():
        for k, v in bar_on(size, leaf, False).items():
            want[k] += 4 * v          # mapped at boot and after each of 3 passes
    expect(r, "after", "trace", "map", ops=11, **want)
    expect_devices(r, "after", {
        "bar0": dict(device_faults(8 * GiB, "pud", 4), zaps=3),
        "bar3": dict(device_faults(16 * MiB, "pmd", 4), zaps=3)})
    expect(r, "after", "trace", "unmap", ops=7, iommu_walks=0, pfn_valid_checks=0,
           unpin_pages=2 * GiB // PAGE)
    p = run("replay", "--qemu-trace", os.path.join(SCEN, "vm-1gpu-64g-8x.replay"))
    check(p.returncode == 1 and "no vfio_listener_region_add_ram" in p.stderr,
          "a file that is not a QEMU trace: exit 1, said why")


LEAVES = """machine ram=4G iommu=intel-sl
container
gpu gpu0 bar=1G leaf={leaf}
phase boot
bar-on gpu0 64G
phase pass
bar-off gpu0
bar-on gpu0 64G
"""


def check_gpu_leaf_sizes():
    """`gpu ... leaf=pud|pmd|pte`: the BAR mmap is placed so vfio-pci's
    huge fault inserts leaves of that size and no larger (or the next
    smaller one that fits the BAR); each bar-on after a decode-off faults
    every leaf back, one fault per leaf; a MAP_DMA before any gpu has no
    IOMMU backend to map with (exit 1, said why)."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        for leaf in ("pud", "pmd", "pte"):
            path = os.path.join(d, f"{leaf}.replay")
            with open(path, "w") as f:
                f.write(LEAVES.format(leaf=leaf))
            r = replay(path, "--mode", "after")
            if r:
                expect_devices(r, "after", {"gpu0": dict(device_faults(GiB, leaf, 2), zaps=1)})
        # (A small machine and guest: what is checked is the refusal; a 1
        # GiB guest on 4 GiB took 48 ms of CPU to set up, this 6 ms.)
        path = os.path.join(d, "nogpu.replay")
        with open(path, "w") as f:
            f.write("machine ram=256M iommu=intel-sl\ncontainer\nram guest 64M\nadd guest 0\n")
        p = run("replay", path)
        check(p.returncode == 1 and "no IOMMU backend" in p.stderr,
              f"MAP_DMA with no gpu in the container: exit 1, said why ({p.stderr.strip()})")


HUGETLB = """machine ram={ram} iommu=intel-sl
container
ram guest {guest} page={page}
gpu gpu0 bar=1G
phase ram
add guest 0 0 {half}
add guest {guest} {half} {half}
phase shutdown
del 0 {half}
del {guest} {half}
"""

# The largest hugetlb page the 1g check maps: a PUD of 16 KiB pages (64
# GiB).  A PUD of 64 KiB pages is 4 TiB, and a machine that holds one
# aligned (8 TiB) takes the simulator longer to set up than the default
# suite's whole timeout; only the refusal is checked there.
LARGEST_PUD_MAPPED = 64 * GiB


def check_hugetlb_1g():
    """Guest RAM in hugetlbfs PUD pages ("1g": 1 GiB with 4 KiB pages, 64
    GiB with 16 KiB): type1 pins every page and the IOMMU maps 4 GiB (or
    the one PUD page) with 1 GiB leaves, four with 4 KiB pages (2048 2 MiB
    ones for PMD pages, "2m"); every pin comes back.  A size that is not
    whole PUD pages is refused, naming the page size."""
    import tempfile
    page_size, pmd, pud = page_geometry()
    with tempfile.TemporaryDirectory() as d:
        for page, hpage, leaf in (("2m", pmd, 2 * MiB), ("1g", pud, GiB)):
            if hpage > LARGEST_PUD_MAPPED:
                print(f"skip page={page}: a {size_name(hpage)} page needs a machine of "
                      f"{size_name(2 * hpage)}, too slow to set up here")
                continue
            guest = max(4 * GiB, hpage)
            # one aligned page above the low-RAM hole (4 GiB with 4 KiB pages)
            ram = max(8 * GiB, 2 * hpage + 4 * GiB)
            path = os.path.join(d, f"h{page}.replay")
            with open(path, "w") as f:
                f.write(HUGETLB.format(page=page, ram=size_name(ram),
                                       guest=size_name(guest),
                                       half=size_name(guest // 2)))
            r = replay(path, "--mode", "after")
            if not r:
                continue
            expect(r, "after", "ram", "map", ops=2, gup_pages=guest // PAGE,
                   iommu_pte_writes=guest // leaf, faults=0)
            expect(r, "after", "shutdown", "unmap", ops=2,
                   unpin_pages=guest // PAGE, iommu_pte_clears=guest // leaf)
        path = os.path.join(d, "bad.replay")
        with open(path, "w") as f:
            f.write("machine ram=8G iommu=intel-sl\ncontainer\n"
                    f"ram guest {size_name(pud + pud // 2)} page=1g\n")
        p = run("replay", path)
        why = f"not a multiple of the {size_name(pud)} (PUD) page"
        check(p.returncode == 1 and why in p.stderr,
              f"page=1g of {size_name(pud + pud // 2)}: exit 1, {why} ({p.stderr.strip()})")

if SLOW:
    if "before" in SLOW:
        check_4gpu("before", False)
    if "after" in SLOW:
        if SLOW_ALL:
            check_4gpu("after", False)
        check_4gpu("after", True)
        check_1gpu_probes()
elif SMALL_VM_ONLY:
    check_small_vms()
else:
    check_qemu_trace()
    check_gpu_leaf_sizes()
    check_hugetlb_1g()
finish()
