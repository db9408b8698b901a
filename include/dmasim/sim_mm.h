/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: simulated address spaces (sim/mm.c).  Plain C; see sim.h for the
 * rules every include/dmasim header follows.
 *
 * An address space (struct sim_mm) is a set of VMAs and an x86-64
 * four-level page table (PGD -> PUD -> PMD -> PTE; P4D folded, as with
 * 4-level paging).  Tables are real radix tables of SIM_PT_ENTRIES 64-bit
 * entries (512 with 4 KiB pages), one table per page-sized, page-aligned
 * slot of host memory.  The entry format is x86-64's, and is the contract
 * kernel_shim's <asm/pgtable*.h> reads with plain loads (no call into the
 * sim on the walk's hot path):
 *
 *   bit 0 present, 1 write, 2 user, 5 accessed, 6 dirty,
 *   7 PSE (a PUD or PMD entry that is a leaf), 9 special (no struct page
 *   behind the pfn: pte_special/pmd_special/pud_special),
 *   bits PAGE_SHIFT..51: a leaf's pfn << PAGE_SHIFT, or, in a table entry,
 *   the host address of the next-level table (tables are page aligned),
 *   8 PROTNONE (x86's _PAGE_PROTNONE: present bit clear, pte_present()
 *   and pmd_present() true), 58 devmap (x86's _PAGE_DEVMAP), and the
 *   sim's own software bits 52..54 (below).
 *
 * Non-present entries.  A table entry is always present, so any other
 * nonzero entry with bit 0 clear is a leaf the kernel may leave there
 * (sim_mm_set_entry() installs them; enum sim_pt_entry_kind):
 *   swap-like       bit 52 set, present and PSE clear (x86 swap and
 *                   migration entries never have PSE, so pmd_present() is
 *                   false); the pfn stays in the entry: the sim keeps the
 *                   page, as if it were still in the swap cache;
 *   migration-like  bit 53 instead of 52; a fault waits for the migration,
 *                   which moves an unpinned 4 KiB anonymous page to a new
 *                   frame (any other page stays where it is);
 *   PROT_NONE       PROTNONE set, present and write clear, bit 54 keeps
 *                   the write bit for the fault that restores the entry
 *                   (a NUMA-hinting fault);
 *   mid-split       a PMD or PUD leaf of a pfnmap with present clear and
 *                   PSE kept (pmdp_invalidate()): the splitter holds the
 *                   leaf's lock, so pmd_lock()/pud_lock() return once the
 *                   split is done, and a pfnmap leaf split is a zap (the
 *                   kernel's __split_huge_pmd() on a special VMA).
 * A fault on any of them first brings the entry back (finishing a split
 * zaps it and faults the leaf in again), then faults as usual.
 *
 * Every table slot has a lock beside it (struct sim_pt_lock, the layout of
 * the shim's spinlock_t): the PTE table's lock is the split ptlock of
 * pte_offset_map_lock(), the PMD table's lock is pmd_lock()'s.  Table slots
 * come from 2 MiB-aligned chunks (many tables per chunk, the lock array in
 * the chunk's first slots), so finding a table's lock is address arithmetic.
 *
 * VMA kinds:
 *   SIM_VMA_ANON    anonymous memory, a 4 KiB page from the buddy allocator
 *                   on first touch (a read fault maps the shared zero page
 *                   read-only; a write fault replaces it with a new page).
 *   SIM_VMA_THP     anonymous memory backed by PMD-sized folios: a fault in
 *                   a PMD-aligned window inside the VMA allocates a
 *                   compound order-SIM_PMD_ORDER page and maps it with one
 *                   PMD leaf; the ragged ends, or a failed huge allocation,
 *                   fall back to small pages (always with 16 or 64 KiB
 *                   pages: PMD order is above SIM_MAX_ORDER, sim_mem.h).
 *   SIM_VMA_PFNMAP  VM_IO|VM_PFNMAP over a physical range (an MMIO BAR, or
 *                   RAM for negative tests): entries are "special" leaves.
 *                   A fault maps the largest leaf allowed by max_leaf that
 *                   lies wholly inside the VMA and whose virtual and
 *                   physical addresses are aligned alike to its size (as
 *                   vfio-pci's huge_fault does), else a smaller one.
 *   SIM_VMA_IO      a driver mapping filled by remap_pfn_range() (PTE
 *                   leaves, special); it has no fault handler.
 *   SIM_VMA_HUGETLB hugetlbfs memory of 1 GiB pages (MAP_HUGETLB |
 *                   MAP_HUGE_1GB): start and end PUD aligned; a fault
 *                   allocates a gigantic folio (sim_buddy_alloc_gigantic(),
 *                   no reserved pool) and maps it with one PUD leaf, or
 *                   fails -EFAULT (hugetlb's SIGBUS) when none is free.
 *   SIM_VMA_DRIVER  a driver mapping filled on demand: an IO VMA given a
 *                   fault callback (sim_vma_set_fault()), which the shim
 *                   points at the VMA's vm_ops; the callback installs
 *                   special leaves with sim_mm_insert_leaf().
 *
 * Walk cost: the shim's entry accessors count SIM_CNT_PT_READ; faults count
 * SIM_CNT_FAULT.  Not simulated: swap devices (see
 * "Non-present entries"), page reclaim of user memory,
 * mprotect, fork/COW, mremap, NUMA, MMU notifiers.
 */
#ifndef DMASIM_SIM_MM_H
#define DMASIM_SIM_MM_H

/* ---- page-table geometry and entry format ------------------------------ */
#define SIM_PT_ENTRY_BITS	(SIM_PAGE_SHIFT - 3)
#define SIM_PT_ENTRIES		(1UL << SIM_PT_ENTRY_BITS)
#define SIM_PMD_SHIFT		(SIM_PAGE_SHIFT + SIM_PT_ENTRY_BITS)
#define SIM_PUD_SHIFT		(SIM_PMD_SHIFT + SIM_PT_ENTRY_BITS)
#define SIM_PGDIR_SHIFT		(SIM_PUD_SHIFT + SIM_PT_ENTRY_BITS)
#define SIM_PMD_SIZE		(1UL << SIM_PMD_SHIFT)
#define SIM_PUD_SIZE		(1UL << SIM_PUD_SHIFT)
/* User address space: [SIM_USER_BASE, SIM_TASK_SIZE), as x86-64's 47 bits. */
#define SIM_TASK_SIZE		((1UL << 47) - SIM_PAGE_SIZE)
#define SIM_USER_BASE		(1UL << 32)

#define SIM_PTE_PRESENT		(1UL << 0)
#define SIM_PTE_WRITE		(1UL << 1)
#define SIM_PTE_USER		(1UL << 2)
#define SIM_PTE_ACCESSED	(1UL << 5)
#define SIM_PTE_DIRTY		(1UL << 6)
#define SIM_PTE_PSE		(1UL << 7)
#define SIM_PTE_PROTNONE	(1UL << 8)
#define SIM_PTE_SPECIAL		(1UL << 9)
#define SIM_PTE_NP_SWAP		(1UL << 52)
#define SIM_PTE_NP_MIGRATION	(1UL << 53)
#define SIM_PTE_SAVED_WRITE	(1UL << 54)
#define SIM_PTE_DEVMAP		(1UL << 58)
#define SIM_PTE_ADDR_MASK	(((1UL << 52) - 1) & ~(SIM_PAGE_SIZE - 1))
/* Flags of a table (non-leaf) entry. */
#define SIM_PTE_TABLE		(SIM_PTE_PRESENT | SIM_PTE_WRITE | SIM_PTE_USER | \
				 SIM_PTE_ACCESSED)

/* Page-table levels, also the leaf sizes a pfnmap may use. */
enum sim_pt_level {
	SIM_PT_PTE = 1,
	SIM_PT_PMD = 2,
	SIM_PT_PUD = 3,
	SIM_PT_PGD = 4,
};

/* Same layout as the shim's spinlock_t (it static_asserts so). */
struct sim_pt_lock {
	int locked;
};

/* Tables live in chunks of SIM_PT_CHUNK_SLOTS page-sized slots. */
#define SIM_PT_CHUNK_SLOTS	512UL
#define SIM_PT_CHUNK_SIZE	(SIM_PT_CHUNK_SLOTS << SIM_PAGE_SHIFT)

/* The lock of the table that holds entry *entry (any entry of the table). */
static inline struct sim_pt_lock *sim_pt_lock_of(const void *entry)
{
	unsigned long a = (unsigned long)entry;
	unsigned long chunk = a & ~(SIM_PT_CHUNK_SIZE - 1);

	return (struct sim_pt_lock *)chunk + ((a - chunk) >> SIM_PAGE_SHIFT);
}

/* The next-level table an entry points to. */
static inline unsigned long *sim_pt_table_of(unsigned long entry)
{
	return (unsigned long *)(entry & SIM_PTE_ADDR_MASK);
}

/* ---- address spaces ----------------------------------------------------- */
struct sim_mm;
struct sim_vma;

/*
 * Test double (a race on demand): when set, called once (and cleared)
 * just before pud_lock()/pmd_lock() take the lock of entry, with the mm
 * the entry belongs to.  It stands for another CPU that changes the entry
 * between a walker's lockless read and its lock (a zap, or a huge leaf
 * split into a table), which a single-threaded test cannot time.
 */
extern void (*sim_pt_lock_race_hook)(struct sim_mm *mm, const void *entry);

/* Set (or clear, NULL) the hook; it marks itself in sim_armed. */
static inline void sim_pt_lock_race_set(void (*hook)(struct sim_mm *mm,
						     const void *entry))
{
	sim_pt_lock_race_hook = hook;
	sim_armed.by.pt_race = hook != 0;
}

/*
 * What pud_lock()/pmd_lock() of a leaf may find once they hold the lock
 * (choice point SIM_CH_PT_LEAF_CHANGED, and the lock wait below): the
 * leaf as it was, zapped, or split into leaves of the next level (the
 * same pfns and flags; a zap if no table can be had).  Only a present
 * pfnmap (special) leaf is offered; level is the entry's.
 */
enum sim_pt_leaf_race {
	SIM_PT_LEAF_KEPT,
	SIM_PT_LEAF_ZAPPED,
	SIM_PT_LEAF_SPLIT,
	SIM_PT_LEAF_NR
};
void sim_mm_leaf_race(struct sim_mm *mm, void *entry, enum sim_pt_level level,
		      enum sim_pt_leaf_race what);
/* The lock holder of a mid-split leaf finishes its split (a zap). */
void sim_mm_wait_for_split(struct sim_mm *mm, void *entry);

static inline int sim_pt_entry_mid_split(unsigned long v)
{
	return (v & (SIM_PTE_PRESENT | SIM_PTE_PSE | SIM_PTE_PROTNONE)) ==
	       SIM_PTE_PSE;
}

/*
 * What pud_lock()/pmd_lock() (level: SIM_PT_PUD/PMD) run before locking:
 * the race hook if set, then the wait for a leaf mid-split, or the choice
 * point of a present pfnmap leaf (sim/mm.c).
 */
void sim_pt_lock_race_slow(struct sim_mm *mm, void *entry,
			   enum sim_pt_level level);

/*
 * The same, with no call when it would do nothing: no hook set, no choice
 * point armed (sim_choose() would answer 0), the entry not mid-split.  The
 * first two are asked with the rest of sim_armed in one test (with a fault
 * point or a GUP hook armed the call is made and does nothing more).
 */
static inline void sim_pt_lock_race(struct sim_mm *mm, void *entry,
				    enum sim_pt_level level)
{
	unsigned long v = __atomic_load_n((unsigned long *)entry,
					  __ATOMIC_ACQUIRE);

	if (sim_unlikely(sim_armed.any || sim_pt_entry_mid_split(v)))
		sim_pt_lock_race_slow(mm, entry, level);
}

enum sim_vma_kind {
	SIM_VMA_ANON,
	SIM_VMA_THP,
	SIM_VMA_PFNMAP,
	SIM_VMA_IO,	/* filled by remap_pfn_range(); a fault on a hole fails */
	SIM_VMA_DRIVER,	/* faults call info.fault (sim_vma_set_fault()) */
	SIM_VMA_HUGETLB, /* 1 GiB folios, PUD leaves; PUD-aligned start/end */
};

/* sim_vma flags (the shim maps them onto VM_* in one place). */
enum {
	SIM_VMA_READ		= 1u << 0,
	SIM_VMA_WRITE		= 1u << 1,
	SIM_VMA_POPULATE	= 1u << 2,	/* fault everything in at mmap */
};

struct sim_vma_info {
	unsigned long start, end;	/* [start, end), page aligned */
	enum sim_vma_kind kind;
	unsigned int flags;		/* SIM_VMA_* */
	unsigned long pfn;		/* PFNMAP: pfn mapped at start */
	enum sim_pt_level max_leaf;	/* PFNMAP: largest leaf to use */
	void *owner;			/* the shim's vm_area_struct */
	/*
	 * DRIVER: handle a fault at addr (the mm lock held; the lock is
	 * recursive, so it may call sim_mm_insert_leaf()): 0 (a leaf maps
	 * addr now, or the fault is to be retried), -EFAULT (SIGBUS),
	 * -ENOMEM.
	 */
	int (*fault)(void *owner, unsigned long addr, int write);
};

struct sim_mm *sim_mm_create(void *owner);
/* Unmaps every VMA (freeing its pages), frees the tables. */
void sim_mm_destroy_one(struct sim_mm *mm);
void *sim_mm_owner(const struct sim_mm *mm);
/* The root (PGD) table. */
unsigned long *sim_mm_pgd(struct sim_mm *mm);
/* The PUD-lock of the mm (the kernel's mm->page_table_lock is the shim's). */

/*
 * Find a free range of len bytes aligned to align (a power of two >= page
 * size) plus misalign (a page multiple below align), at or above hint if
 * hint is nonzero.  Returns 0 if none.
 */
unsigned long sim_mm_get_unmapped_area(struct sim_mm *mm, unsigned long hint,
				       unsigned long len, unsigned long align,
				       unsigned long misalign);
/* Add a VMA; -EINVAL (bad range/kind), -EEXIST (overlap), -ENOMEM. */
int sim_mm_map(struct sim_mm *mm, const struct sim_vma_info *info,
	       struct sim_vma **out);
/* Remove the VMA that starts at start exactly; its pages are freed. */
int sim_mm_unmap(struct sim_mm *mm, unsigned long start);
/*
 * The first members of struct sim_mm and struct sim_vma (sim/mm.c), so
 * that the lookups below hit their cache inline: type1 before 6.15 looks
 * the VMA up twice per 4 KiB page of a BAR.
 */
struct sim_mm_vma_cache {
	struct sim_vma *last_hit;	/* relaxed atomic: a VMA of this mm or NULL */
};

static inline const struct sim_vma_info *sim_vma_info(const struct sim_vma *vma)
{
	return (const struct sim_vma_info *)vma;
}

struct sim_vma *sim_mm_find_vma_slow(struct sim_mm *mm, unsigned long addr);

/*
 * The VMA the last-hit cache holds if it contains addr, else NULL (which
 * does not say that no VMA does): no call, no side effect.
 */
static inline struct sim_vma *sim_mm_find_vma_cached(struct sim_mm *mm,
						     unsigned long addr)
{
	struct sim_vma *v = __atomic_load_n(
		&((struct sim_mm_vma_cache *)mm)->last_hit, __ATOMIC_RELAXED);

	if (sim_likely(v) && addr >= sim_vma_info(v)->start &&
	    addr < sim_vma_info(v)->end)
		return v;
	return 0;
}

/* The VMA containing addr, or NULL.  O(log n), with a last-hit cache. */
static inline struct sim_vma *sim_mm_find_vma(struct sim_mm *mm,
					      unsigned long addr)
{
	struct sim_vma *v = sim_mm_find_vma_cached(mm, addr);

	return sim_likely(v) ? v : sim_mm_find_vma_slow(mm, addr);
}

/* The first VMA ending above addr (the kernel's find_vma), or NULL. */
struct sim_vma *sim_mm_find_vma_above(struct sim_mm *mm, unsigned long addr);
unsigned int sim_mm_nr_vmas(const struct sim_mm *mm);

/*
 * Handle a fault at addr (populate the entry).  write asks for a writable
 * entry.  0, -EFAULT (no VMA, or write to a read-only VMA), -ENOMEM (no
 * page or table).  Counts SIM_CNT_FAULT.
 */
int sim_mm_fault(struct sim_mm *mm, unsigned long addr, int write);

/*
 * Map [addr, addr+size) of a pfnmap VMA to pfn.. with the largest leaves
 * allowed (remap_pfn_range; max_leaf SIM_PT_PTE gives 4 KiB entries only).
 */
int sim_mm_remap_pfn_range(struct sim_mm *mm, unsigned long addr,
			   unsigned long pfn, unsigned long size,
			   enum sim_pt_level max_leaf, int writable);

/* An IO VMA becomes a DRIVER one, faulted by fault: 0, or -EINVAL. */
int sim_vma_set_fault(struct sim_vma *v,
		      int (*fault)(void *owner, unsigned long addr, int write));
/*
 * Nothing maps addr at level or above: the entry there is empty, or a
 * table above it is missing (what pud_none()/pmd_none() tell the fault
 * path before it asks a driver for a leaf of that size).
 */
int sim_mm_level_none(struct sim_mm *mm, unsigned long addr,
		      enum sim_pt_level level);
/*
 * Install one special leaf of level's size at addr (aligned to it, as pfn
 * is) mapping pfn.., in a DRIVER VMA that covers it whole: 0, -EINVAL
 * (misaligned, outside such a VMA), -EEXIST (a leaf or a table is there
 * already), -ENOMEM (no page table).
 */
int sim_mm_insert_leaf(struct sim_mm *mm, unsigned long addr,
		       unsigned long pfn, enum sim_pt_level level, int writable);

/* Clear every leaf in [start, end) (remap_pfn_range's cleanup on error). */
void sim_mm_zap_range(struct sim_mm *mm, unsigned long start, unsigned long end);

/* The entries sim_mm_set_entry() installs (see "Non-present entries"). */
enum sim_pt_entry_kind {
	SIM_ENTRY_PRESENT,	/* back to the present leaf (devmap cleared) */
	SIM_ENTRY_SWAP,
	SIM_ENTRY_MIGRATION,
	SIM_ENTRY_PROT_NONE,
	SIM_ENTRY_SPLITTING,	/* PMD or PUD leaf of a pfnmap/io VMA only */
	SIM_ENTRY_DEVMAP,	/* the present leaf with the devmap bit */
	SIM_ENTRY_NR
};
/*
 * Turn the leaf at level that maps addr (present or not) into kind,
 * keeping its pfn and flags.  0; -ENOENT (no leaf of that level maps
 * addr), -EINVAL (bad level or kind), -EOPNOTSUPP (a split of a PTE or of
 * anonymous memory: the sim does not PTE-map huge folios).
 */
int sim_mm_set_entry(struct sim_mm *mm, unsigned long addr,
		     enum sim_pt_level level, enum sim_pt_entry_kind kind);
/*
 * Like sim_mm_walk, but any nonzero leaf is found, present or not (GUP
 * looks at the entry itself: it follows PROT_NONE entries).
 */
struct sim_walk;
int sim_mm_walk_any(struct sim_mm *mm, unsigned long addr, struct sim_walk *w);

/*
 * The reference walk (slow, obviously correct): the leaf entry mapping
 * addr, its level and the exact pfn of addr.  0, or -ENOENT if unmapped
 * or the leaf is not present to the CPU (a non-present kind, PROT_NONE).
 * Counts nothing.
 */
struct sim_walk {
	unsigned long entry;		/* the leaf entry */
	unsigned long *entryp;		/* where it sits */
	enum sim_pt_level level;	/* SIM_PT_PTE, _PMD or _PUD */
	unsigned long pfn;		/* pfn of addr itself */
};
int sim_mm_walk(struct sim_mm *mm, unsigned long addr, struct sim_walk *w);

/* Page-table pages the mm holds now. */
unsigned long sim_mm_nr_tables(const struct sim_mm *mm);
/* RAM pages mapped by the mm's anonymous VMAs (zero page excluded). */
unsigned long sim_mm_nr_anon_pages(const struct sim_mm *mm);

/*
 * Pins (FOLL_PIN), counted on the folio head as the kernel's large-folio
 * _pincount.  The zero page is never pinned (both calls ignore it).
 * unpin returns -EINVAL, changing nothing, if fewer pins are held; dirty
 * marks the page dirty.  A folio neither mapped nor pinned goes back to
 * the buddy allocator at once.
 */
void sim_page_pin(struct sim_page *page, unsigned long n);
int sim_page_unpin(struct sim_page *page, unsigned long n, int dirty);
/*
 * One pin off each page of [page, page + n) (contiguous struct pages),
 * under one lock and a folio at a time, as the kernel's
 * unpin_user_page_range_dirty_lock() works.  A folio holding fewer pins
 * than the range asks of it is left as it is and the call returns -EINVAL;
 * the other folios are unpinned.
 */
int sim_page_unpin_range(struct sim_page *page, unsigned long n, int dirty);
/* Pins taken and not yet released, over every page (an invariant). */
unsigned long sim_pins_outstanding(void);
int sim_page_is_zero(const struct sim_page *page);

/*
 * The shared zero page (the kernel's ZERO_PAGE(0)): a reserved RAM page
 * taken from the buddy allocator when the machine's first address space is
 * created, held until machine teardown (so it counts in
 * sim_buddy_nr_allocated from then on); ~0UL before that.
 */
extern unsigned long sim_zero_pfn;

/*
 * Pre-6.15 reporting: when set, follow_pfnmap_start() reports PAGE_MASK as
 * the address mask of every leaf (the page tables stay as they are).  The
 * shim's pud_leaf_size()/pmd_leaf_size() read it (see asm/pgtable.h).
 */
extern int sim_mm_legacy_addr_mask;
void sim_mm_set_legacy_addr_mask(int on);

/*
 * What another task does while the mmap lock is dropped under a fault
 * (fixup_user_fault() with *unlocked: choice point SIM_CH_FIXUP_UNLOCKED,
 * whose alternative is the action).  Actions that do not apply to the VMA
 * there (a split of an anonymous VMA, say) change nothing.
 */
enum sim_mm_race {
	SIM_MM_RACE_NONE,	/* the lock is not dropped */
	SIM_MM_RACE_NOTHING,	/* dropped; nothing changes */
	SIM_MM_RACE_MUNMAP,	/* the VMA is unmapped */
	SIM_MM_RACE_REPLACE,	/* ... and an anonymous VMA mapped in its place */
	SIM_MM_RACE_SPLIT,	/* a pfnmap VMA is split at the address */
	SIM_MM_RACE_MOVE_PFNS,	/* a pfnmap VMA now maps another BAR */
	SIM_MM_RACE_ZAP,	/* a pfnmap VMA's leaves are zapped (split) */
	SIM_MM_RACE_FAULT_IN,	/* the leaf at the address is installed */
	SIM_MM_RACE_NR
};

/* ---- MMIO BARs in the physical map -------------------------------------- */
/*
 * Place a BAR of size bytes: below 4 GiB (from 3 GiB up, when below4g and
 * it fits) or above the end of RAM (else from 4 GiB up, when RAM reaches
 * the top), at the first place free of RAM and other BARs, aligned to
 * align (a power of two, 0: the size rounded up to a power of two, as PCI
 * does) plus misalign bytes (a page multiple, to model a BAR that is not
 * naturally aligned).  Returns the BAR's first pfn, or 0 if it cannot be
 * placed.  pfn_valid() is false on every BAR pfn.
 */
unsigned long sim_bar_create(unsigned long long size, unsigned long long align,
			     unsigned long long misalign, int below4g);
/*
 * Place MMIO (a BAR, device memory) at exactly [base, base + size), bytes:
 * anywhere below 2^sim_phys_bits(), pfn 0 and the last page included.
 * 0, -EINVAL (not page aligned, empty), -ERANGE (beyond the physical
 * width), -EEXIST (overlaps RAM or a BAR).
 */
int sim_bar_place(unsigned long long base, unsigned long long size);
/* Forget every BAR (machine init does it). */
void sim_bars_reset(void);

#endif /* DMASIM_SIM_MM_H */
