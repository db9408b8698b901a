#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/shim-drift.py on a made-up tree whose files each show one case:
what the report must list, and what it must not.

The drift report has to see what the compiler sees.  A name kernel_shim
defines only in a header the file does not include, directly or through
other headers, is drift (last session's miss: num_pages_contiguous() was in
<linux/mm_inline.h> only, which linux-next's type1 did not include).  A
driver-local header displaced by a force-included one (upstream/include/)
expands to nothing, so what it includes is neither reached nor missing.
Branches the preprocessor skips are not uses.  A designated initializer
naming a member the shim's struct lacks, and NAME(x); at file scope with no
macro NAME, are drift.

Each case is a file of the tree, passed with --file; the report has one
"== file" section per file.

Then drift stops the build: a made-up tree holding the files upstream mode
compiles, whose type1 calls a function no shim has, is configured as
-Dkernel_src in a scratch build directory (meson passes its own source
tree and meson command); building the type1 library must fail at the drift
step with the report (the name, its line, the file), before the compiler
sees the file, and write no stamp.  A second tree, the same without the
missing call, passes the step and its type1 library builds.

Exit 0 when every case holds, 1 otherwise, 77 (skipped) without libclang
for python.

    tests/shim_drift_check.py [--keep DIR] [MESON...]

--keep DIR (meson passes the tests' build folder) keeps the two made-up
trees and their build folders in DIR/shim-drift-gate/<hash of this check,
tools/shim-drift.py and upstream/meson.build> between runs, as a developer
keeps a build: each is configured once (a whole configure of the project,
the check's main cost), its files are rewritten only when their content
differs (upstream mode reconfigures when a tree file changes), and ninja
decides what to redo from what changed.  The drift tree's step fails, so it
runs on every check; the clean tree's runs again when the shim headers,
the tree or the build files change.  Older folders are removed.  Without
--keep, temporary folders, configured from nothing.  The made-up cases'
run keeps the tool's parse of the shim headers there too (--cache, as the
drift step of an upstream build does in its build folder); that cache is
checked first, on a made-up shim folder: read back while nothing changed,
parsed again after an edit to a header reached only through another, or
a new header.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from kept_scratch import kept_scratch_folder

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DRIFT = os.path.join(TOP, 'tools', 'shim-drift.py')
DISPLACER = 'upstream/include/vfio_local.h'

# name: (file text, forced headers, what the section must say, must not say)
CASES = {
    # The shim defines cc_platform_has() in <linux/cc_platform.h> only.
    'drivers/t/unreached.c': (
        '#include <linux/types.h>\n'
        'bool f(void) { return cc_platform_has(CC_ATTR_MEM_ENCRYPT); }\n',
        [],
        [r'0 not provided by kernel_shim, 2 not reached',
         r'cc_platform_has:2  in <linux/cc_platform\.h>',
         r'CC_ATTR_MEM_ENCRYPT:2  in <linux/cc_platform\.h>'],
        []),
    'drivers/t/reached.c': (
        '#include <linux/cc_platform.h>\n'
        'bool f(void) { return cc_platform_has(CC_ATTR_MEM_ENCRYPT); }\n',
        [],
        [r'0 not provided by kernel_shim, 0 not reached, 0 headers missing'],
        [r'cc_platform_has']),
    # Reached through a driver-local header that includes the shim's.
    'drivers/t/transitive.c': (
        '#include "transitive.h"\n'
        'bool f(void) { return cc_platform_has(CC_ATTR_MEM_ENCRYPT); }\n',
        [],
        [r'0 not provided by kernel_shim, 0 not reached, 0 headers missing'],
        [r'cc_platform_has']),
    # vfio.h beside the file has the guard vfio_local.h defines: displaced.
    'drivers/t/displaced.c': (
        '#include "vfio.h"\n'
        'int f(void) { return 0; }\n',
        [DISPLACER],
        [r'0 headers missing'],
        [r'dmasim_no_such_header']),
    # The same header, not displaced: what it includes is missing.
    'drivers/t/not_displaced.c': (
        '#include "vfio.h"\n'
        'int f(void) { return 0; }\n',
        [],
        [r'1 headers missing', r'<linux/dmasim_no_such_header\.h>'],
        []),
    # A branch the preprocessor skips uses nothing; the taken one does.
    'drivers/t/skipped.c': (
        '#include <linux/types.h>\n'
        '#ifdef CONFIG_DMASIM_NEVER_SET\n'
        'int f(void) { return dmasim_skipped_call(); }\n'
        '#else\n'
        'int f(void) { return dmasim_taken_call(); }\n'
        '#endif\n',
        [],
        [r'1 not provided by kernel_shim', r'dmasim_taken_call:5'],
        [r'dmasim_skipped_call']),
    # Designated initializer of a member the shim's struct lacks.
    'drivers/t/designator.c': (
        '#include <linux/mm.h>\n'
        'struct follow_pfnmap_args a = { .dmasim_no_member = 1 };\n',
        [],
        [r'members the shim\'s struct lacks:',
         r'follow_pfnmap_args\.dmasim_no_member:2'],
        []),
    # NAME(x); at file scope, NAME no macro of the shim: implicit-int
    # declaration to the parser, a use to the report.
    'drivers/t/implicit.c': (
        '#include <linux/init.h>\n'
        'static void g(void) { }\n'
        'DMASIM_NO_SUCH_EXITCALL(g);\n',
        [],
        [r'DMASIM_NO_SUCH_EXITCALL:3'],
        []),
}

EXTRA_FILES = {
    'drivers/t/transitive.h': '#include <linux/cc_platform.h>\n',
    'drivers/t/vfio.h': ('#ifndef __VFIO_VFIO_H__\n#define __VFIO_VFIO_H__\n'
                         '#include <linux/dmasim_no_such_header.h>\n#endif\n'),
    'Makefile': 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION =\n',
}


def sections(report):
    """{file: its section's text} of a drift report."""
    out, cur = {}, None
    for line in report.splitlines():
        m = re.match(r'== (\S+):', line)
        if m:
            cur = m.group(1)
            out[cur] = ''
        if cur is not None:
            out[cur] += line + '\n'
    return out


# A tree with the five files upstream mode reads; type1 uses one name the
# shim lacks on its line 3 (the other two files are clean).
GATE_TREE = {
    'Makefile': 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION =\n',
    'drivers/vfio/vfio.h': ('#ifndef __VFIO_VFIO_H__\n#define __VFIO_VFIO_H__\n'
                            '#endif\n'),
    'drivers/vfio/vfio_iommu_type1.c': ('#include <linux/types.h>\n'
                                        'int dmasim_gate_f(void);\n'
                                        'int dmasim_gate_f(void) { return dmasim_gate_missing(1); }\n'),
    'drivers/dma-buf/heaps/system_heap.c': ('#include <linux/types.h>\n'
                                            'int dmasim_gate_g(void);\n'
                                            'int dmasim_gate_g(void) { return 0; }\n'),
    'drivers/dma-buf/dma-heap.c': ('#include <linux/types.h>\n'
                                   'int dmasim_gate_h(void);\n'
                                   'int dmasim_gate_h(void) { return 0; }\n'),
}
GATE_LIB = 'upstream/libupstream_vfio_iommu_type1.a'
GATE_STAMP = 'upstream/shim-drift-ok.h'


# The gate tree without the missing call.
CLEAN_GATE_TREE = dict(GATE_TREE)
CLEAN_GATE_TREE['drivers/vfio/vfio_iommu_type1.c'] = (
    GATE_TREE['drivers/dma-buf/dma-heap.c'].replace('_h(', '_f('))


def kept_folder(keep):
    """DIR/shim-drift-gate/<key>: the key hashes what the kept builds are
    made from beyond what ninja tracks (this check, the drift tool, the
    upstream build file); older folders are removed."""
    return kept_scratch_folder(
        os.path.join(os.path.abspath(keep), 'shim-drift-gate'),
        [os.path.join(TOP, rel) for rel in ('tests/shim_drift_check.py',
                                            'tools/shim-drift.py',
                                            'upstream/meson.build')])


def configured_tree(meson, root, files, failures):
    """root/linux holding files (rewritten only where they differ) and
    root/build configured on it: the build folder, or None."""
    tree = os.path.join(root, 'linux')
    for rel, text in files.items():
        path = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            with open(path) as f:
                if f.read() == text:
                    continue
        except OSError:
            pass
        with open(path, 'w') as f:
            f.write(text)
    build = os.path.join(root, 'build')
    if os.path.isfile(os.path.join(build, 'build.ninja')):
        return build
    shutil.rmtree(build, ignore_errors=True)
    setup = subprocess.run(meson + ['setup', build, TOP, '-Dkernel_src=' + tree],
                           capture_output=True, text=True)
    if setup.returncode != 0:
        failures.append('gate: meson setup failed:\n' + setup.stdout[-2000:] + setup.stderr)
        shutil.rmtree(build, ignore_errors=True)
        return None
    return build


def check_build_gate(meson, failures, keep=None):
    """Drift stops `ninja` at the drift step with the report."""
    before = len(failures)
    with tempfile.TemporaryDirectory(prefix='shim-drift-gate.') as tmp:
        root = kept_folder(keep) if keep else tmp
        build = configured_tree(meson, os.path.join(root, 'drift'), GATE_TREE,
                                failures)
        if build is None:
            return
        run = subprocess.run(['ninja', '-C', build, GATE_LIB], capture_output=True, text=True)
        out = run.stdout + run.stderr
        want = [r'FAILED: .*shim-drift-ok\.h', r'== drivers/vfio/vfio_iommu_type1\.c: .* 1 not provided',
                r'dmasim_gate_missing:3', r'drift: 1 missing items',
                r'upstream mode: .* uses what kernel_shim lacks']
        for pat in want:
            if not re.search(pat, out):
                failures.append('gate: the failed build says nothing like /%s/' % pat)
        if run.returncode == 0:
            failures.append('gate: the build passed with drift')
        if re.search(r'error:|Compiling C object upstream/', out):
            failures.append('gate: the compiler ran on the tree before the drift step stopped it')
        if os.path.exists(os.path.join(build, GATE_STAMP)):
            failures.append('gate: stamp written despite drift')
        if not os.path.isfile(os.path.join(build, 'shim-drift.txt')):
            failures.append('gate: no build/shim-drift.txt')
        if len(failures) > before:
            print(out[-4000:])
            return
        # Without the missing call, the step passes and the file compiles.
        build = configured_tree(meson, os.path.join(root, 'clean'),
                                CLEAN_GATE_TREE, failures)
        if build is None:
            return
        run = subprocess.run(['ninja', '-C', build, GATE_LIB], capture_output=True, text=True)
        if run.returncode != 0 or not os.path.isfile(os.path.join(build, GATE_STAMP)):
            failures.append('gate: the clean tree does not pass the drift step:\n' +
                            (run.stdout + run.stderr)[-3000:])


def check_provided_cache(failures):
    """--cache keeps the parse of the shim headers (what they provide)
    while every file it read is unchanged: on a made-up shim folder, a
    second run answers from the cache (a planted name in the entry shows
    up), and an edited header, or one added, is parsed again (its new name
    is provided, the planted one gone)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location('shim_drift', DRIFT)
    drift = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(drift)
    with tempfile.TemporaryDirectory(prefix='shim-drift-cache.') as tmp:
        shim, plain, stub, cache = (os.path.join(tmp, d) for d in
                                    ('shim', 'plain', 'stub', 'cache'))
        # b.h is outside the shim folder, reached only through a.h's
        # include: only the translation unit's includes say it was read.
        args = ['-x', 'c', '-std=gnu11', '-nostdinc', '-Wno-everything',
                '-I' + shim, '-I' + plain]
        os.makedirs(os.path.join(shim, 'linux'))
        os.makedirs(os.path.join(plain, 'linux'))
        os.makedirs(stub)
        header = os.path.join(shim, 'linux', 'a.h')
        with open(header, 'w') as f:
            f.write('#include <linux/b.h>\nint shim_a(void);\n')
        with open(os.path.join(plain, 'linux', 'b.h'), 'w') as f:
            f.write('#define SHIM_B 1\n')

        def provided():
            return drift.cached_provided_names(cache, [shim], [], args, stub)[0]

        first = provided()
        entries = [os.path.join(cache, n) for n in os.listdir(cache)] if os.path.isdir(cache) else []
        if not {'shim_a', 'SHIM_B'} <= set(first) or len(entries) != 1:
            failures.append('cache: the first run provides %s, writes %s' %
                            (sorted(n for n in first if not n.startswith('_')), entries))
            return
        with open(entries[0]) as f:
            entry = json.load(f)
        entry['names']['planted_by_the_check'] = [header]
        with open(entries[0], 'w') as f:
            json.dump(entry, f)
        if 'planted_by_the_check' not in provided():
            failures.append('cache: an unchanged shim is parsed again, not read from the cache')
        with open(os.path.join(plain, 'linux', 'b.h'), 'w') as f:
            f.write('#define SHIM_B 1\n#define SHIM_B2 2\n')
        again = provided()
        if 'SHIM_B2' not in again or 'planted_by_the_check' in again:
            failures.append('cache: an edited header (reached only through another) '
                            'is not parsed again (got %s)' %
                            sorted(n for n in again if not n.startswith('_')))
        with open(os.path.join(shim, 'linux', 'c.h'), 'w') as f:
            f.write('int shim_c(void);\n')
        if 'shim_c' not in provided():
            failures.append('cache: an added header is not parsed again')


def main():
    try:
        import clang.cindex  # noqa: F401
    except ImportError:
        sys.path.append('/usr/lib/python3/dist-packages')
        try:
            import clang.cindex  # noqa: F401
        except ImportError:
            print('shim_drift_check: no libclang for python, skipped')
            return 77
    failures = []
    meson, keep = sys.argv[1:], None
    if meson[:1] == ['--keep']:
        keep, meson = meson[1], meson[2:]
    check_provided_cache(failures)
    with tempfile.TemporaryDirectory(prefix='shim-drift-check.') as tree:
        for rel, text in list(EXTRA_FILES.items()) + [(r, c[0]) for r, c in CASES.items()]:
            path = os.path.join(tree, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                f.write(text)
        args = [sys.executable, DRIFT, tree]
        if keep:
            args += ['--cache', os.path.join(kept_folder(keep), 'cache')]
        for rel, (_, forced, _, _) in CASES.items():
            args += ['--file', ','.join([rel] + forced)]
        run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 1:
        failures.append('exit status %d, want 1 (drift found)' % run.returncode)
    got = sections(run.stdout)
    for rel, (_, _, want, unwanted) in CASES.items():
        sec = got.get(rel)
        if sec is None:
            failures.append('%s: no section in the report' % rel)
            continue
        for pat in want:
            if not re.search(pat, sec):
                failures.append('%s: report lacks /%s/' % (rel, pat))
        for pat in unwanted:
            if re.search(pat, sec):
                failures.append('%s: report has /%s/' % (rel, pat))
    if failures:
        print(run.stdout)
    if meson:
        check_build_gate(meson, failures, keep)
    else:
        print('shim_drift_check: no meson command given, the build gate is not checked')
    if failures:
        print(run.stderr, file=sys.stderr)
        for f in failures:
            print('FAIL: ' + f)
        return 1
    print('shim_drift_check: %d cases hold%s' % (len(CASES), ', and the build gate' if meson else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
