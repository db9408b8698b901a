// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page sizes iommu_map() and iommu_unmap() ask the driver for, checked
 * against a slow reference that is obviously right: walk the range one page
 * at a time, always taking the largest page of the domain's bitmap that
 * fits in what is left and divides both iova and paddr; consecutive pages
 * of one size are one driver call.  That greedy walk is what the kernel's
 * iommu_pgsize() computes in bulk: its rule that stops a run of small
 * pages at the next larger boundary (when iova and paddr reach it together)
 * is exactly where the greedy walk switches to the larger page.
 *
 * The sweeps compare every range with reference_calls(), the same greedy
 * walk taken a run at a time (cost: a few steps per page size, not one per
 * page; see there why it takes the same pages), and that with the
 * page-by-page walk on every range of at most 64 smallest pages.
 *
 * The driver runs in dry run (records calls, writes no table) so ranges of
 * any size and place can be swept; the worked example runs on real tables.
 * `test_iommu_pgsize_core --slow` (suite 'slow') sweeps every granule of
 * the windows against every class of paddr (see "Classes of paddr" below)
 * and more random ranges.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_iommu.h>
#include <dmasim/sim.h>

#include "shared.h"

#define MAX_CALLS	4096
#define RW		(KAPI_IOMMU_READ | KAPI_IOMMU_WRITE)

struct call {
	unsigned long long iova, paddr, pgsize, count;
};

static int slow_sweep;
static unsigned long long cases_checked;

static struct kapi_iommu_dev *dev;
static struct kapi_iommu_domain *domain;

/* ---- the reference ---------------------------------------------------- */

static unsigned long long largest_page_that_fits(unsigned long long bitmap,
						 unsigned long long iova,
						 unsigned long long paddr,
						 unsigned long long left)
{
	/* Each page size of the bitmap, largest first. */
	while (bitmap) {
		unsigned long long page = 1ULL << (63 - __builtin_clzll(bitmap));

		if (page <= left && !(iova & (page - 1)) && !(paddr & (page - 1)))
			return page;
		bitmap &= ~page;
	}
	return 0;
}

/* One more page of @page from iova/paddr: joins the last call if it can. */
static unsigned int add_pages(struct call *out, unsigned int n,
			      unsigned long long iova, unsigned long long paddr,
			      unsigned long long page, unsigned long long count)
{
	if (n && out[n - 1].pgsize == page) {
		out[n - 1].count += count;
		return n;
	}
	assert_true(page != 0 && n < MAX_CALLS);
	out[n] = (struct call){ iova, paddr, page, count };
	return n + 1;
}

/* The driver calls a page-by-page greedy walk of the range makes. */
static unsigned int page_by_page_calls(unsigned long long bitmap,
				       unsigned long long iova,
				       unsigned long long paddr,
				       unsigned long long size,
				       struct call *out)
{
	unsigned int n = 0;

	while (size) {
		unsigned long long page = largest_page_that_fits(bitmap, iova,
								 paddr, size);

		n = add_pages(out, n, iova, paddr, page, 1);
		iova += page;
		paddr += page;
		size -= page;
	}
	return n;
}

/*
 * The same greedy walk, a run of equal pages per step.  Say the walk takes
 * page p at iova (p divides iova and paddr, p <= left).  A larger page q'
 * of the bitmap can only be taken where q' divides both iova and paddr;
 * since they move together, that needs q' to divide paddr - iova, and
 * then q' is a multiple of q, the smallest such page above p.  So until
 * iova reaches a multiple of q, and while p still fits, every next page
 * is p again (p keeps dividing both): the walk takes
 * min(distance to that multiple of q, left) / p pages of p at once (all of
 * left when there is no q, or when iova is already a multiple of q, which
 * means q did not fit and never will, left only shrinking).  A run is a
 * step for each larger page size on the way up and each smaller one on
 * the way down.
 */
static unsigned int reference_calls(unsigned long long bitmap,
				    unsigned long long iova,
				    unsigned long long paddr,
				    unsigned long long size, struct call *out)
{
	unsigned long long apart = iova ^ paddr;
	unsigned int n = 0;

	while (size) {
		unsigned long long page = largest_page_that_fits(bitmap, iova,
								 paddr, size);
		/* Page sizes above page that iova and paddr can share. */
		unsigned long long above = bitmap & ~(2 * page - 1) &
			(apart ? 2 * (apart & -apart) - 1 : ~0ULL);
		unsigned long long q = above & -above;
		unsigned long long run = size / page * page;

		assert_true(page != 0);
		if (q && (iova & (q - 1)) && q - (iova & (q - 1)) < run)
			run = q - (iova & (q - 1));
		n = add_pages(out, n, iova, paddr, page, run / page);
		iova += run;
		paddr += run;
		size -= run;
	}
	return n;
}

/* ---- what the core asked of the driver ---------------------------------- */

static unsigned int traced_calls(int op, struct call *out)
{
	struct kapi_iommu_call c;
	unsigned int n = 0;

	assert_int_equal(kapi_iommu_trace_dropped(), 0);
	for (unsigned long i = 0; !kapi_iommu_trace_get(i, &c); i++) {
		if (c.op != op)
			continue;
		assert_true(n < MAX_CALLS);
		out[n++] = (struct call){ c.iova, c.paddr, c.pgsize, c.count };
	}
	return n;
}

static void print_calls(const char *what, const struct call *c, unsigned int n)
{
	fprintf(stderr, "%s:\n", what);
	for (unsigned int i = 0; i < n && i < 16; i++)
		fprintf(stderr, "  iova %#llx paddr %#llx %#llx x %llu\n",
			c[i].iova, c[i].paddr, c[i].pgsize, c[i].count);
}

static void assert_same_calls(const struct call *want, unsigned int nwant,
			      const struct call *got, unsigned int ngot,
			      int check_paddr)
{
	int same = nwant == ngot;

	for (unsigned int i = 0; same && i < nwant; i++)
		same = want[i].iova == got[i].iova &&
		       (!check_paddr || want[i].paddr == got[i].paddr) &&
		       want[i].pgsize == got[i].pgsize &&
		       want[i].count == got[i].count;
	if (!same) {
		print_calls("expected", want, nwant);
		print_calls("driver was asked", got, ngot);
	}
	assert_true(same);
}

/*
 * Map and unmap [iova, iova + size) -> paddr in dry run and compare the
 * driver calls with the reference; every call stays within what is left.
 */
static void check_map_and_unmap(unsigned long long bitmap,
				unsigned long long iova,
				unsigned long long paddr,
				unsigned long long size)
{
	static struct call want[MAX_CALLS], got[MAX_CALLS];
	unsigned long long left = size;
	unsigned int nwant, ngot;

	kapi_iommu_trace_clear();
	assert_int_equal(kapi_iommu_map(domain, iova, paddr, size, RW), 0);
	nwant = reference_calls(bitmap, iova, paddr, size, want);
	if (size / (bitmap & -bitmap) <= 64)
		assert_same_calls(want, nwant, got,
				  page_by_page_calls(bitmap, iova, paddr, size, got),
				  1);
	ngot = traced_calls(KAPI_IOMMU_OP_MAP_PAGES, got);
	assert_same_calls(want, nwant, got, ngot, 1);
	for (unsigned int i = 0; i < ngot; i++) {
		assert_true(got[i].count >= 1);
		assert_true(got[i].pgsize * got[i].count <= left);
		assert_true(got[i].pgsize * got[i].count / got[i].count ==
			    got[i].pgsize);
		left -= got[i].pgsize * got[i].count;
	}
	assert_int_equal(left, 0);

	/* Unmap: only iova's alignment matters (paddr is taken as iova). */
	kapi_iommu_trace_clear();
	assert_int_equal(kapi_iommu_unmap(domain, iova, size), size);
	nwant = reference_calls(bitmap, iova, iova, size, want);
	ngot = traced_calls(KAPI_IOMMU_OP_UNMAP_PAGES, got);
	assert_same_calls(want, nwant, got, ngot, 0);
	cases_checked++;
}

/* ---- fixtures --------------------------------------------------------- */

static void boot_device_of_format(enum sim_iommu_format_id fmt, int dry_run)
{
	given_a_booted_machine(&(struct sim_config){ .ram_bytes = 1 * GiB });
	assert_int_equal(kapi_iommu_dev_create("pgsize", fmt, NULL, &dev), 0);
	assert_int_equal(kapi_iommu_domain_alloc(dev, &domain), 0);
	kapi_iommu_trace_enable(MAX_CALLS);
	kapi_iommu_set_dry_run(dry_run);
}

static void tear_down(void)
{
	kapi_iommu_set_dry_run(0);
	kapi_iommu_trace_enable(0);
	kapi_iommu_domain_free(domain);
	kapi_iommu_dev_destroy(dev);
	check_and_destroy();
}

/* ---- tests ------------------------------------------------------------- */

/*
 *  IOVA   0x1FF000 0x200000              0x400000            0x5FF000
 *         |4K|---------- 2M ------------|----- 511 x 4K -----|
 *  paddr  0x3FF000 0x400000              0x600000
 * iova and paddr are co-aligned for 2M from the first boundary on: one 4K
 * page reaches it, one 2M page follows, and what is left is under 2M.
 */
static void test_worked_example_4k_2m_1g(void **state)
{
	static const struct call want[] = {
		{ 0x1FF000, 0x3FF000, SZ_4K, 1 },
		{ 0x200000, 0x400000, SZ_2M, 1 },
		{ 0x400000, 0x600000, SZ_4K, 511 },
	};
	struct call got[MAX_CALLS];
	struct sim_iommu_domain *tables;

	boot_device_of_format(SIM_IOMMU_INTEL_SL, 0);
	tables = kapi_iommu_sim_domain(domain);
	assert_int_equal(kapi_iommu_map(domain, 0x1FF000, 0x3FF000, SZ_4M, RW), 0);
	assert_same_calls(want, 3, got,
			  traced_calls(KAPI_IOMMU_OP_MAP_PAGES, got), 1);
	assert_int_equal(sim_iommu_nr_leaves(tables, 12), 512);
	assert_int_equal(sim_iommu_nr_leaves(tables, 21), 1);
	assert_int_equal(kapi_iommu_unmap(domain, 0x1FF000, SZ_4M), SZ_4M);
	assert_int_equal(sim_iommu_nr_leaves_total(tables), 0);
	tear_down();
}

/*
 * Classes of paddr.  For a given iova and size, the calls depend on paddr
 * only through c, the largest page of the bitmap that divides
 * paddr - iova, and each call's paddr is its iova + (paddr - iova):
 *  - the reference: largest_page_that_fits() asks of each page p whether
 *    p divides iova and paddr, that is iova and paddr - iova (p a power
 *    of two), that is p divides iova and p <= c;
 *  - the kernel's iommu_pgsize(), read as its source is: it takes the
 *    pages of the bitmap that divide iova | paddr (p divides both: as
 *    above) and fit in size; the next larger page size "next" ends a run
 *    only when (iova ^ paddr) & (next - 1) is 0, that is next divides
 *    paddr - iova (next <= c), and then both & (next - 1) is
 *    iova & (next - 1);
 *  - map and unmap move iova and paddr by the same amount, so paddr - iova
 *    stays as it was; unmap passes iova as paddr (paddr - iova = 0).
 * So one paddr per page p of the bitmap, paddr - iova = p (class c = p,
 * the largest page's class also holding 0), covers every paddr the domain
 * can be asked to map at that iova: the slow sweep tries each (and the
 * window below 1 GiB each 2^52 further, which every page divides).
 */
static unsigned int paddr_classes(unsigned long long bitmap,
				  unsigned long long *apart)
{
	unsigned int n = 0;

	apart[n++] = 0;
	for (; bitmap; bitmap &= bitmap - 1)
		apart[n++] = bitmap & -bitmap;
	return n;
}

/* Addresses of the sweep window, per format, in granules and big pages. */
static void sweep_window(enum sim_iommu_format_id fmt,
			 unsigned long long iova_base,
			 unsigned long long paddr_base)
{
	const struct sim_iommu_format *f = sim_iommu_format(fmt);
	const unsigned long long g = 1ULL << f->granule_shift;
	unsigned long long bitmap = f->pgsize_bitmap;
	/* The second page size (2M for 4K formats, 32M, 512M; 8K on amd-v1). */
	unsigned long long big = 1ULL << __builtin_ctzll(bitmap & (bitmap - 1));
	/* Window of 2 big pages for the 4K-granule formats, fewer steps else. */
	unsigned long long window = big < SZ_2M ? SZ_4M : 2 * big;
	/* Every granule of 4M for 4K formats; the others walk 2048/8192
	 * granules per big page, so they take fewer iova steps (every granule
	 * in the slow sweep). */
	unsigned long long step = slow_sweep ? g : window / (g == SZ_4K ? 1024 : 64);
	const unsigned long long paddrs[] = {
		0, g, 2 * g, big - g, big, big + g, 3 * big / 2, 2 * big - g,
	};
	const unsigned long long sizes[] = {
		g, 3 * g, big - g, big, big + g, 2 * big + 3 * g,
	};
	unsigned long long apart[65];
	unsigned int np = slow_sweep ? paddr_classes(bitmap, apart) : 8;
	/* The slow sweep's paddr far away: 2^52 further. */
	unsigned long long far = paddr_base > iova_base ? 1ULL << 52 : 0;

	if (step < g)
		step = g;
	step &= ~(g - 1);
	for (unsigned long long off = 0; off < window; off += step) {
		for (unsigned int p = 0; p < np; p++) {
			unsigned long long paddr = slow_sweep ?
				iova_base + off + apart[p] + far :
				paddr_base + paddrs[p];

			for (size_t s = 0; s < ARRAY_SIZE(sizes); s++)
				check_map_and_unmap(bitmap, iova_base + off,
						    paddr, sizes[s]);
		}
	}
}

/*
 * Every format, iova over a window of two big pages, paddr at every
 * alignment relative to it (--slow: every class of paddr), sizes around
 * the big page.
 *  IOVA 0          big         2*big
 *       |..........|...........|     iova every step, x 8 paddrs x 6 sizes
 */
static void test_sweep_every_format_against_reference(void **state)
{
	for (int fmt = 0; fmt < SIM_NR_IOMMU_FORMATS; fmt++) {
		boot_device_of_format(fmt, 1);
		sweep_window(fmt, 0, 0);
		/* The same window just below a 1 GiB boundary, paddr far away. */
		sweep_window(fmt, SZ_1G - SZ_4M, 5 * SZ_1G - SZ_4M);
		tear_down();
	}
	assert_true(cases_checked > 0);
}

/*
 * Ranges of a GiB and more, where 1G pages appear, with iova and paddr
 * co-aligned for 2M (so the reference walk stays short) and not for 1G.
 *  IOVA 1G-6M   1G                2G           2G+6M
 *       |2M 2M 2M|------ 1G ------|2M 2M 2M|4K..|
 */
static void test_gigabyte_ranges_against_reference(void **state)
{
	static const struct {
		unsigned long long iova, paddr, size;
	} cases[] = {
		{ SZ_1G - 3 * SZ_2M, 3 * SZ_1G - 3 * SZ_2M, SZ_1G + 6 * SZ_2M + 5 * SZ_4K },
		{ SZ_1G - 3 * SZ_2M, 3 * SZ_1G - SZ_2M, SZ_1G + 6 * SZ_2M },
		{ SZ_1G - SZ_4K, SZ_1G - SZ_4K, 3 * SZ_1G + 2 * SZ_4K },
		{ 0, 0, 4 * SZ_1G },
		{ SZ_2M, 7 * SZ_2M, 2 * SZ_1G },
	};

	for (int fmt = 0; fmt < SIM_NR_IOMMU_FORMATS; fmt++) {
		unsigned long long g = 1ULL << sim_iommu_format(fmt)->granule_shift;

		if (fmt == SIM_IOMMU_ARM_LPAE_64K || fmt == SIM_IOMMU_ARM_LPAE_16K)
			continue;	/* no 1G page: covered by the window sweep */
		boot_device_of_format(fmt, 1);
		for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
			check_map_and_unmap(sim_iommu_format(fmt)->pgsize_bitmap,
					    cases[i].iova, cases[i].paddr,
					    cases[i].size & ~(g - 1));
		tear_down();
	}
}

/*
 * amd-v1 has a 64-bit aperture: ranges ending at 2^64 - 1 map in calls
 * that never exceed what is left, at every alignment.
 *  IOVA 2^64 - size                                 2^64 - 1
 *       |------------------------------------------|
 */
static void test_top_of_the_64bit_space(void **state)
{
	static const unsigned long long sizes[] = {
		SZ_4K, 3 * SZ_4K, SZ_2M + SZ_4K, SZ_1G + SZ_2M + 3 * SZ_4K,
		1ULL << 51, (1ULL << 52) + (1ULL << 39) + SZ_2M,
	};
	static const unsigned long long paddr_offsets[] = {
		0, SZ_4K, SZ_2M, 1ULL << 39,
	};

	boot_device_of_format(SIM_IOMMU_AMD_V1, 1);
	assert_int_equal(kapi_iommu_aperture_end(domain), ~0ULL);
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		for (size_t p = 0; p < ARRAY_SIZE(paddr_offsets); p++) {
			unsigned long long size = sizes[s];
			unsigned long long iova = 0ULL - size;
			/* Same offset as iova within 2^53, plus the offset. */
			unsigned long long paddr = (1ULL << 53) - size +
						   paddr_offsets[p];

			check_map_and_unmap(sim_iommu_format(SIM_IOMMU_AMD_V1)->pgsize_bitmap,
					    iova, paddr, size);
		}
	}
	tear_down();
}

/*
 * A bitmap with the top bit set: the distance to the next 2^63 boundary
 * plus 2^63 overflows, and must not truncate the run (pgsize * count would
 * then exceed the size).
 */
static void test_boundary_overflow_does_not_truncate(void **state)
{
	const unsigned long long bitmap = SZ_4K | (1ULL << 63);
	static const struct {
		unsigned long long iova, paddr, size;
	} cases[] = {
		{ 1ULL << 63, 1ULL << 63, 2 * SZ_4K },
		{ 0, 0, 3 * SZ_4K },
		{ 0, 1ULL << 63, 5 * SZ_4K },
		{ (1ULL << 63) - SZ_4K, (1ULL << 63) - SZ_4K, 2 * SZ_4K },
		{ 0ULL - 2 * SZ_4K, 0ULL - 2 * SZ_4K, 2 * SZ_4K },
	};

	boot_device_of_format(SIM_IOMMU_AMD_V1, 1);
	kapi_iommu_set_pgsize_bitmap(domain, bitmap);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_map_and_unmap(bitmap, cases[i].iova, cases[i].paddr,
				    cases[i].size);
	tear_down();
}

/*
 * A bitmap whose smallest page is one byte (bit 0; no driver has one, the
 * core allows it): odd addresses and sizes map as the reference says, a
 * run of bytes stops where both addresses reach the next page together
 * and not where only one does, and a map (by its IOVA or its physical
 * address) or an unmap one byte past 2^64 is refused, nothing done (core;
 * a kernel core passes it to the driver: DMASIM_IMPL_IOMMU_MAP_REFUSES_WRAP).
 */
static void test_one_byte_pages_against_reference(void **state)
{
	const unsigned long long bitmap = 1 | SZ_4K;
	static const struct {
		unsigned long long iova, paddr, size;
	} cases[] = {
		{ 1, 1, 3 * SZ_4K },		/* bytes to 4K, then pages */
		{ 0, 1, 2 * SZ_4K + 1 },	/* apart by a byte: all bytes */
		{ 1, 3, 2 * SZ_4K },		/* apart by two bytes */
		{ SZ_4K, SZ_4K, 3 * SZ_4K },	/* whole pages only */
		{ SZ_4K, SZ_4K, 3 * SZ_4K + 7 },
	};

	boot_device_of_format(SIM_IOMMU_AMD_V1, 1);
	kapi_iommu_set_pgsize_bitmap(domain, bitmap);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_map_and_unmap(bitmap, cases[i].iova, cases[i].paddr,
				    cases[i].size);
	/*
	 * Past 2^64: core refuses before the driver; a kernel core that
	 * passes the range on (DMASIM_IMPL_IOMMU_MAP_REFUSES_WRAP 0, 6.12)
	 * leaves it to the driver, and no real driver has byte pages to
	 * say what it would do: checked where core's check is compiled.
	 */
	if (DMASIM_IMPL_IOMMU_MAP_REFUSES_WRAP) {
		assert_int_equal(kapi_iommu_map(domain, 0ULL - SZ_4K, SZ_4K,
						SZ_4K + 1, RW), -EINVAL);
		assert_int_equal(kapi_iommu_map(domain, SZ_4K, 0ULL - SZ_4K,
						SZ_4K + 1, RW), -EINVAL);
		assert_int_equal(kapi_iommu_unmap(domain, 0ULL - SZ_4K,
						  SZ_4K + 1), 0);
		assert_int_equal(kapi_iommu_unmap(domain, 0ULL - SZ_4K, SZ_4K),
				 SZ_4K);
	}
	tear_down();
}

/* Random ranges over a 2^40 space, every format, seeded. */
static void test_random_ranges_against_reference(void **state)
{
	unsigned long long seed = 0x10a1;

	for (int fmt = 0; fmt < SIM_NR_IOMMU_FORMATS; fmt++) {
		const struct sim_iommu_format *f = sim_iommu_format(fmt);
		unsigned long long g = 1ULL << f->granule_shift;
		unsigned int n = slow_sweep ? 200000 : 5000;

		boot_device_of_format(fmt, 1);
		for (unsigned int i = 0; i < n; i++) {
			unsigned long long r = sim_rand_next(&seed);
			unsigned long long iova = sim_rand_next(&seed) &
						  ((1ULL << 40) - 1) & ~(g - 1);
			/* Share the low k bits of iova: co-aligned up to 2^k. */
			unsigned int k = f->granule_shift + r % 30;
			unsigned long long low = (1ULL << k) - 1;
			unsigned long long paddr = ((sim_rand_next(&seed) &
						    ((1ULL << 40) - 1)) & ~low) |
						   (iova & low);
			/* Up to 512 of the largest page it allows: a short walk. */
			unsigned long long cap = largest_page_that_fits(
				f->pgsize_bitmap, 0, 0, 1ULL << k);
			unsigned long long size =
				(sim_rand_next(&seed) % (512 * cap / g) + 1) * g;

			check_map_and_unmap(f->pgsize_bitmap, iova, paddr, size);
		}
		tear_down();
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worked_example_4k_2m_1g),
		cmocka_unit_test(test_sweep_every_format_against_reference),
		cmocka_unit_test(test_gigabyte_ranges_against_reference),
		cmocka_unit_test(test_top_of_the_64bit_space),
		cmocka_unit_test(test_boundary_overflow_does_not_truncate),
		cmocka_unit_test(test_one_byte_pages_against_reference),
		cmocka_unit_test(test_random_ranges_against_reference),
	};
	int ret;

	slow_sweep = argc > 1 && !strcmp(argv[1], "--slow");
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	fprintf(stderr, "%llu ranges checked against the reference\n",
		cases_checked);
	return ret;
}
