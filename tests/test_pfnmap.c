// SPDX-License-Identifier: GPL-2.0-only
/*
 * follow_pfnmap_start()/follow_pfnmap_end() (core/mm/memory.c) over the
 * simulated page tables: the exact pfn and the leaf's address mask for PUD,
 * PMD and PTE leaves at every alignment of BAR and virtual address, the
 * -EINVAL cases, the pre-6.15 switch, and the stride rule vfio type1 builds
 * on it (DESIGN.md): epfn = (pfn | ~addr_mask >> PAGE_SHIFT) + 1, one call
 * covering min(npages, epfn - pfn) pages, never past the end of the leaf.
 *
 * Every case is checked page by page against the simulator's reference
 * walk (sim_mm_walk through kapi_mm_cpu_pfn), which is slow and plain.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/kapi_mm.h>
#include <dmasim/sim.h>

#include "shared.h"

#define PMDS_PER_PUD	(PUD / PMD)
/* A 32-bit BAR: 256 MiB of the 1 GiB PCI hole, at least one PMD leaf. */
#define BAR_BELOW_4G	(256 * MiB > PMD ? 256 * MiB : PMD)
/* The largest RAM block the buddy hands out that a PMD leaf may map. */
#define RAM_BLOCK_ORDER	(SIM_PMD_ORDER < SIM_MAX_ORDER ? SIM_PMD_ORDER : SIM_MAX_ORDER)
/*
 * Pages of a leaf checked one by one: all of them up to 2^18 per PUD (every
 * page with 4 KiB pages); with bigger pages, the first and last
 * LEAF_EDGE_PAGES of each leaf and every LEAF_STEP-th page between, so a
 * 4 TiB PUD costs what a 1 GiB one does.
 */
#define LEAF_STEP	(PAGES_PER_PUD > (1UL << 18) ? PAGES_PER_PUD >> 18 : 1)
#define LEAF_EDGE_PAGES	512
/* At most as many PTE leaves as 3 PUDs have with 4 KiB pages. */
#define MAX_PTE_LEAVES	(3UL << 18)

struct bar_mapping {
	unsigned long va;	/* start of the VMA */
	unsigned long len;
	unsigned long pfn;	/* BAR pfn mapped at va */
};

/* A booted 4 GiB machine and a process. */
static int setup(void **state)
{
	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 4 * GiB });
	given_a_process();
	return 0;
}

/*
 * Place a BAR of len bytes at bar_misalign past a 1 GiB boundary and map
 * all of it at va_misalign past a 1 GiB boundary, leaves up to max_leaf.
 */
static struct bar_mapping map_whole_bar(unsigned long len,
					unsigned long bar_misalign,
					unsigned long va_misalign, int max_leaf,
					int writable, int below4g)
{
	struct bar_mapping b = { .len = len };

	b.va = map_bar(&(struct kapi_mm_map){
		.len = len, .writable = writable, .populate = 1,
		.max_leaf = max_leaf, .align = PUD, .misalign = va_misalign,
		.pgoff = 0x123456,	/* a driver's region cookie, not the pfn */
	}, &(struct bar_placement){
		.align = below4g ? PMD : PUD, .misalign = bar_misalign,
		.below4g = below4g,
	}, &b.pfn);
	assert_false(sim_pfn_valid(b.pfn));
	return b;
}

/* The largest level whose leaf around addr fits the VMA and the pfns. */
static int reference_leaf_level(const struct bar_mapping *b, unsigned long addr,
				int max_leaf)
{
	for (int level = max_leaf; level > KAPI_MM_LEAF_PTE; level--) {
		unsigned long size = ~mask_of_level(level) + 1;
		unsigned long base = addr & ~(size - 1);
		unsigned long pfn = b->pfn + (base - b->va) / PAGE;

		if (base >= b->va && base + size <= b->va + b->len &&
		    !((pfn * PAGE) & (size - 1)))
			return level;
	}
	return KAPI_MM_LEAF_PTE;
}

/* The next page after addr whose check LEAF_STEP does not skip. */
static unsigned long next_checked_page(unsigned long addr, int level)
{
	unsigned long size = ~mask_of_level(level) + 1;
	unsigned long off = (addr & (size - 1)) / PAGE;

	if (off + 1 < LEAF_EDGE_PAGES || off + 1 >= size / PAGE - LEAF_EDGE_PAGES)
		return addr + PAGE;
	return addr + (LEAF_STEP - off % LEAF_STEP) * PAGE;
}

/*
 * follow_pfnmap agrees with the reference walk on every page of b (on the
 * sample LEAF_STEP keeps, with pages bigger than 4 KiB).
 */
static void assert_every_page_reports_its_leaf(const struct bar_mapping *b,
					       int max_leaf, int writable)
{
	struct kapi_pfnmap r;
	unsigned long cpu_pfn;
	int level = KAPI_MM_LEAF_PTE;

	for (unsigned long addr = b->va; addr < b->va + b->len;
	     addr = next_checked_page(addr, level)) {
		assert_int_equal(kapi_mm_follow_pfnmap(addr, &r), 0);
		assert_int_equal(kapi_mm_cpu_pfn(addr, &cpu_pfn, &level), 0);
		assert_int_equal(level, reference_leaf_level(b, addr, max_leaf));
		assert_int_equal(r.pfn, b->pfn + (addr - b->va) / PAGE);
		assert_int_equal(r.pfn, cpu_pfn);
		assert_int_equal(r.addr_mask,
				 expected_addr_mask(mask_of_level(level)));
		assert_int_equal(r.writable, writable);
		assert_true(r.special);
		/* pgprot is the leaf's protection: present, user, RW as mapped. */
		assert_true(r.pgprot & SIM_PTE_PRESENT);
		assert_true(r.pgprot & SIM_PTE_USER);
		assert_int_equal(!!(r.pgprot & SIM_PTE_WRITE), writable);
		assert_false(r.pgprot & SIM_PTE_PSE);
		assert_false(r.pgprot & SIM_PTE_ADDR_MASK);
	}
}

/* Count the leaves of b by stepping leaf to leaf with the reference walk. */
static unsigned long count_leaves(const struct bar_mapping *b)
{
	unsigned long n = 0, addr = b->va;

	while (addr < b->va + b->len) {
		int level;

		assert_int_equal(kapi_mm_cpu_pfn(addr, NULL, &level), 0);
		addr = (addr & mask_of_level(level)) + ~mask_of_level(level) + 1;
		n++;
	}
	return n;
}

struct alignment_case {
	const char *name;
	unsigned long len;
	unsigned long bar_misalign, va_misalign;	/* past 1 GiB */
	int max_leaf;
	int writable;
	int below4g;
	int leaf_in_middle;	/* the level the middle page must use */
};

/*
 * Address maps (G = 1 GiB, M = MiB, K = KiB; "off" = past a 1 GiB line):
 *
 *  pud_aligned     BAR off 0, VA off 0, 2G:       | PUD | PUD |
 *  pud_ragged      BAR off 2M+4K, VA off 2M+4K, 3G:
 *                  | 511 PTE | 510 PMD | PUD | PUD | PMD | PTE |
 *  pud_va_shifted  BAR off 0, VA off 2M, 2G: not co-aligned at 1G,
 *                  co-aligned at 2M -> PMD leaves only
 *  pud_va_page_off BAR off 0, VA off 4K, 64M: only PTE leaves
 *  pmd_ragged      BAR off 12K, VA off 12K, 16M, max PMD:
 *                  | 509 PTE | 7 PMD | 3 PTE |
 *  pmd_below_4g    32-bit BAR in the PCI hole, 256M, max PMD
 *  pte_only        max PTE, 8M
 *  pud_read_only   as pud_ragged (1G+4M), mapped read-only
 */
static const struct alignment_case alignment_cases[] = {
	{ "pud_aligned", 2 * PUD, 0, 0, KAPI_MM_LEAF_PUD, 1, 0,
	  KAPI_MM_LEAF_PUD },
	{ "pud_ragged", 3 * PUD, 2 * PMD + PAGE, 2 * PMD + PAGE,
	  KAPI_MM_LEAF_PUD, 1, 0, KAPI_MM_LEAF_PUD },
	{ "pud_va_shifted", 2 * PUD, 0, PMD, KAPI_MM_LEAF_PUD, 1, 0,
	  KAPI_MM_LEAF_PMD },
	{ "pud_va_page_off", 32 * PMD, 0, PAGE, KAPI_MM_LEAF_PUD, 1, 0,
	  KAPI_MM_LEAF_PTE },
	{ "pmd_ragged", 8 * PMD, 3 * PAGE, 3 * PAGE, KAPI_MM_LEAF_PMD, 1, 0,
	  KAPI_MM_LEAF_PMD },
	{ "pmd_below_4g", BAR_BELOW_4G, 0, 0, KAPI_MM_LEAF_PMD, 1, 1,
	  KAPI_MM_LEAF_PMD },
	{ "pte_only", 4 * PMD, 0, 0, KAPI_MM_LEAF_PTE, 1, 0,
	  KAPI_MM_LEAF_PTE },
	{ "pud_read_only", PUD + 2 * PMD, PMD + PAGE, PMD + PAGE,
	  KAPI_MM_LEAF_PUD, 0, 0, KAPI_MM_LEAF_PMD },
};

/* Each leaf level, at each alignment, reports the exact pfn and its mask. */
static void test_every_alignment_reports_exact_pfn_and_leaf_mask(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(alignment_cases); i++) {
		const struct alignment_case *c = &alignment_cases[i];
		struct bar_mapping b;
		int level;

		print_message("case %s\n", c->name);
		b = map_whole_bar(c->len, c->bar_misalign, c->va_misalign,
				  c->max_leaf, c->writable, c->below4g);
		assert_int_equal(kapi_mm_cpu_pfn(b.va + b.len / 2, NULL, &level), 0);
		assert_int_equal(level, c->leaf_in_middle);
		assert_every_page_reports_its_leaf(&b, c->max_leaf, c->writable);
		assert_int_equal(kapi_mm_munmap(b.va), 0);
	}
}

/* The ragged PUD mapping has exactly the leaves its diagram shows. */
static void test_ragged_mapping_uses_smaller_leaves_at_its_ends(void **state)
{
	struct bar_mapping b = map_whole_bar(3 * PUD, 2 * PMD + PAGE,
					     2 * PMD + PAGE, KAPI_MM_LEAF_PUD,
					     1, 0);

	/* PTEs to the first PMD line, PMDs to the PUD line, 2 PUDs, ... */
	assert_int_equal(count_leaves(&b), (PAGES_PER_PMD - 1) +
			 (PMDS_PER_PUD - 3) + 2 + 2 + 1);
}

/* Outside the VMA, or in a VMA that is not a pfn map, the lookup fails. */
static void test_lookup_outside_vma_or_in_anon_vma_is_einval(void **state)
{
	struct bar_mapping b = map_whole_bar(4 * PMD, 0, 0, KAPI_MM_LEAF_PMD,
					     1, 0);
	struct kapi_mm_map anon = { .len = 4 * PAGE, .kind = KAPI_MM_ANON,
				    .writable = 1 };
	unsigned long anon_va;
	struct kapi_pfnmap r;

	assert_int_equal(kapi_mm_follow_pfnmap_vma(b.va, b.va + b.len, &r),
			 -EINVAL);
	assert_int_equal(kapi_mm_follow_pfnmap_vma(b.va, b.va - PAGE, &r),
			 -EINVAL);
	assert_int_equal(kapi_mm_mmap(&anon, &anon_va), 0);
	assert_int_equal(kapi_mm_touch(anon_va, anon.len, 1), 0);
	assert_int_equal(kapi_mm_follow_pfnmap(anon_va, &r), -EINVAL);
}

/*
 * A pfn map may point at RAM (a driver remapping kernel pages): the lookup
 * reports those pfns, which pfn_valid() accepts, and unmapping the VMA
 * leaves the pages to their owner.
 */
static void test_pfnmap_over_ram_reports_valid_pfns(void **state)
{
	unsigned long allocated = sim_buddy_nr_allocated();
	struct sim_page *ram = sim_buddy_alloc(RAM_BLOCK_ORDER, SIM_GFP_COMP);
	struct kapi_mm_map m = { .len = PAGE << RAM_BLOCK_ORDER, .kind = KAPI_MM_PFNMAP,
				 .writable = 1, .populate = 1,
				 .max_leaf = KAPI_MM_LEAF_PMD };
	struct kapi_pfnmap r;
	unsigned long va;

	assert_non_null(ram);
	m.pfn = sim_page_to_pfn(ram);
	assert_int_equal(kapi_mm_mmap(&m, &va), 0);
	assert_int_equal(kapi_mm_follow_pfnmap(va + 3 * PAGE, &r), 0);
	assert_int_equal(r.pfn, m.pfn + 3);
	assert_true(sim_pfn_valid(r.pfn));
	assert_true(r.special);
	assert_int_equal(kapi_mm_munmap(va), 0);
	assert_int_equal(sim_buddy_nr_allocated(),
			 allocated + (1UL << RAM_BLOCK_ORDER));
	sim_buddy_free(ram, RAM_BLOCK_ORDER);
	assert_int_equal(sim_buddy_nr_allocated(), allocated);
}

/*
 * The address just past a VMA is outside it even when the next VMA maps a
 * leaf there: the lookup checks the VMA it was given, not the page table.
 */
static void test_lookup_at_vma_end_is_einval_even_if_next_vma_maps_it(void **state)
{
	struct bar_mapping a = map_whole_bar(PMD, 0, 0, KAPI_MM_LEAF_PTE, 1, 0);
	unsigned long next_va;
	struct kapi_pfnmap r;

	next_va = map_bar(&(struct kapi_mm_map){
		.addr = a.va + a.len, .len = PMD, .writable = 1,
		.populate = 1, .max_leaf = KAPI_MM_LEAF_PTE, .pgoff = 7,
	}, NULL, NULL);
	assert_int_equal(next_va, a.va + a.len);
	assert_int_equal(kapi_mm_follow_pfnmap(next_va, &r), 0);
	assert_int_equal(kapi_mm_follow_pfnmap_vma(a.va, next_va, &r), -EINVAL);
	assert_int_equal(kapi_mm_follow_pfnmap_vma(a.va, next_va - PAGE, &r), 0);
}

/* A pfn map not yet faulted in fails until fixup_user_fault maps the leaf. */
static void test_unpopulated_pfnmap_is_einval_until_faulted(void **state)
{
	unsigned long pfn = sim_bar_create(2 * PUD, PUD, 0, 0);
	struct kapi_mm_map m = { .len = 2 * PUD, .kind = KAPI_MM_PFNMAP,
				 .writable = 1, .pfn = pfn,
				 .max_leaf = KAPI_MM_LEAF_PUD };
	unsigned long va, addr;
	struct kapi_pfnmap r;
	int unlocked;

	assert_int_equal(kapi_mm_mmap(&m, &va), 0);
	addr = va + PUD + 5 * PAGE;
	assert_int_equal(kapi_mm_follow_pfnmap(addr, &r), -EINVAL);
	assert_int_equal(kapi_mm_fixup_user_fault(addr, 1, &unlocked), 0);
	assert_false(unlocked);
	assert_int_equal(kapi_mm_follow_pfnmap(addr, &r), 0);
	assert_int_equal(r.pfn, pfn + PAGES_PER_PUD + 5);
	assert_int_equal(r.addr_mask, expected_addr_mask(~(PUD - 1)));
	/* the first GiB is still unmapped */
	assert_int_equal(kapi_mm_follow_pfnmap(va, &r), -EINVAL);
}

/* With the pre-6.15 switch every leaf reports PAGE_MASK, pfns unchanged. */
static void test_legacy_switch_reports_page_mask_for_every_leaf(void **state)
{
	struct bar_mapping b = map_whole_bar(PUD + 2 * PMD, PMD + PAGE,
					     PMD + PAGE, KAPI_MM_LEAF_PUD, 1, 0);

	sim_mm_set_legacy_addr_mask(1);
	for (unsigned long addr = b.va; addr < b.va + b.len; addr += 97 * PAGE) {
		struct kapi_pfnmap r;

		assert_int_equal(kapi_mm_follow_pfnmap(addr, &r), 0);
		assert_int_equal(r.pfn, b.pfn + (addr - b.va) / PAGE);
		assert_int_equal(r.addr_mask, expected_addr_mask(~(PAGE - 1)));
	}
	sim_mm_set_legacy_addr_mask(0);
}

/* The pages one lookup may cover from addr: vfio type1's arithmetic. */
static unsigned long stride_from(unsigned long addr, unsigned long npages)
{
	struct kapi_pfnmap r;
	unsigned long epfn;

	assert_int_equal(kapi_mm_follow_pfnmap(addr, &r), 0);
	epfn = (r.pfn | (~r.addr_mask / PAGE)) + 1;
	return npages < epfn - r.pfn ? npages : epfn - r.pfn;
}

static const unsigned long stride_npages[] = { 1, 2, 7, 511, 512, 513, 100000, 1UL << 30 };

/* From every page of a PMD leaf, a lookup covers the rest of the leaf only. */
static void test_stride_covers_rest_of_pmd_leaf_from_every_offset(void **state)
{
	struct bar_mapping b = map_whole_bar(4 * PMD, 0, 0, KAPI_MM_LEAF_PMD,
					     1, 0);
	unsigned long leaf = b.va + PMD;

	if (!DMASIM_IMPL_PFNMAP_ADDR_MASK)
		skip();	/* the lookup reports no leaf mask to stride by */

	for (unsigned long off = 0; off < PAGES_PER_PMD; off++) {
		for (size_t i = 0; i < ARRAY_SIZE(stride_npages); i++) {
			unsigned long npages = stride_npages[i];
			unsigned long left = PAGES_PER_PMD - off;

			assert_int_equal(stride_from(leaf + off * PAGE, npages),
					 npages < left ? npages : left);
		}
	}
}

/* At the edges of a PUD leaf and inside it, the same rule holds. */
static void test_stride_covers_rest_of_pud_leaf_at_edges_and_inside(void **state)
{
	struct bar_mapping b = map_whole_bar(2 * PUD, 0, 0, KAPI_MM_LEAF_PUD,
					     1, 0);
	unsigned long offsets[64 + 1000];
	unsigned long long seed = 42;
	size_t n = 0;

	if (!DMASIM_IMPL_PFNMAP_ADDR_MASK)
		skip();	/* the lookup reports no leaf mask to stride by */

	for (unsigned long e = 0; e < 32; e++) {
		offsets[n++] = e;
		offsets[n++] = PAGES_PER_PUD - 1 - e;
	}
	offsets[n++] = PAGES_PER_PMD;
	while (n < ARRAY_SIZE(offsets))
		offsets[n++] = sim_rand_next(&seed) % PAGES_PER_PUD;

	for (size_t j = 0; j < n; j++) {
		for (size_t i = 0; i < ARRAY_SIZE(stride_npages); i++) {
			unsigned long npages = stride_npages[i];
			unsigned long left = PAGES_PER_PUD - offsets[j];

			assert_int_equal(stride_from(b.va + PUD + offsets[j] * PAGE,
						     npages),
					 npages < left ? npages : left);
		}
	}
}

/*
 * Striding a whole ragged mapping makes one lookup per leaf and visits
 * every pfn once; the page-by-page loop makes one lookup per page.
 */
static void test_stride_walk_makes_one_lookup_per_leaf(void **state)
{
	struct bar_mapping b = map_whole_bar(PUD + 4 * PMD, 2 * PMD + 3 * PAGE,
					     2 * PMD + 3 * PAGE,
					     KAPI_MM_LEAF_PUD, 1, 0);
	unsigned long npages = b.len / PAGE, done;
	unsigned long long sum, want = 0;
	struct sim_counters before, after, d;

	for (unsigned long i = 0; i < npages; i++)
		want += b.pfn + i;

	if (!DMASIM_IMPL_PFNMAP_ADDR_MASK)	/* no mask to stride by */
		goto page_by_page;
	sim_counters_snapshot(&before);
	assert_int_equal(kapi_mm_pfnmap_walk(b.va, npages, 1, &done, &sum),
			 count_leaves(&b));
	sim_counters_snapshot(&after);
	sim_counters_delta(&before, &after, &d);
	assert_int_equal(d.c[SIM_CNT_PFN_LOOKUP], count_leaves(&b));
	assert_int_equal(done, npages);
	assert_int_equal(sum, want);

page_by_page:
	assert_int_equal(kapi_mm_pfnmap_walk(b.va, npages, 0, &done, &sum),
			 npages);
	assert_int_equal(sum, want);
}

/* A walk that runs past the VMA stops with -EFAULT at the hole. */
static void test_stride_walk_stops_at_end_of_vma(void **state)
{
	struct bar_mapping b = map_whole_bar(4 * PMD, 0, 0, KAPI_MM_LEAF_PMD,
					     1, 0);
	unsigned long done;

	/* Striding by the leaf mask where the lookup reports one. */
	assert_int_equal(kapi_mm_pfnmap_walk(b.va, b.len / PAGE + 1,
					     DMASIM_IMPL_PFNMAP_ADDR_MASK, &done,
					     NULL), -EFAULT);
	assert_int_equal(done, b.len / PAGE);
}

static unsigned long random_below(unsigned long long *seed, unsigned long n)
{
	return sim_rand_next(seed) % n;
}

/* A page offset below 1 GiB: 0, PMD-aligned, page-aligned or a mix. */
static unsigned long random_misalign(unsigned long long *seed)
{
	switch (random_below(seed, 4)) {
	case 0:
		return 0;
	case 1:
		return random_below(seed, PAGES_PER_PUD / PAGES_PER_PMD) * PMD;
	case 2:
		return random_below(seed, PAGES_PER_PMD) * PAGE;
	default:
		return random_below(seed, PAGES_PER_PUD) * PAGE;
	}
}

/*
 * Random BAR placements, VA placements (co-aligned with the BAR or not),
 * sizes and leaf limits: a stride walk over the whole mapping makes one
 * lookup per leaf and sums every pfn once, and sampled pages report their
 * exact pfn and the mask of the leaf the reference walk finds.
 */
static void test_random_mappings_agree_with_reference_walk(void **state)
{
	unsigned long long seed = 0x5eed;

	for (int round = 0; round < 60; round++) {
		int max_leaf = KAPI_MM_LEAF_PTE + random_below(&seed, 3);
		unsigned long max_pages = max_leaf == KAPI_MM_LEAF_PTE ?
					  16 * PAGES_PER_PMD : 3 * PAGES_PER_PUD;
		unsigned long npages = 1 + random_below(&seed, max_pages);
		unsigned long bar_off = random_misalign(&seed);
		unsigned long va_off = random_below(&seed, 2) ? bar_off :
				       random_misalign(&seed);
		unsigned long long sum, want;
		struct bar_mapping b;
		unsigned long done;

		if ((bar_off ^ va_off) & (PMD - 1))	/* PTE leaves only */
			npages = 1 + (npages - 1) % MAX_PTE_LEAVES;
		b = map_whole_bar(npages * PAGE, bar_off, va_off, max_leaf,
				  1, 0);
		want = (unsigned long long)npages * b.pfn +
		       (unsigned long long)npages * (npages - 1) / 2;
		/* By leaf where the lookup reports the mask, else by page. */
		assert_int_equal(kapi_mm_pfnmap_walk(b.va, npages,
						     DMASIM_IMPL_PFNMAP_ADDR_MASK,
						     &done, &sum),
				 DMASIM_IMPL_PFNMAP_ADDR_MASK ?
				 count_leaves(&b) : npages);
		assert_int_equal(done, npages);
		assert_int_equal(sum, want);
		for (int i = 0; i < 64; i++) {
			unsigned long addr = b.va + random_below(&seed, npages) * PAGE;
			struct kapi_pfnmap r;
			int level;

			assert_int_equal(kapi_mm_follow_pfnmap(addr, &r), 0);
			assert_int_equal(kapi_mm_cpu_pfn(addr, NULL, &level), 0);
			assert_int_equal(level, reference_leaf_level(&b, addr,
								     max_leaf));
			assert_int_equal(r.pfn, b.pfn + (addr - b.va) / PAGE);
			assert_int_equal(r.addr_mask,
					 expected_addr_mask(mask_of_level(level)));
		}
		assert_int_equal(kapi_mm_munmap(b.va), 0);
		assert_int_equal(kapi_mm_nr_tables(), 1);
		/* the next BAR reuses the space: 3 PUDs are 12 TiB at 64 KiB */
		sim_bars_reset();
	}
}

/* Tearing the process down leaves no page table and no allocation behind. */
static void test_process_exit_frees_tables_and_objects(void **state)
{
	unsigned long long objs = sim_kmalloc_outstanding();
	struct kapi_proc *p = kapi_proc_current();

	map_whole_bar(PUD + 2 * PMD, PMD + PAGE, PMD + PAGE, KAPI_MM_LEAF_PUD,
		      1, 0);
	assert_true(kapi_mm_nr_tables() > 3);
	kapi_proc_destroy(p);
	/* the task, its signal_struct and the mm (made before the snapshot) */
	assert_int_equal(sim_kmalloc_outstanding(), objs - 3);
	assert_null(kapi_proc_current());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, check_and_destroy_the_machine)
		T(test_every_alignment_reports_exact_pfn_and_leaf_mask),
		T(test_ragged_mapping_uses_smaller_leaves_at_its_ends),
		T(test_lookup_outside_vma_or_in_anon_vma_is_einval),
		T(test_pfnmap_over_ram_reports_valid_pfns),
		T(test_lookup_at_vma_end_is_einval_even_if_next_vma_maps_it),
		T(test_unpopulated_pfnmap_is_einval_until_faulted),
		T(test_legacy_switch_reports_page_mask_for_every_leaf),
		T(test_stride_covers_rest_of_pmd_leaf_from_every_offset),
		T(test_stride_covers_rest_of_pud_leaf_at_edges_and_inside),
		T(test_stride_walk_makes_one_lookup_per_leaf),
		T(test_stride_walk_stops_at_end_of_vma),
		T(test_random_mappings_agree_with_reference_walk),
		T(test_process_exit_frees_tables_and_objects),
#undef T
	};

	/* The page walk under test, over the leaves each test builds. */
	kapi_mm_set_exact_pfnmap_leaves(1);
	return cmocka_run_group_tests_name("pfnmap", tests, NULL, NULL);
}
