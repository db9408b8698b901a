// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulated buddy allocator: zones, free lists per order and
 * migratetype, split and merge, migratetype fallback, per-cpu lists.
 *
 * What it reproduces of the kernel's mm/page_alloc.c (6.12):
 * - Orders 0..SIM_MAX_ORDER.  A request takes the smallest free block of its
 *   migratetype at or above its order from the head of that list; the
 *   kernel's expand() splits it: the low half stays with the caller, each
 *   high half goes to the head of the free list of its order.  On a fresh
 *   machine successive allocations therefore ascend contiguously.
 * - Free merges with the buddy (pfn ^ (1 << order)) while it is a free block
 *   of the same order, then puts the block at the head of its list.  Free
 *   blocks always sit on the list of their pageblock's migratetype; a merge
 *   at pageblock order or above makes the buddy's pageblocks take the freed
 *   block's type (as 6.12 does).
 * - Fallback when a migratetype's lists are empty (__rmqueue_fallback):
 *   unmovable -> reclaimable, movable; movable -> reclaimable, unmovable;
 *   reclaimable -> unmovable, movable.  The largest fallback block is taken
 *   first (except a movable request that could not claim the block: it takes
 *   the smallest).  A block of pageblock order or more changes its
 *   pageblocks' type outright; a smaller one claims its whole pageblock when
 *   at least half the pageblock is free (simplified: the kernel also counts
 *   allocated pages of compatible mobility; the simulator does not know
 *   them), moving the pageblock's free blocks to the new type's lists.
 * - Per-cpu lists for orders 0..SIM_PCP_MAX_LOW_ORDER (one list per order and
 *   migratetype) and for PMD order when it is <= SIM_MAX_ORDER (two lists:
 *   movable and the rest), as CONFIG_TRANSPARENT_HUGEPAGE kernels.  An
 *   allocation takes the head of its list without the zone lock; an empty
 *   list is refilled under the zone lock with max(batch >> order, 2) blocks
 *   (batch for order 0: the kernel's alloc_factor doubling is not modelled).
 *   A free goes to the head of the list; when the lists' pages reach `high`
 *   they are drained, tails first, round robin from the list just freed to,
 *   under the zone lock: clamp(free_count, batch, high - batch) pages.
 *   batch is the kernel's zone_batchsize() (63 for zones of 256 MiB and
 *   more).  high moves between high_min, the zone's low watermark
 *   (min_free_kbytes = sqrt(lowmem KiB * 16), watermark_scale_factor 10)
 *   split over the cpus, and high_max, an eighth of the zone split over the
 *   cpus (both at least 4 * batch), as 6.12 tunes it: each refill raises it
 *   by batch, a free that finds the lists full raises it to hold free_count
 *   + batch (free_count: pages freed recently, halved by each allocation).
 *   Not modelled: the decay of high by vmstat refresh, the reclaim and
 *   below-high-watermark limits, the free_high drain of orders 1..3.
 * - Zones DMA32 (RAM below 4 GiB) and Normal; requests try Normal then
 *   DMA32, SIM_GFP_DMA32 only DMA32.  No ZONE_DMA, no watermarks for
 *   allocation (a request succeeds while any block fits; the low watermark
 *   only gates compaction), no CMA, no highatomic reserves, no kswapd
 *   (SIM_GFP_KSWAPD_RECLAIM is accepted and ignored).
 * - The slow path (__alloc_pages_slowpath), for a request the lists could
 *   not serve; without SIM_GFP_DIRECT_RECLAIM it fails at once.  With it:
 *   async direct compaction first (sim/compact.c; needs SIM_GFP_COMPACT,
 *   the kernel's __GFP_IO) for costly orders (> 3) and for non-movable
 *   orders above 0; a costly NORETRY request stops there when compaction
 *   was skipped or SIM_GFP_THISNODE is set.  Then direct reclaim: every
 *   per-cpu list is drained and the request retried (drain_all_pages()),
 *   then clean page cache the ageing workload holds is given back
 *   (sim_age_reclaim, straight to the buddy lists): with SIM_GFP_NORETRY
 *   or SIM_GFP_RETRY_MAYFAIL one round of at most max(32, 2 << order)
 *   pages, otherwise until the request fits or no page cache is left
 *   (simplified: the kernel stops a costly request without RETRY_MAYFAIL
 *   after one round).  Then one more compaction: async for NORETRY, sync
 *   (MIGRATE_SYNC_LIGHT) otherwise.  RETRY_MAYFAIL repeats reclaim and
 *   compaction while reclaim makes progress and compaction was skipped or
 *   succeeded without the allocation getting the block (16 rounds, 4 for
 *   costly orders); the kernel's should_reclaim_retry() watermark checks
 *   and the OOM killer are not modelled.
 * - Low memory: physical address 0 never reaches the allocator (the IOMMU
 *   API's iommu_iova_to_phys() returns 0 for "not mapped", so a DMA-mapped
 *   page at 0 would look unmapped; x86 keeps the first 1 MiB out of the
 *   buddy allocator since Linux 5.13).  Here the zone starting at pfn 0
 *   keeps its whole first max-order block (4 MiB with 4 KiB pages) out, so
 *   that every block the allocator hands out stays aligned as on a zone
 *   whose reserved low memory ends on a max-order boundary; a zone smaller
 *   than that keeps only its first page.  Their struct pages are
 *   SIM_PG_RESERVED, as memblock-reserved pages are PG_reserved: a driver
 *   may still map them (remap_pfn_range), and freeing one is refused.
 * - Deferred struct page init (DEFERRED_STRUCT_PAGE_INIT): the max-order
 *   blocks of a zone from `frontier` to `deferred_end` are free without being
 *   on any list; they behave as if they sat, in address order, at the tail
 *   of the movable max-order list, and are put on it one at a time when that
 *   list is empty.  So a machine of any size starts in constant time and
 *   writes no struct page it does not hand out.
 *
 * Counted: SIM_CNT_ZONE_LOCK per zone-lock section (refill, drain, direct
 * zone allocation or free), PCP_HIT per allocation served from a per-cpu
 * list (refilled or not), PCP_FREE per free onto a per-cpu list,
 * BUDDY_ALLOC/BUDDY_FREE per block taken from / given back to the free
 * lists, BUDDY_SPLIT/BUDDY_MERGE per split and merge step, ALLOC_FAIL per
 * failed sim_buddy_alloc, PAGE_ZEROED per page cleared for SIM_GFP_ZERO.
 *
 * Host side: one mutex serialises every call (threads may act as different
 * simulated cpus).  The simulated zone lock is counted; sim/cpus.c, when
 * it runs simulated CPUs, is called around each thread's outermost
 * allocator call (sim_buddy_set_call_hooks) and models the zone lock as a
 * contended resource in modelled time.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mem_internal.h"

#define MAX_ORDER		SIM_MAX_ORDER
#define MAX_BLOCK		(1UL << MAX_ORDER)
#define NR_MT			SIM_NR_MIGRATETYPES
#define PB_ORDER		SIM_PAGEBLOCK_ORDER
#define PB_PAGES		(1UL << PB_ORDER)
_Static_assert(PB_PAGES <= 0xffff, "pageblock_free counts a pageblock in 16 bits");
#define PCP_PMD_ORDER		(SIM_PMD_ORDER <= SIM_MAX_ORDER ? SIM_PMD_ORDER : -1)
#define NR_PCP_LOW_LISTS	((SIM_PCP_MAX_LOW_ORDER + 1) * NR_MT)
#define NR_PCP_LISTS		(NR_PCP_LOW_LISTS + 2)
/* One zone per RAM range, a range that crosses 4 GiB making two. */
#define MAX_ZONES		(SIM_MAX_RAM_RANGES + 1)
#define DMA32_END_PFN		((unsigned long)((1ULL << 32) >> SIM_PAGE_SHIFT))

struct pcp {
	struct sim_list lists[NR_PCP_LISTS];
	unsigned long count;		/* pages on all lists */
	unsigned long high, high_min, high_max, batch;
	unsigned long free_count;	/* pages freed since allocations */
};

struct zone {
	unsigned long start_pfn, end_pfn;
	int dma32;			/* below 4 GiB: serves SIM_GFP_DMA32 */
	unsigned long frontier, deferred_end;
	unsigned long nr_free;		/* pages on the lists + deferred */
	unsigned long wmark_low;	/* low watermark (compaction_suitable) */
	unsigned long nr_blocks[SIM_NR_ORDERS][NR_MT];
	/* Per migratetype, bit o set while free_area[o][mt] is not empty. */
	unsigned int orders_listed[NR_MT];
	struct sim_list free_area[SIM_NR_ORDERS][NR_MT];
	unsigned char *pageblock_mt;
	size_t pageblock_bytes;
	/*
	 * Per pageblock: its free pages in free blocks below pageblock order
	 * (a free block of pageblock order or more covers whole pageblocks
	 * and is not counted), kept by add_free()/del_free() so that the
	 * fallback's "half the pageblock free?" is one read, not a walk over
	 * its struct pages.  Mapped as pageblock_mt, unresident until used.
	 */
	unsigned short *pageblock_free;
	size_t pageblock_map_len;	/* of that mapping: at least the map's bytes */
	struct pcp *pcp;		/* [nr_cpus] */
};

static struct zone zones[MAX_ZONES];
static unsigned int nr_zones;

/*
 * A destroyed zone's pageblock map, zeroed, for the zone of the same
 * index of the next machine (up to PB_MAP_KEEP_MAX bytes: a machine of a
 * few GiB): a fuzz harness boots on 6% of its runs, and unmapping the
 * map, mapping it again and faulting it in were 1% of fuzz_type1.
 */
#define PB_MAP_KEEP_MAX	(64UL << 10)

static struct {
	void *map;
	size_t len;
} pb_kept[MAX_ZONES];
static unsigned int nr_cpus = 1;
static _Thread_local unsigned int current_cpu;
SIM_THREAD_LOCAL_PER_CPU(current_cpu)
static unsigned long allocated_pages;
static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;

/* sim/cpus.c's scheduler, around the outermost allocator call of a thread. */
static void (*call_enter)(void), (*call_exit)(void);
static _Thread_local unsigned int call_depth;
SIM_THREAD_LOCAL_PER_CPU(call_depth)

void sim_buddy_set_call_hooks(void (*enter)(void), void (*exit)(void))
{
	call_enter = enter;
	call_exit = exit;
}

static inline void call_begin(void)
{
	if (call_enter && !call_depth++)
		call_enter();
}

static inline void call_end(void)
{
	if (call_exit && !--call_depth)
		call_exit();
}

static const unsigned char fallbacks[NR_MT][NR_MT - 1] = {
	[SIM_MIGRATE_UNMOVABLE]   = { SIM_MIGRATE_RECLAIMABLE, SIM_MIGRATE_MOVABLE },
	[SIM_MIGRATE_MOVABLE]     = { SIM_MIGRATE_RECLAIMABLE, SIM_MIGRATE_UNMOVABLE },
	[SIM_MIGRATE_RECLAIMABLE] = { SIM_MIGRATE_UNMOVABLE, SIM_MIGRATE_MOVABLE },
};

/* ------------------------------------------------------------------------
 * Intrusive lists through sim_page.lru
 */
static inline void list_init(struct sim_list *head)
{
	head->next = head->prev = head;
}

static inline int list_is_empty(const struct sim_list *head)
{
	return head->next == head;
}

static inline void list_insert(struct sim_list *node, struct sim_list *prev,
			       struct sim_list *next)
{
	next->prev = node;
	node->next = next;
	node->prev = prev;
	prev->next = node;
}

static inline void list_push_head(struct sim_list *node, struct sim_list *head)
{
	list_insert(node, head, head->next);
}

static inline void list_push_tail(struct sim_list *node, struct sim_list *head)
{
	list_insert(node, head->prev, head);
}

static inline void list_unlink(struct sim_list *node)
{
	node->prev->next = node->next;
	node->next->prev = node->prev;
	node->next = node->prev = NULL;
}

static inline struct sim_page *lru_to_page(struct sim_list *node)
{
	return (struct sim_page *)((char *)node - offsetof(struct sim_page, lru));
}

/* ------------------------------------------------------------------------
 * Zones and pageblocks
 */
/* The zone of a RAM pfn (zones are in address order). */
static inline struct zone *pfn_zone(unsigned long pfn)
{
	unsigned int i = nr_zones - 1;

	while (i && pfn < zones[i].start_pfn)
		i--;
	return &zones[i];
}

static inline unsigned int zone_index(const struct zone *z)
{
	return (unsigned int)(z - zones);
}

/* Pageblocks are aligned in the physical space, whatever the zone's start. */
static inline unsigned long pageblock_index(const struct zone *z,
					    unsigned long pfn)
{
	return (pfn >> PB_ORDER) - (z->start_pfn >> PB_ORDER);
}

/* One mapping per zone: pageblock_free[], then pageblock_mt[]. */
static inline size_t pageblock_map_bytes(const struct zone *z)
{
	return z->pageblock_bytes * (sizeof(*z->pageblock_free) + 1);
}

static inline int pageblock_mt(const struct zone *z, unsigned long pfn)
{
	return z->pageblock_mt[pageblock_index(z, pfn)];
}

/* Set the type of every pageblock the block [pfn, pfn + 2^order) touches. */
static void set_pageblock_range(struct zone *z, unsigned long pfn,
				unsigned int order, int mt)
{
	unsigned long first = pageblock_index(z, pfn);
	unsigned long last = pageblock_index(z, pfn + (1UL << order) - 1);

	for (; first <= last; first++)
		z->pageblock_mt[first] = (unsigned char)mt;
}

static inline int pcp_allowed(unsigned int order)
{
	return order <= SIM_PCP_MAX_LOW_ORDER || (int)order == PCP_PMD_ORDER;
}

static inline unsigned int pcp_index(unsigned int order, int mt)
{
	if (order <= SIM_PCP_MAX_LOW_ORDER)
		return order * NR_MT + (unsigned int)mt;
	return NR_PCP_LOW_LISTS + (mt == SIM_MIGRATE_MOVABLE);
}

static inline int gfp_migratetype(unsigned int sim_gfp)
{
	if (sim_gfp & SIM_GFP_MOVABLE)
		return SIM_MIGRATE_MOVABLE;
	if (sim_gfp & SIM_GFP_RECLAIMABLE)
		return SIM_MIGRATE_RECLAIMABLE;
	return SIM_MIGRATE_UNMOVABLE;
}

/* ------------------------------------------------------------------------
 * Free lists
 */
/* A block below pageblock order enters (+) or leaves (-) its pageblock's count. */
static inline void pageblock_free_add(struct zone *z, const struct sim_page *page,
				      unsigned int order, int sign)
{
	if (order < PB_ORDER)
		z->pageblock_free[pageblock_index(z, sim_page_to_pfn(page))] +=
			(unsigned short)(sign * (1 << order));
}

static void add_free(struct zone *z, struct sim_page *page, unsigned int order,
		     int mt, int tail)
{
	page->flags |= 1UL << SIM_PG_BUDDY;
	page->private = order;
	page->migratetype = (unsigned char)mt;
	if (tail)
		list_push_tail(&page->lru, &z->free_area[order][mt]);
	else
		list_push_head(&page->lru, &z->free_area[order][mt]);
	z->nr_blocks[order][mt]++;
	z->orders_listed[mt] |= 1U << order;
	z->nr_free += 1UL << order;
	pageblock_free_add(z, page, order, 1);
}

static void del_free(struct zone *z, struct sim_page *page, unsigned int order)
{
	int mt = page->migratetype;

	list_unlink(&page->lru);
	page->flags &= ~(1UL << SIM_PG_BUDDY);
	if (!--z->nr_blocks[order][mt])
		z->orders_listed[mt] &= ~(1U << order);
	z->nr_free -= 1UL << order;
	page->private = 0;
	pageblock_free_add(z, page, order, -1);
}

static inline unsigned long deferred_blocks(const struct zone *z)
{
	return (z->deferred_end - z->frontier) >> MAX_ORDER;
}

/*
 * Bit o set when peek_free(z, o, mt) finds a block: its list is not empty,
 * or (movable, max order) a deferred block is left to carve.
 */
static inline unsigned int orders_free(const struct zone *z, int mt)
{
	unsigned int m = z->orders_listed[mt];

	if (mt == SIM_MIGRATE_MOVABLE && z->frontier < z->deferred_end)
		m |= 1U << MAX_ORDER;
	return m;
}

/* Bits of orders from order up to MAX_ORDER (none above MAX_ORDER). */
static inline unsigned int orders_from(unsigned int order)
{
	if (order > MAX_ORDER)
		return 0;
	return ~((1U << order) - 1) & ((1U << SIM_NR_ORDERS) - 1);
}

/* Put the next deferred max-order block on the movable list; 0 if none. */
static int carve_deferred(struct zone *z)
{
	unsigned long pfn = z->frontier;

	if (pfn >= z->deferred_end)
		return 0;
	z->frontier += MAX_BLOCK;
	z->nr_free -= MAX_BLOCK;
	set_pageblock_range(z, pfn, MAX_ORDER, SIM_MIGRATE_MOVABLE);
	add_free(z, sim_pfn_to_page(pfn), MAX_ORDER, SIM_MIGRATE_MOVABLE, 1);
	return 1;
}

/* The head of the (order, mt) free list, carving a deferred block if due. */
static struct sim_page *peek_free(struct zone *z, unsigned int order, int mt)
{
	struct sim_list *list = &z->free_area[order][mt];

	if (list_is_empty(list)) {
		if (order != MAX_ORDER || mt != SIM_MIGRATE_MOVABLE ||
		    !carve_deferred(z))
			return NULL;
	}
	return lru_to_page(list->next);
}

/* Split page from order high down to low; the high halves go to the lists. */
static void expand(struct zone *z, struct sim_page *page, unsigned int low,
		   unsigned int high, int mt)
{
	while (high > low) {
		high--;
		add_free(z, page + (1UL << high), high, mt, 0);
		sim_count(SIM_CNT_BUDDY_SPLIT, 1);
	}
}

/* The smallest order at or above order with a free block of mt: one bit scan. */
static struct sim_page *rmqueue_smallest(struct zone *z, unsigned int order,
					 int mt)
{
	unsigned int m = orders_free(z, mt) & orders_from(order), o;
	struct sim_page *page;

	if (!m)
		return NULL;
	o = (unsigned int)__builtin_ctz(m);
	page = peek_free(z, o, mt);
	del_free(z, page, o);
	expand(z, page, order, o, mt);
	return page;
}

/* Orders at or above order where some fallback type of start_mt has a block. */
static unsigned int fallback_orders(const struct zone *z, unsigned int order,
				    int start_mt)
{
	unsigned int m = 0;
	int i;

	for (i = 0; i < NR_MT - 1; i++)
		m |= orders_free(z, fallbacks[start_mt][i]);
	return m & orders_from(order);
}

/* The first fallback type (in fallbacks[] order) with a block of this order. */
static int find_fallback(const struct zone *z, unsigned int order, int start_mt,
			 int *can_claim)
{
	int i;

	for (i = 0; i < NR_MT - 1; i++) {
		int fb = fallbacks[start_mt][i];

		if (!(orders_free(z, fb) & (1U << order)))
			continue;
		*can_claim = order >= PB_ORDER / 2 ||
			     start_mt != SIM_MIGRATE_MOVABLE;
		return fb;
	}
	return -1;
}

/* Give the pageblock at pfn to mt, moving its free blocks to mt's lists. */
static void claim_pageblock(struct zone *z, unsigned long pfn, int mt)
{
	unsigned long end = pfn + PB_PAGES;

	z->pageblock_mt[pageblock_index(z, pfn)] = (unsigned char)mt;
	while (pfn < end) {
		struct sim_page *page = sim_pfn_to_page(pfn);
		unsigned int order;

		if (!sim_page_test(page, SIM_PG_BUDDY)) {
			pfn++;
			continue;
		}
		order = (unsigned int)page->private;
		if (page->migratetype != mt) {
			del_free(z, page, order);
			add_free(z, page, order, mt, 1);
		}
		pfn += 1UL << order;
	}
}

static struct sim_page *steal_fallback(struct zone *z, struct sim_page *page,
				       unsigned int cur, unsigned int order,
				       int start_mt, int can_claim)
{
	unsigned long pfn = sim_page_to_pfn(page);
	unsigned long pb = pfn & ~(PB_PAGES - 1);
	int block_mt = page->migratetype;

	if (cur >= PB_ORDER) {
		del_free(z, page, cur);
		set_pageblock_range(z, pfn, cur, start_mt);
		expand(z, page, order, cur, start_mt);
		return page;
	}
	if (can_claim && pb >= z->start_pfn && pb + PB_PAGES <= z->end_pfn &&
	    z->pageblock_free[pageblock_index(z, pb)] >= PB_PAGES / 2) {
		claim_pageblock(z, pb, start_mt);
		return rmqueue_smallest(z, order, start_mt);
	}
	del_free(z, page, cur);
	expand(z, page, order, cur, block_mt);
	return page;
}

/*
 * The largest order with a fallback block first; a movable request that
 * could not claim it takes the smallest instead.  The orders come from the
 * per-type bitmaps: two bit scans, no walk over the free lists.
 */
static struct sim_page *rmqueue_fallback(struct zone *z, unsigned int order,
					 int start_mt)
{
	unsigned int m = fallback_orders(z, order, start_mt), o;
	int fb, can_claim = 0;

	if (!m)
		return NULL;
	o = 31U - (unsigned int)__builtin_clz(m);
	fb = find_fallback(z, o, start_mt, &can_claim);
	if (!can_claim && start_mt == SIM_MIGRATE_MOVABLE && o > order) {
		o = (unsigned int)__builtin_ctz(m);
		fb = find_fallback(z, o, start_mt, &can_claim);
	}
	return steal_fallback(z, peek_free(z, o, fb), o, order, start_mt,
			      can_claim);
}

/* __rmqueue: one block of this order from the zone's lists (zone lock held). */
static struct sim_page *rmqueue(struct zone *z, unsigned int order, int mt)
{
	struct sim_page *page = rmqueue_smallest(z, order, mt);

	if (!page)
		page = rmqueue_fallback(z, order, mt);
	if (page)
		sim_count(SIM_CNT_BUDDY_ALLOC, 1);
	return page;
}

/* __free_one_page: merge with free buddies and put on the lists. */
static void free_one(struct zone *z, unsigned long pfn, unsigned int order,
		     int mt)
{
	sim_count(SIM_CNT_BUDDY_FREE, 1);
	while (order < MAX_ORDER) {
		unsigned long buddy_pfn = pfn ^ (1UL << order);
		struct sim_page *buddy = sim_pfn_to_page(buddy_pfn);

		if (buddy_pfn < z->start_pfn ||
		    buddy_pfn + (1UL << order) > z->end_pfn)
			break;
		if (!sim_page_test(buddy, SIM_PG_BUDDY) || buddy->private != order)
			break;
		if (order >= PB_ORDER && buddy->migratetype != mt)
			set_pageblock_range(z, buddy_pfn, order, mt);
		del_free(z, buddy, order);
		sim_count(SIM_CNT_BUDDY_MERGE, 1);
		pfn &= buddy_pfn;
		order++;
	}
	add_free(z, sim_pfn_to_page(pfn), order, mt, 0);
}

static void free_to_buddy(struct zone *z, struct sim_page *page,
			  unsigned int order)
{
	unsigned long pfn = sim_page_to_pfn(page);

	free_one(z, pfn, order, pageblock_mt(z, pfn));
}

/* ------------------------------------------------------------------------
 * Per-cpu lists
 */
/*
 * Free pages from the pcp lists down to target, one page from each
 * non-empty list in turn from list start on.  The non-empty lists are a
 * bit mask (nothing is added to a list while it drains), so the turn goes
 * straight to the next one: sim_buddy_rewind() drains every page an input
 * freed, and stepping over the empty lists one by one was half of that.
 */
_Static_assert(NR_PCP_LISTS <= 32, "pcp list mask");

static void pcp_drain_to(struct zone *z, struct pcp *pcp, unsigned long target,
			 unsigned int start)
{
	unsigned int idx, nonempty = 0;

	for (idx = 0; idx < NR_PCP_LISTS; idx++)
		if (!list_is_empty(&pcp->lists[idx]))
			nonempty |= 1u << idx;
	idx = start;
	while (pcp->count > target && nonempty) {
		/* The first non-empty list at idx or after it, cyclically. */
		unsigned int ahead = nonempty >> idx;
		struct sim_list *list;
		struct sim_page *page;
		unsigned int order;

		idx = ahead ? idx + (unsigned int)__builtin_ctz(ahead) :
			      (unsigned int)__builtin_ctz(nonempty);
		list = &pcp->lists[idx];
		page = lru_to_page(list->prev);
		order = page->pcp_order;
		list_unlink(&page->lru);
		page->flags &= ~(1UL << SIM_PG_PCP);
		page->pcp_order = 0;
		pcp->count -= 1UL << order;
		free_to_buddy(z, page, order);
		if (list_is_empty(list))
			nonempty &= ~(1u << idx);
		idx = (idx + 1) % NR_PCP_LISTS;
	}
}

static struct sim_page *rmqueue_pcp(struct zone *z, unsigned int order, int mt)
{
	struct pcp *pcp = &z->pcp[current_cpu];
	struct sim_list *list = &pcp->lists[pcp_index(order, mt)];
	struct sim_page *page;

	if (list_is_empty(list)) {
		unsigned long i, batch = pcp->batch >> order;

		if (batch < 2)
			batch = 2;
		sim_count(SIM_CNT_ZONE_LOCK, 1);
		if (pcp->high_min != pcp->high_max)
			pcp->high = pcp->high + pcp->batch < pcp->high_max ?
				    pcp->high + pcp->batch : pcp->high_max;
		for (i = 0; i < batch; i++) {
			page = rmqueue(z, order, mt);
			if (!page)
				break;
			page->flags |= 1UL << SIM_PG_PCP;
			page->pcp_order = (unsigned char)order;
			list_push_tail(&page->lru, list);
			pcp->count += 1UL << order;
		}
		if (list_is_empty(list))
			return NULL;
	}
	page = lru_to_page(list->next);
	list_unlink(&page->lru);
	page->flags &= ~(1UL << SIM_PG_PCP);
	page->pcp_order = 0;
	pcp->count -= 1UL << order;
	pcp->free_count >>= 1;
	sim_count(SIM_CNT_PCP_HIT, 1);
	return page;
}

static void free_pcp(struct zone *z, struct sim_page *page, unsigned int order)
{
	struct pcp *pcp = &z->pcp[current_cpu];
	int mt = pageblock_mt(z, sim_page_to_pfn(page));
	unsigned int idx = pcp_index(order, mt);

	page->flags |= 1UL << SIM_PG_PCP;
	page->pcp_order = (unsigned char)order;
	page->migratetype = (unsigned char)mt;
	list_push_head(&page->lru, &pcp->lists[idx]);
	pcp->count += 1UL << order;
	sim_count(SIM_CNT_PCP_FREE, 1);
	if (pcp->free_count < (pcp->batch << 5))
		pcp->free_count += 1UL << order;
	if (pcp->count >= pcp->high &&
	    pcp->high < pcp->free_count + pcp->batch) {
		unsigned long need = pcp->free_count + pcp->batch;

		pcp->high = need < pcp->high_max ? need : pcp->high_max;
	}
	if (pcp->count >= pcp->high) {
		unsigned long nr = pcp->free_count;

		if (nr > pcp->high - pcp->batch)
			nr = pcp->high - pcp->batch;
		if (nr < pcp->batch)
			nr = pcp->batch;
		sim_count(SIM_CNT_ZONE_LOCK, 1);
		pcp_drain_to(z, pcp, pcp->count > nr ? pcp->count - nr : 0, idx);
	}
}

/* ------------------------------------------------------------------------
 * Allocation and free
 */
static void prep_new_page_meta(struct sim_page *page, unsigned int order,
			       unsigned int sim_gfp, int mt)
{
	unsigned long i, nr = 1UL << order;

	page->flags &= (1UL << SIM_PG_TOUCHED);
	page->private = 0;
	page->compound_head = 0;
	page->compound_order = 0;
	page->zone = (unsigned char)zone_index(pfn_zone(sim_page_to_pfn(page)));
	page->migratetype = (unsigned char)mt;
	page->pcp_order = 0;
	page->refcount = 1;
	page->pincount = 0;
	page->mapcount = 0;
	page->owner = 0;
	page->lru.next = page->lru.prev = NULL;
	if ((sim_gfp & SIM_GFP_COMP) && order) {
		page->flags |= 1UL << SIM_PG_HEAD;
		page->compound_order = (unsigned char)order;
		for (i = 1; i < nr; i++) {
			page[i].flags |= 1UL << SIM_PG_TAIL;
			page[i].compound_head = (unsigned long)page | 1;
		}
	}
}

/* Outside the lock: clearing data is the slow part, and the page is ours. */
static void prep_new_page_data(struct sim_page *page, unsigned int order,
			       unsigned int sim_gfp)
{
	unsigned long nr = 1UL << order;

	if (sim_gfp & SIM_GFP_ZERO) {
		sim_mem_clear_data(page, nr);
		sim_count(SIM_CNT_PAGE_ZEROED, nr);
	}
}

static struct sim_page *zone_alloc(struct zone *z, unsigned int order, int mt)
{
	struct sim_page *page;

	if (pcp_allowed(order)) {
		page = rmqueue_pcp(z, order, mt);
		if (page)
			return page;
	}
	sim_count(SIM_CNT_ZONE_LOCK, 1);
	return rmqueue(z, order, mt);
}

static struct sim_page *alloc_from_zones(unsigned int order, int mt,
					 unsigned int sim_gfp)
{
	struct sim_page *page = NULL;
	int i = (int)nr_zones - 1;

	pthread_mutex_lock(&mem_lock);
	for (; i >= 0 && !page; i--)
		if (zones[i].dma32 || !(sim_gfp & SIM_GFP_DMA32))
			page = zone_alloc(&zones[i], order, mt);
	if (page) {
		allocated_pages += 1UL << order;
		/*
		 * The page's metadata is written under the lock: a free of its
		 * buddy, on another thread, reads the head's flags to decide
		 * whether to merge.
		 */
		prep_new_page_meta(page, order, sim_gfp, mt);
	}
	pthread_mutex_unlock(&mem_lock);
	return page;
}


/* Attempts and failures per order, for "how often does order N fail?" */
static unsigned long long order_attempts[SIM_NR_ORDERS];
static unsigned long long order_failures[SIM_NR_ORDERS];

void sim_buddy_reset_order_stats(void)
{
	memset(order_attempts, 0, sizeof(order_attempts));
	memset(order_failures, 0, sizeof(order_failures));
}

unsigned long long sim_buddy_order_attempts(unsigned int order)
{
	return order < SIM_NR_ORDERS ? order_attempts[order] : 0;
}

unsigned long long sim_buddy_order_failures(unsigned int order)
{
	return order < SIM_NR_ORDERS ? order_failures[order] : 0;
}

/* Which zones a request may use, in the order alloc_from_zones tries them. */
unsigned int sim_buddy_zones_for(unsigned int sim_gfp, unsigned int idx[2])
{
	int i = (sim_gfp & SIM_GFP_DMA32) ? 0 : (int)nr_zones - 1;
	unsigned int n = 0;

	for (; i >= 0; i--)
		idx[n++] = (unsigned int)i;
	return n;
}

void sim_buddy_zone_info(unsigned int zi, struct sim_zone_info *info)
{
	const struct zone *z = &zones[zi];
	unsigned int o;
	int mt;

	pthread_mutex_lock(&mem_lock);
	info->start_pfn = z->start_pfn;
	info->end_pfn = z->end_pfn;
	info->deferred_start = z->frontier;
	info->deferred_end = z->deferred_end;
	info->nr_free = z->nr_free;
	info->wmark_low = z->wmark_low;
	for (o = 0; o <= MAX_ORDER; o++) {
		info->nr_blocks[o] = 0;
		for (mt = 0; mt < NR_MT; mt++)
			info->nr_blocks[o] += z->nr_blocks[o][mt];
	}
	info->nr_blocks[MAX_ORDER] += deferred_blocks(z);
	pthread_mutex_unlock(&mem_lock);
}

int sim_buddy_isolate_free(unsigned long pfn, unsigned int below)
{
	struct sim_page *page = sim_pfn_to_page(pfn);
	struct zone *z = pfn_zone(pfn);
	int order = -1;

	pthread_mutex_lock(&mem_lock);
	if (sim_page_test(page, SIM_PG_BUDDY) && page->private < below &&
	    pageblock_mt(z, pfn) == SIM_MIGRATE_MOVABLE) {
		order = (int)page->private;
		del_free(z, page, (unsigned int)order);
		allocated_pages += 1UL << order;
		prep_new_page_meta(page, (unsigned int)order, 0, SIM_MIGRATE_MOVABLE);
	}
	pthread_mutex_unlock(&mem_lock);
	return order;
}

/* Drain the per-cpu lists, then reclaim; one round with a limit or until it fits. */
static struct sim_page *reclaim_and_alloc(unsigned int order, int mt,
					  unsigned int sim_gfp,
					  unsigned long *reclaimed)
{
	struct sim_page *page;
	unsigned long limit = 0, got;
	int one_round = !!(sim_gfp & (SIM_GFP_NORETRY | SIM_GFP_RETRY_MAYFAIL));

	*reclaimed = 0;
	sim_buddy_drain_pcp();
	page = alloc_from_zones(order, mt, sim_gfp);
	if (one_round)
		limit = (2UL << order) > 32 ? (2UL << order) : 32;
	while (!page) {
		got = sim_age_reclaim(order, sim_gfp, limit);
		*reclaimed += got;
		if (!got)
			break;
		page = alloc_from_zones(order, mt, sim_gfp);
		if (one_round)
			break;
	}
	return page;
}

/* Compaction, and the allocation it makes room for. */
static struct sim_page *compact_and_alloc(unsigned int order, int mt,
					  unsigned int sim_gfp,
					  enum sim_compact_mode mode,
					  enum sim_compact_result *result)
{
	*result = sim_compact(order, sim_gfp, mode);
	return *result == SIM_COMPACT_SUCCESS ?
	       alloc_from_zones(order, mt, sim_gfp) : NULL;
}

#define COSTLY_ORDER		3	/* PAGE_ALLOC_COSTLY_ORDER */
#define MAX_COMPACT_RETRIES	16

/*
 * __alloc_pages_slowpath for a request the free lists could not serve,
 * in the kernel's order: async compaction first for costly (and non-movable
 * high-order) requests; NORETRY costly requests stop there when
 * compaction was skipped or __GFP_THISNODE is set; then one reclaim and one
 * more compaction (async for NORETRY, sync-light otherwise); NORETRY stops;
 * RETRY_MAYFAIL retries while reclaim makes progress and compaction was
 * skipped or succeeded without the allocation (at most 16/4 times).
 */
static struct sim_page *alloc_slowpath(unsigned int order, int mt,
				       unsigned int sim_gfp)
{
	int can_compact = !!(sim_gfp & SIM_GFP_COMPACT);
	int costly = order > COSTLY_ORDER;
	enum sim_compact_mode mode = SIM_COMPACT_SYNC;
	enum sim_compact_result result = SIM_COMPACT_SKIPPED;
	struct sim_page *page;
	unsigned long reclaimed;
	unsigned int retries = 0;

	if (!(sim_gfp & SIM_GFP_DIRECT_RECLAIM))
		return NULL;
	if (can_compact && (costly || (order && mt != SIM_MIGRATE_MOVABLE))) {
		page = compact_and_alloc(order, mt, sim_gfp, SIM_COMPACT_ASYNC,
					 &result);
		if (page)
			return page;
		if (costly && (sim_gfp & SIM_GFP_NORETRY)) {
			if (result == SIM_COMPACT_SKIPPED ||
			    (sim_gfp & SIM_GFP_THISNODE))
				return NULL;
			mode = SIM_COMPACT_ASYNC;
		}
	}
	for (;;) {
		page = reclaim_and_alloc(order, mt, sim_gfp, &reclaimed);
		if (page)
			return page;
		if (can_compact) {
			page = compact_and_alloc(order, mt, sim_gfp, mode, &result);
			if (page)
				return page;
		}
		if ((sim_gfp & SIM_GFP_NORETRY) ||
		    !(sim_gfp & SIM_GFP_RETRY_MAYFAIL) || !can_compact ||
		    !reclaimed)
			return NULL;
		if (result == SIM_COMPACT_COMPLETE ||
		    ++retries > (result == SIM_COMPACT_SUCCESS && costly ?
				 MAX_COMPACT_RETRIES / 4 : MAX_COMPACT_RETRIES))
			return NULL;
	}
}

struct sim_page *sim_buddy_alloc(unsigned int order, unsigned int sim_gfp)
{
	int mt = gfp_migratetype(sim_gfp);
	struct sim_page *page = NULL;

	if (order > MAX_ORDER || !nr_zones) {
		sim_count(SIM_CNT_ALLOC_FAIL, 1);
		return NULL;
	}
	__atomic_fetch_add(&order_attempts[order], 1, __ATOMIC_RELAXED);
	call_begin();
	page = alloc_from_zones(order, mt, sim_gfp);
	if (!page)
		page = alloc_slowpath(order, mt, sim_gfp);
	if (!page) {
		__atomic_fetch_add(&order_failures[order], 1, __ATOMIC_RELAXED);
		sim_count(SIM_CNT_ALLOC_FAIL, 1);
	} else {
		prep_new_page_data(page, order, sim_gfp);
	}
	call_end();
	return page;
}

/* Clear the allocation state of a block being freed; 0 if it cannot be. */
static int free_prepare(struct sim_page *page, unsigned int order)
{
	unsigned long i, nr = 1UL << order;
	unsigned long touched = page->flags & (1UL << SIM_PG_TOUCHED);

	if (page->flags & ((1UL << SIM_PG_BUDDY) | (1UL << SIM_PG_PCP))) {
		sim_kernel_warn(__FILE__, __LINE__, "freeing a free page");
		return 0;
	}
	if (page->flags & (1UL << SIM_PG_RESERVED)) {
		sim_kernel_warn(__FILE__, __LINE__, "freeing a reserved page");
		return 0;
	}
	/*
	 * Tails of a compound page lose their tail state.  Data of a block may
	 * have been written through its first page's address: if the first
	 * page was touched, all are (pages touched on their own, through their
	 * own address or a vmap, carry the flag already).  Other blocks' tails
	 * are not looked at, so freeing an untouched non-compound block costs
	 * nothing per page.
	 */
	if (page->flags & (1UL << SIM_PG_HEAD)) {
		for (i = 1; i < nr; i++) {
			touched |= page[i].flags & (1UL << SIM_PG_TOUCHED);
			page[i].flags &= 1UL << SIM_PG_TOUCHED;
			page[i].compound_head = 0;
		}
	}
	if (touched && order)
		for (i = 0; i < nr; i++)
			if (!(page[i].flags & (1UL << SIM_PG_TOUCHED)))
				page[i].flags |= 1UL << SIM_PG_TOUCHED;
	page->flags &= 1UL << SIM_PG_TOUCHED;
	page->compound_order = 0;
	page->compound_head = 0;
	page->refcount = 0;
	page->pincount = 0;
	page->mapcount = 0;
	page->owner = 0;
	page->private = 0;
	return 1;
}

static void buddy_free(struct sim_page *page, unsigned int order, int use_pcp)
{
	unsigned long pfn;
	struct zone *z;

	if (!page)
		return;
	pfn = sim_page_to_pfn(page);
	if (order > MAX_ORDER || !sim_pfn_valid(pfn) ||
	    (pfn & ((1UL << order) - 1)) ||
	    pfn + (1UL << order) > pfn_zone(pfn)->end_pfn) {
		sim_kernel_warn(__FILE__, __LINE__, "freeing a block that is not one");
		return;
	}
	call_begin();
	pthread_mutex_lock(&mem_lock);
	if (!free_prepare(page, order)) {
		pthread_mutex_unlock(&mem_lock);
		call_end();
		return;
	}
	allocated_pages -= 1UL << order;
	z = pfn_zone(pfn);
	if (use_pcp && pcp_allowed(order)) {
		free_pcp(z, page, order);
	} else {
		sim_count(SIM_CNT_ZONE_LOCK, 1);
		free_to_buddy(z, page, order);
	}
	pthread_mutex_unlock(&mem_lock);
	call_end();
}

/* Is the max-order block at pfn free (on a list, or deferred)? */
static int max_block_free(const struct zone *z, unsigned long pfn)
{
	const struct sim_page *page;

	if (pfn >= z->frontier && pfn < z->deferred_end)
		return 1;
	page = sim_pfn_to_page(pfn);
	return sim_page_test(page, SIM_PG_BUDDY) && page->private == MAX_ORDER;
}

/* The first naturally aligned free range of 2^order pages in z, or NULL. */
static struct sim_page *take_gigantic(struct zone *z, unsigned int order)
{
	unsigned long nr = 1UL << order;
	unsigned long pfn, p;

	for (pfn = (z->start_pfn + nr - 1) & ~(nr - 1);
	     pfn + nr <= z->end_pfn && pfn + nr > pfn; pfn += nr) {
		for (p = pfn; p < pfn + nr; p += MAX_BLOCK)
			if (!max_block_free(z, p))
				break;
		if (p < pfn + nr)
			continue;
		/* deferred blocks in it go on the list first, in order */
		while (z->frontier < pfn + nr && carve_deferred(z))
			;
		for (p = pfn; p < pfn + nr; p += MAX_BLOCK)
			del_free(z, sim_pfn_to_page(p), MAX_ORDER);
		return sim_pfn_to_page(pfn);
	}
	return NULL;
}

struct sim_page *sim_buddy_alloc_gigantic(unsigned int order,
					  unsigned int sim_gfp)
{
	struct sim_page *page = NULL;
	unsigned int i;

	if (order <= MAX_ORDER || order >= 8 * sizeof(long) - SIM_PAGE_SHIFT)
		return NULL;
	sim_buddy_drain_pcp();
	call_begin();
	pthread_mutex_lock(&mem_lock);
	sim_count(SIM_CNT_ZONE_LOCK, 1);
	/* Normal before DMA32, as an unrestricted request */
	for (i = nr_zones; i-- > 0 && !page;)
		page = take_gigantic(&zones[i], order);
	if (page) {
		allocated_pages += 1UL << order;
		prep_new_page_meta(page, order, sim_gfp | SIM_GFP_COMP,
				   SIM_MIGRATE_MOVABLE);
	} else {
		sim_count(SIM_CNT_ALLOC_FAIL, 1);
	}
	pthread_mutex_unlock(&mem_lock);
	call_end();
	if (page)
		prep_new_page_data(page, order, sim_gfp);
	return page;
}

static void free_gigantic(struct sim_page *page, unsigned int order)
{
	unsigned long pfn = sim_page_to_pfn(page), p;
	struct zone *z = pfn_zone(pfn);

	if ((pfn & ((1UL << order) - 1)) ||
	    pfn + (1UL << order) > z->end_pfn) {
		sim_kernel_warn(__FILE__, __LINE__, "freeing a block that is not one");
		return;
	}
	call_begin();
	pthread_mutex_lock(&mem_lock);
	if (free_prepare(page, order)) {
		allocated_pages -= 1UL << order;
		sim_count(SIM_CNT_ZONE_LOCK, 1);
		for (p = pfn; p < pfn + (1UL << order); p += MAX_BLOCK)
			free_to_buddy(z, sim_pfn_to_page(p), MAX_ORDER);
	}
	pthread_mutex_unlock(&mem_lock);
	call_end();
}

void sim_buddy_free(struct sim_page *page, unsigned int order)
{
	if (page && order > MAX_ORDER && sim_page_test(page, SIM_PG_HEAD) &&
	    page->compound_order == order) {
		free_gigantic(page, order);
		return;
	}
	buddy_free(page, order, 1);
}

void sim_buddy_free_direct(struct sim_page *page, unsigned int order)
{
	buddy_free(page, order, 0);
}

/* ------------------------------------------------------------------------
 * Queries
 */
/* Pages at the start of a zone of [start, end) kept out (see the top). */
static unsigned long low_reserved(unsigned long start, unsigned long end)
{
	if (start)
		return 0;
	return end - start > MAX_BLOCK ? MAX_BLOCK : 1;
}

static unsigned long low_reserved_pages(const struct zone *z)
{
	return low_reserved(z->start_pfn, z->end_pfn);
}

unsigned long sim_buddy_nr_free(void)
{
	unsigned long nr = 0;
	unsigned int i, cpu;

	pthread_mutex_lock(&mem_lock);
	for (i = 0; i < nr_zones; i++) {
		nr += zones[i].nr_free;
		for (cpu = 0; cpu < nr_cpus; cpu++)
			nr += zones[i].pcp[cpu].count;
	}
	pthread_mutex_unlock(&mem_lock);
	return nr;
}

unsigned long sim_buddy_nr_managed(void)
{
	unsigned long nr = 0;
	unsigned int i;

	for (i = 0; i < nr_zones; i++)
		nr += zones[i].end_pfn - zones[i].start_pfn -
		      low_reserved_pages(&zones[i]);
	return nr;
}

unsigned long sim_buddy_first_pfn(void)
{
	return nr_zones ? zones[0].start_pfn + low_reserved_pages(&zones[0]) : 0;
}

unsigned long sim_buddy_nr_free_blocks(unsigned int order)
{
	unsigned long nr = 0;
	unsigned int i;
	int mt;

	if (order > MAX_ORDER)
		return 0;
	pthread_mutex_lock(&mem_lock);
	for (i = 0; i < nr_zones; i++) {
		for (mt = 0; mt < NR_MT; mt++)
			nr += zones[i].nr_blocks[order][mt];
		if (order == MAX_ORDER)
			nr += deferred_blocks(&zones[i]);
	}
	pthread_mutex_unlock(&mem_lock);
	return nr;
}

unsigned long sim_buddy_nr_free_blocks_mt(unsigned int order, int mt)
{
	unsigned long nr = 0;
	unsigned int i;

	if (order > MAX_ORDER || mt < 0 || mt >= NR_MT)
		return 0;
	pthread_mutex_lock(&mem_lock);
	for (i = 0; i < nr_zones; i++) {
		nr += zones[i].nr_blocks[order][mt];
		if (order == MAX_ORDER && mt == SIM_MIGRATE_MOVABLE)
			nr += deferred_blocks(&zones[i]);
	}
	pthread_mutex_unlock(&mem_lock);
	return nr;
}

unsigned long sim_buddy_nr_pcp(unsigned int cpu)
{
	unsigned long nr = 0;
	unsigned int i;

	if (cpu >= nr_cpus)
		return 0;
	pthread_mutex_lock(&mem_lock);
	for (i = 0; i < nr_zones; i++)
		nr += zones[i].pcp[cpu].count;
	pthread_mutex_unlock(&mem_lock);
	return nr;
}

int sim_pageblock_migratetype(unsigned long pfn)
{
	const struct zone *z;

	if (!sim_pfn_valid(pfn) || !nr_zones)
		return -1;
	z = pfn_zone(pfn);
	if (pfn >= z->frontier && pfn < z->deferred_end)
		return SIM_MIGRATE_MOVABLE;
	return pageblock_mt(z, pfn);
}

int sim_buddy_fits(unsigned int order, unsigned int sim_gfp)
{
	int i = (int)nr_zones - 1;
	int mt, fits = 0;

	pthread_mutex_lock(&mem_lock);
	for (; i >= 0 && !fits; i--) {
		if (!zones[i].dma32 && (sim_gfp & SIM_GFP_DMA32))
			continue;
		for (mt = 0; mt < NR_MT; mt++)
			if (orders_free(&zones[i], mt) & orders_from(order))
				fits = 1;
	}
	pthread_mutex_unlock(&mem_lock);
	return fits;
}

void sim_buddy_drain_pcp(void)
{
	unsigned int i, cpu;

	pthread_mutex_lock(&mem_lock);
	for (i = 0; i < nr_zones; i++) {
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			struct pcp *pcp = &zones[i].pcp[cpu];

			if (!pcp->count)
				continue;
			sim_count(SIM_CNT_ZONE_LOCK, 1);
			pcp_drain_to(&zones[i], pcp, 0, 0);
		}
	}
	pthread_mutex_unlock(&mem_lock);
}

void sim_set_cpu(unsigned int cpu)
{
	current_cpu = cpu < nr_cpus ? cpu : 0;
}

unsigned int sim_current_cpu(void)
{
	return current_cpu;
}

unsigned long sim_buddy_nr_allocated(void)
{
	return allocated_pages - sim_age_held_pages();
}

unsigned long long sim_buddy_host_bytes(void)
{
	unsigned long long nr = sizeof(zones);
	unsigned int i;

	for (i = 0; i < nr_zones; i++)
		nr += sim_mem_resident_bytes(zones[i].pageblock_free,
					     pageblock_map_bytes(&zones[i])) +
		      nr_cpus * sizeof(struct pcp);
	return nr;
}

/* ------------------------------------------------------------------------
 * Checkpoint and rewind (sim_mem.h)
 *
 * The record: per zone, every free list's block pfns in list order (one
 * array, each list's run starting at first[order][mt]), the frontier,
 * pageblock types and per-cpu tuning; the per-cpu lists are empty at both
 * ends (drained).  A rewind checks that each recorded block is a free block
 * of its order now, and that the carved part of the deferred range is free
 * max-order blocks: with the zone's free page count equal to the record's,
 * the free pages are then exactly the recorded ones, and relinking the
 * recorded blocks restores every list's order.
 */
struct ckpt_zone {
	unsigned long frontier, nr_free;
	unsigned long nr_blocks[SIM_NR_ORDERS][NR_MT];
	unsigned long first[SIM_NR_ORDERS][NR_MT];
	unsigned char *pageblock_mt;
	struct pcp *pcp;		/* tuning only: the lists are empty */
};

static struct {
	int valid;
	unsigned int nr_zones, nr_cpus;
	unsigned long allocated_pages;
	struct ckpt_zone z[MAX_ZONES];
	unsigned long *pfns;
	unsigned long nr_pfns, cap_pfns;
} ckpt;

static void ckpt_forget(void)
{
	unsigned int i;

	for (i = 0; i < MAX_ZONES; i++) {
		free(ckpt.z[i].pageblock_mt);
		free(ckpt.z[i].pcp);
	}
	free(ckpt.pfns);
	memset(&ckpt, 0, sizeof(ckpt));
}

static int ckpt_push(unsigned long pfn)
{
	if (ckpt.nr_pfns == ckpt.cap_pfns) {
		unsigned long cap = ckpt.cap_pfns ? 2 * ckpt.cap_pfns : 256;
		unsigned long *p = realloc(ckpt.pfns, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ckpt.pfns = p;
		ckpt.cap_pfns = cap;
	}
	ckpt.pfns[ckpt.nr_pfns++] = pfn;
	return 0;
}

static void drain_all_locked(void)
{
	unsigned int i, cpu;

	for (i = 0; i < nr_zones; i++)
		for (cpu = 0; cpu < nr_cpus; cpu++)
			if (zones[i].pcp[cpu].count)
				pcp_drain_to(&zones[i], &zones[i].pcp[cpu], 0, 0);
}

static int checkpoint_zone(struct zone *z, struct ckpt_zone *c)
{
	unsigned int o;
	int mt;

	c->frontier = z->frontier;
	c->nr_free = z->nr_free;
	memcpy(c->nr_blocks, z->nr_blocks, sizeof(c->nr_blocks));
	c->pageblock_mt = malloc(z->pageblock_bytes);
	c->pcp = malloc(nr_cpus * sizeof(*c->pcp));
	if (!c->pageblock_mt || !c->pcp)
		return -ENOMEM;
	memcpy(c->pageblock_mt, z->pageblock_mt, z->pageblock_bytes);
	memcpy(c->pcp, z->pcp, nr_cpus * sizeof(*c->pcp));
	for (o = 0; o <= MAX_ORDER; o++) {
		for (mt = 0; mt < NR_MT; mt++) {
			struct sim_list *head = &z->free_area[o][mt], *n;

			c->first[o][mt] = ckpt.nr_pfns;
			for (n = head->next; n != head; n = n->next)
				if (ckpt_push(sim_page_to_pfn(lru_to_page(n))))
					return -ENOMEM;
		}
	}
	return 0;
}

int sim_buddy_checkpoint(void)
{
	unsigned int i;
	int ret = 0;

	pthread_mutex_lock(&mem_lock);
	ckpt_forget();
	drain_all_locked();
	ckpt.nr_zones = nr_zones;
	ckpt.nr_cpus = nr_cpus;
	ckpt.allocated_pages = allocated_pages;
	for (i = 0; i < nr_zones && !ret; i++)
		ret = checkpoint_zone(&zones[i], &ckpt.z[i]);
	if (ret)
		ckpt_forget();
	else
		ckpt.valid = 1;
	pthread_mutex_unlock(&mem_lock);
	return ret;
}

static int is_free_block(unsigned long pfn, unsigned int order)
{
	const struct sim_page *page = sim_pfn_to_page(pfn);

	return sim_page_test(page, SIM_PG_BUDDY) && page->private == order;
}

/* Are the zone's free pages exactly the recorded ones? */
static int zone_matches(const struct zone *z, const struct ckpt_zone *c)
{
	unsigned long pfn, k;
	unsigned int o;
	int mt;

	if (z->nr_free != c->nr_free || z->frontier < c->frontier)
		return 0;
	for (pfn = c->frontier; pfn < z->frontier; pfn += MAX_BLOCK)
		if (!is_free_block(pfn, MAX_ORDER))
			return 0;
	for (o = 0; o <= MAX_ORDER; o++)
		for (mt = 0; mt < NR_MT; mt++)
			for (k = 0; k < c->nr_blocks[o][mt]; k++)
				if (!is_free_block(ckpt.pfns[c->first[o][mt] + k], o))
					return 0;
	return 1;
}

static void rewind_zone(struct zone *z, const struct ckpt_zone *c)
{
	unsigned long pfn, k;
	unsigned int o, cpu;
	int mt;

	/* Carved since: back to the deferred range, off every list. */
	for (pfn = c->frontier; pfn < z->frontier; pfn += MAX_BLOCK) {
		struct sim_page *page = sim_pfn_to_page(pfn);

		page->flags &= ~(1UL << SIM_PG_BUDDY);
		page->private = 0;
	}
	for (o = 0; o <= MAX_ORDER; o++) {
		for (mt = 0; mt < NR_MT; mt++) {
			struct sim_list *head = &z->free_area[o][mt];

			list_init(head);
			for (k = 0; k < c->nr_blocks[o][mt]; k++) {
				struct sim_page *page =
					sim_pfn_to_page(ckpt.pfns[c->first[o][mt] + k]);

				page->migratetype = (unsigned char)mt;
				list_push_tail(&page->lru, head);
			}
		}
	}
	memcpy(z->nr_blocks, c->nr_blocks, sizeof(z->nr_blocks));
	for (mt = 0; mt < NR_MT; mt++) {
		z->orders_listed[mt] = 0;
		for (o = 0; o <= MAX_ORDER; o++)
			if (z->nr_blocks[o][mt])
				z->orders_listed[mt] |= 1U << o;
	}
	z->frontier = c->frontier;
	memcpy(z->pageblock_mt, c->pageblock_mt, z->pageblock_bytes);
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		struct pcp *pcp = &z->pcp[cpu];

		pcp->high = c->pcp[cpu].high;
		pcp->high_min = c->pcp[cpu].high_min;
		pcp->high_max = c->pcp[cpu].high_max;
		pcp->batch = c->pcp[cpu].batch;
		pcp->free_count = c->pcp[cpu].free_count;
	}
}

/*
 * Every pcp page back to the buddy lists, list by list: what
 * sim_buddy_rewind() needs.  Unlike pcp_drain_to() (the kernel's order,
 * which a checkpoint records) it frees in no particular order and leaves
 * each page on its pcp list until the list is emptied at once: the blocks
 * the merges end with are the same in any order, and the rewind puts the
 * lists back in the checkpoint's order after.  The turn from list to list
 * and an unlink per page were half of a rewind (fuzz/README.md).
 */
static void drain_all_for_rewind(void)
{
	unsigned int i, cpu, l;

	for (i = 0; i < nr_zones; i++) {
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			struct pcp *pcp = &zones[i].pcp[cpu];

			if (!pcp->count)
				continue;
			for (l = 0; l < NR_PCP_LISTS; l++) {
				struct sim_list *head = &pcp->lists[l], *n, *next;

				for (n = head->next; n != head; n = next) {
					struct sim_page *page = lru_to_page(n);
					unsigned int order = page->pcp_order;

					next = n->next;
					page->flags &= ~(1UL << SIM_PG_PCP);
					page->pcp_order = 0;
					free_to_buddy(&zones[i], page, order);
				}
				list_init(head);
			}
			pcp->count = 0;
		}
	}
}

int sim_buddy_rewind(void)
{
	unsigned int i;
	int ret = 0;

	pthread_mutex_lock(&mem_lock);
	if (!ckpt.valid || ckpt.nr_zones != nr_zones || ckpt.nr_cpus != nr_cpus) {
		pthread_mutex_unlock(&mem_lock);
		return -ENOENT;
	}
	drain_all_for_rewind();
	for (i = 0; i < nr_zones && !ret; i++)
		if (!zone_matches(&zones[i], &ckpt.z[i]))
			ret = -EBUSY;
	if (!ret) {
		for (i = 0; i < nr_zones; i++)
			rewind_zone(&zones[i], &ckpt.z[i]);
		allocated_pages = ckpt.allocated_pages;
	}
	pthread_mutex_unlock(&mem_lock);
	return ret;
}

/* ------------------------------------------------------------------------
 * Boot
 */
static unsigned long isqrt(unsigned long long n)
{
	unsigned long long x = n, y = (x + 1) / 2;

	while (y < x) {
		x = y;
		y = (x + n / x) / 2;
	}
	return (unsigned long)x;
}

/* The kernel's zone_batchsize(): about 1/4 MiB of pages, 2^n - 1. */
static unsigned long zone_batch(unsigned long pages)
{
	unsigned long batch = pages >> 10, r = 1;

	if (batch > (1UL << 20) / SIM_PAGE_SIZE)
		batch = (1UL << 20) / SIM_PAGE_SIZE;
	batch /= 4;
	if (batch < 1)
		batch = 1;
	batch += batch / 2;
	while (r * 2 <= batch)
		r *= 2;
	return r - 1 ? r - 1 : 1;
}

static void setup_pcp(struct zone *z, unsigned long total_pages)
{
	unsigned long pages = z->end_pfn - z->start_pfn - low_reserved_pages(z);
	unsigned long long min_kb = isqrt((unsigned long long)total_pages *
					  (SIM_PAGE_SIZE / 1024) * 16);
	unsigned long min_pages, low, high, high_max, batch = zone_batch(pages);
	unsigned int cpu, l;

	/* min_free_kbytes = sqrt(lowmem_kbytes * 16), within [128K, 256M]. */
	if (min_kb < 128)
		min_kb = 128;
	if (min_kb > 262144)
		min_kb = 262144;
	min_pages = (unsigned long)(min_kb * 1024 / SIM_PAGE_SIZE *
				    pages / total_pages);
	low = min_pages + (min_pages / 4 > pages / 1000 ? min_pages / 4 : pages / 1000);
	z->wmark_low = low;
	high = low / nr_cpus;
	if (high < 4 * batch)
		high = 4 * batch;
	high_max = pages / 8 / nr_cpus;
	if (high_max < high)
		high_max = high;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		struct pcp *pcp = &z->pcp[cpu];

		for (l = 0; l < NR_PCP_LISTS; l++)
			list_init(&pcp->lists[l]);
		pcp->count = 0;
		pcp->free_count = 0;
		pcp->batch = batch;
		pcp->high = pcp->high_min = high;
		pcp->high_max = high_max;
	}
}

/* Free [pfn, end) at boot as maximal aligned blocks, address order. */
static void free_boot_range(struct zone *z, unsigned long pfn, unsigned long end)
{
	while (pfn < end) {
		unsigned int order = MAX_ORDER;

		while (order && ((pfn & ((1UL << order) - 1)) ||
				 pfn + (1UL << order) > end))
			order--;
		set_pageblock_range(z, pfn, order, SIM_MIGRATE_MOVABLE);
		add_free(z, sim_pfn_to_page(pfn), order, SIM_MIGRATE_MOVABLE, 1);
		pfn += 1UL << order;
	}
}

/* The zones of the RAM ranges: one per range, cut at 4 GiB. */
static unsigned int plan_zones(struct sim_ram_range *out)
{
	const struct sim_ram_range *ram;
	unsigned int i, n = sim_ram_ranges(&ram), nr = 0;

	for (i = 0; i < n; i++) {
		unsigned long start = ram[i].start_pfn, end = ram[i].end_pfn;

		if (start < DMA32_END_PFN && end > DMA32_END_PFN) {
			out[nr].start_pfn = start;
			out[nr++].end_pfn = DMA32_END_PFN;
			start = DMA32_END_PFN;
		}
		out[nr].start_pfn = start;
		out[nr++].end_pfn = end;
	}
	return nr;
}

int sim_buddy_init(const struct sim_config *cfg)
{
	struct sim_ram_range plan[MAX_ZONES];
	unsigned int i, o, n;
	unsigned long total = 0, pfn, first;
	int mt;

	sim_buddy_destroy();
	n = plan_zones(plan);
	nr_cpus = cfg->nr_cpus ? cfg->nr_cpus : 1;
	current_cpu = 0;
	allocated_pages = 0;
	/* The kernel sizes pcp lists by managed pages: low memory left out. */
	for (i = 0; i < n; i++)
		total += plan[i].end_pfn - plan[i].start_pfn -
			 low_reserved(plan[i].start_pfn, plan[i].end_pfn);
	for (i = 0; i < n; i++) {
		struct zone *z = &zones[i];
		void *p;

		memset(z, 0, sizeof(*z));
		z->start_pfn = plan[i].start_pfn;
		z->end_pfn = plan[i].end_pfn;
		z->dma32 = z->end_pfn <= DMA32_END_PFN;
		/*
		 * [start, first) reserved low memory; [first, frontier) up to
		 * the first max-order boundary (in the physical space: a zone
		 * may start anywhere), freed now; [frontier, deferred_end)
		 * deferred max-order blocks; then the tail.
		 */
		first = z->start_pfn + low_reserved_pages(z);
		for (pfn = z->start_pfn; pfn < first; pfn++)
			sim_page_set(sim_pfn_to_page(pfn), SIM_PG_RESERVED);
		z->frontier = (first + MAX_BLOCK - 1) & ~(MAX_BLOCK - 1);
		z->deferred_end = z->end_pfn & ~(MAX_BLOCK - 1);
		if (z->frontier < first || z->deferred_end < z->frontier)
			z->deferred_end = z->frontier;
		z->nr_free = z->deferred_end - z->frontier;
		for (o = 0; o <= MAX_ORDER; o++)
			for (mt = 0; mt < NR_MT; mt++)
				list_init(&z->free_area[o][mt]);
		z->pageblock_bytes = pageblock_index(z, z->end_pfn - 1) + 1;
		z->pageblock_map_len = pageblock_map_bytes(z);
		if (pb_kept[i].map && pb_kept[i].len >= z->pageblock_map_len) {
			p = pb_kept[i].map;
			z->pageblock_map_len = pb_kept[i].len;
			pb_kept[i].map = NULL;
		} else {
			p = mmap(NULL, z->pageblock_map_len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		}
		z->pcp = calloc(nr_cpus, sizeof(*z->pcp));
		nr_zones = i + 1;
		if (p == MAP_FAILED || !z->pcp) {
			if (p != MAP_FAILED)
				munmap(p, z->pageblock_map_len);
			sim_buddy_destroy();
			return -ENOMEM;
		}
		z->pageblock_free = p;
		z->pageblock_mt = (unsigned char *)(z->pageblock_free +
						    z->pageblock_bytes);
		setup_pcp(z, total);
		free_boot_range(z, first, z->frontier < z->end_pfn ?
					  z->frontier : z->end_pfn);
		free_boot_range(z, z->deferred_end, z->end_pfn);
	}
	return 0;
}

void sim_buddy_destroy(void)
{
	unsigned int i;

	ckpt_forget();
	for (i = 0; i < nr_zones; i++) {
		struct zone *z = &zones[i];

		/*
		 * Kept zeroed: only the map's bytes can have been written
		 * (the rest of a larger kept mapping was zeroed before).
		 */
		if (z->pageblock_free && !pb_kept[i].map &&
		    z->pageblock_map_len <= PB_MAP_KEEP_MAX) {
			memset(z->pageblock_free, 0, pageblock_map_bytes(z));
			pb_kept[i].map = z->pageblock_free;
			pb_kept[i].len = z->pageblock_map_len;
		} else if (z->pageblock_free) {
			munmap(z->pageblock_free, z->pageblock_map_len);
		}
		free(z->pcp);
		memset(z, 0, sizeof(*z));
	}
	nr_zones = 0;
	allocated_pages = 0;
}

void sim_buddy_release_kept(void)
{
	unsigned int i;

	for (i = 0; i < MAX_ZONES; i++) {
		if (pb_kept[i].map)
			munmap(pb_kept[i].map, pb_kept[i].len);
		pb_kept[i].map = NULL;
	}
}
