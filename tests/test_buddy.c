// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated physical memory and buddy allocator, at the simulator's
 * own API (no kernel code): layouts after split and merge, the per-cpu
 * versus zone-lock paths, conservation of free pages, zeroing, compound
 * pages, the sparse memmap, fragmentation by the ageing workload.
 *
 * Most scenarios run on a small machine (SMALL_RAM: 64 MiB with 4 KiB
 * pages), one zone:
 *
 *   pfn 0        1024       2048            15360      16384
 *   |  block 0   | block 1  |   ...         | block 15 |
 *   DMA32 zone: sixteen max-order (order 10, 4 MiB) blocks, all deferred
 *   (free, on no list) until the first allocation carves block 0.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <valgrind/valgrind.h>

#include <dmasim/sim.h>

#include "shared.h"

#define PAGES_PER_MAX_BLOCK (1UL << SIM_MAX_ORDER)
/*
 * Seventeen max-order blocks (68 MiB with 4 KiB pages): the first is low
 * memory the allocator never hands out (sim/buddy.c), sixteen are free.
 * BASE is the first pfn the allocator gives, the start of block 0 below.
 */
#define SMALL_RAM (17ULL * SIM_PAGE_SIZE * PAGES_PER_MAX_BLOCK)
#define BASE sim_buddy_first_pfn()

/* What a fresh or whole-again machine has free: RAM less low memory. */
static unsigned long managed_pages(void)
{
	return sim_buddy_nr_managed();
}

static unsigned long pfn_of(const struct sim_page *page)
{
	return sim_page_to_pfn(page);
}

static unsigned long count_of(enum sim_counter id)
{
	return (unsigned long)sim_counters.c[id];
}

/* Free blocks per order equal the table (an entry of -1 is not checked). */
static void assert_free_blocks_are(const long expected[SIM_NR_ORDERS])
{
	for (unsigned int o = 0; o < SIM_NR_ORDERS; o++)
		if (expected[o] >= 0)
			assert_int_equal(sim_buddy_nr_free_blocks(o), expected[o]);
}

static void assert_machine_is_whole_again(void)
{
	sim_buddy_drain_pcp();
	assert_int_equal(sim_buddy_nr_free(), managed_pages());
	assert_int_equal(sim_buddy_nr_allocated(), 0);
	assert_int_equal(sim_buddy_nr_free_blocks(SIM_MAX_ORDER),
			 managed_pages() / PAGES_PER_MAX_BLOCK);
	assert_int_equal(managed_pages(), (sim_ram_bytes() >> SIM_PAGE_SHIFT) -
			 PAGES_PER_MAX_BLOCK);
}

/*
 * An order-4 request on a fresh machine carves block 0 and splits it as
 * expand() does: its first pfn (BASE) to the caller, one free block each
 * of orders 4..9 (at BASE + 16, 32, ..., 512), fifteen max-order blocks
 * untouched.
 */
static void test_first_allocation_splits_the_first_block(void **state)
{
	static const long after_one[SIM_NR_ORDERS] = {
		0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 15,
	};
	struct sim_page *page;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
	});
	page = sim_buddy_alloc(4, 0);
	assert_non_null(page);
	assert_int_equal(pfn_of(page), BASE);
	assert_free_blocks_are(after_one);
	assert_int_equal(count_of(SIM_CNT_BUDDY_SPLIT), 6);
	assert_int_equal(sim_buddy_nr_free(), managed_pages() - 16);
	assert_int_equal(sim_buddy_nr_allocated(), 16);
}

/*
 * Successive allocations on a fresh machine ascend contiguously from BASE
 * (the table's pfns are relative to it).  (Orders
 * 4..8 and 10 only: a per-cpu order would refill its list with more than
 * the one block asked for.)
 */
static void test_successive_allocations_are_ascending_and_contiguous(void **state)
{
	static const struct {
		unsigned int order;
		unsigned long pfn;
	} steps[] = {
		{ 4, 0 }, { 4, 16 }, { 5, 32 }, { 6, 64 }, { 7, 128 },
		{ 8, 256 }, { 8, 512 }, { 8, 768 }, { 10, 1024 }, { 8, 2048 },
	};

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
	});
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		struct sim_page *page = sim_buddy_alloc(steps[i].order,
							SIM_GFP_MOVABLE);

		assert_non_null(page);
		assert_int_equal(pfn_of(page), BASE + steps[i].pfn);
	}
}

/*
 * Freeing buddies merges them: after freeing every block of the table in
 * any order the machine is sixteen free max-order blocks again.
 */
static void test_free_merges_buddies_back_to_max_order(void **state)
{
	static const unsigned int orders[] = { 4, 4, 5, 6, 7, 8, 9 };
	struct sim_page *pages[7];
	static const long fresh[SIM_NR_ORDERS] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16 };

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
	});
	for (size_t i = 0; i < 7; i++)
		pages[i] = sim_buddy_alloc(orders[i], SIM_GFP_MOVABLE);
	/* The order-9 refill's spare block goes back (and merges) on drain. */
	sim_buddy_drain_pcp();
	sim_counters_reset();
	/* Block 0 is fully allocated: no free block below order 10. */
	static const long full[SIM_NR_ORDERS] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 15 };
	assert_free_blocks_are(full);
	sim_buddy_free(pages[1], 4);	/* BASE + 16: its buddy (BASE) is busy */
	assert_int_equal(sim_buddy_nr_free_blocks(4), 1);
	sim_buddy_free(pages[0], 4);	/* BASE: merges with BASE + 16 into order 5 */
	assert_int_equal(sim_buddy_nr_free_blocks(4), 0);
	assert_int_equal(sim_buddy_nr_free_blocks(5), 1);
	for (size_t i = 2; i < 7; i++)
		sim_buddy_free(pages[i], orders[i]);
	sim_buddy_drain_pcp();
	assert_free_blocks_are(fresh);
	assert_int_equal(count_of(SIM_CNT_BUDDY_MERGE), 6);
	assert_machine_is_whole_again();
}

/*
 * Order 0..3 allocations come from the per-cpu list: the first refills it
 * under the zone lock (batch blocks), the next ones take no lock.  Order 4
 * always takes the zone lock.
 */
static void test_low_orders_use_the_pcp_list_and_skip_the_zone_lock(void **state)
{
	struct sim_page *a, *b, *c;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
	});
	sim_counters_reset();
	a = sim_buddy_alloc(0, 0);
	assert_int_equal(count_of(SIM_CNT_ZONE_LOCK), 1);
	assert_int_equal(count_of(SIM_CNT_PCP_HIT), 1);
	assert_true(sim_buddy_nr_pcp(0) > 0);
	b = sim_buddy_alloc(0, 0);
	assert_int_equal(pfn_of(b), pfn_of(a) + 1);
	assert_int_equal(count_of(SIM_CNT_ZONE_LOCK), 1);
	assert_int_equal(count_of(SIM_CNT_PCP_HIT), 2);
	c = sim_buddy_alloc(4, 0);
	assert_non_null(c);
	assert_int_equal(count_of(SIM_CNT_ZONE_LOCK), 2);
	assert_int_equal(count_of(SIM_CNT_PCP_HIT), 2);
	sim_buddy_free(a, 0);
	sim_buddy_free(b, 0);
	assert_int_equal(count_of(SIM_CNT_PCP_FREE), 2);
	sim_buddy_free(c, 4);
	assert_int_equal(count_of(SIM_CNT_PCP_FREE), 2);
	assert_machine_is_whole_again();
}

/*
 * PMD order (pageblock order, 9 with 4 KiB pages) is per-cpu too: a freed
 * 2 MiB block waits on its cpu's list and the next order-9 allocation on
 * that cpu takes it back without the zone lock; another cpu does not see
 * it.  (4 GiB, two cpus: pcp high is large enough to hold 2 MiB blocks.)
 */
static void test_pmd_order_blocks_are_recycled_per_cpu(void **state)
{
	struct sim_page *a, *b, *c;

	if (SIM_PMD_ORDER > SIM_MAX_ORDER)
		skip();
	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 4 * GiB, .nr_cpus = 2, .seed = 1,
	});
	a = sim_buddy_alloc(SIM_PMD_ORDER, 0);
	assert_non_null(a);
	sim_buddy_free(a, SIM_PMD_ORDER);
	assert_true(sim_buddy_nr_pcp(0) >= 1UL << SIM_PMD_ORDER);
	sim_counters_reset();
	b = sim_buddy_alloc(SIM_PMD_ORDER, 0);
	assert_ptr_equal(a, b);
	assert_int_equal(count_of(SIM_CNT_ZONE_LOCK), 0);
	assert_int_equal(count_of(SIM_CNT_PCP_HIT), 1);
	sim_buddy_free(b, SIM_PMD_ORDER);
	sim_set_cpu(1);
	c = sim_buddy_alloc(SIM_PMD_ORDER, 0);
	assert_ptr_not_equal(c, a);
	assert_true(count_of(SIM_CNT_ZONE_LOCK) > 0);
	sim_buddy_free(c, SIM_PMD_ORDER);
	sim_set_cpu(0);
	assert_machine_is_whole_again();
}

/*
 * Per-cpu lists never hold more than high_max (an eighth of the zone): the
 * rest of a long run of frees is drained back to the buddy lists.
 */
static void test_pcp_list_drains_when_over_high(void **state)
{
	enum { N = 4096 };
	static struct sim_page *pages[N];

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
	});
	for (size_t i = 0; i < N; i++)
		pages[i] = sim_buddy_alloc(0, 0);
	assert_int_equal(count_of(SIM_CNT_BUDDY_FREE), 0);
	for (size_t i = 0; i < N; i++)
		sim_buddy_free(pages[i], 0);
	assert_true(sim_buddy_nr_pcp(0) <= managed_pages() / 8);
	assert_true(count_of(SIM_CNT_BUDDY_FREE) >= N - managed_pages() / 8);
	assert_machine_is_whole_again();
}

/*
 * Free pages are conserved over a long random sequence of allocations and
 * frees of every order and migratetype (fixed seed), and everything merges
 * back into max-order blocks at the end.
 */
static void test_free_count_is_conserved_over_random_sequences(void **state)
{
	enum { SLOTS = 256, STEPS = 20000 };
	static const unsigned int gfps[] = {
		0, SIM_GFP_MOVABLE, SIM_GFP_RECLAIMABLE, SIM_GFP_DMA32,
	};
	struct { struct sim_page *page; unsigned int order; } slot[SLOTS];
	unsigned long long rng = 42;
	unsigned long held = 0;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = 2, .seed = 1,
	});
	memset(slot, 0, sizeof(slot));
	for (int step = 0; step < STEPS; step++) {
		unsigned long long r = sim_rand_next(&rng);
		size_t i = r % SLOTS;

		sim_set_cpu((r >> 20) & 1);
		if (slot[i].page) {
			sim_buddy_free(slot[i].page, slot[i].order);
			held -= 1UL << slot[i].order;
			slot[i].page = NULL;
		} else {
			unsigned int order = (r >> 8) % 8 == 0 ? (r >> 12) % 11 : (r >> 12) % 4;

			slot[i].page = sim_buddy_alloc(order, gfps[(r >> 16) % 4]);
			slot[i].order = order;
			if (slot[i].page)
				held += 1UL << order;
		}
		assert_int_equal(sim_buddy_nr_free() + held, managed_pages());
		assert_int_equal(sim_buddy_nr_allocated(), held);
	}
	for (size_t i = 0; i < SLOTS; i++)
		if (slot[i].page)
			sim_buddy_free(slot[i].page, slot[i].order);
	sim_set_cpu(0);
	assert_machine_is_whole_again();
}

/*
 * An unmovable request on a fresh machine falls back to a movable
 * max-order block and claims its pageblocks for unmovable allocations.
 */
static void test_unmovable_request_claims_a_movable_block(void **state)
{
	struct sim_page *page;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
	});
	page = sim_buddy_alloc(4, 0);
	assert_non_null(page);
	assert_int_equal(sim_pageblock_migratetype(pfn_of(page)), SIM_MIGRATE_UNMOVABLE);
	assert_int_equal(sim_buddy_nr_free_blocks_mt(9, SIM_MIGRATE_UNMOVABLE), 1);
	assert_int_equal(sim_pageblock_migratetype(BASE + PAGES_PER_MAX_BLOCK),
			 SIM_MIGRATE_MOVABLE);
	sim_buddy_free(page, 4);
	assert_machine_is_whole_again();
}

/*
 * A fallback block below pageblock order claims its whole pageblock for
 * the request's type when at least half the pageblock is free, counted
 * over all its free blocks (rmqueue_fallback).  The machine is all held
 * as movable max-order blocks; the first pageblock of one of them gets
 * the free pieces of a row (page offset, order) back, nothing else is
 * free, and an unmovable order-0 request must fall back into it.
 */
#define PB_PAGES (1UL << SIM_PAGEBLOCK_ORDER)
#define MAX_PIECES 12

struct claim_case {
	const char *name;
	struct { unsigned long offset; unsigned int order; } piece[MAX_PIECES];
	unsigned int nr_pieces;
	int claims;
};

static void hold_every_max_order_block(struct sim_page **held, unsigned int *nr)
{
	struct sim_page *page;

	*nr = 0;
	while ((page = sim_buddy_alloc(SIM_MAX_ORDER, SIM_GFP_MOVABLE)))
		held[(*nr)++] = page;
	assert_int_equal(sim_buddy_nr_free(), 0);
}

static void free_pages_not_yet_free(unsigned long base, unsigned long nr,
				    const unsigned char *is_free)
{
	for (unsigned long i = 0; i < nr; i++)
		if (!is_free[i])
			sim_buddy_free(sim_pfn_to_page(base + i), 0);
}

static void test_fallback_claims_a_pageblock_at_least_half_free(void **state)
{
	/* A pageblock's half, and half less one page, in one or many blocks. */
	const unsigned int h = SIM_PAGEBLOCK_ORDER - 1;
	const struct claim_case cases[] = {
		{ "half, one block", { { 0, h } }, 1, 1 },
		{ "half, two blocks apart", { { 0, h - 1 }, { PB_PAGES / 2, h - 1 } }, 2, 1 },
		{ "half less a page", { { 0, h - 1 }, { PB_PAGES / 4, h - 2 },
			{ PB_PAGES / 4 + PB_PAGES / 8, h - 3 }, { PB_PAGES / 2 - 32, 4 },
			{ PB_PAGES / 2 - 16, 3 }, { PB_PAGES / 2 - 8, 2 },
			{ PB_PAGES / 2 - 4, 1 }, { PB_PAGES / 2 - 2, 0 } }, 8, 0 },
		{ "a quarter", { { PB_PAGES / 4, h - 1 } }, 1, 0 },
	};
	static struct sim_page *held[64];
	static unsigned char is_free[PAGES_PER_MAX_BLOCK];

	if (SIM_PAGEBLOCK_ORDER < 7)
		skip();
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		const struct claim_case *t = &cases[c];
		struct sim_page *page;
		unsigned long base;
		unsigned int nr;

		given_a_fresh_machine(&(struct sim_config){
			.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
		});
		hold_every_max_order_block(held, &nr);
		base = pfn_of(held[0]);
		memset(is_free, 0, sizeof(is_free));
		for (unsigned int i = 0; i < t->nr_pieces; i++) {
			sim_buddy_free(sim_pfn_to_page(base + t->piece[i].offset),
				       t->piece[i].order);
			memset(is_free + t->piece[i].offset, 1, 1UL << t->piece[i].order);
		}
		sim_buddy_drain_pcp();
		assert_int_equal(sim_pageblock_migratetype(base), SIM_MIGRATE_MOVABLE);

		page = sim_buddy_alloc(0, 0);
		assert_non_null(page);
		assert_true(pfn_of(page) >= base && pfn_of(page) < base + PB_PAGES);
		print_message("%s\n", t->name);
		assert_int_equal(sim_pageblock_migratetype(base),
				 t->claims ? SIM_MIGRATE_UNMOVABLE : SIM_MIGRATE_MOVABLE);

		sim_buddy_free(page, 0);
		free_pages_not_yet_free(base, PAGES_PER_MAX_BLOCK, is_free);
		for (unsigned int i = 1; i < nr; i++)
			sim_buddy_free(held[i], SIM_MAX_ORDER);
		assert_machine_is_whole_again();
		sim_machine_destroy();
	}
}

/*
 * Zones on an 8 GiB machine:
 *
 *   0 ... 3G   DMA32 (786432 pfns)      3G ... 4G  hole
 *   4G ... 9G  Normal
 *
 * A plain request comes from Normal, SIM_GFP_DMA32 from below 4 GiB; a pfn
 * in the hole is not RAM.
 */
static void test_zones_and_the_hole_below_4g(void **state)
{
	const struct sim_ram_range *ranges;
	struct sim_page *normal, *dma32;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 8 * GiB, .nr_cpus = 1, .seed = 1,
	});
	assert_int_equal(sim_ram_ranges(&ranges), 2);
	assert_int_equal(ranges[0].end_pfn, SIM_LOW_RAM_END >> SIM_PAGE_SHIFT);
	assert_int_equal(ranges[1].start_pfn, SIM_HIGH_RAM_START >> SIM_PAGE_SHIFT);
	assert_int_equal(sim_max_pfn, (SIM_HIGH_RAM_START + 5 * GiB) >> SIM_PAGE_SHIFT);
	assert_false(sim_pfn_valid((SIM_LOW_RAM_END >> SIM_PAGE_SHIFT) + 1));
	assert_true(sim_pfn_valid(ranges[1].start_pfn));
	assert_false(sim_pfn_valid(sim_max_pfn));
	normal = sim_buddy_alloc(10, 0);
	dma32 = sim_buddy_alloc(10, SIM_GFP_DMA32);
	assert_int_equal(pfn_of(normal), ranges[1].start_pfn);
	assert_int_equal(pfn_of(dma32), BASE);
	assert_int_equal(BASE, PAGES_PER_MAX_BLOCK);
	sim_buddy_free(normal, 10);
	sim_buddy_free(dma32, 10);
	assert_machine_is_whole_again();
}

/*
 * Low memory is never handed out, whatever the machine's size:
 *
 *   ram <= one max-order block:  [ pfn 0 reserved | 1 .. end free ]
 *   larger:                      [ block 0 reserved | block 1 .. free ]
 *
 * Allocating every page of the machine, one at a time, never returns
 * pfn 0, and pfn 0 is PageReserved; freeing it is refused with a warning.
 */
static void test_low_memory_is_never_handed_out(void **state)
{
	static const struct {
		unsigned long long ram;
		unsigned long reserved;
	} cases[] = {
		{ SIM_PAGE_SIZE * PAGES_PER_MAX_BLOCK / 2, 1 },
		{ SIM_PAGE_SIZE * PAGES_PER_MAX_BLOCK, 1 },
		{ 3 * SIM_PAGE_SIZE * PAGES_PER_MAX_BLOCK, PAGES_PER_MAX_BLOCK },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned long pages, n = 0;
		unsigned long long warnings;
		struct sim_page *page, *first = NULL;

		given_a_fresh_machine(&(struct sim_config){
			.ram_bytes = cases[i].ram, .nr_cpus = 1, .seed = 1,
		});
		pages = (unsigned long)(cases[i].ram >> SIM_PAGE_SHIFT);
		assert_int_equal(managed_pages(), pages - cases[i].reserved);
		assert_int_equal(BASE, cases[i].reserved);
		assert_true(sim_pfn_to_page(0)->flags & (1UL << SIM_PG_RESERVED));
		while ((page = sim_buddy_alloc(0, 0))) {
			assert_int_not_equal(pfn_of(page), 0);
			page->owner = (unsigned long)first;	/* ours */
			first = page;
			n++;
		}
		assert_int_equal(n, managed_pages());
		warnings = sim_kernel_warnings();
		sim_buddy_free(sim_pfn_to_page(0), 0);
		assert_int_equal(sim_kernel_warnings(), warnings + 1);
		while ((page = first)) {
			first = (struct sim_page *)page->owner;
			page->owner = 0;
			sim_buddy_free(page, 0);
		}
		sim_buddy_drain_pcp();
		assert_int_equal(sim_buddy_nr_free(), managed_pages());
		assert_int_equal(sim_buddy_nr_allocated(), 0);
		sim_machine_destroy();
	}
}

/*
 * SIM_GFP_ZERO gives zeroed data even for a page someone dirtied, freed,
 * and that comes straight back from the per-cpu list; without it the
 * old data is still there, as on a real machine.
 */
static void test_zeroed_allocation_clears_a_dirty_recycled_page(void **state)
{
	struct sim_page *page, *again;
	unsigned char *data;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
	});
	page = sim_buddy_alloc(0, 0);
	data = sim_page_address(page);
	memset(data, 0xa5, SIM_PAGE_SIZE);
	sim_buddy_free(page, 0);
	again = sim_buddy_alloc(0, 0);
	assert_ptr_equal(again, page);
	assert_int_equal(((unsigned char *)sim_page_address(again))[100], 0xa5);
	sim_buddy_free(again, 0);
	sim_counters_reset();
	again = sim_buddy_alloc(0, SIM_GFP_ZERO);
	assert_ptr_equal(again, page);
	data = sim_page_address(again);
	for (size_t i = 0; i < SIM_PAGE_SIZE; i++)
		assert_int_equal(data[i], 0);
	assert_int_equal(count_of(SIM_CNT_PAGE_ZEROED), 1);
	sim_buddy_free(again, 0);
}

/*
 * Data written through the first page of a high-order block (as a kernel
 * user of page_address(head) does over the whole block) is cleared when any
 * part of the block comes back with SIM_GFP_ZERO.
 */
static void test_zeroing_covers_data_written_through_the_head(void **state)
{
	struct sim_page *block, *part;
	unsigned char *data;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
	});
	block = sim_buddy_alloc(6, 0);
	data = sim_page_address(block);
	memset(data, 0x5a, SIM_PAGE_SIZE << 6);
	sim_buddy_free(block, 6);
	part = sim_buddy_alloc(6, SIM_GFP_ZERO);
	assert_ptr_equal(part, block);
	data = sim_page_address(part);
	for (size_t i = 0; i < (SIM_PAGE_SIZE << 6); i += 509)
		assert_int_equal(data[i], 0);
	assert_int_equal(count_of(SIM_CNT_PAGE_ZEROED), 64);
	sim_buddy_free(part, 6);
}

/* A compound allocation has a head and tails pointing at it; free undoes it. */
static void test_compound_pages_have_head_and_tails(void **state)
{
	struct sim_page *head;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
	});
	head = sim_buddy_alloc(3, SIM_GFP_COMP);
	assert_true(sim_page_test(head, SIM_PG_HEAD));
	assert_int_equal(head->compound_order, 3);
	assert_int_equal(head->refcount, 1);
	for (int i = 1; i < 8; i++) {
		assert_true(sim_page_test(head + i, SIM_PG_TAIL));
		assert_int_equal(head[i].compound_head, (unsigned long)head | 1);
		assert_int_equal(head[i].refcount, 0);
	}
	assert_false(sim_page_test(head + 8, SIM_PG_TAIL));
	sim_buddy_free(head, 3);
	sim_buddy_drain_pcp();
	for (int i = 0; i < 8; i++) {
		assert_false(sim_page_test(head + i, SIM_PG_TAIL));
		assert_int_equal(head[i].compound_head, 0);
	}
	assert_false(sim_page_test(head, SIM_PG_HEAD));
	assert_machine_is_whole_again();
}

/* Freeing a free block or a misaligned one warns and changes nothing. */
static void test_bad_frees_warn_and_change_nothing(void **state)
{
	struct sim_page *page;
	unsigned long long warnings = sim_kernel_warnings();
	unsigned long free_pages;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
	});
	page = sim_buddy_alloc(4, 0);
	sim_buddy_free(page, 4);
	free_pages = sim_buddy_nr_free();
	sim_buddy_free(page, 4);
	assert_int_equal(sim_kernel_warnings(), warnings + 1);
	sim_buddy_free(sim_pfn_to_page(3), 2);
	assert_int_equal(sim_kernel_warnings(), warnings + 2);
	assert_int_equal(sim_buddy_nr_free(), free_pages);
	assert_machine_is_whole_again();
}

/*
 * A 1 TiB machine costs almost nothing until it is used: the memmap and
 * page data are sparse, the free lists deferred.  Allocating a few blocks
 * costs a few host pages.  (Not run under valgrind, whose address space
 * cannot hold a 1 TiB direct map.)
 */
static void test_a_1tib_machine_is_sparse(void **state)
{
	struct sim_page *pages[8];

	if (RUNNING_ON_VALGRIND)
		skip();
	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = 1ULL << 40, .nr_cpus = 4, .seed = 1,
	});
	assert_true(sim_mem_host_bytes() < 4 * MiB);
	assert_int_equal(sim_buddy_nr_free(), managed_pages());
	for (int i = 0; i < 8; i++) {
		pages[i] = sim_buddy_alloc(10, SIM_GFP_MOVABLE);
		assert_non_null(pages[i]);
	}
	assert_true(sim_mem_host_bytes() < 8 * MiB);
	for (int i = 0; i < 8; i++)
		sim_buddy_free(pages[i], 10);
	assert_machine_is_whole_again();
}

/* vmap aliases pages: a write through the alias is seen in the direct map. */
static void test_vmap_aliases_page_data(void **state)
{
	struct sim_page *pages[3];
	unsigned char *alias;

	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
	});
	pages[0] = sim_buddy_alloc(0, 0);
	pages[1] = sim_buddy_alloc(4, 0);
	pages[2] = pages[1] + 1;
	alias = sim_vmap(pages, 3);
	assert_non_null(alias);
	assert_int_equal(sim_vmap_outstanding(), 1);
	alias[0] = 1;
	alias[SIM_PAGE_SIZE] = 2;
	alias[2 * SIM_PAGE_SIZE + 7] = 3;
	assert_int_equal(((unsigned char *)sim_page_address(pages[0]))[0], 1);
	assert_int_equal(((unsigned char *)sim_page_address(pages[1]))[0], 2);
	assert_int_equal(((unsigned char *)sim_page_address(pages[2]))[7], 3);
	assert_ptr_equal(sim_virt_to_page(sim_page_address(pages[2])), pages[2]);
	assert_null(sim_virt_to_page(alias));
	sim_vunmap(alias);
	assert_int_equal(sim_vmap_outstanding(), 0);
	sim_buddy_free(pages[0], 0);
	sim_buddy_free(pages[1], 4);
	assert_machine_is_whole_again();
}

/* Free blocks of every order, for comparing two machines' free lists. */
struct free_histogram {
	unsigned long blocks[SIM_NR_ORDERS];
	unsigned long free_pages;
};

static void take_histogram(struct free_histogram *h)
{
	sim_buddy_drain_pcp();
	for (unsigned int o = 0; o < SIM_NR_ORDERS; o++)
		h->blocks[o] = sim_buddy_nr_free_blocks(o);
	h->free_pages = sim_buddy_nr_free();
}

static void age_fresh_machine(unsigned long long ram, double level,
			      unsigned long long seed, struct free_histogram *h)
{
	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = ram, .nr_cpus = 1, .seed = 1,
	});
	assert_int_equal(sim_age(level, seed), 0);
	take_histogram(h);
}

/*
 * Ageing is deterministic: the same (level, seed) on a fresh machine gives
 * the same free lists; another seed gives other ones.
 */
static void test_ageing_is_deterministic_per_seed(void **state)
{
	struct free_histogram a, b, c;

	age_fresh_machine(512 * MiB, SIM_AGE_LEVEL_AGED, 7, &a);
	age_fresh_machine(512 * MiB, SIM_AGE_LEVEL_AGED, 7, &b);
	age_fresh_machine(512 * MiB, SIM_AGE_LEVEL_AGED, 8, &c);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_memory_not_equal(&a, &c, sizeof(a));
	assert_true(a.free_pages < managed_pages() / 4);
}

/*
 * Level 1 leaves no free block of order 9 or more; what the workload holds
 * is marked and counted apart from other allocations, and release gives
 * all of it back.
 */
static void test_most_fragmented_level_has_no_free_pmd_block(void **state)
{
	struct free_histogram h;

	age_fresh_machine(1 * GiB, 1.0, 1, &h);
	assert_int_equal(h.blocks[9], 0);
	assert_int_equal(h.blocks[10], 0);
	assert_true(h.blocks[0] + h.blocks[1] + h.blocks[2] > 0);
	assert_int_equal(sim_buddy_nr_allocated(), 0);
	sim_age_release();
	assert_machine_is_whole_again();
}

/*
 * Levels order the machines: more level, less free memory in blocks of
 * order 4 or more (same seed, 1 GiB).
 */
static void test_higher_levels_leave_smaller_free_blocks(void **state)
{
	static const double levels[] = { 0.0, 0.25, 0.5, SIM_AGE_LEVEL_AGED, 1.0 };
	unsigned long previous = ~0UL;

	for (size_t i = 0; i < ARRAY_SIZE(levels); i++) {
		struct free_histogram h;
		unsigned long large = 0;

		age_fresh_machine(1 * GiB, levels[i], 3, &h);
		for (unsigned int o = 4; o < SIM_NR_ORDERS; o++)
			large += h.blocks[o] << o;
		assert_true(large < previous);
		previous = large;
		sim_machine_destroy();
	}
}

/*
 * The heap's high-order attempt (NORETRY, no direct reclaim) fails at once
 * on a fragmented machine, without reclaiming anything, and succeeds once
 * the ageing workload lets go of its memory.
 */
static void test_noretry_pmd_order_fails_when_fragmented_until_release(void **state)
{
	const unsigned int heap_high_order = SIM_GFP_ZERO | SIM_GFP_COMP |
		SIM_GFP_NORETRY | SIM_GFP_NOWARN;
	struct free_histogram h;
	struct sim_page *page;

	age_fresh_machine(1 * GiB, 1.0, 5, &h);
	sim_counters_reset();
	assert_null(sim_buddy_alloc(9, heap_high_order));
	assert_int_equal(count_of(SIM_CNT_ALLOC_FAIL), 1);
	assert_int_equal(count_of(SIM_CNT_RECLAIM_PAGE), 0);
	assert_non_null(page = sim_buddy_alloc(4, heap_high_order));
	sim_buddy_free(page, 4);
	sim_age_release();
	page = sim_buddy_alloc(9, heap_high_order);
	assert_non_null(page);
	sim_buddy_free(page, 9);
	assert_machine_is_whole_again();
}

/*
 * Direct reclaim gives aged page cache back until the request fits: an
 * order-9 request with SIM_GFP_DIRECT_RECLAIM succeeds on the most
 * fragmented machine after reclaiming pages (counted), far fewer than the
 * workload holds; with NORETRY it reclaims one round at most (1024 pages
 * for order 9, overshooting by less than one 64 KiB folio).
 */
static void test_direct_reclaim_frees_page_cache_until_the_request_fits(void **state)
{
	struct free_histogram h;
	struct sim_page *page;
	unsigned long held;

	age_fresh_machine(1 * GiB, 1.0, 5, &h);
	held = managed_pages() - h.free_pages;
	sim_counters_reset();
	page = sim_buddy_alloc(9, SIM_GFP_DIRECT_RECLAIM | SIM_GFP_MOVABLE);
	assert_non_null(page);
	assert_true(count_of(SIM_CNT_RECLAIM_PAGE) > 0);
	assert_true(count_of(SIM_CNT_RECLAIM_PAGE) < held / 4);
	sim_buddy_free(page, 9);
	sim_age_release();
	assert_machine_is_whole_again();
	sim_machine_destroy();

	for (unsigned long long seed = 1; seed <= 4; seed++) {
		age_fresh_machine(1 * GiB, 1.0, seed, &h);
		sim_counters_reset();
		page = sim_buddy_alloc(9, SIM_GFP_DIRECT_RECLAIM | SIM_GFP_NORETRY);
		assert_true(count_of(SIM_CNT_RECLAIM_PAGE) < 1024 + 16);
		if (page)
			sim_buddy_free(page, 9);
		sim_age_release();
		assert_machine_is_whole_again();
		sim_machine_destroy();
	}
}

/* Presets name levels; bad levels are refused and leave the machine fresh. */
static void test_age_presets_and_bad_levels(void **state)
{
	assert_true(sim_age_preset("fresh") == 0.0);
	assert_true(sim_age_preset("aged") == SIM_AGE_LEVEL_AGED);
	assert_true(sim_age_preset("fragmented") == 1.0);
	assert_true(sim_age_preset("ancient") < 0);
	assert_true(sim_age_preset(NULL) < 0);
	given_a_fresh_machine(&(struct sim_config){
		.ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1,
	});
	assert_int_equal(sim_age(-0.1, 1), -EINVAL);
	assert_int_equal(sim_age(1.5, 1), -EINVAL);
	assert_int_equal(sim_age(0.0, 1), 0);
	assert_machine_is_whole_again();
}

/* ------------------------------------------------------------------------
 * Direct compaction (sim/compact.c)
 *
 * The machine of these cases: every page allocated (the test holds it, so
 * compaction cannot move it) but
 *
 *   BASE                 BASE + PB                        end - t * PB      end
 *   | source pageblock   | allocated ...                  | t target pbs   |
 *   | m movable pages, p unmovable pages, the rest free   | free but their first page
 *
 * A request of pageblock order (9 with 4 KiB pages) finds no free block;
 * compaction may move the m movable pages (anonymous memory the ageing
 * workload holds) into the targets, and the source becomes a free block.
 */
#define PB_PAGES (1UL << SIM_PAGEBLOCK_ORDER)

struct compaction_case {
	const char *what;
	int source_unmovable;		/* the source pageblock's type */
	unsigned int movable, pinned;	/* pages at the source's start */
	unsigned int targets;		/* free pageblocks at the top */
	unsigned int gfp;		/* of the request */
	int succeeds;
	unsigned long migrated;		/* pages */
};

#define DIRECT (SIM_GFP_DIRECT_RECLAIM | SIM_GFP_COMPACT)

static const struct compaction_case compaction_cases[] = {
	{ "movable pages move out: async compaction of a movable request",
	  0, 8, 0, 4, DIRECT | SIM_GFP_NORETRY | SIM_GFP_THISNODE | SIM_GFP_MOVABLE, 1, 8 },
	{ "one unmovable page: async skips the chunk, nothing moves",
	  0, 8, 1, 4, DIRECT | SIM_GFP_NORETRY | SIM_GFP_THISNODE | SIM_GFP_MOVABLE, 0, 0 },
	{ "one unmovable page: sync (RETRY_MAYFAIL) moves the rest, still no block",
	  0, 8, 1, 4, DIRECT | SIM_GFP_RETRY_MAYFAIL | SIM_GFP_MOVABLE, 0, 8 },
	{ "unmovable request, async: a movable pageblock is no source",
	  0, 8, 0, 4, DIRECT | SIM_GFP_NORETRY | SIM_GFP_THISNODE, 0, 0 },
	{ "unmovable request, async: an unmovable pageblock is",
	  1, 8, 0, 4, DIRECT | SIM_GFP_NORETRY | SIM_GFP_THISNODE, 1, 8 },
	{ "unmovable request, sync (RETRY_MAYFAIL): any pageblock is",
	  0, 8, 0, 4, DIRECT | SIM_GFP_RETRY_MAYFAIL, 1, 8 },
	{ "no __GFP_IO (no SIM_GFP_COMPACT): reclaim only, nothing moves",
	  0, 8, 0, 4, SIM_GFP_DIRECT_RECLAIM | SIM_GFP_NORETRY | SIM_GFP_MOVABLE, 0, 0 },
	{ "the heap's high-order flags (no direct reclaim): nothing moves",
	  0, 8, 0, 4, SIM_GFP_NORETRY | SIM_GFP_MOVABLE, 0, 0 },
	{ "free memory below low watermark + 2 << order: compaction skipped",
	  0, 8, 0, 1, DIRECT | SIM_GFP_NORETRY | SIM_GFP_MOVABLE, 0, 0 },
};

/* Free [pfn, end) of an allocation as maximal aligned blocks, to the buddy lists. */
static void free_range(unsigned long pfn, unsigned long end)
{
	while (pfn < end) {
		unsigned int order = SIM_MAX_ORDER;

		while (order && ((pfn & ((1UL << order) - 1)) || pfn + (1UL << order) > end))
			order--;
		sim_buddy_free(sim_pfn_to_page(pfn), order);
		pfn += 1UL << order;
	}
	sim_buddy_drain_pcp();
}

static void build_compaction_layout(const struct compaction_case *c)
{
	unsigned long end = BASE + 16 * PAGES_PER_MAX_BLOCK, pb;
	struct sim_page *page;
	unsigned int i;

	given_a_fresh_machine(&(struct sim_config){ .ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1 });
	for (i = 0; i < 16; i++) {
		page = sim_buddy_alloc(SIM_MAX_ORDER, i || !c->source_unmovable ?
				       SIM_GFP_MOVABLE : 0);
		assert_non_null(page);
	}
	free_range(BASE + c->movable + c->pinned, BASE + PB_PAGES);
	for (i = 0; i < c->movable; i++)
		assert_int_equal(sim_age_hold(sim_pfn_to_page(BASE + i), 0, SIM_AGE_ANON), 0);
	for (pb = end - c->targets * PB_PAGES; pb < end; pb += PB_PAGES)
		free_range(pb + 1, pb + PB_PAGES);
	assert_int_equal(sim_buddy_nr_free_blocks(SIM_PAGEBLOCK_ORDER), 0);
}

/*
 * Compaction migrates the movable pages of a pageblock into free pages at
 * the top of the zone and the request gets the freed block, within the
 * kernel's rules: which pageblocks are sources in async and sync mode,
 * a page it cannot move spoils its chunk, too little free memory skips it,
 * and only __GFP_DIRECT_RECLAIM with __GFP_IO compacts at all.
 */
static void test_compaction_frees_a_pageblock_by_migration(void **state)
{
	for (size_t k = 0; k < sizeof(compaction_cases) / sizeof(compaction_cases[0]); k++) {
		const struct compaction_case *c = &compaction_cases[k];
		unsigned long free_before, held_before;
		struct sim_page *page;

		build_compaction_layout(c);
		free_before = sim_buddy_nr_free();
		held_before = sim_age_held_pages();
		sim_counters_reset();
		page = sim_buddy_alloc(SIM_PAGEBLOCK_ORDER, c->gfp);
		print_message("%s\n", c->what);
		assert_int_equal(page != NULL, c->succeeds);
		if (page)
			assert_int_equal(sim_page_to_pfn(page), BASE);
		assert_int_equal(count_of(SIM_CNT_COMPACT_MIGRATE), c->migrated);
		assert_int_equal(count_of(SIM_CNT_RECLAIM_PAGE), 0);
		if (c->targets < 2)
			assert_int_equal(count_of(SIM_CNT_COMPACT_SCAN), 0);
		/* Moved pages stay held; isolated targets went back. */
		assert_int_equal(sim_age_held_pages(), held_before);
		assert_int_equal(sim_buddy_nr_free(),
				 free_before - (page ? PB_PAGES : 0));
		sim_machine_destroy();
	}
}

/*
 * A piece too large for any free block left is split in halves and placed
 * piece by piece: an order-3 anonymous piece moves into eight single free
 * pages, each its own piece afterwards, and reclaim or release finds them.
 */
static void test_compaction_splits_a_piece_too_large_for_the_holes(void **state)
{
	unsigned long end = BASE + 16 * PAGES_PER_MAX_BLOCK, pb;
	struct sim_page *page;
	unsigned long held;

	given_a_fresh_machine(&(struct sim_config){ .ram_bytes = SMALL_RAM, .nr_cpus = 1, .seed = 1 });
	for (int i = 0; i < 16; i++)
		assert_non_null(sim_buddy_alloc(SIM_MAX_ORDER, SIM_GFP_MOVABLE));
	free_range(BASE + 8, BASE + PB_PAGES);
	assert_int_equal(sim_age_hold(sim_pfn_to_page(BASE), 3, SIM_AGE_ANON), 0);
	/* Targets: every other page free in the top pageblocks (order-0 holes only). */
	for (pb = end - 8 * PB_PAGES; pb < end; pb += PB_PAGES)
		for (unsigned long pfn = pb + 1; pfn < pb + PB_PAGES; pfn += 2)
			free_range(pfn, pfn + 1);
	held = sim_age_held_pages();
	sim_counters_reset();
	page = sim_buddy_alloc(SIM_PAGEBLOCK_ORDER,
			       DIRECT | SIM_GFP_NORETRY | SIM_GFP_THISNODE | SIM_GFP_MOVABLE);
	assert_non_null(page);
	assert_int_equal(count_of(SIM_CNT_COMPACT_MIGRATE), 8);
	assert_int_equal(sim_age_held_pages(), held);
	sim_buddy_free(page, SIM_PAGEBLOCK_ORDER);
	sim_age_release();
	assert_int_equal(sim_age_held_pages(), 0);
}

/*
 * What a machine's struct pages hold, as one number: every field of
 * every RAM pfn's struct page; a link into the memmap (free list, compound
 * head) as the pfn it points at, since another machine's memmap may sit
 * elsewhere; a link out of it (a list head, a per-cpu list allocated per
 * machine) as there or not.
 */
static unsigned long long memmap_digest(void)
{
	const struct sim_ram_range *r;
	unsigned int nr = sim_ram_ranges(&r);
	const struct sim_page *lo = sim_pfn_to_page(r[0].start_pfn);
	const struct sim_page *hi = sim_pfn_to_page(r[nr - 1].end_pfn - 1);
	unsigned long long h = 14695981039346656037ULL;

#define MIX(v) (h = (h ^ (unsigned long long)(v)) * 1099511628211ULL)
#define LINK(p) ((const struct sim_page *)(p) >= lo && (const struct sim_page *)(p) <= hi ? \
		 sim_page_to_pfn((const struct sim_page *)(p)) : ((p) != 0) - 2UL)
	for (unsigned int i = 0; i < nr; i++) {
		for (unsigned long pfn = r[i].start_pfn; pfn < r[i].end_pfn; pfn++) {
			const struct sim_page *pg = sim_pfn_to_page(pfn);
			const char *next = (const char *)pg->lru.next;
			const char *prev = (const char *)pg->lru.prev;
			size_t at = offsetof(struct sim_page, lru);

			MIX(pfn);
			MIX(pg->flags);
			MIX(pg->private);
			MIX(LINK(pg->compound_head & ~1UL));
			MIX(pg->compound_head & 1);
			MIX(LINK(next ? next - at : NULL));
			MIX(LINK(prev ? prev - at : NULL));
			MIX(pg->compound_order);
			MIX(pg->zone);
			MIX(pg->migratetype);
			MIX(pg->pcp_order);
			MIX(pg->refcount);
			MIX(pg->pincount);
			MIX(pg->mapcount);
			MIX(pg->owner);
		}
	}
#undef LINK
#undef MIX
	return h;
}

/* A machine's state after boot and after ageing, from its struct pages and counters. */
struct machine_state {
	unsigned long long booted, aged;
	struct free_histogram free;
	struct sim_counters counters;
};

/* Boot cfg, age it at (level, seed): its state; the memmap it got. */
static struct sim_page *boot_and_age(const struct sim_config *cfg, double level,
				     unsigned long long seed, struct machine_state *st)
{
	assert_int_equal(sim_machine_init(cfg), 0);
	st->booted = memmap_digest();
	assert_int_equal(sim_age(level, seed), 0);
	st->aged = memmap_digest();
	take_histogram(&st->free);
	sim_counters_snapshot(&st->counters);
	return sim_memmap;
}

/*
 * A machine booted on the host memory an earlier machine left (kept,
 * zeroed, sim/physmem.c) is the machine a boot on fresh memory gives:
 * every struct page, the free lists and the counters the same after boot
 * and after ageing.  The earlier machine is larger and more fragmented,
 * so that it wrote struct pages everywhere the later one reads; it is
 * checked that the later one did reuse its memmap.  Both kinds of kept
 * memmap: small (no huge pages) and large (above 16 MiB of memmap).
 */
static void test_a_machine_on_kept_memory_is_a_fresh_machine(void **state)
{
	/* RAM whose memmap is this many bytes. */
#define RAM_FOR_MEMMAP(bytes) ((bytes) / sizeof(struct sim_page) * SIM_PAGE_SIZE)
	static const struct {
		const char *kind;
		unsigned long long ram, earlier_ram;
	} cases[] = {
		{ "small", RAM_FOR_MEMMAP(4 * MiB), RAM_FOR_MEMMAP(8 * MiB) },
		{ "large", RAM_FOR_MEMMAP(32 * MiB), RAM_FOR_MEMMAP(48 * MiB) },
	};
#undef RAM_FOR_MEMMAP

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sim_config cfg = { .ram_bytes = cases[i].ram, .nr_cpus = 2, .seed = 3 };
		struct sim_config earlier = { .ram_bytes = cases[i].earlier_ram, .nr_cpus = 4,
					      .seed = 9 };
		struct machine_state fresh, again, other;
		struct sim_page *earlier_memmap;

		print_message("%s kept memmap: %llu MiB of RAM after %llu MiB\n",
			      cases[i].kind, cases[i].ram >> 20, cases[i].earlier_ram >> 20);
		sim_machine_release_host_memory();
		boot_and_age(&cfg, 0.5, 7, &fresh);
		sim_machine_destroy();
		earlier_memmap = boot_and_age(&earlier, 1.0, 11, &other);
		sim_machine_destroy();
		assert_ptr_equal(boot_and_age(&cfg, 0.5, 7, &again), earlier_memmap);
		assert_int_equal(again.booted, fresh.booted);
		assert_int_equal(again.aged, fresh.aged);
		assert_memory_equal(&again.free, &fresh.free, sizeof(fresh.free));
		assert_memory_equal(&again.counters, &fresh.counters, sizeof(fresh.counters));
		assert_int_not_equal(other.aged, fresh.aged);
		sim_machine_destroy();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_teardown(fn, destroy_the_machine)
		T(test_first_allocation_splits_the_first_block),
		T(test_successive_allocations_are_ascending_and_contiguous),
		T(test_free_merges_buddies_back_to_max_order),
		T(test_low_orders_use_the_pcp_list_and_skip_the_zone_lock),
		T(test_pmd_order_blocks_are_recycled_per_cpu),
		T(test_pcp_list_drains_when_over_high),
		T(test_free_count_is_conserved_over_random_sequences),
		T(test_unmovable_request_claims_a_movable_block),
		T(test_fallback_claims_a_pageblock_at_least_half_free),
		T(test_zones_and_the_hole_below_4g),
		T(test_low_memory_is_never_handed_out),
		T(test_zeroed_allocation_clears_a_dirty_recycled_page),
		T(test_zeroing_covers_data_written_through_the_head),
		T(test_compound_pages_have_head_and_tails),
		T(test_bad_frees_warn_and_change_nothing),
		T(test_a_1tib_machine_is_sparse),
		T(test_vmap_aliases_page_data),
		T(test_ageing_is_deterministic_per_seed),
		T(test_most_fragmented_level_has_no_free_pmd_block),
		T(test_higher_levels_leave_smaller_free_blocks),
		T(test_noretry_pmd_order_fails_when_fragmented_until_release),
		T(test_direct_reclaim_frees_page_cache_until_the_request_fits),
		T(test_age_presets_and_bad_levels),
		T(test_compaction_frees_a_pageblock_by_migration),
		T(test_compaction_splits_a_piece_too_large_for_the_holes),
		T(test_a_machine_on_kept_memory_is_a_fresh_machine),
#undef T
	};

	return cmocka_run_group_tests_name("buddy", tests, NULL, NULL);
}
