// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulated address spaces: VMAs, x86-64 four-level page tables, faults,
 * pins, the zero page and MMIO BARs in the physical map.  The contract is
 * include/dmasim/sim_mm.h; this file is its only implementation.
 *
 * Page tables.  A table is one page-sized slot of host memory; slots come
 * from SIM_PT_CHUNK_SIZE chunks aligned to their size, whose first slots
 * hold one struct sim_pt_lock per slot (the table's split lock).  Freed
 * tables go on a free list threaded through their first word and are
 * cleared when reused, so the hot cost of a new table is a pointer pop.
 *
 * VMAs.  Each mm keeps its VMAs in an array sorted by start address
 * (binary search, plus the last hit cached): the simulator's address spaces
 * hold a handful of VMAs, and lookups dominate.
 *
 * RAM pages.  Anonymous pages and THP folios come from the buddy allocator
 * (sim_buddy_alloc).  A mapped page has mapcount 1 (anonymous memory is
 * never shared here: no fork).  Pins are counted on the folio head (the
 * kernel's folio->_pincount for large folios, the page itself for order 0).
 * A page unmapped while pinned stays allocated until its last unpin, as in
 * the kernel, where the pin holds a reference.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim_internal.h"

int sim_mm_legacy_addr_mask;
unsigned long sim_zero_pfn = ~0UL;

/*
 * One lock for every change to the sim's address spaces, page-table pool
 * and pins: kernel callers change page tables under the mmap lock and page
 * table locks, which this coarse (recursive) lock stands in for inside the
 * sim.  Walks (sim_mm_walk, the shim's accessors) take no lock: entries are
 * written with release stores and read with acquire loads.
 */
static pthread_mutex_t sim_mm_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static void sim_mm_lock_take(void)
{
	pthread_mutex_lock(&sim_mm_lock);
}

static void sim_mm_lock_drop(void)
{
	pthread_mutex_unlock(&sim_mm_lock);
}

void sim_mm_set_legacy_addr_mask(int on)
{
	sim_mm_legacy_addr_mask = !!on;
}

/* ------------------------------------------------------------------------
 * Page-table slots
 */
#define PT_LOCK_BYTES	(SIM_PT_CHUNK_SLOTS * sizeof(struct sim_pt_lock))
#define PT_HDR_SLOTS	((PT_LOCK_BYTES + SIM_PAGE_SIZE - 1) >> SIM_PAGE_SHIFT)

struct pt_chunk {
	void *base;
	struct pt_chunk *next;
};

static struct pt_chunk *pt_chunks;
static char *pt_bump, *pt_bump_end;
static void *pt_free_list;
static unsigned long pt_tables_live;

/*
 * Chunks a destroyed machine left for the next one (pt_chunks_release()),
 * every byte zero as a fresh mapping's: a fuzz harness that boots on 6% of
 * its runs mapped a chunk again after each boot, faulted its first slots in
 * and unmapped it at the next (2% of a fuzz_type1 campaign).
 */
static struct pt_chunk *pt_spare;

static void pt_chunk_use(struct pt_chunk *c)
{
	c->next = pt_chunks;
	pt_chunks = c;
	pt_bump = (char *)c->base + (PT_HDR_SLOTS << SIM_PAGE_SHIFT);
	pt_bump_end = (char *)c->base + SIM_PT_CHUNK_SIZE;
}

static int pt_chunk_new(void)
{
	size_t len = SIM_PT_CHUNK_SIZE * 2;
	char *raw, *base;
	struct pt_chunk *c;

	if (pt_spare) {
		c = pt_spare;
		pt_spare = c->next;
		pt_chunk_use(c);
		return 0;
	}
	raw = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED)
		return -ENOMEM;
	base = (char *)(((unsigned long)raw + SIM_PT_CHUNK_SIZE - 1) &
			~(SIM_PT_CHUNK_SIZE - 1));
	/* Keep exactly one aligned chunk. */
	if (base > raw)
		munmap(raw, base - raw);
	if (base + SIM_PT_CHUNK_SIZE < raw + len)
		munmap(base + SIM_PT_CHUNK_SIZE,
		       raw + len - (base + SIM_PT_CHUNK_SIZE));
	c = malloc(sizeof(*c));
	if (!c) {
		munmap(base, SIM_PT_CHUNK_SIZE);
		return -ENOMEM;
	}
	c->base = base;
	pt_chunk_use(c);
	return 0;
}

static unsigned long *pt_table_alloc(struct sim_mm *mm);
static void pt_table_free(struct sim_mm *mm, unsigned long *table);

static void pt_chunks_unmap(struct pt_chunk **list)
{
	while (*list) {
		struct pt_chunk *c = *list;

		*list = c->next;
		munmap(c->base, SIM_PT_CHUNK_SIZE);
		free(c);
	}
}

/*
 * The machine's chunks, once its address spaces are gone: kept for the
 * next machine when every table was freed (a freed table is zero but for
 * its free-list link, cleared here; slots above the bump were never
 * used; the locks are cleared), else unmapped.
 */
static void pt_chunks_release(void)
{
	if (!pt_tables_live) {
		while (pt_free_list) {
			void **t = pt_free_list;

			pt_free_list = *t;
			*t = NULL;
		}
		while (pt_chunks) {
			struct pt_chunk *c = pt_chunks;

			pt_chunks = c->next;
			memset(c->base, 0, PT_LOCK_BYTES);
			c->next = pt_spare;
			pt_spare = c;
		}
	}
	pt_chunks_unmap(&pt_chunks);
	pt_bump = pt_bump_end = NULL;
	pt_free_list = NULL;
	pt_tables_live = 0;
}

void sim_mm_release_kept(void)
{
	pt_chunks_unmap(&pt_spare);
}

/* ------------------------------------------------------------------------
 * Address spaces and VMAs
 */
/* The inline sim_vma_info() and sim_mm_find_vma() read the first members. */
struct sim_vma {
	struct sim_vma_info info;	/* first */
	struct sim_mm *mm;
};

/*
 * What the last-hit cache holds when it holds no VMA of the mm: a range
 * no address is in (start > end), so the inline lookup needs no NULL test.
 */
static struct sim_vma sim_vma_none = {
	.info = { .start = ~0UL, .end = 0 },
};

struct sim_mm {
	struct sim_mm_vma_cache cache;	/* first */
	unsigned long *pgd;
	void *owner;
	struct sim_vma **vmas;		/* sorted by start */
	unsigned int nr_vmas, cap_vmas;
	unsigned long nr_tables;
	unsigned long nr_anon_pages;
	struct sim_mm *next_live;	/* every live mm, for machine teardown */
};

_Static_assert(offsetof(struct sim_vma, info) == 0 &&
	       offsetof(struct sim_mm, cache) == 0,
	       "sim_mm.h's inline lookups read the first members");

static struct sim_mm *live_mms;

static unsigned long *pt_table_alloc(struct sim_mm *mm)
{
	unsigned long *t;

	if (pt_free_list) {
		t = pt_free_list;
		pt_free_list = *(void **)t;
		t[0] = 0;
	} else {
		if (pt_bump == pt_bump_end && pt_chunk_new())
			return NULL;
		t = (unsigned long *)pt_bump;
		pt_bump += SIM_PAGE_SIZE;
	}
	mm->nr_tables++;
	pt_tables_live++;
	return t;
}

/* The table must be empty except, possibly, for garbage the caller clears. */
static void pt_table_free(struct sim_mm *mm, unsigned long *table)
{
	memset(table, 0, SIM_PAGE_SIZE);
	*(void **)table = pt_free_list;
	pt_free_list = table;
	mm->nr_tables--;
	pt_tables_live--;
}

/*
 * The zero page is taken from the buddy allocator when the machine's first
 * address space is made (the kernel reserves it at boot; here a machine
 * that only exercises the allocator keeps every page free).  A machine
 * whose allocator has nothing to give runs without one: read faults then
 * allocate, as if every fault were a write.
 */
static void zero_page_ensure(void)
{
	struct sim_page *zero;

	if (sim_zero_pfn != ~0UL)
		return;
	zero = sim_buddy_alloc(0, SIM_GFP_ZERO);
	if (zero) {
		sim_page_set(zero, SIM_PG_RESERVED);
		sim_zero_pfn = sim_page_to_pfn(zero);
	}
}

static struct sim_mm *sim_mm_create_locked(void *owner)
{
	struct sim_mm *mm;

	zero_page_ensure();
	mm = calloc(1, sizeof(*mm));

	if (!mm)
		return NULL;
	mm->cache.last_hit = &sim_vma_none;
	mm->owner = owner;
	mm->pgd = pt_table_alloc(mm);
	if (!mm->pgd) {
		free(mm);
		return NULL;
	}
	mm->next_live = live_mms;
	live_mms = mm;
	return mm;
}

void *sim_mm_owner(const struct sim_mm *mm)
{
	return mm->owner;
}

unsigned long *sim_mm_pgd(struct sim_mm *mm)
{
	return mm->pgd;
}

unsigned int sim_mm_nr_vmas(const struct sim_mm *mm)
{
	return mm->nr_vmas;
}

unsigned long sim_mm_nr_tables(const struct sim_mm *mm)
{
	return mm->nr_tables;
}

unsigned long sim_mm_nr_anon_pages(const struct sim_mm *mm)
{
	return mm->nr_anon_pages;
}


/* Index of the first VMA whose end is above addr (nr_vmas if none). */
static unsigned int vma_index_above(const struct sim_mm *mm, unsigned long addr)
{
	unsigned int lo = 0, hi = mm->nr_vmas;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (mm->vmas[mid]->info.end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * sim_mm_find_vma() (sim_mm.h) when its cache missed.  last_hit is a cache
 * that readers of the address space (several may hold the mmap lock for
 * read at once) all update: relaxed atomics, any value seen is a VMA of
 * this mm or &sim_vma_none, as the VMA tree cannot change under them.
 */
struct sim_vma *sim_mm_find_vma_slow(struct sim_mm *mm, unsigned long addr)
{
	unsigned int i = vma_index_above(mm, addr);

	if (i == mm->nr_vmas || addr < mm->vmas[i]->info.start)
		return NULL;
	__atomic_store_n(&mm->cache.last_hit, mm->vmas[i], __ATOMIC_RELAXED);
	return mm->vmas[i];
}

struct sim_vma *sim_mm_find_vma_above(struct sim_mm *mm, unsigned long addr)
{
	unsigned int i = vma_index_above(mm, addr);

	return i == mm->nr_vmas ? NULL : mm->vmas[i];
}

static int range_is_free(const struct sim_mm *mm, unsigned long start,
			 unsigned long end)
{
	unsigned int i = vma_index_above(mm, start);

	return i == mm->nr_vmas || mm->vmas[i]->info.start >= end;
}

unsigned long sim_mm_get_unmapped_area(struct sim_mm *mm, unsigned long hint,
				       unsigned long len, unsigned long align,
				       unsigned long misalign)
{
	unsigned long addr = hint ? hint : SIM_USER_BASE;
	unsigned int i;

	if (!len || (len & (SIM_PAGE_SIZE - 1)) || align < SIM_PAGE_SIZE ||
	    (align & (align - 1)) || misalign >= align ||
	    (misalign & (SIM_PAGE_SIZE - 1)))
		return 0;
	for (;;) {
		addr = ((addr - misalign + align - 1) & ~(align - 1)) + misalign;
		if (addr < SIM_USER_BASE || addr + len < addr ||
		    addr + len > SIM_TASK_SIZE)
			return 0;
		i = vma_index_above(mm, addr);
		if (i == mm->nr_vmas || mm->vmas[i]->info.start >= addr + len)
			return addr;
		addr = mm->vmas[i]->info.end;
	}
}

/* ------------------------------------------------------------------------
 * Walk helpers
 */
static inline unsigned long level_shift(enum sim_pt_level level)
{
	return SIM_PAGE_SHIFT + (level - 1) * SIM_PT_ENTRY_BITS;
}

static inline unsigned long level_index(unsigned long addr,
					enum sim_pt_level level)
{
	return (addr >> level_shift(level)) & (SIM_PT_ENTRIES - 1);
}

/*
 * A table entry is present and not PSE; any other nonzero entry above the
 * PTE level is a leaf, present or not (sim_mm.h, "Non-present entries").
 */
static inline int entry_is_table(unsigned long v)
{
	return (v & (SIM_PTE_PRESENT | SIM_PTE_PSE)) == SIM_PTE_PRESENT;
}

/*
 * The entry slot for addr at level, allocating missing tables on the way
 * down.  NULL if a table cannot be allocated, or a leaf sits above level.
 */
static unsigned long *walk_alloc(struct sim_mm *mm, unsigned long addr,
				 enum sim_pt_level level)
{
	unsigned long *table = mm->pgd;
	enum sim_pt_level l;

	for (l = SIM_PT_PGD; l > level; l--) {
		unsigned long *e = &table[level_index(addr, l)];

		if (!*e) {
			unsigned long *next = pt_table_alloc(mm);

			if (!next)
				return NULL;
			__atomic_store_n(e, (unsigned long)next | SIM_PTE_TABLE,
					 __ATOMIC_RELEASE);
		} else if (!entry_is_table(*e)) {
			return NULL;
		}
		table = sim_pt_table_of(*e);
	}
	return &table[level_index(addr, level)];
}

/* The leaf slot mapping addr (present or not) and its level; NULL if none. */
static unsigned long *leaf_slot(struct sim_mm *mm, unsigned long addr,
				enum sim_pt_level *level)
{
	unsigned long *table = mm->pgd;
	enum sim_pt_level l;

	for (l = SIM_PT_PGD; l >= SIM_PT_PTE; l--) {
		unsigned long *e = &table[level_index(addr, l)];
		unsigned long v = __atomic_load_n(e, __ATOMIC_ACQUIRE);

		if (!v)
			return NULL;
		if (l == SIM_PT_PTE || !entry_is_table(v)) {
			*level = l;
			return e;
		}
		table = sim_pt_table_of(v);
	}
	return NULL;
}

int sim_mm_walk_any(struct sim_mm *mm, unsigned long addr, struct sim_walk *w)
{
	enum sim_pt_level l;
	unsigned long *e = leaf_slot(mm, addr, &l);
	unsigned long in_leaf;

	if (!e)
		return -ENOENT;
	in_leaf = addr & ((1UL << level_shift(l)) - 1);
	w->entryp = e;
	w->entry = __atomic_load_n(e, __ATOMIC_ACQUIRE);
	w->level = l;
	w->pfn = ((w->entry & SIM_PTE_ADDR_MASK) >> SIM_PAGE_SHIFT) +
		 (in_leaf >> SIM_PAGE_SHIFT);
	return 0;
}

int sim_mm_walk(struct sim_mm *mm, unsigned long addr, struct sim_walk *w)
{
	int ret = sim_mm_walk_any(mm, addr, w);

	if (!ret && !(w->entry & SIM_PTE_PRESENT))
		return -ENOENT;
	return ret;
}

static inline unsigned long leaf_entry(unsigned long pfn, enum sim_pt_level level,
				       int writable, int special)
{
	unsigned long v = ((pfn << SIM_PAGE_SHIFT) & SIM_PTE_ADDR_MASK) |
			  SIM_PTE_PRESENT | SIM_PTE_USER | SIM_PTE_ACCESSED;

	if (writable)
		v |= SIM_PTE_WRITE | SIM_PTE_DIRTY;
	if (special)
		v |= SIM_PTE_SPECIAL;
	if (level != SIM_PT_PTE)
		v |= SIM_PTE_PSE;
	return v;
}

static inline void set_entry(unsigned long *e, unsigned long v)
{
	__atomic_store_n(e, v, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------------
 * RAM pages: folios, pins, release
 */
static unsigned long pins_outstanding;

static inline struct sim_page *folio_head(struct sim_page *page)
{
	if (page->compound_head & 1)
		return (struct sim_page *)(page->compound_head - 1);
	return page;
}

static inline unsigned int folio_order(const struct sim_page *head)
{
	return sim_page_test(head, SIM_PG_HEAD) ? head->compound_order : 0;
}

/* Give a folio back once it is neither mapped nor pinned. */
static void folio_release_if_unused(struct sim_page *head)
{
	if (head->mapcount || head->pincount)
		return;
	sim_buddy_free(head, folio_order(head));
}

static void sim_page_pin_locked(struct sim_page *page, unsigned long n)
{
	struct sim_page *head = folio_head(page);

	if (sim_page_to_pfn(page) == sim_zero_pfn)
		return;
	head->pincount += n;
	pins_outstanding += n;
}

/* n pins off page's folio; the nr_dirty pages from page are marked dirty. */
static int sim_page_unpin_locked(struct sim_page *page, unsigned long n,
				 unsigned long nr_dirty)
{
	struct sim_page *head = folio_head(page);

	if (sim_page_to_pfn(page) == sim_zero_pfn)
		return 0;
	if ((unsigned long)head->pincount < n)
		return -EINVAL;
	while (nr_dirty--)
		sim_page_set(page + nr_dirty, SIM_PG_DIRTY);
	head->pincount -= n;
	pins_outstanding -= n;
	folio_release_if_unused(head);
	return 0;
}

unsigned long sim_pins_outstanding(void)
{
	return pins_outstanding;
}

int sim_page_is_zero(const struct sim_page *page)
{
	return sim_page_to_pfn(page) == sim_zero_pfn;
}

/* ------------------------------------------------------------------------
 * Faults
 */
static int leaf_fits(const struct sim_vma *v, unsigned long addr,
		     enum sim_pt_level level)
{
	unsigned long size = 1UL << level_shift(level);
	unsigned long base = addr & ~(size - 1);
	unsigned long pfn = v->info.pfn +
			    ((base - v->info.start) >> SIM_PAGE_SHIFT);

	if (base < v->info.start || base + size > v->info.end ||
	    base + size < base)
		return 0;
	/* virtual and physical addresses aligned alike to the leaf size */
	return ((pfn << SIM_PAGE_SHIFT) & (size - 1)) == 0;
}

/* Map the pfnmap leaf covering addr with the largest leaf allowed. */
static int fault_pfnmap(struct sim_mm *mm, struct sim_vma *v, unsigned long addr,
			enum sim_pt_level max_leaf)
{
	enum sim_pt_level level;
	unsigned long size, base, *e;

	for (level = max_leaf; level > SIM_PT_PTE; level--)
		if (leaf_fits(v, addr, level))
			break;
	size = 1UL << level_shift(level);
	base = addr & ~(size - 1);
	e = walk_alloc(mm, base, level);
	if (!e) {
		/* A smaller leaf or a table sits where a larger one would. */
		if (level == SIM_PT_PTE)
			return -ENOMEM;
		return fault_pfnmap(mm, v, addr, level - 1);
	}
	if (*e & SIM_PTE_PRESENT)
		return 0;
	if (level != SIM_PT_PTE && *e) {
		/* an empty table below: keep it and use the smaller leaves */
		return fault_pfnmap(mm, v, addr, level - 1);
	}
	set_entry(e, leaf_entry(v->info.pfn +
				((base - v->info.start) >> SIM_PAGE_SHIFT),
				level, v->info.flags & SIM_VMA_WRITE, 1));
	return 0;
}

static int fault_anon_small(struct sim_mm *mm, struct sim_vma *v,
			    unsigned long addr, int write)
{
	unsigned long *e = walk_alloc(mm, addr, SIM_PT_PTE);
	struct sim_page *page;

	if (!e)
		return -ENOMEM;
	if ((*e & SIM_PTE_PRESENT) &&
	    (!write || (*e & SIM_PTE_WRITE)))
		return 0;
	if (!write && sim_zero_pfn != ~0UL) {
		set_entry(e, leaf_entry(sim_zero_pfn, SIM_PT_PTE, 0, 0));
		return 0;
	}
	page = sim_buddy_alloc(0, SIM_GFP_ZERO | SIM_GFP_MOVABLE | SIM_GFP_NOWARN);
	if (!page)
		return -ENOMEM;
	page->mapcount = 1;
	mm->nr_anon_pages++;
	/* replaces the zero page, if it was mapped here */
	set_entry(e, leaf_entry(sim_page_to_pfn(page), SIM_PT_PTE,
				v->info.flags & SIM_VMA_WRITE, 0));
	return 0;
}

static int fault_thp(struct sim_mm *mm, struct sim_vma *v, unsigned long addr,
		     int write)
{
	unsigned long base = addr & ~(SIM_PMD_SIZE - 1);
	unsigned long *e;
	struct sim_page *page;

	if (base < v->info.start || base + SIM_PMD_SIZE > v->info.end)
		return fault_anon_small(mm, v, addr, write);
	e = walk_alloc(mm, base, SIM_PT_PMD);
	if (!e)
		return -ENOMEM;
	if ((*e & SIM_PTE_PRESENT) && (*e & SIM_PTE_PSE))
		return 0;	/* a PMD leaf maps addr already */
	/*
	 * A PTE table (an earlier fallback) is present too, but maps only
	 * what was faulted: fault addr's page in it.
	 */
	if (*e)
		return fault_anon_small(mm, v, addr, write);
	page = sim_buddy_alloc(SIM_PMD_ORDER, SIM_GFP_ZERO | SIM_GFP_COMP |
			       SIM_GFP_MOVABLE | SIM_GFP_NORETRY |
			       SIM_GFP_NOWARN);
	if (!page)
		return fault_anon_small(mm, v, addr, write);
	page->mapcount = 1;
	mm->nr_anon_pages += 1UL << SIM_PMD_ORDER;
	set_entry(e, leaf_entry(sim_page_to_pfn(page), SIM_PT_PMD,
				v->info.flags & SIM_VMA_WRITE, 0));
	return 0;
}

/* ------------------------------------------------------------------------
 * Non-present entries (sim_mm.h): what the kernel may leave in a leaf.
 */
#define NP_BITS	(SIM_PTE_NP_SWAP | SIM_PTE_NP_MIGRATION)

/* The present leaf an entry of any kind stands for (devmap kept). */
static unsigned long entry_present_form(unsigned long v, enum sim_pt_level level)
{
	if (v & SIM_PTE_PROTNONE) {
		if (v & SIM_PTE_SAVED_WRITE)
			v |= SIM_PTE_WRITE;
		v &= ~(SIM_PTE_PROTNONE | SIM_PTE_SAVED_WRITE);
	}
	if (v & NP_BITS) {
		v &= ~NP_BITS;
		if (level != SIM_PT_PTE)
			v |= SIM_PTE_PSE;
	}
	return v | SIM_PTE_PRESENT;
}

static unsigned long entry_of_kind(unsigned long v, enum sim_pt_entry_kind kind)
{
	switch (kind) {
	case SIM_ENTRY_SWAP:
		return (v & ~(SIM_PTE_PRESENT | SIM_PTE_PSE)) | SIM_PTE_NP_SWAP;
	case SIM_ENTRY_MIGRATION:
		return (v & ~(SIM_PTE_PRESENT | SIM_PTE_PSE)) |
		       SIM_PTE_NP_MIGRATION;
	case SIM_ENTRY_PROT_NONE:
		return (v & ~(SIM_PTE_PRESENT | SIM_PTE_WRITE)) |
		       SIM_PTE_PROTNONE |
		       ((v & SIM_PTE_WRITE) ? SIM_PTE_SAVED_WRITE : 0);
	case SIM_ENTRY_SPLITTING:
		return v & ~SIM_PTE_PRESENT;
	case SIM_ENTRY_DEVMAP:
		return v | SIM_PTE_DEVMAP;
	default:
		return v & ~SIM_PTE_DEVMAP;
	}
}

static int sim_mm_set_entry_locked(struct sim_mm *mm, unsigned long addr,
				   enum sim_pt_level level,
				   enum sim_pt_entry_kind kind)
{
	struct sim_vma *vma = sim_mm_find_vma(mm, addr);
	enum sim_pt_level l;
	unsigned long *e;

	if (level < SIM_PT_PTE || level > SIM_PT_PUD || kind >= SIM_ENTRY_NR)
		return -EINVAL;
	e = leaf_slot(mm, addr, &l);
	if (!e || l != level || !vma)
		return -ENOENT;
	if (kind == SIM_ENTRY_SPLITTING &&
	    (level == SIM_PT_PTE || (vma->info.kind != SIM_VMA_PFNMAP &&
				     vma->info.kind != SIM_VMA_IO)))
		return -EOPNOTSUPP;
	set_entry(e, entry_of_kind(entry_present_form(*e, level), kind));
	return 0;
}

/*
 * Migration done: an unpinned 4 KiB anonymous page (not the zero page)
 * now lives in a new frame with the same bytes; the entry v maps it.
 * Without a free page the migration failed and the page stays.
 */
static unsigned long migrate_small_page(struct sim_mm *mm, unsigned long v)
{
	unsigned long pfn = (v & SIM_PTE_ADDR_MASK) >> SIM_PAGE_SHIFT;
	struct sim_page *old, *new;

	if (pfn == sim_zero_pfn || !sim_pfn_valid(pfn))
		return v;
	old = sim_pfn_to_page(pfn);
	if (folio_head(old) != old || folio_order(old) || old->pincount)
		return v;
	new = sim_buddy_alloc(0, SIM_GFP_MOVABLE | SIM_GFP_NOWARN);
	if (!new)
		return v;
	memcpy(sim_phys_to_virt((sim_phys_t)sim_page_to_pfn(new) << SIM_PAGE_SHIFT),
	       sim_phys_to_virt((sim_phys_t)pfn << SIM_PAGE_SHIFT), SIM_PAGE_SIZE);
	new->mapcount = 1;
	old->mapcount = 0;
	folio_release_if_unused(old);
	(void)mm;
	return (v & ~SIM_PTE_ADDR_MASK) |
	       ((sim_page_to_pfn(new) << SIM_PAGE_SHIFT) & SIM_PTE_ADDR_MASK);
}

/*
 * Before a fault: bring back a non-present leaf on addr's path (swap in,
 * wait for the migration, the NUMA-hinting fault of PROT_NONE, or wait
 * for a split, which leaves the pfnmap leaf zapped).
 */
static void fault_nonpresent(struct sim_mm *mm, const struct sim_vma *vma,
			     unsigned long addr)
{
	enum sim_pt_level l;
	unsigned long *e = leaf_slot(mm, addr, &l);
	unsigned long v;

	if (!e)
		return;
	v = *e;
	if ((v & SIM_PTE_PRESENT) && !(v & SIM_PTE_PROTNONE))
		return;
	if (sim_pt_entry_mid_split(v)) {
		set_entry(e, 0);
		return;
	}
	if ((v & SIM_PTE_NP_MIGRATION) && l == SIM_PT_PTE &&
	    vma->info.kind != SIM_VMA_PFNMAP && vma->info.kind != SIM_VMA_IO)
		v = migrate_small_page(mm, v);
	set_entry(e, entry_present_form(v, l));
}

void sim_pt_lock_race_slow(struct sim_mm *mm, void *entry,
			   enum sim_pt_level level)
{
	void (*hook)(struct sim_mm *, const void *) = sim_pt_lock_race_hook;
	unsigned long v;
	unsigned int alt;

	if (hook) {
		sim_pt_lock_race_set(0);
		hook(mm, entry);
	}
	v = __atomic_load_n((unsigned long *)entry, __ATOMIC_ACQUIRE);
	if (sim_pt_entry_mid_split(v)) {
		sim_mm_wait_for_split(mm, entry);
		return;
	}
	if ((v & (SIM_PTE_PRESENT | SIM_PTE_PSE | SIM_PTE_SPECIAL)) !=
	    (SIM_PTE_PRESENT | SIM_PTE_PSE | SIM_PTE_SPECIAL))
		return;
	alt = sim_choose(SIM_CH_PT_LEAF_CHANGED, SIM_PT_LEAF_NR);
	if (alt)
		sim_mm_leaf_race(mm, entry, level, (enum sim_pt_leaf_race)alt);
}

void sim_mm_wait_for_split(struct sim_mm *mm, void *entry)
{
	unsigned long *e = entry;

	sim_mm_lock_take();
	if (sim_pt_entry_mid_split(*e))
		set_entry(e, 0);
	sim_mm_lock_drop();
	(void)mm;
}

void sim_mm_leaf_race(struct sim_mm *mm, void *entry, enum sim_pt_level level,
		      enum sim_pt_leaf_race what)
{
	unsigned long *e = entry, v, *t, step, i;

	sim_mm_lock_take();
	v = *e;
	if (what == SIM_PT_LEAF_KEPT || level <= SIM_PT_PTE ||
	    (v & (SIM_PTE_PRESENT | SIM_PTE_PSE | SIM_PTE_SPECIAL)) !=
	    (SIM_PTE_PRESENT | SIM_PTE_PSE | SIM_PTE_SPECIAL))
		goto out;
	t = what == SIM_PT_LEAF_SPLIT ? pt_table_alloc(mm) : NULL;
	if (!t) {
		set_entry(e, 0);
		goto out;
	}
	/* leaves of the next level: the same flags, consecutive pfns */
	if (level - 1 == SIM_PT_PTE)
		v &= ~SIM_PTE_PSE;
	step = 1UL << level_shift(level - 1);
	for (i = 0; i < SIM_PT_ENTRIES; i++)
		t[i] = v + i * step;
	set_entry(e, (unsigned long)t | SIM_PTE_TABLE);
out:
	sim_mm_lock_drop();
}

/*
 * hugetlbfs with 1 GiB pages: the fault allocates the whole folio and maps
 * it with one PUD leaf; with no gigantic page to be had it fails as
 * hugetlb does (VM_FAULT_SIGBUS, here -EFAULT).
 */
static int fault_hugetlb(struct sim_mm *mm, struct sim_vma *v,
			 unsigned long addr)
{
	unsigned long base = addr & ~(SIM_PUD_SIZE - 1);
	unsigned long *e = walk_alloc(mm, base, SIM_PT_PUD);
	struct sim_page *page;

	if (!e)
		return -ENOMEM;
	if (*e & SIM_PTE_PRESENT)
		return 0;
	page = sim_buddy_alloc_gigantic(SIM_PUD_SHIFT - SIM_PAGE_SHIFT,
					SIM_GFP_ZERO | SIM_GFP_MOVABLE);
	if (!page)
		return -EFAULT;
	page->mapcount = 1;
	mm->nr_anon_pages += 1UL << (SIM_PUD_SHIFT - SIM_PAGE_SHIFT);
	set_entry(e, leaf_entry(sim_page_to_pfn(page), SIM_PT_PUD,
				v->info.flags & SIM_VMA_WRITE, 0));
	return 0;
}

static int sim_mm_fault_locked(struct sim_mm *mm, unsigned long addr, int write)
{
	struct sim_vma *v = sim_mm_find_vma(mm, addr);
	struct sim_walk w;

	sim_count(SIM_CNT_FAULT, 1);
	if (!v || (write && !(v->info.flags & SIM_VMA_WRITE)) ||
	    !(v->info.flags & (SIM_VMA_READ | SIM_VMA_WRITE)))
		return -EFAULT;
	fault_nonpresent(mm, v, addr);
	switch (v->info.kind) {
	case SIM_VMA_PFNMAP:
		return fault_pfnmap(mm, v, addr, v->info.max_leaf);
	case SIM_VMA_THP:
		return fault_thp(mm, v, addr, write);
	case SIM_VMA_ANON:
		return fault_anon_small(mm, v, addr, write);
	case SIM_VMA_DRIVER:
		return v->info.fault(v->info.owner, addr, write);
	case SIM_VMA_HUGETLB:
		return fault_hugetlb(mm, v, addr);
	case SIM_VMA_IO:
		/* no handler: only an entry brought back above satisfies it */
		return sim_mm_walk(mm, addr, &w) ? -EFAULT : 0;
	}
	return -EFAULT;
}

static int sim_mm_remap_pfn_range_locked(struct sim_mm *mm, unsigned long addr,
			   unsigned long pfn, unsigned long size,
			   enum sim_pt_level max_leaf, int writable)
{
	unsigned long end = addr + size;

	if ((addr | size) & (SIM_PAGE_SIZE - 1) || end < addr)
		return -EINVAL;
	while (addr < end) {
		enum sim_pt_level level;
		unsigned long lsize, *e;

		for (level = max_leaf; level > SIM_PT_PTE; level--) {
			lsize = 1UL << level_shift(level);
			if (!(addr & (lsize - 1)) && end - addr >= lsize &&
			    !((pfn << SIM_PAGE_SHIFT) & (lsize - 1)))
				break;
		}
		lsize = 1UL << level_shift(level);
		e = walk_alloc(mm, addr, level);
		if (!e || (level != SIM_PT_PTE && *e && !(*e & SIM_PTE_PSE))) {
			if (level == SIM_PT_PTE)
				return -ENOMEM;
			/* a table already below: fill it with small leaves */
			max_leaf = level - 1;
			continue;
		}
		if (*e & SIM_PTE_PRESENT)
			return -EBUSY;
		if (level == SIM_PT_PTE) {
			/* fill the rest of this PTE table in one go */
			unsigned long stop = (addr | (SIM_PMD_SIZE - 1)) + 1;
			unsigned long v = leaf_entry(pfn, level, writable, 1);

			if (stop > end || stop < addr)
				stop = end;
			for (; addr < stop; addr += SIM_PAGE_SIZE, pfn++, e++) {
				if (*e & SIM_PTE_PRESENT)
					return -EBUSY;
				set_entry(e, v);
				v += SIM_PAGE_SIZE;
			}
			continue;
		}
		set_entry(e, leaf_entry(pfn, level, writable, 1));
		addr += lsize;
		pfn += lsize >> SIM_PAGE_SHIFT;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Unmap: clear the leaves of [start, end), release anonymous pages, free
 * tables left empty.
 */
static void release_leaf(struct sim_mm *mm, const struct sim_vma *v,
			 unsigned long entry)
{
	struct sim_page *page;
	unsigned long pfn = (entry & SIM_PTE_ADDR_MASK) >> SIM_PAGE_SHIFT;

	if (v->info.kind == SIM_VMA_PFNMAP || v->info.kind == SIM_VMA_IO ||
	    v->info.kind == SIM_VMA_DRIVER || pfn == sim_zero_pfn)
		return;
	page = sim_pfn_to_page(pfn);
	mm->nr_anon_pages -= 1UL << folio_order(page);
	page->mapcount = 0;
	folio_release_if_unused(page);
}

static int table_is_empty(const unsigned long *t)
{
	unsigned long i;

	for (i = 0; i < SIM_PT_ENTRIES; i++)
		if (t[i])
			return 0;
	return 1;
}

static void unmap_level(struct sim_mm *mm, const struct sim_vma *v,
			unsigned long *table, enum sim_pt_level level,
			unsigned long start, unsigned long end)
{
	unsigned long size = 1UL << level_shift(level);
	unsigned long addr = start;

	while (addr < end) {
		unsigned long next = (addr & ~(size - 1)) + size;
		unsigned long *e = &table[level_index(addr, level)];

		if (next > end || next < addr)
			next = end;
		if (*e) {
			if (level == SIM_PT_PTE || !entry_is_table(*e)) {
				release_leaf(mm, v, *e);
				set_entry(e, 0);
			} else {
				unsigned long *child = sim_pt_table_of(*e);

				unmap_level(mm, v, child, level - 1, addr, next);
				if (table_is_empty(child)) {
					set_entry(e, 0);
					pt_table_free(mm, child);
				}
			}
		}
		addr = next;
	}
}

static void sim_mm_zap_range_locked(struct sim_mm *mm, unsigned long start, unsigned long end)
{
	struct sim_vma *v = sim_mm_find_vma(mm, start);

	if (v && end > start)
		unmap_level(mm, v, mm->pgd, SIM_PT_PGD, start, end);
}

/* ------------------------------------------------------------------------
 * Map and unmap VMAs
 */
/*
 * The address after the leaf mapping addr: the next page but in a THP VMA,
 * whose faults may map a PMD leaf (the only VMA a walk is asked of).
 */
static unsigned long populate_next(struct sim_mm *mm,
				   const struct sim_vma_info *info,
				   unsigned long addr)
{
	struct sim_walk w;

	if ((info->kind != SIM_VMA_THP && info->kind != SIM_VMA_HUGETLB) ||
	    sim_mm_walk(mm, addr, &w) ||
	    w.level == SIM_PT_PTE)
		return addr + SIM_PAGE_SIZE;
	return (addr | ((1UL << level_shift(w.level)) - 1)) + 1;
}

static int sim_mm_map_locked(struct sim_mm *mm, const struct sim_vma_info *info,
	       struct sim_vma **out)
{
	struct sim_vma *v;
	unsigned int i;
	int ret = 0;

	if (!info->end || info->start >= info->end ||
	    ((info->start | info->end) & (SIM_PAGE_SIZE - 1)) ||
	    info->start < SIM_PAGE_SIZE || info->end > SIM_TASK_SIZE ||
	    (info->kind > SIM_VMA_IO && info->kind != SIM_VMA_HUGETLB) ||
	    (info->kind == SIM_VMA_HUGETLB &&
	     ((info->start | info->end) & (SIM_PUD_SIZE - 1))) ||
	    (info->kind == SIM_VMA_PFNMAP &&
	     (info->max_leaf < SIM_PT_PTE || info->max_leaf > SIM_PT_PUD)))
		return -EINVAL;
	if (!range_is_free(mm, info->start, info->end))
		return -EEXIST;
	if (mm->nr_vmas == mm->cap_vmas) {
		unsigned int cap = mm->cap_vmas ? mm->cap_vmas * 2 : 8;
		struct sim_vma **a = realloc(mm->vmas, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		mm->vmas = a;
		mm->cap_vmas = cap;
	}
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->info = *info;
	v->mm = mm;
	i = vma_index_above(mm, info->start);
	memmove(&mm->vmas[i + 1], &mm->vmas[i],
		(mm->nr_vmas - i) * sizeof(*mm->vmas));
	mm->vmas[i] = v;
	mm->nr_vmas++;
	if (info->flags & SIM_VMA_POPULATE) {
		unsigned long addr;

		if (info->kind == SIM_VMA_IO) {
			ret = 0;
		} else if (info->kind == SIM_VMA_PFNMAP) {
			ret = sim_mm_remap_pfn_range(mm, info->start, info->pfn,
						     info->end - info->start,
						     info->max_leaf,
						     !!(info->flags & SIM_VMA_WRITE));
		} else {
			/*
			 * As the kernel's populate steps over what the leaf
			 * just faulted maps (follow_page_mask's page mask):
			 * one fault per THP, not one per 4K page of it.
			 */
			for (addr = info->start; addr < info->end && !ret;
			     addr = populate_next(mm, info, addr))
				ret = sim_mm_fault(mm, addr,
						   !!(info->flags & SIM_VMA_WRITE));
		}
		if (ret) {
			sim_mm_unmap(mm, info->start);
			return ret;
		}
	}
	if (out)
		*out = v;
	return 0;
}

static int sim_mm_unmap_locked(struct sim_mm *mm, unsigned long start)
{
	unsigned int i = vma_index_above(mm, start);
	struct sim_vma *v;

	if (i == mm->nr_vmas || mm->vmas[i]->info.start != start)
		return -EINVAL;
	v = mm->vmas[i];
	unmap_level(mm, v, mm->pgd, SIM_PT_PGD, v->info.start, v->info.end);
	memmove(&mm->vmas[i], &mm->vmas[i + 1],
		(mm->nr_vmas - i - 1) * sizeof(*mm->vmas));
	mm->nr_vmas--;
	if (mm->cache.last_hit == v)
		__atomic_store_n(&mm->cache.last_hit, &sim_vma_none,
				 __ATOMIC_RELAXED);
	free(v);
	return 0;
}

static void sim_mm_destroy_one_locked(struct sim_mm *mm)
{
	struct sim_mm **p;

	if (!mm)
		return;
	while (mm->nr_vmas)
		sim_mm_unmap(mm, mm->vmas[0]->info.start);
	pt_table_free(mm, mm->pgd);
	for (p = &live_mms; *p; p = &(*p)->next_live)
		if (*p == mm) {
			*p = mm->next_live;
			break;
		}
	free(mm->vmas);
	free(mm);
}

/* ------------------------------------------------------------------------
 * The public entry points: each runs under sim_mm_lock.
 */

struct sim_mm *sim_mm_create(void *owner)
{
	struct sim_mm *ret;

	sim_mm_lock_take();
	ret = sim_mm_create_locked(owner);
	sim_mm_lock_drop();
	return ret;
}

void sim_page_pin(struct sim_page *page, unsigned long n)
{
	sim_mm_lock_take();
	sim_page_pin_locked(page, n);
	sim_mm_lock_drop();
}

int sim_page_unpin(struct sim_page *page, unsigned long n, int dirty)
{
	int ret;

	sim_mm_lock_take();
	ret = sim_page_unpin_locked(page, n, dirty ? 1 : 0);
	sim_mm_lock_drop();
	return ret;
}

int sim_page_unpin_range(struct sim_page *page, unsigned long n, int dirty)
{
	int ret = 0;

	sim_mm_lock_take();
	while (n) {
		struct sim_page *head = folio_head(page);
		unsigned long in_folio = (1UL << folio_order(head)) -
					 (unsigned long)(page - head);

		if (in_folio > n)
			in_folio = n;
		if (sim_page_unpin_locked(page, in_folio, dirty ? in_folio : 0))
			ret = -EINVAL;
		page += in_folio;
		n -= in_folio;
	}
	sim_mm_lock_drop();
	return ret;
}

int sim_mm_fault(struct sim_mm *mm, unsigned long addr, int write)
{
	int ret;

	sim_mm_lock_take();
	ret = sim_mm_fault_locked(mm, addr, write);
	sim_mm_lock_drop();
	return ret;
}

int sim_mm_set_entry(struct sim_mm *mm, unsigned long addr,
		     enum sim_pt_level level, enum sim_pt_entry_kind kind)
{
	int ret;

	sim_mm_lock_take();
	ret = sim_mm_set_entry_locked(mm, addr, level, kind);
	sim_mm_lock_drop();
	return ret;
}

int sim_vma_set_fault(struct sim_vma *v,
		      int (*fault)(void *owner, unsigned long addr, int write))
{
	if (v->info.kind != SIM_VMA_IO || !fault)
		return -EINVAL;
	sim_mm_lock_take();
	v->info.kind = SIM_VMA_DRIVER;
	v->info.fault = fault;
	sim_mm_lock_drop();
	return 0;
}

int sim_mm_level_none(struct sim_mm *mm, unsigned long addr,
		      enum sim_pt_level level)
{
	unsigned long *table = mm->pgd;
	enum sim_pt_level l;
	int none = 1;

	sim_mm_lock_take();
	for (l = SIM_PT_PGD; l >= level; l--) {
		unsigned long e = table[level_index(addr, l)];

		if (!e)
			break;
		if (l == level || (e & SIM_PTE_PSE)) {
			none = 0;
			break;
		}
		table = sim_pt_table_of(e);
	}
	sim_mm_lock_drop();
	return none;
}

int sim_mm_insert_leaf(struct sim_mm *mm, unsigned long addr,
		       unsigned long pfn, enum sim_pt_level level, int writable)
{
	unsigned long size = 1UL << level_shift(level);
	struct sim_vma *v;
	unsigned long *e;
	int ret = 0;

	if (level < SIM_PT_PTE || level > SIM_PT_PUD || (addr & (size - 1)) ||
	    ((pfn << SIM_PAGE_SHIFT) & (size - 1)))
		return -EINVAL;
	sim_mm_lock_take();
	v = sim_mm_find_vma(mm, addr);
	if (!v || v->info.kind != SIM_VMA_DRIVER ||
	    addr + size > v->info.end || addr + size < addr) {
		ret = -EINVAL;
		goto out;
	}
	e = walk_alloc(mm, addr, level);
	if (!e || *e)
		ret = e || sim_mm_level_none(mm, addr, level) ? -EEXIST : -ENOMEM;
	else
		set_entry(e, leaf_entry(pfn, level, writable, 1));
out:
	sim_mm_lock_drop();
	return ret;
}

int sim_mm_remap_pfn_range(struct sim_mm *mm, unsigned long addr,
			   unsigned long pfn, unsigned long size,
			   enum sim_pt_level max_leaf, int writable)
{
	int ret;

	sim_mm_lock_take();
	ret = sim_mm_remap_pfn_range_locked(mm, addr, pfn, size, max_leaf, writable);
	sim_mm_lock_drop();
	return ret;
}

/* The race-on-demand hook of pud_lock()/pmd_lock() (see sim_mm.h). */
void (*sim_pt_lock_race_hook)(struct sim_mm *mm, const void *entry);

void sim_mm_zap_range(struct sim_mm *mm, unsigned long start, unsigned long end)
{
	sim_mm_lock_take();
	sim_mm_zap_range_locked(mm, start, end);
	sim_mm_lock_drop();
}

int sim_mm_map(struct sim_mm *mm, const struct sim_vma_info *info,
	       struct sim_vma **out)
{
	int ret;

	sim_mm_lock_take();
	ret = sim_mm_map_locked(mm, info, out);
	sim_mm_lock_drop();
	return ret;
}

int sim_mm_unmap(struct sim_mm *mm, unsigned long start)
{
	int ret;

	sim_mm_lock_take();
	ret = sim_mm_unmap_locked(mm, start);
	sim_mm_lock_drop();
	return ret;
}

void sim_mm_destroy_one(struct sim_mm *mm)
{
	sim_mm_lock_take();
	sim_mm_destroy_one_locked(mm);
	sim_mm_lock_drop();
}

/* ------------------------------------------------------------------------
 * MMIO BARs: a list of the physical ranges placed, for overlap checks (a
 * machine has a handful), and two cursors for automatic placement.
 */
struct bar_range {
	unsigned long long start, end;	/* bytes, [start, end) */
};

static struct bar_range *bars;
static unsigned int nr_bars, cap_bars;
static unsigned long long bar_next_high, bar_next_low;

void sim_bars_reset(void)
{
	free(bars);
	bars = NULL;
	nr_bars = cap_bars = 0;
	bar_next_high = 0;
	bar_next_low = SIM_LOW_RAM_END;
}

/*
 * What of [base, base + size) is taken (RAM or a BAR): 0 if nothing, else
 * the end of the first range in the way.
 */
static unsigned long long phys_taken_until(unsigned long long base,
					   unsigned long long size)
{
	const struct sim_ram_range *ram;
	unsigned int i, n = sim_ram_ranges(&ram);
	unsigned long long end = base + size;

	for (i = 0; i < n; i++) {
		unsigned long long s = (unsigned long long)ram[i].start_pfn << SIM_PAGE_SHIFT;
		unsigned long long e = (unsigned long long)ram[i].end_pfn << SIM_PAGE_SHIFT;

		if (s < end && base < e)
			return e;
	}
	for (i = 0; i < nr_bars; i++)
		if (bars[i].start < end && base < bars[i].end)
			return bars[i].end;
	return 0;
}

static int bar_record(unsigned long long base, unsigned long long size)
{
	if (nr_bars == cap_bars) {
		unsigned int cap = cap_bars ? cap_bars * 2 : 8;
		struct bar_range *b = realloc(bars, cap * sizeof(*b));

		if (!b)
			return -ENOMEM;
		bars = b;
		cap_bars = cap;
	}
	bars[nr_bars].start = base;
	bars[nr_bars++].end = base + size;
	return 0;
}

int sim_bar_place(unsigned long long base, unsigned long long size)
{
	unsigned long long limit = 1ULL << sim_phys_bits();

	if (!size || ((base | size) & (SIM_PAGE_SIZE - 1)))
		return -EINVAL;
	if (base >= limit || size > limit - base)
		return -ERANGE;
	if (phys_taken_until(base, size))
		return -EEXIST;
	return bar_record(base, size);
}

/*
 * The lowest base >= from, aligned to align plus misalign, where size
 * bytes below limit are free; 0 (with *ok 0) if none.
 */
static unsigned long long bar_find(unsigned long long from,
				   unsigned long long limit,
				   unsigned long long size,
				   unsigned long long align,
				   unsigned long long misalign, int *ok)
{
	*ok = 0;
	for (;;) {
		unsigned long long base, taken;

		if (from > ~0ULL - align)
			return 0;
		base = ((from + align - 1) & ~(align - 1)) + misalign;
		if (base < from || base >= limit || size > limit - base)
			return 0;
		taken = phys_taken_until(base, size);
		if (!taken) {
			*ok = 1;
			return base;
		}
		from = taken;
	}
}

unsigned long sim_bar_create(unsigned long long size, unsigned long long align,
			     unsigned long long misalign, int below4g)
{
	unsigned long long *next, base, limit;
	int ok;

	if (!size || (size & (SIM_PAGE_SIZE - 1)) ||
	    (misalign & (SIM_PAGE_SIZE - 1)))
		return 0;
	if (!align) {
		align = SIM_PAGE_SIZE;
		while (align < size && align)
			align <<= 1;
	}
	if (!align || align & (align - 1) || align < SIM_PAGE_SIZE ||
	    misalign >= align)
		return 0;
	if (below4g) {
		next = &bar_next_low;
		limit = SIM_HIGH_RAM_START;
	} else {
		if (!bar_next_high)
			bar_next_high = (unsigned long long)sim_max_pfn << SIM_PAGE_SHIFT;
		next = &bar_next_high;
		limit = 1ULL << sim_phys_bits();
	}
	base = bar_find(*next, limit, size, align, misalign, &ok);
	/* RAM up to the top: look again from 4 GiB (or 0) up. */
	if (!ok)
		base = bar_find(below4g ? 0 : SIM_HIGH_RAM_START, limit, size,
				align, misalign, &ok);
	if (!ok || !base || bar_record(base, size))
		return 0;
	*next = base + size;
	return (unsigned long)(base >> SIM_PAGE_SHIFT);
}

/* ------------------------------------------------------------------------
 * Machine setup and teardown
 */
int sim_mm_init(const struct sim_config *cfg __attribute__((unused)))
{
	sim_mm_legacy_addr_mask = 0;
	pins_outstanding = 0;
	sim_zero_pfn = ~0UL;
	sim_bars_reset();
	return 0;
}

void sim_mm_destroy(void)
{
	while (live_mms)
		sim_mm_destroy_one(live_mms);
	if (sim_zero_pfn != ~0UL) {
		struct sim_page *zero = sim_pfn_to_page(sim_zero_pfn);

		sim_page_clear(zero, SIM_PG_RESERVED);
		sim_buddy_free(zero, 0);
		sim_zero_pfn = ~0UL;
	}
	pt_chunks_release();
	sim_bars_reset();
}
