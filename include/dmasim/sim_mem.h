/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: physical memory, struct page storage and the buddy allocator.
 * Plain C; see sim.h for the rules every include/dmasim header follows.
 *
 * Physical address map: RAM ranges and MMIO BARs anywhere below
 * 2^phys_bits (sim_config).  The default layout (sim_config.ram_bytes, no
 * ram[]) is x86-like, RAM below a 1 GiB PCI hole under 4 GiB and the rest
 * above 4 GiB:
 *
 *   [0, min(ram, 3 GiB))             RAM, zone DMA32
 *   [3 GiB, 4 GiB)                   hole: free for 32-bit BARs
 *   [4 GiB, 4 GiB + ram - 3 GiB)     RAM, zone Normal (when ram > 3 GiB)
 *   [end of RAM, ...)                free for 64-bit BARs
 *
 * struct page exists for the memory sections (SIM_SECTION_SHIFT, 128 MiB,
 * as x86's SPARSEMEM) that hold RAM, so RAM at 0 and at the top of a
 * 52-bit space costs two sections.  The memmap of the present sections is
 * one virtually contiguous array in pfn order (a RAM range's struct pages
 * are consecutive: page + n is the page of pfn + n within a range), found
 * from a pfn through a section table (the kernel's mem_section), reserved
 * with MAP_NORESERVE so a struct page costs memory only once it is
 * written.  Page data is backed lazily too (a sparse memfd), so untouched
 * RAM costs nothing.
 */
#ifndef DMASIM_SIM_MEM_H
#define DMASIM_SIM_MEM_H

/*
 * Orders 0..SIM_MAX_ORDER, as the kernel's MAX_PAGE_ORDER (10), at every
 * page size.  Simplified for 16 and 64 KiB pages: PMD order is then 11 and
 * 13, above SIM_MAX_ORDER, so no PMD-sized folio can be allocated (arm64
 * raises MAX_PAGE_ORDER to PMD order there, ARCH_FORCE_MAX_ORDER; the sim
 * does not, which would make a 512 MiB block the smallest whole unit of
 * its zones).  What follows, and the tests expect (SIM_PMD_ORDER >
 * SIM_MAX_ORDER): THP VMAs are backed by small pages only (every THP
 * fault falls back, as on a machine with no free PMD block), per-cpu lists
 * keep no PMD order, pageblock order is SIM_MAX_ORDER.  PMD and PUD leaves
 * of pfnmaps need no allocation and exist at every page size.
 */
#define SIM_MAX_ORDER		10
#define SIM_NR_ORDERS		(SIM_MAX_ORDER + 1)
/* pageblock order = PMD order (9 with 4 KiB pages), capped at MAX_ORDER. */
#define SIM_PMD_ORDER		(SIM_PAGE_SHIFT - 3)
#define SIM_PAGEBLOCK_ORDER	(SIM_PMD_ORDER < SIM_MAX_ORDER ? SIM_PMD_ORDER : SIM_MAX_ORDER)
/* Highest order the per-cpu lists keep besides PMD order (0..3). */
#define SIM_PCP_MAX_LOW_ORDER	3

#define SIM_LOW_RAM_END		(3ULL << 30)
#define SIM_HIGH_RAM_START	(4ULL << 30)

struct sim_list {
	struct sim_list *next, *prev;
};

/*
 * One page frame.  Exactly 64 bytes, and the layout kernel_shim's struct page
 * mirrors field for field (it static_asserts each offset): the kernel code
 * under test sees page->lru, page->private, ... and the sim sees the same
 * bytes under these names.
 */
struct sim_page {
	unsigned long flags;		/* SIM_PG_* bits */
	struct sim_list lru;		/* free list link while free; owner's while allocated */
	unsigned long private;		/* free block head: its order */
	unsigned long compound_head;	/* tail page: head address | 1; else 0 */
	unsigned char compound_order;	/* head of a compound page: its order */
	unsigned char zone;		/* index into the zones */
	unsigned char migratetype;	/* free: the list's SIM_MIGRATE_*; allocated head: the request's */
	unsigned char pcp_order;	/* on a per-cpu list: the order it sits there with */
	int refcount;			/* page references (0 while free) */
	int pincount;			/* FOLL_PIN pins (pin_user_pages) */
	int mapcount;			/* user mappings */
	unsigned long owner;		/* for the allocating subsystem (0 when handed out) */
};

/* SIM_PG_* flag bits (the shim maps PG_reserved etc. onto these). */
enum {
	SIM_PG_RESERVED = 0,	/* never given to the buddy allocator */
	SIM_PG_BUDDY,		/* head of a free block on a buddy free list */
	SIM_PG_PCP,		/* on a per-cpu list */
	SIM_PG_HEAD,		/* head of a compound page */
	SIM_PG_TAIL,		/* tail of a compound page */
	SIM_PG_TOUCHED,		/* data may be nonzero: its address was handed out
				 * (page_address, kmap, vmap), or the first page's
				 * of a block it was freed with */
	SIM_PG_DIRTY,
	SIM_PG_AGED,		/* held by the ageing workload */
	SIM_PG_RECLAIMABLE,	/* held by the ageing workload as clean page cache */
	SIM_PG_NR_FLAGS
};

enum sim_migratetype {
	SIM_MIGRATE_UNMOVABLE,
	SIM_MIGRATE_MOVABLE,
	SIM_MIGRATE_RECLAIMABLE,
	SIM_NR_MIGRATETYPES
};

/* Allocation flags: the shim translates gfp_t into these, in one place. */
enum {
	SIM_GFP_ZERO		= 1u << 0,
	SIM_GFP_COMP		= 1u << 1,
	SIM_GFP_NORETRY		= 1u << 2,
	SIM_GFP_DIRECT_RECLAIM	= 1u << 3,
	SIM_GFP_KSWAPD_RECLAIM	= 1u << 4,
	SIM_GFP_NOWARN		= 1u << 5,
	SIM_GFP_MOVABLE		= 1u << 6,
	SIM_GFP_RECLAIMABLE	= 1u << 7,
	SIM_GFP_DMA32		= 1u << 8,
	SIM_GFP_ACCOUNT		= 1u << 9,
	/*
	 * Direct compaction allowed: the kernel's gfp_compaction_allowed(),
	 * __GFP_IO with CONFIG_COMPACTION (Debian's kernels have it); it
	 * acts only with SIM_GFP_DIRECT_RECLAIM, as in the kernel.
	 */
	SIM_GFP_COMPACT		= 1u << 10,
	/*
	 * __GFP_THISNODE: with NORETRY, a costly request stops after its
	 * first compaction (THP faults: compact, never reclaim).
	 */
	SIM_GFP_THISNODE	= 1u << 11,
	/* __GFP_RETRY_MAYFAIL: reclaim and sync compaction retried. */
	SIM_GFP_RETRY_MAYFAIL	= 1u << 12,
};

/*
 * Memory sections.  A section is present when RAM lies in it; pfn_valid()
 * is true from its first RAM pfn to its last (pfns between two RAM ranges
 * that share a section have reserved struct pages, as the kernel's holes
 * inside an early section do; other pfns of the section are not valid).
 */
#define SIM_SECTION_SHIFT	27
#define SIM_PFN_SECTION_SHIFT	(SIM_SECTION_SHIFT - SIM_PAGE_SHIFT)
#define SIM_PAGES_PER_SECTION	(1UL << SIM_PFN_SECTION_SHIFT)

struct sim_mem_section {
	/* address of the section's memmap minus its first pfn's offset */
	unsigned long map_base;
	unsigned int lo, hi;		/* valid pfns: [lo, hi) within the section */
};

/*
 * Indexed by pfn >> SIM_PFN_SECTION_SHIFT, every section of the physical
 * width (untouched entries read as absent).
 */
extern struct sim_mem_section *sim_sections;
extern unsigned long sim_nr_sections;
/* The memmap of the present sections, and each one's first pfn. */
extern struct sim_page *sim_memmap;
extern unsigned long *sim_memmap_section_pfn;
/* First pfn past the highest RAM pfn. */
extern unsigned long sim_max_pfn;

/* The struct page of a valid pfn (as the kernel's, undefined otherwise). */
static inline struct sim_page *sim_pfn_to_page(unsigned long pfn)
{
	return (struct sim_page *)(sim_sections[pfn >> SIM_PFN_SECTION_SHIFT].map_base +
				   pfn * sizeof(struct sim_page));
}

static inline unsigned long sim_page_to_pfn(const struct sim_page *page)
{
	unsigned long idx = (unsigned long)(page - sim_memmap);

	return sim_memmap_section_pfn[idx >> SIM_PFN_SECTION_SHIFT] +
	       (idx & (SIM_PAGES_PER_SECTION - 1));
}

/*
 * 1 if pfn has a struct page (the kernel's pfn_valid()).  A pfn above the
 * last RAM pfn (a BAR's, above RAM as usual) is refused on one compare:
 * type1 before 6.15 asks once per 4 KiB page of a BAR, map and unmap.
 * sim_max_pfn is set with the sections and is within them.  That refusal
 * is the expected way (sim_likely): gcc then lays a caller's per-pfn loop
 * out with it falling through, one taken branch a pfn (the loop's own)
 * instead of two.  type1's put_pfn() loop over a BAR's 2^31 pages took
 * 12% less CPU for it; a valid pfn pays one jump before its section
 * lookup, beside the page work that follows it.
 */
static inline int sim_pfn_valid(unsigned long pfn)
{
	const struct sim_mem_section *ms;

	if (sim_likely(pfn >= sim_max_pfn))
		return 0;
	ms = &sim_sections[pfn >> SIM_PFN_SECTION_SHIFT];
	return (unsigned int)(pfn & (SIM_PAGES_PER_SECTION - 1)) - ms->lo <
	       ms->hi - ms->lo;
}

/* Physical address bits of the machine (sim_config.phys_bits). */
unsigned int sim_phys_bits(void);

static inline int sim_page_test(const struct sim_page *page, int bit)
{
	return (page->flags >> bit) & 1;
}

static inline void sim_page_set(struct sim_page *page, int bit)
{
	page->flags |= 1UL << bit;
}

static inline void sim_page_clear(struct sim_page *page, int bit)
{
	page->flags &= ~(1UL << bit);
}

/* RAM ranges, in pfns [start, end). */
struct sim_ram_range {
	unsigned long start_pfn, end_pfn;
};
unsigned int sim_ram_ranges(const struct sim_ram_range **ranges);
unsigned long long sim_ram_bytes(void);

/*
 * Page data.  The direct map: a pointer to the page's bytes; marks the page
 * SIM_PG_TOUCHED.  Only RAM pfns have data.
 */
void *sim_page_address(struct sim_page *page);
void *sim_phys_to_virt(sim_phys_t paddr);
/* The reverse: physical address of a direct-map address (~0 if none). */
sim_phys_t sim_virt_to_phys(const void *addr);
/* The reverse of sim_page_address (NULL if addr is not in the direct map). */
struct sim_page *sim_virt_to_page(const void *addr);
/*
 * A virtually contiguous alias of nr pages (which need not be physically
 * contiguous), sharing their data, as the kernel's vmap(); marks them
 * touched.  One host mapping per physically contiguous run, so an alias of
 * more runs than the host's vm.max_map_count (65530) allows fails.  NULL on
 * failure.
 */
void *sim_vmap(struct sim_page **pages, unsigned long nr);
void sim_vunmap(void *addr);
/* vmap areas not yet unmapped (a scenario's leak check). */
unsigned long sim_vmap_outstanding(void);
/*
 * flush_kernel_vmap_range() / invalidate_kernel_vmap_range() of [addr,
 * +len): counted, and a WARN unless one live vmap covers the range (on an
 * aliasing-cache architecture the call writes back or drops those lines).
 */
void sim_vmap_maintain(const void *addr, unsigned long len);
unsigned long long sim_vmap_maintenance_calls(void);
/*
 * Bytes of host memory the memmap, page data and the allocator's
 * bookkeeping use now (for benchmarks): 64 bytes per page whose struct page
 * was written, in 2 MiB units of memmap where the host gives transparent
 * huge pages, plus the page data written.
 */
unsigned long long sim_mem_host_bytes(void);
/* Of that, the allocator's own metadata (per pageblock, per zone). */
unsigned long long sim_buddy_host_bytes(void);

/*
 * The buddy allocator (sim/buddy.c).  Zones: DMA32 (below 4 GiB) and Normal;
 * an allocation falls back Normal -> DMA32 unless SIM_GFP_DMA32 asks for
 * DMA32 only.  Free lists per zone, order and migratetype; split as the
 * kernel's expand() (the high halves go back on the free lists) and merge on
 * free.  Per-cpu lists for orders 0..SIM_PCP_MAX_LOW_ORDER and
 * SIM_PMD_ORDER (when <= SIM_MAX_ORDER), taken without the zone lock;
 * everything else takes the zone lock (counted).  Attempts without
 * SIM_GFP_DIRECT_RECLAIM fail at once when no block is free; with it, the
 * kernel's slow path runs: direct compaction (SIM_GFP_COMPACT; sim/compact.c
 * migrates movable pages the ageing workload holds) and direct reclaim of
 * aged page cache, in the kernel's order and with its retry rules
 * (sim/buddy.c's header says how).  sim/buddy.c's header lists what is
 * modelled and what not.
 *
 * sim_buddy_alloc returns the first page of a 2^order block: refcount 1,
 * flags 0 but SIM_PG_TOUCHED, other fields 0 but zone and migratetype (tail
 * pages are not written unless compound); SIM_GFP_ZERO clears the
 * data of its touched pages (and counts every page as zeroed);
 * SIM_GFP_COMP makes it a compound page (SIM_PG_HEAD + compound_order on the
 * first page, SIM_PG_TAIL + compound_head on the others).  NULL (counted in
 * SIM_CNT_ALLOC_FAIL) when nothing fits or order > SIM_MAX_ORDER.
 *
 * sim_buddy_free takes back any naturally aligned block of RAM (a whole
 * allocation or a part of one), whatever its reference counts; it clears
 * the compound state.  A block that is free already, reserved, misaligned
 * or not RAM is refused with a kernel warning (sim_kernel_warnings()).
 */
struct sim_page *sim_buddy_alloc(unsigned int order, unsigned int sim_gfp);
void sim_buddy_free(struct sim_page *page, unsigned int order);
/*
 * A gigantic folio (order above SIM_MAX_ORDER: a 1 GiB hugetlb page), as
 * alloc_contig_pages() finds one: the first naturally aligned range whose
 * max-order blocks are all free (Normal zone first), after a per-cpu
 * drain; nothing is migrated to make one, so a fragmented machine fails
 * (NULL, counted in SIM_CNT_ALLOC_FAIL).  Always compound; SIM_GFP_ZERO
 * as sim_buddy_alloc.  sim_buddy_free(head, order) gives it back, max-order
 * blocks to the free lists.  NULL for an order at or below SIM_MAX_ORDER.
 */
struct sim_page *sim_buddy_alloc_gigantic(unsigned int order,
					  unsigned int sim_gfp);
/* Pages free in the buddy lists plus the per-cpu lists. */
unsigned long sim_buddy_nr_free(void);
/*
 * Pages the allocator manages: RAM less the low memory it never hands out
 * (the first max-order block of the zone at pfn 0, see sim/buddy.c); a
 * fresh or whole-again machine has this many free.
 */
unsigned long sim_buddy_nr_managed(void);
/* The first pfn the allocator hands out on a fresh machine. */
unsigned long sim_buddy_first_pfn(void);
/* Free blocks of exactly this order (all zones, all migratetypes, no pcp). */
unsigned long sim_buddy_nr_free_blocks(unsigned int order);
/* The same, of one migratetype (free list hygiene, fallback tests). */
unsigned long sim_buddy_nr_free_blocks_mt(unsigned int order, int mt);
/* Pages on one cpu's per-cpu lists (all zones). */
unsigned long sim_buddy_nr_pcp(unsigned int cpu);
/* The migratetype of the pageblock holding pfn; -1 if pfn is not RAM. */
int sim_pageblock_migratetype(unsigned long pfn);
/*
 * Allocation attempts and failures per order since the last reset (machine
 * init resets them too): the numbers behind "how often does an order-9
 * attempt fail on a fragmented machine?".
 */
void sim_buddy_reset_order_stats(void);
unsigned long long sim_buddy_order_attempts(unsigned int order);
unsigned long long sim_buddy_order_failures(unsigned int order);
/* Move every per-cpu page back to the buddy lists. */
void sim_buddy_drain_pcp(void);
/* Which cpu allocations and frees run on (0 .. nr_cpus-1). */
void sim_set_cpu(unsigned int cpu);
unsigned int sim_current_cpu(void);
/* Pages handed out and not yet freed, by anyone but the ageing workload. */
unsigned long sim_buddy_nr_allocated(void);

/*
 * Checkpoint and rewind of the allocator, for runs that must not depend on
 * what ran before them (a fuzzer's inputs, one after another in one
 * process).  sim_buddy_checkpoint() drains the per-cpu lists and records
 * the allocator's state: every free list's blocks in list order, the
 * deferred frontier, pageblock types, per-cpu list tuning.  Once every page
 * allocated since has been freed, sim_buddy_rewind() drains the per-cpu
 * lists again and puts that state back, so the next allocations return the
 * same blocks in the same order as right after the checkpoint.  Cost: the
 * number of free blocks (tens on a machine that ran the checkpoint fresh),
 * not the machine's size.  Page data is not part of it: a page's
 * SIM_PG_TOUCHED stays, so __GFP_ZERO still clears what was written.
 * -ENOMEM if the record cannot be stored; rewind: -ENOENT without a
 * checkpoint, -EBUSY (and no change but the drain) if the free pages are
 * not the ones free at the checkpoint (something allocated since is still
 * held, or something free then is held now).
 */
int sim_buddy_checkpoint(void);
int sim_buddy_rewind(void);

/*
 * Ageing (sim/age.c): bring the free lists into the state of a long-running
 * machine.  level 0 leaves the machine fresh; 1 is the most fragmented the
 * workload makes it.  Deterministic for (level, seed).  The pages it keeps
 * stay allocated (SIM_PG_AGED) until sim_age_release(); reclaimable ones can
 * be taken back by direct reclaim.  docs/fragmentation.md says what the
 * levels mean; "aged" is the preset sim_age_preset("aged").  Ageing again
 * releases the previous run first; level 0 only releases.  Returns 0,
 * -EINVAL for a level outside [0, 1], -ENOMEM (nothing held then).  The
 * workload ages the memory free at the time; the per-cpu lists are left
 * empty.
 */
int sim_age(double level, unsigned long long seed);
/* The level of the preset "aged" (see docs/fragmentation.md). */
#define SIM_AGE_LEVEL_AGED	0.8
/* The level a preset names ("fresh", "aged", "fragmented"); -1 if unknown. */
double sim_age_preset(const char *name);
/* Free everything the ageing workload still holds. */
void sim_age_release(void);
/* Pages it holds (allocated by the workload and not yet given back). */
unsigned long sim_age_held_pages(void);

/* What a held piece stands for (sim/age.c's model). */
enum sim_age_kind {
	SIM_AGE_SLAB,		/* unmovable: compaction cannot move it */
	SIM_AGE_ANON,		/* movable (compaction migrates it), not reclaimable */
	SIM_AGE_PAGECACHE,	/* movable and reclaimable (clean page cache) */
};
/*
 * Hand an allocated block (all of it, or a naturally aligned part of an
 * allocation) to the ageing workload as one held piece of this kind, as if
 * ageing had kept it: tests build exact layouts for reclaim and compaction
 * this way.  sim_age_release() frees it.  0, -EINVAL (free, reserved or
 * held already), -ENOMEM.
 */
int sim_age_hold(struct sim_page *page, unsigned int order, enum sim_age_kind kind);

/*
 * Direct compaction (sim/compact.c), as the kernel's mm/compaction.c runs
 * it for an allocation: the migrate scanner walks pageblocks up from the
 * zone's start, the free scanner down from its end; movable pieces the
 * ageing workload holds are migrated into free pages the free scanner
 * isolates, until a free block of the order exists or the scanners meet.
 * The slow path of sim_buddy_alloc() calls it; a caller may run one pass
 * directly.  ASYNC is the kernel's MIGRATE_ASYNC (first attempt; sources
 * only pageblocks of the request's migratetype, an order-aligned chunk with
 * a page it cannot move is skipped whole), SYNC its MIGRATE_SYNC_LIGHT
 * (every pageblock a source, every movable page moved).
 */
enum sim_compact_mode { SIM_COMPACT_ASYNC, SIM_COMPACT_SYNC };
enum sim_compact_result {
	SIM_COMPACT_SKIPPED,	/* no zone suitable (too little free memory,
				 * or failure would not be due to fragmentation) */
	SIM_COMPACT_COMPLETE,	/* scanners met, no block of the order */
	SIM_COMPACT_SUCCESS,	/* a free block of the order exists */
};
enum sim_compact_result sim_compact(unsigned int order, unsigned int sim_gfp,
				    enum sim_compact_mode mode);

#endif /* DMASIM_SIM_MEM_H */
