// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scatterlist shim's tables are chained as the kernel chains them:
 * sg_alloc_table() of more than SG_MAX_SINGLE_ALLOC (M) entries takes
 * chunks of M entries whose last slot links to the next chunk, and every
 * walker steps over the links.  M is a page of entries (128 with 4 KiB
 * pages), so a table of 3M + 1 entries... any length, lies like this:
 *
 *   chunk 0             chunk 1            chunk 2        chunk 3
 *   [e0 .. e(M-2) |L]-->[e(M-1) ..   |L]-->[ ...      |L]-->[x  y  z(END)]
 *    M-1 entries          M-1 entries       M-1 entries      the 3 left
 *
 * L: an SG_CHAIN link, never handed to a caller; END: the end mark.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dmasim/kapi_sg.h>
#include <dmasim/sim.h>

#include "shared.h"

/* A table length as a multiple of M plus a few entries. */
struct table_len {
	unsigned int times_m;
	int plus;
};

static unsigned int entries(struct table_len len)
{
	return len.times_m * kapi_sg_max_single_alloc() + len.plus;
}

/* Pages the walk gives entries 0..n-1 ((i % 3) + 1 each, kapi_sg.h). */
static unsigned int pages_of_walked_entries(unsigned int n)
{
	unsigned int pages = 0;

	for (unsigned int i = 0; i < n; i++)
		pages += i % 3 + 1;
	return pages;
}

/*
 * Every walker sees exactly nents entries in order, over the links and
 * never on one, the table takes as many chunks as the kernel's would, and
 * freeing it gives every chunk back.
 */
static void test_every_walker_sees_each_entry_once_across_chunks(void **state)
{
	static const struct {
		struct table_len len;
		unsigned int chunks;
	} cases[] = {
		{ { 0, 1 },  1 },	/* a single entry */
		{ { 1, -1 }, 1 },	/* one short of a full chunk */
		{ { 1, 0 },  1 },	/* exactly one full chunk, no link */
		{ { 1, 1 },  2 },	/* M-1 entries + link, then 2 entries */
		{ { 3, 0 },  4 },	/* 3 x (M-1), then the 3 left */
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned int n = entries(cases[i].len);
		unsigned long long before = sim_kmalloc_outstanding();
		unsigned long long asks =
			sim_fault_calls[SIM_FP_SG_ALLOC_TABLE];
		struct kapi_sg_walk w;

		assert_int_equal(kapi_sg_table_walk(n, &w), 0);
		assert_int_equal(w.orig_nents, n);
		assert_int_equal(w.nents, n);
		assert_int_equal(w.objects, cases[i].chunks);
		assert_int_equal(sim_fault_calls[SIM_FP_SG_ALLOC_TABLE] - asks,
				 cases[i].chunks);
		assert_int_equal(w.visited, n);
		assert_int_equal(w.links_visited, 0);
		assert_int_equal(w.chunk_hops, cases[i].chunks - 1);
		assert_int_equal(w.tags_in_order, n);
		assert_int_equal(w.sg_nents, n);
		assert_true(w.last_is_marked_end);
		assert_int_equal(w.pages, pages_of_walked_entries(n));
		assert_int_equal(w.pages_in_order, w.pages);
		assert_int_equal(w.dma_pages, w.pages);
		assert_int_equal(w.dma_pages_in_order, w.pages);
		assert_int_equal(sim_kmalloc_outstanding(), before);
	}
}

/* A table of no entries is -EINVAL and takes nothing. */
static void test_empty_table_is_rejected(void **state)
{
	unsigned long long before = sim_kmalloc_outstanding();
	struct kapi_sg_walk w;

	assert_int_equal(kapi_sg_table_walk(0, &w), -EINVAL);
	assert_false(w.sgl_set);
	assert_int_equal(w.objects, 0);
	assert_int_equal(sim_kmalloc_outstanding(), before);
}

/*
 * A chunk that cannot be had, first, second or last, fails the table with
 * -ENOMEM, and the chunks taken before it are given back: the table is
 * empty and the heap as it was.
 */
static void test_failed_chunk_gives_back_the_chunks_before_it(void **state)
{
	static const struct {
		struct table_len len;
		unsigned int failing_chunk;	/* 1 = the first */
	} cases[] = {
		{ { 1, 1 }, 1 },
		{ { 1, 1 }, 2 },
		{ { 3, 0 }, 2 },
		{ { 3, 0 }, 3 },
		{ { 3, 0 }, 4 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned long long before = sim_kmalloc_outstanding();
		struct kapi_sg_walk w;
		int ret;

		sim_fault_nth_start(cases[i].failing_chunk, 0);
		ret = kapi_sg_table_walk(entries(cases[i].len), &w);
		assert_int_equal(sim_fault_nth_injected(), 1);
		assert_int_equal(sim_fault_nth_first_point(),
				 SIM_FP_SG_ALLOC_TABLE);
		assert_int_equal(sim_fault_nth_stop(), cases[i].failing_chunk);
		assert_int_equal(ret, -ENOMEM);
		assert_false(w.sgl_set);
		assert_int_equal(w.orig_nents, 0);
		assert_int_equal(w.nents, 0);
		assert_int_equal(w.objects, 0);
		assert_int_equal(sim_kmalloc_outstanding(), before);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_walker_sees_each_entry_once_across_chunks),
		cmocka_unit_test(test_empty_table_is_rejected),
		cmocka_unit_test(test_failed_chunk_gives_back_the_chunks_before_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
