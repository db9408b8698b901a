// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest RAM in 1 GiB hugetlbfs pages beside THP: a KAPI_MM_HUGETLB_1G VMA
 * faults whole gigantic folios in, each mapped by one PUD leaf; GUP takes
 * a leaf's pages in one step; type1 pins them, maps them with the IOMMU's
 * largest leaves and gives everything back; with no free aligned GiB the
 * fault fails and MAP_DMA leaves nothing behind.  Only where a PUD leaf is
 * 1 GiB (4 KiB pages); skipped otherwise.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "shared.h"

#define RW	KAPI_VFIO_DMA_MAP_RW
#define IOVA	(64 * GiB)

/* A booted machine of ram bytes and a process; PUD leaves of 1 GiB only. */
static void given_a_machine_of(unsigned long long ram)
{
	if (PUD != GiB)
		skip();
	given_a_booted_machine(&(struct sim_config){ .ram_bytes = ram });
	given_a_process();
}

static int teardown(void **state)
{
	check_and_destroy();
	return 0;
}

static unsigned long map_hugetlb_1g(unsigned long len)
{
	return map_memory(&(struct kapi_mm_map){
		.len = len, .kind = KAPI_MM_HUGETLB_1G, .writable = 1,
	});
}

/*
 * A touch anywhere in a GiB maps the whole GiB with one PUD leaf over a
 * naturally aligned gigantic folio; munmap gives all of it back.
 */
static void test_a_touch_maps_one_pud_leaf_of_a_gigantic_folio(void **state)
{
	unsigned long va, pfn, allocated;
	int level;

	given_a_machine_of(4 * GiB);
	va = map_hugetlb_1g(2 * GiB);
	assert_int_equal(va % GiB, 0);
	allocated = sim_buddy_nr_allocated();
	assert_int_equal(kapi_mm_touch(va + GiB + 12345 * PAGE, 1, 1), 0);
	assert_int_equal(kapi_mm_cpu_pfn(va + GiB, &pfn, &level), 0);
	assert_int_equal(level, KAPI_MM_LEAF_PUD);
	assert_int_equal(pfn % PAGES_PER_PUD, 0);
	assert_int_equal(sim_buddy_nr_allocated() - allocated, PAGES_PER_PUD);
	/* The other GiB is untouched: nothing there yet. */
	assert_int_equal(kapi_mm_cpu_pfn(va, NULL, NULL), -ENOENT);
	assert_int_equal(kapi_mm_munmap(va), 0);
	assert_int_equal(sim_buddy_nr_allocated(), allocated);
}

/* hugetlbfs refuses a length or an address that is not GiB aligned. */
static void test_unaligned_hugetlb_mmaps_are_refused(void **state)
{
	static const struct {
		unsigned long addr, len;
	} cases[] = {
		{ 0, GiB + PMD },
		{ 0, PMD },
		{ 64 * GiB + PMD, GiB },
	};
	unsigned int i;

	given_a_machine_of(2 * GiB);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kapi_mm_map m = {
			.addr = cases[i].addr, .len = cases[i].len,
			.kind = KAPI_MM_HUGETLB_1G, .writable = 1,
		};
		unsigned long va = 0;

		assert_int_equal(kapi_mm_mmap(&m, &va), -EINVAL);
	}
}

/* GUP of a whole GiB takes its leaf in one step: one fault, one call. */
static void test_gup_takes_the_pud_leaf_in_one_step(void **state)
{
	static unsigned long pfns[1UL << 18];
	struct sim_counters before, d;
	unsigned long va, i;

	given_a_machine_of(4 * GiB);
	va = map_hugetlb_1g(GiB);
	sim_counters_snapshot(&before);
	assert_int_equal(kapi_mm_pin(va, PAGES_PER_PUD, 1, 1, pfns),
			 PAGES_PER_PUD);
	sim_counters_delta(&before, &sim_counters, &d);
	assert_int_equal(d.c[SIM_CNT_FAULT], 1);
	assert_int_equal(d.c[SIM_CNT_GUP_CALL], 1);
	for (i = 1; i < PAGES_PER_PUD; i++)
		assert_int_equal(pfns[i], pfns[0] + i);
	assert_int_equal(kapi_mm_pins_outstanding(), PAGES_PER_PUD);
	kapi_mm_unpin(pfns, PAGES_PER_PUD, 1);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
	assert_int_equal(kapi_mm_munmap(va), 0);
}

/*
 * type1 pins 2 GiB of 1 GiB folios, the IOMMU maps them with 1 GiB
 * leaves, locked_vm counts every page, and UNMAP_DMA gives it all back.
 */
static void test_type1_pins_gigantic_folios_and_maps_1g_leaves(void **state)
{
	struct kapi_vfio_dev *dev;
	struct kapi_vfio *c;
	unsigned long va;

	given_a_machine_of(8 * GiB);
	kapi_mm_set_rlimit_memlock(~0ULL);
	va = map_hugetlb_1g(2 * GiB);
	c = open_a_v2_container();
	dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	map_dma(c, va, IOVA, 2 * GiB, RW);
	assert_int_equal(kapi_mm_pins_outstanding(), 2 * PAGES_PER_PUD);
	assert_int_equal(kapi_mm_locked_vm(), 2 * PAGES_PER_PUD);
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 2);
	assert_iommu_matches_cpu(dev, IOVA, va, 2 * GiB);
	unmap_dma_exactly(c, IOVA, 2 * GiB);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
}

/*
 * A 2 GiB machine has one free aligned GiB (the first holds reserved low
 * memory): the second folio cannot be had, the fault fails, and MAP_DMA
 * of both GiB fails -EFAULT with nothing pinned, charged or mapped.
 */
static void test_no_free_gigantic_page_fails_map_dma_cleanly(void **state)
{
	struct kapi_vfio_dev *dev;
	struct kapi_vfio *c;
	unsigned long va;

	given_a_machine_of(2 * GiB);
	kapi_mm_set_rlimit_memlock(~0ULL);
	va = map_hugetlb_1g(2 * GiB);
	c = open_a_v2_container();
	dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	assert_int_equal(kapi_vfio_map_dma(c, va, IOVA, 2 * GiB, RW), -EFAULT);
	assert_int_equal(kapi_mm_pins_outstanding(), 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
	/* The one that could be had is mapped and stays (hugetlb memory). */
	assert_int_equal(kapi_mm_touch(va, 1, 1), 0);
	assert_int_equal(kapi_mm_touch(va + GiB, 1, 1), -EFAULT);
	kapi_vfio_close(c);
	assert_int_equal(kapi_mm_munmap(va), 0);
}

#define T(fn) cmocka_unit_test_teardown(fn, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_a_touch_maps_one_pud_leaf_of_a_gigantic_folio),
		T(test_unaligned_hugetlb_mmaps_are_refused),
		T(test_gup_takes_the_pud_leaf_in_one_step),
		T(test_type1_pins_gigantic_folios_and_maps_1g_leaves),
		T(test_no_free_gigantic_page_fails_map_dma_cleanly),
	};

	return cmocka_run_group_tests_name("hugetlb_1g", tests, NULL, NULL);
}
