// SPDX-License-Identifier: GPL-2.0-only
/*
 * follow_pfnmap at the scale of the VFIO report (suite 'slow'): a 32 GiB
 * BAR mapped with 4 KiB leaves, looked up page by page (8,388,608 calls,
 * the loop that took about 1 s in the kernel) and with the leaf stride;
 * and the same BAR with 1 GiB leaves (32 lookups).  The checks are on
 * counts and pfns; the wall time is printed for the record, not asserted.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include <dmasim/kapi_mm.h>
#include <dmasim/sim.h>

#include "shared.h"

#define BAR_BYTES	((unsigned long)BAR_32G)
#define BAR_PAGES	(BAR_BYTES / SIM_PAGE_SIZE)

/* A booted 4 GiB machine and a process. */
static int setup(void **state)
{
	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 4 * GiB });
	given_a_process();
	return 0;
}

static double seconds_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static unsigned long map_32g_bar(int max_leaf, unsigned long *pfn)
{
	return map_bar(&(struct kapi_mm_map){
		.len = BAR_BYTES, .writable = 1, .populate = 1,
		.max_leaf = max_leaf,
	}, NULL, pfn);
}

static unsigned long long sum_of_pfns(unsigned long first, unsigned long n)
{
	return (unsigned long long)n * first + (unsigned long long)n * (n - 1) / 2;
}

/* 4 KiB leaves: one lookup per page, whether striding or not. */
static void test_32g_bar_of_pte_leaves_takes_a_lookup_per_page(void **state)
{
	unsigned long pfn, done, va = map_32g_bar(KAPI_MM_LEAF_PTE, &pfn);
	unsigned long long sum;
	double t0 = seconds_now(), t1;

	assert_int_equal(kapi_mm_pfnmap_walk(va, BAR_PAGES, 1, &done, &sum),
			 BAR_PAGES);
	t1 = seconds_now();
	assert_int_equal(done, BAR_PAGES);
	assert_int_equal(sum, sum_of_pfns(pfn, BAR_PAGES));
	print_message("%lu follow_pfnmap_start calls in %.3f s (%.1f ns each), "
		      "%lu page-table pages\n", BAR_PAGES, t1 - t0,
		      (t1 - t0) / BAR_PAGES * 1e9, kapi_mm_nr_tables());
}

/*
 * 1 GiB leaves: the stride makes 32 lookups; page by page stays 8M.  (With
 * 16 and 64 KiB pages the BAR's largest leaves are PMDs, BAR_32G_LEAF:
 * one lookup each.)
 */
static void test_32g_bar_of_pud_leaves_takes_32_strided_lookups(void **state)
{
	unsigned long pfn, done, va = map_32g_bar(KAPI_MM_LEAF_PUD, &pfn);
	unsigned long long sum;
	double t0, t1;

	assert_int_equal(kapi_mm_pfnmap_walk(va, BAR_PAGES, 1, &done, &sum),
			 BAR_BYTES / BAR_32G_LEAF);
	assert_int_equal(sum, sum_of_pfns(pfn, BAR_PAGES));
	t0 = seconds_now();
	assert_int_equal(kapi_mm_pfnmap_walk(va, BAR_PAGES, 0, &done, &sum),
			 BAR_PAGES);
	t1 = seconds_now();
	assert_int_equal(sum, sum_of_pfns(pfn, BAR_PAGES));
	print_message("page by page over PUD leaves: %.3f s\n", t1 - t0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_32g_bar_of_pte_leaves_takes_a_lookup_per_page,
						setup, check_and_destroy_the_machine),
		cmocka_unit_test_setup_teardown(test_32g_bar_of_pud_leaves_takes_32_strided_lookups,
						setup, check_and_destroy_the_machine),
	};

	/* The page walk under test, over the leaves each test builds. */
	kapi_mm_set_exact_pfnmap_leaves(1);
	return cmocka_run_group_tests_name("pfnmap_scale", tests, NULL, NULL);
}
