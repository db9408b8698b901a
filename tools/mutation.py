#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Mutation testing of the kernel code under the project's test suites.

How strong are the suites?  Change one token of a kernel file the way a
slip of the hand would (a `<` for a `<=`, a deleted call, a wrong return
value), rebuild, run the tests: a test that now fails has "killed" the
mutant; a mutant no test notices "survived" and marks a behaviour nothing
checks.  The score is the share of mutants killed.  docs/mutation.md says
what the operators are, how to run it, how long it takes and how to mark an
equivalent mutant (one no test can kill because it does not change
behaviour).

Mutants are found in the libclang AST of each file, parsed with the flags
the build compiles it with (compile_commands.json), so macros and headers
resolve as in the build.  Only text spelled in the file itself is mutated:
never a token that comes from a macro's body (a macro argument written in
the file is the file's own text and is mutated), never a line excluded from
coverage (GCOVR_EXCL_* / LCOV_EXCL_*), never inside a BUG_ON/WARN-style
assertion that is a statement of its own.

The user's tree is never written: the tree is copied into a scratch folder
(--workdir), configured there once with meson, and each mutant is written
into that copy, built (ninja rebuilds the one object and relinks only the
test executable about to run), tested and restored.  A run that is
interrupted leaves at most the scratch copy mutated; the next run copies the
tree over it again (any file whose content differs is rewritten).

Entry point: tools/mutation-score.sh (this script's options).
"""
import argparse
import ctypes
import fcntl
import hashlib
import importlib.util
import json
import os
import random
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# libclang for python (clang.cindex), imported when a file is parsed
# (clang_lib()): a run whose mutants are cached (find_mutants()) neither
# imports it nor loads libclang.
ci = None

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DEFAULT_CORE_FILES = [
    'core/drivers/vfio/vfio_iommu_type1.c',
    'core/mm/memory.c',
    'core/drivers/iommu/iommu.c',
    'core/drivers/iommu/iommu-map.c',
    'core/drivers/dma-buf/heaps/system_heap.c',
    'core/drivers/dma-buf/dma-heap.c',
]
# The kernel tree's files upstream mode compiles (upstream/meson.build,
# upstream_subject), and the ones more it reads (docs/upstream.md; functions
# are taken from mm/memory.c and iommu.c): what the scratch copy of a kernel
# tree holds.
UPSTREAM_SUBJECT = [
    'drivers/vfio/vfio_iommu_type1.c',
    'drivers/dma-buf/heaps/system_heap.c',
    'drivers/dma-buf/dma-heap.c',
]
UPSTREAM_READS = ['Makefile', 'drivers/vfio/vfio.h', 'mm/memory.c',
                  'drivers/iommu/iommu.c']

# The mutants' scratch builds compile without debug information (the
# project's debugoptimized otherwise: same -O2, same assertions): about a
# fifth less compile time per mutant, no change in what the code does.
MUTANT_MESON_ARGS = ('-Ddebug=false',)

# Suites that are not behaviour checks of the built code (style, docs, the
# real kbuild, script self-tests) or too long for one run per mutant
# ('bench': the 4-GPU before-mode replay, a minute of CPU uninstrumented).
SKIP_SUITES = {'slow', 'bench', 'kbuild', 'style', 'docs', 'tools'}

# Assertion macros: an invocation that is a statement of its own only
# checks an invariant, so mutating its condition or deleting it makes a
# mutant that either fires on a correct state (the shim's WARN/BUG report)
# or never fires (no test can tell: equivalent).  Neither says anything
# about the suites; inside a condition (`if (WARN_ON(x))`) they are code.
ASSERT_MACROS = re.compile(
    r'^(BUG_ON|BUG|BUILD_BUG_ON\w*|VM_BUG_ON\w*|VM_WARN\w*|WARN|WARN_ON|'
    r'WARN_ONCE|WARN_ON_ONCE|WARN_RATELIMIT|lockdep_assert\w*|might_sleep|'
    r'might_lock\w*|mmap_assert\w*|static_assert|_Static_assert)$')

EXCL_LINE = re.compile(r'(GCOVR|LCOV)_EXCL(_BR)?_LINE')
EXCL_START = re.compile(r'(GCOVR|LCOV)_EXCL(_BR)?_START')
EXCL_STOP = re.compile(r'(GCOVR|LCOV)_EXCL(_BR)?_STOP')

# Operator groups and their replacements.
ROR = {'<': ['<=', '>='], '<=': ['<', '>'], '>': ['>=', '<='],
       '>=': ['>', '<'], '==': ['!='], '!=': ['==']}
AOR = {'+': ['-'], '-': ['+'], '*': ['/'], '/': ['*'], '%': ['*'],
       '<<': ['>>'], '>>': ['<<'], '&': ['|'], '|': ['&'], '^': ['&'],
       '+=': ['-='], '-=': ['+='], '*=': ['/='], '/=': ['*='],
       '%=': ['*='], '<<=': ['>>='], '>>=': ['<<='], '&=': ['|='],
       '|=': ['&='], '^=': ['&='], '++': ['--'], '--': ['++']}
LCR = {'&&': ['||'], '||': ['&&']}
POINTER_OK = {'+', '-', '+=', '-=', '++', '--'}
OPERATORS = sorted(set(ROR) | set(AOR) | set(LCR) | {'='}, key=len,
                   reverse=True)
INT_LITERAL = re.compile(r'(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)\b')

SIGNED_KINDS = {'CHAR_S', 'SCHAR', 'SHORT', 'INT', 'LONG', 'LONGLONG', 'INT128'}
UNSIGNED_KINDS = {'CHAR_U', 'UCHAR', 'USHORT', 'UINT', 'ULONG', 'ULONGLONG',
                  'UINT128'}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def die(msg):
    """A setup error (exit 2; 1 is kept for a score below --min)."""
    log('mutation: ' + msg)
    sys.exit(2)


# ---------------------------------------------------------------- libclang

_lib_ready = False


def clang_lib():
    global _lib_ready, ci
    if not _lib_ready:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import clang_loader
        ci = clang_loader.cindex('mutation')
        _lib_ready = True
    return ci.conf.lib


def file_offset(loc):
    """(file name, offset) of a location as written in a file: a macro
    argument's token at its place in the file, a macro body's at the
    invocation (clang_getFileLocation)."""
    lib = clang_lib()
    f = ci.c_object_p()
    line, col, off = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
    lib.clang_getFileLocation(loc, ctypes.byref(f), ctypes.byref(line),
                              ctypes.byref(col), ctypes.byref(off))
    return (ci.File(f).name if f else None), off.value


def expansion_offset(loc):
    return (loc.file.name if loc.file else None), loc.offset


def compile_args(entry):
    """The compiler arguments of one compile_commands.json entry, without
    the output, dependency-file and source arguments."""
    argv = entry.get('arguments') or shlex.split(entry['command'])
    out, skip = [], False
    for a in argv[1:]:
        if skip:
            skip = False
            continue
        if a in ('-o', '-MF', '-MQ', '-MT'):
            skip = True
            continue
        if a in ('-c', '-MD', '-MMD') or a == entry['file']:
            continue
        out.append(a)
    return out


# ---------------------------------------------------------------- text scans

def skip_space(text, i):
    """Index of the first character at or after i that is neither white
    space nor inside a comment."""
    n = len(text)
    while i < n:
        if text[i].isspace():
            i += 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            i = n if j < 0 else j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j + 1
        else:
            break
    return i


def scan(text, i, end=None):
    """(index, character, depth after it) of the characters of text from i
    to end that are code: string and character literals and comments are
    skipped; depth counts open brackets of any kind."""
    depth, end = 0, len(text) if end is None else end
    while i < end:
        c = text[i]
        if c in '"\'':
            j = i + 1
            while j < end and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            i = j + 1
            continue
        if text.startswith('/*', i) or text.startswith('//', i):
            i = skip_space(text, i)
            continue
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        yield i, c, depth
        i += 1


def match_paren(text, i):
    """text[i] is '(': index of its matching ')', or -1."""
    for j, c, depth in scan(text, i):
        if depth == 0:
            return j if c == ')' else -1
    return -1


def find_at_depth0(text, i, end, chars):
    """First index in [i, end) of one of chars outside brackets."""
    for j, c, depth in scan(text, i, end):
        if depth == 0 and c in chars:
            return j
    return -1


def is_word_at(text, i, word):
    return (text.startswith(word, i) and
            (i + len(word) >= len(text) or
             not (text[i + len(word)].isalnum() or text[i + len(word)] == '_')))


def balanced(s):
    depth = 0
    for c in s:
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


# ---------------------------------------------------------------- mutants

class Mutant:
    __slots__ = ('file', 'label', 'func', 'op', 'start', 'end', 'orig', 'repl',
                 'line', 'id', 'status', 'test', 'seconds', 'reason',
                 'mutated_line', 'cover', 'tests_run', 'build_seconds')

    def __init__(self, file, label, func, op, start, end, orig, repl, line):
        self.file, self.label, self.func, self.op = file, label, func, op
        self.start, self.end, self.orig, self.repl = start, end, orig, repl
        self.line = line
        self.id = None
        self.status = None
        self.test = None
        self.seconds = 0.0
        self.reason = None
        self.mutated_line = None
        self.cover = None     # names of the tests that reach it (None: all)
        self.tests_run = 0    # how many tests ran on it
        self.build_seconds = 0.0

    def apply(self, text):
        return text[:self.start] + self.repl + text[self.end:]

    def describe(self):
        o = ' '.join(self.orig.split())
        r = ' '.join(self.repl.split())
        if len(o) > 40:
            o = o[:37] + '...'
        if len(r) > 40:
            r = r[:37] + '...'
        return "'%s' -> '%s'" % (o, r)

    def record(self):
        return {'id': self.id, 'file': self.label, 'line': self.line,
                'function': self.func, 'operator': self.op,
                'original': self.orig, 'replacement': self.repl,
                'mutated_line': self.mutated_line, 'status': self.status,
                'test': self.test, 'seconds': round(self.seconds, 3),
                'build_seconds': round(self.build_seconds, 3),
                'tests_run': self.tests_run, 'reason': self.reason}


def excluded_lines(text):
    """Line numbers (1-based) excluded from coverage by GCOVR/LCOV markers."""
    out, inside = set(), False
    for no, line in enumerate(text.split('\n'), 1):
        if EXCL_START.search(line):
            inside = True
        if inside or EXCL_LINE.search(line):
            out.add(no)
        if EXCL_STOP.search(line):
            inside = False
    return out


class Finder:
    """Every mutant of one file, from its libclang AST."""

    def __init__(self, path, label, args, directory):
        self.path = os.path.realpath(path)
        self.label = label
        with open(self.path, encoding='utf-8', errors='surrogateescape') as f:
            self.text = f.read()
        self.line_starts = [0]
        for m in re.finditer('\n', self.text):
            self.line_starts.append(m.end())
        self.excluded = excluded_lines(self.text)
        clang_lib()
        cwd = os.getcwd()
        os.chdir(directory)
        try:
            idx = ci.Index.create()
            self.tu = idx.parse(self.path, args=args, options=(
                ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD))
        finally:
            os.chdir(cwd)
        self.errors = [d for d in self.tu.diagnostics
                       if d.severity >= ci.Diagnostic.Error]
        self.assert_ranges = []
        self.mutants = []
        self.seen = set()

    # -- helpers
    def line_of(self, off):
        lo, hi = 0, len(self.line_starts)
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            if self.line_starts[mid] <= off:
                lo = mid
            else:
                hi = mid
        return lo + 1

    def own(self, loc):
        """File offset of loc if it is spelled in this file, else None."""
        name, off = file_offset(loc)
        if name is None or os.path.realpath(name) != self.path:
            return None
        return off

    def own_unexpanded(self, loc):
        """File offset of loc if it is this file's text and not inside any
        macro invocation (expansion and spelling agree)."""
        off = self.own(loc)
        if off is None:
            return None
        name, eoff = expansion_offset(loc)
        if name is None or os.path.realpath(name) != self.path or eoff != off:
            return None
        return off

    def in_assert(self, start, end):
        return any(a <= start and end <= b for a, b in self.assert_ranges)

    def add(self, func, op, start, end, repl):
        if start is None or end is None or start >= end:
            return
        orig = self.text[start:end]
        if orig == repl:
            return
        first, last = self.line_of(start), self.line_of(max(start, end - 1))
        if any(no in self.excluded for no in range(first, last + 1)):
            return
        if self.in_assert(start, end):
            return
        key = (start, end, repl)
        if key in self.seen:
            return
        self.seen.add(key)
        self.mutants.append(Mutant(self.path, self.label, func, op, start, end,
                                   orig, repl, first))

    # -- assertion statements
    def collect_asserts(self):
        for c in self.tu.cursor.get_children():
            if c.kind != ci.CursorKind.MACRO_INSTANTIATION:
                continue
            if not ASSERT_MACROS.match(c.spelling):
                continue
            ext = c.extent
            if not ext.start.file or os.path.realpath(ext.start.file.name) != self.path:
                continue
            s, e = ext.start.offset, ext.end.offset
            # A statement of its own: only white space before it on its line
            # (or after '{', ';', ')', 'else', ':') and a ';' after it.
            j = skip_space(self.text, e)
            if j < len(self.text) and self.text[j] == ';':
                k = s - 1
                while k >= 0 and self.text[k] in ' \t':
                    k -= 1
                if k < 0 or self.text[k] in '\n{;):' or self.text[max(0, k - 3):k + 1] == 'else':
                    self.assert_ranges.append((s, j + 1))

    # -- the walk
    def run(self):
        self.collect_asserts()
        for c in self.tu.cursor.get_children():
            if c.location.file is None or os.path.realpath(c.location.file.name) != self.path:
                continue
            if c.kind == ci.CursorKind.FUNCTION_DECL and c.is_definition():
                self.walk(c, c.spelling, c.result_type)
            elif c.kind == ci.CursorKind.VAR_DECL:
                self.walk(c, c.spelling, None)
        self.mutants.sort(key=lambda m: (m.start, m.end, m.op, m.repl))
        self.assign_ids()
        return self.mutants

    def walk(self, cursor, func, rtype, parent=None):
        for ch in cursor.get_children():
            self.visit(ch, func, rtype, cursor)
            self.walk(ch, func, rtype, cursor)

    def visit(self, c, func, rtype, parent):
        k = c.kind
        K = ci.CursorKind
        if k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            self.binary(c, func)
        elif k == K.UNARY_OPERATOR:
            self.unary(c, func)
        elif k == K.INTEGER_LITERAL:
            self.literal(c, func)
        elif k in (K.IF_STMT, K.WHILE_STMT, K.FOR_STMT, K.DO_STMT):
            self.condition(c, func)
        elif k == K.CONDITIONAL_OPERATOR:
            self.ternary(c, func)
        elif k == K.RETURN_STMT:
            self.ret(c, func, rtype)
        if parent is not None and self.is_statement_slot(c, parent):
            self.deletion(c, func)

    def binary(self, c, func):
        ch = list(c.get_children())
        if len(ch) != 2:
            return
        op, i = self.operator_before(ch[1])
        if op is None:
            return
        pointer = any(x.type.get_canonical().kind in (ci.TypeKind.POINTER,
                                                      ci.TypeKind.CONSTANTARRAY,
                                                      ci.TypeKind.INCOMPLETEARRAY)
                      for x in ch)
        for group, table in (('ROR', ROR), ('AOR', AOR), ('LCR', LCR)):
            if op in table:
                if group == 'AOR' and pointer and op not in POINTER_OK:
                    return
                for r in table[op]:
                    self.add(func, group, i, i + len(op), r)

    def operator_before(self, rhs):
        """The binary operator token written in the file just before the
        right operand: (text, offset) or (None, None).  The right operand's
        start is where it is written (a macro argument) or where the macro
        that produces it is invoked, so this also finds an operator whose
        left operand ends inside a macro (`MAX_MINORS - 1`, where libclang
        reports the left operand's end at the outer invocation).  The token
        before the operator must end an operand (a name, a number, ')' or
        ']'), so a unary '&' or '-' is never taken for a binary one."""
        b = self.own(rhs.extent.start)
        if b is None:
            return None, None
        j = b
        while j > 0 and self.text[j - 1].isspace():
            j -= 1
        op = next((o for o in OPERATORS if self.text.endswith(o, 0, j)), None)
        if op is None:
            return None, None
        i = j - len(op)
        if i > 0 and self.text[i - 1] in '<>=!&|+-*/%^~.?:':
            return None, None
        k = i
        while k > 0 and self.text[k - 1].isspace():
            k -= 1
        if k == 0 or not (self.text[k - 1].isalnum() or self.text[k - 1] in '_)]\'"'):
            return None, None
        return op, i

    def unary(self, c, func):
        start = self.own(c.extent.start)
        end = self.own(c.extent.end)
        if start is None or end is None:
            return
        for i in (start, end - 2):
            if i >= 0 and self.text[i:i + 2] in ('++', '--'):
                ch = list(c.get_children())
                if ch:
                    cs, ce = self.own(ch[0].extent.start), self.own(ch[0].extent.end)
                    if cs is None or not (i + 2 <= cs or i >= ce):
                        continue
                op = self.text[i:i + 2]
                self.add(func, 'AOR', i, i + 2, AOR[op][0])
                return

    def literal(self, c, func):
        off = self.own(c.location)
        if off is None:
            return
        m = INT_LITERAL.match(self.text, off)
        if not m or (off > 0 and (self.text[off - 1].isalnum() or
                                  self.text[off - 1] in '_.')):
            return
        digits, suffix = m.group(1), m.group(2)
        try:
            value = int(digits, 0) if not (len(digits) > 1 and digits[0] == '0'
                                           and digits[1] not in 'xX') else int(digits, 8)
        except ValueError:
            return
        # Keep the literal's base: hex stays hex.
        def spell(v):
            if digits.lower().startswith('0x'):
                return '0x%x%s' % (v, suffix)
            return '%d%s' % (v, suffix)
        for v in sorted({value + 1, value - 1} - {-1}):
            self.add(func, 'CRP', m.start(), m.end(), spell(v))

    def condition(self, c, func):
        K = ci.CursorKind
        kw = {K.IF_STMT: 'if', K.WHILE_STMT: 'while', K.FOR_STMT: 'for',
              K.DO_STMT: 'do'}[c.kind]
        off = self.own_unexpanded(c.extent.start)
        if off is None or not is_word_at(self.text, off, kw):
            return
        if c.kind == K.DO_STMT:
            ch = list(c.get_children())
            if not ch:
                return
            e = self.own(ch[0].extent.end)
            if e is None:
                return
            w = skip_space(self.text, e)
            if not is_word_at(self.text, w, 'while'):
                return
            p = skip_space(self.text, w + 5)
        else:
            p = skip_space(self.text, off + len(kw))
        if p >= len(self.text) or self.text[p] != '(':
            return
        q = match_paren(self.text, p)
        if q < 0:
            return
        s, e = p + 1, q
        if c.kind == K.FOR_STMT:
            s1 = find_at_depth0(self.text, s, e, ';')
            s2 = find_at_depth0(self.text, s1 + 1, e, ';') if s1 >= 0 else -1
            if s2 < 0:
                return
            s, e = s1 + 1, s2
        s = skip_space(self.text, s)
        while e > s and self.text[e - 1].isspace():
            e -= 1
        if e <= s:
            return
        cond = self.text[s:e]
        self.add(func, 'NEG', s, e, '!(%s)' % cond)

    def ternary(self, c, func):
        ch = list(c.get_children())
        if len(ch) != 3:
            return
        s = self.own_unexpanded(ch[0].extent.start)
        e = self.own(ch[0].extent.end)
        if s is None or e is None or e <= s:
            return
        q = skip_space(self.text, e)
        if q >= len(self.text) or self.text[q] != '?':
            return
        cond = self.text[s:e]
        if not balanced(cond):
            return
        self.add(func, 'NEG', s, e, '!(%s)' % cond)

    def ret(self, c, func, rtype):
        if rtype is None:
            return
        off = self.own_unexpanded(c.extent.start)
        if off is None or not is_word_at(self.text, off, 'return'):
            return
        if not list(c.get_children()):
            return
        s = skip_space(self.text, off + 6)
        semi = find_at_depth0(self.text, s, len(self.text), ';')
        if semi < 0:
            return
        e = semi
        while e > s and self.text[e - 1].isspace():
            e -= 1
        expr = self.text[s:e]
        if not expr or not balanced(expr):
            return
        kind = rtype.get_canonical().kind
        name = kind.name
        norm = ''.join(expr.split())
        if kind == ci.TypeKind.POINTER:
            if norm not in ('NULL', '0', '((void*)0)'):
                self.add(func, 'RVR', s, e, 'NULL')
        elif kind == ci.TypeKind.BOOL:
            self.add(func, 'RVR', s, e, '!(%s)' % expr)
        elif name in SIGNED_KINDS or name in UNSIGNED_KINDS or kind == ci.TypeKind.ENUM:
            self.add(func, 'RVR', s, e, '1' if norm == '0' else '0')
            if name in SIGNED_KINDS and norm not in ('-1',):
                self.add(func, 'RVR', s, e, '-1')

    def is_statement_slot(self, c, parent):
        K = ci.CursorKind
        pk = parent.kind
        if pk == K.COMPOUND_STMT:
            return True
        if pk == K.IF_STMT:
            ch = list(parent.get_children())
            return len(ch) > 1 and c != ch[0] and any(c == x for x in ch[1:])
        if pk in (K.LABEL_STMT, K.CASE_STMT, K.DEFAULT_STMT, K.WHILE_STMT,
                  K.FOR_STMT):
            ch = list(parent.get_children())
            return bool(ch) and c == ch[-1]
        return False

    def deletion(self, c, func):
        K = ci.CursorKind
        k = c.kind
        if k == K.CALL_EXPR:
            # An assertion the shim defines as a function, not a macro.
            if ASSERT_MACROS.match(c.spelling):
                return
        elif k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            ch = list(c.get_children())
            if len(ch) != 2:
                return
            op, _ = self.operator_before(ch[1])
            if op not in ('=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=',
                          '&=', '|=', '^='):
                return
        elif k == K.UNARY_OPERATOR:
            pass
        else:
            return
        s = self.own_unexpanded(c.extent.start)
        if s is None:
            return
        e = self.own(c.extent.end)
        if e is None or e <= s:
            return
        semi = skip_space(self.text, e)
        if semi >= len(self.text) or self.text[semi] != ';':
            return
        stmt = self.text[s:e]
        if not balanced(stmt):
            return
        if k == K.UNARY_OPERATOR and not ('++' in stmt or '--' in stmt):
            return
        # The statement must start where a statement can: after '{', ';',
        # '}', ')', ':' or 'else' (a macro's own statements are not ours).
        b = s - 1
        while b >= 0 and self.text[b].isspace():
            b -= 1
        while b >= 1 and self.text[b - 1:b + 1] == '*/':
            b = self.text.rfind('/*', 0, b - 1) - 1
            while b >= 0 and self.text[b].isspace():
                b -= 1
        if b >= 0 and not (self.text[b] in '{;}):' or self.text[max(0, b - 3):b + 1] == 'else'):
            return
        self.add(func, 'SDL', s, semi + 1, ';')

    # -- stable ids
    def assign_ids(self):
        counts = {}
        for m in self.mutants:
            ls = self.line_starts[m.line - 1]
            le = self.text.find('\n', m.end)
            le = len(self.text) if le < 0 else le
            before = self.text[ls:m.start]
            after = self.text[m.end:le]
            ctx = '%s[[%s=>%s]]%s' % (' '.join(before.split()),
                                      ' '.join(m.orig.split()),
                                      ' '.join(m.repl.split()),
                                      ' '.join(after.split()))
            h = hashlib.sha1(('%s\0%s\0%s' % (m.func, m.op, ctx)).encode(
                'utf-8', 'surrogateescape')).hexdigest()[:10]
            base = '%s:%s:%s:%s' % (m.label, m.func, m.op, h)
            n = counts.get(base, 0) + 1
            counts[base] = n
            m.id = base if n == 1 else '%s#%d' % (base, n)
            mutated = self.text[ls:m.start] + m.repl + after
            m.mutated_line = ' '.join(mutated.split())


# ---------------------------------------------------------------- scratch tree

def tree_files(root, skip_top):
    """Relative paths of the files of a tree, build folders and VCS data
    left out."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel == '.':
            dirnames[:] = [d for d in dirnames
                           if not (d.startswith('build') or d == '.git' or d in skip_top)]
        dirnames[:] = [d for d in dirnames if d not in ('.git', '__pycache__')]
        for f in filenames:
            p = os.path.normpath(os.path.join(rel, f))
            out.append(p)
    return out


def sync_file(src, dst):
    """Copy src to dst if their contents differ (a fresh mtime, so ninja
    rebuilds whatever a previous mutant left)."""
    try:
        with open(src, 'rb') as f:
            data = f.read()
    except OSError:
        return False
    if os.path.islink(src):
        data = None
    try:
        with open(dst, 'rb') as f:
            if data is not None and f.read() == data:
                return False
    except OSError:
        pass
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.lexists(dst):
        os.unlink(dst)
    if data is None:
        os.symlink(os.readlink(src), dst)
    else:
        with open(dst, 'wb') as f:
            f.write(data)
        shutil.copymode(src, dst)
    return True


def sync_tree(src, dst, files=None, skip_top=()):
    """Make dst's copy of src's files identical in content; files under dst
    that src no longer has are removed (build folders kept)."""
    want = set(files if files is not None else tree_files(src, skip_top))
    changed = 0
    for rel in sorted(want):
        if sync_file(os.path.join(src, rel), os.path.join(dst, rel)):
            changed += 1
    if files is None and os.path.isdir(dst):
        for rel in tree_files(dst, skip_top):
            if rel not in want and not rel.startswith('.mutation'):
                os.unlink(os.path.join(dst, rel))
    return changed


class Worker:
    """One scratch copy of the tree with its own meson build."""

    def __init__(self, opts, index, name=None, meson_args=MUTANT_MESON_ARGS):
        self.opts = opts
        self.index = index
        self.extra_args = list(meson_args)
        self.root = os.path.join(opts.workdir, name or 'w%d' % index)
        self.src = os.path.join(self.root, 'tree')
        self.ksrc = os.path.join(self.root, 'linux')
        self.build = os.path.join(self.src, 'build')
        self.lock = None
        self.proc = None
        self.current = None   # (path, original text) while a mutant is applied

    def acquire(self):
        os.makedirs(self.root, exist_ok=True)
        self.lock = open(os.path.join(self.root, '.lock'), 'w')
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            die('%s is in use by another run' % self.root)

    def prepare(self):
        """Copy the tree (content changes only), configure once, build."""
        self.acquire()
        o = self.opts
        sync_tree(o.source, self.src, skip_top=set(o.skip_top))
        args = list(o.meson_args) + self.extra_args
        if o.impl == 'upstream':
            # mm/memory.c and iommu.c may be absent: core's copies then.
            sync_tree(o.kernel_src, self.ksrc,
                      files=sorted(f for f in set(UPSTREAM_READS + UPSTREAM_SUBJECT)
                                   if os.path.isfile(os.path.join(o.kernel_src, f))))
            args.append('-Dkernel_src=' + self.ksrc)
        # The arguments the build was last configured with: configure
        # again only when they change.
        stamp = os.path.join(self.root, 'meson-args.json')
        try:
            with open(stamp) as f:
                configured = json.load(f)
        except (OSError, ValueError):
            configured = None
        if not os.path.exists(os.path.join(self.build, 'build.ninja')):
            r = subprocess.run(['meson', 'setup', self.build] + args, cwd=self.src,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
            if r.returncode:
                die('meson setup failed in %s:\n%s' % (self.build, r.stdout[-3000:]))
        elif args and args != configured:
            r = subprocess.run(['meson', 'configure', self.build] + args, cwd=self.src,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
            if r.returncode:
                die('meson configure failed:\n' + r.stdout[-3000:])
        with open(stamp, 'w') as f:
            json.dump(args, f)
        r = self.ninja([])
        if r.returncode:
            die('the unmutated tree does not build in %s:\n%s' % (
                self.build, r.stdout[-3000:]))

    def ninja(self, targets):
        return subprocess.run(['ninja', '-C', self.build, '-j', '1'] + targets,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)

    def libraries_of(self, sp):
        """The shared libraries (relative to the build) the object of sp is
        linked into, when that is the only way it reaches a program: then a
        mutant needs those rebuilt and nothing else (the programs load
        them; ninja would not relink a program anyway, the exported
        symbols being the same).  [] when a program links the object, or
        an archive that holds it, itself (-Ddefault_library=static), or
        when something else the build does not name as a library or a
        program uses it: then the tests' programs are built."""
        if not hasattr(self, '_libraries'):
            self._libraries = {}
            self._kinds = {}
            for tg in introspect(self, '--targets'):
                for f in tg['filename']:
                    self._kinds[os.path.relpath(f, self.build)] = tg['type']
        if sp in self._libraries:
            return self._libraries[sp]
        libs, seen, todo, archives = set(), set(), [self.object_of(sp)], []
        while todo:
            for out in ninja_outputs(self.build, todo.pop(0)):
                if out in seen or out == 'all':
                    continue
                seen.add(out)
                kind = self._kinds.get(out)
                if kind in ('shared library', 'shared module'):
                    libs.add(out)
                elif kind == 'static library':
                    todo.append(out)
                    archives.append(out)
                else:
                    libs = set()
                    todo = []
                    break
        self._libraries[sp] = sorted(libs)
        # The commands that remake them from the object, archives first
        # (relink()).
        self._relink = getattr(self, '_relink', {})
        self._relink[sp] = [ninja_command(self.build, n)
                            for n in archives + sorted(libs)] if libs else []
        return self._libraries[sp]

    def relink(self, sp):
        """Archive sp's object and link the shared libraries that hold it,
        with the build's own commands run directly: ninja would compile
        the object again (an object it did not write is out of date in
        its dependency log), at the build's -O2.  The programs load the
        libraries and are not relinked; a later ninja call compiles the
        object again from the source and relinks, which is what
        prepare() does."""
        for cmd in self._relink[sp]:
            r = subprocess.run(cmd, shell=True, cwd=self.build, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if r.returncode:
                return r
        return r

    def object_of(self, sp):
        """The object file (relative to the build) compiled from sp."""
        return self.compile_entry(sp)['output']

    def compile_entry(self, sp):
        """sp's compile_commands.json entry."""
        if not hasattr(self, '_entries'):
            with open(os.path.join(self.build, 'compile_commands.json')) as f:
                self._entries = {
                    os.path.realpath(os.path.join(e['directory'], e['file'])): e
                    for e in json.load(f)}
        return self._entries[os.path.realpath(sp)]

    def compile_fast(self, sp):
        """Compile sp's object with the build's own command, but at --opt
        (default -O0) and without debug information: vfio_iommu_type1.c
        compiles in a sixth of its -O2 time (docs/mutation.md, "How
        long").  Written where the build keeps the object; relink() then
        archives and links it.  lower() does the same to the unmutated
        file before the clean run, so the clean run and the mutants run the
        same code generation.  The CompletedProcess (non-zero: the mutant
        does not compile)."""
        self.touched = sp
        e = self.compile_entry(sp)
        argv = e.get('arguments') or shlex.split(e['command'])
        out, skip = [], False
        for a in argv:
            if skip:
                skip = False
                continue
            if a in ('-MQ', '-MF', '-MT'):
                skip = True
                continue
            if a in ('-MD', '-MMD') or a.startswith('-fdiagnostics-color'):
                continue
            if re.fullmatch(r'-O[0-3sgz]?|-g(gdb)?[0-3]?', a):
                continue
            out.append(a)
        out[1:1] = ['-O%s' % self.opts.opt, '-g0']
        return subprocess.run(out, cwd=e['directory'], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)

    def lower(self, sps):
        """The unmutated files' objects at --opt (compile_fast()), and the
        libraries or programs relinked: what the clean run measures."""
        if self.opts.opt is None:
            return
        for sp in sps:
            if not self.libraries_of(sp):
                continue    # built by ninja per mutant, as configured
            r = self.compile_fast(sp)
            if not r.returncode:
                r = self.relink(sp)
            if r.returncode:
                die('%s does not build at -O%s:\n%s' % (sp, self.opts.opt,
                                                         r.stdout[-3000:]))
            # Kept: restore() puts it back after each mutant.
            obj = os.path.join(self.build, self.object_of(sp))
            shutil.copyfile(obj, obj + '.unmutated')
            self.touched = None

    def scratch_path(self, f):
        """Where the scratch copy holds a file of the user's tree."""
        o = self.opts
        if o.impl == 'upstream':
            return os.path.join(self.ksrc, os.path.relpath(f, o.kernel_src))
        return os.path.join(self.src, os.path.relpath(f, o.source))

    def apply(self, m, original):
        path = self.scratch_path(m.file)
        self.current = (path, original)
        with open(path, 'w', encoding='utf-8', errors='surrogateescape') as f:
            f.write(m.apply(original))

    def restore(self):
        if self.current:
            path, original = self.current
            with open(path, 'w', encoding='utf-8', errors='surrogateescape') as f:
                f.write(original)
            self.current = None
        sp, self.touched = getattr(self, 'touched', None), None
        if sp and os.path.exists(os.path.join(self.build, self.object_of(sp)) + '.unmutated'):
            # The unmutated object back (lower() kept it), and its
            # archives made again from it (a mutant of another file
            # links them next); the libraries are linked by that mutant.
            obj = os.path.join(self.build, self.object_of(sp))
            shutil.copyfile(obj + '.unmutated', obj)
            for cmd in self._relink[sp][:-len(self._libraries[sp])]:
                subprocess.run(cmd, shell=True, cwd=self.build, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)

    def kill_test(self):
        p = self.proc
        if p and p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass


def ninja_command(build, node):
    """The command of the build edge that makes node (`ninja -t commands
    -s`)."""
    r = subprocess.run(['ninja', '-C', build, '-t', 'commands', '-s', node],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    cmd = r.stdout.strip()
    if r.returncode or not cmd or '\n' in cmd:
        die('no single command makes %s in %s' % (node, build))
    return cmd


def ninja_outputs(build, node):
    """The build edges' outputs that take node as an input (`ninja -t
    query`)."""
    r = subprocess.run(['ninja', '-C', build, '-t', 'query', node],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    outs, section = [], None
    for line in r.stdout.splitlines():
        if line.startswith('    '):
            if section == 'outputs:':
                outs.append(line.strip())
        elif line.startswith('  '):
            section = line.strip()
    return outs


# ---------------------------------------------------------------- tests

class Test:
    def __init__(self, t, targets):
        self.name = t['name']
        self.cmd = t['cmd']
        self.env = t.get('env') or {}
        self.workdir = t.get('workdir')
        self.targets = targets
        self.clean = None
        # meson's priority: a test that reads what others wrote
        # (sweep_reach) has a negative one and runs after them.
        self.priority = t.get('priority', 0)


def introspect(worker, what):
    """`meson introspect WHAT` of the scratch build: the JSON meson wrote
    when it configured it (meson-info/intro-WHAT.json, which is what the
    command prints), read without starting meson (a quarter of a second
    each); the command when the file is not there."""
    try:
        with open(os.path.join(worker.build, 'meson-info',
                               'intro-%s.json' % what.lstrip('-'))) as f:
            return json.load(f)
    except (OSError, ValueError):
        pass
    r = subprocess.run(['meson', 'introspect', what, worker.build],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        die('meson introspect %s failed: %s' % (what, r.stderr))
    return json.loads(r.stdout)


def discover_tests(worker, scratch_files):
    """The tests of the scratch build that are behaviour checks and whose
    executables (or the programs they run) are built from one of the
    mutated files: {file: [Test]}."""
    targets = {t['id']: t for t in introspect(worker, '--targets')}
    tests = introspect(worker, '--tests')
    commands = {}

    def needs(target_out, src):
        if target_out not in commands:
            r = subprocess.run(['ninja', '-C', worker.build, '-t', 'commands', target_out],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            commands[target_out] = r.stdout
        rel = os.path.relpath(src, worker.build)
        text = commands[target_out]
        return (' ' + rel) in text or (' ' + src) in text

    out = {f: [] for f in scratch_files}
    for t in tests:
        suites = {s.split(':')[-1] for s in t['suite']}
        if suites & worker.opts.skip_suites:
            continue
        outs = []
        for d in t.get('depends', []):
            tg = targets.get(d)
            if tg:
                outs += [os.path.relpath(f, worker.build) for f in tg['filename']]
        test = None
        for f in scratch_files:
            if any(needs(o, f) for o in outs):
                test = test or Test(t, outs)
                out[f].append(test)
    return out


def run_test(worker, test, timeout):
    """0 pass, 1 fail, 2 timeout; seconds."""
    env = dict(os.environ)
    env.update(test.env)
    env.setdefault('MALLOC_PERTURB_', '93')
    # A cmocka test, and a fail-nth sweep (tests/sweep.h), aborts at its
    # first failure instead of running the rest: one kills the mutant.
    env['CMOCKA_TEST_ABORT'] = '1'
    env['DMASIM_SWEEP_ABORT'] = '1'
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(test.cmd, cwd=test.workdir or worker.build, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        return 1, 0.0
    worker.proc = p
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        worker.kill_test()
        p.wait()
        worker.proc = None
        return 2, time.monotonic() - t0
    worker.proc = None
    # Kill anything the test left behind in its session.
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass
    return (0 if rc in (0, 77) else 1), time.monotonic() - t0


# ---------------------------------------------------------------- coverage

# Files whose content no build and no test that runs on mutants reads:
# an edit of them keeps the cached coverage and clean run (the suites that
# read the docs, 'docs' and 'slow', never run on a mutant).  The tool's own
# files are left out too; CACHE_FORMAT changes when what is cached does.
CACHE_FORMAT = 2
NOT_IN_KEY = re.compile(r'(\.md$|^tools/mutation(\.py|-score\.sh|-equivalent\.txt)$)')


def tree_key(o, files):
    """A hash of everything the builds are made from (the tree's and the
    kernel tree's file contents) and of the files to mutate."""
    h = hashlib.sha1(b'%d' % CACHE_FORMAT)
    for root, names in ((o.source, [n for n in tree_files(o.source, set(o.skip_top))
                                    if not NOT_IN_KEY.search(n)]),
                        (o.kernel_src, sorted(set(UPSTREAM_READS + UPSTREAM_SUBJECT)))
                        if o.impl == 'upstream' else (None, [])):
        for rel in sorted(names):
            try:
                with open(os.path.join(root, rel), 'rb') as f:
                    h.update(rel.encode() + b'\0' + hashlib.sha1(f.read()).digest())
            except OSError:
                pass
    h.update(repr((o.impl, sorted(files), o.meson_args, sorted(o.skip_suites))).encode())
    if o.opt is not None:
        h.update(b'-O' + o.opt.encode())
    return h.hexdigest()[:16]


_upstream_coverage = None


def gcov_lines(build, gcda, src):
    """{line: count} of src from one .gcda (gcov's JSON, read by
    tools/upstream-coverage.py's gcov_json())."""
    global _upstream_coverage
    if _upstream_coverage is None:
        spec = importlib.util.spec_from_file_location(
            'upstream_coverage', os.path.join(TOP, 'tools', 'upstream-coverage.py'))
        _upstream_coverage = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_upstream_coverage)
    try:
        fdata = _upstream_coverage.gcov_json(build, gcda, src)
    except RuntimeError:
        return {}
    out = {}
    for ln in (fdata or {}).get('lines', []):
        out[ln['line_number']] = out.get(ln['line_number'], 0) + ln['count']
    return out


def coverage_map(o, files):
    """Which lines of each file each test runs: {file: {test: [lines]}} plus
    {file: [lines gcov knows]}, from a coverage build of the scratch tree
    (-Db_coverage=true, -O0), every test run alone.  A mutant then runs only
    under the tests that reach its lines.  Cached per tree content."""
    cw = Worker(o, 0, name='coverage',
                meson_args=['-Db_coverage=true', '-Doptimization=0'])
    key = tree_key(o, files)
    cache = os.path.join(cw.root, 'coverage-%s.json' % key)
    if os.path.exists(cache):
        with open(cache) as f:
            data = json.load(f)
        os.utime(cache)     # most recently used (keep_recent())
        return ({f: {t: set(v) for t, v in data['reach'][label_of(o, f)].items()}
                 for f in files},
                {f: set(data['lines'][label_of(o, f)]) for f in files})
    if not o.quiet:
        log('mutation: coverage build (which test reaches which line)')
    cw.prepare()
    with open(os.path.join(cw.build, 'compile_commands.json')) as f:
        cdb = json.load(f)
    gcda = {}
    for f in files:
        sp = os.path.realpath(cw.scratch_path(f))
        for e in cdb:
            if os.path.realpath(os.path.join(e['directory'], e['file'])) == sp:
                gcda[f] = (sp, os.path.join(e['directory'],
                                            os.path.splitext(e['output'])[0] + '.gcda'))
    tests = discover_tests(cw, [gcda[f][0] for f in files if f in gcda])
    uniq = {}
    for ts in tests.values():
        for t in ts:
            uniq[t.name] = t
    reach = {f: {} for f in files}
    known = {f: set() for f in files}
    for t in sorted(uniq.values(), key=lambda t: -t.priority):
        for sp, g in gcda.values():
            if os.path.exists(g):
                os.unlink(g)
        res, _ = run_test(cw, t, 600)
        if res:
            # Its lines would be missing (a test that aborts writes no
            # .gcda) and every mutant only it reaches would "survive".
            die('test %s fails in the coverage build (%s); fix that first' % (
                t.name, cw.build))
        for f in files:
            if f not in gcda:
                continue
            sp, g = gcda[f]
            if not os.path.exists(g):
                continue
            counts = gcov_lines(cw.build, g, sp)
            known[f].update(counts)
            ran = sorted(ln for ln, c in counts.items() if c > 0)
            if ran:
                reach[f][t.name] = ran
    data = {'reach': {label_of(o, f): {t: sorted(v) for t, v in reach[f].items()}
                      for f in files},
            'lines': {label_of(o, f): sorted(known[f]) for f in files}}
    with open(cache, 'w') as fh:
        json.dump(data, fh)
    keep_recent(cw.root, 'coverage-')
    return ({f: {t: set(v) for t, v in reach[f].items()} for f in files}, known)


# How many trees' coverage maps and clean runs a scratch folder keeps: a
# developer going back and forth between branches (or a run and a
# --retest on a later tree, as tests/mutation_check.py does) finds each
# tree's again instead of measuring it anew.  Each is a few KiB.
CACHE_KEEP = 4


def keep_recent(folder, prefix):
    """Remove all but the CACHE_KEEP most recently used PREFIX<key>.json
    of folder (a hit touches its file)."""
    found = []
    for name in os.listdir(folder):
        if name.startswith(prefix) and name.endswith('.json'):
            p = os.path.join(folder, name)
            try:
                found.append((os.stat(p).st_mtime_ns, p))
            except OSError:
                pass
    for _, p in sorted(found, reverse=True)[CACHE_KEEP:]:
        os.unlink(p)


def covering_tests(m, reach, known):
    """Names of the tests that run one of the mutant's lines; None when gcov
    has no line of it (a declaration, a static initialiser): then every test
    that reaches the file."""
    lines = set(range(m.line, m.line + m.orig.count('\n') + 1))
    if not lines & known:
        return None
    return {t for t, ran in reach.items() if ran & lines}


# ---------------------------------------------------------------- equivalents

def read_equivalents(path):
    eq = {}
    if not path or not os.path.exists(path):
        return eq
    with open(path, encoding='utf-8') as f:
        for no, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = line.split(None, 1)
            if len(parts) < 2 or not parts[1].strip():
                die('%s:%d: an equivalent needs an id and a reason' % (path, no))
            eq[parts[0]] = parts[1].strip()
    return eq


# ---------------------------------------------------------------- main

def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog='mutation-score.sh',
        description='Mutation score of the test suites on kernel files '
                    '(docs/mutation.md).')
    ap.add_argument('files', nargs='*', metavar='FILE',
                    help='files to mutate (default: the five files of core/, '
                         'or the three the kernel tree provides with --impl upstream)')
    ap.add_argument('--sample', type=int, metavar='N',
                    help='N mutants drawn from --seed, spread across the files '
                         'in proportion to their mutant counts')
    ap.add_argument('--seed', default='1', metavar='S')
    ap.add_argument('--impl', choices=['core', 'upstream'], default='core',
                    help="(with --retest: the run's)")
    ap.add_argument('--kernel-src', metavar='DIR',
                    help='kernel tree for --impl upstream (default: the 6.12 '
                         'files tools/ci-upstream.sh extracts)')
    ap.add_argument('--jobs', type=int, default=1, metavar='J',
                    help='mutants tested at once, each in its own scratch build (at most 2)')
    ap.add_argument('--workdir', metavar='DIR',
                    help='scratch folder (default: $TMPDIR/dmasim-mutation-<uid>/<impl>)')
    ap.add_argument('--source', metavar='DIR', default=TOP,
                    help='the tree to copy (default: this repository)')
    ap.add_argument('--meson-arg', action='append', default=[], dest='meson_args',
                    metavar='ARG', help='extra argument to meson setup (repeatable)')
    ap.add_argument('--equivalent', metavar='FILE',
                    default=os.path.join(TOP, 'tools', 'mutation-equivalent.txt'),
                    help='reviewed list of equivalent mutants')
    ap.add_argument('--timeout-factor', type=float, default=10.0,
                    help='a test times out after this many times its clean run (default 10)')
    ap.add_argument('--min-timeout', type=float, default=2.0,
                    help='but never before this many seconds (default 2)')
    ap.add_argument('--skip-suite', action='append', default=[], metavar='SUITE',
                    help='also leave out this suite (default left out: %s)' %
                    ', '.join(sorted(SKIP_SUITES)))
    ap.add_argument('--opt', default='0', metavar='LEVEL',
                    help="compile the mutated files' objects at -OLEVEL without "
                         "debug information, the rest of the build as configured "
                         "(default 0; 'build': as the build does)")
    ap.add_argument('--json', metavar='FILE', help='write every mutant and its outcome')
    ap.add_argument('--min', type=float, metavar='P',
                    help='exit 1 when the score is below P percent')
    ap.add_argument('--list', action='store_true',
                    help='list the mutants (id, line, operator, mutated line) and stop')
    ap.add_argument('--quiet', action='store_true', help='no progress lines')
    ap.add_argument('--only', action='append', default=[], metavar='ID',
                    help='test only this mutant (repeatable; ids as printed with '
                         'the survivors): does a new test kill it?')
    ap.add_argument('--rescore', metavar='JSON',
                    help='report the --json file of an earlier run again with the '
                         'equivalent list as it is now (runs nothing)')
    ap.add_argument('--retest', metavar='JSON',
                    help='refresh the --json file of an earlier run: test again, on '
                         'the tree and tests as they are now, only the mutants it '
                         'left survived or timed out (found by id), carry over its '
                         'other outcomes, report the whole (its files, its draw)')
    ap.add_argument('--carry-timeouts', action='store_true',
                    help="with --retest: carry the run's timeouts over as they were "
                         "(counted as killed) instead of testing them again: a "
                         "timeout costs its whole timeout again")
    o = ap.parse_args(argv)
    if o.carry_timeouts and not o.retest:
        ap.error('--carry-timeouts goes with --retest')
    if o.retest and (o.files or o.only or o.sample is not None or o.rescore or o.list):
        ap.error('--retest takes the files and mutants of its run: no FILE, '
                 '--only, --sample, --rescore or --list with it')
    o.jobs = max(1, min(o.jobs, 2))
    if o.opt == 'build':
        o.opt = None
    elif o.opt not in ('0', '1', '2', '3', 's', 'g'):
        ap.error("--opt takes 0, 1, 2, 3, s, g or 'build'")
    o.source = os.path.realpath(o.source)
    o.skip_suites = SKIP_SUITES | set(o.skip_suite)
    o.skip_top = ['fuzz/out']
    return o


def resolve_files(o):
    if o.impl == 'upstream':
        if not o.kernel_src:
            dest = os.path.join(o.source, 'build-upstream-src')
            r = subprocess.run([os.path.join(o.source, 'tools', 'ci-upstream.sh'),
                                '--extract-only'], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               env=dict(os.environ, DMASIM_UPSTREAM_BUILD='build-upstream'))
            if r.returncode:
                die('extracting the 6.12 files failed:\n' + r.stdout)
            o.kernel_src = dest
        o.kernel_src = os.path.realpath(o.kernel_src)
        base = o.kernel_src
        names = o.files or UPSTREAM_SUBJECT
    else:
        base = o.source
        names = o.files or DEFAULT_CORE_FILES
    files = []
    for n in names:
        p = n if os.path.isabs(n) else os.path.join(base, n)
        if not os.path.isfile(p) and o.impl == 'core' and not os.path.isabs(n):
            p = os.path.join(os.getcwd(), n)
        p = os.path.realpath(p)
        if not os.path.isfile(p):
            die('no file %s' % n)
        if not p.startswith(base + os.sep):
            die('%s is not inside %s' % (n, base))
        files.append(p)
    return files


def label_of(o, f):
    if o.impl == 'upstream':
        return 'linux:' + os.path.relpath(f, o.kernel_src)
    return os.path.relpath(f, o.source)


# What a cached mutant keeps (find_mutants()): all that applying,
# naming and reporting it need.
MUTANT_CACHED = ('label', 'func', 'op', 'start', 'end', 'orig', 'repl', 'line',
                 'id', 'mutated_line')


def mutants_key(o, files):
    """The key of the mutants of files: the tree's content (tree_key(),
    which also covers the meson arguments that make the compile flags) and
    this tool's own text (the finder's rules)."""
    with open(os.path.abspath(__file__), 'rb') as f:
        tool = hashlib.sha1(f.read()).hexdigest()
    return hashlib.sha1(('%s\0%s' % (tree_key(o, files), tool)).encode()).hexdigest()[:16]


def find_mutants(o, worker, files):
    """Mutants per file, parsed from the scratch copy with its build flags.
    Cached in the scratch folder by mutants_key(): a run on a tree whose
    mutants an earlier run found (a second run, --only, a --retest, the
    run after a --list) reads them back without libclang, which costs more
    than finding the mutants of a small file (about 0.1 s to import and
    load)."""
    cache = os.path.join(o.workdir, 'mutants-%s.json' % mutants_key(o, files))
    try:
        with open(cache) as fh:
            data = json.load(fh)
        result = {}
        for f in files:
            ms = []
            for d in data[label_of(o, f)]:
                m = Mutant(f, d['label'], d['func'], d['op'], d['start'], d['end'],
                           d['orig'], d['repl'], d['line'])
                m.id, m.mutated_line = d['id'], d['mutated_line']
                ms.append(m)
            result[f] = ms
        os.utime(cache)     # most recently used (keep_recent())
        return result
    except (OSError, ValueError, KeyError):
        pass
    with open(os.path.join(worker.build, 'compile_commands.json')) as f:
        cdb = json.load(f)
    result = {}
    for f in files:
        sp = os.path.realpath(worker.scratch_path(f))
        entry = None
        for e in cdb:
            p = os.path.realpath(os.path.join(e['directory'], e['file']))
            if p == sp:
                entry = e
                break
        if entry is None:
            die('%s is not compiled by the build (not in compile_commands.json)' % f)
        fd = Finder(sp, label_of(o, f), compile_args(entry), entry['directory'])
        if fd.errors:
            die('libclang cannot parse %s:\n  %s' % (
                f, '\n  '.join(str(d) for d in fd.errors[:10])))
        ms = fd.run()
        for m in ms:
            m.file = f
        result[f] = ms
    with open(cache + '.tmp', 'w') as fh:
        json.dump({label_of(o, f): [{k: getattr(m, k) for k in MUTANT_CACHED}
                                    for m in ms] for f, ms in result.items()}, fh)
    os.replace(cache + '.tmp', cache)
    keep_recent(o.workdir, 'mutants-')
    return result


def stratified(o, per_file):
    """The order mutants are tried in, and how many of each file count."""
    total = sum(len(v) for v in per_file.values())
    quota = {}
    if o.sample is None or o.sample >= total:
        for f, v in per_file.items():
            quota[f] = len(v)
    else:
        n = max(0, o.sample)
        raw = {f: n * len(v) / total for f, v in per_file.items()}
        quota = {f: int(x) for f, x in raw.items()}
        rest = n - sum(quota.values())
        for f in sorted(raw, key=lambda f: (-(raw[f] - quota[f]), f))[:rest]:
            quota[f] += 1
    order = {}
    for f, v in per_file.items():
        ms = sorted(v, key=lambda m: m.id)
        rnd = random.Random('%s:%s' % (o.seed, label_of(o, f)))
        rnd.shuffle(ms)
        order[f] = ms
    return order, quota


class History:
    """What the runs in one scratch folder have learnt, kept across runs
    (<workdir>/history.json, rewritten after every mutant): which test
    killed which mutant (and where the mutant is), and per test how many
    mutants it ran on and how many of them it killed."""

    def __init__(self, path):
        self.path = path
        self.killer = {}    # mutant id -> [test, file label, line]
        self.stats = {}     # test -> [runs, kills]
        try:
            with open(path) as f:
                data = json.load(f)
            self.killer = dict(data.get('killer', {}))
            self.stats = dict(data.get('stats', {}))
        except (OSError, ValueError):
            pass

    def ran(self, test, m, killed):
        runs, kills = self.stats.get(test, [0, 0])
        self.stats[test] = [runs + 1, kills + int(killed)]
        if killed:
            self.killer[m.id] = [test, m.label, m.line]

    def save(self):
        tmp = self.path + '.tmp'
        with open(tmp, 'w') as f:
            json.dump({'killer': self.killer, 'stats': self.stats}, f)
        os.replace(tmp, self.path)


class Run:
    """Mutants tested by the workers, each in its own scratch build; what a
    test killed is summed over the workers (by test name) and kept in the
    History."""

    def __init__(self, o, workers, per_worker, texts, equivalents):
        self.o = o
        self.workers = workers
        self.per_worker = per_worker    # per worker: {scratch file: [Test]}
        self.texts = texts
        self.eq = equivalents
        self.lock = threading.Lock()
        self.history = History(os.path.join(o.workdir, 'history.json'))
        self.done = 0
        self.stop = False

    def plan(self, m, tests):
        """The order a mutant's tests run in (the first failure ends it):
        1. the test that killed this very mutant in an earlier run;
        2. the one that killed the nearest mutant of the file (by line,
           in this run or an earlier one) among the tests that reach it;
        3. the rest, cheapest per kill first: clean seconds divided by
           the share of the mutants it ran on that it killed so far,
           (kills + 1) / (runs + 2);
        a test meson runs after the others (negative priority:
        sweep_reach, which reads what the sweeps wrote) still runs last."""
        names = {t.name for t in tests}
        with self.lock:
            h = self.history
            first = []
            k = h.killer.get(m.id)
            if k and k[0] in names:
                first.append(k[0])
            near = min(((abs(line - m.line), line, test)
                        for mid, (test, label, line) in h.killer.items()
                        if label == m.label and mid != m.id and test in names),
                       default=None)
            if near and near[2] not in first:
                first.append(near[2])

            def cost(t):
                runs, kills = h.stats.get(t.name, [0, 0])
                return t.clean * (runs + 2) / (kills + 1)
            return sorted(tests, key=lambda t: (
                t.priority < 0,
                first.index(t.name) if t.name in first else len(first),
                cost(t), t.name))

    def evaluate(self, w, m):
        sp = w.scratch_path(m.file)
        tests = self.plan(m, [t for t in self.per_worker[w.index][sp]
                              if m.cover is None or t.name in m.cover])
        t0 = time.monotonic()
        w.apply(m, self.texts[m.file])
        try:
            m.status = 'survived'
            libs = w.libraries_of(sp)
            if libs or not tests:
                if libs and self.o.opt is not None:
                    # The object at --opt, then its archive and libraries
                    # made again without ninja (Worker.relink()).
                    r = w.compile_fast(sp)
                    if not r.returncode and tests:
                        r = w.relink(sp)
                else:
                    # Only the libraries that hold the file (the programs
                    # load them), or the object alone when no test
                    # reaches it (a mutant no test runs survives if it
                    # compiles).
                    r = w.ninja(libs or [w.object_of(sp)])
                m.build_seconds = time.monotonic() - t0
                if r.returncode:
                    self.invalid(m, r)
                    return
                if not tests:
                    m.reason = 'no test reaches it'
                    return
            built = set()
            for n, t in enumerate(tests):
                if self.stop:
                    m.status = None
                    return
                if not libs:
                    # Programs that hold the file: the first test's alone
                    # (most mutants die there), then all the others' in
                    # one ninja call.
                    group = tests[n:] if n == 1 else [t]
                    need = [x for g in group for x in g.targets if x not in built]
                    if need:
                        b0 = time.monotonic()
                        r = w.ninja(need)
                        m.build_seconds += time.monotonic() - b0
                        if r.returncode:
                            self.invalid(m, r)
                            return
                        built.update(need)
                timeout = max(t.clean * self.o.timeout_factor, self.o.min_timeout)
                res, _ = run_test(w, t, timeout)
                m.tests_run += 1
                with self.lock:
                    self.history.ran(t.name, m, res == 1)
                if res:
                    m.status = 'killed' if res == 1 else 'timeout'
                    m.test = t.name
                    return
        finally:
            w.restore()
            m.seconds = time.monotonic() - t0
            if m.status is not None:
                with self.lock:
                    self.history.save()

    @staticmethod
    def invalid(m, r):
        m.status = 'invalid'
        m.reason = next((l for l in r.stdout.splitlines() if 'error' in l),
                        'build failed')[:300]

    def progress(self, m):
        if self.o.quiet:
            return
        with self.lock:
            self.done += 1
            log('[%d] %-8s %s:%d %s %s%s (%.1f s)' % (
                self.done, m.status, m.label, m.line, m.op, m.describe(),
                (' by %s' % m.test) if m.test else '', m.seconds))

    def run(self, order, quota):
        """Test each file's mutants in their drawn order until the file's
        quota of counted outcomes is met: an invalid mutant (it does not
        compile) is replaced by the next one drawn, a listed equivalent is
        reported and not run."""
        results = self.results = {f: [] for f in order}
        pending = [[f, list(order[f]), quota[f]] for f in order]
        plock = threading.Lock()

        def next_mutant():
            with plock:
                for entry in pending:
                    f, ms, left = entry
                    while ms and entry[2] > 0:
                        m = ms.pop(0)
                        if m.id in self.eq:
                            m.status = 'equivalent'
                            m.reason = self.eq[m.id]
                            results[f].append(m)
                            continue
                        entry[2] -= 1
                        return entry, m
                return None, None

        def work(w):
            while not self.stop:
                entry, m = next_mutant()
                if m is None:
                    return
                self.evaluate(w, m)
                if m.status is None:
                    return
                with plock:
                    results[entry[0]].append(m)
                    if m.status == 'invalid':
                        entry[2] += 1
                self.progress(m)

        threads = [threading.Thread(target=work, args=(w,), daemon=True)
                   for w in self.workers]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(0.2)
        finally:
            self.stop = True
            for w in self.workers:
                w.kill_test()
            for t in threads:
                t.join()
            for w in self.workers:
                w.restore()
        return results


def report(o, groups, elapsed):
    """The per-file summaries, the survivors and the score line; groups:
    [(label, mutants found, [tested Mutant])]."""
    lines = []
    tot_k = tot_n = 0
    summary = {}
    for label, found, tested in groups:
        ms = sorted(tested, key=lambda m: (m.line, m.start, m.op, m.repl))
        c = {s: sum(1 for m in ms if m.status == s)
             for s in ('killed', 'survived', 'timeout', 'equivalent', 'invalid')}
        n = c['killed'] + c['survived'] + c['timeout']
        k = c['killed'] + c['timeout']
        tot_k += k
        tot_n += n
        pct = 100.0 * k / n if n else 100.0
        lines.append('%s: %d killed, %d survived, %d timed out, %d equivalent, '
                     '%d invalid (of %d mutants found); score %d of %d (%.1f%%)' % (
                         label, c['killed'], c['survived'], c['timeout'],
                         c['equivalent'], c['invalid'], found, k, n, pct))
        for m in ms:
            if m.status == 'survived':
                lines.append('  survived %s:%d %s %s: %s  [%s]%s' % (
                    label, m.line, m.op, m.describe(), m.mutated_line, m.id,
                    ' (%s)' % m.reason if m.reason else ''))
        summary[label] = dict(c, score=round(pct, 1), found=found)
    pct = 100.0 * tot_k / tot_n if tot_n else 100.0
    lines.append('(timeouts count as killed; equivalent and invalid mutants are '
                 'not counted; %.0f s)' % elapsed)
    lines.append('mutation score: %d of %d killed (%.1f%%)' % (tot_k, tot_n, pct))
    if o.json:
        with open(o.json, 'w') as fh:
            json.dump({'files': summary, 'killed': tot_k, 'counted': tot_n,
                       'score': round(pct, 1), 'seconds': round(elapsed, 1),
                       'seed': o.seed, 'sample': o.sample, 'impl': o.impl,
                       'retest': getattr(o, 'retest_info', None),
                       'mutants': [m.record() for _, _, ms in groups for m in
                                   sorted(ms, key=lambda m: (m.line, m.start))]},
                      fh, indent=1)
    return lines, pct


def mutant_of_record(r):
    """A Mutant as a --json report recorded it (no offsets: not appliable)."""
    m = Mutant(r['file'], r['file'], r['function'], r['operator'], 0, 0,
               r['original'], r['replacement'], r['line'])
    m.id, m.status, m.test = r['id'], r['status'], r['test']
    m.seconds, m.reason, m.mutated_line = r['seconds'], r['reason'], r['mutated_line']
    m.build_seconds, m.tests_run = r.get('build_seconds', 0.0), r.get('tests_run', 0)
    return m


def rescore(o):
    """Report a --json file of an earlier run again, with the equivalent
    list as it is now (a mutant listed since is equivalent; one no longer
    listed keeps the outcome it had, or is 'survived' if it was not run)."""
    with open(o.rescore) as f:
        data = json.load(f)
    eq = read_equivalents(o.equivalent)
    groups = []
    for label, summ in data['files'].items():
        ms = []
        for r in data['mutants']:
            if r['file'] != label:
                continue
            m = mutant_of_record(r)
            if m.id in eq:
                m.status, m.reason = 'equivalent', eq[m.id]
            elif m.status == 'equivalent':
                m.status, m.reason = 'survived', None
            ms.append(m)
        groups.append((label, summ['found'], ms))
    o.seed, o.sample, o.impl = data['seed'], data['sample'], data['impl']
    return groups, data.get('seconds', 0.0)


RETEST_AGAIN = ('survived', 'timeout')
NOT_FOUND = 'not found in the tree now, its line changed since the run: counted as a survivor'


def load_retest(o):
    """Read the run --retest refreshes; its files and implementation
    become this run's."""
    try:
        with open(o.retest) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        die('--retest: cannot read %s: %s' % (o.retest, e))
    o.impl = data['impl']
    o.files = [l[len('linux:'):] if l.startswith('linux:') else l for l in data['files']]
    return data


def retest_split(o, prior, per_file, eq):
    """Which mutants of the tree to test again, and what the earlier run
    settled.  A mutant is matched by its id (which has no line number in
    it: a line that only moved keeps its id).  Returns (per file: the
    mutants to test, per file: the outcomes carried over or not found,
    the header lines).  Nothing of the run is dropped: a survivor or
    timeout whose id the tree no longer has (its line was edited) is
    reported as not found and counted as a survivor."""
    by_label = {label_of(o, f): f for f in per_file}
    current = {m.id: m for v in per_file.values() for m in v}
    again = {f: [] for f in per_file}
    carried = {f: [] for f in per_file}
    seen = set()
    n = {'again': 0, 'carried': 0, 'missing': 0, 'gone': 0, 'eq': 0}
    for r in prior['mutants']:
        f = by_label.get(r['file'])
        if f is None:
            die('--retest: %s is not a file of this run' % r['file'])
        seen.add(r['id'])
        cur = current.get(r['id'])
        if r['id'] in eq:
            m = mutant_of_record(r)
            m.status, m.reason = 'equivalent', eq[r['id']]
            n['eq'] += 1
        elif (r['status'] in RETEST_AGAIN and not
              (o.carry_timeouts and r['status'] == 'timeout')) or r['status'] == 'equivalent':
            if cur is not None:
                again[f].append(cur)
                n['again'] += 1
                continue
            m = mutant_of_record(r)
            m.status, m.reason = 'survived', NOT_FOUND
            n['missing'] += 1
        else:
            m = mutant_of_record(r)
            n['carried'] += 1
            n['gone'] += cur is None
        if cur is not None:
            m.line, m.mutated_line = cur.line, cur.mutated_line
        carried[f].append(m)
    new = sorted((m for m in current.values() if m.id not in seen),
                 key=lambda m: (m.label, m.line, m.start))
    head = ['retest of %s (%d mutants, score %s%%, %.0f s): %d tested again (the run '
            'left them survived%s, or listed equivalent then and not now), '
            '%d outcomes carried over (killed, invalid%s), %d equivalent now' % (
                o.retest, len(prior['mutants']), prior.get('score'),
                prior.get('seconds', 0.0), n['again'],
                '' if o.carry_timeouts else ' or timed out', n['carried'],
                ', timed out' if o.carry_timeouts else '', n['eq'])]
    if n['missing']:
        head.append('  %d survivors or timeouts of the run are not in the tree now '
                    '(their line changed): counted as survivors, listed below' % n['missing'])
    if n['gone']:
        head.append('  %d killed or invalid mutants of the run are not in the tree '
                    'now (their line changed): carried over as they were' % n['gone'])
    if new:
        head.append('  %d mutants of the tree now are not in the run (new or changed '
                    'lines), not tested (--only ID tests one):' % len(new))
        head.extend('    new %s:%d %s %s: %s  [%s]' % (m.label, m.line, m.op, m.describe(),
                                                      m.mutated_line, m.id) for m in new)
    o.retest_info = {'run': os.path.abspath(o.retest), 'tested_again': n['again'],
                     'carried_over': n['carried'], 'not_found': n['missing'],
                     'equivalent_now': n['eq'], 'new_not_tested': [m.id for m in new]}
    return again, carried, head


def untested(prior, todo, done):
    """An interrupted --retest: the mutants it did not get to keep the
    outcome the run gave them."""
    if not prior:
        return []
    tested = {m.id for m in done if m.status}
    old = {r['id']: r for r in prior['mutants']}
    out = []
    for m in todo:
        if m.id not in tested:
            r = old[m.id]
            m.status = 'survived' if r['status'] == 'equivalent' else r['status']
            m.reason = 'not tested again (interrupted)'
            m.test = r['test']
            out.append(m)
    return out


def main(argv):
    o = parse_args(argv)
    try:
        os.nice(10)
    except OSError:
        pass
    # Tests abort at their first failure (run_test): no core files.
    resource.setrlimit(resource.RLIMIT_CORE,
                       (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    if o.rescore:
        groups, elapsed = rescore(o)
        o.json = o.json if o.json != o.rescore else None
        lines, pct = report(o, groups, elapsed)
        print('\n'.join(lines))
        return 1 if o.min is not None and pct < o.min else 0
    prior = load_retest(o) if o.retest else None
    carried, head = {}, []
    files = resolve_files(o)
    if not o.workdir:
        tag = hashlib.sha1(o.source.encode()).hexdigest()[:8]
        o.workdir = os.path.join(tempfile.gettempdir(),
                                 'dmasim-mutation-%d' % os.getuid(), tag + '-' + o.impl)
    o.workdir = os.path.realpath(o.workdir)
    inside = os.path.relpath(o.workdir, o.source)
    if not inside.startswith('..') and not inside.startswith('build'):
        # Copying the tree would copy the scratch folder into itself.
        die('--workdir must be outside the tree (or in one of its build* folders)')
    equivalents = read_equivalents(o.equivalent)

    t_start = time.monotonic()
    workers = [Worker(o, i) for i in range(o.jobs)]
    run = None

    def on_signal(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_signal)

    try:
        if not o.quiet:
            log('mutation: preparing %d scratch build(s) in %s' % (len(workers), o.workdir))
        for w in workers:
            w.prepare()
        for w in workers:
            w.lower([w.scratch_path(f) for f in files])
        per_file = find_mutants(o, workers[0], files)
        per_file_total = {f: len(v) for f, v in per_file.items()}
        if o.only:
            unknown = set(o.only) - {m.id for v in per_file.values() for m in v}
            if unknown:
                die('no such mutant: %s' % ', '.join(sorted(unknown)))
            per_file = {f: [m for m in v if m.id in o.only] for f, v in per_file.items()}
        if prior:
            per_file, carried, head = retest_split(o, prior, per_file, equivalents)
        if o.list:
            for f in files:
                for m in per_file[f]:
                    print('%s\t%s:%d\t%s\t%s\t%s' % (m.id, m.label, m.line, m.op,
                                                    m.describe(), m.mutated_line))
            return 0
        texts = {}
        for f in files:
            with open(f, encoding='utf-8', errors='surrogateescape') as fh:
                texts[f] = fh.read()
        # The scratch copies equal the user's files (prepare() synced them).
        scratch = [workers[0].scratch_path(f) for f in files]
        tests0 = discover_tests(workers[0], scratch)
        for f, sp in zip(files, scratch):
            if not tests0[sp]:
                die('no test of the build is built from %s' % label_of(o, f))
        # Clean run: every selected test passes, and how long it takes.
        uniq = {}
        for sp in scratch:
            for t in tests0[sp]:
                uniq.setdefault(t.name, t)
        # (skipped when this tree's content passed it before: its times
        # are kept beside the coverage data, under the same key)
        clean_cache = os.path.join(o.workdir, 'clean-%s.json' % tree_key(o, files))
        try:
            with open(clean_cache) as f:
                clean = json.load(f)
            os.utime(clean_cache)   # most recently used (keep_recent())
        except (OSError, ValueError):
            clean = {}
        if set(uniq) - set(clean):
            if not o.quiet:
                log('mutation: clean run of %d tests' % len(uniq))
            clean = {}
            for t in sorted(uniq.values(), key=lambda t: -t.priority):
                res, secs = run_test(workers[0], t, 600)
                if res:
                    die('test %s fails on the unmutated tree; fix that first' % t.name)
                clean[t.name] = secs
            with open(clean_cache, 'w') as f:
                json.dump(clean, f)
            keep_recent(o.workdir, 'clean-')
        elif not o.quiet:
            log('mutation: clean run of %d tests: passed before on this tree' % len(uniq))
        for t in uniq.values():
            t.clean = clean[t.name]
        # One Test object per name, shared by the workers (kill counts);
        # the commands are per worker (absolute paths into its build).
        per_worker = []
        for w in workers:
            if w is workers[0]:
                per_worker.append(tests0)
                continue
            tw = discover_tests(w, [w.scratch_path(f) for f in files])
            for ts in tw.values():
                for t in ts:
                    t.clean = uniq[t.name].clean
            per_worker.append(tw)
        reach, known = coverage_map(o, files)
        for f in files:
            for m in per_file[f]:
                m.cover = covering_tests(m, reach[f], known[f])
        order, quota = stratified(o, per_file)
        if not o.quiet:
            log('mutation: %d mutants found, %d to test' % (
                sum(per_file_total.values()), sum(quota.values())))
        run = Run(o, workers, per_worker, texts, equivalents)
        results = run.run(order, quota)
    except KeyboardInterrupt:
        for w in workers:
            w.kill_test()
            w.restore()
        log('mutation: interrupted; the scratch copies are restored')
        done = getattr(run, 'results', None)
        if done and any(done.values()):
            # What was tested so far, reported as a finished run would
            # be (the mutant in flight is left out): a long run stopped
            # on purpose is the first N of its draw.
            lines, _ = report(o, [(label_of(o, f), per_file_total[f],
                                   [m for m in done[f] if m.status] +
                                   carried.get(f, []) + untested(prior, per_file[f], done[f]))
                                  for f in files], time.monotonic() - t_start)
            print('(interrupted: %d mutants tested)' % sum(
                1 for v in done.values() for m in v if m.status))
            print('\n'.join(head + lines))
        return 130
    finally:
        for w in workers:
            w.restore()
    elapsed = time.monotonic() - t_start
    if prior:
        o.seed, o.sample = prior['seed'], prior['sample']
    lines, pct = report(o, [(label_of(o, f), per_file_total[f],
                             results[f] + carried.get(f, []))
                            for f in files], elapsed)
    print('\n'.join(head + lines))
    if o.min is not None and pct < o.min:
        log('mutation: score %.1f%% is below --min %.1f%%' % (pct, o.min))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
