// SPDX-License-Identifier: GPL-2.0-only
/*
 * Placement: the same scenarios with RAM, BARs, VMAs and IOVAs where a
 * machine rarely puts them (pfn 0, just below 4 GiB, the top of the
 * physical width, not aligned to a PMD or PUD; VMAs at the first and last
 * pages of user space; IOVAs at 0, in the top half of the 64-bit space and
 * at its last page), through VFIO type1 and follow_pfnmap.
 *
 * Per placement (one row of the table below):
 *
 *   phys:  [ RAM range(s) ]  ...  [ BAR ]       anywhere below 2^phys_bits
 *   va:    [ anon 64 pages ] [ THP 2 PMDs ] [ BAR vma, aligned alike ]
 *   iova:  anon at iova,  THP at iova_thp,  BAR at iova_bar
 *
 * Checked after every operation: the IOMMU translates every page to the
 * pfn the CPU maps (kapi_vfio_dev_check_translation, the one oracle), the
 * allocator hands out RAM of the placed ranges only, and unmaps leave no
 * leaf, pin or locked_vm behind.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include <dmasim/impl.h>
#include <dmasim/kapi.h>
#include <dmasim/kapi_iommu.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "known_bug.h"
#include "shared.h"
#include "sweep.h"

#define TOP52	(1ULL << 52)
#define TOP48	(1ULL << 48)
#define RW	KAPI_VFIO_DMA_MAP_RW
#define ANON_LEN	(64 * PAGE)
/* THP: 2 PMD folios with 4 KiB pages (THP_BLOCK, shared.h) */
#define THP_LEN		(2 * THP_BLOCK)

struct placement {
	const char *name;
	unsigned int phys_bits;			/* 0: 52 */
	struct sim_phys_range ram[3];
	unsigned long long bar, bar_len;	/* MMIO placed at exactly this */
	unsigned long long bar_dma_off;		/* DMA from this far into the BAR */
	unsigned long va_anon, va_thp, va_bar;
	enum sim_iommu_format_id fmt;
	unsigned long long iova_anon, iova_thp, iova_bar;
	int needs_iova_end_fix;		/* ends at the last IOVA (DMASIM_IMPL_UNMAP_REACHES_IOVA_END) */
	long map_errno;			/* what every MAP_DMA returns (0: success) */
};

static const struct placement placements[] = {
	{
		.name = "RAM at pfn 0, BAR above it, VMAs at the bottom of user space",
		.ram = { { .start = 0, .size = 256 * MiB } },
		.bar = 1 * GiB, .bar_len = 1 * GiB,
		.va_anon = PAGE, .va_thp = THP_LEN, .va_bar = 1 * GiB,
		.fmt = SIM_IOMMU_INTEL_SL,
		.iova_anon = 0, .iova_thp = THP_LEN, .iova_bar = 1 * GiB,
	},
	{
		.name = "RAM ending just below 4 GiB, BAR at physical page 0 (DMA from 2 MiB in)",
		.ram = { { .start = 4 * GiB - 256 * MiB, .size = 256 * MiB } },
		.bar = 0, .bar_len = 1 * GiB, .bar_dma_off = PMD,
		.va_anon = 4 * GiB - ANON_LEN, .va_thp = 4 * GiB,
		.va_bar = 8 * GiB,
		.fmt = SIM_IOMMU_INTEL_SL,
		.iova_anon = 4 * GiB - ANON_LEN, .iova_thp = 4 * GiB,
		.iova_bar = 8 * GiB + PMD,
	},
	{
		.name = "RAM and BAR at the top of 52 bits, VMAs at the top of user space",
		.ram = { { .start = TOP52 - 256 * MiB, .size = 256 * MiB } },
		.bar = TOP52 - 2 * GiB, .bar_len = 1 * GiB,
		.va_anon = SIM_TASK_SIZE - ANON_LEN,
		.va_thp = SIM_TASK_SIZE - 2 * GiB,
		.va_bar = SIM_TASK_SIZE - 8 * GiB - GiB + PAGE,
		.fmt = SIM_IOMMU_INTEL_SL,
		.iova_anon = TOP48 - ANON_LEN, .iova_thp = TOP48 - 2 * GiB,
		.iova_bar = TOP48 - 4 * GiB,
	},
	{
		.name = "two RAM ranges sharing a section, neither PMD aligned; BAR not PMD aligned",
		.ram = { { .start = 1 * GiB + 3 * PAGE, .size = 64 * MiB },
			 { .start = 1 * GiB + 64 * MiB + 19 * PAGE, .size = 300 * MiB } },
		.bar = 7 * GiB + 5 * PAGE, .bar_len = 6 * PMD,
		.va_anon = 64 * GiB + 7 * PAGE, .va_thp = 65 * GiB + PMD,
		.va_bar = 66 * GiB + 5 * PAGE,
		.fmt = SIM_IOMMU_AMD_V1,
		.iova_anon = 3 * PAGE, .iova_thp = 1ULL << 63,
		.iova_bar = (1ULL << 63) + GiB + 5 * PAGE,
	},
	{
		.name = "IOVAs at the top of the 64-bit space, the last page included",
		.ram = { { .start = 16 * GiB, .size = 512 * MiB } },
		.bar = 64 * GiB, .bar_len = 1 * GiB,
		.va_anon = 4 * GiB, .va_thp = 5 * GiB, .va_bar = 7 * GiB,
		.fmt = SIM_IOMMU_AMD_V1,
		.iova_anon = 0 - ANON_LEN, .iova_thp = 0 - 4 * GiB,
		.iova_bar = 0 - 2 * GiB,
		.needs_iova_end_fix = 1,
	},
	{
		.name = "arm-lpae-4k: RAM at the top of its 48-bit output",
		.phys_bits = 48,
		.ram = { { .start = TOP48 - 256 * MiB, .size = 256 * MiB } },
		.bar = TOP48 - 2 * GiB, .bar_len = 1 * GiB,
		.va_anon = 4 * GiB, .va_thp = 5 * GiB, .va_bar = 7 * GiB,
		.fmt = SIM_IOMMU_ARM_LPAE_4K,
		.iova_anon = 0, .iova_thp = 1 * GiB, .iova_bar = 2 * GiB,
	},
	{
		.name = "arm-lpae-4k: RAM above its 48-bit output is refused",
		.ram = { { .start = TOP52 - 256 * MiB, .size = 256 * MiB } },
		.bar = TOP52 - 2 * GiB, .bar_len = 1 * GiB,
		.va_anon = 4 * GiB, .va_thp = 5 * GiB, .va_bar = 7 * GiB,
		.fmt = SIM_IOMMU_ARM_LPAE_4K,
		.iova_anon = 0, .iova_thp = 1 * GiB, .iova_bar = 2 * GiB,
		.map_errno = -ERANGE,
	},
};

/* ---- helpers that read like sentences ---- */

static void boot_machine_placed(const struct placement *p)
{
	struct sim_config cfg = { .phys_bits = p->phys_bits };

	memcpy(cfg.ram, p->ram, sizeof(p->ram));
	assert_int_equal(sim_machine_init(&cfg), 0);
	assert_int_equal(kapi_boot(), 0);
	assert_non_null(kapi_proc_create());
	kapi_mm_set_cap_ipc_lock(1);
}

static void shut_machine_down(void)
{
	kapi_proc_destroy(kapi_proc_current());
	sim_machine_destroy();
}

static int pfn_is_in_placed_ram(const struct placement *p, unsigned long pfn)
{
	unsigned long long pa = (unsigned long long)pfn << SIM_PAGE_SHIFT;

	for (unsigned int i = 0; i < 3 && p->ram[i].size; i++)
		if (pa >= p->ram[i].start && pa < p->ram[i].start + p->ram[i].size)
			return 1;
	return 0;
}

/* pfn_valid is exact at each range's edges (holes inside a section excepted). */
static void assert_ram_edges_are_exact(const struct placement *p)
{
	for (unsigned int i = 0; i < 3 && p->ram[i].size; i++) {
		unsigned long first = p->ram[i].start >> SIM_PAGE_SHIFT;
		unsigned long end = (p->ram[i].start + p->ram[i].size) >> SIM_PAGE_SHIFT;

		assert_true(sim_pfn_valid(first));
		assert_true(sim_pfn_valid(end - 1));
		assert_ptr_equal(sim_pfn_to_page(end - 1), sim_pfn_to_page(first) + (end - 1 - first));
		assert_int_equal(sim_page_to_pfn(sim_pfn_to_page(end - 1)), end - 1);
		if (first && (i == 0 || !sim_pfn_valid(first - 1)))
			assert_false(sim_pfn_valid(first - 1));
		if (i + 1 == 3 || !p->ram[i + 1].size)
			assert_false(sim_pfn_valid(end));
	}
	assert_false(sim_pfn_valid((unsigned long)(p->bar >> SIM_PAGE_SHIFT)));
}

/* Blocks of every order come from the placed RAM, naturally aligned, and go back. */
static void assert_allocator_serves_placed_ram(const struct placement *p)
{
	unsigned long free_at_start = sim_buddy_nr_free();

	/* Only the zero page (taken with the first address space) is out. */
	assert_int_equal(free_at_start, sim_buddy_nr_managed() - 1);
	for (unsigned int order = 0; order <= SIM_MAX_ORDER; order++) {
		struct sim_page *page = sim_buddy_alloc(order, 0);
		unsigned long pfn;

		assert_non_null(page);
		pfn = sim_page_to_pfn(page);
		assert_true(pfn_is_in_placed_ram(p, pfn));
		assert_true(pfn_is_in_placed_ram(p, pfn + (1UL << order) - 1));
		assert_int_equal(pfn & ((1UL << order) - 1), 0);
		assert_int_not_equal(pfn, 0);
		memset(sim_page_address(page), 0xa5, PAGE);
		sim_buddy_free(page, order);
	}
	sim_buddy_drain_pcp();
	assert_int_equal(sim_buddy_nr_free(), free_at_start);
}

static unsigned long mmap_populated_or_not(unsigned long va, unsigned long len,
					   enum kapi_mm_kind kind,
					   unsigned long pfn, int populate)
{
	struct kapi_mm_map m = {
		.addr = va, .len = len, .kind = kind, .writable = 1,
		.populate = populate, .pfn = pfn, .max_leaf = KAPI_MM_LEAF_PUD,
	};
	unsigned long got;

	assert_int_equal(kapi_mm_mmap(&m, &got), 0);
	assert_int_equal(got, va);
	return got;
}

static unsigned long mmap_at(unsigned long va, unsigned long len,
			     enum kapi_mm_kind kind, unsigned long pfn)
{
	return mmap_populated_or_not(va, len, kind, pfn, 1);
}

/* MAP_DMA as the row expects; on success the oracle holds for the range. */
static void map_dma_and_check(const struct placement *p, struct kapi_vfio *c,
			      struct kapi_vfio_dev *dev, unsigned long va,
			      unsigned long long iova, unsigned long long len)
{
	unsigned long pins = kapi_mm_pins_outstanding();
	unsigned long long leaves = kapi_vfio_dev_nr_leaves(dev), bad = 0;

	long ret = kapi_vfio_map_dma(c, va, iova, len, RW);

	assert_int_equal(ret, p->map_errno);
	if (p->map_errno) {
		assert_int_equal(kapi_mm_pins_outstanding(), pins);
		assert_int_equal(kapi_vfio_dev_nr_leaves(dev), leaves);
		assert_int_equal(kapi_mm_locked_vm(), 0);
		return;
	}
	assert_int_equal(kapi_vfio_dev_check_translation(dev, iova, va, len, &bad), 0);
}

/* ---- the scenario, per placement ---- */

/*
 * Every placement: the machine boots with RAM where the row puts it, the
 * allocator serves only that RAM, a BAR sits exactly where asked, and
 * type1 maps anonymous, THP and BAR memory at the row's VMAs and IOVAs
 * with the IOMMU translating to the CPU's pfns, then unmaps everything.
 */
static void test_dma_at_every_placement(void **state)
{
	for (size_t i = 0; i < sizeof(placements) / sizeof(placements[0]); i++) {
		const struct placement *p = &placements[i];
		unsigned long bar_pfn = (unsigned long)(p->bar >> SIM_PAGE_SHIFT);
		unsigned long long warnings;
		struct kapi_vfio_dev *dev;
		struct kapi_vfio *c;
		struct kapi_pfnmap r;

		print_message("placement: %s\n", p->name);
		if (p->needs_iova_end_fix && !DMASIM_IMPL_UNMAP_REACHES_IOVA_END) {
			/*
			 * Known bug type1-iova-end-wraps: a DMA ending at the
			 * last IOVA can be neither unmapped nor unpinned (its
			 * end wraps to 0); tests/test_type1.c asserts it by
			 * name.
			 */
			print_message("  known bug type1-iova-end-wraps: skipped\n");
			continue;
		}
		boot_machine_placed(p);
		warnings = sim_kernel_warnings();
		assert_ram_edges_are_exact(p);
		assert_allocator_serves_placed_ram(p);
		assert_int_equal(sim_bar_place(p->bar, p->bar_len), 0);
		assert_int_equal(sim_bar_place(p->bar, PAGE), -EEXIST);
		assert_int_equal(sim_bar_place(p->ram[0].start, PAGE), -EEXIST);

		mmap_at(p->va_anon, ANON_LEN, KAPI_MM_ANON, 0);
		mmap_at(p->va_thp, THP_LEN, KAPI_MM_THP, 0);
		mmap_at(p->va_bar, p->bar_len, KAPI_MM_PFNMAP, bar_pfn);
		assert_int_equal(kapi_mm_follow_pfnmap(p->va_bar, &r), 0);
		assert_int_equal(r.pfn, bar_pfn);
		assert_int_equal(kapi_mm_follow_pfnmap(p->va_bar + p->bar_len - PAGE, &r), 0);
		assert_int_equal(r.pfn, bar_pfn + p->bar_len / PAGE - 1);

		assert_int_equal(kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &c), 0);
		assert_int_equal(kapi_vfio_attach_iommu_dev(c, p->fmt, &dev), 0);
		map_dma_and_check(p, c, dev, p->va_anon, p->iova_anon, ANON_LEN);
		map_dma_and_check(p, c, dev, p->va_thp, p->iova_thp, THP_LEN);
		map_dma_and_check(p, c, dev, p->va_bar + p->bar_dma_off, p->iova_bar,
				  p->bar_len - p->bar_dma_off);
		if (!p->map_errno) {
			assert_int_equal(kapi_mm_locked_vm(), (ANON_LEN + THP_LEN) / PAGE);
			assert_int_equal(kapi_mm_pins_outstanding(),
					 (ANON_LEN + THP_LEN) / PAGE);
		}
		assert_int_equal(kapi_vfio_unmap_dma(c, 0, 0, KAPI_VFIO_DMA_UNMAP_FLAG_ALL,
						     NULL), 0);
		assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
		assert_int_equal(kapi_mm_pins_outstanding(), 0);
		assert_int_equal(kapi_mm_locked_vm(), 0);
		kapi_vfio_close(c);
		assert_int_equal(sim_kernel_warnings(), warnings);
		shut_machine_down();
	}
}

/* A machine description that cannot be built is refused whole. */
static void test_bad_placements_are_refused(void **state)
{
	static const struct {
		const char *what;
		struct sim_config cfg;
	} bad[] = {
		{ "not page aligned", { .ram = { { .start = 100, .size = 1 * GiB } } } },
		{ "overlapping", { .ram = { { .start = 0, .size = 2 * GiB },
					    { .start = 1 * GiB, .size = 2 * GiB } } } },
		{ "descending", { .ram = { { .start = 4 * GiB, .size = 1 * GiB },
					   { .start = 0, .size = 1 * GiB } } } },
		{ "past the physical width", { .ram = { { .start = TOP52 - GiB, .size = 2 * GiB } } } },
		{ "past a 40-bit width", { .phys_bits = 40,
					   .ram = { { .start = 1ULL << 40, .size = 1 * GiB } } } },
		{ "a width above 52 bits", { .phys_bits = 53, .ram_bytes = GiB } },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("bad: %s\n", bad[i].what);
		assert_int_equal(sim_machine_init(&bad[i].cfg), -EINVAL);
	}
}

/* MMIO placed by hand: inside the width, page aligned, never over RAM or another BAR. */
static void test_bar_place_checks_its_range(void **state)
{
	struct sim_config cfg = { .ram = { { .start = 4 * GiB, .size = 1 * GiB } } };

	assert_int_equal(sim_machine_init(&cfg), 0);
	assert_int_equal(sim_bar_place(0, PAGE), 0);
	assert_int_equal(sim_bar_place(8 * GiB, PAGE), 0);
	assert_int_equal(sim_bar_place(TOP52 - PAGE, PAGE), 0);
	assert_int_equal(sim_bar_place(TOP52, PAGE), -ERANGE);
	assert_int_equal(sim_bar_place(TOP52 - PAGE, 2 * PAGE), -ERANGE);
	assert_int_equal(sim_bar_place(PAGE + 1, PAGE), -EINVAL);
	assert_int_equal(sim_bar_place(PAGE, 0), -EINVAL);
	assert_int_equal(sim_bar_place(5 * GiB - PAGE, 2 * PAGE), -EEXIST);
	assert_int_equal(sim_bar_place(0, 2 * PAGE), -EEXIST);
	assert_int_equal(sim_bar_place(PAGE, PAGE), 0);
	/* Automatic placement goes around RAM and the BARs placed by hand. */
	assert_int_equal(sim_bar_create(1 * GiB, 0, 0, 0), (5 * GiB) >> SIM_PAGE_SHIFT);
	assert_false(sim_pfn_valid(0));
	sim_machine_destroy();
}

/* RAM at the top of the width costs host memory for its sections only. */
static void test_far_apart_ram_costs_only_its_sections(void **state)
{
	struct sim_config cfg = {
		.ram = { { .start = 0, .size = 128 * MiB },
			 { .start = TOP52 - 128 * MiB, .size = 128 * MiB } },
	};
	unsigned long long host;

	assert_int_equal(sim_machine_init(&cfg), 0);
	assert_int_equal(sim_ram_bytes(), 256 * MiB);
	host = sim_mem_host_bytes();
	/* Two sections' memmap (2 MiB each) at most, plus table pages. */
	assert_true(host < 16 * MiB);
	assert_true(sim_pfn_valid((TOP52 >> SIM_PAGE_SHIFT) - 1));
	assert_false(sim_pfn_valid((TOP52 >> SIM_PAGE_SHIFT) / 2));
	sim_machine_destroy();
}

/*
 *   va:    [ anon, remapped after MAP_DMA ]   iova 0
 *
 * The oracle is not vacuous: once the VMA under a DMA is replaced, the
 * CPU maps new pages there while the IOMMU keeps the pinned ones, and it
 * says so at the first page; a hole on either side is reported too.
 */
static void test_the_oracle_sees_a_stale_mapping(void **state)
{
	static const struct placement p = {
		.ram = { { .start = 0, .size = 256 * MiB } },
	};
	unsigned long long bad = 1;
	struct kapi_vfio_dev *dev;
	struct kapi_vfio *c;

	boot_machine_placed(&p);
	mmap_at(4 * GiB, ANON_LEN, KAPI_MM_ANON, 0);
	assert_int_equal(kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &c), 0);
	assert_int_equal(kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_INTEL_SL, &dev), 0);
	map_dma_and_check(&p, c, dev, 4 * GiB, 0, ANON_LEN);
	assert_int_equal(kapi_mm_munmap(4 * GiB), 0);
	assert_int_equal(kapi_vfio_dev_check_translation(dev, 0, 4 * GiB, ANON_LEN, &bad),
			 -EFAULT);
	assert_int_equal(bad, 0);
	mmap_at(4 * GiB, ANON_LEN, KAPI_MM_ANON, 0);
	assert_int_equal(kapi_vfio_dev_check_translation(dev, 0, 4 * GiB, ANON_LEN, &bad),
			 -EILSEQ);
	assert_int_equal(kapi_vfio_dev_check_translation(dev, ANON_LEN, 4 * GiB, PAGE, &bad),
			 -ENOENT);
	kapi_vfio_close(c);
	shut_machine_down();
}

/*
 *   va:    [ anon VMA over the host stack this test runs on ]
 *
 * The simulated user space spans the host's: a VMA placed over the
 * memory where the kapi builds an ioctl's argument struct must not
 * capture the copy_from_user() of that struct (the shim used to read the
 * VMA's zero page instead, and MAP_DMA failed with -EINVAL or -EFAULT as
 * the host's stack address varied).  The DMA runs on a thread whose stack
 * this test places inside the simulated user space (the main thread's
 * stack is wherever ASLR put it, now and then above SIM_TASK_SIZE - 16 MiB,
 * where no VMA of 16 MiB around it fits), so it runs every time.
 */
#define HOST_STACK_LEN	(2 * MiB)

struct dma_on_a_stack {
	unsigned long stack;	/* the host stack: [stack, stack + HOST_STACK_LEN) */
	unsigned long vma;	/* the anon VMA over it: [vma, vma + 16 MiB) */
	struct kapi_proc *proc;
	int failed_step;
};

/* 0 when it all holds, else the first step that did not (no cmocka off the main thread). */
static int a_dma_whose_arguments_lie_under_a_vma(struct dma_on_a_stack *d)
{
	struct kapi_mm_map m = {
		.addr = SIM_USER_BASE, .len = ANON_LEN, .kind = KAPI_MM_ANON,
		.writable = 1, .populate = 1, .max_leaf = KAPI_MM_LEAF_PUD,
	};
	volatile char marker = 1;
	unsigned long here = (unsigned long)&marker, va;
	unsigned long long bad = 0;
	struct kapi_vfio_dev *dev;
	struct kapi_vfio *c;

	kapi_proc_set_current(d->proc);
	if (here - d->vma >= 16 * MiB)
		return 1;	/* this frame is not under the VMA: nothing tested */
	if (kapi_mm_mmap(&m, &va) || va != SIM_USER_BASE)
		return 2;
	if (kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &c) ||
	    kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_INTEL_SL, &dev))
		return 3;
	if (kapi_vfio_map_dma(c, va, 0, ANON_LEN, RW) ||
	    kapi_vfio_dev_check_translation(dev, 0, va, ANON_LEN, &bad))
		return 4;
	if (kapi_vfio_unmap_dma(c, 0, ANON_LEN, 0, NULL) ||
	    kapi_vfio_dev_nr_leaves(dev) || kapi_mm_pins_outstanding())
		return 5;
	kapi_vfio_close(c);
	return 0;
}

static void *dma_on_a_stack_thread(void *arg)
{
	struct dma_on_a_stack *d = arg;

	d->failed_step = a_dma_whose_arguments_lie_under_a_vma(d);
	return NULL;
}

static void test_a_vma_over_the_host_stack_keeps_ioctl_arguments(void **state)
{
	static const struct placement p = {
		.ram = { { .start = 0, .size = 256 * MiB } },
	};
	struct dma_on_a_stack d = { .failed_step = -1 };
	pthread_attr_t attr;
	pthread_t thread;
	void *stack = MAP_FAILED;

	/*
	 * The first of these the host has free (MAP_FIXED_NOREPLACE takes no
	 * mapping's place; a kernel before 4.17 takes it as a hint).
	 */
	for (unsigned long at = 1UL << 40; at <= SIM_TASK_SIZE / 2; at <<= 1) {
		stack = mmap((void *)at, HOST_STACK_LEN, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (stack == (void *)at)
			break;
		if (stack != MAP_FAILED)
			munmap(stack, HOST_STACK_LEN);
		stack = MAP_FAILED;
	}
	assert_ptr_not_equal(stack, MAP_FAILED);
	d.stack = (unsigned long)stack;
	/* 16 MiB (8 PMDs with 4 KiB pages) of the 256 MiB machine, the stack inside */
	d.vma = d.stack - 8 * MiB;
	assert_true(d.vma >= SIM_USER_BASE && d.vma + 16 * MiB <= SIM_TASK_SIZE);

	boot_machine_placed(&p);
	d.proc = kapi_proc_current();
	mmap_at(d.vma, 16 * MiB, KAPI_MM_ANON, 0);
	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setstack(&attr, stack, HOST_STACK_LEN), 0);
	assert_int_equal(pthread_create(&thread, &attr, dma_on_a_stack_thread, &d), 0);
	assert_int_equal(pthread_join(thread, NULL), 0);
	pthread_attr_destroy(&attr);
	assert_int_equal(d.failed_step, 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	shut_machine_down();
	assert_int_equal(munmap(stack, HOST_STACK_LEN), 0);
}

/*
 *   phys:  [ BAR page at physical address 0 ] ... RAM below 4 GiB ... [ BAR page at 8 GiB ]
 *   va:    [ THP 2 MiB ][ BAR page 0 ][ anon 2 MiB ][ BAR page 8 GiB ][ hole 2 MiB ]
 *   iova:  0 ...
 *
 * A DMA over a BAR page at physical address 0 between pinned memory:
 *  1. with an IOMMU device, MAP_DMA of all but the hole maps each page to the
 *     pfn the CPU maps (pfn 0 included) and UNMAP_DMA gives every pin
 *     back; the BAR page's leaf stays, with one WARN (type1, as Linux's,
 *     probes the IOMMU for what to unmap, and physical address 0 reads
 *     as "nothing mapped": vfio_unmap_unpin()'s WARN_ON(!phys));
 *  2. with only an emulated device, MAP_DMA of all five pins nothing;
 *     attaching an IOMMU device replays it (pins and maps the THP, BAR
 *     page 0, the anon pages, which the second BAR page ends as a run),
 *     fails at the hole (-EFAULT) and unwinds run by run.  Physical address 0 reads as "unmapped", so the unwind steps
 *     over that one page, and must still find and unpin every anon page
 *     after it: no pin, no charge stays.
 * 0 when all of that holds, else the number of the first step that did
 * not (no cmocka assertion: it runs in a child process too).
 * Known bug type1-pfn0-run-base: the run that starts at pfn 0 takes the
 * anon pages' first pfn as its base when the batch is refilled, and the
 * BAR page's IOVA maps that RAM page (which then is unpinned twice): that
 * tree runs it in a child process, whose failure is the expected one.
 */
static int a_dma_over_physical_address_0_maps_and_unwinds(void *arg)
{
	unsigned long va = *(unsigned long *)arg;
	unsigned long pins = kapi_mm_pins_outstanding();
	unsigned long long warnings = sim_kernel_warnings();
	unsigned long long len = 2 * THP_BLOCK + 2 * PAGE, bad = 0;
	struct kapi_vfio_dev *dev;
	struct kapi_vfio *c;

	if (kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &c) ||
	    kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_INTEL_SL, &dev) ||
	    kapi_vfio_map_dma(c, va, 0, len, RW))
		return 1;
	if (kapi_vfio_dev_check_translation(dev, 0, va, len, &bad))
		return 2;
	/* The BAR page's leaves stay: one per 4 KiB IOMMU page of a CPU page. */
	if (kapi_vfio_unmap_dma(c, 0, len, 0, NULL) ||
	    kapi_vfio_dev_nr_leaves(dev) != PAGE / SZ_4K ||
	    sim_kernel_warnings() != warnings + 1 ||
	    kapi_mm_pins_outstanding() != pins || kapi_mm_locked_vm())
		return 3;
	kapi_vfio_close(c);

	if (kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &c) ||
	    !attach_an_emulated_device(c) ||
	    kapi_vfio_map_dma(c, va, 0, len + THP_BLOCK, RW))
		return 4;
	if (kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_INTEL_SL, &dev) != -EFAULT)
		return 5;
	if (kapi_mm_pins_outstanding() != pins || kapi_mm_locked_vm() ||
	    sim_kernel_warnings() != warnings + 1)
		return 6;
	kapi_vfio_close(c);
	return 0;
}

static void test_a_bar_page_at_physical_address_0_maps_and_unwinds(void **state)
{
	static const struct placement p = {
		.ram = { { .start = 4 * GiB - 256 * MiB, .size = 256 * MiB } },
	};
	unsigned long va = 8 * GiB;

	boot_machine_placed(&p);
	assert_int_equal(sim_bar_place(0, PAGE), 0);
	assert_int_equal(sim_bar_place(8 * GiB, PAGE), 0);
	mmap_at(va, THP_BLOCK, KAPI_MM_THP, 0);
	mmap_at(va + THP_BLOCK, PAGE, KAPI_MM_PFNMAP, 0);
	mmap_at(va + THP_BLOCK + PAGE, THP_BLOCK, KAPI_MM_ANON, 0);
	mmap_at(va + 2 * THP_BLOCK + PAGE, PAGE, KAPI_MM_PFNMAP, 8 * GiB / PAGE);
	if (tree_has_known_bug(DMASIM_BUG_TYPE1_PFN0_RUN_BASE)) {
		assert_false(expect_known_bug(TYPE1_PFN0_RUN_BASE,
			returns_0_in_a_child(a_dma_over_physical_address_0_maps_and_unwinds,
					     &va)));
	} else {
		assert_int_equal(a_dma_over_physical_address_0_maps_and_unwinds(&va), 0);
	}
	shut_machine_down();
}

/*
 *   phys:  [ BAR page at physical address 0 ] ... RAM below 4 GiB
 *   va:    [ anon page ][ BAR page 0 ]   one DMA at iova 0
 *
 * A second IOMMU's domain is filled from the first domain's translations,
 * where physical address 0 reads as "nothing mapped" (as at UNMAP_DMA):
 * the replay WARNs once and steps over the BAR page to the DMA's end, so
 * the new domain maps the anon page to the CPU's pfn and nothing at the
 * BAR page's IOVA.  Closing the container unmaps the DMA with one more
 * WARN (the first domain's BAR page, as at UNMAP_DMA) and leaves nothing
 * pinned.
 */
static void test_a_replay_steps_over_physical_address_0(void **state)
{
	static const struct placement p = {
		.ram = { { .start = 4 * GiB - 256 * MiB, .size = 256 * MiB } },
	};
	unsigned long va = 8 * GiB, pfn, pins;
	unsigned long long warnings;
	struct kapi_vfio_dev *dev;
	struct kapi_vfio *c;

	boot_machine_placed(&p);
	assert_int_equal(sim_bar_place(0, PAGE), 0);
	mmap_at(va, PAGE, KAPI_MM_ANON, 0);
	mmap_at(va + PAGE, PAGE, KAPI_MM_PFNMAP, 0);
	pins = kapi_mm_pins_outstanding();
	assert_int_equal(kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &c), 0);
	assert_int_equal(kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_INTEL_SL, &dev), 0);
	assert_int_equal(kapi_vfio_map_dma(c, va, 0, 2 * PAGE, RW), 0);
	assert_int_equal(kapi_vfio_dev_check_translation(dev, 0, va, 2 * PAGE,
							 NULL), 0);

	warnings = sim_kernel_warnings();
	assert_int_equal(kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_AMD_V1, &dev), 0);
	assert_int_equal(sim_kernel_warnings(), warnings + 1);
	assert_int_equal(kapi_vfio_dev_check_translation(dev, 0, va, PAGE, NULL), 0);
	assert_int_equal(kapi_vfio_dev_iova_to_pfn(dev, PAGE, &pfn), -ENOENT);
	kapi_vfio_close(c);
	assert_int_equal(sim_kernel_warnings(), warnings + 2);
	assert_int_equal(kapi_mm_pins_outstanding(), pins);
	shut_machine_down();
}

/* ---- sizes beyond RAM ---- */

/*
 * --slow: the 8 TiB maps too (several seconds of CPU each, see big_maps);
 * with --part K/N (tests/sweep.h) this process takes every Nth of the
 * rows only --slow runs, from the Kth, so meson runs them at once.
 */
static int slow_run;

#define BIG_BAR	(16 * TiB)		/* physical base, 1 GiB aligned */
#define BIG_VA	(16 * TiB)		/* user address, aligned alike */
#define BIG_PAGES	((1ULL << 31) + 1)	/* one page past 2^31 */
/*
 * With 64 KiB pages 2^31 pages are 128 TiB, more than the 47-bit user
 * space holds: the BAR's VMA is then what fits above BIG_VA, and the rows
 * that need 2^31 pages of it are not run.
 */
#define BIG_FITS	(BIG_VA + BIG_PAGES * PAGE <= SIM_TASK_SIZE)
#define BIG_VMA_PAGES	(BIG_FITS ? BIG_PAGES : (SIM_TASK_SIZE - BIG_VA) / PAGE)
#define WRAP_ERRNO (DMASIM_IMPL_IOVA_END_OVERFLOW_FIXES ? -EOVERFLOW : -EINVAL)

static const struct big_map {
	const char *what;
	unsigned long long vaddr_off, iova, size;
	long want;
	/*
	 * 1: --slow only (type1's unmap asks the IOMMU page by page);
	 * 2: --slow only for a tree without the pfnmap stride, which looks
	 *    up the BAR's 2^31 pages one at a time before it fails.
	 */
	int slow;
	int needs_big;	/* needs a VMA of BIG_PAGES (BIG_FITS) */
	/*
	 * Mapped and unmapped with core's unmap_stride on, where the kernel
	 * under test has it (docs/next-bottleneck.md): its run notes at
	 * 2^31 pages, and then no probe.
	 */
	int stride;
} big_maps[] = {
	{ "the whole 2^31+1-page BAR", 0, 16 * TiB, BIG_PAGES * PAGE, 0, 1, 1, 0 },
	{ "2^31 pages (8 TiB), unmap_stride on", 0, 16 * TiB, (1ULL << 31) * PAGE, 0, 1, 1, 1 },
	{ "4 GiB less a page", PAGE, 0, 4 * GiB - PAGE, 0, 0, 0, 0 },
	{ "4 GiB", 0, 4 * GiB, 4 * GiB, 0, 0, 0, 0 },
	{ "4 GiB and a page, from the last page of 4 GiB", 4 * GiB - PAGE, 4 * GiB - PAGE,
	  4 * GiB + PAGE, 0, 0, 0, 0 },
	{ "2^32 pages: past the VMA's end", 0, 16 * TiB, (1ULL << 32) * PAGE, -EFAULT, 2, 1, 0 },
	{ "one page past the VMA's end", 0, 16 * TiB, (BIG_VMA_PAGES + 1) * PAGE, -EFAULT, 2, 0, 0 },
	{ "2^64 less a page: vaddr + size wraps", 0, 0, 0 - PAGE, WRAP_ERRNO, 0, 0, 0 },
	{ "2^63: iova + size leaves the aperture", 0, 0, 1ULL << 63, -EINVAL, 0, 0, 0 },
};

/*
 *   phys:  [ BAR of 2^31 + 1 pages at 16 TiB ]      no RAM behind it
 *   va:    [ pfnmap of all of it at 16 TiB, 1 GiB leaves and one 4K leaf ]
 *
 * MAP_DMA requests whose sizes sit at the 32-bit and 64-bit edges of the
 * code's own arithmetic (type1's npage, iova + size, long counters): each
 * maps exactly its range with the oracle holding and unmaps its size back,
 * or fails with the kernel's errno and leaves no leaf behind.  The maps of
 * 2^31 pages and more run with --slow (suite slow).  Mainline type1's
 * unmap finds physically contiguous runs with one iommu_iova_to_phys() per
 * page, whatever the leaf size (counted here: one probe a page), then
 * put_pfn()s each pfn: 2^31 + 1 of each for the first row, nearly all of
 * its CPU (5-8 s here), the kernel's own loops; per page the simulator
 * adds the IOMMU's last-leaf memo and pfn_valid() with their counts
 * (docs/vfio-type1.md, "dmasim bar").  The 2^31-page row maps and unmaps
 * with core's unmap_stride on (where the kernel has it; upstream trees
 * run it as mainline): the runs' notes at exactly INT_MIN pages as an int
 * count, and no probe.  Neither row repeats the other: 2^31 pages is
 * exactly INT_MIN, 2^31 + 1 is past it and ends in the BAR's 4 KiB leaf
 * after 2^13 PUD leaves; a page count or size cut to 32 bits in mainline's
 * unmap fails the first row as it would the second (negative, or a size
 * of a page), so the second need not run mainline's loops again.
 */
static void test_dma_sizes_at_the_32_and_64_bit_edges(void **state)
{
	static const struct placement p = {
		.ram = { { .start = 0, .size = 256 * MiB } },
	};
	struct kapi_vfio_dev *dev;
	struct kapi_vfio *c;

	boot_machine_placed(&p);
	assert_int_equal(sim_bar_place(BIG_BAR, BIG_VMA_PAGES * PAGE), 0);
	/*
	 * Populated, the BAR is 2^13 PUD leaves; a tree that faults pfnmaps
	 * with PTEs alone (6.1, DMASIM_IMPL_PFNMAP_HUGE_LEAVES) would need
	 * 16 GiB of page tables for it, so there it is left to type1's fixup
	 * faults, which map what each DMA covers.
	 */
	mmap_populated_or_not(BIG_VA, BIG_VMA_PAGES * PAGE, KAPI_MM_PFNMAP,
			      BIG_BAR >> SIM_PAGE_SHIFT,
			      DMASIM_IMPL_PFNMAP_HUGE_LEAVES);
	assert_int_equal(kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &c), 0);
	assert_int_equal(kapi_vfio_attach_iommu_dev(c, SIM_IOMMU_INTEL_SL, &dev), 0);
	for (size_t i = 0; i < sizeof(big_maps) / sizeof(big_maps[0]); i++) {
		const struct big_map *m = &big_maps[i];
		unsigned long long unmapped = 0, bad = 0;
		struct sim_counters before;
		int was;

		int slow_only = m->slow == 1 ||
				(m->slow == 2 && !DMASIM_IMPL_PFNMAP_STRIDE);

		if ((m->needs_big && !BIG_FITS) || (slow_only && !slow_run) ||
		    (slow_only && !sweep_take_turn()))
			continue;
		print_message("size: %s\n", m->what);
		was = unmap_stride_set(m->stride);
		assert_int_equal(kapi_vfio_map_dma(c, BIG_VA + m->vaddr_off, m->iova,
						   m->size, RW), m->want);
		if (!m->want) {
			assert_int_equal(kapi_vfio_dev_check_translation(dev, m->iova,
					BIG_VA + m->vaddr_off, m->size, &bad), 0);
			sim_counters_snapshot(&before);
			assert_int_equal(kapi_vfio_unmap_dma(c, m->iova, m->size, 0,
							     &unmapped), 0);
			assert_int_equal(unmapped, m->size);
			/* Mainline: one probe a page; the runs' notes: none. */
			assert_int_equal(sim_counters.c[SIM_CNT_IOMMU_WALK] -
					 before.c[SIM_CNT_IOMMU_WALK],
					 unmap_stride_get() == 1 ? 0 : m->size / PAGE);
		}
		unmap_stride_restore(was);
		assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
		assert_int_equal(kapi_mm_pins_outstanding(), 0);
		assert_int_equal(kapi_mm_locked_vm(), 0);
	}
	kapi_vfio_close(c);
	shut_machine_down();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dma_at_every_placement),
		cmocka_unit_test(test_the_oracle_sees_a_stale_mapping),
		cmocka_unit_test(test_a_vma_over_the_host_stack_keeps_ioctl_arguments),
		cmocka_unit_test(test_a_bar_page_at_physical_address_0_maps_and_unwinds),
		cmocka_unit_test(test_a_replay_steps_over_physical_address_0),
		cmocka_unit_test(test_dma_sizes_at_the_32_and_64_bit_edges),
		cmocka_unit_test(test_bad_placements_are_refused),
		cmocka_unit_test(test_bar_place_checks_its_range),
		cmocka_unit_test(test_far_apart_ram_costs_only_its_sections),
	};

	slow_run = argc > 1 && !strcmp(argv[1], "--slow");
	if (sweep_part_requested(argc, argv))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
