#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Shim drift report: the kernel identifiers a tree's files use that
kernel_shim does not provide, in one run, instead of a wall of compiler
errors.

    tools/shim-drift.py DIR                 # DIR: a Linux source tree
    ninja -C build shim-drift               # the same, for -Dkernel_src

For each upstream file (type1, the system heap, the dma-heap core; see
upstream/meson.build) it prints:
  - the headers the file includes, directly or through shim headers, that
    kernel_shim/include lacks;
  - the identifiers the file spells that are neither C keywords, nor
    declared by the file itself, nor provided by the shim, each with how the
    file uses it (call, member, struct tag, type or constant) and its first
    line;
  - the identifiers the shim defines only in headers the file does not
    reach through its own includes (the compiler would not see them
    either), each with the headers that define it;
  - members the shim's structs lack (read, or named in a designated
    initializer) and structs the file needs complete that the shim only
    declares.

How:
  provided  every header under kernel_shim/include (and upstream/include,
            the displacement headers) is parsed in one translation unit
            with libclang, with the tree's version (what a shim header
            selects by version is what the tree's files see): macro names, functions, variables, typedefs,
            struct/union/enum tags, fields and enum constants, each with
            the header that defines it;
  reached   the headers the file can see: its #includes followed
            transitively as the compiler resolves them (quoted ones beside
            the including file first), from <linux/kconfig.h> and the
            headers force-included before it.  A driver-local header whose
            include guard a force-included displacement header defines
            (drivers/vfio/vfio.h) expands to nothing: neither it nor what it
            includes is reached, or missing.  A name counts as provided for
            the file only if a header that defines it is reached;
  used      the raw identifiers of the file (comments, strings, character
            constants and #include lines stripped; CONFIG_ symbols left
            out: an unset option is simply off), minus the lines of #if
            branches the preprocessor skipped with the shim's kconfig
            (libclang's skipped ranges);
  declared  the file parsed with libclang against the shim, exactly as
            meson compiles it (same flags, same force-included headers),
            with an empty stand-in for every header the shim lacks: every
            declaration, parameter, label and macro whose location is the
            file, plus the parameters of the file's function-like macros;
            but NAME(x); at file scope that parses only as an implicit-int
            declaration (no macro NAME in the shim) is a use of NAME.
Names are compared bare: a field the shim has in some struct counts as
provided even if the struct the file reads it from lacks it (the compiler
says which then, and so does the report where libclang can tell).  While
the shim misses a macro that declares something (DEFINE_MUTEX(x)), x may be
listed too; it disappears with the macro.  tests/shim_drift_check.py checks
these rules on a made-up tree.

--notes FILE cross-checks a libclang list of the identifiers a file uses
against the real headers (/work/shared/kernel-notes/api-surface-*.md style:
"- kind: a b struct.field ..."): fields are checked qualified there.

Upstream mode runs it as a build step before the tree's files compile
(upstream/meson.build): with --stamp FILE it writes FILE only when nothing
is missing, and --depfile FILE lists what it read, so ninja runs it again
only when the tree's files or the shim change; while something is missing
the build stops there, with this report, before any compiler error.

Exit status: 0 when nothing is missing, 1 when something is, 2 on usage
errors.  Needs python3-clang (libclang) from tools/install-deps.sh;
--have-libclang alone exits 0 when it is there (meson asks).
"""

import argparse
import ctypes
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clang_loader  # noqa: E402

ci = clang_loader.cindex('shim-drift')

if sys.argv[1:] == ['--have-libclang']:
    sys.exit(0)

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The files upstream mode compiles, with the headers it force-includes for
# each (keep in step with upstream/meson.build).
DEFAULT_FILES = [
    ('drivers/vfio/vfio_iommu_type1.c', ['upstream/include/vfio_local.h']),
    ('drivers/dma-buf/heaps/system_heap.c', []),
    ('drivers/dma-buf/dma-heap.c', []),
]

C_KEYWORDS = set('''
auto break case char const continue default do double else enum extern float
for goto if inline int long register restrict return short signed sizeof
static struct switch typedef union unsigned void volatile while _Alignas
_Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert
_Thread_local asm __asm__ __asm typeof __typeof__ __typeof __attribute__
__attribute __extension__ __inline__ __inline __restrict__ __restrict
__volatile__ __const__ __signed__ __label__ __alignof__ __func__
__FUNCTION__ __VA_ARGS__ __VA_OPT__ __LINE__ __FILE__ __COUNTER__ __auto_type
__int128 defined
'''.split())

# Directives whose identifiers are not uses of the kernel API.
SKIP_DIRECTIVES = ('include', 'include_next', 'pragma', 'error', 'warning',
                   'line')

TAG_KINDS = {ci.CursorKind.STRUCT_DECL, ci.CursorKind.UNION_DECL,
             ci.CursorKind.ENUM_DECL}
PROVIDING_KINDS = {
    ci.CursorKind.MACRO_DEFINITION, ci.CursorKind.FUNCTION_DECL,
    ci.CursorKind.VAR_DECL, ci.CursorKind.TYPEDEF_DECL,
    ci.CursorKind.STRUCT_DECL, ci.CursorKind.UNION_DECL,
    ci.CursorKind.ENUM_DECL, ci.CursorKind.FIELD_DECL,
    ci.CursorKind.ENUM_CONSTANT_DECL,
}



# A file's real path, once per name: the AST walks ask for every cursor's
# file (tens of thousands), and the answer cannot change during a run.
realpath = functools.lru_cache(maxsize=None)(os.path.realpath)

def strip_comments_and_literals(text):
    """Blank out comments, string and character literals, keeping newlines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '/' and text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == '/' and text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(' ' + re.sub(r'[^\n]', ' ', text[i + 1:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')
PPNUMBER = re.compile(r'\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*')


def used_identifiers(path, skip=frozenset()):
    """{identifier: (first line, how it is used)} for the raw tokens.

    Lines in skip (branches the preprocessor did not take) are left out.
    """
    text = open(path, encoding='utf-8', errors='replace').read()
    # Join continued lines, keeping line numbers by counting removed breaks.
    clean = strip_comments_and_literals(text)
    used = {}
    lines = clean.split('\n')
    lineno = 0
    logical, start = '', 0
    for raw in lines:
        lineno += 1
        if not logical:
            start = lineno
        if raw.endswith('\\'):
            logical += raw[:-1] + ' '
            continue
        logical += raw
        line, logical = logical, ''
        if start in skip:
            continue
        m = re.match(r'\s*#\s*([a-z_]+)', line)
        if m and m.group(1) in SKIP_DIRECTIVES:
            continue
        if m:
            line = ' ' * m.end() + line[m.end():]
        pos = 0
        while pos < len(line):
            num = PPNUMBER.match(line, pos)
            if num and (pos == 0 or not (line[pos - 1].isalnum() or line[pos - 1] == '_')):
                pos = num.end()
                continue
            m = IDENT.match(line, pos)
            if not m:
                pos += 1
                continue
            name = m.group(0)
            pos = m.end()
            if name in C_KEYWORDS or name.startswith('CONFIG_'):
                continue
            if name in used:
                continue
            before = line[:m.start()].rstrip()
            after = line[pos:].lstrip()
            if before.endswith('->') or (before.endswith('.') and not before.endswith('..')):
                how = 'member'
            elif re.search(r'\b(struct|union|enum)$', before):
                how = 'tag'
            elif after.startswith('('):
                how = 'call'
            else:
                how = 'name'
            used[name] = (start, how)
    return used


def macro_params(path):
    """Parameters of the file's function-like macros (declared by it)."""
    text = strip_comments_and_literals(open(path, encoding='utf-8', errors='replace').read())
    params = set()
    for m in re.finditer(r'^\s*#\s*define\s+[A-Za-z_]\w*\(([^)]*)\)', text, re.M):
        params.update(IDENT.findall(m.group(1)))
    return params


INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


GUARD = re.compile(r'\A(?:\s|/\*.*?\*/|//[^\n]*\n)*#\s*ifndef\s+(\w+)', re.S)


def defined_macros(paths):
    """Macro names the given headers #define (the displacement headers)."""
    names = set()
    for path in paths:
        try:
            text = open(path, encoding='utf-8', errors='replace').read()
        except OSError:
            continue
        names.update(re.findall(r'^\s*#\s*define\s+(\w+)', text, re.M))
    return names


def walk_includes(start_files, search_dirs, local_dirs=True, displaced=()):
    """Follow #include from start_files as the compiler resolves them.

    Quoted includes resolve beside the including file first (as the
    compiler does); what resolves nowhere is missing.  A header whose
    include guard is one of the macros in displaced (defined by a
    force-included displacement header, see upstream/include/) expands to
    nothing, so its own includes are not followed (the start files, the
    displacement headers among them, always are).  Returns
    ({missing header: first includer}, set of files reached).
    """
    missing = {}
    seen = set()
    starts = {realpath(f) for f in start_files}
    todo = list(start_files)
    while todo:
        path = realpath(todo.pop())
        if path in seen:
            continue
        seen.add(path)
        try:
            text = open(path, encoding='utf-8', errors='replace').read()
        except OSError:
            continue
        guard = GUARD.match(text)
        if guard and guard.group(1) in displaced and path not in starts:
            continue
        for m in re.finditer(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', text, re.M):
            quote, name = m.group(1), m.group(2)
            cands = []
            if quote == '"' and local_dirs:
                cands.append(os.path.join(os.path.dirname(path), name))
            cands += [os.path.join(d, name) for d in search_dirs]
            found = next((c for c in cands if os.path.isfile(c)), None)
            if found:
                todo.append(found)
            elif name not in missing:
                missing[name] = path
    return missing, seen


def find_missing_headers(start_files, search_dirs, local_dirs=True, displaced=()):
    """Headers reachable by #include from start_files that no search_dir has."""
    return walk_includes(start_files, search_dirs, local_dirs, displaced)[0]


def make_stub_dir(headers, tmp):
    """An include directory holding an empty file for each missing header."""
    for name in headers:
        p = os.path.join(tmp, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        open(p, 'w').close()
    return tmp


def parse(path, args, unsaved=None):
    index = ci.Index.create()
    opts = (ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD |
            ci.TranslationUnit.PARSE_INCOMPLETE)
    return index.parse(path, args=args, unsaved_files=unsaved, options=opts)


def is_anonymous(cur):
    if cur.kind not in TAG_KINDS:
        return False
    try:
        if cur.is_anonymous():
            return True
    except AttributeError:
        pass
    return not cur.spelling or '(unnamed' in cur.spelling or '(anonymous' in cur.spelling


def file_digest(path):
    """sha1 of a file's content, or None when it cannot be read."""
    try:
        with open(path, 'rb') as f:
            return hashlib.sha1(f.read()).hexdigest()
    except OSError:
        return None


def cached_provided_names(cache, shim_dirs, extra_headers, args, stub_dir):
    """provided_names(), kept in the folder cache between runs: the parse
    of every shim header together is half a run's CPU, and the build's
    drift step and the report parse the same headers again and again.  An
    entry is keyed by this script, the arguments, the headers listed and
    the stand-ins made for missing ones (the stub folder's name is a new
    temporary one each run: its content is the key), and holds every file
    the translation unit included with the digest of its content: an entry
    is used only while each of those files still has that content (a
    ccache-style manifest), so an edited, added or removed shim header
    parses again.  No cache folder: parsed every time."""
    if not cache:
        return provided_names(shim_dirs, extra_headers, args, stub_dir)
    key = hashlib.sha1()
    key.update(open(os.path.abspath(__file__), 'rb').read())
    headers = sorted(os.path.relpath(os.path.join(root, f), d)
                     for d in shim_dirs for root, _, files in os.walk(d)
                     for f in files if f.endswith('.h'))
    stubs = sorted(os.path.relpath(os.path.join(root, f), stub_dir)
                   for root, _, files in os.walk(stub_dir) for f in files)
    key.update(repr((shim_dirs, extra_headers, args, headers, stubs)).encode())
    path = os.path.join(cache, 'provided-%s.json' % key.hexdigest()[:16])
    try:
        with open(path) as f:
            entry = json.load(f)
        if all(file_digest(p) == d for p, d in entry['manifest'].items()):
            return ({n: set(where) for n, where in entry['names'].items()},
                    {tuple(f) for f in entry['fields']}, entry['errors'])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    included = []
    names, fields, errors = provided_names(shim_dirs, extra_headers, args, stub_dir,
                                           included)
    stub_real = realpath(stub_dir) + os.sep
    # Every shim header and force-included one is in the manifest whether
    # or not libclang lists it as included (the -include'd kconfig.h).
    read = {realpath(os.path.join(d, h)) for d in shim_dirs for h in headers
            if os.path.isfile(os.path.join(d, h))}
    read |= {realpath(h) for h in extra_headers}
    read |= {p for p in included if not p.startswith(stub_real)}
    entry = {'manifest': {p: file_digest(p) for p in sorted(read)},
             'names': {n: sorted(where, key=lambda w: w or '') for n, where in names.items()},
             'fields': sorted(fields), 'errors': [str(d) for d in errors]}
    os.makedirs(cache, exist_ok=True)
    with open(path + '.tmp', 'w') as f:
        json.dump(entry, f)
    os.replace(path + '.tmp', path)
    # Entries of other keys (an older script, other headers) go, but the
    # newest few stay: one build runs the step for more than one set of
    # force-included headers.
    old = sorted((os.path.join(cache, n) for n in os.listdir(cache)
                  if n.startswith('provided-') and n.endswith('.json')),
                 key=os.path.getmtime, reverse=True)
    for stale in old[4:]:
        os.unlink(stale)
    return names, fields, errors


def provided_names(shim_dirs, extra_headers, args, stub_dir, included=None):
    """Names and qualified fields the shim headers provide; the real
    paths of the files the translation unit included go into the list
    included, when given."""
    headers = []
    for d in shim_dirs:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith('.h'):
                    headers.append(os.path.relpath(os.path.join(root, f), d))
    headers = sorted(set(headers))
    src = ''.join('#include <%s>\n' % h for h in headers)
    src += ''.join('#include "%s"\n' % h for h in extra_headers)
    tu_path = os.path.join(stub_dir, '..', 'all_shim_headers.c')
    tu_path = os.path.abspath(tu_path)
    tu = parse(tu_path, args + ['-I' + stub_dir], [(tu_path, src)])
    names, fields = {}, set()
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if included is not None:
        included += [realpath(inc.include.name) for inc in tu.get_includes()]
    for cur in tu.cursor.walk_preorder():
        k = cur.kind
        if k in PROVIDING_KINDS and cur.spelling:
            # Where it is defined: a name counts for a file only if one of
            # these is reachable from the file's includes (None: built in).
            loc = cur.location.file
            names.setdefault(cur.spelling, set()).add(
                realpath(loc.name) if loc is not None else None)
            if k == ci.CursorKind.FIELD_DECL:
                # A member of an anonymous struct/union is a member of the
                # struct that holds it (vm_area_struct.vm_flags).
                parent = cur.semantic_parent
                while parent is not None and is_anonymous(parent):
                    parent = parent.semantic_parent
                if parent is not None and parent.spelling:
                    fields.add((parent.spelling, cur.spelling))
    return names, fields, errors


class SourceRangeList(ctypes.Structure):
    _fields_ = [('count', ctypes.c_uint),
                ('ranges', ctypes.POINTER(ci.SourceRange))]


def skipped_lines(tu, path):
    """Lines of path the preprocessor skipped (#if branches not taken)."""
    lib = ci.conf.lib
    try:
        get = lib.clang_getSkippedRanges
        dispose = lib.clang_disposeSourceRangeList
    except AttributeError:
        return set()
    get.argtypes = [ci.TranslationUnit, ci.File]
    get.restype = ctypes.POINTER(SourceRangeList)
    dispose.argtypes = [ctypes.POINTER(SourceRangeList)]
    dispose.restype = None
    lines = set()
    ranges = get(tu, ci.File.from_name(tu, path))
    if not ranges:
        return lines
    for i in range(ranges.contents.count):
        r = ranges.contents.ranges[i]
        lines.update(range(r.start.line, r.end.line + 1))
    dispose(ranges)
    return lines


def in_file(loc, real):
    return loc.file is not None and realpath(loc.file.name) == real


@functools.lru_cache(maxsize=None)
def instantiation_file():
    """clang_getInstantiationLocation() giving the file as an address."""
    proto = ctypes.CFUNCTYPE(None, ci.SourceLocation, ctypes.POINTER(ctypes.c_void_p),
                             ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
    return proto(('clang_getInstantiationLocation', ci.conf.lib))


def file_of(loc):
    """The libclang file handle (an address) of loc's expansion location,
    None for none: what in_file() compares by name, without the Python
    objects for the file and its name (in_file() on every top-level
    cursor of a file that includes the shim was most of a drift run)."""
    f = ctypes.c_void_p()
    instantiation_file()(loc, ctypes.byref(f), None, None, None)
    return f.value


def file_cursors(tu, real):
    """Every cursor of the translation unit that can lie in the file
    real: the walk does not go into a top-level cursor whose whole extent
    is in other files (a header's declarations and what they hold), the
    bulk of a file that includes the shim.  Files are told apart by
    handle: libclang gives one file one handle, and the handles whose
    real path is real are found once each."""
    ours = {}

    def mine(loc):
        f = file_of(loc)
        if f not in ours:
            ours[f] = in_file(loc, real)
        return ours[f]

    for top in tu.cursor.get_children():
        ext = top.extent
        if mine(top.location) or mine(ext.start) or mine(ext.end):
            yield from top.walk_preorder()


def declared_names(path, args):
    """Names the file itself declares (by location), and its parse errors."""
    tu = parse(path, args)
    names = set()
    real = realpath(path)
    for cur in file_cursors(tu, real):
        loc = cur.location
        if loc.file is None or realpath(loc.file.name) != real:
            continue
        if cur.kind in TAG_KINDS and not cur.is_definition():
            continue	# struct x *p; with no struct x in the shim yet
        if (cur.kind.is_declaration() or cur.kind == ci.CursorKind.LABEL_STMT or
                cur.kind == ci.CursorKind.MACRO_DEFINITION) and cur.spelling:
            names.add(cur.spelling)
    # NAME(x); at file scope with no macro NAME in the shim parses as a
    # declaration of a function NAME with implicit int: a use, not the
    # file's own declaration (dma-heap.c's __exitcall(dma_heap_exit)).
    text = None
    for d in tu.diagnostics:
        if (d.location.file is None or realpath(d.location.file.name) != real or
                'type specifier missing' not in d.spelling):
            continue
        if text is None:
            text = open(path, encoding='utf-8', errors='replace').read().split('\n')
        m = IDENT.match(text[d.location.line - 1], d.location.column - 1)
        if m:
            names.discard(m.group(0))
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    # What the compiler can tell precisely: members a shim struct lacks, and
    # structs the file needs complete that the shim only declares.
    fields, incomplete = {}, {}
    for d in errors:
        if d.location.file is None or realpath(d.location.file.name) != real:
            continue
        m = (re.match(r"no member named '(\w+)' in '(?:struct|union) (\w+)'", d.spelling) or
             re.match(r"field designator '(\w+)' does not refer to any field in type "
                      r"'(?:struct|union) (\w+)'", d.spelling))
        if m:
            fields.setdefault('%s.%s' % (m.group(2), m.group(1)), d.location.line)
        m = re.search(r"incomplete (?:definition of )?type '((?:struct|union|enum) \w+)'", d.spelling)
        if m:
            incomplete.setdefault(m.group(1), d.location.line)
    return names, errors, fields, incomplete, skipped_lines(tu, path)


def read_notes(path):
    """{'names': set, 'fields': set of (struct, field)} from an api-surface note."""
    names, fields = set(), set()
    for line in open(path, encoding='utf-8'):
        m = re.match(r'\s*-\s*(functions/fn-macros|types|fields|consts/object macros):\s*(.*)', line)
        if not m:
            continue
        for word in m.group(2).split():
            if m.group(1) == 'fields' and '.' in word:
                s, f = word.split('.', 1)
                fields.add((s, f))
            else:
                names.add(word)
    return names, fields


def compiler_include():
    try:
        out = subprocess.run(['clang', '-print-file-name=include'],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('kernel_src', help='Linux source tree (absolute path)')
    ap.add_argument('--file', action='append', metavar='PATH[,HEADER...]',
                    help='a file of the tree, with headers force-included '
                         'before it (default: the three upstream-mode files)')
    ap.add_argument('--page-shift', type=int, default=12)
    ap.add_argument('--notes', action='append', default=[], metavar='FILE',
                    help='api-surface note to cross-check (file name says '
                         'which source: api-surface-*-<basename>.md)')
    ap.add_argument('--output', '-o', help='also write the report here')
    ap.add_argument('--stamp', metavar='FILE',
                    help='write FILE when nothing is missing (a build step)')
    ap.add_argument('--depfile', metavar='FILE',
                    help='write a make depfile: the stamp depends on every '
                         'file read')
    ap.add_argument('--cache', metavar='DIR',
                    help='keep the parse of the shim headers in DIR between '
                         'runs (used while every header it read is unchanged)')
    ap.add_argument('--show-parse-errors', action='store_true',
                    help='print libclang errors (they shrink as the shim grows)')
    opts = ap.parse_args()

    ksrc = os.path.abspath(opts.kernel_src)
    files = []
    if opts.file:
        for spec in opts.file:
            parts = spec.split(',')
            files.append((parts[0], [p for p in parts[1:] if p]))
    else:
        files = DEFAULT_FILES

    shim_inc = os.path.join(TOP, 'kernel_shim', 'include')
    plain_inc = os.path.join(TOP, 'include')
    base_args = ['-x', 'c', '-std=gnu11', '-nostdinc', '-D__KERNEL__',
                 '-DDMASIM_PAGE_SHIFT=%d' % opts.page_shift,
                 '-I' + shim_inc, '-I' + plain_inc,
                 '-include', os.path.join(shim_inc, 'linux', 'kconfig.h'),
                 '-Wno-everything', '-Wimplicit-int', '-ferror-limit=0']
    cinc = compiler_include()
    if cinc:
        base_args += ['-idirafter', cinc]

    # The tree's version, as upstream/meson.build passes it.
    version = {}
    try:
        for line in open(os.path.join(ksrc, 'Makefile'), encoding='utf-8'):
            m = re.match(r'(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)\s*=\s*(\S*)', line)
            if m and m.group(1) not in version:
                version[m.group(1)] = m.group(2)
    except OSError:
        sys.exit('shim-drift: %s/Makefile not found' % ksrc)
    vargs = []
    if all(k in version for k in ('VERSION', 'PATCHLEVEL', 'SUBLEVEL')):
        vargs = ['-DDMASIM_LINUX_VERSION=' + version['VERSION'],
                 '-DDMASIM_LINUX_PATCHLEVEL=' + version['PATCHLEVEL'],
                 '-DDMASIM_LINUX_SUBLEVEL=' + version['SUBLEVEL']]
    vstr = '%s.%s.%s%s' % (version.get('VERSION', '?'), version.get('PATCHLEVEL', '?'),
                           version.get('SUBLEVEL', '?'), version.get('EXTRAVERSION', ''))

    report = []
    total_missing = 0
    read = set()	# every file the report depends on (--depfile)
    with tempfile.TemporaryDirectory(prefix='shim-drift.') as tmp:
        stub_dir = os.path.join(tmp, 'missing')
        os.makedirs(stub_dir)
        forced_all = sorted({os.path.join(TOP, h) for _, hs in files for h in hs})
        shim_headers = []
        for root, _, fs in os.walk(shim_inc):
            shim_headers += [os.path.join(root, f) for f in fs if f.endswith('.h')]
        search = [shim_inc, plain_inc] + ([cinc] if cinc else [])
        kconfig = os.path.join(shim_inc, 'linux', 'kconfig.h')
        shim_missing = find_missing_headers(shim_headers + forced_all, search)
        make_stub_dir(shim_missing, stub_dir)

        provided, pfields, shim_errors = cached_provided_names(
            opts.cache, [shim_inc], forced_all, base_args + vargs, stub_dir)

        report.append('Shim drift report: Linux %s at %s' % (vstr, ksrc))
        report.append('kernel_shim provides %d names (%d struct fields)' %
                      (len(provided), len(pfields)))
        if shim_missing:
            report.append('kernel_shim headers include headers it lacks: ' +
                          ', '.join('%s (from %s)' % (h, os.path.relpath(f, TOP))
                                    for h, f in sorted(shim_missing.items())))
        if shim_errors and opts.show_parse_errors:
            report.append('kernel_shim headers, parsed together, have %d errors:' % len(shim_errors))
            report += ['  ' + str(d) for d in shim_errors[:40]]

        for rel, forced in files:
            path = os.path.join(ksrc, rel)
            report.append('')
            if not os.path.isfile(path):
                report.append('== %s: not in this tree' % rel)
                continue
            forced_abs = [os.path.join(TOP, h) for h in forced]
            # What the file can see: its own includes, transitively, from
            # the headers force-included before it.  A driver-local header
            # whose guard a displacement header defines expands to nothing:
            # neither it nor what it includes is reached (or missing).
            missing_h, reached = walk_includes(
                [kconfig] + forced_abs + [path], search,
                displaced=defined_macros(forced_abs))
            read |= reached
            fstub = os.path.join(tmp, 'missing-' + os.path.basename(rel))
            os.makedirs(fstub)
            make_stub_dir(missing_h, fstub)
            args = list(base_args) + vargs
            for h in forced_abs:
                args += ['-include', h]
            args += ['-idirafter', fstub]
            modname = os.path.splitext(os.path.basename(rel))[0].replace('-', '_')
            args += ['-DKBUILD_MODNAME="%s"' % modname, '-DKBUILD_BASENAME="%s"' % modname]
            declared, errors, nofield, incomplete, skip = declared_names(path, args)
            declared |= macro_params(path)
            used = used_identifiers(path, skip)
            candidates = [n for n in used if n not in declared
                          and not n.startswith('__builtin')]
            # Provided means defined by a shim header the file reaches (or
            # built into the compiler); defined only elsewhere in the shim
            # is drift too: the compiler would not see it.
            missing = sorted((n for n in candidates if n not in provided),
                             key=lambda n: (used[n][1], n))
            unreachable = {n: sorted(os.path.relpath(f, shim_inc) if f.startswith(shim_inc + os.sep)
                                     else os.path.relpath(f, TOP)
                                     for f in provided[n] if f is not None)
                           for n in candidates
                           if n in provided and None not in provided[n]
                           and not provided[n] & reached}
            total_missing += (len(missing) + len(unreachable) + len(missing_h) +
                              len(nofield) + len(incomplete))
            report.append('== %s: %d identifiers used, %d not provided by kernel_shim, '
                          '%d not reached, %d headers missing' %
                          (rel, len(used), len(missing), len(unreachable), len(missing_h)))
            if missing_h:
                report.append('  headers: ' + ' '.join(
                    '<%s>' % h for h in sorted(missing_h)))
            by_how = {}
            for n in missing:
                by_how.setdefault(used[n][1], []).append(n)
            labels = {'call': 'called (functions, function-like macros)',
                      'member': 'read as struct/union members',
                      'tag': 'struct/union/enum tags',
                      'name': 'types, constants, variables'}
            for how in ('call', 'member', 'tag', 'name'):
                if how in by_how:
                    report.append('  %s:' % labels[how])
                    line = '   '
                    for n in by_how[how]:
                        item = ' %s:%d' % (n, used[n][0])
                        if len(line) + len(item) > 78:
                            report.append(line)
                            line = '   '
                        line += item
                    report.append(line)
            if unreachable:
                report.append('  defined only in shim headers the file\'s includes do not '
                              'reach (include one, or make it reachable):')
                for n in sorted(unreachable, key=lambda n: (used[n][0], n)):
                    report.append('    %s:%d  in %s' % (n, used[n][0],
                                                       ', '.join('<%s>' % h for h in unreachable[n])))
            unreached = {t: l for t, l in incomplete.items() if t.split()[1] in provided}
            declared_only = {t: l for t, l in incomplete.items() if t not in unreached}
            if declared_only:
                report.append('  used complete, but the shim only declares them:')
                report.append('    ' + ' '.join('%s:%d' % kv for kv in sorted(declared_only.items())))
            if unreached:
                report.append('  used complete, defined by a shim header the file\'s '
                              'includes do not reach:')
                report.append('    ' + ' '.join('%s:%d' % kv for kv in sorted(unreached.items())))
            if nofield:
                report.append('  members the shim\'s struct lacks:')
                report.append('    ' + ' '.join('%s:%d' % kv for kv in sorted(nofield.items())))
            if errors and opts.show_parse_errors:
                report.append('  libclang errors parsing it against the shim: %d' % len(errors))
                report += ['    ' + str(d) for d in errors[:40]]

            for note in opts.notes:
                base = os.path.splitext(os.path.basename(rel))[0]
                if not os.path.basename(note).endswith('-' + base + '.md'):
                    continue
                nnames, nfields = read_notes(note)
                lacking = sorted(n for n in nnames if n not in provided and not n.startswith('CONFIG_'))
                lacking_f = sorted('%s.%s' % sf for sf in nfields if sf not in pfields)
                unseen = [n for n in lacking if n not in missing]
                report.append('  cross-check with %s: %d names and %d fields it lists '
                              'are not in the shim' % (os.path.basename(note), len(lacking),
                                                       len(lacking_f)))
                if lacking_f:
                    report.append('    fields: ' + ' '.join(lacking_f))
                if unseen:
                    report.append('    listed there but not above (spelled through macros?): ' +
                                  ' '.join(unseen))
                total_missing += len(lacking_f)

    report.append('')
    report.append('drift: %s' % ('none' if total_missing == 0 else
                                 '%d missing items' % total_missing))
    if total_missing and opts.stamp:
        report.append('upstream mode: %s uses what kernel_shim lacks (above); the build '
                      'stops here. Add it to kernel_shim/ (docs/upstream.md, section 2)%s.' %
                      (ksrc, '; report in ' + opts.output if opts.output else ''))
    text = '\n'.join(report) + '\n'
    if not (opts.stamp and total_missing == 0):
        sys.stdout.write(text)	# a build step that passes says nothing
    if opts.output:
        with open(opts.output, 'w') as f:
            f.write(text)
    if opts.depfile:
        read |= set(shim_headers) | {os.path.join(ksrc, 'Makefile'), os.path.abspath(__file__)}
        read |= {os.path.join(ksrc, rel) for rel, _ in files}
        deps = sorted(p.replace(' ', '\\ ') for p in read if os.path.isfile(p))
        with open(opts.depfile, 'w') as f:
            f.write('%s: %s\n' % ((opts.stamp or 'shim-drift').replace(' ', '\\ '),
                                  ' \\\n '.join(deps)))
    if opts.stamp:
        if total_missing == 0:
            with open(opts.stamp, 'w') as f:
                f.write('/* tools/shim-drift.py: drift: none for %s */\n' % ksrc)
        elif os.path.exists(opts.stamp):
            os.unlink(opts.stamp)
    return 0 if total_missing == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
