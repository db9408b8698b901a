#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Decide what a kernel tree's files do by reading their code.

Upstream mode (-Dkernel_src=DIR) runs the same suites against a tree's own
vfio_iommu_type1.c, system_heap.c and dma-heap.c.  Where trees legitimately
differ (a fix, a backport, a later series), a suite asks a predicate of
include/dmasim/impl.h.  A version number does not say what a tree does:
stable trees carry backports (Debian's 6.12.117 installs the heap fd after
the copy-out, as mainline does; the trees between lack it).  So each
predicate is settled here by probing the tree's code: a function, a call or
a construct present, the order of two calls in one function.  The same
goes for a shim declaration that must match the tree's own code
(HEAP_ALLOCATE_ULONG_FLAGS: the type of dma_heap_ops.allocate, which the
tree's heap defines a function for; <linux/dma-heap.h>).

Usage: probe-tree.py KERNEL_SRC [--meson | --extracted] [--core WHY]
Prints one line per predicate:
    NAME VALUE  reason
VALUE is 1 or 0, or '?' when the probe could not decide (a function it
reads is missing): impl.h then falls back to the tree's version, as it
documents for each predicate.  With --meson, the lines are
"NAME=VALUE|reason" for upstream/meson.build.  --extracted prints what
upstream mode takes function by function from the tree's mm/memory.c and
drivers/iommu/iommu.c, one line per core library it replaces:
    LIBRARY|PROBE|PATH|FUNCTION,...
(taken when PROBE decides 1; core's LIBRARY is linked otherwise).
--core WHY: upstream mode takes nothing from them (no libclang, or
-Dkernel_extract=false): those probes decide 0 with WHY, and the ones that
depend on which copy is linked decide core's behaviour.

The probes read the files as text with comments and string contents
removed; a function's body is found by its name at the start of a
definition and brace matching.  tests/probe_tree_check.py checks each
probe on made-up trees, both ways.
"""
import os
import re
import sys

TYPE1 = 'drivers/vfio/vfio_iommu_type1.c'
SYSTEM_HEAP = 'drivers/dma-buf/heaps/system_heap.c'
DMA_HEAP = 'drivers/dma-buf/dma-heap.c'
MEMORY = 'mm/memory.c'
IOMMU = 'drivers/iommu/iommu.c'
# What upstream mode takes out of the tree's mm/memory.c and
# drivers/iommu/iommu.c (tools/extract-functions.py) when the probe named
# decides 1, instead of core's file of the same functions (the core/meson.build
# core_extractable library named); --extracted prints it for
# upstream/meson.build.
FOLLOW_PFNMAP_FUNCTIONS = ('follow_pfnmap_start', 'follow_pfnmap_end')
IOMMU_MAP_FUNCTIONS = ('iommu_map', 'iommu_unmap', 'iommu_unmap_fast',
                       'iommu_map_sg', 'iommu_iova_to_phys')
EXTRACTED = [
    ('memory', 'TREE_FOLLOW_PFNMAP', MEMORY, FOLLOW_PFNMAP_FUNCTIONS),
    ('iommu_map', 'TREE_IOMMU_MAP', IOMMU, IOMMU_MAP_FUNCTIONS),
]


# A comment (to its end, or the file's), or a string or char literal (a
# backslash escapes the next character, a newline included; unterminated:
# to the end of the file).
COMMENT_OR_LITERAL = re.compile(
    r'/\*.*?(?:\*/|\Z)|//[^\n]*|(["\'])(?:\\(?:.|\Z)|(?!\1).)*\1?', re.S)


def strip_comment_or_literal(m):
    s = m.group(0)
    if s.startswith('/*'):
        return '\n' * s.count('\n')
    if s.startswith('//'):
        return ''
    return m.group(1) * 2


def strip_comments(text):
    """Comments out, string and char literals emptied; newlines kept
    (those of a block comment; a literal's go with it).  One regular
    expression: a twelfth of the time of a loop over the characters."""
    return COMMENT_OR_LITERAL.sub(strip_comment_or_literal, text)


class Tree:
    def __init__(self, root, core=None):
        self.root = root
        self.cache = {}
        # Why upstream mode links core's copies of what it would take from
        # mm/memory.c and iommu.c (--core), or None.
        self.core = core

    def text(self, path):
        if path not in self.cache:
            try:
                with open(os.path.join(self.root, path), errors='replace') as f:
                    self.cache[path] = strip_comments(f.read())
            except OSError:
                self.cache[path] = None
        return self.cache[path]

    def function(self, path, name):
        """The body of function NAME defined in PATH, or None."""
        text = self.text(path)
        if text is None:
            return None
        # A definition: the name, its parameter list, then '{' (not ';').
        for m in re.finditer(r'\b%s\s*\(' % re.escape(name), text):
            depth, i = 0, m.end() - 1
            while i < len(text):
                if text[i] == '(':
                    depth += 1
                elif text[i] == ')':
                    depth -= 1
                    if depth == 0:
                        break
                i += 1
            rest = text[i + 1:]
            head = re.match(r'\s*(?:__[a-z_]+\s*(?:\([^)]*\))?\s*)*\{', rest)
            if not head:
                continue
            start = i + 1 + head.end() - 1
            depth, j = 0, start
            while j < len(text):
                if text[j] == '{':
                    depth += 1
                elif text[j] == '}':
                    depth -= 1
                    if depth == 0:
                        return text[start:j + 1]
                j += 1
        return None


def undecided(why):
    return None, why


def probe_pfnmap_stride(t):
    body = t.function(TYPE1, 'vaddr_get_pfns')
    if body is None:
        return undecided('vaddr_get_pfns() not found in ' + TYPE1)
    if 'addr_mask' in body:
        return 1, 'vaddr_get_pfns() strides by follow_pfnmap_args.addr_mask'
    return 0, 'vaddr_get_pfns() returns one pfn per lookup (no addr_mask)'


def probe_gup_zero_is_efault(t):
    body = t.function(TYPE1, 'vaddr_get_pfns')
    if body is None:
        return undecided('vaddr_get_pfns() not found in ' + TYPE1)
    if re.search(r'(?:!\s*ret|ret\s*==\s*0)\s*\)\s*\{?\s*ret\s*=\s*-EFAULT', body):
        return 1, 'vaddr_get_pfns() turns a 0 from pin_user_pages_remote() into -EFAULT'
    return 0, 'vaddr_get_pfns() passes a 0 from pin_user_pages_remote() on'


def probe_iova_end_overflow(t):
    body = t.function(TYPE1, 'vfio_dma_do_map')
    if body is None:
        return undecided('vfio_dma_do_map() not found in ' + TYPE1)
    if 'EOVERFLOW' in body:
        return 1, 'vfio_dma_do_map() reports a wrapping range with -EOVERFLOW'
    return 0, 'vfio_dma_do_map() has no -EOVERFLOW (the IOVA-end fixes are absent)'


def probe_unmap_reaches_iova_end(t):
    body = t.function(TYPE1, 'vfio_dma_do_unmap')
    if body is None:
        return undecided('vfio_dma_do_unmap() not found in ' + TYPE1)
    # The walk over the DMAs in range stops at the range's end: computed as
    # iova + size, it is 0 for a range whose last byte is the last IOVA.
    if re.search(r'dma->iova\s*>=?\s*iova\s*\+\s*size\b(?!\s*-)', body):
        return 0, ('vfio_dma_do_unmap() stops its walk at iova + size, which '
                   'wraps to 0 for a range ending at the last IOVA')
    if re.search(r'dma->iova\s*>\s*(?:iova_end\b|iova\s*\+\s*size\s*-\s*1)', body):
        return 1, 'vfio_dma_do_unmap() stops its walk past the last byte of the range'
    return undecided('vfio_dma_do_unmap(): no walk ending at iova + size or past its last byte')


def probe_get_info_caps_leak(t):
    body = t.function(TYPE1, 'vfio_iommu_type1_get_info')
    if body is None:
        return undecided('vfio_iommu_type1_get_info() not found in ' + TYPE1)
    at = body.find('vfio_iommu_iova_build_caps(')
    if at < 0:
        return undecided('get_info() does not call vfio_iommu_iova_build_caps()')
    after = body[at:]
    ret = re.search(r'if\s*\(\s*ret\s*\)\s*\{?\s*([^;]*;)', after)
    if not ret:
        return undecided('no error check after vfio_iommu_iova_build_caps()')
    if 'kfree' in ret.group(1) or re.search(r'goto\s+\w+', ret.group(1)):
        return 0, 'get_info() frees the capability chain when the IOVA caps fail'
    return 1, 'get_info() returns the IOVA caps error without freeing the chain'


def probe_dirty_bitmap_overrun(t):
    fill = t.function(TYPE1, 'vfio_iommu_populate_bitmap_full')
    start = t.function(TYPE1, 'vfio_iommu_type1_dirty_pages')
    text = t.text(TYPE1)
    if fill is None or start is None:
        return undecided('populate_bitmap_full() or dirty_pages() not found')
    if 'pgsize_bitmap' not in fill:
        return 0, 'populate_bitmap_full() does not size by the current page size'
    # The bitmaps are (re)allocated by vfio_dma_bitmap_alloc_all(): a call
    # outside the DIRTY_PAGES START handler reallocates them elsewhere (on
    # a page-size change).
    alloc = r'\bvfio_dma_bitmap_alloc_all\s*\('
    calls = len(re.findall(alloc, text)) - 1	# less the definition
    if calls > len(re.findall(alloc, start)):
        return 0, 'the dirty bitmaps are reallocated outside DIRTY_PAGES START'
    return 1, ('the dirty bitmaps keep the page size of DIRTY_PAGES START '
               'while detach_group() fills them in the current one')


def probe_nesting_extension(t):
    body = t.function(TYPE1, 'vfio_iommu_type1_check_extension')
    if body is None:
        return undecided('vfio_iommu_type1_check_extension() not found')
    if re.search(r'\bVFIO_TYPE1_NESTING_IOMMU\b', body):
        return 1, 'check_extension() reports VFIO_TYPE1_NESTING_IOMMU'
    return 0, 'check_extension() does not offer the nesting type'


def probe_open_takes_nesting(t):
    body = t.function(TYPE1, 'vfio_iommu_type1_open')
    if body is None:
        return undecided('vfio_iommu_type1_open() not found')
    if 'NESTING' in body:
        return 1, 'open() takes the nesting type (6) as a v2 container'
    return 0, 'open() refuses the nesting type'


def probe_heap_fd_after_copy_out(t):
    text = t.text(DMA_HEAP)
    if text is None:
        return undecided(DMA_HEAP + ' not found')
    # 6.12.117 installs with fd_install(), 6.1.192 with dma_buf_fd_install()
    # (a stable-only helper): either, after the copy-out, is the fix.
    copy = text.find('copy_to_user(')
    install = re.search(r'\b(?:dma_buf_)?fd_install\s*\(', text)
    if install and copy >= 0 and install.start() > copy:
        return 1, ('dma-heap.c installs the fd with %s) after the copy-out' %
                   install.group(0).replace(' ', ''))
    if re.search(r'\bdma_buf_fd\s*\(', text):
        return 0, 'dma-heap.c installs the fd with dma_buf_fd() before the copy-out'
    return undecided('dma-heap.c: no fd install after copy_to_user(), no dma_buf_fd()')


def probe_msi_cookie_before_replay(t):
    body = t.function(TYPE1, 'vfio_iommu_type1_attach_group')
    if body is None:
        return undecided('vfio_iommu_type1_attach_group() not found')
    cookie = body.find('msi_cookie')
    replay = body.find('vfio_iommu_replay(')
    if cookie < 0 or replay < 0:
        return undecided('attach_group(): no MSI cookie or no replay call')
    if cookie < replay:
        return 1, 'attach_group() takes the MSI cookie before the replay'
    return 0, 'attach_group() replays the DMAs before taking the MSI cookie'


def probe_heap_orders_param(t):
    text = t.text(SYSTEM_HEAP)
    if text is None:
        return undecided(SYSTEM_HEAP + ' not found')
    if re.search(r'\bmodule_param\w*\s*\(\s*orders\b', text):
        return 1, 'system_heap.c takes its orders as a module parameter'
    return 0, 'system_heap.c has fixed orders'


def probe_fgsp(t):
    text = t.text(TYPE1)
    if text is None:
        return undecided(TYPE1 + ' not found')
    if re.search(r'\bvfio_test_domain_fgsp\s*\(', text):
        return 1, 'attach_group() probes fine-grained superpages with a test map'
    return 0, 'no fine-grained superpage probe (no test map on attach)'


def probe_follow_pfnmap_write(t):
    body = t.function(TYPE1, 'follow_fault_pfn')
    if body is None:
        return undecided('follow_fault_pfn() not found in ' + TYPE1)
    if 'follow_pfnmap_args' not in body:
        return 0, 'follow_fault_pfn() does not use follow_pfnmap_args'
    if re.search(r'\.write\s*=', body):
        return 1, 'follow_fault_pfn() asks follow_pfnmap_start() for .write'
    return 0, 'follow_fault_pfn() checks .writable itself (no .write input)'


def probe_map_dma_eagain(t):
    body = t.function(TYPE1, 'vaddr_get_pfns')
    if body is None:
        return undecided('vaddr_get_pfns() not found in ' + TYPE1)
    m = re.search(r'-EAGAIN\s*\)\s*\{?\s*goto\s+(\w+)', body)
    gup = body.find('pin_user_pages_remote(')
    if not m or gup < 0:
        return undecided('vaddr_get_pfns(): no -EAGAIN retry or no GUP call')
    label = re.search(r'\b%s\s*:' % m.group(1), body)
    if not label:
        return undecided('vaddr_get_pfns(): retry label not found')
    if label.start() < gup:
        return 0, 'vaddr_get_pfns() retries a lock drop from GUP on'
    return 1, ('vaddr_get_pfns() retries a lock drop at vma_lookup(): a range '
               'that is no longer a pfnmap returns -EAGAIN')


def probe_pfnmap_huge_leaves(t):
    body = t.function(TYPE1, 'follow_fault_pfn')
    if body is None:
        return undecided('follow_fault_pfn() not found in ' + TYPE1)
    if re.search(r'\bfollow_pfnmap_start\s*\(', body):
        return 1, ('follow_fault_pfn() reads PMD and PUD leaves too '
                   '(follow_pfnmap_start(): huge pfnmap faults exist)')
    if re.search(r'\bfollow_pte\s*\(', body):
        return 0, ('follow_fault_pfn() walks to PTEs only (follow_pte(): '
                   'BARs are faulted in with PTEs)')
    return undecided('follow_fault_pfn(): neither follow_pfnmap_start() nor follow_pte()')


def probe_domain_alloc_eio(t):
    attach = t.function(TYPE1, 'vfio_iommu_type1_attach_group')
    alloc = t.function(TYPE1, 'vfio_iommu_domain_alloc')
    if attach is None or alloc is None:
        return undecided('attach_group() or vfio_iommu_domain_alloc() not found')
    if re.search(r'\biommu_paging_domain_alloc\s*\(', alloc):
        return 0, ('attach_group() passes on the error of '
                   'iommu_paging_domain_alloc() (an ERR_PTR)')
    if (re.search(r'\biommu_domain_alloc\s*\(', alloc) and
            re.search(r'\bret\s*=\s*-EIO\s*;', attach)):
        return 1, ('attach_group() fails with -EIO when iommu_domain_alloc() '
                   'returns NULL, whatever failed inside')
    return undecided('vfio_iommu_domain_alloc(): no iommu_paging_domain_alloc(), '
                     'or iommu_domain_alloc() without -EIO in attach_group()')


def probe_heap_allocate_ulong_flags(t):
    text = t.text(SYSTEM_HEAP)
    if text is None:
        return undecided(SYSTEM_HEAP + ' not found')
    m = re.search(r'\.allocate\s*=\s*(\w+)', text)
    if not m:
        return undecided('system_heap.c: no .allocate in its dma_heap_ops')
    head = re.search(r'\b%s\s*\(([^)]*)\)\s*\{' % re.escape(m.group(1)), text)
    if not head:
        return undecided('system_heap.c: %s() not defined' % m.group(1))
    params = ' '.join(head.group(1).split())
    if re.search(r'\bunsigned long fd_flags\b', params):
        return 1, ('%s() takes unsigned long fd_flags, heap_flags (the older '
                   'dma_heap_ops.allocate)' % m.group(1))
    if re.search(r'\bu32 fd_flags\b', params):
        return 0, '%s() takes u32 fd_flags, u64 heap_flags' % m.group(1)
    return undecided('%s(): fd_flags neither unsigned long nor u32' % m.group(1))


def not_taken(t, path, functions):
    """(0 or None, why) when upstream mode cannot take functions from path
    (--core, no such file, one of them missing), else None."""
    if t.core:
        return 0, "core's copies are linked: " + t.core
    if t.text(path) is None:
        return undecided(path + ' not in the tree')
    missing = [f for f in functions if t.function(path, f) is None]
    if missing:
        return 0, '%s has no %s()' % (path, '(), no '.join(missing))
    return None


def probe_tree_follow_pfnmap(t):
    no = not_taken(t, MEMORY, FOLLOW_PFNMAP_FUNCTIONS)
    if no:
        if no[0] == 0 and t.function(MEMORY, 'follow_pte') is not None:
            return 0, no[1] + ' (it has follow_pte(): before 6.10)'
        return no
    return 1, '%s defines %s()' % (MEMORY, '() and '.join(FOLLOW_PFNMAP_FUNCTIONS))


def probe_pfnmap_addr_mask(t):
    if t.text(MEMORY) is None and not t.core:
        return undecided(MEMORY + " not in the tree (core's copy, which fills it, is linked)")
    if probe_tree_follow_pfnmap(t)[0] != 1:
        # core/mm/memory.c is linked instead, and it reports the mask.
        return 1, "core's follow_pfnmap_start() (not the tree's) fills addr_mask"
    body = t.function(MEMORY, 'follow_pfnmap_start')
    if re.search(r'\baddr_mask\b', body):
        return 1, 'follow_pfnmap_start() fills follow_pfnmap_args.addr_mask'
    return 0, 'follow_pfnmap_start() does not fill addr_mask (before 6.15)'


def probe_tree_iommu_map(t):
    no = not_taken(t, IOMMU, IOMMU_MAP_FUNCTIONS)
    if no:
        return no
    head = re.search(r'\biommu_map\s*\(([^)]*)\)\s*\{', t.text(IOMMU))
    if not head or not re.search(r'\bgfp_t\b', head.group(1)):
        return 0, ('%s: iommu_map() takes no gfp_t (before 6.3), the shim\'s '
                   'callers pass one' % IOMMU)
    return 1, '%s defines %s()' % (IOMMU, '(), '.join(IOMMU_MAP_FUNCTIONS))


def iommu_map_loop(t):
    """(body, reason) of the tree's map loop (__iommu_map() up to 6.17,
    iommu_map_nosync() after), or (None, reason)."""
    decided, why = probe_tree_iommu_map(t)
    if decided != 1:
        return None, why
    for name in ('iommu_map_nosync', '__iommu_map'):
        body = t.function(IOMMU, name)
        if body is not None and 'map_pages' in body:
            return body, name + '()'
    return None, 'no __iommu_map() or iommu_map_nosync() calling map_pages'


def probe_map_loop(t, pattern, yes, no):
    """1 (yes) if the tree's map loop has pattern, 0 (no) if not; core's
    map path, 1, where the tree's is not taken."""
    body, where = iommu_map_loop(t)
    if body is None:
        if (t.text(IOMMU) is None and not t.core) or where.startswith('no '):
            return undecided(where)
        return 1, "core's map path (the tree's is not taken: %s)" % where
    if re.search(pattern, body):
        return 1, '%s %s' % (where, yes)
    return 0, '%s %s' % (where, no)


def probe_iommu_map_refuses_wrap(t):
    return probe_map_loop(t, r'\bcheck_add_overflow\s*\(',
                          'refuses a range that runs past the top',
                          'maps a range that runs past 2^64 on at address 0')


def probe_iommu_map_stops_without_progress(t):
    return probe_map_loop(t, r'!\s*mapped\b|\bmapped\s*==\s*0\b',
                          'fails a map_pages call that mapped nothing',
                          'calls map_pages again after one that mapped nothing')


def probe_iommu_map_sg_empty(t):
    decided, why = probe_tree_iommu_map(t)
    if decided is None:
        return undecided(why)
    if decided != 1:
        return 1, "core's map path (the tree's is not taken: %s)" % why
    body = t.function(IOMMU, 'iommu_map_sg')
    if re.search(r'<=\s*nents\b', body):
        return 0, 'iommu_map_sg() reads its first entry even when nents is 0'
    if re.search(r'<\s*nents\b', body):
        return 1, 'iommu_map_sg() reads no entry when nents is 0'
    return undecided('iommu_map_sg(): no loop bounded by nents')


PROBES = [
    ('PFNMAP_STRIDE', probe_pfnmap_stride),
    ('GUP_ZERO_IS_EFAULT', probe_gup_zero_is_efault),
    ('IOVA_END_OVERFLOW_FIXES', probe_iova_end_overflow),
    ('UNMAP_REACHES_IOVA_END', probe_unmap_reaches_iova_end),
    ('GET_INFO_CAPS_LEAK', probe_get_info_caps_leak),
    ('DIRTY_BITMAP_OVERRUN', probe_dirty_bitmap_overrun),
    ('TYPE1_NESTING_TYPE', probe_nesting_extension),
    ('TYPE1_OPEN_TAKES_NESTING_TYPE', probe_open_takes_nesting),
    ('HEAP_ALLOC_FD_AFTER_COPY_OUT', probe_heap_fd_after_copy_out),
    ('MSI_COOKIE_BEFORE_REPLAY', probe_msi_cookie_before_replay),
    ('HEAP_ORDERS_PARAM', probe_heap_orders_param),
    ('TYPE1_FGSP_PROBE', probe_fgsp),
    ('FOLLOW_PFNMAP_ARGS_WRITE', probe_follow_pfnmap_write),
    ('MAP_DMA_EAGAIN_AFTER_LOCK_DROP', probe_map_dma_eagain),
    ('HEAP_ALLOCATE_ULONG_FLAGS', probe_heap_allocate_ulong_flags),
    ('PFNMAP_HUGE_LEAVES', probe_pfnmap_huge_leaves),
    ('DOMAIN_ALLOC_FAILURE_IS_EIO', probe_domain_alloc_eio),
    ('TREE_FOLLOW_PFNMAP', probe_tree_follow_pfnmap),
    ('PFNMAP_ADDR_MASK', probe_pfnmap_addr_mask),
    ('TREE_IOMMU_MAP', probe_tree_iommu_map),
    ('IOMMU_MAP_REFUSES_WRAP', probe_iommu_map_refuses_wrap),
    ('IOMMU_MAP_STOPS_WITHOUT_PROGRESS', probe_iommu_map_stops_without_progress),
    ('IOMMU_MAP_SG_EMPTY_READS_NOTHING', probe_iommu_map_sg_empty),
]


def probe(root, core=None):
    t = Tree(root, core)
    return [(name,) + fn(t) for name, fn in PROBES]


def main(argv):
    if len(argv) < 2 or argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    if '--extracted' in argv[2:]:
        for lib, name, path, functions in EXTRACTED:
            print('%s|%s|%s|%s' % (lib, name, path, ','.join(functions)))
        return 0
    meson = '--meson' in argv[2:]
    core = argv[argv.index('--core') + 1] if '--core' in argv[2:-1] else None
    for name, value, why in probe(argv[1], core):
        v = '?' if value is None else str(value)
        if meson:
            print('%s=%s|%s' % (name, v, why))
        else:
            print('%-30s %s  %s' % (name, v, why))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
