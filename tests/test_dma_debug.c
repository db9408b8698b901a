// SPDX-License-Identifier: GPL-2.0-only
/*
 * The streaming DMA API as a driver uses it on its own lists, and what
 * the DMA-API checks (dma-debug's, kernel_shim/dma_debug.c) report: each
 * misuse gives exactly one WARN, the right use none.  Then the swiotlb path
 * of an untrusted device (kernel_shim/dma_iommu.c): one IOVA per entry,
 * nothing merged, unaligned entries bounced.
 *
 *   4 scattered pages, mapped by a trusted device behind intel-sl:
 *     CPU  [p0][p1][p2][p3]            orig_nents = 4
 *     IOVA [p0 p1 p2 p3]               nents = 1 (whole pages merge)
 *   unmap/sync must pass 4 (what was mapped), not 1.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_heap.h>
#include <dmasim/kapi_mm_page.h>
#include <dmasim/sim.h>
#include <dmasim/sim_iommu.h>

#include "shared.h"

#define MAX_BLOCKS	8

/* Blocks of the given orders, each one entry of its whole length. */
struct blocks {
	unsigned int n;
	unsigned int order[MAX_BLOCKS];
	struct sim_page *page[MAX_BLOCKS];
	struct kapi_sg_entry entry[MAX_BLOCKS];
};

static void given_blocks(struct blocks *b, const unsigned int *orders,
			 unsigned int n)
{
	b->n = n;
	for (unsigned int i = 0; i < n; i++) {
		b->order[i] = orders[i];
		b->page[i] = kapi_alloc_pages(kapi_gfp("GFP_KERNEL"), orders[i]);
		assert_non_null(b->page[i]);
		b->entry[i] = (struct kapi_sg_entry){
			.pfn = sim_page_to_pfn(b->page[i]),
			.length = (unsigned int)(PAGE << orders[i]),
		};
	}
}

static void free_blocks(struct blocks *b)
{
	for (unsigned int i = 0; i < b->n; i++)
		kapi___free_pages(b->page[i], b->order[i]);
}

static struct kapi_dev *given_a_device(const struct kapi_dev_opts *o)
{
	struct kapi_dev *dev;

	assert_int_equal(kapi_dev_create_opts(o, &dev), 0);
	return dev;
}

static const struct kapi_dev_opts trusted_intel = {
	.format = SIM_IOMMU_INTEL_SL, .max_seg_size = ANY_SEGMENT_SIZE,
};

/* The last WARN said what (a fragment of its message). */
static void assert_last_warning_says(const char *what)
{
	const char *last = sim_klog_last();

	assert_non_null(last);
	if (!strstr(last, what))
		fail_msg("last kernel message \"%s\" does not say \"%s\"", last, what);
}

/* A booted machine, a trusted intel-sl device and its list. */
struct scene {
	struct kapi_dev *dev;
	struct kapi_dma_list *list;
	struct blocks b;
};

/* Four single pages mapped by the trusted device: one segment. */
static void given_four_pages_mapped(struct scene *sc, int dir)
{
	static const unsigned int orders[] = { 0, 0, 0, 0 };

	given_a_booted_machine(NULL);
	sc->dev = given_a_device(&trusted_intel);
	given_blocks(&sc->b, orders, 4);
	assert_int_equal(kapi_dma_list_map(sc->dev, sc->b.entry, 4, dir,
					   &sc->list), 1);
}

static void assert_no_iova_and_no_leaf(struct kapi_dev *dev)
{
	struct sim_iommu_domain *dom = kapi_dev_sim_domain(dev);

	assert_int_equal(sim_iova_nr_allocated(dom), 0);
	assert_int_equal(sim_iommu_nr_leaves_total(dom), 0);
}

/*
 * The end of a scenario on an IOMMU device: no IOVA and no leaf left, the
 * device and the blocks given back, the machine as booted.
 */
static void then_nothing_is_left(struct kapi_dev *dev, struct blocks *b)
{
	assert_no_iova_and_no_leaf(dev);
	kapi_dev_destroy(dev);
	free_blocks(b);
	check_and_destroy();
}

/*
 * Unmapping with the merged segment count (sgt->nents) instead of the
 * count mapped is reported once; dma-iommu still unmaps the whole range
 * (it stops at the zeroed tail, not at the count).
 */
static void test_unmap_with_the_segment_count_is_reported(void **state)
{
	struct scene sc;

	given_four_pages_mapped(&sc, KAPI_DMA_BIDIRECTIONAL);
	kapi_dma_list_unmap(sc.list, 1, KAPI_DMA_BIDIRECTIONAL);
	assert_last_warning_says("different entry count [map count=4] [free count=1]");
	expect_warnings(1);
	then_nothing_is_left(sc.dev, &sc.b);
}

/* The same list unmapped with the count mapped: no report. */
static void test_unmap_with_the_count_mapped_is_quiet(void **state)
{
	struct scene sc;

	given_four_pages_mapped(&sc, KAPI_DMA_TO_DEVICE);
	kapi_dma_list_sync(sc.list, 4, KAPI_DMA_TO_DEVICE, 1);
	kapi_dma_list_sync(sc.list, 4, KAPI_DMA_TO_DEVICE, 0);
	kapi_dma_list_unmap(sc.list, 4, KAPI_DMA_TO_DEVICE);
	expect_warnings(0);
	then_nothing_is_left(sc.dev, &sc.b);
}

/*
 * A sync walks the CPU entries it is given: with the segment count it
 * skips the rest, reported once per sync, either way.
 */
static void test_sync_with_the_segment_count_is_reported(void **state)
{
	struct scene sc;

	given_four_pages_mapped(&sc, KAPI_DMA_FROM_DEVICE);
	for (int for_device = 0; for_device < 2; for_device++) {
		kapi_dma_list_sync(sc.list, 1, KAPI_DMA_FROM_DEVICE, for_device);
		assert_last_warning_says("syncs DMA sg list with different entry count [map count=4] [sync count=1]");
		expect_warnings(1);
	}
	kapi_dma_list_unmap(sc.list, 4, KAPI_DMA_FROM_DEVICE);
	expect_warnings(0);
	then_nothing_is_left(sc.dev, &sc.b);
}

/*
 * Unmapping in another direction than the map's is reported; a sync of a
 * bidirectional list may name any direction.
 */
static void test_unmap_in_another_direction_is_reported(void **state)
{
	struct scene sc;

	given_four_pages_mapped(&sc, KAPI_DMA_BIDIRECTIONAL);
	kapi_dma_list_sync(sc.list, 4, KAPI_DMA_FROM_DEVICE, 0);
	expect_warnings(0);
	kapi_dma_list_unmap(sc.list, 4, KAPI_DMA_TO_DEVICE);
	assert_last_warning_says("frees DMA sg list with different direction");
	expect_warnings(1);
	then_nothing_is_left(sc.dev, &sc.b);
}

/*
 * An entry longer than the device's max_seg_size, and a DMA segment
 * crossing its segment boundary, are reported at map; within the limits
 * nothing is.  Orders are of 4 KiB pages (test built for that page size).
 */
static void test_segments_over_the_device_limits_are_reported(void **state)
{
	static const struct {
		const char *what;
		unsigned int max_seg_size;
		unsigned long boundary;
		unsigned int n, orders[3];
		int nents;
		const char *warning;	/* NULL: none */
	} cases[] = {
		{ "128K entry, 64K limit", 64 * 1024, 0, 1, { 5 }, 1,
		  "longer than device claims to support [len=131072] [max=65536]" },
		{ "64K entry, 64K limit", 64 * 1024, 0, 1, { 4 }, 1, NULL },
		{ "128K entry, 64K boundary", ANY_SEGMENT_SIZE, 0xffff, 1, { 5 }, 1,
		  "mapping sg segment across boundary" },
		/* The 64K entry is padded to the next window: no crossing. */
		{ "4K then 64K, 64K boundary", ANY_SEGMENT_SIZE, 0xffff, 2, { 0, 4 }, 2,
		  NULL },
		{ "4 x 4K merged, 64K boundary", ANY_SEGMENT_SIZE, 0xffff, 3, { 0, 0, 0 }, 1,
		  NULL },
	};

	if (PAGE != SZ_4K)
		skip();
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct kapi_dev_opts o = {
			.format = SIM_IOMMU_INTEL_SL,
			.max_seg_size = cases[i].max_seg_size,
			.seg_boundary = cases[i].boundary,
		};
		struct kapi_dma_list *list;
		struct kapi_dev *dev;
		struct blocks b;

		given_a_booted_machine(NULL);
		dev = given_a_device(&o);
		given_blocks(&b, cases[i].orders, cases[i].n);
		assert_int_equal(kapi_dma_list_map(dev, b.entry, b.n,
						   KAPI_DMA_BIDIRECTIONAL, &list),
				 cases[i].nents);
		if (cases[i].warning) {
			assert_last_warning_says(cases[i].warning);
			expect_warnings(1);
		}
		expect_warnings(0);
		kapi_dma_list_unmap(list, b.n, KAPI_DMA_BIDIRECTIONAL);
		then_nothing_is_left(dev, &b);
	}
}

/* A device let go of with a list still mapped is reported at unbind. */
static void test_device_released_with_a_list_mapped_is_reported(void **state)
{
	static const unsigned int orders[] = { 0 };
	const struct kapi_dev_opts o = { .format = KAPI_DEV_NO_IOMMU };
	struct kapi_dma_list *list;
	struct kapi_dev *dev;
	struct blocks b;

	given_a_booted_machine(NULL);
	dev = given_a_device(&o);
	given_blocks(&b, orders, 1);
	assert_int_equal(kapi_dma_list_map(dev, b.entry, 1, KAPI_DMA_TO_DEVICE,
					   &list), 1);
	kapi_dev_destroy(dev);
	assert_last_warning_says("pending DMA allocations while released from device [count=1]");
	expect_warnings(1);
	kapi_dma_list_free(list);
	free_blocks(&b);
	check_and_destroy();
}

/* ---- swiotlb: untrusted devices ---- */

static const struct kapi_dev_opts untrusted_intel = {
	.format = SIM_IOMMU_INTEL_SL, .max_seg_size = ANY_SEGMENT_SIZE,
	.untrusted = 1,
};

static sim_phys_t phys_behind(struct kapi_dev *dev, unsigned long long iova)
{
	return sim_iommu_iova_to_phys(kapi_dev_sim_domain(dev), iova);
}

static unsigned char *bytes_at(sim_phys_t phys)
{
	return sim_phys_to_virt(phys);
}

/*
 * Dirty a few free pages, so that a bounce slot the allocator hands out
 * next has stale bytes that only zeroing removes.
 */
static void dirty_some_free_pages(void)
{
	struct sim_page *p[8];

	for (int i = 0; i < 8; i++) {
		p[i] = kapi_alloc_pages(kapi_gfp("GFP_KERNEL"), 0);
		assert_non_null(p[i]);
		memset(sim_page_address(p[i]), 0xaa, PAGE);
	}
	for (int i = 7; i >= 0; i--)
		kapi___free_pages(p[i], 0);
}

/*
 * Entries that merge for a trusted device are mapped one IOVA each for an
 * untrusted one: nents == orig_nents, first entry marked swiotlb; aligned
 * entries map their own pages, nothing is bounced.
 */
static void test_untrusted_device_maps_each_entry_on_its_own(void **state)
{
	struct kapi_dma_list *list;
	struct kapi_sg_entry e;
	struct kapi_dev *dev;
	unsigned long buddy;
	struct blocks b;

	given_a_booted_machine(NULL);
	dev = given_a_device(&untrusted_intel);
	given_blocks(&b, (const unsigned int[]){ 0, 0, 0, 0 }, 4);
	buddy = sim_buddy_nr_allocated();
	assert_int_equal(kapi_dma_list_map(dev, b.entry, 4, KAPI_DMA_TO_DEVICE,
					   &list), 4);
	assert_true(kapi_dma_list_is_swiotlb(list));
	assert_int_equal(sim_buddy_nr_allocated(), buddy);
	assert_int_equal(sim_iova_nr_allocated(kapi_dev_sim_domain(dev)), 4);
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(kapi_dma_list_entry(list, i, &e), 0);
		assert_int_equal(e.dma_length, PAGE);
		assert_int_equal(phys_behind(dev, e.dma_address),
				 (sim_phys_t)b.entry[i].pfn * PAGE);
	}
	kapi_dma_list_unmap(list, 4, KAPI_DMA_TO_DEVICE);
	then_nothing_is_left(dev, &b);
}

/*
 * An entry whose start or length is not on the granule is bounced: the
 * device sees a copy at the same offset in another page, the rest of that
 * granule zero; what the device wrote comes back at a sync for the CPU and
 * at unmap, and the slot is freed.
 */
static void test_untrusted_device_bounces_unaligned_entries(void **state)
{
	struct kapi_sg_entry entries[3], e;
	struct kapi_dma_list *list;
	unsigned char *orig, *slot;
	struct kapi_dev *dev;
	unsigned long buddy;
	sim_phys_t phys;
	struct blocks b;

	given_a_booted_machine(NULL);
	dev = given_a_device(&untrusted_intel);
	given_blocks(&b, (const unsigned int[]){ 0, 0, 0 }, 3);
	entries[0] = b.entry[0];
	entries[1] = (struct kapi_sg_entry){ .pfn = b.entry[1].pfn,
					     .offset = 100, .length = 200 };
	/* Starts on the granule, ends inside it. */
	entries[2] = (struct kapi_sg_entry){ .pfn = b.entry[2].pfn,
					     .length = 512 };
	orig = sim_page_address(b.page[1]);
	memset(orig, 0x5a, PAGE);
	dirty_some_free_pages();
	buddy = sim_buddy_nr_allocated();

	assert_int_equal(kapi_dma_list_map(dev, entries, 3, KAPI_DMA_BIDIRECTIONAL,
					   &list), 3);
	assert_int_equal(sim_buddy_nr_allocated(), buddy + 2);
	assert_int_equal(kapi_dma_list_entry(list, 2, &e), 0);
	assert_int_not_equal(phys_behind(dev, e.dma_address) / PAGE, b.entry[2].pfn);
	assert_int_equal(kapi_dma_list_entry(list, 0, &e), 0);
	assert_int_equal(phys_behind(dev, e.dma_address), (sim_phys_t)b.entry[0].pfn * PAGE);
	assert_int_equal(kapi_dma_list_entry(list, 1, &e), 0);
	assert_int_equal(e.dma_address % SZ_4K, 100);
	assert_int_equal(e.dma_length, 200);
	phys = phys_behind(dev, e.dma_address);
	assert_int_not_equal(phys / PAGE, b.entry[1].pfn);
	assert_int_equal(phys % SZ_4K, 100);
	slot = bytes_at(phys - 100);
	for (unsigned int i = 0; i < SZ_4K; i++)
		if (slot[i] != (i >= 100 && i < 300 ? 0x5a : 0))
			fail_msg("bounce slot byte %u is 0x%x", i, slot[i]);

	/* The device writes its part; the CPU sees it after a sync. */
	memset(slot + 100, 0x11, 200);
	kapi_dma_list_sync(list, 3, KAPI_DMA_BIDIRECTIONAL, 0);
	assert_int_equal(orig[100], 0x11);
	assert_int_equal(orig[299], 0x11);
	assert_int_equal(orig[300], 0x5a);
	assert_int_equal(orig[99], 0x5a);
	/* ... and again at unmap. */
	memset(slot + 100, 0x22, 200);
	kapi_dma_list_unmap(list, 3, KAPI_DMA_BIDIRECTIONAL);
	assert_int_equal(orig[100], 0x22);
	assert_int_equal(orig[300], 0x5a);
	assert_int_equal(sim_buddy_nr_allocated(), buddy);
	then_nothing_is_left(dev, &b);
}

/*
 * A failure on any entry of an untrusted map unmaps the entries before it
 * and frees their bounce slots: -EIO, no IOVA, no leaf, no page held.
 */
static void test_failed_untrusted_map_leaves_nothing(void **state)
{
	for (unsigned long long nth = 0; nth < 3; nth++) {
		struct kapi_sg_entry entries[3];
		struct kapi_dma_list *list;
		struct kapi_dev *dev;
		unsigned long buddy;
		struct blocks b;

		given_a_booted_machine(NULL);
		dev = given_a_device(&untrusted_intel);
		given_blocks(&b, (const unsigned int[]){ 0, 0, 0 }, 3);
		for (int i = 0; i < 3; i++)
			entries[i] = (struct kapi_sg_entry){
				.pfn = b.entry[i].pfn, .offset = 8, .length = 64 };
		buddy = sim_buddy_nr_allocated();
		fail_nth_call_of("shim/dma/iova_alloc", nth);
		assert_int_equal(kapi_dma_list_map(dev, entries, 3,
						   KAPI_DMA_TO_DEVICE, &list), -EIO);
		assert_true(stop_failing("shim/dma/iova_alloc") > nth);
		assert_int_equal(sim_buddy_nr_allocated(), buddy);
		then_nothing_is_left(dev, &b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unmap_with_the_segment_count_is_reported),
		cmocka_unit_test(test_unmap_with_the_count_mapped_is_quiet),
		cmocka_unit_test(test_sync_with_the_segment_count_is_reported),
		cmocka_unit_test(test_unmap_in_another_direction_is_reported),
		cmocka_unit_test(test_segments_over_the_device_limits_are_reported),
		cmocka_unit_test(test_device_released_with_a_list_mapped_is_reported),
		cmocka_unit_test(test_untrusted_device_maps_each_entry_on_its_own),
		cmocka_unit_test(test_untrusted_device_bounces_unaligned_entries),
		cmocka_unit_test(test_failed_untrusted_map_leaves_nothing),
	};

	return cmocka_run_group_tests_name("dma_debug", tests, boot_the_kernel,
					   NULL);
}
