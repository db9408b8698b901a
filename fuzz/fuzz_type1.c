// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_type1: VFIO type1 (core/drivers/vfio/vfio_iommu_type1.c, or a kernel
 * tree's in upstream mode) driven by a sequence of up to 16 operations on
 * one container, as a VMM would, through kapi_vfio.h and kapi_mm.h.
 *
 * The container holds a device behind a simulated IOMMU (format from the
 * input) and, if the input says so, an emulated (mediated) device that
 * pins through the backend.  Operations: create an anonymous, THP or
 * pfnmap VMA (size, leaf level, alignment from the input); MAP_DMA of part
 * of one (or past its end) at an iova near 0, 1 GiB, 4 GiB or the top of
 * the 48-bit space; UNMAP_DMA of a range, of everything, or with a dirty
 * bitmap; dirty tracking start/stop/get; external pin/unpin; munmap;
 * close (and reopen).  Sizes are small most of the time (fuzz_pages():
 * a run's cost is its per-page work), up to 2,048 pages for one MAP_DMA
 * and 4,096 for all of an input's (MAX_INPUT_PAGES).
 *
 * Invariants, after every operation:
 * - right after a MAP_DMA succeeds: every page of the range translates in
 *   the IOMMU to the pfn the CPU maps its vaddr to (checked at the first
 *   and last page of every CPU leaf); later, sample pages keep their pfn
 *   (the pins hold them even after munmap) and the pages beside each
 *   mapping translate to nothing;
 * - a refused MAP_DMA or UNMAP_DMA changes nothing (pins, locked_vm,
 *   leaves); a MAP_DMA overlapping a mapped iova range is refused;
 * - UNMAP_DMA follows v2's rule: refused if the range splits a mapping,
 *   else removes exactly the mappings inside it and reports their size;
 * - pins outstanding = RAM pages of live mappings (the zero page and MMIO
 *   excluded) + pages pinned only by the emulated device; locked_vm = the
 *   RAM pages of live mappings;
 * - the dirty bitmap of a mapped range has exactly one bit per page set
 *   (a device behind an IOMMU can write anywhere it maps);
 * - external pins return the pfns the IOMMU maps (unless the VMA under the
 *   mapping was unmapped since: the kernel resolves the vaddr again, and
 *   a VMM that remaps under a live mapping gets what it asked for); an
 *   unmap drops the emulated device's pins in its range;
 * - after close: no pin, no locked_vm, no IOMMU domain or device left but
 *   the probed devices' own (below); at the end of the input, no kernel
 *   object either.
 *
 * Placement (fuzz_common.h, struct fuzz_placement): the bytes after an
 * optional "\xd3place" mark put RAM, BARs, VMAs and IOVAs where machines
 * rarely do (pfn 0, below 4 GiB, the top of the physical width; the
 * first and last pages of user space; the top half and the last PUD of
 * the IOVA space); without the mark, today's placement.
 *
 * The machine (65,536 pages: 256 MiB of 4 KiB) is built once per process
 * and RAM layout, with one device per IOMMU format probed on it, which
 * each container attaches and leaves probed at its close (a VMM's device
 * outlives its VFIO containers); each input runs in a new process
 * (kapi_proc_create) that exits at the end, and the buddy allocator is
 * rewound to its state after boot (sim_buddy_rewind), so an input does
 * the same whatever ran before it (replay --order-check).
 */
#include <errno.h>
#include <string.h>

#include <dmasim/impl.h>
#include <dmasim/kapi.h>
#include <dmasim/kapi_iommu.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "fuzz_common.h"

#define MAX_OPS		16
#define MAX_VMAS	6
#define MAX_DMAS	16
#define MAX_VPFNS	64
#define NR_SAMPLES	3
/*
 * What one input may ask MAP_DMA for in all, in pages: a MAP_DMA pins,
 * maps and later unmaps and unpins every page it asks for (or pins up to
 * where it fails, then unwinds), so this bounds an input's cost.  One
 * MAP_DMA still reaches 2,048 pages (four GUP batches).
 */
#define MAX_INPUT_PAGES	4096
/*
 * The unit of THP VMAs: a PMD folio where the buddy allocator has PMD
 * order (4 KiB pages); 512 pages with 16 and 64 KiB pages, whose THP VMAs
 * are small pages (sim_mem.h), so an input asks for as many pages at every
 * page size (as many as the machine has, fuzz_boot_machine()).
 */
#define THP_UNIT	(SIM_PMD_ORDER <= SIM_MAX_ORDER ? PMD : 512 * PAGE)

struct vma {
	unsigned long va, len;
	int kind;		/* KAPI_MM_* */
	int live;
};

struct dma {
	unsigned long long iova, size;
	unsigned long va;
	int stale;	/* its vaddr range was unmapped since: CPU and IOMMU may differ */
	unsigned long ram_pages;		/* pinned and charged */
	unsigned long long sample_iova[NR_SAMPLES];
	unsigned long sample_pfn[NR_SAMPLES];
};

struct vpfn {
	unsigned long long iova;
	unsigned long refs;
	int pinned;		/* a GUP pin (not the zero page) */
};

static struct {
	struct kapi_vfio *c;
	struct kapi_vfio_dev *dev, *emu;
	enum sim_iommu_format_id fmt;
	unsigned long long min_page;
	int dirty_on;
	struct vma vmas[MAX_VMAS];
	unsigned int nr_vmas;
	struct dma dmas[MAX_DMAS];
	unsigned int nr_dmas;
	struct vpfn vpfns[MAX_VPFNS];
	unsigned int nr_vpfns;
	unsigned long domains_at_start, devices_at_start;
	unsigned long pages_asked;	/* by MAP_DMA so far, MAX_INPUT_PAGES at most */
	struct fuzz_place_state place;
} s;

/* The IOMMU formats a container's device can have (the input picks). */
static const enum sim_iommu_format_id formats[] = {
	SIM_IOMMU_INTEL_SL, SIM_IOMMU_AMD_V1, SIM_IOMMU_AMD_V2,
	SIM_IOMMU_ARM_LPAE_4K, SIM_IOMMU_INTEL_SL, SIM_IOMMU_AMD_V1,
	SIM_IOMMU_ARM_LPAE_16K, SIM_IOMMU_ARM_LPAE_64K,
};

/*
 * One device per format, probed at boot as the kernel probes its devices
 * (its group, its default domain), attached to every container an input
 * opens with that format and left probed when the container closes, as
 * a VMM's device is from one VFIO container to the next.  Probing one per
 * container was 6% of a run, and no part of type1.
 */
static struct kapi_vfio_dev *probed[SIM_NR_IOMMU_FORMATS];

static void remove_probed(void)
{
	for (unsigned int i = 0; i < SIM_NR_IOMMU_FORMATS; i++) {
		if (probed[i])
			kapi_vfio_dev_remove(probed[i]);
		probed[i] = NULL;
	}
}

/*
 * The machine with RAM where the input says (fuzz_boot_machine_for()),
 * with this harness's one-time state made again after each boot.
 */
static void boot_once(enum fuzz_ram_place ram)
{
	if (!fuzz_boot_machine_for(ram, remove_probed))
		return;
	/*
	 * The first address space takes the zero page for good: make one
	 * now, so that no input is the first.  Then the allocator's state is
	 * the one every input starts from (sim_buddy_rewind() after each).
	 */
	kapi_proc_destroy(kapi_proc_create());
	for (unsigned int i = 0; i < ARRAY_SIZE(formats); i++)
		if (!probed[formats[i]])
			FUZZ_CHECK(kapi_vfio_dev_probe(formats[i],
						       &probed[formats[i]]) == 0,
				   "probe");
	FUZZ_CHECK(sim_buddy_checkpoint() == 0, "checkpoint");
}

/* ---- the model ------------------------------------------------------- */

static unsigned long model_pins(void)
{
	unsigned long n = 0;

	for (unsigned int i = 0; i < s.nr_dmas; i++)
		n += s.dmas[i].ram_pages;
	for (unsigned int i = 0; i < s.nr_vpfns; i++)
		n += s.vpfns[i].pinned;
	return n;
}

static unsigned long model_locked_vm(void)
{
	unsigned long n = 0;

	for (unsigned int i = 0; i < s.nr_dmas; i++)
		n += s.dmas[i].ram_pages;
	return n;
}

/* Pins the emulated device holds, by its own count (one per page per pin). */
static unsigned long model_ext_pins(void)
{
	unsigned long n = 0;

	for (unsigned int i = 0; i < s.nr_vpfns; i++)
		n += s.vpfns[i].refs;
	return n;
}

static int dma_covering(unsigned long long iova)
{
	for (unsigned int i = 0; i < s.nr_dmas; i++)
		if (iova - s.dmas[i].iova < s.dmas[i].size)
			return (int)i;
	return -1;
}

static int dma_overlaps(unsigned long long iova, unsigned long long size)
{
	for (unsigned int i = 0; i < s.nr_dmas; i++)
		if (iova - s.dmas[i].iova < s.dmas[i].size ||
		    s.dmas[i].iova - iova < size)
			return 1;
	return 0;
}

/* The emulated device drops its pins in a range that goes away. */
static void drop_vpfns_in(unsigned long long iova, unsigned long long size)
{
	for (unsigned int i = 0; i < s.nr_vpfns;) {
		if (s.vpfns[i].iova - iova < size)
			s.vpfns[i] = s.vpfns[--s.nr_vpfns];
		else
			i++;
	}
}

static void remove_dma(unsigned int i)
{
	drop_vpfns_in(s.dmas[i].iova, s.dmas[i].size);
	s.dmas[i] = s.dmas[--s.nr_dmas];
}

/* ---- invariants -------------------------------------------------------- */

static int iommu_pfn(unsigned long long iova, unsigned long *pfn)
{
	return kapi_vfio_dev_iova_to_pfn(s.dev, iova, pfn);
}

/*
 * SIGKILLs the input's choices sent so far.  A killed process is exiting:
 * type1 ignores an uncharge whose killable mmap lock gives -EINTR, so its
 * locked_vm may stay above the model (it goes with the mm).
 */
static unsigned long long kills_at_start;

static int process_killed(void)
{
	return sim_choice_taken_alt[SIM_CH_FATAL_SIGNAL][1] != kills_at_start;
}

static void check_invariants(const char *after)
{
	unsigned long pins = kapi_mm_pins_outstanding();
	unsigned long locked = kapi_mm_locked_vm();

	FUZZ_CHECK(pins == model_pins(), "after %s: %lu pins, model %lu",
		   after, pins, model_pins());
	FUZZ_CHECK(locked == model_locked_vm() ||
		   (process_killed() && locked > model_locked_vm()),
		   "after %s: locked_vm %lu, model %lu", after, locked,
		   model_locked_vm());
	if (!s.c)
		return;
	if (s.emu)
		FUZZ_CHECK(kapi_vfio_dev_nr_pins(s.emu) == model_ext_pins(),
			   "after %s: the emulated device holds %lu pins, model %lu",
			   after, kapi_vfio_dev_nr_pins(s.emu), model_ext_pins());
	for (unsigned int i = 0; i < s.nr_dmas; i++) {
		const struct dma *d = &s.dmas[i];
		unsigned long pfn;

		for (int k = 0; k < NR_SAMPLES; k++)
			FUZZ_CHECK(iommu_pfn(d->sample_iova[k], &pfn) == 0 &&
				   pfn == d->sample_pfn[k],
				   "after %s: iova 0x%llx moved or vanished",
				   after, d->sample_iova[k]);
		if (d->iova >= s.min_page && dma_covering(d->iova - s.min_page) < 0)
			FUZZ_CHECK(iommu_pfn(d->iova - s.min_page, &pfn) == -ENOENT,
				   "after %s: iova below a mapping is mapped", after);
		if (d->iova + d->size && dma_covering(d->iova + d->size) < 0)
			FUZZ_CHECK(iommu_pfn(d->iova + d->size, &pfn) == -ENOENT,
				   "after %s: iova above a mapping is mapped", after);
	}
}

/*
 * Right after MAP_DMA: IOMMU pfn == CPU pfn at the first and last page of
 * every CPU leaf of [va, +size); returns the RAM pages (zero page and MMIO
 * excluded), which are what type1 pinned and charged.
 */
/*
 * SIM_MM_RACE_ZAP alternatives of SIM_CH_FIXUP_UNLOCKED taken so far:
 * another task zapped a BAR's leaves while a fault had the mmap lock
 * dropped (vfio-pci does so when memory decode goes off).  The pages
 * type1 had already looked up stay in the IOMMU while the CPU no longer
 * maps them, so a MAP_DMA that saw one is compared only where the CPU
 * still maps.
 */
static unsigned long long bar_zaps(void)
{
	return sim_choice_taken_alt[SIM_CH_FIXUP_UNLOCKED][SIM_MM_RACE_ZAP];
}

static unsigned long check_fresh_mapping(unsigned long long iova,
					 unsigned long va,
					 unsigned long long size,
					 int zapped)
{
	unsigned long ram = 0;
	unsigned long long off = 0;

	while (off < size) {
		unsigned long cpu_pfn, io_pfn, last_cpu, last_io, n;
		int level;

		if (zapped && kapi_mm_cpu_pfn(va + off, &cpu_pfn, &level)) {
			off += PAGE;
			continue;
		}
		FUZZ_CHECK(kapi_mm_cpu_pfn(va + off, &cpu_pfn, &level) == 0,
			   "vaddr 0x%llx of a fresh mapping not mapped",
			   (unsigned long long)va + off);
		n = level == KAPI_MM_LEAF_PUD ? PUD / PAGE :
		    level == KAPI_MM_LEAF_PMD ? PMD / PAGE : 1;
		n -= ((va + off) / PAGE) & (n - 1);
		if (n > (size - off) / PAGE)
			n = (size - off) / PAGE;
		FUZZ_CHECK(iommu_pfn(iova + off, &io_pfn) == 0 && io_pfn == cpu_pfn,
			   "iova 0x%llx: IOMMU pfn 0x%lx, CPU pfn 0x%lx",
			   iova + off, io_pfn, cpu_pfn);
		if (zapped &&
		    kapi_mm_cpu_pfn(va + off + (n - 1) * PAGE, &last_cpu,
				    &level)) {
			off += PAGE;
			continue;
		}
		FUZZ_CHECK(kapi_mm_cpu_pfn(va + off + (n - 1) * PAGE, &last_cpu,
					   &level) == 0 &&
			   iommu_pfn(iova + off + (n - 1) * PAGE, &last_io) == 0 &&
			   last_io == last_cpu,
			   "iova 0x%llx: IOMMU and CPU differ at the leaf's end",
			   iova + off);
		FUZZ_NOTE(cpu_pfn);
		FUZZ_NOTE(last_cpu);
		if (sim_pfn_valid(cpu_pfn) && cpu_pfn != sim_zero_pfn)
			ram += n;
		off += n * PAGE;
	}
	return ram;
}

/* ---- operations ---------------------------------------------------------- */

static void open_container(struct fuzz_input *in)
{
	unsigned int how = fuzz_u8(in);

	s.fmt = formats[how & 7];
	/* type1's smallest page: the IOMMU's, or PAGE_SIZE if that is bigger */
	s.min_page = 1ULL << sim_iommu_format(s.fmt)->granule_shift;
	if (s.min_page < PAGE)
		s.min_page = PAGE;
	FUZZ_CHECK(kapi_vfio_open(KAPI_VFIO_TYPE1v2_IOMMU, &s.c) == 0, "open");
	s.dev = probed[s.fmt];
	FUZZ_CHECK(kapi_vfio_attach_probed_dev(s.c, s.dev) == 0, "attach");
	s.emu = NULL;
	if (how & 8)
		FUZZ_CHECK(kapi_vfio_attach_emulated_dev(s.c, &s.emu) == 0,
			   "emulated device");
	s.dirty_on = 0;
	FUZZ_LOG("open: %s%s", sim_iommu_format(s.fmt)->name,
		 s.emu ? " + emulated" : "");
}

/*
 * DMASIM_FUZZ_AVOID_KNOWN_BUGS=1 (tools/fuzz-differential.sh
 * --avoid-known-bugs): steer around the known bugs a tree under
 * differential replay would crash on, by name, in both implementations
 * alike so their logs still compare.  type1-dirty-bitmap-overrun
 * (docs/kernel-bugs.md): closing a container whose IOMMU domain has a
 * granule larger than PAGE while dirty tracking is on beside an emulated
 * device detaches that domain, and 6.12 then fills every dirty bitmap in
 * the smaller page size, past its end.  Tracking is stopped before such a
 * close, and the log line names the bug (the script counts them).
 */
static int avoid_known_bugs(void)
{
	static int v = -1;

	if (v < 0) {
		const char *e = getenv("DMASIM_FUZZ_AVOID_KNOWN_BUGS");

		v = e && *e && *e != '0';
	}
	return v;
}

static void close_container(void)
{
	if (s.dirty_on && s.emu && s.min_page > PAGE && avoid_known_bugs()) {
		FUZZ_LOG("known bug type1-dirty-bitmap-overrun: dirty tracking stopped before the close");
		FUZZ_CHECK(kapi_vfio_dirty_stop(s.c) == 0, "dirty stop");
		s.dirty_on = 0;
	}
	kapi_vfio_close(s.c);
	s.c = NULL;
	s.dev = s.emu = NULL;
	s.nr_dmas = 0;
	s.nr_vpfns = 0;
	FUZZ_CHECK(kapi_vfio_nr_open() == 0, "a container left open");
	FUZZ_CHECK(sim_iommu_nr_domains() == s.domains_at_start &&
		   kapi_iommu_nr_devices() == s.devices_at_start,
		   "%lu domains, %lu devices after close",
		   sim_iommu_nr_domains(), kapi_iommu_nr_devices());
	FUZZ_LOG("close");
}

static void op_mmap(struct fuzz_input *in, int kind)
{
	struct vma *v = &s.vmas[s.nr_vmas];
	unsigned int flags = fuzz_u8(in);
	unsigned long pages = fuzz_pages(in, 1024, PMD / PAGE);
	struct kapi_mm_map m = { 0 };
	int ret;

	if (s.nr_vmas == MAX_VMAS)
		return;
	m.kind = kind;
	m.writable = !(flags & 1) || kind == KAPI_MM_THP;
	m.populate = (flags >> 1) & 1;
	m.align = PUD;
	m.misalign = ((flags >> 2) & 3) * PMD + ((flags >> 4) & 1) * PAGE;
	if (kind == KAPI_MM_THP) {
		/* One unit five times in eight, else two, three or four. */
		static const unsigned int units[8] = { 1, 1, 1, 1, 1, 2, 3, 4 };

		m.len = units[flags >> 5] * THP_UNIT + (pages % 8) * PAGE;
	} else if (kind == KAPI_MM_PFNMAP) {
		unsigned long bar_mis = (fuzz_u8(in) % 4) * PMD;

		m.max_leaf = KAPI_MM_LEAF_PTE + (flags >> 5) % 3;
		m.len = (flags & 0x80) && m.max_leaf == KAPI_MM_LEAF_PUD &&
			!((bar_mis ^ m.misalign) & (PMD - 1)) ?
			PUD + pages * PAGE : pages * PAGE;
		FUZZ_CHECK(fuzz_place_bar(&s.place, m.len, bar_mis, &m.pfn) == 0,
			   "BAR");
	} else {
		m.len = pages * PAGE;
	}
	ret = fuzz_mmap_placed(&s.place, &m, &v->va);
	FUZZ_CHECK(ret == 0, "mmap: %d", ret);
	v->len = m.len;
	v->kind = kind;
	v->live = 1;
	s.nr_vmas++;
	FUZZ_LOG("mmap kind %d: 0x%lx+0x%lx", kind, v->va, v->len);
}

static unsigned long long pick_iova(struct fuzz_input *in, unsigned long va)
{
	static const unsigned long long anchors[] = {
		0, 1ULL << 30, 4ULL << 30, (1ULL << 47) - (2ULL << 20),
		(1ULL << 48) - (4ULL << 20), 0,
	};
	unsigned int how = fuzz_u8(in);
	short off = (short)fuzz_u16(in);

	if (how & 1)	/* aligned like vaddr, so superpages fit */
		return ((unsigned long long)(how >> 1) << 30) + (va & (PUD - 1));
	return anchors[(how >> 1) % 6] + (long long)off * (long long)PAGE;
}

static void op_map_dma(struct fuzz_input *in)
{
	const struct vma *v;
	unsigned int how = fuzz_u8(in);
	unsigned long off, va, pins, locked;
	unsigned long long iova, size, leaves, zaps;
	unsigned int flags;
	long ret;

	if (!s.nr_vmas || s.nr_dmas == MAX_DMAS)
		return;
	v = &s.vmas[how % s.nr_vmas];
	off = (fuzz_u16(in) % (v->len / PAGE)) * PAGE;
	size = fuzz_pages(in, 2048, PMD / PAGE) * PAGE;
	if (!(how & 0x80) && size > v->len - off)
		size = v->len - off;	/* mostly inside the VMA */
	va = v->va + off;
	iova = fuzz_place_iova(&s.place, pick_iova(in, va), size);
	flags = (how >> 4) & 3 ? KAPI_VFIO_DMA_MAP_RW : KAPI_VFIO_DMA_MAP_FLAG_READ;
	if ((how & 0x40) && (how & 0x20))
		flags = 0;
	if (size / PAGE > MAX_INPUT_PAGES - s.pages_asked)
		size = (MAX_INPUT_PAGES - s.pages_asked) * PAGE;
	if (!size)
		return;
	/*
	 * A range whose last byte is the last IOVA of the 64-bit space: before
	 * v6.18 (!DMASIM_IMPL_UNMAP_REACHES_IOVA_END) type1 maps it but can
	 * neither unmap it nor unpin it at close (its end wraps to 0), a known
	 * bug tests/test_type1.c covers in both versions.  Not issued here, by
	 * either implementation, so that every version's trace is the same
	 * (tools/fuzz-differential.sh).
	 */
	if (iova + size == 0) {
		FUZZ_LOG("map_dma iova 0x%llx size 0x%llx: ends at the top of the IOVA space, skipped",
			 iova, size);
		return;
	}
	s.pages_asked += size / PAGE;

	pins = kapi_mm_pins_outstanding();
	locked = kapi_mm_locked_vm();
	leaves = kapi_vfio_dev_nr_leaves(s.dev);
	zaps = bar_zaps();
	ret = kapi_vfio_map_dma(s.c, va, iova, size, flags);
	FUZZ_LOG("map_dma va 0x%lx iova 0x%llx size 0x%llx flags %u: %ld", va,
		 iova, size, flags, ret);
	if (ret) {
		FUZZ_CHECK(kapi_mm_pins_outstanding() == pins &&
			   (kapi_mm_locked_vm() == locked ||
			    (process_killed() && kapi_mm_locked_vm() > locked)) &&
			   kapi_vfio_dev_nr_leaves(s.dev) == leaves,
			   "a refused MAP_DMA (%ld) left pins %lu->%lu, locked %lu->%lu, leaves %llu->%llu",
			   ret, pins, kapi_mm_pins_outstanding(), locked,
			   kapi_mm_locked_vm(), leaves,
			   kapi_vfio_dev_nr_leaves(s.dev));
		return;
	}
	FUZZ_CHECK(!dma_overlaps(iova, size),
		   "MAP_DMA at 0x%llx+0x%llx over a mapped range succeeded",
		   iova, size);
	FUZZ_CHECK(flags, "MAP_DMA without READ or WRITE succeeded");
	{
		struct dma *d = &s.dmas[s.nr_dmas++];
		unsigned long long pages = size / PAGE;

		d->iova = iova;
		d->size = size;
		d->va = va;
		d->stale = 0;
		d->ram_pages = check_fresh_mapping(iova, va, size,
						   bar_zaps() != zaps);
		for (int k = 0; k < NR_SAMPLES; k++) {
			d->sample_iova[k] = iova + (pages - 1) * k / 2 * PAGE;
			FUZZ_CHECK(iommu_pfn(d->sample_iova[k], &d->sample_pfn[k]) == 0,
				   "sample");
		}
	}
}

/* The v2 unmap rule on the model: -1 if refused, else bytes unmapped. */
static long long model_unmap(unsigned long long iova, unsigned long long size,
			     int all)
{
	unsigned long long total = 0;
	int i;

	if (all) {
		if (iova || size)
			return -1;
		for (unsigned int k = 0; k < s.nr_dmas; k++)
			total += s.dmas[k].size;
		return (long long)total;
	}
	if (!size || ((iova | size) & (s.min_page - 1)) ||
	    iova + (size - 1) < iova)
		return -1;
	i = dma_covering(iova);
	if (i >= 0 && s.dmas[i].iova != iova)
		return -1;
	i = dma_covering(iova + size - 1);
	if (i >= 0 && s.dmas[i].iova + s.dmas[i].size != iova + size)
		return -1;
	for (unsigned int k = 0; k < s.nr_dmas; k++)
		if (s.dmas[k].iova - iova < size)
			total += s.dmas[k].size;
	return (long long)total;
}

static void apply_unmap(unsigned long long iova, unsigned long long size,
			int all)
{
	for (unsigned int k = 0; k < s.nr_dmas;) {
		if (all || s.dmas[k].iova - iova < size)
			remove_dma(k);
		else
			k++;
	}
}

static void op_unmap_dma(struct fuzz_input *in, int kind)
{
	unsigned int how = fuzz_u8(in);
	unsigned long long iova, size, unmapped = 0, bitmap[64];
	int all = kind == 1;
	long long want;
	long ret;

	if (s.nr_dmas && !(how & 1)) {
		const struct dma *d = &s.dmas[(how >> 1) % s.nr_dmas];

		/* The whole mapping, or a page more or less at either end. */
		iova = d->iova + ((how >> 4) & 1 ? s.min_page : 0);
		size = d->size + ((how >> 5) & 1 ? s.min_page : 0) -
		       ((how >> 6) & 1 ? s.min_page : 0);
	} else {
		iova = pick_iova(in, 0);
		size = (fuzz_u16(in) % 4096) * PAGE;
	}
	if (all)
		iova = size = (how & 0x80) ? PAGE : 0;
	want = model_unmap(iova, size, all);
	memset(bitmap, 0, sizeof(bitmap));
	if (kind == 2)
		ret = kapi_vfio_unmap_dma_dirty(s.c, iova, size, PAGE, bitmap,
						sizeof(bitmap), &unmapped);
	else
		ret = kapi_vfio_unmap_dma(s.c, iova, size,
					  all ? KAPI_VFIO_DMA_UNMAP_FLAG_ALL : 0,
					  &unmapped);
	FUZZ_LOG("unmap_dma%s 0x%llx+0x%llx: %ld, 0x%llx (model %lld)",
		 all ? " all" : kind == 2 ? " dirty" : "", iova, size, ret,
		 unmapped, want);
	if (want < 0) {
		FUZZ_CHECK(ret < 0, "UNMAP_DMA 0x%llx+0x%llx splitting a mapping: %ld",
			   iova, size, ret);
		return;
	}
	if (kind == 2 && ret) {
		/* Bitmap rules (tracking off, bitmap too small): refused whole. */
		return;
	}
	FUZZ_CHECK(ret == 0 && unmapped == (unsigned long long)want,
		   "UNMAP_DMA 0x%llx+0x%llx: %ld, 0x%llx unmapped, model 0x%llx",
		   iova, size, ret, unmapped, want);
	if (kind == 2) {
		unsigned long long bits = 0;

		for (unsigned int k = 0; k < 64; k++)
			bits += __builtin_popcountll(bitmap[k]);
		FUZZ_CHECK(bits == unmapped / PAGE,
			   "dirty unmap of 0x%llx: %llu bits", unmapped, bits);
	}
	apply_unmap(iova, size, all);
}

static void op_dirty(struct fuzz_input *in)
{
	unsigned int how = fuzz_u8(in);
	unsigned long long bitmap[64], bits = 0;
	long ret;

	switch (how & 3) {
	case 0:
		ret = kapi_vfio_dirty_start(s.c);
		FUZZ_CHECK(ret == 0, "dirty start: %ld", ret);
		s.dirty_on = 1;
		return;
	case 1:
		ret = kapi_vfio_dirty_stop(s.c);
		FUZZ_CHECK(ret == 0, "dirty stop: %ld", ret);
		s.dirty_on = 0;
		return;
	default:
		break;
	}
	if (!s.nr_dmas)
		return;
	{
		const struct dma *d = &s.dmas[(how >> 2) % s.nr_dmas];

		memset(bitmap, 0, sizeof(bitmap));
		ret = kapi_vfio_dirty_get(s.c, d->iova, d->size, PAGE, bitmap,
					  sizeof(bitmap));
		FUZZ_LOG("dirty get 0x%llx+0x%llx: %ld", d->iova, d->size, ret);
		if (!s.dirty_on) {
			FUZZ_CHECK(ret == -EINVAL, "dirty get while off: %ld",
				   ret);
			return;
		}
		if (ret)
			return;	/* e.g. a bitmap too small for the range */
		for (unsigned int k = 0; k < 64; k++)
			bits += __builtin_popcountll(bitmap[k]);
		FUZZ_CHECK(bits == d->size / PAGE,
			   "dirty bitmap of 0x%llx+0x%llx: %llu bits", d->iova,
			   d->size, bits);
	}
}

static void op_pin(struct fuzz_input *in)
{
	unsigned int how = fuzz_u8(in);
	unsigned long pfns[8];
	unsigned long long iova;
	int npage = how % 8 + 1, ret;

	if (!s.emu || !s.nr_dmas)
		return;
	{
		const struct dma *d = &s.dmas[(how >> 3) % s.nr_dmas];

		iova = d->iova + (fuzz_u16(in) % (d->size / PAGE)) * PAGE;
	}
	if (how & 0x80) {
		/* Unpin what was pinned at iova, if anything. */
		for (unsigned int i = 0; i < s.nr_vpfns; i++) {
			if (s.vpfns[i].iova != iova)
				continue;
			kapi_vfio_unpin_pages(s.c, s.emu, iova, 1);
			if (!--s.vpfns[i].refs)
				s.vpfns[i] = s.vpfns[--s.nr_vpfns];
			FUZZ_LOG("unpin 0x%llx", iova);
			return;
		}
		return;
	}
	if (s.nr_vpfns + (unsigned int)npage > MAX_VPFNS)
		return;
	ret = kapi_vfio_pin_pages(s.c, s.emu, iova, npage, KAPI_VFIO_DMA_MAP_RW,
				  pfns);
	FUZZ_LOG("pin 0x%llx x%d: %d", iova, npage, ret);
	if (ret < 0)
		return;
	FUZZ_CHECK(ret == npage, "pin_pages returned %d of %d", ret, npage);
	for (int k = 0; k < npage; k++) {
		unsigned long long a = iova + (unsigned long long)k * PAGE;
		unsigned long io_pfn;
		unsigned int i;

		int d = dma_covering(a);

		FUZZ_NOTE(pfns[k]);
		FUZZ_CHECK(d >= 0, "pinned 0x%llx outside every mapping", a);
		FUZZ_CHECK(iommu_pfn(a, &io_pfn) == 0 &&
			   (io_pfn == pfns[k] || s.dmas[d].stale),
			   "external pin of 0x%llx: pfn 0x%lx, IOMMU 0x%lx", a,
			   pfns[k], io_pfn);
		for (i = 0; i < s.nr_vpfns && s.vpfns[i].iova != a; i++)
			;
		if (i == s.nr_vpfns) {
			s.vpfns[s.nr_vpfns++] = (struct vpfn){
				a, 0, pfns[k] != sim_zero_pfn };
		}
		s.vpfns[i].refs++;
	}
}

static void op_munmap(struct fuzz_input *in)
{
	struct vma *v;

	if (!s.nr_vmas)
		return;
	v = &s.vmas[fuzz_u8(in) % s.nr_vmas];
	if (!v->live)
		return;
	FUZZ_CHECK(kapi_mm_munmap(v->va) == 0, "munmap");
	v->live = 0;
	/*
	 * A mapping whose vaddr range lost its VMA keeps its pinned pages in
	 * the IOMMU, but a later external pin resolves the vaddr again (as
	 * the kernel's does): what it finds there need not be the same page.
	 */
	for (unsigned int i = 0; i < s.nr_dmas; i++)
		if (s.dmas[i].va < v->va + v->len &&
		    v->va < s.dmas[i].va + s.dmas[i].size)
			s.dmas[i].stale = 1;
	FUZZ_LOG("munmap 0x%lx", v->va);
}

/* The operations an input asks for, and their names in the log. */
enum type1_op {
	OP_MMAP_ANON, OP_MMAP_THP, OP_MMAP_PFNMAP, OP_MAP_DMA, OP_UNMAP_DMA,
	OP_UNMAP_ALL, OP_UNMAP_DIRTY, OP_DIRTY, OP_PIN, OP_MUNMAP, OP_CLOSE,
};

static const char *const op_names[] = {
	[OP_MMAP_ANON] = "mmap anon", [OP_MMAP_THP] = "mmap thp",
	[OP_MMAP_PFNMAP] = "mmap pfnmap", [OP_MAP_DMA] = "map",
	[OP_UNMAP_DMA] = "unmap", [OP_UNMAP_ALL] = "unmap all",
	[OP_UNMAP_DIRTY] = "unmap dirty", [OP_DIRTY] = "dirty",
	[OP_PIN] = "pin", [OP_MUNMAP] = "munmap", [OP_CLOSE] = "close",
};

/* What an operation byte decodes to (mod 14): MAP_DMA 3 times, PIN twice. */
static const enum type1_op op_of_byte[] = {
	OP_MMAP_ANON, OP_MMAP_THP, OP_MMAP_PFNMAP,
	OP_MAP_DMA, OP_MAP_DMA, OP_MAP_DMA,
	OP_UNMAP_DMA, OP_UNMAP_ALL, OP_UNMAP_DIRTY, OP_DIRTY,
	OP_PIN, OP_PIN, OP_MUNMAP, OP_CLOSE,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = fuzz_input_choosing(data, size);
	struct fuzz_placement place = fuzz_placement_of(&in);
	unsigned long long kmallocs;
	struct kapi_proc *proc;
	unsigned int limits;

	boot_once(place.ram);
	/* The model follows the VMAs it made: no other task changes them. */
	fuzz_choice_deny[SIM_CH_FIXUP_UNLOCKED] =
		1u << SIM_MM_RACE_MUNMAP | 1u << SIM_MM_RACE_REPLACE |
		1u << SIM_MM_RACE_SPLIT | 1u << SIM_MM_RACE_MOVE_PFNS;
	kills_at_start = sim_choice_taken_alt[SIM_CH_FATAL_SIGNAL][1];
	memset(&s, 0, sizeof(s));
	s.place = (struct fuzz_place_state){ .place = place };
	FUZZ_LOG("placement: RAM %d, BARs %d, VMAs %d, IOVAs %d", place.ram,
		 place.bar, place.vma, place.iova);
	kmallocs = sim_kmalloc_outstanding();
	s.domains_at_start = sim_iommu_nr_domains();
	s.devices_at_start = kapi_iommu_nr_devices();
	proc = kapi_proc_create();
	FUZZ_CHECK(proc, "process");
	limits = fuzz_u8(&in);
	/* RLIMIT_MEMLOCK: 8 MiB (default), 64 KiB, or none at all. */
	if (limits & 1)
		kapi_mm_set_rlimit_memlock(64 << 10);
	else if (limits & 2)
		kapi_mm_set_rlimit_memlock(~0ULL);
	open_container(&in);

	for (unsigned int i = 0; i < MAX_OPS && !fuzz_empty(&in); i++) {
		enum type1_op op =
			op_of_byte[fuzz_u8(&in) % ARRAY_SIZE(op_of_byte)];

		if (!s.c && op != OP_CLOSE) {
			open_container(&in);
			continue;
		}
		switch (op) {
		case OP_MMAP_ANON: op_mmap(&in, KAPI_MM_ANON); break;
		case OP_MMAP_THP: op_mmap(&in, KAPI_MM_THP); break;
		case OP_MMAP_PFNMAP: op_mmap(&in, KAPI_MM_PFNMAP); break;
		case OP_MAP_DMA: op_map_dma(&in); break;
		case OP_UNMAP_DMA: op_unmap_dma(&in, 0); break;
		case OP_UNMAP_ALL: op_unmap_dma(&in, 1); break;
		case OP_UNMAP_DIRTY: op_unmap_dma(&in, 2); break;
		case OP_DIRTY: op_dirty(&in); break;
		case OP_PIN: op_pin(&in); break;
		case OP_MUNMAP: op_munmap(&in); break;
		case OP_CLOSE:
			if (s.c)
				close_container();
			break;
		}
		check_invariants(op_names[op]);
	}

	if (s.c)
		close_container();
	check_invariants("the last close");
	for (unsigned int i = 0; i < s.nr_vmas; i++)
		if (s.vmas[i].live)
			FUZZ_CHECK(kapi_mm_munmap(s.vmas[i].va) == 0, "munmap");
	kapi_proc_destroy(proc);
	sim_bars_reset();
	FUZZ_CHECK(kapi_mm_pins_outstanding() == 0, "pins after exit");
	FUZZ_CHECK(sim_kmalloc_outstanding() == kmallocs,
		   "%llu kernel objects after exit, %llu before",
		   sim_kmalloc_outstanding(), kmallocs);
	/* Every page back, and the free lists as the next input expects. */
	FUZZ_CHECK(sim_buddy_rewind() == 0, "pages held after exit");
	fuzz_choices_end();
	return 0;
}
