// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulator's IOMMU page tables and IOVA allocator on their own (no
 * kernel code): formats, leaves by size, replicated entries on amd-v1,
 * table pages, bad requests, and the DMA layer's IOVA allocation rules.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/sim.h>

#include "shared.h"

#define RW	(SIM_IOMMU_READ | SIM_IOMMU_WRITE)

static unsigned long domains_at_start;

static struct sim_iommu_domain *fresh_domain_of_format(enum sim_iommu_format_id id)
{
	struct sim_iommu_domain *dom;

	given_a_fresh_machine(NULL);
	domains_at_start = sim_iommu_nr_domains();
	dom = sim_iommu_domain_alloc(id);
	assert_non_null(dom);
	return dom;
}

static void free_domain_and_machine(struct sim_iommu_domain *dom)
{
	sim_iommu_domain_free(dom);
	assert_int_equal(sim_iommu_nr_domains(), domains_at_start);
	sim_machine_destroy();
}

static int map(struct sim_iommu_domain *dom, unsigned long long iova,
	       sim_phys_t paddr, unsigned long long pgsize,
	       unsigned long long count)
{
	unsigned long long mapped;
	int ret = sim_iommu_map_pages(dom, iova, paddr, pgsize, count, RW, 0,
				      &mapped);

	if (!ret)
		assert_int_equal(mapped, pgsize * count);
	return ret;
}

/* ---- formats ------------------------------------------------------------ */

static const struct {
	const char *name;
	unsigned long long bitmap;
	unsigned int granule_shift, ias, levels;
} expected_formats[SIM_NR_IOMMU_FORMATS] = {
	[SIM_IOMMU_INTEL_SL] = { "intel-sl", SZ_4K | SZ_2M | SZ_1G, 12, 48, 4 },
	[SIM_IOMMU_AMD_V1] = { "amd-v1",
			       (((1ULL << 52) - 1) & ~(SZ_4K - 1)) & ~(1ULL << 39),
			       12, 64, 6 },
	[SIM_IOMMU_AMD_V2] = { "amd-v2", SZ_4K | SZ_2M | SZ_1G, 12, 48, 4 },
	[SIM_IOMMU_ARM_LPAE_4K] = { "arm-lpae-4k", SZ_4K | SZ_2M | SZ_1G, 12, 48, 4 },
	[SIM_IOMMU_ARM_LPAE_16K] = { "arm-lpae-16k", (1ULL << 14) | (1ULL << 25), 14, 47, 3 },
	[SIM_IOMMU_ARM_LPAE_64K] = { "arm-lpae-64k", (1ULL << 16) | (1ULL << 29), 16, 48, 3 },
};

/* Each format has the page sizes, granule, aperture and depth of the issue. */
static void test_formats_are_as_specified(void **state)
{
	for (int i = 0; i < SIM_NR_IOMMU_FORMATS; i++) {
		const struct sim_iommu_format *f = sim_iommu_format(i);

		assert_string_equal(f->name, expected_formats[i].name);
		assert_int_equal(f->pgsize_bitmap, expected_formats[i].bitmap);
		assert_int_equal(f->granule_shift, expected_formats[i].granule_shift);
		assert_int_equal(f->ias, expected_formats[i].ias);
		assert_int_equal(f->levels, expected_formats[i].levels);
		assert_int_equal(sim_iommu_format_lookup(f->name), i);
		/* The levels reach the whole aperture. */
		assert_true(f->granule_shift + f->levels * (f->granule_shift - 3) >=
			    f->ias);
	}
	assert_int_equal(sim_iommu_format_lookup("intel-fl"), -1);
	assert_null(sim_iommu_format(SIM_NR_IOMMU_FORMATS));
}

/* ---- leaves ------------------------------------------------------------- */

struct leaf_seen {
	unsigned long long iova, paddr, size;
	int prot;
};

static int record_leaf(void *arg, unsigned long long iova, sim_phys_t paddr,
		       unsigned long long size, int prot)
{
	struct leaf_seen **next = arg;

	**next = (struct leaf_seen){ iova, paddr, size, prot };
	(*next)++;
	return 0;
}

/*
 * amd-v1: every page size from 4K to 2^51 is one leaf, written as
 * size / entry-size replicated entries of the level below it (4K, 2M, 1G,
 * 512G or 256T entries).  Each size sits at iova = size, paddr = 2 * size.
 */
static void test_amd_v1_sizes_are_replicated_entries(void **state)
{
	struct sim_iommu_domain *dom = fresh_domain_of_format(SIM_IOMMU_AMD_V1);
	static struct leaf_seen seen[64];
	struct leaf_seen *next = seen;
	unsigned int n = 0;

	for (unsigned int shift = 12; shift <= 51; shift++) {
		unsigned long long size = 1ULL << shift;
		unsigned int entry_shift = 12 + (shift - 12) / 9 * 9;
		struct sim_counters before, after, delta;

		if (shift == 39)
			continue;	/* 512G is not in the bitmap */
		sim_counters_snapshot(&before);
		assert_int_equal(map(dom, size, 2 * size, size, 1), 0);
		sim_counters_snapshot(&after);
		sim_counters_delta(&before, &after, &delta);
		assert_int_equal(delta.c[SIM_CNT_IOMMU_PTE_WRITE],
				 size >> entry_shift);
		assert_int_equal(sim_iommu_nr_leaves(dom, shift), 1);
		assert_int_equal(sim_iommu_iova_to_phys(dom, size + size - 1),
				 2 * size + size - 1);
		n++;
	}
	assert_int_equal(sim_iommu_nr_leaves_total(dom), n);
	/* The walk reports each leaf once, in IOVA order. */
	assert_int_equal(sim_iommu_for_each_leaf(dom, record_leaf, &next), 0);
	assert_int_equal(next - seen, n);
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(seen[i].iova, seen[i].size);
		assert_int_equal(seen[i].paddr, 2 * seen[i].size);
		assert_int_equal(seen[i].prot, RW);
		if (i)
			assert_true(seen[i].iova > seen[i - 1].iova);
	}
	/* A request inside a replicated leaf clears all of its entries. */
	assert_int_equal(sim_iommu_unmap_pages(dom, (1ULL << 44) + SZ_1G * 5,
					       SZ_4K, 1), 1ULL << 44);
	assert_int_equal(sim_iommu_nr_leaves(dom, 44), 0);
	assert_int_equal(sim_iommu_iova_to_phys(dom, 1ULL << 44), 0);
	for (unsigned int i = 0; i < n; i++)
		if (seen[i].size != 1ULL << 44)
			assert_int_equal(sim_iommu_unmap_pages(dom, seen[i].iova,
							       seen[i].size, 1),
					 seen[i].size);
	assert_int_equal(sim_iommu_nr_leaves_total(dom), 0);
	assert_int_equal(sim_iommu_nr_tables(dom), 1);
	free_domain_and_machine(dom);
}

/* The leaf covering an address reports its base, size and protection. */
static void test_leaf_at_reports_the_covering_leaf(void **state)
{
	struct sim_iommu_domain *dom = fresh_domain_of_format(SIM_IOMMU_ARM_LPAE_64K);
	unsigned long long base = 0;
	unsigned long long mapped;
	int prot = 0;

	assert_int_equal(sim_iommu_map_pages(dom, 1ULL << 29, 1ULL << 30,
					     1ULL << 29, 1, SIM_IOMMU_READ, 0,
					     &mapped), 0);
	assert_int_equal(sim_iommu_leaf_at(dom, (1ULL << 29) + 12345, &base,
					   &prot), 1ULL << 29);
	assert_int_equal(base, 1ULL << 29);
	assert_int_equal(prot, SIM_IOMMU_READ);
	assert_int_equal(sim_iommu_leaf_at(dom, 0, &base, &prot), 0);
	assert_int_equal(sim_iommu_leaf_at(dom, 1ULL << 48, &base, &prot), 0);
	assert_int_equal(sim_iommu_unmap_pages(dom, 1ULL << 29, 1ULL << 29, 1),
			 1ULL << 29);
	free_domain_and_machine(dom);
}

struct bad_request {
	const char *what;
	unsigned long long iova, paddr, pgsize, count;
};

static const struct bad_request bad_requests[] = {
	{ "page size not in the bitmap", 0, 0, SZ_8K, 1 },
	{ "not a power of two", 0, 0, 3 * SZ_4K, 1 },
	{ "iova not page aligned", SZ_4K, 0, SZ_2M, 1 },
	{ "paddr not page aligned", 0, SZ_4K, SZ_2M, 1 },
	{ "count 0", 0, 0, SZ_4K, 0 },
	{ "past the 48-bit aperture", (1ULL << 48) - SZ_4K, 0, SZ_4K, 2 },
	{ "size overflows", 0, 0, SZ_1G, 1ULL << 40 },
	{ "paddr wraps", 0, 0ULL - SZ_4K, SZ_4K, 2 },
};

/* Bad requests are -EINVAL and write nothing. */
static void test_bad_requests_write_nothing(void **state)
{
	struct sim_iommu_domain *dom = fresh_domain_of_format(SIM_IOMMU_INTEL_SL);

	for (size_t i = 0; i < ARRAY_SIZE(bad_requests); i++) {
		const struct bad_request *b = &bad_requests[i];
		unsigned long long mapped = 1;

		assert_int_equal(sim_iommu_map_pages(dom, b->iova, b->paddr,
						     b->pgsize, b->count, RW, 0,
						     &mapped), -EINVAL);
		assert_int_equal(mapped, 0);
		assert_int_equal(sim_iommu_nr_leaves_total(dom), 0);
		assert_int_equal(sim_iommu_nr_tables(dom), 1);
	}
	free_domain_and_machine(dom);
}

/*
 * A run of leaves that meets a mapped entry stops there: the leaves before
 * it stay (and are reported in *mapped), nothing after it is written.
 *  IOVA 0    4K   8K   12K
 *       |new |new |old |     -EEXIST, mapped = 8K
 */
static void test_run_stops_at_an_existing_leaf(void **state)
{
	struct sim_iommu_domain *dom = fresh_domain_of_format(SIM_IOMMU_AMD_V2);
	unsigned long long mapped;

	assert_int_equal(map(dom, SZ_8K, 0, SZ_4K, 1), 0);
	assert_int_equal(sim_iommu_map_pages(dom, 0, SZ_1M, SZ_4K, 4, RW, 0,
					     &mapped), -EEXIST);
	assert_int_equal(mapped, SZ_8K);
	assert_int_equal(sim_iommu_nr_leaves_total(dom), 3);
	assert_int_equal(sim_iommu_iova_to_phys(dom, SZ_8K), 0);
	assert_int_equal(sim_iommu_unmap_pages(dom, 0, SZ_4K, 3), 3 * SZ_4K);
	assert_int_equal(sim_iommu_nr_tables(dom), 1);
	free_domain_and_machine(dom);
}

/* Leaves still mapped when a domain is freed are dropped and counted. */
static void test_freeing_a_mapped_domain_drops_its_leaves(void **state)
{
	struct sim_iommu_domain *dom = fresh_domain_of_format(SIM_IOMMU_ARM_LPAE_16K);

	assert_int_equal(sim_iommu_leaves_dropped(), 0);
	assert_int_equal(map(dom, 0, 0, 1ULL << 14, 5), 0);
	assert_int_equal(map(dom, 1ULL << 25, 0, 1ULL << 25, 1), 0);
	sim_iommu_domain_free(dom);
	assert_int_equal(sim_iommu_leaves_dropped(), 6);
	assert_int_equal(sim_iommu_nr_domains(), domains_at_start);
	sim_machine_destroy();
}

/* ---- IOVA allocator ---------------------------------------------------- */

/*
 *  IOVA 0      4K                               limit (4G - 1)
 *       |never |          ... free ...  |  a  |
 * A range is the highest fit below the limit, aligned to its power of two.
 */
static void test_iova_is_top_down_and_size_aligned(void **state)
{
	struct sim_iommu_domain *dom = fresh_domain_of_format(SIM_IOMMU_INTEL_SL);
	const unsigned long long limit = (1ULL << 32) - 1;
	unsigned long long a, b, c, d;

	assert_int_equal(sim_iova_alloc(dom, SZ_4K, limit, &a), 0);
	assert_int_equal(a, (1ULL << 32) - SZ_4K);
	/* 12K rounds up to 16K (below 32 granules) and aligns to 16K. */
	assert_int_equal(sim_iova_length(dom, 3 * SZ_4K), 4 * SZ_4K);
	assert_int_equal(sim_iova_alloc(dom, 3 * SZ_4K, limit, &b), 0);
	assert_int_equal(b, (1ULL << 32) - 0x8000);
	/* 33 granules keep their length but align to 64 granules. */
	assert_int_equal(sim_iova_length(dom, 33 * SZ_4K), 33 * SZ_4K);
	assert_int_equal(sim_iova_alloc(dom, 33 * SZ_4K, limit, &c), 0);
	assert_int_equal(c, (1ULL << 32) - 64 * SZ_4K);
	assert_int_equal(sim_iova_nr_allocated(dom), 3);
	/* A freed range is found again. */
	assert_int_equal(sim_iova_free(dom, a, SZ_4K), 0);
	assert_int_equal(sim_iova_free(dom, a, SZ_4K), -ENOENT);
	assert_int_equal(sim_iova_alloc(dom, 100, limit, &d), 0);
	assert_int_equal(d, a);
	/* A limit past the 48-bit aperture is capped to it. */
	assert_int_equal(sim_iova_alloc(dom, SZ_2M, ~0ULL, &d), 0);
	assert_int_equal(d, (1ULL << 48) - SZ_2M);
	assert_int_equal(sim_iova_alloc(dom, 0, limit, &d), -EINVAL);
	assert_int_equal(sim_iova_nr_allocated(dom), 4);
	/* The domain's ranges go with it. */
	free_domain_and_machine(dom);
}

/*
 * Below a small limit the space fills up; IOVA 0 is never handed out.
 *  IOVA 0    4K   8K   12K  16K-1 = limit
 *       | x  | c  | b  | a  |
 */
static void test_iova_runs_out_below_a_small_limit(void **state)
{
	struct sim_iommu_domain *dom = fresh_domain_of_format(SIM_IOMMU_AMD_V1);
	unsigned long long got[3], extra;

	for (int i = 0; i < 3; i++) {
		assert_int_equal(sim_iova_alloc(dom, SZ_4K, 4 * SZ_4K - 1, &got[i]), 0);
		assert_int_equal(got[i], (3 - i) * SZ_4K);
	}
	assert_int_equal(sim_iova_alloc(dom, SZ_4K, 4 * SZ_4K - 1, &extra),
			 -ENOMEM);
	assert_int_equal(sim_iova_free(dom, got[1], SZ_4K), 0);
	assert_int_equal(sim_iova_alloc(dom, SZ_8K, 4 * SZ_4K - 1, &extra),
			 -ENOMEM);
	assert_int_equal(sim_iova_alloc(dom, SZ_4K, 4 * SZ_4K - 1, &extra), 0);
	assert_int_equal(extra, got[1]);
	/* amd-v1 has the whole 64-bit space. */
	assert_int_equal(sim_iova_alloc(dom, SZ_64K, ~0ULL, &extra), 0);
	assert_int_equal(extra, 0ULL - SZ_64K);
	free_domain_and_machine(dom);
}

/* Many allocations and frees in mixed order keep ranges disjoint. */
static void test_iova_ranges_never_overlap(void **state)
{
	struct sim_iommu_domain *dom = fresh_domain_of_format(SIM_IOMMU_ARM_LPAE_4K);
	static unsigned long long start[512], len[512];
	unsigned long long seed = 7;

	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 512; i++) {
			unsigned long long size = (sim_rand_next(&seed) % 300 + 1) * 100;
			assert_int_equal(sim_iova_alloc(dom, size, (1ULL << 36) - 1,
							&start[i]), 0);
			unsigned long long align = SZ_4K;

			len[i] = sim_iova_length(dom, size);
			while (align < len[i])
				align *= 2;
			assert_int_equal(start[i] % align, 0);
			assert_true(start[i] + len[i] - 1 <= (1ULL << 36) - 1);
		}
		for (int i = 0; i < 512; i++)
			for (int j = i + 1; j < 512; j++)
				assert_true(start[i] + len[i] <= start[j] ||
					    start[j] + len[j] <= start[i]);
		for (int i = round % 2; i < 512; i += 2)
			assert_int_equal(sim_iova_free(dom, start[i], len[i]), 0);
		for (int i = 1 - round % 2; i < 512; i += 2)
			assert_int_equal(sim_iova_free(dom, start[i], len[i]), 0);
		assert_int_equal(sim_iova_nr_allocated(dom), 0);
	}
	free_domain_and_machine(dom);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats_are_as_specified),
		cmocka_unit_test(test_amd_v1_sizes_are_replicated_entries),
		cmocka_unit_test(test_leaf_at_reports_the_covering_leaf),
		cmocka_unit_test(test_bad_requests_write_nothing),
		cmocka_unit_test(test_run_stops_at_an_existing_leaf),
		cmocka_unit_test(test_freeing_a_mapped_domain_drops_its_leaves),
		cmocka_unit_test(test_iova_is_top_down_and_size_aligned),
		cmocka_unit_test(test_iova_runs_out_below_a_small_limit),
		cmocka_unit_test(test_iova_ranges_never_overlap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
