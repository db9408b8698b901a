// SPDX-License-Identifier: GPL-2.0-only
/*
 * The unmap side of VFIO type1 and what it costs: every per-page loop is
 * counted by the code doing the work (IOMMU probes: iommu_walks; put_pfn()
 * of a reserved pfn: pfn_valid_checks; gathered ranges: iotlb_gathers),
 * and the project's unmap_stride (core only, docs/next-bottleneck.md)
 * removes the probes and the put_pfn() loop while leaving exactly the same
 * IOMMU state, pins and locked_vm behind as mainline's unmap.
 *
 * Run with the parameter off (the default) and on; the on cases are
 * skipped for a kernel tree that does not have it (upstream mode).
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
#include <dmasim/kapi_mm_page.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "shared.h"

#define RW		KAPI_VFIO_DMA_MAP_RW
#define IOVA		(4 * GiB)

/* A booted 4 GiB machine and a process, unmap_stride as the run asks. */
static int setup(void **state)
{
	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 4 * GiB });
	given_a_process();
	return 0;
}

static int teardown(void **state)
{
	check_and_destroy();
	return 0;
}

/* ---- helpers ---- */

/* After an unmap: dev maps nothing; nothing pinned or charged is left. */
static void assert_dev_maps_nothing_and_nothing_is_pinned(struct kapi_vfio_dev *dev)
{
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
	assert_int_equal(kapi_mm_pins_outstanding(), at_start.pins);
	assert_int_equal(kapi_mm_locked_vm(), 0);
}

/* What an unmap cost and left behind. */
struct unmap_cost {
	struct sim_counters d;		/* counters over UNMAP_DMA */
	unsigned long long leaves_written; /* IOMMU PTE writes of the map */
	unsigned long pinned;		/* pins the map took */
	unsigned long pins_after;
	unsigned long locked_vm_after;
	unsigned long long leaves_after;
};

/* The memory one DMA is made of, laid out back to back in va. */
enum piece { ANON_2M, THP_4M, BAR_PMD_64M, BAR_PTE_1M };

struct layout {
	const char *what;
	enum piece pieces[5];
	unsigned int nr;
};

static unsigned long piece_len(enum piece p)
{
	switch (p) {
	case ANON_2M:
		return 2 * MiB;
	case THP_4M:
		return 4 * MiB;
	case BAR_PMD_64M:
		return 64 * MiB;
	default:
		return 1 * MiB;
	}
}

static int piece_is_bar(enum piece p)
{
	return p == BAR_PMD_64M || p == BAR_PTE_1M;
}

/*
 * The shortest run unmap_stride notes at map time (VFIO_RUN_MIN_PAGES of
 * vfio_iommu_type1.c); shorter runs are probed at unmap time.
 */
#define NOTED_RUN_MIN_PAGES	64

/*
 * Whether every run a piece maps is long enough to be noted: a BAR is one
 * physically contiguous run (1 MiB is 256 pages of 4 KiB, 64 of 16 KiB,
 * 16 of 64 KiB: noted only up to 16 KiB pages); THP is PMD folios where
 * the buddy allocator has PMD order (4 KiB pages) and small pages, in
 * runs of any length, where it has not; anon is small pages.
 */
static int piece_runs_are_noted(enum piece p)
{
	if (piece_is_bar(p))
		return piece_len(p) / PAGE >= NOTED_RUN_MIN_PAGES;
	if (p == THP_4M)
		return SIM_PMD_ORDER <= SIM_MAX_ORDER &&
		       PMD / PAGE >= NOTED_RUN_MIN_PAGES;
	return 0;
}

/* Map the layout's pieces at consecutive addresses from a PUD boundary. */
static unsigned long map_layout(const struct layout *l, unsigned long *len)
{
	unsigned long start = 0, va = 0;

	*len = 0;
	for (unsigned int i = 0; i < l->nr; i++) {
		enum piece p = l->pieces[i];
		struct kapi_mm_map m = {
			.addr = va, .len = piece_len(p), .writable = 1,
			.populate = 1, .align = PUD,
		};

		if (piece_is_bar(p)) {
			m.kind = KAPI_MM_PFNMAP;
			m.max_leaf = p == BAR_PMD_64M ? KAPI_MM_LEAF_PMD :
						      KAPI_MM_LEAF_PTE;
			va = map_bar(&m, &(struct bar_placement){ .align = PMD },
				     NULL);
		} else {
			m.kind = p == THP_4M ? KAPI_MM_THP : KAPI_MM_ANON;
			va = map_memory(&m);
		}
		if (!i)
			start = va;
		va += m.len;
		*len += m.len;
	}
	return start;
}

/*
 * Map the layout in one MAP_DMA with unmap_stride as given, check the
 * IOMMU against the CPU, unmap it and say what that cost.  The process's
 * mappings go afterwards, so the next run starts from the same machine.
 */
static void map_and_unmap(const struct layout *l, int stride,
			  struct unmap_cost *cost)
{
	int was = unmap_stride_set(stride);
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	struct sim_counters before;
	unsigned long len, va = map_layout(l, &len);

	sim_counters_snapshot(&before);
	map_dma(c, va, IOVA, len, RW);
	cost->leaves_written = sim_counters.c[SIM_CNT_IOMMU_PTE_WRITE] -
			       before.c[SIM_CNT_IOMMU_PTE_WRITE];
	cost->pinned = kapi_mm_pins_outstanding() - at_start.pins;
	assert_iommu_matches_cpu(dev, IOVA, va, len);

	sim_counters_snapshot(&before);
	unmap_dma_exactly(c, IOVA, len);
	sim_counters_delta(&before, &sim_counters, &cost->d);
	cost->pins_after = kapi_mm_pins_outstanding();
	cost->locked_vm_after = kapi_mm_locked_vm();
	cost->leaves_after = kapi_vfio_dev_nr_leaves(dev);

	kapi_vfio_close(c);
	unmap_stride_restore(was);
	for (unsigned long a = va, i = 0; i < l->nr; a += piece_len(l->pieces[i]), i++)
		assert_int_equal(kapi_mm_munmap(a), 0);
	assert_nothing_held();
}

/* A 64 MiB BAR mmapped with 2 MiB leaves, populated; its address. */
static unsigned long map_a_64m_bar_of_2m_leaves(void)
{
	struct kapi_mm_map m = {
		.len = 64 * MiB, .kind = KAPI_MM_PFNMAP, .writable = 1,
		.populate = 1, .max_leaf = KAPI_MM_LEAF_PMD, .align = PMD,
	};

	return map_bar(&m, NULL, NULL);
}

static unsigned long long unmap_count(const struct unmap_cost *c,
				      enum sim_counter id)
{
	return c->d.c[id];
}

/* Every leaf the map wrote cleared, every page it pinned unpinned, nothing left. */
static void assert_unmap_undid_the_map(const struct unmap_cost *c)
{
	assert_int_equal(unmap_count(c, SIM_CNT_IOMMU_PTE_CLEAR), c->leaves_written);
	assert_int_equal(unmap_count(c, SIM_CNT_UNPIN_PAGE), c->pinned);
	assert_int_equal(c->pins_after, at_start.pins);
	assert_int_equal(c->locked_vm_after, 0);
	assert_int_equal(c->leaves_after, 0);
}

/* ---- mainline's unmap, counted ---- */

/*
 * A 64 MiB BAR of 2 MiB leaves, one run: the unmap probes the IOMMU once
 * per page (the run's first page, then each page's contiguity) and asks
 * pfn_valid() of every pfn (put_pfn() of a reserved pfn unpins nothing).
 */
static void test_bar_unmap_probes_and_checks_every_page(void **state)
{
	const struct layout bar = { "BAR", { BAR_PMD_64M }, 1 };
	unsigned long long pages = 64 * MiB / PAGE;
	struct unmap_cost off;

	map_and_unmap(&bar, 0, &off);
	assert_unmap_undid_the_map(&off);
	assert_int_equal(unmap_count(&off, SIM_CNT_IOMMU_WALK), pages);
	assert_int_equal(unmap_count(&off, SIM_CNT_PFN_VALID), pages);
	assert_int_equal(unmap_count(&off, SIM_CNT_UNPIN_PAGE), 0);
	assert_int_equal(unmap_count(&off, SIM_CNT_IOMMU_PTE_CLEAR), 64 * MiB / SZ_2M);
	/* One unmap_pages() call of the driver gathers one range. */
	assert_int_equal(unmap_count(&off, SIM_CNT_IOTLB_GATHER),
			 unmap_count(&off, SIM_CNT_IOMMU_UNMAP_PAGES));
	assert_int_equal(off.leaves_after, 0);
}

/*
 * An IOMMU that builds fine-grained superpages (amd-v1: unmapping the
 * first page of a two-page map takes both, which type1's probe finds when
 * the group attaches) is unmapped without looking for contiguous runs:
 * type1 probes one page and unmaps from there, and the IOMMU takes the
 * whole superpage it mapped (a 1 MiB BAR is one amd-v1 page): one IOMMU
 * walk.  One that does not (intel-sl) is probed page by page for the
 * run's end, one walk per page.  An amd-v1 domain whose aperture holds no
 * two aligned pages ([1 page, 3 pages)) is never probed, so it is unmapped
 * as intel-sl is: the BAR's two pages in one run.  The probe maps its pair
 * at the first 2-page boundary of a range, and only when the range goes
 * on past the pair's last byte (type1's "end - start < 2 pages" with an
 * inclusive end, in core as in Linux): [1 page, 5 pages) is probed,
 * [1 page, 4 pages) is not.  Each time one
 * iommu_unmap() and every leaf goes.  (A tree without the probe,
 * DMASIM_IMPL_TYPE1_FGSP_PROBE, probes amd-v1 page by page too.)
 */
static void test_fine_grained_superpages_are_unmapped_unprobed(void **state)
{
	static const struct {
		struct kapi_vfio_dev_opts dev;
		unsigned long long iova, len;
		int fgsp;
	} cases[] = {
		{ { .fmt = SIM_IOMMU_AMD_V1 }, IOVA, MiB,
		  DMASIM_IMPL_TYPE1_FGSP_PROBE },
		{ { .fmt = SIM_IOMMU_INTEL_SL }, IOVA, MiB, 0 },
		{ { .fmt = SIM_IOMMU_AMD_V1, .aperture_start = PAGE,
		    .aperture_end = 3 * PAGE - 1 }, PAGE, 2 * PAGE, 0 },
		/* the probe's pair at the first 2-page boundary, 2 pages */
		{ { .fmt = SIM_IOMMU_AMD_V1, .aperture_start = PAGE,
		    .aperture_end = 5 * PAGE - 1 }, 2 * PAGE, 2 * PAGE,
		  DMASIM_IMPL_TYPE1_FGSP_PROBE },
		/* ... not taken when it ends at the aperture's last byte */
		{ { .fmt = SIM_IOMMU_AMD_V1, .aperture_start = PAGE,
		    .aperture_end = 4 * PAGE - 1 }, 2 * PAGE, 2 * PAGE, 0 },
	};
	int was = unmap_stride_set(0);

	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kapi_mm_map m = {
			.len = cases[i].len, .kind = KAPI_MM_PFNMAP,
			.writable = 1, .populate = 1,
			.max_leaf = KAPI_MM_LEAF_PTE,
		};
		struct kapi_vfio *c = open_a_v2_container();
		struct kapi_vfio_dev *dev = attach_a_device_with(c, &cases[i].dev);
		unsigned long va = map_bar(&m, &(struct bar_placement){ .align = PMD },
					   NULL);
		struct sim_counters before, d;

		map_dma(c, va, cases[i].iova, cases[i].len, RW);
		sim_counters_snapshot(&before);
		unmap_dma_exactly(c, cases[i].iova, cases[i].len);
		sim_counters_delta(&before, &sim_counters, &d);
		assert_int_equal(d.c[SIM_CNT_IOMMU_WALK],
				 cases[i].fgsp ? 1 : cases[i].len / PAGE);
		assert_int_equal(d.c[SIM_CNT_IOMMU_UNMAP_CALL], 1);
		assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
		kapi_vfio_close(c);
		assert_int_equal(kapi_mm_munmap(va), 0);
		assert_nothing_held();
	}
	unmap_stride_restore(was);
}

/* ---- unmap_stride: the same end state, none of the per-page work ---- */

static const struct layout layouts[] = {
	{ "BAR of 2 MiB leaves", { BAR_PMD_64M }, 1 },
	{ "BAR of 4 KiB leaves", { BAR_PTE_1M }, 1 },
	{ "THP", { THP_4M }, 1 },
	{ "anon, BAR, THP in one DMA", { ANON_2M, BAR_PMD_64M, THP_4M }, 3 },
	{ "THP, BAR of 4 KiB leaves, anon", { THP_4M, BAR_PTE_1M, ANON_2M }, 3 },
	/* five noted runs at least (4 KiB pages): a DMA's notes grow past 4 */
	{ "THP, four BARs of 4 KiB leaves", { THP_4M, BAR_PTE_1M, BAR_PTE_1M, BAR_PTE_1M, BAR_PTE_1M }, 5 },
};

/*
 * Each layout unmapped with unmap_stride off and on (two runs, whose
 * physical pages may differ): each time every leaf and pin goes and
 * nothing is left (no leaf, no pin, no charge); on, the pieces whose runs
 * are noted (piece_runs_are_noted(): with 4 KiB pages a BAR, and THP's
 * 2 MiB folios) cost no probe and no pfn_valid(), the others a probe per
 * page plus at most one per run, as mainline off probes every page.
 */
static void test_unmap_stride_leaves_the_same_state_without_probing(void **state)
{
	if (unmap_stride_get() < 0)
		skip();
	for (unsigned int i = 0; i < ARRAY_SIZE(layouts); i++) {
		const struct layout *l = &layouts[i];
		struct unmap_cost off, on;
		unsigned long long pages = 0, probed = 0; /* probed: not noted */

		for (unsigned int k = 0; k < l->nr; k++) {
			unsigned long long n = piece_len(l->pieces[k]) / PAGE;

			pages += n;
			if (!piece_runs_are_noted(l->pieces[k]))
				probed += n;
		}
		print_message("%s\n", l->what);
		map_and_unmap(l, 0, &off);
		map_and_unmap(l, 1, &on);

		assert_unmap_undid_the_map(&off);
		assert_unmap_undid_the_map(&on);
		assert_int_equal(on.pinned, off.pinned);
		if (!probed) {
			assert_int_equal(unmap_count(&on, SIM_CNT_IOMMU_WALK), 0);
			assert_int_equal(unmap_count(&on, SIM_CNT_PFN_VALID), 0);
		} else {
			/* Each page not noted: one probe, one more per run. */
			assert_in_range(unmap_count(&on, SIM_CNT_IOMMU_WALK),
					probed, 2 * probed - 1);
		}
		/* Off, every page is probed (mainline). */
		assert_true(unmap_count(&off, SIM_CNT_IOMMU_WALK) >= pages);
	}
}

/*
 * The notes belong to the pins of one IOMMU era: the last IOMMU device
 * goes (the DMA stays for an emulated device, unpinned), a new one comes
 * (the DMA is pinned again and noted again), and the unmap unpins exactly
 * what the second pinning pinned.
 */
static void test_notes_follow_the_iommu_domain_going_and_coming(void **state)
{
	struct kapi_mm_map m = {
		.len = 4 * MiB, .kind = KAPI_MM_THP, .writable = 1,
		.populate = 1, .align = PMD,
	};
	struct kapi_vfio *c;
	struct kapi_vfio_dev *dev;
	unsigned long va;
	int was;

	if (unmap_stride_get() < 0)
		skip();
	was = unmap_stride_set(1);
	c = open_a_v2_container();
	attach_an_emulated_device(c);
	dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	va = map_memory(&m);
	map_dma(c, va, IOVA, 4 * MiB, RW);
	assert_int_equal(kapi_mm_pins_outstanding() - at_start.pins, 4 * MiB / PAGE);

	kapi_vfio_detach_dev(c, dev);
	assert_int_equal(kapi_mm_pins_outstanding(), at_start.pins);
	dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	assert_iommu_matches_cpu(dev, IOVA, va, 4 * MiB);
	assert_int_equal(kapi_mm_pins_outstanding() - at_start.pins, 4 * MiB / PAGE);

	unmap_dma_exactly(c, IOVA, 4 * MiB);
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
	assert_int_equal(kapi_mm_pins_outstanding(), at_start.pins);
	kapi_vfio_close(c);
	unmap_stride_restore(was);
}

/*
 * The setting at unmap time does not matter: runs noted while it was on
 * are unmapped by their notes after it is turned off, and a DMA mapped
 * while it was off is probed after it is turned on.
 */
static void test_turning_unmap_stride_between_map_and_unmap(void **state)
{
	unsigned long long pages = 64 * MiB / PAGE;
	unsigned long va = map_a_64m_bar_of_2m_leaves();
	struct kapi_vfio *c;
	struct sim_counters before;
	int was;

	if (unmap_stride_get() < 0)
		skip();
	was = unmap_stride_set(1);
	c = open_a_v2_container();
	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	map_dma(c, va, IOVA, 64 * MiB, RW);
	unmap_stride_set(0);
	sim_counters_snapshot(&before);
	unmap_dma_exactly(c, IOVA, 64 * MiB);
	assert_int_equal(sim_counters.c[SIM_CNT_IOMMU_WALK] -
			 before.c[SIM_CNT_IOMMU_WALK], 0);

	map_dma(c, va, IOVA, 64 * MiB, RW);
	unmap_stride_set(1);
	sim_counters_snapshot(&before);
	unmap_dma_exactly(c, IOVA, 64 * MiB);
	assert_int_equal(sim_counters.c[SIM_CNT_IOMMU_WALK] -
			 before.c[SIM_CNT_IOMMU_WALK], pages);
	kapi_vfio_close(c);
	unmap_stride_restore(was);
}

/*
 * A run of one kind and a page of the other in one leaf of a later
 * domain.  The first DMA's memory is one order-7 block (128 pages at pfn
 * P, aligned to 128 pages): 127 of them reserved by a driver and mapped
 * as a pfnmap, and one anonymous page (the block's page the driver gave
 * back just before the fault that reuses it), first or last; then a
 * 64-page BAR, noted on its own:
 *
 *   va:    [ anon | reserved P+1 .. P+127 ][ BAR ]      (anon first)
 *          [ reserved P .. P+126 | anon   ][ BAR ]      (anon last)
 *
 * The intel-sl domain maps them as pinned: one run per kind, each its own
 * iommu_map(); unmap_stride notes the runs of 64 pages or more.  An
 * amd-v1 domain joining later is mapped from the first domain's
 * translations, which are physically contiguous across the kinds: one
 * 128-page leaf over both.  It becomes the first domain, the one the
 * unmap walks, and unmapping any page of that leaf takes all of it.  The
 * unmap must still unpin the anonymous page (and only it) whether the
 * leaf was reached through the reserved run's note or a probe, and, with
 * unmap_stride, skip the note the leaf swallowed and unmap the BAR by its
 * own note: one IOMMU probe in all (amd-v1's fine-grained superpages need
 * no search for a run's end), none with the anonymous page last.
 */
struct kinds_in_one_leaf {
	const char *what;
	unsigned int anon;		/* the anonymous page's index, 0 or 127 */
	unsigned long long walks;	/* IOMMU probes of the unmap (stride on) */
};

static void test_a_later_domains_leaf_over_two_kinds(void **state)
{
	static const struct kinds_in_one_leaf rows[] = {
		{ "anonymous page first", 0, 1 },
		{ "anonymous page last", 127, 0 },
	};
	const unsigned long block = 128, bar_len = 64 * PAGE;

	for (unsigned int r = 0; r < ARRAY_SIZE(rows); r++) {
		for (int stride = 0; stride < 2; stride++) {
			const struct kinds_in_one_leaf *row = &rows[r];
			struct sim_page *pages;
			struct kapi_mm_map anon = {
				.len = PAGE, .kind = KAPI_MM_ANON, .writable = 1,
			};
			struct kapi_mm_map rsvd = {
				.len = (block - 1) * PAGE, .kind = KAPI_MM_PFNMAP,
				.writable = 1, .populate = 1,
				.max_leaf = KAPI_MM_LEAF_PTE,
			};
			struct kapi_mm_map bar = {
				.len = bar_len, .writable = 1, .populate = 1,
				.max_leaf = KAPI_MM_LEAF_PTE,
			};
			struct kapi_vfio_dev *intel, *amd;
			struct kapi_page_info info;
			struct sim_counters before;
			unsigned long va, got, pfn;
			struct kapi_vfio *c;
			int was;

			if (stride && unmap_stride_get() < 0)
				continue;
			was = unmap_stride_set(stride);
			print_message("%s, unmap_stride %d\n", row->what, stride);
			pages = kapi_alloc_pages(kapi_gfp("GFP_HIGHUSER_MOVABLE"), 7);
			assert_non_null(pages);
			kapi_split_page(pages, 7);
			kapi_page_info(pages, &info);
			for (unsigned long i = 0; i < block; i++)
				if (i != row->anon)
					kapi_set_page_reserved(sim_pfn_to_page(info.pfn + i), 1);
			c = open_a_v2_container();
			intel = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);

			va = map_anon(block * PAGE + bar_len);
			assert_int_equal(kapi_mm_munmap(va), 0);
			kapi___free_pages(sim_pfn_to_page(info.pfn + row->anon), 0);
			anon.addr = va + row->anon * PAGE;
			assert_int_equal(kapi_mm_mmap(&anon, &got), 0);
			assert_int_equal(kapi_mm_touch(anon.addr, PAGE, 1), 0);
			assert_int_equal(kapi_mm_cpu_pfn(anon.addr, &pfn, NULL), 0);
			assert_int_equal(pfn, info.pfn + row->anon);
			rsvd.addr = row->anon ? va : va + PAGE;
			rsvd.pfn = row->anon ? info.pfn : info.pfn + 1;
			assert_int_equal(kapi_mm_mmap(&rsvd, &got), 0);
			bar.addr = va + block * PAGE;
			map_bar(&bar, &(struct bar_placement){ .align = bar_len }, NULL);

			map_dma(c, va, IOVA, block * PAGE + bar_len, RW);
			amd = attach_a_device_of_format(c, SIM_IOMMU_AMD_V1);
			assert_iommu_matches_cpu(amd, IOVA, va, block * PAGE + bar_len);
			assert_int_equal(kapi_vfio_dev_nr_leaves(amd), 2);
			assert_int_equal(kapi_mm_locked_vm(), 1);
			assert_int_equal(kapi_mm_pins_outstanding() - at_start.pins, 1);

			sim_counters_snapshot(&before);
			unmap_dma_exactly(c, IOVA, block * PAGE + bar_len);
			if (stride)
				assert_int_equal(sim_counters.c[SIM_CNT_IOMMU_WALK] -
						 before.c[SIM_CNT_IOMMU_WALK],
						 row->walks);
			assert_int_equal(kapi_vfio_dev_nr_leaves(intel), 0);
			assert_dev_maps_nothing_and_nothing_is_pinned(amd);
			kapi_vfio_close(c);
			unmap_stride_restore(was);
			assert_int_equal(kapi_mm_munmap(anon.addr), 0);
			assert_int_equal(kapi_mm_munmap(rsvd.addr), 0);
			assert_int_equal(kapi_mm_munmap(bar.addr), 0);
			for (unsigned long i = 0; i < block; i++) {
				if (i == row->anon)
					continue;
				kapi_set_page_reserved(sim_pfn_to_page(info.pfn + i), 0);
				kapi___free_pages(sim_pfn_to_page(info.pfn + i), 0);
			}
			assert_nothing_held();
		}
	}
}

/*
 *   va:    [ anon, 1024 pages faulted in from the last to the first ]
 *          (descending pfns: every run is one page, one unmapped region)
 *
 * The unmap unpins its regions only after an IOTLB sync, but not one sync
 * per region: up to 512 regions (VFIO_IOMMU_TLB_SYNC_MAX, as mainline)
 * are queued behind one.  1024 one-page regions cost exactly two syncs:
 * one when the 512th is queued, one when the 1024th is, none left over
 * for the end.
 */
static void test_unmap_syncs_the_iotlb_once_per_512_regions(void **state)
{
	const unsigned long regions = 2 * 512;
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	unsigned long va = map_anon(regions * PAGE);
	struct sim_counters before;

	kapi_mm_set_rlimit_memlock(regions * PAGE);
	for (long i = regions - 1; i >= 0; i--)
		assert_int_equal(kapi_mm_touch(va + i * PAGE, PAGE, 1), 0);
	map_dma(c, va, IOVA, regions * PAGE, RW);
	assert_iommu_matches_cpu(dev, IOVA, va, regions * PAGE);

	sim_counters_snapshot(&before);
	unmap_dma_exactly(c, IOVA, regions * PAGE);
	assert_int_equal(sim_counters.c[SIM_CNT_IOTLB_SYNC] -
			 before.c[SIM_CNT_IOTLB_SYNC], 2);
	assert_int_equal(kapi_mm_pins_outstanding(), at_start.pins);
	kapi_vfio_close(c);
	kapi_mm_set_rlimit_memlock(8 * MiB);
	assert_int_equal(kapi_mm_munmap(va), 0);
}

/*
 *   va:    [ anon page ][ BAR of 128 pages                  ]
 *   DMA:   [ anon page ][ first 64 BAR pages ]   an emulated device's
 *
 * The first IOMMU device pins and maps a DMA that only an emulated device
 * had: run by run, exactly the DMA (the BAR goes on physically after the
 * DMA's end, and the page there stays unmapped).  With unmap_stride, the
 * runs it pins are noted as MAP_DMA's are, from VFIO_RUN_MIN_PAGES (64)
 * pages on: the unmap probes the anonymous page's run once and the BAR's
 * 64 pages not at all.
 */
static void test_first_iommu_device_maps_and_notes_the_dma_exactly(void **state)
{
	const unsigned long dma_len = PAGE + 64 * PAGE;
	struct kapi_mm_map anon = {
		.len = PAGE, .kind = KAPI_MM_ANON, .writable = 1, .populate = 1,
	};
	struct kapi_mm_map bar = {
		.len = 128 * PAGE, .writable = 1, .populate = 1,
		.max_leaf = KAPI_MM_LEAF_PTE,
	};
	int was = unmap_stride_set(1);
	struct kapi_vfio *c = open_a_v2_container();
	struct kapi_vfio_dev *dev;
	struct sim_counters before;
	unsigned long va = map_anon(PAGE + 128 * PAGE), pfn;

	assert_int_equal(kapi_mm_munmap(va), 0);
	anon.addr = va;
	map_memory(&anon);
	bar.addr = va + PAGE;
	map_bar(&bar, &(struct bar_placement){ .align = 128 * PAGE }, NULL);
	attach_an_emulated_device(c);
	map_dma(c, va, IOVA, dma_len, RW);

	dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	assert_iommu_matches_cpu(dev, IOVA, va, dma_len);
	assert_int_not_equal(kapi_vfio_dev_iova_to_pfn(dev, IOVA + dma_len, &pfn), 0);
	assert_int_equal(kapi_mm_locked_vm(), 1);

	sim_counters_snapshot(&before);
	unmap_dma_exactly(c, IOVA, dma_len);
	if (was >= 0)
		assert_int_equal(sim_counters.c[SIM_CNT_IOMMU_WALK] -
				 before.c[SIM_CNT_IOMMU_WALK], 1);
	assert_dev_maps_nothing_and_nothing_is_pinned(dev);
	kapi_vfio_close(c);
	unmap_stride_restore(was);
	assert_int_equal(kapi_mm_munmap(anon.addr), 0);
	assert_int_equal(kapi_mm_munmap(bar.addr), 0);
}

/* How the DMA of the stale-notes test lost its IOMMU pins. */
enum pins_went { LAST_DEVICE_LEFT, REPLAY_FAILED };

/*
 *   va:    [ THP, 2 MiB ][ BAR page ]   one DMA, an emulated device's too
 *
 * The notes belong to the pins they were taken with.  The DMA loses its
 * IOMMU pins (the last IOMMU device leaves, or the first one's replay
 * fails at the BAR page's map, after the THP run was mapped and
 * noted), then the owner replaces the memory behind its vaddr (allowed:
 * nothing pins it now) with other pages.  An IOMMU device joining then
 * pins and notes the new pages; the unmap must unpin exactly those, not
 * the old run a stale note would name.
 */
static void test_notes_go_with_the_pins_they_describe(void **state)
{
	static const struct { const char *what; enum pins_went how; } rows[] = {
		{ "the last IOMMU device left", LAST_DEVICE_LEFT },
		{ "the first IOMMU device's replay failed", REPLAY_FAILED },
	};
	const unsigned int order = __builtin_ctzll(2 * MiB / PAGE);

	for (unsigned int r = 0; r < ARRAY_SIZE(rows); r++) {
		struct kapi_mm_map thp = {
			.len = 2 * MiB, .kind = KAPI_MM_THP, .writable = 1,
			.populate = 1, .align = PMD,
		};
		struct kapi_mm_map bar = {
			.len = PAGE, .writable = 1, .populate = 1,
			.max_leaf = KAPI_MM_LEAF_PTE,
		};
		int was = unmap_stride_set(1);
		struct kapi_vfio *c = open_a_v2_container();
		struct kapi_vfio_dev *dev;
		unsigned long va, old_pfn, new_pfn;
		struct sim_page *old_block;

		print_message("%s\n", rows[r].what);
		attach_an_emulated_device(c);
		va = map_memory(&thp);
		bar.addr = va + 2 * MiB;
		map_bar(&bar, NULL, NULL);
		assert_int_equal(kapi_mm_cpu_pfn(va, &old_pfn, NULL), 0);
		map_dma(c, va, IOVA, 2 * MiB + PAGE, RW);

		if (rows[r].how == LAST_DEVICE_LEFT) {
			dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
			kapi_vfio_detach_dev(c, dev);
		} else {
			/* The probe's map, the THP run's, the BAR page's. */
			fail_nth_call_of("shim/iommu/map", 2);
			assert_int_equal(kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_INTEL_SL,
								    &dev), -ENOMEM);
			stop_failing("shim/iommu/map");
		}
		assert_int_equal(kapi_mm_pins_outstanding(), at_start.pins);

		/* New pages behind the vaddr; the old block kept out of reach. */
		assert_int_equal(kapi_mm_munmap(va), 0);
		old_block = kapi_alloc_pages(kapi_gfp("GFP_HIGHUSER_MOVABLE"), order);
		assert_non_null(old_block);
		thp.addr = va;
		map_memory(&thp);
		assert_int_equal(kapi_mm_cpu_pfn(va, &new_pfn, NULL), 0);
		assert_int_not_equal(new_pfn, old_pfn);

		dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
		assert_iommu_matches_cpu(dev, IOVA, va, 2 * MiB + PAGE);
		unmap_dma_exactly(c, IOVA, 2 * MiB + PAGE);
		assert_dev_maps_nothing_and_nothing_is_pinned(dev);
		kapi_vfio_close(c);
		unmap_stride_restore(was);
		kapi___free_pages(old_block, order);
		assert_int_equal(kapi_mm_munmap(va), 0);
		assert_int_equal(kapi_mm_munmap(bar.addr), 0);
		assert_nothing_held();
	}
}

/*
 * MAP_DMA through kapi counts what `dmasim bar` reports for the same
 * work: one mmap_lock and one GUP call per vaddr_get_pfns() (counted by
 * the lock and GUP themselves, not filled in by a caller).
 */
static void test_each_pfn_lookup_takes_the_mmap_lock_once(void **state)
{
	unsigned long va = map_a_64m_bar_of_2m_leaves();
	struct kapi_vfio *c = open_a_v2_container();
	struct sim_counters before, d;

	attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	sim_counters_snapshot(&before);
	map_dma(c, va, IOVA, 64 * MiB, RW);
	sim_counters_delta(&before, &sim_counters, &d);
	assert_int_equal(d.c[SIM_CNT_GUP_CALL], d.c[SIM_CNT_PFN_LOOKUP]);
	/* The lookups, plus the one locked_vm charge (a write lock). */
	assert_true(d.c[SIM_CNT_MMAP_LOCK] >= d.c[SIM_CNT_GUP_CALL]);
	assert_true(d.c[SIM_CNT_MMAP_LOCK] <= d.c[SIM_CNT_GUP_CALL] + 1);
	unmap_dma_exactly(c, IOVA, 64 * MiB);
	kapi_vfio_close(c);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_bar_unmap_probes_and_checks_every_page),
		T(test_fine_grained_superpages_are_unmapped_unprobed),
		T(test_unmap_stride_leaves_the_same_state_without_probing),
		T(test_notes_follow_the_iommu_domain_going_and_coming),
		T(test_turning_unmap_stride_between_map_and_unmap),
		T(test_each_pfn_lookup_takes_the_mmap_lock_once),
		T(test_a_later_domains_leaf_over_two_kinds),
		T(test_unmap_syncs_the_iotlb_once_per_512_regions),
		T(test_first_iommu_device_maps_and_notes_the_dma_exactly),
		T(test_notes_go_with_the_pins_they_describe),
	};

	return cmocka_run_group_tests_name("type1_unmap", tests, NULL, NULL);
}
