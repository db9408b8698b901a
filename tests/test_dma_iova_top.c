// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DMA layer at the top of a 64-bit IOVA space.  amd-v1 domains have an
 * aperture that ends at 2^64 - 1, and dma-iommu allocates IOVA top-down, so
 * a buffer's IOVA range can end exactly at 2^64, which is 0 in a u64: the
 * unmap path must still find, unmap and free the whole range.
 *
 *   IOVA  2^64 - size                                   2^64 - 1
 *         |-------------- one dma-buf, mapped ------------|
 *
 * (Found by `dmasim report`: on amd-v1 the unmap did nothing and the IOMMU
 * leaves and IOVA stayed behind.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_heap.h>
#include <dmasim/sim.h>

#include "shared.h"


static const unsigned long long sizes[] = { 4 * MiB, 64 * 1024, 2 * MiB + SIM_PAGE_SIZE };

static unsigned long long pow2_at_least(unsigned long long n)
{
	unsigned long long p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* Map, check the cover, unmap: no leaf and no IOVA left, whatever the size. */
static void test_buffer_ending_at_2_64_unmaps_completely(void **state)
{
	const struct sim_config cfg = { .ram_bytes = 1 * GiB, .seed = 1 };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct kapi_iommu_cover cover;
		struct kapi_attach *attach;
		struct sim_iommu_domain *dom;
		struct kapi_dev *dev;
		int heap, buf;

		given_a_booted_machine(&cfg);
		grow_the_fd_table();
		assert_int_equal(kapi_dev_create(SIM_IOMMU_AMD_V1, 0xffffffffu, &dev), 0);
		dom = kapi_dev_sim_domain(dev);
		heap = kapi_heap_open("system");
		assert_true(heap >= 0);
		buf = kapi_heap_alloc(heap, sizes[i], KAPI_O_RDWR, 0);
		assert_true(buf >= 0);
		assert_int_equal(kapi_dmabuf_attach(buf, dev, &attach), 0);
		assert_true(kapi_dmabuf_map(attach, KAPI_DMA_BIDIRECTIONAL) > 0);

		assert_int_equal(kapi_attach_iommu_cover(attach, &cover), 0);
		assert_true(cover.iova_size >= sizes[i]);
		assert_true(cover.nr_leaves > 0);
		/* IOVA is allocated size-aligned (to the next power of two), top-down */
		assert_true(cover.iova_start + (pow2_at_least(sizes[i]) - 1) == ~0ULL);
		assert_int_equal(sim_iova_nr_allocated(dom), 1);

		kapi_dmabuf_unmap(attach);
		assert_int_equal(sim_iommu_nr_leaves_total(dom), 0);
		assert_int_equal(sim_iova_nr_allocated(dom), 0);
		assert_int_equal(sim_kernel_warnings(), 0);

		kapi_dmabuf_detach(attach);
		assert_int_equal(kapi_close(buf), 0);
		assert_int_equal(kapi_close(heap), 0);
		kapi_dev_destroy(dev);
		assert_int_equal(sim_buddy_nr_allocated(), 0);
		check_and_destroy();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buffer_ending_at_2_64_unmaps_completely),
	};

	return cmocka_run_group_tests_name("dma_iova_top", tests, NULL, NULL);
}
