#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Take named functions out of a kernel file, with the file-scope code they
reach, into a translation unit of their own (upstream mode).

mm/memory.c and drivers/iommu/iommu.c are too large to compile whole
against kernel_shim.  Upstream mode takes from them only the functions the
project simulates (follow_pfnmap_start()/_end(), the IOMMU map path), and
what those reach in the same file, verbatim:

    tools/extract-functions.py TREE/mm/memory.c -o BUILD/.../memory.c \\
        --function follow_pfnmap_start --function follow_pfnmap_end \\
        --build BUILD

  parse     the file is parsed with libclang with the arguments the build
            compiles the output with (BUILD/compile_commands.json, the
            entry of -o; or the arguments after --).  Its #include lines
            that kernel_shim cannot resolve are blanked first (a quoted
            include is never looked up beside the file: the tree's local
            headers, mm/internal.h, are not the shim's), so the file's
            other functions may not parse; the taken ones must;
  closure   from each named function (a definition in a branch the shim's
            configuration compiles), every file-scope declaration of the
            file it refers to (functions static or not, variables, types,
            enum constants through their enum, macros the file defines),
            transitively; and the macro definitions before the file's first
            #include (pr_fmt: they configure the headers);
  output    those declarations, each whole line from its first to its last,
            in the file's order, with the #include lines the shim resolves,
            each piece preceded by `#line N "FILE"`: the compiler's
            messages and gcov's lines point into the user's file;
  check     the output is parsed again with the same arguments: an error
            there is something a taken function reaches that neither the
            extract nor the shim provides, reported with its name, where
            (FILE:LINE), and in which function, from which named function.

Exit status 1, with a message naming the function, when a named function is
not defined in the file or the check fails; nothing is written then.
Nothing of the file is ever written into the repository: the output goes to
the build directory.  tests/extract_functions_check.py checks these rules on
a made-up file.
"""
import argparse
import importlib.util
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clang_loader  # noqa: E402

ci = clang_loader.cindex('extract-functions')

PROG = 'extract-functions'
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
IDENT = re.compile(r'[A-Za-z_]\w*')
K = ci.CursorKind
# What an unprovided name's diagnostic names.
NAMED = re.compile(r"(?:undeclared identifier|function|unknown type name|"
                   r"incomplete (?:definition of )?type|no member named) '([^']+)'")
# Warnings that are an unprovided name too, whatever the build's -Werror.
UNPROVIDED = re.compile(r'implicit declaration of function|call to undeclared '
                        r'function|has internal linkage but is not defined')


class ExtractError(Exception):
    pass


# gcc options of the build that libclang refuses ("unknown argument"): left
# out of every parse (parse()), from a build's compile_commands.json or
# after --.  Each only shapes gcc's code or debug information
# (meson.build says why the build has it).
GCC_ONLY = ('-fno-var-tracking-assignments',)


def compile_args(entry):
    """The compiler arguments of one compile_commands.json entry (as
    tools/mutation.py reads them), and its directory."""
    spec = importlib.util.spec_from_file_location(
        'mutation', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'mutation.py'))
    mutation = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mutation)
    return mutation.compile_args(entry), entry['directory']


def args_from_build(build, output):
    """The arguments the build compiles OUTPUT with."""
    path = os.path.join(build, 'compile_commands.json')
    try:
        with open(path) as f:
            entries = json.load(f)
    except OSError as e:
        raise ExtractError('cannot read %s: %s' % (path, e))
    want = os.path.realpath(output)
    for e in entries:
        if os.path.realpath(os.path.join(e['directory'], e['file'])) == want:
            return compile_args(e)
    raise ExtractError('%s is not compiled by the build in %s (not in '
                       'compile_commands.json)' % (output, build))


def include_dirs(args, cwd):
    """(quote dirs, angle dirs) of a compiler command line."""
    quote, angle, after = [], [], []
    i = 0
    while i < len(args):
        a = args[i]
        for flag, dest in (('-iquote', quote), ('-isystem', angle),
                           ('-idirafter', after), ('-I', angle)):
            if a == flag and i + 1 < len(args):
                dest.append(os.path.join(cwd, args[i + 1]))
                i += 1
                break
            if a.startswith(flag) and len(a) > len(flag):
                dest.append(os.path.join(cwd, a[len(flag):]))
                break
        i += 1
    return quote + angle + after, angle + after


def blank_unresolved_includes(text, qdirs, adirs):
    """The text with every #include the shim cannot resolve blanked (line
    count kept), and the headers blanked."""
    lines = text.split('\n')
    blanked = []
    for n, line in enumerate(lines):
        m = INCLUDE.match(line)
        if not m:
            continue
        dirs = qdirs if m.group(1) == '"' else adirs
        if not any(os.path.isfile(os.path.join(d, m.group(2))) for d in dirs):
            blanked.append((n + 1, m.group(2)))
            lines[n] = ''
    return '\n'.join(lines), blanked


def parse(path, args, text, cwd):
    old = os.getcwd()
    os.chdir(cwd)	# relative -I paths are the build directory's
    try:
        return ci.Index.create().parse(
            path, args=[a for a in args if a not in GCC_ONLY],
            unsaved_files=[(path, text)],
            options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD |
            ci.TranslationUnit.PARSE_INCOMPLETE)
    finally:
        os.chdir(old)


def in_file(cur, real):
    f = cur.location.file
    return f is not None and os.path.realpath(f.name) == real


def top_level(cur):
    """The file-scope declaration a referenced cursor belongs to (an enum
    for its constant, a struct for its field), or None for a local one."""
    while cur is not None and cur.kind != K.TRANSLATION_UNIT:
        parent = cur.semantic_parent
        if parent is None or parent.kind == K.TRANSLATION_UNIT:
            return cur
        if parent.kind == K.FUNCTION_DECL:
            return None
        cur = parent
    return None


def describe(cur):
    if cur.kind == K.FUNCTION_DECL:
        return '%s()' % cur.spelling
    if cur.kind == K.MACRO_DEFINITION:
        return 'macro %s' % cur.spelling
    if cur.kind in (K.STRUCT_DECL, K.UNION_DECL, K.ENUM_DECL):
        kind = {K.STRUCT_DECL: 'struct', K.UNION_DECL: 'union',
                K.ENUM_DECL: 'enum'}[cur.kind]
        return '%s %s' % (kind, cur.spelling or '(anonymous)')
    return cur.spelling or cur.kind.name.lower()


class Extract:
    def __init__(self, path, functions, args, cwd, shown=None):
        self.path = os.path.abspath(path)
        self.real = os.path.realpath(path)
        self.shown = shown or self.path
        self.functions = functions
        self.args = args
        self.cwd = cwd
        try:
            with open(self.path, encoding='utf-8', errors='replace') as f:
                self.text = f.read()
        except OSError as e:
            raise ExtractError('cannot read %s: %s' % (path, e))
        self.lines = self.text.split('\n')
        self.qdirs, self.adirs = include_dirs(args, cwd)

    def run(self):
        text, self.blanked = blank_unresolved_includes(self.text, self.qdirs, self.adirs)
        tu = parse(self.path, self.args, text, self.cwd)
        self.depends = {self.real} | {os.path.realpath(i.include.name)
                                      for i in tu.get_includes() if i.include}
        # File-scope cursors of the file, by USR (a static function's USR
        # is the file's own; a prototype in a shim header shares its USR
        # with the definition here).
        self.by_usr, self.by_name, macros, includes = {}, {}, [], []
        for cur in tu.cursor.get_children():
            if not in_file(cur, self.real):
                continue
            if cur.kind == K.MACRO_INSTANTIATION:
                macros.append(cur)
                continue
            if cur.kind == K.INCLUSION_DIRECTIVE:
                includes.append(cur)
                continue
            usr = cur.get_usr()
            if not usr:
                continue
            self.by_usr.setdefault(usr, []).append(cur)
            if cur.spelling:
                self.by_name.setdefault(cur.spelling, set()).add(usr)
        roots = []
        for name in self.functions:
            defs = [c for usr in self.by_name.get(name, ())
                    for c in self.by_usr[usr]
                    if c.kind == K.FUNCTION_DECL and c.is_definition()]
            if not defs:
                raise ExtractError(
                    '%s: no definition of %s() (not in the file, or only in '
                    'an #if branch the shim\'s configuration leaves out)' %
                    (self.shown, name))
            roots.append(defs[0].get_usr())

        # Transitive closure over references; why[usr]: who reached it.
        self.why = {usr: None for usr in roots}
        todo = list(roots)
        while todo:
            usr = todo.pop()
            for ref in self.references(usr, macros):
                if ref not in self.why:
                    self.why[ref] = usr
                    todo.append(ref)

        first_include = min((c.extent.start.line for c in includes), default=None)
        pieces = []	# (first line, last line, usr or None)
        for usr in self.why:
            for c in self.by_usr[usr]:
                pieces.append(self.span(c) + (usr,))
        for usr, cs in self.by_usr.items():
            if usr in self.why:
                continue
            for c in cs:
                if (c.kind == K.MACRO_DEFINITION and first_include and
                        c.extent.start.line < first_include):
                    pieces.append(self.span(c) + (usr,))
                    self.why[usr] = None
        for c in includes:
            if c.get_included_file() is not None:
                pieces.append(self.span(c) + (None,))
        self.pieces = merge(pieces)
        return self

    def span(self, cur):
        """Whole lines of a declaration: from its first line (where a
        macro definition's '#define' is) to its last."""
        return cur.extent.start.line, cur.extent.end.line

    def references(self, usr, macros):
        """USRs of the file's declarations a declaration of USR refers to."""
        out = set()
        for decl in self.by_usr[usr]:
            first, last = self.span(decl)
            if decl.kind == K.MACRO_DEFINITION:
                # A macro's body: the file's names it spells.
                for tok in decl.get_tokens():
                    if tok.kind == ci.TokenKind.IDENTIFIER and tok.spelling != decl.spelling:
                        out |= self.by_name.get(tok.spelling, set())
                continue
            for c in decl.walk_preorder():
                ref = c.referenced
                if ref is None or c == decl:
                    continue
                top = top_level(ref)
                if top is None:
                    continue
                r = top.get_usr()
                if r in self.by_usr and r != usr:
                    out.add(r)
            for m in macros:
                if first <= m.location.line <= last:
                    d = m.referenced
                    if d is not None and in_file(d, self.real) and d.get_usr() in self.by_usr:
                        out.add(d.get_usr())
        return out

    def name_of(self, usr):
        return describe(self.by_usr[usr][0])

    def chain(self, usr):
        """'a() <- b() <- root()': how a named function reaches usr."""
        names = []
        while usr is not None:
            names.append(self.name_of(usr))
            usr = self.why.get(usr)
        return ' <- '.join(names)

    def render(self, output):
        shown = self.shown.replace('\\', '\\\\').replace('"', '\\"')
        out = ['/* Generated by tools/extract-functions.py from %s: do not edit.' % shown,
               ' * Named: %s.' % ', '.join(f + '()' for f in self.functions)]
        if self.blanked:
            out.append(' * Not included (kernel_shim has no such header): %s.' %
                       ', '.join(h for _, h in self.blanked))
        out.append(' */')
        self.line_map = {}	# output line -> (file line, usr)
        for first, last, usr in self.pieces:
            out.append('#line %d "%s"' % (first, shown))
            for n in range(first, last + 1):
                out.append(self.lines[n - 1])
                self.line_map[len(out)] = (n, usr)
        return '\n'.join(out) + '\n'

    def check(self, output, text):
        """Parse the output as the build will compile it; errors name what
        a taken function reaches that nobody provides."""
        tu = parse(output, self.args, text, self.cwd)
        real = os.path.realpath(output)
        problems, lines_seen = [], set()
        for d in tu.diagnostics:
            if d.severity < ci.Diagnostic.Error and not UNPROVIDED.search(d.spelling):
                continue
            loc = d.location
            if loc.file is None or os.path.realpath(loc.file.name) != real:
                where = '%s:%d' % (loc.file.name if loc.file else '?', loc.line)
                problems.append('%s: %s (in a header the extract includes)' % (where, d.spelling))
                continue
            line, usr = self.line_map.get(loc.line, (None, None))
            if line in lines_seen:
                continue	# what follows from the first error of a line
            lines_seen.add(line)
            name = NAMED.search(d.spelling)
            if usr is None or not name:
                problems.append('%s:%s: %s' % (self.shown, line, d.spelling))
                continue
            what = name.group(1)
            note = ''
            if what in self.by_name:
                note = ', though the file defines it: its definition did not parse'
            problems.append(
                '%s reaches %s at %s:%d, which neither the extract nor '
                'kernel_shim provides%s (%s; reached as %s)' % (
                    self.root_of(usr), what, self.shown, line, note, d.spelling,
                    self.chain(usr)))
        if problems:
            raise ExtractError('\n  '.join(['%s: the extract does not compile against '
                                            'kernel_shim:' % self.shown] + problems))

    def root_of(self, usr):
        while self.why.get(usr) is not None:
            usr = self.why[usr]
        return self.name_of(usr)


def merge(pieces):
    """Pieces in file order, overlapping ones joined (a declaration inside a
    macro's lines, two declarations on one line)."""
    out = []
    for first, last, usr in sorted(pieces, key=lambda p: (p[0], p[1])):
        if out and first <= out[-1][1]:
            prev = out[-1]
            out[-1] = (prev[0], max(prev[1], last), prev[2] or usr)
        else:
            out.append((first, last, usr))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('file', help="the kernel file (the user's tree)")
    ap.add_argument('--function', '-f', action='append', required=True,
                    help='a function to take (repeatable)')
    ap.add_argument('--output', '-o', required=True, help='the .c to write')
    ap.add_argument('--build', help='build directory whose compile_commands.json '
                                    'has the arguments -o is compiled with')
    ap.add_argument('--depfile', help='write the files read (make syntax)')
    ap.add_argument('--hint', help='printed after an error: what the user can do')
    ap.add_argument('--list', action='store_true',
                    help='print what was taken and why')
    argv = sys.argv[1:] if argv is None else argv
    # After --: the compiler arguments (instead of --build).
    compiler_args = argv[argv.index('--') + 1:] if '--' in argv else []
    opts = ap.parse_args(argv[:argv.index('--')] if '--' in argv else argv)
    opts.compiler_args = compiler_args
    try:
        if opts.build:
            args, cwd = args_from_build(opts.build, opts.output)
        else:
            args, cwd = opts.compiler_args, os.getcwd()
        ex = Extract(opts.file, opts.function, args, cwd).run()
        text = ex.render(opts.output)
        ex.check(opts.output, text)
    except ExtractError as e:
        sys.stderr.write('%s: %s\n' % (PROG, e))
        if opts.hint:
            sys.stderr.write('%s: %s\n' % (PROG, opts.hint))
        return 1
    if opts.list:
        for first, last, usr in ex.pieces:
            what = ex.chain(usr) if usr else 'header'
            print('%s:%d-%d  %s' % (ex.shown, first, last, what))
    with open(opts.output + '.tmp', 'w') as f:
        f.write(text)
    os.replace(opts.output + '.tmp', opts.output)
    if opts.depfile:
        with open(opts.depfile, 'w') as f:
            f.write('%s: %s\n' % (opts.output.replace(' ', '\\ '), ' '.join(
                sorted(p.replace(' ', '\\ ') for p in ex.depends))))
    return 0


if __name__ == '__main__':
    sys.exit(main())
