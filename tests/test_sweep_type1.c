// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fail-nth sweeps over VFIO type1 driven as a VMM drives it: MAP_DMA of
 * anonymous, THP and pfnmap ranges (PUD, PMD and PTE leaves, an unaligned
 * one; and the same with swap, migration, PROT_NONE and mid-split entries
 * in them), UNMAP of a range, with a dirty bitmap and of everything, dirty
 * tracking over several ranges, and the external pin path of an emulated
 * device.  Every fallible call fails once and from then on; each ioctl's
 * errno is one type1 returns there, and once the container is closed
 * nothing is left: no pin, no locked_vm, no IOMMU domain or leaf, no
 * object, no page.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/impl.h>
#include <dmasim/kapi.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "shared.h"
#include "sweep.h"

#define RW	KAPI_VFIO_DMA_MAP_RW

/*
 * The process every scenario runs in (IOVAs in PUDs: 1 GiB with 4 KiB
 * pages, 4 TiB with 64 KiB; a BAR needs no RAM):
 *
 *  vaddr                                       IOVA
 *  anon   [ a, a + 64 pages )                  0
 *  THP    [ t, t + 2 THP_BLOCK )  PMD aligned  1 PUD
 *  BAR0   [ p, p + 1 BIG_LEAF )  PUD leaves    2 PUD
 *  BAR1   [ m, m + 4 PMD )  PMD leaves         4 PUD
 *  BAR2   [ s + 1 page, + 64 pages )  PTE      5 PUD + 1 page (unaligned)
 *
 * THP_BLOCK (shared.h) is a PMD folio with 4 KiB pages, a max-order block
 * with 16 and 64 KiB pages, so the range fits the sweep's machine.
 */
/*
 * BAR0's leaf: a PUD where it has at most 2^18 pages (1 GiB of 4 KiB
 * pages), else a PMD.  Unmapping a DMA costs an iommu_iova_to_phys() per
 * page (vfio_unmap_unpin), and a 64 GiB or 4 TiB PUD (16, 64 KiB pages)
 * run hundreds of times is minutes; PUD leaves at those page sizes are
 * tested in test_pfnmap.c.
 */
#define BIG_LEAF	(PUD / PAGE <= (1UL << 18) ? PUD : PMD)
#define BIG_LEAF_LEVEL	(BIG_LEAF == PUD ? KAPI_MM_LEAF_PUD : KAPI_MM_LEAF_PMD)
enum { ANON, THP, BAR_PUD, BAR_PMD, BAR_PTE, NR_REGIONS };

struct region {
	enum kapi_mm_kind kind;
	unsigned int max_leaf;
	unsigned long len, misalign;
	unsigned long long iova;
};

/*
 * Before the huge-pfnmap series (6.12 in upstream mode) type1 tries GUP
 * and then looks up every page of a pfnmap: a whole PUD is 262,144
 * fallible calls per MAP_DMA, too many for hundreds of runs.  There MAP_DMA
 * covers the first 32 pages of the PUD- and PMD-mapped BARs (still huge
 * leaves underneath).
 */
#if DMASIM_IMPL_PFNMAP_STRIDE
#define HUGE_BAR_DMA_LEN(len)	(len)
#else
#define HUGE_BAR_DMA_LEN(len)	(32 * PAGE)
#endif

static const struct region regions[NR_REGIONS] = {
	[ANON] = { KAPI_MM_ANON, 0, 64 * PAGE, 0, 0 },
	[THP] = { KAPI_MM_THP, 0, 2 * THP_BLOCK, 0, 1 * PUD },
	[BAR_PUD] = { KAPI_MM_PFNMAP, BIG_LEAF_LEVEL, BIG_LEAF, 0, 2 * PUD },
	[BAR_PMD] = { KAPI_MM_PFNMAP, KAPI_MM_LEAF_PMD, 4 * PMD, 0, 4 * PUD },
	[BAR_PTE] = { KAPI_MM_PFNMAP, KAPI_MM_LEAF_PTE, 64 * PAGE, PAGE,
		      5 * PUD + PAGE },
};

static struct {
	struct kapi_proc *proc;
	unsigned long va[NR_REGIONS];
	struct kapi_vfio *c;
	struct kapi_vfio_dev *dev, *dev2;
} vm;

static int process_with_every_kind_of_memory(const void *param)
{
	memset(&vm, 0, sizeof(vm));
	vm.proc = kapi_proc_create();
	if (!vm.proc)
		return -1;
	kapi_mm_set_rlimit_memlock(1 * GiB);
	for (int i = 0; i < NR_REGIONS; i++) {
		const struct region *r = &regions[i];
		struct kapi_mm_map m = {
			.len = r->len, .kind = r->kind, .writable = 1,
			.max_leaf = r->max_leaf, .misalign = r->misalign,
			.align = r->kind == KAPI_MM_PFNMAP ? PUD : PMD,
			.populate = r->kind == KAPI_MM_PFNMAP,
		};

		if (r->kind == KAPI_MM_PFNMAP) {
			m.pfn = sim_bar_create(r->len, PUD, 0, 0);
			if (!m.pfn)
				return -1;
		}
		if (kapi_mm_mmap(&m, &vm.va[i]))
			return -1;
	}
	return 0;
}

/* The IOMMU format of the device (--slow sweeps every 4K-granule one). */
static enum sim_iommu_format_id iommu_format = SIM_IOMMU_INTEL_SL;

static long open_container_with_device(int emulated)
{
	long ret = kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &vm.c);

	if (ret)
		return ret;
	if (emulated)
		return kapi_vfio_attach_emulated_dev(vm.c, &vm.dev);
	return kapi_vfio_attach_iommu_dev(vm.c, iommu_format, &vm.dev);
}

static unsigned long dma_len(int i)
{
	if (i == BAR_PUD || i == BAR_PMD)
		return HUGE_BAR_DMA_LEN(regions[i].len);
	return regions[i].len;
}

static long map_region(int i)
{
	return kapi_vfio_map_dma(vm.c, vm.va[i], regions[i].iova, dma_len(i),
				 RW);
}

static long map_regions(const int *which, int n)
{
	for (int i = 0; i < n; i++) {
		long ret = map_region(which[i]);

		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Map every kind, unmap THP by range and the BARs by one UNMAP_ALL.  The
 * PUD-mapped BAR is mapped last: every run that fails after its MAP_DMA
 * unmaps it page by page (an iommu_iova_to_phys() per page, 2^18 of them
 * with 4 KiB pages, most of the sweep's time), and the runs that fail in
 * the smaller BARs' MAP_DMA then have nothing of it to unmap.  Every
 * point is still failed, once and from then on; the big leaf's own
 * MAP_DMA fails with the other BARs mapped beside it.
 */
static int map_every_kind_then_unmap(const void *param)
{
	static const int all[] = { ANON, THP, BAR_PMD, BAR_PTE, BAR_PUD };
	unsigned long long unmapped;
	long ret;

	ret = open_container_with_device(0);
	if (!ret)
		ret = map_regions(all, NR_REGIONS);
	if (!ret)
		ret = kapi_vfio_unmap_dma(vm.c, regions[THP].iova,
					  regions[THP].len, 0, &unmapped);
	if (!ret)
		ret = kapi_vfio_unmap_dma(vm.c, 0, 0,
					  KAPI_VFIO_DMA_UNMAP_FLAG_ALL, &unmapped);
	return ret;
}

/*
 * Three anon/THP ranges mapped, dirty tracking started over all of them,
 * a bitmap read, one range unmapped with its bitmap, tracking stopped.
 */
static int track_dirty_pages_over_several_ranges(const void *param)
{
	static const int ram[] = { ANON, THP };
	unsigned long long bits[2 * THP_BLOCK / PAGE / 64], unmapped;
	long ret;

	ret = open_container_with_device(0);
	if (!ret)
		ret = map_regions(ram, 2);
	if (!ret)
		ret = map_region(BAR_PMD);
	if (!ret)
		ret = kapi_vfio_dirty_start(vm.c);
	if (!ret)
		ret = kapi_vfio_dirty_get(vm.c, regions[THP].iova,
					  regions[THP].len, PAGE, bits,
					  sizeof(bits));
	if (!ret)
		ret = kapi_vfio_unmap_dma_dirty(vm.c, regions[ANON].iova,
						regions[ANON].len, PAGE, bits,
						sizeof(bits), &unmapped);
	if (!ret)
		ret = kapi_vfio_dirty_stop(vm.c);
	return ret;
}

/*
 * An emulated device pins pages of a mapped anon range through type1's
 * pin_pages, unpins some, and the rest go when the range is unmapped.
 */
static int pin_externally_then_unmap(const void *param)
{
	unsigned long pfns[8];
	long ret;

	ret = open_container_with_device(1);
	if (!ret)
		ret = map_region(ANON);
	if (ret)
		return ret;
	ret = kapi_vfio_pin_pages(vm.c, vm.dev, regions[ANON].iova + PAGE, 8,
				  RW, pfns);
	if (ret < 0)
		return ret;
	kapi_vfio_unpin_pages(vm.c, vm.dev, regions[ANON].iova + PAGE, 4);
	ret = kapi_vfio_pin_pages(vm.c, vm.dev, regions[ANON].iova + 32 * PAGE,
				  1, RW, pfns);
	if (ret < 0)
		return ret;
	return kapi_vfio_unmap_dma(vm.c, regions[ANON].iova, regions[ANON].len,
				   0, NULL);
}

/* A container with the IOMMU device, and which regions mapped. */
static long open_and_map(const int *which, int n)
{
	long ret = open_container_with_device(0);

	return ret ? ret : map_regions(which, n);
}

/* A device of another IOMMU than format: its group gets a domain of its own. */
static enum sim_iommu_format_id another_format(enum sim_iommu_format_id f)
{
	return f == SIM_IOMMU_AMD_V1 ? SIM_IOMMU_INTEL_SL : SIM_IOMMU_AMD_V1;
}

/*
 * Anon, THP and a PTE-mapped BAR mapped; a group of another IOMMU joins
 * (vfio_iommu_replay() maps every DMA into its new domain), a PMD-mapped
 * BAR is mapped into both domains, THP unmapped, UNMAP_ALL, the first
 * group leaves (its domain empty: a domain freed with leaves in it is
 * what the kernel does on detach, which this sweep does not count), and
 * anon is mapped again into the survivor alone.
 */
static int replay_into_a_second_domain(const void *param)
{
	static const int first[] = { ANON, THP, BAR_PTE };
	unsigned long long unmapped;
	long ret;

	ret = open_and_map(first, ARRAY_SIZE(first));
	if (!ret)
		ret = kapi_vfio_attach_iommu_dev(vm.c,
						 another_format(iommu_format),
						 &vm.dev2);
	if (!ret)
		ret = map_region(BAR_PMD);
	if (!ret)
		ret = kapi_vfio_unmap_dma(vm.c, regions[THP].iova,
					  regions[THP].len, 0, &unmapped);
	if (!ret)
		ret = kapi_vfio_unmap_dma(vm.c, 0, 0,
					  KAPI_VFIO_DMA_UNMAP_FLAG_ALL,
					  &unmapped);
	if (ret)
		return ret;
	kapi_vfio_detach_dev(vm.c, vm.dev);
	vm.dev = NULL;
	return map_region(ANON);
}

/*
 * UNMAP_DMA of ranges that hold several whole mappings: anon and THP in
 * one call, THP mapped again, then THP and both small BARs in one.
 */
static int unmap_ranges_across_mappings(const void *param)
{
	static const int some[] = { ANON, THP, BAR_PMD, BAR_PTE };
	unsigned long long unmapped;
	long ret;

	ret = open_and_map(some, ARRAY_SIZE(some));
	if (!ret)
		ret = kapi_vfio_unmap_dma(vm.c, 0, 2 * GiB, 0, &unmapped);
	if (!ret)
		ret = map_region(THP);
	if (!ret)
		ret = kapi_vfio_unmap_dma(vm.c, 1 * GiB, 5 * GiB, 0, &unmapped);
	return ret;
}

/*
 * The leaf of a THP range: a PMD where THP_BLOCK is a PMD folio (4 KiB
 * pages); with 16 and 64 KiB pages THP is backed by small pages (shared.h),
 * so its second block is under migration page by page: one PTE of it.
 */
#define THP_LEAF_LEVEL	(THP_BLOCK == PMD ? KAPI_MM_LEAF_PMD : KAPI_MM_LEAF_PTE)
/*
 * An entry of BAR0's big leaf that follow_pfnmap_start() sees as not
 * present, so type1 faults it back: PROT_NONE for a PUD (x86's
 * pud_present() is the present bit alone); for a PMD (16, 64 KiB pages)
 * PROT_NONE is present, read-only, and a read-write MAP_DMA of it fails
 * -EFAULT (test_nonpresent.c), so a migration entry there.
 */
#define BIG_LEAF_NOT_PRESENT	(BIG_LEAF == PUD ? SIM_ENTRY_PROT_NONE : \
				 SIM_ENTRY_MIGRATION)

/*
 * The same process with entries the kernel may leave in its page tables
 * (kapi_mm_set_entry()): swap, migration and PROT_NONE entries in the
 * anonymous range, a THP under migration, BAR0's big leaf not present
 * to follow_pfnmap (PROT_NONE where it is a PUD), a PMD leaf mid-split
 * and one swap-like, a PTE migration-like.  type1's GUP and fixup faults bring them back.
 *
 * A tree without huge pfnmap faults (6.1, DMASIM_IMPL_PFNMAP_HUGE_LEAVES)
 * maps BAR0 and BAR1 with PTEs: their entries go on the PTE at the same
 * offset, of pte_kind, one a PTE holds and type1 faults back (a PTE is
 * never mid-split, and PROT_NONE is present to it).
 */
static int process_with_nonpresent_entries(const void *param)
{
	static const struct {
		int region, level;
		unsigned long off;
		enum sim_pt_entry_kind kind, pte_kind;
	} entries[] = {
		/* pte_kind PRESENT: not a BAR, never remapped with PTEs */
		{ ANON, KAPI_MM_LEAF_PTE, 3 * PAGE, SIM_ENTRY_SWAP, SIM_ENTRY_PRESENT },
		{ ANON, KAPI_MM_LEAF_PTE, 5 * PAGE, SIM_ENTRY_MIGRATION,
		  SIM_ENTRY_PRESENT },
		{ ANON, KAPI_MM_LEAF_PTE, 7 * PAGE, SIM_ENTRY_PROT_NONE,
		  SIM_ENTRY_PRESENT },
		{ THP, THP_LEAF_LEVEL, THP_BLOCK, SIM_ENTRY_MIGRATION,
		  SIM_ENTRY_PRESENT },
		{ BAR_PUD, BIG_LEAF_LEVEL, 0, BIG_LEAF_NOT_PRESENT,
		  SIM_ENTRY_MIGRATION },
		{ BAR_PMD, KAPI_MM_LEAF_PMD, 0, SIM_ENTRY_SPLITTING,
		  SIM_ENTRY_SWAP },
		{ BAR_PMD, KAPI_MM_LEAF_PMD, PMD, SIM_ENTRY_SWAP, SIM_ENTRY_SWAP },
		{ BAR_PTE, KAPI_MM_LEAF_PTE, 2 * PAGE, SIM_ENTRY_MIGRATION,
		  SIM_ENTRY_MIGRATION },
	};

	if (process_with_every_kind_of_memory(param) ||
	    kapi_mm_touch(vm.va[ANON], regions[ANON].len, 1) ||
	    kapi_mm_touch(vm.va[THP], regions[THP].len, 1))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(entries); i++) {
		int level = entries[i].level;
		enum sim_pt_entry_kind kind = entries[i].kind;

		if (regions[entries[i].region].kind == KAPI_MM_PFNMAP &&
		    level != KAPI_MM_LEAF_PTE &&
		    !DMASIM_IMPL_PFNMAP_HUGE_LEAVES) {
			level = KAPI_MM_LEAF_PTE;
			kind = entries[i].pte_kind;
		}
		if (kapi_mm_set_entry(vm.va[entries[i].region] + entries[i].off,
				      level, kind))
			return -1;
	}
	return 0;
}

/* Close the container (type1 unmaps and unpins all), exit the process. */
static void close_container_and_exit(const void *param)
{
	/*
	 * Two domains: empty them first, as a VMM does before its groups
	 * go; a group detached from one of several domains frees that
	 * domain with its leaves still in it (type1 unmaps only the last).
	 */
	if (vm.c && vm.dev2)
		kapi_vfio_unmap_dma(vm.c, 0, 0, KAPI_VFIO_DMA_UNMAP_FLAG_ALL,
				    NULL);
	if (vm.c)
		kapi_vfio_close(vm.c);
	if (kapi_vfio_nr_open())
		sweep_leak("VFIO containers", kapi_vfio_nr_open());
	/*
	 * The kernel's mmap_write_lock_killable() fails only for a process
	 * with a fatal signal pending (or one arrived: a choice), and type1
	 * ignores a failed uncharge
	 * (vfio_lock_acct() on unpin): that process is exiting, its mm and
	 * locked_vm go with it.  Any other run must uncharge every page.
	 */
	if (kapi_mm_locked_vm() &&
	    !sweep_run_killed())
		sweep_leak("pages of locked_vm", kapi_mm_locked_vm());
	kapi_proc_destroy(vm.proc);
	sim_bars_reset();
}

/*
 * What type1 returns on these paths: -ENOMEM (allocations, GUP, IOMMU
 * map), -EFAULT (a pfn lookup or copy_{from,to}_user that fails, GUP
 * pinning nothing), -EINTR (the killable mmap lock of the locked_vm
 * charge, a SIGKILL in GUP or fixup_user_fault), -EINVAL
 * (follow_pfnmap_start() failing after fixup), -EBUSY and -EOPNOTSUPP (a
 * FOLL_LONGTERM pin GUP refuses); in trees with the known bug, -EAGAIN
 * (DMASIM_IMPL_MAP_DMA_EAGAIN_AFTER_LOCK_DROP).
 */
static const int type1_errnos[] = { -ENOMEM, -EFAULT, -EINTR, -EINVAL,
				    -EBUSY, -EOPNOTSUPP, SWEEP_DOMAIN_ALLOC_EIO,
				    DMASIM_IMPL_MAP_DMA_EAGAIN_AFTER_LOCK_DROP ?
				    -EAGAIN : 0, 0 };

struct type1_case {
	const char *name;
	int (*run)(const void *param);
	int (*setup)(const void *param);	/* NULL: every kind of memory */
};

static const struct type1_case cases[] = {
	{ .name = "type1_map_mixed", .run = map_every_kind_then_unmap },
	{ .name = "type1_dirty", .run = track_dirty_pages_over_several_ranges },
	{ .name = "type1_external_pin", .run = pin_externally_then_unmap },
	{ .name = "type1_map_nonpresent", .run = map_every_kind_then_unmap,
	  .setup = process_with_nonpresent_entries },
	{ .name = "type1_replay", .run = replay_into_a_second_domain },
	{ .name = "type1_unmap_across", .run = unmap_ranges_across_mappings },
};

/*
 * The default sweep: the first four cases; --slow adds the rest and
 * sweeps every case again per other 4K-granule IOMMU.
 */
#define DEFAULT_CASES	4

/* Sweep cases [from, to) with the current iommu_format. */
static void sweep_cases(const char *suffix, size_t from, size_t to,
			int *failed)
{
	for (size_t i = from; i < to; i++) {
		char name[64];
		const struct sweep_scenario s = {
			.name = name,
			.ram_bytes = 512 * MiB,
			.setup = cases[i].setup ? cases[i].setup :
				 process_with_every_kind_of_memory,
			.run = cases[i].run,
			.teardown = close_container_and_exit,
			.errnos = type1_errnos,
		};
		struct sweep_result res;

		if (!sweep_take_turn())
			continue;
		snprintf(name, sizeof(name), "%s%s", cases[i].name, suffix);
		*failed |= sweep_run(&s, &res);
		assert_true(res.points > 0);
	}
}

static int slow;

/* Every failure of every ioctl unwinds, container after container. */
static void test_type1_ioctls_unwind(void **state)
{
	static const enum sim_iommu_format_id slow_formats[] = {
		SIM_IOMMU_AMD_V1, SIM_IOMMU_AMD_V2, SIM_IOMMU_ARM_LPAE_4K,
	};
	int failed = 0;

	if (!slow) {
		sweep_cases("", 0, DEFAULT_CASES, &failed);
	} else {
		sweep_cases("/intel-sl", DEFAULT_CASES, ARRAY_SIZE(cases),
			    &failed);
		for (size_t i = 0; i < 3; i++) {
			char suffix[32];

			iommu_format = slow_formats[i];
			snprintf(suffix, sizeof(suffix), "/%s",
				 sim_iommu_format(iommu_format)->name);
			sweep_cases(suffix, 0, ARRAY_SIZE(cases), &failed);
		}
		iommu_format = SIM_IOMMU_INTEL_SL;
	}
	assert_int_equal(failed, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_type1_ioctls_unwind),
	};

	slow = sweep_slow_requested(argc, argv);
	if (sweep_part_requested(argc, argv))
		return 1;
	return sweep_exit_status(cmocka_run_group_tests(tests, NULL, NULL),
				 slow);
}
