#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Coverage of a kernel tree's own files under dmasim's suites (upstream mode).

    meson setup build-upcov -Db_coverage=true -Dkernel_src=$(realpath ~/linux)
    ninja -C build-upcov upstream-coverage

runs, in that build, every suite that runs kernel code against 'upstream'
(and 'differential'; 'slow' left out), then prints line and branch coverage
of the tree's files per function, each with its lines in the file (for a
file only some functions of which are compiled, --extracted: those; lines
of inlined helpers gcov names no function for are one row) (from gcov's JSON, so every figure is
gcov's own), and writes an HTML report with annotated sources
(gcovr --html-details) and a JSON one (gcovr --json) under
build-upcov/upstream-coverage/.  See docs/upstream.md.

    tools/upstream-coverage.py BUILD SRC... [--kernel-src DIR] [--run-tests]
                               [--suite S]... [--out DIR]

A branch counts as covered when it was taken at least once (gcov's "taken
at least once"); a line when it ran.  Counters are reset (every .gcda under
BUILD removed) before --run-tests runs the suites, so the figures are those
of this run alone.  Exit status: 1 if a test failed or no coverage data was
found, else 0.
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys


def note_files(build, src, ext):
    """meson's coverage files (.gcno/.gcda) that may belong to src: meson
    names an object after the source path, mangled ('/' to '_'), so the
    name ends with the file's base name; gcov_json() checks the match."""
    base = os.path.basename(src) + ext
    return [p for p in glob.glob(os.path.join(build, '**', '*' + ext), recursive=True)
            if os.path.basename(p) == base or os.path.basename(p).endswith('_' + base)]


def gcno_exists(build, src):
    return bool(note_files(build, src, '.gcno'))


def gcov_json(build, gcda, src):
    out = subprocess.run(['gcov', '--json-format', '--stdout', '--branch-probabilities',
                          '--object-directory', gcda, os.path.abspath(src)],
                         cwd=build, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError('gcov failed on %s: %s' % (gcda, out.stderr.strip()))
    real = os.path.realpath(src)
    for doc in out.stdout.splitlines():
        doc = doc.strip()
        if not doc:
            continue
        for f in json.loads(doc)['files']:
            path = f['file']
            if not os.path.isabs(path):
                path = os.path.join(build, path)
            if os.path.realpath(path) == real:
                return f
    return None


def per_function(fdata):
    """[(name, start, lines, lines_run, branches, branches_taken, end)] in
    file order."""
    funcs = {f['name']: [f['name'], f['start_line'], 0, 0, 0, 0, f.get('end_line', 0)]
             for f in fdata['functions']}
    for line in fdata['lines']:
        # gcov names no function for the lines of a static inline helper
        # inlined everywhere (an extracted file's pfnmap_args_setup()).
        name = line.get('function_name') or '(inlined helpers)'
        if name not in funcs:
            funcs[name] = [name, line['line_number'], 0, 0, 0, 0, line['line_number']]
        rec = funcs[name]
        rec[1] = min(rec[1], line['line_number'])
        rec[6] = max(rec[6], line['line_number'])
        rec[2] += 1
        rec[3] += line['count'] > 0
        for b in line['branches']:
            rec[4] += 1
            rec[5] += b['count'] > 0
    return sorted((tuple(r) for r in funcs.values()), key=lambda r: r[1])


def pct(n, d):
    return '   -  ' if d == 0 else '%5.1f%%' % (100.0 * n / d)


def table(rel, rows, extracted=False):
    """Per function: its lines in the file, line and branch coverage."""
    out = []
    w = max([len(r[0]) for r in rows] + [8])
    out.append('%s%s' % (rel, ' (the functions taken from it: tools/extract-functions.py)'
                         if extracted else ''))
    out.append('  %-*s  %-11s  %6s %11s  %8s %11s' % (
        w, 'function', 'file lines', 'lines', '', 'branches', ''))
    tl = tr = tb = tt = 0
    for name, start, lines, run, br, taken, end in rows:
        out.append('  %-*s  %-11s  %s %11s  %8s %11s' % (
            w, name, '%d-%d' % (start, end), pct(run, lines), '(%d/%d)' % (run, lines),
            pct(taken, br), '(%d/%d)' % (taken, br) if br else ''))
        tl += lines
        tr += run
        tb += br
        tt += taken
    out.append('  %-*s  %-11s  %s %11s  %8s %11s' % (
        w, 'TOTAL', '', pct(tr, tl), '(%d/%d)' % (tr, tl), pct(tt, tb),
        '(%d/%d)' % (tt, tb)))
    return out, (tr, tl, tt, tb)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('build', help='a meson build directory configured with -Db_coverage=true')
    ap.add_argument('sources', nargs='+', help='the source files to report on')
    ap.add_argument('--kernel-src', help='root the file names are shown relative to')
    ap.add_argument('--run-tests', action='store_true',
                    help='reset the counters and run the suites first')
    ap.add_argument('--suite', action='append',
                    help='suite to run (default: upstream and differential)')
    ap.add_argument('--no-suite', action='append', dest='no_suite',
                    help='suite to leave out (default: slow)')
    ap.add_argument('--extracted', action='append', default=[], metavar='SRC',
                    help='a source of which only some functions are compiled '
                         '(tools/extract-functions.py): said so in its table')
    ap.add_argument('--out', help='directory for functions.txt, index.html and '
                                  'coverage.json (default BUILD/upstream-coverage)')
    opts = ap.parse_args()

    build = os.path.abspath(opts.build)
    out_dir = os.path.abspath(opts.out or os.path.join(build, 'upstream-coverage'))
    root = os.path.abspath(opts.kernel_src) if opts.kernel_src else None
    if not any(gcno_exists(build, s) for s in opts.sources):
        sys.exit('upstream-coverage: no coverage notes (.gcno) for these files in %s: '
                 'configure it with -Db_coverage=true (meson configure %s '
                 '-Db_coverage=true) and build' % (build, build))

    status = 0
    if opts.run_tests:
        for path in glob.glob(os.path.join(build, '**', '*.gcda'), recursive=True):
            os.remove(path)
        intro = subprocess.run(['meson', 'introspect', '--tests', build],
                               capture_output=True, text=True, check=True)
        have = {s.split(':')[-1] for t in json.loads(intro.stdout) for s in t['suite']}
        wanted = opts.suite or ['upstream', 'differential']
        suites = [s for s in wanted if s in have]
        if not suites:
            sys.exit('upstream-coverage: none of the suites %s is registered in %s'
                     % (', '.join(wanted), build))
        cmd = ['meson', 'test', '-C', build, '--num-processes', '2']
        for s in opts.no_suite or ['slow']:
            cmd += ['--no-suite', s]
        if os.environ.get('MESON_BUILD_ROOT'):
            # Run by ninja (the upstream-coverage target): ninja may not be
            # run again inside itself, so the build must be up to date.
            dry = subprocess.run(['ninja', '-C', build, '-n'], capture_output=True, text=True)
            if 'no work to do' not in dry.stdout:
                sys.exit('upstream-coverage: %s is not up to date: run `ninja -C %s` '
                         'first, then this target' % (build, build))
            cmd.append('--no-rebuild')
        for s in suites:
            cmd += ['--suite', s]
        print('upstream-coverage: ' + ' '.join(cmd), flush=True)
        run = subprocess.run(cmd, capture_output=True, text=True)
        for line in run.stdout.splitlines():
            if line.startswith(('Ok:', 'Fail:', 'Timeout:', 'Expected Fail:',
                                'Unexpected Pass:', 'Skipped:')):
                print('  ' + line.strip())
        if run.returncode != 0:
            print('upstream-coverage: some tests failed (%s/meson-logs/testlog.txt); '
                  'coverage below is of the run as it went' % build)
            status = 1

    report = []
    totals = []
    for src in opts.sources:
        rel = os.path.relpath(src, root) if root else src
        fdata = None
        for gcda in note_files(build, src, '.gcda'):
            fdata = gcov_json(build, gcda, src)
            if fdata is not None:
                break
        if fdata is None:
            report.append('%s: never ran (no coverage data)' % rel)
            status = 1
            continue
        lines, tot = table(rel, per_function(fdata), extracted=any(
            os.path.realpath(src) == os.path.realpath(e) for e in opts.extracted))
        report += lines + ['']
        totals.append((rel, tot))
    if totals:
        report.append('summary (lines, branches taken):')
        for rel, (tr, tl, tt, tb) in totals:
            report.append('  %-40s %s (%d/%d)  %s (%d/%d)' % (
                rel, pct(tr, tl), tr, tl, pct(tt, tb), tt, tb))
    text = '\n'.join(report) + '\n'
    sys.stdout.write(text)

    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, 'functions.txt'), 'w') as f:
        f.write(text)
    gcovr = shutil.which('gcovr')
    if gcovr and totals:
        filters = []
        for src in opts.sources:
            filters += ['--filter', os.path.realpath(src).replace('.', r'\.')]
        base = [gcovr, '--root', root or os.path.dirname(os.path.commonpath(
            [os.path.realpath(s) for s in opts.sources])), '--object-directory', build,
            '--branches'] + filters + [build]
        html = os.path.join(out_dir, 'index.html')
        subprocess.run(base + ['--html-details', html, '--html-title',
                               'dmasim: upstream files under the suites',
                               '--json', os.path.join(out_dir, 'coverage.json')],
                       cwd=build, check=False)
        print('HTML report: %s' % html)
        print('JSON report: %s' % os.path.join(out_dir, 'coverage.json'))
    elif not gcovr:
        print('upstream-coverage: gcovr not installed: no HTML report')
    return status


if __name__ == '__main__':
    sys.exit(main())
