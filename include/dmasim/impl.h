/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: which kernel code a plain-C program (a test, the CLI) is linked
 * against, for the few expectations that legitimately differ between the
 * project's own core/ and a kernel tree's files in upstream mode, and
 * between kernel versions.
 *
 * tests/meson.build builds every kernel test once per implementation and
 * passes DMASIM_IMPL ("core" or "upstream"); for upstream it also passes the
 * tree's version, read from its Makefile (DMASIM_LINUX_VERSION,
 * DMASIM_LINUX_PATCHLEVEL, DMASIM_LINUX_SUBLEVEL; see upstream/meson.build).
 * The project's core/ follows mainline (plus the 2 MiB heap order), so
 * every "since version X" test is true for it.
 *
 * In upstream mode each predicate is decided by reading the tree's code at
 * configure time (tools/probe-tree.py: a function, call or construct
 * present, the order of two calls), passed as DMASIM_PROBED_<NAME> and
 * printed by meson with its reason: stable trees carry backports that no
 * version boundary describes.  The definitions below, by version, are the
 * fallback for a probe that cannot decide (it names what it did not find).
 * For the project's core/ (no DMASIM_PROBED_*), they give core's behaviour.
 *
 * A suite says which behaviour it expects with the predicates below, by
 * name, rather than by testing DMASIM_IMPL:
 *
 *	if (DMASIM_IMPL_PFNMAP_STRIDE)
 *		assert_int_equal(lookups, 32);		// one per PUD leaf
 *	else
 *		assert_int_equal(lookups, 8388608);	// one per 4K page
 */
#ifndef DMASIM_IMPL_H
#define DMASIM_IMPL_H

#ifndef DMASIM_IMPL
#define DMASIM_IMPL "core"
#endif

#define DMASIM_KERNEL_VERSION(a, b, c) \
	(((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))

#ifdef DMASIM_LINUX_VERSION
/* Upstream mode: the version of the tree under test. */
#define DMASIM_IMPL_IS_UPSTREAM 1
#define DMASIM_IMPL_VERSION_CODE					\
	DMASIM_KERNEL_VERSION(DMASIM_LINUX_VERSION, DMASIM_LINUX_PATCHLEVEL, \
			      DMASIM_LINUX_SUBLEVEL)
#define DMASIM_IMPL_AT_LEAST(a, b, c) \
	(DMASIM_IMPL_VERSION_CODE >= DMASIM_KERNEL_VERSION(a, b, c))
#else
/* The project's core/: mainline behaviour. */
#define DMASIM_IMPL_IS_UPSTREAM 0
#define DMASIM_IMPL_VERSION_CODE 0
#define DMASIM_IMPL_AT_LEAST(a, b, c) 1
#endif

/*
 * VFIO type1 strides a whole pfnmap leaf per follow_pfnmap_start() call,
 * using follow_pfnmap_args.addr_mask ("mm: Provide address mask in struct
 * follow_pfnmap_args" and the type1 patches of the same series, v6.15).
 * Before: one lookup per PAGE_SIZE page, 8,388,608 for a 32 GiB BAR.
 */
#ifdef DMASIM_PROBED_PFNMAP_STRIDE
#define DMASIM_IMPL_PFNMAP_STRIDE DMASIM_PROBED_PFNMAP_STRIDE
#else
#define DMASIM_IMPL_PFNMAP_STRIDE DMASIM_IMPL_AT_LEAST(6, 15, 0)
#endif

/*
 * follow_pfnmap_start() reports the address mask of the leaf it found
 * (follow_pfnmap_args.addr_mask, "mm: Provide address mask in struct
 * follow_pfnmap_args", v6.15).  Upstream mode takes the tree's own
 * follow_pfnmap_start() out of its mm/memory.c (tools/extract-functions.py);
 * 6.12's leaves addr_mask as the caller set it.  A tree without the function
 * (6.1), or without mm/memory.c, gets core's copy, which reports it: so the
 * fallback of an undecided probe is 1, not a version.
 */
#ifdef DMASIM_PROBED_PFNMAP_ADDR_MASK
#define DMASIM_IMPL_PFNMAP_ADDR_MASK DMASIM_PROBED_PFNMAP_ADDR_MASK
#else
#define DMASIM_IMPL_PFNMAP_ADDR_MASK 1
#endif

/*
 * iommu_map() refuses a range whose IOVA or physical address runs past
 * 2^64, and iommu_unmap() one whose IOVA does, before the driver is called:
 * core's own check (found by the unsigned-wrap trap).  The kernel's map
 * and unmap loops (6.12's __iommu_map(), __iommu_unmap(), taken by upstream
 * mode) go on at address 0.  Decided by the tree's map loop; core's map
 * path (linked for a tree whose map path is not taken) checks.
 */
#ifdef DMASIM_PROBED_IOMMU_MAP_REFUSES_WRAP
#define DMASIM_IMPL_IOMMU_MAP_REFUSES_WRAP DMASIM_PROBED_IOMMU_MAP_REFUSES_WRAP
#else
#define DMASIM_IMPL_IOMMU_MAP_REFUSES_WRAP 1
#endif

/*
 * iommu_map() fails with -EINVAL (and one warning) when a driver's
 * map_pages succeeds without mapping anything: core's own check.  The
 * kernel's loop (6.12's __iommu_map()) calls the driver again, forever.
 */
#ifdef DMASIM_PROBED_IOMMU_MAP_STOPS_WITHOUT_PROGRESS
#define DMASIM_IMPL_IOMMU_MAP_STOPS_WITHOUT_PROGRESS \
	DMASIM_PROBED_IOMMU_MAP_STOPS_WITHOUT_PROGRESS
#else
#define DMASIM_IMPL_IOMMU_MAP_STOPS_WITHOUT_PROGRESS 1
#endif

/*
 * iommu_map_sg() of an empty list (nents 0) reads no entry and maps
 * nothing (core's).  6.12's loop runs while i <= nents: it reads the first
 * entry (sg_phys()) even when there is none to map.
 */
#ifdef DMASIM_PROBED_IOMMU_MAP_SG_EMPTY_READS_NOTHING
#define DMASIM_IMPL_IOMMU_MAP_SG_EMPTY_READS_NOTHING \
	DMASIM_PROBED_IOMMU_MAP_SG_EMPTY_READS_NOTHING
#else
#define DMASIM_IMPL_IOMMU_MAP_SG_EMPTY_READS_NOTHING 1
#endif

/*
 * The system heap's allocation orders are the module parameter
 * "system_heap.orders" (default 9,8,4,0: the proposed 2 MiB order).  No
 * kernel tree has it: there the orders are fixed at 8,4,0.
 */
#ifdef DMASIM_PROBED_HEAP_ORDERS_PARAM
#define DMASIM_IMPL_HEAP_ORDERS_PARAM DMASIM_PROBED_HEAP_ORDERS_PARAM
#else
#define DMASIM_IMPL_HEAP_ORDERS_PARAM (!DMASIM_IMPL_IS_UPSTREAM)
#endif

/*
 * VFIO type1 turns a 0 from pin_user_pages_remote() (nothing pinned, no
 * error) into -EFAULT ("vfio/type1: Catch zero from pin_user_pages_remote()",
 * the first patch of the huge-pfnmap series, v6.15).  Before, 6.12's
 * vaddr_get_pfns() returns that 0 and MAP_DMA returns 0 (success) for a
 * range it could not pin.
 */
#ifdef DMASIM_PROBED_GUP_ZERO_IS_EFAULT
#define DMASIM_IMPL_GUP_ZERO_IS_EFAULT DMASIM_PROBED_GUP_ZERO_IS_EFAULT
#else
#define DMASIM_IMPL_GUP_ZERO_IS_EFAULT DMASIM_IMPL_AT_LEAST(6, 15, 0)
#endif

/*
 * VFIO type1's vaddr_get_pfns() returns -EAGAIN from MAP_DMA when
 * fixup_user_fault() dropped the mmap lock and, looked up again, the
 * range is no longer a VM_PFNMAP VMA (munmapped, or replaced by ordinary
 * memory): follow_fault_pfn()'s -EAGAIN stays in ret (6.12 and mainline,
 * docs/kernel-bugs.md).  The project's core starts over from GUP instead
 * (-EFAULT for a hole, the new pages pinned for ordinary memory).
 */
#ifdef DMASIM_PROBED_MAP_DMA_EAGAIN_AFTER_LOCK_DROP
#define DMASIM_IMPL_MAP_DMA_EAGAIN_AFTER_LOCK_DROP DMASIM_PROBED_MAP_DMA_EAGAIN_AFTER_LOCK_DROP
#else
#define DMASIM_IMPL_MAP_DMA_EAGAIN_AFTER_LOCK_DROP DMASIM_IMPL_IS_UPSTREAM
#endif

/*
 * VFIO type1 maps and unmaps ranges that end at the top of the IOVA space
 * and reports overflowing ranges with -EOVERFLOW (Alex Mastro's "vfio:
 * handle DMA map/unmap up to the addressable limit": 6012379ede6a,
 * 1196f1f897d4, ef270ec44637, merged during the v6.18 release candidates,
 * October 2025).  Before (6.12): a range that wraps is refused with -EINVAL;
 * a range whose last byte is the last IOVA maps, but UNMAP_DMA of it
 * unmaps 0 bytes (the end, iova + size, wraps to 0) and leaves it mapped.
 */
#ifdef DMASIM_PROBED_IOVA_END_OVERFLOW_FIXES
#define DMASIM_IMPL_IOVA_END_OVERFLOW_FIXES DMASIM_PROBED_IOVA_END_OVERFLOW_FIXES
#else
#define DMASIM_IMPL_IOVA_END_OVERFLOW_FIXES DMASIM_IMPL_AT_LEAST(6, 18, 0)
#endif

/*
 * UNMAP_DMA by range reaches a DMA whose last byte is the last IOVA: the
 * third commit of that series (ef270ec44637) ends vfio_dma_do_unmap()'s
 * walk past the range's last byte instead of at iova + size, which wraps
 * to 0.  The first two commits bring the -EOVERFLOW checks above without
 * it: torvalds/linux at 1196f1f897d4 (the second) says -EOVERFLOW for a
 * wrapping range yet still unmaps 0 bytes of a DMA at the top
 * (type1-iova-end-wraps, known_bugs.def).
 */
#ifdef DMASIM_PROBED_UNMAP_REACHES_IOVA_END
#define DMASIM_IMPL_UNMAP_REACHES_IOVA_END DMASIM_PROBED_UNMAP_REACHES_IOVA_END
#else
#define DMASIM_IMPL_UNMAP_REACHES_IOVA_END DMASIM_IMPL_AT_LEAST(6, 18, 0)
#endif

/*
 * VFIO_IOMMU_GET_INFO leaks its capability chain (caps.buf) when the
 * IOVA-range capability cannot be built: vfio_iommu_type1_get_info()
 * returns vfio_iommu_iova_build_caps()'s -ENOMEM without freeing the chain,
 * which by then holds the migration and DMA-available capabilities.  The
 * allocation whose failure leaks is GET_INFO's third kmalloc-family call
 * (DMASIM_IMPL_GET_INFO_CAPS_LEAK_ALLOC), the kzalloc() of the IOVA ranges:
 * the two before it are the chain's own reallocations, and a failed one
 * frees the chain (vfio_info_cap_add()).  Linux 6.12 has the bug, and so
 * has mainline as read (linux-next 412dcb0 and bafe665, early 2026: the
 * function is unchanged), so every tree is expected to leak; the first
 * tree that does not fails sweep_type1_info until this line names it.
 * The project's core/ frees the chain on every path.
 */
#ifdef DMASIM_PROBED_GET_INFO_CAPS_LEAK
#define DMASIM_IMPL_GET_INFO_CAPS_LEAK DMASIM_PROBED_GET_INFO_CAPS_LEAK
#else
#define DMASIM_IMPL_GET_INFO_CAPS_LEAK DMASIM_IMPL_IS_UPSTREAM
#endif
#define DMASIM_IMPL_GET_INFO_CAPS_LEAK_ALLOC 3

/*
 * vfio_pin_pages_remote() tells "no run yet" by *pfn_base == 0: when a
 * run starts at pfn 0 (a PFNMAP of a BAR at physical address 0) and the
 * call goes on to refill its batch (more of the DMA follows), the refill
 * takes the new batch's first pfn as the run's base, the run ends there
 * and the caller maps the run's IOVA to that pfn instead of pfn 0.  Linux
 * 6.12 has it, and mainline as read (the test is unchanged since the
 * batching of 5.12, "if (!*pfn_base)").  core/ asks whether anything is
 * pinned yet.  Not probed: every upstream tree is expected to have it.
 */
#ifdef DMASIM_PROBED_PFN0_RUN_BASE_RESET
#define DMASIM_IMPL_PFN0_RUN_BASE_RESET DMASIM_PROBED_PFN0_RUN_BASE_RESET
#else
#define DMASIM_IMPL_PFN0_RUN_BASE_RESET DMASIM_IMPL_IS_UPSTREAM
#endif

/*
 * VFIO type1 misses a page an emulated device pinned by an IOVA inside it
 * (docs/kernel-bugs.md, "type1-unaligned-external-pin").  The VFIO core
 * passes vfio_pin_pages()'s IOVA on unaligned and type1 records the pin
 * under it, while the pin and unpin accounting of 6.12
 * (vfio_pin_pages_remote(), vfio_unpin_pages_remote()) looks pins up by
 * each page's own IOVA, exactly: the replay into the first IOMMU domain
 * charges the page a second time and the unmap takes back one charge.
 * core/ counts the pins inside each page's range (vpfn_pages()).  Not
 * probed: mainline's 2025 rework (vpfn_pages(), a range lookup behind
 * vfio_find_vpfn()) reads as counting them; a tree with it shows XPASS.
 */
#ifdef DMASIM_PROBED_UNALIGNED_VPFN_MISSED
#define DMASIM_IMPL_UNALIGNED_VPFN_MISSED DMASIM_PROBED_UNALIGNED_VPFN_MISSED
#else
#define DMASIM_IMPL_UNALIGNED_VPFN_MISSED DMASIM_IMPL_IS_UPSTREAM
#endif

/*
 * VFIO type1 writes past the end of every dirty bitmap when the container's
 * smallest IOMMU page size shrinks while dirty tracking is on
 * (docs/kernel-bugs.md, "type1 dirty bitmap overrun").  The bitmaps are
 * sized in pages of the size in force when tracking started; detaching the
 * group whose domain had the largest minimum page (a 16 KiB-granule SMMU
 * domain beside an emulated device, on a 4 KiB-page kernel) shrinks it, and
 * vfio_iommu_type1_detach_group()'s vfio_iommu_populate_bitmap_full() then
 * sets size >> new_shift bits in bitmaps of size >> old_shift.  Found by the
 * differential replay of mutated fuzz_type1 inputs (sim/slab.c's red zones
 * report it).  Linux 6.12 has it and so has mainline as read (linux-mm at
 * 7.0-rc5: the functions are unchanged), so every tree is expected to
 * overrun; the project's core/ resizes the bitmaps when the page size moves
 * (vfio_dma_bitmap_resize_all()).
 */
#ifdef DMASIM_PROBED_DIRTY_BITMAP_OVERRUN
#define DMASIM_IMPL_DIRTY_BITMAP_OVERRUN DMASIM_PROBED_DIRTY_BITMAP_OVERRUN
#else
#define DMASIM_IMPL_DIRTY_BITMAP_OVERRUN DMASIM_IMPL_IS_UPSTREAM
#endif

/*
 * VFIO type1 accepts the nesting container type (VFIO_TYPE1_NESTING_IOMMU,
 * 6: a v2 container) and reports the extension (35890f85573c "vfio: Remove
 * VFIO_TYPE1_NESTING_IOMMU", merged for v6.13: nesting moved to iommufd).
 * From 6.13 on, VFIO_CHECK_EXTENSION(6) is 0, so the VFIO core's
 * VFIO_SET_IOMMU never offers type 6 to type1.
 */
#ifdef DMASIM_PROBED_TYPE1_NESTING_TYPE
#define DMASIM_IMPL_TYPE1_NESTING_TYPE DMASIM_PROBED_TYPE1_NESTING_TYPE
#else
#define DMASIM_IMPL_TYPE1_NESTING_TYPE (!DMASIM_IMPL_AT_LEAST(6, 13, 0))
#endif

/*
 * type1's open() itself (what kapi_vfio_open() calls: it does not model
 * the core's CHECK_EXTENSION gate) takes type 6 as a v2 container in every
 * kernel tree: 6.12 as VFIO_TYPE1_NESTING_IOMMU, later trees as
 * __VFIO_RESERVED_TYPE1_NESTING_IOMMU (linux-next bafe665, linux-mm
 * 7.0-rc5).  The project's core/ refuses it with -EINVAL.
 */
#ifdef DMASIM_PROBED_TYPE1_OPEN_TAKES_NESTING_TYPE
#define DMASIM_IMPL_TYPE1_OPEN_TAKES_NESTING_TYPE DMASIM_PROBED_TYPE1_OPEN_TAKES_NESTING_TYPE
#else
#define DMASIM_IMPL_TYPE1_OPEN_TAKES_NESTING_TYPE DMASIM_IMPL_IS_UPSTREAM
#endif

/*
 * DMA_HEAP_IOCTL_ALLOC publishes the new dma-buf fd only once the result
 * has been copied back to userspace: it reserves the fd, copies the
 * request back, and installs the fd on success, or gives the fd and the
 * buffer back when copy_to_user() fails (-EFAULT, nothing left).  The
 * project's core/ does this, and so does Debian's 6.12.117 dma-heap.c.
 * Mainline as read does not: torvalds/linux at 6.2 and linux-mm at
 * 7.0-rc5 (5a05122) allocate the buffer and install its fd with
 * dma_buf_fd() inside the ioctl, then copy the result out; a failed copy
 * returns -EFAULT with the buffer allocated and its fd open, an fd the
 * caller was never told about (closed when the process exits).  Trees
 * after 6.12 are expected to do that: a suite that makes the copy fail
 * closes the stray fd as a process exit would, then checks that nothing
 * else is left.
 */
#ifdef DMASIM_PROBED_HEAP_ALLOC_FD_AFTER_COPY_OUT
#define DMASIM_IMPL_HEAP_ALLOC_FD_AFTER_COPY_OUT DMASIM_PROBED_HEAP_ALLOC_FD_AFTER_COPY_OUT
#else
#define DMASIM_IMPL_HEAP_ALLOC_FD_AFTER_COPY_OUT \
	(!DMASIM_IMPL_IS_UPSTREAM || !DMASIM_IMPL_AT_LEAST(6, 13, 0))
#endif

/*
 * VFIO type1 takes a new domain's MSI cookie (a software MSI window)
 * before it replays the existing DMAs into the domain.  No kernel tree
 * does (6.12 and mainline replay first): there, if the cookie fails after
 * the replay pinned every DMA for the container's first IOMMU domain, the
 * attach fails with the pages still pinned and charged and every DMA
 * marked mapped, and no later unmap unpins them.  The project's core
 * fixes this (tests/test_type1_groups.c).
 */
#ifdef DMASIM_PROBED_MSI_COOKIE_BEFORE_REPLAY
#define DMASIM_IMPL_MSI_COOKIE_BEFORE_REPLAY DMASIM_PROBED_MSI_COOKIE_BEFORE_REPLAY
#else
#define DMASIM_IMPL_MSI_COOKIE_BEFORE_REPLAY (!DMASIM_IMPL_IS_UPSTREAM)
#endif

/*
 * VFIO type1 probes a new domain for fine-grained superpages
 * (vfio_test_domain_fgsp(): one test map of two pages and an unmap of
 * one) when a group attaches, before the replay: the new domain's first
 * map_pages call is that probe.  6.12 and the project's core/ do; later
 * mainline dropped the probe with its fgsp flag, so the replay's maps are
 * the first calls.  Fallback when the probe cannot read the tree: present.
 */
#ifdef DMASIM_PROBED_TYPE1_FGSP_PROBE
#define DMASIM_IMPL_TYPE1_FGSP_PROBE DMASIM_PROBED_TYPE1_FGSP_PROBE
#else
#define DMASIM_IMPL_TYPE1_FGSP_PROBE 1
#endif

/*
 * The system heap's map_dma_buf maps the buffer's blocks (up to 2 MiB) as
 * they are, whatever the importer's dma_get_max_seg_size(): an importer
 * with the default 64 KiB limit gets entries over it, which the DMA-API
 * checks report (known bug dma-heap-blocks-over-importer-max-seg).
 * core/ and 6.12 through 7.0-era mainline all do; no tree is known to
 * split the blocks, so no probe decides it yet.
 */
#define DMASIM_IMPL_HEAP_BLOCKS_OVER_IMPORTER_MAX_SEG 1

/*
 * The kernel faults pfnmaps (vfio-pci BARs) in with PMD and PUD leaves, and
 * VFIO type1 reads them through follow_pfnmap_start() (huge pfnmap faults
 * and the follow_pfnmap API: 6.12).  Before, in 6.1, type1's
 * follow_pte() walks to PTEs only and vfio-pci's fault handler installs
 * PTEs: the simulated fault handlers then install PTEs only, whatever leaf
 * a mapping asks for (kapi_mm_map()'s max_leaf, kapi/kapi_impl.c), and a
 * BAR costs one IOMMU mapping per page.  The project's core/ has them.
 */
#ifdef DMASIM_PROBED_PFNMAP_HUGE_LEAVES
#define DMASIM_IMPL_PFNMAP_HUGE_LEAVES DMASIM_PROBED_PFNMAP_HUGE_LEAVES
#else
#define DMASIM_IMPL_PFNMAP_HUGE_LEAVES DMASIM_IMPL_AT_LEAST(6, 12, 0)
#endif

/*
 * VFIO type1's attach fails with -EIO when no IOMMU domain can be
 * allocated, whatever the cause (6.1: iommu_domain_alloc() returns NULL).
 * From 6.11 iommu_paging_domain_alloc() returns an ERR_PTR and attach
 * passes that errno on (-ENOMEM for a failed allocation), as the project's
 * core does.  The sweeps accept -EIO where this holds.
 */
#ifdef DMASIM_PROBED_DOMAIN_ALLOC_FAILURE_IS_EIO
#define DMASIM_IMPL_DOMAIN_ALLOC_FAILURE_IS_EIO DMASIM_PROBED_DOMAIN_ALLOC_FAILURE_IS_EIO
#else
#define DMASIM_IMPL_DOMAIN_ALLOC_FAILURE_IS_EIO (!DMASIM_IMPL_AT_LEAST(6, 11, 0))
#endif

#endif
