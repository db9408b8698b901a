#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/mutation-score.sh on a made-up project: a two-function C file, a
test program that checks one of them (and takes a while), a quicker one
that calls it and checks nothing, a list that marks one mutant
equivalent.

Checks that a mutant that changes checked behaviour is killed, that the
listed one is reported equivalent and not counted, that a mutant of the
function no test calls survives as unreached, that macro bodies,
GCOVR_EXCL lines and statement-level WARN_ON are not mutated, that the
made-up tree is left as it was, that the last line has the documented form
with the counts of the JSON report, and that --min fails below the score.
And that what a run learnt is kept for the next (the scratch folder's
history.json): a second run starts a mutant the first killed with the
test that killed it, which then is the only test it runs.  And that
--retest of the first run on a later tree (every line moved down one, one
survivor's line edited, a test that now checks the other function) tests
again only the run's survivors, found by id on their moved lines, reports
the edited line's survivor not found and counts it, carries the other
outcomes over without a run, and names the new mutants it did not test.
And that the tool's caches of coverage maps and clean runs keep the most
recently used trees' and drop the others, and that the run after the
--list takes the mutants the --list found from the tool's cache, without
libclang (a clang package that cannot be imported comes first on its
path).

    tests/mutation_check.py [BUILD_DIR]

With BUILD_DIR (meson passes the tests' build folder) the made-up tree and
the tool's scratch folder (--workdir) are kept there between runs, under a
name made of the hashes of the tool and of this file: the tree is written
again each run (same content), its scratch copy is configured once and its
coverage map is reused (the tool caches it by the tree's content and
path), as on a developer's second run; a new tool or check gets a fresh
folder and the old ones are removed.  Without it, a temporary folder, set
up from nothing.
"""
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

from kept_scratch import kept_scratch_folder

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(TOP, 'tools', 'mutation-score.sh')

# The toy builds as cheaply as it can: no optimization, no debug
# information (its behaviour is the same at any level), and gold where
# the toolchain has it.  Each mutant is one compile and two links, about
# twenty of them per check: gold links these in three quarters of
# ld.bfd's time.
MESON = """project('toy', 'c', default_options: ['buildtype=plain'])
cc = meson.get_compiler('c')
if cc.has_link_argument('-fuse-ld=gold')
  add_project_link_arguments('-fuse-ld=gold', language: 'c')
endif
calc = static_library('calc', 'calc.c')
test('calc', executable('test_calc', 'test_calc.c', link_with: calc),
  suite: 'unit')
test('weak', executable('test_weak', 'test_weak.c', link_with: calc),
  suite: 'unit')
"""

CALC = """#define WARN_ON(x) ((void)(x))
#define TWICE(x) ((x) * 2)

int clamp_add(int a, int b, int max)
{
	int s = a + b;

	WARN_ON(s < -1000);
	if (s > max)
		return max;
	return s;
}

int twice_unchecked(int x)
{
	int y = x - 7; /* GCOVR_EXCL_LINE */

	if (x > 100)
		return x;
	return TWICE(x) + y;
}
"""

# The tree a --retest of the first run sees: every line one down (a
# comment on top), one survivor's line edited (`return x;`), and a test
# that now checks twice_unchecked().
CALC_LATER = '/* later */\n' + CALC.replace('\t\treturn x;', '\t\treturn x - 1;')
WEAK_LATER = """int twice_unchecked(int x);
int main(void)
{
	return twice_unchecked(3) != 2;
}
"""

TEST = """#include <stdio.h>
#include <unistd.h>
int clamp_add(int a, int b, int max);
int main(void)
{
	usleep(50000);
	if (clamp_add(1, 2, 10) != 3 || clamp_add(5, 6, 10) != 10 ||
	    clamp_add(-4, 1, 10) != -3) {
		fprintf(stderr, "clamp_add is wrong\\n");
		return 1;
	}
	return 0;
}
"""


WEAK = """int clamp_add(int a, int b, int max);
int main(void)
{
	return clamp_add(0, 0, 10) * 0;
}
"""


def tree_digest(root):
    h = hashlib.sha1()
    for dirpath, dirnames, files in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith('build'))
        for f in sorted(files):
            p = os.path.join(dirpath, f)
            with open(p, 'rb') as fh:
                h.update(p.encode() + fh.read())
    return h.hexdigest()


# The tool's python3 is the one running this check (Debian's, with
# python3-clang), found first on PATH: no version-manager shim in front
# of each of its three runs (pyenv's cost 0.4 s of wall time per run).
TOOL_ENV = dict(os.environ, PATH=os.pathsep.join(
    [os.path.dirname(sys.executable), os.environ.get('PATH', '')]))


def run(args, env=TOOL_ENV):
    return subprocess.run([TOOL] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env)


# Tool runs started in the background (start()), stopped if the check fails.
BACKGROUND = []


def start(args, out_dir, env=TOOL_ENV):
    """The tool started with args, its output into files in out_dir:
    finish() waits for it and gives what run() gives."""
    out = open(os.path.join(out_dir, 'bg.out'), 'w+')
    err = open(os.path.join(out_dir, 'bg.err'), 'w+')
    p = subprocess.Popen([TOOL] + args, stdout=out, stderr=err, text=True,
                         env=env, start_new_session=True)
    p.files = (out, err)
    BACKGROUND.append(p)
    return p


def finish(p):
    p.wait()
    BACKGROUND.remove(p)
    text = []
    for f in p.files:
        f.seek(0)
        text.append(f.read())
        f.close()
    return subprocess.CompletedProcess(p.args, p.returncode, *text)


def without_libclang(tmp):
    """The tool's environment with a clang package first on the path whose
    import fails: a run that needs libclang then stops."""
    pkg = os.path.join(tmp, 'no-libclang', 'clang')
    os.makedirs(pkg, exist_ok=True)
    with open(os.path.join(pkg, '__init__.py'), 'w') as f:
        f.write('raise ImportError("libclang is not to be loaded")\n')
    return dict(TOOL_ENV, PYTHONPATH=os.path.dirname(pkg))


def fail(msg, r=None):
    for p in BACKGROUND:
        try:
            os.killpg(p.pid, 9)
        except OSError:
            pass
    print('FAIL: ' + msg)
    if r is not None:
        print(r.stdout)
        print(r.stderr[-3000:])
    sys.exit(1)


def scratch_folder(build_dir):
    """The --workdir kept in the build folder, keyed by the tool's and
    this check's content; older ones are removed."""
    return kept_scratch_folder(os.path.join(os.path.abspath(build_dir), 'mutation-check'),
                               (os.path.join(TOP, 'tools', 'mutation.py'), TOOL,
                                os.path.abspath(__file__)))


def write_tree(folder, calc, weak):
    """The made-up project in folder: its meson.build, calc.c and two tests."""
    os.makedirs(folder, exist_ok=True)
    for name, text in (('meson.build', MESON), ('calc.c', calc),
                       ('test_calc.c', TEST), ('test_weak.c', weak)):
        with open(os.path.join(folder, name), 'w') as f:
            f.write(text)
    return folder


def start_retest(tmp, kept, work, eq_list, first):
    """--retest of the first run on the later tree, started in the
    background (check_retest() checks it): it shares nothing with the
    first tree's runs, so the check's last run of that tree goes on
    beside it."""
    later = write_tree(os.path.join(kept, 'later'), CALC_LATER, WEAK_LATER)
    # A scratch folder of its own: the first tree's copy is not rebuilt
    # as the later one here and back again at the next check.
    work = work + '-later'
    old = os.path.join(tmp, 'first.json')
    with open(old, 'w') as f:
        json.dump(first, f)
    refreshed = os.path.join(tmp, 'retest.json')
    return start(['--source', later, '--workdir', work, '--min-timeout', '5',
                  '--equivalent', eq_list, '--retest', old, '--json', refreshed,
                  '--quiet'], tmp), old, refreshed


def check_retest(started, first):
    """--retest of the first run on the later tree: its survivors are
    found by id on their moved lines and tested again (the new check kills
    those of the return line), the one whose line was edited is reported
    not found and counted as a survivor, the killed and the equivalent are
    carried over without a run, the edited line's new mutants are named."""
    proc, old, refreshed = started
    r = finish(proc)
    if r.returncode:
        fail('--retest failed', r)
    with open(refreshed) as f:
        data = json.load(f)
    now = {m['id']: m for m in data['mutants']}
    if set(now) != {m['id'] for m in first['mutants']}:
        fail('--retest must report every mutant of the run, and only those', r)
    for m in first['mutants']:
        n = now[m['id']]
        if m['status'] != 'survived':
            if (n['status'], n['tests_run']) != (m['status'], m['tests_run']):
                fail('%s (%s) was not carried over as it was' % (m['id'], m['status']), r)
        elif m['line'] == 19:    # return x;
            if n['status'] != 'survived' or 'not found' not in (n['reason'] or ''):
                fail('a survivor on the edited line must be reported not found', r)
        elif n['line'] != m['line'] + 1:
            fail('%s was not found on its moved line' % m['id'], r)
        elif m['line'] == 20 and (n['status'], n['test']) != ('killed', 'weak'):
            fail('%s (%s) was not killed by the new check' % (m['id'], m['mutated_line']), r)
    if not any(x['status'] == 'survived' and 'not found' in (x['reason'] or '')
               for x in data['mutants']):
        fail('no survivor reported not found', r)
    out = r.stdout.rstrip('\n').split('\n')
    if not out[0].startswith('retest of %s ' % old):
        fail('the report does not say which run it refreshes', r)
    if not any(l.startswith("    new calc.c:20 RVR 'x - 1' -> '0'") for l in out):
        fail('the edited line\'s new mutants are not named', r)
    m = re.fullmatch(r'mutation score: (\d+) of (\d+) killed \((\d+\.\d)%\)', out[-1])
    if not m or (int(m.group(1)), int(m.group(2))) != (data['killed'], data['counted']):
        fail('the last line of --retest is %r' % out[-1], r)
    if data['retest']['not_found'] < 1 or data['retest']['run'] != old:
        fail('the JSON report does not record the retest', r)


def check_keep_recent(tmp):
    """The tool keeps the coverage maps and clean runs of the last
    CACHE_KEEP trees it used, by use (a hit touches its file), and only
    files of the prefix it is given."""
    spec = importlib.util.spec_from_file_location('mutation', os.path.join(TOP, 'tools', 'mutation.py'))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    folder = os.path.join(tmp, 'caches')
    os.makedirs(folder)
    n = tool.CACHE_KEEP + 2
    for i in range(n):
        for name in ('clean-%d.json' % i, 'coverage-%d.json' % i):
            with open(os.path.join(folder, name), 'w') as f:
                f.write('{}')
            os.utime(os.path.join(folder, name), ns=(i * 10**9, i * 10**9))
    # Tree 0, the oldest written, was used last.
    os.utime(os.path.join(folder, 'clean-0.json'), ns=(n * 10**9, n * 10**9))
    tool.keep_recent(folder, 'clean-')
    kept = sorted(os.listdir(folder))
    want = sorted(['clean-0.json'] + ['clean-%d.json' % i for i in range(n - tool.CACHE_KEEP + 1, n)] +
                  ['coverage-%d.json' % i for i in range(n)])
    if kept != want:
        fail('keep_recent kept %s, not %s' % (kept, want))


def main():
    with tempfile.TemporaryDirectory(prefix='mutation-check.') as tmp:
        check_keep_recent(tmp)
        kept = scratch_folder(sys.argv[1]) if len(sys.argv) > 1 else tmp
        work = os.path.join(kept, 'work')
        tree = write_tree(os.path.join(kept, 'tree'), CALC, WEAK)
        before = tree_digest(tree)
        common = ['--source', tree, '--workdir', work,
                  '--min-timeout', '5', 'calc.c']

        r = run(common + ['--list', '--quiet'])
        if r.returncode:
            fail('--list failed', r)
        listed = [l.split('\t') for l in r.stdout.splitlines()]
        lines = {int(l[1].rsplit(':', 1)[1]) for l in listed}
        by_desc = {(int(l[1].rsplit(':', 1)[1]), l[2], l[3]): l[0] for l in listed}
        # Line 2 is TWICE's body, 8 the WARN_ON statement, 16 excluded.
        for no in (1, 2, 8, 16):
            if no in lines:
                fail('line %d was mutated' % no, r)
        eq_id = by_desc.get((9, 'ROR', "'>' -> '>='"))
        kill_id = by_desc.get((6, 'AOR', "'+' -> '-'"))
        if not eq_id or not kill_id:
            fail('expected mutants missing', r)
        eq_list = os.path.join(tmp, 'equivalent.txt')
        with open(eq_list, 'w') as f:
            f.write('# made up\n%s  s == max returns max either way\n' % eq_id)

        # The run after the --list finds the tree's mutants where the
        # --list left them: without libclang.
        report = os.path.join(tmp, 'report.json')
        r = run(common + ['--equivalent', eq_list, '--json', report, '--quiet'],
                env=without_libclang(tmp))
        if r.returncode:
            fail('the run failed (or did not take the mutants the --list found)', r)
        with open(report) as f:
            data = json.load(f)
        status = {m['id']: m for m in data['mutants']}
        if set(status) != {l[0] for l in listed}:
            fail('the run did not test the mutants the --list found', r)
        if status[eq_id]['status'] != 'equivalent':
            fail('the listed mutant is not reported equivalent', r)
        if status[kill_id]['status'] != 'killed':
            fail('a + b -> a - b was not killed', r)
        unreached = [m for m in data['mutants'] if m['function'] == 'twice_unchecked']
        if not unreached or any(m['status'] != 'survived' for m in unreached):
            fail('mutants of the function no test calls must survive', r)
        if any(m['status'] == 'survived' for m in data['mutants']
               if m['function'] == 'clamp_add'):
            fail('a mutant of clamp_add survived', r)
        out = r.stdout.rstrip('\n').split('\n')
        m = re.fullmatch(r'mutation score: (\d+) of (\d+) killed \((\d+\.\d)%\)', out[-1])
        if not m:
            fail('last line is %r' % out[-1], r)
        if (int(m.group(1)), int(m.group(2))) != (data['killed'], data['counted']):
            fail('the last line does not match the JSON report', r)
        if data['counted'] != sum(1 for x in data['mutants']
                                  if x['status'] in ('killed', 'survived', 'timeout')):
            fail('equivalent or invalid mutants were counted', r)
        if not any('survived calc.c:' in l and 'twice_unchecked' in l for l in out):
            fail('survivors are not listed', r)

        with open(os.path.join(work, 'history.json')) as f:
            killer = json.load(f)['killer']
        if killer.get(kill_id, [None])[0] != 'calc':
            fail('history.json does not name calc as the killer of %s' % kill_id)

        # The retest of this run on the later tree, beside the run below.
        retest = start_retest(tmp, kept, work, eq_list, data)
        # One survivor is enough to score below 100%; the killed mutant
        # starts with its known killer.
        survivor = unreached[0]['id']
        r = run(common + ['--equivalent', eq_list, '--quiet', '--min', '100',
                          '--only', survivor, '--only', kill_id,
                          '--json', report])
        if r.returncode != 1:
            fail('--min 100 with survivors must exit 1, got %d' % r.returncode, r)
        with open(report) as f:
            again = json.load(f)
        killed = [m for m in again['mutants'] if m['status'] == 'killed']
        if not killed or any(m['test'] != 'calc' or m['tests_run'] != 1
                             for m in killed):
            fail('a second run must start with the known killer and run it alone', r)
        if tree_digest(tree) != before:
            fail('the made-up tree was modified')
        check_retest(retest, data)
        print('mutation_check: %s; listed equivalent reported, unreached '
              'survive, tree unchanged' % out[-1])


if __name__ == '__main__':
    main()
