#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The dmasim CLI as a user runs it: `dmasim heap` prints the fields the
issue promises, with the exact layouts of a fresh machine (bad input:
cli_bad_input.py).  Usage: cli_check.py PATH/TO/dmasim"""
import json

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

# Every IOMMU format maps and unmaps a 64 MiB buffer and gives everything back.
for fmt in ("intel-sl", "amd-v1", "amd-v2", "arm-lpae-4k", "arm-lpae-16k", "arm-lpae-64k"):
    d = heap("--size", "64M", "--iommu", fmt)
    check(d.get("leaked") is False and d.get("iommu_leaves"), f"{fmt}: leaves, nothing left behind")

finish()
