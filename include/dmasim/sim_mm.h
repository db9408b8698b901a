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
 *   the host address of the next-level table (tables are page aligned).
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
 *
 * Walk cost: the shim's entry accessors count SIM_CNT_PT_READ; faults count
 * SIM_CNT_FAULT.  Not simulated: swap, page reclaim of user memory,
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
#define SIM_PTE_SPECIAL		(1UL << 9)
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
	unsigned long owner;
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

static inline void sim_pt_lock_race(struct sim_mm *mm, const void *entry)
{
	void (*hook)(struct sim_mm *, const void *) = sim_pt_lock_race_hook;

	if (sim_unlikely(hook)) {
		sim_pt_lock_race_hook = 0;
		hook(mm, entry);
	}
}

enum sim_vma_kind {
	SIM_VMA_ANON,
	SIM_VMA_THP,
	SIM_VMA_PFNMAP,
	SIM_VMA_IO,	/* filled by remap_pfn_range(); a fault on a hole fails */
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
/* The VMA containing addr, or NULL.  O(log n), with a last-hit cache. */
struct sim_vma *sim_mm_find_vma(struct sim_mm *mm, unsigned long addr);
/* The first VMA ending above addr (the kernel's find_vma), or NULL. */
struct sim_vma *sim_mm_find_vma_above(struct sim_mm *mm, unsigned long addr);
const struct sim_vma_info *sim_vma_info(const struct sim_vma *vma);
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

/* Clear every leaf in [start, end) (remap_pfn_range's cleanup on error). */
void sim_mm_zap_range(struct sim_mm *mm, unsigned long start, unsigned long end);

/*
 * The reference walk (slow, obviously correct): the leaf entry mapping
 * addr, its level and the exact pfn of addr.  0, or -ENOENT if unmapped.
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
