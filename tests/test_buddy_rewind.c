// SPDX-License-Identifier: GPL-2.0-only
/*
 * sim_buddy_checkpoint()/sim_buddy_rewind(): after a rewind the allocator
 * hands out the same blocks, in the same order, as right after the
 * checkpoint, whatever ran in between; a rewind with pages still held is
 * refused and changes nothing.  Also: __GFP_ZERO over a run whose pages
 * were vmapped clears what was written through the vmap, whether the run
 * is cleared page by page or extent by extent.
 *
 * Machine: SMALL_RAM (sixteen max-order blocks, one zone), every block
 * deferred until the first allocation carves block 0:
 *
 *   pfn 0        1024       2048            15360      16384
 *   |  block 0   | block 1  |   ...         | block 15 |
 *    ^ held before the checkpoint (the "boot" allocations), the rest free
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

#define PAGES_PER_MAX_BLOCK (1UL << SIM_MAX_ORDER)
#define SMALL_RAM (16ULL * SIM_PAGE_SIZE * PAGES_PER_MAX_BLOCK)
#define MAX_STEPS 16

struct step {
	unsigned int order;
	unsigned int gfp;
};

/* A workload: allocations in order, each then kept or freed. */
struct workload {
	const char *name;
	struct step steps[MAX_STEPS];
	unsigned int nr;
};

static const struct sim_config small_machine = {
	.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
};

/* Run w, recording each block's pfn; every block is freed at the end. */
static void run_workload_recording_pfns(const struct workload *w,
					unsigned long pfns[MAX_STEPS])
{
	struct sim_page *pages[MAX_STEPS];

	for (unsigned int i = 0; i < w->nr; i++) {
		pages[i] = sim_buddy_alloc(w->steps[i].order, w->steps[i].gfp);
		assert_non_null(pages[i]);
		pfns[i] = sim_page_to_pfn(pages[i]);
	}
	for (unsigned int i = w->nr; i-- > 0;)
		sim_buddy_free(pages[i], w->steps[i].order);
}

/*
 * Between two runs: allocations that reorder the free lists, carve more
 * deferred blocks, steal movable pageblocks for unmovable requests and
 * raise the per-cpu high mark, all given back in a scrambled order.
 */
static void disturb_the_allocator(void)
{
	struct sim_page *p[96];
	unsigned int order[96];

	for (unsigned int i = 0; i < 96; i++) {
		/* 12 blocks of order 9, one of 10, the rest of 0..6: 31 MiB */
		order[i] = i == 5 ? SIM_MAX_ORDER : i % 8 == 0 ? 9 : i % 7;
		p[i] = sim_buddy_alloc(order[i], i & 1 ? SIM_GFP_MOVABLE : 0);
		assert_non_null(p[i]);
	}
	for (unsigned int i = 0; i < 96; i++) {
		unsigned int k = (i * 37) % 96;

		sim_buddy_free(p[k], order[k]);
	}
}

static const struct workload workloads[] = {
	{ "order-0 movable pages",
	  { { 0, SIM_GFP_MOVABLE }, { 0, SIM_GFP_MOVABLE }, { 0, SIM_GFP_MOVABLE },
	    { 0, SIM_GFP_MOVABLE } }, 4 },
	{ "mixed orders and types",
	  { { 3, 0 }, { 9, SIM_GFP_MOVABLE }, { 0, 0 }, { 4, SIM_GFP_MOVABLE },
	    { 10, SIM_GFP_MOVABLE }, { 1, 0 } }, 6 },
	{ "unmovable pages that steal",
	  { { 2, 0 }, { 2, 0 }, { 5, 0 }, { 0, 0 }, { 8, 0 } }, 5 },
	{ "more max-order blocks than the boot carved",
	  { { 10, SIM_GFP_MOVABLE }, { 10, SIM_GFP_MOVABLE },
	    { 10, SIM_GFP_MOVABLE }, { 10, 0 } }, 4 },
};

/* Allocations held from before the checkpoint to the end, as a boot's. */
static struct sim_page *hold_boot_allocations(struct sim_page **second)
{
	struct sim_page *first = sim_buddy_alloc(3, 0);

	*second = sim_buddy_alloc(0, SIM_GFP_MOVABLE);
	assert_non_null(first);
	assert_non_null(*second);
	return first;
}

/* After a rewind every workload gets the blocks it got after the checkpoint. */
static void test_rewind_hands_out_the_same_blocks_again(void **state)
{
	for (size_t w = 0; w < ARRAY_SIZE(workloads); w++) {
		unsigned long first[MAX_STEPS], again[MAX_STEPS];
		struct sim_page *boot0, *boot1;
		unsigned long free_at_checkpoint;

		given_a_fresh_machine(&small_machine);
		boot0 = hold_boot_allocations(&boot1);
		assert_int_equal(sim_buddy_checkpoint(), 0);
		free_at_checkpoint = sim_buddy_nr_free();
		run_workload_recording_pfns(&workloads[w], first);
		disturb_the_allocator();
		assert_int_equal(sim_buddy_rewind(), 0);
		assert_int_equal(sim_buddy_nr_free(), free_at_checkpoint);
		run_workload_recording_pfns(&workloads[w], again);
		for (unsigned int i = 0; i < workloads[w].nr; i++) {
			if (first[i] != again[i])
				fail_msg("%s: step %u got pfn 0x%lx, 0x%lx after the checkpoint",
					 workloads[w].name, i, again[i], first[i]);
		}
		/* A second rewind in a row is the same state again. */
		assert_int_equal(sim_buddy_rewind(), 0);
		assert_int_equal(sim_buddy_rewind(), 0);
		run_workload_recording_pfns(&workloads[w], again);
		assert_memory_equal(first, again, workloads[w].nr * sizeof(first[0]));
		sim_buddy_free(boot0, 3);
		sim_buddy_free(boot1, 0);
		sim_machine_destroy();
	}
}

/*
 * The rewind empties the per-cpu lists: no page of the machine is left
 * marked as on one (the page scanners of compaction and ageing skip such
 * pages), and the next allocation still finds the pages a free put there.
 */
static void test_rewind_leaves_no_page_on_a_pcp_list(void **state)
{
	struct sim_page *boot0, *boot1;

	given_a_fresh_machine(&small_machine);
	boot0 = hold_boot_allocations(&boot1);
	assert_int_equal(sim_buddy_checkpoint(), 0);
	disturb_the_allocator();
	/* order-0 frees stay on the per-cpu lists until a drain */
	run_workload_recording_pfns(&workloads[0], (unsigned long[MAX_STEPS]){ 0 });
	assert_int_equal(sim_buddy_rewind(), 0);
	for (unsigned long pfn = 0; pfn < SMALL_RAM / SIM_PAGE_SIZE; pfn++)
		if (sim_page_test(sim_pfn_to_page(pfn), SIM_PG_PCP))
			fail_msg("pfn 0x%lx still marked as on a per-cpu list", pfn);
	sim_buddy_free(boot0, 3);
	sim_buddy_free(boot1, 0);
}

/*
 * Without the rewind, the disturbance does change what some workload gets
 * (so the test above can fail).
 */
static void test_without_rewind_the_history_shows(void **state)
{
	unsigned int changed = 0;

	for (size_t w = 0; w < ARRAY_SIZE(workloads); w++) {
		unsigned long first[MAX_STEPS], again[MAX_STEPS];
		struct sim_page *boot0, *boot1;

		given_a_fresh_machine(&small_machine);
		boot0 = hold_boot_allocations(&boot1);
		assert_int_equal(sim_buddy_checkpoint(), 0);
		run_workload_recording_pfns(&workloads[w], first);
		disturb_the_allocator();
		sim_buddy_drain_pcp();
		run_workload_recording_pfns(&workloads[w], again);
		changed += memcmp(first, again,
				  workloads[w].nr * sizeof(first[0])) != 0;
		sim_buddy_free(boot0, 3);
		sim_buddy_free(boot1, 0);
		sim_machine_destroy();
	}
	assert_true(changed > 0);
}

/* A page allocated since the checkpoint and still held: refused, nothing changes. */
static void test_rewind_refuses_while_a_new_page_is_held(void **state)
{
	struct sim_page *held, *next;
	unsigned long free_before;

	given_a_fresh_machine(&small_machine);
	assert_int_equal(sim_buddy_checkpoint(), 0);
	held = sim_buddy_alloc(2, 0);
	assert_non_null(held);
	free_before = sim_buddy_nr_free();
	assert_int_equal(sim_buddy_rewind(), -EBUSY);
	assert_int_equal(sim_buddy_nr_free(), free_before);
	assert_int_equal(sim_buddy_nr_allocated(), 4);
	/* The held block is still allocated: the allocator does not hand it out. */
	next = sim_buddy_alloc(2, 0);
	assert_ptr_not_equal(next, held);
	sim_buddy_free(next, 2);
	sim_buddy_free(held, 2);
	assert_int_equal(sim_buddy_rewind(), 0);
	assert_int_equal(sim_buddy_nr_allocated(), 0);
}

/*
 * As many pages free as at the checkpoint but not the same ones (a page
 * held then was freed, another taken): refused.
 */
static void test_rewind_refuses_when_other_pages_are_free(void **state)
{
	struct sim_page *boot0, *boot1, *other;

	given_a_fresh_machine(&small_machine);
	boot0 = hold_boot_allocations(&boot1);
	assert_int_equal(sim_buddy_checkpoint(), 0);
	sim_buddy_free(boot1, 0);
	other = sim_buddy_alloc(0, 0);
	assert_non_null(other);
	sim_buddy_drain_pcp();
	if (other == boot1) {
		/* The same page came back: take a different one instead. */
		struct sim_page *second = sim_buddy_alloc(0, 0);

		sim_buddy_free(other, 0);
		other = second;
	}
	assert_int_equal(sim_buddy_rewind(), -EBUSY);
	sim_buddy_free(other, 0);
	sim_buddy_free(boot0, 3);
}

/* No checkpoint taken on this machine: -ENOENT. */
static void test_rewind_without_checkpoint_is_enoent(void **state)
{
	given_a_fresh_machine(&small_machine);
	assert_int_equal(sim_buddy_rewind(), -ENOENT);
	assert_int_equal(sim_buddy_checkpoint(), 0);
	given_a_fresh_machine(&small_machine);	/* a new machine forgets the old checkpoint */
	assert_int_equal(sim_buddy_rewind(), -ENOENT);
}

/* Zeroing cases: a block vmapped whole, some of its pages written. */
struct zero_case {
	const char *name;
	unsigned int order;
	unsigned int first_written, nr_written;	/* pages written via the vmap */
};

static const struct zero_case zero_cases[] = {
	{ "one page of 64 written", 6, 5, 1 },
	{ "every page of 64 written (cleared by punching)", 6, 0, 64 },
	{ "32 pages in the middle of 512", 9, 100, 32 },
	{ "nothing written", 6, 0, 0 },
	{ "a single page", 0, 0, 1 },
};

/* __GFP_ZERO after a vmap: every byte written through the alias reads 0. */
static void test_zeroing_clears_what_a_vmap_wrote(void **state)
{
	for (size_t c = 0; c < ARRAY_SIZE(zero_cases); c++) {
		const struct zero_case *z = &zero_cases[c];
		unsigned long nr = 1UL << z->order;
		struct sim_page *block, *pages[512], *again;
		unsigned char *alias;

		given_a_fresh_machine(&small_machine);
		block = sim_buddy_alloc(z->order, 0);
		assert_non_null(block);
		for (unsigned long i = 0; i < nr; i++)
			pages[i] = block + i;
		alias = sim_vmap(pages, nr);
		assert_non_null(alias);
		for (unsigned int i = 0; i < z->nr_written; i++)
			memset(alias + (size_t)(z->first_written + i) * SIM_PAGE_SIZE,
			       0xc3, SIM_PAGE_SIZE);
		sim_vunmap(alias);
		sim_buddy_free(block, z->order);
		sim_counters_reset();
		again = sim_buddy_alloc(z->order, SIM_GFP_ZERO);
		assert_ptr_equal(again, block);
		assert_int_equal(sim_counters.c[SIM_CNT_PAGE_ZEROED], nr);
		for (unsigned long i = 0; i < nr; i++) {
			const unsigned char *d = sim_page_address(again + i);

			for (size_t b = 0; b < SIM_PAGE_SIZE; b += 97)
				if (d[b])
					fail_msg("%s: page %lu byte %zu is 0x%x",
						 z->name, i, b, d[b]);
		}
		sim_buddy_free(again, z->order);
		sim_machine_destroy();
	}
}

int main(void)
{
#define T(fn) cmocka_unit_test_teardown(fn, destroy_the_machine)
	const struct CMUnitTest tests[] = {
		T(test_rewind_hands_out_the_same_blocks_again),
		T(test_rewind_leaves_no_page_on_a_pcp_list),
		T(test_without_rewind_the_history_shows),
		T(test_rewind_refuses_while_a_new_page_is_held),
		T(test_rewind_refuses_when_other_pages_are_free),
		T(test_rewind_without_checkpoint_is_enoent),
		T(test_zeroing_clears_what_a_vmap_wrote),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
