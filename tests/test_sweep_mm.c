// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fail-nth sweeps over the simulated kernel's memory management as the
 * code under test uses it: the page allocator and vmap (what the system
 * heap builds on), GUP pinning with locked_vm accounting (what type1's
 * pin loop does for anonymous and THP memory), and follow_pfnmap_start()
 * with fixup_user_fault() retries over a BAR (type1's pfnmap path).
 * Whatever call fails, the scenario returns an errno the kernel returns
 * there and teardown leaves no page, pin, charge, vmap or object behind.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_mm_page.h>
#include <dmasim/sim.h>

#include "shared.h"
#include "sweep.h"


/* ---- page allocator + vmap ------------------------------------------- */

/*
 * Chunks of orders 9, 8, 4, 0 (2M, 1M, 64K, 4K with 4K pages), as the
 * system heap takes them, a vmap of their pages, a vmalloc'd page array,
 * and one page from __get_free_page().
 */
static const unsigned int chunk_orders[] = { 9, 8, 4, 4, 0, 0, 0 };
#define NR_CHUNKS ARRAY_SIZE(chunk_orders)

static struct {
	struct sim_page *chunk[NR_CHUNKS];
	struct sim_page **pages;	/* vmalloc'd */
	void *vaddr;
	unsigned long free_page;
} pa;

static int start_with_no_pages(const void *param)
{
	memset(&pa, 0, sizeof(pa));
	return 0;
}

static unsigned long pages_in_chunks(void)
{
	unsigned long n = 0;

	for (size_t i = 0; i < NR_CHUNKS; i++)
		n += 1UL << chunk_orders[i];
	return n;
}

static int alloc_chunks_vmap_and_release(const void *param)
{
	unsigned int gfp = kapi_gfp("GFP_HIGHUSER") | kapi_gfp("__GFP_ZERO") |
			   kapi_gfp("__GFP_COMP");
	unsigned long n = 0, total = pages_in_chunks();

	for (size_t i = 0; i < NR_CHUNKS; i++) {
		pa.chunk[i] = kapi_alloc_pages(gfp, chunk_orders[i]);
		if (!pa.chunk[i])
			return -ENOMEM;
	}
	pa.pages = kapi_vmalloc(total * sizeof(*pa.pages));
	if (!pa.pages)
		return -ENOMEM;
	for (size_t i = 0; i < NR_CHUNKS; i++)
		for (unsigned long j = 0; j < 1UL << chunk_orders[i]; j++)
			pa.pages[n++] = sim_pfn_to_page(sim_page_to_pfn(pa.chunk[i]) + j);
	pa.vaddr = kapi_vmap(pa.pages, total);
	if (!pa.vaddr)
		return -ENOMEM;
	pa.free_page = kapi_get_zeroed_page(kapi_gfp("GFP_KERNEL"));
	if (!pa.free_page)
		return -ENOMEM;
	kapi_vunmap(pa.vaddr);
	pa.vaddr = NULL;
	return 0;
}

static void release_pages(const void *param)
{
	if (pa.free_page)
		kapi_free_pages(pa.free_page, 0);
	if (pa.vaddr)
		kapi_vunmap(pa.vaddr);
	kapi_vfree(pa.pages);
	for (size_t i = 0; i < NR_CHUNKS; i++)
		if (pa.chunk[i])
			kapi___free_pages(pa.chunk[i], chunk_orders[i]);
}

/* ---- GUP pins with locked_vm accounting ------------------------------ */

/*
 *  anon   [ a, a + 40 pages )                 4K pages, faulted by GUP
 *  THP    [ t, t + 2 PMD )  PMD aligned       two 2M folios
 *  anon   [ f, f + 1 page )                   faulted by fixup_user_fault
 *
 * Charge locked_vm for everything, pin in batches of 16 pages (type1's
 * batch is a page of pointers; 16 makes short batches happen; 1/32 of a
 * PMD with larger pages), touch f
 * with fixup_user_fault, then unpin and uncharge.
 */
/* 16 with 4 KiB pages; as many batches per PMD with larger pages. */
#define GUP_BATCH	(PAGES_PER_PMD / 32)
#define MAX_PINNED	(40 + 2 * PAGES_PER_PMD)
/* Room for the THP folios and the rest (PMD is 512 MiB with 64 KiB pages). */
#define GUP_RAM		(4 * PMD > 512 * MiB ? 4 * PMD : 512 * MiB)

static struct {
	struct kapi_proc *proc;
	unsigned long anon, thp, fix;
	unsigned long pfns[MAX_PINNED];
	unsigned long nr_pinned;
	long charged;
} gp;

static int map_region(enum kapi_mm_kind kind, unsigned long len,
		      unsigned long align, unsigned long *va)
{
	struct kapi_mm_map m = { .len = len, .kind = kind, .writable = 1,
				 .align = align };

	return kapi_mm_mmap(&m, va);
}

static int process_with_anon_and_thp(const void *param)
{
	memset(&gp, 0, sizeof(gp));
	gp.proc = kapi_proc_create();
	if (!gp.proc)
		return -1;
	kapi_mm_set_rlimit_memlock(GUP_RAM);
	if (map_region(KAPI_MM_ANON, 40 * PAGE, 0, &gp.anon) ||
	    map_region(KAPI_MM_THP, 2 * PMD, PMD, &gp.thp) ||
	    map_region(KAPI_MM_ANON, PAGE, 0, &gp.fix))
		return -1;
	return 0;
}

/* Pin [va, va + npages) in batches; a short batch continues after it. */
static int pin_range(unsigned long va, unsigned long npages)
{
	while (npages) {
		unsigned long n = npages < GUP_BATCH ? npages : GUP_BATCH;
		long got = kapi_mm_pin(va, n, 1, 1, gp.pfns + gp.nr_pinned);

		if (got < 0)
			return got;
		if (got == 0)
			return -EFAULT;	/* type1 since 6.15: 0 pages is -EFAULT */
		gp.nr_pinned += got;
		va += got * PAGE;
		npages -= got;
	}
	return 0;
}

static int charge_pin_fixup_unpin(const void *param)
{
	unsigned long total = MAX_PINNED;
	int unlocked, ret;

	ret = kapi_mm_account_locked_vm_killable(total, 0);
	if (ret)
		return ret;
	gp.charged = total;
	ret = pin_range(gp.anon, 40);
	if (!ret)
		ret = pin_range(gp.thp, 2 * PAGES_PER_PMD);
	if (!ret)
		ret = kapi_mm_fixup_user_fault(gp.fix, 1, &unlocked);
	if (ret)
		return ret;
	kapi_mm_unpin(gp.pfns, gp.nr_pinned, 1);
	gp.nr_pinned = 0;
	ret = kapi_mm_account_locked_vm_killable(-gp.charged, 0);
	if (!ret)
		gp.charged = 0;
	return ret;
}

static void unpin_uncharge_and_exit(const void *param)
{
	kapi_mm_unpin(gp.pfns, gp.nr_pinned, 0);
	if (gp.charged)
		kapi_mm_account_locked_vm_killable(-gp.charged, 0);
	if (kapi_mm_locked_vm())
		sweep_leak("pages of locked_vm", kapi_mm_locked_vm());
	kapi_proc_destroy(gp.proc);
}

/* ---- follow_pfnmap over a BAR ---------------------------------------- */

/*
 *  BAR   1 GiB, PUD aligned, mapped three times:
 *  [ p, p + 1G )        PUD leaves
 *  [ m, m + 8M )        PMD leaves
 *  [ s + 4K, ... 64 pages )  PTE leaves, not PMD aligned
 *
 * Each is walked as type1 does, one follow_pfnmap_start() per leaf; a
 * failed lookup is retried once after fixup_user_fault() (type1's
 * follow_fault_pfn()), and a second failure is the result.
 */
struct bar_mapping {
	unsigned int max_leaf;
	unsigned long len, misalign;
};

static const struct bar_mapping bar_mappings[] = {
	{ KAPI_MM_LEAF_PUD, PUD, 0 },
	{ KAPI_MM_LEAF_PMD, 4 * PMD, 0 },
	{ KAPI_MM_LEAF_PTE, 64 * PAGE, PAGE },
};
#define NR_BAR_MAPPINGS ARRAY_SIZE(bar_mappings)

static struct {
	struct kapi_proc *proc;
	unsigned long va[NR_BAR_MAPPINGS];
} pf;

static int process_with_bar_mappings(const void *param)
{
	unsigned long pfn = sim_bar_create(PUD, PUD, 0, 0);

	memset(&pf, 0, sizeof(pf));
	pf.proc = kapi_proc_create();
	if (!pf.proc || !pfn)
		return -1;
	for (size_t i = 0; i < NR_BAR_MAPPINGS; i++) {
		const struct bar_mapping *b = &bar_mappings[i];
		struct kapi_mm_map m = {
			.len = b->len, .kind = KAPI_MM_PFNMAP, .writable = 1,
			.populate = 1, .pfn = pfn, .max_leaf = b->max_leaf,
			.align = PUD, .misalign = b->misalign,
		};

		if (kapi_mm_mmap(&m, &pf.va[i]))
			return -1;
	}
	return 0;
}

static int walk_with_one_fixup_retry(unsigned long va, unsigned long npages)
{
	unsigned long done = 0;
	int retried = 0;

	while (done < npages) {
		unsigned long more = 0;
		unsigned long long sum;
		long ret = kapi_mm_pfnmap_walk(va + done * PAGE, npages - done,
					       1, &more, &sum);

		done += more;
		if (ret >= 0)
			continue;
		if (retried)
			return ret;
		ret = kapi_mm_fixup_user_fault(va + done * PAGE, 1, NULL);
		if (ret)
			return ret;
		retried = 1;
	}
	return 0;
}

static int walk_every_bar_mapping(const void *param)
{
	for (size_t i = 0; i < NR_BAR_MAPPINGS; i++) {
		int ret = walk_with_one_fixup_retry(pf.va[i],
						    bar_mappings[i].len / PAGE);

		if (ret)
			return ret;
	}
	return 0;
}

static void exit_process(const void *param)
{
	kapi_proc_destroy(pf.proc);
	sim_bars_reset();
}

/* ---- tests ------------------------------------------------------------ */

static const int enomem[] = { -ENOMEM, 0 };
/*
 * GUP -ENOMEM, fixup_user_fault -EFAULT, the killable charge or a SIGKILL
 * in GUP -EINTR, a refused FOLL_LONGTERM pin -EBUSY or -EOPNOTSUPP.
 */
static const int gup_errnos[] = { -ENOMEM, -EFAULT, -EINTR, -EBUSY,
				  -EOPNOTSUPP, 0 };
/*
 * follow_pfnmap_start -EINVAL, fixup_user_fault -EFAULT, or -EINTR (a
 * SIGKILL before its fault).
 */
static const int pfnmap_errnos[] = { -EINVAL, -EFAULT, -EINTR, 0 };

static int sweep_one(const struct sweep_scenario *s)
{
	struct sweep_result res;
	int ret = sweep_run(s, &res);

	assert_true(res.points > 0);
	return ret;
}

/* Page allocation, vmalloc, vmap and __get_free_page failures unwind. */
static void test_page_alloc_and_vmap_unwind(void **state)
{
	const struct sweep_scenario s = {
		.name = "page_alloc_vmap",
		.setup = start_with_no_pages,
		.run = alloc_chunks_vmap_and_release,
		.teardown = release_pages,
		.errnos = enomem,
	};

	assert_int_equal(sweep_one(&s), 0);
}

/* Charge, pin in batches, fixup: every failure unpins and uncharges. */
static void test_gup_pin_loop_unwinds(void **state)
{
	const struct sweep_scenario s = {
		.name = "gup_pin_anon_thp",
		.ram_bytes = GUP_RAM,
		.setup = process_with_anon_and_thp,
		.run = charge_pin_fixup_unpin,
		.teardown = unpin_uncharge_and_exit,
		.errnos = gup_errnos,
	};

	assert_int_equal(sweep_one(&s), 0);
}

/* pfnmap walks at every leaf size survive failed lookups and fixups. */
static void test_pfnmap_walk_unwinds(void **state)
{
	const struct sweep_scenario s = {
		.name = "follow_pfnmap_bar",
		.setup = process_with_bar_mappings,
		.run = walk_every_bar_mapping,
		.teardown = exit_process,
		.errnos = pfnmap_errnos,
	};

	assert_int_equal(sweep_one(&s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page_alloc_and_vmap_unwind),
		cmocka_unit_test(test_gup_pin_loop_unwinds),
		cmocka_unit_test(test_pfnmap_walk_unwinds),
	};

	/* The page walk under test, over the leaves each test builds. */
	kapi_mm_set_exact_pfnmap_leaves(1);
	return sweep_exit_status(cmocka_run_group_tests(tests, NULL, NULL), 0);
}
