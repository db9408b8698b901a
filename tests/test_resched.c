// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reschedule oracle (sim_yield*, <dmasim/sim.h>): the work kernel code
 * does between two reschedule points (cond_resched(), per calling
 * function) and, for the heap, between two fatal-signal checks.
 *
 *  - Where the code promises a bound it is asserted, with a scenario large
 *    enough to pass it several times over, and shown to catch a missing
 *    yield: the same scenario with that site's yield ignored
 *    (sim_yield_ignore(), a test-only knob) breaks the bound.
 *      GUP pages per batch refill <= the batch (512 pages);
 *      regions per vfio_sync_unpin() <= VFIO_IOMMU_TLB_SYNC_MAX (512);
 *      heap pages per fatal-signal check <= one order-8 chunk.
 *  - Where the code reschedules per unit of work, the count is asserted:
 *      vfio_iommu_map(): once per run and domain mapped, and once per
 *      domain it takes a run out of again when a later one fails.
 *  - Where the kernel's own loop has no yield (the notes,
 *    reschedule-and-signals.md) the gap is reported by name, as a known
 *    kernel gap and not a failure: the test checks the documented shape
 *    (the whole input is done in one stretch) and prints the largest
 *    stretch per site.
 * Work is counted where it happens (counters.def): GUP pages, unpins,
 * IOMMU probes and leaf writes, pages zeroed and freed, vmap pages.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/impl.h>
#include <dmasim/kapi.h>
#include <dmasim/kapi_heap.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "shared.h"

#define RW		KAPI_VFIO_DMA_MAP_RW
#define IOVA		(4 * GiB)
/* vfio_batch capacity: a page of page pointers (512 with 4 KiB pages). */
#define BATCH_PAGES	((unsigned long long)(PAGE / sizeof(void *)))
#define TLB_SYNC_MAX	512ULL	/* VFIO_IOMMU_TLB_SYNC_MAX */
#define HEAP_CHUNK_PAGES (1ULL << 8)	/* 6.12's largest order: 8 */

static int setup(void **state)
{
	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 2 * GiB });
	grow_the_fd_table();
	given_a_process();
	kapi_mm_set_rlimit_memlock(GiB);
	return 0;
}

static int teardown(void **state)
{
	sim_yield_meter_stop();
	sim_yield_ignore(SIM_YIELD_RESCHED, NULL);
	sim_yield_ignore(SIM_YIELD_SIGNAL, NULL);
	check_and_destroy();
	return 0;
}

/* ---- helpers ---- */

/* Pages of the system heap's largest chunk (core: its orders parameter). */
static unsigned long long heap_largest_chunk_pages(void)
{
	char v[64];

	if (!DMASIM_IMPL_HEAP_ORDERS_PARAM)
		return HEAP_CHUNK_PAGES;
	assert_int_equal(kapi_param_get("system_heap.orders", v, sizeof(v)), 0);
	return 1ULL << strtoul(v, NULL, 10);
}

/* len bytes of anonymous memory whose pages are each their own pfn run. */
static unsigned long map_anon_with_every_page_apart(unsigned long len)
{
	unsigned long va = map_memory(&(struct kapi_mm_map){
		.len = len, .kind = KAPI_MM_ANON, .writable = 1,
		.align = PMD });
	unsigned long off;

	/* Touched from the top down: the allocator hands out rising pfns. */
	for (off = len; off; off -= PAGE)
		assert_int_equal(kapi_mm_touch(va + off - PAGE, PAGE, 1), 0);
	return va;
}

static unsigned long map_anon_populated(unsigned long len)
{
	return map_memory(&(struct kapi_mm_map){
		.len = len, .kind = KAPI_MM_ANON, .writable = 1,
		.populate = 1, .align = PMD });
}

/* The largest growth of counter in any stretch of kind, printed. */
static unsigned long long largest_stretch_of(enum sim_yield_kind kind,
					     enum sim_counter counter,
					     const char *what)
{
	const char *site;
	unsigned long long n = sim_yield_max_any(kind, counter, &site);

	printf("  %s: at most %llu %s between two %s (closed by %s)\n", what,
	       n, sim_counter_name(counter),
	       kind == SIM_YIELD_RESCHED ? "reschedule points" :
					   "signal checks",
	       site ? site : "-");
	return n;
}

/* MAP_DMA of len bytes of populated anon memory, metered; GUP's largest stretch. */
static unsigned long long gup_pages_between_yields_mapping(unsigned long len,
							   const char *ignored)
{
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va;
	unsigned long long n;

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	va = map_anon_populated(len);
	if (ignored)
		sim_yield_ignore(SIM_YIELD_RESCHED, ignored);
	sim_yield_meter_start();
	map_dma(c, va, IOVA, len, RW);
	sim_yield_close("MAP_DMA return");
	sim_yield_meter_stop();
	n = largest_stretch_of(SIM_YIELD_RESCHED, SIM_CNT_GUP_PAGE, "MAP_DMA");
	if (!ignored)
		assert_true(sim_yield_count(SIM_YIELD_RESCHED,
					    "vfio_pin_pages_remote") >=
			    len / PAGE / BATCH_PAGES);
	sim_yield_ignore(SIM_YIELD_RESCHED, NULL);
	unmap_dma_exactly(c, IOVA, len);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
	return n;
}

/* UNMAP_DMA of len bytes mapped page by page (every page its own region). */
static unsigned long long regions_between_yields_unmapping(unsigned long len,
							   const char *ignored)
{
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va;
	unsigned long long n, unpins;

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	va = map_anon_with_every_page_apart(len);
	map_dma(c, va, IOVA, len, RW);
	if (ignored)
		sim_yield_ignore(SIM_YIELD_RESCHED, ignored);
	sim_yield_meter_start();
	unmap_dma_exactly(c, IOVA, len);
	sim_yield_close("UNMAP_DMA return");
	sim_yield_meter_stop();
	sim_yield_ignore(SIM_YIELD_RESCHED, NULL);
	n = largest_stretch_of(SIM_YIELD_RESCHED, SIM_CNT_IOMMU_UNMAP_CALL,
			       "UNMAP_DMA");
	unpins = largest_stretch_of(SIM_YIELD_RESCHED, SIM_CNT_UNPIN_PAGE,
				    "UNMAP_DMA");
	/* One region per page: a region's unmap comes with its one unpin. */
	assert_true(unpins <= n + 1);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
	return n;
}

/*
 * UNMAP_DMA of 64 one-page regions with no memory for the fast path's
 * records (every kmalloc fails meanwhile): unmap_unpin_slow() unmaps and
 * unpins each region at once, and yields after every one.
 */
static void test_slow_unmap_yields_after_every_region(void **state)
{
	const unsigned long regions = 64;
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va;

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	va = map_anon_with_every_page_apart(regions * PAGE);
	map_dma(c, va, IOVA, regions * PAGE, RW);
	sim_yield_meter_start();
	fail_every_call_of("shim/slab/kmalloc");
	unmap_dma_exactly(c, IOVA, regions * PAGE);
	stop_failing("shim/slab/kmalloc");
	sim_yield_close("UNMAP_DMA return");
	sim_yield_meter_stop();
	assert_int_equal(sim_yield_count(SIM_YIELD_RESCHED, "unmap_unpin_slow"),
			 regions);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
}

/*
 *   iova:  [ DMA a, 1 MiB ] [ DMA b, 1 MiB ]   in an intel-sl, an amd-v1
 *                                               and an arm-lpae-4k domain
 *
 * UNMAP_DMA empties the domains other than the first one whole DMA at a
 * time, with a reschedule point after each domain's unmap: two other
 * domains and two DMAs are four yields of vfio_unmap_unpin(), none of
 * them closing more than one domain's unmap of one DMA.
 */
static void test_unmap_yields_after_each_other_domain(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon(2 * MiB);

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	attach_a_device_of_format(c, SIM_IOMMU_AMD_V1);
	attach_a_device_of_format(c, SIM_IOMMU_ARM_LPAE_4K);
	map_dma(c, va, IOVA, MiB, RW);
	map_dma(c, va + MiB, IOVA + MiB, MiB, RW);
	sim_yield_meter_start();
	unmap_dma_exactly(c, IOVA, 2 * MiB);
	sim_yield_close("UNMAP_DMA return");
	sim_yield_meter_stop();
	assert_int_equal(sim_yield_count(SIM_YIELD_RESCHED, "vfio_unmap_unpin"), 4);
	assert_true(sim_yield_max(SIM_YIELD_RESCHED, "vfio_unmap_unpin",
				  SIM_CNT_IOMMU_UNMAP_PAGES) <= 1);
	/* A stopped meter counts nothing more. */
	map_dma(c, va, IOVA, MiB, RW);
	unmap_dma_exactly(c, IOVA, MiB);
	assert_int_equal(sim_yield_count(SIM_YIELD_RESCHED, "vfio_unmap_unpin"), 4);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
}

/*
 *   va:   [ p0 ][ p1 ] ... [ p7 ]     every page its own pfn run
 *   two domains: intel-sl and amd-v1
 *
 * vfio_iommu_map() reschedules after mapping a run into each domain, and
 * after taking it out of each domain it undoes when a later domain's map
 * fails: 8 runs into 2 domains are 16 reschedule points; a one-page
 * MAP_DMA whose map fails in the second domain makes two, one after the
 * first domain's map and one after its undo (the MAP_DMA is -ENOMEM and
 * leaves nothing mapped).
 */
static void test_map_reschedules_per_run_and_domain(void **state)
{
	const unsigned long runs = 8;
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *intel, *amd;
	unsigned long va;

	intel = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	amd = attach_a_device_of_format(c, SIM_IOMMU_AMD_V1);
	va = map_anon_with_every_page_apart(runs * PAGE);
	sim_yield_meter_start();
	map_dma(c, va, IOVA, runs * PAGE, RW);
	sim_yield_close("MAP_DMA return");
	assert_int_equal(sim_yield_count(SIM_YIELD_RESCHED, "vfio_iommu_map"),
			 runs * 2);
	unmap_dma_exactly(c, IOVA, runs * PAGE);
	sim_yield_meter_stop();

	sim_yield_meter_start();
	fail_nth_call_of("shim/iommu/map", 1);
	assert_int_equal(kapi_vfio_map_dma(c, va, IOVA, PAGE, RW), -ENOMEM);
	assert_int_equal(stop_failing("shim/iommu/map"), 2);
	sim_yield_close("MAP_DMA return");
	sim_yield_meter_stop();
	assert_int_equal(sim_yield_count(SIM_YIELD_RESCHED, "vfio_iommu_map"), 2);
	assert_int_equal(kapi_vfio_dev_nr_leaves(intel), 0);
	assert_int_equal(kapi_vfio_dev_nr_leaves(amd), 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
}

/* A heap buffer of len bytes allocated and freed, metered on signal checks. */
static unsigned long long heap_pages_between_signal_checks(unsigned long len,
							   const char *ignored)
{
	int heap = kapi_heap_open("system");
	unsigned long long n;
	int buf;

	assert_true(heap >= 0);
	if (ignored)
		sim_yield_ignore(SIM_YIELD_SIGNAL, ignored);
	sim_yield_meter_start();
	buf = kapi_heap_alloc(heap, len, KAPI_O_RDWR, 0);
	sim_yield_close("DMA_HEAP_IOCTL_ALLOC return");
	sim_yield_meter_stop();
	sim_yield_ignore(SIM_YIELD_SIGNAL, NULL);
	n = largest_stretch_of(SIM_YIELD_SIGNAL, SIM_CNT_PAGE_ZEROED,
			       "DMA_HEAP_IOCTL_ALLOC");
	assert_true(buf >= 0);
	assert_int_equal(kapi_close(buf), 0);
	assert_int_equal(kapi_close(heap), 0);
	return n;
}

/* ---- bounds the code promises ---- */

/* A MAP_DMA of at least two batches: 16 MiB with 4 KiB pages (8 batches). */
static unsigned long gup_scenario_len(void)
{
	return 2 * BATCH_PAGES * PAGE > 16 * MiB ? 2 * BATCH_PAGES * PAGE :
						    16 * MiB;
}

/*
 * A MAP_DMA that refills its batch several times: no stretch between
 * reschedule points pins more than one batch, and the stretches reach it.
 */
static void test_gup_pages_per_refill_stay_within_the_batch(void **state)
{
	assert_int_equal(gup_pages_between_yields_mapping(gup_scenario_len(),
							  NULL),
			 BATCH_PAGES);
}

/* Without vfio_pin_pages_remote()'s yield the same MAP_DMA breaks the bound. */
static void test_gup_bound_catches_a_missing_refill_yield(void **state)
{
	assert_true(gup_pages_between_yields_mapping(gup_scenario_len(),
			"vfio_pin_pages_remote") > BATCH_PAGES);
}

/*
 * UNMAP_DMA of 2048 one-page regions: vfio_sync_unpin() flushes and yields
 * every 512 regions, never later.
 */
static void test_sync_unpin_yields_every_512_regions(void **state)
{
	assert_int_equal(regions_between_yields_unmapping(2048 * PAGE, NULL),
			 TLB_SYNC_MAX);
}

/* Without vfio_sync_unpin()'s yield the 2048 regions are one stretch. */
static void test_sync_unpin_bound_catches_a_missing_yield(void **state)
{
	assert_true(regions_between_yields_unmapping(2048 * PAGE,
			"vfio_sync_unpin") > TLB_SYNC_MAX);
}

/* A heap buffer of four chunks of the largest order. */
static unsigned long heap_scenario_len(void)
{
	return 4 * heap_largest_chunk_pages() * PAGE;
}

/*
 * A four-chunk heap buffer: system_heap_allocate() checks for a fatal
 * signal before every chunk, so no stretch zeroes more than one chunk of
 * the largest order (8 in 6.12; core's orders parameter).
 */
static void test_heap_zeroes_at_most_one_chunk_per_signal_check(void **state)
{
	assert_int_equal(heap_pages_between_signal_checks(heap_scenario_len(),
							  NULL),
			 heap_largest_chunk_pages());
}

/* Without that check the whole buffer is one stretch. */
static void test_heap_bound_catches_a_missing_signal_check(void **state)
{
	assert_int_equal(heap_pages_between_signal_checks(heap_scenario_len(),
			"system_heap_allocate"), heap_scenario_len() / PAGE);
}

/* ---- known kernel gaps: loops with no yield, reported by name ---- */

/* A gap whose work no counter sees: the whole call had no yield inside. */
#define WORK_UNCOUNTED	SIM_NR_COUNTERS

struct gap {
	const char *name;	/* the kernel loop, as the notes name it */
	enum sim_counter work;	/* what it does per step, or WORK_UNCOUNTED */
	/* Drive it over npages pages, metered; what the input was, in work. */
	unsigned long long (*drive)(unsigned long npages);
	enum sim_counter also;	/* a second kind of the same work, or 0 */
};

#define GAP_PAGES	2048UL

static unsigned long long drive_replay(unsigned long npages)
{
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon_populated(npages * PAGE);
	struct kapi_vfio_dev *amd;

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	map_dma(c, va, IOVA, npages * PAGE, RW);
	sim_yield_meter_start();
	amd = attach_a_device_of_format(c, SIM_IOMMU_AMD_V1);
	sim_yield_close("VFIO_GROUP_SET_CONTAINER return");
	sim_yield_meter_stop();
	unmap_dma_exactly(c, IOVA, npages * PAGE);
	kapi_vfio_detach_dev(c, amd);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
	return npages;	/* one probe per page of the mapped DMA */
}

static unsigned long long drive_unmap_probe_run(unsigned long npages)
{
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_bar(&(struct kapi_mm_map){
		.len = npages * PAGE, .writable = 1,
		.max_leaf = KAPI_MM_LEAF_PTE }, NULL, NULL);

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	map_dma(c, va, IOVA, npages * PAGE, RW);
	sim_yield_meter_start();
	unmap_dma_exactly(c, IOVA, npages * PAGE);
	sim_yield_close("UNMAP_DMA return");
	sim_yield_meter_stop();
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
	return npages - 1;	/* the probes after the run's first page */
}

static int heap_buffer_of(unsigned long npages, int *heap)
{
	int buf;

	*heap = kapi_heap_open("system");
	assert_true(*heap >= 0);
	buf = kapi_heap_alloc(*heap, npages * PAGE, KAPI_O_RDWR, 0);
	assert_true(buf >= 0);
	return buf;
}

static unsigned long long drive_heap_release(unsigned long npages)
{
	int heap, buf = heap_buffer_of(npages, &heap);

	sim_yield_meter_start();
	assert_int_equal(kapi_close(buf), 0);
	sim_yield_close("close return");
	sim_yield_meter_stop();
	assert_int_equal(kapi_close(heap), 0);
	return npages / heap_largest_chunk_pages(); /* a free per chunk */
}

static unsigned long long drive_heap_mmap(unsigned long npages)
{
	int heap, buf = heap_buffer_of(npages, &heap);
	unsigned long va;

	sim_yield_meter_start();
	assert_int_equal(kapi_dmabuf_mmap(buf, 0, npages * PAGE, 1, &va), 0);
	sim_yield_close("mmap return");
	sim_yield_meter_stop();
	assert_int_equal(kapi_mm_munmap(va), 0);
	assert_int_equal(kapi_close(buf), 0);
	assert_int_equal(kapi_close(heap), 0);
	return npages;
}

static unsigned long long drive_heap_vmap(unsigned long npages)
{
	int heap, buf = heap_buffer_of(npages, &heap);
	void *vaddr;

	sim_yield_meter_start();
	assert_int_equal(kapi_dmabuf_vmap(buf, &vaddr), 0);
	sim_yield_close("vmap return");
	sim_yield_meter_stop();
	assert_int_equal(kapi_dmabuf_vunmap(buf, vaddr), 0);
	assert_int_equal(kapi_close(buf), 0);
	assert_int_equal(kapi_close(heap), 0);
	return npages;
}

static unsigned long long drive_pin_pages(unsigned long npages)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *mdev = attach_an_emulated_device(c);
	unsigned long va = map_anon_populated(npages * PAGE);
	static unsigned long pfns[512];
	unsigned long n = npages < 512 ? npages : 512;

	map_dma(c, va, IOVA, npages * PAGE, RW);
	sim_yield_meter_start();
	assert_int_equal(kapi_vfio_pin_pages(c, mdev, IOVA, (int)n, RW, pfns),
			 (int)n);
	sim_yield_close("vfio_pin_pages return");
	kapi_vfio_unpin_pages(c, mdev, IOVA, (int)n);
	sim_yield_close("vfio_unpin_pages return");
	sim_yield_meter_stop();
	unmap_dma_exactly(c, IOVA, npages * PAGE);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
	return n;	/* bounded by VFIO_PIN_PAGES_MAX_ENTRIES, not by a yield */
}

/* Reschedule points reached inside the metered calls (closing labels aside). */
static unsigned long long yields_inside(void)
{
	unsigned long long n = 0;
	const char *site;
	unsigned int i;

	for (i = 0; (site = sim_yield_site(SIM_YIELD_RESCHED, i)); i++)
		if (!strstr(site, " return"))
			n += sim_yield_count(SIM_YIELD_RESCHED, site);
	return n;
}

/* The largest work of g between two reschedule points, and who closed it. */
static unsigned long long largest_gap_stretch(const struct gap *g,
					      unsigned long long input,
					      const char **site)
{
	unsigned long long n;

	if (g->work == WORK_UNCOUNTED) {
		*site = sim_yield_site(SIM_YIELD_RESCHED, 0);
		return yields_inside() ? 0 : input;
	}
	n = sim_yield_max_any(SIM_YIELD_RESCHED, g->work, site);
	if (g->also) {
		const char *also_site;

		n += sim_yield_max_any(SIM_YIELD_RESCHED, g->also, &also_site);
		if (!*site)
			*site = also_site;
	}
	return n;
}

static const struct gap gaps[] = {
	{ "vfio_iommu_replay", SIM_CNT_IOMMU_WALK, drive_replay, 0 },
	{ "vfio_unmap_unpin probe run", SIM_CNT_IOMMU_WALK,
	  drive_unmap_probe_run, 0 },
	{ "system_heap_dma_buf_release", SIM_CNT_BUDDY_FREE,
	  drive_heap_release, SIM_CNT_PCP_FREE },
	{ "system_heap_mmap", WORK_UNCOUNTED, drive_heap_mmap, 0 },
	{ "system_heap_do_vmap", SIM_CNT_VMAP_PAGE, drive_heap_vmap, 0 },
	{ "vfio_iommu_type1_pin_pages", SIM_CNT_GUP_PAGE, drive_pin_pages, 0 },
	{ "vfio_iommu_type1_unpin_pages", SIM_CNT_UNPIN_PAGE, drive_pin_pages,
	  0 },
};


/*
 * Every loop the notes list as having no yield does its whole input in one
 * stretch (the documented gap, so a tree that adds a yield fails here and
 * the table must say so); the largest stretch per gap is printed.
 */
static void test_loops_without_a_yield_are_reported_by_name(void **state)
{
	size_t i;

	printf("known kernel gaps (largest work between two reschedule points, %lu-page inputs):\n",
	       GAP_PAGES);
	for (i = 0; i < ARRAY_SIZE(gaps); i++) {
		const struct gap *g = &gaps[i];
		unsigned long long input = g->drive(GAP_PAGES);
		const char *site;
		unsigned long long n = largest_gap_stretch(g, input, &site);

		printf("GAP %s: %llu %s in one stretch (closed by %s; input %llu)\n",
		       g->name, n, g->work == WORK_UNCOUNTED ?
		       "pages, no yield inside" : sim_counter_name(g->work),
		       site ? site : "-", input);
		/*
		 * core's vfio_iommu_type1.unmap_stride=1 (docs/next-bottleneck.md)
		 * removes the probe run: its unmap asks the IOMMU nothing.
		 */
		if (g->drive == drive_unmap_probe_run && unmap_stride_get() == 1)
			assert_int_equal(n, 0);
		else
			assert_true(n >= input);
	}
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_gup_pages_per_refill_stay_within_the_batch),
		T(test_gup_bound_catches_a_missing_refill_yield),
		T(test_sync_unpin_yields_every_512_regions),
		T(test_sync_unpin_bound_catches_a_missing_yield),
		T(test_slow_unmap_yields_after_every_region),
		T(test_unmap_yields_after_each_other_domain),
		T(test_map_reschedules_per_run_and_domain),
		T(test_heap_zeroes_at_most_one_chunk_per_signal_check),
		T(test_heap_bound_catches_a_missing_signal_check),
		T(test_loops_without_a_yield_are_reported_by_name),
	};

	return cmocka_run_group_tests_name("resched", tests, NULL, NULL);
}
