#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/extract-functions.py on a made-up kernel file: a named function is
taken with the static helpers, data, types and macros it reaches (and
nothing else), verbatim, in the file's order, each piece under a #line
directive naming the file, so that the compiler's messages point into it;
a function the file does not define, or one only an #if branch the
configuration leaves out defines, and a helper that reaches a name nobody
provides each stop it with a message naming the function, the name and
where.

    tests/extract_functions_check.py

The made-up file includes one header of a made-up shim include folder (the
tool keeps that include) and a local header (the tool drops it, as it drops
the tree's mm/internal.h).  Exit 0 when every case holds, 1 otherwise.
"""

import contextlib
import importlib.util
import io
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(TOP, 'tools', 'extract-functions.py')

SHIM_HEADER = '''#ifndef _LINUX_TYPES_H
#define _LINUX_TYPES_H
typedef unsigned long size_t;
int shim_count(void);
#endif
'''

# Line numbers matter: the checks below find lines by their text.
MADE_UP = '''// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) "made: " fmt

#include <linux/types.h>
#include "local.h"

#define TWICE(x) ((x) * 2)
#define UNUSED_MACRO 7

struct pair {
	int a, b;
};

static int counter;
static int never_used_data;

static int forward_helper(int x);

static int leaf_helper(struct pair *p)
{
	return TWICE(p->a) + counter;
}

static int never_called(void)
{
	return never_used_data;
}

int root_function(int x)
{
	struct pair p = { .a = x, .b = 0 };
	int unused_here;

	return leaf_helper(&p) + forward_helper(x) + shim_count();
}

static int forward_helper(int x)
{
	return x + 1;
}

#ifdef CONFIG_NOT_SET
int only_when_configured(void)
{
	return 1;
}
#endif

static int reaches_nothing_known(void)
{
	return not_provided_anywhere(3);
}

int bad_root(void)
{
	return reaches_nothing_known();
}
'''

failures = []


def check(cond, what):
    print('%s: %s' % ('ok' if cond else 'FAIL', what))
    if not cond:
        failures.append(what)


def line_of(text, needle):
    return text.split('\n').index(needle) + 1


def load_tool():
    """tools/extract-functions.py as a module: the four runs below share
    one interpreter and one libclang (a process each cost 0.1 s of CPU
    before the tool did anything)."""
    spec = importlib.util.spec_from_file_location('extract_functions', TOOL)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def run(tool, tmp, functions, out):
    """The tool's main() on the made-up file, in folder tmp, as its
    command line would run it: (exit status, stdout, stderr), the source
    path and the compiler arguments."""
    src = os.path.join(tmp, 'mm', 'made.c')
    # -fno-var-tracking-assignments: a gcc option of the debug build that
    # libclang refuses: the tool leaves it out of its parse.
    args = ['-nostdinc', '-I' + os.path.join(tmp, 'shim'), '-D__KERNEL__',
            '-fno-var-tracking-assignments']
    argv = [src, '-o', out, '--list']
    for f in functions:
        argv += ['-f', f]
    stdout, stderr, cwd = io.StringIO(), io.StringIO(), os.getcwd()
    os.chdir(tmp)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                rc = tool.main(argv + ['--'] + args)
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else 1
    finally:
        os.chdir(cwd)
    return (subprocess.CompletedProcess(argv, rc, stdout.getvalue(), stderr.getvalue()),
            src, args)


def main():
    tool = load_tool()
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, 'mm'))
        os.makedirs(os.path.join(tmp, 'shim', 'linux'))
        with open(os.path.join(tmp, 'shim', 'linux', 'types.h'), 'w') as f:
            f.write(SHIM_HEADER)
        with open(os.path.join(tmp, 'mm', 'made.c'), 'w') as f:
            f.write(MADE_UP)
        with open(os.path.join(tmp, 'mm', 'local.h'), 'w') as f:
            f.write('#error the tree\'s local header must not be included\n')

        # A named function, with what it reaches.
        out = os.path.join(tmp, 'extract.c')
        r, src, args = run(tool, tmp, ['root_function'], out)
        check(r.returncode == 0, 'root_function is extracted (exit %d: %s)' %
              (r.returncode, r.stderr.strip()))
        text = open(out).read() if os.path.exists(out) else ''
        for piece in ('int root_function(int x)', 'static int leaf_helper(struct pair *p)',
                      'static int counter;', 'struct pair {', '#define TWICE(x) ((x) * 2)',
                      '#define pr_fmt(fmt) "made: " fmt', '#include <linux/types.h>',
                      'static int forward_helper(int x);', 'static int forward_helper(int x)'):
            check(piece in text, 'the extract has `%s`' % piece)
        for piece in ('never_called', 'never_used_data', 'UNUSED_MACRO', 'local.h',
                      'only_when_configured', 'reaches_nothing_known'):
            check(piece not in text.replace('Not included (kernel_shim has no such '
                                            'header): local.h', ''),
                  'the extract leaves out `%s`' % piece)
        check('Not included (kernel_shim has no such header): local.h' in text,
              'the extract says it left out the local header')
        # Verbatim, in the file's order, under #line directives.
        root = line_of(MADE_UP, 'int root_function(int x)')
        helper = line_of(MADE_UP, 'static int leaf_helper(struct pair *p)')
        check('#line %d "%s"\nint root_function(int x)\n{' % (root, src) in text,
              'root_function is under #line %d "%s"' % (root, src))
        check('#line %d "%s"\nstatic int leaf_helper' % (helper, src) in text,
              'leaf_helper is under #line %d' % helper)
        body = MADE_UP[MADE_UP.index('int root_function'):MADE_UP.index('static int forward_helper(int x)\n{')]
        check(body.rstrip('\n') in text, 'root_function is verbatim')
        order = [text.find(p) for p in ('#define pr_fmt', '#include <linux/types.h>',
                                        'struct pair {', 'static int counter;',
                                        'static int forward_helper(int x);',
                                        'static int leaf_helper', 'int root_function',
                                        'static int forward_helper(int x)\n')]
        check(order == sorted(order) and -1 not in order, 'the pieces keep the file\'s order')
        # The compiler's messages point into the made-up file.
        cc = subprocess.run(['gcc', '-Wall', '-c', out, '-o', os.path.join(tmp, 'x.o')] + args,
                            capture_output=True, text=True, cwd=tmp)
        unused = line_of(MADE_UP, '\tint unused_here;')
        check(cc.returncode == 0, 'the extract compiles (%s)' % cc.stderr.strip()[:300])
        check('%s:%d' % (src, unused) in cc.stderr and 'unused_here' in cc.stderr,
              'gcc reports the unused variable at %s:%d' % (os.path.basename(src), unused))

        # A function the file does not define: a clear error, no output.
        missing = os.path.join(tmp, 'missing.c')
        r, _, _ = run(tool, tmp, ['root_function', 'no_such_function'], missing)
        check(r.returncode == 1 and 'no definition of no_such_function()' in r.stderr
              and not os.path.exists(missing),
              'a missing function is named, nothing written (%s)' % r.stderr.strip())
        # One defined only where the configuration does not compile it.
        r, _, _ = run(tool, tmp, ['only_when_configured'], missing)
        check(r.returncode == 1 and 'only_when_configured()' in r.stderr and
              '#if branch' in r.stderr,
              'a function in an #if branch left out is named (%s)' % r.stderr.strip())
        # A helper reaching a name neither the extract nor the shim has.
        r, _, _ = run(tool, tmp, ['bad_root'], missing)
        bad = line_of(MADE_UP, '\treturn not_provided_anywhere(3);')
        want = re.compile(r'bad_root\(\) reaches not_provided_anywhere at %s:%d' %
                          (re.escape(src), bad))
        check(r.returncode == 1 and want.search(r.stderr) and
              'reaches_nothing_known() <- bad_root()' in r.stderr and
              not os.path.exists(missing),
              'an unprovided name is reported with where and through what (%s)' %
              r.stderr.strip())
    print('%d failure(s)' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
