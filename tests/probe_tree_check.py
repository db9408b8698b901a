#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/probe-tree.py on made-up trees: every probe decides 1 on one tiny
tree, 0 on another and '?' on a third it cannot read; then the real
trees (Debian's linux-source-6.12 and linux-source-6.1) decide what they
are known to do, when their tarballs are installed.

A probe whose reading is wrong flips a suite's expectation for every tree
it misreads, so each one is checked both ways and undecided.  A probe
added to tools/probe-tree.py without its three cases here fails the check.

    tests/probe_tree_check.py [BUILD_DIR]

BUILD_DIR (meson passes its own) keeps the real trees' seven files,
extracted once with one tar call per tarball; trees already extracted by
tools/ci-upstream.sh (build-upstream-src, build-upstream61-src) are used
as they are.  Exit 0 when every case holds, 1 otherwise.
"""

import importlib.util
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROBE_TREE = os.path.join(TOP, 'tools', 'probe-tree.py')

TYPE1 = 'drivers/vfio/vfio_iommu_type1.c'
SYSTEM_HEAP = 'drivers/dma-buf/heaps/system_heap.c'
DMA_HEAP = 'drivers/dma-buf/dma-heap.c'
MEMORY = 'mm/memory.c'
IOMMU = 'drivers/iommu/iommu.c'


def type1(*functions):
    """A type1 file made of the given function texts (comments included:
    a probe must not read them)."""
    return {TYPE1: '/* vaddr_get_pfns addr_mask EOVERFLOW NESTING */\n' +
            '\n'.join(functions)}


def iommu(map_loop, map_sg=None):
    """An iommu.c with the IOMMU map path upstream mode takes, its map loop
    (__iommu_map()) made of map_loop (None: none calls map_pages), and
    iommu_map_sg()'s body of map_sg."""
    text = ''.join('int %s(struct iommu_domain *d, gfp_t gfp)\n{\n%s}\n' % (
        f, map_sg if f == 'iommu_map_sg' and map_sg else '\treturn __iommu_map(d, gfp);\n')
                   for f in ('iommu_map', 'iommu_unmap', 'iommu_unmap_fast',
                             'iommu_map_sg', 'iommu_iova_to_phys'))
    text += 'static int __iommu_map(struct iommu_domain *d, gfp_t gfp)\n{\n%s}\n' % (
        map_loop or '\treturn 0;\n')
    return {IOMMU: text}


# probe name: [(value it must decide: 1, 0 or None for '?', the tree)]
CASES = {
    'PFNMAP_STRIDE': [
        (1, type1('static int vaddr_get_pfns(void)\n{\n'
                  '\tnpages = (args.addr_mask + 1) >> PAGE_SHIFT;\n}\n')),
        (0, type1('static int vaddr_get_pfns(void)\n{\n'
                  '\t/* addr_mask */ return 1;\n}\n'
                  'static long g(void) { return args.addr_mask; }\n')),
        (None, type1('static int vaddr_get_pfns(void);\n'
                     'int f(void) { return addr_mask; }\n')),
    ],
    'GUP_ZERO_IS_EFAULT': [
        (1, type1('static int vaddr_get_pfns(void)\n{\n'
                  '\tret = pin_user_pages_remote(mm, v, n, f, p, NULL);\n'
                  '\tif (ret == 0)\n\t\tret = -EFAULT;\n}\n')),
        (0, type1('static int vaddr_get_pfns(void)\n{\n'
                  '\tret = pin_user_pages_remote(mm, v, n, f, p, NULL);\n'
                  '\tif (ret > 0) {\n\t\tret = -EFAULT;\n\t}\n}\n')),
        (None, {SYSTEM_HEAP: 'int x;\n'}),
    ],
    'IOVA_END_OVERFLOW_FIXES': [
        (1, type1('static int vfio_dma_do_map(void)\n{\n'
                  '\tif (check_add_overflow(iova, size, &end))\n'
                  '\t\treturn -EOVERFLOW;\n}\n')),
        (0, type1('static int vfio_dma_do_map(void)\n{\n'
                  '\tif (iova + size - 1 < iova)\n\t\treturn -EINVAL;\n}\n'
                  'static int g(void) { return -EOVERFLOW; }\n')),
        (None, type1('static int vfio_dma_do_unmap(void) { return -EOVERFLOW; }\n')),
    ],
    'UNMAP_REACHES_IOVA_END': [
        # ef270ec44637: the walk ends past the range's last byte.
        (1, type1('static int vfio_dma_do_unmap(void)\n{\n'
                  '\twhile (n) {\n\t\tif (dma->iova > iova_end)\n\t\t\tbreak;\n\t}\n}\n')),
        # 6.12 and torvalds/linux 1196f1f897d4: at iova + size (0 at the top).
        (0, type1('static int vfio_dma_do_unmap(void)\n{\n'
                  '\t/* if (dma->iova > iova_end) */\n'
                  '\twhile (n) {\n\t\tif (dma->iova >= iova + size)\n\t\t\tbreak;\n\t}\n}\n')),
        (None, type1('static int vfio_dma_do_unmap(void)\n{\n'
                     '\treturn vfio_remove_range(iommu, iova, size);\n}\n')),
    ],
    'GET_INFO_CAPS_LEAK': [
        (1, type1('static int vfio_iommu_type1_get_info(void)\n{\n'
                  '\tret = vfio_iommu_iova_build_caps(iommu, &caps);\n'
                  '\tif (ret)\n\t\treturn ret;\n}\n')),
        (0, type1('static int vfio_iommu_type1_get_info(void)\n{\n'
                  '\tret = vfio_iommu_iova_build_caps(iommu, &caps);\n'
                  '\tif (ret) {\n\t\tkfree(caps.buf);\n\t\treturn ret;\n\t}\n}\n')),
        (None, type1('static int vfio_iommu_type1_get_info(void)\n{\n'
                     '\treturn vfio_iommu_migration_build_caps(iommu, &caps);\n}\n')),
    ],
    'DIRTY_BITMAP_OVERRUN': [
        (1, type1('static int vfio_dma_bitmap_alloc_all(void) { return 0; }\n'
                  'static void vfio_iommu_populate_bitmap_full(void)\n{\n'
                  '\tbitmap_set(b, 0, size >> __ffs(iommu->pgsize_bitmap));\n}\n'
                  'static int vfio_iommu_type1_dirty_pages(void)\n{\n'
                  '\treturn vfio_dma_bitmap_alloc_all(iommu, pgsize);\n}\n')),
        (0, type1('static int vfio_dma_bitmap_alloc_all(void) { return 0; }\n'
                  'static void vfio_iommu_populate_bitmap_full(void)\n{\n'
                  '\tbitmap_set(b, 0, size >> __ffs(iommu->pgsize_bitmap));\n}\n'
                  'static int vfio_iommu_type1_dirty_pages(void)\n{\n'
                  '\treturn vfio_dma_bitmap_alloc_all(iommu, pgsize);\n}\n'
                  'static void vfio_iommu_type1_detach_group(void)\n{\n'
                  '\tvfio_dma_bitmap_alloc_all(iommu, new_pgsize);\n}\n')),
        (None, type1('static void vfio_iommu_populate_bitmap_full(void)\n{\n'
                     '\tbitmap_set(b, 0, size >> __ffs(iommu->pgsize_bitmap));\n}\n')),
    ],
    'TYPE1_NESTING_TYPE': [
        (1, type1('static int vfio_iommu_type1_check_extension(long arg)\n{\n'
                  '\tswitch (arg) {\n\tcase VFIO_TYPE1_NESTING_IOMMU:\n'
                  '\t\treturn 1;\n\t}\n}\n')),
        (0, type1('static int vfio_iommu_type1_check_extension(long arg)\n{\n'
                  '\tswitch (arg) {\n\tcase VFIO_TYPE1v2_IOMMU:\n'
                  '\t\treturn 1;\n\t}\n}\n'
                  'static int g(void) { return VFIO_TYPE1_NESTING_IOMMU; }\n')),
        (None, type1('static int vfio_iommu_type1_check_extension(long arg);\n')),
    ],
    'TYPE1_OPEN_TAKES_NESTING_TYPE': [
        (1, type1('static void *vfio_iommu_type1_open(unsigned long arg)\n{\n'
                  '\tcase __VFIO_RESERVED_TYPE1_NESTING_IOMMU:\n}\n')),
        (0, type1('static void *vfio_iommu_type1_open(unsigned long arg)\n{\n'
                  '\tcase VFIO_TYPE1v2_IOMMU:\n}\n')),
        (None, type1('static void *vfio_iommu_type1_release(void *p)\n{\n}\n')),
    ],
    'HEAP_ALLOC_FD_AFTER_COPY_OUT': [
        # 6.12.117: fd_install(); 6.1.192: dma_buf_fd_install().
        (1, {DMA_HEAP: 'long f(void)\n{\n'
                       '\tif (copy_to_user(p, k, n) != 0)\n\t\tput_unused_fd(fd);\n'
                       '\telse\n\t\tfd_install(fd, dmabuf->file);\n}\n'}),
        (1, {DMA_HEAP: 'long f(void)\n{\n'
                       '\tif (copy_to_user(p, k, n) != 0)\n\t\tput_unused_fd(fd);\n'
                       '\telse\n\t\tdma_buf_fd_install(dmabuf, fd);\n}\n'}),
        (0, {DMA_HEAP: 'long f(void)\n{\n'
                       '\tfd = dma_buf_fd(dmabuf, flags);\n'
                       '\tif (copy_to_user(p, k, n) != 0)\n\t\treturn -EFAULT;\n}\n'}),
        (None, {DMA_HEAP: 'long f(void)\n{\n'
                          '\t/* fd_install(fd, f); after copy_to_user() */\n'
                          '\treturn 0;\n}\n'}),
    ],
    'MSI_COOKIE_BEFORE_REPLAY': [
        (1, type1('static int vfio_iommu_type1_attach_group(void)\n{\n'
                  '\tret = iommu_get_msi_cookie(d, base);\n'
                  '\tret = vfio_iommu_replay(iommu, domain);\n}\n')),
        (0, type1('static int vfio_iommu_type1_attach_group(void)\n{\n'
                  '\tret = vfio_iommu_replay(iommu, domain);\n'
                  '\tret = iommu_get_msi_cookie(d, base);\n}\n')),
        (None, type1('static int vfio_iommu_type1_attach_group(void)\n{\n'
                     '\tret = vfio_iommu_replay(iommu, domain);\n}\n')),
    ],
    'HEAP_ORDERS_PARAM': [
        (1, {SYSTEM_HEAP: 'static unsigned int orders[] = {9, 8, 4, 0};\n'
                          'module_param_array(orders, uint, NULL, 0444);\n'}),
        (0, {SYSTEM_HEAP: '/* module_param_array(orders, uint, NULL, 0444); */\n'
                          'static const unsigned int orders[] = {8, 4, 0};\n'}),
        (None, type1('int x;\n')),
    ],
    'TYPE1_FGSP_PROBE': [
        (1, type1('static void vfio_test_domain_fgsp(struct vfio_domain *d)\n{\n}\n')),
        (0, type1('static int vfio_iommu_replay(void)\n{\n'
                  '\t/* vfio_test_domain_fgsp(d); */\n\treturn 0;\n}\n')),
        (None, {SYSTEM_HEAP: 'int x;\n'}),
    ],
    'FOLLOW_PFNMAP_ARGS_WRITE': [
        (1, type1('static int follow_fault_pfn(void)\n{\n'
                  '\tstruct follow_pfnmap_args args = {\n'
                  '\t\t.vma = vma, .address = vaddr, .write = write_fault };\n}\n')),
        (0, type1('static int follow_fault_pfn(void)\n{\n'
                  '\tstruct follow_pfnmap_args args = { .vma = vma, .address = vaddr };\n'
                  '\tif (write_fault && !args.writable)\n\t\tret = -EFAULT;\n}\n')),
        # 6.1: follow_pte(), no follow_pfnmap_args at all.
        (0, type1('static int follow_fault_pfn(void)\n{\n'
                  '\tret = follow_pte(vma->vm_mm, vaddr, &ptep, &ptl);\n}\n')),
        (None, type1('static int vaddr_get_pfns(void)\n{\n'
                     '\tstruct follow_pfnmap_args args = { .write = 1 };\n}\n')),
    ],
    'MAP_DMA_EAGAIN_AFTER_LOCK_DROP': [
        (1, type1('static int vaddr_get_pfns(void)\n{\n'
                  '\tret = pin_user_pages_remote(mm, v, n, f, p, NULL);\n'
                  'retry:\n\tvma = vma_lookup(mm, vaddr);\n'
                  '\tret = follow_fault_pfn(vma, mm, vaddr, pfn, w);\n'
                  '\tif (ret == -EAGAIN)\n\t\tgoto retry;\n}\n')),
        (0, type1('static int vaddr_get_pfns(void)\n{\n'
                  'again:\n\tret = pin_user_pages_remote(mm, v, n, f, p, NULL);\n'
                  '\tvma = vma_lookup(mm, vaddr);\n'
                  '\tret = follow_fault_pfn(vma, mm, vaddr, pfn, w);\n'
                  '\tif (ret == -EAGAIN)\n\t\tgoto again;\n}\n')),
        (None, type1('static int vaddr_get_pfns(void)\n{\n'
                     '\tret = pin_user_pages_remote(mm, v, n, f, p, NULL);\n'
                     '\tif (ret == -EAGAIN)\n\t\treturn ret;\n}\n')),
    ],
    'HEAP_ALLOCATE_ULONG_FLAGS': [
        (1, {SYSTEM_HEAP: 'static struct dma_buf *sh_alloc(struct dma_heap *heap,\n'
                          '\t\tunsigned long len,\n\t\tunsigned long fd_flags,\n'
                          '\t\tunsigned long heap_flags)\n{\n\treturn NULL;\n}\n'
                          'static const struct dma_heap_ops ops = {\n'
                          '\t.allocate = sh_alloc,\n};\n'}),
        (0, {SYSTEM_HEAP: 'static struct dma_buf *sh_alloc(struct dma_heap *heap,\n'
                          '\t\tunsigned long len, u32 fd_flags, u64 heap_flags)\n'
                          '{\n\tunsigned long fd_flags_seen = 0;\n\treturn NULL;\n}\n'
                          'static const struct dma_heap_ops ops = {\n'
                          '\t.allocate = sh_alloc,\n};\n'
                          'static void other(unsigned long fd_flags) { }\n'}),
        # .allocate names a function the file does not define.
        (None, {SYSTEM_HEAP: 'static void sh_alloc(unsigned long fd_flags) { }\n'
                             'static const struct dma_heap_ops ops = {\n'
                             '\t.allocate = other_alloc,\n};\n'}),
    ],
    'PFNMAP_HUGE_LEAVES': [
        (1, type1('static int follow_fault_pfn(void)\n{\n'
                  '\tret = follow_pfnmap_start(&args);\n}\n')),
        (0, type1('static int follow_fault_pfn(void)\n{\n'
                  '\tret = follow_pte(vma->vm_mm, vaddr, &ptep, &ptl);\n}\n'
                  'static int g(void) { return follow_pfnmap_start(&a); }\n')),
        (None, type1('static int follow_fault_pfn(void)\n{\n'
                     '\t/* follow_pte() */\n\treturn 0;\n}\n')),
    ],
    'DOMAIN_ALLOC_FAILURE_IS_EIO': [
        (1, type1('static int vfio_iommu_domain_alloc(struct device *dev, void *data)\n'
                  '{\n\t*domain = iommu_domain_alloc(dev->bus);\n\treturn 1;\n}\n'
                  'static int vfio_iommu_type1_attach_group(void)\n{\n'
                  '\tret = -EIO;\n\tiommu_group_for_each_dev(g, &d, vfio_iommu_domain_alloc);\n}\n')),
        (0, type1('static int vfio_iommu_domain_alloc(struct device *dev, void *data)\n'
                  '{\n\t*domain = iommu_paging_domain_alloc(dev);\n\treturn 1;\n}\n'
                  'static int vfio_iommu_type1_attach_group(void)\n{\n'
                  '\tret = -EIO;\n}\n')),
        # The old allocator, but no -EIO in attach: cannot say what it returns.
        (None, type1('static int vfio_iommu_domain_alloc(struct device *dev, void *data)\n'
                     '{\n\t*domain = iommu_domain_alloc(dev->bus);\n\treturn 1;\n}\n'
                     'static int vfio_iommu_type1_attach_group(void)\n{\n'
                     '\t/* ret = -EIO; */\n\treturn -ENOMEM;\n}\n')),
    ],
    'TREE_FOLLOW_PFNMAP': [
        (1, {MEMORY: 'int follow_pfnmap_start(struct follow_pfnmap_args *args)\n{\n'
                     '\treturn 0;\n}\n'
                     'void follow_pfnmap_end(struct follow_pfnmap_args *args)\n{\n}\n'}),
        (0, {MEMORY: '/* follow_pfnmap_start() follow_pfnmap_end() */\n'
                     'int follow_pte(struct mm_struct *mm, unsigned long a)\n{\n'
                     '\treturn follow_pfnmap_start(0);\n}\n'}),
        (None, type1('int follow_pfnmap_start(void)\n{\n\treturn 0;\n}\n')),
    ],
    'PFNMAP_ADDR_MASK': [
        (1, {MEMORY: 'int follow_pfnmap_start(struct follow_pfnmap_args *args)\n{\n'
                     '\targs->addr_mask = PMD_MASK;\n}\n'
                     'void follow_pfnmap_end(struct follow_pfnmap_args *args)\n{\n}\n'}),
        (0, {MEMORY: 'int follow_pfnmap_start(struct follow_pfnmap_args *args)\n{\n'
                     '\t/* addr_mask */\n\treturn 0;\n}\n'
                     'void follow_pfnmap_end(struct follow_pfnmap_args *args)\n{\n}\n'
                     'static int g(void) { return addr_mask; }\n'}),
        (None, type1('int follow_pfnmap_start(void)\n{\n\treturn addr_mask;\n}\n')),
    ],
    'TREE_IOMMU_MAP': [
        (1, {IOMMU: ''.join('int %s(struct iommu_domain *d, gfp_t gfp)\n{\n}\n' % f
                            for f in ('iommu_map', 'iommu_unmap', 'iommu_unmap_fast',
                                      'iommu_map_sg', 'iommu_iova_to_phys'))}),
        # 6.1: iommu_map() without gfp_t.
        (0, {IOMMU: ''.join('int %s(struct iommu_domain *d, int prot)\n{\n'
                            '\treturn _iommu_map(d, prot, GFP_KERNEL);\n}\n' % f
                            for f in ('iommu_map', 'iommu_unmap', 'iommu_unmap_fast',
                                      'iommu_map_sg', 'iommu_iova_to_phys'))}),
        (None, {MEMORY: 'int iommu_map(gfp_t gfp)\n{\n}\n'}),
    ],
    'IOMMU_MAP_REFUSES_WRAP': [
        (1, iommu('\tif (check_add_overflow(iova, size - 1, &last))\n'
                  '\t\treturn -EINVAL;\n\tret = ops->map_pages(d, iova);\n')),
        (0, iommu('\t/* check_add_overflow() */\n\tret = ops->map_pages(d, iova);\n')),
        (None, iommu(None)),
    ],
    'IOMMU_MAP_STOPS_WITHOUT_PROGRESS': [
        (1, iommu('\tret = ops->map_pages(d, &mapped);\n'
                  '\tif (WARN_ON(!mapped))\n\t\treturn -EINVAL;\n')),
        (0, iommu('\tret = ops->map_pages(d, &mapped);\n\tsize -= mapped;\n')),
        (None, iommu(None)),
    ],
    'IOMMU_MAP_SG_EMPTY_READS_NOTHING': [
        (1, iommu(None, map_sg='\tfor (i = 0; i < nents; i++)\n\t\tlen += sg->length;\n')),
        (0, iommu(None, map_sg='\twhile (i <= nents) {\n\t\ts_phys = sg_phys(sg);\n\t}\n')),
        (None, iommu(None, map_sg='\treturn for_each_entry(sg);\n')),
    ],
}

# What the real trees decide (Debian's packages as installed in CI).
REAL_6_12 = {
    'PFNMAP_STRIDE': 0, 'GUP_ZERO_IS_EFAULT': 0,
    'IOVA_END_OVERFLOW_FIXES': 0, 'UNMAP_REACHES_IOVA_END': 0,
    'GET_INFO_CAPS_LEAK': 1,
    'DIRTY_BITMAP_OVERRUN': 1, 'TYPE1_NESTING_TYPE': 1,
    'TYPE1_OPEN_TAKES_NESTING_TYPE': 1, 'HEAP_ALLOC_FD_AFTER_COPY_OUT': 1,
    'MSI_COOKIE_BEFORE_REPLAY': 0, 'HEAP_ORDERS_PARAM': 0,
    'TYPE1_FGSP_PROBE': 1, 'FOLLOW_PFNMAP_ARGS_WRITE': 0,
    'MAP_DMA_EAGAIN_AFTER_LOCK_DROP': 1, 'HEAP_ALLOCATE_ULONG_FLAGS': 0,
    'PFNMAP_HUGE_LEAVES': 1, 'DOMAIN_ALLOC_FAILURE_IS_EIO': 0,
    'TREE_FOLLOW_PFNMAP': 1, 'PFNMAP_ADDR_MASK': 0, 'TREE_IOMMU_MAP': 1,
    'IOMMU_MAP_REFUSES_WRAP': 0, 'IOMMU_MAP_STOPS_WITHOUT_PROGRESS': 0,
    'IOMMU_MAP_SG_EMPTY_READS_NOTHING': 0,
}
# 6.1.192 decides as 6.12.117 but for the API generation: its heap takes
# unsigned long flags, its follow_fault_pfn() walks PTEs with follow_pte()
# (so no .write input either), its attach turns a NULL domain into -EIO,
# its mm/memory.c has follow_pte() and no follow_pfnmap_start() (core's is
# linked, with addr_mask), its iommu_map() takes no gfp_t.  Its fd is installed after the copy-out too,
# by the stable-only dma_buf_fd_install().
REAL_TREES = {
    '6.12': REAL_6_12,
    '6.1': dict(REAL_6_12, HEAP_ALLOCATE_ULONG_FLAGS=1, PFNMAP_HUGE_LEAVES=0,
                DOMAIN_ALLOC_FAILURE_IS_EIO=1, TREE_FOLLOW_PFNMAP=0,
                PFNMAP_ADDR_MASK=1, TREE_IOMMU_MAP=0, IOMMU_MAP_REFUSES_WRAP=1,
                IOMMU_MAP_STOPS_WITHOUT_PROGRESS=1,
                IOMMU_MAP_SG_EMPTY_READS_NOTHING=1),
}
REAL_FILES = ['Makefile', TYPE1, 'drivers/vfio/vfio.h', SYSTEM_HEAP, DMA_HEAP,
              MEMORY, IOMMU]


def load_probe_tree():
    spec = importlib.util.spec_from_file_location('probe_tree', PROBE_TREE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def make_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)


def show(value):
    return '?' if value is None else str(value)


def check_made_up(pt, failures):
    names = [name for name, _ in pt.PROBES]
    for name in names:
        got = {v for v, _ in CASES.get(name, [])}
        if got != {0, 1, None}:
            failures.append('%s: cases decide %s, want 1, 0 and ?' %
                            (name, ', '.join(sorted(map(show, got))) or 'nothing'))
    for name in CASES:
        if name not in names:
            failures.append('%s: no such probe in tools/probe-tree.py' % name)
    runs = 0
    for name, cases in CASES.items():
        for i, (want, files) in enumerate(cases):
            with tempfile.TemporaryDirectory(prefix='probe-tree-check.') as root:
                make_tree(root, files)
                decided = {n: (v, why) for n, v, why in pt.probe(root)}
            runs += 1
            if name not in decided:
                continue
            value, why = decided[name]
            if value != want:
                failures.append('%s case %d: decided %s (%s), want %s' %
                                (name, i + 1, show(value), why, show(want)))
            elif not why:
                failures.append('%s case %d: no reason given' % (name, i + 1))
    return runs


def real_tree(version, build_dir):
    """A folder holding the tree's seven files, or None (and why)."""
    # tools/ci-upstream.sh's folders (6.12: build-upstream-src).
    suffix = '' if version == '6.12' else version.replace('.', '')
    cand = os.path.join(TOP, 'build-upstream%s-src' % suffix)
    if (os.path.isfile(os.path.join(cand, '.extracted')) and
            all(os.path.isfile(os.path.join(cand, f)) for f in REAL_FILES)):
        return cand, None
    tarball = None
    for ext in ('xz', 'gz', 'bz2'):
        p = '/usr/src/linux-source-%s.tar.%s' % (version, ext)
        if os.path.isfile(p):
            tarball = p
    if tarball is None:
        return None, 'no /usr/src/linux-source-%s.tar.*' % version
    dest = os.path.join(build_dir, 'probe-tree-check', version)
    stamp = os.path.join(dest, '.extracted')
    if (os.path.isfile(stamp) and
            os.path.getmtime(stamp) >= os.path.getmtime(tarball) and
            all(os.path.isfile(os.path.join(dest, f)) for f in REAL_FILES)):
        return dest, None
    os.makedirs(dest, exist_ok=True)
    # One call: the archive is one xz stream ('*/' is its top folder).
    run = subprocess.run(['tar', '-xf', tarball, '-C', dest, '--strip-components=1',
                          '--wildcards', '--no-wildcards-match-slash'] +
                         ['*/' + f for f in REAL_FILES], capture_output=True, text=True)
    if run.returncode != 0:
        return None, 'extracting %s failed: %s' % (tarball, run.stderr.strip())
    open(stamp, 'w').close()
    return dest, None


def check_real(pt, build_dir, failures):
    checked = 0
    for version, want in REAL_TREES.items():
        root, why = real_tree(version, build_dir)
        if root is None:
            print('probe_tree_check: Linux %s not checked (%s; apt-get install '
                  'linux-source-%s)' % (version, why, version))
            continue
        checked += 1
        decided = {n: (v, r) for n, v, r in pt.probe(root)}
        for name, (value, reason) in decided.items():
            if name not in want:
                failures.append('Linux %s: %s decided %s (%s), no expectation here' %
                                (version, name, show(value), reason))
            elif value != want[name]:
                failures.append('Linux %s: %s decided %s (%s), want %s' %
                                (version, name, show(value), reason, show(want[name])))
        print('probe_tree_check: Linux %s (%s): %d probes as expected' %
              (version, root, len(decided)))
    return checked


def main(argv):
    build_dir = os.path.abspath(argv[1] if len(argv) > 1 else tempfile.gettempdir())
    pt = load_probe_tree()
    failures = []
    runs = check_made_up(pt, failures)
    # The command line prints every probe once, in both formats.
    with tempfile.TemporaryDirectory(prefix='probe-tree-check.') as root:
        make_tree(root, CASES['PFNMAP_STRIDE'][0][1])
        for args, sep in (([], None), (['--meson'], '=')):
            run = subprocess.run([sys.executable, PROBE_TREE, root] + args,
                                 capture_output=True, text=True)
            lines = run.stdout.strip().split('\n')
            if run.returncode != 0 or len(lines) != len(pt.PROBES):
                failures.append('probe-tree.py %s: exit %d, %d lines for %d probes' %
                                (' '.join(args), run.returncode, len(lines), len(pt.PROBES)))
            elif sep and lines[0] != 'PFNMAP_STRIDE=1|' + pt.probe(root)[0][2]:
                failures.append('probe-tree.py --meson: first line %r' % lines[0])
    # --core (no libclang, -Dkernel_extract=false): nothing taken, so the
    # extraction probes decide 0 and those that depend on which copy is
    # linked decide core's behaviour, on a tree whose own copies differ.
    core_want = {'TREE_FOLLOW_PFNMAP': 0, 'TREE_IOMMU_MAP': 0, 'PFNMAP_ADDR_MASK': 1,
                 'IOMMU_MAP_REFUSES_WRAP': 1, 'IOMMU_MAP_STOPS_WITHOUT_PROGRESS': 1,
                 'IOMMU_MAP_SG_EMPTY_READS_NOTHING': 1}
    with tempfile.TemporaryDirectory(prefix='probe-tree-check.') as root:
        files = dict(CASES['PFNMAP_ADDR_MASK'][1][1])
        files.update(CASES['IOMMU_MAP_REFUSES_WRAP'][1][1])
        make_tree(root, files)
        for core, want in ((None, {'TREE_FOLLOW_PFNMAP': 1, 'PFNMAP_ADDR_MASK': 0,
                                   'TREE_IOMMU_MAP': 1, 'IOMMU_MAP_REFUSES_WRAP': 0}),
                           ('-Dkernel_extract=false', core_want)):
            got = {n: (v, why) for n, v, why in pt.probe(root, core)}
            for name, value in want.items():
                if got[name][0] != value:
                    failures.append('--core %s: %s decided %s (%s), want %s' % (
                        core, name, show(got[name][0]), got[name][1], value))
    real = check_real(pt, build_dir, failures)
    for f in failures:
        print('FAIL: ' + f)
    if failures:
        return 1
    print('probe_tree_check: %d probes, %d made-up trees, %d real trees hold' %
          (len(pt.PROBES), runs, real))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
