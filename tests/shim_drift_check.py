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
"== file" section per file.  Exit 0 when every case holds, 1 otherwise,
77 (skipped) without libclang for python.

    tests/shim_drift_check.py
"""

import os
import re
import subprocess
import sys
import tempfile

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
    with tempfile.TemporaryDirectory(prefix='shim-drift-check.') as tree:
        for rel, text in list(EXTRA_FILES.items()) + [(r, c[0]) for r, c in CASES.items()]:
            path = os.path.join(tree, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                f.write(text)
        args = [sys.executable, DRIFT, tree]
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
        print(run.stderr, file=sys.stderr)
        for f in failures:
            print('FAIL: ' + f)
        return 1
    print('shim_drift_check: %d cases hold' % len(CASES))
    return 0


if __name__ == '__main__':
    sys.exit(main())
