// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's page allocation API as kernel code sees it (alloc_pages,
 * __free_pages, put_page, __get_free_pages, vmalloc, vmap and the page
 * helpers), through kapi_mm_page.h: gfp flags to simulator behaviour,
 * compound pages, reference counts, fault points, failure reports.
 *
 * Machines: 64 MiB (one DMA32 zone) unless a scenario draws another.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/kapi_mm_page.h>
#include <dmasim/sim.h>

#include "shared.h"


static unsigned int gfp(const char *name)
{
	unsigned int v = kapi_gfp(name);

	assert_int_not_equal(v, ~0u);
	return v;
}

/* The dma-buf system heap's flags for orders 8 (and 9) and for order 0. */
static unsigned int heap_high_order_gfp(void)
{
	return ((gfp("GFP_HIGHUSER") | gfp("__GFP_ZERO") | gfp("__GFP_NOWARN") |
		 gfp("__GFP_NORETRY")) & ~gfp("__GFP_RECLAIM")) | gfp("__GFP_COMP");
}

/* What a machine with nothing allocated has free: RAM less low memory. */
static unsigned long managed_pages(void)
{
	return sim_buddy_nr_managed();
}

static void assert_nothing_allocated(void)
{
	sim_buddy_drain_pcp();
	assert_int_equal(sim_buddy_nr_allocated(), 0);
	assert_int_equal(sim_buddy_nr_free(), managed_pages());
}

static int teardown(void **state)
{
	sim_faults_arm(0);
	return destroy_the_machine(state);
}

/*
 * One gfp -> simulator translation: the migratetype a request claims its
 * pageblock with, and the zone it comes from, per kernel flag set
 * (8 GiB machine: DMA32 below 3 GiB, Normal from 4 GiB).
 */
static void test_gfp_flags_choose_migratetype_and_zone(void **state)
{
	static const struct {
		const char *flags[3];
		int migratetype;
		int dma32;
	} cases[] = {
		{ { "GFP_KERNEL" }, SIM_MIGRATE_UNMOVABLE, 0 },
		{ { "GFP_HIGHUSER" }, SIM_MIGRATE_UNMOVABLE, 0 },
		{ { "GFP_HIGHUSER_MOVABLE" }, SIM_MIGRATE_MOVABLE, 0 },
		{ { "GFP_KERNEL", "__GFP_RECLAIMABLE" }, SIM_MIGRATE_RECLAIMABLE, 0 },
		{ { "GFP_KERNEL", "__GFP_DMA32" }, SIM_MIGRATE_UNMOVABLE, 1 },
		{ { "GFP_DMA" }, SIM_MIGRATE_UNMOVABLE, 1 },
		{ { "GFP_TRANSHUGE" }, SIM_MIGRATE_MOVABLE, 0 },
	};
	const unsigned long first_normal_pfn = (4 * GiB) >> SIM_PAGE_SHIFT;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int flags = 0;
		struct sim_page *page;
		unsigned long pfn;

		given_a_fresh_machine(&(struct sim_config){
			.ram_bytes = 8 * GiB, .nr_cpus = 1,
		});
		for (int f = 0; f < 3 && cases[i].flags[f]; f++)
			flags |= gfp(cases[i].flags[f]);
		page = kapi_alloc_pages(flags, 4);
		assert_non_null(page);
		pfn = sim_page_to_pfn(page);
		assert_int_equal(sim_pageblock_migratetype(pfn), cases[i].migratetype);
		assert_int_equal(pfn < first_normal_pfn, cases[i].dma32);
		kapi___free_pages(page, 4);
		assert_nothing_allocated();
		sim_machine_destroy();
	}
}

/* __GFP_COMP makes a compound page the kernel's helpers understand. */
static void test_compound_page_as_the_kernel_helpers_see_it(void **state)
{
	struct kapi_page_info head, tail;
	struct sim_page *page;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 64 * MiB, .nr_cpus = 1,
	});
	page = kapi_alloc_pages(gfp("GFP_KERNEL") | gfp("__GFP_COMP"), 3);
	assert_non_null(page);
	kapi_page_info(page, &head);
	kapi_page_info(page + 5, &tail);
	assert_true(head.head && !head.tail && head.compound);
	assert_true(!tail.head && tail.tail && tail.compound);
	assert_int_equal(tail.head_pfn, head.pfn);
	assert_int_equal(tail.compound_order, 3);
	assert_int_equal(tail.size, SIM_PAGE_SIZE << 3);
	assert_int_equal(tail.folio_nr_pages, 8);
	assert_int_equal(head.ref_count, 1);
	assert_int_equal(tail.ref_count, 0);
	assert_int_equal(tail.count, 1);
	assert_true(head.pfn_valid && head.address_round_trips);
	kapi___free_pages(page, 3);
	assert_nothing_allocated();
}

/* A non-compound high-order page is order 0 to the helpers. */
static void test_non_compound_page_has_order_zero(void **state)
{
	struct kapi_page_info info;
	struct sim_page *page;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 64 * MiB, .nr_cpus = 1,
	});
	page = kapi_alloc_pages(gfp("GFP_KERNEL"), 3);
	kapi_page_info(page, &info);
	assert_false(info.compound);
	assert_int_equal(info.compound_order, 0);
	assert_int_equal(info.size, SIM_PAGE_SIZE);
	assert_int_equal(info.folio_nr_pages, 1);
	kapi___free_pages(page, 3);
	assert_nothing_allocated();
}

/*
 * __free_pages() of a compound page with the wrong order warns and frees
 * the whole compound page; of a tail page warns and frees nothing.
 */
static void test_freeing_a_compound_page_checks_the_order(void **state)
{
	unsigned long long warnings = sim_kernel_warnings();
	struct sim_page *page;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 64 * MiB, .nr_cpus = 1,
	});
	page = kapi_alloc_pages(gfp("GFP_KERNEL") | gfp("__GFP_COMP"), 4);
	kapi___free_pages(page + 1, 0);
	assert_int_equal(sim_kernel_warnings(), warnings + 1);
	assert_int_equal(sim_buddy_nr_allocated(), 16);
	kapi___free_pages(page, 2);
	assert_int_equal(sim_kernel_warnings(), warnings + 2);
	assert_nothing_allocated();
}

/*
 * References: put_page() on the last reference of a compound page frees
 * all of it; __free_pages() of a non-compound page someone else holds frees
 * all but the first page (6.12's behaviour), which the last put_page frees.
 */
static void test_references_decide_when_pages_are_freed(void **state)
{
	struct sim_page *folio, *block;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 64 * MiB, .nr_cpus = 1,
	});
	folio = kapi_folio_alloc(gfp("GFP_KERNEL"), 2);
	kapi_get_page(folio + 3);
	kapi_put_page(folio);
	assert_int_equal(sim_buddy_nr_allocated(), 4);
	kapi_put_page(folio + 2);
	assert_int_equal(sim_buddy_nr_allocated(), 0);

	block = kapi_alloc_pages(gfp("GFP_KERNEL"), 2);
	kapi_get_page(block);
	kapi___free_pages(block, 2);
	assert_int_equal(sim_buddy_nr_allocated(), 1);
	kapi_put_page(block);
	assert_nothing_allocated();
}

/* split_page() makes a block freeable page by page. */
static void test_split_page_gives_order_zero_pages(void **state)
{
	struct sim_page *block;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 64 * MiB, .nr_cpus = 1,
	});
	block = kapi_alloc_pages(gfp("GFP_KERNEL"), 3);
	kapi_split_page(block, 3);
	for (int i = 7; i >= 0; i--)
		kapi___free_pages(block + i, 0);
	assert_nothing_allocated();
}

/*
 * __get_free_pages / get_zeroed_page hand out direct-map addresses; a page
 * dirtied, freed and handed out again by get_zeroed_page (the per-cpu list
 * is LIFO) reads as zeroes.
 */
static void test_get_free_pages_returns_the_direct_map(void **state)
{
	unsigned long addr, zeroed;
	struct sim_page *page;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 64 * MiB, .nr_cpus = 1,
	});
	addr = kapi___get_free_pages(gfp("GFP_KERNEL"), 1);
	assert_int_not_equal(addr, 0);
	page = sim_virt_to_page((void *)addr);
	assert_ptr_equal(sim_page_address(page), (void *)addr);
	kapi_free_pages(addr, 1);
	addr = kapi___get_free_pages(gfp("GFP_KERNEL"), 0);
	memset((void *)addr, 0x77, SIM_PAGE_SIZE);
	kapi_free_pages(addr, 0);
	zeroed = kapi_get_zeroed_page(gfp("GFP_KERNEL"));
	assert_int_equal(zeroed, addr);
	for (size_t i = 0; i < SIM_PAGE_SIZE; i++)
		assert_int_equal(((unsigned char *)zeroed)[i], 0);
	kapi_free_pages(zeroed, 0);
	kapi_free_pages(0, 0);
	assert_nothing_allocated();
}

/* Each allocating call fails at its fault point and leaves nothing behind. */
static void test_fault_points_fail_allocations(void **state)
{
	static const struct {
		const char *point;
		int call;
	} cases[] = {
		{ "shim/mm/alloc_pages", 0 },
		{ "shim/mm/get_free_page", 1 },
		{ "shim/vmalloc/vmalloc", 2 },
		{ "shim/vmalloc/vmap", 3 },
	};
	unsigned long long kmallocs = sim_kmalloc_outstanding();

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 64 * MiB, .nr_cpus = 1,
	});
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sim_page *page = kapi_alloc_pages(gfp("GFP_KERNEL"), 0);

		fail_nth_call_of(cases[i].point, 0);
		switch (cases[i].call) {
		case 0:
			assert_null(kapi_alloc_pages(gfp("GFP_KERNEL"), 0));
			break;
		case 1:
			assert_int_equal(kapi___get_free_pages(gfp("GFP_KERNEL"), 0), 0);
			break;
		case 2:
			assert_null(kapi_vmalloc(100));
			break;
		case 3:
			assert_null(kapi_vmap(&page, 1));
			break;
		}
		stop_failing(cases[i].point);
		kapi___free_pages(page, 0);
		assert_nothing_allocated();
		assert_int_equal(sim_kmalloc_outstanding(), kmallocs);
		assert_int_equal(sim_vmap_outstanding(), 0);
	}
}

/*
 * A failed allocation is reported (KERN_WARNING) unless __GFP_NOWARN; an
 * order above MAX_PAGE_ORDER fails with a one-time WARN.
 */
static void test_failures_are_reported_unless_nowarn(void **state)
{
	unsigned long long warn_lines, warnings;
	struct sim_page *all;

	/* Two max-order blocks: low memory (never handed out) and one free. */
	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 8 * MiB << SIM_PAGE_SHIFT >> 12, .nr_cpus = 1,
	});
	all = kapi_alloc_pages(gfp("GFP_KERNEL"), 10);
	assert_non_null(all);
	warn_lines = sim_klog_count(SIM_KLOG_WARNING);
	assert_null(kapi_alloc_pages(gfp("GFP_KERNEL"), 0));
	assert_int_equal(sim_klog_count(SIM_KLOG_WARNING), warn_lines + 1);
	assert_null(kapi_alloc_pages(gfp("GFP_KERNEL") | gfp("__GFP_NOWARN"), 0));
	assert_int_equal(sim_klog_count(SIM_KLOG_WARNING), warn_lines + 1);
	kapi___free_pages(all, 10);
	warnings = sim_kernel_warnings();
	assert_null(kapi_alloc_pages(gfp("GFP_KERNEL") | gfp("__GFP_NOWARN"), 11));
	assert_int_equal(sim_kernel_warnings(), warnings);
	assert_null(kapi_alloc_pages(gfp("GFP_KERNEL"), 11));
	assert_int_equal(sim_kernel_warnings(), warnings + 1);
	assert_nothing_allocated();
}

/*
 * The heap's high-order flags on a fresh machine: order 9 (PMD order) is a
 * per-cpu order, so after one 2 MiB page is freed the next comes back
 * without the zone lock; order 8 always takes it.
 */
static void test_heap_high_order_flags_use_pcp_at_pmd_order(void **state)
{
	struct sim_page *a, *b;

	if (SIM_PMD_ORDER > SIM_MAX_ORDER)
		skip();
	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 16 * GiB, .nr_cpus = 1,
	});
	a = kapi_alloc_pages(heap_high_order_gfp(), SIM_PMD_ORDER);
	kapi___free_pages(a, SIM_PMD_ORDER);
	sim_counters_reset();
	b = kapi_alloc_pages(heap_high_order_gfp(), SIM_PMD_ORDER);
	assert_ptr_equal(a, b);
	assert_int_equal(sim_counters.c[SIM_CNT_ZONE_LOCK], 0);
	assert_int_equal(sim_counters.c[SIM_CNT_PCP_HIT], 1);
	assert_int_equal(sim_counters.c[SIM_CNT_PAGE_ZEROED], 1UL << SIM_PMD_ORDER);
	kapi___free_pages(b, SIM_PMD_ORDER);
	sim_counters_reset();
	a = kapi_alloc_pages(heap_high_order_gfp(), 8);
	assert_int_equal(sim_counters.c[SIM_CNT_ZONE_LOCK], 1);
	kapi___free_pages(a, 8);
	assert_nothing_allocated();
}

/* vmalloc memory is counted until vfree; vmap aliases the pages' data. */
static void test_vmalloc_and_vmap(void **state)
{
	unsigned long long kmallocs = sim_kmalloc_outstanding();
	struct sim_page *pages[2];
	unsigned char *v, *z, *alias;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 64 * MiB, .nr_cpus = 1,
	});
	v = kapi_vmalloc(3 * SIM_PAGE_SIZE);
	z = kapi_vzalloc(5000);
	assert_non_null(v);
	assert_non_null(z);
	assert_int_equal(z[4999], 0);
	assert_null(kapi_vmalloc(0));
	assert_int_equal(sim_kmalloc_outstanding(), kmallocs + 2);
	kapi_vfree(v);
	kapi_vfree(z);
	kapi_vfree(NULL);
	assert_int_equal(sim_kmalloc_outstanding(), kmallocs);

	pages[0] = kapi_alloc_pages(gfp("GFP_KERNEL"), 0);
	pages[1] = kapi_alloc_pages(gfp("GFP_KERNEL"), 0);
	alias = kapi_vmap(pages, 2);
	assert_non_null(alias);
	alias[SIM_PAGE_SIZE + 1] = 0x42;
	assert_int_equal(((unsigned char *)sim_page_address(pages[1]))[1], 0x42);
	kapi_vunmap(alias);
	assert_int_equal(sim_vmap_outstanding(), 0);
	kapi___free_pages(pages[0], 0);
	kapi___free_pages(pages[1], 0);
	assert_nothing_allocated();
}

/* pfn_valid is RAM only; get_order is the kernel's; reserved pages stay put. */
static void test_pfn_valid_get_order_and_reserved(void **state)
{
	static const struct {
		unsigned long size;
		int order;
	} orders[] = {
		{ 1, 0 }, { SIM_PAGE_SIZE, 0 }, { SIM_PAGE_SIZE + 1, 1 },
		{ 2 * SIM_PAGE_SIZE, 1 }, { 1UL << 21, 21 - SIM_PAGE_SHIFT },
		{ (1UL << 21) + 1, 22 - SIM_PAGE_SHIFT }, { 0, 64 - SIM_PAGE_SHIFT },
	};
	struct kapi_page_info info;
	struct sim_page *page;

	for (size_t i = 0; i < ARRAY_SIZE(orders); i++)
		assert_int_equal(kapi_get_order(orders[i].size), orders[i].order);
	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 8 * GiB, .nr_cpus = 1,
	});
	assert_true(kapi_pfn_valid(0));
	assert_false(kapi_pfn_valid((3 * GiB) >> SIM_PAGE_SHIFT));
	assert_true(kapi_pfn_valid((4 * GiB) >> SIM_PAGE_SHIFT));
	assert_false(kapi_pfn_valid(sim_max_pfn));
	page = kapi_alloc_pages(gfp("GFP_KERNEL"), 0);
	kapi_set_page_reserved(page, 1);
	kapi_page_info(page, &info);
	assert_true(info.reserved);
	kapi_set_page_reserved(page, 0);
	kapi___free_pages(page, 0);
	assert_nothing_allocated();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_teardown(fn, teardown)
		T(test_gfp_flags_choose_migratetype_and_zone),
		T(test_compound_page_as_the_kernel_helpers_see_it),
		T(test_non_compound_page_has_order_zero),
		T(test_freeing_a_compound_page_checks_the_order),
		T(test_references_decide_when_pages_are_freed),
		T(test_split_page_gives_order_zero_pages),
		T(test_get_free_pages_returns_the_direct_map),
		T(test_fault_points_fail_allocations),
		T(test_failures_are_reported_unless_nowarn),
		T(test_heap_high_order_flags_use_pcp_at_pmd_order),
		T(test_vmalloc_and_vmap),
		T(test_pfn_valid_get_order_and_reserved),
#undef T
	};

	return cmocka_run_group_tests_name("page_alloc", tests, NULL, NULL);
}
