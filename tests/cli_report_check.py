#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""`dmasim report` as a kernel developer reads it, and its --plots: every
line at most 100 columns, the run's parameters stated at the top, units in
the headers, summarised cells marked and the full data named, the BAR
section with its unmap side; the CSV files exactly as docs/plots.md lists
them and each SVG well-formed; the report kept as report.json, from which
--from-json draws the same figures again without running anything, here
without gnuplot: CSV and the way to the pictures.  One report on small
machines, one seed: still the slowest CLI test (suite slow).
Usage: cli_report_check.py PATH/TO/dmasim DOCS/plots.md"""
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from cli_run import DMASIM, check, finish

PLOTS_MD = sys.argv[2]


def documented_files():
    """file name -> (rows, [columns]) from the table in docs/plots.md."""
    files = {}
    for line in open(PLOTS_MD):
        m = re.match(r"\| `([a-z0-9_]+\.csv)` \| (\d+) \| `([^`]+)` \|", line)
        if m:
            files[m.group(1)] = (int(m.group(2)), m.group(3).split(","))
    return files


def report(*args, env=None):
    """dmasim report ARGS, its output into files (a pipe left unread would
    stop a long run)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.run([DMASIM, "report", *args], stdout=out, stderr=err, env=env,
                              timeout=600)
        texts = []
        for f in (out, err):
            f.seek(0)
            texts.append(f.read())
    return subprocess.CompletedProcess(proc.args, proc.returncode, *texts)


def check_csv(plots, docs):
    for name, (rows, columns) in docs.items():
        path = os.path.join(plots, name)
        check(os.path.exists(path), f"plots: {name} written")
        if not os.path.exists(path):
            continue
        with open(path, newline="") as f:
            table = list(csv.reader(f))
        check(table and table[0] == columns, f"{name}: header is {columns} (got {table[:1]})")
        check(len(table) - 1 == rows, f"{name}: {rows} rows (got {len(table) - 1})")
        for row in table[1:]:
            ok = len(row) == len(columns)
            for cell in row[1:] if name == "map_cost.csv" else row:
                try:
                    float(cell)
                except ValueError:
                    ok = False
            check(ok, f"{name}: row {row[:2]}... has {len(columns)} numeric cells")
            if not ok:
                break


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def same_figures(a, b):
    """Two CSV tables with the same header, first column and numbers, to
    the six significant digits the JSON keeps (5e-6 relative; a ratio of
    two such numbers twice that) and the cell's own last printed digit;
    NaN where the other has NaN."""
    if len(a) != len(b) or a[:1] != b[:1]:
        return False
    for ra, rb in zip(a[1:], b[1:]):
        if len(ra) != len(rb) or ra[0] != rb[0]:
            return False
        for x, y in zip(ra[1:], rb[1:]):
            fx, fy = float(x), float(y)
            last = 10.0 ** -(len(x.split(".")[1]) if "." in x else 0)
            if math.isnan(fx) or math.isnan(fy):
                if not (math.isnan(fx) and math.isnan(fy)):
                    return False
            elif not math.isclose(fx, fy, rel_tol=1.01e-5, abs_tol=1.01 * last):
                return False
    return True


docs = documented_files()
check(len(docs) == 4, f"docs/plots.md lists four CSV files (got {sorted(docs)})")
tmp = tempfile.mkdtemp(prefix="dmasim-plots-")
try:
    plots = os.path.join(tmp, "with")
    p = report("--seeds", "1", "--ram", "4G", "--plots", plots)
    check(p.returncode == 0, f"report --plots exits 0 ({p.stderr.strip()[:200]})")
    lines = p.stdout.splitlines()
    wide = [l for l in lines if len(l) > 100]
    check(lines and not wide, f"every line of the report is at most 100 columns ({wide[:2]})")
    head = "\n".join(lines[:8])
    check(re.search(r"4 GiB RAM", head) and re.search(r"PAGE_SHIFT \d+", head) and
          re.search(r"seeds 1\.\.1 per level", head),
          "the top states RAM, page size and seeds")
    for n in range(1, 7):
        check(re.search(rf"^== {n}\. ", p.stdout, re.M), f"section {n} present")
    check(re.search(r"alloc us +free us", p.stdout) and re.search(r"map us +unmap us", p.stdout),
          "section 1 headers carry units (us)")
    check(re.search(r"chunks \(count x size\)", p.stdout) and
          re.search(r"IOMMU leaves \(count x size\)", p.stdout),
          "chunks and leaves are both count x size")
    check(not re.search(r"\d+x\d+\b(?![KMG])", p.stdout.split("== 2.")[0]),
          "no count x order cells left in section 1")
    starred = [l for l in lines if re.search(r"\S\*\s", l + " ") and "summarised" not in l]
    check(not starred or "full counts in `dmasim report --json`" in p.stdout,
          "a summarised cell is marked and the full data named")
    check(re.search(r"unmap model +unmap wall", p.stdout), "the BAR section has its unmap side")
    check(re.search(r"o9 first\s", p.stdout) and "first order-9 attempt failed" in p.stdout,
          "the order-9 column and its legend say the same")
    check(f"{plots}" in p.stdout, "the report names the plots directory")
    check_csv(plots, docs)
    have_gnuplot = shutil.which("gnuplot") is not None
    for name in docs:
        svg = os.path.join(plots, name.replace(".csv", ".svg"))
        if not have_gnuplot:
            check(not os.path.exists(svg), f"no gnuplot here: no {os.path.basename(svg)}")
            continue
        try:
            root = ET.parse(svg).getroot()
            ok = root.tag.endswith("svg") and len(list(root.iter())) > 20
        except (ET.ParseError, OSError) as e:
            ok, root = False, e
        check(ok, f"{os.path.basename(svg)}: well-formed SVG with content ({root})")
    saved = os.path.join(plots, "report.json")
    try:
        with open(saved) as f:
            doc = json.load(f)
        ok = doc["parameters"]["seeds"] == 1 and doc["parameters"]["ram"] == 4 << 30 and \
            len(doc["heap_levels"]) == 8 and len(doc["threads"]) == 3 and "bar_32g" in doc
    except (OSError, ValueError, KeyError, TypeError) as e:
        ok, doc = False, e
    check(ok, f"--plots keeps the whole report as report.json ({str(doc)[:100]})")

    # The saved report drawn again without gnuplot on PATH: no simulation
    # runs; the same CSV, the scripts, and how to get the SVG.
    again = os.path.join(tmp, "without")
    p = report("--from-json", saved, "--plots", again,
               env=dict(os.environ, PATH=os.path.join(tmp, "empty")))
    check(p.returncode == 0 and "gnuplot is not installed" in p.stdout and
          "apt-get install gnuplot-nox" in p.stdout,
          f"without gnuplot: exit 0, the report says how to get the plots ({p.stderr.strip()})")
    check(p.stdout.startswith(f"== Plots in {again}\n") and "== 1." not in p.stdout,
          "--from-json prints the plots section only")
    check_csv(again, docs)
    check(not any(f.endswith(".svg") for f in os.listdir(again)), "without gnuplot: no SVG")
    check(all(os.path.exists(os.path.join(again, n.replace(".csv", ".gp"))) for n in docs),
          "without gnuplot: a gnuplot script beside each CSV")
    for name in docs:
        a, b = os.path.join(plots, name), os.path.join(again, name)
        if os.path.exists(a) and os.path.exists(b):
            check(same_figures(read_csv(a), read_csv(b)),
                  f"{name} from report.json has the report's figures")
finally:
    shutil.rmtree(tmp)
finish()
