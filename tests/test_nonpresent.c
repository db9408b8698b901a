// SPDX-License-Identifier: GPL-2.0-only
/*
 * Page-table entries that are not plain present leaves, at every level:
 * swap- and migration-like entries, PROT_NONE, a PMD/PUD leaf mid-split,
 * devmap leaves (kapi_mm_set_entry()).  What follow_pfnmap_start() makes of
 * each (non-present at PUD/PMD/PTE: -EINVAL; x86's pte_present() and
 * pmd_present() are true for PROT_NONE, pud_present() is not), what VFIO
 * type1's MAP_DMA of a BAR holding one does (the fixup fault brings the
 * entry back, or the kernel's errno with nothing left behind), what GUP
 * does on anonymous memory (the fault brings the page back; PROT_NONE is
 * followed without a fault), and the two choice points where an entry
 * changes under the kernel (pt_leaf_changed, gup_nonpresent).
 *
 * The BARs get the leaves each case names whatever the tree
 * (kapi_mm_set_exact_pfnmap_leaves()): the lookups are the simulated
 * walk's own.  A tree whose type1 walks to PTEs only (6.1's follow_pte(),
 * DMASIM_IMPL_PFNMAP_HUGE_LEAVES false) fails MAP_DMA of a PMD or PUD
 * leaf -EINVAL, whatever its kind, as 6.1 does (a huge entry is
 * pmd_bad()/pud_bad() to it).
 *
 *   BAR VMA (2 leaves of the level; 2 PMDs of PTEs for the PTE level)
 *   va        va+3 pages                 va+leaf
 *   |=========^== leaf of `kind` ========|====== present leaf =====|
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/impl.h>
#include <dmasim/kapi.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "shared.h"

#define RW	KAPI_VFIO_DMA_MAP_RW
#define RO	KAPI_VFIO_DMA_MAP_FLAG_READ
#define IOVA	(4 * GiB)

static unsigned long size_of_level(int level)
{
	return ~mask_of_level(level) + 1;
}

/* A BAR mapped with leaves of level, two leaves (or two PMDs of PTEs). */
static unsigned long given_a_bar_of_leaves(int level, unsigned long *len,
					   unsigned long *bar_pfn)
{
	*len = level == KAPI_MM_LEAF_PTE ? 2 * PMD : 2 * size_of_level(level);
	return map_bar(&(struct kapi_mm_map){
		.len = *len, .writable = 1, .populate = 1,
		.max_leaf = level, .align = PUD,
	}, NULL, bar_pfn);
}

struct lookup_case {
	int level;
	enum sim_pt_entry_kind kind;
	int ret;		/* follow_pfnmap_start() */
	int writable;		/* on success */
	long map_rw;		/* MAP_DMA read-write of the whole VMA */
};

static const struct lookup_case lookup_cases[] = {
	{ KAPI_MM_LEAF_PTE, SIM_ENTRY_SWAP, -EINVAL, 0, 0 },
	{ KAPI_MM_LEAF_PTE, SIM_ENTRY_MIGRATION, -EINVAL, 0, 0 },
	{ KAPI_MM_LEAF_PTE, SIM_ENTRY_PROT_NONE, 0, 0, -EFAULT },
	{ KAPI_MM_LEAF_PTE, SIM_ENTRY_DEVMAP, 0, 1, 0 },
	{ KAPI_MM_LEAF_PMD, SIM_ENTRY_SWAP, -EINVAL, 0, 0 },
	{ KAPI_MM_LEAF_PMD, SIM_ENTRY_MIGRATION, -EINVAL, 0, 0 },
	{ KAPI_MM_LEAF_PMD, SIM_ENTRY_PROT_NONE, 0, 0, -EFAULT },
	{ KAPI_MM_LEAF_PMD, SIM_ENTRY_SPLITTING, -EINVAL, 0, 0 },
	{ KAPI_MM_LEAF_PMD, SIM_ENTRY_DEVMAP, 0, 1, 0 },
	{ KAPI_MM_LEAF_PUD, SIM_ENTRY_SWAP, -EINVAL, 0, 0 },
	{ KAPI_MM_LEAF_PUD, SIM_ENTRY_MIGRATION, -EINVAL, 0, 0 },
	/* x86's pud_present() is the present bit alone */
	{ KAPI_MM_LEAF_PUD, SIM_ENTRY_PROT_NONE, -EINVAL, 0, 0 },
	{ KAPI_MM_LEAF_PUD, SIM_ENTRY_SPLITTING, -EINVAL, 0, 0 },
	{ KAPI_MM_LEAF_PUD, SIM_ENTRY_DEVMAP, 0, 1, 0 },
};

static const char *const kind_names[] = {
	"present", "swap", "migration", "PROT_NONE", "mid-split", "devmap",
};

/* A booted machine, a process, a BAR whose leaf holding page 3 is c->kind. */
static unsigned long given_a_bar_with_the_case_at_page_3(
	const struct lookup_case *c, unsigned long *len, unsigned long *bar_pfn)
{
	unsigned long va;

	print_message("%s at level %d\n", kind_names[c->kind], c->level);
	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 1 * GiB });
	given_a_process();
	va = given_a_bar_of_leaves(c->level, len, bar_pfn);
	assert_int_equal(kapi_mm_set_entry(va + 3 * PAGE, c->level, c->kind), 0);
	return va;
}

/*
 * follow_pfnmap_start() on each kind at each level: a non-present entry
 * fails -EINVAL holding nothing; a present one (PROT_NONE at PTE/PMD,
 * devmap) reports the exact pfn and the level's mask.
 */
static void test_follow_pfnmap_on_each_kind(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(lookup_cases); i++) {
		const struct lookup_case *c = &lookup_cases[i];
		unsigned long va, len, bar_pfn, pfn;
		struct kapi_pfnmap r;

		va = given_a_bar_with_the_case_at_page_3(c, &len, &bar_pfn);

		assert_int_equal(kapi_mm_follow_pfnmap(va + 3 * PAGE, &r), c->ret);
		if (!c->ret) {
			assert_int_equal(r.pfn, bar_pfn + 3);
			assert_int_equal(r.addr_mask,
					 expected_addr_mask(mask_of_level(c->level)));
			assert_int_equal(r.writable, c->writable);
			assert_true(r.special);
		}
		/* The CPU sees only a present, accessible leaf. */
		assert_int_equal(kapi_mm_cpu_pfn(va + 3 * PAGE, &pfn, NULL),
				 c->kind == SIM_ENTRY_DEVMAP ? 0 : -ENOENT);
		/* The other leaf is untouched. */
		assert_int_equal(kapi_mm_follow_pfnmap(va + len / 2, &r), 0);
		assert_int_equal(r.pfn, bar_pfn + len / 2 / PAGE);

		check_and_destroy();
	}
}

/*
 * A lookup that takes pmd_lock() on a PMD leaf mid-split waits for the
 * splitter, finds the leaf zapped and fails; the fault brings it back.
 */
static void test_pmd_mid_split_is_zapped_once_locked(void **state)
{
	unsigned long va, len, bar_pfn, pfn;
	struct kapi_pfnmap r;
	int level;

	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 1 * GiB });
	given_a_process();
	va = given_a_bar_of_leaves(KAPI_MM_LEAF_PMD, &len, &bar_pfn);
	assert_int_equal(kapi_mm_set_entry(va, KAPI_MM_LEAF_PMD,
					   SIM_ENTRY_SPLITTING), 0);
	assert_int_equal(kapi_mm_follow_pfnmap(va, &r), -EINVAL);
	/* the split finished: nothing is mapped there, not even mid-split */
	assert_int_equal(kapi_mm_set_entry(va, KAPI_MM_LEAF_PMD,
					   SIM_ENTRY_PRESENT), -ENOENT);
	assert_int_equal(kapi_mm_touch(va, PAGE, 0), 0);
	assert_int_equal(kapi_mm_cpu_pfn(va, &pfn, &level), 0);
	assert_int_equal(pfn, bar_pfn);
	assert_int_equal(level, KAPI_MM_LEAF_PMD);
	check_and_destroy();
}

/* Entries that do not exist for that memory or level are refused. */
static void test_set_entry_refuses_what_the_kernel_never_leaves(void **state)
{
	unsigned long va, len, bar_pfn;

	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 1 * GiB });
	given_a_process();
	va = given_a_bar_of_leaves(KAPI_MM_LEAF_PMD, &len, &bar_pfn);
	/* no PTE or PUD leaf maps va: a PMD does */
	assert_int_equal(kapi_mm_set_entry(va, KAPI_MM_LEAF_PTE,
					   SIM_ENTRY_SWAP), -ENOENT);
	assert_int_equal(kapi_mm_set_entry(va, KAPI_MM_LEAF_PUD,
					   SIM_ENTRY_SWAP), -ENOENT);
	assert_int_equal(kapi_mm_set_entry(va, 0, SIM_ENTRY_SWAP), -EINVAL);
	assert_int_equal(kapi_mm_set_entry(va, KAPI_MM_LEAF_PMD,
					   SIM_ENTRY_NR), -EINVAL);
	va = map_anon(4 * PAGE);
	assert_int_equal(kapi_mm_touch(va, 4 * PAGE, 1), 0);
	assert_int_equal(kapi_mm_set_entry(va, KAPI_MM_LEAF_PTE,
					   SIM_ENTRY_SPLITTING), -EOPNOTSUPP);
	assert_int_equal(kapi_mm_set_entry(va + 4 * PAGE, KAPI_MM_LEAF_PTE,
					   SIM_ENTRY_SWAP), -ENOENT);
	check_and_destroy();
}

/*
 * How much of a BAR VMA of len a MAP_DMA covers: all of it up to 2^19
 * pages (two 1 GiB PUDs of 4 KiB pages), else its first 2^19 pages, which
 * hold page 3.  type1 looks up every page of a DMA as it unmaps it
 * (vfio_unmap_unpin), and two PUDs of 64 KiB pages are 2^27 of them.
 */
static unsigned long dma_window_of(unsigned long len)
{
	const unsigned long most = (1UL << 19) * PAGE;

	return len < most ? len : most;
}

/*
 * What a read-write MAP_DMA of the case's BAR returns: the case's errno,
 * or -EINVAL for a PMD or PUD leaf in a tree whose type1 walks to PTEs
 * only (its lookup refuses the leaf before and after the fixup fault).
 */
static long map_rw_of(const struct lookup_case *c)
{
	if (c->level != KAPI_MM_LEAF_PTE && !DMASIM_IMPL_PFNMAP_HUGE_LEAVES)
		return -EINVAL;
	return c->map_rw;
}

/*
 * MAP_DMA of a BAR VMA holding one such entry: type1's lookup fails, its
 * fixup fault brings the entry back, and the IOMMU maps the CPU's pfns;
 * or a PROT_NONE leaf that follow_pfnmap reports read-only fails a
 * read-write map -EFAULT with nothing mapped or held, and maps read-only;
 * or (PTE-only lookups) a huge leaf fails -EINVAL with nothing mapped or
 * held, read-only too.
 */
static void test_map_dma_of_a_bar_with_each_kind(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(lookup_cases); i++) {
		const struct lookup_case *c = &lookup_cases[i];
		long want = map_rw_of(c);
		unsigned long va, len, bar_pfn, pfn;
		struct kapi_vfio_dev *dev;
		struct kapi_vfio *ct;

		va = given_a_bar_with_the_case_at_page_3(c, &len, &bar_pfn);
		len = dma_window_of(len);
		ct = open_a_v2_container();
		dev = attach_a_device_of_format(ct, SIM_IOMMU_INTEL_SL);

		assert_int_equal(kapi_vfio_map_dma(ct, va, IOVA, len, RW), want);
		if (!want) {
			assert_iommu_matches_cpu(dev, IOVA, va, len);
		} else if (want == -EINVAL) {
			assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
			assert_int_equal(kapi_mm_pins_outstanding(), 0);
			assert_int_equal(kapi_mm_locked_vm(), 0);
			assert_int_equal(kapi_vfio_map_dma(ct, va, IOVA, len, RO),
					 -EINVAL);
			assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
			kapi_vfio_close(ct);
			check_and_destroy();
			continue;
		} else {
			assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
			assert_int_equal(kapi_mm_pins_outstanding(), 0);
			/* read-only: the IOMMU maps the CPU's pfn all the same */
			map_dma(ct, va, IOVA, len, RO);
			assert_int_equal(kapi_vfio_dev_iova_to_pfn(dev,
					IOVA + 3 * PAGE, &pfn), 0);
			assert_int_equal(pfn, bar_pfn + 3);
			assert_iommu_matches_cpu(dev, IOVA + len / 2,
						 va + len / 2, len / 2);
		}
		unmap_dma_exactly(ct, IOVA, len);
		assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
		kapi_vfio_close(ct);
		check_and_destroy();
	}
}

struct gup_case {
	int thp;		/* a PMD leaf of a THP, else a small page */
	enum sim_pt_entry_kind kind;
	int write;
	int faults;		/* faults GUP takes */
	int moves;		/* the page is in a new frame afterwards */
	int stays_protnone;	/* the CPU still cannot access it */
};

static const struct gup_case gup_cases[] = {
	{ 0, SIM_ENTRY_SWAP, 0, 1, 0, 0 },
	{ 0, SIM_ENTRY_SWAP, 1, 1, 0, 0 },
	{ 0, SIM_ENTRY_MIGRATION, 0, 1, 1, 0 },
	{ 0, SIM_ENTRY_MIGRATION, 1, 1, 1, 0 },
	/* pin_user_pages_remote() follows PROT_NONE (no FOLL_HONOR_NUMA_FAULT) */
	{ 0, SIM_ENTRY_PROT_NONE, 0, 0, 0, 1 },
	{ 0, SIM_ENTRY_PROT_NONE, 1, 1, 0, 0 },
	{ 0, SIM_ENTRY_DEVMAP, 1, 0, 0, 0 },
	{ 1, SIM_ENTRY_SWAP, 1, 1, 0, 0 },
	/* a THP under migration stays in its frame here */
	{ 1, SIM_ENTRY_MIGRATION, 1, 1, 0, 0 },
	{ 1, SIM_ENTRY_PROT_NONE, 0, 0, 0, 1 },
	{ 1, SIM_ENTRY_PROT_NONE, 1, 1, 0, 0 },
};

/*
 * The anonymous range of the GUP cases: two THP blocks, PMD folios with
 * 4 KiB pages.  With 16 and 64 KiB pages a THP range is backed by small
 * pages (shared.h): there the THP cases put their entry on a PTE of it and
 * expect what the same entry on a small anonymous page does.
 */
#define ANON_LEN	(2 * THP_BLOCK)
#define THP_IS_PMD	(THP_BLOCK == PMD)

static int level_of(const struct gup_case *c)
{
	return c->thp && THP_IS_PMD ? KAPI_MM_LEAF_PMD : KAPI_MM_LEAF_PTE;
}

/* What c does at this page size: a small page's row where THP has none. */
static const struct gup_case *expected_of(const struct gup_case *c)
{
	if (!c->thp || THP_IS_PMD)
		return c;
	for (size_t i = 0; i < ARRAY_SIZE(gup_cases); i++)
		if (!gup_cases[i].thp && gup_cases[i].kind == c->kind &&
		    gup_cases[i].write == c->write)
			return &gup_cases[i];
	fail_msg("no small-page case for a THP case of kind %d", c->kind);
	return c;
}

/* A process with a populated anonymous (or THP) range of ANON_LEN. */
static unsigned long given_the_range_of(const struct gup_case *c)
{
	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 256 * MiB });
	given_a_process();
	return map_memory(&(struct kapi_mm_map){
		.len = ANON_LEN, .kind = c->thp ? KAPI_MM_THP : KAPI_MM_ANON,
		.writable = 1, .populate = 1, .align = PMD,
	});
}

/*
 * GUP on anonymous memory with such an entry: the fault brings the page
 * back (a migrated 4 KiB page in a new frame, the old one freed), a
 * PROT_NONE entry is pinned as it is unless the pin writes; the pinned
 * pfn is what the CPU maps afterwards.
 */
static void test_gup_on_each_kind(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(gup_cases); i++) {
		const struct gup_case *c = &gup_cases[i];
		const struct gup_case *e = expected_of(c);
		unsigned long va, before, pinned, after, faults, allocated;

		print_message("%s %s, %s pin\n", c->thp ? "THP" : "small",
			      kind_names[c->kind], c->write ? "write" : "read");
		va = given_the_range_of(c);
		assert_int_equal(kapi_mm_cpu_pfn(va + 3 * PAGE, &before, NULL), 0);
		assert_int_equal(kapi_mm_set_entry(va + 3 * PAGE, level_of(c),
						   c->kind), 0);
		faults = sim_counters.c[SIM_CNT_FAULT];
		allocated = sim_buddy_nr_allocated();

		assert_int_equal(kapi_mm_pin(va + 3 * PAGE, 1, c->write, 1,
					     &pinned), 1);
		assert_int_equal(sim_counters.c[SIM_CNT_FAULT] - faults, e->faults);
		assert_int_equal(pinned != before, e->moves);
		assert_int_equal(sim_buddy_nr_allocated(), allocated);
		if (e->stays_protnone) {
			assert_int_equal(kapi_mm_cpu_pfn(va + 3 * PAGE, &after,
							 NULL), -ENOENT);
		} else {
			assert_int_equal(kapi_mm_cpu_pfn(va + 3 * PAGE, &after,
							 NULL), 0);
			assert_int_equal(after, pinned);
		}
		kapi_mm_unpin(&pinned, 1, c->write);
		check_and_destroy();
	}
}

/*
 * MAP_DMA (read-write) of anonymous memory holding such an entry: GUP
 * faults it back (a migrated page in its new frame), and the IOMMU maps
 * exactly what the CPU maps afterwards; unmapped, nothing stays pinned.
 */
static void test_map_dma_of_anonymous_memory_with_each_kind(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(gup_cases); i++) {
		const struct gup_case *c = &gup_cases[i];
		struct kapi_vfio_dev *dev;
		struct kapi_vfio *ct;
		unsigned long va;

		if (!c->write)
			continue;
		print_message("%s %s\n", c->thp ? "THP" : "small",
			      kind_names[c->kind]);
		va = given_the_range_of(c);
		/* every page of the range pinned and charged at once */
		kapi_mm_set_rlimit_memlock(ANON_LEN);
		assert_int_equal(kapi_mm_set_entry(va + 3 * PAGE, level_of(c),
						   c->kind), 0);
		ct = open_a_v2_container();
		dev = attach_a_device_of_format(ct, SIM_IOMMU_INTEL_SL);
		map_dma(ct, va, IOVA, ANON_LEN, RW);
		assert_iommu_matches_cpu(dev, IOVA, va, ANON_LEN);
		unmap_dma_exactly(ct, IOVA, ANON_LEN);
		assert_int_equal(kapi_mm_pins_outstanding(), 0);
		kapi_vfio_close(ct);
		check_and_destroy();
	}
}

/*
 * A PROT_NONE mapping (no access at all): GUP refuses it -EFAULT, read or
 * write, and so does MAP_DMA of it, anonymous or a BAR (type1's fixup
 * fault is refused too), with nothing pinned, charged or mapped.
 */
static void test_prot_none_mapping_is_efault_for_gup_and_map_dma(void **state)
{
	static const int kinds[] = { KAPI_MM_ANON, KAPI_MM_PFNMAP };

	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		struct kapi_vfio_dev *dev;
		struct kapi_vfio *ct;
		unsigned long va, pfn;

		given_a_booted_machine(&(struct sim_config){ .ram_bytes = 256 * MiB });
		given_a_process();
		if (kinds[i] == KAPI_MM_PFNMAP)
			va = map_bar(&(struct kapi_mm_map){
				.len = PMD, .prot_none = 1, .align = PMD,
			}, NULL, NULL);
		else
			va = map_memory(&(struct kapi_mm_map){
				.len = 4 * PAGE, .kind = KAPI_MM_ANON,
				.prot_none = 1,
			});
		if (kinds[i] == KAPI_MM_ANON) {
			assert_int_equal(kapi_mm_pin(va, 1, 0, 1, &pfn), -EFAULT);
			assert_int_equal(kapi_mm_pin(va, 1, 1, 1, &pfn), -EFAULT);
		}
		ct = open_a_v2_container();
		dev = attach_a_device_of_format(ct, SIM_IOMMU_INTEL_SL);
		assert_int_equal(kapi_vfio_map_dma(ct, va, IOVA, PAGE, RO), -EFAULT);
		assert_int_equal(kapi_vfio_map_dma(ct, va, IOVA, PAGE, RW), -EFAULT);
		assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
		assert_int_equal(kapi_mm_pins_outstanding(), 0);
		assert_int_equal(kapi_mm_locked_vm(), 0);
		kapi_vfio_close(ct);
		check_and_destroy();
	}
}

/*
 * Choice point pt_leaf_changed: a PMD or PUD leaf zapped between the
 * lockless read and the lock fails the lookup; one split into the next
 * level's leaves is walked again and reported at that level (the walk
 * again locks a PMD leaf split from a PUD: a second hit, taking none).
 */
static void test_leaf_changes_before_the_lock_by_choice(void **state)
{
	static const struct {
		int level, alt, ret, then_level;
		unsigned long long hits;	/* leaves locked by the lookup */
	} cases[] = {
		{ KAPI_MM_LEAF_PMD, SIM_PT_LEAF_ZAPPED, -EINVAL, 0, 1 },
		{ KAPI_MM_LEAF_PMD, SIM_PT_LEAF_SPLIT, 0, KAPI_MM_LEAF_PTE, 1 },
		{ KAPI_MM_LEAF_PUD, SIM_PT_LEAF_ZAPPED, -EINVAL, 0, 1 },
		{ KAPI_MM_LEAF_PUD, SIM_PT_LEAF_SPLIT, 0, KAPI_MM_LEAF_PMD, 2 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned long va, len, bar_pfn, tables, pfn;
		struct kapi_pfnmap r;
		int level;

		given_a_booted_machine(&(struct sim_config){ .ram_bytes = 1 * GiB });
		given_a_process();
		va = given_a_bar_of_leaves(cases[i].level, &len, &bar_pfn);
		tables = kapi_mm_nr_tables();
		/* the first hit only: the walk after a split meets a leaf again */
		sim_choice_nth_start(1, cases[i].alt);
		assert_int_equal(kapi_mm_follow_pfnmap(va + 3 * PAGE, &r),
				 cases[i].ret);
		assert_int_equal(sim_choice_nth_stop(), cases[i].hits);
		if (!cases[i].ret) {
			assert_int_equal(r.pfn, bar_pfn + 3);
			assert_int_equal(r.addr_mask,
					 expected_addr_mask(mask_of_level(cases[i].then_level)));
			assert_int_equal(kapi_mm_nr_tables(), tables + 1);
			assert_int_equal(kapi_mm_cpu_pfn(va + len / 2 - PAGE,
							 &pfn, &level), 0);
			assert_int_equal(pfn, bar_pfn + len / 2 / PAGE - 1);
			assert_int_equal(level, cases[i].then_level);
		} else {
			assert_int_equal(kapi_mm_cpu_pfn(va, &pfn, NULL), -ENOENT);
		}
		check_and_destroy();
	}
}

/*
 * Choice point gup_nonpresent: the page GUP looks at first is being
 * migrated; GUP faults, waits, and pins the page in its new frame, which
 * the CPU maps from then on.
 */
static void test_gup_finds_a_migration_entry_by_choice(void **state)
{
	unsigned long va, before, pinned[2], after;

	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 256 * MiB });
	given_a_process();
	va = map_anon(2 * PAGE);
	assert_int_equal(kapi_mm_touch(va, 2 * PAGE, 1), 0);
	assert_int_equal(kapi_mm_cpu_pfn(va, &before, NULL), 0);
	sim_choice_force(SIM_CH_GUP_NONPRESENT, 1);
	assert_int_equal(kapi_mm_pin(va, 2, 1, 1, pinned), 2);
	sim_choice_force(SIM_CH_GUP_NONPRESENT, 0);
	assert_int_not_equal(pinned[0], before);
	assert_int_equal(kapi_mm_cpu_pfn(va, &after, NULL), 0);
	assert_int_equal(after, pinned[0]);
	kapi_mm_unpin(pinned, 2, 1);
	check_and_destroy();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_follow_pfnmap_on_each_kind),
		cmocka_unit_test(test_pmd_mid_split_is_zapped_once_locked),
		cmocka_unit_test(test_set_entry_refuses_what_the_kernel_never_leaves),
		cmocka_unit_test(test_map_dma_of_a_bar_with_each_kind),
		cmocka_unit_test(test_gup_on_each_kind),
		cmocka_unit_test(test_map_dma_of_anonymous_memory_with_each_kind),
		cmocka_unit_test(test_prot_none_mapping_is_efault_for_gup_and_map_dma),
		cmocka_unit_test(test_leaf_changes_before_the_lock_by_choice),
		cmocka_unit_test(test_gup_finds_a_migration_entry_by_choice),
	};

	kapi_mm_set_exact_pfnmap_leaves(1);
	return cmocka_run_group_tests(tests, boot_the_kernel, NULL);
}
