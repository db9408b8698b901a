// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dma-buf system heap end to end, as userspace and an importing driver
 * see it: open /dev/dma_heap/system, DMA_HEAP_IOCTL_ALLOC, attach a device,
 * map through its IOMMU, vmap, close.  Run once per implementation (the
 * project's heap with its "orders" parameter, and in upstream mode the
 * kernel tree's heap with its fixed orders).
 *
 * Every scenario starts from a fresh machine and ends by checking that the
 * kernel gave everything back: slab objects, buddy pages, fds, files, IOVA
 * and IOMMU leaves.
 *
 * Physical memory of the fresh machines (x86-like, see sim_mem.h):
 *
 *   0                1 GiB               4 GiB (= 3 GiB RAM + 1 GiB hole)
 *   |---- RAM -------|  ...  |-- hole --|---- RAM above 4 GiB ----|
 *
 * On a fresh machine every free block is as large as the buddy allocator
 * allows (order 10, 4 MiB with 4 KiB pages), so each allocation order the
 * heap tries is available: the layouts below are exact.  Sizes are in
 * pages and chunk orders (ORDER()), so they say what the kernel does at
 * every PAGE_SIZE; the diagrams show them with 4 KiB pages.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/impl.h>
#include <dmasim/kapi.h>
#include <dmasim/kapi_heap.h>
#include <dmasim/kapi_iommu.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/sim.h>

#include "known_bug.h"
#include "shared.h"

/*
 * The heap's orders are kernel page orders: a chunk of order n is
 * PAGE << n bytes (order 9: 2 MiB with 4 KiB pages, 32 MiB with 64 KiB).
 * ONE_OF_EACH is one chunk of each order of 9,8,4,0: with 4 KiB pages
 * 3 MiB + 68 KiB, 785 pages at every page size.
 */
#define ORDER(n)	((unsigned long long)PAGE << (n))
#define ONE_OF_EACH	(ORDER(9) + ORDER(8) + ORDER(4) + PAGE)

static int heap_fd = -1;

/*
 * A fresh machine with the system heap open: what every scenario must
 * give back (assert_nothing_left_behind()) is the state right after.
 */
static void given_a_machine_with_the_system_heap(unsigned long long ram)
{
	given_a_booted_machine(&(struct sim_config){
		.ram_bytes = ram, .nr_cpus = 1, .seed = 1,
	});
	heap_fd = kapi_heap_open("system");
	assert_true(heap_fd >= 0);
	leak_snapshot_take(&at_start);
}

static int teardown(void **state)
{
	if (heap_fd >= 0)
		kapi_close(heap_fd);
	heap_fd = -1;
	kapi_task_set_fatal_signal(0);
	sim_machine_destroy();
	return 0;
}

/* The project's heap takes an orders list; the kernel tree's has fixed orders. */
static int heap_uses_orders(const char *orders)
{
	if (!DMASIM_IMPL_HEAP_ORDERS_PARAM)
		return !strcmp(orders, "8,4,0");
	assert_int_equal(kapi_param_set("system_heap.orders", orders), 0);
	return 1;
}

static int allocate(unsigned long long len)
{
	return kapi_heap_alloc(heap_fd, len, KAPI_O_RDWR | KAPI_O_CLOEXEC, 0);
}

/*
 * After an ALLOC whose result could not be copied back: a tree that
 * installs the fd first (known bug dma-heap-alloc-fd-before-copy-out) left
 * the buffer's fd open without telling the caller.  Close it as the
 * process's exit would, so the checks that follow see only real leaks.
 * Returns how many such fds were open (0 when the tree publishes the fd
 * after the copy).
 */
static int close_the_fd_the_caller_was_never_given(void)
{
	int closed = 0;

	for (int fd = 0; fd < 1024; fd++) {
		if (fd == heap_fd ||
		    kapi_dmabuf_begin_cpu_access(fd, KAPI_DMA_BIDIRECTIONAL))
			continue;
		kapi_dmabuf_end_cpu_access(fd, KAPI_DMA_BIDIRECTIONAL);
		assert_int_equal(kapi_close(fd), 0);
		closed++;
	}
	return closed;
}

static void heap_layout_of(int buf_fd, struct kapi_heap_layout *layout)
{
	assert_int_equal(kapi_dmabuf_layout(buf_fd, layout), 0);
}

/* ------------------------------------------------------------------------
 * Layouts.
 */

/* Each length is built from the largest allowed blocks, exactly. */
static void test_chunk_layouts_on_a_fresh_machine(void **state)
{
	static const struct {
		const char *orders;
		unsigned long long len;
		unsigned long o9, o8, o4, o0;
	} cases[] = {
		{ "9,8,4,0", PAGE,			0, 0, 0, 1 },
		{ "9,8,4,0", PAGE + PAGE / 4,		0, 0, 0, 2 },	/* page-aligned up */
		{ "9,8,4,0", ORDER(4),			0, 0, 1, 0 },
		{ "9,8,4,0", ORDER(4) + PAGE,		0, 0, 1, 1 },
		{ "9,8,4,0", ORDER(8),			0, 1, 0, 0 },
		{ "9,8,4,0", ORDER(9),			1, 0, 0, 0 },
		{ "9,8,4,0", ONE_OF_EACH,		1, 1, 1, 1 },
		{ "9,8,4,0", 7 * ORDER(8) - PAGE,	3, 0, 15, 15 },
		{ "8,4,0",   ORDER(9),			0, 2, 0, 0 },
		{ "8,4,0",   ORDER(8) + ORDER(4) + PAGE, 0, 1, 1, 1 },
		{ "8,4,0",   15 * ORDER(4),		0, 0, 15, 0 },
		{ "4,0",     ORDER(8),			0, 0, 16, 0 },
		{ "0",       ORDER(4),			0, 0, 0, 16 },
	};

	given_a_machine_with_the_system_heap(2 * GiB);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kapi_heap_layout layout;
		int fd;

		if (!heap_uses_orders(cases[i].orders))
			continue;
		fd = allocate(cases[i].len);
		assert_true(fd >= 0);
		heap_layout_of(fd, &layout);
		assert_int_equal(layout.bytes, (cases[i].len + PAGE - 1) & ~(PAGE - 1));
		assert_int_equal(layout.chunks_by_order[9], cases[i].o9);
		assert_int_equal(layout.chunks_by_order[8], cases[i].o8);
		assert_int_equal(layout.chunks_by_order[4], cases[i].o4);
		assert_int_equal(layout.chunks_by_order[0], cases[i].o0);
		assert_int_equal(layout.nr_chunks, cases[i].o9 + cases[i].o8 +
				 cases[i].o4 + cases[i].o0);
		assert_int_equal(kapi_close(fd), 0);
		assert_nothing_left_behind();
	}
	heap_uses_orders("9,8,4,0");
}

/*
 * Before any test sets a parameter, the heap builds a buffer from its
 * default orders: 9,8,4,0 for the project's heap (one block of each for
 * ONE_OF_EACH), 8,4,0 fixed in a kernel tree.  Must run
 * first in the process: every later test sets the orders.
 */
static void test_default_orders_build_the_buffer(void **state)
{
	const int pmd_order = DMASIM_IMPL_HEAP_ORDERS_PARAM;
	struct kapi_heap_layout layout;
	int fd;

	given_a_machine_with_the_system_heap(2 * GiB);
	fd = allocate(ONE_OF_EACH);
	assert_true(fd >= 0);
	heap_layout_of(fd, &layout);
	assert_int_equal(layout.chunks_by_order[9], pmd_order ? 1 : 0);
	assert_int_equal(layout.chunks_by_order[8], pmd_order ? 1 : 3);
	assert_int_equal(layout.chunks_by_order[4], 1);
	assert_int_equal(layout.chunks_by_order[0], 1);
	assert_int_equal(layout.nr_chunks, pmd_order ? 4 : 5);
	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

/*
 * Once the largest order fails and the heap falls back to a smaller one,
 * it never asks for the larger order again within that buffer: 3 x
 * ORDER(8) after a failed ORDER(9) block is three ORDER(8) blocks (6.12,
 * whose largest order is 8: 48 blocks of ORDER(4)).
 */
static void test_no_larger_block_after_a_fallback(void **state)
{
	struct kapi_heap_layout layout;
	int fd;

	given_a_machine_with_the_system_heap(2 * GiB);
	heap_uses_orders("9,8,4,0");
	fail_nth_call_of("shim/mm/alloc_pages", 0);
	fd = allocate(3 * ORDER(8));
	assert_int_equal(stop_failing("shim/mm/alloc_pages") > 0, 1);
	assert_true(fd >= 0);
	heap_layout_of(fd, &layout);
	assert_int_equal(layout.chunks_by_order[9], 0);
	if (DMASIM_IMPL_HEAP_ORDERS_PARAM) {
		assert_int_equal(layout.chunks_by_order[8], 3);
		assert_int_equal(layout.nr_chunks, 3);
	} else {
		assert_int_equal(layout.chunks_by_order[8], 0);
		assert_int_equal(layout.chunks_by_order[4], 48);
		assert_int_equal(layout.nr_chunks, 48);
	}
	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

/*
 * 1 GiB with orders 9,8,4,0 on a fresh 4 GiB machine is 512 2 MiB blocks
 * (1 GiB / ORDER(9): 32 blocks of 32 MiB with 64 KiB pages), and behind an
 * intel-sl IOMMU every 2 MiB window of its IOVA range is mapped by one
 * leaf of 2 MiB or more:
 *
 *   IOVA  [w0: 2M leaf][w1: 2M leaf] ... [w511: 2M leaf]
 *   phys   block 0      block 1           block 511   (any order in memory)
 */
static void test_1g_with_pmd_order_is_512_superpages_on_intel_sl(void **state)
{
	struct kapi_heap_layout layout;
	struct kapi_iommu_cover cover;
	struct kapi_attach *attach;
	struct sim_iommu_domain *dom;
	struct kapi_dev *dev;
	const unsigned long long blocks = 1 * GiB / ORDER(9);
	int fd, nents;

	given_a_machine_with_the_system_heap(4 * GiB);
	if (!heap_uses_orders("9,8,4,0"))
		skip();
	fd = allocate(1 * GiB);
	assert_true(fd >= 0);
	heap_layout_of(fd, &layout);
	assert_int_equal(layout.chunks_by_order[9], blocks);
	assert_int_equal(layout.nr_chunks, blocks);

	assert_int_equal(kapi_dev_create(SIM_IOMMU_INTEL_SL, ANY_SEGMENT_SIZE, &dev), 0);
	dom = kapi_dev_sim_domain(dev);
	assert_non_null(dom);
	assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
	nents = kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL);
	/*
	 * One IOVA-contiguous DMA segment: dma-iommu's "max_len - cur_len"
	 * is unsigned, so once a segment exceeds the default 64 KiB limit
	 * every later entry joins it (the kernel's arithmetic, kept).
	 */
	assert_int_equal(nents, 1);
	assert_int_equal(kapi_attach_nr_entries(attach), blocks);
	assert_int_equal(kapi_attach_iommu_cover(attach, &cover), 0);
	assert_int_equal(cover.iova_size, 1 * GiB);
	assert_int_equal(cover.windows_2m, 512);
	assert_int_equal(cover.windows_2m_superpage, 512);
	/* 2 MiB leaves, or 1 GiB ones where the blocks happen to line up. */
	assert_int_equal(cover.leaves_by_shift[12], 0);
	assert_int_equal(cover.leaves_by_shift[21] * 2 * MiB +
			 cover.leaves_by_shift[30] * 1 * GiB, 1 * GiB);

	kapi_dmabuf_unmap(attach);
	assert_int_equal(sim_iommu_nr_leaves_total(dom), 0);
	assert_int_equal(sim_iova_nr_allocated(dom), 0);
	kapi_dmabuf_detach(attach);
	kapi_dev_destroy(dev);

	/*
	 * A device whose segment limit is one block (2 MiB) sees one segment
	 * per block.  (A smaller limit would not split them: a block longer
	 * than the limit makes "max_len - cur_len" wrap, as above.)
	 */
	assert_int_equal(kapi_dev_create(SIM_IOMMU_INTEL_SL, ORDER(9), &dev), 0);
	assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
	assert_int_equal(kapi_dmabuf_map(attach, KAPI_DMA_TO_DEVICE), blocks);
	assert_int_equal(kapi_attach_iommu_cover(attach, &cover), 0);
	assert_int_equal(cover.windows_2m_superpage, 512);
	kapi_dmabuf_detach(attach);
	kapi_dev_destroy(dev);

	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

/*
 * A naturally aligned block of bytes mapped with the largest page of the
 * format that fits it: that page's shift, and how many of them it takes.
 */
static int largest_leaf_shift_for_block(unsigned long long pgsize_bitmap,
					unsigned long long block)
{
	int shift = 63;

	while (!(pgsize_bitmap >> shift & 1) || (1ULL << shift) > block)
		shift--;
	return shift;
}

/*
 * One block of each order, laid back to back in IOVA: every block is
 * naturally aligned in IOVA and in physical memory, so each format maps it
 * with its largest page that fits, whatever the blocks' physical order.
 *
 *   IOVA  0          2M        3M     3M+64K  3M+68K        (4 KiB pages)
 *         [ 2M block ][ 1M block ][64K][4K]
 *   intel-sl, amd-v2, arm-lpae-4k:  2M | 256 x 4K | 16 x 4K | 4K
 *   amd-v1 (every power of two):    2M | 1M       | 64K     | 4K
 *
 * With 64 KiB pages the blocks are 32M, 16M, 1M and 64K: intel-sl maps
 * them with 16 + 8 2M leaves and 256 + 16 4K ones, amd-v1 with one each.
 */
static void test_leaf_sizes_by_iommu_format(void **state)
{
	static const enum sim_iommu_format_id formats[] = {
		SIM_IOMMU_INTEL_SL, SIM_IOMMU_AMD_V2, SIM_IOMMU_ARM_LPAE_4K,
		SIM_IOMMU_AMD_V1,
	};
	static const unsigned long long blocks[] = {
		ORDER(9), ORDER(8), ORDER(4), PAGE,
	};
	unsigned long long windows_superpage = 0;
	int fd;

	for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++)
		if (blocks[b] >= 2 * MiB)
			windows_superpage += blocks[b] / (2 * MiB);
	given_a_machine_with_the_system_heap(2 * GiB);
	if (!heap_uses_orders("9,8,4,0"))
		skip();
	fd = allocate(ONE_OF_EACH);
	assert_true(fd >= 0);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		unsigned long long bitmap = sim_iommu_format(formats[i])->pgsize_bitmap;
		unsigned long long want[64] = { 0 }, nr_leaves = 0;
		struct kapi_iommu_cover cover;
		struct kapi_attach *attach;
		struct kapi_dev *dev;

		for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
			int shift = largest_leaf_shift_for_block(bitmap, blocks[b]);

			want[shift] += blocks[b] >> shift;
			nr_leaves += blocks[b] >> shift;
		}
		assert_int_equal(kapi_dev_create(formats[i], ANY_SEGMENT_SIZE, &dev), 0);
		assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
		assert_int_equal(kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL), 1);
		assert_int_equal(kapi_attach_iommu_cover(attach, &cover), 0);
		assert_int_equal(cover.iova_size, ONE_OF_EACH);
		for (int shift = 0; shift < 64; shift++)
			assert_int_equal(cover.leaves_by_shift[shift], want[shift]);
		assert_int_equal(cover.nr_leaves, nr_leaves);
		assert_int_equal(cover.windows_2m, ONE_OF_EACH / (2 * MiB));
		assert_int_equal(cover.windows_2m_superpage, windows_superpage);
		kapi_dmabuf_detach(attach);
		kapi_dev_destroy(dev);
	}
	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

/*
 * amd-v1 has a 64-bit IOVA space and the allocator works top-down, so a
 * 4 MiB buffer lands in the last 4 MiB below 2^64: its end wraps to 0, and
 * unmapping must still find and clear the whole range.
 *
 *   IOVA  2^64 - 4M                         2^64 (= 0)
 *         [ 4 MiB of blocks .................. ]
 */
static void test_buffer_ending_at_the_top_of_iova_space_unmaps(void **state)
{
	struct kapi_iommu_cover cover;
	struct kapi_attach *attach;
	struct sim_iommu_domain *dom;
	struct kapi_dev *dev;
	int fd;

	given_a_machine_with_the_system_heap(2 * GiB);
	fd = allocate(4 * MiB);
	assert_true(fd >= 0);
	assert_int_equal(kapi_dev_create(SIM_IOMMU_AMD_V1, ANY_SEGMENT_SIZE, &dev), 0);
	dom = kapi_dev_sim_domain(dev);
	assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
	assert_int_equal(kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL), 1);
	assert_int_equal(kapi_attach_iommu_cover(attach, &cover), 0);
	assert_int_equal(cover.iova_start, 0ULL - 4 * MiB);
	assert_int_equal(cover.iova_size, 4 * MiB);
	assert_int_equal(cover.windows_2m, 2);
	assert_int_equal(cover.windows_2m_superpage, 2);
	kapi_dmabuf_unmap(attach);
	assert_int_equal(sim_iommu_nr_leaves_total(dom), 0);
	assert_int_equal(sim_iova_nr_allocated(dom), 0);
	kapi_dmabuf_detach(attach);
	kapi_dev_destroy(dev);
	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

/*
 * An importer that keeps the kernel's default 64 KiB segment limit (no
 * dma_set_max_seg_size()) gets the heap's blocks as they are: a 2 MiB
 * buffer's 1-2 MiB blocks are entries over its limit, and dma-iommu's
 * unsigned "max_len - cur_len" merges past the limit too.  The DMA-API
 * checks report it (known bug dma-heap-blocks-over-importer-max-seg).
 */
static void test_importer_with_the_default_segment_limit(void **state)
{
	struct kapi_attach *attach;
	struct kapi_sg_entry seg;
	unsigned long long warns;
	struct kapi_dev *dev;
	int fd, nents;

	given_a_machine_with_the_system_heap(1 * GiB);
	fd = allocate(2 * MiB);
	assert_true(fd >= 0);
	assert_int_equal(kapi_dev_create(SIM_IOMMU_INTEL_SL, 0, &dev), 0);
	assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
	warns = sim_kernel_warnings();
	nents = kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL);
	assert_true(nents > 0);
	if (!expect_known_bug(HEAP_BLOCKS_OVER_IMPORTER_MAX_SEG,
			      sim_kernel_warnings() == warns)) {
		/* One report, for the first entry; one 2 MiB segment. */
		assert_true(strstr(sim_klog_last(), "longer than device claims to support"));
		expect_warnings(1);
		assert_int_equal(nents, 1);
		assert_int_equal(kapi_attach_sg_entry(attach, 0, &seg), 0);
		assert_int_equal(seg.dma_length, 2 * MiB);
	}
	kapi_dmabuf_unmap(attach);
	kapi_dmabuf_detach(attach);
	kapi_dev_destroy(dev);
	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

/*
 * Mainline's orders make the same 1 GiB out of 1024 1 MiB blocks
 * (1 GiB / ORDER(8)); leaves are in the IOMMU's own 4 KiB granule.
 */
static void test_1g_with_mainline_orders_is_1024_blocks(void **state)
{
	struct kapi_heap_layout layout;
	struct kapi_iommu_cover cover;
	struct kapi_attach *attach;
	struct kapi_dev *dev;
	int fd;

	given_a_machine_with_the_system_heap(4 * GiB);
	assert_true(heap_uses_orders("8,4,0"));
	fd = allocate(1 * GiB);
	assert_true(fd >= 0);
	heap_layout_of(fd, &layout);
	assert_int_equal(layout.chunks_by_order[8], 1 * GiB / ORDER(8));
	assert_int_equal(layout.nr_chunks, 1 * GiB / ORDER(8));

	assert_int_equal(kapi_dev_create(SIM_IOMMU_INTEL_SL, ANY_SEGMENT_SIZE, &dev), 0);
	assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
	assert_int_equal(kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL), 1);
	assert_int_equal(kapi_attach_iommu_cover(attach, &cover), 0);
	assert_int_equal(cover.windows_2m, 512);
	/* Leaves: 2 MiB or more where blocks happen to line up, else 4 KiB. */
	assert_int_equal(cover.leaves_by_shift[30] * 1 * GiB +
			 cover.leaves_by_shift[21] * 2 * MiB +
			 cover.leaves_by_shift[12] * SZ_4K, 1 * GiB);
	assert_true(cover.windows_2m_superpage <= cover.windows_2m);
	kapi_dmabuf_detach(attach);
	kapi_dev_destroy(dev);
	assert_int_equal(kapi_close(fd), 0);
	heap_uses_orders("9,8,4,0");
	assert_nothing_left_behind();
}

/*
 * Order-0 blocks behind an IOMMU join into DMA segments up to the device's
 * limit of 16 pages (64 KiB, the default, with 4 KiB pages) (nents <
 * orig_nents); closing still frees every page.  15 pages (60 KiB) is
 * below every order but 0, so both implementations build it from 15 pages.
 *
 *   entries  [4K][4K]...[4K]  x 15   (orig_nents 15)
 *   IOVA     [  60K segment   ]      (nents 1)
 */
static void test_release_frees_every_page_when_segments_merged(void **state)
{
	struct kapi_attach *attach;
	struct kapi_sg_entry e;
	struct kapi_dev *dev;
	int fd;

	given_a_machine_with_the_system_heap(2 * GiB);
	fd = allocate(15 * PAGE);
	assert_true(fd >= 0);
	assert_int_equal(kapi_dev_create(SIM_IOMMU_INTEL_SL, 16 * PAGE, &dev), 0);
	assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
	assert_int_equal(kapi_dmabuf_map(attach, KAPI_DMA_TO_DEVICE), 1);
	assert_int_equal(kapi_attach_nr_entries(attach), 15);
	assert_int_equal(kapi_attach_sg_entry(attach, 0, &e), 0);
	assert_int_equal(e.dma_length, 15 * PAGE);
	assert_int_equal(e.length, PAGE);
	assert_int_equal(kapi_attach_sg_entry(attach, 1, &e), 0);
	assert_int_equal(e.dma_length, 0);

	/* The dma-buf outlives the fd while the importer holds it. */
	assert_int_equal(kapi_close(fd), 0);
	assert_true(sim_buddy_nr_free() < at_start.buddy_free);
	kapi_dmabuf_detach(attach);
	kapi_dev_destroy(dev);
	assert_nothing_left_behind();
}

/* A device without an IOMMU gets one segment per block, at its address. */
static void test_direct_mapping_is_one_segment_per_block(void **state)
{
	struct kapi_attach *attach;
	struct kapi_sg_entry e;
	struct kapi_dev *dev;
	unsigned int i;
	int fd;

	given_a_machine_with_the_system_heap(2 * GiB);
	heap_uses_orders("8,4,0");
	fd = allocate(ORDER(8) + ORDER(4) + PAGE);
	assert_true(fd >= 0);
	assert_int_equal(kapi_dev_create(KAPI_DEV_NO_IOMMU, ANY_SEGMENT_SIZE, &dev), 0);
	assert_null(kapi_dev_sim_domain(dev));
	assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
	assert_int_equal(kapi_dmabuf_map(attach, KAPI_DMA_FROM_DEVICE), 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(kapi_attach_sg_entry(attach, i, &e), 0);
		assert_int_equal(e.dma_address,
				 (unsigned long long)e.pfn << SIM_PAGE_SHIFT);
		assert_int_equal(e.dma_length, e.length);
	}
	assert_int_equal(kapi_attach_sg_entry(attach, 3, &e), -EINVAL);
	kapi_dmabuf_detach(attach);
	kapi_dev_destroy(dev);
	assert_int_equal(kapi_close(fd), 0);
	heap_uses_orders("9,8,4,0");
	assert_nothing_left_behind();
}

/*
 * A buffer table longer than one chunk (1 GiB of order-8 blocks: with
 * 4 KiB pages, 1024 entries of 1 MiB, a chain of chunks of
 * SG_MAX_SINGLE_ALLOC = 128 entries) maps through dma-direct entry by
 * entry across the links: one segment per entry, each at its own block.
 *
 *   entries  [1M] ... [1M]|link|-> [1M] ... [1M]|link|-> ... [1M](end)
 *   bus      each entry's segment = its block's physical address
 */
static void test_chained_table_maps_every_entry_directly(void **state)
{
	const unsigned long long block = 256ULL << SIM_PAGE_SHIFT;
	const unsigned int n = 1 * GiB / block;
	unsigned long long bytes = 0;
	struct kapi_attach *attach;
	struct kapi_sg_entry e;
	struct kapi_dev *dev;
	unsigned int i;
	int fd;

	given_a_machine_with_the_system_heap(4 * GiB);
	assert_true(heap_uses_orders("8,4,0"));
	fd = allocate(1 * GiB);
	assert_true(fd >= 0);
	assert_int_equal(kapi_dev_create(KAPI_DEV_NO_IOMMU, ANY_SEGMENT_SIZE, &dev), 0);
	assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
	assert_int_equal(kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL), n);
	assert_int_equal(kapi_attach_nr_entries(attach), n);
	for (i = 0; i < n; i++) {
		assert_int_equal(kapi_attach_sg_entry(attach, i, &e), 0);
		assert_int_equal(e.length, block);
		assert_int_equal(e.dma_address,
				 (unsigned long long)e.pfn << SIM_PAGE_SHIFT);
		assert_int_equal(e.dma_length, e.length);
		bytes += e.dma_length;
	}
	assert_int_equal(bytes, 1 * GiB);
	assert_int_equal(kapi_attach_sg_entry(attach, n, &e), -EINVAL);
	kapi_dmabuf_detach(attach);
	kapi_dev_destroy(dev);
	assert_int_equal(kapi_close(fd), 0);
	heap_uses_orders("9,8,4,0");
	assert_nothing_left_behind();
}

/* ------------------------------------------------------------------------
 * CPU access.
 */

static unsigned char *direct_map_byte(const struct kapi_sg_entry *e,
				      unsigned long long off)
{
	sim_phys_t pa = ((sim_phys_t)e->pfn << SIM_PAGE_SHIFT) + e->offset + off;

	return (unsigned char *)sim_phys_to_virt(pa);
}

/*
 * The vmap is the buffer's pages in order: a byte written at offset X of
 * the vmap is the byte at X - (start of its block) in that block's page
 * frames, and the other way round.
 */
static void test_vmap_aliases_the_blocks(void **state)
{
	struct kapi_attach *attach;
	struct kapi_dev *dev;
	unsigned long long off = 0;
	unsigned char *vaddr;
	void *again;
	unsigned int i;
	int fd;

	given_a_machine_with_the_system_heap(2 * GiB);
	fd = allocate(ONE_OF_EACH);
	assert_true(fd >= 0);
	assert_int_equal(kapi_dmabuf_vmap(fd, (void **)&vaddr), 0);
	assert_non_null(vaddr);
	/* A second vmap shares the first. */
	assert_int_equal(kapi_dmabuf_vmap(fd, &again), 0);
	assert_ptr_equal(again, vaddr);
	assert_int_equal(kapi_dmabuf_vunmap(fd, again), 0);

	assert_int_equal(kapi_dev_create(KAPI_DEV_NO_IOMMU, ANY_SEGMENT_SIZE, &dev), 0);
	assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
	assert_true(kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL) > 0);
	assert_int_equal(kapi_dmabuf_begin_cpu_access(fd, KAPI_DMA_BIDIRECTIONAL), 0);
	for (i = 0; i < kapi_attach_nr_entries(attach); i++) {
		struct kapi_sg_entry e;
		unsigned long long last;

		assert_int_equal(kapi_attach_sg_entry(attach, i, &e), 0);
		last = e.length - 1;
		/* Freshly allocated memory is zeroed. */
		assert_int_equal(vaddr[off], 0);
		vaddr[off] = 0xa0 + i;
		vaddr[off + last] = 0x50 + i;
		assert_int_equal(*direct_map_byte(&e, 0), 0xa0 + i);
		assert_int_equal(*direct_map_byte(&e, last), 0x50 + i);
		*direct_map_byte(&e, last / 2) = 0x33;
		assert_int_equal(vaddr[off + last / 2], 0x33);
		off += e.length;
	}
	assert_int_equal(off, ONE_OF_EACH);
	assert_int_equal(kapi_dmabuf_end_cpu_access(fd, KAPI_DMA_BIDIRECTIONAL), 0);
	assert_int_equal(kapi_dmabuf_sync(fd, KAPI_DMA_BUF_SYNC_START |
					  KAPI_DMA_BUF_SYNC_RW), 0);
	assert_int_equal(kapi_dmabuf_sync(fd, KAPI_DMA_BUF_SYNC_END |
					  KAPI_DMA_BUF_SYNC_READ), 0);
	assert_int_equal(kapi_dmabuf_sync(fd, KAPI_DMA_BUF_SYNC_END), -EINVAL);
	assert_int_equal(kapi_dmabuf_sync(fd, 1ULL << 7), -EINVAL);

	kapi_dmabuf_detach(attach);
	kapi_dev_destroy(dev);
	assert_int_equal(kapi_dmabuf_vunmap(fd, vaddr), 0);
	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

static unsigned long long sg_segments_walked(void)
{
	return sim_counters.c[SIM_CNT_SG_SEGMENT];
}

/*
 * CPU access brackets maintain the buffer's kernel mapping while it is
 * vmapped, once each (begin invalidates, end writes back), and never
 * touch a mapping it does not have: none before the vmap, none after
 * the vunmap (the simulator WARNs on a range no live vmap covers).
 */
static void test_cpu_access_maintains_the_vmap_only_while_it_exists(void **state)
{
	static const struct {
		const char *what;
		int vmapped;		/* vmap before the bracket */
		int vunmapped;		/* and vunmap again */
		unsigned long long calls;
	} cases[] = {
		{ "never vmapped", 0, 0, 0 },
		{ "vmapped", 1, 0, 2 },
		{ "vmapped then vunmapped", 1, 1, 0 },
	};

	given_a_machine_with_the_system_heap(1 * GiB);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int fd = allocate(ORDER(4) + PAGE);
		unsigned long long before;
		void *vaddr = NULL;

		print_message("%s\n", cases[i].what);
		assert_true(fd >= 0);
		if (cases[i].vmapped)
			assert_int_equal(kapi_dmabuf_vmap(fd, &vaddr), 0);
		if (cases[i].vunmapped)
			assert_int_equal(kapi_dmabuf_vunmap(fd, vaddr), 0);
		before = sim_vmap_maintenance_calls();
		assert_int_equal(kapi_dmabuf_begin_cpu_access(fd,
				KAPI_DMA_FROM_DEVICE), 0);
		assert_int_equal(sim_vmap_maintenance_calls(),
				 before + cases[i].calls / 2);
		assert_int_equal(kapi_dmabuf_end_cpu_access(fd,
				KAPI_DMA_TO_DEVICE), 0);
		assert_int_equal(sim_vmap_maintenance_calls(),
				 before + cases[i].calls);
		if (cases[i].vmapped && !cases[i].vunmapped)
			assert_int_equal(kapi_dmabuf_vunmap(fd, vaddr), 0);
		assert_int_equal(kapi_close(fd), 0);
		assert_nothing_left_behind();
	}
}

/*
 * The importer's map after dma_buf_vunmap(): kept while another vmap of
 * the buffer is still in use, cleared by the last one.
 */
static void test_the_last_vunmap_clears_the_importers_map(void **state)
{
	void *first, *second;
	int fd;

	given_a_machine_with_the_system_heap(1 * GiB);
	fd = allocate(ORDER(4));
	assert_true(fd >= 0);
	assert_int_equal(kapi_dmabuf_vmap(fd, &first), 0);
	assert_int_equal(kapi_dmabuf_vmap(fd, &second), 0);
	assert_ptr_equal(first, second);
	assert_int_equal(kapi_dmabuf_vunmap_map(fd, &second), 0);
	assert_ptr_equal(second, first);
	assert_int_equal(kapi_dmabuf_vunmap_map(fd, &first), 0);
	assert_null(first);
	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

/* A buffer is exported under its heap's name (fdinfo's exp_name). */
static void test_buffer_is_exported_under_the_heaps_name(void **state)
{
	char name[32];
	int fd;

	given_a_machine_with_the_system_heap(1 * GiB);
	fd = allocate(PAGE);
	assert_true(fd >= 0);
	assert_int_equal(kapi_dmabuf_exp_name(fd, name, sizeof(name)), 0);
	assert_string_equal(name, "system");
	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

/*
 * A buffer's file is opened with the access mode the ALLOC asked for
 * (fcntl F_GETFL), whatever the close-on-exec flag.
 */
static void test_buffer_file_has_the_requested_access_mode(void **state)
{
	static const unsigned int modes[] = {
		KAPI_O_RDONLY, KAPI_O_WRONLY, KAPI_O_RDWR,
		KAPI_O_RDWR | KAPI_O_CLOEXEC,
	};

	given_a_machine_with_the_system_heap(1 * GiB);
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		int fd = kapi_heap_alloc(heap_fd, PAGE, modes[i], 0);

		assert_true(fd >= 0);
		assert_int_equal(kapi_fcntl_getfl(fd) & KAPI_O_ACCMODE,
				 modes[i] & KAPI_O_ACCMODE);
		assert_int_equal(kapi_close(fd), 0);
	}
	assert_nothing_left_behind();
}

/*
 * A map the DMA API refuses fails with the DMA API's errno, unchanged (an
 * untrusted device whose IOVA cannot be allocated: -EIO; the mapping
 * failing for memory: -ENOMEM); the attachment is left unmapped (CPU
 * access syncs nothing for it) and its next map works.
 */
static void test_refused_map_keeps_the_dma_apis_errno(void **state)
{
	static const struct {
		const char *point;
		int ret;
	} cases[] = {
		{ "shim/dma/iova_alloc", -EIO },
		{ "shim/dma/map_sg", -ENOMEM },
	};
	const struct kapi_dev_opts untrusted = {
		.format = SIM_IOMMU_INTEL_SL, .max_seg_size = ANY_SEGMENT_SIZE,
		.untrusted = 1,
	};

	given_a_machine_with_the_system_heap(1 * GiB);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kapi_attach *attach;
		unsigned long long before;
		struct kapi_dev *dev;
		int fd = allocate(ORDER(4) + PAGE);

		print_message("%s\n", cases[i].point);
		assert_true(fd >= 0);
		assert_int_equal(kapi_dev_create_opts(&untrusted, &dev), 0);
		assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
		fail_every_call_of(cases[i].point);
		assert_int_equal(kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL),
				 cases[i].ret);
		assert_true(stop_failing(cases[i].point) > 0);
		before = sg_segments_walked();
		assert_int_equal(kapi_dmabuf_begin_cpu_access(fd,
				KAPI_DMA_BIDIRECTIONAL), 0);
		assert_int_equal(sg_segments_walked(), before);
		assert_true(kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL) > 0);
		kapi_dmabuf_unmap(attach);
		kapi_dmabuf_detach(attach);
		kapi_dev_destroy(dev);
		assert_int_equal(kapi_close(fd), 0);
		assert_nothing_left_behind();
	}
}

/*
 * CPU access brackets sync the buffer for every attachment that is mapped
 * at the time, with the entries of its own table, and for no other: two
 * importers of a 3-block buffer, one mapped, one not; then both; then the
 * first unmapped again.
 */
static void test_cpu_access_syncs_every_mapped_attachment_only(void **state)
{
	struct kapi_attach *a, *b;
	struct kapi_dev *dev_a, *dev_b;
	unsigned long long before;
	int fd;

	given_a_machine_with_the_system_heap(2 * GiB);
	heap_uses_orders("8,4,0");
	fd = allocate(ORDER(8) + ORDER(4) + PAGE);
	assert_true(fd >= 0);
	/* Segments of a whole block: dma-debug warns past max_seg_size. */
	assert_int_equal(kapi_dev_create(KAPI_DEV_NO_IOMMU, ORDER(8), &dev_a), 0);
	assert_int_equal(kapi_dev_create(SIM_IOMMU_INTEL_SL, ORDER(8), &dev_b), 0);
	assert_int_equal(kapi_dmabuf_attach(fd, dev_a, &a), 0);
	assert_int_equal(kapi_dmabuf_attach(fd, dev_b, &b), 0);

	/* Nothing mapped: nothing to sync. */
	before = sg_segments_walked();
	assert_int_equal(kapi_dmabuf_begin_cpu_access(fd, KAPI_DMA_FROM_DEVICE), 0);
	assert_int_equal(kapi_dmabuf_end_cpu_access(fd, KAPI_DMA_TO_DEVICE), 0);
	assert_int_equal(sg_segments_walked(), before);

	/* a mapped: its 3 entries, for the CPU and then for the device. */
	assert_int_equal(kapi_dmabuf_map(a, KAPI_DMA_BIDIRECTIONAL), 3);
	before = sg_segments_walked();
	assert_int_equal(kapi_dmabuf_begin_cpu_access(fd, KAPI_DMA_FROM_DEVICE), 0);
	assert_int_equal(sg_segments_walked(), before + 3);
	assert_int_equal(kapi_dmabuf_end_cpu_access(fd, KAPI_DMA_TO_DEVICE), 0);
	assert_int_equal(sg_segments_walked(), before + 6);

	/* Both mapped: 3 entries each. */
	assert_true(kapi_dmabuf_map(b, KAPI_DMA_BIDIRECTIONAL) > 0);
	before = sg_segments_walked();
	assert_int_equal(kapi_dmabuf_begin_cpu_access(fd, KAPI_DMA_BIDIRECTIONAL), 0);
	assert_int_equal(sg_segments_walked(), before + 6);
	assert_int_equal(kapi_dmabuf_end_cpu_access(fd, KAPI_DMA_BIDIRECTIONAL), 0);
	assert_int_equal(sg_segments_walked(), before + 12);

	/* a unmapped again: only b is synced. */
	kapi_dmabuf_unmap(a);
	before = sg_segments_walked();
	assert_int_equal(kapi_dmabuf_sync(fd, KAPI_DMA_BUF_SYNC_START |
					  KAPI_DMA_BUF_SYNC_RW), 0);
	assert_int_equal(sg_segments_walked(), before + 3);
	assert_int_equal(kapi_dmabuf_sync(fd, KAPI_DMA_BUF_SYNC_END |
					  KAPI_DMA_BUF_SYNC_RW), 0);
	assert_int_equal(sg_segments_walked(), before + 6);

	kapi_dmabuf_detach(a);
	kapi_dmabuf_detach(b);
	/* Detached: nothing is synced any more. */
	before = sg_segments_walked();
	assert_int_equal(kapi_dmabuf_begin_cpu_access(fd, KAPI_DMA_BIDIRECTIONAL), 0);
	assert_int_equal(kapi_dmabuf_end_cpu_access(fd, KAPI_DMA_BIDIRECTIONAL), 0);
	assert_int_equal(sg_segments_walked(), before);
	kapi_dev_destroy(dev_a);
	kapi_dev_destroy(dev_b);
	assert_int_equal(kapi_close(fd), 0);
	heap_uses_orders("9,8,4,0");
	assert_nothing_left_behind();
}

/*
 * A failed vmap (the page array or the mapping cannot be allocated) is
 * -ENOMEM and keeps nothing; the next vmap works, its users share it, and
 * CPU access brackets work with an attachment that is not mapped.
 */
static void test_failed_vmap_leaves_nothing_and_the_next_works(void **state)
{
	static const char *const points[] = {
		"shim/vmalloc/vmalloc", "shim/vmalloc/vmap",
	};
	struct kapi_attach *attach;
	unsigned long long vmaps;
	struct kapi_dev *dev;
	void *vaddr, *again;
	int fd;

	given_a_machine_with_the_system_heap(2 * GiB);
	fd = allocate(ORDER(8) + PAGE);
	assert_true(fd >= 0);
	vmaps = sim_vmap_outstanding();
	for (size_t i = 0; i < ARRAY_SIZE(points); i++) {
		fail_every_call_of(points[i]);
		assert_int_equal(kapi_dmabuf_vmap(fd, &vaddr), -ENOMEM);
		stop_failing(points[i]);
		assert_int_equal(sim_vmap_outstanding(), vmaps);
	}
	/* dma_buf_vmap() WARNs once (WARN_ON_ONCE) when the exporter fails. */
	expect_warnings(1);
	assert_int_equal(kapi_dmabuf_vmap(fd, &vaddr), 0);
	assert_int_equal(kapi_dmabuf_vmap(fd, &again), 0);
	assert_ptr_equal(again, vaddr);
	/* CPU access brackets with the buffer vmapped and attached unmapped. */
	assert_int_equal(kapi_dev_create(KAPI_DEV_NO_IOMMU, ANY_SEGMENT_SIZE, &dev), 0);
	assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
	assert_int_equal(kapi_dmabuf_begin_cpu_access(fd, KAPI_DMA_FROM_DEVICE), 0);
	assert_int_equal(kapi_dmabuf_end_cpu_access(fd, KAPI_DMA_TO_DEVICE), 0);
	kapi_dmabuf_detach(attach);
	kapi_dev_destroy(dev);
	assert_int_equal(kapi_dmabuf_vunmap(fd, again), 0);
	assert_int_equal(kapi_dmabuf_vunmap(fd, vaddr), 0);
	assert_int_equal(sim_vmap_outstanding(), vmaps);
	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

/* ------------------------------------------------------------------------
 * mmap.
 */

/* The pfn of page i of a buffer, from its scatterlist (any block layout). */
static unsigned long buffer_pfn(struct kapi_attach *attach, unsigned long i)
{
	for (unsigned int e = 0; e < kapi_attach_nr_entries(attach); e++) {
		struct kapi_sg_entry sg;
		unsigned long pages;

		assert_int_equal(kapi_attach_sg_entry(attach, e, &sg), 0);
		pages = sg.length / PAGE;
		if (i < pages)
			return sg.pfn + i;
		i -= pages;
	}
	fail_msg("page %lu is past the buffer", i);
	return 0;
}

/*
 * A window of pages [pgoff, pgoff + pages) of the buffer mapped into a
 * process maps each page of the VMA to the buffer's page at that offset,
 * whichever block holds it; windows past the end are refused.
 *
 *   buffer (785 pages)  [ block ][ block ] ... [4K]
 *   window              .....[pgoff ........ pgoff + pages)
 *   VMA                      [addr ......... addr + pages * PAGE)
 */
static void test_mmap_windows_map_the_buffer_pages(void **state)
{
	static const struct {
		const char *what;
		unsigned long long pgoff;
		unsigned long pages;
		int err;
	} cases[] = {
		{ "whole buffer",			0,	785,	0 },
		{ "from inside the first block",	3,	100,	0 },
		{ "past whole blocks",			768 + 3, 14,	0 },
		{ "two pages of the first block",	0,	2,	0 },
		{ "the last page",			784,	1,	0 },
		{ "across blocks to the end",		500,	285,	0 },
		{ "one page past the end",		0,	786,	-EINVAL },
		{ "starting at the end",		785,	1,	-EINVAL },
		{ "offset wraps",			~0ULL,	2,	-EOVERFLOW },
	};
	struct kapi_attach *attach;
	struct kapi_proc *proc;
	struct kapi_dev *dev;
	int fd;

	given_a_machine_with_the_system_heap(2 * GiB);
	fd = allocate(ONE_OF_EACH);
	assert_true(fd >= 0);
	assert_int_equal(kapi_dev_create(KAPI_DEV_NO_IOMMU, ANY_SEGMENT_SIZE, &dev), 0);
	assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
	assert_true(kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL) > 0);
	proc = given_a_process();
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned long addr = 0, pfn;
		int ret, level;

		ret = kapi_dmabuf_mmap(fd, cases[i].pgoff, cases[i].pages * PAGE,
				       1, &addr);
		if (ret != cases[i].err)
			fail_msg("%s: got %d, want %d", cases[i].what, ret,
				 cases[i].err);
		if (ret)
			continue;
		for (unsigned long p = 0; p < cases[i].pages; p++) {
			assert_int_equal(kapi_mm_cpu_pfn(addr + p * PAGE, &pfn,
							 &level), 0);
			assert_int_equal(pfn, buffer_pfn(attach, cases[i].pgoff + p));
		}
		assert_int_equal(kapi_mm_munmap(addr), 0);
	}
	kapi_proc_destroy(proc);
	kapi_dmabuf_detach(attach);
	kapi_dev_destroy(dev);
	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

/*
 * remap_pfn_range() failing (no page table) for the first block or a later
 * one: mmap is -ENOMEM and, once the VMA is gone, nothing is mapped.
 */
static void test_failed_mmap_unwinds(void **state)
{
	struct kapi_proc *proc;
	int fd;

	given_a_machine_with_the_system_heap(2 * GiB);
	fd = allocate(ONE_OF_EACH);
	assert_true(fd >= 0);
	proc = given_a_process();
	for (unsigned long long nth = 0; nth < 3; nth++) {
		unsigned long addr = 0, pfn;
		int level;

		fail_nth_call_of("shim/mm/alloc_pages", nth);
		assert_int_equal(kapi_dmabuf_mmap(fd, 0, ONE_OF_EACH, 1,
						  &addr), -ENOMEM);
		stop_failing("shim/mm/alloc_pages");
		assert_int_equal(kapi_mm_cpu_pfn(addr, &pfn, &level), -ENOENT);
	}
	kapi_proc_destroy(proc);
	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

/* ------------------------------------------------------------------------
 * Bad input and failures: the kernel's errno, and nothing left behind.
 */

enum fault_kind { NO_FAULT, FATAL_SIGNAL, FAULT_POINT };

/*
 * Each failure of a good request gets the errno of 6.12's dma-heap core and
 * heap (bad requests: tests/bad_input/heap_alloc.def).
 */
static void test_failed_alloc_requests_leave_nothing(void **state)
{
	static const struct {
		const char *what;
		unsigned long long len;
		unsigned int fd_flags;
		unsigned long long heap_flags;
		enum fault_kind fault;
		const char *point;
		int err;
	} cases[] = {
		{ "fatal signal pending", 16 * MiB, KAPI_O_RDWR, 0,
		  FATAL_SIGNAL, NULL, -EINTR },
		{ "pages run out", 16 * MiB, KAPI_O_RDWR, 0,
		  FAULT_POINT, "shim/mm/alloc_pages", -ENOMEM },
		{ "sg table allocation fails", 16 * MiB, KAPI_O_RDWR, 0,
		  FAULT_POINT, "shim/scatterlist/sg_alloc_table", -ENOMEM },
		{ "export fails", 16 * MiB, KAPI_O_RDWR, 0,
		  FAULT_POINT, "shim/dma-buf/export", -ENOMEM },
		{ "no free fd", 16 * MiB, KAPI_O_RDWR, 0,
		  FAULT_POINT, "shim/fs/get_unused_fd", -EMFILE },
		{ "request cannot be read", 16 * MiB, KAPI_O_RDWR, 0,
		  FAULT_POINT, "shim/uaccess/copy_from_user", -EFAULT },
		{ "result cannot be written back", 16 * MiB, KAPI_O_RDWR, 0,
		  FAULT_POINT, "shim/uaccess/copy_to_user", -EFAULT },
	};

	given_a_machine_with_the_system_heap(2 * GiB);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret;

		if (cases[i].fault == FATAL_SIGNAL)
			kapi_task_set_fatal_signal(1);
		if (cases[i].fault == FAULT_POINT) {
			fail_every_call_of(cases[i].point);
		}
		ret = kapi_heap_alloc(heap_fd, cases[i].len, cases[i].fd_flags,
				      cases[i].heap_flags);
		if (cases[i].fault == FAULT_POINT) {
			stop_failing(cases[i].point);
		}
		kapi_task_set_fatal_signal(0);
		if (ret != cases[i].err)
			fail_msg("%s: got %d, want %d", cases[i].what, ret,
				 cases[i].err);
		if (cases[i].point &&
		    !strcmp(cases[i].point, "shim/uaccess/copy_to_user"))
			expect_known_bug(HEAP_ALLOC_FD_BEFORE_COPY_OUT,
					 close_the_fd_the_caller_was_never_given() == 0);
		assert_nothing_left_behind();
	}
}

/*
 * Pages run out in the middle of a buffer, after its first k blocks (of
 * every order the heap uses: 2 MiB, 1 MiB, 64 KiB, 4 KiB with 4 KiB pages)
 * were taken: the allocation is -ENOMEM and every block taken goes back.
 * There are as many such failures as the buffer has blocks.
 *
 *   buffer   [ 2M ][ 1M ][64K][4K]      (core; 6.12: [1M][1M][1M][64K][4K])
 *   k = 0     x                         nothing taken
 *   k = 1     ok    x                   the 2M block given back
 *   ...
 */
static void test_pages_running_out_mid_buffer_give_back_every_block(void **state)
{
	static const unsigned long long lens[] = {
		ONE_OF_EACH, ORDER(9) + PAGE, ORDER(4) + PAGE, 3 * PAGE,
	};

	given_a_machine_with_the_system_heap(2 * GiB);
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		struct kapi_heap_layout layout;
		unsigned long long k;
		int fd;

		for (k = 0;; k++) {
			fail_calls_from_nth_of("shim/mm/alloc_pages", k);
			fd = allocate(lens[i]);
			stop_failing("shim/mm/alloc_pages");
			if (fd >= 0)
				break;
			assert_int_equal(fd, -ENOMEM);
			assert_nothing_left_behind();
		}
		heap_layout_of(fd, &layout);
		assert_int_equal(k, layout.nr_chunks);
		assert_int_equal(kapi_close(fd), 0);
		assert_nothing_left_behind();
	}
}

/* What arrives during the allocations of a test below. */
static void a_fatal_signal_arrives(void)
{
	kapi_task_set_fatal_signal(1);
}

/*
 * A fatal signal arriving while the buffer is built, during the allocation
 * of its block k + 1 (which still succeeds): the heap stops before the next
 * block with -EINTR and gives back the k + 1 blocks it took.  A kill during
 * the last block is too late to matter: the buffer is made.
 */
static void test_fatal_signal_mid_buffer_gives_back_every_block(void **state)
{
	struct kapi_heap_layout layout;
	unsigned long long k;
	int fd;

	given_a_machine_with_the_system_heap(2 * GiB);
	for (k = 0;; k++) {
		run_from_nth_call_of("shim/mm/alloc_pages", k, a_fatal_signal_arrives);
		fd = allocate(ONE_OF_EACH);
		stop_failing("shim/mm/alloc_pages");
		kapi_task_set_fatal_signal(0);
		if (fd >= 0)
			break;
		assert_int_equal(fd, -EINTR);
		assert_nothing_left_behind();
	}
	/* The kill came with the last block's allocation, after the check. */
	heap_layout_of(fd, &layout);
	assert_int_equal(k + 1, layout.nr_chunks);
	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

/* A mapping that fails leaves no IOVA, no leaf and an unmapped attachment. */
static void test_failed_map_leaves_no_iova_and_no_leaf(void **state)
{
	static const char *const points[] = {
		"shim/dma/map_sg", "shim/dma/iova_alloc", "shim/iommu/map",
	};
	struct kapi_attach *attach;
	struct sim_iommu_domain *dom;
	struct kapi_dev *dev;
	int fd;

	given_a_machine_with_the_system_heap(2 * GiB);
	fd = allocate(3 * ORDER(9) + PAGE);
	assert_true(fd >= 0);
	assert_int_equal(kapi_dev_create(SIM_IOMMU_INTEL_SL, ANY_SEGMENT_SIZE, &dev), 0);
	dom = kapi_dev_sim_domain(dev);
	assert_int_equal(kapi_dmabuf_attach(fd, dev, &attach), 0);
	for (size_t i = 0; i < ARRAY_SIZE(points); i++) {
		fail_every_call_of(points[i]);
		assert_int_equal(kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL),
				 -ENOMEM);
		stop_failing(points[i]);
		assert_int_equal(sim_iommu_nr_leaves_total(dom), 0);
		assert_int_equal(sim_iova_nr_allocated(dom), 0);
	}
	/* The attachment still maps afterwards. */
	assert_true(kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL) > 0);
	assert_true(sim_iommu_nr_leaves_total(dom) > 0);
	kapi_dmabuf_detach(attach);
	assert_int_equal(sim_iommu_nr_leaves_total(dom), 0);
	assert_int_equal(sim_iova_nr_allocated(dom), 0);
	kapi_dev_destroy(dev);
	assert_int_equal(kapi_close(fd), 0);
	assert_nothing_left_behind();
}

/*
 * 6.12's ioctl picks the command by number only and copies the sizes the
 * caller's command encodes: a shorter struct (no heap_flags) still
 * allocates with heap_flags zero, a larger one is staged on the heap, and
 * an unknown number is -EINVAL.
 */
static void test_alloc_ioctl_size_handling(void **state)
{
	struct {
		struct kapi_dma_heap_allocation_data req;
		unsigned char tail[200];
	} big;
	struct kapi_dma_heap_allocation_data req;
	/* _IOWR('H', 0, 16 bytes): len, fd, fd_flags; no heap_flags. */
	const unsigned int short_cmd = 0xc0104800u;
	/* _IOWR('H', 0, sizeof(big)) */
	const unsigned int big_cmd = 0xc0004800u | (unsigned int)(sizeof(big) << 16);
	/* _IOWR('H', 1, 24 bytes) */
	const unsigned int unknown_cmd = KAPI_DMA_HEAP_IOCTL_ALLOC + 1;

	given_a_machine_with_the_system_heap(2 * GiB);
	memset(&req, 0, sizeof(req));
	req.len = 64 * KiB;
	req.fd_flags = KAPI_O_RDWR;
	req.heap_flags = 1;	/* beyond the 16 bytes copied in: not seen */
	assert_int_equal(kapi_ioctl(heap_fd, short_cmd, &req), 0);
	assert_true(req.fd > 0);
	assert_int_equal(req.heap_flags, 1);	/* and not copied back */
	assert_int_equal(kapi_close(req.fd), 0);

	memset(&big, 0, sizeof(big));
	big.req.len = 64 * KiB;
	assert_int_equal(kapi_ioctl(heap_fd, big_cmd, &big), 0);
	assert_true(big.req.fd > 0);
	assert_int_equal(kapi_close(big.req.fd), 0);

	memset(&req, 0, sizeof(req));
	req.len = 64 * KiB;
	assert_int_equal(kapi_ioctl(heap_fd, unknown_cmd, &req), -EINVAL);
	/* A nonzero fd field on input is refused. */
	req.fd = 3;
	assert_int_equal(kapi_ioctl(heap_fd, KAPI_DMA_HEAP_IOCTL_ALLOC, &req),
			 -EINVAL);
	assert_int_equal(kapi_ioctl(heap_fd, KAPI_DMA_HEAP_IOCTL_ALLOC, NULL),
			 -EFAULT);
	assert_nothing_left_behind();
}

/*
 * The orders parameter must be descending and within MAX_PAGE_ORDER: an
 * allocation with any other list is -EINVAL with a warning in the kernel
 * log; a list longer than the MAX_PAGE_ORDER + 1 orders there are is
 * refused by the parameter itself.
 */
static void test_invalid_orders_are_rejected(void **state)
{
	static const char *const bad[] = { "4,8,0", "8,8,0", "11,0" };

	if (!DMASIM_IMPL_HEAP_ORDERS_PARAM)
		skip();
	given_a_machine_with_the_system_heap(2 * GiB);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		unsigned long long warnings = sim_klog_count(SIM_KLOG_WARNING);

		assert_int_equal(kapi_param_set("system_heap.orders", bad[i]), 0);
		assert_int_equal(allocate(PAGE), -EINVAL);
		assert_int_equal(sim_klog_count(SIM_KLOG_WARNING), warnings + 1);
	}
	assert_int_equal(kapi_param_set("system_heap.orders",
					"10,9,8,7,6,5,4,3,2,1,0"), 0);
	assert_int_equal(kapi_param_set("system_heap.orders",
					"11,10,9,8,7,6,5,4,3,2,1,0"), -EINVAL);
	assert_int_equal(kapi_param_set("system_heap.orders", "9,8,4,0"), 0);
	assert_nothing_left_behind();
}

/* ------------------------------------------------------------------------
 * Fault injection: every fallible call, failed in turn.
 */

/*
 * The whole importer round trip: allocate, put a device behind intel-sl,
 * attach, map, vmap and write, then undo it all.  On the first error it
 * undoes what it did and returns that error.
 */
static int heap_round_trip(void)
{
	struct kapi_attach *attach;
	struct kapi_dev *dev;
	unsigned char *vaddr;
	int fd, ret;

	fd = allocate(ONE_OF_EACH);
	if (fd < 0)
		return fd;
	ret = kapi_dev_create(SIM_IOMMU_INTEL_SL, ANY_SEGMENT_SIZE, &dev);
	if (ret)
		goto out_close;
	ret = kapi_dmabuf_attach(fd, dev, &attach);
	if (ret)
		goto out_dev;
	ret = kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL);
	if (ret < 0)
		goto out_detach;
	ret = kapi_dmabuf_vmap(fd, (void **)&vaddr);
	if (ret)
		goto out_detach;
	vaddr[ORDER(9) + ORDER(8)] = 1;
	ret = kapi_dmabuf_vunmap(fd, vaddr);
out_detach:
	kapi_dmabuf_detach(attach);
out_dev:
	kapi_dev_destroy(dev);
out_close:
	kapi_close(fd);
	return ret;
}

/*
 * For every fault point, fail its 1st, 2nd, ... call in the round trip
 * until a run makes fewer calls than that: each failure is a kernel errno
 * (or, for a page allocation, absorbed by falling back to a smaller order)
 * and leaves nothing behind, and the runs that do not fail succeed.
 */
static void test_every_failure_in_the_round_trip_cleans_up(void **state)
{
	given_a_machine_with_the_system_heap(2 * GiB);
	assert_int_equal(heap_round_trip(), 0);
	assert_nothing_left_behind();

	for (int fp = 0; fp < SIM_NR_FAULT_POINTS; fp++) {
		for (unsigned long long nth = 0;; nth++) {
			int ret, failed;

			fail_nth_call_of(sim_fault_name(fp), nth);
			ret = heap_round_trip();
			failed = stop_failing(sim_fault_name(fp)) > nth;

			/* A failed high-order page is absorbed: the heap falls back. */
			if (failed && ret >= 0 && fp != SIM_FP_ALLOC_PAGES)
				fail_msg("%s call %llu failed, round trip returned %d",
					 sim_fault_name(fp), nth + 1, ret);
			if (!failed)
				assert_int_equal(ret, 0);
			assert_true(ret == 0 || ret == -ENOMEM || ret == -EMFILE ||
				    ret == -EFAULT || ret == -EINVAL || ret == -EIO);
			if (failed && fp == SIM_FP_COPY_TO_USER)
				close_the_fd_the_caller_was_never_given();
			assert_nothing_left_behind();
			if (!failed)
				break;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: no test has set the orders yet. */
		cmocka_unit_test_teardown(test_default_orders_build_the_buffer, teardown),
		cmocka_unit_test_teardown(test_chunk_layouts_on_a_fresh_machine, teardown),
		cmocka_unit_test_teardown(test_no_larger_block_after_a_fallback, teardown),
		cmocka_unit_test_teardown(test_1g_with_pmd_order_is_512_superpages_on_intel_sl, teardown),
		cmocka_unit_test_teardown(test_1g_with_mainline_orders_is_1024_blocks, teardown),
		cmocka_unit_test_teardown(test_leaf_sizes_by_iommu_format, teardown),
		cmocka_unit_test_teardown(test_buffer_ending_at_the_top_of_iova_space_unmaps, teardown),
		cmocka_unit_test_teardown(test_importer_with_the_default_segment_limit, teardown),
		cmocka_unit_test_teardown(test_release_frees_every_page_when_segments_merged, teardown),
		cmocka_unit_test_teardown(test_direct_mapping_is_one_segment_per_block, teardown),
		cmocka_unit_test_teardown(test_chained_table_maps_every_entry_directly, teardown),
		cmocka_unit_test_teardown(test_vmap_aliases_the_blocks, teardown),
		cmocka_unit_test_teardown(test_cpu_access_syncs_every_mapped_attachment_only, teardown),
		cmocka_unit_test_teardown(test_refused_map_keeps_the_dma_apis_errno, teardown),
		cmocka_unit_test_teardown(test_buffer_file_has_the_requested_access_mode, teardown),
		cmocka_unit_test_teardown(test_the_last_vunmap_clears_the_importers_map, teardown),
		cmocka_unit_test_teardown(test_buffer_is_exported_under_the_heaps_name, teardown),
		cmocka_unit_test_teardown(test_cpu_access_maintains_the_vmap_only_while_it_exists, teardown),
		cmocka_unit_test_teardown(test_failed_vmap_leaves_nothing_and_the_next_works, teardown),
		cmocka_unit_test_teardown(test_mmap_windows_map_the_buffer_pages, teardown),
		cmocka_unit_test_teardown(test_failed_mmap_unwinds, teardown),
		cmocka_unit_test_teardown(test_failed_alloc_requests_leave_nothing, teardown),
		cmocka_unit_test_teardown(test_pages_running_out_mid_buffer_give_back_every_block, teardown),
		cmocka_unit_test_teardown(test_fatal_signal_mid_buffer_gives_back_every_block, teardown),
		cmocka_unit_test_teardown(test_failed_map_leaves_no_iova_and_no_leaf, teardown),
		cmocka_unit_test_teardown(test_alloc_ioctl_size_handling, teardown),
		cmocka_unit_test_teardown(test_invalid_orders_are_rejected, teardown),
		cmocka_unit_test_teardown(test_every_failure_in_the_round_trip_cleans_up, teardown),
	};

	return cmocka_run_group_tests_name("heap_" DMASIM_IMPL, tests,
					   boot_the_kernel, NULL);
}
