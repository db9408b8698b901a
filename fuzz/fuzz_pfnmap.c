// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_pfnmap: follow_pfnmap_start()/_end() (core/mm/memory.c) over random
 * page tables, through kapi_mm.h, against the simulator's reference walk
 * (kapi_mm_cpu_pfn).
 *
 * The input builds up to 6 mappings in one process: pfnmap VMAs over BARs
 * (size, BAR and virtual misalignment from 1 GiB, largest leaf PUD, PMD
 * or PTE, writable or not, populated at mmap or faulted later), and plain
 * anonymous and THP VMAs; then up to 32 operations: look up a page, walk a
 * range leaf by leaf, fault a range in, unmap a VMA.
 *
 *   VA   |<------------- VMA ------------->|
 *        | 4K .. | 2M .. |   1G   | 2M .. | 4K .. |     leaves: the largest
 *   BAR  pfn.. (aligned like VA or not)           that fit and co-align
 *
 * Invariants checked on every lookup:
 * - follow_pfnmap_start() succeeds exactly where the reference walk finds
 *   a leaf in a pfnmap VMA (else -EINVAL; -EFAULT with no VMA);
 * - pfn is exact (the BAR's first pfn plus the page index) and equals the
 *   reference walk's; addr_mask is the mask of the leaf's level; the leaf
 *   lies wholly inside the VMA; writable is the VMA's, special is set;
 * - the leaf is the largest the fault rule allows (max_leaf, inside the
 *   VMA, virtual and physical address aligned alike to its size);
 * - stride rule: epfn = (pfn | ~addr_mask >> PAGE_SHIFT) + 1 ends exactly
 *   at the end of the leaf: the page before it is in the same leaf.
 * A walk with the stride covers the same pages, with the same pfn sum, as
 * a page-by-page walk, in one lookup per leaf.  At the end every VMA is
 * unmapped, the process exits, and no page, pin or kernel object is left.
 * An optional placement ("\xd3place" mark, fuzz_common.h) puts RAM, the
 * BARs and the VMAs where machines rarely do (IOVAs: not used here).
 */
#include <errno.h>
#include <string.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/sim.h>

#include "fuzz_common.h"

#define MAX_MAPS	6
#define MAX_OPS		32
#define MAX_PAGE_WALK	4096	/* page-by-page walks longer than this: skipped */
/*
 * The size step of VMAs that cost a page each (RAM-backed, PTE-mapped):
 * a PMD with 4 KiB pages, 512 pages when a PMD has more (16, 64 KiB
 * pages), so an input builds as many pages at every page size.  Huge-leaf
 * BARs step by PMD and PUD: they need no RAM.
 */
#define SMALL_STEP	(PMD / PAGE <= 512 ? PMD : 512 * PAGE)

struct mapping {
	unsigned long va, len;
	enum kapi_mm_kind kind;
	unsigned long pfn;		/* PFNMAP: first pfn */
	int max_leaf;
	int writable;
	int live;
};

static struct mapping maps[MAX_MAPS];
static unsigned int nr_maps;
static unsigned long long kmalloc_at_start;
static unsigned long allocated_at_start;
static struct fuzz_place_state place;

static unsigned long mask_of_level(int level)
{
	return level == KAPI_MM_LEAF_PUD ? ~(PUD - 1) :
	       level == KAPI_MM_LEAF_PMD ? ~(PMD - 1) : ~(PAGE - 1);
}

static unsigned long size_of_level(int level)
{
	return ~mask_of_level(level) + 1;
}

/* The live mapping containing addr, or NULL. */
static const struct mapping *mapping_at(unsigned long addr)
{
	for (unsigned int i = 0; i < nr_maps; i++)
		if (maps[i].live && addr - maps[i].va < maps[i].len)
			return &maps[i];
	return NULL;
}

/* The fault rule: the largest leaf inside the VMA, co-aligned, <= max. */
static int expected_level(const struct mapping *m, unsigned long addr)
{
	for (int level = m->max_leaf; level > KAPI_MM_LEAF_PTE; level--) {
		unsigned long size = size_of_level(level);
		unsigned long base = addr & ~(size - 1);
		unsigned long pfn = m->pfn + (base - m->va) / PAGE;

		if (base >= m->va && base + size <= m->va + m->len &&
		    !((pfn * PAGE) & (size - 1)))
			return level;
	}
	return KAPI_MM_LEAF_PTE;
}

/* ---- building mappings ------------------------------------------------ */

static void create_mapping(struct fuzz_input *in)
{
	struct mapping *m = &maps[nr_maps];
	unsigned int flags = fuzz_u8(in);
	struct kapi_mm_map req = { 0 };
	unsigned long gigs = fuzz_u8(in) % 3, megs = fuzz_u8(in);
	unsigned long pages = fuzz_u16(in) % 1024, step = PMD;
	unsigned long bar_mis = (fuzz_u16(in) % 1024) * PAGE;
	unsigned long va_mis;
	int ret;

	memset(m, 0, sizeof(*m));
	m->kind = (flags & 3) == 3 ? KAPI_MM_ANON :
		  (flags & 3) == 2 ? KAPI_MM_THP : KAPI_MM_PFNMAP;
	m->max_leaf = KAPI_MM_LEAF_PTE + (flags >> 2) % 3;
	m->writable = (flags >> 4) & 1;
	/*
	 * Leaves are bounded: no PTE-only VMA above 2 SMALL_STEPs (4 MiB with
	 * 4 KiB pages), no PMD above 1 PUD.
	 */
	if (m->max_leaf == KAPI_MM_LEAF_PTE || m->kind != KAPI_MM_PFNMAP) {
		gigs = 0;
		megs %= 2;
		step = SMALL_STEP;
	} else if (m->max_leaf == KAPI_MM_LEAF_PMD) {
		gigs = 0;
	}
	/* Mostly a few pages of ragged edge: cheap to populate and unmap. */
	if (!(flags & 0x80))
		pages %= 16;
	m->len = gigs * PUD + (megs % 64) * step + pages * PAGE;
	if (!m->len)
		m->len = PAGE;
	/* Misalignment: a few pages and/or 2 MiB steps past 1 GiB. */
	bar_mis += ((unsigned long)fuzz_u8(in) % 512) * PMD;
	bar_mis &= PUD - 1;
	va_mis = (flags & 0x20) ? bar_mis :
		 (((unsigned long)fuzz_u8(in) % 512) * PMD +
		  ((unsigned long)fuzz_u16(in) % 512) * PAGE) & (PUD - 1);

	/*
	 * A BAR not co-aligned with its VMA at PMD size gets PTE leaves only:
	 * keep those small (2 SMALL_STEPs, 4 MiB with 4 KiB pages), as
	 * populating and unmapping cost a PTE each.
	 */
	if (((va_mis ^ bar_mis) & (PMD - 1)) && m->len > 2 * SMALL_STEP)
		m->len = 2 * SMALL_STEP - PAGE * (pages % 16);
	req.len = m->len;
	req.kind = m->kind;
	req.writable = m->writable;
	req.populate = (flags >> 6) & 1;
	req.align = PUD;
	req.misalign = va_mis;
	req.pgoff = fuzz_u16(in);
	if (m->kind == KAPI_MM_PFNMAP) {
		/*
		 * Only 4 TiB PUDs (64 KiB pages) can fill the 64 TiB physical
		 * map; the BAR is then not made, as PCI would not place it.
		 */
		ret = fuzz_place_bar(&place, m->len, bar_mis, &m->pfn);
		if (ret && PUD > (1UL << 36)) {
			FUZZ_LOG("no room for a BAR of 0x%lx", m->len);
			return;
		}
		FUZZ_CHECK(ret == 0, "BAR of 0x%lx", m->len);
		req.pfn = m->pfn;
		req.max_leaf = m->max_leaf;
	}
	FUZZ_LOG("mmap %s 0x%lx bytes, largest leaf %d, va +0x%lx, bar +0x%lx%s",
		 m->kind == KAPI_MM_PFNMAP ? "pfnmap" :
		 m->kind == KAPI_MM_THP ? "thp" : "anon", m->len, m->max_leaf,
		 va_mis, bar_mis, req.populate ? ", populated" : "");
	ret = fuzz_mmap_placed(&place, &req, &m->va);
	FUZZ_CHECK(ret == 0, "mmap of 0x%lx: %d", m->len, ret);
	m->live = 1;
	nr_maps++;
}

/* ---- operations ------------------------------------------------------- */

static unsigned long pick_addr(struct fuzz_input *in, const struct mapping *m)
{
	unsigned int how = fuzz_u8(in);
	unsigned long page = fuzz_u32(in) % (m->len / PAGE);

	/* Often the first or last page, or one beside a leaf boundary. */
	switch (how & 3) {
	case 0:
		return m->va + ((how >> 2) & 1 ? m->len - PAGE : 0);
	case 1: {
		unsigned long b = ((m->va + page * PAGE) & ~(PMD - 1)) +
				  ((how >> 2) & 1 ? PMD : 0);

		b -= (how >> 3) & 1 ? PAGE : 0;
		if (b - m->va < m->len)
			return b;
		break;
	}
	default:
		break;
	}
	return m->va + page * PAGE;
}

/*
 * Splits the input's choices made so far (choice point pt_leaf_changed:
 * another task split a leaf under a lookup); after one, a leaf may be
 * smaller than the fault rule gives.
 */
static unsigned long long splits_at_start;

static int leaves_were_split(void)
{
	return sim_choice_taken_alt[SIM_CH_PT_LEAF_CHANGED][SIM_PT_LEAF_SPLIT] !=
	       splits_at_start;
}

static void lookup(unsigned long addr)
{
	const struct mapping *m = mapping_at(addr);
	struct kapi_pfnmap r;
	unsigned long cpu_pfn = 0, last_pfn;
	int level = 0, last_level, cpu, ret;
	unsigned long epfn, n, leaf_base;

	ret = kapi_mm_follow_pfnmap(addr, &r);
	cpu = kapi_mm_cpu_pfn(addr, &cpu_pfn, &level);
	FUZZ_NOTE(addr - (m ? m->va : 0));
	FUZZ_NOTE(ret);
	FUZZ_NOTE(level);
	if (!m) {
		FUZZ_CHECK(ret == -EFAULT, "no VMA at 0x%lx: %d", addr, ret);
		return;
	}
	if (m->kind != KAPI_MM_PFNMAP || cpu) {
		FUZZ_CHECK(ret == -EINVAL, "0x%lx (%s): %d", addr,
			   cpu ? "not mapped" : "not a pfnmap", ret);
		return;
	}
	FUZZ_CHECK(ret == 0, "mapped pfnmap page 0x%lx: %d", addr, ret);
	FUZZ_CHECK(r.pfn == m->pfn + (addr - m->va) / PAGE && r.pfn == cpu_pfn,
		   "0x%lx: pfn 0x%lx, reference 0x%lx, expected 0x%lx", addr,
		   r.pfn, cpu_pfn, m->pfn + (addr - m->va) / PAGE);
	FUZZ_CHECK(r.addr_mask == mask_of_level(level),
		   "0x%lx: addr_mask 0x%lx for a level-%d leaf", addr,
		   r.addr_mask, level);
	FUZZ_CHECK(level == expected_level(m, addr) ||
		   (leaves_were_split() && level < expected_level(m, addr)),
		   "0x%lx: leaf level %d, the fault rule says %d", addr, level,
		   expected_level(m, addr));
	FUZZ_CHECK(r.writable == m->writable && r.special,
		   "0x%lx: writable %d special %d", addr, r.writable, r.special);
	leaf_base = addr & r.addr_mask;
	FUZZ_CHECK(leaf_base >= m->va &&
		   leaf_base + size_of_level(level) <= m->va + m->len,
		   "leaf 0x%lx of level %d outside the VMA", leaf_base, level);

	/* The stride ends at the end of the leaf, not before, not after. */
	epfn = (r.pfn | (~r.addr_mask >> SIM_PAGE_SHIFT)) + 1;
	n = epfn - r.pfn;
	FUZZ_CHECK(addr + n * PAGE == leaf_base + size_of_level(level),
		   "0x%lx: stride of %lu pages ends at 0x%lx, leaf at 0x%lx",
		   addr, n, addr + n * PAGE, leaf_base + size_of_level(level));
	FUZZ_CHECK(kapi_mm_cpu_pfn(addr + (n - 1) * PAGE, &last_pfn,
				   &last_level) == 0 &&
		   last_pfn == r.pfn + n - 1 && last_level == level,
		   "last page of the stride from 0x%lx", addr);
	/* An address before the VMA, with the VMA given: -EINVAL. */
	FUZZ_CHECK(kapi_mm_follow_pfnmap_vma(m->va, m->va - PAGE, &r) == -EINVAL &&
		   kapi_mm_follow_pfnmap_vma(m->va, m->va + m->len, &r) == -EINVAL,
		   "range check of follow_pfnmap_start");
}

/* Step leaf to leaf with the reference walk: leaves and pfn sum. */
static int reference_walk(unsigned long addr, unsigned long npages,
			  unsigned long *leaves, unsigned long long *sum)
{
	unsigned long done = 0;

	*leaves = 0;
	*sum = 0;
	while (done < npages) {
		unsigned long pfn, n;
		int level;

		if (kapi_mm_cpu_pfn(addr, &pfn, &level))
			return -1;
		n = (((addr & mask_of_level(level)) + size_of_level(level)) -
		     addr) / PAGE;
		if (n > npages - done)
			n = npages - done;
		*sum += (unsigned long long)n * pfn +
			(unsigned long long)n * (n - 1) / 2;
		(*leaves)++;
		done += n;
		addr += n * PAGE;
	}
	return 0;
}

static void walk(struct fuzz_input *in, const struct mapping *m)
{
	unsigned long addr = pick_addr(in, m);
	unsigned long npages = fuzz_u32(in) % ((m->va + m->len - addr) / PAGE) + 1;
	unsigned long done, done_pp, leaves;
	unsigned long long sum, sum_pp, ref_sum;
	long lookups, lookups_pp;
	int mapped;

	if (m->kind != KAPI_MM_PFNMAP)
		return;
	/*
	 * The reference after the walk: a leaf another task zapped or split
	 * under a lookup (choice point pt_leaf_changed) is gone or smaller
	 * in both.
	 */
	lookups = kapi_mm_pfnmap_walk(addr, npages, 1, &done, &sum);
	FUZZ_NOTE(npages);
	FUZZ_NOTE(lookups);
	mapped = reference_walk(addr, npages, &leaves, &ref_sum) == 0;
	if (!mapped) {
		FUZZ_CHECK(lookups == -EINVAL, "walk over a hole: %ld", lookups);
		return;
	}
	FUZZ_CHECK(lookups == (long)leaves && done == npages && sum == ref_sum,
		   "walk 0x%lx+%lu pages: %ld lookups (%lu leaves), %lu done, sum %llu vs %llu",
		   addr, npages, lookups, leaves, done, sum, ref_sum);
	if (npages > MAX_PAGE_WALK)
		return;
	lookups_pp = kapi_mm_pfnmap_walk(addr, npages, 0, &done_pp, &sum_pp);
	if (lookups_pp == -EINVAL) {
		/* a leaf was zapped under a lookup: the range has a hole now */
		FUZZ_CHECK(reference_walk(addr, npages, &leaves, &ref_sum),
			   "page-by-page walk failed over a mapped range");
		return;
	}
	FUZZ_CHECK(lookups_pp == (long)npages && done_pp == npages &&
		   sum_pp == sum, "page-by-page walk differs");
}

static void fault_in(struct fuzz_input *in, const struct mapping *m)
{
	unsigned long addr = pick_addr(in, m);
	unsigned long len = (fuzz_u16(in) % 1024 + 1) * PAGE;
	int write = fuzz_u8(in) & 1;
	int ret;

	if (len > m->va + m->len - addr)
		len = m->va + m->len - addr;
	ret = kapi_mm_touch(addr, len, write);
	if (write && !m->writable)
		FUZZ_CHECK(ret == -EFAULT, "write fault on a read-only VMA: %d", ret);
	else
		FUZZ_CHECK(ret == 0, "fault 0x%lx+0x%lx: %d", addr, len, ret);
}

/* Does a live mapping start at va? */
static int live_mapping_at(unsigned long va)
{
	for (unsigned int i = 0; i < nr_maps; i++)
		if (maps[i].live && maps[i].va == va)
			return 1;
	return 0;
}

/*
 * An operation byte: the low two bits say which operation, the rest which
 * mapping (>> 2) and, for OP_MUNMAP, whole VMA or not (0x80).
 */
enum pfnmap_op { OP_LOOKUP, OP_WALK, OP_FAULT_IN, OP_MUNMAP };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = fuzz_input_choosing(data, size);
	struct kapi_proc *proc;
	unsigned int n;

	place = (struct fuzz_place_state){ .place = fuzz_placement_of(&in) };
	splits_at_start =
		sim_choice_taken_alt[SIM_CH_PT_LEAF_CHANGED][SIM_PT_LEAF_SPLIT];
	fuzz_boot_machine_for(place.place.ram, NULL);
	kmalloc_at_start = sim_kmalloc_outstanding();
	proc = kapi_proc_create();
	FUZZ_CHECK(proc != NULL, "process");
	allocated_at_start = sim_buddy_nr_allocated();
	nr_maps = 0;
	n = fuzz_u8(&in) % MAX_MAPS + 1;
	for (unsigned int i = 0; i < n; i++)
		create_mapping(&in);

	for (unsigned int i = 0; i < MAX_OPS && nr_maps && !fuzz_empty(&in); i++) {
		unsigned int op = fuzz_u8(&in);
		struct mapping *m = &maps[(op >> 2) % nr_maps];

		switch ((enum pfnmap_op)(op & 3)) {
		case OP_LOOKUP:
			if (m->live)
				lookup(pick_addr(&in, m));
			else
				lookup(m->va + fuzz_u16(&in) % (m->len / PAGE) * PAGE);
			break;
		case OP_WALK:
			if (m->live)
				walk(&in, m);
			break;
		case OP_FAULT_IN:
			if (m->live)
				fault_in(&in, m);
			break;
		case OP_MUNMAP:
			if (m->live && (op & 0x80)) {
				FUZZ_CHECK(kapi_mm_munmap(m->va) == 0, "munmap");
				m->live = 0;
			} else if (m->live && !live_mapping_at(m->va + PAGE)) {
				/* Not a VMA's start (past a one-page VMA,
				 * another mapping may begin there). */
				FUZZ_CHECK(kapi_mm_munmap(m->va + PAGE) == -EINVAL,
					   "munmap inside a VMA");
			}
			break;
		}
	}

	for (unsigned int i = 0; i < nr_maps; i++)
		if (maps[i].live)
			FUZZ_CHECK(kapi_mm_munmap(maps[i].va) == 0, "munmap");
	FUZZ_CHECK(kapi_mm_nr_tables() <= 1, "%lu page tables left",
		   kapi_mm_nr_tables());
	kapi_proc_destroy(proc);
	sim_bars_reset();
	FUZZ_CHECK(kapi_mm_pins_outstanding() == 0, "pins left");
	FUZZ_CHECK(sim_buddy_nr_allocated() == allocated_at_start,
		   "%lu pages allocated, %lu at start", sim_buddy_nr_allocated(),
		   allocated_at_start);
	FUZZ_CHECK(sim_kmalloc_outstanding() == kmalloc_at_start,
		   "%llu kernel objects, %llu at start",
		   sim_kmalloc_outstanding(), kmalloc_at_start);
	fuzz_choices_end();
	return 0;
}
