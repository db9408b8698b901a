#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The dmasim CLI as a user runs it: `dmasim heap` prints the fields the
issue promises, with the exact layouts of a fresh machine (bad input:
cli_bad_input.py).  Usage: cli_check.py PATH/TO/dmasim"""
import json
import os

from cli_run import check, finish, run


def heap(*args):
    p = run("heap", "--ram", "4G", "--json", *args)
    check(p.returncode == 0, f"dmasim heap {' '.join(args)} exits 0 ({p.stderr.strip()})")
    return json.loads(p.stdout) if p.returncode == 0 else {}


# A 1 GiB buffer on a fresh machine: 512 order-9 chunks (2 MiB with 4 KiB
# pages; the orders are kernel page orders: 32 chunks of 32 MiB with 64 KiB
# pages), every window a superpage.
d = heap("--size", "1G", "--orders", "9,8,4,0", "--iommu", "intel-sl")
for key in ("chunks", "sg_entries", "windows_2m", "iommu_leaves", "counts", "sim_us", "wall_ms",
            "page_size"):
    check(key in d, f"heap JSON has {key}")
PAGE = d.get("page_size", 4096)
check(PAGE in (4 << 10, 16 << 10, 64 << 10), f"page size {PAGE}: 4, 16 or 64 KiB")
check(d.get("chunks") == {"9": (1 << 30) // (PAGE << 9)},
      f"orders 9,8,4,0: {(1 << 30) // (PAGE << 9)} order-9 chunks")
check(d.get("windows_2m") == {"total": 512, "mappable": 512}, "all 512 windows mappable")
check(set(d.get("sim_us", {})) >= {"alloc", "map", "unmap", "free"}, "sim_us per phase")
check(d.get("leaked") is False, "everything returned after release")

# Mainline's orders: 1024 order-8 chunks (with 4 KiB pages).
d = heap("--size", "1G", "--orders", "8,4,0")
check(d.get("chunks") == {"8": (1 << 30) // (PAGE << 8)},
      f"orders 8,4,0: {(1 << 30) // (PAGE << 8)} order-8 chunks")

# Mixed length: one chunk of each of 8, 4, 0 (1 MiB + 64 KiB + 4 KiB with 4 KiB pages).
d = heap("--size", str((PAGE << 8) + (PAGE << 4) + PAGE), "--orders", "8,4,0")
check(d.get("chunks") == {"8": 1, "4": 1, "0": 1}, "one chunk each of orders 8,4,0")

# Every IOMMU format whose granule is at most the build's page maps and
# unmaps a 64 MiB buffer and gives everything back; a larger granule cannot
# back a DMA-API domain: the device is refused, and the reason named.
page_shift = int(os.environ["DMASIM_PAGE_SHIFT"])
formats = {"intel-sl": 12, "amd-v1": 12, "amd-v2": 12, "arm-lpae-4k": 12,
           "arm-lpae-16k": 14, "arm-lpae-64k": 16}
for fmt, granule_shift in formats.items():
    if granule_shift <= page_shift:
        d = heap("--size", "64M", "--iommu", fmt)
        check(d.get("leaked") is False and d.get("iommu_leaves"),
              f"{fmt}: leaves, nothing left behind")
        continue
    p = run("heap", "--ram", "4G", "--size", "64M", "--iommu", fmt)
    check(p.returncode == 1 and "failed at device: Invalid argument" in p.stderr
          and f"-Dpage_shift={granule_shift}" in p.stderr,
          f"{fmt}: refused at device setup on a {1 << (page_shift - 10)} KiB-page build, "
          f"with the build to use ({p.stderr.strip()})")


# dmasim threads: per CPU count, both order sets and the ratio; the same
# counts on every run (modelled time decides the interleaving); order 9 on
# the per-cpu lists takes the zone lock less often than order 8.
def threads(*args):
    p = run("threads", "--json", *args)
    check(p.returncode == 0, f"dmasim threads {' '.join(args)} exits 0 ({p.stderr.strip()})")
    return p.stdout, (json.loads(p.stdout) if p.returncode == 0 else {})


args = ("--cpus", "1,2,4", "--size", "4M", "--ram", "1G", "--rounds", "8")
text1, t = threads(*args)
text2, _ = threads(*args)
check(text1 == text2, "threads: two runs print the same JSON")
rows = t.get("cpus", [])
check([r.get("cpus") for r in rows] == [1, 2, 4], "threads: one row per CPU count, in order")
# An order-9 chunk fits the 4 MiB buffer only with 4 KiB pages (2 MiB; 8 and
# 32 MiB with 16 and 64 KiB pages, where the heap takes order 8 at most
# and both order sets allocate the same chunks, as the kernel's would).
order9_fits = (PAGE << 9) <= 4 << 20
for r in rows:
    b, a = r.get("orders_8_4_0", {}), r.get("orders_9_8_4_0", {})
    check(b.get("buffers") == 8 * r["cpus"] and a.get("buffers") == 8 * r["cpus"],
          f"{r['cpus']} CPUs: 8 buffers per CPU with each order set")
    check(abs(r.get("ratio", 0) - b.get("us_per_buffer", 0) / a.get("us_per_buffer", 1)) < 1e-3,
          f"{r['cpus']} CPUs: ratio = 8,4,0 time / 9,8,4,0 time")
    if order9_fits:
        check(b.get("zone_lock_takes", 0) > a.get("zone_lock_takes", 0) > 0,
              f"{r['cpus']} CPUs: 8,4,0 takes the zone lock more often than 9,8,4,0")
        check(r.get("ratio_zeroed_pages", 0) > r.get("ratio", 0),
              f"{r['cpus']} CPUs: without zeroing the order sets differ more")
        continue
    zb, za = r.get("orders_8_4_0_zeroed_pages"), r.get("orders_9_8_4_0_zeroed_pages")
    check(b == a and zb == za and b.get("zone_lock_takes", 0) > 0,
          f"{r['cpus']} CPUs: order 9 ({PAGE << 9} bytes) does not fit: the order sets cost the same")
    check(r.get("ratio") == 1 and r.get("ratio_zeroed_pages") == 1,
          f"{r['cpus']} CPUs: ratio 1, zeroed or not")
check(rows and rows[0]["orders_8_4_0"]["zone_lock_wait_ns"] == 0 and
      rows[-1]["orders_8_4_0"]["zone_lock_wait_ns"] > 0,
      "threads: one CPU never waits for the zone lock, four do")

# `dmasim bar` gives the simulator's wall and CPU time per phase beside the
# counts (the figures `dmasim bench` compares with its targets): a 1 MiB
# BAR of page leaves, one pfn lookup per page.
p = run("bar", "--size", "1M", "--leaf", "pte", "--no-addr-mask", "--json")
check(p.returncode == 0, f"dmasim bar --size 1M --leaf pte exits 0 ({p.stderr.strip()})")
d = json.loads(p.stdout) if p.returncode == 0 else {}
check(d.get("pfn_lookups") == (1 << 20) // PAGE, f"bar: {(1 << 20) // PAGE} pfn lookups")
for key in ("wall_ms", "cpu_ms"):
    t = d.get(key, {})
    check(set(t) == {"map", "unmap"} and all(v >= 0 for v in t.values()),
          f"bar JSON {key}: map and unmap, not negative")

finish()
