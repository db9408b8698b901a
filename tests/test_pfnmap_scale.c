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

#define BAR_BYTES	(32UL << 30)
#define BAR_PAGES	(BAR_BYTES / SIM_PAGE_SIZE)

static int setup_process(void **state)
{
	struct sim_config cfg = { .ram_bytes = 4ULL << 30 };

	assert_int_equal(sim_machine_init(&cfg), 0);
	assert_non_null(kapi_proc_create());
	return 0;
}

static int teardown_process(void **state)
{
	kapi_proc_destroy(kapi_proc_current());
	sim_machine_destroy();
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
	struct kapi_mm_map m = { .len = BAR_BYTES, .kind = KAPI_MM_PFNMAP,
				 .writable = 1, .populate = 1,
				 .max_leaf = max_leaf };
	unsigned long va;

	*pfn = sim_bar_create(BAR_BYTES, 0, 0, 0);
	assert_int_not_equal(*pfn, 0);
	m.pfn = *pfn;
	assert_int_equal(kapi_mm_mmap(&m, &va), 0);
	return va;
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

/* 1 GiB leaves: the stride makes 32 lookups; page by page stays 8M. */
static void test_32g_bar_of_pud_leaves_takes_32_strided_lookups(void **state)
{
	unsigned long pfn, done, va = map_32g_bar(KAPI_MM_LEAF_PUD, &pfn);
	unsigned long long sum;
	double t0, t1;

	assert_int_equal(kapi_mm_pfnmap_walk(va, BAR_PAGES, 1, &done, &sum), 32);
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
						setup_process, teardown_process),
		cmocka_unit_test_setup_teardown(test_32g_bar_of_pud_leaves_takes_32_strided_lookups,
						setup_process, teardown_process),
	};

	return cmocka_run_group_tests_name("pfnmap_scale", tests, NULL, NULL);
}
