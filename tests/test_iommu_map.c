// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu_map() / iommu_unmap() / iommu_iova_to_phys() through the IOMMU core
 * under test and the simulated driver, on every page-table format: leaves
 * by size, whole-leaf unmap, errors that leave nothing behind, unwinding
 * after driver failures, IOTLB syncs, domain and table lifetimes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_iommu.h>
#include <dmasim/sim.h>

#include "shared.h"

#define RW	(KAPI_IOMMU_READ | KAPI_IOMMU_WRITE)

struct fixture {
	struct kapi_iommu_dev *dev;
	struct kapi_iommu_domain *domain;	/* an UNMANAGED paging domain */
	struct sim_iommu_domain *tables;
};

static struct fixture fx;

/* ---- helpers ---------------------------------------------------------- */

static void machine_with_device_of_format(enum sim_iommu_format_id fmt)
{
	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 1 * GiB });
	assert_int_equal(kapi_iommu_dev_create("dev0", fmt, NULL, &fx.dev), 0);
	assert_int_equal(kapi_iommu_domain_alloc(fx.dev, &fx.domain), 0);
	fx.tables = kapi_iommu_sim_domain(fx.domain);
	assert_non_null(fx.tables);
}

static void tear_down_and_check_nothing_left(void)
{
	kapi_iommu_trace_enable(0);
	kapi_iommu_domain_free(fx.domain);
	kapi_iommu_dev_destroy(fx.dev);
	check_and_destroy();
}

static unsigned long long leaves_of_size(unsigned long long size)
{
	return sim_iommu_nr_leaves(fx.tables, __builtin_ctzll(size));
}

static void assert_nothing_mapped(void)
{
	assert_int_equal(sim_iommu_nr_leaves_total(fx.tables), 0);
	/* Only the root table is left. */
	assert_int_equal(sim_iommu_nr_tables(fx.tables), 1);
}

/* Every granule of [iova, iova + size) translates to paddr + offset. */
static void assert_translates(unsigned long long iova, sim_phys_t paddr,
			      unsigned long long size, unsigned long long step)
{
	for (unsigned long long off = 0; off < size; off += step) {
		assert_int_equal(kapi_iommu_iova_to_phys(fx.domain, iova + off),
				 paddr + off);
		assert_int_equal(sim_iommu_iova_to_phys(fx.tables, iova + off + 8),
				 paddr + off + 8);
	}
}

static unsigned long long granule(enum sim_iommu_format_id fmt)
{
	return 1ULL << sim_iommu_format(fmt)->granule_shift;
}

static unsigned long count_trace_ops(int op)
{
	struct kapi_iommu_call call;
	unsigned long n = 0;

	for (unsigned long i = 0; !kapi_iommu_trace_get(i, &call); i++)
		n += call.op == op;
	return n;
}

/* ---- table-driven round trips ---------------------------------------- */

struct leaf_count {
	unsigned long long size;
	unsigned long long n;
};

struct round_trip {
	const char *what;
	enum sim_iommu_format_id fmt;
	unsigned long long iova;
	sim_phys_t paddr;
	unsigned long long size;
	struct leaf_count leaves[4];	/* expected live leaves by size */
	unsigned long long pte_writes;
};

/*
 *  IOVA  0      2M     4M                    1G          2G
 *        |------|------|---- ... ------------|-----------|
 *        a 2M-aligned 2M range is one 2M leaf; 1G aligned is one 1G leaf;
 *        4K off a 2M boundary the range is 511 x 4K + 1 x 2M + 1 x 4K.
 */
static const struct round_trip round_trips[] = {
	{ "2M aligned is one 2M leaf", SIM_IOMMU_INTEL_SL,
	  SZ_2M, 4 * SZ_2M, SZ_2M, { { SZ_2M, 1 } }, 1 },
	{ "1G aligned is one 1G leaf", SIM_IOMMU_INTEL_SL,
	  SZ_1G, 3 * SZ_1G, SZ_1G, { { SZ_1G, 1 } }, 1 },
	{ "4K off 2M: small pages up to the boundary", SIM_IOMMU_INTEL_SL,
	  SZ_2M - SZ_4K, 4 * SZ_2M - SZ_4K, SZ_2M + SZ_8K,
	  { { SZ_4K, 2 }, { SZ_2M, 1 } }, 3 },
	{ "iova and paddr not co-aligned: 4K only", SIM_IOMMU_INTEL_SL,
	  SZ_2M, SZ_2M + SZ_4K, SZ_2M, { { SZ_4K, 512 } }, 512 },
	{ "amd-v2 2M + 1G", SIM_IOMMU_AMD_V2,
	  SZ_1G - SZ_2M, 2 * SZ_1G - SZ_2M, SZ_1G + SZ_2M,
	  { { SZ_2M, 1 }, { SZ_1G, 1 } }, 2 },
	{ "arm-lpae-4k 1G + 2M + 4K", SIM_IOMMU_ARM_LPAE_4K,
	  0, 0, SZ_1G + SZ_2M + SZ_4K,
	  { { SZ_4K, 1 }, { SZ_2M, 1 }, { SZ_1G, 1 } }, 3 },
	{ "arm-lpae-16k: 32M block and 16K pages", SIM_IOMMU_ARM_LPAE_16K,
	  SZ_32M, SZ_32M, SZ_32M + 4 * SZ_16K,
	  { { SZ_16K, 4 }, { SZ_32M, 1 } }, 5 },
	{ "arm-lpae-64k: 512M block and 64K pages", SIM_IOMMU_ARM_LPAE_64K,
	  SZ_512M - SZ_64K, SZ_512M - SZ_64K, SZ_512M + SZ_64K,
	  { { SZ_64K, 1 }, { SZ_512M, 1 } }, 2 },
	{ "amd-v1 8K is one leaf of two PTEs", SIM_IOMMU_AMD_V1,
	  SZ_8K, SZ_8K, SZ_8K, { { SZ_8K, 1 } }, 2 },
	{ "amd-v1 4M is one leaf of two 2M PTEs", SIM_IOMMU_AMD_V1,
	  SZ_4M, SZ_4M, SZ_4M, { { SZ_4M, 1 } }, 2 },
	{ "amd-v1 1T is one leaf of two 512G PTEs", SIM_IOMMU_AMD_V1,
	  1ULL << 40, 1ULL << 40, 1ULL << 40, { { 1ULL << 40, 1 } }, 2 },
	{ "amd-v1 12K is 8K + 4K", SIM_IOMMU_AMD_V1,
	  SZ_16K, SZ_16K, 3 * SZ_4K, { { SZ_8K, 1 }, { SZ_4K, 1 } }, 3 },
	{ "amd-v1 top of the 64-bit space: two 2^51 leaves", SIM_IOMMU_AMD_V1,
	  0ULL - (1ULL << 52), 1ULL << 52, 1ULL << 52,
	  { { 1ULL << 51, 2 } }, 16 },
};

/* Each case maps as the expected leaves, translates, and unmaps whole. */
static void test_round_trip_per_format(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(round_trips); i++) {
		const struct round_trip *c = &round_trips[i];
		struct sim_counters before, after, delta;
		unsigned long long total = 0, step;

		machine_with_device_of_format(c->fmt);
		sim_counters_snapshot(&before);
		assert_int_equal(kapi_iommu_map(fx.domain, c->iova, c->paddr,
						c->size, RW), 0);
		sim_counters_snapshot(&after);
		sim_counters_delta(&before, &after, &delta);
		assert_int_equal(delta.c[SIM_CNT_IOMMU_PTE_WRITE], c->pte_writes);
		assert_int_equal(delta.c[SIM_CNT_IOMMU_MAP_CALL], 1);
		for (int j = 0; j < 4 && c->leaves[j].size; j++) {
			assert_int_equal(leaves_of_size(c->leaves[j].size),
					 c->leaves[j].n);
			total += c->leaves[j].n;
		}
		assert_int_equal(sim_iommu_nr_leaves_total(fx.tables), total);

		/* Page by page, or sampled for ranges of a GiB and more. */
		step = c->size > SZ_32M ? c->size / 4096 : granule(c->fmt);
		assert_translates(c->iova, c->paddr, c->size, step);
		assert_int_equal(kapi_iommu_iova_to_phys(fx.domain,
						c->iova + c->size - 1),
				 c->paddr + c->size - 1);

		assert_int_equal(kapi_iommu_unmap(fx.domain, c->iova, c->size),
				 c->size);
		assert_nothing_mapped();
		assert_int_equal(kapi_iommu_iova_to_phys(fx.domain, c->iova), 0);
		tear_down_and_check_nothing_left();
	}
}

/*
 * 1 GiB of 4K leaves (paddr off by 4K, so no larger page fits): 262,144
 * leaf writes in one driver call, 512 leaf tables + 1 directory + 1 upper
 * table below the root; everything is cleared and freed by one unmap.
 *  IOVA 1G                                              2G
 *       |4K|4K|4K| ...                          ... |4K|
 */
static void test_gigabyte_of_small_leaves(void **state)
{
	struct sim_counters before, after, delta;

	machine_with_device_of_format(SIM_IOMMU_INTEL_SL);
	kapi_iommu_trace_enable(16);
	sim_counters_snapshot(&before);
	assert_int_equal(kapi_iommu_map(fx.domain, SZ_1G, 4 * SZ_1G + SZ_4K,
					SZ_1G, RW), 0);
	sim_counters_snapshot(&after);
	sim_counters_delta(&before, &after, &delta);
	assert_int_equal(leaves_of_size(SZ_4K), 262144);
	assert_int_equal(delta.c[SIM_CNT_IOMMU_PTE_WRITE], 262144);
	assert_int_equal(delta.c[SIM_CNT_IOMMU_MAP_PAGES], 1);
	assert_int_equal(delta.c[SIM_CNT_IOMMU_TABLE_ALLOC], 512 + 2);
	assert_int_equal(sim_iommu_nr_tables(fx.tables), 1 + 512 + 2);
	assert_translates(SZ_1G, 4 * SZ_1G + SZ_4K, SZ_1G, 4097 * SZ_4K);

	sim_counters_snapshot(&before);
	assert_int_equal(kapi_iommu_unmap(fx.domain, SZ_1G, SZ_1G), SZ_1G);
	sim_counters_snapshot(&after);
	sim_counters_delta(&before, &after, &delta);
	assert_int_equal(delta.c[SIM_CNT_IOMMU_PTE_CLEAR], 262144);
	assert_int_equal(delta.c[SIM_CNT_IOMMU_TABLE_FREE], 512 + 2);
	assert_int_equal(delta.c[SIM_CNT_IOTLB_SYNC], 1);
	assert_nothing_mapped();
	tear_down_and_check_nothing_left();
}

/* ---- unmap semantics --------------------------------------------------- */

/*
 *  IOVA  2M        2M+8K   2M+12K                         4M
 *        |---------|=======|------------------------------|
 *        one 2M leaf; unmapping the 4K at 2M+8K tears down all 2M.
 */
static void test_unmap_inside_a_leaf_unmaps_the_whole_leaf(void **state)
{
	machine_with_device_of_format(SIM_IOMMU_INTEL_SL);
	assert_int_equal(kapi_iommu_map(fx.domain, SZ_2M, SZ_2M, SZ_2M, RW), 0);
	assert_int_equal(leaves_of_size(SZ_2M), 1);
	assert_int_equal(kapi_iommu_unmap(fx.domain, SZ_2M + SZ_8K, SZ_4K),
			 SZ_2M);
	assert_nothing_mapped();
	tear_down_and_check_nothing_left();
}

/* Unmapping where nothing is mapped returns 0; a hole stops the unmap. */
static void test_unmap_stops_at_a_hole(void **state)
{
	machine_with_device_of_format(SIM_IOMMU_INTEL_SL);
	assert_int_equal(kapi_iommu_unmap(fx.domain, SZ_1G, SZ_2M), 0);
	assert_int_equal(kapi_iommu_map(fx.domain, 0, 0, SZ_8K, RW), 0);
	assert_int_equal(kapi_iommu_map(fx.domain, SZ_16K, SZ_16K, SZ_4K, RW), 0);
	/* [0, 8K) mapped, [8K, 16K) hole, [16K, 20K) mapped */
	assert_int_equal(kapi_iommu_unmap(fx.domain, 0, 5 * SZ_4K), SZ_8K);
	assert_int_equal(sim_iommu_nr_leaves_total(fx.tables), 1);
	assert_int_equal(kapi_iommu_unmap(fx.domain, SZ_16K, SZ_4K), SZ_4K);
	assert_nothing_mapped();
	tear_down_and_check_nothing_left();
}

/*
 * A translation is never of a leaf that went away, nor of another
 * domain's: the simulator keeps the last leaf it walked to, which an
 * unmap, or the domain's teardown, must forget, and which answers for its
 * own domain only (two domains never unmapped from included).
 *  IOVA  2M        4M
 *        |=========|   one 2M leaf: at 8M, then (unmapped, mapped again)
 *                      at 16M; then the domain goes with the leaf live
 */
static void test_translation_follows_unmap_remap_and_domain_teardown(void **state)
{
	struct kapi_iommu_domain *other;

	machine_with_device_of_format(SIM_IOMMU_INTEL_SL);
	assert_int_equal(kapi_iommu_map(fx.domain, SZ_2M, 4 * SZ_2M, SZ_2M, RW), 0);
	assert_int_equal(sim_iommu_iova_to_phys(fx.tables, SZ_2M + 8), 4 * SZ_2M + 8);
	assert_int_equal(kapi_iommu_domain_alloc(fx.dev, &other), 0);
	assert_int_equal(sim_iommu_iova_to_phys(kapi_iommu_sim_domain(other),
						SZ_2M + 8), 0);
	kapi_iommu_domain_free(other);
	assert_int_equal(kapi_iommu_unmap(fx.domain, SZ_2M, SZ_2M), SZ_2M);
	assert_int_equal(sim_iommu_iova_to_phys(fx.tables, SZ_2M + 8), 0);
	assert_int_equal(kapi_iommu_map(fx.domain, SZ_2M, 8 * SZ_2M, SZ_2M, RW), 0);
	assert_int_equal(sim_iommu_iova_to_phys(fx.tables, SZ_2M + 16), 8 * SZ_2M + 16);

	kapi_iommu_domain_free(fx.domain);
	expect_leaves_dropped(1);
	assert_int_equal(kapi_iommu_domain_alloc(fx.dev, &fx.domain), 0);
	fx.tables = kapi_iommu_sim_domain(fx.domain);
	assert_int_equal(sim_iommu_iova_to_phys(fx.tables, SZ_2M + 16), 0);
	tear_down_and_check_nothing_left();
}

/* ---- errors ------------------------------------------------------------ */

/*
 * Alignment is checked (and an error logged) before the driver is called,
 * the aperture only by the driver; size 0 maps nothing and succeeds, as the kernel's loop does
 * (every bad argument: tests/bad_input/iommu_map.def).
 */
static void test_argument_checks_before_and_in_the_driver(void **state)
{
	unsigned long long errors;

	machine_with_device_of_format(SIM_IOMMU_INTEL_SL);
	kapi_iommu_trace_enable(64);
	errors = sim_klog_count(SIM_KLOG_ERR);
	assert_int_equal(kapi_iommu_map(fx.domain, SZ_4K + 1, SZ_4K, SZ_4K, RW),
			 -EINVAL);
	/* The core says why, once ("unaligned map"), and for an unmap too. */
	assert_int_equal(sim_klog_count(SIM_KLOG_ERR), errors + 1);
	assert_int_equal(kapi_iommu_unmap(fx.domain, SZ_4K + 1, SZ_4K), 0);
	assert_int_equal(sim_klog_count(SIM_KLOG_ERR), errors + 2);
	assert_int_equal(count_trace_ops(KAPI_IOMMU_OP_MAP_PAGES), 0);
	assert_int_equal(kapi_iommu_map(fx.domain, 1ULL << 48, 0, SZ_4K, RW),
			 -EINVAL);
	assert_int_equal(count_trace_ops(KAPI_IOMMU_OP_MAP_PAGES), 1);
	assert_int_equal(kapi_iommu_map(fx.domain, 0, 0, 0, RW), 0);
	assert_nothing_mapped();
	tear_down_and_check_nothing_left();
}

/*
 * A range that would run past 2^64 (its IOVA or its physical address) is
 * refused before the driver is called, nothing mapped or unmapped (core's
 * check, DMASIM_IMPL_IOMMU_MAP_REFUSES_WRAP; the kernel's core passes the
 * range on and the driver refuses it); one that ends
 * exactly at 2^64 maps and unmaps whole (the loops stop at its last page
 * instead of stepping to an address past the end: found by the
 * unsigned-wrap trap, tools/ci-variants.sh wrap).
 *
 *   IOVA/phys  ... 2^64 - 8K  2^64 - 4K | 2^64 = 0
 *                  [ ends at the top   ]|
 *                             [ runs past the top ...]
 */
static void test_ranges_past_the_top_of_the_address_space(void **state)
{
	const unsigned long long top = 0ULL - SZ_4K;

	machine_with_device_of_format(SIM_IOMMU_AMD_V1);
	kapi_iommu_trace_enable(64);
	if (DMASIM_IMPL_IOMMU_MAP_REFUSES_WRAP) {
		assert_int_equal(kapi_iommu_map(fx.domain, 0, top, SZ_8K, RW),
				 -EINVAL);
		assert_int_equal(kapi_iommu_map(fx.domain, top, 0, SZ_8K, RW),
				 -EINVAL);
		assert_int_equal(count_trace_ops(KAPI_IOMMU_OP_MAP_PAGES), 0);
	} else {
		/* The kernel's core passes them on: the driver refuses. */
		assert_int_equal(kapi_iommu_map(fx.domain, 0, top, SZ_8K, RW),
				 -EINVAL);
		assert_int_equal(kapi_iommu_map(fx.domain, top, 0, SZ_8K, RW),
				 -EINVAL);
		assert_true(count_trace_ops(KAPI_IOMMU_OP_MAP_PAGES) >= 2);
	}
	assert_nothing_mapped();

	assert_int_equal(kapi_iommu_map(fx.domain, top - SZ_4K, 0, SZ_8K, RW), 0);
	/* amd-v1 has an 8K page: one leaf. */
	assert_int_equal(sim_iommu_nr_leaves_total(fx.tables), 1);
	assert_int_equal(kapi_iommu_unmap(fx.domain, top - SZ_4K, SZ_8K), SZ_8K);
	assert_nothing_mapped();

	/*
	 * An unmap past the top would go on at IOVA 0: it unmaps nothing
	 * (core refuses it; the kernel's loop asks the driver for both pages
	 * at once, which refuses).
	 */
	assert_int_equal(kapi_iommu_map(fx.domain, top, 0, SZ_4K, RW), 0);
	assert_int_equal(kapi_iommu_map(fx.domain, 0, SZ_4K, SZ_4K, RW), 0);
	assert_int_equal(kapi_iommu_unmap(fx.domain, top, SZ_8K), 0);
	assert_int_equal(sim_iommu_nr_leaves_total(fx.tables), 2);
	assert_int_equal(kapi_iommu_unmap(fx.domain, top, SZ_4K), SZ_4K);
	assert_int_equal(kapi_iommu_unmap(fx.domain, 0, SZ_4K), SZ_4K);
	assert_nothing_mapped();
	tear_down_and_check_nothing_left();
}

/*
 *  IOVA  0     4K    8K    12K   16K
 *        |.....|.....|#####|.....|      # already mapped
 *        map [0, 16K): leaves at 0 and 4K are written, 8K collides
 *        -> -EEXIST, the two new leaves are unmapped again.
 */
static void test_map_over_a_leaf_is_eexist_and_unwinds(void **state)
{
	machine_with_device_of_format(SIM_IOMMU_INTEL_SL);
	assert_int_equal(kapi_iommu_map(fx.domain, SZ_8K, 0x80000, SZ_4K, RW), 0);
	assert_int_equal(kapi_iommu_map(fx.domain, 0, 0x90000, SZ_16K, RW),
			 -EEXIST);
	assert_int_equal(sim_iommu_nr_leaves_total(fx.tables), 1);
	assert_int_equal(kapi_iommu_iova_to_phys(fx.domain, SZ_8K), 0x80000);
	assert_int_equal(kapi_iommu_iova_to_phys(fx.domain, 0), 0);
	/* A 2M leaf over a table that holds 4K leaves is refused as well. */
	assert_int_equal(kapi_iommu_map(fx.domain, 0, 0, SZ_2M, RW), -EEXIST);
	/* And a 4K leaf inside a 2M leaf. */
	assert_int_equal(kapi_iommu_map(fx.domain, SZ_2M, SZ_2M, SZ_2M, RW), 0);
	assert_int_equal(kapi_iommu_map(fx.domain, SZ_2M + SZ_4K, 0, SZ_4K, RW),
			 -EEXIST);
	assert_int_equal(kapi_iommu_unmap(fx.domain, SZ_8K, SZ_4K), SZ_4K);
	assert_int_equal(kapi_iommu_unmap(fx.domain, SZ_2M, SZ_2M), SZ_2M);
	assert_nothing_mapped();
	tear_down_and_check_nothing_left();
}

struct injected_failure {
	const char *point;
	int expect;
};

static const struct injected_failure injected_failures[] = {
	{ "shim/iommu/map", -ENOMEM },
	{ "shim/iommu/pgtable_alloc", -ENOMEM },
	{ "shim/iommu/iotlb_sync_map", -ENOMEM },
};

/*
 * A failure on the nth driver call (or table allocation, or the final
 * sync) fails iommu_map() and leaves no leaf and no table behind.
 *  IOVA  1G-8K   1G          1G+2M       1G+2M+8K
 *        |4K|4K|-----2M-----|4K|4K|      three map_pages calls, five
 *                                        table pages below the root
 */
static void test_injected_failures_unwind_everything(void **state)
{
	const unsigned long long iova = SZ_1G - SZ_8K, size = SZ_2M + 2 * SZ_8K;

	for (size_t i = 0; i < ARRAY_SIZE(injected_failures); i++) {
		const struct injected_failure *f = &injected_failures[i];
		int fp = sim_fault_lookup(f->point);
		unsigned int failed = 0;

		assert_true(fp >= 0);
		for (unsigned int nth = 0; nth < 7; nth++) {
			unsigned long long calls;
			int ret;

			machine_with_device_of_format(SIM_IOMMU_INTEL_SL);
			calls = sim_fault_calls[fp];
			fail_nth_call_of(f->point, nth);
			ret = kapi_iommu_map(fx.domain, iova, iova, size, RW);
			stop_failing(f->point);
			if (sim_fault_calls[fp] - calls > nth) {
				assert_int_equal(ret, f->expect);
				failed++;
			} else {
				/* Fewer calls than nth: nothing failed. */
				assert_int_equal(ret, 0);
				assert_translates(iova, iova, size, SZ_4K);
				assert_int_equal(kapi_iommu_unmap(fx.domain, iova,
								  size), size);
			}
			assert_nothing_mapped();
			tear_down_and_check_nothing_left();
		}
		/* Each point is reached (the sync once, after the last map). */
		assert_true(failed > 0);
	}
}

/* ---- IOTLB syncs -------------------------------------------------------- */

/*
 * One iommu_unmap() of one page size issues one IOTLB sync, a map none;
 * a gather syncs early when the next range is disjoint or of another size.
 *  IOVA  0    8K   16K  24K  32K  40K  48K         1M   1M+4K       2M
 *        |xxxx|....|xxxx|....|yyyy|yyyy|...........|xxxx|...........|
 *        x: one gathered unmap of three ranges (two early syncs + final)
 *        y: one gathered unmap of two adjacent ranges (final sync only)
 */
static void test_iotlb_syncs_are_counted(void **state)
{
	static const unsigned long long iovas[] = { 0, SZ_16K, SZ_1M };
	static const unsigned long long sizes[] = { SZ_8K, SZ_8K, SZ_4K };
	static const unsigned long long next_iovas[] = { 2 * SZ_16K, 2 * SZ_16K + SZ_8K };
	static const unsigned long long next_sizes[] = { SZ_8K, SZ_8K };
	unsigned long long rest = 0;

	machine_with_device_of_format(SIM_IOMMU_INTEL_SL);
	assert_int_equal(kapi_iommu_map(fx.domain, 0, 0, SZ_4M, RW), 0);
	assert_int_equal(sim_iommu_nr_iotlb_syncs(fx.tables), 0);
	assert_int_equal(kapi_iommu_unmap(fx.domain, 0, SZ_2M), SZ_2M);
	assert_int_equal(sim_iommu_nr_iotlb_syncs(fx.tables), 1);
	assert_int_equal(kapi_iommu_unmap(fx.domain, SZ_2M, SZ_2M), SZ_2M);
	assert_int_equal(sim_iommu_nr_iotlb_syncs(fx.tables), 2);

	/* paddr off by 4K: 512 leaves of 4K */
	assert_int_equal(kapi_iommu_map(fx.domain, 0, SZ_4K, SZ_2M, RW), 0);
	assert_int_equal(leaves_of_size(SZ_4K), 512);
	assert_int_equal(kapi_iommu_unmap_gathered(fx.domain, iovas, sizes, 3),
			 SZ_8K + SZ_8K + SZ_4K);
	assert_int_equal(sim_iommu_nr_iotlb_syncs(fx.tables), 5);
	assert_int_equal(kapi_iommu_unmap_gathered(fx.domain, next_iovas,
						   next_sizes, 2), 2 * SZ_8K);
	assert_int_equal(sim_iommu_nr_iotlb_syncs(fx.tables), 6);
	/* Nothing unmapped: an empty gather issues no invalidation. */
	assert_int_equal(kapi_iommu_unmap(fx.domain, 0, SZ_4K), 0);
	assert_int_equal(sim_iommu_nr_iotlb_syncs(fx.tables), 6);

	for (unsigned long long off = 0; off < SZ_2M; off += SZ_4K)
		rest += kapi_iommu_unmap(fx.domain, off, SZ_4K);
	assert_int_equal(rest, SZ_2M - 9 * SZ_4K);
	assert_nothing_mapped();
	tear_down_and_check_nothing_left();
}

/* ---- iommu_map_sg ------------------------------------------------------- */

struct sg_case {
	const char *what;
	unsigned int n;
	sim_phys_t paddr[4];
	unsigned int len[4];
	int bus[4];
	long long ret;			/* bytes mapped */
	unsigned int map_calls;		/* map_pages calls */
	struct leaf_count leaves[3];
};

/*
 *  paddr 2M   3M   4M        8M  8M+4K        (RAM of the 1 GiB machine)
 *        |-1M-|-1M-|          |-4K-|
 *  IOVA  2M        4M  4M+4K
 *        |---2M----|-4K-|       contiguous entries form one 2M run
 */
static const struct sg_case sg_cases[] = {
	{ "two contiguous 1M entries are one 2M leaf", 2,
	  { 2 * SZ_1M, 3 * SZ_1M }, { SZ_1M, SZ_1M }, { 0 },
	  SZ_2M, 1, { { SZ_2M, 1 } } },
	{ "a gap starts a new run", 3,
	  { 2 * SZ_1M, 3 * SZ_1M, 8 * SZ_1M }, { SZ_1M, SZ_1M, SZ_4K }, { 0 },
	  SZ_2M + SZ_4K, 2, { { SZ_2M, 1 }, { SZ_4K, 1 } } },
	{ "a bus-address entry takes no IOVA", 3,
	  { 2 * SZ_1M, 64 * SZ_1M, 3 * SZ_1M }, { SZ_1M, SZ_64K, SZ_1M },
	  { 0, 1, 0 }, SZ_2M, 2, { { SZ_4K, 512 } } },
	{ "entries with an offset inside their page", 2,
	  { 16 * SZ_1M + SZ_4K, 16 * SZ_1M + SZ_8K }, { SZ_4K, SZ_8K }, { 0 },
	  3 * SZ_4K, 1, { { SZ_4K, 3 } } },
};

/* iommu_map_sg() maps each run of physically contiguous entries in one go. */
static void test_map_sg_coalesces_contiguous_entries(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(sg_cases); i++) {
		const struct sg_case *c = &sg_cases[i];

		machine_with_device_of_format(SIM_IOMMU_INTEL_SL);
		kapi_iommu_trace_enable(64);
		assert_int_equal(kapi_iommu_map_sg(fx.domain, SZ_2M, c->paddr,
						   c->len, c->bus, c->n, RW),
				 c->ret);
		assert_int_equal(count_trace_ops(KAPI_IOMMU_OP_MAP_PAGES),
				 c->map_calls);
		assert_int_equal(count_trace_ops(KAPI_IOMMU_OP_IOTLB_SYNC_MAP), 1);
		for (int j = 0; j < 3 && c->leaves[j].size; j++)
			assert_int_equal(leaves_of_size(c->leaves[j].size),
					 c->leaves[j].n);
		assert_int_equal(kapi_iommu_iova_to_phys(fx.domain, SZ_2M),
				 c->paddr[0] & ~(SZ_4K - 1));
		assert_int_equal(kapi_iommu_unmap(fx.domain, SZ_2M, c->ret),
				 c->ret);
		assert_nothing_mapped();
		tear_down_and_check_nothing_left();
	}
}

/* A failure on the second run, or in the final sync, unmaps the first. */
static void test_map_sg_failure_unmaps_everything(void **state)
{
	static const sim_phys_t paddr[] = { 2 * SZ_1M, 8 * SZ_1M };
	static const unsigned int len[] = { SZ_2M, SZ_4K };
	static const struct injected_failure failures[] = {
		{ "shim/iommu/map", -ENOMEM },
		{ "shim/iommu/iotlb_sync_map", -ENOMEM },
	};

	for (size_t i = 0; i < 2; i++) {
		machine_with_device_of_format(SIM_IOMMU_AMD_V2);
		fail_nth_call_of(failures[i].point, i == 0 ? 1 : 0);
		assert_int_equal(kapi_iommu_map_sg(fx.domain, 0, paddr, len,
						   NULL, 2, RW),
				 failures[i].expect);
		stop_failing(failures[i].point);
		assert_nothing_mapped();
		tear_down_and_check_nothing_left();
	}
}

/* ---- domains and groups -------------------------------------------------- */

/*
 * A device starts on its default DMA domain; a paging domain replaces it,
 * a second one is refused while the first is attached, detach restores the
 * default; a domain of another format is refused.
 */
static void test_attach_and_detach(void **state)
{
	struct kapi_iommu_domain *other;
	struct kapi_iommu_dev *amd;
	struct kapi_iommu_domain *amd_domain;

	machine_with_device_of_format(SIM_IOMMU_INTEL_SL);
	assert_non_null(kapi_iommu_dev_dma_domain(fx.dev));
	assert_ptr_equal(kapi_iommu_dev_domain(fx.dev),
			 kapi_iommu_dev_dma_domain(fx.dev));
	assert_int_equal(kapi_iommu_attach(fx.domain, fx.dev), 0);
	assert_ptr_equal(kapi_iommu_dev_domain(fx.dev), fx.domain);

	assert_int_equal(kapi_iommu_domain_alloc(fx.dev, &other), 0);
	assert_int_equal(kapi_iommu_attach(other, fx.dev), -EBUSY);
	kapi_iommu_detach(fx.domain, fx.dev);
	assert_ptr_equal(kapi_iommu_dev_domain(fx.dev),
			 kapi_iommu_dev_dma_domain(fx.dev));
	assert_int_equal(kapi_iommu_attach_group(other, fx.dev), 0);
	kapi_iommu_detach_group(other, fx.dev);
	kapi_iommu_domain_free(other);

	assert_int_equal(kapi_iommu_dev_create("amd0", SIM_IOMMU_AMD_V1, NULL,
					       &amd), 0);
	assert_int_equal(kapi_iommu_domain_alloc(amd, &amd_domain), 0);
	assert_int_equal(kapi_iommu_pgsize_bitmap(amd_domain),
			 sim_iommu_format(SIM_IOMMU_AMD_V1)->pgsize_bitmap);
	assert_int_equal(kapi_iommu_aperture_end(amd_domain), ~0ULL);
	assert_int_equal(kapi_iommu_aperture_end(fx.domain), (1ULL << 48) - 1);
	assert_int_equal(kapi_iommu_attach(amd_domain, fx.dev), -EINVAL);
	assert_int_not_equal(kapi_iommu_dev_group_id(amd),
			     kapi_iommu_dev_group_id(fx.dev));
	kapi_iommu_domain_free(amd_domain);
	kapi_iommu_dev_destroy(amd);
	tear_down_and_check_nothing_left();
}

/* Two devices of one group: a single-device attach is refused. */
static void test_group_of_two_devices(void **state)
{
	struct kapi_iommu_dev *peer;

	machine_with_device_of_format(SIM_IOMMU_ARM_LPAE_4K);
	assert_int_equal(kapi_iommu_dev_create("dev1", SIM_IOMMU_ARM_LPAE_4K,
					       fx.dev, &peer), 0);
	assert_int_equal(kapi_iommu_dev_group_id(peer),
			 kapi_iommu_dev_group_id(fx.dev));
	assert_ptr_equal(kapi_iommu_dev_dma_domain(peer),
			 kapi_iommu_dev_dma_domain(fx.dev));
	assert_int_equal(kapi_iommu_attach(fx.domain, fx.dev), -EINVAL);
	assert_int_equal(kapi_iommu_attach_group(fx.domain, peer), 0);
	assert_ptr_equal(kapi_iommu_dev_domain(fx.dev), fx.domain);
	kapi_iommu_detach_group(fx.domain, peer);
	kapi_iommu_dev_destroy(peer);
	assert_int_equal(kapi_iommu_dev_create("dev2", SIM_IOMMU_AMD_V1,
					       fx.dev, &peer), -EINVAL);
	tear_down_and_check_nothing_left();
}

/* Domain allocation and probe failures return -ENOMEM and leak nothing. */
static void test_domain_alloc_failures(void **state)
{
	static const char *const points[] = {
		"shim/iommu/domain_alloc", "shim/iommu/probe_device",
		"shim/slab/kmalloc",
	};
	struct kapi_iommu_domain *d;
	struct kapi_iommu_dev *dev;

	machine_with_device_of_format(SIM_IOMMU_AMD_V2);
	fail_every_call_of("shim/iommu/domain_alloc");
	assert_int_equal(kapi_iommu_domain_alloc(fx.dev, &d), -ENOMEM);
	stop_failing("shim/iommu/domain_alloc");
	for (size_t i = 0; i < ARRAY_SIZE(points); i++) {
		fail_every_call_of(points[i]);
		assert_int_equal(kapi_iommu_dev_create("x", SIM_IOMMU_AMD_V2,
						       NULL, &dev), -ENOMEM);
		stop_failing(points[i]);
	}
	assert_int_equal(kapi_iommu_nr_devices(), 1);
	tear_down_and_check_nothing_left();
	assert_int_equal(kapi_iommu_nr_devices(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_per_format),
		cmocka_unit_test(test_gigabyte_of_small_leaves),
		cmocka_unit_test(test_unmap_inside_a_leaf_unmaps_the_whole_leaf),
		cmocka_unit_test(test_unmap_stops_at_a_hole),
		cmocka_unit_test(test_translation_follows_unmap_remap_and_domain_teardown),
		cmocka_unit_test(test_argument_checks_before_and_in_the_driver),
		cmocka_unit_test(test_ranges_past_the_top_of_the_address_space),
		cmocka_unit_test(test_map_over_a_leaf_is_eexist_and_unwinds),
		cmocka_unit_test(test_injected_failures_unwind_everything),
		cmocka_unit_test(test_iotlb_syncs_are_counted),
		cmocka_unit_test(test_map_sg_coalesces_contiguous_entries),
		cmocka_unit_test(test_map_sg_failure_unmaps_everything),
		cmocka_unit_test(test_attach_and_detach),
		cmocka_unit_test(test_group_of_two_devices),
		cmocka_unit_test(test_domain_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
