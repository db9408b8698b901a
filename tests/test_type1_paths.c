// SPDX-License-Identifier: GPL-2.0-only
/*
 * VFIO type1 where Linux 6.12's own code (upstream mode) takes paths of its
 * own: a GUP that pins nothing when the page batch is refilled midway, the
 * replay into a new domain (its memlock limit, the unwind's charge for
 * pages an emulated device holds, and the runs it copies from the first
 * domain), and dirty bitmaps of ranges that meet DMAs at their edges.
 * Every check runs against core/ too: the behaviour is the kernel's, and
 * where a tree has a known bug the check says so by name (known_bug.h).
 * At the end of each test nothing is left.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/impl.h>
#include <dmasim/kapi.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "known_bug.h"
#include "shared.h"

#define RW	KAPI_VFIO_DMA_MAP_RW
#define TOP48	((1ULL << 48) - 1)	/* last IOVA of a 48-bit aperture */
/* Pages type1's page batch holds (VFIO_BATCH_MAX_CAPACITY: a page of pointers). */
#define BATCH	(PAGE / sizeof(void *))

/* A booted machine with room for two batches of 64 KiB pages, and a process. */
static int setup(void **state)
{
	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 4 * GiB });
	given_a_process();
	return 0;
}

/* Leaves freed with a detached group's domain are no leak (type1 drops them). */
static int teardown(void **state)
{
	check_and_destroy_except(LEAK_LEAVES);
	return 0;
}

/* ---- helpers that read like sentences ---- */

static unsigned long long dma_entries_available(struct kapi_vfio *c)
{
	struct kapi_vfio_info info;

	assert_int_equal(kapi_vfio_get_info(c, &info), 0);
	assert_true(info.has_dma_avail);
	return info.dma_avail;
}

/* GET_INFO reports exactly one usable IOVA range, [start, end]. */
static void assert_the_one_iova_range_is(struct kapi_vfio *c,
					 unsigned long long start,
					 unsigned long long end)
{
	struct kapi_vfio_info info;

	assert_int_equal(kapi_vfio_get_info(c, &info), 0);
	assert_true(info.has_iova_range);
	assert_int_equal(info.nr_iovas, 1);
	assert_int_equal(info.iovas[0].start, start);
	assert_int_equal(info.iovas[0].end, end);
}

static void unmap_everything(struct kapi_vfio *c)
{
	assert_int_equal(kapi_vfio_unmap_dma(c, 0, 0,
					     KAPI_VFIO_DMA_UNMAP_FLAG_ALL,
					     NULL), 0);
}

/* A THP-backed buffer of len bytes (physically contiguous in THP_BLOCKs). */
static unsigned long map_thp(unsigned long len)
{
	return map_memory(&(struct kapi_mm_map){
		.len = len, .kind = KAPI_MM_THP, .writable = 1, .align = PMD,
	});
}

/* ---- GUP ---- */

/*
 *   va:   [ anon: one batch of pages + 1 ]   iova 1 GiB
 *   GUP calls: 1st fills the batch, 2nd (the refill) pins nothing
 *
 * A GUP that pins nothing when type1 refills its batch midway through a
 * DMA: the map fails with -EFAULT and leaves nothing pinned, charged or
 * mapped.  A tree with known bug type1-gup-zero-maps-nothing (before 6.15)
 * takes the 0 as the end of the run it was extending instead: the map
 * succeeds, and then every page must be mapped to the CPU's pfn and
 * charged exactly once (the run that ended at the refill too).
 */
static void test_gup_pinning_nothing_at_a_refill(void **state)
{
	const unsigned long npages = BATCH + 1;
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	unsigned long va = map_anon(npages * PAGE);
	long ret;

	kapi_mm_set_rlimit_memlock(npages * PAGE);
	assert_int_equal(kapi_mm_touch(va, npages * PAGE, 1), 0);
	kapi_mm_gup_hook(2, KAPI_GUP_ZERO, 0, 0);
	ret = kapi_vfio_map_dma(c, va, GiB, npages * PAGE, RW);
	kapi_mm_hooks_reset();
	if (expect_known_bug(TYPE1_GUP_ZERO, ret == -EFAULT)) {
		assert_int_equal(ret, -EFAULT);
		assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
		assert_int_equal(kapi_mm_locked_vm(), 0);
		assert_int_equal(dma_entries_available(c), 65535);
	} else {
		assert_int_equal(ret, 0);
		assert_iommu_matches_cpu(dev, GiB, va, npages * PAGE);
		assert_int_equal(kapi_mm_locked_vm(), npages);
		unmap_dma_exactly(c, GiB, npages * PAGE);
		assert_int_equal(kapi_mm_locked_vm(), 0);
	}
	kapi_vfio_close(c);
}

/* ---- the memlock limit ---- */

/*
 *   va: [ anon 5 pages ]   RLIMIT_MEMLOCK 4 pages
 *
 * MAP_DMA of one page more than RLIMIT_MEMLOCK allows stops at that page:
 * -ENOMEM, with the one warning that names the limit in bytes, and
 * nothing stays pinned, charged or mapped; exactly the limit maps.
 */
static void test_map_dma_one_page_over_the_memlock_limit(void **state)
{
	const unsigned long n = 4;
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	unsigned long va = map_anon((n + 1) * PAGE);
	unsigned long long warnings;
	char want[64];

	kapi_mm_set_rlimit_memlock(n * PAGE);
	warnings = sim_klog_count(SIM_KLOG_WARNING);
	assert_int_equal(kapi_vfio_map_dma(c, va, 0, (n + 1) * PAGE, RW), -ENOMEM);
	assert_int_equal(sim_klog_count(SIM_KLOG_WARNING), warnings + 1);
	snprintf(want, sizeof(want), "RLIMIT_MEMLOCK (%lu) exceeded",
		 (unsigned long)(n * PAGE));
	assert_non_null(strstr(sim_klog_last(), want));
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	assert_int_equal(kapi_mm_pins_outstanding(), at_start.pins);

	map_dma(c, va, 0, n * PAGE, RW);
	assert_int_equal(kapi_mm_locked_vm(), n);
	unmap_everything(c);
	kapi_vfio_close(c);
}

/* ---- external pins ---- */

/*
 *   va: [ anon 1 page ] -> iova 0, an emulated device only (pins charge)
 *
 * An emulated device's pin that would go over RLIMIT_MEMLOCK is -ENOMEM,
 * and the log says which limit, once; a pin whose charge fails otherwise
 * (the mmap lock wait interrupted: -EINTR) says nothing of a limit.
 * Nothing stays pinned or charged.
 */
static void test_external_pin_over_the_memlock_limit_is_logged(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *mdev = attach_an_emulated_device(c);
	unsigned long va = map_anon(PAGE);
	unsigned long long warnings;
	unsigned long pfn;

	map_dma(c, va, 0, PAGE, RW);
	kapi_mm_set_rlimit_memlock(0);
	warnings = sim_klog_count(SIM_KLOG_WARNING);
	assert_int_equal(kapi_vfio_pin_pages(c, mdev, 0, 1, RW, &pfn), -ENOMEM);
	assert_int_equal(sim_klog_count(SIM_KLOG_WARNING), warnings + 1);
	assert_non_null(strstr(sim_klog_last(), "RLIMIT_MEMLOCK (0) exceeded"));

	kapi_mm_set_rlimit_memlock(8 * MiB);
	fail_nth_call_of("shim/mm/account_locked_vm", 0);
	assert_int_equal(kapi_vfio_pin_pages(c, mdev, 0, 1, RW, &pfn), -EINTR);
	stop_failing("shim/mm/account_locked_vm");
	assert_int_equal(sim_klog_count(SIM_KLOG_WARNING), warnings + 1);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	assert_int_equal(kapi_vfio_dev_nr_pins(mdev), 0);
	unmap_everything(c);
	kapi_vfio_close(c);
}

/* ---- the nesting container type ---- */

/*
 * A nesting container (type 6, VFIO_TYPE1_NESTING_IOMMU: a v2 container
 * whose every new domain must nest; 6.12's type1 takes it, core refuses
 * the type, DMASIM_IMPL_TYPE1_OPEN_TAKES_NESTING_TYPE): a group behind
 * an IOMMU that cannot nest (intel-sl has no enable_nesting) is refused
 * with -EINVAL and leaves nothing; a v2 container takes the same device.
 */
static void test_nesting_container_needs_an_iommu_that_nests(void **state)
{
	struct kapi_vfio *c;
	struct kapi_vfio_dev *dev;

	if (!DMASIM_IMPL_TYPE1_OPEN_TAKES_NESTING_TYPE) {
		assert_int_equal(kapi_vfio_open(KAPI_VFIO_TYPE1_NESTING_IOMMU, &c),
				 -EINVAL);
		return;
	}
	c = open_a_container(KAPI_VFIO_TYPE1_NESTING_IOMMU);
	assert_int_equal(kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_INTEL_SL, &dev),
			 -EINVAL);
	kapi_vfio_close(c);
	assert_nothing_held();
	c = open_a_v2_container();
	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	kapi_vfio_close(c);
}

/* ---- the replay into a new domain ---- */

/*
 *   va:   [ a: anon 64 pages ]  [ b: anon 64 pages ]
 *   iova: 0                     1 GiB
 *   RLIMIT_MEMLOCK 96 pages; the emulated device pins a's first 4 pages
 *
 * The first IOMMU group replays both DMAs, charging the owner for what it
 * pins but for the 4 pages the emulated device is charged for already: a
 * fits under the limit, b does not (-ENOMEM; test_type1_groups.c checks
 * the limit itself).  The unwind of a gives back its pins and its charge,
 * but for the emulated device's 4 pages, which stay pinned and charged
 * until the device unpins them.
 */
static void test_replay_unwind_keeps_external_charges(void **state)
{
	const unsigned long n = 64;
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *mdev = attach_an_emulated_device(c), *dev;
	unsigned long a = map_anon(n * PAGE), b = map_anon(n * PAGE);
	unsigned long pfns[4];

	map_dma(c, a, 0, n * PAGE, RW);
	map_dma(c, b, GiB, n * PAGE, RW);
	assert_int_equal(kapi_vfio_pin_pages(c, mdev, 0, 4, RW, pfns), 4);
	assert_int_equal(kapi_mm_locked_vm(), 4);
	kapi_mm_set_rlimit_memlock(n * PAGE + n / 2 * PAGE);

	assert_int_equal(kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_INTEL_SL, &dev),
			 -ENOMEM);
	assert_int_equal(kapi_mm_locked_vm(), 4);
	assert_int_equal(kapi_mm_pins_outstanding(), at_start.pins + 4);
	assert_int_equal(kapi_vfio_dev_nr_pins(mdev), 4);

	kapi_vfio_unpin_pages(c, mdev, 0, 4);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	unmap_everything(c);
	kapi_vfio_detach_dev(c, mdev);
	kapi_vfio_close(c);
}

/*
 *   va:   [ a: page 0, page 1 ]  [ b: gone ]      (emulated device only)
 *   a's pages touched in reverse: page 1 gets its pfn before page 0
 *
 * The first IOMMU group's replay pins and maps a, then fails at b
 * (-EFAULT) and unwinds a run by run as the new domain maps it: each run
 * ends where the physical pages stop being contiguous, so exactly a's
 * two pages are unpinned, whatever their order in memory.
 */
static void test_replay_unwind_of_pages_out_of_order(void **state)
{
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *mdev = attach_an_emulated_device(c), *dev;
	unsigned long a = map_anon(2 * PAGE), b = map_anon(PAGE);
	unsigned long pfn0, pfn1;
	int level;

	assert_int_equal(kapi_mm_touch(a + PAGE, PAGE, 1), 0);
	assert_int_equal(kapi_mm_touch(a, PAGE, 1), 0);
	assert_int_equal(kapi_mm_cpu_pfn(a, &pfn0, &level), 0);
	assert_int_equal(kapi_mm_cpu_pfn(a + PAGE, &pfn1, &level), 0);
	assert_true(pfn1 != pfn0 + 1);
	map_dma(c, a, 0, 2 * PAGE, RW);
	map_dma(c, b, GiB, PAGE, RW);
	assert_int_equal(kapi_mm_munmap(b), 0);

	assert_int_equal(kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_INTEL_SL, &dev),
			 -EFAULT);
	assert_int_equal(kapi_mm_pins_outstanding(), at_start.pins);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	unmap_everything(c);
	kapi_vfio_detach_dev(c, mdev);
	kapi_vfio_close(c);
}

/*
 *   va:   [ THP ]   iova 0, mapped by an intel-sl domain in superpages
 *   then an amd-v1 group joins: its domain is filled from intel-sl's
 *
 * The replay copies a DMA the first domain maps in runs as long as that
 * domain's translations stay physically contiguous, so the new domain
 * maps it with the leaves a MAP_DMA straight into a domain of its own
 * format gives (superpages), each to the CPU's pfn, not page by page.
 */
static void test_replay_copies_contiguous_runs_whole(void **state)
{
	const unsigned long len = THP_BLOCK;
	struct kapi_vfio *c = open_a_v2_container(), *alone = open_a_v2_container();
	struct kapi_vfio_dev *ref = attach_a_device_of_format(alone, SIM_IOMMU_AMD_V1);
	struct kapi_vfio_dev *dev;
	unsigned long va = map_thp(len);

	kapi_mm_set_rlimit_memlock(2 * len);
	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	map_dma(alone, va, 0, len, RW);
	map_dma(c, va, 0, len, RW);
	assert_true(kapi_vfio_dev_nr_leaves(ref) < len / PAGE);

	dev = attach_a_device_of_format(c, SIM_IOMMU_AMD_V1);
	assert_iommu_matches_cpu(dev, 0, va, len);
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev), kapi_vfio_dev_nr_leaves(ref));
	assert_int_equal(kapi_mm_locked_vm(), 2 * len / PAGE);

	unmap_everything(c);
	unmap_everything(alone);
	kapi_vfio_close(c);
	kapi_vfio_close(alone);
}

/* ---- apertures and reserved regions ---- */

/*
 *   container: intel-sl, aperture [1 GiB, 2^48 - 1]; DMA at 2 GiB
 *   joins:     amd-v1,   aperture [2 GiB, 2^48 - 1]              -> 0
 *   container: intel-sl, aperture [0, 2^48 - 1];     DMA at 1 TiB
 *   joins:     amd-v1,   aperture [0, 1 TiB - 1]                 -> -EINVAL
 *   container: amd-v1,   aperture [0, 3 * 2^62 - 1];  DMA at 2^63
 *   joins:     amd-v1,   aperture [0, 3 * 2^61 - 1]              -> -EINVAL
 *
 * A group whose aperture starts above the container's range, exactly at
 * a DMA, cuts off only the part of the range below it, where nothing is
 * mapped: it joins, the range narrows to its aperture, and the DMA is
 * mapped in its domain too.  One whose aperture ends below a DMA would
 * cut the DMA off: -EINVAL, and the range and the DMA's mapping stay as
 * they were.  (These ranges end below 2^64 - 1, so the search for DMAs
 * above the new end is a plain one; test_type1_groups.c's
 * test_aperture_conflicts cuts off a DMA from a range ending at 2^64 - 1.)
 */
static void test_apertures_at_dma_edges_inside_the_range(void **state)
{
	static const struct {
		const char *what;
		struct kapi_vfio_dev_opts first, second;
		unsigned long long dma_iova;
		int ret;
		unsigned long long start, end;	/* the range after */
	} cases[] = {
		{ "starts at a DMA above the range's start",
		  { .fmt = SIM_IOMMU_INTEL_SL, .aperture_start = GiB,
		    .aperture_end = TOP48 },
		  { .fmt = SIM_IOMMU_AMD_V1, .aperture_start = 2 * GiB,
		    .aperture_end = TOP48 },
		  2 * GiB, 0, 2 * GiB, TOP48 },
		{ "ends below a DMA",
		  { .fmt = SIM_IOMMU_INTEL_SL },
		  { .fmt = SIM_IOMMU_AMD_V1, .aperture_end = TiB - 1 },
		  TiB, -EINVAL, 0, TOP48 },
		{ "ends below a DMA, both high in the 64-bit space",
		  { .fmt = SIM_IOMMU_AMD_V1, .aperture_end = 0xbfffffffffffffffULL },
		  { .fmt = SIM_IOMMU_AMD_V1, .aperture_end = 0x5fffffffffffffffULL },
		  1ULL << 63, -EINVAL, 0, 0xbfffffffffffffffULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kapi_vfio *c = open_a_v2_container();
		struct kapi_vfio_dev *first = attach_a_device_with(c, &cases[i].first);
		unsigned long long iova = cases[i].dma_iova;
		unsigned long va = map_anon(2 * MiB);
		struct kapi_vfio_dev *second;

		print_message("aperture %s\n", cases[i].what);
		map_dma(c, va, iova, 2 * MiB, RW);
		assert_int_equal(kapi_vfio_attach_iommu_dev_opts(c,
				 &cases[i].second, &second), cases[i].ret);
		assert_the_one_iova_range_is(c, cases[i].start, cases[i].end);
		assert_iommu_matches_cpu(first, iova, va, 2 * MiB);
		if (!cases[i].ret)
			assert_iommu_matches_cpu(second, iova, va, 2 * MiB);
		assert_int_equal(kapi_mm_locked_vm(), 2 * MiB / PAGE);
		unmap_everything(c);
		kapi_vfio_close(c);
		assert_int_equal(kapi_mm_munmap(va), 0);
	}
}

/*
 *   container: intel-sl, aperture [1 TiB, 1 TiB] (one byte)
 *   joins:     amd-v1,   aperture [1 TiB, 2 TiB - 1]  (starts at the byte)
 *   joins:     amd-v1,   aperture [0, 1 TiB]          (ends at the byte)
 *
 * A group whose aperture starts or ends at a one-byte range keeps that
 * byte: it joins and the range stays [1 TiB, 1 TiB]; when it leaves, the
 * same.  (6.12's vfio_iommu_aper_resize() drops a one-byte range the new
 * aperture starts or ends at, its tests 'start < node->end' and
 * 'end > node->start' failing: no range is left and the attach is
 * -EINVAL, the range unchanged; see test_type1_groups.c's
 * test_aperture_sharing_one_byte_joins.)
 */
static void test_apertures_at_a_one_byte_range(void **state)
{
	static const struct kapi_vfio_dev_opts first = {
		.fmt = SIM_IOMMU_INTEL_SL, .aperture_start = TiB,
		.aperture_end = TiB,
	}, second[] = {
		{ .fmt = SIM_IOMMU_AMD_V1, .aperture_start = TiB,
		  .aperture_end = 2 * TiB - 1 },
		{ .fmt = SIM_IOMMU_AMD_V1, .aperture_end = TiB },
	};

	for (size_t i = 0; i < ARRAY_SIZE(second); i++) {
		struct kapi_vfio *c = open_a_v2_container();
		struct kapi_vfio_dev *dev;

		attach_a_device_with(c, &first);
		assert_the_one_iova_range_is(c, TiB, TiB);
		if (DMASIM_IMPL_IS_UPSTREAM) {
			assert_int_equal(kapi_vfio_attach_iommu_dev_opts(c,
					 &second[i], &dev), -EINVAL);
		} else {
			dev = attach_a_device_with(c, &second[i]);
			assert_the_one_iova_range_is(c, TiB, TiB);
			kapi_vfio_detach_dev(c, dev);
		}
		assert_the_one_iova_range_is(c, TiB, TiB);
		kapi_vfio_close(c);
	}
}

/*
 *   aperture [0, 2 GiB - 1]
 *   iova: [ usable ... 2 GiB - 2 ][ reserved: 2 GiB - 1 .. 2 GiB + 1 page - 1 ]
 *
 * A reserved region that starts at the last byte of a page, the
 * aperture's last byte, takes that byte out of the usable range, which
 * ends at 2 GiB - 2, and with it the page: MAP_DMA of the page is -EINVAL
 * (nothing pinned or mapped), of the page below it works.
 */
static void test_reserved_region_from_a_page_last_byte(void **state)
{
	struct kapi_vfio_dev_opts o = {
		.fmt = SIM_IOMMU_INTEL_SL, .aperture_end = 2 * GiB - 1,
		.nr_resv = 1,
		.resv = { { 2 * GiB - 1, PAGE + 1, KAPI_VFIO_RESV_RESERVED } },
	};
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_with(c, &o);
	unsigned long va = map_anon(2 * PAGE);

	assert_the_one_iova_range_is(c, 0, 2 * GiB - 2);
	assert_int_equal(kapi_vfio_map_dma(c, va, 2 * GiB - PAGE, PAGE, RW),
			 -EINVAL);
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	map_dma(c, va, 2 * GiB - 2 * PAGE, PAGE, RW);
	assert_iommu_matches_cpu(dev, 2 * GiB - 2 * PAGE, va, PAGE);
	unmap_everything(c);
	kapi_vfio_close(c);
}

/*
 *   aperture [1 GiB, 2^48 - 1]; reserved [1 GiB - 1 page, 1 GiB]
 *
 * A reserved region whose last byte is the aperture's first takes that
 * byte: the usable range starts at 1 GiB + 1, MAP_DMA of the page at
 * 1 GiB is -EINVAL (nothing pinned), of the page after it works.
 */
static void test_reserved_region_ending_at_the_aperture_start(void **state)
{
	struct kapi_vfio_dev_opts o = {
		.fmt = SIM_IOMMU_INTEL_SL, .aperture_start = GiB,
		.aperture_end = TOP48, .nr_resv = 1,
		.resv = { { GiB - PAGE, PAGE + 1, KAPI_VFIO_RESV_RESERVED } },
	};
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_with(c, &o);
	unsigned long va = map_anon(PAGE);

	assert_the_one_iova_range_is(c, GiB + 1, TOP48);
	assert_int_equal(kapi_vfio_map_dma(c, va, GiB, PAGE, RW), -EINVAL);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	map_dma(c, va, GiB + PAGE, PAGE, RW);
	assert_iommu_matches_cpu(dev, GiB + PAGE, va, PAGE);
	unmap_everything(c);
	kapi_vfio_close(c);
}

/* ---- dirty bitmaps of ranges at DMA edges ---- */

/*
 *   iova: [ a: DIRTY_LEN ][ b: DIRTY_LEN ]   (adjacent; tracking on)
 *
 * GET_BITMAP of a and b together, from a's first byte, is accepted (no
 * DMA is cut: the range ends where b ends) and reports every page of
 * both; of a alone it writes a's bits and nothing of b's after them, even
 * into a bitmap larger than the range needs.  A range that starts in the
 * hole below a and ends inside a cuts a; one that starts a byte into the
 * page below a, or ends a byte into b, is not whole pages: -EINVAL, and
 * nothing written.
 */
static void test_dirty_bitmaps_of_ranges_at_dma_edges(void **state)
{
	const unsigned long words = DIRTY_LEN / PAGE / 64;
	struct kapi_vfio *c = open_a_v2_container();
	unsigned long va = map_anon(2 * DIRTY_LEN);
	unsigned long long bits[2 * DIRTY_LEN / PAGE / 64];

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	map_dma(c, va, GiB, DIRTY_LEN, RW);
	map_dma(c, va + DIRTY_LEN, GiB + DIRTY_LEN, DIRTY_LEN, RW);
	assert_int_equal(kapi_vfio_dirty_start(c), 0);

	memset(bits, 0, sizeof(bits));
	assert_int_equal(kapi_vfio_dirty_get(c, GiB, 2 * DIRTY_LEN, PAGE, bits,
					     sizeof(bits)), 0);
	for (unsigned long i = 0; i < 2 * words; i++)
		assert_int_equal(bits[i], ~0ULL);

	memset(bits, 0, sizeof(bits));
	assert_int_equal(kapi_vfio_dirty_get(c, GiB, DIRTY_LEN, PAGE, bits,
					     sizeof(bits)), 0);
	for (unsigned long i = 0; i < 2 * words; i++)
		assert_int_equal(bits[i], i < words ? ~0ULL : 0);

	memset(bits, 0, sizeof(bits));
	assert_int_equal(kapi_vfio_dirty_get(c, GiB - DIRTY_LEN,
					     DIRTY_LEN + DIRTY_LEN / 2, PAGE,
					     bits, sizeof(bits)), -EINVAL);
	assert_int_equal(kapi_vfio_dirty_get(c, GiB - PAGE + 1, PAGE, PAGE,
					     bits, sizeof(bits)), -EINVAL);
	assert_int_equal(kapi_vfio_dirty_get(c, GiB, DIRTY_LEN + 1, PAGE,
					     bits, sizeof(bits)), -EINVAL);
	for (unsigned long i = 0; i < 2 * words; i++)
		assert_int_equal(bits[i], 0);

	assert_int_equal(kapi_vfio_dirty_stop(c), 0);
	unmap_everything(c);
	kapi_vfio_close(c);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_gup_pinning_nothing_at_a_refill),
		T(test_map_dma_one_page_over_the_memlock_limit),
		T(test_external_pin_over_the_memlock_limit_is_logged),
		T(test_nesting_container_needs_an_iommu_that_nests),
		T(test_replay_unwind_keeps_external_charges),
		T(test_replay_unwind_of_pages_out_of_order),
		T(test_replay_copies_contiguous_runs_whole),
		T(test_apertures_at_dma_edges_inside_the_range),
		T(test_apertures_at_a_one_byte_range),
		T(test_reserved_region_from_a_page_last_byte),
		T(test_reserved_region_ending_at_the_aperture_start),
		T(test_dirty_bitmaps_of_ranges_at_dma_edges),
	};

	return cmocka_run_group_tests(tests, boot_the_kernel, NULL);
}
